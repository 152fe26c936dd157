/*
   PCSTRUCTILU on CUDA: the triangular solves of the factors the host computes, on the device (or on the host
   through the emulation, cudaemu: the same source). The factors are those of structilu-host.c, so the solves
   give the host's results to round-off (the products of a row are summed in stencil order here).

   Schedule (the grid tier of StructILU, seed 000):
   - level(i,j,k) = w.(i,j,k) with non-negative integer weights such that every lower offset l has w.l <= -1 and
     every upper offset u has w.u >= 1 (the affine hyperplane transformation; the weights of
     GILUStencilGetHyperplanes() are also checked against the upper offsets, and searched again if needed). Points
     of one level are independent in both sweeps.
   - the points are ordered by level (natural order within a level) and cut into tiles: at most `tilepoints`
     points of one level. One thread block per tile; blocks are launched in order of level (forward: increasing,
     backward: decreasing), so a block waits only for blocks launched before it.
   - block-to-block waiting through a flag array: when a tile is done its block writes the sweep number into its
     flag; a thread that needs a neighbour's value waits (gilu_wait_until_ge) for the flag of the neighbour's tile.
     One kernel per sweep, not per level. The sweep numbers grow, so the flags are never reset.
   - the intra-row tier of the solves (ChooseStages): a row's off-diagonal products are split into P stages by how
     many levels back their neighbour lies; each stage has its own group of DoF threads per point, which waits only
     for its own neighbours, so only the last stage (neighbours one level back) is left after the wait for the
     previous level; the partial sums are added in stage order (-pc_structilu_cuda_pipeline, default min(4, levels
     spanned), as Table 2 of seed 000). The factorization has no intra-row pipeline (the two-substage pipeline of the
     paper is not implemented): each point's eliminations run in stencil order, waiting for each neighbour in turn.
   - DoF threads per grid point: thread a of a point computes row a of the point's block row; the diagonal-block
     products (IC's D^{-1} y, the backward sweep's D^{-1}) exchange the row sums through shared memory.
   - memory: the factor blocks are stored level-ordered (the level-based memory transformation): the threads of a
     tile read consecutive blocks of each offset. Factors in double or single precision (the host's choice).

   Vectors: the solve takes device arrays from src/sys/device-vec.c: a CUDA vector's own (a CUDA-enabled PETSc),
   else this device's buffers b and x, with b copied in and x back in each apply (logged as GILUCopyToGPU /
   GILUCopyToCPU), as with Debian's host-only PETSc.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "structilu-cuda.h"

#define GILU_TILE_MAX_THREADS 1024

/* the factors' type: CFG = dof + 16 * single */
template <int S>
struct FactorType {
  typedef double T;
};
template <>
struct FactorType<1> {
  typedef float T;
};

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
} SolveArgs;

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
  if (threadIdx.x == 0) atomicExch(&flags[tile], sweep);
}

