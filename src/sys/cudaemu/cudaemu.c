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

   Counters (GILUEmuCountersGet(), -gilu_cudaemu_counters prints them at PetscFinalize(); cudaemu.h): what a kernel
   would cost on a GPU, from the emulated run, so that a change that makes a kernel slower shows without a GPU.
   - Runtime calls, always: launches, copies (to the device, to the host, on the device), synchronizations,
     allocations, frees and memsets of the emulated runtime API (gilucuda.h).
   - Memory requests, while active: every gilu_ld/gilu_ld_cg/gilu_st of a kernel is one lane's part of a warp-level
     request. As SIMT issues them, the k-th access of a call site (file:line) by each lane of a warp is one request,
     counted per block between barriers (where the warps have reconverged; the lanes' counts restart there): lanes
     that skip an access in a loop shift their later ones into other requests, as divergence splits them on a GPU,
     only not always the same way. Per request: the distinct 32-byte sectors its lanes touch, and the minimum, the
     sectors the distinct bytes it asks for fill when packed (ceil(bytes / 32)); sectors / minimum = 1 is a
     coalesced request, 4 a stride of 4 values. Split by load and store, by kernel instantiation, by call site and
     by the class of the memory of the request's first lane (gilu_mem_class(): index, factor, vector, other).
     cudaMalloc aligns to 256 bytes as the device's does. Plain dereferences and atomics are not counted.
   - The critical path, while active: each thread carries a clock of dependent global round trips; the emulation
     cannot see data dependences, so it uses rules that make waiting and fencing cost what they cost on a GPU:
       a run of loads (gilu_ld, gilu_ld_cg) not separated by a wait, a device fence, a barrier or a signal costs one
       round trip (they are in flight together: loads meant to overlap need not wait between them);
       a store costs nothing until a device fence (__threadfence), which costs one round trip if the thread stored
       since its previous fence (the stores are acknowledged) and nothing otherwise;
       a signal (gilu_signal_set/add) publishes the thread's clock with the value it gives the flag, and costs the
       thread nothing (the atomic is not waited for);
       a wait (gilu_wait_until_ge) returns at max(own clock, clock of the first publication of this launch that gave
       the flag a value >= the one waited for; 0 if set before the launch) + 1: the successful poll; + 0 for a flag
       in shared memory (gilu_signal_set_block);
       a barrier sets every thread of the block to the latest clock arrived, a warp operation every lane of the warp.
     So "one thread polls the predecessor once, the block loads what it needs in parallel, stores, fences, barrier,
     signal" costs 3 per level (poll, loads, fence), and a thread that polls before each of its loads pays a poll and
     a load per wait. The kernel's critical path is the largest clock a thread exits with; with the level count the
     host gave the launch (gilu_launch_levels()) the report divides it into round trips per level.
   Off, each accessor and signal costs one branch (gilu_emu_counting); the runtime calls are counted by an increment.
   The counters are per host thread, as the rest of the emulation's state.
*/
#include <petscgilu/private/cudaemu.h>
#include <petscgilu/private/giluimpl.h> /* GILUOptionsBlock() */
#include <petscviewer.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
#include <limits.h>
#include <errno.h>

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
  uintptr_t      top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void         **sp  = (void **)(top - 72);
  unsigned       mxcsr;
  unsigned short cw;

  PetscFunctionBegin;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  memset(sp, 0, 72);
  memcpy((char *)sp, &mxcsr, 4);
  memcpy((char *)sp + 4, &cw, 2);
  sp[7] = (void *)entry;
  c->sp = sp;
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
  int                     base; /* FIBER_FLAG: *flag >= value (wrap 0), or *flag - base >= value modulo 2^32 (wrap 1) */
  int                     wrap;
  int                     fenced; /* the widest fence (1 block, 2 device) since the thread's last signal */
  Block                  *block;
  long long               clock;   /* counters: dependent global round trips so far (see the top) */
  int                     loadrun; /* counters: in a run of loads that overlap (the run's round trip is counted) */
  int                     stored;  /* counters: a global store since the thread's last device fence */
} Fiber;

typedef struct {
  unsigned long   gen;     /* completed operations */
  int             arrived; /* lanes waiting at the current one */
  int             nlanes, nexited;
  GILUEmuWarpOp   op;
  const char     *site;       /* __syncwarp: where the first lane arrived */
  GILUEmuLaneData buf[2][32]; /* by parity of gen: a lane may start the next operation while others still read */
  long long       clock[2];   /* counters: the largest clock of the lanes arrived, by parity of gen */
} Warp;

/* counters: one lane's part of a warp-level request (gilu_ld, gilu_ld_cg, gilu_st) */
typedef struct {
  const char *site;
  uintptr_t   addr;
  int         bytes, store, warp, lane, occ;
  size_t      seq; /* the lane's program order */
} Access;

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
  const char    *barsite;   /* where the first thread of the current barrier arrived */
  int            preempted; /* a thread released a flag (gilu_signal_release): the block's turn in this pass ends there */
  Warp          *warps;
  int            nwarps;
  unsigned char *shared; /* static part (at most the opt-in limit), then dynamic part */
  size_t         sharedbytes, staticused;
  int            nsites;
  const void    *sitekey[GILU_EMU_MAX_SITES];
  size_t         siteoff[GILU_EMU_MAX_SITES];
  long long      barclock, barclockdone; /* counters: the largest clock of the threads arrived; at the last barrier */
  Access        *log;                    /* counters: the accesses since the block's last barrier (kept from launch to launch) */
  size_t         nlog, maxlog;
};

