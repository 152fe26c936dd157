/*
   MATSTENCILGPU: the matrix of a DMDA stored per stencil offset (no column indices).

   The matrix takes everything from the DMDA that DMCreateMatrix() attaches to it
   (MatSetDM() comes before MatSetUp() in DMCreateMatrix_DA()): the local box, the DoF and
   the stencil (every offset of the DMDA's star or box of its stencil width). Entries are
   located by decoding their column into a grid offset; an entry outside the stencil is an
   error. Entries of rows owned by another process are kept here and sent to their owner
   at assembly.

   The products and norms are in stencilgpu-ops.c.
*/
#include <string.h>
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilu/private/stencilgpu.h>

#define WC               GILU_STENCIL_MAX_WIDTH
#define CC               GILU_STENCILGPU_CUBE
#define CUBE(dx, dy, dz) ((((dz) + WC) * CC + ((dy) + WC)) * CC + ((dx) + WC))

static PetscErrorCode ComposeAIJPreallocation(Mat, PetscBool);

static PetscErrorCode MatSetUp_StencilGPU(Mat A)
{
  Mat_StencilGPU        *sg   = (Mat_StencilGPU *)A->data;
  GILUStencilMat        *sm   = &sg->sm;
  GILUStencil           *st   = &sm->stencil;
  MPI_Comm               comm = PetscObjectComm((PetscObject)A);
  DM                     da;
  PetscBool              isda;
  PetscInt               dim, M, N, P, dof, sw, xs[3], xm[3], gs[3], gm[3], w[3], ngp, bs;
  DMBoundaryType         bd[3];
  DMDAStencilType        stype;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *idx;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &da));
  PetscCheck(da, comm, PETSC_ERR_ARG_WRONGSTATE,
             "MATSTENCILGPU takes its grid and stencil from a DMDA: create the matrix with DMCreateMatrix() on a DMDA (-dm_mat_type stencilgpu or DMSetMatType()). "
             "(MatAXPY() or MatCopy() into a stencilgpu matrix from another type with DIFFERENT_NONZERO_PATTERN gets here, because PETSc then builds a new matrix without the DMDA: "
             "pass SUBSET_NONZERO_PATTERN, which holds whenever the other matrix's entries lie in the stencil)");
  PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
  PetscCheck(isda, comm, PETSC_ERR_ARG_WRONG, "MATSTENCILGPU needs a DMDA, not a %s: use -dm_mat_type aij", ((PetscObject)da)->type_name);
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &sw, &bd[0], &bd[1], &bd[2], &stype));
  for (PetscInt d = 0; d < dim; d++) PetscCheck(bd[d] == DM_BOUNDARY_NONE, comm, PETSC_ERR_SUP, "MATSTENCILGPU supports DMDAs with DM_BOUNDARY_NONE only (direction %" PetscInt_FMT " is %s): use -dm_mat_type aij", d, DMBoundaryTypes[bd[d]]);
  PetscCheck(sw <= WC, comm, PETSC_ERR_SUP, "MATSTENCILGPU supports DMDA stencil widths up to %d, not %" PetscInt_FMT ": use -dm_mat_type aij", WC, sw);
  PetscCall(DMDAGetCorners(da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(DMDAGetGhostCorners(da, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  for (PetscInt d = dim; d < 3; d++) xs[d] = gs[d] = 0, xm[d] = gm[d] = 1;
  PetscCheck(A->rmap->n == xm[0] * xm[1] * xm[2] * dof && A->cmap->n == A->rmap->n, comm, PETSC_ERR_ARG_SIZ, "The matrix's %" PetscInt_FMT " local rows differ from the %" PetscInt_FMT " unknowns of the DMDA's local box", A->rmap->n, xm[0] * xm[1] * xm[2] * dof);
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(bs == 1 || bs == dof, comm, PETSC_ERR_ARG_INCOMP, "Block size %" PetscInt_FMT " differs from the DMDA's %" PetscInt_FMT " DoF", bs, dof);

  /* the stencil: all offsets of the star or box, in natural order */
  for (PetscInt d = 0; d < 3; d++) w[d] = d < dim ? sw : 0;
  st->ns     = 0;
  st->nlower = -1;
  for (PetscInt t = 0; t < CC * CC * CC; t++) sg->cube2s[t] = -1;
  for (PetscInt dz = -w[2]; dz <= w[2]; dz++)
    for (PetscInt dy = -w[1]; dy <= w[1]; dy++)
      for (PetscInt dx = -w[0]; dx <= w[0]; dx++) {
        if (stype == DMDA_STENCIL_STAR && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
        PetscCheck(st->ns < GILU_STENCIL_MAX_OFFSETS, comm, PETSC_ERR_SUP, "The DMDA's stencil has more than %d offsets: use -dm_mat_type aij", GILU_STENCIL_MAX_OFFSETS);
        if (!dx && !dy && !dz) st->nlower = st->ns;
        st->off[st->ns][0]           = dx;
        st->off[st->ns][1]           = dy;
        st->off[st->ns][2]           = dz;
        sg->cube2s[CUBE(dx, dy, dz)] = st->ns++;
      }
  for (PetscInt d = 0; d < 3; d++) st->width[d] = w[d];
  sm->grid.dim = dim;
  sm->grid.dof = dof;
  for (PetscInt d = 0; d < 3; d++) {
    sm->grid.n[d] = xm[d];
    sg->xs[d]     = xs[d];
    sg->gs[d]     = gs[d];
    sg->gn[d]     = gm[d];
  }
  sg->M[0]    = M;
  sg->M[1]    = dim > 1 ? N : 1;
  sg->M[2]    = dim > 2 ? P : 1;
  sg->swidth  = sw;
  sg->box     = (PetscBool)(stype == DMDA_STENCIL_BOX);
  sm->npoints = xm[0] * xm[1] * xm[2];
  sm->bs2     = dof * dof;
  PetscCall(PetscFree(sm->shift));
  PetscCall(PetscFree(sm->val));
  PetscCall(PetscFree(sg->gshift));
  PetscCall(PetscFree(sg->gglobal));
  PetscCall(PetscMalloc1(st->ns, &sm->shift));
  PetscCall(PetscMalloc1(st->ns, &sg->gshift));
  for (PetscInt s = 0; s < st->ns; s++) {
    sm->shift[s]  = st->off[s][0] + xm[0] * (st->off[s][1] + xm[1] * st->off[s][2]);
    sg->gshift[s] = st->off[s][0] + gm[0] * (st->off[s][1] + gm[1] * st->off[s][2]);
  }
  PetscCall(PetscCalloc1((size_t)st->ns * sm->npoints * sm->bs2, &sm->val));
  /* global point of each ghost point */
  ngp = gm[0] * gm[1] * gm[2];
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &idx));
  PetscCall(PetscMalloc1(ngp, &sg->gglobal));
  PetscCall(PetscArraycpy(sg->gglobal, idx, ngp));
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &idx));
  PetscCall(PetscMalloc2(st->ns * dof, &sg->rowcols, st->ns * dof, &sg->rowvals));
  PetscCall(MatGetNonzeroState(A, &sm->nonzerostate));
  PetscCall(ComposeAIJPreallocation(A, PETSC_FALSE));
  A->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Point p of the box with coordinates (i,j,k) */
static inline void BoxCoords(const Mat_StencilGPU *sg, PetscInt p, PetscInt c[3])
{
  const PetscInt *n = sg->sm.grid.n;

  c[0] = p % n[0];
  c[1] = (p / n[0]) % n[1];
  c[2] = p / (n[0] * n[1]);
}

/* Adds (or inserts) v at row dof a of box point p, column dof e of ghost point q */
static PetscErrorCode SetEntry(Mat A, PetscInt p, PetscInt a, PetscInt q, PetscInt e, PetscScalar v, InsertMode mode)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  PetscInt        c[3], g[3], d[3], s = -1;
  PetscScalar    *x;

  PetscFunctionBegin;
  BoxCoords(sg, p, c);
  g[0] = q % sg->gn[0];
  g[1] = (q / sg->gn[0]) % sg->gn[1];
  g[2] = q / (sg->gn[0] * sg->gn[1]);
  for (PetscInt t = 0; t < 3; t++) d[t] = g[t] + sg->gs[t] - (c[t] + sg->xs[t]);
  if (PetscAbsInt(d[0]) <= WC && PetscAbsInt(d[1]) <= WC && PetscAbsInt(d[2]) <= WC) s = sg->cube2s[CUBE(d[0], d[1], d[2])];
  PetscCheck(s >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Entry coupling grid point (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") to (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") is outside the DMDA's %s stencil of width %" PetscInt_FMT ": MATSTENCILGPU stores only the stencil's couplings; widen the DMDA's stencil or use -dm_mat_type aij", c[0] + sg->xs[0], c[1] + sg->xs[1], c[2] + sg->xs[2], g[0] + sg->gs[0], g[1] + sg->gs[1], g[2] + sg->gs[2], sg->box ? "box" : "star", sg->swidth);
  x = sg->sm.val + ((size_t)s * sg->sm.npoints + p) * sg->sm.bs2 + a * sg->sm.grid.dof + e;
  if (mode == INSERT_VALUES) *x = v;
  else *x += v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ghost point of global point (block) index gp, -1 if it is not one */
static PetscErrorCode GlobalToGhost(Mat A, PetscInt gp, PetscInt *q)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof, p0 = A->rmap->rstart / dof;

  PetscFunctionBegin;
  if (gp >= p0 && gp < p0 + sg->sm.npoints) {
    PetscInt c[3];

    BoxCoords(sg, gp - p0, c);
    *q = StencilGPUGhostIndex(sg, c[0], c[1], c[2]);
  } else {
    DM                     da;
    ISLocalToGlobalMapping ltog;
    PetscInt               nout;

    PetscCall(MatGetDM(A, &da));
    PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
    PetscCall(ISGlobalToLocalMappingApplyBlock(ltog, IS_GTOLM_MASK, 1, &gp, &nout, q));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Stash(Mat A, PetscInt row, PetscInt col, PetscScalar v)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

  PetscFunctionBegin;
  if (sg->nstash == sg->maxstash) {
    PetscInt    *rc;
    PetscScalar *vv;

    sg->maxstash = PetscMax(2 * sg->maxstash, 1024);
    PetscCall(PetscMalloc2(2 * sg->maxstash, &rc, sg->maxstash, &vv));
    PetscCall(PetscArraycpy(rc, sg->stashrc, 2 * sg->nstash));
    PetscCall(PetscArraycpy(vv, sg->stashv, sg->nstash));
    PetscCall(PetscFree2(sg->stashrc, sg->stashv));
    sg->stashrc = rc;
    sg->stashv  = vv;
  }
  sg->stashrc[2 * sg->nstash]     = row;
  sg->stashrc[2 * sg->nstash + 1] = col;
  sg->stashv[sg->nstash++]        = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One entry in global numbering */
static PetscErrorCode SetGlobal(Mat A, PetscInt row, PetscInt col, PetscScalar v, InsertMode mode)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof;
  PetscInt        q;

  PetscFunctionBegin;
  if (row < 0 || col < 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (row < A->rmap->rstart || row >= A->rmap->rend) {
    if (!A->nooffprocentries) PetscCall(Stash(A, row, col, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(col < A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column %" PetscInt_FMT " is beyond the %" PetscInt_FMT " columns", col, A->cmap->N);
  PetscCall(GlobalToGhost(A, col / dof, &q));
  PetscCheck(q >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Entry (%" PetscInt_FMT ",%" PetscInt_FMT ") couples row %" PetscInt_FMT " to a grid point outside the DMDA's stencil: MATSTENCILGPU stores only the stencil's couplings; use -dm_mat_type aij", row, col, row);
  PetscCall(SetEntry(A, (row - A->rmap->rstart) / dof, (row - A->rmap->rstart) % dof, q, col % dof, v, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValues_StencilGPU(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  PetscFunctionBegin;
  if (!A->preallocated) PetscCall(MatSetUp(A)); /* values before MatSetUp() */
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt c = 0; c < n; c++) PetscCall(SetGlobal(A, rows[r], cols[c], v ? v[r * n + c] : 0.0, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entries in the DMDA's ghosted local numbering: no global index is formed for owned rows */
static PetscErrorCode MatSetValuesLocal_StencilGPU(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof, ngp = sg->gn[0] * sg->gn[1] * sg->gn[2];

  PetscFunctionBegin;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt q = rows[r] / dof, g[3], c[3], p = -1;

    if (rows[r] < 0) continue;
    PetscCheck(q < ngp, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Local row %" PetscInt_FMT " is beyond the %" PetscInt_FMT " local (ghosted) rows", rows[r], ngp * dof);
    g[0] = q % sg->gn[0];
    g[1] = (q / sg->gn[0]) % sg->gn[1];
    g[2] = q / (sg->gn[0] * sg->gn[1]);
    for (PetscInt t = 0; t < 3; t++) c[t] = g[t] + sg->gs[t] - sg->xs[t];
    if (c[0] >= 0 && c[0] < sg->sm.grid.n[0] && c[1] >= 0 && c[1] < sg->sm.grid.n[1] && c[2] >= 0 && c[2] < sg->sm.grid.n[2]) p = (c[2] * sg->sm.grid.n[1] + c[1]) * sg->sm.grid.n[0] + c[0];
    for (PetscInt k = 0; k < n; k++) {
      PetscScalar val = v ? v[r * n + k] : 0.0;

      if (cols[k] < 0) continue;
      PetscCheck(cols[k] / dof < ngp, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Local column %" PetscInt_FMT " is beyond the %" PetscInt_FMT " local (ghosted) columns", cols[k], ngp * dof);
      if (p >= 0) PetscCall(SetEntry(A, p, rows[r] % dof, cols[k] / dof, cols[k] % dof, val, mode));
      else if (!A->nooffprocentries) PetscCall(Stash(A, sg->gglobal[q] * dof + rows[r] % dof, sg->gglobal[cols[k] / dof] * dof + cols[k] % dof, val));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesBlockedLocal_StencilGPU(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  PetscInt dof, *r, *c;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &dof));
  PetscCall(PetscMalloc2(m * dof, &r, n * dof, &c));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt a = 0; a < dof; a++) r[i * dof + a] = rows[i] < 0 ? -1 : rows[i] * dof + a;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt a = 0; a < dof; a++) c[i * dof + a] = cols[i] < 0 ? -1 : cols[i] * dof + a;
  PetscCall(MatSetValuesLocal_StencilGPU(A, m * dof, r, n * dof, c, v, mode));
  PetscCall(PetscFree2(r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sends the stashed entries to the processes that own their rows and sets them there */
static PetscErrorCode DiagonalBlockRefresh(Mat, Mat);

static PetscErrorCode MatAssemblyEndStash_StencilGPU(Mat A)
{
  Mat_StencilGPU *sg   = (Mat_StencilGPU *)A->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  InsertMode      mode;
  PetscMPIInt    *scnt, *rcnt, *sdsp, *rdsp, *scnt2, *rcnt2, *sdsp2, *rdsp2, nrecv = 0;
  PetscInt       *srcv, *rrc, *perm, nstash = sg->nstash;
  PetscScalar    *sv, *rv;

  PetscFunctionBegin;
  if (sg->size == 1 || A->nooffprocentries) {
    sg->nstash = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MPIU_Allreduce((PetscEnum *)&A->insertmode, (PetscEnum *)&mode, 1, MPIU_ENUM, MPI_BOR, comm));
  PetscCheck(mode != (ADD_VALUES | INSERT_VALUES), comm, PETSC_ERR_ARG_WRONGSTATE, "Some processes inserted values while others added");
  PetscCall(PetscCalloc4(sg->size, &scnt, sg->size, &rcnt, sg->size + 1, &sdsp, sg->size + 1, &rdsp));
  PetscCall(PetscCalloc4(sg->size, &scnt2, sg->size, &rcnt2, sg->size + 1, &sdsp2, sg->size + 1, &rdsp2));
  PetscCall(PetscMalloc3(nstash, &perm, 2 * nstash, &srcv, nstash, &sv));
  for (PetscInt t = 0; t < nstash; t++) {
    PetscMPIInt owner;

    PetscCall(PetscLayoutFindOwner(A->rmap, sg->stashrc[2 * t], &owner));
    perm[t] = owner;
    scnt[owner]++;
  }
  PetscCallMPI(MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < sg->size; r++) {
    sdsp[r + 1] = sdsp[r] + scnt[r];
    rdsp[r + 1] = rdsp[r] + rcnt[r];
    scnt2[r]    = 2 * scnt[r];
    rcnt2[r]    = 2 * rcnt[r];
    sdsp2[r]    = 2 * sdsp[r];
    rdsp2[r]    = 2 * rdsp[r];
  }
  nrecv = rdsp[sg->size];
  {
    PetscMPIInt *pos;

    PetscCall(PetscMalloc1(sg->size, &pos));
    for (PetscMPIInt r = 0; r < sg->size; r++) pos[r] = sdsp[r];
    for (PetscInt t = 0; t < nstash; t++) {
      PetscMPIInt at = pos[perm[t]]++;

      srcv[2 * at]     = sg->stashrc[2 * t];
      srcv[2 * at + 1] = sg->stashrc[2 * t + 1];
      sv[at]           = sg->stashv[t];
    }
    PetscCall(PetscFree(pos));
  }
  PetscCall(PetscMalloc2(2 * nrecv, &rrc, nrecv, &rv));
  PetscCallMPI(MPI_Alltoallv(srcv, scnt2, sdsp2, MPIU_INT, rrc, rcnt2, rdsp2, MPIU_INT, comm));
  PetscCallMPI(MPI_Alltoallv(sv, scnt, sdsp, MPIU_SCALAR, rv, rcnt, rdsp, MPIU_SCALAR, comm));
  for (PetscInt t = 0; t < nrecv; t++) PetscCall(SetGlobal(A, rrc[2 * t], rrc[2 * t + 1], rv[t], mode));
  PetscCall(PetscFree2(rrc, rv));
  PetscCall(PetscFree3(perm, srcv, sv));
  PetscCall(PetscFree4(scnt, rcnt, sdsp, rdsp));
  PetscCall(PetscFree4(scnt2, rcnt2, sdsp2, rdsp2));
  sg->nstash = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix assembled before MatSetUp() is set up first */
static PetscErrorCode MatAssemblyBegin_StencilGPU(Mat A, MatAssemblyType type)
{
  PetscFunctionBegin;
  if (!A->preallocated) PetscCall(MatSetUp(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_StencilGPU(Mat A, MatAssemblyType type)
{
  PetscObject block;

  PetscFunctionBegin;
  PetscCall(MatAssemblyEndStash_StencilGPU(A));
  PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_DiagonalBlock", &block));
  if (block && type == MAT_FINAL_ASSEMBLY) PetscCall(DiagonalBlockRefresh(A, (Mat)block));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroEntries_StencilGPU(Mat A)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(sg->sm.val, (size_t)sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows may be owned by any process (as for MPIAIJ): each is zeroed by its owner */
static PetscErrorCode MatZeroRows_StencilGPU(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_StencilGPU    *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt     dof = sg->sm.grid.dof;
  const size_t       N   = (size_t)sg->sm.npoints;
  const PetscScalar *xa  = NULL;
  PetscScalar       *ba  = NULL;
  PetscInt           nr, *lrows, *grows, ng = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &grows));
  for (PetscInt t = 0; t < n; t++) {
    PetscCheck(rows[t] < A->rmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " is beyond the %" PetscInt_FMT " rows", rows[t], A->rmap->N);
    if (rows[t] >= 0) grows[ng++] = rows[t];
  }
  if (sg->size > 1) {
    PetscCall(PetscLayoutMapLocal(A->rmap, ng, grows, &nr, &lrows, NULL));
    PetscCall(PetscFree(grows));
  } else {
    for (PetscInt t = 0; t < ng; t++) grows[t] -= A->rmap->rstart;
    nr    = ng;
    lrows = grows;
  }
  if (x && b) {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(b, &ba));
  }
  for (PetscInt t = 0; t < nr; t++) {
    PetscInt r = lrows[t], p = r / dof, a = r % dof;

    for (PetscInt s = 0; s < sg->sm.stencil.ns; s++)
      for (PetscInt e = 0; e < dof; e++) sg->sm.val[((size_t)s * N + p) * sg->sm.bs2 + a * dof + e] = 0;
    sg->sm.val[((size_t)sg->sm.stencil.nlower * N + p) * sg->sm.bs2 + a * dof + a] = diag;
    if (ba) ba[r] = diag * xa[r];
  }
  if (x && b) {
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArray(b, &ba));
  }
  PetscCall(PetscFree(lrows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The in-grid stencil positions of global row `row` (owned), in global numbering */
static PetscErrorCode GetRowEntries(Mat A, PetscInt row, PetscInt *nz, PetscInt *cols, PetscScalar *vals)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof, r = row - A->rmap->rstart, p = r / dof, a = r % dof;
  const size_t    N = (size_t)sg->sm.npoints;
  PetscInt        c[3], gp, cnt = 0;

  PetscFunctionBegin;
  PetscCheck(r >= 0 && row < A->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " is not owned by this process (rows %" PetscInt_FMT " to %" PetscInt_FMT ")", row, A->rmap->rstart, A->rmap->rend - 1);
  BoxCoords(sg, p, c);
  gp = StencilGPUGhostIndex(sg, c[0], c[1], c[2]);
  for (PetscInt s = 0; s < sg->sm.stencil.ns; s++) {
    const PetscInt *d  = sg->sm.stencil.off[s];
    PetscBool       in = PETSC_TRUE;

    for (PetscInt t = 0; t < 3; t++) in = (PetscBool)(in && c[t] + sg->xs[t] + d[t] >= 0 && c[t] + sg->xs[t] + d[t] < sg->M[t]);
    if (!in) continue;
    for (PetscInt e = 0; e < dof; e++, cnt++) {
      if (cols) cols[cnt] = sg->gglobal[gp + sg->gshift[s]] * dof + e;
      if (vals) vals[cnt] = sg->sm.val[((size_t)s * N + p) * sg->sm.bs2 + a * dof + e];
    }
  }
  if (sg->size > 1 && cols && vals) PetscCall(PetscSortIntWithScalarArray(cnt, cols, vals));
  *nz = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetRow_StencilGPU(Mat A, PetscInt row, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCheck(!sg->getrowactive, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Only one row at a time: call MatRestoreRow() first");
  sg->getrowactive = PETSC_TRUE;
  PetscCall(GetRowEntries(A, row, &n, sg->rowcols, sg->rowvals));
  if (nz) *nz = n;
  if (cols) *cols = sg->rowcols;
  if (vals) *vals = sg->rowvals;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatRestoreRow_StencilGPU(Mat A, PetscInt row, PetscInt *nz, PetscInt **cols, PetscScalar **vals)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

  PetscFunctionBegin;
  sg->getrowactive = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is B a stencilgpu matrix with the structure of A? */
static PetscErrorCode SameStructure(Mat A, Mat B, PetscBool *same)
{
  Mat_StencilGPU *a = (Mat_StencilGPU *)A->data, *b;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, same, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
  if (!*same) PetscFunctionReturn(PETSC_SUCCESS);
  b     = (Mat_StencilGPU *)B->data;
  *same = (PetscBool)(b->sm.val && a->sm.npoints == b->sm.npoints && a->sm.bs2 == b->sm.bs2 && a->sm.stencil.ns == b->sm.stencil.ns && !memcmp(a->sm.stencil.off, b->sm.stencil.off, sizeof(PetscInt) * 3 * a->sm.stencil.ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B = A (insert every row of A into B) */
static PetscErrorCode CopyRows(Mat A, Mat B)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

  PetscFunctionBegin;
  for (PetscInt row = A->rmap->rstart; row < A->rmap->rend; row++) {
    PetscInt n;

    PetscCall(GetRowEntries(A, row, &n, sg->rowcols, sg->rowvals));
    PetscCall(MatSetValues(B, 1, &row, n, sg->rowcols, sg->rowvals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCopy_StencilGPU(Mat A, Mat B, MatStructure str)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(SameStructure(A, B, &same));
  if (same) {
    PetscCall(PetscArraycpy(((Mat_StencilGPU *)B->data)->sm.val, sg->sm.val, (size_t)sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2));
    PetscCall(PetscObjectStateIncrease((PetscObject)B));
  } else {
    PetscCall(MatZeroEntries(B));
    PetscCall(CopyRows(A, B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAXPY_StencilGPU(Mat Y, PetscScalar alpha, Mat X, MatStructure str)
{
  Mat_StencilGPU *sy = (Mat_StencilGPU *)Y->data;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(SameStructure(Y, X, &same));
  if (same) {
    const PetscScalar *xv = ((Mat_StencilGPU *)X->data)->sm.val;
    const size_t       n  = (size_t)sy->sm.stencil.ns * sy->sm.npoints * sy->sm.bs2;

    for (size_t t = 0; t < n; t++) sy->sm.val[t] += alpha * xv[t];
  } else { /* X's rows must lie in Y's stencil */
    for (PetscInt row = X->rmap->rstart; row < X->rmap->rend; row++) {
      PetscInt           n;
      const PetscInt    *cols;
      const PetscScalar *vals;

      PetscCall(MatGetRow(X, row, &n, &cols, &vals));
      for (PetscInt c = 0; c < n; c++) PetscCall(SetGlobal(Y, row, cols[c], alpha * vals[c], ADD_VALUES));
      PetscCall(MatRestoreRow(X, row, &n, &cols, &vals));
    }
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_StencilGPU(Mat A, MatDuplicateOption op, Mat *B)
{
  DM da;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &da));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(*B, A, A));
  PetscCall(MatSetType(*B, ((PetscObject)A)->type_name));
  PetscCall(MatSetDM(*B, da));
  PetscCall(MatSetUp(*B));
  if (A->rmap->mapping) PetscCall(MatSetLocalToGlobalMapping(*B, A->rmap->mapping, A->cmap->mapping));
  (*B)->stencil = A->stencil;
  if (op == MAT_COPY_VALUES || op == MAT_SHARE_NONZERO_PATTERN) {
    Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

    if (op == MAT_COPY_VALUES) PetscCall(PetscArraycpy(((Mat_StencilGPU *)(*B)->data)->sm.val, sg->sm.val, (size_t)sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* To AIJ or BAIJ directly (preallocated from the stencil); to any other type through AIJ */
PetscErrorCode MatConvert_StencilGPU(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof;
  Mat             B;
  PetscBool       xaij;
  PetscInt       *dnnz, *onnz;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, DIFFERENT_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizes(B, dof, dof));
  PetscCall(MatSetType(B, newtype));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)B, &xaij, MATSEQAIJ, MATMPIAIJ, MATSEQBAIJ, MATMPIBAIJ, ""));
  if (!xaij) { /* e.g. MATHYPRE: through AIJ, which PETSc converts to most types */
    Mat C;

    PetscCall(MatDestroy(&B));
    PetscCall(MatConvert_StencilGPU(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatConvert(C, newtype, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatDestroy(&C));
  } else {
    PetscCall(PetscCalloc2(sg->sm.npoints, &dnnz, sg->sm.npoints, &onnz));
    for (PetscInt p = 0; p < sg->sm.npoints; p++) {
      PetscInt c[3];

      BoxCoords(sg, p, c);
      for (PetscInt s = 0; s < sg->sm.stencil.ns; s++) {
        const PetscInt *d  = sg->sm.stencil.off[s];
        PetscBool       in = PETSC_TRUE, mine = PETSC_TRUE;

        for (PetscInt t = 0; t < 3; t++) {
          in   = (PetscBool)(in && c[t] + sg->xs[t] + d[t] >= 0 && c[t] + sg->xs[t] + d[t] < sg->M[t]);
          mine = (PetscBool)(mine && c[t] + d[t] >= 0 && c[t] + d[t] < sg->sm.grid.n[t]);
        }
        if (in && mine) dnnz[p]++;
        else if (in) onnz[p]++;
      }
    }
    PetscCall(MatXAIJSetPreallocation(B, dof, dnnz, onnz, NULL, NULL));
    PetscCall(PetscFree2(dnnz, onnz));
    PetscCall(CopyRows(A, B));
  }
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_StencilGPU(Mat A, PetscViewer viewer)
{
  Mat_StencilGPU   *sg = (Mat_StencilGPU *)A->data;
  PetscBool         ascii;
  PetscViewerFormat format;
  char              name[64];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    const GILUGrid *g = &sg->sm.grid;

    if (!sg->sm.val) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(GILUStencilGetName(&sg->sm.stencil, g->dim, name, sizeof(name)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  stencil: %s (the DMDA's %s stencil of width %" PetscInt_FMT "), DoF %" PetscInt_FMT ", %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT "\n", name, sg->box ? "box" : "star", sg->swidth, g->dof, g->dim, sg->M[0], sg->M[1], sg->M[2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  storage: %" PetscInt_FMT " offsets x %" PetscInt_FMT " x %" PetscInt_FMT " blocks per grid point, stencil-major, no column indices\n", sg->sm.stencil.ns, g->dof, g->dof));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    Mat B;

    PetscCall(MatConvert_StencilGPU(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatView(B, viewer));
    PetscCall(MatDestroy(&B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Submatrices are general sparse matrices: they come out as AIJ. This is also how a parallel
  DMDA matrix is viewed (the DMDA's MatView takes the submatrix in the natural ordering).
*/
static PetscErrorCode MatCreateSubMatrix_StencilGPU(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *sub)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatConvert_StencilGPU(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateSubMatrix(B, isrow, iscol, reuse, sub));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_StencilGPU(Mat A, MatInfoType flag, MatInfo *info)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  PetscLogDouble  v[5], w[5];
  PetscInt64      npos = 0;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < sg->sm.npoints; p++) {
    PetscInt c[3];

    BoxCoords(sg, p, c);
    for (PetscInt s = 0; s < sg->sm.stencil.ns; s++) {
      PetscBool in = PETSC_TRUE;

      for (PetscInt t = 0; t < 3; t++) in = (PetscBool)(in && c[t] + sg->xs[t] + sg->sm.stencil.off[s][t] >= 0 && c[t] + sg->xs[t] + sg->sm.stencil.off[s][t] < sg->M[t]);
      npos += in;
    }
  }
  v[0] = (PetscLogDouble)sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2; /* allocated */
  v[1] = (PetscLogDouble)npos * sg->sm.bs2;                               /* used */
  v[2] = v[0] - v[1];
  v[3] = v[0] * sizeof(PetscScalar);
  v[4] = 0;
  if (flag == MAT_LOCAL) PetscCall(PetscArraycpy(w, v, 5));
  else PetscCall(MPIU_Allreduce(v, w, 5, MPIU_PETSCLOGDOUBLE, flag == MAT_GLOBAL_MAX ? MPI_MAX : MPI_SUM, PetscObjectComm((PetscObject)A)));
  info->block_size        = sg->sm.grid.dof;
  info->nz_allocated      = w[0];
  info->nz_used           = w[1];
  info->nz_unneeded       = w[2];
  info->memory            = w[3];
  info->mallocs           = w[4];
  info->assemblies        = A->num_ass;
  info->fill_ratio_given  = 0;
  info->fill_ratio_needed = 0;
  info->factor_mallocs    = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_StencilGPU(Mat A)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUDeviceReset(sg));
  PetscCall(GILUStencilMatReset(&sg->sm));
  PetscCall(PetscFree(sg->gshift));
  PetscCall(PetscFree(sg->gglobal));
  PetscCall(PetscFree2(sg->rowcols, sg->rowvals));
  PetscCall(PetscFree2(sg->stashrc, sg->stashv));
  PetscCall(PetscFree(sg->ibdiag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatInodeAdjustForInodes_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqAIJSetPreallocation_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", NULL));
  PetscCall(MatStencilGPUComposeConversions(A, PETSC_FALSE));
  PetscCall(PetscFree(A->data));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the diagonal block B of A: A's, with the couplings to points outside the box set to zero */
static PetscErrorCode DiagonalBlockRefresh(Mat A, Mat B)
{
  Mat_StencilGPU    *sg = (Mat_StencilGPU *)A->data, *sb = (Mat_StencilGPU *)B->data;
  const GILUStencil *st = &sg->sm.stencil;
  const PetscInt    *n = sg->sm.grid.n, bs2 = sg->sm.bs2, N = sg->sm.npoints;

  PetscFunctionBegin;
  PetscCall(PetscArraycpy(sb->sm.val, sg->sm.val, (size_t)st->ns * N * bs2));
  for (PetscInt s = 0; s < st->ns; s++)
    for (PetscInt p = 0; p < N; p++) {
      PetscInt  c[3];
      PetscBool in = PETSC_TRUE;

      BoxCoords(sg, p, c);
      for (PetscInt t = 0; t < 3; t++) in = (PetscBool)(in && c[t] + st->off[s][t] >= 0 && c[t] + st->off[s][t] < n[t]);
      if (!in) PetscCall(PetscArrayzero(sb->sm.val + ((size_t)s * N + p) * bs2, bs2));
    }
  sb->sm.nonzerostate = sg->sm.nonzerostate;
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The diagonal block of mpistencilgpu: a seqstencilgpu matrix on the process's box (grid =
  box, no ghost points), kept with A and refreshed at each MatGetDiagonalBlock() and final
  assembly of A; seqstencilgpu is its own
*/
static PetscErrorCode MatGetDiagonalBlock_StencilGPU(Mat A, Mat *a)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data, *sb;
  PetscObject     obj;
  Mat             B;

  PetscFunctionBegin;
  if (sg->size == 1) {
    *a = A;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSetUp(A));
  PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_DiagonalBlock", &obj));
  B = (Mat)obj;
  if (!B) {
    const PetscInt np = sg->sm.npoints, ns = sg->sm.stencil.ns, dof = sg->sm.grid.dof;

    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
    PetscCall(MatSetBlockSizesFromMats(B, A, A));
    PetscCall(MatSetType(B, MATSEQSTENCILGPU));
    PetscCall(PetscLayoutSetUp(B->rmap));
    PetscCall(PetscLayoutSetUp(B->cmap));
    sb = (Mat_StencilGPU *)B->data;
    PetscCall(GILUStencilMatCopyStructure(&sg->sm, &sb->sm));
    for (PetscInt d = 0; d < 3; d++) {
      sb->M[d]  = sg->sm.grid.n[d];
      sb->xs[d] = 0;
      sb->gs[d] = 0;
      sb->gn[d] = sg->sm.grid.n[d];
    }
    PetscCall(PetscMalloc1(ns, &sb->gshift));
    PetscCall(PetscArraycpy(sb->gshift, sb->sm.shift, ns));
    PetscCall(PetscMalloc1(np, &sb->gglobal));
    for (PetscInt p = 0; p < np; p++) sb->gglobal[p] = p;
    PetscCall(PetscArraycpy(sb->cube2s, sg->cube2s, CC * CC * CC));
    sb->swidth = sg->swidth;
    sb->box    = sg->box;
    PetscCall(PetscMalloc2(ns * dof, &sb->rowcols, ns * dof, &sb->rowvals));
    B->preallocated = PETSC_TRUE;
    B->assembled    = PETSC_TRUE;
    PetscCall(PetscObjectCompose((PetscObject)A, "MatStencilGPU_DiagonalBlock", (PetscObject)B));
    PetscCall(MatDestroy(&B));
    PetscCall(PetscObjectQuery((PetscObject)A, "MatStencilGPU_DiagonalBlock", &obj));
    B = (Mat)obj;
  }
  PetscCall(DiagonalBlockRefresh(A, B));
  *a = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
/*
  MatStencilGPUGetStencilMat - whether A is MATSTENCILGPU and, if so, its local stencil matrix
  (the rank's DMDA box; the values are the matrix's own, read only)
*/
PetscErrorCode MatStencilGPUGetStencilMat(Mat A, PetscBool *is, const GILUStencilMat **sm)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, is, MATSEQSTENCILGPU, MATMPISTENCILGPU, ""));
  if (*is) {
    PetscCall(MatSetUp(A));
    *sm = &((Mat_StencilGPU *)A->data)->sm;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sizes that no DMDA operator has (a DMDA operator is square) */
static PetscBool Rectangular(Mat A)
{
  return (PetscBool)((A->rmap->n >= 0 && A->cmap->n >= 0 && A->rmap->n != A->cmap->n) || (A->rmap->N >= 0 && A->cmap->N >= 0 && A->rmap->N != A->cmap->N));
}

/*
  A rectangular matrix that PETSc creates with the type of a stencilgpu operator and preallocates as
  AIJ (PCGAMG's prolongator, on every process) has no grid: it becomes AIJ. (A square one, such as
  the new matrix of MatAXPY() with DIFFERENT_NONZERO_PATTERN, which PETSc merges into the operator,
  stays stencilgpu, and MatSetUp() says what to do.) These are composed on a new
  matrix and removed by MatSetFromOptions() and MatSetUp(), so DMCreateMatrix() (which calls
  MatSetFromOptions() before it looks for them) still builds a stencilgpu matrix.
*/
static PetscErrorCode MatSeqAIJSetPreallocation_StencilGPU(Mat A, PetscInt nz, const PetscInt nnz[])
{
  PetscFunctionBegin;
  if (!Rectangular(A)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(A, "MATSTENCILGPU preallocated as AIJ without a DMDA: the matrix becomes AIJ\n"));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(A, nz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJSetPreallocation_StencilGPU(Mat A, PetscInt dnz, const PetscInt dnnz[], PetscInt onz, const PetscInt onnz[])
{
  PetscFunctionBegin;
  if (!Rectangular(A)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(A, "MATSTENCILGPU preallocated as AIJ without a DMDA: the matrix becomes AIJ\n"));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatMPIAIJSetPreallocation(A, dnz, dnnz, onz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ComposeAIJPreallocation(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqAIJSetPreallocation_C", on ? MatSeqAIJSetPreallocation_StencilGPU : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", on ? MatMPIAIJSetPreallocation_StencilGPU : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_StencilGPU(Mat A, GILUOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  PetscCall(ComposeAIJPreallocation(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSTENCILGPU - "stencilgpu": the matrix of a `DMDA` stored per stencil offset, without column indices

   For each offset of the stencil (every offset of the `DMDA`'s star or box of its stencil
   width) the matrix holds one DoF x DoF block per grid point, contiguous over the grid of the
   process's `DMDA` box: the layout the stencil preconditioners (`PCSTRUCTILU`) and the GPU
   kernels read, so `PCSTRUCTILU` uses the values without any conversion. It is
   `MATSEQSTENCILGPU` on one process and `MATMPISTENCILGPU` on several.

   Options Database Keys:
+  -dm_mat_type stencilgpu - `DMCreateMatrix()` on a `DMDA` creates this type
-  -mat_type stencilgpu - the same for a matrix given its `DMDA` with `MatSetDM()` before `MatSetUp()`

   Notes:
   The matrix must come from `DMCreateMatrix()` on a `DMDA` (or have one set with `MatSetDM()`
   before `MatSetUp()`): the grid, the DoF and the stencil are the `DMDA`'s. Only
   `DM_BOUNDARY_NONE` boundaries are supported. Values are set with `MatSetValues()`,
   `MatSetValuesLocal()`, `MatSetValuesStencil()`, `MatSetValuesBlockedStencil()` (`ADD_VALUES`
   or `INSERT_VALUES`); entries of rows owned by other processes are sent at assembly. An
   entry outside the stencil is an error.

   Operations: `MatMult()`, `MatMultAdd()`, `MatMultTranspose()`, `MatMultTransposeAdd()`
   (OpenMP threads over the grid lines; ghost values through the `DMDA`'s scatter),
   `MatGetDiagonal()`, `MatScale()`, `MatShift()`, `MatDiagonalScale()`, `MatAXPY()`,
   `MatZeroEntries()`, `MatZeroRows()` (rows of any process), `MatDuplicate()`, `MatCopy()`,
   `MatGetRow()`, `MatNorm()` (Frobenius, 1, infinity), `MatGetInfo()`, `MatView()` (ASCII
   info; other formats through `MATAIJ`), `MatConvert()` to `MATAIJ` and `MATBAIJ` (to
   other types through `MATAIJ`), `MatGetDiagonalBlock()` (a `MATSEQSTENCILGPU` on the
   process's box) and `MatGetFactor()` with `MATSOLVERSTRUCTILU` (ILU(k), natural ordering),
   so `-pc_type ilu` and `-pc_type bjacobi -sub_pc_type ilu` work, `MatSOR()` (PCSOR),
   `MatInvertBlockDiagonal()` (PCPBJACOBI).

   Every PETSc preconditioner that works on `MATAIJ` works on this type: the operations that
   gain nothing from the stencil storage run on an AIJ image of the matrix kept with it and
   refreshed when its values change (`-info` says so once per matrix): `MatCreateSubMatrices()`,
   `MatIncreaseOverlap()` (PCASM, PCREDUNDANT, the coarse solve of PCMG), `MatCreateGraph()`
   (PCGAMG), `MatGetRowIJ()` (orderings), products (`MatPtAP()` of `-pc_mg_galerkin`, ...; the
   result is `MATAIJ`), `MatSOR()` with `SOR_EISENSTAT` or the global parallel sweeps (PCEISENSTAT),
   and the LU and Cholesky factorizations of `MATSOLVERPETSC`, `MATSOLVERMUMPS`, `MATSOLVERSUPERLU`
   and `MATSOLVERSUPERLU_DIST` (PCLU, PCCHOLESKY). A matrix of this type without a `DMDA` that is
   preallocated as AIJ (PCGAMG's prolongator, created with the type of the
   operator) becomes `MATAIJ` if it is rectangular.

   Level: intermediate

.seealso: `PCSTRUCTILU`, `MATSOLVERSTRUCTILU`, `DMCreateMatrix()`, `DMSetMatType()`, `MATAIJ`, `MatConvert()`
M*/
PETSC_EXTERN PetscErrorCode MatCreate_StencilGPU(Mat A)
{
  Mat_StencilGPU *sg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sg));
  A->data = (void *)sg;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &sg->size));
  A->ops->setup                 = MatSetUp_StencilGPU;
  A->ops->setfromoptions        = MatSetFromOptions_StencilGPU;
  A->ops->setvalues             = MatSetValues_StencilGPU;
  A->ops->setvalueslocal        = MatSetValuesLocal_StencilGPU;
  A->ops->setvaluesblockedlocal = MatSetValuesBlockedLocal_StencilGPU;
  A->ops->assemblybegin         = MatAssemblyBegin_StencilGPU;
  A->ops->assemblyend           = MatAssemblyEnd_StencilGPU;
  A->ops->zeroentries           = MatZeroEntries_StencilGPU;
  A->ops->zerorows              = MatZeroRows_StencilGPU;
  A->ops->zerorowscolumns       = MatZeroRowsColumns_StencilGPU;
  A->ops->getrow                = MatGetRow_StencilGPU;
  A->ops->restorerow            = MatRestoreRow_StencilGPU;
  A->ops->copy                  = MatCopy_StencilGPU;
  A->ops->axpy                  = MatAXPY_StencilGPU;
  A->ops->duplicate             = MatDuplicate_StencilGPU;
  A->ops->convert               = MatConvert_StencilGPU;
  A->ops->view                  = MatView_StencilGPU;
  A->ops->getinfo               = MatGetInfo_StencilGPU;
  A->ops->destroy               = MatDestroy_StencilGPU;
  A->ops->mult                  = MatMult_StencilGPU;
  A->ops->multadd               = MatMultAdd_StencilGPU;
  A->ops->multtranspose         = MatMultTranspose_StencilGPU;
  A->ops->multtransposeadd      = MatMultTransposeAdd_StencilGPU;
  A->ops->getdiagonal           = MatGetDiagonal_StencilGPU;
  A->ops->scale                 = MatScale_StencilGPU;
  A->ops->shift                 = MatShift_StencilGPU;
  A->ops->diagonalscale         = MatDiagonalScale_StencilGPU;
  A->ops->norm                  = MatNorm_StencilGPU;
  A->ops->sor                   = MatSOR_StencilGPU;
  A->assembled                  = PETSC_FALSE;
  A->preallocated               = PETSC_FALSE;
  A->ops->getdiagonalblock      = MatGetDiagonalBlock_StencilGPU;
  A->ops->createsubmatrix       = MatCreateSubMatrix_StencilGPU;
  A->ops->invertblockdiagonal   = MatInvertBlockDiagonal_StencilGPU;
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, sg->size == 1 ? MATSEQSTENCILGPU : MATMPISTENCILGPU));
  PetscCall(MatStencilGPUSetColoringOps(A));
  PetscCall(MatStencilGPUComposeConversions(A, PETSC_TRUE));
  PetscCall(MatStencilGPUSetAIJOps(A));
  PetscCall(ComposeAIJPreallocation(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
