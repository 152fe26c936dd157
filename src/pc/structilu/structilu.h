/*
   Private to src/pc/structilu: StructILU's factor (Mat_StructILU: structilu-factor.c, structilu-setup.c, structilu-dist.c)
   and PCSTRUCTILU over it (PC_StructILU: structilu.c), with the settings they share
*/
#ifndef PETSCGILU_PC_STRUCTILU_H
#define PETSCGILU_PC_STRUCTILU_H

#include <petsc/private/pcimpl.h>
#include <petsc/private/matimpl.h>
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
typedef struct _StructILUSourceOps {
  const char *name;
  const char *rows; /* how the messages number its rows: "local", or "the grid's (natural ordering)" across processes */
  /* checks of each setup; the nonzero state the pattern depends on */
  PetscErrorCode (*check)(Mat, PetscObjectState *);
  /* ilu->sm's pattern (StructILUTakePattern()), or ilu->fallbackwhy: the block is no structured grid */
  PetscErrorCode (*pattern)(Mat);
  /* after the symbolic factorization (NULL: nothing) */
  PetscErrorCode (*finish)(Mat);
  /* ilu->sm's values; fresh: the pattern was just made */
  PetscErrorCode (*values)(Mat, PetscBool);
  /* the host factorization and sweeps only (no device back-end, no symmetric split): the pipeline across processes */
  PetscBool hostonly;
  /* after the host factorization, before its factors are stored (NULL: nothing) */
  PetscErrorCode (*factored)(Mat);
  /* after the factorization: the zero pivot (and out-of-range row) of all processes (NULL: this process's) */
  PetscErrorCode (*pivot)(Mat);
  /* the host sweeps, y = (LU)^{-1} x or (transpose, one column) (LU)^{-T} x of m columns, ldx and ldy apart (NULL: those
     of ilu->sm on this process) */
  PetscErrorCode (*solve)(Mat, PetscBool, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt);
  /* its lines of the view (NULL: none) */
  PetscErrorCode (*view)(Mat, PetscViewer);
} StructILUSourceOps;

/*
  The settings of a StructILU factorization: PCSTRUCTILU's options (its setters write them, structilu.c) or, for a factor
  under PCILU/PCICC, the PC's -pc_structilu_ options that say how it runs (levels, type and zero pivot then come from the
  MatFactorInfo). One reader and one set of checks for both: StructILUSettingsSetFromOptions(), StructILUSettingsSet*().
*/
typedef struct {
  PetscInt             griddim, grid[3];             /* -pc_structilu_grid, griddim 0 when not given */
  PetscInt             dof;                          /* -pc_structilu_dof, 0 when not given */
  PetscReal            zeropivot;                    /* -pc_structilu_zeropivot */
  PetscInt             levels;                       /* -pc_structilu_levels: ILU(levels) */
  PCStructILUType      type;                         /* -pc_structilu_type */
  PCStructILUPrecision precision;                    /* -pc_structilu_factor_precision */
  PCStructILUSchedule  schedule;                     /* -pc_structilu_schedule */
  PetscInt             threads;                      /* -pc_structilu_threads, 0 for automatic */
  PetscBool            diagstorage;                  /* -pc_structilu_diagonal_storage: DILU factors when the stencil allows (always with -pc_structilu_eisenstat) */
  PetscBool            eisenstat;                    /* -pc_structilu_eisenstat: the factor keeps D and E for the PC's transformed system */
  PetscBool            distributed;                  /* -pc_structilu_distributed */
  PetscInt             disttile;                     /* -pc_structilu_distributed_tile: 0 the model's cut, -1 natural order, n tiles of n */
  PetscGILUBackendType backend;                      /* -pc_structilu_backend; auto: -gilu_backend's */
  PetscBool            backendset;                   /* the option or setter was used */
  PetscInt             tilepoints;                   /* -pc_structilu_cuda_tile_points, 0: 128/dof */
  PetscInt             pipeline;                     /* -pc_structilu_cuda_pipeline: stages of the solves' intra-row pipeline, 0: automatic */
  StructILUCUDAMapping mapping;                      /* -pc_structilu_cuda_mapping: the grid-tier task mapping of the device kernels */
  PetscBool            factorpipe;                   /* -pc_structilu_cuda_factor_pipeline: the two-substage pipelined device factorization */
  PetscBool            cudafactor;                   /* -pc_structilu_cuda_factor: factor on the device (default) */
  PetscBool            cudamma;                      /* -pc_structilu_cuda_mma: DoF >= 4 factorization on the FP64 tensor cores (default) */
  PetscBool            nowait;                       /* -pc_structilu_cuda_nowait (developer: drops the block-to-block waiting) */
  PetscInt             modelgpu;                     /* -pc_structilu_model_gpu */
  PetscReal            modelbw, modellat, modelpcie; /* GB/s, microseconds, GB/s; 0: the named GPU's */
} StructILUSettings;

