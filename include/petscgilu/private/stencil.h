/*
   Private description of a structured-grid stencil matrix, shared by all stencil code
   (PCSTRUCTILU, MATSTENCILGPU, their CUDA kernels, and the PCs that extract a stencil).

   A matrix on a grid of n[0] x n[1] x n[2] points with dof unknowns per point couples
   point p = (i,j,k) to p + off[s] for each offset s of the stencil. Values are stored
   stencil-major: for offset s, a dof x dof block (row-major) per grid point, contiguous
   over the grid in natural (x fastest) order; blocks whose neighbour lies outside the
   grid are zero.
*/
#ifndef PETSCGILU_STENCIL_H
#define PETSCGILU_STENCIL_H

#include <petscmat.h>
#include <petscdm.h>
#include <petscgilu/private/compat.h>
#include <petscgilu/private/wait.h>

#define GILU_STENCIL_MAX_OFFSETS 343 /* a 3D box of width 3 (ILU(k) fill of wide stencils) */
#define GILU_STENCIL_MAX_WIDTH   4   /* largest |offset| per direction */
#define GILU_MAX_DOF             8

typedef struct {
  PetscInt dim;  /* 1, 2 or 3 */
  PetscInt n[3]; /* points per direction, 1 in unused directions */
  PetscInt dof;  /* unknowns per grid point */
} GILUGrid;

typedef struct {
  PetscInt ns;                               /* number of offsets */
  PetscInt nlower;                           /* offsets [0, nlower) are lower, nlower is the diagonal, the rest upper */
  PetscInt off[GILU_STENCIL_MAX_OFFSETS][3]; /* sorted by their natural-order index shift */
  PetscInt width[3];                         /* largest |offset| per direction */
} GILUStencil;

/*
  The hyperplane schedule of a stencil matrix for host threads (schedule.c).

  Units are segments of grid lines: x-chunks of `chunk` points of the line (j,k). A unit
  depends on the units that hold the lower neighbours of its points, and waits only for
  them, through per-unit completion counters (block-to-block waiting, no barrier). Two ways
  to hand units to threads:
  - hyperplane: a unit's level is the linear function w.(c,j,k) of its coordinates, chosen
    so that every dependency has a smaller level (the affine hyperplane schedule of
    StructILU, applied to segments). Units of one level are independent; a tile is a group
    of up to `group` of them, whose recurrences a kernel interleaves, and threads claim
    tiles in order of level (the GPU's schedule).
  - slab: thread t owns the units of a slab (a range of y-lines in 3D, of x-chunks in 2D)
    and runs them in natural order: long unit-stride runs through memory, which is what a
    CPU's prefetchers want.
  A third kind is not built here: the pipeline across processes (pipeline.c, GILUScheduleCreatePipe()), whose units
  are listed boxes (unitbox) in an order all processes share and whose sweeps GILUPipeSweep() runs with its messages.
*/
typedef enum {
  GILU_SCHEDULE_SLAB,       /* each thread owns a slab of units and runs them in natural order */
  GILU_SCHEDULE_HYPERPLANE, /* threads claim tiles of units in the order of their hyperplane level */
  GILU_SCHEDULE_PIPELINE    /* across processes: the pipeline's units and messages (pipe, unitbox) */
} GILUScheduleType;
PETSC_INTERN const char *const GILUScheduleTypes[];

typedef struct _n_GILUSchedule *GILUSchedule;
typedef struct _n_GILUPipe     *GILUPipe;
struct _n_GILUSchedule {
  GILUScheduleType   type;
  PetscInt           nthreads;                                /* threads the schedule was built for */
  GILUThreadGovernor govsolve;                                /* the solves' sweep pairs: all the threads, or one when that is faster (a busy core); single sweeps and the factorization follow it */
  GILUThreadGovernor govmultiple;                             /* ... of several right-hand sides at once (GILUScheduleRunPairMultiple()) */
  PetscInt           chunk, nx;                               /* grid points per x-chunk, per line */
  PetscInt           n[3];                                    /* units per direction */
  PetscInt           nunits, nlevels, w[3];                   /* unit levels: w.(c,j,k) */
  PetscInt           group;                                   /* hyperplane: units per tile, at most */
  PetscInt           depth, ywidth;                           /* slab: sub-slabs pipelined per thread; stencil's y-width */
  PetscInt          *order;                                   /* units by increasing level */
  PetscInt           ntiles, *tileptr;                        /* tile t: order[tileptr[t]] .. order[tileptr[t+1]-1] */
  PetscInt           ndep[2];                                 /* forward (lower) and backward (upper) dependencies */
  PetscInt           dep[2][3 * GILU_STENCIL_MAX_OFFSETS][3]; /* unit offsets a unit waits for */
  PetscInt64        *done;                                    /* per unit, the last sweep that completed it */
  PetscInt64         sweep;                                   /* sweeps started */
  PetscInt           delay;                                   /* test hook, microseconds (-gilu_schedule_delay, schedule.c); 0: off */
  GILUPipe           pipe;                                    /* pipeline: its units in the pipeline's order and its messages */
  const PetscInt (*unitbox)[4];                               /* pipeline: unit u is the points unitbox[u][0] <= i < unitbox[u][1] of line (unitbox[u][2], unitbox[u][3]) */
};

