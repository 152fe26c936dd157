/*
   gilucuda.h: what petscgilu's CUDA kernels include (developer level). One kernel source serves two builds:

     nvcc              (PETSCGILU_HAVE_CUDA)  device code for sm_80/sm_90, launched on a GPU
     host C++ compiler (-DGILU_CUDAEMU)       the "cudaemu" back-end: the same kernels run on the host by the
                                              emulation of the CUDA execution model (cudaemu.h)

   Kernels use the CUDA names that mean the same in both builds (__global__, __device__, threadIdx, blockIdx,
   blockDim, gridDim, warpSize, __syncthreads, __threadfence, atomicAdd on int/unsigned/double, atomicCAS,
   atomicMax, atomicMin (int), atomicExch, cudaMalloc/cudaMemcpy/cudaFree/cudaMemset, cudaEvent* (timing; the emulation's
   record the host's clock)) and the project's wrappers for the rest:

     GILU_CUDA_NAME(f)                      external names in a .cu file: f with nvcc, f_cudaemu in emulation
     GILU_LAUNCH(k, grid, block, shmem, stream, args...)   launch; a PetscErrorCode expression (PetscCall it)
     GILU_SHARED(type, name, count)         static shared array (1D): type name[count] per block
     GILU_DYNAMIC_SHARED(type, name)        type *name = the block's dynamic shared memory (shmem bytes of the launch)
     gilu_syncthreads(), gilu_syncwarp()    barriers of the block / of the warp (all 32 lanes)
     gilu_lane_id(), gilu_warp_id()         lane in the warp, warp in the block
     gilu_shfl(v, src[, width]), gilu_shfl_up/down(v, delta[, width]), gilu_shfl_xor(v, mask[, width])
                                            full-warp shuffles of int, unsigned, long long, float, double
     gilu_ballot(p), gilu_any(p), gilu_all(p)  full-warp votes
     gilu_wait_until_ge(flag, v)            spin until *flag >= v (flag written by another thread or block), then fence
     gilu_signal_set(flag, v), gilu_signal_add(flag, v)
                                            publish with a device-scope flag (atomicExch / atomicAdd on global memory):
                                            the caller must have made its writes visible by __threadfence() since its
                                            previous signal (or, for a block's writes, every writer fenced before a
                                            barrier); the emulation stops with an error when it did not
     gilu_signal_set_block(flag, v)         the same for a flag in shared memory (volatile store), with __threadfence_block()
     gilu_wait_acquire(flag, v)             one thread waits until *flag >= v (acquire at device scope; polls with back-off
                                            on the device); the threads of its block see what the flag's releaser published
                                            once they passed a __syncthreads() after the wait
     gilu_wait_acquire_count(flag, base, n) gilu_wait_acquire() on a counter or epoch that runs on from launch to launch
                                            (never cleared, wrapping around at 2^32): until *flag - base >= n modulo 2^32,
                                            base the flag's value before the launch (the host keeps it), n < 2^31
     gilu_signal_release(flag, v)           one thread publishes *flag = v (release at device scope): every write of its
                                            block made before a __syncthreads() that the releaser passed is visible to a
                                            thread that acquired v (the block-level pair of the two above: one wait and
                                            one fence per block instead of one per thread)
     gilu_signal_release_add(counter, v)    the same release as an atomic add of v (one thread): a counter of finished
                                            work units that every block adds to, waited on with gilu_wait_acquire()
     gilu_block_ticket(counter)             the block's work unit: thread 0 takes atomicAdd(counter, 1), the block reads
                                            it after a barrier (call once per kernel, from every thread). A unit that
                                            waits on units of lower number must take it from a ticket, not blockIdx:
                                            CUDA does not promise that blocks are dispatched in index order
     GILU_UNROLL                            before a loop of a compile-time trip count whose body indexes a register
                                            array by the loop variable: unrolled by nvcc (else the array goes to local
                                            memory); nothing in the emulation
     gilu_mma_m8n8k4_f64(d, a, b, c)        D(8x8) = A(8x4) B(4x8) + C on one warp, PTX fragment layout (see below)
     GILU_CUDA_CHECK(call)                  a cudaError_t -> PETSc error (PETSC_ERR_GPU)
     gilu_ld(p), gilu_st(p, v)              a global-memory load / store (plain on the device); in the emulation each
                                            is one lane's part of a warp-level request, counted in 32-byte sectors
     gilu_ld_cg(p)                          a load of a value another block wrote during this kernel: past the
                                            (non-coherent) L1 cache on the device (__ldcg)
                                            (gilu_st converts v to *p's type, as an assignment does)
   and on the host, around launches (nothing on the device; the emulation's counters, see cudaemu.h):
     gilu_launch_levels(n)                  the next launch has n dependent levels (round trips per level)
     gilu_mem_class(p, bytes, CLASS)        the device memory [p, p + bytes) holds INDEX, FACTOR or VECTOR data

   Warp operations need all lanes of the warp (like the _sync intrinsics with a full mask); the emulation stops
   with an error when lanes of a warp are at different warp operations, or when a lane exited. Spin loops must go
   through gilu_wait_until_ge(): the emulation switches to other threads and blocks there and detects deadlocks.
   Dynamic shared memory above 48 KiB needs cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
   bytes) before the launch, within cudaDevAttrMaxSharedMemoryPerBlockOptin (sm_80: 163 KiB, sm_90: 227 KiB): the
   emulation enforces both (the limit of -gilu_cudaemu_arch, default sm_80).
*/
#ifndef PETSCGILU_GILUCUDA_H
#define PETSCGILU_GILUCUDA_H

