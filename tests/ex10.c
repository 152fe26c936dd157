static char help[] = "PCSPARSIFY (SPCG): Algorithm 2's decisions on small matrices with known outcomes, symmetry of Ahat,\n\
SPCG on 3D Poisson/anisotropic problems (AIJ, BAIJ, 1 and 2 processes), ratio 0 against the inner PC, re-setup.\n\
  -case chain|tiny|poisson  the matrix (see the comments of the builders)\n\
  -n <100>                  chain/tiny: rows; poisson: grid points per direction (default 10)\n\
  -dof <1>                  poisson: unknowns per grid point (-dm_mat_type baij for BAIJ)\n\
  -ax/-ay/-az <1>           poisson: diffusion coefficients (anisotropy)\n\
  -skew <1>                 chain: the upper couplings are multiplied by skew (nonsymmetric for skew != 1)\n\
  -zerodiag                 chain: a_00 = 0 (a zero pivot)\n\
  -view_pc                  view the PC after the solve\n\
  -check_ratio0             compare -pc_sparsify_ratio 0 with the inner PC alone (prints only differences)\n\
  -resetup                  change the values twice (other entries become smallest, then a scaling) and compare\n\
                            the re-set-up PC with a fresh one (iterations, bitwise solution)\n\
  -resetup_reset            with -resetup: KSPReset() (the PC's reset) before the first change\n";

#include <petscksp.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

/* chain: symmetric tridiagonal, diagonal 4, couplings -1 except the couplings (10k-1, 10k), which are -0.01 ((k-1) % 9 + 1).
   Known wavefronts: w_A = n; dropping the small couplings cuts the chain in segments of 10. */
