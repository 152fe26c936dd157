/*
   The device layer: discovery, memory and copies. A build with CUDA runs on machines without a GPU or driver:
   any error from the runtime at discovery means "no device", and nothing here creates a CUDA context unless a
   back-end that needs the device was chosen (PetscGILUBackendResolve() checked that one exists).

   Memory is plain cudaMalloc (never managed memory). Copies are synchronous and logged: the events GILUCopyToGPU
   and GILUCopyToCPU of -log_view, and PetscLogCpuToGpu()/PetscLogGpuToCpu() (counted only by a PETSc built with
   a device; Debian's is not). In the emulated build (the _cudaemu names) there is one device, the emulated one,
   whose memory is host memory: the same calls, the same logging.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>

PetscErrorCode GILU_CUDA_NAME(PetscGILUGetDeviceCount_CUDA)(PetscInt *count)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky error: no driver or no device */
    n = 0;
  }
  *count = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceGetName)(char name[], size_t len)
{
  PetscFunctionBegin;
#if defined(GILU_CUDAEMU)
  {
    int dev = 0, n = 1;

    GILU_CUDA_CHECK(cudaGetDevice(&dev));
    GILU_CUDA_CHECK(cudaGetDeviceCount(&n));
    if (n > 1) PetscCall(PetscSNPrintf(name, len, "emulated device %d of %d", dev, n));
    else PetscCall(PetscSNPrintf(name, len, "emulated device"));
  }
#else
  {
    int            dev;
    cudaDeviceProp prop;

    GILU_CUDA_CHECK(cudaGetDevice(&dev));
    GILU_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    PetscCall(PetscSNPrintf(name, len, "device %d: %s, %d SMs, %.0f GiB", dev, prop.name, prop.multiProcessorCount, (double)prop.totalGlobalMem / 1073741824.0));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The device of this process, chosen once per process by every device Create (StructILU, stencilgpu, cuSPARSE,
  sptrsv, FGDD, ATS-ILU): (rank of the process on its node) mod (devices), so that the ranks of a multi-GPU node
  spread over its GPUs whatever the placement of the ranks across nodes. The rank on the node was found when the
  package was initialized (GILUNodeRank, collective on PETSC_COMM_WORLD there): this is not collective, so a device
  object may be set up on any subset of the processes.
*/
PetscErrorCode GILU_CUDA_NAME(GILUDeviceSelect)(void)
{
  static PetscBool selected = PETSC_FALSE;
  int              n = 0, device = 0;

  PetscFunctionBegin;
  if (selected) PetscFunctionReturn(PETSC_SUCCESS);
  GILU_CUDA_CHECK(cudaGetDeviceCount(&n));
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_GPU, "No CUDA device");
  device = (int)(GILUNodeRank % n);
  GILU_CUDA_CHECK(cudaSetDevice(device));
  selected = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceMalloc)(size_t bytes, void **p)
{
  PetscFunctionBegin;
  *p = NULL;
  GILU_CUDA_CHECK(cudaMalloc(p, bytes ? bytes : 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceFree)(void **p)
{
  PetscFunctionBegin;
  if (*p) GILU_CUDA_CHECK(cudaFree(*p));
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceMemset)(void *p, int v, size_t bytes)
{
  PetscFunctionBegin;
  if (bytes) GILU_CUDA_CHECK(cudaMemset(p, v, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceCopyToDevice)(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(GILU_CopyToGPU, 0, 0, 0, 0));
  GILU_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscCall(PetscLogEventEnd(GILU_CopyToGPU, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUDeviceCopyToHost)(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(GILU_CopyToCPU, 0, 0, 0, 0));
  GILU_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
  PetscCall(PetscLogEventEnd(GILU_CopyToCPU, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host waits until the device finished everything queued (for a consumer on a stream not ordered after the default one) */
PetscErrorCode GILU_CUDA_NAME(GILUDeviceSynchronize)(void)
{
  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const GILUDeviceOps DeviceOps = {GILU_CUDA_NAME(GILUDeviceGetName), GILU_CUDA_NAME(GILUDeviceCopyToDevice), GILU_CUDA_NAME(GILUDeviceCopyToHost), GILU_CUDA_NAME(GILUDeviceSelect),
                                        GILU_CUDA_NAME(GILUDeviceMalloc),  GILU_CUDA_NAME(GILUDeviceFree),         GILU_CUDA_NAME(GILUDeviceSynchronize)};

PetscErrorCode GILU_CUDA_NAME(GILUDeviceGetOps)(const GILUDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
