/*
   PCSTRUCTILU: dependency-preserving ILU(k) for structured-grid stencil matrices.

   The PC orchestrates: it finds the grid (DMDA, options or the pattern), extracts the
   stencil matrix of the local diagonal block (for k > 0 on the ILU(k) fill stencil of its
   pattern, src/mat/stencil/fill.c), factors it and applies the factors with the
   back-end's kernels (the host kernels in src/mat/stencil/ilu.c).

   A local block that is not a structured grid (no DMDA box matches it and its pattern is not
   a stencil's in natural ordering: an ASM block with overlap, a block of a process grid that
   holds partial lines, a DoF block coupled through part of its entries) is factored as a
   general sparse matrix instead, in natural ordering, by MatSolverType gilu (ILU(k)) or petsc
   (ICC(k), from the upper triangle): the factors of PETSc's ILU(k) (ICC(k)) of the block, said
   in -ksp_view and -info.
*/
#include <stdarg.h>
#include <petsc/private/pcimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/stencilgpu.h>
#include <petscgilu/private/stencililu.h>
#include <petscgilu/private/backend.h>
#include "cuda/structilu-cuda.h"

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
  /* set up */
  GILUStencilMat   sm;          /* the local stencil matrix (on the fill stencil for levels > 0), factored in place */
  char             patname[64]; /* name of the matrix's own stencil */
  PetscScalar     *dinv;        /* inverted diagonal blocks */
  PetscScalar     *diag, *eisE; /* Eisenstat: the modified diagonal blocks D and E = A_D - 2 D */
  Mat              eisshell;    /* Eisenstat: the operator Ahat that KSPSolve() sees */
  Mat              eisA;        /* Eisenstat: the operator it replaced */
  Vec              eisb[2], eiswork[2]; /* Eisenstat: the right-hand sides PCPreSolve() transformed (nested solves: two); t and room for y of Ahat x */
  PetscInt         eisdepth;    /* Eisenstat: PCPreSolve() calls not yet matched by PCPostSolve() */
  StructILUFactors factors;     /* what the solves read */
  PetscInt        *elim;        /* ILU(0) elimination table of the stencil */
  PetscInt        *mirror;      /* IC: index of the opposite of each offset */
  PetscInt         hyper[3];    /* hyperplane weights: level = hyper . (i,j,k) */
  PetscInt         nlevels;     /* number of hyperplane levels */
  const char      *gridfrom;    /* where the grid came from */
  Mat              fallback;    /* the local block is not a structured grid: its ILU(k)/IC(k) factor by MatSolverType gilu */
  char             fallbackwhy[512];
  Vec              fx, fy;      /* the local parts of the vectors, for the fallback's MatSolve() */
  PetscInt         zerorow;     /* local row of a zero pivot, -1 if none */
  PetscObjectState blockstate;  /* nonzero state of the local block (AIJ, BAIJ) at the last analysis */
  PetscBool        analyzed;
  PetscBool        transposed; /* PCApplyTranspose() ran: the view says how */
  PetscBool        empty;      /* the local block has no rows (a process or a block Jacobi block without rows): an empty factor */
  /* back-end (cuda/structilu.cu): the solves on a CUDA device or through its emulation */
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

/* the performance model's GPUs: HBM bandwidth (GB/s), latency of one dependent step between blocks (flag write ->
   flag seen -> neighbour read, microseconds), host-device bandwidth (GB/s) */
static const char *const StructILUModelGPUs[] = {"h100", "h200", "StructILUModelGPU", "", NULL};
static const double      StructILUModelBW[] = {3350.0, 4800.0}, StructILUModelLat[] = {1.0, 1.0}, StructILUModelPCIe[] = {55.0, 55.0};
static const char *const StructILUCUDAMappings[] = {"tiles", "lines", "StructILUCUDAMapping", "STRUCTILU_CUDA_MAPPING_", NULL};

