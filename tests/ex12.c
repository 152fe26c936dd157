static char help[] = "The arrays the cuSPARSE baselines hand to cuSPARSE (CSR of AIJ, BSR of BAIJ), checked on the host against the matrix.\n\
  -n <n>   : grid points per direction of the 3D DMDA (default 5)\n\
Checks DMDA matrices with the stencils star7 and box27, DoF 1 and 4, AIJ and BAIJ: every row pointer, column index\n\
and value of GILUCuSparseArraysCreate() against MatGetRow() (and AIJ's values against MatSeqAIJGetArrayRead()).\n\
Prints one line per case; a mismatch is printed and makes the program fail. No device needed.\n\n";

/*
  The trap this guards against: for SEQAIJ with inodes (DoF > 1 on a DMDA), MatGetRowIJ(A, 0, PETSC_FALSE,
  PETSC_TRUE, ...) returns the inode-compressed graph (125 rows for the 500 rows of DoF 4 on a 5^3 grid) while the
  values are those of every row. Each AIJ line therefore also shows the size of that compressed graph: where it
  differs from the matrix, a preparation that asked for it would fail here.
*/
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilutest.h>
#include <petscgilu/private/compat.h>

/* a matrix with the full stencil pattern (dof x dof blocks) and a value of its own for every entry */
static PetscErrorCode Assemble(PetscInt n, DMDAStencilType st, PetscInt dof, MatType mtype, DM *da, Mat *A)
{
  DMDALocalInfo info;
  PetscScalar  *v;
  MatStencil    row, col;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n, n, n, 1, 1, 1, dof, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMSetMatType(*da, mtype));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  PetscCall(PetscMalloc1(dof * dof, &v));
  for (PetscInt k = 0; k < info.mz; k++)
    for (PetscInt j = 0; j < info.my; j++)
      for (PetscInt i = 0; i < info.mx; i++) {
        row.i = i;
        row.j = j;
        row.k = k;
        for (PetscInt dz = -1; dz <= 1; dz++)
          for (PetscInt dy = -1; dy <= 1; dy++)
            for (PetscInt dx = -1; dx <= 1; dx++) {
              PetscInt l1 = PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz);

              if (st == DMDA_STENCIL_STAR && l1 > 1) continue;
              if (i + dx < 0 || i + dx >= info.mx || j + dy < 0 || j + dy >= info.my || k + dz < 0 || k + dz >= info.mz) continue;
              col.i = i + dx;
              col.j = j + dy;
              col.k = k + dz;
              for (PetscInt a = 0; a < dof; a++)
                for (PetscInt b = 0; b < dof; b++) {
                  PetscInt r = ((k * n + j) * n + i) * dof + a, c = (((k + dz) * n + j + dy) * n + i + dx) * dof + b;

                  v[a * dof + b] = (l1 == 0 && a == b) ? 100.0 + r : -(PetscScalar)(1 + r % 97) / 128.0 - (PetscScalar)(c % 89) / 8192.0;
                }
              PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, 1, &col, v, INSERT_VALUES));
            }
      }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define REPORT(...) \
  do { \
    if (nbad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, __VA_ARGS__)); \
  } while (0)

