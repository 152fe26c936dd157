/*
   cudaemu: runs CUDA kernels (compiled by the host compiler with -DGILU_CUDAEMU, see gilucuda.h) on the host.

   Every CUDA thread is a fiber (ucontext) with its own stack; all fibers of a launch run on the calling host
   thread and switch only where a GPU thread may wait for another: __syncthreads, warp operations (shuffle,
   vote, syncwarp, mma) and gilu_wait_until_ge. A scheduler context drives them:

   - Blocks are started in launch order (x fastest, then y, z). A new block is started only when every started
     block is finished or waiting, and at most GILU_EMU_MAX_RESIDENT blocks are started and unfinished at a
     time. Each pass of the scheduler runs, in block order and then thread order, every fiber that can proceed
     until it waits again or exits. So a block that waits for a block of lower index always completes, and a
     block may also wait for a later block as long as both fit among the resident ones (like a GPU).
   - A barrier completes when every thread of the block that has not exited has arrived; a warp operation when
     every lane of the warp has arrived (lanes at different warp operations, or a lane that exited while its
     warp waits, is an error). Shared memory is poisoned (all bits 1) when a block starts.
   - With the option -gilu_cudaemu_eager, up to GILU_EMU_MAX_RESIDENT blocks are started at once (still in launch
     order) and their threads interleave at every barrier, warp operation and wait, as resident blocks of a GPU
     run concurrently: a block that reads what an earlier block writes without waiting for it (a missing
     inter-block wait) then reads it before it is written, deterministically.
   - When a pass runs nothing and no block may be started, the launch is deadlocked: it stops with an error
     naming the kernel, the block, the thread and what it waits for. Errors raised inside a kernel
     (GILUEmuFail) stop the launch the same way; the fibers are dropped, the launch returns a PETSc error.
*/
#include <petscgilu/private/cudaemu.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <unistd.h>

#define GILU_EMU_MAX_RESIDENT   16
#define GILU_EMU_STACK          (256 * 1024)
#define GILU_EMU_STATIC_SHARED  (48 * 1024)
#define GILU_EMU_DYNAMIC_SHARED (227 * 1024)
#define GILU_EMU_MAX_SITES      64

typedef enum {
  FIBER_READY,
  FIBER_BARRIER,
  FIBER_WARP,
  FIBER_FLAG,
  FIBER_DONE
} FiberState;

typedef struct _Block Block;

typedef struct {
  struct _n_GILUEmuThread t;
  ucontext_t              ctx;
  FiberState              state;
  unsigned long           waitgen;
  volatile int           *flag;
  int                     value;
  Block                  *block;
  char                   *stack;
} Fiber;

typedef struct {
  unsigned long   gen;     /* completed operations */
  int             arrived; /* lanes waiting at the current one */
  int             nlanes, nexited;
  GILUEmuWarpOp   op;
  GILUEmuLaneData buf[2][32]; /* by parity of gen: a lane may start the next operation while others still read */
} Warp;

struct _Block {
  long          index; /* linear block index; -1: slot free */
  GILUEmuUInt3  blockIdx;
  Fiber        *fibers;
  char         *stacks;
  size_t        stacksbytes;
  int           nthreads, live;
  unsigned long bargen;
  int           bararrived;
  Warp         *warps;
  int           nwarps;
  unsigned char *shared; /* static part, then dynamic part */
  size_t         staticused;
  int            nsites;
  const void    *sitekey[GILU_EMU_MAX_SITES];
  size_t         siteoff[GILU_EMU_MAX_SITES];
};

typedef struct {
  const char  *name;
  GILUEmuUInt3 grid, bdim;
  size_t       shmem;
  void (*body)(void *);
  void      *ctx;
  long       nblocks, next;
  Block      slots[GILU_EMU_MAX_RESIDENT];
  Block     *active[GILU_EMU_MAX_RESIDENT]; /* started, unfinished blocks by increasing index */
  int        nactive;
  ucontext_t sched;
  PetscBool  failed;
  PetscBool  eager; /* -gilu_cudaemu_eager: start as many blocks as may be resident before each pass */
  char       err[1024];
} Launch;

