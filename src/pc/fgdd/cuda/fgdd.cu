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
   checks the device's levels against the host's), destroy, buffers (device arrays for vectors that are not on the
   device), apply (y = P^T (L D U)^{-1} P x on device arrays)}. The permutation is applied where a kernel loads its
   subdomain's vector into shared memory and where it stores it: the vectors stay in the local block's ordering and
   on the device (src/sys/device-vec.c decides whether they are the vectors' own device arrays or copies).
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "../fgdd.h"

#define FGDD_NT 128 /* threads per block (the emulation runs the GPU's launch configuration) */

/*
  One triangle (L or U) of every subdomain in the level-sliced layout, built on the host by Slices() and uploaded once
  per setup. The kernels give the rows of a level to consecutive threads in the order of the level list (lrows or
  urows): position r of the list is the row rows[r]. A level of n rows and at most w entries per row is a slice of w x n
  slots, slot k of the level's p-th row at base[l] + k n + p, so that the k-th entries of the rows of a warp are
  adjacent (ELL, column-major, per level); the bs x bs blocks are split by component, component c of slot e at
  base[l] bs2 + (k bs2 + c) n + p, so that a warp's request for one component reads consecutive values. Rows shorter than
  the level's widest leave their slots unused (zero). The entries of a row keep their column order: every variant sums
  in the order of the host's row pull, so the deterministic ones give the host's values bitwise.
*/
typedef struct {
  const PetscInt  *rows, *lev, *sub; /* the level lists (FGDDFactors' lrows, llev, lsub or urows, ulev, usub) */
  const PetscInt  *base;             /* per level: its first slot (nlev + 1; the end of a subdomain's levels: no slots) */
  const PetscInt  *cstart, *vstart;  /* per position r: the slot of its first entry, and of that entry's first value */
  const int       *len, *stride;     /* per position: its entries, and the rows of its level (the slots between its entries) */
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

struct _n_FGDDDevice {
  FGDDKernelData d;
  PetscInt       nb, nsub, maxsub;
  PetscInt       slots, entries; /* slots of the two triangles' slices, and the entries they hold (the rest is padding) */
  PetscScalar   *z;              /* the permuted vector between the separate kernels */
  PetscScalar   *x, *y;          /* buffers for the input and the output when they are not device vectors (device-vec.c) */
  size_t         shmem;          /* dynamic shared memory per block */
  int            limit;          /* the device's shared memory per block with opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin) */
  void          *mem[32];        /* the arrays of Upload() */
  int            nmem;
};

/* ------------------------------------------------------------------------------------------ device helpers */
/* the row at position r of T's level lists: x_i -= sum of T_ik x_k (pull, in column order); returns nothing, x in
   shared memory. Loads of the position's slice data are coalesced over consecutive positions, as are the entries */
__device__ static inline void RowPull(const FGDDKernelData &D, const FGDDSlices &T, PetscInt r, PetscInt lo, volatile PetscScalar *x)
{
  const int      bs = D.bs, bs2 = D.bs2;
  const PetscInt i = gilu_ld(&T.rows[r]) - lo, cs = gilu_ld(&T.cstart[r]), vs = gilu_ld(&T.vstart[r]);
  const int      len = gilu_ld(&T.len[r]), n = gilu_ld(&T.stride[r]);

  if (bs == 1) {
    PetscScalar s = x[i];

    for (int k = 0; k < len; k++) s -= gilu_ld(&T.val[vs + (PetscInt)k * n]) * x[gilu_ld(&T.col[cs + (PetscInt)k * n])];
    x[i] = s;
  } else {
    PetscScalar acc[FGDD_MAX_BS];

    for (int a = 0; a < bs; a++) acc[a] = x[i * bs + a];
    for (int k = 0; k < len; k++) {
      const MatScalar *v = T.val + vs + (PetscInt)k * bs2 * n;
      const int        j = gilu_ld(&T.col[cs + (PetscInt)k * n]);

      for (int a = 0; a < bs; a++) {
        PetscScalar w = 0; /* the block's product first, then subtracted: the host's order (fgdd-apply.c), bitwise */

        for (int q = 0; q < bs; q++) w += gilu_ld(&v[(PetscInt)(a * bs + q) * n]) * x[j * bs + q];
        acc[a] -= w;
      }
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
    const PetscInt cs  = gilu_ld(&T.cstart[r]);
    const int      len = gilu_ld(&T.len[r]), n = gilu_ld(&T.stride[r]);

    for (int k = 0; k < len; k++) gilu_wait_until_ge(&done[gilu_ld(&T.col[cs + (PetscInt)k * n])], lower ? 1 : 2);
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
   unknowns; the unused slots of the shorter rows idle */
__device__ static inline void SolveEdge(const FGDDSlices &T, const FGDDKernelData &D, PetscInt s, PetscInt lo, PetscScalar *x)
{
  const int      bs = D.bs, bs2 = D.bs2;
  const PetscInt l0 = gilu_ld(&T.sub[s]), l1 = gilu_ld(&T.sub[s + 1]) - 1;

  for (PetscInt l = l0; l < l1; l++) {
    const PetscInt b0 = gilu_ld(&T.base[l]), b1 = gilu_ld(&T.base[l + 1]), r0 = gilu_ld(&T.lev[l]);
    const PetscInt n = gilu_ld(&T.lev[l + 1]) - r0;

    for (PetscInt e = b0 + threadIdx.x; e < b1; e += blockDim.x) {
      const PetscInt k = (e - b0) / n, p = (e - b0) % n;

      if (k < gilu_ld(&T.len[r0 + p])) {
        const PetscInt   i = gilu_ld(&T.rows[r0 + p]) - lo;
        const int        j = gilu_ld(&T.col[e]);
        const MatScalar *v = T.val + b0 * bs2 + k * bs2 * n + p;

        for (int a = 0; a < bs; a++) {
          PetscScalar w = 0;

          for (int q = 0; q < bs; q++) w += gilu_ld(&v[(PetscInt)(a * bs + q) * n]) * x[j * bs + q];
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
/* the shared memory: the subdomain's vector, then (syncfree) a flag per row; y = P^T (L D U)^{-1} P x */
__global__ static void ApplyFused(FGDDKernelData D, int variant, PetscInt maxsub, const PetscScalar *xin, PetscScalar *y)
{
  GILU_DYNAMIC_SHARED(PetscScalar, x);
  PetscInt s = blockIdx.x, lo = D.subptr[s], hi = D.subptr[s + 1];
  int     *done = (int *)(x + maxsub * D.bs);

  if (variant == FGDD_APPLY_SYNCFREE)
    for (PetscInt t = threadIdx.x; t < hi - lo; t += blockDim.x) done[t] = 0;
  LoadVector(D, xin, 1, lo, hi, x);
  Solve(D, variant, s, lo, hi, PETSC_TRUE, x, done);
  Scale(D, lo, hi, x);
  Solve(D, variant, s, lo, hi, PETSC_FALSE, x, done);
  StoreVector(D, x, lo, hi, 1, y);
}

/* one of the three separate kernels: part 0 = L (from P x into z), 1 = D (z), 2 = U (from z into y = P^T z) */
__global__ static void ApplyPart(FGDDKernelData D, int variant, int part, PetscInt maxsub, const PetscScalar *in, PetscScalar *out)
{
  GILU_DYNAMIC_SHARED(PetscScalar, x);
  PetscInt s = blockIdx.x, lo = D.subptr[s], hi = D.subptr[s + 1];
  int     *done = (int *)(x + maxsub * D.bs);

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
/* a copy on the device of n values at h, of the counters' memory class FACTOR (factor values) or INDEX */
template <class T>
static PetscErrorCode Upload(FGDDDevice dev, const T *h, size_t n, PetscBool factor, const T **d)
{
  T *p;

  PetscFunctionBegin;
  PetscCheck(dev->nmem < (int)(sizeof(dev->mem) / sizeof(dev->mem[0])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "FGDDDevice: more device arrays than mem[] holds");
  GILU_CUDA_CHECK(cudaMalloc(&p, sizeof(T) * (n ? n : 1)));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(p, h, sizeof(T) * n)); /* logged as GILUCopyToGPU */
  if (factor) gilu_mem_class(p, sizeof(T) * n, FACTOR);
  else gilu_mem_class(p, sizeof(T) * n, INDEX);
  dev->mem[dev->nmem++] = (void *)p;
  *d                    = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lower (upper) triangle of every subdomain in the level-sliced layout of FGDDSlices, uploaded; *slots, *entries:
   its slots and the entries they hold */
static PetscErrorCode Slices(FGDDDevice dev, const FGDDFactors *f, PetscBool lower, FGDDSlices *T, PetscInt *slots, PetscInt *entries)
{
  const PetscInt *rows = lower ? f->lrows : f->urows, *lev = lower ? f->llev : f->ulev, *sub = lower ? f->lsub : f->usub;
  const PetscInt  nlev = sub[f->nsub], bs2 = f->bs2;
  PetscInt       *base, *cstart, *vstart, nnz = 0;
  int            *len, *stride, *col;
  MatScalar      *val;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(nlev + 1, &base, f->nb, &cstart, f->nb, &vstart, f->nb, &len, f->nb, &stride));
  base[0] = 0;
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt l = sub[s]; l < sub[s + 1]; l++) {
      PetscInt w = 0, n = l < sub[s + 1] - 1 ? lev[l + 1] - lev[l] : 0; /* the last is the end of s's levels: no rows */

      for (PetscInt r = lev[l]; r < lev[l] + n; r++) {
        PetscInt i = rows[r], m = lower ? f->diag[i] - f->ai[i] : f->ai[i + 1] - f->diag[i] - 1;

        w = PetscMax(w, m);
        nnz += m;
      }
      base[l + 1] = base[l] + w * n;
    }
  PetscCall(PetscCalloc2(base[nlev] + 1, &col, base[nlev] * bs2 + 1, &val)); /* unused slots: column 0, value 0 */
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++) {
      PetscInt n = lev[l + 1] - lev[l];

      for (PetscInt r = lev[l]; r < lev[l + 1]; r++) {
        PetscInt i = rows[r], p = r - lev[l], k0 = lower ? f->ai[i] : f->diag[i] + 1, k1 = lower ? f->diag[i] : f->ai[i + 1];

        cstart[r] = base[l] + p;
        vstart[r] = base[l] * bs2 + p;
        len[r]    = (int)(k1 - k0);
        stride[r] = (int)n;
        for (PetscInt k = k0; k < k1; k++) {
          col[cstart[r] + (k - k0) * n] = (int)(f->aj[k] - f->subptr[s]);
          for (PetscInt c = 0; c < bs2; c++) val[vstart[r] + ((k - k0) * bs2 + c) * n] = f->aa[k * bs2 + c];
        }
      }
    }
  PetscCall(Upload(dev, rows, f->nb, PETSC_FALSE, &T->rows));
  PetscCall(Upload(dev, lev, nlev + 1, PETSC_FALSE, &T->lev));
  PetscCall(Upload(dev, sub, f->nsub + 1, PETSC_FALSE, &T->sub));
  PetscCall(Upload(dev, base, nlev + 1, PETSC_FALSE, &T->base));
  PetscCall(Upload(dev, cstart, f->nb, PETSC_FALSE, &T->cstart));
  PetscCall(Upload(dev, vstart, f->nb, PETSC_FALSE, &T->vstart));
  PetscCall(Upload(dev, (const int *)len, f->nb, PETSC_FALSE, &T->len));
  PetscCall(Upload(dev, (const int *)stride, f->nb, PETSC_FALSE, &T->stride));
  PetscCall(Upload(dev, (const int *)col, base[nlev], PETSC_FALSE, &T->col));
  PetscCall(Upload(dev, (const MatScalar *)val, base[nlev] * bs2, PETSC_TRUE, &T->val));
  *slots   = base[nlev];
  *entries = nnz;
  PetscCall(PetscFree2(col, val));
  PetscCall(PetscFree5(base, cstart, vstart, len, stride));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D^{-1} of each subdomain by component (FGDDKernelData.dinv), uploaded */
static PetscErrorCode DiagonalByComponent(FGDDDevice dev, const FGDDFactors *f, const MatScalar **d)
{
  const PetscInt bs2 = f->bs2;
  MatScalar     *h;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(f->nb * bs2 + 1, &h));
  for (PetscInt s = 0; s < f->nsub; s++) {
    PetscInt lo = f->subptr[s], m = f->subptr[s + 1] - lo;

    for (PetscInt i = lo; i < lo + m; i++)
      for (PetscInt c = 0; c < bs2; c++) h[lo * bs2 + c * m + i - lo] = f->dinv[i * bs2 + c];
  }
  PetscCall(Upload(dev, (const MatScalar *)h, f->nb * bs2, PETSC_TRUE, d));
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

static PetscErrorCode DeviceCreate(const FGDDFactors *f, FGDDDevice *devp)
{
  FGDDDevice dev;
  PetscInt   nnz   = f->ai[f->nb], sl, su, el, eu;
  size_t     shmem = sizeof(PetscScalar) * f->maxsub * f->bs + sizeof(int) * f->maxsub;
  int        device, limit;

  PetscFunctionBegin;
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  GILU_CUDA_CHECK(cudaGetDevice(&device));
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
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
  PetscCall(Upload(dev, f->subptr, f->nsub + 1, PETSC_FALSE, &dev->d.subptr));
  PetscCall(Upload(dev, f->perm, f->nb, PETSC_FALSE, &dev->d.perm));
  PetscCall(Upload(dev, f->ai, f->nb + 1, PETSC_FALSE, &dev->d.ai));
  PetscCall(Upload(dev, f->aj, nnz, PETSC_FALSE, &dev->d.aj));
  PetscCall(Upload(dev, f->diag, f->nb, PETSC_FALSE, &dev->d.diag));
  PetscCall(DiagonalByComponent(dev, f, &dev->d.dinv));
  PetscCall(Slices(dev, f, PETSC_TRUE, &dev->d.L, &sl, &el));
  PetscCall(Slices(dev, f, PETSC_FALSE, &dev->d.U, &su, &eu));
  dev->slots   = sl + su;
  dev->entries = el + eu;
  GILU_CUDA_CHECK(cudaMalloc(&dev->z, sizeof(PetscScalar) * (f->nb * f->bs + 1)));
  GILU_CUDA_CHECK(cudaMalloc(&dev->x, sizeof(PetscScalar) * (f->nb * f->bs + 1)));
  GILU_CUDA_CHECK(cudaMalloc(&dev->y, sizeof(PetscScalar) * (f->nb * f->bs + 1)));
  gilu_mem_class(dev->z, sizeof(PetscScalar) * f->nb * f->bs, VECTOR);
  gilu_mem_class(dev->x, sizeof(PetscScalar) * f->nb * f->bs, VECTOR);
  gilu_mem_class(dev->y, sizeof(PetscScalar) * f->nb * f->bs, VECTOR);
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
  GILU_CUDA_CHECK(cudaFree(dev->z));
  GILU_CUDA_CHECK(cudaFree(dev->x));
  GILU_CUDA_CHECK(cudaFree(dev->y));
  PetscCall(PetscFree(dev));
  *devp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceBuffers(FGDDDevice dev, void **x, void **y)
{
  PetscFunctionBegin;
  *x = dev->x;
  *y = dev->y;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = P^T (L D U)^{-1} P x, x and y device arrays of the local block (nothing copied here, nothing waited for) */
static PetscErrorCode DeviceApply(FGDDDevice dev, FGDDApplyType type, PetscBool fused, const PetscScalar x[], PetscScalar y[])
{
  unsigned grid = (unsigned)dev->nsub;

  PetscFunctionBegin;
  if (fused) PetscCall(GILU_LAUNCH(ApplyFused, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, dev->maxsub, x, y));
  else {
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 0, dev->maxsub, x, dev->z));
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 1, dev->maxsub, (const PetscScalar *)dev->z, dev->z));
    PetscCall(GILU_LAUNCH(ApplyPart, grid, FGDD_NT, dev->shmem, 0, dev->d, (int)type, 2, dev->maxsub, (const PetscScalar *)dev->z, y));
  }
  /* no wait: the launches are queued on the default stream, and whatever reads y next is ordered after them (the copy
     back of host vectors, PETSc's kernels on a CUDA vector; GILUVecApplyDevice() waits where PETSc's stream is not the
     default one) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceView(FGDDDevice dev, PetscViewer viewer)
{
  const size_t row = sizeof(PetscScalar) * (size_t)dev->d.bs + sizeof(int); /* a block row's vector and flag */

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  device: a thread block of %d threads per subdomain, its vector in shared memory: %zu bytes for the largest (%" PetscInt_FMT " block rows) of the device's %d per block (with opt-in), at most %zu block rows\n", FGDD_NT,
                                   dev->shmem, dev->maxsub, dev->limit, (size_t)dev->limit / row));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  device factors: level-sliced (a level's rows on consecutive threads, their k-th entries adjacent), %" PetscInt_FMT " slots for %" PetscInt_FMT " block entries (%.1f%% padding)\n", dev->slots, dev->entries,
                                   100.0 * (double)(dev->slots - dev->entries) / (double)PetscMax(1, dev->slots)));
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

static const FGDDDeviceOps DeviceOps = {DeviceLimits, DeviceCreate, DeviceDestroy, DeviceBuffers, DeviceApply, DeviceView};

PetscErrorCode GILU_CUDA_NAME(FGDDDeviceGetOps)(const FGDDDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
