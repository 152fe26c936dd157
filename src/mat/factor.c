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

/* A factor whose solves another factor does (gilu and structilu hand over to PETSc's ICC): the other is composed with it */
static PetscErrorCode GILUMatFactorGetDelegate(Mat B, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)B, "GILUMatFactorDelegate", (PetscObject *)F));
  PetscCheck(*F, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The factor has no delegate");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_Delegate(Mat B, Vec b, Vec x)
{
  Mat F;

  PetscFunctionBegin;
  PetscCall(GILUMatFactorGetDelegate(B, &F));
  PetscCall(MatSolve(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_Delegate(Mat B, Vec b, Vec x)
{
  Mat F;

  PetscFunctionBegin;
  PetscCall(GILUMatFactorGetDelegate(B, &F));
  PetscCall(MatSolveTranspose(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatForwardSolve_Delegate(Mat B, Vec b, Vec x)
{
  Mat F;

  PetscFunctionBegin;
  PetscCall(GILUMatFactorGetDelegate(B, &F));
  PetscCall(MatForwardSolve(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBackwardSolve_Delegate(Mat B, Vec b, Vec x)
{
  Mat F;

  PetscFunctionBegin;
  PetscCall(GILUMatFactorGetDelegate(B, &F));
  PetscCall(MatBackwardSolve(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUMatFactorSetDelegate - F's solves (MatSolve(), MatSolveTranspose(), the halves of a Cholesky factor) serve B from
  now on, its factor error is B's; MatSolve(Transpose)Add() and MatMatSolve() go through them (PETSc's column by column). F NULL:
  none any more (the caller sets B's own solve ops again).
*/
PetscErrorCode GILUMatFactorSetDelegate(Mat B, Mat F)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectCompose((PetscObject)B, "GILUMatFactorDelegate", (PetscObject)F));
  if (!F) PetscFunctionReturn(PETSC_SUCCESS);
  B->factorerrortype             = F->factorerrortype;
  B->factorerror_zeropivot_value = F->factorerror_zeropivot_value;
  B->factorerror_zeropivot_row   = F->factorerror_zeropivot_row;
  B->ops->solve                  = MatSolve_Delegate;
  B->ops->solvetranspose         = MatSolveTranspose_Delegate;
  B->ops->forwardsolve           = MatForwardSolve_Delegate;
  B->ops->backwardsolve          = MatBackwardSolve_Delegate;
  B->ops->solveadd               = NULL;
  B->ops->solvetransposeadd      = NULL;
  B->ops->matsolve               = NULL;
  B->ops->matsolvetranspose      = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
