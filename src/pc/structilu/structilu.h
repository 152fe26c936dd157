/* Private to src/pc/structilu: the host kernels of PCSTRUCTILU */
#ifndef PETSCGILU_STRUCTILU_H
#define PETSCGILU_STRUCTILU_H

#include <petscgilu/private/stencil.h>

/*
  In-place ILU(0) of a stencil matrix in natural order (Algorithm 1 of the StructILU paper):
  on return the lower blocks hold L (unit block diagonal implied), the diagonal and upper
  blocks hold D + U, and dinv the inverted diagonal blocks. *zerorow is the first row
  whose pivot is at most zeropivot in absolute value (the factorization stops there), or -1.
*/
PETSC_INTERN PetscErrorCode StructILUFactor_Host(GILUStencilMat *, const PetscInt *, PetscReal, PetscScalar *, PetscInt *);

/* x = (L (D + U))^{-1} b: forward then backward substitution (Algorithm 2); b and x may be equal */
PETSC_INTERN PetscErrorCode StructILUSolve_Host(const GILUStencilMat *, const PetscScalar *, const PetscScalar *, PetscScalar *);

#endif
