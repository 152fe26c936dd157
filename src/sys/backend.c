/*
   Which back-ends this build of petscgilu has, and which devices it finds at run time.
*/
#include <petscgilu/private/giluimpl.h>

PetscErrorCode PetscGILUGetDeviceCount(PetscInt *count)
{
  PetscFunctionBegin;
  *count = 0;
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(PetscGILUGetDeviceCount_CUDA(count));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscGILUBackendDescribe(char line[], size_t len)
{
  PetscInt ndev;

  PetscFunctionBegin;
  PetscCall(PetscGILUGetDeviceCount(&ndev));
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(PetscSNPrintf(line, len, "host (library built with CUDA; %" PetscInt_FMT " CUDA device(s) found; the GPU kernels are not in this release)", ndev));
#else
  PetscCall(PetscSNPrintf(line, len, "host (library built without CUDA)"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
