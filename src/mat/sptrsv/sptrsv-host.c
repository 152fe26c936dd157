/*
   The host kernels of the triangular-solve engine: the OpenMP kernels that run a plan (its segments, see sptrsvimpl.h;
   built by sptrsv-plan.c), specialized for each block size 1..8 at compile time.

   Level-set and sync-free cut the rows of a triangle (stored level by level) into chunks that
   the threads claim in order from a shared counter, so a thread that the operating system
   descheduled holds up the others only while it holds an unfinished chunk (the machine may
   have more threads than cores). Level-set: a chunk holds rows of one level and starts when the
   previous level's counter of finished rows is full (no global barrier). Sync-free: a row waits
   on the completion flags of its own dependencies. Chunked keeps the elimination order: a chunk is
   a run of consecutive rows (a grid line of a stencil matrix in natural order), the chunks are
   ordered level by level of the chunk dependency DAG, and a chunk waits on the done flags of the
   chunks it reads before it runs its rows one after the other (values and x accessed in order).
   By default each thread takes a fixed share of every chunk level, the same stretch of the level's
   chunks (on a 3D grid: the lines on one side of a diagonal of the plane), so most chunks it reads
   are its own and the solution stays in its cache; reading the other core's results costs a cache
   line transfer per line read (7-point 60^3 on 2 threads: 1.35 ms claimed, 0.85 ms fixed shares).
   Else (GILUTriSetChunkedStatic()) the threads claim chunks from a shared counter.
   When the rows have few distinct column-offset lists (a stencil matrix: a handful), chunked stores
   runs of rows per pattern instead of row pointers and column indices, and a thread takes four
   (else two) chunks of one chunk level at a time and runs their rows in turn: a row waits on the
   row before it (latency, not bandwidth, bounds a single chain), the chains overlap. This also
   makes chunked the fastest kernel on one thread, where auto picks it. Without the patterns a
   thread takes two chunks.

   Why they cannot deadlock: a chunk waits only on rows of lower levels, i.e. of chunks claimed
   earlier (chunked: on chunks of lower chunk levels), and a thread finishes its chunk before it
   claims another. Take the unfinished claimed chunk that comes first: everything it waits for
   is finished, so its thread makes progress (a pair: both chunks are of one chunk level, and
   their waits are done before either runs). Fixed shares: every thread runs its shares level by
   level; the lowest level with an unfinished chunk waits only on finished chunks.
   A waiting thread spins a while, then yields and sleeps (include/petscgilu/private/wait.h).

   Why the results do not depend on the number of threads: every row is computed by the same
   code from the same inputs in the same order of operations (its entries in column order); the
   schedule only decides when, and guarantees that the entries it reads are final. Level-set,
   sync-free, chunked and sequential (one triangle) even give the reference's bits; the blocked
   algorithms subtract the square parts first, which changes the rounding.
*/
#include <petscgilu/private/wait.h>
#include "sptrsvimpl.h"
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
  #define GILU_OMP_BARRIER \
    do { \
      _Pragma("omp barrier") \
    } while (0)
#else
  #define GILU_OMP_BARRIER \
    do { \
    } while (0)
#endif

/* full unrolling of the loops over a block's rows and columns (GCC; other compilers: their own choice) */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
  #define GILU_UNROLL _Pragma("GCC unroll 8")
#elif defined(__clang__)
  #define GILU_UNROLL _Pragma("unroll")
#else
  #define GILU_UNROLL
#endif

/*
  Several right-hand sides at once (GILUTriSolveMultiple()): m of them, interleaved, so that the values of a row are
  read once for all m (a triangular solve is bound by the bytes of its factor: the vectors' entries of a row are m
  consecutive values, the factor's entries one block). Entry p of block row r of right-hand side j is at
  (r bs + p) m + j. Each column is computed by the operations, in the order, of the one-vector kernel below: the same
  bits as m solves of one vector (tests/ex7.c checks it for every algorithm).
*/
static inline __attribute__((always_inline)) void RowKernelMultipleBody(const PetscInt bs, const PetscInt m, const PetscScalar *b, const PetscInt *idx, PetscInt base, const MatScalar *v, PetscInt nz, const MatScalar *d, const PetscScalar *x, PetscScalar *out, PetscScalar *out2, const unsigned int *done, unsigned int epoch)
{
  PetscScalar s[GILU_MAX_DOF * GILU_TRI_MAX_RHS];

  for (PetscInt p = 0; p < bs * m; p++) s[p] = b[p];
  for (PetscInt k = 0; k < nz; k++) {
    const PetscScalar *xc = x + (base + idx[k]) * bs * m;

    if (done) GILUWaitUInt(&done[idx[k]], epoch);
    GILU_UNROLL
    for (PetscInt p = 0; p < bs; p++) {
      GILU_UNROLL
      for (PetscInt q = 0; q < bs; q++) {
        const MatScalar vpq = v[k * bs * bs + p * bs + q];

        for (PetscInt j = 0; j < m; j++) s[p * m + j] -= vpq * xc[q * m + j];
      }
    }
  }
  GILU_UNROLL
  for (PetscInt p = 0; p < bs; p++)
    for (PetscInt j = 0; j < m; j++) {
      PetscScalar t = s[p * m + j];

      if (d) {
        t = d[p * bs] * s[j];
        GILU_UNROLL
        for (PetscInt q = 1; q < bs; q++) t += d[p * bs + q] * s[q * m + j];
      }
      out[p * m + j] = t;
      if (out2) out2[p * m + j] = t;
    }
}

