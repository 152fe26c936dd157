/*
   PCSTRUCTILU on CUDA: the factorization and the triangular solves on the device (or on the host through the
   emulation, cudaemu: the same source). The factorization performs the operations of src/mat/stencil/ilu.c in the same order
   for every element, so the factors and the solves give the host's results to round-off (the products of a row are
   summed in stencil order here).

   Files: this one holds the device's data, the uploads and the launches; the kernels are in structilu-kernels.h
   (included here, so built twice as this file is); the schedule is planned on the host, once, in structilu-plan.c
   (plain C: ChooseWeights(), ChooseLines(), ChooseStages(), the tiles and the blocks of lines).

   Schedule (the grid tier of the StructILU paper): level(i,j,k) = w.(i,j,k) with non-negative integer weights such
   that every lower offset l has w.l <= -1 and every upper offset u has w.u >= 1 (the affine hyperplane transformation;
   the weights of GILUStencilGetHyperplanes() are also checked against the upper offsets, and searched again if needed).
   Points of one level are independent in both sweeps. Two task mappings (-pc_structilu_cuda_mapping):
   - tiles (the default): the points are ordered by level (natural order within a level) and cut into tiles, at most
     `tilepoints` points of one level. The solves run a persistent grid (as many blocks as the device holds at once,
     TilesGrid()) whose blocks take tiles in order until none is left; the factorization one block per tile.
     Block-to-block waiting through a flag array: a tile's block waits once for each tile in its predecessor list
     (planned on the host, PlanPredecessors(): the tiles of its points' neighbours, those implied by another
     predecessor left out), the lanes of warp 0 polling with acquire loads (gilu_wait_acquire), then a barrier
     releases the block; when the tile is done, a barrier and one release of the sweep number into its flag
     (gilu_signal_release). The sweep numbers grow: never reset.
   - lines (Section 4.1, Figure 3): a unimodular M = [a; b; w - a - b] transforms the grid to (x^, y^, z^) with
     level = x^ + y^ + z^ and every lower offset at x^ <= 0, y^ <= 0 (ChooseLines()); a thread owns the line (x^, y^)
     along z^ (one point per level), a block owns linesx x linesy lines of the x^y^-plane and steps through its levels
     with its threads together (barriers between levels); before a level it waits until its predecessor blocks (the
     block offsets the stencil's lower offsets reach, derived from the stencil; upper ones backward) have completed the
     previous levels, on a per-block counter of completed levels (zeroed before each launch). The blocks are ordered by
     minimum effective level, each after its predecessors.
   One kernel per sweep (and one for the factorization), not per level, in both mappings.
   - why the waiting cannot deadlock: a block does not take its work unit (tile, block of lines) from blockIdx, whose
     dispatch order CUDA does not promise, but from a ticket (gilu_block_ticket: the order in which blocks start, as
     they become resident) that numbers the units in the order above: tiles by level (forward: increasing, backward:
     decreasing), blocks of lines after their predecessors. A unit waits only for units of smaller number, and those
     were taken by blocks that started before it, are resident or done, and are never preempted; so the unfinished unit
     of smallest number waits for nothing unfinished and completes, whatever the dispatch order and however many blocks
     are resident. The tickets count on in one device counter over all launches (BlockUnit(): minus the launch's base).
     The persistent blocks of the tiles' solves take their next tile while they work on the current one; the argument
     holds: the unfinished tile of smallest number cannot be a taken-but-not-started one (its block works on a tile of
     still smaller number), so it is being worked on, and everything it waits for is done.
   - the intra-row tier of the solves (ChooseStages): a row's off-diagonal products are split into P stages by how
     many levels back their neighbour lies; each stage has its own group of DoF threads per point. Lines: a group works
     that many levels ahead, so only the last stage (neighbours one level back) is left after the wait for the
     previous level. Tiles: the block waits once for all its predecessors, having loaded the factors of each group's
     first offsets before; the groups share the products after it. The partial sums are added in stage order
     (-pc_structilu_cuda_pipeline, default min(4, levels spanned), as Table 2 of the StructILU paper).
   - the intra-row tier of the factorization: by default each block of a row is computed once, from its contributions in
     increasing s ("pull", StructILUPlanRowSchedule()), accumulated in registers; the blocks of one intra-row level are
     independent and are dealt to up to 4 thread groups per point (tiles mapping; barriers between the levels). With the lines mapping, -pc_structilu_cuda_factor_pipeline runs the two-substage
     pipeline of Section 4.2.2 (Figure 4(c)-(f), StructILULinesFactorPipelined): substage 1 of a row (the part of its
     first two intra-row levels that reads only rows two or more levels back) runs one level step early, beside
     substage 2 of the rows of the previous level, with one barrier between them; each element still gets its updates
     in the sequential order, so the factors are the same.
   - DoF threads per grid point: thread a of a point computes row a of the point's block row; the diagonal-block
     products (IC's D^{-1} y, the backward sweep's D^{-1}) exchange the row sums through shared memory. DoF >= 5
     factorization (not pipelined): one warp per point on the FP64 tensor cores (-pc_structilu_cuda_mma).
   - memory: the factor blocks are stored level-ordered (the level-based memory transformation) in component planes
     (FactorBlock() in structilu-kernels.h: column c of every block of an offset together, the rows of a block side
     by side): the threads of a tile (lines: of a block at one level, ordered by y^ then x^ within a level), a point's
     rows on consecutive threads, read consecutive words of each offset's column at every DoF. Factors in double or
     single precision (the host's choice).

   Vectors: the solve takes device arrays from src/sys/device-vec.c: a CUDA vector's own (a CUDA-enabled PETSc),
   else this device's buffers b and x, with b copied in and x back in each apply (logged as GILUCopyToGPU /
   GILUCopyToCPU), as with Debian's host-only PETSc.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "structilu-cuda.h"
#include "structilu-kernels.h"
#include "structilu-factor-kernels.h"

struct _n_StructILUDevice {
  SolveArgs args; /* device pointers */
  int      *tileptr, *perm, *pos, *tileof, *off, *mirror, *flags, *stage;
  int      *tpredptr, *tpred;   /* tiles: per tile the tiles it waits for, forward (the solve and the factorization) then backward ranges; tpred points into tpredptr's allocation */
  int       tilegrid[2][64];    /* tiles: the persistent grid of each sweep (dir) and configuration (SolveBatch: + 32 for a block of columns), 0 until asked */
  PetscInt  nstage;             /* stages of the intra-row pipeline of the solves */
  void     *lval, *uval, *dinv; /* device: the factors the solves read: into val and dinvd (double factors computed on the device) or the buffers below */
  void     *ownl, *ownu, *ownd; /* device: single-precision copies or the host's factors, allocated once (grown if needed) */
  size_t    ownlb, ownub, owndb;
  void     *raw, *stagebuf; /* device and pinned host: one upload of natural-order values, permuted to level order on the device */
  size_t    rawb, stageb;
  int       permgrid;                    /* StructILUPermute's grid: the blocks the device holds at once, 0 until asked */
  int      *cptr, *cs, *cu, *tptr, *tgt; /* the factorization's per-target intra-row schedule (one allocation, cptr's) */
  PetscInt  nrowlev, ngroups, diaggroup; /* its levels, thread groups per point, the group of the diagonal block */
  double   *val, *dinvd;                 /* device factorization: the matrix values (all offsets) and the inverted diagonal, level-ordered */
  size_t    valb;
  int      *elimptr, *elimu, *elimt, *missptr, *missoff, *zerorow;
  PetscBool usedmma;   /* the last factorization ran on the tensor cores */
  double   *b, *x, *z; /* device vectors (z: IC's D^{-1} y, in level order, per component as xl) */
  PetscInt  bufcols;   /* the columns b and x hold (Buffers()) */
  double   *xl;        /* y, then x, in level order, component by component (xl[e N + pos]); a column after the other */
  PetscInt  xlcols;    /* the columns xl (and z, once allocated) hold: 1, more after a block of right-hand sides */
  PetscInt *hperm;     /* host copy of perm, for the level-ordered layout of the factors */
  PetscInt  ntiles, tilepoints, nthreads, dof, npoints, nl, nu;
  PetscInt  nlevels; /* hyperplane levels: the dependent steps of a sweep (the emulation's round trips per level) */
  int       sweep;   /* sweeps run (forward and backward each count) */
  PetscBool single, ic, hasfactors;
  size_t    blocks; /* npoints * dof * dof */
  /* the lines mapping (args.lines holds the device pointers) */
  StructILUCUDAMapping mapping;
  int                 *lpred, *lorder, *lblockid, *lbxy, *llmin, *llmax, *lflags;
  PetscInt             nlinethreads;   /* threads per block and stage: lines per block times dof */
  PetscInt             w[3];           /* the level weights */
  int                 *early, *pairs1; /* the two-substage pipelined factorization's substage-1 sets (made when first used) */
  PetscInt            *hptr, *het;     /* host copies of the elimination lists' ranges and targets, for them */
  StructILUDeviceInfo *info;           /* the caller's, filled by Create, the substage counts by Factor */
  int                 *ticket;         /* device: the blocks' tickets, counted over all launches (BlockUnit) */
  unsigned int         tickets;        /* the tickets taken so far: the next launch's base */
  PetscBool            ticketsreset;   /* the counter must be zeroed first (not yet set, or a launch did not complete) */
  cudaEvent_t          ev[6];          /* kernel timing (the timing op), NULL when off: before and after the launches of the forward sweep, the backward sweep, the factorization */
  PetscBool            evran[3];       /* which of the three ran since timing was switched on */
};

