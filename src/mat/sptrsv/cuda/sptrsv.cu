/*
   CUDA kernels of the triangular-solve engine (the Block SpTRSV paper): the segments of the host plan (sptrsvimpl.h) run in order
   on one device vector x (b copied or gathered in at the start of a solve, or read by the plan's one triangle where it
   starts a row; x also stored in the caller's output, scattered, by the triangle kernels: SolveDevice()):
     triangle  level-set (one launch of a persistent grid that takes the levels in order, a thread per row; a
               triangle of one level is the completely parallel case: LevelKernel below) or sync-free (one launch, a warp per
               row in level order, its lanes each waiting on the flag of the entry they read: SyncFreeKernel below),
               x_r = D_r^{-1} (x_r - sum_c T_rc x_c); or, with GILUTriSetTriangleCSC(), sync-free
               by columns on the triangle stored in CSC (SyncFreeCSCKernel below);
     square    x_R -= S x_C by scalar-CSR (a thread per stored row) or vector-CSR (a group of `width` lanes of one
               warp per stored row, each lane a strided part of the row, the partial sums reduced by warp shuffles).
               Squares store only their nonempty rows with the row indices (the paper's DCSR), so the empty-ratio
               of Algorithm 7 needs no kernels of its own.
   Level-set and sync-free on the whole matrix are the plan of one triangle; column-block, row-block and recursive-
   block (Algorithms 4-6) alternate triangles and squares. The plan (sptrsv-plan.c) chose the kernel of each segment
   by the table there (Algorithm 7). Block sizes 1..8 (BSR blocks row-major).
   The entry points are one ops table (GILUTriDeviceOps, sptrsvcuda.h), compiled by nvcc (GILUTriDeviceGetOps()) and
   by the host C++ compiler for the cudaemu emulation (GILUTriDeviceGetOps_cudaemu()); the plan takes the table of the
   triangle's back-end (GILUTriSetBackend(): "cuda" or "cudaemu") once, when it is built.

   Rounding: a triangle row is computed as by the host (its entries in column order); a scalar-CSR square row as
   the host's SpMV; vector-CSR sums the row in another order (lanes, then the shuffle tree): round-off only.

   No synchronization and no memset in a solve: the kernels are queued on the default stream, which orders each launch
   after the previous one (its writes visible to the next), and the host waits only where it reads x (the copy back).
   Nothing is cleared per solve: a sync-free row's flag holds the number (epoch) of the last solve that finished it, a
   CSC column's flag counts the updates of every solve so far, tickets and level-set counters run on from launch to
   launch; the host keeps what each held before the launch (the bases: it knows how many tickets and units each launch
   takes) and the waits compare the difference modulo 2^32 (gilu_wait_acquire_count). They are cleared when the device
   copy is made, and again only after a solve whose launches did not all return (an error: their state is unknown).

   Why sync-free cannot deadlock: a block takes its rows (columns) from a ticket, gilu_block_ticket() on a counter
   of the segment (less the tickets of its earlier launches), not from blockIdx (CUDA does not promise to dispatch
   blocks in index order: a block of high index spinning on rows of a block that is not resident would spin forever).
   Within a triangle the rows are numbered in level order and a row waits only on rows of lower levels of the same
   triangle (the entries of earlier blocks are in the squares), hence of lower number. Tickets go in increasing order
   to blocks that are running, so every row of a taken ticket is on a resident block. Let r be the unfinished row of
   lowest number: its dependencies are finished. If its ticket is taken, r runs on a resident block and finishes
   (by rows: its warp waits only on finished rows; by columns: a thread per column, and the threads of a warp progress
   independently on sm_70 and later); if not, every taken ticket is below it, their rows finish, their blocks exit and a
   new block takes r's ticket. The flags are indexed by the caller's row; every row is in exactly one triangle, so each
   flag moves on by the same amount in every solve (by rows: 1, by columns: the updates of its row), which is what
   lets the epoch replace the clearing. A row publishes x_r by a release store (by columns: release adds) of its flag, a
   reader acquires the flag before it reads x_r: no full fence on either side.

   Block sizes are template parameters (1..8, dispatched at the launch): the accumulators of a row are registers.
*/
#include <limits.h>
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "../sptrsvcuda.h"

#define GILU_TRI_CUDA_MAX_BS   8
#define GILU_TRI_CUDA_THREADS  64                           /* triangles, scalar-CSR: threads per block */
#define GILU_TRI_CUDA_VTHREADS 128                          /* vector-CSR: threads per block (whole warps) */
#define GILU_TRI_CUDA_SFROWS   (GILU_TRI_CUDA_THREADS / 32) /* sync-free by rows: a warp per row, rows per block */

/*
  What a solve reads and writes besides x (SolveDevice()): where a kernel is the only one to touch its rows (the plan's
  one triangle) it reads b_r from b[bperm[r]] (bperm NULL: b[r]) instead of x, so neither the copy x = b nor the gather
  of a permuted right-hand side is a pass of its own; every triangle kernel stores each finished x_r also in
  out[operm[r]] (operm NULL: out[r]): a row's value is final when its triangle stores it (a square only updates rows of
  later triangles), so the scatter of the solution is fused into the stores. The same values, the same bits.
  A block of right-hand sides (MatMatSolve()) is ncols columns of each array, ld values apart: every kernel does all
  columns of a row (a unit, a square's row) where it did one, after the same waits and before the same signals, each
  column's sums in the order of one column's solve (the same bits as that solve). What a solve pays per dependency (a
  launch, a wait, a signal) is paid once for the block; the row's indices and values are read once from memory for a
  group of columns (GILU_TRI_CUDA_GROUP(BS)): the level-set, scalar- and vector-CSR kernels hold them in registers,
  RowSubtractDevice(); sync-free by rows keeps them in shared memory and sums a group of columns on as many lanes;
  sync-free by columns finishes a group's x_c and makes each entry's adds for the group; later groups find them in the
  cache).
*/
typedef struct {
  const PetscScalar *b;             /* NULL: the kernel reads b_r from x */
  const PetscInt    *bperm;         /* NULL: b_r is b[r] */
  PetscScalar       *out;           /* NULL: nothing but x is written */
  const PetscInt    *operm;         /* NULL: x_r also goes to out[r] */
  PetscInt           ncols;         /* the columns (1: one solve) */
  PetscInt           ldb, ldx, ldo; /* the distance between columns of b, x, out */
} GILUTriCUDAIO;

