/*
   MatSolverType "gilu": the numeric factorization of a MATSEQAIJ (and of a MATSEQBAIJ with block sizes 2 to 7) on
   PETSc's symbolic pattern, scheduled on the threads of the solves by the dependency DAG of L (see gilufactor.c for
   the method: row-oriented IKJ ILU with PETSc's operations in PETSc's order, chunked or level-set schedule).
*/
#include <petscgilu/private/wait.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/blockinv.h>
#include <petscgiluconf.h>
#include <petscgilu/private/levels.h>
#include "gilufactorimpl.h"
#if defined(PETSCGILU_HAVE_OPENMP)
  #include <omp.h>
#endif

#define GILU_FACTOR_CHUNK_MIN 64  /* a chunk goes on past a row that does not read the row before it until it has this many rows ... */
#define GILU_FACTOR_CHUNK_MAX 256 /* ... and is cut at this many */
#define GILU_FACTOR_LEVEL_MIN 32  /* chunked falls back to the level sets if they have this many rows per thread on average, else to one thread (a barrier per level costs more than a few rows) */

PetscErrorCode MatGILUFactorScheduleDestroy(Mat_GILUFactor *f)
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
  const PetscInt nb = f->nb, *Li = f->Li, *Lj = f->Lj;
  PetscInt      *level;

  PetscFunctionBegin;
  if (f->analyzed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGILUFactorScheduleDestroy(f));
  PetscCall(PetscMalloc1(nb, &level));
  f->nlevels = GILULevels(GILU_TRI_LOWER, 0, nb, Li, Lj, level); /* L's entries are all strictly lower */
  PetscCall(PetscMalloc2(f->nlevels + 1, &f->lptr, nb, &f->lrow));
  GILULevelSets(0, nb, level, f->nlevels, f->lptr, f->lrow);
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
  MatScalar *PETSC_RESTRICT La = f->La, *PETSC_RESTRICT Ua = f->Ua, *PETSC_RESTRICT Ud = f->Ud, pv;
  const PetscInt row = r[i], l0 = Li[i], l1 = Li[i + 1], u0 = Ui[i], u1 = Ui[i + 1];
  PetscReal      rs  = 0.0;
  PetscInt       nel = 0, nup = 0;

  for (PetscInt k = l0; k < l1; k++) rtmp[Lj[k]] = 0.0;
  for (PetscInt k = u0; k < u1; k++) rtmp[Uj[k]] = 0.0;
  rtmp[i] = 0.0;
  for (PetscInt k = ai[row]; k < ai[row + 1]; k++) rtmp[ic[aj[k]]] = aa[k];
  rtmp[i] += 0.0; /* PETSc adds its shift amount, zero on this pass */
  for (PetscInt k = l0; k < l1; k++) {
    const PetscInt c = Lj[k];

    if (rtmp[c] != 0.0) {
      const MatScalar m  = rtmp[c] * Ud[c];
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
  A_gets_A_minus_B_times_C_<bs>); the pivot block is inverted as PETSc's PetscKernel_A_gets_inverse_A_<bs>() does (GILUBlockInvertLINPACK()) with
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
  if (bs < 2 || bs > 7) return PETSC_ERR_SUP;
  GILUBlockInvertLINPACK(bs, v, shift, zero);
  return PETSC_SUCCESS;
}

static inline void FactorRowBAIJ(const Mat_GILUFactor *f, PetscInt i, const PetscInt *ai, const PetscInt *aj, const MatScalar *aa, const PetscInt *r, const PetscInt *ic, PetscReal shift, MatScalar *PETSC_RESTRICT fa, MatScalar *PETSC_RESTRICT rtmp, PivotInfo *pi)
{
  const PetscInt  bs = f->bs, bs2 = bs * bs, row = r[i], l0 = f->Li[i], l1 = f->Li[i + 1], u0 = f->Ui[i], u1 = f->Ui[i + 1];
  const PetscInt *Lj = f->Lj, *Ui = f->Ui, *Uj = f->Uj;
  MatScalar      *pv;
  PetscBool       zero = PETSC_FALSE;

  for (PetscInt k = l0; k < l1; k++) memset(rtmp + bs2 * Lj[k], 0, bs2 * sizeof(MatScalar));
  for (PetscInt k = u0; k < u1; k++) memset(rtmp + bs2 * Uj[k], 0, bs2 * sizeof(MatScalar));
  memset(rtmp + bs2 * i, 0, bs2 * sizeof(MatScalar));
  for (PetscInt k = ai[row]; k < ai[row + 1]; k++) memcpy(rtmp + bs2 * ic[aj[k]], aa + bs2 * k, bs2 * sizeof(MatScalar));
  for (PetscInt k = l0; k < l1; k++) {
    const PetscInt c  = Lj[k];
    MatScalar     *pc = rtmp + bs2 * c;
    PetscBool      nz = PETSC_FALSE;

    for (PetscInt q = 0; q < bs2 && !nz; q++) nz = (PetscBool)(pc[q] != (MatScalar)0.0);
    if (nz) {
      const PetscInt   q0 = Ui[c], q1 = Ui[c + 1];
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
PetscErrorCode MatGILUFactorNumeric_Seq(Mat B, Mat A, const MatFactorInfo *info, PetscBool *needshift)
{
  Mat_GILUFactor  *f  = (Mat_GILUFactor *)B->data;
  const PetscInt   nb = f->nb, bs2 = f->bs * f->bs;
  const PetscInt  *ai, *aj, *r;
  const MatScalar *aa;
  MatScalar       *fa = NULL, *aab = NULL;
  PivotInfo       *pinfo, all;
  PetscInt         nt, shifttype = (PetscInt)info->shifttype, nbA;
  const PetscReal  zeropivot = info->zeropivot, shiftamount = info->shiftamount;
  const PetscReal  bshift = f->bs == 4 && shifttype == MAT_SHIFT_NONE ? 0.0 : shiftamount; /* what PETSc's BAIJ kernels pass */
  const PetscInt  *ic;
  const PetscBool  baij = (PetscBool)(f->bs > 1);
  PetscBool        done;

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
  /* the host's rows (block rows of BAIJ; AIJ's without inode compression): a device matrix (MATSEQAIJCUSPARSE) keeps
     them on the host too, where MatSeqAIJGetCSRAndMemType() would give its device copy */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, baij, &nbA, &ai, &aj, &done));
  PetscCheck(done && nbA == nb, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the rows of the matrix");
  if (baij) {
    PetscCall(MatSeqBAIJGetArray(A, &aab));
    aa = aab;
    PetscCall(MatSeqBAIJGetArray(f->F, &fa));
  } else PetscCall(MatSeqAIJGetArrayRead(A, &aa));
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
    PetscInt        delay;

    PetscCall(GILUScheduleGetDelay(&delay)); /* the developers' hook: thread 0 starts late, a missing wait or barrier shows */
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

      if (PetscUnlikely(delay) && tid == 0) GILUDelay(delay);
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
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, baij, &nbA, &ai, &aj, &done));
  if (baij) {
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
