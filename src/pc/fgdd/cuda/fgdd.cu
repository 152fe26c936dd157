/*
   PCFGDD's CUDA kernels (the FGDD paper, Section 4): one thread block per subdomain, the subdomain's vector in shared
   memory, the ILDU0 factors (unit L, D^{-1}, unit D^{-1} U) in global memory. Compiled by nvcc for a GPU and by the
   host C++ compiler for the cudaemu emulation (the _cudaemu entry point); fgdd.c takes the table of the resolved
   back-end (-pc_fgdd_backend, default -gilu_backend: cuda or cudaemu).

     LevelsKernel        Algorithm 2: parallel level assignment of a subdomain's rows (L or U)
     syncfree            Algorithm 1: a thread per row, spin-waits on per-row flags in shared memory
     vertex              Algorithm 3: level by level, a thread per row, __syncthreads between levels (deterministic)
     edge                level by level, a thread per nonzero, atomicAdd into shared memory (nondeterministic order)
     fused / separate    one kernel for L, D and U, or three kernels (each loads and stores the vector)

   Entry point (fgdd.h): FGDDDeviceGetOps, the table {create (copies the factors, the level lists and the permutation,
   checks the device's levels against the host's), values (new values of the factors, same pattern), destroy, buffers (device arrays for vectors that are not on the
   device), apply (y = P^T (L D U)^{-1} P x on device arrays; a block of columns in one launch: a thread block per
   subdomain and column, the columns varying fastest in a one-dimensional grid)}. The permutation is applied where a kernel loads its
   subdomain's vector into shared memory and where it stores it: the vectors stay in the local block's ordering and
   on the device (src/sys/device-vec.c decides whether they are the vectors' own device arrays or copies).
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "../fgdd.h"

#define FGDD_NT 128 /* threads per block (the emulation runs the GPU's launch configuration) */

/*
  One triangle (L or U) of every subdomain in the level-sliced layout, built on the host by Slices() and uploaded once
  per setup. The kernels give the rows of a level to consecutive threads in the order of the level list: position r of
  the list is the row rows[r], at offset pos[r] in its level. Inside a level the rows are sorted by their number of
  entries, longest first (the rows of a level do not read each other, so their order changes no value). Column k of a
  level holds the k-th entries of its rows that have more than k, a prefix of the level's positions: slots cptr[j] ..
  cptr[j+1]-1 for the level's j-th column (counted from kptr[level]), entry k of the row at offset p in slot cptr[kp + k]
  + p (jagged diagonals per level). A warp's k-th loads are then adjacent and its active lanes a prefix, as in a
  padded slice (ELL per level), without its unused slots; a thread reads the column's start, the same for the whole
  warp, before its entry. The bs x bs blocks are split by component, component c of the column's slot cptr[j] + p at
  cptr[j] bs2 + c m + p, m = cptr[j+1] - cptr[j] the column's rows. The entries of a row keep their column order:
  every variant sums in the order of the host's row pull, so the deterministic ones give the host's values bitwise.
*/
typedef struct {
  const PetscInt  *rows, *lev, *sub; /* the level lists (lev, sub: FGDDFactors' llev, lsub or ulev, usub; rows: lrows or urows sorted as above) */
  const PetscInt  *kptr, *cptr;      /* per level its first column (nlev + 1), per column its first slot (columns + 1) */
  const PetscInt  *kp;               /* per position: its level's first column (kptr[level]) */
  const int       *len, *pos;        /* per position: its entries, and its offset in its level */
  const int       *col;              /* per slot: the column within the subdomain (column - first row) */
  const MatScalar *val;              /* per slot and component: unit L, or D^{-1} U */
} FGDDSlices;

typedef struct {
  int              bs, bs2;
  const PetscInt  *subptr, *perm, *ai, *aj, *diag; /* perm: permuted block row i is block row perm[i] of the local block;
                                                      ai, aj, diag: the CSR pattern, for LevelsKernel (setup) only */
  const MatScalar *dinv;                           /* D^{-1} of subdomain s by component: (c, i) at subptr[s] bs2 + c m + i - subptr[s], m its rows */
  FGDDSlices       L, U;
} FGDDKernelData;

/* what a numeric re-setup (same pattern, new values) needs to scatter the new values into the slices on the host */
typedef struct {
  PetscInt   columns, slots; /* the triangle's columns and slots (its block entries: no slot is unused) */
  PetscInt  *cptr;           /* per column its first slot (columns + 1), as FGDDSlices.cptr */
  PetscInt  *src;            /* per slot: the position of its block in FGDDFactors' aa */
  MatScalar *val;            /* the device's values (FGDDSlices.val) */
} FGDDSliceMap;

struct _n_FGDDDevice {
  FGDDKernelData d;
  FGDDSliceMap   map[2]; /* L, U */
  MatScalar     *dinv;   /* the device's D^{-1} (FGDDKernelData.dinv) */
  PetscInt       nb, nsub, maxsub;
  PetscScalar   *z;       /* the permuted vector between the separate kernels (cols columns, nb bs apart) */
  PetscScalar   *x, *y;   /* buffers for the input and the output when they are not device vectors (device-vec.c) */
  PetscInt       cols;    /* the columns of z, x and y (grown to the largest block, kept) */
  size_t         shmem;   /* dynamic shared memory per block */
  int            limit;   /* the device's shared memory per block with opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin) */
  int            gridx;   /* the device's largest grid (cudaDevAttrMaxGridDimX): at most that many subdomains x columns */
  void          *mem[32]; /* the arrays of Upload() */
  int            nmem;
};