#include <petscsys.h>
#include <petscgilu/private/compat.h>
#include <petscgiluconf.h>

#if defined(GILU_CUDAEMU)
  /* ============================================================================================ emulation */
  #include <string.h>
  #include <stdlib.h>
  #include <typeinfo>
  #include <petsctime.h>
  #include <petscgilu/private/cudaemu.h>

  #define GILU_CUDA_NAME(f) f##_cudaemu
  #define GILU_UNROLL

  #define __global__
  #define __device__
  #define __host__
  #define __forceinline__ inline
  #define __launch_bounds__(...)
  #define warpSize  32
  #define threadIdx (gilu_emu_self->threadIdx)
  #define blockIdx  (gilu_emu_self->blockIdx)
  #define blockDim  (gilu_emu_self->blockDim)
  #define gridDim   (gilu_emu_self->gridDim)

/* internal linkage, as every function of the emulation (static inline): objcopy makes an emulated object's names
   other than *_cudaemu local, and a local copy of the inline constructor in a COMDAT group of each object fails the
   link where it is not inlined (a C++ compiler without optimization: a PETSc configured --with-debugging, or
   without USER in the environment, whose CXX_FLAGS have no -O) */
namespace
{
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) { }
};
} // namespace

/* ---------------------------------------------------------------------------------- launch */
template <class F>
static inline void gilu_emu_body(void *ctx)
{
  (*(F *)ctx)();
}
template <class F>
static inline PetscErrorCode gilu_emu_launch(const void *key, const char *name, dim3 g, dim3 b, size_t shmem, F f)
{
  GILUEmuUInt3 G = {g.x, g.y, g.z}, B = {b.x, b.y, b.z};

  return GILUEmuLaunch(key, name, G, B, shmem, gilu_emu_body<F>, &f);
}
/* the kernel's instantiation as a type, by its mangled name: the same from every compiler of the Itanium C++ ABI
   (gcc, clang), unlike __PRETTY_FUNCTION__ (clang 14's leaves the template arguments out: "k = &StructILUForward");
   the emulation demangles it ("StructILUForward<17, double>") for its launch log, which lists what the tests ran to
   compare with the instantiations nvcc emits, and for its counters and messages. Read from the type_info as that ABI
   lays it out (2.9.5: the vtable pointer, then the name), not through its inline name(): at -O0 that is emitted out
   of line with vague linkage, which an emulated object must not define (PG_EMU_LOCALIZE, make check's emu-link) */