/* ... for block size BS, a full group of GILU_TRI_MAX_RHS (m a constant: the loops over the columns unrolled) or fewer; not
   inlined: a call per row is little beside m rows' work, and the kernels' many call sites would each hold a copy */
#define GILU_ROW_MULTIPLE(BS) \
  static __attribute__((noinline)) void RowKernelMultiple_##BS(const PetscInt m, const PetscScalar *b, const PetscInt *idx, PetscInt base, const MatScalar *v, PetscInt nz, const MatScalar *d, const PetscScalar *x, PetscScalar *out, PetscScalar *out2, const unsigned int *done, unsigned int epoch) \
  { \
    if (m == GILU_TRI_MAX_RHS) RowKernelMultipleBody(BS, GILU_TRI_MAX_RHS, b, idx, base, v, nz, d, x, out, out2, done, epoch); \
    else RowKernelMultipleBody(BS, m, b, idx, base, v, nz, d, x, out, out2, done, epoch); \
  }
GILU_ROW_MULTIPLE(1)
GILU_ROW_MULTIPLE(2)
GILU_ROW_MULTIPLE(3)
GILU_ROW_MULTIPLE(4)
GILU_ROW_MULTIPLE(5)
GILU_ROW_MULTIPLE(6)
GILU_ROW_MULTIPLE(7)
GILU_ROW_MULTIPLE(8)

typedef void (*RowKernelMultipleFn)(const PetscInt, const PetscScalar *, const PetscInt *, PetscInt, const MatScalar *, PetscInt, const MatScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, const unsigned int *, unsigned int);
static const RowKernelMultipleFn RowKernelMultiple[] = {NULL, RowKernelMultiple_1, RowKernelMultiple_2, RowKernelMultiple_3, RowKernelMultiple_4, RowKernelMultiple_5, RowKernelMultiple_6, RowKernelMultiple_7, RowKernelMultiple_8};

/*
  The one row kernel every host algorithm runs: y = D (b_r - sum_k V_k x_{c_k}) (d NULL: no D), the entries in their
  stored order, c_k = base + idx[k] (idx: column indices with base 0, or column offsets with base r), y written to out
  and, if out2, to out2 too. With done (column indices only), each x_{c_k} is read after its flag done[idx[k]] says it is final.
  m right-hand sides, interleaved (m is the constant 1 in the solves of one vector, where the branch goes away).
*/
static inline __attribute__((always_inline)) void RowKernel(const PetscInt bs, const PetscInt m, const PetscScalar *b, const PetscInt *idx, PetscInt base, const MatScalar *v, PetscInt nz, const MatScalar *d, const PetscScalar *x, PetscScalar *out, PetscScalar *out2, const unsigned int *done, unsigned int epoch)
{
  PetscScalar s[GILU_MAX_DOF];

  if (m > 1) {
    RowKernelMultiple[bs](m, b, idx, base, v, nz, d, x, out, out2, done, epoch); /* (bs a constant: a direct call) */
    return;
  }

  /* bs is a constant here (PlanRun_1 .. PlanRun_8): unrolled, s lives in registers */
  GILU_UNROLL
  for (PetscInt p = 0; p < bs; p++) s[p] = b[p];
  for (PetscInt k = 0; k < nz; k++) {
    const PetscScalar *xc = x + (base + idx[k]) * bs;

    if (done) GILUWaitUInt(&done[idx[k]], epoch);
    GILU_UNROLL
    for (PetscInt p = 0; p < bs; p++) {
      GILU_UNROLL
      for (PetscInt q = 0; q < bs; q++) s[p] -= v[k * bs * bs + p * bs + q] * xc[q];
    }
  }
  GILU_UNROLL
  for (PetscInt p = 0; p < bs; p++) {
    PetscScalar t = s[p];

    if (d) { /* (D s)_p, starting from its first product (no 0 + ...: one dependent add less per row) */
      t = d[p * bs] * s[0];
      GILU_UNROLL
      for (PetscInt q = 1; q < bs; q++) t += d[p * bs + q] * s[q];
    }
    out[p] = t;
    if (out2) out2[p] = t;
  }
}

/* x_r = D^{-1} (x_r - sum_k V_k x_{col_k}) (d NULL: unit diagonal); with wait, each x_c is read after its flag says it is final */
static inline __attribute__((always_inline)) void SegmentRowSolve(const PetscInt bs, const PetscInt m, PetscInt r, const PetscInt *col, const MatScalar *v, PetscInt nz, const MatScalar *d, const PetscScalar *src, PetscScalar *x, const unsigned int *done, unsigned int epoch, PetscBool wait)
{
  RowKernel(bs, m, src + r * bs * m, col, 0, v, nz, d, x, x + r * bs * m, NULL, wait ? done : NULL, epoch);
}

