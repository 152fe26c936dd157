/*
   petscgilutest.h: the test library of petscgilu, build/lib/libpetscgilutest.so (sources in src/test/).

   What the regression tests (tests/) and the benchmarks need and a user of the preconditioners does not: the
   test matrices, the self-tests of the CUDA emulation (deliberately broken kernels included) and the cuSPARSE
   baselines. It is built beside lib/libpetscgilu.so and linked by the programs of tests/ (gmakefile.test); it is
   never installed (make install leaves it and this header out) and never loaded by -dll_append. It links
   libpetscgilu: its emulated kernels run on the library's emulation runtime (cudaemu.h).
*/
#ifndef PETSCGILUTEST_H
#define PETSCGILUTEST_H

#include <petscmat.h>
#include <petscgiluconf.h>
#include <petscgilu/private/compat.h>

/* ------------------------------------------------------------------------------------------ test matrices
   src/test/testmat.c: named, deterministic generators standing in for the SuiteSparse classes the papers use
   (the list and the sizes: the man page of PetscGILUTestMatrixCreate()) */
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixList(PetscInt *, const char *const **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixGetInfo(const char[], PetscBool *, PetscInt *, const char **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixCreate(MPI_Comm, const char[], PetscInt, Mat *, Vec *);
/* || y - ref ||_inf / || ref ||_inf: how far a result is from its reference */
PETSC_EXTERN PetscErrorCode PetscGILUTestVecRelDiff(Vec ref, Vec y, PetscReal *d);

/* ------------------------------------------------------------------------------------------ emulation self-tests
   PetscGILUCUDASelfTest_cudaemu - runs one self-test of the CUDA emulation (src/test/cudaemu/selftest.cu; used by
   tests/ex4.c)

   Input Parameter:
.  name - the test: "reduce_barrier", "reduce_nobarrier", "warp_shfl", "warp_vote", "spin_intrablock",
          "interblock_chain", "mma", "dynamic_shared", "static_shared", "shared_optin", "atomics",
          "deadlock_flag", "deadlock_barrier", "divergent_warp", "blockidx_order", "signal_nofence", "barrier_sites"

   Output Parameter:
.  ok - PETSC_TRUE when the emulation behaved as expected (for the broken kernels: the error was reported)

   Notes:
   An unknown name is an error. PetscGILUCUDASelfTest() (only in builds with CUDA) runs the same kernels on a
   GPU; there the tests that need the emulation's checks (missing barrier, deadlocks) report ok without running.
*/
PETSC_EXTERN PetscErrorCode PetscGILUCUDASelfTest_cudaemu(const char[], PetscBool *);
#if defined(PETSCGILU_HAVE_CUDA)
PETSC_EXTERN PetscErrorCode PetscGILUCUDASelfTest(const char[], PetscBool *);
#endif

/* ------------------------------------------------------------------------------------------ cuSPARSE baselines
   src/test/cusparse.c (host side, every build) and src/test/cuda/cusparse.cu (device side): ILU(0) of a SEQAIJ
   (CSR: csrilu02 + SpSV) or SEQBAIJ (BSR: bsrilu02 + bsrsv2) matrix on the device and the two triangular solves,
   x = (LU)^{-1} b with host vectors (copied in and out); the GPU tests and benchmarks compare against them in the
   same run. Only with a real device: elsewhere, and in the emulation (cudaemu cannot run the cuSPARSE library),
   an error says so. */
typedef struct _n_PetscGILUCuSparseILU *PetscGILUCuSparseILU;
PETSC_EXTERN PetscErrorCode             PetscGILUCuSparseILUCreate(Mat, PetscGILUCuSparseILU *, PetscInt *);
PETSC_EXTERN PetscErrorCode             PetscGILUCuSparseILUApply(PetscGILUCuSparseILU, Vec, Vec);
PETSC_EXTERN PetscErrorCode             PetscGILUCuSparseILUDestroy(PetscGILUCuSparseILU *);

/* The device side, built twice as every .cu (gilucuda.h): the plain names with nvcc, _cudaemu in the emulation,
   where every entry point returns PETSC_ERR_SUP "not available in the emulation". */
typedef struct _n_GILUCuSparse *GILUCuSparse;
#define GILU_CUSPARSE_DECLARE(suffix) \
  PETSC_INTERN PetscErrorCode GILUCuSparseCreate##suffix(Mat, GILUCuSparse *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseFactor##suffix(GILUCuSparse, PetscInt *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseSolve##suffix(GILUCuSparse, const PetscScalar *, PetscScalar *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseDestroy##suffix(GILUCuSparse *);
#if defined(PETSCGILU_HAVE_CUDA)
GILU_CUSPARSE_DECLARE()
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
GILU_CUSPARSE_DECLARE(_cudaemu)
#endif

/* The arrays GILUCuSparseCreate() hands to cuSPARSE, prepared on the host (src/test/cusparse.c, every build, no
   device): CSR of a SEQAIJ matrix (bs 1; the full graph, never the inode-compressed one) or BSR of a SEQBAIJ
   matrix (column-major bs x bs blocks). Exported: tests/ex12.c checks them entry by entry. */
typedef struct {
  PetscBool    bsr;
  PetscInt     m, bs, nnzb;     /* block rows, block size, stored blocks (m * bs rows, nnzb * bs * bs entries) */
  int         *rowptr, *colind; /* m + 1, nnzb */
  PetscScalar *val;             /* nnzb * bs * bs */
} GILUCuSparseArrays;
PETSC_EXTERN PetscErrorCode GILUCuSparseArraysCreate(Mat, GILUCuSparseArrays *);
PETSC_EXTERN PetscErrorCode GILUCuSparseArraysDestroy(GILUCuSparseArrays *);

#endif
