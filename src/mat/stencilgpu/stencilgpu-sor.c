/*
   MatSOR() of MATSTENCILGPU, so that PCSOR (and SOR smoothers) run on a stencilgpu matrix.

   The sweeps are those of PETSc's SOR on the AIJ matrix of the same DMDA, in the natural
   ordering: pointwise SOR on the scalar rows with the arithmetic of MatSOR_SeqAIJ() (the same
   sums in the same column order, omega folded into the inverted diagonal, the lower-triangular
   sums of a forward sweep kept for the following backward sweep) for DoF 1, and for DoF > 1
   whenever omega != 1 or fshift != 0; for DoF > 1 with omega 1 and no shift, block SOR on the
   DoF x DoF point blocks, which is what AIJ does then (MatSOR_SeqAIJ_Inode(), its inodes being
   the point blocks for DoF <= 5) and what MatSOR_SeqBAIJ() does. its * lits sweeps are run, as
   MatSOR_SeqAIJ() and MatSOR_SeqBAIJ() do (MatSOR_SeqAIJ_Inode() ignores lits).

   The Eisenstat trick (SOR_EISENSTAT, SOR_APPLY_UPPER, SOR_APPLY_LOWER of PCEISENSTAT) and, in
   parallel, the global sweeps run MatSOR() on the AIJ image of the matrix (stencilgpu-aij.c).
   In parallel the local sweeps (SOR_LOCAL_*, PCSOR's default) are native, with the
   algorithm of MatSOR_MPIAIJ(): per outer iteration the ghost values of x are gathered once
   (DMGlobalToLocal()) and stay fixed while lits sweeps run on the rank's box, i.e. the
   off-process couplings are moved to the right-hand side.
*/
#include <petsc/private/matimpl.h>
#include <petscdmda.h>
#include <petscgilu/private/stencilgpu.h>

typedef struct {
  const Mat_StencilGPU *sg;
  const PetscScalar    *b;     /* right-hand side, box numbering */
  PetscScalar          *xg;    /* iterate, ghost numbering (its box part is updated) */
  PetscScalar          *t;     /* b - L x of the last forward sweep */
  PetscScalar          *idiag; /* omega (D + fshift I)^{-1} per point */
  PetscScalar          *mdiag; /* DoF 1: the diagonal */
  PetscScalar          *sum;   /* DoF entries */
  PetscInt             *ia, *ib;
  PetscReal             omega;
  PetscBool             pointwise; /* DoF > 1: scalar rows (else point blocks) */
} SORCtx;

/* The neighbour ranges [ia[s], ib[s]) of each offset on line (j,k) (empty when the neighbour line is outside the grid) */
static void LineRanges(SORCtx *c, PetscInt j, PetscInt k)
{
  for (PetscInt s = 0; s < c->sg->sm.stencil.ns; s++)
    if (!StencilGPULineRange(c->sg, s, j, k, &c->ia[s], &c->ib[s])) c->ia[s] = c->ib[s] = 0;
}

/* sum -= A_s x for the offsets s in [s0, s1) of point p (box index i on its line, ghost index g) */
static inline void RowMinus(SORCtx *c, PetscInt s0, PetscInt s1, PetscInt p, PetscInt i, PetscInt g)
{
  const GILUStencilMat *sm  = &c->sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2;
  const size_t          N = (size_t)sm->npoints;

  for (PetscInt s = s0; s < s1; s++) {
    const PetscScalar *A, *x;

    if (i < c->ia[s] || i >= c->ib[s]) continue;
    A = sm->val + ((size_t)s * N + p) * bs2;
    x = c->xg + (size_t)(g + c->sg->gshift[s]) * dof;
    if (dof == 1) c->sum[0] -= A[0] * x[0];
    else
      for (PetscInt a = 0; a < dof; a++)
        for (PetscInt e = 0; e < dof; e++) c->sum[a] -= A[a * dof + e] * x[e];
  }
}

