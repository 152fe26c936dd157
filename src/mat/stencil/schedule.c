/*
   Host-thread schedule of the sweeps over a stencil matrix (factorization, forward and
   backward substitution): StructILU's hyperplane schedule with block-to-block waiting,
   with tiles that are segments of grid lines.

   Why the slab schedule cannot deadlock: each thread runs its units in natural order and a
   unit waits only for units before it in natural order. Take the unit that comes first in
   natural order among the threads' current units: every unit before it is done (its owner
   has passed it), so its thread makes progress.

   Why the hyperplane schedule cannot deadlock: tiles are claimed, one at a time and in one global order, from a
   shared counter; the order sorts units by their level w.(c,j,k) and a tile holds units of
   one level, and every unit a unit waits for has a strictly smaller level, so its tile was
   claimed earlier. A thread works on one claimed tile until it is done. Take the unfinished
   claimed tile that comes first in the order: everything it waits for comes earlier, hence
   is finished, so its thread makes progress. Threads that wait on a flag yield and then
   sleep after a bounded spin (private/wait.h), so this also holds with more threads than cores.

   Why the slab schedule's two sweeps of a solve need no barrier between them, and the hyperplane schedule's do: a slab
   thread runs both sweeps on its own units, and its first unit of the backward sweep waits for a unit of the thread
   above it in that sweep (the next slab in y in 3D, the next chunk in x in 2D), which that thread reaches only after
   its whole forward sweep; so no thread overwrites a value that a forward sweep still reads, or reads a value before
   the forward sweep wrote it. (2D lines are cut into chunks only for symmetric stencils, so the backward sweep waits
   across every chunk boundary that the forward sweep read across.) A hyperplane thread
   that finds no tile left in the forward sweep would take the first backward tile, the last forward one, which waits
   for nothing, while another thread may still be running it forward.

   Test hook (developers): -gilu_schedule_delay US, else the environment variable GILU_SCHEDULE_DELAY (as the CUDA
   emulation's GILU_CUDAEMU_SCHEDULE, so whole test runs can be perturbed), read when a schedule is created: with
   several threads, in the first sweep of every call (the factorization, the forward substitution of a solve, the
   backward sweep of the Eisenstat trick's backward-forward pair) thread 0 (slab) sleeps US
   microseconds before its part, and the threads that take the first and the last tile (hyperplane) sleep before
   running them (across processes, pipeline.c: in every sweep the leading thread sleeps first and the last one after
   its first step). The others run ahead as far as the waits let them, so a thread that reads what a sweep writes
   before it is written reads it unwritten, every time instead of once in a million: without the per-unit waits, the
   units after thread 0's or the first tile; without the barrier between the sweeps, the backward sweep on the last
   tile (tests/ex1 threads_delay). Off, it costs one branch per sweep.

   Why the results do not depend on the number of threads: every row is computed by the
   same code from the same inputs in the same order of operations; the schedule only
   decides when, and guarantees that the rows it reads are final.
*/
#include <stdlib.h>
#include <petscgilu/private/wait.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/stencil.h>

#define MAX_DEPTH 4 /* sub-slabs pipelined by one thread, at most (the DoF-1 kernels interleave up to four lines) */
#include <petscgiluconf.h>
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

const char *const GILUScheduleTypes[] = {"slab", "hyperplane", "pipeline", "GILUScheduleType", "GILU_SCHEDULE_", NULL};

/* The default threads of the host kernels (objects without their own -..._threads): OMP_NUM_THREADS when it is set;
   else OpenMP's default (the cores) divided among the MPI processes of the node (GILUNodeSize, found at package
   initialization), at least 1, so that n ranks on a node do not run n times as many threads as it has cores.
   1 without OpenMP. At most GILUGetMaxThreads(), as every count of threads. */
PetscErrorCode GILUGetNumThreads(PetscInt *nthreads)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_OPENMP)
  *nthreads = omp_get_max_threads();
  if (!getenv("OMP_NUM_THREADS")) *nthreads = PetscMax(1, *nthreads / PetscMax(1, (PetscInt)GILUNodeSize));
  PetscCall(GILUClampThreads(*nthreads, nthreads));
