static char help[] = "MATSTENCILGPU on a process that owns no grid points, self-checking: prints nothing when right.\n\
  -M <m>, -N <n> : grid points of the 2D DMDA (default 6 x 5)\n\
  -dof <d>       : unknowns per grid point (default 3)\n\
  -lx0 <k>       : grid points in x of process 0 (default 0: it owns no rows)\n\
  -transpose 0   : KSPSolve() only (default 1: also KSPSolveTranspose())\n\
  -matmatsolve_inplace : with -pc_type bjacobi and a factor sub-PC (ilu, icc), also MatMatSolve(F, C, C) of each\n\
                   process's factor on 3 columns (none on the process without rows), each column bitwise MatSolve()'s\n\
                   (MatSolverType structilu's; PETSc's own in-place MatMatSolve() differs from its MatSolve() in the last bits)\n\
A DMDA gives a process no points only with stencil width 0 (a wider stencil needs every partitioned direction\n\
to be at least as wide on each process), so the matrix couples the DoF of each point only. The same values go\n\
into -dm_mat_type aij and stencilgpu matrices of one DMDA, process 0 adding a part of the first row of the next\n\
process (off-process values); KSPSolve() and KSPSolveTranspose() with the KSP and PC of the options must give\n\
both the same iterations and solutions (relative difference at most -tol, default 1e-12).\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

static PetscBool inplace = PETSC_FALSE; /* -matmatsolve_inplace */

static PetscErrorCode Assemble(DM da, MatType type, Mat *A)
{
  DMDALocalInfo info;
  PetscInt      dof;
  PetscMPIInt   rank, size;
  PetscScalar  *v;
  MatStencil    row;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(DMSetMatType(da, type));
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetLocalInfo(da, &info));
  dof = info.dof;
  PetscCall(PetscMalloc1(dof * dof, &v));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      const PetscInt p = j * info.mx + i;

      row.i = i;
      row.j = j;
      for (PetscInt a = 0; a < dof; a++)
        for (PetscInt b = 0; b < dof; b++) v[a * dof + b] = a == b ? 4.0 + 0.1 * (p % 7) : 0.3 * (a - b + 0.5) / dof * (1.0 + 0.05 * (p % 3));
      PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, 1, &row, v, ADD_VALUES));
    }
  if (rank == 0 && size > 1) { /* a part of a row of process 1 (its first point, in PETSc's global numbering: process 0 has
                                  lx[0] x N points), which process 0 cannot name in its local numbering (no ghost points) */
    const PetscInt *lx;
    PetscInt        g;

    PetscCall(DMDAGetOwnershipRanges(da, &lx, NULL, NULL));
    g = lx[0] * info.my;
    for (PetscInt t = 0; t < dof * dof; t++) v[t] = t % (dof + 1) == 0 ? 0.25 : 0.0;
    PetscCall(MatSetValuesBlocked(*A, 1, &g, 1, &g, v, ADD_VALUES));
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -matmatsolve_inplace: MatMatSolve(F, C, C) of this process's block Jacobi factor on 3 columns (a factor of no rows on
   the process that owns none) against MatSolve() of each column, bitwise */
static PetscErrorCode CheckInPlace(KSP ksp)
{
  KSP         *sub;
  PC           pc, spc;
  Mat          F, C, C0;
  Vec          s;
  PetscInt     n, m;
  PetscBool    isbj, isf;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &isbj));
  PetscCheck(isbj, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-matmatsolve_inplace needs -pc_type bjacobi");
  PetscCall(PCBJacobiGetSubKSP(pc, &n, NULL, &sub));
  PetscCall(KSPGetPC(sub[0], &spc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)spc, &isf, PCILU, PCICC, ""));
  PetscCheck(isf, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-matmatsolve_inplace needs -sub_pc_type ilu or icc");
  PetscCall(PCFactorGetMatrix(spc, &F));
  PetscCall(MatGetLocalSize(F, &m, NULL));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, m, 3, NULL, &C));
  PetscCall(MatDenseGetArray(C, &a));
  for (PetscInt i = 0; i < 3 * m; i++) a[i] = 1.0 + 0.1 * (i % 11) - 0.01 * i;
  PetscCall(MatDenseRestoreArray(C, &a));
  PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &C0)); /* the right-hand sides, for the column solves */
  PetscCall(MatCreateVecs(F, NULL, &s));
  PetscCall(MatMatSolve(F, C, C));
  PetscCall(MatDenseGetArray(C, &a));
  for (PetscInt j = 0; j < 3; j++) {
    Vec                c;
    const PetscScalar *sa;
    PetscInt           bad = 0;

    PetscCall(MatDenseGetColumnVecRead(C0, j, &c));
    PetscCall(MatSolve(F, c, s));
    PetscCall(MatDenseRestoreColumnVecRead(C0, j, &c));
    PetscCall(VecGetArrayRead(s, &sa));
    for (PetscInt i = 0; i < m; i++) bad += a[j * m + i] != sa[i];
    PetscCall(VecRestoreArrayRead(s, &sa));
    if (bad) PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatMatSolve(F, C, C): %" PetscInt_FMT " of %" PetscInt_FMT " entries of column %" PetscInt_FMT " differ from MatSolve()'s\n", bad, m, j));
  }
  PetscCall(MatDenseRestoreArray(C, &a));
  PetscCall(VecDestroy(&s));
  PetscCall(MatDestroy(&C0));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPSolve() or KSPSolveTranspose() with the options' KSP and PC: iterations and solution */