template <class K, K k>
struct gilu_emu_kernel_tag { };
template <class K, K k>
static inline const char *gilu_emu_kernel_name(void)
{
  const std::type_info &t = typeid(gilu_emu_kernel_tag<K, k>);

  return reinterpret_cast<const char *const *>(&t)[1];
}
  /* the arguments are evaluated once, on the host, and copied (by value, as a CUDA launch does) */
  #define GILU_LAUNCH(kernel, grid, block, shmem, stream, ...) ((void)(stream), gilu_emu_launch(reinterpret_cast<const void *>(&kernel), gilu_emu_kernel_name<decltype(&kernel), &kernel>(), (grid), (block), (shmem), [=]() { kernel(__VA_ARGS__); }))

  /* ---------------------------------------------------------------------------------- shared memory */
  #define GILU_SHARED(type, name, count) \
    static const char name##_gilu_site = 0; \
    type *const       name             = (type *)GILUEmuStaticShared(&name##_gilu_site, sizeof(type) * (size_t)(count), alignof(type))
  #define GILU_DYNAMIC_SHARED(type, name) type *const name = (type *)(void *)gilu_emu_self->dynshared

  /* ---------------------------------------------------------------------------------- block and warp */
  /* barriers carry their call site: the threads of a block must meet at the same one (bar.sync is .aligned) */
  #define GILU_EMU_STR_(x) #x
  #define GILU_EMU_STR(x)  GILU_EMU_STR_(x)
  #define GILU_EMU_SITE    __FILE__ ":" GILU_EMU_STR(__LINE__)
  #define __syncthreads()  GILUEmuSyncThreads(GILU_EMU_SITE)
/* fences are recorded per thread: a signal (gilu_signal_*) needs one of its scope since the thread's previous signal */
static inline void __threadfence(void)
{
  GILUEmuFence(2);
}
static inline void __threadfence_block(void)
{
  GILUEmuFence(1);
}
static inline int gilu_lane_id(void)
{
  return gilu_emu_self->lane;
}
static inline int gilu_warp_id(void)
{
  return gilu_emu_self->warp;
}
static inline void gilu_emu_syncwarp(const char *site)
{
  GILUEmuLaneData mine = {
    {0, 0, 0, 0},
    0, NULL
  };

  mine.site = site;
  (void)GILUEmuWarpExchange(GILU_EMU_WARP_SYNC, &mine);
}
  #define gilu_syncwarp() gilu_emu_syncwarp(GILU_EMU_SITE)

/* src: the lane to read, or -1: the caller's own value */
template <class T>
static inline T gilu_emu_shfl(T v, int src)
{
  GILUEmuLaneData mine = {
    {0, 0, 0, 0},
    0, NULL
  };
  const GILUEmuLaneData *all;
  T                      r;

  static_assert(sizeof(T) <= sizeof(double), "shuffles move at most 8 bytes");
  memcpy(&mine.d[0], &v, sizeof(T));
  all = GILUEmuWarpExchange(GILU_EMU_WARP_SHFL, &mine);
  if (src < 0) return v;
  if (src >= GILUEmuWarpSize()) GILUEmuFail("a shuffle reads a lane beyond the last thread of the block (partial warp)");
  memcpy(&r, &all[src].d[0], sizeof(T));
  return r;
}
template <class T>
static inline T gilu_shfl(T v, int src, int width = 32)
{
  int lane = gilu_emu_self->lane;

  return gilu_emu_shfl(v, (lane / width) * width + (src % width + width) % width);
}
template <class T>
static inline T gilu_shfl_up(T v, unsigned int delta, int width = 32)
{
  int lane = gilu_emu_self->lane;

  return gilu_emu_shfl(v, (lane % width) < (int)delta ? -1 : lane - (int)delta);
}
template <class T>
static inline T gilu_shfl_down(T v, unsigned int delta, int width = 32)
{
  int lane = gilu_emu_self->lane;

  return gilu_emu_shfl(v, (lane % width) + (int)delta >= width ? -1 : lane + (int)delta);
}
template <class T>
static inline T gilu_shfl_xor(T v, int mask, int width = 32)
{
  int lane = gilu_emu_self->lane, src = lane ^ mask;

  return gilu_emu_shfl(v, src >= (lane / width + 1) * width ? -1 : src);
}
static inline unsigned int gilu_ballot(int pred)
{
  GILUEmuLaneData mine = {
    {0, 0, 0, 0},
    pred ? 1 : 0, NULL
  };
  const GILUEmuLaneData *all = GILUEmuWarpExchange(GILU_EMU_WARP_VOTE, &mine);
  unsigned int           m   = 0;
  int                    l, n = GILUEmuWarpSize();

  for (l = 0; l < n; l++)
    if (all[l].i) m |= 1u << l;
  return m;
}
static inline int gilu_any(int pred)
{
  return gilu_ballot(pred) != 0;
}
static inline int gilu_all(int pred)
{
  unsigned int n = (unsigned int)GILUEmuWarpSize();

  return gilu_ballot(pred) == (n == 32 ? 0xffffffffu : (1u << n) - 1);
}

/* ---------------------------------------------------------------------------------- waiting */
/* the reader's fence (acquire) comes before the data it then writes: it does not count as the fence a later signal needs */
static inline void gilu_wait_until_ge(volatile int *flag, int value)
{
  GILUEmuWaitUntilGE(flag, value);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
/* GILUEmuPublished: the round-trip clock of the value now on the flag (counters) */
static inline void gilu_signal_set(int *flag, int v)
{
  GILUEmuSignal(flag, 2);
  (void)__atomic_exchange_n(flag, v, __ATOMIC_RELAXED);
  if (gilu_emu_counting) GILUEmuPublished(flag, 2);
}
static inline void gilu_signal_add(int *flag, int v)
{
  GILUEmuSignal(flag, 2);
  (void)__atomic_fetch_add(flag, v, __ATOMIC_RELAXED);
  if (gilu_emu_counting) GILUEmuPublished(flag, 2);
}
static inline void gilu_signal_set_block(volatile int *flag, int v)
{
  GILUEmuSignal((const void *)flag, 1);
  *flag = v;
  if (gilu_emu_counting) GILUEmuPublished((const void *)flag, 1);
}
/* the acquire: what the releaser published before its release is visible from here on (the block: after a barrier) */
static inline void gilu_wait_acquire(const int *flag, int value)
{
  GILUEmuWaitUntilGE((volatile int *)flag, value);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}
static inline void gilu_wait_acquire_count(const int *flag, int base, int n)
{
  GILUEmuWaitCount((volatile int *)flag, base, n);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}
/* the release is its own fence: the thread's writes, and the block's before the barrier the caller passed */
static inline void gilu_signal_release(int *flag, int v)
{
  GILUEmuRelease();
  GILUEmuSignal(flag, 2);
  __atomic_store_n(flag, v, __ATOMIC_RELEASE);
  if (gilu_emu_counting) GILUEmuPublished(flag, 2);
  GILUEmuReleased();
}
static inline void gilu_signal_release_add(int *flag, int v)
{
  GILUEmuRelease();
  GILUEmuSignal(flag, 2);
  (void)__atomic_fetch_add(flag, v, __ATOMIC_RELEASE);
  if (gilu_emu_counting) GILUEmuPublished(flag, 2);
  GILUEmuReleased();
}

/* ---------------------------------------------------------------------------------- MMA */
static inline void gilu_mma_m8n8k4_f64(double d[2], double a, double b, const double c[2])
{
  GILUEmuLaneData mine = {
    {a, b, c[0], c[1]},
    0, NULL
  };
  const GILUEmuLaneData *all;
  int                    lane = gilu_emu_self->lane, row = lane >> 2, col = 2 * (lane & 3), k;
  double                 s0 = c[0], s1 = c[1];

  if (GILUEmuWarpSize() != 32) GILUEmuFail("gilu_mma_m8n8k4_f64 needs a full warp of 32 threads");
  all = GILUEmuWarpExchange(GILU_EMU_WARP_MMA, &mine);
  /* A (8x4, row): lane l holds A[l >> 2][l & 3]; B (4x8, col): lane l holds B[l & 3][l >> 2] */
  for (k = 0; k < 4; k++) {
    double ak = all[4 * row + k].d[0];
    s0        = fma(ak, all[4 * col + k].d[1], s0);
    s1        = fma(ak, all[4 * (col + 1) + k].d[1], s1);
  }
  d[0] = s0;
  d[1] = s1;
}

/* ---------------------------------------------------------------------------------- atomics
   The threads of a launch run on one host thread and switch only at barriers, warp operations and waits, so a
   read-modify-write is atomic; the __atomic builtins also keep launches from different host threads apart. */
static inline int atomicAdd(int *p, int v)
{
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned int atomicAdd(unsigned int *p, unsigned int v)
{
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline double atomicAdd(double *p, double v)
{
  double old, sum;

  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  do {
    sum = old + v;
  } while (!__atomic_compare_exchange(p, &old, &sum, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
static inline float atomicAdd(float *p, float v)
{
  float old, sum;

  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  do {
    sum = old + v;
  } while (!__atomic_compare_exchange(p, &old, &sum, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
static inline int atomicCAS(int *p, int compare, int v)
{
  __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
static inline unsigned int atomicCAS(unsigned int *p, unsigned int compare, unsigned int v)
{
  __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long compare, unsigned long long v)
{
  __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
static inline int atomicMax(int *p, int v)
{
  int old = __atomic_load_n(p, __ATOMIC_SEQ_CST);

  while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { }
  return old;
}
static inline unsigned int atomicMax(unsigned int *p, unsigned int v)
{
  unsigned int old = __atomic_load_n(p, __ATOMIC_SEQ_CST);

  while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { }
  return old;
}
static inline int atomicMin(int *p, int v)
{
  int old = __atomic_load_n(p, __ATOMIC_SEQ_CST);

  while (old > v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { }
  return old;
}
static inline int atomicExch(int *p, int v)
{
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------------------------------------------- runtime API subset
   Device memory is host memory; copies are memcpy; everything is synchronous. One (emulated) device. The calls a GPU
   pays for (copies, synchronizations, allocations, memsets) are counted (GILUEmuCountersGet()). */
typedef int   cudaError_t;
typedef void *cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
  #define cudaSuccess               0
  #define cudaErrorInvalidValue     1
  #define cudaErrorMemoryAllocation 2
  #define cudaErrorInvalidDevice    101
static inline const char *cudaGetErrorString(cudaError_t e)
{
  switch (e) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument (cudaemu)";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal (cudaemu)";
  default:
    return "out of memory (cudaemu)";
  }
}
static inline cudaError_t cudaGetLastError(void)
{
  return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void)
{
  GILUEmuRuntime(GILU_EMU_RT_SYNC, NULL);
  return cudaSuccess;
}
/* the emulated node's devices: -gilu_cudaemu_devices (default 1), all alike */
static inline cudaError_t cudaGetDeviceCount(int *n)
{
  *n = GILUEmuDeviceCount();
  return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d)
{
  *d = GILUEmuGetDevice();
  return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int d)
{
  return GILUEmuSetDevice(d) ? cudaErrorInvalidDevice : cudaSuccess;
}
enum cudaDeviceAttr {
  cudaDevAttrMaxSharedMemoryPerBlock,
  cudaDevAttrMaxSharedMemoryPerBlockOptin,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  cudaDevAttrMultiProcessorCount,
  cudaDevAttrMaxGridDimX
};
/* the emulated device's limits: those of -gilu_cudaemu_arch (sm_80 unless said otherwise; a multiprocessor's shared memory is
   the opt-in limit per block and the 1 KiB the hardware reserves per block: 164 KiB on sm_80, 228 KiB on sm_90); a
   multiprocessor per resident block; a grid's first dimension up to 2^31 - 1, as on every GPU since sm_30, unless
   -gilu_cudaemu_max_grid_x makes it smaller (the errors of a larger grid, in a test) */
static inline cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr attr, int d)
{
  if (d < 0 || d >= GILUEmuDeviceCount()) return cudaErrorInvalidDevice;
  switch (attr) {
  case cudaDevAttrMaxSharedMemoryPerBlock:
    *v = 48 * 1024;
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *v = GILUEmuSharedOptinLimit();
    break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    *v = GILUEmuSharedOptinLimit() + 1024;
    break;
  case cudaDevAttrMultiProcessorCount:
    *v = GILUEmuMultiProcessorCount();
    break;
  case cudaDevAttrMaxGridDimX:
    *v = GILUEmuMaxGridX();
    break;
  }
  return cudaSuccess;
}
/* one block per multiprocessor (GILUEmuMultiProcessorCount()) */
template <class K>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, K *kernel, int threads, size_t shmem)
{
  (void)kernel;
  *n = threads >= 1 && threads <= 1024 ? 1 : 0;
  (void)shmem;
  return cudaSuccess;
}
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize
};
/* opt-in to dynamic shared memory above 48 KiB, per kernel, as on a GPU; checked at each launch */
template <class K>
static inline cudaError_t cudaFuncSetAttribute(K *kernel, enum cudaFuncAttribute attr, int value)
{
  return GILUEmuFuncSetMaxDynamicShared(reinterpret_cast<const void *>(kernel), value) ? cudaErrorInvalidValue : cudaSuccess;
}
/* page-locked host memory is host memory, poisoned as cudaMalloc's below (what the driver hands out is not cleared
   either: a reuse of freed pinned memory holds the last owner's bytes) */
template <class T>
static inline cudaError_t cudaMallocHost(T **p, size_t bytes)
{
  *p = (T *)malloc(bytes ? bytes : 1);
  if (*p) memset((void *)*p, 0xff, bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFreeHost(void *p)
{
  free(p);
  return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMalloc(T **p, size_t bytes)
{
  GILUEmuRuntime(GILU_EMU_RT_ALLOC, NULL);
  const size_t len = bytes ? (bytes + 255) & ~(size_t)255 : 256;

  /* aligned to 256 bytes as cudaMalloc's memory is: the counters' sectors depend on the alignment; poisoned (every
     byte 0xff: NaN in floating point, -1 in signed integers), since a GPU's memory holds whatever was there: a kernel
     that reads what nothing wrote gets NaN or -1 in every run, not whatever the host's heap had (valgrind saw it only) */
  *p = (T *)aligned_alloc(256, len);
  if (*p) memset((void *)*p, 0xff, len);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p)
{
  GILUEmuRuntime(GILU_EMU_RT_FREE, p); /* also forgets p's memory class */
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  GILUEmuRuntime(kind == cudaMemcpyHostToDevice ? GILU_EMU_RT_COPY_TO_DEVICE : kind == cudaMemcpyDeviceToHost ? GILU_EMU_RT_COPY_TO_HOST : GILU_EMU_RT_COPY_ON_DEVICE, NULL);
  if (bytes) memmove(dst, src, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s)
{
  return cudaMemcpy(dst, src, bytes, kind);
}
static inline cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
  GILUEmuRuntime(GILU_EMU_RT_MEMSET, NULL);
  if (bytes) memset(p, v, bytes);
  return cudaSuccess;
}
/* events: everything is synchronous here, so an event records the host's wall clock when it is recorded (the
   emulated kernels' wall time: their logic, not a device's speed) */
typedef struct {
  PetscLogDouble t;
} GILUEmuEvent;
typedef GILUEmuEvent     *cudaEvent_t;
static inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
  *e = (cudaEvent_t)calloc(1, sizeof(GILUEmuEvent));
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
  free(e);
  return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = NULL)
{
  return PetscTime(&e->t) ? cudaErrorInvalidValue : cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
  return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
  *ms = (float)(1e3 * (end->t - start->t));
  return cudaSuccess;
}

#else
  /* ============================================================================================ nvcc */
  #include <cuda_runtime.h>

  #define GILU_CUDA_NAME(f)                                    f
  #define GILU_UNROLL                                          _Pragma("unroll")

/* launch trace (tests/gpu/run's watchdog): with GILU_CUDA_TRACE=FILE each launch appends the kernel's name to FILE
   before it starts and is waited for, so FILE's last line names a kernel that hangs or faults */
static inline const char *GILUCUDATraceFile(void)
{
  static const char *file  = NULL;
  static int         asked = 0;

  if (!asked) {
    file  = getenv("GILU_CUDA_TRACE");
    asked = 1;
  }
  return file && file[0] ? file : NULL;
}
static inline int GILUCUDATrace(const char *kernel, const char *where, int line)
{
  const char *name = GILUCUDATraceFile();
  FILE       *f    = name ? fopen(name, "a") : NULL;

  if (f) {
    fprintf(f, "%s %s:%d\n", kernel, where, line);
    fclose(f);
  }
  return 0;
}
static inline PetscErrorCode GILUCUDACheckLaunch(const char *kernel)
{
  cudaError_t err = cudaGetLastError();

  PetscFunctionBegin;
  PetscCheck(err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA kernel %s did not launch: %s", kernel, cudaGetErrorString(err));
  if (GILUCUDATraceFile()) {
    err = cudaDeviceSynchronize();
    PetscCheck(err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA kernel %s failed: %s", kernel, cudaGetErrorString(err));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
  #define GILU_LAUNCH(kernel, grid, block, shmem, stream, ...) (GILUCUDATrace(#kernel, __FILE__, __LINE__), kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__), GILUCUDACheckLaunch(#kernel))

  #define GILU_SHARED(type, name, count) __shared__ type name[count]
  #define GILU_DYNAMIC_SHARED(type, name) \
    extern __shared__ __align__(16) unsigned char gilu_dynamic_shared_[]; \
    type *const                                   name = (type *)(void *)gilu_dynamic_shared_

static __device__ __forceinline__ int gilu_lane_id(void)
{
  return (int)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u);
}
static __device__ __forceinline__ int gilu_warp_id(void)
{
  return (int)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) >> 5);
}
static __device__ __forceinline__ void gilu_syncwarp(void)
{
  __syncwarp(0xffffffffu);
}
  #define GILU_SHFL_TYPE(T) \
    static __device__ __forceinline__ T gilu_shfl(T v, int src, int width = 32) \
    { \
      return __shfl_sync(0xffffffffu, v, src, width); \
    } \
    static __device__ __forceinline__ T gilu_shfl_up(T v, unsigned int delta, int width = 32) \
    { \
      return __shfl_up_sync(0xffffffffu, v, delta, width); \
    } \
    static __device__ __forceinline__ T gilu_shfl_down(T v, unsigned int delta, int width = 32) \
    { \
      return __shfl_down_sync(0xffffffffu, v, delta, width); \
    } \
    static __device__ __forceinline__ T gilu_shfl_xor(T v, int mask, int width = 32) \
    { \
      return __shfl_xor_sync(0xffffffffu, v, mask, width); \
    }
GILU_SHFL_TYPE(int)
GILU_SHFL_TYPE(unsigned int)
GILU_SHFL_TYPE(long long)
GILU_SHFL_TYPE(float)
GILU_SHFL_TYPE(double)
  #undef GILU_SHFL_TYPE
static __device__ __forceinline__ unsigned int gilu_ballot(int pred)
{
  return __ballot_sync(0xffffffffu, pred);
}
static __device__ __forceinline__ int gilu_any(int pred)
{
  return __any_sync(0xffffffffu, pred);
}
static __device__ __forceinline__ int gilu_all(int pred)
{
  return __all_sync(0xffffffffu, pred);
}
static __device__ __forceinline__ void gilu_wait_until_ge(volatile int *flag, int value)
{
  while (*flag < value) { }
  __threadfence();
}
static __device__ __forceinline__ void gilu_signal_set(int *flag, int v)
{
  (void)atomicExch(flag, v);
}
static __device__ __forceinline__ void gilu_signal_add(int *flag, int v)
{
  (void)atomicAdd(flag, v);
}
static __device__ __forceinline__ void gilu_signal_set_block(volatile int *flag, int v)
{
  *flag = v;
}
/* ld.acquire.gpu polls with __nanosleep back-off (32 ns doubling to 256 ns: a predecessor tile takes about a microsecond,
   and a sleeping warp leaves its issue slots to the blocks that work); no trailing fence: the acquire orders the
   block's later loads once the barrier after the wait has passed (the PTX memory model's causality order) */
static __device__ __forceinline__ void gilu_wait_acquire(const int *flag, int value)
{
  unsigned int ns = 32;

  for (;;) {
    int v;

    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    if (v >= value) break;
    __nanosleep(ns);
    if (ns < 256) ns *= 2;
  }
}
/* the same acquire poll, the difference to base compared modulo 2^32 (counters that are never cleared) */
static __device__ __forceinline__ void gilu_wait_acquire_count(const int *flag, int base, int n)
{
  unsigned int ns = 32;

  for (;;) {
    int v;

    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    if ((unsigned int)v - (unsigned int)base >= (unsigned int)n) break;
    __nanosleep(ns);
    if (ns < 256) ns *= 2;
  }
}
/* st.release.gpu: cumulative over the writes the releaser observed, its block's before the barrier included */
static __device__ __forceinline__ void gilu_signal_release(int *flag, int v)
{
  asm volatile("st.release.gpu.global.s32 [%0], %1;" : : "l"(flag), "r"(v) : "memory");
}
/* red.release.gpu: the release of gilu_signal_release as an add (no value returned: nothing waits for the atomic) */
static __device__ __forceinline__ void gilu_signal_release_add(int *flag, int v)
{
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;" : : "l"(flag), "r"(v) : "memory");
}
/* D = A B + C, A 8x4 row-major fragment: lane l holds A[l/4][l%4]; B 4x8 column fragment: lane l holds
   B[l%4][l/4]; C and D 8x8: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 (PTX ISA, mma.m8n8k4 .f64) */
static __device__ __forceinline__ void gilu_mma_m8n8k4_f64(double d[2], double a, double b, const double c[2])
{
  #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  double c0 = c[0], c1 = c[1];

  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n" : "=d"(d[0]), "=d"(d[1]) : "d"(a), "d"(b), "d"(c0), "d"(c1));
  #else
  int    lane = gilu_lane_id(), row = lane >> 2, col = 2 * (lane & 3), k;
  double s0 = c[0], s1 = c[1];

  for (k = 0; k < 4; k++) {
    double ak = __shfl_sync(0xffffffffu, a, 4 * row + k);
    s0        = fma(ak, __shfl_sync(0xffffffffu, b, 4 * col + k), s0);
    s1        = fma(ak, __shfl_sync(0xffffffffu, b, 4 * (col + 1) + k), s1);
  }
  d[0] = s0;
  d[1] = s1;
  #endif
}
#endif

/* ============================================================================================ both */
#define gilu_syncthreads() __syncthreads()

/* (mutation scope: the sync points below run in both builds; make check-mutations removes them one at a time) */
/* the block's work unit, in the order blocks start (see the list at the top) */
static __device__ __forceinline__ int gilu_block_ticket(int *counter)
{
  GILU_SHARED(int, gilu_ticket, 1);

  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) gilu_ticket[0] = atomicAdd(counter, 1);
  gilu_syncthreads();
  return gilu_ticket[0];
}

/* global-memory accessors (see the list at the top); in the emulation macros, so that each access carries its call
   site (the kernel's line: the report names the load that is not coalesced), and GILU_EMU_ACCESS records the lane's
   part of the warp's request while the counters are active (one branch when they are not) */
#if defined(GILU_CUDAEMU)
  #define GILU_EMU_ACCESS(p, bytes, store, site) \
    do { \
      if (gilu_emu_counting) GILUEmuAccess((const void *)(p), (int)(bytes), (store), (site)); \
    } while (0)
template <typename T>
static inline T gilu_emu_ld(const T *p, const char *site)
{
  GILU_EMU_ACCESS(p, sizeof(T), 0, site);
  return *p;
}
template <typename T>
static inline T gilu_emu_ld_cg(const T *p, const char *site)
{
  GILU_EMU_ACCESS(p, sizeof(T), 0, site);
  return *(const volatile T *)p;
}
template <typename T, typename V>
static inline void gilu_emu_st(T *p, V v, const char *site)
{
  GILU_EMU_ACCESS(p, sizeof(T), 1, site);
  *p = (T)v;
}
  #define gilu_ld(p)    gilu_emu_ld((p), GILU_EMU_SITE)
  #define gilu_ld_cg(p) gilu_emu_ld_cg((p), GILU_EMU_SITE)
  #define gilu_st(p, v) gilu_emu_st((p), (v), GILU_EMU_SITE)
  /* the dependent levels of the next launch (the report's round trips per level); a memory range's class */
  #define gilu_launch_levels(n)         GILUEmuSetLevels((int)(n))
  #define gilu_mem_class(p, bytes, cls) GILUEmuMemClassSet((const void *)(p), (size_t)(bytes), GILU_EMU_MEM_##cls)
#else
  #define gilu_launch_levels(n)         ((void)0)
  #define gilu_mem_class(p, bytes, cls) ((void)0)
template <typename T>
static __device__ __forceinline__ T gilu_ld(const T *p)
{
  return *p;
}
template <typename T>
static __device__ __forceinline__ T gilu_ld_cg(const T *p)
{
  return __ldcg(p);
}
template <typename T, typename V>
static __device__ __forceinline__ void gilu_st(T *p, V v)
{
  *p = (T)v;
}
#endif

#define GILU_CUDA_CHECK(call) \
  do { \
    cudaError_t gilu_cuda_err_ = (call); \
    PetscCheck(gilu_cuda_err_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "%s failed: %s", #call, cudaGetErrorString(gilu_cuda_err_)); \
  } while (0)

#endif
