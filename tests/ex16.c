static char help[] = "Tests of MatSolverType gilu (src/mat/sptrsv/gilufactor*.c) against PETSc's own ILU(k) and ICC(k); prints only failures.\n\
  -test factor|chunked|forwardbackward|matsolve|symmetric|numeric|sbaij|zeropivot|view|bench|numbench (default: factor and chunked):\n\
  MatSolve(Transpose,Add) equal PETSc's ILU(k)/ICC(k) for every algorithm | the engine's chunked algorithm through gilu |\n\
  MatForwardSolve/MatBackwardSolve equal PETSc's | MatMatSolve(Transpose) equal PETSc's | -ksp_pc_side symmetric ICC gives\n\
  PETSc's iterations, KSPMatSolve | gilu's numeric factorization equals PETSc's entry by entry | ICC of MATSEQSBAIJ by gilu\n\
  and structilu equals PETSc's | a zero pivot as PETSc's |\n\
  -ksp_view of a solve (-setter_trisolve, -setter_threads) | timings for bench/sptrsv.py\n\
  -grid <m> : the test matrices live on an m x m x m grid (default 6). The engine on triangles alone: tests/ex7.c\n\
  -factor_view <viewer> : factor: each factor as it is made (::ascii_info says how its numeric factorization ran)\n\n";

#include <time.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilutest.h>
#include <petscgilu/private/sptrsv.h>
#if defined(PETSCGILU_HAVE_CUDAEMU)
  #include <petscgilu/private/cudaemu.h>
#endif

#define NTYPES 8

static PetscReal Rand(PetscRandom rnd)
{
  PetscReal v;

  PetscCallAbort(PETSC_COMM_SELF, PetscRandomGetValueReal(rnd, &v));
  return v;
}

