/*
   The device kernels of PCSTRUCTILU (the solves' sweeps and the factorizations, both task mappings): CUDA code
   included once, by structilu.cu, and so built by nvcc and for the emulation (cudaemu) as that file is; the
   schedule they follow and why their waiting cannot deadlock are described at the top of structilu.cu, the host
   launches them there.
*/
#ifndef PETSCGILU_STRUCTILU_KERNELS_H
#define PETSCGILU_STRUCTILU_KERNELS_H

#include <petscgilu/private/gilucuda.h>
#include "structilu-cuda.h"
#include <float.h> /* FLT_MAX, DBL_MAX */

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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUForward(SolveArgs k, int sweep)
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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUBackward(SolveArgs k, int sweep)
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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesSolve(SolveArgs k, int dir)
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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUFactorKernel(FactorArgs k, int sweep)
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
__global__ static void __launch_bounds__(GILU_WARP_MAX_THREADS) StructILUFactorMMAKernel(FactorArgs k, int sweep)
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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesFactor(FactorArgs k)
{
  LinesFactor<D, 0>(k);
}

template <int D>
__global__ static void __launch_bounds__(GILU_WARP_MAX_THREADS) StructILULinesFactorMMA(FactorArgs k)
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
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesFactorPipelined(FactorArgs k)
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
/* Doubles to floats, offset-major blocks of bs2 values (level-ordered points of np): the smallest scalar row
   (point * d + row of the block) of a finite value that float cannot hold (beyond FLT_MAX: it would become Inf) goes
   to *big (atomicMin). Bandwidth-bound, one pass. */
__global__ static void StructILUToSingle(const double *from, float *to, size_t n, int bs2, int d, int np, int *big)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (size_t)gridDim.x * blockDim.x) {
    const double a = fabs(from[t]);

    to[t] = (float)from[t];
    if (a > (double)FLT_MAX && a <= DBL_MAX) atomicMin(big, (int)((t / bs2) % np) * d + (int)(t % bs2) / d);
  }
}

#endif
