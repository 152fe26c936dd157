/*
   Tutorial 3: convection-diffusion with a constant velocity.

     PDE:  -eps Laplace u + beta . grad u = 1   in (0,1)^d,   u = 0 on the boundary.

     Discretization: second-order central differences for the diffusion and first-order
     upwind differences for the convection, on the interior nodes x_i = (i + 1) h,
     h = 1/(m + 1) (the boundary values are zero and are eliminated).  In direction a:

        beta_a u_a  ~  beta_a (u - u(-e_a)) / h_a   if beta_a > 0,
                       beta_a (u(+e_a) - u) / h_a   if beta_a < 0,

     so the weights are

        centre   sum_a (2 eps / h_a^2 + |beta_a| / h_a)
        -e_a     -eps / h_a^2 - max(beta_a, 0) / h_a
        +e_a     -eps / h_a^2 - max(-beta_a, 0) / h_a

     an M-matrix for any eps > 0 and beta (upwinding needs no cell-Peclet limit).  The
     matrix is nonsymmetric, so the default Krylov method is GMRES.  With a strong flow
     (small eps) along the grid diagonals the matrix is close to triangular and ILU(0)
     is very effective (try -eps 1e-4 -beta 1,1,1).

     Stencil: star-7 in 3D, star-5 in 2D (DMDA_STENCIL_STAR, width 1, one DoF).

     Run it with
       ./ex3                                  (3D, 17^3 grid, GMRES + PETSc's ILU(0))
       ./ex3 -dim 2 -eps 1e-3 -beta -1,2
       ./ex3 -pc_type structilu
       ./ex3 -dm_mat_type baij -pc_type ilu
       mpiexec -n 2 ./ex3 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Convection-diffusion -eps Laplace u + beta.grad u = 1, upwind, star-7 (3D) or star-5 (2D) stencil.\n\
Options:\n\
  -dim <2,3>         : space dimension (default 3)\n\
  -eps <e>           : diffusion coefficient (default 0.01)\n\
  -beta <bx,by[,bz]> : velocity (default 1,-0.5,0.25 in 3D and 1,-0.5 in 2D)\n\
  -da_grid_x <m> ... : number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

typedef struct {
  PetscReal eps;     /* diffusion coefficient */
  PetscReal beta[3]; /* velocity */
} AppCtx;

static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  PetscFunctionBeginUser;
  /* f = 1; the boundary values are zero, so nothing is moved to the right-hand side */
  PetscCall(VecSet(b, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeMatrix(KSP ksp, Mat J, Mat A, void *ctx)
{
  AppCtx     *user = (AppCtx *)ctx;
  DM          da;
  PetscInt    dim, m[3] = {1, 1, 1}, xs, ys, zs, xm, ym, zm, i, j, k, d, n;
  PetscScalar wm[3], wp[3], wc = 0.0, v[7];
  MatStencil  row, col[7];

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, &dim, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  /* The weights of the -e_d neighbour (wm), the +e_d neighbour (wp) and the centre (wc) */
  for (d = 0; d < dim; d++) {
    const PetscReal h = 1.0 / (PetscReal)(m[d] + 1), b = user->beta[d];

    wm[d] = -user->eps / (h * h) - PetscMax(b, 0.0) / h;
    wp[d] = -user->eps / (h * h) - PetscMax(-b, 0.0) / h;
    wc += 2.0 * user->eps / (h * h) + PetscAbsReal(b) / h;
  }
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscInt idx[3] = {i, j, k};

        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        /* The neighbours that are unknowns, in increasing column order: z-, y-, x-, centre, x+, y+, z+ */
        n = 0;
        for (d = dim - 1; d >= 0; d--) {
          if (idx[d] == 0) continue; /* the neighbour is a boundary node: eliminated */
          col[n] = row;
          if (d == 0) col[n].i--;
          if (d == 1) col[n].j--;
          if (d == 2) col[n].k--;
          v[n++] = wm[d];
        }
        col[n] = row;
        v[n++] = wc;
        for (d = 0; d < dim; d++) {
          if (idx[d] == m[d] - 1) continue;
          col[n] = row;
          if (d == 0) col[n].i++;
          if (d == 1) col[n].j++;
          if (d == 2) col[n].k++;
          v[n++] = wp[d];
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
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
  PetscInt  dim = 3, its, nb;
  PetscReal bnorm, rnorm;
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* registers -pc_type structilu */
  user.eps     = 0.01;
  user.beta[0] = 1.0;
  user.beta[1] = -0.5;
  user.beta[2] = 0.25;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Convection-diffusion tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, dim, &dim, NULL, 2, 3));
  PetscCall(PetscOptionsReal("-eps", "Diffusion coefficient", NULL, user.eps, &user.eps, NULL));
  nb = dim;
  PetscCall(PetscOptionsRealArray("-beta", "Velocity (one value per direction)", NULL, user.beta, &nb, &flg));
  PetscCheck(!flg || nb == dim, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-beta needs %" PetscInt_FMT " values", dim);
  PetscOptionsEnd();
  PetscCheck(user.eps > 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-eps must be positive");
  if (dim == 2) user.beta[2] = 0.0;

  if (dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 33, 33, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));

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
      output_file: output/ex3_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex3_bjacobi_2_dim-2.out

TEST*/