/* Stored row s of a segment: the caller's row r, its entries' column indices idx (perm: their stored positions, the
   permuted layout), values v and number nz, its inverted diagonal block d (NULL: none); from the segment's own arrays
   or, a whole-matrix triangle (seg->direct), from the caller's */
typedef struct {
  PetscInt         r, nz;
  const PetscInt  *idx;
  const MatScalar *v, *d;
} SegRow;

static inline __attribute__((always_inline)) SegRow SegRowGet(const PetscInt bs, const GILUTriSeg *seg, PetscInt s, PetscBool perm)
{
  const PetscInt bs2 = bs * bs;
  SegRow         w;

  w.r = seg->row[s];
  if (seg->direct) {
    const PetscInt k0 = seg->ai[w.r] + seg->dlo;

    w.nz  = seg->ai[w.r + 1] - seg->dhi - k0;
    w.idx = (perm ? seg->colp : seg->aj) + k0;
    w.v   = seg->av + k0 * bs2;
    w.d   = seg->ad ? seg->ad + w.r * bs2 : NULL;
  } else {
    const PetscInt k0 = seg->ptr[s];

    w.nz  = seg->ptr[s + 1] - k0;
    w.idx = (perm ? seg->colp : seg->col) + k0;
    w.v   = seg->val + k0 * bs2;
    w.d   = seg->dval ? seg->dval + s * bs2 : NULL;
  }
  return w;
}

/* stored row s: x_r = D^{-1} (src_r - sum_k V_k x_{col_k}), with wait after each x_c's flag */
static inline __attribute__((always_inline)) void SegRowSolve(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, PetscInt s, const PetscScalar *src, PetscScalar *x, const unsigned int *done, unsigned int epoch, PetscBool wait)
{
  const SegRow w = SegRowGet(bs, seg, s, PETSC_FALSE);

  SegmentRowSolve(bs, m, w.r, w.idx, w.v, w.nz, w.d, src, x, done, epoch, wait);
}

static inline __attribute__((always_inline)) void RowsSolve(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, PetscInt lo, PetscInt hi, const PetscScalar *src, PetscScalar *x)
{
  for (PetscInt s = lo; s < hi; s++) SegRowSolve(bs, m, seg, s, src, x, NULL, 0, PETSC_FALSE);
}

/*
  Chunked with column-offset patterns: a cursor walks the runs of one chunk. Two chunks of one chunk level are independent,
  so a thread that holds two runs their rows alternately: each row waits on the row before it in its own chunk (a chain of
  dependent multiply-adds and a store-to-load forwarding per row, latency rather than bandwidth), and two interleaved
  chains keep the core busy while either waits. Every row is computed as the reference computes it (the same bits).
*/
typedef struct {
  const MatScalar *v, *d;   /* the next row's values (back: the end of them) and inverted diagonal block */
  PetscBool        back;    /* in place, upper triangle: the rows' values and diagonal blocks are walked backwards */
  PetscInt         skip;    /* in place: blocks between two rows' off-diagonal values (a stored diagonal) */
  const PetscInt  *off;     /* the current run's column offsets */
  PetscInt         nz;      /* ... and their number */
  PetscInt         left;    /* rows left in the current run */
  PetscInt         q, qend; /* the next run, the chunk's end */
  PetscInt         r;       /* the next row */
} ChunkCursor;

static inline void CursorInit(const PetscInt bs, const GILUTriSeg *seg, PetscInt c, ChunkCursor *u)
{
  const PetscInt lo = seg->cptr[c], bs2 = bs * bs;

  if (seg->inplace) {
    u->v    = seg->av + seg->cvoff[c] * bs2;
    u->d    = seg->ad ? seg->ad + seg->crow[c] * bs2 : NULL;
    u->r    = seg->crow[c];
    u->back = (PetscBool)(seg->rstep < 0);
    u->skip = seg->dskip;
  } else {
    u->v    = seg->val + seg->ptr[lo] * bs2;
    u->d    = seg->dval ? seg->dval + lo * bs2 : NULL;
    u->r    = seg->row[lo];
    u->back = PETSC_FALSE;
    u->skip = 0;
  }
  u->q    = seg->rptr[c];
  u->qend = seg->rptr[c + 1];
  u->left = 0;
  u->off  = NULL;
  u->nz   = 0;
}

/* whether the chunk has a row left (entering its next run if needed) */
static inline PetscBool CursorMore(const GILUTriSeg *seg, ChunkCursor *u)
{
  while (!u->left) {
    PetscInt p;

    if (u->q == u->qend) return PETSC_FALSE;
    p       = seg->rpat[u->q];
    u->off  = seg->poff + seg->pptr[p];
    u->nz   = seg->pptr[p + 1] - seg->pptr[p];
    u->left = seg->rlen[u->q++];
  }
  return PETSC_TRUE;
}