/*
  Pointwise SOR of scalar row a of point p: sum -= the entries of the row in column order,
  part 0 the lower ones (columns before the row), 1 the upper ones, 2 all (diagonal included)
*/
static inline PetscScalar ScalarMinus(SORCtx *c, PetscScalar sum, PetscInt p, PetscInt i, PetscInt g, PetscInt a, PetscInt part)
{
  const GILUStencilMat *sm  = &c->sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2, nl = sm->stencil.nlower;
  const size_t          N  = (size_t)sm->npoints;
  const PetscInt        s0 = part == 1 ? nl : 0, s1 = part == 0 ? nl + 1 : sm->stencil.ns;

  for (PetscInt s = s0; s < s1; s++) {
    const PetscScalar *A, *x;
    PetscInt           e0 = 0, e1 = dof;

    if (i < c->ia[s] || i >= c->ib[s]) continue;
    if (s == nl && part == 0) e1 = a;
    if (s == nl && part == 1) e0 = a + 1;
    A = sm->val + ((size_t)s * N + p) * bs2 + a * dof;
    x = c->xg + (size_t)(g + c->sg->gshift[s]) * dof;
    for (PetscInt e = e0; e < e1; e++) sum -= A[e] * x[e];
  }
  return sum;
}

/* Pointwise forward (or backward) sweep over the scalar rows of point p, as MatSOR_SeqAIJ() */
static inline void ScalarForward(SORCtx *c, PetscInt p, PetscInt i, PetscInt g, PetscBool zero)
{
  const PetscInt dof = c->sg->sm.grid.dof;

  for (PetscInt a = 0; a < dof; a++) {
    const size_t r   = (size_t)p * dof + a;
    PetscScalar  sum = ScalarMinus(c, c->b[r], p, i, g, a, 0), *x = c->xg + (size_t)g * dof + a;

    c->t[r] = sum;
    if (zero) *x = sum * c->idiag[r];
    else {
      sum = ScalarMinus(c, sum, p, i, g, a, 1);
      *x  = (1. - c->omega) * *x + sum * c->idiag[r];
    }
  }
}

static inline void ScalarBackward(SORCtx *c, PetscInt p, PetscInt i, PetscInt g, PetscBool fwd, PetscBool zero)
{
  const PetscInt dof = c->sg->sm.grid.dof;

  for (PetscInt a = dof - 1; a >= 0; a--) {
    const size_t r = (size_t)p * dof + a;
    PetscScalar *x = c->xg + (size_t)g * dof + a, sum;

    if (fwd) *x = (1. - c->omega) * *x + ScalarMinus(c, c->t[r], p, i, g, a, 1) * c->idiag[r];
    else if (zero) *x = ScalarMinus(c, c->b[r], p, i, g, a, 1) * c->idiag[r];
    else {
      sum = ScalarMinus(c, c->b[r], p, i, g, a, 2);
      *x  = (1. - c->omega) * *x + (sum + c->mdiag[r] * *x) * c->idiag[r];
    }
  }
}

/* x_p <- (zero ? 0 : (1 - omega) x_p) + idiag_p sum */
static inline void Update(SORCtx *c, PetscInt p, PetscInt g, PetscBool zero)
{
  const PetscInt     dof = c->sg->sm.grid.dof;
  const PetscScalar *id  = c->idiag + (size_t)p * dof * dof;
  PetscScalar       *x   = c->xg + (size_t)g * dof;

  if (dof == 1) {
    x[0] = zero ? c->sum[0] * id[0] : (1. - c->omega) * x[0] + c->sum[0] * id[0];
    return;
  }
  for (PetscInt a = 0; a < dof; a++) {
    PetscScalar v = 0;

    for (PetscInt e = 0; e < dof; e++) v += id[a * dof + e] * c->sum[e];
    x[a] = zero ? v : (1. - c->omega) * x[a] + v;
  }
}

