static char help[] = "Tests PCFGDD (fine-grained domain decomposition) on a 3D convection-diffusion DMDA problem.\n\
  -n <n>               : grid points per direction (default 12)\n\
  -dim <2|3>           : dimension (default 3)\n\
  -dof <d>             : unknowns per grid point, coupled (default 1)\n\
  -beta <b>            : convection (nonsymmetric part, default 0.3)\n\
  -compare_bjacobi     : also solve with PCBJACOBI + ILU(0) on the same subdomains of the FGDD-permuted matrix\n\
  -check_variants      : compare the apply variants (syncfree and vertex bitwise, fused and not, edge to round-off)\n\
                         and PCBJACOBI's apply on the permuted vector; prints only differences\n\
  -check_threads       : the apply with 1 and 2 host threads, bitwise (every variant); prints only differences\n\
  -check_cudaemu       : compare the cudaemu kernels with the host for every variant, and check the arguments of the\n\
                         developer apply PCFGDDApplyDevice(); prints only differences\n\
  -check_cuda          : the same with the CUDA kernels on the device\n\
  -resolve             : then shift the diagonal (same nonzero pattern, new values) and solve again (refactorization);\n\
                         with -check_cudaemu: compare the device's apply after that re-setup with the host's\n\
  -zero_pivot          : zero the first diagonal entry (the PC must fail, KSP must say DIVERGED_PC_FAILED)\n\
  -counters_report     : (cudaemu) one apply of every variant, fused and separate, counted by the emulation: the sectors\n\
                         per request over the fewest needed of the factor, index and vector loads, launches, copies and\n\
                         synchronizations per apply\n\
  -counters_budget     : (cudaemu) fail when those exceed the budgets of ex11.c's table for this -dof and -n\n\
  -register_outofrange : register the MatPartitioning type \"outofrange\", which puts every vertex in part nparts (as a\n\
                         partitioner built with other integer sizes than PETSc's may): PCFGDD must stop with an error\n\n";

/*
  The key test of PCFGDD: with the vertex-centric (or sync-free) apply it is exactly block Jacobi with ILU(0) on
  the same subdomains. -compare_bjacobi builds that PETSc configuration: the matrix permuted with the FGDD ordering
  (MatPermute()), PCBJACOBI with PCBJacobiSetLocalBlocks() on the subdomain sizes, -sub_pc_type ilu, and solves
  the permuted system: both iteration counts are printed and must be equal.
*/
#include <petscksp.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilutest.h>
#include <petscgilu/private/cudaemu.h>
#include "../src/pc/fgdd/fgdd.h"   /* PCFGDDGetDeviceBuffers(), PCFGDDApplyDevice(): developer level */
#include <petsc/private/matimpl.h> /* a MatPartitioning type of the test's own */