/* A nonsymmetric (or symmetric) diagonally dominant 3D 7-point matrix with a few random couplings, AIJ or BAIJ */
static PetscErrorCode MakeMatrix(PetscRandom rnd, PetscInt grid, PetscInt bs, PetscBool baij, PetscBool sym, Mat *A)
{
  PetscInt n = grid * grid * grid, bs2 = bs * bs;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, n * bs, n * bs, n * bs, n * bs));
  PetscCall(MatSetType(*A, baij ? MATSEQBAIJ : MATSEQAIJ));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSeqAIJSetPreallocation(*A, 9 * bs, NULL));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, 9, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt    x = r % grid, y = (r / grid) % grid, z = r / (grid * grid),
                off[6][3] = {
                  {-1, 0,  0 },
                  {1,  0,  0 },
                  {0,  -1, 0 },
                  {0,  1,  0 },
                  {0,  0,  -1},
                  {0,  0,  1 }
    };
    PetscScalar v[81]; /* block sizes up to 9 */

    for (PetscInt t = 0; t < 7; t++) {
      PetscInt c = r;

      if (t < 6) {
        if (x + off[t][0] < 0 || x + off[t][0] >= grid || y + off[t][1] < 0 || y + off[t][1] >= grid || z + off[t][2] < 0 || z + off[t][2] >= grid) continue;
        c = r + off[t][0] + off[t][1] * grid + off[t][2] * grid * grid;
        if (sym && c < r) continue; /* set from the other side */
      }
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) v[p * bs + q] = c == r ? (p == q ? 8.0 + Rand(rnd) : 0.3 * (Rand(rnd) - 0.5)) : -1.0 + 0.5 * (Rand(rnd) - 0.5) * (p == q ? 1 : 0.3);
      if (sym && c == r)
        for (PetscInt p = 0; p < bs; p++)
          for (PetscInt q = 0; q < p; q++) v[p * bs + q] = v[q * bs + p];
      PetscCall(MatSetValuesBlocked(*A, 1, &r, 1, &c, v, ADD_VALUES));
      if (sym && c != r) {
        PetscScalar w[81];

        for (PetscInt p = 0; p < bs; p++)
          for (PetscInt q = 0; q < bs; q++) w[p * bs + q] = v[q * bs + p];
        PetscCall(MatSetValuesBlocked(*A, 1, &c, 1, &r, w, ADD_VALUES));
      }
    }
    if (!sym && Rand(rnd) < 0.2) { /* a random long-range coupling */
      PetscInt    c = (PetscInt)(Rand(rnd) * n);
      PetscScalar w[81];

      for (PetscInt k = 0; k < bs2; k++) w[k] = 0.3 * (Rand(rnd) - 0.5);
      if (c != r) PetscCall(MatSetValuesBlocked(*A, 1, &r, 1, &c, w, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 1D Laplacian-like tridiagonal matrix (2, -1) of n >= 5 rows whose row 4 has a zero diagonal and whose row 3 does not
   couple to row 4: ILU(0) meets a zero pivot in row 4 */
static PetscErrorCode MakeZeroPivotMatrix(PetscInt n, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, A));
  for (PetscInt r = 0; r < n; r++) {
    PetscCall(MatSetValue(*A, r, r, r == 4 ? 0.0 : 2.0, ADD_VALUES));
    if (r > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, ADD_VALUES));
    if (r < n - 1 && r != 3) PetscCall(MatSetValue(*A, r, r + 1, -1.0, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Factor(Mat A, MatSolverType solver, MatFactorType ftype, const char ordering[], PetscInt levels, Mat *F)
{
  IS            row, col;
  MatFactorInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetFactor(A, solver, ftype, F));
  PetscCall(MatGetOrdering(A, ordering, &row, &col));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = levels;
  info.fill   = 1.0;
  if (ftype == MAT_FACTOR_ILU) {
    PetscCall(MatILUFactorSymbolic(*F, A, row, col, &info));
    PetscCall(MatLUFactorNumeric(*F, A, &info));
  } else {
    PetscCall(MatICCFactorSymbolic(*F, A, row, &info));
    PetscCall(MatCholeskyFactorNumeric(*F, A, &info));
  }
  PetscCall(MatViewFromOptions(*F, NULL, "-factor_view"));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Refactor(Mat A, Mat F, PetscBool icc)
{
  MatFactorInfo info;

  PetscFunctionBegin;
  PetscCall(MatFactorInfoInitialize(&info));
  if (icc) PetscCall(MatCholeskyFactorNumeric(F, A, &info));
  else PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareVec(Vec x, Vec y, const char what[], PetscReal tol)
{
  PetscReal d, s;
  Vec       t;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x, &t));
  PetscCall(VecWAXPY(t, -1.0, x, y));
  PetscCall(VecNorm(t, NORM_INFINITY, &d));
  PetscCall(VecNorm(y, NORM_INFINITY, &s));
  if (d > tol * s) PetscCall(PetscPrintf(PETSC_COMM_SELF, "factor: %s differs from PETSc's by %g (relative)\n", what, (double)(d / s)));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFactor(PetscRandom rnd, PetscInt grid)
{
  const char *const orderings[] = {MATORDERINGNATURAL, MATORDERINGRCM};

  PetscFunctionBegin;
  for (PetscInt bs = 1; bs <= 5; bs += 2)
    for (PetscInt baij = 0; baij < 2; baij++)
      for (PetscInt icc = 0; icc < 3; icc++) /* ILU, ICC, ICC of a nonsymmetric matrix (PETSc's reads the upper triangle) */
        for (PetscInt o = 0; o < 2; o++)
          for (PetscInt levels = 0; levels <= 1; levels++) {
            Mat    A, Fp, Fg;
            Vec    b, y, xp, xg;
            char   what[256], opt[32];
            size_t wlen;

            PetscReal tol = icc ? 1e-8 : 1e-10; /* ICC is done as ILU: the same factors up to rounding */

            if (icc && o) continue;
            if (icc && baij && levels) continue; /* PETSc's BAIJ ICC(k>0) has a fill of its own (not AIJ's ICC(k) = ILU(k)); see the report */
            PetscCall(MakeMatrix(rnd, grid, bs, (PetscBool)baij, (PetscBool)(icc == 1), &A));
            PetscCall(MatCreateVecs(A, &b, &y));
            PetscCall(VecDuplicate(b, &xp));
            PetscCall(VecDuplicate(b, &xg));
            PetscCall(VecSetRandom(b, rnd));
            PetscCall(VecSetRandom(y, rnd));
            PetscCall(Factor(A, MATSOLVERPETSC, icc ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, orderings[o], levels, &Fp));
            for (PetscInt t = 0; t < NTYPES; t++) {
              PetscCall(PetscSNPrintf(opt, sizeof(opt), "%s", GILUTriSolveTypes[t]));
              PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve", opt));
              PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", "2"));
              PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_block_depth", t >= GILU_TRISOLVE_COLBLOCK && t <= GILU_TRISOLVE_RECBLOCK ? "3" : "0"));
              PetscCall(Factor(A, MATSOLVERGILU, icc ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, orderings[o], levels, &Fg));
              PetscCall(PetscSNPrintf(what, sizeof(what), "%s %s bs %" PetscInt_FMT " %s(%" PetscInt_FMT ") ordering %s, %s", baij ? "baij" : "aij", "solve", bs,
                                      icc == 2 ? "ICC of a nonsymmetric matrix"
                                      : icc    ? "ICC"
                                               : "ILU",
                                      levels, orderings[o], opt));
              PetscCall(PetscStrlen(what, &wlen));
              PetscCall(MatSolve(Fp, b, xp));
              PetscCall(MatSolve(Fg, b, xg));
              PetscCall(CompareVec(xg, xp, what, tol));
              PetscCall(MatSolveTranspose(Fp, b, xp));
              PetscCall(MatSolveTranspose(Fg, b, xg));
              PetscCall(PetscStrlcat(what, " (transpose)", sizeof(what)));
              PetscCall(CompareVec(xg, xp, what, tol));
              for (PetscInt k = 0; k < 4; k++) { /* x = y + A^{-1} b, y + A^{-T} b; x a vector of its own, then y itself */
                const PetscBool tr = (PetscBool)(k % 2), inplace = (PetscBool)(k >= 2);

                if (inplace) {
                  PetscCall(VecCopy(y, xp));
                  PetscCall(VecCopy(y, xg));
                }
                if (tr) {
                  PetscCall(MatSolveTransposeAdd(Fp, b, inplace ? xp : y, xp));
                  PetscCall(MatSolveTransposeAdd(Fg, b, inplace ? xg : y, xg));
                } else {
                  PetscCall(MatSolveAdd(Fp, b, inplace ? xp : y, xp));
                  PetscCall(MatSolveAdd(Fg, b, inplace ? xg : y, xg));
                }
                what[wlen] = 0;
                PetscCall(PetscStrlcat(what, tr ? " (transpose add" : " (add", sizeof(what)));
                PetscCall(PetscStrlcat(what, inplace ? ", in place)" : ")", sizeof(what)));
                PetscCall(CompareVec(xg, xp, what, tol));
              }
              what[wlen] = 0;
              /* a second numeric factorization with new values (same pattern) */
              PetscCall(MatShift(A, 1.0));
              PetscCall(Refactor(A, Fp, (PetscBool)icc));
              PetscCall(Refactor(A, Fg, (PetscBool)icc));
              PetscCall(MatSolve(Fp, b, xp));
              PetscCall(MatSolve(Fg, b, xg));
              PetscCall(PetscStrlcat(what, " (refactored)", sizeof(what)));
              PetscCall(CompareVec(xg, xp, what, tol));
              PetscCall(MatShift(A, -1.0));
              PetscCall(Refactor(A, Fp, (PetscBool)icc));
              PetscCall(MatDestroy(&Fg));
            }
            PetscCall(MatDestroy(&Fp));
            PetscCall(VecDestroy(&b));
            PetscCall(VecDestroy(&y));
            PetscCall(VecDestroy(&xp));
            PetscCall(VecDestroy(&xg));
            PetscCall(MatDestroy(&A));
          }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_block_depth"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test devicesolve (cudaemu): MatSolve() of MatSolverType gilu with its engine on the emulated device, where L's kernels
  gather b by the row ordering and U's scatter x by the column ordering (no passes of their own where the plan is one
  triangle), against the same device triangles solved one at a time with host arrays and the orderings applied on the host
  (the path without fusion): the same bits (sync-free by columns: round-off, its atomic adds run in the schedule's order).
  Level-set, sync-free by rows and columns, recursive block; natural and RCM orderings; AIJ and BAIJ bs 3. The second MatSolve()
  must issue no device synchronization and no memset, copy b in and x out once each and nothing on the device but where
  the plan is more than one triangle or a CSC one (x = b, or the gather, before L's segments), and launch L's and U's
  kernels only (the emulation's count of runtime calls and the engine's: a sync, a memset or a pass that comes back fails here).
  MatMatSolve() of 4 columns must launch what one MatSolve() launches (each launch takes all columns), copy the block in
  and out once, allocate nothing the second time, keep the critical path of its launches (the emulation's dependent
  round trips) within 1.5 times one MatSolve()'s (a wait per column triples it; schedules move it by up to ~15%), and
  give each column MatSolve()'s bits (by columns: round-off); in place (MatMatSolve(F, C, C)) the same launches and
  copies, and the same bits.
*/
static PetscErrorCode TestDeviceSolve(PetscRandom rnd, PetscInt grid)
{
#if defined(PETSCGILU_HAVE_CUDAEMU)
  const char *const orderings[] = {MATORDERINGNATURAL, MATORDERINGRCM};
  const char *const types[]     = {"levelset", "syncfree", "recblock"};

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_backend", "cudaemu"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_block_depth", "2"));
  for (PetscInt bs = 1; bs <= 3; bs += 2)
    for (PetscInt o = 0; o < 2; o++)
      for (PetscInt t = 0; t < 3; t++)
        for (PetscInt csc = 0; csc < (t ? 2 : 1); csc++) {
          const PetscBool    baij = (PetscBool)(bs > 1);
          Mat                A, F;
          Vec                b, x;
          IS                 row, col;
          GILUTri            L, U;
          const PetscInt    *r, *c;
          const PetscScalar *ba, *xa;
          PetscScalar       *w;
          PetscInt           m, nr, fbs, ln[5], un[5];
          PetscReal          diff = 0;
          GILUEmuCounters    cnt;
          char               what[128];

          PetscCall(PetscSNPrintf(what, sizeof(what), "device MatSolve bs %" PetscInt_FMT " %s %s%s", bs, orderings[o], types[t], csc ? " (CSC)" : ""));
          PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve", types[t]));
          PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_csc", csc ? "1" : "0"));
          PetscCall(MakeMatrix(rnd, grid, bs, baij, PETSC_FALSE, &A));
          PetscCall(MatCreateVecs(A, &b, &x));
          PetscCall(VecSetRandom(b, rnd));
          PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, orderings[o], 0, &F));
          PetscCall(MatSolve(F, b, x));                    /* the device plans made, the counters started */
          PetscCall(GILUEmuCountersSetActive(PETSC_TRUE)); /* the round trips too */
          PetscCall(GILUEmuCountersReset());
          PetscCall(MatSolve(F, b, x));
          PetscCall(GILUEmuCountersGet(NULL, &cnt));
          PetscCall(MatGILUFactorGetTri(F, &L, &U));
          PetscCall(GILUTriGetDeviceSolveCounts(L, &ln[0], &ln[1], &ln[2], &ln[3], &ln[4]));
          PetscCall(GILUTriGetDeviceSolveCounts(U, &un[0], &un[1], &un[2], &un[3], &un[4]));
          if (cnt.runtime[GILU_EMU_RT_SYNC] || cnt.runtime[GILU_EMU_RT_MEMSET] || ln[1] || ln[2] || un[1] || un[2] || un[3] || cnt.runtime[GILU_EMU_RT_COPY_TO_DEVICE] != 1 || cnt.runtime[GILU_EMU_RT_COPY_TO_HOST] != 1 || cnt.runtime[GILU_EMU_RT_LAUNCH] != ln[0] + un[0] || cnt.runtime[GILU_EMU_RT_COPY_ON_DEVICE] != ln[3] || (t < 2 && !csc && (ln[0] != 1 || un[0] != 1 || ln[3])))
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %" PetscInt64_FMT " launches, %" PetscInt64_FMT " synchronizations, %" PetscInt64_FMT " memsets, %" PetscInt64_FMT " + %" PetscInt64_FMT " + %" PetscInt64_FMT " copies (the emulation's count); L %" PetscInt_FMT " launches, %" PetscInt_FMT " syncs, %" PetscInt_FMT " memsets, %" PetscInt_FMT " copies; U %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "\n", what,
                                  cnt.runtime[GILU_EMU_RT_LAUNCH], cnt.runtime[GILU_EMU_RT_SYNC], cnt.runtime[GILU_EMU_RT_MEMSET], cnt.runtime[GILU_EMU_RT_COPY_TO_DEVICE], cnt.runtime[GILU_EMU_RT_COPY_TO_HOST], cnt.runtime[GILU_EMU_RT_COPY_ON_DEVICE], ln[0], ln[1], ln[2], ln[3], un[0], un[1], un[2], un[3]));
          /* the reference: the same triangles, host arrays, the orderings on the host */
          PetscCall(MatGetOrdering(A, orderings[o], &row, &col));
          PetscCall(ISGetIndices(row, &r));
          PetscCall(ISGetIndices(col, &c));
          PetscCall(VecGetLocalSize(b, &m));
          PetscCall(ISGetLocalSize(row, &nr));
          fbs = m / nr; /* the orderings are of the factor's rows: scalar rows of an AIJ, whatever its block size */
          PetscCall(PetscMalloc1(m, &w));
          PetscCall(VecGetArrayRead(b, &ba));
          for (PetscInt i = 0; i < nr; i++)
            for (PetscInt p = 0; p < fbs; p++) w[i * fbs + p] = ba[r[i] * fbs + p];
          PetscCall(VecRestoreArrayRead(b, &ba));
          PetscCall(GILUTriSolve(L, w, w));
          PetscCall(GILUTriSolve(U, w, w));
          PetscCall(VecGetArrayRead(x, &xa));
          for (PetscInt i = 0; i < nr; i++)
            for (PetscInt p = 0; p < fbs; p++) {
              const PetscReal e = PetscAbsScalar(xa[c[i] * fbs + p] - w[i * fbs + p]) / PetscMax(PetscAbsScalar(w[i * fbs + p]), 1e-300);

              diff = PetscIsInfOrNanReal(e) ? PETSC_INFINITY : PetscMax(diff, e); /* (PetscMax() drops a NaN) */
            }
          PetscCall(VecRestoreArrayRead(x, &xa));
          if (diff > (csc ? 1e-12 : 0.0)) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s differs from the unfused solve by %g (relative)\n", what, (double)diff));
          { /* MatMatSolve() of 4 columns: the launches of one MatSolve() (every launch takes all columns), one copy each
               way, no synchronization, memset or allocation; each column MatSolve()'s bits (by columns: to round-off) */
            Mat             Bm, Xm;
            GILUEmuCounters bc;

            PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, m, 4, NULL, &Bm));
            PetscCall(MatSetRandom(Bm, rnd));
            PetscCall(MatDuplicate(Bm, MAT_DO_NOT_COPY_VALUES, &Xm));
            PetscCall(MatMatSolve(F, Bm, Xm)); /* the device buffers grown to 4 columns */
            PetscCall(GILUEmuCountersReset());
            PetscCall(MatMatSolve(F, Bm, Xm));
            PetscCall(GILUEmuCountersGet(NULL, &bc));
            PetscCall(GILUEmuCountersSetActive(PETSC_FALSE));
            if (2 * bc.critical > 3 * cnt.critical) /* the columns share every wait: a wait per column makes the chain about k times one solve's */
              PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: MatMatSolve() of 4 columns: a critical path of %" PetscInt64_FMT " dependent round trips, one MatSolve()'s %" PetscInt64_FMT "\n", what, bc.critical, cnt.critical));
            if (bc.runtime[GILU_EMU_RT_LAUNCH] != cnt.runtime[GILU_EMU_RT_LAUNCH] || bc.runtime[GILU_EMU_RT_SYNC] || bc.runtime[GILU_EMU_RT_MEMSET] || bc.runtime[GILU_EMU_RT_ALLOC] || bc.runtime[GILU_EMU_RT_COPY_TO_DEVICE] != 1 || bc.runtime[GILU_EMU_RT_COPY_TO_HOST] != 1 ||
                bc.runtime[GILU_EMU_RT_COPY_ON_DEVICE] != cnt.runtime[GILU_EMU_RT_COPY_ON_DEVICE])
              PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: MatMatSolve() of 4 columns: %" PetscInt64_FMT " launches (MatSolve(): %" PetscInt64_FMT "), %" PetscInt64_FMT " synchronizations, %" PetscInt64_FMT " memsets, %" PetscInt64_FMT " allocations, %" PetscInt64_FMT " + %" PetscInt64_FMT " + %" PetscInt64_FMT " copies\n", what, bc.runtime[GILU_EMU_RT_LAUNCH],
                                    cnt.runtime[GILU_EMU_RT_LAUNCH], bc.runtime[GILU_EMU_RT_SYNC], bc.runtime[GILU_EMU_RT_MEMSET], bc.runtime[GILU_EMU_RT_ALLOC], bc.runtime[GILU_EMU_RT_COPY_TO_DEVICE], bc.runtime[GILU_EMU_RT_COPY_TO_HOST], bc.runtime[GILU_EMU_RT_COPY_ON_DEVICE]));
            for (PetscInt j = 0; j < 4; j++) {
              Vec bj, xj;

              PetscCall(MatDenseGetColumnVecRead(Bm, j, &bj));
              PetscCall(MatSolve(F, bj, x));
              PetscCall(MatDenseRestoreColumnVecRead(Bm, j, &bj));
              PetscCall(MatDenseGetColumnVecRead(Xm, j, &xj));
              PetscCall(PetscGILUTestVecRelDiff(x, xj, &diff));
              PetscCall(MatDenseRestoreColumnVecRead(Xm, j, &xj));
              if (diff > (csc ? 1e-12 : 0.0)) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: MatMatSolve() column %" PetscInt_FMT " differs from MatSolve() by %g\n", what, j, (double)diff));
            }
            { /* in place on a copy of the block: the same launches and one copy each way, X's bits (CSC: round-off) */
              Mat Cm;

              PetscCall(MatDuplicate(Bm, MAT_COPY_VALUES, &Cm));
              PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
              PetscCall(GILUEmuCountersReset());
              PetscCall(MatMatSolve(F, Cm, Cm));
              PetscCall(GILUEmuCountersGet(NULL, &bc));
              PetscCall(GILUEmuCountersSetActive(PETSC_FALSE));
              if (bc.runtime[GILU_EMU_RT_LAUNCH] != cnt.runtime[GILU_EMU_RT_LAUNCH] || bc.runtime[GILU_EMU_RT_SYNC] || bc.runtime[GILU_EMU_RT_ALLOC] || bc.runtime[GILU_EMU_RT_COPY_TO_DEVICE] != 1 || bc.runtime[GILU_EMU_RT_COPY_TO_HOST] != 1)
                PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: MatMatSolve() of 4 columns in place: %" PetscInt64_FMT " launches (MatSolve(): %" PetscInt64_FMT "), %" PetscInt64_FMT " synchronizations, %" PetscInt64_FMT " allocations, %" PetscInt64_FMT " + %" PetscInt64_FMT " copies\n", what, bc.runtime[GILU_EMU_RT_LAUNCH],
                                      cnt.runtime[GILU_EMU_RT_LAUNCH], bc.runtime[GILU_EMU_RT_SYNC], bc.runtime[GILU_EMU_RT_ALLOC], bc.runtime[GILU_EMU_RT_COPY_TO_DEVICE], bc.runtime[GILU_EMU_RT_COPY_TO_HOST]));
              for (PetscInt j = 0; j < 4; j++) {
                Vec xj, cj;

                PetscCall(MatDenseGetColumnVecRead(Xm, j, &xj));
                PetscCall(MatDenseGetColumnVecRead(Cm, j, &cj));
                PetscCall(PetscGILUTestVecRelDiff(xj, cj, &diff));
                PetscCall(MatDenseRestoreColumnVecRead(Cm, j, &cj));
                PetscCall(MatDenseRestoreColumnVecRead(Xm, j, &xj));
                if (diff > (csc ? 1e-12 : 0.0)) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: MatMatSolve() in place, column %" PetscInt_FMT " differs from the out-of-place block by %g\n", what, j, (double)diff));
              }
              PetscCall(MatDestroy(&Cm));
            }
            PetscCall(MatDestroy(&Bm));
            PetscCall(MatDestroy(&Xm));
          }
          PetscCall(PetscFree(w));
          PetscCall(ISRestoreIndices(row, &r));
          PetscCall(ISRestoreIndices(col, &c));
          PetscCall(ISDestroy(&row));
          PetscCall(ISDestroy(&col));
          PetscCall(MatDestroy(&F));
          PetscCall(VecDestroy(&b));
          PetscCall(VecDestroy(&x));
          PetscCall(MatDestroy(&A));
        }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_backend"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_block_depth"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_csc"));
