/*
   The ILU(k) pattern of a stencil matrix: levels of fill computed on the grid.

   PETSc's symbolic ILU(k) (MatILUFactorSymbolic_SeqAIJ with levels > 0, and the same code
   on blocks for BAIJ) gives the entries of A level 0 and, processing the rows in order and
   in each row the columns k < i in increasing order (fill included), the entries (i,j) of
   the strictly upper part of the factored row k level
       lev(i,j) = min(lev(i,j), lev(i,k) + lev(k,j) + 1),
   keeping only the entries of level at most `levels` (only those are stored in row k and
   used later). The diagonal of A is level 0 and is never a source of fill: only the
   strictly upper entries of a pivot row are added to the active row.

   On a grid every entry is a (point, offset) pair, so the levels are kept per grid point
   for a small set of candidate offsets, the offsets that sums of lower and upper ones can
   reach from the pattern. ILU(k) is then ILU(0) on the fill stencil (the offsets of level
   <= k at some point) with the positions of level > k listed as missing.

   With dense DoF blocks the levels of AIJ's scalar entries equal those of the blocks:
   a path through another unknown of the same grid point adds a level of fill to an entry
   that already has a smaller one, so GILUStencilMatFill() serves AIJ and BAIJ alike.
*/
#include <petscgilu/private/stencil.h>
#include <petscbt.h> /* after petscsys.h: PETSc 3.25's petscbt.h alone reaches petsclog.h before PetscBTLookup() */

#define W  GILU_STENCIL_MAX_WIDTH
#define R  (2 * GILU_STENCIL_MAX_WIDTH) /* sums of two offsets of width <= W */
#define R1 (2 * R + 1)

#define CUBE_ID(dx, dy, dz) ((((dz) + R) * R1 + ((dy) + R)) * R1 + ((dx) + R))

static inline PetscBool Inside(const GILUGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2]);
}

static inline PetscBool WithinWidth(const PetscInt d[3])
{
  return (PetscBool)(PetscAbsInt(d[0]) <= W && PetscAbsInt(d[1]) <= W && PetscAbsInt(d[2]) <= W);
}

/* Natural-order index shift of an offset on grid g */
static inline PetscInt Shift(const GILUGrid *g, const PetscInt d[3])
{
  return d[0] + g->n[0] * (d[1] + g->n[1] * d[2]);
}