__thread GILUEmuThread gilu_emu_self = NULL;
static __thread Launch *emu_launch    = NULL;
static __thread char    emu_lasterr[1024];

const char *GILUEmuLastError(void)
{
  return emu_lasterr;
}

static inline Fiber *Self(void)
{
  return (Fiber *)gilu_emu_self->priv;
}

/* back to the scheduler; returns when the scheduler runs this fiber again */
static void Yield(Fiber *f)
{
  GILUEmuThread me = gilu_emu_self;

  (void)swapcontext(&f->ctx, &emu_launch->sched);
  gilu_emu_self = me;
}

static int WhereIs(char *s, size_t n, const Fiber *f)
{
  return snprintf(s, n, "block (%u,%u,%u) thread (%u,%u,%u)", f->t.blockIdx.x, f->t.blockIdx.y, f->t.blockIdx.z, f->t.threadIdx.x, f->t.threadIdx.y, f->t.threadIdx.z);
}

void GILUEmuFail(const char msg[])
{
  Fiber *f = Self();
  char   where[128];

  (void)WhereIs(where, sizeof(where), f);
  if (!emu_launch->failed) (void)snprintf(emu_launch->err, sizeof(emu_launch->err), "cudaemu: kernel %s, %s: %s", emu_launch->name, where, msg);
  emu_launch->failed = PETSC_TRUE;
  f->state           = FIBER_DONE;
  for (;;) Yield(f); /* the scheduler never resumes a failed launch */
}

void GILUEmuYield(void)
{
  Yield(Self());
}

void GILUEmuSyncThreads(void)
{
  Fiber *f = Self();
  Block *b = f->block;

  if (++b->bararrived == b->live) {
    b->bararrived = 0;
    b->bargen++;
    return;
  }
  f->state   = FIBER_BARRIER;
  f->waitgen = b->bargen;
  Yield(f);
  f->state = FIBER_READY;
}

void GILUEmuWaitUntilGE(volatile int *flag, int value)
{
  Fiber *f = Self();

  if (*flag >= value) return;
  f->state = FIBER_FLAG;
  f->flag  = flag;
  f->value = value;
  Yield(f);
  f->state = FIBER_READY;
}

static const char *WarpOpName(GILUEmuWarpOp op)
{
  switch (op) {
  case GILU_EMU_WARP_SYNC:
    return "__syncwarp";
  case GILU_EMU_WARP_SHFL:
    return "a shuffle";
  case GILU_EMU_WARP_VOTE:
    return "a vote (ballot/any/all)";
  default:
    return "gilu_mma_m8n8k4_f64";
  }
}

int GILUEmuWarpSize(void)
{
  Fiber *f = Self();

  return f->block->warps[f->t.warp].nlanes;
}

const GILUEmuLaneData *GILUEmuWarpExchange(GILUEmuWarpOp op, const GILUEmuLaneData *mine)
{
  Fiber *f = Self();
  Warp  *w = &f->block->warps[f->t.warp];
  int    slot;
  char   msg[256];

  if (w->nexited) {
    (void)snprintf(msg, sizeof(msg), "%s in warp %d, where %d lane(s) already exited (warp operations need all lanes)", WarpOpName(op), f->t.warp, w->nexited);
    GILUEmuFail(msg);
  }
  if (w->arrived == 0) w->op = op;
  else if (w->op != op) {
    (void)snprintf(msg, sizeof(msg), "lane %d of warp %d is at %s while %d other lane(s) wait at %s (divergent warp operations)", f->t.lane, f->t.warp, WarpOpName(op), w->arrived, WarpOpName(w->op));
    GILUEmuFail(msg);
  }
  slot                   = (int)(w->gen & 1);
  w->buf[slot][f->t.lane] = *mine;
  if (++w->arrived == w->nlanes) {
    w->arrived = 0;
    w->gen++;
    return w->buf[slot];
  }
  f->state   = FIBER_WARP;
  f->waitgen = w->gen;
  Yield(f);
  f->state = FIBER_READY;
  return w->buf[slot];
}

