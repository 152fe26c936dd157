static char help[] = "Tests of the triangular-solve engine (src/mat/sptrsv) on triangles handed to it directly.\n\
  -test engine|cudaemu|badinput : what to run (default: engine); prints only failures\n\
  -n <rows> : rows of the random triangles (default 300)\n\
  -grid <m> : the stencil triangles live on an m x m x m grid (default 6)\n\
  -bs_max <k> : engine: block sizes up to k only (default 8)\n\n";

/*
  engine:    random and stencil-like (7- and 27-point) triangular matrices, lower and upper, unit, stored and
             separate inverted diagonal, block sizes 1..8; every algorithm (with forced block depths 1..4 for
             the blocked ones; recblock with and without the reordering by levels), on 1 and 2 threads, must equal
             the sequential reference to round-off, and 1 and 2 threads (chunked: also 3, claiming the chunks) must give the same bits (whole-factor
             level-set and sync-free also with and without the copy in execution order). A second SetMatrix
             with the same pattern and new values must keep the analysis and give the new solution.
             GILUTriSolveMultiple() of 2 to 8 right-hand sides must give every column GILUTriSolve()'s bits. The blocked
             algorithms also run on 7-point 54^3 and 27-point 32^3 triangles, where the table puts level-set and
             sync-free kernels inside the blocks.
  cudaemu:   the CUDA kernels (src/mat/sptrsv/cuda) through the host emulation equal the host reference: level-set,
             sync-free and the blocked algorithms (depths 1-3; squares by scalar-CSR and vector-CSR; recblock with
             and without the reordering by levels; sync-free triangles by rows and by columns). -backend cuda: the
             same on a GPU (make check-gpu).
  badinput:  a wrong triangle handed to GILUTriSetMatrix() or GILUTriSetMatrixTranspose() ends in a clear error.
  MatSolverType gilu, built on the engine, is tested by tests/ex16.c.
*/
#include <petscsys.h>
#include <petscgilu.h>
#include <petscgilu/private/sptrsv.h>
#include <petscgilutest.h>
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

/* A random (or 3D stencil) lower/upper triangle with bs x bs blocks, in CSR/BSR; diag stored or not. kind 0: random, a
   few columns a row; 1, 2: 7- and 27-point stencil; 3: random with long rows (up to 40 columns: the squares of the blocked
   algorithms average more than 12 blocks a row, the CUDA back-ends' vector-CSR) */
static PetscErrorCode MakeTriangle(PetscRandom rnd, PetscInt kind, PetscInt nrand, PetscInt grid, GILUTriUplo uplo, GILUTriDiag diag, PetscInt bs, PetscInt *nout, PetscInt **ai, PetscInt **aj, MatScalar **aa, MatScalar **dinv)
{
  PetscInt   n = kind == 0 || kind == 3 ? nrand : grid * grid * grid, bs2 = bs * bs, cap, nz = 0, cols[64];
  PetscInt  *i, *j;
  MatScalar *a, *d = NULL;

  PetscFunctionBegin;
  cap = n * 45;
  PetscCall(PetscMalloc2(n + 1, &i, cap, &j));
  i[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt nc = 0;

    if (kind == 0 || kind == 3) { /* random: a few random earlier (later) columns, and sometimes the neighbour */
      PetscInt want = kind == 0 ? (PetscInt)(Rand(rnd) * 6) : 20 + (PetscInt)(Rand(rnd) * 20);

      if (Rand(rnd) < 0.5) cols[nc++] = uplo == GILU_TRI_LOWER ? r - 1 : r + 1;
      for (PetscInt t = 0; t < want; t++) {
        PetscInt c = uplo == GILU_TRI_LOWER ? (PetscInt)(Rand(rnd) * r) : r + 1 + (PetscInt)(Rand(rnd) * (n - r - 1));

        if (c != r) cols[nc++] = c;
      }
    } else { /* stencil: 7-point (kind 1) or 27-point (kind 2) neighbours that come before (after) r */
      PetscInt x = r % grid, y = (r / grid) % grid, z = r / (grid * grid);

      for (PetscInt dz = -1; dz <= 1; dz++)
        for (PetscInt dy = -1; dy <= 1; dy++)
          for (PetscInt dx = -1; dx <= 1; dx++) {
            PetscInt c;

            if (kind == 1 && PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz) != 1) continue;
            if (x + dx < 0 || x + dx >= grid || y + dy < 0 || y + dy >= grid || z + dz < 0 || z + dz >= grid) continue;
            c = r + dx + dy * grid + dz * grid * grid;
            if ((uplo == GILU_TRI_LOWER && c < r) || (uplo == GILU_TRI_UPPER && c > r)) cols[nc++] = c;
          }
    }
    if (diag == GILU_TRI_DIAG_STORED) cols[nc++] = r;
    for (PetscInt t = 0; t < nc; t++) /* drop out-of-range, sort, unique */
      if (cols[t] < 0 || cols[t] >= n) cols[t] = cols[--nc], t--;
    PetscCall(PetscSortRemoveDupsInt(&nc, cols));
    for (PetscInt t = 0; t < nc; t++) j[nz++] = cols[t];
    i[r + 1] = nz;
  }
  PetscCall(PetscMalloc1(nz * bs2, &a));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = i[r]; k < i[r + 1]; k++)
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) a[k * bs2 + p * bs + q] = j[k] == r ? (p == q ? 2.0 + Rand(rnd) : 0.2 * (Rand(rnd) - 0.5)) : (Rand(rnd) - 0.5) / (i[r + 1] - i[r]) / bs;
  if (diag == GILU_TRI_DIAG_INVERSE) {
    PetscCall(PetscMalloc1(n * bs2, &d));
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) d[r * bs2 + p * bs + q] = p == q ? 0.5 + 0.5 * Rand(rnd) : 0.1 * (Rand(rnd) - 0.5);
  }
  *nout = n;
  *ai   = i;
  *aj   = j;
  *aa   = a;
  *dinv = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A triangle whose threads are tried whatever the load, as -mat_gilu_trisolve_threads makes them: else, with more runnable
  threads than cores (make check beside other jobs), the governor runs every solve on one thread and the threaded paths
  of the kernels are never checked (private/wait.h)
