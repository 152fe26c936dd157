/*
   cudaemu: the host emulation of the CUDA execution model (developer level).

   The project's .cu sources are compiled twice: by nvcc into device code, and by the host C++ compiler
   with -DGILU_CUDAEMU into the "cudaemu" back-end, which runs the same kernels on the host. Kernel
   sources do not include this header directly: they include <petscgilu/private/gilucuda.h>, which
   maps the CUDA names (threadIdx, __syncthreads, atomicAdd, ...) and the project's wrappers
   (gilu_shfl, gilu_wait_until_ge, gilu_mma_m8n8k4_f64, GILU_LAUNCH, ...) onto this runtime.

   Execution model of the emulation (src/sys/cudaemu/cudaemu.c, whose head comment has the details):
   - every CUDA thread is a cooperative fiber with its own stack; the threads of a block interleave at
     __syncthreads, warp operations and spin-waits (gilu_wait_until_ge, which always yields once first);
   - schedules a GPU may choose: at most -gilu_cudaemu_resident blocks (default 4) run at a time, dispatched in the
     order of -gilu_cudaemu_block_order, their threads run in the order of -gilu_cudaemu_thread_order (inorder,
     reverse, random[:SEED]; -gilu_cudaemu_schedule or GILU_CUDAEMU_SCHEDULE sets both), so a kernel that relies on
     blocks starting in index order deadlocks and a missing wait or barrier gives a wrong result;
   - memory: a flag published by gilu_signal_set/add (gilu_signal_set_block) without a __threadfence()
     (__threadfence_block()) since the thread's previous signal is an error; shared memory follows the 48 KiB rule,
     the cudaFuncSetAttribute opt-in and the architecture's limit (-gilu_cudaemu_arch sm_80|sm_90);
   - barriers and __syncwarp must be reached from one call site; lanes of a warp at different warp operations, a
     deadlock (no thread can proceed) and the errors above stop the launch with a PETSc error naming the kernel,
     the block, the thread and what it waits for (no hang);
   - launches are synchronous: the stream argument is ignored and the kernel has finished on return.
   - counters (below; the rules in cudaemu.c): runtime calls always; per kernel and call site the warp-level requests
     and 32-byte sectors of gilu_ld/gilu_st, and the critical path in dependent round trips, with
     -gilu_cudaemu_counters or GILUEmuCountersSetActive().

   This file is C-includable; the C++ part is only seen when compiling a .cu file with -DGILU_CUDAEMU. The
   runtime's entry points (GILUEmu*, gilu_emu_self) are exported from libpetscgilu (developer level, as PETSc's
   *_Internal functions that its tests call): the emulated objects of the test library (its self-test kernels,
   src/test/cudaemu/selftest.cu) run on this one runtime, with its options, schedules and launch log.
*/
#ifndef PETSCGILU_CUDAEMU_H
#define PETSCGILU_CUDAEMU_H

#include <petscsys.h>
#include <petscgilu/private/compat.h>
#include <petscgiluconf.h>

/* lists the emulation's options in -help (once per process; the launches read them) */
PETSC_INTERN PetscErrorCode GILUEmuOptionsHelp(MPI_Comm);

/* ------------------------------------------------------------------------------------------ runtime (internal) */
typedef struct {
  unsigned int x, y, z;
} GILUEmuUInt3;

typedef struct _n_GILUEmuThread *GILUEmuThread;
struct _n_GILUEmuThread {
  GILUEmuUInt3   threadIdx, blockIdx, blockDim, gridDim;
  int            lane, warp; /* lane in the warp, warp in the block (threads numbered x fastest) */
  unsigned char *dynshared;  /* the block's dynamic shared memory */
  void          *priv;       /* the runtime's per-thread state */
};

/* The thread (fiber) that is running now; NULL outside a kernel */
#if defined(__cplusplus)
extern "C" {
#endif
extern __thread GILUEmuThread gilu_emu_self PETSC_VISIBILITY_PUBLIC;
#if defined(__cplusplus)
}
#endif

