/*
   Extraction of a stencil matrix from a PETSc AIJ or BAIJ matrix.

   The grid comes from a DMDA (the local box of this rank), from the user, or is inferred
   from the pattern. The stencil is the union of the grid offsets of the nonzeros, and
   every row must be a subset of it: positions of the stencil absent from a row are
   recorded so that factorizations keep them at zero, exactly as an ILU on the matrix
   pattern would. The values are packed stencil-major.

   Nearly every row of a stencil matrix holds exactly the in-grid positions of the stencil,
   in order: such a row is recognized by comparing its columns with p + shift[s], without
   decoding any column into grid coordinates. Only the other rows (irregular ones, e.g.
   Dirichlet rows of a pattern assembled with DMSetMatrixPreallocateOnly()) are decoded.
   The row loops run on the host threads.

   Also the copies between stencil matrices (the structure, the values onto a wider stencil) for
   the users that start from a MATSTENCILGPU's own stencil matrix instead.
*/
#include <petscdmda.h>
#include <petscgilu/private/stencil.h>
#include <petscgiluconf.h>

#define W  GILU_STENCIL_MAX_WIDTH
#define W1 (2 * GILU_STENCIL_MAX_WIDTH + 1)

/* Column points kept from the first row when inferring the grid */
#define MAX_ROW_SHIFTS (GILU_STENCIL_MAX_OFFSETS * GILU_MAX_DOF)

/* Index of an offset in the cube [-W,W]^3 */
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
  GILUMatCheckSquare - errors unless A and its local diagonal block are square, as PETSc's factorizations do: every
  incomplete factorization of petscgilu (and the preconditioners built on one) factors a square matrix
*/
PetscErrorCode GILUMatCheckSquare(Mat A)
{
  PetscInt m, n, M, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCheck(M == N, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Must be square matrix, rows %" PetscInt_FMT " columns %" PetscInt_FMT ": an incomplete factorization needs a square (preconditioning) matrix", M, N);
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Must be a square local diagonal block, local rows %" PetscInt_FMT " columns %" PetscInt_FMT ": give the matrix the same row and column layout", m, n);
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

static inline PetscBool Inside(const GILUGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2]);
}

/* The cube id of the offset from point p = (i,j,k) to point q, or -1 if it is not within distance W */
static inline PetscInt Decode(const GILUGrid *g, PetscInt i, PetscInt j, PetscInt k, PetscInt q)
{
  PetscInt dx = q % g->n[0] - i, dy = (q / g->n[0]) % g->n[1] - j, dz = q / (g->n[0] * g->n[1]) - k;

  if (q < 0 || PetscAbsInt(dx) > W || PetscAbsInt(dy) > W || PetscAbsInt(dz) > W) return -1;
  return CUBE_ID(dx, dy, dz);
}

/* The structure of A: block rows of BAIJ, scalar rows of AIJ (dof of them per grid point) */
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

/* Rows of grid point p in the pattern: one block row (BAIJ) or dof scalar rows (AIJ) */
static inline PetscInt PatternRows(const Pattern *pat)
{
  return pat->isbaij ? 1 : pat->dof;
}

static inline PetscInt PatternRow(const Pattern *pat, PetscInt p, PetscInt a)
{
  return pat->isbaij ? p : p * pat->dof + a;
}

/* Columns per neighbour in a row: 1 block (BAIJ) or dof scalars (AIJ) */
static inline PetscInt PatternCols(const Pattern *pat)
{
  return pat->isbaij ? 1 : pat->dof;
}

static inline PetscInt PatternColPoint(const Pattern *pat, PetscInt col)
{
  return pat->isbaij || pat->dof == 1 ? col : col / pat->dof;
}

/* Is point p at least the stencil width away from every side of the grid? */
static inline PetscBool Interior(const GILUGrid *g, const GILUStencil *st, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscBool)(i >= st->width[0] && i < g->n[0] - st->width[0] && j >= st->width[1] && j < g->n[1] - st->width[1] && k >= st->width[2] && k < g->n[2] - st->width[2]);
}

