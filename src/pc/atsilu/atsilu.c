/*
   PCATSILU: ILU factors computed iteratively by alternating triangular solves (ATS-ILU(k), ATS-ILUT; the ATS-ILU paper of Tunnell and Boman),
   with Chow-Patel ParILU and ParILUT beside it (-pc_atsilu_algorithm parilu).

   The PC orchestrates: it takes the local diagonal block of the matrix (SEQAIJ/SEQBAIJ, or the MPI matrix's
   diagonal block), runs the sweeps (atsilu-factor.c, parilu.c; atsilu-block.c for BAIJ blocks; cuda/atsilu.cu
   on a device), and applies the factors with MatSolve() of a factor of MatSolverType gilu that it hands L and U to
   (MatGILUFactorTakeValues(): the solves, their plans, threads and device back-ends are gilu's) or with Jacobi sweeps
   on the triangular systems.
*/
#include <stdarg.h>
#include <petsc/private/pcimpl.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/sptrsv.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/stencilgpu.h>
#include <petscgilu/private/backend.h>
#include "atsilu.h"
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

const char *const PCATSILUTypes[]          = {"ilu", "ilut", "PCATSILUType", "PC_ATSILU_", NULL};
const char *const PCATSILUAlgorithms[]     = {"ats", "parilu", "PCATSILUAlgorithm", "PC_ATSILU_ALGORITHM_", NULL};
const char *const PCATSILUPatterns[]       = {"power", "symbolic", "diagonal", "PCATSILUPattern", "PC_ATSILU_PATTERN_", NULL};
const char *const PCATSILUInitialGuesses[] = {"triu", "diagonal", "PCATSILUInitialGuess", "PC_ATSILU_INITIAL_GUESS_", NULL};
const char *const PCATSILUTriSolves[]      = {"exact", "jacobi", "PCATSILUTriSolve", "PC_ATSILU_TRISOLVE_", NULL};

typedef struct {
  /* options */
  PCATSILUType           type;           /* -pc_atsilu_type */
  PCATSILUAlgorithm      algorithm;      /* -pc_atsilu_algorithm */
  PetscInt               levels;         /* -pc_atsilu_levels */
  PCATSILUPattern        pattern;        /* -pc_atsilu_pattern */
  PetscInt               sweeps;         /* -pc_atsilu_sweeps: most sweeps (update cycles for ILUT) */
  PetscReal              tol;            /* -pc_atsilu_tol: stop when ||A - LU|| / ||A|| on the pattern is below (0: never) */
  PetscReal              fill;           /* -pc_atsilu_fill: ILUT's nnz(L) + nnz(U) at most fill nnz(A) */
  PetscInt               threads;        /* -pc_atsilu_threads, 0: GILUGetNumThreads() */
  PCATSILUTriSolve       trisolve;       /* -pc_atsilu_trisolve */
  PetscInt               trisweeps;      /* -pc_atsilu_trisolve_sweeps */
  PetscBool              scaling;        /* -pc_atsilu_jacobi_scaling */
  PCATSILUInitialGuess   guess;          /* -pc_atsilu_initial_guess */
  PetscBool              usenew;         /* -pc_atsilu_use_new */
  PetscBool              updateresidual; /* -pc_atsilu_update_residual */
  PetscBool              residualrhs;    /* -pc_atsilu_residual_rhs */
  PetscBool              residuallhs;    /* -pc_atsilu_residual_lhs */
  PetscInt               before, after;  /* -pc_atsilu_sweeps_before, -pc_atsilu_sweeps_after */
  PetscGILUBackendType   backend;        /* -pc_atsilu_backend; auto: -gilu_backend's */
  PetscBool              backendset;     /* the PC's own option or setter was used */
  PetscGILUBackendType   device;         /* the resolved back-end of the last setup (host, cuda or cudaemu) */
  const ATSILUDeviceOps *devops;         /* its kernels (NULL: host) */
  PetscBool              ilutfallback;   /* ilut with a device back-end from -gilu_backend: the sweeps ran on the host */
  /* set up */
  ATSFactors      F;
  ATSBlockFactors B;     /* SEQBAIJ, fixed pattern */
  PetscBool       block; /* B is used */
  PetscInt        bs;
  ATSCSR          L, U; /* the factors of the Jacobi apply: L unit (strictly lower), U with its diagonal first (the exact apply: until handed over) */
  PetscInt        nnzL, nnzU;
  Mat             fact;        /* the exact apply: a factor of MatSolverType gilu given L and U (MatGILUFactorTakeValues()); kept across setups, so
                                  the engine's analysis is redone only where the pattern changed; made again when the threads change */
  PetscInt        factthreads; /* the threads it was made with */
  Vec             xl, yl;      /* a parallel PC's vectors' local parts, as the factor's (sequential) vectors (NULL: one process) */
  ATSCSR          Lt, Ut;      /* the Jacobi sweeps' transposed factors, built at the first PCApplyTranspose() after a setup */
  PetscScalar    *work, *work2;
  PetscReal      *hist; /* residual after sweep s = 0 (the initial guess), 1, ..., nsweeps */
  PetscInt        nsweeps, nnzA, nnzS, nthreads, zerorow;
  ATSFailure      failure;   /* where the zero pivot (zerorow) was met */
  PetscInt        failsweep; /* ATS_FAIL_SWEEP, ATS_FAIL_NONFINITE: in which sweep (-1: on the device, not known) */
  PetscBool       converted, analyzed;
  PetscBool       matapplied; /* PCMatApply() ran since the setup: the view says how */
} PC_ATSILU;

/* what a setup makes, the gilu factor apart (kept for the next setup) */
static PetscErrorCode PCATSILUResetSetUp(PC_ATSILU *ats)
{
  PetscFunctionBegin;
  PetscCall(ATSFactorsReset(&ats->F));
  PetscCall(ATSBlockFactorsReset(&ats->B));
  PetscCall(ATSCSRReset(&ats->L));
  PetscCall(ATSCSRReset(&ats->U));
  PetscCall(ATSCSRReset(&ats->Lt));
  PetscCall(ATSCSRReset(&ats->Ut));
  PetscCall(PetscFree2(ats->work, ats->work2));
  PetscCall(PetscFree(ats->hist));
  PetscCall(VecDestroy(&ats->xl));
  PetscCall(VecDestroy(&ats->yl));
  ats->analyzed   = PETSC_FALSE;
  ats->matapplied = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_ATSILU(PC pc)
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCATSILUResetSetUp(ats));
  PetscCall(MatDestroy(&ats->fact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The local matrix as SEQAIJ: the matrix, MPIAIJ's diagonal block, or BAIJ converted (*conv to destroy); with
   allowblock a SEQBAIJ block is returned as it is (*isblock) */
static PetscErrorCode PCATSILUGetLocalAIJ(PC pc, PetscBool allowblock, Mat *Aloc, Mat *conv, PetscBool *isblock)
{
  Mat         A, D;
  PetscMPIInt size;
  PetscBool   isaij, isbaij;

  PetscFunctionBegin;
  *conv    = NULL;
  *isblock = PETSC_FALSE;
  PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCATSILU", &A));
  D = A;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) {
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &isaij, MATMPIAIJ, MATMPIBAIJ, ""));
    PetscCheck(isaij, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCATSILU factors the local diagonal block of MPIAIJ or MPIBAIJ matrices, not of type %s: use -mat_type aij (or -dm_mat_type aij), or PCATSILU as the sub-PC of -%spc_type bjacobi",
               ((PetscObject)A)->type_name, GILUPrefix(pc));
    PetscCall(MatGetDiagonalBlock(A, &D));
  }
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)D, MATSEQAIJ, &isaij));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)D, &isbaij, MATSEQBAIJ, MATSEQSBAIJ, ""));
  PetscCheck(isaij || isbaij, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCATSILU needs an AIJ matrix (or BAIJ, which it converts), not %s: use -mat_type aij (or -dm_mat_type aij)", ((PetscObject)D)->type_name);
  if (isbaij && allowblock) PetscCall(PetscObjectBaseTypeCompare((PetscObject)D, MATSEQBAIJ, isblock));
  if (isbaij && !*isblock) {
    PetscCall(MatConvert(D, MATSEQAIJ, MAT_INITIAL_MATRIX, conv));
    D = *conv;
  }
  *Aloc = D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The first zero pivot of PETSc's ILU(k) of the local block (k = -pc_atsilu_levels, natural ordering, PCILU's zero-pivot
  tolerance), or -1 if it has none: what the sweeps approach. Only when the sweeps met a zero pivot, to tell it from one
  of their own (-2: PETSc has no ILU for this matrix type).
