/*
   Package registration: the types, log events and finalizer of petscgilu.
*/
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/backend.h>

PETSC_EXTERN PetscErrorCode PCCreate_StructILU(PC);
PETSC_EXTERN PetscErrorCode PCCreate_ATSILU(PC); /* PCATSILU */

PETSC_EXTERN PetscErrorCode PCCreate_Sparsify(PC); /* PCSPARSIFY */
PETSC_EXTERN PetscErrorCode MatCreate_StencilGPU(Mat);
PETSC_INTERN PetscErrorCode MatGetFactor_StructILU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_Petsc(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_MUMPS(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_GILU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_SuperLU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_SuperLU_DIST(Mat, MatFactorType, Mat *);

PetscLogEvent GILU_StencilExtract, GILU_StructILUFactor, GILU_StructILUApply, GILU_StructILUWait;
/* PCFGDD */
PETSC_EXTERN PetscErrorCode PCCreate_FGDD(PC);
PetscLogEvent               GILU_FGDDPartition, GILU_FGDDLevels, GILU_FGDDFactor, GILU_FGDDApply;

/* triangular-solve engine and MatSolverType gilu (src/mat/sptrsv) */
PetscLogEvent               GILU_TriSolve, GILU_TriAnalysis, GILU_FactorNumeric;
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJ_GILU(Mat, MatFactorType, Mat *);

PetscLogEvent GILU_ATSILUSetUp, GILU_ATSILUSweep, GILU_ATSILUApply; /* PCATSILU */

/* back-end layer (src/sys/backend.c, src/sys/cuda/device.cu): host-device copies */
PetscLogEvent GILU_CopyToGPU, GILU_CopyToCPU;

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

  Collective on `PETSC_COMM_WORLD` the first time (it finds the rank of each process on its node, whose
  index chooses the GPU of the process), not collective afterwards

  Options Database Keys:
+ -gilu_backend auto|host|cuda|cudaemu - where petscgilu's kernels run, for every object without its own back-end option (`PetscGILUGetBackend()`)
. -gilu_schedule_delay us             - developer test hook: each unit of a host thread schedule sleeps us microseconds first, so a missing wait shows
. -gilu_cudaemu_schedule inorder|reverse|random[:seed] - the emulation's block dispatch and thread order (default inorder)
. -gilu_cudaemu_block_order order     - the block dispatch order alone
. -gilu_cudaemu_thread_order order    - the order of the threads of a block alone
. -gilu_cudaemu_seed n                - the seed of the random orders (default 1)
. -gilu_cudaemu_resident n            - blocks resident at once, 1 to 64 (default 4)
. -gilu_cudaemu_arch sm_80|sm_90      - the architecture whose shared-memory opt-in limit the emulation applies (default sm_80)
. -gilu_cudaemu_max_grid_x n          - the emulated device's largest first grid dimension, 1 to 2147483647 (default, a GPU's)
. -gilu_cudaemu_devices n             - devices of the emulated node, 1 to 64 (default 1)
- -gilu_cudaemu_counters              - count per emulated kernel the 32-byte sectors of its memory requests and its dependent round trips; print them at the end (`GILUEmuCountersView()`)

  Notes:
  The emulation's options (-gilu_cudaemu_*) are read and listed by -help where the cudaemu back-end is first chosen.

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
  PetscCall(GILUNodeRankSetUp());
  PetscCall(GILUOptionsSetUp());
  PetscCall(PCInitializePackage());
  PetscCall(PCRegister(PCSTRUCTILU, PCCreate_StructILU));
  PetscCall(MatRegisterRootName(MATSTENCILGPU, MATSEQSTENCILGPU, MATMPISTENCILGPU));
  PetscCall(MatRegister(MATSTENCILGPU, MatCreate_StencilGPU));
  PetscCall(MatRegister(MATSEQSTENCILGPU, MatCreate_StencilGPU));
  PetscCall(MatRegister(MATMPISTENCILGPU, MatCreate_StencilGPU));
  /* registered first, so the default ILU/ICC of seqstencilgpu (-pc_type ilu just works): the gilu, petsc LU and package
     factorizations registered below run on its AIJ image */
  PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, MATSEQSTENCILGPU, MAT_FACTOR_ILU, MatGetFactor_StructILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, MATSEQSTENCILGPU, MAT_FACTOR_ICC, MatGetFactor_StructILU));
  /* PETSc picks its default PC by asking for the "petsc" ILU/ICC (PCGetDefaultType_Private): offering the structilu
     factor under that name too gives stencilgpu matrices AIJ's defaults (ILU on one process, block Jacobi + ILU on
     many) instead of block Jacobi of the matrix itself; the factor still reports solver type structilu */
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQSTENCILGPU, MAT_FACTOR_ILU, MatGetFactor_StructILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQSTENCILGPU, MAT_FACTOR_ICC, MatGetFactor_StructILU));
  /* the factorizations stencilgpu has no solver of its own for: the named package's, on an AIJ image (stencilgpu-aij.c) */
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQSTENCILGPU, MAT_FACTOR_LU, MatGetFactor_StencilGPU_Petsc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQSTENCILGPU, MAT_FACTOR_CHOLESKY, MatGetFactor_StencilGPU_Petsc));
  for (size_t t = 0; t < 2; t++) {
    MatType mtype = t ? MATMPISTENCILGPU : MATSEQSTENCILGPU;

    PetscCall(MatSolverTypeRegister(MATSOLVERMUMPS, mtype, MAT_FACTOR_LU, MatGetFactor_StencilGPU_MUMPS));
    PetscCall(MatSolverTypeRegister(MATSOLVERMUMPS, mtype, MAT_FACTOR_CHOLESKY, MatGetFactor_StencilGPU_MUMPS));
    PetscCall(MatSolverTypeRegister(MATSOLVERSUPERLU_DIST, mtype, MAT_FACTOR_LU, MatGetFactor_StencilGPU_SuperLU_DIST));
  }
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQSTENCILGPU, MAT_FACTOR_ILU, MatGetFactor_StencilGPU_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQSTENCILGPU, MAT_FACTOR_ICC, MatGetFactor_StencilGPU_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSUPERLU, MATSEQSTENCILGPU, MAT_FACTOR_LU, MatGetFactor_StencilGPU_SuperLU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSUPERLU, MATSEQSTENCILGPU, MAT_FACTOR_ILU, MatGetFactor_StencilGPU_SuperLU));
  { /* MatSolverType structilu of the AIJ and BAIJ types (src/pc/structilu/structilu-factor.c): PCILU and PCICC run PCSTRUCTILU's
       factors; on several processes the global ones */
    const MatType types[] = {MATSEQAIJ,         MATSEQBAIJ,       MATMPIAIJ, MATMPIBAIJ,
#if defined(PETSC_HAVE_CUDA)
                             MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE
#endif
    };

    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
      PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, types[t], MAT_FACTOR_ILU, MatGetFactor_StructILU));
      PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, types[t], MAT_FACTOR_ICC, MatGetFactor_StructILU));
    }
    PetscCall(MatSolverTypeRegister(MATSOLVERSTRUCTILU, MATSEQSBAIJ, MAT_FACTOR_ICC, MatGetFactor_StructILU)); /* (no ILU of SBAIJ, as in PETSc) */
  }
  PetscCall(PetscLogEventRegister("GILUStencilExtr", PC_CLASSID, &GILU_StencilExtract));
  PetscCall(PetscLogEventRegister("StructILUFactor", PC_CLASSID, &GILU_StructILUFactor));
  PetscCall(PetscLogEventRegister("StructILUApply", PC_CLASSID, &GILU_StructILUApply));
  PetscCall(PetscLogEventRegister("StructILUWait", PC_CLASSID, &GILU_StructILUWait)); /* -pc_structilu_distributed: waiting for a neighbour's rows or values */
  /* PCFGDD */
  PetscCall(PCRegister(PCFGDD, PCCreate_FGDD));
  PetscCall(PetscLogEventRegister("FGDDPartition", PC_CLASSID, &GILU_FGDDPartition));
  PetscCall(PetscLogEventRegister("FGDDLevels", PC_CLASSID, &GILU_FGDDLevels));
  PetscCall(PetscLogEventRegister("FGDDFactor", PC_CLASSID, &GILU_FGDDFactor));
  PetscCall(PetscLogEventRegister("FGDDApply", PC_CLASSID, &GILU_FGDDApply));

  /* triangular-solve engine and MatSolverType gilu (src/mat/sptrsv) */
  PetscCall(PetscLogEventRegister("GILUTriSolve", MAT_CLASSID, &GILU_TriSolve));
  PetscCall(PetscLogEventRegister("GILUTriAnalysis", MAT_CLASSID, &GILU_TriAnalysis));
  PetscCall(PetscLogEventRegister("GILUFactorNum", MAT_CLASSID, &GILU_FactorNumeric));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQAIJ, MAT_FACTOR_ILU, MatGetFactor_SeqAIJ_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQAIJ, MAT_FACTOR_ICC, MatGetFactor_SeqAIJ_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQBAIJ, MAT_FACTOR_ILU, MatGetFactor_SeqAIJ_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQBAIJ, MAT_FACTOR_ICC, MatGetFactor_SeqAIJ_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQSBAIJ, MAT_FACTOR_ICC, MatGetFactor_SeqAIJ_GILU)); /* (no ILU of SBAIJ, as in PETSc) */