/* forward: y_p = b_p - sum_{lower s} L_{p,s} y_{p+s} (ILU); IC: the blocks are U_{q,-s}^T and multiply z_q = D_q^{-1} y_q */
template <int CFG>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS) StructILUForward(SolveArgs k, int sweep)
{
  typedef typename FactorType<(CFG >> 4)>::T FT;
  const int                                  D = CFG & 15, DD = D * D;
  GILU_DYNAMIC_SHARED(double, ysh); /* nt values of y, then the partial sums of stages 1 .. nstage - 1 */
  const int    nt = (int)blockDim.x / k.nstage, g = (int)threadIdx.x / nt;
  const int    tile = blockIdx.x, t = (int)threadIdx.x % nt, lp = t / D, a = t % D;
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
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS) StructILUBackward(SolveArgs k, int sweep)
{
  typedef typename FactorType<(CFG >> 4)>::T FT;
  const int                                  D = CFG & 15, DD = D * D;
  GILU_DYNAMIC_SHARED(double, ysh); /* as in the forward sweep */
  const int    nt = (int)blockDim.x / k.nstage, g = (int)threadIdx.x / nt;
  const int    tile = k.ntiles - 1 - (int)blockIdx.x, t = (int)threadIdx.x % nt, lp = t / D, a = t % D;
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

/* kernel arguments of the factorization */
typedef struct {
  int        n[3], ns, nl, npoints, ic, nowait;
  const int *tileptr, *perm, *pos, *tileof, *off, *mirror;
  const int *elimptr, *elimu, *elimt; /* per lower offset s: the updates A_{p,elimt} -= L_ps U_{q,elimu} */
  const int *missptr, *missoff;       /* per point (natural numbering, CSR): the offsets absent from the pattern; NULL: none */
  double    *val, *dinv;              /* level-ordered, all ns offsets */
  int       *flags, *zerorow;
  double     zeropivot;
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
  In-place ILU(0) of the rows of a tile (Algorithm 1 of seed 000; the same operations, in the same order, as
  structilu-kernels.h), thread a of a point computing row a of its block row: L_ps = A_ps D_q^{-1} (IC: U_{q,-s}^T
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

template <int D>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS) StructILUFactorKernel(FactorArgs k, int sweep)
{
  const int    DD = D * D, tile = blockIdx.x, t = threadIdx.x, lp = t / D, a = t % D;
  const int    pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const size_t N = (size_t)k.npoints;
  int          p = 0;

  if (valid) {
    int i, j, l, m = 0, mend = 0;

    p = FactorPoint(&k, pos, &i, &j, &l, &m, &mend);
    for (int s = 0; s < k.nl; s++) {
      const int qi = i + k.off[3 * s], qj = j + k.off[3 * s + 1], ql = l + k.off[3 * s + 2];
      double   *Lps, lrow[D];
      int       q, qpos;

      if (qi < 0 || qi >= k.n[0] || qj < 0 || qj >= k.n[1] || ql < 0 || ql >= k.n[2]) continue;
      Lps = k.val + ((size_t)s * N + (size_t)pos) * DD;
      while (m < mend && k.missoff[m] < s) m++;
      if (m < mend && k.missoff[m] == s) { /* not in the pattern: no fill kept there */
        for (int c = 0; c < D; c++) Lps[a * D + c] = 0;
        m++;
        continue;
      }
      q = (ql * k.n[1] + qj) * k.n[0] + qi;
      if (!k.nowait) gilu_wait_until_ge(&k.flags[k.tileof[q]], sweep);
      qpos = k.pos[q];
      {
        const double *Dq = k.dinv + (size_t)qpos * DD;

        if (k.ic) {
          const double *Uq = k.val + ((size_t)k.mirror[s] * N + (size_t)qpos) * DD;

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
      for (int c = 0; c < D; c++) Lps[a * D + c] = lrow[c];
      for (int e = k.elimptr[s]; e < k.elimptr[s + 1]; e++) {
        const double *U = k.val + ((size_t)k.elimu[e] * N + (size_t)qpos) * DD;
        double       *T = k.val + ((size_t)k.elimt[e] * N + (size_t)pos) * DD;

        for (int c = 0; c < D; c++) {
          const double la = lrow[c];

          for (int b = 0; b < D; b++) T[a * D + b] -= la * LoadShared(U + c * D + b);
        }
      }
    }
    if (k.missptr)
      for (m = k.missptr[p]; m < mend; m++) {
        double *Z = k.val + ((size_t)k.missoff[m] * N + (size_t)pos) * DD;

        for (int c = 0; c < D; c++) Z[a * D + c] = 0;
      }
  }
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
template <int D>
__global__ void __launch_bounds__(GILU_TILE_MAX_THREADS) StructILUFactorMMAKernel(FactorArgs k, int sweep)
{
  const int    DD = D * D, tile = blockIdx.x, lane = gilu_lane_id(), lp = gilu_warp_id();
  const int    pos = k.tileptr[tile] + lp, valid = pos < k.tileptr[tile + 1];
  const int    r = lane >> 2, c0 = 2 * (lane & 3), kq = lane & 3;
  const size_t N = (size_t)k.npoints;
  int          p = 0;

  if (valid) {
    int i, j, l, m = 0, mend = 0;

    p = FactorPoint(&k, pos, &i, &j, &l, &m, &mend);
    for (int s = 0; s < k.nl; s++) {
      const int qi = i + k.off[3 * s], qj = j + k.off[3 * s + 1], ql = l + k.off[3 * s + 2];
      double   *Lps, acc[2];
      int       q, qpos;

      if (qi < 0 || qi >= k.n[0] || qj < 0 || qj >= k.n[1] || ql < 0 || ql >= k.n[2]) continue;
      Lps = k.val + ((size_t)s * N + (size_t)pos) * DD;
      while (m < mend && k.missoff[m] < s) m++;
      if (m < mend && k.missoff[m] == s) {
        for (int e = lane; e < DD; e += 32) Lps[e] = 0;
        m++;
        gilu_syncwarp();
        continue;
      }
      q = (ql * k.n[1] + qj) * k.n[0] + qi;
      if (!k.nowait) gilu_wait_until_ge(&k.flags[k.tileof[q]], sweep);
      qpos = k.pos[q];
      {
        const double *Dq = k.dinv + (size_t)qpos * DD;
        const double *Uq = k.ic ? k.val + ((size_t)k.mirror[s] * N + (size_t)qpos) * DD : NULL;

        acc[0] = acc[1] = 0;
        for (int kc = 0; kc < 2; kc++) {
          const int kx = 4 * kc + kq;
          double    a = 0, b = 0;

          if (r < D && kx < D) {
            a = k.ic ? LoadShared(Uq + kx * D + r) : Lps[r * D + kx];
            b = LoadShared(Dq + kx * D + r); /* B[kx][r]: lane holds row lane%4, column lane/4 */
          }
          gilu_mma_m8n8k4_f64(acc, a, b, acc);
        }
      }
      gilu_syncwarp(); /* every lane has read A_ps */
      if (r < D && c0 < D) Lps[r * D + c0] = acc[0];
      if (r < D && c0 + 1 < D) Lps[r * D + c0 + 1] = acc[1];
      gilu_syncwarp();
      for (int e = k.elimptr[s]; e < k.elimptr[s + 1]; e++) {
        const double *U = k.val + ((size_t)k.elimu[e] * N + (size_t)qpos) * DD;
        double       *T = k.val + ((size_t)k.elimt[e] * N + (size_t)pos) * DD;

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
    }
    if (k.missptr)
      for (m = k.missptr[p]; m < mend; m++) {
        double *Z = k.val + ((size_t)k.missoff[m] * N + (size_t)pos) * DD;

        for (int e = lane; e < DD; e += 32) Z[e] = 0;
      }
  }
  gilu_syncthreads();
  if (valid) GILUDeviceBlockInvertWarp<D>(&k, pos, p);
  TileDone(k.flags, tile, sweep);
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
};

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
  The intra-row pipeline of the solves (seed 000, Section 4.2.1): the off-diagonal offsets of a row are split into
  P stages by their distance in levels, depth = |w.off| >= 1: stage P - depth, at least 0 (the paper's rule: the
  nonzeros of stage g lie at most g - P levels back). Each stage is summed by its own group of threads of the block,
  which waits only for the neighbours of its stage: the earlier stages' neighbours belong to levels finished long
  before, so on a GPU those groups do their products while the block still waits for the previous level, and only
  the last stage (depth 1) is left after that wait. The partial sums are added in stage order. P = 1: one group, the
  products of a row in stencil order as before. Automatic (pipeline 0): P = min(4, the largest depth), as Table 2 of
  seed 000 (Star-7P 1, Star-13P and Diamond-13P 2, Box-27P 4); P is also capped by the largest depth and by
  1024 threads per block.
*/
static PetscErrorCode ChooseStages(const GILUStencil *st, const PetscInt w[3], PetscInt pipeline, PetscInt nthreads, PetscInt stage[], PetscInt *nstage)
{
  PetscInt maxdepth = 1, P;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < st->ns; s++) {
    if (s == st->nlower) continue;
    maxdepth = PetscMax(maxdepth, PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]));
  }
  P = pipeline > 0 ? pipeline : PetscMin(4, maxdepth);
  P = PetscMax(1, PetscMin(PetscMin(P, maxdepth), GILU_TILE_MAX_THREADS / nthreads));
  for (PetscInt s = 0; s < st->ns; s++) {
    const PetscInt depth = PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]);

    stage[s] = s == st->nlower ? -1 : PetscMax(0, P - depth);
  }
  *nstage = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Create(const GILUStencilMat *sm, PetscInt tilepoints, PetscInt pipeline, PetscBool nowait, StructILUDevice *devp, StructILUDeviceInfo *info)
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
  /* points by level (counting sort, natural order within a level), then tiles of one level */
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

  PetscCall(PetscNew(&dev));
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
  PetscCall(ChooseStages(st, w, pipeline, dev->nthreads, stage, &nstage));
  PetscCall(CopyIntArray(stage, st->ns, &dev->stage));
  dev->nstage = nstage;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * (size_t)ntiles, (void **)&dev->flags));
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
  dev->args.ntiles  = (int)ntiles;
  dev->args.nstage  = (int)nstage;
  dev->args.stage   = dev->stage;
  *devp             = dev;

  PetscCall(PetscMemzero(info, sizeof(*info)));
  for (PetscInt c = 0; c < 3; c++) info->w[c] = w[c];
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
    if (forward) PetscCall(GILU_LAUNCH(StructILUForward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    else PetscCall(GILU_LAUNCH(StructILUBackward<cfg>, grid, block, shmem, 0, dev->args, sweep)); \
    break;

static PetscErrorCode Sweep(StructILUDevice dev, PetscBool forward)
{
  const int    cfg = (int)dev->dof + (dev->single ? 16 : 0), sweep = ++dev->sweep;
  const dim3   grid((unsigned int)dev->ntiles), block((unsigned int)(dev->nthreads * dev->nstage));
  const size_t shmem = sizeof(double) * (size_t)(dev->nthreads * dev->nstage);

  PetscFunctionBegin;
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
  The factorization on the device: the values of sm (natural order) are copied level-ordered, factored in place by
  StructILUFactorKernel with the schedule of the solves, and kept as the factors the solves read (a float copy for
  single-precision factors). elim: the elimination table of the stencil; mirror: IC's opposite offsets, or NULL.
*/
static PetscErrorCode Factor(StructILUDevice dev, const GILUStencilMat *sm, const PetscInt *elim, const PetscInt *mirror, PetscReal zeropivot, PetscBool single, PetscBool mma, PetscInt *zerorow, PetscBool *usedmma)
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
  if (mma && d >= 4 && 32 * dev->tilepoints <= GILU_TILE_MAX_THREADS) { /* one warp per point */
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
    dev->usedmma = PETSC_TRUE;
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
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->b));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->x));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->z));
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
