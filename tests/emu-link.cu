/* make check's emu-link (makefile): compiled twice for the emulation at -O0, with EMU_LINK_NAME EmuLink_a_cudaemu and
   EmuLink_b_cudaemu, localized as the library's emulated objects are and linked into one library: what gilucuda.h
   defines for a launch (dim3, the launch's templates) links however the compiler emits it. The library's own objects
   are compiled with PETSc's CXX_FLAGS, which have -O0 only in a debug PETSc. */
#include <petscgilu/private/gilucuda.h>

static __global__ void EmuLinkKernel(int *v)
{
  v[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

PETSC_EXTERN PetscErrorCode EMU_LINK_NAME(int *, int);

PetscErrorCode EMU_LINK_NAME(int *v, int n)
{
  const dim3 grid((unsigned int)n), block(32);

  PetscFunctionBegin;
  PetscCall(GILU_LAUNCH(EmuLinkKernel, grid, block, 0, 0, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
