/*
   PCSTRUCTILU on CUDA: the factorization and the triangular solves on the device (or on the host through the
   emulation, cudaemu: the same source). The factorization performs the operations of src/mat/stencil/ilu.c in the same order
   for every element, so the factors and the solves give the host's results to round-off (the products of a row are
   summed in stencil order here).

   Schedule (the grid tier of the StructILU paper): level(i,j,k) = w.(i,j,k) with non-negative integer weights such
   that every lower offset l has w.l <= -1 and every upper offset u has w.u >= 1 (the affine hyperplane transformation;
   the weights of GILUStencilGetHyperplanes() are also checked against the upper offsets, and searched again if needed).
   Points of one level are independent in both sweeps. Two task mappings (-pc_structilu_cuda_mapping):
   - tiles (the default): the points are ordered by level (natural order within a level) and cut into tiles, at most
     `tilepoints` points of one level; one thread block per tile. Block-to-block waiting through a flag array: when a
     tile is done its block publishes the sweep number in its flag (gilu_signal_set, after every thread's fence); a
     thread that needs a neighbour's value waits (gilu_wait_until_ge) for the flag of the neighbour's tile. The sweep
     numbers grow: never reset.
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
   - the intra-row tier of the solves (ChooseStages): a row's off-diagonal products are split into P stages by how
     many levels back their neighbour lies; each stage has its own group of DoF threads per point, which waits only
     for its own neighbours (lines: works that many levels ahead), so only the last stage (neighbours one level back)
     is left after the wait for the previous level; the partial sums are added in stage order
     (-pc_structilu_cuda_pipeline, default min(4, levels spanned), as Table 2 of the StructILU paper).
   - the intra-row tier of the factorization: by default each point's eliminations run in stencil order (tiles: waiting
     for each neighbour in turn). With the lines mapping, -pc_structilu_cuda_factor_pipeline runs the two-substage
     pipeline of Section 4.2.2 (Figure 4(c)-(f), StructILULinesFactorPipelined): substage 1 of a row (the part of its
     first two intra-row levels that reads only rows two or more levels back) runs one level step early, beside
     substage 2 of the rows of the previous level, with one barrier between them; each element still gets its updates
     in the sequential order, so the factors are the same.
   - DoF threads per grid point: thread a of a point computes row a of the point's block row; the diagonal-block
     products (IC's D^{-1} y, the backward sweep's D^{-1}) exchange the row sums through shared memory. DoF >= 4
     factorization (not pipelined): one warp per point on the FP64 tensor cores (-pc_structilu_cuda_mma).
   - memory: the factor blocks are stored level-ordered (the level-based memory transformation): the threads of a
     tile (lines: of a block at one level, ordered by y^ then x^ within a level) read consecutive blocks of each
     offset. Factors in double or single precision (the host's choice).

   Vectors: the solve takes device arrays from src/sys/device-vec.c: a CUDA vector's own (a CUDA-enabled PETSc),
   else this device's buffers b and x, with b copied in and x back in each apply (logged as GILUCopyToGPU /
   GILUCopyToCPU), as with Debian's host-only PETSc.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "structilu-cuda.h"

/* The most threads per block the host launches, and the kernels' __launch_bounds__ (a GPU refuses a larger block; a
   bound above the launches caps the registers for nothing: 1024 threads leave 64 per thread, and the scalar kernels
   spilled). The scalar kernels: DoF threads per point or line (tilepoints dof, default 128), times the solves' stages
   or the pipelined factorization's two groups, with at least 1 block per multiprocessor (up to 128 registers; without
   it ptxas aims at more resident blocks and spills, e.g. 40 registers for StructILULinesSolve<2>); the tensor-core
   factorizations: a warp per point (32 tilepoints; 42 to 56 registers, no spills within 64). */
#define GILU_TILE_MAX_THREADS 512
#define GILU_WARP_MAX_THREADS 1024
#define GILU_INT64_MAX        ((PetscInt64)0x7fffffffffffffffLL)

/* the factors' type: CFG = dof + 16 * single */
template <int S>
struct FactorType {
  typedef double T;
};
template <>
struct FactorType<1> {
  typedef float T;
};

/*
  The grid-tier task mapping "lines" (the StructILU paper, Section 4.1): the transformed coordinates (x^, y^, z^) = M (i,j,k) with
  level = x^ + y^ + z^ (M unimodular, chosen on the host by ChooseLines()); a thread owns the line of points of one
  (x^, y^), one point per level; a block owns bx x by lines and steps through its levels with its threads together;
  before a level it waits until its predecessor blocks (the block offsets the stencil's lower offsets reach, upper
  ones for the backward sweep) have completed every earlier level.
*/
typedef struct {
  int        minv[9];     /* (i,j,k) = minv (x^, y^, z^), row-major */
  int        x0, y0;      /* the smallest x^ and y^ of the grid */
  int        bx, by;      /* lines per block along x^ and y^ */
  int        nbx, nby;    /* blocks along x^ and y^ (including empty ones, which are not launched) */
  int        nblocks;     /* blocks launched per sweep */
  int        nlevels;     /* levels of the grid */
  int        npred[2];    /* predecessor block offsets of the forward and of the backward sweep */
  const int *pred;        /* 2 npred[0] (dbx, dby) pairs, then 2 npred[1] */
  const int *order;       /* the work units in ticket order: nblocks block ids for the forward sweep, then nblocks for the backward */
  const int *blockid;     /* nbx nby: the block at (bx, by), or -1 when it holds no point */
  const int *bxy;         /* per block: bx + nbx by */
  const int *lmin, *lmax; /* per block: its range of levels */
  int       *flags;       /* per block: the levels completed in this sweep's order (zeroed before each launch) */
} LinesMap;

/* the position of level L in the order of a sweep (dir 0: forward, increasing levels; 1: backward) */
static __device__ __forceinline__ int LinesOrd(const LinesMap *m, int dir, int L)
{
  return dir ? m->nlevels - 1 - L : L;
}

/* the grid point of the line (xh, yh) at level L, or -1 when there is none */
static __device__ __forceinline__ int LinesPoint(const LinesMap *m, const int n[3], int xh, int yh, int L)
{
  const int zh = L - xh - yh;
  const int i = m->minv[0] * xh + m->minv[1] * yh + m->minv[2] * zh, j = m->minv[3] * xh + m->minv[4] * yh + m->minv[5] * zh, l = m->minv[6] * xh + m->minv[7] * yh + m->minv[8] * zh;

  if (i < 0 || i >= n[0] || j < 0 || j >= n[1] || l < 0 || l >= n[2]) return -1;
  return (l * n[1] + j) * n[0] + i;
}

/* the threads of block b wait (each for some predecessors) until the predecessor blocks of sweep dir have completed
   every level before L in the sweep's order; the caller's barrier then releases the block */
static __device__ void LinesWait(const LinesMap *m, int dir, int b, int L)
{
  const int  xy = m->bxy[b], bxb = xy % m->nbx, byb = xy / m->nbx, o = LinesOrd(m, dir, L);
  const int *pr = m->pred + (dir ? 2 * m->npred[0] : 0);

  for (int e = (int)threadIdx.x; e < m->npred[dir]; e += (int)blockDim.x) {
    const int qx = bxb + pr[2 * e], qy = byb + pr[2 * e + 1];
    int       q, olo, ohi;

    if (qx < 0 || qx >= m->nbx || qy < 0 || qy >= m->nby) continue;
    q = m->blockid[qx + m->nbx * qy];
    if (q < 0) continue;
    olo = LinesOrd(m, dir, dir ? m->lmax[q] : m->lmin[q]);
    ohi = LinesOrd(m, dir, dir ? m->lmin[q] : m->lmax[q]);
    if (olo > o - 1) continue; /* nothing of it comes before L */
    gilu_wait_until_ge(&m->flags[q], (o - 1 < ohi ? o - 1 : ohi) + 1);
  }
}

/* the end of level L of block b: its writes made visible, the waits for the next level (if any), the barrier, the flag */
static __device__ __forceinline__ void LinesLevelDone(const LinesMap *m, int dir, int b, int L, int counts, int next, int nowait)
{
  __threadfence();
  if (next && !nowait) LinesWait(m, dir, b, dir ? L - 1 : L + 1);
  gilu_syncthreads();
  if (counts && threadIdx.x == 0) gilu_signal_set(&m->flags[b], LinesOrd(m, dir, L) + 1);
}

/* kernel arguments, passed by value */
typedef struct {
  int           n[3], dof, ns, nl, npoints;
  int           nowait, ic;
  const int    *tileptr;            /* ntiles + 1: the tiles' ranges of positions in level order */
  const int    *perm;               /* position in level order -> grid point */
  const int    *pos;                /* grid point -> position */
  const int    *tileof;             /* grid point -> tile */
  const int    *off;                /* 3 ns offsets */
  const int    *mirror;             /* IC: the opposite of each offset */
  const void   *lval, *uval, *dinv; /* level-ordered blocks: lval nl offsets (ILU), uval ns - nl - 1 offsets, dinv */
  const double *b;
  double       *x, *z; /* z: IC's D^{-1} y */
  int          *flags; /* per tile: the last sweep that completed it */
  int           ntiles;
  int           nstage; /* the intra-row pipeline: groups of threads per block, one per stage */
  const int    *stage;  /* ns: the stage of each off-diagonal offset (its distance in levels, see Create) */
  LinesMap      lines;  /* the lines mapping (unused with tiles) */
  int          *ticket; /* the work units of the blocks (BlockUnit) */
  unsigned int  ticketbase;
} SolveArgs;

/* the block's work unit in this launch, 0 .. gridDim.x - 1, in the order blocks start (not blockIdx: see the top):
   the ticket of the device counter, which counts on over all launches, minus the launch's base (modulo 2^32) */
static __device__ __forceinline__ int BlockUnit(int *ticket, unsigned int base)
{
  return (int)((unsigned int)gilu_block_ticket(ticket) - base);
}

/* a value another block wrote during this kernel: read past the (non-coherent) L1 cache */
static __device__ __forceinline__ double LoadShared(const double *p)
{
#if defined(GILU_CUDAEMU)
  return *(const volatile double *)p;
#else
  return __ldcg(p);
#endif
}

/* the grid point of p + off[s], or -1 outside the grid */
static __device__ __forceinline__ int Neighbour(const SolveArgs *k, int i, int j, int l, int s)
{
  const int qi = i + k->off[3 * s], qj = j + k->off[3 * s + 1], ql = l + k->off[3 * s + 2];

  if (qi < 0 || qi >= k->n[0] || qj < 0 || qj >= k->n[1] || ql < 0 || ql >= k->n[2]) return -1;
  return (ql * k->n[1] + qj) * k->n[0] + qi;
}

/* marks the tile done for this sweep: every thread's writes are made visible device-wide first */
static __device__ __forceinline__ void TileDone(int *flags, int tile, int sweep)
{
  __threadfence();
  gilu_syncthreads();
  if (threadIdx.x == 0) gilu_signal_set(&flags[tile], sweep);
}

