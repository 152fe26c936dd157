/*
   Extraction of a stencil matrix from a PETSc AIJ or BAIJ matrix.

   The grid comes from a DMDA (the local box of this rank), from the user, or is inferred
   from the pattern. Every nonzero is decoded into a grid offset; the union of the offsets
   is the stencil, every row must be a subset of it (positions of the stencil absent from
   a row are recorded so factorizations can keep them at zero, exactly as an ILU on the
   matrix pattern would), and the values are packed stencil-major.
*/
#include <petscdmda.h>
#include <petscgilu/private/stencil.h>

#define W  GILU_STENCIL_MAX_WIDTH
#define W1 (2 * GILU_STENCIL_MAX_WIDTH + 1)

/* Index of an offset in the cube [-W,W]^3 */
/* Decoder cache: one entry per nonzero position in a block row */
#define DECODER_CACHE (GILU_STENCIL_MAX_OFFSETS * GILU_MAX_DOF * GILU_MAX_DOF)

/* Column points kept from the first row when inferring the grid */
#define MAX_ROW_SHIFTS (GILU_STENCIL_MAX_OFFSETS * GILU_MAX_DOF)

#define CUBE_ID(dx, dy, dz) ((((dz) + W) * W1 + ((dy) + W)) * W1 + ((dx) + W))