/* ------------------------------------------------------------------------------------------ device helpers */
/* the row at position r of T's level lists: x_i -= sum of T_ik x_k (pull, in column order); returns nothing, x in
   shared memory. Loads of the position's slice data are coalesced over consecutive positions, as are the entries */
__device__ static inline void RowPull(const FGDDKernelData &D, const FGDDSlices &T, PetscInt r, PetscInt lo, volatile PetscScalar *x)
{
  const int      bs = D.bs, bs2 = D.bs2;
  const PetscInt i = gilu_ld(&T.rows[r]) - lo, kp = gilu_ld(&T.kp[r]);
  const int      len = gilu_ld(&T.len[r]), p = gilu_ld(&T.pos[r]);

  if (bs == 1) {
    PetscScalar s = x[i];

    for (int k = 0; k < len; k++) {
      const PetscInt e = gilu_ld(&T.cptr[kp + k]) + p;

      s -= gilu_ld(&T.val[e]) * x[gilu_ld(&T.col[e])];
    }
    x[i] = s;
  } else {
    PetscScalar acc[FGDD_MAX_BS];
    PetscInt    c0 = len ? gilu_ld(&T.cptr[kp]) : 0;

    for (int a = 0; a < bs; a++) acc[a] = x[i * bs + a];
    for (int k = 0; k < len; k++) {
      const PetscInt   c1 = gilu_ld(&T.cptr[kp + k + 1]), m = c1 - c0; /* column k: slots c0 .. c1-1 */
      const MatScalar *v = T.val + c0 * bs2 + p;
      const int        j = gilu_ld(&T.col[c0 + p]);

      for (int a = 0; a < bs; a++) {
        PetscScalar w = 0; /* the block's product first, then subtracted: the host's order (fgdd-apply.c), bitwise */

        for (int q = 0; q < bs; q++) w += gilu_ld(&v[(PetscInt)(a * bs + q) * m]) * x[j * bs + q];
        acc[a] -= w;
      }
      c0 = c1;
    }
    for (int a = 0; a < bs; a++) x[i * bs + a] = acc[a];
  }
}

/* x := the subdomain's rows lo .. hi-1 of the permuted vector: z[i] itself, or (permuted) the local block's z[perm[i]] */
__device__ static inline void LoadVector(const FGDDKernelData &D, const PetscScalar *z, int permuted, PetscInt lo, PetscInt hi, PetscScalar *x)
{
  const int bs = D.bs;

  for (PetscInt t = threadIdx.x; t < (hi - lo) * bs; t += blockDim.x) {
    PetscInt i = lo + t / bs;

    x[t] = gilu_ld(&z[(permuted ? gilu_ld(&D.perm[i]) : i) * bs + t % bs]);
  }
  gilu_syncthreads();
}

/* after a phase that ended with a barrier (Solve, Scale): every thread's part of x is in; z[i] (permuted: z[perm[i]]) := x */
__device__ static inline void StoreVector(const FGDDKernelData &D, const PetscScalar *x, PetscInt lo, PetscInt hi, int permuted, PetscScalar *z)
{
  const int bs = D.bs;

  for (PetscInt t = threadIdx.x; t < (hi - lo) * bs; t += blockDim.x) {
    PetscInt i = lo + t / bs;

    gilu_st(&z[(permuted ? gilu_ld(&D.perm[i]) : i) * bs + t % bs], x[t]);
  }
}

/* x := D^{-1} x; D^{-1} by component within the subdomain, so consecutive threads (rows) read consecutive values */
__device__ static inline void Scale(const FGDDKernelData &D, PetscInt lo, PetscInt hi, PetscScalar *x)
{
  const int bs = D.bs;

  for (PetscInt i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    if (bs == 1) x[i - lo] *= gilu_ld(&D.dinv[i]);
    else {
      const MatScalar *d = D.dinv + lo * D.bs2 + (i - lo);
      PetscScalar      t[FGDD_MAX_BS];

      for (int r = 0; r < bs; r++) {
        t[r] = 0;
        for (int q = 0; q < bs; q++) t[r] += gilu_ld(&d[(PetscInt)(r * bs + q) * (hi - lo)]) * x[(i - lo) * bs + q];
      }
      for (int r = 0; r < bs; r++) x[(i - lo) * bs + r] = t[r];
    }
  }
  gilu_syncthreads();
}

/* Algorithm 1 (spin-loops): thread t takes positions t, t+NT, ... of the subdomain's level list, the rows in an order
   where a row comes after every row it reads (levels ascending; U's levels count from its last rows). A row waits for
   the flags of the rows it reads, the flag value tells which solve finished it (1: L, 2: U). The flags and the vector
   are in shared memory: a row publishes its value by a block-scope fence (release), then its flag; the wait fences
   after it sees the flag (acquire). The thread of the first unfinished position has every row it reads finished (they
   are at earlier positions): no deadlock (the threads of a warp progress independently on sm_70 and later). The
   order of the positions is the vertex variant's, so a warp's rows read adjacent slots */
