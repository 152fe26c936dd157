/*
   backend.h: the back-end layer of petscgilu (developer level).

   src/sys/backend.c owns the choice of back-end (-gilu_backend, PetscGILUBackendResolve()); src/sys/cuda/device.cu
   owns device memory (plain cudaMalloc, never managed memory), the copies between host and device (logged in
   -log_view as the events GILUCopyToGPU / GILUCopyToCPU, and with PetscLogCpuToGpu()/PetscLogGpuToCpu(), which
   count only in a PETSc built with a device) and turns cudaError_t into PETSc errors (GILU_CUDA_CHECK of
   gilucuda.h). The cuSPARSE baselines of the GPU tests and benchmarks are in the test library (petscgilutest.h).

   Each of these .cu files is built twice (see gilucuda.h): by nvcc, with the plain names, and for the emulation
   (cudaemu), where every external name ends in _cudaemu. Code in a .cu file calls the functions of its own build
   through GILU_CUDA_NAME(f); C code calls the _cudaemu names only under PETSCGILU_HAVE_CUDAEMU and never the plain
   names: the nvcc objects are a library of their own, lib/libpetscgilu_cuda.so (GILU_CUDA_LIBRARY), which needs
   libcudart and which libpetscgilu.so opens the first time the cuda back-end is considered (GILUCudaLibraryOpen());
   C code takes its functions by name (GILUCudaLibrarySym(), GILUBackendGetDeviceOps()). So libpetscgilu.so builds
   without nvcc and loads where CUDA is not installed. What the nvcc objects use of libpetscgilu.so is exported
   (PETSC_EXTERN, developer level): GILUNodeRank, GILU_CopyToGPU/CPU, the StructILUPlan functions.
*/
#ifndef PETSCGILU_BACKEND_H
#define PETSCGILU_BACKEND_H

#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>

PETSC_EXTERN PetscLogEvent GILU_CopyToGPU, GILU_CopyToCPU; /* registered in gilu.c; exported for lib/libpetscgilu_cuda.so */

/* The index of this process among those of PETSC_COMM_WORLD on its node (MPI_COMM_TYPE_SHARED) and their number,
   found once by PetscGILUInitializePackage() (collective there), used without communication by GILUDeviceSelect()
   (the rank) and GILUGetNumThreads() (the size divides the default host threads) */
PETSC_EXTERN PetscMPIInt    GILUNodeRank; /* exported for lib/libpetscgilu_cuda.so */
PETSC_INTERN PetscMPIInt    GILUNodeSize;
PETSC_INTERN PetscErrorCode GILUNodeRankSetUp(void);

/* ------------------------------------------------------------------------------------------ the back-end mechanism
   One way for every component (PCs, MATSTENCILGPU, the triangular-solve engine) to run on the host, on a GPU or in
   the emulation, PETSc's way (an ops table chosen at setup, a cuda/ folder providing the device ops):
   - the component's device kernels are one ops table (a struct of function pointers), defined once in its cuda/
     .cu file and returned by GILU_CUDA_NAME(<Component>DeviceGetOps)(const <Ops> **): the nvcc build under the
     plain name, the emulated build with the suffix _cudaemu; GILU_DEVICE_GETOPS_DECLARE() declares both;
   - at setup the component resolves its back-end once (its own option, else -gilu_backend:
     PetscGILUGetBackend(), PetscGILUBackendResolve()) and takes the table with GILUBackendGetDeviceOps(): NULL for
     the host, whose kernels the component calls directly;
   - the apply path calls through the table it holds (or the host kernels when it holds none) and never decides
     the back-end again. */
#if defined(PETSCGILU_HAVE_CUDA)
  /* The library of the nvcc objects, in the folder of libpetscgilu.so (its version is libpetscgilu.so's) */
  #define GILU_CUDA_LIBRARY "libpetscgilu_cuda.so." PetscStringize(PETSCGILU_VERSION_MAJOR) "." PetscStringize(PETSCGILU_VERSION_MINOR)
/* Opens GILU_CUDA_LIBRARY once (later calls return the first answer): *loaded is PETSC_FALSE when it is missing or
   cannot be loaded (e.g. no libcudart), and *why (optional, NULL when loaded) says why in words */
