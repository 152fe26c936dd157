/*
   The cuSPARSE baselines: ILU(0) of a SEQAIJ matrix (CSR: csrilu02, then the generic SpSV for L and U) or of a
   SEQBAIJ matrix (BSR: bsrilu02, then bsrsv2 for L and U), on the device, with the triangular solves of both
   factors. ILU(0) in natural ordering: the factors of PETSc's ILU(0) and of PCSTRUCTILU, so a solve gives their
   results to round-off. The benchmarks compare against them in the same run; the GPU tests check them.

   Only with a real device: in the emulated build (the _cudaemu names) every entry point returns
   PETSC_ERR_SUP "not available in the emulation" (cuSPARSE is a library of device code, not a kernel source the
   emulation can run). cuSPARSE calls are checked (GILU_CUSPARSE_CHECK: a cusparseStatus_t -> a PETSc error).
   csrilu02, bsrilu02 and bsrsv2 are deprecated in CUDA 12/13 but present; DISABLE_CUSPARSE_DEPRECATED keeps
   their deprecation warnings out of the -Werror build.

   The arrays handed to cuSPARSE (rowptr, colind, values; CSR or BSR) are built on the host by
   GILUCuSparseArraysCreate() (src/test/cusparse.c, every build), which tests/ex12.c checks without a device, or by
   the kernel benchmark straight from a stencil matrix (src/test/perf.c; GILUCuSparseCreateFromArrays()).
   GILUCuSparseBenchmark() times the phases on the device alone with CUDA events (make gpu-perf, tests/ex20.c): the
   factorization's analysis and numeric phase, the solves' analysis, the lower and the upper triangular solve.
   Part of the test library (petscgilutest.h): device memory and the device choice are the library's (backend.h).
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include <petscgilutest.h>
#include <petscmat.h>

#if defined(GILU_CUDAEMU)
  #define GILU_CUSPARSE_EMU_ERROR SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuSPARSE baselines are not available in the emulation (cudaemu): they need a CUDA device (-gilu_backend cuda)")

PetscErrorCode GILU_CUDA_NAME(GILUCuSparseCreate)(Mat A, GILUCuSparse *cs)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseFactor)(GILUCuSparse cs, PetscInt *zerorow)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseSolve)(GILUCuSparse cs, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseSolveDevice)(GILUCuSparse cs, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseDestroy)(GILUCuSparse *cs)
{
  PetscFunctionBegin;
  PetscCheck(!*cs, PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuSPARSE baselines are not available in the emulation (cudaemu)");
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseCreateFromArrays)(const GILUCuSparseArrays *h, GILUCuSparse *cs)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}
PetscErrorCode GILU_CUDA_NAME(GILUCuSparseBenchmark)(GILUCuSparse cs, PetscInt freps, PetscInt sreps, const PetscScalar *b, PetscScalar *x, GILUCuSparseTimes *t, PetscInt *zerorow)
{
  PetscFunctionBegin;
  GILU_CUSPARSE_EMU_ERROR;
}

#else
  #define DISABLE_CUSPARSE_DEPRECATED
  #include <cusparse.h>

  #define GILU_CUSPARSE_CHECK(call) \
    do { \
      cusparseStatus_t gilu_cusparse_st_ = (call); \
      PetscCheck(gilu_cusparse_st_ == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "%s failed: %s (%d)", #call, cusparseGetErrorString(gilu_cusparse_st_), (int)gilu_cusparse_st_); \
    } while (0)

struct _n_GILUCuSparse {
  cusparseHandle_t   handle;
  cusparseMatDescr_t descr, descrL, descrU; /* descrL/U: BSR's bsrsv2 */
  PetscInt           m, bs, nnzb;           /* block rows, block size (1: CSR), stored blocks */
  int               *rowptr, *colind;       /* device */
  double            *val, *x, *y, *t;       /* device: values (factored in place), vectors */
  PetscBool          bsr;
  void              *buffer; /* device work of the analyses and solves */
  size_t             bufsize;
  /* CSR */
  csrilu02Info_t       iluinfo;
  cusparseSpMatDescr_t matL, matU;
  cusparseDnVecDescr_t vecX, vecY, vecT;
  cusparseSpSVDescr_t  spsvL, spsvU;
  void                *bufL, *bufU;
  /* BSR */
  bsrilu02Info_t bsriluinfo;
  bsrsv2Info_t   infoL, infoU;
  PetscBool      analyzed;
  cudaEvent_t    ev[2]; /* GILUCuSparseBenchmark(): around each timed phase */
};

