/*
   Vectors on the device for the cuda and cudaemu back-ends: the one place that decides whether a PETSc Vec's
   values reach the kernels without a copy or through a device buffer of the caller.

   - PETSc built with CUDA (PETSC_HAVE_CUDA), petscgilu built with CUDA, back-end cuda and a CUDA vector
     (VECSEQCUDA, VECMPICUDA, VECCUDA): the kernels read and write the vector's own device array
     (VecCUDAGetArrayRead()/VecCUDAGetArrayWrite()), no copy. Debian's PETSc has no CUDA: this branch is compiled
     and linked by make check-petsc-cuda against a PETSc built --with-cuda (PETSc 3.25 with CUDA 13, doc/building.md),
     and ran on an H100 (bench/results/gpu-krylov-2026-11-27-h100.md: no copy in 63-1172 applies); it uses PETSc's
     documented API (petscvec.h, the same in 3.18 and newer releases).
   - Otherwise (Debian's host-only PETSc, host vectors, or the emulation cudaemu): the input is copied into the
     caller's device buffer and the result back from it in each apply, through GILUDeviceCopyToDevice/ToHost of
     the back-end's build, which log the copies (events GILUCopyToGPU / GILUCopyToCPU of -log_view).

   Components do not take device arrays themselves: GILUVecApplyDevice() (at the end) gets them, runs the
   component's apply and restores them, so that this choice and its copies are written once.
*/
#include <petscgilu/private/backend.h>
#include <petscgilu/private/compat.h>
#include <petscdevice.h>

#if defined(PETSC_HAVE_CUDA) && defined(PETSCGILU_HAVE_CUDA)
  #define GILU_VEC_NATIVE_CUDA 1
#endif

#if defined(GILU_VEC_NATIVE_CUDA)
/*
  Whether PETSc's current stream and the default stream our kernels are queued on (GILU_LAUNCH with stream 0, the legacy
  default stream: nvcc builds without --default-stream per-thread) are ordered without the host: PETSc's default stream
  type (PETSC_STREAM_DEFAULT, its default) is the NULL stream, the same queue, so PETSc's operations before the apply
  run before our kernels and its operations on y after them: no synchronization at all. Another stream (e.g.
  -root_device_context_stream_type nonblocking) may be a non-blocking one, which the default stream does not order:
  then the host waits for PETSc's stream before the kernels and for the device after them.
*/
static PetscErrorCode GILUPetscStreamOrdered(PetscBool *ordered)
{
  PetscFunctionBegin;
  *ordered = PETSC_FALSE;
  #if PETSC_VERSION_GE(3, 19, 0) /* PetscDeviceContextGetStreamHandle(); before it: the host waits, as always */
  {
    PetscDeviceContext dctx;
    void              *handle = NULL;

    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle)); /* a pointer to PETSc's cudaStream_t */
    *ordered = (PetscBool)(!handle || !*(void **)handle);
  }
  #endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* whether the kernels use v's own device array (nothing copied): a CUDA vector on the cuda back-end of a CUDA-enabled PETSc */
