static char help[] = "MATSTENCILGPU against AIJ: the same DMDA operator assembled as both, every operation compared.\n\n\
  -dim <1,2,3>      : grid dimension (default 3)\n\
  -dof <n>          : unknowns per grid point (default 1)\n\
  -box              : DMDA_STENCIL_BOX (default star)\n\
  -sw <w>           : DMDA stencil width (default 1)\n\
  -solve            : instead, assemble with -dm_mat_type and solve with the KSP/PC of the options; print iterations\n\
  -pivots           : with -solve and PCILU/PCICC, compare the pivots of the factor (MatGetDiagonal()) with PETSc's\n\n";

/*
  Without -solve the program prints only differences: nothing when MATSTENCILGPU agrees with
  AIJ on MatMult, MatMultAdd, MatMultTranspose(Add), MatGetDiagonal, MatNorm, MatScale,
  MatShift, MatDiagonalScale, MatConvert, MatDuplicate, MatAXPY,
  MatZeroRows, MatZeroRowsColumns, MatConvert from AIJ and BAIJ, MatCopy and MatAXPY from AIJ, MatGetInfo and MatGetRow, and when an entry outside the stencil is refused.
*/
#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <unistd.h>

typedef struct {
  PetscInt  dim, dof, sw;
  PetscBool box;
  PetscBool pivots; /* -pivots: compare the pivots of the PC's factor with PETSc's */
} AppCtx;

/* A deterministic value for the coupling of (i,j,k,a) to (i+dx, j+dy, k+dz, e) */
static PetscScalar Value(PetscInt i, PetscInt j, PetscInt k, PetscInt a, PetscInt dx, PetscInt dy, PetscInt dz, PetscInt e)
{
  if (!dx && !dy && !dz && a == e) return 40.0 + 0.1 * ((i + 2 * j + 3 * k + a) % 7);
  return -0.5 - 0.05 * ((3 * i + j + 5 * k + 7 * a + 11 * e + 13 * dx + 17 * dy + 19 * dz + 100) % 9);
}

/* Entries by MatSetValuesStencil (INSERT), then the diagonal blocks once more by MatSetValuesBlockedStencil (ADD) */
static PetscErrorCode Assemble(DM da, AppCtx *ctx, Mat A)
{
  PetscInt     xs, ys, zs, xm, ym, zm, M, N, P, w = ctx->sw, dof = ctx->dof;
  PetscInt     wy = ctx->dim > 1 ? w : 0, wz = ctx->dim > 2 ? w : 0;
  PetscScalar *blk;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(PetscMalloc1(dof * dof, &blk));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil row, col;

        for (PetscInt dz = -wz; dz <= wz; dz++)
          for (PetscInt dy = -wy; dy <= wy; dy++)
            for (PetscInt dx = -w; dx <= w; dx++) {
              if (!ctx->box && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
              if (i + dx < 0 || i + dx >= M || j + dy < 0 || j + dy >= N || k + dz < 0 || k + dz >= P) continue;
              for (PetscInt a = 0; a < dof; a++)
                for (PetscInt e = 0; e < dof; e++) {
                  PetscScalar v = Value(i, j, k, a, dx, dy, dz, e);

                  row.i = i, row.j = j, row.k = k, row.c = a;
                  col.i = i + dx, col.j = j + dy, col.k = k + dz, col.c = e;
                  PetscCall(MatSetValuesStencil(A, 1, &row, 1, &col, &v, INSERT_VALUES));
                }
            }
      }
  PetscCall(MatAssemblyBegin(A, MAT_FLUSH_ASSEMBLY)); /* INSERT then ADD */
  PetscCall(MatAssemblyEnd(A, MAT_FLUSH_ASSEMBLY));
  for (PetscInt t = 0; t < dof * dof; t++) blk[t] = 0.01 * (t + 1);
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil row = {k, j, i, 0};

        PetscCall(MatSetValuesBlockedStencil(A, 1, &row, 1, &row, blk, ADD_VALUES));
      }
  PetscCall(PetscFree(blk));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareVecs(const char *what, Vec a, Vec b)
{
  Vec       d;
  PetscReal nd, na;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, a, b));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(a, NORM_INFINITY, &na));
  if (nd > 1e-12 * PetscMax(na, 1.0)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s differs: %g (norm %g)\n", what, (double)nd, (double)na));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* Compares A and S through their products with two vectors */
static PetscErrorCode CompareMats(const char *what, Mat A, Mat S, Vec x)
{
  Vec  ya, ys;
  char name[128];

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, NULL, &ya));
  PetscCall(VecDuplicate(ya, &ys));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(S, x, ys));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatMult after %s", what));
  PetscCall(CompareVecs(name, ya, ys));
  PetscCall(MatMultTranspose(A, x, ya));
  PetscCall(MatMultTranspose(S, x, ys));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatMultTranspose after %s", what));
  PetscCall(CompareVecs(name, ya, ys));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&ys));
  PetscFunctionReturn(0);
}

