/*
   MATSTENCILGPU: finite-difference Jacobians by coloring (MatFDColoringCreate/SetUp/Apply).

   SNES computes the Jacobian of a DMDA problem by default with the DMDA's coloring
   (SNESComputeJacobian_DMDA(), SNESComputeJacobianDefaultColor()): one function evaluation per
   color, each stored entry (row, column) taken from the difference of the evaluation of its
   column's color. The stencil tells which entries a row has, so the setup lists, per color,
   each stored entry of the rows of this process (its local row, its column in the DMDA's ghosted
   local numbering, the address of its value), and the apply writes the values there directly,
   as PETSc's AIJ implementation does. The column colors of the ghost points come from the
   DMDA's scatter (IS_COLORING_GLOBAL) or directly from the coloring (IS_COLORING_LOCAL).

   The perturbation is PETSc's: "wp" h = error_rel sqrt(1 + ||x||), "ds" h = error_rel x_j
   (|x_j| at least umin), the entry (F(x + h e_color) - F(x))_row / h_column.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilu/private/stencilgpu.h>

/* 1/h of the "ds" step for the column value x */
static inline PetscScalar InverseStepDS(PetscScalar x, PetscReal epsilon, PetscReal umin)
{
  PetscScalar dx = x;

  if (dx == (PetscScalar)0.0) dx = 1.0;
  if (PetscAbsScalar(dx) < umin && PetscRealPart(dx) >= 0.0) dx = umin;
  else if (PetscRealPart(dx) < 0.0 && PetscAbsScalar(dx) < umin) dx = -umin;
  dx *= epsilon;
  return 1.0 / dx;
}

