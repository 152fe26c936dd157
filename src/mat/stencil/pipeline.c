/*
   The pipeline across processes: the global ILU(k)/IC(k) of natural ordering of a DMDA's grid, factored and applied
   with every process working on its own box (declared in petscgilu/private/stencil.h; used by PCSTRUCTILU with
   -pc_structilu_distributed).

   Each process keeps its box extended by ghost layers (width w, clipped to the grid) as one stencil matrix, so the
   host kernels of ilu.c run on it unchanged; they run only on the process's own points, one unit (a segment of a grid
   line) at a time, and read the ghost points' rows (factorization: their diagonal and upper blocks and inverted
   diagonal) and values (forward sweep: y of lower neighbours; backward sweep: x of upper neighbours), which their
   owners send as soon as they have computed them.

   The order. A point's key is T * (points of the grid) + its natural index, T its tile: 0 in the natural order; in the
   tiled order floor((j + s k) / c) in 3D (tiles of c grid lines along y, skewed by s lines a plane) and
   floor((i + s j) / c) in 2D (tiles of c points along x, skewed by s points a line). The skew s is the least that
   makes every lower neighbour's key smaller (d_y <= s |d_z| for every lower offset with d_z < 0 in 3D, d_x <= s |d_y|
   with d_y < 0 in 2D, and likewise for the upper offsets): a tile's points depend only on earlier tiles and on earlier
   points of their own. Units are the maximal runs of a process's points along x with one tile; their keys are
   intervals, and every process runs its units by increasing key (forward sweeps) or decreasing key (backward).
   With the DMDA's usual cut of the slowest direction, the tiles are what lets the processes pipeline: the process
   above starts its first tile when the one below has done its first tile, not its whole box.

   Why it cannot deadlock. Every dependency of a unit, on any process, has a smaller key (forward). A message (a
   batch) carries points for one consumer unit of the receiver and possibly later ones, and it is sent after the
   sender's unit holding the batch's largest key, which is smaller than the consumer's key (batches are cut so: see
   PipeBatchesCompute()). Take the unfinished unit with the smallest key anywhere: every unit with a smaller key is
   done, so every batch it needs was sent, and its process runs it. Backward sweeps: the same with the keys reversed.
   Where units run in groups (PipeGroups(): a few independent lines at once), a batch is received before the first
   group that reads it and sent after the group holding its sender's unit, and PipeXPlanSetUp() keeps the groups only
   if every batch's sender units (its own and those of the batches sent before it to the same process) have smaller
   keys than every unit of the group it is received before; the argument then holds for groups. Or if, on every
   process, forward batches come only from lower ranks and backward ones from higher ranks: then the lowest rank
   waits for nobody and, by induction on the ranks, every one runs to its end (PipeGroups()).
   Receives are posted at the start of each sweep, one tag per kind of sweep and each peer's batches in the order it
   sends them, so a faster neighbour's messages of the next sweep are matched in order by that sweep's receives (MPI
   does not reorder messages of one sender and tag).

   Why the results are those of the sequential ILU bitwise: every row is computed by the same kernel from the same
   values in the same order of operations; the order of units only decides when, and the ghost values read are the
   final values of their owners.

   The model (PipeSimulate()): the sweeps of all processes simulated unit by unit, a unit's cost its points plus a
   fixed overhead (times the measured slowdown of a tiled or ungrouped sweep), a message's latency a fixed number of
   points; it gives the idle fraction of the processes and the apply time of block Jacobi over the pipeline's (each
   process's points, twice, in the natural sweep), and chooses the cut.
*/
#include <string.h>
#include <stdint.h>
#include <petscdmda.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/wait.h>
#include <petscgilu/private/giluimpl.h>
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

const char *const GILUPipeOrders[] = {"natural", "tiled", "GILUPipeOrder", "GILU_PIPE_", NULL};

#define PIPE_UNIT_OVERHEAD 8 /* the model: cost of starting a unit, in points */
/* the model: a point of a 3D tile of c lines costs 1 + PIPE_TILE_LOCALITY / c of a point of the natural sweep (the tile
   walks the planes c lines at a time), and a point of a sweep without groups of independent lines (PipeGroups())
   1 + PIPE_NOGROUP_COST (G - 1), G the lines the kernels would interleave; measured with ksp ex45 100^3 on 2 processes
   (Intel Xeon, 2026-11-27): tiles of 16, 25 and 100 lines swept at 1.33, 1.17 and 1.1 times the time of the slab
   schedule's natural sweep, the natural order without groups at 1.5 (DoF 1, G = 3) */
#define PIPE_TILE_LOCALITY 5.0
#define PIPE_NOGROUP_COST  0.25
#define PIPE_LATENCY_S     2e-6 /* the model: one message between processes of a node, seconds */
#define PIPE_POINT_BW      1e10 /* the model: bytes a second one process streams through a sweep */

typedef struct { /* the messages of one direction: [0] sent, [1] received */
  PetscInt     n[2];
  PetscMPIInt *peer[2];
  PetscInt    *step[2]; /* sent after this step of the sweep; received before it */
  PetscInt    *ptr[2];  /* batch b holds the points pts[ptr[b]] .. pts[ptr[b + 1] - 1] (indices in the extended box) */
  PetscInt    *pts[2];
  MPI_Request *req[2];
  PetscScalar *buf[2]; /* room for every point at payload bufpay, batch after batch */
  PetscInt     bufpay; /* scalars a point the buffers hold: the largest payload, or more for a block of columns */
  PetscInt    *post;   /* the receives in the order they are posted: each peer's batches in the order it sends them */
} PipeXPlan;

struct _n_GILUPipe {
  MPI_Comm     comm;        /* a duplicate: the pipeline's tags cannot meet anyone else's */
  char         prefix[256]; /* the options prefix of the PC, for messages */
  PetscMPIInt  rank, size;
  PetscInt     dim, N[3], dof, P[3], me[3];
  PetscInt    *start[3];                /* start[d][a]: first index along d of the processes of column a, a = 0..P[d] */
  PetscInt64  *offset;                  /* first PETSc block row of each process */
  PetscInt     box[3][2], ext[3][2], w; /* own box, extended box, ghost width */
  PetscInt     en[3];
  PetscInt64   ntot;
  GILUPipeInfo info;
  PetscInt     nunits, (*unitbox)[4];                    /* the units by increasing key */
  PetscInt64  *ukey;                                     /* their first points' keys */
  PetscInt     ngroups, *gptr, *gunits, *groupof, depth; /* groups of independent units run together (PipeGroups()) */
  PetscInt    *eia, *eja;                                /* the CSR arrays of the extended box's matrix (GILUPipeCreateExtendedMatrix()) */
  PetscScalar *eva;
  PipeXPlan    x[2];       /* [0]: lower neighbours (factorization, forward sweep); [1]: upper (backward sweep) */
  PetscInt     payload[2]; /* scalars a point: solves, factorization */
  PetscScalar *val, *dinv; /* the factors (GILUPipeSetFactorData()) */
  PetscInt     ns, nl, npoints, bs2;
  PetscInt     lower[GILU_STENCIL_MAX_OFFSETS][3], upper[GILU_STENCIL_MAX_OFFSETS][3], nlo, nup;
  PetscBool    transposable;               /* GILUPipeTransposable() */
  PetscInt     nthreads, delay;            /* threads of this process (GILUPipeSetThreads()): x-segments of its box; test hook */
  PetscInt (*tunitbox)[4];                 /* thread t's part of unit u: tunitbox[t * nunits + u] (x clipped to its segment) */
  PetscInt               *tgptr, *tgunits; /* thread t's units of group g: tgunits[tgptr[t * (ngroups + 1) + g] ..] (the non-empty parts) */
  struct _n_GILUSchedule *tsched;          /* thread t's schedule: the pipe's with tunitbox */
  PetscInt64             *prog;            /* thread t's steps done in the current sweep: prog[t * PIPE_PAD] */
};

#define PIPE_PAD 8 /* PetscInt64 per progress counter: one cache line each */

typedef struct {
  PetscInt64 key;
  PetscInt   i0, i1, j, k, rank;
  double     t; /* the model: finish time */
} PipeUnit;

static int PipeUnitCompare(const void *a, const void *b)
{
  const PetscInt64 x = ((const PipeUnit *)a)->key, y = ((const PipeUnit *)b)->key;

  return x < y ? -1 : (x > y ? 1 : 0);
}

static inline PetscInt64 PipeTile(const GILUPipe p, GILUPipeOrder order, PetscInt c, PetscInt s, PetscInt i, PetscInt j, PetscInt k)
{
  if (order == GILU_PIPE_NATURAL) return 0;
  return p->dim == 3 ? (j + s * k) / c : (i + s * j) / c;
}

static inline PetscInt64 PipeKey(const GILUPipe p, GILUPipeOrder order, PetscInt c, PetscInt s, PetscInt i, PetscInt j, PetscInt k)
{
  return PipeTile(p, order, c, s, i, j, k) * p->ntot + ((PetscInt64)k * p->N[1] + j) * p->N[0] + i;
}

static inline void PipeRankBox(const GILUPipe p, PetscMPIInt r, PetscInt b[3][2])
{
  PetscInt c[3] = {r % p->P[0], (r / p->P[0]) % p->P[1], r / (p->P[0] * p->P[1])};

  for (PetscInt d = 0; d < 3; d++) {
    b[d][0] = p->start[d][c[d]];
    b[d][1] = p->start[d][c[d] + 1];
  }
}

static inline PetscMPIInt PipeOwner(const GILUPipe p, const PetscInt q[3])
{
  PetscInt c[3];

  for (PetscInt d = 0; d < 3; d++) {
    PetscInt a = 0;

    while (q[d] >= p->start[d][a + 1]) a++;
    c[d] = a;
  }
  return (PetscMPIInt)(c[0] + p->P[0] * (c[1] + p->P[1] * c[2]));
}

