/*
   The device kernels of PCSTRUCTILU's factorization (both task mappings, scalar and tensor-core): CUDA code included
   once, by structilu.cu, after structilu-kernels.h (the lines mapping, the work units and the tile flags they share
   with the sweeps); the schedule and why the waiting cannot deadlock are at the top of structilu.cu.
*/
#ifndef PETSCGILU_STRUCTILU_FACTOR_KERNELS_H
#define PETSCGILU_STRUCTILU_FACTOR_KERNELS_H

#include "structilu-kernels.h"

/* values uploaded in natural order with row-major d x d blocks (the matrix's or the host's factors: noffsets npoints
   d^2 values, in[s][p][r][c]) to the device's layout, level order in component planes (FactorBlock()):
   out[s][c][pos][r] = in[s][perm[pos]][r][c]. A block of GILU_PERMUTE_THREADS threads takes P whole blocks of one
   offset at a time (consecutive positions): it reads each of them as a run of d^2 values into shared memory and writes
   the P d consecutive values of each plane, so reads and writes are coalesced (read in place, the planes' gather would
   touch d sectors per request). Bound: bandwidth (one read and one write of every value). d^2 <= GILU_PERMUTE_THREADS. */
#define GILU_PERMUTE_THREADS 256
template <typename T>
__global__ static void __launch_bounds__(GILU_PERMUTE_THREADS) StructILUPermute(const T *in, T *out, const int *perm, int npoints, int d, int noffsets)
{
  GILU_SHARED(T, blk, GILU_PERMUTE_THREADS);
  const int    dd = d * d, P = GILU_PERMUTE_THREADS / dd, nchunk = (npoints + P - 1) / P;
  const size_t N = (size_t)npoints;

  for (size_t u = blockIdx.x; u < (size_t)nchunk * (size_t)noffsets; u += gridDim.x) {
    const size_t s    = u / (size_t)nchunk;
    const int    pos0 = (int)(u % (size_t)nchunk) * P, np = P < npoints - pos0 ? P : npoints - pos0;

    for (int t = (int)threadIdx.x; t < np * dd; t += (int)blockDim.x) blk[t] = gilu_ld(in + (s * N + (size_t)gilu_ld(perm + pos0 + t / dd)) * (size_t)dd + (size_t)(t % dd));
    gilu_syncthreads();
    for (int t = (int)threadIdx.x; t < np * dd; t += (int)blockDim.x) {
      const int c = t / (np * d), lp = (t % (np * d)) / d, r = t % d;

      gilu_st(out + FactorBlock(d, N, s, (size_t)(pos0 + lp)) + FactorEntry(d, N, r, c), blk[lp * dd + r * d + c]);
    }
    gilu_syncthreads(); /* the writes read blk before the next chunk's reads overwrite it */
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
  const int   *predptr, *pred;   /* the tiles mapping: per tile the tiles it waits for (the forward lists of the plan, as the forward sweep) */
  const int   *cptr, *cs, *cu;   /* per target t: the contributions (s, u) with s + u = t, s increasing (StructILUPlanRowSchedule()) */
  const int   *tptr, *tgt;       /* per intra-row level v and thread group g: the targets tgt[tptr[v G + g] .. tptr[v G + g + 1]-1] */
  int          nrowlev, ngroups; /* intra-row levels; thread groups per point (G) */
  int          diaggroup;        /* the group that computes the diagonal block, and so inverts it */
} FactorArgs;

/*
  The inverse of the diagonal block of the point p at position pos, by Gauss-Jordan with partial pivoting as
  GILUBlockInvert() (the same operations, so the same values), by the point's D threads, thread a holding row a of
  [M | I] in registers (no local memory). Per column c: the column to shared memory, a barrier, every thread of the
  point finds the same pivot (the largest |M[r][c]|, r >= c, the first of equals), the rows c and piv to shared memory,
  a barrier, each thread forms its new row. A zero pivot leaves a zero inverse (later rows stay finite) and records the
  row. Every thread of the block calls it (barriers); valid: the thread has a point to invert. sh: 5 D doubles per
  point (slot lp). Row a of the block must have been written by the calling thread (or ordered before by a barrier).
*/
template <int D>
static __device__ void GILUDeviceBlockInvertRows(const FactorArgs *k, double *sh, int lp, int a, int pos, int p, int valid)
{
  const size_t N   = (size_t)k->npoints;
  double      *col = sh + (size_t)lp * 5 * D, *rc = col + D, *rp = rc + 2 * D;
  double       m[D], v[D];
  int          ok = 1;

  GILU_UNROLL
  for (int e = 0; e < D; e++) {
    m[e] = valid ? gilu_ld(k->val + FactorBlock(D, N, (size_t)k->nl, (size_t)pos) + FactorEntry(D, N, a, e)) : 0.0;
    v[e] = e == a ? 1.0 : 0.0;
  }
  GILU_UNROLL
  for (int c = 0; c < D; c++) {
    int piv = c;

    if (valid) col[a] = m[c];
    gilu_syncthreads();
    if (valid) {
      for (int r = c + 1; r < D; r++)
        if (fabs(col[r]) > fabs(col[piv])) piv = r;
      if (ok && fabs(col[piv]) <= k->zeropivot) ok = 0;
      if (ok && (a == c || a == piv)) {
        double *to = a == piv ? rp : rc;

        GILU_UNROLL
        for (int e = 0; e < D; e++) {
          to[e]     = m[e];
          to[D + e] = v[e];
        }
      }
    }
    gilu_syncthreads();
    if (valid && ok) { /* row c: the pivot row scaled; row r != c (piv: the old row c): minus f times row c */
      const double inv = 1.0 / rp[c];

      if (a == c) {
        GILU_UNROLL
        for (int e = 0; e < D; e++) {
          m[e] = rp[e] * inv;
          v[e] = rp[D + e] * inv;
        }
      } else {
        double f;

        if (a == piv) {
          GILU_UNROLL
          for (int e = 0; e < D; e++) {
            m[e] = rc[e];
            v[e] = rc[D + e];
          }
        }
        f = m[c];
        if (f != 0.0) {
          GILU_UNROLL
          for (int e = 0; e < D; e++) {
            m[e] -= f * (rp[e] * inv);
            v[e] -= f * (rp[D + e] * inv);
          }
        }
      }
    }
  }
  if (valid) {
    GILU_UNROLL
    for (int e = 0; e < D; e++) gilu_st(k->dinv + FactorBlock(D, N, 0, (size_t)pos) + FactorEntry(D, N, a, e), ok ? v[e] : 0.0); /* a zero pivot: keep later rows finite */
    if (!ok && a == 0) atomicMin(k->zerorow, p * D);
  }
}

/*
  In-place ILU(0) of the rows of a tile (Algorithm 1 of the StructILU paper; the same operations on each element, in
  the same order, as ilu-kernels.h), thread a of a point computing row a of its block row: L_ps = A_ps D_q^{-1} (IC:
  U_{q,-s}^T D_q^{-1}) and A_{p,s+u} -= L_ps U_{q,u} need only row a, so the DoF threads of a point are independent
  until the diagonal block is inverted (by the point's D threads together, GILUDeviceBlockInvertRows()).
*/
/* The grid point at stored position pos of the level-ordered factors: its coordinates and its range of absent
   stencil positions (missptr; none when the pattern is the full stencil everywhere) */
static __device__ __forceinline__ int FactorPoint(const FactorArgs *k, int pos, int *i, int *j, int *l, int *m, int *mend)
{
  const int p = gilu_ld(k->perm + pos);

  *i = p % k->n[0];
  *j = (p / k->n[0]) % k->n[1];
  *l = p / (k->n[0] * k->n[1]);
  if (k->missptr) {
    *m    = gilu_ld(k->missptr + p);
    *mend = gilu_ld(k->missptr + p + 1);
  }
  return p;
}

/* Lower neighbour s of the grid point (i, j, l): 0 outside the grid; -1 an offset absent from the pattern there (its L block
   stays zero; *m steps past it); else 1 and *q its grid index. m walks the point's absent offsets in increasing s. */
static __device__ __forceinline__ int FactorNeighbour(const FactorArgs *k, int i, int j, int l, int s, int *m, int mend, int *q)
{
  const int qi = i + gilu_ld(k->off + 3 * s), qj = j + gilu_ld(k->off + 3 * s + 1), ql = l + gilu_ld(k->off + 3 * s + 2);

  if (qi < 0 || qi >= k->n[0] || qj < 0 || qj >= k->n[1] || ql < 0 || ql >= k->n[2]) return 0;
  while (*m < mend && gilu_ld(k->missoff + *m) < s) (*m)++;
  if (*m < mend && gilu_ld(k->missoff + *m) == s) {
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
  const size_t  N  = (size_t)k->npoints;
  const double *Dq = k->dinv + FactorBlock(D, N, 0, (size_t)qpos), *Lps = k->val + FactorBlock(D, N, (size_t)s, (size_t)pos);

  if (k->ic) {
    const double *Uq = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->mirror + s), (size_t)qpos);

    for (int c = 0; c < D; c++) {
      double r = 0;

      for (int e = 0; e < D; e++) r += gilu_ld_cg(Uq + FactorEntry(D, N, e, a)) * gilu_ld_cg(Dq + FactorEntry(D, N, e, c));
      lrow[c] = r;
    }
  } else {
    for (int c = 0; c < D; c++) {
      double r = 0;

      for (int e = 0; e < D; e++) r += gilu_ld(Lps + FactorEntry(D, N, a, e)) * gilu_ld_cg(Dq + FactorEntry(D, N, e, c));
      lrow[c] = r;
    }
  }
}

