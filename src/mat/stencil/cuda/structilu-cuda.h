/*
   Private to src/pc/structilu: the CUDA kernels of PCSTRUCTILU (cuda/structilu.cu), built by nvcc (plain names)
   and for the emulation (names ending in _cudaemu), and the host's plan of their schedule (structilu-plan.c,
   built once). structilu-setup.c calls the kernels through the table of the back-end that was chosen
   (StructILUDeviceGetOps / StructILUDeviceGetOps_cudaemu).
*/
#ifndef PETSCGILU_STRUCTILU_CUDA_H
#define PETSCGILU_STRUCTILU_CUDA_H

#include <petscgilu/private/backend.h>
#include <petscgilu/private/stencililu.h>

/* The most threads per block the host launches, and the kernels' __launch_bounds__ (a GPU refuses a larger block; a
   bound above the launches caps the registers for nothing: 1024 threads leave 64 per thread, and the scalar kernels
   spilled). The scalar kernels: DoF threads per point or line (tilepoints dof, default 128), times the solves' stages
   or the pipelined factorization's two groups, with at least 1 block per multiprocessor (up to 128 registers; without
   it ptxas aims at more resident blocks and spills, e.g. 40 registers for StructILULinesSolve<2>); the tensor-core
   factorizations: a warp per point (32 tilepoints; 42 to 56 registers, no spills within 64). */
#define GILU_TILE_MAX_THREADS 512
#define GILU_WARP_MAX_THREADS 1024
#define GILU_LINES_MAX_PRED   128 /* predecessor block offsets per sweep of the lines mapping, at most */
/* the columns of a block of right-hand sides the tiles' sweeps take together (a batch): their neighbour loads issued
   together, a factor value loaded once for them; their sums in registers, their exchange in shared memory */
#define GILU_SOLVE_COLUMNS 4

/* The grid-tier task mapping of the device kernels (-pc_structilu_cuda_mapping) */
typedef enum {
  STRUCTILU_CUDA_MAPPING_TILES, /* one block per tile (a run of points of one level), launched by level, waiting per neighbour's tile */
  STRUCTILU_CUDA_MAPPING_LINES  /* the StructILU paper, Section 4.1: a thread per line along z^ of the transformed grid, 2D blocks of lines
                                   stepping through their levels together, waiting per level for their predecessor blocks */
} StructILUCUDAMapping;

/* What -ksp_view prints of the device schedule (filled by create) */
typedef struct {
  StructILUCUDAMapping mapping;
  PetscInt             w[3];       /* level of point (i,j,k) = w.(i,j,k): every lower neighbour has a smaller level, every upper one a larger */
  PetscInt             nlevels;    /* hyperplane levels */
  PetscInt             ntiles;     /* thread blocks per sweep: tiles of at most tilepoints points of one level, launched by increasing level */
  PetscInt             tilepoints; /* grid points per tile */
  PetscInt             maxthreads; /* threads per block: tilepoints * dof */
  PetscInt             nstage;     /* stages of the intra-row pipeline of the solves (thread groups per block) */
  PetscInt             maxpred;    /* tiles: the most predecessors of one tile */
  PetscBool            nowait;     /* developer: the block-to-block waiting is left out (wrong results; for tests) */
  /* the lines mapping */
  PetscInt M[3][3];        /* (x^, y^, z^) = M (i,j,k), unimodular, with level = x^ + y^ + z^ */
  PetscInt linesx, linesy; /* lines per block along x^ and y^ */
  PetscInt nblocks;        /* thread blocks per sweep (blocks holding at least one point) */
  PetscInt nlines;         /* lines holding at least one point */
  PetscInt npred[2];       /* predecessor blocks of the forward and the backward sweep (tiles: predecessor tiles waited for in all) */
  /* the two-substage pipelined factorization (set by the first factorization) */
  PetscInt nlowerL, nearly; /* lower offsets; those whose L block is finalized in substage 1 */
  PetscInt npairs, npairs1; /* elimination updates of a row; those made in substage 1 */
  double   bytesmatrix;     /* bytes of factors read per apply (both sweeps) */
  double   bytesvector;     /* bytes of vectors read and written on the device per apply (neighbour reads counted once) */
  double   bytescopy;       /* bytes copied between host and device per apply */
  double   flops;           /* per apply */
} StructILUDeviceInfo;