/* forward: y_p = b_p - sum_{lower s} L_{p,s} y_{p+s} (ILU); IC: the blocks are U_{q,-s}^T and multiply z_q = D_q^{-1} y_q */
template <int CFG>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUForward(SolveArgs k, int sweep)
{
  typedef typename FactorType<(CFG >> 4)>::T FT;
  const int                                  D = CFG & 15, DD = D * D;
  GILU_DYNAMIC_SHARED(double, ysh); /* nt values of y, then the partial sums of stages 1 .. nstage - 1 */
  const int    nt = (int)blockDim.x / k.nstage, g = (int)threadIdx.x / nt;
  const int    tile = BlockUnit(k.ticket, k.ticketbase), t = (int)threadIdx.x % nt, lp = t / D, a = t % D;
  const int    pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const size_t N   = (size_t)k.npoints;
  double       sum = 0;
  int          p   = 0;

  if (valid) {
    int i, j, l;

    p   = k.perm[pos];
    i   = p % k.n[0];
    j   = (p / k.n[0]) % k.n[1];
    l   = p / (k.n[0] * k.n[1]);
    sum = g == 0 ? k.b[p * D + a] : 0.0;
    for (int s = 0; s < k.nl; s++) {
      const int q = k.stage[s] == g ? Neighbour(&k, i, j, l, s) : -1; /* this group's stage only */

      if (q < 0) continue;
      if (!k.nowait) gilu_wait_until_ge(&k.flags[k.tileof[q]], sweep);
      if (k.ic) {
        const FT     *A  = (const FT *)k.uval + ((size_t)(k.mirror[s] - k.nl - 1) * N + (size_t)k.pos[q]) * DD;
        const double *zq = k.z + (size_t)q * D;

        for (int e = 0; e < D; e++) sum -= (double)A[e * D + a] * LoadShared(zq + e);
      } else {
        const FT     *A  = (const FT *)k.lval + ((size_t)s * N + (size_t)pos) * DD;
        const double *xq = k.x + (size_t)q * D;

        for (int e = 0; e < D; e++) sum -= (double)A[a * D + e] * LoadShared(xq + e);
      }
    }
    if (g > 0) ysh[g * nt + t] = sum;
  }
  gilu_syncthreads();
  if (valid && g == 0) { /* the stages' partial sums, in stage order */
    for (int h = 1; h < k.nstage; h++) sum += ysh[h * nt + t];
    ysh[t] = sum;
  }
  gilu_syncthreads();
  if (valid && g == 0) {
    k.x[p * D + a] = sum;
    if (k.ic) {
      const FT *Di = (const FT *)k.dinv + (size_t)pos * DD;
      double    zz = 0;

      for (int e = 0; e < D; e++) zz += (double)Di[a * D + e] * ysh[lp * D + e];
      k.z[p * D + a] = zz;
    }
  }
  TileDone(k.flags, tile, sweep);
}

/* backward: x_p = D_p^{-1} (y_p - sum_{upper s} U_{p,s} x_{p+s}), tiles by decreasing level */
template <int CFG>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUBackward(SolveArgs k, int sweep)
{
  typedef typename FactorType<(CFG >> 4)>::T FT;
  const int                                  D = CFG & 15, DD = D * D;
  GILU_DYNAMIC_SHARED(double, ysh); /* as in the forward sweep */
  const int    nt = (int)blockDim.x / k.nstage, g = (int)threadIdx.x / nt;
  const int    tile = k.ntiles - 1 - BlockUnit(k.ticket, k.ticketbase), t = (int)threadIdx.x % nt, lp = t / D, a = t % D;
  const int    pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const size_t N   = (size_t)k.npoints;
  double       sum = 0;
  int          p   = 0;

  if (valid) {
    int i, j, l;

    p   = k.perm[pos];
    i   = p % k.n[0];
    j   = (p / k.n[0]) % k.n[1];
    l   = p / (k.n[0] * k.n[1]);
    sum = g == 0 ? k.x[p * D + a] : 0.0;
    for (int s = k.nl + 1; s < k.ns; s++) {
      const int q = k.stage[s] == g ? Neighbour(&k, i, j, l, s) : -1;

      if (q < 0) continue;
      if (!k.nowait) gilu_wait_until_ge(&k.flags[k.tileof[q]], sweep);
      {
        const FT     *U  = (const FT *)k.uval + ((size_t)(s - k.nl - 1) * N + (size_t)pos) * DD;
        const double *xq = k.x + (size_t)q * D;

        for (int e = 0; e < D; e++) sum -= (double)U[a * D + e] * LoadShared(xq + e);
      }
    }
    if (g > 0) ysh[g * nt + t] = sum;
  }
  gilu_syncthreads();
  if (valid && g == 0) {
    for (int h = 1; h < k.nstage; h++) sum += ysh[h * nt + t];
    ysh[t] = sum;
  }
  gilu_syncthreads();
  if (valid && g == 0) {
    const FT *Di = (const FT *)k.dinv + (size_t)pos * DD;
    double    xx = 0;

    for (int e = 0; e < D; e++) xx += (double)Di[a * D + e] * ysh[lp * D + e];
    k.x[p * D + a] = xx;
  }
  TileDone(k.flags, tile, sweep);
}

/*
  Both sweeps with the lines mapping (dir 0: forward as StructILUForward, 1: backward as StructILUBackward): block
  order[dir][unit] (unit: the block's ticket) steps through its levels; at each step the thread of a line computes its
  point of that level.
  The intra-row pipeline of the solves: the group of stage g (neighbours at least P - g levels back) works P - 1 - g
  levels ahead of the last stage, so at every step each group needs only levels the predecessors have completed; its
  partial sum waits in a ring of P slots per stage (shared memory) until the step of its point, where the partial sums
  are added in stage order, as in the tiles mapping.
*/
template <int CFG>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesSolve(SolveArgs k, int dir)
{
  typedef typename FactorType<(CFG >> 4)>::T FT;
  const int                                  D = CFG & 15, DD = D * D;
  GILU_DYNAMIC_SHARED(double, sh); /* the ring: P stages x P slots x nt values; then nt row sums */
  const LinesMap *m = &k.lines;
  const int       P = k.nstage, nt = (int)blockDim.x / P, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt;
  const int       ln = t / D, a = t % D, ahead = P - 1 - g, step = dir ? -1 : 1;
  const int       b = m->order[dir * m->nblocks + BlockUnit(k.ticket, k.ticketbase)], xy = m->bxy[b];
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;
  const int       lo = dir ? m->lmax[b] : m->lmin[b], hi = dir ? m->lmin[b] : m->lmax[b];
  const int       sfirst = dir ? k.nl + 1 : 0, send = dir ? k.ns : k.nl;
  const size_t    N    = (size_t)k.npoints;
  double         *ring = sh, *rowsum = sh + (size_t)P * P * nt;

  if (!k.nowait) LinesWait(m, dir, b, lo - step * (P - 1));
  gilu_syncthreads();
  for (int L = lo - step * (P - 1);; L += step) {
    const int Lg = L + step * ahead, p = LinesPoint(m, k.n, xh, yh, Lg);
    const int counts = dir ? L <= lo : L >= lo, last = L == hi;
    int       p0 = -1, pos0 = 0;
    double    sum = 0;

    if (p >= 0) { /* this group's stage of its point, ahead levels ahead */
      const int pos = k.pos[p], i = p % k.n[0], j = (p / k.n[0]) % k.n[1], l = p / (k.n[0] * k.n[1]);

      sum = g == 0 ? (dir ? k.x[p * D + a] : k.b[p * D + a]) : 0.0;
      for (int s = sfirst; s < send; s++) {
        const int q = k.stage[s] == g ? Neighbour(&k, i, j, l, s) : -1;

        if (q < 0) continue;
        if (!dir && k.ic) {
          const FT     *A  = (const FT *)k.uval + ((size_t)(k.mirror[s] - k.nl - 1) * N + (size_t)k.pos[q]) * DD;
          const double *zq = k.z + (size_t)q * D;

          for (int e = 0; e < D; e++) sum -= (double)A[e * D + a] * LoadShared(zq + e);
        } else {
          const FT     *A  = dir ? (const FT *)k.uval + ((size_t)(s - k.nl - 1) * N + (size_t)pos) * DD : (const FT *)k.lval + ((size_t)s * N + (size_t)pos) * DD;
          const double *xq = k.x + (size_t)q * D;

          for (int e = 0; e < D; e++) sum -= (double)A[a * D + e] * LoadShared(xq + e);
        }
      }
      ring[((size_t)g * P + (size_t)(LinesOrd(m, dir, Lg) % P)) * nt + t] = sum;
    }
    gilu_syncthreads();
    if (counts) p0 = LinesPoint(m, k.n, xh, yh, L);
    if (p0 >= 0 && g == 0) { /* the stages' partial sums of the point of this level, in stage order */
      const int slot = LinesOrd(m, dir, L) % P;

      sum = ring[(size_t)slot * nt + t];
      for (int h = 1; h < P; h++) sum += ring[((size_t)h * P + slot) * nt + t];
      rowsum[t] = sum;
      pos0      = k.pos[p0];
    }
    gilu_syncthreads();
    if (p0 >= 0 && g == 0) {
      if (!dir) k.x[p0 * D + a] = sum;
      if (dir || k.ic) { /* x = D^{-1} sum (backward), z = D^{-1} y (IC's forward) */
        const FT *Di = (const FT *)k.dinv + (size_t)pos0 * DD;
        double    r  = 0;

        for (int e = 0; e < D; e++) r += (double)Di[a * D + e] * rowsum[ln * D + e];
        if (dir) k.x[p0 * D + a] = r;
        else k.z[p0 * D + a] = r;
      }
    }
    LinesLevelDone(m, dir, b, L, counts, !last, k.nowait);
    if (last) break;
  }
}

/* kernel arguments of the factorization */
typedef struct {
  int          n[3], ns, nl, npoints, ic, nowait;
  const int   *tileptr, *perm, *pos, *tileof, *off, *mirror;
  const int   *elimptr, *elimu, *elimt; /* per lower offset s: the updates A_{p,elimt} -= L_ps U_{q,elimu} */
  const int   *missptr, *missoff;       /* per point (natural numbering, CSR): the offsets absent from the pattern; NULL: none */
  double      *val, *dinv;              /* level-ordered, all ns offsets */
  int         *flags, *zerorow;
  double       zeropivot;
  LinesMap     lines;
  const int   *early;  /* two-substage pipeline: per lower offset, 1 when its L block is finalized in substage 1 */
  const int   *pairs1; /* per elimination entry, 1 when its update is made in substage 1 */
  int         *ticket; /* the work units of the blocks (BlockUnit) */
  unsigned int ticketbase;
} FactorArgs;