#else
  PetscFunctionBegin;
  (void)rnd;
  (void)grid;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ICC(k) of a MATSEQSBAIJ (the upper triangle of a symmetric matrix) by MatSolverType gilu and structilu equals PETSc's ICC(k) of
  the SBAIJ (to round-off: gilu computes it as ILU(k) of the whole matrix; block size > 1 with k > 0 and block size 9 are
  PETSc's own factors), before and after a second numeric factorization with new values; ILU of an SBAIJ is unavailable
*/
static PetscErrorCode TestSBAIJ(PetscRandom rnd, PetscInt grid)
{
  const PetscInt      sizes[]   = {1, 3, 9};
  const MatSolverType solvers[] = {MATSOLVERGILU, MATSOLVERSTRUCTILU};

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
    for (PetscInt levels = 0; levels <= 2; levels++) {
      const PetscInt bs = sizes[k];
      Mat            A, S, Fp, Fg;
      Vec            b, xp, xg;
      char           what[256];
      PetscBool      avail;

      PetscCall(MakeMatrix(rnd, grid, bs, (PetscBool)(bs > 1), PETSC_TRUE, &A));
      PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE)); /* (it is: MakeMatrix() sets both mirrors) */
      PetscCall(MatConvert(A, MATSEQSBAIJ, MAT_INITIAL_MATRIX, &S));
      PetscCall(MatCreateVecs(A, &b, &xp));
      PetscCall(VecDuplicate(b, &xg));
      PetscCall(VecSetRandom(b, rnd));
      PetscCall(Factor(S, MATSOLVERPETSC, MAT_FACTOR_ICC, MATORDERINGNATURAL, levels, &Fp));
      for (size_t t = 0; t < sizeof(solvers) / sizeof(solvers[0]); t++) {
        if (t == 1 && bs > 1 && bs <= 8 && levels) continue; /* structilu's IC(k) of a grid with DoF blocks has ILU(k)'s block fill (doc/structilu.md) */
        PetscCall(MatGetFactorAvailable(S, solvers[t], MAT_FACTOR_ILU, &avail));
        if (avail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "sbaij: MatSolverType %s offers ILU of a MATSEQSBAIJ\n", solvers[t]));
        PetscCall(Factor(S, solvers[t], MAT_FACTOR_ICC, MATORDERINGNATURAL, levels, &Fg));
        PetscCall(PetscSNPrintf(what, sizeof(what), "sbaij bs %" PetscInt_FMT " ICC(%" PetscInt_FMT ") by %s", bs, levels, solvers[t]));
        PetscCall(MatSolve(Fp, b, xp));
        PetscCall(MatSolve(Fg, b, xg));
        PetscCall(CompareVec(xg, xp, what, 1e-8));
        PetscCall(MatShift(S, 1.0));
        PetscCall(Refactor(S, Fp, PETSC_TRUE));
        PetscCall(Refactor(S, Fg, PETSC_TRUE));
        PetscCall(MatSolve(Fp, b, xp));
        PetscCall(MatSolve(Fg, b, xg));
        PetscCall(PetscStrlcat(what, " (refactored)", sizeof(what)));
        PetscCall(CompareVec(xg, xp, what, 1e-8));
        PetscCall(MatShift(S, -1.0));
        PetscCall(Refactor(S, Fp, PETSC_TRUE));
        PetscCall(MatDestroy(&Fg));
      }
      PetscCall(MatDestroy(&Fp));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&xp));
      PetscCall(VecDestroy(&xg));
      PetscCall(MatDestroy(&S));
      PetscCall(MatDestroy(&A));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a dense n x ncols matrix with random entries and leading dimension lda >= n (a dense block of a larger array: what
   KSPMatSolve() may hand over) */
