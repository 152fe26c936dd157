/*
   PCSTRUCTILU on CUDA, the host's part: the device schedule (which points a thread block takes and in which order,
   whom it waits for), the elimination lists and the substages of the device factorization, computed on the host
   once per pattern. Plain C compiled once (not with the .cu files, which are built twice: by nvcc and for the
   emulation); cuda/structilu.cu copies what is computed here to the device. The schedule itself is described at
   the top of structilu.cu.
*/
#include "cuda/structilu-cuda.h"

#define GILU_INT64_MAX ((PetscInt64)0x7fffffffffffffffLL)

/*
  The affine transformation of the lines mapping (the StructILU paper, Section 4.1, Figure 3): integer rows a, b of
  M = [a; b; w - a - b] (w: the level weights) with det M = +-1, so (x^, y^, z^) = M (i,j,k) is a bijection with
  level = x^ + y^ + z^: each line (x^, y^) holds at most one point per level. Every lower offset l must have a.l <= 0
  and b.l <= 0 (and every upper offset u a.u >= 0, b.u >= 0): then a point depends only on lines at smaller or equal
  x^ and y^, so the blocks of lines depend on each other without cycles (a = e_k, b = (0, 1, W) and c = w - a - b
  qualify whenever w = (1, ., .), W the stencil's width). Among the rows with entries in [-4, 4] that satisfy this,
  the fewest lines (x^ range times y^ range of the grid) are taken, then the smallest entries.
  Star-7 gives lines along one axis; Diamond-13 and Box-27 give x^ = j + k and y^ = k (lines along i), one of the
  paper's choices up to the order of the axes.
*/
static PetscErrorCode ChooseLines(const GILUStencil *st, const GILUGrid *g, const PetscInt w[3], PetscInt M[3][3])
{
  const PetscInt W = GILU_STENCIL_MAX_WIDTH, R = 2 * W + 1;
  PetscInt64     best[2] = {GILU_INT64_MAX, GILU_INT64_MAX};

  PetscFunctionBegin;
  for (PetscInt ai = 0; ai < R * R * R; ai++) {
    const PetscInt a[3] = {ai % R - W, (ai / R) % R - W, ai / (R * R) - W};
    PetscBool      ok   = PETSC_TRUE;

    for (PetscInt s = 0; s < st->ns && ok; s++) {
      const PetscInt d = a[0] * st->off[s][0] + a[1] * st->off[s][1] + a[2] * st->off[s][2];

      ok = (PetscBool)(s == st->nlower || (s < st->nlower ? d <= 0 : d >= 0));
    }
    if (!ok) continue;
    for (PetscInt bi = 0; bi < R * R * R; bi++) {
      const PetscInt b[3] = {bi % R - W, (bi / R) % R - W, bi / (R * R) - W};
      PetscInt       c[3], det;
      PetscInt64     range[2] = {1, 1}, cost[2];

      for (PetscInt s = 0; s < st->ns && ok; s++) {
        const PetscInt d = b[0] * st->off[s][0] + b[1] * st->off[s][1] + b[2] * st->off[s][2];

        ok = (PetscBool)(s == st->nlower || (s < st->nlower ? d <= 0 : d >= 0));
      }
      if (!ok) {
        ok = PETSC_TRUE;
        continue;
      }
      for (PetscInt e = 0; e < 3; e++) c[e] = w[e] - a[e] - b[e];
      det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
      if (det != 1 && det != -1) continue;
      for (PetscInt e = 0; e < 3; e++) {
        range[0] += (PetscInt64)PetscAbsInt(a[e]) * (g->n[e] - 1);
        range[1] += (PetscInt64)PetscAbsInt(b[e]) * (g->n[e] - 1);
      }
      cost[0] = range[0] * range[1];
      cost[1] = PetscAbsInt(a[0]) + PetscAbsInt(a[1]) + PetscAbsInt(a[2]) + PetscAbsInt(b[0]) + PetscAbsInt(b[1]) + PetscAbsInt(b[2]);
      if (range[0] < range[1] || cost[0] > best[0] || (cost[0] == best[0] && cost[1] >= best[1])) continue;
      best[0] = cost[0];
      best[1] = cost[1];
      for (PetscInt e = 0; e < 3; e++) {
        M[0][e] = a[e];
        M[1][e] = b[e];
        M[2][e] = c[e];
      }
    }
  }
  PetscCheck(best[0] < GILU_INT64_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "No affine transformation with entries in [-%d, %d] makes the dependencies of this stencil acyclic between lines: use -pc_structilu_cuda_mapping tiles", (int)W, (int)W);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the weights of the levels: from the host's hyperplanes when they also order the upper offsets, else searched */
static PetscErrorCode ChooseWeights(const GILUStencil *st, const GILUGrid *g, PetscInt w[3], PetscInt *nlevels)
{
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(GILUStencilGetHyperplanes(st, g, w, nlevels));
  for (PetscInt s = st->nlower + 1; s < st->ns && ok; s++) ok = (PetscBool)(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2] >= 1);
  if (ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GILUStencilGetHyperplanesBoth(st, g, w, nlevels));
  PetscCheck(*nlevels < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "No hyperplane schedule orders both the lower and the upper offsets of this stencil");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The intra-row pipeline of the solves (the StructILU paper, Section 4.2.1): the off-diagonal offsets of a row are split into
  P stages by their distance in levels, depth = |w.off| >= 1: stage P - depth, at least 0 (the paper's rule: the
  nonzeros of stage g lie at most g - P levels back). Each stage is summed by its own group of threads of the block,
  which waits only for the neighbours of its stage: the earlier stages' neighbours belong to levels finished long
  before, so on a GPU those groups do their products while the block still waits for the previous level, and only
  the last stage (depth 1) is left after that wait. The partial sums are added in stage order. P = 1: one group, the
  products of a row in stencil order as before. Automatic (pipeline 0): P = min(4, the largest depth), as Table 2 of
  the StructILU paper (Star-7P 1, Star-13P and Diamond-13P 2, Box-27P 4); P is also capped by the largest depth, by
  1024 threads per block and by maxstages (the lines mapping's shared memory).
*/
static PetscErrorCode ChooseStages(const GILUStencil *st, const PetscInt w[3], PetscInt pipeline, PetscInt nthreads, PetscInt maxstages, PetscInt stage[], PetscInt *nstage)
{
  PetscInt maxdepth = 1, P;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < st->ns; s++) {
    if (s == st->nlower) continue;
    maxdepth = PetscMax(maxdepth, PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]));
  }
  P = pipeline > 0 ? pipeline : PetscMin(4, maxdepth);
  P = PetscMax(1, PetscMin(PetscMin(P, maxdepth), PetscMin(GILU_TILE_MAX_THREADS / nthreads, maxstages)));
  for (PetscInt s = 0; s < st->ns; s++) {
    const PetscInt depth = PetscAbsInt(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]);

    stage[s] = s == st->nlower ? -1 : PetscMax(0, P - depth);
  }
  *nstage = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* floor(x / B) for B > 0 */