/* the inverse of the diagonal block of the point p at position pos, by Gauss-Jordan with partial pivoting as
   GILUBlockInvert(); a zero pivot leaves a zero inverse (later rows stay finite) and records the row */
template <int D>
static __device__ void GILUDeviceBlockInvert(const FactorArgs *k, int pos, int p)
{
  const int    DD = D * D;
  const size_t N  = (size_t)k->npoints;
  double       M[DD], Ainv[DD];
  int          ok = 1;

  for (int e = 0; e < DD; e++) {
    M[e]    = k->val[((size_t)k->nl * N + (size_t)pos) * DD + e];
    Ainv[e] = 0;
  }
  for (int e = 0; e < D; e++) Ainv[e * D + e] = 1;
  for (int c = 0; c < D && ok; c++) {
    int    piv = c;
    double inv;

    for (int r = c + 1; r < D; r++)
      if (fabs(M[r * D + c]) > fabs(M[piv * D + c])) piv = r;
    if (fabs(M[piv * D + c]) <= k->zeropivot) {
      ok = 0;
      break;
    }
    if (piv != c)
      for (int e = 0; e < D; e++) {
        double x = M[c * D + e], u = Ainv[c * D + e];

        M[c * D + e]      = M[piv * D + e];
        Ainv[c * D + e]   = Ainv[piv * D + e];
        M[piv * D + e]    = x;
        Ainv[piv * D + e] = u;
      }
    inv = 1.0 / M[c * D + c];
    for (int e = 0; e < D; e++) {
      M[c * D + e] *= inv;
      Ainv[c * D + e] *= inv;
    }
    for (int r = 0; r < D; r++) {
      double f = M[r * D + c];

      if (r == c || f == 0.0) continue;
      for (int e = 0; e < D; e++) {
        M[r * D + e] -= f * M[c * D + e];
        Ainv[r * D + e] -= f * Ainv[c * D + e];
      }
    }
  }
  for (int e = 0; e < DD; e++) k->dinv[(size_t)pos * DD + e] = ok ? Ainv[e] : 0.0; /* a zero pivot: keep later rows finite */
  if (!ok) atomicMin(k->zerorow, p * D);
}

/*
  In-place ILU(0) of the rows of a tile (Algorithm 1 of the StructILU paper; the same operations, in the same order, as
  ilu-kernels.h), thread a of a point computing row a of its block row: L_ps = A_ps D_q^{-1} (IC: U_{q,-s}^T
  D_q^{-1}) and A_{p,s+u} -= L_ps U_{q,u} need only row a, so the DoF threads of a point are independent until the
  diagonal block is inverted (by the point's first thread, Gauss-Jordan with partial pivoting as on the host).
*/
/* The grid point at stored position pos of the level-ordered factors: its coordinates and its range of absent
   stencil positions (missptr; none when the pattern is the full stencil everywhere) */
static __device__ __forceinline__ int FactorPoint(const FactorArgs *k, int pos, int *i, int *j, int *l, int *m, int *mend)
{
  const int p = k->perm[pos];

  *i = p % k->n[0];
  *j = (p / k->n[0]) % k->n[1];
  *l = p / (k->n[0] * k->n[1]);
  if (k->missptr) {
    *m    = k->missptr[p];
    *mend = k->missptr[p + 1];
  }
  return p;
}

/* Lower neighbour s of the grid point (i, j, l): 0 outside the grid; -1 an offset absent from the pattern there (its L block
   stays zero; *m steps past it); else 1 and *q its grid index. m walks the point's absent offsets in increasing s. */
static __device__ __forceinline__ int FactorNeighbour(const FactorArgs *k, int i, int j, int l, int s, int *m, int mend, int *q)
{
  const int qi = i + k->off[3 * s], qj = j + k->off[3 * s + 1], ql = l + k->off[3 * s + 2];

  if (qi < 0 || qi >= k->n[0] || qj < 0 || qj >= k->n[1] || ql < 0 || ql >= k->n[2]) return 0;
  while (*m < mend && k->missoff[*m] < s) (*m)++;
  if (*m < mend && k->missoff[*m] == s) {
    (*m)++;
    return -1;
  }
  *q = (ql * k->n[1] + qj) * k->n[0] + qi;
  return 1;
}

/* row a of the multiplier L_ps D_q^{-1} of the point at position pos and its neighbour s at position qpos (IC: from the
   mirrored U block, U_qp^T D_q^{-1}) into lrow; shared by the scalar factorization and its two-substage pipeline */
template <int D>
static __device__ __forceinline__ void MultiplierRow(const FactorArgs *k, int s, int pos, int qpos, int a, double *lrow)
{
  const int     DD = D * D;
  const size_t  N  = (size_t)k->npoints;
  const double *Dq = k->dinv + (size_t)qpos * DD, *Lps = k->val + ((size_t)s * N + (size_t)pos) * DD;

  if (k->ic) {
    const double *Uq = k->val + ((size_t)k->mirror[s] * N + (size_t)qpos) * DD;

    for (int c = 0; c < D; c++) {
      double r = 0;

      for (int e = 0; e < D; e++) r += LoadShared(Uq + e * D + a) * LoadShared(Dq + e * D + c);
      lrow[c] = r;
    }
  } else {
    for (int c = 0; c < D; c++) {
      double r = 0;

      for (int e = 0; e < D; e++) r += Lps[a * D + e] * LoadShared(Dq + e * D + c);
      lrow[c] = r;
    }
  }
}

/* row a of the block row of the point p (at position pos) of the in-place ILU(0); wait: for each neighbour's tile (the
   tiles mapping; the lines mapping waits per block and level before) */
template <int D>
static __device__ void FactorRow(const FactorArgs *k, int pos, int p, int a, int sweep, int wait)
{
  const int    DD = D * D;
  const size_t N  = (size_t)k->npoints;
  int          i, j, l, m = 0, mend = 0;

  (void)FactorPoint(k, pos, &i, &j, &l, &m, &mend);
  for (int s = 0; s < k->nl; s++) {
    double *Lps, lrow[D];
    int     q = 0, qpos, in = FactorNeighbour(k, i, j, l, s, &m, mend, &q);

    if (!in) continue;
    Lps = k->val + ((size_t)s * N + (size_t)pos) * DD;
    if (in < 0) { /* not in the pattern: no fill kept there */
      for (int c = 0; c < D; c++) Lps[a * D + c] = 0;
      continue;
    }
    if (wait) gilu_wait_until_ge(&k->flags[k->tileof[q]], sweep);
    qpos = k->pos[q];
    MultiplierRow<D>(k, s, pos, qpos, a, lrow);
    for (int c = 0; c < D; c++) Lps[a * D + c] = lrow[c];
    for (int e = k->elimptr[s]; e < k->elimptr[s + 1]; e++) {
      const double *U = k->val + ((size_t)k->elimu[e] * N + (size_t)qpos) * DD;
      double       *T = k->val + ((size_t)k->elimt[e] * N + (size_t)pos) * DD;

      for (int c = 0; c < D; c++) {
        const double la = lrow[c];

        for (int b = 0; b < D; b++) T[a * D + b] -= la * LoadShared(U + c * D + b);
      }
    }
  }
  if (k->missptr)
    for (m = k->missptr[p]; m < mend; m++) {
      double *Z = k->val + ((size_t)k->missoff[m] * N + (size_t)pos) * DD;

      for (int c = 0; c < D; c++) Z[a * D + c] = 0;
    }
}

template <int D>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUFactorKernel(FactorArgs k, int sweep)
{
  const int tile = BlockUnit(k.ticket, k.ticketbase), t = threadIdx.x, lp = t / D, a = t % D;
  const int pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const int p = valid ? k.perm[pos] : 0;

  if (valid) FactorRow<D>(&k, pos, p, a, sweep, !k.nowait);
  gilu_syncthreads();
  if (valid && a == 0) GILUDeviceBlockInvert<D>(&k, pos, p);
  TileDone(k.flags, tile, sweep);
}

/*
  The same inversion by one warp with shuffles: lane l holds row l/4 of the augmented matrix [M | I] (8 x 16, zero
  padded), columns 4(l%4) .. 4(l%4)+3. Per column c: the pivot row (largest |M[r][c]|, r >= c, the first of equals,
  as on the host) by a butterfly over the rows, the swap of rows c and piv and the elimination with row c by
  shuffles from the lanes that hold them. All 32 lanes take part (no divergence at the shuffles).
*/
template <int D>
static __device__ void GILUDeviceBlockInvertWarp(const FactorArgs *k, int pos, int p)
{
  const int    lane = gilu_lane_id(), r = lane >> 2, q = lane & 3, DD = D * D;
  const size_t N = (size_t)k->npoints;
  double       v[4];
  int          ok = 1;

  for (int t = 0; t < 4; t++) {
    const int col = 4 * q + t;

    if (r >= D) v[t] = 0;
    else if (col < 8) v[t] = col < D ? k->val[((size_t)k->nl * N + (size_t)pos) * DD + r * D + col] : 0;
    else v[t] = col - 8 == r ? 1.0 : 0.0;
  }
  for (int c = 0; c < D; c++) {
    double mine = gilu_shfl(v[c & 3], 4 * r + (c >> 2)), best, pivot; /* M[r][c] for the lanes of row r */
    int    brow = r, piv;

    best = r >= c && r < D ? fabs(mine) : -1.0;
    for (int m = 4; m < 32; m <<= 1) { /* butterfly over the rows: the largest, the first of equals */
      double ob   = gilu_shfl_xor(best, m);
      int    orow = gilu_shfl_xor(brow, m);

      if (ob > best || (ob == best && orow < brow)) {
        best = ob;
        brow = orow;
      }
    }
    piv = brow;
    if (gilu_any(!(best > k->zeropivot))) { /* warp-uniform; a NaN is a zero pivot too */
      ok = 0;
      break;
    }
    { /* swap rows c and piv */
      const int from = 4 * (r == c ? piv : (r == piv ? c : r)) + q;

      for (int t = 0; t < 4; t++) v[t] = gilu_shfl(v[t], from);
    }
    pivot = gilu_shfl(v[c & 3], 4 * c + (c >> 2)); /* M[c][c] after the swap */
    if (r == c)
      for (int t = 0; t < 4; t++) v[t] *= 1.0 / pivot;
    {
      const double f = gilu_shfl(v[c & 3], 4 * r + (c >> 2)); /* M[r][c] */

      for (int t = 0; t < 4; t++) {
        const double rc = gilu_shfl(v[t], 4 * c + q); /* row c, the same columns */

        if (r != c && f != 0.0) v[t] -= f * rc;
      }
    }
  }
  for (int t = 0; t < 4; t++) {
    const int col = 4 * q + t - 8;

    if (r < D && col >= 0 && col < D) k->dinv[(size_t)pos * DD + r * D + col] = ok ? v[t] : 0.0;
  }
  if (!ok && lane == 0) atomicMin(k->zerorow, p * D);
}

