/*
   PCFGDD on the host: ILU(0) per subdomain then ILDU0 (the FGDD paper, Algorithm 4), the per-subdomain levels (DAG)
   of L and U (a task per subdomain; the GPU's version is Algorithm 2 in cuda/fgdd.cu), and the apply variants,
   a task (OpenMP) per subdomain:

     syncfree  the subdomain's rows in natural order (what the GPU's spin-waits compute, in one order)
     vertex    the subdomain's rows level by level, each row's sum in column order (the GPU's vertex-centric
               DAG traversal); bitwise equal to syncfree
     edge      level by level, each finished unknown pushed into the rows that depend on it (column-wise,
               push-style): the sums in another order, equal to round-off; deterministic on the host, while the
               GPU's edge-centric kernel (atomics) is not

   fused: L, D and U of a subdomain in one task; otherwise three passes over all subdomains (the three kernels).
   The results do not depend on fused or on the number of threads.
*/
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/levels.h>
#include "fgdd.h"
#if defined(_OPENMP)
  #include <omp.h>
  #define FGDD_NTHREADS(f) ((int)PetscMax((f)->nthreads, 1)) /* set by the PC (GILUClampThreads()) */
#endif

/* c -= a b (bs x bs times bs) */
static inline void BlkMultSubVec(PetscInt bs, const MatScalar *a, const PetscScalar *b, PetscScalar *c)
{
  if (bs == 1) {
    c[0] -= a[0] * b[0];
    return;
  }
  for (PetscInt r = 0; r < bs; r++) {
    PetscScalar s = 0;

    for (PetscInt q = 0; q < bs; q++) s += a[r * bs + q] * b[q];
    c[r] -= s;
  }
}

/* C = A B (bs x bs) */
static inline void BlkMult(PetscInt bs, const MatScalar *A, const MatScalar *B, MatScalar *C)
{
  for (PetscInt r = 0; r < bs; r++)
    for (PetscInt q = 0; q < bs; q++) {
      MatScalar s = 0;

      for (PetscInt t = 0; t < bs; t++) s += A[r * bs + t] * B[t * bs + q];
      C[r * bs + q] = s;
    }
}

/* C -= A B (bs x bs) */
static inline void BlkMultSub(PetscInt bs, const MatScalar *A, const MatScalar *B, MatScalar *C)
{
  for (PetscInt r = 0; r < bs; r++)
    for (PetscInt q = 0; q < bs; q++) {
      MatScalar s = 0;

      for (PetscInt t = 0; t < bs; t++) s += A[r * bs + t] * B[t * bs + q];
      C[r * bs + q] -= s;
    }
}

/* ILU(0) of subdomain s (rows lo..hi-1; colpos[lo..hi-1] is -1 on entry and exit), then the ILDU0 scaling of U; the first zero pivot's row or -1 */
static PetscInt FGDDFactorSubdomain(FGDDFactors *f, PetscInt s, PetscReal tol, PetscInt colpos[])
{
  const PetscInt bs = f->bs, bs2 = f->bs2, lo = f->subptr[s], hi = f->subptr[s + 1];
  MatScalar     *a  = f->aa, tmp[GILU_MAX_DOF * GILU_MAX_DOF];
  PetscInt       zr = -1;

  for (PetscInt i = lo; i < hi; i++) {
    for (PetscInt k = f->ai[i]; k < f->ai[i + 1]; k++) colpos[f->aj[k]] = k;
    for (PetscInt k = f->ai[i]; k < f->diag[i]; k++) {
      PetscInt j = f->aj[k];

      /* L_ij = A_ij U_jj^{-1}, then row i -= L_ij (row j of U) on the pattern of row i */
      if (bs == 1) tmp[0] = a[k] * f->dinv[j];
      else BlkMult(bs, a + k * bs2, f->dinv + j * bs2, tmp);
      for (PetscInt t = 0; t < bs2; t++) a[k * bs2 + t] = tmp[t];
      for (PetscInt m = f->diag[j] + 1; m < f->ai[j + 1]; m++) {
        PetscInt p = colpos[f->aj[m]];

        if (p < 0) continue;
        if (bs == 1) a[p] -= tmp[0] * a[m];
        else BlkMultSub(bs, tmp, a + m * bs2, a + p * bs2);
      }
    }
    if (bs == 1) {
      MatScalar d = a[f->diag[i]];

      if (PetscAbsScalar(d) <= tol) {
        if (zr < 0) zr = i;
        f->dinv[i] = 0;
      } else f->dinv[i] = 1.0 / d;
    } else if (!GILUBlockInvert(bs, a + f->diag[i] * bs2, f->dinv + i * bs2, tol)) {
      if (zr < 0) zr = i;
    }
    for (PetscInt k = f->ai[i]; k < f->ai[i + 1]; k++) colpos[f->aj[k]] = -1;
  }
  /* ILDU0: U := D^{-1} U, unit diagonal */
  for (PetscInt i = lo; i < hi; i++)
    for (PetscInt m = f->diag[i] + 1; m < f->ai[i + 1]; m++) {
      if (bs == 1) a[m] *= f->dinv[i];
      else {
        BlkMult(bs, f->dinv + i * bs2, a + m * bs2, tmp);
        for (PetscInt t = 0; t < bs2; t++) a[m * bs2 + t] = tmp[t];
      }
    }
  return zr;
}