__device__ static inline void SolveSyncFree(const FGDDSlices &T, const FGDDKernelData &D, PetscInt lo, PetscInt hi, PetscBool lower, volatile PetscScalar *x, int *done)
{
  for (PetscInt r = lo + threadIdx.x; r < hi; r += blockDim.x) {
    const PetscInt kp  = gilu_ld(&T.kp[r]);
    const int      len = gilu_ld(&T.len[r]), p = gilu_ld(&T.pos[r]);

    for (int k = 0; k < len; k++) gilu_wait_until_ge(&done[gilu_ld(&T.col[gilu_ld(&T.cptr[kp + k]) + p])], lower ? 1 : 2);
    RowPull(D, T, r, lo, x);
    __threadfence_block();
    gilu_signal_set_block(&done[gilu_ld(&T.rows[r]) - lo], lower ? 1 : 2);
  }
  gilu_syncthreads();
}

/* Algorithm 3 (vertex-centric): rows of a level in parallel, a barrier between levels */
__device__ static inline void SolveVertex(const FGDDSlices &T, const FGDDKernelData &D, PetscInt s, PetscInt lo, volatile PetscScalar *x)
{
  const PetscInt l0 = gilu_ld(&T.sub[s]), l1 = gilu_ld(&T.sub[s + 1]) - 1;

  for (PetscInt l = l0; l < l1; l++) {
    const PetscInt r0 = gilu_ld(&T.lev[l]), r1 = gilu_ld(&T.lev[l + 1]);

    for (PetscInt r = r0 + threadIdx.x; r < r1; r += blockDim.x) RowPull(D, T, r, lo, x);
    gilu_syncthreads();
  }
}

/* edge-centric: the slots of a level in parallel (consecutive threads, consecutive slots), atomic updates of the rows'
   unknowns. A slot's column is found by bisection of the level's column starts (as many as its longest row's entries) */
__device__ static inline void SolveEdge(const FGDDSlices &T, const FGDDKernelData &D, PetscInt s, PetscInt lo, PetscScalar *x)
{
  const int      bs = D.bs, bs2 = D.bs2;
  const PetscInt l0 = gilu_ld(&T.sub[s]), l1 = gilu_ld(&T.sub[s + 1]) - 1;

  for (PetscInt l = l0; l < l1; l++) {
    const PetscInt k0 = gilu_ld(&T.kptr[l]), k1 = gilu_ld(&T.kptr[l + 1]), r0 = gilu_ld(&T.lev[l]);
    const PetscInt b0 = gilu_ld(&T.cptr[k0]), b1 = gilu_ld(&T.cptr[k1]);

    for (PetscInt e = b0 + threadIdx.x; e < b1; e += blockDim.x) {
      PetscInt a0 = k0, a1 = k1 - 1; /* the last column whose start is at most e */

      while (a0 < a1) {
        PetscInt mid = (a0 + a1 + 1) / 2;

        if (gilu_ld(&T.cptr[mid]) <= e) a0 = mid;
        else a1 = mid - 1;
      }
      {
        const PetscInt   c0 = gilu_ld(&T.cptr[a0]), m = gilu_ld(&T.cptr[a0 + 1]) - c0, p = e - c0;
        const PetscInt   i = gilu_ld(&T.rows[r0 + p]) - lo;
        const int        j = gilu_ld(&T.col[e]);
        const MatScalar *v = T.val + c0 * bs2 + p;

        for (int a = 0; a < bs; a++) {
          PetscScalar w = 0;

          for (int q = 0; q < bs; q++) w += gilu_ld(&v[(PetscInt)(a * bs + q) * m]) * x[j * bs + q];
          atomicAdd(&x[i * bs + a], -w);
        }
      }
    }
    gilu_syncthreads();
  }
}

__device__ static inline void Solve(const FGDDKernelData &D, int variant, PetscInt s, PetscInt lo, PetscInt hi, PetscBool lower, PetscScalar *x, int *done)
{
  const FGDDSlices &T = lower ? D.L : D.U;

  if (variant == FGDD_APPLY_SYNCFREE) SolveSyncFree(T, D, lo, hi, lower, x, done);
  else if (variant == FGDD_APPLY_VERTEX) SolveVertex(T, D, s, lo, x);
  else SolveEdge(T, D, s, lo, x);
}

/* ------------------------------------------------------------------------------------------ kernels */
/* the shared memory: the subdomain's vector, then (syncfree) a flag per row; y = P^T (L D U)^{-1} P x for subdomain
   blockIdx.x / ncols of column blockIdx.x % ncols (xin and y ldx, ldy apart: DeviceApply() says why columns vary fastest) */