PETSC_INTERN PetscErrorCode GILUCudaLibraryOpen(PetscBool *, const char **);
/* A function of GILU_CUDA_LIBRARY by name; an error that says why when the library cannot be loaded */
PETSC_INTERN PetscErrorCode GILUCudaLibrarySym(const char[], void (**)(void));
  /* the nvcc build defines getops in GILU_CUDA_LIBRARY, exported; C code calls it through a pointer of type getops_Fn */
  #define GILU_DEVICE_GETOPS_DECLARE_CUDA(getops, Ops) \
    PETSC_EXTERN PetscErrorCode getops(const Ops **); \
    typedef PetscErrorCode      getops##_Fn(const Ops **);
  #define GILU_BACKEND_CALL_CUDA(getops, ops) \
    do { \
      getops##_Fn *getops_; \
      PetscCall(GILUCudaLibrarySym(#getops, (void (**)(void))(&getops_))); \
      PetscCall(getops_(ops)); \
    } while (0)
#else
  #define GILU_DEVICE_GETOPS_DECLARE_CUDA(getops, Ops)
  #define GILU_BACKEND_CALL_CUDA(getops, ops) (void)0
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  #define GILU_DEVICE_GETOPS_DECLARE_CUDAEMU(getops, Ops) PETSC_INTERN PetscErrorCode getops##_cudaemu(const Ops **);
  #define GILU_BACKEND_CALL_CUDAEMU(call)                 PetscCall(call)
#else
  #define GILU_DEVICE_GETOPS_DECLARE_CUDAEMU(getops, Ops)
  #define GILU_BACKEND_CALL_CUDAEMU(call) (void)0
#endif
#define GILU_DEVICE_GETOPS_DECLARE(getops, Ops) GILU_DEVICE_GETOPS_DECLARE_CUDA(getops, Ops) GILU_DEVICE_GETOPS_DECLARE_CUDAEMU(getops, Ops)
/* *ops = the table of the resolved back-end ran (NULL for PETSCGILU_BACKEND_HOST); use inside a function returning PetscErrorCode */
#define GILUBackendGetDeviceOps(ran, getops, ops) \
  do { \
    *(ops) = NULL; \
    if ((ran) == PETSCGILU_BACKEND_CUDA) GILU_BACKEND_CALL_CUDA(getops, ops); \
    else if ((ran) == PETSCGILU_BACKEND_CUDAEMU) GILU_BACKEND_CALL_CUDAEMU(getops##_cudaemu(ops)); \
    PetscCheck((ran) == PETSCGILU_BACKEND_HOST || *(ops), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: this build has no kernels for the back-end %s", #getops, PetscGILUBackendTypes[ran]); \
  } while (0)

/* The plugin-wide options (-gilu_backend, -gilu_schedule_delay): read and listed by -help at package initialization */
PETSC_INTERN PetscErrorCode GILUOptionsSetUp(void);
/* The developers' test hook -gilu_schedule_delay US (else GILU_SCHEDULE_DELAY) for the host threads' schedules:
   structilu's (src/mat/stencil/schedule.c, pipeline.c), the triangular-solve engine's (src/mat/sptrsv/sptrsv-host.c) and
   gilu's numeric factorization's (src/mat/sptrsv/gilufactor-numeric.c); 0: off */
PETSC_INTERN PetscErrorCode GILUScheduleGetDelay(PetscInt *);

/* A short name of a resolved back-end and of the device it runs on, for -ksp_view */
PETSC_INTERN PetscErrorCode PetscGILUBackendName(PetscGILUBackendType, char[], size_t);

/* Flops of device kernels: as GPU flops in a PETSc built with a device, else as flops (Debian's PETSc) */
static inline PetscErrorCode GILULogDeviceFlops(PetscLogDouble f)
{
#if defined(PETSC_HAVE_DEVICE)
  return PetscLogGpuFlops(f);
#else
  return PetscLogFlops(f);
#endif
}

/* ------------------------------------------------------------------------------------------ device memory
   dst/src on the device are plain device pointers (cudaMalloc); all copies are synchronous. Exported (developer
   level): the device code of the test library (the cuSPARSE baselines, petscgilutest.h) selects the device,
   allocates and copies through these, so its copies are logged as the library's are. */
#define GILU_DEVICE_DECLARE(suffix) \
  PETSC_EXTERN PetscErrorCode GILUDeviceMalloc##suffix(size_t, void **); \
  PETSC_EXTERN PetscErrorCode GILUDeviceFree##suffix(void **); \
  PETSC_EXTERN PetscErrorCode GILUDeviceCopyToDevice##suffix(void *, const void *, size_t); \
  PETSC_EXTERN PetscErrorCode GILUDeviceCopyToHost##suffix(void *, const void *, size_t); \
  PETSC_EXTERN PetscErrorCode GILUDeviceMemset##suffix(void *, int, size_t); \
  PETSC_EXTERN PetscErrorCode GILUDeviceGetName##suffix(char[], size_t); \
  PETSC_EXTERN PetscErrorCode GILUDeviceSelect##suffix(void); \
  PETSC_EXTERN PetscErrorCode GILUDeviceSynchronize##suffix(void);
#if defined(PETSCGILU_HAVE_CUDA)
GILU_DEVICE_DECLARE()
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
GILU_DEVICE_DECLARE(_cudaemu)
#endif
/* What C code needs of a back-end's device (its name, the logged copies), as the ops table of src/sys/cuda/device.cu
   taken with GILUBackendGetDeviceOps(); the .cu files call the functions of their own build directly */
typedef struct {
  PetscErrorCode (*getname)(char[], size_t);
  PetscErrorCode (*copytodevice)(void *, const void *, size_t);
  PetscErrorCode (*copytohost)(void *, const void *, size_t);
  PetscErrorCode (*select)(void);
  PetscErrorCode (*malloc)(size_t, void **);
  PetscErrorCode (*free)(void **);
  PetscErrorCode (*synchronize)(void);
} GILUDeviceOps;
GILU_DEVICE_GETOPS_DECLARE(GILUDeviceGetOps, GILUDeviceOps)

/* ------------------------------------------------------------------------------------------ vectors on the device
   src/sys/device-vec.c: y = op(x) by the kernels of the cuda or cudaemu back-end, the one apply path of every
   component: GILUVecApplyDevice(x, y, backend, xbuf, ybuf, apply, ctx, native) gets device pointers to the local
   values, calls apply(ctx, xa, ya) (which queues its kernels on the default stream and may return before they
   completed) and restores them, ordering y's consumer after the kernels. With a CUDA-enabled
   PETSc, petscgilu built with CUDA, the cuda back-end and a CUDA vector: the vector's own device array, no copy
   (compiled by make check-petsc-cuda against a PETSc built --with-cuda: Debian's has no CUDA). Otherwise the values
   go through the caller's device buffers xbuf, ybuf (at least the local size): x copied in before, y back after,
   logged as GILUCopyToGPU / GILUCopyToCPU. native (optional) says whether x's own device array was read. */
PETSC_INTERN PetscErrorCode GILUVecIsDeviceNative(Vec, PetscGILUBackendType, PetscBool *);
PETSC_INTERN PetscErrorCode GILUVecApplyDevice(Vec, Vec, PetscGILUBackendType, void *, void *, PetscErrorCode (*)(void *, const PetscScalar *, PetscScalar *), void *, PetscBool *);
/* The same for the columns of dense matrices (a process's MATSEQDENSE, or MATSEQDENSECUDA as the vectors above): X =
   op(B) by one apply(ctx, m, b, ldb, x, ldx) on all m columns (X not B); the buffers hold m columns of the local size,
   packed (the copies: one each way when the matrix's leading dimension is its local size, else one per column) */
PETSC_INTERN PetscErrorCode GILUMatDenseApplyDevice(Mat, Mat, PetscGILUBackendType, void *, void *, PetscErrorCode (*)(void *, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt), void *, PetscBool *);
/* Device memory of a back-end (cuda or cudaemu) for C code that owns device buffers or copies of setup data (the
   permutations of MatSolverType gilu): GILUDeviceMalloc/Free/CopyToDevice of that back-end's build (the copy logged) */
PETSC_INTERN PetscErrorCode GILUBackendDeviceMalloc(PetscGILUBackendType, size_t, void **);
PETSC_INTERN PetscErrorCode GILUBackendDeviceFree(PetscGILUBackendType, void **);
PETSC_INTERN PetscErrorCode GILUBackendDeviceCopyToDevice(PetscGILUBackendType, void *, const void *, size_t);

#endif