/* |A - B| (Frobenius) through AIJ */
static PetscErrorCode DiffNorm(Mat A, Mat B, PetscReal *nrm)
{
  Mat D;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, nrm));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/* MatConvert() from AIJ and BAIJ (with the DMDA and, on one process, inferred), round trip, reuse, refusal; MatZeroRowsColumns() */
static PetscBool ctx_axpy_different = PETSC_FALSE;

static PetscErrorCode Conversions(Mat A, Mat S, Vec x, Vec z)
{
  Mat            C, E, F, A2, S2;
  PetscReal      nrm;
  PetscBool      is;
  PetscMPIInt    size;
  PetscInt       rows[4], rstart, rend, N, dof;
  Vec            ya, ys;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetBlockSize(A, &dof));
  PetscCall(MatConvert(A, MATSTENCILGPU, MAT_INITIAL_MATRIX, &C));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)C, &is, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
  if (!is) {
    MatType type;

    PetscCall(MatGetType(C, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatConvert to stencilgpu gave %s\n", type));
  }
  PetscCall(CompareMats("MatConvert AIJ to stencilgpu", A, C, x));
  PetscCall(DiffNorm(A, C, &nrm));
  if (nrm > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "AIJ -> stencilgpu -> AIJ differs: %g\n", (double)nrm));
  PetscCall(DiffNorm(A, S, &nrm));
  if (nrm > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stencilgpu -> AIJ differs from AIJ: %g\n", (double)nrm));
  /* reuse, MatCopy and MatAXPY with an AIJ source */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatConvert(A, MATSTENCILGPU, MAT_REUSE_MATRIX, &C));
  PetscCall(CompareMats("MatConvert MAT_REUSE_MATRIX", A, C, x));
  PetscCall(MatScale(A, 0.5));
  PetscCall(MatCopy(A, C, SAME_NONZERO_PATTERN)); /* DIFFERENT_NONZERO_PATTERN: PETSc preallocates a new matrix, which MATSTENCILGPU refuses */
  PetscCall(CompareMats("MatCopy AIJ to stencilgpu", A, C, x));
  PetscCall(MatAXPY(C, 2.0, A, SUBSET_NONZERO_PATTERN));
  PetscCall(MatScale(C, 1.0 / 3.0));
  if (ctx_axpy_different) PetscCall(MatAXPY(C, 2.0, A, DIFFERENT_NONZERO_PATTERN)); /* a clear error (see the test) */
  PetscCall(CompareMats("MatAXPY stencilgpu += AIJ", A, C, x));
  PetscCall(MatDestroy(&C));
  /* BAIJ with the DMDA */
  PetscCall(MatConvert(A, MATBAIJ, MAT_INITIAL_MATRIX, &E));
  PetscCall(MatSetDM(E, NULL));
  if (size == 1) {
    /* without a DMDA: grid and stencil inferred from the pattern */
    PetscCall(MatConvert(E, MATSTENCILGPU, MAT_INITIAL_MATRIX, &C));
    PetscCall(CompareMats("MatConvert BAIJ (no DMDA) to stencilgpu", A, C, x));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &F));
    PetscCall(MatSetDM(F, NULL));
    PetscCall(MatConvert(F, MATSEQSTENCILGPU, MAT_INITIAL_MATRIX, &C));
    PetscCall(CompareMats("MatConvert AIJ (no DMDA) to seqstencilgpu", A, C, x));
    PetscCall(DiffNorm(A, C, &nrm));
    if (nrm > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "AIJ (no DMDA) -> stencilgpu -> AIJ differs: %g\n", (double)nrm));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&F));
    /* a pattern that is not a stencil is refused */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 20, 20, 3, NULL, &F));
    for (PetscInt i = 0; i < 20; i++) {
      PetscCall(MatSetValue(F, i, i, 2.0, INSERT_VALUES));
      if (i) PetscCall(MatSetValue(F, i, i - 1, -1.0, INSERT_VALUES));
    }
    PetscCall(MatSetValue(F, 0, 19, -1.0, INSERT_VALUES)); /* no grid fits */
    PetscCall(MatAssemblyBegin(F, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(F, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatConvert(F, MATSTENCILGPU, MAT_INITIAL_MATRIX, &C);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a pattern that is not a stencil was converted\n"));
      PetscCall(MatDestroy(&C));
    }
    PetscCall(MatDestroy(&F));
  }
  PetscCall(MatDestroy(&E));
  /* zero rows and columns: the first, the middle, the last owned rows and one of the next process */
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, &N, NULL));
  rows[0] = rstart, rows[1] = (rstart + rend) / 2, rows[2] = rend - 1, rows[3] = (rend + dof) % N;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
  PetscCall(MatDuplicate(S, MAT_COPY_VALUES, &S2));
  PetscCall(VecDuplicate(z, &ya));
  PetscCall(VecDuplicate(z, &ys));
  PetscCall(VecCopy(z, ya));
  PetscCall(VecCopy(z, ys));
  PetscCall(MatZeroRowsColumns(A2, 4, rows, 2.5, x, ya));
  PetscCall(MatZeroRowsColumns(S2, 4, rows, 2.5, x, ys));
  PetscCall(CompareVecs("MatZeroRowsColumns right-hand side", ya, ys));
  PetscCall(CompareMats("MatZeroRowsColumns", A2, S2, x));
  PetscCall(MatZeroRowsColumns(A2, 1, rows, 0.0, NULL, NULL));
  PetscCall(MatZeroRowsColumns(S2, 1, rows, 0.0, NULL, NULL));
  PetscCall(CompareMats("MatZeroRowsColumns without x, b", A2, S2, x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&ys));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&S2));
  PetscFunctionReturn(0);
}