/* its sweeps of the kind of flag (the first from a zero guess when zero), on the box of xg */
static void Sweeps(SORCtx *c, MatSORType flag, PetscInt its, PetscBool zero)
{
  const Mat_StencilGPU *sg  = c->sg;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, ns = sm->stencil.ns, nl = sm->stencil.nlower, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];
  const PetscBool       fwd = (PetscBool)((flag & SOR_FORWARD_SWEEP) || (flag & SOR_LOCAL_FORWARD_SWEEP));
  const PetscBool       bwd = (PetscBool)((flag & SOR_BACKWARD_SWEEP) || (flag & SOR_LOCAL_BACKWARD_SWEEP));

  for (; its > 0; its--, zero = PETSC_FALSE) {
    if (fwd)
      for (PetscInt line = 0; line < nlines; line++) {
        const PetscInt j = line % sm->grid.n[1], k = line / sm->grid.n[1], g0 = StencilGPUGhostIndex(sg, 0, j, k);

        LineRanges(c, j, k);
        for (PetscInt i = 0; i < nx; i++) {
          const PetscInt p = line * nx + i;

          if (c->pointwise) {
            ScalarForward(c, p, i, g0 + i, zero);
            continue;
          }
          for (PetscInt a = 0; a < dof; a++) c->sum[a] = c->b[(size_t)p * dof + a];
          RowMinus(c, 0, nl, p, i, g0 + i);
          for (PetscInt a = 0; a < dof; a++) c->t[(size_t)p * dof + a] = c->sum[a];
          if (!zero) RowMinus(c, nl + 1, ns, p, i, g0 + i);
          Update(c, p, g0 + i, zero);
        }
      }
    if (bwd)
      for (PetscInt line = nlines - 1; line >= 0; line--) {
        const PetscInt j = line % sm->grid.n[1], k = line / sm->grid.n[1], g0 = StencilGPUGhostIndex(sg, 0, j, k);

        LineRanges(c, j, k);
        for (PetscInt i = nx - 1; i >= 0; i--) {
          const PetscInt p = line * nx + i, g = g0 + i;

          if (c->pointwise) ScalarBackward(c, p, i, g, fwd, zero);
          else if (fwd) { /* the lower-triangular part of this sweep is in t: only the upper one */
            for (PetscInt a = 0; a < dof; a++) c->sum[a] = c->t[(size_t)p * dof + a];
            RowMinus(c, nl + 1, ns, p, i, g);
            Update(c, p, g, PETSC_FALSE);
          } else if (zero) {
            for (PetscInt a = 0; a < dof; a++) c->sum[a] = c->b[(size_t)p * dof + a];
            RowMinus(c, nl + 1, ns, p, i, g);
            Update(c, p, g, PETSC_TRUE);
          } else {
            for (PetscInt a = 0; a < dof; a++) c->sum[a] = c->b[(size_t)p * dof + a];
            RowMinus(c, 0, nl, p, i, g);
            RowMinus(c, nl + 1, ns, p, i, g);
            Update(c, p, g, PETSC_FALSE);
          }
        }
      }
  }
}

