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
   - fgdd: PCFGDD set up on the host for the back-end, its device apply (PCFGDDApplyDevice()) timed on its own device
     buffers, against the same cuSPARSE solves (the FGDD paper's comparison: its apply replaces ILU(0)'s two solves);
     compared with PCFGDD's host apply (check).

   Compulsory bytes, the bandwidth bound of a solve (the report's "of peak" is bytes / time / the device's peak): the
   stored values and column indices of the triangle, its row pointers, the right-hand side read and the solution
   written once; the engine's U adds its inverted diagonal blocks; FGDD's apply the kept blocks (both triangles, read
   once), the inverted diagonal blocks, row pointers, x read and y written. Dependencies are taken to come from cache.
*/
#include <petscgilutest.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/sptrsv.h>
#include "../pc/fgdd/fgdd.h"
#include <petscpc.h>
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

/* device memory of the back-end: what 0 malloc, 1 free, 2 to the device, 3 to the host */
static PetscErrorCode DeviceMem(PetscGILUBackendType ran, PetscInt what, void **d, void *h, size_t bytes)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_CUDA)
  if (ran == PETSCGILU_BACKEND_CUDA) {
    if (what == 0) PetscCall(GILUDeviceMalloc(bytes, d));
    else if (what == 1) PetscCall(GILUDeviceFree(d));
    else if (what == 2) PetscCall(GILUDeviceCopyToDevice(*d, h, bytes));
    else PetscCall(GILUDeviceCopyToHost(h, *d, bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  if (ran == PETSCGILU_BACKEND_CUDAEMU) {
    if (what == 0) PetscCall(GILUDeviceMalloc_cudaemu(bytes, d));
    else if (what == 1) PetscCall(GILUDeviceFree_cudaemu(d));
    else if (what == 2) PetscCall(GILUDeviceCopyToDevice_cudaemu(*d, h, bytes));
    else PetscCall(GILUDeviceCopyToHost_cudaemu(h, *d, bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No device memory for the back-end %s in this build", PetscGILUBackendTypes[ran]);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* t[0..k-1] -> out[0] the smallest, out[1] the median */
static void MinMedian(double *t, PetscInt k, double out[2])
{
  qsort(t, (size_t)k, sizeof(double), CompareDouble);
  out[0] = t[0];
  out[1] = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
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
  PetscScalar       *x;
  double            *tl, *tu, ms;
  void              *db = NULL, *dz = NULL, *dx = NULL;
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

  PetscCall(PetscMalloc3(n, &x, c->sreps, &tl, c->sreps, &tu));
  PetscCall(DeviceMem(ran, 0, &db, NULL, sizeof(PetscScalar) * n));
  PetscCall(DeviceMem(ran, 0, &dz, NULL, sizeof(PetscScalar) * n));
  PetscCall(DeviceMem(ran, 0, &dx, NULL, sizeof(PetscScalar) * n));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(DeviceMem(ran, 2, &db, (void *)ba, sizeof(PetscScalar) * n));
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
      m->ran      = -2;
      m->diff     = -1;
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
    MinMedian(tl, c->sreps, m->lower);
    MinMedian(tu, c->sreps, m->upper);
    PetscCall(GILUTriGetDeviceSolveCounts(L, &m->launches[0], &m->syncs[0], NULL, NULL, &lev));
    PetscCall(GILUTriGetDeviceSolveCounts(U, &m->launches[1], &m->syncs[1], NULL, NULL, &lev));
    PetscCall(DeviceMem(ran, 3, &dx, x, sizeof(PetscScalar) * n));
    m->diff = -1;
    if (r->ref) PetscCall(RelDiff(xref, x, &m->diff));
    PetscCall(GILUTriDestroy(&L));
    PetscCall(GILUTriDestroy(&U));
  }
  PetscCall(TimerCall(ran, 3, &timer, NULL));
  PetscCall(DeviceMem(ran, 1, &db, NULL, 0));
  PetscCall(DeviceMem(ran, 1, &dz, NULL, 0));
  PetscCall(DeviceMem(ran, 1, &dx, NULL, 0));
  PetscCall(PetscFree3(x, tl, tu));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunFGDD(PetscGILUBackendType ran, const PetscGILUPerfSparseCase *c, Mat A, Vec b, PetscGILUPerfSparseResult *r)
{
  PC                         pc;
  PetscLogDouble             t0, t1;
  void                      *dx, *dy;
  PetscInt                   kept, n, nb;
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
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetErrorIfFailure(pc, PETSC_TRUE));
  PetscCall(PCSetUp(pc));
  PetscCall(PCFGDDGetSubdomains(pc, &r->nsub, NULL, NULL));
  PetscCall(PCFGDDGetDeviceBuffers(pc, &dx, &dy, &kept));
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
  PetscCall(DeviceMem(ran, 2, &dx, (void *)ba, sizeof(PetscScalar) * n));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(TimerCall(ran, 0, &timer, NULL));
  PetscCall(PCFGDDApplyDevice(pc, (const PetscScalar *)dx, (PetscScalar *)dy)); /* warm-up */
  for (PetscInt k = 0; k < c->sreps; k++) {
    PetscCall(TimerCall(ran, 1, &timer, NULL));
    PetscCall(PCFGDDApplyDevice(pc, (const PetscScalar *)dx, (PetscScalar *)dy));
    PetscCall(TimerCall(ran, 2, &timer, &ms));
    ta[k] = ms;
  }
  PetscCall(TimerCall(ran, 3, &timer, NULL));
  MinMedian(ta, c->sreps, m->lower);
  PetscCall(DeviceMem(ran, 3, &dy, y, sizeof(PetscScalar) * n));
  if (c->check) { /* the same preconditioner on the host */
    PC hpc;

    PetscCall(PCCreate(PETSC_COMM_SELF, &hpc));
    PetscCall(PCSetType(hpc, PCFGDD));
    PetscCall(PCFGDDSetBackend(hpc, PETSCGILU_BACKEND_HOST));
    PetscCall(PCSetOperators(hpc, A, A));
    PetscCall(PCSetUp(hpc));
    PetscCall(VecDuplicate(b, &yref));
    PetscCall(PCApply(hpc, b, yref));
    PetscCall(RelDiff(yref, y, &m->diff));
    r->ref = "PCFGDD host";
    PetscCall(VecDestroy(&yref));
    PetscCall(PCDestroy(&hpc));
  }
  PetscCall(PetscFree2(y, ta));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUPerfSparseRun - one case of the general-sparse part of the kernel benchmark (make gpu-perf): the engine's
  triangular solves or PCFGDD's apply against cuSPARSE's ILU(0) solves, kernel times (CUDA events)

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
  PetscBool      isengine, isfgdd;

  PetscFunctionBegin;
  PetscCheck(c->sreps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "At least one timed solve");
  PetscCall(PetscStrcmp(c->kind, "engine", &isengine));
  PetscCall(PetscStrcmp(c->kind, "fgdd", &isfgdd));
  PetscCheck(isengine || isfgdd, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown case kind %s: engine or fgdd", c->kind);
  PetscCheck(!isengine || (c->nalg >= 1 && c->nalg <= PETSCGILU_PERF_SPARSE_MAXALG), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Give 1 to %d algorithms", PETSCGILU_PERF_SPARSE_MAXALG);
  PetscCheck(ran == PETSCGILU_BACKEND_CUDA || ran == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_SELF, PETSC_ERR_SUP, "The benchmark runs on cuda or cudaemu, not %s", PetscGILUBackendTypes[ran]);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->ref = NULL;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscGILUTestMatrixCreate(PETSC_COMM_SELF, c->matrix, c->size, &A, &b));
  PetscCall(PetscTime(&t1));
  r->hosts[0] = t1 - t0;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetBlockSize(A, &r->bs));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  r->rows = (double)N;
  r->nnz  = info.nz_used;
  if (isengine) PetscCall(RunEngine(ran, c, A, b, r));
  else PetscCall(RunFGDD(ran, c, A, b, r));
  if (!r->ref) r->ref = "none";
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
