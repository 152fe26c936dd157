/*
   Private to src/mat/stencilgpu: MATSTENCILGPU's device kernels (cuda/stencilgpu.cu, built by nvcc with the plain
   names and for the emulation with names ending in _cudaemu) as one ops table, which stencilgpu-device.c takes with
   GILUBackendGetDeviceOps() for the back-end it resolved (MatStencilGPUDeviceGetOps / _cudaemu)
*/
#ifndef PETSCGILU_STENCILGPU_CUDA_H
#define PETSCGILU_STENCILGPU_CUDA_H

#include <petscgilu/private/backend.h>
#include <petscgilu/private/stencilgpu.h>

struct _n_MatStencilGPUDeviceOps {
  /* the device copy of the stencil, the values and buffers for the ghosted input (nghost points) and the product */
  PetscErrorCode (*create)(const Mat_StencilGPU *, PetscInt, MatStencilGPUDevice *);
  PetscErrorCode (*destroy)(MatStencilGPUDevice *);
  PetscErrorCode (*buffers)(MatStencilGPUDevice, void **, void **);
  /* y = A xg for the local box: xg the ghosted input, xg and y device arrays (nothing copied), complete on return */
  PetscErrorCode (*mult)(MatStencilGPUDevice, const PetscScalar *, PetscScalar *);
};

GILU_DEVICE_GETOPS_DECLARE(MatStencilGPUDeviceGetOps, MatStencilGPUDeviceOps)

#endif
