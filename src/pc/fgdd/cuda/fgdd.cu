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

typedef struct {
  int              bs, bs2;
  const PetscInt  *subptr, *perm, *ai, *aj, *diag; /* perm: permuted block row i is block row perm[i] of the local block */
  const MatScalar *aa, *dinv;
  const PetscInt  *lrows, *llev, *lsub, *urows, *ulev, *usub;
  const PetscInt  *lep, *lerow, *lek, *uep, *uerow, *uek; /* per level: its nonzeros (edge variant) */
} FGDDKernelData;

struct _n_FGDDDevice {
  FGDDKernelData d;
  PetscInt       nb, nsub, maxsub;
  PetscScalar   *z;       /* the permuted vector between the separate kernels */
  PetscScalar   *x, *y;   /* buffers for the input and the output when they are not device vectors (device-vec.c) */
  size_t         shmem;   /* dynamic shared memory per block */
  void          *mem[19]; /* the arrays of Upload(): 19 */
  int            nmem;
};

/* ------------------------------------------------------------------------------------------ device helpers */
/* x_i -= sum of T_ik x_k over positions k0 .. k1-1 (pull, in column order) */
__device__ static inline void RowPull(const FGDDKernelData &D, PetscInt lo, PetscInt i, PetscInt k0, PetscInt k1, volatile PetscScalar *x)
{
  const int bs = D.bs;

  if (bs == 1) {
    PetscScalar s = x[i - lo];

    for (PetscInt k = k0; k < k1; k++) s -= gilu_ld(&D.aa[k]) * x[gilu_ld(&D.aj[k]) - lo];
    x[i - lo] = s;
  } else {
    PetscScalar acc[FGDD_MAX_BS];

    for (int r = 0; r < bs; r++) acc[r] = x[(i - lo) * bs + r];
    for (PetscInt k = k0; k < k1; k++) {
      const MatScalar *a = D.aa + (size_t)k * D.bs2;
      PetscInt         j = gilu_ld(&D.aj[k]) - lo;

      for (int r = 0; r < bs; r++)
        for (int q = 0; q < bs; q++) acc[r] -= gilu_ld(&a[r * bs + q]) * x[j * bs + q];
    }
    for (int r = 0; r < bs; r++) x[(i - lo) * bs + r] = acc[r];
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

/* x := D^{-1} x */
__device__ static inline void Scale(const FGDDKernelData &D, PetscInt lo, PetscInt hi, PetscScalar *x)
{
  const int bs = D.bs;

  for (PetscInt i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    if (bs == 1) x[i - lo] *= gilu_ld(&D.dinv[i]);
    else {
      PetscScalar t[FGDD_MAX_BS];

      for (int r = 0; r < bs; r++) {
        t[r] = 0;
        for (int q = 0; q < bs; q++) t[r] += gilu_ld(&D.dinv[(size_t)i * D.bs2 + r * bs + q]) * x[(i - lo) * bs + q];
      }
      for (int r = 0; r < bs; r++) x[(i - lo) * bs + r] = t[r];
    }
  }
  gilu_syncthreads();
}

/* Algorithm 1 (spin-loops): thread t takes rows lo+t, lo+t+NT, ... (L) or hi-1-t, ... (U); a row waits for the
   flags of the rows it reads, the flag value tells which solve finished it (1: L, 2: U). The flags and the vector
   are in shared memory: a row publishes its value by a block-scope fence, then its flag. A row of L depends only on
   lower rows and a thread takes its rows upwards (U: higher rows, downwards), so the thread of the first unfinished
   row (U: the last) is at it and its dependencies are finished: no deadlock (the threads of a warp progress
   independently on sm_70 and later) */
__device__ static inline void SolveSyncFree(const FGDDKernelData &D, PetscInt lo, PetscInt hi, PetscBool lower, volatile PetscScalar *x, int *done)
{
  const int bs = D.bs;

  for (PetscInt t = threadIdx.x; t < hi - lo; t += blockDim.x) {
    PetscInt i = lower ? lo + t : hi - 1 - t, k0 = lower ? D.ai[i] : D.diag[i] + 1, k1 = lower ? D.diag[i] : D.ai[i + 1];

    for (PetscInt k = k0; k < k1; k++) gilu_wait_until_ge(&done[D.aj[k] - lo], lower ? 1 : 2);
    RowPull(D, lo, i, k0, k1, x);
    (void)bs;
    __threadfence_block();
    gilu_signal_set_block(&done[i - lo], lower ? 1 : 2);
  }
  gilu_syncthreads();
}

/* Algorithm 3 (vertex-centric): rows of a level in parallel, a barrier between levels */
__device__ static inline void SolveVertex(const FGDDKernelData &D, PetscInt s, PetscInt lo, PetscBool lower, volatile PetscScalar *x)
{
  const PetscInt *rows = lower ? D.lrows : D.urows, *lev = lower ? D.llev : D.ulev, *sub = lower ? D.lsub : D.usub;

  for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++) {
    for (PetscInt r = lev[l] + threadIdx.x; r < lev[l + 1]; r += blockDim.x) {
      PetscInt i = gilu_ld(&rows[r]);

      RowPull(D, lo, i, lower ? gilu_ld(&D.ai[i]) : gilu_ld(&D.diag[i]) + 1, lower ? gilu_ld(&D.diag[i]) : gilu_ld(&D.ai[i + 1]), x);
    }
    gilu_syncthreads();
  }
}

/* edge-centric: the nonzeros of a level's rows in parallel, atomic updates of the rows' unknowns */
__device__ static inline void SolveEdge(const FGDDKernelData &D, PetscInt s, PetscInt lo, PetscBool lower, PetscScalar *x)
{
  const PetscInt *sub = lower ? D.lsub : D.usub, *ep = lower ? D.lep : D.uep, *er = lower ? D.lerow : D.uerow, *ek = lower ? D.lek : D.uek;
  const int       bs = D.bs;

  for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++) {
    for (PetscInt e = ep[l] + threadIdx.x; e < ep[l + 1]; e += blockDim.x) {
      PetscInt         i = gilu_ld(&er[e]) - lo, k = gilu_ld(&ek[e]), j = gilu_ld(&D.aj[k]) - lo;
      const MatScalar *a = D.aa + (size_t)k * D.bs2;

      for (int r = 0; r < bs; r++) {
        PetscScalar v = 0;

        for (int q = 0; q < bs; q++) v += gilu_ld(&a[r * bs + q]) * x[j * bs + q];
        atomicAdd(&x[i * bs + r], -v);
      }
    }
    gilu_syncthreads();
  }
}