#else
  *nthreads = 1;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The most host threads that any component runs: GILU_THREADS_PER_CORE per core of the node (omp_get_num_procs()) and
   OpenMP's thread limit (OMP_THREAD_LIMIT). More only oversubscribe the cores (every schedule spins while it waits),
   and at some count the OpenMP runtime cannot create them (libgomp aborts, or the stacks overflow the memory). */
#define GILU_THREADS_PER_CORE 4
PetscErrorCode GILUGetMaxThreads(PetscInt *max)
{
  PetscFunctionBegin;
#if defined(PETSCGILU_HAVE_OPENMP)
  *max = PetscMax(1, PetscMin((PetscInt64)GILU_THREADS_PER_CORE * omp_get_num_procs(), (PetscInt64)omp_get_thread_limit()));
#else
  *max = 1;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUClampThreads - the host threads that run for a count asked for (an object's -..._threads, its setter,
  OMP_NUM_THREADS): requested > 0 clamped to GILUGetMaxThreads(), 0 or less the default GILUGetNumThreads().
  The one rule of every component; the views print the threads that run.
*/
PetscErrorCode GILUClampThreads(PetscInt requested, PetscInt *nthreads)
{
  PetscInt max;

  PetscFunctionBegin;
  if (requested <= 0) {
    PetscCall(GILUGetNumThreads(nthreads));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUGetMaxThreads(&max));
  if (requested > max) PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " host threads asked for: %" PetscInt_FMT " run (at most %d per core of the node and OpenMP's thread limit)\n", requested, max, GILU_THREADS_PER_CORE));
  *nthreads = PetscMin(requested, max);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tile offsets (in tile coordinates) that a grid offset d can reach from a tile of width chunk >= |d[0]| */
static void AddTileOffsets(const PetscInt d[3], PetscInt sign, PetscInt *ndep, PetscInt dep[][3])
{
  PetscInt cand[2][3] = {
    {0,                                           sign * d[1], sign * d[2]},
    {sign * (d[0] > 0 ? 1 : (d[0] < 0 ? -1 : 0)), sign * d[1], sign * d[2]}
  };

  for (PetscInt c = 0; c < 2; c++) {
    PetscBool dup = (PetscBool)(!cand[c][0] && !cand[c][1] && !cand[c][2]);

    for (PetscInt t = 0; t < *ndep && !dup; t++) dup = (PetscBool)(dep[t][0] == cand[c][0] && dep[t][1] == cand[c][1] && dep[t][2] == cand[c][2]);
    if (dup) continue;
    for (PetscInt a = 0; a < 3; a++) dep[*ndep][a] = cand[c][a];
    (*ndep)++;
  }
}

