/*
   The plan of the triangular-solve engine (back-end neutral): what runs where, built once per pattern, algorithm,
   thread count and back-end from the analysed factor (sptrsv.c), and run by the host kernels (sptrsv-host.c) or, copied
   to the device, by the CUDA kernels (cuda/sptrsv.cu, through the ops table the plan takes for its back-end).

   A plan is a list of segments (sptrsvimpl.h): triangles (a diagonal block of the factor, rows stored level by level)
   and squares (an SpMV update from an earlier block). Level-set and sync-free are one triangle; column-block,
   row-block and recursive-block (the Block SpTRSV paper, Algorithms 4-6) alternate triangles and squares; the kernel
   of each segment is chosen by the table below (Algorithm 7, with host thresholds for the host and the paper's for
   the CUDA back-ends). Chunked (host only) is one triangle cut into chunks of consecutive rows ordered by the levels
   of the chunk DAG, optionally stored as runs of rows with the same column-offset pattern. The plan also cuts the
   level-set and sync-free triangles into the chunks the host threads claim, and builds the permuted layout.
*/
#include <petscgilu/private/citations.h>
#include <petscgilu/private/backend.h>
#include "sptrsvimpl.h"
#include "sptrsvcuda.h"

const char *const GILUKernelNames[] = {"parallel", "levelset", "syncfree", "sequential", "spmv", "spmv-vector"};

/*
   The decisions, in one table (Algorithm 7 of the Block SpTRSV paper with host thresholds: one thread runs the
   sequential kernel; a level costs a wait on a counter, a level of a few thousand short rows tens
   of microseconds; see bench/sptrsv.py for the measurements, noisy on a shared machine).
   The gpu_ entries are the CUDA back-ends' (cuda, and cudaemu, which runs the same kernels): the
   paper's thresholds as published (measured on Titan X/RTX; not re-measured here, no machine here
   has a GPU). Its cuSPARSE kernel for near-serial triangles (> 20000 levels) is not used: those
   run sync-free. Its DCSR variants need no rows of their own: squares keep only their nonempty
   rows (with the row indices), so nnz/row is over the stored rows and the empty ratio is moot.
*/
static const struct {
  PetscInt  seq_rows;        /* a triangle with fewer rows than this (per thread) is solved sequentially: forking costs more */
  PetscReal seq_parallelism; /* a triangle whose rows/levels is below this (per thread) is solved sequentially */
  PetscInt  seq_levels;      /* ... as is one with more levels than this (the paper's 20000 for cuSPARSE) */
  PetscReal ls_parallelism;  /* level-set when rows/levels is at least this (per thread), else sync-free */
  PetscInt  ls_short_levels; /* ... or when the triangle has at most this many levels and nnz/row <= ls_short_nnz */
  PetscReal ls_short_nnz;
  PetscInt  sf_chunk;     /* sync-free: rows per chunk claimed by a thread */
  PetscInt  ls_chunk_min; /* level-set: rows per chunk at least ... */
  PetscInt  ls_chunks;    /* ... and about this many chunks per thread and level */
  PetscInt  block_rows;   /* blocked algorithms: rows per thread of the smallest block */
  PetscInt  max_depth;    /* recursive block: deepest recursion (2^depth triangles); column/row block: 2^depth blocks */
  PetscInt  ck_min;       /* chunked: a chunk goes on past a row that does not read the row before it until it has this many rows ... */
  PetscInt  ck_max;       /* ... and is cut at this many rows (one flag per chunk: few, but not too coarse for the threads) */
  PetscReal ck_par;       /* auto picks chunked when chunks/chunk levels is at least this (per thread) ... */
  PetscReal ck_len;       /* ... and rows per run of rows each reading the one before is at least this (else the order has no locality) */
  PetscInt  pat_max;      /* chunked: rows solved by column-offset patterns when the triangle has at most this many distinct ones ... */
  PetscInt  pat_rows;     /* ... and at least this many rows per pattern */
  PetscInt  quad_nnz;     /* ... four chunks at a time when the rows average at most this many blocks, else two (the cursors of
                             four long rows spill out of registers: 27-point factors 5-10% slower with four) */
  PetscInt  gpu_ls_lev;   /* GPU triangle: level-set when it has at most this many levels and nnz/row <= gpu_ls_nnz ... */
  PetscReal gpu_ls_nnz;
  PetscInt  gpu_ls_lev1;  /* ... or at most this many levels and nnz/row <= 1 (off-diagonal blocks), else sync-free */
  PetscReal gpu_vec_nnz;  /* GPU square: vector-CSR when its stored rows average more than this many blocks, else scalar-CSR */
  PetscInt  gpu_blk_rows; /* GPU blocked algorithms: halve while each half keeps this many rows (the paper: 20 x the CUDA
                             cores, 92160 on its Titan RTX; at most max_depth) */
} GILUTriTable = {4096, 4.0, 20000, 256.0, 20, 15.0, 128, 64, 4, 16384, 6, 128, 256, 2.0, 8.0, 1024, 64, 8, 20, 15.0, 100, 12.0, 92160};

static inline PetscInt Elim(GILUTri tri, PetscInt r)
{
  return tri->uplo == GILU_TRI_LOWER ? r : tri->n - 1 - r;
}

/* The row at position t of the splitting order, and the position of row r: elimination order, or the recblock reordering
   (tri->rord, with pos its inverse, set while the plan is built) */
static inline PetscInt RowAt(GILUTri tri, const PetscInt *pos, PetscInt t)
{
  return pos ? tri->rord[t] : Elim(tri, t);
}

static inline PetscInt PosOf(GILUTri tri, const PetscInt *pos, PetscInt r)
{
  return pos ? pos[r] : Elim(tri, r);
}

/* Algorithm 7 for a triangle on the host */
static GILUKernel ChooseTriangleKernel(PetscInt nrows, PetscInt nnz, PetscInt nlevels, PetscInt nthreads)
{
  PetscReal par = nlevels ? (PetscReal)nrows / nlevels : 0, nnzrow = nrows ? (PetscReal)nnz / nrows : 0;

  if (nlevels <= 1) return GILU_KERNEL_PARALLEL;
  if (nthreads <= 1 || nrows < GILUTriTable.seq_rows * nthreads || nlevels > GILUTriTable.seq_levels || par < GILUTriTable.seq_parallelism * nthreads) return GILU_KERNEL_SEQUENTIAL;
  if (par >= GILUTriTable.ls_parallelism * nthreads || (nlevels <= GILUTriTable.ls_short_levels && nnzrow <= GILUTriTable.ls_short_nnz)) return GILU_KERNEL_LEVELSET;
  return GILU_KERNEL_SYNCFREE;
}

/* The triangle of the rows at positions [t0, t1) (elimination order, or the recblock reordering: order, the
   position of each row); kernel < 0: chosen by the table */
