/*
   The triangular-solve engine (the Block SpTRSV paper of Lu, Niu and Liu) for general sparse factors: the private interface
   shared by MatSolverType "gilu", PCATSILU, PCSPARSIFY and PCFGDD (src/mat/sptrsv/).

   A GILUTri holds one triangular factor, lower or upper, in CSR (bs = 1) or BSR (bs x bs
   blocks, row-major inside a block), the analysis of its dependencies (level sets) and the
   data layout of the algorithm chosen to solve with it. GILUTriSetMatrix() copies what it is
   given (the caller's arrays may be freed or changed afterwards); GILUTriSetMatrixWithArrays()
   uses the caller's arrays where they are.

   Usage:
     GILUTriCreate(&L);
     GILUTriSetType(L, GILU_TRISOLVE_AUTO);              (or GILUTriSetFromOptions)
     GILUTriSetMatrix(L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, n, bs, i, j, a, NULL);
     GILUTriSolve(L, b, x);                              (x = L^{-1} b, any number of times)
     GILUTriSetMatrix(L, ...same pattern, new values...) (analysis kept: only values copied)
     GILUTriDestroy(&L);
*/
/* (PETSC_EXTERN, not PETSC_INTERN: the engine's tests, tests/ex7.c, and bench drivers call it from outside the library) */
#ifndef PETSCGILU_SPTRSV_H
#define PETSCGILU_SPTRSV_H

#include <petscmat.h>
#include <petscgilu/private/compat.h>
#include <petscgilu.h> /* PetscGILUBackendType */

typedef enum {
  GILU_TRI_LOWER, /* entries in columns <= row only */
  GILU_TRI_UPPER  /* entries in columns >= row only */
} GILUTriUplo;

typedef enum {
  GILU_TRI_DIAG_UNIT,   /* unit diagonal (blocks: identity), not stored; a stored diagonal entry is an error */
  GILU_TRI_DIAG_STORED, /* each row stores its diagonal (block) as its last (lower) or first (upper) entry */
  GILU_TRI_DIAG_INVERSE /* the inverted diagonal blocks are given apart (dinv, n blocks): x_i = dinv_i (b_i - sum) */
} GILUTriDiag;

/* GILUTriSolveType, GILUTriSolveTypes[]: in petscgilu.h (MatGILUSetTriSolveType()) */

typedef struct _n_GILUTri *GILUTri;

PETSC_EXTERN PetscErrorCode GILUTriCreate(GILUTri *);
PETSC_EXTERN PetscErrorCode GILUTriDestroy(GILUTri *);
/* The algorithm (default GILU_TRISOLVE_AUTO) and the host threads (default: OMP_NUM_THREADS; 1 = sequential) */
PETSC_EXTERN PetscErrorCode GILUTriSetType(GILUTri, GILUTriSolveType);
PETSC_EXTERN PetscErrorCode GILUTriGetType(GILUTri, GILUTriSolveType *); /* the algorithm that runs (auto until the first solve plans it) */
PETSC_EXTERN PetscErrorCode GILUTriSetThreads(GILUTri, PetscInt);
/* The algorithm asked for (GILUTriGetType(): the one that runs) and the host threads, as set or read from the options */
PETSC_EXTERN PetscErrorCode GILUTriGetSettings(GILUTri, GILUTriSolveType *, PetscInt *);
/* Reads -<prefix>mat_gilu_trisolve, _threads, _block_depth, _permuted, _copy, _recblock_reorder, _chunked_static, _csc and
   _backend from the options database (in a PetscOptionsBegin()/End() block: -help lists them with their current values) */
