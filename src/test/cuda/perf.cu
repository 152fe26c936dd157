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

/*
  The kernel timer of the general-sparse part of the benchmark (src/test/perf-sparse.c): two CUDA events recorded on
  the legacy default stream around a call of the library (a triangular solve of the engine, PCFGDD's device apply),
  which synchronizes with every blocking stream, so the interval holds all the device work of that call and the gaps
  between its launches (launch latency and host work between launches included: what a solve costs on the device),
  never a host-device copy (the caller's vectors are already on the device). In the emulation the events read the
  host's wall clock (gilucuda.h): the logic of the benchmark, not a device's speed.
*/
struct _n_GILUPerfTimer {
  cudaEvent_t e[2];
};

PetscErrorCode GILU_CUDA_NAME(GILUPerfTimerCreate)(GILUPerfTimer *t)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(t));
  GILU_CUDA_CHECK(cudaEventCreate(&(*t)->e[0]));
  GILU_CUDA_CHECK(cudaEventCreate(&(*t)->e[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUPerfTimerStart)(GILUPerfTimer t)
{
  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaEventRecord(t->e[0], 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ms: the device time since GILUPerfTimerStart() (waits for the work recorded so far) */
PetscErrorCode GILU_CUDA_NAME(GILUPerfTimerStop)(GILUPerfTimer t, double *ms)
{
  float f;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaEventRecord(t->e[1], 0));
  GILU_CUDA_CHECK(cudaEventSynchronize(t->e[1]));
  GILU_CUDA_CHECK(cudaEventElapsedTime(&f, t->e[0], t->e[1]));
  *ms = (double)f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUPerfTimerDestroy)(GILUPerfTimer *t)
{
  PetscFunctionBegin;
  if (!*t) PetscFunctionReturn(PETSC_SUCCESS);
  GILU_CUDA_CHECK(cudaEventDestroy((*t)->e[0]));
  GILU_CUDA_CHECK(cudaEventDestroy((*t)->e[1]));
  PetscCall(PetscFree(*t));
  PetscFunctionReturn(PETSC_SUCCESS);
}
