/*
   Stencil geometry: names of the usual shapes, the hyperplane (wavefront) schedule and
   the elimination table of ILU(0). Everything here depends on the offsets only.
*/
#include <petscgilu/private/stencil.h>

typedef enum {
  SHAPE_STAR,    /* offsets along one axis only */
  SHAPE_BOX,     /* max |d| <= w */
  SHAPE_DIAMOND, /* |dx|+|dy|+|dz| <= w */
  SHAPE_FILL     /* star of width 1 plus e_i - e_j: the ILU(1) fill of the 5/7-point star */
} StencilShape;

static PetscBool InShape(StencilShape shape, PetscInt w, const PetscInt d[3])
{
  PetscInt a = PetscAbsInt(d[0]), b = PetscAbsInt(d[1]), c = PetscAbsInt(d[2]);
  PetscInt nz = (a > 0) + (b > 0) + (c > 0);

  switch (shape) {
  case SHAPE_STAR:
    return (PetscBool)(nz <= 1 && PetscMax(a, PetscMax(b, c)) <= w);
  case SHAPE_BOX:
    return (PetscBool)(PetscMax(a, PetscMax(b, c)) <= w);
  case SHAPE_DIAMOND:
    return (PetscBool)(a + b + c <= w);
  case SHAPE_FILL:
    if (a + b + c <= 1) return PETSC_TRUE;
    return (PetscBool)(nz == 2 && a <= 1 && b <= 1 && c <= 1 && d[0] + d[1] + d[2] == 0);
  }
  return PETSC_FALSE;
}

/* Number of offsets of a shape in dim dimensions */
static PetscInt ShapeSize(StencilShape shape, PetscInt w, PetscInt dim)
{
  PetscInt d[3] = {0, 0, 0}, r[3], count = 0;

  for (PetscInt i = 0; i < 3; i++) r[i] = i < dim ? w : 0;
  for (d[2] = -r[2]; d[2] <= r[2]; d[2]++)
    for (d[1] = -r[1]; d[1] <= r[1]; d[1]++)
      for (d[0] = -r[0]; d[0] <= r[0]; d[0]++) count += InShape(shape, w, d);
  return count;
}