void *GILUEmuStaticShared(const void *key, size_t bytes, size_t align)
{
  Fiber *f = Self();
  Block *b = f->block;
  size_t off;
  int    i;

  for (i = 0; i < b->nsites; i++)
    if (b->sitekey[i] == key) return b->shared + b->siteoff[i];
  if (align < 16) align = 16;
  off = (b->staticused + align - 1) / align * align;
  if (b->nsites == GILU_EMU_MAX_SITES || off + bytes > GILU_EMU_STATIC_SHARED) {
    char msg[160];

    (void)snprintf(msg, sizeof(msg), "static shared memory exceeds %d bytes or %d declarations", GILU_EMU_STATIC_SHARED, GILU_EMU_MAX_SITES);
    GILUEmuFail(msg);
  }
  b->sitekey[b->nsites]   = key;
  b->siteoff[b->nsites++] = off;
  b->staticused           = off + bytes;
  return b->shared + off;
}

static void ThreadExit(Fiber *f)
{
  Block *b = f->block;
  Warp  *w = &b->warps[f->t.warp];

  f->state = FIBER_DONE;
  b->live--;
  w->nexited++;
  if (b->bararrived > 0 && b->bararrived == b->live) { /* exited threads do not hold a barrier up */
    b->bararrived = 0;
    b->bargen++;
  }
  if (w->arrived > 0) {
    char msg[160];

    (void)snprintf(msg, sizeof(msg), "exits while %d lane(s) of its warp wait at %s", w->arrived, WarpOpName(w->op));
    GILUEmuFail(msg);
  }
}

static void FiberMain(void)
{
  Fiber *f = Self();

  emu_launch->body(emu_launch->ctx);
  ThreadExit(f);
  for (;;) Yield(f);
}

