/*
   MatSolverType "structilu": StructILU as the ILU/ICC factorization of MatGetFactor(), so that PCILU and PCICC, and
   through them the sub-solvers of PCBJACOBI, PCASM and PCMG's smoothers and every SNES refactorization, run the
   structured-grid ILU(k)/IC(k) without knowing of it (-pc_factor_mat_solver_type structilu).

   The factor holds a PCSTRUCTILU context and runs its setup, factorization and applies: one setup path (grid
   discovery from the matrix's DMDA or its pattern, the stencil analysis, the back-end, the general sparse
   fallback of a block that is no grid, the global factors across processes) serves the PC and the factor. What the
   factor interface decides comes from MatFactorInfo: levels, zero pivot, ILU or IC, and the shift; the context's
   own options (threads, back-end, precision, device mapping) are read under the PC's prefix
   (-pc_structilu_backend cuda, -sub_pc_structilu_threads 2). As PETSc's ICC, the IC reads the upper triangle.
*/
#include <petsc/private/matimpl.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/stencilgpu.h>
#include "structilu.h"

typedef struct {
  PC             pc;      /* PCSTRUCTILU: the grid, the factors, the back-end (never set up through PCSetUp()'s options) */
  MatFactorType  ftype;   /* MAT_FACTOR_ILU or MAT_FACTOR_ICC */
  MatFactorInfo  info;    /* of the symbolic factorization */
  Mat            shifted; /* ICC under -pc_factor_shift_type positive_definite with a pivot block that is not positive
                            definite: PETSc's shifted ICC of the matrix (its AIJ image), whose solves are used; else NULL */
  PetscInt       badrow;  /* the first row of that pivot block */
  PetscLogDouble anz;     /* nonzeros of the (local) matrix at the last factorization: the fill ratio needed */
} Mat_StructILUFactor;

static PetscErrorCode StructILUFactorSetSolveOps(Mat);

/* Whether the symmetric d x d block a is positive definite: its Cholesky factorization exists */
static PetscBool BlockPositiveDefinite(const PetscScalar *a, PetscInt d)
{
  PetscReal l[GILU_MAX_DOF * GILU_MAX_DOF];

  for (PetscInt k = 0; k < d; k++) {
    for (PetscInt i = k; i < d; i++) {
      PetscReal t = PetscRealPart(a[i * d + k]);

      for (PetscInt j = 0; j < k; j++) t -= l[i * d + j] * l[k * d + j];
      if (i == k) {
        if (!(t > 0)) return PETSC_FALSE;
        l[k * d + k] = PetscSqrtReal(t);
      } else l[i * d + k] = t / l[k * d + k];
    }
  }
  return PETSC_TRUE;
}