/* the milliseconds of a phase on the device: the events around what the caller ran after TimerStart() */
static PetscErrorCode TimerStart(GILUCuSparse cs)
{
  PetscFunctionBegin;
  if (!cs->ev[0]) {
    GILU_CUDA_CHECK(cudaEventCreate(&cs->ev[0]));
    GILU_CUDA_CHECK(cudaEventCreate(&cs->ev[1]));
  }
  GILU_CUDA_CHECK(cudaEventRecord(cs->ev[0], 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode TimerStop(GILUCuSparse cs, double *ms)
{
  float t;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaEventRecord(cs->ev[1], 0));
  GILU_CUDA_CHECK(cudaEventSynchronize(cs->ev[1]));
  GILU_CUDA_CHECK(cudaEventElapsedTime(&t, cs->ev[0], cs->ev[1]));
  *ms = (double)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a device buffer of at least bytes */
static PetscErrorCode Buffer(GILUCuSparse cs, size_t bytes)
{
  PetscFunctionBegin;
  if (bytes <= cs->bufsize) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUDeviceFree(&cs->buffer));
  PetscCall(GILUDeviceMalloc(bytes, &cs->buffer));
  cs->bufsize = bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUCuSparseCreate(Mat A, GILUCuSparse *csp)
{
  GILUCuSparseArrays h;

  PetscFunctionBegin;
  PetscCall(GILUCuSparseArraysCreate(A, &h)); /* the full graph (never inode-compressed), checked against A's sizes */
  PetscCall(GILUCuSparseCreateFromArrays(&h, csp));
  PetscCall(GILUCuSparseArraysDestroy(&h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the arrays copied to the device (h may be freed after) */
PetscErrorCode GILUCuSparseCreateFromArrays(const GILUCuSparseArrays *h, GILUCuSparse *csp)
{
  GILUCuSparse cs;
  size_t       nval;

  PetscFunctionBegin;
  PetscCall(GILUDeviceSelect());
  PetscCall(PetscNew(&cs));
  cs->bsr  = h->bsr;
  cs->bs   = h->bs;
  cs->m    = h->m;
  cs->nnzb = h->nnzb;
  nval     = (size_t)h->nnzb * h->bs * h->bs;
  PetscCall(GILUDeviceMalloc(sizeof(int) * (size_t)(h->m + 1), (void **)&cs->rowptr));
  PetscCall(GILUDeviceCopyToDevice(cs->rowptr, h->rowptr, sizeof(int) * (size_t)(h->m + 1)));
  PetscCall(GILUDeviceMalloc(sizeof(int) * (size_t)h->nnzb, (void **)&cs->colind));
  PetscCall(GILUDeviceCopyToDevice(cs->colind, h->colind, sizeof(int) * (size_t)h->nnzb));
  PetscCall(GILUDeviceMalloc(sizeof(double) * nval, (void **)&cs->val));
  PetscCall(GILUDeviceCopyToDevice(cs->val, h->val, sizeof(double) * nval));
  PetscCall(GILUDeviceMalloc(sizeof(double) * (size_t)cs->m * cs->bs, (void **)&cs->x));
  PetscCall(GILUDeviceMalloc(sizeof(double) * (size_t)cs->m * cs->bs, (void **)&cs->y));
  PetscCall(GILUDeviceMalloc(sizeof(double) * (size_t)cs->m * cs->bs, (void **)&cs->t));
  GILU_CUSPARSE_CHECK(cusparseCreate(&cs->handle));
  GILU_CUSPARSE_CHECK(cusparseCreateMatDescr(&cs->descr));
  GILU_CUSPARSE_CHECK(cusparseSetMatIndexBase(cs->descr, CUSPARSE_INDEX_BASE_ZERO));
  GILU_CUSPARSE_CHECK(cusparseSetMatType(cs->descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  *csp = cs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AnalyzeSolves(GILUCuSparse);

/* the factorization's analysis; *zerorow: a (block) row without its diagonal, or -1 */
static PetscErrorCode FactorAnalysis(GILUCuSparse cs, PetscInt *zerorow)
{
  const int                   m = (int)cs->m, nnzb = (int)cs->nnzb, bs = (int)cs->bs;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const cusparseDirection_t   dir    = CUSPARSE_DIRECTION_COLUMN;
  int                         size, pivot = -1;
  cusparseStatus_t            st;

  PetscFunctionBegin;
  if (!cs->bsr) {
    if (!cs->iluinfo) GILU_CUSPARSE_CHECK(cusparseCreateCsrilu02Info(&cs->iluinfo));
    GILU_CUSPARSE_CHECK(cusparseDcsrilu02_bufferSize(cs->handle, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, cs->iluinfo, &size));
    PetscCall(Buffer(cs, (size_t)size));
    GILU_CUSPARSE_CHECK(cusparseDcsrilu02_analysis(cs->handle, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, cs->iluinfo, policy, cs->buffer));
    st = cusparseXcsrilu02_zeroPivot(cs->handle, cs->iluinfo, &pivot); /* structural: a row without its diagonal */
  } else {
    if (!cs->bsriluinfo) GILU_CUSPARSE_CHECK(cusparseCreateBsrilu02Info(&cs->bsriluinfo));
    GILU_CUSPARSE_CHECK(cusparseDbsrilu02_bufferSize(cs->handle, dir, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, bs, cs->bsriluinfo, &size));
    PetscCall(Buffer(cs, (size_t)size));
    GILU_CUSPARSE_CHECK(cusparseDbsrilu02_analysis(cs->handle, dir, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, bs, cs->bsriluinfo, policy, cs->buffer));
    st = cusparseXbsrilu02_zeroPivot(cs->handle, cs->bsriluinfo, &pivot); /* structural: a block row without its diagonal block */
  }
  *zerorow = st == CUSPARSE_STATUS_ZERO_PIVOT ? pivot : -1;
  if (st != CUSPARSE_STATUS_ZERO_PIVOT) GILU_CUSPARSE_CHECK(st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the numeric ILU(0) in place, after FactorAnalysis(); launches only (the zero pivot is asked by FactorPivot()) */
static PetscErrorCode FactorNumeric(GILUCuSparse cs)
{
  const int                   m = (int)cs->m, nnzb = (int)cs->nnzb, bs = (int)cs->bs;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const cusparseDirection_t   dir    = CUSPARSE_DIRECTION_COLUMN;

  PetscFunctionBegin;
  if (!cs->bsr) GILU_CUSPARSE_CHECK(cusparseDcsrilu02(cs->handle, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, cs->iluinfo, policy, cs->buffer));
  else GILU_CUSPARSE_CHECK(cusparseDbsrilu02(cs->handle, dir, m, nnzb, cs->descr, cs->val, cs->rowptr, cs->colind, bs, cs->bsriluinfo, policy, cs->buffer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *zerorow: the first (block) row with a zero pivot of the last FactorNumeric(), or -1 (waits for it) */
static PetscErrorCode FactorPivot(GILUCuSparse cs, PetscInt *zerorow)
{
  int              pivot = -1;
  cusparseStatus_t st    = cs->bsr ? cusparseXbsrilu02_zeroPivot(cs->handle, cs->bsriluinfo, &pivot) : cusparseXcsrilu02_zeroPivot(cs->handle, cs->iluinfo, &pivot);

  PetscFunctionBegin;
  *zerorow = st == CUSPARSE_STATUS_ZERO_PIVOT ? pivot : -1;
  if (st != CUSPARSE_STATUS_ZERO_PIVOT) GILU_CUSPARSE_CHECK(st);
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) in place; *zerorow: the first (block) row with a zero pivot, or -1 */
PetscErrorCode GILUCuSparseFactor(GILUCuSparse cs, PetscInt *zerorow)
{
  PetscFunctionBegin;
  PetscCall(FactorAnalysis(cs, zerorow));
  if (*zerorow < 0) {
    PetscCall(FactorNumeric(cs));
    PetscCall(FactorPivot(cs, zerorow));
  }
  if (*zerorow < 0 && !cs->analyzed) PetscCall(AnalyzeSolves(cs)); /* part of the setup: a solver's setup is timed apart from its solves */
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AnalyzeSolves(GILUCuSparse cs)
{
  const int                   m = (int)cs->m, nnzb = (int)cs->nnzb, bs = (int)cs->bs, n = m * bs;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const cusparseDirection_t   dir    = CUSPARSE_DIRECTION_COLUMN;
  const cusparseOperation_t   op     = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double                one    = 1.0;

  PetscFunctionBegin;
  if (!cs->bsr) {
    cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER, upper = CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t unit = CUSPARSE_DIAG_TYPE_UNIT, nonunit = CUSPARSE_DIAG_TYPE_NON_UNIT;
    size_t             sL, sU;

    GILU_CUSPARSE_CHECK(cusparseCreateCsr(&cs->matL, m, m, nnzb, cs->rowptr, cs->colind, cs->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    GILU_CUSPARSE_CHECK(cusparseSpMatSetAttribute(cs->matL, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof(lower)));
    GILU_CUSPARSE_CHECK(cusparseSpMatSetAttribute(cs->matL, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof(unit)));
    GILU_CUSPARSE_CHECK(cusparseCreateCsr(&cs->matU, m, m, nnzb, cs->rowptr, cs->colind, cs->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    GILU_CUSPARSE_CHECK(cusparseSpMatSetAttribute(cs->matU, CUSPARSE_SPMAT_FILL_MODE, &upper, sizeof(upper)));
    GILU_CUSPARSE_CHECK(cusparseSpMatSetAttribute(cs->matU, CUSPARSE_SPMAT_DIAG_TYPE, &nonunit, sizeof(nonunit)));
    GILU_CUSPARSE_CHECK(cusparseCreateDnVec(&cs->vecX, n, cs->x, CUDA_R_64F));
    GILU_CUSPARSE_CHECK(cusparseCreateDnVec(&cs->vecT, n, cs->t, CUDA_R_64F));
    GILU_CUSPARSE_CHECK(cusparseCreateDnVec(&cs->vecY, n, cs->y, CUDA_R_64F));
    GILU_CUSPARSE_CHECK(cusparseSpSV_createDescr(&cs->spsvL));
    GILU_CUSPARSE_CHECK(cusparseSpSV_createDescr(&cs->spsvU));
    GILU_CUSPARSE_CHECK(cusparseSpSV_bufferSize(cs->handle, op, &one, cs->matL, cs->vecX, cs->vecT, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvL, &sL));
    GILU_CUSPARSE_CHECK(cusparseSpSV_bufferSize(cs->handle, op, &one, cs->matU, cs->vecT, cs->vecY, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvU, &sU));
    PetscCall(GILUDeviceMalloc(sL, &cs->bufL));
    PetscCall(GILUDeviceMalloc(sU, &cs->bufU));
    GILU_CUSPARSE_CHECK(cusparseSpSV_analysis(cs->handle, op, &one, cs->matL, cs->vecX, cs->vecT, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvL, cs->bufL));
    GILU_CUSPARSE_CHECK(cusparseSpSV_analysis(cs->handle, op, &one, cs->matU, cs->vecT, cs->vecY, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvU, cs->bufU));
  } else {
    int sL, sU;

    GILU_CUSPARSE_CHECK(cusparseCreateMatDescr(&cs->descrL));
    GILU_CUSPARSE_CHECK(cusparseSetMatIndexBase(cs->descrL, CUSPARSE_INDEX_BASE_ZERO));
    GILU_CUSPARSE_CHECK(cusparseSetMatType(cs->descrL, CUSPARSE_MATRIX_TYPE_GENERAL));
    GILU_CUSPARSE_CHECK(cusparseSetMatFillMode(cs->descrL, CUSPARSE_FILL_MODE_LOWER));
    GILU_CUSPARSE_CHECK(cusparseSetMatDiagType(cs->descrL, CUSPARSE_DIAG_TYPE_UNIT));
    GILU_CUSPARSE_CHECK(cusparseCreateMatDescr(&cs->descrU));
    GILU_CUSPARSE_CHECK(cusparseSetMatIndexBase(cs->descrU, CUSPARSE_INDEX_BASE_ZERO));
    GILU_CUSPARSE_CHECK(cusparseSetMatType(cs->descrU, CUSPARSE_MATRIX_TYPE_GENERAL));
    GILU_CUSPARSE_CHECK(cusparseSetMatFillMode(cs->descrU, CUSPARSE_FILL_MODE_UPPER));
    GILU_CUSPARSE_CHECK(cusparseSetMatDiagType(cs->descrU, CUSPARSE_DIAG_TYPE_NON_UNIT));
    GILU_CUSPARSE_CHECK(cusparseCreateBsrsv2Info(&cs->infoL));
    GILU_CUSPARSE_CHECK(cusparseCreateBsrsv2Info(&cs->infoU));
    GILU_CUSPARSE_CHECK(cusparseDbsrsv2_bufferSize(cs->handle, dir, op, m, nnzb, cs->descrL, cs->val, cs->rowptr, cs->colind, bs, cs->infoL, &sL));
    GILU_CUSPARSE_CHECK(cusparseDbsrsv2_bufferSize(cs->handle, dir, op, m, nnzb, cs->descrU, cs->val, cs->rowptr, cs->colind, bs, cs->infoU, &sU));
    PetscCall(GILUDeviceMalloc((size_t)sL, &cs->bufL));
    PetscCall(GILUDeviceMalloc((size_t)sU, &cs->bufU));
    GILU_CUSPARSE_CHECK(cusparseDbsrsv2_analysis(cs->handle, dir, op, m, nnzb, cs->descrL, cs->val, cs->rowptr, cs->colind, bs, cs->infoL, policy, cs->bufL));
    GILU_CUSPARSE_CHECK(cusparseDbsrsv2_analysis(cs->handle, dir, op, m, nnzb, cs->descrU, cs->val, cs->rowptr, cs->colind, bs, cs->infoU, policy, cs->bufU));
  }
  cs->analyzed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* t = L^{-1} x (lower) or y = U^{-1} t, on the device vectors; launches only */
static PetscErrorCode SolveTriangle(GILUCuSparse cs, PetscBool lower)
{
  const int                   m = (int)cs->m, nnzb = (int)cs->nnzb, bs = (int)cs->bs;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const cusparseDirection_t   dir    = CUSPARSE_DIRECTION_COLUMN;
  const cusparseOperation_t   op     = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double                one    = 1.0;

  PetscFunctionBegin;
  if (!cs->bsr) {
    if (lower) GILU_CUSPARSE_CHECK(cusparseSpSV_solve(cs->handle, op, &one, cs->matL, cs->vecX, cs->vecT, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvL));
    else GILU_CUSPARSE_CHECK(cusparseSpSV_solve(cs->handle, op, &one, cs->matU, cs->vecT, cs->vecY, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, cs->spsvU));
  } else {
    if (lower) GILU_CUSPARSE_CHECK(cusparseDbsrsv2_solve(cs->handle, dir, op, m, nnzb, &one, cs->descrL, cs->val, cs->rowptr, cs->colind, bs, cs->infoL, cs->x, cs->t, policy, cs->bufL));
    else GILU_CUSPARSE_CHECK(cusparseDbsrsv2_solve(cs->handle, dir, op, m, nnzb, &one, cs->descrU, cs->val, cs->rowptr, cs->colind, bs, cs->infoU, cs->t, cs->y, policy, cs->bufU));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = U^{-1} L^{-1} b, host arrays */
PetscErrorCode GILUCuSparseSolve(GILUCuSparse cs, const PetscScalar *b, PetscScalar *x)
{
  const size_t n = (size_t)cs->m * cs->bs;

  PetscFunctionBegin;
  if (!cs->analyzed) PetscCall(AnalyzeSolves(cs));
  PetscCall(GILUDeviceCopyToDevice(cs->x, b, sizeof(double) * n));
  PetscCall(SolveTriangle(cs, PETSC_TRUE));
  PetscCall(SolveTriangle(cs, PETSC_FALSE));
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(GILUDeviceCopyToHost(x, cs->y, sizeof(double) * n));
  PetscCall(GILULogDeviceFlops(2.0 * (double)cs->nnzb * cs->bs * cs->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = U^{-1} L^{-1} b, b and x device arrays: launches on the default stream, no host wait (a KSP's next operation on x,
   queued on PETSc's stream, is ordered after them: PETSc's default stream is the legacy default stream, see
   src/sys/device-vec.c). b and x go through the factor's own vectors (two device copies, a few percent of one
   triangular solve's traffic) because SpSV's dense-vector descriptors are those of its analysis. */
PetscErrorCode GILUCuSparseSolveDevice(GILUCuSparse cs, const PetscScalar *b, PetscScalar *x)
{
  const size_t n = (size_t)cs->m * cs->bs;

  PetscFunctionBegin;
  if (!cs->analyzed) PetscCall(AnalyzeSolves(cs));
  GILU_CUDA_CHECK(cudaMemcpyAsync(cs->x, b, sizeof(double) * n, cudaMemcpyDeviceToDevice, 0));
  PetscCall(SolveTriangle(cs, PETSC_TRUE));
  PetscCall(SolveTriangle(cs, PETSC_FALSE));
  GILU_CUDA_CHECK(cudaMemcpyAsync(x, cs->y, sizeof(double) * n, cudaMemcpyDeviceToDevice, 0));
  PetscCall(GILULogDeviceFlops(2.0 * (double)cs->nnzb * cs->bs * cs->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* t[0] = the smallest, t[1] = the median of the k times t[0..k-1] */
static void MinMedian(double *t, PetscInt k)
{
  qsort(t, (size_t)k, sizeof(double), CompareDouble);
  t[1] = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

/*
  The kernel benchmark (make gpu-perf): times on the device alone (CUDA events, nothing of the host): the
  factorization's analysis, freps numeric factorizations (the values restored from a device copy in between, outside
  the events), the solves' analysis, then sreps of each triangular solve with b on the device; x = (LU)^{-1} b
  copied back to the host for the caller's check. Minimum and median over the repetitions.
*/
PetscErrorCode GILUCuSparseBenchmark(GILUCuSparse cs, PetscInt freps, PetscInt sreps, const PetscScalar *b, PetscScalar *x, GILUCuSparseTimes *t, PetscInt *zerorow)
{
  const size_t n = (size_t)cs->m * cs->bs, nval = (size_t)cs->nnzb * cs->bs * cs->bs;
  double      *orig = NULL, *ft, *lt, *ut;

  PetscFunctionBegin;
  PetscCheck(freps >= 1 && sreps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "At least one repetition of the factorization and of the solves, not %" PetscInt_FMT " and %" PetscInt_FMT, freps, sreps);
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscCall(PetscMalloc3(freps + 1, &ft, sreps + 1, &lt, sreps + 1, &ut));
  PetscCall(TimerStart(cs));
  PetscCall(FactorAnalysis(cs, zerorow));
  PetscCall(TimerStop(cs, &t->analysis));
  if (freps > 1) {
    PetscCall(GILUDeviceMalloc(sizeof(double) * nval, (void **)&orig));
    GILU_CUDA_CHECK(cudaMemcpy(orig, cs->val, sizeof(double) * nval, cudaMemcpyDeviceToDevice));
  }
  for (PetscInt r = 0; r < freps && *zerorow < 0; r++) {
    if (r) GILU_CUDA_CHECK(cudaMemcpy(cs->val, orig, sizeof(double) * nval, cudaMemcpyDeviceToDevice));
    PetscCall(TimerStart(cs));
    PetscCall(FactorNumeric(cs));
    PetscCall(TimerStop(cs, &ft[r]));
    PetscCall(FactorPivot(cs, zerorow));
  }
  PetscCall(GILUDeviceFree((void **)&orig));
  if (*zerorow < 0) {
    PetscCall(TimerStart(cs));
    PetscCall(AnalyzeSolves(cs));
    PetscCall(TimerStop(cs, &t->solveanalysis));
    PetscCall(GILUDeviceCopyToDevice(cs->x, b, sizeof(double) * n));
    for (PetscInt r = 0; r < sreps; r++) {
      PetscCall(TimerStart(cs));
      PetscCall(SolveTriangle(cs, PETSC_TRUE));
      PetscCall(TimerStop(cs, &lt[r]));
      PetscCall(TimerStart(cs));
      PetscCall(SolveTriangle(cs, PETSC_FALSE));
      PetscCall(TimerStop(cs, &ut[r]));
    }
    GILU_CUDA_CHECK(cudaDeviceSynchronize());
    PetscCall(GILUDeviceCopyToHost(x, cs->y, sizeof(double) * n));
    MinMedian(ft, freps);
    MinMedian(lt, sreps);
    MinMedian(ut, sreps);
    for (int k = 0; k < 2; k++) {
      t->factor[k] = ft[k];
      t->lower[k]  = lt[k];
      t->upper[k]  = ut[k];
    }
  }
  PetscCall(PetscFree3(ft, lt, ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUCuSparseDestroy(GILUCuSparse *csp)
{
  GILUCuSparse cs = *csp;

  PetscFunctionBegin;
  if (!cs) PetscFunctionReturn(PETSC_SUCCESS);
  if (cs->ev[0]) GILU_CUDA_CHECK(cudaEventDestroy(cs->ev[0]));
  if (cs->ev[1]) GILU_CUDA_CHECK(cudaEventDestroy(cs->ev[1]));
  if (cs->matL) GILU_CUSPARSE_CHECK(cusparseDestroySpMat(cs->matL));
  if (cs->matU) GILU_CUSPARSE_CHECK(cusparseDestroySpMat(cs->matU));
  if (cs->vecX) GILU_CUSPARSE_CHECK(cusparseDestroyDnVec(cs->vecX));
  if (cs->vecT) GILU_CUSPARSE_CHECK(cusparseDestroyDnVec(cs->vecT));
  if (cs->vecY) GILU_CUSPARSE_CHECK(cusparseDestroyDnVec(cs->vecY));
  if (cs->spsvL) GILU_CUSPARSE_CHECK(cusparseSpSV_destroyDescr(cs->spsvL));
  if (cs->spsvU) GILU_CUSPARSE_CHECK(cusparseSpSV_destroyDescr(cs->spsvU));
  if (cs->iluinfo) GILU_CUSPARSE_CHECK(cusparseDestroyCsrilu02Info(cs->iluinfo));
  if (cs->bsriluinfo) GILU_CUSPARSE_CHECK(cusparseDestroyBsrilu02Info(cs->bsriluinfo));
  if (cs->infoL) GILU_CUSPARSE_CHECK(cusparseDestroyBsrsv2Info(cs->infoL));
  if (cs->infoU) GILU_CUSPARSE_CHECK(cusparseDestroyBsrsv2Info(cs->infoU));
  if (cs->descrL) GILU_CUSPARSE_CHECK(cusparseDestroyMatDescr(cs->descrL));
  if (cs->descrU) GILU_CUSPARSE_CHECK(cusparseDestroyMatDescr(cs->descrU));
  if (cs->descr) GILU_CUSPARSE_CHECK(cusparseDestroyMatDescr(cs->descr));
  if (cs->handle) GILU_CUSPARSE_CHECK(cusparseDestroy(cs->handle));
  PetscCall(GILUDeviceFree((void **)&cs->rowptr));
  PetscCall(GILUDeviceFree((void **)&cs->colind));
  PetscCall(GILUDeviceFree((void **)&cs->val));
  PetscCall(GILUDeviceFree((void **)&cs->x));
  PetscCall(GILUDeviceFree((void **)&cs->y));
  PetscCall(GILUDeviceFree((void **)&cs->t));
  PetscCall(GILUDeviceFree(&cs->buffer));
  PetscCall(GILUDeviceFree(&cs->bufL));
  PetscCall(GILUDeviceFree(&cs->bufU));
  PetscCall(PetscFree(*csp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
