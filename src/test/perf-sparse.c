/*
   The general-sparse part of make gpu-perf (one case per call of PetscGILUPerfSparseRun(); tests/ex21.c is the program,
   bench/gpu/perf's sparse-* cases the driver), kernel times only (GILUPerfTimer: CUDA events on the default stream
   around the library's call, the vectors already on the device; src/test/cuda/perf.cu says what the interval holds):

   - engine: A from the generated suite (PetscGILUTestMatrixCreate()), its ILU(0) by MatSolverType gilu in the natural
     ordering on the host, then for each algorithm asked for a fresh pair of the engine's triangles (GILUTri) on the
     factor's own arrays, on the back-end, L and U solved and timed one after the other with GILUTriSolveDevice(); the
     baseline is cuSPARSE's ILU(0) of the same matrix (CSR: csrilu02 + SpSV; a matrix with blocks also BSR: bsrilu02 +
     bsrsv2), L and U solves timed by GILUCuSparseBenchmark(). ILU(0) in the natural ordering is one factorization
     whichever library computes it (dense blocks: the block one equals the scalar one on the expanded pattern), so
     every engine solution is compared with cuSPARSE's CSR solution (a device) or PETSc's ILU(0) on the host (check).
     With columns > 0 also a block of that many right-hand sides (2^j b), L and U each one GILUTriSolveDeviceMultiple()
     (every launch takes all columns: MatMatSolve()'s device path), timed together; every column against the single
     solve's x (bitwise but by columns, CSC, whose atomic adds run in no fixed order).
   - fgdd: PCFGDD set up on the host for the back-end, its device apply (PCFGDDApplyDevice()) timed on its own device
     buffers, against the same cuSPARSE solves (the FGDD paper's comparison: its apply replaces ILU(0)'s two solves);
     compared with PCFGDD's host apply (check). With columns > 0 also a block of that many (2^j b) in one apply, as the
     engine's, every column against the single apply's y (bitwise: each column is computed as one apply computes it;
     but for -fgdd_pc_fgdd_apply edge, whose atomic adds run in no fixed order: round-off).

   - spcg: an SPD problem of bench/sparsify.py (PetscGILUPerfSPDProblemCreate()), KSPCG to rtol 1e-8 with PCG-ILU(0),
     SPCG-ILU(0), PCG-ILU(K), SPCG-ILU(K) (PCILU / PCSPARSIFY's inner PCILU, MatSolverType gilu, -gilu_backend the
     back-end, Algorithm 2's ratio): KSPSetUp timed apart, then KSPSolve (the iterative phase) by the wall clock with the
     device idle at both ends (a CG iteration reads norms back, so the host waits for the device inside anyway); CUDA
     matrix and vectors where the PETSc has CUDA; each configuration again on the host back-end (check).
   - ats: a matrix of the suite, PCATSILU's PCSetUp (pattern, scaling, the sweeps on the back-end, the copy back, the
     apply's setup) with -pc_atsilu_algorithm ats and parilu, the same sweeps, timed as spcg; the final residual each
     reached; the host back-end's (check: both algorithms are deterministic, the residuals agree to round-off).
   - bcgs: the matrix of fgdd, KSPBCGS (right preconditioning, rtol and cap of the case, x = 0) with PCFGDD on the back-end
     against the same KSP with cuSPARSE's ILU(0) CSR and BSR in a PCSHELL applied on the device (PETSc's host ILU(0) in the
     emulation, where cuSPARSE cannot run), the same operator (AIJCUSPARSE where the PETSc has CUDA); timed as spcg, the
     setup apart; iterations and the true residual each reached.

   Compulsory bytes, the bandwidth bound of a solve (the report's "of peak" is bytes / time / the device's peak): the
   stored values and column indices of the triangle, its row pointers, the right-hand side read and the solution
   written once; the engine's U adds its inverted diagonal blocks; FGDD's apply the kept blocks (both triangles, read
   once), the inverted diagonal blocks, row pointers, x read and y written. Dependencies are taken to come from cache.
*/
#include <petscgilutest.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/sptrsv.h>
#include "../pc/fgdd/fgdd.h"
#include <petscksp.h>
#include <petscdmda.h>
#include <petsctime.h>