PETSC_EXTERN PetscErrorCode GILUTriSetFromOptions(GILUTri, PetscOptions, const char[]);
/*
  GILUTriSetMatrix(tri, uplo, diag, n, bs, i, j, a, dinv): n block rows of bs x bs blocks; i[n+1], j[i[n]]
  block-column indices sorted ascending within each row; a[i[n]*bs*bs] the blocks; dinv[n*bs*bs] the inverted
  diagonal blocks (GILU_TRI_DIAG_INVERSE only, else NULL). Calling it again with the same uplo, diag, n, bs,
  i and j keeps the analysis and copies only the values.
*/
PETSC_EXTERN PetscErrorCode GILUTriSetMatrix(GILUTri, GILUTriUplo, GILUTriDiag, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const MatScalar[], const MatScalar[]);
/*
  GILUTriSetMatrixWithArrays(tri, uplo, diag, n, bs, i, j, a, dinv, patternid): as GILUTriSetMatrix(), but the engine
  works on the caller's arrays instead of copies (no copy, no second check of a pattern it has seen): they must stay
  allocated until the triangle is destroyed or given other arrays. After the values in a[] (dinv[]) changed, call it
  again: the analysis is kept while i, j and patternid are the same; change patternid whenever the pattern in i[],
  j[] changed (the arrays are not compared: they may be the same memory).
*/
PETSC_EXTERN PetscErrorCode GILUTriSetMatrixWithArrays(GILUTri, GILUTriUplo, GILUTriDiag, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const MatScalar[], const MatScalar[], PetscInt);
/*
  GILUTriSetMatrixTranspose(tri, uplo, diag, n, bs, i, j, a, dinv): tri := T^T for the triangle T that GILUTriSetMatrix()
  would be given with the same arguments (uplo is T's: tri is the other triangle; each block and each dinv block
  transposed; a stored diagonal stays the last (lower) or first (upper) entry of its row). Copies, as GILUTriSetMatrix().
  With T's factors of A = L U: solving U^T then L^T is A^{-T} (MatSolveTranspose(), PCApplyTranspose()).
*/
PETSC_EXTERN PetscErrorCode GILUTriSetMatrixTranspose(GILUTri, GILUTriUplo, GILUTriDiag, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const MatScalar[], const MatScalar[]);
/* x = T^{-1} b; x may be b (in place) */
PETSC_EXTERN PetscErrorCode GILUTriSolve(GILUTri, const PetscScalar[], PetscScalar[]);
/*
  GILUTriSolveMultiple(tri, m, b, x): x = T^{-1} b for m (1 .. GILU_TRI_MAX_RHS) right-hand sides interleaved: entry p
  of block row r of right-hand side j is b[(r bs + p) m + j] (x may be b). The host back-end only (a device plan: an
  error); each column gets the bits GILUTriSolve() gives it, and the triangle's values are read once for all m (the
  solve is bound by their bytes: MatMatSolve() of MatSolverType gilu, PCMatApply()).
*/
#define GILU_TRI_MAX_RHS 8
PETSC_EXTERN PetscErrorCode GILUTriSolveMultiple(GILUTri, PetscInt, const PetscScalar[], PetscScalar[]);
/*
  GILUTriColumnsToMultiple(tri, m, perm, B, ld, W): W (interleaved, as above) from m columns of B (leading dimension
  ld), block row i of W from block row perm[i] of B (perm NULL: the identity); GILUTriMultipleToColumns(tri, m, perm,
  W, X, ld): the reverse, W's block row i to X's block row perm[i]. On the triangle's host threads (its size: tri's).
*/
PETSC_EXTERN PetscErrorCode GILUTriColumnsToMultiple(GILUTri, PetscInt, const PetscInt[], const PetscScalar[], PetscInt, PetscScalar[]);
PETSC_EXTERN PetscErrorCode GILUTriMultipleToColumns(GILUTri, PetscInt, const PetscInt[], const PetscScalar[], PetscScalar[], PetscInt);
/* Levels (wavefronts) of the analysis and the largest level's number of rows */
PETSC_EXTERN PetscErrorCode GILUTriGetLevels(GILUTri, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode GILUTriView(GILUTri, PetscViewer);

/* what the MatSolverType "gilu" (src/mat/sptrsv/gilufactor.c) and the tests use besides the solves above */
/* x = T^{-1} b by the sequential reference algorithm, whatever the type (the oracle of the tests) */
PETSC_EXTERN PetscErrorCode GILUTriSolveReference(GILUTri, const PetscScalar[], PetscScalar[]);
/* Recursion depth of recblock (2^depth triangles) and 2^depth blocks of colblock/rowblock; 0 (default): by the rule
   of sptrsv-plan.c (host: halve while the blocks keep 16384 rows per thread; CUDA back-ends: while they keep 92160
   rows, the paper's rule; at most 6); also -mat_gilu_trisolve_block_depth */
PETSC_EXTERN PetscErrorCode GILUTriSetBlockDepth(GILUTri, PetscInt);
/*
  Recursive block with the improved layout of the Block SpTRSV paper, Section 3.3 (Figure 3): before each split, the rows of the triangle
  being split are reordered by its own level sets (levels counted inside it only; rows sorted by (level, position), a
  topological order, so the reordered triangle is still triangular), so more entries land in the squares (SpMV) and
  fewer in the triangles. The order is built once per pattern with the plan; rows and columns keep the caller's
  numbering in the segments, so the solve reads b and writes x as before (host and CUDA back-ends alike). Results equal
  the reference to round-off; 1 and 2 threads give the same bits. Default PETSC_TRUE (measured: see README); also
  -mat_gilu_trisolve_recblock_reorder <bool>
*/
PETSC_EXTERN PetscErrorCode GILUTriSetRecBlockReorder(GILUTri, PetscBool);
/*
  Where GILUTriSolve() runs (the back-end layer, src/sys/backend.c): PETSCGILU_BACKEND_HOST (the OpenMP kernels),
  PETSCGILU_BACKEND_CUDAEMU (the CUDA kernels of src/mat/sptrsv/cuda/sptrsv.cu run by the host emulation),
  PETSCGILU_BACKEND_CUDA (the same kernels on a GPU) or PETSCGILU_BACKEND_AUTO (cuda when the library was built with
  CUDA and a device is found and the algorithm is not sequential or chunked, else host). The default is the global
  -gilu_backend (read by GILUTriCreate()); also -mat_gilu_trisolve_backend auto|host|cuda|cudaemu. cuda and cudaemu
  are checked by PetscGILUBackendResolve() here (cuda without a CUDA build or a device: an error that says so). The
  CUDA back-ends run levelset, syncfree, colblock, rowblock and recblock (auto picks levelset or syncfree by the Block SpTRSV paper's
  GPU rule): the plan's segments on the device, triangles by the level-set or sync-free kernel, squares by scalar-CSR
  or vector-CSR (chosen per segment by Algorithm 7); sequential and chunked are host-only (asked for on cuda or
  cudaemu: an error; under auto they run on the host). GILUTriSolve() takes host arrays, copied to the device once
  and back once per solve (GILUTriSolveDevice() below: device arrays). GILUTriGetBackend(): the resolved one.
*/
PETSC_EXTERN PetscErrorCode GILUTriSetBackend(GILUTri, PetscGILUBackendType);
PETSC_EXTERN PetscErrorCode GILUTriGetBackend(GILUTri, PetscGILUBackendType *);
/*
  Solves on device arrays, for callers that keep their vectors on the device (MatSolve() of MatSolverType gilu, PCATSILU's
  apply: src/sys/device-vec.c gives them CUDA vectors' own arrays, or device buffers with one logged copy each way):
  GILUTriGetSolveBackend() makes the plan (as the first GILUTriSolve() would) and says where its solves run;
  GILUTriSolveDevice(tri, b, x): x = T^{-1} b with b, x device arrays (n*bs values) of that back-end, cuda or cudaemu
  (x may be b), nothing copied to or from the host. GILUTriSolveDevicePermuted(tri, b, bperm, x, out, operm): the same
  with b gathered (x_i from b[bperm[i]]; then x is not b) and x also scattered (out[operm[i]] = x_i; out not x; out NULL:
  not), by blocks of bs values, bperm and operm device arrays of n indices or NULL (identity): the plan's kernels read
  and write them where they read b and store x (MatSolve()'s orderings without passes of their own where the plan is
  one triangle). GILUTriSolveDeviceMultiple(tri, m, b, ldb, bperm, x, ldx, out, ldo, operm): the same for m columns
  of each array, ldb, ldx, ldo values apart (at least n*bs; x may be b with ldx = ldb), all of them in each launch of
  the solve, each column bitwise its solve alone (MatMatSolve()). All three queue their kernels on the device's default
  stream and return without waiting, clearing or synchronizing: the results are there for later work on that stream,
  or for the host after a copy from the device (which waits for it), never before.
*/
PETSC_EXTERN PetscErrorCode GILUTriGetSolveBackend(GILUTri, PetscGILUBackendType *);
PETSC_EXTERN PetscErrorCode GILUTriSolveDevice(GILUTri, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode GILUTriSolveDevicePermuted(GILUTri, const PetscScalar[], const PetscInt[], PetscScalar[], PetscScalar[], const PetscInt[]);
PETSC_EXTERN PetscErrorCode GILUTriSolveDeviceMultiple(GILUTri, PetscInt, const PetscScalar[], PetscInt, const PetscInt[], PetscScalar[], PetscInt, PetscScalar[], PetscInt, const PetscInt[]);
/*
  Whole-matrix level-set and sync-free on the host (default PETSC_TRUE): keep the solution also in execution order, so
  a row reads its dependencies from the previous levels' contiguous stretch instead of all over x (the same bits);
  also -mat_gilu_trisolve_permuted <bool>
*/
PETSC_EXTERN PetscErrorCode GILUTriSetPermutedLayout(GILUTri, PetscBool);
/*
  Whole-matrix level-set and sync-free on the host (default PETSC_TRUE): keep a copy of the factor's rows in execution
  order (level by level), streamed by the solve; PETSC_FALSE: keep only the row order and read each row where the caller's
  arrays hold it (the factor stored once: ILU(0) of ksp ex45 100^3 1.40x PETSc's memory instead of 2.18x, but the rows of
  a level lie apart there: solves 3.6x slower on 7-point 80^3). The same bits either way; the sequential kernel and the
  CUDA back-ends always read the caller's arrays (no cost there). Also -mat_gilu_trisolve_copy <bool>
*/
PETSC_EXTERN PetscErrorCode GILUTriSetExecutionOrderCopy(GILUTri, PetscBool);
/*
  Chunked on several threads (default PETSC_TRUE): each thread takes a fixed share of every chunk level (the same
  stretch of the claim order, so mostly the chunks that read its own earlier chunks: the solution it reads stays in its
  own cache) and waits on the flags of the chunks it reads; PETSC_FALSE: the threads claim chunks from a shared counter
  (a thread the system deschedules then holds up less, at the price of reading the other core's results). The same bits
  either way; also -mat_gilu_trisolve_chunked_static <bool>
*/
PETSC_EXTERN PetscErrorCode GILUTriSetChunkedStatic(GILUTri, PetscBool);
/*
  CUDA back-ends (cuda, cudaemu): the sync-free triangles (the whole factor's, or the blocked algorithms') stored by
  columns (CSC; the Block SpTRSV paper's improved recursive layout keeps its triangles so) and solved by the column-oriented
  sync-free kernel (a thread per column: once the rows above have updated x_c it finishes x_c and updates the rows of
  its column by atomic adds, so the order of those adds varies: round-off only). Default PETSC_FALSE (the row-wise
  kernel, which gives the host's bits); no GPU here measured which is faster. Also -mat_gilu_trisolve_csc <bool>
*/
PETSC_EXTERN PetscErrorCode GILUTriSetTriangleCSC(GILUTri, PetscBool);
/* The engine's L and U of a factor of MatSolverType gilu (borrowed references; NULL before the numeric factorization) */
PETSC_EXTERN PetscErrorCode MatGILUFactorGetTri(Mat, GILUTri *, GILUTri *);
/*
  The factors of MatSolverType gilu as the engine gets them (borrowed; for the tests): nb block rows of bs x bs blocks
  (row-major), L unit lower (Li, Lj, La), U strictly upper (Ui, Uj, Ua) and its inverted diagonal blocks Ud, in the
  permuted numbering; rangilu: the last numeric factorization was gilu's own (else PETSc's, values read from its storage)
*/
PETSC_EXTERN PetscErrorCode MatGILUFactorGetFactors(Mat, PetscInt *, PetscInt *, const PetscInt **, const PetscInt **, const MatScalar **, const PetscInt **, const PetscInt **, const MatScalar **, const MatScalar **, PetscBool *);
/*
  The values of a factor of MatSolverType gilu given instead of factored (MatGetFactor(A, MATSOLVERGILU, MAT_FACTOR_ILU),
  no symbolic factorization): nb block rows of bs x bs row-major blocks, L strictly lower (Li, Lj, La: one PetscMalloc3()
  allocation), U upper with its diagonal block first in each row (Ui, Uj, Ua: another), natural ordering; maker names
  their origin for the view. Taken, not copied (the pointers are set to NULL): the factor keeps them as its storage (U's
  diagonal blocks moved out, its rows closed up in place), or, where the pattern is the last one's, copies the values
  into its own and frees them (the engine's analysis kept). A singular diagonal block: MAT_FACTOR_NUMERIC_ZEROPIVOT
*/
PETSC_INTERN PetscErrorCode MatGILUFactorTakeValues(Mat, PetscInt, PetscInt, PetscInt *[], PetscInt *[], MatScalar *[], PetscInt *[], PetscInt *[], MatScalar *[], const char[]);
/*
  MatGILUFactorSetDropped(F, A, n, pos): the ILU factor F of MatSolverType gilu (before its symbolic factorization) is
  to be of A less n of its stored entries, at positions pos[] (increasing) of A's rows as MatGetRowIJ() numbers them,
  none on the diagonal: the factorization of A - S without assembling it (PCSPARSIFY's Â). Only gilu's own numeric ILU(0)
  of a MATSEQAIJ in the natural ordering, without a shift that restarts it, does so (it reads A's rows and keeps the
  pattern of A - S, so the factor is stored once); the symbolic factorization refuses the rest. Copied; n = 0 clears.
*/
PETSC_INTERN PetscErrorCode MatGILUFactorSetDropped(Mat, Mat, PetscInt, const PetscInt[]);
/* The plan in numbers: triangles and squares, and triangles by kernel (parallel, levelset, syncfree, sequential) */
PETSC_EXTERN PetscErrorCode GILUTriGetPlanInfo(GILUTri, PetscInt *, PetscInt *, PetscInt[4]);
/* The squares by SpMV kernel: scalar (host: rows split among the threads; CUDA: scalar-CSR, a thread per row) and vector-CSR
   (CUDA back-ends only: a group of lanes of a warp per row, for squares whose stored rows average more than 12 blocks) */
PETSC_EXTERN PetscErrorCode GILUTriGetSquareKernels(GILUTri, PetscInt *, PetscInt *);
/* The last solve on a device back-end (cuda, cudaemu): its kernel launches, its device synchronizations, its memsets, its
   copies (GILUTriSolve(): b in and x out; GILUTriSolveDevice(): x = b where no kernel reads b itself) and the level-set
   triangles among its segments (one launch each); all 0 before the first device solve and on the host back-end. A
   solve synchronizes nowhere and clears nothing (0 and 0) unless the previous one failed */
PETSC_EXTERN PetscErrorCode GILUTriGetDeviceSolveCounts(GILUTri, PetscInt *, PetscInt *, PetscInt *, PetscInt *, PetscInt *);

#endif
