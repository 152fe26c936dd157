/*
   Private data of PCFGDD (fine-grained domain decomposition, the FGDD paper), shared by fgdd.c (the PC),
   fgdd-partition.c (partitioning, balancing, reordering), fgdd-apply.c (ILDU0 factors, levels, host
   apply variants) and cuda/fgdd.cu (the same apply variants as CUDA kernels, also run by cudaemu).

   Everything is in the permuted ordering of the local block: the rows of subdomain s are the block rows
   subptr[s] .. subptr[s+1]-1, and permuted block row i is block row perm[i] of the local block. Blocks are
   bs x bs, row-major (bs = 1 for AIJ).
*/
#ifndef PETSCGILU_FGDD_H
#define PETSCGILU_FGDD_H

#include <petscpc.h>
#include <petscgilu/private/compat.h>
#include <petscgilu/private/backend.h>

#define FGDD_MAX_BS 8 /* largest BAIJ block size (GILU_MAX_DOF) */

typedef enum {
  FGDD_APPLY_SYNCFREE, /* every row waits for the rows it depends on (host: a subdomain's rows in natural order) */
  FGDD_APPLY_VERTEX,   /* level by level, a row per thread: deterministic */
  FGDD_APPLY_EDGE      /* level by level, a nonzero per thread with atomics (host: push-style column updates) */
} FGDDApplyType;

typedef struct {
  PetscInt  nb, bs, bs2; /* block rows of the local block, block size */
  PetscInt  nsub;        /* number of subdomains */
  PetscInt *subptr;      /* nsub + 1: first permuted block row of each subdomain */
  PetscInt *perm;        /* nb: permuted block row i is the local block's block row perm[i] */
  PetscInt  maxsub;      /* block rows of the largest subdomain */
  /*
     The preconditioner's matrix: the permuted local block without the entries between subdomains (BSR, columns
     sorted, diag[i] the position of the diagonal block); after FGDDFactor() its ILDU0 factors in place: the
     strictly lower part holds L (unit diagonal), the strictly upper part D^{-1} U (unit diagonal), and dinv the
     inverted diagonal blocks D^{-1}
  */
  PetscInt  *ai, *aj, *diag;
  MatScalar *aa, *dinv;
  PetscInt   nnzA, nnzkept; /* block nonzeros of the local block and of the kept (within subdomain) part */
  /* per-subdomain levels (DAG) of L and of U: rows of subdomain s by level in lrows[subptr[s] .. subptr[s+1]-1];
     subdomain s has lsub[s+1] - lsub[s] - 1 levels, level l is lrows[llev[lsub[s] + l] .. llev[lsub[s] + l + 1] - 1]
     (the same for U, whose level 0 holds the rows without upper entries) */
  PetscInt *lrows, *llev, *lsub;
  PetscInt *urows, *ulev, *usub;
  PetscInt  maxlevL, maxlevU;
  /* the transposes (columns) of L and U for the host edge-centric (push) variant: column j's entries are the
     positions tk[tp[j]] .. tk[tp[j+1]-1] of aa, in rows ti[...]; NULL until that variant's first apply */
  PetscInt *ltp, *lti, *ltk, *utp, *uti, *utk;
  PetscInt  zerorow;  /* permuted block row of a zero pivot, -1 if none */
  PetscInt  nthreads; /* host threads of the tasks, 0: OpenMP's default */
} FGDDFactors;