static inline __attribute__((always_inline)) void CursorRow(const PetscInt bs, const PetscInt m, PetscInt step, ChunkCursor *u, const PetscScalar *src, PetscScalar *x)
{
  const PetscInt   bs2 = bs * bs, r = u->r;
  const MatScalar *v = u->back ? u->v - u->nz * bs2 : u->v;

  RowKernel(bs, m, src + r * bs * m, u->off, r, v, u->nz, u->d, x, x + r * bs * m, NULL, NULL, 0);
  if (u->d) u->d += u->back ? -bs2 : bs2;
  u->v = u->back ? v - u->skip * bs2 : v + (u->nz + u->skip) * bs2;
  u->r = r + step;
  u->left--;
}

/* chunks c0 and c1 (c1 < 0: c0 alone) of one chunk level, rows interleaved */
static inline __attribute__((always_inline)) void ChunkPairSolve(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, PetscInt c0, PetscInt c1, const PetscScalar *src, PetscScalar *x)
{
  ChunkCursor a, b;

  if (!seg->inplace) { /* rows as ptr/col */
    const PetscInt bs2 = bs * bs, step = seg->rstep, ea = seg->cptr[c0 + 1], eb = c1 >= 0 ? seg->cptr[c1 + 1] : 0;
    PetscInt       sa = seg->cptr[c0], sb = c1 >= 0 ? seg->cptr[c1] : 0, ra = seg->row[sa], rb = c1 >= 0 ? seg->row[sb] : 0;

    for (; sa < ea && sb < eb; sa++, sb++, ra += step, rb += step) {
      SegmentRowSolve(bs, m, ra, seg->col + seg->ptr[sa], seg->val + seg->ptr[sa] * bs2, seg->ptr[sa + 1] - seg->ptr[sa], seg->dval ? seg->dval + sa * bs2 : NULL, src, x, NULL, 0, PETSC_FALSE);
      SegmentRowSolve(bs, m, rb, seg->col + seg->ptr[sb], seg->val + seg->ptr[sb] * bs2, seg->ptr[sb + 1] - seg->ptr[sb], seg->dval ? seg->dval + sb * bs2 : NULL, src, x, NULL, 0, PETSC_FALSE);
    }
    for (; sb < eb; sb++, rb += step) SegmentRowSolve(bs, m, rb, seg->col + seg->ptr[sb], seg->val + seg->ptr[sb] * bs2, seg->ptr[sb + 1] - seg->ptr[sb], seg->dval ? seg->dval + sb * bs2 : NULL, src, x, NULL, 0, PETSC_FALSE);
    for (; sa < ea; sa++, ra += step) SegmentRowSolve(bs, m, ra, seg->col + seg->ptr[sa], seg->val + seg->ptr[sa] * bs2, seg->ptr[sa + 1] - seg->ptr[sa], seg->dval ? seg->dval + sa * bs2 : NULL, src, x, NULL, 0, PETSC_FALSE);
    return;
  }
  CursorInit(bs, seg, c0, &a);
  if (c1 >= 0) {
    CursorInit(bs, seg, c1, &b);
    while (CursorMore(seg, &a) && CursorMore(seg, &b)) {
      CursorRow(bs, m, seg->rstep, &a, src, x);
      CursorRow(bs, m, seg->rstep, &b, src, x);
    }
    while (CursorMore(seg, &b)) CursorRow(bs, m, seg->rstep, &b, src, x);
  }
  while (CursorMore(seg, &a)) CursorRow(bs, m, seg->rstep, &a, src, x);
}

/* four chunks of one chunk level, rows interleaved (column-offset patterns only) */
static inline __attribute__((always_inline)) void ChunkQuadSolve(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, const PetscInt *cs, const PetscScalar *src, PetscScalar *x)
{
  ChunkCursor a, b, c, d;

  CursorInit(bs, seg, cs[0], &a);
  CursorInit(bs, seg, cs[1], &b);
  CursorInit(bs, seg, cs[2], &c);
  CursorInit(bs, seg, cs[3], &d);
  while (CursorMore(seg, &a) && CursorMore(seg, &b) && CursorMore(seg, &c) && CursorMore(seg, &d)) {
    CursorRow(bs, m, seg->rstep, &a, src, x);
    CursorRow(bs, m, seg->rstep, &b, src, x);
    CursorRow(bs, m, seg->rstep, &c, src, x);
    CursorRow(bs, m, seg->rstep, &d, src, x);
  }
  while (CursorMore(seg, &a)) CursorRow(bs, m, seg->rstep, &a, src, x);
  while (CursorMore(seg, &b)) CursorRow(bs, m, seg->rstep, &b, src, x);
  while (CursorMore(seg, &c)) CursorRow(bs, m, seg->rstep, &c, src, x);
  while (CursorMore(seg, &d)) CursorRow(bs, m, seg->rstep, &d, src, x);
}

/* chunks c, c+1, ... (at most avail) as four (short rows), two or one of one chunk level; returns how many it ran */
static inline __attribute__((always_inline)) PetscInt ChunkGroupRun(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, PetscInt c, PetscInt avail, const PetscScalar *src, PetscScalar *x)
{
  if (avail >= 4 && seg->clev[c + 3] == seg->clev[c] && seg->quad) {
    const PetscInt cs[4] = {c, c + 1, c + 2, c + 3};

    ChunkQuadSolve(bs, m, seg, cs, src, x);
    return 4;
  }
  if (avail >= 2 && seg->clev[c + 1] == seg->clev[c]) {
    ChunkPairSolve(bs, m, seg, c, c + 1, src, x);
    return 2;
  }
  ChunkPairSolve(bs, m, seg, c, -1, src, x);
  return 1;
}

