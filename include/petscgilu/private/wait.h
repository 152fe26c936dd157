/*
   The one host wait of petscgilu: a thread that waits for another thread's flag (sync-free and chunked triangular
   solves, gilu's numeric factorization, the stencil schedules of structilu) polls it with a bounded spin, then
   backs off.

   Why back off: with as many threads as cores, a spinning waiter costs nothing. When another process holds one
   of the cores (a compile, another developer's solve, a second MPI rank on the node), the thread it waits for may
   be waiting for a time slice on that core while the waiter burns its own: yielding alone does not help under
   Linux's CFS when nothing else is queued on the waiter's core, so after GILU_WAIT_SPIN polls the waiter yields
   GILU_WAIT_YIELD times and then sleeps (a few microseconds, doubling up to GILU_WAIT_SLEEP_MAX ns). A sleeping
   waiter leaves its core idle, and the scheduler moves the thread it waits for (or the other process) there.
   A wait that completes within the spin, the common case on an idle machine, pays nothing for this.

   Usage:
     GILUBackoff b = GILU_BACKOFF_INIT;
     while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) GILUBackoffStep(&b);
   or the helpers GILUWaitUInt() / GILUWaitIntEqual() / GILUWaitInt64AtLeast().

   Backing off bounds the damage; it cannot make a solve whose every level needs both threads faster than one thread
   when one of them gets a core only part of the time. So the solves that fork threads (the triangular-solve engine,
   the stencil schedules) also keep a GILUThreadGovernor: they time their calls on all their threads and on one
   thread (the sequential path every kernel has, which gives the same bits), take the faster by the smoothed times,
   and measure the other one again after GILU_GOVERNOR_PROBE calls, then after twice as many each time it is still
   the slower (up to GILU_GOVERNOR_PROBE_MAX), and never before its extra time is a small share
   (GILU_GOVERNOR_BUDGET) of the calls in between. Beside a busy core one threaded call can cost ten sequential ones
   or more (the thread on the shared core waits for a time slice at every level; 64^3 Poisson, 2 cores: structilu
   22 ms against 7 ms, gilu's triangles 100-200 ms against 5-20 ms), so a governor of the default number of threads
   does not try them while Linux counts more runnable threads than cores (GILUHostOversubscribed()). A solve decides
   once for all its parallel work: structilu's forward and backward sweeps run in one parallel region or none.
*/
#ifndef PETSCGILU_WAIT_H
#define PETSCGILU_WAIT_H

#include <petscsys.h>
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
  #include <dirent.h>
  #include <fcntl.h>
  #include <unistd.h>
#endif

#define GILU_WAIT_SPIN      512   /* polls (with a pause) before the first yield */
#define GILU_WAIT_YIELD     8     /* yields before the first sleep */
#define GILU_WAIT_SLEEP_MIN 1000  /* ns, the first sleep ... */
#define GILU_WAIT_SLEEP_MAX 64000 /* ... doubled up to this */

typedef struct {
  unsigned int spins, yields;
  long         sleep_ns;
} GILUBackoff;

#define GILU_BACKOFF_INIT {0, 0, GILU_WAIT_SLEEP_MIN}

static inline void GILUCpuRelax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* one step of waiting: spin, then yield, then sleep */
static inline void GILUBackoffStep(GILUBackoff *b)
{
  if (b->spins < GILU_WAIT_SPIN) {
    b->spins++;
    GILUCpuRelax();
  } else if (b->yields < GILU_WAIT_YIELD) {
    b->yields++;
    (void)sched_yield();
  } else {
    struct timespec ts = {0, b->sleep_ns};

    (void)nanosleep(&ts, NULL);
    if (b->sleep_ns < GILU_WAIT_SLEEP_MAX) b->sleep_ns *= 2;
  }
}

/* wait until *flag == want (acquire) */
static inline void GILUWaitUInt(const unsigned int *flag, unsigned int want)
{
  GILUBackoff b = GILU_BACKOFF_INIT;

  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) GILUBackoffStep(&b);
}

/* wait until *count == want (acquire) */
static inline void GILUWaitIntEqual(const PetscInt *count, PetscInt want)
{
  GILUBackoff b = GILU_BACKOFF_INIT;

  while (__atomic_load_n(count, __ATOMIC_ACQUIRE) != want) GILUBackoffStep(&b);
}

/* wait until *count >= want (acquire) */
static inline void GILUWaitInt64AtLeast(const PetscInt64 *count, PetscInt64 want)
{
  GILUBackoff b = GILU_BACKOFF_INIT;

  while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < want) GILUBackoffStep(&b);
}

/* The sleep of the developers' test hook -gilu_schedule_delay US (GILUScheduleGetDelay()): a thread that takes its
   first unit of work late, so that a missing wait for it shows in every run */
static inline void GILUDelay(PetscInt us)
{
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};

  (void)nanosleep(&ts, NULL);
}