*/
static PetscErrorCode CreateTriThreadsTried(GILUTri *tri)
{
  PetscOptions opts;

  PetscFunctionBegin;
  PetscCall(GILUTriCreate(tri));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-mat_gilu_trisolve_threads", "2"));
  PetscCall(GILUTriSetFromOptions(*tri, opts, NULL));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUTriSolveMultiple() of nrhs right-hand sides (interleaved) against GILUTriSolve() of each, bitwise: column 0 is b
  (x: its solution by GILUTriSolve() with the same settings), the others made from b without the random stream (so the
  triangles that follow are those of the test without this check); in place for an odd nrhs
*/
static PetscErrorCode CheckMultiple(GILUTri tri, PetscInt nb, PetscInt bs, PetscInt nrhs, const PetscScalar b[], const PetscScalar x[], const char what[])
{
  const PetscInt m = nb * bs;
  PetscScalar   *B, *X, *bj, *xj;
  PetscInt       wrong = -1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(m * nrhs, &B, m * nrhs, &X, m, &bj, m, &xj));
  for (PetscInt k = 0; k < m * nrhs; k++) X[k] = NAN; /* (as in TestEngine(): no earlier solution to read by mistake) */
  for (PetscInt j = 0; j < nrhs; j++) {
    for (PetscInt k = 0; k < m; k++) bj[k] = j ? b[(k * 7 + j * 13) % m] * (1.0 + 0.125 * j) - 0.01 * j : b[k];
    for (PetscInt k = 0; k < m; k++) B[k * nrhs + j] = bj[k];
  }
  PetscCall(GILUTriSolveMultiple(tri, nrhs, B, nrhs % 2 ? B : X));
  if (nrhs % 2) PetscCall(PetscArraycpy(X, B, m * nrhs));
  for (PetscInt j = 0; j < nrhs && wrong < 0; j++) {
    if (j) {
      for (PetscInt k = 0; k < m; k++) bj[k] = b[(k * 7 + j * 13) % m] * (1.0 + 0.125 * j) - 0.01 * j;
      for (PetscInt k = 0; k < m; k++) xj[k] = NAN;
      PetscCall(GILUTriSolve(tri, bj, xj));
    } else PetscCall(PetscArraycpy(xj, x, m));
    for (PetscInt k = 0; k < m; k++)
      if (X[k * nrhs + j] != xj[k]) wrong = j;
  }
  if (wrong >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: GILUTriSolveMultiple() of %" PetscInt_FMT " right-hand sides: column %" PetscInt_FMT " is not bitwise GILUTriSolve()'s\n", what, nrhs, wrong));
  PetscCall(PetscFree4(B, X, bj, xj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestEngine(PetscRandom rnd, PetscInt nrand, PetscInt grid, PetscInt bsmax)
{
  PetscFunctionBegin;
  for (PetscInt kind = 0; kind < 3; kind++)
    for (PetscInt u = 0; u < 2; u++)
      for (PetscInt dg = 0; dg < 3; dg++)
        for (PetscInt bs = 1; bs <= bsmax; bs++) {
          GILUTriUplo  uplo = u ? GILU_TRI_UPPER : GILU_TRI_LOWER;
          GILUTriDiag  diag = (GILUTriDiag)dg;
          PetscInt     n, *ai, *aj, m;
          MatScalar   *aa, *dinv;
          PetscScalar *b, *xref, *x, *x1;
          GILUTri      tri;

          if (kind > 0 && bs != 1 && bs != 3 && bs != 8) continue; /* stencils: a few block sizes suffice */
          PetscCall(MakeTriangle(rnd, kind, nrand, grid, uplo, diag, bs, &n, &ai, &aj, &aa, &dinv));
          m = n * bs;
          PetscCall(PetscMalloc4(m, &b, m, &xref, m, &x, m, &x1));
          for (PetscInt k = 0; k < m; k++) b[k] = Rand(rnd) - 0.5;
          PetscCall(CreateTriThreadsTried(&tri));
          PetscCall(GILUTriSetMatrix(tri, uplo, diag, n, bs, ai, aj, aa, dinv));
          PetscCall(GILUTriSolveReference(tri, b, xref));
          for (PetscInt tr = 0; tr <= NTYPES; tr++) { /* tr == NTYPES: recblock with the reordering by levels */
            PetscInt  t        = tr == NTYPES ? GILU_TRISOLVE_RECBLOCK : tr;
            PetscInt  maxdepth = (t == GILU_TRISOLVE_COLBLOCK || t == GILU_TRISOLVE_ROWBLOCK || t == GILU_TRISOLVE_RECBLOCK) ? 4 : 0;
            PetscBool reorder  = (PetscBool)(tr == NTYPES);
            char      tname[32];

            PetscCall(PetscSNPrintf(tname, sizeof(tname), "%s%s", GILUTriSolveTypes[t], reorder ? "+reorder" : ""));
            PetscCall(GILUTriSetRecBlockReorder(tri, reorder));

            for (PetscInt depth = 0; depth <= maxdepth; depth++)
              for (PetscInt nt = 1; nt <= 4; nt++) { /* nt 3, 4: 1, 2 threads without the permuted layout (chunked: nt 3 is 3 threads, claiming chunks) */
                GILUTriSolveType ran;
                PetscReal        err;

                PetscCall(GILUTriSetPermutedLayout(tri, (PetscBool)(nt <= 2)));
                PetscCall(GILUTriSetExecutionOrderCopy(tri, (PetscBool)(nt == 1 || nt == 4))); /* nt 2, 3: rows read where they are */
                if (nt > 2 && (t != GILU_TRISOLVE_LEVELSET && t != GILU_TRISOLVE_SYNCFREE) && !(t == GILU_TRISOLVE_CHUNKED && nt == 3)) continue;
                PetscCall(GILUTriSetType(tri, (GILUTriSolveType)t));
                PetscCall(GILUTriSetThreads(tri, t == GILU_TRISOLVE_CHUNKED ? nt : (nt > 2 ? nt - 2 : nt)));
                PetscCall(GILUTriSetChunkedStatic(tri, (PetscBool)(nt != 3))); /* chunked on 3 threads: the chunks claimed */
                PetscCall(GILUTriSetBlockDepth(tri, depth));
                for (PetscInt k = 0; k < m; k++) x[k] = NAN; /* not the previous run's solution: a row that read x before it was final would read it right */
                PetscCall(GILUTriSolve(tri, b, x));
                PetscCall(GILUTriGetType(tri, &ran));
                err = PetscGILUTestArrayRelDiff(m, x, xref);
                if (err > 1e-12)
                  PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine: matrix kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT ": %s (ran %s) depth %" PetscInt_FMT " threads %" PetscInt_FMT " differs from the reference by %g\n", kind, u ? "upper" : "lower", dg, bs, tname, GILUTriSolveTypes[ran], depth, nt, (double)err));
                PetscCheck(t == GILU_TRISOLVE_AUTO || ran == (GILUTriSolveType)t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GILUTriGetType() says %s, %s was asked for", GILUTriSolveTypes[ran], GILUTriSolveTypes[t]);
                if (nt == 1) PetscCall(PetscArraycpy(x1, x, m));
                else {
                  PetscBool same;

                  PetscCall(PetscArraycmp(x, x1, m, &same));
                  if (!same)
                    PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT ": %s depth %" PetscInt_FMT ": 1 thread and run %" PetscInt_FMT " differ\n", kind, u ? "upper" : "lower", dg, bs, tname, depth, nt));
                }
                { /* several right-hand sides at once: 3, 8 (GILU_TRI_MAX_RHS), 2, 5 by run */
                  char what[128];

                  PetscCall(PetscSNPrintf(what, sizeof(what), "engine: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT ": %s depth %" PetscInt_FMT " run %" PetscInt_FMT, kind, u ? "upper" : "lower", dg, bs, tname, depth, nt));
                  PetscCall(CheckMultiple(tri, n, bs, nt == 1 ? 3 : nt == 2 ? 8 : nt == 3 ? 2 : 5, b, x, what));
                }
                /* level-set, sync-free, chunked and sequential compute each row as the reference does: the same bits */
                if (t == GILU_TRISOLVE_LEVELSET || t == GILU_TRISOLVE_SYNCFREE || t == GILU_TRISOLVE_SEQUENTIAL || t == GILU_TRISOLVE_CHUNKED) {
                  PetscBool same;

                  PetscCall(PetscArraycmp(x, xref, m, &same));
                  if (!same)
                    PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT ": %s threads %" PetscInt_FMT " is not bitwise the reference\n", kind, u ? "upper" : "lower", dg, bs, GILUTriSolveTypes[t], nt));
                }
              }
          }
          /* new values, same pattern: the analysis is kept, the solution is the new one; in place */
          for (PetscInt k = 0; k < ai[n] * bs * bs; k++) aa[k] *= 0.5;
          PetscCall(GILUTriSetRecBlockReorder(tri, PETSC_FALSE));
          PetscCall(GILUTriSetType(tri, GILU_TRISOLVE_SYNCFREE));
          PetscCall(GILUTriSetThreads(tri, 2));
          PetscCall(GILUTriSetMatrix(tri, uplo, diag, n, bs, ai, aj, aa, dinv));
          PetscCall(GILUTriSolveReference(tri, b, xref));
          PetscCall(PetscArraycpy(x, b, m));
          PetscCall(GILUTriSolve(tri, x, x));
          if (PetscGILUTestArrayRelDiff(m, x, xref) > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine: new values: kind %" PetscInt_FMT " bs %" PetscInt_FMT " wrong\n", kind, bs));
          PetscCall(GILUTriDestroy(&tri));
          PetscCall(PetscFree4(b, xref, x, x1));
          PetscCall(PetscFree2(ai, aj));
          PetscCall(PetscFree(aa));
          PetscCall(PetscFree(dinv));
        }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The sync-free kernels (by rows and by columns) and the level-set kernel on triangles of many thread blocks (7 to 19
  blocks of 64 rows, more than the emulation's 4 resident blocks; level-set: 8 to 50 levels of 1 to 3 units of 64 rows),
  lower and upper, unit, stored and inverted diagonal, bs 1 and 2, against the host reference: with the emulated
  schedules (-gilu_cudaemu_schedule inorder, reverse, random:SEED) a row whose dependency is not finished must wait, so a
  missing or wrong wait, fence, barrier or ticket shows as a wrong result, an emulation error or a deadlock (sync-free by
  rows and level-set must give the reference's bits: each row summed in its column order; the long rows of kind 3 take
  two chunks of the warp-per-row kernel). Each solve (level-set, sync-free by rows or columns) must be one kernel launch,
  no device synchronization and no memset (flags, tickets and counters are never cleared per solve), its two copies
  those of b in and x out (the engine's count, and the emulation's: a synchronization, a memset or a copy that comes
  back fails here); each is solved twice, so the second runs on the epoch and counters the first left (the emulation's
  count of the first includes the creation of the device plan, which clears them once: checked on the second).
*/
static PetscErrorCode CheckSolveCounts(GILUTri tri, PetscGILUBackendType dev, const char what[], PetscInt wantlevelset)
{
  PetscInt launches, syncs, memsets, copies, nlevelset;

  PetscFunctionBegin;
  PetscCall(GILUTriGetDeviceSolveCounts(tri, &launches, &syncs, &memsets, &copies, &nlevelset));
  if (launches != 1 || syncs != 0 || memsets != 0 || copies != 2 || nlevelset != wantlevelset)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: %s: %" PetscInt_FMT " launches, %" PetscInt_FMT " synchronizations, %" PetscInt_FMT " memsets, %" PetscInt_FMT " copies, %" PetscInt_FMT " level-set triangles (the engine's count), not 1, 0, 0, 2, %" PetscInt_FMT "\n", what, launches, syncs, memsets, copies, nlevelset, wantlevelset));
#if defined(PETSCGILU_HAVE_CUDAEMU)
  if (dev == PETSCGILU_BACKEND_CUDAEMU && !strncmp(what, "second", 6)) {
    GILUEmuCounters c;

    PetscCall(GILUEmuCountersGet(NULL, &c));
    if (c.runtime[GILU_EMU_RT_LAUNCH] != 1 || c.runtime[GILU_EMU_RT_SYNC] != 0 || c.runtime[GILU_EMU_RT_MEMSET] != 0 || c.runtime[GILU_EMU_RT_COPY_TO_DEVICE] != 1 || c.runtime[GILU_EMU_RT_COPY_TO_HOST] != 1 || c.runtime[GILU_EMU_RT_COPY_ON_DEVICE] != 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: %s: %" PetscInt64_FMT " launches, %" PetscInt64_FMT " synchronizations, %" PetscInt64_FMT " memsets, %" PetscInt64_FMT " + %" PetscInt64_FMT " + %" PetscInt64_FMT " copies (the emulation's count), not 1, 0, 0, 1 + 1 + 0\n", what, c.runtime[GILU_EMU_RT_LAUNCH], c.runtime[GILU_EMU_RT_SYNC], c.runtime[GILU_EMU_RT_MEMSET], c.runtime[GILU_EMU_RT_COPY_TO_DEVICE], c.runtime[GILU_EMU_RT_COPY_TO_HOST], c.runtime[GILU_EMU_RT_COPY_ON_DEVICE]));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCUDAEmuWaits(PetscRandom rnd, PetscGILUBackendType dev)
{
  PetscFunctionBegin;
  for (PetscInt kind = 0; kind < 4; kind++)
    for (PetscInt u = 0; u < 2; u++)
      for (PetscInt dg = 0; dg < 3; dg++)
        for (PetscInt bs = 1; bs <= 2; bs++) {
          GILUTriUplo  uplo = u ? GILU_TRI_UPPER : GILU_TRI_LOWER;
          PetscInt     n, *ai, *aj, m;
          MatScalar   *aa, *dinv;
          PetscScalar *b, *xref, *x;
          GILUTri      tri;

          /* rows: random 1200, 7-point 10^3, 27-point 8^3, long random rows 600 */
          PetscCall(MakeTriangle(rnd, kind, kind == 3 ? 600 : 1200, kind == 1 ? 10 : 8, uplo, (GILUTriDiag)dg, bs, &n, &ai, &aj, &aa, &dinv));
          m = n * bs;
          PetscCall(PetscMalloc3(m, &b, m, &xref, m, &x));
          for (PetscInt k = 0; k < m; k++) b[k] = Rand(rnd) - 0.5;
          PetscCall(GILUTriCreate(&tri));
          PetscCall(GILUTriSetBackend(tri, dev));
          PetscCall(GILUTriSetType(tri, GILU_TRISOLVE_SYNCFREE));
          PetscCall(GILUTriSetMatrix(tri, uplo, (GILUTriDiag)dg, n, bs, ai, aj, aa, dinv));
          PetscCall(GILUTriSolveReference(tri, b, xref));
          for (PetscInt csc = 0; csc < 2; csc++) {
            PetscReal err;

            PetscCall(GILUTriSetTriangleCSC(tri, (PetscBool)csc));
            for (PetscInt again = 0; again < 2; again++) {
#if defined(PETSCGILU_HAVE_CUDAEMU)
              PetscCall(GILUEmuCountersReset());
#endif
              PetscCall(GILUTriSolve(tri, b, x));
              err = PetscGILUTestArrayRelDiff(m, x, xref);
              if (err > (csc ? 1e-12 : dev == PETSCGILU_BACKEND_CUDAEMU ? 0.0 : 1e-13)) /* by rows: each row summed as the reference sums it */
                PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT " n %" PetscInt_FMT " sync-free%s (solve %" PetscInt_FMT ") differs from the host reference by %g\n", kind, u ? "upper" : "lower", dg, bs, n, csc ? " (CSC)" : "", again, (double)err));
              PetscCall(CheckSolveCounts(tri, dev, csc ? (again ? "second sync-free CSC" : "first sync-free CSC") : (again ? "second sync-free" : "first sync-free"), 0));
            }
          }
          /* level-set: each row summed as the reference sums it (the same bits in the emulation); twice, so that the second launch runs on
             the counters the first left (they are not cleared between solves) */
          PetscCall(GILUTriSetType(tri, GILU_TRISOLVE_LEVELSET));
          for (PetscInt again = 0; again < 2; again++) {
            PetscReal err;

#if defined(PETSCGILU_HAVE_CUDAEMU)
            PetscCall(GILUEmuCountersReset());
#endif
            PetscCall(GILUTriSolve(tri, b, x));
            err = PetscGILUTestArrayRelDiff(m, x, xref);
            if (err > (dev == PETSCGILU_BACKEND_CUDAEMU ? 0.0 : 1e-13)) /* a GPU contracts into FMAs: round-off */
              PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT " n %" PetscInt_FMT " level-set (solve %" PetscInt_FMT ") differs from the host reference by %g\n", kind, u ? "upper" : "lower", dg, bs, n, again, (double)err));
            PetscCall(CheckSolveCounts(tri, dev, again ? "second level-set" : "first level-set", 1));
          }
          PetscCall(GILUTriDestroy(&tri));
          PetscCall(PetscFree3(b, xref, x));
          PetscCall(PetscFree2(ai, aj));
          PetscCall(PetscFree(aa));
          PetscCall(PetscFree(dinv));
        }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The CUDA kernels under the host emulation (small triangles: the emulation is slow) against the host reference, lower and
  upper, unit, stored and separate inverted diagonal, bs 1, 3 and 8: level-set and sync-free on the whole triangle, and
  column-, row- and recursive-block at depths 1, 2 and 3 on the device (triangles by the GPU level-set or sync-free kernel,
  squares by scalar-CSR, or by vector-CSR on the long-row triangles of kind 3, which must take it at depth 1). New values
  with the same pattern reach every device segment (recblock, in place). The other block sizes (2, 4 to 7) on one triangle
  each (lower, long rows, inverted diagonal), so that every instantiation of the kernels (templated on bs) runs. After
  each solve a block of 5 columns (CheckDeviceMultiple(): the block instantiations, every column bitwise the solve's;
  in place and permuted too with the inverted diagonal at depths 0 and 1).
  Then the sync-free kernels on triangles of many blocks (TestCUDAEmuWaits()).
*/
/*
  GILUTriSolveDeviceMultiple() of 5 columns (2^j b: the solution is 2^j x to the bit), their distance 2 more than the
  rows (padding poisoned with NaN), against x, GILUTriSolve()'s solution on the same device plan: bitwise (tol 0), or to
  a relative tol (sync-free by columns adds with atomics in no fixed order). Out of place, in place, and with the block
  rows reversed on the way in (bperm) and out (operm, into a third array of another distance) against GILUTriSolve() of
  the reversed b (all: the emulation is slow, the callers ask for those on a part of the cases). The emulation's device memory is host memory (its cudaMalloc()), so host arrays serve as device
  arrays here, and only here: -backend cuda skips it
*/
static PetscErrorCode CheckDeviceMultiple(GILUTri tri, PetscInt nb, PetscInt bs, const PetscScalar b[], const PetscScalar x[], PetscReal tol, PetscBool all, const char what[])
{
  const PetscInt m = nb * bs, k = 5, ld = m + 2, ldo = m + 5, npass = all ? 3 : 1; /* 5: the level-set and scalar-CSR kernels' groups of columns (bs 1: 4 + 1, bs 2: 2 + 2 + 1) */
  PetscScalar   *B, *X, *O, *bp, *xp, *o;
  PetscInt      *perm;
  PetscReal      diff[3] = {0, 0, 0};

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(ld * k, &B, ld * k, &X, ldo * k, &O, m, &bp, m, &xp, nb, &perm));
  for (PetscInt i = 0; i < nb; i++) perm[i] = nb - 1 - i;
  for (PetscInt i = 0; i < m; i++) bp[i] = b[perm[i / bs] * bs + i % bs];
  if (all) PetscCall(GILUTriSolve(tri, bp, xp));
  for (PetscInt pass = 0; pass < npass; pass++) { /* out of place, in place, permuted */
    for (PetscInt j = 0; j < k; j++) {
      for (PetscInt i = 0; i < ld; i++) {
        B[j * ld + i] = i < m ? PetscPowReal(2.0, (PetscReal)j) * b[i] : NAN;
        X[j * ld + i] = NAN;
      }
      for (PetscInt i = 0; i < ldo; i++) O[j * ldo + i] = NAN;
    }
    if (pass == 0) PetscCall(GILUTriSolveDeviceMultiple(tri, k, B, ld, NULL, X, ld, NULL, ld, NULL));
    else if (pass == 1) PetscCall(GILUTriSolveDeviceMultiple(tri, k, B, ld, NULL, B, ld, NULL, ld, NULL));
    else PetscCall(GILUTriSolveDeviceMultiple(tri, k, B, ld, perm, X, ld, O, ldo, perm));
    for (PetscInt j = 0; j < k; j++) {
      const PetscReal s = PetscPowReal(2.0, (PetscReal)j);
      PetscScalar    *c = (pass == 1 ? B : X) + j * ld;

      for (PetscInt i = 0; i < m; i++) c[i] /= s; /* exact: back to the single solve's scale */
      diff[pass] = PetscMax(diff[pass], PetscGILUTestArrayRelDiff(m, c, pass == 2 ? xp : x));
      if (pass == 2) { /* out: the solution scattered back by the same reversal */
        o = O + j * ldo;
        for (PetscInt i = 0; i < m; i++) c[i] = o[perm[i / bs] * bs + i % bs] / s;
        diff[pass] = PetscMax(diff[pass], PetscGILUTestArrayRelDiff(m, c, xp));
      }
    }
  }
  for (PetscInt pass = 0; pass < npass; pass++)
    if (!(diff[pass] <= tol))
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: GILUTriSolveDeviceMultiple() of %" PetscInt_FMT " columns %s differs from GILUTriSolve() by %g\n", what, k,
                            pass == 0   ? "out of place"
                            : pass == 1 ? "in place"
                                        : "permuted in and out",
                            (double)diff[pass]));
  PetscCall(PetscFree6(B, X, O, bp, xp, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCUDAEmu(PetscRandom rnd)
{
  const PetscInt       bss[] = {1, 3, 8, 2, 4, 5, 6, 7};
  PetscGILUBackendType dev   = PETSCGILU_BACKEND_CUDAEMU;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-backend", PetscGILUBackendTypes, (PetscEnum *)&dev, NULL)); /* cuda: on a GPU (make check-gpu) */
  for (PetscInt kind = 0; kind < 4; kind++)
    for (PetscInt u = 0; u < 2; u++)
      for (PetscInt dg = 0; dg < 3; dg++)
        for (PetscInt ib = 0; ib < 8; ib++) {
          GILUTriUplo  uplo = u ? GILU_TRI_UPPER : GILU_TRI_LOWER;
          PetscInt     n, *ai, *aj, m, bs = bss[ib];
          MatScalar   *aa, *dinv;
          PetscScalar *b, *xref, *x;
          GILUTri      tri;

          if (ib >= 3 && !(kind == 3 && !u && dg == GILU_TRI_DIAG_INVERSE)) continue;
          PetscCall(MakeTriangle(rnd, kind, kind == 3 ? 96 : 80, 4, uplo, (GILUTriDiag)dg, bs, &n, &ai, &aj, &aa, &dinv));
          m = n * bs;
          PetscCall(PetscMalloc3(m, &b, m, &xref, m, &x));
          for (PetscInt k = 0; k < m; k++) b[k] = Rand(rnd) - 0.5;
          PetscCall(GILUTriCreate(&tri));
          PetscCall(GILUTriSetBackend(tri, dev));
          PetscCall(GILUTriSetMatrix(tri, uplo, (GILUTriDiag)dg, n, bs, ai, aj, aa, dinv));
          PetscCall(GILUTriSolveReference(tri, b, xref));
          for (PetscInt csc = 0; csc < 2; csc++)                                             /* sync-free triangles by rows, then by columns (CSC) */
            for (PetscInt tr = GILU_TRISOLVE_AUTO; tr <= GILU_TRISOLVE_RECBLOCK + 1; tr++) { /* + 1: recblock reordered by levels */
              PetscInt  t       = PetscMin(tr, GILU_TRISOLVE_RECBLOCK);
              PetscBool blocked = (PetscBool)(t >= GILU_TRISOLVE_COLBLOCK), reorder = (PetscBool)(tr > GILU_TRISOLVE_RECBLOCK);

              PetscCall(GILUTriSetRecBlockReorder(tri, reorder));
              PetscCall(GILUTriSetTriangleCSC(tri, (PetscBool)csc));

              for (PetscInt depth = blocked ? 1 : 0; depth <= (blocked ? 3 : 0); depth++) {
                PetscGILUBackendType backend;
                GILUTriSolveType     ran;
                PetscInt             ntri, nsq, nsc, nvec;
                PetscReal            err;

                PetscCall(GILUTriSetType(tri, (GILUTriSolveType)t));
                PetscCall(GILUTriSetBlockDepth(tri, depth));
                for (PetscInt k = 0; k < m; k++) x[k] = NAN; /* not the previous run's solution: a row that read x before it was final would read it right */
                PetscCall(GILUTriSolve(tri, b, x));
                err = PetscGILUTestArrayRelDiff(m, x, xref);
                if (err > (blocked || csc ? 1e-12 : dev == PETSCGILU_BACKEND_CUDAEMU ? 0.0 : 1e-13)) /* level-set and sync-free by rows: the reference's bits in the emulation */
                  PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT " %s%s%s depth %" PetscInt_FMT " differs from the host reference by %g\n", kind, u ? "upper" : "lower", dg, bs, GILUTriSolveTypes[t], reorder ? "+reorder" : "", csc ? " (CSC triangles)" : "", depth, (double)err));
                if (dev == PETSCGILU_BACKEND_CUDAEMU) { /* a block of columns in each launch: every kernel's block instantiation */
                  char what[96];

                  PetscCall(PetscSNPrintf(what, sizeof(what), "cudaemu: kind %" PetscInt_FMT " %s diag %" PetscInt_FMT " bs %" PetscInt_FMT " %s%s depth %" PetscInt_FMT, kind, u ? "upper" : "lower", dg, bs, GILUTriSolveTypes[t], csc ? " (CSC)" : "", depth));
                  PetscCall(CheckDeviceMultiple(tri, n, bs, b, x, csc ? 1e-12 : 0.0, (PetscBool)(dg == GILU_TRI_DIAG_INVERSE && depth <= 1), what));
                }
                PetscCall(GILUTriGetType(tri, &ran));
                PetscCall(GILUTriGetBackend(tri, &backend));
                PetscCheck(backend == dev && (t == GILU_TRISOLVE_AUTO || ran == (GILUTriSolveType)t), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s on %s was asked for, %s on %s ran", GILUTriSolveTypes[t], PetscGILUBackendTypes[dev], GILUTriSolveTypes[ran], PetscGILUBackendTypes[backend]);
                if (!blocked) continue;
                PetscCall(GILUTriGetPlanInfo(tri, &ntri, &nsq, NULL));
                PetscCall(GILUTriGetSquareKernels(tri, &nsc, &nvec));
                if (ntri != ((PetscInt)1 << depth) || nsc + nvec != nsq || (kind == 3 && depth == 1 && nvec == 0))
                  PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: kind %" PetscInt_FMT " %s bs %" PetscInt_FMT " %s%s depth %" PetscInt_FMT ": %" PetscInt_FMT " triangles, %" PetscInt_FMT " squares (%" PetscInt_FMT " scalar-CSR, %" PetscInt_FMT " vector-CSR)\n", kind, u ? "upper" : "lower", bs, GILUTriSolveTypes[t], reorder ? "+reorder" : "", depth, ntri, nsq, nsc, nvec));
              }
            }
          /* new values reach the device copy of every segment (recblock reordered, depth 3, CSC triangles); in place */
          for (PetscInt k = 0; k < ai[n] * bs * bs; k++) aa[k] *= -0.5;
          PetscCall(GILUTriSetMatrix(tri, uplo, (GILUTriDiag)dg, n, bs, ai, aj, aa, dinv));
          PetscCall(GILUTriSolveReference(tri, b, xref));
          PetscCall(PetscArraycpy(x, b, m));
          PetscCall(GILUTriSolve(tri, x, x));
          if (PetscGILUTestArrayRelDiff(m, x, xref) > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_SELF, "cudaemu: new values: kind %" PetscInt_FMT " bs %" PetscInt_FMT " wrong\n", kind, bs));
          PetscCall(GILUTriDestroy(&tri));
          PetscCall(PetscFree3(b, xref, x));
          PetscCall(PetscFree2(ai, aj));
          PetscCall(PetscFree(aa));
          PetscCall(PetscFree(dinv));
        }
  PetscCall(TestCUDAEmuWaits(rnd, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Blocked algorithms on triangles large enough for the table to pick the threaded kernels inside the blocks
  (7-point on 54^3 rows: level-set; 27-point on 32^3: sync-free): equal to the reference to round-off, 1 and 2
  threads the same bits, and the kernels must really be the threaded ones.
*/
static PetscErrorCode TestEngineBlocked(PetscRandom rnd)
{
  PetscFunctionBegin;
  for (PetscInt kind = 1; kind <= 2; kind++)
    for (PetscInt u = 0; u < 2; u++) {
      GILUTriUplo  uplo = u ? GILU_TRI_UPPER : GILU_TRI_LOWER;
      PetscInt     n, *ai, *aj, m, want = kind == 1 ? 1 : 2; /* bykernel index: levelset, syncfree */
      MatScalar   *aa, *dinv;
      PetscScalar *b, *xref, *x, *x1;
      GILUTri      tri;

      PetscCall(MakeTriangle(rnd, kind, 0, kind == 1 ? 54 : 32, uplo, GILU_TRI_DIAG_STORED, 1, &n, &ai, &aj, &aa, &dinv));
      m = n;
      PetscCall(PetscMalloc4(m, &b, m, &xref, m, &x, m, &x1));
      for (PetscInt k = 0; k < m; k++) b[k] = Rand(rnd) - 0.5;
      PetscCall(CreateTriThreadsTried(&tri));
      PetscCall(GILUTriSetMatrix(tri, uplo, GILU_TRI_DIAG_STORED, n, 1, ai, aj, aa, dinv));
      PetscCall(GILUTriSolveReference(tri, b, xref));
      for (PetscInt tr = GILU_TRISOLVE_COLBLOCK; tr <= GILU_TRISOLVE_RECBLOCK + 1; tr++) /* + 1: recblock reordered by levels */
        for (PetscInt nt = 1; nt <= 2; nt++) {
          PetscInt byk[4], t = PetscMin(tr, GILU_TRISOLVE_RECBLOCK);

          PetscCall(GILUTriSetRecBlockReorder(tri, (PetscBool)(tr > GILU_TRISOLVE_RECBLOCK)));
          PetscCall(GILUTriSetType(tri, (GILUTriSolveType)t));
          PetscCall(GILUTriSetThreads(tri, nt));
          PetscCall(GILUTriSetBlockDepth(tri, 1));
          PetscCall(GILUTriSolve(tri, b, x));
          if (PetscGILUTestArrayRelDiff(m, x, xref) > 1e-12)
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "blocked: kind %" PetscInt_FMT " %s %s%s threads %" PetscInt_FMT " differs from the reference by %g\n", kind, u ? "upper" : "lower", GILUTriSolveTypes[t], tr > GILU_TRISOLVE_RECBLOCK ? "+reorder" : "", nt, (double)PetscGILUTestArrayRelDiff(m, x, xref)));
          if (nt == 1) PetscCall(PetscArraycpy(x1, x, m));
          else {
            PetscBool same;

            PetscCall(PetscArraycmp(x, x1, m, &same));
            if (!same) PetscCall(PetscPrintf(PETSC_COMM_SELF, "blocked: kind %" PetscInt_FMT " %s %s%s: 1 and 2 threads differ\n", kind, u ? "upper" : "lower", GILUTriSolveTypes[t], tr > GILU_TRISOLVE_RECBLOCK ? "+reorder" : ""));
            PetscCall(CheckMultiple(tri, n, 1, 4, b, x, "blocked"));
            PetscCall(GILUTriGetPlanInfo(tri, NULL, NULL, byk));
            if (byk[want] != 2)
              PetscCall(PetscPrintf(PETSC_COMM_SELF, "blocked: kind %" PetscInt_FMT " %s %s%s: expected 2 %s triangles, the plan has %" PetscInt_FMT "\n", kind, u ? "upper" : "lower", GILUTriSolveTypes[t], tr > GILU_TRISOLVE_RECBLOCK ? "+reorder" : "", want == 1 ? "levelset" : "syncfree", byk[want]));
          }
        }
      PetscCall(GILUTriDestroy(&tri));
      PetscCall(PetscFree4(b, xref, x, x1));
      PetscCall(PetscFree2(ai, aj));
      PetscCall(PetscFree(aa));
      PetscCall(PetscFree(dinv));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -test badinput -bad k: a 4-row triangle handed to GILUTriSetMatrix() with one mistake, which must end in a clear
  error: 0 a column out of range, 1 an upper entry in a lower factor, 2 unsorted columns, 3 a stored diagonal in a
  factor declared with a unit diagonal, 4 a negative column, 5 a row that ends before it starts, 6 row starts that do
  not begin at 0; -transpose: handed to GILUTriSetMatrixTranspose() instead
*/
static PetscErrorCode TestBadInput(void)
{
  PetscInt  bad = 0, ai[5] = {0, 0, 1, 3, 5}, aj[5] = {0, 0, 1, 1, 2};
  MatScalar aa[5]     = {1, 1, 1, 1, 1};
  PetscBool transpose = PETSC_FALSE;
  GILUTri   tri;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bad", &bad, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-transpose", &transpose, NULL));
  if (bad == 0) aj[4] = 7;
  if (bad == 1) aj[0] = 2; /* row 1, column 2: above the diagonal */
  if (bad == 2) {
    aj[3] = 2;
    aj[4] = 1;
  }
  if (bad == 3) aj[4] = 3;
  if (bad == 4) aj[2] = -1;
  if (bad == 5) ai[2] = 6; /* row 1 would end past the columns, row 2 before it starts */
  if (bad == 6) ai[0] = -1;
  PetscCall(GILUTriCreate(&tri));
  if (transpose) PetscCall(GILUTriSetMatrixTranspose(tri, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, 4, 1, ai, aj, aa, NULL));
  else PetscCall(GILUTriSetMatrix(tri, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, 4, 1, ai, aj, aa, NULL));
  PetscCall(GILUTriDestroy(&tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        test[64] = "";
  PetscInt    nrand = 300, grid = 6, bsmax = 8;
  PetscBool   all, match;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &nrand, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-grid", &grid, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs_max", &bsmax, NULL));
  PetscCheck(bsmax >= 1 && bsmax <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bs_max %" PetscInt_FMT ": give 1 to 8", bsmax);
  all = (PetscBool)!test[0];
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscStrcmp(test, "engine", &match));
  if (all || match) PetscCall(TestEngine(rnd, nrand, grid, bsmax));
  if (all || match) PetscCall(TestEngineBlocked(rnd));
  PetscCall(PetscStrcmp(test, "cudaemu", &match));
  if (match) PetscCall(TestCUDAEmu(rnd));
  PetscCall(PetscStrcmp(test, "badinput", &match));
  if (match) PetscCall(TestBadInput());
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # two threads on a shared machine: passive waiting keeps the spinning OpenMP runtime from starving the sync-free flags
   test:
     suffix: engine
     args: -test engine -n 200 -grid 5
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # the developers' hook -gilu_schedule_delay: the thread that takes a segment's first chunk starts late, so that a
   # missing wait (for a level, a chunk, a row) or barrier gives a wrong solution here every time (the host mutants of
   # tests/mutations/run --host); block size 1 only: the waits are the same code at every block size; grid 12: the
   # chunked triangles in place (column-offset patterns), whose claims take up to four chunks
   test:
     suffix: engine_delay
     args: -test engine -n 20 -grid {{4 12}separate output} -bs_max 1 -gilu_schedule_delay 100
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # a wrong triangle handed to the engine: a clear error each
   test:
     suffix: badinput
     args: -test badinput -bad {{0 1 2 3}separate output}
     filter: Error: grep -o -E "is outside \[0, 4\)|has an entry in column 2|sorted ascending and unique|stores its diagonal but"

   # bad row starts (a row that ends before it starts, a first start other than 0) are refused before anything indexes
   # with them; the transpose (the factor's T^T for MatSolveTranspose()) checks the columns before it counts them
   test:
     suffix: badinput_starts
     args: -test badinput -bad {{5 6}separate output} -transpose {{0 1}shared output}
     filter: Error: grep -o -E "ends \(3\) before it starts \(6\)|must begin at 0, not -1"
   test:
     suffix: badinput_transpose
     args: -test badinput -transpose -bad {{0 4}shared output}
     filter: Error: grep -o -E "is outside \[0, 4\)"

   # grid 12 (1728 rows): the chunked stencil triangles are solved by column-offset patterns (few patterns, 64+ rows each)
   test:
     suffix: engine_patterns
     args: -test engine -n 200 -grid 12
     env: OMP_WAIT_POLICY=passive
     output_file: output/empty.out

   # the CUDA kernels (level-set, sync-free; the blocked algorithms' triangles and scalar-/vector-CSR squares; every block
   # size) run by the host emulation against the host reference, under three schedules a GPU may choose (blocks dispatched
   # and threads run in order, reversed, shuffled; 4 resident blocks): the sync-free triangles of many blocks fail if a
   # wait, a fence before a flag or the block tickets are missing
   test:
     suffix: cudaemu
     requires: cudaemu
     args: -test cudaemu -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

TEST*/
