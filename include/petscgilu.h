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

/*MC
   MATSEQSTENCILGPU - "seqstencilgpu": `MATSTENCILGPU` on one process

   Level: intermediate

.seealso: `MATSTENCILGPU`, `MATMPISTENCILGPU`
M*/
/*MC
   MATMPISTENCILGPU - "mpistencilgpu": `MATSTENCILGPU` on several processes, each holding its `DMDA` box

   Level: intermediate

.seealso: `MATSTENCILGPU`, `MATSEQSTENCILGPU`
M*/
#define MATSTENCILGPU    "stencilgpu"
/* MATSOLVERSTRUCTILU - "structilu": the ILU factorization of MATSEQSTENCILGPU (see stencilgpu-factor.c) */
#define MATSOLVERSTRUCTILU "structilu"
#define MATSEQSTENCILGPU "seqstencilgpu"
#define MATMPISTENCILGPU "mpistencilgpu"

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

/*E
   PCStructILUType - ILU, or incomplete Cholesky (IC) for symmetric matrices

   Level: intermediate

.seealso: `PCStructILUSetType()`
E*/
typedef enum {
  PC_STRUCTILU_ILU,
  PC_STRUCTILU_IC
} PCStructILUType;
PETSC_EXTERN const char *const PCStructILUTypes[];
PETSC_EXTERN PetscErrorCode    PCStructILUSetType(PC, PCStructILUType);
PETSC_EXTERN PetscErrorCode    PCStructILUGetType(PC, PCStructILUType *);

/*E
   PCStructILUPrecision - precision of the stored factors

   Level: intermediate

.seealso: `PCStructILUSetFactorPrecision()`
E*/
typedef enum {
  PC_STRUCTILU_PRECISION_DOUBLE,
  PC_STRUCTILU_PRECISION_SINGLE
} PCStructILUPrecision;
PETSC_EXTERN const char *const PCStructILUPrecisions[];
PETSC_EXTERN PetscErrorCode    PCStructILUSetFactorPrecision(PC, PCStructILUPrecision);
PETSC_EXTERN PetscErrorCode    PCStructILUGetFactorPrecision(PC, PCStructILUPrecision *);

/*E
   PCStructILUSchedule - how the host threads share the rows

   Level: advanced

.seealso: `PCStructILUSetSchedule()`
E*/
typedef enum {
  PC_STRUCTILU_SCHEDULE_SLAB,
  PC_STRUCTILU_SCHEDULE_HYPERPLANE
} PCStructILUSchedule;
PETSC_EXTERN const char *const PCStructILUSchedules[];
PETSC_EXTERN PetscErrorCode    PCStructILUSetSchedule(PC, PCStructILUSchedule);
PETSC_EXTERN PetscErrorCode    PCStructILUGetSchedule(PC, PCStructILUSchedule *);
PETSC_EXTERN PetscErrorCode    PCStructILUSetThreads(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCStructILUGetThreads(PC, PetscInt *);

/* ---- PCSPARSIFY (seed 001, SPCG): src/pc/spcg/ ---- */
/*J
   PCSPARSIFY - "sparsify": wavefront-aware sparsification before an inner preconditioner (SPCG with `KSPCG`)

   Level: intermediate

.seealso: `PCSparsifySetRatios()`, `PCSparsifySetRatio()`, `PCSparsifySetTau()`, `PCSparsifySetOmega()`, `PCSparsifyGetSubPC()`
J*/
#define PCSPARSIFY "sparsify"
PETSC_EXTERN PetscErrorCode PCSparsifySetRatios(PC, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode PCSparsifyGetRatios(PC, PetscInt *, const PetscReal *[]);
PETSC_EXTERN PetscErrorCode PCSparsifySetRatio(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCSparsifyGetRatio(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCSparsifySetTau(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCSparsifyGetTau(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCSparsifySetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCSparsifyGetOmega(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCSparsifySetSymmetric(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCSparsifyGetSymmetric(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCSparsifyGetSubPC(PC, PC *);
PETSC_EXTERN PetscErrorCode PCSparsifyGetSparsifiedMatrix(PC, Mat *);
PETSC_EXTERN PetscErrorCode PCSparsifyGetWavefronts(PC, PetscInt *, PetscInt *);
/* ---- end PCSPARSIFY ---- */

#endif