/* whether the stencil position s is absent from the pattern at the grid point p (missoff: a few entries per point) */
static __device__ __forceinline__ int FactorAbsent(const FactorArgs *k, int p, int s)
{
  if (!k->missptr) return 0;
  for (int m = gilu_ld(k->missptr + p); m < gilu_ld(k->missptr + p + 1); m++)
    if (gilu_ld(k->missoff + m) == s) return 1;
  return 0;
}

/* 1 and *q the grid index of the neighbour s of the point p = (i, j, l) when it is in the grid and in the pattern */
static __device__ __forceinline__ int FactorNeighbourIn(const FactorArgs *k, int p, int i, int j, int l, int s, int *q)
{
  const int qi = i + k->off[3 * s], qj = j + k->off[3 * s + 1], ql = l + k->off[3 * s + 2];

  if (qi < 0 || qi >= k->n[0] || qj < 0 || qj >= k->n[1] || ql < 0 || ql >= k->n[2] || FactorAbsent(k, p, s)) return 0;
  *q = (ql * k->n[1] + qj) * k->n[0] + qi;
  return 1;
}

/*
  Row a of the block of stencil position t of the point p = (i, j, l) at position pos, final (the intra-row schedule of
  StructILUPlanRowSchedule(): every block it reads is final): the row is read once, its updates accumulated in
  registers (for each contribution, in increasing s, acc[b] -= L_ps[a][c] U_{p+s,u}[c][b] for c in order: the host's
  sequence for each element), then, for a lower t, multiplied by D_{p+t}^{-1}, and written once. Absent positions are
  zero; a lower t outside the grid keeps its updates (as on the host). IC's L blocks come from the neighbour's mirrored
  U block. Own rows (L_ps) are plain loads: written by this block, ordered by its barriers; the neighbours' blocks
  (written by other blocks, published by their release) are loaded past L1 (gilu_ld_cg).
*/
template <int D>
static __device__ void FactorTarget(const FactorArgs *k, int pos, int p, int i, int j, int l, int a, int t)
{
  const size_t N = (size_t)k->npoints;
  double      *T = k->val + FactorBlock(D, N, (size_t)t, (size_t)pos) + a, acc[D]; /* row a: T + FactorEntry(D, N, 0, c) */
  int          q = 0, in = 0;

  if (FactorAbsent(k, p, t)) { /* not in the pattern: no fill kept there */
    GILU_UNROLL
    for (int c = 0; c < D; c++) gilu_st(T + FactorEntry(D, N, 0, c), 0.0);
    return;
  }
  if (t < k->nl) in = FactorNeighbourIn(k, p, i, j, l, t, &q);
  if (k->ic && t < k->nl) { /* L_pt = U_{q,-t}^T D_q^{-1}: no updates */
    if (in) {
      double lrow[D];

      MultiplierRow<D>(k, t, pos, gilu_ld(k->pos + q), a, lrow);
      GILU_UNROLL
      for (int c = 0; c < D; c++) gilu_st(T + FactorEntry(D, N, 0, c), lrow[c]);
    }
    return;
  }
  GILU_UNROLL
  for (int c = 0; c < D; c++) acc[c] = gilu_ld(T + FactorEntry(D, N, 0, c));
  for (int e = gilu_ld(k->cptr + t); e < gilu_ld(k->cptr + t + 1); e++) {
    const int s = gilu_ld(k->cs + e);
    int       qs;

    if (!FactorNeighbourIn(k, p, i, j, l, s, &qs)) continue; /* outside the grid or L_ps zero: no update (as on the host) */
    {
      const double *L = k->val + FactorBlock(D, N, (size_t)s, (size_t)pos) + a;
      const double *U = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->cu + e), (size_t)gilu_ld(k->pos + qs));

      GILU_UNROLL
      for (int c = 0; c < D; c++) {
        const double la = gilu_ld(L + FactorEntry(D, N, 0, c));

        GILU_UNROLL
        for (int b = 0; b < D; b++) acc[b] -= la * gilu_ld_cg(U + FactorEntry(D, N, c, b));
      }
    }
  }
  if (in) { /* a lower t: L_pt = T D_q^{-1} */
    const double *Dq = k->dinv + FactorBlock(D, N, 0, (size_t)gilu_ld(k->pos + q));

    GILU_UNROLL
    for (int c = 0; c < D; c++) {
      double r = 0;

      GILU_UNROLL
      for (int e = 0; e < D; e++) r += acc[e] * gilu_ld_cg(Dq + FactorEntry(D, N, e, c));
      gilu_st(T + FactorEntry(D, N, 0, c), r);
    }
  } else {
    GILU_UNROLL
    for (int c = 0; c < D; c++) gilu_st(T + FactorEntry(D, N, 0, c), acc[c]);
  }
}