/*
  The same factorization for DoF >= 4 on the FP64 tensor cores: one warp per grid point, every DoF x DoF block
  product (L_ps = A_ps D_q^{-1}, IC: U_{q,-s}^T D_q^{-1}, and A_{p,s+u} -= L_ps U_{q,u}) as two m8n8k4 MMAs (K = 8 in two
  halves of 4; blocks padded to 8 x 8 with zeros) through gilu_mma_m8n8k4_f64. The sums are formed in the MMA's order,
  so the factors equal the host's to round-off, not bitwise. The lanes of a warp stay converged: the loops, the
  waits and the tests depend on the point only.
*/
/* the block row of the point p (at position pos) by the calling warp; wait as in FactorRow() */
template <int D>
static __device__ void FactorRowMMA(const FactorArgs *k, int pos, int p, int sweep, int wait)
{
  const int    DD = D * D, lane = gilu_lane_id();
  const int    r = lane >> 2, c0 = 2 * (lane & 3), kq = lane & 3;
  const size_t N = (size_t)k->npoints;
  int          i, j, l, m = 0, mend = 0;

  (void)FactorPoint(k, pos, &i, &j, &l, &m, &mend);
  for (int s = 0; s < k->nl; s++) {
    double *Lps, acc[2];
    int     q = 0, qpos, in = FactorNeighbour(k, i, j, l, s, &m, mend, &q);

    if (!in) continue;
    Lps = k->val + ((size_t)s * N + (size_t)pos) * DD;
    if (in < 0) { /* no lane reads this block again (later updates target later offsets): no __syncwarp needed */
      for (int e = lane; e < DD; e += 32) Lps[e] = 0;
      continue;
    }
    if (wait) {
      gilu_wait_until_ge(&k->flags[k->tileof[q]], sweep);
      gilu_syncwarp(); /* mutation-survivor: reconverges the lanes after their spins before mma.sync.aligned (undefined when divergent); unobservable in the emulation, whose MMA is a rendezvous */
    }
    qpos = k->pos[q];
    {
      const double *Dq = k->dinv + (size_t)qpos * DD;
      const double *Uq = k->ic ? k->val + ((size_t)k->mirror[s] * N + (size_t)qpos) * DD : NULL;

      acc[0] = acc[1] = 0;
      for (int kc = 0; kc < 2; kc++) {
        const int kx = 4 * kc + kq;
        double    a = 0, b = 0;

        if (r < D && kx < D) {
          a = k->ic ? LoadShared(Uq + kx * D + r) : Lps[r * D + kx];
          b = LoadShared(Dq + kx * D + r); /* B[kx][r]: lane holds row lane%4, column lane/4 */
        }
        gilu_mma_m8n8k4_f64(acc, a, b, acc);
      }
    }
    gilu_syncwarp(); /* mutation-survivor: the lanes' loads of A_ps before its overwrite (PTX orders them by bar.warp.sync, not by mma.sync); unobservable in the emulation, whose MMA takes all inputs first */
    if (r < D && c0 < D) Lps[r * D + c0] = acc[0];
    if (r < D && c0 + 1 < D) Lps[r * D + c0 + 1] = acc[1];
    gilu_syncwarp();
    for (int e = k->elimptr[s]; e < k->elimptr[s + 1]; e++) {
      const double *U = k->val + ((size_t)k->elimu[e] * N + (size_t)qpos) * DD;
      double       *T = k->val + ((size_t)k->elimt[e] * N + (size_t)pos) * DD;

      acc[0] = r < D && c0 < D ? T[r * D + c0] : 0;
      acc[1] = r < D && c0 + 1 < D ? T[r * D + c0 + 1] : 0;
      for (int kc = 0; kc < 2; kc++) {
        const int kx = 4 * kc + kq;
        double    a = 0, b = 0;

        if (r < D && kx < D) {
          a = -Lps[r * D + kx];
          b = LoadShared(U + kx * D + r);
        }
        gilu_mma_m8n8k4_f64(acc, a, b, acc);
      }
      if (r < D && c0 < D) T[r * D + c0] = acc[0];
      if (r < D && c0 + 1 < D) T[r * D + c0 + 1] = acc[1];
    }
    gilu_syncwarp(); /* every lane's updates T are made: other lanes read them as a later A_ps or zero them below */
  }
  if (k->missptr)
    for (m = k->missptr[p]; m < mend; m++) {
      double *Z = k->val + ((size_t)k->missoff[m] * N + (size_t)pos) * DD;

      for (int e = lane; e < DD; e += 32) Z[e] = 0;
    }
}

template <int D>
__global__ void __launch_bounds__(GILU_WARP_MAX_THREADS) StructILUFactorMMAKernel(FactorArgs k, int sweep)
{
  const int tile = BlockUnit(k.ticket, k.ticketbase), lp = gilu_warp_id();
  const int pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const int p = valid ? k.perm[pos] : 0;

  /* a warp inverts the diagonal block its own lanes updated (ordered by FactorRowMMA's __syncwarp): no barrier */
  if (valid) FactorRowMMA<D>(&k, pos, p, sweep, !k.nowait);
  if (valid) GILUDeviceBlockInvertWarp<D>(&k, pos, p);
  TileDone(k.flags, tile, sweep);
}

/* The factorization with the lines mapping: block order[0][unit] (unit: the block's ticket) steps through its levels,
   the DoF threads of a line (mma: the warp of a line) computing its point of each level as StructILUFactorKernel
   (StructILUFactorMMAKernel) does */
template <int D, int MMA>
static __device__ void LinesFactor(const FactorArgs &k)
{
  const LinesMap *m  = &k.lines;
  const int       ln = MMA ? gilu_warp_id() : (int)threadIdx.x / D, a = MMA ? gilu_lane_id() : (int)threadIdx.x % D;
  const int       b = m->order[BlockUnit(k.ticket, k.ticketbase)], xy = m->bxy[b];
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;

  if (!k.nowait) LinesWait(m, 0, b, m->lmin[b]);
  gilu_syncthreads();
  for (int L = m->lmin[b]; L <= m->lmax[b]; L++) {
    const int p = LinesPoint(m, k.n, xh, yh, L), pos = p >= 0 ? k.pos[p] : 0;

    if (p >= 0) {
      if (MMA) FactorRowMMA<D>(&k, pos, p, 0, 0);
      else FactorRow<D>(&k, pos, p, a, 0, 0);
    }
    gilu_syncthreads();
    if (p >= 0) {
      if (MMA) GILUDeviceBlockInvertWarp<D>(&k, pos, p);
      else if (a == 0) GILUDeviceBlockInvert<D>(&k, pos, p);
    }
    LinesLevelDone(m, 0, b, L, 1, L < m->lmax[b], k.nowait);
  }
}

template <int D>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesFactor(FactorArgs k)
{
  LinesFactor<D, 0>(k);
}

template <int D>
__global__ void __launch_bounds__(GILU_WARP_MAX_THREADS) StructILULinesFactorMMA(FactorArgs k)
{
  LinesFactor<D, 1>(k);
}

/*
  The two-substage pipelined factorization (the StructILU paper, Section 4.2.2, Figure 4(c)-(f)) on the lines mapping. The
  intra-row dependency graph of a row: the L block of lower offset s needs the updates from the earlier lower offsets s'
  with s' + u = s; each update A_{p,t} -= L_ps U_{p+s,u} needs L_ps and the row p + s, which lies depth(s) = -w.s grid
  levels back. Substage 1 of a row is the part of the first two intra-row levels (L blocks without incoming updates, and
  those whose incoming updates come from them) that reads only rows at least two grid levels back (SubstageSets() on the
  host): the L blocks finalized there, and the updates made there, each update of an element in substage 1 only when all
  earlier updates of that element are (so every element gets its updates in the sequential order: the factors are the
  host's to round-off, the same operations as FactorRow()). Substage 2 is the rest, then the inversion of the diagonal
  block. At the step of level L a block runs substage 2 of its rows at level L (thread group 1) beside substage 1 of its
  rows at level L + 1 (group 0), which needs only levels up to L - 1: one barrier between the substages (and one for the
  inversion, which needs all rows of the diagonal block), the other dependencies by the block-to-block waiting.
*/
template <int D>
static __device__ void FactorSubstage(const FactorArgs *k, int pos, int p, int a, int second)
{
  const int    DD = D * D;
  const size_t N  = (size_t)k->npoints;
  int          i, j, l, m = 0, mend = 0;

  (void)FactorPoint(k, pos, &i, &j, &l, &m, &mend);
  for (int s = 0; s < k->nl; s++) {
    const int mine = k->early[s] ? !second : second; /* this substage finalizes L_ps */
    double   *Lps, lrow[D];
    int       q = 0, qpos, in = FactorNeighbour(k, i, j, l, s, &m, mend, &q);

    if (!in) continue;
    Lps = k->val + ((size_t)s * N + (size_t)pos) * DD;
    if (in < 0) {
      if (mine)
        for (int c = 0; c < D; c++) Lps[a * D + c] = 0;
      continue;
    }
    if (!mine && !second) continue; /* a late L block: all its updates are in substage 2 */
    qpos = k->pos[q];
    if (mine) {
      MultiplierRow<D>(k, s, pos, qpos, a, lrow);
      for (int c = 0; c < D; c++) Lps[a * D + c] = lrow[c];
    } else
      for (int c = 0; c < D; c++) lrow[c] = Lps[a * D + c]; /* finalized in substage 1 */
    for (int e = k->elimptr[s]; e < k->elimptr[s + 1]; e++) {
      const double *U = k->val + ((size_t)k->elimu[e] * N + (size_t)qpos) * DD;
      double       *T = k->val + ((size_t)k->elimt[e] * N + (size_t)pos) * DD;

      if (k->pairs1[e] == second) continue; /* the other substage's update */
      for (int c = 0; c < D; c++) {
        const double la = lrow[c];

        for (int b = 0; b < D; b++) T[a * D + b] -= la * LoadShared(U + c * D + b);
      }
    }
  }
  if (second && k->missptr)
    for (m = k->missptr[p]; m < mend; m++) {
      double *Z = k->val + ((size_t)k->missoff[m] * N + (size_t)pos) * DD;

      for (int c = 0; c < D; c++) Z[a * D + c] = 0;
    }
}

/* threads: group 0 (substage 1, the rows one level ahead) and group 1 (substage 2), DoF threads per line each */
template <int D>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesFactorPipelined(FactorArgs k)
{
  const LinesMap *m  = &k.lines;
  const int       nt = (int)blockDim.x / 2, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt, ln = t / D, a = t % D;
  const int       b = m->order[BlockUnit(k.ticket, k.ticketbase)], xy = m->bxy[b];
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;
  const int       lo = m->lmin[b], hi = m->lmax[b];

  if (!k.nowait) LinesWait(m, 0, b, lo - 1);
  gilu_syncthreads();
  for (int L = lo - 1;; L++) {
    const int p = LinesPoint(m, k.n, xh, yh, g ? L : L + 1), pos = p >= 0 ? k.pos[p] : 0;

    if (p >= 0) FactorSubstage<D>(&k, pos, p, a, g);
    gilu_syncthreads();
    if (g && p >= 0 && a == 0) GILUDeviceBlockInvert<D>(&k, pos, p);
    LinesLevelDone(m, 0, b, L, L >= lo, L < hi, k.nowait);
    if (L == hi) break;
  }
}

