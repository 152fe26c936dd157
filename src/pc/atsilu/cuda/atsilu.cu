/*
   The fixed-pattern sweeps of PCATSILU (ATS-ILU(k), Algorithm 6, and ParILU in Jacobi order) as CUDA kernels:
   a thread per row of L, then a thread per column of U (a row of U^T), then a thread per row for the residual
   norm of the sweep. The per-row code is that of the host (atsilu-kernels.h). Compiled by nvcc for GPUs and by
   the host C++ compiler for the cudaemu emulation, which the tests use to compare with the host factors.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "../atsilu-kernels.h"

#define ATS_BLOCK 128

/* rows of X: x_rj by ATSFactorRowSweep; zero receives max(n - j) over the rows j of the zero pivots met */
__global__ static void ATSSolveRowsKernel(ATSCSR X, const PetscScalar *xold, PetscScalar *xnew, ATSCSR Y, ATSCSR B, int skipdiag, int *zero)
{
  PetscInt r = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x), z;

  if (r >= X.n) return;
  z = ATSFactorRowSweep(r, X.i, X.j, xold ? xold : xnew, xnew, &Y, &B, NULL, NULL, skipdiag ? PETSC_TRUE : PETSC_FALSE);
  if (z) atomicMax(zero, (int)(X.n - (z - 1)));
}

__global__ static void ATSResidualKernel(ATSCSR A, ATSCSR At, ATSCSR L, ATSCSR Ut, PetscReal *rw)
{
  PetscInt r = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);

  if (r < A.n) rw[r] = ResidualRow(r, &A, &At, &L, &Ut);
}