/* row a of the block row of the point p (at position pos) by thread group g: the group's targets level by level,
   with a barrier after each level when several groups share the row (every thread of the block calls it) */
template <int D>
static __device__ void FactorRowTargets(const FactorArgs *k, int pos, int p, int a, int g, int valid)
{
  const int i = p % k->n[0], j = (p / k->n[0]) % k->n[1], l = p / (k->n[0] * k->n[1]);

  for (int v = 0; v < k->nrowlev; v++) {
    if (valid)
      for (int e = gilu_ld(k->tptr + v * k->ngroups + g); e < gilu_ld(k->tptr + v * k->ngroups + g + 1); e++) FactorTarget<D>(k, pos, p, i, j, l, a, gilu_ld(k->tgt + e));
    if (k->ngroups > 1) gilu_syncthreads(); /* the level's blocks before the next level reads them */
  }
}

/* the tiles mapping's waiting: the lanes of warp 0 wait (acquire), each for some of the tile's predecessor tiles, each
   predecessor once; the caller's barrier then releases the block */
static __device__ __forceinline__ void FactorWaitTile(const FactorArgs *k, int tile, int sweep)
{
  if (threadIdx.x < 32)
    for (int e = gilu_ld(k->predptr + tile) + (int)threadIdx.x; e < gilu_ld(k->predptr + tile + 1); e += 32) gilu_wait_acquire(&k->flags[gilu_ld(k->pred + e)], sweep);
}

