/*
   The operations of MATSTENCILGPU that PETSc's preconditioners need and that gain nothing from
   the stencil storage: they run on an AIJ image of the matrix, kept with it (composed as
   "MatStencilGPU_AIJ") and refreshed when the matrix's state changed, so every PETSc PC that
   works on AIJ works on a stencilgpu matrix without the user converting anything.

   - MatCreateSubMatrices(), MatCreateSubMatricesMPI(), MatIncreaseOverlap() (PCASM, PCGASM,
     PCREDUNDANT, the redundant coarse solve of PCMG): the submatrices are AIJ;
   - MatGetRowIJ() on one process (the orderings of PCLU and PCCholesky: nd, rcm, ...);
   - MatCreateGraph() (PCGAMG's graph of the couplings);
   - MatProduct (MatPtAP() of -pc_mg_galerkin and PCGAMG, MatMatMult(), ...): the result is AIJ;
   - MatSOR() with the flags the native sweeps lack (SOR_EISENSTAT and SOR_APPLY_* of PCEISENSTAT,
     the global sweeps in parallel); MatMultDiagonalBlock() (PCEISENSTAT's diagonal scaling) is native
     but follows the image's SOR (point blocks where the image has inodes, else the diagonal);
   - factorizations without a MatSolverType of MATSTENCILGPU (LU and Cholesky of PETSc, MUMPS,
     SuperLU, SuperLU_DIST, ILU and ICC of MatSolverType gilu): the factor of the named package is
     computed from the AIJ image;
   - this plugin's preconditioners that read rows (PCATSILU, PCFGDD, PCSPARSIFY):
     MatStencilGPUGetRowMatrix().

   Each of them says so once per matrix with PetscInfo() (-info).
*/
#include <petsc/private/matimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/stencilgpu.h>

