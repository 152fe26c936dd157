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

/*MC
   MATSOLVERGILU - "gilu": PETSc's ILU(k) and ICC(k) factorizations of `MATSEQAIJ` and `MATSEQBAIJ` matrices whose
   triangular solves run on petscgilu's threaded engine (level-set, sync-free, blocked; src/mat/sptrsv)

   Options Database Keys:
+  -pc_factor_mat_solver_type gilu - use it with -pc_type ilu or icc (also as -sub_ with PCBJACOBI, PCASM)
.  -mat_gilu_trisolve <auto,levelset,syncfree,colblock,rowblock,recblock,sequential> - the algorithm (factor's prefix)
-  -mat_gilu_trisolve_threads <n> - host threads of the solves (default OMP_NUM_THREADS)

   Level: beginner

.seealso: `PCILU`, `PCICC`, `PCFactorSetMatSolverType()`
M*/
#define MATSOLVERGILU "gilu"

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

/* Test matrices (src/sys/testmat/testmat.c): named, deterministic generators standing in for SuiteSparse classes */
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixList(PetscInt *, const char *const **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixGetInfo(const char[], PetscBool *, PetscInt *, const char **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixCreate(MPI_Comm, const char[], PetscInt, Mat *, Vec *);

/* ---------------------------------------------------------------------------------------------- PCFGDD */
/*J
   PCFGDD - "fgdd": fine-grained domain decomposition for triangular solves (seed 003): many small subdomains,
   ILDU0 of each, solved independently

   Level: intermediate

.seealso: `PCFGDDSetSubdomainRows()`, `PCFGDDSetSubdomainBox()`, `PCFGDDSetPartitioner()`, `PCFGDDSetApplyType()`
J*/
#define PCFGDD "fgdd"

/*E
   PCFGDDPartitioner - how `PCFGDD` finds its subdomains: boxes of the DMDA, or graph partitioning and balancing

   Level: intermediate

.seealso: `PCFGDDSetPartitioner()`
E*/
typedef enum {
  PC_FGDD_PARTITIONER_GEOMETRIC,
  PC_FGDD_PARTITIONER_GRAPH
} PCFGDDPartitioner;
PETSC_EXTERN const char *const PCFGDDPartitioners[];

/*E
   PCFGDDApplyType - the triangular-solve variant inside the subdomains of `PCFGDD`

   Level: intermediate

.seealso: `PCFGDDSetApplyType()`
E*/
typedef enum {
  PC_FGDD_APPLY_SYNCFREE,
  PC_FGDD_APPLY_VERTEX,
  PC_FGDD_APPLY_EDGE
} PCFGDDApplyType;
PETSC_EXTERN const char *const PCFGDDApplyTypes[];

/*E
   PCFGDDBackend - where `PCFGDD` applies its factors: host threads or the CUDA kernels run by the emulation

   Level: advanced

.seealso: `PCFGDDSetBackend()`
E*/
typedef enum {
  PC_FGDD_BACKEND_HOST,
  PC_FGDD_BACKEND_CUDAEMU
} PCFGDDBackend;
PETSC_EXTERN const char *const PCFGDDBackends[];

PETSC_EXTERN PetscErrorCode PCFGDDSetSubdomainRows(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCFGDDSetSubdomainBox(PC, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PCFGDDSetPartitioner(PC, PCFGDDPartitioner);
PETSC_EXTERN PetscErrorCode PCFGDDSetApplyType(PC, PCFGDDApplyType);
PETSC_EXTERN PetscErrorCode PCFGDDSetFused(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCFGDDSetBackend(PC, PCFGDDBackend);
PETSC_EXTERN PetscErrorCode PCFGDDSetThreads(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCFGDDGetSubdomains(PC, PetscInt *, const PetscInt *[], IS *);
/* ---------------------------------------------------------------------------------------------- end PCFGDD */

#endif
