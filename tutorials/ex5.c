/*
   Tutorial 5: one implicit time step of the linearized compressible Euler equations.

     PDE: small perturbations Q = (rho, rho u, rho v, rho w, E) of a uniform subsonic state
     Q0 (conservative variables, ideal gas, gamma = 1.4) obey

        Q_t + sum_a A_a dQ/dx_a = 0,     A_a = dF_a/dQ (Q0), the 5x5 flux Jacobians.

     One backward-Euler step Q/dt + sum_a A_a dQ/dx_a = Q_old/dt is solved; Q_old is an
     acoustic pulse.  Perturbations vanish outside the grid (the boundary values are
     eliminated).  In 2D the same five equations are used for flows that do not depend on
     z: the z-momentum is carried along by the flow.

     Discretization: fourth-order central differences plus fourth-difference matrix
     (Roe-type) artificial dissipation in each direction a:

        A_a (Q(-2) - 8 Q(-1) + 8 Q(+1) - Q(+2)) / (12 h_a)
          + kappa |A_a| (Q(-2) - 4 Q(-1) + 6 Q - 4 Q(+1) + Q(+2)) / h_a

     |A_a| = R |Lambda| R^-1 has the same eigenvectors as A_a; since A_a has only the
     three eigenvalues u_a - c, u_a, u_a + c, it is the quadratic polynomial in A_a that
     interpolates |lambda| at those three values.  kappa = 1/12 (the default) turns the
     scheme into the classic third-order upwind-biased scheme.  The time step is
     dt = cfl h_min / max_a(|u_a| + c).

     Stencil: star-13 in 3D (offsets +-1 and +-2 along each axis), star-9 in 2D
     (DMDA_STENCIL_STAR of width 2).  Every coupling is a full dense 5x5 block: |A_a|
     couples all five variables when all velocity components of Q0 are nonzero.
     The matrix is nonsymmetric: the default Krylov method is GMRES.

     Run it with
       ./ex5                                  (3D, 17^3 grid, GMRES + PETSc's ILU(0))
       ./ex5 -dim 2 -cfl 4
       ./ex5 -pc_type structilu
       ./ex5 -dm_mat_type baij -pc_type ilu   (block ILU(0) with 5x5 blocks)
       mpiexec -n 2 ./ex5 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Linearized Euler equations, implicit step, 4th-order differences + matrix dissipation, star-13 (3D) or star-9 (2D) stencil, DoF 5.\n\
Options:\n\
  -dim <2,3>          : space dimension (default 3)\n\
  -cfl <cfl>          : CFL number of the time step (default 2)\n\
  -kappa <kappa>      : artificial dissipation coefficient (default 1/12)\n\
  -da_grid_x <m> ...  : number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

#define DOF 5

typedef struct {
  PetscInt    o[3];
  PetscScalar blk[DOF][DOF];
} StencilBlock;

typedef struct {
  PetscInt     dim;
  PetscReal    gamma, rho, p, vel[3]; /* the uniform state Q0 */
  PetscReal    cfl, kappa, dt;
  PetscInt     n; /* number of stencil points, 13 or 9 */
  StencilBlock st[13];
} AppCtx;

/* Flux Jacobian A = dF_a/dQ of the Euler equations at the state of user, direction a */
static void FluxJacobian(const AppCtx *user, PetscInt a, PetscReal A[DOF][DOF])
{
  const PetscReal g = user->gamma, *u = user->vel, un = u[a];
  const PetscReal q2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], phi = 0.5 * (g - 1.0) * q2;
  const PetscReal H = g / (g - 1.0) * user->p / user->rho + 0.5 * q2; /* total enthalpy */
  PetscInt        i, j;

  for (i = 0; i < DOF; i++)
    for (j = 0; j < DOF; j++) A[i][j] = 0.0;
  A[0][1 + a] = 1.0;
  for (i = 0; i < 3; i++) {
    A[1 + i][0] = (i == a ? phi : 0.0) - u[i] * un;
    for (j = 0; j < 3; j++) A[1 + i][1 + j] = u[i] * (j == a ? 1.0 : 0.0) - (i == a ? (g - 1.0) * u[j] : 0.0) + (i == j ? un : 0.0);
    A[1 + i][4] = (i == a) ? g - 1.0 : 0.0;
  }
  A[4][0] = un * (phi - H);
  for (j = 0; j < 3; j++) A[4][1 + j] = (j == a ? H : 0.0) - (g - 1.0) * u[j] * un;
  A[4][4] = g * un;
}