typedef struct {
  const char  *name; /* the instantiation, "StructILUForward<17>" */
  char         namebuf[256];
  GILUEmuUInt3 grid, bdim;
  size_t       shmem, sharedlimit; /* dynamic bytes; static + dynamic allowed */
  void (*body)(void *);
  void              *ctx;
  long               nblocks, next;
  long              *dispatch;                      /* random block order: the permutation (else NULL) */
  Block             *active[GILU_EMU_MAX_RESIDENT]; /* started, unfinished blocks in start order */
  int                nactive, resident;
  Order              blockorder, threadorder;
  unsigned long long rng;
  Context            sched;
  PetscBool          failed;
  char               err[1024];
  int                kernel;   /* its entry in the counters' table of kernels */
  int                levels;   /* gilu_launch_levels() before it, else 0 */
  long long          critical; /* counters: the largest clock a thread ended with */
} Launch;

__thread GILUEmuThread             gilu_emu_self = NULL;
static __thread Launch            *emu_launch    = NULL;
static __thread char               emu_lasterr[1024];
static __thread Block              emu_slots[GILU_EMU_MAX_RESIDENT]; /* kept from launch to launch, freed at PetscFinalize() */
static __thread PetscBool          emu_finalize_registered = PETSC_FALSE;
static __thread unsigned long long emu_nlaunch             = 0; /* launches so far: each random launch gets its own stream */

/* opt-ins of cudaFuncSetAttribute(MaxDynamicSharedMemorySize), per kernel */
static struct {
  const void *kernel;
  int         bytes;
} emu_optin[GILU_EMU_MAX_OPTIN];
static int emu_noptin = 0;

static PetscErrorCode CountersPrint(FILE *);

/* ------------------------------------------------------------------------------------------ counters (see the top) */
__thread int gilu_emu_counting = 0;

const char *const GILUEmuMemClassNames[]    = {"other", "index", "factor", "vector"};
const char *const GILUEmuRuntimeCallNames[] = {"launches", "copies to device", "copies to host", "copies on device", "synchronizations", "allocations", "frees", "memsets"};

typedef struct {
  const char *site;
  int         store, cls;
  PetscInt64  requests, sectors, minimum;
} SiteStats;

typedef struct {
  char       name[256];
  PetscInt64 launches, counted; /* launches; those while the counters were active */
  PetscInt64 critical, levelled_trips, levels;
  SiteStats *sites;
  int        nsites, maxsites, last;
} KernelStats;

typedef struct {
  uintptr_t lo, hi;
  int       cls;
} MemRange;

typedef struct {
  int       value;
  long long clock;
} Publication;

typedef struct {
  const void  *flag; /* NULL: empty slot */
  Publication *pub;  /* this launch's publications on the flag, in order */
  int          n, max;
} FlagHistory;

static __thread PetscInt64   emu_runtime[GILU_EMU_RT_NKIND];
static __thread KernelStats *emu_kernels;
static __thread int          emu_nkernels, emu_maxkernels;
static __thread MemRange    *emu_ranges;
static __thread int          emu_nranges, emu_maxranges;
static __thread FlagHistory *emu_flags; /* open addressing by flag address, emu_flagslots (a power of 2) slots */
static __thread int          emu_flagslots, emu_nflags;
static __thread int          emu_next_levels;
static __thread PetscBool    emu_counting_api    = PETSC_FALSE; /* GILUEmuCountersSetActive() decided (else the option) */
static __thread PetscBool    emu_counting_report = PETSC_FALSE, emu_counters_finalize = PETSC_FALSE;

/* a counters' allocation failed inside a launch: the launch fails (no half-counted report) */
static void *CountersRealloc(void *p, size_t bytes)
{
  void *q = realloc(p, bytes);

  if (!q && emu_launch && !emu_launch->failed) {
    (void)snprintf(emu_launch->err, sizeof(emu_launch->err), "cudaemu: kernel %s: out of memory for the counters (-gilu_cudaemu_counters)", emu_launch->name);
    emu_launch->failed = PETSC_TRUE;
  }
  return q;
}

void GILUEmuRuntime(GILUEmuRuntimeCall kind, const void *p)
{
  emu_runtime[kind]++;
  if (kind == GILU_EMU_RT_FREE && p) {
    int i;

    for (i = 0; i < emu_nranges; i++)
      if (emu_ranges[i].lo == (uintptr_t)p) {
        memmove(emu_ranges + i, emu_ranges + i + 1, (size_t)(emu_nranges - i - 1) * sizeof(MemRange));
        emu_nranges--;
        break;
      }
  }
}

void GILUEmuMemClassSet(const void *p, size_t bytes, GILUEmuMemClass cls)
{
  uintptr_t lo = (uintptr_t)p;
  int       i;

  if (!p || !bytes) return;
  for (i = 0; i < emu_nranges && emu_ranges[i].lo < lo; i++) { }
  if (i == emu_nranges || emu_ranges[i].lo != lo) {
    if (emu_nranges == emu_maxranges) {
      MemRange *r = (MemRange *)realloc(emu_ranges, sizeof(MemRange) * (size_t)(2 * emu_maxranges + 16));

      if (!r) return; /* unclassified: counted as other */
      emu_ranges    = r;
      emu_maxranges = 2 * emu_maxranges + 16;
    }
    memmove(emu_ranges + i + 1, emu_ranges + i, (size_t)(emu_nranges - i) * sizeof(MemRange));
    emu_nranges++;
  }
  emu_ranges[i].lo  = lo;
  emu_ranges[i].hi  = lo + bytes;
  emu_ranges[i].cls = (int)cls;
}