/* the single-precision copy of n values */
__global__ void StructILUToSingle(const double *from, float *to, size_t n)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (size_t)gridDim.x * blockDim.x) to[t] = (float)from[t];
}

struct _n_StructILUDevice {
  SolveArgs args; /* device pointers */
  int      *tileptr, *perm, *pos, *tileof, *off, *mirror, *flags, *stage;
  PetscInt  nstage;             /* stages of the intra-row pipeline of the solves */
  void     *lval, *uval, *dinv; /* device; owned unless they point into val and dinvd (double factors computed on the device) */
  PetscBool ownfactors;
  double   *val, *dinvd; /* device factorization: the matrix values (all offsets) and the inverted diagonal, level-ordered */
  int      *elimptr, *elimu, *elimt, *missptr, *missoff, *zerorow;
  PetscBool usedmma;   /* the last factorization ran on the tensor cores */
  double   *b, *x, *z; /* device vectors */
  PetscInt *hperm;     /* host copy of perm, for the level-ordered layout of the factors */
  PetscInt  ntiles, tilepoints, nthreads, dof, npoints, nl, nu;
  int       sweep; /* sweeps run (forward and backward each count) */
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
};

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

/*
  The affine transformation of the lines mapping (the StructILU paper, Section 4.1, Figure 3): integer rows a, b of
  M = [a; b; w - a - b] (w: the level weights) with det M = +-1, so (x^, y^, z^) = M (i,j,k) is a bijection with
  level = x^ + y^ + z^: each line (x^, y^) holds at most one point per level. Every lower offset l must have a.l <= 0
  and b.l <= 0 (and every upper offset u a.u >= 0, b.u >= 0): then a point depends only on lines at smaller or equal
  x^ and y^, so the blocks of lines depend on each other without cycles (a = e_k, b = (0, 1, W) and c = w - a - b
  qualify whenever w = (1, ., .), W the stencil's width). Among the rows with entries in [-4, 4] that satisfy this,
  the fewest lines (x^ range times y^ range of the grid) are taken, then the smallest entries.
  Star-7 gives lines along one axis; Diamond-13 and Box-27 give x^ = j + k and y^ = k (lines along i), one of the
  paper's choices up to the order of the axes.
*/
static PetscErrorCode ChooseLines(const GILUStencil *st, const GILUGrid *g, const PetscInt w[3], PetscInt M[3][3])
{
  const PetscInt W = GILU_STENCIL_MAX_WIDTH, R = 2 * W + 1;
  PetscInt64     best[2] = {GILU_INT64_MAX, GILU_INT64_MAX};

  PetscFunctionBegin;
  for (PetscInt ai = 0; ai < R * R * R; ai++) {
    const PetscInt a[3] = {ai % R - W, (ai / R) % R - W, ai / (R * R) - W};
    PetscBool      ok   = PETSC_TRUE;

    for (PetscInt s = 0; s < st->ns && ok; s++) {
      const PetscInt d = a[0] * st->off[s][0] + a[1] * st->off[s][1] + a[2] * st->off[s][2];

      ok = (PetscBool)(s == st->nlower || (s < st->nlower ? d <= 0 : d >= 0));
    }
    if (!ok) continue;
    for (PetscInt bi = 0; bi < R * R * R; bi++) {
      const PetscInt b[3] = {bi % R - W, (bi / R) % R - W, bi / (R * R) - W};
      PetscInt       c[3], det;
      PetscInt64     range[2] = {1, 1}, cost[2];

      for (PetscInt s = 0; s < st->ns && ok; s++) {
        const PetscInt d = b[0] * st->off[s][0] + b[1] * st->off[s][1] + b[2] * st->off[s][2];

        ok = (PetscBool)(s == st->nlower || (s < st->nlower ? d <= 0 : d >= 0));
      }
      if (!ok) {
        ok = PETSC_TRUE;
        continue;
      }
      for (PetscInt e = 0; e < 3; e++) c[e] = w[e] - a[e] - b[e];
      det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
      if (det != 1 && det != -1) continue;
      for (PetscInt e = 0; e < 3; e++) {
        range[0] += (PetscInt64)PetscAbsInt(a[e]) * (g->n[e] - 1);
        range[1] += (PetscInt64)PetscAbsInt(b[e]) * (g->n[e] - 1);
      }
      cost[0] = range[0] * range[1];
      cost[1] = PetscAbsInt(a[0]) + PetscAbsInt(a[1]) + PetscAbsInt(a[2]) + PetscAbsInt(b[0]) + PetscAbsInt(b[1]) + PetscAbsInt(b[2]);
      if (range[0] < range[1] || cost[0] > best[0] || (cost[0] == best[0] && cost[1] >= best[1])) continue;
      best[0] = cost[0];
      best[1] = cost[1];
      for (PetscInt e = 0; e < 3; e++) {
        M[0][e] = a[e];
        M[1][e] = b[e];
        M[2][e] = c[e];
      }
    }
  }
  PetscCheck(best[0] < GILU_INT64_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "No affine transformation with entries in [-%d, %d] makes the dependencies of this stencil acyclic between lines: use -pc_structilu_cuda_mapping tiles", (int)W, (int)W);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the weights of the levels: from the host's hyperplanes when they also order the upper offsets, else searched */
static PetscErrorCode ChooseWeights(const GILUStencil *st, const GILUGrid *g, PetscInt w[3], PetscInt *nlevels)
{
  const PetscInt W    = 2 * GILU_STENCIL_MAX_WIDTH + 1;
  PetscInt       best = PETSC_MAX_INT;
  PetscBool      ok   = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(GILUStencilGetHyperplanes(st, g, w, nlevels));
  for (PetscInt s = st->nlower + 1; s < st->ns && ok; s++) ok = (PetscBool)(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2] >= 1);
  if (ok) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt c = 0; c <= W * W; c++)
    for (PetscInt b = 0; b <= W; b++)
      for (PetscInt a = 0; a <= 2; a++) {
        PetscInt  levels = a * (g->n[0] - 1) + b * (g->n[1] - 1) + c * (g->n[2] - 1) + 1;
        PetscBool valid  = PETSC_TRUE;

        if (levels >= best) continue;
        for (PetscInt s = 0; s < st->ns && valid; s++) {
          PetscInt v = a * st->off[s][0] + b * st->off[s][1] + c * st->off[s][2];

          if (s != st->nlower) valid = (PetscBool)(s < st->nlower ? v <= -1 : v >= 1);
        }
        if (valid) {
          best = levels;
          w[0] = a;
          w[1] = b;
          w[2] = c;
        }
      }
  PetscCheck(best < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "No hyperplane schedule orders both the lower and the upper offsets of this stencil");
  *nlevels = best;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyIntArray(const PetscInt *from, PetscInt n, int **dev)
{
  int *h;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &h));
  for (PetscInt t = 0; t < n; t++) h[t] = (int)from[t];
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)n, (void **)dev));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(*dev, h, sizeof(int) * (size_t)n));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The intra-row pipeline of the solves (the StructILU paper, Section 4.2.1): the off-diagonal offsets of a row are split into
  P stages by their distance in levels, depth = |w.off| >= 1: stage P - depth, at least 0 (the paper's rule: the
  nonzeros of stage g lie at most g - P levels back). Each stage is summed by its own group of threads of the block,
  which waits only for the neighbours of its stage: the earlier stages' neighbours belong to levels finished long
  before, so on a GPU those groups do their products while the block still waits for the previous level, and only
  the last stage (depth 1) is left after that wait. The partial sums are added in stage order. P = 1: one group, the
  products of a row in stencil order as before. Automatic (pipeline 0): P = min(4, the largest depth), as Table 2 of
  the StructILU paper (Star-7P 1, Star-13P and Diamond-13P 2, Box-27P 4); P is also capped by the largest depth, by
  1024 threads per block and by maxstages (the lines mapping's shared memory).
*/
static PetscErrorCode ChooseStages(const GILUStencil *st, const PetscInt w[3], PetscInt pipeline, PetscInt nthreads, PetscInt maxstages, PetscInt stage[], PetscInt *nstage)
{
  PetscInt maxdepth = 1, P;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < st->ns; s++) {
    if (s == st->nlower) continue;
    maxdepth = PetscMax(maxdepth, PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]));
  }
  P = pipeline > 0 ? pipeline : PetscMin(4, maxdepth);
  P = PetscMax(1, PetscMin(PetscMin(P, maxdepth), PetscMin(GILU_TILE_MAX_THREADS / nthreads, maxstages)));
  for (PetscInt s = 0; s < st->ns; s++) {
    const PetscInt depth = PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]);

    stage[s] = s == st->nlower ? -1 : PetscMax(0, P - depth);
  }
  *nstage = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* floor(x / B) for B > 0 */
static inline PetscInt FloorDiv(PetscInt x, PetscInt B)
{
  return x >= 0 ? x / B : -((-x + B - 1) / B);
}

/* the smallest value of the coordinate a.(i,j,k) on the grid and the number of its values */
static void CoordinateRange(const GILUGrid *g, const PetscInt a[3], PetscInt *lo, PetscInt *range)
{
  *lo    = 0;
  *range = 1;
  for (PetscInt e = 0; e < 3; e++) {
    *lo += PetscMin(0, a[e] * (g->n[e] - 1));
    *range += PetscAbsInt(a[e]) * (g->n[e] - 1);
  }
}