/* |A| = sum_k |l_k| prod_{m != k} (A - l_m I) / (l_k - l_m), l = (u_a - c, u_a, u_a + c) */
static void AbsFluxJacobian(const AppCtx *user, PetscInt a, PetscReal A[DOF][DOF], PetscReal absA[DOF][DOF])
{
  const PetscReal c = PetscSqrtReal(user->gamma * user->p / user->rho), l[3] = {user->vel[a] - c, user->vel[a], user->vel[a] + c};
  PetscReal       A2[DOF][DOF];
  PetscInt        i, j, k;

  for (i = 0; i < DOF; i++)
    for (j = 0; j < DOF; j++)
      for (A2[i][j] = 0.0, k = 0; k < DOF; k++) A2[i][j] += A[i][k] * A[k][j];
  for (i = 0; i < DOF; i++)
    for (j = 0; j < DOF; j++) absA[i][j] = 0.0;
  for (k = 0; k < 3; k++) {
    const PetscReal lm = l[(k + 1) % 3], ln = l[(k + 2) % 3], w = PetscAbsReal(l[k]) / ((l[k] - lm) * (l[k] - ln));

    /* (A - lm I)(A - ln I) = A^2 - (lm + ln) A + lm ln I */
    for (i = 0; i < DOF; i++)
      for (j = 0; j < DOF; j++) absA[i][j] += w * (A2[i][j] - (lm + ln) * A[i][j] + (i == j ? lm * ln : 0.0));
  }
}