/*
  One block per tile, G thread groups of D threads per point (blockDim = G tilepoints D): one wait for the tile's
  predecessors, the row's targets by intra-row level (each group its share), the inversion of the diagonal block by the
  group that computed it, one barrier and one release. Dynamic shared memory: 5 D doubles per point (the inversion).
  Bound: the latency of the dependent chain of tiles (one acquire per predecessor, one release per tile); within a
  row, the D^2 loads of each neighbour block (broadcast to the point's D threads) and D^2 FMAs per update in registers.
*/
template <int D>
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILUFactorKernel(FactorArgs k, int sweep)
{
  GILU_DYNAMIC_SHARED(double, sh);
  const int tile = BlockUnit(k.ticket, k.ticketbase), nt = (int)blockDim.x / k.ngroups, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt;
  const int lp = t / D, a = t % D, pos = gilu_ld(k.tileptr + tile) + lp, valid = pos < gilu_ld(k.tileptr + tile + 1);
  const int p = valid ? gilu_ld(k.perm + pos) : 0;

  if (!k.nowait) FactorWaitTile(&k, tile, sweep);
  gilu_syncthreads();
  FactorRowTargets<D>(&k, pos, p, a, g, valid);
  GILUDeviceBlockInvertRows<D>(&k, sh, lp, a, pos, p, valid && g == k.diaggroup);
  gilu_syncthreads(); /* every thread's blocks and inverse rows before the release */
  if (threadIdx.x == 0) gilu_signal_release(&k.flags[tile], sweep);
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
  const int    lane = gilu_lane_id(), r = lane >> 2, q = lane & 3;
  const size_t N = (size_t)k->npoints;
  double       v[4];
  int          ok = 1;

  for (int t = 0; t < 4; t++) {
    const int col = 4 * q + t;

    if (r >= D) v[t] = 0;
    else if (col < 8) v[t] = col < D ? gilu_ld(k->val + FactorBlock(D, N, (size_t)k->nl, (size_t)pos) + FactorEntry(D, N, r, col)) : 0;
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

    if (r < D && col >= 0 && col < D) gilu_st(k->dinv + FactorBlock(D, N, 0, (size_t)pos) + FactorEntry(D, N, r, col), ok ? v[t] : 0.0);
  }
  if (!ok && lane == 0) atomicMin(k->zerorow, p * D);
}

