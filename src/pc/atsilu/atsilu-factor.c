/*
   ATS-ILU(k) and ATS-ILUT sweeps (the ATS-ILU paper, Algorithms 5, 6 and 7) on the host, and what they share with
   ParILU/ParILUT (parilu.c): the starting patterns, the residual A - LU, pattern expansion and thresholding.

   Determinism: a row of L depends only on U (and A), a column of U only on L (and A^T); each is computed by
   one thread, the rows of one half-step in any order. Sums over rows (residual norms) are formed per row and
   added in row order. The factors are therefore bitwise the same for any number of threads.
*/
#include <petscmat.h>
#include <petscgilu/private/levels.h>
#include "atsilu-kernels.h"
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

PetscErrorCode ATSCSRReset(ATSCSR *M)
{
  PetscFunctionBegin;
  if (M->borrowed) {
    M->i = M->j = NULL;
    M->a        = NULL;
  } else PetscCall(PetscFree3(M->i, M->j, M->a));
  M->n = M->nz = M->nzalloc = 0;
  M->scale                  = NULL;
  M->borrowed               = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* allocate n rows and room for nz entries (values kept only when keep) */
static PetscErrorCode ATSCSRAlloc(ATSCSR *M, PetscInt n, PetscInt nz)
{
  PetscFunctionBegin;
  if (!M->i || M->n != n || M->nzalloc < nz) {
    PetscCall(ATSCSRReset(M));
    PetscCall(PetscMalloc3(n + 1, &M->i, PetscMax(nz, 1), &M->j, PetscMax(nz, 1), &M->a));
    M->nzalloc = PetscMax(nz, 1);
  }
  M->n    = n;
  M->nz   = nz;
  M->i[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSCSRCopy(const ATSCSR *X, ATSCSR *Y)
{
  PetscFunctionBegin;
  PetscCall(ATSCSRAlloc(Y, X->n, X->i[X->n]));
  PetscCall(PetscArraycpy(Y->i, X->i, X->n + 1));
  PetscCall(PetscArraycpy(Y->j, X->j, X->i[X->n]));
  PetscCall(PetscArraycpy(Y->a, X->a, X->i[X->n]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSCSRTranspose(const ATSCSR *X, ATSCSR *T)
{
  PetscInt n = X->n, *cnt;

  PetscFunctionBegin;
  PetscCall(ATSCSRAlloc(T, n, X->i[n]));
  PetscCall(PetscCalloc1(n + 1, &cnt));
  for (PetscInt p = 0; p < X->i[n]; p++) cnt[X->j[p] + 1]++;
  T->i[0] = 0;
  for (PetscInt r = 0; r < n; r++) T->i[r + 1] = T->i[r] + cnt[r + 1];
  for (PetscInt r = 0; r < n; r++) cnt[r] = T->i[r];
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = X->i[r]; p < X->i[r + 1]; p++) {
      PetscInt q = cnt[X->j[p]]++;
      T->j[q]    = r;
      T->a[q]    = ATSCSREntry(X, r, p); /* X's scaling applied: T is read as it is */
    }
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* give the user's matrix its arrays back (A borrowed them) */
static PetscErrorCode ATSFactorsReleaseMatrix(ATSFactors *F)
{
  PetscFunctionBegin;
  if (F->mat) {
    const PetscInt    *ai = F->A.i, *aj = F->A.j;
    const PetscScalar *aa = F->A.a;
    PetscInt           n;
    PetscBool          done;

    PetscCall(MatSeqAIJRestoreArrayRead(F->mat, &aa));
    PetscCall(MatRestoreRowIJ(F->mat, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCall(MatDestroy(&F->mat));
  }
  PetscCall(ATSCSRReset(&F->A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* everything but the factors L, U^T and the scaling (what ATSFactorsExport() reads): the matrix given back, A^T,
   the patterns, the ILUT work */
PetscErrorCode ATSFactorsReleaseWork(ATSFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSFactorsReleaseMatrix(F));
  PetscCall(ATSCSRReset(&F->At));
  PetscCall(PetscFree(F->atvalues));
  PetscCall(ATSCSRReset(&F->S));
  PetscCall(ATSCSRReset(&F->St));
  PetscCall(ATSCSRReset(&F->Lold));
  PetscCall(ATSCSRReset(&F->R));
  PetscCall(ATSCSRReset(&F->Rt));
  PetscCall(ATSCSRReset(&F->U));
  PetscCall(PetscFree(F->iwork));
  PetscCall(PetscFree(F->rwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSFactorsReset(ATSFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSFactorsReleaseWork(F));
  PetscCall(ATSCSRReset(&F->L));
  PetscCall(ATSCSRReset(&F->Ut));
  PetscCall(PetscFree(F->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* append one row (cols sorted) to a CSR under construction, growing its arrays */
static PetscErrorCode ATSCSRAppendRow(ATSCSR *M, PetscInt r, PetscInt nc, const PetscInt cols[])
{
  PetscFunctionBegin;
  if (M->i[r] + nc > M->nzalloc) {
    PetscInt     nzalloc = PetscMax(2 * M->nzalloc, M->i[r] + nc), *i2, *j2;
    PetscScalar *a2;

    PetscCall(PetscMalloc3(M->n + 1, &i2, nzalloc, &j2, nzalloc, &a2));
    PetscCall(PetscArraycpy(i2, M->i, r + 1));
    PetscCall(PetscArraycpy(j2, M->j, M->i[r]));
    PetscCall(PetscArraycpy(a2, M->a, M->i[r]));
    PetscCall(PetscFree3(M->i, M->j, M->a));
    M->i       = i2;
    M->j       = j2;
    M->a       = a2;
    M->nzalloc = nzalloc;
  }
  PetscCall(PetscArraycpy(M->j + M->i[r], cols, nc));
  for (PetscInt p = 0; p < nc; p++) M->a[M->i[r] + p] = 0;
  M->i[r + 1] = M->i[r] + nc;
  M->nz       = M->i[r + 1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symbolic product pattern C = X * P (rows of P unioned over the columns of each row of X) */
static PetscErrorCode ATSPatternMult(const ATSCSR *X, const ATSCSR *P, ATSCSR *C)
{
  PetscInt n = X->n, *mark, *cols, nc;

  PetscFunctionBegin;
  PetscCall(ATSCSRAlloc(C, n, X->i[n] * 2));
  PetscCall(PetscMalloc2(n, &mark, n, &cols));
  for (PetscInt c = 0; c < n; c++) mark[c] = -1;
  for (PetscInt r = 0; r < n; r++) {
    nc = 0;
    for (PetscInt p = X->i[r]; p < X->i[r + 1]; p++) {
      PetscInt k = X->j[p];
      for (PetscInt q = P->i[k]; q < P->i[k + 1]; q++) {
        if (mark[P->j[q]] != r) {
          mark[P->j[q]] = r;
          cols[nc++]    = P->j[q];
        }
      }
    }
    PetscCall(PetscSortInt(nc, cols));
    PetscCall(ATSCSRAppendRow(C, r, nc, cols));
  }
  PetscCall(PetscFree2(mark, cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ILU(k) symbolic pattern by levels of fill (the pattern of PETSc's -pc_factor_levels k, natural ordering; P's rows
   sorted, with their diagonals), from private/levels.h; S allocated as before (room for P times levels + 1) */
static PetscErrorCode ATSPatternLevels(const ATSCSR *P, PetscInt levels, ATSCSR *S)
{
  PetscInt n = P->n, *fi, *fj;

  PetscFunctionBegin;
  PetscCall(GILUSymbolicILUk(n, P->i, P->j, levels, &fi, &fj));
  PetscCall(ATSCSRAlloc(S, n, P->i[n] * (levels + 1)));
  for (PetscInt r = 0; r < n; r++) PetscCall(ATSCSRAppendRow(S, r, fi[r + 1] - fi[r], fj + fi[r]));
  PetscCall(PetscFree(fi));
  PetscCall(PetscFree(fj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the starting pattern S of the (block) pattern of Apat: A plus the diagonal, to the power levels + 1, or its
   symbolic ILU(levels) pattern, or the diagonal */
PetscErrorCode ATSStartingPattern(const ATSCSR *Apat, PCATSILUPattern pattern, PetscInt levels, ATSCSR *S)
{
  PetscInt n = Apat->n, *cols;
  ATSCSR   P = {0}, T = {0};

  PetscFunctionBegin;
  /* P = pattern of A plus the diagonal */
  PetscCall(ATSCSRAlloc(&P, n, Apat->i[n] + n));
  PetscCall(PetscMalloc1(n + 1, &cols));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt nc = 0, hasdiag = 0;

    for (PetscInt p = Apat->i[r]; p < Apat->i[r + 1]; p++) {
      if (Apat->j[p] == r) hasdiag = 1;
      if (!hasdiag && Apat->j[p] > r) {
        cols[nc++] = r;
        hasdiag    = 1;
      }
      cols[nc++] = Apat->j[p];
    }
    if (!hasdiag) cols[nc++] = r;
    if (pattern == PC_ATSILU_PATTERN_DIAGONAL) {
      nc      = 1;
      cols[0] = r;
    }
    PetscCall(ATSCSRAppendRow(&P, r, nc, cols));
  }
  PetscCall(PetscFree(cols));
  if (pattern == PC_ATSILU_PATTERN_SYMBOLIC && levels > 0) PetscCall(ATSPatternLevels(&P, levels, S));
  else {
    PetscCall(ATSCSRCopy(&P, S));
    if (pattern == PC_ATSILU_PATTERN_POWER) {
      for (PetscInt k = 0; k < levels; k++) {
        PetscCall(ATSPatternMult(S, &P, &T));
        PetscCall(ATSCSRCopy(&T, S));
      }
    }
  }
  PetscCall(ATSCSRReset(&P));
  PetscCall(ATSCSRReset(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSFactorsCreate(Mat A, PCATSILUPattern pattern, PetscInt levels, PetscBool scaling, PetscInt nthreads, PetscBool keeppattern, ATSFactors *F)
{
  PetscInt           n;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(ATSFactorsReset(F));
  F->nthreads = nthreads;
  F->zerorow  = -1;
  /* A is the user's matrix itself, read in place (no copy; the scaling is applied where an entry is read) until
     ATSFactorsReleaseMatrix() */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCATSILU could not read the rows of the matrix");
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(PetscObjectReference((PetscObject)A));
  F->mat        = A;
  F->n          = n;
  F->A.n        = n;
  F->A.nz       = ai[n];
  F->A.nzalloc  = ai[n];
  F->A.i        = (PetscInt *)ai; /* never written */
  F->A.j        = (PetscInt *)aj;
  F->A.a        = (PetscScalar *)aa;
  F->A.borrowed = PETSC_TRUE;
  if (keeppattern) PetscCall(PetscMalloc1(n + 1, &F->iwork)); /* ilut's counts */
  PetscCall(PetscMalloc1(PetscMin(n, ATS_RESIDUAL_CHUNK) + 1, &F->rwork));
  if (scaling) {
    PetscCall(PetscMalloc1(n, &F->scale));
    for (PetscInt r = 0; r < n; r++) {
      PetscReal d = 0;

      for (PetscInt p = F->A.i[r]; p < F->A.i[r + 1]; p++)
        if (F->A.j[p] == r) d = PetscAbsScalar(F->A.a[p]);
      F->scale[r] = d > 0 ? 1 / PetscSqrtReal(d) : 1; /* a zero diagonal entry is not a zero pivot of ILU (ATSFactorsInitialGuess()) */
    }
    F->A.scale = F->scale;
  }
  F->anorm = 0;
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = F->A.i[r]; p < F->A.i[r + 1]; p++) {
      PetscScalar v = ATSCSREntry(&F->A, r, p);

      F->anorm += PetscRealPart(v * PetscConj(v));
    }
  }
  /* ilut reads all of A^T (the U half-steps' right-hand sides on a changing pattern); the fixed pattern only its entries
     on U^T's pattern, which ATSFactorsInitialGuess() stores beside U^T */
  if (keeppattern) PetscCall(ATSCSRTranspose(&F->A, &F->At));
  if (!keeppattern && levels == 0 && pattern != PC_ATSILU_PATTERN_DIAGONAL) { /* S would be A's pattern (with its diagonal) */
    PetscBool diag = PETSC_TRUE;

    for (PetscInt r = 0; r < n && diag; r++) {
      PetscInt p = F->A.i[r];

      while (p < F->A.i[r + 1] && F->A.j[p] < r) p++;
      diag = (PetscBool)(p < F->A.i[r + 1] && F->A.j[p] == r);
    }
    if (diag) {
      F->nnzS = F->A.i[n];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(ATSStartingPattern(&F->A, pattern, levels, &F->S));
  PetscCall(ATSCSRTranspose(&F->S, &F->St));
  F->nnzS = F->S.i[n];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern of U^T when S is A's pattern: row r holds the rows i <= r with an entry a_ir (ascending) */
static PetscErrorCode ATSUpperTransposePattern(const ATSCSR *A, ATSCSR *Ut)
{
  PetscInt n = A->n, nz = 0, *next;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = A->i[r]; p < A->i[r + 1]; p++)
      if (A->j[p] >= r) nz++;
  PetscCall(ATSCSRAlloc(Ut, n, nz));
  PetscCall(PetscCalloc1(n + 1, &next));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = A->i[r]; p < A->i[r + 1]; p++)
      if (A->j[p] >= r) next[A->j[p] + 1]++;
  Ut->i[0] = 0;
  for (PetscInt r = 0; r < n; r++) Ut->i[r + 1] = Ut->i[r] + next[r + 1];
  for (PetscInt r = 0; r < n; r++) next[r] = Ut->i[r];
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = A->i[r]; p < A->i[r + 1]; p++)
      if (A->j[p] >= r) Ut->j[next[A->j[p]]++] = r;
  PetscCall(PetscFree(next));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The starting factors on the lower (L) and upper (U^T) parts of S: triu = U the upper triangle of A and L the
  lower triangle of A scaled to a unit diagonal (l_ij = a_ij / a_jj), diagonal = U the diagonal of A, L = I.
  A zero diagonal entry a_rr is no zero pivot of ILU: u_rr = a_rr - sum_{k<r} l_rk u_kr. It starts at that sum over
  the starting values (l_rk = a_rk / a_kk, u_kr = a_kr), which the sweeps then correct, so they can reach a nonzero
  pivot instead of dividing by the 0 they started from; only a pivot that stays 0 is one (ATSFactorsExport()).
*/
PetscErrorCode ATSFactorsInitialGuess(ATSFactors *F, PCATSILUInitialGuess guess)
{
  PetscInt      n = F->n, *cols, nc;
  const ATSCSR *S = F->S.i ? &F->S : &F->A; /* S not stored: A's pattern */

  PetscFunctionBegin;
  PetscCall(ATSCSRAlloc(&F->L, n, (F->nnzS + n) / 2 + 1));
  if (F->St.i) PetscCall(ATSCSRAlloc(&F->Ut, n, (F->nnzS + n) / 2 + 1));
  PetscCall(PetscMalloc1(n + 1, &cols));
  for (PetscInt r = 0; r < n; r++) {
    nc = 0;
    for (PetscInt p = S->i[r]; p < S->i[r + 1] && S->j[p] <= r; p++) cols[nc++] = S->j[p];
    PetscCall(ATSCSRAppendRow(&F->L, r, nc, cols));
    if (F->St.i) {
      nc = 0;
      for (PetscInt p = F->St.i[r]; p < F->St.i[r + 1] && F->St.j[p] <= r; p++) cols[nc++] = F->St.j[p];
      PetscCall(ATSCSRAppendRow(&F->Ut, r, nc, cols));
    }
  }
  PetscCall(PetscFree(cols));
  if (!F->St.i) PetscCall(ATSUpperTransposePattern(&F->A, &F->Ut));
  if (!F->At.i) { /* the fixed pattern: A^T's entries on U^T's pattern (0 where A has none), sharing U^T's i and j */
    PetscCall(PetscMalloc1(PetscMax(F->Ut.i[n], 1), &F->atvalues));
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = F->Ut.i[r]; p < F->Ut.i[r + 1]; p++) F->atvalues[p] = ATSCSRValue(&F->A, F->Ut.j[p], r);
    F->At.n        = n;
    F->At.nz       = F->Ut.i[n];
    F->At.nzalloc  = F->Ut.i[n];
    F->At.i        = F->Ut.i;
    F->At.j        = F->Ut.j;
    F->At.a        = F->atvalues;
    F->At.borrowed = PETSC_TRUE;
  }
  for (PetscInt r = 0; r < n; r++) {
    PetscScalar d = ATSCSRValue(&F->A, r, r);

    if (d == 0) /* the first step of u_rr = a_rr - sum_{k<r} l_rk u_kr from the starting values */
      for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1]; p++) {
        PetscInt    k   = F->L.j[p];
        PetscScalar akk = ATSCSRValue(&F->A, k, k);

        if (k < r && akk != 0) d -= ATSCSRValue(&F->A, r, k) / akk * ATSCSRValue(&F->At, r, k);
      }
    for (PetscInt p = F->Ut.i[r]; p < F->Ut.i[r + 1]; p++) {
      PetscInt i = F->Ut.j[p]; /* entry u_{i r} */
      F->Ut.a[p] = i == r ? d : (guess == PC_ATSILU_INITIAL_GUESS_TRIU ? ATSCSRValue(&F->At, r, i) : 0);
    }
    for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1]; p++) {
      PetscInt    j = F->L.j[p];
      PetscScalar djj;

      if (j == r) F->L.a[p] = 1;
      else if (guess == PC_ATSILU_INITIAL_GUESS_DIAGONAL) F->L.a[p] = 0;
      else {
        /* l_rj = a_rj / u_jj with u_jj as started above (row j < r is done; U^T's rows end with their diagonal) */
        const PetscInt t = F->Ut.i[j + 1] - 1;

        djj       = t >= F->Ut.i[j] && F->Ut.j[t] == j ? F->Ut.a[t] : 0;
        F->L.a[p] = djj != 0 ? ATSCSRValue(&F->A, r, j) / djj : 0;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* all rows of X: returns the first row whose pivot was zero (the pivot's row, not the row being solved), or -1 */
PetscInt ATSSolveRows(ATSCSR *X, const PetscScalar *xold, PetscScalar *xnew, const ATSCSR *Y, const ATSCSR *B, const ATSCSR *Rrhs, const ATSCSR *Rlhs, PetscBool skipdiag, PetscInt nthreads)
{
  PetscInt n = X->n, zr = n;

#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static) reduction(min : zr)
#endif
  for (PetscInt r = 0; r < n; r++) {
    PetscInt z = ATSFactorRowSweep(r, X->i, X->j, xold ? xold : xnew, xnew, Y, B, Rrhs, Rlhs, skipdiag);

    if (z && z - 1 < zr) zr = z - 1;
  }
  (void)nthreads;
  return zr < n ? zr : -1;
}

static void NoteZero(ATSFactors *F, PetscInt zr)
{
  if (zr >= 0 && F->zerorow < 0) F->zerorow = zr;
}

PetscErrorCode ATSFactorsSweep(ATSFactors *F)
{
  PetscFunctionBegin;
  if (!F->usenew) PetscCall(ATSCSRCopy(&F->L, &F->Lold));
  NoteZero(F, ATSSolveRows(&F->L, NULL, F->L.a, &F->Ut, &F->A, NULL, NULL, PETSC_FALSE, F->nthreads));
  NoteZero(F, ATSSolveRows(&F->Ut, NULL, F->Ut.a, F->usenew ? &F->L : &F->Lold, &F->At, NULL, NULL, PETSC_FALSE, F->nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSFactorsResidual(ATSFactors *F, PetscReal *res)
{
  PetscInt   n  = F->n;
  PetscReal *rw = F->rwork, sum = 0, anorm = F->anorm;

  PetscFunctionBegin;
  /* rows in chunks (rwork holds one): the rows of a chunk in parallel, their sums added in row order */
  for (PetscInt r0 = 0; r0 < n; r0 += ATS_RESIDUAL_CHUNK) {
    PetscInt r1 = PetscMin(n, r0 + ATS_RESIDUAL_CHUNK);

#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(F->nthreads) schedule(static)
#endif
    for (PetscInt r = r0; r < r1; r++) rw[r - r0] = ResidualRow(r, &F->A, &F->At, &F->L, &F->Ut);
    for (PetscInt r = r0; r < r1; r++) sum += rw[r - r0];
  }
  *res = anorm > 0 ? PetscSqrtReal(sum / anorm) : PetscSqrtReal(sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ascending sort of a short integer list (Shell sort; no PETSc call, so it can run inside parallel regions) */
static void ATSSortInt(PetscInt n, PetscInt *a)
{
  static const PetscInt gaps[] = {57, 23, 10, 4, 1};

  for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
    PetscInt h = gaps[g];

    for (PetscInt i = h; i < n; i++) {
      PetscInt v = a[i], k = i;

      for (; k >= h && a[k - h] > v; k -= h) a[k] = a[k - h];
      a[k] = v;
    }
  }
}

/* row r of R = A - LU (columns sorted, exact zeros dropped) into outj/outa when given; returns its length.
   mark (all < 0 or < r on entry), cols and acc are the calling thread's n-long work arrays. */
static PetscInt ResidualMatrixRow(const ATSFactors *F, PetscInt r, PetscInt lo, PetscInt hi, PetscInt *mark, PetscInt *cols, PetscScalar *acc, PetscInt *outj, PetscScalar *outa)
{
  PetscInt nc = 0, m = 0;

  for (PetscInt p = F->A.i[r]; p < F->A.i[r + 1]; p++) {
    if (F->A.j[p] < lo || F->A.j[p] > hi) continue;
    mark[F->A.j[p]] = r;
    cols[nc++]      = F->A.j[p];
    acc[F->A.j[p]]  = ATSCSREntry(&F->A, r, p);
  }
  for (PetscInt p = F->L.i[r]; p < F->L.i[r + 1]; p++) {
    PetscInt k = F->L.j[p];

    for (PetscInt q = F->U.i[k]; q < F->U.i[k + 1]; q++) {
      PetscInt j = F->U.j[q];

      if (j > hi) break;
      if (j < lo) continue;
      if (mark[j] != r) {
        mark[j]    = r;
        cols[nc++] = j;
        acc[j]     = 0;
      }
      acc[j] -= F->L.a[p] * F->U.a[q];
    }
  }
  ATSSortInt(nc, cols);
  for (PetscInt p = 0; p < nc; p++) {
    if (acc[cols[p]] == 0.0) continue;
    if (outj) {
      outj[m] = cols[p];
      outa[m] = acc[cols[p]];
    }
    m++;
  }
  return m;
}

/* R = A - LU on the pattern of A and LU, exact zeros dropped, on the lower triangle (columns <= row), the upper
   one (columns >= row) or both (the ATS-ILU paper: each half-step needs only its half); Rt its transpose (made only with
   maket: R^T is as large as R; R is freed after it without keepr). Rows in parallel, two passes (count, then fill),
   each row computed in the same order by any thread. U (the CSR of U for the product) is freed afterwards. */
PetscErrorCode ATSComputeResidualMatrix(ATSFactors *F, PetscBool lower, PetscBool upper, PetscBool keepr, PetscBool maket)
{
  PetscInt     n = F->n, nt = PetscMax(F->nthreads, 1), *mark, *cols, *cnt = F->iwork;
  PetscScalar *acc;

  PetscFunctionBegin;
  PetscCall(ATSCSRTranspose(&F->Ut, &F->U));
  PetscCall(PetscMalloc3(nt * n, &mark, nt * n, &cols, nt * n, &acc));
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt c = 0; c < nt * n; c++) mark[c] = -1;
    if (pass == 1) {
      cnt[0] = 0;
      for (PetscInt r = 0; r < n; r++) cnt[r + 1] += cnt[r];
      PetscCall(ATSCSRAlloc(&F->R, n, cnt[n]));
      PetscCall(PetscArraycpy(F->R.i, cnt, n + 1));
    }
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel num_threads(nt)
#endif
    {
#if defined(PETSCGILU_HAVE_OPENMP)
      PetscInt t = omp_get_thread_num();
#else
      PetscInt t = 0;
#endif
#if defined(PETSCGILU_HAVE_OPENMP)
      /* mutation-survivor: the end of the parallel region right after the loop is a barrier too */
  #pragma omp for schedule(static)
#endif
      for (PetscInt r = 0; r < n; r++) {
        PetscInt lo = lower ? 0 : r, hi = upper ? n - 1 : r;

        if (pass == 0) cnt[r + 1] = ResidualMatrixRow(F, r, lo, hi, mark + t * n, cols + t * n, acc + t * n, NULL, NULL);
        else (void)ResidualMatrixRow(F, r, lo, hi, mark + t * n, cols + t * n, acc + t * n, F->R.j + F->R.i[r], F->R.a + F->R.i[r]);
      }
    }
  }
  PetscCall(PetscFree3(mark, cols, acc));
  PetscCall(ATSCSRReset(&F->U));
  if (maket) PetscCall(ATSCSRTranspose(&F->R, &F->Rt));
  else PetscCall(ATSCSRReset(&F->Rt));
  if (!keepr) PetscCall(ATSCSRReset(&F->R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sorted union of row r of X, and of the entries in columns <= r of row r of S and of R, into out (when
   given); returns its length */
static PetscInt UnionRow(PetscInt r, const ATSCSR *X, const ATSCSR *S, const ATSCSR *R, PetscInt *out)
{
  PetscInt px = X->i[r], pxe = X->i[r + 1], ps = S->i[r], pse = S->i[r + 1], pr = R->i[r], pre = R->i[r + 1], m = 0;

  while (pse > ps && S->j[pse - 1] > r) pse--;
  while (pre > pr && R->j[pre - 1] > r) pre--;
  while (px < pxe || ps < pse || pr < pre) {
    PetscInt c = PETSC_MAX_INT;

    if (px < pxe) c = X->j[px];
    if (ps < pse && S->j[ps] < c) c = S->j[ps];
    if (pr < pre && R->j[pr] < c) c = R->j[pr];
    if (px < pxe && X->j[px] == c) px++;
    if (ps < pse && S->j[ps] == c) ps++;
    if (pr < pre && R->j[pr] == c) pr++;
    if (out) out[m] = c;
    m++;
  }
  return m;
}

/*
  Candidate fill (the ATS-ILU paper, Section 3.5): each row r of X (L, or U^T) becomes its pattern union the starting
  pattern's (S, or S^T) and the residual's (R, or R^T) entries in columns <= r. Values of X are kept; new
  entries are 0, or with initr the residual's (ParILUT: r_rj divided by the diagonal of Y's row j when Y).
  Rows in parallel, two passes (count, then fill).
*/
static PetscErrorCode ATSExpandRows(ATSCSR *X, const ATSCSR *S, const ATSCSR *R, PetscBool initr, const ATSCSR *Y, PetscInt nthreads, PetscInt *cnt)
{
  PetscInt n = X->n;
  ATSCSR   N = {0};

  PetscFunctionBegin;
  (void)nthreads;
  cnt[0] = 0;
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
  for (PetscInt r = 0; r < n; r++) cnt[r + 1] = UnionRow(r, X, S, R, NULL);
  for (PetscInt r = 0; r < n; r++) cnt[r + 1] += cnt[r];
  PetscCall(ATSCSRAlloc(&N, n, cnt[n]));
  PetscCall(PetscArraycpy(N.i, cnt, n + 1));
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
  for (PetscInt r = 0; r < n; r++) {
    (void)UnionRow(r, X, S, R, N.j + N.i[r]);
    for (PetscInt p = N.i[r], q = X->i[r]; p < N.i[r + 1]; p++) {
      PetscInt j = N.j[p];

      while (q < X->i[r + 1] && X->j[q] < j) q++;
      if (q < X->i[r + 1] && X->j[q] == j) N.a[p] = X->a[q];
      else if (initr) {
        PetscScalar d = Y ? Y->a[Y->i[j + 1] - 1] : 1;
        N.a[p]        = d != 0.0 ? ATSCSRValue(R, r, j) / d : 0;
      } else N.a[p] = 0;
    }
  }
  PetscCall(ATSCSRReset(X));
  *X = N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ATSExpandPatterns(ATSFactors *F, PetscBool lower, PetscBool upper)
{
  PetscFunctionBegin;
  if (lower) PetscCall(ATSExpandRows(&F->L, &F->S, &F->R, PETSC_FALSE, NULL, F->nthreads, F->iwork));
  if (upper) PetscCall(ATSExpandRows(&F->Ut, &F->St, &F->Rt, PETSC_FALSE, NULL, F->nthreads, F->iwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ParILUT's candidates: l_ij = r_ij / u_jj, u_ij = r_ij */
PETSC_INTERN PetscErrorCode ATSExpandPatternsParILUT(ATSFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSExpandRows(&F->L, &F->S, &F->R, PETSC_TRUE, &F->Ut, F->nthreads, F->iwork));
  PetscCall(ATSExpandRows(&F->Ut, &F->St, &F->Rt, PETSC_TRUE, NULL, F->nthreads, F->iwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the k-th smallest of a[0..m-1] (0-based), reordering a: quickselect with a three-way partition (many equal keys) */
static PetscReal SelectReal(PetscReal *a, PetscInt m, PetscInt k)
{
  PetscInt lo = 0, hi = m - 1;

  while (lo < hi) {
    PetscReal pivot = a[lo + (hi - lo) / 2];
    PetscInt  lt = lo, i = lo, gt = hi;

    while (i <= gt) { /* a[lo..lt-1] < pivot, a[lt..i-1] == pivot, a[gt+1..hi] > pivot */
      PetscReal t;

      if (a[i] < pivot) {
        t       = a[lt];
        a[lt++] = a[i];
        a[i++]  = t;
      } else if (a[i] > pivot) {
        t       = a[gt];
        a[gt--] = a[i];
        a[i]    = t;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return a[k];
}

/*
  Keep the max entries of X of largest magnitude (diagonals always kept, they count in max): tau is the rank
  (max - n) magnitude of the off-diagonal entries; ties are kept in row order up to the count.
*/
PetscErrorCode ATSThreshold(ATSCSR *X, PetscInt max)
{
  PetscInt   n = X->n, noff = X->i[n] - n, keep = max - n, m = 0, above = 0, q = 0;
  PetscReal *mag, tau;

  PetscFunctionBegin;
  if (X->i[n] <= max) PetscFunctionReturn(PETSC_SUCCESS);
  if (keep < 0) keep = 0;
  PetscCall(PetscMalloc1(PetscMax(noff, 1), &mag));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = X->i[r]; p < X->i[r + 1]; p++)
      if (X->j[p] != r) mag[m++] = PetscAbsScalar(X->a[p]);
  tau = keep > 0 ? SelectReal(mag, m, m - keep) : PETSC_MAX_REAL; /* no sort: PetscSortReal is slow on many equal keys */
  for (PetscInt p = 0; p < m; p++)
    if (mag[p] > tau) above++;
  PetscCall(PetscFree(mag));
  {
    PetscInt ties = keep - above, start = 0;

    for (PetscInt r = 0; r < n; r++) {
      PetscInt end = X->i[r + 1];

      for (PetscInt p = start; p < end; p++) {
        PetscReal v    = PetscAbsScalar(X->a[p]);
        PetscBool kept = (PetscBool)(X->j[p] == r || v > tau);

        if (!kept && keep > 0 && v == tau && ties > 0) {
          kept = PETSC_TRUE;
          ties--;
        }
        if (kept) {
          X->j[q]   = X->j[p];
          X->a[q++] = X->a[p];
        }
      }
      start       = end;
      X->i[r + 1] = q;
    }
  }
  X->nz = q;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  One ATS-ILUT update cycle (Algorithm 7) with the variants of section 4: usenew (USE_NEW: U from the new L),
  updateresidual (UPDATE_RESIDUAL_BETWEEN: R recomputed after the L half-step, else R of the start of the cycle
  gives U's candidates), residualrhs (USE_RESIDUAL_RHS), residuallhs (USE_RESIDUAL_LHS), sweepsafter
  (ADDITIONAL_SWEEPS_AFTER).
*/
PetscErrorCode ATSFactorsSweepILUT(ATSFactors *F, PetscInt sweepsafter)
{
  PetscFunctionBegin;
  /* the L half-step reads the lower triangle of R (candidates, USE_RESIDUAL_RHS) and its upper one (USE_RESIDUAL_LHS,
     through R^T), the U half-step the upper one (through R^T) and the lower one (USE_RESIDUAL_LHS) */
  PetscCall(ATSComputeResidualMatrix(F, PETSC_TRUE, (PetscBool)(F->residuallhs || !F->updateresidual), PETSC_TRUE, (PetscBool)(F->residuallhs || !F->updateresidual)));
  if (!F->usenew) PetscCall(ATSCSRCopy(&F->L, &F->Lold));
  PetscCall(ATSExpandPatterns(F, PETSC_TRUE, PETSC_FALSE));
  NoteZero(F, ATSSolveRows(&F->L, NULL, F->L.a, &F->Ut, &F->A, F->residualrhs ? &F->R : NULL, F->residuallhs ? &F->Rt : NULL, PETSC_FALSE, F->nthreads));
  if (F->updateresidual) PetscCall(ATSComputeResidualMatrix(F, F->residuallhs, PETSC_TRUE, F->residuallhs, PETSC_TRUE));
  PetscCall(ATSExpandPatterns(F, PETSC_FALSE, PETSC_TRUE));
  NoteZero(F, ATSSolveRows(&F->Ut, NULL, F->Ut.a, F->usenew ? &F->L : &F->Lold, &F->At, F->residualrhs ? &F->Rt : NULL, F->residuallhs ? &F->R : NULL, PETSC_FALSE, F->nthreads));
  PetscCall(ATSThreshold(&F->L, F->lmax));
  PetscCall(ATSThreshold(&F->Ut, F->umax));
  for (PetscInt s = 0; s < sweepsafter; s++) PetscCall(ATSFactorsSweep(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  L' = L diag(L)^{-1} (unit, strictly lower CSR) and U' = diag(L) U (upper CSR, diagonal first) of the unscaled
  matrix: with the scaling s, A = S^{-1} (L U) S^{-1}, so l'_ij = (l_ij / s_i) s_j / l_jj, u'_ij = l_ii u_ij / (s_i s_j).
  U' is made in place, in the storage of U^T, which Ux takes over: U^T transposed where it is (each entry moved to
  its place in U along the cycles of the permutation; only the permutation and the diagonal of L are allocated
  beside it). L' is copied without the diagonals into arrays of its size, and L freed (in place it would keep n
  unused entries for as long as the PC lives, and the copy is made while the sweeps' storage is already gone).
*/
PetscErrorCode ATSFactorsExport(ATSFactors *F, ATSCSR *Lx, ATSCSR *Ux)
{
  PetscInt         n = F->n, nz = F->Ut.i[n], q = 0, *cnt, *dest;
  const PetscReal *s = F->scale;
  PetscScalar     *diag;
  ATSCSR           L = F->L, U = F->Ut;

  PetscFunctionBegin;
  PetscCall(ATSCSRReset(Lx));
  PetscCall(ATSCSRReset(Ux));
  PetscCall(PetscMalloc1(n + 1, &diag));
  for (PetscInt r = 0; r < n; r++) diag[r] = L.a[L.i[r + 1] - 1];
  /* U: dest[p] is the place in U of entry p of U^T (rows of U^T in ascending order: each row of U ascending, its diagonal first) */
  PetscCall(PetscCalloc1(n + 1, &cnt));
  PetscCall(PetscMalloc1(PetscMax(nz, 1), &dest));
  for (PetscInt p = 0; p < nz; p++) cnt[U.j[p] + 1]++;
  for (PetscInt r = 0; r < n; r++) cnt[r + 1] += cnt[r];
  for (PetscInt p = 0; p < nz; p++) dest[p] = cnt[U.j[p]]++; /* now cnt[r] is the end of row r of U */
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = U.i[r]; p < U.i[r + 1]; p++) U.j[dest[p]] = r; /* U^T's columns are no longer read */
  for (PetscInt p = 0; p < nz; p++) {                                /* the values along the cycles of dest */
    PetscScalar v = U.a[p], t;
    PetscInt    k = dest[p], next;

    if (k < 0) continue;
    dest[p] = -1;
    while (k != p) {
      t       = U.a[k];
      U.a[k]  = v;
      v       = t;
      next    = dest[k];
      dest[k] = -1;
      k       = next;
    }
    U.a[p] = v;
  }
  for (PetscInt r = n; r > 0; r--) U.i[r] = cnt[r - 1];
  U.i[0] = 0;
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(cnt));
  for (PetscInt r = 0; r < n; r++) {
    PetscScalar d = diag[r];

    for (PetscInt p = U.i[r]; p < U.i[r + 1]; p++) U.a[p] *= d * (s ? 1 / (s[r] * s[U.j[p]]) : 1);
  }
  *Ux = U;
  PetscCall(PetscMemzero(&F->Ut, sizeof(F->Ut)));
  PetscCall(ATSCSRAlloc(Lx, n, L.i[n] - n));
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt p = L.i[r]; p < L.i[r + 1] - 1; p++) {
      PetscInt j = L.j[p];

      Lx->j[q]   = j;
      Lx->a[q++] = L.a[p] / diag[j] * (s ? s[j] / s[r] : 1);
    }
    Lx->i[r + 1] = q;
  }
  PetscCall(PetscFree(diag));
  PetscCall(ATSCSRReset(&F->L));
  PetscFunctionReturn(PETSC_SUCCESS);
}
