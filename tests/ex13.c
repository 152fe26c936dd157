static char help[] = "Transposed solves of petscgilu's factors and preconditioners, self-checking: prints nothing when right.\n\
  -n <n>          : grid points per direction of the 3D DMDA (default 6)\n\
  -dof <d>        : unknowns per grid point (default 1)\n\
  -box            : 27-point stencil (default 7-point)\n\
  -sym            : a symmetric matrix (for ICC); default a nonsymmetric convection-diffusion-like one\n\
  -test factor|pc : MatSolveTranspose() of the factor MatGetFactor(A, -solver, -ftype) with -levels, or PCApplyTranspose()\n\
                    of the PC set up from the options (-pc_type ...); the matrix type from -dm_mat_type\n\
  -solver <name>  : MatSolverType of -test factor (default structilu)\n\
  -ftype ilu|icc  : factorization of -test factor (default ilu)\n\
  -levels <k>     : levels of fill of -test factor (default 0)\n\
  -compare_petsc  : -test factor also compares with MatSolveTranspose() of PETSc's own factor of the same matrix in AIJ\n\
                    (DoF 1) or BAIJ format (relative difference at most -tol_petsc, default 1e-10); not for ICC(k>0)\n\
                    with DoF > 1 (PETSc's BAIJ ICC(k) and the block IC(k) measured 1.8e-2 apart there)\n\
  -tol <t>        : tolerance of the adjoint identity (default 1e-12)\n\
Checks the adjoint identity <w, M^{-1} b> = <M^{-T} w, b> for random b and w, and that M^{-T} differs from M^{-1}\n\
(the matrix is nonsymmetric unless -sym): the wrong answer of a factor that returns the forward solve fails it.\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

static PetscErrorCode Assemble(PetscInt n, PetscInt dof, PetscBool box, PetscBool sym, DM *da, Mat *A)
{
  DMDALocalInfo info;
  PetscScalar  *v;
  MatStencil    row, col;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  PetscCall(PetscMalloc1(dof * dof, &v));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        const PetscInt p = (k * n + j) * n + i;

        row.i = i;
        row.j = j;
        row.k = k;
        for (PetscInt dz = -1; dz <= 1; dz++)
          for (PetscInt dy = -1; dy <= 1; dy++)
            for (PetscInt dx = -1; dx <= 1; dx++) {
              const PetscInt l1 = PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz);

              if (!box && l1 > 1) continue;
              if (i + dx < 0 || i + dx >= n || j + dy < 0 || j + dy >= n || k + dz < 0 || k + dz >= n) continue;
              col.i = i + dx;
              col.j = j + dy;
              col.k = k + dz;
              for (PetscInt a = 0; a < dof; a++)
                for (PetscInt b = 0; b < dof; b++) {
                  if (l1 == 0) v[a * dof + b] = a == b ? (box ? 40.0 : 12.0) + (sym ? 0 : 0.01 * (p % 7)) : (sym ? 0.5 / (1 + a + b) : 0.3 * (a - b + 0.5) / dof);
                  else if (sym) v[a * dof + b] = -(a == b ? 1.0 : 0.1 / (1 + a + b));
                  else v[a * dof + b] = -(1.0 + 0.6 * dx + 0.4 * dy + 0.2 * dz) * (1.0 + 0.03 * (p % 5)) * (a == b ? 1.0 : 0.1 * (a + 1) / (b + 2));
                }
              PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, 1, &col, v, INSERT_VALUES));
            }
      }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |<w, Mb> - <Mtw, b>| <= tol |<w, Mb>| and, unless symmetric, Mtw differs from Mw */