static PetscErrorCode Assemble(DM da, PetscInt dof, PetscReal beta, PetscBool zeropivot, Mat A)
{
  PetscInt    xs, ys, zs, xm, ym, zm, dim, M, N, P;
  PetscScalar v[7 * 8 * 8];
  MatStencil  row, col[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        // clang-format off: the offsets on one line
        const PetscInt off[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        // clang-format on
        PetscInt nc = 0;

        for (PetscInt s = 0; s < (dim == 3 ? 7 : 5); s++) {
          PetscInt ii = i + off[s][0], jj = j + off[s][1], kk = k + off[s][2];

          if (ii < 0 || ii >= M || jj < 0 || jj >= N || kk < 0 || kk >= P) continue;
          col[nc].i = ii;
          col[nc].j = jj;
          col[nc].k = kk;
          for (PetscInt r = 0; r < dof; r++)
            for (PetscInt c = 0; c < dof; c++) {
              PetscScalar a;

              if (s == 0) a = r == c ? (dim == 3 ? 6.5 : 4.5) + 0.5 * (dof - 1) : 0.3 * (PetscReal)(r - c) / dof - 0.1;
              else {
                PetscReal w = (s == 1 ? beta : s == 2 ? -beta : 0.5 * (s % 2 ? beta : -beta));

                a = r == c ? -1.0 - w : -0.05 * (PetscReal)(1 + r + 2 * c) / dof;
              }
              if (zeropivot && s == 0 && r == c && r == 0 && i == 0 && j == 0 && k == 0) a = 0;
              v[(r * 7 + nc) * dof + c] = a; /* row r, column block nc, component c */
            }
          nc++;
        }
        for (PetscInt r = 0; r < dof; r++) {
          PetscScalar vr[7 * 8];
          MatStencil  cc[7 * 8];

          row.i = i;
          row.j = j;
          row.k = k;
          row.c = r;
          for (PetscInt b = 0; b < nc; b++)
            for (PetscInt c = 0; c < dof; c++) {
              cc[b * dof + c]   = col[b];
              cc[b * dof + c].c = c;
              vr[b * dof + c]   = v[(r * 7 + b) * dof + c];
            }
          PetscCall(MatSetValuesStencil(A, 1, &row, nc * dof, cc, vr, INSERT_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* out[i] = in[perm[i]] on the local part (inverse: out[perm[i]] = in[i]) */
/* -register_outofrange: every vertex in part n, one past the last */
static PetscErrorCode MatPartitioningApply_OutOfRange(MatPartitioning part, IS *partitioning)
{
  PetscInt m;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(part->adj, &m, NULL));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)part), m, part->n, 0, partitioning));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatPartitioningCreate_OutOfRange(MatPartitioning part)
{
  PetscFunctionBeginUser;
  part->ops->apply = MatPartitioningApply_OutOfRange;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PermuteLocal(Vec in, IS perm, PetscBool inverse, Vec out)
{
  const PetscScalar *a;
  PetscScalar       *b;
  const PetscInt    *p;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(ISGetLocalSize(perm, &n));
  PetscCall(ISGetIndices(perm, &p));
  PetscCall(VecGetArrayRead(in, &a));
  PetscCall(VecGetArray(out, &b));
  for (PetscInt i = 0; i < n; i++) {
    if (inverse) b[p[i]] = a[i];
    else b[i] = a[p[i]];
  }
  PetscCall(VecRestoreArray(out, &b));
  PetscCall(VecRestoreArrayRead(in, &a));
  PetscCall(ISRestoreIndices(perm, &p));
  PetscFunctionReturn(0);
}

/* The block Jacobi + ILU(0) configuration on FGDD's subdomains: iterations for the permuted system; with
   check, the PC applies of both compared on a vector instead */
static PetscErrorCode CompareBJacobi(Mat A, PC fgdd, KSPType type, Vec b, PetscBool check)
{
  PetscInt        nsub, m, rstart, its;
  const PetscInt *sizes, *p;
  IS              perm, gperm;
  PetscInt       *g;
  Mat             B;
  KSP             ksp;
  PC              pc;
  Vec             bp, xp, y, yp, yb;
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(PCFGDDGetSubdomains(fgdd, &nsub, &sizes, &perm));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(ISGetLocalSize(perm, &m));
  PetscCall(ISGetIndices(perm, &p));
  PetscCall(PetscMalloc1(m, &g));
  for (PetscInt i = 0; i < m; i++) g[i] = rstart + p[i];
  PetscCall(ISRestoreIndices(perm, &p));
  PetscCall(ISCreateGeneral(comm, m, g, PETSC_OWN_POINTER, &gperm));
  /* B(i,j) = A(perm[i], perm[j]) */
  PetscCall(ISSetPermutation(gperm));
  PetscCall(MatPermute(A, gperm, gperm, &B));
  PetscCall(ISDestroy(&gperm));
  PetscCall(VecDuplicate(b, &bp));
  PetscCall(VecDuplicate(b, &xp));
  PetscCall(PermuteLocal(b, perm, PETSC_FALSE, bp));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "bj_"));
  PetscCall(KSPSetOperators(ksp, B, B));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCBJACOBI));
  PetscCall(PCBJacobiSetLocalBlocks(pc, nsub, sizes));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  {
    KSP     *sub;
    PetscInt nl;

    PetscCall(PCBJacobiGetSubKSP(pc, &nl, NULL, &sub));
    for (PetscInt s = 0; s < nl; s++) {
      PC sp;

      PetscCall(KSPSetType(sub[s], KSPPREONLY));
      PetscCall(KSPGetPC(sub[s], &sp));
      PetscCall(PCSetType(sp, PCILU));
    }
  }
  if (check) { /* the applies: bjacobi on the permuted vector against fgdd */
    PetscReal d;

    PetscCall(VecDuplicate(b, &y));
    PetscCall(VecDuplicate(b, &yp));
    PetscCall(VecDuplicate(b, &yb));
    PetscCall(PCApply(fgdd, b, y));
    PetscCall(PCApply(pc, bp, yp));
    PetscCall(PermuteLocal(yp, perm, PETSC_TRUE, yb));
    PetscCall(PetscGILUTestVecRelDiff(yb, y, &d));
    if (d > 1e-12) PetscCall(PetscPrintf(comm, "fgdd apply differs from bjacobi+ilu(0) on the permuted vector: %g\n", (double)d));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&yp));
    PetscCall(VecDestroy(&yb));
  } else {
    PetscCall(KSPSolve(ksp, bp, xp));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(PetscPrintf(comm, "bjacobi + ilu(0) on the same %" PetscInt_FMT " subdomains (process 0) of the permuted matrix: %" PetscInt_FMT " iterations\n", nsub, its));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&bp));
  PetscCall(VecDestroy(&xp));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* every variant, 1 thread against 2, bitwise */
static PetscErrorCode CheckThreads(PC pc, Vec b)
{
  Vec      y1, y2;
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &y1));
  PetscCall(VecDuplicate(b, &y2));
  for (PetscInt v = 0; v < 3; v++)
    for (PetscInt fu = 0; fu < 2; fu++) {
      PetscReal d;

      PetscCall(PCFGDDSetApplyType(pc, (PCFGDDApplyType)v));
      PetscCall(PCFGDDSetFused(pc, (PetscBool)fu));
      PetscCall(PCFGDDSetThreads(pc, 1));
      PetscCall(PCApply(pc, b, y1));
      PetscCall(PCFGDDSetThreads(pc, 2));
      PetscCall(PCApply(pc, b, y2));
      PetscCall(PetscGILUTestVecRelDiff(y1, y2, &d));
      if (d != 0) PetscCall(PetscPrintf(comm, "%s %s: 1 and 2 threads differ by %g\n", PCFGDDApplyTypes[v], fu ? "fused" : "separate", (double)d));
    }
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(0);
}

