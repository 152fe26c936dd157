/*
   StructILU's factor (MatSolverType structilu): its setup and applies (the factor's ops and view are in
   structilu-factor.c, PCSTRUCTILU over it in structilu.c).

   StructILUSetUp(), at each numeric factorization, finds the grid (DMDA, options or the pattern), extracts the
   stencil matrix of the local diagonal block (for k > 0 on the ILU(k) fill stencil of its pattern,
   src/mat/stencil/fill.c) or takes a MATSTENCILGPU's own, factors it on the back-end that was resolved once there
   (host kernels: src/mat/stencil/ilu.c; device: the ops table of src/mat/stencil/cuda/structilu.cu); the applies
   use the factors; a block that is not a structured grid gets the general sparse fallback.
*/
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/stencilgpu.h>
#include "structilu.h"
#include <float.h> /* FLT_MAX */

PetscErrorCode StructILUReset(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  PetscCall(GILUStencilMatReset(&ilu->sm));
  PetscCall(StructILUFactorsReset_Host(&ilu->factors));
  PetscCall(PetscFree(ilu->dinv));
  PetscCall(PetscFree2(ilu->diag, ilu->eisE));
  PetscCall(PetscFree(ilu->symR));
  ilu->symvalid = PETSC_FALSE;
  PetscCall(PetscFree(ilu->elim));
  PetscCall(PetscFree(ilu->mirror));
  if (ilu->dev) PetscCall(ilu->devops->destroy(&ilu->dev));
  PetscCall(MatDestroy(&ilu->fallback));
  PetscCall(VecDestroy(&ilu->fx));
  PetscCall(VecDestroy(&ilu->fy));
  PetscCall(StructILUResetDistributed(F));
  ilu->fallbackwhy[0] = 0;
  ilu->analyzed       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid of the local block: user options, then the DMDA of PCSTRUCTILU or of the matrix, then the pattern (found false: none) */
static PetscErrorCode StructILUFindGrid(Mat F, Mat A, Mat Alocal, GILUGrid *g, PetscBool *gridfound)
{
  Mat_StructILU *ilu   = (Mat_StructILU *)F->data;
  PetscBool      found = PETSC_FALSE;
  DM             dm    = NULL;
  PetscInt       m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(Alocal, &m, NULL));
  if (ilu->opt.griddim) { /* forced: a grid that does not fit the block is an error (PCStructILUSetGrid() checked that its points fit a PetscInt) */
    const char *pre  = GILUPrefix(F);
    PetscInt    npts = ilu->opt.grid[0] * ilu->opt.grid[1] * ilu->opt.grid[2];
    char        str[96];

    PetscCall(StructILUGridString(ilu->opt.griddim, ilu->opt.grid, str, sizeof(str)));
    g->dim = ilu->opt.griddim;
    for (PetscInt d = 0; d < 3; d++) g->n[d] = ilu->opt.grid[d];
    if (ilu->opt.dof) g->dof = ilu->opt.dof;
    else {
      PetscCheck(m % npts == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%spc_structilu_grid %s has %" PetscInt_FMT " grid points, which do not divide the %" PetscInt_FMT " rows of the local block: give the local grid of the matrix (and -%spc_structilu_dof)", pre, str, npts, m, pre);
      g->dof = m / npts;
      PetscCheck(g->dof <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%spc_structilu_grid %s makes %" PetscInt_FMT " unknowns per grid point of the %" PetscInt_FMT " local rows, but structured-grid ILU supports 1 to %d: give the local grid of the matrix", pre, str, g->dof, m, GILU_MAX_DOF);
    }
    {
      PetscBool baij;
      PetscInt  bs;

      PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)Alocal, &baij, MATSEQBAIJ, MATMPIBAIJ, ""));
      PetscCall(MatGetBlockSize(Alocal, &bs));
      PetscCheck(!baij || bs == g->dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The BAIJ block size %" PetscInt_FMT " differs from the %" PetscInt_FMT " DoF per grid point of -%spc_structilu_grid %s: give -%spc_structilu_dof %" PetscInt_FMT " and the grid of the blocks", bs, g->dof, pre, str, pre, bs);
    }
    PetscCheck((PetscInt64)npts * g->dof == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " DoF has %" PetscInt64_FMT " unknowns but the (local) matrix has %" PetscInt_FMT " rows: fix -%spc_structilu_grid / -%spc_structilu_dof", g->n[0], g->n[1], g->n[2], g->dof, (PetscInt64)npts * g->dof, m, pre, pre);
    ilu->gridfrom = "from -pc_structilu_grid";
    *gridfound    = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  dm = ilu->dm; /* PCSTRUCTILU's (KSPSetDM()) */
  if (dm) PetscCall(GILUGridFromDM(dm, Alocal, g, &found));
  if (!found) {
    PetscCall(MatGetDM(A, &dm));
    if (dm) PetscCall(GILUGridFromDM(dm, Alocal, g, &found));
  }
  if (found) {
    PetscCheck(!ilu->opt.dof || ilu->opt.dof == g->dof, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_INCOMP, "-%spc_structilu_dof %" PetscInt_FMT " contradicts the DMDA's %" PetscInt_FMT " DoF per grid point", GILUPrefix(F), ilu->opt.dof, g->dof);
    ilu->gridfrom = "from the DMDA";
  } else {
    PetscCheck(!ilu->opt.dof || m % ilu->opt.dof == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%spc_structilu_dof %" PetscInt_FMT " does not divide the %" PetscInt_FMT " rows of the local block: give the unknowns per grid point of the matrix", GILUPrefix(F),
               ilu->opt.dof, m);
    PetscCall(GILUGridInfer(Alocal, ilu->opt.dof, g, &found)); /* (DoF: the option's, else the block size) */
    if (found) ilu->gridfrom = "inferred from the matrix pattern";
    else PetscCall(PetscSNPrintf(ilu->fallbackwhy, sizeof(ilu->fallbackwhy), "no DMDA box matches its %" PetscInt_FMT " rows and its pattern is not that of a stencil in natural ordering", m));
  }
  if (found && g->dof > GILU_MAX_DOF) { /* a grid the structured-grid kernels do not take (the options, which cannot ask for it, were checked above) */
    PetscCall(PetscSNPrintf(ilu->fallbackwhy, sizeof(ilu->fallbackwhy), "its grid (%s) has %" PetscInt_FMT " unknowns per point, and the structured-grid kernels take 1 to %d", ilu->gridfrom, g->dof, GILU_MAX_DOF));
    found = PETSC_FALSE;
  }
  *gridfound = found;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  IC reads the upper triangle, as PETSc's ICC (one rule for every incomplete Cholesky of petscgilu: MatSolverType gilu's, this
  factor's under PCICC and PCSTRUCTILU's -pc_structilu_type ic): the packed values ilu->sm (st NULL) take their lower triangle
  from the upper one; a block that is no grid goes to PETSc's ICC (the fallback), which reads its upper triangle itself.
  What the stencil cannot hold is an error that names ILU: an offset st lacks the opposite of (the upper triangle's mirror
  needs it, and a lower-only entry would be dropped unseen).
*/
static PetscErrorCode StructILUCheckSymmetric(Mat F, const GILUStencil *st)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscInt       s;

  PetscFunctionBegin;
  if (ilu->opt.type != PC_STRUCTILU_IC) PetscFunctionReturn(PETSC_SUCCESS);
  if (st) {
    PetscCall(GILUStencilFindUnmirrored(st, &s));
    PetscCheck(s < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Incomplete Cholesky needs a symmetric matrix, but the stencil has the offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") and not its opposite: use -%spc_%s ilu", st->off[s][0], st->off[s][1], st->off[s][2], GILUPrefix(F), ilu->asfactor ? "type" : "structilu_type");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUStencilMatSymmetrizeFromUpper(&ilu->sm, ilu->mirror));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The local block is not a structured grid (ilu->fallbackwhy): an error if the user gave its grid or DoF, which then cannot be honoured */
static PetscErrorCode StructILUCheckForced(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  const char    *pre = GILUPrefix(F);
  char           str[96];

  PetscFunctionBegin;
  PetscCall(StructILUGridString(ilu->opt.griddim, ilu->opt.grid, str, sizeof(str)));
  PetscCheck(!ilu->opt.griddim, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_grid %s was given, but the local block is not a stencil matrix on that grid (%s): give the local grid of the matrix, or leave -%spc_structilu_grid out (the grid is then taken from the DMDA or the pattern, and a block that is no structured grid is factored as a general sparse matrix)", pre, str,
             ilu->fallbackwhy, pre);
  PetscCheck(!ilu->opt.dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_dof %" PetscInt_FMT " was given, but the local block is not a structured grid with %" PetscInt_FMT " unknowns per point (%s): give the grid too (-%spc_structilu_grid or a DMDA), or leave -%spc_structilu_dof out (a block that is no structured grid is then factored as a general sparse matrix)", pre,
             ilu->opt.dof, ilu->opt.dof, ilu->fallbackwhy, pre, pre);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ilu->sm's pattern from the stencil matrix pat of the block, which it takes over (pat is left empty): pat's own for
  ILU(0); for ILU(k) ILU(0) on the ILU(k) pattern, the fill stencil with the positions of level > k missing
*/
static PetscErrorCode StructILUTakePattern(Mat F, GILUStencilMat *pat)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  char           why[512];

  PetscFunctionBegin;
  PetscCall(GILUStencilGetName(&pat->stencil, pat->grid.dim, ilu->patname, sizeof(ilu->patname)));
  if (ilu->opt.levels > 0) {
    PetscCall(GILUStencilMatFill(pat, ilu->opt.levels, &ilu->sm, why, sizeof(why)));
    PetscCall(GILUStencilMatReset(pat)); /* before the error: nothing stays allocated */
    PetscCheck(!why[0], PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: use fewer levels of fill (-%spc_%s)", why, GILUPrefix(F), ilu->asfactor ? "factor_levels" : "structilu_levels");
  } else {
    ilu->sm = *pat;
    PetscCall(PetscMemzero(pat, sizeof(*pat)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern of ilu->sm from the block A on grid g (threads: of the analysis), or ilu->fallbackwhy says why A is no stencil matrix */
PetscErrorCode StructILUAnalyze(Mat F, Mat A, const GILUGrid *g, PetscInt threads)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  GILUStencilMat pat;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&pat, sizeof(pat)));
  pat.nthreads = threads;
  PetscCall(GILUStencilMatAnalyze(A, g, &pat, ilu->fallbackwhy, sizeof(ilu->fallbackwhy)));
  if (!ilu->fallbackwhy[0]) PetscCall(StructILUTakePattern(F, &pat));
  else PetscCall(GILUStencilMatReset(&pat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A zero pivot of the last factorization (ilu->zerorow), or single-precision factors with an entry that float cannot
  hold (ilu->rangerow: it would be Inf): an error when the matrix asks for one (MatSetErrorIfFailure(), as PCILU does under
  -ksp_error_if_not_converged), else the factor's error (MatFactorGetError()), which the PC turns into its failed reason
*/
static PetscErrorCode StructILUCheckPivot(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (ilu->asfactor && ilu->ftype == MAT_FACTOR_ICC && ilu->info.shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE && !ilu->source->hostonly && !ilu->fallback) {
    /* PCICC's positive-definite shift: where PETSc's ICC would shift, the factorization is handed to it (StructILUFactorShiftPositiveDefinite()) */
    if (ilu->zerorow >= 0) PetscCall(PetscInfo(F, "Pivot at most the zero pivot tolerance in local row %" PetscInt_FMT ": the positive-definite shift's\n", ilu->zerorow));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->zerorow >= 0) {
    PetscCheck(!ilu->A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in %s row %" PetscInt_FMT " of the structured-grid ILU (tolerance %g)", ilu->source->rows, ilu->zerorow, (double)ilu->opt.zeropivot);
    PetscCall(PetscInfo(F, "Zero pivot in local row %" PetscInt_FMT " (tolerance %g)\n", ilu->zerorow, (double)ilu->opt.zeropivot));
  } else if (ilu->rangerow >= 0) {
    PetscCheck(!ilu->A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_FP, "The factors of %s row %" PetscInt_FMT " of the structured-grid ILU have an entry beyond the range of single precision (|x| > %g): use -%spc_structilu_factor_precision double (or scale the matrix)",
               ilu->source->rows, ilu->rangerow, (double)FLT_MAX, GILUPrefix(F));
    PetscCall(PetscInfo(F, "The single-precision factors of local row %" PetscInt_FMT " overflow (|x| > %g): use -%spc_structilu_factor_precision double\n", ilu->rangerow, (double)FLT_MAX, GILUPrefix(F)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The local block Alocal is not a structured grid (ilu->fallbackwhy says why): its ILU(k) (IC(k)) in natural
  ordering by MatSolverType gilu, the factors of PETSc's ILU(k) of the block; symbolic: a new pattern
*/
static PetscErrorCode StructILUFallbackFactor(Mat F, Mat Alocal, PetscBool symbolic)
{
  Mat_StructILU  *ilu = (Mat_StructILU *)F->data;
  const PetscBool ic  = (PetscBool)(ilu->opt.type == PC_STRUCTILU_IC);
  MatFactorInfo   info;
  MatFactorError  err;

  PetscFunctionBegin;
  PetscCheck(!ilu->opt.eisenstat, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "-%spc_structilu_eisenstat needs a structured-grid block with DILU factors, but the local block is not a structured grid (%s)", GILUPrefix(F), ilu->fallbackwhy);
  if (ilu->asfactor) info = ilu->info; /* its shift, say */
  else PetscCall(MatFactorInfoInitialize(&info));
  info.levels    = (PetscReal)ilu->opt.levels;
  info.fill      = 1.0;
  info.zeropivot = ilu->opt.zeropivot;
  if (symbolic) {
    IS       row, col;
    PetscInt m, bs;

    PetscCall(PetscInfo(F, "The local block is not a structured grid (%s): factored as a general sparse matrix by MatSolverType %s\n", ilu->fallbackwhy, ic ? MATSOLVERPETSC : MATSOLVERGILU));
    PetscCall(MatDestroy(&ilu->fallback));
    PetscCall(VecDestroy(&ilu->fx));
    PetscCall(VecDestroy(&ilu->fy));
    /* ICC: PETSc's, which reads the upper triangle only, as this factor's IC does */
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
  PetscCall(PetscLogEventBegin(GILU_StructILUFactor, 0, Alocal, 0, 0));
  if (ic) PetscCall(MatCholeskyFactorNumeric(ilu->fallback, Alocal, &info));
  else PetscCall(MatLUFactorNumeric(ilu->fallback, Alocal, &info));
  PetscCall(PetscLogEventEnd(GILU_StructILUFactor, 0, Alocal, 0, 0));
  ilu->zerorow  = -1;
  ilu->rangerow = -1;
  ilu->ran      = PETSCGILU_BACKEND_HOST;
  PetscCall(MatFactorGetError(ilu->fallback, &err));
  if (err != MAT_FACTOR_NOERROR) {
    PetscReal pivot;
    PetscInt  row;

    PetscCall(MatFactorGetErrorZeroPivot(ilu->fallback, &pivot, &row));
    ilu->zerorow = PetscMax(row, 0);
  }
  PetscCall(StructILUCheckPivot(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = the fallback's solve of the local part of x: MatSolve(), MatSolveTranspose(), or the halves of a Cholesky factor (MatForwardSolve(), MatBackwardSolve()) */
static PetscErrorCode StructILUFallbackSolve(Mat F, Vec x, Vec y, PetscErrorCode (*solve)(Mat, Vec, Vec))
{
  Mat_StructILU     *ilu = (Mat_StructILU *)F->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(VecPlaceArray(ilu->fx, xa));
  PetscCall(VecPlaceArray(ilu->fy, ya));
  PetscCall((*solve)(ilu->fallback, ilu->fx, ilu->fy));
  PetscCall(VecResetArray(ilu->fx));
  PetscCall(VecResetArray(ilu->fy));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StructILUFactorValues(Mat);

/* MATSTENCILGPU: the grid, the stencil and the values are the matrix's own, copied without any decoding */
static PetscErrorCode StencilCheck(Mat F, PetscObjectState *state)
{
  const GILUStencilMat *msm;
  PetscBool             is;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(((Mat_StructILU *)F->data)->A, &is, &msm));
  *state = msm->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StencilPattern(Mat F)
{
  Mat_StructILU        *ilu = (Mat_StructILU *)F->data;
  const GILUStencilMat *msm;
  PetscBool             is;
  GILUStencilMat        pat;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(ilu->A, &is, &msm));
  PetscCheck(!ilu->opt.dof || ilu->opt.dof == msm->grid.dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_dof %" PetscInt_FMT " contradicts the MATSTENCILGPU matrix's %" PetscInt_FMT " DoF per grid point: leave it out", GILUPrefix(F),
             ilu->opt.dof, msm->grid.dof);
  PetscCheck(!ilu->opt.griddim || (ilu->opt.grid[0] == msm->grid.n[0] && ilu->opt.grid[1] == msm->grid.n[1] && ilu->opt.grid[2] == msm->grid.n[2]), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_grid contradicts the MATSTENCILGPU matrix's local grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": leave it out", GILUPrefix(F),
             msm->grid.n[0], msm->grid.n[1], msm->grid.n[2]);
  PetscCheck(msm->grid.dof <= GILU_MAX_DOF, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "Structured-grid ILU supports 1 to %d unknowns per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, msm->grid.dof);
  ilu->gridfrom = "from the MATSTENCILGPU matrix";
  PetscCall(GILUStencilMatCopyStructure(msm, &pat));
  PetscCall(StructILUTakePattern(F, &pat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StencilValues(Mat F, PetscBool fresh)
{
  Mat_StructILU        *ilu = (Mat_StructILU *)F->data;
  const GILUStencilMat *msm;
  PetscBool             is;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(ilu->A, &is, &msm));
  ilu->sm.nthreads     = ilu->opt.threads;
  ilu->sm.scheduletype = (GILUScheduleType)ilu->opt.schedule;
  PetscCall(GILUStencilMatCopyValues(msm, &ilu->sm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ or BAIJ: the local block (the diagonal block in parallel: block Jacobi), its grid found and its stencil matrix extracted */
static PetscErrorCode LocalBlock(Mat F, Mat *Alocal)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscMPIInt    size;

  PetscFunctionBegin;
  *Alocal = ilu->image ? ilu->image : ilu->A; /* an SBAIJ's image: StructILUGetImage() */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ilu->A), &size));
  if (size > 1) PetscCall(MatGetDiagonalBlock(ilu->A, Alocal));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LocalCheck(Mat F, PetscObjectState *state)
{
  Mat Alocal;

  PetscFunctionBegin;
  PetscCall(LocalBlock(F, &Alocal));
  PetscCall(MatGetNonzeroState(Alocal, state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LocalPattern(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  Mat            Alocal;
  GILUGrid       g;
  PetscBool      gridfound = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(LocalBlock(F, &Alocal));
  PetscCall(StructILUFindGrid(F, ilu->A, Alocal, &g, &gridfound));             /* (the DMDA is an SBAIJ's, not its image's) */
  if (gridfound) PetscCall(StructILUAnalyze(F, Alocal, &g, ilu->opt.threads)); /* the analysis runs on the threads of the kernels */
  if (ilu->fallbackwhy[0]) PetscCall(StructILUCheckForced(F));                 /* a general sparse ILU(k) of the block, unless the user said it is a grid */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LocalValues(Mat F, PetscBool fresh)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  Mat            Alocal;

  PetscFunctionBegin;
  PetscCall(LocalBlock(F, &Alocal));
  ilu->sm.nthreads     = ilu->opt.threads;
  ilu->sm.scheduletype = (GILUScheduleType)ilu->opt.schedule;
  PetscCall(GILUStencilMatPack(Alocal, &ilu->sm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const StructILUSourceOps StructILUSourceStencil = {"stencil", "local", StencilCheck, StencilPattern, NULL, StencilValues, PETSC_FALSE, NULL, NULL, NULL, NULL};
static const StructILUSourceOps StructILUSourceLocal   = {"local", "local", LocalCheck, LocalPattern, NULL, LocalValues, PETSC_FALSE, NULL, NULL, NULL, NULL};

/* A local block without rows has nothing to factor or solve, whatever its type and grid: ilu->empty, an empty factor (as PETSc's ILU) */
static PetscErrorCode StructILUSetUpEmpty(Mat F, Mat A)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscInt       m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  if (m && !ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(StructILUReset(F));
  ilu->empty    = (PetscBool)(m == 0);
  ilu->zerorow  = -1;
  ilu->rangerow = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A MATSEQSBAIJ stores the upper triangle of a symmetric matrix; the grid analysis, the extraction and the fallback read rows
  whole, so they read an AIJ (block size 1) or BAIJ image of the whole matrix: made when the SBAIJ's pattern is new (then the
  block is analyzed again), its values refreshed otherwise. *B is the image, or A itself for every other type.
*/
static PetscErrorCode StructILUGetImage(Mat F, Mat A, Mat *B)
{
  Mat_StructILU   *ilu = (Mat_StructILU *)F->data;
  PetscBool        sbaij;
  PetscObjectState state;
  PetscInt         bs;

  PetscFunctionBegin;
  *B = A;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPISBAIJ, &sbaij));
  PetscCheck(!sbaij, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "PCSTRUCTILU reads SBAIJ on one process only (MATSEQSBAIJ), not %s: use -dm_mat_type aij or baij (or -mat_type), or convert it with MatConvert()", ((PetscObject)A)->type_name);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  if (!sbaij) {
    PetscCall(MatDestroy(&ilu->image));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetNonzeroState(A, &state));
  PetscCall(MatGetBlockSize(A, &bs));
  if (ilu->image && state == ilu->imagestate) PetscCall(MatConvert(A, ((PetscObject)ilu->image)->type_name, MAT_REUSE_MATRIX, &ilu->image));
  else {
    PetscCall(MatDestroy(&ilu->image));
    PetscCall(MatConvert(A, bs > 1 ? MATSEQBAIJ : MATSEQAIJ, MAT_INITIAL_MATRIX, &ilu->image));
    ilu->imagestate = state;
    ilu->analyzed   = PETSC_FALSE; /* a new matrix: its nonzero state says nothing about the last analysis */
  }
  *B = ilu->image;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSetUp(Mat F)
{
  Mat_StructILU            *ilu = (Mat_StructILU *)F->data;
  Mat                       A   = ilu->A, Alocal, Aimage;
  PetscMPIInt               size;
  PetscBool                 isbaij, isstencil, fresh = PETSC_FALSE;
  PetscObjectState          state;
  const GILUStencilMat     *msm;
  const StructILUSourceOps *src;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSquare(A));
  PetscCall(PetscGILUCitationsRegister(GILU_CITE_STRUCTILU));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCheck(!ilu->opt.eisenstat || size == 1, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "-%spc_structilu_eisenstat runs on one process only (the sweeps do not include the couplings between processes); use -%spc_structilu_eisenstat 0 in parallel", GILUPrefix(F), GILUPrefix(F));
  PetscCall(MatStencilGPUGetStencilMat(A, &isstencil, &msm));
  PetscCall(StructILUGetImage(F, A, &Aimage));
  PetscCall(StructILUSetUpEmpty(F, Aimage));
  if (size > 1 && ilu->opt.distributed) {
    /* the global factors' setup and solves are collective (the pipeline's communicator, its scatters): a process without
       rows that returned here would leave the others waiting for it */
    PetscMPIInt rank, first;
    const char *pre = GILUPrefix(F);

    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
    rank = ilu->empty ? rank : size;
    PetscCallMPI(MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)A)));
    PetscCheck(first == size, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The global structured-grid factors need rows on every process, and process %d owns none: use -%s%s%s%s", first, pre, ilu->asfactor ? "pc_type bjacobi (each process's block factored, none where it has no rows) with -" : "pc_structilu_distributed 0 (block Jacobi)", ilu->asfactor ? pre : "", ilu->asfactor ? "sub_pc_factor_mat_solver_type structilu" : "");
  }
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  if (isstencil) {
    PetscCheck(size == 1 || !ilu->opt.distributed, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "-%spc_structilu_distributed does not take a MATSTENCILGPU matrix yet (each process factors its own box of it: block Jacobi): use -dm_mat_type aij or baij, or -%spc_structilu_distributed 0", GILUPrefix(F), GILUPrefix(F));
    src = &StructILUSourceStencil;
  } else {
    PetscCall(GILUMatCheckSupported(Aimage, &isbaij));
    src = size > 1 && ilu->opt.distributed ? &StructILUSourceDistributed : &StructILUSourceLocal; /* the global factors across the processes: structilu-dist.c */
  }
  PetscCall(src->check(F, &state));
  PetscCall(PetscLogEventBegin(GILU_StencilExtract, 0, A, 0, 0));
  if (!ilu->analyzed || state != ilu->blockstate || src != ilu->source) {
    PetscCall(StructILUReset(F));
    ilu->sm.nthreads = ilu->opt.threads;
    PetscCall(src->pattern(F));
    ilu->analyzed   = PETSC_TRUE;
    ilu->blockstate = state;
    ilu->source     = src;
    fresh           = PETSC_TRUE;
    if (!ilu->fallbackwhy[0]) {
      PetscCall(StructILUCheckSymmetric(F, &ilu->sm.stencil));
      PetscCall(StructILUSymbolicFinish(&ilu->sm, (PetscBool)(ilu->opt.type == PC_STRUCTILU_IC), &ilu->elim, &ilu->mirror, ilu->hyper, &ilu->nlevels, &ilu->dinv));
      if (src->finish) PetscCall(src->finish(F));
    }
  }
  if (ilu->fallbackwhy[0]) { /* not a structured grid (only the local source allows it): a general sparse ILU(k) of the block */
    PetscCall(PetscLogEventEnd(GILU_StencilExtract, 0, A, 0, 0));
    PetscCall(LocalBlock(F, &Alocal));
    PetscCall(StructILUFallbackFactor(F, Alocal, fresh));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(src->values(F, fresh));
  PetscCall(StructILUCheckSymmetric(F, NULL));
  PetscCall(PetscLogEventEnd(GILU_StencilExtract, 0, A, 0, 0));
  PetscCall(StructILUFactorValues(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUDeviceGetBackendOps(PetscGILUBackendType ran, const StructILUDeviceOps **ops)
{
  PetscFunctionBegin;
  PetscCheck(ran == PETSCGILU_BACKEND_CUDA || ran == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The StructILU device kernels run on the back-end cuda or cudaemu, not %s", PetscGILUBackendTypes[ran]);
  GILUBackendGetDeviceOps(ran, StructILUDeviceGetOps, ops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The back-end of this setup; for cuda and cudaemu the device schedule (once per pattern) and the factors (each setup) */
static PetscErrorCode StructILUSetUpDevice(Mat F)
{
  Mat_StructILU       *ilu  = (Mat_StructILU *)F->data;
  PetscGILUBackendType want = ilu->opt.backend, ran;

  PetscFunctionBegin;
  ilu->devfactored = PETSC_FALSE;
  if (ilu->source->hostonly) { /* across processes: the host (structilu-dist.c checked that no device was asked for) */
    ilu->ran = PETSCGILU_BACKEND_HOST;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ilu->opt.backendset) PetscCall(PetscGILUGetBackend(&want));
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)F), want, &ran));
  if (ilu->dev && ran != ilu->ran) PetscCall(ilu->devops->destroy(&ilu->dev));
  ilu->ran = ran;
  if (ran == PETSCGILU_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  /* before the device factorization, which has no DILU factors (the check of StructILUFactorValues() is the host's) */
  PetscCheck(!ilu->opt.eisenstat, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "-%spc_structilu_eisenstat needs DILU factors, which the host back-end makes, not %s: use -%spc_structilu_backend host (or -%spc_structilu_eisenstat 0)", GILUPrefix(F), PetscGILUBackendTypes[ran], GILUPrefix(F), GILUPrefix(F));
  PetscCall(StructILUDeviceGetBackendOps(ran, &ilu->devops));
  if (!ilu->dev) PetscCall(ilu->devops->create(&ilu->sm, ilu->opt.mapping, ilu->opt.tilepoints, ilu->opt.pipeline, ilu->opt.nowait, &ilu->dev, &ilu->devinfo));
  if (ilu->opt.cudafactor) {
    const PetscBool single = (PetscBool)(ilu->opt.precision == PC_STRUCTILU_PRECISION_SINGLE), ic = (PetscBool)(ilu->opt.type == PC_STRUCTILU_IC);
    const PetscInt  nl = ilu->sm.stencil.nlower, nu = ilu->sm.stencil.ns - nl - 1;

    PetscCall(ilu->devops->factor(ilu->dev, &ilu->sm, ilu->elim, ilu->mirror, ilu->opt.zeropivot, single, ilu->opt.cudamma, ilu->opt.factorpipe, &ilu->zerorow, &ilu->usedmma, &ilu->rangerow));
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
static PetscErrorCode StructILUFactorValues(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  Mat            A   = ilu->A;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GILU_StructILUFactor, 0, A, 0, 0));
  ilu->symvalid = PETSC_FALSE;        /* the symmetric split is of these factors */
  PetscCall(StructILUSetUpDevice(F)); /* the back-end; on cuda/cudaemu the factorization too, unless -pc_structilu_cuda_factor 0 */
  if (!ilu->devfactored) {
    const PetscBool single = (PetscBool)(ilu->opt.precision == PC_STRUCTILU_PRECISION_SINGLE);
    /* DILU: a star stencil's ILU(0) changes only the diagonal; the solves read the matrix's blocks (host, double) */
    const PetscBool dilu = (PetscBool)((ilu->opt.diagstorage || ilu->opt.eisenstat) && !single && !ilu->dev && StructILUStencilIsDILU(&ilu->sm.stencil, ilu->elim));

    if (ilu->opt.eisenstat && !dilu) {
      char name[64];

      PetscCall(GILUStencilGetName(&ilu->sm.stencil, ilu->sm.grid.dim, name, sizeof(name)));
      SETERRQ(PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "-%spc_structilu_eisenstat needs DILU factors: ILU(0) of a stencil whose factorization changes only the diagonal (a star stencil; this one is %s), double precision and the host back-end", GILUPrefix(F), name);
    }
    if (dilu) {
      if (ilu->opt.eisenstat && !ilu->diag) PetscCall(PetscMalloc2((size_t)ilu->sm.npoints * ilu->sm.bs2, &ilu->diag, (size_t)ilu->sm.npoints * ilu->sm.bs2, &ilu->eisE));
      PetscCall(StructILUFactorDiagonal_Host(&ilu->sm, ilu->mirror, ilu->opt.zeropivot, ilu->dinv, ilu->diag, &ilu->zerorow));
      if (ilu->opt.eisenstat) { /* E = A_D - 2 D */
        const size_t       n  = (size_t)ilu->sm.npoints * ilu->sm.bs2;
        const PetscScalar *AD = ilu->sm.val + (size_t)ilu->sm.stencil.nlower * n;

        for (size_t t = 0; t < n; t++) ilu->eisE[t] = AD[t] - 2.0 * ilu->diag[t];
      }
    } else PetscCall(StructILUFactor_Host(&ilu->sm, ilu->elim, ilu->mirror, ilu->opt.zeropivot, ilu->dinv, &ilu->zerorow));
    if (ilu->source->factored) PetscCall(ilu->source->factored(F));
    PetscCall(StructILUFactorsStore_Host(&ilu->sm, ilu->dinv, ilu->mirror, single, dilu, &ilu->factors, &ilu->rangerow));
    if (ilu->dev) PetscCall(ilu->devops->setfactors(ilu->dev, &ilu->factors));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUFactor, 0, A, 0, 0));
  if (ilu->source->pivot) PetscCall(ilu->source->pivot(F));
  PetscCall(StructILUCheckPivot(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device solve as GILUVecApplyDevice() calls it */
static PetscErrorCode StructILUSolveDevice(void *ctx, const PetscScalar *b, PetscScalar *x)
{
  Mat_StructILU *ilu = (Mat_StructILU *)ctx;

  PetscFunctionBegin;
  PetscCall(ilu->devops->solve(ilu->dev, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device solve of a block of columns as GILUMatDenseApplyDevice() calls it */
static PetscErrorCode StructILUSolveMultipleDevice(void *ctx, PetscInt m, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx)
{
  Mat_StructILU *ilu = (Mat_StructILU *)ctx;

  PetscFunctionBegin;
  PetscCall(ilu->devops->solvemultiple(ilu->dev, m, b, ldb, x, ldx, &ilu->matgroup));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The applies log their event without the PC: a process with no rows or a failed factorization returns before it,
  and an event of a parallel object synchronizes its processes under -log_sync (which PETSc's test harness turns
  on with -petsc_ci since 3.19): the others would wait there forever. The work logged is each process's own.
*/
PetscErrorCode StructILUApply(Mat F, Vec x, Vec y)
{
  Mat_StructILU     *ilu = (Mat_StructILU *)F->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS); /* no local entries */
  if (ilu->zerorow >= 0 || ilu->rangerow >= 0) {      /* the factorization failed: let the Krylov method see it */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, x, y, 0));
  if (ilu->fallback) PetscCall(StructILUFallbackSolve(F, x, y, MatSolve));
  else if (ilu->dev) {
    /* device arrays: CUDA vectors' own, else the device's buffers with logged copies (src/sys/device-vec.c) */
    void *bbuf, *xbuf;

    PetscCall(ilu->devops->buffers(ilu->dev, 1, &bbuf, &xbuf));
    PetscCall(GILUVecApplyDevice(x, y, ilu->ran, bbuf, xbuf, StructILUSolveDevice, ilu, &ilu->devnative));
  } else {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    if (ilu->source->solve) PetscCall(ilu->source->solve(F, PETSC_FALSE, 1, xa, 0, ya, 0));
    else PetscCall(StructILUSolve_Host(&ilu->sm, &ilu->factors, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-T} x on the host, whatever the back-end: after a factorization on the device, the host factors the same values once first */
PetscErrorCode StructILUApplyTranspose(Mat F, Vec x, Vec y)
{
  Mat_StructILU     *ilu = (Mat_StructILU *)F->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS); /* no local entries */
  if (ilu->zerorow >= 0 || ilu->rangerow >= 0) {
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->fallback) { /* not a structured grid: the general factor's transposed solve */
    PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, x, y, 0));
    PetscCall(StructILUFallbackSolve(F, x, y, MatSolveTranspose));
    PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ilu->transposed = PETSC_TRUE;
  if (!ilu->factors.dinv) { /* factored on the device only: sm holds the unfactored values */
    PetscCall(PetscLogEventBegin(GILU_StructILUFactor, 0, 0, 0, 0));
    PetscCall(StructILUFactor_Host(&ilu->sm, ilu->elim, ilu->mirror, ilu->opt.zeropivot, ilu->dinv, &ilu->zerorow));
    PetscCall(StructILUFactorsStore_Host(&ilu->sm, ilu->dinv, ilu->mirror, (PetscBool)(ilu->opt.precision == PC_STRUCTILU_PRECISION_SINGLE), PETSC_FALSE, &ilu->factors, &ilu->rangerow));
    PetscCall(PetscLogEventEnd(GILU_StructILUFactor, 0, 0, 0, 0));
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (ilu->source->solve) PetscCall(ilu->source->solve(F, PETSC_TRUE, 1, xa, 0, ya, 0));
  else PetscCall(StructILUSolveTranspose_Host(&ilu->sm, &ilu->factors, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  X = (LU)^{-1} B for the columns of a dense B (KSPMatSolve(), KSPPREONLY's and the block methods'), each column bitwise what
  PCApply() gives it, one call (and one PCMatApply event) for them all. The host sweeps (one process's grid) run every tile on
  all the columns in turn (StructILUSolveMultiple_Host(): the tile's factors from cache after the first column); the device's
  sweeps run every tile (level of a block of lines) on the columns of a group between one wait and one release (the device's
  solvemultiple: the factors read once per group), through the device's buffers, one copy each way, or a CUDA dense matrix's
  own array (GILUMatDenseApplyDevice()); the pipeline across processes (the source's solve) one pass per group of columns,
  its messages carrying every column of the group. Otherwise the columns in turn through the apply of this setup's back-end. X may be B (MatMatSolve(F, B, B),
  which PETSc allows for a dense B): the pipeline solves copies anyway; elsewhere each column is then copied and solved
  back into its place.
*/
PetscErrorCode StructILUMatApply(Mat F, Mat B, Mat X)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscInt       N;
  Vec            w = NULL;
  PetscBool      dense, block;
  Mat            Bl, Xl;

  PetscFunctionBegin;
  /* before a column is taken: a column of B left taken by an error would refuse every later use of B */
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)B, &dense, MATSEQDENSE, MATMPIDENSE, ""));
  PetscCheck(dense, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONG, "MatMatSolve() of MatSolverType structilu needs a MATDENSE right-hand side, not %s", ((PetscObject)B)->type_name);
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)X, &dense, MATSEQDENSE, MATMPIDENSE, ""));
  PetscCheck(dense, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONG, "MatMatSolve() of MatSolverType structilu needs a MATDENSE solution, not %s", ((PetscObject)X)->type_name);
  PetscCall(MatGetSize(B, NULL, &N));
  /* this process's rows (a MATSEQDENSE is its own): the columns of a MATMPIDENSE would be made collectively, and the
     processes need not take the same path below (an empty block, a failed or fallback factorization is a process's own;
     not in the pipeline across processes, below) */
  PetscCall(MatDenseGetLocalMatrix(B, &Bl));
  PetscCall(MatDenseGetLocalMatrix(X, &Xl));
  /* the whole block in one pass: the device's sweeps, the host sweeps of one process's grid, or the pipeline across
     processes (in place too: it solves copies over its extended box; all its processes take this test's answer: N is
     global, the pivots are all the processes', and an empty process or a fallback is an error there) */
  block = (PetscBool)(N > 1 && !ilu->empty && ilu->zerorow < 0 && ilu->rangerow < 0 && !ilu->fallback && (X != B || ilu->source->solve)); /* (an empty factor has no source) */
  if (block) {
    PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, B, X, 0));
    if (ilu->dev) {
      void *bbuf, *xbuf;

      PetscCall(ilu->devops->buffers(ilu->dev, N, &bbuf, &xbuf));
      PetscCall(GILUMatDenseApplyDevice(Bl, Xl, ilu->ran, bbuf, xbuf, StructILUSolveMultipleDevice, ilu, &ilu->devnative));
    } else {
      PetscInt           ldb, ldx;
      const PetscScalar *ba;
      PetscScalar       *xa;

      PetscCall(MatDenseGetLDA(Bl, &ldb));
      PetscCall(MatDenseGetLDA(Xl, &ldx));
      if (X == B) { /* (the pipeline's) */
        PetscCall(MatDenseGetArray(Xl, &xa));
        ba = xa;
      } else {
        PetscCall(MatDenseGetArrayRead(Bl, &ba));
        PetscCall(MatDenseGetArrayWrite(Xl, &xa));
      }
      if (ilu->source->solve) PetscCall(ilu->source->solve(F, PETSC_FALSE, N, ba, ldb, xa, ldx));
      else PetscCall(StructILUSolveMultiple_Host(&ilu->sm, &ilu->factors, N, ba, ldb, xa, ldx, &ilu->matgroup));
      if (X == B) PetscCall(MatDenseRestoreArray(Xl, &xa));
      else {
        PetscCall(MatDenseRestoreArrayWrite(Xl, &xa));
        PetscCall(MatDenseRestoreArrayRead(Bl, &ba));
      }
    }
    PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, B, X, 0));
    ilu->matapplied = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt c = 0; c < N; c++) {
    Vec b, x;

    if (X == B) {
      PetscCall(MatDenseGetColumnVec(Xl, c, &x));
      if (!w) PetscCall(VecDuplicate(x, &w));
      PetscCall(VecCopy(x, w));
      PetscCall(StructILUApply(F, w, x));
      PetscCall(MatDenseRestoreColumnVec(Xl, c, &x));
      continue;
    }
    PetscCall(MatDenseGetColumnVecRead(Bl, c, &b));
    PetscCall(MatDenseGetColumnVecWrite(Xl, c, &x));
    PetscCall(StructILUApply(F, b, x));
    PetscCall(MatDenseRestoreColumnVecWrite(Xl, c, &x));
    PetscCall(MatDenseRestoreColumnVecRead(Bl, c, &b));
  }
  PetscCall(VecDestroy(&w));
  ilu->matapplied = PETSC_TRUE;
  ilu->matgroup   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The halves of IC's symmetric split M = S^T S (StructILUSymmetricSplit_Host()): -ksp_pc_side symmetric applies S^{-T} on the left
  and S^{-1} on the right, the convention of PCICC (MatForwardSolve(), MatBackwardSolve() of its factor), so a Krylov method gets
  the iterations it gets with PETSc's ICC of the same factors. On the host factors only: not with ILU (no symmetric split), DILU's
  Eisenstat trick, -pc_structilu_distributed, or factors that live on the device alone.
*/
PetscErrorCode StructILUApplySymmetric(Mat F, PetscBool right, Vec x, Vec y)
{
  Mat_StructILU     *ilu    = (Mat_StructILU *)F->data;
  const char        *prefix = GILUPrefix(F), *side = right ? "Right" : "Left";
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCheck(ilu->opt.type == PC_STRUCTILU_IC, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "PCApplySymmetric%s() (-ksp_pc_side symmetric) of PCSTRUCTILU needs the symmetric factors of -%spc_structilu_type ic; ILU has no symmetric split (use -ksp_pc_side left or right)", side, prefix);
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!ilu->source->hostonly, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%spc_structilu_distributed has no symmetric apply (PCApplySymmetric%s(), -ksp_pc_side symmetric): use -%spc_structilu_distributed 0 (block Jacobi) or -ksp_pc_side left", prefix, side, prefix);
  if (ilu->zerorow >= 0 || ilu->rangerow >= 0) {
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, x, y, 0));
  if (ilu->fallback) PetscCall(StructILUFallbackSolve(F, x, y, right ? MatBackwardSolve : MatForwardSolve)); /* PETSc's ICC factor of the block */
  else {
    PetscCheck(ilu->factors.dinv, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCApplySymmetric%s() of PCSTRUCTILU runs the host sweeps, and the factors of -%spc_structilu_backend %s are on the device only: use -%spc_structilu_cuda_factor 0 (factored on the host, copied to the device) or -%spc_structilu_backend host", side, prefix,
               PetscGILUBackendTypes[ilu->ran], prefix, prefix);
    if (!ilu->symvalid) {
      if (!ilu->symR) PetscCall(PetscMalloc1((size_t)ilu->sm.npoints * ilu->sm.bs2, &ilu->symR));
      PetscCall(StructILUSymmetricSplit_Host(&ilu->sm, &ilu->factors, ilu->symR, &ilu->symbad));
      ilu->symvalid = PETSC_TRUE;
    }
    if (ilu->symbad >= 0) { /* a diagonal block of the factors is not positive definite: no real split */
      PetscCall(PetscInfo(F, "IC's diagonal block of local row %" PetscInt_FMT " is not positive definite: no symmetric split\n", ilu->symbad));
      PetscCall(VecFlag(y, 1));
    } else {
      PetscCall(VecGetArrayRead(x, &xa));
      PetscCall(VecGetArrayWrite(y, &ya));
      PetscCall(StructILUSolveSymmetric_Host(&ilu->sm, &ilu->factors, ilu->symR, right, xa, ya));
      PetscCall(VecRestoreArrayWrite(y, &ya));
      PetscCall(VecRestoreArrayRead(x, &xa));
    }
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