static PetscErrorCode MakeDense(PetscRandom rnd, PetscInt n, PetscInt ncols, PetscInt lda, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, n, ncols, n, ncols));
  PetscCall(MatSetType(*B, MATSEQDENSE));
  PetscCall(MatDenseSetLDA(*B, lda));
  PetscCall(MatSetUp(*B));
  PetscCall(MatSetRandom(*B, rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareDense(Mat X, Mat Y, const char what[], PetscReal tol)
{
  PetscInt ncols;

  PetscFunctionBegin;
  PetscCall(MatGetSize(X, NULL, &ncols));
  for (PetscInt k = 0; k < ncols; k++) {
    Vec  x, y;
    char col[300];

    PetscCall(MatDenseGetColumnVecRead(X, k, &x));
    PetscCall(MatDenseGetColumnVecRead(Y, k, &y));
    PetscCall(PetscSNPrintf(col, sizeof(col), "%s column %" PetscInt_FMT, what, k));
    PetscCall(CompareVec(x, y, col, tol));
    PetscCall(MatDenseRestoreColumnVecRead(Y, k, &y));
    PetscCall(MatDenseRestoreColumnVecRead(X, k, &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each column of X is bitwise MatSolve() (MatSolveTranspose()) of B's by F, and MatMatSolve() of F in place on a copy of B gives X (not transposed) */
static PetscErrorCode CheckColumnsBitwise(Mat F, Mat B, Mat X, PetscBool transpose, const char what[])
{
  PetscInt  ncols, wrong = -1;
  Mat       C;
  Vec       x;
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &ncols));
  PetscCall(MatCreateVecs(F, &x, NULL));
  for (PetscInt k = 0; k < ncols; k++) {
    Vec       b, xk;
    PetscBool same;

    PetscCall(MatDenseGetColumnVecRead(B, k, &b));
    PetscCall(MatDenseGetColumnVecRead(X, k, &xk));
    if (transpose) PetscCall(MatSolveTranspose(F, b, x));
    else PetscCall(MatSolve(F, b, x));
    PetscCall(VecEqual(x, xk, &same));
    if (!same && wrong < 0) wrong = k;
    PetscCall(MatDenseRestoreColumnVecRead(X, k, &xk));
    PetscCall(MatDenseRestoreColumnVecRead(B, k, &b));
  }
  if (wrong >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: column %" PetscInt_FMT " is not bitwise %s's\n", what, wrong, transpose ? "MatSolveTranspose()" : "MatSolve()"));
  if (!transpose) { /* (PETSc's MatMatSolveTranspose() refuses X == B) */
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
    PetscCall(MatMatSolve(F, C, C));
    PetscCall(MatEqual(C, X, &eq)); /* (seqdense: value by value, exactly) */
    if (!eq) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: in place (B and X one matrix): not bitwise the solution into another matrix\n", what));
    PetscCall(MatDestroy(&C));
  }
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test forwardbackward: MatForwardSolve() and MatBackwardSolve() of gilu's factors equal PETSc's where PETSc has them (its ICC
  factors of block size 1, any ordering: the D^{1/2} split; its BAIJ ILU of block sizes 1 and 3 in the natural ordering: L
  and U), and BackwardSolve(ForwardSolve(b)) equals PETSc's MatSolve() everywhere gilu has them (ICC of block size 1, ILU).
  -test matsolve: MatMatSolve() and MatMatSolveTranspose() (gilu's own, one call for all columns) equal PETSc's, with a
  right-hand side whose leading dimension is not its number of rows; 11 columns: a group of 8 (GILU_TRI_MAX_RHS) solved
  at once, a group of 3; each column bitwise MatSolve()'s (MatSolveTranspose()'s), and the same in place (also where gilu
  hands its ICC over to PETSc's, BAIJ ICC(1): the factor's MatMatSolve() is then PETSc's, on a copy of B in place)
*/
static PetscErrorCode TestSplitAndMatSolve(PetscRandom rnd, PetscInt grid, PetscBool split)
{
  const char *const orderings[] = {MATORDERINGNATURAL, MATORDERINGRCM};
  const char *const types[]     = {"auto", "levelset", "sequential"};

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", "2"));
  for (PetscInt bs = 1; bs <= 3; bs += 2)
    for (PetscInt baij = 0; baij < 2; baij++)
      for (PetscInt icc = 0; icc < 2; icc++)
        for (PetscInt o = 0; o < 2; o++)
          for (PetscInt levels = 0; levels <= 1; levels++) {
            Mat       A, Fp, Fg;
            Vec       b, xp, xg, t;
            PetscBool has;
            PetscReal tol = icc ? 1e-8 : 1e-10; /* ICC is done as ILU: the same factors up to rounding */
            char      what[256];

            if (icc && baij && (o || (split && (levels || bs > 1)))) continue; /* PETSc's BAIJ ICC: natural ordering; its own fill (k > 0), and the split of D for bs > 1 */
            if (split && icc && bs > 1) continue;                              /* gilu's ICC split: block size 1 (an error otherwise) */
            PetscCall(MakeMatrix(rnd, grid, bs, (PetscBool)baij, (PetscBool)icc, &A));
            PetscCall(MatCreateVecs(A, &b, &xp));
            PetscCall(VecDuplicate(b, &xg));
            PetscCall(VecDuplicate(b, &t));
            PetscCall(VecSetRandom(b, rnd));
            PetscCall(Factor(A, MATSOLVERPETSC, icc ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, orderings[o], levels, &Fp));
            for (PetscInt ty = 0; ty < 3; ty++) {
              PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve", types[ty]));
              PetscCall(Factor(A, MATSOLVERGILU, icc ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, orderings[o], levels, &Fg));
              PetscCall(PetscSNPrintf(what, sizeof(what), "%s bs %" PetscInt_FMT " %s(%" PetscInt_FMT ") ordering %s, %s", baij ? "baij" : "aij", bs, icc ? "ICC" : "ILU", levels, orderings[o], types[ty]));
              if (split) {
                char w2[300];

                PetscCall(MatHasOperation(Fg, MATOP_FORWARD_SOLVE, &has));
                if (!has) PetscCall(PetscPrintf(PETSC_COMM_SELF, "forwardbackward: %s: no MatForwardSolve()\n", what));
                PetscCall(MatHasOperation(Fp, MATOP_FORWARD_SOLVE, &has));
                if (has) { /* PETSc's split: the same intermediate vector */
                  PetscCall(MatForwardSolve(Fp, b, xp));
                  PetscCall(MatForwardSolve(Fg, b, xg));
                  PetscCall(PetscSNPrintf(w2, sizeof(w2), "%s forward", what));
                  PetscCall(CompareVec(xg, xp, w2, tol));
                  PetscCall(MatBackwardSolve(Fp, b, xp));
                  PetscCall(MatBackwardSolve(Fg, b, xg));
                  PetscCall(PetscSNPrintf(w2, sizeof(w2), "%s backward", what));
                  PetscCall(CompareVec(xg, xp, w2, tol));
                }
                PetscCall(MatSolve(Fp, b, xp));
                PetscCall(MatForwardSolve(Fg, b, t));
                PetscCall(MatBackwardSolve(Fg, t, xg));
                PetscCall(PetscSNPrintf(w2, sizeof(w2), "%s backward(forward) against solve", what));
                PetscCall(CompareVec(xg, xp, w2, tol));
              } else {
                const PetscInt m = bs * grid * grid * grid, ncols = 11;
                Mat            B, Xp, Xg;
                char           w2[300];

                PetscCall(MatHasOperation(Fg, MATOP_MAT_SOLVE, &has)); /* else MatMatSolve() would go column by column */
                if (!has) PetscCall(PetscPrintf(PETSC_COMM_SELF, "matsolve: %s: no MatMatSolve()\n", what));
                PetscCall(MakeDense(rnd, m, ncols, m + 3, &B));
                PetscCall(MakeDense(rnd, m, ncols, m, &Xp));
                PetscCall(MakeDense(rnd, m, ncols, m + 1, &Xg));
                PetscCall(MatMatSolve(Fp, B, Xp));
                PetscCall(MatMatSolve(Fg, B, Xg));
                PetscCall(PetscSNPrintf(w2, sizeof(w2), "%s matsolve", what));
                PetscCall(CompareDense(Xg, Xp, w2, tol));
                PetscCall(CheckColumnsBitwise(Fg, B, Xg, PETSC_FALSE, w2));
                PetscCall(MatMatSolveTranspose(Fp, B, Xp));
                PetscCall(MatMatSolveTranspose(Fg, B, Xg));
                PetscCall(PetscSNPrintf(w2, sizeof(w2), "%s matsolvetranspose", what));
                PetscCall(CompareDense(Xg, Xp, w2, tol));
                PetscCall(CheckColumnsBitwise(Fg, B, Xg, PETSC_TRUE, w2));
                PetscCall(MatDestroy(&B));
                PetscCall(MatDestroy(&Xp));
                PetscCall(MatDestroy(&Xg));
              }
              PetscCall(MatDestroy(&Fg));
            }
            PetscCall(MatDestroy(&Fp));
            PetscCall(VecDestroy(&b));
            PetscCall(VecDestroy(&t));
            PetscCall(VecDestroy(&xp));
            PetscCall(VecDestroy(&xg));
            PetscCall(MatDestroy(&A));
          }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test symmetric: KSP with -ksp_pc_side symmetric and ICC(k) (-pc_factor_levels), PETSc's factor and gilu's: the same
  iterations (printed) and the same solution to round-off; KSPMatSolve() with gilu's MatMatSolve() gives the solutions of
  KSPSolve() column by column
*/
static PetscErrorCode TestSymmetric(PetscRandom rnd)
{
  Mat      A;
  Vec      b, x[2];
  PetscInt its[2];

  PetscFunctionBegin;
  PetscCall(MakeMatrix(rnd, 10, 1, PETSC_FALSE, PETSC_TRUE, &A));
  PetscCall(MatCreateVecs(A, &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(VecSetRandom(b, rnd));
  for (PetscInt s = 0; s < 2; s++) {
    KSP ksp;
    PC  pc;

    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCICC));
    PetscCall(PCFactorSetMatSolverType(pc, s ? MATSOLVERGILU : MATSOLVERPETSC));
    PetscCall(KSPSetPCSide(ksp, PC_SYMMETRIC));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x[s]));
    PetscCall(KSPGetIterationNumber(ksp, &its[s]));
    if (s) { /* KSPMatSolve(): gilu's MatMatSolve() through PCMatApply() */
      Mat      B, X;
      PetscInt ncols = 2;

      PetscCall(KSPSetPCSide(ksp, PC_LEFT)); /* KSPMatSolve() needs a block method; PCMatApply() is the left one */
      PetscCall(KSPSetType(ksp, KSPPREONLY));
      PetscCall(MakeDense(rnd, 1000, ncols, 1000, &B));
      PetscCall(MakeDense(rnd, 1000, ncols, 1000, &X));
      PetscCall(KSPMatSolve(ksp, B, X));
      for (PetscInt k = 0; k < ncols; k++) {
        Vec bk, xk, y;

        PetscCall(MatDenseGetColumnVecRead(B, k, &bk));
        PetscCall(MatDenseGetColumnVecRead(X, k, &xk));
        PetscCall(VecDuplicate(xk, &y));
        PetscCall(KSPSolve(ksp, bk, y));
        PetscCall(CompareVec(xk, y, "KSPMatSolve() column", 1e-14));
        PetscCall(VecDestroy(&y));
        PetscCall(MatDenseRestoreColumnVecRead(X, k, &xk));
        PetscCall(MatDenseRestoreColumnVecRead(B, k, &bk));
      }
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&X));
    }
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "symmetric ICC: PETSc's %" PetscInt_FMT " iterations, gilu's %" PetscInt_FMT "\n", its[0], its[1]));
  PetscCall(CompareVec(x[1], x[0], "symmetric KSP solution", 1e-8));
  PetscCall(VecDestroy(&x[0]));
  PetscCall(VecDestroy(&x[1]));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factors of two gilu factors of the same pattern: the largest difference relative to each factor's largest entry, and how many entries differ */
static PetscErrorCode CompareFactors(Mat Fp, Mat Fg, const char what[], PetscReal *maxrel, PetscInt *ndiff)
{
  PetscInt         nb[2], bs[2];
  const PetscInt  *Li[2], *Lj[2], *Ui[2], *Uj[2];
  const MatScalar *La[2], *Ua[2], *Ud[2];
  PetscBool        same = PETSC_TRUE, ran[2];

  PetscFunctionBegin;
  PetscCall(MatGILUFactorGetFactors(Fp, &nb[0], &bs[0], &Li[0], &Lj[0], &La[0], &Ui[0], &Uj[0], &Ua[0], &Ud[0], &ran[0]));
  PetscCall(MatGILUFactorGetFactors(Fg, &nb[1], &bs[1], &Li[1], &Lj[1], &La[1], &Ui[1], &Uj[1], &Ua[1], &Ud[1], &ran[1]));
  PetscCheck(nb[0] == nb[1] && bs[0] == bs[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: not the same factor sizes", what);
  PetscCall(PetscArraycmp(Li[0], Li[1], nb[0] + 1, &same));
  if (same) PetscCall(PetscArraycmp(Ui[0], Ui[1], nb[0] + 1, &same));
  if (same) PetscCall(PetscArraycmp(Lj[0], Lj[1], Li[0][nb[0]], &same));
  if (same) PetscCall(PetscArraycmp(Uj[0], Uj[1], Ui[0][nb[0]], &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the patterns differ", what);
  if (ran[0] || !ran[1]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "numeric: %s: expected PETSc's and gilu's numeric factorization, ran %s and %s\n", what, ran[0] ? "gilu's" : "PETSc's", ran[1] ? "gilu's" : "PETSc's"));
  {
    const MatScalar *a[3][2] = {
      {La[0], La[1]},
      {Ua[0], Ua[1]},
      {Ud[0], Ud[1]}
    };
    PetscInt n[3] = {Li[0][nb[0]] * bs[0] * bs[0], Ui[0][nb[0]] * bs[0] * bs[0], nb[0] * bs[0] * bs[0]};

    for (PetscInt t = 0; t < 3; t++) {
      PetscReal d = 0, m = 0;

      for (PetscInt k = 0; k < n[t]; k++) {
        d = PetscMax(d, PetscAbsScalar(a[t][0][k] - a[t][1][k]));
        m = PetscMax(m, PetscAbsScalar(a[t][0][k]));
        if (a[t][0][k] != a[t][1][k]) (*ndiff)++;
      }
      *maxrel = PetscMax(*maxrel, m > 0 ? d / m : d);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one case of -test numeric: PETSc's numeric factorization (read by gilu) against gilu's on 1 and 2 threads, both
   schedules, and again with A2's values (same pattern); one line */
static PetscErrorCode NumericCase(Mat A, Mat A2, const char name[], PetscInt levels, const char ord[])
{
  Mat       Fp, Fg;
  PetscReal maxrel = 0;
  PetscInt  ndiff  = 0, n;
  char      what[128];

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%" PetscInt_FMT " rows) ILU(%" PetscInt_FMT ") %s", name, n, levels, ord));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_numeric", "petsc"));
  PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, ord, levels, &Fp));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_numeric", "gilu"));
  for (PetscInt nt = 1; nt <= 2; nt++)
    for (PetscInt sc = 0; sc < 2; sc++) {
      if (nt == 1 && sc) continue;
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", nt == 1 ? "1" : "2"));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_schedule", sc ? "levelset" : "chunked"));
      PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, ord, levels, &Fg));
      PetscCall(CompareFactors(Fp, Fg, what, &maxrel, &ndiff));
      /* new values, same pattern */
      PetscCall(Refactor(A2, Fp, PETSC_FALSE));
      PetscCall(Refactor(A2, Fg, PETSC_FALSE));
      PetscCall(CompareFactors(Fp, Fg, what, &maxrel, &ndiff));
      PetscCall(Refactor(A, Fp, PETSC_FALSE));
      PetscCall(MatDestroy(&Fg));
    }
  if (!ndiff) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: 1 thread, 2 threads chunked and level-set, refactored: the factors are PETSc's bitwise\n", what));
  else if (maxrel < 1e-12) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: 1 thread, 2 threads chunked and level-set, refactored: the factors differ from PETSc's by below 1e-12 (relative)\n", what));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: the factors differ from PETSc's by %g (relative) in %" PetscInt_FMT " entries\n", what, (double)maxrel, ndiff));
  PetscCall(MatDestroy(&Fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATSEQBAIJ with bs x bs blocks on the 7-point stencil of a grid^3 grid: random blocks, dominant diagonal blocks, and
   every seventh off-diagonal block stored but zero (a zero multiplier block is skipped, as PETSc skips it) */
static PetscErrorCode MakeBlockStencil(PetscInt grid, PetscInt bs, PetscRandom rnd, Mat *A)
{
  const PetscInt n   = grid * grid * grid;
  PetscInt       cnt = 0;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqBAIJ(PETSC_COMM_SELF, bs, n * bs, n * bs, 7, NULL, A));
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt x = r % grid, y = (r / grid) % grid, z = r / (grid * grid);
    // clang-format off: the offsets on one line
    const PetscInt off[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    // clang-format on

    for (PetscInt k = 0; k < 7; k++) {
      PetscInt    c, xx = x + off[k][0], yy = y + off[k][1], zz = z + off[k][2];
      PetscScalar v[64];

      if (xx < 0 || xx >= grid || yy < 0 || yy >= grid || zz < 0 || zz >= grid) continue;
      c = xx + yy * grid + zz * grid * grid;
      for (PetscInt q = 0; q < bs * bs; q++) v[q] = c == r ? (q % (bs + 1) == 0 ? 8.0 * bs + Rand(rnd) : 0.5 * Rand(rnd)) : (Rand(rnd) - 0.5);
      if (c != r && cnt++ % 7 == 3)
        for (PetscInt q = 0; q < bs * bs; q++) v[q] = 0.0;
      PetscCall(MatSetValuesBlocked(*A, 1, &r, 1, &c, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  numeric: gilu's numeric factorization against PETSc's (the values read from PETSc's factor, -mat_gilu_factor_numeric
  petsc): ILU(0), ILU(1), ILU(2) of test matrices (AIJ; elasticity3d has inodes of 3 rows, so PETSc runs its inode
  variant), natural and RCM ordering, 1 and 2 threads, chunked and level-set schedules, and a second numeric
  factorization with new values (same pattern). One line per matrix, level and ordering. Then the shift types: inblocks
  is gilu's (equal to PETSc's), nonzero falls back to PETSc's where a pivot needs the shift; then BAIJ, block sizes 2
  to 7 (gilu's, ILU(0) and ILU(1)) and 8 (PETSc's).
*/
static PetscErrorCode TestNumeric(PetscRandom rnd)
{
  const char *const mats[] = {"convdiff3d", "aniso3d", "circuit", "perm7", "elasticity3d"};
  const PetscInt    size[] = {8, 8, 8, 8, 5};
  const char *const ord[]  = {MATORDERINGNATURAL, MATORDERINGRCM};

  PetscFunctionBegin;
  for (PetscInt im = 0; im < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(mats); im++) {
    Mat A, A2;

    PetscCall(PetscGILUTestMatrixCreate(PETSC_COMM_SELF, mats[im], size[im], &A, NULL));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatScale(A2, 0.5));
    PetscCall(MatShift(A2, 0.25));
    for (PetscInt levels = 0; levels <= 2; levels++)
      for (PetscInt o = 0; o < 2; o++) PetscCall(NumericCase(A, A2, mats[im], levels, ord[o]));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_factor_schedule"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  /* shift types on a matrix with a zero pivot (row 4): inblocks is gilu's, nonzero makes PETSc shift and restart: PETSc's runs */
  {
    Mat      A, Fp, Fg;
    PetscInt n = 10;

    PetscCall(MakeZeroPivotMatrix(n, &A));
    for (PetscInt st = 0; st < 2; st++) {
      MatFactorShiftType type = st ? MAT_SHIFT_NONZERO : MAT_SHIFT_INBLOCKS;
      MatFactorInfo      info;
      PetscReal          maxrel = 0;
      PetscInt           ndiff  = 0;
      PetscBool          ran;
      MatFactorError     err;

      PetscCall(MatFactorInfoInitialize(&info));
      info.fill        = 1.0;
      info.shifttype   = (PetscReal)type;
      info.shiftamount = 1e-2;
      for (PetscInt k = 0; k < 2; k++) {
        Mat *F = k ? &Fg : &Fp;
        IS   row, col;

        PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_numeric", k ? "gilu" : "petsc"));
        PetscCall(MatGetFactor(A, MATSOLVERGILU, MAT_FACTOR_ILU, F));
        PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
        PetscCall(MatILUFactorSymbolic(*F, A, row, col, &info));
        PetscCall(MatLUFactorNumeric(*F, A, &info));
        PetscCall(ISDestroy(&row));
        PetscCall(ISDestroy(&col));
      }
      PetscCall(MatGILUFactorGetFactors(Fg, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &ran));
      PetscCall(MatFactorGetError(Fg, &err));
      if (ran) PetscCall(CompareFactors(Fp, Fg, MatFactorShiftTypes[type], &maxrel, &ndiff));
      if (ran) PetscCall(PetscPrintf(PETSC_COMM_SELF, "shift type %s: gilu's numeric factorization ran, factor error %d, %s\n", MatFactorShiftTypes[type], (int)err, ndiff ? "the factors differ from PETSc's" : "the factors are PETSc's bitwise"));
      else {
        PetscViewer sv;

        PetscCall(PetscPrintf(PETSC_COMM_SELF, "shift type %s: PETSc's numeric factorization ran, factor error %d; the view:\n", MatFactorShiftTypes[type], (int)err));
        PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_SELF, &sv));
        PetscCall(PetscViewerPushFormat(sv, PETSC_VIEWER_ASCII_INFO));
        PetscCall(MatView(Fg, sv));
        PetscCall(PetscViewerPopFormat(sv));
      }
      PetscCall(MatDestroy(&Fp));
      PetscCall(MatDestroy(&Fg));
    }
    PetscCall(MatDestroy(&A));
  }
  /* BAIJ: gilu's numeric factorization for block sizes 2 to 7 (PETSc's bits), PETSc's for 8 (said so) */
  for (PetscInt bs = 2; bs <= 8; bs++) {
    Mat  A, A2, Fg;
    char name[32];

    PetscCall(MakeBlockStencil(4, bs, rnd, &A));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatScale(A2, 0.5));
    PetscCall(MatShift(A2, 0.25));
    PetscCall(PetscSNPrintf(name, sizeof(name), "BAIJ bs %" PetscInt_FMT, bs));
    if (bs < 8) {
      for (PetscInt levels = 0; levels <= 1; levels++)
        for (PetscInt o = 0; o < 2; o++) PetscCall(NumericCase(A, A2, name, levels, ord[o]));
      if (bs == 3) { /* a zero diagonal block in block row 0 (nothing updates it): the zero pivot reported as PETSc reports it */
        Mat            Fp;
        MatFactorError ep, eg;
        PetscInt       r    = 0;
        PetscScalar    z[9] = {0};

        PetscCall(MatSetValuesBlocked(A2, 1, &r, 1, &r, z, INSERT_VALUES));
        PetscCall(MatAssemblyBegin(A2, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A2, MAT_FINAL_ASSEMBLY));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_numeric", "petsc"));
        PetscCall(Factor(A2, MATSOLVERGILU, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fp));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_numeric", "gilu"));
        PetscCall(Factor(A2, MATSOLVERGILU, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fg));
        PetscCall(MatFactorGetError(Fp, &ep));
        PetscCall(MatFactorGetError(Fg, &eg));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s, zero diagonal block: factor error PETSc %d, gilu %d (%d: zero pivot)\n", name, (int)ep, (int)eg, (int)MAT_FACTOR_NUMERIC_ZEROPIVOT));
        PetscCall(MatDestroy(&Fp));
        PetscCall(MatDestroy(&Fg));
      }
    } else {
      PetscBool ran;

      PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fg));
      PetscCall(MatGILUFactorGetFactors(Fg, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &ran));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s numeric factorization ran\n", name, ran ? "gilu's" : "PETSc's"));
      PetscCall(MatDestroy(&Fg));
    }
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_factor_schedule"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 3D Laplacian-like stencil matrix (7- or 27-point) on an m^3 grid, AIJ, optionally under a random symmetric permutation */
static PetscErrorCode MakeStencil(PetscInt grid, PetscInt points, PetscBool permute, PetscRandom rnd, Mat *A)
{
  PetscInt n = grid * grid * grid;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, points, NULL, A));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt    x = r % grid, y = (r / grid) % grid, z = r / (grid * grid), cols[27], nc = 0;
    PetscScalar v[27];

    for (PetscInt dz = -1; dz <= 1; dz++)
      for (PetscInt dy = -1; dy <= 1; dy++)
        for (PetscInt dx = -1; dx <= 1; dx++) {
          PetscInt d = PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz);

          if (points == 7 && d > 1) continue;
          if (x + dx < 0 || x + dx >= grid || y + dy < 0 || y + dy >= grid || z + dz < 0 || z + dz >= grid) continue;
          cols[nc] = r + dx + dy * grid + dz * grid * grid;
          v[nc++]  = d == 0 ? (points == 7 ? 6.0 : 26.0) : -1.0;
        }
    PetscCall(MatSetValues(*A, 1, &r, nc, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (permute) {
    PetscInt *perm;
    IS        is;
    Mat       B;

    PetscCall(PetscMalloc1(n, &perm));
    for (PetscInt k = 0; k < n; k++) perm[k] = k;
    for (PetscInt k = n - 1; k > 0; k--) {
      PetscInt t = (PetscInt)(Rand(rnd) * (k + 1)), s = perm[k];

      t       = PetscMin(t, k);
      perm[k] = perm[t];
      perm[t] = s;
    }
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm, PETSC_OWN_POINTER, &is));
    PetscCall(MatPermute(*A, is, is, &B));
    PetscCall(ISDestroy(&is));
    PetscCall(MatDestroy(A));
    *A = B;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Chunked: a chain of 50000 rows (every row reads the row before it, some also one further back) is cut into chunks of at most
  256 rows that depend on each other: 1, 2 and 3 threads give the reference's bits. Auto's choice: chunked for ILU(0)
  of a 7-point 30^3 stencil matrix on 2 threads (PETSc's MatSolve to round-off), not under a random symmetric
  permutation (the chunks would be single rows), and sequential on 1 thread.
*/
static PetscErrorCode TestChunked(PetscRandom rnd)
{
  PetscFunctionBegin;
  for (PetscInt u = 0; u < 2; u++) {
    const PetscInt n = 50000, bs = 2, bs2 = bs * bs; /* 196 chunks: the threads overlap, so a missed dependency shows */
    GILUTriUplo    uplo = u ? GILU_TRI_UPPER : GILU_TRI_LOWER;
    PetscInt      *ai, *aj, nz = 0;
    MatScalar     *aa;
    PetscScalar   *b, *xref, *x;
    GILUTri        tri;

    PetscCall(PetscMalloc3(n + 1, &ai, 3 * n, &aj, 3 * n * bs2, &aa));
    ai[0] = 0;
    for (PetscInt r = 0; r < n; r++) { /* columns ascending: r-3, r-1, r (lower) or r, r+1, r+3 (upper) */
      PetscInt c[3], nc = 0;

      if (!u && r % 7 == 0 && r >= 3) c[nc++] = r - 3;
      if (!u && r >= 1) c[nc++] = r - 1;
      c[nc++] = r;
      if (u && r + 1 < n) c[nc++] = r + 1;
      if (u && r % 7 == 0 && r + 3 < n) c[nc++] = r + 3;
      for (PetscInt k = 0; k < nc; k++) {
        for (PetscInt q = 0; q < bs2; q++) aa[nz * bs2 + q] = c[k] == r ? (q % (bs + 1) == 0 ? 2.0 + Rand(rnd) : 0.1 * Rand(rnd)) : 0.5 * (Rand(rnd) - 0.5);
        aj[nz++] = c[k];
      }
      ai[r + 1] = nz;
    }
    PetscCall(PetscMalloc3(n * bs, &b, n * bs, &xref, n * bs, &x));
    for (PetscInt k = 0; k < n * bs; k++) b[k] = Rand(rnd) - 0.5;
    PetscCall(GILUTriCreate(&tri));
    PetscCall(GILUTriSetMatrix(tri, uplo, GILU_TRI_DIAG_STORED, n, bs, ai, aj, aa, NULL));
    PetscCall(GILUTriSolveReference(tri, b, xref));
    PetscCall(GILUTriSetType(tri, GILU_TRISOLVE_CHUNKED));
    for (PetscInt nt = 1; nt <= 3; nt++)
      for (PetscInt cs = 1; cs >= (nt > 1 ? 0 : 1); cs--) { /* the threads' fixed shares, and claimed chunks */
        PetscBool same;

        PetscCall(GILUTriSetThreads(tri, nt));
        PetscCall(GILUTriSetChunkedStatic(tri, (PetscBool)cs));
        PetscCall(PetscArraycpy(x, b, n * bs));
        PetscCall(GILUTriSolve(tri, x, x)); /* in place */
        PetscCall(PetscArraycmp(x, xref, n * bs, &same));
        if (!same) PetscCall(PetscPrintf(PETSC_COMM_SELF, "chunked: %s chain, %" PetscInt_FMT " threads%s: not bitwise the reference\n", u ? "upper" : "lower", nt, cs ? "" : ", claimed"));
      }
    PetscCall(GILUTriDestroy(&tri));
    PetscCall(PetscFree3(b, xref, x));
    PetscCall(PetscFree3(ai, aj, aa));
  }
  for (PetscInt permute = 0; permute < 2; permute++)
    for (PetscInt nt = 1; nt <= 2; nt++) {
      Mat              A, Fp, Fg;
      Vec              b, xp, xg;
      GILUTri          L, U;
      GILUTriSolveType ranL, ranU, want = GILU_TRISOLVE_CHUNKED; /* one thread: two chunks at a time (the column-offset patterns) */
      char             what[64];

      PetscCall(MakeStencil(30, 7, (PetscBool)permute, rnd, &A));
      PetscCall(MatCreateVecs(A, &xp, &b));
      PetscCall(VecDuplicate(xp, &xg));
      PetscCall(VecSetRandom(b, rnd));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve", "auto"));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", nt == 1 ? "1" : "2"));
      PetscCall(Factor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fp));
      PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fg));
      PetscCall(MatSolve(Fp, b, xp));
      PetscCall(MatSolve(Fg, b, xg));
      PetscCall(PetscSNPrintf(what, sizeof(what), "auto %s 7-point 30^3, %" PetscInt_FMT " threads", permute ? "permuted" : "natural", nt));
      PetscCall(CompareVec(xg, xp, what, 1e-10));
      PetscCall(MatGILUFactorGetTri(Fg, &L, &U));
      PetscCall(GILUTriGetType(L, &ranL));
      PetscCall(GILUTriGetType(U, &ranU));
      if (permute ? (ranL == GILU_TRISOLVE_CHUNKED || ranU == GILU_TRISOLVE_CHUNKED) : (ranL != want || ranU != want)) PetscCall(PetscPrintf(PETSC_COMM_SELF, "chunked: %s: auto ran %s/%s\n", what, GILUTriSolveTypes[ranL], GILUTriSolveTypes[ranU]));
      PetscCall(MatDestroy(&Fg));
      PetscCall(MatDestroy(&Fp));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&xp));
      PetscCall(VecDestroy(&xg));
      PetscCall(MatDestroy(&A));
    }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CPUTime(PetscLogDouble *t)
{
  struct timespec ts;

  PetscFunctionBegin;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  *t = (PetscLogDouble)ts.tv_sec + 1e-9 * (PetscLogDouble)ts.tv_nsec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* best wall-clock time and best process CPU time (all threads) of one MatSolve */
static PetscErrorCode TimeSolve(Mat F, Vec b, Vec x, PetscInt reps, PetscReal *best, PetscReal *bestcpu)
{
  PetscFunctionBegin;
  *best    = PETSC_MAX_REAL;
  *bestcpu = PETSC_MAX_REAL;
  PetscCall(MatSolve(F, b, x)); /* warm-up (builds a plan if needed) */
  for (PetscInt k = 0; k < reps; k++) {
    PetscLogDouble t0, t1, c0, c1;

    PetscCall(CPUTime(&c0));
    PetscCall(PetscTime(&t0));
    PetscCall(MatSolve(F, b, x));
    PetscCall(PetscTime(&t1));
    PetscCall(CPUTime(&c1));
    *best    = PetscMin(*best, (PetscReal)(t1 - t0));
    *bestcpu = PetscMin(*bestcpu, (PetscReal)(c1 - c0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A block of right-hand sides X = A^{-1} B (B: ncols columns), best of reps: MatMatSolve() (mat) or MatSolve() of each
  column (loop), on the wall clock
*/
static PetscErrorCode TimeMatSolve(Mat F, Mat B, Mat X, PetscBool loop, PetscInt reps, PetscReal *best)
{
  PetscInt ncols;

  PetscFunctionBegin;
  *best = PETSC_MAX_REAL;
  PetscCall(MatGetSize(B, NULL, &ncols));
  for (PetscInt k = 0; k <= reps; k++) { /* k == 0: warm-up */
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    if (loop)
      for (PetscInt j = 0; j < ncols; j++) {
        Vec b, x;

        PetscCall(MatDenseGetColumnVecRead(B, j, &b));
        PetscCall(MatDenseGetColumnVecWrite(X, j, &x));
        PetscCall(MatSolve(F, b, x));
        PetscCall(MatDenseRestoreColumnVecWrite(X, j, &x));
        PetscCall(MatDenseRestoreColumnVecRead(B, j, &b));
      }
    else PetscCall(MatMatSolve(F, B, X));
    PetscCall(PetscTime(&t1));
    if (k) *best = PetscMin(*best, (PetscReal)(t1 - t0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test bench: one JSON object per line for bench/sptrsv.py: the matrix (-grid m -points 7|27 [-permute], or -matrix
  name of PetscGILUTestMatrixList() with -grid its size), its ILU(0)
  factors' levels, PETSc's MatSolve time and, for each algorithm (or those of -bench_types a,b,...) and -bench_threads
  list, gilu's MatSolve time (best of -reps solves, and best over -rounds rounds that time every configuration in turn)
  (best of -reps), the algorithm auto chose and the analysis time. -bench_columns k (> 0): also a block of k
  right-hand sides, timed the same way: PETSc's MatMatSolve(), and gilu's MatMatSolve() (the columns in groups,
  GILUTriSolveMultiple()) and MatSolve() of each column.
*/
static PetscErrorCode Bench(PetscRandom rnd, PetscInt grid)
{
  PetscInt  points = 7, reps = 10, rounds = 3, threads[4] = {1, 2}, nthr = 2, n, ncfg = 0, cth[4 * NTYPES], ctype[4 * NTYPES], ncols = 0;
  PetscBool permute    = PETSC_FALSE;
  char      types[256] = ""; /* -bench_types levelset,chunked,...: only these (default all) */
  char      matrix[64] = ""; /* -matrix name: a test-suite matrix instead of the stencil */
  PetscBool named      = PETSC_FALSE;
  Mat       A, Fp, Fg[4 * NTYPES];
  Vec       b, x;
  PetscReal tp = PETSC_MAX_REAL, tpc = PETSC_MAX_REAL, tg[4 * NTYPES], tgc[4 * NTYPES], tsetup[4 * NTYPES];
  PetscReal tpm = PETSC_MAX_REAL, tgm[4 * NTYPES], tgl[4 * NTYPES]; /* -bench_columns: MatMatSolve(), the column loop */
  Mat       B = NULL, X = NULL;
  char      name[64];

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-points", &points, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rounds", &rounds, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-permute", &permute, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bench_threads", threads, &nthr, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_types", types, sizeof(types), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), &named));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench_columns", &ncols, NULL));
  if (named) { /* a matrix of the test suite (src/test/testmat.c), -grid its size */
    PetscCall(PetscGILUTestMatrixCreate(PETSC_COMM_SELF, matrix, grid, &A, NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s-%" PetscInt_FMT, matrix, grid));
  } else {
    PetscCall(MakeStencil(grid, points, permute, rnd, &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s%" PetscInt_FMT "pt-%" PetscInt_FMT "^3", permute ? "perm-" : "", points, grid));
  }
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetRandom(b, rnd));
  if (ncols > 0) {
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, ncols, NULL, &B));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, ncols, NULL, &X));
    PetscCall(MatSetRandom(B, rnd));
  }
  PetscCall(Factor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fp));
  /* every factor first, then the timings in rounds: each round times PETSc and every configuration once (best of reps),
     the configurations in a rotated order; a configuration's time is its best over the rounds (this machine's timing
     noise comes in stretches of seconds, so one stretch does not decide a comparison) */
  for (PetscInt th = 0; th < nthr; th++)
    for (PetscInt t = 0; t < NTYPES; t++) {
      char           opt[32];
      PetscLogDouble t0, t1;
      PetscBool      wanted = PETSC_TRUE;

      if (types[0]) {
        char  *found = NULL;
        size_t len;

        PetscCall(PetscStrlen(GILUTriSolveTypes[t], &len));
        PetscCall(PetscStrstr(types, GILUTriSolveTypes[t], &found));
        wanted = (PetscBool)(found && (found == types || found[-1] == ',') && (found[len] == ',' || found[len] == 0));
      }
      if (!wanted) continue;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "%" PetscInt_FMT, threads[th]));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve", GILUTriSolveTypes[t]));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", opt));
      PetscCall(PetscTime(&t0));
      PetscCall(Factor(A, MATSOLVERGILU, MAT_FACTOR_ILU, MATORDERINGNATURAL, 0, &Fg[ncfg]));
      PetscCall(PetscTime(&t1));
      cth[ncfg]    = threads[th];
      ctype[ncfg]  = t;
      tsetup[ncfg] = (PetscReal)(t1 - t0);
      tg[ncfg] = tgc[ncfg] = tgm[ncfg] = tgl[ncfg] = PETSC_MAX_REAL;
      ncfg++;
    }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  for (PetscInt r = 0; r < rounds; r++) {
    PetscReal t, tc;

    PetscCall(TimeSolve(Fp, b, x, reps, &t, &tc));
    tp  = PetscMin(tp, t);
    tpc = PetscMin(tpc, tc);
    if (B) {
      PetscCall(TimeMatSolve(Fp, B, X, PETSC_FALSE, reps, &t));
      tpm = PetscMin(tpm, t);
    }
    for (PetscInt q = 0; q < ncfg; q++) {
      PetscInt k = (q + r) % ncfg;

      PetscCall(TimeSolve(Fg[k], b, x, reps, &t, &tc));
      tg[k]  = PetscMin(tg[k], t);
      tgc[k] = PetscMin(tgc[k], tc);
      if (B) { /* the block and the column loop one after the other (alternating by round) */
        for (PetscInt w = 0; w < 2; w++) {
          PetscBool loop = (PetscBool)((w + r) % 2);

          PetscCall(TimeMatSolve(Fg[k], B, X, loop, reps, &t));
          if (loop) tgl[k] = PetscMin(tgl[k], t);
          else tgm[k] = PetscMin(tgm[k], t);
        }
      }
    }
  }
  for (PetscInt k = 0; k < ncfg; k++) {
    GILUTri          L, U;
    PetscInt         nlL, nlU, mlL, mlU;
    GILUTriSolveType ranL, ranU;

    PetscCall(MatGILUFactorGetTri(Fg[k], &L, &U));
    PetscCall(GILUTriGetLevels(L, &nlL, &mlL));
    PetscCall(GILUTriGetLevels(U, &nlU, &mlU));
    PetscCall(GILUTriGetType(L, &ranL));
    PetscCall(GILUTriGetType(U, &ranU));
    char cols[160] = "";

    if (B) PetscCall(PetscSNPrintf(cols, sizeof(cols), ", \"columns\": %" PetscInt_FMT ", \"t_petsc_mat\": %.6e, \"t_gilu_mat\": %.6e, \"t_gilu_loop\": %.6e", ncols, (double)tpm, (double)tgm[k], (double)tgl[k]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "{\"matrix\": \"%s\", \"n\": %" PetscInt_FMT ", \"levels_L\": %" PetscInt_FMT ", \"levels_U\": %" PetscInt_FMT ", \"maxlevel_L\": %" PetscInt_FMT ", \"threads\": %" PetscInt_FMT ", \"algorithm\": \"%s\", \"ran\": \"%s/%s\", \"t_petsc\": %.6e, \"t_gilu\": %.6e, \"cpu_petsc\": %.6e, \"cpu_gilu\": %.6e, \"t_setup\": %.6e%s}\n", name, n, nlL, nlU, mlL, cth[k], GILUTriSolveTypes[ctype[k]], GILUTriSolveTypes[ranL], GILUTriSolveTypes[ranU], (double)tp, (double)tg[k], (double)tpc, (double)tgc[k], (double)tsetup[k], cols));
    PetscCall(MatDestroy(&Fg[k]));
  }
  PetscCall(MatDestroy(&Fp));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&X));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test numbench: the numeric ILU(k) (-levels, default 0) of the 7-point -grid^3 matrix (-permute: randomly permuted): PETSc's
  (MatSolverType petsc) and gilu's on 1 and 2 threads (chunked and level-set schedules): the first numeric factorization
  (gilu: with the pattern, the schedule and the engine's analysis) and the best of -reps refactorizations (SAME_NONZERO_PATTERN)
*/
static PetscErrorCode NumBench(PetscRandom rnd, PetscInt grid)
{
  PetscInt  reps = 5, levels = 0;
  PetscBool permute = PETSC_FALSE;
  Mat       A;
  const struct {
    const char *solver, *threads, *schedule;
  } cfg[] = {
    {MATSOLVERPETSC, "1", "chunked" },
    {MATSOLVERGILU,  "1", "chunked" },
    {MATSOLVERGILU,  "2", "chunked" },
    {MATSOLVERGILU,  "2", "levelset"}
  };

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-levels", &levels, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-permute", &permute, NULL));
  PetscCall(MakeStencil(grid, 7, permute, rnd, &A));
  for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
    Mat            F;
    IS             row, col;
    MatFactorInfo  info;
    PetscLogDouble t0, t1, first, best = PETSC_MAX_REAL;

    PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_trisolve_threads", cfg[c].threads));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_gilu_factor_schedule", cfg[c].schedule));
    PetscCall(MatGetFactor(A, cfg[c].solver, MAT_FACTOR_ILU, &F));
    PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
    PetscCall(MatFactorInfoInitialize(&info));
    info.levels = levels;
    info.fill   = 1.0;
    PetscCall(MatILUFactorSymbolic(F, A, row, col, &info));
    PetscCall(PetscTime(&t0));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(PetscTime(&t1));
    first = t1 - t0;
    for (PetscInt k = 0; k < reps; k++) {
      PetscCall(PetscTime(&t0));
      PetscCall(MatLUFactorNumeric(F, A, &info));
      PetscCall(PetscTime(&t1));
      best = PetscMin(best, t1 - t0);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s ILU(%" PetscInt_FMT ") %s7-point %" PetscInt_FMT "^3: %-5s %s thread(s) %-8s first numeric %.4f s, refactorization best of %" PetscInt_FMT " %.4f s\n", MATSOLVERGILU, levels, permute ? "permuted " : "", grid,
                          cfg[c].solver, cfg[c].threads, c ? cfg[c].schedule : "", (double)first, reps, (double)best));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatDestroy(&F));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_trisolve_threads"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gilu_factor_schedule"));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSP with PCILU and MatSolverType gilu on a small 3D matrix, for -ksp_view */
