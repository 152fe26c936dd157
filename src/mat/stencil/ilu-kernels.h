/*
   Tile kernels of the structured-grid ILU on the host (PCSTRUCTILU, MATSEQSTENCILGPU's factor), instantiated by ilu.c for each
   compile-time DoF (SDOF = 1..8) and factor precision (FT = double or float), so the
   DoF x DoF block loops are unrolled. The arithmetic of each row is that of sequential
   ILU(0) in natural order; only the tiles (segments of grid lines) are scheduled.

   Requires: SDOF, FT, and SUFFIX(name) that appends the instance's suffix.
*/

/*
  The solves work on a tile (a segment [i0,i1) of the grid line (j,k)) in two parts. The
  offsets that leave the line read rows of other lines, all final, so their products are
  subtracted for the whole segment in unit-stride loops (each offset over the range of i
  where its neighbour is in the grid: no test per point). Only the offsets along the line
  (dy = dz = 0) carry a dependency from point to point; they are applied in a second,
  sequential loop. Every row subtracts its products in the same order (the offsets leaving
  the line in stencil order, then those along the line), whatever the tiles and threads.
*/

/* y = D x for a dof x dof block D */
static inline void SUFFIX(BlockApply)(const FT *D, const PetscScalar *x, PetscScalar *y)
{
  for (PetscInt a = 0; a < SDOF; a++) {
    PetscScalar t = (PetscScalar)D[a * SDOF] * x[0];

    for (PetscInt e = 1; e < SDOF; e++) t += (PetscScalar)D[a * SDOF + e] * x[e];
    y[a] = t;
  }
}

/* y_seg -= A_s x_{seg+s} for an offset s that leaves the line, over the points of [i0,i1) whose neighbour is in the grid */
/* A holds the blocks of offset s (transposed: of the mirror offset -s at the neighbour, for IC); with dinv (IC, DILU
   forward sweeps) the neighbour's value is z_q = D_q^{-1} x_q, formed here (the same product as where row q formed it) */
static inline void SUFFIX(SubtractOffset)(const GILUStencilMat *sm, const FT *A, PetscBool transposed, const FT *dinv, PetscInt s, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k, PetscScalar *y, const PetscScalar *x)
{
  const GILUGrid *g  = &sm->grid;
  const PetscInt *d  = sm->stencil.off[s];
  const PetscInt  p0 = (k * g->n[1] + j) * g->n[0], sh = sm->shift[s];
  const PetscInt  ia = PetscMax(i0, -d[0]), ib = PetscMin(i1, g->n[0] - d[0]);

  if (j + d[1] < 0 || j + d[1] >= g->n[1] || k + d[2] < 0 || k + d[2] >= g->n[2]) return;
  /* y and x may be the same array, but the neighbour (another line) never overlaps the segment */
  PRAGMA_IVDEP
  for (PetscInt p = p0 + ia; p < p0 + ib; p++) {
    const FT          *Ap = A + (size_t)(transposed ? p + sh : p) * (SDOF * SDOF);
    const PetscScalar *xq = x + (p + sh) * SDOF;
    PetscScalar        zq[SDOF];

    if (dinv) {
      SUFFIX(BlockApply)(dinv + (size_t)(p + sh) * (SDOF * SDOF), xq, zq);
      xq = zq;
    }
    for (PetscInt a = 0; a < SDOF; a++) {
      PetscScalar t = y[p * SDOF + a];

      for (PetscInt e = 0; e < SDOF; e++) t -= (PetscScalar)(transposed ? Ap[e * SDOF + a] : Ap[a * SDOF + e]) * xq[e];
      y[p * SDOF + a] = t;
    }
  }
}

/* The blocks of offset s: stored (ILU: lower and upper offsets; IC: upper offsets only) or, for IC's lower offsets, those of the mirror offset */
static inline const FT *SUFFIX(OffsetBlocks)(const SolveCtx *ctx, PetscInt s, PetscBool *transposed)
{
  const size_t   N  = (size_t)ctx->sm->npoints * (SDOF * SDOF);
  const PetscInt nl = ctx->sm->stencil.nlower;

  *transposed = (PetscBool)(ctx->ic && s < nl);
  if (s > nl) return (const FT *)ctx->uval + (size_t)(s - nl - 1) * N;
  return ctx->ic ? (const FT *)ctx->uval + (size_t)(ctx->mirror[s] - nl - 1) * N : (const FT *)ctx->lval + (size_t)s * N;
}

#if SDOF == 1
/*
  The recurrences of NU independent grid lines of equal length with one unknown per point and
  the offsets (-1) or (-2,-1) along the line, interleaved so that their latencies overlap; the
  values the recurrences need stay in registers. NU is a constant at every call, so the
  loops over the lines unroll.
*/
static inline void SUFFIX(ForwardLines1)(const PetscInt NU, PetscInt nline, const FT *L1, const FT *L2, const PetscInt *start, const PetscInt *first, PetscInt len, PetscScalar *x)
{
  PetscScalar x1[MAX_GROUP_DOF1], x2[MAX_GROUP_DOF1];

  for (PetscInt u = 0; u < NU; u++) {
    x1[u] = first[u] >= 1 ? x[start[u] - 1] : 0;
    x2[u] = first[u] >= 2 ? x[start[u] - 2] : 0;
  }
  if (nline == 1)
    for (PetscInt d = 0; d < len; d++)
      for (PetscInt u = 0; u < NU; u++) {
        const PetscInt p = start[u] + d;

        x1[u] = x[p] - (PetscScalar)L1[p] * x1[u];
        x[p]  = x1[u];
      }
  else
    for (PetscInt d = 0; d < len; d++)
      for (PetscInt u = 0; u < NU; u++) {
        const PetscInt p = start[u] + d;
        PetscScalar    v = x[p] - (PetscScalar)L2[p] * x2[u] - (PetscScalar)L1[p] * x1[u];

        x[p]  = v;
        x2[u] = x1[u];
        x1[u] = v;
      }
}