/*
  The device schedule as the host plans it (structilu-plan.c: plain C, built once), which create copies to the device:
  the level order of the points, the tiles, the solves' stages and, for the lines mapping, its blocks of lines
*/
typedef struct {
  PetscInt  w[3], nlevels; /* level of (i,j,k) = w.(i,j,k) */
  PetscInt  tilepoints;    /* points per tile (the lines mapping: lines per block, at most) */
  PetscInt  ntiles;
  PetscInt *perm, *pos, *tileof, *tileptr;           /* the point at each level-ordered position; per point its position and tile; tile t: positions tileptr[t] .. tileptr[t+1]-1 */
  PetscInt  stage[GILU_STENCIL_MAX_OFFSETS], nstage; /* the solves' intra-row pipeline: the stage of each offset (diagonal -1), stages */
  PetscInt *tpredptr[2], *tpred[2];                  /* per tile, the tiles it waits for: [0] the forward sweep (and the factorization), [1] the backward one (CSR over the tiles) */
  /* the lines mapping (nblocks 0 for the tiles) */
  PetscInt  Minv[9], x0, y0;                         /* (i,j,k) = Minv (x^, y^, z^), row-major; the smallest x^, y^ */
  PetscInt  bx, by, nbx, nby, nblocks;               /* lines per block along x^ and y^; blocks along them; blocks holding a point */
  PetscInt *lmin, *lmax, *blockid, *bxy, *order;     /* per block its range of levels, (bx + nbx by); per cell its block or -1; the two sweeps' block orders */
  PetscInt  npred[2], pred[4 * GILU_LINES_MAX_PRED]; /* predecessor block offsets (dbx, dby) of the forward sweep, then of the backward one */
} StructILUPlan;

/* planned on the host (structilu-plan.c, in libpetscgilu.so), used by both builds of structilu.cu: exported for lib/libpetscgilu_cuda.so */
PETSC_EXTERN PetscErrorCode StructILUPlanCreate(const GILUStencilMat *, StructILUCUDAMapping, PetscInt, PetscInt, StructILUPlan *, StructILUDeviceInfo *);
PETSC_EXTERN PetscErrorCode StructILUPlanDestroy(StructILUPlan *);
/* the device factorization's elimination lists (elimination table, IC; out: ptr, eu, et) and the two-substage pipeline's substage-1 sets (weights, IC, ptr, et; out: early, pairs1, counts in info) */
PETSC_EXTERN PetscErrorCode StructILUPlanEliminations(const GILUStencil *, const PetscInt *, PetscBool, PetscInt[], PetscInt[], PetscInt[]);
/* the tiles each tile waits for (lower: the factorization's and the forward sweep's; transitively reduced; PetscFree2() them) */
/* the device factorization's per-target intra-row schedule (elimination lists, IC, thread groups; out: contributions, levels' targets per group, levels) */
PETSC_EXTERN PetscErrorCode StructILUPlanRowSchedule(const GILUStencil *, const PetscInt *, const PetscInt *, const PetscInt *, PetscBool, PetscInt, PetscInt[], PetscInt[], PetscInt[], PetscInt[], PetscInt[], PetscInt *);
PETSC_EXTERN PetscErrorCode StructILUPlanSubstages(const GILUStencil *, const PetscInt[3], PetscBool, const PetscInt *, const PetscInt *, PetscInt[], PetscInt[], StructILUDeviceInfo *);

typedef struct _n_StructILUDevice *StructILUDevice;

