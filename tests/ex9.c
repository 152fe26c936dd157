static char help[] = "PCATSILU (ATS-ILU, ATS-ILUT, ParILU, ParILUT) on a 3D convection-diffusion problem on a DMDA.\n\
  -n <n>            : grid points per direction (default 8)\n\
  -beta <b>         : convection coefficient (0: Poisson, symmetric; default 0)\n\
  -dof <d>          : unknowns per grid point, coupled by a nonsymmetric block (default 1)\n\
  -ref_ilu <k>      : also solve with PETSc's ILU(k) (-pc_type ilu -pc_factor_levels k) and print its iterations\n\
  -check_factors <k>: compare the applied PC with PETSc's ILU(k) on a vector; print whether they agree\n\
  -check_threads    : solve with -pc_atsilu_threads 1 and 2 and check the residual histories are bitwise equal\n\
  -compare_device <cuda,cudaemu>: solve with the sweeps on the host and on the device; check the residual histories are equal\n\
                    (bitwise with cudaemu; on a GPU to a relative 1e-8: nvcc contracts a*b+c into fused multiply-adds)\n\
  -solve_twice      : solve again with the same KSP after MatShift(A, -2) (a new setup on the same pattern)\n\
  -zero_diag        : set the diagonal entry of the first row to zero (a zero pivot)\n\n";

/*
  Test driver for PCATSILU. The matrix is the 7-point discretization of
  -laplace(u) + beta (u_x + u_y + u_z) on the unit cube (central differences, scaled by h^2), assembled on a DMDA
  (type from -dm_mat_type, default aij). It solves A x = 1 with the KSP and PC of the options database and prints
  the iterations; the checks above compare PCATSILU with PETSc's ILU and with itself on another number of threads.
*/
#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

