/*
   MatSolverType "gilu": ILU(k)/ICC(k) of MATSEQAIJ and MATSEQBAIJ with PETSc's symbolic factorization, a
   level-scheduled numeric factorization (AIJ) and the triangular solves of the engine (GILUTri, sptrsv.c).

   Symbolic: PETSc's (a factor of MatSolverType "petsc" kept inside, MatILUFactorSymbolic()), i.e. the fill pattern of
   ILU(k) with the ordering. Its pattern is read from PETSc's storage (PETSc's "new" layout: L's rows first, then U's
   rows from the last to the first, each ending with its inverted diagonal block; BAIJ blocks are column-major) into
   the CSR/BSR of L (unit lower) and U (upper, inverted diagonal apart) in the permuted numbering.

   Numeric (-mat_gilu_factor_numeric gilu, the default, MATSEQAIJ): row-oriented IKJ ILU on that pattern, row i being
   eliminated by the finished rows k < i with l_ik != 0 in increasing k, with PETSc's operations in PETSc's order
   (MatLUFactorNumeric_SeqAIJ: multipliers l_ik = a_ik * (1/u_kk), entries that are exactly zero skipped, the inverted
   pivot stored), so the factors are PETSc's to the bit (up to the sign of zeros where PETSc uses its inode variant) and
   do not depend on the number of threads. The rows are scheduled on the threads of the solves
   (-mat_gilu_trisolve_threads, default OMP_NUM_THREADS) by the dependency DAG of L, analysed once per nonzero pattern:
     chunked  (default) runs of consecutive rows that each read the row before (a grid line of a stencil matrix in
              natural order; 64 to 256 rows, or, where that leaves fewer than 2 chunks per level of the chunk DAG and
              thread, the runs cut at 256, 128, ... 8 rows, else the level sets), ordered by the chunk DAG's levels;
              each thread takes a fixed share of every level (the same stretch of it, so the rows it reads are
              mostly its own and stay in its cache); a chunk waits for the done flags of the chunks it reads, then
              eliminates its rows in order (PETSc's memory access pattern);
     levelset the level sets (wavefronts) of L, the rows of a level split among the threads, a barrier between levels;
   one thread runs the rows in natural order, as PETSc. Zero pivots are handled as PETSc does for the shift types
   none (MatFactorError MAT_FACTOR_NUMERIC_ZEROPIVOT, so KSP says DIVERGED_PC_FAILED) and inblocks; for nonzero and
   positive_definite the rows are checked with PETSc's criterion, and where PETSc would shift (and restart) the
   numeric factorization is PETSc's instead. MATSEQBAIJ with block sizes 2 to 7 is factored the same way by blocks
   (FactorRowBAIJ(), PETSc's bits, written into PETSc's storage and read from there); block sizes 1 and 8, and
   -mat_gilu_factor_numeric petsc, use PETSc's numeric factorization and read the values from its storage. -ksp_view
   says which one ran; -log_view: GILUFactorNum.

   Storage: the factor is stored once after the setup where gilu's numeric factorization of a MATSEQAIJ runs: PETSc's
   symbolic factor (its pattern and values arrays) is dropped before the values are allocated (for ILU(0) in the natural
   ordering even before the patterns are built: they are A's), the engine reads L's and U's values in place (chunked
   plans with column-offset patterns, what auto runs on stencil factors; the other plans keep a reordered copy), and
   the dense work rows live only during a numeric factorization. PETSc's factor is kept (made again from A where it
   was dropped) where PETSc's numeric factorization is used: MATSEQBAIJ (gilu's writes into PETSc's storage), block
   sizes 1 and 8, -mat_gilu_factor_numeric petsc, and a pivot that needs PETSc's shift.

   ICC(k) is done as ILU(k) of the symmetric matrix with the symmetric ordering: the same factors up to rounding
   (L = U^T D^{-1}), the same preconditioner.

   Options (the factor's prefix): -mat_gilu_factor_numeric gilu|petsc, -mat_gilu_factor_schedule chunked|levelset, and
   the engine's -mat_gilu_trisolve, -mat_gilu_trisolve_threads, -mat_gilu_trisolve_block_depth,
   -mat_gilu_trisolve_recblock_reorder, -mat_gilu_trisolve_backend.
*/
#include <petscgilu/private/wait.h>
#include <petsc/private/matimpl.h>
#include <petsc/private/kernels/blockinvert.h> /* PETSc's inversions of small blocks (its BAIJ factorizations') */
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/sptrsv.h>
#include <petscgilu/private/stencil.h>
#include <petscgiluconf.h>
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

typedef enum {
  GILU_FACTOR_NUMERIC_GILU,
  GILU_FACTOR_NUMERIC_PETSC
} GILUFactorNumericType;
static const char *const GILUFactorNumericTypes[] = {"gilu", "petsc", "GILUFactorNumericType", "GILU_FACTOR_NUMERIC_", NULL};

typedef enum {
  GILU_FACTOR_SCHEDULE_CHUNKED,
  GILU_FACTOR_SCHEDULE_LEVELSET
} GILUFactorSchedule;
static const char *const GILUFactorSchedules[] = {"chunked", "levelset", "GILUFactorSchedule", "GILU_FACTOR_SCHEDULE_", NULL};

#define GILU_FACTOR_CHUNK_MIN 64  /* a chunk goes on past a row that does not read the row before it until it has this many rows ... */
#define GILU_FACTOR_CHUNK_MAX 256 /* ... and is cut at this many */
#define GILU_FACTOR_LEVEL_MIN 32  /* chunked falls back to the level sets if they have this many rows per thread on average, else to one thread (a barrier per level costs more than a few rows) */

typedef struct {
  Mat              F;     /* PETSc's factor (MatSolverType petsc, ILU): its symbolic factorization, and its numeric one where gilu's is not used;
                              destroyed once gilu's own numeric factorization of a MATSEQAIJ has run (the factor is then stored once, in the
                              arrays below), made again from A, the orderings and sinfo where PETSc's numeric factorization is needed */
  MatFactorInfo    sinfo; /* the symbolic factorization's info (levels, fill, ...), to make F again */
  MatInfo          finfo; /* F's MatGetInfo() when it was destroyed (what MatGetInfo() of the factor answers without F) */
  PetscBool        hasfinfo;
  MatFactorType    ftype;  /* what the user asked for: ILU or ICC */
  GILUTri          L, U;   /* the factors, in the permuted numbering */
  GILUTri          Lt, Ut; /* L^T (upper) and U^T (lower), built at the first MatSolveTranspose() */
  IS               row, col;
  PetscBool        identity;
  PetscInt         nb, bs;
  PetscScalar     *work;
  GILUTriSolveType type;
  PetscInt         nthreads;
  /* the factors in CSR/BSR */
  PetscInt  *Li, *Lj, *Ui, *Uj; /* where PETSc's factor keeps U's row i diagonal (its off-diagonal entries just before it): UdPos() */
  MatScalar *La, *Ua, *Ud;
  PetscBool  pattern;   /* the CSR patterns above are current */
  PetscInt   patternid; /* counts the patterns read (the engine works on the arrays above in place: it is told when they change) */
  /* the numeric factorization */
  GILUFactorNumericType numeric;   /* asked for */
  GILUFactorSchedule    schedule;  /* asked for */
  GILUFactorSchedule    ranschedule; /* what runs: chunked falls back to levelset where its chunks leave the threads idle */
  PetscBool             ranserial;   /* ... and to one thread where the level sets are small too */
  PetscBool             rangilu;   /* the last numeric factorization was gilu's */
  char                  why[128];  /* else why PETSc's ran */
  PetscInt             *ic;        /* inverse of the column ordering (during a numeric factorization only) */
  PetscBool             analyzed;  /* the schedule below is current (once per pattern) */
  PetscInt              nlevels, *lptr, *lrow; /* the level sets of L: rows lrow[lptr[l] .. lptr[l+1]-1] */
  PetscInt              nchunks, nclevels;    /* chunked: chunks of consecutive rows, levels of the chunk DAG */
  PetscInt             *cptr, *corder;        /* [nchunks+1] first row of each chunk; [nchunks] the chunks by level */
  PetscInt             *clptr;                /* [nclevels+1] chunk level l is corder[clptr[l] .. clptr[l+1]-1] */
  PetscInt             *dptr, *dep;           /* [nchunks+1], [dptr[nchunks]] the chunks each chunk reads */
  unsigned int         *cdone, epoch;         /* cdone[c] == epoch: chunk c is final in this factorization */
  MatScalar            *rtmp;                 /* [nthreads * nb] the dense work rows of the threads (during a numeric factorization only) */
} Mat_GILUFactor;