/* kernel timing, when on: event 2 p before and 2 p + 1 after the launches of phase p (0 forward sweep, 1 backward sweep, 2 factorization) */
static inline PetscErrorCode KernelTimerRecord(StructILUDevice dev, int k)
{
  PetscFunctionBegin;
  if (dev->ev[k]) {
    GILU_CUDA_CHECK(cudaEventRecord(dev->ev[k], 0));
    dev->evran[k / 2] = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Timing(StructILUDevice dev, PetscBool on)
{
  PetscFunctionBegin;
  for (int k = 0; k < 6; k++) {
    if (dev->ev[k]) GILU_CUDA_CHECK(cudaEventDestroy(dev->ev[k]));
    dev->ev[k] = NULL;
    if (on) GILU_CUDA_CHECK(cudaEventCreate(&dev->ev[k]));
  }
  for (int k = 0; k < 3; k++) dev->evran[k] = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KernelTimes(StructILUDevice dev, double ms[3])
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    float t = -1;

    if (dev->ev[2 * k] && dev->evran[k]) {
      GILU_CUDA_CHECK(cudaEventSynchronize(dev->ev[2 * k + 1]));
      GILU_CUDA_CHECK(cudaEventElapsedTime(&t, dev->ev[2 * k], dev->ev[2 * k + 1]));
    }
    ms[k] = (double)t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the base of the tickets of a launch of nblocks blocks (BlockUnit); TicketsEnd() after the launch completed */
static PetscErrorCode TicketsBegin(StructILUDevice dev, unsigned int nblocks, unsigned int *base)
{
  PetscFunctionBegin;
  if (dev->ticketsreset) {
    PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->ticket, 0, sizeof(int)));
    dev->tickets = 0;
  }
  *base = dev->tickets;
  dev->tickets += nblocks;
  dev->ticketsreset = PETSC_TRUE; /* until the launch is known to be complete */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline void TicketsEnd(StructILUDevice dev)
{
  dev->ticketsreset = PETSC_FALSE;
}

static PetscErrorCode CopyIntArray(const PetscInt *from, PetscInt n, int **dev)
{
  int *h;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &h));
  for (PetscInt t = 0; t < n; t++) h[t] = (int)from[t];
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)n, (void **)dev));
  gilu_mem_class(*dev, sizeof(int) * (size_t)n, INDEX);
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(*dev, h, sizeof(int) * (size_t)n));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lines mapping's blocks on the device (the plan's), and the kernels' view of them (args.lines) */
static PetscErrorCode UploadLines(StructILUDevice dev, const StructILUPlan *plan, PetscInt dof)
{
  const PetscInt nb = plan->nblocks;
  LinesMap      *m  = &dev->args.lines;

  PetscFunctionBegin;
  PetscCall(CopyIntArray(plan->lmin, nb, &dev->llmin));
  PetscCall(CopyIntArray(plan->lmax, nb, &dev->llmax));
  PetscCall(CopyIntArray(plan->blockid, plan->nbx * plan->nby, &dev->lblockid));
  PetscCall(CopyIntArray(plan->bxy, nb, &dev->lbxy));
  PetscCall(CopyIntArray(plan->order, 2 * nb, &dev->lorder));
  PetscCall(CopyIntArray(plan->pred, PetscMax(1, 2 * (plan->npred[0] + plan->npred[1])), &dev->lpred));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)nb, (void **)&dev->lflags));
  for (PetscInt e = 0; e < 9; e++) m->minv[e] = (int)plan->Minv[e];
  m->x0       = (int)plan->x0;
  m->y0       = (int)plan->y0;
  m->bx       = (int)plan->bx;
  m->by       = (int)plan->by;
  m->nbx      = (int)plan->nbx;
  m->nby      = (int)plan->nby;
  m->nblocks  = (int)nb;
  m->nlevels  = (int)plan->nlevels;
  m->npred[0] = (int)plan->npred[0];
  m->npred[1] = (int)plan->npred[1];
  m->pred     = dev->lpred;
  m->order    = dev->lorder;
  m->blockid  = dev->lblockid;
  m->bxy      = dev->lbxy;
  m->lmin     = dev->llmin;
  m->lmax     = dev->llmax;
  m->flags    = dev->lflags;

  dev->nlinethreads = plan->bx * plan->by * dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device schedule (planned on the host: structilu-plan.c) and the device's arrays */