/* fgdd-partition.c */
PETSC_INTERN PetscErrorCode FGDDPartitionGeometric(const PetscInt[3], PetscInt, const PetscInt[3], PetscInt, PetscInt *, PetscInt[]);
PETSC_INTERN PetscErrorCode FGDDPartitionGraph(Mat, PetscInt, const char[], PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode FGDDOrderingFromLabels(PetscInt, PetscInt, const PetscInt[], FGDDFactors *);
PETSC_INTERN PetscErrorCode FGDDExtract(Mat, FGDDFactors *);
PETSC_INTERN PetscErrorCode FGDDFactorsReset(FGDDFactors *);

/* fgdd-apply.c */
PETSC_INTERN PetscErrorCode FGDDFactor(FGDDFactors *, PetscReal);
PETSC_INTERN PetscErrorCode FGDDBuildLevels(FGDDFactors *);
PETSC_INTERN PetscErrorCode FGDDBuildTransposes(FGDDFactors *);
PETSC_INTERN PetscErrorCode FGDDApply_Host(const FGDDFactors *, FGDDApplyType, PetscBool, const PetscScalar[], PetscScalar[], PetscScalar[]);
/* the exact transpose of the apply, sequential within each subdomain (every back-end: the factors are on the host) */
PETSC_INTERN PetscErrorCode FGDDApplyTranspose_Host(const FGDDFactors *, const PetscScalar[], PetscScalar[], PetscScalar[]);
/* either for ncols columns of leading dimensions ldx, ldy, a subdomain at a time for all of them (PCMatApply()) */
PETSC_INTERN PetscErrorCode FGDDApplyMultiple_Host(const FGDDFactors *, FGDDApplyType, PetscBool, PetscInt, const PetscScalar[], PetscInt, PetscScalar[], PetscScalar[], PetscInt);

/* The device ops of PCFGDD (cuda/fgdd.cu: device copies of the factors and the apply kernels), on a GPU or in the
   cudaemu emulation, taken once at setup with GILUBackendGetDeviceOps() (backend.h) */
typedef struct _n_FGDDDevice *FGDDDevice;
/* what the default subdomain size is chosen from (fgdd.c, PCFGDDDecideRows()) */
typedef struct {
  int sms;   /* multiprocessors */
  int persm; /* shared memory of a multiprocessor (bytes) */
  int optin; /* shared memory a block may have with opt-in (bytes) */
} FGDDDeviceLimits;
typedef struct {
  PetscErrorCode (*limits)(FGDDDeviceLimits *);                /* of the device this process uses (GILUDeviceSelect()) */
  PetscErrorCode (*create)(const FGDDFactors *, FGDDDevice *); /* copies the factors, the level lists and perm, checks the device's levels */
  PetscErrorCode (*values)(FGDDDevice, const FGDDFactors *);   /* copies new values of the factors (same pattern: a numeric re-setup) */
  PetscErrorCode (*destroy)(FGDDDevice *);
  /* buffers(dev, ncols, &x, &y): device buffers of ncols columns of the local size for x and y (for GILUVecApplyDevice(),
     GILUMatDenseApplyDevice(): grown to the largest block, kept) */
  PetscErrorCode (*buffers)(FGDDDevice, PetscInt, void **, void **);
  /* apply(dev, type, fused, ncols, x, ldx, y, ldy): y = P^T (L D U)^{-1} P x for ncols columns (ldx, ldy apart): x, y
     device arrays of the local block in its own ordering (the permutation runs on the device); one launch (per part)
     for all columns, a thread block per subdomain and column, each column bitwise its apply alone (but edge) */
  PetscErrorCode (*apply)(FGDDDevice, FGDDApplyType, PetscBool, PetscInt, const PetscScalar[], PetscInt, PetscScalar[], PetscInt);
  /* -pc_view: the shared memory a subdomain's block needs against the device's limit, the layout of the factors */
  PetscErrorCode (*view)(FGDDDevice, PetscViewer);
} FGDDDeviceOps;
GILU_DEVICE_GETOPS_DECLARE(FGDDDeviceGetOps, FGDDDeviceOps)
/* the device apply on device arrays, for the kernel benchmark of make gpu-perf (src/test/perf-sparse.c, which includes
   this header): exported, developer level (fgdd.c) */
PETSC_EXTERN PetscErrorCode PCFGDDGetDeviceBuffers(PC, PetscInt, void **, void **, PetscInt *);
PETSC_EXTERN PetscErrorCode PCFGDDApplyDevice(PC, PetscInt, const PetscScalar[], PetscInt, PetscScalar[], PetscInt);

#endif
