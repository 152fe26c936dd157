/*
   Private to src/pc/structilu: the context of PCSTRUCTILU, shared by structilu.c (options, view, setters, create)
   and structilu-setup.c (setup, factorization, applies, the Eisenstat trick)
*/
#ifndef PETSCGILU_PC_STRUCTILU_H
#define PETSCGILU_PC_STRUCTILU_H

#include <petsc/private/pcimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/stencililu.h>
#include <petscgilu/private/backend.h>
#include "../../mat/stencil/cuda/structilu-cuda.h" /* the device kernels beside the host ones (src/mat/stencil) */

/*
  Where the setup's stencil matrix comes from: a MATSTENCILGPU matrix's own, the local block of an AIJ or BAIJ matrix,
  or (-pc_structilu_distributed) this process's box of the DMDA with its ghost layers (structilu-dist.c). PCSetUp_StructILU()
  (structilu-setup.c) is one sequence over them: check, and when the pattern is new its analysis (pattern), the symbolic factorization
  (shared) and what follows it (finish); each setup the values.
*/
typedef struct {
  const char *name;
  /* checks of each setup; the nonzero state the pattern depends on */
  PetscErrorCode (*check)(PC, PetscObjectState *);
  /* ilu->sm's pattern (PCStructILUTakePattern()), or ilu->fallbackwhy: the block is no structured grid */
  PetscErrorCode (*pattern)(PC);
  /* after the symbolic factorization (NULL: nothing) */
  PetscErrorCode (*finish)(PC);
  /* ilu->sm's values; fresh: the pattern was just made */
  PetscErrorCode (*values)(PC, PetscBool);
} StructILUSourceOps;

typedef struct {
  /* options */
  PetscInt             griddim, grid[3]; /* -pc_structilu_grid, griddim 0 when not given */
  PetscInt             dof;              /* -pc_structilu_dof, 0 when not given */
  PetscReal            zeropivot;        /* -pc_structilu_zeropivot */
  PetscInt             levels;           /* -pc_structilu_levels: ILU(levels) */
  PCStructILUType      type;             /* -pc_structilu_type */
  PCStructILUPrecision precision;        /* -pc_structilu_factor_precision */
  PCStructILUSchedule  schedule;         /* -pc_structilu_schedule */
  PetscInt             threads;          /* -pc_structilu_threads, 0 for automatic */
  PetscBool            diagstorage;      /* -pc_structilu_diagonal_storage: DILU factors when the stencil allows (always with -pc_structilu_eisenstat) */
  PetscBool            eisenstat;        /* -pc_structilu_eisenstat */
  PetscBool            distributed;      /* -pc_structilu_distributed */
  PetscInt             disttile;         /* -pc_structilu_distributed_tile: 0 the model's cut, -1 natural order, n tiles of n */
  /* set up */
  GILUStencilMat            sm;                  /* the local stencil matrix (on the fill stencil for levels > 0), factored in place */
  char                      patname[64];         /* name of the matrix's own stencil */
  PetscScalar              *dinv;                /* inverted diagonal blocks */
  PetscScalar              *diag, *eisE;         /* Eisenstat: the modified diagonal blocks D and E = A_D - 2 D */
  Mat                       eisshell;            /* Eisenstat: the operator Ahat that KSPSolve() sees */
  Mat                       eisA;                /* Eisenstat: the operator it replaced */
  Vec                       eisb[2], eiswork[2]; /* Eisenstat: the right-hand sides PCPreSolve() transformed (nested solves: two); t and room for y of Ahat x */
  PetscInt                  eisdepth;            /* Eisenstat: PCPreSolve() calls not yet matched by PCPostSolve() */
  StructILUFactors          factors;             /* what the solves read */
  PetscInt                 *elim;                /* ILU(0) elimination table of the stencil */
  PetscInt                 *mirror;              /* IC: index of the opposite of each offset */
  PetscInt                  hyper[3];            /* hyperplane weights: level = hyper . (i,j,k) */
  PetscInt                  nlevels;             /* number of hyperplane levels */
  const char               *gridfrom;            /* where the grid came from */
  Mat                       fallback;            /* the local block is not a structured grid: its ILU(k)/IC(k) factor by MatSolverType gilu */
  char                      fallbackwhy[512];
  Vec                       fx, fy;          /* the local parts of the vectors, for the fallback's MatSolve() */
  PetscInt                  zerorow;         /* local row of a zero pivot, -1 if none */
  PetscInt                  rangerow;        /* single precision: local row of a factor entry beyond float's range, -1 if none */
  PetscObjectState          blockstate;      /* nonzero state of the local block (AIJ, BAIJ) at the last analysis */
  Mat                       image;           /* a MATSEQSBAIJ matrix (the upper triangle of a symmetric one): the MATSEQAIJ (block size 1) or MATSEQBAIJ
                                  image of the whole matrix that the setup reads; made again when the SBAIJ's pattern changed, else its
                                  values refreshed (kept by PCReset_StructILU(), destroyed with the PC) */
  PetscObjectState          imagestate;      /* the SBAIJ's nonzero state when the image was made */
  GILUPipe                  pipe;            /* -pc_structilu_distributed on several processes: the pipeline (src/mat/stencil/pipeline.c) */
  Mat                      *extmats, extmat; /* its extended box's rows and columns of the matrix (MatCreateSubMatrices(); sm is their stencil matrix) */
  IS                        extis;           /* their rows */
  PetscScalar              *extx;            /* a vector over the extended box: the solves' b, y and x */
  PetscBool                 analyzed;
  const StructILUSourceOps *source;     /* of the pattern analyzed */
  PetscBool                 transposed; /* PCApplyTranspose() ran: the view says how */
  PetscBool                 matapplied; /* PCMatApply() ran: the view says how */
  PetscScalar              *symR;       /* IC, -ksp_pc_side symmetric: the upper Cholesky factors of the inverted diagonal blocks (StructILUSymmetricSplit_Host()) */
  PetscBool                 symvalid;   /* symR (and symbad) are of the current factors */
  PetscInt                  symbad;     /* local row of a diagonal block that is not positive definite, -1 if none */
  PetscBool                 empty;      /* the local block has no rows (a process or a block Jacobi block without rows): an empty factor */
  PetscBool                 asfactor;   /* the context of MatSolverType structilu's factor (structilu-factor.c): IC reads the upper
                                  triangle, as PETSc's ICC, and the fallback takes the factorization's shift */
  MatFactorInfo             factorinfo; /* asfactor: the factor's MatFactorInfo */
  /* back-end (src/mat/stencil/cuda/structilu.cu): the solves on a CUDA device or through its emulation */
  PetscGILUBackendType      backend;    /* -pc_structilu_backend; auto: -gilu_backend's */
  PetscBool                 backendset; /* the PC's own option or setter was used */
  PetscGILUBackendType      ran;        /* the resolved back-end of the last setup */
  const StructILUDeviceOps *devops;
  StructILUDevice           dev;
  StructILUDeviceInfo       devinfo;
  PetscInt                  tilepoints;                   /* -pc_structilu_cuda_tile_points, 0: 128/dof */
  PetscInt                  pipeline;                     /* -pc_structilu_cuda_pipeline: stages of the solves' intra-row pipeline, 0: automatic */
  StructILUCUDAMapping      mapping;                      /* -pc_structilu_cuda_mapping: the grid-tier task mapping of the device kernels */
  PetscBool                 factorpipe;                   /* -pc_structilu_cuda_factor_pipeline: the two-substage pipelined device factorization */
  PetscBool                 cudafactor;                   /* -pc_structilu_cuda_factor: factor on the device (default) */
  PetscBool                 devfactored;                  /* the last factorization ran on the device */
  PetscBool                 cudamma;                      /* -pc_structilu_cuda_mma: DoF >= 4 factorization on the FP64 tensor cores (default) */
  PetscBool                 usedmma;                      /* it did */
  PetscBool                 nowait;                       /* -pc_structilu_cuda_nowait (developer: drops the block-to-block waiting) */
  PetscBool                 devnative;                    /* the last apply used PETSc's CUDA vectors' own device arrays (no copies) */
  PetscInt                  modelgpu;                     /* -pc_structilu_model_gpu */
  PetscReal                 modelbw, modellat, modelpcie; /* GB/s, microseconds, GB/s; 0: the named GPU's */
} PC_StructILU;