static PetscErrorCode Solve(DM da, Mat A, Vec b, PetscBool transpose, PetscInt *its, Vec x)
{
  KSP                ksp;
  KSPConvergedReason reason;
  MatType            type;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 100));
  PetscCall(KSPSetFromOptions(ksp));
  if (transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatGetType(A, &type));
  if (reason <= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s on %s: %s\n", transpose ? "KSPSolveTranspose" : "KSPSolve", type, KSPConvergedReasons[reason]));
  if (inplace) PetscCall(CheckInPlace(ksp));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          da;
  Mat         A, S;
  Vec         b, x, y, r;
  PetscInt    M = 6, N = 5, dof = 3, lx0 = 0, *lx;
  PetscReal   tol = 1e-12;
  PetscMPIInt size;
  PetscBool   isg, transpose = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-M", &M, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-N", &N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-lx0", &lx0, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-transpose", &transpose, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-matmatsolve_inplace", &inplace, NULL));
  PetscCheck(size == 1 || (lx0 >= 0 && M - lx0 >= size - 1), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-lx0 %" PetscInt_FMT " leaves fewer than one point per other process", lx0);
  PetscCall(PetscMalloc1(size, &lx));
  lx[0] = size == 1 ? M : lx0;
  for (PetscMPIInt q = 1; q < size; q++) lx[q] = (M - lx0) / (size - 1) + (q - 1 < (M - lx0) % (size - 1));
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, M, N, size, 1, dof, 0, lx, NULL, &da));
  PetscCall(PetscFree(lx));
  PetscCall(DMSetUp(da));
  PetscCall(Assemble(da, MATAIJ, &A));
  PetscCall(Assemble(da, MATSTENCILGPU, &S));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATMPISTENCILGPU, &isg));
  if (!isg) PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQSTENCILGPU, &isg));
  PetscCheck(isg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMCreateMatrix() did not give a stencilgpu matrix");
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &r));
  { /* the two matrices are equal */
    PetscReal nrm, diff;

    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(A, x, b));
    PetscCall(MatMult(S, x, y));
    PetscCall(VecNorm(b, NORM_2, &nrm));
    PetscCall(VecAXPY(y, -1.0, b));
    PetscCall(VecNorm(y, NORM_2, &diff));
    if (diff > tol * nrm) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult of stencilgpu differs from aij: relative difference %g\n", (double)(diff / nrm)));
  }
  for (PetscInt t = 0; t < 1 + transpose; t++) {
    PetscInt  ita, its;
    PetscReal nrm, diff;

    PetscCall(Solve(da, A, b, (PetscBool)t, &ita, x));
    PetscCall(Solve(da, S, b, (PetscBool)t, &its, y));
    PetscCall(VecNorm(x, NORM_2, &nrm));
    PetscCall(VecAXPY(y, -1.0, x));
    PetscCall(VecNorm(y, NORM_2, &diff));
    if (ita != its || diff > tol * nrm)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: aij %" PetscInt_FMT " iterations, stencilgpu %" PetscInt_FMT ", relative difference of the solutions %g\n", t ? "KSPSolveTranspose" : "KSPSolve", ita, its, (double)(diff / nrm)));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
      nsize: 2
      output_file: output/empty.out
      args: -malloc_dump
      test:
         suffix: bjacobi
         args: -pc_type bjacobi -sub_pc_type {{ilu icc structilu jacobi}} -ksp_type {{gmres bicg}}
      test:
         suffix: structilu
         args: -pc_type structilu -ksp_type {{gmres bicg}}
      test:
         # every event of a parallel object synchronizes its processes under -log_sync (PETSc's harness turns it on
         # with -petsc_ci since 3.19): a process that owns nothing must not skip one (it hung the others)
         suffix: log_sync
         args: -pc_type structilu -log_sync -log_view :/dev/null -transpose {{0 1}}
      test:
         suffix: asm
         args: -pc_type asm -sub_pc_type ilu
      test:
         suffix: jacobi
         args: -pc_type {{jacobi pbjacobi}} -ksp_type gmres
      test:
         suffix: sor
         args: -pc_type sor -transpose 0
      test:
         # the global factors are collective: a process without rows is an error on every process (before: the
         # others waited for it in the pipeline's setup, a hang)
         suffix: distributed_empty
         args: -pc_type {{structilu ilu}separate output} -pc_structilu_distributed -pc_factor_mat_solver_type structilu
         output_file: output/ex14_distributed_empty.out
         filter: Error: grep -o "The global structured-grid factors need rows on every process, and process 0 owns none"
      test:
         # MatMatSolve(F, C, C) in place of each process's factor of MatSolverType structilu (the one of process 0 has no
         # rows), each column bitwise MatSolve()'s (PETSc's own factor differs in the last bits: not checked)
         suffix: matmatsolve_inplace
         args: -pc_type bjacobi -sub_pc_type {{ilu icc}} -sub_pc_factor_mat_solver_type structilu -matmatsolve_inplace -transpose 0
      test:
         suffix: np3
         nsize: 3
         args: -pc_type bjacobi -sub_pc_type ilu -M 7

TEST*/
