/*
   MATSTENCILGPU's product on the device: y = A xg with xg in the DMDA's
   ghosted local numbering, exactly the product of stencilgpu-ops.c (same terms; summed per row in stencil order).
   One thread per unknown (a grid point's row a), consecutive threads on consecutive rows: the values of each offset
   are read with unit stride (the stencil-major layout). Built by nvcc and for the emulation (cudaemu); the ops table
   at the end is what MatStencilGPUMultWithBackend() (stencilgpu-device.c) calls.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/backend.h>
#include "stencilgpu-cuda.h"

typedef struct {
  int           n[3], M[3], xs[3], gs[3], gn[3], dof, ns, npoints;
  const int    *off, *gshift;
  const double *val, *xg;
  double       *y;
} MultArgs;

__global__ static void StencilGPUMultKernel(MultArgs k)
{
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       d = k.dof;

  if (r < (long long)k.npoints * d) {
    const int    p = (int)(r / d), a = (int)(r % d), i = p % k.n[0], j = (p / k.n[0]) % k.n[1], l = p / (k.n[0] * k.n[1]);
    const int    g = ((l + k.xs[2] - k.gs[2]) * k.gn[1] + (j + k.xs[1] - k.gs[1])) * k.gn[0] + (i + k.xs[0] - k.gs[0]);
    const size_t N = (size_t)k.npoints;
    double       t = 0;

    for (int s = 0; s < k.ns; s++) {
      const int gi = k.xs[0] + i + k.off[3 * s], gj = k.xs[1] + j + k.off[3 * s + 1], gl = k.xs[2] + l + k.off[3 * s + 2];

      if (gi < 0 || gi >= k.M[0] || gj < 0 || gj >= k.M[1] || gl < 0 || gl >= k.M[2]) continue;
      {
        const double *A  = k.val + ((size_t)s * N + (size_t)p) * d * d + (size_t)a * d;
        const double *xq = k.xg + (size_t)(g + k.gshift[s]) * d;

        for (int e = 0; e < d; e++) t += A[e] * xq[e];
      }
    }
    k.y[r] = t;
  }
}

struct _n_MatStencilGPUDevice {
  MultArgs k;            /* the device arrays below, the box and the stencil */
  int     *off, *gshift; /* [3*ns] offsets, [ns] their shifts in the ghost box */
  double  *val, *xg, *y; /* the values; buffers for the ghosted input and the product */
};

static PetscErrorCode Destroy(MatStencilGPUDevice *devp)
{
  MatStencilGPUDevice dev = *devp;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->off));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->gshift));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->val));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->xg));
  PetscCall(GILU_CUDA_NAME(GILUDeviceFree)((void **)&dev->y));
  PetscCall(PetscFree(dev));
  *devp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stencil and the values copied to the device (logged), buffers for nghost ghosted input points and the product */
static PetscErrorCode Create(const Mat_StencilGPU *sg, PetscInt nghost, MatStencilGPUDevice *devp)
{
  const GILUStencilMat *sm = &sg->sm;
  const PetscInt        d = sm->grid.dof, ns = sm->stencil.ns, N = sm->npoints;
  int                   h[2 * GILU_STENCIL_MAX_OFFSETS * 3];
  const size_t          nval = (size_t)ns * N * d * d;
  MatStencilGPUDevice   dev;

  PetscFunctionBegin;
  PetscCheck((PetscInt64)N * d < INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The local box is too large for the device product's 32-bit indices");
  PetscCall(GILU_CUDA_NAME(GILUDeviceSelect)());
  for (PetscInt s = 0; s < ns; s++) {
    for (PetscInt c = 0; c < 3; c++) h[3 * s + c] = (int)sm->stencil.off[s][c];
    h[3 * ns + s] = (int)sg->gshift[s];
  }
  PetscCall(PetscNew(&dev));
  *devp = dev;
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * 3 * ns, (void **)&dev->off));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(int) * ns, (void **)&dev->gshift));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * nval, (void **)&dev->val));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)nghost * d, (void **)&dev->xg));
  PetscCall(GILU_CUDA_NAME(GILUDeviceMalloc)(sizeof(double) * (size_t)N * d, (void **)&dev->y));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->off, h, sizeof(int) * 3 * ns));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->gshift, h + 3 * ns, sizeof(int) * ns));
  PetscCall(GILU_CUDA_NAME(GILUDeviceCopyToDevice)(dev->val, sm->val, sizeof(double) * nval));
  for (int c = 0; c < 3; c++) {
    dev->k.n[c]  = (int)sm->grid.n[c];
    dev->k.M[c]  = (int)sg->M[c];
    dev->k.xs[c] = (int)sg->xs[c];
    dev->k.gs[c] = (int)sg->gs[c];
    dev->k.gn[c] = (int)sg->gn[c];
  }
  dev->k.dof     = (int)d;
  dev->k.ns      = (int)ns;
  dev->k.npoints = (int)N;
  dev->k.off     = dev->off;
  dev->k.gshift  = dev->gshift;
  dev->k.val     = dev->val;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Buffers(MatStencilGPUDevice dev, void **xg, void **y)
{
  PetscFunctionBegin;
  *xg = dev->xg;
  *y  = dev->y;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A xg for the local box: device arrays in and out */
static PetscErrorCode Mult(MatStencilGPUDevice dev, const PetscScalar *xg, PetscScalar *y)
{
  MultArgs     k = dev->k;
  const size_t m = (size_t)k.npoints * k.dof;

  PetscFunctionBegin;
  k.xg = xg;
  k.y  = y;
  if (m) {
    const dim3 block(128), grid((unsigned int)((m + 127) / 128));

    PetscCall(GILU_LAUNCH(StencilGPUMultKernel, grid, block, 0, 0, k));
  }
  GILU_CUDA_CHECK(cudaDeviceSynchronize()); /* y is complete: the caller may copy it back or hand it to PETSc */
  PetscCall(GILULogDeviceFlops(2.0 * k.ns * (double)m * k.dof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const MatStencilGPUDeviceOps DeviceOps = {Create, Destroy, Buffers, Mult};

PetscErrorCode GILU_CUDA_NAME(MatStencilGPUDeviceGetOps)(const MatStencilGPUDeviceOps **ops)
{
  PetscFunctionBegin;
  *ops = &DeviceOps;
  PetscFunctionReturn(PETSC_SUCCESS);
}