/* Do the rows of point p hold exactly the in-grid positions of the stencil, in order? */
static inline PetscBool RowMatches(const Pattern *pat, const GILUGrid *g, const GILUStencil *st, const PetscInt *shift, PetscInt p, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscBool in = Interior(g, st, i, j, k);
  const PetscInt  nc = PatternCols(pat);

  for (PetscInt a = 0; a < PatternRows(pat); a++) {
    PetscInt r = PatternRow(pat, p, a), c = pat->ia[r], end = pat->ia[r + 1];

    for (PetscInt s = 0; s < st->ns; s++) {
      PetscInt base = (p + shift[s]) * nc;

      if (!in && !Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) continue;
      if (c + nc > end) return PETSC_FALSE;
      for (PetscInt e = 0; e < nc; e++)
        if (pat->ja[c + e] != base + e) return PETSC_FALSE;
      c += nc;
    }
    if (c != end) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* The points of line (j,k) in [*i0, *i1) are interior (empty if none is) */
static inline void InteriorRange(const GILUGrid *g, const GILUStencil *st, PetscInt j, PetscInt k, PetscInt *i0, PetscInt *i1)
{
  *i0 = st->width[0];
  *i1 = g->n[0] - st->width[0];
  if (j < st->width[1] || j >= g->n[1] - st->width[1] || k < st->width[2] || k >= g->n[2] - st->width[2] || *i1 < *i0) *i1 = *i0;
}

/* Loops over the grid points with their coordinates, the lines shared among the host threads */
#if defined(PETSCGILU_HAVE_OPENMP)
  #define PRAGMA_(x) _Pragma(#x)
  #define PRAGMA_OMP_FOR_LINES(...) PRAGMA_(omp parallel for schedule(static) __VA_ARGS__)
#else
  #define PRAGMA_OMP_FOR_LINES(...)
#endif

/* Why the pattern is not that of a stencil on g: grid point p couples to point q, not a neighbour */
static PetscErrorCode NotANeighbour(const GILUGrid *g, PetscInt p, PetscInt q, char why[], size_t len)
{
  PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]);

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(why, len, "the matrix is not a stencil matrix on the %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " DoF: grid point %" PetscInt_FMT " (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") couples to point %" PetscInt_FMT ", which is not a neighbour within distance %d (periodic boundaries are not supported)", g->dim, g->n[0], g->n[1], g->n[2], g->dof, p, i, j, k, q, W));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adds the offsets of the rows of point p to the cube table; returns a column that is not a neighbour, or -1 */
static PetscInt AddRowOffsets(const Pattern *pat, const GILUGrid *g, PetscInt p, PetscBool present[])
{
  PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]), npts = g->n[0] * g->n[1] * g->n[2];

  for (PetscInt a = 0; a < PatternRows(pat); a++) {
    PetscInt r = PatternRow(pat, p, a);

    for (PetscInt c = pat->ia[r]; c < pat->ia[r + 1]; c++) {
      PetscInt q  = PatternColPoint(pat, pat->ja[c]);
      PetscInt id = q < npts ? Decode(g, i, j, k, q) : -1;

      if (id < 0) return q;
      present[id] = PETSC_TRUE;
    }
  }
  return -1;
}