static PetscErrorCode CheckAdjoint(const char what[], Vec b, Vec w, Vec Mb, Vec Mtw, Vec Mw, PetscBool sym, PetscReal tol)
{
  PetscScalar d1, d2;
  PetscReal   nrm, diff;

  PetscFunctionBeginUser;
  PetscCall(VecDot(Mb, w, &d1));
  PetscCall(VecDot(b, Mtw, &d2));
  if (PetscAbsScalar(d1 - d2) > tol * PetscAbsScalar(d1)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: adjoint identity fails: <w, M^-1 b> = %.15g, <M^-T w, b> = %.15g\n", what, (double)PetscRealPart(d1), (double)PetscRealPart(d2)));
  if (!sym) {
    PetscCall(VecNorm(Mtw, NORM_2, &nrm));
    PetscCall(VecAXPY(Mw, -1.0, Mtw));
    PetscCall(VecNorm(Mw, NORM_2, &diff));
    if (diff < 1e-6 * nrm) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: the transposed solve equals the solve (relative difference %g) on a nonsymmetric matrix\n", what, (double)(diff / nrm)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          da;
  Mat         A;
  Vec         b, w, Mb, Mtw, Mw;
  PetscInt    n = 6, dof = 1, levels = 0;
  PetscBool   box = PETSC_FALSE, sym = PETSC_FALSE, compare = PETSC_FALSE;
  PetscReal   tol = 1e-12, tolpetsc = 1e-10;
  char        test[16] = "factor", solver[64] = MATSOLVERSTRUCTILU, ftype[16] = "ilu";
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-levels", &levels, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-sym", &sym, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_petsc", &compare, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol_petsc", &tolpetsc, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-solver", solver, sizeof(solver), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ftype", ftype, sizeof(ftype), NULL));
  PetscCall(Assemble(n, dof, box, sym, &da, &A));
  PetscCall(MatCreateVecs(A, &b, &w));
  PetscCall(VecDuplicate(b, &Mb));
  PetscCall(VecDuplicate(b, &Mtw));
  PetscCall(VecDuplicate(b, &Mw));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(w, rnd));

  if (!strcmp(test, "factor")) {
    const PetscBool ic = (PetscBool)!strcmp(ftype, "icc");
    Mat             F;
    MatFactorInfo   info;
    IS              rperm = NULL, cperm = NULL;

    PetscCall(MatFactorInfoInitialize(&info));
    info.levels = (PetscReal)levels;
    info.fill   = 1.0;
    PetscCall(MatGetFactor(A, solver, ic ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, &F));
    PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &rperm, &cperm));
    if (ic) PetscCall(MatICCFactorSymbolic(F, A, rperm, &info));
    else PetscCall(MatILUFactorSymbolic(F, A, rperm, cperm, &info));
    PetscCall(ISDestroy(&rperm));
    PetscCall(ISDestroy(&cperm));
    if (ic) PetscCall(MatCholeskyFactorNumeric(F, A, &info));
    else PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatSolve(F, b, Mb));
    PetscCall(MatSolve(F, w, Mw));
    PetscCall(MatSolveTranspose(F, w, Mtw));
    PetscCall(CheckAdjoint("MatSolveTranspose", b, w, Mb, Mtw, Mw, sym, tol));
    if (compare) { /* PETSc's own factor of the same matrix: the same factors, so the same transposed solve */
      Mat       B, G;
      Vec       x;
      PetscReal nrm, diff;

      PetscCall(MatConvert(A, dof > 1 ? MATSEQBAIJ : MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatGetFactor(B, MATSOLVERPETSC, ic ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, &G));
      PetscCall(MatGetOrdering(B, MATORDERINGNATURAL, &rperm, &cperm));
      if (ic) PetscCall(MatICCFactorSymbolic(G, B, rperm, &info));
      else PetscCall(MatILUFactorSymbolic(G, B, rperm, cperm, &info));
      if (ic) PetscCall(MatCholeskyFactorNumeric(G, B, &info));
      else PetscCall(MatLUFactorNumeric(G, B, &info));
      PetscCall(VecDuplicate(b, &x));
      PetscCall(MatSolveTranspose(G, w, x));
      PetscCall(VecNorm(x, NORM_2, &nrm));
      PetscCall(VecAXPY(x, -1.0, Mtw));
      PetscCall(VecNorm(x, NORM_2, &diff));
      if (diff > tolpetsc * nrm) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSolveTranspose of %s differs from PETSc's: relative difference %g\n", solver, (double)(diff / nrm)));
      PetscCall(VecDestroy(&x));
      PetscCall(ISDestroy(&rperm));
      PetscCall(ISDestroy(&cperm));
      PetscCall(MatDestroy(&G));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(MatDestroy(&F));
  } else { /* the PC of the options, and KSPSolveTranspose() with it against the transposed matrix */
    PC  pc;
    KSP ksp;
    Vec x;

    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetDM(pc, da));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, b, Mb));
    PetscCall(PCApply(pc, w, Mw));
    PetscCall(PCApplyTranspose(pc, w, Mtw));
    PetscCall(CheckAdjoint("PCApplyTranspose", b, w, Mb, Mtw, Mw, sym, tol));
    PetscCall(PCDestroy(&pc));
    /* KSPSolveTranspose(): A^T x = b with the PC transposed, checked by the residual */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolveTranspose(ksp, b, x));
    {
      KSPConvergedReason reason;
      PetscReal          rn, bn;

      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(MatMultTranspose(A, x, Mb));
      PetscCall(VecAXPY(Mb, -1.0, b));
      PetscCall(VecNorm(Mb, NORM_2, &rn));
      PetscCall(VecNorm(b, NORM_2, &bn));
      if (reason <= 0 || rn > 1e-8 * bn) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPSolveTranspose: %s, ||A^T x - b|| / ||b|| = %g\n", KSPConvergedReasons[reason], (double)(rn / bn)));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&Mb));
  PetscCall(VecDestroy(&Mtw));
  PetscCall(VecDestroy(&Mw));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
      suffix: factor
      output_file: output/empty.out
      args: -test factor -compare_petsc
      test:
         suffix: stencilgpu
         args: -dm_mat_type stencilgpu -dof {{1 4}} -box {{0 1}} -levels {{0 1}}
      test:
         suffix: stencilgpu_icc
         args: -dm_mat_type stencilgpu -sym -ftype icc -dof {{1 4}} -levels 0
      test:
         suffix: stencilgpu_icc1
         args: -dm_mat_type stencilgpu -sym -ftype icc -dof 1 -levels 1
      test:
         suffix: gilu
         args: -dm_mat_type {{aij baij}} -solver gilu -dof {{1 4}} -levels {{0 1}}
      test:
         suffix: gilu_cudaemu
         args: -dm_mat_type {{aij baij}} -solver gilu -dof {{1 4}} -gilu_backend cudaemu -n 4
      test:
         suffix: gilu_icc
         args: -dm_mat_type aij -sym -solver gilu -ftype icc -dof 1 -levels {{0 1}}

   test:
      suffix: factor_stencilgpu_icc1_dof4
      output_file: output/empty.out
      args: -test factor -dm_mat_type stencilgpu -sym -ftype icc -dof 4 -levels 1

   testset:
      suffix: pc
      output_file: output/empty.out
      args: -test pc -ksp_type gmres
      test:
         suffix: structilu
         args: -dm_mat_type {{aij baij}} -pc_type structilu -dof {{1 4}} -pc_structilu_levels {{0 1}}
      test:
         suffix: structilu_box
         args: -pc_type structilu -box -dof {{1 3}}
      test:
         suffix: structilu_single
         args: -pc_type structilu -pc_structilu_factor_precision single -dof {{1 4}} -tol 1e-6
      test:
         suffix: structilu_ic
         args: -pc_type structilu -pc_structilu_type ic -sym -dof {{1 4}} -pc_structilu_levels {{0 1}}
      test:
         suffix: structilu_cudaemu
         args: -dm_mat_type {{aij baij}} -pc_type structilu -dof {{1 4}} -gilu_backend cudaemu -n 4
      test:
         suffix: structilu_cudaemu_single
         args: -pc_type structilu -pc_structilu_factor_precision single -gilu_backend cudaemu -n 4 -tol 1e-6
      test:
         suffix: stencilgpu_ilu
         args: -dm_mat_type stencilgpu -pc_type ilu -dof {{1 4}} -pc_factor_levels {{0 1}}
      test:
         suffix: atsilu
         args: -dm_mat_type {{aij baij}} -pc_type atsilu -dof {{1 4}} -pc_atsilu_sweeps 3
      test:
         suffix: atsilu_jacobi
         args: -pc_type atsilu -pc_atsilu_trisolve jacobi -pc_atsilu_trisolve_sweeps 2 -pc_atsilu_sweeps 3
      test:
         suffix: atsilu_cudaemu
         args: -pc_type atsilu -pc_atsilu_sweeps 3 -gilu_backend cudaemu -n 4
      test:
         suffix: fgdd
         args: -dm_mat_type {{aij baij}} -pc_type fgdd -dof {{1 4}} -pc_fgdd_subdomain_rows 30
      test:
         suffix: fgdd_cudaemu
         args: -pc_type fgdd -dof {{1 4}} -gilu_backend cudaemu -n 4 -pc_fgdd_subdomain_rows 20
      test:
         suffix: sparsify
         args: -pc_type sparsify -pc_sparsify_ratio 20 -pc_sparsify_sub_pc_type ilu -dof {{1 4}}
      test:
         suffix: sparsify_structilu
         args: -pc_type sparsify -pc_sparsify_ratio 20 -pc_sparsify_sub_pc_type structilu -dm_mat_type {{aij baij}} -dof 1
      test:
         suffix: sparsify_structilu_baij
         args: -pc_type sparsify -pc_sparsify_ratio 20 -pc_sparsify_sub_pc_type structilu -dm_mat_type baij -dof 4
      test:
         suffix: np2
         nsize: 2
         args: -pc_type {{structilu fgdd atsilu}} -dof {{1 4}}

TEST*/