/*
  The same factorization for DoF >= 5 on the FP64 tensor cores: one warp per grid point, every DoF x DoF block
  product (L_ps = A_ps D_q^{-1}, IC: U_{q,-s}^T D_q^{-1}, and A_{p,s+u} -= L_ps U_{q,u}) as two m8n8k4 MMAs (K = 8 in two
  halves of 4; blocks padded to 8 x 8 with zeros) through gilu_mma_m8n8k4_f64. The sums are formed in the MMA's order,
  so the factors equal the host's to round-off, not bitwise. The lanes of a warp stay converged: the loops, the
  waits and the tests depend on the point only.
*/
/* the block row of the point p (at position pos) by the calling warp (the block waited for the neighbours before) */
template <int D>
static __device__ void FactorRowMMA(const FactorArgs *k, int pos, int p)
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
    Lps = k->val + FactorBlock(D, N, (size_t)s, (size_t)pos);
    if (in < 0) { /* no lane reads this block again (later updates target later offsets): no __syncwarp needed */
      for (int e = lane; e < DD; e += 32) gilu_st(Lps + FactorEntry(D, N, e % D, e / D), 0.0);
      continue;
    }
    qpos = k->pos[q];
    {
      const double *Dq = k->dinv + FactorBlock(D, N, 0, (size_t)qpos);
      const double *Uq = k->ic ? k->val + FactorBlock(D, N, (size_t)gilu_ld(k->mirror + s), (size_t)qpos) : NULL;

      acc[0] = acc[1] = 0;
      for (int kc = 0; kc < 2; kc++) {
        const int kx = 4 * kc + kq;
        double    a = 0, b = 0;

        if (r < D && kx < D) {
          a = k->ic ? gilu_ld_cg(Uq + FactorEntry(D, N, kx, r)) : gilu_ld(Lps + FactorEntry(D, N, r, kx));
          b = gilu_ld_cg(Dq + FactorEntry(D, N, kx, r)); /* B[kx][r]: lane holds row lane%4, column lane/4 */
        }
        gilu_mma_m8n8k4_f64(acc, a, b, acc);
      }
    }
    gilu_syncwarp(); /* mutation-survivor: the lanes' loads of A_ps before its overwrite (PTX orders them by bar.warp.sync, not by mma.sync); unobservable in the emulation, whose MMA takes all inputs first */
    if (r < D && c0 < D) gilu_st(Lps + FactorEntry(D, N, r, c0), acc[0]);
    if (r < D && c0 + 1 < D) gilu_st(Lps + FactorEntry(D, N, r, c0 + 1), acc[1]);
    gilu_syncwarp();
    for (int e = gilu_ld(k->elimptr + s), eend = gilu_ld(k->elimptr + s + 1); e < eend; e++) {
      const double *U = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->elimu + e), (size_t)qpos);
      double       *T = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->elimt + e), (size_t)pos);

      acc[0] = r < D && c0 < D ? gilu_ld(T + FactorEntry(D, N, r, c0)) : 0;
      acc[1] = r < D && c0 + 1 < D ? gilu_ld(T + FactorEntry(D, N, r, c0 + 1)) : 0;
      for (int kc = 0; kc < 2; kc++) {
        const int kx = 4 * kc + kq;
        double    a = 0, b = 0;

        if (r < D && kx < D) {
          a = -gilu_ld(Lps + FactorEntry(D, N, r, kx));
          b = gilu_ld_cg(U + FactorEntry(D, N, kx, r));
        }
        gilu_mma_m8n8k4_f64(acc, a, b, acc);
      }
      if (r < D && c0 < D) gilu_st(T + FactorEntry(D, N, r, c0), acc[0]);
      if (r < D && c0 + 1 < D) gilu_st(T + FactorEntry(D, N, r, c0 + 1), acc[1]);
    }
    gilu_syncwarp(); /* every lane's updates T are made: other lanes read them as a later A_ps or zero them below */
  }
  if (k->missptr)
    for (m = gilu_ld(k->missptr + p); m < mend; m++) {
      double *Z = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->missoff + m), (size_t)pos);

      for (int e = lane; e < DD; e += 32) gilu_st(Z + FactorEntry(D, N, e % D, e / D), 0.0);
    }
}