__device__ static inline void Solve(const FGDDKernelData &D, int variant, PetscInt s, PetscInt lo, PetscInt hi, PetscBool lower, PetscScalar *x, int *done)
{
  if (variant == FGDD_APPLY_SYNCFREE) SolveSyncFree(D, lo, hi, lower, x, done);
  else if (variant == FGDD_APPLY_VERTEX) SolveVertex(D, s, lo, lower, x);
  else SolveEdge(D, s, lo, lower, x);
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

/* per level (as lev/sub), the list of nonzeros (row, position) of the level's rows in the lower (upper) part */
static PetscErrorCode EdgeLists(const FGDDFactors *f, PetscBool lower, PetscInt **ep, PetscInt **er, PetscInt **ek)
{
  const PetscInt *rows = lower ? f->lrows : f->urows, *lev = lower ? f->llev : f->ulev, *sub = lower ? f->lsub : f->usub;
  PetscInt        nlev = sub[f->nsub], n = 0, e = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < f->nb; i++) n += lower ? f->diag[i] - f->ai[i] : f->ai[i + 1] - f->diag[i] - 1;
  PetscCall(PetscMalloc3(nlev + 1, ep, n + 1, er, n + 1, ek));
  for (PetscInt s = 0; s < f->nsub; s++) {
    for (PetscInt l = sub[s]; l < sub[s + 1] - 1; l++) {
      (*ep)[l] = e;
      for (PetscInt r = lev[l]; r < lev[l + 1]; r++) {
        PetscInt i = rows[r];

        for (PetscInt k = lower ? f->ai[i] : f->diag[i] + 1; k < (lower ? f->diag[i] : f->ai[i + 1]); k++) {
          (*er)[e]   = i;
          (*ek)[e++] = k;
        }
      }
    }
    (*ep)[sub[s + 1] - 1] = e; /* the end slot of subdomain s */
  }
  (*ep)[nlev] = e;
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
  PetscInt  *ep, *er, *ek, nnz = f->ai[f->nb], nlevL = f->lsub[f->nsub], nlevU = f->usub[f->nsub];
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
  PetscCall(Upload(dev, f->subptr, f->nsub + 1, PETSC_FALSE, &dev->d.subptr));
  PetscCall(Upload(dev, f->perm, f->nb, PETSC_FALSE, &dev->d.perm));
  PetscCall(Upload(dev, f->ai, f->nb + 1, PETSC_FALSE, &dev->d.ai));
  PetscCall(Upload(dev, f->aj, nnz, PETSC_FALSE, &dev->d.aj));
  PetscCall(Upload(dev, f->diag, f->nb, PETSC_FALSE, &dev->d.diag));
  PetscCall(Upload(dev, f->aa, nnz * f->bs2, PETSC_TRUE, &dev->d.aa));
  PetscCall(Upload(dev, f->dinv, f->nb * f->bs2, PETSC_TRUE, &dev->d.dinv));
  PetscCall(Upload(dev, f->lrows, f->nb, PETSC_FALSE, &dev->d.lrows));
  PetscCall(Upload(dev, f->llev, nlevL + 1, PETSC_FALSE, &dev->d.llev));
  PetscCall(Upload(dev, f->lsub, f->nsub + 1, PETSC_FALSE, &dev->d.lsub));
  PetscCall(Upload(dev, f->urows, f->nb, PETSC_FALSE, &dev->d.urows));
  PetscCall(Upload(dev, f->ulev, nlevU + 1, PETSC_FALSE, &dev->d.ulev));
  PetscCall(Upload(dev, f->usub, f->nsub + 1, PETSC_FALSE, &dev->d.usub));
  PetscCall(EdgeLists(f, PETSC_TRUE, &ep, &er, &ek));
  PetscCall(Upload(dev, ep, nlevL + 1, PETSC_FALSE, &dev->d.lep));
  PetscCall(Upload(dev, er, ep[nlevL], PETSC_FALSE, &dev->d.lerow));
  PetscCall(Upload(dev, ek, ep[nlevL], PETSC_FALSE, &dev->d.lek));
  PetscCall(PetscFree3(ep, er, ek));
  PetscCall(EdgeLists(f, PETSC_FALSE, &ep, &er, &ek));
  PetscCall(Upload(dev, ep, nlevU + 1, PETSC_FALSE, &dev->d.uep));
  PetscCall(Upload(dev, er, ep[nlevU], PETSC_FALSE, &dev->d.uerow));
  PetscCall(Upload(dev, ek, ep[nlevU], PETSC_FALSE, &dev->d.uek));
  PetscCall(PetscFree3(ep, er, ek));
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

/* y = P^T (L D U)^{-1} P x, x and y device arrays of the local block (nothing copied here) */
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
  GILU_CUDA_CHECK(cudaDeviceSynchronize()); /* y is complete when the caller restores it (a copy back, or PETSc's own vector) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const FGDDDeviceOps DeviceOps = {DeviceCreate, DeviceDestroy, DeviceBuffers, DeviceApply};

PetscErrorCode GILU_CUDA_NAME(FGDDDeviceGetOps)(const FGDDDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
