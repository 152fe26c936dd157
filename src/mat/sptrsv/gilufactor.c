/*
   MatSolverType "gilu": ILU(k)/ICC(k) of MATSEQAIJ and MATSEQBAIJ with PETSc's symbolic factorization, a
   level-scheduled numeric factorization (AIJ) and the triangular solves of the engine (GILUTri, sptrsv.c).

   Symbolic: PETSc's (a factor of MatSolverType "petsc" kept inside, MatILUFactorSymbolic()), i.e. the fill pattern of
   ILU(k) with the ordering. Its pattern is read from PETSc's storage (PETSc's "new" layout: L's rows first, then U's
   rows from the last to the first, each ending with its inverted diagonal block; BAIJ blocks are column-major) into
   the CSR/BSR of L (unit lower) and U (upper, inverted diagonal apart) in the permuted numbering.

   Numeric (-mat_gilu_factor_numeric gilu, the default, MATSEQAIJ): row-oriented IKJ ILU on that pattern, row i being
   eliminated by the finished rows k < i with l_ik != 0 in increasing k, with PETSc's operations in PETSc's order
   (MatLUFactorNumeric_SeqAIJ: multipliers l_ik = a_ik * (1/u_kk), entries that are exactly zero skipped, the inverted
   pivot stored), so the factors are PETSc's to the bit (up to the sign of zeros where PETSc uses its inode variant) and
   do not depend on the number of threads. The rows are scheduled on the threads of the solves
   (-mat_gilu_trisolve_threads, default OMP_NUM_THREADS) by the dependency DAG of L, analysed once per nonzero pattern:
     chunked  (default) runs of consecutive rows that each read the row before (a grid line of a stencil matrix in
              natural order; 64 to 256 rows, or, where that leaves fewer than 2 chunks per level of the chunk DAG and
              thread, the runs cut at 256, 128, ... 8 rows, else the level sets), ordered by the chunk DAG's levels;
              each thread takes a fixed share of every level (the same stretch of it, so the rows it reads are
              mostly its own and stay in its cache); a chunk waits for the done flags of the chunks it reads, then
              eliminates its rows in order (PETSc's memory access pattern);
     levelset the level sets (wavefronts) of L, the rows of a level split among the threads, a barrier between levels;
   one thread runs the rows in natural order, as PETSc. Zero pivots are handled as PETSc does for the shift types
   none (MatFactorError MAT_FACTOR_NUMERIC_ZEROPIVOT, so KSP says DIVERGED_PC_FAILED) and inblocks; for nonzero and
   positive_definite the rows are checked with PETSc's criterion, and where PETSc would shift (and restart) the
   numeric factorization is PETSc's instead. MATSEQBAIJ with block sizes 2 to 7 is factored the same way by blocks
   (FactorRowBAIJ(), PETSc's bits, written into PETSc's storage and read from there); block sizes 1 and 8, and
   -mat_gilu_factor_numeric petsc, use PETSc's numeric factorization and read the values from its storage. -ksp_view
   says which one ran; -log_view: GILUFactorNum.

   Storage: the factor is stored once after the setup where gilu's numeric factorization of a MATSEQAIJ runs: PETSc's
   symbolic factor (its pattern and values arrays) is dropped before the values are allocated (for ILU(0) in the natural
   ordering even before the patterns are built: they are A's), the engine reads L's and U's values in place (chunked
   plans with column-offset patterns, what auto runs on stencil factors; the other plans keep a reordered copy), and
   the dense work rows live only during a numeric factorization. PETSc's factor is kept (made again from A where it
   was dropped) where PETSc's numeric factorization is used: MATSEQBAIJ (gilu's writes into PETSc's storage), block
   sizes 1 and 8, -mat_gilu_factor_numeric petsc, and a pivot that needs PETSc's shift.

   ICC(k) is done as ILU(k) with the symmetric ordering of the symmetric matrix that PETSc's ICC reads (A where A is
   exactly symmetric, else the image of its upper triangle: MatGILUFactorImage()): the same factors up to rounding
   (L = U^T D^{-1}), the same preconditioner.

   Options (the factor's prefix; the man page MATSOLVERGILU in include/petscgilu.h lists them with their defaults):
   -mat_gilu_factor_numeric and -mat_gilu_factor_schedule, read here, and the engine's -mat_gilu_trisolve*, read by
   GILUTriSetFromOptions(); MatGILUSetTriSolveType() and MatGILUSetTriSolveThreads() set the two a user tunes.
*/
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/stencil.h>  /* GILUGetNumThreads() */
#include <petscgilu/private/backend.h>  /* device arrays of MatSolve() */
#include <petscgilu/private/blockinv.h> /* the given diagonal blocks inverted (MatGILUFactorTakeValues()) */
#include "gilufactorimpl.h"

static const char *const GILUFactorNumericTypes[] = {"gilu", "petsc", "GILUFactorNumericType", "GILU_FACTOR_NUMERIC_", NULL};
static const char *const GILUFactorSchedules[]    = {"chunked", "levelset", "GILUFactorSchedule", "GILU_FACTOR_SCHEDULE_", NULL};

/* A block of PETSc's BAIJ storage (column-major) as the engine wants it (row-major) */
static inline void CopyBlock(PetscInt bs, const MatScalar *src, MatScalar *dst)
{
  if (bs == 1) dst[0] = src[0];
  else
    for (PetscInt p = 0; p < bs; p++)
      for (PetscInt q = 0; q < bs; q++) dst[p * bs + q] = src[q * bs + p];
}