static PetscErrorCode Create(const GILUStencilMat *sm, StructILUCUDAMapping mapping, PetscInt tilepoints, PetscInt pipeline, PetscBool nowait, StructILUDevice *devp, StructILUDeviceInfo *info)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     N = sm->npoints, d = g->dof;
  StructILUDevice    dev;
  StructILUPlan      plan;
  PetscInt           ntiles, off[3 * GILU_STENCIL_MAX_OFFSETS];

  PetscFunctionBegin;
  PetscCheck(d >= 1 && d <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA kernels of PCSTRUCTILU take 1 to %d DoF per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, d);
  PetscCheck(N < INT_MAX / GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "The local grid is too large for the CUDA kernels' 32-bit indices");
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  PetscCall(StructILUPlanCreate(sm, mapping, tilepoints, pipeline, &plan, info));
  PetscCall(PetscNew(&dev));
  if (mapping == STRUCTILU_CUDA_MAPPING_LINES) PetscCall(UploadLines(dev, &plan, d));
  ntiles          = plan.ntiles;
  dev->mapping    = mapping;
  dev->ntiles     = ntiles;
  dev->nlevels    = plan.nlevels;
  dev->tilepoints = plan.tilepoints;
  dev->nthreads   = plan.tilepoints * d;
  dev->dof        = d;
  dev->npoints    = N;
  dev->nl         = st->nlower;
  dev->nu         = st->ns - st->nlower - 1;
  dev->blocks     = (size_t)N * d * d;
  for (PetscInt s = 0; s < st->ns; s++)
    for (PetscInt c = 0; c < 3; c++) off[3 * s + c] = st->off[s][c];
  PetscCall(CopyIntArray(plan.tileptr, ntiles + 1, &dev->tileptr));
  PetscCall(CopyIntArray(plan.perm, N, &dev->perm));
  PetscCall(CopyIntArray(plan.pos, N, &dev->pos));
  PetscCall(CopyIntArray(plan.tileof, N, &dev->tileof));
  PetscCall(CopyIntArray(off, 3 * st->ns, &dev->off));
  PetscCall(CopyIntArray(plan.stage, st->ns, &dev->stage));
  if (mapping == STRUCTILU_CUDA_MAPPING_TILES) { /* one upload: the forward ranges, the backward ones (shifted), the lists */
    const PetscInt nf = plan.tpredptr[0][ntiles], nb = plan.tpredptr[1][ntiles];
    PetscInt      *all;

    PetscCall(PetscMalloc1(2 * (ntiles + 1) + nf + nb, &all));
    for (PetscInt t = 0; t <= ntiles; t++) {
      all[t]              = plan.tpredptr[0][t];
      all[ntiles + 1 + t] = nf + plan.tpredptr[1][t];
    }
    PetscCall(PetscArraycpy(all + 2 * (ntiles + 1), plan.tpred[0], nf));
    PetscCall(PetscArraycpy(all + 2 * (ntiles + 1) + nf, plan.tpred[1], nb));
    PetscCall(CopyIntArray(all, 2 * (ntiles + 1) + nf + nb, &dev->tpredptr));
    PetscCall(PetscFree(all));
    dev->tpred = dev->tpredptr + 2 * (ntiles + 1);
  }
  dev->nstage = plan.nstage;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)ntiles, (void **)&dev->flags));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int), (void **)&dev->ticket));
  dev->ticketsreset = PETSC_TRUE;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->flags, 0, sizeof(int) * (size_t)ntiles));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->b));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->x));
  gilu_mem_class(dev->b, sizeof(double) * (size_t)N * d, VECTOR);
  gilu_mem_class(dev->x, sizeof(double) * (size_t)N * d, VECTOR);
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->xl));
  gilu_mem_class(dev->xl, sizeof(double) * (size_t)N * d, VECTOR);
  PetscCall(PetscMalloc1(N, &dev->hperm));
  PetscCall(PetscArraycpy(dev->hperm, plan.perm, N));
  for (PetscInt c = 0; c < 3; c++) dev->w[c] = plan.w[c];
  PetscCall(StructILUPlanDestroy(&plan));

  dev->args.n[0]     = (int)g->n[0];
  dev->args.n[1]     = (int)g->n[1];
  dev->args.n[2]     = (int)g->n[2];
  dev->args.dof      = (int)d;
  dev->args.ns       = (int)st->ns;
  dev->args.nl       = (int)st->nlower;
  dev->args.npoints  = (int)N;
  dev->args.nowait   = nowait ? 1 : 0;
  dev->args.tileptr  = dev->tileptr;
  dev->args.perm     = dev->perm;
  dev->args.pos      = dev->pos;
  dev->args.tpredptr = dev->tpredptr;
  dev->args.tpred    = dev->tpred;
  dev->args.off      = dev->off;
  dev->args.b        = dev->b;
  dev->args.x        = dev->x;
  dev->args.xl       = dev->xl;
  dev->args.ncols    = 1;
  dev->xlcols        = 1;
  dev->bufcols       = 1;
  dev->args.flags    = dev->flags;
  dev->args.ticket   = dev->ticket;
  dev->args.ntiles   = (int)ntiles;
  dev->args.nstage   = (int)dev->nstage;
  dev->args.stage    = dev->stage;
  *devp              = dev;

  dev->info    = info;
  info->nowait = nowait;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *p holds at least bytes (device memory; kept across factorizations, grown only when a larger one is asked for); it
   holds factor values (or their staging copy), which the emulation's counters class as such */