/* idiag = omega (D + fshift I)^{-1} (DoF 1: omega / (fshift + d), as MatInvertDiagonal_SeqAIJ()) */
static PetscErrorCode InvertDiagonal(SORCtx *c, PetscReal fshift)
{
  const GILUStencilMat *sm  = &c->sg->sm;
  const PetscInt        dof = sm->grid.dof, bs2 = sm->bs2;
  const PetscScalar    *D = sm->val + (size_t)sm->stencil.nlower * sm->npoints * bs2;
  PetscScalar          *work;

  PetscFunctionBegin;
  if (c->pointwise) {
    for (PetscInt r = 0; r < sm->npoints * dof; r++) {
      const PetscScalar d = D[(size_t)(r / dof) * bs2 + (r % dof) * (dof + 1)];

      PetscCheck(PetscAbsScalar(fshift + d) != 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Zero diagonal on local row %" PetscInt_FMT ": SOR needs non-zero diagonal entries (or a shift, -pc_sor_diagonal_shift)", r);
      c->mdiag[r] = d;
      c->idiag[r] = c->omega / (fshift + d);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(2 * bs2, &work));
  for (PetscInt p = 0; p < sm->npoints; p++) {
    PetscScalar *id = c->idiag + (size_t)p * bs2;

    PetscCall(PetscArraycpy(work + bs2, D + (size_t)p * bs2, bs2));
    for (PetscInt a = 0; a < dof; a++) work[bs2 + a * dof + a] += fshift;
    PetscCheck(GILUBlockInvert(dof, work + bs2, id, 0), PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Singular diagonal block of local point %" PetscInt_FMT ": block SOR of MATSTENCILGPU needs invertible point blocks (or a shift, -pc_sor_diagonal_shift)", p);
    for (PetscInt e = 0; e < bs2; e++) id[e] *= c->omega;
  }
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies between the box part of the ghost numbering and the box numbering */
static void CopyBox(const Mat_StencilGPU *sg, PetscScalar *x, PetscScalar *xg, PetscBool toghost)
{
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, nx = sm->grid.n[0], nlines = sm->grid.n[1] * sm->grid.n[2];

  for (PetscInt line = 0; line < nlines; line++) {
    PetscScalar *xb = x + (size_t)line * nx * dof, *gb = xg + (size_t)StencilGPUGhostIndex(sg, 0, line % sm->grid.n[1], line / sm->grid.n[1]) * dof;

    for (PetscInt t = 0; t < nx * dof; t++) {
      if (toghost) gb[t] = xb[t];
      else xb[t] = gb[t];
    }
  }
}

PetscErrorCode MatSOR_StencilGPU(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_StencilGPU       *sg  = (Mat_StencilGPU *)A->data;
  const GILUStencilMat *sm  = &sg->sm;
  const PetscInt        dof = sm->grid.dof, n = sm->npoints * dof;
  const PetscBool       zero   = (PetscBool)((flag & SOR_ZERO_INITIAL_GUESS) != 0);
  const PetscLogDouble  sweeps = (PetscLogDouble)its * lits;
  MatSORType            lflag  = flag;
  SORCtx                c;
  PetscScalar          *x;

  PetscFunctionBegin;
  if ((flag & (SOR_EISENSTAT | SOR_APPLY_UPPER | SOR_APPLY_LOWER)) || (sg->size > 1 && !(flag & SOR_LOCAL_SYMMETRIC_SWEEP))) { /* PCEISENSTAT, global parallel sweeps: AIJ's */
    PetscCall(MatSOR_StencilGPU_AIJ(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(its > 0 && lits > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Relaxation requires global its %" PetscInt_FMT " and local its %" PetscInt_FMT " both positive", its, lits);
  PetscCheck(bb != xx, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "MatSOR() needs different vectors b and x");
  if (sg->size > 1) { /* as MatSOR_MPIAIJ(): the local sweeps only */
    if ((flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP) lflag = SOR_SYMMETRIC_SWEEP;
    else if (flag & SOR_LOCAL_FORWARD_SWEEP) lflag = SOR_FORWARD_SWEEP;
    else lflag = SOR_BACKWARD_SWEEP;
  }
  c.sg        = sg;
  c.omega     = omega;
  c.pointwise = (PetscBool)(dof == 1 || omega != 1.0 || fshift != 0.0); /* AIJ's choice: its inode SOR (point blocks) supports neither */
  PetscCall(PetscMalloc4((size_t)sm->npoints * sm->bs2, &c.idiag, (size_t)n, &c.t, dof, &c.sum, (size_t)n, &c.mdiag));
  PetscCall(PetscMalloc2(sm->stencil.ns, &c.ia, sm->stencil.ns, &c.ib));
  PetscCall(InvertDiagonal(&c, fshift));
  PetscCall(VecGetArrayRead(bb, &c.b));
  PetscCall(VecGetArray(xx, &x));
  if (sg->size == 1) { /* the ghost box is the box */
    c.xg = x;
    Sweeps(&c, flag, its * lits, zero);
  } else {
    DM  da;
    Vec xl;

    PetscCall(MatGetDM(A, &da));
    PetscCall(DMGetLocalVector(da, &xl));
    if (zero) { /* the local sweeps from zero, the other ranks' values zero too */
      PetscCall(VecSet(xl, 0));
      PetscCall(VecGetArray(xl, &c.xg));
      Sweeps(&c, lflag, lits, PETSC_TRUE);
      CopyBox(sg, x, c.xg, PETSC_FALSE);
      PetscCall(VecRestoreArray(xl, &c.xg));
      its--;
    }
    while (its-- > 0) { /* the off-process couplings with the current ghost values moved to the right-hand side */
      PetscCall(VecRestoreArray(xx, &x));
      PetscCall(DMGlobalToLocalBegin(da, xx, INSERT_VALUES, xl));
      PetscCall(DMGlobalToLocalEnd(da, xx, INSERT_VALUES, xl));
      PetscCall(VecGetArray(xx, &x));
      PetscCall(VecGetArray(xl, &c.xg));
      Sweeps(&c, lflag, lits, PETSC_FALSE);
      CopyBox(sg, x, c.xg, PETSC_FALSE);
      PetscCall(VecRestoreArray(xl, &c.xg));
    }
    PetscCall(DMRestoreLocalVector(da, &xl));
  }
  PetscCall(VecRestoreArray(xx, &x));
  PetscCall(VecRestoreArrayRead(bb, &c.b));
  PetscCall(PetscFree2(c.ia, c.ib));
  PetscCall(PetscFree4(c.idiag, c.t, c.sum, c.mdiag));
  PetscCall(PetscLogFlops(2.0 * sm->stencil.ns * sm->bs2 * sm->npoints * sweeps));
  PetscFunctionReturn(PETSC_SUCCESS);
}
