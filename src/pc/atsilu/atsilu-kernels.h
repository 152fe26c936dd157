/*
   The per-row work of the ATS-ILU/ParILU sweeps and of the residual, shared by the host code (atsilu-factor.c,
   OpenMP threads) and the CUDA kernels (cuda/atsilu.cu, a thread per row; also run by the cudaemu emulation):
   the same operations in the same order, so the host and device factors agree bitwise when the compilers
   evaluate a*b - c the same way (contractions into fused multiply-adds may change the last bits).
*/
#ifndef PETSCGILU_ATSILU_KERNELS_H
#define PETSCGILU_ATSILU_KERNELS_H

#include "atsilu.h"

#if defined(__CUDACC__) || defined(GILU_CUDAEMU)
  #define ATS_KERNEL __device__ static inline
#else
  #define ATS_KERNEL static inline
#endif

/* true for infinities and NaN */
ATS_KERNEL int ATSNotFinite(PetscScalar d)
{
  PetscScalar z = d - d;
  return z != z;
}

/* entry p of M, in row r: its value, times scale[r] scale[c] when M is read scaled (the same product as a scaled copy's) */
ATS_KERNEL PetscScalar ATSCSREntry(const ATSCSR *M, PetscInt r, PetscInt p)
{
  return M->scale ? M->a[p] * (M->scale[r] * M->scale[M->j[p]]) : M->a[p];
}

/* value of row r of M at column c (0 if absent) */
ATS_KERNEL PetscScalar ATSCSRValue(const ATSCSR *M, PetscInt r, PetscInt c)
{
  PetscInt lo = M->i[r], hi = M->i[r + 1] - 1;

  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (M->j[mid] == c) return ATSCSREntry(M, r, mid);
    if (M->j[mid] < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/*
  Algorithm 5 for one row r of X (CSR, diagonal last), in place, which is row r of L (Y = U^T, B = A) or column r
  of U (X = U^T, Y = L, B = A^T): for the entries j of the row in ascending order
      x_rj = (b_rj - sum_{k < j, k in row r of X} x_rk y_jk) / y_jj,
  where b_rj is B's entry or, with Rrhs and no entry of B, the residual's (USE_RESIDUAL_RHS), and y_jk is Y's entry or,
  with Rlhs and no entry of Y, the residual's (USE_RESIDUAL_LHS: Rlhs is R^T for rows of L, R for columns of U). The sum is the
  merge of the row with row j of Y, i.e. the non-contiguous submatrix of the ATS-ILU paper, Fig. 3.1. xold holds the values
  read in the sum: xold = xnew is the ATS solve (the new values of the row), xold != xnew is the Jacobi update of
  ParILU (previous values); skipdiag keeps the diagonal (ParILU's unit L). Returns 0, or on a zero (or not finite)
  pivot y_jj, the row of that pivot plus 1: j + 1.
*/
ATS_KERNEL PetscInt ATSFactorRowSweep(PetscInt r, const PetscInt *xi, const PetscInt *xj, const PetscScalar *xold, PetscScalar *xnew, const ATSCSR *Y, const ATSCSR *B, const ATSCSR *Rrhs, const ATSCSR *Rlhs, PetscBool skipdiag)
{
  PetscInt pb = B->i[r], pbend = B->i[r + 1], pr = Rrhs ? Rrhs->i[r] : 0, prend = Rrhs ? Rrhs->i[r + 1] : 0;

  for (PetscInt p = xi[r]; p < xi[r + 1]; p++) {
    PetscInt    j = xj[p], q = xi[r], t = Y->i[j], tend = Y->i[j + 1] - 1;
    PetscScalar s = 0, d;

    if (skipdiag && j == r) continue;
    while (pb < pbend && B->j[pb] < j) pb++;
    if (pb < pbend && B->j[pb] == j) s = ATSCSREntry(B, r, pb);
    else if (Rrhs) {
      while (pr < prend && Rrhs->j[pr] < j) pr++;
      if (pr < prend && Rrhs->j[pr] == j) s = Rrhs->a[pr];
    }
    if (tend < t || Y->j[tend] != j) return j + 1;
    if (Rlhs) { /* USE_RESIDUAL_LHS: y_jk, or the residual's entry (j, k) where Y has none */
      PetscInt w = Rlhs->i[j], wend = Rlhs->i[j + 1];

      for (; q < p; q++) {
        PetscInt k = xj[q];

        while (t < tend && Y->j[t] < k) t++;
        if (t < tend && Y->j[t] == k) s -= xold[q] * Y->a[t];
        else {
          while (w < wend && Rlhs->j[w] < k) w++;
          if (w < wend && Rlhs->j[w] == k) s -= xold[q] * Rlhs->a[w];
        }
      }
    }
    while (q < p && t < tend) {
      PetscInt kq = xj[q], kt = Y->j[t];

      if (kq == kt) {
        s -= xold[q] * Y->a[t];
        q++;
        t++;
      } else if (kq < kt) q++;
      else t++;
    }
    d = Y->a[tend];
    if (d == 0.0 || ATSNotFinite(d)) return j + 1;
    xnew[p] = s / d;
  }
  return 0;
}

/* (LU)_ij as the merge of row i of L and row j of U^T */
ATS_KERNEL PetscScalar LUEntry(const ATSCSR *L, const ATSCSR *Ut, PetscInt i, PetscInt j)
{
  PetscInt    q = L->i[i], qend = L->i[i + 1], t = Ut->i[j], tend = Ut->i[j + 1];
  PetscScalar s = 0;

  while (q < qend && t < tend) {
    if (L->j[q] == Ut->j[t]) s += L->a[q++] * Ut->a[t++];
    else if (L->j[q] < Ut->j[t]) q++;
    else t++;
  }
  return s;
}

/* ||row r of (A - LU)||^2 over the pattern of row r of L and of column r of U (strictly above the diagonal) */
ATS_KERNEL PetscReal ResidualRow(PetscInt r, const ATSCSR *A, const ATSCSR *At, const ATSCSR *L, const ATSCSR *Ut)
{
  PetscReal s  = 0;
  PetscInt  pa = A->i[r], paend = A->i[r + 1], pt = At->i[r], ptend = At->i[r + 1];

  for (PetscInt p = L->i[r]; p < L->i[r + 1]; p++) { /* l_rj, j <= r, ascending: a pointer walks row r of A */
    PetscScalar e;

    while (pa < paend && A->j[pa] < L->j[p]) pa++;
    e = (pa < paend && A->j[pa] == L->j[p] ? ATSCSREntry(A, r, pa) : 0) - LUEntry(L, Ut, r, L->j[p]);
    s += e * e;
  }
  for (PetscInt p = Ut->i[r]; p < Ut->i[r + 1] - 1; p++) { /* u_ir, i < r, ascending: row r of A^T */
    PetscScalar e;

    while (pt < ptend && At->j[pt] < Ut->j[p]) pt++;
    e = (pt < ptend && At->j[pt] == Ut->j[p] ? ATSCSREntry(At, r, pt) : 0) - LUEntry(L, Ut, Ut->j[p], r);
    s += e * e;
  }
  return s;
}

#endif