/*
  The lines mapping on the host: the level order of the points (by level, then y^, then x^: the threads of a block
  that work on one level read consecutive positions, the paper's level-based memory layout), the blocks of linesx x
  linesy lines (at most tilepoints lines; a square-ish tile of the x^y^-plane), each block's range of levels, the
  predecessor block offsets of each sweep (from the stencil: the block offsets that the lower, resp. upper, offsets
  reach from some line of a block) and the launch orders: by increasing minimum effective level, the largest of a
  block's own minimum level and its predecessors' (backward: the smallest maximum level, by decreasing level), ties by
  x^ + y^ block index, so every block comes after its predecessors; the blocks take their place in this order from a
  ticket (BlockUnit), so the waiting is deadlock-free whatever order a GPU dispatches them in (see the top).
*/
static PetscErrorCode SetUpLines(StructILUDevice dev, const GILUStencil *st, const GILUGrid *g, const PetscInt w[3], PetscInt nlevels, PetscInt tilepoints, PetscInt perm[], StructILUDeviceInfo *info)
{
  const PetscInt N = g->n[0] * g->n[1] * g->n[2];
  PetscInt       M[3][3], Minv[9], x0, y0, rx, ry, Bx, By = 1, nbx, nby, ncell, nb = 0, *lmin, *lmax, *blockid, *bxy, *eff, *order, npred[2] = {0, 0}, pred[2][2 * 128];
  PetscInt64    *key;
  char          *used;

  PetscFunctionBegin;
  PetscCall(ChooseLines(st, g, w, M));
  /* the inverse of M (det +-1): the adjugate times det */
  {
    const PetscInt det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);

    for (PetscInt r = 0; r < 3; r++)
      for (PetscInt c = 0; c < 3; c++) {
        const PetscInt r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;

        Minv[3 * r + c] = det * (M[r1][c1] * M[r2][c2] - M[r1][c2] * M[r2][c1]);
      }
  }
  CoordinateRange(g, M[0], &x0, &rx);
  CoordinateRange(g, M[1], &y0, &ry);
  PetscCheck((PetscInt64)rx * ry < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "The local grid is too large for the lines mapping: use -pc_structilu_cuda_mapping tiles");
  while (4 * By * By <= tilepoints && 2 * By <= ry) By *= 2;
  Bx    = PetscMax(1, PetscMin(tilepoints / By, rx));
  nbx   = (rx + Bx - 1) / Bx;
  nby   = (ry + By - 1) / By;
  ncell = nbx * nby;
  /* the level order: by (level, y^, x^) */
  PetscCall(PetscMalloc2(N, &key, (size_t)rx * ry, &used));
  PetscCall(PetscArrayzero(used, (size_t)rx * ry));
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt v[3] = {p % g->n[0], (p / g->n[0]) % g->n[1], p / (g->n[0] * g->n[1])};
    const PetscInt xh = M[0][0] * v[0] + M[0][1] * v[1] + M[0][2] * v[2] - x0, yh = M[1][0] * v[0] + M[1][1] * v[1] + M[1][2] * v[2] - y0;

    key[p]             = ((PetscInt64)(w[0] * v[0] + w[1] * v[1] + w[2] * v[2]) * ry + yh) * rx + xh;
    used[yh * rx + xh] = 1;
  }
  PetscCall(PetscSortInt64(N, key));
  for (PetscInt q = 0; q < N; q++) {
    const PetscInt xh = (PetscInt)(key[q] % rx) + x0, yh = (PetscInt)((key[q] / rx) % ry) + y0, zh = (PetscInt)(key[q] / ((PetscInt64)rx * ry)) - xh - yh;
    const PetscInt i = Minv[0] * xh + Minv[1] * yh + Minv[2] * zh, j = Minv[3] * xh + Minv[4] * yh + Minv[5] * zh, l = Minv[6] * xh + Minv[7] * yh + Minv[8] * zh;

    perm[q] = (l * g->n[1] + j) * g->n[0] + i;
  }
  info->nlines = 0;
  for (PetscInt c = 0; c < rx * ry; c++) info->nlines += used[c];
  PetscCall(PetscFree2(key, used));
  /* the blocks: level ranges, ids of the non-empty ones */
  PetscCall(PetscMalloc6(ncell, &lmin, ncell, &lmax, ncell, &blockid, ncell, &bxy, ncell, &eff, 2 * ncell, &order));
  for (PetscInt c = 0; c < ncell; c++) {
    lmin[c] = PETSC_MAX_INT;
    lmax[c] = -1;
  }
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt v[3] = {p % g->n[0], (p / g->n[0]) % g->n[1], p / (g->n[0] * g->n[1])};
    const PetscInt xh = M[0][0] * v[0] + M[0][1] * v[1] + M[0][2] * v[2] - x0, yh = M[1][0] * v[0] + M[1][1] * v[1] + M[1][2] * v[2] - y0;
    const PetscInt c = xh / Bx + nbx * (yh / By), L = w[0] * v[0] + w[1] * v[1] + w[2] * v[2];

    lmin[c] = PetscMin(lmin[c], L);
    lmax[c] = PetscMax(lmax[c], L);
  }
  for (PetscInt c = 0; c < ncell; c++) {
    blockid[c] = lmax[c] >= 0 ? nb : -1;
    if (lmax[c] >= 0) {
      bxy[nb]  = c;
      lmin[nb] = lmin[c]; /* nb <= c: compacted in place */
      lmax[nb] = lmax[c];
      nb++;
    }
  }
  /* the predecessor block offsets of each sweep, from the stencil */
  for (PetscInt s = 0; s < st->ns; s++) {
    const PetscInt dir = s < st->nlower ? 0 : 1;
    const PetscInt dx = M[0][0] * st->off[s][0] + M[0][1] * st->off[s][1] + M[0][2] * st->off[s][2], dy = M[1][0] * st->off[s][0] + M[1][1] * st->off[s][1] + M[1][2] * st->off[s][2];

    if (s == st->nlower) continue;
    for (PetscInt ex = FloorDiv(dx, Bx); ex <= FloorDiv(Bx - 1 + dx, Bx); ex++)
      for (PetscInt ey = FloorDiv(dy, By); ey <= FloorDiv(By - 1 + dy, By); ey++) {
        PetscBool have = (PetscBool)(ex == 0 && ey == 0);

        for (PetscInt e = 0; e < npred[dir] && !have; e++) have = (PetscBool)(pred[dir][2 * e] == ex && pred[dir][2 * e + 1] == ey);
        if (have) continue;
        PetscCheck(npred[dir] < 128, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many predecessor blocks for the lines mapping: use more lines per block or -pc_structilu_cuda_mapping tiles");
        pred[dir][2 * npred[dir]]     = ex;
        pred[dir][2 * npred[dir] + 1] = ey;
        npred[dir]++;
      }
  }
  /* the orders of the work units: forward by (minimum effective level, bx + by), backward by (maximum effective level, bx + by) decreasing */
  for (PetscInt dir = 0; dir < 2; dir++) {
    PetscInt64 *k;

    PetscCall(PetscMalloc1(nb, &k));
    for (PetscInt diag = dir ? nbx + nby - 2 : 0; dir ? diag >= 0 : diag <= nbx + nby - 2; diag += dir ? -1 : 1)
      for (PetscInt bx = PetscMax(0, diag - nby + 1); bx <= PetscMin(diag, nbx - 1); bx++) {
        const PetscInt id = blockid[bx + nbx * (diag - bx)];

        if (id < 0) continue;
        eff[id] = dir ? lmax[id] : lmin[id];
        for (PetscInt e = 0; e < npred[dir]; e++) {
          const PetscInt qx = bx + pred[dir][2 * e], qy = diag - bx + pred[dir][2 * e + 1];

          if (qx < 0 || qx >= nbx || qy < 0 || qy >= nby || blockid[qx + nbx * qy] < 0) continue;
          eff[id] = dir ? PetscMin(eff[id], eff[blockid[qx + nbx * qy]]) : PetscMax(eff[id], eff[blockid[qx + nbx * qy]]);
        }
      }
    for (PetscInt id = 0; id < nb; id++) {
      const PetscInt   bx = bxy[id] % nbx, by = bxy[id] / nbx;
      const PetscInt64 e = dir ? nlevels - 1 - eff[id] : eff[id], dg = dir ? nbx + nby - 2 - (bx + by) : bx + by;

      k[id] = (e * (nbx + nby) + dg) * nb + id;
    }
    PetscCall(PetscSortInt64(nb, k));
    for (PetscInt t = 0; t < nb; t++) order[dir * nb + t] = (PetscInt)(k[t] % nb);
    PetscCall(PetscFree(k));
  }
  PetscCall(CopyIntArray(lmin, nb, &dev->llmin));
  PetscCall(CopyIntArray(lmax, nb, &dev->llmax));
  PetscCall(CopyIntArray(blockid, ncell, &dev->lblockid));
  PetscCall(CopyIntArray(bxy, nb, &dev->lbxy));
  PetscCall(CopyIntArray(order, 2 * nb, &dev->lorder));
  {
    PetscInt pr[4 * 128];

    for (PetscInt e = 0; e < 2 * npred[0]; e++) pr[e] = pred[0][e];
    for (PetscInt e = 0; e < 2 * npred[1]; e++) pr[2 * npred[0] + e] = pred[1][e];
    PetscCall(CopyIntArray(pr, PetscMax(1, 2 * (npred[0] + npred[1])), &dev->lpred));
  }
  PetscCall(PetscFree6(lmin, lmax, blockid, bxy, eff, order));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)nb, (void **)&dev->lflags));
  {
    LinesMap *m = &dev->args.lines;

    for (PetscInt e = 0; e < 9; e++) m->minv[e] = (int)Minv[e];
    m->x0       = (int)x0;
    m->y0       = (int)y0;
    m->bx       = (int)Bx;
    m->by       = (int)By;
    m->nbx      = (int)nbx;
    m->nby      = (int)nby;
    m->nblocks  = (int)nb;
    m->nlevels  = (int)nlevels;
    m->npred[0] = (int)npred[0];
    m->npred[1] = (int)npred[1];
    m->pred     = dev->lpred;
    m->order    = dev->lorder;
    m->blockid  = dev->lblockid;
    m->bxy      = dev->lbxy;
    m->lmin     = dev->llmin;
    m->lmax     = dev->llmax;
    m->flags    = dev->lflags;
  }
  for (PetscInt r = 0; r < 3; r++)
    for (PetscInt c = 0; c < 3; c++) info->M[r][c] = M[r][c];
  dev->nlinethreads = Bx * By * g->dof;
  info->linesx      = Bx;
  info->linesy      = By;
  info->nblocks     = nb;
  info->npred[0]    = npred[0];
  info->npred[1]    = npred[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Create(const GILUStencilMat *sm, StructILUCUDAMapping mapping, PetscInt tilepoints, PetscInt pipeline, PetscBool nowait, StructILUDevice *devp, StructILUDeviceInfo *info)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     N = sm->npoints, d = g->dof;
  StructILUDevice    dev;
  PetscInt           w[3], nlevels, *count, *perm, *pos, *tileof, *tileptr, ntiles = 0, off[3 * GILU_STENCIL_MAX_OFFSETS], stage[GILU_STENCIL_MAX_OFFSETS], nstage;

  PetscFunctionBegin;
  PetscCheck(d >= 1 && d <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA kernels of PCSTRUCTILU take 1 to %d DoF per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, d);
  PetscCheck(N < PETSC_MAX_INT / GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "The local grid is too large for the CUDA kernels' 32-bit indices");
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  if (tilepoints <= 0) tilepoints = PetscMax(1, 128 / d);
  tilepoints = PetscMin(tilepoints, GILU_TILE_MAX_THREADS / d);
  PetscCall(ChooseWeights(st, g, w, &nlevels));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscCall(PetscNew(&dev));
  /* points by level (counting sort, natural order within a level; lines: by y^ and x^ within a level), then tiles of one level */
  PetscCall(PetscCalloc1(nlevels + 1, &count));
  PetscCall(PetscMalloc4(N, &perm, N, &pos, N, &tileof, N + 1, &tileptr));
  for (PetscInt p = 0; p < N; p++) {
    PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], l = p / (g->n[0] * g->n[1]);

    count[w[0] * i + w[1] * j + w[2] * l + 1]++;
  }
  for (PetscInt v = 0; v < nlevels; v++) count[v + 1] += count[v];
  for (PetscInt p = 0; p < N; p++) {
    PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], l = p / (g->n[0] * g->n[1]);

    perm[count[w[0] * i + w[1] * j + w[2] * l]++] = p;
  }
  /* count[v] is now the end of level v */
  if (mapping == STRUCTILU_CUDA_MAPPING_LINES) PetscCall(SetUpLines(dev, st, g, w, nlevels, tilepoints, perm, info));
  for (PetscInt v = 0, start = 0; v < nlevels; v++) {
    for (PetscInt t = start; t < count[v]; t += tilepoints) tileptr[ntiles++] = t;
    start = count[v];
  }
  tileptr[ntiles] = N;
  for (PetscInt t = 0; t < ntiles; t++)
    for (PetscInt q = tileptr[t]; q < tileptr[t + 1]; q++) {
      pos[perm[q]]    = q;
      tileof[perm[q]] = t;
    }
  PetscCall(PetscFree(count));

  dev->mapping    = mapping;
  dev->ownfactors = PETSC_TRUE;
  dev->ntiles     = ntiles;
  dev->tilepoints = tilepoints;
  dev->nthreads   = tilepoints * d;
  dev->dof        = d;
  dev->npoints    = N;
  dev->nl         = st->nlower;
  dev->nu         = st->ns - st->nlower - 1;
  dev->blocks     = (size_t)N * d * d;
  for (PetscInt s = 0; s < st->ns; s++)
    for (PetscInt c = 0; c < 3; c++) off[3 * s + c] = st->off[s][c];
  PetscCall(CopyIntArray(tileptr, ntiles + 1, &dev->tileptr));
  PetscCall(CopyIntArray(perm, N, &dev->perm));
  PetscCall(CopyIntArray(pos, N, &dev->pos));
  PetscCall(CopyIntArray(tileof, N, &dev->tileof));
  PetscCall(CopyIntArray(off, 3 * st->ns, &dev->off));
  { /* the lines mapping keeps P partial sums per stage in shared memory: (P P + 1) nthreads doubles, at most 48 KiB */
    PetscInt maxstages = GILU_TILE_MAX_THREADS;

    if (mapping == STRUCTILU_CUDA_MAPPING_LINES)
      for (maxstages = 1; ((maxstages + 1) * (maxstages + 1) + 1) * dev->nthreads * (PetscInt)sizeof(double) <= 48 * 1024;) maxstages++;
    PetscCall(ChooseStages(st, w, pipeline, dev->nthreads, maxstages, stage, &nstage));
  }
  PetscCall(CopyIntArray(stage, st->ns, &dev->stage));
  dev->nstage = nstage;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)ntiles, (void **)&dev->flags));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int), (void **)&dev->ticket));
  dev->ticketsreset = PETSC_TRUE;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->flags, 0, sizeof(int) * (size_t)ntiles));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->b));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->x));
  PetscCall(PetscMalloc1(N, &dev->hperm));
  PetscCall(PetscArraycpy(dev->hperm, perm, N));
  PetscCall(PetscFree4(perm, pos, tileof, tileptr));

  dev->args.n[0]    = (int)g->n[0];
  dev->args.n[1]    = (int)g->n[1];
  dev->args.n[2]    = (int)g->n[2];
  dev->args.dof     = (int)d;
  dev->args.ns      = (int)st->ns;
  dev->args.nl      = (int)st->nlower;
  dev->args.npoints = (int)N;
  dev->args.nowait  = nowait ? 1 : 0;
  dev->args.tileptr = dev->tileptr;
  dev->args.perm    = dev->perm;
  dev->args.pos     = dev->pos;
  dev->args.tileof  = dev->tileof;
  dev->args.off     = dev->off;
  dev->args.b       = dev->b;
  dev->args.x       = dev->x;
  dev->args.flags   = dev->flags;
  dev->args.ticket  = dev->ticket;
  dev->args.ntiles  = (int)ntiles;
  dev->args.nstage  = (int)nstage;
  dev->args.stage   = dev->stage;
  *devp             = dev;

  info->mapping = mapping;
  dev->info     = info;
  for (PetscInt c = 0; c < 3; c++) info->w[c] = dev->w[c] = w[c];
  info->nlevels    = nlevels;
  info->ntiles     = ntiles;
  info->tilepoints = tilepoints;
  info->maxthreads = dev->nthreads;
  info->nowait     = nowait;
  info->nstage     = nstage;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n blocks of offsets stored one after the other, natural order -> level order */