/* The rows of PETSc's factor: ia[nb+1] (L's rows) and ja, its column indices in PETSc's layout */
static PetscErrorCode FactorGetIJ(Mat F, PetscInt nbexp, PetscBool *baij, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  nb;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)F, MATSEQBAIJ, baij));
  if (*baij) {
    PetscCall(MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_TRUE, &nb, ia, ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of PETSc's factor");
    PetscCheck(nb == nbexp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's factor has %" PetscInt_FMT " block rows, expected %" PetscInt_FMT, nb, nbexp);
  } else { /* the factor's MatGetRowIJ() may be the inode one, or none */
    PetscMemType mtype;

    PetscCall(MatSeqAIJGetCSRAndMemType(F, ia, ja, NULL, &mtype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorRestoreIJ(Mat F, PetscBool baij, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  nb;
  PetscBool done;

  PetscFunctionBegin;
  if (baij) PetscCall(MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_TRUE, &nb, ia, ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR/BSR patterns of L and U from PETSc's symbolic factor, and where each entry sits in its storage */
PetscErrorCode MatGILUFactorFreeFactors(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  if (f->taken) {
    PetscCall(PetscFree3(f->Li, f->Lj, f->La));
    PetscCall(PetscFree3(f->Ui, f->Uj, f->Ua));
    PetscCall(PetscFree(f->Ud));
    f->taken = PETSC_FALSE;
  } else {
    PetscCall(PetscFree2(f->Li, f->Lj));
    PetscCall(PetscFree2(f->Ui, f->Uj));
    PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorGetPattern(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  const PetscInt *ia, *ja, nb = f->nb;
  PetscInt        nzL, nzU = 0, p;
  PetscBool       baij;

  PetscFunctionBegin;
  if (f->pattern) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(f->F, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call MatILUFactorSymbolic() before MatLUFactorNumeric()");
  PetscCall(FactorGetIJ(f->F, nb, &baij, &ia, &ja));
  nzL = ia[nb];
  p   = ia[nb];
  PetscCall(MatGILUFactorFreeFactors(f));
  /* U: rows nb-1 down to 0, each its off-diagonal entries (columns > i) then its diagonal (column i) */
  for (PetscInt i = nb - 1; i >= 0; i--) {
    while (ja[p] != i) {
      PetscCheck(ja[p] > i && ja[p] < nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc's factor is not in the layout MatSolverType gilu reads (row %" PetscInt_FMT "): use -%spc_factor_mat_solver_type petsc", i, GILUPrefix(B));
      p++;
      nzU++;
    }
    p++;
  }
  PetscCall(PetscMalloc2(nb + 1, &f->Li, nzL, &f->Lj));
  PetscCall(PetscMalloc2(nb + 1, &f->Ui, nzU, &f->Uj)); /* the values: MatGILUFactorAllocValues(), once PETSc's factor may be gone */
  for (PetscInt i = 0; i <= nb; i++) f->Li[i] = ia[i];
  PetscCall(PetscArraycpy(f->Lj, ja, nzL)); /* L: PETSc's first nzL entries, in place */
  /* U in increasing row order */
  f->Ui[0] = 0;
  for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] = 0;
  p = ia[nb];
  for (PetscInt i = nb - 1; i >= 0; i--) {
    PetscInt q = p;

    while (ja[q] != i) q++;
    f->Ui[i + 1] = q - p; /* count */
    p            = q + 1;
  }
  for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] += f->Ui[i];
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt q0 = UdPos(f, i) - (f->Ui[i + 1] - f->Ui[i]);

    for (PetscInt k = f->Ui[i]; k < f->Ui[i + 1]; k++) f->Uj[k] = ja[q0 + k - f->Ui[i]];
  }
  PetscCall(FactorRestoreIJ(f->F, baij, &ia, &ja));
  f->pattern  = PETSC_TRUE;
  f->analyzed = PETSC_FALSE;
  f->patternid++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrays of the values of L and U (their patterns read), allocated after PETSc's factor was dropped where it is */
static PetscErrorCode MatGILUFactorAllocValues(Mat_GILUFactor *f)
{
  const PetscInt bs2 = f->bs * f->bs, nb = f->nb;

  PetscFunctionBegin;
  if (!f->La) PetscCall(PetscMalloc3(f->Li[nb] * bs2, &f->La, f->Ui[nb] * bs2, &f->Ua, nb * bs2, &f->Ud));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of L and U from PETSc's numeric factor */
static PetscErrorCode MatGILUFactorCopyValues(Mat B)
{
  Mat_GILUFactor *f  = (Mat_GILUFactor *)B->data;
  const PetscInt  bs = f->bs, bs2 = bs * bs, nb = f->nb;
  MatScalar      *aa;
  PetscBool       baij;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorAllocValues(f));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)f->F, MATSEQBAIJ, &baij));
  if (baij) PetscCall(MatSeqBAIJGetArray(f->F, &aa));
  else PetscCall(MatSeqAIJGetArray(f->F, &aa));
  for (PetscInt k = 0; k < f->Li[nb]; k++) CopyBlock(bs, aa + k * bs2, f->La + k * bs2);
  for (PetscInt i = 0; i < nb; i++) { /* U's row i: the entries just before its diagonal in PETSc's storage */
    const PetscInt nz = f->Ui[i + 1] - f->Ui[i], q0 = UdPos(f, i) - nz;

    for (PetscInt k = 0; k < nz; k++) CopyBlock(bs, aa + (q0 + k) * bs2, f->Ua + (f->Ui[i] + k) * bs2);
  }
  for (PetscInt i = 0; i < nb; i++) CopyBlock(bs, aa + UdPos(f, i) * bs2, f->Ud + i * bs2);
  if (baij) PetscCall(MatSeqBAIJRestoreArray(f->F, &aa));
  else PetscCall(MatSeqAIJRestoreArray(f->F, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PETSc's factor dropped once gilu's numeric factorization of a MATSEQAIJ is to run: that reads the matrix and the
  patterns above and writes the values above only, so the factor is stored once. What MatGetInfo() says of it is kept.
*/
static PetscErrorCode MatGILUFactorDropPETSc(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  if (!f->F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetInfo(f->F, MAT_LOCAL, &f->finfo));
  f->hasfinfo = PETSC_TRUE;
  PetscCall(MatDestroy(&f->F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PETSc's factor made again where its numeric factorization runs after it was dropped (a pivot that needs PETSc's shift):
  PETSc's symbolic factorization of A with the orderings and the info of the last symbolic one, which must give the
  pattern read then (A's nonzero pattern unchanged, as MatLUFactorNumeric() requires)
*/
static PetscErrorCode MatGILUFactorMakePETSc(Mat_GILUFactor *f, Mat A)
{
  const PetscInt *ia, *ja;
  PetscBool       baij, same;

  PetscFunctionBegin;
  if (f->F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &f->F));
  PetscCall(MatILUFactorSymbolic(f->F, A, f->row, f->col, &f->sinfo));
  PetscCall(FactorGetIJ(f->F, f->nb, &baij, &ia, &ja));
  same = (PetscBool)(ia[f->nb] == f->Li[f->nb]);
  for (PetscInt i = 0; i < f->nb && same; i++) same = (PetscBool)(ja[UdPos(f, i)] == i);
  PetscCall(FactorRestoreIJ(f->F, baij, &ia, &ja));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of the matrix changed since the symbolic factorization: call MatILUFactorSymbolic() again (or use DIFFERENT_NONZERO_PATTERN)");
  f->hasfinfo = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ILU(0) of a MATSEQAIJ in the natural ordering, about to be factored by gilu's numeric factorization: PETSc's symbolic
  factor has A's pattern (MatILUFactorSymbolic_SeqAIJ_ilu0() copies it, L's row i the entries before the diagonal, U's
  the entries after it; the diagonal was checked there), so it is dropped first (its entry counts checked against A's)
  and the patterns are read from A: the factor's pattern is never stored twice, not even during the setup.
  Where this does not apply, or the counts differ, the patterns are read from PETSc's factor (MatGILUFactorGetPattern()).
*/
static PetscErrorCode MatGILUFactorGetPatternILU0(Mat B, Mat A)
{
  Mat_GILUFactor *f   = (Mat_GILUFactor *)B->data;
  const PetscInt  nb  = f->nb, *ai, *aj, *fi, *fj;
  PetscInt        nzL = 0, nzU = 0, dL = 0, dU = 0, d = 0;
  PetscInt        m;
  PetscBool       baij, done;
  MatInfo         finfo;

  PetscFunctionBegin;
  if (f->pattern || !f->F || f->bs != 1 || !f->identity || (PetscInt)f->sinfo.levels != 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* the host's rows, not inode-compressed (MatSeqAIJGetCSRAndMemType() gives a MATSEQAIJCUSPARSE's device copy) */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done && m == nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of the matrix");
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscBool dropped = (PetscBool)(d < f->ndrop && f->drop[d] == k);

      PetscCheck(!dropped || aj[k] != i, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatGILUFactorSetDropped(): the diagonal entry of row %" PetscInt_FMT " cannot be dropped", i);
      nzL += aj[k] < i;
      nzU += aj[k] > i;
      dL += dropped && aj[k] < i;
      dU += dropped && aj[k] > i;
      d += dropped;
    }
  PetscCheck(d == f->ndrop, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatGILUFactorSetDropped(): %" PetscInt_FMT " of the positions are not those of stored entries of the matrix", f->ndrop - d);
  PetscCall(FactorGetIJ(f->F, nb, &baij, &fi, &fj));
  PetscCall(MatGetInfo(f->F, MAT_LOCAL, &finfo));
  if (baij || fi[nb] != nzL || (PetscInt)finfo.nz_used != nzL + nzU + nb) { /* not the pattern of A: read PETSc's */
    PetscCall(FactorRestoreIJ(f->F, baij, &fi, &fj));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
    PetscCheck(!f->ndrop, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's ILU(0) does not have the pattern of the matrix: its entries cannot be dropped");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FactorRestoreIJ(f->F, baij, &fi, &fj));
  PetscCall(MatGILUFactorDropPETSc(f));
  PetscCall(MatGILUFactorFreeFactors(f));
  nzL -= dL;
  nzU -= dU;
  PetscCall(PetscMalloc2(nb + 1, &f->Li, nzL, &f->Lj));
  PetscCall(PetscMalloc2(nb + 1, &f->Ui, nzU, &f->Uj));
  f->Li[0] = f->Ui[0] = 0;
  /* A - S: the entries dropped are left out of the pattern. The numeric factorization still scatters them into the work
     row (it copies A's rows whole), but outside the row's pattern, where it never reads (FactorRow()): the factors are
     those of A - S assembled, to the bit */
  d = 0;
  for (PetscInt i = 0, p = 0, q = 0; i < nb; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      if (d < f->ndrop && f->drop[d] == k) {
        d++;
        continue;
      }
      if (aj[k] < i) f->Lj[p++] = aj[k];
      else if (aj[k] > i) f->Uj[q++] = aj[k];
    }
    f->Li[i + 1] = p;
    f->Ui[i + 1] = q;
  }
  if (f->ndrop) { /* what MatGetInfo() says: the factor of A - S */
    f->finfo.nz_used -= (PetscLogDouble)f->ndrop;
    f->finfo.nz_allocated -= (PetscLogDouble)f->ndrop;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  f->pattern  = PETSC_TRUE;
  f->analyzed = PETSC_FALSE;
  f->patternid++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Hands the factors to the engine, which works on f's arrays in place (its analysis kept while the pattern is the same) */
static PetscErrorCode MatGILUFactorSetTri(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(GILUTriSetMatrixWithArrays(f->L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, f->nb, f->bs, f->Li, f->Lj, f->La, NULL, f->patternid));
  PetscCall(GILUTriSetMatrixWithArrays(f->U, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, f->nb, f->bs, f->Ui, f->Uj, f->Ua, f->Ud, f->patternid));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorDeviceReset(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  if (!f->db) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUBackendDeviceFree(f->dbackend, &f->db));
  PetscCall(GILUBackendDeviceFree(f->dbackend, &f->dx));
  PetscCall(GILUBackendDeviceFree(f->dbackend, &f->dwork));
  PetscCall(GILUBackendDeviceFree(f->dbackend, &f->drow));
  PetscCall(GILUBackendDeviceFree(f->dbackend, &f->dcol));
  f->dcols = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device arrays of MatSolve() on the back-end for ncols columns (the orderings copied once: they change only with
   the symbolic factorization; the buffers grow to a MatMatSolve()'s block and stay) */
static PetscErrorCode MatGILUFactorDeviceSetUp(Mat_GILUFactor *f, PetscGILUBackendType backend, PetscInt ncols)
{
  const size_t bytes = sizeof(PetscScalar) * (size_t)(f->nb * f->bs) * (size_t)ncols;

  PetscFunctionBegin;
  if (f->db && f->dbackend != backend) PetscCall(MatGILUFactorDeviceReset(f));
  if (!f->db && !f->identity) { /* the orderings */
    const PetscInt *r, *c;

    PetscCall(GILUBackendDeviceMalloc(backend, sizeof(PetscInt) * (size_t)f->nb, &f->drow));
    PetscCall(GILUBackendDeviceMalloc(backend, sizeof(PetscInt) * (size_t)f->nb, &f->dcol));
    PetscCall(ISGetIndices(f->row, &r));
    PetscCall(ISGetIndices(f->col, &c));
    PetscCall(GILUBackendDeviceCopyToDevice(backend, f->drow, r, sizeof(PetscInt) * (size_t)f->nb));
    PetscCall(GILUBackendDeviceCopyToDevice(backend, f->dcol, c, sizeof(PetscInt) * (size_t)f->nb));
    PetscCall(ISRestoreIndices(f->row, &r));
    PetscCall(ISRestoreIndices(f->col, &c));
  }
  f->dbackend = backend;
  if (f->dcols < ncols) { /* the buffers, first or for a larger block */
    PetscCall(GILUBackendDeviceFree(backend, &f->db));
    PetscCall(GILUBackendDeviceFree(backend, &f->dx));
    PetscCall(GILUBackendDeviceFree(backend, &f->dwork));
    PetscCall(GILUBackendDeviceMalloc(backend, bytes, &f->db));
    PetscCall(GILUBackendDeviceMalloc(backend, bytes, &f->dx));
    if (!f->identity) PetscCall(GILUBackendDeviceMalloc(backend, bytes, &f->dwork));
    f->dcols = ncols;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst[i] = src[perm[i]] by blocks of bs values (the ordering applied to a right-hand side) */
static inline void GatherBlocks(PetscInt nb, PetscInt bs, const PetscInt perm[], const PetscScalar src[], PetscScalar dst[])
{
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt p = 0; p < bs; p++) dst[i * bs + p] = src[perm[i] * bs + p];
}

/* dst[perm[i]] = src[i] by blocks of bs values (a solution back in the user's numbering) */
static inline void ScatterBlocks(PetscInt nb, PetscInt bs, const PetscInt perm[], const PetscScalar src[], PetscScalar dst[])
{
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt p = 0; p < bs; p++) dst[perm[i] * bs + p] = src[i * bs + p];
}

/* x[c[i]] = U^{-1} L^{-1} b[r[i]] on device arrays of the back-end of MatGILUFactorDeviceSetUp(), as
   GILUVecApplyDevice() calls it: L's solve gathers b by r where it reads it, U's scatters x by c where it stores it (the
   engine's kernels do, without passes of their own where the plan is one triangle); queued on the device, not waited for;
   ncols columns ldb, ldx apart (MatMatSolve(), as GILUMatDenseApplyDevice() calls it: every launch takes them all; the
   permuted vector's columns n apart) */
static PetscErrorCode MatMatSolve_GILU_DeviceArrays(void *ctx, PetscInt ncols, const PetscScalar *db, PetscInt ldb, PetscScalar *dx, PetscInt ldx)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)ctx;
  const PetscInt  n = f->nb * f->bs;

  PetscFunctionBegin;
  if (f->identity) {
    PetscCall(GILUTriSolveDeviceMultiple(f->L, ncols, db, ldb, NULL, dx, ldx, NULL, ldx, NULL));
    PetscCall(GILUTriSolveDeviceMultiple(f->U, ncols, dx, ldx, NULL, dx, ldx, NULL, ldx, NULL));
  } else {
    PetscScalar *w = (PetscScalar *)f->dwork;

    PetscCall(GILUTriSolveDeviceMultiple(f->L, ncols, db, ldb, (const PetscInt *)f->drow, w, n, NULL, ldx, NULL));
    PetscCall(GILUTriSolveDeviceMultiple(f->U, ncols, w, n, NULL, w, n, dx, ldx, (const PetscInt *)f->dcol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_GILU_DeviceArrays(void *ctx, const PetscScalar *db, PetscScalar *dx)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)ctx;
  const PetscInt  n = f->nb * f->bs;

  PetscFunctionBegin;
  PetscCall(MatMatSolve_GILU_DeviceArrays(ctx, 1, db, n, dx, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSolve() with L and U on the device back-end: b and x as device arrays (CUDA vectors' own, or the buffers with one
   logged copy each way: src/sys/device-vec.c), the orderings applied on the device, nothing else copied */
static PetscErrorCode MatSolve_GILU_Device(Mat B, PetscGILUBackendType backend, Vec b, Vec x)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorDeviceSetUp(f, backend, 1));
  PetscCall(GILUVecApplyDevice(b, x, backend, f->db, f->dx, MatSolve_GILU_DeviceArrays, f, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x[c[i]] = U^{-1} L^{-1} b[r[i]] (block rows), as PETSc's MatSolve_SeqAIJ/SeqBAIJ */
/* x = A^{-1} b (A^{-T} b) on the host, arrays of one vector (MatSolve(), MatSolveTranspose(), each column of
   MatMatSolve()): in place in x for the identity ordering, else gathered by in (the rows' ordering, the columns' for the
   transpose) into the factor's work vector, both triangles, scattered by out */
static PetscErrorCode MatGILUSolveHost(Mat_GILUFactor *f, PetscBool transpose, const PetscInt in[], const PetscInt out[], const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  if (f->identity && !transpose) {
    PetscCall(GILUTriSolve(f->L, b, x));
    PetscCall(GILUTriSolve(f->U, x, x));
  } else {
    GatherBlocks(f->nb, f->bs, in, b, f->work);
    PetscCall(GILUTriSolve(transpose ? f->Ut : f->L, f->work, f->work));
    PetscCall(GILUTriSolve(transpose ? f->Lt : f->U, f->work, f->work));
    ScatterBlocks(f->nb, f->bs, out, f->work, x);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor      *f = (Mat_GILUFactor *)B->data;
  const PetscScalar   *barr;
  PetscScalar         *xarr;
  const PetscInt      *r, *c;
  PetscGILUBackendType lb, ub;

  PetscFunctionBegin;
  PetscCall(GILUTriGetSolveBackend(f->L, &lb));
  PetscCall(GILUTriGetSolveBackend(f->U, &ub));
  if (lb == ub && lb != PETSCGILU_BACKEND_HOST) { /* both triangles on the device: the vectors stay there */
    PetscCall(MatSolve_GILU_Device(B, lb, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->row, &r));
  PetscCall(ISGetIndices(f->col, &c));
  PetscCall(MatGILUSolveHost(f, PETSC_FALSE, r, c, barr, xarr));
  PetscCall(ISRestoreIndices(f->row, &r));
  PetscCall(ISRestoreIndices(f->col, &c));
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T^T of a CSR/BSR triangle given as to GILUTriSetMatrix() (the engine's GILUTriSetMatrixTranspose()), with the factor's algorithm */
static PetscErrorCode TransposeTri(GILUTri *T, GILUTriUplo uplo, GILUTriDiag diag, PetscInt nb, PetscInt bs, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const MatScalar *d, GILUTriSolveType type, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscCall(GILUTriCreate(T));
  PetscCall(GILUTriSetType(*T, type));
  PetscCall(GILUTriSetThreads(*T, nthreads));
  PetscCall(GILUTriSetMatrixTranspose(*T, uplo, diag, nb, bs, ai, aj, aa, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* L^T and U^T (the transposed solves), made at the first transposed solve after a numeric factorization */
static PetscErrorCode MatGILUFactorGetTransposes(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  if (!f->Ut) PetscCall(TransposeTri(&f->Ut, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, f->nb, f->bs, f->Ui, f->Uj, f->Ua, f->Ud, f->type, f->nthreads));
  if (!f->Lt) PetscCall(TransposeTri(&f->Lt, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, f->nb, f->bs, f->Li, f->Lj, f->La, NULL, f->type, f->nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sqrt(1/d_k) of an ICC factor (Ud holds the inverted pivots 1/d_k), checked as PETSc's MatForwardSolve_SeqSBAIJ_1() does */
static PetscErrorCode ICCInvSqrtPivot(const Mat_GILUFactor *f, PetscInt k, PetscReal *s)
{
  PetscReal d = PetscRealPart(f->Ud[k]);

  PetscFunctionBegin;
  PetscCheck(PetscImaginaryPart(f->Ud[k]) == 0 && d >= 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal (%g,%g) of the ICC factor must be real and nonnegative for MatForwardSolve()/MatBackwardSolve()", (double)d, (double)PetscImaginaryPart(f->Ud[k]));
  *s = PetscSqrtReal(d);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ForwardSolve then BackwardSolve is MatSolve() (PCApplySymmetricLeft/Right, -ksp_pc_side symmetric), with PETSc's
   split, the intermediate vector in the factor's (permuted) numbering:
     ICC (A = P^T U~^T D U~ P, U~ unit upper; gilu's L = U~^T, U = D U~): forward x = D^{-1/2} L^{-1} P b, backward
         x = P^T U~^{-1} D^{-1/2} b = P^T U^{-1} D^{1/2} b (PETSc's MatForwardSolve_SeqSBAIJ_1(), the ICC factor of
         MATSEQAIJ; block size 1 only: PETSc's block ICC splits D otherwise)
     ILU (A = R^T L U C): forward x = L^{-1} R b, backward x = C^T U^{-1} b (PETSc's MatForwardSolve_SeqBAIJ_*(),
         which it defines for the natural ordering only) */
static PetscErrorCode MatGILUFactorCheckSplit(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCheck(f->ftype != MAT_FACTOR_ICC || f->bs == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatForwardSolve()/MatBackwardSolve() of an ICC factor of MatSolverType gilu need block size 1, not %" PetscInt_FMT ": use -%spc_factor_mat_solver_type petsc, or a -ksp_pc_side other than symmetric", f->bs, GILUPrefix(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatForwardSolve_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f = (Mat_GILUFactor *)B->data;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *r;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheckSplit(B));
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->row, &r));
  GatherBlocks(f->nb, f->bs, r, barr, f->work); /* f->work: b and x may be the same vector */
  PetscCall(ISRestoreIndices(f->row, &r));
  PetscCall(GILUTriSolve(f->L, f->work, xarr));
  if (f->ftype == MAT_FACTOR_ICC)
    for (PetscInt k = 0; k < f->nb; k++) {
      PetscReal s;

      PetscCall(ICCInvSqrtPivot(f, k, &s));
      xarr[k] *= s;
    }
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBackwardSolve_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f = (Mat_GILUFactor *)B->data;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *c;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheckSplit(B));
  PetscCall(VecGetArrayRead(b, &barr));
  if (f->ftype == MAT_FACTOR_ICC)
    for (PetscInt k = 0; k < f->nb; k++) {
      PetscReal s;

      PetscCall(ICCInvSqrtPivot(f, k, &s));
      f->work[k] = barr[k] / s; /* d_k^{1/2} b_k: U's rows are D's times U~'s */
    }
  else PetscCall(PetscArraycpy(f->work, barr, f->nb * f->bs));
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(GILUTriSolve(f->U, f->work, f->work));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->col, &c));
  ScatterBlocks(f->nb, f->bs, c, f->work, xarr);
  PetscCall(ISRestoreIndices(f->col, &c));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = A^{-1} B (or A^{-T} B) for all columns of a dense B in one call (PCMatApply(), KSPMatSolve()): each column as
   MatSolve() (MatSolveTranspose()) solves it, so bitwise its result. With both triangles on the host: up to
   GILU_TRI_MAX_RHS columns at a time, gathered interleaved (by the ordering) into the factor's mwork, both triangles
   solved for all of them at once (GILUTriSolveMultiple(): the factors' values, which bound the solve, read once for
   the group instead of once a column), scattered back; a last single column as MatSolve(). With L and U on a device
   back-end, on the device as MatSolve() does, all columns in each launch (GILUTriSolveDeviceMultiple(): one launch,
   one wait per dependency for the block), one copy each way or a CUDA dense block's own device array
   (GILUMatDenseApplyDevice()), in place (X = B) too. Otherwise column by column. */
static PetscErrorCode MatMatSolve_GILU_Private(Mat B, Mat RHS, Mat X, PetscBool transpose)
{
  Mat_GILUFactor    *f = (Mat_GILUFactor *)B->data;
  const PetscInt     m = f->nb * f->bs;
  PetscInt           ncols, ldb, ldx;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *in, *out;
  PetscBool          dense, multiple = PETSC_FALSE;
  GILUTri            first, second;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)RHS, MATSEQDENSE, &dense));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMatSolve() of MatSolverType gilu needs a MATSEQDENSE right-hand side, not %s", ((PetscObject)RHS)->type_name);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQDENSE, &dense));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMatSolve() of MatSolverType gilu needs a MATSEQDENSE solution, not %s", ((PetscObject)X)->type_name);
  PetscCall(MatGetSize(RHS, NULL, &ncols));
  if (!ncols || !m) PetscFunctionReturn(PETSC_SUCCESS);
  if (!transpose) { /* (in place: the block copied in before, or a CUDA dense block's own array, which the solves take
                       in place as MatSolve() does: L reads a row's b before it writes x there, or gathers b into the work) */
    PetscGILUBackendType lb, ub;

    PetscCall(GILUTriGetSolveBackend(f->L, &lb));
    PetscCall(GILUTriGetSolveBackend(f->U, &ub));
    if (lb == ub && lb != PETSCGILU_BACKEND_HOST) {
      PetscCall(MatGILUFactorDeviceSetUp(f, lb, ncols));
      PetscCall(GILUMatDenseApplyDevice(RHS, X, lb, f->db, f->dx, MatMatSolve_GILU_DeviceArrays, f, NULL));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (transpose) PetscCall(MatGILUFactorGetTransposes(f));
  first  = transpose ? f->Ut : f->L;
  second = transpose ? f->Lt : f->U;
  if (ncols > 1) {
    PetscGILUBackendType fb, sb;

    PetscCall(GILUTriGetSolveBackend(first, &fb));
    PetscCall(GILUTriGetSolveBackend(second, &sb));
    multiple = (PetscBool)(fb == PETSCGILU_BACKEND_HOST && sb == PETSCGILU_BACKEND_HOST);
  }
  if (multiple && !f->mwork) PetscCall(PetscMalloc1((size_t)m * GILU_TRI_MAX_RHS, &f->mwork));
  PetscCall(MatDenseGetLDA(RHS, &ldb));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(ISGetIndices(transpose ? f->col : f->row, &in));
  PetscCall(ISGetIndices(transpose ? f->row : f->col, &out));
  if (RHS == X) { /* (each column read before it is written) */
    PetscCall(MatDenseGetArray(X, &xarr));
    barr = xarr;
  } else {
    PetscCall(MatDenseGetArrayRead(RHS, &barr));
    PetscCall(MatDenseGetArrayWrite(X, &xarr));
  }
  for (PetscInt k = 0; k < ncols;) {
    const PetscInt     g = multiple ? PetscMin(GILU_TRI_MAX_RHS, ncols - k) : 1;
    const PetscScalar *b = barr + (size_t)k * ldb;
    PetscScalar       *x = xarr + (size_t)k * ldx;

    if (g == 1) PetscCall(MatGILUSolveHost(f, transpose, in, out, b, x));
    else { /* all g columns are read before any is written: in place too */ PetscCall(GILUTriColumnsToMultiple(first, g, f->identity ? NULL : in, b, ldb, f->mwork));
      PetscCall(GILUTriSolveMultiple(first, g, f->mwork, f->mwork));
      PetscCall(GILUTriSolveMultiple(second, g, f->mwork, f->mwork));
      PetscCall(GILUTriMultipleToColumns(second, g, f->identity ? NULL : out, f->mwork, x, ldx));
    }
    k += g;
  }
  if (RHS == X) PetscCall(MatDenseRestoreArray(X, &xarr));
  else {
    PetscCall(MatDenseRestoreArrayWrite(X, &xarr));
    PetscCall(MatDenseRestoreArrayRead(RHS, &barr));
  }
  PetscCall(ISRestoreIndices(transpose ? f->col : f->row, &in));
  PetscCall(ISRestoreIndices(transpose ? f->row : f->col, &out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_GILU(Mat B, Mat RHS, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_GILU_Private(B, RHS, X, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolveTranspose_GILU(Mat B, Mat RHS, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_GILU_Private(B, RHS, X, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^{-T} = R^T L^{-T} U^{-T} C: x[r[i]] = (L^{-T} U^{-T} b[c[.]])_i */
static PetscErrorCode MatSolveTranspose_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f = (Mat_GILUFactor *)B->data;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *r, *c;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorGetTransposes(f));
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->row, &r));
  PetscCall(ISGetIndices(f->col, &c));
  PetscCall(MatGILUSolveHost(f, PETSC_TRUE, c, r, barr, xarr));
  PetscCall(ISRestoreIndices(f->row, &r));
  PetscCall(ISRestoreIndices(f->col, &c));
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = y + A^{-1} b or y + A^{-T} b (x may be y) */
static PetscErrorCode MatSolveAdd_GILU_Private(Mat B, PetscBool transpose, Vec b, Vec y, Vec x)
{
  Vec t = x;

  PetscFunctionBegin;
  if (x == y) PetscCall(VecDuplicate(x, &t));
  if (transpose) PetscCall(MatSolveTranspose_GILU(B, b, t));
  else PetscCall(MatSolve_GILU(B, b, t));
  PetscCall(VecAXPY(x, 1.0, x == y ? t : y));
  if (x == y) PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveAdd_GILU(Mat B, Vec b, Vec y, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolveAdd_GILU_Private(B, PETSC_FALSE, b, y, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Its own, not left to MatSolveTransposeAdd(): without one, PETSc takes the factor's solveadd wherever mat->symmetric is
  nonzero, and PETSC_BOOL3_UNKNOWN (-1, every factor's) is nonzero: it would return y + A^{-1} b
*/
static PetscErrorCode MatSolveTransposeAdd_GILU(Mat B, Vec b, Vec y, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolveAdd_GILU_Private(B, PETSC_TRUE, b, y, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solves of a factor whose values are set (a numeric factorization, or MatGILUFactorTakeValues()) */
static PetscErrorCode MatGILUFactorSetSolveOps(Mat B)
{
  PetscFunctionBegin;
  B->ops->solve             = MatSolve_GILU;
  B->ops->solveadd          = MatSolveAdd_GILU;
  B->ops->solvetranspose    = MatSolveTranspose_GILU;
  B->ops->solvetransposeadd = MatSolveTransposeAdd_GILU;
  B->ops->forwardsolve      = MatForwardSolve_GILU;
  B->ops->backwardsolve     = MatBackwardSolve_GILU;
  B->ops->matsolve          = MatMatSolve_GILU;
  B->ops->matsolvetranspose = MatMatSolveTranspose_GILU;
  B->assembled              = PETSC_TRUE;
  B->preallocated           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ICC reads the upper triangle of A only, as PETSc's ICC does (it never checks symmetry). gilu computes ICC(k) as ILU(k)
  of a symmetric matrix: A itself where A is exactly its own transpose, else the symmetric image of A's upper triangle
  (f->image). Exactly: the pattern symmetric and each entry (j,i) equal to (i,j) (==, no tolerance: then A is its image,
  bit for bit); of a MATSEQBAIJ the off-diagonal blocks against the transposes of their mirrors, the diagonal blocks not
  compared (the image keeps them whole, as PETSc's block ICC, through MATSEQSBAIJ, does). bs: 1 for MATSEQAIJ.
*/
static PetscErrorCode MatGILUIsExactlySymmetric(Mat A, PetscInt bs, PetscBool *sym)
{
  const PetscInt     bs2 = bs * bs;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *aab = NULL;
  PetscInt           nb, nlower = 0, nupper = 0;
  PetscBool          done, baij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, baij, &nb, &ai, &aj, &done)); /* host rows, not inode-compressed */
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of the matrix");
  if (baij) {
    PetscCall(MatSeqBAIJGetArray(A, &aab));
    aa = aab;
  } else PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  *sym = PETSC_TRUE;
  for (PetscInt i = 0; i < nb && *sym; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1] && *sym; k++) {
      const PetscInt j = aj[k];
      PetscInt       t;

      if (j < i) nlower++;
      if (j <= i) continue;
      nupper++;
      PetscCall(PetscFindInt(i, ai[j + 1] - ai[j], aj + ai[j], &t)); /* the mirror (j,i) in row j (sorted) */
      if (t < 0) *sym = PETSC_FALSE;
      else
        for (PetscInt p = 0; p < bs && *sym; p++)
          for (PetscInt q = 0; q < bs; q++)
            if (aa[k * bs2 + p * bs + q] != aa[(ai[j] + t) * bs2 + q * bs + p]) *sym = PETSC_FALSE;
    }
  if (nlower != nupper) *sym = PETSC_FALSE; /* every upper entry has its mirror: then a lower one without its own is one too many */
  if (baij) PetscCall(MatSeqBAIJRestoreArray(A, &aab));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, baij, &nb, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The first block row of a MATSEQBAIJ or MATSEQSBAIJ whose diagonal block is not symmetric (==), or -1. PETSc's block ICC
  (through MATSEQSBAIJ) assumes these blocks symmetric: it multiplies by the inverse of the block on one side and by its
  transpose on the other, which is no ILU of any matrix where a block is not symmetric; gilu then hands the factor over.
*/
static PetscErrorCode MatGILUFindAsymmetricDiagonalBlock(Mat A, PetscInt bs, PetscInt *row)
{
  const PetscInt  bs2 = bs * bs;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscInt        nb;
  PetscBool       done, sbaij;

  PetscFunctionBegin;
  *row = -1;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of the matrix");
  if (sbaij) PetscCall(MatSeqSBAIJGetArray(A, &aa));
  else PetscCall(MatSeqBAIJGetArray(A, &aa));
  for (PetscInt i = 0; i < nb && *row < 0; i++) {
    PetscInt t;

    PetscCall(PetscFindInt(i, ai[i + 1] - ai[i], aj + ai[i], &t));
    if (t < 0) continue; /* no diagonal block: PETSc's symbolic factorization says so */
    for (PetscInt p = 0; p < bs && *row < 0; p++)
      for (PetscInt q = p + 1; q < bs; q++)
        if (aa[(ai[i] + t) * bs2 + p * bs + q] != aa[(ai[i] + t) * bs2 + q * bs + p]) *row = i;
  }
  if (sbaij) PetscCall(MatSeqSBAIJRestoreArray(A, &aa));
  else PetscCall(MatSeqBAIJRestoreArray(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  f->image, what ICC factors in place of A: of a MATSEQSBAIJ the whole symmetric matrix it stands for (MatConvert()),
  of a MATSEQAIJ or MATSEQBAIJ the symmetric matrix of its upper triangle (entry (i,j), j >= i, also at (j,i) transposed;
  the lower triangle unread, as by PETSc's ICC). Made where f->image is NULL (A's nonzero state recorded), else its values
  refreshed from A, whose pattern must be the one it was made from.
*/
static PetscErrorCode MatGILUFactorImage(Mat_GILUFactor *f, Mat A)
{
  PetscBool          sbaij, baij, done;
  PetscInt           bs, bs2, nb;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *aab = NULL, *tr;

  PetscFunctionBegin;
  if (f->image) {
    PetscObjectState state;

    PetscCall(MatGetNonzeroState(A, &state));
    PetscCheck(state == f->imagestate, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of the matrix changed since the symbolic factorization: call MatICCFactorSymbolic() again (or use DIFFERENT_NONZERO_PATTERN)");
  } else PetscCall(MatGetNonzeroState(A, &f->imagestate));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  f->imagesbaij = sbaij;
  if (sbaij) {
    PetscCall(MatConvert(A, f->bs > 1 ? MATSEQBAIJ : MATSEQAIJ, f->image ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &f->image));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  bs  = baij ? f->bs : 1;
  bs2 = bs * bs;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, baij, &nb, &ai, &aj, &done)); /* host rows, not inode-compressed */
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of the matrix");
  if (!f->image) {
    PetscInt *nnz;

    PetscCall(PetscCalloc1(nb, &nnz));
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        if (aj[k] >= i) {
          nnz[i]++;
          if (aj[k] > i) nnz[aj[k]]++;
        }
    if (baij) PetscCall(MatCreateSeqBAIJ(PETSC_COMM_SELF, bs, nb * bs, nb * bs, 0, nnz, &f->image));
    else PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nb, nb, 0, nnz, &f->image));
    PetscCall(PetscFree(nnz));
    PetscCall(MatSetOption(f->image, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    PetscCall(MatSetOption(f->image, MAT_ROW_ORIENTED, PETSC_FALSE)); /* blocks as BAIJ stores them, column-major */
  }
  if (baij) {
    PetscCall(MatSeqBAIJGetArray(A, &aab));
    aa = aab;
  } else PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(PetscMalloc1(bs2, &tr));
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscInt j = aj[k];

      if (j < i) continue;
      PetscCall(MatSetValuesBlocked(f->image, 1, &i, 1, &j, aa + k * bs2, INSERT_VALUES));
      if (j == i) continue;
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) tr[p * bs + q] = aa[k * bs2 + q * bs + p];
      PetscCall(MatSetValuesBlocked(f->image, 1, &j, 1, &i, tr, INSERT_VALUES));
    }
  PetscCall(PetscFree(tr));
  if (baij) PetscCall(MatSeqBAIJRestoreArray(A, &aab));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, baij, &nb, &ai, &aj, &done));
  PetscCall(MatAssemblyBegin(f->image, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(f->image, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f->petscicc: PETSc's ICC factor F factors and solves */
static PetscErrorCode MatCholeskyFactorNumeric_GILU_PETScICC(Mat B, Mat A, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatCholeskyFactorNumeric(f->F, A, info));
  PetscCall(GILUMatFactorSetDelegate(B, f->F));
  B->assembled    = PETSC_TRUE;
  B->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f->petscicc: PETSc's block ICC factors and solves (f->why says why), from its symbolic factorization here on */
static PetscErrorCode MatGILUFactorHandOverICC(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_GILUFactor *f     = (Mat_GILUFactor *)B->data;
  MatFactorInfo   sinfo = *info; /* info may be f->sinfo */

  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "MatSolverType gilu, block size %" PetscInt_FMT ": %s; PETSc's ICC factorization and solves are used\n", f->bs, f->why));
  PetscCall(MatDestroy(&f->F));
  PetscCall(MatDestroy(&f->image));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ICC, &f->F));
  PetscCall(MatICCFactorSymbolic(f->F, A, perm, &sinfo));
  f->petscicc                   = PETSC_TRUE;
  f->pattern                    = PETSC_FALSE;
  f->sinfo                      = sinfo;
  B->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_GILU_PETScICC;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entries of A dropped (MatGILUFactorSetDropped()): of the same pattern, and where gilu's numeric ILU(0) reads A itself */
static PetscErrorCode MatGILUFactorCheckDropped(Mat B, Mat A, const MatFactorInfo *info)
{
  Mat_GILUFactor  *f = (Mat_GILUFactor *)B->data;
  PetscObjectState state;
  PetscBool        aij;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &state));
  PetscCheck(state == f->dropstate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of the matrix changed since MatGILUFactorSetDropped() named the entries to drop: name them again");
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
  PetscCheck(aij && f->bs == 1 && (PetscInt)info->levels == 0 && (info->shifttype == (PetscReal)MAT_SHIFT_NONE || info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS), PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu drops entries of the matrix (MatGILUFactorSetDropped(): PCSPARSIFY's Ahat) only in its own ILU(0) of a MATSEQAIJ without the shift types nonzero and positive_definite (which restart PETSc's): not for ILU(%" PetscInt_FMT "), shift type %s, %s",
             (PetscInt)info->levels, MatFactorShiftTypes[(PetscInt)info->shifttype], ((PetscObject)A)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscBool       aij, needshift = PETSC_FALSE;
  Mat             Auser = A;

  PetscFunctionBegin;
  if (f->ftype == MAT_FACTOR_ICC) { /* the upper triangle only, as PETSc's ICC: A where it is exactly symmetric, else its image */
    PetscBool sym = PETSC_FALSE;
    PetscInt  brow;

    if (f->bs > 1) PetscCall(MatGILUFindAsymmetricDiagonalBlock(A, f->bs, &brow));
    if (f->bs > 1 && brow >= 0) { /* the values changed so since the symbolic factorization */
      PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "diagonal block %" PetscInt_FMT " is not symmetric, which PETSc's block ICC assumes", brow));
      PetscCall(MatGILUFactorHandOverICC(B, A, f->row, &f->sinfo));
      PetscCall(MatCholeskyFactorNumeric_GILU_PETScICC(B, A, info));
      PetscFunctionReturn(PETSC_SUCCESS);
    }

    if (!f->image) PetscCall(MatGILUIsExactlySymmetric(A, f->bs, &sym)); /* the symbolic factorization found it so: still? */
    if (!sym) {
      PetscCall(MatGILUFactorImage(f, A));
      A = f->image;
    }
  }
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aij)); /* with its subtypes (MATSEQAIJCUSPARSE ...): read on the host */
  if (f->ndrop) PetscCall(MatGILUFactorCheckDropped(B, A, info));
  if (aij && f->numeric == GILU_FACTOR_NUMERIC_GILU) PetscCall(MatGILUFactorGetPatternILU0(B, A));
  PetscCall(MatGILUFactorGetPattern(B));
  f->rangilu = PETSC_FALSE;
  f->given   = PETSC_FALSE;
  if (f->numeric == GILU_FACTOR_NUMERIC_PETSC) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "-%smat_gilu_factor_numeric petsc was given", GILUPrefix(B)));
  else if (!aij && (f->bs < 2 || f->bs > 7)) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "the MATSEQBAIJ matrix has block size %" PetscInt_FMT " (gilu's covers block sizes 2 to 7)", f->bs));
  else {
    if (aij) PetscCall(MatGILUFactorDropPETSc(f)); /* before the values are allocated: the factor is never stored twice */
    PetscCall(MatGILUFactorAllocValues(f));
    PetscCall(PetscLogEventBegin(GILU_FactorNumeric, A, B, 0, 0));
    PetscCall(MatGILUFactorNumeric_Seq(B, A, info, &needshift));
    if (!aij && !B->factorerrortype) PetscCall(MatGILUFactorCopyValues(B)); /* written in PETSc's storage, read from there */
    PetscCall(PetscLogEventEnd(GILU_FactorNumeric, A, B, 0, 0));
    if (needshift && f->ftype == MAT_FACTOR_ICC) { /* PETSc's ICC shifts as ICC (its own row sums and restarts), not as ILU: its factorization, from now on */
      PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "a pivot needs the shift of shift type %s, which PETSc's ICC computes its own way", MatFactorShiftTypes[(PetscInt)info->shifttype]));
      PetscCall(MatGILUFactorHandOverICC(B, Auser, f->row, &f->sinfo));
      PetscCall(MatCholeskyFactorNumeric_GILU_PETScICC(B, Auser, info));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (needshift) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "a pivot needs the shift of shift type %s (PETSc restarts with it)", MatFactorShiftTypes[(PetscInt)info->shifttype]));
    else f->rangilu = PETSC_TRUE;
  }
  if (!f->rangilu) { /* PETSc's numeric factorization: its factor (made again if it was dropped) is kept for the next one */
    PetscCheck(!f->ndrop, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc's numeric factorization (%s) cannot drop entries of the matrix (MatGILUFactorSetDropped())", f->why);
    PetscCall(MatGILUFactorMakePETSc(f, A));
    PetscCall(MatLUFactorNumeric(f->F, A, info));
    B->factorerrortype             = f->F->factorerrortype;
    B->factorerror_zeropivot_value = f->F->factorerror_zeropivot_value;
    B->factorerror_zeropivot_row   = f->F->factorerror_zeropivot_row;
    if (!B->factorerrortype) PetscCall(MatGILUFactorCopyValues(B));
  }
  if (!B->factorerrortype) PetscCall(MatGILUFactorSetTri(B));
  PetscCall(MatGILUFactorSetSolveOps(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatLUFactorNumeric_GILU(B, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The orderings, the options (-mat_gilu_factor_numeric, -mat_gilu_factor_schedule, -mat_gilu_trisolve,
  -mat_gilu_trisolve_threads, ... with the factor's prefix) and PETSc's symbolic factorization
*/

/*
  The pivots, as PETSc's ILU and ICC factors of MATSEQAIJ give them (the inverted diagonal of U inverted again), in the
  factor's (permuted) numbering; where PETSc's factor does the factorization, its own. A factor with blocks has none (as
  PETSc's factored BAIJ).
*/
static PetscErrorCode MatGetDiagonal_GILU(Mat B, Vec d)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscScalar    *x;

  PetscFunctionBegin;
  if (f->petscicc || (f->F && !f->Ud)) {
    PetscCall(MatGetDiagonal(f->F, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(f->bs == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetDiagonal() of a factor gives its pivots, which a factor with blocks of %" PetscInt_FMT " has not (as PETSc's factored BAIJ)", f->bs);
  PetscCheck(f->Ud, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatGetDiagonal() of a factor of MatSolverType gilu needs its numeric factorization first");
  PetscCall(VecGetArrayWrite(d, &x));
  for (PetscInt i = 0; i < f->nb; i++) x[i] = 1.0 / f->Ud[i];
  PetscCall(VecRestoreArrayWrite(d, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The engine's triangles L and U, made again with the options (the factor's prefix: -mat_gilu_trisolve, _threads, ...),
   read by L with f's algorithm and threads as defaults; U gets what L ended with (the same options: -help lists them once) */
static PetscErrorCode MatGILUFactorCreateTri(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(GILUTriCreate(&f->L));
  PetscCall(GILUTriCreate(&f->U));
  PetscCall(GILUTriSetType(f->L, f->type));
  PetscCall(GILUTriSetThreads(f->L, f->nthreads));
  PetscCall(GILUTriSetFromOptions(f->L, ((PetscObject)B)->options, ((PetscObject)B)->prefix));
  PetscCall(GILUTriGetSettings(f->L, &f->type, &f->nthreads)); /* the numeric factorization and the transposes use them too */
  PetscCall(GILUTriSetType(f->U, f->type));
  PetscCall(GILUTriSetThreads(f->U, f->nthreads));
  PetscCall(GILUTriSetFromOptions(f->U, ((PetscObject)B)->options, ((PetscObject)B)->prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorReadOptions(GILUOptionItems PetscOptionsObject, void *ctx)
{
  Mat_GILUFactor *f    = (Mat_GILUFactor *)ctx;
  PetscEnum       type = (PetscEnum)f->numeric;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-mat_gilu_factor_numeric", "Numeric factorization: gilu's (MATSEQAIJ; MATSEQBAIJ block sizes 2-7) or PETSc's", "MATSOLVERGILU", GILUFactorNumericTypes, type, &type, NULL));
  f->numeric = (GILUFactorNumericType)type;
  type       = (PetscEnum)f->schedule;
  PetscCall(PetscOptionsEnum("-mat_gilu_factor_schedule", "Schedule of gilu's numeric factorization on the threads", "MATSOLVERGILU", GILUFactorSchedules, type, &type, NULL));
  f->schedule = (GILUFactorSchedule)type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscInt        m;
  PetscBool       ri = PETSC_TRUE, ci = PETSC_TRUE, baij, sbaij;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &f->bs));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatDestroy(&f->image));
  PetscCall(MatDestroy(&f->F));
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(MatGILUFactorDeviceReset(f));
  f->petscicc = PETSC_FALSE;
  f->pattern  = PETSC_FALSE;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  /* PETSc's own ICC where ILU(k) of the image is not it: its block ICC (of BAIJ, SBAIJ; block size > 1), and its ICC(k > 0) of
     a MATSEQBAIJ of block size 1, which has a fill of its own too (not its AIJ's or SBAIJ's) */
  if (f->ftype == MAT_FACTOR_ICC && (baij || sbaij) && (f->bs > 1 || (baij && info->levels > 0))) {
    f->why[0] = 0;
    if (f->bs == 1) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "PETSc's ICC(%" PetscInt_FMT ") of a MATSEQBAIJ of block size 1 has a fill of its own, not ILU(%" PetscInt_FMT ")'s", (PetscInt)info->levels, (PetscInt)info->levels));
    else if (info->levels > 0) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "PETSc's block ICC(%" PetscInt_FMT ") has a fill of its own, not ILU(%" PetscInt_FMT ")'s", (PetscInt)info->levels, (PetscInt)info->levels));
    else if (info->shifttype != (PetscReal)MAT_SHIFT_NONE && info->shifttype != (PetscReal)MAT_SHIFT_INBLOCKS)
      PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "PETSc's block ICC has the shift type %s, which block ILU has not", MatFactorShiftTypes[(PetscInt)info->shifttype]));
    else {
      PetscInt brow;

      PetscCall(MatGILUFindAsymmetricDiagonalBlock(A, f->bs, &brow));
      if (brow >= 0) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "diagonal block %" PetscInt_FMT " is not symmetric, which PETSc's block ICC assumes", brow));
    }
    if (f->why[0]) {
      PetscCall(MatGILUFactorHandOverICC(B, A, row, info));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (!baij && !sbaij) f->bs = 1;
  if (f->ftype == MAT_FACTOR_ICC) { /* (MATSEQSBAIJ: ICC only, MatGetFactor_SeqAIJ_GILU()) */
    PetscBool sym = PETSC_FALSE;

    if (!sbaij) PetscCall(MatGILUIsExactlySymmetric(A, f->bs, &sym));
    if (!sym) { /* the symmetric matrix of the upper triangle, which ILU(k) factors: its ILU(k) is PETSc's ICC(k) of A to
                   round-off (the same levels of fill, L = U^T D^{-1}) */
      PetscCall(MatGILUFactorImage(f, A));
      A = f->image;
    }
  }
  PetscCheck(f->bs <= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu supports block sizes 1 to 8, not %" PetscInt_FMT ": use -%spc_factor_mat_solver_type petsc", f->bs, (A->factorprefix ? A->factorprefix : ""));
  if (f->ndrop) PetscCall(MatGILUFactorCheckDropped(B, A, info));
  f->nb = m / f->bs;
  PetscCall(MatDestroy(&f->F));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &f->F));
  PetscCall(MatILUFactorSymbolic(f->F, A, row, col, info));
  f->sinfo    = *info;
  f->hasfinfo = PETSC_FALSE;
  f->pattern  = PETSC_FALSE;
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  PetscCall(MatGILUFactorDeviceReset(f)); /* the orderings may change */
  if (row) {
    PetscInt nr;

    PetscCall(ISGetLocalSize(row, &nr));
    PetscCheck(nr == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The row ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -%spc_factor_mat_ordering_type natural", nr, f->nb, (A->factorprefix ? A->factorprefix : ""));
    PetscCall(ISIdentity(row, &ri));
    PetscCall(PetscObjectReference((PetscObject)row));
  }
  if (col) {
    PetscInt nc;

    PetscCall(ISGetLocalSize(col, &nc));
    PetscCheck(nc == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The column ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -%spc_factor_mat_ordering_type natural", nc, f->nb, (A->factorprefix ? A->factorprefix : ""));
    PetscCall(ISIdentity(col, &ci));
    PetscCall(PetscObjectReference((PetscObject)col));
  }
  if (!row) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &row));
  if (!col) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &col));
  f->row      = row;
  f->col      = col;
  f->identity = (PetscBool)(ri && ci);
  PetscCall(PetscFree(f->work));
  PetscCall(PetscFree(f->mwork));
  PetscCall(PetscMalloc1(m, &f->work));
  /* the factor's options (in -help with the factor's prefix), then the engine's (MatGILUFactorCreateTri()) */
  PetscCall(GILUOptionsBlock(PetscObjectComm((PetscObject)B), ((PetscObject)B)->options, ((PetscObject)B)->prefix, "MatSolverType gilu options", "Mat", FactorReadOptions, f));
  PetscCheck(!f->ndrop || (f->identity && f->numeric == GILU_FACTOR_NUMERIC_GILU), PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu drops entries of the matrix (MatGILUFactorSetDropped(): PCSPARSIFY's Ahat) only in its own numeric factorization in the natural ordering: not with %s%s%s", f->identity ? "-" : "", f->identity ? GILUPrefix(B) : "", f->identity ? "mat_gilu_factor_numeric petsc" : "another ordering");
  PetscCall(MatGILUFactorCreateTri(B));
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
  else if (f->hasfinfo) *info = f->finfo; /* one process: local and global are the same */
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
  if (f->petscicc) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "gilu: block size %" PetscInt_FMT ": %s; PETSc's ICC factorization and solves\n", f->bs, f->why));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MatView(f->F, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "gilu: %s factors (ordering %s), PETSc's symbolic factorization, triangular solves of petscgilu's engine\n",
                                   f->ftype != MAT_FACTOR_ICC ? "ILU"
                                   : !f->image                ? "ICC (as ILU of the matrix, which is symmetric)"
                                   : f->imagesbaij            ? "ICC (as ILU of the whole symmetric matrix, an image of the MATSEQSBAIJ's upper triangle)"
                                                              : "ICC (as ILU of the symmetric image of the upper triangle, PETSc's ICC reads no other: the matrix is not symmetric)",
                                   f->identity ? "natural" : "permuted"));
  if (f->ndrop) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "of the matrix less %" PetscInt_FMT " of its entries (MatGILUFactorSetDropped()), read from the matrix: the matrix without them is never assembled\n", f->ndrop));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  if (f->pattern) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (f->rangilu) {
      if (f->nthreads == 1) PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), 1 thread, rows in order (L has %" PetscInt_FMT " levels)\n", f->nlevels));
      else if (f->ranserial)
        PetscCall(
          PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), 1 thread, rows in order: chunks would leave the threads idle and L's %" PetscInt_FMT " level sets are small (%.1f rows each)\n", f->nlevels, (double)f->nb / f->nlevels));
      else if (f->ranschedule == GILU_FACTOR_SCHEDULE_CHUNKED)
        PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), chunked on %" PetscInt_FMT " threads: %" PetscInt_FMT " chunks of consecutive rows (%.1f rows each) in %" PetscInt_FMT " levels of the chunk DAG (L has %" PetscInt_FMT " levels)\n", f->nthreads, f->nchunks,
                                         (double)f->nb / f->nchunks, f->nclevels, f->nlevels));
      else
        PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), level-set on %" PetscInt_FMT " threads: %" PetscInt_FMT " level sets of L (%.1f rows each)%s\n", f->nthreads, f->nlevels, (double)f->nb / f->nlevels, f->schedule == GILU_FACTOR_SCHEDULE_CHUNKED ? ", since chunks would leave the threads idle" : ""));
    } else if (f->given) PetscCall(PetscViewerASCIIPrintf(viewer, "no numeric factorization: L and U given by %s\n", f->why));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: PETSc's, because %s\n", f->why));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
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
  PetscCall(MatDestroy(&f->image));
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  PetscCall(PetscFree(f->work));
  PetscCall(PetscFree(f->mwork));
  PetscCall(PetscFree(f->drop));
  PetscCall(MatGILUFactorDeviceReset(f));
  PetscCall(PetscFree(f->ic));
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(MatGILUFactorFreeFactors(f));
  PetscCall(PetscFree(B->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGILUSetTriSolveType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGILUSetTriSolveThreads_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorCheck(Mat B)
{
  const char *st;
  PetscBool   gilu;

  PetscFunctionBegin;
  PetscCall(MatFactorGetSolverType(B, &st));
  PetscCall(PetscStrcmp(st, MATSOLVERGILU, &gilu));
  PetscCheck(gilu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a factor of MatSolverType gilu but of %s", st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorGetTri(Mat B, GILUTri *L, GILUTri *U)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  if (L) *L = f->pattern ? f->L : NULL;
  if (U) *U = f->pattern ? f->U : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorGetFactors(Mat B, PetscInt *nb, PetscInt *bs, const PetscInt **Li, const PetscInt **Lj, const MatScalar **La, const PetscInt **Ui, const PetscInt **Uj, const MatScalar **Ua, const MatScalar **Ud, PetscBool *rangilu)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  PetscCheck(f->pattern, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "No numeric factorization yet");
  if (nb) *nb = f->nb;
  if (bs) *bs = f->bs;
  if (Li) *Li = f->Li;
  if (Lj) *Lj = f->Lj;
  if (La) *La = f->La;
  if (Ui) *Ui = f->Ui;
  if (Uj) *Uj = f->Uj;
  if (Ua) *Ua = f->Ua;
  if (Ud) *Ud = f->Ud;
  if (rangilu) *rangilu = f->rangilu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatGILUFactorTakeValues - the factor's L and U given, as a numeric factorization would set them (for a preconditioner
  that computes its incomplete factors itself, PCATSILU: its solves are then those of this factor): nb block rows of
  bs x bs row-major blocks (bs 1 to GILU_MAX_DOF), natural ordering, L strictly lower (unit diagonal, not stored), U upper
  with its diagonal block first in each row (stored, not inverted). B comes from MatGetFactor(A, MATSOLVERGILU,
  MAT_FACTOR_ILU) with no symbolic factorization; its options prefix selects the engine's options, read at the first
  call. The arrays are taken (each triangle's three from one PetscMalloc3()), so the factors are never held twice: a new
  pattern makes them the factor's storage (U's diagonal blocks moved out, its rows closed up in place, no copy); where
  the pattern equals the last one the engine keeps its analysis (and device copies of the pattern), the values are copied
  into the factor's arrays and the given ones freed. A singular diagonal block sets the factor's error
  MAT_FACTOR_NUMERIC_ZEROPIVOT (and its row), as a numeric factorization does; maker names the values' origin for the view.
*/
PetscErrorCode MatGILUFactorTakeValues(Mat B, PetscInt nb, PetscInt bs, PetscInt *Lip[], PetscInt *Ljp[], MatScalar *Lap[], PetscInt *Uip[], PetscInt *Ujp[], MatScalar *Uap[], const char maker[])
{
  Mat_GILUFactor *f   = (Mat_GILUFactor *)B->data;
  const PetscInt  bs2 = bs * bs;
  PetscInt       *Li = *Lip, *Lj = *Ljp, *Ui = *Uip, *Uj = *Ujp;
  MatScalar      *La = *Lap, *Ua = *Uap;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  PetscCheck(f->ftype == MAT_FACTOR_ILU && !f->F && !f->image && !f->ndrop, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatGILUFactorTakeValues() needs an ILU factor without a symbolic factorization");
  PetscCheck(bs >= 1 && bs <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGILUFactorTakeValues(): block size %" PetscInt_FMT " is not in 1 to %d", bs, GILU_MAX_DOF);
  for (PetscInt i = 0; i < nb; i++) PetscCheck(Ui[i + 1] > Ui[i] && Uj[Ui[i]] == i, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGILUFactorTakeValues(): row %" PetscInt_FMT " of U does not start with its diagonal", i);
  same = (PetscBool)(f->pattern && f->nb == nb && f->bs == bs && f->Li[nb] == Li[nb] && f->Ui[nb] == Ui[nb] - nb);
  for (PetscInt i = 0; i < nb && same; i++) same = (PetscBool)(f->Li[i + 1] == Li[i + 1] && f->Ui[i + 1] == Ui[i + 1] - (i + 1));
  if (same) PetscCall(PetscArraycmp(f->Lj, Lj, Li[nb], &same));
  for (PetscInt i = 0; i < nb && same; i++) PetscCall(PetscArraycmp(f->Uj + f->Ui[i], Uj + Ui[i] + 1, f->Ui[i + 1] - f->Ui[i], &same));
  if (!f->L) PetscCall(MatGILUFactorCreateTri(B));
  if (same) { /* the engine's analysis is kept: the values go into the factor's arrays, the caller's are freed */
    PetscCall(PetscArraycpy(f->La, La, Li[nb] * bs2));
    for (PetscInt i = 0; i < nb; i++) {
      PetscCall(PetscArraycpy(f->Ud + i * bs2, Ua + Ui[i] * bs2, bs2));
      PetscCall(PetscArraycpy(f->Ua + f->Ui[i] * bs2, Ua + (Ui[i] + 1) * bs2, (f->Ui[i + 1] - f->Ui[i]) * bs2));
    }
    PetscCall(PetscFree3(Li, Lj, La));
    PetscCall(PetscFree3(Ui, Uj, Ua));
  } else { /* the caller's arrays become the factor's: U's diagonal blocks move out, its rows close up in place */
    PetscCall(MatGILUFactorFreeFactors(f));
    PetscCall(PetscFree(f->work));
    PetscCall(PetscFree(f->mwork));
    PetscCall(MatGILUFactorScheduleDestroy(f));
    PetscCall(MatGILUFactorDeviceReset(f));
    if (f->nb != nb || !f->row) { /* the natural ordering (MatSolveTranspose() reads it) */
      PetscCall(ISDestroy(&f->row));
      PetscCall(ISDestroy(&f->col));
      PetscCall(ISCreateStride(PETSC_COMM_SELF, nb, 0, 1, &f->row));
      PetscCall(ISCreateStride(PETSC_COMM_SELF, nb, 0, 1, &f->col));
    }
    f->identity = PETSC_TRUE;
    f->nb       = nb;
    f->bs       = bs;
    PetscCall(PetscMalloc1(nb * bs, &f->work));
    PetscCall(PetscMalloc1(nb * bs2, &f->Ud));
    for (PetscInt i = 0; i < nb; i++) { /* entry Ui[i] + 1 + k goes to Ui[i] - i + k: left, after the rows before it */
      const PetscInt q0 = Ui[i] + 1, nz = Ui[i + 1] - q0, d0 = Ui[i] - i;

      PetscCall(PetscArraycpy(f->Ud + i * bs2, Ua + Ui[i] * bs2, bs2));
      PetscCall(PetscArraymove(Uj + d0, Uj + q0, nz));
      PetscCall(PetscArraymove(Ua + d0 * bs2, Ua + q0 * bs2, nz * bs2));
    }
    for (PetscInt i = 1; i <= nb; i++) Ui[i] -= i;
    f->Li       = Li;
    f->Lj       = Lj;
    f->La       = La;
    f->Ui       = Ui;
    f->Uj       = Uj;
    f->Ua       = Ua;
    f->taken    = PETSC_TRUE;
    f->pattern  = PETSC_TRUE;
    f->analyzed = PETSC_FALSE;
    f->patternid++;
  }
  *Lip = *Ljp = *Uip = *Ujp = NULL;
  *Lap = *Uap        = NULL;
  B->factorerrortype = MAT_FACTOR_NOERROR;
  for (PetscInt i = 0; i < nb; i++) { /* U's diagonal blocks inverted (the engine multiplies by them) */
    MatScalar *d    = f->Ud + i * bs2;
    PetscBool  zero = PETSC_FALSE;

    if (bs == 1) {
      zero = (PetscBool)(d[0] == 0.0);
      if (!zero) d[0] = 1.0 / d[0];
    } else GILUBlockInvertLINPACK(bs, d, 0.0, &zero); /* column-major: a row-major block read so is its transpose, whose inverse is the inverse's */
    if (zero && !B->factorerrortype) {
      B->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
      B->factorerror_zeropivot_row   = i;
      B->factorerror_zeropivot_value = 0.0;
    }
  }
  f->rangilu = PETSC_FALSE;
  f->given   = PETSC_TRUE;
  PetscCall(PetscStrncpy(f->why, maker, sizeof(f->why)));
  if (!B->factorerrortype) PetscCall(MatGILUFactorSetTri(B));
  PetscCall(MatGILUFactorSetSolveOps(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorSetDropped(Mat B, Mat A, PetscInt n, const PetscInt pos[])
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  PetscCheck(f->ftype == MAT_FACTOR_ILU && !f->F && !f->pattern, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatGILUFactorSetDropped() needs an ILU factor before its symbolic factorization");
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatGILUFactorSetDropped(): %" PetscInt_FMT " entries", n);
  for (PetscInt k = 1; k < n; k++) PetscCheck(pos[k] > pos[k - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGILUFactorSetDropped(): the positions must increase (position %" PetscInt_FMT ")", k);
  PetscCall(PetscFree(f->drop));
  f->ndrop = n;
  PetscCall(PetscMalloc1(n, &f->drop));
  PetscCall(PetscArraycpy(f->drop, pos, n));
  PetscCall(MatGetNonzeroState(A, &f->dropstate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUSetTriSolveType_GILU(Mat B, GILUTriSolveType type)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  f->type = type;
  if (f->L) PetscCall(GILUTriSetType(f->L, type));
  if (f->U) PetscCall(GILUTriSetType(f->U, type));
  PetscCall(GILUTriDestroy(&f->Lt)); /* built again with the new type at the next MatSolveTranspose() */
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGILUSetTriSolveType - Sets the triangular-solve algorithm of a factor of `MATSOLVERGILU`

  Logically Collective

  Input Parameters:
+ F    - the factor matrix (from `MatGetFactor()` or `PCFactorGetMatrix()`)
- type - `GILU_TRISOLVE_AUTO` (default: the Block SpTRSV paper's adaptive choice with host thresholds),
         `GILU_TRISOLVE_LEVELSET`, `GILU_TRISOLVE_SYNCFREE`, `GILU_TRISOLVE_COLBLOCK`, `GILU_TRISOLVE_ROWBLOCK`,
         `GILU_TRISOLVE_RECBLOCK`, `GILU_TRISOLVE_SEQUENTIAL` or `GILU_TRISOLVE_CHUNKED` (host only)

  Options Database Key:
. -mat_gilu_trisolve <auto,levelset,syncfree,colblock,rowblock,recblock,sequential,chunked> - the algorithm (read at the
  symbolic factorization: it overrides this call made before it)

  Level: intermediate

  Note:
  Called after the factorization, it applies from the next solve (the analysis of the factors is kept, the plan rebuilt).
  Every algorithm gives the same iterations; level-set, sync-free, chunked and sequential even the same bits.

.seealso: `MATSOLVERGILU`, `MatGILUSetTriSolveThreads()`, `PCFactorGetMatrix()`
@*/
PetscErrorCode MatGILUSetTriSolveType(Mat F, GILUTriSolveType type)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(F, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(F, type, 2);
  PetscTryMethod(F, "MatGILUSetTriSolveType_C", (Mat, GILUTriSolveType), (F, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUSetTriSolveThreads_GILU(Mat B, PetscInt nthreads)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatGILUSetTriSolveThreads() %" PetscInt_FMT ": must be at least 1", nthreads);
  PetscCall(GILUClampThreads(nthreads, &f->nthreads)); /* the rule of every component: at most GILUGetMaxThreads() */
  f->analyzed = PETSC_FALSE;                           /* the schedule of the numeric factorization is made for the threads */
  if (f->L) PetscCall(GILUTriSetThreads(f->L, nthreads));
  if (f->U) PetscCall(GILUTriSetThreads(f->U, nthreads));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGILUSetTriSolveThreads - Sets the host threads of the numeric factorization and the triangular solves of a factor
  of `MATSOLVERGILU`

  Logically Collective

  Input Parameters:
+ F        - the factor matrix (from `MatGetFactor()` or `PCFactorGetMatrix()`)
- nthreads - the threads (at least 1; default OMP_NUM_THREADS if set, else the cores divided among the MPI processes of
             the node; at most 4 per core and OpenMP's thread limit: a larger count is clamped)

  Options Database Key:
. -mat_gilu_trisolve_threads <n> - the threads (read at the symbolic factorization: it overrides this call made before it)

  Level: intermediate

  Note:
  The results do not depend on the number of threads. A machine that is busy may make one thread faster than several:
  the solves then measure both and run the faster, unless the threads were given with the option.

.seealso: `MATSOLVERGILU`, `MatGILUSetTriSolveType()`, `PCFactorGetMatrix()`
@*/
PetscErrorCode MatGILUSetTriSolveThreads(Mat F, PetscInt nthreads)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(F, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(F, nthreads, 2);
  PetscTryMethod(F, "MatGILUSetTriSolveThreads_C", (Mat, PetscInt), (F, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor() for MATSEQAIJ and MATSEQBAIJ, ILU and ICC, and MATSEQSBAIJ, ICC (registered in src/sys/gilu.c) */
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJ_GILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_GILUFactor *f;
  PetscBool       baij, sbaij;
  PetscInt        bs;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu provides ILU and ICC factorizations only: use -%spc_type ilu or icc", (A->factorprefix ? A->factorprefix : ""));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  PetscCheck(!sbaij || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "A MATSEQSBAIJ matrix has ICC and Cholesky factorizations only (as in PETSc): use -%spc_type icc", (A->factorprefix ? A->factorprefix : ""));
  PetscCall(MatGetBlockSize(A, &bs));
  if ((baij || sbaij) && bs > 8) { /* beyond the block sizes of the triangular-solve engine: PETSc's own factorization, which -ksp_view names */
    PetscCall(PetscInfo(A, "MatSolverType gilu covers block sizes 1 to 8, not %" PetscInt_FMT ": PETSc's %s factorization is used\n", bs, MatFactorTypes[ftype]));
    PetscCall(MatGetFactor(A, MATSOLVERPETSC, ftype, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscNew(&f));
  f->ftype = ftype;
  f->type  = GILU_TRISOLVE_AUTO;
  PetscCall(GILUGetNumThreads(&f->nthreads));
  PetscCall(GILUMatCreateFactor(A, ftype, MATSOLVERGILU, baij ? "seqbaijgilu" : sbaij ? "seqsbaijgilu" : "seqaijgilu", f, &B));
  B->ops->ilufactorsymbolic = MatILUFactorSymbolic_GILU;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_GILU;
  B->ops->getinfo           = MatGetInfo_GILU;
  B->ops->getdiagonal       = MatGetDiagonal_GILU;
  B->ops->view              = MatView_GILU;
  B->ops->destroy           = MatDestroy_GILU;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGILUSetTriSolveType_C", MatGILUSetTriSolveType_GILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGILUSetTriSolveThreads_C", MatGILUSetTriSolveThreads_GILU));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
