/*
   Host kernels of PCSTRUCTILU: the in-place ILU(0) factorization and the triangular
   solves of a stencil matrix, in natural order, for 1 to 8 DoF per grid point.

   Rows are processed in the order of sequential ILU and each row accumulates its updates
   in the same order as PETSc's ILU(0) (lower neighbours by increasing column), so the
   factors equal PETSc's to round-off.
*/
#include "structilu.h"

/* ---- dense dof x dof blocks, row-major ---- */

/* C = A B */
static inline void BlockMult(PetscInt d, const PetscScalar *A, const PetscScalar *B, PetscScalar *C)
{
  for (PetscInt r = 0; r < d; r++)
    for (PetscInt c = 0; c < d; c++) {
      PetscScalar s = 0;

      for (PetscInt t = 0; t < d; t++) s += A[r * d + t] * B[t * d + c];
      C[r * d + c] = s;
    }
}

/* C -= A B */
static inline void BlockMultSub(PetscInt d, const PetscScalar *A, const PetscScalar *B, PetscScalar *C)
{
  for (PetscInt r = 0; r < d; r++)
    for (PetscInt t = 0; t < d; t++) {
      PetscScalar a = A[r * d + t];

      for (PetscInt c = 0; c < d; c++) C[r * d + c] -= a * B[t * d + c];
    }
}

/* Ainv = A^{-1} by Gauss-Jordan elimination with partial pivoting; false if a pivot is at most tol */
static PetscBool BlockInvert(PetscInt d, const PetscScalar *A, PetscScalar *Ainv, PetscReal tol)
{
  PetscScalar M[GILU_MAX_DOF * GILU_MAX_DOF];

  for (PetscInt t = 0; t < d * d; t++) {
    M[t]    = A[t];
    Ainv[t] = 0;
  }
  for (PetscInt t = 0; t < d; t++) Ainv[t * d + t] = 1;
  for (PetscInt c = 0; c < d; c++) {
    PetscInt    piv = c;
    PetscScalar inv;

    for (PetscInt r = c + 1; r < d; r++)
      if (PetscAbsScalar(M[r * d + c]) > PetscAbsScalar(M[piv * d + c])) piv = r;
    if (PetscAbsScalar(M[piv * d + c]) <= tol) return PETSC_FALSE;
    if (piv != c)
      for (PetscInt t = 0; t < d; t++) {
        PetscScalar s = M[c * d + t], u = Ainv[c * d + t];

        M[c * d + t]      = M[piv * d + t];
        Ainv[c * d + t]   = Ainv[piv * d + t];
        M[piv * d + t]    = s;
        Ainv[piv * d + t] = u;
      }
    inv = 1.0 / M[c * d + c];
    for (PetscInt t = 0; t < d; t++) {
      M[c * d + t] *= inv;
      Ainv[c * d + t] *= inv;
    }
    for (PetscInt r = 0; r < d; r++) {
      PetscScalar f = M[r * d + c];

      if (r == c || f == (PetscScalar)0) continue;
      for (PetscInt t = 0; t < d; t++) {
        M[r * d + t] -= f * M[c * d + t];
        Ainv[r * d + t] -= f * Ainv[c * d + t];
      }
    }
  }
  return PETSC_TRUE;
}

static inline PetscBool Inside(const GILUGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2]);
}

