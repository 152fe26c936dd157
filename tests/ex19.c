static char help[] = "Public functions of petscgilu called with NULL or wrong arguments, self-checking: prints nothing when right.\n\
Each call must return PETSc's error for a NULL or wrong argument (PETSC_ERR_ARG_NULL, PETSC_ERR_ARG_WRONG), in an\n\
optimized PETSc too, where PetscValidHeaderSpecific() and PetscAssertPointer() are compiled out.\n\n";

/*
  The calls run under PetscReturnErrorHandler (no message, the error code returned); a call that returns another code
  (0 included) is printed. A call that crashes ends the program: the test fails without its output.
*/
#include <petscksp.h>
#include <petscgilu.h>

static PetscErrorCode Expect(PetscErrorCode err, const char *call)
{
  PetscFunctionBeginUser;
  if (err != PETSC_ERR_ARG_NULL && err != PETSC_ERR_ARG_WRONG) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: error code %d, expected a NULL or wrong argument error\n", call, (int)err));
  PetscFunctionReturn(0);
}

/* call with errors returned, not printed */
#define EXPECT(call) \
  do { \
    PetscErrorCode e_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    e_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(Expect(e_, #call)); \
  } while (0)

int main(int argc, char **argv)
{
  PC                   pc[4];
  const char          *types[4] = {PCSTRUCTILU, PCATSILU, PCFGDD, PCSPARSIFY};
  Mat                  A;
  PetscInt             n[3] = {4, 4, 4}, k, *ip = NULL;
  PetscReal           *rp = NULL;
  PetscBool           *bp = NULL;
  PetscGILUBackendType backend, *backp = NULL;
  const PetscReal     *hist;
  const PetscInt      *rows;
  IS                   perm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  for (PetscInt t = 0; t < 4; t++) {
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[t]));
    PetscCall(PCSetType(pc[t], types[t]));
  }
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 4, 4, 1, NULL, 0, NULL, &A));

  /* PCSTRUCTILU */
  EXPECT(PCStructILUSetGrid(pc[0], 3, NULL));
  EXPECT(PCStructILUSetGrid(NULL, 3, n));
  EXPECT(PCStructILUGetGrid(NULL, &k, n));
  EXPECT(PCStructILUSetLevels(NULL, 1));
  EXPECT(PCStructILUSetLevels((PC)A, 1));
  EXPECT(PCStructILUGetDof(pc[0], ip));
  EXPECT(PCStructILUGetLevels(pc[0], ip));
  EXPECT(PCStructILUGetZeroPivot(pc[0], rp));
  EXPECT(PCStructILUGetType(pc[0], NULL));
  EXPECT(PCStructILUGetFactorPrecision(pc[0], NULL));
  EXPECT(PCStructILUGetThreads(pc[0], ip));
  EXPECT(PCStructILUGetDistributed(pc[0], bp));
  EXPECT(PCStructILUGetDistributedTile(pc[0], ip));
  EXPECT(PCStructILUGetSchedule(pc[0], NULL));
  EXPECT(PCStructILUGetBackend(pc[0], backp));
  EXPECT(PCStructILUGetDiagonalStorage(pc[0], bp));
  EXPECT(PCStructILUGetEisenstat(pc[0], bp));
  EXPECT(PCStructILUGetStencil(NULL, &k, &k, &rows));
  EXPECT(PCStructILUSetPerformanceModel(NULL, PC_STRUCTILU_MODEL_GPU_H100, 0, 0, 0));

  /* PCATSILU */
  EXPECT(PCATSILUSetType(NULL, PC_ATSILU_ILU));
  EXPECT(PCATSILUSetThreads((PC)A, 2));
  EXPECT(PCATSILUGetBackend(pc[1], backp));
  EXPECT(PCATSILUGetResidualHistory(NULL, &k, &hist));

  /* PCFGDD */
  EXPECT(PCFGDDSetSubdomainBox(pc[2], NULL));
  EXPECT(PCFGDDSetSubdomainBox(NULL, n));
  EXPECT(PCFGDDSetThreads(NULL, 2));
  EXPECT(PCFGDDGetBackend(pc[2], backp));
  EXPECT(PCFGDDGetSubdomains(NULL, &k, &rows, &perm));

  /* PCSPARSIFY */
  EXPECT(PCSparsifySetRatios(pc[3], 2, NULL));
  EXPECT(PCSparsifySetTau(NULL, 1.0));
  EXPECT(PCSparsifyGetRatios(NULL, &k, &hist));
  EXPECT(PCSparsifyGetRatio(pc[3], rp));
  EXPECT(PCSparsifyGetTau(pc[3], rp));
  EXPECT(PCSparsifyGetOmega(pc[3], rp));
  EXPECT(PCSparsifyGetSymmetric(pc[3], bp));
  EXPECT(PCSparsifyGetSubPC(pc[3], NULL));
  EXPECT(PCSparsifyGetSparsifiedMatrix(pc[3], NULL));
  EXPECT(PCSparsifyGetWavefronts(NULL, &k, &k));

  /* the package, MatSolverType gilu, MATSTENCILGPU */
  EXPECT(PetscGILUGetVersion(NULL, 32));
  EXPECT(PetscGILUGetBackend(NULL));
  EXPECT(PetscGILUBackendResolve(PETSC_COMM_WORLD, PETSCGILU_BACKEND_HOST, NULL));
  EXPECT(MatGILUSetTriSolveType(NULL, GILU_TRISOLVE_LEVELSET));
  EXPECT(MatGILUSetTriSolveThreads(NULL, 2));
  EXPECT(MatStencilGPUMultWithBackend(NULL, PETSCGILU_BACKEND_HOST, NULL, NULL));

  /* and the right arguments still work */
  PetscCall(PetscGILUGetBackend(&backend));
  PetscCall(PCStructILUGetLevels(pc[0], &k));

  PetscCall(MatDestroy(&A));
  for (PetscInt t = 0; t < 4; t++) PetscCall(PCDestroy(&pc[t]));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # every NULL or wrong argument refused, none crashing, in a debug PETSc as in an optimized one (Debian's)
   test:
     suffix: null_args
     args: -malloc_debug -malloc_dump
     output_file: output/empty.out

TEST*/