static inline void SUFFIX(BackwardLines1)(const PetscInt NU, PetscInt nline, const FT *U1, const FT *U2, const FT *dinv, const PetscInt *last, const PetscInt *end, PetscInt nx, PetscInt len, PetscScalar *x)
{
  PetscScalar x1[MAX_GROUP_DOF1], x2[MAX_GROUP_DOF1];

  for (PetscInt u = 0; u < NU; u++) {
    x1[u] = end[u] < nx ? x[last[u] + 1] : 0;
    x2[u] = end[u] + 1 < nx ? x[last[u] + 2] : 0;
  }
  if (nline == 1)
    for (PetscInt d = 0; d < len; d++)
      for (PetscInt u = 0; u < NU; u++) {
        const PetscInt p = last[u] - d;

        x1[u] = (PetscScalar)dinv[p] * (x[p] - (PetscScalar)U1[p] * x1[u]);
        x[p]  = x1[u];
      }
  else
    for (PetscInt d = 0; d < len; d++)
      for (PetscInt u = 0; u < NU; u++) {
        const PetscInt p = last[u] - d;
        PetscScalar    v = (PetscScalar)dinv[p] * (x[p] - (PetscScalar)U1[p] * x1[u] - (PetscScalar)U2[p] * x2[u]);

        x[p]  = v;
        x2[u] = x1[u];
        x1[u] = v;
      }
}

/*
  ForwardLines1 for DILU factors: the lower blocks are the matrix's, L = A D^{-1}, so they multiply
  z = D^{-1} y, kept in registers along the line; y goes to x for the backward sweep (and for the
  rows of the next lines, which form D_q^{-1} y_q again). With out (the lower sweep alone, whose
  y nobody needs), x holds z instead and out = t + z (t may be NULL).
*/
static inline void SUFFIX(ForwardLines1Scaled)(const PetscInt NU, PetscInt nline, const FT *A1, const FT *A2, const FT *dinv, const PetscInt *start, const PetscInt *first, PetscInt len, PetscScalar *x, PetscScalar *out, const PetscScalar *t)
{
  PetscScalar z1[MAX_GROUP_DOF1], z2[MAX_GROUP_DOF1];

  for (PetscInt u = 0; u < NU; u++) {
    z1[u] = first[u] >= 1 ? (out ? x[start[u] - 1] : (PetscScalar)dinv[start[u] - 1] * x[start[u] - 1]) : 0;
    z2[u] = first[u] >= 2 ? (out ? x[start[u] - 2] : (PetscScalar)dinv[start[u] - 2] * x[start[u] - 2]) : 0;
  }
  for (PetscInt d = 0; d < len; d++)
    for (PetscInt u = 0; u < NU; u++) {
      const PetscInt p = start[u] + d;
      PetscScalar    v = nline == 2 ? x[p] - (PetscScalar)A2[p] * z2[u] - (PetscScalar)A1[p] * z1[u] : x[p] - (PetscScalar)A1[p] * z1[u];

      z2[u] = z1[u];
      z1[u] = (PetscScalar)dinv[p] * v;
      if (out) {
        x[p]   = z1[u];
        out[p] = t ? t[p] + z1[u] : z1[u];
      } else x[p] = v;
    }
}
#endif

/* The right-hand side of a forward sweep on the points [q0, q1): b, or for Eisenstat b + E t */
static inline void SUFFIX(ForwardInit)(const SolveCtx *ctx, PetscInt q0, PetscInt q1, PetscScalar *x)
{
  if (!ctx->eisE) {
    for (PetscInt a = q0 * SDOF; a < q1 * SDOF; a++) x[a] = ctx->b[a];
    return;
  }
  for (PetscInt q = q0; q < q1; q++) {
    const PetscScalar *E = ctx->eisE + (size_t)q * (SDOF * SDOF), *t = ctx->t + q * SDOF;

    for (PetscInt a = 0; a < SDOF; a++) {
      PetscScalar v = ctx->b[q * SDOF + a];

      for (PetscInt e = 0; e < SDOF; e++) v += E[a * SDOF + e] * t[e];
      x[q * SDOF + a] = v;
    }
  }
}

/* The end of a point's forward row with y = sum, when the solve wants z = D^{-1} y (ctx->out): x = z, out = t + z (t may be NULL) */
static inline void SUFFIX(ForwardOut)(const SolveCtx *ctx, const FT *dinv, PetscInt p, const PetscScalar *sum)
{
  PetscScalar z[SDOF];

  SUFFIX(BlockApply)(dinv + (size_t)p * (SDOF * SDOF), sum, z);
  for (PetscInt a = 0; a < SDOF; a++) {
    ctx->x[p * SDOF + a]   = z[a];
    ctx->out[p * SDOF + a] = (ctx->t ? ctx->t[p * SDOF + a] : 0) + z[a];
  }
}