/* kinds of warp-collective operations, for the check that all lanes execute the same one */
typedef enum {
  GILU_EMU_WARP_SYNC,
  GILU_EMU_WARP_SHFL,
  GILU_EMU_WARP_VOTE,
  GILU_EMU_WARP_MMA
} GILUEmuWarpOp;

/* Per lane of a warp exchange: what the lane contributed */
typedef struct {
  double      d[4];
  long long   i;
  const char *site; /* __syncwarp: the call site ("file:line"), which all lanes must share */
} GILUEmuLaneData;

/* key: the kernel (for its cudaFuncSetAttribute opt-in); name: its instantiation, mangled (gilu_emu_kernel_name()) */
PETSC_EXTERN PetscErrorCode GILUEmuLaunch(const void *, const char[], GILUEmuUInt3, GILUEmuUInt3, size_t, void (*)(void *), void *);
PETSC_EXTERN const char    *GILUEmuLastError(void);
PETSC_EXTERN void           GILUEmuSyncThreads(const char[]);                  /* the call site, "file:line" */
PETSC_EXTERN void           GILUEmuFence(int);                                 /* 1: __threadfence_block, 2: __threadfence */
PETSC_EXTERN void           GILUEmuSignal(const void *, int);                  /* a signal of that scope on that flag: checks the fence */
PETSC_EXTERN void           GILUEmuRelease(void);                              /* gilu_signal_release's own fence (counters: one round trip) */
PETSC_EXTERN void           GILUEmuReleased(void);                             /* after its store: the other blocks run before the rest of this one */
PETSC_EXTERN int            GILUEmuSharedOptinLimit(void);                     /* bytes per block with opt-in (-gilu_cudaemu_arch) */
PETSC_EXTERN int            GILUEmuMultiProcessorCount(void);                  /* one per resident block (-gilu_cudaemu_resident) */
PETSC_EXTERN int            GILUEmuMaxGridX(void);                             /* a grid's largest x (-gilu_cudaemu_max_grid_x) */
PETSC_EXTERN int            GILUEmuDeviceCount(void);                          /* -gilu_cudaemu_devices (default 1) */
PETSC_EXTERN int            GILUEmuGetDevice(void);                            /* the current emulated device */
PETSC_EXTERN int            GILUEmuSetDevice(int);                             /* nonzero: no such device */
PETSC_EXTERN int            GILUEmuFuncSetMaxDynamicShared(const void *, int); /* nonzero: beyond the limit */
PETSC_EXTERN void           GILUEmuWaitUntilGE(volatile int *, int);
PETSC_EXTERN void           GILUEmuWaitCount(volatile int *, int, int); /* until *flag - base >= count modulo 2^32 */
/* the lane deposits *mine; returns all lanes' contributions (valid until the next warp operation + 1) */
PETSC_EXTERN const GILUEmuLaneData *GILUEmuWarpExchange(GILUEmuWarpOp, const GILUEmuLaneData *);
PETSC_EXTERN int                    GILUEmuWarpSize(void); /* lanes in the calling thread's warp */
/* the block's static shared array of the declaration site key (one per GILU_SHARED); poisoned (all bits 1) at block start */
PETSC_EXTERN void *GILUEmuStaticShared(const void *, size_t, size_t);
/* stops the launch with this error message (does not return) */
PETSC_EXTERN void GILUEmuFail(const char[]);

/* ------------------------------------------------------------------------------------------ counters
   What a kernel would cost on a GPU, counted by the emulation (cudaemu.c's head comment has the rules):
   - always: the runtime calls of the emulated device (launches, copies, synchronizations, allocations);
   - while active (-gilu_cudaemu_counters, or GILUEmuCountersSetActive()): per kernel instantiation and call site of
     gilu_ld/gilu_ld_cg/gilu_st, the warp-level requests, the 32-byte sectors they touch and the fewest sectors the
     bytes they ask for need; the critical path of each launch in dependent global round trips (a logical clock per
     thread), and per level when the host gave the launch its level count (gilu_launch_levels()).
   Memory classes (gilu_mem_class()) split the sector counts by what the memory holds. */