/* the timer of the back-end's build (the cudaemu one reads the wall clock) */
static PetscErrorCode TimerCall(PetscGILUBackendType ran, PetscInt what, GILUPerfTimer *t, double *ms)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_CUDA)
  if (ran == PETSCGILU_BACKEND_CUDA) {
    if (what == 0) PetscCall(GILUPerfTimerCreate(t));
    else if (what == 1) PetscCall(GILUPerfTimerStart(*t));
    else if (what == 2) PetscCall(GILUPerfTimerStop(*t, ms));
    else PetscCall(GILUPerfTimerDestroy(t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  if (ran == PETSCGILU_BACKEND_CUDAEMU) {
    if (what == 0) PetscCall(GILUPerfTimerCreate_cudaemu(t));
    else if (what == 1) PetscCall(GILUPerfTimerStart_cudaemu(*t));
    else if (what == 2) PetscCall(GILUPerfTimerStop_cudaemu(*t, ms));
    else PetscCall(GILUPerfTimerDestroy_cudaemu(t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No device timer for the back-end %s in this build", PetscGILUBackendTypes[ran]);
}

/* PETSc's ILU(0) in the natural ordering on the host: x = (LU)^{-1} b, the oracle of check */
static PetscErrorCode HostILU0(Mat A, Vec b, Vec x)
{
  Mat           F;
  IS            row, col;
  MatFactorInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = 0;
  info.fill   = 1.0; /* ILU(0): no fill (MatFactorInfoInitialize() leaves 0, which MatILUFactorSymbolic() refuses) */
  PetscCall(MatILUFactorSymbolic(F, A, row, col, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscCall(MatSolve(F, b, x));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's ILU(0) of A in one format (A's own: SEQAIJ is CSR, SEQBAIJ BSR): its L and U solve times and bytes, y its
   solution of b. Only on a CUDA device. */
static PetscErrorCode CuSparse(Mat A, PetscInt sreps, const PetscScalar *b, PetscScalar *y, GILUCuSparseTimes *t, double bytes[2])
{
#if defined(PETSCGILU_HAVE_CUDA)
  GILUCuSparseArrays arr;
  GILUCuSparse       cs;
  PetscInt           zr;
  double             nlow = 0, e, rows;
#endif

  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(GILUCuSparseArraysCreate(A, &arr));
  for (PetscInt i = 0; i < arr.m; i++)
    for (PetscInt k = arr.rowptr[i]; k < arr.rowptr[i + 1]; k++) nlow += arr.colind[k] < i;
  e        = 8.0 * arr.bs * arr.bs + 4.0;
  rows     = 4.0 * (arr.m + 1);
  bytes[0] = e * nlow + rows + 16.0 * arr.m * arr.bs;
  bytes[1] = e * ((double)arr.nnzb - nlow) + rows + 16.0 * arr.m * arr.bs;
  PetscCall(GILUCuSparseCreateFromArrays(&arr, &cs));
  PetscCall(GILUCuSparseArraysDestroy(&arr));
  PetscCall(GILUCuSparseBenchmark(cs, 1, sreps, b, y, t, &zr));
  PetscCall(GILUCuSparseDestroy(&cs));
  PetscCheck(zr < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "cuSPARSE's ILU(0) found a zero pivot in (block) row %" PetscInt_FMT, zr);
#else
  (void)A;
  (void)sreps;
  (void)b;
  (void)y;
  (void)t;
  (void)bytes;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuSPARSE baselines need a build with CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the baselines and the reference xref of b: cuSPARSE CSR (and BSR for a matrix with blocks) on a device, else (check)
   PETSc's ILU(0) on the host; for fgdd the reference is the PC's host apply, computed by the caller */
static PetscErrorCode Baselines(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, PetscInt bs, Vec b, Vec xref, PetscBool wantref, PetscGILUPerfSparseResult *r)
{
  const PetscScalar *ba;
  PetscScalar       *xa, *y;
  PetscLogDouble     t0, t1;
  PetscInt           n;
  PetscBool          isaij;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &isaij));
  if (ran == PETSCGILU_BACKEND_CUDA && (c->csr || c->bsr)) {
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(PetscMalloc1(n, &y));
    if (c->csr) {
      Mat Ac = A;

      if (!isaij) PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ac));
      PetscCall(CuSparse(Ac, c->sreps, ba, y, &r->csr, r->csrbytes));
      if (!isaij) PetscCall(MatDestroy(&Ac));
      r->hascsr = PETSC_TRUE;
      if (wantref) {
        PetscCall(VecGetArrayWrite(xref, &xa));
        PetscCall(PetscArraycpy(xa, y, n));
        PetscCall(VecRestoreArrayWrite(xref, &xa));
        r->ref = "cuSPARSE CSR";
      }
    }
    if (c->bsr && bs > 1) {
      Mat Ab = A;

      if (isaij) PetscCall(MatConvert(A, MATSEQBAIJ, MAT_INITIAL_MATRIX, &Ab)); /* with A's block size */
      PetscCall(CuSparse(Ab, c->sreps, ba, y, &r->bsr, r->bsrbytes));
      if (isaij) PetscCall(MatDestroy(&Ab));
      r->hasbsr = PETSC_TRUE;
      if (wantref && !r->hascsr) {
        PetscCall(VecGetArrayWrite(xref, &xa));
        PetscCall(PetscArraycpy(xa, y, n));
        PetscCall(VecRestoreArrayWrite(xref, &xa));
        r->ref = "cuSPARSE BSR";
      }
    }
    PetscCall(PetscFree(y));
    PetscCall(VecRestoreArrayRead(b, &ba));
  }
  if (wantref && c->check && !r->hascsr && !r->hasbsr) {
    PetscCall(HostILU0(A, b, xref));
    r->ref = "PETSc ILU(0)";
  }
  PetscCall(PetscTime(&t1));
  r->hosts[2] += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelDiff(Vec ref, const PetscScalar *x, PetscReal *d)
{
  const PetscScalar *ra;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(ref, &ra));
  *d = PetscGILUTestArrayRelDiff(n, x, ra);
  PetscCall(VecRestoreArrayRead(ref, &ra));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a block of k right-hand sides: column j is 2^j b, whose solution (apply) is 2^j that of b to the bit (a power of two
   scales every operation exactly, FMA included) */
static void BlockOfPowers(PetscInt n, PetscInt k, const PetscScalar b[], PetscScalar bk[])
{
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < n; i++) bk[j * n + i] = PetscPowReal(2.0, (PetscReal)j) * b[i];
}

/* the largest relative difference of a column of the block's solution xk, scaled back by 2^-j (exact; xk is
   overwritten), from the single solution x (0: every column bitwise) */
static PetscReal BlockOfPowersDiff(PetscInt n, PetscInt k, PetscScalar xk[], const PetscScalar x[])
{
  PetscReal d = 0;

  for (PetscInt j = 0; j < k; j++) {
    const PetscReal s = PetscPowReal(2.0, (PetscReal)j);

    for (PetscInt i = 0; i < n; i++) xk[j * n + i] /= s;
    d = PetscMax(d, PetscGILUTestArrayRelDiff(n, xk + j * n, x));
  }
  return d;
}

static PetscErrorCode RunEngine(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, Vec b, PetscGILUPerfSparseResult *r)
{
  Mat                F;
  IS                 row, col;
  MatFactorInfo      info;
  PetscInt           nb, bs, n;
  const PetscInt    *Li, *Lj, *Ui, *Uj;
  const MatScalar   *La, *Ua, *Ud;
  PetscBool          rangilu;
  PetscLogDouble     t0, t1;
  Vec                xref;
  PetscScalar       *x, *xk = NULL;
  double            *tl, *tu, *tk, ms;
  void              *db = NULL, *dz = NULL, *dx = NULL, *dbk = NULL, *dzk = NULL, *dxk = NULL;
  const PetscInt     k     = c->columns;
  const double       ib    = (double)sizeof(PetscInt);
  GILUPerfTimer      timer = NULL;
  const PetscScalar *ba;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetFactor(A, MATSOLVERGILU, MAT_FACTOR_ILU, &F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = 0;
  info.fill   = 1.0; /* ILU(0): no fill (MatFactorInfoInitialize() leaves 0, which MatILUFactorSymbolic() refuses) */
  PetscCall(MatILUFactorSymbolic(F, A, row, col, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatGILUFactorGetFactors(F, &nb, &bs, &Li, &Lj, &La, &Ui, &Uj, &Ua, &Ud, &rangilu));
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  n           = nb * bs;
  /* the compulsory bytes of the two solves (head comment) */
  r->m[0].bytes[0] = (double)Li[nb] * (8.0 * bs * bs + ib) + ib * (nb + 1) + 16.0 * n;
  r->m[0].bytes[1] = (double)Ui[nb] * (8.0 * bs * bs + ib) + ib * (nb + 1) + 8.0 * nb * bs * bs + 16.0 * n;
  for (PetscInt a = 1; a < c->nalg; a++) {
    r->m[a].bytes[0] = r->m[0].bytes[0];
    r->m[a].bytes[1] = r->m[0].bytes[1];
  }

  PetscCall(VecDuplicate(b, &xref));
  PetscCall(Baselines(ran, c, A, r->bs, b, xref, PETSC_TRUE, r));

  PetscCall(PetscMalloc4(n, &x, c->sreps, &tl, c->sreps, &tu, c->sreps, &tk));
  PetscCall(GILUPerfDeviceMem(ran, 0, &db, NULL, sizeof(PetscScalar) * n));
  PetscCall(GILUPerfDeviceMem(ran, 0, &dz, NULL, sizeof(PetscScalar) * n));
  PetscCall(GILUPerfDeviceMem(ran, 0, &dx, NULL, sizeof(PetscScalar) * n));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(GILUPerfDeviceMem(ran, 2, &db, (void *)ba, sizeof(PetscScalar) * n));
  if (k > 0) { /* the block: column j is 2^j b */
    PetscCall(PetscMalloc1(n * k, &xk));
    BlockOfPowers(n, k, ba, xk);
    PetscCall(GILUPerfDeviceMem(ran, 0, &dbk, NULL, sizeof(PetscScalar) * n * k));
    PetscCall(GILUPerfDeviceMem(ran, 0, &dzk, NULL, sizeof(PetscScalar) * n * k));
    PetscCall(GILUPerfDeviceMem(ran, 0, &dxk, NULL, sizeof(PetscScalar) * n * k));
    PetscCall(GILUPerfDeviceMem(ran, 2, &dbk, xk, sizeof(PetscScalar) * n * k));
  }
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(TimerCall(ran, 0, &timer, NULL));
  for (PetscInt a = 0; a < c->nalg; a++) {
    GILUTri                    L, U;
    PetscGILUBackendType       lb, ub;
    PetscGILUPerfSparseMethod *m = &r->m[a];
    GILUTriSolveType           tl_ran, tu_ran;
    PetscInt                   lev;
    PetscErrorCode             el, eu;

    PetscCall(GILUTriCreate(&L));
    PetscCall(GILUTriCreate(&U));
    PetscCall(GILUTriSetType(L, (GILUTriSolveType)c->alg[a]));
    PetscCall(GILUTriSetType(U, (GILUTriSolveType)c->alg[a]));
    PetscCall(GILUTriSetBackend(L, ran));
    PetscCall(GILUTriSetBackend(U, ran));
    /* the triangles and their plans, as the first solve would make them; an algorithm the device does not run (the
       host-only ones, or whatever a plan refuses) is reported as not run rather than losing the case's other algorithms */
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    el = GILUTriSetMatrixWithArrays(L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, nb, bs, Li, Lj, La, NULL, 1);
    if (!el) el = GILUTriGetSolveBackend(L, &lb);
    eu = el ? el : GILUTriSetMatrixWithArrays(U, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, nb, bs, Ui, Uj, Ua, Ud, 1);
    if (!eu) eu = GILUTriGetSolveBackend(U, &ub);
    PetscCall(PetscPopErrorHandler());
    if (el || eu || lb != ran || ub != ran) {
      m->ran       = -2;
      m->diff      = -1;
      m->blockdiff = -1;
      m->lower[0] = m->lower[1] = m->upper[0] = m->upper[1] = 0;
      PetscCall(PetscInfo(NULL, "The engine's %s does not run on %s (error %d): not timed\n", GILUTriSolveTypes[c->alg[a]], PetscGILUBackendTypes[ran], (int)(el ? el : eu)));
      PetscCall(GILUTriDestroy(&L));
      PetscCall(GILUTriDestroy(&U));
      continue;
    }
    PetscCall(GILUTriGetType(L, &tl_ran));
    PetscCall(GILUTriGetType(U, &tu_ran));
    m->ran = tl_ran == tu_ran ? (PetscInt)tl_ran : -1; /* auto may choose per triangle: -1 says "different" */
    PetscCall(GILUTriGetLevels(L, &m->levels[0], &lev));
    PetscCall(GILUTriGetLevels(U, &m->levels[1], &lev));
    PetscCall(GILUTriSolveDevice(L, (const PetscScalar *)db, (PetscScalar *)dz)); /* warm-up: first launches, lazy uploads */
    PetscCall(GILUTriSolveDevice(U, (const PetscScalar *)dz, (PetscScalar *)dx));
    for (PetscInt k = 0; k < c->sreps; k++) {
      PetscCall(TimerCall(ran, 1, &timer, NULL));
      PetscCall(GILUTriSolveDevice(L, (const PetscScalar *)db, (PetscScalar *)dz));
      PetscCall(TimerCall(ran, 2, &timer, &ms));
      tl[k] = ms;
      PetscCall(TimerCall(ran, 1, &timer, NULL));
      PetscCall(GILUTriSolveDevice(U, (const PetscScalar *)dz, (PetscScalar *)dx));
      PetscCall(TimerCall(ran, 2, &timer, &ms));
      tu[k] = ms;
    }
    GILUPerfMinMedian(tl, c->sreps, m->lower);
    GILUPerfMinMedian(tu, c->sreps, m->upper);
    PetscCall(GILUTriGetDeviceSolveCounts(L, &m->launches[0], &m->syncs[0], NULL, NULL, &lev));
    PetscCall(GILUTriGetDeviceSolveCounts(U, &m->launches[1], &m->syncs[1], NULL, NULL, &lev));
    PetscCall(GILUPerfDeviceMem(ran, 3, &dx, x, sizeof(PetscScalar) * n));
    m->diff = -1;
    if (r->ref) PetscCall(RelDiff(xref, x, &m->diff));
    m->blockdiff = -1;
    m->block[0] = m->block[1] = 0;
    /* the block of k columns, both triangles' launches taking all of them (MatMatSolve()'s device path) */
    if (k > 0) {
      PetscCall(GILUTriSolveDeviceMultiple(L, k, (const PetscScalar *)dbk, n, NULL, (PetscScalar *)dzk, n, NULL, n, NULL)); /* warm-up */
      PetscCall(GILUTriSolveDeviceMultiple(U, k, (const PetscScalar *)dzk, n, NULL, (PetscScalar *)dxk, n, NULL, n, NULL));
      for (PetscInt q = 0; q < c->sreps; q++) {
        PetscCall(TimerCall(ran, 1, &timer, NULL));
        PetscCall(GILUTriSolveDeviceMultiple(L, k, (const PetscScalar *)dbk, n, NULL, (PetscScalar *)dzk, n, NULL, n, NULL));
        PetscCall(GILUTriSolveDeviceMultiple(U, k, (const PetscScalar *)dzk, n, NULL, (PetscScalar *)dxk, n, NULL, n, NULL));
        PetscCall(TimerCall(ran, 2, &timer, &ms));
        tk[q] = ms;
      }
      GILUPerfMinMedian(tk, c->sreps, m->block);
      PetscCall(GILUPerfDeviceMem(ran, 3, &dxk, xk, sizeof(PetscScalar) * n * k));
      m->blockdiff = BlockOfPowersDiff(n, k, xk, x);
    }
    PetscCall(GILUTriDestroy(&L));
    PetscCall(GILUTriDestroy(&U));
  }
  PetscCall(TimerCall(ran, 3, &timer, NULL));
  PetscCall(GILUPerfDeviceMem(ran, 1, &db, NULL, 0));
  PetscCall(GILUPerfDeviceMem(ran, 1, &dz, NULL, 0));
  PetscCall(GILUPerfDeviceMem(ran, 1, &dx, NULL, 0));
  if (k > 0) {
    PetscCall(GILUPerfDeviceMem(ran, 1, &dbk, NULL, 0));
    PetscCall(GILUPerfDeviceMem(ran, 1, &dzk, NULL, 0));
    PetscCall(GILUPerfDeviceMem(ran, 1, &dxk, NULL, 0));
  }
  PetscCall(PetscFree(xk));
  PetscCall(PetscFree4(x, tl, tu, tk));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCFGDD's partition as the PC makes it for a user: geometric boxes (the FGDD paper's Algorithm 1) where the matrix is
   one of the suite's grids numbered as a DMDA (a grid point a block row, x fastest), a graph partition otherwise (which
   needs ParMETIS or PT-Scotch: the PETSc of the device bundle has neither) */
static PetscErrorCode FGDDSetPartition(PC pc, DM da, PetscGILUPerfSparseResult *r)
{
  PetscFunctionBegin;
  if (da) PetscCall(PCSetDM(pc, da));
  r->geometric = (PetscBool)(da != NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunFGDD(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, DM da, Vec b, PetscGILUPerfSparseResult *r)
{
  PC                         pc;
  PetscLogDouble             t0, t1;
  void                      *dx, *dy, *dxk, *dyk;
  PetscInt                   kept, n, nb;
  const PetscInt             kc = c->columns;
  double                    *ta, ms;
  GILUPerfTimer              timer = NULL;
  const PetscScalar         *ba;
  PetscScalar               *y;
  PetscGILUPerfSparseMethod *m = &r->m[0];
  Vec                        yref;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetType(pc, PCFGDD));
  PetscCall(PCFGDDSetBackend(pc, ran));
  PetscCall(FGDDSetPartition(pc, da, r));
  PetscCall(PCSetOptionsPrefix(pc, "fgdd_")); /* e.g. -fgdd_pc_fgdd_subdomain_rows 512, read after these settings */
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetErrorIfFailure(pc, PETSC_TRUE));
  PetscCall(PCSetUp(pc));
  PetscCall(PCFGDDGetSubdomains(pc, &r->nsub, NULL, NULL));
  PetscCall(PCFGDDGetSubdomainRows(pc, &r->subrows));
  PetscCall(PCFGDDGetDeviceBuffers(pc, 1, &dx, &dy, &kept));
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  PetscCall(VecGetLocalSize(b, &n));
  nb          = n / r->bs;
  m->bytes[0] = (double)kept * (8.0 * r->bs * r->bs + sizeof(PetscInt)) + (double)sizeof(PetscInt) * (nb + 1) + 8.0 * nb * r->bs * r->bs + 16.0 * n;
  m->ran      = -1;
  m->diff     = -1;

  /* cuSPARSE first (its reference solution is not FGDD's: no comparison with it), then the apply */
  PetscCall(Baselines(ran, c, A, r->bs, b, NULL, PETSC_FALSE, r));
  PetscCall(PetscMalloc2(n, &y, c->sreps, &ta));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(GILUPerfDeviceMem(ran, 2, &dx, (void *)ba, sizeof(PetscScalar) * n));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(TimerCall(ran, 0, &timer, NULL));
  PetscCall(PCFGDDApplyDevice(pc, 1, (const PetscScalar *)dx, n, (PetscScalar *)dy, n)); /* warm-up */
  for (PetscInt k = 0; k < c->sreps; k++) {
    PetscCall(TimerCall(ran, 1, &timer, NULL));
    PetscCall(PCFGDDApplyDevice(pc, 1, (const PetscScalar *)dx, n, (PetscScalar *)dy, n));
    PetscCall(TimerCall(ran, 2, &timer, &ms));
    ta[k] = ms;
  }
  GILUPerfMinMedian(ta, c->sreps, m->lower);
  PetscCall(GILUPerfDeviceMem(ran, 3, &dy, y, sizeof(PetscScalar) * n));
  m->blockdiff = -1;
  m->block[0] = m->block[1] = 0;
  if (kc > 0) { /* the block of kc columns 2^j b in the PC's buffers (grown: dx, dy are not used after this), every launch
                   taking all of them (PCMatApply()'s device path); each column 2^j y to the bit */
    PetscScalar *yk;

    PetscCall(PetscMalloc1(n * kc, &yk));
    PetscCall(VecGetArrayRead(b, &ba));
    BlockOfPowers(n, kc, ba, yk);
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(PCFGDDGetDeviceBuffers(pc, kc, &dxk, &dyk, NULL));
    PetscCall(GILUPerfDeviceMem(ran, 2, &dxk, yk, sizeof(PetscScalar) * n * kc));
    PetscCall(PCFGDDApplyDevice(pc, kc, (const PetscScalar *)dxk, n, (PetscScalar *)dyk, n)); /* warm-up */
    for (PetscInt k = 0; k < c->sreps; k++) {
      PetscCall(TimerCall(ran, 1, &timer, NULL));
      PetscCall(PCFGDDApplyDevice(pc, kc, (const PetscScalar *)dxk, n, (PetscScalar *)dyk, n));
      PetscCall(TimerCall(ran, 2, &timer, &ms));
      ta[k] = ms;
    }
    GILUPerfMinMedian(ta, c->sreps, m->block);
    PetscCall(GILUPerfDeviceMem(ran, 3, &dyk, yk, sizeof(PetscScalar) * n * kc));
    m->blockdiff = BlockOfPowersDiff(n, kc, yk, y);
    PetscCall(PetscFree(yk));
  }
  PetscCall(TimerCall(ran, 3, &timer, NULL));
  if (c->check) { /* the same factors applied on the host: the PC switched to the host back-end keeps its subdomains (a
                     second PC would partition anew, and PT-Scotch's random state differs from call to call) */
    PetscCall(PCFGDDSetBackend(pc, PETSCGILU_BACKEND_HOST));
    PetscCall(VecDuplicate(b, &yref));
    PetscCall(PCApply(pc, b, yref));
    PetscCall(RelDiff(yref, y, &m->diff));
    r->ref = "PCFGDD host";
    PetscCall(VecDestroy(&yref));
  }
  PetscCall(PetscFree2(y, ta));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------- spcg */
/* the SPD problems of bench/sparsify.py, assembled here at any size (the programs it runs are DMDA tutorials): a constant
   stencil on a grid of interior points, Dirichlet values eliminated, unit spacing (a uniform scale changes nothing).
   poisson3d (tutorials/ex1), axis7-<tag> (tests/ex10 -case poisson: 7-point -div(diag(ax, ay, az) grad u)), aniso3d-<t>
   (tutorials/ex2: a full tensor K, diamond-13), and their 2D forms poisson2d, aniso2d-<t> (star-5 plus (1,-1), (-1,1)) */
typedef struct {
  const char *name;
  PetscInt    dim;
  PetscReal   K[6]; /* K_xx K_yy K_zz K_xy K_xz K_yz (2D: K_xx K_yy 0 K_xy) */
} SPDProblem;
static const SPDProblem SPDProblems[] = {
  {"poisson3d",          3, {1, 1, 1, 0, 0, 0}                   },
  {"poisson2d",          2, {1, 1, 0, 0, 0, 0}                   },
  {"aniso3d-a",          3, {1, 1, 0.05, -0.3, -0.02, -0.01}     },
  {"aniso3d-b",          3, {1, 0.1, 0.01, -0.05, -0.005, -0.005}},
  {"aniso3d-c",          3, {1, 1, 1, -0.4, -0.2, -0.3}          },
  {"aniso3d-d",          3, {1, 0.5, 0.2, -0.1, -0.05, -0.02}    },
  {"aniso2d-a",          2, {1, 1, 0, -0.5, 0, 0}                },
  {"aniso2d-b",          2, {1, 0.01, 0, -0.005, 0, 0}           },
  {"aniso2d-c",          2, {1, 0.2, 0, -0.1, 0, 0}              },
  {"axis7-z0.01",        3, {1, 1, 0.01, 0, 0, 0}                },
  {"axis7-y0.1z0.01",    3, {1, 0.1, 0.01, 0, 0, 0}              },
  {"axis7-z0.001",       3, {1, 1, 0.001, 0, 0, 0}               },
  {"axis7-x10",          3, {10, 1, 1, 0, 0, 0}                  },
  {"axis7-y0.01z0.0001", 3, {1, 0.01, 0.0001, 0, 0, 0}           },
};

/*@C
  PetscGILUPerfSPDProblemCreate - an SPD problem of bench/sparsify.py (make gpu-perf's spcg cases) as a `MATSEQAIJ`
  matrix with a right-hand side of ones

  Not Collective

  Input Parameters:
+ name - poisson3d, poisson2d, aniso3d-a .. aniso3d-d, aniso2d-a .. aniso2d-c (the tensors of bench/sparsify.py),
         axis7-z0.01, axis7-y0.1z0.01, axis7-z0.001, axis7-x10, axis7-y0.01z0.0001
- size - about size^3 unknowns: size points a direction in 3D, size^(3/2) in 2D

  Output Parameters:
+ A - the matrix (`MAT_SPD` set)
- b - the right-hand side

  Level: developer

.seealso: `PetscGILUPerfSparseRun()`, `PetscGILUTestMatrixCreate()`
@*/
PetscErrorCode PetscGILUPerfSPDProblemCreate(const char name[], PetscInt size, Mat *A, Vec *b)
{
  const SPDProblem *p = NULL;
  PetscInt          m[3], N, noff = 0, off[13][3], cols[13];
  PetscScalar       w[13], vals[13];

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(SPDProblems) / sizeof(SPDProblems[0]); k++) {
    PetscBool match;

    PetscCall(PetscStrcmp(name, SPDProblems[k].name, &match));
    if (match) p = &SPDProblems[k];
  }
  PetscCheck(p, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown SPD problem %s: poisson3d, poisson2d, aniso3d-{a,b,c,d}, aniso2d-{a,b,c}, axis7-{z0.01,y0.1z0.01,z0.001,x10,y0.01z0.0001}", name);
  PetscCheck(size >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The size must be at least 2, not %" PetscInt_FMT, size);
  m[0] = m[1] = m[2] = size;
  if (p->dim == 2) {
    m[0] = m[1] = (PetscInt)(PetscSqrtReal((PetscReal)size * size * size) + 0.5);
    m[2]        = 1;
  }
  N = m[0] * m[1] * m[2];
  {
    /* the stencil of tutorials/ex2 (h = 1): w_ab = |K_ab|; +-e_a: -K_aa + sum_{b != a} w_ab; +-(e_a - e_b): -w_ab; the
       centre 2 sum_a K_aa - 2 sum_{a<b} w_ab; with K diagonal the 7-point (5-point) stencil */
    const PetscInt pairs[3][2] = {
      {0, 1},
      {0, 2},
      {1, 2}
    };
    const PetscReal wab[3] = {PetscAbsReal(p->K[3]), PetscAbsReal(p->K[4]), PetscAbsReal(p->K[5])};
    PetscReal       centre = 0;

    for (PetscInt a = 0; a < p->dim; a++) {
      PetscReal axis = -p->K[a];

      for (PetscInt q = 0; q < 3; q++)
        if (pairs[q][0] == a || pairs[q][1] == a) axis += wab[q];
      centre += 2 * p->K[a];
      for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
        off[noff][0] = off[noff][1] = off[noff][2] = 0;
        off[noff][a]                               = sgn;
        w[noff++]                                  = axis;
      }
    }
    for (PetscInt q = 0; q < 3; q++) {
      if (wab[q] == 0) continue;
      centre -= 2 * wab[q];
      for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
        off[noff][0] = off[noff][1] = off[noff][2] = 0;
        off[noff][pairs[q][0]]                     = sgn;
        off[noff][pairs[q][1]]                     = -sgn;
        w[noff++]                                  = -wab[q];
      }
    }
    off[noff][0] = off[noff][1] = off[noff][2] = 0;
    w[noff++]                                  = centre;
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, noff, NULL, A));
  for (PetscInt k = 0; k < m[2]; k++)
    for (PetscInt j = 0; j < m[1]; j++)
      for (PetscInt i = 0; i < m[0]; i++) {
        const PetscInt row = i + m[0] * (j + m[1] * k);
        PetscInt       nc  = 0;

        for (PetscInt s = 0; s < noff; s++) {
          const PetscInt ii = i + off[s][0], jj = j + off[s][1], kk = k + off[s][2];

          if (ii < 0 || jj < 0 || kk < 0 || ii >= m[0] || jj >= m[1] || kk >= m[2] || w[s] == 0) continue;
          cols[nc]   = ii + m[0] * (jj + m[1] * kk);
          vals[nc++] = w[s];
        }
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(*A, NULL, b));
  PetscCall(VecSet(*b, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device idle, so that a wall-clock interval holds the kernels launched inside it */
/* an option of the database unless the user gave it (so -spcg_ilu0_pc_sparsify_ratio 5 and the like reach the run) */
static PetscErrorCode DefaultOption(const char prefix[], const char name[], const char value[])
{
  char      full[128];
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", prefix, name));
  PetscCall(PetscOptionsHasName(NULL, NULL, full, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, full, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the timing of a configured KSP (spcg, bcgs): KSPSetUp timed (the PC's setup), one PCApply to warm up (first launches,
   lazy uploads), then reps solves from x = 0 by the wall clock with the device idle at both ends (a Krylov iteration
   reads norms back, so the host waits for the device inside anyway): the interval is the iterative phase, host and
   device. The iterations, the reason and the true residual ||b - A x|| / ||b|| of the last solve. */
static PetscErrorCode TimeKrylov(PetscGILUBackendType be, KSP ksp, Vec b, Vec x, PetscInt reps, PetscGILUPerfKrylov *k)
{
  PC                 pc;
  Mat                A;
  Vec                res;
  PetscLogDouble     t0, t1;
  double            *ts;
  KSPConvergedReason reason;
  PetscReal          nb;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscMalloc1(reps, &ts));
  PetscCall(GILUPerfDeviceSync(be));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(GILUPerfDeviceSync(be));
  PetscCall(PetscTime(&t1));
  k->setup = 1e3 * (t1 - t0);
  PetscCall(PCApply(pc, b, x)); /* warm-up: first launches, the factors' uploads */
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(VecSet(x, 0.0));
    PetscCall(GILUPerfDeviceSync(be));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(GILUPerfDeviceSync(be));
    PetscCall(PetscTime(&t1));
    ts[r] = 1e3 * (t1 - t0);
  }
  GILUPerfMinMedian(ts, reps, k->solve);
  PetscCall(PetscFree(ts));
  PetscCall(KSPGetIterationNumber(ksp, &k->its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  k->reason = (PetscInt)reason;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(VecDuplicate(b, &res));
  PetscCall(MatMult(A, x, res));
  PetscCall(VecAYPX(res, -1.0, b));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecNorm(res, NORM_2, &k->resid));
  if (nb > 0) k->resid /= nb;
  PetscCall(VecDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one KSPCG configuration (cfg: 0 PCG-ILU(0), 1 SPCG-ILU(0), 2 PCG-ILU(K), 3 SPCG-ILU(K)) with MatSolverType gilu on the
   back-end be (-gilu_backend, set by the caller): the PC set up and applied once (lazy uploads), then sreps solves from
   x = 0 timed by the wall clock with the device idle at both ends (KSPSolve reads a norm back every iteration: the
   interval is the iterative phase, host and device); x the last solution. Options prefix pcg_ilu0_, spcg_ilu0_,
   pcg_iluk_, spcg_iluk_. */
static PetscErrorCode RunKrylov(PetscGILUBackendType be, const PetscGILUPerfSparseCase *c, Mat A, Vec b, PetscInt cfg, PetscGILUPerfKrylov *k, Vec x, PetscBool timed)
{
  static const char *const prefixes[] = {"pcg_ilu0_", "spcg_ilu0_", "pcg_iluk_", "spcg_iluk_"};
  const char              *pre        = prefixes[cfg];
  const PetscBool          spcg       = (PetscBool)(cfg % 2);
  char                     lev[16];
  KSP                      ksp;
  PC                       pc;
  const PetscInt           reps = timed ? c->sreps : 1;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(lev, sizeof(lev), "%" PetscInt_FMT, cfg < 2 ? (PetscInt)0 : c->levels));
  PetscCall(DefaultOption(pre, "ksp_type", "cg"));
  PetscCall(DefaultOption(pre, "ksp_rtol", "1e-8")); /* bench/sparsify.py's */
  PetscCall(DefaultOption(pre, "ksp_max_it", "2000"));
  PetscCall(DefaultOption(pre, "pc_type", spcg ? "sparsify" : "ilu"));
  PetscCall(DefaultOption(pre, spcg ? "pc_sparsify_sub_pc_factor_mat_solver_type" : "pc_factor_mat_solver_type", MATSOLVERGILU));
  PetscCall(DefaultOption(pre, spcg ? "pc_sparsify_sub_pc_factor_levels" : "pc_factor_levels", lev));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, pre));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(TimeKrylov(be, ksp, b, x, reps, k));
  k->ratio         = 0;
  k->wavefronts[0] = k->wavefronts[1] = -1;
  if (spcg) {
    PetscCall(PCSparsifyGetRatio(pc, &k->ratio));
    PetscCall(PCSparsifyGetWavefronts(pc, &k->wavefronts[0], &k->wavefronts[1]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the KSP's objects live: on a CUDA device with a PETSc built with CUDA the matrix and vectors are the CUDA types
   (the solves then read the vectors' device arrays, no copies); otherwise host AIJ and vectors (each apply copies b and
   x, which the emulation does too) */
static PetscErrorCode KrylovObjects(PetscGILUBackendType ran, Mat A, Vec b, Mat *Ad, Vec *bd)
{
  PetscFunctionBegin;
  *Ad = A;
  *bd = b;
  if (PetscDefined(HAVE_CUDA) && ran == PETSCGILU_BACKEND_CUDA) {
    PetscBool isaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &isaij));
    /* BAIJ (bsr3) through AIJ: PETSc has a direct BAIJ -> AIJ conversion; to AIJCUSPARSE it may take its entry-by-entry one */
    if (isaij) PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, Ad));
    else {
      Mat Aa;

      PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Aa));
      PetscCall(MatConvert(Aa, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, Ad));
      PetscCall(MatDestroy(&Aa));
    }
    PetscCall(MatCreateVecs(*Ad, NULL, bd));
    PetscCall(VecCopy(b, *bd));
  } else {
    PetscCall(PetscObjectReference((PetscObject)A));
    PetscCall(PetscObjectReference((PetscObject)b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetGlobalBackend(PetscGILUBackendType be)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-gilu_backend", PetscGILUBackendTypes[be]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSPCG(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, Vec b, PetscGILUPerfSparseResult *r)
{
  Mat            Ad;
  Vec            bd, x, xh;
  PetscLogDouble t0, t1;
  const PetscInt ncfg = c->levels > 0 ? 4 : 2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(KrylovObjects(ran, A, b, &Ad, &bd));
  PetscCall(VecDuplicate(bd, &x));
  PetscCall(VecDuplicate(b, &xh));
  for (PetscInt cfg = 0; cfg < ncfg; cfg++) {
    PetscGILUPerfKrylov *k = &r->k[cfg];

    PetscCall(SetGlobalBackend(ran));
    PetscCall(RunKrylov(ran, c, Ad, bd, cfg, k, x, PETSC_TRUE));
    k->hostits = -1;
    k->diff    = -1;
    if (c->check) { /* the same configuration on the host back-end, on host objects */
      PetscGILUPerfKrylov hk;
      const PetscScalar  *xa;

      PetscCall(SetGlobalBackend(PETSCGILU_BACKEND_HOST));
      PetscCall(RunKrylov(PETSCGILU_BACKEND_HOST, c, A, b, cfg, &hk, xh, PETSC_FALSE));
      k->hostits = hk.its;
      PetscCall(VecGetArrayRead(x, &xa)); /* the host's copy of a CUDA vector */
      PetscCall(RelDiff(xh, xa, &k->diff));
      PetscCall(VecRestoreArrayRead(x, &xa));
      r->ref = "host back-end";
    }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-gilu_backend"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&bd));
  PetscCall(MatDestroy(&Ad));
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------- bcgs */
/* the reference preconditioner of bcgs on a device: cuSPARSE's ILU(0) of the host matrix in one format (CSR or BSR), set
   up in PCSetUp (factorization and the solves' analysis) and applied on the KSP's vectors (their device arrays where
   PETSc has CUDA: PetscGILUCuSparseILUApply()) */
typedef struct {
  Mat                  A; /* the host matrix the factor is computed from */
  PetscBool            bsr;
  PetscGILUCuSparseILU ilu;
} ShellILU;

static PetscErrorCode ShellILUSetUp(PC pc)
{
  ShellILU *s;
  Mat       Af;
  PetscBool same;
  PetscInt  zr;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(PetscGILUCuSparseILUDestroy(&s->ilu));
  PetscCall(PetscObjectTypeCompare((PetscObject)s->A, s->bsr ? MATSEQBAIJ : MATSEQAIJ, &same));
  Af = s->A;
  if (!same) PetscCall(MatConvert(s->A, s->bsr ? MATSEQBAIJ : MATSEQAIJ, MAT_INITIAL_MATRIX, &Af)); /* BAIJ keeps A's block size */
  PetscCall(PetscGILUCuSparseILUCreate(Af, &s->ilu, &zr));
  if (!same) PetscCall(MatDestroy(&Af));
  PetscCheck(zr < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "cuSPARSE's ILU(0) found a zero pivot in (block) row %" PetscInt_FMT, zr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShellILUApply(PC pc, Vec x, Vec y)
{
  ShellILU *s;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(PetscGILUCuSparseILUApply(s->ilu, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShellILUDestroy(PC pc)
{
  ShellILU *s;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(PetscGILUCuSparseILUDestroy(&s->ilu));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one KSPBCGS solve configuration (cfg: 0 PCFGDD on the back-end, 1 cuSPARSE ILU(0) CSR, 2 cuSPARSE ILU(0) BSR, 3 PETSc's
   ILU(0) on the host in the natural ordering, the emulation's reference), every one with the same operator Ad (the KSP's
   MatMult), right-hand side, rtol, cap and x = 0; the preconditioners built from the host matrix A. Right
   preconditioning: the test every configuration stops on is the same, ||b - Ax|| <= rtol ||b|| (left preconditioning
   would stop each on its own preconditioned residual). Options prefix bcgs_fgdd_, bcgs_ilu0_ (e.g.
   -bcgs_fgdd_pc_fgdd_subdomain_rows 2000), read after these settings. */
static PetscErrorCode RunBCGSOne(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, DM da, Mat Ad, Vec bd, Vec x, PetscInt cfg, PetscGILUPerfSparseResult *r)
{
  static const char *const names[] = {"PCFGDD", "cuSPARSE ILU(0) CSR", "cuSPARSE ILU(0) BSR", "PETSc ILU(0) (host)"};
  PetscGILUPerfKrylov     *k       = &r->k[r->nk++];
  KSP                      ksp;
  PC                       pc;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(k->name, names[cfg], sizeof(k->name)));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, cfg ? "bcgs_ilu0_" : "bcgs_fgdd_"));
  PetscCall(KSPSetType(ksp, KSPBCGS));
  PetscCall(KSPSetTolerances(ksp, c->rtol, PETSC_DEFAULT, PETSC_DEFAULT, c->maxit));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetOperators(ksp, Ad, A));
  PetscCall(KSPGetPC(ksp, &pc));
  if (cfg == 0) {
    PetscCall(PCSetType(pc, PCFGDD));
    PetscCall(PCFGDDSetBackend(pc, ran));
    PetscCall(FGDDSetPartition(pc, da, r));
  } else if (cfg == 3) {
    PetscCall(PCSetType(pc, PCILU));
    PetscCall(PCFactorSetLevels(pc, 0));
    PetscCall(PCFactorSetMatOrderingType(pc, MATORDERINGNATURAL));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPETSC));
  } else {
    ShellILU *s;

    PetscCall(PetscNew(&s));
    s->A   = A;
    s->bsr = (PetscBool)(cfg == 2);
    PetscCall(PCSetType(pc, PCSHELL));
    PetscCall(PCShellSetContext(pc, s));
    PetscCall(PCShellSetName(pc, names[cfg]));
    PetscCall(PCShellSetSetUp(pc, ShellILUSetUp));
    PetscCall(PCShellSetApply(pc, ShellILUApply));
    PetscCall(PCShellSetDestroy(pc, ShellILUDestroy));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(TimeKrylov(ran, ksp, bd, x, c->sreps, k));
  if (cfg == 0) {
    PetscCall(PCFGDDGetSubdomains(pc, &r->nsub, NULL, NULL));
    PetscCall(PCFGDDGetSubdomainRows(pc, &r->subrows));
  }
  k->hostits = -1;
  k->diff    = -1;
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bcgs: PCFGDD, then cuSPARSE's ILU(0) as CSR and (a matrix with blocks) BSR on a device, or PETSc's host ILU(0) where
   cuSPARSE does not run (the emulation). The KSP's objects as spcg's (KrylovObjects()). */
static PetscErrorCode RunBCGS(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, DM da, Vec b, PetscGILUPerfSparseResult *r)
{
  Mat            Ad;
  Vec            bd, x;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(KrylovObjects(ran, A, b, &Ad, &bd));
  PetscCall(VecDuplicate(bd, &x));
  PetscCall(RunBCGSOne(ran, c, A, da, Ad, bd, x, 0, r));
  if (ran == PETSCGILU_BACKEND_CUDA && (c->csr || (c->bsr && r->bs > 1))) {
    if (c->csr) PetscCall(RunBCGSOne(ran, c, A, da, Ad, bd, x, 1, r));
    if (c->bsr && r->bs > 1) PetscCall(RunBCGSOne(ran, c, A, da, Ad, bd, x, 2, r));
    r->ref = "cuSPARSE ILU(0)";
  } else {
    PetscCall(RunBCGSOne(ran, c, A, da, Ad, bd, x, 3, r));
    r->ref = "PETSc ILU(0) on the host (cuSPARSE needs a device)";
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&bd));
  PetscCall(MatDestroy(&Ad));
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -------------------------------------------------------------------------------------------------------------- ats */
/* PCATSILU's setup with one algorithm (0 ATS, 1 ParILU) on the back-end be: c->sweeps sweeps (no tolerance), a fresh PC
   per repetition (a PC set up again on an unchanged matrix does nothing), the wall clock with the device idle at both
   ends; the residual history of the last */
static PetscErrorCode RunATSOne(PetscGILUBackendType be, const PetscGILUPerfSparseCase *c, Mat A, PetscInt alg, PetscInt reps, PetscGILUPerfATS *a)
{
  double          *ts;
  PetscLogDouble   t0, t1;
  const PetscReal *hist;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(reps, &ts));
  for (PetscInt rep = 0; rep < reps; rep++) {
    PC pc;

    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetType(pc, PCATSILU));
    PetscCall(PCATSILUSetAlgorithm(pc, alg ? PC_ATSILU_ALGORITHM_PARILU : PC_ATSILU_ALGORITHM_ATS));
    PetscCall(PCATSILUSetSweeps(pc, c->sweeps));
    PetscCall(PCATSILUSetTol(pc, 0));
    PetscCall(PCATSILUSetBackend(pc, be));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetErrorIfFailure(pc, PETSC_TRUE));
    PetscCall(GILUPerfDeviceSync(be));
    PetscCall(PetscTime(&t0));
    PetscCall(PCSetUp(pc));
    PetscCall(GILUPerfDeviceSync(be));
    PetscCall(PetscTime(&t1));
    ts[rep] = 1e3 * (t1 - t0);
    PetscCall(PCATSILUGetResidualHistory(pc, &a->nsweeps, &hist));
    a->res0 = hist[0];
    a->res  = hist[a->nsweeps];
    PetscCall(PCDestroy(&pc));
  }
  GILUPerfMinMedian(ts, reps, a->setup);
  PetscCall(PetscFree(ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunATS(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, PetscGILUPerfSparseResult *r)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  for (PetscInt alg = 0; alg < 2; alg++) {
    PetscGILUPerfATS *a = &r->ats[alg];

    PetscCall(RunATSOne(ran, c, A, alg, c->sreps, a));
    a->hostres = -1;
    if (c->check) {
      PetscGILUPerfATS h;

      PetscCall(RunATSOne(PETSCGILU_BACKEND_HOST, c, A, alg, 1, &h));
      a->hostres = h.res;
      r->ref     = "host back-end";
    }
  }
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUPerfSparseRun - one case of the general-sparse part of the kernel benchmark (make gpu-perf): the engine's
  triangular solves or PCFGDD's apply against cuSPARSE's ILU(0) solves, kernel times (CUDA events); KSPCG's iterative
  phase with PCSPARSIFY against PCILU (spcg); PCATSILU's setup with ATS against ParILU (ats); KSPBCGS end to end with
  PCFGDD against cuSPARSE's ILU(0) (bcgs)

  Not Collective

  Input Parameters:
+ ran - `PETSCGILU_BACKEND_CUDA` (a device: times of its kernels, cuSPARSE) or `PETSCGILU_BACKEND_CUDAEMU` (the
        emulation: the logic at small sizes, no cuSPARSE)
- c   - the case

  Output Parameter:
. r - sizes, bytes, times in ms (events on the device; the emulation's wall clock), the differences from the reference

  Level: developer

.seealso: `PetscGILUPerfRun()`, `PetscGILUPerfDeviceInfo()`
@*/
PetscErrorCode PetscGILUPerfSparseRun(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, PetscGILUPerfSparseResult *r)
{
  Mat            A;
  Vec            b;
  PetscLogDouble t0, t1;
  MatInfo        info;
  PetscInt       N;
  PetscBool      isengine, isfgdd, isspcg, isats, isbcgs;
  DM             da = NULL;

  PetscFunctionBegin;
  PetscCheck(c->sreps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "At least one timed solve");
  PetscCall(PetscStrcmp(c->kind, "engine", &isengine));
  PetscCall(PetscStrcmp(c->kind, "fgdd", &isfgdd));
  PetscCall(PetscStrcmp(c->kind, "spcg", &isspcg));
  PetscCall(PetscStrcmp(c->kind, "ats", &isats));
  PetscCall(PetscStrcmp(c->kind, "bcgs", &isbcgs));
  PetscCheck(isengine || isfgdd || isspcg || isats || isbcgs, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown case kind %s: engine, fgdd, spcg, ats or bcgs", c->kind);
  PetscCheck(!isbcgs || (c->rtol > 0 && c->rtol < 1 && c->maxit >= 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "bcgs needs 0 < rtol < 1 and at least one iteration, not rtol %g and %" PetscInt_FMT, (double)c->rtol, c->maxit);
  PetscCheck(!isspcg || c->levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The levels K of ILU(K) must be >= 0, not %" PetscInt_FMT, c->levels);
  PetscCheck(!isats || c->sweeps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "At least one sweep, not %" PetscInt_FMT, c->sweeps);
  PetscCheck(!isengine || (c->nalg >= 1 && c->nalg <= PETSCGILU_PERF_SPARSE_MAXALG), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Give 1 to %d algorithms", PETSCGILU_PERF_SPARSE_MAXALG);
  PetscCheck(ran == PETSCGILU_BACKEND_CUDA || ran == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_SELF, PETSC_ERR_SUP, "The benchmark runs on cuda or cudaemu, not %s", PetscGILUBackendTypes[ran]);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->ref = NULL;
  PetscCall(PetscTime(&t0));
  if (isspcg) PetscCall(PetscGILUPerfSPDProblemCreate(c->matrix, c->size, &A, &b));
  else PetscCall(PetscGILUTestMatrixCreate(PETSC_COMM_SELF, c->matrix, c->size, &A, &b));
  PetscCall(PetscTime(&t1));
  r->hosts[0] = t1 - t0;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetBlockSize(A, &r->bs));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  r->rows = (double)N;
  r->nnz  = info.nz_used;
  if (isfgdd || isbcgs) { /* the suite's matrices numbered as a grid: its DMDA, for PCFGDD's geometric partition */
    PetscBool grid;
    PetscInt  m[3];

    PetscCall(PetscGILUTestMatrixGetGrid(c->matrix, c->size, &grid, m));
    if (grid) {
      PetscCall(DMDACreate3d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, m[0], m[1], m[2], 1, 1, 1, r->bs, 1, NULL, NULL, NULL, &da));
      PetscCall(DMSetUp(da));
    }
  }
  if (isengine) PetscCall(RunEngine(ran, c, A, b, r));
  else if (isfgdd) PetscCall(RunFGDD(ran, c, A, da, b, r));
  else if (isspcg) PetscCall(RunSPCG(ran, c, A, b, r));
  else if (isbcgs) PetscCall(RunBCGS(ran, c, A, da, b, r));
  else PetscCall(RunATS(ran, c, A, r));
  if (!r->ref) r->ref = "none";
  PetscCall(DMDestroy(&da));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
