/*
   MatGetFactor() of MATSEQSTENCILGPU, MatSolverType "structilu": PETSc's PCILU and PCICC (and
   PCBJACOBI/PCASM with -sub_pc_type ilu or icc) factor a stencilgpu matrix with the
   structured-grid ILU(k), or IC(k) (the upper triangle stored), of PCSTRUCTILU. The symbolic factorization
   (StructILUSymbolicStencil()), the numeric factorization and the solves are the host kernels the two share
   (src/mat/stencil/ilu.c, petscgilu/private/stencililu.h).
*/
#include <petsc/private/matimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/stencilgpu.h>
#include <petscgilu/private/stencililu.h>

typedef struct {
  GILUStencilMat   sm;          /* the factors, in place, on the ILU(levels) fill stencil */
  char             patname[64]; /* name of the matrix's own stencil */
  PetscInt         nsmat;       /* offsets of the matrix's own stencil */
  PetscInt         levels;
  PetscScalar     *dinv;    /* inverted diagonal blocks */
  StructILUFactors factors; /* what the solves read */
  PetscInt        *elim, *mirror;
  PetscInt         hyper[3], nlevels;
  PetscInt         zerorow; /* local row of a zero pivot, -1 if none */
  PetscReal        zeropivot;
  PetscReal        fill;    /* the fill ratio the PC expected (MatFactorInfo) */
  PetscBool        ic;      /* MAT_FACTOR_ICC: incomplete Cholesky, upper triangle stored */
  PetscBool        empty;   /* the matrix has no rows (a process that owns no grid points): nothing to factor or solve */
  MatFactorInfo    icinfo;  /* ICC: the MatFactorInfo of the symbolic factorization */
  Mat              aijfact; /* ICC with a pivot that is not positive under -pc_factor_shift_type positive_definite: PETSc's
                               shifted ICC of the AIJ copy, which the solves then use; NULL otherwise */
} Mat_StencilGPUFactor;