typedef enum {
  GILU_EMU_MEM_OTHER,  /* not classified (flags, counters, anything not given a class) */
  GILU_EMU_MEM_INDEX,  /* the plan's index arrays (permutations, tile pointers, offsets) */
  GILU_EMU_MEM_FACTOR, /* factor values (L, U, inverted diagonal blocks, the matrix being factored) */
  GILU_EMU_MEM_VECTOR, /* vectors (right-hand side, solution, intermediate) */
  GILU_EMU_MEM_NCLASS
} GILUEmuMemClass;
PETSC_EXTERN const char *const GILUEmuMemClassNames[];

typedef enum {
  GILU_EMU_RT_LAUNCH,
  GILU_EMU_RT_COPY_TO_DEVICE,
  GILU_EMU_RT_COPY_TO_HOST,
  GILU_EMU_RT_COPY_ON_DEVICE, /* device to device, host to host, cudaMemcpyDefault */
  GILU_EMU_RT_SYNC,           /* cudaDeviceSynchronize */
  GILU_EMU_RT_ALLOC,          /* cudaMalloc */
  GILU_EMU_RT_FREE,           /* cudaFree */
  GILU_EMU_RT_MEMSET,         /* cudaMemset */
  GILU_EMU_RT_NKIND
} GILUEmuRuntimeCall;
PETSC_EXTERN const char *const GILUEmuRuntimeCallNames[];

typedef struct {
  /* counted always, over all kernels (the runtime has no notion of which kernel a copy serves) */
  PetscInt64 runtime[GILU_EMU_RT_NKIND]; /* calls by kind; runtime[GILU_EMU_RT_LAUNCH]: launches of the kernels asked for */
  /* counted while active, over the kernels asked for: [0] loads, [1] stores */
  PetscInt64 requests[2][GILU_EMU_MEM_NCLASS]; /* warp-level requests */
  PetscInt64 sectors[2][GILU_EMU_MEM_NCLASS];  /* distinct 32-byte sectors per request, summed */
  PetscInt64 minimum[2][GILU_EMU_MEM_NCLASS];  /* ceil(distinct bytes / 32) per request, summed: sectors / minimum = 1 is coalesced */
  PetscInt64 critical;                         /* the longest critical path of one launch, in dependent round trips */
  PetscInt64 levelled_trips, levels;           /* over the launches that were given levels: critical paths and levels, summed */
} GILUEmuCounters;

PETSC_EXTERN PetscErrorCode GILUEmuCountersSetActive(PetscBool); /* counting of sectors and round trips on/off */
PETSC_EXTERN PetscErrorCode GILUEmuCountersGetActive(PetscBool *);
PETSC_EXTERN PetscErrorCode GILUEmuCountersReset(void);
/* the counters of the kernels whose instantiation name starts with the string (NULL: all kernels) */
PETSC_EXTERN PetscErrorCode GILUEmuCountersGet(const char[], GILUEmuCounters *);
/* per kernel and call site: requests, sectors, minimum and their ratio; round trips */
PETSC_EXTERN PetscErrorCode GILUEmuCountersView(PetscViewer);

/* the emulation's side of gilucuda.h's wrappers */
#if defined(__cplusplus)
extern "C" {
#endif
extern __thread int gilu_emu_counting PETSC_VISIBILITY_PUBLIC; /* nonzero while sectors and round trips are counted */
#if defined(__cplusplus)
}
#endif
PETSC_EXTERN void GILUEmuRuntime(GILUEmuRuntimeCall, const void *);    /* a runtime call; for cudaFree the pointer */
PETSC_EXTERN void GILUEmuAccess(const void *, int, int, const char[]); /* address, bytes, store, call site "file:line" */
PETSC_EXTERN void GILUEmuPublished(const void *, int);                 /* after a signal of that scope: its value is on the flag */
PETSC_EXTERN void GILUEmuSetLevels(int);                               /* the dependent levels of the next launch */
PETSC_EXTERN void GILUEmuMemClassSet(const void *, size_t, GILUEmuMemClass);

#endif