/* Forward substitution y = L^{-1} b on a tile of independent units (L has a unit block diagonal) */
static void SUFFIX(Forward)(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  SolveCtx             *ctx  = (SolveCtx *)vctx;
  const GILUStencilMat *sm   = ctx->sm;
  const GILUStencil    *st   = &sm->stencil;
  const FT             *dinv = (const FT *)ctx->dinv;
  const PetscInt        nl = st->nlower, nline = ctx->nline[0];
  PetscInt              i0[MAX_GROUP], len     = PETSC_MAX_INT, p0[MAX_GROUP], i1u[MAX_GROUP];
  PetscScalar          *x   = ctx->x;
  const FT             *dsc = ctx->scaled && !ctx->out ? dinv : NULL; /* IC, DILU: the blocks (IC: transposed) multiply z = D^{-1} y,
                                                                       formed where read (with out, x holds z) */

  for (PetscInt u = 0; u < nu; u++) {
    PetscInt i1, j, k;

    GILUScheduleGetUnit(sched, units[u], &i0[u], &i1, &j, &k);
    p0[u]  = (k * sm->grid.n[1] + j) * sm->grid.n[0];
    i1u[u] = i1;
    len    = PetscMin(len, i1 - i0[u]);
    SUFFIX(ForwardInit)(ctx, p0[u] + i0[u], p0[u] + i1, x);
    for (PetscInt s = 0; s < nl - nline; s++) {
      PetscBool tr;
      const FT *A = SUFFIX(OffsetBlocks)(ctx, s, &tr);

      SUFFIX(SubtractOffset)(sm, A, tr, dsc, s, i0[u], i1, j, k, x, x);
    }
    if (u > 0 && i1 - i0[u] != len) len = -1; /* units of unequal lengths: no interleaving */
  }
  if (!nline) {
    if (ctx->out)
      for (PetscInt u = 0; u < nu; u++)
        for (PetscInt p = p0[u] + i0[u]; p < p0[u] + i1u[u]; p++) SUFFIX(ForwardOut)(ctx, dinv, p, x + p * SDOF);
    return;
  }
#if SDOF == 1
  /* one unknown per point and the usual offsets along the line, (-1) or (-2,-1): the values the
     recurrence needs stay in registers (same operations as below, without the store-to-load
     latency of reading x[p-1] back) */
  if (!ctx->ic && (nline == 1 || nline == 2) && st->off[nl - 1][0] == -1 && (nline == 1 || st->off[nl - 2][0] == -2)) {
    PetscBool tr;
    const FT *L1 = SUFFIX(OffsetBlocks)(ctx, nl - 1, &tr), *L2 = nline == 2 ? SUFFIX(OffsetBlocks)(ctx, nl - 2, &tr) : NULL;

    if (nu >= 2 && nu <= MAX_GROUP_DOF1 && len > 0) { /* independent lines: their recurrences interleaved */
      PetscInt start[MAX_GROUP_DOF1], first[MAX_GROUP_DOF1];

      for (PetscInt u = 0; u < nu; u++) {
        start[u] = p0[u] + i0[u];
        first[u] = i0[u];
      }
      switch (nu) {
      case 2:
        if (ctx->scaled) SUFFIX(ForwardLines1Scaled)(2, nline, L1, L2, dinv, start, first, len, x, ctx->out, ctx->t);
        else SUFFIX(ForwardLines1)(2, nline, L1, L2, start, first, len, x);
        break;
      case 3:
        if (ctx->scaled) SUFFIX(ForwardLines1Scaled)(3, nline, L1, L2, dinv, start, first, len, x, ctx->out, ctx->t);
        else SUFFIX(ForwardLines1)(3, nline, L1, L2, start, first, len, x);
        break;
      default:
        if (ctx->scaled) SUFFIX(ForwardLines1Scaled)(4, nline, L1, L2, dinv, start, first, len, x, ctx->out, ctx->t);
        else SUFFIX(ForwardLines1)(4, nline, L1, L2, start, first, len, x);
      }
      return;
    }
    for (PetscInt u = 0; u < nu; u++) { /* lines of unequal lengths: one at a time */
      PetscInt i1, j, k, start;

      GILUScheduleGetUnit(sched, units[u], &i0[u], &i1, &j, &k);
      start = p0[u] + i0[u];
      if (ctx->scaled) SUFFIX(ForwardLines1Scaled)(1, nline, L1, L2, dinv, &start, &i0[u], i1 - i0[u], x, ctx->out, ctx->t);
      else SUFFIX(ForwardLines1)(1, nline, L1, L2, &start, &i0[u], i1 - i0[u], x);
    }
    return;
  }
#endif
#if SDOF > 1
  /* one offset along the line, (-1), L and U stored (stars with DoF blocks: snes ex19): the previous point's values stay
     in registers and its blocks' pointer is fixed (the same operations, in the same order, as the loop below) */
  if (!ctx->scaled && nline == 1 && st->off[nl - 1][0] == -1 && len > 0 && nu <= MAX_GROUP) {
    PetscBool   tr;
    const FT   *L1 = SUFFIX(OffsetBlocks)(ctx, nl - 1, &tr);
    PetscScalar prev[MAX_GROUP][SDOF];

    for (PetscInt u = 0; u < nu; u++)
      for (PetscInt a = 0; a < SDOF; a++) prev[u][a] = i0[u] > 0 ? x[(p0[u] + i0[u] - 1) * SDOF + a] : 0;
    for (PetscInt di = 0; di < len; di++)
      for (PetscInt u = 0; u < nu; u++) {
        const PetscInt p = p0[u] + i0[u] + di;
        const FT      *L = L1 + (size_t)p * (SDOF * SDOF);
        PetscScalar    sum[SDOF];

        for (PetscInt a = 0; a < SDOF; a++) sum[a] = x[p * SDOF + a];
        if (i0[u] + di > 0)
          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt e = 0; e < SDOF; e++) sum[a] -= (PetscScalar)L[a * SDOF + e] * prev[u][e];
        for (PetscInt a = 0; a < SDOF; a++) {
          x[p * SDOF + a] = sum[a];
          prev[u][a]      = sum[a];
        }
      }
    return;
  }