static PetscErrorCode MatFDColoringCreate_StencilGPU(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  PetscInt n, nc;

  PetscFunctionBegin;
  PetscCheck(J->preallocated, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_WRONGSTATE, "Create the MATSTENCILGPU matrix with DMCreateMatrix() on its DMDA before MatFDColoringCreate()");
  PetscCall(ISColoringGetColors(iscoloring, &n, &nc, NULL));
  c->M       = J->rmap->N;
  c->N       = J->cmap->N;
  c->m       = J->rmap->n;
  c->rstart  = J->rmap->rstart;
  c->ncolors = nc;
  /* freed by MatFDColoringDestroy(): the columns of each color are owned by the index sets isa */
  PetscCall(PetscMalloc2(nc, &c->ncolumns, nc, &c->columns));
  PetscCall(PetscCalloc1(nc, &c->nrows));
  PetscCall(PetscCalloc1(nc, &c->isa));
  for (PetscInt k = 0; k < nc; k++) {
    c->ncolumns[k] = 0;
    c->columns[k]  = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The color of every column of the ghost box (ghost point q, dof e at q * dof + e) */
static PetscErrorCode GhostColors(Mat J, ISColoring iscoloring, PetscInt *gcolor)
{
  Mat_StencilGPU        *sg  = (Mat_StencilGPU *)J->data;
  PetscInt               dof = sg->sm.grid.dof, ngc = sg->gn[0] * sg->gn[1] * sg->gn[2] * dof, n, nc;
  const ISColoringValue *colors;
  ISColoringType         ctype;
  MPI_Comm               comm = PetscObjectComm((PetscObject)J);

  PetscFunctionBegin;
  PetscCall(ISColoringGetColors(iscoloring, &n, &nc, &colors));
  PetscCall(ISColoringGetType(iscoloring, &ctype));
  if (ctype == IS_COLORING_LOCAL) {
    PetscCheck(n == ngc, comm, PETSC_ERR_ARG_INCOMP, "The local coloring has %" PetscInt_FMT " columns, not the %" PetscInt_FMT " of the DMDA's ghosted box: create it with DMCreateColoring() on the matrix's DMDA", n, ngc);
    for (PetscInt t = 0; t < ngc; t++) gcolor[t] = colors[t];
  } else {
    DM                 da;
    Vec                g, l;
    PetscScalar       *ga;
    const PetscScalar *la;

    PetscCheck(n == J->cmap->n, comm, PETSC_ERR_ARG_INCOMP, "The coloring has %" PetscInt_FMT " local columns, the matrix %" PetscInt_FMT, n, J->cmap->n);
    PetscCall(MatGetDM(J, &da));
    PetscCall(DMGetGlobalVector(da, &g));
    PetscCall(DMGetLocalVector(da, &l));
    PetscCall(VecGetArray(g, &ga));
    for (PetscInt t = 0; t < n; t++) ga[t] = (PetscReal)colors[t];
    PetscCall(VecRestoreArray(g, &ga));
    PetscCall(DMGlobalToLocalBegin(da, g, INSERT_VALUES, l));
    PetscCall(DMGlobalToLocalEnd(da, g, INSERT_VALUES, l));
    PetscCall(VecGetArrayRead(l, &la));
    for (PetscInt t = 0; t < ngc; t++) gcolor[t] = (PetscInt)(PetscRealPart(la[t]) + 0.5);
    PetscCall(VecRestoreArrayRead(l, &la));
    PetscCall(DMRestoreLocalVector(da, &l));
    PetscCall(DMRestoreGlobalVector(da, &g));
  }
  for (PetscInt t = 0; t < ngc; t++) PetscCheck(gcolor[t] >= 0 && gcolor[t] < nc, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column %" PetscInt_FMT " of the ghosted box has color %" PetscInt_FMT ", not in [0, %" PetscInt_FMT ")", t, gcolor[t], nc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Visits every stored entry whose neighbour lies in the global grid: (box point p, row dof a, ghost column gc, address) */
#define STENCILGPU_FOREACH_ENTRY(sg, BODY) \
  do { \
    const GILUStencilMat *sm_  = &(sg)->sm; \
    PetscInt              dof_ = sm_->grid.dof; \
    for (PetscInt k_ = 0; k_ < sm_->grid.n[2]; k_++) \
      for (PetscInt j_ = 0; j_ < sm_->grid.n[1]; j_++) \
        for (PetscInt s_ = 0; s_ < sm_->stencil.ns; s_++) { \
          PetscInt ia_, ib_; \
          if (!StencilGPULineRange((sg), s_, j_, k_, &ia_, &ib_)) continue; \
          for (PetscInt i_ = ia_; i_ < ib_; i_++) { \
            PetscInt p_ = (k_ * sm_->grid.n[1] + j_) * sm_->grid.n[0] + i_, q_ = StencilGPUGhostIndex((sg), i_, j_, k_) + (sg)->gshift[s_]; \
            for (PetscInt a = 0; a < dof_; a++) \
              for (PetscInt e_ = 0; e_ < dof_; e_++) { \
                PetscInt     row = p_ * dof_ + a, gc = q_ * dof_ + e_; \
                PetscScalar *addr = sm_->val + ((size_t)s_ * sm_->npoints + p_) * sm_->bs2 + a * dof_ + e_; \
                BODY; \
              } \
          } \
        } \
  } while (0)

static PetscErrorCode MatFDColoringSetUp_StencilGPU(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)J->data;
  PetscInt        dof = sg->sm.grid.dof, ngc = sg->gn[0] * sg->gn[1] * sg->gn[2] * dof, nc = c->ncolors, *gcolor, *pos, ntot = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ngc, &gcolor, nc + 1, &pos));
  PetscCall(GhostColors(J, iscoloring, gcolor));
  /* the perturbed (owned) columns of each color, in the global numbering */
  for (PetscInt kk = 0; kk < nc; kk++) c->ncolumns[kk] = 0;
  for (PetscInt p = 0; p < sg->sm.npoints; p++) {
    PetscInt i = p % sg->sm.grid.n[0], j = (p / sg->sm.grid.n[0]) % sg->sm.grid.n[1], k = p / (sg->sm.grid.n[0] * sg->sm.grid.n[1]), q = StencilGPUGhostIndex(sg, i, j, k);

    for (PetscInt e = 0; e < dof; e++) c->ncolumns[gcolor[q * dof + e]]++;
  }
  for (PetscInt kk = 0; kk < nc; kk++) {
    PetscCall(ISDestroy(&c->isa[kk]));
    PetscCall(PetscMalloc1(c->ncolumns[kk], &c->columns[kk]));
    c->ncolumns[kk] = 0;
  }
  for (PetscInt p = 0; p < sg->sm.npoints; p++) {
    PetscInt i = p % sg->sm.grid.n[0], j = (p / sg->sm.grid.n[0]) % sg->sm.grid.n[1], k = p / (sg->sm.grid.n[0] * sg->sm.grid.n[1]), q = StencilGPUGhostIndex(sg, i, j, k);

    for (PetscInt e = 0; e < dof; e++) {
      PetscInt kk = gcolor[q * dof + e];

      c->columns[kk][c->ncolumns[kk]++] = c->rstart + p * dof + e;
    }
  }
  for (PetscInt kk = 0; kk < nc; kk++) PetscCall(ISCreateGeneral(PETSC_COMM_SELF, c->ncolumns[kk], c->columns[kk], PETSC_OWN_POINTER, &c->isa[kk]));
  /* the stored entries of each color, contiguous per color */
  for (PetscInt kk = 0; kk < nc; kk++) c->nrows[kk] = 0;
  STENCILGPU_FOREACH_ENTRY(sg, {
    (void)row;
    (void)addr;
    c->nrows[gcolor[gc]]++;
  });
  pos[0] = 0;
  for (PetscInt kk = 0; kk < nc; kk++) pos[kk + 1] = pos[kk] + c->nrows[kk];
  ntot = pos[nc];
  /* as MatFDColoringDestroy() frees them: (row, address) for "wp", whose step is one for all columns, else (row, ghost column, address) */
  if (c->htype[0] == 'w') {
    PetscCall(PetscFree(c->matentry2));
    PetscCall(PetscMalloc1(ntot, &c->matentry2));
    STENCILGPU_FOREACH_ENTRY(sg, {
      MatEntry2 *me = &c->matentry2[pos[gcolor[gc]]++];
      me->row       = row;
      me->valaddr   = addr;
    });
  } else {
    PetscCall(PetscFree(c->matentry));
    PetscCall(PetscMalloc1(ntot, &c->matentry));
    STENCILGPU_FOREACH_ENTRY(sg, {
      MatEntry *me = &c->matentry[pos[gcolor[gc]]++];
      me->row      = row;
      me->col      = gc;
      me->valaddr  = addr;
    });
  }
  PetscCall(PetscFree2(gcolor, pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFDColoringApply_StencilGPU(Mat J, MatFDColoring c, Vec x1, void *sctx)
{
  Mat_StencilGPU *sg                            = (Mat_StencilGPU *)J->data;
  PetscErrorCode (*f)(void *, Vec, Vec, void *) = (PetscErrorCode (*)(void *, Vec, Vec, void *))(void (*)(void))c->f;
  PetscInt           dof = sg->sm.grid.dof, ngc = sg->gn[0] * sg->gn[1] * sg->gn[2] * dof, nz = 0;
  PetscBool          wp  = (PetscBool)(c->htype[0] == 'w');
  PetscScalar       *inv = NULL, invw = 0.0, *w3a;
  const PetscScalar *dy;

  PetscFunctionBegin;
  PetscCheck(wp ? c->matentry2 != NULL : c->matentry != NULL, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_WRONGSTATE, "The differencing type (MatFDColoringSetType()) changed after MatFDColoringSetUp()");
  if (!c->fset) PetscCall((*f)(sctx, x1, c->w1, c->fctx));
  else c->fset = PETSC_FALSE;
  if (!c->w3) PetscCall(VecDuplicate(x1, &c->w3));
  if (wp) {
    PetscReal unorm;

    PetscCall(VecNorm(x1, NORM_2, &unorm));
    invw = 1.0 / (PetscSqrtReal(1.0 + unorm) * c->error_rel);
  } else {
    DM                 da;
    Vec                xl;
    const PetscScalar *xa;

    PetscCall(MatGetDM(J, &da));
    PetscCall(DMGetLocalVector(da, &xl));
    PetscCall(DMGlobalToLocalBegin(da, x1, INSERT_VALUES, xl));
    PetscCall(DMGlobalToLocalEnd(da, x1, INSERT_VALUES, xl));
    PetscCall(PetscMalloc1(ngc, &inv));
    PetscCall(VecGetArrayRead(xl, &xa));
    for (PetscInt t = 0; t < ngc; t++) inv[t] = InverseStepDS(xa[t], c->error_rel, c->umin);
    PetscCall(VecRestoreArrayRead(xl, &xa));
    PetscCall(DMRestoreLocalVector(da, &xl));
  }
  for (PetscInt k = 0; k < c->ncolors; k++) {
    c->currentcolor = k;
    PetscCall(VecCopy(x1, c->w3));
    PetscCall(VecGetArray(c->w3, &w3a));
    for (PetscInt l = 0; l < c->ncolumns[k]; l++) {
      PetscInt col = c->columns[k][l] - c->rstart;

      w3a[col] += 1.0 / (wp ? invw : InverseStepDS(w3a[col], c->error_rel, c->umin));
    }
    PetscCall(VecRestoreArray(c->w3, &w3a));
    PetscCall((*f)(sctx, c->w3, c->w2, c->fctx));
    PetscCall(VecAXPY(c->w2, -1.0, c->w1));
    PetscCall(VecGetArrayRead(c->w2, &dy));
    if (wp)
      for (PetscInt l = 0; l < c->nrows[k]; l++, nz++) *c->matentry2[nz].valaddr = dy[c->matentry2[nz].row] * invw;
    else
      for (PetscInt l = 0; l < c->nrows[k]; l++, nz++) *c->matentry[nz].valaddr = dy[c->matentry[nz].row] * inv[c->matentry[nz].col];
    PetscCall(VecRestoreArrayRead(c->w2, &dy));
  }
  c->currentcolor = -1;
  PetscCall(PetscFree(inv));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetUp() of the type, saved by MatStencilGPUSetColoringOps() (the same function for every matrix of the type) */
static PetscErrorCode (*MatSetUp_StencilGPU_Base)(Mat) = NULL;

/* A matrix that DMCreateMatrix() returns is assembled (zero), as PETSc's AIJ one is: MatFDColoringCreate() requires it */
static PetscErrorCode MatSetUp_StencilGPU_Assembled(Mat A)
{
  PetscFunctionBegin;
  PetscCall((*MatSetUp_StencilGPU_Base)(A));
  A->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called at the end of MatCreate_StencilGPU(): the finite-difference coloring operations */
PetscErrorCode MatStencilGPUSetColoringOps(Mat A)
{
  PetscFunctionBegin;
  if (A->ops->setup != MatSetUp_StencilGPU_Assembled) {
    MatSetUp_StencilGPU_Base = A->ops->setup;
    A->ops->setup            = MatSetUp_StencilGPU_Assembled;
  }
  A->ops->fdcoloringcreate = MatFDColoringCreate_StencilGPU;
  A->ops->fdcoloringsetup  = MatFDColoringSetUp_StencilGPU;
  A->ops->fdcoloringapply  = MatFDColoringApply_StencilGPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}
