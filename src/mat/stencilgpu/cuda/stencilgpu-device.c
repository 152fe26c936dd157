/*
   MatStencilGPUMultWithBackend(): MATSTENCILGPU's product on a chosen back-end (host, cuda or cudaemu); the device
   kernel is in stencilgpu.cu, called through its ops table, taken once for each back-end asked for. Not yet MatMult() itself: MatMult_StencilGPU() (stencilgpu-ops.c) stays on the host
   until the matrix keeps its values on the device.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu/private/backend.h>
#include "stencilgpu-cuda.h"

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
  On cuda and cudaemu the ghosted input (`DMGlobalToLocal()` in parallel), the values and the offsets are copied to
  the device at each call and the product comes back: a check of the device kernel against the host product, not
  yet a fast path.

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
  PetscCall(MatStencilGPUGetStencilMat(A, &isstencil, &sm));
  PetscCheck(isstencil, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MatStencilGPUMultWithBackend() needs a MATSTENCILGPU matrix");
  sg = (Mat_StencilGPU *)A->data;
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)A), backend, &ran));
  if (ran != sg->devran) { /* the device ops of this back-end (none for the host), kept while the caller asks for it */
    GILUBackendGetDeviceOps(ran, MatStencilGPUDeviceGetOps, &sg->devops);
    sg->devran = ran;
  }
  if (!sg->devops) {
    PetscCall(MatMult(A, x, y));
  } else {
    const PetscScalar *xa;
    PetscScalar       *ya;
    Vec                xl = NULL;
    DM                 da;
    PetscInt           nghost;

    if (sg->size > 1) {
      PetscCall(MatGetDM(A, &da));
      PetscCall(DMGetLocalVector(da, &xl));
      PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, xl));
      PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, xl));
      PetscCall(VecGetArrayRead(xl, &xa));
    } else PetscCall(VecGetArrayRead(x, &xa));
    nghost = sg->gn[0] * sg->gn[1] * sg->gn[2];
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(sg->devops->mult(sg, xa, nghost, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    if (xl) {
      PetscCall(VecRestoreArrayRead(xl, &xa));
      PetscCall(DMRestoreLocalVector(da, &xl));
    } else PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