__global__ static void ApplyFused(FGDDKernelData D, int variant, PetscInt maxsub, PetscInt ncols, const PetscScalar *xin, PetscInt ldx, PetscScalar *y, PetscInt ldy)
{
  GILU_DYNAMIC_SHARED(PetscScalar, x);
  const PetscInt s = (PetscInt)blockIdx.x / ncols, col = (PetscInt)blockIdx.x % ncols, lo = D.subptr[s], hi = D.subptr[s + 1];
  int           *done = (int *)(x + maxsub * D.bs);

  xin += col * ldx;
  y += col * ldy;
  if (variant == FGDD_APPLY_SYNCFREE)
    for (PetscInt t = threadIdx.x; t < hi - lo; t += blockDim.x) done[t] = 0;
  LoadVector(D, xin, 1, lo, hi, x);
  Solve(D, variant, s, lo, hi, PETSC_TRUE, x, done);
  Scale(D, lo, hi, x);
  Solve(D, variant, s, lo, hi, PETSC_FALSE, x, done);
  StoreVector(D, x, lo, hi, 1, y);
}

/* one of the three separate kernels: part 0 = L (from P x into z), 1 = D (z), 2 = U (from z into y = P^T z); subdomain
   blockIdx.x / ncols of column blockIdx.x % ncols of in and out (ldi, ldo apart) */
__global__ static void ApplyPart(FGDDKernelData D, int variant, int part, PetscInt maxsub, PetscInt ncols, const PetscScalar *in, PetscInt ldi, PetscScalar *out, PetscInt ldo)
{
  GILU_DYNAMIC_SHARED(PetscScalar, x);
  const PetscInt s = (PetscInt)blockIdx.x / ncols, col = (PetscInt)blockIdx.x % ncols, lo = D.subptr[s], hi = D.subptr[s + 1];
  int           *done = (int *)(x + maxsub * D.bs);

  in += col * ldi;
  out += col * ldo;

  if (variant == FGDD_APPLY_SYNCFREE)
    for (PetscInt t = threadIdx.x; t < hi - lo; t += blockDim.x) done[t] = part == 2 ? 1 : 0; /* U waits for 2 */
  LoadVector(D, in, part == 0, lo, hi, x);
  if (part == 1) Scale(D, lo, hi, x);
  else Solve(D, variant, s, lo, hi, (PetscBool)(part == 0), x, done);
  StoreVector(D, x, lo, hi, part == 2, out);
}

/* Algorithm 2: levels of the rows of subdomain blockIdx.x in the lower (upper) triangle; hmap[i] the level of row i */
__global__ static void LevelsKernel(FGDDKernelData D, int lower, PetscInt maxsub, int *hmap)
{
  GILU_DYNAMIC_SHARED(int, marked);
  GILU_SHARED(int, added, 1);
  PetscInt  s = blockIdx.x, lo = D.subptr[s], hi = D.subptr[s + 1];
  int       level = 0;
  const int big   = 1 << 30;

  for (PetscInt i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    PetscInt k0 = lower ? D.ai[i] : D.diag[i] + 1, k1 = lower ? D.diag[i] : D.ai[i + 1];

    marked[i - lo] = 0;
    hmap[i]        = k0 == k1 ? 0 : big;
  }
  /* a thread marks and sets only its own rows; the reads of hmap by other threads come after the barrier below
     (these writes) or after the barriers at the end of the previous level (its writes). A subdomain of m rows has at
     most m levels: the bound turns a wrong count into wrong levels (CheckLevels() says so), never a hang */
  while (level < hi - lo) {
    if (threadIdx.x == 0) added[0] = 0;
    gilu_syncthreads();
    for (PetscInt i = lo + threadIdx.x; i < hi; i += blockDim.x) {
      PetscInt k0 = lower ? D.ai[i] : D.diag[i] + 1, k1 = lower ? D.diag[i] : D.ai[i + 1];
      int      valid = 1;

      if (hmap[i] <= level) continue;
      for (PetscInt k = k0; k < k1 && valid; k++)
        if (hmap[D.aj[k]] > level) valid = 0;
      if (valid) {
        marked[i - lo] = 1;
        atomicAdd(&added[0], 1);
      }
    }
    gilu_syncthreads(); /* added counts every row of this level; the level's reads of hmap are done */
    for (PetscInt i = lo + threadIdx.x; i < hi; i += blockDim.x)
      if (marked[i - lo]) {
        hmap[i]        = level + 1;
        marked[i - lo] = 0;
      }
    if (added[0] == 0) break;
    level++;
    gilu_syncthreads(); /* everybody has read added before thread 0 clears it */
  }
}