/* The points i0 <= i < i1 of the grid line (j,k) that form unit u */
static inline void GILUScheduleGetUnit(GILUSchedule s, PetscInt u, PetscInt *i0, PetscInt *i1, PetscInt *j, PetscInt *k)
{
  PetscInt c = u % s->n[0];

  if (s->type == GILU_SCHEDULE_PIPELINE) {
    *i0 = s->unitbox[u][0];
    *i1 = s->unitbox[u][1];
    *j  = s->unitbox[u][2];
    *k  = s->unitbox[u][3];
    return;
  }

  *j  = (u / s->n[0]) % s->n[1];
  *k  = u / (s->n[0] * s->n[1]);
  *i0 = c * s->chunk;
  *i1 = PetscMin(*i0 + s->chunk, s->nx);
}

/* The work of one sweep on one tile: nunits independent units (forward: natural order within a unit, backward: reverse) */
typedef void (*GILUTileKernel)(void *, GILUSchedule, PetscInt, const PetscInt *);

/*
  The head of the context of a sweep (the ctx of GILUScheduleRun(), GILUScheduleRunPair()): what the sweep computes, as
  the pipeline across processes needs to know it to exchange its boundary points (the factors' rows, or the values of the
  array the solve updates). Every context given to a schedule begins with one; only the pipeline reads it.
*/
typedef struct {
  PetscBool    factor; /* the factorization: the factors set by GILUPipeSetFactorData() */
  PetscScalar *x;      /* a solve: the array (over the extended box, in the pipeline) it updates */
  PetscInt     m, ld;  /* a solve of m columns (0: one), column j at x + j ld (StructILUSolveMultiple_Host()) */
} GILUSweepHead;

/* A stencil matrix extracted from an AIJ or BAIJ matrix (the local diagonal block in parallel) */
typedef struct {
  GILUGrid         grid;
  GILUStencil      stencil;
  PetscInt         npoints;           /* n[0]*n[1]*n[2] */
  PetscInt         bs2;               /* dof*dof */
  PetscInt        *shift;             /* natural-order index shift of each offset */
  PetscScalar     *val;               /* ns * npoints * bs2 values, stencil-major */
  PetscInt         nmissing;          /* in-grid stencil positions absent from the matrix pattern */
  PetscInt        *missptr, *missoff; /* per point (CSR) the offsets that are absent; NULL when none is */
  char            *irregular;         /* per point: its rows are not exactly the in-grid stencil positions in order */
  PetscObjectState nonzerostate;      /* of the matrix the pattern came from */
  GILUScheduleType scheduletype;      /* of the schedule GILUStencilMatGetSchedule() builds */
  PetscInt         nthreads;          /* threads it uses; 0: OpenMP's, fewer for small grids */
  GILUSchedule     schedule;          /* built on first use by GILUStencilMatGetSchedule() */
} GILUStencilMat;

