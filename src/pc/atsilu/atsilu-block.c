/*
   ATS-ILU(k) and ParILU with bs x bs blocks (SEQBAIJ): the fixed-pattern sweeps of atsilu-factor.c on block rows,
   whose converged factors are PETSc's block ILU(k) of a BAIJ matrix.

   Blocks are stored row-major. A row of L is solved as in the point case with block products and the inverted
   diagonal blocks of U: l_rj = (a_rj - sum_k l_rk u_kj) u_jj^{-1}. A column of U, u_ic = l_ii^{-1} (a_ic - sum_k
   l_ik u_kc), is the same formula transposed, u_ic^T = (a_ic^T - sum_k u_kc^T l_ik^T) l_ii^{-T}, so the one row
   routine serves both with the transposed blocks of U^T, L and A^T: the factors are kept in both forms (L and LT,
   UtP and UtT), the other form refreshed after each half-step.
*/
#include <petscmat.h>
#include <petscgilu/private/stencil.h>
#include "atsilu.h"
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

static PetscErrorCode BAlloc(ATSCSR *M, PetscInt n, PetscInt nz, PetscInt b2)
{
  PetscFunctionBegin;
  PetscCall(ATSCSRReset(M));
  PetscCall(PetscMalloc3(n + 1, &M->i, PetscMax(nz, 1), &M->j, PetscMax(nz * b2, 1), &M->a));
  M->n  = n;
  M->nz = M->nzalloc = nz;
  M->i[0]            = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T = the block transpose of X (structure transposed; each block transposed when tb) */
static PetscErrorCode BTranspose(const ATSCSR *X, ATSCSR *T, PetscInt bs, PetscBool tb)
{
  PetscInt n = X->n, b2 = bs * bs, *cnt;

  PetscFunctionBegin;
  PetscCall(BAlloc(T, n, X->i[n], b2));
  PetscCall(PetscCalloc1(n + 1, &cnt));
  for (PetscInt p = 0; p < X->i[n]; p++) cnt[X->j[p] + 1]++;
  for (PetscInt r = 0; r < n; r++) T->i[r + 1] = T->i[r] + cnt[r + 1];
  for (PetscInt r = 0; r < n; r++) cnt[r] = T->i[r];
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = X->i[r]; p < X->i[r + 1]; p++) {
      PetscInt q = cnt[X->j[p]]++;

      T->j[q] = r;
      for (PetscInt a = 0; a < bs; a++)
        for (PetscInt b = 0; b < bs; b++) T->a[q * b2 + a * bs + b] = tb ? X->a[p * b2 + b * bs + a] : X->a[p * b2 + a * bs + b];
    }
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y's values = X's blocks transposed (same structure) */
static void BTransposeValues(const ATSCSR *X, ATSCSR *Y, PetscInt bs, PetscInt nthreads)
{
  PetscInt nz = X->i[X->n], b2 = bs * bs;

  (void)nthreads;
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
  for (PetscInt p = 0; p < nz; p++)
    for (PetscInt a = 0; a < bs; a++)
      for (PetscInt b = 0; b < bs; b++) Y->a[p * b2 + a * bs + b] = X->a[p * b2 + b * bs + a];
}

/* c -= a b for bs x bs row-major blocks */
static inline void BMultSub(PetscInt bs, const PetscScalar *a, const PetscScalar *b, PetscScalar *c)
{
  for (PetscInt i = 0; i < bs; i++)
    for (PetscInt k = 0; k < bs; k++) {
      PetscScalar aik = a[i * bs + k];
      for (PetscInt j = 0; j < bs; j++) c[i * bs + j] -= aik * b[k * bs + j];
    }
}

/* c = a b */
static inline void BMult(PetscInt bs, const PetscScalar *a, const PetscScalar *b, PetscScalar *c)
{
  for (PetscInt i = 0; i < bs * bs; i++) c[i] = 0;
  for (PetscInt i = 0; i < bs; i++)
    for (PetscInt k = 0; k < bs; k++)
      for (PetscInt j = 0; j < bs; j++) c[i * bs + j] += a[i * bs + k] * b[k * bs + j];
}

/* the block of row r, column c of M, or NULL */
static inline const PetscScalar *BValue(const ATSCSR *M, PetscInt b2, PetscInt r, PetscInt c)
{
  PetscInt lo = M->i[r], hi = M->i[r + 1] - 1;

  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (M->j[mid] == c) return M->a + mid * b2;
    if (M->j[mid] < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

/* dinv[j] = inverse of the diagonal (last) block of row j of Y; returns the first singular row or -1 */
static PetscInt BInvertDiagonal(const ATSCSR *Y, PetscInt bs, PetscScalar *dinv, PetscInt nthreads)
{
  PetscInt n = Y->n, b2 = bs * bs, zr = n;

  (void)nthreads;
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static) reduction(min : zr)
#endif
  for (PetscInt j = 0; j < n; j++) {
    PetscInt d = Y->i[j + 1] - 1;

    if (d < Y->i[j] || Y->j[d] != j || !GILUBlockInvert(bs, Y->a + d * b2, dinv + j * b2, 0.0)) {
      if (j < zr) zr = j;
    }
  }
  return zr < n ? zr : -1;
}

/* the rows of X (block version of ATSFactorRowSweep): x_rj = (b_rj - sum_{k<j} x_rk y_jk) dinv_j;
   xold: see ATSFactorRowSweep */
static void BSolveRows(ATSCSR *X, const PetscScalar *xold, const ATSCSR *Y, const PetscScalar *dinv, const ATSCSR *B, PetscBool skipdiag, PetscInt bs, PetscInt nthreads)
{
  PetscInt n = X->n, b2 = bs * bs;

  (void)nthreads;
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
  for (PetscInt r = 0; r < n; r++) {
    const PetscScalar *xo = xold ? xold : X->a;
    PetscInt           pb = B->i[r], pbend = B->i[r + 1];
    PetscScalar        s[GILU_MAX_DOF * GILU_MAX_DOF];

    for (PetscInt p = X->i[r]; p < X->i[r + 1]; p++) {
      PetscInt j = X->j[p], q = X->i[r], t = Y->i[j], tend = Y->i[j + 1] - 1;

      if (skipdiag && j == r) continue;
      while (pb < pbend && B->j[pb] < j) pb++;
      if (pb < pbend && B->j[pb] == j) {
        for (PetscInt e = 0; e < b2; e++) s[e] = B->a[pb * b2 + e];
      } else {
        for (PetscInt e = 0; e < b2; e++) s[e] = 0;
      }
      while (q < p && t < tend) {
        PetscInt kq = X->j[q], kt = Y->j[t];

        if (kq == kt) {
          BMultSub(bs, xo + q * b2, Y->a + t * b2, s);
          q++;
          t++;
        } else if (kq < kt) q++;
        else t++;
      }
      BMult(bs, s, dinv + j * b2, X->a + p * b2);
    }
  }
}

PetscErrorCode ATSBlockFactorsReset(ATSBlockFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSCSRReset(&F->A));
  PetscCall(ATSCSRReset(&F->AtT));
  PetscCall(ATSCSRReset(&F->S));
  PetscCall(ATSCSRReset(&F->St));
  PetscCall(ATSCSRReset(&F->L));
  PetscCall(ATSCSRReset(&F->LT));
  PetscCall(ATSCSRReset(&F->UtP));
  PetscCall(ATSCSRReset(&F->UtT));
  PetscCall(PetscFree2(F->dinv, F->scale));
  PetscCall(PetscFree2(F->xold, F->uold));
  PetscCall(PetscFree(F->rwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSBlockFactorsCreate(Mat A, PCATSILUPattern pattern, PetscInt levels, PetscBool scaling, PetscInt nthreads, PCATSILUInitialGuess guess, ATSBlockFactors *F)
{
  PetscInt        n, bs, b2, *cols, nc;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(ATSBlockFactorsReset(F));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(bs <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCATSILU block factors need a block size of at most %d, not %" PetscInt_FMT ": use -mat_type aij", GILU_MAX_DOF, bs);
  b2          = bs * bs;
  F->bs       = bs;
  F->nthreads = nthreads;
  F->zerorow  = -1;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &n, &ai, &aj, &done)); /* PETSC_TRUE: block rows */
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCATSILU could not read the block rows of the matrix");
  F->n = n;
  PetscCall(BAlloc(&F->A, n, ai[n], b2));
  PetscCall(PetscArraycpy(F->A.i, ai, n + 1));
  PetscCall(PetscArraycpy(F->A.j, aj, ai[n]));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &n, &ai, &aj, &done));
  n = F->n;
  PetscCall(MatSeqBAIJGetArray(A, &aa)); /* column-major blocks */
  for (PetscInt p = 0; p < F->A.i[n]; p++)
    for (PetscInt a = 0; a < bs; a++)
      for (PetscInt b = 0; b < bs; b++) F->A.a[p * b2 + a * bs + b] = aa[p * b2 + b * bs + a];
  PetscCall(MatSeqBAIJRestoreArray(A, &aa));
  PetscCall(PetscMalloc2(n * b2, &F->dinv, n * bs, &F->scale));
  PetscCall(PetscMalloc1(n + 1, &F->rwork));
  for (PetscInt e = 0; e < n * bs; e++) F->scale[e] = 1;
  if (scaling) {
    for (PetscInt r = 0; r < n; r++) {
      const PetscScalar *d = BValue(&F->A, b2, r, r);

      for (PetscInt a = 0; a < bs; a++) {
        PetscReal v = d ? PetscAbsScalar(d[a * bs + a]) : 0;

        F->scale[r * bs + a] = v > 0 ? 1 / PetscSqrtReal(v) : 1; /* a zero diagonal entry: the block may still be invertible */
      }
    }
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = F->A.i[r]; p < F->A.i[r + 1]; p++)
        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt b = 0; b < bs; b++) F->A.a[p * b2 + a * bs + b] *= F->scale[r * bs + a] * F->scale[F->A.j[p] * bs + b];
  }
  PetscCall(BTranspose(&F->A, &F->AtT, bs, PETSC_TRUE));
  PetscCall(ATSStartingPattern(&F->A, pattern, levels, &F->S));
  PetscCall(ATSCSRTranspose(&F->S, &F->St));
  /* L on the lower part of S, U^T on the upper part of S (as rows of S^T) */
  PetscCall(BAlloc(&F->L, n, (F->S.i[n] + n) / 2 + 1, b2));
  PetscCall(BAlloc(&F->UtP, n, (F->S.i[n] + n) / 2 + 1, b2));
  PetscCall(PetscMalloc1(n + 1, &cols));
  F->L.i[0] = F->UtP.i[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    nc = F->L.i[r];
    for (PetscInt p = F->S.i[r]; p < F->S.i[r + 1] && F->S.j[p] <= r; p++) F->L.j[nc++] = F->S.j[p];
    F->L.i[r + 1] = nc;
    nc            = F->UtP.i[r];
    for (PetscInt p = F->St.i[r]; p < F->St.i[r + 1] && F->St.j[p] <= r; p++) F->UtP.j[nc++] = F->St.j[p];
    F->UtP.i[r + 1] = nc;
  }
  PetscCall(PetscFree(cols));
  /* the starting factors: U = triu(A) (or its diagonal), L = tril(A) with l_rj = a_rj a_jj^{-1} (or I) */
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = F->UtP.i[r]; p < F->UtP.i[r + 1]; p++) {
      PetscInt           i = F->UtP.j[p]; /* u_ir */
      const PetscScalar *v = (guess == PC_ATSILU_INITIAL_GUESS_TRIU || i == r) ? BValue(&F->A, b2, i, r) : NULL;

      for (PetscInt e = 0; e < b2; e++) F->UtP.a[p * b2 + e] = v ? v[e] : 0;
    }
  }
  { /* a singular diagonal block A_rr is no singular pivot of block ILU: D_r = A_rr - sum_{k<r} A_rk D_k^{-1} A_kr starts
       from the starting values instead (in row order: D_k^{-1} is final for k < r), as the scalar factors do; only a
       block that stays singular is a zero pivot */
    PetscInt     z = BInvertDiagonal(&F->UtP, bs, F->dinv, 1);
    PetscScalar *t;

    PetscCall(PetscMalloc1(b2, &t));
    for (PetscInt r = z; z >= 0 && r < n && F->zerorow < 0; r++) {
      const PetscInt d = F->UtP.i[r + 1] - 1;
      PetscScalar   *D = F->UtP.a + d * b2;

      if (d < F->UtP.i[r] || F->UtP.j[d] != r) F->zerorow = r; /* no diagonal block */
      else if (!GILUBlockInvert(bs, D, F->dinv + r * b2, 0.0)) {
        for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1]; p++) {
          const PetscInt     k   = F->L.j[p];
          const PetscScalar *ark = BValue(&F->A, b2, r, k), *akr = k < r ? BValue(&F->A, b2, k, r) : NULL;

          if (!ark || !akr) continue;
          BMult(bs, ark, F->dinv + k * b2, t);
          BMultSub(bs, t, akr, D);
        }
        if (!GILUBlockInvert(bs, D, F->dinv + r * b2, 0.0)) F->zerorow = r;
      }
    }
    PetscCall(PetscFree(t));
  }
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1]; p++) {
      PetscInt           j = F->L.j[p];
      const PetscScalar *v = BValue(&F->A, b2, r, j);

      for (PetscInt e = 0; e < b2; e++) F->L.a[p * b2 + e] = 0;
      if (j == r)
        for (PetscInt a = 0; a < bs; a++) F->L.a[p * b2 + a * bs + a] = 1;
      else if (guess == PC_ATSILU_INITIAL_GUESS_TRIU && v && F->zerorow < 0) BMult(bs, v, F->dinv + j * b2, F->L.a + p * b2);
    }
  }
  PetscCall(ATSCSRReset(&F->LT));
  PetscCall(BAlloc(&F->LT, n, F->L.i[n], b2));
  PetscCall(PetscArraycpy(F->LT.i, F->L.i, n + 1));
  PetscCall(PetscArraycpy(F->LT.j, F->L.j, F->L.i[n]));
  BTransposeValues(&F->L, &F->LT, bs, 1);
  PetscCall(BAlloc(&F->UtT, n, F->UtP.i[n], b2));
  PetscCall(PetscArraycpy(F->UtT.i, F->UtP.i, n + 1));
  PetscCall(PetscArraycpy(F->UtT.j, F->UtP.j, F->UtP.i[n]));
  BTransposeValues(&F->UtP, &F->UtT, bs, 1);
  PetscCall(PetscMalloc2(PetscMax(F->L.i[n] * b2, 1), &F->xold, PetscMax(F->UtP.i[n] * b2, 1), &F->uold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void NoteZero(ATSBlockFactors *F, PetscInt zr)
{
  if (zr >= 0 && F->zerorow < 0) F->zerorow = zr;
}

/* one ATS-ILU (or, parilu, ParILU Jacobi-order) sweep on the fixed block pattern */
PetscErrorCode ATSBlockFactorsSweep(ATSBlockFactors *F, PetscBool parilu)
{
  PetscInt bs = F->bs, b2 = bs * bs, nt = F->nthreads;

  PetscFunctionBegin;
  if (parilu) {
    PetscCall(PetscArraycpy(F->xold, F->L.a, F->L.i[F->n] * b2));
    PetscCall(PetscArraycpy(F->uold, F->UtT.a, F->UtT.i[F->n] * b2));
  }
  NoteZero(F, BInvertDiagonal(&F->UtP, bs, F->dinv, nt));
  if (F->zerorow >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  BSolveRows(&F->L, parilu ? F->xold : NULL, &F->UtP, F->dinv, &F->A, parilu, bs, nt);
  if (F->usenew && !parilu) BTransposeValues(&F->L, &F->LT, bs, nt); /* else LT keeps the previous L for the U half-step */
  NoteZero(F, BInvertDiagonal(&F->LT, bs, F->dinv, nt));
  if (F->zerorow >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  BSolveRows(&F->UtT, parilu ? F->uold : NULL, &F->LT, F->dinv, &F->AtT, PETSC_FALSE, bs, nt);
  if (!F->usenew || parilu) BTransposeValues(&F->L, &F->LT, bs, nt);
  BTransposeValues(&F->UtT, &F->UtP, bs, nt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one U half-step from the current L (the consistent pair after sweeps without USE_NEW) */
PetscErrorCode ATSBlockFactorsFinishU(ATSBlockFactors *F)
{
  PetscInt bs = F->bs, nt = F->nthreads;

  PetscFunctionBegin;
  NoteZero(F, BInvertDiagonal(&F->LT, bs, F->dinv, nt));
  if (F->zerorow >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  BSolveRows(&F->UtT, NULL, &F->LT, F->dinv, &F->AtT, PETSC_FALSE, bs, nt);
  BTransposeValues(&F->UtT, &F->UtP, bs, nt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||A - LU||_F / ||A||_F on the pattern of the factors (rows summed in order) */
PetscErrorCode ATSBlockFactorsResidual(ATSBlockFactors *F, PetscReal *res)
{
  PetscInt   n = F->n, bs = F->bs, b2 = bs * bs;
  PetscReal *rw = F->rwork, sum = 0, anorm = 0;

  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(F->nthreads) schedule(static)
#endif
  for (PetscInt r = 0; r < n; r++) {
    PetscReal   s = 0;
    PetscScalar e[GILU_MAX_DOF * GILU_MAX_DOF];

    for (PetscInt pass = 0; pass < 2; pass++) {
      const ATSCSR *X = pass ? &F->UtP : &F->L;

      for (PetscInt p = X->i[r]; p < X->i[r + 1] - pass; p++) {
        PetscInt           i = pass ? X->j[p] : r, j = pass ? r : X->j[p]; /* entry (i, j) */
        const PetscScalar *a = BValue(&F->A, b2, i, j);
        PetscInt           q = F->L.i[i], qend = F->L.i[i + 1], t = F->UtP.i[j], tend = F->UtP.i[j + 1];

        for (PetscInt c = 0; c < b2; c++) e[c] = a ? a[c] : 0;
        while (q < qend && t < tend) {
          if (F->L.j[q] == F->UtP.j[t]) BMultSub(bs, F->L.a + q++ * b2, F->UtP.a + t++ * b2, e);
          else if (F->L.j[q] < F->UtP.j[t]) q++;
          else t++;
        }
        for (PetscInt c = 0; c < b2; c++) s += PetscRealPart(e[c] * PetscConj(e[c]));
      }
    }
    rw[r] = s;
  }
  for (PetscInt r = 0; r < n; r++) sum += rw[r];
  for (PetscInt p = 0; p < F->A.i[n] * b2; p++) anorm += PetscRealPart(F->A.a[p] * PetscConj(F->A.a[p]));
  *res = anorm > 0 ? PetscSqrtReal(sum / anorm) : PetscSqrtReal(sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The factors of the unscaled matrix for the block triangular solves: L' strictly lower BSR (unit diagonal blocks)
  and U' upper BSR with its diagonal blocks first, L'U' = S^{-1} L U S^{-1}: with D_r the diagonal block of
  S^{-1} L, l'_rj = (S^{-1} L)_rj D_j^{-1} and u'_rj = D_r (U S^{-1})_rj. Returns the first singular D_r or -1.
*/
PetscErrorCode ATSBlockFactorsExport(ATSBlockFactors *F, ATSCSR *Lx, ATSCSR *Ux, PetscInt *zerorow)
{
  PetscInt         n = F->n, bs = F->bs, b2 = bs * bs, q = 0;
  const PetscReal *s = F->scale;
  PetscScalar     *d, tmp[GILU_MAX_DOF * GILU_MAX_DOF], lt[GILU_MAX_DOF * GILU_MAX_DOF];

  PetscFunctionBegin;
  *zerorow = -1;
  PetscCall(PetscMalloc1(n * b2, &d)); /* D_r and then D_r^{-1} in F->dinv */
  for (PetscInt r = 0; r < n; r++) {
    const PetscScalar *l = F->L.a + (F->L.i[r + 1] - 1) * b2;

    for (PetscInt a = 0; a < bs; a++)
      for (PetscInt b = 0; b < bs; b++) d[r * b2 + a * bs + b] = l[a * bs + b] / s[r * bs + a];
    if (!GILUBlockInvert(bs, d + r * b2, F->dinv + r * b2, 0.0) && *zerorow < 0) *zerorow = r;
  }
  if (*zerorow < 0) {
    PetscCall(BAlloc(Lx, n, F->L.i[n] - n, b2));
    for (PetscInt r = 0; r < n; r++) {
      for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1] - 1; p++) {
        PetscInt j = F->L.j[p];

        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt b = 0; b < bs; b++) lt[a * bs + b] = F->L.a[p * b2 + a * bs + b] / s[r * bs + a];
        Lx->j[q] = j;
        BMult(bs, lt, F->dinv + j * b2, Lx->a + q * b2);
        q++;
      }
      Lx->i[r + 1] = q;
    }
    PetscCall(BTranspose(&F->UtP, Ux, bs, PETSC_FALSE));
    for (PetscInt r = 0; r < n; r++) {
      for (PetscInt p = Ux->i[r]; p < Ux->i[r + 1]; p++) {
        PetscInt j = Ux->j[p];

        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt b = 0; b < bs; b++) tmp[a * bs + b] = Ux->a[p * b2 + a * bs + b] / s[j * bs + b];
        BMult(bs, d + r * b2, tmp, Ux->a + p * b2);
      }
    }
  }
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}
