/*
   The host side of the cuSPARSE baselines (src/sys/cuda/cusparse.cu): the arrays handed to cuSPARSE, built from a
   SEQAIJ (CSR) or SEQBAIJ (BSR) matrix. Plain C, in every build, so that tests/ex12.c checks them without a device.

   For SEQAIJ the graph must be the uncompressed one: with inodes, MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, ...)
   returns the graph of the inodes (a DoF-4 DMDA matrix of 500 rows gives 125 rows), while MatSeqAIJGetArrayRead()
   gives the values of all rows. So the flag is PETSC_FALSE for AIJ and PETSC_TRUE (blocks) for BAIJ, and the
   sizes are checked against the matrix (rows = block rows * bs, stored entries = stored blocks * bs * bs).
*/
#include <petscgilu/private/backend.h>
#include <petscgilu/private/compat.h>

/*
  GILUCuSparseArraysCreate - the CSR (SEQAIJ, bs 1) or BSR (SEQBAIJ, column-major blocks: PETSc's layout and
  cuSPARSE's CUSPARSE_DIRECTION_COLUMN) arrays of A with 32-bit indices, copies on the host
*/
PetscErrorCode GILUCuSparseArraysCreate(Mat A, GILUCuSparseArrays *arr)
{
  PetscBool       isaij, isbaij, done;
  PetscInt        n, bs, rows, cols, bs2;
  const PetscInt *ia, *ja;
  MatInfo         info;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(arr, sizeof(*arr)));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &isaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &isbaij));
  PetscCheck(isaij || isbaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The cuSPARSE baselines take a SEQAIJ (CSR) or SEQBAIJ (BSR) matrix");
  PetscCall(MatGetSize(A, &rows, &cols));
  PetscCheck(rows == cols, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The cuSPARSE baselines factor a square matrix, not %" PetscInt_FMT " x %" PetscInt_FMT, rows, cols);
  PetscCall(MatGetBlockSize(A, &bs));
  bs  = isbaij ? bs : 1;
  bs2 = bs * bs;
  /* the block graph of BAIJ, the full (not inode-compressed) graph of AIJ */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, isbaij, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed");
  PetscCheck(n * bs == rows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ() gave %" PetscInt_FMT " %srows of size %" PetscInt_FMT " for a matrix of %" PetscInt_FMT " rows (a compressed graph?)", n, isbaij ? "block " : "", bs, rows);
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  PetscCheck((PetscLogDouble)ia[n] * bs2 == info.nz_used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ() gave %" PetscInt_FMT " stored %s, %.0f entries, but the matrix stores %.0f", ia[n], isbaij ? "blocks" : "entries", (double)ia[n] * bs2,
             (double)info.nz_used);
  PetscCheck((double)ia[n] * bs2 < 2147483647.0 && (double)rows < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuSPARSE baselines use 32-bit indices: %" PetscInt_FMT " rows, %.0f stored entries is too many", rows, (double)ia[n] * bs2);
  arr->bsr  = isbaij;
  arr->bs   = bs;
  arr->m    = n;
  arr->nnzb = ia[n];
  PetscCall(PetscMalloc3(n + 1, &arr->rowptr, arr->nnzb, &arr->colind, arr->nnzb * bs2, &arr->val));
  for (PetscInt i = 0; i <= n; i++) arr->rowptr[i] = (int)ia[i];
  for (PetscInt k = 0; k < arr->nnzb; k++) arr->colind[k] = (int)ja[k];
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, isbaij, &n, &ia, &ja, &done));
  if (isbaij) {
    PetscScalar *a;

    PetscCall(MatSeqBAIJGetArray(A, &a));
    PetscCall(PetscArraycpy(arr->val, a, arr->nnzb * bs2));
    PetscCall(MatSeqBAIJRestoreArray(A, &a));
  } else {
    const PetscScalar *a;

    PetscCall(MatSeqAIJGetArrayRead(A, &a));
    PetscCall(PetscArraycpy(arr->val, a, arr->nnzb));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUCuSparseArraysDestroy(GILUCuSparseArrays *arr)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(arr->rowptr, arr->colind, arr->val));
  PetscCall(PetscMemzero(arr, sizeof(*arr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