#endif
  /* the recurrences along the lines, the units interleaved so that their latencies overlap */
  for (PetscInt u0 = 0; u0 < nu; u0 += (len < 0 ? 1 : nu)) {
    PetscInt ue = len < 0 ? u0 + 1 : nu, n = len;

    if (len < 0) {
      PetscInt i1, j, k;

      GILUScheduleGetUnit(sched, units[u0], &i0[u0], &i1, &j, &k);
      n = i1 - i0[u0];
    }
    for (PetscInt di = 0; di < n; di++)
      for (PetscInt u = u0; u < ue; u++) {
        const PetscInt i = i0[u] + di, p = p0[u] + i;
        PetscScalar    sum[SDOF];

        for (PetscInt a = 0; a < SDOF; a++) sum[a] = x[p * SDOF + a];
        for (PetscInt s = nl - nline; s < nl; s++) {
          PetscBool          tr;
          const FT          *L  = SUFFIX(OffsetBlocks)(ctx, s, &tr) + (size_t)(tr ? p + sm->shift[s] : p) * (SDOF * SDOF);
          const PetscScalar *xq = x + (p + sm->shift[s]) * SDOF;
          PetscScalar        zq[SDOF];

          if (i + st->off[s][0] < 0) continue;
          if (dsc) { /* z_q = D_q^{-1} y_q */
            SUFFIX(BlockApply)(dsc + (size_t)(p + sm->shift[s]) * (SDOF * SDOF), xq, zq);
            xq = zq;
          }
          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt e = 0; e < SDOF; e++) sum[a] -= (PetscScalar)(tr ? L[e * SDOF + a] : L[a * SDOF + e]) * xq[e];
        }
        if (ctx->out) SUFFIX(ForwardOut)(ctx, dinv, p, sum);
        else
          for (PetscInt a = 0; a < SDOF; a++) x[p * SDOF + a] = sum[a];
      }
  }
}

/* Backward substitution x = (D + U)^{-1} y on a tile of independent units, points in reverse natural order */
static void SUFFIX(Backward)(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  SolveCtx             *ctx  = (SolveCtx *)vctx;
  const GILUStencilMat *sm   = ctx->sm;
  const GILUStencil    *st   = &sm->stencil;
  const FT             *dinv = (const FT *)ctx->dinv;
  const PetscInt        nl = st->nlower, ns = st->ns, nline = ctx->nline[1], nx = sm->grid.n[0];
  PetscInt              i1[MAX_GROUP], len = PETSC_MAX_INT, p0[MAX_GROUP];
  PetscScalar          *x = ctx->t ? ctx->t : ctx->x; /* Eisenstat: t = (D + U)^{-1} init */

  for (PetscInt u = 0; u < nu; u++) {
    PetscInt i0, j, k;

    GILUScheduleGetUnit(sched, units[u], &i0, &i1[u], &j, &k);
    p0[u] = (k * sm->grid.n[1] + j) * nx;
    len   = PetscMin(len, i1[u] - i0);
    if (ctx->init)
      for (PetscInt a = (p0[u] + i0) * SDOF; a < (p0[u] + i1[u]) * SDOF; a++) x[a] = ctx->init[a];
    for (PetscInt s = nl + 1 + nline; s < ns; s++) {
      PetscBool tr;
      const FT *A = SUFFIX(OffsetBlocks)(ctx, s, &tr);

      SUFFIX(SubtractOffset)(sm, A, tr, NULL, s, i0, i1[u], j, k, x, x);
    }
    if (u > 0 && i1[u] - i0 != len) len = -1;
  }
#if SDOF == 1
  /* as in the forward sweep: offsets (1) or (1,2) along the line, their values in registers */
  if ((nline == 1 || nline == 2) && st->off[nl + 1][0] == 1 && (nline == 1 || st->off[nl + 2][0] == 2)) {
    PetscBool tr;
    const FT *U1 = SUFFIX(OffsetBlocks)(ctx, nl + 1, &tr), *U2 = nline == 2 ? SUFFIX(OffsetBlocks)(ctx, nl + 2, &tr) : NULL;

    if (nu >= 2 && nu <= MAX_GROUP_DOF1 && len > 0) { /* independent lines: their recurrences interleaved */
      PetscInt last[MAX_GROUP_DOF1], end[MAX_GROUP_DOF1];

      for (PetscInt u = 0; u < nu; u++) {
        last[u] = p0[u] + i1[u] - 1;
        end[u]  = i1[u];
      }
      // clang-format off: one case a line, by the number of lines
      switch (nu) {
      case 2: SUFFIX(BackwardLines1)(2, nline, U1, U2, dinv, last, end, nx, len, x); break;
      case 3: SUFFIX(BackwardLines1)(3, nline, U1, U2, dinv, last, end, nx, len, x); break;
      default: SUFFIX(BackwardLines1)(4, nline, U1, U2, dinv, last, end, nx, len, x);
      }
      // clang-format on
      return;
    }
    for (PetscInt u = 0; u < nu; u++) { /* lines of unequal lengths: one at a time */
      PetscInt i0, j, k, last;

      GILUScheduleGetUnit(sched, units[u], &i0, &i1[u], &j, &k);
      last = p0[u] + i1[u] - 1;
      SUFFIX(BackwardLines1)(1, nline, U1, U2, dinv, &last, &i1[u], nx, i1[u] - i0, x);
    }
    return;
  }
#endif
#if SDOF > 1
  /* one offset along the line, (1): the next point's values in registers (as in the forward sweep) */
  if (nline == 1 && st->off[nl + 1][0] == 1 && len > 0 && nu <= MAX_GROUP) {
    PetscBool   tr;
    const FT   *U1 = SUFFIX(OffsetBlocks)(ctx, nl + 1, &tr);
    PetscScalar next[MAX_GROUP][SDOF];

    for (PetscInt u = 0; u < nu; u++)
      for (PetscInt a = 0; a < SDOF; a++) next[u][a] = i1[u] < nx ? x[(p0[u] + i1[u]) * SDOF + a] : 0;
    for (PetscInt di = 1; di <= len; di++)
      for (PetscInt u = 0; u < nu; u++) {
        const PetscInt i = i1[u] - di, p = p0[u] + i;
        const FT      *U = U1 + (size_t)p * (SDOF * SDOF);
        PetscScalar    sum[SDOF];

        for (PetscInt a = 0; a < SDOF; a++) sum[a] = x[p * SDOF + a];
        if (i + 1 < nx)
          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt e = 0; e < SDOF; e++) sum[a] -= (PetscScalar)U[a * SDOF + e] * next[u][e];
        SUFFIX(BlockApply)(dinv + (size_t)p * (SDOF * SDOF), sum, next[u]);
        for (PetscInt a = 0; a < SDOF; a++) x[p * SDOF + a] = next[u][a];
      }
    return;
  }