/* The sizes of a grid as -pc_structilu_grid takes them, "nx,ny[,nz]", for messages */
static inline PetscErrorCode StructILUGridString(PetscInt dim, const PetscInt n[], char buf[], size_t len)
{
  PetscFunctionBegin;
  if (dim == 1) PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT, n[0]));
  else if (dim == 2) PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT ",%" PetscInt_FMT, n[0], n[1]));
  else PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, n[0], n[1], n[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* structilu-setup.c: the PC's ops besides options, view and destroy */
PETSC_INTERN PetscErrorCode PCSetUp_StructILU(PC);
PETSC_INTERN PetscErrorCode PCReset_StructILU(PC);
PETSC_INTERN PetscErrorCode PCApply_StructILU(PC, Vec, Vec);
PETSC_INTERN PetscErrorCode PCApplyTranspose_StructILU(PC, Vec, Vec);
PETSC_INTERN PetscErrorCode PCMatApply_StructILU(PC, Mat, Mat);
PETSC_INTERN PetscErrorCode PCApplySymmetricLeft_StructILU(PC, Vec, Vec);
PETSC_INTERN PetscErrorCode PCApplySymmetricRight_StructILU(PC, Vec, Vec);
PETSC_INTERN PetscErrorCode PCStructILUAnalyze(PC, Mat, const GILUGrid *, PetscInt);
PETSC_INTERN PetscErrorCode PCStructILUCheckSymmetric(PC, const GILUStencil *, Mat);
PETSC_INTERN PetscErrorCode PCPreSolve_StructILU(PC, KSP, Vec, Vec);
PETSC_INTERN PetscErrorCode PCPostSolve_StructILU(PC, KSP, Vec, Vec);
/* structilu-dist.c: -pc_structilu_distributed */
PETSC_INTERN const StructILUSourceOps StructILUSourceDistributed;
PETSC_INTERN PetscErrorCode           PCApplyDistributed_StructILU(PC, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode           PCResetDistributed_StructILU(PC);
PETSC_INTERN PetscErrorCode           PCViewDistributed_StructILU(PC, PetscViewer);
PETSC_INTERN PetscErrorCode           PCDistributedPivot_StructILU(PC);

#endif