/* b_r, component p, of column j: what the row starts from */
template <int BS>
__device__ static inline PetscScalar RowInitialDevice(const GILUTriCUDAIO *io, PetscInt r, int p, const PetscScalar *x, PetscInt j)
{
  if (io->b) return gilu_ld(io->b + j * io->ldb + (io->bperm ? gilu_ld(io->bperm + r) : r) * BS + p);
  return gilu_ld(x + j * io->ldx + r * BS + p);
}

/* x_r = D^{-1} acc for stored row s (no dval: x_r = acc) in x (the column's), and out[operm[r]] = x_r in column j of
   out where io asks for it (io NULL: squares) */
template <int BS>
__device__ static inline void RowStoreDevice(const GILUTriCUDA_s *t, PetscInt s, PetscInt r, const PetscScalar acc[], PetscScalar *x, const GILUTriCUDAIO *io, PetscInt j)
{
  PetscScalar *o = NULL;

  if (io && io->out) o = io->out + j * io->ldo + (io->operm ? gilu_ld(io->operm + r) : r) * BS;
  if (t->dval) {
    const MatScalar *d = t->dval + s * BS * BS;

    for (int p = 0; p < BS; p++) {
      PetscScalar w = 0;

      for (int q = 0; q < BS; q++) w += d[p * BS + q] * acc[q];
      x[r * BS + p] = w;
      if (o) o[p] = w;
    }
  } else
    for (int p = 0; p < BS; p++) {
      x[r * BS + p] = acc[p];
      if (o) o[p] = acc[p];
    }
}

/*
  The columns of a block summed together (the block kernels, MULTI: by one thread in the level-set and scalar-CSR
  kernels, by a lane for its share of the row in vector-CSR, by one warp's lanes sync-free by rows; sync-free by
  columns the same for its updates): each entry's column index and values are
  loaded once for the group, and the group's x_c loads are in flight together, where a column at a time waits a memory
  round trip per column (each column's loads come after the previous column's store of x_r, which the compiler cannot
  move them across). The registers bound the group: G BS accumulators and G BS values of x_c (sm_90, nvcc 13: the
  level-set kernel's block instantiation at BS 1 takes 64 registers, 16 resident blocks of 64 threads per SM, where a
  column at a time took 40 and 25: 4 columns' loads in flight in 16 blocks against 1 in 25; BS 2: 64; at BS >= 3 the
  group is one column, and the registers are at most those of before; vector-CSR at BS 1 26 -> 48: 10 resident blocks
  of 128 threads per SM instead of 16, each thread with 4 columns' loads in flight, and the square's matrix, most of
  its bytes, read once per 4 columns). Single solves (G 1): as before or fewer.
*/
#define GILU_TRI_CUDA_GROUP(BS) ((BS) == 1 ? 4 : (BS) == 2 ? 2 : 1)

/* acc[j] -= sum_k V_k x_{c_k} of column j (ldx apart from the previous) for the stored entries k0, k0 + dk, ... below
   k1 of a row (dk 1: a thread's whole row; a vector-CSR lane's share: dk its row's lanes) and the first g <= G columns
   of x, each column's sum in that order (dk 1: the row's column order, as the host sums it: the same bits as a column
   alone); CG: x_c is written by other blocks of this launch (read past the L1 cache) */
template <int BS, int G, bool CG>
__device__ static inline void RowSubtractDevice(const GILUTriCUDA_s *t, PetscInt k0, PetscInt k1, PetscInt dk, const PetscScalar *x, PetscInt ldx, int g, PetscScalar acc[][BS])
{
  for (PetscInt k = k0; k < k1; k += dk) {
    const PetscInt   c = t->col[k];
    const MatScalar *v = t->val + k * BS * BS;
    PetscScalar      xc[G][BS];

    GILU_UNROLL
    for (int j = 0; j < G; j++)
      if (j < g)
        for (int q = 0; q < BS; q++) xc[j][q] = CG ? gilu_ld_cg(x + j * ldx + c * BS + q) : gilu_ld(x + j * ldx + c * BS + q);
    for (int p = 0; p < BS; p++)
      for (int q = 0; q < BS; q++) {
        const MatScalar a = v[p * BS + q];

        GILU_UNROLL
        for (int j = 0; j < G; j++)
          if (j < g) acc[j][p] -= a * xc[j][q];
      }
  }
}

/* x_r = D^{-1}(x_r - sum V x_c) for stored row s (no dval: x_r -= sum V x_c: a scalar-CSR square row) in ncols columns of
   x, ldx apart, G at a time (RowSubtractDevice()). BS: the block size */
template <int BS, int G>
__device__ static inline void RowSolveDevice(const GILUTriCUDA_s *t, PetscInt s, PetscScalar *x, PetscInt ncols, PetscInt ldx)
{
  const PetscInt r = t->row[s];

  for (PetscInt j0 = 0; j0 < ncols; j0 += G) {
    const int   g = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols - j0); /* (G 1: the compiler drops the tests of g) */
    PetscScalar acc[G][BS];

    GILU_UNROLL
    for (int j = 0; j < G; j++)
      if (j < g)
        for (int p = 0; p < BS; p++) acc[j][p] = x[(j0 + j) * ldx + r * BS + p];
    RowSubtractDevice<BS, G, false>(t, t->ptr[s], t->ptr[s + 1], 1, x + j0 * ldx, ldx, g, acc);
    GILU_UNROLL
    for (int j = 0; j < G; j++)
      if (j < g) RowStoreDevice<BS>(t, s, r, acc[j], x + (j0 + j) * ldx, NULL, 0);
  }
}