/* The hook's sleep for a thread that claims units of work from the shared counter *next (it took the first): US, then on
   while the other threads go on claiming, until one has claimed and none has for US (at most 100 times US). So the
   others run as far as they can without this thread's unit however loaded the machine is (a thread that started late
   claims nothing during one fixed sleep, and a missing wait then survives: seen in CI) */
static inline void GILUDelayWhileClaiming(const PetscInt *next, PetscInt us)
{
  for (int i = 0; i < 100; i++) {
    const PetscInt seen = __atomic_load_n(next, __ATOMIC_RELAXED);

    GILUDelay(us);
    if (seen > 1 && __atomic_load_n(next, __ATOMIC_RELAXED) == seen) break;
  }
}

/* ------------------------------------------------------------------------------------------------ governor */
#define GILU_GOVERNOR_PROBE     16   /* calls before the slower way is measured again, at least ... */
#define GILU_GOVERNOR_PROBE_MAX 512  /* ... doubled each time the probe confirms the choice, up to this */
#define GILU_GOVERNOR_BUDGET    0.03 /* and enough calls that a probe costs at most this share of their time */
#define GILU_GOVERNOR_RECHECK   4    /* calls between two looks at the load while it puts a trial of the threads off */

typedef struct {
  double    t[2];   /* smoothed seconds per call: [0] on all the object's threads, [1] on one */
  PetscInt  n[2];   /* calls measured each way */
  PetscInt  calls;  /* calls so far */
  PetscInt  every;  /* the current probe interval (0: not started) */
  PetscInt  next;   /* the call that probes */
  PetscBool probe;  /* the running call is a probe */
  PetscBool forced; /* the threads were set on the object: tried whatever the load (GILUHostOversubscribed() not asked) */
  PetscInt  waited; /* calls the due trial of the threads has been put off */
} GILUThreadGovernor;

static inline double GILUWallTime(void)
{
  struct timespec ts;

  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The next probe interval: at least `every`, and long enough that the probe's extra time (slower / faster - 1 calls
   of the faster way) is at most GILU_GOVERNOR_BUDGET of the interval's time, at most GILU_GOVERNOR_PROBE_MAX.
   Beside a busy core a threaded call can take several times a sequential one: probing it every 16 calls would cost
   more than the threads ever gain there. */
static inline PetscInt GILUGovernorInterval(const GILUThreadGovernor *g, PetscInt every)
{
  const double slow = PetscMax(g->t[0], g->t[1]), fast = PetscMin(g->t[0], g->t[1]);
  double       need = fast > 0 ? (slow / fast - 1.0) / GILU_GOVERNOR_BUDGET : 0;

  if (need > (double)GILU_GOVERNOR_PROBE_MAX) need = GILU_GOVERNOR_PROBE_MAX;
  return PetscMin(PetscMax(every, (PetscInt)need), GILU_GOVERNOR_PROBE_MAX);
}

/* Whether the machine's runnable threads and this call's nthreads - 1 others would outnumber its online cores: Linux's
   instantaneous count of runnable threads in /proc/loadavg ("0.52 0.58 0.59 3/467 12345": 3, this thread one of them).
   The compute loop of another process on one of two cores makes 2 + 1 > 2. False where the count cannot be read. */