/* Sorts the offsets of the cube table into the stencil (natural order: lexicographic in dz, dy, dx) */
static PetscErrorCode StencilFromCube(const PetscBool present[], GILUStencil *st)
{
  PetscFunctionBegin;
  st->ns     = 0;
  st->nlower = -1;
  for (PetscInt d = 0; d < 3; d++) st->width[d] = 0;
  for (PetscInt id = 0; id < W1 * W1 * W1; id++) { /* cube ids increase lexicographically in (dz, dy, dx) */
    PetscInt *o = st->off[st->ns];

    if (!present[id]) continue;
    PetscCheck(st->ns < GILU_STENCIL_MAX_OFFSETS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The stencil has more than %d offsets; structured-grid ILU supports up to a 3D box of width 3", GILU_STENCIL_MAX_OFFSETS);
    o[0] = id % W1 - W;
    o[1] = (id / W1) % W1 - W;
    o[2] = id / (W1 * W1) - W;
    for (PetscInt d = 0; d < 3; d++) st->width[d] = PetscMax(st->width[d], PetscAbsInt(o[d]));
    if (!o[0] && !o[1] && !o[2]) st->nlower = st->ns;
    st->ns++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SetShifts(const GILUGrid *g, const GILUStencil *st, PetscInt shift[])
{
  for (PetscInt s = 0; s < st->ns; s++) shift[s] = st->off[s][0] + g->n[0] * (st->off[s][1] + g->n[1] * st->off[s][2]);
}

/*
  Marks the points whose rows do not match the stencil; returns how many. An interior point matches when each of
  its rows has the expected length and its columns, relative to the point's own, are rel[] (the stencil's shifts,
  each expanded to its nc columns): one comparison per column, no decoding.
*/
static PetscInt MarkIrregular(const Pattern *pat, const GILUGrid *g, const GILUStencil *st, const PetscInt *shift, PetscInt nthreads, char irregular[])
{
  const PetscInt nc = PatternCols(pat), len = st->ns * nc, nr = PatternRows(pat);
  PetscInt       nirr = 0, nlines = g->n[1] * g->n[2], rel[GILU_STENCIL_MAX_OFFSETS * GILU_MAX_DOF];

  (void)nthreads;
  for (PetscInt t = 0; t < len; t++) rel[t] = shift[t / nc] * nc + t % nc;
  PRAGMA_OMP_FOR_LINES(num_threads(nthreads) reduction(+ : nirr))
  for (PetscInt line = 0; line < nlines; line++) {
    PetscInt j = line % g->n[1], k = line / g->n[1], p0 = line * g->n[0], i0, i1, i = 0;

    InteriorRange(g, st, j, k, &i0, &i1);
    for (; i < i0; i++) nirr += irregular[p0 + i] = (char)!RowMatches(pat, g, st, shift, p0 + i, i, j, k);
    for (; i < i1; i++) {
      PetscInt p = p0 + i, differ = 0;

      for (PetscInt a = 0; a < nr; a++) {
        const PetscInt  r = PatternRow(pat, p, a), c = pat->ia[r], base = p * nc;
        const PetscInt *ja = pat->ja + c;

        if (pat->ia[r + 1] - c != len) differ = 1;
        else
          for (PetscInt t = 0; t < len; t++) differ |= (ja[t] - base) ^ rel[t];
      }
      nirr += irregular[p] = (char)(differ != 0);
    }
    for (; i < g->n[0]; i++) nirr += irregular[p0 + i] = (char)!RowMatches(pat, g, st, shift, p0 + i, i, j, k);
  }
  return nirr;
}

/*
  GILUStencilMatAnalyze - finds the stencil of A (sequential AIJ or BAIJ) on grid g and
  checks that A is a stencil matrix there (with the threads sm->nthreads asks for); the
  value storage of sm is allocated by the first GILUStencilMatPack().

  A pattern that is not a stencil's on g (a coupling to a point that is not a neighbour, a
  neighbour coupled through part of a DoF block) is an error when why is NULL; otherwise
  why says what is wrong (empty: A is a stencil matrix) and sm is left untouched.

  The stencil is first guessed from the rows of the point at the center of the grid; every
  row that does not match it is then decoded, and if that adds offsets the rows are
  checked again against the grown stencil.
*/
PetscErrorCode GILUStencilMatAnalyze(Mat A, const GILUGrid *g, GILUStencilMat *sm, char why[], size_t len)
{
  char         reason[512] = "";
  PetscBool    isbaij, present[W1 * W1 * W1];
  PetscInt     m, bs, npts = 0, dof = g->dof, bs2 = dof * dof, nirr, nmiss = 0, *missptr = NULL, *missoff = NULL, *shift, center, cube2s[W1 * W1 * W1];
  PetscInt     cnt[GILU_STENCIL_MAX_OFFSETS], nthreads;
  PetscBool    nodiag = PETSC_FALSE;
  char        *irregular;
  Pattern      pat;
  GILUStencil *st = &sm->stencil;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(dof >= 1 && dof <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "Structured-grid ILU supports 1 to %d unknowns per grid point, not %" PetscInt_FMT, GILU_MAX_DOF, dof);
  PetscCheck(!isbaij || bs == dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The BAIJ block size %" PetscInt_FMT " differs from the %" PetscInt_FMT " DoF per grid point: a BAIJ matrix needs one block per grid point", bs, dof);
  for (PetscInt d = 0; d < 3; d++) PetscCheck(g->n[d] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " has a size that is not positive", g->n[0], g->n[1], g->n[2]);
  PetscCall(PetscIntMultError(g->n[0], g->n[1], &npts));
  PetscCall(PetscIntMultError(npts, g->n[2], &npts));
  PetscCheck((PetscInt64)npts * dof == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " DoF has %" PetscInt64_FMT " unknowns but the (local) matrix has %" PetscInt_FMT " rows", g->n[0], g->n[1], g->n[2], dof, (PetscInt64)npts * dof, m);
  PetscCall(GILUGetNumThreadsFor(sm->nthreads, m, &nthreads));
  PetscCall(PatternGet(A, isbaij, dof, &pat));
  PetscCall(PetscMalloc1(npts, &irregular));
  PetscCall(PetscMalloc1(GILU_STENCIL_MAX_OFFSETS, &shift));

  /* the stencil: guessed from the center, grown by the rows that do not match it */
  PetscCall(PetscArrayzero(present, W1 * W1 * W1));
  center = ((g->n[2] / 2) * g->n[1] + g->n[1] / 2) * g->n[0] + g->n[0] / 2;
  {
    PetscInt q = AddRowOffsets(&pat, g, center, present);

    if (q >= 0) {
      PetscCall(NotANeighbour(g, center, q, reason, sizeof(reason)));
      goto notastencil;
    }
  }
  for (PetscInt round = 0;; round++) {
    PetscBool grown = PETSC_FALSE;

    PetscCall(StencilFromCube(present, st));
    SetShifts(g, st, shift);
    nirr = MarkIrregular(&pat, g, st, shift, nthreads, irregular);
    if (!nirr || round) break;
    for (PetscInt p = 0; p < npts; p++) {
      PetscBool before[W1 * W1 * W1];
      PetscInt  q;

      if (!irregular[p]) continue;
      PetscCall(PetscArraycpy(before, present, W1 * W1 * W1));
      q = AddRowOffsets(&pat, g, p, present);
      if (q >= 0) {
        PetscCall(NotANeighbour(g, p, q, reason, sizeof(reason)));
        goto notastencil;
      }
      for (PetscInt id = 0; id < W1 * W1 * W1 && !grown; id++) grown = (PetscBool)(present[id] && !before[id]);
    }
    if (!grown) break;
  }
  if (st->nlower < 0) {
    PetscCall(PetscSNPrintf(reason, sizeof(reason), "The matrix has no diagonal entries: an ILU factorization needs them"));
    nodiag = PETSC_TRUE;
    goto notastencil;
  }

  /* the irregular rows: every in-grid position is either a full DoF block or absent */
  for (PetscInt c = 0; c < W1 * W1 * W1; c++) cube2s[c] = -1;
  for (PetscInt s = 0; s < st->ns; s++) cube2s[CUBE_ID(st->off[s][0], st->off[s][1], st->off[s][2])] = s;
  PetscCall(PetscArrayzero(cnt, st->ns));
  for (PetscInt pass = 0; pass < 2 && nirr; pass++) {
    for (PetscInt p = 0; p < npts; p++) {
      PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]);

      if (pass) missptr[p] = nmiss;
      if (!irregular[p]) continue;
      for (PetscInt a = 0; a < PatternRows(&pat); a++) {
        PetscInt r = PatternRow(&pat, p, a);

        for (PetscInt c = pat.ia[r]; c < pat.ia[r + 1]; c++) cnt[cube2s[Decode(g, i, j, k, PatternColPoint(&pat, pat.ja[c]))]]++;
      }
      for (PetscInt s = 0; s < st->ns; s++) {
        if (Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) {
          if (cnt[s] == 0) {
            if (s == st->nlower) {
              PetscCall(PetscSNPrintf(reason, sizeof(reason), "Grid point %" PetscInt_FMT " has no diagonal entry: an ILU factorization needs it (insert an explicit zero if it is one)", p));
              nodiag = PETSC_TRUE;
              goto notastencil;
            }
            if (pass) missoff[nmiss] = s;
            nmiss++;
          } else if (!isbaij && cnt[s] != bs2) {
            PetscCall(PetscSNPrintf(reason, sizeof(reason), "grid point %" PetscInt_FMT " couples to its neighbour at offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") through %" PetscInt_FMT " of the %" PetscInt_FMT " entries of the DoF block (structured-grid ILU factors whole blocks)", p, st->off[s][0], st->off[s][1], st->off[s][2], cnt[s], bs2));
            goto notastencil;
          }
        }
        cnt[s] = 0;
      }
    }
    if (!pass) {
      if (nmiss) PetscCall(PetscMalloc2(npts + 1, &missptr, nmiss, &missoff));
      else break; /* irregular only in the order of the columns */
      nmiss = 0;
    } else missptr[npts] = nmiss;
  }
  PetscCall(PatternRestore(A, &pat));

  sm->grid      = *g;
  sm->npoints   = npts;
  sm->bs2       = bs2;
  sm->nmissing  = nmiss;
  sm->missptr   = missptr;
  sm->missoff   = missoff;
  sm->shift     = shift;
  sm->irregular = irregular;
  PetscCall(MatGetNonzeroState(A, &sm->nonzerostate));
  if (why) why[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);

notastencil: /* (or no diagonal: an error, after the cleanup) */
  PetscCall(PatternRestore(A, &pat));
  PetscCall(PetscFree(irregular));
  PetscCall(PetscFree(shift));
  PetscCall(PetscFree2(missptr, missoff));
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCheck(!nodiag, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "%s", reason);
  PetscCheck(why, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "%s. Give the matrix its DMDA (MatSetDM(), DMCreateMatrix()), use BAIJ or assemble whole DoF blocks", reason);
  PetscCall(PetscStrncpy(why, reason, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the double x a NaN or an Inf? (exponent bits all ones: 1 or 0, branch-free, so that the copy loops vectorize) */
static inline uint64_t InfOrNanBit(PetscScalar x)
{
  const uint64_t mask = 0x7FF0000000000000ULL;
  uint64_t       b;

  _Static_assert(sizeof(PetscScalar) == sizeof(uint64_t), "PetscScalar must be a real double");
  memcpy(&b, &x, sizeof(b));
  return (uint64_t)((b & mask) == mask);
}

/*
  The values of a point whose rows are exactly the stencil, all of it in the grid (the common
  case): straight copies, no decoding, with D known at compile time; the result is 1 if a
  value copied is a NaN or an Inf. AIJ: the dof rows of the point hold the blocks of the
  offsets in order, row by row; BAIJ: one column-major block per offset.
*/
#define DEFINE_PACK_INTERIOR(D) \
  static inline uint64_t PackInteriorAIJ_##D(const PetscInt *ia, const PetscScalar *aa, PetscInt ns, size_t N, PetscScalar *val, PetscInt p) \
  { \
    uint64_t bad = 0; \
\
    for (PetscInt a = 0; a < (D); a++) { \
      const PetscScalar *row = aa + ia[p * (D) + a]; \
\
      for (PetscInt s = 0; s < ns; s++) { \
        PetscScalar *v = val + ((size_t)s * N + p) * ((D) * (D)) + a * (D); \
\
        for (PetscInt e = 0; e < (D); e++) { \
          v[e] = row[s * (D) + e]; \
          bad |= InfOrNanBit(v[e]); \
        } \
      } \
    } \
    return bad; \
  } \
  static inline uint64_t PackInteriorBAIJ_##D(const PetscInt *ia, const PetscScalar *aa, PetscInt ns, size_t N, PetscScalar *val, PetscInt p) \
  { \
    uint64_t bad = 0; \
\
    for (PetscInt s = 0; s < ns; s++) { \
      const PetscScalar *b = aa + (size_t)(ia[p] + s) * ((D) * (D)); \
      PetscScalar       *v = val + ((size_t)s * N + p) * ((D) * (D)); \
\
      for (PetscInt r = 0; r < (D); r++) \
        for (PetscInt e = 0; e < (D); e++) { \
          v[r * (D) + e] = b[e * (D) + r]; \
          bad |= InfOrNanBit(v[r * (D) + e]); \
        } \
    } \
    return bad; \
  }
DEFINE_PACK_INTERIOR(1)
DEFINE_PACK_INTERIOR(2)
DEFINE_PACK_INTERIOR(3)
DEFINE_PACK_INTERIOR(4)
DEFINE_PACK_INTERIOR(5)
DEFINE_PACK_INTERIOR(6)
DEFINE_PACK_INTERIOR(7)
DEFINE_PACK_INTERIOR(8)

typedef uint64_t (*PackInteriorFn)(const PetscInt *, const PetscScalar *, PetscInt, size_t, PetscScalar *, PetscInt);
static const PackInteriorFn PackInteriorAIJ[]  = {NULL, PackInteriorAIJ_1, PackInteriorAIJ_2, PackInteriorAIJ_3, PackInteriorAIJ_4, PackInteriorAIJ_5, PackInteriorAIJ_6, PackInteriorAIJ_7, PackInteriorAIJ_8};
static const PackInteriorFn PackInteriorBAIJ[] = {NULL, PackInteriorBAIJ_1, PackInteriorBAIJ_2, PackInteriorBAIJ_3, PackInteriorBAIJ_4, PackInteriorBAIJ_5, PackInteriorBAIJ_6, PackInteriorBAIJ_7, PackInteriorBAIJ_8};

/*
  Copies the values of the rows of point p into val (zero at the positions outside the grid or absent); returns 1
  if one of them is a NaN or an Inf
*/
static inline uint64_t PackPoint(const Pattern *pat, const GILUStencilMat *sm, const PetscInt cube2s[], const PetscScalar *aa, PetscScalar *val, PetscInt p, PetscInt i, PetscInt j, PetscInt k)
{
  const GILUGrid    *g   = &sm->grid;
  const GILUStencil *st  = &sm->stencil;
  const PetscInt     dof = g->dof, bs2 = sm->bs2, nc = PatternCols(pat);
  const size_t       N   = (size_t)sm->npoints;
  const PetscBool    in  = Interior(g, st, i, j, k);
  uint64_t           bad = 0;

  if (!sm->irregular[p]) { /* columns are the in-grid positions in order */
    for (PetscInt a = 0; a < PatternRows(pat); a++) {
      PetscInt c = pat->ia[PatternRow(pat, p, a)];

      for (PetscInt s = 0; s < st->ns; s++) {
        PetscScalar *v = val + ((size_t)s * N + p) * bs2;

        if (!in && !Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) {
          if (pat->isbaij)
            for (PetscInt e = 0; e < bs2; e++) v[e] = 0;
          else
            for (PetscInt e = 0; e < dof; e++) v[a * dof + e] = 0;
          continue;
        }
        if (pat->isbaij) { /* BAIJ blocks are column-major */
          const PetscScalar *b = aa + (size_t)c * bs2;

          for (PetscInt r = 0; r < dof; r++)
            for (PetscInt e = 0; e < dof; e++) bad |= InfOrNanBit(v[r * dof + e] = b[e * dof + r]);
        } else
          for (PetscInt e = 0; e < dof; e++) bad |= InfOrNanBit(v[a * dof + e] = aa[c + e]);
        c += nc;
      }
    }
    return bad;
  }
  for (PetscInt s = 0; s < st->ns; s++)
    for (PetscInt e = 0; e < bs2; e++) val[((size_t)s * N + p) * bs2 + e] = 0;
  for (PetscInt a = 0; a < PatternRows(pat); a++) {
    PetscInt r = PatternRow(pat, p, a);

    for (PetscInt c = pat->ia[r]; c < pat->ia[r + 1]; c++) {
      PetscInt     col = pat->ja[c], s = cube2s[Decode(g, i, j, k, PatternColPoint(pat, col))];
      PetscScalar *v = val + ((size_t)s * N + p) * bs2;

      if (pat->isbaij)
        for (PetscInt rr = 0; rr < dof; rr++)
          for (PetscInt e = 0; e < dof; e++) bad |= InfOrNanBit(v[rr * dof + e] = aa[(size_t)c * bs2 + e * dof + rr]);
      else bad |= InfOrNanBit(v[a * dof + col % dof] = aa[c]);
    }
  }
  return bad;
}

/* The first NaN or Inf of A's values, as an error */
static PetscErrorCode ReportInfOrNan(const Pattern *pat, const PetscScalar *aa, PetscInt dof)
{
  const PetscInt bs2   = pat->isbaij ? dof * dof : 1;
  const size_t   nvals = (size_t)pat->ia[pat->nrows] * bs2;
  size_t         t     = 0;
  PetscInt       r     = 0, row, col;

  PetscFunctionBegin;
  while (t < nvals && !PetscIsInfOrNanScalar(aa[t])) t++;
  PetscCheck(t < nvals, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A NaN or Inf was copied but none is in the matrix");
  while ((size_t)pat->ia[r + 1] * bs2 <= t) r++;
  row = pat->isbaij ? r * dof + (PetscInt)(t % bs2) % dof : r;
  col = pat->isbaij ? pat->ja[t / bs2] * dof + (PetscInt)(t % bs2) / dof : pat->ja[t];
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "The matrix has a NaN or Inf entry: row %" PetscInt_FMT ", column %" PetscInt_FMT " (local numbering); fix the assembly of the operator", row, col);
}

/*
  GILUStencilMatPack - copies the values of A into sm->val (stencil-major, zero outside the
  pattern). A must have the pattern sm was analyzed with. Errors on NaN or Inf.

  Every value of A is copied once (each line of the grid by one of the threads of the
  stencil matrix: the first touch of sm->val when it is new) and checked for NaN or Inf as
  it is copied; the interior points whose rows are exactly the stencil are straight copies.
*/
PetscErrorCode GILUStencilMatPack(Mat A, GILUStencilMat *sm)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const size_t       N  = (size_t)sm->npoints;
  PetscInt           cube2s[W1 * W1 * W1], nlines = g->n[1] * g->n[2], nthreads;
  PetscBool          isbaij;
  Pattern            pat;
  const PetscScalar *aa;
  PetscScalar       *val;
  PackInteriorFn     interior;
  uint64_t           bad = 0;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(GILUMatCheckSupported(A, &isbaij));
  if (!sm->val) PetscCall(PetscMalloc1((size_t)st->ns * sm->npoints * sm->bs2, &sm->val)); /* new, or freed when the factors were copied */
  val = sm->val;
  for (PetscInt c = 0; c < W1 * W1 * W1; c++) cube2s[c] = -1;
  for (PetscInt s = 0; s < st->ns; s++) cube2s[CUBE_ID(st->off[s][0], st->off[s][1], st->off[s][2])] = s;
  PetscCall(GILUStencilMatGetNumThreads(sm, &nthreads));
  PetscCall(PatternGet(A, isbaij, g->dof, &pat));
  if (isbaij) PetscCall(MatSeqBAIJGetArray(A, (PetscScalar **)&aa));
  else PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  interior = (isbaij ? PackInteriorBAIJ : PackInteriorAIJ)[g->dof];
  PRAGMA_OMP_FOR_LINES(num_threads(nthreads) reduction(| : bad))
  for (PetscInt line = 0; line < nlines; line++) {
    PetscInt j = line % g->n[1], k = line / g->n[1], p0 = line * g->n[0], i0, i1, i = 0;

    InteriorRange(g, st, j, k, &i0, &i1);
    for (; i < i0; i++) bad |= PackPoint(&pat, sm, cube2s, aa, val, p0 + i, i, j, k);
    for (; i < i1; i++) {
      if (sm->irregular[p0 + i]) bad |= PackPoint(&pat, sm, cube2s, aa, val, p0 + i, i, j, k);
      else bad |= interior(pat.ia, aa, st->ns, N, val, p0 + i);
    }
    for (; i < g->n[0]; i++) bad |= PackPoint(&pat, sm, cube2s, aa, val, p0 + i, i, j, k);
  }
  ierr = bad ? ReportInfOrNan(&pat, aa, g->dof) : PETSC_SUCCESS;
  if (isbaij) PetscCall(MatSeqBAIJRestoreArray(A, (PetscScalar **)&aa));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(PatternRestore(A, &pat));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilMatSymmetrizeFromUpper - every lower entry (row, col), row > col, of the packed values
  becomes the upper entry (col, row): the matrix that incomplete Cholesky factors when, as PETSc's
  ICC, it reads only the upper triangle; mirror[s] is the index of the offset -off[s]
*/
PetscErrorCode GILUStencilMatSymmetrizeFromUpper(GILUStencilMat *sm, const PetscInt *mirror)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     d = g->dof, bs2 = sm->bs2;
  const size_t       N = (size_t)sm->npoints;

  PetscFunctionBegin;
  for (PetscInt s = 0; s <= st->nlower; s++) /* lower block (p, q = p + s) from the transpose of block (q, -s) */
    for (PetscInt k = 0, p = 0; k < g->n[2]; k++)
      for (PetscInt j = 0; j < g->n[1]; j++)
        for (PetscInt i = 0; i < g->n[0]; i++, p++) {
          const PetscInt     q = p + sm->shift[s];
          PetscScalar       *L = sm->val + ((size_t)s * N + p) * bs2;
          const PetscScalar *U;

          if (!Inside(g, i + st->off[s][0], j + st->off[s][1], k + st->off[s][2])) continue;
          U = sm->val + ((size_t)mirror[s] * N + q) * bs2;
          for (PetscInt a = 0; a < d; a++)
            for (PetscInt e = 0; e < (s == st->nlower ? a : d); e++) L[a * d + e] = U[e * d + a];
        }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst gets the grid and stencil of src (every in-grid position present) and room for its values */
PetscErrorCode GILUStencilMatCopyStructure(const GILUStencilMat *src, GILUStencilMat *dst)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(dst, sizeof(*dst)));
  dst->grid         = src->grid;
  dst->stencil      = src->stencil;
  dst->npoints      = src->npoints;
  dst->bs2          = src->bs2;
  dst->nonzerostate = src->nonzerostate;
  PetscCall(PetscMalloc1(src->stencil.ns, &dst->shift));
  PetscCall(PetscArraycpy(dst->shift, src->shift, src->stencil.ns));
  PetscCall(PetscMalloc1((size_t)src->stencil.ns * src->npoints * src->bs2, &dst->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A NaN or Inf among the stored values is an error, as for AIJ and BAIJ input (GILUStencilMatPack()) */
static PetscErrorCode StencilMatCheckInfOrNan(const GILUStencilMat *sm)
{
  const size_t n = (size_t)sm->npoints * sm->bs2;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < sm->stencil.ns; s++) {
    const PetscScalar *v   = sm->val + (size_t)s * n;
    PetscBool          bad = PETSC_FALSE;

    for (size_t t = 0; t < n; t++) bad = (PetscBool)(bad | PetscIsInfOrNanScalar(v[t]));
    if (!bad) continue;
    for (size_t t = 0; t < n; t++)
      if (PetscIsInfOrNanScalar(v[t])) {
        const PetscInt p = (PetscInt)(t / sm->bs2), *off = sm->stencil.off[s];

        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "The matrix has a NaN or Inf entry: row %" PetscInt_FMT " (local numbering: a row of grid point %" PetscInt_FMT "), stencil offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "); fix the assembly of the operator",
                p * sm->grid.dof + (PetscInt)(t % sm->bs2) / sm->grid.dof, p, off[0], off[1], off[2]);
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst's values: those of src on src's offsets (which dst's stencil must contain), zero on the others */
PetscErrorCode GILUStencilMatCopyValues(const GILUStencilMat *src, GILUStencilMat *dst)
{
  const size_t n = (size_t)src->npoints * src->bs2;

  PetscFunctionBegin;
  PetscCheck(src->npoints == dst->npoints && src->bs2 == dst->bs2, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Stencil matrices on different grids");
  PetscCall(StencilMatCheckInfOrNan(src));
  if (!dst->val) PetscCall(PetscMalloc1((size_t)dst->stencil.ns * n, &dst->val));
  if (dst->stencil.ns == src->stencil.ns) {
    PetscCall(PetscArraycpy(dst->val, src->val, (size_t)src->stencil.ns * n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscArrayzero(dst->val, (size_t)dst->stencil.ns * n));
  for (PetscInt s = 0; s < src->stencil.ns; s++) {
    PetscInt t;

    PetscCall(GILUStencilFind(&dst->stencil, src->stencil.off[s], &t));
    PetscCheck(t >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Offset %" PetscInt_FMT " missing from the target stencil", s);
    PetscCall(PetscArraycpy(dst->val + (size_t)t * n, src->val + (size_t)s * n, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUStencilMatReset(GILUStencilMat *sm)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sm->shift));
  PetscCall(PetscFree(sm->val));
  PetscCall(PetscFree(sm->irregular));
  PetscCall(PetscFree2(sm->missptr, sm->missoff));
  PetscCall(GILUScheduleDestroy(&sm->schedule));
  PetscCall(PetscMemzero(sm, sizeof(*sm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