static PetscErrorCode PCReset_StructILU(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(GILUStencilMatReset(&ilu->sm));
  PetscCall(StructILUFactorsReset_Host(&ilu->factors));
  PetscCall(PetscFree(ilu->dinv));
  PetscCall(PetscFree2(ilu->diag, ilu->eisE));
  PetscCall(MatDestroy(&ilu->eisshell));
  PetscCall(VecDestroy(&ilu->eisb[0]));
  PetscCall(VecDestroy(&ilu->eisb[1]));
  PetscCall(VecDestroy(&ilu->eiswork[0]));
  PetscCall(VecDestroy(&ilu->eiswork[1]));
  PetscCall(PetscFree(ilu->elim));
  PetscCall(PetscFree(ilu->mirror));
  if (ilu->dev) PetscCall(ilu->devops->destroy(&ilu->dev));
  PetscCall(MatDestroy(&ilu->fallback));
  PetscCall(VecDestroy(&ilu->fx));
  PetscCall(VecDestroy(&ilu->fy));
  ilu->fallbackwhy[0] = 0;
  ilu->analyzed       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid of the local block: user options, then the DMDA of the PC or of the matrix, then the pattern (found false: none) */
static PetscErrorCode PCStructILUFindGrid(PC pc, Mat A, Mat Alocal, GILUGrid *g, PetscBool *gridfound)
{
  PC_StructILU *ilu   = (PC_StructILU *)pc->data;
  PetscBool     found = PETSC_FALSE;
  DM            dm    = NULL;
  PetscInt      m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(Alocal, &m, NULL));
  if (ilu->griddim) {
    PetscInt bs;

    PetscCall(MatGetBlockSize(Alocal, &bs));
    g->dim = ilu->griddim;
    for (PetscInt d = 0; d < 3; d++) g->n[d] = d < ilu->griddim ? ilu->grid[d] : 1;
    g->dof        = ilu->dof ? ilu->dof : (m % (g->n[0] * g->n[1] * g->n[2]) == 0 ? m / (g->n[0] * g->n[1] * g->n[2]) : bs);
    ilu->gridfrom = "from -pc_structilu_grid";
    *gridfound    = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCGetDM(pc, &dm));
  if (dm) PetscCall(GILUGridFromDM(dm, Alocal, g, &found));
  if (!found) {
    PetscCall(MatGetDM(A, &dm));
    if (dm) PetscCall(GILUGridFromDM(dm, Alocal, g, &found));
  }
  if (found) {
    PetscCheck(!ilu->dof || ilu->dof == g->dof, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "-pc_structilu_dof %" PetscInt_FMT " contradicts the DMDA's %" PetscInt_FMT " DoF per grid point", ilu->dof, g->dof);
    ilu->gridfrom = "from the DMDA";
    *gridfound    = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUGridInfer(Alocal, ilu->dof, g, &found));
  if (found) ilu->gridfrom = "inferred from the matrix pattern";
  else PetscCall(PetscSNPrintf(ilu->fallbackwhy, sizeof(ilu->fallbackwhy), "no DMDA box matches its %" PetscInt_FMT " rows and its pattern is not that of a stencil in natural ordering", m));
  *gridfound = found;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A zero pivot of the last factorization (ilu->zerorow): an error with -ksp_error_if_not_converged, else the PC's failed reason */
static PetscErrorCode StructILUCheckPivot(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->zerorow >= 0) {
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in local row %" PetscInt_FMT " of the structured-grid ILU (tolerance %g)", ilu->zerorow, (double)ilu->zeropivot);
    PetscCall(PetscInfo(pc, "Zero pivot in local row %" PetscInt_FMT " (tolerance %g)\n", ilu->zerorow, (double)ilu->zeropivot));
    PetscCall(PCSetFailedReason(pc, PC_FACTOR_NUMERIC_ZEROPIVOT));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The local block Alocal is not a structured grid (ilu->fallbackwhy says why): its ILU(k) (IC(k)) in natural
  ordering by MatSolverType gilu, the factors of PETSc's ILU(k) of the block; symbolic: a new pattern
*/
static PetscErrorCode StructILUFallbackFactor(PC pc, Mat Alocal, PetscBool symbolic)
{
  PC_StructILU  *ilu = (PC_StructILU *)pc->data;
  const PetscBool ic = (PetscBool)(ilu->type == PC_STRUCTILU_IC);
  MatFactorInfo  info;
  MatFactorError err;

  PetscFunctionBegin;
  PetscCheck(!ilu->eisenstat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_structilu_eisenstat needs a structured-grid block with DILU factors, but the local block is not a structured grid (%s)", ilu->fallbackwhy);
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels    = (PetscReal)ilu->levels;
  info.fill      = 1.0;
  info.zeropivot = ilu->zeropivot;
  if (symbolic) {
    IS       row, col;
    PetscInt m, bs;

    PetscCall(PetscInfo(pc, "The local block is not a structured grid (%s): factored as a general sparse matrix by MatSolverType %s\n", ilu->fallbackwhy, ic ? MATSOLVERPETSC : MATSOLVERGILU));
    PetscCall(MatDestroy(&ilu->fallback));
    PetscCall(VecDestroy(&ilu->fx));
    PetscCall(VecDestroy(&ilu->fy));
    /* ICC: PETSc's, which reads the upper triangle only (an ASM block of a symmetric operator may not be symmetric) */
    PetscCall(MatGetFactor(Alocal, ic ? MATSOLVERPETSC : MATSOLVERGILU, ic ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, &ilu->fallback));
    PetscCall(MatGetOrdering(Alocal, MATORDERINGNATURAL, &row, &col));
    if (ic) PetscCall(MatICCFactorSymbolic(ilu->fallback, Alocal, row, &info));
    else PetscCall(MatILUFactorSymbolic(ilu->fallback, Alocal, row, col, &info));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatGetLocalSize(Alocal, &m, NULL));
    PetscCall(MatGetBlockSize(Alocal, &bs));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, m, NULL, &ilu->fx));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, m, NULL, &ilu->fy));
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUFactor, pc, Alocal, 0, 0));
  if (ic) PetscCall(MatCholeskyFactorNumeric(ilu->fallback, Alocal, &info));
  else PetscCall(MatLUFactorNumeric(ilu->fallback, Alocal, &info));
  PetscCall(PetscLogEventEnd(GILU_StructILUFactor, pc, Alocal, 0, 0));
  ilu->zerorow = -1;
  ilu->ran     = PETSCGILU_BACKEND_HOST;
  PetscCall(MatFactorGetError(ilu->fallback, &err));
  if (err != MAT_FACTOR_NOERROR) {
    PetscReal pivot;
    PetscInt  row;

    PetscCall(MatFactorGetErrorZeroPivot(ilu->fallback, &pivot, &row));
    ilu->zerorow = PetscMax(row, 0);
  }
  PetscCall(StructILUCheckPivot(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = the fallback's solve of the local part of x (transpose: with the transposed factors) */
static PetscErrorCode StructILUFallbackSolve(PC pc, Vec x, Vec y, PetscBool transpose)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(VecPlaceArray(ilu->fx, xa));
  PetscCall(VecPlaceArray(ilu->fy, ya));
  if (transpose) PetscCall(MatSolveTranspose(ilu->fallback, ilu->fx, ilu->fy));
  else PetscCall(MatSolve(ilu->fallback, ilu->fx, ilu->fy));
  PetscCall(VecResetArray(ilu->fx));
  PetscCall(VecResetArray(ilu->fy));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactor_StructILU(PC);

/*
  A MATSTENCILGPU matrix: the grid, the stencil and the values are the matrix's own (its
  DMDA box in parallel), copied without any decoding
*/
static PetscErrorCode PCSetUpStencil_StructILU(PC pc, const GILUStencilMat *msm)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;
  Mat           A   = pc->pmat;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GILU_StencilExtract, pc, A, 0, 0));
  if (!ilu->analyzed || pc->flag != SAME_NONZERO_PATTERN || msm->nonzerostate != ilu->sm.nonzerostate) {
    PetscCall(PCReset_StructILU(pc));
    PetscCheck(!ilu->dof || ilu->dof == msm->grid.dof, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "-pc_structilu_dof %" PetscInt_FMT " contradicts the matrix's %" PetscInt_FMT " DoF per grid point", ilu->dof, msm->grid.dof);
    PetscCheck(msm->grid.dof <= GILU_MAX_DOF, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "Structured-grid ILU supports 1 to %d unknowns per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, msm->grid.dof);
    ilu->gridfrom = "from the MATSTENCILGPU matrix";
    PetscCall(StructILUSymbolicStencil(msm, ilu->levels, (PetscBool)(ilu->type == PC_STRUCTILU_IC), &ilu->sm, ilu->patname, sizeof(ilu->patname), &ilu->elim, &ilu->mirror, ilu->hyper, &ilu->nlevels, &ilu->dinv));
    ilu->analyzed = PETSC_TRUE;
  }
  ilu->sm.nthreads     = ilu->threads;
  ilu->sm.scheduletype = (GILUScheduleType)ilu->schedule;
  PetscCall(GILUStencilMatCopyValues(msm, &ilu->sm));
  if (ilu->type == PC_STRUCTILU_IC) PetscCall(StructILUCheckSymmetric(&ilu->sm, ilu->mirror));
  PetscCall(PetscLogEventEnd(GILU_StencilExtract, pc, A, 0, 0));
  PetscCall(PCFactor_StructILU(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A local block without rows has nothing to factor or solve, whatever its type and grid: ilu->empty, an empty factor (as PETSc's ILU) */
static PetscErrorCode PCStructILUSetUpEmpty(PC pc, Mat A)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;
  PetscInt      m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  if (m && !ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCReset_StructILU(pc));
  ilu->empty   = (PetscBool)(m == 0);
  ilu->zerorow = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_StructILU(PC pc)
{
  PC_StructILU         *ilu = (PC_StructILU *)pc->data;
  Mat                   A = pc->pmat, Alocal = A;
  PetscMPIInt           size;
  PetscBool             isbaij, isstencil;
  PetscObjectState      state;
  const GILUStencilMat *msm;

  PetscFunctionBegin;
  PetscCall(PetscGILUCitationsRegister(GILU_CITE_STRUCTILU));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCheck(!ilu->eisenstat || size == 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_structilu_eisenstat runs on one process only (the sweeps do not include the couplings between processes); use -pc_structilu_eisenstat 0 in parallel");
  PetscCall(MatStencilGPUGetStencilMat(A, &isstencil, &msm));
  PetscCall(PCStructILUSetUpEmpty(pc, Alocal));
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  if (isstencil) {
    PetscCall(PCSetUpStencil_StructILU(pc, msm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  if (size > 1) PetscCall(MatGetDiagonalBlock(A, &Alocal));
  PetscCall(MatGetNonzeroState(Alocal, &state));

  PetscCall(PetscLogEventBegin(GILU_StencilExtract, pc, A, 0, 0));
  if (!ilu->analyzed || pc->flag != SAME_NONZERO_PATTERN || state != ilu->blockstate) {
    GILUGrid  g;
    PetscBool gridfound = PETSC_FALSE;

    PetscCall(PCReset_StructILU(pc));
    ilu->sm.nthreads = ilu->threads; /* the analysis runs on the threads of the kernels */
    PetscCall(PCStructILUFindGrid(pc, A, Alocal, &g, &gridfound));
    if (gridfound && ilu->levels > 0) { /* ILU(k) = ILU(0) on the ILU(k) pattern: the fill stencil, positions of level > k missing */
      GILUStencilMat pat;

      PetscCall(PetscMemzero(&pat, sizeof(pat)));
      pat.nthreads = ilu->threads;
      PetscCall(GILUStencilMatAnalyze(Alocal, &g, &pat, ilu->fallbackwhy, sizeof(ilu->fallbackwhy)));
      if (!ilu->fallbackwhy[0]) {
        PetscCall(GILUStencilGetName(&pat.stencil, g.dim, ilu->patname, sizeof(ilu->patname)));
        PetscCall(GILUStencilMatFill(&pat, ilu->levels, &ilu->sm));
        PetscCall(GILUStencilMatReset(&pat));
      }
    } else if (gridfound) PetscCall(GILUStencilMatAnalyze(Alocal, &g, &ilu->sm, ilu->fallbackwhy, sizeof(ilu->fallbackwhy)));
    ilu->analyzed      = PETSC_TRUE;
    ilu->blockstate = state;
    if (ilu->fallbackwhy[0]) { /* not a structured grid: a general sparse ILU(k) of the block */
      PetscCall(PetscLogEventEnd(GILU_StencilExtract, pc, A, 0, 0));
      PetscCall(StructILUFallbackFactor(pc, Alocal, PETSC_TRUE));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(StructILUSymbolicFinish(&ilu->sm, (PetscBool)(ilu->type == PC_STRUCTILU_IC), &ilu->elim, &ilu->mirror, ilu->hyper, &ilu->nlevels, &ilu->dinv));
  } else if (ilu->fallback) {
    PetscCall(PetscLogEventEnd(GILU_StencilExtract, pc, A, 0, 0));
    PetscCall(StructILUFallbackFactor(pc, Alocal, PETSC_FALSE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ilu->sm.nthreads     = ilu->threads;
  ilu->sm.scheduletype = (GILUScheduleType)ilu->schedule;
  PetscCall(GILUStencilMatPack(Alocal, &ilu->sm));
  if (ilu->type == PC_STRUCTILU_IC) PetscCall(StructILUCheckSymmetric(&ilu->sm, ilu->mirror));
  PetscCall(PetscLogEventEnd(GILU_StencilExtract, pc, A, 0, 0));
  PetscCall(PCFactor_StructILU(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The back-end of this setup; for cuda and cudaemu the device schedule (once per pattern) and the factors (each setup) */
static PetscErrorCode PCStructILUSetUpDevice(PC pc)
{
  PC_StructILU        *ilu  = (PC_StructILU *)pc->data;
  PetscGILUBackendType want = ilu->backend, ran;

  PetscFunctionBegin;
  ilu->devfactored = PETSC_FALSE;
  if (!ilu->backendset) PetscCall(PetscGILUGetBackend(&want));
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)pc), want, &ran));
  if (ilu->dev && ran != ilu->ran) PetscCall(ilu->devops->destroy(&ilu->dev));
  ilu->ran = ran;
  if (ran == PETSCGILU_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  GILUBackendGetDeviceOps(ran, StructILUDeviceGetOps, &ilu->devops);
  if (ilu->dev && ilu->devinfo.mapping != ilu->mapping) PetscCall(ilu->devops->destroy(&ilu->dev)); /* -pc_structilu_cuda_mapping changed */
  if (!ilu->dev) PetscCall(ilu->devops->create(&ilu->sm, ilu->mapping, ilu->tilepoints, ilu->pipeline, ilu->nowait, &ilu->dev, &ilu->devinfo));
  if (ilu->cudafactor) {
    const PetscBool single = (PetscBool)(ilu->precision == PC_STRUCTILU_PRECISION_SINGLE), ic = (PetscBool)(ilu->type == PC_STRUCTILU_IC);
    const PetscInt  nl = ilu->sm.stencil.nlower, nu = ilu->sm.stencil.ns - nl - 1;

    PetscCall(ilu->devops->factor(ilu->dev, &ilu->sm, ilu->elim, ilu->mirror, ilu->zeropivot, single, ilu->cudamma, ilu->factorpipe, &ilu->zerorow, &ilu->usedmma));
    PetscCall(StructILUFactorsReset_Host(&ilu->factors)); /* no host factors: what the view reports */
    ilu->factors.ic       = ic;
    ilu->factors.single   = single;
    ilu->factors.noffsets = (ic ? 0 : nl) + nu;
    ilu->factors.bytes    = (single ? sizeof(float) : sizeof(PetscScalar)) * (size_t)ilu->sm.npoints * ilu->sm.bs2 * (size_t)((ic ? 0 : nl) + nu + 1);
    ilu->devfactored      = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Factors ilu->sm, whose values are set */
static PetscErrorCode PCFactor_StructILU(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;
  Mat           A   = pc->pmat;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GILU_StructILUFactor, pc, A, 0, 0));
  PetscCall(PCStructILUSetUpDevice(pc)); /* the back-end; on cuda/cudaemu the factorization too, unless -pc_structilu_cuda_factor 0 */
  if (!ilu->devfactored) {
    const PetscBool single = (PetscBool)(ilu->precision == PC_STRUCTILU_PRECISION_SINGLE);
    /* DILU: a star stencil's ILU(0) changes only the diagonal; the solves read the matrix's blocks (host, double) */
    const PetscBool dilu = (PetscBool)((ilu->diagstorage || ilu->eisenstat) && !single && !ilu->dev && StructILUStencilIsDILU(&ilu->sm.stencil, ilu->elim));

    if (ilu->eisenstat && !dilu) {
      char name[64];

      PetscCall(GILUStencilGetName(&ilu->sm.stencil, ilu->sm.grid.dim, name, sizeof(name)));
      SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_structilu_eisenstat needs DILU factors: ILU(0) of a stencil whose factorization changes only the diagonal (a star stencil; this one is %s), double precision and the host back-end", name);
    }
    if (dilu) {
      if (ilu->eisenstat && !ilu->diag) PetscCall(PetscMalloc2((size_t)ilu->sm.npoints * ilu->sm.bs2, &ilu->diag, (size_t)ilu->sm.npoints * ilu->sm.bs2, &ilu->eisE));
      PetscCall(StructILUFactorDiagonal_Host(&ilu->sm, ilu->mirror, ilu->zeropivot, ilu->dinv, ilu->diag, &ilu->zerorow));
      if (ilu->eisenstat) { /* E = A_D - 2 D */
        const size_t       n  = (size_t)ilu->sm.npoints * ilu->sm.bs2;
        const PetscScalar *AD = ilu->sm.val + (size_t)ilu->sm.stencil.nlower * n;

        for (size_t t = 0; t < n; t++) ilu->eisE[t] = AD[t] - 2.0 * ilu->diag[t];
      }
    } else PetscCall(StructILUFactor_Host(&ilu->sm, ilu->elim, ilu->mirror, ilu->zeropivot, ilu->dinv, &ilu->zerorow));
    PetscCall(StructILUFactorsStore_Host(&ilu->sm, ilu->dinv, ilu->mirror, single, dilu, &ilu->factors));
    if (ilu->dev) PetscCall(ilu->devops->setfactors(ilu->dev, &ilu->factors));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUFactor, pc, A, 0, 0));
  PetscCall(StructILUCheckPivot(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_StructILU(PC pc, Vec x, Vec y)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS); /* no local entries */
  if (ilu->zerorow >= 0) { /* the factorization failed: let the Krylov method see it */
    PetscCall(VecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->eisenstat) { /* the preconditioner of the transformed system: D (the sweeps are in the operator) */
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(StructILUBlockDiagonalMult_Host(&ilu->sm, ilu->diag, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, pc, x, y, 0));
  if (ilu->fallback) PetscCall(StructILUFallbackSolve(pc, x, y, PETSC_FALSE));
  else if (ilu->dev) { /* device arrays: CUDA vectors' own, else the device's buffers with logged copies (src/sys/device-vec.c) */
    void *bbuf, *xbuf;

    PetscCall(ilu->devops->buffers(ilu->dev, &bbuf, &xbuf));
    PetscCall(GILUVecIsDeviceNative(x, ilu->ran, &ilu->devnative));
    PetscCall(GILUVecGetDeviceArrayRead(x, ilu->ran, bbuf, &xa));
    PetscCall(GILUVecGetDeviceArrayWrite(y, ilu->ran, xbuf, &ya));
    PetscCall(ilu->devops->solve(ilu->dev, xa, ya));
    PetscCall(GILUVecRestoreDeviceArrayWrite(y, ilu->ran, &ya));
    PetscCall(GILUVecRestoreDeviceArrayRead(x, ilu->ran, &xa));
  } else {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(StructILUSolve_Host(&ilu->sm, &ilu->factors, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-T} x on the host, whatever the back-end: after a factorization on the device, the host factors the same values once first */
static PetscErrorCode PCApplyTranspose_StructILU(PC pc, Vec x, Vec y)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS); /* no local entries */
  if (ilu->zerorow >= 0) {
    PetscCall(VecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->fallback) { /* not a structured grid: the general factor's transposed solve */
    PetscCall(PetscLogEventBegin(GILU_StructILUApply, pc, x, y, 0));
    PetscCall(StructILUFallbackSolve(pc, x, y, PETSC_TRUE));
    PetscCall(PetscLogEventEnd(GILU_StructILUApply, pc, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!ilu->eisenstat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCApplyTranspose() of -pc_structilu_eisenstat: the transformed system has no transposed solve here; use the usual preconditioner (-pc_structilu_eisenstat 0)");
  ilu->transposed = PETSC_TRUE;
  if (!ilu->factors.dinv) { /* factored on the device only: sm holds the unfactored values */
    PetscCall(PetscLogEventBegin(GILU_StructILUFactor, pc, pc->pmat, 0, 0));
    PetscCall(StructILUFactor_Host(&ilu->sm, ilu->elim, ilu->mirror, ilu->zeropivot, ilu->dinv, &ilu->zerorow));
    PetscCall(StructILUFactorsStore_Host(&ilu->sm, ilu->dinv, ilu->mirror, (PetscBool)(ilu->precision == PC_STRUCTILU_PRECISION_SINGLE), PETSC_FALSE, &ilu->factors));
    PetscCall(PetscLogEventEnd(GILU_StructILUFactor, pc, pc->pmat, 0, 0));
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, pc, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(StructILUSolveTranspose_Host(&ilu->sm, &ilu->factors, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Eisenstat trick's operator: y = Ahat x (StructILUEisenstatMult_Host()) */
static PetscErrorCode MatMult_StructILUEisenstat(Mat S, Vec x, Vec y)
{
  PC                 pc;
  PC_StructILU      *ilu;
  const PetscScalar *xa;
  PetscScalar       *ya, *ta, *wa;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &pc));
  ilu = (PC_StructILU *)pc->data;
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  if (ilu->zerorow >= 0) { /* the factorization failed: let the Krylov method see it */
    PetscCall(VecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, pc, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(VecGetArrayWrite(ilu->eiswork[0], &ta));
  PetscCall(VecGetArrayWrite(ilu->eiswork[1], &wa));
  PetscCall(StructILUEisenstatMult_Host(&ilu->sm, &ilu->factors, ilu->eisE, xa, ta, wa, ya));
  PetscCall(VecRestoreArrayWrite(ilu->eiswork[1], &wa));
  PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &ta));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Eisenstat: before KSPSolve() the operator becomes Ahat (the shell), the right-hand side (D + A_L)^{-1} b (the user's b
  kept to be put back after) and a nonzero initial guess (D + A_U) x; PCPostSolve() undoes it, x = (D + A_U)^{-1} y.
  Nested solves (a KSP inside the operator) take a second slot, as PCPreSolve() allows two.
*/
static PetscErrorCode PCPreSolve_StructILU(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  PetscBool          nonzero;
  PetscInt           slot = ilu->eisdepth;
  const PetscScalar *ba;
  PetscScalar       *xa, *wa, *bb;

  PetscFunctionBegin;
  if (!ilu->eisenstat) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(slot < 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_structilu_eisenstat: solves nested more than twice");
  if (!slot) {
    PetscInt m, n, M, N;

    PetscCheck(pc->mat == pc->pmat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_structilu_eisenstat needs the operator to be the preconditioning matrix");
    if (!ilu->eisshell) {
      PetscCall(MatGetLocalSize(pc->mat, &m, &n));
      PetscCall(MatGetSize(pc->mat, &M, &N));
      PetscCall(MatCreateShell(PetscObjectComm((PetscObject)pc), m, n, M, N, pc, &ilu->eisshell));
      PetscCall(MatShellSetOperation(ilu->eisshell, MATOP_MULT, (void (*)(void))MatMult_StructILUEisenstat));
      PetscCall(PetscObjectSetName((PetscObject)ilu->eisshell, "structilu Eisenstat operator"));
    }
    ilu->eisA = pc->mat;
    pc->mat   = ilu->eisshell;
    PetscCall(PetscGILUCitationsRegister(GILU_CITE_EISENSTAT));
  }
  ilu->eisdepth++;
  if (!ilu->eisb[slot]) PetscCall(VecDuplicate(b, &ilu->eisb[slot]));
  if (!ilu->eiswork[0]) PetscCall(VecDuplicate(b, &ilu->eiswork[0]));
  if (!ilu->eiswork[1]) PetscCall(VecDuplicate(b, &ilu->eiswork[1]));
  PetscCall(VecCopy(b, ilu->eisb[slot]));
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) { /* y0 = (D + A_U) x0 */
    PetscCall(VecCopy(x, ilu->eiswork[0]));
    PetscCall(VecGetArrayRead(ilu->eiswork[0], &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(StructILUMultUpper_Host(&ilu->sm, ilu->diag, ba, xa));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(ilu->eiswork[0], &ba));
  }
  PetscCall(VecGetArrayRead(ilu->eisb[slot], &ba));
  PetscCall(VecGetArrayWrite(ilu->eiswork[0], &wa));
  PetscCall(VecGetArrayWrite(b, &bb));
  PetscCall(StructILUSolveLower_Host(&ilu->sm, &ilu->factors, ba, wa, bb));
  PetscCall(VecRestoreArrayWrite(b, &bb));
  PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &wa));
  PetscCall(VecRestoreArrayRead(ilu->eisb[slot], &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_StructILU(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;
  PetscScalar  *xa;

  PetscFunctionBegin;
  if (!ilu->eisenstat || !ilu->eisdepth) PetscFunctionReturn(PETSC_SUCCESS);
  ilu->eisdepth--;
  PetscCall(VecCopy(ilu->eisb[ilu->eisdepth], b));
  if (!ilu->empty) {
    PetscCall(VecGetArray(x, &xa));
    PetscCall(StructILUSolveUpper_Host(&ilu->sm, &ilu->factors, xa, xa));
    PetscCall(VecRestoreArray(x, &xa));
  }
  if (!ilu->eisdepth) pc->mat = ilu->eisA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* printf-append to a string */
static PetscErrorCode Append(char line[], size_t len, const char fmt[], ...)
{
  size_t  used = strlen(line);
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  if (used < len) (void)vsnprintf(line + used, len - used, fmt, ap);
  va_end(ap);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "i + j + 2k" for the coefficients a of a.(i,j,k) */
static PetscErrorCode LinearForm(const PetscInt a[3], char str[], size_t len)
{
  const char *axis[3] = {"i", "j", "k"};

  PetscFunctionBegin;
  str[0] = 0;
  for (PetscInt e = 0; e < 3; e++) {
    if (!a[e]) continue;
    if (str[0]) PetscCall(Append(str, len, a[e] > 0 ? " + " : " - "));
    else if (a[e] < 0) PetscCall(Append(str, len, "-"));
    if (PetscAbsInt(a[e]) != 1) PetscCall(Append(str, len, "%" PetscInt_FMT, PetscAbsInt(a[e])));
    PetscCall(Append(str, len, "%s", axis[e]));
  }
  if (!str[0]) PetscCall(Append(str, len, "0"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The back-end that ran, and for cuda/cudaemu the schedule and the performance model of one apply:
    t = 2 launches + (dependent steps of the forward and the backward sweep) x latency + bytes moved / bandwidth
  + the copies of b and x over the host-device link (a host-only PETSc)
  The dependent steps of a sweep are its levels; with the lines mapping and a P-stage intra-row pipeline the first
  block starts P - 1 steps early (its earlier stages work ahead of the levels), so P - 1 more.
*/
static PetscErrorCode PCView_StructILU_Backend(PC pc, PetscViewer viewer)
{
  PC_StructILU              *ilu = (PC_StructILU *)pc->data;
  const StructILUDeviceInfo *di  = &ilu->devinfo;
  char                       name[256], build[256];
  const PetscInt             d = ilu->sm.grid.dof, N = ilu->sm.npoints;
  double                     bw, lat, pcie, bytesmat, bytesvec, bytescopy, tdev, tcopy;
  PetscInt                   steps;

  PetscFunctionBegin;
  PetscCall(PetscGILUBackendName(ilu->ran, name, sizeof(name)));
  PetscCall(PetscGILUBackendDescribe(build, sizeof(build)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  back-end: %s; %s\n", name, build));
  if (ilu->transposed)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  transposed solves (PCApplyTranspose): (D + U)^T then L^T, sequential on the host with the host's factors%s\n", ilu->dev ? " (after a device factorization the host factors the same values once more)" : ""));
  if (!ilu->dev) PetscFunctionReturn(PETSC_SUCCESS);
  bw        = ilu->modelbw > 0 ? ilu->modelbw : StructILUModelBW[ilu->modelgpu];
  lat       = ilu->modellat > 0 ? ilu->modellat : StructILUModelLat[ilu->modelgpu];
  pcie      = ilu->modelpcie > 0 ? ilu->modelpcie : StructILUModelPCIe[ilu->modelgpu];
  bytesmat  = (double)ilu->factors.bytes;
  bytesvec  = 8.0 * N * d * (ilu->type == PC_STRUCTILU_IC ? 7.0 : 5.0);                         /* b; x written, read, written; neighbour reads once; IC: z written, read */
  bytescopy = ilu->devnative ? 0.0 : 16.0 * N * d;                                              /* b in, x out; none with PETSc's CUDA vectors */
  steps     = di->nlevels + (di->mapping == STRUCTILU_CUDA_MAPPING_LINES ? di->nstage - 1 : 0); /* lines: the pipeline's P - 1 steps ahead */
  tdev      = 2 * 5.0 + 2.0 * steps * lat + (bytesmat + bytesvec) / (bw * 1e3);                 /* microseconds */
  tcopy     = bytescopy / (pcie * 1e3);
  if (di->mapping == STRUCTILU_CUDA_MAPPING_TILES) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device solves: mapping tiles, level = %" PetscInt_FMT "i + %" PetscInt_FMT "j + %" PetscInt_FMT "k, %" PetscInt_FMT " levels, %" PetscInt_FMT " tiles (thread blocks) of at most %" PetscInt_FMT " points of one level, %" PetscInt_FMT " threads per block (%" PetscInt_FMT " per point and stage of the intra-row pipeline of %" PetscInt_FMT " stage(s)), launched by level, block-to-block waiting on per-tile flags%s\n", di->w[0], di->w[1], di->w[2], di->nlevels, di->ntiles, di->tilepoints, di->maxthreads * di->nstage, d, di->nstage, di->nowait ? " DISABLED (-pc_structilu_cuda_nowait: results are wrong)" : ""));
  } else {
    char c[3][64];

    for (PetscInt r = 0; r < 3; r++) PetscCall(LinearForm(di->M[r], c[r], sizeof(c[r])));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device solves: mapping lines (the StructILU paper, Section 4.1), level = %" PetscInt_FMT "i + %" PetscInt_FMT "j + %" PetscInt_FMT "k, %" PetscInt_FMT " levels; transformed grid x^ = %s, y^ = %s, z^ = %s (level = x^ + y^ + z^); %" PetscInt_FMT " lines along z^ in %" PetscInt_FMT " thread blocks of %" PetscInt_FMT " x %" PetscInt_FMT " lines of the x^y^-plane, %" PetscInt_FMT " threads per block (%" PetscInt_FMT " per line and stage of the intra-row pipeline of %" PetscInt_FMT " stage(s)%s), stepping through their levels together, launched by minimum effective level, block-to-block waiting per level on per-block level counters for %" PetscInt_FMT " predecessor blocks (backward: %" PetscInt_FMT ")%s\n", di->w[0], di->w[1], di->w[2], di->nlevels, c[0], c[1], c[2], di->nlines, di->nblocks, di->linesx, di->linesy, di->linesx * di->linesy * d * di->nstage, d, di->nstage, di->nstage > 1 ? ", the earlier stages working ahead of the level" : "", di->npred[0], di->npred[1], di->nowait ? " DISABLED (-pc_structilu_cuda_nowait: results are wrong)" : ""));
  }
  if (ilu->devfactored && ilu->factorpipe)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, two-substage pipeline (the StructILU paper, Section 4.2.2): at each level step a block runs substage 2 of its rows of that level beside substage 1 of its rows of the next level (2 thread groups of DoF threads per line, one barrier between the substages and one for the diagonal inversions); substage 1: %" PetscInt_FMT " of the %" PetscInt_FMT " L blocks and %" PetscInt_FMT " of the %" PetscInt_FMT " updates of a row (intra-row levels 0 and 1, rows at least two levels back)%s\n", di->nearly, di->nlowerL, di->npairs1, di->npairs,
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else if (ilu->devfactored)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, %s%s\n", ilu->usedmma ? "one warp per grid point, block products on the FP64 tensor cores (m8n8k4 MMA), warp-shuffle Gauss-Jordan inversion of the diagonal blocks" : "DoF threads per grid point (a row of the block row each)",
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: none (-pc_structilu_cuda_factor 0): on the host, factors copied to the device in the level-ordered layout at each setup\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  performance model (%s: %.0f GB/s, %.2f us per dependent step, %.0f GB/s host link, 5 us per launch): %" PetscInt_FMT " dependent steps per sweep, per apply %.4g MB of factors + %.4g MB of vectors on the device, %.4g MB copied; predicted %.4g us on the device + %.4g us of copies\n",
                                   StructILUModelGPUs[ilu->modelgpu], bw, lat, pcie, steps, bytesmat / 1e6, bytesvec / 1e6, bytescopy / 1e6, tdev, tcopy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_StructILU(PC pc, PetscViewer viewer)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  const GILUStencil *st  = &ilu->sm.stencil;
  const GILUGrid    *g   = &ilu->sm.grid;
  PetscBool          ascii;
  PetscMPIInt        size;
  char               name[64], line[2048];
  const char        *axis[3] = {"i", "j", "k"};

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (ilu->type == PC_STRUCTILU_IC)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid IC(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT ") of a symmetric matrix; upper triangle stored)\n", ilu->levels, ilu->levels));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid ILU(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT "))\n", ilu->levels, ilu->levels));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  zero pivot tolerance %g\n", (double)ilu->zeropivot));
  if (ilu->empty) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  local block with 0 rows: empty factor\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ilu->analyzed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  block Jacobi across %d MPI processes: each factors its local block (its DMDA box); process 0 shown\n", size));
  if (ilu->fallback) {
    MatSolverType solver;

    PetscCall(MatFactorGetSolverType(ilu->fallback, &solver));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  the local block is not a structured grid (%s): factored as a general sparse matrix, %s(%" PetscInt_FMT ") in natural ordering by MatSolverType %s (the factors of PETSc's %s(%" PetscInt_FMT ") of the block), on the host\n", ilu->fallbackwhy, ilu->type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->levels, solver, ilu->type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->levels));
    if (ilu->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in local row %" PetscInt_FMT "\n", ilu->zerorow));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(ilu->fallback, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSNPrintf(line, sizeof(line), "%" PetscInt_FMT, g->n[0]));
  for (PetscInt d = 1; d < g->dim; d++) PetscCall(Append(line, sizeof(line), " x %" PetscInt_FMT, g->n[d]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  grid: %" PetscInt_FMT "D, %s points (%s), DoF %" PetscInt_FMT "\n", g->dim, line, ilu->gridfrom, g->dof));
  PetscCall(GILUStencilGetName(st, g->dim, name, sizeof(name)));
  line[0] = 0;
  for (PetscInt s = 0; s < st->ns; s++) {
    PetscCall(Append(line, sizeof(line), " (%" PetscInt_FMT, st->off[s][0]));
    for (PetscInt d = 1; d < g->dim; d++) PetscCall(Append(line, sizeof(line), ",%" PetscInt_FMT, st->off[s][d]));
    PetscCall(Append(line, sizeof(line), ")"));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  stencil: %s, %" PetscInt_FMT " lower and %" PetscInt_FMT " upper offsets:%s\n", name, st->nlower, st->ns - st->nlower - 1, line));
  line[0] = 0;
  for (PetscInt d = 0; d < g->dim; d++) {
    if (!ilu->hyper[d]) continue;
    if (line[0]) PetscCall(Append(line, sizeof(line), " + "));
    if (ilu->hyper[d] > 1) PetscCall(Append(line, sizeof(line), "%" PetscInt_FMT, ilu->hyper[d]));
    PetscCall(Append(line, sizeof(line), "%s", axis[d]));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  hyperplane levels: %" PetscInt_FMT " (level = %s), %.1f grid points per level on average\n", ilu->nlevels, line, (double)ilu->sm.npoints / (double)ilu->nlevels));
  if (ilu->levels > 0) {
    PetscInt64 npos = 0; /* in-grid positions of the fill stencil */

    for (PetscInt s = 0; s < st->ns; s++) {
      PetscInt64 cnt = 1;

      for (PetscInt d = 0; d < 3; d++) cnt *= PetscMax(g->n[d] - PetscAbsInt(st->off[s][d]), 0);
      npos += cnt;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill: the ILU(%" PetscInt_FMT ") fill stencil of the matrix's %s is %s (%" PetscInt_FMT " offsets)\n", ilu->levels, ilu->patname, name, st->ns));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill positions: %" PetscInt64_FMT " in-grid positions of the fill stencil, %" PetscInt64_FMT " kept (level of fill at most %" PetscInt_FMT "), %" PetscInt_FMT " dropped (kept at zero)\n", npos,
                                     npos - ilu->sm.nmissing, ilu->levels, ilu->sm.nmissing));
  } else if (ilu->sm.nmissing) PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: %" PetscInt_FMT " in-grid stencil positions absent from the matrix, kept at zero (as ILU(0) on the matrix pattern does)\n", ilu->sm.nmissing));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: the full stencil at every grid point\n"));
  if (ilu->factors.dilu)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in double precision, DILU: ILU(0) of this stencil changes only the diagonal, so only the inverted modified diagonal blocks are stored (%" PetscInt_FMT " x %" PetscInt_FMT "); the solves read the matrix's other %" PetscInt_FMT " offsets in place (L = A_L D^{-1}, U = D + A_U)\n",
                                     (double)ilu->factors.bytes / 1048576.0, g->dof, g->dof, st->ns - 1));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in %s precision (blocks of %" PetscInt_FMT " of the %" PetscInt_FMT " offsets and the inverted diagonal blocks, %" PetscInt_FMT " x %" PetscInt_FMT " blocks, stencil-major, no column indices)\n",
                                     (double)ilu->factors.bytes / 1048576.0, ilu->precision == PC_STRUCTILU_PRECISION_SINGLE ? "single" : "double", ilu->factors.noffsets, st->ns, g->dof, g->dof));
  if (ilu->eisenstat)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Eisenstat trick: the Krylov method runs on Ahat = (D + A_L)^{-1} A (D + A_U)^{-1} (two sweeps per product, no product with A), preconditioned by D; its residuals are those of the transformed system\n"));
  if (ilu->sm.schedule) {
    GILUSchedule sch = ilu->sm.schedule;

    if (sch->type == GILU_SCHEDULE_SLAB)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads: %" PetscInt_FMT ", slab schedule: %" PetscInt_FMT " units (line segments of up to %" PetscInt_FMT " points), each thread sweeps its slab in natural order as %" PetscInt_FMT " pipelined sub-slab(s), waiting only for the units of its neighbours\n",
                                       sch->nthreads, sch->nunits, sch->chunk, sch->depth));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads: %" PetscInt_FMT ", hyperplane schedule: %" PetscInt_FMT " units (line segments of up to %" PetscInt_FMT " points) in %" PetscInt_FMT " levels, claimed in tiles of up to %" PetscInt_FMT " units of one level\n",
                                       sch->nthreads, sch->nunits, sch->chunk, sch->nlevels, sch->group));
  }
  if (ilu->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in local row %" PetscInt_FMT "\n", ilu->zerorow));
  PetscCall(PCView_StructILU_Backend(pc, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_StructILU(PC pc, PetscOptionItems *PetscOptionsObject)
{
  PC_StructILU        *ilu     = (PC_StructILU *)pc->data;
  PetscInt             grid[3] = {0, 0, 0}, ngrid = 3, dof, levels, threads;
  PetscReal            zeropivot;
  PetscBool            flg, bval;
  PCStructILUType      type;
  PCStructILUPrecision precision;
  PCStructILUSchedule  schedule;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Structured-grid ILU options");
  PetscCall(PetscOptionsIntArray("-pc_structilu_grid", "Local grid nx,ny[,nz] when there is no DMDA", "PCStructILUSetGrid", grid, &ngrid, &flg));
  if (flg) PetscCall(PCStructILUSetGrid(pc, ngrid, grid));
  PetscCall(PetscOptionsInt("-pc_structilu_dof", "Unknowns per grid point when there is no DMDA", "PCStructILUSetDof", ilu->dof, &dof, &flg));
  if (flg) PetscCall(PCStructILUSetDof(pc, dof));
  PetscCall(PetscOptionsEnum("-pc_structilu_type", "Incomplete factorization", "PCStructILUSetType", PCStructILUTypes, (PetscEnum)ilu->type, (PetscEnum *)&type, &flg));
  if (flg) PetscCall(PCStructILUSetType(pc, type));
  PetscCall(PetscOptionsInt("-pc_structilu_levels", "Levels of fill of the incomplete factorization, ILU(k)", "PCStructILUSetLevels", ilu->levels, &levels, &flg));
  if (flg) PetscCall(PCStructILUSetLevels(pc, levels));
  PetscCall(PetscOptionsEnum("-pc_structilu_factor_precision", "Precision of the stored factors", "PCStructILUSetFactorPrecision", PCStructILUPrecisions, (PetscEnum)ilu->precision, (PetscEnum *)&precision, &flg));
  if (flg) PetscCall(PCStructILUSetFactorPrecision(pc, precision));
  PetscCall(PetscOptionsInt("-pc_structilu_threads", "Host threads (0: OMP_NUM_THREADS if set, else the cores divided among the node's MPI processes; fewer for small grids)", "PCStructILUSetThreads", ilu->threads, &threads, &flg));
  if (flg) PetscCall(PCStructILUSetThreads(pc, threads));
  PetscCall(PetscOptionsEnum("-pc_structilu_schedule", "How the host threads share the rows", "PCStructILUSetSchedule", PCStructILUSchedules, (PetscEnum)ilu->schedule, (PetscEnum *)&schedule, &flg));
  if (flg) PetscCall(PCStructILUSetSchedule(pc, schedule));
  PetscCall(PetscOptionsReal("-pc_structilu_zeropivot", "Pivots at most this large in absolute value are zero pivots", "PCStructILUSetZeroPivot", ilu->zeropivot, &zeropivot, &flg));
  if (flg) PetscCall(PCStructILUSetZeroPivot(pc, zeropivot));
  PetscCall(PetscOptionsBool("-pc_structilu_diagonal_storage", "Store only the modified diagonal (DILU) when ILU(0) of the stencil changes nothing else (always with the Eisenstat trick)", "PCStructILUSetDiagonalStorage", ilu->diagstorage, &bval, &flg));
  if (flg) PetscCall(PCStructILUSetDiagonalStorage(pc, bval));
  PetscCall(PetscOptionsBool("-pc_structilu_eisenstat", "The Krylov method runs on (D + L)^{-1} A (D + U)^{-1} (the Eisenstat trick, DILU factors)", "PCStructILUSetEisenstat", ilu->eisenstat, &bval, &flg));
  if (flg) PetscCall(PCStructILUSetEisenstat(pc, bval));
  /* back-end */
  {
    PetscGILUBackendType backend = ilu->backend;

    if (!ilu->backendset) PetscCall(PetscGILUGetBackend(&backend));
    PetscCall(PetscOptionsEnum("-pc_structilu_backend", "Where the solves run (default: -gilu_backend)", "PCStructILUSetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, &flg));
    if (flg) PetscCall(PCStructILUSetBackend(pc, backend));
    PetscCall(PetscOptionsEnum("-pc_structilu_cuda_mapping", "Grid-tier task mapping of the device kernels: tiles of one level, or lines along z^ of the transformed grid in 2D blocks", "PCSTRUCTILU", StructILUCUDAMappings, (PetscEnum)ilu->mapping,
                               (PetscEnum *)&ilu->mapping, NULL));
    PetscCall(PetscOptionsInt("-pc_structilu_cuda_tile_points", "Grid points per thread block of the device kernels (lines mapping: lines per block) (0: 128/dof)", "PCSTRUCTILU", ilu->tilepoints, &ilu->tilepoints, NULL));
    PetscCall(PetscOptionsInt("-pc_structilu_cuda_pipeline", "Stages of the intra-row pipeline of the device solves (0: automatic, min(4, levels spanned by the stencil))", "PCSTRUCTILU", ilu->pipeline, &ilu->pipeline, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor", "Factor on the device (else on the host, the factors copied to the device)", "PCSTRUCTILU", ilu->cudafactor, &ilu->cudafactor, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor_pipeline", "The two-substage pipelined device factorization (lines mapping; not with the tensor cores)", "PCSTRUCTILU", ilu->factorpipe, &ilu->factorpipe, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_mma", "DoF >= 4: the block products of the device factorization on the FP64 tensor cores (m8n8k4 MMA)", "PCSTRUCTILU", ilu->cudamma, &ilu->cudamma, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_nowait", "Developer: leave out the block-to-block waiting of the device solves (wrong results; tests that the waiting matters)", "PCSTRUCTILU", ilu->nowait, &ilu->nowait, NULL));
    PetscCall(PetscOptionsEList("-pc_structilu_model_gpu", "GPU of the performance model printed by -ksp_view", "PCSTRUCTILU", StructILUModelGPUs, 2, StructILUModelGPUs[ilu->modelgpu], &ilu->modelgpu, NULL));
    PetscCall(PetscOptionsReal("-pc_structilu_model_bandwidth", "Memory bandwidth of the model in GB/s (0: the GPU's)", "PCSTRUCTILU", ilu->modelbw, &ilu->modelbw, NULL));
    PetscCall(PetscOptionsReal("-pc_structilu_model_latency", "Latency of one dependent level in microseconds (0: the GPU's)", "PCSTRUCTILU", ilu->modellat, &ilu->modellat, NULL));
    PetscCall(PetscOptionsReal("-pc_structilu_model_link", "Host-device bandwidth in GB/s (0: the GPU's)", "PCSTRUCTILU", ilu->modelpcie, &ilu->modelpcie, NULL));
    PetscCheck(ilu->pipeline >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_cuda_pipeline %" PetscInt_FMT ": must be 0 (automatic) or positive", ilu->pipeline);
    PetscCheck(ilu->tilepoints >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_cuda_tile_points %" PetscInt_FMT ": must be 0 (automatic) or positive", ilu->tilepoints);
    PetscCheck(ilu->modelbw >= 0 && ilu->modelbw < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_model_bandwidth %g: must be finite and nonnegative (0: the GPU's)", (double)ilu->modelbw);
    PetscCheck(ilu->modellat >= 0 && ilu->modellat < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_model_latency %g: must be finite and nonnegative (0: the GPU's)", (double)ilu->modellat);
    PetscCheck(ilu->modelpcie >= 0 && ilu->modelpcie < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_model_link %g: must be finite and nonnegative (0: the GPU's)", (double)ilu->modelpcie);
  }
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetGrid_StructILU(PC pc, PetscInt dim, const PetscInt n[])
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_grid takes 1 to 3 sizes nx,ny[,nz], not %" PetscInt_FMT, dim);
  for (PetscInt d = 0; d < dim; d++) PetscCheck(n[d] >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_grid: the sizes must be positive, size %" PetscInt_FMT " is %" PetscInt_FMT, d, n[d]);
  ilu->griddim = dim;
  for (PetscInt d = 0; d < 3; d++) ilu->grid[d] = d < dim ? n[d] : 1;
  ilu->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetGrid_StructILU(PC pc, PetscInt *dim, PetscInt n[])
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->analyzed) {
    if (dim) *dim = ilu->sm.grid.dim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = ilu->sm.grid.n[d];
  } else {
    if (dim) *dim = ilu->griddim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = ilu->grid[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDof_StructILU(PC pc, PetscInt dof)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dof >= 1 && dof <= GILU_MAX_DOF, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_dof %" PetscInt_FMT ": must be in 1..%d", dof, GILU_MAX_DOF);
  ilu->dof      = dof;
  ilu->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDof_StructILU(PC pc, PetscInt *dof)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  *dof = ilu->analyzed ? ilu->sm.grid.dof : ilu->dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetLevels_StructILU(PC pc, PetscInt levels)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_levels %" PetscInt_FMT ": must be nonnegative", levels);
  if (levels != ilu->levels && pc->setupcalled) { /* a new fill pattern: redo the symbolic setup at the next PCSetUp(), as PCFactorSetLevels() does */
    PetscCall(PCReset_StructILU(pc));
    pc->setupcalled = 0;
  }
  ilu->levels = levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetLevels_StructILU(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  *levels = ((PC_StructILU *)pc->data)->levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetZeroPivot_StructILU(PC pc, PetscReal zeropivot)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(zeropivot >= 0 && zeropivot < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_zeropivot %g: must be finite and nonnegative", (double)zeropivot);
  ilu->zeropivot = zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetZeroPivot_StructILU(PC pc, PetscReal *zeropivot)
{
  PetscFunctionBegin;
  *zeropivot = ((PC_StructILU *)pc->data)->zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetStencil_StructILU(PC pc, PetscInt *dim, PetscInt *ns, const PetscInt **offsets)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(ilu->analyzed, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() first: the stencil is found at setup");
  if (dim) *dim = ilu->sm.grid.dim;
  if (ns) *ns = ilu->sm.stencil.ns;
  if (offsets) *offsets = &ilu->sm.stencil.off[0][0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetType_StructILU(PC pc, PCStructILUType type)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->type != type && pc->setupcalled) PetscCall(PCReset_StructILU(pc));
  ilu->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetType_StructILU(PC pc, PCStructILUType *type)
{
  PetscFunctionBegin;
  *type = ((PC_StructILU *)pc->data)->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetFactorPrecision_StructILU(PC pc, PCStructILUPrecision precision)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->precision != precision && pc->setupcalled) PetscCall(PCReset_StructILU(pc));
  ilu->precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetFactorPrecision_StructILU(PC pc, PCStructILUPrecision *precision)
{
  PetscFunctionBegin;
  *precision = ((PC_StructILU *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetThreads_StructILU(PC pc, PetscInt nthreads)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_structilu_threads %" PetscInt_FMT ": must be 0 (automatic) or positive", nthreads);
  ilu->threads     = nthreads;
  ilu->sm.nthreads = nthreads; /* the schedule follows at the next factorization or solve */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetThreads_StructILU(PC pc, PetscInt *nthreads)
{
  PetscFunctionBegin;
  *nthreads = ((PC_StructILU *)pc->data)->threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetSchedule_StructILU(PC pc, PCStructILUSchedule schedule)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  ilu->schedule        = schedule;
  ilu->sm.scheduletype = (GILUScheduleType)schedule;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetSchedule_StructILU(PC pc, PCStructILUSchedule *schedule)
{
  PetscFunctionBegin;
  *schedule = ((PC_StructILU *)pc->data)->schedule;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDiagonalStorage_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->diagstorage != flg) pc->setupcalled = 0; /* the next PCSetUp() factors again */
  ilu->diagstorage = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDiagonalStorage_StructILU(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_StructILU *)pc->data)->diagstorage;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetEisenstat_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ilu->eisdepth, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "-pc_structilu_eisenstat cannot change inside KSPSolve()");
  if (ilu->eisenstat != flg) pc->setupcalled = 0; /* the next PCSetUp() keeps (or drops) what the trick needs */
  ilu->eisenstat = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetEisenstat_StructILU(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_StructILU *)pc->data)->eisenstat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetBackend_StructILU(PC pc, PetscGILUBackendType backend)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  ilu->backend    = backend;
  ilu->backendset = PETSC_TRUE;
  pc->setupcalled = 0; /* the next PCSetUp() factors again, on the new back-end */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetBackend_StructILU(PC pc, PetscGILUBackendType *backend)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (pc->setupcalled) *backend = ilu->ran;
  else if (ilu->backendset) *backend = ilu->backend;
  else PetscCall(PetscGILUGetBackend(backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_StructILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_StructILU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetGrid_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetGrid_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDof_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDof_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetStencil_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetFactorPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetFactorPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetThreads_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetThreads_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetSchedule_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetSchedule_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDiagonalStorage_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDiagonalStorage_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetEisenstat_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetEisenstat_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCSTRUCTILU - "structilu": ILU(k) for matrices that come from a stencil on a structured grid,
  with the factors of sequential ILU(k) in natural ordering, stored per stencil offset
  without column indices (StructILU).

  Options Database Keys:
+ -pc_structilu_grid nx,ny[,nz] - the local grid, when there is no `DMDA` and the pattern does not reveal it
. -pc_structilu_dof d           - unknowns per grid point (1 to 8), when there is no `DMDA`
. -pc_structilu_levels k        - levels of fill (default 0), as `-pc_factor_levels` of `PCILU`
. -pc_structilu_zeropivot tol   - pivots at most tol in absolute value are zero pivots (default 100 machine epsilon)
. -pc_structilu_diagonal_storage <false> - when ILU(0) of the stencil changes only the diagonal (star stencils), store only
                                  the inverted modified diagonal and read the matrix's other blocks (DILU; host, double precision):
                                  a shorter factorization, an apply that reads D^{-1} twice (see `PCStructILUSetDiagonalStorage()`)
. -pc_structilu_eisenstat <false> - the Krylov method runs on (D + A_L)^{-1} A (D + A_U)^{-1} preconditioned by D, as `PCEISENSTAT`
                                  does for SSOR: two sweeps and no product with A per iteration (DILU factors, one process)
. -pc_structilu_backend auto|host|cuda|cudaemu - where the solves run (default: -gilu_backend, whose default is auto:
                                  cuda when built with CUDA and a device is present, else host)
. -pc_structilu_cuda_factor <true> - on cuda/cudaemu, factor on the device (else on the host and copy the factors)
. -pc_structilu_cuda_mma <true> - DoF >= 4: the block products of the device factorization on the FP64 tensor cores (one warp
                                  per grid point, m8n8k4 MMA through gilu_mma_m8n8k4_f64); needs tile points at most 32
. -pc_structilu_cuda_mapping tiles|lines - the grid-tier task mapping of the device factorization and solves: tiles (the
                                  default: a block per run of tile points of one level, launched by level, waiting for
                                  each neighbour's tile) or lines (the StructILU paper, Section 4.1: the affine transformation
                                  (x^,y^,z^) of the grid, a thread per line along z^, 2D blocks of lines of the x^y^-plane
                                  that step through their levels together and wait per level for their predecessor blocks)
. -pc_structilu_cuda_factor_pipeline <false> - with the lines mapping, the two-substage pipelined device factorization
                                  (the StructILU paper, Section 4.2.2): the part of a row's elimination that needs only rows two or
                                  more levels back (of its first two intra-row levels) runs one level step early, beside
                                  the rest of the rows of the previous level; the same factors (each element updated in
                                  the sequential order); DoF threads per line, so the tensor-core kernel is not used
. -pc_structilu_cuda_tile_points n - grid points per thread block of the device kernels; with lines: lines per block (0, the default: 128/dof; at most 512/dof)
. -pc_structilu_cuda_pipeline n - stages of the intra-row pipelined dot product of the device solves (the StructILU paper, Table 2):
                                  a row's off-diagonal products grouped by how many levels back their neighbour lies, each
                                  stage summed by its own thread group, so only the last stage waits for the previous level
                                  (0, the default: min(4, the levels the stencil spans); capped by them and by 512 threads)
. -pc_structilu_model_gpu h100|h200 - the GPU of the performance model -ksp_view prints on the cuda and cudaemu
                                  back-ends: h100 (H100 SXM: 3350 GB/s HBM3) or h200 (4800 GB/s HBM3e), both with
                                  1 us per dependent level and 55 GB/s host link (PCIe 5)
- -pc_structilu_model_bandwidth GB/s, -pc_structilu_model_latency us, -pc_structilu_model_link GB/s - override the model's figures

  Notes:
  The matrix is `MATAIJ` or `MATBAIJ`, in the natural (x fastest, interlaced DoF) ordering
  of a `DMDA`. The grid is taken from `-pc_structilu_grid`, else from the `DMDA` of the PC
  (`KSPSetDM()`) or of the matrix (`DMCreateMatrix()`), else inferred from the pattern. The
  stencil is the set of grid offsets present in the pattern: star, box, diamond or any
  other of width up to 3 and at most 125 points, in 1, 2 or 3 dimensions. Stencil positions
  absent from a row are kept at zero, so the factors are those of `PCILU` with zero fill
  on the same matrix: the same iterations. With k levels of fill the factorization runs on
  the ILU(k) fill stencil (ILU(1) of star-7 is diamond-13) with the positions of level above
  k kept at zero: the factors and iterations of `PCILU` with `-pc_factor_levels k`. With several DoF per point the DoF blocks are
  dense and the diagonal blocks are inverted (as `MATBAIJ`'s ILU(0) does).

  In parallel each process factors its local diagonal block, its `DMDA` box: block Jacobi
  with one block per process, as `-pc_type bjacobi -sub_pc_type ilu`. It is also usable as
  the sub-preconditioner of `PCBJACOBI` and `PCASM` (`-sub_pc_type structilu`), where the
  grid of each block is inferred from its pattern. A block with no rows (a process that owns
  none, an empty block of `PCBJACOBI`, a 0 x 0 matrix) has an empty factor, whatever its grid.

  A zero pivot sets the failed reason so that `KSPSolve()` returns `KSP_DIVERGED_PC_FAILED`;
  a NaN or Inf in the matrix (AIJ, BAIJ or `MATSTENCILGPU`) is an error at setup.

  `PCApplyTranspose()` (`KSPBICG`, `KSPSolveTranspose()`) solves (D + U)^T y = b, then L^T x = y (DoF blocks
  transposed) sequentially on the host with the host's factors, whatever the back-end: after a factorization on
  the device (cuda, cudaemu) the host factors the same values at the first transposed apply. `-ksp_view` says so
  once a transposed apply has run.

  Level: beginner

  References:
+ * - Hao Luo, Qianchao Zhu, Xiaochen Hao, Chunxi Lei, Chengdi Ma, Chenchen Zhang, Yun Liang and Chao Yang, StructILU:
      Dependency-Preserving Incomplete LU with Hierarchical Parallelism for Structured Grid PDEs on GPUs, Proceedings of
      the 2025 International Conference on Supercomputing (ICS '25), ACM, 2025, doi:10.1145/3721145.3725745 (the StructILU paper)
- * - Stanley C. Eisenstat, Efficient Implementation of a Class of Preconditioned Conjugate Gradient Methods, SIAM Journal
      on Scientific and Statistical Computing 2(1), 1981 (-pc_structilu_eisenstat)

  `-citations` lists the papers a run used, as BibTeX, at `PetscFinalize()`.

.seealso: `PCILU`, `PCStructILUSetGrid()`, `PCStructILUSetDof()`, `PCStructILUSetLevels()`, `PCStructILUSetZeroPivot()`, `PCStructILUGetStencil()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_StructILU(PC pc)
{
  PC_StructILU *ilu;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ilu));
  ilu->zeropivot  = 100.0 * PETSC_MACHINE_EPSILON;
  ilu->zerorow    = -1;
  ilu->cudafactor = PETSC_TRUE;
  ilu->cudamma    = PETSC_TRUE;
  pc->data        = (void *)ilu;

  pc->ops->setup          = PCSetUp_StructILU;
  pc->ops->apply          = PCApply_StructILU;
  pc->ops->applytranspose = PCApplyTranspose_StructILU;
  pc->ops->reset          = PCReset_StructILU;
  pc->ops->destroy        = PCDestroy_StructILU;
  pc->ops->view           = PCView_StructILU;
  pc->ops->setfromoptions = PCSetFromOptions_StructILU;
  pc->ops->presolve       = PCPreSolve_StructILU;
  pc->ops->postsolve      = PCPostSolve_StructILU;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetGrid_C", PCStructILUSetGrid_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetGrid_C", PCStructILUGetGrid_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDof_C", PCStructILUSetDof_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDof_C", PCStructILUGetDof_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetLevels_C", PCStructILUSetLevels_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetLevels_C", PCStructILUGetLevels_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetZeroPivot_C", PCStructILUSetZeroPivot_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetZeroPivot_C", PCStructILUGetZeroPivot_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetStencil_C", PCStructILUGetStencil_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetType_C", PCStructILUSetType_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetType_C", PCStructILUGetType_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetFactorPrecision_C", PCStructILUSetFactorPrecision_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetFactorPrecision_C", PCStructILUGetFactorPrecision_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetThreads_C", PCStructILUSetThreads_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetThreads_C", PCStructILUGetThreads_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetSchedule_C", PCStructILUSetSchedule_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetSchedule_C", PCStructILUGetSchedule_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetBackend_C", PCStructILUSetBackend_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetBackend_C", PCStructILUGetBackend_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDiagonalStorage_C", PCStructILUSetDiagonalStorage_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDiagonalStorage_C", PCStructILUGetDiagonalStorage_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetEisenstat_C", PCStructILUSetEisenstat_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetEisenstat_C", PCStructILUGetEisenstat_StructILU));
  PetscFunctionReturn(PETSC_SUCCESS);
}