static PetscErrorCode BuildChain(PetscInt n, PetscReal skew, PetscBool zerodiag, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatXAIJSetPreallocation(*A, 1, NULL, NULL, NULL, NULL));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, 2, NULL));
  PetscCall(MatSetUp(*A)); /* the types without preallocation (dense) */
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(*A, i, i, zerodiag && i == 0 ? 0.0 : 4.0, INSERT_VALUES));
    for (PetscInt j = i - 1; j <= i + 1; j += 2) {
      PetscInt    lo = PetscMin(i, j);
      PetscScalar v  = (lo + 1) % 10 == 0 ? -0.01 * (((lo + 1) / 10 - 1) % 9 + 1) : -1.0;

      if (j < 0 || j >= n) continue;
      if (j > i) v *= skew;
      PetscCall(MatSetValue(*A, i, j, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tiny: diagonal 2 + i/n, and two symmetric pairs of couplings 1e-9: the off-diagonal entries are fewer than
   1 % of the nonzeros, so every candidate ratio would drop all of them */
static PetscErrorCode BuildTiny(PetscInt n, Mat *A)
{
  PetscInt rs, re,
    pairs[2][2] = {
      {10, 11},
      {50, 60}
  };

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 2, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 2, NULL, 1, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(*A, i, i, 2.0 + (PetscReal)i / n, INSERT_VALUES));
  for (PetscInt p = 0; p < 2; p++) {
    PetscInt i = pairs[p][0], j = pairs[p][1];

    if (i >= rs && i < re) PetscCall(MatSetValue(*A, i, j, 1e-9, INSERT_VALUES));
    if (j >= rs && j < re) PetscCall(MatSetValue(*A, j, i, 1e-9, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* poisson: 7-point -div(diag(ax, ay, az) grad u) on an n^3 DMDA, Dirichlet values eliminated; with dof > 1 each
   coupling is -a I and each diagonal block (2(ax+ay+az) + 0.2) I + 0.1 (ones - I): SPD */
static PetscErrorCode BuildPoisson(PetscInt n, PetscInt dof, const PetscReal a[3], DM *da, Mat *A)
{
  DMDALocalInfo info;
  MatStencil    row, col[7];
  PetscScalar  *v;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  PetscCall(PetscMalloc1(7 * dof * dof, &v));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        // clang-format off: the offsets on one line
        PetscInt off[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        // clang-format on
        PetscInt nc = 0;

        row.i = i;
        row.j = j;
        row.k = k;
        for (PetscInt s = 0; s < 7; s++) {
          PetscInt ii = i + off[s][0], jj = j + off[s][1], kk = k + off[s][2];

          if (ii < 0 || jj < 0 || kk < 0 || ii >= info.mx || jj >= info.my || kk >= info.mz) continue;
          col[nc].i = ii;
          col[nc].j = jj;
          col[nc].k = kk;
          nc++;
        }
        /* values: nc column blocks of dof x dof, row-major over (row component, column block, column component) */
        for (PetscInt r = 0; r < dof; r++)
          for (PetscInt t = 0; t < nc; t++)
            for (PetscInt q = 0; q < dof; q++) {
              PetscInt    di = col[t].i - i, dj = col[t].j - j, dk = col[t].k - k;
              PetscScalar val;

              if (!di && !dj && !dk) val = r == q ? 2.0 * (a[0] + a[1] + a[2]) + (dof > 1 ? 0.2 : 0.0) : 0.1;
              else val = r == q ? -(di ? a[0] : dj ? a[1] : a[2]) : 0.0;
              v[r * nc * dof + t * dof + q] = val;
            }
        if (dof == 1) PetscCall(MatSetValuesStencil(*A, 1, &row, nc, col, v, INSERT_VALUES));
        else {
          PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, nc, col, v, INSERT_VALUES));
        }
      }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat A, Vec b, Vec x, const char *prefix, PetscInt *its, KSP *kspout)
{
  KSP ksp;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  if (prefix) PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  if (kspout) *kspout = ksp;
  else PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same solve with PCSPARSIFY at ratio 0 and with its inner PC alone: same iterations, same solution bitwise */
static PetscErrorCode CheckRatio0(Mat A, Vec b)
{
  KSP         ksp;
  PC          pc;
  Vec         x1, x2;
  PetscInt    it1, it2;
  PetscReal   d;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(VecDuplicate(b, &x1));
  PetscCall(VecDuplicate(b, &x2));
  PetscCall(PetscOptionsSetValue(NULL, "-r0_pc_type", "sparsify"));
  PetscCall(PetscOptionsSetValue(NULL, "-r0_pc_sparsify_ratio", "0"));
  PetscCall(Solve(A, b, x1, "r0_", &it1, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  {
    PC     sub;
    PCType type;

    PetscCall(PCSparsifyGetSubPC(pc, &sub));
    PetscCall(PCGetType(sub, &type));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_type", type));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(Solve(A, b, x2, "ref_", &it2, NULL));
  PetscCall(VecAXPY(x2, -1.0, x1));
  PetscCall(VecNorm(x2, NORM_INFINITY, &d));
  if (it1 != it2 || d != 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ratio 0: %" PetscInt_FMT " iterations, inner PC alone %" PetscInt_FMT ", solutions differ by %g\n", it1, it2, (double)d));
  PetscCall(VecDestroy(&x1));
  PetscCall(VecDestroy(&x2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatIsSymmetric() exactly, through AIJ (BAIJ does not implement it) */
static PetscErrorCode IsSymmetric(Mat A, PetscBool *sym)
{
  Mat B;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatIsSymmetric(B, 0.0, sym));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char               name[32] = "chain";
  PetscInt           n = -1, dof = 1, its;
  PetscReal          a[3] = {1, 1, 1}, skew = 1;
  PetscBool          view = PETSC_FALSE, check0 = PETSC_FALSE, checkasm = PETSC_FALSE, resetup = PETSC_FALSE, reset = PETSC_FALSE, zerodiag = PETSC_FALSE, sparsify, sym;
  DM                 da = NULL;
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ax", &a[0], NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ay", &a[1], NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-az", &a[2], NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-skew", &skew, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_pc", &view, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_ratio0", &check0, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_assembled", &checkasm, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-resetup", &resetup, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-resetup_reset", &reset, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zerodiag", &zerodiag, NULL));
  PetscCall(PetscStrcmp(name, "poisson", &sym));
  if (sym) PetscCall(BuildPoisson(n < 0 ? 10 : n, dof, a, &da, &A));
  else {
    PetscCall(PetscStrcmp(name, "tiny", &sym));
    if (sym) PetscCall(BuildTiny(n < 0 ? 100 : n, &A));
    else PetscCall(BuildChain(n < 0 ? 100 : n, skew, zerodiag, &A));
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));

  if (check0) {
    PetscCall(CheckRatio0(A, b));
    goto done;
  }
  PetscCall(Solve(A, b, x, NULL, &its, &ksp));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " iterations, %s\n", name, its, KSPConvergedReasons[reason]));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSPARSIFY, &sparsify));
  if (sparsify) {
    Mat           Ahat;
    PetscReal     ratio;
    PetscInt      wA, wAhat;
    PetscBool     symA, symAhat = PETSC_FALSE;
    MatFactorType ft;

    PetscCall(PCSparsifyGetSparsifiedMatrix(pc, &Ahat));
    PetscCall(PCSparsifyGetRatio(pc, &ratio));
    PetscCall(PCSparsifyGetWavefronts(pc, &wA, &wAhat));
    PetscCall(IsSymmetric(A, &symA));
    PetscCall(MatGetFactorType(Ahat, &ft));
    if (ft == MAT_FACTOR_NONE) PetscCall(IsSymmetric(Ahat, &symAhat));
    /* -pc_sparsify_sub_pc_factor_in_place: Ahat's storage holds the inner factor */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "chosen ratio %g %%, wavefronts %" PetscInt_FMT " -> %" PetscInt_FMT ", A symmetric %s, Ahat symmetric %s\n", (double)ratio, wA, wAhat, symA ? "yes" : "no",
                          ft != MAT_FACTOR_NONE ? "(factored in place)"
                          : symAhat             ? "yes"
                                                : "no"));
  }
  if (view) PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  if (sparsify && checkasm) {
    /* SPCG = CG on A with the inner PC built on Ahat: the same solve with Ahat assembled (PCSparsifyGetSparsifiedMatrix()
       makes it where the inner factor dropped S from A itself) and an ILU(0) of it must give the same bits */
    KSP       ksp2;
    PC        pc2;
    Mat       Ahat;
    Vec       x2;
    PetscInt  its2;
    PetscReal d;

    PetscCall(PCSparsifyGetSparsifiedMatrix(pc, &Ahat));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp2));
    PetscCall(KSPSetOptionsPrefix(ksp2, "asm_"));
    PetscCall(KSPSetOperators(ksp2, A, Ahat));
    PetscCall(KSPSetType(ksp2, KSPCG));
    PetscCall(KSPSetTolerances(ksp2, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
    PetscCall(KSPGetPC(ksp2, &pc2));
    PetscCall(PCSetType(pc2, PCILU));
    PetscCall(KSPSetFromOptions(ksp2));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(VecSet(x2, 0));
    PetscCall(KSPSolve(ksp2, b, x2));
    PetscCall(KSPGetIterationNumber(ksp2, &its2));
    PetscCall(VecAXPY(x2, -1.0, x));
    PetscCall(VecNorm(x2, NORM_INFINITY, &d));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ILU(0) of Ahat assembled: %" PetscInt_FMT " iterations, solutions %s\n", its2, d == 0 ? "identical" : "DIFFER"));
    PetscCall(VecDestroy(&x2));
    PetscCall(KSPDestroy(&ksp2));
  }
  if (resetup) {
    /* 1: other entries become the smallest (another mask); 2: a scaling (the same mask, values only) */
    for (PetscInt step = 1; step <= 2; step++) {
      Vec       x2;
      PetscInt  its2;
      PetscReal d;

      if (step == 1) {
        PetscInt rs, re, N;

        if (reset) { /* the PC is set up from scratch on the same A (a reset inner PC must not keep the destroyed Ahat) */
          PetscCall(KSPReset(ksp));
          PetscCall(KSPSetOperators(ksp, A, A));
        }

        PetscCall(MatGetSize(A, &N, NULL));
        PetscCall(MatGetOwnershipRange(A, &rs, &re));
        for (PetscInt i = rs; i < re; i++)
          for (PetscInt j = i - 1; j <= i + 1; j += 2)
            if (j >= 0 && j < N && PetscMin(i, j) % 10 == 4) PetscCall(MatSetValue(A, i, j, -0.001, INSERT_VALUES));
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      } else PetscCall(MatScale(A, 2.0));
      PetscCall(VecSet(x, 0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(VecDuplicate(x, &x2));
      PetscCall(Solve(A, b, x2, NULL, &its2, NULL));
      PetscCall(VecAXPY(x2, -1.0, x));
      PetscCall(VecNorm(x2, NORM_INFINITY, &d));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "re-setup %" PetscInt_FMT ": %" PetscInt_FMT " iterations, fresh PC %" PetscInt_FMT ", solutions %s\n", step, its, its2, d == 0 ? "identical" : "DIFFER"));
      PetscCall(VecDestroy(&x2));
    }
    if (view) PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  }
  PetscCall(KSPDestroy(&ksp));
done:
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: !complex

   # Algorithm 2 on the chain (w_A = 100; 10 %: wavefronts 10 or fewer, 5 %: 30, 1 %: 90): each branch
   # default: 10 % passes the indicator and the wavefront test (line 11)
   test:
     suffix: chain_first
     args: -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # tau 0.1: 10 % fails the indicator (line 7), 5 % passes both tests
   test:
     suffix: chain_indicator_next
     args: -pc_type sparsify -pc_sparsify_tau 0.1 -view_pc
     filter: grep -v "^      "

   # omega 99: no ratio reduces the wavefronts enough; the last one is taken (line 10, t = 1)
   test:
     suffix: chain_last
     args: -pc_type sparsify -pc_sparsify_omega 99 -view_pc
     filter: grep -v "^      "

   # tau 0.001: every ratio fails the indicator; the first (10 %) is taken (line 6)
   test:
     suffix: chain_fallback
     args: -pc_type sparsify -pc_sparsify_tau 0.001 -view_pc
     filter: grep -v "^      "

   # ratios 1,5,10 and omega 50: 1 % reduces the wavefronts by 10 % only (line 12: next ratio), 5 % by 70 %
   test:
     suffix: chain_wavefronts_next
     args: -pc_type sparsify -pc_sparsify_ratios 1,5,10 -pc_sparsify_omega 50 -view_pc
     filter: grep -v "^      "

   # a forced ratio, no sparsification

   test:
     suffix: chain_forced
     args: -pc_type sparsify -pc_sparsify_ratio {{0 3 50}separate output}

   # nonsymmetric: entries dropped one by one, the 1-norm enters the estimate of ||Ahat||_2
   test:
     suffix: chain_nonsym
     args: -skew 1.5 -ksp_type gmres -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # a symmetric matrix treated as nonsymmetric: Ahat is not symmetric any more
   test:
     suffix: chain_sym_off
     args: -pc_type sparsify -pc_sparsify_symmetric 0 -pc_sparsify_ratio 10 -ksp_type gmres

   # off-diagonal entries fewer than every ratio: all of them are dropped (capped), Ahat is diagonal
   test:
     suffix: tiny
     args: -case tiny -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # SPCG on 3D Poisson and anisotropic problems, ILU(0) and ILU(1)
   test:
     suffix: poisson
     args: -case poisson -pc_type sparsify -view_pc
     filter: grep -v "^      "

   test:
     suffix: aniso
     args: -case poisson -az 0.01 -ay 0.1 -pc_type sparsify -view_pc -pc_sparsify_sub_pc_factor_levels {{0 1}separate output}
     filter: grep -v "^      "

   # 30 % drops the weak z couplings (28 %) and a few more: the z chains are cut, w 28 -> 19 (ILU(1): 55 -> 28)
   test:
     suffix: aniso30
     args: -case poisson -az 0.01 -pc_type sparsify -pc_sparsify_ratios 30,10,1 -view_pc -pc_sparsify_sub_pc_factor_levels {{0 1}separate output}
     filter: grep -v "^      "

   # Ahat is not assembled where the inner ILU(0) is gilu's: its factor drops S's entries from A. The same solve with Ahat
   # assembled (PCSparsifyGetSparsifiedMatrix() makes it then) and gilu's or PETSc's ILU(0) of it: the same bits
   test:
     suffix: assembled
     args: -case poisson -az 0.01 -ay 0.1 -pc_type sparsify -check_assembled -asm_pc_factor_mat_solver_type {{gilu petsc}shared output} -view_pc
     filter: grep -e iterations -e assembled -e "of its entries"

   # Ahat not assembled (the inner gilu factor is told which entries to drop): the factor's options take the inner PC's
   # prefix, as PCILU gives them (before: it was made before PCILU set the prefix, and read -mat_gilu_* without it)
   test:
     suffix: sub_factor_prefix
     args: -case poisson -pc_type sparsify -pc_sparsify_sub_mat_gilu_trisolve levelset -mat_gilu_trisolve syncfree -view_pc -options_left 0
     filter: grep -e "not assembled" -e "algorithm"

   # an ordering other than the natural one: Ahat assembled (no "not assembled" line), the same bits as a separate ILU of it
   test:
     suffix: assembled_rcm
     args: -case poisson -az 0.01 -ay 0.1 -pc_type sparsify -pc_sparsify_ratio 5 -check_assembled -pc_sparsify_sub_pc_factor_mat_ordering_type rcm -asm_pc_factor_mat_ordering_type rcm -asm_pc_factor_mat_solver_type gilu -view_pc
     filter: grep -e iterations -e assembled -e "of its entries" -e "ordering"

   # PETSc's numeric factorization in the inner gilu factor (-pc_sparsify_sub_mat_gilu_factor_numeric petsc) cannot skip
   # S: Ahat assembled, the same bits as a separate ILU of it (it was an error naming the option without its prefix)
   test:
     suffix: assembled_numeric_petsc
     args: -case poisson -az 0.01 -ay 0.1 -pc_type sparsify -pc_sparsify_ratio 5 -check_assembled -pc_sparsify_sub_mat_gilu_factor_numeric petsc -asm_pc_factor_mat_solver_type gilu -asm_mat_gilu_factor_numeric petsc -view_pc
     filter: grep -e iterations -e assembled -e "of its entries" -e "numeric factorization"

   test:
     suffix: assembled_chain
     args: -skew 1.5 -ksp_type gmres -asm_ksp_type gmres -pc_type sparsify -check_assembled -asm_pc_factor_mat_solver_type gilu -pc_sparsify_sub_mat_gilu_factor_schedule {{chunked levelset}shared output} -pc_sparsify_sub_mat_gilu_trisolve_threads 2 -asm_mat_gilu_trisolve_threads 2 -asm_mat_gilu_factor_schedule {{chunked levelset}shared output}

   test:
     suffix: poisson_icc
     args: -case poisson -az 0.01 -pc_type sparsify -pc_sparsify_sub_pc_type icc -pc_sparsify_ratio 10

   # structilu as the inner PC on Ahat (dropped stencil positions kept at zero): the iterations of ILU(0) on Ahat;
   # the grid is given because the sparsified first row no longer reveals it
   test:
     suffix: structilu
     args: -case poisson -az 0.01 -pc_type sparsify -pc_sparsify_ratio 10 -pc_sparsify_sub_pc_type {{ilu structilu}shared output} -pc_sparsify_sub_pc_structilu_grid 10,10,10

   # PCSPARSIFY as the sub-PC of block Jacobi (each block sparsified on its own)
   test:
     suffix: bjacobi_sub
     nsize: 2
     args: -case poisson -az 0.01 -pc_type bjacobi -sub_pc_type sparsify -sub_pc_sparsify_ratio 10

   # BAIJ: whole blocks dropped
   test:
     suffix: baij
     args: -case poisson -dof 2 -az 0.01 -dm_mat_type {{aij baij}separate output} -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # two processes: each sparsifies its diagonal block, block Jacobi ILU(0) on Ahat
   test:
     suffix: np2
     nsize: 2
     args: -case poisson -az 0.01 -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # two processes, nonsymmetric: the 1-norm of Ahat needs the column sums of both processes (same estimate as on one)
   test:
     suffix: np2_nonsym
     nsize: 2
     args: -skew 1.5 -ksp_type gmres -pc_type sparsify -view_pc
     filter: grep -v "^      "

   test:
     suffix: np2_chain
     nsize: 2
     args: -pc_type sparsify -pc_sparsify_tau 0.1

   # ratio 0 gives exactly the inner PC's iterations and solution (self-checking)
   test:
     suffix: ratio0_ilu
     output_file: output/empty.out
     args: -check_ratio0 -case poisson -az 0.1

   test:
     suffix: ratio0_iluk
     output_file: output/empty.out
     args: -check_ratio0 -case poisson -az 0.1 -r0_pc_sparsify_sub_pc_factor_levels 2 -ref_pc_factor_levels 2

   test:
     suffix: ratio0_np2
     nsize: 2
     output_file: output/empty.out
     args: -check_ratio0 -case poisson -az 0.1

   # the ILU(k) fill pattern the wavefronts are counted on ("that pattern of A has N nonzeros") is PETSc's
   # symbolic ILU(k) (the inner factor's "total: nonzeros=N" at ratio 0). The other views drop the inner PC's
   # details (lines indented 6 or more), which depend on the MatSolverType that the build has
   test:
     suffix: iluk_fill
     args: -case poisson -n 6 -az 0.1 -pc_type sparsify -pc_sparsify_ratio 0 -pc_sparsify_sub_pc_factor_mat_solver_type petsc -pc_sparsify_sub_pc_factor_levels {{1 2 3}separate output} -view_pc

   # a zero diagonal entry: the estimate of ||Ahat^-1|| is infinite, every ratio fails the indicator (fall-back),
   # the inner ILU meets the zero pivot and KSP stops with DIVERGED_PC_FAILED
   test:
     suffix: zeropivot
     args: -zerodiag -pc_type sparsify -view_pc
     filter: grep -v "^      "

   # unsupported matrix type: a clear error
   test:
     suffix: dense
     args: -mat_type dense -pc_type sparsify
     filter: Error: grep -o "PCSPARSIFY supports AIJ and BAIJ matrices, not seqdense.*"

   # a ratio that is not a percentage: a clear error
   # more ratios than it holds are an error, not dropped (before: the 17th on were ignored)
   test:
     suffix: toomanyratios
     args: -pc_type sparsify -pc_sparsify_ratios 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
     filter: Error: grep -o -e "-pc_sparsify_ratios: give 1 to 16 ratios, not at least 17"

   test:
     suffix: badratio
     args: -pc_type sparsify -pc_sparsify_ratios 10,150
     filter: Error: grep -o -e "-pc_sparsify_ratios: ratio 150. must be a percentage in (0, 100)"

   # re-setup with the same nonzero pattern: other entries dropped, then values only
   test:
     suffix: resetup
     args: -pc_type sparsify -pc_sparsify_tau 0.1 -resetup -view_pc
     filter: grep -v "^      "

   # the inner ILU factors Ahat in its own storage: every setup assembles Ahat again (the view counts 3 builds of 3
   # setups), and a reset of the inner PC must not leave it the destroyed Ahat (iterations and solutions as resetup)
   test:
     suffix: resetup_inplace
     args: -pc_type sparsify -pc_sparsify_tau 0.1 -resetup -pc_sparsify_sub_pc_factor_in_place -view_pc
     filter: grep -v "^      "

   # the same after a KSPReset() (PCReset of sparsify and of its inner PC) before the first change: the view counts
   # the 2 setups since the reset
   test:
     suffix: resetup_inplace_reset
     args: -pc_type sparsify -pc_sparsify_tau 0.1 -resetup -resetup_reset -pc_sparsify_sub_pc_factor_in_place -view_pc
     filter: grep -v "^      "

   test:
     suffix: resetup_np2
     nsize: 2
     args: -pc_type sparsify -pc_sparsify_tau 0.1 -resetup

TEST*/
