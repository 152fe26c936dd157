/*
   Tutorial 4: one linearized, implicit time step of the incompressible Navier-Stokes
   equations (an Oseen problem) with equal-order stabilized finite elements.

     PDE (d = 2 or 3, velocity u with d components, pressure p):

        u/dt + (a . grad) u + G u - nu Laplace u + grad p = f
                                   div u + delta p         = 0      in (0,1)^d,

     the Newton linearization of the convection term about the base flow U(x) = a + G x,
     whose gradient G is a constant trace-free matrix.  delta > 0 is a small artificial
     compressibility.  All fields vanish on the boundary (a simplification: the pressure
     needs no boundary condition in the continuous problem, but Dirichlet data keep this
     example short and do no harm to the linear algebra it demonstrates).

     Discretization: continuous Q1 (bi/trilinear) finite elements for velocity and pressure
     on a uniform grid, stabilized with SUPG/PSPG (Galerkin least-squares type):
        Galerkin terms
      + tau ((a . grad) v,  u/dt + (a . grad) u + G u + grad p)      momentum (SUPG)
      + tau (grad q,        u/dt + (a . grad) u + G u + grad p)      continuity (PSPG)
     with tau = ((2/dt)^2 + (2|a|/h)^2 + 9 (4 nu/h^2)^2)^(-1/2).  The PSPG term gives the
     pressure block tau (grad q, grad p), which makes equal-order elements stable and the
     diagonal blocks invertible.  On a uniform grid every integral of products of Q1 basis
     functions and their derivatives is a tensor product of the 1D integrals

        mass    int phi_i phi_j   = h (1/6, 2/3, 1/6)     for j - i = -1, 0, 1
        stiff   int phi_i' phi_j' = (-1, 2, -1) / h
        deriv   int phi_i phi_j'  = (-1/2, 0, 1/2),   int phi_i' phi_j = (1/2, 0, -1/2)

     so the program computes one dense (d+1)x(d+1) block per neighbour offset once and
     then assembles the matrix point by point.

     Stencil: box-27 in 3D (DoF 4: u, v, w, p), box-9 in 2D (DoF 3: u, v, p); every
     neighbour inside the grid is coupled by a full dense DoF x DoF block (the SUPG/PSPG
     terms and the base-flow gradient G couple every pair of fields).  The DMDA holds the
     interior nodes only.  The matrix is nonsymmetric: the default Krylov method is GMRES.

     Run it with
       ./ex4                                  (3D, 17^3 grid, GMRES + PETSc's ILU(0))
       ./ex4 -dim 2 -nu 0.01 -dt 0.1
       ./ex4 -pc_type structilu
       ./ex4 -dm_mat_type baij -pc_type ilu   (block ILU(0) with 4x4 blocks)
       mpiexec -n 2 ./ex4 -pc_type bjacobi -sub_pc_type structilu
     (a program that is not linked with petscgilu loads it with
      -dll_append /path/to/libpetscgilu.so).
*/

static char help[] = "Linearized incompressible Navier-Stokes (Oseen) step, stabilized Q1-Q1 elements, box-27 (3D, DoF 4) or box-9 (2D, DoF 3) stencil.\n\
Options:\n\
  -dim <2,3>          : space dimension (default 3)\n\
  -nu <nu>            : kinematic viscosity (default 0.01)\n\
  -dt <dt>            : time step (default 0.05)\n\
  -delta <delta>      : artificial compressibility (default 1e-3)\n\
  -da_grid_x <m> ...  : number of unknowns in each direction (default 17 in 3D, 33 in 2D)\n\n";

#include <petscksp.h>
#include <petscgilu.h> /* PCSTRUCTILU; link with -lpetscgilu */
#include <petscdmda.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0) /* PETSc 3.18 has no PETSC_SUCCESS */
#endif

#define MAXDOF 4
#define NONE   (-1) /* "no derivative" in Q1Integral() */

typedef struct {
  PetscInt    o[3];                /* offset of the neighbour */
  PetscScalar blk[MAXDOF][MAXDOF]; /* blk[r][c]: coupling of field r of the point to field c of the neighbour */
} StencilBlock;

typedef struct {
  PetscInt     dim, dof;
  PetscReal    nu, dt, delta;
  PetscReal    a[3], G[3][3]; /* base flow U(x) = a + G x */
  PetscInt     n;             /* number of stencil points, 27 or 9 */
  StencilBlock st[27];
} AppCtx;

/* One-dimensional Q1 integrals for the offset s = j - i in {-1, 0, 1}; di, dj say whether phi_i, phi_j are differentiated */
static PetscReal Q1Integral1D(PetscBool di, PetscBool dj, PetscInt s, PetscReal h)
{
  if (di && dj) return (s == 0 ? 2.0 : -1.0) / h;
  if (dj) return 0.5 * s;
  if (di) return -0.5 * s;
  return h * (s == 0 ? 2.0 / 3.0 : 1.0 / 6.0);
}

