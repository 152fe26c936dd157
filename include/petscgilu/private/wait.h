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
*/
#ifndef PETSCGILU_WAIT_H
#define PETSCGILU_WAIT_H

#include <petscsys.h>
#include <sched.h>
#include <time.h>

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

#endif
