/*
   The kernel benchmark of make gpu-perf (one case per call of PetscGILUPerfRun(); tests/ex20.c is the program, bench/gpu/perf
   the driver): PCSTRUCTILU's device factorization and sweeps against cuSPARSE's ILU(0) at the StructILU paper's stencils,
   DoFs and sizes, kernel times only.

   A DMDA assembly on the host cannot reach 512^3 in minutes, so the matrix is written directly in the stencil storage
   (stencil.h: a dof x dof block per offset per point, stencil-major, zero where the neighbour is outside the grid) by
   the host's OpenMP threads, from a hash of (point, offset, row, column): strictly diagonally dominant with negative
   off-diagonal entries (an M-matrix, so ILU(0) exists). PCSTRUCTILU is driven through its device API (structilu-cuda.h:
   create, factor, solve, with the kernel timing op: CUDA events around its launches); cuSPARSE gets CSR and BSR arrays
   built from the same storage by a parallel loop, never a PETSc Mat. The three solutions are compared with each other,
   and with PETSc's ILU(0) on the host when asked (small grids: the emulation's test in make check).

   Compulsory bytes (what a sweep must move at the least, stated so in the report): StructILU's forward sweep reads the
   stored L blocks (every point's, zero blocks at the boundary included), b, and writes x; the backward sweep reads the
   stored U blocks and the inverted diagonal blocks, reads x and writes it; neighbour values are taken to come from cache.
   Its factorization reads and writes every stored block once and writes the inverted diagonal blocks. cuSPARSE's: its
   values and column indices of the triangle, its row pointers, the two vectors; the factorization reads and writes the
   values and reads the indices.
*/
#include <petscgilutest.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/backend.h>
#include "../mat/stencil/cuda/structilu-cuda.h"
#include <petsctime.h>
#include <stdint.h>

/* a value in [0,1) attached to an index (SplitMix64's finalizer): the same on any number of threads */
static inline double Hash01(uint64_t x)
{
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1.0p-53;
}