/*
  The factor (Mat of MatSolverType structilu, structilu-factor.c): the object that owns the grid, the stencil matrix, the
  factors and the back-end. PCSTRUCTILU (structilu.c) is a thin PC over one, as PCILU is over MatGetFactor(); its setup and
  applies are in structilu-setup.c, the global factors across processes in structilu-dist.c.
*/
typedef struct {
  StructILUSettings         opt;
  PetscBool                 asfactor;     /* under PCILU/PCICC (MatGetFactor()): IC reads the upper triangle, as PETSc's ICC, the options are read
                                          at the symbolic factorization and the messages name PETSc's factor options; else PCSTRUCTILU's */
  MatFactorType             ftype;        /* MAT_FACTOR_ILU or MAT_FACTOR_ICC */
  MatFactorInfo             info;         /* of the symbolic factorization (its shift) */
  Mat                       A;            /* the matrix of the factorization in progress (not referenced; NULL outside it) */
  DM                        dm;           /* PCSTRUCTILU's DM (KSPSetDM()), where the grid is looked for before the matrix's own */
  PetscBool                 handover;     /* under PCILU/PCICC, a shift StructILU has none of (nonzero; ILU's positive definite), or PETSc's
                                            block ICC(k > 0), whose fill is its own: the whole factorization is another solver type's */
  char                      handwhy[200]; /* why, and what runs instead: the view's line */
  Mat                       shifted;      /* that factorization (ILU: MatSolverType gilu's, ICC: PETSc's), or under ICC's positive-definite
                                            shift with a pivot block that is not positive definite PETSc's shifted ICC of the matrix (its AIJ
                                            image), whose solves are used; else NULL */
  PetscInt                  badrow;       /* the first row of that pivot block */
  PetscLogDouble            anz;          /* nonzeros of the (local) matrix at the last factorization: the fill ratio needed */
  GILUStencilMat            sm;           /* the local stencil matrix (on the fill stencil for levels > 0), factored in place */
  char                      patname[64];  /* name of the matrix's own stencil */
  PetscScalar              *dinv;         /* inverted diagonal blocks */
  PetscScalar              *diag, *eisE;  /* Eisenstat: the modified diagonal blocks D and E = A_D - 2 D */
  StructILUFactors          factors;      /* what the solves read */
  PetscInt                 *elim;         /* ILU(0) elimination table of the stencil */
  PetscInt                 *mirror;       /* IC: index of the opposite of each offset */
  PetscInt                  hyper[3];     /* hyperplane weights: level = hyper . (i,j,k) */
  PetscInt                  nlevels;      /* number of hyperplane levels */
  const char               *gridfrom;     /* where the grid came from */
  Mat                       fallback;     /* the local block is not a structured grid: its ILU(k)/IC(k) factor by MatSolverType gilu */
  char                      fallbackwhy[512];
  Vec                       fx, fy;          /* the local parts of the vectors, for the fallback's MatSolve() */
  PetscInt                  zerorow;         /* local row of a zero pivot, -1 if none */
  PetscInt                  rangerow;        /* single precision: local row of a factor entry beyond float's range, -1 if none */
  PetscObjectState          blockstate;      /* nonzero state of the local block (AIJ, BAIJ) at the last analysis */
  Mat                       image;           /* a MATSEQSBAIJ matrix (the upper triangle of a symmetric one): the MATSEQAIJ (block size 1) or MATSEQBAIJ
                                                image of the whole matrix that the setup reads; made again when the SBAIJ's pattern changed, else its
                                                values refreshed (kept by StructILUReset(), destroyed with the factor) */
  PetscObjectState          imagestate;      /* the SBAIJ's nonzero state when the image was made */
  GILUPipe                  pipe;            /* -pc_structilu_distributed on several processes: the pipeline (src/mat/stencil/pipeline.c) */
  Mat                      *extmats, extmat; /* its extended box's rows and columns of the matrix (MatCreateSubMatrices(); sm is their stencil matrix) */
  IS                        extis;           /* their rows */
  PetscScalar              *extx;            /* extcols vectors over the extended box: the solves' b, y and x (a block's columns) */
  PetscInt                  extcols;
  PetscBool                 analyzed;
  const StructILUSourceOps *source;     /* of the pattern analyzed */
  PetscBool                 transposed; /* MatSolveTranspose() ran: the view says how */
  PetscBool                 matapplied; /* MatMatSolve() ran: the view says how */
  PetscInt                  matgroup;   /* ... by the host or the device sweeps on groups of this many columns at once (StructILUSolveMultiple_Host(), the device's solvemultiple), else 0 */
  PetscScalar              *symR;       /* IC, -ksp_pc_side symmetric: the upper Cholesky factors of the inverted diagonal blocks (StructILUSymmetricSplit_Host()) */
  PetscBool                 symvalid;   /* symR (and symbad) are of the current factors */
  PetscInt                  symbad;     /* local row of a diagonal block that is not positive definite, -1 if none */
  PetscBool                 empty;      /* the local block has no rows (a process or a block Jacobi block without rows): an empty factor */
  /* back-end (src/mat/stencil/cuda/structilu.cu): the solves on a CUDA device or through its emulation */
  PetscGILUBackendType      ran; /* the resolved back-end of the last setup */
  const StructILUDeviceOps *devops;
  StructILUDevice           dev;
  StructILUDeviceInfo       devinfo;
  PetscBool                 devfactored; /* the last factorization ran on the device */
  PetscBool                 usedmma;     /* it used the tensor cores */
  PetscBool                 devnative;   /* the last apply used PETSc's CUDA vectors' own device arrays (no copies) */
} Mat_StructILU;