/*
  With several threads, the developers' test hook -gilu_schedule_delay US (GILUScheduleGetDelay(), read with the plan):
  the thread that takes a segment's first chunk (fixed shares, a sequential segment, a square: thread 0) sleeps US
  microseconds before running it, and the others run ahead as far as their waits let them; the permuted layout's copy
  is filled with NaN first, so that no earlier solution is there to be read. Every later level reads rows of the first
  chunk's level, so a missing wait (for a level, a chunk's flag, a row's flag) or a missing barrier between segments
  gives a wrong x in every run instead of once in a while (tests/ex7 engine_delay). Off, one test per claimed chunk.
*/
static inline __attribute__((always_inline)) void SegmentRun(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, const PetscScalar *src, PetscScalar *x, unsigned int *done, unsigned int epoch, PetscBool cstatic, PetscInt delay, int tid, int nth)
{
  switch (seg->kernel) {
  case GILU_KERNEL_PARALLEL:
  case GILU_KERNEL_LEVELSET:
    if (nth == 1) RowsSolve(bs, m, seg, 0, seg->nrows, src, x);
    else {
      GILUTriSeg *sg = (GILUTriSeg *)seg;

      for (;;) {
        PetscInt c = __atomic_fetch_add(&sg->next, 1, __ATOMIC_RELAXED), l;

        if (c >= seg->nchunks) break;
        if (PetscUnlikely(delay) && c == 0) GILUDelay(delay);
        l = seg->clev[c];
        if (l > 0) GILUWaitIntEqual(&sg->ldone[l - 1], seg->lptr[l] - seg->lptr[l - 1]);
        RowsSolve(bs, m, seg, seg->cptr[c], seg->cptr[c + 1], src, x);
        __atomic_fetch_add(&sg->ldone[l], seg->cptr[c + 1] - seg->cptr[c], __ATOMIC_ACQ_REL);
      }
    }
    break;
  case GILU_KERNEL_SEQUENTIAL:
    if (PetscUnlikely(delay) && nth > 1 && tid == 0) GILUDelay(delay); /* the others at the barrier after it */
    if (tid == 0) RowsSolve(bs, m, seg, 0, seg->nrows, src, x);
    break;
  case GILU_KERNEL_SYNCFREE:
    if (nth == 1 && seg->inplace) /* chunked with patterns: four (else two) chunks of one chunk level at a time, in claim order */
      for (PetscInt c = 0; c < seg->nchunks;) c += ChunkGroupRun(bs, m, seg, c, seg->nchunks - c, src, x);
    else if (nth == 1 && seg->chunked) /* chunked: pairs of chunks of one chunk level, in claim order */
      for (PetscInt c = 0; c < seg->nchunks; c++) {
        PetscBool pair = (PetscBool)(c + 1 < seg->nchunks && seg->clev[c + 1] == seg->clev[c]);

        ChunkPairSolve(bs, m, seg, c, pair ? c + 1 : -1, src, x);
        if (pair) c++;
      }
    else if (nth == 1) RowsSolve(bs, m, seg, 0, seg->nrows, src, x);
    else if (seg->chunked && cstatic) {
      /* chunked, fixed shares: groups of four (else two) of the thread's share of each chunk level */
      const PetscInt g = seg->inplace && seg->quad ? 4 : 2;

      if (PetscUnlikely(delay) && tid == 0) GILUDelay(delay);
      for (PetscInt l = 0; l < seg->nlevels; l++) {
        const PetscInt c0 = seg->lptr[l], len = seg->lptr[l + 1] - c0, lo = c0 + (len * tid) / nth, hi = c0 + (len * (tid + 1)) / nth;

        for (PetscInt c = lo; c < hi;) {
          PetscInt nc = PetscMin(g, hi - c);

          for (PetscInt k = seg->dptr[c]; k < seg->dptr[c + nc]; k++) GILUWaitUInt(&done[seg->dep[k]], epoch);
          for (PetscInt q = 0; q < nc;) q += ChunkGroupRun(bs, m, seg, c + q, nc - q, src, x);
          for (PetscInt q = 0; q < nc; q++) __atomic_store_n(&done[c + q], epoch, __ATOMIC_RELEASE);
          c += nc;
        }
      }
    } else if (seg->chunked) { /* chunked, claimed: a chunk waits for the chunks it reads, runs its rows in elimination order, raises its flag */
      GILUTriSeg *sg = (GILUTriSeg *)seg;

      for (;;) {
        PetscInt c = __atomic_fetch_add(&sg->next, 1, __ATOMIC_RELAXED);

        if (c >= seg->nchunks) break;
        if (PetscUnlikely(delay) && c == 0) GILUDelayWhileClaiming(&sg->next, delay);
        if (seg->inplace) { /* take up to three more chunks of the same chunk level (nobody has claimed them yet) */
          PetscInt nc = 1;

          while (nc < 4) {
            PetscInt want = c + nc;

            if (c + nc >= seg->nchunks || seg->clev[c + nc] != seg->clev[c] || !__atomic_compare_exchange_n(&sg->next, &want, c + nc + 1, PETSC_FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
            nc++;
          }
          for (PetscInt k = seg->dptr[c]; k < seg->dptr[c + nc]; k++) GILUWaitUInt(&done[seg->dep[k]], epoch); /* the chunks' dependencies are stored one after the other */
          for (PetscInt q = 0; q < nc;) q += ChunkGroupRun(bs, m, seg, c + q, nc - q, src, x);
          for (PetscInt q = 0; q < nc; q++) __atomic_store_n(&done[c + q], epoch, __ATOMIC_RELEASE);
        } else { /* take the next chunk too when it is of the same chunk level (nobody has claimed it yet) */
          PetscInt c1 = c + 1, want = c + 1;

          if (c1 >= seg->nchunks || seg->clev[c1] != seg->clev[c] || !__atomic_compare_exchange_n(&sg->next, &want, c + 2, PETSC_FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) c1 = -1;
          for (PetscInt k = seg->dptr[c]; k < seg->dptr[c + 1]; k++) GILUWaitUInt(&done[seg->dep[k]], epoch);
          if (c1 >= 0)
            for (PetscInt k = seg->dptr[c1]; k < seg->dptr[c1 + 1]; k++) GILUWaitUInt(&done[seg->dep[k]], epoch);
          ChunkPairSolve(bs, m, seg, c, c1, src, x);
          __atomic_store_n(&done[c], epoch, __ATOMIC_RELEASE);
          if (c1 >= 0) __atomic_store_n(&done[c1], epoch, __ATOMIC_RELEASE);
        }
      }
    } else {
      GILUTriSeg *sg = (GILUTriSeg *)seg;

      for (;;) {
        PetscInt c = __atomic_fetch_add(&sg->next, 1, __ATOMIC_RELAXED);

        if (c >= seg->nchunks) break;
        if (PetscUnlikely(delay) && c == 0) GILUDelay(delay);
        for (PetscInt s = seg->cptr[c]; s < seg->cptr[c + 1]; s++) {
          SegRowSolve(bs, m, seg, s, src, x, done, epoch, PETSC_TRUE);
          __atomic_store_n(&done[seg->row[s]], epoch, __ATOMIC_RELEASE);
        }
      }
    }
    break;
  case GILU_KERNEL_SPMV:
  case GILU_KERNEL_SPMV_VECTOR: { /* (vector: CUDA only) */
    PetscInt lo = (seg->nrows * tid) / nth, hi = (seg->nrows * (tid + 1)) / nth;

    if (PetscUnlikely(delay) && nth > 1 && tid == 0) GILUDelay(delay);
    RowsSolve(bs, m, seg, lo, hi, x, x); /* a square has no diagonal: x_r -= sum */
  } break;
  }
}

/* permuted layout: row s (the caller's row r) reads b_r, its dependencies from xp, and writes xp_s and x_r */
static inline __attribute__((always_inline)) void RowSolvePerm(const PetscInt bs, const PetscInt m, const GILUTriSeg *seg, PetscInt s, const PetscScalar *b, PetscScalar *x, PetscScalar *xp, const unsigned int *done, unsigned int epoch, PetscBool wait)
{
  const SegRow w = SegRowGet(bs, seg, s, PETSC_TRUE);

  RowKernel(bs, m, b + w.r * bs * m, w.idx, 0, w.v, w.nz, w.d, xp, xp + s * bs * m, x + w.r * bs * m, wait ? done : NULL, epoch);
}

/* the run of a plan (PlanRun) or of one triangle in the permuted layout (PermRun) for block size BS: NAME with M
   right-hand sides (the constant 1: the solves of one vector; m: GILUTriSolveMultiple()'s, xp then tri->xpm) */
#define GILU_PERM_RUN(NAME, BS, M, ASSUME) \
  static void NAME(GILUTri tri, PetscInt m, const PetscScalar *b, PetscScalar *x, unsigned int epoch, int tid, int nth) \
  { \
    const GILUTriSeg *seg = &tri->seg[0]; \
    GILUTriSeg       *sg  = &tri->seg[0]; \
    PetscScalar      *xp  = (M) == 1 ? tri->xp : tri->xpm; \
    ASSUME; \
    if (nth == 1) { \
      for (PetscInt s = 0; s < seg->nrows; s++) RowSolvePerm(BS, M, seg, s, b, x, xp, NULL, 0, PETSC_FALSE); \
    } else if (seg->kernel == GILU_KERNEL_SYNCFREE) { \
      for (;;) { \
        PetscInt c = __atomic_fetch_add(&sg->next, 1, __ATOMIC_RELAXED); \
        if (c >= seg->nchunks) break; \
        if (PetscUnlikely(tri->delay) && c == 0) GILUDelay(tri->delay); \
        for (PetscInt s = seg->cptr[c]; s < seg->cptr[c + 1]; s++) { \
          RowSolvePerm(BS, M, seg, s, b, x, xp, tri->done, epoch, PETSC_TRUE); \
          __atomic_store_n(&tri->done[s], epoch, __ATOMIC_RELEASE); \
        } \
      } \
    } else { \
      for (;;) { \
        PetscInt c = __atomic_fetch_add(&sg->next, 1, __ATOMIC_RELAXED), l; \
        if (c >= seg->nchunks) break; \
        if (PetscUnlikely(tri->delay) && c == 0) GILUDelay(tri->delay); \
        l = seg->clev[c]; \
        if (l > 0) GILUWaitIntEqual(&sg->ldone[l - 1], seg->lptr[l] - seg->lptr[l - 1]); \
        for (PetscInt s = seg->cptr[c]; s < seg->cptr[c + 1]; s++) RowSolvePerm(BS, M, seg, s, b, x, xp, NULL, 0, PETSC_FALSE); \
        __atomic_fetch_add(&sg->ldone[l], seg->cptr[c + 1] - seg->cptr[c], __ATOMIC_ACQ_REL); \
      } \
    } \
  }
#define GILU_PLAN_RUN(NAME, BS, M, ASSUME) \
  static void NAME(GILUTri tri, PetscInt m, const PetscScalar *b, PetscScalar *x, unsigned int epoch, int tid, int nth) \
  { \
    ASSUME; \
    for (PetscInt s = 0; s < tri->nseg; s++) { \
      if (s > 0 && nth > 1) GILU_OMP_BARRIER; \
      SegmentRun(BS, M, &tri->seg[s], tri->nseg == 1 ? b : x, x, tri->done, epoch, tri->cstatic, tri->delay, tid, nth); \
    } \
  }
/* (m > 1 said to the compiler: the one-vector path of RowKernel() is not compiled into the runs of several) */
#define GILU_ONE (void)m
#define GILU_MULTIPLE \
  do { \
    if (m < 2) PetscUnreachable(); \
  } while (0)
#define GILU_RUNS(BS) \
  GILU_PERM_RUN(PermRun_##BS, BS, 1, GILU_ONE) \
  GILU_PERM_RUN(PermRunMultiple_##BS, BS, m, GILU_MULTIPLE) \
  GILU_PLAN_RUN(PlanRun_##BS, BS, 1, GILU_ONE) \
  GILU_PLAN_RUN(PlanRunMultiple_##BS, BS, m, GILU_MULTIPLE)
GILU_RUNS(1)
GILU_RUNS(2)
GILU_RUNS(3)
GILU_RUNS(4)
GILU_RUNS(5)
GILU_RUNS(6)
GILU_RUNS(7)
GILU_RUNS(8)

typedef void (*GILURun)(GILUTri, PetscInt, const PetscScalar *, PetscScalar *, unsigned int, int, int);

/* [multiple][bs] */
static const GILURun PermRun[2][9] = {
  {NULL, PermRun_1,         PermRun_2,         PermRun_3,         PermRun_4,         PermRun_5,         PermRun_6,         PermRun_7,         PermRun_8        },
  {NULL, PermRunMultiple_1, PermRunMultiple_2, PermRunMultiple_3, PermRunMultiple_4, PermRunMultiple_5, PermRunMultiple_6, PermRunMultiple_7, PermRunMultiple_8}
};
static const GILURun PlanRun[2][9] = {
  {NULL, PlanRun_1,         PlanRun_2,         PlanRun_3,         PlanRun_4,         PlanRun_5,         PlanRun_6,         PlanRun_7,         PlanRun_8        },
  {NULL, PlanRunMultiple_1, PlanRunMultiple_2, PlanRunMultiple_3, PlanRunMultiple_4, PlanRunMultiple_5, PlanRunMultiple_6, PlanRunMultiple_7, PlanRunMultiple_8}
};

/* the chunk counters start from zero in every solve */
static void ResetCounters(GILUTri tri)
{
  for (PetscInt k = 0; k < tri->nseg; k++) {
    tri->seg[k].next = 0;
    if (tri->seg[k].ldone)
      for (PetscInt l = 0; l < tri->seg[k].nlevels; l++) tri->seg[k].ldone[l] = 0;
  }
}

/*
  The interleaved layout of GILUTriSolveMultiple() from and to m columns (leading dimension ld), block rows gathered
  (W's row i from B's perm[i]) or scattered (X's perm[i] from W's row i); perm NULL: the identity. A pass over the
  vectors each, as long as a solve's share of them: on the triangle's threads, the way its solves of several go
  (GILUGovernorFollow(): a busy core makes it one).
*/
static int ColumnsThreads(GILUTri tri)
{
  return tri->ask.nthreads > 1 && !GILUGovernorFollow(&tri->govm, tri->ask.nthreads) ? (int)tri->ask.nthreads : 1;
}

/* gather: W from the columns C; else the columns C from W */
static PetscErrorCode MultipleColumns(GILUTri tri, PetscInt m, const PetscInt perm[], PetscBool gather, PetscScalar C[], PetscInt ld, PetscScalar W[])
{
  const PetscInt nb = tri->n, bs = tri->bs;

  PetscFunctionBegin;
  PetscCheck(tri->analyzed, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call GILUTriSetMatrix() before GILUTriColumnsToMultiple() or GILUTriMultipleToColumns()");
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(ColumnsThreads(tri)) schedule(static)
#endif
  for (PetscInt i = 0; i < nb; i++) {
    const PetscInt r = perm ? perm[i] : i;

    for (PetscInt p = 0; p < bs; p++)
      for (PetscInt j = 0; j < m; j++) {
        PetscScalar *w = W + ((size_t)i * bs + p) * m + j, *c = C + (size_t)j * ld + (size_t)r * bs + p;

        if (gather) *w = *c;
        else *c = *w;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriColumnsToMultiple(GILUTri tri, PetscInt m, const PetscInt perm[], const PetscScalar B[], PetscInt ld, PetscScalar W[])
{
  PetscFunctionBegin;
  PetscCall(MultipleColumns(tri, m, perm, PETSC_TRUE, (PetscScalar *)B, ld, W)); /* (B only read) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriMultipleToColumns(GILUTri tri, PetscInt m, const PetscInt perm[], const PetscScalar W[], PetscScalar X[], PetscInt ld)
{
  PetscFunctionBegin;
  PetscCall(MultipleColumns(tri, m, perm, PETSC_FALSE, X, ld, (PetscScalar *)W)); /* (W only read) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b for m right-hand sides, interleaved (m > 1: GILUTriSolveMultiple(), with a threads' governor of its own
   that records the time per right-hand side: a group's cost is not a vector's, and groups of 8 and of fewer alternate) */
PetscErrorCode GILUTriSolve_Host(GILUTri tri, PetscInt m, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt      multiple = m > 1;
  GILURun             run      = PlanRun[multiple][tri->bs];
  GILUThreadGovernor *gov      = multiple ? &tri->govm : &tri->gov;
  PetscBool           parallel = PETSC_FALSE;
  unsigned int        epoch;

  PetscFunctionBegin;
  if (tri->nseg == 1 && tri->seg[0].colp) {
    GILURun prun = PermRun[multiple][tri->bs];

    if (multiple && !tri->xpm) PetscCall(PetscMalloc1((size_t)tri->n * tri->bs * GILU_TRI_MAX_RHS, &tri->xpm));
    if (PetscUnlikely(tri->delay)) { /* the test hook: the permuted copy holds no earlier solution that a missing wait would read right */
      PetscScalar *xp = multiple ? tri->xpm : tri->xp;

      for (size_t k = 0; k < (size_t)tri->n * tri->bs * m; k++) xp[k] = (PetscScalar)NAN;
    }
    if (++tri->epoch == 0) {
      PetscCall(PetscArrayzero(tri->done, tri->n));
      tri->epoch = 1;
    }
    epoch = tri->epoch;
    ResetCounters(tri);
#if defined(PETSCGILU_HAVE_OPENMP)
    if (tri->ask.nthreads > 1) {
      PetscBool serial = GILUGovernorSerialUnlessDelay(gov, tri->ask.nthreads, tri->delay);
      double    t0     = GILUWallTime();

      if (serial) prun(tri, m, b, x, epoch, 0, 1);
      else {
  #pragma omp parallel num_threads(tri->ask.nthreads)
        prun(tri, m, b, x, epoch, omp_get_thread_num(), omp_get_num_threads());
      }
      GILUGovernorRecord(gov, serial, (GILUWallTime() - t0) / m);
    } else prun(tri, m, b, x, epoch, 0, 1);
#else
    prun(tri, m, b, x, epoch, 0, 1);
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* one triangle reads b_r where it computes x_r (in place too); squares update x before the triangles read it */
  if (x != b && tri->nseg > 1) PetscCall(PetscArraycpy(x, b, tri->n * tri->bs * m));
  if (++tri->epoch == 0) { /* the flags wrapped around: clear them */
    PetscCall(PetscArrayzero(tri->done, tri->n));
    tri->epoch = 1;
  }
  epoch = tri->epoch;
  ResetCounters(tri);
  for (PetscInt s = 0; s < tri->nseg; s++)
    if (tri->seg[s].kernel != GILU_KERNEL_SEQUENTIAL) parallel = PETSC_TRUE;
#if defined(PETSCGILU_HAVE_OPENMP)
  if (tri->ask.nthreads > 1 && parallel) {
    PetscBool serial = GILUGovernorSerialUnlessDelay(gov, tri->ask.nthreads, tri->delay);
    double    t0     = GILUWallTime();

    if (serial) run(tri, m, b, x, epoch, 0, 1); /* every kernel has its one-thread path: the same bits */
    else {
  #pragma omp parallel num_threads(tri->ask.nthreads)
      run(tri, m, b, x, epoch, omp_get_thread_num(), omp_get_num_threads());
    }
    GILUGovernorRecord(gov, serial, (GILUWallTime() - t0) / m);
  } else run(tri, m, b, x, epoch, 0, 1);
#else
  (void)parallel;
  run(tri, m, b, x, epoch, 0, 1);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
