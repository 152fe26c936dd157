/* Private to src/pc/structilu: the host kernels of PCSTRUCTILU */
#ifndef PETSCGILU_STRUCTILU_H
#define PETSCGILU_STRUCTILU_H

#include <petscgilu/private/stencil.h>

/* What the solves read: the factors in double or float, both triangles (ILU) or the upper one (IC) */
typedef struct {
  PetscBool       ic, single, owned;  /* owned: lval, uval, dinv are copies */
  void           *lval, *uval, *dinv; /* lower blocks (ILU), upper blocks, inverted diagonal blocks; stencil-major */
  const PetscInt *mirror;             /* IC: index of the offset -s */
  PetscScalar    *work;               /* IC: D^{-1} y of the forward sweep */
  size_t          bytes;              /* memory of the stored factors */
  PetscInt        noffsets;           /* offsets whose blocks are stored (besides the inverted diagonal) */
} StructILUFactors;

/*
  In-place ILU(0) of a stencil matrix (Algorithm 1 of the StructILU paper), or incomplete
  Cholesky when mirror (the index of each offset's opposite) is given: on return the lower
  blocks hold L (unit block diagonal implied; IC: not needed), the diagonal and upper blocks
  hold D + U, and dinv the inverted diagonal blocks. *zerorow is the first row whose pivot
  is at most zeropivot in absolute value (its dinv block is set to zero), or -1. Runs on
  the host threads with the schedule of the stencil matrix.
*/
PETSC_INTERN PetscErrorCode StructILUFactor_Host(GILUStencilMat *, const PetscInt *, const PetscInt *, PetscReal, PetscScalar *, PetscInt *);
PETSC_INTERN PetscErrorCode StructILUFactorsStore_Host(GILUStencilMat *, PetscScalar *, const PetscInt *, PetscBool, StructILUFactors *);
PETSC_INTERN PetscErrorCode StructILUFactorsReset_Host(StructILUFactors *);
PETSC_INTERN PetscErrorCode GILUStencilGetMirror(const GILUStencil *, PetscInt **);
/* structilu.c: the symbolic factorization of a MATSTENCILGPU's stencil matrix (also used by its MatGetFactor()) */
PETSC_INTERN PetscErrorCode StructILUSymbolicStencil(const GILUStencilMat *, PetscInt, PetscBool, GILUStencilMat *, char[], size_t, PetscInt **, PetscInt **, PetscInt[3], PetscInt *, PetscScalar **);

/* x = (L (D + U))^{-1} b (IC: ((D + U)^T D^{-1} (D + U))^{-1} b): forward then backward substitution (Algorithm 2) */
PETSC_INTERN PetscErrorCode StructILUSolve_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *);
/* x = (L (D + U))^{-T} b: (D + U)^T y = b, then L^T x = y (blocks transposed); sequential, natural order */
PETSC_INTERN PetscErrorCode StructILUSolveTranspose_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *);

#endif