static PetscErrorCode EnsureDevice(void **p, size_t *have, size_t bytes)
{
  PetscFunctionBegin;
  if (*p && *have >= bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(p));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(bytes, p));
  gilu_mem_class(*p, bytes, FACTOR);
  *have = bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *g, once (0 until asked): a persistent grid of kernel k, the blocks the device holds at once (multiprocessors times
   the blocks of k per multiprocessor at this size), at most cap */
template <class K>
static PetscErrorCode ResidentGrid(K *kernel, int threads, size_t shmem, PetscInt cap, int *g)
{
  PetscFunctionBegin;
  if (!*g) {
    int device, sms, per;

    GILU_CUDA_CHECK(cudaGetDevice(&device));
    GILU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GILU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, shmem));
    PetscCheck(per >= 1, PETSC_COMM_SELF, PETSC_ERR_GPU, "No block of %d threads and %zu bytes of shared memory fits a multiprocessor", threads, shmem);
    *g = (int)PetscMin((PetscInt)sms * per, cap);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  noffsets blocks of each point stored one offset after the other, natural order, row-major blocks (host) -> level
  order in component planes (FactorBlock(); device, *devp, allocated once): one copy into a pinned buffer, one upload, the permutation by StructILUPermute on the device (the
  staging buffers are kept for the next factorization of this pattern)
*/
static PetscErrorCode UploadLevelOrdered(StructILUDevice dev, const void *host, PetscInt noffsets, PetscBool single, void **devp, size_t *have)
{
  const size_t elt = single ? sizeof(float) : sizeof(double), bb = (size_t)(dev->dof * dev->dof);
  const size_t n = bb * (size_t)dev->npoints * (size_t)noffsets, bytes = elt * n;
  const dim3   block(GILU_PERMUTE_THREADS);
  dim3         grid;

  PetscFunctionBegin;
  if (!noffsets) PetscFunctionReturn(PETSC_SUCCESS);
  /* the double kernel's grid (the float one's shared memory is half): each block takes several chunks */
  PetscCall(ResidentGrid(StructILUPermute<double>, GILU_PERMUTE_THREADS, 0, INT_MAX, &dev->permgrid));
  grid = dim3((unsigned int)dev->permgrid);
  PetscCall(EnsureDevice(devp, have, bytes));
  PetscCall(EnsureDevice(&dev->raw, &dev->rawb, bytes));
  if (!dev->stagebuf || dev->stageb < bytes) {
    if (dev->stagebuf) GILU_CUDA_CHECK(cudaFreeHost(dev->stagebuf));
    dev->stagebuf = NULL;
    GILU_CUDA_CHECK(cudaMallocHost(&dev->stagebuf, bytes));
    dev->stageb = bytes;
  }
  PetscCall(PetscMemcpy(dev->stagebuf, host, bytes));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->raw, dev->stagebuf, bytes));
  if (single) PetscCall(GILU_LAUNCH(StructILUPermute<float>, grid, block, 0, 0, (const float *)dev->raw, (float *)*devp, dev->perm, (int)dev->npoints, (int)dev->dof, (int)noffsets));
  else PetscCall(GILU_LAUNCH(StructILUPermute<double>, grid, block, 0, 0, (const double *)dev->raw, (double *)*devp, dev->perm, (int)dev->npoints, (int)dev->dof, (int)noffsets));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the z of IC's forward sweep (allocated when the factors are IC's), as many columns as xl */
