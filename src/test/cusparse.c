/*
   The host side of the cuSPARSE baselines (the device side: cuda/cusparse.cu), in the test library: the arrays
   handed to cuSPARSE, built from a SEQAIJ (CSR) or SEQBAIJ (BSR) matrix, and the PetscGILUCuSparseILU objects the
   GPU tests and benchmarks use. Plain C, in every build, so that tests/ex12.c checks the arrays without a device.

   For SEQAIJ the graph must be the uncompressed one: with inodes, MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, ...)
   returns the graph of the inodes (a DoF-4 DMDA matrix of 500 rows gives 125 rows), while MatSeqAIJGetArrayRead()
   gives the values of all rows. So the flag is PETSC_FALSE for AIJ and PETSC_TRUE (blocks) for BAIJ, and the
   sizes are checked against the matrix (rows = block rows * bs, stored entries = stored blocks * bs * bs).
*/
#include <petscgilu.h>
#include <petscgilutest.h>

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

/* ---- the baselines: ILU(0) on the device with cuSPARSE (cuda/cusparse.cu) ---- */
struct _n_PetscGILUCuSparseILU {
  GILUCuSparse cs;
};

/*@C
  PetscGILUCuSparseILUCreate - ILU(0) of a sequential AIJ (CSR: cuSPARSE csrilu02) or BAIJ (BSR: bsrilu02) matrix on
  the CUDA device, the baseline of the GPU benchmarks and tests

  Not Collective

  Input Parameter:
. A - a `MATSEQAIJ` or `MATSEQBAIJ` matrix with sorted column indices and its diagonal in the pattern

  Output Parameters:
+ ilu     - the factorization on the device
- zerorow - the first (block) row with a zero pivot, or -1

  Notes:
  Needs a CUDA device and a build with CUDA: elsewhere (and in the emulation, cudaemu, which cannot run the
  cuSPARSE library) it is an error that says so. The factors are those of PETSc's ILU(0) and of `PCSTRUCTILU`.

  Level: developer

.seealso: `PetscGILUCuSparseILUApply()`, `PetscGILUCuSparseILUDestroy()`
@*/
PetscErrorCode PetscGILUCuSparseILUCreate(Mat A, PetscGILUCuSparseILU *ilu, PetscInt *zerorow)
{
  PetscGILUBackendType ran;

  PetscFunctionBegin;
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)A), PETSCGILU_BACKEND_CUDA, &ran));
  PetscCall(PetscNew(ilu));
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(GILUCuSparseCreate(A, &(*ilu)->cs));
  PetscCall(GILUCuSparseFactor((*ilu)->cs, zerorow));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUCuSparseILUApply - x = (LU)^{-1} b with the cuSPARSE triangular solves (SpSV for CSR, bsrsv2 for BSR)

  Not Collective

  Input Parameters:
+ ilu - from `PetscGILUCuSparseILUCreate()`
- b   - the right-hand side

  Output Parameter:
. x - the solution

  Notes:
  With a PETSc built with CUDA and b, x CUDA vectors the solves read b's and write x's device arrays, queued on the
  default stream without a host wait (a KSP's preconditioner in make gpu-perf's bcgs case); otherwise b is copied to
  the device and x back, the host waiting for the solves.

  Level: developer

.seealso: `PetscGILUCuSparseILUCreate()`
@*/
PetscErrorCode PetscGILUCuSparseILUApply(PetscGILUCuSparseILU ilu, Vec b, Vec x)
{
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA) && defined(PETSCGILU_HAVE_CUDA)
  {
    PetscBool bcuda, xcuda;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &bcuda, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xcuda, VECSEQCUDA, VECMPICUDA, ""));
    if (bcuda && xcuda) {
      PetscCall(VecCUDAGetArrayRead(b, &ba));
      PetscCall(VecCUDAGetArrayWrite(x, &xa));
      PetscCall(GILUCuSparseSolveDevice(ilu->cs, ba, xa));
      PetscCall(VecCUDARestoreArrayWrite(x, &xa));
      PetscCall(VecCUDARestoreArrayRead(b, &ba));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayWrite(x, &xa));
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(GILUCuSparseSolve(ilu->cs, ba, xa));
#endif
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUCuSparseILUDestroy - Frees what `PetscGILUCuSparseILUCreate()` made

  Level: developer

.seealso: `PetscGILUCuSparseILUCreate()`
@*/
PetscErrorCode PetscGILUCuSparseILUDestroy(PetscGILUCuSparseILU *ilu)
{
  PetscFunctionBegin;
  if (!*ilu) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSCGILU_HAVE_CUDA)
  PetscCall(GILUCuSparseDestroy(&(*ilu)->cs));
#endif
  PetscCall(PetscFree(*ilu));
  PetscFunctionReturn(PETSC_SUCCESS);
}
