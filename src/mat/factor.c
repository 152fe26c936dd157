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

/* MatMatSolve(Transpose)() by the delegate's; in place (X = B, which gilu's and structilu's own solves take) on a copy
   of B, since PETSc's column-by-column MatMatSolve() takes a column of B and of X at once (an error when they are the
   same matrix) and its native block solves may refuse X = B */
static PetscErrorCode MatMatSolve_Delegate_Private(Mat B, Mat Bm, Mat X, PetscBool transpose)
{
  Mat F, C = Bm;

  PetscFunctionBegin;
  PetscCall(GILUMatFactorGetDelegate(B, &F));
  if (X == Bm) PetscCall(MatDuplicate(Bm, MAT_COPY_VALUES, &C));
  if (transpose) PetscCall(MatMatSolveTranspose(F, C, X));
  else PetscCall(MatMatSolve(F, C, X));
  if (C != Bm) PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_Delegate(Mat B, Mat Bm, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_Delegate_Private(B, Bm, X, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolveTranspose_Delegate(Mat B, Mat Bm, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_Delegate_Private(B, Bm, X, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUMatFactorSetDelegate - F's solves (MatSolve(), MatSolveTranspose(), MatMatSolve(), MatMatSolveTranspose(), the
  halves of a Cholesky factor) serve B from now on, its factor error is B's; MatSolve(Transpose)Add() go through them.
  F NULL: none any more (the caller sets B's own solve ops again).
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
  B->ops->matsolve               = MatMatSolve_Delegate;
  B->ops->matsolvetranspose      = MatMatSolveTranspose_Delegate;
  PetscFunctionReturn(PETSC_SUCCESS);
}
