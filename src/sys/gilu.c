/*
   Package registration: the types, log events and finalizer of petscgilu.
*/
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>

PETSC_EXTERN PetscErrorCode PCCreate_StructILU(PC);
PETSC_EXTERN PetscErrorCode PCCreate_Sparsify(PC); /* PCSPARSIFY */
PETSC_EXTERN PetscErrorCode MatCreate_StencilGPU(Mat);
PETSC_INTERN PetscErrorCode MatGetFactor_SeqStencilGPU_StructILU(Mat, MatFactorType, Mat *);

PetscLogEvent GILU_StencilExtract, GILU_StructILUFactor, GILU_StructILUApply;
PetscLogEvent GILU_SparsifySetUp; /* PCSPARSIFY */

static PetscBool PetscGILUPackageInitialized = PETSC_FALSE;

/*@C
  PetscGILUFinalizePackage - Called by `PetscFinalize()`; forgets that the package was initialized.

  Level: developer

.seealso: `PetscGILUInitializePackage()`
@*/
PetscErrorCode PetscGILUFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscGILUPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUInitializePackage - Registers the petscgilu types (`PCSTRUCTILU`, `MATSTENCILGPU`) and log events.

  Not Collective

  Notes:
  Programs linked with libpetscgilu call this once after `PetscInitialize()`. Programs that
  are not linked with it load it with the option `-dll_append /path/to/libpetscgilu.so`,
  which calls `PetscDLLibraryRegister_petscgilu()`, hence this function. Calling it again is harmless.

  Level: beginner

.seealso: `PetscGILUFinalizePackage()`, `PetscDLLibraryRegister_petscgilu()`, `PCSTRUCTILU`
@*/
PetscErrorCode PetscGILUInitializePackage(void)
{
  PetscFunctionBegin;
  if (PetscGILUPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscGILUPackageInitialized = PETSC_TRUE;
  PetscCall(PCInitializePackage());
  PetscCall(PCRegister(PCSTRUCTILU, PCCreate_StructILU));
  PetscCall(MatRegisterRootName(MATSTENCILGPU, MATSEQSTENCILGPU, MATMPISTENCILGPU));
  PetscCall(MatRegister(MATSTENCILGPU, MatCreate_StencilGPU));
  PetscCall(MatRegister(MATSEQSTENCILGPU, MatCreate_StencilGPU));
  PetscCall(MatRegister(MATMPISTENCILGPU, MatCreate_StencilGPU));
  /* the only, hence the default, factorization of seqstencilgpu: -pc_type ilu just works */
  PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, MATSEQSTENCILGPU, MAT_FACTOR_ILU, MatGetFactor_SeqStencilGPU_StructILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, MATSEQSTENCILGPU, MAT_FACTOR_ICC, MatGetFactor_SeqStencilGPU_StructILU));
  PetscCall(PetscLogEventRegister("GILUStencilExtr", PC_CLASSID, &GILU_StencilExtract));
  PetscCall(PetscLogEventRegister("StructILUFactor", PC_CLASSID, &GILU_StructILUFactor));
  PetscCall(PetscLogEventRegister("StructILUApply", PC_CLASSID, &GILU_StructILUApply));
  /* PCSPARSIFY */
  PetscCall(PCRegister(PCSPARSIFY, PCCreate_Sparsify));
  PetscCall(PetscLogEventRegister("SparsifySetUp", PC_CLASSID, &GILU_SparsifySetUp));
  PetscCall(PetscRegisterFinalize(PetscGILUFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscDLLibraryRegister_petscgilu - Entry point used by `-dll_append libpetscgilu.so`.

  Level: developer

.seealso: `PetscGILUInitializePackage()`
@*/
PetscErrorCode PetscDLLibraryRegister_petscgilu(void)
{
  PetscFunctionBegin;
  PetscCall(PetscGILUInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
