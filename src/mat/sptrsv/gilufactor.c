/*
   MatSolverType "gilu": PETSc's own ILU(k)/ICC(k) factorization of MATSEQAIJ and MATSEQBAIJ, with
   the triangular solves of the engine (GILUTri, sptrsv.c).

   The factorization is PETSc's (a factor of MatSolverType "petsc" kept inside), so the factors
   are PETSc's to the bit; after each numeric factorization L and U are read from its storage
   (PETSc's "new" layout: L's rows first, then U's rows from the last to the first, each ending
   with its inverted diagonal block; BAIJ blocks are column-major) and handed to two GILUTri
   objects. ICC(k) is done as ILU(k) of the symmetric matrix with the symmetric ordering: the
   same factors up to rounding (L = U^T D^{-1}), the same preconditioner.
*/
#include <petsc/private/matimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/sptrsv.h>
#include <petscgilu/private/stencil.h>

typedef struct {
  Mat              F;      /* PETSc's factor (MatSolverType petsc, ILU) */
  MatFactorType    ftype;  /* what the user asked for: ILU or ICC */
  GILUTri          L, U;   /* the factors, in the permuted numbering */
  GILUTri          Lt, Ut; /* L^T (upper) and U^T (lower), built at the first MatSolveTranspose() */
  IS               row, col;
  PetscBool        identity;
  PetscInt         nb, bs;
  PetscScalar     *work;
  GILUTriSolveType type;
  PetscInt         nthreads;
  /* the factors in CSR/BSR */
  PetscInt  *Li, *Lj, *Ui, *Uj, *Lsrc, *Usrc, *Udsrc;
  MatScalar *La, *Ua, *Ud;
  PetscBool  pattern; /* the CSR patterns above are current */
} Mat_GILUFactor;

