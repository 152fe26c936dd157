/*
   Tutorial 1: the Poisson equation on the unit square or cube.

     PDE:  -Laplace u = f   in (0,1)^d,   u = g on the boundary,   d = 2 or 3,
           with the exact solution u = 1 + x^2 + 2 y^2 (+ 3 z^2) so that
           f = -2 (1 + 2 + 3) (the 3D case; -6 in 2D) and g = u on the boundary.

     Discretization: second-order central differences on a uniform grid.  The DMDA
     holds only the unknowns, i.e. the m interior nodes x_i = (i + 1) h, h = 1/(m + 1)
     of each direction; the boundary values g are moved to the right-hand side.  At
     point (i,j,k) the row is

        (2/hx^2 + 2/hy^2 + 2/hz^2) u(i,j,k) - (u(i-1,j,k) + u(i+1,j,k))/hx^2
                                            - (u(i,j-1,k) + u(i,j+1,k))/hy^2
                                            - (u(i,j,k-1) + u(i,j,k+1))/hz^2

     Stencil: star-7 in 3D, star-5 in 2D (DMDA_STENCIL_STAR, width 1, one DoF).
     Rows next to the boundary keep every neighbour that lies inside the grid.
     The matrix is symmetric positive definite, so the default Krylov method is CG.
     Second-order differences are exact for a quadratic u, so the discrete solution
     equals the exact one up to the solver tolerance.

     Run it with
       ./ex1                                  (3D, 17^3 grid, CG + PETSc's ILU(0))
       ./ex1 -dim 2 -da_grid_x 65 -da_grid_y 65
       ./ex1 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -pc_type structilu
       ./ex1 -pc_type icc                     (or -pc_type ilu, -pc_type gamg, ...)
       ./ex1 -dm_mat_type baij -pc_type ilu
       mpiexec -n 2 ./ex1 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Poisson equation -Laplace u = f with Dirichlet conditions, star-7 (3D) or star-5 (2D) stencil.\n\
Options:\n\
  -dim <2,3>        : space dimension (default 3)\n\
  -da_grid_x <m> ...: number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

/* The exact solution, also used as boundary data g; its Laplacian is 2 + 4 (+ 6). */
static PetscReal Exact(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  return 1.0 + x * x + 2.0 * y * y + (dim == 3 ? 3.0 * z * z : 0.0);
}

/* Grid spacing of the m unknowns of one direction, which lie strictly inside (0,1). */
static PetscReal Spacing(PetscInt m)
{
  return 1.0 / (PetscReal)(m + 1);
}

static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  DM           da;
  PetscInt     dim, M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, d;
  PetscReal    h[3], ih2[3];
  PetscScalar *barr;

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  if (dim == 2) P = 1;
  h[0] = Spacing(M);
  h[1] = Spacing(N);
  h[2] = Spacing(P);
  for (d = 0; d < 3; d++) ih2[d] = 1.0 / (h[d] * h[d]);
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  /* The owned part of b is a zm x ym x xm box (zm = 1 in 2D) stored with i fastest */
  PetscCall(VecGetArray(b, &barr));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscReal x = (i + 1) * h[0], y = (j + 1) * h[1], z = (k + 1) * h[2];
        PetscScalar     v = (dim == 3) ? -12.0 : -6.0; /* f = -Laplace u */

        /* Dirichlet elimination: a neighbour on the boundary is known, move it to the right-hand side */
        if (i == 0) v += ih2[0] * Exact(dim, 0.0, y, z);
        if (i == M - 1) v += ih2[0] * Exact(dim, 1.0, y, z);
        if (j == 0) v += ih2[1] * Exact(dim, x, 0.0, z);
        if (j == N - 1) v += ih2[1] * Exact(dim, x, 1.0, z);
        if (dim == 3 && k == 0) v += ih2[2] * Exact(dim, x, y, 0.0);
        if (dim == 3 && k == P - 1) v += ih2[2] * Exact(dim, x, y, 1.0);
        barr[((k - zs) * ym + (j - ys)) * xm + (i - xs)] = v;
      }
    }
  }
  PetscCall(VecRestoreArray(b, &barr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeMatrix(KSP ksp, Mat J, Mat A, void *ctx)
{
  DM          da;
  PetscInt    dim, M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, d, n;
  PetscReal   ih2[3];
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  if (dim == 2) P = 1;
  ih2[0] = 1.0 / (Spacing(M) * Spacing(M));
  ih2[1] = 1.0 / (Spacing(N) * Spacing(N));
  ih2[2] = (dim == 3) ? 1.0 / (Spacing(P) * Spacing(P)) : 0.0;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscInt idx[3] = {i, j, k}, ext[3] = {M, N, P};

        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        /* The neighbours that are unknowns (inside the grid), in increasing column order:
           z-, y-, x-, centre, x+, y+, z+ */
        n = 0;
        for (d = dim - 1; d >= 0; d--) {
          if (idx[d] == 0) continue; /* the neighbour is a boundary node: eliminated */
          col[n] = row;
          if (d == 0) col[n].i--;
          if (d == 1) col[n].j--;
          if (d == 2) col[n].k--;
          v[n++] = -ih2[d];
        }
        col[n] = row;
        v[n++] = 2.0 * (ih2[0] + ih2[1] + ih2[2]);
        for (d = 0; d < dim; d++) {
          if (idx[d] == ext[d] - 1) continue;
          col[n] = row;
          if (d == 0) col[n].i++;
          if (d == 1) col[n].j++;
          if (d == 2) col[n].k++;
          v[n++] = -ih2[d];
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
  PetscInt  dim = 3, its;
  PetscReal bnorm, rnorm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* registers -pc_type structilu */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Poisson tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, dim, &dim, NULL, 2, 3));
  PetscOptionsEnd();

  /* The grid of unknowns; -da_grid_x/y/z, -da_processors_x ... are applied by DMSetFromOptions() */
  if (dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 33, 33, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));

  /* The KSP asks the DM for the matrix (so -dm_mat_type aij|baij works) and fills it through the callbacks */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetComputeOperators(ksp, ComputeMatrix, NULL));
  PetscCall(KSPSetType(ksp, KSPCG));
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
      output_file: output/ex1_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex1_bjacobi_2_dim-2.out

   # PCICC on MATSTENCILGPU (MatSolverType structilu, IC path): PETSc's AIJ ICC iterations, which are its ILU(0) ones here
   test:
      suffix: stencilgpu_icc_3d
      args: -dm_mat_type {{aij stencilgpu}shared output} -pc_type icc -ksp_converged_reason
      output_file: output/ex1_ilu_dim-3.out

   test:
      suffix: stencilgpu_icc_2d
      args: -dim 2 -dm_mat_type {{aij stencilgpu}shared output} -pc_type icc -pc_factor_shift_type {{positive_definite none}shared output} -ksp_converged_reason
      output_file: output/ex1_ilu_dim-2.out

   test:
      suffix: stencilgpu_icc1_2d
      args: -dim 2 -dm_mat_type {{aij stencilgpu}shared output} -pc_type icc -pc_factor_levels 1 -ksp_converged_reason

   test:
      suffix: stencilgpu_bjacobi_icc_2
      nsize: 2
      args: -dm_mat_type {{aij stencilgpu}shared output} -pc_type bjacobi -sub_pc_type icc -ksp_converged_reason
      output_file: output/ex1_bjacobi_2_dim-3.out

TEST*/
