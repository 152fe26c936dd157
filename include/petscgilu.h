/*
   petscgilu: parallel incomplete-LU preconditioners and triangular solves for PETSc.

   Programs that link libpetscgilu call PetscGILUInitializePackage() once after
   PetscInitialize(); unmodified programs load the plugin with
   -dll_append /path/to/libpetscgilu.so, which calls PetscDLLibraryRegister_petscgilu().
*/
#ifndef PETSCGILU_H
#define PETSCGILU_H

#include <petscpc.h>

/*J
   PCSTRUCTILU - "structilu": dependency-preserving ILU for structured-grid stencils

   Level: beginner

.seealso: `PCStructILUSetGrid()`, `PCStructILUSetDof()`, `PCStructILUSetLevels()`, `PCStructILUSetZeroPivot()`
J*/
#define PCSTRUCTILU "structilu"

PETSC_EXTERN PetscErrorCode PetscGILUInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscGILUFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgilu(void);

PETSC_EXTERN PetscErrorCode PCStructILUSetGrid(PC, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PCStructILUGetGrid(PC, PetscInt *, PetscInt[]);
PETSC_EXTERN PetscErrorCode PCStructILUSetDof(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCStructILUGetDof(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCStructILUSetLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCStructILUGetLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCStructILUSetZeroPivot(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCStructILUGetZeroPivot(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCStructILUGetStencil(PC, PetscInt *, PetscInt *, const PetscInt **);

#endif