static PetscErrorCode EnsureZ(StructILUDevice dev)
{
  const size_t bytes = sizeof(double) * (size_t)dev->npoints * dev->dof * dev->xlcols;

  PetscFunctionBegin;
  if (!dev->z) {
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(bytes, (void **)&dev->z));
    gilu_mem_class(dev->z, bytes, VECTOR);
  }
  dev->args.z = dev->z;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetFactors(StructILUDevice dev, const StructILUFactors *F)
{
  PetscFunctionBegin;
  dev->single = F->single;
  dev->ic     = F->ic;
  PetscCall(UploadLevelOrdered(dev, F->ic ? NULL : F->lval, F->ic ? 0 : dev->nl, F->single, &dev->ownl, &dev->ownlb));
  PetscCall(UploadLevelOrdered(dev, F->uval, dev->nu, F->single, &dev->ownu, &dev->ownub));
  PetscCall(UploadLevelOrdered(dev, F->dinv, 1, F->single, &dev->ownd, &dev->owndb));
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  dev->lval = F->ic ? NULL : dev->ownl;
  dev->uval = dev->ownu;
  dev->dinv = dev->ownd;
  if (F->ic) {
    if (!dev->mirror) PetscCall(CopyIntArray(F->mirror, dev->args.ns, &dev->mirror));
    PetscCall(EnsureZ(dev));
  }
  dev->args.ic     = F->ic ? 1 : 0;
  dev->args.lval   = dev->lval;
  dev->args.uval   = dev->uval;
  dev->args.dinv   = dev->dinv;
  dev->args.mirror = dev->mirror;
  dev->args.z      = dev->z;
  dev->hasfactors  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the persistent grid of the tiles' sweep kernel k (ResidentGrid(), at most the tiles); asked once per sweep and
   configuration */
template <class K>
static PetscErrorCode TilesGrid(StructILUDevice dev, K *kernel, int dir, int cfg, int threads, size_t shmem, unsigned int *grid)
{
  PetscFunctionBegin;
  PetscCall(ResidentGrid(kernel, threads, shmem, dev->ntiles, &dev->tilegrid[dir][cfg]));
  *grid = (unsigned int)dev->tilegrid[dir][cfg];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tiles' blocks take grid tickets to start and one more per tile (the last one finds none left); the kernel timer's
   start right before the launch (after the host's work) */
#define LAUNCH_CASE(cfg) \
  case cfg: \
    if (lines) { \
      PetscCall(TicketsBegin(dev, grid.x, &dev->args.ticketbase)); \
      PetscCall(KernelTimerRecord(dev, forward ? 0 : 2)); \
      PetscCall(GILU_LAUNCH(StructILULinesSolve<cfg>, grid, block, shmem, 0, dev->args, forward ? 0 : 1)); \
    } else if (forward) { \
      PetscCall(TilesGrid(dev, StructILUForward<cfg>, 0, cfg, (int)block.x, shmem, &grid.x)); \
      PetscCall(TicketsBegin(dev, grid.x + (unsigned int)dev->ntiles, &dev->args.ticketbase)); \
      PetscCall(KernelTimerRecord(dev, 0)); \
      PetscCall(GILU_LAUNCH(StructILUForward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    } else { \
      PetscCall(TilesGrid(dev, StructILUBackward<cfg>, 1, cfg, (int)block.x, shmem, &grid.x)); \
      PetscCall(TicketsBegin(dev, grid.x + (unsigned int)dev->ntiles, &dev->args.ticketbase)); \
      PetscCall(KernelTimerRecord(dev, 2)); \
      PetscCall(GILU_LAUNCH(StructILUBackward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    } \
    break;

static PetscErrorCode Sweep(StructILUDevice dev, PetscBool forward)
{
  const int      cfg = (int)dev->dof + (dev->single ? 16 : 0) + (dev->args.ncols > 1 ? 32 : 0), sweep = ++dev->sweep, lines = dev->mapping == STRUCTILU_CUDA_MAPPING_LINES;
  const PetscInt nt = lines ? dev->nlinethreads : dev->nthreads, P = dev->nstage;
  dim3           grid((unsigned int)(lines ? dev->args.lines.nblocks : dev->ntiles)), block((unsigned int)(nt * P));
  const size_t   shmem = sizeof(double) * (size_t)(lines ? (P * P + 1) * nt * dev->args.ncols : nt * P * (dev->args.ncols > 1 ? GILU_SOLVE_COLUMNS : 1));

  PetscFunctionBegin;
  PetscCheck(nt * P <= GILU_TILE_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " threads per block exceed the solve kernels' bound", nt * P);
  if (lines) PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->lflags, 0, sizeof(int) * (size_t)dev->args.lines.nblocks));
  gilu_launch_levels(dev->nlevels);
  switch (cfg) {
    LAUNCH_CASE(1)
    LAUNCH_CASE(2)
    LAUNCH_CASE(3)
    LAUNCH_CASE(4)
    LAUNCH_CASE(5)
    LAUNCH_CASE(6)
    LAUNCH_CASE(7)
    LAUNCH_CASE(8)
    LAUNCH_CASE(17)
    LAUNCH_CASE(18)
    LAUNCH_CASE(19)
    LAUNCH_CASE(20)
    LAUNCH_CASE(21)
    LAUNCH_CASE(22)
    LAUNCH_CASE(23)
    LAUNCH_CASE(24)
    LAUNCH_CASE(33) /* blocks of right-hand sides (SolveBatch) */
    LAUNCH_CASE(34)
    LAUNCH_CASE(35)
    LAUNCH_CASE(36)
    LAUNCH_CASE(37)
    LAUNCH_CASE(38)
    LAUNCH_CASE(39)
    LAUNCH_CASE(40)
    LAUNCH_CASE(49)
    LAUNCH_CASE(50)
    LAUNCH_CASE(51)
    LAUNCH_CASE(52)
    LAUNCH_CASE(53)
    LAUNCH_CASE(54)
    LAUNCH_CASE(55)
    LAUNCH_CASE(56)
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No StructILU kernel for %d DoF", (int)dev->dof);
  }
  PetscCall(KernelTimerRecord(dev, forward ? 1 : 3));
  TicketsEnd(dev);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* both sweeps on ncols columns (device arrays, leading dimensions ldb and ldx), queued: the caller synchronizes */
static PetscErrorCode Sweeps(StructILUDevice dev, PetscInt ncols, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx)
{
  PetscFunctionBegin;
  PetscCheck(dev->sweep < INT_MAX - 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many sweeps for the 32-bit flags");
  dev->args.b     = (const double *)b;
  dev->args.x     = (double *)x;
  dev->args.ncols = (int)ncols;
  dev->args.ldb   = (size_t)ldb;
  dev->args.ldx   = (size_t)ldx;
  PetscCall(Sweep(dev, PETSC_TRUE));
  PetscCall(Sweep(dev, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b and x are device arrays of npoints * dof values: the device's buffers or the vectors' own (device-vec.c) */
static PetscErrorCode Solve(StructILUDevice dev, const PetscScalar *b, PetscScalar *x)
{
  const size_t n = (size_t)dev->npoints * dev->dof;

  PetscFunctionBegin;
  PetscCheck(dev->hasfactors, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The device has no factors yet");
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(Sweeps(dev, 1, b, (PetscInt)n, x, (PetscInt)n));
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(GILULogDeviceFlops(2.0 * (double)n * dev->dof * (double)(dev->nl + dev->nu + 1 + (dev->ic ? 1 : 0))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  X = (LU)^{-1} B on m columns (device arrays, leading dimensions ldb, ldx >= npoints dof; x not b), each column what
  Solve() gives it, bitwise: the sweeps take every column of a group between one wait and one release of a tile (a
  level of a block of lines), so the factors are read once per group and the dependent steps are a sweep's, not m
  sweeps'. The tiles' sweeps take all m columns in one pair of launches; the lines' rings and row sums are per column
  in shared memory, so their groups hold as many columns as fit the 48 KiB a block gets without asking. *group: the
  columns of a group.
*/
static PetscErrorCode SolveMultiple(StructILUDevice dev, PetscInt m, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx, PetscInt *group)
{
  const size_t   n = (size_t)dev->npoints * dev->dof;
  const PetscInt P = dev->nstage, percol = (P * P + 1) * dev->nlinethreads * (PetscInt)sizeof(double);
  PetscInt       mc;

  PetscFunctionBegin;
  PetscCheck(dev->hasfactors, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The device has no factors yet");
  PetscCheck(ldb >= (PetscInt)n && ldx >= (PetscInt)n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Leading dimensions %" PetscInt_FMT " and %" PetscInt_FMT " below the local size %zu", ldb, ldx, n);
  mc = dev->mapping == STRUCTILU_CUDA_MAPPING_LINES ? PetscMax(1, PetscMin(m, (48 * 1024) / percol)) : m;
  if (mc > dev->xlcols) { /* xl (and z) grown to the group's columns, kept for the next block */
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->xl));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * n * mc, (void **)&dev->xl));
    gilu_mem_class(dev->xl, sizeof(double) * n * mc, VECTOR);
    dev->args.xl = dev->xl;
    dev->xlcols  = mc;
    if (dev->z) {
      PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->z));
      PetscCall(EnsureZ(dev));
    }
  }
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt c = 0; c < m; c += mc) PetscCall(Sweeps(dev, PetscMin(mc, m - c), b + c * ldb, ldb, x + c * ldx, ldx));
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(GILULogDeviceFlops(2.0 * (double)m * (double)n * dev->dof * (double)(dev->nl + dev->nu + 1 + (dev->ic ? 1 : 0))));
  *group = mc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the substage-1 sets of the two-substage pipelined factorization (StructILUPlanSubstages()) on the device */
static PetscErrorCode SubstageSets(StructILUDevice dev, const GILUStencil *st, PetscBool ic)
{
  const PetscInt nl = st->nlower, n = dev->hptr[nl];
  PetscInt      *early, *pairs1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nl + 1, &early, n + 1, &pairs1));
  PetscCall(StructILUPlanSubstages(st, dev->w, ic, dev->hptr, dev->het, early, pairs1, dev->info));
  PetscCall(CopyIntArray(early, nl + 1, &dev->early));
  PetscCall(CopyIntArray(pairs1, n + 1, &dev->pairs1));
  PetscCall(PetscFree2(early, pairs1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define FACTOR_PIPELINED_CASE(D) \
  case D: \
    PetscCall(GILU_LAUNCH(StructILULinesFactorPipelined<D>, lgrid, lblock, lshmem, 0, k)); \
    break;
#define FACTOR_LINES_CASE(D) \
  case -(D): \
    PetscCall(GILU_LAUNCH(StructILULinesFactor<D>, lgrid, lblock, lshmem, 0, k)); \
    break;
#define FACTOR_LINES_CASE_MMA(D) \
  case -(D): \
    PetscCall(GILU_LAUNCH(StructILULinesFactor<D>, lgrid, lblock, lshmem, 0, k)); \
    break; \
  case D: \
    PetscCall(GILU_LAUNCH(StructILULinesFactorMMA<D>, lgrid, lblock, 0, 0, k)); \
    break;

/*
  The factorization on the device: the values of sm (natural order) are copied level-ordered, factored in place by
  StructILUFactorKernel with the schedule of the solves, and kept as the factors the solves read (a float copy for
  single-precision factors). elim: the elimination table of the stencil; mirror: IC's opposite offsets, or NULL.
*/
static PetscErrorCode Factor(StructILUDevice dev, const GILUStencilMat *sm, const PetscInt *elim, const PetscInt *mirror, PetscReal zeropivot, PetscBool single, PetscBool mma, PetscBool pipelined, PetscInt *zerorow, PetscBool *usedmma, PetscInt *rangerow)
{
  const PetscInt ns = sm->stencil.ns, nl = sm->stencil.nlower, d = dev->dof;
  const size_t   blocks = dev->blocks;
  FactorArgs     k;
  int            zr = INT_MAX, sweep;
  const dim3     grid((unsigned int)dev->ntiles);

  PetscFunctionBegin;
  *rangerow    = -1;
  dev->usedmma = PETSC_FALSE;
  dev->single  = PETSC_FALSE; /* the values are uploaded in double */
  dev->ic      = (PetscBool)(mirror != NULL);
  if (!dev->elimptr) { /* the symbolic part: elimination lists (IC: only the diagonal and upper targets), absent positions */
    PetscInt *ptr, *eu, *et, n;

    PetscCall(PetscMalloc3(nl + 1, &ptr, nl * ns + 1, &eu, nl * ns + 1, &et));
    PetscCall(StructILUPlanEliminations(&sm->stencil, elim, (PetscBool)(mirror != NULL), ptr, eu, et));
    n = ptr[nl];
    PetscCall(CopyIntArray(ptr, nl + 1, &dev->elimptr));
    PetscCall(CopyIntArray(eu, n + 1, &dev->elimu));
    PetscCall(CopyIntArray(et, n + 1, &dev->elimt));
    PetscCall(PetscMalloc2(nl + 1, &dev->hptr, n + 1, &dev->het)); /* kept for SubstageSets() */
    PetscCall(PetscArraycpy(dev->hptr, ptr, nl + 1));
    PetscCall(PetscArraycpy(dev->het, et, n + 1));
    { /* the per-target intra-row schedule; the tiles mapping gives each point up to 4 thread groups within the kernel's bound */
      const PetscInt G = dev->mapping == STRUCTILU_CUDA_MAPPING_TILES ? PetscMax(1, PetscMin(4, GILU_TILE_MAX_THREADS / dev->nthreads)) : 1;
      PetscInt      *cptr, *cs, *cu, *tptr, *tgt;

      PetscCall(PetscMalloc5(ns + 1, &cptr, n + 1, &cs, n + 1, &cu, ns * G + 1, &tptr, ns, &tgt));
      PetscCall(StructILUPlanRowSchedule(&sm->stencil, ptr, eu, et, (PetscBool)(mirror != NULL), G, cptr, cs, cu, tptr, tgt, &dev->nrowlev));
      dev->ngroups   = G;
      dev->diaggroup = 0;
      for (PetscInt v = 0; v < dev->nrowlev; v++)
        for (PetscInt gg = 0; gg < G; gg++)
          for (PetscInt e = tptr[v * G + gg]; e < tptr[v * G + gg + 1]; e++)
            if (tgt[e] == nl) dev->diaggroup = gg;
      { /* one upload: cptr, cs, cu, tptr, tgt one after the other */
        const PetscInt nt = dev->nrowlev * G + 1, len = (ns + 1) + 2 * (n + 1) + nt + ns;
        PetscInt      *all;

        PetscCall(PetscMalloc1(len, &all));
        PetscCall(PetscArraycpy(all, cptr, ns + 1));
        PetscCall(PetscArraycpy(all + ns + 1, cs, n + 1));
        PetscCall(PetscArraycpy(all + ns + 1 + n + 1, cu, n + 1));
        PetscCall(PetscArraycpy(all + ns + 1 + 2 * (n + 1), tptr, nt));
        PetscCall(PetscArraycpy(all + ns + 1 + 2 * (n + 1) + nt, tgt, ns));
        PetscCall(CopyIntArray(all, len, &dev->cptr));
        PetscCall(PetscFree(all));
        dev->cs   = dev->cptr + ns + 1;
        dev->cu   = dev->cs + n + 1;
        dev->tptr = dev->cu + n + 1;
        dev->tgt  = dev->tptr + nt;
      }
      PetscCall(PetscFree5(cptr, cs, cu, tptr, tgt));
    }
    PetscCall(PetscFree3(ptr, eu, et));
    if (sm->missptr) {
      PetscCall(CopyIntArray(sm->missptr, dev->npoints + 1, &dev->missptr));
      PetscCall(CopyIntArray(sm->missoff, PetscMax(sm->missptr[dev->npoints], 1), &dev->missoff));
    }
    if (mirror && !dev->mirror) PetscCall(CopyIntArray(mirror, ns, &dev->mirror));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int), (void **)&dev->zerorow));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * blocks, (void **)&dev->dinvd));
    gilu_mem_class(dev->dinvd, sizeof(double) * blocks, FACTOR);
  }
  PetscCall(UploadLevelOrdered(dev, sm->val, ns, PETSC_FALSE, (void **)&dev->val, &dev->valb));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->zerorow, &zr, sizeof(int)));
  k.n[0]      = dev->args.n[0];
  k.n[1]      = dev->args.n[1];
  k.n[2]      = dev->args.n[2];
  k.ns        = (int)ns;
  k.nl        = (int)nl;
  k.npoints   = (int)dev->npoints;
  k.ic        = mirror ? 1 : 0;
  k.nowait    = dev->args.nowait;
  k.tileptr   = dev->tileptr;
  k.perm      = dev->perm;
  k.pos       = dev->pos;
  k.tileof    = dev->tileof;
  k.off       = dev->off;
  k.mirror    = dev->mirror;
  k.elimptr   = dev->elimptr;
  k.elimu     = dev->elimu;
  k.elimt     = dev->elimt;
  k.missptr   = dev->missptr;
  k.missoff   = dev->missoff;
  k.val       = dev->val;
  k.dinv      = dev->dinvd;
  k.flags     = dev->flags;
  k.zerorow   = dev->zerorow;
  k.zeropivot = (double)zeropivot;
  sweep       = ++dev->sweep;
  if (pipelined && !dev->early) PetscCall(SubstageSets(dev, &sm->stencil, (PetscBool)(mirror != NULL)));
  k.early     = dev->early;
  k.pairs1    = dev->pairs1;
  k.ticket    = dev->ticket;
  k.predptr   = dev->tpredptr; /* the forward ranges */
  k.pred      = dev->tpred;
  k.cptr      = dev->cptr;
  k.cs        = dev->cs;
  k.cu        = dev->cu;
  k.tptr      = dev->tptr;
  k.tgt       = dev->tgt;
  k.nrowlev   = (int)dev->nrowlev;
  k.ngroups   = (int)dev->ngroups;
  k.diaggroup = (int)dev->diaggroup;
  /* one warp per point on the tensor cores from DoF 5: at DoF 4 an m8n8k4 MMA pads each 4 x 4 product to 8 x 8 (a
     quarter of its work useful, at twice the FP64 rate of the CUDA cores: half their useful rate), and a warp per
     point holds 8 times fewer points than the 4 threads per point of the scalar kernel */
  dev->usedmma = (PetscBool)(!pipelined && mma && d >= 5 && 32 * dev->tilepoints <= GILU_WARP_MAX_THREADS);
  PetscCheck(!pipelined || dev->mapping == STRUCTILU_CUDA_MAPPING_LINES, PETSC_COMM_SELF, PETSC_ERR_SUP, "The two-substage pipelined factorization (-pc_structilu_cuda_factor_pipeline) runs on the lines mapping: add -pc_structilu_cuda_mapping lines");
  PetscCheck(!pipelined || 2 * dev->nlinethreads <= GILU_TILE_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The two-substage pipelined factorization needs 2 x lines per block x DoF = %" PetscInt_FMT " threads per block, more than %d: use fewer -pc_structilu_cuda_tile_points",
             2 * dev->nlinethreads, GILU_TILE_MAX_THREADS);
  /* the block of the kernel below within its __launch_bounds__ */
  {
    const PetscInt points  = dev->mapping == STRUCTILU_CUDA_MAPPING_LINES ? dev->nlinethreads / d : dev->tilepoints; /* lines: lines per block */
    const PetscInt threads = pipelined ? 2 * points * d : (dev->usedmma ? 32 : d * dev->ngroups) * points;

    PetscCheck(threads <= (dev->usedmma ? GILU_WARP_MAX_THREADS : GILU_TILE_MAX_THREADS), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " threads per block exceed the factorization kernel's bound", threads);
  }
  PetscCall(TicketsBegin(dev, (unsigned int)(dev->mapping == STRUCTILU_CUDA_MAPPING_LINES ? dev->args.lines.nblocks : dev->ntiles), &k.ticketbase));
  PetscCall(KernelTimerRecord(dev, 4));
  gilu_launch_levels(dev->nlevels);
  if (pipelined) {
    const dim3   lgrid((unsigned int)dev->args.lines.nblocks), lblock((unsigned int)(2 * dev->nlinethreads));
    const size_t lshmem = 5 * sizeof(double) * (size_t)dev->nlinethreads; /* the inversion: 5 D doubles per line */

    k.lines = dev->args.lines;
    PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->lflags, 0, sizeof(int) * (size_t)dev->args.lines.nblocks));
    switch (d) {
      FACTOR_PIPELINED_CASE(1)
      FACTOR_PIPELINED_CASE(2)
      FACTOR_PIPELINED_CASE(3)
      FACTOR_PIPELINED_CASE(4)
      FACTOR_PIPELINED_CASE(5)
      FACTOR_PIPELINED_CASE(6)
      FACTOR_PIPELINED_CASE(7)
      FACTOR_PIPELINED_CASE(8)
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No StructILU factorization kernel for %d DoF", (int)d);
    }
  } else if (dev->mapping == STRUCTILU_CUDA_MAPPING_LINES) {
    const dim3   lgrid((unsigned int)dev->args.lines.nblocks), lblock((unsigned int)(dev->usedmma ? 32 * (dev->nlinethreads / d) : dev->nlinethreads));
    const size_t lshmem = dev->usedmma ? 0 : 5 * sizeof(double) * (size_t)dev->nlinethreads;

    k.lines = dev->args.lines;
    PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->lflags, 0, sizeof(int) * (size_t)dev->args.lines.nblocks));
    switch (dev->usedmma ? d : -d) {
      FACTOR_LINES_CASE(1)
      FACTOR_LINES_CASE(2)
      FACTOR_LINES_CASE(3)
      FACTOR_LINES_CASE(4)
      FACTOR_LINES_CASE_MMA(5)
      FACTOR_LINES_CASE_MMA(6)
      FACTOR_LINES_CASE_MMA(7)
      FACTOR_LINES_CASE_MMA(8)
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No StructILU factorization kernel for %d DoF", (int)d);
    }
  } else if (dev->usedmma) {
    const dim3 wblock((unsigned int)(32 * dev->tilepoints));

    // clang-format off: one template instance a line, by DoF
    switch (d) {
    case 5: PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<5>, grid, wblock, 0, 0, k, sweep)); break;
    case 6: PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<6>, grid, wblock, 0, 0, k, sweep)); break;
    case 7: PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<7>, grid, wblock, 0, 0, k, sweep)); break;
    default: PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<8>, grid, wblock, 0, 0, k, sweep));
    }
    // clang-format on
  } else {
    const dim3   block((unsigned int)(dev->nthreads * dev->ngroups));
    const size_t shmem = 5 * sizeof(double) * (size_t)dev->nthreads; /* the inversion: 5 D doubles per point */

    // clang-format off: one template instance a line, by DoF
    switch (d) {
    case 1: PetscCall(GILU_LAUNCH(StructILUFactorKernel<1>, grid, block, shmem, 0, k, sweep)); break;
    case 2: PetscCall(GILU_LAUNCH(StructILUFactorKernel<2>, grid, block, shmem, 0, k, sweep)); break;
    case 3: PetscCall(GILU_LAUNCH(StructILUFactorKernel<3>, grid, block, shmem, 0, k, sweep)); break;
    case 4: PetscCall(GILU_LAUNCH(StructILUFactorKernel<4>, grid, block, shmem, 0, k, sweep)); break;
    case 5: PetscCall(GILU_LAUNCH(StructILUFactorKernel<5>, grid, block, shmem, 0, k, sweep)); break;
    case 6: PetscCall(GILU_LAUNCH(StructILUFactorKernel<6>, grid, block, shmem, 0, k, sweep)); break;
    case 7: PetscCall(GILU_LAUNCH(StructILUFactorKernel<7>, grid, block, shmem, 0, k, sweep)); break;
    default: PetscCall(GILU_LAUNCH(StructILUFactorKernel<8>, grid, block, shmem, 0, k, sweep));
    }
    // clang-format on
  }
  PetscCall(KernelTimerRecord(dev, 5));
  TicketsEnd(dev);
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToHost)(&zr, dev->zerorow, sizeof(int)));
  *zerorow = zr == INT_MAX ? -1 : (PetscInt)zr;
  *usedmma = dev->usedmma;
  PetscCall(GILULogDeviceFlops((PetscLogDouble)dev->npoints * 2.0 * d * d * d * (ns + 1)));
  /* the factors the solves read */
  if (!single) {
    dev->lval = dev->val;
    dev->uval = dev->val + (size_t)(nl + 1) * blocks;
    dev->dinv = dev->dinvd;
  } else { /* the smallest level-ordered scalar row with a value beyond float's range lands in the zero pivot's flag */
    const size_t nlo = mirror ? 0 : (size_t)nl * blocks, nup = (size_t)(ns - nl - 1) * blocks;
    const dim3   cgrid(256), cblock(256);
    const int    np = (int)dev->npoints;

    zr = INT_MAX;
    PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->zerorow, &zr, sizeof(int)));
    dev->lval = NULL;
    if (nlo) {
      PetscCall(EnsureDevice(&dev->ownl, &dev->ownlb, sizeof(float) * nlo));
      dev->lval = dev->ownl;
      PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, dev->val, (float *)dev->lval, nlo, (int)d, np, dev->zerorow));
    }
    PetscCall(EnsureDevice(&dev->ownu, &dev->ownub, sizeof(float) * nup));
    dev->uval = dev->ownu;
    PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, dev->val + (size_t)(nl + 1) * blocks, (float *)dev->uval, nup, (int)d, np, dev->zerorow));
    PetscCall(EnsureDevice(&dev->ownd, &dev->owndb, sizeof(float) * blocks));
    dev->dinv = dev->ownd;
    PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, (const double *)dev->dinvd, (float *)dev->dinv, blocks, (int)d, np, dev->zerorow));
    GILU_CUDA_CHECK(cudaDeviceSynchronize());
    PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToHost)(&zr, dev->zerorow, sizeof(int)));
    if (zr != INT_MAX) *rangerow = dev->hperm[zr / d] * d + zr % d; /* the level-ordered point's natural one */
    dev->single = PETSC_TRUE;
  }
  if (mirror) PetscCall(EnsureZ(dev));
  dev->args.ic     = mirror ? 1 : 0;
  dev->args.lval   = dev->lval;
  dev->args.uval   = dev->uval;
  dev->args.dinv   = dev->dinv;
  dev->args.mirror = dev->mirror;
  dev->args.z      = dev->z;
  dev->hasfactors  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy(StructILUDevice *devp)
{
  StructILUDevice dev = *devp;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Timing(dev, PETSC_FALSE));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->ownl));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->ownu));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->ownd));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->raw));
  if (dev->stagebuf) GILU_CUDA_CHECK(cudaFreeHost(dev->stagebuf));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->cptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->val));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->dinvd));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->elimptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->elimu));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->elimt));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->missptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->missoff));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->zerorow));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->tileptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->perm));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->pos));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->tileof));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->tpredptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->off));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->stage));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->mirror));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->flags));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->ticket));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->b));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->x));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->xl));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->z));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->lpred));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->lorder));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->lblockid));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->lbxy));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->llmin));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->llmax));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->lflags));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->early));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->pairs1));
  PetscCall(PetscFree2(dev->hptr, dev->het));
  PetscCall(PetscFree(dev->hperm));
  PetscCall(PetscFree(*devp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device's own b and x of m columns (npoints dof values each, one after the other): grown when more are asked for, kept */
static PetscErrorCode Buffers(StructILUDevice dev, PetscInt m, void **b, void **x)
{
  const size_t bytes = sizeof(double) * (size_t)dev->npoints * dev->dof;

  PetscFunctionBegin;
  if (m > dev->bufcols) {
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->b));
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->x));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(bytes * m, (void **)&dev->b));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(bytes * m, (void **)&dev->x));
    gilu_mem_class(dev->b, bytes * m, VECTOR);
    gilu_mem_class(dev->x, bytes * m, VECTOR);
    dev->bufcols = m;
  }
  *b = dev->b;
  *x = dev->x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const StructILUDeviceOps DeviceOps = {Create, SetFactors, Factor, Solve, SolveMultiple, Buffers, Destroy, Timing, KernelTimes};

PetscErrorCode GILU_CUDA_NAME(StructILUDeviceGetOps)(const StructILUDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
