/*
   cudaemu: runs CUDA kernels (compiled by the host compiler with -DGILU_CUDAEMU, see gilucuda.h) on the host, under
   any schedule a GPU may choose.

   Every CUDA thread is a fiber with its own stack; all fibers of a launch run on the calling host thread and switch
   only where a GPU thread may wait for another: __syncthreads, warp operations (shuffle, vote, syncwarp, mma) and
   gilu_wait_until_ge. The switch is a few instructions in user space (x86-64; ucontext elsewhere); the stacks are
   kept from launch to launch. A scheduler context drives the fibers:

   - Resident blocks: at most R blocks (-gilu_cudaemu_resident, default 4) are started and unfinished at a time, as
     on a GPU whose SMs hold R blocks; a block is started as soon as a slot is free. Which block is started next is
     the dispatch policy (-gilu_cudaemu_block_order inorder|reverse|random[:SEED]): the CUDA programming model does
     not promise dispatch in index order, so a block that spins on a block of lower index that is not resident
     deadlocks, and the emulation reports it.
   - Passes: each pass runs every fiber that can proceed until it waits again or exits, the resident blocks and the
     threads of each block in the thread order (-gilu_cudaemu_thread_order inorder|reverse|random[:SEED], random
     drawn anew each pass). A wait (gilu_wait_until_ge) always yields once before it tests its flag, so other
     threads and blocks run between a thread's waits: a dependency that a test's ordering happened to have
     computed first (rows in level order, lower threads first) is not there under reverse or random order.
   - -gilu_cudaemu_schedule POLICY sets both orders; the environment variable GILU_CUDAEMU_SCHEDULE does the same
     for a run without the option (make check runs the emulated tests under inorder, reverse and random). The seed
     of random: random:SEED, or -gilu_cudaemu_seed SEED (harness loops cannot hold a colon), default 1.
   - A barrier completes when every thread of the block that has not exited has arrived; all of them must have
     arrived from the same call site (bar.sync is .aligned). A warp operation completes when every lane of the warp
     has arrived at the same kind of operation (__syncwarp: the same call site). Shared memory is poisoned (all bits
     1) when a block starts.
   - Memory: a GPU makes a thread's stores visible to other blocks only in the order a fence gives. The emulation
     records each thread's fences: a signal (gilu_signal_set/add: device scope; gilu_signal_set_block: block scope)
     made without a fence of its scope since the thread's previous signal stops the launch with an error (another
     block could see the flag before the data). Atomics are relaxed, as CUDA's are.
   - Shared memory: static + dynamic at most 48 KiB per block unless the kernel opted in with
     cudaFuncSetAttribute(MaxDynamicSharedMemorySize) for at least its dynamic size, and never more than the opt-in
     limit of the emulated architecture (-gilu_cudaemu_arch sm_80: 163 KiB, sm_90: 227 KiB; default sm_80).
   - When a pass runs nothing and no block may be started, the launch is deadlocked: it stops with an error naming
     the kernel, the block, the thread and what it waits for. Errors raised inside a kernel (GILUEmuFail) stop the
     launch the same way; the fibers are dropped, the launch returns a PETSc error.
   - GILU_CUDAEMU_LAUNCH_LOG=FILE appends the name of each kernel instantiation a process launches (once) to FILE:
     make check compares them with the instantiations nvcc emits.
*/
#include <petscgilu/private/cudaemu.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>

#define GILU_EMU_MAX_RESIDENT     64 /* the largest -gilu_cudaemu_resident */
#define GILU_EMU_DEFAULT_RESIDENT 4
#define GILU_EMU_STACK            (256 * 1024)
#define GILU_EMU_SHARED_DEFAULT   (48 * 1024) /* static + dynamic without opt-in */
#define GILU_EMU_MAX_SITES        64
#define GILU_EMU_MAX_OPTIN        256 /* kernels with a cudaFuncSetAttribute opt-in */

/* ------------------------------------------------------------------------------------------ fiber switch */
#if defined(__x86_64__) && defined(__GNUC__)
/* gilu_emu_switch(&save, load): saves the callee-saved registers, MXCSR and the x87 control word on the current
   stack, stores the stack pointer in save, continues on the stack load (no signal mask: no system call) */