static inline PetscInt FloorDiv(PetscInt x, PetscInt B)
{
  return x >= 0 ? x / B : -((-x + B - 1) / B);
}

/* the smallest value of the coordinate a.(i,j,k) on the grid and the number of its values */
static void CoordinateRange(const GILUGrid *g, const PetscInt a[3], PetscInt *lo, PetscInt *range)
{
  *lo    = 0;
  *range = 1;
  for (PetscInt e = 0; e < 3; e++) {
    *lo += PetscMin(0, a[e] * (g->n[e] - 1));
    *range += PetscAbsInt(a[e]) * (g->n[e] - 1);
  }
}

/*
  The lines mapping on the host: the level order of the points (by level, then y^, then x^: the threads of a block
  that work on one level read consecutive positions, the paper's level-based memory layout), the blocks of linesx x
  linesy lines (at most tilepoints lines; a square-ish tile of the x^y^-plane), each block's range of levels, the
  predecessor block offsets of each sweep (from the stencil: the block offsets that the lower, resp. upper, offsets
  reach from some line of a block) and the launch orders: by increasing minimum effective level, the largest of a
  block's own minimum level and its predecessors' (backward: the smallest maximum level, by decreasing level), ties by
  x^ + y^ block index, so every block comes after its predecessors; the blocks take their place in this order from a
  ticket (BlockUnit), so the waiting is deadlock-free whatever order a GPU dispatches them in (see the top of structilu.cu).
*/
static PetscErrorCode PlanLines(const GILUStencil *st, const GILUGrid *g, const PetscInt w[3], PetscInt nlevels, PetscInt tilepoints, PetscInt perm[], StructILUPlan *plan, StructILUDeviceInfo *info)
{
  const PetscInt N = g->n[0] * g->n[1] * g->n[2];
  PetscInt       M[3][3], Minv[9], x0, y0, rx, ry, Bx, By = 1, nbx, nby, ncell, nb = 0, *lmin, *lmax, *blockid, *bxy, *eff, *order, npred[2] = {0, 0}, pred[2][2 * GILU_LINES_MAX_PRED];
  PetscInt64    *key;
  char          *used;

  PetscFunctionBegin;
  PetscCall(ChooseLines(st, g, w, M));
  /* the inverse of M (det +-1): the adjugate times det */
  {
    const PetscInt det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);

    for (PetscInt r = 0; r < 3; r++)
      for (PetscInt c = 0; c < 3; c++) {
        const PetscInt r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;

        Minv[3 * r + c] = det * (M[r1][c1] * M[r2][c2] - M[r1][c2] * M[r2][c1]);
      }
  }
  CoordinateRange(g, M[0], &x0, &rx);
  CoordinateRange(g, M[1], &y0, &ry);
  PetscCheck((PetscInt64)rx * ry < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "The local grid is too large for the lines mapping: use -pc_structilu_cuda_mapping tiles");
  while (4 * By * By <= tilepoints && 2 * By <= ry) By *= 2;
  Bx    = PetscMax(1, PetscMin(tilepoints / By, rx));
  nbx   = (rx + Bx - 1) / Bx;
  nby   = (ry + By - 1) / By;
  ncell = nbx * nby;
  /* the level order: by (level, y^, x^) */
  PetscCall(PetscMalloc2(N, &key, (size_t)rx * ry, &used));
  PetscCall(PetscArrayzero(used, (size_t)rx * ry));
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt v[3] = {p % g->n[0], (p / g->n[0]) % g->n[1], p / (g->n[0] * g->n[1])};
    const PetscInt xh = M[0][0] * v[0] + M[0][1] * v[1] + M[0][2] * v[2] - x0, yh = M[1][0] * v[0] + M[1][1] * v[1] + M[1][2] * v[2] - y0;

    key[p]             = ((PetscInt64)(w[0] * v[0] + w[1] * v[1] + w[2] * v[2]) * ry + yh) * rx + xh;
    used[yh * rx + xh] = 1;
  }
  PetscCall(PetscSortInt64(N, key));
  for (PetscInt q = 0; q < N; q++) {
    const PetscInt xh = (PetscInt)(key[q] % rx) + x0, yh = (PetscInt)((key[q] / rx) % ry) + y0, zh = (PetscInt)(key[q] / ((PetscInt64)rx * ry)) - xh - yh;
    const PetscInt i = Minv[0] * xh + Minv[1] * yh + Minv[2] * zh, j = Minv[3] * xh + Minv[4] * yh + Minv[5] * zh, l = Minv[6] * xh + Minv[7] * yh + Minv[8] * zh;

    perm[q] = (l * g->n[1] + j) * g->n[0] + i;
  }
  info->nlines = 0;
  for (PetscInt c = 0; c < rx * ry; c++) info->nlines += used[c];
  PetscCall(PetscFree2(key, used));
  /* the blocks: level ranges, ids of the non-empty ones */
  PetscCall(PetscMalloc5(ncell, &lmin, ncell, &lmax, ncell, &blockid, ncell, &bxy, 2 * ncell, &order));
  PetscCall(PetscMalloc1(ncell, &eff));
  for (PetscInt c = 0; c < ncell; c++) {
    lmin[c] = PETSC_MAX_INT;
    lmax[c] = -1;
  }
  for (PetscInt p = 0; p < N; p++) {
    const PetscInt v[3] = {p % g->n[0], (p / g->n[0]) % g->n[1], p / (g->n[0] * g->n[1])};
    const PetscInt xh = M[0][0] * v[0] + M[0][1] * v[1] + M[0][2] * v[2] - x0, yh = M[1][0] * v[0] + M[1][1] * v[1] + M[1][2] * v[2] - y0;
    const PetscInt c = xh / Bx + nbx * (yh / By), L = w[0] * v[0] + w[1] * v[1] + w[2] * v[2];

    lmin[c] = PetscMin(lmin[c], L);
    lmax[c] = PetscMax(lmax[c], L);
  }
  for (PetscInt c = 0; c < ncell; c++) {
    blockid[c] = lmax[c] >= 0 ? nb : -1;
    if (lmax[c] >= 0) {
      bxy[nb]  = c;
      lmin[nb] = lmin[c]; /* nb <= c: compacted in place */
      lmax[nb] = lmax[c];
      nb++;
    }
  }
  /* the predecessor block offsets of each sweep, from the stencil */
  for (PetscInt s = 0; s < st->ns; s++) {
    const PetscInt dir = s < st->nlower ? 0 : 1;
    const PetscInt dx = M[0][0] * st->off[s][0] + M[0][1] * st->off[s][1] + M[0][2] * st->off[s][2], dy = M[1][0] * st->off[s][0] + M[1][1] * st->off[s][1] + M[1][2] * st->off[s][2];

    if (s == st->nlower) continue;
    for (PetscInt ex = FloorDiv(dx, Bx); ex <= FloorDiv(Bx - 1 + dx, Bx); ex++)
      for (PetscInt ey = FloorDiv(dy, By); ey <= FloorDiv(By - 1 + dy, By); ey++) {
        PetscBool have = (PetscBool)(ex == 0 && ey == 0);

        for (PetscInt e = 0; e < npred[dir] && !have; e++) have = (PetscBool)(pred[dir][2 * e] == ex && pred[dir][2 * e + 1] == ey);
        if (have) continue;
        PetscCheck(npred[dir] < GILU_LINES_MAX_PRED, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many predecessor blocks for the lines mapping: use more lines per block or -pc_structilu_cuda_mapping tiles");
        pred[dir][2 * npred[dir]]     = ex;
        pred[dir][2 * npred[dir] + 1] = ey;
        npred[dir]++;
      }
  }
  /* the orders of the work units: forward by (minimum effective level, bx + by), backward by (maximum effective level, bx + by) decreasing */
  for (PetscInt dir = 0; dir < 2; dir++) {
    PetscInt64 *k;

    PetscCall(PetscMalloc1(nb, &k));
    for (PetscInt diag = dir ? nbx + nby - 2 : 0; dir ? diag >= 0 : diag <= nbx + nby - 2; diag += dir ? -1 : 1)
      for (PetscInt bx = PetscMax(0, diag - nby + 1); bx <= PetscMin(diag, nbx - 1); bx++) {
        const PetscInt id = blockid[bx + nbx * (diag - bx)];

        if (id < 0) continue;
        eff[id] = dir ? lmax[id] : lmin[id];
        for (PetscInt e = 0; e < npred[dir]; e++) {
          const PetscInt qx = bx + pred[dir][2 * e], qy = diag - bx + pred[dir][2 * e + 1];

          if (qx < 0 || qx >= nbx || qy < 0 || qy >= nby || blockid[qx + nbx * qy] < 0) continue;
          eff[id] = dir ? PetscMin(eff[id], eff[blockid[qx + nbx * qy]]) : PetscMax(eff[id], eff[blockid[qx + nbx * qy]]);
        }
      }
    for (PetscInt id = 0; id < nb; id++) {
      const PetscInt   bx = bxy[id] % nbx, by = bxy[id] / nbx;
      const PetscInt64 e = dir ? nlevels - 1 - eff[id] : eff[id], dg = dir ? nbx + nby - 2 - (bx + by) : bx + by;

      k[id] = (e * (nbx + nby) + dg) * nb + id;
    }
    PetscCall(PetscSortInt64(nb, k));
    for (PetscInt t = 0; t < nb; t++) order[dir * nb + t] = (PetscInt)(k[t] % nb);
    PetscCall(PetscFree(k));
  }
  PetscCall(PetscFree(eff));
  for (PetscInt e = 0; e < 2 * npred[0]; e++) plan->pred[e] = pred[0][e];
  for (PetscInt e = 0; e < 2 * npred[1]; e++) plan->pred[2 * npred[0] + e] = pred[1][e];
  for (PetscInt e = 0; e < 9; e++) plan->Minv[e] = Minv[e];
  plan->lmin     = lmin;
  plan->lmax     = lmax;
  plan->blockid  = blockid;
  plan->bxy      = bxy;
  plan->order    = order;
  plan->x0       = x0;
  plan->y0       = y0;
  plan->bx       = Bx;
  plan->by       = By;
  plan->nbx      = nbx;
  plan->nby      = nby;
  plan->nblocks  = nb;
  plan->npred[0] = npred[0];
  plan->npred[1] = npred[1];
  for (PetscInt r = 0; r < 3; r++)
    for (PetscInt c = 0; c < 3; c++) info->M[r][c] = M[r][c];
  info->linesx   = Bx;
  info->linesy   = By;
  info->nblocks  = nb;
  info->npred[0] = npred[0];
  info->npred[1] = npred[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The tiles a tile waits for in a sweep (dir 0: forward, the tiles of its points' lower neighbours; 1: backward, upper
  ones), each once: the kernels wait for a tile's list with one warp before the whole block starts (tiles mapping).
  A tile U is left out when another predecessor V of the tile has U among its own predecessors: V completes only after
  U did (V's block waited for U before it began), so waiting for V waits for U. What is left is small: about one or two
  tiles per neighbouring level and offset. Out: CSR over the tiles; *total and *most for -ksp_view.
*/
static PetscErrorCode PlanPredecessors(const GILUStencil *st, const GILUGrid *g, const PetscInt *perm, const PetscInt *tileof, const PetscInt *tileptr, PetscInt ntiles, int dir, PetscInt **ptrp, PetscInt **predp, PetscInt *total, PetscInt *most)
{
  PetscInt *dptr, *dpred, *mark, *ptr, *pred, n = 0, cap = 4 * ntiles + 16;
  const int lower = dir == 0;

  PetscFunctionBegin;
  /* the direct predecessors: tiles of the neighbours, each once (mark[u] == t: u already listed for tile t) */
  PetscCall(PetscMalloc2(ntiles + 1, &dptr, ntiles, &mark));
  PetscCall(PetscMalloc1(cap, &dpred));
  for (PetscInt u = 0; u < ntiles; u++) mark[u] = -1;
  for (PetscInt t = 0; t < ntiles; t++) {
    dptr[t] = n;
    for (PetscInt q = tileptr[t]; q < tileptr[t + 1]; q++) {
      const PetscInt p = perm[q], i = p % g->n[0], j = (p / g->n[0]) % g->n[1], l = p / (g->n[0] * g->n[1]);

      for (PetscInt s = lower ? 0 : st->nlower + 1; s < (lower ? st->nlower : st->ns); s++) {
        const PetscInt qi = i + st->off[s][0], qj = j + st->off[s][1], ql = l + st->off[s][2];
        PetscInt       u;

        if (qi < 0 || qi >= g->n[0] || qj < 0 || qj >= g->n[1] || ql < 0 || ql >= g->n[2]) continue;
        u = tileof[(ql * g->n[1] + qj) * g->n[0] + qi];
        if (mark[u] == t) continue;
        mark[u] = t;
        if (n == cap) {
          PetscInt *more;

          PetscCall(PetscMalloc1(2 * cap, &more));
          PetscCall(PetscArraycpy(more, dpred, n));
          PetscCall(PetscFree(dpred));
          dpred = more;
          cap *= 2;
        }
        dpred[n++] = u;
      }
    }
  }
  dptr[ntiles] = n;
  /* left out: u implied by another direct predecessor v of t (u among v's direct predecessors) */
  PetscCall(PetscMalloc1(ntiles + 1, &ptr));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &pred));
  for (PetscInt u = 0; u < ntiles; u++) mark[u] = -1;
  *total = *most = 0;
  for (PetscInt t = 0, m = 0; t < ntiles; t++) {
    ptr[t] = m;
    for (PetscInt e = dptr[t]; e < dptr[t + 1]; e++)
      for (PetscInt f = dptr[dpred[e]]; f < dptr[dpred[e] + 1]; f++) mark[dpred[f]] = t;
    for (PetscInt e = dptr[t]; e < dptr[t + 1]; e++)
      if (mark[dpred[e]] != t) pred[m++] = dpred[e];
    *total += m - ptr[t];
    *most      = PetscMax(*most, m - ptr[t]);
    ptr[t + 1] = m;
  }
  PetscCall(PetscFree2(dptr, mark));
  PetscCall(PetscFree(dpred));
  *ptrp  = ptr;
  *predp = pred;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The device schedule of the stencil matrix sm: the level weights, the points by level (counting sort, natural order
  within a level; lines: by y^ and x^ within a level), the tiles of at most tilepoints points of one level (tilepoints 0:
  128 / dof; capped by the kernels' bound), the solves' stages and, for the lines mapping, its blocks; info gets what
  -ksp_view prints of it (all but nowait)
*/
PetscErrorCode StructILUPlanCreate(const GILUStencilMat *sm, StructILUCUDAMapping mapping, PetscInt tilepoints, PetscInt pipeline, StructILUPlan *plan, StructILUDeviceInfo *info)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     N = sm->npoints, d = g->dof;
  PetscInt           w[3], nlevels, *count, *perm, *pos, *tileof, *tileptr, ntiles = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  if (tilepoints <= 0) tilepoints = PetscMax(1, 128 / d);
  tilepoints = PetscMin(tilepoints, GILU_TILE_MAX_THREADS / d);
  PetscCall(ChooseWeights(st, g, w, &nlevels));
  if (mapping == STRUCTILU_CUDA_MAPPING_LINES && w[0] == 0) { /* weight 0 along i: no offset needs one there (a one-point grid:
                                                                 the centre only); 1 orders the same dependencies and is
                                                                 what ChooseLines() needs to find a transformation */
    PetscBool alongi = PETSC_FALSE;

    for (PetscInt s = 0; s < st->ns; s++) alongi = (PetscBool)(alongi || st->off[s][0] != 0);
    if (!alongi) {
      w[0] = 1;
      nlevels += g->n[0] - 1;
    }
  }
  PetscCall(PetscMemzero(info, sizeof(*info)));
  /* points by level (counting sort, natural order within a level; lines: by y^ and x^ within a level), then tiles of one level */
  PetscCall(PetscCalloc1(nlevels + 1, &count));
  PetscCall(PetscMalloc4(N, &perm, N, &pos, N, &tileof, N + 1, &tileptr));
  for (PetscInt p = 0; p < N; p++) {
    PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], l = p / (g->n[0] * g->n[1]);

    count[w[0] * i + w[1] * j + w[2] * l + 1]++;
  }
  for (PetscInt v = 0; v < nlevels; v++) count[v + 1] += count[v];
  for (PetscInt p = 0; p < N; p++) {
    PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], l = p / (g->n[0] * g->n[1]);

    perm[count[w[0] * i + w[1] * j + w[2] * l]++] = p;
  }
  /* count[v] is now the end of level v */
  if (mapping == STRUCTILU_CUDA_MAPPING_LINES) PetscCall(PlanLines(st, g, w, nlevels, tilepoints, perm, plan, info));
  for (PetscInt v = 0, start = 0; v < nlevels; v++) {
    for (PetscInt t = start; t < count[v]; t += tilepoints) tileptr[ntiles++] = t;
    start = count[v];
  }
  tileptr[ntiles] = N;
  for (PetscInt t = 0; t < ntiles; t++)
    for (PetscInt q = tileptr[t]; q < tileptr[t + 1]; q++) {
      pos[perm[q]]    = q;
      tileof[perm[q]] = t;
    }
  PetscCall(PetscFree(count));
  if (mapping == STRUCTILU_CUDA_MAPPING_TILES)
    for (int dir = 0; dir < 2; dir++) {
      PetscInt most = 0;

      PetscCall(PlanPredecessors(st, g, perm, tileof, tileptr, ntiles, dir, &plan->tpredptr[dir], &plan->tpred[dir], &info->npred[dir], &most));
      info->maxpred = PetscMax(info->maxpred, most);
    }
  { /* the lines mapping keeps P partial sums per stage in shared memory: (P P + 1) nthreads doubles, at most 48 KiB */
    PetscInt maxstages = GILU_TILE_MAX_THREADS;

    if (mapping == STRUCTILU_CUDA_MAPPING_LINES)
      for (maxstages = 1; ((maxstages + 1) * (maxstages + 1) + 1) * tilepoints * d * (PetscInt)sizeof(double) <= 48 * 1024;) maxstages++;
    PetscCall(ChooseStages(st, w, pipeline, tilepoints * d, maxstages, plan->stage, &plan->nstage));
  }
  plan->perm       = perm;
  plan->pos        = pos;
  plan->tileof     = tileof;
  plan->tileptr    = tileptr;
  plan->ntiles     = ntiles;
  plan->tilepoints = tilepoints;
  plan->nlevels    = nlevels;
  for (PetscInt c = 0; c < 3; c++) info->w[c] = plan->w[c] = w[c];
  info->mapping    = mapping;
  info->nlevels    = nlevels;
  info->ntiles     = ntiles;
  info->tilepoints = tilepoints;
  info->maxthreads = tilepoints * d;
  info->nstage     = plan->nstage;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUPlanDestroy(StructILUPlan *plan)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(plan->perm, plan->pos, plan->tileof, plan->tileptr));
  PetscCall(PetscFree5(plan->lmin, plan->lmax, plan->blockid, plan->bxy, plan->order));
  for (int dir = 0; dir < 2; dir++) {
    PetscCall(PetscFree(plan->tpredptr[dir]));
    PetscCall(PetscFree(plan->tpred[dir]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The elimination lists of the device factorization, from the elimination table elim of the stencil (ns x ns: the
  offset s + u of each lower s and upper u, or -1): per lower offset s (ptr[s] .. ptr[s + 1] - 1) the pairs (u,
  target s + u) it updates, in the order of u; IC updates only the diagonal and upper targets. ptr has room for
  nlower + 1 entries, eu and et for nlower ns + 1.
*/
PetscErrorCode StructILUPlanEliminations(const GILUStencil *st, const PetscInt *elim, PetscBool ic, PetscInt ptr[], PetscInt eu[], PetscInt et[])
{
  const PetscInt ns = st->ns, nl = st->nlower;
  PetscInt       n = 0;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < nl; s++) {
    ptr[s] = n;
    for (PetscInt u = nl + 1; u < ns; u++)
      if (elim[s * ns + u] >= 0 && (!ic || elim[s * ns + u] >= nl)) {
        eu[n]   = u;
        et[n++] = elim[s * ns + u];
      }
  }
  ptr[nl] = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The substages of the two-substage pipelined factorization (see StructILULinesFactorPipelined): in the order of the
  lower offsets s, the L block of s is in substage 1 (early) when the row p + s lies at least two levels back, its
  intra-row level is 0 or 1 (0: no incoming update; 1: incoming updates only from level-0 blocks) and all its incoming
  updates are in substage 1 (IC: L_ps = U_{p+s,-s}^T D_{p+s}^{-1} has no incoming updates); an update from s to an
  element t is in substage 1 when s is early and every earlier update of t is in substage 1.
*/
PetscErrorCode StructILUPlanSubstages(const GILUStencil *st, const PetscInt w[3], PetscBool ic, const PetscInt *ptr, const PetscInt *et, PetscInt early[], PetscInt pairs1[], StructILUDeviceInfo *info)
{
  const PetscInt nl = st->nlower, ns = st->ns, n = ptr[nl];
  PetscInt      *level, nearly = 0, npairs1 = 0;
  PetscBool     *late; /* per element: it already has an update in substage 2 */

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ns, &level, ns, &late));
  for (PetscInt t = 0; t < ns; t++) {
    level[t] = 0;
    late[t]  = PETSC_FALSE;
  }
  for (PetscInt s = 0; s < nl; s++) {
    const PetscInt depth = -(w[0] * st->off[s][0] + w[1] * st->off[s][1] + w[2] * st->off[s][2]);

    early[s] = depth >= 2 && level[s] <= 1 && (ic || !late[s]) ? 1 : 0;
    nearly += early[s];
    for (PetscInt e = ptr[s]; e < ptr[s + 1]; e++) {
      const PetscInt t = et[e];

      pairs1[e] = early[s] && !late[t] ? 1 : 0;
      npairs1 += pairs1[e];
      if (!pairs1[e]) late[t] = PETSC_TRUE;
      level[t] = PetscMax(level[t], level[s] + 1);
    }
  }
  early[nl] = pairs1[n] = 0;
  PetscCall(PetscFree2(level, late));
  info->nearly  = nearly;
  info->npairs1 = npairs1;
  info->npairs  = n;
  info->nlowerL = nl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The intra-row schedule of the device factorization (StructILUFactorKernel): a row's blocks are computed per target
  ("pull"): T_t = A_t - sum over the lower s with s + u = t, in increasing s, of L_s U_{p+s,u}, then for a lower t
  L_t = T_t D_{p+t}^{-1} (IC: L_t = U_{p+t,-t}^T D_{p+t}^{-1}, no updates). Each element gets the updates of the host's
  sequential order, in that order. From the elimination lists (ptr, eu, et of StructILUPlanEliminations()):
  contributions of target t: cs/cu[cptr[t] .. cptr[t+1]-1] (s increasing); the intra-row level of t (0: no contributions,
  else one more than its contributors'); the targets of level v for thread group g of G: tgt[tptr[v G + g] ..
  tptr[v G + g + 1]-1], the targets of a level dealt to the groups by decreasing work, each to the least loaded.
  cptr has room for ns + 1 entries, cs and cu for ptr[nlower] + 1, tptr for ns G + 1, tgt for ns; *nlev the levels.
*/
PetscErrorCode StructILUPlanRowSchedule(const GILUStencil *st, const PetscInt *ptr, const PetscInt *eu, const PetscInt *et, PetscBool ic, PetscInt G, PetscInt cptr[], PetscInt cs[], PetscInt cu[], PetscInt tptr[], PetscInt tgt[], PetscInt *nlev)
{
  const PetscInt ns = st->ns, nl = st->nlower;
  PetscInt      *level, *work, *load, *order, *group, nlevels = 0, m = 0;

  PetscFunctionBegin;
  PetscCheck(G >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Thread groups %" PetscInt_FMT " < 1", G);
  PetscCall(PetscMalloc5(ns, &level, ns, &work, G, &load, ns, &order, ns, &group));
  for (PetscInt t = 0; t < ns; t++) { /* the contributions of t in increasing s (ptr is ordered by s) */
    cptr[t]  = m;
    level[t] = 0;
    for (PetscInt s = 0; s < nl; s++)
      for (PetscInt e = ptr[s]; e < ptr[s + 1]; e++)
        if (et[e] == t) {
          cs[m]    = s;
          cu[m++]  = eu[e];
          level[t] = PetscMax(level[t], level[s] + 1); /* s < t: its level is known */
        }
    work[t] = (m - cptr[t]) + (t < nl || t == nl ? 1 : 0) + 1; /* products, the multiplier (or the inversion), the store */
    nlevels = PetscMax(nlevels, level[t] + 1);
  }
  cptr[ns] = m;
  PetscCheck(!ic || m == ptr[nl], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent elimination lists");
  { /* per level, the targets by decreasing work (then increasing t) to the least loaded group */
    PetscInt k = 0;

    for (PetscInt v = 0; v < nlevels; v++) {
      PetscInt n = 0;

      for (PetscInt g = 0; g < G; g++) load[g] = 0;
      for (PetscInt t = 0; t < ns; t++)
        if (level[t] == v) order[n++] = t;
      for (PetscInt a = 1; a < n; a++) /* insertion sort: a few tens */
        for (PetscInt b = a; b > 0 && work[order[b]] > work[order[b - 1]]; b--) {
          const PetscInt x = order[b];

          order[b]     = order[b - 1];
          order[b - 1] = x;
        }
      for (PetscInt a = 0; a < n; a++) { /* the group of order[a]: the least loaded so far */
        PetscInt best = 0;

        for (PetscInt c = 1; c < G; c++)
          if (load[c] < load[best]) best = c;
        load[best] += work[order[a]];
        group[order[a]] = best;
      }
      for (PetscInt g = 0; g < G; g++) {
        tptr[v * G + g] = k;
        for (PetscInt a = 0; a < n; a++)
          if (group[order[a]] == g) tgt[k++] = order[a];
      }
    }
    tptr[nlevels * G] = k;
    PetscCheck(k == ns, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Intra-row schedule lost a target");
  }
  *nlev = nlevels;
  PetscCall(PetscFree5(level, work, load, order, group));
  PetscFunctionReturn(PETSC_SUCCESS);
}