/* MatView in PETSc's binary format (on several processes: the DMDA's natural ordering) writes the same matrix for both */
static PetscErrorCode CompareBinaryViews(Mat A, Mat S)
{
  char        name[2][PETSC_MAX_PATH_LEN];
  Mat         L[2];
  PetscBool   eq;
  PetscMPIInt rank;
  int         pid = (int)getpid();

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  for (PetscInt t = 0; t < 2; t++) {
    PetscViewer v;

    PetscCall(PetscSNPrintf(name[t], sizeof(name[t]), "/tmp/petscgilu-ex3-%d-%" PetscInt_FMT ".bin", pid, t));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, name[t], FILE_MODE_WRITE, &v));
    PetscCall(MatView(t ? S : A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, name[t], FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &L[t]));
    PetscCall(MatSetType(L[t], MATAIJ));
    PetscCall(MatLoad(L[t], v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscCall(MatEqual(L[0], L[1], &eq));
  if (!eq) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "binary MatView: stencilgpu and AIJ wrote different matrices\n"));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0)
    for (PetscInt t = 0; t < 2; t++) {
      char info[PETSC_MAX_PATH_LEN + 8];

      (void)remove(name[t]);
      PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", name[t]));
      (void)remove(info);
    }
  PetscCall(MatDestroy(&L[0]));
  PetscCall(MatDestroy(&L[1]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(DM da, AppCtx *ctx)
{
  Mat            A, S, C, D;
  Vec            x, z, ya, ys, l, r;
  PetscRandom    rnd;
  NormType       types[3] = {NORM_FROBENIUS, NORM_1, NORM_INFINITY};
  MatInfo        ia, is;
  PetscInt       rows[3], rstart, rend;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMSetMatType(da, MATSTENCILGPU));
  PetscCall(DMCreateMatrix(da, &S));
  PetscCall(Assemble(da, ctx, A));
  PetscCall(Assemble(da, ctx, S));
  PetscCall(CompareBinaryViews(A, S));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &ya));
  PetscCall(VecDuplicate(x, &ys));
  PetscCall(VecDuplicate(x, &l));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(VecSetRandom(l, rnd));
  PetscCall(VecSetRandom(r, rnd));

  PetscCall(CompareMats("assembly", A, S, x));
  PetscCall(MatMultAdd(A, x, z, ya));
  PetscCall(MatMultAdd(S, x, z, ys));
  PetscCall(CompareVecs("MatMultAdd", ya, ys));
  PetscCall(MatMultTransposeAdd(A, x, z, ya));
  PetscCall(MatMultTransposeAdd(S, x, z, ys));
  PetscCall(CompareVecs("MatMultTransposeAdd", ya, ys));
  PetscCall(MatGetDiagonal(A, ya));
  PetscCall(MatGetDiagonal(S, ys));
  PetscCall(CompareVecs("MatGetDiagonal", ya, ys));
  for (PetscInt t = 0; t < 3; t++) {
    PetscReal na, ns;

    PetscCall(MatNorm(A, types[t], &na));
    PetscCall(MatNorm(S, types[t], &ns));
    if (PetscAbsReal(na - ns) > 1e-12 * na) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatNorm %s differs: %g vs %g\n", NormTypes[types[t]], (double)na, (double)ns));
  }
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(S, MAT_GLOBAL_SUM, &is));
  if (ia.nz_used != is.nz_used) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatGetInfo nz_used differs: %g vs %g\n", ia.nz_used, is.nz_used));

  /* MatGetRow: the same entries */
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt    *ca, *cs;
    const PetscScalar *va, *vs;
    PetscInt           na, ns;
    PetscBool          same;

    PetscCall(MatGetRow(A, row, &na, &ca, &va));
    PetscCall(MatGetRow(S, row, &ns, &cs, &vs));
    same = (PetscBool)(na == ns);
    for (PetscInt c = 0; c < na && same; c++) same = (PetscBool)(ca[c] == cs[c] && va[c] == vs[c]);
    if (!same) PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatGetRow %" PetscInt_FMT " differs\n", row));
    PetscCall(MatRestoreRow(S, row, &ns, &cs, &vs));
    PetscCall(MatRestoreRow(A, row, &na, &ca, &va));
    if (!same) break;
  }

  /* MatConvert to AIJ and BAIJ: exactly A */
  {
    MatType   types2[2] = {MATAIJ, MATBAIJ};
    PetscReal nrm;

    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatConvert(S, types2[t], MAT_INITIAL_MATRIX, &C));
      PetscCall(MatConvert(C, MATAIJ, MAT_INPLACE_MATRIX, &C));
      PetscCall(MatAXPY(C, -1.0, A, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
      if (nrm != 0.0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatConvert to %s differs: %g\n", types2[t], (double)nrm));
      PetscCall(MatDestroy(&C));
    }
  }
  /* MatAXPY of two stencil matrices */
  PetscCall(MatDuplicate(S, MAT_DO_NOT_COPY_VALUES, &D));
  PetscCall(MatZeroEntries(D));
  PetscCall(MatAXPY(D, 1.0, S, SAME_NONZERO_PATTERN));
  PetscCall(CompareMats("MatZeroEntries, MatAXPY", A, D, x));
  PetscCall(MatAXPY(D, 2.0, S, SAME_NONZERO_PATTERN));
  PetscCall(MatScale(D, 1.0 / 3.0));
  PetscCall(CompareMats("MatAXPY", A, D, x));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDuplicate(S, MAT_COPY_VALUES, &D));
  PetscCall(CompareMats("MatDuplicate", A, D, x));
  PetscCall(MatDestroy(&D));

  PetscCall(Conversions(A, S, x, z));

  /* scaling */
  PetscCall(MatScale(A, 0.7));
  PetscCall(MatScale(S, 0.7));
  PetscCall(MatShift(A, 1.5));
  PetscCall(MatShift(S, 1.5));
  PetscCall(MatDiagonalScale(A, l, r));
  PetscCall(MatDiagonalScale(S, l, r));
  PetscCall(CompareMats("MatScale, MatShift, MatDiagonalScale", A, S, x));

  /* zero rows: the first, the middle and the last owned ones */
  rows[0] = rstart, rows[1] = (rstart + rend) / 2, rows[2] = rend - 1;
  PetscCall(VecCopy(z, ya));
  PetscCall(VecCopy(z, ys));
  PetscCall(MatZeroRows(A, 3, rows, 2.5, x, ya));
  PetscCall(MatZeroRows(S, 3, rows, 2.5, x, ys));
  PetscCall(CompareVecs("MatZeroRows right-hand side", ya, ys));
  PetscCall(CompareMats("MatZeroRows", A, S, x));

  /* an entry outside the stencil is refused */
  {
    MatStencil row = {0, 0, 0, 0}, col = {0, 0, 0, 0};
    PetscInt   xs, ys0, zs;

    PetscCall(DMDAGetCorners(da, &xs, &ys0, &zs, NULL, NULL, NULL));
    row.i = xs, row.j = ys0, row.k = zs;
    col   = row;
    col.i = xs + ctx->sw + 1;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetValuesStencil(S, 1, &row, 1, &col, NULL, ADD_VALUES);
    PetscCall(PetscPopErrorHandler());
    if (ierr != PETSC_ERR_ARG_OUTOFRANGE) PetscCall(PetscPrintf(PETSC_COMM_SELF, "an entry outside the stencil gave error %d\n", (int)ierr));
    PetscCall(MatAssemblyBegin(S, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(S, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&ys));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(0);
}

/*
  -pivots: the pivots of the PC's factor (PCFactorGetMatrix(), MatGetDiagonal(), as ksp/pc/tutorials/ex2 prints them) against
  those of PETSc's own factorization of the same type and levels of the matrix's AIJ form, to round-off
*/
static PetscErrorCode ComparePivots(KSP ksp, Mat A)
{
  PC            pc;
  Mat           F, B, G;
  Vec           d, e;
  IS            row, col;
  MatFactorInfo info;
  MatFactorType ftype;
  PetscBool     ic;
  PetscInt      levels;
  PetscReal     nrm, dnrm;
  MatSolverType solver;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCICC, &ic));
  ftype = ic ? MAT_FACTOR_ICC : MAT_FACTOR_ILU;
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(PCFactorGetLevels(pc, &levels));
  PetscCall(MatFactorGetSolverType(F, &solver));
  PetscCall(MatCreateVecs(A, &d, &e));
  PetscCall(MatGetDiagonal(F, d));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatGetFactor(B, MATSOLVERPETSC, ftype, &G));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = (PetscReal)levels;
  info.fill   = 1.0;
  { /* the PC's shift and zero pivot (PCICC's default shift: positive definite) */
    MatFactorShiftType stype;

    PetscCall(PCFactorGetShiftType(pc, &stype));
    PetscCall(PCFactorGetShiftAmount(pc, &info.shiftamount));
    PetscCall(PCFactorGetZeroPivot(pc, &info.zeropivot));
    info.shifttype = (PetscReal)stype;
  }
  PetscCall(MatGetOrdering(B, MATORDERINGNATURAL, &row, &col));
  if (ic) {
    PetscCall(MatICCFactorSymbolic(G, B, row, &info));
    PetscCall(MatCholeskyFactorNumeric(G, B, &info));
  } else {
    PetscCall(MatILUFactorSymbolic(G, B, row, col, &info));
    PetscCall(MatLUFactorNumeric(G, B, &info));
  }
  PetscCall(MatGetDiagonal(G, e));
  PetscCall(VecNorm(e, NORM_INFINITY, &dnrm));
  PetscCall(VecAXPY(e, -1.0, d));
  PetscCall(VecNorm(e, NORM_INFINITY, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pivots of the %s(%d) factor %s PETSc's\n", ic ? "ICC" : "ILU", (int)levels, nrm <= 1e-12 * dnrm ? "are" : "are NOT"));
  PetscCall(PetscInfo(pc, "pivots of MatSolverType %s's factor against PETSc's: %g\n", solver, (double)nrm));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatDestroy(&G));
  PetscCall(MatDestroy(&B));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&e));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(DM da, AppCtx *ctx)
{
  Mat      A;
  Vec      x, b;
  KSP      ksp;
  PetscInt its;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, ctx, A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT "\n", its));
  if (ctx->pivots) PetscCall(ComparePivots(ksp, A));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  AppCtx    ctx = {3, 1, 1, PETSC_FALSE, PETSC_FALSE};
  DM        da;
  PetscBool solve = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &ctx.dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &ctx.dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sw", &ctx.sw, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &ctx.box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pivots", &ctx.pivots, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-axpy_different", &ctx_axpy_different, NULL));
  if (ctx.dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, 23, ctx.dof, ctx.sw, NULL, &da));
  else if (ctx.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, ctx.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, 13, 11, PETSC_DECIDE, PETSC_DECIDE, ctx.dof, ctx.sw, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, ctx.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, 7, 6, 8, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, ctx.dof, ctx.sw, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  if (solve) PetscCall(Solve(da, &ctx));
  else PetscCall(Compare(da, &ctx));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # every operation against AIJ: prints nothing when they agree
   test:
     suffix: ops_3d
     output_file: output/empty.out
     args: -dof {{1 2 5}} -sw {{1 2}} -box {{0 1}}

   test:
     suffix: axpy_different_error
     args: -dim 2 -axpy_different
     filter: Error: grep -o "pass SUBSET_NONZERO_PATTERN"
   test:
     suffix: ops_2d
     output_file: output/empty.out
     args: -dim 2 -dof {{1 3 4}} -sw {{1 2}} -box {{0 1}}

   test:
     suffix: ops_1d
     output_file: output/empty.out
     args: -dim 1 -dof {{1 2}}

   test:
     suffix: ops_np2
     nsize: 2
     output_file: output/empty.out
     args: -dof {{1 3}} -sw {{1 2}} -box {{0 1}}

   test:
     suffix: ops_np3_2d
     nsize: 3
     output_file: output/empty.out
     args: -dim 2 -dof 2 -sw {{1 2}} -box {{0 1}}

   # the same iterations with AIJ and MATSTENCILGPU
   test:
     suffix: solve_3d
     args: -solve -ksp_type gmres -dof {{1 3}separate output} -box {{0 1}separate output} -pc_type {{jacobi structilu}separate output} -dm_mat_type {{aij stencilgpu}shared output}

   # 9 DoF per grid point, beyond the structured-grid kernels: the block is factored as a general sparse matrix (-ksp_view says
   # why), with the iterations of PETSc's ILU(0), whether PCSTRUCTILU or MatSolverType gilu or structilu factors it
   test:
     suffix: solve_dof9
     args: -solve -dim 2 -dof 9 -ksp_type gmres -pc_type {{ilu structilu}shared output} -dm_mat_type {{aij baij}shared output}

   test:
     suffix: solve_dof9_factor
     args: -solve -dim 2 -dof 9 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type {{gilu structilu}shared output} -dm_mat_type {{aij baij}shared output}
     output_file: output/ex3_solve_dof9.out

   test:
     suffix: solve_dof9_view
     args: -solve -dim 2 -dof 9 -ksp_type gmres -pc_type structilu -ksp_view
     filter: grep -e "structured grid" -e "package used" -e "iterations"

   test:
     suffix: solve_structilu_ilu1
     args: -solve -dim 2 -dof 2 -sw 2 -box -ksp_type gmres -pc_type structilu -pc_structilu_levels 1 -dm_mat_type {{aij stencilgpu}shared output}

   test:
     suffix: solve_np2
     nsize: 2
     args: -solve -ksp_type gmres -dof 2 -box {{0 1}separate output} -pc_type {{jacobi structilu}separate output} -dm_mat_type {{aij stencilgpu}shared output}

   # PCILU on MATSTENCILGPU (MatSolverType structilu, the default for seqstencilgpu): PETSc's AIJ ILU(k) iterations
   test:
     suffix: solve_ilu
     args: -solve -ksp_type gmres -dof {{1 3}separate output} -box {{0 1}separate output} -pc_type ilu -dm_mat_type {{aij stencilgpu}shared output}

   test:
     suffix: solve_ilu1
     args: -solve -dim 2 -dof 2 -sw 2 -box -ksp_type gmres -pc_type ilu -pc_factor_levels 1 -dm_mat_type {{aij stencilgpu}shared output}

   # every pivot below the tolerance: KSP reports DIVERGED_PC_FAILED, as with AIJ
   test:
     suffix: solve_ilu_zeropivot
     args: -solve -ksp_type gmres -pc_type ilu -pc_factor_zeropivot 1e10 -ksp_converged_reason -dm_mat_type {{aij stencilgpu}shared output}

   # the factor's view (fill stencil of ILU(1))
   test:
     suffix: solve_ilu1_view
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_levels 1 -dm_mat_type stencilgpu -ksp_view

   # block Jacobi on 2 processes: the sub-PC factors the seqstencilgpu diagonal block (MatGetDiagonalBlock)
   test:
     suffix: solve_np2_bjacobi
     nsize: 2
     args: -solve -ksp_type gmres -dof 2 -box -pc_type bjacobi -sub_pc_type {{ilu structilu}separate output} -dm_mat_type {{aij stencilgpu}shared output}

   test:
     suffix: solve_np2_bjacobi_ilu1
     nsize: 2
     args: -solve -ksp_type gmres -dim 2 -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_levels 1 -dm_mat_type {{aij stencilgpu}shared output}

   # PCSOR on MATSTENCILGPU (MatSOR): AIJ's residuals; DoF 1 pointwise, DoF 3 point-block (AIJ's inode SOR) for omega 1, pointwise otherwise
   test:
     suffix: solve_sor
     args: -solve -ksp_type gmres -ksp_monitor -dof {{1 3}separate output} -pc_type sor -pc_sor_omega {{1 1.3}separate output} -dm_mat_type {{aij stencilgpu}shared output}

   test:
     suffix: solve_sor_symmetric
     args: -solve -dim 2 -dof 2 -sw 2 -box -ksp_type richardson -ksp_monitor -pc_type sor -pc_sor_symmetric -pc_sor_its 2 -pc_sor_omega 1.3 -dm_mat_type {{aij stencilgpu}shared output}

   # in parallel the local sweeps of MatSOR_MPIAIJ (off-process couplings on the right-hand side)
   test:
     suffix: solve_sor_np2
     nsize: 2
     args: -solve -ksp_type gmres -ksp_monitor -dof {{1 3}separate output} -pc_type sor -pc_sor_omega {{1 1.3}separate output} -dm_mat_type {{aij stencilgpu}shared output}

   # MatSolverType structilu refuses what it cannot honour, naming the option: a non-natural ordering,
   # PCSTRUCTILU's own levels under PCILU (the factorization's levels decide)
   test:
     suffix: msst_ordering_error
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -pc_factor_mat_ordering_type rcm -dm_mat_type {{aij stencilgpu}shared output}
     filter: Error: grep -o "use -pc_factor_mat_ordering_type natural"
   test:
     # a shift StructILU has none of: the factorization is MatSolverType gilu's ILU with PETSc's shift (the view says so), so
     # PETSc's iterations; a zero pivot tolerance of 39.9 makes the shifts act (3 iterations without, 4 with, as PETSc's)
     suffix: msst_shift
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type {{petsc structilu}shared output} -pc_factor_zeropivot 39.9 -pc_factor_shift_type {{nonzero positive_definite}shared output} -dm_mat_type aij
   test:
     suffix: msst_shift_view
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -pc_factor_shift_type nonzero -ksp_view
     filter: grep -o -e "shift type NONZERO (-pc_factor_shift_type): StructILU has no diagonal shift, so the factorization is MatSolverType gilu" -e "iterations [0-9]*"
   test:
     suffix: msst_shift_np2_error
     nsize: 2
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -pc_factor_shift_type nonzero
     filter: Error: grep -o "across processes no factorization to hand one to: use -pc_factor_shift_type none, or -pc_type bjacobi"
   test:
     suffix: msst_levels_error
     args: -solve -dim 2 -ksp_type gmres -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type structilu -sub_pc_structilu_levels 1
     filter: Error: grep -o "sub_pc_structilu_levels is an option of -sub_pc_type structilu.*use -sub_pc_factor_levels"
   # -help lists the factor's own section (PCSTRUCTILU's options under the PC's prefix; PETSc 3.25 writes "-opt: <", older "-opt <")
   test:
     suffix: msst_help
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -help
     filter: grep -o -e "MatSolverType structilu options" -e "-pc_structilu_threads:* <" -e "-pc_structilu_backend:* <" | sed -e "s/: </ </"

   test:
     # the pivots of the factor (PCFactorGetMatrix(), MatGetDiagonal(), as PETSc's ksp/pc/tutorials/ex2 prints them) are PETSc's
     suffix: msst_pivots
     args: -solve -dim 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -pc_factor_levels {{0 1}separate output} -pivots -dm_mat_type {{aij stencilgpu}shared output}
   test:
     # DoF > 1 of a matrix without blocks: PETSc's point pivots, the diagonal of the unpivoted LU of each pivot block (before: an error)
     suffix: msst_pivots_dof
     args: -solve -dim 2 -dof {{2 3}separate output} -ksp_type gmres -pc_type {{ilu icc}separate output} -pc_factor_mat_solver_type structilu -pc_factor_levels 1 -pivots -dm_mat_type {{aij stencilgpu}shared output}
   test:
     suffix: msst_pivots_dof_baij
     args: -solve -dim 2 -dof 2 -ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type structilu -pivots -dm_mat_type baij
     filter: Error: grep -o "MatGetDiagonal() of a factor gives its pivots.*"
   test:
     suffix: msst_pivots_gilu
     args: -solve -dim 2 -ksp_type gmres -pc_type {{ilu icc}separate output} -pc_factor_mat_solver_type gilu -pc_factor_levels {{0 1}separate output} -pivots
   test:
     # pivots that need PCICC's default positive-definite shift (a zero pivot tolerance of 39.9): PETSc's ICC shifts its own
     # way (not as ILU), so gilu's ICC hands the factorization to it, and structilu's (no shift) where PETSc's test
     # (pivot <= zeropivot * the row's |U| sum) asks for a shift: PETSc's pivots and iterations
     suffix: msst_pivots_icc_shift
     args: -solve -dim 2 -ksp_type gmres -pc_type icc -pc_factor_zeropivot 39.9 -pc_factor_mat_solver_type {{gilu structilu petsc}shared output} -pivots
   test:
     suffix: msst_pivots_icc_shift_stencilgpu
     output_file: output/ex3_msst_pivots_icc_shift.out
     args: -solve -dim 2 -ksp_type gmres -pc_type icc -pc_factor_zeropivot 39.9 -pc_factor_mat_solver_type structilu -pivots -dm_mat_type stencilgpu

   test:
     # ICC: the pivots of the IC of the upper triangle, PETSc's ICC(0)'s 4 iterations (tests/ex3 -solve -dim 2 -pc_type icc)
     suffix: msst_pivots_icc
     args: -solve -dim 2 -ksp_type gmres -pc_type icc -pc_factor_mat_solver_type structilu -pivots -dm_mat_type {{aij stencilgpu}shared output}

TEST*/