static PetscErrorCode BuildTriangle(GILUTri tri, const PetscInt *order, PetscInt t0, PetscInt t1, PetscInt kernel, PetscInt *lev, GILUTriSeg *seg)
{
  const PetscInt m   = t1 - t0;
  PetscInt       nnz = 0, nl = 0, *cnt, *pos;

  PetscFunctionBegin;
  seg->shape = GILU_SEG_TRIANGLE;
  for (PetscInt t = t0; t < t1; t++) {
    PetscInt r = RowAt(tri, order, t), l = 0;

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      PetscInt c = tri->j[k], tc = PosOf(tri, order, c);

      if (c == r || tc < t0) continue;
      l = PetscMax(l, lev[c] + 1);
      nnz++;
    }
    lev[r] = l;
    nl     = PetscMax(nl, l + 1);
  }
  seg->nrows   = m;
  seg->nblock  = m;
  seg->nnz     = nnz;
  seg->nlevels = nl;
  if (kernel >= 0) seg->kernel = (GILUKernel)kernel;
  else if (tri->ask.backend != PETSCGILU_BACKEND_HOST) {
    /* Algorithm 7 of the Block SpTRSV paper on a GPU (no vendor kernel here): level-set for few levels, else sync-free */
    PetscReal nnzrow = m ? (PetscReal)nnz / m : 0;

    seg->kernel = ((nnzrow <= 1 && nl <= GILUTriTable.gpu_ls_lev1) || (nnzrow <= GILUTriTable.gpu_ls_nnz && nl <= GILUTriTable.gpu_ls_lev)) ? GILU_KERNEL_LEVELSET : GILU_KERNEL_SYNCFREE;
  } else seg->kernel = ChooseTriangleKernel(m, nnz, nl, tri->ask.nthreads);
  if (nl <= 1 && seg->kernel != GILU_KERNEL_SEQUENTIAL) seg->kernel = GILU_KERNEL_PARALLEL;
  seg->chunk = GILUTriTable.sf_chunk;
  /* the whole factor: its rows are the caller's rows whole (the diagonal left out), read where they are (seg->direct)
     unless the host's level-set and sync-free are asked to stream a copy in execution order (GILUTriSeg) */
  seg->whole  = (PetscBool)(!order && t0 == 0 && t1 == tri->n);
  seg->direct = (PetscBool)(seg->whole && (tri->ask.backend != PETSCGILU_BACKEND_HOST || seg->kernel == GILU_KERNEL_SEQUENTIAL || !tri->ask.copy));
  if (seg->whole) {
    seg->ai  = tri->i;
    seg->aj  = tri->j;
    seg->dlo = tri->diag == GILU_TRI_DIAG_STORED && tri->uplo == GILU_TRI_UPPER ? 1 : 0;
    seg->dhi = tri->diag == GILU_TRI_DIAG_STORED && tri->uplo == GILU_TRI_LOWER ? 1 : 0;
  }
  if (seg->direct) PetscCall(PetscMalloc4(m, &seg->row, 0, &seg->ptr, 0, &seg->col, 0, &seg->src));
  else {
    PetscCall(PetscMalloc4(m, &seg->row, m + 1, &seg->ptr, nnz, &seg->col, seg->whole ? 0 : nnz, &seg->src)); /* whole: values gathered by rows */
    PetscCall(PetscMalloc1(nnz * tri->bs * tri->bs, &seg->val));
    if (tri->diag != GILU_TRI_DIAG_UNIT) PetscCall(PetscMalloc1(m * tri->bs * tri->bs, &seg->dval));
  }
  PetscCall(PetscMalloc1(nl + 1, &seg->lptr));
  /* the execution order: level by level (elimination order inside a level), or elimination order */
  PetscCall(PetscCalloc2(nl + 1, &cnt, nl + 1, &pos));
  for (PetscInt t = t0; t < t1; t++) cnt[lev[RowAt(tri, order, t)] + 1]++;
  for (PetscInt l = 0; l < nl; l++) cnt[l + 1] += cnt[l];
  for (PetscInt l = 0; l <= nl; l++) seg->lptr[l] = cnt[l];
  for (PetscInt l = 0; l < nl; l++) pos[l] = cnt[l];
  for (PetscInt t = t0; t < t1; t++) {
    PetscInt r = RowAt(tri, order, t);

    if (seg->kernel == GILU_KERNEL_SEQUENTIAL) seg->row[t - t0] = r;
    else seg->row[pos[lev[r]]++] = r;
  }
  PetscCall(PetscFree2(cnt, pos));
  if (seg->direct) PetscFunctionReturn(PETSC_SUCCESS);
  seg->ptr[0] = 0;
  for (PetscInt s = 0, e = 0; s < m; s++) {
    PetscInt r = seg->row[s];

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      PetscInt c = tri->j[k];

      if (c == r || PosOf(tri, order, c) < t0) continue;
      if (seg->src) seg->src[e] = k;
      seg->col[e++] = c;
    }
    seg->ptr[s + 1] = e;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Chunked: cut the rows, in elimination order, into chunks of consecutive rows: a new chunk where a row does not read
  the row before it (on a stencil matrix in natural order: a new grid line) once the chunk has ck_min rows, and where
  the chunk has ckmax rows (a cut inside a chain: the next chunk depends on this one). cof[r]: the chunk of row r;
  start[k]: the elimination index of the first row of chunk k (nch+1 entries); lev[k]: the chunk's level in the chunk
  DAG (the longest path of chunks before it); nlev: the chunk levels; nrun: the runs of rows each reading the one before.