template <int D>
__global__ static void __launch_bounds__(GILU_WARP_MAX_THREADS) StructILUFactorMMAKernel(FactorArgs k, int sweep)
{
  const int tile = BlockUnit(k.ticket, k.ticketbase), lp = gilu_warp_id();
  const int pos = gilu_ld(k.tileptr + tile) + lp, valid = pos < gilu_ld(k.tileptr + tile + 1);
  const int p = valid ? gilu_ld(k.perm + pos) : 0;

  if (!k.nowait) FactorWaitTile(&k, tile, sweep);
  gilu_syncthreads(); /* also reconverges warp 0 after its lanes' waits, before mma.sync.aligned */
  /* a warp inverts the diagonal block its own lanes updated (ordered by FactorRowMMA's __syncwarp): no barrier */
  if (valid) FactorRowMMA<D>(&k, pos, p);
  if (valid) GILUDeviceBlockInvertWarp<D>(&k, pos, p);
  gilu_syncthreads(); /* every warp's blocks and inverses before the release */
  if (threadIdx.x == 0) gilu_signal_release(&k.flags[tile], sweep);
}

/* The factorization with the lines mapping: block order[0][unit] (unit: the block's ticket) steps through its levels,
   the DoF threads of a line (mma: the warp of a line) computing its point of each level as StructILUFactorKernel
   (StructILUFactorMMAKernel) does */
