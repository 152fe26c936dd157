/* The few differences between PETSc 3.18 and newer releases that petscgilu touches. */
#ifndef PETSCGILU_COMPAT_H
#define PETSCGILU_COMPAT_H

#include <petscversion.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

#endif
