static char help[] = "Factors used through MatGetFactor() in API sequences a user may write: what each step must give.\n\
  -solver <name>  : MatSolverType (default structilu); the matrix type from -dm_mat_type\n\
  -dof <d>        : unknowns per grid point of the 2D DMDA (default 1)\n\
  -test numeric|matsolve :\n\
     numeric  : MatSolve(), MatSolveTranspose() and MatMatSolve() between the symbolic and the numeric factorization are\n\
                errors (their messages are printed), and after the numeric one they solve\n\
     matsolve : MatMatSolve(F, B, B), which PETSc allows for a dense B, equals MatMatSolve(F, B, X); MatMatSolve() into a\n\
                MATAIJ X is an error (printed) that leaves B usable\n\
Prints the errors' messages and any failure.\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

/* a nonsymmetric diagonally dominant 5-point operator with DoF couplings */
static PetscErrorCode Assemble(PetscInt dof, DM *da, Mat *A)
{
  DMDALocalInfo info;
  PetscScalar  *v;
  MatStencil    row, col;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 7, 6, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  PetscCall(PetscMalloc1(dof * dof, &v));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      const PetscInt di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};

      row.i = i;
      row.j = j;
      for (PetscInt t = 0; t < 5; t++) {
        col.i = i + di[t];
        col.j = j + dj[t];
        if (col.i < 0 || col.i >= info.mx || col.j < 0 || col.j >= info.my) continue;
        for (PetscInt a = 0; a < dof; a++)
          for (PetscInt b = 0; b < dof; b++) v[a * dof + b] = t ? (a == b ? -1.0 - 0.3 * (t % 2) : 0.0) : (a == b ? 6.0 + 0.1 * ((i + j) % 3) : 0.2 / (1 + a + 2 * b));
        PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, 1, &col, v, INSERT_VALUES));
      }
    }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an error handler that prints the first message of an error (no traceback: the output names no source line) */
static PetscErrorCode PrintMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) (void)PetscPrintf(PETSC_COMM_SELF, "  %s: error %d: %s\n", (const char *)ctx, (int)n, mess);
  return n;
}

/* the call must fail: its message is printed, or that it did not fail */
#define ExpectError(call) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PrintMessage, (void *)#call)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    if (!ierr_) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: no error\n", #call)); \
  } while (0)

static PetscErrorCode CompareDense(Mat X, Mat Y, const char what[])
{
  PetscReal nx, diff;
  Mat       D;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(X, MAT_COPY_VALUES, &D));
  PetscCall(MatAXPY(D, -1.0, Y, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &diff));
  PetscCall(MatNorm(X, NORM_FROBENIUS, &nx));
  if (diff > 0 || nx == 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: differs (%g of %g)\n", what, (double)diff, (double)nx));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM            da;
  Mat           A, F, B, X, Y;
  Vec           b, x;
  PetscInt      dof      = 1, n;
  char          test[16] = "numeric", solver[64] = MATSOLVERSTRUCTILU;
  MatFactorInfo info;
  IS            rperm, cperm;
  PetscRandom   rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-solver", solver, sizeof(solver), NULL));
  PetscCall(Assemble(dof, &da, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, 3, NULL, &B));
  PetscCall(MatSetRandom(B, rnd));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill = 1.0;
  PetscCall(MatGetFactor(A, solver, MAT_FACTOR_ILU, &F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &rperm, &cperm));
  PetscCall(MatILUFactorSymbolic(F, A, rperm, cperm, &info));
  if (!strcmp(test, "numeric")) { /* the factors come with the numeric factorization: nothing to solve with before it */
    ExpectError(MatSolve(F, b, x));
    ExpectError(MatSolveTranspose(F, b, x));
    ExpectError(MatMatSolve(F, B, X));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatSolve(F, b, x));
    PetscCall(MatSolveTranspose(F, b, x));
    PetscCall(MatMatSolve(F, B, X));
  } else { /* MatMatSolve(F, B, B) in place, and an error that leaves B as it was */
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatMatSolve(F, B, X));
    PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &Y));
    ExpectError(MatMatSolve(F, B, Y));
    PetscCall(MatDestroy(&Y));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &Y));
    PetscCall(MatMatSolve(F, Y, Y));
    PetscCall(CompareDense(Y, X, "MatMatSolve(F, B, B) against MatMatSolve(F, B, X)"));
    PetscCall(MatMatSolve(F, B, Y));
    PetscCall(CompareDense(Y, X, "MatMatSolve(F, B, X) after the error"));
    PetscCall(MatDestroy(&Y));
  }
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&X));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: numeric
      args: -test numeric -dm_mat_type {{aij baij stencilgpu}} -dof {{1 3}}

   test:
      suffix: matsolve
      args: -test matsolve -dm_mat_type {{aij baij stencilgpu}} -dof {{1 3}}

TEST*/