/* Ainv = A^{-1} for a dense d x d block (d <= GILU_MAX_DOF) by Gauss-Jordan elimination with partial pivoting; false if a pivot is at most tol in absolute value */
static inline PetscBool GILUBlockInvert(PetscInt d, const PetscScalar *A, PetscScalar *Ainv, PetscReal tol)
{
  PetscScalar M[GILU_MAX_DOF * GILU_MAX_DOF];

  if (d == 1) { /* what the elimination below computes for one unknown, without its loops (one call per grid point) */
    if (PetscAbsScalar(A[0]) <= tol) return PETSC_FALSE;
    Ainv[0] = 1.0 / A[0];
    return PETSC_TRUE;
  }
  for (PetscInt t = 0; t < d * d; t++) {
    M[t]    = A[t];
    Ainv[t] = 0;
  }
  for (PetscInt t = 0; t < d; t++) Ainv[t * d + t] = 1;
  for (PetscInt c = 0; c < d; c++) {
    PetscInt    piv = c;
    PetscScalar inv;

    for (PetscInt r = c + 1; r < d; r++)
      if (PetscAbsScalar(M[r * d + c]) > PetscAbsScalar(M[piv * d + c])) piv = r;
    if (PetscAbsScalar(M[piv * d + c]) <= tol) return PETSC_FALSE;
    if (piv != c)
      for (PetscInt t = 0; t < d; t++) {
        PetscScalar s = M[c * d + t], u = Ainv[c * d + t];

        M[c * d + t]      = M[piv * d + t];
        Ainv[c * d + t]   = Ainv[piv * d + t];
        M[piv * d + t]    = s;
        Ainv[piv * d + t] = u;
      }
    inv = 1.0 / M[c * d + c];
    for (PetscInt t = 0; t < d; t++) {
      M[c * d + t] *= inv;
      Ainv[c * d + t] *= inv;
    }
    for (PetscInt r = 0; r < d; r++) {
      PetscScalar f = M[r * d + c];

      if (r == c || f == (PetscScalar)0) continue;
      for (PetscInt t = 0; t < d; t++) {
        M[r * d + t] -= f * M[c * d + t];
        Ainv[r * d + t] -= f * Ainv[c * d + t];
      }
    }
  }
  return PETSC_TRUE;
}

/* Geometry (stencil.c) */
PETSC_INTERN PetscErrorCode GILUStencilGetName(const GILUStencil *, PetscInt, char[], size_t);
PETSC_INTERN PetscErrorCode GILUStencilFind(const GILUStencil *, const PetscInt[3], PetscInt *);
PETSC_INTERN PetscErrorCode GILUStencilGetHyperplanes(const GILUStencil *, const GILUGrid *, PetscInt[3], PetscInt *);
PETSC_INTERN PetscErrorCode GILUStencilGetHyperplanesBoth(const GILUStencil *, const GILUGrid *, PetscInt[3], PetscInt *);
/* exported (developer level) for the kernel benchmark of the test library (tests/ex20.c), which factors a stencil matrix it assembles itself */
PETSC_EXTERN PetscErrorCode GILUStencilGetEliminationTable(const GILUStencil *, PetscInt **);

/* Host-thread schedules (schedule.c) */
PETSC_INTERN PetscErrorCode GILUScheduleCreate(const GILUStencil *, const GILUGrid *, GILUScheduleType, PetscInt, PetscInt, PetscInt, GILUSchedule *);
PETSC_INTERN PetscErrorCode GILUScheduleDestroy(GILUSchedule *);
PETSC_INTERN PetscErrorCode GILUScheduleRun(GILUSchedule, PetscBool, GILUTileKernel, void *);
PETSC_INTERN PetscErrorCode GILUScheduleRunPair(GILUSchedule, PetscBool, GILUTileKernel, GILUTileKernel, void *);
/* the same for the sweeps of m right-hand sides at once, under a governor of their own that records the time per
   right-hand side; not on the pipeline across processes */