/*
  The candidate offsets: the pattern's offsets closed under sums l + u of a lower and an
  upper candidate of width <= W (an entry of level t > 0 is such a sum of entries of level
  < t), `levels` times or until nothing changes. Offsets that cannot join two grid points
  (|d| >= n in some direction) are left out, and so are sums wider than R: they can only
  come from an entry wider than W, which is an error as soon as it appears.
*/
static PetscErrorCode Candidates(const GILUStencilMat *pat, PetscInt levels, PetscInt *nc, PetscInt (**coff)[3], PetscInt **cube2c)
{
  const GILUGrid *g = &pat->grid;
  PetscBool      *in;
  PetscInt        d[3], n = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(R1 * R1 * R1, &in));
  for (PetscInt s = 0; s < pat->stencil.ns; s++) in[CUBE_ID(pat->stencil.off[s][0], pat->stencil.off[s][1], pat->stencil.off[s][2])] = PETSC_TRUE;
  for (PetscInt t = 0; t < levels; t++) {
    PetscInt  nl = 0, nu = 0, (*lo)[3], (*up)[3];
    PetscBool changed = PETSC_FALSE;

    PetscCall(PetscMalloc2(R1 * R1 * R1, &lo, R1 * R1 * R1, &up));
    for (d[2] = -W; d[2] <= W; d[2]++)
      for (d[1] = -W; d[1] <= W; d[1]++)
        for (d[0] = -W; d[0] <= W; d[0]++) {
          PetscInt sh = (d[2] * (2 * W + 1) + d[1]) * (2 * W + 1) + d[0]; /* sign of the natural-order shift */

          if (!in[CUBE_ID(d[0], d[1], d[2])] || !sh) continue;
          if (sh < 0) PetscCall(PetscArraycpy(lo[nl++], d, 3));
          else PetscCall(PetscArraycpy(up[nu++], d, 3));
        }
    for (PetscInt l = 0; l < nl; l++)
      for (PetscInt u = 0; u < nu; u++) {
        PetscInt e[3] = {lo[l][0] + up[u][0], lo[l][1] + up[u][1], lo[l][2] + up[u][2]}, id;

        if (PetscAbsInt(e[0]) >= g->n[0] || PetscAbsInt(e[1]) >= g->n[1] || PetscAbsInt(e[2]) >= g->n[2]) continue;
        if (PetscAbsInt(e[0]) > R || PetscAbsInt(e[1]) > R || PetscAbsInt(e[2]) > R) continue;
        id = CUBE_ID(e[0], e[1], e[2]);
        if (!in[id]) {
          in[id]  = PETSC_TRUE;
          changed = PETSC_TRUE;
        }
      }
    PetscCall(PetscFree2(lo, up));
    if (!changed) break;
  }
  /* in natural order: lexicographic in (dz, dy, dx), which is the order of the cube ids */
  PetscCall(PetscMalloc1(R1 * R1 * R1, cube2c));
  for (PetscInt id = 0; id < R1 * R1 * R1; id++) {
    (*cube2c)[id] = in[id] ? n : -1;
    n += in[id];
  }
  PetscCall(PetscMalloc1(n, coff));
  for (PetscInt id = 0; id < R1 * R1 * R1; id++)
    if (in[id]) {
      PetscInt c = (*cube2c)[id];

      (*coff)[c][0] = id % R1 - R;
      (*coff)[c][1] = (id / R1) % R1 - R;
      (*coff)[c][2] = id / (R1 * R1) - R;
    }
  *nc = n;
  PetscCall(PetscFree(in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilMatFill - the ILU(levels) pattern of a stencil matrix

  Input Parameters:
+ pat    - an analyzed stencil matrix (GILUStencilMatAnalyze()): grid, stencil and missing positions; its values are not used
- levels - the levels of fill kept, as -pc_factor_levels

  Output Parameters:
+ fill - grid, fill stencil (the offsets of level <= levels at some grid point; it contains
         pat's stencil), missing positions (in-grid positions of the fill stencil whose level
         is above levels or that are not filled at all), the points whose rows of A are not
         the in-grid positions of the fill stencil (irregular, decoded by GILUStencilMatPack())
         and value storage, ready for GILUStencilMatPack(); free with GILUStencilMatReset()
- why  - empty, or why structured-grid ILU cannot hold this fill (wider than W, more than
         GILU_STENCIL_MAX_OFFSETS offsets, too many candidates for the indices): then fill is
         empty and nothing stays allocated, so the caller frees its own and names its option

  Notes:
  The levels are PETSc's (see the comment at the top of this file), so ILU(0) of the packed
  fill matrix has the factors of PETSc's ILU(levels) in natural ordering.
*/
PetscErrorCode GILUStencilMatFill(const GILUStencilMat *pat, PetscInt levels, GILUStencilMat *fill, char why[], size_t len)
{
  const GILUGrid *g    = &pat->grid;
  const PetscInt  npts = pat->npoints, lmax = PetscMin(levels, PETSC_MAX_INT / 4), INF = PETSC_MAX_INT / 2;
  PetscInt        nc = 0, (*coff)[3] = NULL, *cube2c = NULL, *cshift = NULL, nclow, *upc = NULL, nu = 0, *sum = NULL, *lev = NULL, *win = NULL, nwin, back = 0, *c2s = NULL, ns = 0, nmiss = 0, *missptr = NULL, *missoff = NULL;
  PetscBool      *used = NULL, *isnew = NULL;
  PetscBT         kept = NULL;
  GILUStencil    *st   = &fill->stencil;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The levels of fill must be non-negative, not %" PetscInt_FMT, levels);
  why[0] = 0;
  PetscCall(PetscMemzero(fill, sizeof(*fill)));
  PetscCall(Candidates(pat, lmax, &nc, &coff, &cube2c));
  if ((PetscInt64)npts * nc >= PETSC_MAX_INT) {
    PetscCall(PetscSNPrintf(why, len, "the local grid of %" PetscInt_FMT " points is too large for ILU(%" PetscInt_FMT ") with %d-bit indices (%" PetscInt_FMT " candidate fill offsets)", npts, levels, (int)(8 * sizeof(PetscInt)), nc));
    goto cleanup;
  }

  /* candidates: the lower ones come first (natural order), then (0,0,0), then the upper ones */
  PetscCall(PetscMalloc4(nc, &cshift, nc, &upc, nc, &lev, nc, &used));
  nclow = cube2c[CUBE_ID(0, 0, 0)];
  for (PetscInt c = 0; c < nc; c++) {
    cshift[c] = Shift(g, coff[c]);
    used[c]   = PETSC_FALSE;
    if (c > nclow) {
      upc[nu++] = c;
    } else if (c < nclow && WithinWidth(coff[c])) back = PetscMax(back, -cshift[c]);
  }
  /* sum[l*nu + u] = candidate of lower l plus upper u (both of width <= W), -1 if not a candidate */
  PetscCall(PetscMalloc1((size_t)nclow * nu, &sum));
  for (PetscInt l = 0; l < nclow; l++)
    for (PetscInt u = 0; u < nu; u++) {
      const PetscInt *a = coff[l], *b = coff[upc[u]];
      PetscInt        e[3] = {a[0] + b[0], a[1] + b[1], a[2] + b[2]};

      sum[l * nu + u] = WithinWidth(a) && WithinWidth(b) ? cube2c[CUBE_ID(e[0], e[1], e[2])] : -1;
    }
  /* the levels of the upper candidates of the last back+1 rows, and which candidates each point keeps */
  nwin = back + 1;
  PetscCall(PetscMalloc1((size_t)nwin * nu, &win));
  PetscCall(PetscBTCreate(npts * nc, &kept));

  for (PetscInt k = 0, p = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++, p++) {
        PetscInt  m = pat->missptr ? pat->missptr[p] : 0, mend = pat->missptr ? pat->missptr[p + 1] : 0;
        PetscInt *wp = win + (size_t)(p % nwin) * nu;

        for (PetscInt c = 0; c < nc; c++) lev[c] = INF;
        /* the entries of A: in-grid positions of its stencil that the row does not miss */
        for (PetscInt s = 0; s < pat->stencil.ns; s++) {
          const PetscInt *d = pat->stencil.off[s];

          if (!Inside(g, i + d[0], j + d[1], k + d[2])) continue;
          if (m < mend && pat->missoff[m] == s) {
            m++;
            continue;
          }
          lev[cube2c[CUBE_ID(d[0], d[1], d[2])]] = 0;
        }
        /* pivot rows p + l in increasing order, l lower (a fill entry joins the list at its place) */
        for (PetscInt l = 0; l < nclow; l++) {
          const PetscInt *lq;
          PetscInt        ll = lev[l];

          if (ll > lmax) continue;
          lq = win + (size_t)((p + cshift[l]) % nwin) * nu;
          for (PetscInt u = 0; u < nu; u++) {
            PetscInt t, incr;

            if (lq[u] > lmax) continue;
            incr = lq[u] + ll + 1;
            if (incr > lmax) continue;
            t = sum[l * nu + u];
            if (t < 0 || !WithinWidth(coff[t])) {
              PetscCall(PetscSNPrintf(why, len, "ILU(%" PetscInt_FMT ") fills grid point %" PetscInt_FMT " (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") at an offset wider than %d grid points, the widest stencil structured-grid ILU supports", levels, p, i, j, k, W));
              goto cleanup;
            }
            if (incr < lev[t]) lev[t] = incr;
          }
        }
        /* keep the entries of level <= levels (all of width <= W, see above); this row's upper part is used by the rows below */
        for (PetscInt c = 0; c < nc; c++) {
          if (lev[c] > lmax) continue;
          PetscCall(PetscBTSet(kept, p * nc + c));
          used[c] = PETSC_TRUE;
        }
        for (PetscInt u = 0; u < nu; u++) wp[u] = lev[upc[u]];
      }

  /* the fill stencil: the kept candidates and the pattern's offsets, in natural order */
  for (PetscInt s = 0; s < pat->stencil.ns; s++) used[cube2c[CUBE_ID(pat->stencil.off[s][0], pat->stencil.off[s][1], pat->stencil.off[s][2])]] = PETSC_TRUE;
  for (PetscInt c = 0; c < nc; c++) ns += used[c];
  if (ns > GILU_STENCIL_MAX_OFFSETS) {
    PetscCall(PetscSNPrintf(why, len, "the ILU(%" PetscInt_FMT ") fill stencil has %" PetscInt_FMT " offsets, more than the %d structured-grid ILU supports", levels, ns, GILU_STENCIL_MAX_OFFSETS));
    goto cleanup;
  }
  PetscCall(PetscMalloc2(ns, &c2s, ns, &isnew));
  st->ns = 0;
  for (PetscInt d = 0; d < 3; d++) st->width[d] = 0;
  for (PetscInt c = 0; c < nc; c++) {
    if (!used[c]) continue;
    if (c == nclow) st->nlower = st->ns;
    PetscCall(PetscArraycpy(st->off[st->ns], coff[c], 3));
    for (PetscInt d = 0; d < 3; d++) st->width[d] = PetscMax(st->width[d], PetscAbsInt(coff[c][d]));
    c2s[st->ns++] = c;
  }

  /* missing: in-grid positions of the fill stencil not kept (count, then list) */
  for (PetscInt pass = 0; pass < 2; pass++) {
    nmiss = 0;
    for (PetscInt k = 0, p = 0; k < g->n[2]; k++)
      for (PetscInt j = 0; j < g->n[1]; j++)
        for (PetscInt i = 0; i < g->n[0]; i++, p++) {
          for (PetscInt s = 0; s < ns; s++) {
            if (!Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2]) || PetscBTLookup(kept, p * nc + c2s[s])) continue;
            if (pass) missoff[nmiss] = s;
            nmiss++;
          }
          if (pass) missptr[p + 1] = nmiss;
        }
    if (!pass) {
      if (!nmiss) break;
      PetscCall(PetscMalloc2(npts + 1, &missptr, nmiss, &missoff));
      missptr[0] = 0;
    }
  }

  /* rows of A that are not exactly the in-grid positions of the fill stencil: GILUStencilMatPack() decodes them */
  PetscCall(PetscMalloc1(npts, &fill->irregular));
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt idx;

    PetscCall(GILUStencilFind(&pat->stencil, st->off[s], &idx));
    isnew[s] = (PetscBool)(idx < 0);
  }
  for (PetscInt k = 0, p = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++, p++) {
        PetscBool irr = pat->irregular ? (PetscBool)pat->irregular[p] : PETSC_TRUE;

        for (PetscInt s = 0; s < ns && !irr; s++) irr = (PetscBool)(isnew[s] && Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2]));
        fill->irregular[p] = (char)irr;
      }

  fill->grid         = *g;
  fill->npoints      = npts;
  fill->bs2          = pat->bs2;
  fill->nmissing     = nmiss;
  fill->missptr      = missptr;
  fill->missoff      = missoff;
  fill->nonzerostate = pat->nonzerostate;
  PetscCall(PetscMalloc1(ns, &fill->shift));
  for (PetscInt s = 0; s < ns; s++) fill->shift[s] = Shift(g, st->off[s]);
  PetscCall(PetscMalloc1((size_t)ns * npts * pat->bs2, &fill->val));

cleanup: /* also the way out when why says the fill cannot be held: then fill stays empty */
  if (why[0]) PetscCall(PetscMemzero(fill, sizeof(*fill)));
  PetscCall(PetscFree2(c2s, isnew));
  PetscCall(PetscBTDestroy(&kept));
  PetscCall(PetscFree(win));
  PetscCall(PetscFree(sum));
  PetscCall(PetscFree4(cshift, upc, lev, used));
  PetscCall(PetscFree(coff));
  PetscCall(PetscFree(cube2c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