static PetscErrorCode MatFactorGetSolverType_GILU(Mat A, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERGILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where PETSc's factor (its layout, checked when the patterns are read: L's rows, then U's rows from the last, each its
   off-diagonal entries then its diagonal) keeps U's row i diagonal */
static inline PetscInt UdPos(const Mat_GILUFactor *f, PetscInt i)
{
  return f->Li[f->nb] + f->Ui[f->nb] - f->Ui[i] + f->nb - 1 - i;
}

/* A block of PETSc's BAIJ storage (column-major) as the engine wants it (row-major) */
static inline void CopyBlock(PetscInt bs, const MatScalar *src, MatScalar *dst)
{
  if (bs == 1) dst[0] = src[0];
  else
    for (PetscInt p = 0; p < bs; p++)
      for (PetscInt q = 0; q < bs; q++) dst[p * bs + q] = src[q * bs + p];
}

/* The rows of PETSc's factor: ia[nb+1] (L's rows) and ja, its column indices in PETSc's layout */
static PetscErrorCode FactorGetIJ(Mat F, PetscInt nbexp, PetscBool *baij, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  nb;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQBAIJ, baij));
  if (*baij) {
    PetscCall(MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_TRUE, &nb, ia, ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of PETSc's factor");
    PetscCheck(nb == nbexp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's factor has %" PetscInt_FMT " block rows, expected %" PetscInt_FMT, nb, nbexp);
  } else { /* the factor's MatGetRowIJ() may be the inode one, or none */
    PetscMemType mtype;

    PetscCall(MatSeqAIJGetCSRAndMemType(F, ia, ja, NULL, &mtype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorRestoreIJ(Mat F, PetscBool baij, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  nb;
  PetscBool done;

  PetscFunctionBegin;
  if (baij) PetscCall(MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_TRUE, &nb, ia, ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR/BSR patterns of L and U from PETSc's symbolic factor, and where each entry sits in its storage */
static PetscErrorCode MatGILUFactorGetPattern(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  const PetscInt *ia, *ja, nb = f->nb;
  PetscInt        nzL, nzU = 0, p;
  PetscBool       baij;

  PetscFunctionBegin;
  if (f->pattern) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(f->F, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call MatILUFactorSymbolic() before MatLUFactorNumeric()");
  PetscCall(FactorGetIJ(f->F, nb, &baij, &ia, &ja));
  nzL = ia[nb];
  p   = ia[nb];
  PetscCall(PetscFree2(f->Li, f->Lj));
  PetscCall(PetscFree2(f->Ui, f->Uj));
  PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
  /* U: rows nb-1 down to 0, each its off-diagonal entries (columns > i) then its diagonal (column i) */
  for (PetscInt i = nb - 1; i >= 0; i--) {
    while (ja[p] != i) {
      PetscCheck(ja[p] > i && ja[p] < nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc's factor is not in the layout MatSolverType gilu reads (row %" PetscInt_FMT "): use -pc_factor_mat_solver_type petsc", i);
      p++;
      nzU++;
    }
    p++;
  }
  PetscCall(PetscMalloc2(nb + 1, &f->Li, nzL, &f->Lj));
  PetscCall(PetscMalloc2(nb + 1, &f->Ui, nzU, &f->Uj)); /* the values: MatGILUFactorAllocValues(), once PETSc's factor may be gone */
  for (PetscInt i = 0; i <= nb; i++) f->Li[i] = ia[i];
  PetscCall(PetscArraycpy(f->Lj, ja, nzL)); /* L: PETSc's first nzL entries, in place */
  /* U in increasing row order */
  f->Ui[0] = 0;
  for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] = 0;
  p = ia[nb];
  for (PetscInt i = nb - 1; i >= 0; i--) {
    PetscInt q = p;

    while (ja[q] != i) q++;
    f->Ui[i + 1] = q - p; /* count */
    p            = q + 1;
  }
  for (PetscInt i = 0; i < nb; i++) f->Ui[i + 1] += f->Ui[i];
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt q0 = UdPos(f, i) - (f->Ui[i + 1] - f->Ui[i]);

    for (PetscInt k = f->Ui[i]; k < f->Ui[i + 1]; k++) f->Uj[k] = ja[q0 + k - f->Ui[i]];
  }
  PetscCall(FactorRestoreIJ(f->F, baij, &ia, &ja));
  f->pattern  = PETSC_TRUE;
  f->analyzed = PETSC_FALSE;
  f->patternid++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrays of the values of L and U (their patterns read), allocated after PETSc's factor was dropped where it is */
static PetscErrorCode MatGILUFactorAllocValues(Mat_GILUFactor *f)
{
  const PetscInt bs2 = f->bs * f->bs, nb = f->nb;

  PetscFunctionBegin;
  if (!f->La) PetscCall(PetscMalloc3(f->Li[nb] * bs2, &f->La, f->Ui[nb] * bs2, &f->Ua, nb * bs2, &f->Ud));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of L and U from PETSc's numeric factor */
static PetscErrorCode MatGILUFactorCopyValues(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  const PetscInt  bs = f->bs, bs2 = bs * bs, nb = f->nb;
  MatScalar      *aa;
  PetscBool       baij;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorAllocValues(f));
  PetscCall(PetscObjectTypeCompare((PetscObject)f->F, MATSEQBAIJ, &baij));
  if (baij) PetscCall(MatSeqBAIJGetArray(f->F, &aa));
  else PetscCall(MatSeqAIJGetArray(f->F, &aa));
  for (PetscInt k = 0; k < f->Li[nb]; k++) CopyBlock(bs, aa + k * bs2, f->La + k * bs2);
  for (PetscInt i = 0; i < nb; i++) { /* U's row i: the entries just before its diagonal in PETSc's storage */
    const PetscInt nz = f->Ui[i + 1] - f->Ui[i], q0 = UdPos(f, i) - nz;

    for (PetscInt k = 0; k < nz; k++) CopyBlock(bs, aa + (q0 + k) * bs2, f->Ua + (f->Ui[i] + k) * bs2);
  }
  for (PetscInt i = 0; i < nb; i++) CopyBlock(bs, aa + UdPos(f, i) * bs2, f->Ud + i * bs2);
  if (baij) PetscCall(MatSeqBAIJRestoreArray(f->F, &aa));
  else PetscCall(MatSeqAIJRestoreArray(f->F, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PETSc's factor dropped once gilu's numeric factorization of a MATSEQAIJ is to run: that reads the matrix and the
  patterns above and writes the values above only, so the factor is stored once. What MatGetInfo() says of it is kept.
*/
static PetscErrorCode MatGILUFactorDropPETSc(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  if (!f->F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetInfo(f->F, MAT_LOCAL, &f->finfo));
  f->hasfinfo = PETSC_TRUE;
  PetscCall(MatDestroy(&f->F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PETSc's factor made again where its numeric factorization runs after it was dropped (a pivot that needs PETSc's shift):
  PETSc's symbolic factorization of A with the orderings and the info of the last symbolic one, which must give the
  pattern read then (A's nonzero pattern unchanged, as MatLUFactorNumeric() requires)
*/
static PetscErrorCode MatGILUFactorMakePETSc(Mat_GILUFactor *f, Mat A)
{
  const PetscInt *ia, *ja;
  PetscBool       baij, same;

  PetscFunctionBegin;
  if (f->F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &f->F));
  PetscCall(MatILUFactorSymbolic(f->F, A, f->row, f->col, &f->sinfo));
  PetscCall(FactorGetIJ(f->F, f->nb, &baij, &ia, &ja));
  same = (PetscBool)(ia[f->nb] == f->Li[f->nb]);
  for (PetscInt i = 0; i < f->nb && same; i++) same = (PetscBool)(ja[UdPos(f, i)] == i);
  PetscCall(FactorRestoreIJ(f->F, baij, &ia, &ja));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of the matrix changed since the symbolic factorization: call MatILUFactorSymbolic() again (or use DIFFERENT_NONZERO_PATTERN)");
  f->hasfinfo = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ILU(0) of a MATSEQAIJ in the natural ordering, about to be factored by gilu's numeric factorization: PETSc's symbolic
  factor has A's pattern (MatILUFactorSymbolic_SeqAIJ_ilu0() copies it, L's row i the entries before the diagonal, U's
  the entries after it; the diagonal was checked there), so it is dropped first (its entry counts checked against A's)
  and the patterns are read from A: the factor's pattern is never stored twice, not even during the setup.
  Where this does not apply, or the counts differ, the patterns are read from PETSc's factor (MatGILUFactorGetPattern()).
*/
static PetscErrorCode MatGILUFactorGetPatternILU0(Mat B, Mat A)
{
  Mat_GILUFactor *f   = (Mat_GILUFactor *)B->data;
  const PetscInt  nb  = f->nb, *ai, *aj, *fi, *fj;
  PetscInt        nzL = 0, nzU = 0;
  PetscMemType    mtype;
  PetscBool       baij;
  MatInfo         finfo;

  PetscFunctionBegin;
  if (f->pattern || !f->F || f->bs != 1 || !f->identity || (PetscInt)f->sinfo.levels != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, NULL, &mtype));
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      nzL += aj[k] < i;
      nzU += aj[k] > i;
    }
  PetscCall(FactorGetIJ(f->F, nb, &baij, &fi, &fj));
  PetscCall(MatGetInfo(f->F, MAT_LOCAL, &finfo));
  if (baij || fi[nb] != nzL || (PetscInt)finfo.nz_used != nzL + nzU + nb) { /* not the pattern of A: read PETSc's */
    PetscCall(FactorRestoreIJ(f->F, baij, &fi, &fj));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FactorRestoreIJ(f->F, baij, &fi, &fj));
  PetscCall(MatGILUFactorDropPETSc(f));
  PetscCall(PetscFree2(f->Li, f->Lj));
  PetscCall(PetscFree2(f->Ui, f->Uj));
  PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
  PetscCall(PetscMalloc2(nb + 1, &f->Li, nzL, &f->Lj));
  PetscCall(PetscMalloc2(nb + 1, &f->Ui, nzU, &f->Uj));
  f->Li[0] = f->Ui[0] = 0;
  for (PetscInt i = 0, p = 0, q = 0; i < nb; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      if (aj[k] < i) f->Lj[p++] = aj[k];
      else if (aj[k] > i) f->Uj[q++] = aj[k];
    }
    f->Li[i + 1] = p;
    f->Ui[i + 1] = q;
  }
  f->pattern  = PETSC_TRUE;
  f->analyzed = PETSC_FALSE;
  f->patternid++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Hands the factors to the engine, which works on f's arrays in place (its analysis kept while the pattern is the same) */
static PetscErrorCode MatGILUFactorSetTri(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(GILUTriSetMatrixWithArrays(f->L, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, f->nb, f->bs, f->Li, f->Lj, f->La, NULL, f->patternid));
  PetscCall(GILUTriSetMatrixWithArrays(f->U, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, f->nb, f->bs, f->Ui, f->Uj, f->Ua, f->Ud, f->patternid));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorScheduleDestroy(Mat_GILUFactor *f)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(f->lptr, f->lrow));
  PetscCall(PetscFree4(f->cptr, f->corder, f->dptr, f->cdone));
  PetscCall(PetscFree(f->dep));
  PetscCall(PetscFree(f->clptr));
  f->nlevels  = 0;
  f->nchunks  = 0;
  f->nclevels = 0;
  f->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Chunked schedule: chunks of consecutive rows, a new one where a row does not read the row before it once the chunk has
  cmin rows, or at cmax rows; the chunks each chunk reads (earlier ones, since L's columns come before its
  rows), the levels of the chunk DAG and the order (by chunk level, then by row). A chunk waits only on chunks of lower
  levels, and every thread runs its shares level by level, so the threads cannot deadlock: the lowest level with an
  unfinished chunk waits on finished chunks only.
*/
static PetscErrorCode MatGILUFactorChunks(Mat_GILUFactor *f, PetscInt cmin, PetscInt cmax)
{
  const PetscInt nb = f->nb, *Li = f->Li, *Lj = f->Lj;
  PetscInt      *cof, *mark, *clev, nc = 0, nd = 0;

  PetscFunctionBegin;
  PetscCall(PetscFree4(f->cptr, f->corder, f->dptr, f->cdone));
  PetscCall(PetscFree(f->dep));
  PetscCall(PetscFree(f->clptr));
  PetscCall(PetscMalloc4(nb + 1, &f->cptr, nb, &f->corder, nb + 1, &f->dptr, nb, &f->cdone));
  PetscCall(PetscMalloc3(nb, &cof, nb, &mark, nb + 1, &clev));
  f->cptr[0] = 0;
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt  len      = i - f->cptr[nc];
    PetscBool readprev = (PetscBool)(Li[i + 1] > Li[i] && Lj[Li[i + 1] - 1] == i - 1);

    if (i > 0 && (len >= cmax || (!readprev && len >= cmin))) f->cptr[++nc] = i;
    cof[i] = nc;
  }
  f->cptr[++nc] = nb;
  f->nchunks    = nc;
  for (PetscInt c = 0; c < nc; c++) mark[c] = -1;
  f->dptr[0] = 0;
  for (PetscInt c = 0; c < nc; c++) {
    for (PetscInt i = f->cptr[c]; i < f->cptr[c + 1]; i++)
      for (PetscInt k = Li[i]; k < Li[i + 1]; k++) {
        PetscInt d = cof[Lj[k]];

        if (d != c && mark[d] != c) {
          mark[d] = c;
          nd++;
        }
      }
    f->dptr[c + 1] = nd;
  }
  PetscCall(PetscMalloc1(nd, &f->dep));
  for (PetscInt c = 0; c < nc; c++) mark[c] = -1;
  f->nclevels = 0;
  for (PetscInt c = 0, q = 0; c < nc; c++) {
    PetscInt l = 0;

    for (PetscInt i = f->cptr[c]; i < f->cptr[c + 1]; i++)
      for (PetscInt k = Li[i]; k < Li[i + 1]; k++) {
        PetscInt d = cof[Lj[k]];

        if (d != c && mark[d] != c) {
          mark[d]     = c;
          f->dep[q++] = d;
          l           = PetscMax(l, clev[d] + 1);
        }
      }
    clev[c]     = l;
    f->nclevels = PetscMax(f->nclevels, l + 1);
  }
  PetscCall(PetscArrayzero(mark, f->nclevels + 1));
  for (PetscInt c = 0; c < nc; c++) mark[clev[c] + 1]++;
  for (PetscInt l = 0; l < f->nclevels; l++) mark[l + 1] += mark[l];
  PetscCall(PetscMalloc1(f->nclevels + 1, &f->clptr));
  PetscCall(PetscArraycpy(f->clptr, mark, f->nclevels + 1));
  for (PetscInt c = 0; c < nc; c++) f->corder[mark[clev[c]]++] = c;
  PetscCall(PetscArrayzero(f->cdone, nc));
  f->epoch = 0;
  PetscCall(PetscFree3(cof, mark, clev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The schedule of the numeric factorization, from L's pattern (once per pattern): row i reads the finished rows j of its
  L entries (j < i). The level sets (level of i: 1 + the largest level of those rows), and for chunked the chunks of
  consecutive rows, the chunks each reads and their order (by level of the chunk DAG, then by row).
*/
static PetscErrorCode MatGILUFactorAnalyze(Mat_GILUFactor *f)
{
  const PetscInt  nb = f->nb, *Li = f->Li, *Lj = f->Lj;
  PetscInt       *level, *cnt;

  PetscFunctionBegin;
  if (f->analyzed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(PetscMalloc1(nb, &level));
  f->nlevels = 0;
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt l = 0;

    for (PetscInt k = Li[i]; k < Li[i + 1]; k++) l = PetscMax(l, level[Lj[k]] + 1);
    level[i]   = l;
    f->nlevels = PetscMax(f->nlevels, l + 1);
  }
  PetscCall(PetscMalloc2(f->nlevels + 1, &f->lptr, nb, &f->lrow));
  PetscCall(PetscArrayzero(f->lptr, f->nlevels + 1));
  for (PetscInt i = 0; i < nb; i++) f->lptr[level[i] + 1]++;
  for (PetscInt l = 0; l < f->nlevels; l++) f->lptr[l + 1] += f->lptr[l];
  PetscCall(PetscMalloc1(f->nlevels + 1, &cnt));
  PetscCall(PetscArraycpy(cnt, f->lptr, f->nlevels + 1));
  for (PetscInt i = 0; i < nb; i++) f->lrow[cnt[level[i]]++] = i;
  PetscCall(PetscFree(cnt));
  f->ranschedule = f->schedule;
  f->ranserial   = PETSC_FALSE;
  if (f->schedule == GILU_FACTOR_SCHEDULE_CHUNKED && f->nthreads > 1 && nb > 0) {
    /*
      Runs of GILU_FACTOR_CHUNK_MIN to GILU_FACTOR_CHUNK_MAX rows; where that leaves fewer than 2 chunks per level and thread,
      the runs as they are, cut at CHUNK_MAX, CHUNK_MAX/2, ... 8 rows (a 2D grid line in pieces pipelines along the line);
      failing that (or where cutting changes few chunks: general sparse factors), the level sets, or one thread where
      those are small
    */
    PetscInt cmax = GILU_FACTOR_CHUNK_MAX;

    PetscCall(MatGILUFactorChunks(f, GILU_FACTOR_CHUNK_MIN, cmax));
    while (f->nchunks < 2 * f->nthreads * f->nclevels && cmax >= 8) {
      PetscCall(MatGILUFactorChunks(f, 0, cmax));
      if (nb <= f->nchunks * (cmax / 2)) break; /* cutting at cmax/2 would change few chunks */
      cmax /= 2;
    }
    if (f->nchunks < 2 * f->nthreads * f->nclevels) {
      f->ranschedule = GILU_FACTOR_SCHEDULE_LEVELSET;
      f->ranserial   = (PetscBool)(nb < GILU_FACTOR_LEVEL_MIN * f->nthreads * f->nlevels);
    }
  }
  PetscCall(PetscFree(level));
  f->analyzed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What one thread found about the pivots, and its flops */
typedef struct {
  PetscInt       zrow, zfirst; /* the last and the first row with a zero pivot (-1: none) */
  PetscReal      zval, zfval;  /* |pivot| there */
  PetscInt       nshift;       /* inblocks: pivots shifted */
  PetscBool      needshift;    /* nonzero, positive_definite: PETSc would have shifted */
  PetscLogDouble flops;
} PivotInfo;

/*
  Row i of the factors, as PETSc's MatLUFactorNumeric_SeqAIJ computes it: the row of A (row r[i], columns ic[.]) in the
  dense work row, eliminated by the finished rows of its L entries in increasing order (an entry that is exactly zero
  is skipped), stored, and the pivot checked and inverted. Reads only rows of L's columns, which must be final.
*/
static inline void FactorRow(const Mat_GILUFactor *f, PetscInt i, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const PetscInt *r, const PetscInt *ic, PetscInt shifttype, PetscReal zeropivot, PetscReal shiftamount, MatScalar *PETSC_RESTRICT rtmp, PivotInfo *pi)
{
  const PetscInt *PETSC_RESTRICT Li = f->Li, *PETSC_RESTRICT Lj = f->Lj, *PETSC_RESTRICT Ui = f->Ui, *PETSC_RESTRICT Uj = f->Uj;
  MatScalar *PETSC_RESTRICT      La = f->La, *PETSC_RESTRICT Ua = f->Ua, *PETSC_RESTRICT Ud = f->Ud, pv;
  const PetscInt                 row = r[i], l0 = Li[i], l1 = Li[i + 1], u0 = Ui[i], u1 = Ui[i + 1];
  PetscReal                      rs  = 0.0;
  PetscInt                       nel = 0, nup = 0;

  for (PetscInt k = l0; k < l1; k++) rtmp[Lj[k]] = 0.0;
  for (PetscInt k = u0; k < u1; k++) rtmp[Uj[k]] = 0.0;
  rtmp[i] = 0.0;
  for (PetscInt k = ai[row]; k < ai[row + 1]; k++) rtmp[ic[aj[k]]] = aa[k];
  rtmp[i] += 0.0; /* PETSc adds its shift amount, zero on this pass */
  for (PetscInt k = l0; k < l1; k++) {
    const PetscInt c = Lj[k];

    if (rtmp[c] != 0.0) {
      const MatScalar m = rtmp[c] * Ud[c];
      const PetscInt  q0 = Ui[c], q1 = Ui[c + 1];

      rtmp[c] = m;
      for (PetscInt q = q0; q < q1; q++) rtmp[Uj[q]] -= m * Ua[q];
      nel++;
      nup += q1 - q0;
    }
  }
  for (PetscInt k = l0; k < l1; k++) {
    const MatScalar v = rtmp[Lj[k]];

    La[k] = v;
    rs += PetscAbsScalar(v);
  }
  for (PetscInt k = u0; k < u1; k++) {
    const MatScalar v = rtmp[Uj[k]];

    Ua[k] = v;
    rs += PetscAbsScalar(v);
  }
  pi->flops += nel + 2 * nup;
  pv = rtmp[i];
  switch (shifttype) { /* MatPivotCheck() */
  case MAT_SHIFT_NONZERO:
    if (PetscAbsScalar(pv) <= zeropivot * rs && !PetscIsNanScalar(pv)) pi->needshift = PETSC_TRUE;
    break;
  case MAT_SHIFT_POSITIVE_DEFINITE:
    if (PetscRealPart(pv) <= zeropivot * rs && !PetscIsNanScalar(pv)) pi->needshift = PETSC_TRUE;
    break;
  case MAT_SHIFT_INBLOCKS:
    if (PetscAbsScalar(pv) <= zeropivot && !PetscIsNanScalar(pv)) {
      pv += shiftamount;
      pi->nshift++;
    }
    break;
  default:
    if (PetscAbsScalar(pv) <= zeropivot && !PetscIsNanScalar(pv)) {
      if (pi->zfirst < 0 || i < pi->zfirst) {
        pi->zfirst = i;
        pi->zfval  = PetscAbsScalar(pv);
      }
      if (i > pi->zrow) {
        pi->zrow = i;
        pi->zval = PetscAbsScalar(pv);
      }
    }
  }
  Ud[i] = 1.0 / pv;
}

/*
  MATSEQBAIJ, block sizes 2 to 7: row i as PETSc's MatLUFactorNumeric_SeqBAIJ_<bs>[_NaturalOrdering] computes it, in
  PETSc's storage (fa: the values of PETSc's factor, column-major blocks; L's rows first, U's row i off-diagonal blocks
  just before its diagonal block at UdPos(f, i), which is stored inverted). A block of the work row that is exactly zero is
  skipped; a multiplier is the block times the inverted pivot block, and each U block is updated by A -= B C with the
  product summed first, in PETSc's order of operations (its kernels A_gets_A_times_B_<bs> and
  A_gets_A_minus_B_times_C_<bs>); the pivot block is inverted by PETSc's own PetscKernel_A_gets_inverse_A_<bs>() with
  PETSc's shift argument (block size 4: zero unless the shift type is inblocks). So the factors are PETSc's bits.
*/
static inline void BlockTimesRight(PetscInt bs, MatScalar *PETSC_RESTRICT A, const MatScalar *PETSC_RESTRICT B)
{
  MatScalar W[GILU_MAX_DOF * GILU_MAX_DOF];

  for (PetscInt q = 0; q < bs * bs; q++) W[q] = A[q];
  for (PetscInt j = 0; j < bs; j++)
    for (PetscInt i = 0; i < bs; i++) {
      MatScalar t = W[i] * B[bs * j];

      for (PetscInt k = 1; k < bs; k++) t += W[i + bs * k] * B[k + bs * j];
      A[i + bs * j] = t;
    }
}

static inline void BlockMinusProduct(PetscInt bs, MatScalar *PETSC_RESTRICT A, const MatScalar *PETSC_RESTRICT B, const MatScalar *PETSC_RESTRICT C)
{
  for (PetscInt j = 0; j < bs; j++)
    for (PetscInt i = 0; i < bs; i++) {
      MatScalar t = B[i] * C[bs * j];

      for (PetscInt k = 1; k < bs; k++) t += B[i + bs * k] * C[k + bs * j];
      A[i + bs * j] -= t;
    }
}

static inline PetscErrorCode BlockInvert(PetscInt bs, MatScalar *v, PetscReal shift, PetscBool *zero)
{
  PetscInt  ipvt[5];
  MatScalar work[25];

  switch (bs) {
  case 2:
    return PetscKernel_A_gets_inverse_A_2(v, shift, PETSC_TRUE, zero);
  case 3:
    return PetscKernel_A_gets_inverse_A_3(v, shift, PETSC_TRUE, zero);
  case 4:
    return PetscKernel_A_gets_inverse_A_4(v, shift, PETSC_TRUE, zero);
  case 5:
    return PetscKernel_A_gets_inverse_A_5(v, ipvt, work, shift, PETSC_TRUE, zero);
  case 6:
    return PetscKernel_A_gets_inverse_A_6(v, shift, PETSC_TRUE, zero);
  case 7:
    return PetscKernel_A_gets_inverse_A_7(v, shift, PETSC_TRUE, zero);
  default:
    return PETSC_ERR_SUP;
  }
}

static inline void FactorRowBAIJ(const Mat_GILUFactor *f, PetscInt i, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const PetscInt *r, const PetscInt *ic, PetscReal shift, MatScalar *PETSC_RESTRICT fa, MatScalar *PETSC_RESTRICT rtmp, PivotInfo *pi)
{
  const PetscInt bs = f->bs, bs2 = bs * bs, row = r[i], l0 = f->Li[i], l1 = f->Li[i + 1], u0 = f->Ui[i], u1 = f->Ui[i + 1];
  const PetscInt *Lj = f->Lj, *Ui = f->Ui, *Uj = f->Uj;
  MatScalar      *pv;
  PetscBool       zero = PETSC_FALSE;

  for (PetscInt k = l0; k < l1; k++) memset(rtmp + bs2 * Lj[k], 0, bs2 * sizeof(MatScalar));
  for (PetscInt k = u0; k < u1; k++) memset(rtmp + bs2 * Uj[k], 0, bs2 * sizeof(MatScalar));
  memset(rtmp + bs2 * i, 0, bs2 * sizeof(MatScalar));
  for (PetscInt k = ai[row]; k < ai[row + 1]; k++) memcpy(rtmp + bs2 * ic[aj[k]], aa + bs2 * k, bs2 * sizeof(MatScalar));
  for (PetscInt k = l0; k < l1; k++) {
    const PetscInt c = Lj[k];
    MatScalar     *pc = rtmp + bs2 * c;
    PetscBool      nz = PETSC_FALSE;

    for (PetscInt q = 0; q < bs2 && !nz; q++) nz = (PetscBool)(pc[q] != (MatScalar)0.0);
    if (nz) {
      const PetscInt  q0 = Ui[c], q1 = Ui[c + 1];
      const MatScalar *uv = fa + bs2 * (UdPos(f, c) - (q1 - q0));

      BlockTimesRight(bs, pc, fa + bs2 * UdPos(f, c));
      for (PetscInt q = q0; q < q1; q++) BlockMinusProduct(bs, rtmp + bs2 * Uj[q], pc, uv + bs2 * (q - q0));
      pi->flops += 2.0 * bs2 * bs * (q1 - q0 + 1) - bs2;
    }
  }
  for (PetscInt k = l0; k < l1; k++) memcpy(fa + bs2 * k, rtmp + bs2 * Lj[k], bs2 * sizeof(MatScalar));
  pv = fa + bs2 * UdPos(f, i);
  memcpy(pv, rtmp + bs2 * i, bs2 * sizeof(MatScalar));
  if (BlockInvert(bs, pv, shift, &zero) || zero) {
    if (pi->zfirst < 0 || i < pi->zfirst) pi->zfirst = i;
    if (i > pi->zrow) pi->zrow = i;
  }
  pi->flops += 1.333333333333 * bs2 * bs;
  for (PetscInt k = u0; k < u1; k++) memcpy(fa + bs2 * (UdPos(f, i) - (u1 - k)), rtmp + bs2 * Uj[k], bs2 * sizeof(MatScalar));
}

/*
  gilu's numeric ILU of a MATSEQAIJ on PETSc's pattern. *needshift: a pivot would have made PETSc shift (shift types
  nonzero, positive_definite), so the caller runs PETSc's numeric factorization instead.
*/
static PetscErrorCode MatGILUFactorNumeric_Seq(Mat B, Mat A, const MatFactorInfo *info, PetscBool *needshift)
{
  Mat_GILUFactor    *f  = (Mat_GILUFactor *)B->data;
  const PetscInt     nb = f->nb, bs2 = f->bs * f->bs;
  const PetscInt    *ai, *aj, *r;
  const MatScalar   *aa;
  MatScalar         *fa = NULL, *aab = NULL;
  PetscMemType       mtype;
  PivotInfo         *pinfo, all;
  PetscInt           nt, shifttype = (PetscInt)info->shifttype, nbA;
  const PetscReal    zeropivot = info->zeropivot, shiftamount = info->shiftamount;
  const PetscReal    bshift    = f->bs == 4 && shifttype == MAT_SHIFT_NONE ? 0.0 : shiftamount; /* what PETSc's BAIJ kernels pass */
  const PetscInt    *ic;
  const PetscBool    baij = (PetscBool)(f->bs > 1);
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorAnalyze(f));
  nt = f->nthreads;
  PetscCall(PetscMalloc1((size_t)nt * nb * bs2, &f->rtmp)); /* only entries of a row's pattern are read, after being zeroed */
  PetscCall(PetscMalloc1(nb, &f->ic));                      /* the inverse column ordering, also during the factorization only */
  {
    const PetscInt *c;

    PetscCall(ISGetIndices(f->col, &c));
    for (PetscInt i = 0; i < nb; i++) f->ic[c[i]] = i;
    PetscCall(ISRestoreIndices(f->col, &c));
  }
  ic = f->ic;
  if (baij) {
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nbA, &ai, &aj, &done));
    PetscCheck(done && nbA == nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the block rows of the matrix");
    PetscCall(MatSeqBAIJGetArray(A, &aab));
    aa = aab;
    PetscCall(MatSeqBAIJGetArray(f->F, &fa));
  } else {
    PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, NULL, &mtype));
    PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  }
#define GILU_FACTOR_ROW(i, rt, pi) \
  do { \
    if (baij) FactorRowBAIJ(f, i, ai, aj, aa, r, ic, bshift, fa, rt, pi); \
    else FactorRow(f, i, ai, aj, aa, r, ic, shifttype, zeropivot, shiftamount, rt, pi); \
  } while (0)
  PetscCall(ISGetIndices(f->row, &r));
  PetscCall(PetscMalloc1(nt, &pinfo));
  for (PetscInt t = 0; t < nt; t++) {
    pinfo[t].zrow = pinfo[t].zfirst = -1;
    pinfo[t].zval = pinfo[t].zfval = 0.0;
    pinfo[t].nshift                = 0;
    pinfo[t].needshift             = PETSC_FALSE;
    pinfo[t].flops                 = 0;
  }
  if (nt == 1 || nb == 0 || f->ranserial) {
    PivotInfo pi = pinfo[0];

    for (PetscInt i = 0; i < nb; i++) GILU_FACTOR_ROW(i, f->rtmp, &pi);
    pinfo[0] = pi;
  } else {
    const PetscBool chunked = (PetscBool)(f->ranschedule == GILU_FACTOR_SCHEDULE_CHUNKED);

    if (chunked) {
      if (++f->epoch == 0) { /* the flags wrapped around */
        PetscCall(PetscArrayzero(f->cdone, f->nchunks));
        f->epoch = 1;
      }
    }
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel num_threads((int)nt)
#endif
    {
#if defined(PETSCGILU_HAVE_OPENMP)
      const int tid = omp_get_thread_num();
#else
      const int tid = 0;
#endif
      MatScalar   *rtmp  = f->rtmp + (size_t)tid * nb * bs2;
      unsigned int epoch = f->epoch;
      PivotInfo    pi    = pinfo[tid]; /* a copy: no false sharing */

      if (chunked) { /* each thread takes a fixed share of every chunk level (the rows it reads are mostly its own); a chunk waits on the chunks it reads, then factors its rows in order */
        for (PetscInt l = 0; l < f->nclevels; l++) {
          const PetscInt c0 = f->clptr[l], len = f->clptr[l + 1] - c0;

          for (PetscInt k = c0 + (len * tid) / nt; k < c0 + (len * (tid + 1)) / nt; k++) {
            const PetscInt c = f->corder[k];

            for (PetscInt d = f->dptr[c]; d < f->dptr[c + 1]; d++) GILUWaitUInt(&f->cdone[f->dep[d]], epoch);
            for (PetscInt i = f->cptr[c]; i < f->cptr[c + 1]; i++) GILU_FACTOR_ROW(i, rtmp, &pi);
            __atomic_store_n(&f->cdone[c], epoch, __ATOMIC_RELEASE);
          }
        }
      } else { /* level sets of L, a barrier between levels (every thread takes this branch) */
        for (PetscInt l = 0; l < f->nlevels; l++) {
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp for schedule(static)
#endif
          for (PetscInt s = f->lptr[l]; s < f->lptr[l + 1]; s++) GILU_FACTOR_ROW(f->lrow[s], rtmp, &pi);
        }
      }
      pinfo[tid] = pi;
    }
  }
  all = pinfo[0];
  for (PetscInt t = 1; t < nt; t++) {
    if (pinfo[t].zrow > all.zrow) {
      all.zrow = pinfo[t].zrow;
      all.zval = pinfo[t].zval;
    }
    if (pinfo[t].zfirst >= 0 && (all.zfirst < 0 || pinfo[t].zfirst < all.zfirst)) {
      all.zfirst = pinfo[t].zfirst;
      all.zfval  = pinfo[t].zfval;
    }
    all.nshift += pinfo[t].nshift;
    all.flops += pinfo[t].flops;
    all.needshift = (PetscBool)(all.needshift || pinfo[t].needshift);
  }
  PetscCall(PetscFree(pinfo));
#undef GILU_FACTOR_ROW
  PetscCall(ISRestoreIndices(f->row, &r));
  if (baij) {
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nbA, &ai, &aj, &done));
    PetscCall(MatSeqBAIJRestoreArray(A, &aab));
    PetscCall(MatSeqBAIJRestoreArray(f->F, &fa));
  } else PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(PetscFree(f->rtmp));
  PetscCall(PetscFree(f->ic));
  *needshift = all.needshift;
  /* MatPivotCheck_none(): PETSc errors at the first zero pivot if asked to, else records them and goes on (the last one stays) */
  B->factorerrortype = MAT_FACTOR_NOERROR;
  if (all.zrow >= 0) {
    PetscCheck(!A->erroriffailure || baij, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot row %" PetscInt_FMT " value %g tolerance %g", all.zfirst, (double)all.zfval, (double)zeropivot);
    PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in the diagonal block of block row %" PetscInt_FMT, all.zfirst);
    PetscCall(PetscInfo(A, "Detected zero pivot in factorization in row %" PetscInt_FMT " value %g tolerance %g\n", all.zrow, (double)all.zval, (double)zeropivot));
    B->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    B->factorerror_zeropivot_value = all.zval;
    B->factorerror_zeropivot_row   = all.zrow;
  }
  if (all.nshift) PetscCall(PetscInfo(A, "number of shift_inblocks applied %" PetscInt_FMT ", each shift_amount %g\n", all.nshift, (double)shiftamount));
  PetscCall(PetscLogFlops(all.flops + nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x[c[i]] = U^{-1} L^{-1} b[r[i]] (block rows), as PETSc's MatSolve_SeqAIJ/SeqBAIJ */
static PetscErrorCode MatSolve_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f  = (Mat_GILUFactor *)B->data;
  const PetscInt     bs = f->bs;
  const PetscScalar *barr;
  PetscScalar       *xarr;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  if (f->identity) {
    PetscCall(GILUTriSolve(f->L, barr, xarr));
    PetscCall(GILUTriSolve(f->U, xarr, xarr));
  } else {
    const PetscInt *r, *c;

    PetscCall(ISGetIndices(f->row, &r));
    PetscCall(ISGetIndices(f->col, &c));
    for (PetscInt i = 0; i < f->nb; i++)
      for (PetscInt p = 0; p < bs; p++) f->work[i * bs + p] = barr[r[i] * bs + p];
    PetscCall(GILUTriSolve(f->L, f->work, f->work));
    PetscCall(GILUTriSolve(f->U, f->work, f->work));
    for (PetscInt i = 0; i < f->nb; i++)
      for (PetscInt p = 0; p < bs; p++) xarr[c[i] * bs + p] = f->work[i * bs + p];
    PetscCall(ISRestoreIndices(f->row, &r));
    PetscCall(ISRestoreIndices(f->col, &c));
  }
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveAdd_GILU(Mat B, Vec b, Vec y, Vec x)
{
  Vec t;

  PetscFunctionBegin;
  if (x == y) {
    PetscCall(VecDuplicate(x, &t));
    PetscCall(MatSolve_GILU(B, b, t));
    PetscCall(VecAXPY(x, 1.0, t));
    PetscCall(VecDestroy(&t));
  } else {
    PetscCall(MatSolve_GILU(B, b, x));
    PetscCall(VecAXPY(x, 1.0, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T^T of a CSR/BSR triangle given as to GILUTriSetMatrix() (the engine's GILUTriSetMatrixTranspose()), with the factor's algorithm */
static PetscErrorCode TransposeTri(GILUTri *T, GILUTriUplo uplo, GILUTriDiag diag, PetscInt nb, PetscInt bs, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const MatScalar *d, GILUTriSolveType type, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscCall(GILUTriCreate(T));
  PetscCall(GILUTriSetType(*T, type));
  PetscCall(GILUTriSetThreads(*T, nthreads));
  PetscCall(GILUTriSetMatrixTranspose(*T, uplo, diag, nb, bs, ai, aj, aa, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^{-T} = R^T L^{-T} U^{-T} C: x[r[i]] = (L^{-T} U^{-T} b[c[.]])_i */
static PetscErrorCode MatSolveTranspose_GILU(Mat B, Vec b, Vec x)
{
  Mat_GILUFactor    *f  = (Mat_GILUFactor *)B->data;
  const PetscInt     bs = f->bs;
  const PetscScalar *barr;
  PetscScalar       *xarr;
  const PetscInt    *r, *c;

  PetscFunctionBegin;
  if (!f->Ut) PetscCall(TransposeTri(&f->Ut, GILU_TRI_UPPER, GILU_TRI_DIAG_INVERSE, f->nb, bs, f->Ui, f->Uj, f->Ua, f->Ud, f->type, f->nthreads));
  if (!f->Lt) PetscCall(TransposeTri(&f->Lt, GILU_TRI_LOWER, GILU_TRI_DIAG_UNIT, f->nb, bs, f->Li, f->Lj, f->La, NULL, f->type, f->nthreads));
  PetscCall(VecGetArrayRead(b, &barr));
  PetscCall(VecGetArrayWrite(x, &xarr));
  PetscCall(ISGetIndices(f->row, &r));
  PetscCall(ISGetIndices(f->col, &c));
  for (PetscInt i = 0; i < f->nb; i++)
    for (PetscInt p = 0; p < bs; p++) f->work[i * bs + p] = barr[c[i] * bs + p];
  PetscCall(GILUTriSolve(f->Ut, f->work, f->work));
  PetscCall(GILUTriSolve(f->Lt, f->work, f->work));
  for (PetscInt i = 0; i < f->nb; i++)
    for (PetscInt p = 0; p < bs; p++) xarr[r[i] * bs + p] = f->work[i * bs + p];
  PetscCall(ISRestoreIndices(f->row, &r));
  PetscCall(ISRestoreIndices(f->col, &c));
  PetscCall(VecRestoreArrayRead(b, &barr));
  PetscCall(VecRestoreArrayWrite(x, &xarr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscBool       aij, needshift = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
  if (f->ftype == MAT_FACTOR_ICC) { /* PETSc's ICC reads the upper triangle only; ILU of A is the same preconditioner only for a symmetric A */
    PetscBool sym;
    Mat       Aij;

    if (aij) PetscCall(MatIsSymmetric(A, 0.0, &sym));
    else {
      PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Aij));
      PetscCall(MatIsSymmetric(Aij, 0.0, &sym));
      PetscCall(MatDestroy(&Aij));
    }
    PetscCheck(sym, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu computes ICC(k) as ILU(k) and needs a symmetric matrix, but this one is not (PETSc's ICC uses its upper triangle only): use -pc_type ilu, or -pc_factor_mat_solver_type petsc");
  }
  if (aij && f->numeric == GILU_FACTOR_NUMERIC_GILU) PetscCall(MatGILUFactorGetPatternILU0(B, A));
  PetscCall(MatGILUFactorGetPattern(B));
  f->rangilu = PETSC_FALSE;
  if (f->numeric == GILU_FACTOR_NUMERIC_PETSC) PetscCall(PetscStrncpy(f->why, "-mat_gilu_factor_numeric petsc was given", sizeof(f->why)));
  else if (!aij && (f->bs < 2 || f->bs > 7)) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "the MATSEQBAIJ matrix has block size %" PetscInt_FMT " (gilu's covers block sizes 2 to 7)", f->bs));
  else {
    if (aij) PetscCall(MatGILUFactorDropPETSc(f)); /* before the values are allocated: the factor is never stored twice */
    PetscCall(MatGILUFactorAllocValues(f));
    PetscCall(PetscLogEventBegin(GILU_FactorNumeric, A, B, 0, 0));
    PetscCall(MatGILUFactorNumeric_Seq(B, A, info, &needshift));
    if (!aij && !B->factorerrortype) PetscCall(MatGILUFactorCopyValues(B)); /* written in PETSc's storage, read from there */
    PetscCall(PetscLogEventEnd(GILU_FactorNumeric, A, B, 0, 0));
    if (needshift) PetscCall(PetscSNPrintf(f->why, sizeof(f->why), "a pivot needs the shift of shift type %s (PETSc restarts with it)", MatFactorShiftTypes[(PetscInt)info->shifttype]));
    else f->rangilu = PETSC_TRUE;
  }
  if (!f->rangilu) { /* PETSc's numeric factorization: its factor (made again if it was dropped) is kept for the next one */
    PetscCall(MatGILUFactorMakePETSc(f, A));
    PetscCall(MatLUFactorNumeric(f->F, A, info));
    B->factorerrortype             = f->F->factorerrortype;
    B->factorerror_zeropivot_value = f->F->factorerror_zeropivot_value;
    B->factorerror_zeropivot_row   = f->F->factorerror_zeropivot_row;
    if (!B->factorerrortype) PetscCall(MatGILUFactorCopyValues(B));
  }
  if (!B->factorerrortype) PetscCall(MatGILUFactorSetTri(B));
  B->ops->solve          = MatSolve_GILU;
  B->ops->solveadd       = MatSolveAdd_GILU;
  B->ops->solvetranspose = MatSolveTranspose_GILU;
  B->assembled           = PETSC_TRUE;
  B->preallocated        = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_GILU(Mat B, Mat A, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatLUFactorNumeric_GILU(B, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The orderings, the options (-mat_gilu_factor_numeric, -mat_gilu_factor_schedule, -mat_gilu_trisolve,
  -mat_gilu_trisolve_threads, ... with the factor's prefix) and PETSc's symbolic factorization
*/
static PetscErrorCode MatGILUFactorSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscInt        m, nt;
  PetscBool       ri = PETSC_TRUE, ci = PETSC_TRUE, set;
  PetscEnum       type;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &f->bs));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  {
    PetscBool baij;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
    if (!baij) f->bs = 1;
  }
  PetscCheck(f->bs <= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu supports block sizes 1 to 8, not %" PetscInt_FMT ": use -pc_factor_mat_solver_type petsc", f->bs);
  f->nb = m / f->bs;
  PetscCall(MatDestroy(&f->F));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &f->F));
  PetscCall(MatILUFactorSymbolic(f->F, A, row, col, info));
  f->sinfo    = *info;
  f->hasfinfo = PETSC_FALSE;
  f->pattern  = PETSC_FALSE;
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  if (row) {
    PetscInt nr;

    PetscCall(ISGetLocalSize(row, &nr));
    PetscCheck(nr == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The row ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -pc_factor_mat_ordering_type natural", nr, f->nb);
    PetscCall(ISIdentity(row, &ri));
    PetscCall(PetscObjectReference((PetscObject)row));
  }
  if (col) {
    PetscInt nc;

    PetscCall(ISGetLocalSize(col, &nc));
    PetscCheck(nc == f->nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "The column ordering has %" PetscInt_FMT " entries, expected one per block row (%" PetscInt_FMT "): use -pc_factor_mat_ordering_type natural", nc, f->nb);
    PetscCall(ISIdentity(col, &ci));
    PetscCall(PetscObjectReference((PetscObject)col));
  }
  if (!row) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &row));
  if (!col) PetscCall(ISCreateStride(PETSC_COMM_SELF, f->nb, 0, 1, &col));
  f->row      = row;
  f->col      = col;
  f->identity = (PetscBool)(ri && ci);
  PetscCall(PetscFree(f->work));
  PetscCall(PetscMalloc1(m, &f->work));
  /* options */
  type = (PetscEnum)f->numeric;
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_factor_numeric", GILUFactorNumericTypes, &type, &set));
  f->numeric = (GILUFactorNumericType)type;
  type       = (PetscEnum)f->schedule;
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_factor_schedule", GILUFactorSchedules, &type, &set));
  f->schedule = (GILUFactorSchedule)type;
  type        = (PetscEnum)f->type;
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_trisolve", GILUTriSolveTypes, &type, &set));
  f->type = (GILUTriSolveType)type;
  nt      = f->nthreads;
  PetscCall(PetscOptionsGetInt(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gilu_trisolve_threads", &nt, &set));
  PetscCheck(nt >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gilu_trisolve_threads %" PetscInt_FMT ": must be at least 1", nt);
  f->nthreads = nt;
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(GILUTriCreate(&f->L));
  PetscCall(GILUTriCreate(&f->U));
  PetscCall(GILUTriSetType(f->L, f->type));
  PetscCall(GILUTriSetType(f->U, f->type));
  PetscCall(GILUTriSetThreads(f->L, f->nthreads));
  PetscCall(GILUTriSetThreads(f->U, f->nthreads));
  PetscCall(GILUTriSetFromOptions(f->L, ((PetscObject)B)->options, ((PetscObject)B)->prefix)); /* -mat_gilu_trisolve_block_depth, -mat_gilu_trisolve_backend */
  PetscCall(GILUTriSetFromOptions(f->U, ((PetscObject)B)->options, ((PetscObject)B)->prefix));
  B->ops->lufactornumeric       = MatLUFactorNumeric_GILU;
  B->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_GILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_GILU(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatGILUFactorSymbolic(B, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_GILU(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatGILUFactorSymbolic(B, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_GILU(Mat B, MatInfoType flag, MatInfo *info)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  if (f->F) PetscCall(MatGetInfo(f->F, flag, info));
  else if (f->hasfinfo) *info = f->finfo; /* one process: local and global are the same */
  else PetscCall(PetscMemzero(info, sizeof(*info)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_GILU(Mat B, PetscViewer viewer)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "gilu: %s factors (ordering %s), PETSc's symbolic factorization, triangular solves of petscgilu's engine\n", f->ftype == MAT_FACTOR_ICC ? "ICC (as ILU of the symmetric matrix)" : "ILU", f->identity ? "natural" : "permuted"));
  if (f->pattern) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (f->rangilu) {
      if (f->nthreads == 1) PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), 1 thread, rows in order (L has %" PetscInt_FMT " levels)\n", f->nlevels));
      else if (f->ranserial) PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), 1 thread, rows in order: chunks would leave the threads idle and L's %" PetscInt_FMT " level sets are small (%.1f rows each)\n", f->nlevels, (double)f->nb / f->nlevels));
      else if (f->ranschedule == GILU_FACTOR_SCHEDULE_CHUNKED)
        PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), chunked on %" PetscInt_FMT " threads: %" PetscInt_FMT " chunks of consecutive rows (%.1f rows each) in %" PetscInt_FMT " levels of the chunk DAG (L has %" PetscInt_FMT " levels)\n", f->nthreads, f->nchunks, (double)f->nb / f->nchunks, f->nclevels, f->nlevels));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: gilu's (PETSc's operations), level-set on %" PetscInt_FMT " threads: %" PetscInt_FMT " level sets of L (%.1f rows each)%s\n", f->nthreads, f->nlevels, (double)f->nb / f->nlevels, f->schedule == GILU_FACTOR_SCHEDULE_CHUNKED ? ", since chunks would leave the threads idle" : ""));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "numeric factorization: PETSc's, because %s\n", f->why));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  if (f->L && f->U && f->pattern) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(GILUTriView(f->L, viewer));
    PetscCall(GILUTriView(f->U, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_GILU(Mat B)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&f->F));
  PetscCall(GILUTriDestroy(&f->L));
  PetscCall(GILUTriDestroy(&f->U));
  PetscCall(GILUTriDestroy(&f->Lt));
  PetscCall(GILUTriDestroy(&f->Ut));
  PetscCall(ISDestroy(&f->row));
  PetscCall(ISDestroy(&f->col));
  PetscCall(PetscFree(f->work));
  PetscCall(PetscFree(f->ic));
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(PetscFree2(f->Li, f->Lj));
  PetscCall(PetscFree2(f->Ui, f->Uj));
  PetscCall(PetscFree3(f->La, f->Ua, f->Ud));
  PetscCall(PetscFree(B->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGILUFactorCheck(Mat B)
{
  const char *st;
  PetscBool   gilu;

  PetscFunctionBegin;
  PetscCall(MatFactorGetSolverType(B, &st));
  PetscCall(PetscStrcmp(st, MATSOLVERGILU, &gilu));
  PetscCheck(gilu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a factor of MatSolverType gilu but of %s", st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorGetTri(Mat B, GILUTri *L, GILUTri *U)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  if (L) *L = f->pattern ? f->L : NULL;
  if (U) *U = f->pattern ? f->U : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGILUFactorGetFactors(Mat B, PetscInt *nb, PetscInt *bs, const PetscInt **Li, const PetscInt **Lj, const MatScalar **La, const PetscInt **Ui, const PetscInt **Uj, const MatScalar **Ua, const MatScalar **Ud, PetscBool *rangilu)
{
  Mat_GILUFactor *f = (Mat_GILUFactor *)B->data;

  PetscFunctionBegin;
  PetscCall(MatGILUFactorCheck(B));
  PetscCheck(f->pattern, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "No numeric factorization yet");
  if (nb) *nb = f->nb;
  if (bs) *bs = f->bs;
  if (Li) *Li = f->Li;
  if (Lj) *Lj = f->Lj;
  if (La) *La = f->La;
  if (Ui) *Ui = f->Ui;
  if (Uj) *Uj = f->Uj;
  if (Ua) *Ua = f->Ua;
  if (Ud) *Ud = f->Ud;
  if (rangilu) *rangilu = f->rangilu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor() for MATSEQAIJ and MATSEQBAIJ, ILU and ICC (registered in src/sys/gilu.c) */
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJ_GILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_GILUFactor *f;
  PetscInt        n;
  PetscBool       baij;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType gilu provides ILU and ICC factorizations only: use -pc_type ilu or icc");
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &baij));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, n, n, n, n));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  PetscCall(PetscNew(&f));
  f->ftype = ftype;
  f->type  = GILU_TRISOLVE_AUTO;
  PetscCall(GILUGetNumThreads(&f->nthreads));
  B->data = (void *)f;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, baij ? "seqbaijgilu" : "seqaijgilu"));
  B->ops->ilufactorsymbolic = MatILUFactorSymbolic_GILU;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_GILU;
  B->ops->getinfo           = MatGetInfo_GILU;
  B->ops->view              = MatView_GILU;
  B->ops->destroy           = MatDestroy_GILU;
  B->factortype             = ftype;
  B->canuseordering         = PETSC_TRUE;
  B->preallocated           = PETSC_TRUE;
  B->assembled              = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ILU]));
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[MAT_FACTOR_ICC]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERGILU, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_GILU));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