/*
  level-set, the whole triangle in one launch (a launch per level cost ~350 launches for a 200k-row 7-point triangle,
  the solve launch-bound): a persistent grid of the blocks the device holds at once (LevelGrid()). The work units are
  at most blockDim.x rows of one level, numbered in level order (t.urow); a block takes them by ticket (ctr[0], above
  ticketbase) until none is left, taking its next one while it works on the current one. Per unit:
  1. what does not depend on the earlier levels, before the wait: the row, its entries' range and x_r (b, or what an
     earlier launch left: no other row of this launch writes it) of the first group of columns (below);
  2. thread 0 waits (acquire) until the counter of finished units (ctr[1], above donebase) reaches t.uwait[u], the
     units of the levels before u's; a barrier releases the block;
  3. the row, its entries in column order as the host sums them (the same bits); x_c, written by other blocks during
     this launch, read past the L1 cache; a block of columns GILU_TRI_CUDA_GROUP(BS) at a time (RowSubtractDevice():
     one round trip for the group's x_c, not one per column; b_r of the first group read in step 1, of the later
     groups after the wait);
  4. a barrier after every thread's stores, then thread 0 counts the unit (release add).
  The counter is the grid-wide wait between levels: a unit counts itself only after it saw the counter at the number
  of units of the levels before its own, so by induction the counter reaches the units before level l only when all of
  them are done (no unit of level l or later can have counted earlier). No deadlock, whatever the dispatch order and
  however many blocks are resident, by the argument of the sync-free kernel (the top of the file): a unit waits only on
  units of lower number; the unfinished unit of lowest number is being worked on (a block that holds it as its next
  works on a lower one), and what it waits for is done. Each launch takes nunits + grid tickets (every block ends with
  one that finds no unit) and adds nunits to the counter: the host moves the bases on (SegRunBS()); the counters are
  never cleared: they wrap around at 2^32, and the wait compares the difference to the base (gilu_wait_acquire_count).
*/
template <int BS, bool MULTI>
__global__ static void __launch_bounds__(GILU_TRI_CUDA_THREADS) LevelKernel(GILUTriCUDA_s t, PetscScalar *x, int *ctr, unsigned int ticketbase, unsigned int donebase, GILUTriCUDAIO io)
{
  GILU_SHARED(int, unit, 2); /* the current unit and the next one (two slots: thread 0 writes one while the block reads the other) */
  const PetscInt ncols = MULTI ? io.ncols : 1;
  constexpr int  G     = MULTI ? GILU_TRI_CUDA_GROUP(BS) : 1;

  if (threadIdx.x == 0) unit[0] = (int)((unsigned int)atomicAdd(&ctr[0], 1) - ticketbase);
  gilu_syncthreads();
  for (int it = 0; unit[it & 1] < t.nunits; it++) {
    const PetscInt u = unit[it & 1], s = t.urow[u] + (PetscInt)threadIdx.x;
    const int      valid = s < t.urow[u + 1];
    PetscInt       r = 0, k0 = 0, k1 = 0;
    PetscScalar    acc[G][BS]; /* a group of columns (RowSubtractDevice()); the first group's b_r read before the wait */
    const int      g0 = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols);

    if (valid) { /* 1. */
      r  = t.row[s];
      k0 = t.ptr[s];
      k1 = t.ptr[s + 1];
      GILU_UNROLL
      for (int j = 0; j < G; j++)
        if (j < g0)
          for (int p = 0; p < BS; p++) acc[j][p] = RowInitialDevice<BS>(&io, r, p, x, j);
    }
    if (threadIdx.x == 0) { /* 2. */
      unit[(it + 1) & 1] = (int)((unsigned int)atomicAdd(&ctr[0], 1) - ticketbase);
      gilu_wait_acquire_count(&ctr[1], (int)donebase, (int)t.uwait[u]);
    }
    gilu_syncthreads();
    if (valid) /* 3. */
      for (PetscInt j0 = 0; j0 < ncols; j0 += G) {
        const int g = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols - j0); /* (G 1: the compiler drops the tests of g) */

        GILU_UNROLL
        for (int j = 0; j < G; j++)
          if (j < g && j0)
            for (int p = 0; p < BS; p++) acc[j][p] = RowInitialDevice<BS>(&io, r, p, x, j0 + j);
        RowSubtractDevice<BS, G, true>(&t, k0, k1, 1, x + j0 * io.ldx, io.ldx, g, acc);
        GILU_UNROLL
        for (int j = 0; j < G; j++)
          if (j < g) RowStoreDevice<BS>(&t, s, r, acc[j], x + (j0 + j) * io.ldx, &io, j0 + j);
      }
    gilu_syncthreads(); /* 4. every thread's stores before the release; unit[(it + 1) & 1] written before it is read */
    if (threadIdx.x == 0) gilu_signal_release_add(&ctr[1], 1);
  }
}