/* ------------------------------------------------------------------------------------------ host side */
/* n values of device memory of the counters' memory class FACTOR (factor values) or INDEX, freed by DeviceDestroy() */
template <class T>
static PetscErrorCode Alloc(FGDDDevice dev, size_t n, PetscBool factor, T **d)
{
  T *p;

  PetscFunctionBegin;
  PetscCheck(dev->nmem < (int)(sizeof(dev->mem) / sizeof(dev->mem[0])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "FGDDDevice: more device arrays than mem[] holds");
  GILU_CUDA_CHECK(cudaMalloc(&p, sizeof(T) * (n ? n : 1)));
  if (factor) gilu_mem_class(p, sizeof(T) * n, FACTOR);
  else gilu_mem_class(p, sizeof(T) * n, INDEX);
  dev->mem[dev->nmem++] = (void *)p;
  *d                    = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a copy on the device of the n index values at h */
template <class T>
static PetscErrorCode Upload(FGDDDevice dev, const T *h, size_t n, const T **d)
{
  T *p;

  PetscFunctionBegin;
  PetscCall(Alloc(dev, n, PETSC_FALSE, &p));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(p, h, sizeof(T) * n)); /* logged as GILUCopyToGPU */
  *d = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the entries of row i in the lower (upper) triangle: aa[k0 .. k1-1] */
static inline void RowRange(const FGDDFactors *f, PetscBool lower, PetscInt i, PetscInt *k0, PetscInt *k1)
{
  *k0 = lower ? f->ai[i] : f->diag[i] + 1;
  *k1 = lower ? f->diag[i] : f->ai[i + 1];
}

/* the pattern of the lower (upper) triangle of every subdomain in the layout of FGDDSlices, uploaded, and its slot map
   (the values: Values()). Symbolic: done once per nonzero pattern */
static PetscErrorCode Slices(FGDDDevice dev, const FGDDFactors *f, PetscBool lower, FGDDSlices *T, FGDDSliceMap *map)
{
  const PetscInt *rows = lower ? f->lrows : f->urows, *lev = lower ? f->llev : f->ulev, *sub = lower ? f->lsub : f->usub;
  const PetscInt  nlev = sub[f->nsub];
  PetscInt       *srows, *kptr, *cptr, *kp, *cnt, nc = 0, wmax = 0, nnz = 0;
  int            *len, *pos, *col;

  PetscFunctionBegin;
  for (PetscInt i = 0, k0, k1; i < f->nb; i++) {
    RowRange(f, lower, i, &k0, &k1);
    wmax = PetscMax(wmax, k1 - k0);
    nnz += k1 - k0;
  }
  PetscCall(PetscMalloc4(f->nb, &srows, nlev + 1, &kptr, f->nb, &kp, wmax + 2, &cnt));
  PetscCall(PetscMalloc2(f->nb, &len, f->nb, &pos));
  PetscCall(PetscMalloc1(nnz + f->nb + 1, &cptr)); /* a level has as many columns as its longest row has entries */
  kptr[0] = 0;
  cptr[0] = 0;
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt l = sub[s]; l < sub[s + 1]; l++) {
      const PetscInt r0 = lev[l], n = l < sub[s + 1] - 1 ? lev[l + 1] - r0 : 0; /* the last is the end of s's levels: no rows */
      PetscInt       w = 0;

      /* the level's rows by entries, longest first, stable (counting sort on wmax - entries) */
      PetscCall(PetscArrayzero(cnt, wmax + 2));
      for (PetscInt r = r0, k0, k1; r < r0 + n; r++) {
        RowRange(f, lower, rows[r], &k0, &k1);
        cnt[wmax - (k1 - k0) + 1]++;
        w = PetscMax(w, k1 - k0);
      }
      for (PetscInt d = 0; d <= wmax; d++) cnt[d + 1] += cnt[d];
      for (PetscInt r = r0, k0, k1; r < r0 + n; r++) {
        RowRange(f, lower, rows[r], &k0, &k1);
        srows[r0 + cnt[wmax - (k1 - k0)]++] = rows[r];
      }
      for (PetscInt r = r0, k0, k1; r < r0 + n; r++) {
        RowRange(f, lower, srows[r], &k0, &k1);
        kp[r]  = nc;
        len[r] = (int)(k1 - k0);
        pos[r] = (int)(r - r0);
      }
      for (PetscInt k = 0; k < w; k++, nc++) { /* column k: the rows with more than k entries, a prefix of the sorted level */
        PetscInt m = 0;

        while (m < n && len[r0 + m] > k) m++;
        cptr[nc + 1] = cptr[nc] + m;
      }
      kptr[l + 1] = nc;
    }
  map->columns = nc;
  map->slots   = cptr[nc];
  PetscCheck(map->slots == nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "FGDDDevice: %" PetscInt_FMT " slots for %" PetscInt_FMT " entries", map->slots, nnz);
  PetscCall(PetscMalloc2(nc + 1, &map->cptr, nnz + 1, &map->src));
  PetscCall(PetscArraycpy(map->cptr, cptr, nc + 1));
  PetscCall(PetscMalloc1(nnz + 1, &col));
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt r = f->subptr[s]; r < f->subptr[s + 1]; r++) {
      PetscInt k0, k1;

      RowRange(f, lower, srows[r], &k0, &k1);
      for (PetscInt k = k0; k < k1; k++) {
        const PetscInt e = cptr[kp[r] + k - k0] + pos[r];

        col[e]      = (int)(f->aj[k] - f->subptr[s]);
        map->src[e] = k;
      }
    }
  PetscCall(Upload(dev, (const PetscInt *)srows, f->nb, &T->rows));
  PetscCall(Upload(dev, lev, nlev + 1, &T->lev));
  PetscCall(Upload(dev, sub, f->nsub + 1, &T->sub));
  PetscCall(Upload(dev, (const PetscInt *)kptr, nlev + 1, &T->kptr));
  PetscCall(Upload(dev, (const PetscInt *)cptr, nc + 1, &T->cptr));
  PetscCall(Upload(dev, (const PetscInt *)kp, f->nb, &T->kp));
  PetscCall(Upload(dev, (const int *)len, f->nb, &T->len));
  PetscCall(Upload(dev, (const int *)pos, f->nb, &T->pos));
  PetscCall(Upload(dev, (const int *)col, nnz, &T->col));
  PetscCall(Alloc(dev, nnz * f->bs2, PETSC_TRUE, &map->val));
  T->val = map->val;
  PetscCall(PetscFree(col));
  PetscCall(PetscFree(cptr));
  PetscCall(PetscFree2(len, pos));
  PetscCall(PetscFree4(srows, kptr, kp, cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values of the factors onto the device: the triangles scattered by their slot maps, D^{-1} of each subdomain by
   component (FGDDKernelData.dinv). Numeric: at every setup, the pattern's layout kept */
static PetscErrorCode Values(FGDDDevice dev, const FGDDFactors *f)
{
  const PetscInt bs2 = f->bs2;
  MatScalar     *h;

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    const FGDDSliceMap *map = &dev->map[t];

    PetscCall(PetscMalloc1(map->slots * bs2 + 1, &h));
    for (PetscInt j = 0; j < map->columns; j++) {
      const PetscInt c0 = map->cptr[j], m = map->cptr[j + 1] - c0;

      for (PetscInt e = c0; e < c0 + m; e++)
        for (PetscInt q = 0; q < bs2; q++) h[c0 * bs2 + q * m + e - c0] = f->aa[map->src[e] * bs2 + q];
    }
    PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(map->val, h, sizeof(MatScalar) * map->slots * bs2));
    PetscCall(PetscFree(h));
  }
  PetscCall(PetscMalloc1(f->nb * bs2 + 1, &h));
  for (PetscInt s = 0; s < f->nsub; s++) {
    PetscInt lo = f->subptr[s], m = f->subptr[s + 1] - lo;

    for (PetscInt i = lo; i < lo + m; i++)
      for (PetscInt c = 0; c < bs2; c++) h[lo * bs2 + c * m + i - lo] = f->dinv[i * bs2 + c];
  }
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->dinv, h, sizeof(MatScalar) * f->nb * bs2));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceDestroy(FGDDDevice *);

