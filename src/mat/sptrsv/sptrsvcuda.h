/*
   The CUDA back-end of the triangular-solve engine (src/mat/sptrsv/cuda/sptrsv.cu): a device copy of the host plan's
   segments (sptrsvimpl.h), run in order on a solution vector that stays on the device for the whole solve, queued
   without a synchronization or a memset (epochs and counters that run on: cuda/sptrsv.cu). Triangles
   (rows level by level) are solved by the level-set or the sync-free kernel (by rows, or by columns: CSC), squares applied by the scalar-CSR or
   the vector-CSR SpMV-update kernel; the plan chose each (the Block SpTRSV paper, Algorithm 7, the table in sptrsv-plan.c). The
   kernels are one ops table (GILUTriDeviceOps) that exists twice: compiled by nvcc (GILUTriDeviceGetOps(), builds with
   CUDA) and for the host emulation (GILUTriDeviceGetOps_cudaemu(), builds with cudaemu); the plan takes the one of its
   back-end with GILUBackendGetDeviceOps() (private/backend.h).
*/
#ifndef PETSCGILU_SPTRSVCUDA_H
#define PETSCGILU_SPTRSVCUDA_H

#include <petscsys.h>
#include <petscgiluconf.h>
#include <petscgilu/private/backend.h>

typedef enum {
  GILU_CUDA_LEVELSET,    /* triangle: one launch of a persistent grid, the levels in order, a thread per row (one level: the
                            completely parallel case) */
  GILU_CUDA_SYNCFREE,    /* triangle: one launch, a thread per row in level order; a row spins on its dependencies' flags */
  GILU_CUDA_SPMV_SCALAR, /* square: x_R -= S x_C, a thread per stored (nonempty) row: scalar-CSR */
  GILU_CUDA_SPMV_VECTOR, /* square: a group of `width` lanes of a warp per stored row, warp-shuffle reduction: vector-CSR */
  GILU_CUDA_SYNCFREE_CSC /* triangle stored by columns (CSC), columns in level order: one launch, a thread per column; a column
                            waits until the rows above it have all updated x_c, finishes x_c, then updates its rows by atomic adds */
} GILUCUDAKernel;

/* the device arrays of one segment, passed by value to the kernels */
typedef struct {
  PetscInt   bs, nrows, nnz, width;
  PetscInt  *row, *ptr, *col;
  MatScalar *val, *dval; /* dval: triangles with a diagonal (inverted blocks in execution order), else NULL */
  PetscInt  *need;       /* GILU_CUDA_SYNCFREE_CSC: [nrows] the updates column s's own row receives from the triangle (then
                            row[s] is the column, ptr/col/val its entries: col the rows they update) */
  PetscInt   nunits;     /* GILU_CUDA_LEVELSET: the work units, at most a block's threads of rows of one level, in level order */
  PetscInt  *urow;       /* GILU_CUDA_LEVELSET: [nunits+1] unit u is the stored rows [urow[u], urow[u+1]) */
  PetscInt  *uwait;      /* GILU_CUDA_LEVELSET: [nunits] the units of the levels before u's: u waits until that many are done */
} GILUTriCUDA_s;

/* what the plan hands over for one segment (host arrays, copied) */
typedef struct {
  GILUCUDAKernel   kernel;
  PetscInt         nrows, nlevels, width; /* width: vector-CSR lanes per row (a power of two, at most 32) */
  const PetscInt  *lptr;                  /* triangles: [nlevels+1] */
  const PetscInt  *row, *ptr, *col;
  const MatScalar *val, *dval;
} GILUTriCUDASegInfo;

typedef struct {
  GILUCUDAKernel kernel;
  PetscInt       nlevels, *lptr; /* host: the level pointers of a level-set triangle */
  int            grid[2];        /* GILU_CUDA_LEVELSET: the persistent grid (the blocks the device holds at once) of the single
                                    solve's kernel and of the block's, 0 until asked */
  unsigned int   tbase;          /* sync-free: the tickets its launches took since the counters were cleared (mod 2^32) */
  PetscInt      *csrc;           /* host, GILU_CUDA_SYNCFREE_CSC: [nnz] the row-wise entry each column-wise entry is */
  MatScalar     *cval;           /* host, GILU_CUDA_SYNCFREE_CSC: [nnz*bs2] the values gathered by column before the copy */
  GILUTriCUDA_s  d;
} GILUTriCUDASeg;

typedef struct _n_GILUTriCUDA *GILUTriCUDA;
struct _n_GILUTriCUDA {
  PetscInt        n, bs, nseg;
  GILUTriCUDASeg *seg;
  PetscScalar    *x; /* device: the solution */
  /* device: [n + nseg] sync-free completion flags, by the caller's row (each row is in one triangle), then the ticket
     counter of each segment (gilu_block_ticket); cleared at creation only: a row's flag holds the epoch of the last
     solve that finished it (by columns: the updates of all solves so far) */
  int *flag;
  /* device: [2] the level-set triangles' ticket counter and counter of finished units, cleared at creation only: each
     launch waits and takes tickets above lsbase[] (host) */
  int *lsctr;
  /* what the level-set counters hold before the next launch, and the solves since the clearing (all mod 2^32) */
  unsigned int lsbase[2], epoch;
  PetscBool    dirty; /* a solve's launches did not all return: clear the counters before the next */
  /* the last solve's kernel launches, device synchronizations, level-set triangles (one launch each), memsets and copies
     (host to device, device to host, device to device) */
  PetscInt launches, syncs, nlevelset, memsets, copies;
};

typedef struct {
  /* the device copy of a plan: n block rows of bs x bs blocks, nseg segments (host arrays, copied; the values too) */
  PetscErrorCode (*create)(PetscInt, PetscInt, PetscInt, const GILUTriCUDASegInfo[], GILUTriCUDA *);
  /* new values of segment s (val, and dval for a triangle with a diagonal), in the plan's layout */
  PetscErrorCode (*setvalues)(GILUTriCUDA, PetscInt, const MatScalar[], const MatScalar[]);
  /* x = T^{-1} b with host arrays (x may be b): b copied in once, the segments in order, x copied out once */
  PetscErrorCode (*solve)(GILUTriCUDA, const PetscScalar[], PetscScalar[]);
  PetscErrorCode (*destroy)(GILUTriCUDA *);
  /* solvedevice(t, m, b, ldb, bperm, x, ldx, out, ldo, operm): x = T^{-1} b[bperm], out[operm] = x for m columns of
     device arrays of n*bs values (ldb, ldx, ldo apart; bperm, operm: n blocks or NULL; out may be NULL), queued on the
     default stream (not complete on return), nothing copied to or from the host, no synchronization, no memset; the
     columns all in each launch, each bitwise its solve alone */
  PetscErrorCode (*solvedevice)(GILUTriCUDA, PetscInt, const PetscScalar[], PetscInt, const PetscInt[], PetscScalar[], PetscInt, PetscScalar[], PetscInt, const PetscInt[]);
} GILUTriDeviceOps;

GILU_DEVICE_GETOPS_DECLARE(GILUTriDeviceGetOps, GILUTriDeviceOps)

#endif
