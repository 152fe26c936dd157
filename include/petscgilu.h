/*
   petscgilu: parallel incomplete-LU preconditioners and triangular solves for PETSc.

   Programs that link libpetscgilu call PetscGILUInitializePackage() once after
   PetscInitialize(); unmodified programs load the plugin with
   -dll_append /path/to/libpetscgilu.so, which calls PetscDLLibraryRegister_petscgilu().
*/
#ifndef PETSCGILU_H
#define PETSCGILU_H

#include <petscpc.h>
#include <petscgiluversion.h>

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
#define MATSTENCILGPU "stencilgpu"
/* MATSOLVERSTRUCTILU - "structilu": the ILU/ICC factorization of PCSTRUCTILU for AIJ, BAIJ and MATSEQSTENCILGPU (src/pc/structilu/structilu-factor.c) */
#define MATSOLVERSTRUCTILU "structilu"
#define MATSEQSTENCILGPU   "seqstencilgpu"
#define MATMPISTENCILGPU   "mpistencilgpu"

/*MC
   MATSOLVERGILU - "gilu": PETSc's ILU(k) and ICC(k) factorizations of `MATSEQAIJ` and `MATSEQBAIJ` matrices (block sizes
   1 to 8), and ICC(k) of `MATSEQSBAIJ`, factored by gilu's threaded numeric factorization (PETSc's operations in PETSc's order: PETSc's factors) and
   applied by petscgilu's threaded triangular-solve engine (level-set, sync-free, chunked, the Block SpTRSV paper's blocked
   algorithms and its adaptive choice; host threads or CUDA kernels)

   Options Database Keys (with the factor's prefix, e.g. -sub_ under `PCBJACOBI` or `PCASM`):
+  -pc_factor_mat_solver_type gilu - use it with -pc_type ilu or icc
.  -mat_gilu_factor_numeric <gilu,petsc> - whose numeric factorization runs (default gilu; PETSc's is used anyway for
   block sizes 1 and 8 of `MATSEQBAIJ` and where a pivot needs PETSc's shift; -ksp_view says which ran and why)
.  -mat_gilu_factor_schedule <chunked,levelset> - how the threads share the rows of gilu's numeric factorization (default
   chunked: runs of consecutive rows ordered by the levels of the chunk graph; levelset: the level sets of L)
.  -mat_gilu_trisolve <auto,levelset,syncfree,colblock,rowblock,recblock,sequential,chunked> - the triangular-solve
   algorithm (default auto, see `MatGILUSetTriSolveType()`)
.  -mat_gilu_trisolve_threads <n> - host threads of the factorization and the solves (default OMP_NUM_THREADS if set,
   else the cores divided among the MPI processes of the node; see `MatGILUSetTriSolveThreads()`)
.  -mat_gilu_trisolve_block_depth <d> - colblock, rowblock: 2^d blocks; recblock: recursion depth (default 0: halve while
   a block keeps 16384 rows per thread, on the CUDA back-ends 92160 rows; at most 6)
.  -mat_gilu_trisolve_permuted <bool> - host level-set and sync-free keep the solution also in execution order (default true)
.  -mat_gilu_trisolve_copy <bool> - host level-set and sync-free of the whole factor stream a copy of it in execution order
   (default true; false: the factor stored once, slower solves)
.  -mat_gilu_trisolve_recblock_reorder <bool> - recblock reorders the rows of each triangle by its levels before it is
   split (the Block SpTRSV paper's improved layout; default true)
.  -mat_gilu_trisolve_chunked_static <bool> - chunked on several threads: each thread takes a fixed share of every chunk
   level (default true; false: the chunks are claimed from a shared counter)
.  -mat_gilu_trisolve_csc <bool> - CUDA back-ends: sync-free triangles stored and solved by columns (default false)
-  -mat_gilu_trisolve_backend <auto,host,cuda,cudaemu> - where the solves run (default: -gilu_backend, whose default is
   auto: cuda when built with CUDA and a device is found, else host)

   Level: beginner

   Notes:
   The symbolic factorization is PETSc's (levels of fill, orderings), so the iterations are PETSc's. ICC(k) reads the
   upper triangle only, as PETSc's (no symmetry check, no error): it is computed as ILU(k), with the symmetric ordering,
   of the matrix where it is exactly symmetric (pattern and values, to the bit), else of an AIJ or BAIJ image of the
   symmetric matrix of its upper triangle (made at the symbolic factorization, or at a numeric one whose values are no
   longer symmetric, refreshed at each numeric one).
   A `MATSEQSBAIJ` (ICC only, as in PETSc) is factored through an AIJ (block size 1) or BAIJ image of the whole symmetric
   matrix, made at the symbolic factorization and refreshed at each numeric one: PETSc's ICC(k) of the SBAIJ to round-off.
   ICC of `MATSEQBAIJ` and `MATSEQSBAIJ` with a block size above 1 is PETSc's block ICC (its factor factors and solves;
   -ksp_view says why) with levels of fill (PETSc's fill of its own), with a shift type other than none and inblocks, or
   with a diagonal block that is not symmetric (which PETSc's block ICC assumes).
   For `MATSEQBAIJ` and `MATSEQSBAIJ` with a block size above 8 `MatGetFactor()` returns PETSc's own factor (its solver
   type petsc, which -ksp_view shows; -info says why).
   The factor answers `MatSolve()`, `MatSolveTranspose()`, `MatSolveAdd()`, `MatMatSolve()` and `MatMatSolveTranspose()`
   (all columns of a `MATSEQDENSE` block in one call: `PCMatApply()`, `KSPMatSolve()`), and `MatForwardSolve()` and
   `MatBackwardSolve()` (-ksp_pc_side symmetric) split as PETSc splits its factors: ICC of block size 1 as PETSc's ICC
   (forward D^{-1/2} U^{-T} P b, backward P^T U^{-1} D^{-1/2} b: PETSc's iterations), ILU as L^{-1} R b and C^T U^{-1} b.
   The CUDA back-ends run every algorithm but sequential and chunked (the blocked ones as device segments: level-set or
   sync-free triangles, scalar- or vector-CSR squares). The setters act on the factor matrix (`PCFactorGetMatrix()` after
   `PCFactorSetUpMatSolverType()`); the options, read at the symbolic factorization, take precedence. doc/gilu.md is the manual.

   References:
.  * - Zhengyang Lu, Yuyao Niu and Weifeng Liu, Efficient Block Algorithms for Parallel Sparse Triangular Solve, Proceedings of
       the 49th International Conference on Parallel Processing (ICPP '20), ACM, 2020, doi:10.1145/3404397.3404413 (the Block
       SpTRSV paper: colblock, rowblock, recblock and the adaptive choice auto; `-citations` lists it when one of them runs)

.seealso: `PCILU`, `PCICC`, `PCFactorSetMatSolverType()`, `PCFactorGetMatrix()`, `MatGILUSetTriSolveType()`, `MatGILUSetTriSolveThreads()`
M*/
#define MATSOLVERGILU "gilu"
/* The triangular-solve algorithms of MATSOLVERGILU (and of the engine, include/petscgilu/private/sptrsv.h) */
typedef enum {
  GILU_TRISOLVE_AUTO,       /* the adaptive choice (the Block SpTRSV paper, Algorithm 7) */
  GILU_TRISOLVE_LEVELSET,   /* rows of one level in parallel, a barrier between levels */
  GILU_TRISOLVE_SYNCFREE,   /* every row waits on its own dependencies' completion flags */
  GILU_TRISOLVE_COLBLOCK,   /* column-block (the Block SpTRSV paper, Algorithm 4) */
  GILU_TRISOLVE_ROWBLOCK,   /* row-block (Algorithm 5) */
  GILU_TRISOLVE_RECBLOCK,   /* recursive block (Algorithm 6) */
  GILU_TRISOLVE_SEQUENTIAL, /* one thread, rows in elimination order (what auto picks for 1 thread or a near-serial factor) */
  GILU_TRISOLVE_CHUNKED     /* chunks of consecutive rows in elimination order; a chunk waits on the chunks it reads (host only) */
} GILUTriSolveType;
PETSC_EXTERN const char *const GILUTriSolveTypes[];
PETSC_EXTERN PetscErrorCode    MatGILUSetTriSolveType(Mat, GILUTriSolveType);
PETSC_EXTERN PetscErrorCode    MatGILUSetTriSolveThreads(Mat, PetscInt);