PetscErrorCode StructILUFactor_Host(GILUStencilMat *sm, const PetscInt *elim, PetscReal zeropivot, PetscScalar *dinv, PetscInt *zerorow)
{
  const GILUGrid    *g   = &sm->grid;
  const GILUStencil *st  = &sm->stencil;
  const PetscInt     ns = st->ns, nl = st->nlower, d = g->dof, bs2 = sm->bs2;
  const size_t       N   = (size_t)sm->npoints;
  PetscScalar       *val = sm->val, tmp[GILU_MAX_DOF * GILU_MAX_DOF];
  PetscInt           p   = 0;

  PetscFunctionBegin;
  *zerorow = -1;
  for (PetscInt k = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++, p++) {
        PetscInt m = sm->missptr ? sm->missptr[p] : 0, mend = sm->missptr ? sm->missptr[p + 1] : 0;

        for (PetscInt s = 0; s < nl; s++) {
          PetscScalar *Lps;
          size_t       q;

          if (!Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) continue;
          Lps = val + (s * N + p) * bs2;
          if (m < mend && sm->missoff[m] == s) { /* not in the matrix pattern: no fill kept there */
            PetscCall(PetscArrayzero(Lps, bs2));
            m++;
            continue;
          }
          q = p + sm->shift[s];
          if (d == 1) {
            PetscScalar l = Lps[0] * dinv[q];

            Lps[0] = l;
            for (PetscInt u = nl + 1; u < ns; u++) {
              PetscInt t = elim[s * ns + u];

              if (t >= 0) val[t * N + p] -= l * val[u * N + q];
            }
          } else {
            BlockMult(d, Lps, dinv + q * bs2, tmp);
            PetscCall(PetscArraycpy(Lps, tmp, bs2));
            for (PetscInt u = nl + 1; u < ns; u++) {
              PetscInt t = elim[s * ns + u];

              if (t >= 0) BlockMultSub(d, Lps, val + (u * N + q) * bs2, val + (t * N + p) * bs2);
            }
          }
        }
        for (; m < mend; m++) PetscCall(PetscArrayzero(val + (sm->missoff[m] * N + p) * bs2, bs2));
        if (d == 1) {
          PetscScalar piv = val[nl * N + p];

          if (PetscAbsScalar(piv) <= zeropivot) {
            *zerorow = p;
            PetscFunctionReturn(PETSC_SUCCESS);
          }
          dinv[p] = 1.0 / piv;
        } else if (!BlockInvert(d, val + (nl * N + p) * bs2, dinv + p * bs2, zeropivot)) {
          *zerorow = p * d;
          PetscFunctionReturn(PETSC_SUCCESS);
        }
      }
  PetscCall(PetscLogFlops((PetscLogDouble)N * (d == 1 ? 2.0 * ns * ns / 4 : 2.0 * d * d * d * (1 + ns * ns / 4))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Points at least the stencil width away from the boundary need no test of their
  neighbours; the others skip the neighbours outside the grid.
*/
#define INTERIOR(g, w, i, j, k) ((i) >= (w)[0] && (i) < (g)->n[0] - (w)[0] && (j) >= (w)[1] && (j) < (g)->n[1] - (w)[1] && (k) >= (w)[2] && (k) < (g)->n[2] - (w)[2])
#define NEIGHBOUR_IN(interior, g, st, s, i, j, k) ((interior) || Inside(g, (i) + (st)->off[s][0], (j) + (st)->off[s][1], (k) + (st)->off[s][2]))

/*
  Scalar solves. Each grid line (fixed j,k) is split into its first and last w points, which
  test their neighbours, and the interior, whose inner loop runs over the offsets only.
*/
static inline PetscInt LineInteriorBegin(const GILUGrid *g, const PetscInt *w, PetscInt j, PetscInt k)
{
  PetscBool in = (PetscBool)(j >= w[1] && j < g->n[1] - w[1] && k >= w[2] && k < g->n[2] - w[2]);

  return in ? PetscMin(w[0], g->n[0]) : g->n[0];
}

static PetscErrorCode Solve_1(const GILUStencilMat *sm, const PetscScalar *dinv, const PetscScalar *b, PetscScalar *x)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     ns = st->ns, nl = st->nlower, nu = ns - nl - 1, *shift = sm->shift, *w = st->width, nx = g->n[0];
  const size_t       N   = (size_t)sm->npoints;
  const PetscScalar *val = sm->val;
  const PetscScalar *Lv[GILU_STENCIL_MAX_OFFSETS], *Uv[GILU_STENCIL_MAX_OFFSETS];
  PetscInt           Ls[GILU_STENCIL_MAX_OFFSETS], Us[GILU_STENCIL_MAX_OFFSETS];

  PetscFunctionBegin;
  for (PetscInt s = 0; s < nl; s++) {
    Lv[s] = val + s * N;
    Ls[s] = shift[s];
  }
  for (PetscInt s = 0; s < nu; s++) {
    Uv[s] = val + (nl + 1 + s) * N;
    Us[s] = shift[nl + 1 + s];
  }
  for (PetscInt k = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++) {
      PetscInt i0 = LineInteriorBegin(g, w, j, k), i1 = i0 < nx ? nx - w[0] : nx, p = (k * g->n[1] + j) * nx;

      for (PetscInt i = 0; i < nx; i++, p++) {
        PetscScalar sum = b[p];

        if (i >= i0 && i < i1) {
          for (PetscInt s = 0; s < nl; s++) sum -= Lv[s][p] * x[p + Ls[s]];
        } else {
          for (PetscInt s = 0; s < nl; s++)
            if (Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) sum -= Lv[s][p] * x[p + Ls[s]];
        }
        x[p] = sum;
      }
    }
  for (PetscInt k = g->n[2] - 1; k >= 0; k--)
    for (PetscInt j = g->n[1] - 1; j >= 0; j--) {
      PetscInt i0 = LineInteriorBegin(g, w, j, k), i1 = i0 < nx ? nx - w[0] : nx, p = (k * g->n[1] + j) * nx + nx - 1;

      for (PetscInt i = nx - 1; i >= 0; i--, p--) {
        PetscScalar sum = x[p];

        if (i >= i0 && i < i1) {
          for (PetscInt s = 0; s < nu; s++) sum -= Uv[s][p] * x[p + Us[s]];
        } else {
          for (PetscInt s = 0; s < nu; s++)
            if (Inside(g, i + st->off[nl + 1 + s][0], j + st->off[nl + 1 + s][1], k + st->off[nl + 1 + s][2])) sum -= Uv[s][p] * x[p + Us[s]];
        }
        x[p] = dinv[p] * sum;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve_N(const GILUStencilMat *sm, const PetscScalar *dinv, const PetscScalar *b, PetscScalar *x)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     ns = st->ns, nl = st->nlower, d = g->dof, bs2 = sm->bs2, *shift = sm->shift, *w = st->width;
  const size_t       N   = (size_t)sm->npoints;
  const PetscScalar *val = sm->val;
  PetscScalar        sum[GILU_MAX_DOF];
  PetscInt           p = 0;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++, p++) {
        PetscBool in = (PetscBool)INTERIOR(g, w, i, j, k);

        for (PetscInt a = 0; a < d; a++) sum[a] = b[p * d + a];
        for (PetscInt s = 0; s < nl; s++) {
          const PetscScalar *L  = val + (s * N + p) * bs2;
          const PetscScalar *xq = x + (p + shift[s]) * d;

          if (!NEIGHBOUR_IN(in, g, st, s, i, j, k)) continue;
          for (PetscInt a = 0; a < d; a++)
            for (PetscInt e = 0; e < d; e++) sum[a] -= L[a * d + e] * xq[e];
        }
        for (PetscInt a = 0; a < d; a++) x[p * d + a] = sum[a];
      }
  for (PetscInt k = g->n[2] - 1; k >= 0; k--)
    for (PetscInt j = g->n[1] - 1; j >= 0; j--)
      for (PetscInt i = g->n[0] - 1; i >= 0; i--) {
        PetscBool          in = (PetscBool)INTERIOR(g, w, i, j, k);
        const PetscScalar *Di;

        p--;
        Di = dinv + p * bs2;
        for (PetscInt a = 0; a < d; a++) sum[a] = x[p * d + a];
        for (PetscInt s = nl + 1; s < ns; s++) {
          const PetscScalar *U  = val + (s * N + p) * bs2;
          const PetscScalar *xq = x + (p + shift[s]) * d;

          if (!NEIGHBOUR_IN(in, g, st, s, i, j, k)) continue;
          for (PetscInt a = 0; a < d; a++)
            for (PetscInt e = 0; e < d; e++) sum[a] -= U[a * d + e] * xq[e];
        }
        for (PetscInt a = 0; a < d; a++) {
          PetscScalar t = 0;

          for (PetscInt e = 0; e < d; e++) t += Di[a * d + e] * sum[e];
          x[p * d + a] = t;
        }
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSolve_Host(const GILUStencilMat *sm, const PetscScalar *dinv, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt d = sm->grid.dof;

  PetscFunctionBegin;
  if (d == 1) PetscCall(Solve_1(sm, dinv, b, x));
  else PetscCall(Solve_N(sm, dinv, b, x));
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (2.0 * d * d * sm->stencil.ns)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