typedef struct {
  void *sp;
} Context;
void gilu_emu_switch(void **, void *) __asm__("gilu_emu_switch") PETSC_VISIBILITY_INTERNAL;
__asm__(".text\n"
        ".p2align 4\n"
        ".globl gilu_emu_switch\n"
        ".hidden gilu_emu_switch\n"
        ".type gilu_emu_switch,@function\n"
        "gilu_emu_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size gilu_emu_switch, .-gilu_emu_switch\n");
static inline void SwitchTo(Context *save, Context *load)
{
  gilu_emu_switch(&save->sp, load->sp);
}
/* a new fiber's stack as gilu_emu_switch leaves one: control words, six registers, then the return address entry
   (with a zero return address above it, so entry starts with the stack aligned as after a call) */
static PetscErrorCode ContextMake(Context *c, char *stack, size_t size, void (*entry)(void))
{
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void    **sp  = (void **)(top - 72);
  unsigned  mxcsr;
  unsigned short cw;

  PetscFunctionBegin;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  memset(sp, 0, 72);
  memcpy((char *)sp, &mxcsr, 4);
  memcpy((char *)sp + 4, &cw, 2);
  sp[7]  = (void *)entry;
  c->sp  = sp;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
  #include <ucontext.h>
typedef struct {
  ucontext_t uc;
} Context;
static inline void SwitchTo(Context *save, Context *load)
{
  (void)swapcontext(&save->uc, &load->uc);
}
static PetscErrorCode ContextMake(Context *c, char *stack, size_t size, void (*entry)(void))
{
  PetscFunctionBegin;
  PetscCheck(!getcontext(&c->uc), PETSC_COMM_SELF, PETSC_ERR_SYS, "getcontext() failed");
  c->uc.uc_stack.ss_sp   = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link          = NULL;
  makecontext(&c->uc, entry, 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* ------------------------------------------------------------------------------------------ state */
typedef enum {
  FIBER_READY,
  FIBER_BARRIER,
  FIBER_WARP,
  FIBER_FLAG,
  FIBER_DONE
} FiberState;

typedef enum {
  ORDER_INORDER,
  ORDER_REVERSE,
  ORDER_RANDOM
} Order;
static const char *const OrderNames[] = {"inorder", "reverse", "random"};

typedef struct _Block Block;

typedef struct {
  struct _n_GILUEmuThread t;
  Context                 ctx;
  FiberState              state;
  unsigned long           waitgen;
  volatile int           *flag;
  int                     value;
  int                     fenced; /* the widest fence (1 block, 2 device) since the thread's last signal */
  Block                  *block;
} Fiber;

typedef struct {
  unsigned long   gen;     /* completed operations */
  int             arrived; /* lanes waiting at the current one */
  int             nlanes, nexited;
  GILUEmuWarpOp   op;
  const char     *site;       /* __syncwarp: where the first lane arrived */
  GILUEmuLaneData buf[2][32]; /* by parity of gen: a lane may start the next operation while others still read */
} Warp;

/* a resident-block slot; its memory (stacks, fibers, warps, shared memory) is kept from launch to launch */
struct _Block {
  long           index; /* linear block index; -1: slot free */
  GILUEmuUInt3   blockIdx;
  Fiber         *fibers;
  int           *order; /* the threads in this pass's order */
  char          *stacks;
  size_t         stacksbytes;
  int            capacity; /* threads the memory holds */
  int            nthreads, live;
  unsigned long  bargen;
  int            bararrived;
  const char    *barsite; /* where the first thread of the current barrier arrived */
  Warp          *warps;
  int            nwarps;
  unsigned char *shared; /* static part (at most the opt-in limit), then dynamic part */
  size_t         sharedbytes, staticused;
  int            nsites;
  const void    *sitekey[GILU_EMU_MAX_SITES];
  size_t         siteoff[GILU_EMU_MAX_SITES];
};

typedef struct {
  const char  *name; /* the instantiation, "StructILUForward<17>" */
  char         namebuf[256];
  GILUEmuUInt3 grid, bdim;
  size_t       shmem, sharedlimit; /* dynamic bytes; static + dynamic allowed */
  void (*body)(void *);
  void              *ctx;
  long               nblocks, next;
  long              *dispatch; /* random block order: the permutation (else NULL) */
  Block             *active[GILU_EMU_MAX_RESIDENT]; /* started, unfinished blocks in start order */
  int                nactive, resident;
  Order              blockorder, threadorder;
  unsigned long long rng;
  Context            sched;
  PetscBool          failed;
  char               err[1024];
} Launch;

__thread GILUEmuThread gilu_emu_self = NULL;
static __thread Launch *emu_launch    = NULL;
static __thread char    emu_lasterr[1024];
static __thread Block   emu_slots[GILU_EMU_MAX_RESIDENT]; /* kept from launch to launch, freed at PetscFinalize() */
static __thread PetscBool emu_finalize_registered = PETSC_FALSE;
static __thread unsigned long long emu_nlaunch = 0; /* launches so far: each random launch gets its own stream */

/* opt-ins of cudaFuncSetAttribute(MaxDynamicSharedMemorySize), per kernel */
static struct {
  const void *kernel;
  int         bytes;
} emu_optin[GILU_EMU_MAX_OPTIN];
static int emu_noptin = 0;

const char *GILUEmuLastError(void)
{
  return emu_lasterr;
}

static inline Fiber *Self(void)
{
  return (Fiber *)gilu_emu_self->priv;
}

/* splitmix64 */
static inline unsigned long long Random(unsigned long long *state)
{
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* back to the scheduler; returns when the scheduler runs this fiber again */
static void Yield(Fiber *f)
{
  GILUEmuThread me = gilu_emu_self;

  SwitchTo(&f->ctx, &emu_launch->sched);
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

void GILUEmuSyncThreads(const char site[])
{
  Fiber *f = Self();
  Block *b = f->block;

  if (b->bararrived == 0) b->barsite = site;
  else if (b->barsite != site && strcmp(b->barsite, site)) {
    char msg[512];

    (void)snprintf(msg, sizeof(msg), "reaches __syncthreads at %s while %d thread(s) of its block wait at the one at %s (a barrier must be reached by all threads at the same call site)", site, b->bararrived, b->barsite);
    GILUEmuFail(msg);
  }
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

/* always yields once before the flag is tested: the other threads and blocks run first */
void GILUEmuWaitUntilGE(volatile int *flag, int value)
{
  Fiber *f = Self();

  f->state = FIBER_FLAG;
  f->flag  = flag;
  f->value = value;
  Yield(f);
  f->state = FIBER_READY;
}

void GILUEmuFence(int scope)
{
  Fiber *f;

  if (!gilu_emu_self) return;
  f = Self();
  if (scope > f->fenced) f->fenced = scope;
}

void GILUEmuSignal(const void *flag, int scope)
{
  Fiber *f = Self();

  if (f->fenced < scope) {
    char msg[320];

    (void)snprintf(msg, sizeof(msg), "signals the flag at %p without a %s since its previous signal: another %s may see the flag before the data it publishes", flag, scope == 2 ? "__threadfence()" : "__threadfence_block() or __threadfence()", scope == 2 ? "block" : "thread");
    GILUEmuFail(msg);
  }
  f->fenced = 0;
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
  char   msg[512];

  if (w->nexited) {
    (void)snprintf(msg, sizeof(msg), "%s in warp %d, where %d lane(s) already exited (warp operations need all lanes)", WarpOpName(op), f->t.warp, w->nexited);
    GILUEmuFail(msg);
  }
  if (w->arrived == 0) {
    w->op   = op;
    w->site = mine->site;
  } else if (w->op != op) {
    (void)snprintf(msg, sizeof(msg), "lane %d of warp %d is at %s while %d other lane(s) wait at %s (divergent warp operations)", f->t.lane, f->t.warp, WarpOpName(op), w->arrived, WarpOpName(w->op));
    GILUEmuFail(msg);
  } else if (op == GILU_EMU_WARP_SYNC && w->site != mine->site && strcmp(w->site, mine->site)) {
    (void)snprintf(msg, sizeof(msg), "lane %d of warp %d is at the __syncwarp at %s while %d other lane(s) wait at the one at %s", f->t.lane, f->t.warp, mine->site, w->arrived, w->site);
    GILUEmuFail(msg);
  }
  slot                    = (int)(w->gen & 1);
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
  if (b->nsites == GILU_EMU_MAX_SITES || off + bytes + emu_launch->shmem > emu_launch->sharedlimit) {
    char msg[256];

    (void)snprintf(msg, sizeof(msg), "static shared memory (%zu bytes so far) and dynamic (%zu) exceed the %zu bytes per block this launch may use (48 KiB without cudaFuncSetAttribute's opt-in; the opt-in limit of the architecture), or %d declarations", off + bytes, emu_launch->shmem, emu_launch->sharedlimit, GILU_EMU_MAX_SITES);
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

/* ------------------------------------------------------------------------------------------ options */
static int ArchOptinLimit(void)
{
  char      arch[16] = "sm_80";
  PetscBool set;

  if (PetscOptionsGetString(NULL, NULL, "-gilu_cudaemu_arch", arch, sizeof(arch), &set)) return 166912;
  if (set && !strcmp(arch, "sm_90")) return 232448; /* H100, H200: 227 KiB */
  return 166912;                                    /* A100: 163 KiB */
}

int GILUEmuSharedOptinLimit(void)
{
  return ArchOptinLimit();
}

/* the emulated device has one multiprocessor per resident block (-gilu_cudaemu_resident), each holding one block at a time
   (cudaOccupancyMaxActiveBlocksPerMultiprocessor() gives 1): a persistent grid sized from them is as small as
   the emulation's residency, so its blocks take many work units each in the tests */
int GILUEmuMultiProcessorCount(void)
{
  PetscInt resident = GILU_EMU_DEFAULT_RESIDENT;

  if (PetscOptionsGetInt(NULL, NULL, "-gilu_cudaemu_resident", &resident, NULL)) return GILU_EMU_DEFAULT_RESIDENT;
  return resident >= 1 && resident <= GILU_EMU_MAX_RESIDENT ? (int)resident : GILU_EMU_DEFAULT_RESIDENT;
}

/* -gilu_cudaemu_devices N: the emulated node has N devices (default 1), all of them the same emulated one, so that
   the choice of device by the rank on its node (GILUDeviceSelect()) runs in the tests */
static int emu_current_device = 0;

int GILUEmuDeviceCount(void)
{
  PetscInt  n = 1;
  PetscBool set;

  if (PetscOptionsGetInt(NULL, NULL, "-gilu_cudaemu_devices", &n, &set) || !set || n < 1) return 1;
  return n > 64 ? 64 : (int)n;
}

int GILUEmuGetDevice(void)
{
  return emu_current_device;
}

int GILUEmuSetDevice(int d)
{
  if (d < 0 || d >= GILUEmuDeviceCount()) return 1;
  emu_current_device = d;
  return 0;
}

int GILUEmuFuncSetMaxDynamicShared(const void *kernel, int bytes)
{
  int i;

  if (bytes < 0 || bytes > ArchOptinLimit()) return 1;
  for (i = 0; i < emu_noptin; i++)
    if (emu_optin[i].kernel == kernel) break;
  if (i == GILU_EMU_MAX_OPTIN) return 1;
  if (i == emu_noptin) emu_noptin++;
  emu_optin[i].kernel = kernel;
  emu_optin[i].bytes  = bytes;
  return 0;
}

PetscErrorCode GILUEmuOptionsHelp(MPI_Comm comm)
{
  static PetscBool done = PETSC_FALSE;
  char             value[64] = "inorder", arch[16] = "sm_80";
  PetscInt         resident = GILU_EMU_DEFAULT_RESIDENT, seed = 1, devices = 1;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscOptionsBegin(comm, NULL, "CUDA emulation (cudaemu) options", "Sys");
  PetscCall(PetscOptionsString("-gilu_cudaemu_schedule", "Block dispatch and thread order: inorder, reverse, random or random:SEED (environment: GILU_CUDAEMU_SCHEDULE)", "PetscGILUGetBackend", value, value, sizeof(value), NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_block_order", "The order in which blocks are dispatched (overrides the schedule)", "PetscGILUGetBackend", value, value, sizeof(value), NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_thread_order", "The order in which the threads of a block run in each pass (overrides the schedule)", "PetscGILUGetBackend", value, value, sizeof(value), NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_seed", "Seed of the random orders", "PetscGILUGetBackend", seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_resident", "Blocks resident at once (1 to 64)", "PetscGILUGetBackend", resident, &resident, NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_arch", "Architecture whose shared-memory opt-in limit applies: sm_80 (163 KiB) or sm_90 (227 KiB)", "PetscGILUGetBackend", arch, arch, sizeof(arch), NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_devices", "Devices of the emulated node (1 to 64): a rank uses the one of its index on the node", "PetscGILUGetBackend", devices, &devices, NULL));
  PetscOptionsEnd();
  PetscCheck(devices >= 1 && devices <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_devices %" PetscInt_FMT ": must be in 1..64", devices);
  PetscCheck(seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_seed %" PetscInt_FMT ": must be nonnegative", seed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "inorder", "reverse", "random" or "random:SEED" */
static PetscErrorCode ParseOrder(const char opt[], const char value[], Order *order, unsigned long long *seed)
{
  PetscFunctionBegin;
  if (!strcmp(value, "inorder")) *order = ORDER_INORDER;
  else if (!strcmp(value, "reverse")) *order = ORDER_REVERSE;
  else if (!strncmp(value, "random", 6) && (!value[6] || value[6] == ':')) {
    *order = ORDER_RANDOM;
    if (value[6] == ':') {
      char *end;

      *seed = strtoull(value + 7, &end, 10);
      PetscCheck(end != value + 7 && !*end, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s %s: the seed after random: must be a non-negative integer", opt, value);
    }
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s %s: unknown order; use inorder, reverse, random or random:SEED", opt, value);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the schedule of this launch: -gilu_cudaemu_schedule (else GILU_CUDAEMU_SCHEDULE) sets both orders, the finer
   options override it; random's seed: random:SEED, else -gilu_cudaemu_seed, else 1 */
static PetscErrorCode GetPolicy(Launch *L)
{
  char               value[64];
  const char        *env = getenv("GILU_CUDAEMU_SCHEDULE");
  PetscBool          set;
  PetscInt           resident = GILU_EMU_DEFAULT_RESIDENT, iseed;
  unsigned long long seed     = 1;

  PetscFunctionBegin;
  L->blockorder = L->threadorder = ORDER_INORDER;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gilu_cudaemu_schedule", value, sizeof(value), &set));
  if (set) PetscCall(ParseOrder("-gilu_cudaemu_schedule", value, &L->blockorder, &seed));
  else if (env && env[0]) PetscCall(ParseOrder("GILU_CUDAEMU_SCHEDULE", env, &L->blockorder, &seed));
  L->threadorder = L->blockorder;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gilu_cudaemu_block_order", value, sizeof(value), &set));
  if (set) PetscCall(ParseOrder("-gilu_cudaemu_block_order", value, &L->blockorder, &seed));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gilu_cudaemu_thread_order", value, sizeof(value), &set));
  if (set) PetscCall(ParseOrder("-gilu_cudaemu_thread_order", value, &L->threadorder, &seed));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gilu_cudaemu_arch", value, sizeof(value), &set));
  PetscCheck(!set || !strcmp(value, "sm_80") || !strcmp(value, "sm_90"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-gilu_cudaemu_arch %s: give sm_80 (163 KiB of shared memory per block with opt-in) or sm_90 (227 KiB)", value);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gilu_cudaemu_seed", &iseed, &set));
  if (set) seed = (unsigned long long)iseed;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gilu_cudaemu_resident", &resident, NULL));
  PetscCheck(resident >= 1 && resident <= GILU_EMU_MAX_RESIDENT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_resident %" PetscInt_FMT ": give 1 to %d resident blocks", resident, GILU_EMU_MAX_RESIDENT);
  L->resident = (int)resident;
  L->rng      = seed * 0x2545f4914f6cdd1dULL + ++emu_nlaunch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ blocks */
static PetscErrorCode FreeSlots(void)
{
  int i;

  PetscFunctionBegin;
  for (i = 0; i < GILU_EMU_MAX_RESIDENT; i++) {
    Block *b = &emu_slots[i];

    if (b->stacks) PetscCheck(!munmap(b->stacks, b->stacksbytes), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap() failed");
    PetscCall(PetscFree(b->fibers));
    PetscCall(PetscFree(b->order));
    PetscCall(PetscFree(b->warps));
    PetscCall(PetscFree(b->shared));
    PetscCall(PetscMemzero(b, sizeof(*b)));
  }
  emu_finalize_registered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the slot's memory for n threads and shared bytes (kept when large enough) */
static PetscErrorCode SlotReserve(Block *b, int n, size_t shared)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int    i;

  PetscFunctionBegin;
  if (!emu_finalize_registered) {
    PetscCall(PetscRegisterFinalize(FreeSlots));
    emu_finalize_registered = PETSC_TRUE;
  }
  if (b->capacity < n) {
    if (b->stacks) PetscCheck(!munmap(b->stacks, b->stacksbytes), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap() failed");
    PetscCall(PetscFree(b->fibers));
    PetscCall(PetscFree(b->order));
    PetscCall(PetscFree(b->warps));
    b->stacksbytes = (size_t)n * GILU_EMU_STACK;
    b->stacks      = (char *)mmap(NULL, b->stacksbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    PetscCheck(b->stacks != MAP_FAILED, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaemu: cannot map %zu bytes of thread stacks", b->stacksbytes);
    for (i = 0; i < n; i++) PetscCheck(!mprotect(b->stacks + (size_t)i * GILU_EMU_STACK, page, PROT_NONE), PETSC_COMM_SELF, PETSC_ERR_SYS, "mprotect() failed"); /* guard pages */
    PetscCall(PetscCalloc1(n, &b->fibers));
    PetscCall(PetscMalloc1(n, &b->order));
    PetscCall(PetscCalloc1((n + 31) / 32, &b->warps));
    b->capacity = n;
  }
  if (b->sharedbytes < shared) {
    PetscCall(PetscFree(b->shared));
    PetscCall(PetscMalloc1(shared, &b->shared));
    b->sharedbytes = shared;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* start block number idx in slot b */
static PetscErrorCode BlockStart(Launch *L, Block *b, long idx)
{
  int    n = (int)(L->bdim.x * L->bdim.y * L->bdim.z), i;
  size_t page = (size_t)sysconf(_SC_PAGESIZE), shared = L->sharedlimit + 16;
  /* the dynamic part ends at the limit, its start rounded up to 16 bytes (it may end up to 15 bytes past the limit,
     in the slot's 16 spare bytes): a GPU aligns dynamic shared memory at least so, and a double or an atomic on it
     that straddles a cache line is a split lock, which Linux traps (and may throttle) at every one */
  size_t dynoff = (L->sharedlimit - L->shmem + 15) & ~(size_t)15;

  PetscFunctionBegin;
  PetscCall(SlotReserve(b, n, shared));
  b->nthreads   = n;
  b->nwarps     = (n + 31) / 32;
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
  memset(b->shared, 0xff, shared);
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
    f->t.dynshared   = b->shared + dynoff;
    f->t.priv        = f;
    f->state         = FIBER_READY;
    f->fenced        = 0;
    f->block         = b;
    b->order[i]      = L->threadorder == ORDER_REVERSE ? n - 1 - i : i;
    PetscCall(ContextMake(&f->ctx, b->stacks + (size_t)i * GILU_EMU_STACK + page, GILU_EMU_STACK - page, FiberMain));
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

/* names the first thread of the first unfinished block that waits for a flag (the usual cause), else for its
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
                 "cudaemu: kernel %s deadlocks: no thread can proceed; %s %s. In this block %d thread(s) wait in gilu_wait_until_ge, %d at warp operations, %d at __syncthreads; %d block(s) started and unfinished, %ld not started (at most %d resident, blocks dispatched %s)",
                 L->name, where, what, count[FIBER_FLAG], count[FIBER_WARP], count[FIBER_BARRIER], L->nactive, L->nblocks - L->next, L->resident, OrderNames[L->blockorder]);
}

/* the linear index of the next block to dispatch */
static long NextBlock(Launch *L)
{
  long k = L->next++;

  if (L->blockorder == ORDER_REVERSE) return L->nblocks - 1 - k;
  if (L->blockorder == ORDER_RANDOM) return L->dispatch[k];
  return k;
}

static void Shuffle(int *a, int n, unsigned long long *rng)
{
  int i;

  for (i = n - 1; i > 0; i--) {
    int j = (int)(Random(rng) % (unsigned long long)(i + 1)), t = a[i];

    a[i] = a[j];
    a[j] = t;
  }
}

static PetscErrorCode Schedule(Launch *L)
{
  PetscFunctionBegin;
  for (;;) {
    PetscBool progress = PETSC_FALSE;
    Block    *pass[GILU_EMU_MAX_RESIDENT];
    int       a, i, j, np;

    /* start blocks while slots are free */
    while (L->next < L->nblocks && L->nactive < L->resident) {
      Block *slot = NULL;

      for (i = 0; i < L->resident && !slot; i++)
        if (emu_slots[i].index < 0) slot = &emu_slots[i];
      PetscCall(BlockStart(L, slot, NextBlock(L)));
      L->active[L->nactive++] = slot;
    }
    /* one pass over the resident blocks and their threads, in the policy's order */
    np = L->nactive;
    for (a = 0; a < np; a++) pass[a] = L->active[L->threadorder == ORDER_REVERSE ? np - 1 - a : a];
    if (L->threadorder == ORDER_RANDOM)
      for (a = np - 1; a > 0; a--) {
        int    k = (int)(Random(&L->rng) % (unsigned long long)(a + 1));
        Block *t = pass[a];

        pass[a] = pass[k];
        pass[k] = t;
      }
    for (a = 0; a < np; a++) {
      Block *b = pass[a];

      if (L->threadorder == ORDER_RANDOM) Shuffle(b->order, b->nthreads, &L->rng);
      for (i = 0; i < b->nthreads; i++) {
        Fiber *f = &b->fibers[b->order[i]];

        if (!Runnable(f)) continue;
        progress      = PETSC_TRUE;
        gilu_emu_self = &f->t;
        SwitchTo(&L->sched, &f->ctx);
        gilu_emu_self = NULL;
        if (L->failed) PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    /* finished blocks free their slots */
    for (a = 0, j = 0; a < L->nactive; a++) {
      if (L->active[a]->live == 0) L->active[a]->index = -1;
      else L->active[j++] = L->active[a];
    }
    L->nactive = j;
    if (progress || (L->next < L->nblocks && L->nactive < L->resident)) continue;
    if (L->nactive == 0) break; /* all blocks done */
    DescribeDeadlock(L);
    L->failed = PETSC_TRUE;
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the instantiation in the compiler's name of gilu_emu_kernel_name<K, k>(): "... k = Name<3>]" -> "Name<3>" */
static void KernelName(const char pretty[], char name[], size_t len)
{
  const char *p = strstr(pretty, " k = "), *e;

  p = p ? p + 5 : pretty;
  e = p + strlen(p);
  if (e > p && e[-1] == ']') e--;
  (void)snprintf(name, len, "%.*s", (int)(e - p), p);
}

/* GILU_CUDAEMU_LAUNCH_LOG: each instantiation once per process */
static void LogLaunch(const char pretty[], const char name[])
{
  static __thread const char *logged[512];
  static __thread int         nlogged = 0;
  const char                 *file    = getenv("GILU_CUDAEMU_LAUNCH_LOG");
  FILE                       *fp;
  int                         i;

  if (!file || !file[0]) return;
  for (i = 0; i < nlogged; i++)
    if (logged[i] == pretty) return;
  if (nlogged < 512) logged[nlogged++] = pretty;
  fp = fopen(file, "a");
  if (!fp) return;
  fprintf(fp, "%s\n", name);
  fclose(fp);
}

/*
   GILUEmuLaunch - runs kernel body(ctx) on a grid of blocks of threads (synchronously); called by GILU_LAUNCH

   Errors in the kernel (deadlock, divergent warp operations, a signal without its fence, ...) are returned as
   PETSC_ERR_LIB with the message, which GILUEmuLastError() also gives (empty after a successful launch). A launch
   that a GPU refuses (too many threads, too much shared memory without the opt-in) is refused the same way.
*/
PetscErrorCode GILUEmuLaunch(const void *key, const char pretty[], GILUEmuUInt3 grid, GILUEmuUInt3 block, size_t shmem, void (*body)(void *), void *ctx)
{
  Launch        *L;
  long           nthreads = (long)block.x * block.y * block.z;
  PetscErrorCode ierr;
  int            i, optin = -1, limit = ArchOptinLimit();

  char           name[256];

  PetscFunctionBegin;
  emu_lasterr[0] = 0;
  KernelName(pretty, name, sizeof(name));
  PetscCheck(!emu_launch, PETSC_COMM_SELF, PETSC_ERR_SUP, "cudaemu: kernel %s launched from inside kernel %s (dynamic parallelism is not emulated)", name, emu_launch->name);
  PetscCheck(grid.x > 0 && grid.y > 0 && grid.z > 0 && grid.y < 65536 && grid.z < 65536, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid grid (%u,%u,%u)", name, grid.x, grid.y, grid.z);
  PetscCheck(nthreads > 0 && nthreads <= 1024 && block.z <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid block (%u,%u,%u): 1 to 1024 threads", name, block.x, block.y, block.z);
  for (i = 0; i < emu_noptin; i++)
    if (emu_optin[i].kernel == key) optin = emu_optin[i].bytes;
  PetscCheck(shmem <= GILU_EMU_SHARED_DEFAULT || (optin >= 0 && shmem <= (size_t)optin), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "cudaemu: kernel %s did not launch: %zu bytes of dynamic shared memory, more than 48 KiB without cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)%s (a GPU refuses such a launch: invalid argument)", name, shmem, name,
             optin >= 0 ? " for as many bytes" : "");
  PetscCall(PetscNew(&L));
  PetscCall(PetscStrncpy(L->namebuf, name, sizeof(L->namebuf)));
  L->name        = L->namebuf;
  L->grid        = grid;
  L->bdim        = block;
  L->shmem       = shmem;
  L->sharedlimit = optin >= 0 ? (size_t)limit : GILU_EMU_SHARED_DEFAULT;
  L->body        = body;
  L->ctx         = ctx;
  L->nblocks     = (long)grid.x * grid.y * grid.z;
  PetscCall(GetPolicy(L));
  if (L->blockorder == ORDER_RANDOM) {
    long k;

    PetscCall(PetscMalloc1(L->nblocks, &L->dispatch));
    for (k = 0; k < L->nblocks; k++) L->dispatch[k] = k;
    for (k = L->nblocks - 1; k > 0; k--) {
      long j = (long)(Random(&L->rng) % (unsigned long long)(k + 1)), t = L->dispatch[k];

      L->dispatch[k] = L->dispatch[j];
      L->dispatch[j] = t;
    }
  }
  for (i = 0; i < GILU_EMU_MAX_RESIDENT; i++) emu_slots[i].index = -1;
  LogLaunch(pretty, name);
  emu_launch = L;
  ierr       = Schedule(L);
  emu_launch = NULL;
  if (!ierr && L->failed) PetscCall(PetscStrncpy(emu_lasterr, L->err, sizeof(emu_lasterr)));
  PetscCall(PetscFree(L->dispatch));
  PetscCall(PetscFree(L));
  PetscCall(ierr);
  PetscCheck(!emu_lasterr[0], PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", emu_lasterr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
