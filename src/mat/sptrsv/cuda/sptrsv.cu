/*
   CUDA kernels of the triangular-solve engine: level-set (one launch per level, a thread per row) and
   sync-free (one launch, a thread per row in level order; a row spins on its dependencies' flags).
   Compiled by nvcc (GILUTriCUDA*) and by the host C++ compiler for the cudaemu emulation
   (GILUTriCUDA*_cudaemu); sptrsv.c calls one or the other by the triangle's back-end
   (GILUTriSetBackend(): "cuda" or "cudaemu").

   The device copy holds one triangle in execution order (the host plan's single triangle
   segment, see sptrsvimpl.h): rows level by level, their entries (columns in the caller's
   numbering), the inverted diagonal blocks. Each row is computed as by the host reference
   (entries in column order), so the result equals the host's to round-off.

   Why sync-free cannot deadlock: blocks are numbered in level order and a row waits only on rows
   of lower levels, hence of lower or equal block numbers; CUDA starts the blocks in increasing
   order (and the emulation switches threads at gilu_wait_until_ge()), so the first unfinished
   row always has its dependencies finished or running.
*/
#include <petscgilu/private/gilucuda.h>
#include "../sptrsvcuda.h"

/* x_r = D^{-1}(x_r - sum V x_c) for the stored rows [s0, s1); wait: spin on the flags of the columns first */
__device__ static void RowSolveDevice(const GILUTriCUDA_s *t, PetscInt s, PetscScalar *x, const int *flag, PetscBool wait)
{
  const PetscInt bs = t->bs, bs2 = bs * bs, r = t->row[s];
  PetscScalar    acc[8];

  for (PetscInt p = 0; p < bs; p++) acc[p] = x[r * bs + p];
  for (PetscInt k = t->ptr[s]; k < t->ptr[s + 1]; k++) {
    const PetscInt              c  = t->col[k];
    const volatile PetscScalar *xc = x + c * bs;

    if (wait) gilu_wait_until_ge((volatile int *)&flag[c], 1);
    for (PetscInt p = 0; p < bs; p++)
      for (PetscInt q = 0; q < bs; q++) acc[p] -= t->val[k * bs2 + p * bs + q] * xc[q];
  }
  if (t->dval) {
    for (PetscInt p = 0; p < bs; p++) {
      PetscScalar v = 0;

      for (PetscInt q = 0; q < bs; q++) v += t->dval[s * bs2 + p * bs + q] * acc[q];
      x[r * bs + p] = v;
    }
  } else
    for (PetscInt p = 0; p < bs; p++) x[r * bs + p] = acc[p];
}

__global__ void LevelKernel(GILUTriCUDA_s t, PetscInt s0, PetscInt s1, PetscScalar *x)
{
  PetscInt s = s0 + (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);

  if (s < s1) RowSolveDevice(&t, s, x, NULL, PETSC_FALSE);
}

__global__ void SyncFreeKernel(GILUTriCUDA_s t, PetscScalar *x, int *flag)
{
  PetscInt s = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);

  if (s < t.nrows) {
    RowSolveDevice(&t, s, x, flag, PETSC_TRUE);
    __threadfence();
    atomicExch(&flag[t.row[s]], 1);
  }
}

#define GILU_TRI_CUDA_THREADS 64