#endif
  for (PetscInt u0 = 0; u0 < nu; u0 += (len < 0 ? 1 : nu)) {
    PetscInt ue = len < 0 ? u0 + 1 : nu, n = len;

    if (len < 0) {
      PetscInt i0, j, k;

      GILUScheduleGetUnit(sched, units[u0], &i0, &i1[u0], &j, &k);
      n = i1[u0] - i0;
    }
    for (PetscInt di = 1; di <= n; di++)
      for (PetscInt u = u0; u < ue; u++) {
        const PetscInt i = i1[u] - di, p = p0[u] + i;
        const FT      *Di = dinv + (size_t)p * (SDOF * SDOF);
        PetscScalar    sum[SDOF];

        for (PetscInt a = 0; a < SDOF; a++) sum[a] = x[p * SDOF + a];
        for (PetscInt s = nl + 1; s < nl + 1 + nline; s++) {
          PetscBool          tr;
          const FT          *U  = SUFFIX(OffsetBlocks)(ctx, s, &tr) + (size_t)p * (SDOF * SDOF);
          const PetscScalar *xq = x + (p + sm->shift[s]) * SDOF;

          if (i + st->off[s][0] >= nx) continue;
          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt e = 0; e < SDOF; e++) sum[a] -= (PetscScalar)U[a * SDOF + e] * xq[e];
        }
        SUFFIX(BlockApply)(Di, sum, x + p * SDOF);
      }
  }
}

/*
  The transposed solve x = (L (D + U))^{-T} b, in natural order on one thread (across processes: unit by unit in the
  pipeline's order, whose dependencies are the same for a stencil with symmetric offsets):
  (D + U)^T y = b forward, y_p = D_p^{-T} (b_p - sum_u U_{p-u,u}^T y_{p-u}) over the upper offsets u, then
  L^T x = y backward, x_p = y_p - sum_s L_{p-s,s}^T x_{p-s} over the lower offsets s. IC stores no lower
  blocks: L_{p-s,s} = U_{p,-s}^T D_p^{-1}, so x_p = y_p - D_p^{-T} sum_u U_{p,u} x_{p+u}.
*/