/* a device copy of a host CSR (values and scaling too) */
static PetscErrorCode ATSCSRToDevice(const ATSCSR *h, ATSCSR *d)
{
  PetscInt n = h->n, nz = h->i[n];

  PetscFunctionBegin;
  *d = *h;
  if (h->scale) {
    PetscReal *scale;

    GILU_CUDA_CHECK(cudaMalloc(&scale, sizeof(PetscReal) * PetscMax(n, 1)));
    GILU_CUDA_CHECK(cudaMemcpy(scale, h->scale, sizeof(PetscReal) * n, cudaMemcpyHostToDevice));
    d->scale = scale;
  }
  GILU_CUDA_CHECK(cudaMalloc(&d->i, sizeof(PetscInt) * (n + 1)));
  GILU_CUDA_CHECK(cudaMalloc(&d->j, sizeof(PetscInt) * PetscMax(nz, 1)));
  GILU_CUDA_CHECK(cudaMalloc(&d->a, sizeof(PetscScalar) * PetscMax(nz, 1)));
  GILU_CUDA_CHECK(cudaMemcpy(d->i, h->i, sizeof(PetscInt) * (n + 1), cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(d->j, h->j, sizeof(PetscInt) * nz, cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(d->a, h->a, sizeof(PetscScalar) * nz, cudaMemcpyHostToDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ATSCSRFreeDevice(ATSCSR *d)
{
  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaFree(d->i));
  GILU_CUDA_CHECK(cudaFree(d->j));
  GILU_CUDA_CHECK(cudaFree(d->a));
  if (d->scale) GILU_CUDA_CHECK(cudaFree((void *)d->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Up to nsweeps sweeps on the device from the factors in F (fixed pattern), stopping after a sweep whose relative
  residual is at most tol (tol > 0); hist[s] receives the residual after sweep s (summed on the host in row
  order, as ATSFactorsResidual() does). The factors' values are copied back into F; *done is the sweeps run.
*/
static PetscErrorCode Sweeps(ATSFactors *F, PetscBool parilu, PetscInt nsweeps, PetscReal tol, PetscReal hist[], PetscInt *done)
{
  PetscInt       n = F->n, nzl = F->L.i[n], nzu = F->Ut.i[n];
  PetscBool      atshared = (PetscBool)(F->At.i == F->Ut.i && F->At.j == F->Ut.j);
  ATSCSR         A, At, L, Ut, Lold;
  PetscScalar   *uold;
  PetscReal     *rw, *hrw, anorm = F->anorm;
  int           *zero, hzero = 0;
  dim3           grid((unsigned)((n + ATS_BLOCK - 1) / ATS_BLOCK)), block(ATS_BLOCK);
  PetscErrorCode ierr = PETSC_SUCCESS; /* a launch that fails (the emulation's options too): freed below, then returned */

  PetscFunctionBegin;
  *done = 0;
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  PetscCall(PetscMalloc1(n, &hrw));
  PetscCall(ATSCSRToDevice(&F->A, &A));
  PetscCall(ATSCSRToDevice(&F->L, &L));
  PetscCall(ATSCSRToDevice(&F->Ut, &Ut));
  if (atshared) { /* the fixed pattern's A^T values on U^T's pattern: U^T's device pattern, its own values */
    At = Ut;
    GILU_CUDA_CHECK(cudaMalloc(&At.a, sizeof(PetscScalar) * PetscMax(nzu, 1)));
    GILU_CUDA_CHECK(cudaMemcpy(At.a, F->At.a, sizeof(PetscScalar) * nzu, cudaMemcpyHostToDevice));
  } else PetscCall(ATSCSRToDevice(&F->At, &At));
  Lold = L; /* the previous L (Jacobi order, or ATS without USE_NEW): L's pattern, its own values only where read */
  if (parilu || !F->usenew) GILU_CUDA_CHECK(cudaMalloc(&Lold.a, sizeof(PetscScalar) * PetscMax(nzl, 1)));
  uold = NULL; /* the previous U^T (Jacobi order) */
  if (parilu) GILU_CUDA_CHECK(cudaMalloc(&uold, sizeof(PetscScalar) * PetscMax(nzu, 1)));
  GILU_CUDA_CHECK(cudaMalloc(&rw, sizeof(PetscReal) * n));
  GILU_CUDA_CHECK(cudaMalloc(&zero, sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(zero, 0, sizeof(int)));
  for (PetscInt s = 1; s <= nsweeps; s++) {
    PetscReal sum = 0;

    if (parilu || !F->usenew) GILU_CUDA_CHECK(cudaMemcpy(Lold.a, L.a, sizeof(PetscScalar) * nzl, cudaMemcpyDeviceToDevice));
    if (parilu) {
      GILU_CUDA_CHECK(cudaMemcpy(uold, Ut.a, sizeof(PetscScalar) * nzu, cudaMemcpyDeviceToDevice));
      ierr = GILU_LAUNCH(ATSSolveRowsKernel, grid, block, 0, 0, L, Lold.a, L.a, Ut, A, 1, zero);
      if (!ierr) ierr = GILU_LAUNCH(ATSSolveRowsKernel, grid, block, 0, 0, Ut, uold, Ut.a, Lold, At, 0, zero);
    } else {
      ierr = GILU_LAUNCH(ATSSolveRowsKernel, grid, block, 0, 0, L, (const PetscScalar *)NULL, L.a, Ut, A, 0, zero);
      if (!ierr) ierr = GILU_LAUNCH(ATSSolveRowsKernel, grid, block, 0, 0, Ut, (const PetscScalar *)NULL, Ut.a, F->usenew ? L : Lold, At, 0, zero);
    }
    if (!ierr) ierr = GILU_LAUNCH(ATSResidualKernel, grid, block, 0, 0, A, At, L, Ut, rw);
    if (ierr) break;
    GILU_CUDA_CHECK(cudaMemcpy(hrw, rw, sizeof(PetscReal) * n, cudaMemcpyDeviceToHost));
    GILU_CUDA_CHECK(cudaMemcpy(&hzero, zero, sizeof(int), cudaMemcpyDeviceToHost));
    for (PetscInt r = 0; r < n; r++) sum += hrw[r];
    hist[s] = anorm > 0 ? PetscSqrtReal(sum / anorm) : PetscSqrtReal(sum);
    *done   = s;
    if (hzero) {
      if (F->zerorow < 0) F->zerorow = n - hzero;
      break;
    }
    if (tol > 0 && hist[s] <= tol) break;
  }
  if (!ierr) {
    GILU_CUDA_CHECK(cudaMemcpy(F->L.a, L.a, sizeof(PetscScalar) * nzl, cudaMemcpyDeviceToHost));
    GILU_CUDA_CHECK(cudaMemcpy(F->Ut.a, Ut.a, sizeof(PetscScalar) * nzu, cudaMemcpyDeviceToHost));
  }
  PetscCall(ATSCSRFreeDevice(&A));
  if (atshared) GILU_CUDA_CHECK(cudaFree(At.a));
  else PetscCall(ATSCSRFreeDevice(&At));
  PetscCall(ATSCSRFreeDevice(&L));
  PetscCall(ATSCSRFreeDevice(&Ut));
  if (parilu || !F->usenew) GILU_CUDA_CHECK(cudaFree(Lold.a));
  if (parilu) GILU_CUDA_CHECK(cudaFree(uold));
  GILU_CUDA_CHECK(cudaFree(rw));
  GILU_CUDA_CHECK(cudaFree(zero));
  PetscCall(PetscFree(hrw));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const ATSILUDeviceOps DeviceOps = {Sweeps};

PetscErrorCode GILU_CUDA_NAME(ATSILUDeviceGetOps)(const ATSILUDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
