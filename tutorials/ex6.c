/*
   Tutorial 6: one implicit time step of a linearized Cahn-Hilliard system for a ternary
   mixture.

     PDE: the concentrations c1, c2 (c3 = 1 - c1 - c2 is eliminated) of a ternary mixture
     evolve by

        c_t = div(M grad mu),     mu = H c - Gamma Laplace c,       c = (c1, c2),

     linearized about a uniform state: M is the 2x2 mobility matrix, H the Hessian of the
     bulk free energy and Gamma the gradient-energy matrix (kappa [2 1; 1 2] once c3 is
     eliminated from kappa/2 sum_i |grad c_i|^2).  Eliminating the chemical potential mu
     and taking one backward-Euler step gives the fourth-order system

        c/dt - M H Laplace c + M Gamma Laplace^2 c = c_old/dt     in (0,1)^d.

     c and the values just outside the grid are zero (c = dc/dn = 0 on the boundary).

     Discretization: L = the standard second-order (5- or 7-point) Laplacian, and
     Laplace^2 ~ L L, so the operator at offset o is the dense 2x2 block

        delta_o0 I/dt - (M H) L(o) + (M Gamma) (L L)(o).

     L L couples a point to all offsets with |o_x| + |o_y| + |o_z| <= 2: the "diamond-25"
     stencil in 3D (the centre, 6 at distance 1, 6 at distance 2 along the axes and the
     12 face diagonals) and 13 points in 2D.  M H and M Gamma are full 2x2 matrices, so
     every coupling is a full dense 2x2 block.  The DMDA uses DMDA_STENCIL_BOX of width 2
     with DMSetMatrixPreallocateOnly(): the matrix holds only the diamond, not the
     125-point (25-point) box.  The matrix is nonsymmetric: the default Krylov method is GMRES.

     Run it with
       ./ex6                                  (3D, 17^3 grid, GMRES + PETSc's ILU(0))
       ./ex6 -dim 2 -kappa 1e-4 -dt 1e-2
       ./ex6 -pc_type structilu
       ./ex6 -dm_mat_type baij -pc_type ilu   (block ILU(0) with 2x2 blocks)
       mpiexec -n 2 ./ex6 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Linearized ternary Cahn-Hilliard step, biharmonic system, diamond-25 (3D) or diamond-13 (2D) stencil, DoF 2.\n\
Options:\n\
  -dim <2,3>          : space dimension (default 3)\n\
  -kappa <kappa>      : gradient-energy coefficient (default 1e-3)\n\
  -dt <dt>            : time step (default 1e-3)\n\
  -da_grid_x <m> ...  : number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

#define DOF 2

typedef struct {
  PetscInt    o[3];
  PetscScalar blk[DOF][DOF];
} StencilBlock;

typedef struct {
  PetscInt     dim;
  PetscReal    kappa, dt;
  PetscReal    M[DOF][DOF], H[DOF][DOF]; /* mobility and free-energy Hessian */
  PetscInt     n;                        /* number of stencil points, 25 or 13 */
  StencilBlock st[25];
} AppCtx;

