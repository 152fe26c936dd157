/*
   The device kernels of PCSTRUCTILU's solves (the sweeps, both task mappings) and what the factorization's kernels
   (structilu-factor-kernels.h) share with them (the lines mapping, the work units, the tile flags): CUDA code
   included once, by structilu.cu, and so built by nvcc and for the emulation (cudaemu) as that file is; the
   schedule they follow and why their waiting cannot deadlock are described at the top of structilu.cu, the host
   launches them there.
*/
#ifndef PETSCGILU_STRUCTILU_KERNELS_H
#define PETSCGILU_STRUCTILU_KERNELS_H

#include <petscgilu/private/gilucuda.h>
#include "structilu-cuda.h"
#include <float.h> /* FLT_MAX, DBL_MAX */

/* the factors' type: CFG = dof + 16 * single (+ 32 for the sweeps' kernels of a block of right-hand sides, SolveBatch) */
template <int S>
struct FactorType {
  typedef double T;
};
template <>
struct FactorType<1> {
  typedef float T;
};

/*
  The device's factor blocks (and the matrix values the factorization turns into them) in component planes, the
  StructILU paper's per-component storage: the blocks of one stencil offset form D planes, plane c holding column c of
  every block in level order with the D rows of a block side by side, so entry (r, c) of the block of offset s at
  level-ordered position pos is at ((s D + c) N + pos) D + r. The kernels give a point D consecutive threads (its rows
  r) and tiles consecutive positions, so a warp that reads column c of its blocks reads consecutive words at every DoF;
  row-major blocks (r D + c) put D words between the threads of a point and D^2 between points: D times the 32-byte
  sectors the request needs (4.00x at DoF 4, what make gpu-model counted before). DoF 1: s N + pos either way.
  FactorBlock() is where a block starts, FactorEntry() where its entry (r, c) lies from there; the host's arrays keep
  row-major blocks in natural order (StructILUPermute() converts them on the device).
*/
static __host__ __device__ __forceinline__ size_t FactorBlock(int D, size_t N, size_t s, size_t pos)
{
  return (s * N * (size_t)D + pos) * (size_t)D;
}

static __host__ __device__ __forceinline__ size_t FactorEntry(int D, size_t N, int r, int c)
{
  return (size_t)c * N * (size_t)D + (size_t)r;
}

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

/* the first warp of block b waits (a lane per predecessor, acquire polls) until the predecessor blocks of sweep dir have
   completed every level before L in the sweep's order; the caller's barrier then releases the block */
static __device__ void LinesWait(const LinesMap *m, int dir, int b, int L)
{
  const int  xy = gilu_ld(m->bxy + b), bxb = xy % m->nbx, byb = xy / m->nbx, o = LinesOrd(m, dir, L);
  const int *pr = m->pred + (dir ? 2 * m->npred[0] : 0);

  if (threadIdx.x >= 32) return;
  for (int e = (int)threadIdx.x; e < m->npred[dir]; e += 32) {
    const int qx = bxb + gilu_ld(pr + 2 * e), qy = byb + gilu_ld(pr + 2 * e + 1);
    int       q, olo, ohi;

    if (qx < 0 || qx >= m->nbx || qy < 0 || qy >= m->nby) continue;
    q = gilu_ld(m->blockid + qx + m->nbx * qy);
    if (q < 0) continue;
    olo = LinesOrd(m, dir, dir ? gilu_ld(m->lmax + q) : gilu_ld(m->lmin + q));
    ohi = LinesOrd(m, dir, dir ? gilu_ld(m->lmin + q) : gilu_ld(m->lmax + q));
    if (olo > o - 1) continue; /* nothing of it comes before L */
    gilu_wait_acquire(&m->flags[q], (o - 1 < ohi ? o - 1 : ohi) + 1);
  }
}

/* the end of level L of block b: the waits for the next level (if any), the barrier after every thread's writes, one
   release of the block's level counter */
static __device__ __forceinline__ void LinesLevelDone(const LinesMap *m, int dir, int b, int L, int counts, int next, int nowait)
{
  if (next && !nowait) LinesWait(m, dir, b, dir ? L - 1 : L + 1);
  gilu_syncthreads();
  if (counts && threadIdx.x == 0) gilu_signal_release(&m->flags[b], LinesOrd(m, dir, L) + 1);
}