PetscErrorCode GILUVecIsDeviceNative(Vec v, PetscGILUBackendType backend, PetscBool *native)
{
  PetscFunctionBegin;
  *native = PETSC_FALSE;
#if defined(GILU_VEC_NATIVE_CUDA)
  if (backend == PETSCGILU_BACKEND_CUDA) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, native, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
#else
  (void)v;
  (void)backend;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device functions of the back-end's build */
static PetscErrorCode GILUBackendGetDevice(PetscGILUBackendType backend, const GILUDeviceOps **ops)
{
  PetscFunctionBegin;
  PetscCheck(backend == PETSCGILU_BACKEND_CUDA || backend == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "No device for the back-end %s", PetscGILUBackendTypes[backend]);
  GILUBackendGetDeviceOps(backend, GILUDeviceGetOps, ops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GILU_VEC_NATIVE_CUDA)
/* before our kernels read an array PETSc's stream produced: the host waits for PETSc's stream unless the default stream orders it */
static PetscErrorCode GILUDeviceOrderAfterPetsc(void)
{
  PetscBool ordered;

  PetscFunctionBegin;
  PetscCall(GILUPetscStreamOrdered(&ordered));
  if (!ordered) {
    PetscDeviceContext dctx;

    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after our kernels wrote an array PETSc's next operation reads: PETSc's stream may be one the default stream does not
   order, then the host waits for the device here */
static PetscErrorCode GILUDeviceOrderBeforePetsc(PetscGILUBackendType backend)
{
  PetscBool ordered;

  PetscFunctionBegin;
  PetscCall(GILUPetscStreamOrdered(&ordered));
  if (!ordered) {
    const GILUDeviceOps *ops;

    PetscCall(GILUBackendGetDevice(backend, &ops));
    PetscCall(ops->synchronize());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the logged copies of the back-end's build */
static PetscErrorCode GILUDeviceCopy(PetscGILUBackendType backend, PetscBool todevice, void *dst, const void *src, size_t bytes)
{
  const GILUDeviceOps *ops;

  PetscFunctionBegin;
  PetscCall(GILUBackendGetDevice(backend, &ops));
  if (todevice) PetscCall(ops->copytodevice(dst, src, bytes));
  else PetscCall(ops->copytohost(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* device memory of the back-end, on the device of this process (GILUDeviceSelect()) */
PetscErrorCode GILUBackendDeviceMalloc(PetscGILUBackendType backend, size_t bytes, void **p)
{
  const GILUDeviceOps *ops;

  PetscFunctionBegin;
  PetscCall(GILUBackendGetDevice(backend, &ops));
  PetscCall(ops->select());
  PetscCall(ops->malloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUBackendDeviceFree(PetscGILUBackendType backend, void **p)
{
  const GILUDeviceOps *ops;

  PetscFunctionBegin;
  if (!*p) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUBackendGetDevice(backend, &ops));
  PetscCall(ops->free(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUBackendDeviceCopyToDevice(PetscGILUBackendType backend, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(GILUDeviceCopy(backend, PETSC_TRUE, dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUVecGetDeviceArrayRead - a device pointer to the local values of v for a kernel of the back-end (cuda or
  cudaemu): v's own device array (a CUDA vector with a CUDA-enabled PETSc, no copy), else buffer, a device array of
  at least the local size, into which v's values are copied (logged). Restore with GILUVecRestoreDeviceArrayRead().
  Only GILUVecApplyDevice() calls these four: it is the one apply path of every component.
*/
static PetscErrorCode GILUVecGetDeviceArrayRead(Vec v, PetscGILUBackendType backend, void *buffer, const PetscScalar **d)
{
  PetscBool          native;
  const PetscScalar *h;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(GILUVecIsDeviceNative(v, backend, &native));
#if defined(GILU_VEC_NATIVE_CUDA)
  if (native) {
    PetscCall(VecCUDAGetArrayRead(v, d)); /* asynchronous on PETSc's stream: our kernels must run after it */
    PetscCall(GILUDeviceOrderAfterPetsc());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCheck(!native, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Native device vectors need a PETSc and a petscgilu built with CUDA");
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayRead(v, &h));
  PetscCall(GILUDeviceCopy(backend, PETSC_TRUE, buffer, h, sizeof(PetscScalar) * (size_t)n));
  PetscCall(VecRestoreArrayRead(v, &h));
  *d = (const PetscScalar *)buffer;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GILUVecRestoreDeviceArrayRead(Vec v, PetscGILUBackendType backend, const PetscScalar **d)
{
  PetscBool native;

  PetscFunctionBegin;
  PetscCall(GILUVecIsDeviceNative(v, backend, &native));
#if defined(GILU_VEC_NATIVE_CUDA)
  if (native) PetscCall(VecCUDARestoreArrayRead(v, d));
#endif
  *d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUVecGetDeviceArrayWrite - a device pointer for the kernel to write the local values of v into (the previous
  values are not needed): v's own device array (a CUDA vector with a CUDA-enabled PETSc), else buffer, copied back
  into v (logged) by GILUVecRestoreDeviceArrayWrite() after the kernels queued on the default stream: the copy to the
  host waits for them (the one synchronization of an apply with host vectors).
*/
static PetscErrorCode GILUVecGetDeviceArrayWrite(Vec v, PetscGILUBackendType backend, void *buffer, PetscScalar **d)
{
  PetscBool native;

  PetscFunctionBegin;
  PetscCall(GILUVecIsDeviceNative(v, backend, &native));
#if defined(GILU_VEC_NATIVE_CUDA)
  if (native) {
    PetscCall(VecCUDAGetArrayWrite(v, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  *d = (PetscScalar *)buffer;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GILUVecRestoreDeviceArrayWrite(Vec v, PetscGILUBackendType backend, PetscScalar **d)
{
  PetscBool    native;
  PetscScalar *h;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(GILUVecIsDeviceNative(v, backend, &native));
#if defined(GILU_VEC_NATIVE_CUDA)
  if (native) {
    PetscCall(GILUDeviceOrderBeforePetsc(backend));
    PetscCall(VecCUDARestoreArrayWrite(v, d)); /* marks the host values out of date */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWrite(v, &h));
  PetscCall(GILUDeviceCopy(backend, PETSC_FALSE, h, *d, sizeof(PetscScalar) * (size_t)n));
  PetscCall(VecRestoreArrayWrite(v, &h));
  *d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUVecApplyDevice - y = op(x) by a device apply of the back-end (cuda or cudaemu): the one way every component
  (PCSTRUCTILU, PCFGDD, PCATSILU, MatSolverType gilu, MATSTENCILGPU) hands its vectors to its kernels.

  Input Parameters:
+ x, y    - the input and the output vector (their local values), distinct as in PCApply() and MatSolve()
. backend - cuda or cudaemu
. xbuf, ybuf - the caller's device buffers of at least the local sizes, used where the vectors are not native
. apply   - apply(ctx, xa, ya): the kernels on the device arrays, queued on the default stream; it may return before
            they completed (ya may be written in place, e.g. two triangular solves, the second from ya into ya)
- ctx     - the caller's context for apply

  Output Parameter:
. native - (optional) whether x's own device array was read (nothing copied in), for the views' copy accounting

  Notes:
  The arrays are those of GILUVecGetDeviceArrayRead/Write(): a CUDA vector's own device array with a CUDA-enabled
  PETSc, else the buffer with one logged copy each way (GILUCopyToGPU in, GILUCopyToCPU out).
*/
PetscErrorCode GILUVecApplyDevice(Vec x, Vec y, PetscGILUBackendType backend, void *xbuf, void *ybuf, PetscErrorCode (*apply)(void *, const PetscScalar *, PetscScalar *), void *ctx, PetscBool *native)
{
  const PetscScalar *xa = NULL; /* set by the Get calls; NULL quiets gcc, which cannot see that their error paths return nonzero */
  PetscScalar       *ya = NULL;

  PetscFunctionBegin;
  if (native) PetscCall(GILUVecIsDeviceNative(x, backend, native));
  PetscCall(GILUVecGetDeviceArrayRead(x, backend, xbuf, &xa));
  PetscCall(GILUVecGetDeviceArrayWrite(y, backend, ybuf, &ya));
  PetscCall((*apply)(ctx, xa, ya));
  PetscCall(GILUVecRestoreDeviceArrayWrite(y, backend, &ya));
  PetscCall(GILUVecRestoreDeviceArrayRead(x, backend, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the kernels use M's own device array: a CUDA dense matrix on the cuda back-end of a CUDA-enabled PETSc */
static PetscErrorCode GILUMatDenseIsDeviceNative(Mat M, PetscGILUBackendType backend, PetscBool *native)
{
  PetscFunctionBegin;
  *native = PETSC_FALSE;
#if defined(GILU_VEC_NATIVE_CUDA)
  if (backend == PETSCGILU_BACKEND_CUDA) PetscCall(PetscObjectTypeCompareAny((PetscObject)M, native, MATSEQDENSECUDA, MATMPIDENSECUDA, MATDENSECUDA, ""));
#else
  (void)M;
  (void)backend;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n rows of m columns between a host array of leading dimension ld and a packed device buffer: one copy when ld is n */
static PetscErrorCode GILUDeviceCopyColumns(PetscGILUBackendType backend, PetscBool todevice, PetscScalar *host, PetscInt ld, PetscScalar *dev, PetscInt n, PetscInt m)
{
  PetscFunctionBegin;
  if (ld == n) PetscCall(GILUDeviceCopy(backend, todevice, todevice ? (void *)dev : (void *)host, todevice ? (void *)host : (void *)dev, sizeof(PetscScalar) * (size_t)n * (size_t)m));
  else
    for (PetscInt c = 0; c < m; c++) PetscCall(GILUDeviceCopy(backend, todevice, todevice ? (void *)(dev + c * n) : (void *)(host + c * ld), todevice ? (void *)(host + c * ld) : (void *)(dev + c * n), sizeof(PetscScalar) * (size_t)n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUMatDenseApplyDevice - X = op(B) on every column of dense matrices by one device apply of the back-end (cuda or
  cudaemu): what GILUVecApplyDevice() is for a vector, for the blocks of right-hand sides of PCMatApply(),
  KSPMatSolve() and MatMatSolve().

  Input Parameters:
+ B, X    - a process's dense matrices (MATSEQDENSE, or MATSEQDENSECUDA), of the same sizes; X may be B (MatMatSolve() in
            place) where apply works in place
. backend - cuda or cudaemu
. bbuf, xbuf - the caller's device buffers of at least as many values as B has (its local rows times its columns),
            used where the matrices are not native
. apply   - apply(ctx, m, b, ldb, x, ldx): the kernels on the m columns of the device arrays b and x, queued on the
            default stream (it may return before they completed); b is x for a native X that is B (in place), else
            distinct
- ctx     - the caller's context for apply

  Output Parameter:
. native - (optional) whether B's own device array was read (nothing copied in)

  Notes:
  A CUDA dense matrix with a CUDA-enabled PETSc gives its own device array and leading dimension; otherwise the
  columns are copied into the packed buffer (leading dimension the local rows) and the result back, logged as
  GILUCopyToGPU / GILUCopyToCPU: one copy each way when the matrix's leading dimension is its row count. In place
  (X = B) the same: B's columns copied in before the apply, X's back after it; a native one is read and written where
  it is, by an apply in place.
*/
PetscErrorCode GILUMatDenseApplyDevice(Mat B, Mat X, PetscGILUBackendType backend, void *bbuf, void *xbuf, PetscErrorCode (*apply)(void *, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt), void *ctx, PetscBool *native)
{
  const PetscScalar *ba = NULL, *bh;
  PetscScalar       *xa = NULL, *xh;
  PetscInt           n, m, ldb, ldx, lb, lx; /* the matrices' leading dimensions, those of the arrays apply gets */
  PetscBool          bnative, xnative;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(B, &n, NULL));
  PetscCall(MatGetSize(B, NULL, &m));
  PetscCall(MatDenseGetLDA(B, &ldb));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(GILUMatDenseIsDeviceNative(B, backend, &bnative));
  PetscCall(GILUMatDenseIsDeviceNative(X, backend, &xnative));
  if (native) *native = bnative;
  lb = ldb;
  lx = ldx;
#if defined(GILU_VEC_NATIVE_CUDA)
  if (bnative && B == X) { /* in place: one array read and written */
    PetscCall(MatDenseCUDAGetArray(X, &xa));
    PetscCall(GILUDeviceOrderAfterPetsc());
    ba = xa;
  } else {
    if (bnative) {
      PetscCall(MatDenseCUDAGetArrayRead(B, &ba)); /* asynchronous on PETSc's stream, as a vector's */
      PetscCall(GILUDeviceOrderAfterPetsc());
    }
    if (xnative) PetscCall(MatDenseCUDAGetArrayWrite(X, &xa));
  }
#endif
  PetscCheck(!bnative || ba, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Native device matrices need a PETSc and a petscgilu built with CUDA");
  if (!bnative) {
    PetscCall(MatDenseGetArrayRead(B, &bh));
    PetscCall(GILUDeviceCopyColumns(backend, PETSC_TRUE, (PetscScalar *)bh, ldb, (PetscScalar *)bbuf, n, m));
    PetscCall(MatDenseRestoreArrayRead(B, &bh));
    ba = (const PetscScalar *)bbuf;
    lb = n;
  }
  if (!xnative) {
    xa = (PetscScalar *)xbuf;
    lx = n;
  }
  PetscCall((*apply)(ctx, m, ba, lb, xa, lx));
#if defined(GILU_VEC_NATIVE_CUDA)
  if (xnative) {
    PetscCall(GILUDeviceOrderBeforePetsc(backend));
    if (B == X) PetscCall(MatDenseCUDARestoreArray(X, &xa));
    else PetscCall(MatDenseCUDARestoreArrayWrite(X, &xa));
  }
  if (bnative && B != X) PetscCall(MatDenseCUDARestoreArrayRead(B, &ba));
#endif
  if (!xnative) {
    PetscCall(MatDenseGetArrayWrite(X, &xh));
    PetscCall(GILUDeviceCopyColumns(backend, PETSC_FALSE, xh, ldx, (PetscScalar *)xbuf, n, m));
    PetscCall(MatDenseRestoreArrayWrite(X, &xh));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