/*
  ICC with PCICC's default -pc_factor_shift_type positive_definite: the structured-grid IC has no shift, so as long as
  every pivot block is positive definite (no shift needed) its factors are PETSc's; when one is not, PETSc's shifted
  ICC of the matrix is computed and its solves used (said once with -info and in the view), so PCICC behaves as on
  MATAIJ. On several processes (the global factors) there is no sequential ICC to hand over to: the factorization fails.
*/
static PetscErrorCode StructILUFactorShiftPositiveDefinite(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_StructILUFactor  *f   = (Mat_StructILUFactor *)F->data;
  PC_StructILU         *ilu = (PC_StructILU *)f->pc->data;
  const PetscInt        d   = ilu->sm.grid.dof;
  PetscInt              bad = -1;
  PetscMPIInt           size;
  Mat                   B;
  PetscBool             stencil, avail;
  const GILUStencilMat *msm;

  PetscFunctionBegin;
  f->badrow = -1;
  if (f->ftype != MAT_FACTOR_ICC || f->info.shifttype != (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE || ilu->empty || ilu->fallback || ilu->zerorow >= 0) {
    if (f->shifted) PetscCall(StructILUFactorSetSolveOps(F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt p = 0; p < ilu->sm.npoints && bad < 0; p++)
    if (!BlockPositiveDefinite(ilu->dinv + (size_t)p * ilu->sm.bs2, d)) bad = p * d; /* the inverse of a positive definite block is positive definite */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) { /* the pipeline's factors: a failure on any process is one of all of them */
    PetscInt gbad;

    PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (gbad >= 0) {
      PetscCheck(!A->erroriffailure, PetscObjectComm((PetscObject)A), PETSC_ERR_MAT_CH_ZRPVT, "The structured-grid IC across processes has a pivot block that is not positive definite and no positive-definite shift: use -%spc_factor_shift_type none (or ILU)", A->factorprefix ? A->factorprefix : "");
      PetscCall(PetscInfo(A, "A pivot block of the structured-grid IC is not positive definite (local point row %" PetscInt_FMT ")\n", bad));
      F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
      F->factorerror_zeropivot_row   = PetscMax(bad, 0);
      F->factorerror_zeropivot_value = 0;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (bad < 0) {
    if (f->shifted) PetscCall(StructILUFactorSetSolveOps(F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  f->badrow = bad;
  PetscCall(MatStencilGPUGetStencilMat(A, &stencil, &msm));
  if (stencil) PetscCall(MatStencilGPUGetAIJ(A, "PETSc's ICC with a positive-definite shift", &B));
  else {
    PetscCall(MatGetFactorAvailable(A, MATSOLVERPETSC, MAT_FACTOR_ICC, &avail));
    if (avail) {
      PetscCall(PetscObjectReference((PetscObject)A));
      B = A;
    } else PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
  }
  if (!f->shifted) {
    IS perm;

    PetscCall(PetscInfo(A, "MatSolverType structilu: the structured-grid IC has a pivot block that is not positive definite (local row %" PetscInt_FMT "): -%spc_factor_shift_type positive_definite, so PETSc's shifted ICC is used\n", bad, A->factorprefix ? A->factorprefix : ""));
    PetscCall(MatGetFactor(B, MATSOLVERPETSC, MAT_FACTOR_ICC, &f->shifted));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, B->rmap->n, 0, 1, &perm));
    PetscCall(MatICCFactorSymbolic(f->shifted, B, perm, &f->info));
    PetscCall(ISDestroy(&perm));
  }
  PetscCall(MatCholeskyFactorNumeric(f->shifted, B, info));
  if (!stencil) PetscCall(MatDestroy(&B));            /* (the stencil matrix keeps its AIJ image) */
  PetscCall(GILUMatFactorSetDelegate(F, f->shifted)); /* its solves and its factor error */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorNumeric_StructILU(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_StructILUFactor *f = (Mat_StructILUFactor *)F->data;
  PC_StructILU        *ilu;

  PetscFunctionBegin;
  PetscCall(PCSetErrorIfFailure(f->pc, A->erroriffailure));
  PetscCall(PCSetOperators(f->pc, A, A));
  PetscCall(PCSetUp(f->pc)); /* a matrix whose values did not change since the last factorization keeps its factors */
  {
    MatInfo ainfo;

    PetscCall(MatGetInfo(((PC_StructILU *)f->pc->data)->image ? ((PC_StructILU *)f->pc->data)->image : A, MAT_LOCAL, &ainfo)); /* (an SBAIJ's: the whole matrix's) */
    f->anz = ainfo.nz_used;
  }
  ilu                            = (PC_StructILU *)f->pc->data;
  F->factorerrortype             = MAT_FACTOR_NOERROR;
  F->factorerror_zeropivot_row   = 0;
  F->factorerror_zeropivot_value = 0;
  if (ilu->zerorow >= 0) {
    F->factorerrortype           = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_row = ilu->zerorow;
  } else if (ilu->rangerow >= 0) F->factorerrortype = MAT_FACTOR_OTHER;
  PetscCall(StructILUFactorShiftPositiveDefinite(F, A, info));
  F->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The applies call the context's own (not PCApply()): the outer PC's apply is the one logged, once, with StructILUApply
  inside it. A failed factorization is not applied (the outer PC has set its failed reason and the Krylov method stops).
  With PETSc's shifted ICC in charge (StructILUFactorShiftPositiveDefinite()) its solves serve instead (GILUMatFactorSetDelegate()).
*/
static PetscErrorCode MatSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PCApply_StructILU(((Mat_StructILUFactor *)F->data)->pc, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PCApplyTranspose_StructILU(((Mat_StructILUFactor *)F->data)->pc, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_StructILU(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(PCMatApply_StructILU(((Mat_StructILUFactor *)F->data)->pc, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ICC's halves for -ksp_pc_side symmetric: PETSc's split (PCApplySymmetricLeft/Right of PCSTRUCTILU's IC) */
static PetscErrorCode MatForwardSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetricLeft_StructILU(((Mat_StructILUFactor *)F->data)->pc, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBackwardSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetricRight_StructILU(((Mat_StructILUFactor *)F->data)->pc, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's own solves (again, after PETSc's shifted ICC served) */
static PetscErrorCode StructILUFactorSetSolveOps(Mat F)
{
  Mat_StructILUFactor *f = (Mat_StructILUFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&f->shifted));
  PetscCall(GILUMatFactorSetDelegate(F, NULL));
  F->ops->solve             = MatSolve_StructILU;
  F->ops->solvetranspose    = MatSolveTranspose_StructILU;
  F->ops->matsolve          = MatMatSolve_StructILU;
  F->ops->forwardsolve      = f->ftype == MAT_FACTOR_ICC ? MatForwardSolve_StructILU : NULL;
  F->ops->backwardsolve     = f->ftype == MAT_FACTOR_ICC ? MatBackwardSolve_StructILU : NULL;
  F->ops->solveadd          = NULL;
  F->ops->matsolvetranspose = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  What the symbolic factorizations share: the factor options PCStructILU cannot honour are errors that name the option;
  the context takes levels, type and zero pivot from the factor, its own options from the PC's prefix
*/
static PetscErrorCode StructILUFactorSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_StructILUFactor *f   = (Mat_StructILUFactor *)F->data;
  const char          *pre = A->factorprefix ? A->factorprefix : "";
  const PetscBool      ic  = (PetscBool)(f->ftype == MAT_FACTOR_ICC);
  PC_StructILU        *ilu = (PC_StructILU *)f->pc->data;
  PetscBool            rid = PETSC_TRUE, cid = PETSC_TRUE, set;
  PetscMPIInt          size;
  const char *const    own[] = {"pc_structilu_levels", "pc_structilu_type", "pc_structilu_zeropivot", "pc_structilu_eisenstat"};
  const char *const    use[] = {"use -%spc_factor_levels", "use -%spc_type ilu or icc", "use -%spc_factor_zeropivot", "the Eisenstat trick is -%spc_type structilu's"};
  char                 name[256], hint[256];

  PetscFunctionBegin;
  if (row) PetscCall(ISIdentity(row, &rid));
  if (col) PetscCall(ISIdentity(col, &cid));
  PetscCheck(rid && cid, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu factors in the natural ordering of the grid only: use -%spc_factor_mat_ordering_type natural", pre);
  PetscCheck(info->shifttype == (PetscReal)MAT_SHIFT_NONE || info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS || (ic && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE), PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu has no diagonal shift%s: use -%spc_factor_shift_type none, or -%spc_factor_mat_solver_type petsc", ic ? " (ICC: positive_definite hands a factorization that needs one to PETSc's ICC)" : "", pre, pre);
  PetscCheck(info->levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be non-negative, not %g (-%spc_factor_levels)", (double)info->levels, pre);
  PetscCheck(info->diagonal_fill == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu keeps the pattern of the grid's stencil: leave -%spc_factor_diagonal_fill out", pre);
  PetscCheck(info->levels == (PetscReal)(PetscInt)info->levels, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be an integer, not %g (-%spc_factor_levels)", (double)info->levels, pre);
  for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", own[k]));
    PetscCall(PetscOptionsHasName(((PetscObject)A)->options, pre, name, &set));
    PetscCall(PetscSNPrintf(hint, sizeof(hint), use[k], pre));
    PetscCheck(!set, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%s%s is an option of -%spc_type structilu; with -%spc_factor_mat_solver_type structilu the factorization's options decide: %s", pre, own[k], pre, pre, hint);
  }
  f->info = *info;
  {
    PetscObject obj = (PetscObject)f->pc;

    PetscObjectOptionsBegin(obj);
    PetscCall(f->pc->ops->setfromoptions(f->pc, PetscOptionsObject)); /* the type's options only: PCSetFromOptions() would read -pc_type */
    PetscOptionsEnd();
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PCStructILUSetType(f->pc, ic ? PC_STRUCTILU_IC : PC_STRUCTILU_ILU));
  PetscCall(PCStructILUSetLevels(f->pc, (PetscInt)info->levels));
  PetscCall(PCStructILUSetZeroPivot(f->pc, info->zeropivot));
  if (size > 1) PetscCall(PCStructILUSetDistributed(f->pc, PETSC_TRUE)); /* the global factors, as PETSc's ILU would be on one process */
  ilu->factorinfo = f->info;
  /* the positive-definite check reads the inverted pivot blocks that the host factorization keeps */
  if (ic && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE) ilu->cudafactor = PETSC_FALSE;
  F->ops->lufactornumeric       = MatFactorNumeric_StructILU;
  F->ops->choleskyfactornumeric = MatFactorNumeric_StructILU;
  PetscCall(StructILUFactorSetSolveOps(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_StructILU(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorSymbolic(F, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_StructILU(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_StructILUFactor *f   = (Mat_StructILUFactor *)F->data;
  PC_StructILU        *ilu = (PC_StructILU *)f->pc->data;

  PetscFunctionBegin;
  if (ilu->fallback) PetscCall(MatGetInfo(ilu->fallback, flag, info));
  else {
    const PetscLogDouble nz = (PetscLogDouble)ilu->factors.noffsets * ilu->sm.npoints * ilu->sm.bs2 + (PetscLogDouble)ilu->sm.npoints * ilu->sm.bs2;

    PetscCall(PetscMemzero(info, sizeof(*info)));
    info->block_size        = ilu->sm.grid.dof ? ilu->sm.grid.dof : 1;
    info->nz_allocated      = nz;
    info->nz_used           = nz;
    info->memory            = (PetscLogDouble)ilu->factors.bytes;
    info->assemblies        = F->num_ass;
    info->fill_ratio_given  = f->info.fill;
    info->fill_ratio_needed = f->anz > 0 ? nz / f->anz : 0; /* what the factors store over the matrix's nonzeros */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_StructILU(Mat F, PetscViewer viewer)
{
  Mat_StructILUFactor *f = (Mat_StructILUFactor *)F->data;
  PetscBool            ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "StructILU factorization (MatSolverType structilu, the factors of PCSTRUCTILU):\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(f->pc->ops->view(f->pc, viewer));
  if (f->shifted) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "the pivot block of local row %" PetscInt_FMT " was not positive definite: PETSc's ICC with its positive-definite shift (-pc_factor_shift_type positive_definite) is used instead\n", f->badrow));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(f->shifted, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_StructILU(Mat F)
{
  Mat_StructILUFactor *f = (Mat_StructILUFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(PCDestroy(&f->pc));
  PetscCall(MatDestroy(&f->shifted));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSOLVERSTRUCTILU - "structilu": the structured-grid ILU(k) and IC(k) of `PCSTRUCTILU` as the ILU and ICC
   factorizations of `MatGetFactor()`, for `MATSEQAIJ`, `MATSEQBAIJ`, `MATSEQAIJCUSPARSE`, `MATSEQSTENCILGPU` and, with
   the global factors across processes, `MATMPIAIJ`, `MATMPIBAIJ` and `MATMPIAIJCUSPARSE`; ICC also for `MATSEQSBAIJ`

   Options Database Keys:
+  -pc_factor_mat_solver_type structilu - choose it for `PCILU` or `PCICC` (the default, and only, ILU of `MATSEQSTENCILGPU`)
.  -pc_factor_levels k - levels of fill, ILU(k) or IC(k)
.  -pc_factor_zeropivot tol - pivots at most this large are zero pivots
-  -pc_structilu_xxx - the options of `PCSTRUCTILU` that choose how it runs (threads, back-end, precision, device mapping)
   under the same prefix; its levels, type, zero pivot and Eisenstat options are those of the factorization instead

   Notes:
   With `PCILU` or `PCICC` the grid is found as `PCSTRUCTILU` finds it: the matrix's `DMDA` (a matrix from
   `DMCreateMatrix()`), `-pc_structilu_grid`, or its pattern; a (sub)matrix that is no structured grid is factored
   as a general sparse matrix by `MATSOLVERGILU` (ICC: by PETSc's), which `-ksp_view` says. So `-pc_type bjacobi
   -sub_pc_type ilu -sub_pc_factor_mat_solver_type structilu`, `PCASM` and `PCMG` smoothers get it too. On several
   processes the factors are the global ILU(k)/IC(k) of the `DMDA`'s grid (`-pc_structilu_distributed`): `PCILU`
   then iterates as on one process.

   Natural ordering only (`-pc_factor_mat_ordering_type natural`, `PCILU`'s default). No diagonal shift (none and
   inblocks are accepted); for ICC, `PCICC`'s default `-pc_factor_shift_type positive_definite` is honoured: as long as
   every pivot block is positive definite no shift is needed and the factors are PETSc's; when one is not, PETSc's
   shifted ICC of the matrix is computed and used (`-info` and `-ksp_view` say so; on several processes the factorization
   fails instead). That check needs the host factorization, which then runs (the solves stay on the device).

   ICC reads the upper triangle of the matrix, as PETSc's ICC. A `MATSEQSBAIJ` matrix (ICC only, as in PETSc) is read
   through an AIJ (block size 1) or BAIJ image of the whole matrix, made at the symbolic factorization and refreshed at
   each numeric one. A grid with more than 8 unknowns per point (a `DMDA` with dof > 8, a BAIJ block size above 8) is
   beyond the structured-grid kernels: it is factored as a block that is no grid is (`-ksp_view` says why). A zero pivot sets the factor error, so
   `KSPSolve()` returns `KSP_DIVERGED_PC_FAILED`. `MatSolveTranspose()`, `MatMatSolve()` and, for ICC,
   `MatForwardSolve()`/`MatBackwardSolve()` (`-ksp_pc_side symmetric`) are those of `PCSTRUCTILU`.

   Level: intermediate

   References:
.  * - Hao Luo, Qianchao Zhu, Xiaochen Hao, Chunxi Lei, Chengdi Ma, Chenchen Zhang, Yun Liang and Chao Yang, StructILU:
       Dependency-Preserving Incomplete LU with Hierarchical Parallelism for Structured Grid PDEs on GPUs, Proceedings of
       the 2025 International Conference on Supercomputing (ICS '25), ACM, 2025, doi:10.1145/3721145.3725745 (the StructILU paper)

.seealso: `PCSTRUCTILU`, `MATSTENCILGPU`, `PCILU`, `PCICC`, `MatGetFactor()`, `MATSOLVERGILU`
M*/
PETSC_INTERN PetscErrorCode MatGetFactor_StructILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat                  B;
  Mat_StructILUFactor *f;
  PC_StructILU        *ilu;
  MPI_Comm             comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, comm, PETSC_ERR_SUP, "MatSolverType structilu provides ILU and ICC factorizations only");
  {
    PetscBool sbaij;

    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
    PetscCheck(!sbaij || ftype == MAT_FACTOR_ICC, comm, PETSC_ERR_SUP, "A MATSEQSBAIJ matrix has ICC and Cholesky factorizations only (as in PETSc): use -%spc_type icc", A->factorprefix ? A->factorprefix : "");
  }
  { /* an ordering asked for on the command line: said here, before PCFactor computes it (MatGetOrdering() of a non-natural ordering needs the AIJ structure) */
    char      ordering[256];
    PetscBool set, natural;

    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, A->factorprefix, "-pc_factor_mat_ordering_type", ordering, sizeof(ordering), &set));
    if (set) {
      PetscCall(PetscStrcmp(ordering, MATORDERINGNATURAL, &natural));
      PetscCheck(natural, comm, PETSC_ERR_SUP, "MatSolverType structilu factors in the natural ordering of the grid only, not %s: use -%spc_factor_mat_ordering_type natural", ordering, A->factorprefix ? A->factorprefix : "");
    }
  }
  PetscCall(PetscNew(&f));
  f->ftype  = ftype;
  f->badrow = -1;
  PetscCall(PCCreate(comm, &f->pc));
  PetscCall(PCSetType(f->pc, PCSTRUCTILU));
  PetscCall(PCSetOptionsPrefix(f->pc, A->factorprefix));
  /* its own -help section: under the outer PC's prefix and title PETSc would count it as printed already */
  ((PetscObject)f->pc)->description = (char *)"MatSolverType structilu"; /* (a static string, as PetscHeaderCreate() takes it) */
  ilu                               = (PC_StructILU *)f->pc->data;
  ilu->asfactor                     = PETSC_TRUE;
  PetscCall(GILUMatCreateFactor(A, ftype, MATSOLVERSTRUCTILU, ((PetscObject)A)->type_name, f, &B));
  B->ops->ilufactorsymbolic = StructILUFactorSymbolic;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_StructILU;
  B->ops->getinfo           = MatGetInfo_StructILU;
  B->ops->view              = MatView_StructILU;
  B->ops->destroy           = MatDestroy_StructILU;
  *F                        = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