/* kernel arguments, passed by value */
typedef struct {
  int           n[3], dof, ns, nl, npoints;
  int           nowait, ic;
  const int    *tileptr;            /* ntiles + 1: the tiles' ranges of positions in level order */
  const int    *perm;               /* position in level order -> grid point */
  const int    *pos;                /* grid point -> position */
  const int    *tpredptr, *tpred;   /* tiles: per tile (forward ntiles + 1, then backward) its range in tpred, the tiles it waits for */
  const int    *off;                /* 3 ns offsets */
  const int    *mirror;             /* IC: the opposite of each offset */
  const void   *lval, *uval, *dinv; /* level-ordered blocks: lval nl offsets (ILU), uval ns - nl - 1 offsets, dinv */
  const double *b;
  double       *x, *z; /* z: IC's D^{-1} y (level order, per component, as xl) */
  double       *xl;    /* y, then x, in level order, component by component: xl[e npoints + pos] */
  int           ncols; /* right-hand sides (PCMatApply()): column c of b at b + c ldb, of x at x + c ldx, of xl and z at + c dof npoints */
  size_t        ldb, ldx;
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

/* one more work unit for a block of a persistent grid (the tiles' sweeps: as many blocks as are resident, each taking
   units until none is left), taken by one thread (the caller shares it through shared memory and a barrier) */
static __device__ __forceinline__ int BlockUnitTake(int *ticket, unsigned int base)
{
  return (int)((unsigned int)atomicAdd(ticket, 1) - base);
}

/* the grid point of p + off[s], or -1 outside the grid */
static __device__ __forceinline__ int Neighbour(const SolveArgs *k, int i, int j, int l, int s)
{
  const int qi = i + gilu_ld(k->off + 3 * s), qj = j + gilu_ld(k->off + 3 * s + 1), ql = l + gilu_ld(k->off + 3 * s + 2);

  if (qi < 0 || qi >= k->n[0] || qj < 0 || qj >= k->n[1] || ql < 0 || ql >= k->n[2]) return -1;
  return (ql * k->n[1] + qj) * k->n[0] + qi;
}

/* the columns the sweeps take together (a batch), from their configuration CFG = dof + 16 single + 32 block: one for a
   solve (PCApply()), GILU_SOLVE_COLUMNS for a block of right-hand sides, whose sums in registers, in kernels shared with
   the solve, would double the solve's registers (42 -> 84 at DoF 1, the forward sweep on sm_90). (The register counts
   move with small changes of this code: bench/results/gpu-model-2026-11-29-blocks.md has them; check with ptxas -v.) */
template <int CFG>
struct SolveBatch {
  enum {
    n = (CFG & 32) ? GILU_SOLVE_COLUMNS : 1
  };
};

/* the prefetched products of a thread's first offsets (StructILUTiles): as many offsets as keep the factors' values in
   about 8 registers (the arrays are indexed by unrolled loops only, so they stay in registers) */
template <int D>
struct TilesPrefetch {
  enum {
    n = D <= 2 ? 4 : (D <= 4 ? 2 : 1)
  };
};

/*
  Both sweeps with the tiles mapping (dir 0: forward, y_p = b_p - sum_{lower s} L_{p,s} y_{p+s}, IC: the blocks are
  U_{q,-s}^T and multiply z_q = D_q^{-1} y_q; dir 1: backward, x_p = D_p^{-1} (y_p - sum_{upper s} U_{p,s} x_{p+s}),
  tiles by decreasing level). A persistent grid: each block takes work units (tiles in the sweep's order) by ticket
  until none is left, taking the next one while it works on the current one. Per tile:
  1. everything that does not depend on the previous levels, before any wait: the point, b (forward) or its own y
     (backward: written by the forward kernel, which completed before this launch), the neighbours' positions and
     the factor values of the thread's first offsets (TilesPrefetch, in registers);
  2. one warp waits for the tile's predecessor tiles (the plan's list, implied ones left out, each once; a lane per
     tile, acquire loads with back-off), then a barrier releases the block;
  3. the products with the neighbours' values, the stages' partial sums added in stage order, the diagonal block;
  4. a barrier after every thread's stores, then one release of the tile's flag by one thread.
  A block of right-hand sides (ncols columns, PCMatApply()) runs 3. on all its columns between the one wait and the one
  release of a tile, in batches of GILU_SOLVE_COLUMNS: a factor value is loaded once per batch (the prefetched ones
  once per tile) and multiplies the batch's columns, whose neighbour loads are independent and issued together (one
  round trip for the batch, not one per column); each column's products are summed in the order of one column's
  solve, so every column is bitwise what a solve of it alone gives. The stages' exchange has a region per column of
  the batch. A level costs one wait and one release for all the columns.
  Vectors: y and x (and IC's z) live in level order, component by component (xl[e N + pos]), so that the threads of a
  tile read their neighbours' values and store their own in consecutive words (the neighbours of consecutive points
  of a level are consecutive points of theirs, but at the grid's edges); the permutation is fused into the first and
  last accesses: the forward sweep reads b in natural order, the backward one writes x in natural order as well.
  So a level costs three dependent global round trips on the critical path (the successful poll, the neighbours'
  loads issued together, the release) and one fence per block, against one wait and fence per thread and neighbour.
*/
template <int CFG>
static __device__ void StructILUTiles(const SolveArgs &k, int dir, int sweep)
{
  typedef typename FactorType<(CFG >> 4) & 1>::T FT;
  const int                                      D = CFG & 15, PF = TilesPrefetch<D>::n, CB = SolveBatch<CFG>::n;
  const int                                      ncols = CB == 1 ? 1 : k.ncols; /* a constant for a solve: nothing kept for a next batch */
  GILU_DYNAMIC_SHARED(double, ysh);                                             /* per column of a batch: nt values of y, then the partial sums of stages 1 .. nstage - 1 */
  GILU_SHARED(int, nextunit, 2);                                                /* the block's next work unit, taken during the current one (two slots: see below) */
  const int     nt = (int)blockDim.x / k.nstage, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt, lp = t / D, a = t % D;
  const int     sfirst = dir ? k.nl + 1 : 0, send = dir ? k.ns : k.nl, icf = !dir && k.ic, exchange = k.nstage > 1 || (D > 1 && (dir || k.ic));
  const int    *pptr = k.tpredptr + (dir ? k.ntiles + 1 : 0);
  const size_t  N    = (size_t)k.npoints;
  const double *xin  = icf ? k.z : k.xl; /* the neighbours' values the products read (level order) */
  int           unit = BlockUnit(k.ticket, k.ticketbase);

  for (int it = 0; unit < k.ntiles; it++) {
    const int tile = dir ? k.ntiles - 1 - unit : unit, pos = gilu_ld(k.tileptr + tile) + lp, valid = pos < gilu_ld(k.tileptr + tile + 1);
    int       p = 0, i = 0, j = 0, l = 0, s = sfirst, s1, qp[PF], sq[PF];
    FT        f[PF][D] = {}; /* (zero: only read where sq[c] >= 0, which the compiler cannot see) */
    double    sum0     = 0;  /* b or y of the first column */

    if (valid) { /* 1. */
      p    = gilu_ld(k.perm + pos);
      i    = p % k.n[0];
      j    = (p / k.n[0]) % k.n[1];
      l    = p / (k.n[0] * k.n[1]);
      sum0 = g == 0 ? (dir ? gilu_ld(k.xl + a * N + pos) : gilu_ld(k.b + (size_t)p * D + a)) : 0.0;
    }
    GILU_UNROLL
    for (int c = 0; c < PF; c++) { /* this group's first offsets with a neighbour, in stencil order */
      int q = -1;

      sq[c] = qp[c] = -1;
      if (!valid) continue;
      while (s < send && (gilu_ld(k.stage + s) != g || (q = Neighbour(&k, i, j, l, s)) < 0)) s++;
      if (s == send) continue;
      sq[c] = s++;
      qp[c] = gilu_ld(k.pos + q);
      if (icf) {
        const FT *A = (const FT *)k.uval + FactorBlock(D, N, (size_t)(gilu_ld(k.mirror + sq[c]) - k.nl - 1), (size_t)qp[c]);

        GILU_UNROLL
        for (int e = 0; e < D; e++) f[c][e] = gilu_ld(A + FactorEntry(D, N, e, a));
      } else {
        const FT *A = (const FT *)(dir ? k.uval : k.lval) + FactorBlock(D, N, (size_t)(dir ? sq[c] - k.nl - 1 : sq[c]), (size_t)pos);

        GILU_UNROLL
        for (int e = 0; e < D; e++) f[c][e] = gilu_ld(A + FactorEntry(D, N, a, e));
      }
    }
    if (threadIdx.x == 0) nextunit[it & 1] = BlockUnitTake(k.ticket, k.ticketbase);
    if (!k.nowait && threadIdx.x < 32) { /* 2. */
      const int e1 = gilu_ld(pptr + tile + 1);

      for (int e = gilu_ld(pptr + tile) + (int)threadIdx.x; e < e1; e += 32) gilu_wait_acquire(k.flags + gilu_ld(k.tpred + e), sweep);
    }
    gilu_syncthreads();
    s1 = s;
    for (int c0 = 0; c0 < ncols; c0 += CB) { /* 3., on the columns of a batch together */
      const int nc = ncols - c0 < CB ? ncols - c0 : CB;
      double    sum[CB];

      GILU_UNROLL
      for (int cc = 0; cc < CB; cc++) {
        const int col = c0 + cc;

        sum[cc] = 0;
        if (valid && cc < nc) sum[cc] = col == 0 ? sum0 : (g == 0 ? (dir ? gilu_ld(k.xl + col * D * N + a * N + pos) : gilu_ld(k.b + col * k.ldb + (size_t)p * D + a)) : 0.0);
      }
      if (valid) {
        const double *xb = xin + (size_t)c0 * D * N; /* the batch's first column (level order) */

        GILU_UNROLL
        for (int c = 0; c < PF; c++)
          if (sq[c] >= 0) { /* braces: clang-format reads an unbraced pragma macro as the if's statement */
            GILU_UNROLL
            for (int e = 0; e < D; e++) {
              GILU_UNROLL
              for (int cc = 0; cc < CB; cc++)
                if (cc < nc) sum[cc] -= (double)f[c][e] * gilu_ld_cg(xb + cc * D * N + e * N + qp[c]);
            }
          }
        for (s = s1; s < send; s++) { /* the rest, in stencil order */
          const int q = gilu_ld(k.stage + s) == g ? Neighbour(&k, i, j, l, s) : -1;
          int       qq;

          if (q < 0) continue;
          qq = gilu_ld(k.pos + q);
          if (icf) {
            const FT *A = (const FT *)k.uval + FactorBlock(D, N, (size_t)(gilu_ld(k.mirror + s) - k.nl - 1), (size_t)qq);

            for (int e = 0; e < D; e++) {
              const double fe = (double)gilu_ld(A + FactorEntry(D, N, e, a));

              GILU_UNROLL
              for (int cc = 0; cc < CB; cc++)
                if (cc < nc) sum[cc] -= fe * gilu_ld_cg(xb + cc * D * N + e * N + qq);
            }
          } else {
            const FT *A = (const FT *)(dir ? k.uval : k.lval) + FactorBlock(D, N, (size_t)(dir ? s - k.nl - 1 : s), (size_t)pos);

            for (int e = 0; e < D; e++) {
              const double fe = (double)gilu_ld(A + FactorEntry(D, N, a, e));

              GILU_UNROLL
              for (int cc = 0; cc < CB; cc++)
                if (cc < nc) sum[cc] -= fe * gilu_ld_cg(xb + cc * D * N + e * N + qq);
            }
          }
        }
      }
      if (exchange) { /* the stages' partial sums in stage order; the point's row sums for the diagonal block (a region per column) */
        GILU_UNROLL
        for (int cc = 0; cc < CB; cc++)
          if (valid && g > 0 && cc < nc) ysh[cc * k.nstage * nt + g * nt + t] = sum[cc];
        gilu_syncthreads();
        if (valid && g == 0) {
          GILU_UNROLL
          for (int cc = 0; cc < CB; cc++)
            if (cc < nc) {
              for (int h = 1; h < k.nstage; h++) sum[cc] += ysh[cc * k.nstage * nt + h * nt + t];
              ysh[cc * k.nstage * nt + t] = sum[cc];
            }
        }
        gilu_syncthreads();
      }
      if (valid && g == 0) {
        const int useD = dir || k.ic; /* x = D^{-1} sum (backward: in level order for the later levels, and the result), z = D^{-1} y (IC's forward) */
        FT        di[D];              /* the thread's row of the inverted diagonal block, loaded once for the batch */

        GILU_UNROLL
        for (int e = 0; e < D; e++) di[e] = useD ? gilu_ld((const FT *)k.dinv + FactorBlock(D, N, 0, (size_t)pos) + FactorEntry(D, N, a, e)) : (FT)0;
        GILU_UNROLL
        for (int cc = 0; cc < CB; cc++) {
          const size_t cl = (size_t)(c0 + cc) * D * N; /* the column's offset in xl and z */

          if (cc >= nc) continue;
          if (!dir) gilu_st(k.xl + cl + a * N + pos, sum[cc]);
          if (useD) {
            double r = 0;

            if (D == 1) r = (double)di[0] * sum[cc];
            else
              for (int e = 0; e < D; e++) r += (double)di[e] * ysh[cc * k.nstage * nt + lp * D + e];
            gilu_st((dir ? k.xl : k.z) + cl + a * N + pos, r);
            if (dir) gilu_st(k.x + (c0 + cc) * k.ldx + (size_t)p * D + a, r);
          }
        }
      }
    }
    gilu_syncthreads(); /* 4. every thread's stores before the release; nextunit[it & 1] written before it is read */
    if (threadIdx.x == 0) gilu_signal_release(k.flags + tile, sweep);
    unit = nextunit[it & 1]; /* thread 0 writes it again two units later, after two more barriers: no race */
  }
}

template <int CFG>
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUForward(SolveArgs k, int sweep)
{
  StructILUTiles<CFG>(k, 0, sweep);
}

template <int CFG>
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUBackward(SolveArgs k, int sweep)
{
  StructILUTiles<CFG>(k, 1, sweep);
}

/*
  Both sweeps with the lines mapping (dir 0: forward as StructILUForward, 1: backward as StructILUBackward): block
  order[dir][unit] (unit: the block's ticket) steps through its levels; at each step the thread of a line computes its
  point of that level.
  The intra-row pipeline of the solves: the group of stage g (neighbours at least P - g levels back) works P - 1 - g
  levels ahead of the last stage, so at every step each group needs only levels the predecessors have completed; its
  partial sum waits in a ring of P slots per stage (shared memory) until the step of its point, where the partial sums
  are added in stage order, as in the tiles mapping. Vectors as in the tiles mapping: y, x (and IC's z) in level order
  per component (a block's lines at one level hold consecutive positions), b read and x written in natural order.
  A block of right-hand sides (ncols columns) runs each step on all of them, in batches as the tiles' sweeps (a factor
  value loaded once per batch, the batch's neighbour loads together), a ring and row sums per column: one wait and one
  release of a level for all the columns.
*/
template <int CFG>
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesSolve(SolveArgs k, int dir)
{
  typedef typename FactorType<(CFG >> 4) & 1>::T FT;
  const int                                      D = CFG & 15, CB = SolveBatch<CFG>::n;
  const int                                      ncols = CB == 1 ? 1 : k.ncols;
  GILU_DYNAMIC_SHARED(double, sh); /* per column the ring: P stages x P slots x nt values; then per column nt row sums */
  const LinesMap *m = &k.lines;
  const int       P = k.nstage, nt = (int)blockDim.x / P, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt;
  const int       ln = t / D, a = t % D, ahead = P - 1 - g, step = dir ? -1 : 1;
  const int       b = gilu_ld(m->order + dir * m->nblocks + BlockUnit(k.ticket, k.ticketbase)), xy = gilu_ld(m->bxy + b);
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;
  const int       lo = dir ? gilu_ld(m->lmax + b) : gilu_ld(m->lmin + b), hi = dir ? gilu_ld(m->lmin + b) : gilu_ld(m->lmax + b);
  const int       sfirst = dir ? k.nl + 1 : 0, send = dir ? k.ns : k.nl;
  const size_t    N = (size_t)k.npoints, ringsize = (size_t)P * P * nt;
  double         *rowsum = sh + (size_t)ncols * ringsize;

  if (!k.nowait) LinesWait(m, dir, b, lo - step * (P - 1));
  gilu_syncthreads();
  for (int L = lo - step * (P - 1);; L += step) {
    const int Lg = L + step * ahead, p = LinesPoint(m, k.n, xh, yh, Lg);
    const int counts = dir ? L <= lo : L >= lo, last = L == hi;
    int       p0 = -1, pos0 = 0;

    if (p >= 0) { /* this group's stage of its point, ahead levels ahead, for each column */
      const int pos = gilu_ld(k.pos + p), i = p % k.n[0], j = (p / k.n[0]) % k.n[1], l = p / (k.n[0] * k.n[1]);

      for (int c0 = 0; c0 < ncols; c0 += CB) { /* the columns in batches, as the tiles' sweeps */
        const int     nc = ncols - c0 < CB ? ncols - c0 : CB;
        const double *xb = (!dir && k.ic ? k.z : k.xl) + (size_t)c0 * D * N; /* the neighbours' values of the batch's first column */
        double        sum[CB];

        GILU_UNROLL
        for (int cc = 0; cc < CB; cc++) {
          const int col = c0 + cc;

          sum[cc] = 0;
          if (cc < nc && g == 0) sum[cc] = dir ? gilu_ld(k.xl + col * D * N + a * N + pos) : gilu_ld(k.b + col * k.ldb + (size_t)p * D + a);
        }
        for (int s = sfirst; s < send; s++) {
          const int q = gilu_ld(k.stage + s) == g ? Neighbour(&k, i, j, l, s) : -1;
          int       qq;

          if (q < 0) continue;
          qq            = gilu_ld(k.pos + q);
          const int icf = !dir && k.ic;
          const FT *A   = icf ? (const FT *)k.uval + FactorBlock(D, N, (size_t)(gilu_ld(k.mirror + s) - k.nl - 1), (size_t)qq) : (const FT *)(dir ? k.uval : k.lval) + FactorBlock(D, N, (size_t)(dir ? s - k.nl - 1 : s), (size_t)pos);

          for (int e = 0; e < D; e++) {
            const double fe = (double)gilu_ld(A + (icf ? FactorEntry(D, N, e, a) : FactorEntry(D, N, a, e)));

            GILU_UNROLL
            for (int cc = 0; cc < CB; cc++)
              if (cc < nc) sum[cc] -= fe * gilu_ld_cg(xb + cc * D * N + e * N + qq);
          }
        }
        GILU_UNROLL
        for (int cc = 0; cc < CB; cc++)
          if (cc < nc) sh[(c0 + cc) * ringsize + ((size_t)g * P + (size_t)(LinesOrd(m, dir, Lg) % P)) * nt + t] = sum[cc];
      }
    }
    gilu_syncthreads();
    if (counts) p0 = LinesPoint(m, k.n, xh, yh, L);
    if (p0 >= 0 && g == 0) { /* the stages' partial sums of the point of this level, in stage order */
      const int slot = LinesOrd(m, dir, L) % P;

      for (int col = 0; col < ncols; col++) {
        const double *ring = sh + col * ringsize;
        double        sum  = ring[(size_t)slot * nt + t];

        for (int h = 1; h < P; h++) sum += ring[((size_t)h * P + slot) * nt + t];
        rowsum[col * nt + t] = sum;
      }
      pos0 = gilu_ld(k.pos + p0);
    }
    gilu_syncthreads();
    if (p0 >= 0 && g == 0) {
      const int useD = dir || k.ic; /* x = D^{-1} sum (backward: in level order for the later levels, and the result), z = D^{-1} y (IC's forward) */
      FT        di[D];              /* the thread's row of the inverted diagonal block, loaded once for the columns */

      GILU_UNROLL
      for (int e = 0; e < D; e++) di[e] = useD ? gilu_ld((const FT *)k.dinv + FactorBlock(D, N, 0, (size_t)pos0) + FactorEntry(D, N, a, e)) : (FT)0;
      for (int col = 0; col < ncols; col++) {
        const size_t  cl  = (size_t)col * D * N;
        const double *rs  = rowsum + col * nt;
        const double  sum = rs[t];

        if (!dir) gilu_st(k.xl + cl + a * N + pos0, sum);
        if (useD) {
          double r = 0;

          GILU_UNROLL
          for (int e = 0; e < D; e++) r += (double)di[e] * rs[ln * D + e];
          gilu_st((dir ? k.xl : k.z) + cl + a * N + pos0, r);
          if (dir) gilu_st(k.x + col * k.ldx + (size_t)p0 * D + a, r);
        }
      }
    }
    LinesLevelDone(m, dir, b, L, counts, !last, k.nowait);
    if (last) break;
  }
}

/* Doubles to floats, n values of factor blocks (FactorBlock(): planes of np level-ordered points, d rows side by side):
   the smallest scalar row (point * d + row of the block, i.e. the value's index modulo np d) of a finite value that
   float cannot hold (beyond FLT_MAX: it would become Inf) goes to *big (atomicMin). Bandwidth-bound, one pass. */
__global__ static void StructILUToSingle(const double *from, float *to, size_t n, int d, int np, int *big)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (size_t)gridDim.x * blockDim.x) {
    const double v = gilu_ld(from + t), a = fabs(v);

    gilu_st(to + t, (float)v);
    if (a > (double)FLT_MAX && a <= DBL_MAX) atomicMin(big, (int)(t % ((size_t)np * (size_t)d)));
  }
}

#endif