/* Algorithm 2 on the device for L and U, compared with the host's levels */
static PetscErrorCode CheckLevels(FGDDDevice dev, const FGDDFactors *f)
{
  int *hmap, *h;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(f->nb + 1, &h));
  GILU_CUDA_CHECK(cudaMalloc(&hmap, sizeof(int) * (f->nb + 1)));
  for (int lower = 1; lower >= 0; lower--) {
    const PetscInt *rows = lower ? f->lrows : f->urows, *lev = lower ? f->llev : f->ulev, *sub = lower ? f->lsub : f->usub;

    PetscCall(GILU_LAUNCH(LevelsKernel, (unsigned)f->nsub, FGDD_NT, sizeof(int) * f->maxsub, 0, dev->d, lower, f->maxsub, hmap));
    GILU_CUDA_CHECK(cudaMemcpy(h, hmap, sizeof(int) * f->nb, cudaMemcpyDeviceToHost));
    for (PetscInt s = 0; s < f->nsub; s++)
      for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++)
        for (PetscInt r = lev[l]; r < lev[l + 1]; r++)
          PetscCheck(h[rows[r]] == l - sub[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCFGDD: the device's level of row %" PetscInt_FMT " (%d) differs from the host's (%" PetscInt_FMT ")", rows[r], h[rows[r]], l - sub[s]);
  }
  GILU_CUDA_CHECK(cudaFree(hmap));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The dynamic shared memory of a kernel above the 48 KiB every launch may use: opted in per kernel with
  cudaFuncSetAttribute(), within the device's limit per block (cudaDevAttrMaxSharedMemoryPerBlockOptin: A100, sm_80,
  163 KiB; H100/H200, sm_90, 227 KiB), which also holds the kernel's static shared memory. A subdomain too large for
  the device is a clear error that says how to make the subdomains smaller.
*/
template <class K>
static PetscErrorCode SharedOptIn(K *kernel, const char name[], size_t dynamic, size_t stat, int limit, const FGDDFactors *f)
{
  PetscFunctionBegin;
  PetscCheck(dynamic + stat <= (size_t)limit, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCFGDD on the CUDA device: the largest subdomain has %" PetscInt_FMT " block rows (block size %" PetscInt_FMT "), whose kernel %s needs %zu bytes of shared memory per thread block, more than the %d bytes this device allows: make the subdomains smaller (-pc_fgdd_subdomain_rows, or a smaller -pc_fgdd_subdomain_box)", f->maxsub, f->bs, name, dynamic + stat, limit);
  if (dynamic > 48 * 1024) GILU_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dynamic));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z, x and y of ncols columns (nb bs apart): grown to the largest block, kept */