/* the transposed forward sweep on points pbeg .. pend - 1, or (backward) the backward sweep on points pend - 1 down to pbeg */
static inline void SUFFIX(TransposeRange)(const SolveCtx *ctx, PetscInt pbeg, PetscInt pend, PetscBool backward)
{
  const GILUStencilMat *sm   = ctx->sm;
  const GILUStencil    *st   = &sm->stencil;
  const GILUGrid       *g    = &sm->grid;
  const FT             *dinv = (const FT *)ctx->dinv;
  const PetscInt        nl = st->nlower, ns = st->ns, np = sm->npoints;
  const size_t          N = (size_t)np * (SDOF * SDOF);
  PetscScalar          *x = ctx->x;

  if (!backward) {
    for (PetscInt p = pbeg; p < pend; p++) {
      const PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]);
      const FT      *Di = dinv + (size_t)p * (SDOF * SDOF);
      PetscScalar    sum[SDOF];

      for (PetscInt a = 0; a < SDOF; a++) sum[a] = ctx->b[p * SDOF + a];
      for (PetscInt s = nl + 1; s < ns; s++) {
        const PetscInt    *d = st->off[s], q = p - sm->shift[s];
        const FT          *U;
        const PetscScalar *yq;

        if (i - d[0] < 0 || i - d[0] >= g->n[0] || j - d[1] < 0 || j - d[1] >= g->n[1] || k - d[2] < 0 || k - d[2] >= g->n[2]) continue;
        U  = (const FT *)ctx->uval + (size_t)(s - nl - 1) * N + (size_t)q * (SDOF * SDOF);
        yq = x + q * SDOF;
        for (PetscInt a = 0; a < SDOF; a++)
          for (PetscInt e = 0; e < SDOF; e++) sum[a] -= (PetscScalar)U[e * SDOF + a] * yq[e];
      }
      for (PetscInt a = 0; a < SDOF; a++) {
        PetscScalar t = 0;

        for (PetscInt e = 0; e < SDOF; e++) t += (PetscScalar)Di[e * SDOF + a] * sum[e];
        x[p * SDOF + a] = t;
      }
    }
    return;
  }
  for (PetscInt p = pend - 1; p >= pbeg; p--) {
    const PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]);
    PetscScalar    sum[SDOF];

    for (PetscInt a = 0; a < SDOF; a++) sum[a] = 0;
    if (ctx->ic) { /* sum = D_p^{-T} sum_u U_{p,u} x_{p+u} */
      PetscScalar t[SDOF];
      const FT   *Di = dinv + (size_t)p * (SDOF * SDOF);

      for (PetscInt a = 0; a < SDOF; a++) t[a] = 0;
      for (PetscInt s = nl + 1; s < ns; s++) {
        const PetscInt    *d = st->off[s];
        const FT          *U;
        const PetscScalar *xq;

        if (i + d[0] < 0 || i + d[0] >= g->n[0] || j + d[1] < 0 || j + d[1] >= g->n[1] || k + d[2] < 0 || k + d[2] >= g->n[2]) continue;
        U  = (const FT *)ctx->uval + (size_t)(s - nl - 1) * N + (size_t)p * (SDOF * SDOF);
        xq = x + (p + sm->shift[s]) * SDOF;
        for (PetscInt a = 0; a < SDOF; a++)
          for (PetscInt e = 0; e < SDOF; e++) t[a] += (PetscScalar)U[a * SDOF + e] * xq[e];
      }
      for (PetscInt a = 0; a < SDOF; a++)
        for (PetscInt e = 0; e < SDOF; e++) sum[a] += (PetscScalar)Di[e * SDOF + a] * t[e];
    } else { /* L_{q,s} = A_{q,s} D_p^{-1} for DILU factors (ctx->scaled): sum = D_p^{-T} sum_s A_{q,s}^T x_q */
      PetscScalar t[SDOF];

      for (PetscInt a = 0; a < SDOF; a++) t[a] = 0;
      for (PetscInt s = 0; s < nl; s++) {
        const PetscInt    *d = st->off[s], q = p - sm->shift[s];
        const FT          *L;
        const PetscScalar *xq;

        if (i - d[0] < 0 || i - d[0] >= g->n[0] || j - d[1] < 0 || j - d[1] >= g->n[1] || k - d[2] < 0 || k - d[2] >= g->n[2]) continue;
        L  = (const FT *)ctx->lval + (size_t)s * N + (size_t)q * (SDOF * SDOF);
        xq = x + q * SDOF;
        for (PetscInt a = 0; a < SDOF; a++)
          for (PetscInt e = 0; e < SDOF; e++) (ctx->scaled ? t : sum)[a] += (PetscScalar)L[e * SDOF + a] * xq[e];
      }
      if (ctx->scaled) {
        const FT *Di = dinv + (size_t)p * (SDOF * SDOF);

        for (PetscInt a = 0; a < SDOF; a++)
          for (PetscInt e = 0; e < SDOF; e++) sum[a] += (PetscScalar)Di[e * SDOF + a] * t[e];
      }
    }
    for (PetscInt a = 0; a < SDOF; a++) x[p * SDOF + a] -= sum[a];
  }
}

static void SUFFIX(SolveTranspose)(const SolveCtx *ctx)
{
  SUFFIX(TransposeRange)(ctx, 0, ctx->sm->npoints, PETSC_FALSE);
  SUFFIX(TransposeRange)(ctx, 0, ctx->sm->npoints, PETSC_TRUE);
}

/* the transposed sweeps unit by unit (the pipeline across processes: GILUPipeSweep()); a group's units are independent */
static inline void SUFFIX(TransposeUnits)(const SolveCtx *ctx, GILUSchedule sched, PetscInt nu, const PetscInt *units, PetscBool backward)
{
  for (PetscInt u = 0; u < nu; u++) {
    PetscInt i0, i1, j, k, p0;

    GILUScheduleGetUnit(sched, units[u], &i0, &i1, &j, &k);
    p0 = (k * ctx->sm->grid.n[1] + j) * ctx->sm->grid.n[0];
    SUFFIX(TransposeRange)(ctx, p0 + i0, p0 + i1, backward);
  }
}

static void SUFFIX(TransposeForward)(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  SUFFIX(TransposeUnits)((const SolveCtx *)vctx, sched, nu, units, PETSC_FALSE);
}

static void SUFFIX(TransposeBackward)(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  SUFFIX(TransposeUnits)((const SolveCtx *)vctx, sched, nu, units, PETSC_TRUE);
}

