/* PCSPARSIFY: private declarations shared by sparsify.c (the PC) and sparsify-select.c (Algorithm 2's pieces) */
#ifndef PETSCGILU_SPARSIFY_H
#define PETSCGILU_SPARSIFY_H

#include <petscmat.h>
#include <petscbt.h>
#include <petscgilu/private/compat.h>

/* The local rows of a matrix: the diagonal block (sparsified) and the off-diagonal block (kept) */
typedef struct {
  Mat                A, Ad, Ao;
  PetscBool          isbaij, ismpi;
  PetscInt           n, bs, rstart; /* block rows, block size, first global block row */
  const PetscInt    *ai, *aj;       /* diagonal block, local block columns */
  const PetscScalar *aa;            /* bs*bs values per block, column-major inside a block */
  const PetscInt    *bi, *bj;       /* off-diagonal block (NULL on one process) */
  const PetscScalar *ba;
  const PetscInt    *garray; /* global (block) column of each column of Ao */
} SparsifyLocal;

/* An off-diagonal entry (block), or a symmetric pair, that may be dropped */
typedef struct {
  PetscReal  mag;      /* |a_ij| (block: Frobenius norm) */
  PetscInt64 key;      /* symmetric tie-break */
  PetscInt   k, kt, r; /* the entry, its transposed partner (-1: none or not paired), its block row; the item stands for 2 entries or 1 */
} SparsifyItem;

PETSC_INTERN PetscErrorCode SparsifyLocalGet(Mat, SparsifyLocal *);
PETSC_INTERN PetscErrorCode SparsifyLocalRestore(SparsifyLocal *);
PETSC_INTERN PetscErrorCode SparsifyLocalIsSymmetric(const SparsifyLocal *, PetscReal, PetscBool *);
PETSC_INTERN PetscErrorCode SparsifyItemsCreate(const SparsifyLocal *, PetscBool, PetscInt, PetscInt *, PetscInt *, SparsifyItem **, PetscInt *);
PETSC_INTERN PetscErrorCode SparsifyItemsCount(PetscInt, const SparsifyItem[], PetscInt, PetscReal, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode SparsifyMask(const SparsifyLocal *, PetscInt, const SparsifyItem[], PetscInt *, PetscBT);
PETSC_INTERN PetscErrorCode SparsifyLocalNorms(const SparsifyLocal *, PetscReal[], PetscBool, PetscReal[], PetscReal *);
PETSC_INTERN PetscErrorCode SparsifyCountWavefronts(PetscInt, const PetscInt[], const PetscInt[], PetscBT, PetscInt, PetscInt *, PetscInt *);

#endif