static PetscErrorCode UploadLevelOrdered(StructILUDevice dev, const void *host, PetscInt noffsets, void **devp)
{
  const size_t   elt = dev->single ? sizeof(float) : sizeof(double), bb = elt * (size_t)(dev->dof * dev->dof);
  const size_t   bytes = bb * (size_t)dev->npoints * (size_t)noffsets;
  unsigned char *h;

  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(devp));
  if (!noffsets) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(bytes, &h));
  for (PetscInt s = 0; s < noffsets; s++) {
    const unsigned char *from = (const unsigned char *)host + (size_t)s * dev->npoints * bb;
    unsigned char       *to   = h + (size_t)s * dev->npoints * bb;

    for (PetscInt q = 0; q < dev->npoints; q++) PetscCall(PetscMemcpy(to + (size_t)q * bb, from + (size_t)dev->hperm[q] * bb, bb));
  }
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(bytes, devp));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(*devp, h, bytes));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeFactors(StructILUDevice dev)
{
  PetscFunctionBegin;
  if (dev->ownfactors) {
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->lval));
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->uval));
    PetscCall(GILU_CUDA_NAME(GILUDeviceFree)(&dev->dinv));
  }
  dev->lval = dev->uval = dev->dinv = NULL;
  dev->ownfactors                   = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetFactors(StructILUDevice dev, const StructILUFactors *F)
{
  PetscFunctionBegin;
  PetscCall(FreeFactors(dev));
  dev->single = F->single;
  dev->ic     = F->ic;
  PetscCall(UploadLevelOrdered(dev, F->ic ? NULL : F->lval, F->ic ? 0 : dev->nl, &dev->lval));
  PetscCall(UploadLevelOrdered(dev, F->uval, dev->nu, &dev->uval));
  PetscCall(UploadLevelOrdered(dev, F->dinv, 1, &dev->dinv));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->mirror));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->z));
  if (F->ic) {
    PetscCall(CopyIntArray(F->mirror, dev->args.ns, &dev->mirror));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)dev->npoints * dev->dof, (void **)&dev->z));
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