/* ILU(0) and ILDU0 of every subdomain, a task each; f->zerorow the first zero pivot's (permuted block) row or -1 */
PetscErrorCode FGDDFactor(FGDDFactors *f, PetscReal tol)
{
  PetscInt *colpos, zr = -1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(f->nb, &colpos));
  for (PetscInt i = 0; i < f->nb; i++) colpos[i] = -1;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
  for (PetscInt s = 0; s < f->nsub; s++) {
    PetscInt z = FGDDFactorSubdomain(f, s, tol, colpos);

    if (z >= 0) {
#if defined(_OPENMP)
  #pragma omp critical(fgdd_zerorow)
#endif
      if (zr < 0 || z < zr) zr = z;
    }
  }
  f->zerorow = zr;
  PetscCall(PetscFree(colpos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose (by columns) of the strictly lower or upper part: for the host edge-centric push */
static PetscErrorCode FGDDTranspose(const FGDDFactors *f, PetscBool lower, PetscInt **tp, PetscInt **ti, PetscInt **tk)
{
  PetscInt nb = f->nb, n = 0, *p, *r, *k;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nb; i++) n += lower ? f->diag[i] - f->ai[i] : f->ai[i + 1] - f->diag[i] - 1;
  PetscCall(PetscMalloc3(nb + 1, &p, n, &r, n, &k));
  PetscCall(PetscArrayzero(p, nb + 1));
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt m = lower ? f->ai[i] : f->diag[i] + 1; m < (lower ? f->diag[i] : f->ai[i + 1]); m++) p[f->aj[m] + 1]++;
  for (PetscInt j = 0; j < nb; j++) p[j + 1] += p[j];
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt m = lower ? f->ai[i] : f->diag[i] + 1; m < (lower ? f->diag[i] : f->ai[i + 1]); m++) {
      PetscInt j = f->aj[m];

      r[p[j]]   = i;
      k[p[j]++] = m;
    }
  for (PetscInt j = nb; j > 0; j--) p[j] = p[j - 1];
  p[0] = 0;
  *tp  = p;
  *ti  = r;
  *tk  = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The per-subdomain DAGs of L and U (a task per subdomain); the transposes of the host edge variant are dropped (made by
   FGDDBuildTransposes() at its first apply: the other variants and the device never read them) */
