/*
   The triangular-solve engine: the GILUTri object (its settings, the factor it is given, the pattern check and
   level analysis), the solve on its back-end, the view, and the sequential reference solve (the oracle the threaded
   and CUDA algorithms are tested against). The plan it solves with is sptrsv-plan.c's; the host kernels are
   sptrsv-host.c's, the device kernels cuda/sptrsv.cu's, reached through the ops table the plan holds.
*/
#include "sptrsvimpl.h"
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/levels.h>

/* The back-end of the next plan: the one asked for, resolved; auto runs on the device only the algorithms the CUDA
   kernels have (all but sequential and chunked), the others on the host */
static PetscErrorCode GILUTriResolveBackend(GILUTri tri)
{
  PetscGILUBackendType r;

  PetscFunctionBegin;
  PetscCall(PetscGILUBackendResolve(PETSC_COMM_SELF, tri->reqbackend, &r));
  if (tri->reqbackend == PETSCGILU_BACKEND_AUTO && r == PETSCGILU_BACKEND_CUDA && (tri->ask.type == GILU_TRISOLVE_SEQUENTIAL || tri->ask.type == GILU_TRISOLVE_CHUNKED)) r = PETSCGILU_BACKEND_HOST;
  tri->ask.backend = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const GILUTriSolveTypes[] = {"auto", "levelset", "syncfree", "colblock", "rowblock", "recblock", "sequential", "chunked", "GILUTriSolveType", "GILU_TRISOLVE_", NULL};

PetscErrorCode GILUTriCreate(GILUTri *tri)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(tri));
  (*tri)->ask.type = GILU_TRISOLVE_AUTO;
  (*tri)->ran      = GILU_TRISOLVE_AUTO; /* nothing chosen before the plan (the first solve) */
  PetscCall(GILUGetNumThreads(&(*tri)->ask.nthreads));
  (*tri)->ask.permuted = PETSC_TRUE;
  (*tri)->ask.copy     = PETSC_TRUE;
  (*tri)->ask.reorder  = PETSC_TRUE;
  (*tri)->cstatic      = PETSC_TRUE;
  PetscCall(PetscGILUGetBackend(&(*tri)->reqbackend)); /* -gilu_backend */
  PetscCall(GILUTriResolveBackend(*tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriDestroy(GILUTri *tri)
{
  PetscFunctionBegin;
  if (!*tri) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUTriPlanDestroy(*tri));
  PetscCall(PetscFree4((*tri)->own_i, (*tri)->own_j, (*tri)->own_a, (*tri)->own_d));
  PetscCall(PetscFree((*tri)->done));
  PetscCall(PetscFree(*tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetType(GILUTri tri, GILUTriSolveType type)
{
  PetscFunctionBegin;
  tri->ask.type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetType(GILUTri tri, GILUTriSolveType *type)
{
  PetscFunctionBegin;
  *type = tri->ran;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetThreads(GILUTri tri, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscCall(GILUClampThreads(PetscMax(1, nthreads), &tri->ask.nthreads)); /* the rule of every component: at most GILUGetMaxThreads() */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetSettings(GILUTri tri, GILUTriSolveType *type, PetscInt *nthreads)
{
  PetscFunctionBegin;
  if (type) *type = tri->ask.type;
  if (nthreads) *nthreads = tri->ask.nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetBackend(GILUTri tri, PetscGILUBackendType backend)
{
  PetscFunctionBegin;
  tri->reqbackend = backend;
  PetscCall(GILUTriResolveBackend(tri)); /* cuda and cudaemu are checked now */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetBackend(GILUTri tri, PetscGILUBackendType *backend)
{
  PetscFunctionBegin;
  if (tri->reqbackend == PETSCGILU_BACKEND_AUTO) PetscCall(GILUTriResolveBackend(tri));
  *backend = tri->ask.backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetPermutedLayout(GILUTri tri, PetscBool flg)
{
  PetscFunctionBegin;
  tri->ask.permuted = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetExecutionOrderCopy(GILUTri tri, PetscBool flg)
{
  PetscFunctionBegin;
  tri->ask.copy = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetRecBlockReorder(GILUTri tri, PetscBool flg)
{
  PetscFunctionBegin;
  tri->ask.reorder = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetChunkedStatic(GILUTri tri, PetscBool flg)
{
  PetscFunctionBegin;
  tri->cstatic = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetTriangleCSC(GILUTri tri, PetscBool flg)
{
  PetscFunctionBegin;
  tri->ask.csc = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetBlockDepth(GILUTri tri, PetscInt depth)
{
  PetscFunctionBegin;
  PetscCheck(depth >= 0 && depth <= 20, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_gilu_trisolve_block_depth %" PetscInt_FMT ": must be in [0, 20] (0: chosen by the rule)", tri->prefix, depth);
  tri->ask.depth = depth;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The engine's options, read in one PetscOptionsBegin()/End() block so that -help lists them with their current values
  (callers: MatSolverType gilu with the factor's prefix, PCATSILU with the PC's). The block's title is the same for
  every triangle, so -help prints it once however many triangles read it.
*/
static PetscErrorCode TriReadOptions(GILUOptionItems PetscOptionsObject, void *ctx)
{
  GILUTri   tri  = (GILUTri)ctx;
  PetscEnum type = (PetscEnum)tri->ask.type, backend = (PetscEnum)tri->reqbackend;
  PetscInt  nt = tri->ask.nthreads, depth = tri->ask.depth;
  PetscBool flg, set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-mat_gilu_trisolve", "Triangular-solve algorithm", "GILUTriSetType", GILUTriSolveTypes, type, &type, &set));
  if (set) PetscCall(GILUTriSetType(tri, (GILUTriSolveType)type));
  PetscCall(PetscOptionsInt("-mat_gilu_trisolve_threads", "Host threads of the solves (default OMP_NUM_THREADS)", "GILUTriSetThreads", nt, &nt, &set));
  PetscCheck(!set || nt >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_gilu_trisolve_threads %" PetscInt_FMT ": must be at least 1", tri->prefix, nt);
  if (set) PetscCall(GILUTriSetThreads(tri, nt));
  if (set) tri->gov.forced = tri->govm.forced = PETSC_TRUE; /* threads asked for: tried whatever the load (private/wait.h) */
  PetscCall(PetscOptionsInt("-mat_gilu_trisolve_block_depth", "colblock/rowblock: 2^depth blocks; recblock: recursion depth (0: by the rule)", "GILUTriSetBlockDepth", depth, &depth, &set));
  if (set) PetscCall(GILUTriSetBlockDepth(tri, depth));
  flg = tri->ask.permuted;
  PetscCall(PetscOptionsBool("-mat_gilu_trisolve_permuted", "Host level-set/sync-free: keep the solution in execution order too", "GILUTriSetPermutedLayout", flg, &flg, &set));
  if (set) PetscCall(GILUTriSetPermutedLayout(tri, flg));
  flg = tri->ask.copy;
  PetscCall(PetscOptionsBool("-mat_gilu_trisolve_copy", "Host level-set/sync-free of the whole factor: stream a copy of it in execution order (else read its rows where they are)", "GILUTriSetExecutionOrderCopy", flg, &flg, &set));
  if (set) PetscCall(GILUTriSetExecutionOrderCopy(tri, flg));
  flg = tri->ask.reorder;
  PetscCall(PetscOptionsBool("-mat_gilu_trisolve_recblock_reorder", "recblock: reorder the rows by levels before each split", "GILUTriSetRecBlockReorder", flg, &flg, &set));
  if (set) PetscCall(GILUTriSetRecBlockReorder(tri, flg));
  flg = tri->cstatic;
  PetscCall(PetscOptionsBool("-mat_gilu_trisolve_chunked_static", "chunked: each thread a fixed share of every chunk level (else claimed)", "GILUTriSetChunkedStatic", flg, &flg, &set));
  if (set) PetscCall(GILUTriSetChunkedStatic(tri, flg));
  flg = tri->ask.csc;
  PetscCall(PetscOptionsBool("-mat_gilu_trisolve_csc", "CUDA back-ends: sync-free triangles stored and solved by columns", "GILUTriSetTriangleCSC", flg, &flg, &set));
  if (set) PetscCall(GILUTriSetTriangleCSC(tri, flg));
  PetscCall(PetscOptionsEnum("-mat_gilu_trisolve_backend", "Where the solves run (default: -gilu_backend)", "GILUTriSetBackend", PetscGILUBackendTypes, backend, &backend, &set));
  if (set) PetscCall(GILUTriSetBackend(tri, (PetscGILUBackendType)backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetFromOptions(GILUTri tri, PetscOptions options, const char prefix[])
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(tri->prefix, prefix ? prefix : "", sizeof(tri->prefix)));
  PetscCall(GILUOptionsBlock(PETSC_COMM_SELF, options, prefix, "Triangular solves of petscgilu (MatSolverType gilu, PCATSILU)", "Mat", TriReadOptions, tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A column index of row r of a triangle of n rows */
static inline PetscErrorCode CheckColumn(PetscInt r, PetscInt c, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(c >= 0 && c < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT ": column %" PetscInt_FMT " is outside [0, %" PetscInt_FMT "): the column indices of a triangular factor must be those of its rows", r, c, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The pattern is checked, rows in elimination order: each row's columns checked branch-free (a row found wrong is
  looked at again for the error message); then its levels (GILULevels(): 1 + the largest level of the rows a row reads;
  0-based) and the level sizes
*/
static PetscErrorCode CheckAndAnalyze(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, const PetscInt i[], const PetscInt j[])
{
  PetscInt      *level, *count, nl = 0;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  for (PetscInt t = 0; t < n; t++) {
    const PetscInt r = uplo == GILU_TRI_LOWER ? t : n - 1 - t, lo = i[r], hi = i[r + 1];
    const PetscInt cmin = uplo == GILU_TRI_LOWER ? 0 : r, cmax = uplo == GILU_TRI_LOWER ? r : n - 1;
    PetscInt       prev = -1, rowbad = 0;

    for (PetscInt k = lo; k < hi; k++) {
      rowbad |= (j[k] < cmin) | (j[k] > cmax) | (j[k] <= prev) | (j[k] == r && diag != GILU_TRI_DIAG_STORED);
      prev = j[k];
    }
    if (diag == GILU_TRI_DIAG_STORED) rowbad |= (hi == lo) || j[uplo == GILU_TRI_LOWER ? hi - 1 : lo] != r;
    if (PetscUnlikely(rowbad)) {
      for (PetscInt k = lo; k < hi; k++) {
        PetscCall(CheckColumn(r, j[k], n));
        PetscCheck(uplo == GILU_TRI_LOWER ? j[k] <= r : j[k] >= r, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " of a %s triangular factor has an entry in column %" PetscInt_FMT, r, uplo == GILU_TRI_LOWER ? "lower" : "upper", j[k]);
        PetscCheck(k == lo || j[k] > j[k - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT ": columns must be sorted ascending and unique", r);
        PetscCheck(j[k] != r || diag == GILU_TRI_DIAG_STORED, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " stores its diagonal but the factor was declared with a unit or separate diagonal", r);
      }
      PetscCheck(diag != GILU_TRI_DIAG_STORED, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " has no stored diagonal", r);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "The pattern check found a wrong row but no error for it");
    }
  }
  PetscCall(PetscMalloc1(n, &level)); /* the levels are needed only here: the plan counts its own */
  nl           = GILULevels(uplo, 0, n, i, j, level);
  tri->nlevels = nl;
  PetscCall(PetscCalloc1(nl + 1, &count));
  for (PetscInt r = 0; r < n; r++) count[level[r]]++;
  tri->maxlevel = 0;
  for (PetscInt l = 0; l < nl; l++) tri->maxlevel = PetscMax(tri->maxlevel, count[l]);
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(level));
  tri->analyzed = PETSC_TRUE;
  PetscCall(PetscTime(&t1));
  tri->tanalysis = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether a plan built for a serves b (field by field: the struct has padding) */
static PetscBool SettingsEqual(const GILUTriSettings *a, const GILUTriSettings *b)
{
  return (PetscBool)(a->type == b->type && a->nthreads == b->nthreads && a->depth == b->depth && a->backend == b->backend && a->permuted == b->permuted && a->reorder == b->reorder && a->csc == b->csc && a->copy == b->copy);
}

/* The plan built again if what it was built for (type, threads, depth, back-end, layouts) changed; rebuilt: whether it was */
static PetscErrorCode PlanUpToDate(GILUTri tri, PetscBool *rebuilt)
{
  PetscBool stale;

  PetscFunctionBegin;
  if (tri->reqbackend == PETSCGILU_BACKEND_AUTO) PetscCall(GILUTriResolveBackend(tri)); /* it depends on the type */
  stale = (PetscBool)(!tri->planned || !SettingsEqual(&tri->plan, &tri->ask));
  if (stale) {
    PetscCall(PetscLogEventBegin(GILU_TriAnalysis, 0, 0, 0, 0));
    PetscCall(GILUTriPlanDestroy(tri));
    PetscCall(GILUTriPlanBuild(tri));
    PetscCall(PetscLogEventEnd(GILU_TriAnalysis, 0, 0, 0, 0));
  }
  if (rebuilt) *rebuilt = stale;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row starts of a triangle given by the caller, checked before anything indexes with them (the columns are checked
   with the pattern, CheckAndAnalyze()) */
static PetscErrorCode CheckRowStarts(PetscInt n, const PetscInt i[])
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A triangular factor of %" PetscInt_FMT " rows: the number of rows must be nonnegative", n);
  PetscCheck(i[0] == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The row starts of a triangular factor must begin at 0, not %" PetscInt_FMT, i[0]);
  for (PetscInt r = 0; r < n; r++)
    PetscCheck(i[r + 1] >= i[r], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " of a triangular factor ends (%" PetscInt_FMT ") before it starts (%" PetscInt_FMT "): the row starts must not decrease", r, i[r + 1], i[r]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both ways of giving the factor: copied (borrow false) or the caller's arrays used in place (GILUTriSetMatrixWithArrays()) */
static PetscErrorCode SetMatrix(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, PetscInt bs, const PetscInt i[], const PetscInt j[], const MatScalar a[], const MatScalar dinv[], PetscBool borrow, PetscInt patternid)
{
  PetscInt  bs2 = bs * bs;
  PetscBool same;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && bs <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "Block size %" PetscInt_FMT " is not supported by the triangular-solve engine: use 1 to %d", bs, GILU_MAX_DOF);
  PetscCheck(diag != GILU_TRI_DIAG_INVERSE || dinv || !n, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "GILU_TRI_DIAG_INVERSE needs the inverted diagonal blocks"); /* an empty factor (0 rows) may have none */
  PetscCall(CheckRowStarts(n, i));
  same = (PetscBool)(tri->analyzed && tri->borrowed == borrow && tri->uplo == uplo && tri->diag == diag && tri->n == n && tri->bs == bs && tri->nz == i[n]);
  if (same && borrow) same = (PetscBool)(tri->i == i && tri->j == j && tri->patternid == patternid);
  else if (same) {
    PetscCall(PetscArraycmp(tri->i, i, n + 1, &same));
    if (same) PetscCall(PetscArraycmp(tri->j, j, i[n], &same));
  }
  if (!same) {
    tri->analyzed = PETSC_FALSE;
    PetscCall(PetscLogEventBegin(GILU_TriAnalysis, 0, 0, 0, 0));
    PetscCall(GILUTriPlanDestroy(tri));
    PetscCall(CheckAndAnalyze(tri, uplo, diag, n, i, j));
    PetscCall(PetscLogEventEnd(GILU_TriAnalysis, 0, 0, 0, 0));
    PetscCall(PetscFree4(tri->own_i, tri->own_j, tri->own_a, tri->own_d));
    if (borrow) {
      PetscCall(PetscMalloc4(0, &tri->own_i, 0, &tri->own_j, 0, &tri->own_a, diag == GILU_TRI_DIAG_STORED ? n * bs2 : 0, &tri->own_d));
      tri->i = i;
      tri->j = j;
    } else {
      PetscCall(PetscMalloc4(n + 1, &tri->own_i, i[n], &tri->own_j, i[n] * bs2, &tri->own_a, diag == GILU_TRI_DIAG_STORED || diag == GILU_TRI_DIAG_INVERSE ? n * bs2 : 0, &tri->own_d));
      PetscCall(PetscArraycpy(tri->own_i, i, n + 1));
      PetscCall(PetscArraycpy(tri->own_j, j, i[n]));
      tri->i = tri->own_i;
      tri->j = tri->own_j;
    }
    tri->borrowed  = borrow;
    tri->patternid = patternid;
    tri->uplo      = uplo;
    tri->diag      = diag;
    tri->n         = n;
    tri->bs        = bs;
    tri->nz        = i[n];
  }
  if (borrow) {
    tri->a    = a;
    tri->dinv = diag == GILU_TRI_DIAG_INVERSE ? dinv : tri->own_d;
  } else {
    PetscCall(PetscArraycpy(tri->own_a, a, i[n] * bs2));
    if (diag == GILU_TRI_DIAG_INVERSE) PetscCall(PetscArraycpy(tri->own_d, dinv, n * bs2));
    tri->a    = tri->own_a;
    tri->dinv = tri->own_d;
  }
  if (diag == GILU_TRI_DIAG_STORED) /* keep the inverted diagonal blocks: the solve multiplies */
    for (PetscInt r = 0; r < n; r++) {
      const MatScalar *d = tri->a + (uplo == GILU_TRI_LOWER ? i[r + 1] - 1 : i[r]) * bs2;
      PetscScalar      D[GILU_MAX_DOF * GILU_MAX_DOF], Dinv[GILU_MAX_DOF * GILU_MAX_DOF];

      for (PetscInt t = 0; t < bs2; t++) D[t] = d[t];
      PetscCheck(GILUBlockInvert(bs, D, Dinv, 0.0), PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in the diagonal block of row %" PetscInt_FMT " of a triangular factor", r);
      for (PetscInt t = 0; t < bs2; t++) tri->own_d[r * bs2 + t] = (MatScalar)Dinv[t];
    }
  PetscCall(PlanUpToDate(tri, NULL));
  PetscCall(GILUTriPlanSetValues(tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetMatrix(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, PetscInt bs, const PetscInt i[], const PetscInt j[], const MatScalar a[], const MatScalar dinv[])
{
  PetscFunctionBegin;
  PetscCall(SetMatrix(tri, uplo, diag, n, bs, i, j, a, dinv, PETSC_FALSE, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetMatrixTranspose(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const MatScalar aa[], const MatScalar dinv[])
{
  PetscInt   bs2, nz;
  PetscInt  *ti, *tj, *pos;
  MatScalar *ta, *td = NULL;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && bs <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "Block size %" PetscInt_FMT " is not supported by the triangular-solve engine: use 1 to %d", bs, GILU_MAX_DOF);
  PetscCall(CheckRowStarts(n, ai));
  bs2 = bs * bs;
  nz  = ai[n];
  for (PetscInt r = 0; r < n; r++) /* the transpose is counted by column before SetMatrix() checks its pattern */
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) PetscCall(CheckColumn(r, aj[k], n));
  PetscCall(PetscCalloc3(n + 1, &ti, nz, &tj, n, &pos));
  PetscCall(PetscMalloc1(nz * bs2, &ta));
  for (PetscInt k = 0; k < nz; k++) ti[aj[k] + 1]++;
  for (PetscInt r = 0; r < n; r++) ti[r + 1] += ti[r];
  for (PetscInt r = 0; r < n; r++) pos[r] = ti[r];
  for (PetscInt r = 0; r < n; r++) /* rows in increasing order: the columns of each transposed row come out sorted */
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt q = pos[aj[k]]++;

      tj[q] = r;
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt c = 0; c < bs; c++) ta[q * bs2 + p * bs + c] = aa[k * bs2 + c * bs + p];
    }
  if (dinv) {
    PetscCall(PetscMalloc1(n * bs2, &td));
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt c = 0; c < bs; c++) td[r * bs2 + p * bs + c] = dinv[r * bs2 + c * bs + p];
  }
  PetscCall(SetMatrix(tri, uplo == GILU_TRI_LOWER ? GILU_TRI_UPPER : GILU_TRI_LOWER, diag, n, bs, ti, tj, ta, td, PETSC_FALSE, 0));
  PetscCall(PetscFree3(ti, tj, pos));
  PetscCall(PetscFree(ta));
  PetscCall(PetscFree(td));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetMatrixWithArrays(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, PetscInt bs, const PetscInt i[], const PetscInt j[], const MatScalar a[], const MatScalar dinv[], PetscInt patternid)
{
  PetscFunctionBegin;
  PetscCall(SetMatrix(tri, uplo, diag, n, bs, i, j, a, dinv, PETSC_TRUE, patternid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The plan of the current type, threads and back-end, with the current values (built at the first solve, and again
   when one of those changed) */
static PetscErrorCode GILUTriPrepare(GILUTri tri)
{
  PetscBool rebuilt;

  PetscFunctionBegin;
  PetscCheck(tri->analyzed, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call GILUTriSetMatrix() before GILUTriSolve()");
  PetscCall(PlanUpToDate(tri, &rebuilt));
  if (rebuilt) PetscCall(GILUTriPlanSetValues(tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b by the algorithm of the type */
PetscErrorCode GILUTriSolve(GILUTri tri, const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  PetscCall(GILUTriPrepare(tri));
  PetscCall(PetscLogEventBegin(GILU_TriSolve, 0, 0, 0, 0));
  if (!tri->devops) {
    PetscCall(GILUTriSolve_Host(tri, 1, b, x));
    PetscCall(PetscLogFlops(2.0 * tri->nz * tri->bs * tri->bs + (tri->diag == GILU_TRI_DIAG_UNIT ? 0 : (2.0 * tri->bs - 1) * tri->bs * tri->n)));
  } else { /* the whole plan on the device: b copied in, the segments in order, x copied out */
    PetscCall(GILUTriPlanDeviceSetUp(tri));
    PetscCall(tri->devops->solve(tri->dev, b, x));
    PetscCall(GILULogDeviceFlops(2.0 * tri->nz * tri->bs * tri->bs + (tri->diag == GILU_TRI_DIAG_UNIT ? 0 : (2.0 * tri->bs - 1) * tri->bs * tri->n)));
  }
  PetscCall(PetscLogEventEnd(GILU_TriSolve, 0, 0, 0, 0));
  tri->nsolves++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = T^{-1} B for m right-hand sides, interleaved (entry p of block row r of right-hand side j at (r bs + p) m + j),
   on the host: each column the bits of GILUTriSolve() of it, the values read once for all m */
PetscErrorCode GILUTriSolveMultiple(GILUTri tri, PetscInt m, const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  PetscCheck(m >= 1 && m <= GILU_TRI_MAX_RHS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "GILUTriSolveMultiple() takes 1 to %d right-hand sides at a time, not %" PetscInt_FMT, GILU_TRI_MAX_RHS, m);
  PetscCall(GILUTriPrepare(tri));
  PetscCheck(!tri->devops, PETSC_COMM_SELF, PETSC_ERR_SUP, "GILUTriSolveMultiple() runs on the host back-end only, not on %s: solve each right-hand side with GILUTriSolveDevice() or GILUTriSolve()", PetscGILUBackendTypes[tri->plan.backend]);
  PetscCall(PetscLogEventBegin(GILU_TriSolve, 0, 0, 0, 0));
  PetscCall(GILUTriSolve_Host(tri, m, b, x));
  PetscCall(PetscLogFlops(m * (2.0 * tri->nz * tri->bs * tri->bs + (tri->diag == GILU_TRI_DIAG_UNIT ? 0 : (2.0 * tri->bs - 1) * tri->bs * tri->n))));
  PetscCall(PetscLogEventEnd(GILU_TriSolve, 0, 0, 0, 0));
  tri->nsolves += m;
  if (m > 1) tri->nmultiple += m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetSolveBackend(GILUTri tri, PetscGILUBackendType *backend)
{
  PetscFunctionBegin;
  PetscCall(GILUTriPrepare(tri));
  *backend = tri->plan.backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b with device arrays of the plan's back-end (GILUTriGetSolveBackend(): cuda or cudaemu) */
PetscErrorCode GILUTriSolveDevice(GILUTri tri, const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  PetscCall(GILUTriSolveDevicePermuted(tri, b, NULL, x, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b[bperm], out[operm] = x: the orderings read and written by the solve's kernels (sptrsv.cu, SolveDevice()) */
PetscErrorCode GILUTriSolveDevicePermuted(GILUTri tri, const PetscScalar b[], const PetscInt bperm[], PetscScalar x[], PetscScalar out[], const PetscInt operm[])
{
  const PetscInt n = tri->n * tri->bs;

  PetscFunctionBegin;
  PetscCall(GILUTriSolveDeviceMultiple(tri, 1, b, n, bperm, x, n, out, n, operm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same for m columns: each launch of the solve takes all of them */
PetscErrorCode GILUTriSolveDeviceMultiple(GILUTri tri, PetscInt m, const PetscScalar b[], PetscInt ldb, const PetscInt bperm[], PetscScalar x[], PetscInt ldx, PetscScalar out[], PetscInt ldo, const PetscInt operm[])
{
  PetscFunctionBegin;
  PetscCall(GILUTriPrepare(tri));
  PetscCheck(tri->devops, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "GILUTriSolveDevice() needs a triangle whose solves run on a device back-end (cuda or cudaemu), not on %s: use GILUTriSolve()", PetscGILUBackendTypes[tri->plan.backend]);
  PetscCheck(m >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "GILUTriSolveDeviceMultiple() needs at least one column, not %" PetscInt_FMT, m);
  PetscCall(PetscLogEventBegin(GILU_TriSolve, 0, 0, 0, 0));
  PetscCall(GILUTriPlanDeviceSetUp(tri));
  PetscCall(tri->devops->solvedevice(tri->dev, m, b, ldb, bperm, x, ldx, out, ldo, operm));
  PetscCall(GILULogDeviceFlops(m * (2.0 * tri->nz * tri->bs * tri->bs + (tri->diag == GILU_TRI_DIAG_UNIT ? 0 : (2.0 * tri->bs - 1) * tri->bs * tri->n))));
  PetscCall(PetscLogEventEnd(GILU_TriSolve, 0, 0, 0, 0));
  tri->nsolves += m;
  if (m > 1) tri->nmultiple += m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetPlanInfo(GILUTri tri, PetscInt *ntri, PetscInt *nsq, PetscInt bykernel[4])
{
  PetscInt nt = 0, ns = 0;

  PetscFunctionBegin;
  if (bykernel)
    for (PetscInt k = 0; k < 4; k++) bykernel[k] = 0;
  for (PetscInt s = 0; s < tri->nseg; s++) {
    if (tri->seg[s].shape == GILU_SEG_SQUARE) ns++;
    else {
      nt++;
      if (bykernel) bykernel[tri->seg[s].kernel]++;
    }
  }
  if (ntri) *ntri = nt;
  if (nsq) *nsq = ns;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetSquareKernels(GILUTri tri, PetscInt *nscalar, PetscInt *nvector)
{
  PetscInt nsc = 0, nvec = 0;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < tri->nseg; s++) {
    if (tri->seg[s].kernel == GILU_KERNEL_SPMV) nsc++;
    if (tri->seg[s].kernel == GILU_KERNEL_SPMV_VECTOR) nvec++;
  }
  if (nscalar) *nscalar = nsc;
  if (nvector) *nvector = nvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference: rows in dependency order, one after the other */
PetscErrorCode GILUTriSolveReference(GILUTri tri, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt bs = tri->bs, bs2 = bs * bs, n = tri->n;

  PetscFunctionBegin;
  PetscCheck(tri->analyzed, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call GILUTriSetMatrix() before GILUTriSolve()");
  for (PetscInt t = 0; t < n; t++) {
    PetscInt    r = tri->uplo == GILU_TRI_LOWER ? t : n - 1 - t;
    PetscScalar s[GILU_MAX_DOF];

    for (PetscInt c = 0; c < bs; c++) s[c] = b[r * bs + c];
    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      const MatScalar   *blk = tri->a + k * bs2;
      const PetscScalar *xc  = x + tri->j[k] * bs;

      if (tri->j[k] == r) continue;
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) s[p] -= blk[p * bs + q] * xc[q];
    }
    if (tri->diag == GILU_TRI_DIAG_UNIT) {
      for (PetscInt c = 0; c < bs; c++) x[r * bs + c] = s[c];
    } else {
      const MatScalar *d = tri->dinv + r * bs2;

      for (PetscInt p = 0; p < bs; p++) {
        PetscScalar v = d[p * bs] * s[0];

        for (PetscInt q = 1; q < bs; q++) v += d[p * bs + q] * s[q];
        x[r * bs + p] = v;
      }
    }
  }
  PetscCall(PetscLogFlops(2.0 * tri->nz * bs2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetLevels(GILUTri tri, PetscInt *nlevels, PetscInt *maxlevel)
{
  PetscFunctionBegin;
  if (nlevels) *nlevels = tri->nlevels;
  if (maxlevel) *maxlevel = tri->maxlevel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* chunked: its chunks and chunk levels */
static PetscErrorCode ViewChunked(GILUTri tri, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (tri->planned && tri->nseg == 1 && tri->seg[0].chunked) {
    const GILUTriSeg *seg = &tri->seg[0];

    PetscCall(PetscViewerASCIIPrintf(viewer, "chunks: %" PetscInt_FMT " of consecutive rows (%.1f rows each, at most %" PetscInt_FMT "), %" PetscInt_FMT " chunk levels (%.1f chunks each), %" PetscInt_FMT " dependencies\n", seg->nchunks,
                                     seg->nchunks ? (double)seg->nrows / seg->nchunks : 0.0, seg->chunk, seg->nlevels, seg->nlevels ? (double)seg->nchunks / seg->nlevels : 0.0, seg->dptr[seg->nchunks]));
    if (seg->inplace) PetscCall(PetscViewerASCIIPrintf(viewer, "rows by column-offset pattern: %" PetscInt_FMT " patterns, %" PetscInt_FMT " runs (no column indices read), values read in place\n", seg->npat, seg->rptr[seg->nchunks]));
    if (tri->plan.nthreads > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", tri->cstatic ? "each thread takes a fixed share of every chunk level" : "the threads claim the chunks from a shared counter"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriView(GILUTri tri, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s triangular factor: %" PetscInt_FMT " rows, block size %" PetscInt_FMT ", %" PetscInt_FMT " stored blocks, %s diagonal\n", tri->uplo == GILU_TRI_LOWER ? "lower" : "upper", tri->n, tri->bs, tri->nz, tri->diag == GILU_TRI_DIAG_UNIT ? "unit" : (tri->diag == GILU_TRI_DIAG_STORED ? "stored" : "separate inverted")));
  PetscCall(PetscViewerASCIIPrintf(viewer, "analysis: %" PetscInt_FMT " levels, largest %" PetscInt_FMT " rows, parallelism (rows/levels) %.1f\n", tri->nlevels, tri->maxlevel, tri->nlevels ? (double)tri->n / tri->nlevels : 0.0));
  if (tri->planned) {
    PetscInt nt, ns, byk[4], nnzsq = 0;

    PetscCall(GILUTriGetPlanInfo(tri, &nt, &ns, byk));
    for (PetscInt s = 0; s < tri->nseg; s++)
      if (tri->seg[s].shape == GILU_SEG_SQUARE) nnzsq += tri->seg[s].nnz;
    if (tri->nseg == 1 && tri->seg[0].colp) PetscCall(PetscViewerASCIIPrintf(viewer, "permuted layout: the solution is kept in execution order too\n"));
    if (tri->nseg == 1 && tri->seg[0].direct && tri->plan.backend == PETSCGILU_BACKEND_HOST && tri->seg[0].kernel != GILU_KERNEL_SEQUENTIAL)
      PetscCall(PetscViewerASCIIPrintf(viewer, "rows read where the factor stores them (no copy in execution order)\n"));
    if (tri->plan.backend != PETSCGILU_BACKEND_HOST)
      PetscCall(PetscViewerASCIIPrintf(viewer, "algorithm %s (requested %s) on the %s back-end\n", GILUTriSolveTypes[tri->ran], GILUTriSolveTypes[tri->ask.type], PetscGILUBackendTypes[tri->plan.backend]));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "algorithm %s (requested %s), %" PetscInt_FMT " host threads\n", GILUTriSolveTypes[tri->ran], GILUTriSolveTypes[tri->ask.type], tri->plan.nthreads));
    if (ns || nt > 1)
      PetscCall(PetscViewerASCIIPrintf(viewer, "blocks: %" PetscInt_FMT " triangles (%" PetscInt_FMT " parallel, %" PetscInt_FMT " levelset, %" PetscInt_FMT " syncfree, %" PetscInt_FMT " sequential), %" PetscInt_FMT " squares holding %" PetscInt_FMT " of %" PetscInt_FMT " off-diagonal blocks\n", nt, byk[0], byk[1], byk[2], byk[3], ns, nnzsq,
                                       tri->nz - (tri->diag == GILU_TRI_DIAG_STORED ? tri->n : 0)));
    if (tri->rord) {
      const PetscInt nod = tri->nz - (tri->diag == GILU_TRI_DIAG_STORED ? tri->n : 0);

      PetscCall(PetscViewerASCIIPrintf(viewer, "rows reordered by levels before each recursive split (the Block SpTRSV paper, Figure 3): squares hold %" PetscInt_FMT ", triangles %" PetscInt_FMT " off-diagonal blocks (without the reordering: %" PetscInt_FMT " and %" PetscInt_FMT ")\n",
                                       tri->nnzsq, nod - tri->nnzsq, tri->nnzsq0, nod - tri->nnzsq0));
    }
    PetscCall(ViewChunked(tri, viewer));         /* chunked: its chunks and chunk levels */
    PetscCall(GILUTriViewSegments(tri, viewer)); /* CUDA back-ends: the device segments and their kernels */
    PetscCall(PetscViewerASCIIPrintf(viewer, "setup time: analysis %g s, plan %g s; %" PetscInt_FMT " solves\n", (double)tri->tanalysis, (double)tri->tplan, tri->nsolves));
    if (tri->nmultiple && tri->devops) PetscCall(PetscViewerASCIIPrintf(viewer, "right-hand sides solved in groups (MatMatSolve()): %" PetscInt_FMT ", a group's columns all in each launch, one wait per dependency for them\n", tri->nmultiple));
    else if (tri->nmultiple) PetscCall(PetscViewerASCIIPrintf(viewer, "right-hand sides solved in groups (MatMatSolve()): %" PetscInt_FMT ", up to %d at a time, the values read once per group\n", tri->nmultiple, GILU_TRI_MAX_RHS));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "algorithm requested %s, %" PetscInt_FMT " host threads (chosen at the first solve)\n", GILUTriSolveTypes[tri->ask.type], tri->ask.nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}