/* the paper's 3D stencils (stencil.c names them): offsets in natural order (z, then y, then x) */
static PetscErrorCode PerfStencil(const char name[], GILUStencil *st)
{
  PetscBool found = PETSC_FALSE;
  PetscInt  d[3];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  for (d[2] = -2; d[2] <= 2; d[2]++)
    for (d[1] = -2; d[1] <= 2; d[1]++)
      for (d[0] = -2; d[0] <= 2; d[0]++) {
        const PetscInt a = PetscAbsInt(d[0]), b = PetscAbsInt(d[1]), c = PetscAbsInt(d[2]), nz = (a > 0) + (b > 0) + (c > 0), mx = PetscMax(a, PetscMax(b, c));
        PetscBool      in = PETSC_FALSE, known = PETSC_TRUE, match;

        PetscCall(PetscStrcmp(name, "star7", &match));
        if (match) in = (PetscBool)(nz <= 1 && mx <= 1);
        else {
          PetscCall(PetscStrcmp(name, "star13", &match));
          if (match) in = (PetscBool)(nz <= 1 && mx <= 2);
          else {
            PetscCall(PetscStrcmp(name, "diamond13", &match)); /* the paper's Diamond-13P: star7 and its ILU(1) fill e_i - e_j */
            if (match) in = (PetscBool)(a + b + c <= 1 || (nz == 2 && mx <= 1 && d[0] + d[1] + d[2] == 0));
            else {
              PetscCall(PetscStrcmp(name, "diamond25", &match));
              if (match) in = (PetscBool)(a + b + c <= 2);
              else {
                PetscCall(PetscStrcmp(name, "box27", &match));
                if (match) in = (PetscBool)(mx <= 1);
                else known = PETSC_FALSE;
              }
            }
          }
        }
        PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown stencil %s: give star7, star13, diamond13, diamond25 or box27", name);
        found = PETSC_TRUE;
        if (!in) continue;
        for (PetscInt t = 0; t < 3; t++) {
          st->off[st->ns][t] = d[t];
          st->width[t]       = PetscMax(st->width[t], PetscAbsInt(d[t]));
        }
        if (!d[0] && !d[1] && !d[2]) st->nlower = st->ns;
        st->ns++;
      }
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No offsets");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stencil matrix of the case, values assembled by the host's threads */
static PetscErrorCode PerfAssemble(const PetscGILUPerfCase *c, GILUStencilMat *sm)
{
  const GILUStencil *st = &sm->stencil;
  PetscInt           N, ns, d, bs2, nx, ny, nz;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(sm, sizeof(*sm)));
  PetscCall(PerfStencil(c->stencil, &sm->stencil));
  PetscCheck(c->dof >= 1 && c->dof <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DoF %" PetscInt_FMT ": give 1 to %d", c->dof, GILU_MAX_DOF);
  for (PetscInt t = 0; t < 3; t++)
    PetscCheck(c->n[t] > 2 * st->width[t], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " grid points along axis %" PetscInt_FMT " are too few for %s: at least %" PetscInt_FMT, c->n[t], t, c->stencil, 2 * st->width[t] + 1);
  sm->grid.dim = 3;
  for (PetscInt t = 0; t < 3; t++) sm->grid.n[t] = c->n[t];
  sm->grid.dof = d = c->dof;
  nx               = c->n[0];
  ny               = c->n[1];
  nz               = c->n[2];
  N = sm->npoints = nx * ny * nz;
  PetscCheck((double)N * d < 2147483647.0 / GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " points of %" PetscInt_FMT " unknowns is beyond the device kernels' 32-bit indices", N, d);
  sm->bs2 = bs2 = d * d;
  ns            = st->ns;
  PetscCall(PetscMalloc1(ns, &sm->shift));
  for (PetscInt s = 0; s < ns; s++) sm->shift[s] = st->off[s][0] + nx * (st->off[s][1] + ny * st->off[s][2]);
  PetscCall(PetscMalloc1((size_t)ns * N * bs2, &sm->val));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt i = p % nx, j = (p / nx) % ny, k = p / (nx * ny);

    for (PetscInt s = 0; s < ns; s++) {
      PetscScalar    *blk = sm->val + ((size_t)s * N + p) * bs2;
      const PetscInt *o   = st->off[s];

      if (i + o[0] < 0 || i + o[0] >= nx || j + o[1] < 0 || j + o[1] >= ny || k + o[2] < 0 || k + o[2] >= nz) {
        for (PetscInt e = 0; e < bs2; e++) blk[e] = 0;
        continue;
      }
      for (PetscInt e = 0; e < bs2; e++) {
        const PetscBool diag = (PetscBool)(s == st->nlower);

        if (diag && e / d == e % d) blk[e] = 4.0 * ns * d;
        else blk[e] = (-0.2 - 0.6 * Hash01(((uint64_t)p * (uint64_t)ns + (uint64_t)s) * 64u + (uint64_t)e)) * (diag ? 0.5 : 1.0);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PerfStencilMatDestroy(GILUStencilMat *sm)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sm->shift));
  PetscCall(PetscFree(sm->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The CSR (bs 1) or BSR (bs = dof, column-major blocks: cuSPARSE's CUSPARSE_DIRECTION_COLUMN) arrays of the stencil
  matrix: its in-grid positions, columns ascending (the offsets are in natural order); nlower: the stored entries
  (blocks) of the strict lower triangle
*/
static PetscErrorCode PerfArrays(const GILUStencilMat *sm, PetscBool bsr, GILUCuSparseArrays *arr, size_t *nlower)
{
  const GILUStencil *st = &sm->stencil;
  const PetscInt     N = sm->npoints, d = sm->grid.dof, ns = st->ns, bs2 = sm->bs2, nx = sm->grid.n[0], ny = sm->grid.n[1], nz = sm->grid.n[2];
  const PetscInt     bs = bsr ? d : 1, m = bsr ? N : N * d;
  size_t            *start, total = 0, low = 0;
  unsigned char     *cnt, *lcnt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(arr, sizeof(*arr)));
  PetscCall(PetscMalloc3(N + 1, &start, N, &cnt, N, &lcnt));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt p = 0; p < N; p++) { /* in-grid offsets of each point, and how many are lower */
    const PetscInt i = p % nx, j = (p / nx) % ny, k = p / (nx * ny);
    unsigned char  c = 0, l = 0;

    for (PetscInt s = 0; s < ns; s++) {
      const PetscInt *o = st->off[s];

      if (i + o[0] < 0 || i + o[0] >= nx || j + o[1] < 0 || j + o[1] >= ny || k + o[2] < 0 || k + o[2] >= nz) continue;
      c++;
      l += s < st->nlower;
    }
    cnt[p]  = c;
    lcnt[p] = l;
  }
  for (PetscInt p = 0; p < N; p++) {
    start[p] = total;
    total += cnt[p];
    low += lcnt[p];
  }
  start[N] = total;
  /* scalar rows of a point: its blocks' entries; the strict lower part adds the diagonal block's d (d - 1) / 2 */
  *nlower = bsr ? low : low * (size_t)bs2 + (size_t)N * (size_t)(d * (d - 1) / 2);
  PetscCheck((double)total * bs2 < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%.0f stored entries are beyond cuSPARSE's 32-bit indices", (double)total * bs2);
  arr->bsr  = bsr;
  arr->bs   = bs;
  arr->m    = m;
  arr->nnzb = (PetscInt)(bsr ? total : total * (size_t)bs2);
  PetscCall(PetscMalloc3(m + 1, &arr->rowptr, arr->nnzb, &arr->colind, (size_t)arr->nnzb * bs * bs, &arr->val));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt i = p % nx, j = (p / nx) % ny, k = p / (nx * ny), c = cnt[p];
    size_t         t = 0;

    if (bsr) arr->rowptr[p] = (int)start[p];
    else
      for (PetscInt a = 0; a < d; a++) arr->rowptr[p * d + a] = (int)(start[p] * bs2 + (size_t)a * c * d);
    for (PetscInt s = 0; s < ns; s++) {
      const PetscInt    *o   = st->off[s];
      const PetscScalar *blk = sm->val + ((size_t)s * N + p) * bs2;
      const PetscInt     q   = p + sm->shift[s];

      if (i + o[0] < 0 || i + o[0] >= nx || j + o[1] < 0 || j + o[1] >= ny || k + o[2] < 0 || k + o[2] >= nz) continue;
      if (bsr) {
        const size_t e = start[p] + t;

        arr->colind[e] = (int)q;
        for (PetscInt a = 0; a < d; a++)
          for (PetscInt b = 0; b < d; b++) arr->val[e * bs2 + (size_t)b * d + a] = blk[a * d + b];
      } else
        for (PetscInt a = 0; a < d; a++)
          for (PetscInt b = 0; b < d; b++) {
            const size_t e = start[p] * bs2 + (size_t)a * c * d + t * d + b;

            arr->colind[e] = (int)(q * d + b);
            arr->val[e]    = blk[a * d + b];
          }
      t++;
    }
  }
  arr->rowptr[m] = (int)arr->nnzb;
  PetscCall(PetscFree3(start, cnt, lcnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's ILU(0) in natural ordering of the CSR arrays on the host: xref = (LU)^{-1} b */
static PetscErrorCode PerfReference(const GILUCuSparseArrays *arr, const PetscScalar *b, PetscScalar *xref)
{
  const PetscInt n = arr->m;
  PetscInt      *ia, *ja;
  Mat            A, F;
  Vec            vb, vx;
  IS             row, col;
  MatFactorInfo  info;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, &ia, arr->nnzb, &ja));
  for (PetscInt r = 0; r <= n; r++) ia[r] = arr->rowptr[r];
  for (PetscInt e = 0; e < arr->nnzb; e++) ja[e] = arr->colind[e];
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, ia, ja, arr->val, &A));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = 0;
  info.fill   = 1.0;
  PetscCall(MatILUFactorSymbolic(F, A, row, col, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, b, &vb));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, xref, &vx));
  PetscCall(MatSolve(F, vb, vx));
  PetscCall(VecDestroy(&vb));
  PetscCall(VecDestroy(&vx));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree2(ia, ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUPerfDeviceMem(PetscGILUBackendType ran, PetscInt what, void **d, void *h, size_t bytes)
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

PetscErrorCode GILUPerfDeviceSync(PetscGILUBackendType ran)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_CUDA)
  if (ran == PETSCGILU_BACKEND_CUDA) PetscCall(GILUDeviceSynchronize());
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  if (ran == PETSCGILU_BACKEND_CUDAEMU) PetscCall(GILUDeviceSynchronize_cudaemu());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUPerfDeviceInfo - the device of a back-end as the kernel benchmark reports it

  Not Collective

  Input Parameter:
. ran - `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Output Parameters:
+ name    - the device's name
. memGB   - its memory in GB
. peakGBs - peak memory bandwidth from the memory clock and the bus width (double data rate), GB/s
- copyGBs - a measured device-to-device copy of 1 GiB, bytes read and written per second, GB/s

  Level: developer

.seealso: `PetscGILUPerfRun()`
@*/
PetscErrorCode PetscGILUPerfDeviceInfo(PetscGILUBackendType ran, char name[], size_t len, double *memGB, double *peakGBs, double *copyGBs)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_CUDA)
  if (ran == PETSCGILU_BACKEND_CUDA) {
    PetscCall(GILUPerfDeviceInfo(name, len, memGB, peakGBs, copyGBs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  if (ran == PETSCGILU_BACKEND_CUDAEMU) {
    PetscCall(GILUPerfDeviceInfo_cudaemu(name, len, memGB, peakGBs, copyGBs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No device for the back-end %s in this build", PetscGILUBackendTypes[ran]);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* t[0..k-1] -> out[0] the smallest, out[1] the median */
void GILUPerfMinMedian(double *t, PetscInt k, double out[2])
{
  qsort(t, (size_t)k, sizeof(double), CompareDouble);
  out[0] = t[0];
  out[1] = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

#if defined(PETSCGILU_HAVE_CUDA)
/* cuSPARSE's compulsory bytes (see the head comment): entries (blocks) nnz, of them nlow strictly lower, bs, m block rows */
static void CuSparseBytes(const GILUCuSparseArrays *arr, size_t nlow, double bytes[3])
{
  const double e = 8.0 * arr->bs * arr->bs + 4.0, n = (double)arr->m * arr->bs, rows = 4.0 * (arr->m + 1);

  bytes[0] = e * (double)nlow + rows + 16.0 * n;
  bytes[1] = e * (double)(arr->nnzb - nlow) + rows + 16.0 * n;
  bytes[2] = (16.0 * arr->bs * arr->bs + 4.0) * (double)arr->nnzb + rows;
}
#endif

/* one cuSPARSE format: arrays, the reference (check), the benchmark; frees the arrays before the device's work */
static PetscErrorCode PerfCuSparse(PetscGILUBackendType ran, const PetscGILUPerfCase *c, const GILUStencilMat *sm, PetscBool bsr, const PetscScalar *b, const PetscScalar *x, PetscScalar *y, PetscGILUPerfResult *r)
{
  GILUCuSparseArrays arr;
  size_t             nlow = 0;
  PetscLogDouble     t0, t1;
  const PetscInt     n = sm->npoints * sm->grid.dof;

  PetscFunctionBegin;
  if (!(ran == PETSCGILU_BACKEND_CUDA && (bsr ? c->bsr : c->csr)) && !(c->check && !bsr)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t0));
  PetscCall(PerfArrays(sm, bsr, &arr, &nlow));
  PetscCall(PetscTime(&t1));
  r->hosts[2] += t1 - t0;
  if (!bsr && c->check) {
    PetscCall(PerfReference(&arr, b, y));
    PetscCall(PetscTime(&t0));
    r->hosts[3] = t0 - t1;
    r->diffref  = PetscGILUTestArrayRelDiff(n, x, y);
  }
  if (ran == PETSCGILU_BACKEND_CUDA && (bsr ? c->bsr : c->csr)) {
#if defined(PETSCGILU_HAVE_CUDA)
    GILUCuSparse cs;
    PetscInt     zr;

    CuSparseBytes(&arr, nlow, bsr ? r->bsrbytes : r->csbytes);
    PetscCall(GILUCuSparseCreateFromArrays(&arr, &cs));
    PetscCall(GILUCuSparseArraysDestroy(&arr));
    PetscCall(GILUCuSparseBenchmark(cs, c->freps, c->sreps, b, y, bsr ? &r->bsr : &r->csr, &zr));
    PetscCall(GILUCuSparseDestroy(&cs));
    PetscCheck(zr < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "cuSPARSE found a zero pivot in row %" PetscInt_FMT " of a diagonally dominant matrix", zr);
    if (bsr) {
      r->hasbsr  = PETSC_TRUE;
      r->diffbsr = PetscGILUTestArrayRelDiff(n, x, y);
    } else {
      r->hascsr  = PETSC_TRUE;
      r->diffcsr = PetscGILUTestArrayRelDiff(n, x, y);
    }
#endif
  }
  PetscCall(GILUCuSparseArraysDestroy(&arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUPerfRun - one case of the kernel benchmark (make gpu-perf): PCSTRUCTILU's device factorization and sweeps,
  and on a CUDA device cuSPARSE's ILU(0) as CSR and BSR, with kernel times, compulsory bytes and the performance model

  Not Collective

  Input Parameters:
+ ran - `PETSCGILU_BACKEND_CUDA` (a device: times of the kernels) or `PETSCGILU_BACKEND_CUDAEMU` (the emulation: the
        logic, at small sizes; no cuSPARSE)
- c   - the case

  Output Parameter:
. r - plan, bytes, times (milliseconds; events on the device, the emulation's wall clock), the differences between the
      solutions

  Level: developer

.seealso: `PetscGILUPerfDeviceInfo()`
@*/
PetscErrorCode PetscGILUPerfRun(PetscGILUBackendType ran, const PetscGILUPerfCase *c, PetscGILUPerfResult *r)
{
  GILUStencilMat            sm;
  const StructILUDeviceOps *ops;
  StructILUDevice           dev;
  StructILUDeviceInfo       info;
  PetscInt                 *elim, n, N, d, nl, nu, zr = -1, rangerow;
  PetscScalar              *b, *x, *y;
  double                   *ft, *fw, *bw, *sw, *kw, ms[3], bsz, mbw, mlat, mlink, memGB, peak, copy;
  void                     *db, *dx;
  PetscLogDouble            t0, t1;
  char                      devname[256];
  PetscBool                 usedmma = PETSC_FALSE, h200;

  PetscFunctionBegin;
  PetscCheck(c->freps >= 1 && c->sreps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "At least one timed factorization and solve");
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(PetscMemzero(&info, sizeof(info)));
  r->diffcsr = r->diffbsr = r->diffref = -1;
  r->zerorow                           = -1;
  PetscCall(PetscTime(&t0));
  PetscCall(PerfAssemble(c, &sm));
  PetscCall(PetscTime(&t1));
  r->hosts[0] = t1 - t0;
  N           = sm.npoints;
  d           = sm.grid.dof;
  n           = N * d;
  nl          = sm.stencil.nlower;
  nu          = sm.stencil.ns - nl - 1;
  r->ns       = sm.stencil.ns;
  r->nlower   = nl;
  r->unknowns = (double)n;
  bsz         = 8.0 * (double)N * sm.bs2;
  r->bytes[0] = nl * bsz + 16.0 * n;
  r->bytes[1] = (nu + 1) * bsz + 16.0 * n;
  r->bytes[2] = (2 * sm.stencil.ns + 1) * bsz;
  PetscCall(PetscMalloc3(n, &b, n, &x, n, &y));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt t = 0; t < n; t++) b[t] = 1.0 + Hash01((uint64_t)t + 0x5eedULL);

  /* StructILU through its device API */
  PetscCall(StructILUDeviceGetBackendOps(ran, &ops));
  PetscCall(PetscTime(&t0));
  PetscCall(ops->create(&sm, (StructILUCUDAMapping)c->mapping, c->tilepoints, 0, PETSC_FALSE, &dev, &info));
  PetscCall(PetscTime(&t1));
  r->hosts[1] = t1 - t0;
  r->nlevels  = info.nlevels;
  r->ntiles   = c->mapping == STRUCTILU_CUDA_MAPPING_LINES ? info.nblocks : info.ntiles;
  r->nstage   = info.nstage;
  r->steps    = StructILUModelSteps(&info);
  for (PetscInt t = 0; t < 3; t++) r->w[t] = info.w[t];
  PetscCall(GILUStencilGetEliminationTable(&sm.stencil, &elim));
  PetscCall(ops->timing(dev, PETSC_TRUE));
  PetscCall(PetscMalloc5(c->freps, &ft, c->sreps, &fw, c->sreps, &bw, c->sreps, &sw, c->sreps, &kw));
  for (PetscInt k = 0; k < c->freps && zr < 0; k++) {
    PetscCall(ops->factor(dev, &sm, elim, NULL, 100.0 * PETSC_MACHINE_EPSILON, PETSC_FALSE, c->mma, PETSC_FALSE, &zr, &usedmma, &rangerow));
    PetscCall(ops->kerneltimes(dev, ms));
    ft[k] = ms[2];
  }
  r->zerorow = zr;
  r->usedmma = usedmma;
  PetscCall(PetscFree(elim));
  if (zr < 0) {
    const PetscInt m = PetscMax(1, c->columns);

    PetscCall(ops->buffers(dev, m, &db, &dx)); /* m columns of b (each the same) and x; the single solves use the first */
    for (PetscInt j = 0; j < m; j++) {
      void *dbj = (PetscScalar *)db + j * n;

      PetscCall(GILUPerfDeviceMem(ran, 2, &dbj, (void *)b, sizeof(PetscScalar) * (size_t)n));
    }
    for (PetscInt k = 0; k < c->sreps; k++) {
      PetscCall(PetscTime(&t0));
      PetscCall(ops->solve(dev, (const PetscScalar *)db, (PetscScalar *)dx)); /* returns after the kernels completed */
      PetscCall(PetscTime(&t1));
      sw[k] = 1e3 * (t1 - t0);
      PetscCall(ops->kerneltimes(dev, ms));
      fw[k] = ms[0];
      bw[k] = ms[1];
    }
    PetscCall(GILUPerfDeviceMem(ran, 3, &dx, x, sizeof(PetscScalar) * (size_t)n));
    GILUPerfMinMedian(ft, c->freps, r->ms[2]);
    GILUPerfMinMedian(fw, c->sreps, r->ms[0]);
    GILUPerfMinMedian(bw, c->sreps, r->ms[1]);
    if (c->columns > 0) { /* the block: every column must be the single solve's x, bitwise */
      PetscScalar *xj;

      for (PetscInt k = 0; k < c->sreps; k++) {
        PetscCall(PetscTime(&t0));
        PetscCall(ops->solvemultiple(dev, m, (const PetscScalar *)db, n, (PetscScalar *)dx, n, &r->group));
        PetscCall(PetscTime(&t1));
        kw[k] = 1e3 * (t1 - t0);
      }
      GILUPerfMinMedian(sw, c->sreps, r->solvewall);
      GILUPerfMinMedian(kw, c->sreps, r->blockwall);
      PetscCall(PetscMalloc1(n, &xj));
      r->blockequal = PETSC_TRUE;
      for (PetscInt j = 0; j < m; j++) {
        void     *dxj = (PetscScalar *)dx + j * n;
        PetscBool eq;

        PetscCall(GILUPerfDeviceMem(ran, 3, &dxj, xj, sizeof(PetscScalar) * (size_t)n));
        PetscCall(PetscArraycmp(xj, x, n, &eq));
        r->blockequal = (PetscBool)(r->blockequal && eq);
      }
      PetscCall(PetscFree(xj));
    }
  }
  PetscCall(PetscFree5(ft, fw, bw, sw, kw));
  PetscCall(ops->destroy(&dev));

  /* the model of one apply as -ksp_view prints it (factors: L, U and the inverted diagonal; 5 vector passes), for the
     model GPU nearest the device */
  PetscCall(PetscGILUPerfDeviceInfo(ran, devname, sizeof(devname), &memGB, &peak, &copy));
  h200 = (PetscBool)(strstr(devname, "H200") != NULL);
  StructILUModelGPU(h200 ? 1 : 0, &mbw, &mlat, &mlink);
  PetscCall(PetscStrncpy(r->modelgpu, h200 ? "h200" : "h100", sizeof(r->modelgpu)));
  r->modelus = StructILUModelDeviceTime(r->steps, (nl + nu + 1) * bsz + 8.0 * n * 5, mbw, mlat);

  /* cuSPARSE (a device) and the host reference (check) */
  if (zr < 0) {
    PetscCall(PerfCuSparse(ran, c, &sm, PETSC_FALSE, b, x, y, r));
    if (d > 1 && ran == PETSCGILU_BACKEND_CUDA && c->bsr) PetscCall(PerfCuSparse(ran, c, &sm, PETSC_TRUE, b, x, y, r));
  }
  PetscCall(PetscFree3(b, x, y));
  PetscCall(PerfStencilMatDestroy(&sm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