#if SDOF_FACTOR
/*
  In-place ILU(0) of the rows of a tile (Algorithm 1 of the StructILU paper), in double.
  IC: the lower blocks of a symmetric matrix are not eliminated but taken from the
  transposed upper blocks of the rows above, and only the updates of the diagonal and upper
  blocks are made (the elimination lists hold only those).
*/
static void SUFFIX(FactorUnit)(FactorCtx *ctx, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k)
{
  GILUStencilMat    *sm = ctx->sm;
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     nl = st->nlower, bs2 = SDOF * SDOF;
  const size_t       N   = (size_t)sm->npoints;
  PetscScalar       *val = sm->val, *dinv = ctx->dinv;
  PetscInt           p0 = (k * g->n[1] + j) * g->n[0];

  for (PetscInt i = i0; i < i1; i++) {
    const PetscInt p = p0 + i;
    PetscInt       m = sm->missptr ? sm->missptr[p] : 0, mend = sm->missptr ? sm->missptr[p + 1] : 0;

    for (PetscInt s = 0; s < nl; s++) {
      PetscScalar *Lps;
      size_t       q;

      if (!(i + st->off[s][0] >= 0 && i + st->off[s][0] < g->n[0] && j + st->off[s][1] >= 0 && j + st->off[s][1] < g->n[1] && k + st->off[s][2] >= 0 && k + st->off[s][2] < g->n[2])) continue;
      Lps = val + ((size_t)s * N + p) * bs2;
      while (m < mend && sm->missoff[m] < s) m++;
      if (m < mend && sm->missoff[m] == s) { /* not in the pattern: no fill kept there */
        for (PetscInt a = 0; a < bs2; a++) Lps[a] = 0;
        m++;
        continue;
      }
      q = p + sm->shift[s];
      {
        PetscScalar        l[SDOF * SDOF];
        const PetscScalar *Dq = dinv + q * bs2;

        if (ctx->ic) { /* symmetric: L_ps = U_q,-s^T D_q^{-1}, from the final row q */
          const PetscScalar *Uq = val + ((size_t)ctx->mirror[s] * N + q) * bs2;

          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt c = 0; c < SDOF; c++) {
              PetscScalar t = 0;

              for (PetscInt e = 0; e < SDOF; e++) t += Uq[e * SDOF + a] * Dq[e * SDOF + c];
              l[a * SDOF + c] = t;
            }
        } else { /* L_ps <- A_ps D_q^{-1} */
          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt c = 0; c < SDOF; c++) {
              PetscScalar t = 0;

              for (PetscInt e = 0; e < SDOF; e++) t += Lps[a * SDOF + e] * Dq[e * SDOF + c];
              l[a * SDOF + c] = t;
            }
        }
        for (PetscInt a = 0; a < bs2; a++) Lps[a] = l[a];
        /* A_p,s+u -= L_ps U_q,u for the upper u with s+u in the stencil */
        for (PetscInt e = ctx->elimptr[s]; e < ctx->elimptr[s + 1]; e++) {
          const PetscScalar *U = val + ((size_t)ctx->elimu[e] * N + q) * bs2;
          PetscScalar       *T = val + ((size_t)ctx->elimt[e] * N + p) * bs2;

          for (PetscInt a = 0; a < SDOF; a++)
            for (PetscInt c = 0; c < SDOF; c++) {
              PetscScalar la = l[a * SDOF + c];

              for (PetscInt b = 0; b < SDOF; b++) T[a * SDOF + b] -= la * U[c * SDOF + b];
            }
        }
      }
    }
    for (m = sm->missptr ? sm->missptr[p] : 0; m < mend; m++) {
      PetscScalar *Z = val + ((size_t)sm->missoff[m] * N + p) * bs2;

      for (PetscInt a = 0; a < bs2; a++) Z[a] = 0;
    }
    if (!GILUBlockInvert(SDOF, val + ((size_t)nl * N + p) * bs2, dinv + (size_t)p * bs2, ctx->zeropivot)) FactorZeroPivot(ctx, p, SDOF);
  }
}

/*
  DILU: ILU(0) of a stencil whose eliminations update only the diagonal blocks. The diagonal block
  of each row with the arithmetic of FactorUnit(), in the same order (so the same values bitwise):
  D_p = A_pp - sum_s (A_ps D_q^{-1}) A_q,-s over the lower offsets s (IC: A_ps = A_q,-s^T), its
  inverse into dinv and, when asked, D_p itself into ctx->diag. The matrix's values stay as they are.
*/
static void SUFFIX(FactorDiagonalUnit)(FactorCtx *ctx, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k)
{
  const GILUStencilMat *sm = ctx->sm;
  const GILUGrid       *g  = &sm->grid;
  const GILUStencil    *st = &sm->stencil;
  const PetscInt        nl = st->nlower, bs2 = SDOF * SDOF;
  const size_t          N    = (size_t)sm->npoints;
  const PetscScalar    *val  = sm->val;
  PetscScalar          *dinv = ctx->dinv;
  PetscInt              p0   = (k * g->n[1] + j) * g->n[0];

  for (PetscInt i = i0; i < i1; i++) {
    const PetscInt p = p0 + i;
    PetscInt       m = sm->missptr ? sm->missptr[p] : 0, mend = sm->missptr ? sm->missptr[p + 1] : 0;
    PetscScalar    T[SDOF * SDOF];

    for (PetscInt a = 0; a < bs2; a++) T[a] = val[((size_t)nl * N + p) * bs2 + a];
    for (PetscInt s = 0; s < nl; s++) {
      const PetscInt     u = ctx->diagu[s];
      const PetscScalar *Aps, *Dq, *U;
      PetscScalar        l[SDOF * SDOF];
      size_t             q;

      if (!(i + st->off[s][0] >= 0 && i + st->off[s][0] < g->n[0] && j + st->off[s][1] >= 0 && j + st->off[s][1] < g->n[1] && k + st->off[s][2] >= 0 && k + st->off[s][2] < g->n[2])) continue;
      while (m < mend && sm->missoff[m] < s) m++;
      if (m < mend && sm->missoff[m] == s) { /* not in the pattern: no update */
        m++;
        continue;
      }
      if (u < 0) continue; /* -s is not an offset: nothing reaches the diagonal */
      q   = p + sm->shift[s];
      Aps = val + ((size_t)s * N + p) * bs2;
      Dq  = dinv + q * bs2;
      U   = val + ((size_t)u * N + q) * bs2;
      for (PetscInt a = 0; a < SDOF; a++)
        for (PetscInt c = 0; c < SDOF; c++) {
          PetscScalar t = 0;

          for (PetscInt e = 0; e < SDOF; e++) t += (ctx->ic ? U[e * SDOF + a] : Aps[a * SDOF + e]) * Dq[e * SDOF + c];
          l[a * SDOF + c] = t;
        }
      for (PetscInt a = 0; a < SDOF; a++)
        for (PetscInt c = 0; c < SDOF; c++) {
          PetscScalar la = l[a * SDOF + c];

          for (PetscInt b = 0; b < SDOF; b++) T[a * SDOF + b] -= la * U[c * SDOF + b];
        }
    }
    for (m = sm->missptr ? sm->missptr[p] : 0; m < mend; m++)
      if (sm->missoff[m] == nl) /* no diagonal entry in the pattern: a zero pivot, as in FactorUnit() */
        for (PetscInt a = 0; a < bs2; a++) T[a] = 0;
    if (ctx->diag)
      for (PetscInt a = 0; a < bs2; a++) ctx->diag[(size_t)p * bs2 + a] = T[a];
    if (!GILUBlockInvert(SDOF, T, dinv + (size_t)p * bs2, ctx->zeropivot)) FactorZeroPivot(ctx, p, SDOF);
  }
}

  #if SDOF == 1
