static char help[] = "The vectors of the device back-ends: on cudaemu the apply of PCFGDD, PCATSILU, MatSolverType gilu\n\
and MATSTENCILGPU's device product take their vectors through src/sys/device-vec.c.\n\
  -case fgdd|atsilu|gilu|stencilgpu : the component (default fgdd; its options from the database: -pc_fgdd_apply ...)\n\
  -n <n>   : grid points per direction of the 3D DMDA (default 6)\n\
  -dof <d> : unknowns per grid point (default 1)\n\
  -tol <t> : the largest relative difference allowed between the host and the emulated back-end (default 0: the same bits)\n\
Prints only failures.\n\n";

/*
  For each component: the same KSPSolve() (GMRES, a fixed number of iterations) on the host back-end and on cudaemu,
  whose solutions must agree to -tol (0: bitwise), and during the emulated KSPSolve(), after the first apply made the
  device data, exactly one GILUCopyToGPU and one GILUCopyToCPU per PCApply() (the input in, the output back: the
  permutations and the scalings run on the device). MATSTENCILGPU: MatStencilGPUMultWithBackend() on cudaemu equals
  MatMult() bitwise, with one copy each way per product once the values are on the device, and again after MatScale()
  (the values are copied again when the matrix's state changed).
*/
#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilutest.h>
#include <petscgilu/private/compat.h>

typedef struct {
  PetscLogEvent togpu, tocpu, apply;
} Events;

static PetscErrorCode Count(PetscLogEvent e, PetscInt *n)
{
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetPerfInfo(0, e, &info)); /* the main stage */
  *n = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A nonsymmetric 7-point operator, dof unknowns per point coupled in the diagonal block */