/* the index of point q in box b (natural order of the box), and back */
static inline PetscInt PipeBoxIndex(const PetscInt b[3][2], const PetscInt q[3])
{
  return ((q[2] - b[2][0]) * (b[1][1] - b[1][0]) + q[1] - b[1][0]) * (b[0][1] - b[0][0]) + q[0] - b[0][0];
}

static inline void PipeBoxPoint(const PetscInt b[3][2], PetscInt l, PetscInt q[3])
{
  const PetscInt nx = b[0][1] - b[0][0], ny = b[1][1] - b[1][0];

  q[0] = b[0][0] + l % nx;
  q[1] = b[1][0] + (l / nx) % ny;
  q[2] = b[2][0] + l / (nx * ny);
}

/* the units of box b by increasing key */
static PetscErrorCode PipeUnits(const GILUPipe p, GILUPipeOrder order, PetscInt c, PetscInt s, const PetscInt b[3][2], PetscMPIInt rank, PetscInt *n, PipeUnit **units)
{
  PetscInt nu = 0, cap;

  PetscFunctionBegin;
  cap = (b[1][1] - b[1][0]) * (b[2][1] - b[2][0]) * (order == GILU_PIPE_TILED && p->dim == 2 ? (b[0][1] - b[0][0]) / c + 2 : 1);
  PetscCall(PetscMalloc1(PetscMax(cap, 1), units));
  for (PetscInt k = b[2][0]; k < b[2][1]; k++)
    for (PetscInt j = b[1][0]; j < b[1][1]; j++)
      for (PetscInt i = b[0][0]; i < b[0][1];) {
        PetscInt i1 = b[0][1];

        if (order == GILU_PIPE_TILED && p->dim == 2) i1 = PetscMin(i1, (PetscInt)(PipeTile(p, order, c, s, i, j, k) + 1) * c - s * j);
        (*units)[nu].key  = PipeKey(p, order, c, s, i, j, k);
        (*units)[nu].i0   = i;
        (*units)[nu].i1   = i1;
        (*units)[nu].j    = j;
        (*units)[nu].k    = k;
        (*units)[nu].rank = rank;
        (*units)[nu].t    = 0;
        nu++;
        i = i1;
      }
  qsort(*units, (size_t)nu, sizeof(PipeUnit), PipeUnitCompare);
  *n = nu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the unit of units[0..n) (sorted by key) that holds the point with key */
static inline PetscInt PipeFindUnit(const PipeUnit *u, PetscInt n, PetscInt64 key)
{
  PetscInt lo = 0, hi = n - 1;

  while (lo < hi) {
    PetscInt mid = (lo + hi + 1) / 2;

    if (u[mid].key <= key) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* the least skew for the offsets (see the top of the file) */
static PetscInt PipeSkew(const GILUPipe p)
{
  const PetscInt t = p->dim == 3 ? 1 : 0; /* the tile direction; the next one is the pipeline's */
  PetscInt       s = 0;

  for (PetscInt a = 0; a < p->nlo; a++) {
    const PetscInt *d = p->lower[a];

    if (d[t + 1] < 0) s = PetscMax(s, (d[t] + (-d[t + 1]) - 1) / (-d[t + 1]));
  }
  for (PetscInt a = 0; a < p->nup; a++) {
    const PetscInt *d = p->upper[a];

    if (d[t + 1] > 0) s = PetscMax(s, (-d[t] + d[t + 1] - 1) / d[t + 1]);
  }
  return s;
}

/* the lines the kernels interleave in a group (as the slab schedule of schedule.c) */
static inline PetscInt PipeDepth(const GILUPipe p)
{
  return p->dof == 1 ? 3 : (p->dof == 2 ? 2 : 1);
}

/*
  The model of one solve with this cut: the forward sweep of every process's units in key order, then the backward
  sweep in reverse, each unit starting when its process is free and its dependencies are done (plus a message's
  latency when they are another process's). Returns the solve's time and the work (both in points).
*/
static PetscErrorCode PipeSimulate(const GILUPipe p, GILUPipeOrder order, PetscInt c, PetscInt s, double lat, double *time, double *work, double *bjacobi)
{
  PipeUnit *all = NULL;
  PetscInt  n   = 0, (*rbox)[3][2];
  double   *free_, maxown = 0, slow;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(p->size, &rbox));
  for (PetscMPIInt r = 0; r < p->size; r++) {
    PetscInt (*b)[2] = rbox[r], nr;
    PipeUnit *u;
    double    own = 0;

    PipeRankBox(p, r, b);
    PetscCall(PipeUnits(p, order, c, s, b, r, &nr, &u));
    PetscCall(PetscRealloc(sizeof(PipeUnit) * (size_t)(n + nr), &all));
    PetscCall(PetscArraycpy(all + n, u, nr));
    for (PetscInt a = 0; a < nr; a++) own += (double)(u[a].i1 - u[a].i0) + PIPE_UNIT_OVERHEAD;
    maxown = PetscMax(maxown, own);
    PetscCall(PetscFree(u));
    n += nr;
  }
  qsort(all, (size_t)n, sizeof(PipeUnit), PipeUnitCompare);
  PetscCall(PetscCalloc1(p->size, &free_));
  if (p->dim == 3 && !PipeSkew(p)) slow = order == GILU_PIPE_TILED ? 1 + PIPE_TILE_LOCALITY / c : 1; /* groups (PipeGroups()) */
  else slow = 1 + PIPE_NOGROUP_COST * (PipeDepth(p) - 1);
  *work = 0;
  for (PetscInt dir = 0; dir < 2; dir++) {
    const PetscInt nd        = dir ? p->nup : p->nlo;
    const PetscInt (*off)[3] = dir ? (const PetscInt (*)[3])p->upper : (const PetscInt (*)[3])p->lower;

    for (PetscInt m = 0; m < n; m++) {
      PipeUnit *u     = &all[dir ? n - 1 - m : m];
      double    start = free_[u->rank];

      for (PetscInt a = 0; a < nd; a++) {
        const PetscInt j = u->j + off[a][1], k = u->k + off[a][2];
        PetscInt       i = PetscMax(u->i0 + off[a][0], 0), iend = PetscMin(u->i1 + off[a][0], p->N[0]);
        const PetscInt (*rb)[2] = (const PetscInt (*)[2])rbox[u->rank];

        if (j < 0 || j >= p->N[1] || k < 0 || k >= p->N[2]) continue;
        /* a point of its own process: done before (free_ is past it) */
        if (j >= rb[1][0] && j < rb[1][1] && k >= rb[2][0] && k < rb[2][1] && i >= rb[0][0] && iend <= rb[0][1]) continue;
        while (i < iend) { /* the units that hold points i..iend-1 of line (j,k) */
          const PipeUnit *v = &all[PipeFindUnit(all, n, PipeKey(p, order, c, s, i, j, k))];

          if (v != u) start = PetscMax(start, v->t + (v->rank != u->rank ? lat : 0));
          i = v->i1;
        }
      }
      u->t           = start + slow * ((double)(u->i1 - u->i0) + PIPE_UNIT_OVERHEAD);
      free_[u->rank] = u->t;
      *work += (double)(u->i1 - u->i0) + PIPE_UNIT_OVERHEAD; /* the natural sweep's work: what the slower sweep loses counts as idle */
    }
  }
  *time = 0;
  for (PetscMPIInt r = 0; r < p->size; r++) *time = PetscMax(*time, free_[r]);
  *bjacobi = 2 * maxown;
  PetscCall(PetscFree(rbox));
  PetscCall(PetscFree(free_));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The batches from the process with box S to the one with box R, for the sweep dir (0: the lower neighbours, forward;
  1: the upper ones, backward): R's units in the order it runs them; each batch has the points of S that a run of
  them needs first, in the order found. A batch takes the needs of later units too while every key in it stays on the
  sweep's near side of its first consumer's keys (forward: smaller than its first key), so that the sender's last unit
  in it comes before the consumer (top of file). With gstepof (the receiver's group step of each of its units),
  gstep[t] is the first group step that reads point t: where the receiver waits for its batch.
*/
typedef struct {
  PetscInt  n, *ptr;         /* batches, batch b's points in pts[ptr[b]..ptr[b+1]) */
  PetscInt  npts, (*pts)[3]; /* the points (grid coordinates) */
  PetscInt *gstep;           /* gstepof given: per point, the first group step of the units that need it */
} PipeBatches;

static PetscErrorCode PipeBatchesCompute(const GILUPipe p, const PetscInt S[3][2], PetscMPIInt rankR, PetscInt dir, const PetscInt *gstepof, PipeBatches *B)
{
  const PetscInt nd        = dir ? p->nup : p->nlo;
  const PetscInt (*off)[3] = dir ? (const PetscInt (*)[3])p->upper : (const PetscInt (*)[3])p->lower;
  PetscInt   R[3][2], Z[3][2], ni = 1, nu, capb = 16, capp = 64;
  PipeUnit  *u;
  PetscInt  *seen; /* 1 + the index of a point in B->pts, 0: not yet needed */
  PetscInt64 limit = 0;
  PetscBool  open  = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(B, sizeof(*B)));
  PipeRankBox(p, rankR, R);
  for (PetscInt d = 0; d < 3; d++) { /* S within R's extended box: where its needs can be */
    Z[d][0] = PetscMax(S[d][0], R[d][0] - (d < p->dim ? p->w : 0));
    Z[d][1] = PetscMin(S[d][1], R[d][1] + (d < p->dim ? p->w : 0));
    if (Z[d][1] <= Z[d][0]) PetscFunctionReturn(PETSC_SUCCESS);
    ni *= Z[d][1] - Z[d][0];
  }
  PetscCall(PipeUnits(p, p->info.order, p->info.chunk, p->info.skew, R, rankR, &nu, &u));
  PetscCall(PetscCalloc1(ni, &seen));
  PetscCall(PetscMalloc1(capb + 1, &B->ptr));
  PetscCall(PetscMalloc1(capp, &B->pts));
  if (gstepof) PetscCall(PetscMalloc1(capp, &B->gstep));
  B->ptr[0] = 0;
  for (PetscInt m = 0; m < nu; m++) {
    const PipeUnit *v     = &u[dir ? nu - 1 - m : m];
    const PetscInt  first = B->npts;
    PetscBool       fits = PETSC_TRUE, near = PETSC_FALSE;

    for (PetscInt a = 0; a < nd && !near; a++) { /* a line of the unit's neighbours meets Z */
      const PetscInt j = v->j + off[a][1], k = v->k + off[a][2];

      near = (PetscBool)(j >= Z[1][0] && j < Z[1][1] && k >= Z[2][0] && k < Z[2][1] && v->i1 + off[a][0] > Z[0][0] && v->i0 + off[a][0] < Z[0][1]);
    }
    if (!near) continue; /* needs nothing of S */
    for (PetscInt i = v->i0; i < v->i1; i++)
      for (PetscInt a = 0; a < nd; a++) {
        PetscInt q[3] = {i + off[a][0], v->j + off[a][1], v->k + off[a][2]}, l;

        if (q[0] < Z[0][0] || q[0] >= Z[0][1] || q[1] < Z[1][0] || q[1] >= Z[1][1] || q[2] < Z[2][0] || q[2] >= Z[2][1]) continue;
        l = ((q[2] - Z[2][0]) * (Z[1][1] - Z[1][0]) + q[1] - Z[1][0]) * (Z[0][1] - Z[0][0]) + q[0] - Z[0][0];
        if (seen[l]) {
          if (gstepof) B->gstep[seen[l] - 1] = PetscMin(B->gstep[seen[l] - 1], gstepof[m]);
          continue;
        }
        seen[l] = B->npts + 1;
        if (B->npts == capp) {
          capp *= 2;
          PetscCall(PetscRealloc(sizeof(*B->pts) * (size_t)capp, &B->pts));
          if (gstepof) PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)capp, &B->gstep));
        }
        for (PetscInt d = 0; d < 3; d++) B->pts[B->npts][d] = q[d];
        if (gstepof) B->gstep[B->npts] = gstepof[m];
        B->npts++;
      }
    if (B->npts == first) continue;
    for (PetscInt t = first; t < B->npts && open; t++) {
      PetscInt64 key = PipeKey(p, p->info.order, p->info.chunk, p->info.skew, B->pts[t][0], B->pts[t][1], B->pts[t][2]);

      if (dir ? key <= limit : key >= limit) fits = PETSC_FALSE;
    }
    if (open && fits) continue; /* these needs join the open batch */
    if (B->n + 1 >= capb) {
      capb *= 2;
      PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)(capb + 1), &B->ptr));
    }
    B->ptr[B->n] = first; /* a new batch from these needs on */
    B->n++;
    open  = PETSC_TRUE;
    limit = dir ? v->key + (v->i1 - v->i0 - 1) : v->key; /* the consumer's keys: forward its first, backward its last */
  }
  B->ptr[B->n] = B->npts;
  PetscCall(PetscFree(seen));
  PetscCall(PetscFree(u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PipeBatchesReset(PipeBatches *B)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(B->ptr));
  PetscCall(PetscFree(B->pts));
  PetscCall(PetscFree(B->gstep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt PipeExtIndex(const GILUPipe p, const PetscInt q[3])
{
  return PipeBoxIndex((const PetscInt (*)[2])p->ext, q);
}

static inline PetscBool PipeOwns(const GILUPipe p, const PetscInt q[3])
{
  for (PetscInt d = 0; d < 3; d++)
    if (q[d] < p->box[d][0] || q[d] >= p->box[d][1]) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode PipeXPlanReset(PipeXPlan *x)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < 2; r++) {
    PetscCall(PetscFree(x->peer[r]));
    PetscCall(PetscFree(x->step[r]));
    PetscCall(PetscFree(x->ptr[r]));
    PetscCall(PetscFree(x->pts[r]));
    PetscCall(PetscFree(x->req[r]));
    PetscCall(PetscFree(x->buf[r]));
  }
  PetscCall(PetscFree(x->post));
  PetscCall(PetscMemzero(x, sizeof(*x)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt    step, n, *pts, index; /* index: the batch's place among those of its peer (MPI matches them in that order) */
  PetscMPIInt peer;
} PipeMsg;

static int PipeMsgCompare(const void *a, const void *b)
{
  const PipeMsg *x = (const PipeMsg *)a, *y = (const PipeMsg *)b;

  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

/*
  the messages of direction dir: what this process sends (after which of its group steps) and receives (before which).
  A batch is received before the first group that uses one of its points; *safe is false if a batch would be waited for
  before a group whose smallest key (forward; backward: largest) is not beyond the batch's sender's unit (the groups
  must then be single units: see PipeGroups())
*/
static PetscErrorCode PipeXPlanSetUp(GILUPipe p, PetscInt dir, const PetscInt *stepof, PetscBool *safe)
{
  PipeXPlan *x       = &p->x[dir];
  PipeMsg   *msg[2]  = {NULL, NULL};
  PetscInt   nmsg[2] = {0, 0}, lo[3], hi[3], *gstepof;

  PetscFunctionBegin;
  PetscCall(PipeXPlanReset(x));
  PetscCall(PetscMalloc1(p->nunits, &gstepof)); /* the group step of each processing step of this direction */
  for (PetscInt m = 0; m < p->nunits; m++) {
    PetscInt g = p->groupof[dir ? p->nunits - 1 - m : m];

    gstepof[m] = dir ? p->ngroups - 1 - g : g;
  }
  for (PetscInt d = 0; d < 3; d++) { /* the process columns that meet the extended box */
    lo[d] = 0;
    while (p->start[d][lo[d] + 1] <= p->ext[d][0]) lo[d]++;
    hi[d] = lo[d];
    while (hi[d] + 1 < p->P[d] && p->start[d][hi[d] + 1] < p->ext[d][1]) hi[d]++;
  }
  for (PetscInt c = lo[2]; c <= hi[2]; c++)
    for (PetscInt b = lo[1]; b <= hi[1]; b++)
      for (PetscInt a = lo[0]; a <= hi[0]; a++) {
        const PetscMPIInt r = (PetscMPIInt)(a + p->P[0] * (b + p->P[1] * c));
        PetscInt          S[3][2];

        if (r == p->rank) continue;
        for (PetscInt role = 0; role < 2; role++) { /* 0: this process sends to r, 1: receives from r */
          PipeBatches B;
          PetscInt64  runbk = dir ? INT64_MAX : INT64_MIN; /* the extreme key of the batches so far */

          if (role == 0) PetscCall(PipeBatchesCompute(p, p->box, r, dir, NULL, &B));
          else {
            PipeRankBox(p, r, S);
            PetscCall(PipeBatchesCompute(p, S, p->rank, dir, gstepof, &B));
          }
          PetscCall(PetscRealloc(sizeof(PipeMsg) * (size_t)(nmsg[role] + B.n), &msg[role]));
          for (PetscInt t = 0, prev = -1; t < B.n; t++) {
            PipeMsg *g = &msg[role][nmsg[role]++];

            g->peer  = r;
            g->index = t;
            g->n     = B.ptr[t + 1] - B.ptr[t];
            PetscCall(PetscMalloc1(g->n, &g->pts));
            g->step = role == 1 ? PETSC_MAX_INT : -1;
            for (PetscInt q = 0; q < g->n; q++) {
              const PetscInt *pt = B.pts[B.ptr[t] + q];

              g->pts[q] = PipeExtIndex(p, pt);
              if (role == 0) { /* sent after the group step that completes its last point */
                const PetscInt l = PipeBoxIndex((const PetscInt (*)[2])p->box, pt);

                g->step = PetscMax(g->step, gstepof[dir ? p->nunits - 1 - stepof[l] : stepof[l]]);
              } else g->step = PetscMin(g->step, B.gstep[B.ptr[t] + q]); /* received before the first group that reads one of them */
            }
            if (role == 0) { /* MPI matches one peer's messages in the order sent: batch t goes after batch t - 1 */
              g->step = PetscMax(g->step, prev);
              prev    = g->step;
            }
            if (role == 1) { /* the sender's units of this batch and the ones before it (sent first): beyond the group's keys? */
              const PetscInt grp = dir ? p->ngroups - 1 - g->step : g->step;
              PetscInt64     gk = dir ? INT64_MIN : INT64_MAX, bk = runbk;

              for (PetscInt a = p->gptr[grp]; a < p->gptr[grp + 1]; a++) {
                const PetscInt u = p->gunits[a];

                gk = dir ? PetscMax(gk, p->ukey[u] + p->unitbox[u][1] - p->unitbox[u][0] - 1) : PetscMin(gk, p->ukey[u]);
              }
              for (PetscInt q = B.ptr[t]; q < B.ptr[t + 1]; q++) {
                PetscInt64 key = PipeKey(p, p->info.order, p->info.chunk, p->info.skew, B.pts[q][0], B.pts[q][1], B.pts[q][2]);

                bk = dir ? PetscMin(bk, key) : PetscMax(bk, key);
              }
              if (dir ? bk <= gk : bk >= gk) *safe = PETSC_FALSE;
              runbk = bk;
            }
          }
          PetscCall(PipeBatchesReset(&B));
        }
      }
  for (PetscInt role = 0; role < 2; role++) {
    PetscInt total = 0, maxpay = PetscMax(p->payload[0], p->payload[1]);

    if (nmsg[role]) qsort(msg[role], (size_t)nmsg[role], sizeof(PipeMsg), PipeMsgCompare);
    x->n[role] = nmsg[role];
    for (PetscInt t = 0; t < nmsg[role]; t++) total += msg[role][t].n;
    PetscCall(PetscMalloc1(nmsg[role], &x->peer[role]));
    PetscCall(PetscMalloc1(nmsg[role], &x->step[role]));
    PetscCall(PetscMalloc1(nmsg[role] + 1, &x->ptr[role]));
    PetscCall(PetscMalloc1(total, &x->pts[role]));
    PetscCall(PetscMalloc1(nmsg[role], &x->req[role]));
    PetscCall(PetscMalloc1((size_t)total * maxpay, &x->buf[role]));
    x->bufpay       = maxpay;
    x->ptr[role][0] = 0;
    if (role == 1) { /* the receives are posted in each peer's batch order */
      PetscCall(PetscMalloc1(nmsg[role], &x->post));
      for (PetscInt t = 0; t < nmsg[role]; t++) x->post[t] = t;
      for (PetscInt t = 1; t < nmsg[role]; t++) /* insertion sort by (peer, index): few messages */
        for (PetscInt a = t; a > 0; a--) {
          const PipeMsg *m0 = &msg[role][x->post[a - 1]], *m1 = &msg[role][x->post[a]];
          PetscInt       tmp;

          if (m0->peer < m1->peer || (m0->peer == m1->peer && m0->index < m1->index)) break;
          tmp            = x->post[a - 1];
          x->post[a - 1] = x->post[a];
          x->post[a]     = tmp;
        }
    }
    for (PetscInt t = 0; t < nmsg[role]; t++) {
      x->peer[role][t]    = msg[role][t].peer;
      x->step[role][t]    = msg[role][t].step;
      x->ptr[role][t + 1] = x->ptr[role][t] + msg[role][t].n;
      PetscCheck((PetscInt64)msg[role][t].n * maxpay <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "A message of the pipeline would hold more than 2^31 - 1 scalars");
      PetscCall(PetscArraycpy(x->pts[role] + x->ptr[role][t], msg[role][t].pts, msg[role][t].n));
      PetscCall(PetscFree(msg[role][t].pts));
    }
    PetscCall(PetscFree(msg[role]));
  }
  PetscCall(PetscFree(gstepof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The groups of units the sweeps run together. Units one at a time in key order, except in 3D where the factor stencil
  needs no skew (no unit depends on a higher line of a lower plane): there a tile (tiled order: c lines of the box, all
  its planes; natural order: the whole box) is cut in y into G sub-slabs and sub-slab g runs g planes behind sub-slab 0
  (the slab schedule of schedule.c): step st takes line i of plane st - g of every sub-slab g, G independent lines
  whose recurrences the kernels interleave. Local dependencies stay satisfied (a line waits for its own sub-slab's
  previous plane and line and for the sub-slab below, which is a step ahead). Messages: a batch is received before the
  first group that reads it. Two arguments keep the groups free of deadlock, checked by GILUPipeSetUp():
  - keys: PipeXPlanSetUp() finds that every batch's sender unit has a smaller key than every unit of the group it is
    received before (forward; backward: larger), and the argument at the top of the file holds for groups;
  - ranks (collective): every process receives forward batches only from lower ranks and backward ones only from
    higher ranks. Then the lowest rank waits for nobody in a forward sweep and runs to its end, sending everything;
    by induction every rank does, whatever the order of its own groups. This is the case of the natural order with
    a star stencil, where a key check fails (a group holds lines a few planes back, sent before the neighbour's line).
  Otherwise the groups are single units (G = 1), for which the argument at the top of the file holds as it is.
*/
static PetscErrorCode PipeGroups(GILUPipe p, PetscInt G)
{
  PetscInt ng = 0, nu = p->nunits;

  PetscFunctionBegin;
  PetscCall(PetscFree(p->gptr));
  PetscCall(PetscFree(p->gunits));
  PetscCall(PetscFree(p->groupof));
  PetscCall(PetscMalloc1(nu + 1, &p->gptr));
  PetscCall(PetscMalloc1(nu, &p->gunits));
  PetscCall(PetscMalloc1(nu, &p->groupof));
  p->depth = G;
  if (G <= 1 || p->dim != 3 || PipeSkew(p)) {
    p->depth = 1;
    for (PetscInt m = 0; m < nu; m++) {
      p->gptr[m]    = m;
      p->gunits[m]  = m;
      p->groupof[m] = m;
    }
    p->gptr[nu] = nu;
    p->ngroups  = nu;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  p->gptr[0] = 0;
  for (PetscInt a = 0, n = 0; a < nu;) { /* the tile of units a .. b-1: sorted by plane, then line */
    const PetscInt64 T  = p->ukey[a] / p->ntot;
    const PetscInt   k0 = p->unitbox[a][3];
    PetscInt         b  = a, n1, nk, Gt, h, htop;

    while (b < nu && p->ukey[b] / p->ntot == T) b++;
    for (n1 = 0; a + n1 < b && p->unitbox[a + n1][3] == k0; n1++) { }
    nk   = (b - a) / n1;
    Gt   = PetscMin(G, n1);
    h    = n1 / Gt;
    htop = n1 - (Gt - 1) * h;
    for (PetscInt st = 0; st < nk + Gt - 1; st++)
      for (PetscInt i = 0; i < htop; i++) {
        PetscInt start = n;

        for (PetscInt g = 0; g < Gt; g++) {
          PetscInt k = st - g;

          if (k < 0 || k >= nk || (g < Gt - 1 && i >= h)) continue;
          p->gunits[n]             = a + k * n1 + g * h + i;
          p->groupof[p->gunits[n]] = ng;
          n++;
        }
        if (n > start) p->gptr[++ng] = n;
      }
    a = b;
  }
  p->ngroups = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUPipeCreate - the geometry of the pipeline of a DMDA's matrix, ghost layers of width w; prefix: the options
  prefix of the PC, for the messages that name its options
*/
PetscErrorCode GILUPipeCreate(DM da, Mat A, PetscInt w, const char prefix[], GILUPipe *pipe)
{
  GILUPipe        p;
  PetscInt        dim, M[3], m[3], dof, sw, xs[3], xm[3], rows;
  const PetscInt *l[3];
  DMBoundaryType  bt[3];
  DMDAStencilType st;
  MPI_Comm        comm = PetscObjectComm((PetscObject)da);

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M[0], &M[1], &M[2], &m[0], &m[1], &m[2], &dof, &sw, &bt[0], &bt[1], &bt[2], &st));
  for (PetscInt d = 0; d < dim; d++)
    PetscCheck(bt[d] == DM_BOUNDARY_NONE || bt[d] == DM_BOUNDARY_GHOSTED, comm, PETSC_ERR_SUP, "-%spc_structilu_distributed needs a DMDA without periodic boundaries (direction %" PetscInt_FMT " is %s): use -%spc_structilu_distributed 0 (block Jacobi)", prefix, d, DMBoundaryTypes[bt[d]], prefix);
  PetscCall(DMDAGetOwnershipRanges(da, &l[0], &l[1], &l[2]));
  PetscCall(DMDAGetCorners(da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(MatGetLocalSize(A, &rows, NULL)); /* (checked before anything is allocated) */
  PetscCheck(rows == (dim > 0 ? xm[0] : 1) * (dim > 1 ? xm[1] : 1) * (dim > 2 ? xm[2] : 1) * dof, comm, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_distributed: the matrix's %" PetscInt_FMT " local rows are not its DMDA's box of this process: use the matrix of DMCreateMatrix() or -%spc_structilu_distributed 0", prefix, rows, prefix);
  PetscCall(PetscNew(&p));
  p->dim = dim;
  PetscCall(PetscStrncpy(p->prefix, prefix, sizeof(p->prefix)));
  PetscCallMPI(MPI_Comm_dup(comm, &p->comm));
  PetscCallMPI(MPI_Comm_rank(p->comm, &p->rank));
  PetscCallMPI(MPI_Comm_size(p->comm, &p->size));
  p->dof = dof;
  p->w   = w;
  for (PetscInt d = 0; d < 3; d++) {
    p->N[d] = d < p->dim ? M[d] : 1;
    p->P[d] = d < p->dim ? m[d] : 1;
    PetscCall(PetscMalloc1(p->P[d] + 1, &p->start[d]));
    p->start[d][0] = 0;
    for (PetscInt a = 0; a < p->P[d]; a++) p->start[d][a + 1] = p->start[d][a] + (d < p->dim ? l[d][a] : 1);
    p->box[d][0] = d < p->dim ? xs[d] : 0;
    p->box[d][1] = d < p->dim ? xs[d] + xm[d] : 1;
    p->ext[d][0] = PetscMax(p->box[d][0] - (d < p->dim ? w : 0), 0);
    p->ext[d][1] = PetscMin(p->box[d][1] + (d < p->dim ? w : 0), p->N[d]);
    p->en[d]     = p->ext[d][1] - p->ext[d][0];
    for (p->me[d] = 0; p->start[d][p->me[d]] != p->box[d][0]; p->me[d]++) { }
  }
  p->ntot = (PetscInt64)p->N[0] * p->N[1] * p->N[2];
  PetscCall(PetscMalloc1(p->size + 1, &p->offset));
  p->offset[0] = 0;
  for (PetscMPIInt r = 0; r < p->size; r++) {
    PetscInt b[3][2];

    PipeRankBox(p, r, b);
    p->offset[r + 1] = p->offset[r] + (PetscInt64)(b[0][1] - b[0][0]) * (b[1][1] - b[1][0]) * (b[2][1] - b[2][0]);
  }
  *pipe = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUPipeDestroy(GILUPipe *pipe)
{
  GILUPipe p = *pipe;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(p->start[d]));
  PetscCall(PetscFree(p->offset));
  PetscCall(PetscFree(p->unitbox));
  PetscCall(PetscFree(p->ukey));
  PetscCall(PetscFree(p->gptr));
  PetscCall(PetscFree(p->gunits));
  PetscCall(PetscFree(p->groupof));
  PetscCall(PetscFree(p->eia));
  PetscCall(PetscFree(p->eja));
  PetscCall(PetscFree(p->eva));
  PetscCall(PipeXPlanReset(&p->x[0]));
  PetscCall(PipeXPlanReset(&p->x[1]));
  PetscCall(PetscFree(p->tunitbox));
  PetscCall(PetscFree(p->tgptr));
  PetscCall(PetscFree(p->tgunits));
  PetscCall(PetscFree(p->tsched));
  PetscCall(PetscFree(p->prog));
  PetscCallMPI(MPI_Comm_free(&p->comm));
  PetscCall(PetscFree(*pipe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the grid of the extended box: the stencil matrix every process factors (its own points only) */
PetscErrorCode GILUPipeGetExtendedGrid(GILUPipe p, GILUGrid *g)
{
  PetscFunctionBegin;
  g->dim = p->dim;
  for (PetscInt d = 0; d < 3; d++) g->n[d] = p->en[d];
  g->dof = p->dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the rows of the extended box in PETSc's global numbering, natural order of the box (blocks of bs rows) */
PetscErrorCode GILUPipeGetExtendedIS(GILUPipe p, PetscInt bs, IS *is)
{
  PetscInt *idx, n = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(p->en[0] * p->en[1] * p->en[2], &idx));
  for (PetscInt k = p->ext[2][0]; k < p->ext[2][1]; k++)
    for (PetscInt j = p->ext[1][0]; j < p->ext[1][1]; j++)
      for (PetscInt i = p->ext[0][0]; i < p->ext[0][1]; i++) {
        const PetscInt    q[3] = {i, j, k};
        const PetscMPIInt r    = PipeOwner(p, q);
        PetscInt          b[3][2];

        PipeRankBox(p, r, b);
        idx[n++] = (PetscInt)(p->offset[r] + ((PetscInt64)(k - b[2][0]) * (b[1][1] - b[1][0]) + (j - b[1][0])) * (b[0][1] - b[0][0]) + (i - b[0][0]));
      }
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, n, idx, PETSC_OWN_POINTER, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* room for need entries in the CSR arrays */
static PetscErrorCode PipeGrow(PetscInt need, PetscInt *cap, PetscInt **ja, PetscScalar **va)
{
  PetscFunctionBegin;
  if (need <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  while (*cap < need) *cap *= 2;
  PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)*cap, ja));
  PetscCall(PetscRealloc(sizeof(PetscScalar) * (size_t)*cap, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUPipeCreateExtendedMatrix - the rows and columns of the extended box of an MPIAIJ matrix as a SeqAIJ matrix in
  natural order of the box: the process's own rows from its local blocks (MatGetRowIJ()), only the ghost rows from the
  other processes (MatCreateSubMatrices() of them alone: of the whole box it costs several times the factorization)
*/
PetscErrorCode GILUPipeCreateExtendedMatrix(GILUPipe p, Mat A, IS extis, Mat *E)
{
  const PetscInt     d = p->dof, n = p->en[0] * p->en[1] * p->en[2];
  const PetscInt     bn[3] = {p->box[0][1] - p->box[0][0], p->box[1][1] - p->box[1][0], p->box[2][1] - p->box[2][0]};
  PetscInt          *gidx, ng = 0, *ia, *ja, nnz = 0, cap, *boxext, q = 0, gr = 0;
  PetscScalar       *va;
  IS                 gis;
  Mat               *G, Ad, Ao;
  const PetscInt    *garray, *dia, *dja, *oia, *oja, *all;
  const PetscScalar *dva, *ova;
  PetscInt           nd, no;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &gidx));
  PetscCall(PetscMalloc1(bn[0] * bn[1] * bn[2], &boxext)); /* the extended box's index of each point of the box */
  PetscCall(ISGetIndices(extis, &all));                    /* block-expanded: the first row of each point */
  for (PetscInt k = p->ext[2][0]; k < p->ext[2][1]; k++)
    for (PetscInt j = p->ext[1][0]; j < p->ext[1][1]; j++)
      for (PetscInt i = p->ext[0][0]; i < p->ext[0][1]; i++, q++) {
        const PetscInt q3[3] = {i, j, k};

        if (PipeOwns(p, q3)) boxext[PipeBoxIndex((const PetscInt (*)[2])p->box, q3)] = q;
        else gidx[ng++] = all[(size_t)q * d] / d;
      }
  PetscCall(ISRestoreIndices(extis, &all));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, d, ng, gidx, PETSC_COPY_VALUES, &gis));
  PetscCall(MatCreateSubMatrices(A, 1, &gis, &extis, MAT_INITIAL_MATRIX, &G));
  PetscCall(ISDestroy(&gis));
  /* the own rows from the local blocks: the diagonal block's columns are the box's points, the off-diagonal block's
     (garray) global rows of other processes */
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &dia, &dja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "No CSR of the local block");
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oia, &oja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "No CSR of the local block");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &dva));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &ova));
  { /* room for the own rows and the ghost rows */
    MatInfo info;

    PetscCall(MatGetInfo(G[0], MAT_LOCAL, &info));
    cap = PetscMax(1, dia[bn[0] * bn[1] * bn[2] * d] + oia[bn[0] * bn[1] * bn[2] * d] + (PetscInt)info.nz_used);
  }
  PetscCall(PetscMalloc1((size_t)n * d + 1, &ia));
  PetscCall(PetscMalloc1(cap, &ja));
  PetscCall(PetscMalloc1(cap, &va));
  ia[0] = 0;
  q     = 0;
  for (PetscInt k = p->ext[2][0]; k < p->ext[2][1]; k++)
    for (PetscInt j = p->ext[1][0]; j < p->ext[1][1]; j++)
      for (PetscInt i = p->ext[0][0]; i < p->ext[0][1]; i++, q++) {
        const PetscInt  q3[3] = {i, j, k};
        const PetscBool own   = PipeOwns(p, q3);
        const PetscInt  lp    = own ? PipeBoxIndex((const PetscInt (*)[2])p->box, q3) : -1;

        for (PetscInt e = 0; e < d; e++) {
          if (own) {
            const PetscInt lr = lp * d + e, nc = dia[lr + 1] - dia[lr] + oia[lr + 1] - oia[lr];

            PetscCall(PipeGrow(nnz + nc, &cap, &ja, &va));
            if (d == 1)
              for (PetscInt c = dia[lr], t = nnz; c < dia[lr + 1]; c++, t++) { /* a point of the box */
                ja[t] = boxext[dja[c]];
                va[t] = dva[c];
              }
            else
              for (PetscInt c = dia[lr], t = nnz; c < dia[lr + 1]; c++, t++) {
                ja[t] = boxext[dja[c] / d] * d + dja[c] % d;
                va[t] = dva[c];
              }
            if (oia[lr + 1] > oia[lr]) {
              for (PetscInt c = oia[lr], t = nnz + dia[lr + 1] - dia[lr]; c < oia[lr + 1]; c++, t++) { /* another process's point */
                const PetscInt gb = garray[oja[c]] / d;
                PetscMPIInt    r  = 0;
                PetscInt       b[3][2], qc[3];

                while (gb >= p->offset[r + 1]) r++;
                PipeRankBox(p, r, b);
                PipeBoxPoint((const PetscInt (*)[2])b, (PetscInt)(gb - p->offset[r]), qc);
                PetscCheck(qc[0] >= p->ext[0][0] && qc[0] < p->ext[0][1] && qc[1] >= p->ext[1][0] && qc[1] < p->ext[1][1] && qc[2] >= p->ext[2][0] && qc[2] < p->ext[2][1], PETSC_COMM_SELF, PETSC_ERR_SUP, "-%spc_structilu_distributed: a row couples to a point farther than the ghost layers (%" PetscInt_FMT "): the DMDA's stencil width is smaller than the matrix's", p->prefix, p->w);
                ja[t] = PipeExtIndex(p, qc) * d + garray[oja[c]] % d;
                va[t] = ova[c];
              }
              for (PetscInt t = nnz + 1; t < nnz + nc; t++) { /* the box's order: insertion sort (a stencil's few entries) */
                PetscInt    cj = ja[t], u = t;
                PetscScalar cv = va[t];

                for (; u > nnz && ja[u - 1] > cj; u--) {
                  ja[u] = ja[u - 1];
                  va[u] = va[u - 1];
                }
                ja[u] = cj;
                va[u] = cv;
              }
            } /* else: the diagonal block's columns keep their order (the box's order is the extended box's) */
            nnz += nc;
          } else {
            const PetscInt    *cols;
            const PetscScalar *vals;
            PetscInt           nc;

            PetscCall(MatGetRow(G[0], gr * d + e, &nc, &cols, &vals));
            PetscCall(PipeGrow(nnz + nc, &cap, &ja, &va));
            PetscCall(PetscArraycpy(ja + nnz, cols, nc));
            PetscCall(PetscArraycpy(va + nnz, vals, nc));
            nnz += nc; /* MatRestoreRow() zeroes nc */
            PetscCall(MatRestoreRow(G[0], gr * d + e, &nc, &cols, &vals));
          }
          ia[q * d + e + 1] = nnz;
        }
        if (!own) gr++;
      }
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &dva));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &ova));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &dia, &dja, &done));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oia, &oja, &done));
  PetscCall(MatDestroySubMatrices(1, &G));
  /* the arrays stay the pipeline's (MatSeqAIJSetPreallocationCSR() would insert them value by value: slower than all the above) */
  PetscCall(PetscFree(p->eia));
  PetscCall(PetscFree(p->eja));
  PetscCall(PetscFree(p->eva));
  p->eia = ia;
  p->eja = ja;
  p->eva = va;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n * d, n * d, ia, ja, va, E));
  PetscCall(PetscFree(gidx));
  PetscCall(PetscFree(boxext));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUPipeSetUp - the cut for the factor stencil st (offsets relative to a point): order, tile size and skew (order
  and chunk > 0: as given; else the model's best of the natural order and tiles of several sizes), this process's
  units and its messages
*/
PetscErrorCode GILUPipeSetUp(GILUPipe p, const GILUStencil *st, PetscInt order, PetscInt chunk)
{
  const PetscInt bs2 = p->dof * p->dof;
  double         cpt, lat, best = PETSC_MAX_REAL, tb = 0, wb = 0, bjb = 0;
  PetscInt       cand[16][2], nc = 0, nu, *stepof, nbox;
  PipeUnit      *u;

  PetscFunctionBegin;
  p->nlo = p->nup = 0;
  for (PetscInt s = 0; s < st->ns; s++) {
    PetscInt *d = s < st->nlower ? p->lower[p->nlo++] : (s > st->nlower ? p->upper[p->nup++] : NULL);

    for (PetscInt e = 0; d && e < 3; e++) d[e] = st->off[s][e];
    for (PetscInt e = 0; e < p->dim; e++) PetscCheck(PetscAbsInt(st->off[s][e]) <= p->w, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Offset %" PetscInt_FMT " of the factor stencil is wider than the ghost layers (%" PetscInt_FMT ")", st->off[s][e], p->w);
  }
  p->payload[0]   = p->dof;
  p->payload[1]   = (st->ns - st->nlower + 1) * bs2;
  p->transposable = (PetscBool)(p->nlo == p->nup);
  for (PetscInt a = 0; a < p->nlo && p->transposable; a++) {
    PetscBool found = PETSC_FALSE;

    for (PetscInt b = 0; b < p->nup && !found; b++) found = (PetscBool)(p->lower[a][0] == -p->upper[b][0] && p->lower[a][1] == -p->upper[b][1] && p->lower[a][2] == -p->upper[b][2]);
    p->transposable = found;
  }
  /* the model's units: a point costs what one process streams of it in a sweep; a message, its latency in points */
  cpt = (double)((st->ns + 2) / 2 * bs2 + 2 * p->dof) * sizeof(PetscScalar) / PIPE_POINT_BW;
  lat = PIPE_LATENCY_S / cpt;
  if (order >= 0 && (order == GILU_PIPE_NATURAL || chunk > 0)) {
    cand[nc][0]   = order;
    cand[nc++][1] = order == GILU_PIPE_NATURAL ? 1 : chunk;
  } else {
    const PetscInt along = p->dim == 3 ? p->N[1] : p->N[0];

    cand[nc][0]   = GILU_PIPE_NATURAL;
    cand[nc++][1] = 1;
    /* tiles of fewer than 8 lines (3D) leave the kernels too few independent lines to interleave (PipeGroups()) and
       jump between planes every few lines; of fewer than 32 points (2D) make short units: the model does not see
       either, so they are not candidates */
    for (PetscInt c = p->dim == 3 ? 8 : 32; p->dim > 1 && c <= along && nc < 16; c *= 2) {
      cand[nc][0]   = GILU_PIPE_TILED;
      cand[nc++][1] = c;
    }
  }
  p->info.candidates = nc;
  p->info.skew       = PipeSkew(p);
  for (PetscInt a = 0; a < nc; a++) {
    double t = 0, wk = 0, bj = 0;

    PetscCall(PipeSimulate(p, (GILUPipeOrder)cand[a][0], cand[a][1], p->info.skew, lat, &t, &wk, &bj));
    if (t < best * (1 - 1e-9)) { /* strictly better: a tie keeps the earlier candidate */
      best          = t;
      tb            = t;
      wb            = wk;
      bjb           = bj;
      p->info.order = (GILUPipeOrder)cand[a][0];
      p->info.chunk = cand[a][1];
    }
  }
  p->info.idle  = 1.0 - wb / (p->size * tb);
  p->info.speed = bjb / tb;
  if (p->info.order == GILU_PIPE_NATURAL) p->info.skew = 0;
  /* this process's units, in the extended box's coordinates */
  PetscCall(PipeUnits(p, p->info.order, p->info.chunk, p->info.skew, p->box, p->rank, &nu, &u));
  p->nunits = nu;
  PetscCall(PetscFree(p->unitbox));
  PetscCall(PetscFree(p->ukey));
  PetscCall(PetscMalloc1(nu, &p->unitbox));
  PetscCall(PetscMalloc1(nu, &p->ukey));
  nbox = (p->box[0][1] - p->box[0][0]) * (p->box[1][1] - p->box[1][0]) * (p->box[2][1] - p->box[2][0]);
  PetscCall(PetscMalloc1(nbox, &stepof));
  for (PetscInt m = 0; m < nu; m++) {
    p->unitbox[m][0] = u[m].i0 - p->ext[0][0];
    p->unitbox[m][1] = u[m].i1 - p->ext[0][0];
    p->unitbox[m][2] = u[m].j - p->ext[1][0];
    p->unitbox[m][3] = u[m].k - p->ext[2][0];
    p->ukey[m]       = u[m].key;
    for (PetscInt i = u[m].i0; i < u[m].i1; i++) {
      const PetscInt q[3] = {i, u[m].j, u[m].k};

      stepof[PipeBoxIndex((const PetscInt (*)[2])p->box, q)] = m;
    }
  }
  {
    PetscInt64 tmax = 0;

    for (PetscInt m = 0; m < nu; m++) tmax = PetscMax(tmax, u[m].key / p->ntot);
    p->info.tiles = p->info.order == GILU_PIPE_TILED ? (PetscInt)tmax + 1 : 1;
    if (p->info.order == GILU_PIPE_TILED) { /* the tiles of the whole grid */
      PetscInt64 last = PipeTile(p, GILU_PIPE_TILED, p->info.chunk, p->info.skew, p->N[0] - 1, p->N[1] - 1, p->N[2] - 1);

      p->info.tiles = (PetscInt)last + 1;
    }
  }
  PetscCall(PetscFree(u));
  {
    PetscBool safe = PETSC_TRUE;

    PetscCall(PipeGroups(p, PipeDepth(p)));
    PetscCall(PipeXPlanSetUp(p, 0, stepof, &safe));
    PetscCall(PipeXPlanSetUp(p, 1, stepof, &safe));
    if (p->depth > 1) { /* the ranks' argument (PipeGroups()); collective (safe is this process's own) */
      PetscBool monotone = PETSC_TRUE;

      for (PetscInt dir = 0; dir < 2; dir++)
        for (PetscInt t = 0; t < p->x[dir].n[1]; t++)
          if (dir ? p->x[dir].peer[1][t] < p->rank : p->x[dir].peer[1][t] > p->rank) monotone = PETSC_FALSE;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &monotone, 1, GILU_MPI_BOOL, MPI_LAND, p->comm));
      safe = (PetscBool)(safe || monotone);
    }
    if (!safe) {
      PetscCall(PipeGroups(p, 1));
      PetscCall(PipeXPlanSetUp(p, 0, stepof, &safe));
      PetscCall(PipeXPlanSetUp(p, 1, stepof, &safe));
    }
  }
  PetscCall(PetscFree(stepof));
  p->info.depth = p->depth;
  PetscCall(PetscInfo(NULL, "Pipeline: %s order (tiles of %" PetscInt_FMT ", skew %" PetscInt_FMT "), groups of %" PetscInt_FMT " lines, %" PetscInt_FMT " units\n", GILUPipeOrders[p->info.order], p->info.chunk, p->info.skew, p->depth, p->nunits));
  p->info.messages[0] = p->info.messages[1] = p->x[0].n[0];
  p->info.messages[2]                       = p->x[1].n[0];
  { /* a block's columns share the messages (PipeCopy()): the most columns that keep every process's within an int */
    PetscInt most = 1;

    for (PetscInt dir = 0; dir < 2; dir++)
      for (PetscInt role = 0; role < 2; role++)
        for (PetscInt t = 0; t < p->x[dir].n[role]; t++) most = PetscMax(most, p->x[dir].ptr[role][t + 1] - p->x[dir].ptr[role][t]);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &most, 1, MPIU_INT, MPI_MAX, p->comm));
    p->info.columns = PetscMax(1, (PetscInt)(PETSC_MPI_INT_MAX / ((PetscInt64)most * p->dof)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUPipeGetInfo(GILUPipe p, GILUPipeInfo *info)
{
  PetscFunctionBegin;
  *info = p->info;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* copies the own points between a vector's local array (toext: from it) and an array over the extended box */
PetscErrorCode GILUPipeOwnedCopy(GILUPipe p, PetscBool toext, const PetscScalar *from, PetscScalar *to)
{
  const PetscInt nx   = (p->box[0][1] - p->box[0][0]) * p->dof;
  PetscInt       line = 0;

  PetscFunctionBegin;
  for (PetscInt k = p->box[2][0]; k < p->box[2][1]; k++)
    for (PetscInt j = p->box[1][0]; j < p->box[1][1]; j++, line++) {
      const PetscInt q[3] = {p->box[0][0], j, k};
      const size_t   e = (size_t)PipeExtIndex(p, q) * p->dof, o = (size_t)line * nx;

      if (toext) PetscCall(PetscArraycpy(to + e, from + o, nx));
      else PetscCall(PetscArraycpy(to + o, from + e, nx));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row of the global grid in natural ordering of a row of the extended box */
PetscErrorCode GILUPipeGlobalRow(GILUPipe p, PetscInt row, PetscInt *grow)
{
  PetscInt q[3];

  PetscFunctionBegin;
  PipeBoxPoint((const PetscInt (*)[2])p->ext, row / p->dof, q);
  *grow = (PetscInt)((((PetscInt64)q[2] * p->N[1] + q[1]) * p->N[0] + q[0]) * p->dof + row % p->dof);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the arrays the next factorization exchanges: the stencil matrix's values (ns offsets, nl lower) and dinv */
PetscErrorCode GILUPipeSetFactorData(GILUPipe p, PetscScalar *val, PetscScalar *dinv, PetscInt ns, PetscInt nl)
{
  PetscFunctionBegin;
  p->val     = val;
  p->dinv    = dinv;
  p->ns      = ns;
  p->nl      = nl;
  p->bs2     = p->dof * p->dof;
  p->npoints = p->en[0] * p->en[1] * p->en[2];
  PetscCheck(p->payload[1] == (ns - nl + 1) * p->bs2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The pipeline was set up for another stencil");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* posts the receives of plan side x for payloads of pay scalars, each peer's batches in the order it sends them */
static PetscErrorCode PipePostReceives(GILUPipe p, PipeXPlan *x, PetscInt pay, PetscMPIInt tag)
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < x->n[1]; a++) {
    const PetscInt t = x->post[a];
    PetscMPIInt    cnt;

    PetscCall(PetscMPIIntCast((x->ptr[1][t + 1] - x->ptr[1][t]) * pay, &cnt));
    PetscCallMPI(MPI_Irecv(x->buf[1] + (size_t)x->ptr[1][t] * pay, cnt, MPIU_SCALAR, x->peer[1][t], tag, p->comm, &x->req[1][t]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sends batch t of plan side x, packed already (an MPI error code: the threads' engine calls it inside its parallel
   region, where PetscCall() cannot return; PipeXPlanSetUp() checked that every batch's count fits an int) */
static inline int PipeSend(GILUPipe p, PipeXPlan *x, PetscInt t, PetscInt pay, PetscMPIInt tag)
{
  return MPI_Isend(x->buf[0] + (size_t)x->ptr[0][t] * pay, (PetscMPIInt)((x->ptr[0][t + 1] - x->ptr[0][t]) * pay), MPIU_SCALAR, x->peer[0][t], tag, p->comm, &x->req[0][t]);
}

/*
  GILUPipeExchangeLower - after a factorization, the lower blocks of this process's factor rows to the processes that
  read them as upper ghosts (the transposed backward sweep reads L_{q,s} of its upper neighbours q), through the
  backward sweep's batches, which hold exactly those points; one exchange, all of it at once (tag 14)
*/
PetscErrorCode GILUPipeExchangeLower(GILUPipe p)
{
  PipeXPlan     *x   = &p->x[1];
  const PetscInt pay = p->nl * p->bs2;

  PetscFunctionBegin;
  PetscCheck(pay <= PetscMax(p->payload[0], p->payload[1]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The pipeline's buffers are too small for the lower blocks");
  PetscCall(PipePostReceives(p, x, pay, 14));
  for (PetscInt t = 0; t < x->n[0]; t++) {
    PetscScalar *buf = x->buf[0] + (size_t)x->ptr[0][t] * pay;

    for (PetscInt a = x->ptr[0][t]; a < x->ptr[0][t + 1]; a++)
      for (PetscInt s = 0; s < p->nl; s++, buf += p->bs2) PetscCall(PetscArraycpy(buf, p->val + ((size_t)s * p->npoints + x->pts[0][a]) * p->bs2, p->bs2));
    PetscCallMPI(PipeSend(p, x, t, pay, 14));
  }
  PetscCallMPI(MPI_Waitall((PetscMPIInt)x->n[1], x->req[1], MPI_STATUSES_IGNORE));
  for (PetscInt t = 0; t < x->n[1]; t++) {
    const PetscScalar *buf = x->buf[1] + (size_t)x->ptr[1][t] * pay;

    for (PetscInt a = x->ptr[1][t]; a < x->ptr[1][t + 1]; a++)
      for (PetscInt s = 0; s < p->nl; s++, buf += p->bs2) PetscCall(PetscArraycpy(p->val + ((size_t)s * p->npoints + x->pts[1][a]) * p->bs2, buf, p->bs2));
  }
  PetscCallMPI(MPI_Waitall((PetscMPIInt)x->n[0], x->req[0], MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the transposed solves can run in the pipeline (GILUPipeSetUp(): the factor stencil's lower offsets are its
   upper ones negated, since the transposed sweeps read the neighbours of the other side) */
PetscErrorCode GILUPipeTransposable(GILUPipe p, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = p->transposable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* packs (pack true) or unpacks message t of plan side r of sweep h */
static inline void PipeCopy(GILUPipe p, const GILUSweepHead *h, PipeXPlan *x, PetscInt r, PetscInt t, PetscBool pack, PetscInt pay)
{
  PetscScalar *buf = x->buf[r] + (size_t)x->ptr[r][t] * pay;

  for (PetscInt a = x->ptr[r][t]; a < x->ptr[r][t + 1]; a++) {
    const PetscInt q = x->pts[r][a];

    if (!h->factor) {
      for (PetscInt j = 0; j < PetscMax(h->m, 1); j++) { /* a block's columns one after another */
        PetscScalar *v = h->x + (size_t)j * h->ld + (size_t)q * p->dof;

        for (PetscInt e = 0; e < p->dof; e++, buf++) {
          if (pack) *buf = v[e];
          else v[e] = *buf;
        }
      }
    } else {
      for (PetscInt s = p->nl; s <= p->ns; s++) { /* the diagonal and upper blocks, then the inverted diagonal (s == ns) */
        PetscScalar *v = s < p->ns ? p->val + ((size_t)s * p->npoints + q) * p->bs2 : p->dinv + (size_t)q * p->bs2;

        if (pack) memcpy(buf, v, sizeof(PetscScalar) * (size_t)p->bs2);
        else memcpy(v, buf, sizeof(PetscScalar) * (size_t)p->bs2);
        buf += p->bs2;
      }
    }
  }
}

/*
  GILUPipeSetThreads - nthreads threads in this process (1: none): its box is cut along x into segments at least the
  factor stencil's reach along x (and PIPE_MIN_SEGMENT points) wide, one a thread; each thread runs every group of the
  pipeline's order on its segment (see GILUPipeSweep()). Call after GILUPipeSetUp() with the pipe's schedule s; delay
  (microseconds, 0: off) is the test hook of schedule.c for the threads. MPI must allow MPI_THREAD_FUNNELED: only the
  calling thread talks to MPI.
*/
#define PIPE_MIN_SEGMENT 8
PetscErrorCode GILUPipeSetThreads(GILUPipe p, GILUSchedule s, PetscInt nthreads, PetscInt delay)
{
  const PetscInt nx = p->box[0][1] - p->box[0][0], lo = p->box[0][0] - p->ext[0][0], nu = p->nunits, ng = p->ngroups;
  PetscInt       reach = 1, T = PetscMax(nthreads, 1), n = 0;
  int            level;

  PetscFunctionBegin;
  PetscCall(PetscFree(p->tunitbox));
  PetscCall(PetscFree(p->tgptr));
  PetscCall(PetscFree(p->tgunits));
  PetscCall(PetscFree(p->tsched));
  PetscCall(PetscFree(p->prog));
  for (PetscInt a = 0; a < p->nlo; a++) reach = PetscMax(reach, PetscAbsInt(p->lower[a][0]));
  for (PetscInt a = 0; a < p->nup; a++) reach = PetscMax(reach, PetscAbsInt(p->upper[a][0]));
  T = PetscMin(T, nx / PetscMax(reach, PIPE_MIN_SEGMENT));
#if !defined(PETSCGILU_HAVE_OPENMP)
  T = 1;
#endif
  PetscCallMPI(MPI_Query_thread(&level));
  if (T > 1 && level < MPI_THREAD_FUNNELED) {
    PetscCall(PetscInfo(NULL, "MPI was initialized without MPI_THREAD_FUNNELED: the pipeline runs on one thread a process\n"));
    T = 1;
  }
  p->nthreads = PetscMax(T, 1);
  p->delay    = delay;
  if (p->nthreads == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1((size_t)T * nu, &p->tunitbox));
  PetscCall(PetscMalloc1((size_t)T * (ng + 1), &p->tgptr));
  PetscCall(PetscMalloc1((size_t)T * nu, &p->tgunits));
  PetscCall(PetscMalloc1(T, &p->tsched));
  PetscCall(PetscCalloc1((size_t)T * PIPE_PAD, &p->prog));
  for (PetscInt t = 0; t < T; t++) {
    const PetscInt x0 = lo + t * nx / T, x1 = lo + (t + 1) * nx / T;
    PetscInt (*ub)[4] = p->tunitbox + (size_t)t * nu, *gp = p->tgptr + (size_t)t * (ng + 1);

    for (PetscInt u = 0; u < nu; u++) {
      ub[u][0] = PetscMax(p->unitbox[u][0], x0);
      ub[u][1] = PetscMax(PetscMin(p->unitbox[u][1], x1), ub[u][0]);
      ub[u][2] = p->unitbox[u][2];
      ub[u][3] = p->unitbox[u][3];
    }
    for (PetscInt g = 0; g < ng; g++) {
      gp[g] = n;
      for (PetscInt a = p->gptr[g]; a < p->gptr[g + 1]; a++)
        if (ub[p->gunits[a]][1] > ub[p->gunits[a]][0]) p->tgunits[n++] = p->gunits[a];
    }
    gp[ng]               = n;
    p->tsched[t]         = *s;
    p->tsched[t].unitbox = (const PetscInt (*)[4])ub;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUPipeGetThreads(GILUPipe p, PetscInt *nthreads)
{
  PetscFunctionBegin;
  *nthreads = p->nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the messages of one sweep with threads, handled by the calling thread (the only one that calls MPI) */
typedef struct {
  GILUPipe             p;
  const GILUSweepHead *h;
  PipeXPlan           *x;
  PetscInt             pay, rc, sc; /* receives completed and unpacked, sends posted */
  PetscInt             recvd;       /* rc, published to the other threads */
  PetscMPIInt          tag;
  int                  err;
} PipeEngine;

/* completes the receives that have arrived (in their order) and posts the sends whose step every thread has done */
static void PipeEngineRun(PipeEngine *e)
{
  GILUPipe   p = e->p;
  PipeXPlan *x = e->x;

  while (e->rc < x->n[1]) {
    int done = 0;

    if (MPI_Test(&x->req[1][e->rc], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) e->err = 1;
    if (!done) break;
    PipeCopy(p, e->h, x, 1, e->rc, PETSC_FALSE, e->pay);
    e->rc++;
    __atomic_store_n(&e->recvd, e->rc, __ATOMIC_RELEASE);
  }
  if (e->sc < x->n[0]) {
    PetscInt64 all = INT64_MAX; /* steps done by every thread */

    for (PetscInt t = 0; t < p->nthreads; t++) { /* one load each (PetscMin() would load twice, and the second may be larger) */
      const PetscInt64 done = __atomic_load_n(&p->prog[t * PIPE_PAD], __ATOMIC_ACQUIRE);

      all = PetscMin(all, done);
    }
    for (; e->sc < x->n[0] && x->step[0][e->sc] < all; e->sc++) {
      PipeCopy(p, e->h, x, 0, e->sc, PETSC_TRUE, e->pay);
      if (PipeSend(p, x, e->sc, e->pay, e->tag) != MPI_SUCCESS) e->err = 1;
    }
  }
}

/*
  Thread t's part of a sweep with threads. Thread t has segment t of every unit. The leader (segment 0 forward, the
  last backward) is ahead: thread t runs step m (group m of the sweep's order) once the thread ahead of it has done
  step m (the same units' points before its segment) and the thread behind it has done step m - 1 (the earlier
  units' points after its segment: a segment is at least the stencil's reach wide, so no other thread holds a point
  it reads), and once the receives of steps up to m are unpacked. Why this cannot deadlock: order the pairs (thread,
  step) by 2 m + (the thread's distance from the leader); every wait is for a smaller pair or for a receive, and
  the receives and sends are handled by thread 0 (PipeEngineRun()) in every one of its waits, so a step of this
  process that every thread has done is sent as in the one-thread pipeline, whose argument (top of the file) then
  holds with "a unit done" read as "its step done by every thread".
*/
static void PipeSweepThread(GILUPipe p, PipeEngine *e, PetscInt t, PetscBool backward, GILUTileKernel kernel, void *ctx)
{
  const PetscInt  T = p->nthreads, ng = p->ngroups, ahead = backward ? t + 1 : t - 1, behind = backward ? t - 1 : t + 1;
  const PetscInt *gp    = p->tgptr + (size_t)t * (ng + 1);
  PipeXPlan      *x     = e->x;
  GILUSchedule    ts    = &p->tsched[t];
  PetscInt        rwant = 0;

  if (p->delay && (backward ? t == T - 1 : t == 0)) GILUDelay(p->delay); /* the test hook: the leader starts late */
  for (PetscInt m = 0; m < ng; m++) {
    const PetscInt g = backward ? ng - 1 - m : m;
    GILUBackoff    b = GILU_BACKOFF_INIT;

    while (rwant < x->n[1] && x->step[1][rwant] <= m) rwant++;
    for (;;) {
      PetscBool ready = PETSC_TRUE;

      if (!t) PipeEngineRun(e);
      if (ahead >= 0 && ahead < T && __atomic_load_n(&p->prog[ahead * PIPE_PAD], __ATOMIC_ACQUIRE) <= m) ready = PETSC_FALSE;
      if (behind >= 0 && behind < T && __atomic_load_n(&p->prog[behind * PIPE_PAD], __ATOMIC_ACQUIRE) < m) ready = PETSC_FALSE;
      if (__atomic_load_n(&e->recvd, __ATOMIC_ACQUIRE) < rwant) ready = PETSC_FALSE;
      if (ready) break;
      GILUBackoffStep(&b);
    }
    if (gp[g + 1] > gp[g]) kernel(ctx, ts, gp[g + 1] - gp[g], p->tgunits + gp[g]);
    __atomic_store_n(&p->prog[t * PIPE_PAD], m + 1, __ATOMIC_RELEASE);
    if (p->delay && m == 0 && (backward ? t == 0 : t == T - 1)) GILUDelay(p->delay); /* the test hook: the last thread falls behind */
  }
  if (!t) { /* the messages left: sends of the last steps, receives no thread waited for */
    GILUBackoff b = GILU_BACKOFF_INIT;

    for (PipeEngineRun(e); e->rc < x->n[1] || e->sc < x->n[0]; PipeEngineRun(e)) GILUBackoffStep(&b);
  }
}

/* room in both buffers of plan side x for payloads of pay scalars a point (a block of columns: each message carries
   every column of its points, so a block takes the messages of one solve); every batch's count fits an int (the caller
   passes at most GILUPipeInfo's columns) */
static PetscErrorCode PipeXPlanGrow(PipeXPlan *x, PetscInt pay)
{
  PetscFunctionBegin;
  for (PetscInt role = 0; role < 2; role++) {
    for (PetscInt t = 0; t < x->n[role]; t++)
      PetscCheck((PetscInt64)(x->ptr[role][t + 1] - x->ptr[role][t]) * pay <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A message of the pipeline across processes would hold more than 2^31 - 1 values (GILUPipeInfo's columns bounds a pass)");
    PetscCall(PetscFree(x->buf[role]));
    PetscCall(PetscMalloc1((size_t)x->ptr[role][x->n[role]] * pay, &x->buf[role]));
  }
  x->bufpay = pay;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUPipeSweep - one sweep of schedule s (made by GILUScheduleCreatePipe()): the kernel on this process's units in
  the pipeline's order (backward: reversed), each after the messages it needs, its boundary points sent after it;
  with threads (GILUPipeSetThreads()) each thread on its segment of the units (PipeSweepThread())
*/
PetscErrorCode GILUPipeSweep(GILUPipe p, GILUSchedule s, PetscBool backward, GILUTileKernel kernel, void *ctx)
{
  const GILUSweepHead *h   = (const GILUSweepHead *)ctx; /* what the sweep exchanges */
  PipeXPlan           *x   = &p->x[backward ? 1 : 0];
  const PetscInt       pay = h->factor && !backward ? p->payload[1] : p->payload[0] * PetscMax(h->m, 1);
  const PetscMPIInt    tag = backward ? 12 : (h->factor ? 13 : 11);
  PetscInt             sc = 0, rc = 0;

  PetscFunctionBegin;
  PetscCheck(!(backward && h->factor), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The factorization is a forward sweep");
  if (pay > x->bufpay) PetscCall(PipeXPlanGrow(x, pay));
  PetscCall(PipePostReceives(p, x, pay, tag));
  if (p->nthreads > 1) {
#if defined(PETSCGILU_HAVE_OPENMP)
    PipeEngine e = {p, h, x, pay, 0, 0, 0, tag, 0};

    for (PetscInt t = 0; t < p->nthreads; t++) p->prog[t * PIPE_PAD] = 0;
    /* (the threads' waits are not logged as StructILUWait: PETSc's logging is for the main thread) */
  #pragma omp parallel num_threads(p->nthreads)
    PipeSweepThread(p, &e, omp_get_thread_num(), backward, kernel, ctx);
    PetscCheck(!e.err, PETSC_COMM_SELF, PETSC_ERR_MPI, "MPI failed in the pipeline's messages");
    sc = e.sc;
    rc = e.rc;
#endif
  } else {
    for (PetscInt m = 0; m < p->ngroups; m++) {
      PetscInt g = backward ? p->ngroups - 1 - m : m;

      for (; rc < x->n[1] && x->step[1][rc] == m; rc++) {
        int done = 0;

        /* polls, yielding the core after a short spin, rather than MPI_Wait(): MPI implementations spin, which takes the
           core from the process being waited for when the machine has more processes than cores (no sleeps: a stage of
           the pipeline must start as soon as its data is there) */
        PetscCallMPI(MPI_Test(&x->req[1][rc], &done, MPI_STATUS_IGNORE));
        if (!done) { /* idle: logged as StructILUWait */
          PetscCall(PetscLogEventBegin(GILU_StructILUWait, 0, 0, 0, 0));
          for (PetscInt spins = 0; !done; spins++) {
            if (spins < GILU_WAIT_SPIN) GILUCpuRelax();
            else (void)sched_yield();
            PetscCallMPI(MPI_Test(&x->req[1][rc], &done, MPI_STATUS_IGNORE));
          }
          PetscCall(PetscLogEventEnd(GILU_StructILUWait, 0, 0, 0, 0));
        }
        PipeCopy(p, h, x, 1, rc, PETSC_FALSE, pay);
      }
      kernel(ctx, s, p->gptr[g + 1] - p->gptr[g], p->gunits + p->gptr[g]);
      for (; sc < x->n[0] && x->step[0][sc] == m; sc++) {
        PipeCopy(p, h, x, 0, sc, PETSC_TRUE, pay);
        PetscCallMPI(PipeSend(p, x, sc, pay, tag));
      }
    }
  }
  PetscCheck(rc == x->n[1] && sc == x->n[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Pipeline: %" PetscInt_FMT " of %" PetscInt_FMT " receives and %" PetscInt_FMT " of %" PetscInt_FMT " sends done", rc, x->n[1], sc, x->n[0]);
  PetscCallMPI(MPI_Waitall((PetscMPIInt)x->n[0], x->req[0], MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GILUScheduleCreatePipe - a schedule whose sweeps run the pipeline (its threads: GILUPipeSetThreads()) */
PetscErrorCode GILUScheduleCreatePipe(GILUPipe p, GILUSchedule *schedule)
{
  GILUSchedule s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  s->type     = GILU_SCHEDULE_PIPELINE;
  s->nthreads = 1;
  s->group    = 1;
  s->depth    = 1;
  s->nunits   = p->nunits;
  s->pipe     = p;
  s->unitbox  = (const PetscInt (*)[4])p->unitbox;
  s->n[0]     = 1;
  s->chunk    = p->en[0];
  s->nx       = p->en[0];
  *schedule   = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}
