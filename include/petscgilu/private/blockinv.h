/* The inverse of a pivot block as PETSc's BAIJ factorizations compute it, bit for bit. */
#ifndef PETSCGILU_BLOCKINV_H
#define PETSCGILU_BLOCKINV_H

#include <petscsys.h>
#include <petscgilu/private/stencil.h>

/*
   GILUBlockInvertLINPACK - a <- a^{-1} for a column-major bs x bs block (bs <= GILU_MAX_DOF) by LINPACK's dgefa
   (Gaussian elimination with partial pivoting, the multipliers negated) followed by dgedi's inverse (inverse(U),
   then inverse(U) times inverse(L) with the column interchanges undone), in LINPACK's order of operations.

   PETSc's BAIJ LU/ILU inverts its pivot blocks this way (PetscKernel_A_gets_inverse_A_<bs>, LINPACK specialized per
   size), with one addition kept here: when shift is nonzero it is scaled by the block's diagonal, (0.25 (0.333 for
   bs 3) shift) (1e-12 + |a_00| + |a_11| + ...), and a zero pivot of the first bs-1 columns is replaced by it (the last
   one never is). So a factor that inverts its blocks here holds PETSc's bits. PETSc 3.24 made those kernels internal
   to its library (hidden from plugins); this is the project's own implementation of the published algorithm.

   A zero pivot that no shift replaces sets *zero and the inverse then holds Inf/NaN, as PETSc's does: the caller
   decides whether that is an error (the row to name is the caller's).
*/
static inline void GILUBlockInvertLINPACK(PetscInt bs, MatScalar *a, PetscReal shift, PetscBool *zero)
{
  PetscInt  ipvt[GILU_MAX_DOF];
  MatScalar work[GILU_MAX_DOF];

#define A_(i, j) a[(i) + bs * (j)]
  MatReal s = 1.e-12;

  *zero = PETSC_FALSE;
  for (PetscInt k = 0; k < bs; k++) s += PetscAbsScalar(A_(k, k));
  shift = (bs == 3 ? .333 : .25) * shift * s; /* (a NaN/Inf diagonal makes it NaN, as PETSc's) */
  /* dgefa: for each column k, the pivot l (the first of the largest magnitudes), the interchange, the multipliers
     scaled by -1/pivot, and the update of the columns to its right */
  for (PetscInt k = 0; k < bs - 1; k++) {
    PetscInt  l   = k;
    MatReal   max = PetscAbsScalar(A_(k, k));
    MatScalar t;

    for (PetscInt i = k + 1; i < bs; i++) {
      MatReal v = PetscAbsScalar(A_(i, k));

      if (v > max) {
        max = v;
        l   = i;
      }
    }
    ipvt[k] = l;
    if (A_(l, k) == 0.0) {
      if (shift == 0.0) *zero = PETSC_TRUE;
      else A_(l, k) = shift;
    }
    if (l != k) {
      t        = A_(l, k);
      A_(l, k) = A_(k, k);
      A_(k, k) = t;
    }
    t = -1. / A_(k, k);
    for (PetscInt i = k + 1; i < bs; i++) A_(i, k) *= t;
    for (PetscInt j = k + 1; j < bs; j++) {
      t = A_(l, j);
      if (l != k) {
        A_(l, j) = A_(k, j);
        A_(k, j) = t;
      }
      for (PetscInt i = k + 1; i < bs; i++) A_(i, j) += t * A_(i, k);
    }
  }
  ipvt[bs - 1] = bs - 1;
  if (A_(bs - 1, bs - 1) == 0.0) *zero = PETSC_TRUE;
  /* dgedi: inverse(U) in place */
  for (PetscInt k = 0; k < bs; k++) {
    MatScalar t;

    A_(k, k) = 1.0 / A_(k, k);
    t        = -A_(k, k);
    for (PetscInt i = 0; i < k; i++) A_(i, k) *= t;
    for (PetscInt j = k + 1; j < bs; j++) {
      t        = A_(k, j);
      A_(k, j) = 0.0;
      for (PetscInt i = 0; i <= k; i++) A_(i, j) += t * A_(i, k);
    }
  }
  /* dgedi: inverse(U) inverse(L), the columns interchanged back in reverse order */
  for (PetscInt k = bs - 2; k >= 0; k--) {
    const PetscInt l = ipvt[k];

    for (PetscInt i = k + 1; i < bs; i++) {
      work[i]  = A_(i, k);
      A_(i, k) = 0.0;
    }
    for (PetscInt j = k + 1; j < bs; j++) {
      const MatScalar t = work[j];

      for (PetscInt i = 0; i < bs; i++) A_(i, k) += t * A_(i, j);
    }
    if (l != k)
      for (PetscInt i = 0; i < bs; i++) {
        const MatScalar t = A_(i, k);

        A_(i, k) = A_(i, l);
        A_(i, l) = t;
      }
  }
#undef A_
}

#endif