/* every entry of arr against MatGetRow(A); *nbad: the mismatches (the first few are printed) */
static PetscErrorCode Compare(Mat A, const GILUCuSparseArrays *arr, const char *name, PetscInt *nbadp)
{
  const PetscInt bs = arr->bs, bs2 = bs * bs;
  PetscInt       rows, nbad        = 0;
  MatInfo        info;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &rows, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  if (arr->m * bs != rows) REPORT("%s: %" PetscInt_FMT " block rows of size %" PetscInt_FMT " for %" PetscInt_FMT " rows\n", name, arr->m, bs, rows);
  if ((PetscLogDouble)arr->nnzb * bs2 != info.nz_used) REPORT("%s: %" PetscInt_FMT " stored blocks of %" PetscInt_FMT " entries, the matrix stores %.0f entries\n", name, arr->nnzb, bs2, (double)info.nz_used);
  if (arr->rowptr[0] != 0 || arr->rowptr[arr->m] != arr->nnzb) REPORT("%s: row pointers start at %d and end at %d, not 0 and %" PetscInt_FMT "\n", name, arr->rowptr[0], arr->rowptr[arr->m], arr->nnzb);
  for (PetscInt r = 0; r < PetscMin(rows, arr->m * bs) && nbad == 0; r++) {
    const PetscInt     i = r / bs, ii = r % bs, nb = arr->rowptr[i + 1] - arr->rowptr[i];
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(A, r, &ncols, &cols, &vals));
    if (ncols != nb * bs) REPORT("%s: row %" PetscInt_FMT ": %" PetscInt_FMT " entries in the arrays, %" PetscInt_FMT " in MatGetRow()\n", name, r, nb * bs, ncols);
    else
      for (PetscInt kb = 0; kb < nb; kb++)
        for (PetscInt jj = 0; jj < bs; jj++) {
          const PetscInt    k = arr->rowptr[i] + kb, c = arr->colind[k] * bs + jj, e = kb * bs + jj;
          const PetscScalar a = arr->val[k * bs2 + jj * bs + ii]; /* column-major blocks */

          if (c != cols[e] || a != vals[e])
            REPORT("%s: row %" PetscInt_FMT " entry %" PetscInt_FMT ": (%" PetscInt_FMT ", %g) in the arrays, (%" PetscInt_FMT ", %g) in MatGetRow()\n", name, r, e, c, (double)PetscRealPart(a), cols[e], (double)PetscRealPart(vals[e]));
        }
    PetscCall(MatRestoreRow(A, r, &ncols, &cols, &vals));
  }
  if (!arr->bsr && nbad == 0) { /* AIJ: the values are the matrix's array, in its order */
    const PetscScalar *a;

    PetscCall(MatSeqAIJGetArrayRead(A, &a));
    for (PetscInt k = 0; k < arr->nnzb; k++)
      if (arr->val[k] != a[k]) REPORT("%s: value %" PetscInt_FMT ": %g in the arrays, %g in MatSeqAIJGetArrayRead()\n", name, k, (double)PetscRealPart(arr->val[k]), (double)PetscRealPart(a[k]));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  }
  *nbadp = nbad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const DMDAStencilType stencils[] = {DMDA_STENCIL_STAR, DMDA_STENCIL_BOX};
  const char           *stnames[]  = {"star7", "box27"};
  const PetscInt        dofs[]     = {1, 4};
  MatType               mtypes[]   = {MATAIJ, MATBAIJ};
  PetscInt              n = 5, nfail = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt d = 0; d < 2; d++)
      for (PetscInt t = 0; t < 2; t++) {
        GILUCuSparseArrays arr;
        DM                 da;
        Mat                A;
        PetscInt           nbad = 0;
        char               name[64], extra[128] = "";

        PetscCall(PetscSNPrintf(name, sizeof(name), "%s dof %" PetscInt_FMT " %s", stnames[s], dofs[d], mtypes[t]));
        PetscCall(Assemble(n, stencils[s], dofs[d], mtypes[t], &da, &A));
        if (t == 0) { /* the graph MatGetRowIJ(blockcompressed) gives: inode-compressed where PETSc found inodes */
          PetscInt        nc;
          const PetscInt *ia, *ja;
          PetscBool       done;

          PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nc, &ia, &ja, &done));
          PetscCall(PetscSNPrintf(extra, sizeof(extra), "; MatGetRowIJ(blockcompressed) would give %" PetscInt_FMT " rows, %" PetscInt_FMT " entries", nc, ia[nc]));
          PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nc, &ia, &ja, &done));
        }
        PetscCall(GILUCuSparseArraysCreate(A, &arr));
        PetscCall(Compare(A, &arr, name, &nbad));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s, %" PetscInt_FMT " rows, %" PetscInt_FMT " entries (%" PetscInt_FMT " block rows of size %" PetscInt_FMT ", %" PetscInt_FMT " blocks): %s%s\n", name, arr.bsr ? "BSR" : "CSR", arr.m * arr.bs,
                              arr.nnzb * arr.bs * arr.bs, arr.m, arr.bs, arr.nnzb, nbad ? "MISMATCH" : "every entry as MatGetRow()", extra));
        nfail += nbad ? 1 : 0;
        PetscCall(GILUCuSparseArraysDestroy(&arr));
        PetscCall(MatDestroy(&A));
        PetscCall(DMDestroy(&da));
      }
  PetscCheck(nfail == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " of 8 cases differ from the matrix", nfail);
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:

TEST*/