static PetscErrorCode BlockFree(Block *b)
{
  PetscFunctionBegin;
  if (b->stacks) PetscCheck(!munmap(b->stacks, b->stacksbytes), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap() failed");
  PetscCall(PetscFree(b->fibers));
  PetscCall(PetscFree(b->warps));
  PetscCall(PetscFree(b->shared));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* start block number idx in slot b (its memory is allocated on first use and reused by later blocks) */
static PetscErrorCode BlockStart(Launch *L, Block *b, long idx)
{
  int    n = (int)(L->bdim.x * L->bdim.y * L->bdim.z), i;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);

  PetscFunctionBegin;
  if (!b->fibers) {
    b->nthreads    = n;
    b->nwarps      = (n + 31) / 32;
    b->stacksbytes = (size_t)n * GILU_EMU_STACK;
    b->stacks      = (char *)mmap(NULL, b->stacksbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    PetscCheck(b->stacks != MAP_FAILED, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaemu: cannot map %zu bytes of thread stacks", b->stacksbytes);
    for (i = 0; i < n; i++) PetscCheck(!mprotect(b->stacks + (size_t)i * GILU_EMU_STACK, page, PROT_NONE), PETSC_COMM_SELF, PETSC_ERR_SYS, "mprotect() failed"); /* guard pages */
    PetscCall(PetscCalloc1(n, &b->fibers));
    PetscCall(PetscCalloc1(b->nwarps, &b->warps));
    PetscCall(PetscMalloc1(GILU_EMU_STATIC_SHARED + L->shmem + 16, &b->shared));
  }
  b->index      = idx;
  b->blockIdx.x = (unsigned int)(idx % L->grid.x);
  b->blockIdx.y = (unsigned int)((idx / L->grid.x) % L->grid.y);
  b->blockIdx.z = (unsigned int)(idx / ((long)L->grid.x * L->grid.y));
  b->live       = n;
  b->bargen     = 0;
  b->bararrived = 0;
  b->staticused = 0;
  b->nsites     = 0;
  PetscCall(PetscMemzero(b->warps, b->nwarps * sizeof(Warp)));
  for (i = 0; i < b->nwarps; i++) b->warps[i].nlanes = PetscMin(32, n - 32 * i);
  memset(b->shared, 0xff, GILU_EMU_STATIC_SHARED + L->shmem + 16);
  for (i = 0; i < n; i++) {
    Fiber *f = &b->fibers[i];

    f->t.threadIdx.x = (unsigned int)(i % L->bdim.x);
    f->t.threadIdx.y = (unsigned int)((i / L->bdim.x) % L->bdim.y);
    f->t.threadIdx.z = (unsigned int)(i / (L->bdim.x * L->bdim.y));
    f->t.blockIdx    = b->blockIdx;
    f->t.blockDim    = L->bdim;
    f->t.gridDim     = L->grid;
    f->t.lane        = i % 32;
    f->t.warp        = i / 32;
    f->t.dynshared   = b->shared + GILU_EMU_STATIC_SHARED;
    f->t.priv        = f;
    f->state         = FIBER_READY;
    f->block         = b;
    f->stack         = b->stacks + (size_t)i * GILU_EMU_STACK;
    PetscCheck(!getcontext(&f->ctx), PETSC_COMM_SELF, PETSC_ERR_SYS, "getcontext() failed");
    f->ctx.uc_stack.ss_sp   = f->stack + page;
    f->ctx.uc_stack.ss_size = GILU_EMU_STACK - page;
    f->ctx.uc_link          = NULL;
    makecontext(&f->ctx, FiberMain, 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int Runnable(const Fiber *f)
{
  switch (f->state) {
  case FIBER_READY:
    return 1;
  case FIBER_BARRIER:
    return f->block->bargen != f->waitgen;
  case FIBER_WARP:
    return f->block->warps[f->t.warp].gen != f->waitgen;
  case FIBER_FLAG:
    return *f->flag >= f->value;
  default:
    return 0;
  }
}

/* names the first thread of the lowest unfinished block that waits for a flag (the usual cause), else for its
   warp, else at the barrier; with a count of the block's waiting threads by kind */
static void DescribeDeadlock(Launch *L)
{
  const Block     *b = L->active[0];
  const Fiber     *f = NULL;
  const FiberState prefer[] = {FIBER_FLAG, FIBER_WARP, FIBER_BARRIER};
  char             where[128], what[256];
  int              i, k, count[FIBER_DONE + 1] = {0};

  for (i = 0; i < b->nthreads; i++) count[b->fibers[i].state]++;
  for (k = 0; k < 3 && !f; k++)
    for (i = 0; i < b->nthreads && !f; i++)
      if (b->fibers[i].state == prefer[k]) f = &b->fibers[i];
  if (!f) return;
  (void)WhereIs(where, sizeof(where), f);
  switch (f->state) {
  case FIBER_BARRIER:
    (void)snprintf(what, sizeof(what), "waits at __syncthreads (%d of %d live threads arrived)", b->bararrived, b->live);
    break;
  case FIBER_WARP:
    (void)snprintf(what, sizeof(what), "waits at %s (%d of %d lanes of warp %d arrived)", WarpOpName(b->warps[f->t.warp].op), b->warps[f->t.warp].arrived, b->warps[f->t.warp].nlanes, f->t.warp);
    break;
  default:
    (void)snprintf(what, sizeof(what), "waits in gilu_wait_until_ge(%p, %d) and the flag is %d", (void *)f->flag, f->value, *f->flag);
    break;
  }
  (void)snprintf(L->err, sizeof(L->err),
                 "cudaemu: kernel %s deadlocks: no thread can proceed; %s %s. In this block %d thread(s) wait in gilu_wait_until_ge, %d at warp operations, %d at __syncthreads; %d block(s) started and unfinished, %ld not started (at most %d resident)",
                 L->name, where, what, count[FIBER_FLAG], count[FIBER_WARP], count[FIBER_BARRIER], L->nactive, L->nblocks - L->next, GILU_EMU_MAX_RESIDENT);
}

static PetscErrorCode Schedule(Launch *L)
{
  PetscFunctionBegin;
  for (;;) {
    PetscBool progress = PETSC_FALSE;
    int       a, i, j;

    while (L->eager && L->next < L->nblocks && L->nactive < GILU_EMU_MAX_RESIDENT) {
      Block *slot = NULL;

      for (i = 0; i < GILU_EMU_MAX_RESIDENT && !slot; i++)
        if (L->slots[i].index < 0) slot = &L->slots[i];
      PetscCall(BlockStart(L, slot, L->next++));
      L->active[L->nactive++] = slot;
    }

    for (a = 0; a < L->nactive; a++) {
      Block *b = L->active[a];

      for (i = 0; i < b->nthreads; i++) {
        Fiber *f = &b->fibers[i];

        if (!Runnable(f)) continue;
        progress      = PETSC_TRUE;
        gilu_emu_self = &f->t;
        PetscCheck(!swapcontext(&L->sched, &f->ctx), PETSC_COMM_SELF, PETSC_ERR_SYS, "swapcontext() failed");
        gilu_emu_self = NULL;
        if (L->failed) PetscFunctionReturn(PETSC_SUCCESS);
      }
      if (b->live == 0) { /* finished: free the slot, keep the order of the others */
        b->index = -1;
        for (j = a; j < L->nactive - 1; j++) L->active[j] = L->active[j + 1];
        L->nactive--;
        a--;
      }
    }
    if (progress) continue;
    if (L->next < L->nblocks && L->nactive < GILU_EMU_MAX_RESIDENT) {
      Block *slot = NULL;

      for (i = 0; i < GILU_EMU_MAX_RESIDENT && !slot; i++)
        if (L->slots[i].index < 0) slot = &L->slots[i];
      PetscCall(BlockStart(L, slot, L->next++));
      L->active[L->nactive++] = slot;
      continue;
    }
    if (L->nactive == 0) break; /* all blocks done */
    DescribeDeadlock(L);
    L->failed = PETSC_TRUE;
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   GILUEmuLaunch - runs kernel body(ctx) on a grid of blocks of threads (synchronously); called by GILU_LAUNCH

   Errors in the kernel (deadlock, divergent warp operations, ...) are returned as PETSC_ERR_LIB with the
   message, which GILUEmuLastError() also gives (empty after a successful launch).
*/
PetscErrorCode GILUEmuLaunch(const char name[], GILUEmuUInt3 grid, GILUEmuUInt3 block, size_t shmem, void (*body)(void *), void *ctx)
{
  Launch        *L;
  long           nthreads = (long)block.x * block.y * block.z;
  PetscErrorCode ierr;
  int            i;

  PetscFunctionBegin;
  emu_lasterr[0] = 0;
  PetscCheck(!emu_launch, PETSC_COMM_SELF, PETSC_ERR_SUP, "cudaemu: kernel %s launched from inside kernel %s (dynamic parallelism is not emulated)", name, emu_launch->name);
  PetscCheck(grid.x > 0 && grid.y > 0 && grid.z > 0 && grid.y < 65536 && grid.z < 65536, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid grid (%u,%u,%u)", name, grid.x, grid.y, grid.z);
  PetscCheck(nthreads > 0 && nthreads <= 1024 && block.z <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid block (%u,%u,%u): 1 to 1024 threads", name, block.x, block.y, block.z);
  PetscCheck(shmem <= GILU_EMU_DYNAMIC_SHARED, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: %zu bytes of dynamic shared memory, more than %d", name, shmem, GILU_EMU_DYNAMIC_SHARED);
  PetscCall(PetscNew(&L));
  L->name    = name;
  L->grid    = grid;
  L->bdim    = block;
  L->shmem   = shmem;
  L->body    = body;
  L->ctx     = ctx;
  L->nblocks = (long)grid.x * grid.y * grid.z;
  for (i = 0; i < GILU_EMU_MAX_RESIDENT; i++) L->slots[i].index = -1;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gilu_cudaemu_eager", &L->eager, NULL));
  emu_launch = L;
  ierr       = Schedule(L);
  emu_launch = NULL;
  for (i = 0; i < GILU_EMU_MAX_RESIDENT; i++) PetscCall(BlockFree(&L->slots[i]));
  if (!ierr && L->failed) PetscCall(PetscStrncpy(emu_lasterr, L->err, sizeof(emu_lasterr)));
  PetscCall(PetscFree(L));
  PetscCall(ierr);
  PetscCheck(!emu_lasterr[0], PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", emu_lasterr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
