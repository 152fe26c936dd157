/*
   What the kernel benchmark (src/test/perf.c, tests/ex20.c, make gpu-perf) reads of the device: its name, memory and
   peak memory bandwidth, read from the device (memory clock x bus width x 2, double data rate) and measured (the best
   of a few device-to-device copies of 1 GiB, timed with CUDA events, counting the bytes read and written).
   Part of the test library, built twice as every .cu: in the emulation the name is "cudaemu" and the bandwidths are 0
   (the emulated device's memory is the host's).
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include <petscgilutest.h>

#if defined(GILU_CUDAEMU)
PetscErrorCode GILU_CUDA_NAME(GILUPerfDeviceInfo)(char name[], size_t len, double *memGB, double *peakGBs, double *copyGBs)
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(name, "cudaemu (the emulation: no device)", len));
  *memGB   = 0;
  *peakGBs = 0;
  *copyGBs = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
PetscErrorCode GILU_CUDA_NAME(GILUPerfDeviceInfo)(char name[], size_t len, double *memGB, double *peakGBs, double *copyGBs)
{
  const size_t   bytes = (size_t)1 << 30;
  int            dev, clock, width;
  size_t         freeb, totalb;
  void          *a = NULL, *b = NULL;
  cudaEvent_t    e0, e1;
  float          ms, best = -1;
  cudaDeviceProp prop;

  PetscFunctionBegin;
  PetscCall(GILUDeviceSelect());
  GILU_CUDA_CHECK(cudaGetDevice(&dev));
  GILU_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  PetscCall(PetscStrncpy(name, prop.name, len));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, dev));      /* kHz */
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&width, cudaDevAttrGlobalMemoryBusWidth, dev)); /* bits */
  GILU_CUDA_CHECK(cudaMemGetInfo(&freeb, &totalb));
  *memGB   = (double)totalb / 1e9;
  *peakGBs = 2.0 * clock * 1e3 * (width / 8.0) / 1e9;
  *copyGBs = 0;
  if (freeb < 3 * bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUDeviceMalloc(bytes, &a));
  PetscCall(GILUDeviceMalloc(bytes, &b));
  PetscCall(GILUDeviceMemset(a, 0, bytes));
  GILU_CUDA_CHECK(cudaEventCreate(&e0));
  GILU_CUDA_CHECK(cudaEventCreate(&e1));
  for (int r = 0; r < 6; r++) { /* the first warms up */
    GILU_CUDA_CHECK(cudaEventRecord(e0, 0));
    GILU_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
    GILU_CUDA_CHECK(cudaEventRecord(e1, 0));
    GILU_CUDA_CHECK(cudaEventSynchronize(e1));
    GILU_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (r && (best < 0 || ms < best)) best = ms;
  }
  GILU_CUDA_CHECK(cudaEventDestroy(e0));
  GILU_CUDA_CHECK(cudaEventDestroy(e1));
  PetscCall(GILUDeviceFree(&a));
  PetscCall(GILUDeviceFree(&b));
  *copyGBs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