/* whether a block of ncols columns (ldx, ldy apart) fits the apply: columns at least the local size apart, its indices
   in 32 bits where PetscInt is, its subdomains x columns thread blocks in the device's grid. Checked when the buffers
   are asked for (before anything is copied) and by the apply */
static PetscErrorCode CheckColumns(FGDDDevice dev, PetscInt ncols, PetscInt ldx, PetscInt ldy)
{
  const PetscInt   n  = dev->nb * dev->d.bs;
  const PetscInt64 ld = PetscMax(PetscMax(ldx, ldy), n);

  PetscFunctionBegin;
  PetscCheck(ncols >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's device apply of %" PetscInt_FMT " columns: give at least 1", ncols);
  PetscCheck(ncols == 1 || (ldx >= n && ldy >= n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's device apply of %" PetscInt_FMT " columns needs columns at least %" PetscInt_FMT " values apart, not %" PetscInt_FMT " and %" PetscInt_FMT, ncols, n, ldx, ldy);
  PetscCheck(ld * ncols < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's device apply of %" PetscInt_FMT " columns %" PetscInt64_FMT " values apart is beyond 32-bit indices: apply fewer columns at a time (-ksp_matsolve_batch_size), or configure PETSc --with-64-bit-indices", ncols, ld);
  PetscCheck((PetscInt64)dev->nsub * ncols <= (PetscInt64)dev->gridx, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's device apply of %" PetscInt_FMT " columns needs %" PetscInt64_FMT " thread blocks (%" PetscInt_FMT " subdomains each), more than the device's grid takes (%d): apply fewer columns at a time (-ksp_matsolve_batch_size) or make the subdomains larger (-pc_fgdd_subdomain_rows)", ncols,
             (PetscInt64)dev->nsub * ncols, dev->nsub, dev->gridx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Columns(FGDDDevice dev, PetscInt ncols)
{
  const size_t bytes = sizeof(PetscScalar) * (size_t)(dev->nb * dev->d.bs) * (size_t)ncols;

  PetscFunctionBegin;
  PetscCall(CheckColumns(dev, ncols, dev->nb * dev->d.bs, dev->nb * dev->d.bs));
  if (ncols <= dev->cols) PetscFunctionReturn(PETSC_SUCCESS);
  GILU_CUDA_CHECK(cudaFree(dev->z));
  GILU_CUDA_CHECK(cudaFree(dev->x));
  GILU_CUDA_CHECK(cudaFree(dev->y));
  GILU_CUDA_CHECK(cudaMalloc(&dev->z, bytes + sizeof(PetscScalar)));
  GILU_CUDA_CHECK(cudaMalloc(&dev->x, bytes + sizeof(PetscScalar)));
  GILU_CUDA_CHECK(cudaMalloc(&dev->y, bytes + sizeof(PetscScalar)));
  gilu_mem_class(dev->z, bytes, VECTOR);
  gilu_mem_class(dev->x, bytes, VECTOR);
  gilu_mem_class(dev->y, bytes, VECTOR);
  dev->cols = ncols;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceCreate(const FGDDFactors *f, FGDDDevice *devp)
{
  FGDDDevice dev;
  PetscInt   nnz   = f->ai[f->nb];
  size_t     shmem = sizeof(PetscScalar) * f->maxsub * f->bs + sizeof(int) * f->maxsub;
  int        device, limit, gridx;

  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  GILU_CUDA_CHECK(cudaGetDevice(&device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&gridx, cudaDevAttrMaxGridDimX, device));
  PetscCheck(f->nsub <= (PetscInt)gridx, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's %" PetscInt_FMT " subdomains, a thread block each, are more than the device's grid takes (%d): make the subdomains larger (-pc_fgdd_subdomain_rows)", f->nsub, gridx);
  PetscCall(SharedOptIn(LevelsKernel, "LevelsKernel", sizeof(int) * f->maxsub, sizeof(int), limit, f));
  PetscCall(SharedOptIn(ApplyFused, "ApplyFused", shmem, 0, limit, f));
  PetscCall(SharedOptIn(ApplyPart, "ApplyPart", shmem, 0, limit, f));
  PetscCall(PetscNew(&dev));
  dev->nb     = f->nb;
  dev->nsub   = f->nsub;
  dev->maxsub = f->maxsub;
  dev->d.bs   = (int)f->bs;
  dev->d.bs2  = (int)f->bs2;
  dev->shmem  = shmem;
  dev->limit  = limit;
  dev->gridx  = gridx;
  PetscCall(Upload(dev, f->subptr, f->nsub + 1, &dev->d.subptr));
  PetscCall(Upload(dev, f->perm, f->nb, &dev->d.perm));
  PetscCall(Upload(dev, f->ai, f->nb + 1, &dev->d.ai));
  PetscCall(Upload(dev, f->aj, nnz, &dev->d.aj));
  PetscCall(Upload(dev, f->diag, f->nb, &dev->d.diag));
  PetscCall(Slices(dev, f, PETSC_TRUE, &dev->d.L, &dev->map[0]));
  PetscCall(Slices(dev, f, PETSC_FALSE, &dev->d.U, &dev->map[1]));
  PetscCall(Alloc(dev, f->nb * f->bs2, PETSC_TRUE, &dev->dinv));
  dev->d.dinv = dev->dinv;
  PetscCall(Values(dev, f));
  PetscCall(Columns(dev, 1));
  PetscCall(CheckLevels(dev, f));
  *devp = dev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceDestroy(FGDDDevice *devp)
{
  FGDDDevice dev = *devp;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  for (int t = 0; t < dev->nmem; t++) GILU_CUDA_CHECK(cudaFree(dev->mem[t]));
  for (int t = 0; t < 2; t++) PetscCall(PetscFree2(dev->map[t].cptr, dev->map[t].src));
  GILU_CUDA_CHECK(cudaFree(dev->z));
  GILU_CUDA_CHECK(cudaFree(dev->x));
  GILU_CUDA_CHECK(cudaFree(dev->y));
  PetscCall(PetscFree(dev));
  *devp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceBuffers(FGDDDevice dev, PetscInt ncols, void **x, void **y)
{
  PetscFunctionBegin;
  PetscCall(Columns(dev, ncols));
  *x = dev->x;
  *y = dev->y;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = P^T (L D U)^{-1} P x, x and y device arrays of the local block, ncols columns ldx, ldy apart, all in each launch:
   a thread block per subdomain and column, the columns varying fastest, so that the ncols blocks of a subdomain are
   numbered together. A GPU dispatches the blocks of a grid about in the order of their numbers (nothing here depends on
   it for the results: the blocks are independent), so the columns of a subdomain run at the same time and read its
   factors, the bulk of an apply's bytes (bs^2 values a kept block against bs a row of each vector), from memory about
   once, the others hitting the L2 cache; the subdomains varying fastest instead put a whole column's pass between two
   reads of the same factors, which at the FGDD paper's sizes (about 0.8 GB of factors at 4M rows against an L2 of
   tens of MB) come from memory again for every column. Nothing copied here, nothing waited for */
static PetscErrorCode DeviceApply(FGDDDevice dev, FGDDApplyType type, PetscBool fused, PetscInt ncols, const PetscScalar x[], PetscInt ldx, PetscScalar y[], PetscInt ldy)
{
  const PetscInt ldz = dev->nb * dev->d.bs;

  PetscFunctionBegin;
  /* the separate kernels' z, and x and y where the caller passes those buffers() handed out, have the columns
     buffers() was last asked for (not grown here: that would free the x and y the caller may be passing); PCMatApply()
     asks for its block first, the developer API's caller must (PCFGDDGetDeviceBuffers()) */
  PetscCall(CheckColumns(dev, ncols, ldx, ldy));
  PetscCheck(ncols <= dev->cols, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCFGDD's device apply of %" PetscInt_FMT " columns with device buffers for %" PetscInt_FMT ": call PCFGDDGetDeviceBuffers() for at least %" PetscInt_FMT " columns first", ncols,
             dev->cols, ncols);
  const dim3 grid((unsigned)(dev->nsub * ncols)); /* (within the checks: no overflow) */

  if (fused) PetscCall(GILU_LAUNCH(ApplyFused, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, dev->maxsub, ncols, x, ldx, y, ldy));
  else {
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 0, dev->maxsub, ncols, x, ldx, dev->z, ldz));
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 1, dev->maxsub, ncols, (const PetscScalar *)dev->z, ldz, dev->z, ldz));
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 2, dev->maxsub, ncols, (const PetscScalar *)dev->z, ldz, y, ldy));
  }
  /* no wait: the launches are queued on the default stream, and whatever reads y next is ordered after them (the copy
     back of host vectors, PETSc's kernels on a CUDA vector; GILUVecApplyDevice() waits where PETSc's stream is not the
     default one) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceView(FGDDDevice dev, PetscViewer viewer)
{
  const size_t   row   = sizeof(PetscScalar) * (size_t)dev->d.bs + sizeof(int); /* a block row's vector and flag */
  const PetscInt slots = dev->map[0].slots + dev->map[1].slots;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  device: a thread block of %d threads per subdomain, its vector in shared memory: %zu bytes for the largest (%" PetscInt_FMT " block rows) of the device's %d per block (with opt-in), at most %zu block rows\n", FGDD_NT,
                                   dev->shmem, dev->maxsub, dev->limit, (size_t)dev->limit / row));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  device factors: level-sliced (a level's rows on consecutive threads, longest first, a warp's k-th entries adjacent), %" PetscInt_FMT " slots for %" PetscInt_FMT " block entries (no padding)\n", slots, slots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceLimits(FGDDDeviceLimits *lim)
{
  int device;

  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  GILU_CUDA_CHECK(cudaGetDevice(&device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&lim->sms, cudaDevAttrMultiProcessorCount, device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&lim->persm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&lim->optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const FGDDDeviceOps DeviceOps = {DeviceLimits, DeviceCreate, Values, DeviceDestroy, DeviceBuffers, DeviceApply, DeviceView};

PetscErrorCode GILU_CUDA_NAME(FGDDDeviceGetOps)(const FGDDDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