template <int D, int MMA>
static __device__ void LinesFactor(const FactorArgs &k)
{
  GILU_DYNAMIC_SHARED(double, sh); /* the inversion (scalar): 5 D doubles per line */
  const LinesMap *m  = &k.lines;
  const int       ln = MMA ? gilu_warp_id() : (int)threadIdx.x / D, a = MMA ? gilu_lane_id() : (int)threadIdx.x % D;
  const int       b = gilu_ld(m->order + BlockUnit(k.ticket, k.ticketbase)), xy = gilu_ld(m->bxy + b);
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;
  const int       lmin = gilu_ld(m->lmin + b), lmax = gilu_ld(m->lmax + b);

  if (!k.nowait) LinesWait(m, 0, b, lmin);
  gilu_syncthreads();
  for (int L = lmin; L <= lmax; L++) {
    const int p = LinesPoint(m, k.n, xh, yh, L), pos = p >= 0 ? gilu_ld(k.pos + p) : 0;

    /* each line's threads invert the diagonal block they updated themselves (one thread group): no barrier between */
    if (MMA) {
      if (p >= 0) {
        FactorRowMMA<D>(&k, pos, p);
        GILUDeviceBlockInvertWarp<D>(&k, pos, p);
      }
    } else {
      FactorRowTargets<D>(&k, pos, p, a, 0, p >= 0);
      GILUDeviceBlockInvertRows<D>(&k, sh, ln, a, pos, p, p >= 0);
    }
    LinesLevelDone(m, 0, b, L, 1, L < lmax, k.nowait);
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
  const size_t N = (size_t)k->npoints;
  int          i, j, l, m = 0, mend = 0;

  (void)FactorPoint(k, pos, &i, &j, &l, &m, &mend);
  for (int s = 0; s < k->nl; s++) {
    const int mine = gilu_ld(k->early + s) ? !second : second; /* this substage finalizes L_ps */
    double   *Lps, lrow[D];
    int       q = 0, qpos, in = FactorNeighbour(k, i, j, l, s, &m, mend, &q);

    if (!in) continue;
    Lps = k->val + FactorBlock(D, N, (size_t)s, (size_t)pos);
    if (in < 0) {
      if (mine)
        for (int c = 0; c < D; c++) gilu_st(Lps + FactorEntry(D, N, a, c), 0.0);
      continue;
    }
    if (!mine && !second) continue; /* a late L block: all its updates are in substage 2 */
    qpos = gilu_ld(k->pos + q);
    if (mine) {
      MultiplierRow<D>(k, s, pos, qpos, a, lrow);
      for (int c = 0; c < D; c++) gilu_st(Lps + FactorEntry(D, N, a, c), lrow[c]);
    } else
      for (int c = 0; c < D; c++) lrow[c] = gilu_ld(Lps + FactorEntry(D, N, a, c)); /* finalized in substage 1 */
    for (int e = gilu_ld(k->elimptr + s), eend = gilu_ld(k->elimptr + s + 1); e < eend; e++) {
      const double *U = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->elimu + e), (size_t)qpos);
      double       *T = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->elimt + e), (size_t)pos);

      if (gilu_ld(k->pairs1 + e) == second) continue; /* the other substage's update */
      for (int c = 0; c < D; c++) {
        const double la = lrow[c];

        for (int b = 0; b < D; b++) {
          const double u = gilu_ld_cg(U + FactorEntry(D, N, c, b));

          gilu_st(T + FactorEntry(D, N, a, b), gilu_ld(T + FactorEntry(D, N, a, b)) - la * u);
        }
      }
    }
  }
  if (second && k->missptr)
    for (m = gilu_ld(k->missptr + p); m < mend; m++) {
      double *Z = k->val + FactorBlock(D, N, (size_t)gilu_ld(k->missoff + m), (size_t)pos);

      for (int c = 0; c < D; c++) gilu_st(Z + FactorEntry(D, N, a, c), 0.0);
    }
}

/* threads: group 0 (substage 1, the rows one level ahead) and group 1 (substage 2), DoF threads per line each */
template <int D>
__global__ static void __launch_bounds__(GILU_TILE_MAX_THREADS, 1) StructILULinesFactorPipelined(FactorArgs k)
{
  GILU_DYNAMIC_SHARED(double, sh); /* group 1's inversion: 5 D doubles per line */
  const LinesMap *m  = &k.lines;
  const int       nt = (int)blockDim.x / 2, g = (int)threadIdx.x / nt, t = (int)threadIdx.x % nt, ln = t / D, a = t % D;
  const int       b = gilu_ld(m->order + BlockUnit(k.ticket, k.ticketbase)), xy = gilu_ld(m->bxy + b);
  const int       xh = m->x0 + (xy % m->nbx) * m->bx + ln % m->bx, yh = m->y0 + (xy / m->nbx) * m->by + ln / m->bx;
  const int       lo = gilu_ld(m->lmin + b), hi = gilu_ld(m->lmax + b);

  if (!k.nowait) LinesWait(m, 0, b, lo - 1);
  gilu_syncthreads();
  for (int L = lo - 1;; L++) {
    const int p = LinesPoint(m, k.n, xh, yh, g ? L : L + 1), pos = p >= 0 ? gilu_ld(k.pos + p) : 0;

    if (p >= 0) FactorSubstage<D>(&k, pos, p, a, g);
    /* group 1 inverts the diagonal blocks its own threads completed; group 0's part of them is ordered before by the
       previous step's barrier (LinesLevelDone) */
    GILUDeviceBlockInvertRows<D>(&k, sh, ln, a, pos, p, g && p >= 0);
    LinesLevelDone(m, 0, b, L, L >= lo, L < hi, k.nowait);
    if (L == hi) break;
  }
}

#endif