static PetscErrorCode MatFactorGetSolverType_GILU(Mat A, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERGILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A block of PETSc's BAIJ storage (column-major) as the engine wants it (row-major) */
static inline void CopyBlock(PetscInt bs, const MatScalar *src, MatScalar *dst)
{
  if (bs == 1) dst[0] = src[0];
  else
    for (PetscInt p = 0; p < bs; p++)
      for (PetscInt q = 0; q < bs; q++) dst[p * bs + q] = src[q * bs + p];
}

/* Read L and U from PETSc's factor: the patterns when they are new, the values every time */
static PetscErrorCode MatGILUFactorExtract(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  const PetscInt *ia, *ja, bs = f->bs, bs2 = bs * bs;
  MatScalar      *aa;
  PetscInt        nb;
  PetscBool       done, baij;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)f->F, MATSEQBAIJ, &baij));
  if (baij) {
    PetscCall(MatGetRowIJ(f->F, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ia, &ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of PETSc's factor");
  } else { /* the factor's MatGetRowIJ() may be the inode one, or none */
    PetscMemType mtype;
    PetscScalar *av;

    PetscCall(MatSeqAIJGetCSRAndMemType(f->F, &ia, &ja, &av, &mtype));
    nb = f->nb;
  }
  PetscCheck(nb == f->nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's factor has %" PetscInt_FMT " block rows, expected %" PetscInt_FMT, nb, f->nb);
  if (!f->pattern) {
    PetscInt nzL = ia[nb], nzU = 0, p = ia[nb];

    PetscCall(PetscFree3(f->Li, f->Lj, f->Lsrc));
    PetscCall(PetscFree4(f->Ui, f->Uj, f->Usrc, f->Udsrc));
    PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
    /* U: rows nb-1 down to 0, each its off-diagonal entries (columns > i) then its diagonal (column i) */
    for (PetscInt i = nb - 1; i >= 0; i--) {
      while (ja[p] != i) {
        PetscCheck(ja[p] > i && ja[p] < nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc's factor is not in the layout MatSolverType gilu reads (row %" PetscInt_FMT "): use -pc_factor_mat_solver_type petsc", i);
        p++;
        nzU++;
      }
      p++;
    }
    PetscCall(PetscMalloc3(nb + 1, &f->Li, nzL, &f->Lj, nzL, &f->Lsrc));
    PetscCall(PetscMalloc4(nb + 1, &f->Ui, nzU, &f->Uj, nzU, &f->Usrc, nb, &f->Udsrc));
    PetscCall(PetscMalloc3(nzL * bs2, &f->La, nzU * bs2, &f->Ua, nb * bs2, &f->Ud));
    for (PetscInt i = 0; i <= nb; i++) f->Li[i] = ia[i];
    for (PetscInt k = 0; k < nzL; k++) {
      f->Lj[k]   = ja[k];
      f->Lsrc[k] = k;
    }
    /* U in increasing row order */
    f->Ui[0] = 0;
    for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] = 0;
    p = ia[nb];
    for (PetscInt i = nb - 1; i >= 0; i--) {
      PetscInt q = p;

      while (ja[q] != i) q++;
      f->Ui[i + 1] = q - p; /* count */
      f->Udsrc[i]  = q;
      p            = q + 1;
    }
    for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] += f->Ui[i];
    for (PetscInt i = 0; i < nb; i++) {
      PetscInt q0 = f->Udsrc[i] - (f->Ui[i + 1] - f->Ui[i]);

      for (PetscInt k = f->Ui[i]; k < f->Ui[i + 1]; k++) {
        f->Uj[k]   = ja[q0 + k - f->Ui[i]];
        f->Usrc[k] = q0 + k - f->Ui[i];
      }
    }
    f->pattern = PETSC_TRUE;
  }
  if (baij) PetscCall(MatSeqBAIJGetArray(f->F, &aa));
  else PetscCall(MatSeqAIJGetArray(f->F, &aa));
  for (PetscInt k = 0; k < f->Li[nb]; k++) CopyBlock(bs, aa + f->Lsrc[k] * bs2, f->La + k * bs2);
  for (PetscInt k = 0; k < f->Ui[nb]; k++) CopyBlock(bs, aa + f->Usrc[k] * bs2, f->Ua + k * bs2);
  for (PetscInt i = 0; i < nb; i++) CopyBlock(bs, aa + f->Udsrc[i] * bs2, f->Ud + i * bs2);
  if (baij) PetscCall(MatSeqBAIJRestoreArray(f->F, &aa));
  else PetscCall(MatSeqAIJRestoreArray(f->F, &aa));
  if (baij) PetscCall(MatRestoreRowIJ(f->F, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ia, &ja, &done));
  nb = f->nb; /* MatRestoreRowIJ() zeroed it */
  PetscCall(GILUTriSetMatrix(f->L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, nb, bs, f->Li, f->Lj, f->La, NULL));
  PetscCall(GILUTriSetMatrix(f->U, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, nb, bs, f->Ui, f->Uj, f->Ua, f->Ud));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x[c[i]] = U^{-1} L^{-1} b[r[i]] (block rows), as PETSc's MatSolve_SeqAIJ/SeqBAIJ */
static PetscErrorCode MatSolve_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f  = (Mat_GILUFactor *)B->data;
  const PetscInt     bs = f->bs;
  const PetscScalar *barr;
  PetscScalar       *xarr;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  if (f->identity) {
    PetscCall(GILUTriSolve(f->L, barr, xarr));
    PetscCall(GILUTriSolve(f->U, xarr, xarr));
  } else {
    const PetscInt *r, *c;

    PetscCall(ISGetIndices(f->row, &r));
    PetscCall(ISGetIndices(f->col, &c));
    for (PetscInt i = 0; i < f->nb; i++)
      for (PetscInt p = 0; p < bs; p++) f->work[i * bs + p] = barr[r[i] * bs + p];
    PetscCall(GILUTriSolve(f->L, f->work, f->work));
    PetscCall(GILUTriSolve(f->U, f->work, f->work));
    for (PetscInt i = 0; i < f->nb; i++)
      for (PetscInt p = 0; p < bs; p++) xarr[c[i] * bs + p] = f->work[i * bs + p];
    PetscCall(ISRestoreIndices(f->row, &r));
    PetscCall(ISRestoreIndices(f->col, &c));
  }
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveAdd_GILU(Mat B, Vec b, Vec y, Vec x)
{
  Vec t;

  PetscFunctionBegin;
  if (x == y) {
    PetscCall(VecDuplicate(x, &t));
    PetscCall(MatSolve_GILU(B, b, t));
    PetscCall(VecAXPY(x, 1.0, t));
    PetscCall(VecDestroy(&t));
  } else {
    PetscCall(MatSolve_GILU(B, b, x));
    PetscCall(VecAXPY(x, 1.0, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T^T of a CSR/BSR triangle (blocks transposed too); d: its inverted diagonal blocks, transposed likewise */
static PetscErrorCode TransposeTri(GILUTri *T, GILUTriUplo uplo, GILUTriDiag diag, PetscInt nb, PetscInt bs, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const MatScalar *d, GILUTriSolveType type, PetscInt nthreads)
{
  PetscInt  *ti, *tj, *pos, nz = ai[nb], bs2 = bs * bs;
  MatScalar *ta, *td = NULL;

  PetscFunctionBegin;
  PetscCall(PetscCalloc3(nb + 1, &ti, nz, &tj, nb, &pos));
  PetscCall(PetscMalloc1(nz * bs2, &ta));
  for (PetscInt k = 0; k < nz; k++) ti[aj[k] + 1]++;
  for (PetscInt i = 0; i < nb; i++) ti[i + 1] += ti[i];
  for (PetscInt i = 0; i < nb; i++) pos[i] = ti[i];
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt q = pos[aj[k]]++;

      tj[q] = i;
      CopyBlock(bs, aa + k * bs2, ta + q * bs2);
    }
  if (d) {
    PetscCall(PetscMalloc1(nb * bs2, &td));
    for (PetscInt i = 0; i < nb; i++) CopyBlock(bs, d + i * bs2, td + i * bs2);
  }
  PetscCall(GILUTriCreate(T));
  PetscCall(GILUTriSetType(*T, type));
  PetscCall(GILUTriSetThreads(*T, nthreads));
  PetscCall(GILUTriSetMatrix(*T, uplo, diag, nb, bs, ti, tj, ta, td));
  PetscCall(PetscFree3(ti, tj, pos));
  PetscCall(PetscFree(ta));
  PetscCall(PetscFree(td));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^{-T} = R^T L^{-T} U^{-T} C: x[r[i]] = (L^{-T} U^{-T} b[c[.]])_i */
static PetscErrorCode MatSolveTranspose_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f  = (Mat_GILUFactor *)B->data;
  const PetscInt     bs = f->bs;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *r, *c;

  PetscFunctionBegin;
  if (!f->Ut) PetscCall(TransposeTri(&f->Ut, GILU_TRI_LOWER, GILU_TRI_DIAG_INVERSE, f->nb, bs, f->Ui, f->Uj, f->Ua, f->Ud, f->type, f->nthreads));
  if (!f->Lt) PetscCall(TransposeTri(&f->Lt, GILU_TRI_UPPER, GILU_TRI_DIAG_UNIT, f->nb, bs, f->Li, f->Lj, f->La, NULL, f->type, f->nthreads));
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->row, &r));
  PetscCall(ISGetIndices(f->col, &c));
  for (PetscInt i = 0; i < f->nb; i++)
    for (PetscInt p = 0; p < bs; p++) f->work[i * bs + p] = barr[c[i] * bs + p];
  PetscCall(GILUTriSolve(f->Ut, f->work, f->work));
  PetscCall(GILUTriSolve(f->Lt, f->work, f->work));
  for (PetscInt i = 0; i < f->nb; i++)
    for (PetscInt p = 0; p < bs; p++) xarr[r[i] * bs + p] = f->work[i * bs + p];
  PetscCall(ISRestoreIndices(f->row, &r));
  PetscCall(ISRestoreIndices(f->col, &c));
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  if (f->ftype == MAT_FACTOR_ICC) { /* PETSc's ICC reads the upper triangle only; ILU of A is the same preconditioner only for a symmetric A */
    PetscBool sym, aij;
    Mat       Aij;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
    if (aij) PetscCall(MatIsSymmetric(A, 0.0, &sym));
    else {
      PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Aij));
      PetscCall(MatIsSymmetric(Aij, 0.0, &sym));
      PetscCall(MatDestroy(&Aij));
    }
    PetscCheck(sym, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu computes ICC(k) as ILU(k) and needs a symmetric matrix, but this one is not (PETSc's ICC uses its upper triangle only): use -pc_type ilu, or -pc_factor_mat_solver_type petsc");
  }
  PetscCall(MatLUFactorNumeric(f->F, A, info));
  B->factorerrortype             = f->F->factorerrortype;
  B->factorerror_zeropivot_value = f->F->factorerror_zeropivot_value;
  B->factorerror_zeropivot_row   = f->F->factorerror_zeropivot_row;
  if (!B->factorerrortype) PetscCall(MatGILUFactorExtract(B));
  B->ops->solve          = MatSolve_GILU;
  B->ops->solveadd       = MatSolveAdd_GILU;
  B->ops->solvetranspose = MatSolveTranspose_GILU;
  B->assembled           = PETSC_TRUE;
  B->preallocated        = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatLUFactorNumeric_GILU(B, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The orderings, the options (-mat_gilu_trisolve, -mat_gilu_trisolve_threads with the factor's prefix) and PETSc's symbolic factorization */
static PetscErrorCode MatGILUFactorSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscInt        m, nt;
  PetscBool       ri = PETSC_TRUE, ci = PETSC_TRUE, set;
  PetscEnum       type;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &f->bs));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  {
    PetscBool baij;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
    if (!baij) f->bs = 1;
  }
  PetscCheck(f->bs <= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu supports block sizes 1 to 8, not %" PetscInt_FMT ": use -pc_factor_mat_solver_type petsc", f->bs);
  f->nb = m / f->bs;
  PetscCall(MatDestroy(&f->F));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &f->F));
  PetscCall(MatILUFactorSymbolic(f->F, A, row, col, info));
  f->pattern = PETSC_FALSE;
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  if (row) {
    PetscInt nr;

    PetscCall(ISGetLocalSize(row, &nr));
    PetscCheck(nr == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The row ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -pc_factor_mat_ordering_type natural", nr, f->nb);
    PetscCall(ISIdentity(row, &ri));
    PetscCall(PetscObjectReference((PetscObject)row));
  }
  if (col) {
    PetscInt nc;

    PetscCall(ISGetLocalSize(col, &nc));
    PetscCheck(nc == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The column ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -pc_factor_mat_ordering_type natural", nc, f->nb);
    PetscCall(ISIdentity(col, &ci));
    PetscCall(PetscObjectReference((PetscObject)col));
  }
  if (!row) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &row));
  if (!col) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &col));
  f->row      = row;
  f->col      = col;
  f->identity = (PetscBool)(ri && ci);
  PetscCall(PetscFree(f->work));
  PetscCall(PetscMalloc1(m, &f->work));
  /* options */
  type = (PetscEnum)f->type;
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_trisolve", GILUTriSolveTypes, &type, &set));
  f->type = (GILUTriSolveType)type;
  nt      = f->nthreads;
  PetscCall(PetscOptionsGetInt(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_trisolve_threads", &nt, &set));
  PetscCheck(nt >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gilu_trisolve_threads must be at least 1, not %" PetscInt_FMT, nt);
  f->nthreads = nt;
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(GILUTriCreate(&f->L));
  PetscCall(GILUTriCreate(&f->U));
  PetscCall(GILUTriSetType(f->L, f->type));
  PetscCall(GILUTriSetType(f->U, f->type));
  PetscCall(GILUTriSetThreads(f->L, f->nthreads));
  PetscCall(GILUTriSetThreads(f->U, f->nthreads));
  PetscCall(GILUTriSetFromOptions(f->L, ((PetscObject)B)->options, ((PetscObject)B)->prefix)); /* -mat_gilu_trisolve_block_depth, -mat_gilu_trisolve_backend */
  PetscCall(GILUTriSetFromOptions(f->U, ((PetscObject)B)->options, ((PetscObject)B)->prefix));
  B->ops->lufactornumeric       = MatLUFactorNumeric_GILU;
  B->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_GILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_GILU(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatGILUFactorSymbolic(B, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_GILU(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatGILUFactorSymbolic(B, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_GILU(Mat B, MatInfoType flag, MatInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  if (f->F) PetscCall(MatGetInfo(f->F, flag, info));
  else PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_GILU(Mat B, PetscViewer viewer)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "gilu: PETSc's %s factors (ordering %s), triangular solves of petscgilu's engine\n", f->ftype == MAT_FACTOR_ICC ? "ICC (as ILU of the symmetric matrix)" : "ILU", f->identity ? "natural" : "permuted"));
  if (f->L && f->U && f->pattern) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(GILUTriView(f->L, viewer));
    PetscCall(GILUTriView(f->U, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_GILU(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&f->F));
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  PetscCall(PetscFree(f->work));
  PetscCall(PetscFree3(f->Li, f->Lj, f->Lsrc));
  PetscCall(PetscFree4(f->Ui, f->Uj, f->Usrc, f->Udsrc));
  PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
  PetscCall(PetscFree(B->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorGetTri(Mat B, GILUTri *L, GILUTri *U)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  const char     *st;

  PetscFunctionBegin;
  PetscCall(MatFactorGetSolverType(B, &st));
  {
    PetscBool gilu;

    PetscCall(PetscStrcmp(st, MATSOLVERGILU, &gilu));
    PetscCheck(gilu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a factor of MatSolverType gilu but of %s", st);
  }
  if (L) *L = f->pattern ? f->L : NULL;
  if (U) *U = f->pattern ? f->U : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor() for MATSEQAIJ and MATSEQBAIJ, ILU and ICC (registered in src/sys/gilu.c) */
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJ_GILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_GILUFactor *f;
  PetscInt        n;
  PetscBool       baij;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu provides ILU and ICC factorizations only: use -pc_type ilu or icc");
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, n, n, n, n));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  PetscCall(PetscNew(&f));
  f->ftype = ftype;
  f->type  = GILU_TRISOLVE_AUTO;
  PetscCall(GILUGetNumThreads(&f->nthreads));
  B->data = (void *)f;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, baij ? "seqbaijgilu" : "seqaijgilu"));
  B->ops->ilufactorsymbolic = MatILUFactorSymbolic_GILU;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_GILU;
  B->ops->getinfo           = MatGetInfo_GILU;
  B->ops->view              = MatView_GILU;
  B->ops->destroy           = MatDestroy_GILU;
  B->factortype             = ftype;
  B->canuseordering         = PETSC_TRUE;
  B->preallocated           = PETSC_TRUE;
  B->assembled              = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ILU]));
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ICC]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERGILU, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_GILU));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