/* The AIJ image of A, up to date with A's values (borrowed: it lives with A) */
PetscErrorCode MatStencilGPUGetAIJ(Mat A, const char *why, Mat *B)
{
  Mat_StencilGPU  *sg = (Mat_StencilGPU *)A->data;
  PetscObject      obj;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_AIJ", &obj));
  if (!obj) {
    Mat C;

    PetscCall(PetscInfo(A, "MATSTENCILGPU: %s runs on an AIJ copy of the matrix\n", why));
    PetscCall(MatConvert_StencilGPU(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(PetscObjectCompose((PetscObject)A, "MatStencilGPU_AIJ", (PetscObject)C));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_AIJ", &obj));
  } else if (state != sg->aijstate) {
    Mat C = (Mat)obj;

    PetscCall(MatConvert_StencilGPU(A, MATAIJ, MAT_REUSE_MATRIX, &C));
  }
  sg->aijstate = state;
  *B           = (Mat)obj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatStencilGPUGetRowMatrix - A itself, or for a MATSTENCILGPU A its AIJ image (MatStencilGPUGetAIJ(): borrowed, up to
  date with A's values): the matrix that the preconditioners reading a matrix's rows (PCATSILU, PCFGDD, PCSPARSIFY) and
  MatSolverType gilu work on, so that they take a stencilgpu operator as PETSc's own preconditioners do
*/
PetscErrorCode MatStencilGPUGetRowMatrix(Mat A, const char *who, Mat *B)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &is, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
  if (is) PetscCall(MatStencilGPUGetAIJ(A, who, B));
  else *B = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrices_StencilGPU(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatCreateSubMatrices()", &B));
  PetscCall(MatCreateSubMatrices(B, n, irow, icol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatricesMPI_StencilGPU(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatCreateSubMatricesMPI()", &B));
  PetscCall(MatCreateSubMatricesMPI(B, n, irow, icol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatIncreaseOverlap_StencilGPU(Mat A, PetscInt n, IS is[], PetscInt ov)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatIncreaseOverlap()", &B));
  PetscCall(MatIncreaseOverlap(B, n, is, ov));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateGraph_StencilGPU(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, GILU_CREATEGRAPH_PARAMS Mat *G)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatCreateGraph() (PCGAMG)", &B));
  PetscCall(MatCreateGraph(B, symmetrize, scale, filter, GILU_CREATEGRAPH_ARGS G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatInodeAdjustForInodes_StencilGPU(Mat A, IS *rperm, IS *cperm)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatGetRowIJ() (the orderings of factorizations)", &B));
  PetscCall(MatInodeAdjustForInodes(B, rperm, cperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetRowIJ_StencilGPU(Mat A, PetscInt shift, PetscBool symmetric, PetscBool blockcompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatGetRowIJ() (the orderings of factorizations)", &B));
  PetscCall(MatGetRowIJ(B, shift, symmetric, blockcompressed, n, ia, ja, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatRestoreRowIJ_StencilGPU(Mat A, PetscInt shift, PetscBool symmetric, PetscBool blockcompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  PetscObject obj;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_AIJ", &obj));
  PetscCheck(obj, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatRestoreRowIJ() without MatGetRowIJ()");
  PetscCall(MatRestoreRowIJ((Mat)obj, shift, symmetric, blockcompressed, n, ia, ja, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSOR() of the AIJ image: the flags the native sweeps of stencilgpu-sor.c do not provide */
PetscErrorCode MatSOR_StencilGPU_AIJ(Mat A, Vec b, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec x)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatSOR() with Eisenstat, SOR_APPLY_* or global parallel sweeps", &B));
  PetscCall(MatSOR(B, b, omega, flag, fshift, its, lits, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatMultDiagonalBlock() (the diagonal scaling of PCEISENSTAT): as AIJ's, whose MatSOR() the image runs
  for SOR_EISENSTAT: by the point blocks (the inodes of the image, DoF x DoF) where the image's local
  block has inodes, else by the diagonal
*/
static PetscErrorCode MatMultDiagonalBlock_StencilGPU(Mat A, Vec x, Vec y)
{
  Mat_StencilGPU    *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt     dof = sg->sm.grid.dof, N = sg->sm.npoints;
  const PetscScalar *D = sg->sm.val + (size_t)sg->sm.stencil.nlower * N * sg->sm.bs2, *xa;
  PetscScalar       *ya;
  Mat                B, Bd = NULL;
  PetscBool          mpi, blocks;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "MatMultDiagonalBlock() (PCEISENSTAT)", &B));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(B, &Bd, NULL, NULL));
  else Bd = B;
  blocks = (PetscBool)(dof > 1 && Bd->ops->multdiagonalblock != NULL);
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  for (PetscInt p = 0; p < N; p++)
    for (PetscInt a = 0; a < dof; a++) {
      const PetscScalar *row = D + (size_t)p * sg->sm.bs2 + a * dof;
      PetscScalar        sum = 0;

      if (blocks)
        for (PetscInt e = 0; e < dof; e++) sum += row[e] * xa[p * dof + e];
      else sum = row[a] * xa[p * dof + a];
      ya[p * dof + a] = sum;
    }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Products with a MATSTENCILGPU operand: the same product of the AIJ images (ctx->D), copied
  into the result, which is AIJ
*/
typedef struct {
  Mat D;
  Mat X[3]; /* the operands as given to the inner product: AIJ images or the operands themselves */
} ProductCtx;

static PetscErrorCode ProductCtxDestroy(void *data)
{
  ProductCtx *ctx = (ProductCtx *)GILU_PRODUCT_DATA(data);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&ctx->D));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ image of X if it is stencilgpu, else X */
static PetscErrorCode Operand(Mat X, Mat *Y)
{
  PetscBool is;

  PetscFunctionBegin;
  *Y = X;
  if (!X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &is, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
  if (is) PetscCall(MatStencilGPUGetAIJ(X, "MatProduct (MatPtAP(), MatMatMult(), ...)", Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_StencilGPU(Mat C)
{
  Mat_Product *product = C->product;
  ProductCtx  *ctx     = (ProductCtx *)product->data;
  Mat          X[3];

  PetscFunctionBegin;
  PetscCall(Operand(product->A, &X[0]));
  PetscCall(Operand(product->B, &X[1]));
  PetscCall(Operand(product->C, &X[2]));
  if (X[0] != ctx->X[0] || X[1] != ctx->X[1] || X[2] != ctx->X[2]) { /* MatProductReplaceMats() */
    PetscCall(MatProductReplaceMats(X[0], X[1], X[2], ctx->D));
    for (PetscInt t = 0; t < 3; t++) ctx->X[t] = X[t];
  }
  PetscCall(MatProductNumeric(ctx->D));
  PetscCall(MatCopy(ctx->D, C, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_StencilGPU(Mat C)
{
  Mat_Product *product = C->product;
  ProductCtx  *ctx;
  Mat          D;
  PetscInt     m, n, M, N, rstart, rend, cstart, cend, *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  PetscCall(Operand(product->A, &ctx->X[0]));
  PetscCall(Operand(product->B, &ctx->X[1]));
  PetscCall(Operand(product->C, &ctx->X[2]));
  PetscCall(MatProductCreate(ctx->X[0], ctx->X[1], ctx->X[2], &ctx->D));
  D = ctx->D;
  PetscCall(MatProductSetType(D, product->type));
  PetscCall(MatProductSetAlgorithm(D, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFill(D, product->fill));
  PetscCall(MatProductSetFromOptions(D));
  PetscCall(MatProductSymbolic(D));
  PetscCall(MatProductNumeric(D));
  /* C: an AIJ matrix with D's layout and pattern */
  PetscCall(MatGetLocalSize(D, &m, &n));
  PetscCall(MatGetSize(D, &M, &N));
  PetscCall(MatSetSizes(C, m, n, M, N));
  PetscCall(MatSetBlockSizesFromMats(C, D, D));
  PetscCall(MatSetType(C, MATAIJ));
  PetscCall(MatGetOwnershipRange(D, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(D, &cstart, &cend));
  PetscCall(PetscCalloc2(m, &dnz, m, &onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt        nz;
    const PetscInt *cols;

    PetscCall(MatGetRow(D, r, &nz, &cols, NULL));
    for (PetscInt t = 0; t < nz; t++) {
      if (cols[t] >= cstart && cols[t] < cend) dnz[r - rstart]++;
      else onz[r - rstart]++;
    }
    PetscCall(MatRestoreRow(D, r, &nz, &cols, NULL));
  }
  /* per-row preallocation that keeps D's block sizes (MatXAIJSetPreallocation() with bs 1 would set them to 1, and PCGAMG
     would then coarsen the next level by points instead of by blocks of unknowns, as it does on AIJ) */
  PetscCall(MatSeqAIJSetPreallocation(C, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(C, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(D, r, &nz, &cols, &vals));
    PetscCall(MatSetValues(C, 1, &r, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(D, r, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  product->data           = ctx;
  product->destroy        = ProductCtxDestroy;
  C->ops->productnumeric  = MatProductNumeric_StencilGPU;
  C->ops->productsymbolic = MatProductSymbolic_StencilGPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "MatProductSetFromOptions_anytype_C" of stencilgpu matrices: any product with a stencilgpu operand */
static PetscErrorCode MatProductSetFromOptions_StencilGPU(Mat C)
{
  PetscFunctionBegin;
  C->ops->productsymbolic = MatProductSymbolic_StencilGPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Factorizations through the AIJ image: the factor of the named package on the AIJ image of the
  matrix; its symbolic and numeric phases receive the image (refreshed) instead of the matrix.
*/
typedef struct {
  PetscErrorCode (*lusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*chsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*ilusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*iccsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lunum)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*chnum)(Mat, Mat, const MatFactorInfo *);
} FactorOps;

static PetscErrorCode FactorOpsGet(Mat F, FactorOps **ops)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, "MatStencilGPU_FactorOps", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Factor of a MATSTENCILGPU without its operations");
  PetscCall(PetscContainerGetPointer(c, (void **)ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Image(Mat A, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetAIJ(A, "a factorization without a MatSolverType of MATSTENCILGPU", B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LUNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->lunum)(F, B, info));
  F->ops->lufactornumeric = LUNumeric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CholeskyNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->chnum)(F, B, info));
  F->ops->choleskyfactornumeric = CholeskyNumeric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after a symbolic phase: the numeric phases it chose, wrapped */
static PetscErrorCode WrapNumeric(Mat F, FactorOps *ops)
{
  PetscFunctionBegin;
  if (F->ops->lufactornumeric && F->ops->lufactornumeric != LUNumeric) {
    ops->lunum              = F->ops->lufactornumeric;
    F->ops->lufactornumeric = LUNumeric;
  }
  if (F->ops->choleskyfactornumeric && F->ops->choleskyfactornumeric != CholeskyNumeric) {
    ops->chnum                    = F->ops->choleskyfactornumeric;
    F->ops->choleskyfactornumeric = CholeskyNumeric;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->lusym)(F, B, r, c, info));
  PetscCall(WrapNumeric(F, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ILUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->ilusym)(F, B, r, c, info));
  PetscCall(WrapNumeric(F, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CholeskySymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->chsym)(F, B, p, info));
  PetscCall(WrapNumeric(F, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ICCSymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(FactorOpsGet(F, &ops));
  PetscCall(Image(A, &B));
  PetscCall((*ops->iccsym)(F, B, p, info));
  PetscCall(WrapNumeric(F, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetFactorThroughAIJ(Mat A, MatSolverType stype, MatFactorType ftype, Mat *F)
{
  Mat            B;
  FactorOps     *ops;
  PetscContainer c;

  PetscFunctionBegin;
  *F = NULL;
  PetscCall(Image(A, &B));
  PetscCall(MatGetFactor(B, stype, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(A, "MATSTENCILGPU: the %s factorization of MatSolverType %s is computed on an AIJ copy of the matrix\n", MatFactorTypes[ftype], stype));
  PetscCall(PetscNew(&ops));
  ops->lusym  = (*F)->ops->lufactorsymbolic;
  ops->chsym  = (*F)->ops->choleskyfactorsymbolic;
  ops->ilusym = (*F)->ops->ilufactorsymbolic;
  ops->iccsym = (*F)->ops->iccfactorsymbolic;
  if (ops->lusym) (*F)->ops->lufactorsymbolic = LUSymbolic;
  if (ops->chsym) (*F)->ops->choleskyfactorsymbolic = CholeskySymbolic;
  if (ops->ilusym) (*F)->ops->ilufactorsymbolic = ILUSymbolic;
  if (ops->iccsym) (*F)->ops->iccfactorsymbolic = ICCSymbolic;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, ops));
  PetscCall(GILUContainerSetFree(c));
  PetscCall(PetscObjectCompose((PetscObject)*F, "MatStencilGPU_FactorOps", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetFactor_StencilGPU_Petsc(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactorThroughAIJ(A, MATSOLVERPETSC, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetFactor_StencilGPU_MUMPS(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactorThroughAIJ(A, MATSOLVERMUMPS, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetFactor_StencilGPU_GILU(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactorThroughAIJ(A, MATSOLVERGILU, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetFactor_StencilGPU_SuperLU(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactorThroughAIJ(A, MATSOLVERSUPERLU, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetFactor_StencilGPU_SuperLU_DIST(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactorThroughAIJ(A, MATSOLVERSUPERLU_DIST, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operations above, set on a new stencilgpu matrix by MatCreate_StencilGPU() */
PetscErrorCode MatStencilGPUSetAIJOps(Mat A)
{
  PetscFunctionBegin;
  A->ops->createsubmatrices    = MatCreateSubMatrices_StencilGPU;
  A->ops->createsubmatricesmpi = MatCreateSubMatricesMPI_StencilGPU;
  A->ops->increaseoverlap      = MatIncreaseOverlap_StencilGPU;
  A->ops->multdiagonalblock    = MatMultDiagonalBlock_StencilGPU;
  A->ops->creategraph          = MatCreateGraph_StencilGPU;
  A->ops->getrowij             = MatGetRowIJ_StencilGPU;
  A->ops->restorerowij         = MatRestoreRowIJ_StencilGPU;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_StencilGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatInodeAdjustForInodes_C", MatInodeAdjustForInodes_StencilGPU)); /* the orderings of the image's getrowij are per inode */
  PetscFunctionReturn(PETSC_SUCCESS);
}