/* -setter_trisolve <type> and -setter_threads <n>: given to the factor by MatGILUSetTriSolveType() and
   MatGILUSetTriSolveThreads() instead of the options (the view must be the one the options give); -view_matapply k:
   PCMatApply() on k columns first (the view counts the right-hand sides the triangles solved in groups) */
static PetscErrorCode TestView(PetscRandom rnd)
{
  Mat       A;
  KSP       ksp;
  PC        pc;
  Vec       b, x;
  PetscInt  its, nthreads, ncols = 0;
  PetscEnum type;
  PetscBool settype, setthreads;

  PetscFunctionBegin;
  PetscCall(MakeStencil(12, 7, PETSC_FALSE, rnd, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCILU));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERGILU));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-setter_trisolve", GILUTriSolveTypes, &type, &settype));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-setter_threads", &nthreads, &setthreads));
  if (settype || setthreads) {
    Mat F;

    PetscCall(PCFactorSetUpMatSolverType(pc));
    PetscCall(PCFactorGetMatrix(pc, &F));
    if (settype) PetscCall(MatGILUSetTriSolveType(F, (GILUTriSolveType)type));
    if (setthreads) PetscCall(MatGILUSetTriSolveThreads(F, nthreads));
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-view_matapply", &ncols, NULL));
  if (ncols > 0) {
    Mat B, X;

    PetscCall(KSPSetUp(ksp));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, 12 * 12 * 12, ncols, NULL, &B));
    PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
    PetscCall(MatSetRandom(B, rnd));
    PetscCall(PCMatApply(pc, B, X));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
  }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "iterations %" PetscInt_FMT "\n", its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A zero on the diagonal: PETSc's ILU(0) meets a zero pivot, and so must gilu's, through KSP */