/*
  sync-free by rows, a warp per row: the block's GILU_TRI_CUDA_SFROWS rows are those of its ticket (see the top of the
  file), warp w of the block takes the w-th. The row's entries are walked in chunks of 32, lane j holding the chunk's
  j-th entry:
  1. what does not depend on other rows, before any wait: the column index and the chunk's values (its BS x BS blocks
     one after another: the lanes copy them to the warp's part of shared memory in consecutive words, coalesced);
  2. lane j waits (acquire) for x_c of its own entry only, reads it past the L1 cache and puts it in shared memory: the
     acquire orders the lane's later loads, so no fence; the lanes wait in parallel, one round trip for the chunk;
  3. after a warp barrier, lane p < BS sums row p of the chunk's blocks in column order, as the host does (the same bits;
     a shuffle tree would sum in another order); a second warp barrier before the next chunk overwrites shared memory;
  4. lane 0 gathers the BS sums by shuffles and stores x_r = D^{-1} acc;
  a block of right-hand sides by groups of GILU_TRI_CUDA_GROUP(BS) columns (RowSubtractDevice()'s reason: one round
  trip for a group's x_c, not one per column): in 2 lane j reads x_c of every column of the group, in 3 lane i BS + p
  sums row p of the group's column i, in 4 the shuffles gather each column's sums in turn; steps 2 (without the wait:
  the lane acquired the flag in the first group) to 4 again for each further group (step 1 too where the row has more
  than one chunk: a single chunk's values and columns stay in shared memory and registers); then lane 0 publishes the
  row, all its columns, by one release store of its flag.
  A warp never waits on a row of its own warp, and its lanes each wait on rows of lower number only (the deadlock
  argument at the top of the file holds per warp: the lowest unfinished row's lanes wait on finished rows, its block is
  resident and its warp progresses; the warp barriers and shuffles need no other warp). Shared memory per block:
  32 GILU_TRI_CUDA_SFROWS BS (BS + G) scalars, G the group's columns (36 KiB at BS = 8, G = 1, within the 48 KiB of a
  block without opt-in).
  Epochs instead of cleared flags: in the solve of number epoch a finished row's flag holds epoch, an unfinished one's
  epoch - 1 (the previous solve's, or 0 after the clearing at creation), so a lane waits until its flag is one past
  epoch - 1 (modulo 2^32); the ticket counter runs on from tbase, the tickets of the launches before.
*/
template <int BS, bool MULTI>
__global__ static void __launch_bounds__(GILU_TRI_CUDA_THREADS) SyncFreeKernel(GILUTriCUDA_s t, PetscScalar *x, int *flag, int *ticket, unsigned int tbase, unsigned int epoch, GILUTriCUDAIO io)
{
  constexpr int G = MULTI ? GILU_TRI_CUDA_GROUP(BS) : 1;                                   /* the columns of a group */
  GILU_SHARED(MatScalar, vsh, GILU_TRI_CUDA_THREADS * BS * BS);                            /* per warp: the values of a chunk of 32 entries */
  GILU_SHARED(PetscScalar, xsh, GILU_TRI_CUDA_THREADS * BS * G);                           /* per warp: their x_c, of each column of the group */
  const int      lane = gilu_lane_id(), w = gilu_warp_id(), p = lane % BS, jl = lane / BS; /* lane < G BS: row p of the group's column jl */
  const PetscInt s  = (PetscInt)((unsigned int)gilu_block_ticket(ticket) - tbase) * GILU_TRI_CUDA_SFROWS + w;
  MatScalar     *vs = vsh + w * 32 * BS * BS;
  PetscScalar   *xs = xsh + w * 32 * BS * G, xr[BS];
  PetscInt       r, k0, k1, c = 0;
  const PetscInt ncols = MULTI ? io.ncols : 1;

  if (s >= t.nrows) return; /* the whole warp */
  r  = gilu_ld(t.row + s);
  k0 = gilu_ld(t.ptr + s);
  k1 = gilu_ld(t.ptr + s + 1);
  for (PetscInt col0 = 0; col0 < ncols; col0 += G) {
    const int   g   = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols - col0); /* (warp-uniform) */
    PetscScalar acc = 0;

    if (lane < g * BS) acc = RowInitialDevice<BS>(&io, r, p, x, col0 + jl); /* b, or what an earlier launch left: no other row writes it */
    for (PetscInt kb = k0; kb < k1; kb += 32) {
      const int n = (int)PetscMin(k1 - kb, (PetscInt)32);

      if (!col0 || k1 - k0 > 32) { /* 1. */
        if (lane < n) c = gilu_ld(t.col + kb + lane);
        for (int i = lane; i < n * BS * BS; i += 32) vs[i] = gilu_ld(t.val + kb * BS * BS + i);
      }
      if (lane < n) { /* 2. */
        if (!col0) gilu_wait_acquire_count(&flag[c], (int)(epoch - 1), 1);
        GILU_UNROLL
        for (int j = 0; j < G; j++)
          if (j < g)
            for (int q = 0; q < BS; q++) xs[(j * 32 + lane) * BS + q] = gilu_ld_cg(x + (col0 + j) * io.ldx + c * BS + q);
      }
      gilu_syncwarp(); /* 3. every lane's vs and xs */
      if (lane < g * BS)
        for (int j = 0; j < n; j++)
          for (int q = 0; q < BS; q++) acc -= vs[(j * BS + p) * BS + q] * xs[(jl * 32 + j) * BS + q];
      gilu_syncwarp(); /* the sums have read vs and xs before the next chunk (group) writes them */
    }
    GILU_UNROLL
    for (int j = 0; j < G; j++) /* 4. (every lane takes part in the shuffles: g is the same for the warp) */
      if (j < g) {
        for (int q = 0; q < BS; q++) xr[q] = gilu_shfl(acc, j * BS + q);
        if (lane == 0) RowStoreDevice<BS>(&t, s, r, xr, x + (col0 + j) * io.ldx, &io, col0 + j);
      }
  }
  if (lane == 0) gilu_signal_release(&flag[r], (int)epoch);
}

