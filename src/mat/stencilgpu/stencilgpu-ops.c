/*
   MATSTENCILGPU host operations: products, diagonal, scaling, norms, inverted point blocks.

   Every product runs over the grid lines of the local box, offset by offset: for one offset
   the blocks of a line and the neighbour values are unit-stride runs, with no column index
   to read. Neighbours are read in the DMDA's ghosted numbering: on one process the ghost box
   is the box and the vector's own array is used; on several, DMGlobalToLocal() fills a local
   vector first (and transposed products add the ghost contributions back with
   DMLocalToGlobal(ADD_VALUES)). The lines are shared among the OpenMP threads.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu/private/stencilgpu.h>
#include <petscgilu/private/blockinv.h>
#include <petscgilu/private/backend.h>
#include <petscgiluconf.h>

#if defined(PETSCGILU_HAVE_OPENMP)
  #define PRAGMA_(x)      _Pragma(#x)
  #define PRAGMA_OMP(...) PRAGMA_(omp __VA_ARGS__)
#else
  #define PRAGMA_OMP(...)
#endif

/* y[i] += A[i] x[i] for the points [ia, ib) of a line, dof x dof row-major blocks */
static inline void LineMult(PetscInt dof, const PetscScalar *restrict A, const PetscScalar *restrict x, PetscScalar *restrict y, PetscInt ia, PetscInt ib)
{
  const PetscInt bs2 = dof * dof;

  if (dof == 1) {
    for (PetscInt i = ia; i < ib; i++) y[i] += A[i] * x[i];
    return;
  }
  for (PetscInt i = ia; i < ib; i++)
    for (PetscInt a = 0; a < dof; a++) {
      PetscScalar t = y[i * dof + a];

      for (PetscInt e = 0; e < dof; e++) t += A[i * bs2 + a * dof + e] * x[i * dof + e];
      y[i * dof + a] = t;
    }
}

/* y[i] += A[i]^T x[i] */
static inline void LineMultTranspose(PetscInt dof, const PetscScalar *restrict A, const PetscScalar *restrict x, PetscScalar *restrict y, PetscInt ia, PetscInt ib)
{
  const PetscInt bs2 = dof * dof;

  for (PetscInt i = ia; i < ib; i++)
    for (PetscInt e = 0; e < dof; e++) {
      PetscScalar t = y[i * dof + e];

      for (PetscInt a = 0; a < dof; a++) t += A[i * bs2 + a * dof + e] * x[i * dof + a];
      y[i * dof + e] = t;
    }
}

/* y = A xg (+ y when add), xg in the ghost numbering */
static void Product(const Mat_StencilGPU *sg, const PetscScalar *xg, PetscScalar *y, PetscBool add)
{
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];
  const size_t          N = (size_t)sm->npoints;

  PRAGMA_OMP(parallel for schedule(static))
  for (PetscInt line = 0; line < nlines; line++) {
    const PetscInt j = line % sm->grid.n[1], k = line / sm->grid.n[1], p0 = line * nx, g0 = StencilGPUGhostIndex(sg, 0, j, k);
    PetscScalar   *yl = y + (size_t)p0 * dof;

    if (!add)
      for (PetscInt t = 0; t < nx * dof; t++) yl[t] = 0;
    for (PetscInt s = 0; s < sm->stencil.ns; s++) {
      const PetscScalar *A  = sm->val + ((size_t)s * N + p0) * bs2;
      const PetscScalar *xl = xg + (size_t)(g0 + sg->gshift[s]) * dof;
      PetscInt           ia, ib;

      if (!StencilGPULineRange(sg, s, j, k, &ia, &ib)) continue;
      // clang-format off: one constant DoF a line
      switch (dof) { /* constant DoF: the inner loops unrolled */
      case 1: LineMult(1, A, xl, yl, ia, ib); break;
      case 2: LineMult(2, A, xl, yl, ia, ib); break;
      case 3: LineMult(3, A, xl, yl, ia, ib); break;
      case 4: LineMult(4, A, xl, yl, ia, ib); break;
      default: LineMult(dof, A, xl, yl, ia, ib);
      }
      // clang-format on
    }
  }
}

/* yg += A^T x, yg in the ghost numbering; per offset the lines write disjoint neighbour lines */
static void ProductTranspose(const Mat_StencilGPU *sg, const PetscScalar *x, PetscScalar *yg)
{
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];
  const size_t          N = (size_t)sm->npoints;

  PRAGMA_OMP(parallel)
  for (PetscInt s = 0; s < sm->stencil.ns; s++) {
    PRAGMA_OMP(for schedule(static))
    for (PetscInt line = 0; line < nlines; line++) {
      const PetscInt j = line % sm->grid.n[1], k = line / sm->grid.n[1], p0 = line * nx, g0 = StencilGPUGhostIndex(sg, 0, j, k);
      PetscInt       ia, ib;

      if (!StencilGPULineRange(sg, s, j, k, &ia, &ib)) continue;
      LineMultTranspose(dof, sm->val + ((size_t)s * N + p0) * bs2, x + (size_t)p0 * dof, yg + (size_t)(g0 + sg->gshift[s]) * dof, ia, ib);
    }
  }
}