PETSC_INTERN PetscErrorCode GILUScheduleRunPairMultiple(GILUSchedule, PetscBool, GILUTileKernel, GILUTileKernel, void *, PetscInt);
PETSC_INTERN PetscErrorCode GILUStencilMatGetSchedule(GILUStencilMat *, GILUSchedule *);
PETSC_INTERN PetscErrorCode GILUGetNumThreads(PetscInt *);
PETSC_INTERN PetscErrorCode GILUGetNumThreadsFor(PetscInt, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode GILUGetMaxThreads(PetscInt *);
PETSC_INTERN PetscErrorCode GILUMatCheckSquare(Mat);
PETSC_INTERN PetscErrorCode GILUClampThreads(PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode GILUStencilMatGetNumThreads(const GILUStencilMat *, PetscInt *);

/*
  The pipeline across processes (pipeline.c): the sweeps of the global ILU(k) of natural ordering of a DMDA's grid, each
  process on its box extended by ghost layers, in an order of units that all processes share, with nonblocking messages
  of the boundary rows (factorization) and values (solves) to the processes that need them. A schedule made by
  GILUScheduleCreatePipe() runs its sweeps (GILUScheduleRun(), GILUScheduleRunPair()) this way.
*/
typedef enum {
  GILU_PIPE_NATURAL, /* units are the lines of the box, in natural order */
  GILU_PIPE_TILED    /* the lines (3D) or line segments (2D) grouped in skewed tiles along y (3D) or x (2D), tile by tile */
} GILUPipeOrder;
PETSC_INTERN const char *const GILUPipeOrders[];
typedef struct {
  GILUPipeOrder order;
  PetscInt      chunk, skew, tiles; /* tiled: grid lines (3D) or points (2D) per tile, skew per plane (line), tiles */
  PetscInt      messages[3];        /* this process: messages it sends per factorization, forward sweep, backward sweep */
  PetscReal     idle;               /* the model: fraction of the processes' time spent waiting in a solve */
  PetscReal     speed;              /* the model: block Jacobi's solve time over the pipeline's */
  PetscInt      candidates;         /* cuts the model compared */
  PetscInt      depth;              /* lines the kernels interleave (groups of independent lines), 1: none */
  PetscInt      columns;            /* the most columns of a block one pass of the sweeps carries (every process's messages within an int) */
} GILUPipeInfo;
PETSC_INTERN PetscErrorCode GILUPipeCreate(DM, Mat, PetscInt, const char[], GILUPipe *);
PETSC_INTERN PetscErrorCode GILUPipeDestroy(GILUPipe *);
PETSC_INTERN PetscErrorCode GILUPipeGetExtendedGrid(GILUPipe, GILUGrid *);
PETSC_INTERN PetscErrorCode GILUPipeGetExtendedIS(GILUPipe, PetscInt, IS *);
PETSC_INTERN PetscErrorCode GILUPipeCreateExtendedMatrix(GILUPipe, Mat, IS, Mat *);
PETSC_INTERN PetscErrorCode GILUPipeSetUp(GILUPipe, const GILUStencil *, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode GILUPipeGetInfo(GILUPipe, GILUPipeInfo *);
PETSC_INTERN PetscErrorCode GILUPipeOwnedCopy(GILUPipe, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GILUPipeGlobalRow(GILUPipe, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode GILUPipeSetFactorData(GILUPipe, PetscScalar *, PetscScalar *, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode GILUPipeExchangeLower(GILUPipe);
PETSC_INTERN PetscErrorCode GILUPipeSetThreads(GILUPipe, GILUSchedule, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode GILUPipeGetThreads(GILUPipe, PetscInt *);
PETSC_INTERN PetscErrorCode GILUPipeTransposable(GILUPipe, PetscBool *);
PETSC_INTERN PetscErrorCode GILUScheduleCreatePipe(GILUPipe, GILUSchedule *);
PETSC_INTERN PetscErrorCode GILUPipeSweep(GILUPipe, GILUSchedule, PetscBool, GILUTileKernel, void *);

/* The ILU(k) pattern of a stencil matrix (fill.c) */
PETSC_INTERN PetscErrorCode GILUStencilMatFill(const GILUStencilMat *, PetscInt, GILUStencilMat *, char[], size_t);

/* Extraction from PETSc matrices (extract.c) */
PETSC_INTERN PetscErrorCode GILUGridFromDM(DM, Mat, GILUGrid *, PetscBool *);
PETSC_INTERN PetscErrorCode GILUGridInfer(Mat, PetscInt, GILUGrid *, PetscBool *);
PETSC_INTERN PetscErrorCode GILUStencilMatAnalyze(Mat, const GILUGrid *, GILUStencilMat *, char[], size_t);
PETSC_INTERN PetscErrorCode GILUStencilMatPack(Mat, GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUStencilMatReset(GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUStencilMatCopyStructure(const GILUStencilMat *, GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUStencilMatCopyValues(const GILUStencilMat *, GILUStencilMat *);
/*
  PCSPARSIFY's test whether its matrix is symmetric (to drop symmetric pairs): entries (i,j) and (j,i) of the (local)
  matrix, an entry absent from the pattern counting as 0, differ by at most GILU_SYMMETRY_RTOL times its largest absolute
  entry (round-off, as finite-element assembly leaves). (Every incomplete Cholesky of petscgilu reads the upper triangle of
  whatever it gets, as PETSc's ICC: no rule.)
*/
#define GILU_SYMMETRY_RTOL 1e-10
PETSC_INTERN PetscErrorCode GILUStencilMatSymmetrizeFromUpper(GILUStencilMat *, const PetscInt *);
PETSC_INTERN PetscErrorCode GILUMatCheckSupported(Mat, PetscBool *);

#endif