/* int (d phi_i / d x_a) (d phi_j / d x_b) over (0,1)^dim for offset o = j - i; a or b = NONE means no derivative */
static PetscReal Q1Integral(PetscInt dim, const PetscReal h[], PetscInt a, PetscInt b, const PetscInt o[])
{
  PetscReal v = 1.0;

  for (PetscInt e = 0; e < dim; e++) v *= Q1Integral1D((PetscBool)(a == e), (PetscBool)(b == e), o[e], h[e]);
  return v;
}

/* Assemble the (d+1)x(d+1) block of every offset of the box stencil; see the header comment for the terms */
static PetscErrorCode BuildStencil(DM da, AppCtx *user)
{
  const PetscInt dim = user->dim, p = dim; /* the pressure is the last field */
  PetscInt       m[3] = {1, 1, 1}, o[3], r, c, e, f;
  PetscReal      h[3] = {1, 1, 1}, hmin = 1.0, anorm = 0.0, tau;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (e = 0; e < dim; e++) {
    h[e] = 1.0 / (PetscReal)(m[e] + 1);
    hmin = PetscMin(hmin, h[e]);
    anorm += user->a[e] * user->a[e];
  }
  anorm = PetscSqrtReal(anorm);
  tau   = 1.0 / PetscSqrtReal(PetscSqr(2.0 / user->dt) + PetscSqr(2.0 * anorm / hmin) + 9.0 * PetscSqr(4.0 * user->nu / (hmin * hmin)));

  user->n = 0;
  for (o[2] = (dim == 3 ? -1 : 0); o[2] <= (dim == 3 ? 1 : 0); o[2]++) {
    for (o[1] = -1; o[1] <= 1; o[1]++) {
      for (o[0] = -1; o[0] <= 1; o[0]++) {
        StencilBlock *sb   = &user->st[user->n++];
        PetscReal     mass = Q1Integral(dim, h, NONE, NONE, o), conv = 0.0, visc = 0.0, supg_t = 0.0, supg_c = 0.0, stiff = 0.0;

        PetscCall(PetscMemzero(sb, sizeof(*sb)));
        for (e = 0; e < 3; e++) sb->o[e] = o[e];
        for (e = 0; e < dim; e++) {
          conv += user->a[e] * Q1Integral(dim, h, NONE, e, o);                                       /* (v, a.grad u) */
          stiff += Q1Integral(dim, h, e, e, o);                                                      /* (grad v, grad u) */
          supg_t += user->a[e] * Q1Integral(dim, h, e, NONE, o);                                     /* (a.grad v, u) */
          for (f = 0; f < dim; f++) supg_c += user->a[e] * user->a[f] * Q1Integral(dim, h, e, f, o); /* (a.grad v, a.grad u) */
        }
        visc = user->nu * stiff;
        /* momentum equations: rows r < dim */
        for (r = 0; r < dim; r++) {
          for (c = 0; c < dim; c++) {
            PetscReal v = user->G[r][c] * (mass + tau * supg_t);

            if (r == c) v += mass / user->dt + conv + visc + tau * (supg_t / user->dt + supg_c);
            sb->blk[r][c] = v;
          }
          sb->blk[r][p] = Q1Integral(dim, h, NONE, r, o); /* (v, grad p) */
          for (e = 0; e < dim; e++) sb->blk[r][p] += tau * user->a[e] * Q1Integral(dim, h, e, r, o);
        }
        /* continuity equation: row p */
        for (c = 0; c < dim; c++) {
          PetscReal v = Q1Integral(dim, h, NONE, c, o) + tau * Q1Integral(dim, h, c, NONE, o) / user->dt; /* (q, div u) + tau (grad q, u/dt) */

          for (f = 0; f < dim; f++) v += tau * user->a[f] * Q1Integral(dim, h, c, f, o);       /* tau (grad q, a.grad u) */
          for (e = 0; e < dim; e++) v += tau * user->G[e][c] * Q1Integral(dim, h, e, NONE, o); /* tau (grad q, G u) */
          sb->blk[p][c] = v;
        }
        sb->blk[p][p] = user->delta * mass + tau * stiff;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeRHS(KSP ksp, Vec b, void *ctx)
{
  AppCtx      *user = (AppCtx *)ctx;
  DM           da;
  PetscInt     m[3] = {1, 1, 1}, n, i, c;
  PetscReal    vol  = 1.0;
  PetscScalar *barr;

  PetscFunctionBeginUser;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetInfo(da, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (c = 0; c < user->dim; c++) vol /= (PetscReal)(m[c] + 1);
  /* (v, f) with f = (1, ..., 1) in the momentum equations (row sums of the mass matrix: h^d), 0 in the continuity equation */
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(VecGetArray(b, &barr));
  for (i = 0; i < n / user->dof; i++) {
    for (c = 0; c < user->dim; c++) barr[i * user->dof + c] = vol;
    barr[i * user->dof + user->dim] = 0.0;
  }
  PetscCall(VecRestoreArray(b, &barr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComputeMatrix(KSP ksp, Mat J, Mat A, void *ctx)
{
  AppCtx        *user = (AppCtx *)ctx;
  const PetscInt dof  = user->dof;
  DM             da;
  PetscInt       M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, q, n, r, c;
  MatStencil     row, col[27];
  PetscScalar    v[MAXDOF * 27 * MAXDOF];

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
        /* count the neighbours inside the grid (boundary nodes are eliminated) ... */
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
        /* ... then lay out their blocks side by side, the dof x (n dof) row-oriented array MatSetValuesBlockedStencil() expects */
        for (r = 0; r < dof; r++)
          for (q = 0; q < n; q++)
            for (c = 0; c < dof; c++) v[r * n * dof + q * dof + c] = user->st[col[q].c].blk[r][c];
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
  /* base flow: velocity a and a trace-free velocity gradient G */
  const PetscReal a3[3] =
    {
      1.0, -0.5, 0.25
  },
                  G3[3][3] = {{0.2, 0.5, -0.3}, {-0.4, -0.3, 0.2}, {0.3, -0.2, 0.1}};
  const PetscReal a2[2] =
    {
      1.0, -0.5
  },
                  G2[2][2] = {{0.2, 0.5}, {-0.4, -0.2}};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* registers -pc_type structilu */
  PetscCall(PetscMemzero(&user, sizeof(user)));
  user.dim   = 3;
  user.nu    = 0.01;
  user.dt    = 0.05;
  user.delta = 1.e-3;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Navier-Stokes tutorial options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Space dimension", NULL, user.dim, &user.dim, NULL, 2, 3));
  PetscCall(PetscOptionsReal("-nu", "Kinematic viscosity", NULL, user.nu, &user.nu, NULL));
  PetscCall(PetscOptionsReal("-dt", "Time step", NULL, user.dt, &user.dt, NULL));
  PetscCall(PetscOptionsReal("-delta", "Artificial compressibility", NULL, user.delta, &user.delta, NULL));
  PetscOptionsEnd();
  PetscCheck(user.nu >= 0.0 && user.dt > 0.0 && user.delta >= 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Need -nu >= 0, -dt > 0 and -delta >= 0");
  user.dof = user.dim + 1;
  for (PetscInt e = 0; e < user.dim; e++) {
    user.a[e] = (user.dim == 3) ? a3[e] : a2[e];
    for (PetscInt f = 0; f < user.dim; f++) user.G[e][f] = (user.dim == 3) ? G3[e][f] : G2[e][f];
  }

  /* dof fields per node, box stencil of width 1: the Q1 element couples a node to all its 3^d - 1 neighbours */
  if (user.dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 17, 17, 17, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, user.dof, 1, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 33, 33, PETSC_DECIDE, PETSC_DECIDE, user.dof, 1, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "u"));
  PetscCall(DMDASetFieldName(da, 1, "v"));
  if (user.dim == 3) PetscCall(DMDASetFieldName(da, 2, "w"));
  PetscCall(DMDASetFieldName(da, user.dim, "p"));

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
      output_file: output/ex4_bjacobi_2_dim-3.out

   test:
      suffix: structilu_2_2d
      nsize: 2
      args: -dim 2 -dm_mat_type baij -pc_type structilu -ksp_converged_reason
      output_file: output/ex4_bjacobi_2_dim-2.out

   test:
      suffix: cudaemu_3d
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend {{host cudaemu}shared output} -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7

   # the lines mapping of the device kernels (the StructILU paper, Section 4.1; 2 x 2 lines per block): the host's iterations
   test:
      suffix: cudaemu_lines_3d
      requires: cudaemu
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_mma {{0 1}shared output} -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      output_file: output/ex4_cudaemu_3d.out

   # and the two-substage pipelined factorization (the StructILU paper, Section 4.2.2)
   test:
      suffix: cudaemu_lines_factor_pipeline_3d
      requires: cudaemu
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -ksp_converged_reason -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      output_file: output/ex4_cudaemu_3d.out

   # DoF 4 factors on the CUDA cores (DoF threads per point), not on the tensor cores, whose 8 x 8 MMA would pad every product
   test:
      suffix: cudaemu_dof4_3d
      args: -da_grid_x 6 -da_grid_y 6 -da_grid_z 6 -pc_type structilu -gilu_backend cudaemu -ksp_view -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
      filter: grep -o -e "DoF 4" -e "FP64 tensor cores (m8n8k4 MMA)" -e "DoF threads per grid point" -e "iterations = [0-9]*"

TEST*/