static PetscErrorCode BuildMatrix(DM da, PetscReal beta, Mat *A)
{
  PetscInt     xs, ys, zs, xm, ym, zm, M, dof;
  PetscReal    h;
  MatStencil   row, col[7];
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PetscCalloc1(7 * dof * dof, &v));
  h = 1.0 / (M + 1);
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++) {
    for (PetscInt j = ys; j < ys + ym; j++) {
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt nc = 0, idx[3] = {i, j, k};

        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        /* the row block of the point: [diagonal block, neighbour blocks], each dof x dof, row-major within the row */
        for (PetscInt d = 0; d < 3; d++) {
          for (PetscInt s = -1; s <= 1; s += 2) {
            PetscInt q = idx[d] + s;

            if (q < 0 || q >= M) continue;
            nc++;
            col[nc] = row;
            if (d == 0) col[nc].i = q;
            if (d == 1) col[nc].j = q;
            if (d == 2) col[nc].k = q;
          }
        }
        col[0] = row;
        for (PetscInt a = 0; a < dof; a++) {
          for (PetscInt c = 0, m = 0; c <= nc; c++) {
            PetscReal w = 0; /* the neighbour weight, -1 + s beta h / 2, of block column c */

            if (c > 0) {
              PetscInt d = col[c].i != i ? 0 : (col[c].j != j ? 1 : 2), q = d == 0 ? col[c].i : (d == 1 ? col[c].j : col[c].k);

              w = -1.0 + (q > idx[d] ? 1 : -1) * beta * h / 2;
            }
            for (PetscInt b = 0; b < dof; b++, m++) {
              PetscScalar *e = &v[a * (nc + 1) * dof + m];

              if (c == 0) *e = a == b ? 6.0 : 0.3 * (a - b) / dof + 0.1; /* 6 I + a nonsymmetric coupling */
              else *e = a == b ? w : (b == a + 1 ? 0.1 * w : 0.0);
            }
          }
        }
        PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, nc + 1, col, v, INSERT_VALUES));
      }
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solve with a KSP configured from the options (prefix), optionally forcing the PC's threads; returns the iterations and residual history */
static PetscErrorCode Solve(Mat A, Vec b, const char prefix[], PetscInt threads, PetscInt device, PetscInt *its, PetscReal **hist, PetscInt *nhist)
{
  KSP                ksp;
  PC                 pc;
  Vec                x;
  KSPConvergedReason reason;
  PetscReal         *h;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (prefix) { /* the reference solves to the tolerance of the main one */
    PetscReal rtol = 1e-5;

    PetscCall(PetscOptionsGetReal(NULL, NULL, "-ksp_rtol", &rtol, NULL));
    PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  if (threads) PetscCall(PCATSILUSetThreads(pc, threads));
  if (device >= 0) PetscCall(PCATSILUSetBackend(pc, (PetscGILUBackendType)device));
  PetscCall(PetscMalloc1(1001, &h));
  PetscCall(KSPSetResidualHistory(ksp, h, 1001, PETSC_TRUE));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualHistory(ksp, NULL, nhist));
  if (hist) *hist = h;
  else PetscCall(PetscFree(h));
  if (reason < 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s\n", prefix ? prefix : "solve", KSPConvergedReasons[reason]));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       b;
  PetscInt  n = 8, refk = -1, factk = -1, its, itsref, dof = 1;
  PetscReal beta    = 0;
  PetscBool threads = PETSC_FALSE, zerodiag = PETSC_FALSE, devset = PETSC_FALSE, twice = PETSC_FALSE;
  PetscEnum device = (PetscEnum)PETSCGILU_BACKEND_CUDAEMU;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-beta", &beta, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ref_ilu", &refk, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-check_factors", &factk, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_threads", &threads, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero_diag", &zerodiag, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve_twice", &twice, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-compare_device", PetscGILUBackendTypes, &device, &devset));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(BuildMatrix(da, beta, &A));
  if (zerodiag) {
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(MatZeroRowsColumns(A, 0, NULL, 0.0, NULL, NULL));
    PetscCall(MatSetValue(A, 0, 0, 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatCreateVecs(A, &b, NULL));
  PetscCall(VecSet(b, 1.0));

  if (threads || devset) {
    PetscReal *h1, *h2;
    PetscInt   n1, n2, its2;
    PetscBool  same;

    const char *what = threads ? "1 and 2 threads" : (device == (PetscEnum)PETSCGILU_BACKEND_CUDA ? "host and CUDA" : "host and cudaemu");
    /* bitwise, except host against a GPU: nvcc contracts the a*b - c of the sweeps (atsilu-kernels.h) into fused
       multiply-adds, which round once instead of twice, so the factors and then the residuals differ in the last bits
       (the host compiler contracts nothing here, CXX_FLAGS has no -mfma: the emulation gives the host's bits). The
       histories must then have the same length and agree to a relative 1e-8 each, far above those round-off
       differences and far below what a wrong sweep gives. */
    PetscBool fma  = (PetscBool)(devset && device == (PetscEnum)PETSCGILU_BACKEND_CUDA);
    PetscReal rtol = fma ? 1e-8 : 0;

    PetscCall(Solve(A, b, NULL, threads ? 1 : 0, devset ? (PetscInt)PETSCGILU_BACKEND_HOST : -1, &its, &h1, &n1));
    PetscCall(Solve(A, b, NULL, threads ? 2 : 0, devset ? (PetscInt)device : -1, &its2, &h2, &n2));
    same = (PetscBool)(its == its2 && n1 == n2);
    for (PetscInt i = 0; same && i < n1; i++) same = (PetscBool)(PetscAbsReal(h1[i] - h2[i]) <= rtol * PetscMax(PetscAbsReal(h1[i]), PetscAbsReal(h2[i])));
    if (same && fma) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT " (%s: residual histories equal to a relative 1e-8, FMA contraction)\n", its, what));
    else if (same) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT " (%s: residual histories bitwise equal)\n", its, what));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: residual histories DIFFER (%" PetscInt_FMT " vs %" PetscInt_FMT " iterations)\n", what, its, its2));
    PetscCall(PetscFree(h1));
    PetscCall(PetscFree(h2));
  } else {
    PetscCall(Solve(A, b, NULL, 0, -1, &its, NULL, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT "\n", its));
    if (twice) { /* new values, same pattern: the reused KSP sets the PC up again, so it needs the iterations of a new one */
      KSP ksp;
      Vec x;

      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(VecDuplicate(b, &x));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "first solve: iterations %" PetscInt_FMT "\n", its));
      PetscCall(MatShift(A, -2.0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(Solve(A, b, NULL, 0, -1, &itsref, NULL, NULL));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after MatShift(A, -2): iterations %" PetscInt_FMT ", with a new KSP %" PetscInt_FMT "\n", its, itsref));
      PetscCall(VecDestroy(&x));
      PetscCall(KSPDestroy(&ksp));
    }
  }
  if (refk >= 0) {
    PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_type", "ilu"));
    {
      char k[16];
      PetscCall(PetscSNPrintf(k, sizeof(k), "%" PetscInt_FMT, refk));
      PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_factor_levels", k));
    }
    PetscCall(Solve(A, b, "ref_", 0, -1, &itsref, NULL, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc ILU(%" PetscInt_FMT ") iterations %" PetscInt_FMT "\n", refk, itsref));
  }
  if (factk >= 0) { /* the same operator: M_ats^{-1} v == M_ilu^{-1} v for a fixed v */
    PC        pa, pi;
    Vec       v, ya, yi;
    PetscReal nrm, diff;

    PetscCall(PCCreate(PETSC_COMM_WORLD, &pa));
    PetscCall(PCSetType(pa, PCATSILU));
    PetscCall(PCSetOperators(pa, A, A));
    PetscCall(PCSetFromOptions(pa));
    PetscCall(PCSetUp(pa));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pi));
    PetscCall(PCSetType(pi, PCILU));
    PetscCall(PCFactorSetLevels(pi, factk));
    PetscCall(PCSetOperators(pi, A, A));
    PetscCall(PCSetUp(pi));
    PetscCall(VecDuplicate(b, &v));
    PetscCall(VecDuplicate(b, &ya));
    PetscCall(VecDuplicate(b, &yi));
    {
      PetscInt     lo, hi;
      PetscScalar *a;

      PetscCall(VecGetOwnershipRange(v, &lo, &hi));
      PetscCall(VecGetArray(v, &a));
      for (PetscInt i = lo; i < hi; i++) a[i - lo] = PetscSinReal(0.37 * i) + 0.1 * (i % 7);
      PetscCall(VecRestoreArray(v, &a));
    }
    PetscCall(PCApply(pa, v, ya));
    PetscCall(PCApply(pi, v, yi));
    PetscCall(VecNorm(yi, NORM_2, &nrm));
    PetscCall(VecAXPY(ya, -1.0, yi));
    PetscCall(VecNorm(ya, NORM_2, &diff));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCATSILU applied vs PETSc ILU(%" PetscInt_FMT ") applied: relative difference %s\n", factk, diff <= 1e-12 * nrm ? "below 1e-12" : (diff <= 1e-6 * nrm ? "below 1e-6 (not 1e-12)" : "ABOVE 1e-6")));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&yi));
    PetscCall(PCDestroy(&pa));
    PetscCall(PCDestroy(&pi));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: !complex

  # after 10 sweeps the iterations are those of PETSc ILU(0) (within 1)
  test:
    suffix: ilu0_10
    args: -n 12 -beta 20 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_sweeps 10 -ref_ilu 0 -pc_atsilu_algorithm {{ats parilu}separate output}

  # converged sweeps give the PETSc ILU(k) factors: the applied preconditioners agree to 1e-12
  test:
    suffix: factors_ilu0
    args: -n 8 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 100 -pc_atsilu_tol 1e-15 -check_factors 0 -pc_atsilu_algorithm {{ats parilu}shared output} -pc_atsilu_initial_guess {{triu diagonal}shared output} -pc_atsilu_jacobi_scaling {{0 1}shared output}
  test:
    suffix: factors_ilu0_usenew0
    args: -n 8 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 100 -pc_atsilu_tol 1e-15 -check_factors 0 -pc_atsilu_use_new 0
  test:
    suffix: factors_ilu1
    args: -n 8 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 100 -pc_atsilu_tol 1e-15 -pc_atsilu_pattern symbolic -pc_atsilu_levels 1 -check_factors 1 -pc_atsilu_algorithm {{ats parilu}shared output}
  test:
    suffix: factors_ilu2
    args: -n 8 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 100 -pc_atsilu_tol 1e-15 -pc_atsilu_pattern symbolic -pc_atsilu_levels 2 -check_factors 2

  # the same residual history (bitwise) with 1 and 2 threads, for every algorithm and apply
  test:
    suffix: threads
    args: -n 10 -beta 50 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_sweeps 4 -check_threads -pc_atsilu_type {{ilu ilut}separate output} -pc_atsilu_algorithm {{ats parilu}separate output} -pc_atsilu_trisolve {{exact jacobi}separate output}

  # the CUDA sweep kernels, run by the host emulation, give the host factors bitwise (same residual histories), under the
  # three schedules; on a GPU the same iterations and histories equal to a relative 1e-8 (nvcc's FMA contraction)
  test:
    suffix: cudaemu
    requires: cudaemu
    args: -n 6 -beta 20 -ksp_type gmres -pc_type atsilu -pc_atsilu_sweeps 4 -compare_device cudaemu -pc_atsilu_algorithm {{ats parilu}separate output} -pc_atsilu_use_new {{0 1}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
  test:
    suffix: cuda
    requires: cuda_device
    args: -n 6 -beta 20 -ksp_type gmres -pc_type atsilu -pc_atsilu_sweeps 4 -compare_device cuda -pc_atsilu_algorithm {{ats parilu}shared output} -pc_atsilu_use_new {{0 1}shared output}
  test:
    suffix: cudaemu_view
    requires: cudaemu
    args: -n 6 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 3 -pc_atsilu_backend cudaemu -ksp_view
    filter: grep "kernels\\|sweeps done\\|iterations" | sed -e "s/; library built.*$//"
  # the global -gilu_backend alone selects the back-end (the sweeps and the triangular solves): the same iterations, the view names it
  test:
    suffix: global_backend
    requires: cudaemu
    args: -n 6 -beta 20 -pc_type atsilu -pc_atsilu_sweeps 3 -gilu_backend {{host cudaemu}separate output} -ksp_view
    filter: grep -E "back-end|sweeps done|^iterations" | sed -e "s/; library built.*$//"
  # ilut has no device sweeps: from the global option it runs on the host
  test:
    suffix: global_backend_ilut
    requires: cudaemu
    args: -n 6 -pc_type atsilu -pc_atsilu_type ilut -gilu_backend cudaemu -mat_gilu_trisolve_backend host -ksp_view
    filter: grep -E "back-end|^iterations" | sed -e "s/; library built.*$//"
  # cuda where there is no device (or no CUDA build): a clear error
  test:
    suffix: no_device
    requires: !cuda_device
    args: -n 6 -pc_type atsilu -gilu_backend cuda
    filter: Error: grep -o "The CUDA back-end was asked for"
  test:
    suffix: cudaemu_ilut_error
    requires: cudaemu
    args: -n 6 -pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_backend cudaemu
    filter: Error: grep -o "runs the fixed-pattern sweeps only"

  # ATS-ILUT and ParILUT with fill 2 and 3 beat ILU(0) on a nonsymmetric problem with GMRES
  test:
    suffix: ilut
    args: -n 12 -beta 50 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_sweeps 5 -ref_ilu 0 -pc_atsilu_fill {{2 3}separate output} -pc_atsilu_algorithm {{ats parilu}separate output}
  test:
    suffix: ilut_variants
    args: -n 10 -beta 50 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_fill 2 -pc_atsilu_sweeps 3 -pc_atsilu_use_new {{0 1}separate output} -pc_atsilu_update_residual {{0 1}separate output} -pc_atsilu_residual_rhs 1 -pc_atsilu_sweeps_before 1 -pc_atsilu_sweeps_after 1

  test:
    suffix: ilut_residual_lhs
    args: -n 10 -beta 30 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_fill 2 -pc_atsilu_sweeps 3 -pc_atsilu_residual_lhs -check_threads

  # what -ksp_view shows: pattern sizes, residual per sweep, fill
  test:
    suffix: view
    args: -n 8 -beta 20 -ksp_type gmres -pc_type atsilu -pc_atsilu_type {{ilu ilut}separate output} -pc_atsilu_sweeps 3 -ksp_view
    filter: grep -v "tolerances\\|maximum iterations\\|left preconditioning\\|using PRECONDITIONED\\|happy breakdown\\|restart=\\|Orthogonalization"
  # the triangular-solve algorithm of the exact solves, as asked (-mat_gilu_trisolve) and as the view names it
  test:
    suffix: view_trisolve
    args: -n 8 -beta 20 -ksp_type gmres -pc_type atsilu -mat_gilu_trisolve {{syncfree recblock chunked}separate output} -ksp_view
    filter: grep "their algorithm"
  test:
    suffix: view_patterns
    args: -n 8 -ksp_type cg -pc_type atsilu -pc_atsilu_sweeps 3 -pc_atsilu_pattern {{power symbolic diagonal}separate output} -pc_atsilu_levels 1 -pc_atsilu_trisolve jacobi -pc_atsilu_trisolve_sweeps 2 -ksp_view
    filter: grep "atsilu\\|ATS\\|pattern\\|nnz\\|apply\\|iterations"

  # BAIJ: block factors, whose limit is the PETSc block ILU(k) of the BAIJ matrix; ilut converts to AIJ
  test:
    suffix: baij_factors
    args: -n 6 -beta 20 -dm_mat_type baij -pc_type atsilu -pc_atsilu_sweeps 200 -pc_atsilu_tol 1e-14 -check_factors 0 -ref_ilu 0 -dof {{1 2 3 5}separate output} -pc_atsilu_algorithm {{ats parilu}shared output}
  test:
    suffix: baij_factors_ilu1
    args: -n 6 -dof 3 -beta 20 -dm_mat_type baij -pc_type atsilu -pc_atsilu_sweeps 200 -pc_atsilu_tol 1e-14 -pc_atsilu_pattern symbolic -pc_atsilu_levels 1 -check_factors 1 -pc_atsilu_use_new {{0 1}shared output}
  test:
    suffix: baij_threads
    args: -n 8 -dof 3 -beta 40 -dm_mat_type baij -ksp_type gmres -pc_type atsilu -pc_atsilu_sweeps 4 -check_threads -pc_atsilu_algorithm {{ats parilu}separate output}
  test:
    suffix: baij_view
    args: -n 6 -dof 2 -beta 20 -dm_mat_type baij -pc_type atsilu -pc_atsilu_sweeps 3 -pc_atsilu_type {{ilu ilut}separate output} -ksp_view
    filter: grep "BAIJ\\|rows \\|nnz(L)\\|iterations"
  # a zero diagonal entry in an invertible diagonal block is no zero pivot of block ILU: PETSc's BAIJ ILU(0) takes it
  # and so do the block factors (before: a zero pivot, because of the zero entry); -dm_mat_type aij: the zeropivot test
  test:
    suffix: baij_zeropivot
    args: -n 6 -dof 2 -zero_diag -dm_mat_type baij -pc_type {{atsilu ilu}shared output}
  test:
    suffix: baij_np2
    nsize: 2
    args: -n 8 -dof 2 -beta 20 -dm_mat_type baij -pc_type atsilu -pc_atsilu_sweeps 10 -ksp_view
    filter: grep "iterations\\|BAIJ\\|block Jacobi"
  test:
    suffix: np2
    nsize: 2
    args: -n 10 -beta 20 -ksp_type gmres -pc_type atsilu -pc_atsilu_sweeps 10 -ksp_view
    filter: grep "iterations\\|block Jacobi\\|rows"
  test:
    suffix: np2_subpc
    nsize: 2
    args: -n 10 -beta 20 -ksp_type gmres -pc_type bjacobi -sub_pc_type atsilu -sub_pc_atsilu_sweeps 10 -sub_pc_atsilu_type ilut

  # a new setup on the same pattern after the values changed
  test:
    suffix: solve_twice
    args: -n 10 -beta 20 -ksp_type gmres -ksp_rtol 1e-10 -pc_type atsilu -pc_atsilu_sweeps 4 -solve_twice -pc_atsilu_type {{ilu ilut}separate output} -dm_mat_type {{aij baij}shared output}

  # a zero pivot: KSP reports DIVERGED_PC_FAILED; an unsupported matrix type is a clear error
  test:
    suffix: zeropivot
    args: -n 6 -zero_diag -pc_type atsilu -pc_atsilu_jacobi_scaling {{0 1}shared output}
  test:
    suffix: wrongtype
    args: -n 6 -dm_mat_type sell -pc_type atsilu
    filter: Error: grep -o "PCATSILU needs an AIJ matrix"

  # no leaks (ILUT allocates and regrows the most)
  test:
    suffix: malloc_dump
    args: -n 6 -beta 20 -pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_sweeps 2 -pc_atsilu_sweeps_after 1 -malloc_dump -malloc_debug

TEST*/
