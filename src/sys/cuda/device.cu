/*
   CUDA device discovery. A build with CUDA runs on machines without a GPU or driver:
   any error from the runtime means "no device", and no CUDA context is created here.
   In the emulated build (PetscGILUGetDeviceCount_CUDA_cudaemu) there is one device, the emulated one.
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilu/private/giluimpl.h>

PetscErrorCode GILU_CUDA_NAME(PetscGILUGetDeviceCount_CUDA)(PetscInt *count)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky error: no driver or no device */
    n = 0;
  }
  *count = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}
