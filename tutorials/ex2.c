/*
   Tutorial 2: anisotropic diffusion with a full (constant) diffusion tensor.

     PDE:  -div(K grad u) = 1   in (0,1)^d,   u = 0 on the boundary,
           K symmetric positive definite with off-diagonal entries K_ab <= 0 (a != b).

     For constant K the operator is -sum_a K_aa u_aa - 2 sum_{a<b} K_ab u_ab.  The mixed
     derivative is approximated with the seven-point formula that uses the "anti-diagonal"
     neighbours e_a - e_b and e_b - e_a only:

        u_ab ~ -( u(+e_a-e_b) + u(-e_a+e_b) - u(+e_a) - u(-e_a) - u(+e_b) - u(-e_b) + 2 u ) / (2 h_a h_b)

     With K_ab <= 0 this gives the weights (w_ab = |K_ab| / (h_a h_b))

        centre               2 sum_a K_aa / h_a^2 - 2 sum_{a<b} w_ab
        +-e_a                -K_aa / h_a^2 + sum_{b != a} w_ab
        +-(e_a - e_b)        -w_ab

     a symmetric, weakly diagonally dominant M-matrix (strictly dominant next to the
     boundary) as long as K_aa / h_a^2 >= sum_{b != a} w_ab; the program checks this.

     Stencil: the DMDA holds the interior nodes only (boundary values are eliminated).
     3D: "diamond-13" = star-7 plus (1,-1,0),(-1,1,0),(1,0,-1),(-1,0,1),(0,1,-1),(0,-1,1),
         which is exactly the pattern of the ILU(1) factors of star-7.
     2D: star-5 plus (1,-1),(-1,1), seven points.
     These offsets are not a DMDA stencil type, so the DMDA uses DMDA_STENCIL_BOX of width 1
     together with DMSetMatrixPreallocateOnly(): the matrix then contains only the entries
     set below instead of the whole 27-point (9-point) box.  Default Krylov method: CG.

     Run it with
       ./ex2                                  (3D, 17^3 grid, CG + PETSc's ILU(0))
       ./ex2 -dim 2 -K 1,1,-0.5               (K_xx, K_yy, K_xy in 2D)
       ./ex2 -K 1,2,1,-0.4,-0.2,-0.6          (K_xx, K_yy, K_zz, K_xy, K_xz, K_yz in 3D)
       ./ex2 -pc_type structilu
       ./ex2 -pc_type ilu -pc_factor_levels 1
       ./ex2 -dm_mat_type baij -pc_type ilu
       mpiexec -n 2 ./ex2 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Anisotropic diffusion -div(K grad u) = 1 with a full tensor K, diamond-13 (3D) or 7-point (2D) stencil.\n\
Options:\n\
  -dim <2,3>   : space dimension (default 3)\n\
  -K <...>     : K_xx,K_yy,K_zz,K_xy,K_xz,K_yz in 3D or K_xx,K_yy,K_xy in 2D, off-diagonals <= 0\n\
  -da_grid_x <m> ...: number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

/* One point of a constant-coefficient stencil: its offset and its weight */
typedef struct {
  PetscInt    o[3];
  PetscScalar w;
} StencilPoint;

typedef struct {
  PetscReal    K[3][3]; /* the diffusion tensor */
  PetscInt     n;       /* number of stencil points: 13 in 3D, 7 in 2D */
  StencilPoint st[13];
} AppCtx;

