/*
   MatStencilGPUMultWithBackend(): MATSTENCILGPU's product on a chosen back-end (host, cuda or cudaemu); the device
   kernel is in cuda/stencilgpu.cu, called through its ops table, taken once for each back-end asked for. The stencil
   and the values are copied to the device once for each state of the matrix; the vectors reach the kernel through
   src/sys/device-vec.c (CUDA vectors' own device arrays, else the device buffers with one logged copy each way).
   MatMult() itself, MatMult_StencilGPU() (stencilgpu-ops.c), runs on the host.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu/private/backend.h>
#include "cuda/stencilgpu-cuda.h"

PetscErrorCode MatStencilGPUDeviceReset(Mat_StencilGPU *sg)
{
  PetscFunctionBegin;
  if (sg->dev) PetscCall(sg->devops->destroy(&sg->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device product as GILUVecApplyDevice() calls it */
static PetscErrorCode MatStencilGPUMultDevice(void *ctx, const PetscScalar *x, PetscScalar *y)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)ctx;

  PetscFunctionBegin;
  PetscCall(sg->devops->mult(sg->dev, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatStencilGPUMultWithBackend - y = A x for a `MATSTENCILGPU` matrix, computed on the given back-end

  Collective

  Input Parameters:
+ A       - the `MATSTENCILGPU` matrix
. backend - `PETSCGILU_BACKEND_HOST` (`MatMult()`), `PETSCGILU_BACKEND_CUDA`, `PETSCGILU_BACKEND_CUDAEMU` or `PETSCGILU_BACKEND_AUTO`
- x       - the input vector

  Output Parameter:
. y - the product

  Notes:
  On cuda and cudaemu the stencil and the values are copied to the device once for each state of the matrix
  (`PetscObjectStateGet()`: again after its values changed); the input (ghosted by `DMGlobalToLocal()` in parallel)
  and the product are the vectors' own device arrays for CUDA vectors of a PETSc built with CUDA, else copied to the
  device and back at each call (logged as GILUCopyToGPU and GILUCopyToCPU).

  Level: developer

.seealso: `MATSTENCILGPU`, `PetscGILUBackendType`
@*/
PetscErrorCode MatStencilGPUMultWithBackend(Mat A, PetscGILUBackendType backend, Vec x, Vec y)
{
  PetscBool             isstencil;
  const GILUStencilMat *sm;
  Mat_StencilGPU       *sg;
  PetscGILUBackendType  ran;

  PetscFunctionBegin;
  GILUValidHeaderSpecific(A, MAT_CLASSID, 1);
  GILUValidHeaderSpecific(x, VEC_CLASSID, 3);
  GILUValidHeaderSpecific(y, VEC_CLASSID, 4);
  PetscCall(MatStencilGPUGetStencilMat(A, &isstencil, &sm));
  PetscCheck(isstencil, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MatStencilGPUMultWithBackend() needs a MATSTENCILGPU matrix");
  sg = (Mat_StencilGPU *)A->data;
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)A), backend, &ran));
  if (ran != sg->devran) {                   /* the device ops of this back-end (none for the host), kept while the caller asks for it */
    PetscCall(MatStencilGPUDeviceReset(sg)); /* with the old back-end's ops */
    GILUBackendGetDeviceOps(ran, MatStencilGPUDeviceGetOps, &sg->devops);
    sg->devran = ran;
  }
  if (!sg->devops) {
    PetscCall(MatMult(A, x, y));
  } else {
    Vec              xl = NULL, xin = x;
    DM               da;
    PetscObjectState state;
    void            *xbuf, *ybuf;

    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    if (sg->dev && state != sg->devstate) PetscCall(MatStencilGPUDeviceReset(sg)); /* new values */
    if (!sg->dev) {
      PetscCall(sg->devops->create(sg, sg->gn[0] * sg->gn[1] * sg->gn[2], &sg->dev));
      sg->devstate = state;
    }
    if (sg->size > 1) { /* the ghosted input (on the device for CUDA vectors of a CUDA-enabled PETSc) */
      PetscCall(MatGetDM(A, &da));
      PetscCall(DMGetLocalVector(da, &xl));
      PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, xl));
      PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, xl));
      xin = xl;
    }
    PetscCall(sg->devops->buffers(sg->dev, &xbuf, &ybuf));
    PetscCall(GILUVecApplyDevice(xin, y, ran, xbuf, ybuf, MatStencilGPUMultDevice, sg, NULL));
    if (xl) PetscCall(DMRestoreLocalVector(da, &xl));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