/* every variant (and fused or not) against vertex fused; dev cudaemu or cuda: each against the host */
static PetscErrorCode CheckVariants(PC pc, Vec b, PetscGILUBackendType dev)
{
  Vec       y0, y;
  MPI_Comm  comm    = PetscObjectComm((PetscObject)pc);
  PetscBool cudaemu = (PetscBool)(dev != PETSCGILU_BACKEND_HOST); /* a device back-end */

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &y0));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCFGDDSetApplyType(pc, PC_FGDD_APPLY_VERTEX));
  PetscCall(PCFGDDSetFused(pc, PETSC_TRUE));
  PetscCall(PCApply(pc, b, y0));
  for (PetscInt v = 0; v < 3; v++)
    for (PetscInt fu = 0; fu < 2; fu++) {
      PetscReal d;

      PetscCall(PCFGDDSetApplyType(pc, (PCFGDDApplyType)v));
      PetscCall(PCFGDDSetFused(pc, (PetscBool)fu));
      if (cudaemu) {
        PetscCall(PCFGDDSetBackend(pc, PETSCGILU_BACKEND_HOST));
        PetscCall(PCApply(pc, b, y0));
        PetscCall(PCFGDDSetBackend(pc, dev));
      }
      PetscCall(PCApply(pc, b, y));
      PetscCall(PetscGILUTestVecRelDiff(y0, y, &d));
      /* syncfree and vertex are the sequential solve of each subdomain, in the same order on the host and in the kernels
         (bitwise; on a GPU nvcc contracts to FMA, round-off); edge sums in another order */
      if ((dev != PETSCGILU_BACKEND_CUDA && v != PC_FGDD_APPLY_EDGE && d != 0) || d > 1e-13)
        PetscCall(PetscPrintf(comm, "%s %s (%s): relative difference %g\n", PCFGDDApplyTypes[v], fu ? "fused" : "separate", cudaemu ? (dev == PETSCGILU_BACKEND_CUDA ? "cuda against host" : "cudaemu against host") : "against vertex fused", (double)d));
    }
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* the argument checks of the developer API PCFGDDApplyDevice() (the kernel benchmark's way in; PCMatApply() cannot give
   columns closer than the local size): on the PC's own buffers for 2 columns, columns n apart and a single column with
   any distance run; 0 columns or 2 columns closer than n (they would overlap: each column's apply would overwrite the
   start of the next), 3 columns (the buffers hold 2: the fused apply would write past y, the separate one past its work
   space) and NULL arrays are errors, not launches. Then PCMatApply() of an empty block: nothing to do, no error */
static PetscErrorCode CheckDeviceArguments(PC pc, PetscGILUBackendType dev)
{
  Mat      A, X, Y;
  PetscInt n;
  void    *x, *y;
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  const struct {
    PetscInt       ncols, dldx, dldy; /* the distances n + dldx, n + dldy */
    PetscBool      null;              /* y NULL */
    PetscErrorCode err;               /* expected */
  } cases[] = {
    {2, 0,  0,  PETSC_FALSE, PETSC_SUCCESS           },
    {1, -1, -1, PETSC_FALSE, PETSC_SUCCESS           }, /* one column: its distance is not used */
    {2, -1, 0,  PETSC_FALSE, PETSC_ERR_ARG_OUTOFRANGE},
    {2, 0,  -1, PETSC_FALSE, PETSC_ERR_ARG_OUTOFRANGE},
    {0, 0,  0,  PETSC_FALSE, PETSC_ERR_ARG_OUTOFRANGE},
    {3, 0,  0,  PETSC_FALSE, PETSC_ERR_ARG_OUTOFRANGE},
    {1, 0,  0,  PETSC_TRUE,  PETSC_ERR_ARG_NULL      },
  };

  PetscFunctionBeginUser;
  PetscCall(PCGetOperators(pc, &A, NULL));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(PCFGDDSetBackend(pc, dev));
  PetscCall(PCFGDDGetDeviceBuffers(pc, 2, &x, &y, NULL));
  for (PetscInt fu = 0; fu < 2; fu++) {
    PetscCall(PCFGDDSetFused(pc, (PetscBool)fu));
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(cases); i++) {
      PetscErrorCode ierr;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = PCFGDDApplyDevice(pc, cases[i].ncols, (const PetscScalar *)x, n + cases[i].dldx, cases[i].null ? NULL : (PetscScalar *)y, n + cases[i].dldy);
      PetscCall(PetscPopErrorHandler());
      if (ierr != cases[i].err)
        PetscCall(PetscPrintf(comm, "PCFGDDApplyDevice() (%s) of %" PetscInt_FMT " columns, ldx %" PetscInt_FMT ", ldy %" PetscInt_FMT "%s (local size %" PetscInt_FMT ", buffers for 2 columns): error %d, expected %d\n", fu ? "fused" : "separate",
                              cases[i].ncols, n + cases[i].dldx, n + cases[i].dldy, cases[i].null ? ", y NULL" : "", n, (int)ierr, (int)cases[i].err));
    }
  }
  PetscCall(PCFGDDSetFused(pc, PETSC_TRUE)); /* as CheckVariants() leaves it */
  PetscCall(MatCreateDense(comm, n, PETSC_DECIDE, PETSC_DETERMINE, 0, NULL, &X));
  PetscCall(MatDuplicate(X, MAT_DO_NOT_COPY_VALUES, &Y));
  PetscCall(PCMatApply(pc, X, Y));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Y));
  PetscFunctionReturn(PETSC_SUCCESS); /* the applies queued on the default stream, before anything later there */
}

/* a numeric re-setup on the device: new values of the same pattern (a diagonal shift) copied into the device's layout
   of the first setup, then the vertex apply compared with the host's (bitwise); stale values would differ */
