/* Package-level private declarations: log events and back-end discovery. */
#ifndef PETSCGILUIMPL_H
#define PETSCGILUIMPL_H

#include <petscmat.h>
#include <petscgilu/private/compat.h>
#include <petscgiluconf.h>

PETSC_INTERN PetscLogEvent GILU_StencilExtract, GILU_StructILUFactor, GILU_StructILUApply, GILU_StructILUWait;
/* PCFGDD */
PETSC_INTERN PetscLogEvent GILU_FGDDPartition, GILU_FGDDLevels, GILU_FGDDFactor, GILU_FGDDApply;

/* triangular-solve engine (src/mat/sptrsv) */
PETSC_INTERN PetscLogEvent GILU_TriSolve, GILU_TriAnalysis, GILU_FactorNumeric; /* GILUFactorNum: the numeric ILU of MatSolverType gilu */

/* PCATSILU */
PETSC_INTERN PetscLogEvent GILU_ATSILUSetUp, GILU_ATSILUSweep, GILU_ATSILUApply;

PETSC_INTERN PetscLogEvent GILU_SparsifySetUp; /* PCSPARSIFY */

/* The options prefix of a PETSc object for a message that names one of its options, "-%spc_structilu_type"
   (the option a user types: inside -pc_type bjacobi it is -sub_pc_structilu_type); needs petsc/private/petscimpl.h */
#define GILUPrefix(obj) (((PetscObject)(obj))->prefix ? ((PetscObject)(obj))->prefix : "")

/* The arguments of the public functions, checked in every build: PETSc's PetscValidHeaderSpecific() and
   PetscAssertPointer() check only in a PETSc configured with debugging (an optimized PETSc, such as Debian's, compiles
   them out, and a NULL would then crash); they run first, so a debug PETSc says what it says (a freed object ...) */
#define GILUValidHeaderSpecific(h, ck, arg) \
  do { \
    PetscValidHeaderSpecific(h, ck, arg); \
    PetscCheck((h) != NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null Object: Parameter # %d", (int)(arg)); \
    PetscCheck(((PetscObject)(h))->classid == (ck), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Wrong type of object: Parameter # %d", (int)(arg)); \
  } while (0)
#define GILUAssertPointer(h, arg) \
  do { \
    PetscAssertPointer(h, arg); \
    PetscCheck((h) != NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null Pointer: Parameter # %d", (int)(arg)); \
  } while (0)

/* One PetscOptionsBegin()/End() block (-help lists its options under title) in which read(PetscOptionsObject, ctx) reads
   the options; options: the object's database (NULL: PETSc's). read's error is raised after PetscOptionsEnd(): raised
   inside the block (a value that is none of an enum's choices, a setter's check) it would skip PetscOptionsEnd(), whose
   strings would then leak once a caller catches the error, as KSPSetUp()'s caller may (options read at setup: a
   factorization's symbolic phase, the engine's triangles) (src/sys/backend.c) */
PETSC_INTERN PetscErrorCode GILUOptionsBlock(MPI_Comm, PetscOptions, const char[], const char[], const char[], PetscErrorCode (*)(GILUOptionItems, void *), void *);

/* The factor matrix of a petscgilu MatSolverType before its symbolic factorization (src/mat/factor.c) */
PETSC_INTERN PetscErrorCode GILUMatCreateFactor(Mat, MatFactorType, MatSolverType, const char[], void *, Mat *);
/* ... and one whose solves another factor does (src/mat/factor.c) */
PETSC_INTERN PetscErrorCode GILUMatFactorSetDelegate(Mat, Mat);

/* Number of usable CUDA devices: 0 when the library was built without CUDA or none is present */
PETSC_INTERN PetscErrorCode PetscGILUGetDeviceCount(PetscInt *);
#if defined(PETSCGILU_HAVE_CUDA)
/* in lib/libpetscgilu_cuda.so (exported there); libpetscgilu.so takes it by name (GILUCudaLibrarySym()) */
PETSC_EXTERN PetscErrorCode PetscGILUGetDeviceCount_CUDA(PetscInt *);
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
PETSC_INTERN PetscErrorCode PetscGILUGetDeviceCount_CUDA_cudaemu(PetscInt *);
#endif
/* One line that says which back-ends the build has and what it found at run time */
PETSC_INTERN PetscErrorCode PetscGILUBackendDescribe(char[], size_t);

#endif