/* A ghosted copy of the global vector x (on one process: x's array itself) */
static PetscErrorCode GetGhosted(Mat A, Vec x, Vec *xl, const PetscScalar **xa)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  DM              da;

  PetscFunctionBegin;
  *xl = NULL;
  if (sg->size == 1) {
    PetscCall(VecGetArrayRead(x, xa));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetDM(A, &da));
  PetscCall(DMGetLocalVector(da, xl));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *xl));
  PetscCall(VecGetArrayRead(*xl, xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreGhosted(Mat A, Vec x, Vec *xl, const PetscScalar **xa)
{
  DM da;

  PetscFunctionBegin;
  if (!*xl) {
    PetscCall(VecRestoreArrayRead(x, xa));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetDM(A, &da));
  PetscCall(VecRestoreArrayRead(*xl, xa));
  PetscCall(DMRestoreLocalVector(da, xl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MultAdd_Private(Mat A, Vec x, Vec y, PetscBool add)
{
  Mat_StencilGPU    *sg = (Mat_StencilGPU *)A->data;
  const PetscScalar *xa;
  PetscScalar       *ya;
  Vec                xl;

  PetscFunctionBegin;
  PetscCall(GetGhosted(A, x, &xl, &xa));
  if (add) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
  Product(sg, xa, ya, add);
  if (add) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(RestoreGhosted(A, x, &xl, &xa));
  PetscCall(PetscLogFlops(2.0 * sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CUDA vectors of a CUDA-enabled PETSc (src/sys/device-vec.c) get the device product, so that a Krylov iteration on
   them never touches the host; every other vector the host product */
PetscErrorCode MatMult_StencilGPU(Mat A, Vec x, Vec y)
{
  PetscBool xdev, ydev;

  PetscFunctionBegin;
  PetscCall(GILUVecIsDeviceNative(x, PETSCGILU_BACKEND_CUDA, &xdev));
  PetscCall(GILUVecIsDeviceNative(y, PETSCGILU_BACKEND_CUDA, &ydev));
  if (xdev && ydev) PetscCall(MatStencilGPUMultWithBackend(A, PETSCGILU_BACKEND_CUDA, x, y));
  else PetscCall(MultAdd_Private(A, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_StencilGPU(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(z, y));
  PetscCall(MultAdd_Private(A, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A^T x + (z or 0) */
static PetscErrorCode MultTransposeAdd_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_StencilGPU    *sg = (Mat_StencilGPU *)A->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (z && z != y) PetscCall(VecCopy(z, y));
  else if (!z) PetscCall(VecSet(y, 0.0));
  PetscCall(VecGetArrayRead(x, &xa));
  if (sg->size == 1) {
    PetscCall(VecGetArray(y, &ya));
    ProductTranspose(sg, xa, ya);
    PetscCall(VecRestoreArray(y, &ya));
  } else {
    DM  da;
    Vec yl;

    PetscCall(MatGetDM(A, &da));
    PetscCall(DMGetLocalVector(da, &yl));
    PetscCall(VecSet(yl, 0.0));
    PetscCall(VecGetArray(yl, &ya));
    ProductTranspose(sg, xa, ya);
    PetscCall(VecRestoreArray(yl, &ya));
    PetscCall(DMLocalToGlobalBegin(da, yl, ADD_VALUES, y));
    PetscCall(DMLocalToGlobalEnd(da, yl, ADD_VALUES, y));
    PetscCall(DMRestoreLocalVector(da, &yl));
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogFlops(2.0 * sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTranspose_StencilGPU(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MultTransposeAdd_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTransposeAdd_StencilGPU(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MultTransposeAdd_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetDiagonal_StencilGPU(Mat A, Vec d)
{
  Mat_StencilGPU       *sg  = (Mat_StencilGPU *)A->data;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof;
  const PetscScalar    *D   = sm->val + (size_t)sm->stencil.nlower * sm->npoints * sm->bs2;
  PetscScalar          *da;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWrite(d, &da));
  for (PetscInt p = 0; p < sm->npoints; p++)
    for (PetscInt a = 0; a < dof; a++) da[p * dof + a] = D[(size_t)p * sm->bs2 + a * dof + a];
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatScale_StencilGPU(Mat A, PetscScalar alpha)
{
  Mat_StencilGPU *sg = (Mat_StencilGPU *)A->data;
  const size_t    n  = (size_t)sg->sm.stencil.ns * sg->sm.npoints * sg->sm.bs2;

  PetscFunctionBegin;
  for (size_t t = 0; t < n; t++) sg->sm.val[t] *= alpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatShift_StencilGPU(Mat A, PetscScalar alpha)
{
  Mat_StencilGPU       *sg  = (Mat_StencilGPU *)A->data;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof;
  PetscScalar          *D   = sm->val + (size_t)sm->stencil.nlower * sm->npoints * sm->bs2;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < sm->npoints; p++)
    for (PetscInt a = 0; a < dof; a++) D[(size_t)p * sm->bs2 + a * dof + a] += alpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A = diag(l) A diag(r) */
PetscErrorCode MatDiagonalScale_StencilGPU(Mat A, Vec l, Vec r)
{
  Mat_StencilGPU       *sg  = (Mat_StencilGPU *)A->data;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];
  const size_t          N = (size_t)sm->npoints;

  PetscFunctionBegin;
  if (l) {
    const PetscScalar *la;

    PetscCall(VecGetArrayRead(l, &la));
    for (PetscInt s = 0; s < sm->stencil.ns; s++)
      for (PetscInt p = 0; p < sm->npoints; p++)
        for (PetscInt a = 0; a < dof; a++)
          for (PetscInt e = 0; e < dof; e++) sm->val[((size_t)s * N + p) * bs2 + a * dof + e] *= la[p * dof + a];
    PetscCall(VecRestoreArrayRead(l, &la));
  }
  if (r) {
    const PetscScalar *rg;
    Vec                rl;

    PetscCall(GetGhosted(A, r, &rl, &rg));
    for (PetscInt s = 0; s < sm->stencil.ns; s++)
      for (PetscInt line = 0; line < nlines; line++) {
        const PetscInt     j = line % sm->grid.n[1], k = line / sm->grid.n[1], p0 = line * nx;
        const PetscScalar *rq = rg + (size_t)(StencilGPUGhostIndex(sg, 0, j, k) + sg->gshift[s]) * dof;
        PetscScalar       *v  = sm->val + ((size_t)s * N + p0) * bs2;
        PetscInt           ia, ib;

        if (!StencilGPULineRange(sg, s, j, k, &ia, &ib)) continue;
        for (PetscInt i = ia; i < ib; i++)
          for (PetscInt a = 0; a < dof; a++)
            for (PetscInt e = 0; e < dof; e++) v[i * bs2 + a * dof + e] *= rq[i * dof + e];
      }
    PetscCall(RestoreGhosted(A, r, &rl, &rg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatNorm_StencilGPU(Mat A, NormType type, PetscReal *nrm)
{
  Mat_StencilGPU       *sg  = (Mat_StencilGPU *)A->data;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];
  const size_t          N    = (size_t)sm->npoints;
  MPI_Comm              comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  if (type == NORM_FROBENIUS) {
    PetscReal sum = 0;

    for (size_t t = 0; t < (size_t)sm->stencil.ns * N * bs2; t++) sum += PetscRealPart(sm->val[t] * PetscConj(sm->val[t]));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, comm));
    *nrm = PetscSqrtReal(sum);
  } else if (type == NORM_INFINITY) {
    PetscReal mx = 0;

    for (PetscInt p = 0; p < sm->npoints; p++)
      for (PetscInt a = 0; a < dof; a++) {
        PetscReal sum = 0;

        for (PetscInt s = 0; s < sm->stencil.ns; s++)
          for (PetscInt e = 0; e < dof; e++) sum += PetscAbsScalar(sm->val[((size_t)s * N + p) * bs2 + a * dof + e]);
        mx = PetscMax(mx, sum);
      }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mx, 1, MPIU_REAL, MPIU_MAX, comm));
    *nrm = mx;
  } else if (type == NORM_1) { /* column sums, in the ghost numbering, added up across the processes */
    DM           da;
    Vec          cl, cg;
    PetscScalar *c;

    PetscCall(MatGetDM(A, &da));
    PetscCall(DMGetLocalVector(da, &cl));
    PetscCall(DMGetGlobalVector(da, &cg));
    PetscCall(VecSet(cl, 0.0));
    PetscCall(VecGetArray(cl, &c));
    for (PetscInt s = 0; s < sm->stencil.ns; s++)
      for (PetscInt line = 0; line < nlines; line++) {
        const PetscInt     j = line % sm->grid.n[1], k = line / sm->grid.n[1], p0 = line * nx;
        PetscScalar       *cq = c + (size_t)(StencilGPUGhostIndex(sg, 0, j, k) + sg->gshift[s]) * dof;
        const PetscScalar *v  = sm->val + ((size_t)s * N + p0) * bs2;
        PetscInt           ia, ib;

        if (!StencilGPULineRange(sg, s, j, k, &ia, &ib)) continue;
        for (PetscInt i = ia; i < ib; i++)
          for (PetscInt a = 0; a < dof; a++)
            for (PetscInt e = 0; e < dof; e++) cq[i * dof + e] += PetscAbsScalar(v[i * bs2 + a * dof + e]);
      }
    PetscCall(VecRestoreArray(cl, &c));
    PetscCall(VecSet(cg, 0.0));
    PetscCall(DMLocalToGlobalBegin(da, cl, ADD_VALUES, cg));
    PetscCall(DMLocalToGlobalEnd(da, cl, ADD_VALUES, cg));
    PetscCall(VecMax(cg, NULL, nrm));
    PetscCall(DMRestoreGlobalVector(da, &cg));
    PetscCall(DMRestoreLocalVector(da, &cl));
  } else SETERRQ(comm, PETSC_ERR_SUP, "MATSTENCILGPU computes the Frobenius, 1 and infinity norms only");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatInvertBlockDiagonal() (PCPBJACOBI): the inverses of the diagonal blocks of the matrix's block
  size (the DoF, or 1), column-major as MatInvertBlockDiagonal_SeqAIJ() returns them, computed as
  PETSc's kernels compute them (GILUBlockInvertLINPACK() up to 7), read from the stencil's centre offset. A singular block sets the matrix's
  factor error (MAT_FACTOR_NUMERIC_ZEROPIVOT) unless the matrix errors on failure.
*/
PetscErrorCode MatInvertBlockDiagonal_StencilGPU(Mat A, const PetscScalar **values)
{
  Mat_StencilGPU *sg  = (Mat_StencilGPU *)A->data;
  const PetscInt  dof = sg->sm.grid.dof, N = sg->sm.npoints;
  const size_t    d0             = (size_t)sg->sm.stencil.nlower * N * sg->sm.bs2;
  const PetscBool allowzeropivot = PetscNot(A->erroriffailure);
  PetscInt        bs, bs2, nb;
  PetscScalar    *work = NULL;
  PetscBool       zero = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(bs == 1 || bs == dof, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATSTENCILGPU inverts diagonal blocks of size 1 or the DoF %" PetscInt_FMT ", not %" PetscInt_FMT, dof, bs);
  bs2 = bs * bs;
  nb  = A->rmap->n / bs;
  if (!sg->ibdiag) PetscCall(PetscMalloc1((size_t)nb * bs2, &sg->ibdiag));
  if (bs > 7) PetscCall(PetscMalloc1(bs2, &work));
  A->factorerrortype = MAT_FACTOR_NOERROR;
  for (PetscInt b = 0; b < nb; b++) {
    PetscScalar *v = sg->ibdiag + (size_t)b * bs2;
    PetscBool    z = PETSC_FALSE;

    if (bs == 1) { /* scalar b: point b / dof, row b % dof */
      const PetscInt p = b / dof, a = b % dof;

      v[0] = sg->sm.val[d0 + (size_t)p * sg->sm.bs2 + a * dof + a];
      if (v[0] == 0.0) {
        PetscCheck(allowzeropivot, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero diagonal on row %" PetscInt_FMT, b);
        z = PETSC_TRUE;
      } else v[0] = 1.0 / v[0];
    } else {
      const PetscScalar *blk = sg->sm.val + d0 + (size_t)b * bs2;

      for (PetscInt a = 0; a < bs; a++)
        for (PetscInt e = 0; e < bs; e++) v[a + e * bs] = blk[a * bs + e];
      if (bs <= 7) { /* PETSc's inversion (PetscKernel_A_gets_inverse_A_<bs>), bit for bit */
        GILUBlockInvertLINPACK(bs, v, 0.0, &z);
        PetscCheck(!z || allowzeropivot, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in the diagonal block of grid point %" PetscInt_FMT, b);
      } else { /* the project's kernel on the row-major block, transposed back */
        z = PetscNot(GILUBlockInvert(bs, blk, work, 0.0));
        PetscCheck(!z || allowzeropivot, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Singular diagonal block %" PetscInt_FMT, b);
        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt e = 0; e < bs; e++) v[a + e * bs] = work[a * bs + e];
      }
    }
    if (z) zero = PETSC_TRUE;
  }
  if (zero) A->factorerrortype = MAT_FACTOR_NUMERIC_ZEROPIVOT;
  PetscCall(PetscFree(work));
  *values = sg->ibdiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}