/* PCSTRUCTILU: its settings, its factor and the Eisenstat trick's transformed system */
typedef struct {
  StructILUSettings opt;
  Mat               fact;                /* MatSolverType structilu's factor of the preconditioning matrix, made at the first setup */
  Mat               eisshell;            /* Eisenstat: the operator Ahat that KSPSolve() sees */
  Mat               eisA;                /* Eisenstat: the operator it replaced */
  Vec               eisb[2], eiswork[2]; /* Eisenstat: the right-hand sides PCPreSolve() transformed (nested solves: two); t and room for y of Ahat x */
  PetscInt          eisdepth;            /* Eisenstat: PCPreSolve() calls not yet matched by PCPostSolve() */
  PetscBool         eisproduct;          /* Eisenstat: the factors are of an earlier matrix (a reused preconditioner): Ahat x takes a product with A */
  PetscObjectId     factoredid;          /* the preconditioning matrix the factors are of (its object id and state at the factorization) */
  PetscObjectState  factoredstate;
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

/* structilu-setup.c: the factor's setup and applies */
PETSC_INTERN PetscErrorCode StructILUSetUp(Mat);
PETSC_INTERN PetscErrorCode StructILUReset(Mat);
PETSC_INTERN PetscErrorCode StructILUApply(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode StructILUApplyTranspose(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode StructILUMatApply(Mat, Mat, Mat);
PETSC_INTERN PetscErrorCode StructILUApplySymmetric(Mat, PetscBool, Vec, Vec);
PETSC_INTERN PetscErrorCode StructILUAnalyze(Mat, Mat, const GILUGrid *, PetscInt);
/* structilu-factor.c: the factor as PCSTRUCTILU makes and drives it, and its view */
PETSC_INTERN PetscErrorCode StructILUCreateFactor(Mat, MatFactorType, PetscBool, Mat *);
PETSC_INTERN PetscErrorCode StructILUFactorSetSettings(Mat, const StructILUSettings *, DM);
PETSC_INTERN PetscErrorCode StructILUViewHeader(const StructILUSettings *, PetscViewer);
PETSC_INTERN PetscErrorCode StructILUView(Mat, PetscViewer);
/* structilu.c: the settings' defaults, checks and options (PCSTRUCTILU's and the factor's) */
PETSC_INTERN PetscErrorCode StructILUSettingsDefault(StructILUSettings *);
PETSC_INTERN PetscErrorCode StructILUSettingsSetFromOptions(PetscObject, GILUOptionItems, StructILUSettings *, PetscBool);
/* structilu-dist.c: -pc_structilu_distributed */
PETSC_INTERN const StructILUSourceOps StructILUSourceDistributed;
PETSC_INTERN PetscErrorCode           StructILUResetDistributed(Mat);

#endif