static int MemClassOf(uintptr_t a)
{
  int lo = 0, hi = emu_nranges - 1;

  while (lo <= hi) { /* the last range that starts at or before a */
    int mid = (lo + hi) / 2;

    if (emu_ranges[mid].lo <= a) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && a < emu_ranges[hi].hi ? emu_ranges[hi].cls : GILU_EMU_MEM_OTHER;
}

void GILUEmuSetLevels(int n)
{
  emu_next_levels = n > 0 ? n : 0;
}

static FlagHistory *FlagFind(const void *flag, PetscBool add)
{
  size_t h;

  if (add && 2 * (emu_nflags + 1) > emu_flagslots) { /* grow to keep the table at most half full */
    int          n = emu_flagslots ? 2 * emu_flagslots : 256, i;
    FlagHistory *t = (FlagHistory *)CountersRealloc(NULL, sizeof(FlagHistory) * (size_t)n), *old = emu_flags;

    if (!t) return NULL;
    memset(t, 0, sizeof(FlagHistory) * (size_t)n);
    emu_flags     = t;
    i             = emu_flagslots;
    emu_flagslots = n;
    while (i-- > 0)
      if (old[i].flag) *FlagFind(old[i].flag, PETSC_FALSE) = old[i];
    free(old);
  }
  if (!emu_flagslots) return NULL;
  for (h = ((uintptr_t)flag >> 2) * 0x9e3779b97f4a7c15ULL;; h++) {
    FlagHistory *e = &emu_flags[h & (size_t)(emu_flagslots - 1)];

    if (e->flag == flag) return e;
    if (!e->flag) {
      if (!add) return e; /* an empty slot: where it goes (the rehash above), or not there */
      e->flag = flag;
      emu_nflags++;
      return e;
    }
  }
}

/* the clock of the first publication in this launch that gave the flag a value >= value; 0: none (set before the launch) */
static long long FlagStamp(const void *flag, int value)
{
  FlagHistory *e = FlagFind(flag, PETSC_FALSE);
  int          i;

  if (!e || e->flag != flag) return 0;
  for (i = 0; i < e->n; i++)
    if (e->pub[i].value >= value) return e->pub[i].clock;
  return 0;
}

static void FlagsClear(void)
{
  int i;

  for (i = 0; i < emu_flagslots; i++) free(emu_flags[i].pub);
  free(emu_flags);
  emu_flags     = NULL;
  emu_flagslots = emu_nflags = 0;
}

static int IsShared(const Block *b, const void *p)
{
  return (const unsigned char *)p >= b->shared && (const unsigned char *)p < b->shared + b->sharedbytes;
}

void GILUEmuPublished(const void *flag, int scope)
{
  Fiber       *f;
  FlagHistory *e;

  (void)scope; /* a waiter tells a shared-memory flag by its address */
  if (!gilu_emu_self) return;
  f          = (Fiber *)gilu_emu_self->priv;
  e          = FlagFind(flag, PETSC_TRUE);
  f->loadrun = 0;
  if (!e) return;
  if (e->n == e->max) {
    Publication *p = (Publication *)CountersRealloc(e->pub, sizeof(Publication) * (size_t)(2 * e->max + 4));

    if (!p) return;
    e->pub = p;
    e->max = 2 * e->max + 4;
  }
  e->pub[e->n].value   = *(const volatile int *)flag;
  e->pub[e->n++].clock = f->clock;
}

void GILUEmuAccess(const void *p, int bytes, int store, const char site[])
{
  Fiber  *f;
  Block  *b;
  Access *a;

  if (!gilu_emu_self) return;
  f = (Fiber *)gilu_emu_self->priv;
  b = f->block;
  if (bytes < 1 || bytes > 64) GILUEmuFail("gilu_ld/gilu_st of a type of more than 64 bytes (the counters take at most 3 sectors per lane)");
  if (store) f->stored = 1;
  else if (!f->loadrun) {
    /* the first load of a run: the run's round trip */
    f->clock++;
    f->loadrun = 1;
  }
  if (b->nlog == b->maxlog) {
    size_t  n = b->maxlog ? 2 * b->maxlog : 4096;
    Access *l = (Access *)CountersRealloc(b->log, n * sizeof(Access));

    if (!l) return;
    b->log    = l;
    b->maxlog = n;
  }
  a        = &b->log[b->nlog];
  a->site  = site;
  a->addr  = (uintptr_t)p;
  a->bytes = bytes;
  a->store = store;
  a->warp  = f->t.warp;
  a->lane  = f->t.lane;
  a->seq   = b->nlog++;
}

static int CmpKey(const Access *x, const Access *y)
{
  if (x->warp != y->warp) return x->warp < y->warp ? -1 : 1;
  if (x->site != y->site) return (uintptr_t)x->site < (uintptr_t)y->site ? -1 : 1;
  if (x->store != y->store) return x->store < y->store ? -1 : 1;
  return 0;
}
/* a lane's accesses of one site in program order */
static int CmpLaneOrder(const void *a, const void *b)
{
  const Access *x = (const Access *)a, *y = (const Access *)b;
  int           c = CmpKey(x, y);

  if (c) return c;
  if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}
/* the requests: the k-th access of a site by each lane of the warp */
static int CmpRequest(const void *a, const void *b)
{
  const Access *x = (const Access *)a, *y = (const Access *)b;
  int           c = CmpKey(x, y);

  if (c) return c;
  if (x->occ != y->occ) return x->occ < y->occ ? -1 : 1;
  return x->lane < y->lane ? -1 : x->lane > y->lane;
}
static int CmpAddr(const void *a, const void *b)
{
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

  return x < y ? -1 : x > y;
}

/* one warp-level request of n lanes (at most 32, one access each): distinct sectors, and the sectors its distinct bytes
   need when packed */
static void CountRequest(KernelStats *k, const Access *a, int n)
{
  uintptr_t  sec[32 * 3], lo[32];
  int        nsec = 0, i, s, cls = MemClassOf(a[0].addr);
  PetscInt64 sectors = 0, bytes = 0;
  uintptr_t  end = 0;
  SiteStats *st  = NULL;

  for (i = 0; i < n; i++) {
    for (uintptr_t x = a[i].addr >> 5; x <= (a[i].addr + (uintptr_t)a[i].bytes - 1) >> 5; x++) sec[nsec++] = x;
    lo[i] = a[i].addr;
  }
  qsort(sec, (size_t)nsec, sizeof(uintptr_t), CmpAddr);
  for (i = 0; i < nsec; i++) sectors += i == 0 || sec[i] != sec[i - 1];
  /* the union of [addr, addr + bytes): the accessors' types have one size per site, so sort the starts */
  qsort(lo, (size_t)n, sizeof(uintptr_t), CmpAddr);
  for (i = 0; i < n; i++) {
    uintptr_t b0 = lo[i] > end ? lo[i] : end, e = lo[i] + (uintptr_t)a[0].bytes;

    if (e > b0) bytes += (PetscInt64)(e - b0);
    if (e > end) end = e;
  }
  if (k->last >= 0 && k->last < k->nsites && k->sites[k->last].site == a[0].site && k->sites[k->last].store == a[0].store && k->sites[k->last].cls == cls) st = &k->sites[k->last];
  for (s = 0; !st && s < k->nsites; s++)
    if (k->sites[s].site == a[0].site && k->sites[s].store == a[0].store && k->sites[s].cls == cls) st = &k->sites[s];
  if (!st) {
    if (k->nsites == k->maxsites) {
      SiteStats *t = (SiteStats *)CountersRealloc(k->sites, sizeof(SiteStats) * (size_t)(2 * k->maxsites + 16));

      if (!t) return;
      k->sites    = t;
      k->maxsites = 2 * k->maxsites + 16;
    }
    st = &k->sites[k->nsites++];
    memset(st, 0, sizeof(*st));
    st->site  = a[0].site;
    st->store = a[0].store;
    st->cls   = cls;
  }
  k->last = (int)(st - k->sites);
  st->requests++;
  st->sectors += sectors;
  st->minimum += (bytes + 31) / 32;
}

/* the block's accesses since its last barrier (or its start) as warp-level requests: at a barrier the warps have
   reconverged, so the k-th access of a call site by each lane of a warp is one request */
static void FlushRequests(Block *b)
{
  size_t i, j;

  if (!b->nlog || !emu_launch) return;
  qsort(b->log, b->nlog, sizeof(Access), CmpLaneOrder);
  for (i = 0; i < b->nlog; i++) b->log[i].occ = i > 0 && !CmpKey(&b->log[i], &b->log[i - 1]) && b->log[i].lane == b->log[i - 1].lane ? b->log[i - 1].occ + 1 : 0;
  qsort(b->log, b->nlog, sizeof(Access), CmpRequest);
  for (i = 0; i < b->nlog; i = j) {
    for (j = i + 1; j < b->nlog && !CmpKey(&b->log[i], &b->log[j]) && b->log[j].occ == b->log[i].occ; j++) { }
    CountRequest(&emu_kernels[emu_launch->kernel], b->log + i, (int)(j - i));
  }
  b->nlog = 0;
}

static PetscErrorCode CountersFinalize(void)
{
  int i;

  PetscFunctionBegin;
  if (emu_counting_report) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDOUT, "cudaemu counters (-gilu_cudaemu_counters):\n"));
    PetscCall(CountersPrint(PETSC_STDOUT));
  }
  for (i = 0; i < emu_nkernels; i++) free(emu_kernels[i].sites);
  free(emu_kernels);
  free(emu_ranges);
  FlagsClear();
  emu_kernels  = NULL;
  emu_ranges   = NULL;
  emu_nkernels = emu_maxkernels = emu_nranges = emu_maxranges = 0;
  emu_counters_finalize = emu_counting_report = emu_counting_api = PETSC_FALSE;
  gilu_emu_counting                                              = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CountersRegisterFinalize(void)
{
  PetscFunctionBegin;
  if (!emu_counters_finalize) {
    PetscCall(PetscRegisterFinalize(CountersFinalize));
    emu_counters_finalize = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the launch's entry in the table of kernels (by instantiation name) */
static PetscErrorCode KernelEntry(const char name[], int *k)
{
  int i;

  PetscFunctionBegin;
  PetscCall(CountersRegisterFinalize());
  for (i = 0; i < emu_nkernels; i++)
    if (!strcmp(emu_kernels[i].name, name)) break;
  if (i == emu_nkernels) {
    if (emu_nkernels == emu_maxkernels) {
      KernelStats *t = (KernelStats *)realloc(emu_kernels, sizeof(KernelStats) * (size_t)(2 * emu_maxkernels + 16));

      PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaemu: out of memory for the counters");
      emu_kernels    = t;
      emu_maxkernels = 2 * emu_maxkernels + 16;
    }
    memset(&emu_kernels[i], 0, sizeof(KernelStats));
    (void)snprintf(emu_kernels[i].name, sizeof(emu_kernels[i].name), "%s", name);
    emu_kernels[i].last = -1;
    emu_nkernels++;
  }
  *k = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   GILUEmuCountersSetActive - turns the emulation's counting of memory sectors and dependent round trips on or off

   Not Collective

   Input Parameter:
.  active - `PETSC_TRUE` to count in the launches that follow

   Options Database Key:
.  -gilu_cudaemu_counters - count, and print the report (`GILUEmuCountersView()`) at `PetscFinalize()`; this
   function overrides the option

   Level: developer

   Note:
   The runtime calls (launches, copies, synchronizations, allocations) are counted always. While active, every
   `gilu_ld()`, `gilu_ld_cg()` and `gilu_st()` of a kernel is recorded and each thread carries a clock, which makes
   the emulation several times slower; while inactive they cost one branch.

.seealso: `GILUEmuCountersGet()`, `GILUEmuCountersReset()`, `GILUEmuCountersView()`
@*/
PetscErrorCode GILUEmuCountersSetActive(PetscBool active)
{
  PetscFunctionBegin;
  PetscCheck(!emu_launch, PETSC_COMM_SELF, PETSC_ERR_ORDER, "cudaemu: the counters are switched between launches, not inside a kernel");
  PetscCall(CountersRegisterFinalize());
  gilu_emu_counting = active ? 1 : 0;
  emu_counting_api  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the sectors and round trips are being counted (GILUEmuCountersSetActive(), -gilu_cudaemu_counters) */
PetscErrorCode GILUEmuCountersGetActive(PetscBool *active)
{
  PetscFunctionBegin;
  *active = gilu_emu_counting ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   GILUEmuCountersReset - sets every counter of the emulation to zero (the memory classes stay)

   Not Collective

   Level: developer

.seealso: `GILUEmuCountersGet()`, `GILUEmuCountersSetActive()`
@*/
PetscErrorCode GILUEmuCountersReset(void)
{
  int i;

  PetscFunctionBegin;
  PetscCheck(!emu_launch, PETSC_COMM_SELF, PETSC_ERR_ORDER, "cudaemu: the counters are reset between launches, not inside a kernel");
  PetscCall(PetscMemzero(emu_runtime, sizeof(emu_runtime)));
  for (i = 0; i < emu_nkernels; i++) free(emu_kernels[i].sites);
  emu_nkernels = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   GILUEmuCountersGet - the emulation's counters since the last `GILUEmuCountersReset()`

   Not Collective

   Input Parameter:
.  prefix - count the kernels whose instantiation name starts with it ("StructILUForward", "StructILUForward<1>"),
            or `NULL` for all kernels

   Output Parameter:
.  c - the counters: the runtime calls (all of them, except launches: those of the kernels asked for), and for the
       kernels asked for, the requests, sectors and minimum sectors by memory class, loads and stores, the longest
       critical path of one launch and, over the launches given a level count, critical paths and levels summed

   Level: developer

.seealso: `GILUEmuCountersSetActive()`, `GILUEmuCountersReset()`, `GILUEmuCountersView()`
@*/
PetscErrorCode GILUEmuCountersGet(const char prefix[], GILUEmuCounters *c)
{
  size_t len = prefix ? strlen(prefix) : 0;
  int    i, s;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  for (i = 0; i < GILU_EMU_RT_NKIND; i++) c->runtime[i] = emu_runtime[i];
  c->runtime[GILU_EMU_RT_LAUNCH] = 0;
  for (i = 0; i < emu_nkernels; i++) {
    const KernelStats *k = &emu_kernels[i];

    if (len && strncmp(k->name, prefix, len)) continue;
    c->runtime[GILU_EMU_RT_LAUNCH] += k->launches;
    if (k->critical > c->critical) c->critical = k->critical;
    c->levelled_trips += k->levelled_trips;
    c->levels += k->levels;
    for (s = 0; s < k->nsites; s++) {
      const SiteStats *st = &k->sites[s];

      c->requests[st->store][st->cls] += st->requests;
      c->sectors[st->store][st->cls] += st->sectors;
      c->minimum[st->store][st->cls] += st->minimum;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a call site without the build's directories: "mat/stencil/cuda/structilu-kernels.h:176" (after the last src/ or include/) */
static const char *SiteName(const char site[])
{
  const char *p, *best = site;

  for (p = site; (p = strstr(p, "/src/")); p++) best = p + 5;
  for (p = site; (p = strstr(p, "/include/")); p++)
    if (p + 9 > best) best = p + 9;
  return best;
}

/* call sites by file, then line */
static int CmpSite(const void *a, const void *b)
{
  const char *x = ((const SiteStats *)a)->site, *y = ((const SiteStats *)b)->site, *cx = strrchr(x, ':'), *cy = strrchr(y, ':');
  size_t      lx = cx ? (size_t)(cx - x) : strlen(x), ly = cy ? (size_t)(cy - y) : strlen(y);
  int         c = strncmp(x, y, lx < ly ? lx : ly);

  if (c) return c;
  if (lx != ly) return lx < ly ? -1 : 1;
  return (cx ? atoi(cx + 1) : 0) - (cy ? atoi(cy + 1) : 0);
}

static PetscErrorCode CountersPrint(FILE *fp)
{
  int i, s, c, st;

  PetscFunctionBegin;
  for (i = 0; i < emu_nkernels; i++) {
    KernelStats *k = &emu_kernels[i];

    if (k->nsites) qsort(k->sites, (size_t)k->nsites, sizeof(SiteStats), CmpSite);
    k->last = -1;

    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "kernel %s: %" PetscInt64_FMT " launch(es)", k->name, k->launches));
    if (!k->counted) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " (not counted)\n"));
      continue;
    }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, ", critical path %" PetscInt64_FMT " round trips (longest launch)", k->critical));
    if (k->levels) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, ", %.2f per level (%" PetscInt64_FMT " levels)", (double)k->levelled_trips / (double)k->levels, k->levels));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\n"));
    for (st = 0; st < 2; st++)
      for (c = 0; c < GILU_EMU_MEM_NCLASS; c++) {
        PetscInt64 r = 0, se = 0, m = 0;

        for (s = 0; s < k->nsites; s++)
          if (k->sites[s].store == st && k->sites[s].cls == c) {
            r += k->sites[s].requests;
            se += k->sites[s].sectors;
            m += k->sites[s].minimum;
          }
        if (!r) continue;
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "  %-6s %-6s requests %10" PetscInt64_FMT " sectors %10" PetscInt64_FMT " minimum %10" PetscInt64_FMT " ratio %5.2f\n", st ? "stores" : "loads", GILUEmuMemClassNames[c], r, se, m, (double)se / (double)(m ? m : 1)));
        for (s = 0; s < k->nsites; s++)
          if (k->sites[s].store == st && k->sites[s].cls == c) {
            const SiteStats *x = &k->sites[s];

            PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "    %-48s requests %10" PetscInt64_FMT " sectors %10" PetscInt64_FMT " ratio %5.2f\n", SiteName(x->site), x->requests, x->sectors, (double)x->sectors / (double)(x->minimum ? x->minimum : 1)));
          }
      }
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "runtime calls:"));
  for (i = 0; i < GILU_EMU_RT_NKIND; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " %s %" PetscInt64_FMT "%s", GILUEmuRuntimeCallNames[i], emu_runtime[i], i + 1 < GILU_EMU_RT_NKIND ? "," : "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   GILUEmuCountersView - prints the emulation's counters: per kernel instantiation its launches, the longest critical
   path in dependent round trips (and per level), and per memory class and call site of its loads and stores the
   warp-level requests, the 32-byte sectors and their ratio to the fewest the requests need; then the runtime calls

   Not Collective

   Input Parameter:
.  viewer - an ASCII viewer

   Level: developer

.seealso: `GILUEmuCountersGet()`, `GILUEmuCountersSetActive()`
@*/
PetscErrorCode GILUEmuCountersView(PetscViewer viewer)
{
  FILE *fp;

  PetscFunctionBegin;
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIGetPointer(viewer, &fp));
  PetscCall(CountersPrint(fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/* the barrier of the block completes: every thread leaves it at the clock of the latest one, with the requests of
   the warps (reconverged here) counted */
static void BarrierComplete(Block *b)
{
  b->bararrived = 0;
  b->bargen++;
  b->barclockdone = b->barclock;
  b->barclock     = 0;
  if (gilu_emu_counting) FlushRequests(b);
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
  if (f->clock > b->barclock) b->barclock = f->clock;
  if (++b->bararrived == b->live) BarrierComplete(b);
  else {
    f->state   = FIBER_BARRIER;
    f->waitgen = b->bargen;
    Yield(f);
    f->state = FIBER_READY;
  }
  f->clock   = b->barclockdone;
  f->loadrun = 0;
}

/* always yields once before the flag is tested: the other threads and blocks run first */
static void WaitFlag(volatile int *flag, int base, int value, int wrap)
{
  Fiber *f = Self();

  f->state = FIBER_FLAG;
  f->flag  = flag;
  f->base  = base;
  f->value = value;
  f->wrap  = wrap;
  Yield(f);
  f->state = FIBER_READY;
  if (gilu_emu_counting) { /* the successful poll: after the value's publication and after the thread's own work */
    long long t = FlagStamp((const void *)flag, wrap ? (int)((unsigned int)base + (unsigned int)value) : value);

    f->clock   = (f->clock > t ? f->clock : t) + (IsShared(f->block, (const void *)flag) ? 0 : 1);
    f->loadrun = 0;
  }
}

void GILUEmuWaitUntilGE(volatile int *flag, int value)
{
  WaitFlag(flag, 0, value, 0);
}

/* gilu_wait_acquire_count: counters and epochs that run on from launch to launch and wrap around */
void GILUEmuWaitCount(volatile int *flag, int base, int count)
{
  WaitFlag(flag, base, count, 1);
}

void GILUEmuFence(int scope)
{
  Fiber *f;

  if (!gilu_emu_self) return;
  f = Self();
  if (scope > f->fenced) f->fenced = scope;
  if (scope == 2 && gilu_emu_counting) { /* the thread's stores are acknowledged: one round trip if there are any */
    f->clock += f->stored;
    f->stored  = 0;
    f->loadrun = 0;
  }
}

/* gilu_signal_release: a device-scope fence of its own, cumulative over the block's writes that a barrier ordered
   before it, so its round trip is counted whether or not the releasing thread stored itself */
void GILUEmuRelease(void)
{
  Fiber *f;

  if (!gilu_emu_self) return;
  f         = Self();
  f->fenced = 2;
  if (gilu_emu_counting) {
    f->clock += 1;
    f->stored  = 0;
    f->loadrun = 0;
  }
}

/* after gilu_signal_release's store: the other blocks run before the rest of this one, so a consumer that waits for
   the flag reads what the releaser's block wrote while the threads that have not yet run this pass have not: a
   release whose block did not pass a barrier after its writes gives wrong results under every schedule */
void GILUEmuReleased(void)
{
  Fiber *f;

  if (!gilu_emu_self) return;
  f                   = Self();
  f->block->preempted = 1;
  Yield(f);
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
  if (w->arrived == 0 || f->clock > w->clock[slot]) w->clock[slot] = f->clock; /* the lanes leave together */
  if (++w->arrived == w->nlanes) {
    w->arrived = 0;
    w->gen++;
  } else {
    f->state   = FIBER_WARP;
    f->waitgen = w->gen;
    Yield(f);
    f->state = FIBER_READY;
  }
  f->clock = w->clock[slot];
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

    (void)snprintf(msg, sizeof(msg), "static shared memory (%zu bytes so far) and dynamic (%zu) exceed the %zu bytes per block this launch may use (48 KiB without cudaFuncSetAttribute's opt-in; the opt-in limit of the architecture), or %d declarations", off + bytes,
                   emu_launch->shmem, emu_launch->sharedlimit, GILU_EMU_MAX_SITES);
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
  if (f->clock > emu_launch->critical) emu_launch->critical = f->clock;
  if (b->bararrived > 0 && b->bararrived == b->live) BarrierComplete(b); /* exited threads do not hold a barrier up */
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

/* a grid's largest first dimension: 2^31 - 1, as on every CUDA GPU (cudaDevAttrMaxGridDimX), or less with
   -gilu_cudaemu_max_grid_x, so that what a kernel's host side does where its grid would exceed it runs in a test (a
   larger grid is refused as a GPU refuses it) */
static PetscBool GridXInRange(PetscInt64 n) /* (a 64-bit argument: a 32-bit PetscInt is always within the top) */
{
  return (PetscBool)(n >= 1 && n <= INT_MAX);
}

int GILUEmuMaxGridX(void)
{
  PetscInt most = PETSC_MAX_INT;

  if (PetscOptionsGetInt(NULL, NULL, "-gilu_cudaemu_max_grid_x", &most, NULL)) return INT_MAX;
  return GridXInRange(most) ? (int)most : INT_MAX;
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

typedef struct {
  char      value[64], arch[16];
  PetscInt  resident, seed, devices, gridx;
  PetscBool counters;
} EmuOptions;

static PetscErrorCode EmuReadOptions(GILUOptionItems PetscOptionsObject, void *ctx)
{
  EmuOptions *o = (EmuOptions *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscOptionsString("-gilu_cudaemu_schedule", "Block dispatch and thread order: inorder, reverse, random or random:SEED (environment: GILU_CUDAEMU_SCHEDULE)", "PetscGILUGetBackend", o->value, o->value, sizeof(o->value), NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_block_order", "The order in which blocks are dispatched (overrides the schedule)", "PetscGILUGetBackend", o->value, o->value, sizeof(o->value), NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_thread_order", "The order in which the threads of a block run in each pass (overrides the schedule)", "PetscGILUGetBackend", o->value, o->value, sizeof(o->value), NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_seed", "Seed of the random orders", "PetscGILUGetBackend", o->seed, &o->seed, NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_resident", "Blocks resident at once (1 to 64)", "PetscGILUGetBackend", o->resident, &o->resident, NULL));
  PetscCall(PetscOptionsString("-gilu_cudaemu_arch", "Architecture whose shared-memory opt-in limit applies: sm_80 (163 KiB) or sm_90 (227 KiB)", "PetscGILUGetBackend", o->arch, o->arch, sizeof(o->arch), NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_max_grid_x", "Largest first grid dimension of the emulated device (1 to 2147483647, a GPU's): less makes larger grids errors", "PetscGILUGetBackend", o->gridx, &o->gridx, NULL));
  PetscCall(PetscOptionsInt("-gilu_cudaemu_devices", "Devices of the emulated node (1 to 64): a rank uses the one of its index on the node", "PetscGILUGetBackend", o->devices, &o->devices, NULL));
  PetscCall(PetscOptionsBool("-gilu_cudaemu_counters", "Count per kernel the memory sectors of its loads and stores and its dependent round trips; print them at the end", "GILUEmuCountersSetActive", o->counters, &o->counters, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUEmuOptionsHelp(MPI_Comm comm)
{
  static PetscBool done = PETSC_FALSE;
  EmuOptions       o    = {"inorder", "sm_80", GILU_EMU_DEFAULT_RESIDENT, 1, 1, INT_MAX, PETSC_FALSE};

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUOptionsBlock(comm, NULL, NULL, "CUDA emulation (cudaemu) options", "Sys", EmuReadOptions, &o));
  PetscCheck(o.devices >= 1 && o.devices <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_devices %" PetscInt_FMT ": must be in 1..64", o.devices);
  PetscCheck(GridXInRange(o.gridx), comm, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_max_grid_x %" PetscInt_FMT ": must be in 1..%d", o.gridx, INT_MAX);
  PetscCheck(o.seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_cudaemu_seed %" PetscInt_FMT ": must be nonnegative", o.seed);
  done = PETSC_TRUE; /* only once checked: a program that caught the error and chooses the emulation again is told again */
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

      errno = 0; /* (strtoull() takes a sign and wraps a negative number around: only digits, within its range) */
      *seed = strtoull(value + 7, &end, 10);
      PetscCheck(value[7] >= '0' && value[7] <= '9' && !*end && errno != ERANGE, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s %s: the seed after random: must be a non-negative integer", opt, value);
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
  {
    PetscBool counters = PETSC_FALSE;

    PetscCall(PetscOptionsGetBool(NULL, NULL, "-gilu_cudaemu_counters", &counters, NULL));
    emu_counting_report = counters;
    if (!emu_counting_api) gilu_emu_counting = counters ? 1 : 0;
  }
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
    free(b->log);
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
  int    n    = (int)(L->bdim.x * L->bdim.y * L->bdim.z), i;
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
  b->preempted  = 0;
  b->barclock   = 0;
  b->nlog       = 0;
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
    f->clock         = 0;
    f->loadrun       = 0;
    f->stored        = 0;
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
    return f->wrap ? (unsigned int)*f->flag - (unsigned int)f->base >= (unsigned int)f->value : *f->flag >= f->value;
  default:
    return 0;
  }
}

/* names the first thread of the first unfinished block that waits for a flag (the usual cause), else for its
   warp, else at the barrier; with a count of the block's waiting threads by kind */
static void DescribeDeadlock(Launch *L)
{
  const Block     *b        = L->active[0];
  const Fiber     *f        = NULL;
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
    if (f->wrap) (void)snprintf(what, sizeof(what), "waits in gilu_wait_acquire_count(%p, base %d, count %d) and the flag is %d", (void *)f->flag, f->base, f->value, *f->flag);
    else (void)snprintf(what, sizeof(what), "waits in gilu_wait_until_ge(%p, %d) and the flag is %d", (void *)f->flag, f->value, *f->flag);
    break;
  }
  (void)snprintf(L->err, sizeof(L->err), "cudaemu: kernel %s deadlocks: no thread can proceed; %s %s. In this block %d thread(s) wait in gilu_wait_until_ge, %d at warp operations, %d at __syncthreads; %d block(s) started and unfinished, %ld not started (at most %d resident, blocks dispatched %s)", L->name, where, what, count[FIBER_FLAG], count[FIBER_WARP], count[FIBER_BARRIER], L->nactive, L->nblocks - L->next, L->resident, OrderNames[L->blockorder]);
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
        if (b->preempted) break;
      }
      b->preempted = 0;
    }
    /* finished blocks free their slots (their last requests counted) */
    for (a = 0, j = 0; a < L->nactive; a++) {
      if (L->active[a]->live == 0) {
        if (gilu_emu_counting) FlushRequests(L->active[a]);
        L->active[a]->index = -1;
      } else L->active[j++] = L->active[a];
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

/* libstdc++'s demangler (C linkage; the library links libstdc++ for its C++ emulated kernels) */
extern char *__cxa_demangle(const char *, char *, size_t *, int *);

/* the instantiation from the mangled name of gilu_emu_kernel_name<K, k>()'s tag type:
   "gilu_emu_kernel_tag<void (*)(double*, int), &(void Name<3, double>(double*, int))>" -> "Name<3, double>" (a
   function that is no template has no return type there: "&(Name(double*, int))" -> "Name"). gcc marks the name of a
   type local to its unit with a leading '*' (compare type_infos by address), which is no part of the mangling */
static void KernelName(const char mangled[], char name[], size_t len)
{
  int         status = -1, depth = 0;
  char       *d = __cxa_demangle(mangled + (mangled[0] == '*'), NULL, NULL, &status);
  const char *p = d && !status ? strstr(d, "&(") : NULL, *e;

  if (!p) {
    (void)snprintf(name, len, "%s", mangled);
    free(d);
    return;
  }
  p += 2;
  if (!strncmp(p, "void ", 5)) p += 5;
  if (!strncmp(p, "(anonymous namespace)::", 23)) p += 23; /* (its parentheses would end the name) */
  for (e = p; *e && !(*e == '(' && !depth); e++) depth += (*e == '<') - (*e == '>');
  (void)snprintf(name, len, "%.*s", (int)(e - p), p);
  free(d);
}

/* GILU_CUDAEMU_LAUNCH_LOG: each instantiation once per process */
static void LogLaunch(const char mangled[], const char name[])
{
  static __thread const char *logged[512];
  static __thread int         nlogged = 0;
  const char                 *file    = getenv("GILU_CUDAEMU_LAUNCH_LOG");
  FILE                       *fp;
  int                         i;

  if (!file || !file[0]) return;
  for (i = 0; i < nlogged; i++)
    if (!strcmp(logged[i], mangled)) return;
  if (nlogged < 512) logged[nlogged++] = mangled;
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
PetscErrorCode GILUEmuLaunch(const void *key, const char mangled[], GILUEmuUInt3 grid, GILUEmuUInt3 block, size_t shmem, void (*body)(void *), void *ctx)
{
  Launch        *L;
  long           nthreads = (long)block.x * block.y * block.z;
  PetscErrorCode ierr;
  int            i, optin = -1, limit = ArchOptinLimit();

  char name[256];

  PetscFunctionBegin;
  emu_lasterr[0] = 0;
  KernelName(mangled, name, sizeof(name));
  PetscCheck(!emu_launch, PETSC_COMM_SELF, PETSC_ERR_SUP, "cudaemu: kernel %s launched from inside kernel %s (dynamic parallelism is not emulated)", name, emu_launch->name);
  PetscCheck(grid.x > 0 && grid.y > 0 && grid.z > 0 && grid.x <= (unsigned)GILUEmuMaxGridX() && grid.y < 65536 && grid.z < 65536, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid grid (%u,%u,%u): x at most %d (cudaDevAttrMaxGridDimX), y and z at most 65535", name,
             grid.x, grid.y, grid.z, GILUEmuMaxGridX());
  PetscCheck(nthreads > 0 && nthreads <= 1024 && block.z <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s: invalid block (%u,%u,%u): 1 to 1024 threads", name, block.x, block.y, block.z);
  for (i = 0; i < emu_noptin; i++)
    if (emu_optin[i].kernel == key) optin = emu_optin[i].bytes;
  PetscCheck(shmem <= GILU_EMU_SHARED_DEFAULT || (optin >= 0 && shmem <= (size_t)optin), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cudaemu: kernel %s did not launch: %zu bytes of dynamic shared memory, more than 48 KiB without cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)%s (a GPU refuses such a launch: invalid argument)", name, shmem, name, optin >= 0 ? " for as many bytes" : "");
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
  ierr           = GetPolicy(L); /* the emulation's options: an error there (a bad value) frees L */
  if (!ierr) ierr = KernelEntry(name, &L->kernel);
  if (ierr) {
    PetscCall(PetscFree(L));
    PetscCall(ierr);
  }
  emu_kernels[L->kernel].launches++;
  emu_runtime[GILU_EMU_RT_LAUNCH]++;
  L->levels       = emu_next_levels;
  emu_next_levels = 0;
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
  LogLaunch(mangled, name);
  emu_launch = L;
  ierr       = Schedule(L);
  emu_launch = NULL;
  if (!ierr && L->failed) PetscCall(PetscStrncpy(emu_lasterr, L->err, sizeof(emu_lasterr)));
  if (!ierr && !L->failed && gilu_emu_counting) {
    KernelStats *k = &emu_kernels[L->kernel];

    k->counted++;
    if (L->critical > k->critical) k->critical = L->critical;
    if (L->levels) {
      k->levelled_trips += L->critical;
      k->levels += L->levels;
    }
  }
  FlagsClear(); /* the flags' publications belong to one launch */
  PetscCall(PetscFree(L->dispatch));
  PetscCall(PetscFree(L));
  PetscCall(ierr);
  PetscCheck(!emu_lasterr[0], PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", emu_lasterr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