/*
  sync-free by columns (the Block SpTRSV paper's improved layout keeps triangles in CSC; Liu et al.'s sync-free kernel): a thread per
  stored column s (level order, the block's columns those of its ticket), c = t.row[s]. It waits until all t.need[s]
  updates of x_c by the triangle's earlier columns are in (flag[c] counts them), finishes x_c = D^{-1} x_c, then
  subtracts T_rc x_c from every row r of its column by atomic adds and counts itself in flag[r] by a release add (the
  waiter's acquire of the count need[s] then sees every add before it: the count's adds form one release sequence). The order of the atomic
  adds varies: round-off only. It cannot deadlock for the reason the row-wise kernel cannot: a column waits only on
  columns of lower levels, of lower number. The flags are never cleared: every solve adds need[s] to column s's, so
  the solve of number epoch waits until it is need[s] past (epoch - 1) need[s] (modulo 2^32); tickets as by rows.
  x must hold b before the launch (the adds of other columns reach x_c before x_c is finished): no fused read of b.
  A block of right-hand sides: the one wait, then GILU_TRI_CUDA_GROUP(BS) columns at a time (as the other kernels: each
  entry's row index and values read once for the group, the group's x_c loads in flight together), each column's
  products as one column's; the count of each row is added during the last group's adds, after every column's adds to
  that row.
*/
template <int BS, bool MULTI>
__global__ static void SyncFreeCSCKernel(GILUTriCUDA_s t, PetscScalar *x, int *flag, int *ticket, unsigned int tbase, unsigned int epoch, GILUTriCUDAIO io)
{
  constexpr int  G     = MULTI ? GILU_TRI_CUDA_GROUP(BS) : 1;
  PetscInt       s     = (PetscInt)((unsigned int)gilu_block_ticket(ticket) - tbase) * (PetscInt)blockDim.x + (PetscInt)threadIdx.x;
  const PetscInt ncols = MULTI ? io.ncols : 1;

  if (s < t.nrows) {
    const PetscInt c = t.row[s];

    if (t.need[s]) gilu_wait_acquire_count(&flag[c], (int)((epoch - 1) * (unsigned int)t.need[s]), (int)t.need[s]);
    for (PetscInt j0 = 0; j0 < ncols; j0 += G) {
      const int   g = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols - j0); /* (G 1: the compiler drops the tests of g) */
      PetscScalar xc[G][BS];

      GILU_UNROLL
      for (int j = 0; j < G; j++)
        if (j < g) {
          PetscScalar *xj = x + (j0 + j) * io.ldx, acc[BS];
          PetscScalar *o  = io.out ? io.out + (j0 + j) * io.ldo + (io.operm ? io.operm[c] : c) * BS : NULL;

          for (int p = 0; p < BS; p++) acc[p] = gilu_ld_cg(xj + c * BS + p);
          for (int p = 0; p < BS; p++) {
            if (t.dval) {
              PetscScalar v = 0;

              for (int q = 0; q < BS; q++) v += t.dval[s * BS * BS + p * BS + q] * acc[q];
              xc[j][p] = v;
            } else xc[j][p] = acc[p];
            xj[c * BS + p] = xc[j][p];
            if (o) o[p] = xc[j][p];
          }
        }
      for (PetscInt k = t.ptr[s]; k < t.ptr[s + 1]; k++) {
        const PetscInt   r = t.col[k];
        const MatScalar *a = t.val + k * BS * BS;

        for (int p = 0; p < BS; p++) {
          GILU_UNROLL
          for (int j = 0; j < G; j++)
            if (j < g) {
              PetscScalar v = 0;

              for (int q = 0; q < BS; q++) v += a[p * BS + q] * xc[j][q];
              atomicAdd(&x[(j0 + j) * io.ldx + r * BS + p], -v);
            }
        }
        if (j0 + g == ncols) gilu_signal_release_add(&flag[r], 1); /* the release orders the atomic adds (of every column) before it: no full fence */
      }
    }
  }
}

/* scalar-CSR: x_R -= S x_C, a thread per stored row (rows and columns of a square are disjoint: no race), each of the
   ncols columns of x (ldx apart) in turn */
template <int BS, bool MULTI>
__global__ static void SpMVScalarKernel(GILUTriCUDA_s t, PetscScalar *x, PetscInt nc, PetscInt ldx)
{
  PetscInt       s     = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  const PetscInt ncols = MULTI ? nc : 1;

  if (s < t.nrows) RowSolveDevice<BS, MULTI ? GILU_TRI_CUDA_GROUP(BS) : 1>(&t, s, x, ncols, ldx);
}

/*
  vector-CSR: t.width lanes (a power of two dividing 32) per stored row; lane l sums the entries l, l + width, ... of the
  row into a bs-vector (RowSubtractDevice(), negated), the group reduces it by shuffles, its first lane adds it to x_r.
  A block of columns: GILU_TRI_CUDA_GROUP(BS) columns at a time, as the scalar kernels (each entry's column index and
  values read once for the group, the group's x_c loads in flight together: the matrix, most of a square's bytes, read
  once per group instead of once per column), each column's sum in the order of one column's (the same bits). Every lane
  of the warp reaches the shuffles (the grid's last rows may be beyond nrows: they add zeros; g is the same for the grid).
*/
template <int BS, bool MULTI>
__global__ static void SpMVVectorKernel(GILUTriCUDA_s t, PetscScalar *x, PetscInt nc, PetscInt ldx)
{
  constexpr int  G     = MULTI ? GILU_TRI_CUDA_GROUP(BS) : 1;
  const PetscInt ncols = MULTI ? nc : 1;
  const PetscInt width = t.width;
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x), s = i / width, lane = i % width;

  for (PetscInt j0 = 0; j0 < ncols; j0 += G) {
    const int   g = G == 1 ? 1 : (int)PetscMin((PetscInt)G, ncols - j0); /* (G 1: the compiler drops the tests of g) */
    PetscScalar acc[G][BS];

    GILU_UNROLL
    for (int j = 0; j < G; j++)
      for (int p = 0; p < BS; p++) acc[j][p] = 0;
    if (s < t.nrows) RowSubtractDevice<BS, G, false>(&t, t.ptr[s] + lane, t.ptr[s + 1], width, x + j0 * ldx, ldx, g, acc);
    GILU_UNROLL
    for (int j = 0; j < G; j++)
      if (j < g)
        for (int p = 0; p < BS; p++)
          for (int off = (int)width / 2; off > 0; off /= 2) acc[j][p] += gilu_shfl_down(acc[j][p], (unsigned int)off, (int)width);
    if (s < t.nrows && lane == 0) {
      const PetscInt r = t.row[s];

      GILU_UNROLL
      for (int j = 0; j < G; j++)
        if (j < g)
          for (int p = 0; p < BS; p++) x[(j0 + j) * ldx + r * BS + p] += acc[j][p];
    }
  }
}

