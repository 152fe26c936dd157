/* Private to src/mat/stencilgpu/cuda: MATSTENCILGPU's product on the device (stencilgpu.cu, nvcc and cudaemu builds) */
#ifndef PETSCGILU_STENCILGPU_CUDA_H
#define PETSCGILU_STENCILGPU_CUDA_H

#include <petscgilu/private/stencilgpu.h>

/* y = A xg for the local box: xg the ghosted input (nghost points), host arrays */
#if defined(PETSCGILU_HAVE_CUDA)
PETSC_INTERN PetscErrorCode MatStencilGPUMultDevice(const Mat_StencilGPU *, const PetscScalar *, PetscInt, PetscScalar *);
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
PETSC_INTERN PetscErrorCode MatStencilGPUMultDevice_cudaemu(const Mat_StencilGPU *, const PetscScalar *, PetscInt, PetscScalar *);
#endif

#endif
