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

   This file is C-includable (the C part declares the self-test entry points; the runtime's entry points are
   internal to the library); the C++ part is only seen when compiling a .cu file with -DGILU_CUDAEMU.
*/
#ifndef PETSCGILU_CUDAEMU_H
#define PETSCGILU_CUDAEMU_H

#include <petscsys.h>
#include <petscgilu/private/compat.h>
#include <petscgiluconf.h>

/*
   PetscGILUCUDASelfTest_cudaemu - runs one self-test of the CUDA emulation (developer level; used by tests/ex4.c)

   Input Parameter:
.  name - the test: "reduce_barrier", "reduce_nobarrier", "warp_shfl", "warp_vote", "spin_intrablock",
          "interblock_chain", "mma", "dynamic_shared", "static_shared", "shared_optin", "atomics",
          "deadlock_flag", "deadlock_barrier", "divergent_warp", "blockidx_order", "signal_nofence", "barrier_sites"

   Output Parameter:
.  ok - PETSC_TRUE when the emulation behaved as expected (for the broken kernels: the error was reported)

   Notes:
   An unknown name is an error. PetscGILUCUDASelfTest() (only in builds with CUDA) runs the same kernels on a
   GPU; there the tests that need the emulation's checks (missing barrier, deadlocks) report ok without running.
*/
PETSC_EXTERN PetscErrorCode PetscGILUCUDASelfTest_cudaemu(const char[], PetscBool *);
#if defined(PETSCGILU_HAVE_CUDA)
PETSC_EXTERN PetscErrorCode PetscGILUCUDASelfTest(const char[], PetscBool *);
#endif

/* lists the emulation's options in -help (once per process; the launches read them) */
PETSC_INTERN PetscErrorCode GILUEmuOptionsHelp(MPI_Comm);

/* ------------------------------------------------------------------------------------------ runtime (internal) */
typedef struct {
  unsigned int x, y, z;
} GILUEmuUInt3;

typedef struct _n_GILUEmuThread *GILUEmuThread;
struct _n_GILUEmuThread {
  GILUEmuUInt3  threadIdx, blockIdx, blockDim, gridDim;
  int           lane, warp; /* lane in the warp, warp in the block (threads numbered x fastest) */
  unsigned char *dynshared; /* the block's dynamic shared memory */
  void          *priv;      /* the runtime's per-thread state */
};

/* The thread (fiber) that is running now; NULL outside a kernel */
#if defined(__cplusplus)
extern "C" {
#endif
extern __thread GILUEmuThread gilu_emu_self PETSC_VISIBILITY_INTERNAL;
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

/* key: the kernel (for its cudaFuncSetAttribute opt-in); name: its instantiation (for the launch log) */
PETSC_INTERN PetscErrorCode GILUEmuLaunch(const void *, const char[], GILUEmuUInt3, GILUEmuUInt3, size_t, void (*)(void *), void *);
PETSC_INTERN const char    *GILUEmuLastError(void);
PETSC_INTERN void           GILUEmuSyncThreads(const char[]); /* the call site, "file:line" */
PETSC_INTERN void           GILUEmuFence(int);                 /* 1: __threadfence_block, 2: __threadfence */
PETSC_INTERN void           GILUEmuSignal(const void *, int);  /* a signal of that scope on that flag: checks the fence */
PETSC_INTERN int            GILUEmuSharedOptinLimit(void);     /* bytes per block with opt-in (-gilu_cudaemu_arch) */
PETSC_INTERN int            GILUEmuDeviceCount(void);          /* -gilu_cudaemu_devices (default 1) */
PETSC_INTERN int            GILUEmuGetDevice(void);            /* the current emulated device */
PETSC_INTERN int            GILUEmuSetDevice(int);             /* nonzero: no such device */
PETSC_INTERN int            GILUEmuFuncSetMaxDynamicShared(const void *, int); /* nonzero: beyond the limit */
PETSC_INTERN void           GILUEmuWaitUntilGE(volatile int *, int);
PETSC_INTERN void           GILUEmuYield(void);
/* the lane deposits *mine; returns all lanes' contributions (valid until the next warp operation + 1) */
PETSC_INTERN const GILUEmuLaneData *GILUEmuWarpExchange(GILUEmuWarpOp, const GILUEmuLaneData *);
PETSC_INTERN int                    GILUEmuWarpSize(void); /* lanes in the calling thread's warp */
/* the block's static shared array of the declaration site key (one per GILU_SHARED); poisoned (all bits 1) at block start */
PETSC_INTERN void *GILUEmuStaticShared(const void *, size_t, size_t);
/* stops the launch with this error message (does not return) */
PETSC_INTERN void GILUEmuFail(const char[]);

#endif