*/
static PetscErrorCode ChunkPartition(GILUTri tri, PetscInt ckmin, PetscInt ckmax, PetscInt *nch, PetscInt **start, PetscInt **cof, PetscInt **clev, PetscInt *nlev, PetscInt *nrun)
{
  const PetscInt n  = tri->n;
  PetscInt       nc = 0, *st, *of, *lv, nl = 0, nr = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, &st, n, &of));
  for (PetscInt t = 0, len = 0; t < n; t++) {
    PetscInt  r    = Elim(tri, t);
    PetscBool cont = PETSC_FALSE, chain = PETSC_FALSE;

    if (t > 0) {
      PetscInt prev = Elim(tri, t - 1);

      for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++)
        if (tri->j[k] == prev) chain = PETSC_TRUE;
      cont = (PetscBool)(len < ckmax && (chain || len < ckmin));
    }
    if (!chain) nr++;
    if (!cont) {
      st[nc++] = t;
      len      = 0;
    }
    of[r] = nc - 1;
    len++;
  }
  st[nc] = n;
  PetscCall(PetscMalloc1(nc, &lv));
  for (PetscInt k = 0; k < nc; k++) { /* the chunks a chunk reads come earlier in elimination order */
    PetscInt l = 0;

    for (PetscInt t = st[k]; t < st[k + 1]; t++) {
      PetscInt r = Elim(tri, t);

      for (PetscInt e = tri->i[r]; e < tri->i[r + 1]; e++) {
        PetscInt c = of[tri->j[e]];

        if (c != k) l = PetscMax(l, lv[c] + 1);
      }
    }
    lv[k] = l;
    nl    = PetscMax(nl, l + 1);
  }
  *nch   = nc;
  *start = st;
  *cof   = of;
  *clev  = lv;
  *nlev  = nl;
  *nrun  = nr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The chunks: runs of ck_min rows or more if the chunk DAG keeps ck_par chunks per level and thread, else the runs as they
  are (grid lines), else the runs cut at ck_max/2, ck_max/4, ... 8 rows (a 2D grid's lines in pieces: line j's piece p
  waits for piece p-1 and line j-1's piece p, so the pieces of a line pipeline across the threads). pays: whether auto
  runs chunked (threads, enough rows, parallelism and runs of ck_len rows by the table).
*/
static PetscErrorCode ChunkPlan(GILUTri tri, PetscInt *nc, PetscInt **st, PetscInt **of, PetscInt **lv, PetscInt *nl, PetscInt *cmax, PetscBool *pays)
{
  PetscInt nr = 0, ckmax = GILUTriTable.ck_max;

  PetscFunctionBegin;
  for (PetscInt pass = 0;; pass++) {
    PetscBool par, last;

    if (pass > 1) ckmax /= 2;
    PetscCall(ChunkPartition(tri, pass ? 1 : GILUTriTable.ck_min, ckmax, nc, st, of, lv, nl, &nr));
    last = (PetscBool)(pass > 0 && (ckmax / 2 < 8 || tri->n <= *nc * (ckmax / 2))); /* cutting at ckmax/2 would change few chunks */
    /* one thread: worth it only with the column-offset patterns, two chunks at a time (checked by the caller) */
    par   = (PetscBool)((PetscReal)*nc >= GILUTriTable.ck_par * PetscMax(tri->ask.nthreads, 2) * *nl);
    *pays = (PetscBool)(par && tri->ask.backend == PETSCGILU_BACKEND_HOST && tri->n >= GILUTriTable.seq_rows * PetscMax(tri->ask.nthreads, 2) && (PetscReal)tri->n >= GILUTriTable.ck_len * nr);
    if (par || last) break;
    PetscCall(PetscFree2(*st, *of));
    PetscCall(PetscFree(*lv));
  }
  *cmax = ckmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The chunk plan of a triangle that auto may run chunked (NULL arrays: auto does not), to be handed to BuildChunked() */
typedef struct {
  PetscInt  nc, nl, *st, *of, *lv, cmax;
  PetscBool pays;
} GILUChunkPlan;

static PetscErrorCode ChunkedPays(GILUTri tri, GILUChunkPlan *cp)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(cp, sizeof(*cp)));
  if (tri->ask.backend != PETSCGILU_BACKEND_HOST || tri->n < GILUTriTable.seq_rows * PetscMax(tri->ask.nthreads, 2)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ChunkPlan(tri, &cp->nc, &cp->st, &cp->of, &cp->lv, &cp->nl, &cp->cmax, &cp->pays));
  if (!cp->pays) {
    PetscCall(PetscFree2(cp->st, cp->of));
    PetscCall(PetscFree(cp->lv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a segment's arrays freed, the segment zeroed (to be built again) */
static PetscErrorCode SegmentFree(GILUTriSeg *seg)
{
  PetscFunctionBegin;
  if (seg->colp == seg->col) seg->colp = NULL; /* copied, the permuted layout's positions overwrote col */
  PetscCall(PetscFree4(seg->row, seg->ptr, seg->col, seg->src));
  PetscCall(PetscFree(seg->lptr));
  PetscCall(PetscFree2(seg->crow, seg->cvoff));
  PetscCall(PetscFree(seg->val));
  PetscCall(PetscFree(seg->dval));
  PetscCall(PetscFree(seg->colp));
  PetscCall(PetscFree2(seg->cptr, seg->clev));
  PetscCall(PetscFree(seg->ldone));
  PetscCall(PetscFree2(seg->dptr, seg->dep));
  PetscCall(PetscFree3(seg->rptr, seg->rpat, seg->rlen));
  PetscCall(PetscFree2(seg->pptr, seg->poff));
  PetscCall(PetscMemzero(seg, sizeof(*seg)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The column-offset patterns of a chunked triangle (see GILUTriSeg), read from the caller's rows (the diagonal left out):
  rows with equal offset lists share a pattern, the rows of a chunk become runs of one pattern (seg->inplace: the solve
  reads the caller's values in place through them). Given up (inplace false, the rows are solved from ptr/col) when the patterns are many: more than pat_max, or more than one per pat_rows
  rows (a general sparse factor: nothing to gain). The chunk at claim position p is chunk ord[p], elimination indices
  st[ord[p]] .. st[ord[p]+1]-1.
*/
static PetscErrorCode BuildChunkPatterns(GILUTri tri, const PetscInt *st, const PetscInt *ord, GILUTriSeg *seg)
{
  const PetscInt  hsize = 4 * GILUTriTable.pat_max; /* open addressing, a power of two */
  const PetscInt *ti = tri->i, *tj = tri->j;
  const PetscBool stored = (PetscBool)(tri->diag == GILU_TRI_DIAG_STORED), upper = (PetscBool)(tri->uplo == GILU_TRI_UPPER);
  PetscInt        npat = 0, nent = 0, nruns = 0, *hash, *pptr, *poff, *rpat, maxent = 0, prev = -1;
  PetscBool       ok = PETSC_TRUE;

  PetscFunctionBegin;
  seg->inplace = PETSC_FALSE;
  if (seg->nrows < GILUTriTable.pat_rows) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt r = 0; r < tri->n; r++) maxent = PetscMax(maxent, ti[r + 1] - ti[r]);
  PetscCall(PetscMalloc4(hsize, &hash, GILUTriTable.pat_max + 1, &pptr, GILUTriTable.pat_max * maxent, &poff, seg->nrows, &rpat));
  for (PetscInt h = 0; h < hsize; h++) hash[h] = -1;
  pptr[0] = 0;
  for (PetscInt c = 0; c < seg->nchunks && ok; c++) {
    const PetscInt k = ord[c], lo = seg->cptr[c];

    for (PetscInt t = st[k]; t < st[k + 1]; t++) {
      const PetscInt  r = Elim(tri, t), s = lo + t - st[k];
      const PetscInt *col = tj + ti[r] + (stored && upper); /* a stored diagonal is first (upper) or last (lower): left out */
      PetscInt        nz  = ti[r + 1] - ti[r] - stored, p;
      uint32_t        h;

      if (prev >= 0 && pptr[prev + 1] - pptr[prev] == nz) { /* most rows have the pattern of the row before */
        PetscBool same = PETSC_TRUE;

        for (PetscInt e = 0; e < nz; e++) same = (PetscBool)(same & (poff[pptr[prev] + e] == col[e] - r));
        if (same) {
          rpat[s] = prev;
          if (s == lo) nruns++;
          continue;
        }
      }
      h = (uint32_t)nz * 2654435761u;
      for (PetscInt e = 0; e < nz; e++) h = (h ^ (uint32_t)(col[e] - r)) * 16777619u;
      for (h &= (uint32_t)(hsize - 1);; h = (h + 1) & (uint32_t)(hsize - 1)) {
        PetscBool same = PETSC_TRUE;

        p = hash[h];
        if (p < 0) break;
        if (pptr[p + 1] - pptr[p] != nz) continue;
        for (PetscInt e = 0; e < nz && same; e++) same = (PetscBool)(poff[pptr[p] + e] == col[e] - r);
        if (same) break;
      }
      if (p < 0) { /* a new pattern */
        if (npat == GILUTriTable.pat_max) {
          ok = PETSC_FALSE;
          break;
        }
        p = hash[h] = npat++;
        for (PetscInt e = 0; e < nz; e++) poff[nent++] = col[e] - r;
        pptr[npat] = nent;
      }
      rpat[s] = prev = p;
      if (s == lo || rpat[s - 1] != p) nruns++;
    }
  }
  if (ok && npat * GILUTriTable.pat_rows <= seg->nrows) {
    PetscCall(PetscMalloc3(seg->nchunks + 1, &seg->rptr, nruns, &seg->rpat, nruns, &seg->rlen));
    PetscCall(PetscMalloc2(npat + 1, &seg->pptr, nent, &seg->poff));
    PetscCall(PetscArraycpy(seg->pptr, pptr, npat + 1));
    PetscCall(PetscArraycpy(seg->poff, poff, nent));
    seg->npat = npat;
    nruns     = 0;
    for (PetscInt c = 0; c < seg->nchunks; c++) {
      seg->rptr[c] = nruns;
      for (PetscInt s = seg->cptr[c]; s < seg->cptr[c + 1]; s++) {
        if (s == seg->cptr[c] || rpat[s - 1] != rpat[s]) {
          seg->rpat[nruns] = rpat[s];
          seg->rlen[nruns] = 0;
          nruns++;
        }
        seg->rlen[nruns - 1]++;
      }
    }
    seg->rptr[seg->nchunks] = nruns;
    seg->inplace            = PETSC_TRUE;
  }
  PetscCall(PetscFree4(hash, pptr, poff, rpat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The chunked triangle of all rows: chunks stored and claimed level by level (elimination order inside a level); cp: the
  chunk plan auto made (taken over and freed), or NULL. With column-offset patterns and no stored diagonal the segment
  keeps no rows, column indices or values of its own: the solve reads the caller's values in place (seg->inplace; a
  chunk's rows are consecutive, so are their values: forwards for lower, backwards for upper triangles; a stored
  diagonal block, between two rows' off-diagonal values, is stepped over).
*/
static PetscErrorCode BuildChunked(GILUTri tri, GILUChunkPlan *cp, GILUTriSeg *seg)
{
  const PetscInt  n = tri->n, bs2 = tri->bs * tri->bs, *ti = tri->i, *tj = tri->j;
  const PetscBool stored = (PetscBool)(tri->diag == GILU_TRI_DIAG_STORED);
  PetscInt        nc, nl, *st, *of, *lv, *ord, *pos, *cnt, *mark, nnz, ndep = 0, cmax;
  PetscBool       pays;

  PetscFunctionBegin;
  if (cp) {
    nc   = cp->nc;
    nl   = cp->nl;
    st   = cp->st;
    of   = cp->of;
    lv   = cp->lv;
    cmax = cp->cmax;
  } else PetscCall(ChunkPlan(tri, &nc, &st, &of, &lv, &nl, &cmax, &pays));
  seg->shape   = GILU_SEG_TRIANGLE;
  seg->kernel  = GILU_KERNEL_SYNCFREE;
  seg->chunked = PETSC_TRUE;
  seg->nrows   = n;
  seg->nblock  = n;
  seg->nlevels = nl;
  seg->nchunks = nc;
  seg->chunk   = cmax;
  seg->rstep   = tri->uplo == GILU_TRI_LOWER ? 1 : -1;
  nnz          = stored ? tri->nz - n : tri->nz; /* a stored diagonal is in every row (checked) */
  seg->nnz     = nnz;
  /* the claim order: by chunk level, elimination order inside a level */
  PetscCall(PetscMalloc3(nc, &ord, nc, &pos, nl + 1, &cnt));
  PetscCall(PetscArrayzero(cnt, nl + 1));
  for (PetscInt k = 0; k < nc; k++) cnt[lv[k] + 1]++;
  for (PetscInt l = 0; l < nl; l++) cnt[l + 1] += cnt[l];
  for (PetscInt k = 0; k < nc; k++) {
    pos[k]      = cnt[lv[k]]++;
    ord[pos[k]] = k;
  }
  PetscCall(PetscMalloc2(nc + 1, &seg->cptr, nc, &seg->clev));
  PetscCall(PetscMalloc2(nc, &seg->crow, nc, &seg->cvoff));
  /* chunk boundaries (stored positions), first rows, chunk levels in claim order */
  PetscCall(PetscMalloc1(nl + 1, &seg->lptr));
  for (PetscInt p = 0, s = 0; p < nc; p++) {
    PetscInt k = ord[p], r0 = Elim(tri, st[k]);

    seg->cptr[p]  = s;
    seg->clev[p]  = lv[k];
    seg->crow[p]  = r0;
    seg->cvoff[p] = tri->uplo == GILU_TRI_LOWER ? ti[r0] : ti[r0 + 1];
    if (p == 0 || lv[k] != lv[ord[p - 1]]) seg->lptr[lv[k]] = p;
    s += st[k + 1] - st[k];
  }
  seg->cptr[nc] = n;
  seg->lptr[nl] = nc;
  /* the dependencies: distinct chunks (claim positions) holding the columns of the chunk's rows */
  PetscCall(PetscMalloc1(nc, &mark));
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt p = 0; p < nc; p++) mark[p] = -1;
    ndep = 0;
    for (PetscInt p = 0; p < nc; p++) {
      PetscInt k = ord[p];

      if (pass) seg->dptr[p] = ndep;
      for (PetscInt t = st[k]; t < st[k + 1]; t++) {
        PetscInt r = Elim(tri, t);

        for (PetscInt e = ti[r]; e < ti[r + 1]; e++) {
          PetscInt d = pos[of[tj[e]]];

          if (d == p || mark[d] == p) continue;
          mark[d] = p;
          if (pass) seg->dep[ndep] = d;
          ndep++;
        }
      }
    }
    if (!pass) PetscCall(PetscMalloc2(nc + 1, &seg->dptr, ndep, &seg->dep));
    else seg->dptr[nc] = ndep;
  }
  PetscCall(PetscFree(mark));
  PetscCall(BuildChunkPatterns(tri, st, ord, seg));
  seg->dskip = stored ? 1 : 0;
  if (!seg->inplace) { /* the rows, entries (the diagonal dropped) and values in claim order */
    PetscCall(PetscMalloc4(n, &seg->row, n + 1, &seg->ptr, nnz, &seg->col, nnz, &seg->src));
    seg->ptr[0] = 0;
    for (PetscInt p = 0, s = 0, e = 0; p < nc; p++) {
      PetscInt k = ord[p];

      for (PetscInt t = st[k]; t < st[k + 1]; t++, s++) {
        PetscInt r = Elim(tri, t);

        seg->row[s] = r;
        for (PetscInt q = ti[r]; q < ti[r + 1]; q++) {
          if (tj[q] == r) continue;
          seg->col[e]   = tj[q];
          seg->src[e++] = q;
        }
        seg->ptr[s + 1] = e;
      }
    }
    PetscCall(PetscMalloc1(nnz * bs2, &seg->val));
    if (tri->diag != GILU_TRI_DIAG_UNIT) PetscCall(PetscMalloc1(n * bs2, &seg->dval));
  }
  PetscCall(PetscFree3(ord, pos, cnt));
  PetscCall(PetscFree2(st, of));
  PetscCall(PetscFree(lv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetDeviceSolveCounts(GILUTri tri, PetscInt *launches, PetscInt *syncs, PetscInt *memsets, PetscInt *copies, PetscInt *nlevelset)
{
  PetscFunctionBegin;
  if (launches) *launches = tri->dev ? tri->dev->launches : 0;
  if (syncs) *syncs = tri->dev ? tri->dev->syncs : 0;
  if (memsets) *memsets = tri->dev ? tri->dev->memsets : 0;
  if (copies) *copies = tri->dev ? tri->dev->copies : 0;
  if (nlevelset) *nlevelset = tri->dev ? tri->dev->nlevelset : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The segments of a plan on a CUDA back-end, with the kernel of each (all of them with -ksp_view ::ascii_info_detail) */
PetscErrorCode GILUTriViewSegments(GILUTri tri, PetscViewer viewer)
{
  PetscInt          nsc = 0, nvec = 0, shown;
  PetscViewerFormat format;

  PetscFunctionBegin;
  if (!tri->planned || tri->plan.backend == PETSCGILU_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  for (PetscInt s = 0; s < tri->nseg; s++) {
    if (tri->seg[s].kernel == GILU_KERNEL_SPMV) nsc++;
    if (tri->seg[s].kernel == GILU_KERNEL_SPMV_VECTOR) nvec++;
  }
  if (nsc + nvec) PetscCall(PetscViewerASCIIPrintf(viewer, "squares on the device: %" PetscInt_FMT " scalar-CSR, %" PetscInt_FMT " vector-CSR (more than %d blocks per stored row)\n", nsc, nvec, (int)GILUTriTable.gpu_vec_nnz));
  shown = format == PETSC_VIEWER_ASCII_INFO_DETAIL ? tri->nseg : PetscMin(tri->nseg, 16);
  PetscCall(PetscViewerASCIIPrintf(viewer, "device segments, in execution order:\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt s = 0; s < shown; s++) {
    const GILUTriSeg *seg = &tri->seg[s];

    if (seg->shape == GILU_SEG_TRIANGLE)
      PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT ": triangle of %" PetscInt_FMT " rows, %" PetscInt_FMT " levels, %" PetscInt_FMT " off-diagonal blocks: %s\n", s, seg->nrows, seg->nlevels, seg->nnz,
                                       seg->kernel == GILU_KERNEL_SYNCFREE ? (tri->ask.csc ? "sync-free by columns (CSC)" : "sync-free") : (seg->kernel == GILU_KERNEL_PARALLEL ? "completely parallel (level-set, one level)" : "level-set")));
    else if (seg->kernel == GILU_KERNEL_SPMV_VECTOR)
      PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT ": square of %" PetscInt_FMT " rows x %" PetscInt_FMT " columns, %" PetscInt_FMT " rows nonempty, %" PetscInt_FMT " blocks: vector-CSR, %" PetscInt_FMT " lanes per row\n", s, seg->nblock,
                                       seg->ncols, seg->nrows, seg->nnz, seg->width));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT ": square of %" PetscInt_FMT " rows x %" PetscInt_FMT " columns, %" PetscInt_FMT " rows nonempty, %" PetscInt_FMT " blocks: scalar-CSR\n", s, seg->nblock, seg->ncols, seg->nrows, seg->nnz));
  }
  if (shown < tri->nseg) PetscCall(PetscViewerASCIIPrintf(viewer, "... %" PetscInt_FMT " more (-ksp_view ::ascii_info_detail lists them all)\n", tri->nseg - shown));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  if (tri->dev) { /* the instrument of the launch-bound cost: launches, synchronizations, memsets and copies per solve */
    PetscInt launches, syncs, memsets, copies, nlevelset;

    PetscCall(GILUTriGetDeviceSolveCounts(tri, &launches, &syncs, &memsets, &copies, &nlevelset));
    PetscCall(PetscViewerASCIIPrintf(viewer, "last device solve: %" PetscInt_FMT " kernel launch%s (%" PetscInt_FMT " level-set triangle%s, one launch each), %" PetscInt_FMT " device synchronization%s, %" PetscInt_FMT " memset%s, %" PetscInt_FMT " cop%s\n", launches, launches == 1 ? "" : "es", nlevelset, nlevelset == 1 ? "" : "s", syncs, syncs == 1 ? "" : "s", memsets, memsets == 1 ? "" : "s", copies, copies == 1 ? "y" : "ies"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The square of the rows at positions [r0, r1) and the columns at positions [c0, c1) (elimination order, or the recblock
   reordering: pos); empty rows dropped. On a CUDA
   back-end, long rows (on average over the stored rows) take vector-CSR with the power of two >= nnz/row lanes (<= 32) */
static PetscErrorCode BuildSquare(GILUTri tri, const PetscInt *pos, PetscInt r0, PetscInt r1, PetscInt c0, PetscInt c1, GILUTriSeg *seg)
{
  PetscInt nnz = 0, m = 0;

  PetscFunctionBegin;
  seg->shape  = GILU_SEG_SQUARE;
  seg->kernel = GILU_KERNEL_SPMV;
  for (PetscInt t = r0; t < r1; t++) {
    PetscInt r = RowAt(tri, pos, t), cnt = 0;

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      PetscInt tc = PosOf(tri, pos, tri->j[k]);

      if (tri->j[k] != r && tc >= c0 && tc < c1) cnt++;
    }
    nnz += cnt;
    if (cnt) m++;
  }
  seg->nrows  = m;
  seg->nblock = r1 - r0;
  seg->ncols  = c1 - c0;
  seg->nnz    = nnz;
  if (tri->ask.backend != PETSCGILU_BACKEND_HOST && m && (PetscReal)nnz / m > GILUTriTable.gpu_vec_nnz) {
    seg->kernel = GILU_KERNEL_SPMV_VECTOR;
    for (seg->width = 2; seg->width < 32 && seg->width * m < nnz; seg->width *= 2) { }
  }
  PetscCall(PetscMalloc4(m, &seg->row, m + 1, &seg->ptr, nnz, &seg->col, nnz, &seg->src));
  PetscCall(PetscMalloc1(1, &seg->lptr));
  PetscCall(PetscMalloc1(nnz * tri->bs * tri->bs, &seg->val));
  seg->ptr[0] = 0;
  for (PetscInt t = r0, s = 0, e = 0; t < r1; t++) {
    PetscInt r = RowAt(tri, pos, t), e0 = e;

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      PetscInt c = tri->j[k], tc = PosOf(tri, pos, c);

      if (c == r || tc < c0 || tc >= c1) continue;
      seg->col[e]   = c;
      seg->src[e++] = k;
    }
    if (e > e0) {
      seg->row[s]     = r;
      seg->ptr[s + 1] = e;
      s++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AddSegment(GILUTri tri, PetscInt *cap)
{
  PetscFunctionBegin;
  if (tri->nseg == *cap) {
    GILUTriSeg *seg;

    *cap = PetscMax(8, 2 * *cap);
    PetscCall(PetscCalloc1(*cap, &seg));
    if (tri->nseg) PetscCall(PetscArraycpy(seg, tri->seg, tri->nseg));
    PetscCall(PetscFree(tri->seg));
    tri->seg = seg;
  }
  tri->nseg++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The Block SpTRSV paper, Section 3.3 (Figure 3): the rows at positions [t0, t1) of the order tri->rord (pos its inverse), a topological
  order, reordered by the levels of their own triangle (dependencies inside [t0, t1) only; outside they are at earlier
  positions) and stably sorted by level: still topological, and the rows of low levels, which the later rows read, come
  first (the paper: more entries land in the squares; on 3D stencil factors here mainly the triangles get far fewer
  levels, see README). lev: [n] work; ord, cnt: [n] and [n+1] work.
*/
static void ReorderByLevels(GILUTri tri, PetscInt *pos, PetscInt t0, PetscInt t1, PetscInt *lev, PetscInt *ord, PetscInt *cnt)
{
  PetscInt nl = 0;

  for (PetscInt t = t0; t < t1; t++) {
    PetscInt r = tri->rord[t], l = 0;

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      PetscInt c = tri->j[k];

      if (c != r && pos[c] >= t0) l = PetscMax(l, lev[c] + 1);
    }
    lev[r] = l;
    nl     = PetscMax(nl, l + 1);
  }
  for (PetscInt l = 0; l <= nl; l++) cnt[l] = 0;
  for (PetscInt t = t0; t < t1; t++) cnt[lev[tri->rord[t]] + 1]++;
  for (PetscInt l = 0; l < nl; l++) cnt[l + 1] += cnt[l];
  for (PetscInt t = t0; t < t1; t++) ord[cnt[lev[tri->rord[t]]]++] = tri->rord[t];
  for (PetscInt t = t0; t < t1; t++) {
    tri->rord[t]      = ord[t - t0];
    pos[tri->rord[t]] = t;
  }
}

/* The triangle of positions [t0, t1) halved depth times; pos (the reordering, see ReorderByLevels()) or NULL (elimination
   order); ord, cnt: ReorderByLevels()'s work */
static PetscErrorCode BuildRecursive(GILUTri tri, PetscInt *pos, PetscInt t0, PetscInt t1, PetscInt depth, PetscInt *lev, PetscInt *ord, PetscInt *cnt, PetscInt *cap)
{
  PetscFunctionBegin;
  if (depth == 0 || t1 - t0 < 2) {
    PetscCall(AddSegment(tri, cap));
    PetscCall(BuildTriangle(tri, pos, t0, t1, -1, lev, &tri->seg[tri->nseg - 1]));
  } else {
    PetscInt mid = t0 + (t1 - t0) / 2;

    if (pos) ReorderByLevels(tri, pos, t0, t1, lev, ord, cnt);
    PetscCall(BuildRecursive(tri, pos, t0, mid, depth - 1, lev, ord, cnt, cap));
    PetscCall(AddSegment(tri, cap));
    PetscCall(BuildSquare(tri, pos, mid, t1, t0, mid, &tri->seg[tri->nseg - 1]));
    PetscCall(BuildRecursive(tri, pos, mid, t1, depth - 1, lev, ord, cnt, cap));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The leaf triangle of each elimination index in recursive block without the reordering (to count its squares' entries) */
static void PlainLeaves(PetscInt t0, PetscInt t1, PetscInt depth, PetscInt *leaf, PetscInt *id)
{
  if (depth == 0 || t1 - t0 < 2) {
    for (PetscInt t = t0; t < t1; t++) leaf[t] = *id;
    (*id)++;
  } else {
    PetscInt mid = t0 + (t1 - t0) / 2;

    PlainLeaves(t0, mid, depth - 1, leaf, id);
    PlainLeaves(mid, t1, depth - 1, leaf, id);
  }
}

/*
  The recursion depth (recursive block) and the number of blocks 2^depth (column and row block): the paper
  halves until the blocks are small for the GPU (gpu_blk_rows: the CUDA back-ends); the host halves while each half
  keeps block_rows rows per thread.
*/
static PetscInt BlockDepth(GILUTri tri)
{
  PetscInt d = 0, rows = tri->ask.backend != PETSCGILU_BACKEND_HOST ? GILUTriTable.gpu_blk_rows : GILUTriTable.block_rows * tri->ask.nthreads;

  if (tri->ask.depth > 0) return tri->ask.depth;
  while (d < GILUTriTable.max_depth && (tri->n >> (d + 1)) >= rows) d++;
  return PetscMax(d, 1);
}

/* ------------------------------------------------------------------------------------------- the device copy
   On a CUDA back-end the plan is copied to the device through the ops table of cuda/sptrsv.cu (taken once per plan,
   GILUTriPlanBuild()): at the first solve (the values are then set), refreshed with the values, destroyed with the plan */
static PetscErrorCode DeviceDestroy(GILUTri tri)
{
  PetscFunctionBegin;
  if (tri->dev) PetscCall(tri->devops->destroy(&tri->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A whole-matrix segment's rows (seg->whole) as a copy holds them, in execution order: ptr [nrows+1] and col [nnz] (NULL:
  not wanted), val [nnz*bs2] and dval [nrows*bs2] (NULL, or a unit diagonal: not written); the values must be set.
  The device copy is made from these, in buffers that live only while it is copied
*/
static PetscErrorCode SegmentGather(GILUTri tri, const GILUTriSeg *seg, PetscInt *ptr, PetscInt *col, MatScalar *val, MatScalar *dval)
{
  const PetscInt bs2 = tri->bs * tri->bs;

  PetscFunctionBegin;
  if (ptr) ptr[0] = 0;
  for (PetscInt s = 0, e = 0; s < seg->nrows; s++) {
    const PetscInt r = seg->row[s];

    for (PetscInt k = seg->ai[r] + seg->dlo; k < seg->ai[r + 1] - seg->dhi; k++, e++) {
      if (col) col[e] = seg->aj[k];
      if (val)
        for (PetscInt q = 0; q < bs2; q++) val[e * bs2 + q] = seg->av[k * bs2 + q];
    }
    if (ptr) ptr[s + 1] = e;
    if (dval && seg->ad)
      for (PetscInt q = 0; q < bs2; q++) dval[s * bs2 + q] = seg->ad[r * bs2 + q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceSetValues(GILUTri tri)
{
  const PetscInt bs2 = tri->bs * tri->bs;

  PetscFunctionBegin;
  if (!tri->dev) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt s = 0; s < tri->nseg; s++) {
    const GILUTriSeg *seg = &tri->seg[s];
    MatScalar        *val, *dval;

    if (!seg->direct) {
      PetscCall(tri->devops->setvalues(tri->dev, s, seg->val, seg->dval));
      continue;
    }
    PetscCall(PetscMalloc2(seg->nnz * bs2, &val, seg->ad ? seg->nrows * bs2 : 0, &dval));
    PetscCall(SegmentGather(tri, seg, NULL, NULL, val, dval));
    PetscCall(tri->devops->setvalues(tri->dev, s, val, dval));
    PetscCall(PetscFree2(val, dval));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy of the plan (once; nothing on the host back-end): every segment with its GPU kernel (chosen by the table) */
PetscErrorCode GILUTriPlanDeviceSetUp(GILUTri tri)
{
  GILUTriCUDASegInfo *info;
  PetscInt           *gptr = NULL, *gcol = NULL; /* a direct segment's rows gathered (at most one: the whole factor) */
  MatScalar          *gval = NULL, *gdval = NULL;

  PetscFunctionBegin;
  if (tri->dev || !tri->devops) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(tri->nseg, &info));
  for (PetscInt s = 0; s < tri->nseg; s++) {
    const GILUTriSeg *seg = &tri->seg[s];

    switch (seg->kernel) {
    case GILU_KERNEL_PARALLEL:
    case GILU_KERNEL_LEVELSET:
      info[s].kernel = GILU_CUDA_LEVELSET;
      break;
    case GILU_KERNEL_SYNCFREE:
      info[s].kernel = tri->ask.csc ? GILU_CUDA_SYNCFREE_CSC : GILU_CUDA_SYNCFREE;
      break;
    case GILU_KERNEL_SPMV:
      info[s].kernel = GILU_CUDA_SPMV_SCALAR;
      break;
    case GILU_KERNEL_SPMV_VECTOR:
      info[s].kernel = GILU_CUDA_SPMV_VECTOR;
      break;
    case GILU_KERNEL_SEQUENTIAL:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA back-ends have no sequential kernel: use -%smat_gilu_trisolve levelset, syncfree, colblock, rowblock or recblock (or auto)", tri->prefix);
    }
    PetscCheck(!seg->chunked, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA back-ends do not run chunked triangles");
    info[s].nrows   = seg->nrows;
    info[s].nlevels = seg->nlevels;
    info[s].width   = seg->width;
    info[s].lptr    = seg->lptr;
    info[s].row     = seg->row;
    info[s].ptr     = seg->ptr;
    info[s].col     = seg->col;
    info[s].val     = seg->val;
    info[s].dval    = seg->dval;
    if (seg->direct) {
      const PetscInt bs2 = tri->bs * tri->bs;

      PetscCheck(!gptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A plan has one whole-matrix triangle at most");
      PetscCall(PetscMalloc4(seg->nrows + 1, &gptr, seg->nnz, &gcol, seg->nnz * bs2, &gval, seg->ad ? seg->nrows * bs2 : 0, &gdval));
      PetscCall(SegmentGather(tri, seg, gptr, gcol, gval, gdval));
      info[s].ptr  = gptr;
      info[s].col  = gcol;
      info[s].val  = gval;
      info[s].dval = gdval;
    }
  }
  PetscCall(tri->devops->create(tri->n, tri->bs, tri->nseg, info, &tri->dev));
  PetscCall(PetscFree4(gptr, gcol, gval, gdval));
  PetscCall(PetscFree(info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriPlanBuild(GILUTri tri)
{
  const PetscInt n   = tri->n;
  PetscInt      *lev = NULL, cap = 0;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  /* the block algorithms and the adaptive choice are the Block SpTRSV paper's (level-set, sync-free, sequential and chunked are not) */
  if (tri->ask.type == GILU_TRISOLVE_AUTO || tri->ask.type == GILU_TRISOLVE_COLBLOCK || tri->ask.type == GILU_TRISOLVE_ROWBLOCK || tri->ask.type == GILU_TRISOLVE_RECBLOCK) PetscCall(PetscGILUCitationsRegister(GILU_CITE_BLOCKSPTRSV));
  PetscCall(PetscTime(&t0));
  GILUBackendGetDeviceOps(tri->ask.backend, GILUTriDeviceGetOps, &tri->devops); /* the device kernels, for this plan (NULL: the host's) */
  /* checked before anything is allocated: a caller that goes on after this error (the benchmark's tests/ex21) leaks nothing */
  PetscCheck(tri->ask.backend == PETSCGILU_BACKEND_HOST || (tri->ask.type != GILU_TRISOLVE_CHUNKED && tri->ask.type != GILU_TRISOLVE_SEQUENTIAL), PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA back-ends run the levelset, syncfree, colblock, rowblock and recblock algorithms, not %s (host only): use one of those (or auto), or -%smat_gilu_trisolve_backend host",
             GILUTriSolveTypes[tri->ask.type], tri->prefix);
  PetscCall(GILUScheduleGetDelay(&tri->delay));
  PetscCall(PetscMalloc1(n, &lev));
  tri->depth = 0;
  switch (tri->ask.type) {
  case GILU_TRISOLVE_CHUNKED:
    PetscCall(AddSegment(tri, &cap));
    PetscCall(BuildChunked(tri, NULL, &tri->seg[0]));
    tri->ran = GILU_TRISOLVE_CHUNKED;
    break;
  case GILU_TRISOLVE_AUTO:
  case GILU_TRISOLVE_LEVELSET:
  case GILU_TRISOLVE_SYNCFREE:
  case GILU_TRISOLVE_SEQUENTIAL: {
    PetscInt      kernel = tri->ask.type == GILU_TRISOLVE_LEVELSET ? GILU_KERNEL_LEVELSET : (tri->ask.type == GILU_TRISOLVE_SYNCFREE ? GILU_KERNEL_SYNCFREE : (tri->ask.type == GILU_TRISOLVE_SEQUENTIAL ? GILU_KERNEL_SEQUENTIAL : -1));
    GILUChunkPlan cp     = {0};

    if (tri->ask.type == GILU_TRISOLVE_AUTO) PetscCall(ChunkedPays(tri, &cp));
    PetscCall(AddSegment(tri, &cap));
    if (cp.pays) {
      PetscCall(BuildChunked(tri, &cp, &tri->seg[0]));
      if (tri->ask.nthreads > 1 || tri->seg[0].inplace) {
        tri->ran = GILU_TRISOLVE_CHUNKED;
        break;
      }
      PetscCall(SegmentFree(&tri->seg[0])); /* one thread without the patterns: the sequential kernel does as well */
    }
    PetscCall(BuildTriangle(tri, NULL, 0, n, kernel, lev, &tri->seg[0]));
    if (tri->ask.type == GILU_TRISOLVE_AUTO) {
      switch (tri->seg[0].kernel) {
      case GILU_KERNEL_SYNCFREE:
        tri->ran = GILU_TRISOLVE_SYNCFREE;
        break;
      case GILU_KERNEL_SEQUENTIAL:
        tri->ran = GILU_TRISOLVE_SEQUENTIAL;
        break;
      default:
        tri->ran = GILU_TRISOLVE_LEVELSET;
      }
    } else tri->ran = tri->ask.type;
  } break;
  case GILU_TRISOLVE_COLBLOCK:
  case GILU_TRISOLVE_ROWBLOCK: {
    PetscInt nb;

    tri->depth = BlockDepth(tri);
    nb         = PetscMin(n, (PetscInt)1 << tri->depth);
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt b0 = (n * b) / nb, b1 = (n * (b + 1)) / nb;

      if (tri->ask.type == GILU_TRISOLVE_ROWBLOCK && b > 0) {
        PetscCall(AddSegment(tri, &cap));
        PetscCall(BuildSquare(tri, NULL, b0, b1, 0, b0, &tri->seg[tri->nseg - 1]));
      }
      PetscCall(AddSegment(tri, &cap));
      PetscCall(BuildTriangle(tri, NULL, b0, b1, -1, lev, &tri->seg[tri->nseg - 1]));
      if (tri->ask.type == GILU_TRISOLVE_COLBLOCK && b < nb - 1) {
        PetscCall(AddSegment(tri, &cap));
        PetscCall(BuildSquare(tri, NULL, b1, n, b0, b1, &tri->seg[tri->nseg - 1]));
      }
    }
    tri->ran = tri->ask.type;
  } break;
  case GILU_TRISOLVE_RECBLOCK:
    tri->depth = BlockDepth(tri);
    if (tri->ask.reorder) { /* the Block SpTRSV paper, Figure 3: split a level order, reordered again inside each triangle */
      PetscInt *pos, *ord, *cnt, *leaf, nleaf = 0;

      PetscCall(PetscMalloc1(n, &tri->rord));
      PetscCall(PetscMalloc4(n, &pos, n, &ord, n + 1, &cnt, n, &leaf));
      for (PetscInt t = 0; t < n; t++) {
        tri->rord[t]      = Elim(tri, t);
        pos[tri->rord[t]] = t;
      }
      PetscCall(BuildRecursive(tri, pos, 0, n, tri->depth, lev, ord, cnt, &cap));
      PlainLeaves(0, n, tri->depth, leaf, &nleaf);
      tri->nnzsq0 = 0;
      for (PetscInt r = 0; r < n; r++)
        for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++)
          if (tri->j[k] != r && leaf[Elim(tri, tri->j[k])] != leaf[Elim(tri, r)]) tri->nnzsq0++;
      PetscCall(PetscFree4(pos, ord, cnt, leaf));
    } else PetscCall(BuildRecursive(tri, NULL, 0, n, tri->depth, lev, NULL, NULL, &cap));
    tri->ran = tri->ask.type;
    break;
  }
  PetscCall(PetscFree(lev));
  /* squares without entries cost a barrier and nothing else: drop them */
  {
    PetscInt k = 0;

    for (PetscInt s = 0; s < tri->nseg; s++) {
      if (tri->seg[s].shape == GILU_SEG_SQUARE && tri->seg[s].nnz == 0) {
        PetscCall(SegmentFree(&tri->seg[s]));
        continue;
      }
      tri->seg[k++] = tri->seg[s];
    }
    tri->nseg = k;
  }
  /* the chunks of the level-set and sync-free triangles */
  for (PetscInt k = 0; k < tri->nseg; k++) {
    GILUTriSeg *seg = &tri->seg[k];
    PetscInt    nc  = 0;

    if (seg->shape != GILU_SEG_TRIANGLE || seg->kernel == GILU_KERNEL_SEQUENTIAL || seg->chunked) continue; /* chunked: built with its chunks */
    if (seg->kernel == GILU_KERNEL_SYNCFREE) {
      nc = (seg->nrows + seg->chunk - 1) / seg->chunk;
      PetscCall(PetscMalloc2(nc + 1, &seg->cptr, 1, &seg->clev));
      for (PetscInt c = 0; c <= nc; c++) seg->cptr[c] = PetscMin(c * seg->chunk, seg->nrows);
    } else {
      for (PetscInt pass = 0; pass < 2; pass++) {
        nc = 0;
        for (PetscInt l = 0; l < seg->nlevels; l++) {
          PetscInt lo = seg->lptr[l], len = seg->lptr[l + 1] - lo, size = PetscMax(GILUTriTable.ls_chunk_min, (len + GILUTriTable.ls_chunks * tri->ask.nthreads - 1) / (GILUTriTable.ls_chunks * tri->ask.nthreads));

          for (PetscInt s0 = lo; s0 < lo + len; s0 += size) {
            if (pass) {
              seg->cptr[nc] = s0;
              seg->clev[nc] = l;
            }
            nc++;
          }
        }
        if (!pass) PetscCall(PetscMalloc2(nc + 1, &seg->cptr, nc, &seg->clev));
        else seg->cptr[nc] = seg->nrows;
      }
      PetscCall(PetscMalloc1(seg->nlevels, &seg->ldone));
    }
    seg->nchunks = nc;
  }
  /* the permuted layout for a whole-matrix level-set or sync-free triangle on the host */
  if (tri->ask.backend == PETSCGILU_BACKEND_HOST && tri->nseg == 1 && tri->seg[0].kernel != GILU_KERNEL_SEQUENTIAL && !tri->seg[0].chunked && tri->ask.permuted) {
    GILUTriSeg *seg = &tri->seg[0];
    PetscInt   *pos;

    PetscCall(PetscMalloc1(n, &pos));
    for (PetscInt k = 0; k < seg->nrows; k++) pos[seg->row[k]] = k;
    if (seg->direct) { /* by the caller's entries, as aj (a stored diagonal's slot is not read) */
      PetscCall(PetscMalloc1(tri->nz, &seg->colp));
      for (PetscInt e = 0; e < tri->nz; e++) seg->colp[e] = pos[tri->j[e]];
    } else {
      /* the positions replace the columns in their array: the host's permuted solve reads colp only, and the plan is
         built again (from the caller's pattern) for another back-end, type or layout, so the columns are not stored twice */
      for (PetscInt e = 0; e < seg->nnz; e++) seg->col[e] = pos[seg->col[e]];
      seg->colp = seg->col;
    }
    PetscCall(PetscFree(pos));
    PetscCall(PetscMalloc1(n * tri->bs, &tri->xp));
  }
  if (!tri->done) {
    PetscCall(PetscCalloc1(n, &tri->done));
    tri->epoch = 0;
  }
  tri->planned = PETSC_TRUE;
  tri->plan    = tri->ask;
  tri->nnzsq   = 0;
  for (PetscInt s = 0; s < tri->nseg; s++) {
    if (tri->seg[s].shape == GILU_SEG_SQUARE) tri->nnzsq += tri->seg[s].nnz;
    tri->seg[s].quad = (PetscBool)(tri->seg[s].nnz <= GILUTriTable.quad_nnz * tri->seg[s].nrows); /* chunked: groups of four chunks */
  }
  PetscCall(PetscTime(&t1));
  tri->tplan = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriPlanDestroy(GILUTri tri)
{
  PetscFunctionBegin;
  PetscCall(DeviceDestroy(tri));
  {
    PetscBool forced = tri->gov.forced;

    PetscCall(PetscMemzero(&tri->gov, sizeof(tri->gov))); /* a new plan is timed afresh */
    PetscCall(PetscMemzero(&tri->govm, sizeof(tri->govm)));
    tri->gov.forced  = forced;
    tri->govm.forced = forced;
  }
  for (PetscInt s = 0; s < tri->nseg; s++) PetscCall(SegmentFree(&tri->seg[s]));
  PetscCall(PetscFree(tri->seg));
  PetscCall(PetscFree(tri->xp));
  PetscCall(PetscFree(tri->xpm));
  PetscCall(PetscFree(tri->rord));
  PetscCall(PetscFree(tri->done));
  tri->nseg    = 0;
  tri->planned = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copy the caller's values (already in tri->a, tri->dinv) into the plan's layout */
PetscErrorCode GILUTriPlanSetValues(GILUTri tri)
{
  const PetscInt bs2 = tri->bs * tri->bs;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < tri->nseg; s++) {
    GILUTriSeg *seg = &tri->seg[s];

    if (seg->inplace || seg->whole) {
      seg->av = tri->a;
      seg->ad = tri->diag == GILU_TRI_DIAG_UNIT ? NULL : tri->dinv;
      if (seg->whole && !seg->direct) PetscCall(SegmentGather(tri, seg, NULL, NULL, seg->val, seg->dval)); /* the copy in execution order */
      continue;
    }
    for (PetscInt e = 0; e < seg->nnz; e++)
      for (PetscInt q = 0; q < bs2; q++) seg->val[e * bs2 + q] = tri->a[seg->src[e] * bs2 + q];
    if (seg->dval)
      for (PetscInt r = 0; r < seg->nrows; r++)
        for (PetscInt q = 0; q < bs2; q++) seg->dval[r * bs2 + q] = tri->dinv[seg->row[r] * bs2 + q];
  }
  PetscCall(DeviceSetValues(tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}
