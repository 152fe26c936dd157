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
  /* y = A xg for the local box: xg the ghosted input (nghost points), host arrays */
  PetscErrorCode (*mult)(const Mat_StencilGPU *, const PetscScalar *, PetscInt, PetscScalar *);
};

GILU_DEVICE_GETOPS_DECLARE(MatStencilGPUDeviceGetOps, MatStencilGPUDeviceOps)

#endif
