/*
   The triangular-solve engine: the GILUTri object, its level analysis and the sequential
   reference solve (the oracle the threaded and CUDA algorithms are tested against).
*/
#include <petscgilu/private/sptrsv.h>
#include <petscgilu/private/stencil.h>

const char *const GILUTriSolveTypes[] = {"auto", "levelset", "syncfree", "colblock", "rowblock", "recblock", "GILUTriSolveType", "GILU_TRISOLVE_", NULL};

struct _n_GILUTri {
  GILUTriSolveType type, ran;
  PetscInt         nthreads;
  GILUTriUplo      uplo;
  GILUTriDiag      diag;
  PetscInt         n, bs, nz;
  PetscInt        *i, *j;
  MatScalar       *a, *dinv;
  PetscInt         nlevels, maxlevel; /* analysis */
  PetscBool        analyzed;
};

PetscErrorCode GILUTriCreate(GILUTri *tri)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(tri));
  (*tri)->type     = GILU_TRISOLVE_AUTO;
  (*tri)->ran      = GILU_TRISOLVE_LEVELSET;
  (*tri)->nthreads = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriDestroy(GILUTri *tri)
{
  PetscFunctionBegin;
  if (!*tri) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4((*tri)->i, (*tri)->j, (*tri)->a, (*tri)->dinv));
  PetscCall(PetscFree(*tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetType(GILUTri tri, GILUTriSolveType type)
{
  PetscFunctionBegin;
  tri->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetType(GILUTri tri, GILUTriSolveType *type)
{
  PetscFunctionBegin;
  *type = tri->ran;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetThreads(GILUTri tri, PetscInt nthreads)
{
  PetscFunctionBegin;
  tri->nthreads = PetscMax(1, nthreads);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetFromOptions(GILUTri tri, PetscOptions options, const char prefix[])
{
  PetscEnum type = (PetscEnum)tri->type;
  PetscInt  nt   = tri->nthreads;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEnum(options, prefix, "-mat_gilu_trisolve", GILUTriSolveTypes, &type, &set));
  if (set) PetscCall(GILUTriSetType(tri, (GILUTriSolveType)type));
  PetscCall(PetscOptionsGetInt(options, prefix, "-mat_gilu_trisolve_threads", &nt, &set));
  if (set) PetscCall(GILUTriSetThreads(tri, nt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUCountLevels(GILUTriUplo uplo, PetscInt n, const PetscInt i[], const PetscInt j[], PetscInt *nlevels)
{
  PetscInt *level, nl = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &level));
  for (PetscInt t = 0; t < n; t++) {
    PetscInt r = uplo == GILU_TRI_LOWER ? t : n - 1 - t, l = 0;

    for (PetscInt k = i[r]; k < i[r + 1]; k++)
      if ((uplo == GILU_TRI_LOWER && j[k] < r) || (uplo == GILU_TRI_UPPER && j[k] > r)) l = PetscMax(l, level[j[k]] + 1);
    level[r] = l;
    nl       = PetscMax(nl, l + 1);
  }
  PetscCall(PetscFree(level));
  *nlevels = nl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GILUTriAnalyze(GILUTri tri)
{
  PetscInt *level, *count;

  PetscFunctionBegin;
  PetscCall(GILUCountLevels(tri->uplo, tri->n, tri->i, tri->j, &tri->nlevels));
  PetscCall(PetscMalloc1(tri->n, &level));
  PetscCall(PetscCalloc1(tri->nlevels + 1, &count));
  for (PetscInt t = 0; t < tri->n; t++) {
    PetscInt r = tri->uplo == GILU_TRI_LOWER ? t : tri->n - 1 - t, l = 0;

    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++)
      if (tri->j[k] != r) l = PetscMax(l, level[tri->j[k]] + 1);
    level[r] = l;
    count[l]++;
  }
  tri->maxlevel = 0;
  for (PetscInt l = 0; l < tri->nlevels; l++) tri->maxlevel = PetscMax(tri->maxlevel, count[l]);
  PetscCall(PetscFree(level));
  PetscCall(PetscFree(count));
  tri->analyzed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriSetMatrix(GILUTri tri, GILUTriUplo uplo, GILUTriDiag diag, PetscInt n, PetscInt bs, const PetscInt i[], const PetscInt j[], const MatScalar a[], const MatScalar dinv[])
{
  PetscInt  bs2 = bs * bs;
  PetscBool same;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && bs <= GILU_MAX_DOF, PETSC_COMM_SELF, PETSC_ERR_SUP, "Block size %" PetscInt_FMT " is not supported by the triangular-solve engine: use 1 to %d", bs, GILU_MAX_DOF);
  PetscCheck(diag != GILU_TRI_DIAG_INVERSE || dinv, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "GILU_TRI_DIAG_INVERSE needs the inverted diagonal blocks");
  same = (PetscBool)(tri->analyzed && tri->uplo == uplo && tri->diag == diag && tri->n == n && tri->bs == bs && tri->nz == i[n]);
  if (same) PetscCall(PetscArraycmp(tri->i, i, n + 1, &same));
  if (same) PetscCall(PetscArraycmp(tri->j, j, i[n], &same));
  if (!same) {
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt k = i[r]; k < i[r + 1]; k++) {
        PetscCheck(j[k] >= 0 && j[k] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT ": column %" PetscInt_FMT " is outside [0, %" PetscInt_FMT ")", r, j[k], n);
        PetscCheck(uplo == GILU_TRI_LOWER ? j[k] <= r : j[k] >= r, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " of a %s triangular factor has an entry in column %" PetscInt_FMT, r, uplo == GILU_TRI_LOWER ? "lower" : "upper", j[k]);
        PetscCheck(k == i[r] || j[k] > j[k - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT ": columns must be sorted ascending and unique", r);
        PetscCheck(j[k] != r || diag == GILU_TRI_DIAG_STORED, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " stores its diagonal but the factor was declared with a unit or separate diagonal", r);
      }
    if (diag == GILU_TRI_DIAG_STORED)
      for (PetscInt r = 0; r < n; r++) PetscCheck(i[r + 1] > i[r] && j[uplo == GILU_TRI_LOWER ? i[r + 1] - 1 : i[r]] == r, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " has no stored diagonal", r);
    PetscCall(PetscFree4(tri->i, tri->j, tri->a, tri->dinv));
    PetscCall(PetscMalloc4(n + 1, &tri->i, i[n], &tri->j, i[n] * bs2, &tri->a, diag == GILU_TRI_DIAG_STORED || diag == GILU_TRI_DIAG_INVERSE ? n * bs2 : 0, &tri->dinv));
    PetscCall(PetscArraycpy(tri->i, i, n + 1));
    PetscCall(PetscArraycpy(tri->j, j, i[n]));
    tri->uplo = uplo;
    tri->diag = diag;
    tri->n    = n;
    tri->bs   = bs;
    tri->nz   = i[n];
    PetscCall(GILUTriAnalyze(tri));
  }
  PetscCall(PetscArraycpy(tri->a, a, i[n] * bs2));
  if (diag == GILU_TRI_DIAG_INVERSE) PetscCall(PetscArraycpy(tri->dinv, dinv, n * bs2));
  if (diag == GILU_TRI_DIAG_STORED) /* keep the inverted diagonal blocks: the solve multiplies */
    for (PetscInt r = 0; r < n; r++) {
      const MatScalar *d = tri->a + (uplo == GILU_TRI_LOWER ? i[r + 1] - 1 : i[r]) * bs2;
      PetscScalar      D[GILU_MAX_DOF * GILU_MAX_DOF], Dinv[GILU_MAX_DOF * GILU_MAX_DOF];

      for (PetscInt t = 0; t < bs2; t++) D[t] = d[t];
      PetscCheck(GILUBlockInvert(bs, D, Dinv, 0.0), PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in the diagonal block of row %" PetscInt_FMT " of a triangular factor", r);
      for (PetscInt t = 0; t < bs2; t++) tri->dinv[r * bs2 + t] = (MatScalar)Dinv[t];
    }
  tri->ran = GILU_TRISOLVE_LEVELSET;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference: rows in dependency order, one after the other */
PetscErrorCode GILUTriSolve(GILUTri tri, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt bs = tri->bs, bs2 = bs * bs, n = tri->n;

  PetscFunctionBegin;
  PetscCheck(tri->analyzed, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call GILUTriSetMatrix() before GILUTriSolve()");
  for (PetscInt t = 0; t < n; t++) {
    PetscInt    r = tri->uplo == GILU_TRI_LOWER ? t : n - 1 - t;
    PetscScalar s[GILU_MAX_DOF];

    for (PetscInt c = 0; c < bs; c++) s[c] = b[r * bs + c];
    for (PetscInt k = tri->i[r]; k < tri->i[r + 1]; k++) {
      const MatScalar   *blk = tri->a + k * bs2;
      const PetscScalar *xc  = x + tri->j[k] * bs;

      if (tri->j[k] == r) continue;
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < bs; q++) s[p] -= blk[p * bs + q] * xc[q];
    }
    if (tri->diag == GILU_TRI_DIAG_UNIT) {
      for (PetscInt c = 0; c < bs; c++) x[r * bs + c] = s[c];
    } else {
      const MatScalar *d = tri->dinv + r * bs2;

      for (PetscInt p = 0; p < bs; p++) {
        PetscScalar v = 0;

        for (PetscInt q = 0; q < bs; q++) v += d[p * bs + q] * s[q];
        x[r * bs + p] = v;
      }
    }
  }
  PetscCall(PetscLogFlops(2.0 * tri->nz * bs2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriGetLevels(GILUTri tri, PetscInt *nlevels, PetscInt *maxlevel)
{
  PetscFunctionBegin;
  if (nlevels) *nlevels = tri->nlevels;
  if (maxlevel) *maxlevel = tri->maxlevel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUTriView(GILUTri tri, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s triangular factor: %" PetscInt_FMT " rows, block size %" PetscInt_FMT ", %" PetscInt_FMT " stored blocks, %s diagonal\n", tri->uplo == GILU_TRI_LOWER ? "lower" : "upper", tri->n, tri->bs, tri->nz,
                                   tri->diag == GILU_TRI_DIAG_UNIT ? "unit" : (tri->diag == GILU_TRI_DIAG_STORED ? "stored" : "separate inverted")));
  PetscCall(PetscViewerASCIIPrintf(viewer, "analysis: %" PetscInt_FMT " levels, largest %" PetscInt_FMT " rows; algorithm %s (requested %s)\n", tri->nlevels, tri->maxlevel, GILUTriSolveTypes[tri->ran], GILUTriSolveTypes[tri->type]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