static PetscErrorCode SegFree(GILUTriCUDASeg *sg)
{
  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.row));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.ptr));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.col));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.val));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.dval));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.need));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.urow));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&sg->d.uwait));
  PetscCall(PetscFree(sg->lptr));
  PetscCall(PetscFree2(sg->csrc, sg->cval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy of the plan: n block rows of size bs, nseg segments in execution order (values copied too) */
static PetscErrorCode SetValues(GILUTriCUDA, PetscInt, const MatScalar[], const MatScalar[]);

/* the sync-free flags and tickets and the level-set counters to 0, the host's epoch and bases with them: at creation,
   and before a solve that follows one whose launches did not all return (an error: the counters' state is unknown) */
static PetscErrorCode CountersClear(GILUTriCUDA t)
{
  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(t->flag, 0, (t->n + t->nseg) * sizeof(int)));
  if (t->lsctr) PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(t->lsctr, 0, 2 * sizeof(int)));
  t->memsets += t->lsctr ? 2 : 1;
  t->epoch = t->lsbase[0] = t->lsbase[1] = 0;
  for (PetscInt s = 0; s < t->nseg; s++) t->seg[s].tbase = 0;
  t->dirty = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Create(PetscInt n, PetscInt bs, PetscInt nseg, const GILUTriCUDASegInfo info[], GILUTriCUDA *dev)
{
  GILUTriCUDA t;
  PetscInt    bs2 = bs * bs;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && bs <= GILU_TRI_CUDA_MAX_BS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA triangular solves support block sizes 1 to %d, not %" PetscInt_FMT, GILU_TRI_CUDA_MAX_BS, bs);
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  PetscCall(PetscNew(&t));
  t->n    = n;
  t->bs   = bs;
  t->nseg = nseg;
  PetscCall(PetscCalloc1(nseg, &t->seg));
  *dev = t;
  for (PetscInt s = 0; s < nseg; s++) {
    const GILUTriCUDASegInfo *in = &info[s];
    GILUTriCUDASeg           *sg = &t->seg[s];
    const PetscInt            m = in->nrows, nnz = in->ptr[m];

    sg->kernel  = in->kernel;
    sg->d.bs    = bs;
    sg->d.nrows = m;
    sg->d.nnz   = nnz;
    sg->d.width = in->width;
    sg->d.dval  = NULL;
    if (in->kernel == GILU_CUDA_SPMV_VECTOR) PetscCheck(in->width >= 1 && in->width <= 32 && !(in->width & (in->width - 1)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "vector-CSR needs a power of two up to 32 lanes per row, not %" PetscInt_FMT, in->width);
    if (in->kernel == GILU_CUDA_LEVELSET) { /* the work units of LevelKernel: each level cut into blocks of rows */
      PetscInt *urow, *uwait, nu = 0;

      sg->nlevels = in->nlevels;
      PetscCall(PetscMalloc1(in->nlevels + 1, &sg->lptr));
      PetscCall(PetscArraycpy(sg->lptr, in->lptr, in->nlevels + 1));
      for (PetscInt l = 0; l < in->nlevels; l++) nu += (in->lptr[l + 1] - in->lptr[l] + GILU_TRI_CUDA_THREADS - 1) / GILU_TRI_CUDA_THREADS;
      PetscCheck(nu < INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "A level-set triangle of %" PetscInt_FMT " work units is beyond the device counters' range", nu);
      PetscCall(PetscMalloc2(nu + 1, &urow, PetscMax(nu, 1), &uwait));
      nu = 0;
      for (PetscInt l = 0; l < in->nlevels; l++) {
        const PetscInt before = nu;

        for (PetscInt q = in->lptr[l]; q < in->lptr[l + 1]; q += GILU_TRI_CUDA_THREADS) {
          urow[nu]    = q;
          uwait[nu++] = before;
        }
      }
      urow[nu]     = in->lptr[in->nlevels];
      sg->d.nunits = nu;
      PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)((nu + 1) * sizeof(PetscInt), (void **)&sg->d.urow));
      PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(nu * sizeof(PetscInt), (void **)&sg->d.uwait));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.urow, urow, (nu + 1) * sizeof(PetscInt)));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.uwait, uwait, nu * sizeof(PetscInt)));
      PetscCall(PetscFree2(urow, uwait));
      if (!t->lsctr) PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(2 * sizeof(int), (void **)&t->lsctr));
    }
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(m * sizeof(PetscInt), (void **)&sg->d.row));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)((m + 1) * sizeof(PetscInt), (void **)&sg->d.ptr));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(nnz * sizeof(PetscInt), (void **)&sg->d.col));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(nnz * bs2 * sizeof(MatScalar), (void **)&sg->d.val));
    if (in->dval) PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(m * bs2 * sizeof(MatScalar), (void **)&sg->d.dval));
    PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.row, in->row, m * sizeof(PetscInt)));
    if (in->kernel == GILU_CUDA_SYNCFREE_CSC) { /* the rows turned into columns: the entries (r, c) grouped by c's position */
      PetscInt *pos, *cptr, *cidx, *need;

      PetscCall(PetscMalloc4(n, &pos, m + 1, &cptr, nnz, &cidx, m, &need));
      PetscCall(PetscMalloc2(nnz, &sg->csrc, nnz * bs2, &sg->cval));
      for (PetscInt q = 0; q < m; q++) pos[in->row[q]] = q;
      PetscCall(PetscArrayzero(cptr, m + 1));
      for (PetscInt q = 0; q < m; q++) {
        need[q] = in->ptr[q + 1] - in->ptr[q];
        for (PetscInt k = in->ptr[q]; k < in->ptr[q + 1]; k++) cptr[pos[in->col[k]] + 1]++;
      }
      for (PetscInt q = 0; q < m; q++) cptr[q + 1] += cptr[q];
      for (PetscInt q = 0; q < m; q++) /* rows in order: each column's entries by increasing row position */
        for (PetscInt k = in->ptr[q]; k < in->ptr[q + 1]; k++) {
          PetscInt e = cptr[pos[in->col[k]]]++;

          cidx[e]     = in->row[q];
          sg->csrc[e] = k;
        }
      for (PetscInt q = m; q > 0; q--) cptr[q] = cptr[q - 1];
      cptr[0] = 0;
      PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(m * sizeof(PetscInt), (void **)&sg->d.need));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.need, need, m * sizeof(PetscInt)));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.ptr, cptr, (m + 1) * sizeof(PetscInt)));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.col, cidx, nnz * sizeof(PetscInt)));
      PetscCall(PetscFree4(pos, cptr, cidx, need));
    } else {
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.ptr, in->ptr, (m + 1) * sizeof(PetscInt)));
      PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.col, in->col, nnz * sizeof(PetscInt)));
    }
    PetscCall(SetValues(t, s, in->val, in->dval));
  }
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(n * bs * sizeof(PetscScalar), (void **)&t->x));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)((n + nseg) * sizeof(int), (void **)&t->flag));
  PetscCall(CountersClear(t)); /* once: the solves never clear them */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* new values of segment s (the same pattern) */