/* Builds the units of a given chunk width, their dependencies and levels; returns the average number of units per level */
static PetscErrorCode ScheduleSetTiles(GILUSchedule s, const GILUStencil *st, const GILUGrid *g, PetscInt chunk, PetscReal *parallelism)
{
  GILUStencil *both;

  PetscFunctionBegin;
  s->chunk   = chunk;
  s->nx      = g->n[0];
  s->n[0]    = (g->n[0] + chunk - 1) / chunk;
  s->n[1]    = g->n[1];
  s->n[2]    = g->n[2];
  s->nunits  = s->n[0] * s->n[1] * s->n[2];
  s->ndep[0] = s->ndep[1] = 0;
  for (PetscInt o = 0; o < st->ns; o++) {
    if (o < st->nlower) AddTileOffsets(st->off[o], 1, &s->ndep[0], s->dep[0]);
    else if (o > st->nlower) AddTileOffsets(st->off[o], 1, &s->ndep[1], s->dep[1]);
  }
  /* one set of weights for both sweeps: forward tiles wait for lower levels, backward ones for higher */
  PetscCall(PetscNew(&both));
  for (PetscInt t = 0; t < s->ndep[0]; t++)
    for (PetscInt a = 0; a < 3; a++) both->off[t][a] = s->dep[0][t][a];
  both->ns = s->ndep[0];
  for (PetscInt t = 0; t < s->ndep[1]; t++, both->ns++)
    for (PetscInt a = 0; a < 3; a++) both->off[both->ns][a] = -s->dep[1][t][a];
  both->nlower = both->ns;
  {
    GILUGrid tg = *g;

    for (PetscInt a = 0; a < 3; a++) tg.n[a] = s->n[a];
    PetscCall(GILUStencilGetHyperplanes(both, &tg, s->w, &s->nlevels));
    PetscCheck(s->nlevels < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No hyperplane schedule for these tiles");
  }
  PetscCall(PetscFree(both));
  *parallelism = (PetscReal)s->nunits / (PetscReal)s->nlevels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUScheduleCreate - the schedule of a stencil on a grid for nthreads threads

  hyperplane: whole grid lines are the units when there are enough of them per level (3D
  grids); else the lines are cut into chunks (2D grids) until there are about 4 tiles of
  `group` units per level per thread, keeping chunks of at least 32 points and at least the
  stencil's x-width.
  slab: whole lines in 3D, split in y among the threads, each slab run as `depth` pipelined
  sub-slabs; in 2D (and with fewer than 2 lines per thread), the lines are cut into one chunk
  per thread, split in x, so the threads pipeline along y.
*/
PetscErrorCode GILUScheduleCreate(const GILUStencil *st, const GILUGrid *g, GILUScheduleType type, PetscInt nthreads, PetscInt group, PetscInt depth, GILUSchedule *schedule)
{
  GILUSchedule s;
  PetscReal    par;
  PetscInt     chunk = g->n[0], minchunk = PetscMax(32, PetscMax(st->width[0], 1));
  PetscBool    symmetric = PETSC_TRUE;
  PetscInt    *count;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  s->type     = type;
  s->nthreads = nthreads;
  s->group    = type == GILU_SCHEDULE_HYPERPLANE ? PetscMax(group, 1) : 1;
  s->ywidth   = st->width[1];
  s->depth    = 1;
  for (PetscInt a = 0; a < st->ns && symmetric; a++) {
    PetscInt d[3] = {-st->off[a][0], -st->off[a][1], -st->off[a][2]}, b;

    PetscCall(GILUStencilFind(st, d, &b));
    symmetric = (PetscBool)(b >= 0);
  }
  /* slab in 2D (symmetric stencils: the argument at the top of the file needs it backward too) or with fewer lines than
     2 per thread: one chunk of each line per thread, split in x, so that thread t runs line j while thread t + 1 runs
     line j - 1 (a pipeline); split in y, a 2D slab would wait for the whole slab below it */
  if (type == GILU_SCHEDULE_SLAB && nthreads > 1 && ((g->n[2] == 1 && symmetric) || g->n[1] * g->n[2] < 2 * nthreads)) chunk = PetscMax((g->n[0] + nthreads - 1) / nthreads, PetscMax(st->width[0], 1));
  PetscCall(ScheduleSetTiles(s, st, g, chunk, &par));
  while (type == GILU_SCHEDULE_HYPERPLANE && par < 4 * nthreads * s->group && chunk / 2 >= minchunk) {
    chunk = (chunk + 1) / 2;
    PetscCall(ScheduleSetTiles(s, st, g, chunk, &par));
  }
  /* slab: pipeline two sub-slabs per thread in 3D when the stencil is symmetric */
  if (type == GILU_SCHEDULE_SLAB && s->n[0] == 1 && s->n[2] > 1) {
    if (symmetric) s->depth = PetscMin(depth, MAX_DEPTH);
    while (s->depth > 1 && (s->n[1] / nthreads) / s->depth <= s->ywidth) s->depth--; /* sub-slabs higher than the stencil */
  }
  /* units sorted by level, natural order within a level (counting sort) */
  PetscCall(PetscCalloc1(s->nlevels + 1, &count));
  PetscCall(PetscMalloc1(s->nunits, &s->order));
  for (PetscInt k = 0; k < s->n[2]; k++)
    for (PetscInt j = 0; j < s->n[1]; j++)
      for (PetscInt c = 0; c < s->n[0]; c++) count[s->w[0] * c + s->w[1] * j + s->w[2] * k + 1]++;
  for (PetscInt l = 0; l < s->nlevels; l++) count[l + 1] += count[l];
  for (PetscInt k = 0, u = 0; k < s->n[2]; k++)
    for (PetscInt j = 0; j < s->n[1]; j++)
      for (PetscInt c = 0; c < s->n[0]; c++, u++) s->order[count[s->w[0] * c + s->w[1] * j + s->w[2] * k]++] = u;
  /* tiles: runs of up to `group` units of one level (count[l] is now the end of level l) */
  PetscCall(PetscMalloc1(s->nunits + 1, &s->tileptr));
  s->ntiles = 0;
  for (PetscInt l = 0, start = 0; l < s->nlevels; start = count[l++])
    for (PetscInt t = start; t < count[l]; t += s->group) s->tileptr[s->ntiles++] = t;
  s->tileptr[s->ntiles] = s->nunits;
  PetscCall(PetscFree(count));
  PetscCall(PetscCalloc1(s->nunits, &s->done));
  PetscCall(GILUScheduleGetDelay(&s->delay));
  *schedule = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUScheduleDestroy(GILUSchedule *s)
{
  PetscFunctionBegin;
  if (!*s) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*s)->govsolve.calls) PetscCall(PetscInfo(NULL, "Solves of the schedule of %" PetscInt_FMT " threads: %" PetscInt_FMT " on all of them, %" PetscInt_FMT " on one\n", (*s)->nthreads, (*s)->govsolve.n[0], (*s)->govsolve.n[1]));
  if ((*s)->govmultiple.calls)
    PetscCall(PetscInfo(NULL, "Solves of several right-hand sides of the schedule of %" PetscInt_FMT " threads: %" PetscInt_FMT " on all of them, %" PetscInt_FMT " on one\n", (*s)->nthreads, (*s)->govmultiple.n[0], (*s)->govmultiple.n[1]));
  PetscCall(PetscFree((*s)->order));
  PetscCall(PetscFree((*s)->tileptr));
  PetscCall(PetscFree((*s)->done));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUGetNumThreadsFor - the threads of the host kernels of a stencil matrix of n unknowns:
  requested > 0 is taken as it is (clamped, GILUClampThreads()); 0 means OpenMP's number of threads
  (GILUGetNumThreads()), but no more than one per 16384 unknowns: below that, waiting costs more than the threads gain.
*/
PetscErrorCode GILUGetNumThreadsFor(PetscInt requested, PetscInt n, PetscInt *nthreads)
{
  PetscFunctionBegin;
  if (requested > 0) PetscCall(GILUClampThreads(requested, nthreads));
  else {
    PetscCall(GILUGetNumThreads(nthreads));
    *nthreads = PetscMax(1, PetscMin(*nthreads, n / 16384));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GILUStencilMatGetNumThreads - the threads of the host kernels of sm: sm->nthreads (GILUGetNumThreadsFor()) */
PetscErrorCode GILUStencilMatGetNumThreads(const GILUStencilMat *sm, PetscInt *nthreads)
{
  PetscFunctionBegin;
  PetscCall(GILUGetNumThreadsFor(sm->nthreads, sm->npoints * sm->grid.dof, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilMatGetSchedule - the schedule of a stencil matrix for its number of threads
  (GILUStencilMatGetNumThreads(); rebuilt when that or the type changes)
*/
PetscErrorCode GILUStencilMatGetSchedule(GILUStencilMat *sm, GILUSchedule *s)
{
  PetscInt nthreads;

  PetscFunctionBegin;
  if (sm->schedule && sm->schedule->type == GILU_SCHEDULE_PIPELINE) { /* across processes (pipeline.c): set by its user */
    *s = sm->schedule;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GILUStencilMatGetNumThreads(sm, &nthreads));
  if (sm->schedule && sm->schedule->nthreads != nthreads) PetscCall(GILUScheduleDestroy(&sm->schedule));
  /* independent units interleaved per tile hide the latency of the recurrences along the lines; one block row is enough work from 3 DoF on */
  if (sm->schedule && sm->schedule->type != sm->scheduletype) PetscCall(GILUScheduleDestroy(&sm->schedule));
  if (!sm->schedule) {
    PetscCall(GILUScheduleCreate(&sm->stencil, &sm->grid, sm->scheduletype, nthreads, sm->grid.dof == 1 ? 4 : (sm->grid.dof == 2 ? 2 : 1), sm->grid.dof == 1 ? 3 : (sm->grid.dof == 2 ? 2 : 1), &sm->schedule));
    sm->schedule->govsolve.forced    = (PetscBool)(sm->nthreads > 0); /* private/wait.h */
    sm->schedule->govmultiple.forced = sm->schedule->govsolve.forced;
  }
  *s = sm->schedule;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wait until unit u + d is done in this sweep (spins, then yields and sleeps: include/petscgilu/private/wait.h) */
static inline void UnitWait(GILUSchedule s, PetscInt u, const PetscInt d[3], PetscInt64 sweep)
{
  PetscInt c = u % s->n[0] + d[0], j = (u / s->n[0]) % s->n[1] + d[1], k = u / (s->n[0] * s->n[1]) + d[2];

  if (c < 0 || c >= s->n[0] || j < 0 || j >= s->n[1] || k < 0 || k >= s->n[2]) return;
  GILUWaitInt64AtLeast(&s->done[(k * s->n[1] + j) * s->n[0] + c], sweep);
}

/* The units of thread t in the slab schedule: y-lines [j0,j1) of every plane, or x-chunks [c0,c1) of every line */
static inline void SlabRange(GILUSchedule s, PetscInt t, PetscInt r[3][2])
{
  PetscInt a = s->n[2] > 1 || s->n[0] == 1 ? 1 : 0; /* the direction split among the threads */

  for (PetscInt d = 0; d < 3; d++) {
    r[d][0] = 0;
    r[d][1] = s->n[d];
  }
  r[a][0] = (s->n[a] * t) / s->nthreads;
  r[a][1] = (s->n[a] * (t + 1)) / s->nthreads;
}

/* One unit after the units it waits for, then its flag */
static inline void RunUnits(GILUSchedule s, PetscInt nu, const PetscInt *units, const PetscInt nd, const PetscInt (*dep)[3], GILUTileKernel kernel, void *ctx, PetscInt64 sweep, PetscBool wait)
{
  if (wait)
    for (PetscInt a = 0; a < nu; a++)
      for (PetscInt d = 0; d < nd; d++) UnitWait(s, units[a], dep[d], sweep);
  kernel(ctx, s, nu, units);
  if (wait)
    for (PetscInt a = 0; a < nu; a++) __atomic_store_n(&s->done[units[a]], sweep, __ATOMIC_RELEASE);
}

/*
  The sweep of thread t over its slab. With depth 1, in natural order. With depth G > 1 (3D,
  whole lines), the slab is cut in y into G sub-slabs and sub-slab g runs g planes behind
  sub-slab 0: step st takes line i of plane st - g of every sub-slab g together, so the
  kernel interleaves G independent recurrences (instruction-level parallelism for one
  thread). Line i of sub-slab g needs lines of plane st - g - 1 of sub-slab g + 1 (done one
  step earlier) and never a line of the same step, because sub-slabs are higher than the
  stencil. Thread t's step st waits at most for thread t-1's step st + G - 1 and thread
  t+1's step st - G, so the steps of all threads are ordered by 2 st + (2G - 1) t: no cycle.
  The backward sweep runs the same in reverse.
*/
static inline void SlabSweep(GILUSchedule s, PetscInt t, PetscBool backward, GILUTileKernel kernel, void *ctx, PetscInt64 sweep, PetscBool wait)
{
  const PetscInt nd        = s->ndep[backward ? 1 : 0];
  const PetscInt (*dep)[3] = (const PetscInt (*)[3])s->dep[backward ? 1 : 0];
  PetscInt r[3][2], n[3], total, G = s->depth, h, nsteps;

  SlabRange(s, t, r);
  for (PetscInt d = 0; d < 3; d++) n[d] = r[d][1] - r[d][0];
  h = n[1] / PetscMax(G, 1);
  if (G <= 1 || h <= s->ywidth) {
    total = n[0] * n[1] * n[2];
    for (PetscInt m = 0; m < total; m++) {
      PetscInt mm = backward ? total - 1 - m : m;
      PetscInt u  = ((r[2][0] + mm / (n[0] * n[1])) * s->n[1] + r[1][0] + (mm / n[0]) % n[1]) * s->n[0] + r[0][0] + mm % n[0];

      RunUnits(s, 1, &u, nd, dep, kernel, ctx, sweep, wait);
    }
    return;
  }
  nsteps = s->n[2] + G - 1;
  for (PetscInt m = 0; m < nsteps; m++) {
    PetscInt st = backward ? nsteps - 1 - m : m, htop = n[1] - (G - 1) * h; /* the top sub-slab takes the remainder */

    for (PetscInt mi = 0; mi < htop; mi++) {
      PetscInt i = backward ? htop - 1 - mi : mi, units[MAX_DEPTH], nu = 0;

      for (PetscInt g = 0; g < G; g++) {
        PetscInt k = st - g;

        if (k < 0 || k >= s->n[2] || (g < G - 1 && i >= h)) continue;
        units[nu++] = k * s->n[1] + r[1][0] + g * h + i;
      }
      if (nu) RunUnits(s, nu, units, nd, dep, kernel, ctx, sweep, wait);
    }
  }
}

/*
  GILUScheduleRun - one sweep: the kernel on every tile, forward (tiles by increasing level,
  each unit after the units holding its lower neighbours) or backward (the reverse)

  With one thread the units run in natural order (slab) or the tiles in level order
  (hyperplane), without any waiting. A schedule for several threads runs that way too when its
  governor finds it faster (another process holds a core: private/wait.h); the results are the
  same (a single sweep, the factorization among them, follows the solves' governor: GILUGovernorFollow()).
  The kernel must not call PETSc (it runs inside an OpenMP parallel region). Its context ctx begins with a
  GILUSweepHead (private/stencil.h), from which the pipeline learns what to exchange.
*/
static void ScheduleRunSerial(GILUSchedule s, PetscBool backward, GILUTileKernel kernel, void *ctx, PetscInt64 sweep)
{
  PetscInt ntiles = s->ntiles;

  if (s->type == GILU_SCHEDULE_SLAB) { /* the whole grid as one slab: natural order (the sub-slabs stay higher than the stencil) */
    PetscInt nt = s->nthreads;

    s->nthreads = 1;
    SlabSweep(s, 0, backward, kernel, ctx, sweep, PETSC_FALSE);
    s->nthreads = nt;
    return;
  }
  for (PetscInt n = 0; n < ntiles; n++) {
    PetscInt t = backward ? ntiles - 1 - n : n;

    kernel(ctx, s, s->tileptr[t + 1] - s->tileptr[t], s->order + s->tileptr[t]);
  }
}

/* Thread t's part of one sweep with several threads; next: the shared tile counter of the hyperplane schedule (zero at the start) */
static inline void SweepThread(GILUSchedule s, PetscInt t, PetscBool backward, PetscBool first, GILUTileKernel kernel, void *ctx, PetscInt64 sweep, PetscInt *next)
{
  const PetscInt nd        = s->ndep[backward ? 1 : 0];
  const PetscInt (*dep)[3] = (const PetscInt (*)[3])s->dep[backward ? 1 : 0];
  const PetscInt  ntiles   = s->ntiles;
  const PetscBool delay    = (PetscBool)(PetscUnlikely(s->delay) && first); /* the test hook (see the top of the file) */
  PetscInt        n, tl, nu;

  if (s->type == GILU_SCHEDULE_SLAB) {
    if (delay && t == 0) GILUDelay(s->delay);
    SlabSweep(s, t, backward, kernel, ctx, sweep, PETSC_TRUE);
    return;
  }
  n = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
  if (delay && n == 0) GILUDelay(s->delay);
  for (;; n = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED)) {
    if (n >= ntiles - 1) { /* the last tile or none: one test for both, so the hook costs nothing per tile */
      if (n >= ntiles) break;
      if (delay) GILUDelay(s->delay);
    }
    tl = backward ? ntiles - 1 - n : n;
    nu = s->tileptr[tl + 1] - s->tileptr[tl];
    for (PetscInt a = 0; a < nu; a++)
      for (PetscInt d = 0; d < nd; d++) UnitWait(s, s->order[s->tileptr[tl] + a], dep[d], sweep);
    kernel(ctx, s, nu, s->order + s->tileptr[tl]);
    for (PetscInt a = 0; a < nu; a++) __atomic_store_n(&s->done[s->order[s->tileptr[tl] + a]], sweep, __ATOMIC_RELEASE);
  }
}

/*
  The sweeps of one call on all the schedule's threads, in one OpenMP parallel region (a fork and a join per call, not per
  sweep: beside a busy core each costs a time slice): kernel[0] (forward when backward[0] is false) for sweep `sweep`, then,
  when nsweeps is 2, after a barrier (the second sweep reads what the first wrote anywhere), kernel[1] for sweep + 1.
*/
static void ScheduleRunThreads(GILUSchedule s, PetscInt nsweeps, const PetscBool backward[], const GILUTileKernel kernel[], void *ctx, PetscInt64 sweep)
{
#if defined(PETSCGILU_HAVE_OPENMP)
  PetscInt next[2] = {0, 0};

  #pragma omp parallel num_threads(s->nthreads)
  {
    const PetscInt t = omp_get_thread_num();

    for (PetscInt w = 0; w < nsweeps; w++) {
      if (w > 0) {
  #pragma omp barrier
      }
      SweepThread(s, t, backward[w], (PetscBool)(w == 0), kernel[w], ctx, sweep + w, &next[w]);
    }
  }
#else
  for (PetscInt w = 0; w < nsweeps; w++) ScheduleRunSerial(s, backward[w], kernel[w], ctx, sweep + w);
#endif
}

/* nsweeps sweeps (1 or 2) under one decision of governor g: all the threads or one, timed as one call (as per calls: a
   call of several right-hand sides records its time per right-hand side) */
static PetscErrorCode ScheduleRunGoverned(GILUSchedule s, GILUThreadGovernor *g, PetscInt nsweeps, const PetscBool backward[], const GILUTileKernel kernel[], void *ctx, PetscInt per)
{
  PetscInt64 sweep = s->sweep + 1;
  PetscBool  serial;
  double     t0;

  PetscFunctionBegin;
  s->sweep += nsweeps;
  if (s->type == GILU_SCHEDULE_PIPELINE) {
    for (PetscInt w = 0; w < nsweeps; w++) PetscCall(GILUPipeSweep(s->pipe, s, backward[w], kernel[w], ctx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->nthreads == 1) {
    for (PetscInt w = 0; w < nsweeps; w++) ScheduleRunSerial(s, backward[w], kernel[w], ctx, sweep + w);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  serial = GILUGovernorSerialUnlessDelay(g, s->nthreads, s->delay);
  t0     = GILUWallTime();
  if (serial)
    for (PetscInt w = 0; w < nsweeps; w++) ScheduleRunSerial(s, backward[w], kernel[w], ctx, sweep + w);
  else ScheduleRunThreads(s, nsweeps, backward, kernel, ctx, sweep);
  GILUGovernorRecord(g, serial, (GILUWallTime() - t0) / per);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUScheduleRun(GILUSchedule s, PetscBool backward, GILUTileKernel kernel, void *ctx)
{
  PetscInt64 sweep = ++s->sweep;

  PetscFunctionBegin;
  if (s->type == GILU_SCHEDULE_PIPELINE) {
    PetscCall(GILUPipeSweep(s->pipe, s, backward, kernel, ctx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->nthreads == 1 || GILUGovernorFollow(&s->govsolve, s->nthreads)) ScheduleRunSerial(s, backward, kernel, ctx, sweep);
  else ScheduleRunThreads(s, 1, &backward, &kernel, ctx, sweep);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUScheduleRunPair - two sweeps as one call of the solve's own governor (s->govsolve): both on all the threads, in one
  parallel region with a barrier between them, or both on one thread; the results are those of two GILUScheduleRun()
  calls. A triangular solve is the forward sweep, then the backward one (backwardfirst false); the Eisenstat trick's
  operator the backward sweep, then the forward one (backwardfirst true).
*/
PetscErrorCode GILUScheduleRunPair(GILUSchedule s, PetscBool backwardfirst, GILUTileKernel first, GILUTileKernel second, void *ctx)
{
  const PetscBool      dir[2]    = {backwardfirst, (PetscBool)!backwardfirst};
  const GILUTileKernel kernel[2] = {first, second};

  PetscFunctionBegin;
  PetscCall(ScheduleRunGoverned(s, &s->govsolve, 2, dir, kernel, ctx, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUScheduleRunPairMultiple(GILUSchedule s, PetscBool backwardfirst, GILUTileKernel first, GILUTileKernel second, void *ctx, PetscInt m)
{
  const PetscBool      dir[2]    = {backwardfirst, (PetscBool)!backwardfirst};
  const GILUTileKernel kernel[2] = {first, second};

  PetscFunctionBegin;
  PetscCall(ScheduleRunGoverned(s, &s->govmultiple, 2, dir, kernel, ctx, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}