/* Assemble the dense 5x5 block of every offset of the star stencil (see the header comment) */
static PetscErrorCode BuildStencil(DM da, AppCtx *user)
{
  const PetscInt  dim = user->dim;
  const PetscReal c   = PetscSqrtReal(user->gamma * user->p / user->rho);
  /* weights of A_a (central) and kappa |A_a| (dissipation) for the offsets -2..2 */
  const PetscReal wc[5] = {1.0 / 12, -8.0 / 12, 0.0, 8.0 / 12, -1.0 / 12}, wd[5] = {1.0, -4.0, 6.0, -4.0, 1.0};
  PetscInt        m[3] = {1, 1, 1}, o[3], a, i, j;
  PetscReal       h[3] = {1, 1, 1}, hmin = 1.0, smax = 0.0, A[3][DOF][DOF], absA[3][DOF][DOF];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (a = 0; a < dim; a++) {
    h[a] = 1.0 / (PetscReal)(m[a] + 1);
    hmin = PetscMin(hmin, h[a]);
    smax = PetscMax(smax, PetscAbsReal(user->vel[a]) + c);
    FluxJacobian(user, a, A[a]);
    AbsFluxJacobian(user, a, A[a], absA[a]);
  }
  user->dt = user->cfl * hmin / smax;

  /* the star offsets in lexicographic (z, y, x) order, i.e. in increasing column order */
  user->n = 0;
  for (o[2] = (dim == 3 ? -2 : 0); o[2] <= (dim == 3 ? 2 : 0); o[2]++) {
    for (o[1] = -2; o[1] <= 2; o[1]++) {
      for (o[0] = -2; o[0] <= 2; o[0]++) {
        StencilBlock *sb    = &user->st[user->n];
        PetscInt      naxes = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);

        if (naxes > 1) continue; /* not on an axis: not part of the star */
        for (a = 0; a < 3; a++) sb->o[a] = o[a];
        for (i = 0; i < DOF; i++)
          for (j = 0; j < DOF; j++) sb->blk[i][j] = (naxes == 0 && i == j) ? 1.0 / user->dt : 0.0;
        for (a = 0; a < dim; a++) {
          PetscInt s = o[a];

          if (naxes == 1 && s == 0) continue; /* this offset lies on another axis */
          for (i = 0; i < DOF; i++)
            for (j = 0; j < DOF; j++) sb->blk[i][j] += (wc[s + 2] * A[a][i][j] + user->kappa * wd[s + 2] * absA[a][i][j]) / h[a];
        }
        user->n++;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Q_old / dt: an acoustic pulse rho' = g, u' = 0, p' = c^2 g with a Gaussian g centred in the box */
static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  AppCtx         *user = (AppCtx *)ctx;
  const PetscReal c2 = user->gamma * user->p / user->rho, *u = user->vel, q2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const PetscReal shape[DOF] = {1.0, u[0], u[1], u[2], 0.5 * q2 + c2 / (user->gamma - 1.0)};
  DM              da;
  PetscInt        m[3] = {1, 1, 1}, xs, ys, zs, xm, ym, zm, i, j, k, c;
  PetscScalar    *barr;

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(BuildStencil(da, user)); /* sets dt */
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(b, &barr)); /* owned part: zm x ym x xm points of DOF values, i fastest */
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscReal x = (i + 1.0) / (m[0] + 1) - 0.5, y = (j + 1.0) / (m[1] + 1) - 0.5, z = (user->dim == 3) ? (k + 1.0) / (m[2] + 1) - 0.5 : 0.0;
        const PetscReal g = PetscExpReal(-20.0 * (x * x + y * y + z * z));

        for (c = 0; c < DOF; c++) barr[(((k - zs) * ym + (j - ys)) * xm + (i - xs)) * DOF + c] = g * shape[c] / user->dt;
      }
    }
  }
  PetscCall(VecRestoreArray(b, &barr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeMatrix(KSP ksp, Mat J, Mat A, void *ctx)
{
  AppCtx     *user = (AppCtx *)ctx;
  DM          da;
  PetscInt    M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, q, n, r, c;
  MatStencil  row, col[13];
  PetscScalar v[DOF * 13 * DOF]; /* one block row: DOF x (n DOF), row-oriented */

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(BuildStencil(da, user));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        row.i = i;
        row.j = j;
        row.k = k;
        /* count the neighbours inside the grid (boundary values are eliminated) ... */
        for (q = 0, n = 0; q < user->n; q++) {
          const StencilBlock *sb = &user->st[q];
          const PetscInt      ii = i + sb->o[0], jj = j + sb->o[1], kk = k + sb->o[2];

          if (ii < 0 || ii >= M || jj < 0 || jj >= N || kk < 0 || kk >= P) continue;
          col[n].i = ii;
          col[n].j = jj;
          col[n].k = kk;
          col[n].c = q; /* remember which stencil point this is */
          n++;
        }
        /* ... then lay out their blocks side by side, the layout MatSetValuesBlockedStencil() expects */
        for (r = 0; r < DOF; r++)
          for (q = 0; q < n; q++)
            for (c = 0; c < DOF; c++) v[r * n * DOF + q * DOF + c] = user->st[col[q].c].blk[r][c];
        for (q = 0; q < n; q++) col[q].c = 0;
        PetscCall(MatSetValuesBlockedStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  KSP       ksp;
  DM        da;
  Mat       A;
  Vec       x, b, r;
  AppCtx    user;
  PetscInt  its;
  PetscReal bnorm, rnorm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* registers -pc_type structilu */
  PetscCall(PetscMemzero(&user, sizeof(user)));
  user.dim    = 3;
  user.gamma  = 1.4;
  user.rho    = 1.0;
  user.p      = 1.0 / 1.4; /* speed of sound c = 1 */
  user.vel[0] = 0.6;       /* Mach 0.78, all components nonzero */
  user.vel[1] = -0.4;
  user.vel[2] = 0.3;
  user.cfl    = 2.0;
  user.kappa  = 1.0 / 12.0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Euler tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, user.dim, &user.dim, NULL, 2, 3));
  PetscCall(PetscOptionsReal("-cfl", "CFL number of the time step", NULL, user.cfl, &user.cfl, NULL));
  PetscCall(PetscOptionsReal("-kappa", "Artificial dissipation coefficient", NULL, user.kappa, &user.kappa, NULL));
  PetscOptionsEnd();
  PetscCheck(user.cfl > 0.0 && user.kappa >= 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Need -cfl > 0 and -kappa >= 0");

  /* five fields per node, star stencil of width 2 */
  if (user.dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, DOF, 2, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 33, 33, PETSC_DECIDE, PETSC_DECIDE, DOF, 2, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "density"));
  PetscCall(DMDASetFieldName(da, 1, "x-momentum"));
  PetscCall(DMDASetFieldName(da, 2, "y-momentum"));
  PetscCall(DMDASetFieldName(da, 3, "z-momentum"));
  PetscCall(DMDASetFieldName(da, 4, "energy"));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, &user));
  PetscCall(KSPSetComputeOperators(ksp, ComputeMatrix, &user));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, NULL, NULL));

  /* Report the iteration count and the true relative residual ||b - A x|| / ||b||, rounded so it can be diffed */
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetSolution(ksp, &x));
  PetscCall(KSPGetRhs(ksp, &b));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Number of iterations = %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Relative residual norm %s\n", rnorm < 1.e-4 * bnorm ? "< 1e-4" : "> 1e-4 (not converged)"));

  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # PETSc's ILU(0) and StructILU, on AIJ and on BAIJ matrices: the same iterations (one output per dimension)
   test:
      suffix: ilu
      args: -dim {{2 3}separate output} -dm_mat_type {{aij baij}shared output} -pc_type {{ilu structilu}shared output} -ksp_converged_reason

   # two ranks: block Jacobi with ILU(0) or StructILU blocks
   test:
      suffix: bjacobi_2
      nsize: 2
      args: -dim {{2 3}separate output} -dm_mat_type {{aij baij}shared output} -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output} -ksp_converged_reason

   # and StructILU itself, which is block Jacobi across the ranks
   test:
      suffix: structilu_2
      nsize: 2
      args: -pc_type structilu -ksp_converged_reason
      output_file: output/ex5_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex5_bjacobi_2_dim-2.out

   test:
      suffix: cudaemu_3d
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend {{host cudaemu}shared output} -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7

   # the lines mapping of the device kernels (the StructILU paper, Section 4.1; 2 x 2 lines per block): the host's iterations
   test:
      suffix: cudaemu_lines_3d
      requires: cudaemu
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_mma {{0 1}shared output} -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      output_file: output/ex5_cudaemu_3d.out

   # and the two-substage pipelined factorization (the StructILU paper, Section 4.2.2)
   test:
      suffix: cudaemu_lines_factor_pipeline_3d
      requires: cudaemu
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      output_file: output/ex5_cudaemu_3d.out

   test:
      suffix: cudaemu_mma_3d
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -ksp_view -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      filter: grep -o -e "DoF 5" -e "FP64 tensor cores (m8n8k4 MMA)" -e "iterations = [0-9]*"

   test:
      suffix: cudaemu_2d
      args: -dim 2 -da_grid_x 17 -da_grid_y 17 -pc_type structilu -gilu_backend {{host cudaemu}shared output} -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7

TEST*/