#if defined(PETSC_HAVE_CUDA)
  /* CUDA matrices are AIJ (factored from their host values); registered by name so that -mat_type aijcusparse
     -pc_factor_mat_solver_type gilu finds gilu for them as it does for MATSEQAIJ */
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQAIJCUSPARSE, MAT_FACTOR_ILU, MatGetFactor_SeqAIJ_GILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERGILU, MATSEQAIJCUSPARSE, MAT_FACTOR_ICC, MatGetFactor_SeqAIJ_GILU));
#endif

  /* PCATSILU */
  PetscCall(PCRegister(PCATSILU, PCCreate_ATSILU));
  PetscCall(PetscLogEventRegister("ATSILUSetUp", PC_CLASSID, &GILU_ATSILUSetUp));
  PetscCall(PetscLogEventRegister("ATSILUSweep", PC_CLASSID, &GILU_ATSILUSweep));
  PetscCall(PetscLogEventRegister("ATSILUApply", PC_CLASSID, &GILU_ATSILUApply));

  /* back-end layer: host-device copies */
  PetscCall(PetscLogEventRegister("GILUCopyToGPU", PC_CLASSID, &GILU_CopyToGPU));
  PetscCall(PetscLogEventRegister("GILUCopyToCPU", PC_CLASSID, &GILU_CopyToCPU));

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