static PetscErrorCode CheckResetup(PC pc, Mat A, Vec b)
{
  Vec       y0, y;
  PetscReal d;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &y0));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCFGDDSetApplyType(pc, PC_FGDD_APPLY_VERTEX));
  PetscCall(PCFGDDSetBackend(pc, PETSCGILU_BACKEND_CUDAEMU));
  PetscCall(PCApply(pc, b, y)); /* the factors on the device */
  PetscCall(MatShift(A, 0.5));
  PetscCall(PCSetUp(pc)); /* same nonzero pattern: the device keeps its layout, takes the new values */
  PetscCall(PCApply(pc, b, y));
  PetscCall(PCFGDDSetBackend(pc, PETSCGILU_BACKEND_HOST));
  PetscCall(PCApply(pc, b, y0));
  PetscCall(PetscGILUTestVecRelDiff(y0, y, &d));
  if (d != 0) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)pc), "after a re-setup with new values: cudaemu against host: relative difference %g\n", (double)d));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  What the emulation counts of one apply (cudaemu.c's head comment has the rules): sectors / minimum of the loads of the
  factor values (L, U, D^{-1}), of the index arrays (columns, row lengths, level lists, the permutation) and of the vector
  loads and stores (the permuted gathers of the input and scatters of the output, which this ordering does not
  coalesce); launches, copies and synchronizations per apply.
*/
typedef struct {
  double     factor, index, vector;
  PetscInt64 launches, copies, syncs;
} Cost;

/*
  Budgets of make check (-counters_budget): what the kernels measured when they were set (the level-sliced layout of
  cuda/fgdd.cu, jagged columns per level, no padding; the TEST blocks' grids, the default subdomains of about 512 rows)
  with 5% slack on the ratios (above the emulation's schedules, which move no load; enough that a layout that pads or
  misorders a warp's rows again fails), the counts exact (no synchronization: the apply queues its launches, the copy
  back of host vectors is the wait). The factor loads were 3.41 (syncfree), 3.24 (vertex), 1.98 (edge) sectors per
  minimum on star7 20^3 and 3.78, 3.22, 3.70 on 3x3 blocks 12^3 with a thread per row walking its CSR row, then 1.82,
  1.14, 1.14 and 1.45, 1.19, 1.38 with a padded slice per level (ELL). Sync-free stays above 1 as its threads take
  positions from the subdomain's start, so a warp straddles levels, and wait between their rows' loads. Per variant:
  syncfree, vertex, edge; fused or separate (the vector's ratio is the larger, separate's 3 kernels gather and scatter
  it in the permuted order 3 times).
*/
static const struct {
  PetscInt dof, n;
  Cost     max[3];
} budgets[] = {
  {1, 20, {{1.05 * 1.43, 1.05 * 1.46, 1.05 * 1.00, 1, 2, 0}, {1.05 * 1.09, 1.05 * 1.08, 1.05 * 1.00, 1, 2, 0}, {1.05 * 1.07, 1.05 * 1.06, 1.05 * 1.00, 1, 2, 0}}},
  {3, 12, {{1.05 * 1.39, 1.05 * 1.45, 1.05 * 1.29, 1, 2, 0}, {1.05 * 1.15, 1.05 * 1.09, 1.05 * 1.29, 1, 2, 0}, {1.05 * 1.34, 1.05 * 1.05, 1.05 * 1.29, 1, 2, 0}}},
};

static double Ratio(const GILUEmuCounters *c, GILUEmuMemClass cls, PetscBool stores)
{
  PetscInt64 sec = c->sectors[0][cls], min = c->minimum[0][cls];

  if (stores) sec += c->sectors[1][cls], min += c->minimum[1][cls];
  return min ? (double)sec / (double)min : 0.0;
}

/* one apply of every variant on cudaemu, counted alone; printed (-counters_report) and checked (-counters_budget);
   with the budget also PCMatApply() of 4 columns: the launches of one apply, one copy each way, no allocation */
static PetscErrorCode CountApplies(PC pc, Vec b, PetscInt dof, PetscInt n, PetscBool report, PetscBool budget)
{
  Vec         y;
  Mat         X, Y;
  PetscInt    m;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  const Cost *max  = NULL;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++)
    if (budgets[i].dof == dof && budgets[i].n == n) max = budgets[i].max;
  PetscCheck(!budget || max, comm, PETSC_ERR_ARG_WRONG, "-counters_budget: no budget for -dof %" PetscInt_FMT " -n %" PetscInt_FMT " in ex11.c's table", dof, n);
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCFGDDSetBackend(pc, PETSCGILU_BACKEND_CUDAEMU));
  PetscCall(PCApply(pc, b, y)); /* the factors on the device: the setup's copies and launches are not the apply's */
  PetscCall(VecGetLocalSize(b, &m));
  PetscCall(MatCreateDense(comm, m, PETSC_DECIDE, PETSC_DECIDE, 4, NULL, &X));
  PetscCall(MatSetRandom(X, NULL));
  PetscCall(MatDuplicate(X, MAT_DO_NOT_COPY_VALUES, &Y));
  PetscCall(PCMatApply(pc, X, Y)); /* the device's buffers grown to the block: not the block apply's allocations */
  PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
  if (report) PetscCall(PetscPrintf(comm, "variant  fused | factor  index vector (sectors / minimum) | launches copies syncs\n"));
  for (PetscInt v = 0; v < 3; v++)
    for (PetscInt fu = 1; fu >= 0; fu--) {
      GILUEmuCounters c;
      Cost            k;

      PetscCall(PCFGDDSetApplyType(pc, (PCFGDDApplyType)v));
      PetscCall(PCFGDDSetFused(pc, (PetscBool)fu));
      PetscCall(GILUEmuCountersReset());
      PetscCall(PCApply(pc, b, y));
      PetscCall(GILUEmuCountersGet(NULL, &c));
      k.factor   = Ratio(&c, GILU_EMU_MEM_FACTOR, PETSC_FALSE);
      k.index    = Ratio(&c, GILU_EMU_MEM_INDEX, PETSC_FALSE);
      k.vector   = Ratio(&c, GILU_EMU_MEM_VECTOR, PETSC_TRUE);
      k.launches = c.runtime[GILU_EMU_RT_LAUNCH];
      k.copies   = c.runtime[GILU_EMU_RT_COPY_TO_DEVICE] + c.runtime[GILU_EMU_RT_COPY_TO_HOST] + c.runtime[GILU_EMU_RT_COPY_ON_DEVICE];
      k.syncs    = c.runtime[GILU_EMU_RT_SYNC];
      if (report)
        PetscCall(PetscPrintf(comm, "%-8s %5s | %6.2f %6.2f %6.2f                       | %8" PetscInt64_FMT " %6" PetscInt64_FMT " %5" PetscInt64_FMT "\n", PCFGDDApplyTypes[v], fu ? "yes" : "no", k.factor, k.index, k.vector, k.launches, k.copies, k.syncs));
      if (budget) {
        const Cost *m    = &max[v];
        const char *name = PCFGDDApplyTypes[v], *how = fu ? "fused" : "separate";

        /* a ratio of 0: nothing of that class counted (gilu_mem_class(), gilu_ld/gilu_st missing): no budget holds for nothing */
        if (!(k.factor > 0 && k.index > 0 && k.vector > 0)) PetscCall(PetscPrintf(comm, "%s %s: no factor, index or vector loads counted\n", name, how));
        if (k.factor > m->factor) PetscCall(PetscPrintf(comm, "%s %s: factor loads %.3f sectors per minimum, budget %.3f\n", name, how, k.factor, m->factor));
        if (k.index > m->index) PetscCall(PetscPrintf(comm, "%s %s: index loads %.3f sectors per minimum, budget %.3f\n", name, how, k.index, m->index));
        if (k.vector > m->vector) PetscCall(PetscPrintf(comm, "%s %s: vector loads and stores %.3f sectors per minimum, budget %.3f\n", name, how, k.vector, m->vector));
        if (k.launches != (fu ? 1 : 3)) PetscCall(PetscPrintf(comm, "%s %s: %" PetscInt64_FMT " launches per apply, expected %d\n", name, how, k.launches, fu ? 1 : 3));
        if (k.copies > m->copies) PetscCall(PetscPrintf(comm, "%s %s: %" PetscInt64_FMT " copies per apply, budget %" PetscInt64_FMT "\n", name, how, k.copies, m->copies));
        if (k.syncs > m->syncs) PetscCall(PetscPrintf(comm, "%s %s: %" PetscInt64_FMT " synchronizations per apply, budget %" PetscInt64_FMT "\n", name, how, k.syncs, m->syncs));
        PetscCall(GILUEmuCountersReset());
        PetscCall(PCMatApply(pc, X, Y));
        PetscCall(GILUEmuCountersGet(NULL, &c));
        if (c.runtime[GILU_EMU_RT_LAUNCH] != k.launches || c.runtime[GILU_EMU_RT_COPY_TO_DEVICE] != 1 || c.runtime[GILU_EMU_RT_COPY_TO_HOST] != 1 || c.runtime[GILU_EMU_RT_ALLOC] || c.runtime[GILU_EMU_RT_SYNC] > k.syncs)
          PetscCall(PetscPrintf(comm, "%s %s: PCMatApply() of 4 columns: %" PetscInt64_FMT " launches (one apply: %" PetscInt64_FMT "), %" PetscInt64_FMT " + %" PetscInt64_FMT " copies, %" PetscInt64_FMT " allocations, %" PetscInt64_FMT " synchronizations\n", name, how, c.runtime[GILU_EMU_RT_LAUNCH], k.launches, c.runtime[GILU_EMU_RT_COPY_TO_DEVICE], c.runtime[GILU_EMU_RT_COPY_TO_HOST], c.runtime[GILU_EMU_RT_ALLOC], c.runtime[GILU_EMU_RT_SYNC]));
      }
    }
  PetscCall(GILUEmuCountersSetActive(PETSC_FALSE));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Y));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       x, b;
  KSP       ksp;
  PC        pc;
  PetscInt  n = 12, dim = 3, dof = 1, its;
  PetscReal beta    = 0.3;
  PetscBool resolve = PETSC_FALSE, threads = PETSC_FALSE, compare = PETSC_FALSE, variants = PETSC_FALSE, cudaemu = PETSC_FALSE, cuda = PETSC_FALSE, zeropivot = PETSC_FALSE, report = PETSC_FALSE, budget = PETSC_FALSE, outofrange = PETSC_FALSE, isfgdd;
  KSPConvergedReason reason;
  KSPType            ktype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-beta", &beta, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_bjacobi", &compare, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_variants", &variants, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_cudaemu", &cudaemu, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_cuda", &cuda, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_threads", &threads, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-resolve", &resolve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero_pivot", &zeropivot, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counters_report", &report, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counters_budget", &budget, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-register_outofrange", &outofrange, NULL));
  if (outofrange) PetscCall(MatPartitioningRegister("outofrange", MatPartitioningCreate_OutOfRange));
  PetscCheck(dof >= 1 && dof <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dof 1 to 8");
  if (dim == 3) PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, &da));
  else PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, dof, beta, zeropivot, A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecSet(b, 1.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCFGDD));
  PetscCall(KSPSetType(ksp, KSPBCGS));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCFGDD, &isfgdd));
  PetscCall(KSPGetType(ksp, &ktype));
  if (report || budget) {
    Vec r;

    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecSetRandom(r, NULL));
    PetscCall(CountApplies(pc, r, dof, n, report, budget));
    PetscCall(VecDestroy(&r));
  } else if (variants || cudaemu || cuda || threads) {
    Vec r;

    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecSetRandom(r, NULL));
    if (variants) PetscCall(CheckVariants(pc, r, PETSCGILU_BACKEND_HOST));
    if (variants) PetscCall(CompareBJacobi(A, pc, ktype, r, PETSC_TRUE));
    if (cudaemu) PetscCall(CheckVariants(pc, r, PETSCGILU_BACKEND_CUDAEMU));
    if (cudaemu) PetscCall(CheckDeviceArguments(pc, PETSCGILU_BACKEND_CUDAEMU));
    if (cudaemu && resolve) PetscCall(CheckResetup(pc, A, r));
    if (cuda) PetscCall(CheckVariants(pc, r, PETSCGILU_BACKEND_CUDA));
    if (cuda) PetscCall(CheckDeviceArguments(pc, PETSCGILU_BACKEND_CUDA));
    if (threads) PetscCall(CheckThreads(pc, r));
    PetscCall(VecDestroy(&r));
  } else {
    PCType type;

    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PCGetType(pc, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " iterations, %s\n", type, its, KSPConvergedReasons[reason]));
    if (compare && isfgdd) PetscCall(CompareBJacobi(A, pc, ktype, b, PETSC_FALSE));
    if (resolve) {
      PetscCall(MatShift(A, 0.5));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after a diagonal shift: %s: %" PetscInt_FMT " iterations, %s\n", type, its, KSPConvergedReasons[reason]));
      if (compare && isfgdd) PetscCall(CompareBJacobi(A, pc, ktype, b, PETSC_FALSE));
    }
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # the key test: vertex-centric (and syncfree) FGDD = block Jacobi + ILU(0) on the same subdomains (same iterations)
   test:
     suffix: bjacobi_geometric
     args: -compare_bjacobi -pc_fgdd_subdomain_box 4,4,3 -pc_fgdd_apply {{vertex syncfree}shared output}

   test:
     suffix: bjacobi_rows
     args: -compare_bjacobi -n 10 -pc_fgdd_subdomain_rows 64

   # new values, same pattern: refactored, still block Jacobi + ILU(0)
   test:
     suffix: bjacobi_resolve
     args: -compare_bjacobi -resolve -n 8 -dof 3 -dm_mat_type {{aij baij}separate output} -pc_fgdd_subdomain_rows 100
   # the same on the device (emulated): the second setup keeps the device's layout of the pattern and copies only the new
   # values; its apply is the host's bitwise (stale values would not be)
   test:
     suffix: resetup_device
     requires: cudaemu
     output_file: output/empty.out
     args: -check_cudaemu -resolve -n 8 -dof {{1 3}} -dm_mat_type baij -pc_fgdd_subdomain_rows 100

   # PT-Scotch 7 partitions with threads, differently in every run, unless SCOTCH_PTHREAD_NUMBER=1
   test:
     suffix: bjacobi_graph
     requires: graph_partitioner
     env: SCOTCH_PTHREAD_NUMBER=1
     args: -compare_bjacobi -pc_fgdd_partitioner graph -pc_fgdd_subdomain_rows 100

   test:
     suffix: bjacobi_baij
     args: -compare_bjacobi -n 8 -dof {{2 3 5 8}separate output} -dm_mat_type baij -pc_fgdd_subdomain_rows 120

   test:
     suffix: bjacobi_aij_dof3
     args: -compare_bjacobi -n 8 -dof 3 -pc_fgdd_subdomain_rows 120

   test:
     suffix: bjacobi_baij_graph
     requires: graph_partitioner
     env: SCOTCH_PTHREAD_NUMBER=1
     args: -compare_bjacobi -n 8 -dof 3 -dm_mat_type baij -pc_fgdd_partitioner graph -pc_fgdd_subdomain_rows 150

   # more sizes than a box has are an error, not dropped (before: 2,2,2,99 was taken as 2,2,2)
   test:
     suffix: box_too_many
     args: -pc_fgdd_subdomain_box 2,2,2,99
     filter: Error: grep -o -e "-pc_fgdd_subdomain_box takes 1 to 3 sizes nx\[,ny\[,nz\]\] (the missing ones 1), not at least 4"

   test:
     suffix: bjacobi_np2
     nsize: 2
     args: -compare_bjacobi -pc_fgdd_subdomain_box 3,3,3

   test:
     suffix: bjacobi_2d
     args: -compare_bjacobi -dim 2 -n 30 -pc_fgdd_subdomain_box 6,5

   # the edge-centric variant converges (separate L, D, U too)
   test:
     suffix: edge
     args: -pc_fgdd_apply edge -pc_fgdd_fused {{0 1}shared output}

   # the variants against each other and against PCBJACOBI's apply; silent
   test:
     suffix: variants
     output_file: output/empty.out
     args: -check_variants -n 8 -dof {{1 3 5}} -dm_mat_type {{aij baij}} -pc_fgdd_subdomain_rows 60

   test:
     suffix: variants_threads
     requires: graph_partitioner
     output_file: output/empty.out
     env: OMP_NUM_THREADS=2 SCOTCH_PTHREAD_NUMBER=1
     args: -check_variants -n 8 -pc_fgdd_partitioner graph -pc_fgdd_subdomain_rows 60

   # 1 thread against 2, bitwise
   test:
     suffix: threads
     output_file: output/empty.out
     args: -check_threads -n 10 -dof {{1 3}} -dm_mat_type {{aij baij}} -pc_fgdd_subdomain_rows 50

   # the CUDA kernels (emulated, 128 threads per block as on the GPU) against the host, every variant fused and separate,
   # and the argument checks of the developer apply PCFGDDApplyDevice(); silent. Subdomains of 27 rows, then of about
   # 400 (many rows per thread: the sync-free waits and the barriers between levels matter), under three schedules a GPU
   # may choose (threads in order, reversed, shuffled)
   test:
     suffix: cudaemu
     requires: cudaemu
     output_file: output/empty.out
     args: -check_cudaemu -n 6 -dof {{1 3}} -dm_mat_type {{aij baij}} -pc_fgdd_subdomain_rows 40
   test:
     suffix: cudaemu_large
     requires: cudaemu
     output_file: output/empty.out
     args: -check_cudaemu -n 10 -dof {{1 3}} -dm_mat_type {{aij baij}} -pc_fgdd_subdomain_rows 400 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7

   # a subdomain of 13248 rows: the level kernel needs 52992 bytes of shared memory, the apply kernels 158976, more
   # than the 48 KiB of a launch without opt-in, within the opt-in limit of A100 (sm_80, 163 KiB) and H100 (sm_90, 227 KiB)
   test:
     suffix: cudaemu_optin
     requires: cudaemu
     output_file: output/empty.out
     args: -check_cudaemu -n 24 -pc_fgdd_subdomain_box 24,24,23 -gilu_cudaemu_arch {{sm_80 sm_90}shared output}

   # 6859 block rows of size 3 need 192052 bytes: more than an A100 allows (a clear error naming the option), within an H100's
   test:
     suffix: cudaemu_shared_limit
     requires: cudaemu
     args: -check_cudaemu -n 19 -dof 3 -dm_mat_type baij -pc_fgdd_subdomain_box 19,19,19 -gilu_cudaemu_arch sm_80
     filter: Error: grep -o "the largest subdomain has 6859 block rows (block size 3), whose kernel ApplyFused needs 192052 bytes of shared memory per thread block, more than the 166912 bytes this device allows: make the subdomains smaller (-pc_fgdd_subdomain_rows, or a smaller -pc_fgdd_subdomain_box)"
   # emulated devices whose grid takes fewer thread blocks than PCFGDD's 8 subdomains (the setup), or than a block of
   # 4 columns of them (PCMatApply(): one column's apply runs): clear errors naming what to change, not launches the
   # device refuses
   test:
     suffix: cudaemu_grid_limit_setup
     requires: cudaemu
     args: -check_cudaemu -n 8 -pc_fgdd_subdomain_rows 64 -gilu_cudaemu_max_grid_x 7
     filter: Error: grep -o "8 subdomains, a thread block each, are more than the device.s grid takes (7): make the subdomains larger (-pc_fgdd_subdomain_rows)"
   test:
     suffix: cudaemu_grid_limit_block
     requires: cudaemu
     args: -counters_report -n 8 -pc_fgdd_subdomain_rows 64 -gilu_cudaemu_max_grid_x 8
     filter: Error: grep -o "device apply of 4 columns needs 32 thread blocks (8 subdomains each), more than the device.s grid takes (8): apply fewer columns at a time (-ksp_matsolve_batch_size) or make the subdomains larger (-pc_fgdd_subdomain_rows)"
   test:
     suffix: cudaemu_shared_sm90
     requires: cudaemu
     output_file: output/empty.out
     args: -check_cudaemu -n 19 -dof 3 -dm_mat_type baij -pc_fgdd_subdomain_box 19,19,19 -gilu_cudaemu_arch sm_90

   # what one apply would cost on a GPU, counted by the emulation (sectors per request of the factor, index and vector
   # loads, launches, copies, synchronizations), every variant fused and separate, against the budgets of ex11.c: star7
   # 20^3 and 3x3 blocks 12^3
   test:
     suffix: counters
     requires: cudaemu
     args: -counters_report -counters_budget -n 20
   test:
     suffix: counters_blocks
     requires: cudaemu
     args: -counters_report -counters_budget -n 12 -dof 3 -dm_mat_type baij

   # the same on a GPU (the nvcc-built kernels)
   test:
     suffix: cuda
     requires: cuda_device
     output_file: output/empty.out
     args: -check_cuda -n 10 -dof {{1 3}} -dm_mat_type {{aij baij}} -pc_fgdd_subdomain_rows 100

   # the global -gilu_backend alone selects the back-end: the same iterations as the host, the view names cudaemu;
   # the PC's own option overrides it
   test:
     suffix: global_backend
     requires: cudaemu
     args: -n 6 -pc_fgdd_subdomain_rows 40 -ksp_view -gilu_backend {{host cudaemu}separate output}
     filter: grep -E "back-end|iterations," | sed -e "s/; library built.*$//"
   test:
     suffix: backend_override
     requires: cudaemu
     args: -n 6 -pc_fgdd_subdomain_rows 40 -ksp_view -gilu_backend host -pc_fgdd_backend cudaemu
     filter: grep -E "back-end|iterations," | sed -e "s/; library built.*$//"
     output_file: output/ex11_global_backend_gilu_backend-cudaemu.out

   # -ksp_view on the device: the shared memory of the largest subdomain against the device's limit per block (sm_80's
   # and sm_90's), the largest subdomain that fits, the padding of the level-sliced factors
   test:
     suffix: view_device
     requires: cudaemu
     args: -n 8 -dof 3 -dm_mat_type baij -ksp_view -gilu_backend cudaemu -pc_fgdd_subdomain_box 4,4,4 -gilu_cudaemu_arch {{sm_80 sm_90}separate output}
     filter: grep -E "device"

   # the default subdomain size (PETSC_DECIDE): the host's 512 rows; on a device at least 4 subdomains per multiprocessor
   # (the emulation has -gilu_cudaemu_resident of them, 4 by default: 13824 rows / 16 = 864 rows, 9^3 boxes), capped by
   # two resident blocks in a multiprocessor's shared memory: with one multiprocessor and 3x3 blocks the cap binds on
   # sm_80 ((164 KiB / 2 - 1 KiB) / 28 bytes = 2962 block rows: 14^3 boxes), the spread on sm_90 (13824 / 4 = 3456: 15^3)
   test:
     suffix: decide
     requires: cudaemu
     args: -n 24 -ksp_view -gilu_backend {{host cudaemu}separate output}
     filter: grep -E "target rows|subdomains:|cut into|iterations,"
   test:
     suffix: decide_given
     args: -n 24 -ksp_view -pc_fgdd_subdomain_rows -1
     filter: grep -E "target rows|subdomains:|cut into|iterations,"
     output_file: output/ex11_decide_gilu_backend-host.out
   test:
     suffix: bad_rows
     args: -n 6 -pc_fgdd_subdomain_rows 0
     filter: Error: grep -o "subdomain_rows 0: must be positive, or PETSC_DECIDE (-1: chosen for the back-end)"
   test:
     suffix: decide_fit
     requires: cudaemu
     args: -n 24 -dof 3 -dm_mat_type baij -ksp_view -gilu_backend cudaemu -gilu_cudaemu_resident 1 -gilu_cudaemu_arch {{sm_80 sm_90}separate output}
     filter: grep -E "target rows|subdomains:|cut into|iterations,"
   test:
     suffix: decide_graph
     requires: cudaemu graph_partitioner
     env: SCOTCH_PTHREAD_NUMBER=1
     args: -n 24 -ksp_view -gilu_backend cudaemu -pc_fgdd_partitioner graph -gilu_cudaemu_resident 2
     filter: grep -E "target rows|subdomains:|iterations,"

   # cuda where there is no device (or no CUDA build): a clear error
   test:
     suffix: no_device
     requires: !cuda_device
     args: -n 6 -gilu_backend cuda
     filter: Error: grep -o "The CUDA back-end was asked for"

   # -ksp_view: subdomains, dropped nonzeros, levels, variant
   test:
     suffix: view
     args: -n 8 -ksp_view -pc_fgdd_subdomain_box 4,4,4
     filter: grep -v "tolerances\|left preconditioning\|using PRECONDITIONED\|type: bcgs\|maximum iterations"

   test:
     suffix: view_graph_np2
     requires: graph_partitioner
     nsize: 2
     env: SCOTCH_PTHREAD_NUMBER=1
     args: -n 8 -ksp_view -pc_fgdd_partitioner graph -pc_fgdd_subdomain_rows 100 -pc_fgdd_apply syncfree -pc_fgdd_fused 0

   # a partitioner's labels outside [0, nparts) (Debian 12's petsc64 links the 32-bit PT-Scotch): an error that names
   # the partitioner, not an out-of-bounds write in the balancing
   test:
     suffix: partitioner_outofrange
     args: -n 8 -register_outofrange -pc_fgdd_partitioner graph -pc_fgdd_subdomain_rows 100 -pc_fgdd_mat_partitioning_type outofrange
     filter: Error: grep -o "MatPartitioning outofrange put block row 0 in part [0-9]*, not in \[0, [0-9]*): is it built with PETSc.s integer size"

   # as the sub-PC of block Jacobi (graph partitioner: the block has no DMDA)
   test:
     suffix: subpc
     requires: graph_partitioner
     nsize: 2
     env: SCOTCH_PTHREAD_NUMBER=1
     args: -pc_type bjacobi -sub_pc_type fgdd -sub_pc_fgdd_subdomain_rows 100

   # zero pivot: DIVERGED_PC_FAILED
   test:
     suffix: zero_pivot
     args: -zero_pivot -n 6

   # both ranks fail, but the second may be ended by the first one's abort before it prints: one line
   test:
     suffix: geometric_needs_dmda
     nsize: 2
     args: -pc_type bjacobi -sub_pc_type fgdd -sub_pc_fgdd_partitioner geometric
     filter: Error: grep -m1 -o "geometric partitioner needs the DMDA"

TEST*/