*/
static PetscErrorCode PCATSILUReferencePivot(PC pc, PetscInt *zrow)
{
  PC_ATSILU     *ats = (PC_ATSILU *)pc->data;
  Mat            A, F;
  IS             rperm, cperm;
  MatFactorInfo  info;
  MatFactorError err;
  PetscMPIInt    size;
  PetscBool      avail;
  PetscReal      pivot;

  PetscFunctionBegin;
  *zrow = -2;
  PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCATSILU", &A));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatGetDiagonalBlock(A, &A));
  PetscCall(MatGetFactorAvailable(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &avail));
  if (!avail) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &F));
  PetscCall(MatSetErrorIfFailure(A, PETSC_FALSE)); /* a zero pivot is what is looked for (PCSetUp() gave A the PC's flag) */
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &rperm, &cperm));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels    = (PetscReal)ats->levels;
  info.fill      = 1.0;
  info.zeropivot = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCall(MatILUFactorSymbolic(F, A, rperm, cperm, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscCall(MatSetErrorIfFailure(A, pc->erroriffailure));
  PetscCall(MatFactorGetError(F, &err));
  *zrow = -1;
  if (err != MAT_FACTOR_NOERROR) PetscCall(MatFactorGetErrorZeroPivot(F, &pivot, zrow));
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The factors failed (ats->failure, ats->failsweep): in the local (block) row ats->zerorow the sweeps divided by a zero
  diagonal entry of L or U, or the final factors have a zero pivot, or the residual is not finite. A zero diagonal
  entry a_rr is no zero pivot of ILU(k) (u_rr = a_rr - sum_{k<r} l_rk u_kr), which the sweeps only approach: the
  message says what was zero, A's diagonal entry there, and whether PETSc's ILU(k) of the block has a zero pivot too
  (then the matrix needs a shift or another preconditioner; else the sweeps met a zero of their own).
*/
static PetscErrorCode PCATSILUFailed(PC pc, PetscInt row)
{
  PC_ATSILU  *ats = (PC_ATSILU *)pc->data;
  const char *pre = GILUPrefix(pc);
  char        msg[1024], what[256], sweep[64] = "a sweep (on the device)", ref[512];
  PetscScalar arr = 0;
  PetscInt    rstart, g, zref;
  Mat         A;

  PetscFunctionBegin;
  ats->zerorow = row;
  if (ats->failure == ATS_FAIL_NONFINITE) {
    if (ats->failsweep >= 0) PetscCall(PetscSNPrintf(sweep, sizeof(sweep), "sweep %" PetscInt_FMT, ats->failsweep));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "The factors of PCATSILU are not finite after %s (||A - LU|| is Inf or NaN: the sweeps diverged): fewer sweeps (-%spc_atsilu_sweeps), -%spc_atsilu_jacobi_scaling, or PETSc's ILU (-%spc_type ilu)", sweep, pre, pre, pre));
  } else {
    PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCATSILU", &A)); /* (MATSTENCILGPU has no MatGetValues()) */
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    g = rstart + row * ats->bs; /* the first row of the block (AIJ: bs 1) */
    PetscCall(MatGetValues(A, 1, &g, 1, &g, &arr));
    if (ats->failsweep == 0) PetscCall(PetscSNPrintf(sweep, sizeof(sweep), "the starting factors"));
    else if (ats->failsweep > 0) PetscCall(PetscSNPrintf(sweep, sizeof(sweep), "sweep %" PetscInt_FMT, ats->failsweep));
    if (ats->failure == ATS_FAIL_SWEEP && ats->failsweep == 0) PetscCall(PetscSNPrintf(what, sizeof(what), "the starting factors have a zero (singular) diagonal %s there", ats->bs > 1 ? "block" : "entry"));
    else if (ats->failure == ATS_FAIL_SWEEP) PetscCall(PetscSNPrintf(what, sizeof(what), "%s divided by a zero diagonal %s of L or U there", sweep, ats->bs > 1 ? "block (singular)" : "entry"));
    else PetscCall(PetscSNPrintf(what, sizeof(what), "the pivot of the factors after %" PetscInt_FMT " sweeps is zero or not finite", ats->nsweeps));
    PetscCall(PCATSILUReferencePivot(pc, &zref));
    if (zref == -1)
      PetscCall(PetscSNPrintf(ref, sizeof(ref), "PETSc's ILU(%" PetscInt_FMT ") of the block, which the sweeps approach, has no zero pivot: the sweeps met a zero of their own; start from -%spc_atsilu_initial_guess triu, more sweeps (-%spc_atsilu_sweeps), or PETSc's ILU (-%spc_type ilu)",
                              ats->levels, pre, pre, pre));
    else if (zref >= 0)
      PetscCall(PetscSNPrintf(ref, sizeof(ref), "PETSc's ILU(%" PetscInt_FMT ") of the block has its first zero pivot in row %" PetscInt_FMT ": the matrix needs a diagonal shift (PETSc's ILU with -%spc_factor_shift_type nonzero) or another preconditioner",
                              ats->levels, zref, pre));
    else PetscCall(PetscSNPrintf(ref, sizeof(ref), "ILU(0)'s pivot there may not be zero: try PETSc's ILU (-%spc_type ilu)", pre));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "Zero pivot in local %srow %" PetscInt_FMT " of PCATSILU: %s (A's diagonal entry there is %g). %s", ats->bs > 1 ? "block " : "", row, what, (double)PetscRealPart(arr), ref));
  }
  PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "%s", msg);
  PetscCall(PetscInfo(pc, "%s\n", msg));
  PetscCall(PCSetFailedReason(pc, PC_FACTOR_NUMERIC_ZEROPIVOT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sweep s (0: the starting factors or ilut's sweeps before) met a zero pivot, or the residual is not finite */
static void PCATSILUNoteFailure(PC_ATSILU *ats, PetscInt zerorow, PetscReal res, PetscInt s)
{
  if (ats->failure != ATS_FAIL_NONE) return;
  if (zerorow >= 0) ats->failure = ATS_FAIL_SWEEP;
  else if (PetscIsInfOrNanReal(res)) ats->failure = ATS_FAIL_NONFINITE;
  ats->failsweep = s;
}

static PetscErrorCode PCATSILUOneSweep(PC_ATSILU *ats)
{
  PetscBool ilut = (PetscBool)(ats->type == PC_ATSILU_ILUT);

  PetscFunctionBegin;
  if (ats->algorithm == PC_ATSILU_ALGORITHM_ATS) {
    if (ilut) PetscCall(ATSFactorsSweepILUT(&ats->F, ats->after));
    else PetscCall(ATSFactorsSweep(&ats->F));
  } else {
    if (ilut) PetscCall(ParILUTSweep(&ats->F));
    else PetscCall(ParILUSweep(&ats->F));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the fixed-pattern sweeps by the CUDA kernels (cuda/atsilu.cu) on a GPU or in the emulation */
static PetscErrorCode PCATSILUSweepsDevice(PC pc, Mat A)
{
  PC_ATSILU *ats    = (PC_ATSILU *)pc->data;
  PetscBool  parilu = (PetscBool)(ats->algorithm == PC_ATSILU_ALGORITHM_PARILU);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GILU_ATSILUSweep, pc, A, 0, 0));
  PetscCall(ats->devops->sweeps(&ats->F, parilu, ats->sweeps, ats->tol, ats->hist, &ats->nsweeps));
  PetscCall(PetscLogEventEnd(GILU_ATSILUSweep, pc, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The applied factors' counts; with the exact apply, L and U handed to the gilu factor (made at the first setup, with the
  PC's prefix and options: -mat_gilu_trisolve* select its engine), which takes their arrays as its storage: the factors
  are never held twice. A zero pivot
  the factor finds (a singular diagonal block) is *zerorow.
*/
static PetscErrorCode PCATSILUSetUpApply(PC pc, Mat A, PetscInt n, PetscInt bs, PetscInt *zerorow)
{
  PC_ATSILU     *ats = (PC_ATSILU *)pc->data;
  MatFactorError err;
  PetscReal      pivot;

  PetscFunctionBegin;
  ats->nnzL = ats->L.i[n];
  ats->nnzU = ats->U.i[n];
  if (ats->trisolve != PC_ATSILU_TRISOLVE_EXACT) PetscFunctionReturn(PETSC_SUCCESS);
  if (ats->fact && ats->factthreads != ats->nthreads) PetscCall(MatDestroy(&ats->fact));
  if (!ats->fact) {
    const char *prefix;

    PetscCall(MatGetFactor(A, MATSOLVERGILU, MAT_FACTOR_ILU, &ats->fact));
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(PetscObjectSetOptions((PetscObject)ats->fact, ((PetscObject)pc)->options));
    PetscCall(MatSetOptionsPrefix(ats->fact, prefix));
    PetscCall(MatGILUSetTriSolveThreads(ats->fact, ats->nthreads)); /* the default of -mat_gilu_trisolve_threads */
    ats->factthreads = ats->nthreads;
  }
  PetscCheck(!ats->L.borrowed && !ats->U.borrowed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The factors to hand over are borrowed");
  PetscCall(MatGILUFactorTakeValues(ats->fact, n, bs, &ats->L.i, &ats->L.j, &ats->L.a, &ats->U.i, &ats->U.j, &ats->U.a, "PCATSILU's sweeps")); /* the factor's storage now */
  PetscCall(MatFactorGetError(ats->fact, &err));
  if (err) PetscCall(MatFactorGetErrorZeroPivot(ats->fact, &pivot, zerorow));
  PetscCall(ATSCSRReset(&ats->L));
  PetscCall(ATSCSRReset(&ats->U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SEQBAIJ with the fixed pattern: the block sweeps (atsilu-block.c), whose limit is PETSc's block ILU */
static PetscErrorCode PCSetUpBlock_ATSILU(PC pc, Mat A)
{
  PC_ATSILU       *ats    = (PC_ATSILU *)pc->data;
  ATSBlockFactors *B      = &ats->B;
  PetscBool        parilu = (PetscBool)(ats->algorithm == PC_ATSILU_ALGORITHM_PARILU);
  PetscInt         n, bs;

  PetscFunctionBegin;
  PetscCall(ATSBlockFactorsCreate(A, ats->pattern, ats->levels, ats->scaling, ats->nthreads, ats->guess, B));
  B->usenew     = ats->usenew;
  n             = B->n;
  bs            = B->bs;
  ats->bs       = bs;
  ats->nnzA     = B->A.i[n];
  ats->nnzS     = B->S.i[n];
  ats->analyzed = PETSC_TRUE;
  ats->nsweeps  = 0;
  PetscCall(PetscMalloc1(ats->sweeps + 1, &ats->hist));
  if (B->zerorow < 0) PetscCall(ATSBlockFactorsResidual(B, &ats->hist[0]));
  PCATSILUNoteFailure(ats, B->zerorow, 0, 0);
  for (PetscInt s = 1; s <= ats->sweeps && B->zerorow < 0; s++) {
    PetscCall(PetscLogEventBegin(GILU_ATSILUSweep, pc, A, 0, 0));
    PetscCall(ATSBlockFactorsSweep(B, parilu));
    PetscCall(PetscLogEventEnd(GILU_ATSILUSweep, pc, A, 0, 0));
    PCATSILUNoteFailure(ats, B->zerorow, 0, s);
    if (B->zerorow >= 0) break;
    PetscCall(ATSBlockFactorsResidual(B, &ats->hist[s]));
    ats->nsweeps = s;
    PCATSILUNoteFailure(ats, -1, ats->hist[s], s);
    if (PetscIsInfOrNanReal(ats->hist[s]) && B->zerorow < 0) B->zerorow = 0;
    if (ats->tol > 0 && ats->hist[s] <= ats->tol) break;
  }
  if (B->zerorow < 0 && !ats->usenew && !parilu && ats->nsweeps > 0) { /* see PCSetUp_ATSILU() */
    PetscCall(ATSBlockFactorsFinishU(B));
    PetscCall(ATSBlockFactorsResidual(B, &ats->hist[ats->nsweeps]));
  }
  if (B->zerorow < 0) PetscCall(ATSBlockFactorsExport(B, &ats->L, &ats->U, &B->zerorow));
  if (B->zerorow >= 0 && ats->failure == ATS_FAIL_NONE) ats->failure = ATS_FAIL_FACTORS;
  if (B->zerorow < 0) {
    PetscCall(PCATSILUSetUpApply(pc, A, n, bs, &B->zerorow));
    if (B->zerorow >= 0) ats->failure = ATS_FAIL_FACTORS;
  }
  ats->zerorow = B->zerorow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The back-end of this setup: the PC's own (-pc_atsilu_backend), else -gilu_backend's, resolved. ilut has no device
   sweeps: asked for by the PC's own option it is an error, from the global default (or auto) the host runs them. */
static PetscErrorCode PCATSILUSetUpBackend(PC pc)
{
  PC_ATSILU           *ats  = (PC_ATSILU *)pc->data;
  PetscGILUBackendType want = ats->backend;

  PetscFunctionBegin;
  if (!ats->backendset) PetscCall(PetscGILUGetBackend(&want));
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)pc), want, &ats->device));
  ats->ilutfallback = PETSC_FALSE;
  if (ats->type == PC_ATSILU_ILUT && ats->device != PETSCGILU_BACKEND_HOST) {
    PetscCheck(!ats->backendset, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_atsilu_backend %s runs the fixed-pattern sweeps only: use -%spc_atsilu_type ilu, or -%spc_atsilu_backend host for ilut", GILUPrefix(pc),
               PetscGILUBackendTypes[ats->device], GILUPrefix(pc), GILUPrefix(pc));
    ats->device       = PETSCGILU_BACKEND_HOST;
    ats->ilutfallback = PETSC_TRUE;
  }
  GILUBackendGetDeviceOps(ats->device, ATSILUDeviceGetOps, &ats->devops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_ATSILU(PC pc)
{
  PC_ATSILU  *ats = (PC_ATSILU *)pc->data;
  ATSFactors *F   = &ats->F;
  Mat         A, conv;
  PetscInt    n, nl = 0, nu = 0;
  PetscBool   block;

  PetscFunctionBegin;
  pc->failedreason = PC_NOERROR; /* as PCILU and PCICC: a failure is of the factors it was found in, KSPSetUp() reads it */
  PetscCall(GILUMatCheckSquare(pc->pmat));
  if (ats->algorithm == PC_ATSILU_ALGORITHM_ATS) PetscCall(PetscGILUCitationsRegister(GILU_CITE_ATSILU)); /* ParILU is Chow and Patel's */
  PetscCall(PCATSILUSetUpBackend(pc));
  PetscCall(PCATSILUGetLocalAIJ(pc, (PetscBool)(ats->type == PC_ATSILU_ILU && ats->device == PETSCGILU_BACKEND_HOST && ats->trisolve == PC_ATSILU_TRISOLVE_EXACT), &A, &conv, &block));
  ats->converted = (PetscBool)(conv != NULL);
  PetscCall(PCATSILUResetSetUp(ats));
  ats->zerorow   = -1;
  ats->failure   = ATS_FAIL_NONE;
  ats->failsweep = -1;
  ats->bs        = 1;
  ats->block     = block;
  PetscCall(PetscLogEventBegin(GILU_ATSILUSetUp, pc, A, 0, 0));
  PetscCall(GILUClampThreads(ats->threads, &ats->nthreads)); /* the rule of every component: at most GILUGetMaxThreads() */
  if (block) {
    PetscCall(PCSetUpBlock_ATSILU(pc, A));
    PetscCall(PetscLogEventEnd(GILU_ATSILUSetUp, pc, A, 0, 0));
    if (ats->zerorow >= 0) PetscCall(PCATSILUFailed(pc, ats->zerorow));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ATSFactorsCreate(A, ats->pattern, ats->levels, ats->scaling, ats->nthreads, (PetscBool)(ats->type != PC_ATSILU_ILU), F));
  n                 = F->n;
  F->usenew         = ats->usenew;
  F->updateresidual = ats->updateresidual;
  F->residualrhs    = ats->residualrhs;
  F->residuallhs    = ats->residuallhs;
  ats->nnzA         = F->A.i[n];
  ats->nnzS         = F->nnzS;
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = F->A.i[r]; p < F->A.i[r + 1]; p++) {
      if (F->A.j[p] < r) nl++;
      if (F->A.j[p] > r) nu++;
    }
  }
  /* diagonals included: nnz(L) (its diagonal not counted) + nnz(U) <= fill (nnz(A) - n) + n */
  F->lmax = (PetscInt)(ats->fill * nl) + n;
  F->umax = (PetscInt)(ats->fill * nu) + n;
  PetscCall(PetscMalloc1(ats->sweeps + 1, &ats->hist));
  ats->analyzed = PETSC_TRUE;
  ats->nsweeps  = 0;
  if (F->zerorow < 0) {
    PetscCall(ATSFactorsInitialGuess(F, ats->guess));
    PetscCall(ATSFactorsResidual(F, &ats->hist[0]));
  }
  PCATSILUNoteFailure(ats, F->zerorow, 0, 0);
  if (ats->type == PC_ATSILU_ILU) { /* the fixed-pattern sweeps never read the starting pattern again: L and U^T hold it */
    PetscCall(ATSCSRReset(&F->S));
    PetscCall(ATSCSRReset(&F->St));
  }
  if (ats->type == PC_ATSILU_ILUT) {
    for (PetscInt s = 0; s < ats->before && F->zerorow < 0; s++) {
      if (ats->algorithm == PC_ATSILU_ALGORITHM_ATS) PetscCall(ATSFactorsSweep(F));
      else PetscCall(ParILUSweep(F));
      PCATSILUNoteFailure(ats, F->zerorow, 0, 0);
    }
  }
  if (ats->device != PETSCGILU_BACKEND_HOST && F->zerorow < 0) {
    PetscCall(PCATSILUSweepsDevice(pc, A));
    PCATSILUNoteFailure(ats, F->zerorow, ats->hist[ats->nsweeps], -1); /* (the device's sweeps do not say which met it) */
  }
  for (PetscInt s = 1; s <= ats->sweeps && F->zerorow < 0 && ats->device == PETSCGILU_BACKEND_HOST; s++) {
    PetscCall(PetscLogEventBegin(GILU_ATSILUSweep, pc, A, 0, 0));
    PetscCall(PCATSILUOneSweep(ats));
    PetscCall(PetscLogEventEnd(GILU_ATSILUSweep, pc, A, 0, 0));
    PetscCall(ATSFactorsResidual(F, &ats->hist[s]));
    ats->nsweeps = s;
    PCATSILUNoteFailure(ats, F->zerorow, ats->hist[s], s);
    if (PetscIsInfOrNanReal(ats->hist[s]) && F->zerorow < 0) F->zerorow = 0;
    if (ats->tol > 0 && ats->hist[s] <= ats->tol) break;
  }
  if (F->zerorow < 0 && !ats->usenew && ats->algorithm == PC_ATSILU_ALGORITHM_ATS && ats->nsweeps > 0) {
    /* Without USE_NEW, L^(k+1) = f(U^(k)) and U^(k+1) = g(L^(k)) are two interleaved sequences whose diagonal
       scalings differ (L's diagonal is free in ATS): one last U half-step from the final L makes a consistent pair */
    F->usenew = PETSC_TRUE;
    (void)ATSSolveRows(&F->Ut, NULL, F->Ut.a, &F->L, &F->At, NULL, NULL, PETSC_FALSE, F->nthreads);
    F->usenew = PETSC_FALSE;
    PetscCall(ATSFactorsResidual(F, &ats->hist[ats->nsweeps]));
  }
  /* Memory: the fixed-pattern sweeps hold L, U^T, A^T's values on U^T's pattern and the scaling (A is the user's
     matrix, read in place); ilut also all of A^T, its starting pattern and the candidates' work. The export reads
     only L, U^T and the scaling, so everything else goes first; it makes the applied factors in the storage of L and
     U^T, and all of F goes after it (F.n stays for the view and the Jacobi apply). Nothing is kept for a new setup:
     it rebuilds U^T's pattern and A^T's values from A (one pass over A), which costs less than keeping them. */
  PetscCall(ATSFactorsReleaseWork(F));
  if (F->zerorow < 0) {
    PetscCall(ATSFactorsExport(F, &ats->L, &ats->U));
    for (PetscInt r = 0; r < n && F->zerorow < 0; r++)
      if (ats->U.a[ats->U.i[r]] == 0.0 || PetscIsInfOrNanScalar(ats->U.a[ats->U.i[r]])) F->zerorow = r;
    if (F->zerorow >= 0) ats->failure = ATS_FAIL_FACTORS;
  }
  PetscCall(ATSFactorsReset(F));
  if (ats->trisolve == PC_ATSILU_TRISOLVE_JACOBI) PetscCall(PetscMalloc2(n, &ats->work, n, &ats->work2)); /* the Jacobi apply's (the exact one: the factor's) */
  if (F->zerorow < 0) PetscCall(PCATSILUSetUpApply(pc, A, n, 1, &F->zerorow));                            /* (U's pivots checked above: the factor finds none) */
  PetscCall(PetscLogEventEnd(GILU_ATSILUSetUp, pc, A, 0, 0));
  PetscCall(MatDestroy(&conv));
  if (F->zerorow >= 0) PetscCall(PCATSILUFailed(pc, F->zerorow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m Jacobi sweeps on T x = b from x = D^{-1} b (unit: D = I), T lower or upper; the diagonal is the entry in column r; w: work */
static PetscErrorCode PCATSILUJacobiTri(const ATSCSR *T, PetscBool unit, PetscInt m, PetscInt nt, const PetscScalar *b, PetscScalar *x, PetscScalar *w)
{
  const PetscInt n = T->n;

  PetscFunctionBegin;
  (void)nt;
  for (PetscInt r = 0; r < n; r++) {
    PetscScalar d = 1;

    if (!unit)
      for (PetscInt p = T->i[r]; p < T->i[r + 1]; p++)
        if (T->j[p] == r) d = T->a[p];
    x[r] = unit ? b[r] : b[r] / d;
  }
  for (PetscInt s = 0; s < m; s++) {
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (PetscInt r = 0; r < n; r++) {
      PetscScalar v = b[r], d = 1;

      for (PetscInt p = T->i[r]; p < T->i[r + 1]; p++) {
        if (T->j[p] != r) v -= T->a[p] * x[T->j[p]];
        else d = T->a[p];
      }
      w[r] = unit ? v : v / d;
    }
    PetscCall(PetscArraycpy(x, w, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m Jacobi sweeps on L y = b (unit L) and U x = y, from y = b and x = D^{-1} y; transposed: U^T y = b, then L^T x = y, the
   exact transpose of the same linear operator (sum_k (-D^{-1} U')^k D^{-1} transposed is sum_k (-D^{-1} U'^T)^k D^{-1}) */
static PetscErrorCode PCATSILUApplyJacobi(PC_ATSILU *ats, PetscBool transpose, const PetscScalar *b, PetscScalar *x)
{
  PetscScalar *y = ats->work, *t = ats->work2;

  PetscFunctionBegin;
  if (transpose) {
    if (!ats->Ut.i) PetscCall(ATSCSRTranspose(&ats->U, &ats->Ut));
    if (!ats->Lt.i) PetscCall(ATSCSRTranspose(&ats->L, &ats->Lt));
    PetscCall(PCATSILUJacobiTri(&ats->Ut, PETSC_FALSE, ats->trisweeps, ats->nthreads, b, y, t));
    PetscCall(PCATSILUJacobiTri(&ats->Lt, PETSC_TRUE, ats->trisweeps, ats->nthreads, y, x, t));
  } else {
    PetscCall(PCATSILUJacobiTri(&ats->L, PETSC_TRUE, ats->trisweeps, ats->nthreads, b, y, t));
    PetscCall(PCATSILUJacobiTri(&ats->U, PETSC_FALSE, ats->trisweeps, ats->nthreads, y, x, t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-1} x or (LU)^{-T} x by the gilu factor: on several processes (block Jacobi, each its diagonal block) on the
   vectors' local parts, which keep their memory (a CUDA vector's device array: VecGetLocalVector()) */
static PetscErrorCode PCATSILUSolve(PC_ATSILU *ats, PetscBool transpose, Vec x, Vec y)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)x), &size));
  if (size == 1) {
    if (transpose) PetscCall(MatSolveTranspose(ats->fact, x, y));
    else PetscCall(MatSolve(ats->fact, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ats->xl) {
    PetscCall(VecCreateLocalVector(x, &ats->xl));
    PetscCall(VecCreateLocalVector(y, &ats->yl));
  }
  PetscCall(VecGetLocalVectorRead(x, ats->xl));
  PetscCall(VecGetLocalVector(y, ats->yl));
  if (transpose) PetscCall(MatSolveTranspose(ats->fact, ats->xl, ats->yl));
  else PetscCall(MatSolve(ats->fact, ats->xl, ats->yl));
  PetscCall(VecRestoreLocalVector(y, ats->yl));
  PetscCall(VecRestoreLocalVectorRead(x, ats->xl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the applies log their event without the PC: a process whose factorization failed returns before it, and an event
   of a parallel object synchronizes its processes under -log_sync (-petsc_ci); see PCApply_StructILU() */
static PetscErrorCode PCApply_ATSILU(PC pc, Vec x, Vec y)
{
  PC_ATSILU         *ats = (PC_ATSILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ats->zerorow >= 0) { /* the factorization failed: let the Krylov method see it */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_ATSILUApply, 0, x, y, 0));
  if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT) { /* the gilu factor's solves (on its engine's back-end, the vectors' device arrays there) */
    PetscCall(PCATSILUSolve(ats, PETSC_FALSE, x, y));
    PetscCall(PetscLogEventEnd(GILU_ATSILUApply, 0, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(PCATSILUApplyJacobi(ats, PETSC_FALSE, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_ATSILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-T} x: U^T then L^T, by MatSolveTranspose() of the gilu factor or the Jacobi sweeps on the transposed factors */
static PetscErrorCode PCApplyTranspose_ATSILU(PC pc, Vec x, Vec y)
{
  PC_ATSILU         *ats = (PC_ATSILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ats->zerorow >= 0) {
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_ATSILUApply, 0, x, y, 0));
  if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT) {
    PetscCall(PCATSILUSolve(ats, PETSC_TRUE, x, y));
    PetscCall(PetscLogEventEnd(GILU_ATSILUApply, 0, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(PCATSILUApplyJacobi(ats, PETSC_TRUE, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_ATSILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Y = (LU)^{-1} X or (LU)^{-T} X for the columns of a dense block (PCMatApply(), KSPMatSolve()), each column bitwise what
  PCApply() (PCApplyTranspose()) gives it, in one call and one event: the exact apply by MatMatSolve() of the gilu factor
  on the blocks' local parts (each column bitwise what MatSolve() gives it; on the host up to 8 columns at once, each
  triangle's values read once per group: GILUTriSolveMultiple(); on a device back-end all columns in each launch:
  GILUTriSolveDeviceMultiple()), the Jacobi apply on each column's part of the local arrays. A failed factorization flags every column, as PCApply() flags its vector.
*/
static PetscErrorCode PCMatApply_ATSILU_Private(PC pc, PetscBool transpose, Mat B, Mat X)
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;
  Mat        Bl, Xl;
  PetscInt   N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &N));
  if (ats->zerorow >= 0) {
    for (PetscInt c = 0; c < N; c++) {
      Vec x;

      PetscCall(MatDenseGetColumnVecWrite(X, c, &x));
      PetscCall(VecFlag(x, 1));
      PetscCall(MatDenseRestoreColumnVecWrite(X, c, &x));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_ATSILUApply, 0, B, X, 0));
  PetscCall(MatDenseGetLocalMatrix(B, &Bl)); /* a MATSEQDENSE itself; of a MATMPIDENSE, this process's rows */
  PetscCall(MatDenseGetLocalMatrix(X, &Xl));
  if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT) {
    if (transpose) PetscCall(MatMatSolveTranspose(ats->fact, Bl, Xl));
    else PetscCall(MatMatSolve(ats->fact, Bl, Xl));
  } else {
    const PetscScalar *ba;
    PetscScalar       *xa;
    PetscInt           ldb, ldx;

    PetscCall(MatDenseGetLDA(Bl, &ldb));
    PetscCall(MatDenseGetLDA(Xl, &ldx));
    PetscCall(MatDenseGetArrayRead(Bl, &ba));
    PetscCall(MatDenseGetArrayWrite(Xl, &xa));
    for (PetscInt c = 0; c < N; c++) PetscCall(PCATSILUApplyJacobi(ats, transpose, ba + (size_t)c * ldb, xa + (size_t)c * ldx));
    PetscCall(MatDenseRestoreArrayWrite(Xl, &xa));
    PetscCall(MatDenseRestoreArrayRead(Bl, &ba));
  }
  ats->matapplied = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(GILU_ATSILUApply, 0, B, X, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCMatApply_ATSILU(PC pc, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(PCMatApply_ATSILU_Private(pc, PETSC_FALSE, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PETSC_VERSION_GE(3, 24, 0) /* PCMatApplyTranspose() */
static PetscErrorCode PCMatApplyTranspose_ATSILU(PC pc, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(PCMatApply_ATSILU_Private(pc, PETSC_TRUE, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PCView_ATSILU(PC pc, PetscViewer viewer)
{
  PC_ATSILU  *ats = (PC_ATSILU *)pc->data;
  PetscBool   ascii;
  PetscMPIInt size;
  const char *alg;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (ats->algorithm == PC_ATSILU_ALGORITHM_ATS) alg = ats->type == PC_ATSILU_ILU ? "ATS-ILU (alternating triangular solves, Algorithm 6)" : "ATS-ILUT (alternating triangular solves with thresholding, Algorithm 7)";
  else alg = ats->type == PC_ATSILU_ILU ? "ParILU (Chow-Patel fixed-point sweeps, Jacobi order)" : "ParILUT (Anzt-Chow-Dongarra, Jacobi-order sweeps)";
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s\n", alg));
  if (ats->pattern == PC_ATSILU_PATTERN_POWER) PetscCall(PetscViewerASCIIPrintf(viewer, "  starting pattern: levels %" PetscInt_FMT ", the pattern of A^%" PetscInt_FMT "\n", ats->levels, ats->levels + 1));
  else if (ats->pattern == PC_ATSILU_PATTERN_SYMBOLIC) PetscCall(PetscViewerASCIIPrintf(viewer, "  starting pattern: levels %" PetscInt_FMT ", the symbolic ILU(%" PetscInt_FMT ") pattern\n", ats->levels, ats->levels));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  starting pattern: the diagonal (A^0)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  initial guess %s, Jacobi scaling %s, %s factor in the second half-step\n", PCATSILUInitialGuesses[ats->guess], ats->scaling ? "yes" : "no", ats->usenew ? "newest" : "previous"));
  if (ats->type == PC_ATSILU_ILUT)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill %g of nnz(A); residual updated between half-steps %s, residual in the right-hand side %s, in the left-hand side %s, sweeps before %" PetscInt_FMT ", after thresholding %" PetscInt_FMT "\n",
                                     (double)ats->fill, ats->updateresidual ? "yes" : "no", ats->residualrhs ? "yes" : "no", ats->residuallhs ? "yes" : "no", ats->before, ats->after));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps: at most %" PetscInt_FMT ", tolerance %g on ||A - LU||_F / ||A||_F on the pattern; ", ats->sweeps, (double)ats->tol));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (ats->device != PETSCGILU_BACKEND_HOST) PetscCall(PetscViewerASCIIPrintf(viewer, "%s kernels (a thread per row of L and column of U)\n", ats->device == PETSCGILU_BACKEND_CUDA ? "CUDA" : "emulated CUDA (cudaemu)"));
  else if (ats->analyzed || ats->threads) PetscCall(PetscViewerASCIIPrintf(viewer, "host threads %" PetscInt_FMT "\n", ats->analyzed ? ats->nthreads : ats->threads));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "host threads chosen at the setup (-%spc_atsilu_threads 0: OMP_NUM_THREADS, else the node's cores per process)\n", GILUPrefix(pc)));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (ats->analyzed) {
    char name[256];

    PetscCall(PetscGILUBackendName(ats->device, name, sizeof(name)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  back-end of the sweeps: %s%s\n", name, ats->ilutfallback ? " (ilut has no device sweeps)" : ""));
  }
  if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: exact triangular solves, MatSolve() of a factor of MatSolverType gilu given L and U\n"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: %" PetscInt_FMT " Jacobi sweeps on each triangular factor\n", ats->trisweeps));
  if (ats->matapplied) {
    if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT) PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): MatMatSolve() of the gilu factor, all columns in one call\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): the Jacobi sweeps on each column in turn, in one call\n"));
  }
  if (!ats->analyzed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  block Jacobi across %d MPI processes: each factors its local diagonal block; process 0 shown\n", size));
  if (ats->converted) PetscCall(PetscViewerASCIIPrintf(viewer, "  the BAIJ matrix was converted to AIJ: point (not block) factors (block factors: -%spc_atsilu_type ilu, host sweeps, exact solves)\n", GILUPrefix(pc)));
  if (ats->block) PetscCall(PetscViewerASCIIPrintf(viewer, "  BAIJ block factors, block size %" PetscInt_FMT "; counts below in blocks\n", ats->bs));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  rows %" PetscInt_FMT ", nnz(A) %" PetscInt_FMT ", starting pattern nnz(S) %" PetscInt_FMT "\n", ats->block ? ats->B.n : ats->F.n, ats->nnzA, ats->nnzS));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps done %" PetscInt_FMT "; ||A - LU||_F / ||A||_F on the pattern after each (0: initial guess):\n", ats->nsweeps));
  for (PetscInt s = 0; s <= ats->nsweeps; s++) PetscCall(PetscViewerASCIIPrintf(viewer, "    %3" PetscInt_FMT " %.3e\n", s, (double)ats->hist[s]));
  if (ats->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in local row %" PetscInt_FMT "\n", ats->zerorow));
  else {
    PetscInt nz = ats->nnzL + ats->nnzU;
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: nnz(L) %" PetscInt_FMT " (unit diagonal not stored), nnz(U) %" PetscInt_FMT ", fill (nnz(L)+nnz(U))/nnz(A) %.2f\n", ats->nnzL, ats->nnzU, (double)nz / (double)PetscMax(ats->nnzA, 1)));
    if (ats->trisolve == PC_ATSILU_TRISOLVE_EXACT && ats->fact) {
      PetscInt             nl, nu, maxl, nt;
      PetscGILUBackendType tb;
      GILUTri              trl, tru;
      GILUTriSolveType     asked, al, au;

      PetscCall(MatGILUFactorGetTri(ats->fact, &trl, &tru));
      PetscCall(GILUTriGetLevels(trl, &nl, &maxl));
      PetscCall(GILUTriGetLevels(tru, &nu, &maxl));
      PetscCall(GILUTriGetBackend(trl, &tb));
      PetscCall(GILUTriGetSettings(trl, &asked, &nt));
      PetscCall(GILUTriGetType(trl, &al));
      PetscCall(GILUTriGetType(tru, &au));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  levels of the exact triangular solves: L %" PetscInt_FMT ", U %" PetscInt_FMT "; the engine's back-end %s (-%smat_gilu_trisolve_backend)\n", nl, nu, PetscGILUBackendTypes[tb], GILUPrefix(pc)));
      /* the triangular-solve engine plans (and, asked auto, chooses) at the first solve */
      if (al == GILU_TRISOLVE_AUTO || au == GILU_TRISOLVE_AUTO) PetscCall(PetscViewerASCIIPrintf(viewer, "  their algorithm: %s requested (-%smat_gilu_trisolve), chosen at the first solve\n", GILUTriSolveTypes[asked], GILUPrefix(pc)));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "  their algorithm: L %s, U %s (%s requested, -%smat_gilu_trisolve)\n", GILUTriSolveTypes[al], GILUTriSolveTypes[au], GILUTriSolveTypes[asked], GILUPrefix(pc)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_ATSILU(PC pc, GILUOptionItems PetscOptionsObject)
{
  PC_ATSILU           *ats = (PC_ATSILU *)pc->data;
  PetscBool            flg, b;
  PetscInt             k;
  PetscReal            r;
  PCATSILUType         type;
  PCATSILUAlgorithm    alg;
  PCATSILUPattern      pat;
  PCATSILUTriSolve     tri;
  PCATSILUInitialGuess guess;
  PetscGILUBackendType backend;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "ATS-ILU options");
  PetscCall(PetscOptionsEnum("-pc_atsilu_type", "Fixed pattern (ilu) or thresholded (ilut)", "PCATSILUSetType", PCATSILUTypes, (PetscEnum)ats->type, (PetscEnum *)&type, &flg));
  if (flg) PetscCall(PCATSILUSetType(pc, type));
  PetscCall(PetscOptionsEnum("-pc_atsilu_algorithm", "Alternating triangular solves or ParILU sweeps", "PCATSILUSetAlgorithm", PCATSILUAlgorithms, (PetscEnum)ats->algorithm, (PetscEnum *)&alg, &flg));
  if (flg) PetscCall(PCATSILUSetAlgorithm(pc, alg));
  PetscCall(PetscOptionsInt("-pc_atsilu_levels", "Levels k of the starting pattern", "PCATSILUSetLevels", ats->levels, &k, &flg));
  if (flg) PetscCall(PCATSILUSetLevels(pc, k));
  PetscCall(PetscOptionsEnum("-pc_atsilu_pattern", "Starting pattern: A^(k+1), symbolic ILU(k) or the diagonal", "PCATSILUSetPattern", PCATSILUPatterns, (PetscEnum)ats->pattern, (PetscEnum *)&pat, &flg));
  if (flg) PetscCall(PCATSILUSetPattern(pc, pat));
  PetscCall(PetscOptionsInt("-pc_atsilu_sweeps", "Most sweeps (update cycles for ilut)", "PCATSILUSetSweeps", ats->sweeps, &k, &flg));
  if (flg) PetscCall(PCATSILUSetSweeps(pc, k));
  PetscCall(PetscOptionsReal("-pc_atsilu_tol", "Stop the sweeps when ||A - LU||_F / ||A||_F on the pattern is below (0: never)", "PCATSILUSetTol", ats->tol, &r, &flg));
  if (flg) PetscCall(PCATSILUSetTol(pc, r));
  PetscCall(PetscOptionsReal("-pc_atsilu_fill", "ILUT: most entries of L and U relative to those of A", "PCATSILUSetFill", ats->fill, &r, &flg));
  if (flg) PetscCall(PCATSILUSetFill(pc, r));
  PetscCall(PetscOptionsInt("-pc_atsilu_threads", "Host threads (0: OMP_NUM_THREADS if set, else the cores divided among the node's MPI processes)", "PCATSILUSetThreads", ats->threads, &k, &flg));
  if (flg) PetscCall(PCATSILUSetThreads(pc, k));
  tri = ats->trisolve;
  k   = ats->trisweeps;
  PetscCall(PetscOptionsEnum("-pc_atsilu_trisolve", "Apply the factors by exact triangular solves or Jacobi sweeps", "PCATSILUSetTriSolve", PCATSILUTriSolves, (PetscEnum)ats->trisolve, (PetscEnum *)&tri, &flg));
  PetscCall(PetscOptionsInt("-pc_atsilu_trisolve_sweeps", "Jacobi sweeps per triangular factor", "PCATSILUSetTriSolve", ats->trisweeps, &k, &b));
  if (flg || b) PetscCall(PCATSILUSetTriSolve(pc, tri, k));
  PetscCall(PetscOptionsBool("-pc_atsilu_jacobi_scaling", "Sweep on D^{-1/2} A D^{-1/2}", "PCATSILUSetJacobiScaling", ats->scaling, &b, &flg));
  if (flg) PetscCall(PCATSILUSetJacobiScaling(pc, b));
  PetscCall(PetscOptionsEnum("-pc_atsilu_initial_guess", "Starting factors", "PCATSILUSetInitialGuess", PCATSILUInitialGuesses, (PetscEnum)ats->guess, (PetscEnum *)&guess, &flg));
  if (flg) PetscCall(PCATSILUSetInitialGuess(pc, guess));
  PetscCall(PetscOptionsBool("-pc_atsilu_use_new", "The second half-step reads the newest factor (USE_NEW)", "PCATSILUSetUseNew", ats->usenew, &b, &flg));
  if (flg) PetscCall(PCATSILUSetUseNew(pc, b));
  PetscCall(PetscOptionsBool("-pc_atsilu_update_residual", "ILUT: recompute A - LU between the half-steps", "PCATSILUSetUpdateResidual", ats->updateresidual, &b, &flg));
  if (flg) PetscCall(PCATSILUSetUpdateResidual(pc, b));
  PetscCall(PetscOptionsBool("-pc_atsilu_residual_rhs", "ILUT: the residual in the right-hand side where A has no entry", "PCATSILUSetResidualRHS", ats->residualrhs, &b, &flg));
  if (flg) PetscCall(PCATSILUSetResidualRHS(pc, b));
  PetscCall(PetscOptionsBool("-pc_atsilu_residual_lhs", "ILUT: the residual in the triangular matrix of the solves where the factor has no entry", "PCATSILUSetResidualLHS", ats->residuallhs, &b, &flg));
  if (flg) PetscCall(PCATSILUSetResidualLHS(pc, b));
  PetscCall(PetscOptionsInt("-pc_atsilu_sweeps_before", "ILUT: fixed-pattern sweeps before the first cycle", "PCATSILUSetSweepsBefore", ats->before, &k, &flg));
  if (flg) PetscCall(PCATSILUSetSweepsBefore(pc, k));
  PetscCall(PetscOptionsInt("-pc_atsilu_sweeps_after", "ILUT (ats): fixed-pattern sweeps after each thresholding", "PCATSILUSetSweepsAfter", ats->after, &k, &flg));
  if (flg) PetscCall(PCATSILUSetSweepsAfter(pc, k));
  backend = ats->backend;
  if (!ats->backendset) PetscCall(PetscGILUGetBackend(&backend));
  PetscCall(PetscOptionsEnum("-pc_atsilu_backend", "Where the fixed-pattern sweeps run (default: -gilu_backend)", "PCATSILUSetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, &flg));
  if (flg) PetscCall(PCATSILUSetBackend(pc, backend));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_ATSILU(PC pc)
{
  const char *names[] = {"Type", "Algorithm", "Levels", "Pattern", "Sweeps", "Tol", "Fill", "Threads", "TriSolve", "JacobiScaling", "InitialGuess", "UseNew", "UpdateResidual", "ResidualRHS", "ResidualLHS", "SweepsBefore", "SweepsAfter", "Backend"};
  char        key[64];

  PetscFunctionBegin;
  PetscCall(PCReset_ATSILU(pc));
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    PetscCall(PetscSNPrintf(key, sizeof(key), "PCATSILUSet%s_C", names[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)pc, key, NULL));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUGetResidualHistory_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUGetBackend_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the implementations of the setters: each stores its value; a change of the options redoes the setup */
#define ATSILU_SETTER(Name, T, field, check) \
  static PetscErrorCode PCATSILUSet##Name##_ATSILU(PC pc, T v) \
  { \
    PC_ATSILU *ats = (PC_ATSILU *)pc->data; \
\
    PetscFunctionBegin; \
    check; \
    if (ats->field != v) pc->setupcalled = 0; \
    ats->field = v; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
ATSILU_SETTER(Type, PCATSILUType, type, )
ATSILU_SETTER(Algorithm, PCATSILUAlgorithm, algorithm, )
ATSILU_SETTER(Levels, PetscInt, levels, PetscCheck(v >= 0 && v <= 8, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_levels %" PetscInt_FMT ": must be in 0..8", GILUPrefix(pc), v))
ATSILU_SETTER(Pattern, PCATSILUPattern, pattern, )
ATSILU_SETTER(Sweeps, PetscInt, sweeps, PetscCheck(v >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_sweeps %" PetscInt_FMT ": must be nonnegative", GILUPrefix(pc), v))
ATSILU_SETTER(Tol, PetscReal, tol, PetscCheck(v >= 0 && v < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_tol %g: must be finite and nonnegative", GILUPrefix(pc), (double)v))
ATSILU_SETTER(Fill, PetscReal, fill, PetscCheck(v >= 1 && v < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_fill %g: must be finite and at least 1 (entries of L and U relative to those of A)", GILUPrefix(pc), (double)v))
ATSILU_SETTER(Threads, PetscInt, threads, PetscCheck(v >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_threads %" PetscInt_FMT ": must be 0 (OpenMP's) or positive", GILUPrefix(pc), v))
ATSILU_SETTER(JacobiScaling, PetscBool, scaling, )
ATSILU_SETTER(InitialGuess, PCATSILUInitialGuess, guess, )
ATSILU_SETTER(UseNew, PetscBool, usenew, )
ATSILU_SETTER(UpdateResidual, PetscBool, updateresidual, )
ATSILU_SETTER(ResidualRHS, PetscBool, residualrhs, )
ATSILU_SETTER(ResidualLHS, PetscBool, residuallhs, )
ATSILU_SETTER(SweepsBefore, PetscInt, before, PetscCheck(v >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_sweeps_before %" PetscInt_FMT ": must be nonnegative", GILUPrefix(pc), v))
ATSILU_SETTER(SweepsAfter, PetscInt, after, PetscCheck(v >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_sweeps_after %" PetscInt_FMT ": must be nonnegative", GILUPrefix(pc), v))

static PetscErrorCode PCATSILUSetBackend_ATSILU(PC pc, PetscGILUBackendType v)
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;

  PetscFunctionBegin;
  if (!ats->backendset || ats->backend != v) pc->setupcalled = 0;
  ats->backend    = v; /* resolved (and checked) at the setup */
  ats->backendset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCATSILUGetBackend_ATSILU(PC pc, PetscGILUBackendType *v)
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;

  PetscFunctionBegin;
  if (pc->setupcalled) *v = ats->device;
  else if (ats->backendset) *v = ats->backend;
  else PetscCall(PetscGILUGetBackend(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCATSILUSetTriSolve_ATSILU(PC pc, PCATSILUTriSolve t, PetscInt m)
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(m >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_atsilu_trisolve_sweeps %" PetscInt_FMT ": must be nonnegative", GILUPrefix(pc), m);
  if (ats->trisolve != t || ats->trisweeps != m) pc->setupcalled = 0;
  ats->trisolve  = t;
  ats->trisweeps = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCATSILUGetResidualHistory_ATSILU(PC pc, PetscInt *nsweeps, const PetscReal *hist[])
{
  PC_ATSILU *ats = (PC_ATSILU *)pc->data;

  PetscFunctionBegin;
  if (nsweeps) *nsweeps = ats->analyzed ? ats->nsweeps : -1;
  if (hist) *hist = ats->hist;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCATSILU - "atsilu": incomplete LU factors computed iteratively, each sweep solving every row of L and every
   column of U independently on a fixed or thresholded pattern (ATS-ILU(k) and ATS-ILUT, the ATS-ILU paper of Tunnell and Boman), or by Chow and
   Patel's ParILU / Anzt's ParILUT fixed-point sweeps in the same framework. The factors are the same bitwise for
   any number of threads. With enough sweeps ATS-ILU and ParILU reach the ILU factors of their pattern (PETSc's
   ILU(k) with -pc_atsilu_pattern symbolic, ILU(0) for levels 0).

   Options Database Keys:
+  -pc_atsilu_type <ilu,ilut> - fixed pattern (Algorithm 6) or thresholding (Algorithm 7)
.  -pc_atsilu_algorithm <ats,parilu> - alternating triangular solves, or ParILU (ParILUT for ilut)
.  -pc_atsilu_levels <k> - levels of the starting pattern (default 0)
.  -pc_atsilu_pattern <power,symbolic,diagonal> - the pattern of A^(k+1), the symbolic ILU(k) pattern, or the diagonal (A^0)
.  -pc_atsilu_sweeps <n> - most sweeps, update cycles for ilut (default 5)
.  -pc_atsilu_tol <t> - stop once ||A - LU||_F / ||A||_F on the pattern is at most t (default 0: run all sweeps)
.  -pc_atsilu_fill <f> - ilut: at most f times the entries of tril(A) in L and of triu(A) in U (default 2)
.  -pc_atsilu_threads <n> - host threads (default 0: OMP_NUM_THREADS if set, else the cores divided among the MPI processes of the node; at most 4 per core and OpenMP's thread limit)
.  -pc_atsilu_trisolve <exact,jacobi> - apply by the solves of a MatSolverType gilu factor given L and U, or by Jacobi sweeps
.  -pc_atsilu_trisolve_sweeps <m> - Jacobi sweeps per factor (default 3)
.  -pc_atsilu_jacobi_scaling <bool> - sweep on D^{-1/2} A D^{-1/2} (default true)
.  -pc_atsilu_initial_guess <triu,diagonal> - starting factors (default triu)
.  -pc_atsilu_use_new <bool> - the U half-step reads the new L (default true)
.  -pc_atsilu_update_residual <bool> - ilut: recompute A - LU between the half-steps (default true)
.  -pc_atsilu_residual_rhs <bool> - ilut: the residual in the right-hand side where A has no entry (default false)
.  -pc_atsilu_residual_lhs <bool> - ilut: the residual in the triangular matrix of the solves where the factor has no entry (default false)
.  -pc_atsilu_sweeps_before <n> - ilut: fixed-pattern sweeps before the first cycle (default 0)
.  -pc_atsilu_sweeps_after <n> - ilut with ats: fixed-pattern sweeps after each thresholding (default 0)
-  -pc_atsilu_backend <auto,host,cuda,cudaemu> - where the fixed-pattern (ilu) sweeps run: host threads, CUDA kernels, or the kernels in the host
                                                emulation (default: -gilu_backend, whose default is auto: cuda when built with CUDA and a device is found)

   Notes:
   Works on SEQAIJ and SEQBAIJ matrices, on the local diagonal block of MPIAIJ and MPIBAIJ (block Jacobi, one block
   per process) and as a sub-PC of PCBJACOBI or PCASM; on a `MATSTENCILGPU` operator through its AIJ image. On BAIJ the fixed-pattern sweeps work on the blocks and
   converge to PETSc's block ILU(k); ilut, the device sweeps and the Jacobi apply convert BAIJ to AIJ (point factors). The exact apply is
   MatSolve() of a factor of MatSolverType gilu that the PC makes once and hands the computed L and U at each setup
   (its plans, threads and device back-ends; -mat_gilu_trisolve* with the PC's prefix choose them). `PCMatApply()`
   (`KSPMatSolve()`; `PCMatApplyTranspose()` with PETSc 3.24 or newer) applies a block of right-hand sides in one
   call, by `MatMatSolve()` of that factor (or the Jacobi sweeps on each column), each column bitwise `PCApply()`'s.
   ParILU runs in Jacobi order (every entry from the previous sweep), the deterministic form of Chow and Patel's
   method; the asynchronous form is not offered.

   Zero pivots: a zero diagonal entry a_rr of the matrix is not a zero pivot of ILU, whose pivot is
   u_rr = a_rr - sum_{k<r} l_rk u_kr: the starting factors take that sum over their own values for u_rr (a singular
   diagonal block: D_r = A_rr - sum_{k<r} A_rk D_k^{-1} A_kr), and the sweeps then approach ILU(k)'s pivot, as they do
   every entry. Only a pivot that the sweeps divide by while it is zero, or that is zero in the final factors, fails
   the PC (`PC_FACTOR_NUMERIC_ZEROPIVOT`, KSP's `KSP_DIVERGED_PC_FAILED`); the message (an error with
   -ksp_error_if_not_converged, else -info) names the row, what was zero there and A's diagonal entry, and tells whether
   PETSc's ILU(k) of the block has a zero pivot too (then the matrix needs a shift or another preconditioner) or not
   (then the sweeps met a zero of their own: another starting guess, more sweeps, or PETSc's ILU). A residual that is
   not finite fails it the same way, with its own message.

   Memory: the fixed-pattern sweeps read the matrix in place and store L, U^T, A^T's values on U^T's pattern and the
   Jacobi scaling; the applied factors are made in that storage and copied into the gilu factor (which adds its solve
   plans), then freed. ilut also
   stores all of A^T, the residual A - LU (and its transpose where a half-step reads it) and each half-step's
   grown pattern beside the old one: several times the factors.

   Level: intermediate

   References:
.  * - Marc A. Tunnell and Erik G. Boman, Parallel Incomplete LU Factorizations Based on Alternating Triangular Solves,
       preprint (the ATS-ILU paper; `-citations` lists it when `-pc_atsilu_algorithm ats` runs)

.seealso: `PCILU`, `PCATSILUSetType()`, `PCATSILUSetSweeps()`, `PCATSILUSetFill()`, `PCATSILUGetResidualHistory()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_ATSILU(PC pc)
{
  PC_ATSILU *ats;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ats));
  pc->data            = (void *)ats;
  ats->type           = PC_ATSILU_ILU;
  ats->algorithm      = PC_ATSILU_ALGORITHM_ATS;
  ats->pattern        = PC_ATSILU_PATTERN_POWER;
  ats->sweeps         = 5;
  ats->fill           = 2;
  ats->trisolve       = PC_ATSILU_TRISOLVE_EXACT;
  ats->trisweeps      = 3;
  ats->scaling        = PETSC_TRUE;
  ats->guess          = PC_ATSILU_INITIAL_GUESS_TRIU;
  ats->usenew         = PETSC_TRUE;
  ats->updateresidual = PETSC_TRUE;
  ats->zerorow        = -1;
  ats->backend        = PETSCGILU_BACKEND_AUTO;
  ats->device         = PETSCGILU_BACKEND_HOST;

  pc->ops->setup          = PCSetUp_ATSILU;
  pc->ops->apply          = PCApply_ATSILU;
  pc->ops->applytranspose = PCApplyTranspose_ATSILU;
  pc->ops->matapply       = PCMatApply_ATSILU;
#if PETSC_VERSION_GE(3, 24, 0)
  pc->ops->matapplytranspose = PCMatApplyTranspose_ATSILU;
#endif
  pc->ops->reset          = PCReset_ATSILU;
  pc->ops->destroy        = PCDestroy_ATSILU;
  pc->ops->view           = PCView_ATSILU;
  pc->ops->setfromoptions = PCSetFromOptions_ATSILU;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetType_C", PCATSILUSetType_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetAlgorithm_C", PCATSILUSetAlgorithm_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetLevels_C", PCATSILUSetLevels_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetPattern_C", PCATSILUSetPattern_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetSweeps_C", PCATSILUSetSweeps_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetTol_C", PCATSILUSetTol_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetFill_C", PCATSILUSetFill_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetThreads_C", PCATSILUSetThreads_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetTriSolve_C", PCATSILUSetTriSolve_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetJacobiScaling_C", PCATSILUSetJacobiScaling_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetInitialGuess_C", PCATSILUSetInitialGuess_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetUseNew_C", PCATSILUSetUseNew_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetUpdateResidual_C", PCATSILUSetUpdateResidual_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetResidualRHS_C", PCATSILUSetResidualRHS_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetResidualLHS_C", PCATSILUSetResidualLHS_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetSweepsBefore_C", PCATSILUSetSweepsBefore_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetSweepsAfter_C", PCATSILUSetSweepsAfter_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUSetBackend_C", PCATSILUSetBackend_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUGetBackend_C", PCATSILUGetBackend_ATSILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCATSILUGetResidualHistory_C", PCATSILUGetResidualHistory_ATSILU));
  PetscFunctionReturn(PETSC_SUCCESS);
}