#define LAUNCH_CASE(cfg) \
  case cfg: \
    if (lines) PetscCall(GILU_LAUNCH(StructILULinesSolve<cfg>, grid, block, shmem, 0, dev->args, forward ? 0 : 1)); \
    else if (forward) PetscCall(GILU_LAUNCH(StructILUForward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    else PetscCall(GILU_LAUNCH(StructILUBackward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    break;

static PetscErrorCode Sweep(StructILUDevice dev, PetscBool forward)
{
  const int      cfg = (int)dev->dof + (dev->single ? 16 : 0), sweep = ++dev->sweep, lines = dev->mapping == STRUCTILU_CUDA_MAPPING_LINES;
  const PetscInt nt = lines ? dev->nlinethreads : dev->nthreads, P = dev->nstage;
  const dim3     grid((unsigned int)(lines ? dev->args.lines.nblocks : dev->ntiles)), block((unsigned int)(nt * P));
  const size_t   shmem = sizeof(double) * (size_t)(lines ? (P * P + 1) * nt : nt * P);

  PetscFunctionBegin;
  PetscCheck(nt * P <= GILU_TILE_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " threads per block exceed the solve kernels' bound", nt * P);
  if (lines) PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->lflags, 0, sizeof(int) * (size_t)dev->args.lines.nblocks));
  PetscCall(TicketsBegin(dev, grid.x, &dev->args.ticketbase));
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
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No StructILU kernel for %d DoF", (int)dev->dof);
  }
  TicketsEnd(dev);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b and x are device arrays of npoints * dof values: the device's buffers or the vectors' own (device-vec.c) */
static PetscErrorCode Solve(StructILUDevice dev, const PetscScalar *b, PetscScalar *x)
{
  const size_t n = (size_t)dev->npoints * dev->dof;

  PetscFunctionBegin;
  PetscCheck(dev->hasfactors, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The device has no factors yet");
  PetscCheck(dev->sweep < PETSC_MAX_INT - 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many sweeps for the 32-bit flags");
  dev->args.b = (const double *)b;
  dev->args.x = (double *)x;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(Sweep(dev, PETSC_TRUE));
  PetscCall(Sweep(dev, PETSC_FALSE));
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(GILULogDeviceFlops(2.0 * (double)n * dev->dof * (double)(dev->nl + dev->nu + 1 + (dev->ic ? 1 : 0))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The substages of the two-substage pipelined factorization (see StructILULinesFactorPipelined): in the order of the
  lower offsets s, the L block of s is in substage 1 (early) when the row p + s lies at least two levels back, its
  intra-row level is 0 or 1 (0: no incoming update; 1: incoming updates only from level-0 blocks) and all its incoming
  updates are in substage 1 (IC: L_ps = U_{p+s,-s}^T D_{p+s}^{-1} has no incoming updates); an update from s to an
  element t is in substage 1 when s is early and every earlier update of t is in substage 1.
*/
static PetscErrorCode SubstageSets(StructILUDevice dev, const GILUStencil *st, PetscBool ic, const PetscInt *ptr, const PetscInt *et)
{
  const PetscInt nl = st->nlower, ns = st->ns, n = ptr[nl];
  PetscInt      *early, *pairs1, *level, nearly = 0, npairs1 = 0;
  PetscBool     *late; /* per element: it already has an update in substage 2 */

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(nl + 1, &early, n + 1, &pairs1, ns, &level, ns, &late));
  for (PetscInt t = 0; t < ns; t++) {
    level[t] = 0;
    late[t]  = PETSC_FALSE;
  }
  for (PetscInt s = 0; s < nl; s++) {
    const PetscInt depth = -(dev->w[0] * st->off[s][0] + dev->w[1] * st->off[s][1] + dev->w[2] * st->off[s][2]);

    early[s] = depth >= 2 && level[s] <= 1 && (ic || !late[s]) ? 1 : 0;
    nearly += early[s];
    for (PetscInt e = ptr[s]; e < ptr[s + 1]; e++) {
      const PetscInt t = et[e];

      pairs1[e] = early[s] && !late[t] ? 1 : 0;
      npairs1 += pairs1[e];
      if (!pairs1[e]) late[t] = PETSC_TRUE;
      level[t] = PetscMax(level[t], level[s] + 1);
    }
  }
  early[nl] = pairs1[n] = 0;
  PetscCall(CopyIntArray(early, nl + 1, &dev->early));
  PetscCall(CopyIntArray(pairs1, n + 1, &dev->pairs1));
  PetscCall(PetscFree4(early, pairs1, level, late));
  dev->info->nearly  = nearly;
  dev->info->npairs1 = npairs1;
  dev->info->npairs  = n;
  dev->info->nlowerL = nl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define FACTOR_PIPELINED_CASE(D) \
  case D: \
    PetscCall(GILU_LAUNCH(StructILULinesFactorPipelined<D>, lgrid, lblock, 0, 0, k)); \
    break;
#define FACTOR_LINES_CASE(D) \
  case -(D): \
    PetscCall(GILU_LAUNCH(StructILULinesFactor<D>, lgrid, lblock, 0, 0, k)); \
    break;
#define FACTOR_LINES_CASE_MMA(D) \
  case -(D): \
    PetscCall(GILU_LAUNCH(StructILULinesFactor<D>, lgrid, lblock, 0, 0, k)); \
    break; \
  case D: \
    PetscCall(GILU_LAUNCH(StructILULinesFactorMMA<D>, lgrid, lblock, 0, 0, k)); \
    break;

/*
  The factorization on the device: the values of sm (natural order) are copied level-ordered, factored in place by
  StructILUFactorKernel with the schedule of the solves, and kept as the factors the solves read (a float copy for
  single-precision factors). elim: the elimination table of the stencil; mirror: IC's opposite offsets, or NULL.
*/
static PetscErrorCode Factor(StructILUDevice dev, const GILUStencilMat *sm, const PetscInt *elim, const PetscInt *mirror, PetscReal zeropivot, PetscBool single, PetscBool mma, PetscBool pipelined, PetscInt *zerorow, PetscBool *usedmma)
{
  const PetscInt ns = sm->stencil.ns, nl = sm->stencil.nlower, d = dev->dof;
  const size_t   blocks = dev->blocks;
  FactorArgs     k;
  int            zr = PETSC_MAX_INT, sweep;
  const dim3     grid((unsigned int)dev->ntiles), block((unsigned int)dev->nthreads);

  PetscFunctionBegin;
  PetscCall(FreeFactors(dev));
  dev->usedmma = PETSC_FALSE;
  dev->single  = PETSC_FALSE; /* the values are uploaded in double */
  dev->ic      = (PetscBool)(mirror != NULL);
  if (!dev->elimptr) { /* the symbolic part: elimination lists (IC: only the diagonal and upper targets), absent positions */
    PetscInt *ptr, *eu, *et, n = 0;

    PetscCall(PetscMalloc3(nl + 1, &ptr, nl * ns + 1, &eu, nl * ns + 1, &et));
    for (PetscInt s = 0; s < nl; s++) {
      ptr[s] = n;
      for (PetscInt u = nl + 1; u < ns; u++)
        if (elim[s * ns + u] >= 0 && (!mirror || elim[s * ns + u] >= nl)) {
          eu[n]   = u;
          et[n++] = elim[s * ns + u];
        }
    }
    ptr[nl] = n;
    PetscCall(CopyIntArray(ptr, nl + 1, &dev->elimptr));
    PetscCall(CopyIntArray(eu, n + 1, &dev->elimu));
    PetscCall(CopyIntArray(et, n + 1, &dev->elimt));
    PetscCall(PetscMalloc2(nl + 1, &dev->hptr, n + 1, &dev->het)); /* kept for SubstageSets() */
    PetscCall(PetscArraycpy(dev->hptr, ptr, nl + 1));
    PetscCall(PetscArraycpy(dev->het, et, n + 1));
    PetscCall(PetscFree3(ptr, eu, et));
    if (sm->missptr) {
      PetscCall(CopyIntArray(sm->missptr, dev->npoints + 1, &dev->missptr));
      PetscCall(CopyIntArray(sm->missoff, PetscMax(sm->missptr[dev->npoints], 1), &dev->missoff));
    }
    if (mirror && !dev->mirror) PetscCall(CopyIntArray(mirror, ns, &dev->mirror));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int), (void **)&dev->zerorow));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * blocks, (void **)&dev->dinvd));
  }
  PetscCall(UploadLevelOrdered(dev, sm->val, ns, (void **)&dev->val));
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
  if (pipelined && !dev->early) PetscCall(SubstageSets(dev, &sm->stencil, (PetscBool)(mirror != NULL), dev->hptr, dev->het));
  k.early      = dev->early;
  k.pairs1     = dev->pairs1;
  k.ticket     = dev->ticket;
  dev->usedmma = (PetscBool)(!pipelined && mma && d >= 4 && 32 * dev->tilepoints <= GILU_WARP_MAX_THREADS); /* one warp per point */
  PetscCheck(!pipelined || dev->mapping == STRUCTILU_CUDA_MAPPING_LINES, PETSC_COMM_SELF, PETSC_ERR_SUP, "The two-substage pipelined factorization (-pc_structilu_cuda_factor_pipeline) runs on the lines mapping: add -pc_structilu_cuda_mapping lines");
  PetscCheck(!pipelined || 2 * dev->nlinethreads <= GILU_TILE_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The two-substage pipelined factorization needs 2 x lines per block x DoF = %" PetscInt_FMT " threads per block, more than %d: use fewer -pc_structilu_cuda_tile_points",
             2 * dev->nlinethreads, GILU_TILE_MAX_THREADS);
  /* the block of the kernel below within its __launch_bounds__ */
  {
    const PetscInt points  = dev->mapping == STRUCTILU_CUDA_MAPPING_LINES ? dev->nlinethreads / d : dev->tilepoints; /* lines: lines per block */
    const PetscInt threads = pipelined ? 2 * points * d : (dev->usedmma ? 32 : d) * points;

    PetscCheck(threads <= (dev->usedmma ? GILU_WARP_MAX_THREADS : GILU_TILE_MAX_THREADS), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " threads per block exceed the factorization kernel's bound", threads);
  }
  PetscCall(TicketsBegin(dev, (unsigned int)(dev->mapping == STRUCTILU_CUDA_MAPPING_LINES ? dev->args.lines.nblocks : dev->ntiles), &k.ticketbase));
  if (pipelined) {
    const dim3 lgrid((unsigned int)dev->args.lines.nblocks), lblock((unsigned int)(2 * dev->nlinethreads));

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
    const dim3 lgrid((unsigned int)dev->args.lines.nblocks), lblock((unsigned int)(dev->usedmma ? 32 * (dev->nlinethreads / d) : dev->nlinethreads));

    k.lines = dev->args.lines;
    PetscCall(GILU_CUDA_NAME(GILUDeviceMemset)(dev->lflags, 0, sizeof(int) * (size_t)dev->args.lines.nblocks));
    switch (dev->usedmma ? d : -d) {
      FACTOR_LINES_CASE(1)
      FACTOR_LINES_CASE(2)
      FACTOR_LINES_CASE(3)
      FACTOR_LINES_CASE_MMA(4)
      FACTOR_LINES_CASE_MMA(5)
      FACTOR_LINES_CASE_MMA(6)
      FACTOR_LINES_CASE_MMA(7)
      FACTOR_LINES_CASE_MMA(8)
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No StructILU factorization kernel for %d DoF", (int)d);
    }
  } else if (dev->usedmma) {
    const dim3 wblock((unsigned int)(32 * dev->tilepoints));

    switch (d) {
    case 4:
      PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<4>, grid, wblock, 0, 0, k, sweep));
      break;
    case 5:
      PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<5>, grid, wblock, 0, 0, k, sweep));
      break;
    case 6:
      PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<6>, grid, wblock, 0, 0, k, sweep));
      break;
    case 7:
      PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<7>, grid, wblock, 0, 0, k, sweep));
      break;
    default:
      PetscCall(GILU_LAUNCH(StructILUFactorMMAKernel<8>, grid, wblock, 0, 0, k, sweep));
    }
  } else switch (d) {
    case 1:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<1>, grid, block, 0, 0, k, sweep));
      break;
    case 2:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<2>, grid, block, 0, 0, k, sweep));
      break;
    case 3:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<3>, grid, block, 0, 0, k, sweep));
      break;
    case 4:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<4>, grid, block, 0, 0, k, sweep));
      break;
    case 5:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<5>, grid, block, 0, 0, k, sweep));
      break;
    case 6:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<6>, grid, block, 0, 0, k, sweep));
      break;
    case 7:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<7>, grid, block, 0, 0, k, sweep));
      break;
    default:
      PetscCall(GILU_LAUNCH(StructILUFactorKernel<8>, grid, block, 0, 0, k, sweep));
    }
  TicketsEnd(dev);
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToHost)(&zr, dev->zerorow, sizeof(int)));
  *zerorow = zr == PETSC_MAX_INT ? -1 : (PetscInt)zr;
  *usedmma = dev->usedmma;
  PetscCall(GILULogDeviceFlops((PetscLogDouble)dev->npoints * 2.0 * d * d * d * (ns + 1)));
  /* the factors the solves read */
  if (!single) {
    dev->lval       = dev->val;
    dev->uval       = dev->val + (size_t)(nl + 1) * blocks;
    dev->dinv       = dev->dinvd;
    dev->ownfactors = PETSC_FALSE;
  } else {
    const size_t nlo = mirror ? 0 : (size_t)nl * blocks, nup = (size_t)(ns - nl - 1) * blocks;
    const dim3   cgrid(256), cblock(256);

    if (nlo) {
      PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(float) * nlo, &dev->lval));
      PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, dev->val, (float *)dev->lval, nlo));
    }
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(float) * nup, &dev->uval));
    PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, dev->val + (size_t)(nl + 1) * blocks, (float *)dev->uval, nup));
    PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(float) * blocks, &dev->dinv));
    PetscCall(GILU_LAUNCH(StructILUToSingle, cgrid, cblock, 0, 0, (const double *)dev->dinvd, (float *)dev->dinv, blocks));
    GILU_CUDA_CHECK(cudaDeviceSynchronize());
    dev->ownfactors = PETSC_TRUE;
    dev->single     = PETSC_TRUE;
  }
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->z));
  if (mirror) PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)dev->npoints * dev->dof, (void **)&dev->z));
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
  PetscCall(FreeFactors(dev));
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
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->off));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->stage));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->mirror));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->flags));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->ticket));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->b));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->x));
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

static PetscErrorCode Buffers(StructILUDevice dev, void **b, void **x)
{
  PetscFunctionBegin;
  *b = dev->b;
  *x = dev->x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const StructILUDeviceOps DeviceOps = {Create, SetFactors, Factor, Solve, Buffers, Destroy};

PetscErrorCode GILU_CUDA_NAME(StructILUDeviceGetOps)(const StructILUDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