static PetscErrorCode SetValues(GILUTriCUDA t, PetscInt s, const MatScalar val[], const MatScalar dval[])
{
  GILUTriCUDASeg *sg  = &t->seg[s];
  PetscInt        bs2 = t->bs * t->bs;

  PetscFunctionBegin;
  if (sg->csrc) { /* by columns: gathered first */
    for (PetscInt e = 0; e < sg->d.nnz; e++)
      for (PetscInt q = 0; q < bs2; q++) sg->cval[e * bs2 + q] = val[sg->csrc[e] * bs2 + q];
    val = sg->cval;
  }
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.val, val, sg->d.nnz * bs2 * sizeof(MatScalar)));
  if (sg->d.dval && dval) PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(sg->d.dval, dval, sg->d.nrows * bs2 * sizeof(MatScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the persistent grid of LevelKernel<BS, MULTI>: the blocks the device holds at once (multiprocessors times the blocks
   of the kernel per multiprocessor), at most the units; asked once per segment and instantiation */
template <int BS, bool MULTI>
static PetscErrorCode LevelGrid(GILUTriCUDASeg *sg, unsigned int *grid)
{
  PetscFunctionBegin;
  if (!sg->grid[MULTI]) {
    int device, sms, per;

    GILU_CUDA_CHECK(cudaGetDevice(&device));
    GILU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GILU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, LevelKernel<BS, MULTI>, GILU_TRI_CUDA_THREADS, 0));
    PetscCheck(per >= 1, PETSC_COMM_SELF, PETSC_ERR_GPU, "No block of the level-set kernel (%d threads) fits a multiprocessor", GILU_TRI_CUDA_THREADS);
    sg->grid[MULTI] = (int)PetscMin((PetscInt)sms * per, sg->d.nunits);
  }
  *grid = (unsigned int)sg->grid[MULTI];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the launch of one segment with block size BS; ticket: the segment's ticket counter (sync-free), io what the
   triangle kernels read and write besides x. The counters run on from launch to launch: the host moves the bases on
   by what each launch takes (level-set: nunits + grid tickets, nunits finished units; sync-free: grid tickets), in
   unsigned arithmetic that wraps around as the device's counters do. MULTI: the kernels of a block of columns (io.ncols
   > 1); a single solve runs the instantiations whose column loops the compiler removes (the block's loops and
   offsets took up to 14 registers more, and the level-set kernel's persistent grid is sized by its occupancy) */
#define TRI_KERNEL(name) name<BS, MULTI> /* one macro argument (GILU_LAUNCH()) for the two template arguments */
template <int BS, bool MULTI>
static PetscErrorCode SegRunBS(GILUTriCUDA t, GILUTriCUDASeg *sg, PetscScalar *x, int *flag, int *ticket, GILUTriCUDAIO io)
{
  const PetscInt m = sg->d.nrows;

  PetscFunctionBegin;
  switch (sg->kernel) {
  case GILU_CUDA_LEVELSET: {
    unsigned int grid;

    PetscCall(LevelGrid<BS, MULTI>(sg, &grid));
    gilu_launch_levels(sg->nlevels);
    PetscCall(GILU_LAUNCH(TRI_KERNEL(LevelKernel), grid, GILU_TRI_CUDA_THREADS, 0, 0, sg->d, x, t->lsctr, t->lsbase[0], t->lsbase[1], io));
    t->lsbase[0] += (unsigned int)sg->d.nunits + grid;
    t->lsbase[1] += (unsigned int)sg->d.nunits;
    t->nlevelset++;
  } break;
  case GILU_CUDA_SYNCFREE: {
    const unsigned int grid = (unsigned int)((m + GILU_TRI_CUDA_SFROWS - 1) / GILU_TRI_CUDA_SFROWS);

    PetscCall(GILU_LAUNCH(TRI_KERNEL(SyncFreeKernel), grid, GILU_TRI_CUDA_THREADS, 0, 0, sg->d, x, flag, ticket, sg->tbase, t->epoch, io));
    sg->tbase += grid;
  } break;
  case GILU_CUDA_SYNCFREE_CSC: {
    const unsigned int grid = (unsigned int)((m + GILU_TRI_CUDA_THREADS - 1) / GILU_TRI_CUDA_THREADS);

    PetscCall(GILU_LAUNCH(TRI_KERNEL(SyncFreeCSCKernel), grid, GILU_TRI_CUDA_THREADS, 0, 0, sg->d, x, flag, ticket, sg->tbase, t->epoch, io));
    sg->tbase += grid;
  } break;
  case GILU_CUDA_SPMV_SCALAR:
    PetscCall(GILU_LAUNCH(TRI_KERNEL(SpMVScalarKernel), (unsigned)((m + GILU_TRI_CUDA_THREADS - 1) / GILU_TRI_CUDA_THREADS), GILU_TRI_CUDA_THREADS, 0, 0, sg->d, x, io.ncols, io.ldx));
    break;
  case GILU_CUDA_SPMV_VECTOR:
    PetscCall(GILU_LAUNCH(TRI_KERNEL(SpMVVectorKernel), (unsigned)((m * sg->d.width + GILU_TRI_CUDA_VTHREADS - 1) / GILU_TRI_CUDA_VTHREADS), GILU_TRI_CUDA_VTHREADS, 0, 0, sg->d, x, io.ncols, io.ldx));
    break;
  }
  t->launches++; /* one launch per segment, whatever its kernel */
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define SEGRUN_CASE(BS) \
  case BS: \
    if (io.ncols > 1) PetscCall((SegRunBS<BS, true>(t, sg, x, flag, ticket, io))); \
    else PetscCall((SegRunBS<BS, false>(t, sg, x, flag, ticket, io))); \
    break;

static PetscErrorCode SegRun(GILUTriCUDA t, GILUTriCUDASeg *sg, PetscScalar *x, int *flag, int *ticket, GILUTriCUDAIO io)
{
  PetscFunctionBegin;
  if (!sg->d.nrows) PetscFunctionReturn(PETSC_SUCCESS);
  switch (sg->d.bs) {
    SEGRUN_CASE(1)
    SEGRUN_CASE(2)
    SEGRUN_CASE(3)
    SEGRUN_CASE(4)
    SEGRUN_CASE(5)
    SEGRUN_CASE(6)
    SEGRUN_CASE(7)
    SEGRUN_CASE(8)
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "block size %" PetscInt_FMT " has no CUDA kernels", sg->d.bs);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row and column permutations of a factored matrix (MatSolve() of MatSolverType gilu) where no kernel of the plan
   can read them itself: dst[i] = src[perm[i]] by blocks of bs values (perm NULL: dst = src), a thread per value, in
   each of ncols columns (lds, ldd apart) */
__global__ static void GatherKernel(PetscInt nb, PetscInt bs, const PetscInt *perm, const PetscScalar *src, PetscInt lds, PetscScalar *dst, PetscInt ldd, PetscInt ncols)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x, m = nb * bs;

  if (t < m * ncols) {
    const PetscInt j = t / m, i = t % m;

    dst[j * ldd + i] = src[j * lds + (perm ? perm[i / bs] * bs + i % bs : i)];
  }
}

/*
  x = T^{-1} b[bperm] with device arrays, and out[operm] = x where out is given (x may be b without bperm; out is not x
  unless operm is NULL), for ncols columns of each (ldb, ldx, ldo apart: all columns in each launch, see the kernels).
  Everything is queued on the default stream, in order: nothing here waits for the device, clears memory or copies what
  a kernel can read or write itself (the counts of the last solve say so):
  - b: the plan's one triangle (level-set or sync-free by rows) reads it where it starts a row; otherwise b is gathered
    (bperm) or copied into x first, one pass (one copy; a launch where the columns are not contiguous);
  - out: every triangle kernel stores its finished rows there too (operm: scattered);
  - flags, tickets and counters are never cleared per solve (epochs and bases, see the kernels): only at creation and
    after a solve whose launches did not all return.
  The caller reads x or out after an operation that waits for the default stream (a copy to the host) or on a stream
  that is ordered after it (src/sys/device-vec.c).
*/
static PetscErrorCode SolveDevice(GILUTriCUDA t, PetscInt ncols, const PetscScalar b[], PetscInt ldb, const PetscInt bperm[], PetscScalar x[], PetscInt ldx, PetscScalar out[], PetscInt ldo, const PetscInt operm[])
{
  const PetscInt m    = t->n * t->bs;
  GILUTriCUDAIO  io   = {NULL, NULL, NULL, NULL, ncols, ldb, ldx, ldo};
  PetscBool      fuse = (PetscBool)(t->nseg == 1 && (t->seg[0].kernel == GILU_CUDA_LEVELSET || t->seg[0].kernel == GILU_CUDA_SYNCFREE));

  PetscFunctionBegin;
  PetscCheck(!bperm || b != x, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "A gathered right-hand side cannot be the solution's array");
  PetscCheck(!operm || out != x, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "A scattered solution cannot be the solution's array");
  PetscCheck(b != x || ldb == ldx, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "A solve in place needs the same distance between the columns of b and x, not %" PetscInt_FMT " and %" PetscInt_FMT, ldb, ldx);
  PetscCheck(ncols >= 1 && (ncols == 1 || (ldb >= m && ldx >= m && (!out || ldo >= m))), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A device solve of %" PetscInt_FMT " columns needs columns of at least %" PetscInt_FMT " values apart", ncols, m);
  PetscCheck((PetscInt64)PetscMax(PetscMax(ldb, ldx), out ? ldo : 0) * ncols < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A device block of %" PetscInt_FMT " columns of %" PetscInt_FMT " values is beyond 32-bit indices: solve fewer columns at a time, or configure PETSc --with-64-bit-indices", ncols, m);
  t->launches = t->syncs = t->nlevelset = t->memsets = t->copies = 0;
  if (t->dirty) PetscCall(CountersClear(t));
  if (fuse && (bperm || b != x)) {
    io.b     = b;
    io.bperm = bperm;
  } else if (t->n && (bperm || (x != b && (ncols > 1 && (ldb != m || ldx != m))))) {
    PetscCall(GILU_LAUNCH(GatherKernel, (unsigned)((m * ncols + GILU_TRI_CUDA_VTHREADS - 1) / GILU_TRI_CUDA_VTHREADS), GILU_TRI_CUDA_VTHREADS, 0, 0, t->n, t->bs, bperm, b, ldb, x, ldx, ncols));
    t->launches++;
  } else if (x != b && m) {
    GILU_CUDA_CHECK(cudaMemcpy(x, b, m * ncols * sizeof(PetscScalar), cudaMemcpyDeviceToDevice)); /* no host synchronization (device to device) */
    t->copies++;
  }
  if (out && (operm || out != x)) {
    io.out   = out;
    io.operm = operm;
  }
  t->dirty = PETSC_TRUE; /* until every launch returned */
  t->epoch++;
  for (PetscInt s = 0; s < t->nseg; s++) PetscCall(SegRun(t, &t->seg[s], x, t->flag, t->flag + t->n + s, io));
  t->dirty = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b with host arrays (x may be b): b copied to the device once, the segments run in order on the device
   vector, x copied back once (both copies logged by the device layer; the copy back waits for the kernels, the one
   synchronization of the solve) */
static PetscErrorCode Solve(GILUTriCUDA t, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt m = t->n * t->bs;

  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(t->x, b, m * sizeof(PetscScalar)));
  PetscCall(SolveDevice(t, 1, t->x, m, NULL, t->x, m, NULL, m, NULL));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToHost)(x, t->x, m * sizeof(PetscScalar)));
  t->copies += 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy(GILUTriCUDA *dev)
{
  GILUTriCUDA t = *dev;

  PetscFunctionBegin;
  if (!t) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt s = 0; s < t->nseg; s++) PetscCall(SegFree(&t->seg[s]));
  PetscCall(PetscFree(t->seg));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&t->x));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&t->flag));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&t->lsctr));
  PetscCall(PetscFree(t));
  *dev = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const GILUTriDeviceOps DeviceOps = {Create, SetValues, Solve, Destroy, SolveDevice};

PetscErrorCode GILU_CUDA_NAME(GILUTriDeviceGetOps)(const GILUTriDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