PetscErrorCode FGDDBuildLevels(FGDDFactors *f)
{
  PetscInt *lvlL, *lvlU, *nL, *nU, nsub = f->nsub, nb = f->nb;

  PetscFunctionBegin;
  PetscCall(PetscFree3(f->lrows, f->llev, f->lsub));
  PetscCall(PetscFree3(f->urows, f->ulev, f->usub));
  PetscCall(PetscFree3(f->ltp, f->lti, f->ltk));
  PetscCall(PetscFree3(f->utp, f->uti, f->utk));
  PetscCall(PetscMalloc4(nb, &lvlL, nb, &lvlU, nsub + 1, &nL, nsub + 1, &nU));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
  for (PetscInt s = 0; s < nsub; s++) { /* a subdomain's rows read only its own rows (the entries between subdomains are dropped) */
    nL[s] = GILULevels(GILU_TRI_LOWER, f->subptr[s], f->subptr[s + 1], f->ai, f->aj, lvlL);
    nU[s] = GILULevels(GILU_TRI_UPPER, f->subptr[s], f->subptr[s + 1], f->ai, f->aj, lvlU);
  }
  /* level pointers: subdomain s owns lev[sub[s] .. sub[s+1]-1], its n[s] levels and their end */
  PetscCall(PetscMalloc3(nb, &f->lrows, nb + nsub + 1, &f->llev, nsub + 1, &f->lsub));
  PetscCall(PetscMalloc3(nb, &f->urows, nb + nsub + 1, &f->ulev, nsub + 1, &f->usub));
  f->lsub[0] = f->usub[0] = 0;
  f->maxlevL = f->maxlevU = 0;
  for (PetscInt s = 0; s < nsub; s++) {
    f->lsub[s + 1] = f->lsub[s] + nL[s] + 1;
    f->usub[s + 1] = f->usub[s] + nU[s] + 1;
    f->maxlevL     = PetscMax(f->maxlevL, nL[s]);
    f->maxlevU     = PetscMax(f->maxlevU, nU[s]);
  }
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
  for (PetscInt s = 0; s < nsub; s++) {
    GILULevelSets(f->subptr[s], f->subptr[s + 1], lvlL, nL[s], f->llev + f->lsub[s], f->lrows);
    GILULevelSets(f->subptr[s], f->subptr[s + 1], lvlU, nU[s], f->ulev + f->usub[s], f->urows);
  }
  PetscCall(PetscFree4(lvlL, lvlU, nL, nU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transposes of L and U that the host edge variant pushes along (two integers per entry: made only where that
   variant runs, once per pattern, so the other variants store the factor and its levels only) */
PetscErrorCode FGDDBuildTransposes(FGDDFactors *f)
{
  PetscFunctionBegin;
  if (f->ltp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGDDTranspose(f, PETSC_TRUE, &f->ltp, &f->lti, &f->ltk));
  PetscCall(FGDDTranspose(f, PETSC_FALSE, &f->utp, &f->uti, &f->utk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z_i -= sum_j T_ij z_j over the row's strictly lower (upper) entries, in column order (pull) */
static inline void FGDDRowPull(const FGDDFactors *f, PetscInt i, PetscBool lower, PetscScalar *z)
{
  const PetscInt bs = f->bs, bs2 = f->bs2, k0 = lower ? f->ai[i] : f->diag[i] + 1, k1 = lower ? f->diag[i] : f->ai[i + 1];

  if (bs == 1) {
    PetscScalar s = z[i];

    for (PetscInt k = k0; k < k1; k++) s -= f->aa[k] * z[f->aj[k]];
    z[i] = s;
  } else {
    /* constant block sizes inlined (unrolled) for the common ones */
    switch (bs) {
    case 2:
      for (PetscInt k = k0; k < k1; k++) BlkMultSubVec(2, f->aa + k * 4, z + f->aj[k] * 2, z + i * 2);
      break;
    case 3:
      for (PetscInt k = k0; k < k1; k++) BlkMultSubVec(3, f->aa + k * 9, z + f->aj[k] * 3, z + i * 3);
      break;
    case 4:
      for (PetscInt k = k0; k < k1; k++) BlkMultSubVec(4, f->aa + k * 16, z + f->aj[k] * 4, z + i * 4);
      break;
    default:
      for (PetscInt k = k0; k < k1; k++) BlkMultSubVec(bs, f->aa + k * bs2, z + f->aj[k] * bs, z + i * bs);
    }
  }
}

/* z_i -= T_ij z_j for the rows i that depend on the finished unknown j (push) */
static inline void FGDDColumnPush(const FGDDFactors *f, PetscInt j, PetscBool lower, PetscScalar *z)
{
  const PetscInt  bs = f->bs, bs2 = f->bs2;
  const PetscInt *tp = lower ? f->ltp : f->utp, *ti = lower ? f->lti : f->uti, *tk = lower ? f->ltk : f->utk;

  for (PetscInt e = tp[j]; e < tp[j + 1]; e++) BlkMultSubVec(bs, f->aa + tk[e] * bs2, z + j * bs, z + ti[e] * bs);
}

static void FGDDSolveTri(const FGDDFactors *f, PetscInt s, FGDDApplyType type, PetscBool lower, PetscScalar *z)
{
  const PetscInt  lo = f->subptr[s], hi = f->subptr[s + 1];
  const PetscInt *rows = lower ? f->lrows : f->urows, *lev = lower ? f->llev : f->ulev, *sub = lower ? f->lsub : f->usub;

  switch (type) {
  case FGDD_APPLY_SYNCFREE:
    if (lower)
      for (PetscInt i = lo; i < hi; i++) FGDDRowPull(f, i, PETSC_TRUE, z);
    else
      for (PetscInt i = hi - 1; i >= lo; i--) FGDDRowPull(f, i, PETSC_FALSE, z);
    break;
  case FGDD_APPLY_VERTEX:
    for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++)
      for (PetscInt r = lev[l]; r < lev[l + 1]; r++) FGDDRowPull(f, rows[r], lower, z);
    break;
  case FGDD_APPLY_EDGE:
    /* a row's unknown is final once the rows of the levels before it have pushed */
    for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++)
      for (PetscInt r = lev[l]; r < lev[l + 1]; r++) FGDDColumnPush(f, rows[r], lower, z);
    break;
  }
}

static void FGDDScale(const FGDDFactors *f, PetscInt s, PetscScalar *z)
{
  const PetscInt bs = f->bs, bs2 = f->bs2;

  for (PetscInt i = f->subptr[s]; i < f->subptr[s + 1]; i++) {
    if (bs == 1) z[i] *= f->dinv[i];
    else {
      PetscScalar t[GILU_MAX_DOF];

      for (PetscInt r = 0; r < bs; r++) {
        t[r] = 0;
        for (PetscInt q = 0; q < bs; q++) t[r] += f->dinv[i * bs2 + r * bs + q] * z[i * bs + q];
      }
      for (PetscInt r = 0; r < bs; r++) z[i * bs + r] = t[r];
    }
  }
}

/* z (permuted) := x (local ordering) on subdomain s, or y := z back */
static inline void FGDDGather(const FGDDFactors *f, PetscInt s, const PetscScalar *x, PetscScalar *z)
{
  const PetscInt bs = f->bs;

  for (PetscInt i = f->subptr[s]; i < f->subptr[s + 1]; i++)
    for (PetscInt c = 0; c < bs; c++) z[i * bs + c] = x[f->perm[i] * bs + c];
}

static inline void FGDDScatter(const FGDDFactors *f, PetscInt s, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt bs = f->bs;

  for (PetscInt i = f->subptr[s]; i < f->subptr[s + 1]; i++)
    for (PetscInt c = 0; c < bs; c++) y[f->perm[i] * bs + c] = z[i * bs + c];
}

/* subdomain s of the apply: its rows of x gathered, L, D, U, scattered into y */
static inline void FGDDSubdomainApply(const FGDDFactors *f, PetscInt s, FGDDApplyType type, const PetscScalar *x, PetscScalar *z, PetscScalar *y)
{
  FGDDGather(f, s, x, z);
  FGDDSolveTri(f, s, type, PETSC_TRUE, z);
  FGDDScale(f, s, z);
  FGDDSolveTri(f, s, type, PETSC_FALSE, z);
  FGDDScatter(f, s, z, y);
}

/*
  y := (L D U)^{-1} x, x and y in the local block's ordering, z the permuted work vector; a task per subdomain
  that gathers its rows of x, solves and scatters them into y (fused), or three passes (gather + L, D, U + scatter)
*/
PetscErrorCode FGDDApply_Host(const FGDDFactors *f, FGDDApplyType type, PetscBool fused, const PetscScalar x[], PetscScalar z[], PetscScalar y[])
{
  PetscFunctionBegin;
  if (fused) {
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
    for (PetscInt s = 0; s < f->nsub; s++) FGDDSubdomainApply(f, s, type, x, z, y);
  } else {
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
    for (PetscInt s = 0; s < f->nsub; s++) {
      FGDDGather(f, s, x, z);
      FGDDSolveTri(f, s, type, PETSC_TRUE, z);
    }
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static) num_threads(FGDD_NTHREADS(f))
#endif
    for (PetscInt s = 0; s < f->nsub; s++) FGDDScale(f, s, z);
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
    for (PetscInt s = 0; s < f->nsub; s++) {
      FGDDSolveTri(f, s, type, PETSC_FALSE, z);
      FGDDScatter(f, s, z, y);
    }
  }
  PetscCall(PetscLogFlops(2.0 * f->bs2 * (f->ai[f->nb] - f->nb) + 2.0 * f->bs2 * f->nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* subdomain s of the transposed apply: U^T by columns, D^T, L^T by columns */
static inline void FGDDSubdomainApplyTranspose(const FGDDFactors *f, PetscInt s, const PetscScalar *x, PetscScalar *z, PetscScalar *y)
{
  const PetscInt bs = f->bs, bs2 = f->bs2, lo = f->subptr[s], hi = f->subptr[s + 1];

  FGDDGather(f, s, x, z);
  for (PetscInt i = lo; i < hi; i++)
    for (PetscInt k = f->diag[i] + 1; k < f->ai[i + 1]; k++) {
      const MatScalar *B  = f->aa + k * bs2;
      PetscScalar     *zj = z + f->aj[k] * bs;

      for (PetscInt c = 0; c < bs; c++)
        for (PetscInt r = 0; r < bs; r++) zj[c] -= B[r * bs + c] * z[i * bs + r];
    }
  for (PetscInt i = lo; i < hi; i++) {
    PetscScalar t[GILU_MAX_DOF];

    for (PetscInt c = 0; c < bs; c++) {
      t[c] = 0;
      for (PetscInt r = 0; r < bs; r++) t[c] += f->dinv[i * bs2 + r * bs + c] * z[i * bs + r];
    }
    for (PetscInt c = 0; c < bs; c++) z[i * bs + c] = t[c];
  }
  for (PetscInt i = hi - 1; i >= lo; i--)
    for (PetscInt k = f->ai[i]; k < f->diag[i]; k++) {
      const MatScalar *B  = f->aa + k * bs2;
      PetscScalar     *zj = z + f->aj[k] * bs;

      for (PetscInt c = 0; c < bs; c++)
        for (PetscInt r = 0; r < bs; r++) zj[c] -= B[r * bs + c] * z[i * bs + r];
    }
  FGDDScatter(f, s, z, y);
}

/*
  y := (L D U)^{-T} x = L^{-T} D^{-T} U^{-T} x, the exact transpose of FGDDApply_Host(): per subdomain (the
  preconditioner is block diagonal over the subdomains in the permuted ordering), U^T z = x by columns of U in
  increasing row order (row i final, then z_j -= U_ij^T z_i for its upper entries), z := D^{-T} z, then L^T by
  columns of L in decreasing order (z_j -= L_ij^T z_i for the lower entries of row i). A task per subdomain.
*/
PetscErrorCode FGDDApplyTranspose_Host(const FGDDFactors *f, const PetscScalar x[], PetscScalar z[], PetscScalar y[])
{
  PetscFunctionBegin;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
  for (PetscInt s = 0; s < f->nsub; s++) FGDDSubdomainApplyTranspose(f, s, x, z, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Y := (L D U)^{-1} X (or (L D U)^{-T} X) for ncols columns (leading dimensions ldx, ldy; Y may be X): a task per
  subdomain that applies it to every column in turn, so that the subdomain's factors, read from memory for the first
  column, are in cache for the others (a subdomain's blocks are a few hundred block rows' worth). Each column gets the
  bits of FGDDApply_Host() (FGDDApplyTranspose_Host()): the same operations per subdomain, fused or not.
*/
PetscErrorCode FGDDApplyMultiple_Host(const FGDDFactors *f, FGDDApplyType type, PetscBool transpose, PetscInt ncols, const PetscScalar x[], PetscInt ldx, PetscScalar z[], PetscScalar y[], PetscInt ldy)
{
  PetscFunctionBegin;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(dynamic) num_threads(FGDD_NTHREADS(f))
#endif
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt j = 0; j < ncols; j++) {
      if (transpose) FGDDSubdomainApplyTranspose(f, s, x + (size_t)j * ldx, z, y + (size_t)j * ldy);
      else FGDDSubdomainApply(f, s, type, x + (size_t)j * ldx, z, y + (size_t)j * ldy);
    }
  if (!transpose) PetscCall(PetscLogFlops(ncols * (2.0 * f->bs2 * (f->ai[f->nb] - f->nb) + 2.0 * f->bs2 * f->nb)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