typedef struct {
  /* the schedule of the stencil matrix (symbolic): the mapping, tiles (points per tile; lines: lines per block; 0:
     automatic), intra-row pipeline stages (0: automatic), no waiting (developer), level order, flags */
  PetscErrorCode (*create)(const GILUStencilMat *, StructILUCUDAMapping, PetscInt, PetscInt, PetscBool, StructILUDevice *, StructILUDeviceInfo *);
  /* copies the factors the host computed (numeric), in the level-ordered layout */
  PetscErrorCode (*setfactors)(StructILUDevice, const StructILUFactors *);
  /* the factorization on the device of the (unfactored) values of the stencil matrix; elimination table, IC's
     mirror offsets (or NULL), zero pivot tolerance, single-precision factors, the tensor-core kernel for DoF >= 5, the
     two-substage pipeline (lines mapping only; not with the tensor cores); returns the first zero-pivot row or -1,
     whether the tensor-core kernel ran, and (single) a local row with a factor entry beyond float's range or -1 */
  PetscErrorCode (*factor)(StructILUDevice, const GILUStencilMat *, const PetscInt *, const PetscInt *, PetscReal, PetscBool, PetscBool, PetscBool, PetscInt *, PetscBool *, PetscInt *);
  /* x = (LU)^{-1} b with device arrays (from GILUVecApplyDevice() of src/sys/device-vec.c); returns after the kernels completed */
  PetscErrorCode (*solve)(StructILUDevice, const PetscScalar *, PetscScalar *);
  /* X = (LU)^{-1} B on m columns of device arrays (B, its leading dimension, X, its leading dimension; X not B), each
     column bitwise what solve gives it, the columns of a group in one pair of sweeps (out: the group's columns);
     returns after the kernels completed */
  PetscErrorCode (*solvemultiple)(StructILUDevice, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt, PetscInt *);
  /* the device's own buffers for b and x of m columns (local size each, one after the other; grown when more are
     asked for), used when the vectors (dense matrices) are not CUDA ones */
  PetscErrorCode (*buffers)(StructILUDevice, PetscInt, void **, void **);
  PetscErrorCode (*destroy)(StructILUDevice *);
  /* kernel timing for the benchmark (tests/ex20.c, make gpu-perf): on, CUDA events are recorded around the launches
     of each sweep and of the factorization (not the uploads, not the host's work); times: milliseconds of the last
     forward sweep, backward sweep and factorization kernel since timing was switched on (-1: none ran) */
  PetscErrorCode (*timing)(StructILUDevice, PetscBool);
  PetscErrorCode (*kerneltimes)(StructILUDevice, double[3]);
} StructILUDeviceOps;

GILU_DEVICE_GETOPS_DECLARE(StructILUDeviceGetOps, StructILUDeviceOps)
/* The table of a resolved back-end (cuda or cudaemu; structilu-setup.c): for programs that drive the device API
   directly on a stencil matrix they assemble themselves (the kernel benchmark tests/ex20.c of the test library, whose
   emulated objects cannot see the library's internal _cudaemu names); exported at developer level */
PETSC_EXTERN PetscErrorCode StructILUDeviceGetBackendOps(PetscGILUBackendType, const StructILUDeviceOps **);

/* The performance model of one apply on the device (-ksp_view prints it, structilu.c; the benchmark of make gpu-perf
   puts it beside its measurements): 2 launches + the dependent steps of both sweeps x the latency of one step + the
   bytes moved / the bandwidth, in microseconds. The figures of its GPUs (gpu: the index in PCStructILUModelGPUs, h100
   h200): HBM bandwidth (GB/s), latency of one dependent step between blocks (flag write -> flag seen -> neighbour
   read, us), host-device bandwidth (GB/s). */
static inline void StructILUModelGPU(PetscInt gpu, double *bw, double *lat, double *link)
{
  const double BW[] = {3350.0, 4800.0}, Lat[] = {1.0, 1.0}, Link[] = {55.0, 55.0};

  *bw   = BW[gpu];
  *lat  = Lat[gpu];
  *link = Link[gpu];
}
/* the dependent steps of a sweep: its levels; with the lines mapping and a P-stage intra-row pipeline the first block
   starts P - 1 steps early (its earlier stages work ahead of the levels), so P - 1 more */
static inline PetscInt StructILUModelSteps(const StructILUDeviceInfo *di)
{
  return di->nlevels + (di->mapping == STRUCTILU_CUDA_MAPPING_LINES ? di->nstage - 1 : 0);
}
static inline double StructILUModelDeviceTime(PetscInt steps, double bytes, double bw, double lat)
{
  return 2 * 5.0 + 2.0 * steps * lat + bytes / (bw * 1e3);
}

#endif