/*
  GILUMatCheckSupported - errors unless A is (a subtype of) AIJ or BAIJ; says which
*/
PetscErrorCode GILUMatCheckSupported(Mat A, PetscBool *isbaij)
{
  PetscBool aij, baij;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &aij, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &baij, MATSEQBAIJ, MATMPIBAIJ, ""));
  PetscCheck(aij || baij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Structured-grid ILU needs an AIJ or BAIJ matrix, not %s: create it with -dm_mat_type aij (or baij), or convert it with MatConvert()", type);
  *isbaij = baij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUGridFromDM - the local box of a DMDA, if dm is a DMDA whose local box matches Alocal
*/
PetscErrorCode GILUGridFromDM(DM dm, Mat Alocal, GILUGrid *g, PetscBool *found)
{
  PetscBool       isda;
  PetscInt        dim, dof, xm, ym, zm, m;
  DMBoundaryType  bx, by, bz;
  DMDAStencilType stype;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  if (!dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, &bx, &by, &bz, &stype));
  PetscCall(DMDAGetCorners(dm, NULL, NULL, NULL, &xm, &ym, &zm));
  PetscCall(MatGetLocalSize(Alocal, &m, NULL));
  if (m != xm * ym * zm * dof) {
    PetscCall(PetscInfo(Alocal, "The DMDA's local box (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", dof %" PetscInt_FMT ") does not match the %" PetscInt_FMT " local rows; not using it\n", xm, ym, zm, dof, m));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  g->dim  = dim;
  g->n[0] = xm;
  g->n[1] = dim > 1 ? ym : 1;
  g->n[2] = dim > 2 ? zm : 1;
  g->dof  = dof;
  *found  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Columns of block row 0 as point shifts (sorted, unique, positive) */
static PetscErrorCode FirstRowShifts(Mat A, PetscBool isbaij, PetscInt dof, PetscInt *nsh, PetscInt sh[])
{
  const PetscInt *ia, *ja;
  PetscInt        n, cnt = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, isbaij, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot access the matrix structure");
  for (PetscInt r = 0; r < (isbaij ? 1 : dof); r++)
    for (PetscInt k = ia[r]; k < ia[r + 1]; k++) {
      PetscInt q = isbaij ? ja[k] : ja[k] / dof;

      if (q > 0 && cnt < MAX_ROW_SHIFTS) sh[cnt++] = q;
    }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, isbaij, &n, &ia, &ja, &done));
  PetscCall(PetscSortRemoveDupsInt(&cnt, sh));
  *nsh = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Can shift be written dx + nx*dy with |dx| <= W, 0 <= dy <= W ? */
static PetscBool InPlane(PetscInt shift, PetscInt nx)
{
  for (PetscInt dy = 0; dy <= W; dy++)
    if (PetscAbsInt(shift - dy * nx) <= W) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*
  GILUGridInfer - guesses the grid of a matrix in natural ordering from its first row

  The first grid point is a corner: its neighbours lie at shifts dx + nx*dy + nx*ny*dz with
  all components non-negative. After the run of x-neighbours 1..w, the smallest shift is nx
  (the point above); the smallest shift that is not in the xy-plane is nx*ny. The guess is
  only a candidate: GILUStencilMatAnalyze() decodes every nonzero with it and rejects it if
  any is not a stencil neighbour.
*/
PetscErrorCode GILUGridInfer(Mat A, PetscInt dof, GILUGrid *g, PetscBool *found)
{
  PetscInt  m, bs, npts, nsh = 0, sh[MAX_ROW_SHIFTS], w = 0, k, nx, nxy = 0;
  PetscBool isbaij;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  if (dof < 1) dof = bs;
  if (dof < 1 || m % dof || (isbaij && bs != dof) || m == 0) PetscFunctionReturn(PETSC_SUCCESS);
  npts = m / dof;
  PetscCall(FirstRowShifts(A, isbaij, dof, &nsh, sh));
  while (w < nsh && sh[w] == w + 1 && w < W) w++;
  if (w == nsh) { /* a line: only x neighbours */
    nx = npts;
  } else {
    nx = sh[w];
    for (k = w; k < nsh; k++)
      if (!InPlane(sh[k], nx)) break;
    if (k < nsh) nxy = sh[k];
  }
  if (nx <= 0 || npts % nx) PetscFunctionReturn(PETSC_SUCCESS);
  if (nxy) {
    if (nxy % nx || npts % nxy) PetscFunctionReturn(PETSC_SUCCESS);
    g->dim  = 3;
    g->n[0] = nx;
    g->n[1] = nxy / nx;
    g->n[2] = npts / nxy;
  } else {
    g->dim  = npts == nx ? 1 : 2;
    g->n[0] = nx;
    g->n[1] = npts / nx;
    g->n[2] = 1;
  }
  g->dof = dof;
  *found = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Decoder of column points into grid offsets from the row point (i,j,k). Rows in natural
  order repeat the same shifts, so the offset found for the c-th column of the previous
  row is tried first; a shift that matches and stays inside the grid is exact, since
  in-grid points have distinct indices. Otherwise the column is decoded by division.
*/
typedef struct {
  const GILUGrid *g;
  PetscInt        cache_shift[DECODER_CACHE];
  PetscInt        cache_cube[DECODER_CACHE];
  PetscInt        cache_d[DECODER_CACHE][3];
} Decoder;

static inline PetscBool Inside(const GILUGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2]);
}

/* Returns the cube id of the offset from p=(i,j,k) to point q, or -1 if it is wider than W */
static inline PetscInt Decode(Decoder *dec, PetscInt c, PetscInt p, PetscInt i, PetscInt j, PetscInt k, PetscInt q)
{
  const GILUGrid *g = dec->g;
  PetscInt        shift = q - p, qi, qj, qk, dx, dy, dz, id;

  /* a shift beyond the widest stencil is never a neighbour (the grid is at least that wide then) */

  if (c < DECODER_CACHE && dec->cache_shift[c] == shift && dec->cache_cube[c] >= 0) {
    const PetscInt *d = dec->cache_d[c];

    if (Inside(g, i + d[0], j + d[1], k + d[2])) return dec->cache_cube[c];
  }
  qi = q % g->n[0];
  qj = (q / g->n[0]) % g->n[1];
  qk = q / (g->n[0] * g->n[1]);
  dx = qi - i;
  dy = qj - j;
  dz = qk - k;
  if (PetscAbsInt(dx) > W || PetscAbsInt(dy) > W || PetscAbsInt(dz) > W) return -1;
  id = CUBE_ID(dx, dy, dz);
  if (c < DECODER_CACHE) {
    dec->cache_shift[c] = shift;
    dec->cache_cube[c]  = id;
    dec->cache_d[c][0]  = dx;
    dec->cache_d[c][1]  = dy;
    dec->cache_d[c][2]  = dz;
  }
  return id;
}

/* Loop over the points of the grid in natural order with their coordinates */
#define FOR_POINTS(g, p, i, j, k) \
  for (PetscInt k = 0, p = 0; k < (g)->n[2]; k++) \
    for (PetscInt j = 0; j < (g)->n[1]; j++) \
      for (PetscInt i = 0; i < (g)->n[0]; i++, p++)

/*
  Walks the block rows of A. For block row p, fills cubes[] with the cube id of every
  nonzero (AIJ: the scalar rows of the point one after the other; BAIJ: one per block).
*/
typedef struct {
  PetscBool       isbaij;
  PetscInt        dof, nrows;
  const PetscInt *ia, *ja;
} Pattern;

static PetscErrorCode PatternGet(Mat A, PetscBool isbaij, PetscInt dof, Pattern *pat)
{
  PetscBool done;

  PetscFunctionBegin;
  pat->isbaij = isbaij;
  pat->dof    = dof;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, isbaij, &pat->nrows, &pat->ia, &pat->ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot access the structure of the matrix");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatternRestore(Mat A, Pattern *pat)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, pat->isbaij, &pat->nrows, &pat->ia, &pat->ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Range of nonzeros of block row p: AIJ rows p*dof .. p*dof+dof-1 are contiguous in CSR */
static inline void PatternRowRange(const Pattern *pat, PetscInt p, PetscInt *start, PetscInt *end)
{
  PetscInt r = pat->isbaij ? p : p * pat->dof, nr = pat->isbaij ? 1 : pat->dof;

  *start = pat->ia[r];
  *end   = pat->ia[r + nr];
}

static inline PetscInt PatternColPoint(const Pattern *pat, PetscInt col)
{
  return pat->isbaij || pat->dof == 1 ? col : col / pat->dof;
}

static PetscErrorCode NotAStencilError(Mat A, const GILUGrid *g, PetscInt p, PetscInt i, PetscInt j, PetscInt k, PetscInt q, const char *source)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
          "The matrix is not a stencil matrix on the %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " DoF (%s): grid point %" PetscInt_FMT " (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
          ") couples to point %" PetscInt_FMT ", which is not a neighbour within distance %d (periodic boundaries are not supported). Give the grid with a DMDA (KSPSetDM(), PCSetDM()) or -pc_structilu_grid nx,ny[,nz] and -pc_structilu_dof d, or use a general preconditioner",
          g->dim, g->n[0], g->n[1], g->n[2], g->dof, source, p, i, j, k, q, W);
}

/*
  GILUStencilMatAnalyze - finds the stencil of A (sequential AIJ or BAIJ) on grid g,
  checks that A is a stencil matrix there, and allocates the value storage of sm.
*/
PetscErrorCode GILUStencilMatAnalyze(Mat A, const GILUGrid *g, GILUStencilMat *sm)
{
  PetscBool       isbaij;
  PetscInt        m, bs, npts, ns = 0, dof = g->dof, bs2 = dof * dof, cube2s[W1 * W1 * W1], sorted[GILU_STENCIL_MAX_OFFSETS], key[GILU_STENCIL_MAX_OFFSETS];
  PetscInt        cnt[GILU_STENCIL_MAX_OFFSETS], nmiss = 0, *missptr = NULL, *missoff = NULL;
  PetscInt        cubes[W1 * W1 * W1];
  Pattern         pat;
  Decoder        *dec;
  GILUStencil    *st = &sm->stencil;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(dof >= 1 && dof <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "Structured-grid ILU supports 1 to %d unknowns per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, dof);
  PetscCheck(!isbaij || bs == dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The BAIJ block size %" PetscInt_FMT " differs from the %" PetscInt_FMT " DoF per grid point: use -pc_structilu_dof %" PetscInt_FMT " or a matrix with one block per grid point", bs, dof, bs);
  npts = g->n[0] * g->n[1] * g->n[2];
  PetscCheck(npts * dof == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " DoF has %" PetscInt_FMT " unknowns but the (local) matrix has %" PetscInt_FMT " rows: fix -pc_structilu_grid / -pc_structilu_dof", g->n[0], g->n[1], g->n[2], dof, npts * dof, m);

  PetscCall(PetscNew(&dec));
  dec->g = g;
  for (PetscInt c = 0; c < DECODER_CACHE; c++) dec->cache_cube[c] = -1;
  for (PetscInt c = 0; c < W1 * W1 * W1; c++) cube2s[c] = -1;
  PetscCall(PatternGet(A, isbaij, dof, &pat));

  /* pass 1: the union of the offsets */
  FOR_POINTS(g, p, i, j, k)
  {
    PetscInt start, end;

    PatternRowRange(&pat, p, &start, &end);
    for (PetscInt c = start; c < end; c++) {
      PetscInt q  = PatternColPoint(&pat, pat.ja[c]);
      PetscInt id = q < npts ? Decode(dec, c - start, p, i, j, k, q) : -1;

      if (id < 0) {
        PetscCall(PatternRestore(A, &pat));
        PetscCall(PetscFree(dec));
        PetscCall(NotAStencilError(A, g, p, i, j, k, q, "grid given or inferred"));
      }
      if (cube2s[id] < 0) {
        PetscCheck(ns < GILU_STENCIL_MAX_OFFSETS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The stencil has more than %d offsets; structured-grid ILU supports up to a 3D box of width 3", GILU_STENCIL_MAX_OFFSETS);
        cube2s[id]  = ns;
        cubes[ns++] = id;
      }
    }
  }

  /* sort the offsets in natural order: lexicographic in (dz, dy, dx) */
  for (PetscInt s = 0; s < ns; s++) {
    key[s]    = cubes[s];
    sorted[s] = s;
  }
  PetscCall(PetscSortIntWithArray(ns, key, sorted));
  st->ns     = ns;
  st->nlower = -1;
  for (PetscInt d = 0; d < 3; d++) st->width[d] = 0;
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt id = key[s];

    st->off[s][0] = id % W1 - W;
    st->off[s][1] = (id / W1) % W1 - W;
    st->off[s][2] = id / (W1 * W1) - W;
    cube2s[id]    = s;
    for (PetscInt d = 0; d < 3; d++) st->width[d] = PetscMax(st->width[d], PetscAbsInt(st->off[s][d]));
    if (!st->off[s][0] && !st->off[s][1] && !st->off[s][2]) st->nlower = s;
  }
  PetscCheck(st->nlower >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The matrix has no diagonal entries: an ILU factorization needs them");

  /* pass 2: every in-grid position of every row is either a full DoF block or absent */
  PetscCall(PetscArrayzero(cnt, ns));
  for (PetscInt pass = 0; pass < 2; pass++) {
    FOR_POINTS(g, p, i, j, k)
    {
      PetscInt start, end;

      PatternRowRange(&pat, p, &start, &end);
      for (PetscInt c = start; c < end; c++) cnt[cube2s[Decode(dec, c - start, p, i, j, k, PatternColPoint(&pat, pat.ja[c]))]]++;
      for (PetscInt s = 0; s < ns; s++) {
        if (!Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) continue;
        if (cnt[s] == 0) {
          PetscCheck(s != st->nlower, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Grid point %" PetscInt_FMT " has no diagonal entry: an ILU factorization needs it (insert an explicit zero if it is one)", p);
          if (pass) missoff[nmiss++] = s;
          else nmiss++;
        } else
          PetscCheck(isbaij || cnt[s] == bs2, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Grid point %" PetscInt_FMT " couples to its neighbour at offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") through %" PetscInt_FMT " of the %" PetscInt_FMT " entries of the DoF block: structured-grid ILU needs full blocks; use BAIJ or assemble the whole block", p, st->off[s][0], st->off[s][1], st->off[s][2], cnt[s], bs2);
        cnt[s] = 0;
      }
      if (pass) missptr[p + 1] = nmiss;
    }
    if (!pass) {
      if (!nmiss) break;
      PetscCall(PetscMalloc2(npts + 1, &missptr, nmiss, &missoff));
      missptr[0] = 0;
      nmiss      = 0;
    }
  }
  PetscCall(PatternRestore(A, &pat));
  PetscCall(PetscFree(dec));

  sm->grid     = *g;
  sm->npoints  = npts;
  sm->bs2      = bs2;
  sm->nmissing = nmiss;
  sm->missptr  = missptr;
  sm->missoff  = missoff;
  PetscCall(MatGetNonzeroState(A, &sm->nonzerostate));
  PetscCall(PetscMalloc1(ns, &sm->shift));
  for (PetscInt s = 0; s < ns; s++) sm->shift[s] = st->off[s][0] + g->n[0] * (st->off[s][1] + g->n[1] * st->off[s][2]);
  PetscCall(PetscMalloc1((size_t)ns * npts * bs2, &sm->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilMatPack - copies the values of A into sm->val (stencil-major, zero outside the
  pattern). A must have the pattern sm was analyzed with. Errors on NaN or Inf.
*/
PetscErrorCode GILUStencilMatPack(Mat A, GILUStencilMat *sm)
{
  const GILUGrid    *g   = &sm->grid;
  const GILUStencil *st  = &sm->stencil;
  PetscInt           dof = g->dof, bs2 = sm->bs2, npts = sm->npoints, cube2s[W1 * W1 * W1], bad = -1;
  PetscBool          isbaij;
  Pattern            pat;
  Decoder           *dec;
  const PetscScalar *aa;
  PetscScalar       *val = sm->val;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  for (PetscInt c = 0; c < W1 * W1 * W1; c++) cube2s[c] = -1;
  for (PetscInt s = 0; s < st->ns; s++) cube2s[CUBE_ID(st->off[s][0], st->off[s][1], st->off[s][2])] = s;
  PetscCall(PetscNew(&dec));
  dec->g = g;
  for (PetscInt c = 0; c < DECODER_CACHE; c++) dec->cache_cube[c] = -1;
  PetscCall(PetscArrayzero(val, (size_t)st->ns * npts * bs2));
  PetscCall(PatternGet(A, isbaij, dof, &pat));
  if (isbaij) PetscCall(MatSeqBAIJGetArray(A, (PetscScalar **)&aa));
  else PetscCall(MatSeqAIJGetArrayRead(A, &aa));

  FOR_POINTS(g, p, i, j, k)
  {
    PetscInt start, end;

    PatternRowRange(&pat, p, &start, &end);
    if (isbaij) {
      for (PetscInt c = start; c < end; c++) {
        PetscInt           s = cube2s[Decode(dec, c - start, p, i, j, k, pat.ja[c])];
        PetscScalar       *v = val + ((size_t)s * npts + p) * bs2;
        const PetscScalar *b = aa + (size_t)c * bs2; /* BAIJ blocks are column-major */

        for (PetscInt a = 0; a < dof; a++)
          for (PetscInt e = 0; e < dof; e++) v[a * dof + e] = b[e * dof + a];
      }
    } else if (dof == 1) {
      for (PetscInt c = start; c < end; c++) val[(size_t)cube2s[Decode(dec, c - start, p, i, j, k, pat.ja[c])] * npts + p] = aa[c];
    } else {
      for (PetscInt a = 0; a < dof; a++) {
        PetscInt r = p * dof + a;

        for (PetscInt c = pat.ia[r]; c < pat.ia[r + 1]; c++) {
          PetscInt col = pat.ja[c], s = cube2s[Decode(dec, c - start, p, i, j, k, col / dof)];

          val[((size_t)s * npts + p) * bs2 + a * dof + col % dof] = aa[c];
        }
      }
    }
  }
  /* one vectorizable sweep for NaN/Inf instead of a test per entry */
  for (size_t t = 0; t < (size_t)st->ns * npts * bs2; t++)
    if (PetscIsInfOrNanScalar(val[t])) {
      bad = (PetscInt)t;
      break;
    }
  if (isbaij) PetscCall(MatSeqBAIJRestoreArray(A, (PetscScalar **)&aa));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(PatternRestore(A, &pat));
  PetscCall(PetscFree(dec));
  if (bad >= 0) {
    PetscInt s = bad / (npts * bs2), p = (bad / bs2) % npts, a = (bad % bs2) / dof, e = bad % dof;

    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "The matrix has a NaN or Inf entry: row %" PetscInt_FMT " (grid point %" PetscInt_FMT ", component %" PetscInt_FMT "), neighbour offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") component %" PetscInt_FMT " (local numbering); fix the assembly of the operator", p * dof + a, p, a, st->off[s][0], st->off[s][1], st->off[s][2], e);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUStencilMatReset(GILUStencilMat *sm)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sm->shift));
  PetscCall(PetscFree(sm->val));
  PetscCall(PetscFree2(sm->missptr, sm->missoff));
  PetscCall(PetscMemzero(sm, sizeof(*sm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