static PetscErrorCode TestZeroPivot(void)
{
  Mat                A;
  KSP                ksp;
  PC                 pc;
  Vec                b, x;
  PetscInt           n = 10;
  KSPConvergedReason reason;
  PCFailedReason     pcreason;

  PetscFunctionBegin;
  PetscCall(MakeZeroPivotMatrix(n, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCILU));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERGILU));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PCGetFailedReason(pc, &pcreason));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "zero pivot: KSP %s, PC %s\n", KSPConvergedReasons[reason], PCFailedReasons[pcreason]));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        test[64] = "";
  PetscInt    grid     = 6;
  PetscBool   all, match;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-grid", &grid, NULL));
  all = (PetscBool)!test[0];
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscStrcmp(test, "factor", &match));
  if (all || match) PetscCall(TestFactor(rnd, grid));
  PetscCall(PetscStrcmp(test, "chunked", &match));
  if (all || match) PetscCall(TestChunked(rnd));
  PetscCall(PetscStrcmp(test, "forwardbackward", &match));
  if (match) PetscCall(TestSplitAndMatSolve(rnd, grid, PETSC_TRUE));
  PetscCall(PetscStrcmp(test, "matsolve", &match));
  if (match) PetscCall(TestSplitAndMatSolve(rnd, grid, PETSC_FALSE));
  PetscCall(PetscStrcmp(test, "symmetric", &match));
  if (match) PetscCall(TestSymmetric(rnd));
  PetscCall(PetscStrcmp(test, "devicesolve", &match));
  if (match) PetscCall(TestDeviceSolve(rnd, grid));
  PetscCall(PetscStrcmp(test, "numeric", &match));
  if (match) PetscCall(TestNumeric(rnd));
  PetscCall(PetscStrcmp(test, "sbaij", &match));
  if (match) PetscCall(TestSBAIJ(rnd, grid));
  PetscCall(PetscStrcmp(test, "zeropivot", &match));
  if (match) PetscCall(TestZeroPivot());
  PetscCall(PetscStrcmp(test, "view", &match));
  if (match) PetscCall(TestView(rnd));
  PetscCall(PetscStrcmp(test, "numbench", &match));
  if (match) PetscCall(NumBench(rnd, grid));
  PetscCall(PetscStrcmp(test, "bench", &match));
  if (match) PetscCall(Bench(rnd, grid));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: factor
     args: -test factor -grid 4
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # the numeric factorization on 2 threads with the developers' hook -gilu_schedule_delay (thread 0 starts late): a
   # missing wait between chunks or barrier between levels gives other factors than PETSc's every time (the host mutants
   # of tests/mutations/run --host)
   test:
     suffix: factor_delay
     args: -test factor -grid 4 -gilu_schedule_delay 100 -mat_gilu_factor_schedule {{chunked levelset}separate output}
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out
   # ... whose factorizations do run on 2 threads (40 chunked, 272 by level sets: the others are PETSc's, or on one thread
   # where chunks or level sets would leave the threads idle): a change of those rules that took the threads away from
   # factor_delay fails here
   test:
     suffix: factor_threaded
     args: -test factor -grid 4 -factor_view ::ascii_info -mat_gilu_factor_schedule {{chunked levelset}separate output}
     env: OMP_WAIT_POLICY=passive
     filter: grep -c -E "numeric factorization: .*(chunked|level-set) on 2 threads"

   # MatSolve() on the emulated device: orderings fused into L's and U's kernels, the same bits, no sync and no memset
   test:
     suffix: devicesolve
     requires: cudaemu
     args: -test devicesolve -grid 5 -gilu_cudaemu_schedule {{inorder reverse random}} -gilu_cudaemu_seed 3
     output_file: output/empty.out

   # MatForwardSolve()/MatBackwardSolve() (-ksp_pc_side symmetric) and MatMatSolve() against PETSc's
   test:
     suffix: forwardbackward
     args: -test forwardbackward -grid 4
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   test:
     suffix: matsolve
     args: -test matsolve -grid 4
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # ICC(k) of a MATSEQSBAIJ by gilu and structilu equals PETSc's (block sizes 1, 3, 9)
   test:
     suffix: sbaij
     args: -test sbaij -grid 4
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # -ksp_pc_side symmetric with ICC(k): PETSc's iterations; KSPMatSolve() through gilu's MatMatSolve()
   test:
     suffix: symmetric
     args: -test symmetric -pc_factor_levels {{0 1}separate output} -mat_gilu_trisolve_threads 2
     env: OMP_WAIT_POLICY=passive

   # the same on the engine's CUDA kernels (emulated): the split's two solves through the device back-end
   test:
     suffix: symmetric_cudaemu
     args: -test symmetric -pc_factor_levels 1 -mat_gilu_trisolve_backend cudaemu
     env: OMP_WAIT_POLICY=passive
     output_file: output/ex16_symmetric_pc_factor_levels-1.out

   # the engine's chunked algorithm through gilu: 1, 2, 3 threads give the reference's bits; auto's choice of it
   test:
     suffix: chunked
     args: -test chunked
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # the blocked algorithms on the emulated device: the host's iterations (as ex16_view_..._recblock), segments, kernels
   test:
     suffix: view_cudaemu
     requires: cudaemu
     args: -test view -ksp_view -pc_factor_levels 1 -mat_gilu_trisolve_backend cudaemu -mat_gilu_trisolve {{colblock rowblock recblock}separate output} -mat_gilu_trisolve_block_depth 2 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     filter: grep -v "setup time:"

   # sync-free triangles by columns (CSC) on the emulated device: the same iterations, the segments say so
   test:
     suffix: view_cudaemu_csc
     requires: cudaemu
     args: -test view -ksp_view -pc_factor_levels 1 -mat_gilu_trisolve_backend cudaemu -mat_gilu_trisolve {{syncfree recblock}separate output} -mat_gilu_trisolve_block_depth 2 -mat_gilu_trisolve_csc -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     filter: grep -v "setup time:"

   # sequential and chunked stay on the host: asked for on a CUDA back-end, a clear error
   test:
     suffix: cudaemu_host_only
     requires: cudaemu
     args: -test view -mat_gilu_trisolve_backend cudaemu -mat_gilu_trisolve {{sequential chunked}separate output}
     filter: Error: grep -o "The CUDA back-ends run the levelset, syncfree, colblock, rowblock and recblock algorithms, not [a-z]* (host only)"

   # what -ksp_view says: the algorithm each factor runs, its levels and blocks (timings filtered out)
   test:
     suffix: view
     args: -test view -ksp_view -pc_factor_levels 1 -mat_gilu_trisolve {{auto levelset syncfree recblock chunked}separate output} -mat_gilu_trisolve_threads 2 -mat_gilu_trisolve_block_depth 2
     env: OMP_WAIT_POLICY=passive
     filter: grep -v "setup time:"

   # PCMatApply() of 5 columns before the solve: the view counts them as solved in one group by each triangle
   test:
     suffix: view_matapply
     args: -test view -ksp_view -view_matapply 5 -mat_gilu_trisolve_threads 2
     env: OMP_WAIT_POLICY=passive
     filter: grep -v "setup time:"

   # MatGILUSetTriSolveType(), MatGILUSetTriSolveThreads() give the view of -mat_gilu_trisolve recblock -mat_gilu_trisolve_threads 2
   test:
     suffix: view_setters
     args: -test view -ksp_view -pc_factor_levels 1 -setter_trisolve recblock -setter_threads 2 -mat_gilu_trisolve_block_depth 2
     env: OMP_WAIT_POLICY=passive
     filter: grep -v "setup time:"
     output_file: output/ex16_view_mat_gilu_trisolve-recblock.out

   # recblock without the reordering by levels (on by default, see ex16_view_..._recblock): the plain split, the same iterations
   test:
     suffix: view_recblock_noreorder
     args: -test view -ksp_view -pc_factor_levels 1 -mat_gilu_trisolve recblock -mat_gilu_trisolve_recblock_reorder 0 -mat_gilu_trisolve_threads 2 -mat_gilu_trisolve_block_depth 2
     env: OMP_WAIT_POLICY=passive
     filter: grep -v "setup time:"

   # gilu's numeric factorization equals PETSc's (AIJ ILU(0..2), natural/RCM, 1/2 threads, both schedules, refactored; shifts)
   test:
     suffix: numeric
     args: -test numeric
     env: OMP_WAIT_POLICY=passive
     filter: grep -v -E "setup time:|host thread"

   # what -ksp_view says of the numeric factorization: gilu's with each schedule, on 1 thread, and PETSc's when asked for
   test:
     suffix: view_numeric
     args: -test view -ksp_view -mat_gilu_trisolve_threads 2 -mat_gilu_factor_schedule {{chunked levelset}separate output}
     env: OMP_WAIT_POLICY=passive
     filter: grep -E "numeric factorization|^iterations"

   test:
     suffix: view_numeric_1thread
     args: -test view -ksp_view -mat_gilu_trisolve_threads 1
     filter: grep -E "numeric factorization|^iterations"

   test:
     suffix: view_numeric_petsc
     args: -test view -ksp_view -mat_gilu_factor_numeric petsc
     filter: grep -E "numeric factorization|^iterations"

   test:
     suffix: zeropivot
     args: -test zeropivot -ksp_error_if_not_converged 0 -mat_gilu_trisolve_threads {{1 2}shared output} -mat_gilu_factor_schedule {{chunked levelset}shared output}
     env: OMP_WAIT_POLICY=passive

   # -gilu_backend alone selects gilu's engine back-end (the host's iterations, the view says cudaemu); the engine's option overrides it
   test:
     suffix: global_backend
     requires: cudaemu
     args: -test view -ksp_view -gilu_backend {{host cudaemu}separate output}
     filter: grep -E "algorithm|^iterations"

   test:
     suffix: backend_override
     requires: cudaemu
     args: -test view -ksp_view -gilu_backend host -mat_gilu_trisolve_backend cudaemu
     filter: grep -E "algorithm|^iterations"
     output_file: output/ex16_global_backend_gilu_backend-cudaemu.out

   # cuda where there is no device (or no CUDA build): a clear error
   test:
     suffix: no_device
     requires: !cuda_device
     args: -test view -gilu_backend cuda
     filter: Error: grep -o "The CUDA back-end was asked for"

TEST*/
