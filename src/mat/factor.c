/*
   The factor matrix of petscgilu's MatSolverTypes (gilu, structilu) as MatGetFactor() returns it, before its symbolic
   factorization: one place for what PETSc's factor interface expects of such a matrix.
*/
#include <petsc/private/matimpl.h>
#include <petscgilu/private/giluimpl.h>

/* the solver type this factor was made by (its name, kept in the matrix) */
static PetscErrorCode MatFactorGetSolverType_GILU_Any(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = F->solvertype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUMatCreateFactor - F: a factor of type ftype of A for the solver type solver, with A's layout and block sizes,
  the type name tname (what -ksp_view prints), the implementation's data (freed by its destroy op) and natural
  preferred orderings (these solver types factor in the ordering they are given, or refuse another); the caller sets
  the symbolic, info, view and destroy ops
*/
PetscErrorCode GILUMatCreateFactor(Mat A, MatFactorType ftype, MatSolverType solver, const char tname[], void *data, Mat *F)
{
  Mat      B;
  PetscInt m, n, M, N;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, m, n, M, N));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  B->data = data;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, tname));
  B->factortype     = ftype;
  B->canuseordering = PETSC_TRUE;
  B->preallocated   = PETSC_TRUE;
  B->assembled      = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ILU]));
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ICC]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(solver, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_GILU_Any));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