static PetscErrorCode FillMatrix(DM da, Mat A)
{
  DMDALocalInfo info;
  PetscInt      dof;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  dof = info.dof;
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++)
        for (PetscInt c = 0; c < dof; c++) {
          MatStencil  row = {k, j, i, c}, col[7 + 8];
          PetscScalar v[7 + 8];
          PetscInt    nc = 0;
          // clang-format off: the offsets on one line
          const PetscInt d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
          // clang-format on

          for (PetscInt t = 0; t < 6; t++) {
            PetscInt ii = i + d[t][2], jj = j + d[t][1], kk = k + d[t][0];

            if (ii < 0 || jj < 0 || kk < 0 || ii >= info.mx || jj >= info.my || kk >= info.mz) continue;
            col[nc].k = kk;
            col[nc].j = jj;
            col[nc].i = ii;
            col[nc].c = c;
            v[nc++]   = -1.0 - 0.3 * (t % 2) + 0.01 * c; /* convection: the upwind side is heavier */
          }
          for (PetscInt e = 0; e < dof; e++) {
            col[nc].k = k;
            col[nc].j = j;
            col[nc].i = i;
            col[nc].c = e;
            v[nc++]   = e == c ? 8.0 + 0.1 * ((i + 2 * j + 3 * k) % 5) : 0.2 / (1 + e + c);
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
        }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A KSPSolve() with -gilu_backend backend; *napply, *ngpu, *ncpu: the applies and copies of the KSPSolve() alone */
static PetscErrorCode Solve(DM da, Mat A, Vec b, const char backend[], const Events *ev, Vec x, PetscInt *napply, PetscInt *ngpu, PetscInt *ncpu)
{
  KSP      ksp;
  PC       pc;
  PetscInt a0 = 0, g0 = 0, c0 = 0, a1 = 0, g1 = 0, c1 = 0;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-gilu_backend", backend)); /* read by every component at its setup */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-50, 1e-50, PETSC_DEFAULT, 6)); /* 6 iterations whatever the back-end */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCApply(pc, b, x)); /* the first apply makes the device data (its copies are setup) */
  PetscCall(Count(ev->apply, &a0));
  PetscCall(Count(ev->togpu, &g0));
  PetscCall(Count(ev->tocpu, &c0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Count(ev->apply, &a1));
  PetscCall(Count(ev->togpu, &g1));
  PetscCall(Count(ev->tocpu, &c1));
  *napply = a1 - a0;
  *ngpu   = g1 - g0;
  *ncpu   = c1 - c0;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscOptionsClearValue(NULL, "-gilu_backend"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char what[], Vec xh, Vec xe, PetscReal tol)
{
  PetscReal d;

  PetscFunctionBegin;
  PetscCall(PetscGILUTestVecRelDiff(xh, xe, &d));
  if (d > tol) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: cudaemu differs from the host (relative %g, allowed %g)\n", what, (double)d, (double)tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCopies(const char what[], PetscInt napply, PetscInt ngpu, PetscInt ncpu, PetscInt expect)
{
  PetscFunctionBegin;
  if (napply < 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: the solve applied nothing\n", what));
  if (ngpu != expect * napply || ncpu != expect * napply)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " applies made %" PetscInt_FMT " copies to the device and %" PetscInt_FMT " back, expected %" PetscInt_FMT " each\n", what, napply, ngpu, ncpu, expect * napply));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestStencilGPU(DM da, const Events *ev, PetscReal tol)
{
  Mat      A;
  Vec      x, yh, ye;
  PetscInt g0 = 0, c0 = 0, g1 = 0, c1 = 0;

  PetscFunctionBegin;
  PetscCall(DMSetMatType(da, MATSTENCILGPU));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(FillMatrix(da, A));
  PetscCall(MatCreateVecs(A, &x, &yh));
  PetscCall(VecDuplicate(yh, &ye));
  PetscCall(VecSetRandom(x, NULL));
  for (PetscInt pass = 0; pass < 2; pass++) { /* pass 1: after MatScale() (new values: copied again) */
    if (pass) PetscCall(MatScale(A, 0.5));
    PetscCall(MatStencilGPUMultWithBackend(A, PETSCGILU_BACKEND_HOST, x, yh));
    PetscCall(MatStencilGPUMultWithBackend(A, PETSCGILU_BACKEND_CUDAEMU, x, ye)); /* the first: copies the values */
    PetscCall(Compare(pass ? "stencilgpu after MatScale" : "stencilgpu", yh, ye, tol));
    PetscCall(Count(ev->togpu, &g0));
    PetscCall(Count(ev->tocpu, &c0));
    for (PetscInt t = 0; t < 3; t++) PetscCall(MatStencilGPUMultWithBackend(A, PETSCGILU_BACKEND_CUDAEMU, x, ye));
    PetscCall(Count(ev->togpu, &g1));
    PetscCall(Count(ev->tocpu, &c1));
    PetscCall(CheckCopies("stencilgpu", 3, g1 - g0, c1 - c0, 1));
    PetscCall(Compare("stencilgpu, repeated", yh, ye, tol));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&ye));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          da;
  Mat         A;
  Vec         b, xh, xe;
  PetscInt    n = 6, dof = 1, na, ng, nc;
  PetscReal   tol      = 0;
  char        name[32] = "fgdd";
  Events      ev;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin()); /* the event counts, without -log_view */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), NULL));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscLogEventGetId("GILUCopyToGPU", &ev.togpu));
  PetscCall(PetscLogEventGetId("GILUCopyToCPU", &ev.tocpu));
  PetscCall(PetscLogEventGetId("PCApply", &ev.apply));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  {
    PetscBool isstencil;

    PetscCall(PetscStrcmp(name, "stencilgpu", &isstencil));
    if (isstencil) {
      PetscCall(TestStencilGPU(da, &ev, tol));
      PetscCall(PetscRandomDestroy(&rnd));
      PetscCall(DMDestroy(&da));
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(FillMatrix(da, A));
  PetscCall(MatCreateVecs(A, &xh, &b));
  PetscCall(VecDuplicate(xh, &xe));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(Solve(da, A, b, "host", &ev, xh, &na, &ng, &nc));
  PetscCall(CheckCopies("host back-end", na, ng, nc, 0));
  PetscCall(Solve(da, A, b, "cudaemu", &ev, xe, &na, &ng, &nc));
  PetscCall(CheckCopies(name, na, ng, nc, 1));
  PetscCall(Compare(name, xh, xe, tol));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&xe));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: defined(PETSC_USE_LOG)

   testset:
     requires: cudaemu
     output_file: output/empty.out

     test:
       suffix: fgdd
       args: -case fgdd -pc_type fgdd -pc_fgdd_subdomain_rows 40 -pc_fgdd_apply {{syncfree vertex}} -pc_fgdd_fused {{0 1}} -dof {{1 2}}

     test:
       suffix: fgdd_edge
       args: -case fgdd -pc_type fgdd -pc_fgdd_subdomain_rows 40 -pc_fgdd_apply edge -tol 1e-12

     test:
       suffix: atsilu
       args: -case atsilu -pc_type atsilu -dof {{1 2}}

     test:
       suffix: gilu
       args: -case gilu -pc_type ilu -pc_factor_mat_solver_type gilu -pc_factor_mat_ordering_type {{natural rcm}} -pc_factor_levels {{0 1}} -dof {{1 2}}

     test:
       suffix: stencilgpu
       args: -case stencilgpu -dof {{1 3}}

TEST*/
