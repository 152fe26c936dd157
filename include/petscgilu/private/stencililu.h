/*
   stencililu.h: the structured-grid ILU(k) / IC(k) of a stencil matrix on the host (developer level): the symbolic
   factorization, the in-place numeric factorization and the triangular solves of the StructILU paper's algorithms, in
   src/mat/stencil/ilu.c (kernels for DoF 1..8 in ilu-kernels.h). Below their user, PCSTRUCTILU
   (src/pc/structilu), whose context is also MatSolverType structilu's factor (structilu-factor.c there).
*/
#ifndef PETSCGILU_STENCILILU_H
#define PETSCGILU_STENCILILU_H

#include <petscgilu/private/stencil.h>

/* What the solves read: the factors in double or float, both triangles (ILU) or the upper one (IC) */
typedef struct {
  PetscBool       ic, single, owned;  /* owned: lval, uval, dinv are copies */
  PetscBool       dilu;               /* only the diagonal changed (StructILUFactorDiagonal_Host()): lval, uval are the matrix's blocks, L = A_lower D^{-1} */
  void           *lval, *uval, *dinv; /* lower blocks (ILU), upper blocks, inverted diagonal blocks; stencil-major */
  const PetscInt *mirror;             /* IC: index of the offset -s */
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
/*
  When ILU(0) of the stencil changes only the diagonal blocks (a star stencil: the product of a
  lower and an upper offset lands in the stencil only on the diagonal), the factors are
  L = A_lower D^{-1} (unit block diagonal) and U = D + A_upper, D the modified diagonal:
  StructILUStencilIsDILU() says whether that holds, StructILUFactorDiagonal_Host() computes D
  (into diag, when not NULL) and its inverse blocks, the same values as StructILUFactor_Host()
  bitwise, and leaves sm->val (the matrix) as it is.
*/
PETSC_INTERN PetscBool      StructILUStencilIsDILU(const GILUStencil *, const PetscInt *);
PETSC_INTERN PetscErrorCode StructILUFactorDiagonal_Host(GILUStencilMat *, const PetscInt *, PetscReal, PetscScalar *, PetscScalar *, PetscInt *);
PETSC_INTERN PetscErrorCode StructILUFactorsStore_Host(GILUStencilMat *, PetscScalar *, const PetscInt *, PetscBool, PetscBool, StructILUFactors *, PetscInt *);
PETSC_INTERN PetscErrorCode StructILUFactorsReset_Host(StructILUFactors *);
PETSC_INTERN PetscErrorCode GILUStencilGetMirror(const GILUStencil *, PetscInt **);
/* what the factorization of sm needs besides its structure: the elimination table, IC's mirror offsets, the hyperplanes, room for the inverted diagonal blocks */
PETSC_INTERN PetscErrorCode StructILUSymbolicFinish(GILUStencilMat *, PetscBool, PetscInt **, PetscInt **, PetscInt[3], PetscInt *, PetscScalar **);
PETSC_INTERN PetscErrorCode GILUStencilFindUnmirrored(const GILUStencil *, PetscInt *);
/* the symbolic factorization of a stencil matrix (PCSTRUCTILU's of a MATSTENCILGPU, and MATSEQSTENCILGPU's MatGetFactor()) */

/* x = (L (D + U))^{-1} b (IC: ((D + U)^T D^{-1} (D + U))^{-1} b): forward then backward substitution (Algorithm 2) */
PETSC_INTERN PetscErrorCode StructILUSolve_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *);
/* the columns of a group of StructILUSolveMultiple_Host() for a block of m */
PETSC_INTERN PetscInt StructILUSolveMultipleGroup(const GILUStencilMat *, const StructILUFactors *, PetscInt);
/* m columns (leading dimensions ldb, ldx; x not b, or b itself with ldx ldb), each tile of the sweeps on the columns of a group in turn (PCMatApply()); the group's size out */
PETSC_INTERN PetscErrorCode StructILUSolveMultiple_Host(GILUStencilMat *, const StructILUFactors *, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt, PetscInt *);
/* x = (L (D + U))^{-T} b: (D + U)^T y = b, then L^T x = y (blocks transposed); sequential, natural order */
PETSC_INTERN PetscErrorCode StructILUSolveTranspose_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *);

/* IC: the halves of the symmetric split M = S^T S (PCApplySymmetricLeft(): x = S^{-T} b; right: x = S^{-1} b), R the upper
   Cholesky factors of the inverted diagonal blocks (StructILUSymmetricSplit_Host(), dof x dof per point) */
PETSC_INTERN PetscErrorCode StructILUSymmetricSplit_Host(GILUStencilMat *, const StructILUFactors *, PetscScalar *, PetscInt *);
PETSC_INTERN PetscErrorCode StructILUSolveSymmetric_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscBool, const PetscScalar *, PetscScalar *);

/*
  The Eisenstat trick for DILU factors M = (D + L_A) D^{-1} (D + U_A), A = L_A + D_A + U_A (ilu.c):
  the split-preconditioned operator Ahat = (D + L_A)^{-1} A (D + U_A)^{-1} applied with two sweeps,
    t = (D + U_A)^{-1} x,  y = t + (D + L_A)^{-1} (x + (D_A - 2 D) t),
  E = D_A - 2 D stored; the right-hand side's forward sweep, the solution's backward sweep and (D + U_A) x.
*/
PETSC_INTERN PetscErrorCode StructILUEisenstatMult_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *);
/* z = (D + L_A)^{-1} b (y: room for the sweep's y = D z); x = (D + U_A)^{-1} b (b may be x); y = (D + U_A) x */
PETSC_INTERN PetscErrorCode StructILUSolveLower_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode StructILUSolveUpper_Host(GILUStencilMat *, const StructILUFactors *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode StructILUMultUpper_Host(GILUStencilMat *, const PetscScalar *, const PetscScalar *, PetscScalar *);
/* y = D x for the blocks D of one vector (the modified diagonal), on the schedule's threads */
PETSC_INTERN PetscErrorCode StructILUBlockDiagonalMult_Host(GILUStencilMat *, const PetscScalar *, const PetscScalar *, PetscScalar *);

#endif
