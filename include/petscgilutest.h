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
#include <petscgilu.h>
#include <petscgiluconf.h>
#include <petscgilu/private/compat.h>

/* ------------------------------------------------------------------------------------------ test matrices
   src/test/testmat.c: named, deterministic generators standing in for the SuiteSparse classes the papers use
   (the list and the sizes: the man page of PetscGILUTestMatrixCreate()) */
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixList(PetscInt *, const char *const **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixGetInfo(const char[], PetscBool *, PetscInt *, const char **);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixCreate(MPI_Comm, const char[], PetscInt, Mat *, Vec *);
PETSC_EXTERN PetscErrorCode PetscGILUTestMatrixGetGrid(const char[], PetscInt, PetscBool *, PetscInt[3]);
/* || y - ref ||_inf / || ref ||_inf: how far a result is from its reference (infinite where either holds a NaN or an
   infinity: a NaN would compare as within every tolerance) */
PETSC_EXTERN PetscErrorCode PetscGILUTestVecRelDiff(Vec ref, Vec y, PetscReal *d);
/* the same for n values on the host: max |y - ref| / max |ref| (max |y - ref| when ref is zero; infinite as above) */
PETSC_EXTERN PetscReal PetscGILUTestArrayRelDiff(PetscInt n, const PetscScalar y[], const PetscScalar ref[]);

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
typedef struct _n_GILUCuSparse    *GILUCuSparse;
typedef struct GILUCuSparseArrays_ GILUCuSparseArrays;
/* GILUCuSparseBenchmark(): milliseconds on the device; [0] the smallest, [1] the median over the repetitions */
typedef struct {
  double analysis, factor[2], solveanalysis, lower[2], upper[2];
} GILUCuSparseTimes;
#define GILU_CUSPARSE_DECLARE(suffix) \
  PETSC_INTERN PetscErrorCode GILUCuSparseCreate##suffix(Mat, GILUCuSparse *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseCreateFromArrays##suffix(const GILUCuSparseArrays *, GILUCuSparse *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseBenchmark##suffix(GILUCuSparse, PetscInt, PetscInt, const PetscScalar *, PetscScalar *, GILUCuSparseTimes *, PetscInt *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseFactor##suffix(GILUCuSparse, PetscInt *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseSolve##suffix(GILUCuSparse, const PetscScalar *, PetscScalar *); \
  PETSC_INTERN PetscErrorCode GILUCuSparseSolveDevice##suffix(GILUCuSparse, const PetscScalar *, PetscScalar *); \
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
struct GILUCuSparseArrays_ {
  PetscBool    bsr;
  PetscInt     m, bs, nnzb;     /* block rows, block size, stored blocks (m * bs rows, nnzb * bs * bs entries) */
  int         *rowptr, *colind; /* m + 1, nnzb */
  PetscScalar *val;             /* nnzb * bs * bs */
};
PETSC_EXTERN PetscErrorCode GILUCuSparseArraysCreate(Mat, GILUCuSparseArrays *);
PETSC_EXTERN PetscErrorCode GILUCuSparseArraysDestroy(GILUCuSparseArrays *);

/* ------------------------------------------------------------------------------------------ kernel benchmark
   src/test/perf.c (host side) and src/test/cuda/perf.cu (the device's figures): one case of make gpu-perf (tests/ex20.c,
   bench/gpu/perf): a stencil matrix assembled directly in the stencil storage (values per offset per point, OpenMP
   threads), PCSTRUCTILU's device factorization and sweeps driven through its device API with kernel times (CUDA events
   around the launches), and on a CUDA device the cuSPARSE ILU(0) of the same matrix as CSR and BSR (arrays built from
   the stencil storage), with the same kernel-only timing. The solutions are compared with each other and, with check,
   with PETSc's ILU(0) on the host (small grids). */
typedef struct {
  char      stencil[16];     /* star7, star13, diamond13 (star7 and its ILU(1) fill), diamond25, box27 */
  PetscInt  n[3], dof;       /* grid points per direction, unknowns per point */
  PetscInt  mapping;         /* the device mapping: 0 tiles, 1 lines (-pc_structilu_cuda_mapping) */
  PetscInt  tilepoints;      /* points per tile (lines: lines per block); 0: the kernels' default */
  PetscBool mma;             /* the tensor-core factorization for DoF >= 4 (the PC's default: on) */
  PetscInt  freps, sreps;    /* timed factorizations and solves */
  PetscBool csr, bsr, check; /* cuSPARSE CSR, BSR (DoF > 1; a CUDA device only); compare with PETSc's ILU(0) */
  PetscInt  columns;         /* > 0: also a block of this many right-hand sides (the device's solvemultiple), timed sreps times */
} PetscGILUPerfCase;
typedef struct {
  PetscInt          ns, nlower, w[3], nlevels, ntiles, nstage, steps; /* the stencil and the device plan */
  double            unknowns;
  double            bytes[3];    /* compulsory bytes of the forward sweep, the backward sweep, the factorization (below) */
  double            csbytes[3];  /* the same for cuSPARSE's CSR (indices included) */
  double            bsrbytes[3]; /* and BSR */
  double            ms[3][2];    /* StructILU kernels, ms: forward, backward, factorization; [0] min, [1] median */
  double            modelus;     /* the performance model of one apply (both sweeps; -ksp_view's), us */
  char              modelgpu[8]; /* the model's GPU (h100, h200) */
  PetscBool         hascsr, hasbsr, usedmma;
  GILUCuSparseTimes csr, bsr;
  PetscReal         diffcsr, diffbsr, diffref; /* || x - x_other ||_inf / || x_other ||_inf; -1: not compared */
  PetscInt          zerorow;                   /* StructILU's zero pivot, -1 */
  double            hosts[4];                  /* host wall seconds: assembly, device plan + upload, CSR/BSR arrays, the reference */
  /* columns > 0: wall ms (launches to synchronization, the host's side of the API included) of one solve and of one block
     solve of all the columns, [0] min, [1] median; the columns of a group; whether every column of the block is bitwise
     the single solve's (all columns hold the same b) */
  double    solvewall[2], blockwall[2];
  PetscInt  group;
  PetscBool blockequal;
} PetscGILUPerfResult;
PETSC_EXTERN PetscErrorCode PetscGILUPerfRun(PetscGILUBackendType, const PetscGILUPerfCase *, PetscGILUPerfResult *);
/* the device: name, memory (GB), peak bandwidth from its memory clock and bus width, a measured device-to-device copy
   (GB/s, bytes read + written); the emulation: "cudaemu", zeros */
PETSC_EXTERN PetscErrorCode PetscGILUPerfDeviceInfo(PetscGILUBackendType, char[], size_t, double *, double *, double *);
/* t[0..k-1] sorted; out[0] the smallest, out[1] the median (src/test/perf.c; both benchmark parts report them) */
PETSC_INTERN void GILUPerfMinMedian(double[], PetscInt, double[2]);
/* device memory of the benchmark's back-end (cuda or cudaemu; src/test/perf.c): what 0 allocates *d (bytes), 1 frees it,
   2 copies h to *d, 3 copies *d to h; and a wait for the device */
PETSC_INTERN PetscErrorCode GILUPerfDeviceMem(PetscGILUBackendType, PetscInt, void **, void *, size_t);
PETSC_INTERN PetscErrorCode GILUPerfDeviceSync(PetscGILUBackendType);
/* the kernel timer of the general-sparse part (src/test/cuda/perf.cu): CUDA events on the default stream around a call */
typedef struct _n_GILUPerfTimer *GILUPerfTimer;
#define GILU_PERF_DECLARE(suffix) \
  PETSC_INTERN PetscErrorCode GILUPerfDeviceInfo##suffix(char[], size_t, double *, double *, double *); \
  PETSC_INTERN PetscErrorCode GILUPerfTimerCreate##suffix(GILUPerfTimer *); \
  PETSC_INTERN PetscErrorCode GILUPerfTimerStart##suffix(GILUPerfTimer); \
  PETSC_INTERN PetscErrorCode GILUPerfTimerStop##suffix(GILUPerfTimer, double *); \
  PETSC_INTERN PetscErrorCode GILUPerfTimerDestroy##suffix(GILUPerfTimer *);
#if defined(PETSCGILU_HAVE_CUDA)
GILU_PERF_DECLARE()
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
GILU_PERF_DECLARE(_cudaemu)
#endif

/* ------------------------------------------------------------------------------------------ general-sparse benchmark
   src/test/perf-sparse.c: the second part of make gpu-perf (tests/ex21.c, bench/gpu/perf's sparse-* cases), kernel
   times from CUDA events (GILUPerfTimer), the device's vectors already on the device:
   - engine: the L and U solves of MatSolverType gilu's ILU(0) factor by the triangular-solve engine (GILUTriSolveDevice())
     for each algorithm of the device (and auto) against cuSPARSE's ILU(0) solves of the same matrix, CSR (SpSV) and, for
     a matrix with blocks, BSR (bsrsv2); every engine solution compared with cuSPARSE's (a device) or PETSc's ILU(0) on the
     host (check); with columns, a block of right-hand sides in each launch (GILUTriSolveDeviceMultiple()) too;
   - fgdd: PCFGDD's device apply against the same cuSPARSE solves (the FGDD paper's comparison), compared with PCFGDD's
     host apply (check); with columns, a block of right-hand sides in each launch (PCFGDDApplyDevice()) too;
   - spcg: KSPCG's iterative phase (KSPSolve, the PC set up before) with PCSPARSIFY against PCILU, both with MatSolverType
     gilu's ILU(0) and ILU(K) on the back-end, on an SPD problem of bench/sparsify.py; compared with the same solves on the
     host back-end (check);
   - ats: PCATSILU's PCSetUp with the ATS sweeps against the ParILU sweeps on the back-end, the same sweeps, and the final
     ||A - LU||_F / ||A||_F each reached; compared with the host back-end's (check);
   - bcgs: KSPBCGS end to end (KSPSolve, the setup apart) preconditioned by PCFGDD on the back-end against the same KSP
     preconditioned by cuSPARSE's ILU(0) solves on the device (CSR, BSR; PETSc's host ILU(0) in the emulation), the same
     operator, right-hand side, rtol and iteration cap; iterations and the final true residual of each. */
#define PETSCGILU_PERF_SPARSE_MAXALG 8
typedef struct {
  char      kind[8];    /* engine, fgdd, spcg, ats, bcgs */
  char      matrix[32]; /* a name of PetscGILUTestMatrixCreate() (spcg: of PetscGILUPerfSPDProblemCreate()) */
  PetscInt  size;       /* its scale */
  PetscInt  nalg;       /* engine: the algorithms (GILUTriSolveType) */
  PetscInt  alg[PETSCGILU_PERF_SPARSE_MAXALG];
  PetscInt  sreps;    /* timed solves (applies) */
  PetscBool csr, bsr; /* the cuSPARSE baselines (a CUDA device) */
  PetscBool check;    /* compare with the host's reference */
  PetscInt  levels;   /* spcg: K of the ILU(K) pair (0: only the ILU(0) pair) */
  PetscInt  sweeps;   /* ats: the sweeps of both algorithms */
  PetscReal rtol;     /* bcgs: the relative tolerance of every solve (right preconditioning: of ||b - Ax|| / ||b||) */
  PetscInt  maxit;    /* bcgs: the iteration cap of every solve */
  PetscInt  columns;  /* engine, fgdd: also time a block of that many right-hand sides (GILUTriSolveDeviceMultiple(), PCFGDDApplyDevice()); 0: none */
} PetscGILUPerfSparseCase;
/* spcg: one KSPCG configuration: PCG-ILU(0), SPCG-ILU(0), PCG-ILU(K), SPCG-ILU(K); bcgs: one KSPBCGS preconditioner */
typedef struct {
  char      name[48];      /* bcgs: the preconditioner ("PCFGDD", "cuSPARSE ILU(0) CSR", ...) */
  PetscReal resid;         /* ||b - A x|| / ||b|| of the last solve, A the KSP's operator */
  PetscInt  its;           /* iterations of the last timed solve */
  PetscInt  reason;        /* its KSPConvergedReason */
  double    solve[2];      /* KSPSolve ms, [0] min [1] median */
  double    setup;         /* KSPSetUp (the PC's setup) ms */
  PetscReal ratio;         /* SPCG: the sparsification ratio taken, percent */
  PetscInt  wavefronts[2]; /* SPCG: w_A and w_Ahat */
  PetscInt  hostits;       /* check: the iterations on the host back-end (-1 not compared) */
  PetscReal diff;          /* check: || x - x_host ||_inf / || x_host ||_inf; -1 not compared */
} PetscGILUPerfKrylov;
/* ats: one algorithm's setup */
typedef struct {
  double    setup[2];  /* PCSetUp ms, [0] min [1] median */
  PetscInt  nsweeps;   /* sweeps done */
  PetscReal res0, res; /* ||A - LU||_F / ||A||_F on the pattern (Jacobi-scaled): the initial guess's, the last sweep's */
  PetscReal hostres;   /* check: the host back-end's final residual (-1 not compared) */
} PetscGILUPerfATS;
typedef struct {
  PetscInt  ran;                   /* the algorithm that ran (auto resolved); -1 auto chose differently for L and U, -2 not run on the device (host only or refused: not timed) */
  double    lower[2], upper[2];    /* ms, [0] min [1] median (fgdd: the apply in lower, upper zero) */
  double    bytes[2];              /* compulsory bytes of the L and the U solve (fgdd: of the apply in [0]) */
  PetscInt  launches[2], syncs[2]; /* the engine's last device solve of L and U (GILUTriGetDeviceSolveCounts()) */
  PetscInt  levels[2];             /* L's and U's level sets */
  PetscReal diff;                  /* || x - x_ref ||_inf / || x_ref ||_inf; -1 not compared */
  double    block[2];              /* engine, fgdd, columns > 0: ms of L + U (the apply) on the block, [0] min [1] median */
  PetscReal blockdiff;             /* engine, fgdd, columns > 0: the largest relative difference of a column from x (0: bitwise); -1 not run */
} PetscGILUPerfSparseMethod;
typedef struct {
  double                    rows, nnz;                       /* of the matrix */
  PetscInt                  bs;                              /* its block size */
  PetscInt                  nsub;                            /* fgdd, bcgs: PCFGDD's subdomains */
  PetscInt                  subrows;                         /* fgdd, bcgs: the target rows per subdomain PCFGDD used */
  PetscBool                 geometric;                       /* fgdd, bcgs: PCFGDD's geometric partitioner (a DMDA of the grid), else graph */
  PetscGILUPerfSparseMethod m[PETSCGILU_PERF_SPARSE_MAXALG]; /* engine: one per algorithm; fgdd: m[0] */
  PetscBool                 hascsr, hasbsr;
  GILUCuSparseTimes         csr, bsr;
  double                    csrbytes[2], bsrbytes[2]; /* compulsory bytes of cuSPARSE's L and U solves */
  const char               *ref;                      /* what the differences compare with: "cuSPARSE CSR", "PETSc ILU(0)", "PCFGDD host", "none" */
  double                    hosts[3];                 /* host wall seconds: matrix, factorization / PC setup, cuSPARSE arrays + analysis */
  PetscGILUPerfKrylov       k[4];                     /* spcg: PCG-ILU(0), SPCG-ILU(0), PCG-ILU(K), SPCG-ILU(K); bcgs: PCFGDD, then the references */
  PetscInt                  nk;                       /* bcgs: the configurations in k[] */
  PetscGILUPerfATS          ats[2];                   /* ats: ATS, ParILU */
} PetscGILUPerfSparseResult;
PETSC_EXTERN PetscErrorCode PetscGILUPerfSparseRun(PetscGILUBackendType, const PetscGILUPerfSparseCase *, PetscGILUPerfSparseResult *);
PETSC_EXTERN PetscErrorCode PetscGILUPerfSPDProblemCreate(const char[], PetscInt, Mat *, Vec *);

#endif