/*
  GILUStencilGetName - "star-7", "box-27", "diamond-25", "diamond-13" ... or "custom-N"

  The 3D "diamond-13" is the paper's Diamond-13P (star-7 plus the six points e_i - e_j,
  i.e. the ILU(1) fill of star-7); its 2D analogue has 7 points. Other diamonds are the
  balls |dx|+|dy|+|dz| <= w.
*/
PetscErrorCode GILUStencilGetName(const GILUStencil *st, PetscInt dim, char name[], size_t len)
{
  const StencilShape shapes[] = {SHAPE_STAR, SHAPE_BOX, SHAPE_FILL, SHAPE_DIAMOND};
  const char        *names[]  = {"star", "box", "diamond", "diamond"};
  PetscInt           w        = PetscMax(st->width[0], PetscMax(st->width[1], st->width[2]));

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 4; k++) {
    PetscBool match = PETSC_TRUE;

    if (shapes[k] == SHAPE_FILL && w != 1) continue;
    if (ShapeSize(shapes[k], w, dim) != st->ns) continue;
    for (PetscInt s = 0; s < st->ns && match; s++) match = InShape(shapes[k], w, st->off[s]);
    if (match && dim > 1 && st->ns > 1) {
      PetscCall(PetscSNPrintf(name, len, "%s-%" PetscInt_FMT, names[k], st->ns));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscSNPrintf(name, len, "%s-%" PetscInt_FMT, dim == 1 ? "line" : "custom", st->ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Index of an offset in the stencil, -1 if absent */
PetscErrorCode GILUStencilFind(const GILUStencil *st, const PetscInt d[3], PetscInt *idx)
{
  PetscFunctionBegin;
  *idx = -1;
  for (PetscInt s = 0; s < st->ns; s++) {
    if (st->off[s][0] == d[0] && st->off[s][1] == d[1] && st->off[s][2] == d[2]) {
      *idx = s;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The weights w with the fewest levels, smallest first in (w2, w1, w0) order on ties, that give every lower offset l
   w.l <= -1 (and with upper, every upper offset u w.u >= 1); *best PETSC_MAX_INT, w unchanged, when none does */
static void SearchHyperplanes(const GILUStencil *st, const GILUGrid *g, PetscBool upper, PetscInt w[3], PetscInt *best)
{
  const PetscInt W = 2 * GILU_STENCIL_MAX_WIDTH + 1;

  *best = PETSC_MAX_INT;
  for (PetscInt c = 0; c <= W * W; c++)
    for (PetscInt b = 0; b <= W; b++)
      for (PetscInt a = 0; a <= 2; a++) {
        PetscInt  levels = a * (g->n[0] - 1) + b * (g->n[1] - 1) + c * (g->n[2] - 1) + 1;
        PetscBool valid  = PETSC_TRUE;

        if (levels >= *best) continue;
        for (PetscInt s = 0; s < (upper ? st->ns : st->nlower) && valid; s++) {
          const PetscInt v = a * st->off[s][0] + b * st->off[s][1] + c * st->off[s][2];

          if (s != st->nlower) valid = (PetscBool)(s < st->nlower ? v <= -1 : v >= 1);
        }
        if (valid) {
          *best = levels;
          w[0]  = a;
          w[1]  = b;
          w[2]  = c;
        }
      }
}

/*
  GILUStencilGetHyperplanes - the linear wavefront schedule level(i,j,k) = w0*i + w1*j + w2*k

  Row p depends on p + l for every lower offset l (in both the factorization and the
  forward solve), so a schedule is valid when w.l <= -1 for all lower offsets. Among the
  valid non-negative integer weights we take the one with the fewest levels
  w.(n - 1) + 1: (1,1,1) for stars, (1,2,3) for diamond-13, (1,2,4) for box-27, as in
  StructILU's affine transformation. The search is over a small box that always contains
  the valid choice (1, 2W+1, (2W+1)^2).
*/
PetscErrorCode GILUStencilGetHyperplanes(const GILUStencil *st, const GILUGrid *g, PetscInt w[3], PetscInt *nlevels)
{
  const PetscInt W = 2 * GILU_STENCIL_MAX_WIDTH + 1;

  PetscFunctionBegin;
  w[0] = 1;
  w[1] = W;
  w[2] = W * W;
  SearchHyperplanes(st, g, PETSC_FALSE, w, nlevels);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilGetHyperplanesBoth - the same search with the upper offsets ordered too (w.u >= 1 for every upper offset u):
  one level order for both sweeps, the backward one by decreasing level; *nlevels is PETSC_MAX_INT (w unchanged) when
  no weights in the box order both
*/
PetscErrorCode GILUStencilGetHyperplanesBoth(const GILUStencil *st, const GILUGrid *g, PetscInt w[3], PetscInt *nlevels)
{
  PetscFunctionBegin;
  SearchHyperplanes(st, g, PETSC_TRUE, w, nlevels);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilGetEliminationTable - table[l*ns + u] = index of off[l] + off[u] in the stencil, or -1

  Filled for lower l and upper u: the update A[p][l+u] -= L[p][l] U[p+l][u] of ILU(0)
  (Algorithm 1 of the StructILU paper) happens only when l+u is an offset of the stencil.
  Free with PetscFree().
*/
PetscErrorCode GILUStencilGetEliminationTable(const GILUStencil *st, PetscInt **table)
{
  PetscInt ns = st->ns;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ns * ns, table));
  for (PetscInt i = 0; i < ns * ns; i++) (*table)[i] = -1;
  for (PetscInt l = 0; l < st->nlower; l++)
    for (PetscInt u = st->nlower + 1; u < ns; u++) {
      PetscInt e[3] = {st->off[l][0] + st->off[u][0], st->off[l][1] + st->off[u][1], st->off[l][2] + st->off[u][2]};

      PetscCall(GILUStencilFind(st, e, &(*table)[l * ns + u]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