PetscErrorCode GILU_CUDA_NAME(GILUTriCUDACreate)(PetscInt n, PetscInt bs, PetscInt nrows, PetscInt nlevels, const PetscInt lptr[], const PetscInt row[], const PetscInt ptr[], const PetscInt col[], const MatScalar val[], const MatScalar dval[], GILUTriCUDA *dev)
{
  GILUTriCUDA t;
  PetscInt    nnz = ptr[nrows], bs2 = bs * bs;

  PetscFunctionBegin;
  PetscCheck(bs <= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "Block size %" PetscInt_FMT " > 8", bs);
  PetscCall(PetscNew(&t));
  t->d.n       = n;
  t->d.bs      = bs;
  t->d.nrows   = nrows;
  t->d.nnz     = nnz;
  t->d.nlevels = nlevels;
  PetscCall(PetscMalloc1(nlevels + 1, &t->lptr));
  PetscCall(PetscArraycpy(t->lptr, lptr, nlevels + 1));
  GILU_CUDA_CHECK(cudaMalloc(&t->d.row, PetscMax(1, nrows) * sizeof(PetscInt)));
  GILU_CUDA_CHECK(cudaMalloc(&t->d.ptr, (nrows + 1) * sizeof(PetscInt)));
  GILU_CUDA_CHECK(cudaMalloc(&t->d.col, PetscMax(1, nnz) * sizeof(PetscInt)));
  GILU_CUDA_CHECK(cudaMalloc(&t->d.val, PetscMax(1, nnz * bs2) * sizeof(MatScalar)));
  GILU_CUDA_CHECK(cudaMalloc(&t->x, PetscMax(1, n * bs) * sizeof(PetscScalar)));
  GILU_CUDA_CHECK(cudaMalloc(&t->flag, PetscMax(1, n) * sizeof(int)));
  GILU_CUDA_CHECK(cudaMemcpy(t->d.row, row, nrows * sizeof(PetscInt), cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(t->d.ptr, ptr, (nrows + 1) * sizeof(PetscInt), cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(t->d.col, col, nnz * sizeof(PetscInt), cudaMemcpyHostToDevice));
  t->d.dval = NULL;
  if (dval) GILU_CUDA_CHECK(cudaMalloc(&t->d.dval, PetscMax(1, nrows * bs2) * sizeof(MatScalar)));
  *dev = t;
  PetscCall(GILU_CUDA_NAME(GILUTriCUDASetValues)(t, val, dval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUTriCUDASetValues)(GILUTriCUDA t, const MatScalar val[], const MatScalar dval[])
{
  PetscInt bs2 = t->d.bs * t->d.bs;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMemcpy(t->d.val, val, t->d.nnz * bs2 * sizeof(MatScalar), cudaMemcpyHostToDevice));
  if (dval) GILU_CUDA_CHECK(cudaMemcpy(t->d.dval, dval, t->d.nrows * bs2 * sizeof(MatScalar), cudaMemcpyHostToDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b with host arrays (copied to and from the device): kernel 0 level-set, 1 sync-free */
PetscErrorCode GILU_CUDA_NAME(GILUTriCUDASolve)(GILUTriCUDA t, PetscInt kernel, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt m = t->d.n * t->d.bs;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMemcpy(t->x, b, m * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  if (kernel == 0) {
    for (PetscInt l = 0; l < t->d.nlevels; l++) {
      PetscInt s0 = t->lptr[l], s1 = t->lptr[l + 1], nb = (s1 - s0 + GILU_TRI_CUDA_THREADS - 1) / GILU_TRI_CUDA_THREADS;

      if (nb) PetscCall(GILU_LAUNCH(LevelKernel, (unsigned)nb, GILU_TRI_CUDA_THREADS, 0, 0, t->d, s0, s1, t->x));
    }
  } else if (t->d.nrows) {
    GILU_CUDA_CHECK(cudaMemset(t->flag, 0, t->d.n * sizeof(int)));
    PetscCall(GILU_LAUNCH(SyncFreeKernel, (unsigned)((t->d.nrows + GILU_TRI_CUDA_THREADS - 1) / GILU_TRI_CUDA_THREADS), GILU_TRI_CUDA_THREADS, 0, 0, t->d, t->x, t->flag));
  }
  GILU_CUDA_CHECK(cudaMemcpy(x, t->x, m * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(GILUTriCUDADestroy)(GILUTriCUDA *dev)
{
  GILUTriCUDA t = *dev;

  PetscFunctionBegin;
  if (!t) PetscFunctionReturn(PETSC_SUCCESS);
  GILU_CUDA_CHECK(cudaFree(t->d.row));
  GILU_CUDA_CHECK(cudaFree(t->d.ptr));
  GILU_CUDA_CHECK(cudaFree(t->d.col));
  GILU_CUDA_CHECK(cudaFree(t->d.val));
  if (t->d.dval) GILU_CUDA_CHECK(cudaFree(t->d.dval));
  GILU_CUDA_CHECK(cudaFree(t->x));
  GILU_CUDA_CHECK(cudaFree(t->flag));
  PetscCall(PetscFree(t->lptr));
  PetscCall(PetscFree(t));
  *dev = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
