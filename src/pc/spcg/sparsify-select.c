/*
   PCSPARSIFY, the selection (the SPCG paper, Section 3.2, Algorithm 2): the local data of the matrix, the
   magnitude order of its off-diagonal entries, the candidates A = Â_t + S_t, their convergence
   indicator ||Â_t^-1|| ||S_t|| and their wavefronts (on the ILU(K) pattern for K > 0).

   Only the diagonal block of each process (its local rows and columns) is sparsified: couplings
   between processes are kept, so a symmetric A gives a symmetric Â without communication, and the
   local factorizations (ILU of one process, block Jacobi, ASM) see exactly the sparsified block.
*/
#include <petsc/private/petscimpl.h>
#include <petscgilu/private/levels.h>
#include "sparsify.h"

/* splitmix64: a symmetric tie-break among entries of equal magnitude that spreads the dropped entries over the matrix */
static inline PetscInt64 Mix(PetscInt64 a, PetscInt64 b)
{
  unsigned long long z = (unsigned long long)PetscMin(a, b) * 0x9E3779B97F4A7C15ULL + (unsigned long long)PetscMax(a, b);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (PetscInt64)((z ^ (z >> 31)) >> 1);
}

static inline int CompareItems(const SparsifyItem *x, const SparsifyItem *y)
{
  if (x->mag < y->mag) return -1;
  if (x->mag > y->mag) return 1;
  if (x->key < y->key) return -1;
  if (x->key > y->key) return 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* index of block column c in block row r of the diagonal block, -1 if absent */
static PetscInt FindEntry(const SparsifyLocal *L, PetscInt r, PetscInt c)
{
  PetscInt lo = L->ai[r], hi = L->ai[r + 1] - 1;

  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (L->aj[mid] == c) return mid;
    if (L->aj[mid] < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

PetscErrorCode SparsifyLocalGet(Mat A, SparsifyLocal *L)
{
  PetscBool   done, flg;
  PetscMPIInt size;
  PetscInt    n;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(L, sizeof(*L)));
  L->A = A;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &flg, MATSEQAIJ, MATMPIAIJ, ""));
  if (!flg) {
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &L->isbaij, MATSEQBAIJ, MATMPIBAIJ, ""));
    PetscCheck(L->isbaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "PCSPARSIFY supports AIJ and BAIJ matrices, not %s: create the matrix with -mat_type aij or baij (-dm_mat_type for a DM)", ((PetscObject)A)->type_name);
  }
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &L->ismpi, MATMPIAIJ, MATMPIBAIJ, ""));
  PetscCall(MatGetBlockSize(A, &L->bs));
  if (!L->isbaij) L->bs = 1;
  if (L->ismpi) {
    if (L->isbaij) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &L->Ad, &L->Ao, &L->garray));
    else PetscCall(MatMPIAIJGetSeqAIJ(A, &L->Ad, &L->Ao, &L->garray));
  } else L->Ad = A;
  PetscCall(MatGetOwnershipRange(A, &L->rstart, NULL));
  L->rstart /= L->bs;
  PetscCall(MatGetRowIJ(L->Ad, 0, PETSC_FALSE, L->isbaij, &L->n, &L->ai, &L->aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the pattern of the local diagonal block");
  if (L->isbaij) PetscCall(MatSeqBAIJGetArray(L->Ad, (PetscScalar **)&L->aa));
  else PetscCall(MatSeqAIJGetArrayRead(L->Ad, &L->aa));
  if (L->Ao) {
    PetscCall(MatGetRowIJ(L->Ao, 0, PETSC_FALSE, L->isbaij, &n, &L->bi, &L->bj, &done));
    PetscCheck(done && n == L->n, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the pattern of the local off-diagonal block");
    if (L->isbaij) PetscCall(MatSeqBAIJGetArray(L->Ao, (PetscScalar **)&L->ba));
    else PetscCall(MatSeqAIJGetArrayRead(L->Ao, &L->ba));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SparsifyLocalRestore(SparsifyLocal *L)
{
  PetscBool done;
  PetscInt  n;

  PetscFunctionBegin;
  if (L->isbaij) PetscCall(MatSeqBAIJRestoreArray(L->Ad, (PetscScalar **)&L->aa));
  else PetscCall(MatSeqAIJRestoreArrayRead(L->Ad, &L->aa));
  PetscCall(MatRestoreRowIJ(L->Ad, 0, PETSC_FALSE, L->isbaij, &n, &L->ai, &L->aj, &done));
  if (L->Ao) {
    if (L->isbaij) PetscCall(MatSeqBAIJRestoreArray(L->Ao, (PetscScalar **)&L->ba));
    else PetscCall(MatSeqAIJRestoreArrayRead(L->Ao, &L->ba));
    PetscCall(MatRestoreRowIJ(L->Ao, 0, PETSC_FALSE, L->isbaij, &n, &L->bi, &L->bj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the local diagonal block symmetric (pattern and values, block-transposed, relative tolerance tol)? Collective. */
PetscErrorCode SparsifyLocalIsSymmetric(const SparsifyLocal *L, PetscReal tol, PetscBool *sym)
{
  PetscInt  bs = L->bs, bs2 = bs * bs;
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < L->n && ok; r++)
    for (PetscInt k = L->ai[r]; k < L->ai[r + 1] && ok; k++) {
      PetscInt c = L->aj[k], kt;

      if (c <= r) continue;
      kt = FindEntry(L, c, r);
      if (kt < 0) {
        ok = PETSC_FALSE;
        break;
      }
      for (PetscInt ii = 0; ii < bs && ok; ii++)
        for (PetscInt jj = 0; jj < bs; jj++) {
          PetscReal x = PetscAbsScalar(L->aa[k * bs2 + jj * bs + ii]), y = PetscAbsScalar(L->aa[kt * bs2 + ii * bs + jj]);
          /* BAIJ blocks are column-major; AIJ bs = 1 */
          if (PetscAbsScalar(L->aa[k * bs2 + jj * bs + ii] - L->aa[kt * bs2 + ii * bs + jj]) > tol * PetscMax(x, y)) {
            ok = PETSC_FALSE;
            break;
          }
        }
    }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, GILU_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)L->A)));
  *sym = ok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline void SwapItems(SparsifyItem *a, SparsifyItem *b)
{
  SparsifyItem t = *a;

  *a = *b;
  *b = t;
}

/* Sorts the items in comparator order (quicksort, median of three, insertion sort below 16 items) */
static void SortItems(SparsifyItem *it, PetscInt m)
{
  while (m > 16) {
    PetscInt     mid = m / 2, i = 0, j = m - 1;
    SparsifyItem pivot;

    if (CompareItems(&it[mid], &it[0]) < 0) SwapItems(&it[mid], &it[0]);
    if (CompareItems(&it[m - 1], &it[0]) < 0) SwapItems(&it[m - 1], &it[0]);
    if (CompareItems(&it[m - 1], &it[mid]) < 0) SwapItems(&it[m - 1], &it[mid]);
    pivot = it[mid];
    while (i <= j) {
      while (CompareItems(&it[i], &pivot) < 0) i++;
      while (CompareItems(&it[j], &pivot) > 0) j--;
      if (i <= j) {
        SwapItems(&it[i], &it[j]);
        i++;
        j--;
      }
    }
    /* recurse into the smaller part, loop on the larger one */
    if (j + 1 < m - i) {
      SortItems(it, j + 1);
      it += i;
      m -= i;
    } else {
      SortItems(it + i, m - i);
      m = j + 1;
    }
  }
  for (PetscInt i = 1; i < m; i++) {
    SparsifyItem x = it[i];
    PetscInt     j = i - 1;

    while (j >= 0 && CompareItems(&x, &it[j]) < 0) {
      it[j + 1] = it[j];
      j--;
    }
    it[j + 1] = x;
  }
}

/* The item of entry k (row r, column c) of the diagonal block; symmetric: kt, the transposed partner's entry */
static inline void MakeItem(const SparsifyLocal *L, PetscInt r, PetscInt k, PetscInt kt, SparsifyItem *it)
{
  PetscInt  bs2 = L->bs * L->bs;
  PetscReal s2  = 0;

  for (PetscInt q = 0; q < bs2; q++) s2 += PetscRealPart(L->aa[k * bs2 + q] * PetscConj(L->aa[k * bs2 + q]));
  it->mag = PetscSqrtReal(s2);
  it->key = Mix(L->rstart + r, L->rstart + L->aj[k]);
  it->k   = k;
  it->kt  = kt;
  it->r   = r;
}

/* A max-heap (comparator order) of h items: the item at 0 sifted down to its place */
static inline void SiftDown(SparsifyItem *h, PetscInt n)
{
  PetscInt     i = 0;
  SparsifyItem x = h[0];

  for (;;) {
    PetscInt c = 2 * i + 1;

    if (c >= n) break;
    if (c + 1 < n && CompareItems(&h[c + 1], &h[c]) > 0) c++;
    if (CompareItems(&h[c], &x) <= 0) break;
    h[i] = h[c];
    i    = c;
  }
  h[i] = x;
}

static inline void SiftUp(SparsifyItem *h, PetscInt i)
{
  SparsifyItem x = h[i];

  while (i > 0) {
    PetscInt p = (i - 1) / 2;

    if (CompareItems(&h[p], &x) >= 0) break;
    h[i] = h[p];
    i    = p;
  }
  h[i] = x;
}

/*
  The off-diagonal entries (blocks) of the diagonal block that may be dropped; the smallest of them, as many as can stand
  for maxentries entries, kept and sorted (magnitude: Frobenius norm of a block). Symmetric: one item per pair, weight 2
  (an entry without a transposed partner is an item of weight 1). nitems: all items; nkept: those kept in *items (the
  leading items any ratio up to maxentries can drop: a first pass counts the items, a second streams them through a
  max-heap of nkept, so only those are ever stored; the comparator is a total order, so they are the same items in the
  same order as a sort of all would give). noffdiag: off-diagonal entries (blocks).
*/
PetscErrorCode SparsifyItemsCreate(const SparsifyLocal *L, PetscBool symmetric, PetscInt maxentries, PetscInt *nitems, PetscInt *nkept, SparsifyItem **items, PetscInt *noffdiag)
{
  PetscInt      m = 0, noff = 0, nsort, nsingle = 0, nh = 0;
  SparsifyItem *it;

  PetscFunctionBegin;
  /* the items and how many of them are single entries */
  for (PetscInt r = 0; r < L->n; r++)
    for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++) {
      PetscInt c = L->aj[k], kt = -1;

      if (c == r) continue;
      noff++;
      if (symmetric) {
        kt = FindEntry(L, c, r);
        if (kt >= 0 && c < r) continue; /* the pair is the item of its upper entry */
      }
      if (kt < 0) nsingle++;
      m++;
    }
  /* items of 2 entries: maxentries / 2 of them, plus the single ones that may come first */
  nsort = PetscMin(m, PetscMin(PetscMax(maxentries, 0), PetscMax(maxentries, 0) / 2 + nsingle + 1));
  PetscCall(PetscMalloc1(nsort + 1, &it));
  for (PetscInt r = 0; r < L->n && nsort > 0; r++)
    for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++) {
      PetscInt     c = L->aj[k], kt = -1;
      SparsifyItem x;

      if (c == r) continue;
      if (symmetric) {
        kt = FindEntry(L, c, r);
        if (kt >= 0 && c < r) continue;
      }
      MakeItem(L, r, k, kt, &x);
      if (nh < nsort) {
        it[nh] = x;
        SiftUp(it, nh++);
      } else if (CompareItems(&x, &it[0]) < 0) { /* smaller than the largest kept: replaces it */
        it[0] = x;
        SiftDown(it, nh);
      }
    }
  SortItems(it, nsort);
  *nitems   = m;
  *nkept    = nsort;
  *items    = it;
  *noffdiag = noff;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How many leading items drop ratio percent of the nnz entries (never more: a pair that would overshoot stops the count) */
PetscErrorCode SparsifyItemsCount(PetscInt nitems, const SparsifyItem items[], PetscInt nnz, PetscReal ratio, PetscInt *nprefix, PetscInt *ndropped)
{
  PetscInt target = (PetscInt)PetscFloorReal(ratio * (PetscReal)nnz / 100.0 + 1e-9), d = 0, m = 0;

  PetscFunctionBegin;
  while (m < nitems && d + (items[m].kt >= 0 ? 2 : 1) <= target) {
    d += items[m].kt >= 0 ? 2 : 1;
    m++;
  }
  *nprefix  = m;
  *ndropped = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The drop mask (one bit per entry) of the first nprefix items, from that of the first *current ones (only the difference is touched) */
PetscErrorCode SparsifyMask(const SparsifyLocal *L, PetscInt nprefix, const SparsifyItem items[], PetscInt *current, PetscBT mask)
{
  PetscFunctionBegin;
  for (PetscInt m = PetscMin(*current, nprefix); m < PetscMax(*current, nprefix); m++) {
    if (nprefix > *current) {
      PetscCall(PetscBTSet(mask, items[m].k));
      if (items[m].kt >= 0) PetscCall(PetscBTSet(mask, items[m].kt));
    } else {
      PetscCall(PetscBTClear(mask, items[m].k));
      if (items[m].kt >= 0) PetscCall(PetscBTClear(mask, items[m].kt));
    }
  }
  *current = nprefix;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row sums |A| of the local scalar rows (diagonal and off-diagonal block), column sums of the owned scalar
   columns (only when cols: collective, the same on every process),
   smallest |a_ii| of the local rows */
PetscErrorCode SparsifyLocalNorms(const SparsifyLocal *L, PetscReal rowsum[], PetscBool cols, PetscReal colsum[], PetscReal *mindiag)
{
  PetscInt  bs = L->bs, bs2 = bs * bs, nl = L->n * bs;
  PetscReal dmin = PETSC_MAX_REAL;
  Vec       v    = NULL;

  PetscFunctionBegin;
  for (PetscInt q = 0; q < nl; q++) rowsum[q] = 0;
  if (cols)
    for (PetscInt q = 0; q < nl; q++) colsum[q] = 0;
  if (cols && L->Ao) {
    PetscCall(MatCreateVecs(L->A, &v, NULL));
    PetscCall(VecSetOption(v, VEC_IGNORE_NEGATIVE_INDICES, PETSC_TRUE));
  }
  for (PetscInt r = 0; r < L->n; r++) {
    PetscBool hasdiag = PETSC_FALSE;

    for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++) {
      PetscInt c = L->aj[k];

      for (PetscInt jj = 0; jj < bs; jj++)
        for (PetscInt ii = 0; ii < bs; ii++) {
          PetscReal a = PetscAbsScalar(L->aa[k * bs2 + jj * bs + ii]);

          rowsum[r * bs + ii] += a;
          if (cols) colsum[c * bs + jj] += a;
          if (c == r && ii == jj) dmin = PetscMin(dmin, a);
        }
      if (c == r) hasdiag = PETSC_TRUE;
    }
    if (!hasdiag) dmin = 0;
    if (L->Ao)
      for (PetscInt k = L->bi[r]; k < L->bi[r + 1]; k++)
        for (PetscInt jj = 0; jj < bs; jj++)
          for (PetscInt ii = 0; ii < bs; ii++) {
            PetscReal a = PetscAbsScalar(L->ba[k * bs2 + jj * bs + ii]);

            rowsum[r * bs + ii] += a;
            if (v) {
              PetscInt    gc = L->garray[L->bj[k]] * (L->isbaij ? bs : 1) + (L->isbaij ? jj : 0);
              PetscScalar s  = a;

              PetscCall(VecSetValues(v, 1, &gc, &s, ADD_VALUES));
            }
          }
  }
  if (v) {
    const PetscScalar *x;

    PetscCall(VecAssemblyBegin(v));
    PetscCall(VecAssemblyEnd(v));
    PetscCall(VecGetArrayRead(v, &x));
    for (PetscInt q = 0; q < nl; q++) colsum[q] += PetscRealPart(x[q]);
    PetscCall(VecRestoreArrayRead(v, &x));
    PetscCall(VecDestroy(&v));
  } else if (cols && L->ismpi) {
    /* every process must take part in the assembly even without off-diagonal entries */
    PetscCall(MatCreateVecs(L->A, &v, NULL));
    PetscCall(VecAssemblyBegin(v));
    PetscCall(VecAssemblyEnd(v));
    PetscCall(VecDestroy(&v));
  }
  *mindiag = dmin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wavefronts of the lower triangle of the pattern (ai, aj) with the entries of mask dropped, or of its
   symbolic ILU(levels) fill pattern, and the entries (blocks) of that pattern (L + D + U) (levels of fill as in PETSc's ILU(k): lev(i,j) = min over k of
   lev(i,k) + lev(k,j) + 1, entries kept while lev <= levels) */
PetscErrorCode SparsifyCountWavefronts(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscBT mask, PetscInt levels, PetscInt *nwaves, PetscInt *nfill)
{
  PetscInt *pi, *pj, *wave, np = 0;

  PetscFunctionBegin;
  if (!n) {
    *nwaves = 0;
    if (nfill) *nfill = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(n, &wave));
  if (levels <= 0) {
    /* GILULevels() of the kept lower triangle, read in place: a copy of the pattern would be the largest
       temporary of the setup (as large as A's column indices) and raise its peak memory */
    PetscInt nw = 0;

    for (PetscInt r = 0; r < n; r++) {
      PetscInt w = 0;

      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
        if (mask && PetscBTLookup(mask, k)) continue;
        np++;
        if (aj[k] < r) w = PetscMax(w, wave[aj[k]] + 1);
      }
      wave[r] = w;
      nw      = PetscMax(nw, w + 1);
    }
    *nwaves = nw;
    if (nfill) *nfill = np;
    PetscCall(PetscFree(wave));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* ILU(levels): the kept pattern (rows sorted, every diagonal entry, kept or not, as the factorization needs it), its
     symbolic ILU(levels) (private/levels.h), then its wavefronts */
  PetscCall(PetscMalloc2(n + 1, &pi, ai[n] + n, &pj));
  pi[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscBool diag = PETSC_FALSE;

    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      if (mask && PetscBTLookup(mask, k)) continue;
      if (!diag && aj[k] >= r) {
        diag = PETSC_TRUE;
        if (aj[k] > r) pj[np++] = r;
      }
      pj[np++] = aj[k];
    }
    if (!diag) pj[np++] = r;
    pi[r + 1] = np;
  }
  {
    PetscInt *fi, *fj;

    PetscCall(GILUSymbolicILUk(n, pi, pj, levels, &fi, &fj));
    PetscCall(PetscFree2(pi, pj)); /* before the levels: the peak is the fill pattern's */
    *nwaves = GILULevels(GILU_TRI_LOWER, 0, n, fi, fj, wave);
    if (nfill) *nfill = fi[n];
    PetscCall(PetscFree(fi));
    PetscCall(PetscFree(fj));
  }
  PetscCall(PetscFree(wave));
  PetscFunctionReturn(PETSC_SUCCESS);
}
