/*
   Conversions into MATSTENCILGPU (from AIJ and BAIJ) and MatZeroRowsColumns().

   PETSc's MatConvert() looks for "MatConvert_<intype>_<outtype>_C" first on the matrix to
   convert and then on a new matrix of the target type: a plugin cannot compose on AIJ
   matrices it did not create, so the conversions are composed on every MATSTENCILGPU
   matrix (MatStencilGPUComposeConversions(), called by MatCreate_StencilGPU()).

   The grid and stencil are the matrix's DMDA's (MatGetDM()); without one, on one process,
   the grid is inferred from the pattern (GILUGridInfer()), the stencil found by
   GILUStencilMatAnalyze() (which refuses a pattern that is not a stencil), and a DMDA with
   the star or box of the stencil's width is created for the new matrix.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilu/private/stencilgpu.h>

/* A sequential DMDA for A (natural ordering, no DMDA of its own): grid and stencil from the pattern */
static PetscErrorCode DMDAFromPattern(Mat A, DM *da)
{
  GILUStencilMat sm;
  GILUGrid       g;
  PetscBool      found, star = PETSC_TRUE;
  PetscInt       bs, w       = 0;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(GILUGridInfer(A, bs, &g, &found));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot infer a structured grid from the pattern of the matrix: give it its DMDA with MatSetDM() (or create it with DMCreateMatrix()) before converting it to MATSTENCILGPU");
  PetscCall(PetscMemzero(&sm, sizeof(sm)));
  PetscCall(GILUStencilMatAnalyze(A, &g, &sm, NULL, 0));
  for (PetscInt s = 0; s < sm.stencil.ns; s++) {
    const PetscInt *d = sm.stencil.off[s];

    if ((d[0] != 0) + (d[1] != 0) + (d[2] != 0) > 1) star = PETSC_FALSE;
    for (PetscInt t = 0; t < 3; t++) w = PetscMax(w, PetscAbsInt(d[t]));
  }
  PetscCall(GILUStencilMatReset(&sm));
  PetscCall(DMDACreate(PETSC_COMM_SELF, da));
  PetscCall(DMSetDimension(*da, g.dim));
  PetscCall(DMDASetSizes(*da, g.n[0], g.n[1], g.n[2]));
  PetscCall(DMDASetDof(*da, g.dof));
  PetscCall(DMDASetStencilType(*da, star ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX));
  PetscCall(DMDASetStencilWidth(*da, PetscMax(w, 1)));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B's values: A's (B set up on A's grid); entries outside B's stencil are refused by MatSetValues() */
static PetscErrorCode CopyFromXAIJ(Mat A, Mat B)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatZeroEntries(B));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nz;

    PetscCall(MatGetRow(A, r, &nz, &cols, &vals));
    PetscCall(MatSetValues(B, 1, &r, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, r, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_XAIJ_StencilGPU(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  Mat         B;
  PetscBool   isbaij, isda = PETSC_FALSE, is;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  if (reuse == MAT_REUSE_MATRIX) {
    B = *newmat;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &is, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
    PetscCheck(is, comm, PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX needs a MATSTENCILGPU matrix from an earlier MatConvert(), not a %s", ((PetscObject)B)->type_name);
    PetscCheck(B->rmap->n == A->rmap->n && B->cmap->n == A->cmap->n, comm, PETSC_ERR_ARG_SIZ, "The reused matrix's local sizes differ from the converted matrix's");
  } else {
    DM                     da;
    ISLocalToGlobalMapping ltog;
    PetscInt               dof;

    PetscCall(MatGetDM(A, &da));
    if (da) PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
    if (isda) PetscCall(PetscObjectReference((PetscObject)da));
    else {
      PetscCallMPI(MPI_Comm_size(comm, &size));
      PetscCheck(size == 1, comm, PETSC_ERR_SUP, "Converting a parallel matrix to MATSTENCILGPU needs its DMDA: create the matrix with DMCreateMatrix() or give it the DMDA with MatSetDM()");
      PetscCall(DMDAFromPattern(A, &da));
    }
    PetscCall(MatCreate(comm, &B));
    PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    PetscCall(MatSetBlockSizes(B, dof, dof));
    PetscCall(MatSetDM(B, da));
    PetscCall(MatSetType(B, MATSTENCILGPU));
    PetscCall(MatSetUp(B));
    PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
    PetscCall(MatSetLocalToGlobalMapping(B, ltog, ltog));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(CopyFromXAIJ(A, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else if (reuse == MAT_INITIAL_MATRIX) *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes the conversions from AIJ and BAIJ on A (PETSc's MatConvert() queries the target type's new matrix), or
   with compose false clears them (MatDestroy(): every composed function is cleared, as -checkfunctionlist checks) */
PetscErrorCode MatStencilGPUComposeConversions(Mat A, PetscBool compose)
{
  const char *from[] = {MATSEQAIJ, MATMPIAIJ, MATSEQBAIJ, MATMPIBAIJ}, *to[] = {MATSEQSTENCILGPU, MATMPISTENCILGPU};
  char        name[128];

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(from); i++)
    for (size_t j = 0; j < PETSC_STATIC_ARRAY_LENGTH(to); j++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", from[i], to[j]));
      PetscCall(PetscObjectComposeFunction((PetscObject)A, name, compose ? MatConvert_XAIJ_StencilGPU : NULL));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatZeroRowsColumns(): b -= A(:,rows) x(rows), then the rows and columns are zeroed, the
  diagonal set to diag and b(rows) = diag x(rows). Rows may be owned by any process; the
  columns are found through the DMDA's ghost points.
*/
PetscErrorCode MatZeroRowsColumns_StencilGPU(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_StencilGPU    *sg  = (Mat_StencilGPU *)A->data;
  GILUStencilMat    *sm  = &sg->sm;
  const PetscInt     dof = sm->grid.dof, bs2 = sm->bs2, *nn = sm->grid.n;
  const size_t       N = (size_t)sm->npoints;
  DM                 da;
  Vec                mask, mloc;
  const PetscScalar *ma, *ml;
  PetscScalar       *ones;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &da));
  PetscCall(DMGetGlobalVector(da, &mask));
  PetscCall(VecSet(mask, 0.0));
  PetscCall(PetscMalloc1(n, &ones));
  for (PetscInt t = 0; t < n; t++) ones[t] = 1.0;
  PetscCall(VecSetValues(mask, n, rows, ones, INSERT_VALUES));
  PetscCall(PetscFree(ones));
  PetscCall(VecAssemblyBegin(mask));
  PetscCall(VecAssemblyEnd(mask));
  if (x && b) {
    Vec z, w;

    PetscCall(VecDuplicate(x, &z));
    PetscCall(VecDuplicate(b, &w));
    PetscCall(VecPointwiseMult(z, mask, x));
    PetscCall(MatMult(A, z, w));
    PetscCall(VecAXPY(b, -1.0, w));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&w));
  }
  PetscCall(DMGetLocalVector(da, &mloc));
  PetscCall(DMGlobalToLocal(da, mask, INSERT_VALUES, mloc));
  PetscCall(VecGetArrayRead(mask, &ma));
  PetscCall(VecGetArrayRead(mloc, &ml));
  /* columns: couplings to masked unknowns of in-grid neighbours */
  for (PetscInt k = 0; k < nn[2]; k++)
    for (PetscInt j = 0; j < nn[1]; j++)
      for (PetscInt i = 0; i < nn[0]; i++) {
        const PetscInt p = (k * nn[1] + j) * nn[0] + i, gp = StencilGPUGhostIndex(sg, i, j, k);

        for (PetscInt s = 0; s < sm->stencil.ns; s++) {
          const PetscInt *d    = sm->stencil.off[s];
          PetscBool       in   = PETSC_TRUE;
          PetscInt        c[3] = {i, j, k}, q;

          for (PetscInt t = 0; t < 3; t++) in = (PetscBool)(in && c[t] + sg->xs[t] + d[t] >= 0 && c[t] + sg->xs[t] + d[t] < sg->M[t]);
          if (!in) continue;
          q = gp + sg->gshift[s];
          for (PetscInt e = 0; e < dof; e++)
            if (ml[q * dof + e] != 0.0)
              for (PetscInt a = 0; a < dof; a++) sm->val[((size_t)s * N + p) * bs2 + a * dof + e] = 0.0;
        }
      }
  /* rows */
  for (size_t p = 0; p < N; p++)
    for (PetscInt a = 0; a < dof; a++) {
      if (ma[p * dof + a] == 0.0) continue;
      for (PetscInt s = 0; s < sm->stencil.ns; s++)
        for (PetscInt e = 0; e < dof; e++) sm->val[((size_t)s * N + p) * bs2 + a * dof + e] = 0.0;
      sm->val[((size_t)sm->stencil.nlower * N + p) * bs2 + a * dof + a] = diag;
    }
  if (x && b) {
    const PetscScalar *xa;
    PetscScalar       *ba;

    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(b, &ba));
    for (size_t r = 0; r < N * dof; r++)
      if (ma[r] != 0.0) ba[r] = diag * xa[r];
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArray(b, &ba));
  }
  PetscCall(VecRestoreArrayRead(mask, &ma));
  PetscCall(VecRestoreArrayRead(mloc, &ml));
  PetscCall(DMRestoreLocalVector(da, &mloc));
  PetscCall(DMRestoreGlobalVector(da, &mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}