/* Assemble the dense 2x2 block of every offset of the diamond (see the header comment) */
static PetscErrorCode BuildStencil(DM da, AppCtx *user)
{
  const PetscInt dim  = user->dim;
  PetscInt       m[3] = {1, 1, 1}, a, b, i, j, k, r, c;
  PetscReal      h[3] = {1, 1, 1}, L[3][3][3], LL[5][5][5], MH[DOF][DOF], MG[DOF][DOF];
  const PetscInt lo   = (dim == 3) ? -1 : 0; /* 2D: only the plane o_z = 0 */

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (a = 0; a < dim; a++) h[a] = 1.0 / (PetscReal)(m[a] + 1);

  /* The Laplacian L(o), o in {-1,0,1}^3, stored at L[o_z+1][o_y+1][o_x+1] */
  PetscCall(PetscMemzero(L, sizeof(L)));
  for (a = 0; a < dim; a++) {
    PetscInt o[3] = {1, 1, 1};

    L[1][1][1] -= 2.0 / (h[a] * h[a]);
    o[a] = 0;
    L[o[2]][o[1]][o[0]] += 1.0 / (h[a] * h[a]);
    o[a] = 2;
    L[o[2]][o[1]][o[0]] += 1.0 / (h[a] * h[a]);
  }
  /* L L (o) = sum over o1 + o2 = o of L(o1) L(o2), stored at LL[o_z+2][o_y+2][o_x+2] */
  PetscCall(PetscMemzero(LL, sizeof(LL)));
  for (i = 0; i < 27; i++) {
    for (j = 0; j < 27; j++) {
      const PetscInt x1 = i % 3, y1 = (i / 3) % 3, z1 = i / 9, x2 = j % 3, y2 = (j / 3) % 3, z2 = j / 9;

      LL[z1 + z2][y1 + y2][x1 + x2] += L[z1][y1][x1] * L[z2][y2][x2];
    }
  }
  /* M H and M Gamma, Gamma = kappa [2 1; 1 2] */
  for (r = 0; r < DOF; r++) {
    for (c = 0; c < DOF; c++) {
      MH[r][c] = MG[r][c] = 0.0;
      for (b = 0; b < DOF; b++) {
        MH[r][c] += user->M[r][b] * user->H[b][c];
        MG[r][c] += user->M[r][b] * user->kappa * (b == c ? 2.0 : 1.0);
      }
    }
  }
  /* the diamond |o|_1 <= 2 in lexicographic (z, y, x) order, i.e. in increasing column order */
  user->n = 0;
  for (k = 2 * lo; k <= -2 * lo; k++) {
    for (j = -2; j <= 2; j++) {
      for (i = -2; i <= 2; i++) {
        StencilBlock   *sb = &user->st[user->n];
        const PetscReal l  = (PetscAbsInt(i) <= 1 && PetscAbsInt(j) <= 1 && PetscAbsInt(k) <= 1) ? L[k + 1][j + 1][i + 1] : 0.0;

        if (PetscAbsInt(i) + PetscAbsInt(j) + PetscAbsInt(k) > 2) continue;
        sb->o[0] = i;
        sb->o[1] = j;
        sb->o[2] = k;
        for (r = 0; r < DOF; r++)
          for (c = 0; c < DOF; c++) sb->blk[r][c] = (i == 0 && j == 0 && k == 0 && r == c ? 1.0 / user->dt : 0.0) - MH[r][c] * l + MG[r][c] * LL[k + 2][j + 2][i + 2];
        user->n++;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c_old/dt with a smooth deterministic c_old */
static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  AppCtx      *user = (AppCtx *)ctx;
  DM           da;
  PetscInt     m[3] = {1, 1, 1}, xs, ys, zs, xm, ym, zm, i, j, k;
  PetscScalar *barr;

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(b, &barr)); /* owned part: zm x ym x xm points of DOF values, i fastest */
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscReal x = (i + 1.0) / (m[0] + 1), y = (j + 1.0) / (m[1] + 1), z = (user->dim == 3) ? (k + 1.0) / (m[2] + 1) : 0.5;
        const PetscInt  p = ((k - zs) * ym + (j - ys)) * xm + (i - xs);

        barr[p * DOF + 0] = 0.1 * PetscSinReal(3.0 * PETSC_PI * x) * PetscSinReal(2.0 * PETSC_PI * y) * PetscSinReal(PETSC_PI * z) / user->dt;
        barr[p * DOF + 1] = 0.1 * PetscSinReal(PETSC_PI * x) * PetscSinReal(4.0 * PETSC_PI * y) * PetscSinReal(2.0 * PETSC_PI * z) / user->dt;
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
  MatStencil  row, col[25];
  PetscScalar v[DOF * 25 * DOF]; /* one block row: DOF x (n DOF), row-oriented */

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
        /* the neighbours inside the grid, in increasing column order (values outside are zero) ... */
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
        /* ... and their blocks side by side, the layout MatSetValuesBlockedStencil() expects */
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
  user.dim   = 3;
  user.kappa = 1.e-3;
  user.dt    = 1.e-3;
  /* mobility M and Hessian H = [f1'' + f3'', f3''; f3'', f2'' + f3''] with f'' = (1, 1.5, 0.5): both symmetric positive definite */
  user.M[0][0] = 1.0;
  user.M[0][1] = user.M[1][0] = -0.3;
  user.M[1][1]                = 0.8;
  user.H[0][0]                = 1.5;
  user.H[0][1] = user.H[1][0] = 0.5;
  user.H[1][1]                = 2.0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Cahn-Hilliard tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, user.dim, &user.dim, NULL, 2, 3));
  PetscCall(PetscOptionsReal("-kappa", "Gradient-energy coefficient", NULL, user.kappa, &user.kappa, NULL));
  PetscCall(PetscOptionsReal("-dt", "Time step", NULL, user.dt, &user.dt, NULL));
  PetscOptionsEnd();
  PetscCheck(user.kappa > 0.0 && user.dt > 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Need -kappa > 0 and -dt > 0");

  /* two fields per node; a box of width 2 has room for the diamond, and only the entries set enter the matrix */
  if (user.dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, DOF, 2, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 33, 33, PETSC_DECIDE, PETSC_DECIDE, DOF, 2, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatrixPreallocateOnly(da, PETSC_TRUE));
  PetscCall(DMDASetFieldName(da, 0, "c1"));
  PetscCall(DMDASetFieldName(da, 1, "c2"));

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
      output_file: output/ex6_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex6_bjacobi_2_dim-2.out

TEST*/