PETSC_EXTERN PetscErrorCode PetscGILUInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscGILUFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgilu(void);
PETSC_EXTERN PetscErrorCode PetscGILUGetVersion(char[], size_t);
PETSC_EXTERN PetscErrorCode PetscGILUGetVersionNumber(PetscInt *, PetscInt *, PetscInt *, PetscInt *);

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
PETSC_EXTERN PetscErrorCode    PCStructILUSetDistributed(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUGetDistributed(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCStructILUSetDistributedTile(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCStructILUGetDistributedTile(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCStructILUSetDiagonalStorage(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUGetDiagonalStorage(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCStructILUSetEisenstat(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUGetEisenstat(PC, PetscBool *);

/*E
   PCStructILUCUDAMapping - the grid-tier task mapping of `PCSTRUCTILU`'s device kernels

$  PC_STRUCTILU_CUDA_MAPPING_TILES - a thread block per tile (a run of points of one level), launched by level
$  PC_STRUCTILU_CUDA_MAPPING_LINES  - the StructILU paper's mapping: a thread per line of the transformed grid, 2D blocks of lines

   Level: advanced

.seealso: `PCStructILUSetCUDAMapping()`
E*/
typedef enum {
  PC_STRUCTILU_CUDA_MAPPING_TILES,
  PC_STRUCTILU_CUDA_MAPPING_LINES
} PCStructILUCUDAMapping;
PETSC_EXTERN const char *const PCStructILUCUDAMappings[];
/*E
   PCStructILUModelGPU - the GPU of the performance model that `PCSTRUCTILU`'s view prints for its device back-ends

   Level: advanced

.seealso: `PCStructILUSetPerformanceModel()`
E*/
typedef enum {
  PC_STRUCTILU_MODEL_GPU_H100,
  PC_STRUCTILU_MODEL_GPU_H200
} PCStructILUModelGPU;
PETSC_EXTERN const char *const PCStructILUModelGPUs[];
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDAMapping(PC, PCStructILUCUDAMapping);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDATilePoints(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDAPipeline(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDAFactor(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDAFactorPipeline(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDAMMA(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUSetCUDANoWait(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCStructILUSetPerformanceModel(PC, PCStructILUModelGPU, PetscReal, PetscReal, PetscReal);

/* ---------------------------------------------------------------------------------------------- PCFGDD */
/*J
   PCFGDD - "fgdd": fine-grained domain decomposition for triangular solves (the FGDD paper of Gondhalekar et al.): many small subdomains,
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

PETSC_EXTERN PetscErrorCode PCFGDDSetSubdomainRows(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCFGDDGetSubdomainRows(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCFGDDSetSubdomainBox(PC, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PCFGDDSetPartitioner(PC, PCFGDDPartitioner);
PETSC_EXTERN PetscErrorCode PCFGDDSetApplyType(PC, PCFGDDApplyType);
PETSC_EXTERN PetscErrorCode PCFGDDSetFused(PC, PetscBool);
/* PCFGDDSetBackend(), PCFGDDGetBackend(): after PetscGILUBackendType, at the end of the back-end section */
PETSC_EXTERN PetscErrorCode PCFGDDSetThreads(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCFGDDSetZeroPivot(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCFGDDGetSubdomains(PC, PetscInt *, const PetscInt *[], IS *);
/* ---------------------------------------------------------------------------------------------- end PCFGDD */

/* ---- PCATSILU: iterative ILU by alternating triangular solves, with ParILU/ParILUT beside it ---- */
/*J
   PCATSILU - "atsilu": ILU factors computed by sweeps of independent row and column solves (ATS-ILU, the paper of Tunnell and Boman)

   Level: intermediate

.seealso: `PCATSILUSetType()`, `PCATSILUSetAlgorithm()`, `PCATSILUSetSweeps()`, `PCATSILUSetFill()`
J*/
#define PCATSILU "atsilu"

/*E
   PCATSILUType - a fixed pattern (ILU(k), Algorithm 6) or a thresholded one (ILUT, Algorithm 7)

   Level: intermediate

.seealso: `PCATSILUSetType()`
E*/
typedef enum {
  PC_ATSILU_ILU,
  PC_ATSILU_ILUT
} PCATSILUType;
PETSC_EXTERN const char *const PCATSILUTypes[];

/*E
   PCATSILUAlgorithm - alternating triangular solves (ATS) or Chow-Patel fixed-point sweeps (ParILU, ParILUT)

   Level: intermediate

.seealso: `PCATSILUSetAlgorithm()`
E*/
typedef enum {
  PC_ATSILU_ALGORITHM_ATS,
  PC_ATSILU_ALGORITHM_PARILU
} PCATSILUAlgorithm;
PETSC_EXTERN const char *const PCATSILUAlgorithms[];

/*E
   PCATSILUPattern - the starting pattern S for levels k: the pattern of A^(k+1), PETSc's ILU(k) symbolic pattern, or the diagonal (A^0)

   Level: intermediate

.seealso: `PCATSILUSetPattern()`, `PCATSILUSetLevels()`
E*/
typedef enum {
  PC_ATSILU_PATTERN_POWER,
  PC_ATSILU_PATTERN_SYMBOLIC,
  PC_ATSILU_PATTERN_DIAGONAL
} PCATSILUPattern;
PETSC_EXTERN const char *const PCATSILUPatterns[];

/*E
   PCATSILUInitialGuess - the starting factors: triu(A) and tril(A) with a unit diagonal, or diag(A) and I

   Level: advanced

.seealso: `PCATSILUSetInitialGuess()`
E*/
typedef enum {
  PC_ATSILU_INITIAL_GUESS_TRIU,
  PC_ATSILU_INITIAL_GUESS_DIAGONAL
} PCATSILUInitialGuess;
PETSC_EXTERN const char *const PCATSILUInitialGuesses[];

/*E
   PCATSILUTriSolve - how the factors are applied: exact triangular solves or Jacobi sweeps

   Level: intermediate

.seealso: `PCATSILUSetTriSolve()`
E*/
typedef enum {
  PC_ATSILU_TRISOLVE_EXACT,
  PC_ATSILU_TRISOLVE_JACOBI
} PCATSILUTriSolve;
PETSC_EXTERN const char *const PCATSILUTriSolves[];

PETSC_EXTERN PetscErrorCode PCATSILUSetType(PC, PCATSILUType);
/* PCATSILUSetBackend(), PCATSILUGetBackend(): after PetscGILUBackendType, at the end of the back-end section */
PETSC_EXTERN PetscErrorCode PCATSILUSetAlgorithm(PC, PCATSILUAlgorithm);
PETSC_EXTERN PetscErrorCode PCATSILUSetLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUSetPattern(PC, PCATSILUPattern);
PETSC_EXTERN PetscErrorCode PCATSILUSetSweeps(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUSetTol(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCATSILUSetFill(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCATSILUSetThreads(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUSetTriSolve(PC, PCATSILUTriSolve, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUSetJacobiScaling(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCATSILUSetInitialGuess(PC, PCATSILUInitialGuess);
PETSC_EXTERN PetscErrorCode PCATSILUSetUseNew(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCATSILUSetUpdateResidual(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCATSILUSetResidualRHS(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCATSILUSetResidualLHS(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCATSILUSetSweepsBefore(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUSetSweepsAfter(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCATSILUGetResidualHistory(PC, PetscInt *, const PetscReal *[]);
/* ---- end PCATSILU ---- */

/* ---- back-ends (src/sys/backend.c): where the kernels run ---- */
/*E
   PetscGILUBackendType - where petscgilu's kernels run: auto (CUDA when the library was built with CUDA and a
   device is present, else host), host threads, a CUDA device, or cudaemu (the CUDA kernels run on the host by the
   emulation of the CUDA execution model; slow, for testing)

   Level: intermediate

.seealso: `PetscGILUGetBackend()`, `PCStructILUSetBackend()`
E*/
typedef enum {
  PETSCGILU_BACKEND_AUTO,
  PETSCGILU_BACKEND_HOST,
  PETSCGILU_BACKEND_CUDA,
  PETSCGILU_BACKEND_CUDAEMU
} PetscGILUBackendType;
PETSC_EXTERN const char *const PetscGILUBackendTypes[];
PETSC_EXTERN PetscErrorCode    PetscGILUGetBackend(PetscGILUBackendType *);
PETSC_EXTERN PetscErrorCode    PetscGILUBackendResolve(MPI_Comm, PetscGILUBackendType, PetscGILUBackendType *);
PETSC_EXTERN PetscErrorCode    PCStructILUSetBackend(PC, PetscGILUBackendType);
PETSC_EXTERN PetscErrorCode    PCStructILUGetBackend(PC, PetscGILUBackendType *);
PETSC_EXTERN PetscErrorCode    MatStencilGPUMultWithBackend(Mat, PetscGILUBackendType, Vec, Vec);
/* the back-ends of PCFGDD and PCATSILU (their sections come before PetscGILUBackendType) */
PETSC_EXTERN PetscErrorCode PCFGDDSetBackend(PC, PetscGILUBackendType);
PETSC_EXTERN PetscErrorCode PCFGDDGetBackend(PC, PetscGILUBackendType *);
PETSC_EXTERN PetscErrorCode PCATSILUSetBackend(PC, PetscGILUBackendType);
PETSC_EXTERN PetscErrorCode PCATSILUGetBackend(PC, PetscGILUBackendType *);

/* ---- PCSPARSIFY (SPCG, the paper of Ma et al.): src/pc/spcg/ ---- */
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
