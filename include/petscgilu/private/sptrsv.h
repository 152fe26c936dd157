/*
   The triangular-solve engine (seed 004) for general sparse factors: the private interface
   shared by MatSolverType "gilu", PCATSILU, PCSPARSIFY and PCFGDD (src/mat/sptrsv/).

   A GILUTri holds one triangular factor, lower or upper, in CSR (bs = 1) or BSR (bs x bs
   blocks, row-major inside a block), the analysis of its dependencies (level sets) and the
   data layout of the algorithm chosen to solve with it. The engine copies what it is given;
   the caller's arrays may be freed or changed afterwards.

   Usage:
     GILUTriCreate(&L);
     GILUTriSetType(L, GILU_TRISOLVE_AUTO);              (or GILUTriSetFromOptions)
     GILUTriSetMatrix(L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, n, bs, i, j, a, NULL);
     GILUTriSolve(L, b, x);                              (x = L^{-1} b, any number of times)
     GILUTriSetMatrix(L, ...same pattern, new values...) (analysis kept: only values copied)
     GILUTriDestroy(&L);
*/
#ifndef PETSCGILU_SPTRSV_H
#define PETSCGILU_SPTRSV_H

#include <petscmat.h>
#include <petscgilu/private/compat.h>

typedef enum {
  GILU_TRI_LOWER, /* entries in columns <= row only */
  GILU_TRI_UPPER  /* entries in columns >= row only */
} GILUTriUplo;

typedef enum {
  GILU_TRI_DIAG_UNIT,   /* unit diagonal (blocks: identity), not stored; a stored diagonal entry is an error */
  GILU_TRI_DIAG_STORED, /* each row stores its diagonal (block) as its last (lower) or first (upper) entry */
  GILU_TRI_DIAG_INVERSE /* the inverted diagonal blocks are given apart (dinv, n blocks): x_i = dinv_i (b_i - sum) */
} GILUTriDiag;

typedef enum {
  GILU_TRISOLVE_AUTO,     /* the adaptive choice (seed 004 Algorithm 7) */
  GILU_TRISOLVE_LEVELSET, /* rows of one level in parallel, a barrier between levels */
  GILU_TRISOLVE_SYNCFREE, /* every row waits on its own dependencies' completion flags */
  GILU_TRISOLVE_COLBLOCK, /* column-block (seed 004 Algorithm 4) */
  GILU_TRISOLVE_ROWBLOCK, /* row-block (Algorithm 5) */
  GILU_TRISOLVE_RECBLOCK  /* recursive block (Algorithm 6) */
} GILUTriSolveType;
PETSC_INTERN const char *const GILUTriSolveTypes[]; /* PETSc enum-name list: "auto", "levelset", ... */

typedef struct _n_GILUTri *GILUTri;

PETSC_INTERN PetscErrorCode GILUTriCreate(GILUTri *);
PETSC_INTERN PetscErrorCode GILUTriDestroy(GILUTri *);
/* The algorithm (default GILU_TRISOLVE_AUTO) and the host threads (default: OMP_NUM_THREADS; 1 = sequential) */
PETSC_INTERN PetscErrorCode GILUTriSetType(GILUTri, GILUTriSolveType);
PETSC_INTERN PetscErrorCode GILUTriGetType(GILUTri, GILUTriSolveType *); /* the algorithm that runs (auto resolved after SetMatrix) */
PETSC_INTERN PetscErrorCode GILUTriSetThreads(GILUTri, PetscInt);
/* Reads -<prefix>mat_gilu_trisolve and -<prefix>mat_gilu_trisolve_threads from the options database */
PETSC_INTERN PetscErrorCode GILUTriSetFromOptions(GILUTri, PetscOptions, const char[]);
/*
  GILUTriSetMatrix(tri, uplo, diag, n, bs, i, j, a, dinv): n block rows of bs x bs blocks; i[n+1], j[i[n]]
  block-column indices sorted ascending within each row; a[i[n]*bs*bs] the blocks; dinv[n*bs*bs] the inverted
  diagonal blocks (GILU_TRI_DIAG_INVERSE only, else NULL). Calling it again with the same uplo, diag, n, bs,
  i and j keeps the analysis and copies only the values.
*/
PETSC_INTERN PetscErrorCode GILUTriSetMatrix(GILUTri, GILUTriUplo, GILUTriDiag, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const MatScalar[], const MatScalar[]);
/* x = T^{-1} b; x may be b (in place) */
PETSC_INTERN PetscErrorCode GILUTriSolve(GILUTri, const PetscScalar[], PetscScalar[]);
/* Levels (wavefronts) of the analysis and the largest level's number of rows */
PETSC_INTERN PetscErrorCode GILUTriGetLevels(GILUTri, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GILUTriView(GILUTri, PetscViewer);

/*
  GILUCountLevels(uplo, n, i, j, &nlevels): wavefronts of the lower (upper) triangle of a CSR/BSR pattern
  that may hold both triangles (entries of the other triangle and the diagonal are ignored): the length of
  the longest dependency chain, i.e. the number of level sets a triangular solve with it needs.
*/
PETSC_INTERN PetscErrorCode GILUCountLevels(GILUTriUplo, PetscInt, const PetscInt[], const PetscInt[], PetscInt *);

#endif