/*
  FactorUnit() (or FactorDiagonalUnit()) for one unknown per point, when every elimination reaches only the diagonal
  (a star stencil's ILU(0): ctx->staru set), the pattern is the full stencil and the factor is not IC: on the units of a
  tile together, each row with the same operations in the same order, so the same values bitwise. The stencil's
  order (lexicographic in dz, dy, dx) puts the lower offsets that leave the line before those along it, so the first
  are applied to whole segments in unit-stride loops (their rows q are final: other lines), and only the second run
  point by point, the recurrences of the tile's units interleaved so that the latencies of their divisions overlap
  (the units of a tile are independent). T_p is accumulated in dinv[p], where its inverse goes.
*/
static void SUFFIX(FactorStarUnits)(FactorCtx *ctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  GILUStencilMat    *sm  = ctx->sm;
  const GILUGrid    *g   = &sm->grid;
  const GILUStencil *st  = &sm->stencil;
  const PetscInt     nl  = st->nlower;
  const size_t       N   = (size_t)sm->npoints;
  PetscScalar       *val = sm->val, *dinv = ctx->dinv, *D = val + (size_t)nl * N;
  const PetscBool    full = (PetscBool)!ctx->diagonal; /* full: L_ps = A_ps D_q^{-1} stored, T_p written back to A_pp */
  PetscInt           start[MAX_GROUP], first[MAX_GROUP], len[MAX_GROUP], s0 = nl, maxlen = 0;

  while (s0 > 0 && !st->off[s0 - 1][1] && !st->off[s0 - 1][2]) s0--; /* [s0, nl): the lower offsets along the line */
  for (PetscInt u = 0; u < nu; u++) {
    PetscInt i0, i1, j, k, p0;

    GILUScheduleGetUnit(sched, units[u], &i0, &i1, &j, &k);
    p0       = (k * g->n[1] + j) * g->n[0];
    start[u] = p0 + i0;
    first[u] = i0;
    len[u]   = i1 - i0;
    maxlen   = PetscMax(maxlen, len[u]);
    for (PetscInt p = p0 + i0; p < p0 + i1; p++) dinv[p] = D[p];
    for (PetscInt s = 0; s < s0; s++) {
      const PetscInt    *d = st->off[s], sh = sm->shift[s], us = ctx->staru[s];
      const PetscInt     ia = PetscMax(i0, -d[0]), ib = PetscMin(i1, g->n[0] - d[0]);
      PetscScalar       *A = val + (size_t)s * N;
      const PetscScalar *U = us >= 0 ? val + (size_t)us * N : NULL;

      if (j + d[1] < 0 || j + d[1] >= g->n[1] || k + d[2] < 0 || k + d[2] >= g->n[2]) continue;
      if (!full && !U) continue; /* DILU: -s is not an offset, nothing reaches the diagonal */
      PRAGMA_IVDEP
      for (PetscInt p = p0 + ia; p < p0 + ib; p++) {
        PetscScalar l = 0;

        l += A[p] * dinv[p + sh];
        if (full) A[p] = l;
        if (U) dinv[p] -= l * U[p + sh];
      }
    }
  }
  for (PetscInt e = 0; e < maxlen; e++)
    for (PetscInt u = 0; u < nu; u++) {
      const PetscInt p = start[u] + e, i = first[u] + e;
      PetscScalar    T;

      if (e >= len[u]) continue;
      T = dinv[p];
      for (PetscInt s = s0; s < nl; s++) {
        const PetscInt dx = st->off[s][0], us = ctx->staru[s];
        PetscScalar    l = 0;

        if (i + dx < 0 || (!full && us < 0)) continue;
        l += val[(size_t)s * N + p] * dinv[p + dx];
        if (full) val[(size_t)s * N + p] = l;
        if (us >= 0) T -= l * val[(size_t)us * N + p + dx];
      }
      if (full) D[p] = T;
      if (ctx->diag) ctx->diag[p] = T;
      if (!GILUBlockInvert(1, &T, dinv + p, ctx->zeropivot)) FactorZeroPivot(ctx, p, SDOF);
    }
}
  #endif

/* The factorization of a tile: the full one, or the diagonal only (DILU) */
static void SUFFIX(Factor)(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  FactorCtx *ctx = (FactorCtx *)vctx;

  #if SDOF == 1
  if (ctx->staru && nu <= MAX_GROUP) {
    SUFFIX(FactorStarUnits)(ctx, sched, nu, units);
    return;
  }
  #endif
  for (PetscInt u = 0; u < nu; u++) {
    PetscInt i0, i1, j, k;

    GILUScheduleGetUnit(sched, units[u], &i0, &i1, &j, &k);
    if (ctx->diagonal) SUFFIX(FactorDiagonalUnit)(ctx, i0, i1, j, k);
    else SUFFIX(FactorUnit)(ctx, i0, i1, j, k);
  }
}
#endif