static PetscErrorCode FactorReset(Mat_StencilGPUFactor *f)
{
  PetscFunctionBegin;
  PetscCall(GILUStencilMatReset(&f->sm));
  PetscCall(StructILUFactorsReset_Host(&f->factors));
  PetscCall(PetscFree(f->dinv));
  PetscCall(PetscFree(f->elim));
  PetscCall(PetscFree(f->mirror));
  PetscCall(MatDestroy(&f->aijfact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the symmetric d x d block a (its lower triangle read) is positive definite: its Cholesky factorization exists */
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
  The ICC of PETSc (-pc_factor_shift_type positive_definite, PCICC's default) shifts the diagonal when a pivot is not
  positive. The structured-grid IC has no shift: a pivot block that is not positive definite (a scalar pivot of PETSc's
  ICC that is not positive: the pivot blocks are symmetric) or a zero pivot hands the factorization over to PETSc's ICC
  of the AIJ copy of the matrix, whose solves are then used, as with -dm_mat_type aij (said once with -info).
*/
static PetscErrorCode ICCShiftedThroughAIJ(Mat fact, Mat A, const MatFactorInfo *info, PetscBool *used)
{
  Mat_StencilGPUFactor *f   = (Mat_StencilGPUFactor *)fact->data;
  const PetscInt        d   = f->sm.grid.dof;
  PetscInt              bad = f->zerorow;
  Mat                   B;

  PetscFunctionBegin;
  *used = PETSC_FALSE;
  if (!f->ic || f->icinfo.shifttype != (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt p = 0; p < f->sm.npoints && bad < 0; p++)
    if (!BlockPositiveDefinite(f->dinv + (size_t)p * f->sm.bs2, d)) bad = p * d; /* the inverse of a positive definite block is positive definite */
  if (bad < 0) {
    PetscCall(MatDestroy(&f->aijfact));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatStencilGPUGetAIJ(A, "PETSc's ICC with a positive-definite shift", &B));
  if (!f->aijfact) {
    IS perm;

    PetscCall(PetscInfo(A, "MATSTENCILGPU: the structured-grid IC has a pivot that is not positive (local point row %" PetscInt_FMT "): -%spc_factor_shift_type positive_definite, so PETSc's shifted ICC of the AIJ copy is used\n", bad, A->factorprefix ? A->factorprefix : ""));
    PetscCall(MatGetFactor(B, MATSOLVERPETSC, MAT_FACTOR_ICC, &f->aijfact));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, B->rmap->n, 0, 1, &perm));
    PetscCall(MatICCFactorSymbolic(f->aijfact, B, perm, &f->icinfo));
    PetscCall(ISDestroy(&perm));
  }
  PetscCall(MatCholeskyFactorNumeric(f->aijfact, B, info));
  *used = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_StencilGPU_StructILU(Mat fact, Mat A, const MatFactorInfo *info)
{
  Mat_StencilGPUFactor *f = (Mat_StencilGPUFactor *)fact->data;
  const GILUStencilMat *msm;
  PetscBool             is;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(A, &is, &msm));
  PetscCheck(is, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The structilu factorization needs a MATSEQSTENCILGPU matrix");
  PetscCheck(msm->nonzerostate == f->sm.nonzerostate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The matrix's nonzero structure changed since MatILUFactorSymbolic()");
  fact->factorerrortype = MAT_FACTOR_NOERROR;
  fact->assembled       = PETSC_TRUE;
  if (f->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(GILU_StructILUFactor, A, fact, 0, 0));
  PetscCall(GILUStencilMatCopyValues(msm, &f->sm));
  f->zeropivot = info->zeropivot;
  /* as PETSc's ICC of an AIJ matrix, the upper triangle only (this factor is PCICC's on another matrix type: it takes
     what PETSc's takes, not the symmetry rule of petscgilu's own IC preconditioners, private/stencil.h) */
  if (f->ic) PetscCall(GILUStencilMatSymmetrizeFromUpper(&f->sm, f->mirror));
  PetscCall(StructILUFactor_Host(&f->sm, f->elim, f->ic ? f->mirror : NULL, f->zeropivot, f->dinv, &f->zerorow));
  {
    PetscBool shifted;

    PetscCall(ICCShiftedThroughAIJ(fact, A, info, &shifted));
    if (shifted) {
      f->zerorow                        = -1;
      fact->factorerrortype             = f->aijfact->factorerrortype;
      fact->factorerror_zeropivot_row   = f->aijfact->factorerror_zeropivot_row;
      fact->factorerror_zeropivot_value = f->aijfact->factorerror_zeropivot_value;
      fact->assembled                   = PETSC_TRUE;
      PetscCall(PetscLogEventEnd(GILU_StructILUFactor, A, fact, 0, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  { /* double precision: every value fits */
    PetscInt rangerow;

    PetscCall(StructILUFactorsStore_Host(&f->sm, f->dinv, f->ic ? f->mirror : NULL, PETSC_FALSE, PETSC_FALSE, &f->factors, &rangerow));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUFactor, A, fact, 0, 0));
  fact->factorerrortype = MAT_FACTOR_NOERROR;
  if (f->zerorow >= 0) {
    PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in local row %" PetscInt_FMT " of the structured-grid %s (tolerance %g)", f->zerorow, f->ic ? "IC" : "ILU", (double)f->zeropivot);
    PetscCall(PetscInfo(A, "Zero pivot in local row %" PetscInt_FMT " (tolerance %g)\n", f->zerorow, (double)f->zeropivot));
    fact->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    fact->factorerror_zeropivot_row   = f->zerorow;
    fact->factorerror_zeropivot_value = 0;
  }
  fact->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = (LU)^{-1} b, or (transpose) x = (LU)^{-T} b: U^T y = b, then L^T x = y (IC too: its factors are symmetric only up
   to rounding) */
static PetscErrorCode MatSolve_StencilGPU_StructILU_Private(Mat fact, Vec b, Vec x, PetscBool transpose)
{
  Mat_StencilGPUFactor *f = (Mat_StencilGPUFactor *)fact->data;
  const PetscScalar    *ba;
  PetscScalar          *xa;

  PetscFunctionBegin;
  if (f->empty) PetscFunctionReturn(PETSC_SUCCESS);
  if (f->aijfact) {
    if (transpose) PetscCall(MatSolveTranspose(f->aijfact, b, x));
    else PetscCall(MatSolve(f->aijfact, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, fact, b, x, 0));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayWrite(x, &xa));
  if (transpose) PetscCall(StructILUSolveTranspose_Host(&f->sm, &f->factors, ba, xa));
  else PetscCall(StructILUSolve_Host(&f->sm, &f->factors, ba, xa));
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, fact, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_StencilGPU_StructILU(Mat fact, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolve_StencilGPU_StructILU_Private(fact, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_StencilGPU_StructILU(Mat fact, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolve_StencilGPU_StructILU_Private(fact, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the ILU and IC symbolic factorizations share: the ILU(k)/IC(k) pattern of the stencil matrix (none for 0 rows) */
static PetscErrorCode FactorSymbolic(Mat_StencilGPUFactor *f, const GILUStencilMat *msm, PetscBool ic, const MatFactorInfo *info, const char prefix[])
{
  PetscFunctionBegin;
  PetscCall(PetscGILUCitationsRegister(GILU_CITE_STRUCTILU));
  PetscCall(FactorReset(f));
  f->ic              = ic;
  f->levels          = (PetscInt)info->levels;
  f->nsmat           = msm->stencil.ns;
  f->fill            = info->fill;
  f->empty           = (PetscBool)(msm->npoints == 0);
  f->sm.nonzerostate = msm->nonzerostate;
  f->zerorow         = -1;
  if (!f->empty) {
    char why[512];

    PetscCall(StructILUSymbolicStencil(msm, f->levels, ic, &f->sm, f->patname, sizeof(f->patname), &f->elim, &f->mirror, f->hyper, &f->nlevels, &f->dinv, why, sizeof(why)));
    PetscCheck(!why[0], PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: use fewer levels of fill (-%spc_factor_levels)", why, prefix);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_StencilGPU_StructILU(Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_StencilGPUFactor *f = (Mat_StencilGPUFactor *)fact->data;
  const GILUStencilMat *msm;
  PetscBool             is, rid = PETSC_TRUE, cid = PETSC_TRUE;
  const char           *pre = A->factorprefix ? A->factorprefix : ""; /* the PC's options prefix, for the options named */

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(A, &is, &msm));
  PetscCheck(is, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The structilu factorization needs a MATSEQSTENCILGPU matrix");
  if (row) PetscCall(ISIdentity(row, &rid));
  if (col) PetscCall(ISIdentity(col, &cid));
  PetscCheck(rid && cid, PETSC_COMM_SELF, PETSC_ERR_SUP, "The structured-grid ILU of MATSTENCILGPU factors in the natural ordering only: use -%spc_factor_mat_ordering_type natural, or -dm_mat_type aij", pre);
  PetscCheck(info->shifttype == (PetscReal)MAT_SHIFT_NONE || info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The structured-grid ILU of MATSTENCILGPU has no diagonal shift: use -%spc_factor_shift_type none, or -dm_mat_type aij", pre);
  PetscCheck(info->levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be non-negative");
  PetscCall(FactorSymbolic(f, msm, PETSC_FALSE, info, pre));
  fact->ops->lufactornumeric = MatLUFactorNumeric_StencilGPU_StructILU;
  fact->ops->solve           = MatSolve_StencilGPU_StructILU;
  fact->ops->solvetranspose  = MatSolveTranspose_StencilGPU_StructILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_StencilGPU_StructILU(Mat fact, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_StencilGPUFactor *f = (Mat_StencilGPUFactor *)fact->data;
  const GILUStencilMat *msm;
  PetscBool             is, pid = PETSC_TRUE;
  const char           *pre = A->factorprefix ? A->factorprefix : ""; /* the PC's options prefix, for the options named */

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(A, &is, &msm));
  PetscCheck(is, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The structilu factorization needs a MATSEQSTENCILGPU matrix");
  if (perm) PetscCall(ISIdentity(perm, &pid));
  PetscCheck(pid, PETSC_COMM_SELF, PETSC_ERR_SUP, "The structured-grid IC of MATSTENCILGPU factors in the natural ordering only: use -%spc_factor_mat_ordering_type natural, or -dm_mat_type aij", pre);
  PetscCheck(info->shifttype == (PetscReal)MAT_SHIFT_NONE || info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS || info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE, PETSC_COMM_SELF, PETSC_ERR_SUP, "The structured-grid IC of MATSTENCILGPU has no diagonal shift: use -%spc_factor_shift_type none (or positive_definite, PCICC's default: PETSc's shifted ICC of the AIJ copy then takes over when a pivot is not positive), or -dm_mat_type aij", pre);
  PetscCheck(info->levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be non-negative");
  {
    PetscInt s;

    PetscCall(GILUStencilFindUnmirrored(&msm->stencil, &s));
    PetscCheck(s < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Incomplete Cholesky needs a symmetric matrix, but the stencil has the offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") and not its opposite: use -%spc_type ilu", msm->stencil.off[s][0], msm->stencil.off[s][1], msm->stencil.off[s][2], pre);
  }
  PetscCall(FactorSymbolic(f, msm, PETSC_TRUE, info, pre));
  f->icinfo                        = *info;
  fact->ops->choleskyfactornumeric = MatLUFactorNumeric_StencilGPU_StructILU;
  fact->ops->solve                 = MatSolve_StencilGPU_StructILU;
  fact->ops->solvetranspose        = MatSolveTranspose_StencilGPU_StructILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_StencilGPU_StructILU(Mat fact, MatInfoType flag, MatInfo *info)
{
  Mat_StencilGPUFactor *f  = (Mat_StencilGPUFactor *)fact->data;
  const PetscLogDouble  nz = (PetscLogDouble)f->sm.stencil.ns * f->sm.npoints * f->sm.bs2;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = f->sm.grid.dof;
  info->nz_allocated      = nz;
  info->nz_used           = nz;
  info->memory            = nz * sizeof(PetscScalar);
  info->assemblies        = fact->num_ass;
  info->fill_ratio_given  = f->fill;
  info->fill_ratio_needed = f->nsmat ? (PetscReal)f->sm.stencil.ns / f->nsmat : 0; /* stored blocks, factors over matrix */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_StencilGPU_StructILU(Mat fact, PetscViewer viewer)
{
  Mat_StencilGPUFactor *f = (Mat_StencilGPUFactor *)fact->data;
  PetscBool             ascii;
  char                  name[64];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (f->empty) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid %s(%" PetscInt_FMT ") (MatSolverType structilu) of a matrix with 0 rows: empty factor\n", f->ic ? "IC" : "ILU", f->levels));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!f->sm.val) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid ILU factor, not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUStencilGetName(&f->sm.stencil, f->sm.grid.dim, name, sizeof(name)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid %s(%" PetscInt_FMT ") (MatSolverType structilu), natural ordering, %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", DoF %" PetscInt_FMT "\n", f->ic ? "IC" : "ILU", f->levels,
                                   f->sm.grid.dim, f->sm.grid.n[0], f->sm.grid.n[1], f->sm.grid.n[2], f->sm.grid.dof));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  stencil of the matrix %s, of the factors %s (%" PetscInt_FMT " offsets), %" PetscInt_FMT " hyperplane levels, zero pivot tolerance %g\n", f->patname, name, f->sm.stencil.ns, f->nlevels, (double)f->zeropivot));
  if (f->aijfact) PetscCall(PetscViewerASCIIPrintf(viewer, "  a pivot was not positive: PETSc's ICC of an AIJ copy with its positive-definite shift is used instead\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_StencilGPU_StructILU(Mat fact)
{
  PetscFunctionBegin;
  PetscCall(FactorReset((Mat_StencilGPUFactor *)fact->data));
  PetscCall(PetscFree(fact->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)fact, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorGetSolverType_StencilGPU_StructILU(Mat fact, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERSTRUCTILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSOLVERSTRUCTILU - "structilu": the structured-grid ILU(k) and IC(k) of `PCSTRUCTILU` as the
   factorizations of `MATSEQSTENCILGPU` matrices, so that `PCILU` and `PCICC` (and `PCBJACOBI` or `PCASM`
   with `-sub_pc_type ilu` or `icc`) work on a `MATSTENCILGPU` matrix unchanged

   Options Database Keys:
+  -pc_factor_mat_solver_type structilu - choose it (it is the only and hence the default factorization of `MATSEQSTENCILGPU`)
-  -pc_factor_levels k - levels of fill, ILU(k) or IC(k)

   Notes:
   Natural ordering only (`-pc_factor_mat_ordering_type natural`, the default of `PCILU`), no diagonal
   shift. The factors are those of `PCILU` on the same matrix in `MATAIJ` format. A zero pivot
   sets the factor error, so `KSPSolve()` returns `KSP_DIVERGED_PC_FAILED`.

   ICC (`MAT_FACTOR_ICC`, `PCICC`): the IC path of `PCSTRUCTILU` on the upper triangle of the matrix
   (the lower one is ignored, as by PETSc's ICC; the upper triangle of the factors is stored). With `PCICC`'s default
   `-pc_factor_shift_type positive_definite`, as long as every pivot is positive no shift is needed and the factors are
   those of `PCICC` on `MATAIJ`; when one is not (or is zero), PETSc's shifted ICC of an AIJ copy of the matrix is
   computed and used instead (`-info` says so), so `PCICC` behaves as on `MATAIJ`.

   `MatSolveTranspose()` (`PCApplyTranspose()`, `KSPBICG`, `KSPSolveTranspose()`) solves U^T y = b, then
   L^T x = y (DoF blocks transposed), sequentially on the host.

   Level: intermediate

   References:
.  * - Hao Luo, Qianchao Zhu, Xiaochen Hao, Chunxi Lei, Chengdi Ma, Chenchen Zhang, Yun Liang and Chao Yang, StructILU:
       Dependency-Preserving Incomplete LU with Hierarchical Parallelism for Structured Grid PDEs on GPUs, Proceedings of
       the 2025 International Conference on Supercomputing (ICS '25), ACM, 2025, doi:10.1145/3721145.3725745 (the StructILU paper)

.seealso: `PCSTRUCTILU`, `MATSTENCILGPU`, `PCILU`, `MatGetFactor()`
M*/
PETSC_INTERN PetscErrorCode MatGetFactor_SeqStencilGPU_StructILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat                   B;
  Mat_StencilGPUFactor *f;
  PetscInt              n;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu provides ILU and ICC factorizations only");
  { /* an ordering asked for on the command line: say so here, before PCFactor computes it (MatGetOrdering() of a non-natural ordering needs the AIJ structure) */
    char      ordering[256];
    PetscBool set, natural;

    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, A->factorprefix, "-pc_factor_mat_ordering_type", ordering, sizeof(ordering), &set));
    if (set) {
      PetscCall(PetscStrcmp(ordering, MATORDERINGNATURAL, &natural));
      PetscCheck(natural, PETSC_COMM_SELF, PETSC_ERR_SUP, "The structured-grid ILU of MATSTENCILGPU factors in the natural ordering only, not %s: use -%spc_factor_mat_ordering_type natural, or -dm_mat_type aij", ordering, A->factorprefix ? A->factorprefix : "");
    }
  }
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, n, n, n, n));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  PetscCall(PetscNew(&f));
  f->zerorow = -1;
  B->data    = (void *)f;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQSTENCILGPU));
  B->ops->ilufactorsymbolic = MatILUFactorSymbolic_StencilGPU_StructILU;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_StencilGPU_StructILU;
  B->ops->getinfo           = MatGetInfo_StencilGPU_StructILU;
  B->ops->view              = MatView_StencilGPU_StructILU;
  B->ops->destroy           = MatDestroy_StencilGPU_StructILU;
  B->factortype             = ftype;
  B->canuseordering         = PETSC_TRUE;
  B->preallocated           = PETSC_TRUE;
  B->assembled              = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ILU]));
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ICC]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERSTRUCTILU, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_StencilGPU_StructILU));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