static inline long GILUHostRunnable(void)
{
#if defined(__linux__)
  char        buf[128];
  const char *p = buf;
  ssize_t     n;
  int         fd = open("/proc/loadavg", O_RDONLY);

  if (fd < 0) return -1;
  n = read(fd, buf, sizeof(buf) - 1);
  (void)close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  for (int f = 0; f < 3 && p; f++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  return p ? strtol(p, NULL, 10) : -1;
#else
  return -1;
#endif
}

/* The runnable threads of this process (state R in /proc/self/task/TID/stat, after the command's closing parenthesis):
   the OpenMP threads of the last parallel region spin a while before they sleep, so they are runnable in
   /proc/loadavg too, but they are the threads this call would use, not another user's load. -1 where unreadable. */
static inline long GILUHostRunnableOwn(void)
{
#if defined(__linux__)
  DIR           *dir = opendir("/proc/self/task");
  struct dirent *e;
  long           own = 0;

  if (!dir) return -1;
  while ((e = readdir(dir))) {
    char        path[64], buf[256];
    const char *q;
    ssize_t     n;
    int         fd;

    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    (void)snprintf(path, sizeof(path), "/proc/self/task/%.20s/stat", e->d_name);
    if ((fd = open(path, O_RDONLY)) < 0) continue;
    n = read(fd, buf, sizeof(buf) - 1);
    (void)close(fd);
    if (n <= 0) continue;
    buf[n] = 0;
    q      = strrchr(buf, ')');
    if (q && q[1] == ' ' && q[2] == 'R') own++;
  }
  (void)closedir(dir);
  return own;
#else
  return -1;
#endif
}

/* The largest of 3 counts: one read can miss a runnable thread (the kernel sums the cores' counts without a lock), less
   this process's other runnable threads (its own spinning OpenMP threads are no load: GILUHostRunnableOwn()) */
static inline PetscBool GILUHostOversubscribed(PetscInt nthreads)
{
#if defined(__linux__)
  long running = -1, ncpu = sysconf(_SC_NPROCESSORS_ONLN), own;

  for (int r = 0; r < 3; r++) running = PetscMax(running, GILUHostRunnable());
  own = GILUHostRunnableOwn();
  if (own > 1) running -= own - 1;
  return (PetscBool)(ncpu >= 1 && running >= 1 && running - 1 + nthreads > ncpu);
#else
  (void)nthreads;
  return PETSC_FALSE;
#endif
}

/*
  Whether this call of an object with nthreads threads runs on one thread: each way once at the start (the threads
  first), then the faster by the smoothed times, the other one as a probe.
  A trial or probe of the threads that is due while the machine is oversubscribed (GILUHostOversubscribed()) is put
  off, the load looked at again every GILU_GOVERNOR_RECHECK calls (a load that passes, another user's short job, lets
  it run soon), for GILU_GOVERNOR_PROBE_MAX calls at most: beside a busy core one threaded call can cost many
  sequential ones (it waits for a time slice at every level), and the count (a few microseconds) saves it.
  Not when the object's threads were set on it (g->forced: a test or a user who wants them tried at once).
*/
static inline PetscBool GILUGovernorSerial(GILUThreadGovernor *g, PetscInt nthreads)
{
  PetscBool serial;

  g->calls++;
  g->probe = PETSC_FALSE;
  if (g->n[0] < 1 && g->n[1] < 1) return (PetscBool)(!g->forced && GILUHostOversubscribed(nthreads));
  if (g->n[1] < 1) return PETSC_TRUE;
  serial = (PetscBool)(g->n[0] < 1 || g->t[1] < g->t[0]);
  if (g->calls < g->next) return serial;
  if (serial && !g->forced && g->waited < GILU_GOVERNOR_PROBE_MAX && GILUHostOversubscribed(nthreads)) {
    g->waited += GILU_GOVERNOR_RECHECK;
    g->next = g->calls + GILU_GOVERNOR_RECHECK;
    return PETSC_TRUE;
  }
  g->waited = 0;
  if (g->n[0] < 1) return PETSC_FALSE; /* the first call on the threads */
  g->probe = PETSC_TRUE;
  return (PetscBool)!serial;
}

/* GILUGovernorSerial(), except that with the developers' test hook -gilu_schedule_delay on (delay > 0) every call runs
   on the threads: the hook is there to make a missing wait show, which it cannot on one thread (and a delayed thread
   makes the threads the slower way) */
static inline PetscBool GILUGovernorSerialUnlessDelay(GILUThreadGovernor *g, PetscInt nthreads, PetscInt delay)
{
  return delay ? PETSC_FALSE : GILUGovernorSerial(g, nthreads);
}

/*
  GILUGovernorFollow - the way for a rare call on the threads of governor g's frequent calls (a factorization on the
  schedule of the solves): their faster way once both are measured, else all the threads unless the machine is
  oversubscribed; always all of them when they were set on the object (g->forced). It measures nothing itself: a
  trial on one thread would cost a whole factorization (SNES refactors a few times in all), and the solves run the
  same schedule with the same dependencies, so their verdict holds for it.
*/
static inline PetscBool GILUGovernorFollow(const GILUThreadGovernor *g, PetscInt nthreads)
{
  if (g->forced) return PETSC_FALSE;
  if (g->n[0] > 0 && g->n[1] > 0) return (PetscBool)(g->t[1] < g->t[0]);
  return GILUHostOversubscribed(nthreads);
}

/* The time of a call made the way GILUGovernorSerial() said. The first call of the second way and a probe replace the
   estimate of their way; when that way is still the slower the probes thin out, else they restart. */
static inline void GILUGovernorRecord(GILUThreadGovernor *g, PetscBool serial, double seconds)
{
  const int w = serial ? 1 : 0;

  if (g->n[w] == 0 && g->n[1 - w] > 0) {
    g->t[w]  = seconds;
    g->every = GILUGovernorInterval(g, GILU_GOVERNOR_PROBE);
    g->next  = g->calls + g->every;
  } else if (g->probe) {
    g->t[w] = seconds;
    if (g->t[w] >= g->t[1 - w]) g->every = GILUGovernorInterval(g, PetscMin(2 * g->every, GILU_GOVERNOR_PROBE_MAX));
    else g->every = GILUGovernorInterval(g, GILU_GOVERNOR_PROBE);
    g->next = g->calls + g->every;
  } else g->t[w] = g->n[w] == 0 ? seconds : 0.75 * g->t[w] + 0.25 * seconds;
  g->n[w]++;
}

#endif