/*
   Build the weights of the diamond stencil for the grid of the DMDA (see the header comment).
   The points are stored in lexicographic (z, y, x) order of their offsets, which is the order of
   the column indices in a row: DMCreateMatrix() tells the matrix that each row arrives complete
   with sorted columns (MAT_SORTED_FULL), and with DMSetMatrixPreallocateOnly() nothing else
   puts the row in order.
*/
static PetscErrorCode BuildStencil(DM da, AppCtx *user)
{
  PetscInt  dim, m[3] = {1, 1, 1}, a, b, o[3];
  PetscReal h[3] = {1, 1, 1}, w[3][3], axis[3], center = 0.0;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (a = 0; a < dim; a++) h[a] = 1.0 / (PetscReal)(m[a] + 1);
  /* w[a][b] = |K_ab| / (h_a h_b): weight of the mixed-derivative term of the pair (a,b) */
  for (a = 0; a < dim; a++)
    for (b = 0; b < dim; b++) w[a][b] = (a == b) ? 0.0 : PetscAbsReal(user->K[a][b]) / (h[a] * h[b]);
  for (a = 0; a < dim; a++) {
    axis[a] = -user->K[a][a] / (h[a] * h[a]);
    for (b = 0; b < dim; b++) axis[a] += w[a][b];
    PetscCheck(axis[a] <= 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "The scheme is not an M-matrix in direction %" PetscInt_FMT ": need K_aa/h_a^2 >= sum_b |K_ab|/(h_a h_b); reduce the off-diagonal entries of K", a);
    center += 2.0 * user->K[a][a] / (h[a] * h[a]);
    for (b = a + 1; b < dim; b++) center -= 2.0 * w[a][b];
  }
  user->n = 0;
  for (o[2] = (dim == 3 ? -1 : 0); o[2] <= (dim == 3 ? 1 : 0); o[2]++) {
    for (o[1] = -1; o[1] <= 1; o[1]++) {
      for (o[0] = -1; o[0] <= 1; o[0]++) {
        PetscInt    nnz = 0, first = -1, second = -1;
        PetscScalar v;

        for (a = 0; a < 3; a++) {
          if (!o[a]) continue;
          if (first < 0) first = a;
          else second = a;
          nnz++;
        }
        /* the point itself, +-e_a, +-(e_a - e_b); any other offset is not part of the diamond */
        if (nnz == 0) v = center;
        else if (nnz == 1) v = axis[first];
        else if (nnz == 2 && o[first] == -o[second]) v = -w[first][second];
        else continue;
        user->st[user->n].o[0] = o[0];
        user->st[user->n].o[1] = o[1];
        user->st[user->n].o[2] = o[2];
        user->st[user->n].w    = v;
        user->n++;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  PetscInt    M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, q, n;
  MatStencil  row, col[13];
  PetscScalar v[13];

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
        row.c = 0;
        for (q = 0, n = 0; q < user->n; q++) {
          const PetscInt ii = i + user->st[q].o[0], jj = j + user->st[q].o[1], kk = k + user->st[q].o[2];

          if (ii < 0 || ii >= M || jj < 0 || jj >= N || kk < 0 || kk >= P) continue; /* boundary: eliminated */
          col[n].i = ii;
          col[n].j = jj;
          col[n].k = kk;
          col[n].c = 0;
          v[n++]   = user->st[q].w;
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
  PetscInt  dim = 3, its, nk, a;
  PetscReal kin[6], bnorm, rnorm;
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* registers -pc_type structilu */
  PetscCall(PetscMemzero(&user, sizeof(user)));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Anisotropic diffusion tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, dim, &dim, NULL, 2, 3));
  /* Default tensors: strong diffusion along (1,-1) in 2D, along the plane x + y + z = 0 in 3D */
  if (dim == 3) {
    kin[0] = kin[1] = kin[2] = 1.0;
    kin[3] = kin[4] = kin[5] = -0.45;
  } else {
    kin[0] = kin[1] = 1.0;
    kin[2]          = -0.9;
  }
  nk = (dim == 3) ? 6 : 3;
  PetscCall(PetscOptionsRealArray("-K", "Diffusion tensor: K_xx,K_yy,K_zz,K_xy,K_xz,K_yz (3D) or K_xx,K_yy,K_xy (2D)", NULL, kin, &nk, &flg));
  PetscCheck(!flg || nk == (dim == 3 ? 6 : 3), PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-K needs %d values in %" PetscInt_FMT "D", dim == 3 ? 6 : 3, dim);
  PetscOptionsEnd();
  for (a = 0; a < dim; a++) user.K[a][a] = kin[a];
  if (dim == 3) {
    user.K[0][1] = user.K[1][0] = kin[3];
    user.K[0][2] = user.K[2][0] = kin[4];
    user.K[1][2] = user.K[2][1] = kin[5];
  } else user.K[0][1] = user.K[1][0] = kin[2];
  /* the pairs (x,y), (y,z), (z,x) */
  for (a = 0; a < 3; a++) PetscCheck(user.K[a][(a + 1) % 3] <= 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "This discretization needs off-diagonal entries K_ab <= 0 (it uses the neighbours e_a - e_b)");

  /* A box DMDA of width 1 has room for every diamond offset; only the entries we set enter the matrix */
  if (dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 33, 33, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatrixPreallocateOnly(da, PETSC_TRUE));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, &user));
  PetscCall(KSPSetComputeOperators(ksp, ComputeMatrix, &user));
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
      output_file: output/ex2_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex2_bjacobi_2_dim-2.out

TEST*/
