/*
   The structured-grid ILU of a stencil matrix on the host, below its two users (PCSTRUCTILU and the MatGetFactor()
   of MATSEQSTENCILGPU; declared in petscgilu/private/stencililu.h): the symbolic factorization (the ILU(k) fill stencil,
   the elimination table, the hyperplanes), the in-place ILU(0) factorization and the triangular solves, for 1 to 8 DoF
   per grid point, run on host threads with the hyperplane tile schedule of schedule.c.

   Each row is computed exactly as by sequential ILU(0) in natural order (lower neighbours
   by increasing column, the same order of operations as PETSc's ILU(0)), so the factors
   equal PETSc's to round-off and do not depend on the number of threads at all.

   Layout: the factors are stored stencil-major (one array of dof x dof blocks per offset,
   contiguous over the grid: the vector-oriented layout of StructILU). On the host this is
   also the fast layout: a thread streams through a segment of a grid line, and each offset
   is one unit-stride stream, so the hardware prefetchers follow ns + 2 streams; a
   point-major layout reads the same bytes but interleaves L and U, which the two sweeps
   read separately, so each sweep would drag the other half through the cache.
*/
#include <petscgilu/private/stencililu.h>
#include <float.h>

/* the kernels are worth vectorizing whatever the flags PETSc was built with */
#if defined(__GNUC__) && !defined(__clang__)
  #pragma GCC optimize("O3")
#endif

typedef struct {
  GILUSweepHead         head; /* first (private/stencil.h): a solve, x */
  const GILUStencilMat *sm;
  PetscBool             ic;
  PetscBool             scaled;             /* IC, DILU: the lower blocks multiply z = D^{-1} y, formed where read */
  const void           *lval, *uval, *dinv; /* factors, in double or float (StructILUFactors) */
  const PetscInt       *mirror;
  const PetscScalar    *b;
  PetscScalar          *x;
  PetscScalar          *out;      /* forward sweep: out = t + z, z = D^{-1} y its solution (DILU; t may be NULL) */
  const PetscScalar    *init;     /* backward sweep: its right-hand side, copied into x unit by unit (NULL: x holds it) */
  PetscScalar          *t;        /* Eisenstat: the backward sweep's result (instead of x), which the forward sweep reads */
  const PetscScalar    *eisE;     /* Eisenstat's forward sweep: right-hand side b + E t, result x = t + z */
  PetscInt              nline[2]; /* lower and upper offsets along the grid line (dy = dz = 0) */
} SolveCtx;

typedef struct {
  GILUSweepHead   head; /* first (private/stencil.h): the factorization */
  GILUStencilMat *sm;
  PetscScalar    *dinv;
  PetscReal       zeropivot;
  PetscBool       ic;
  const PetscInt *mirror;
  PetscInt       *elimptr, *elimu, *elimt; /* per lower offset s: the (u, s+u) pairs of the updates */
  PetscBool       diagonal;                /* DILU: only the diagonal blocks (StructILUFactorDiagonal_Host()) */
  const PetscInt *diagu;                   /* DILU: per lower offset s, the upper offset -s (-1: none) */
  PetscScalar    *diag;                    /* DILU: the modified diagonal blocks, when wanted */
  PetscInt        zerorow;                 /* smallest row with a zero pivot, -1 if none */
  PetscInt       *staru;                   /* DoF 1, ILU of the full pattern, eliminations reaching only the diagonal:
                                              per lower offset s the upper offset -s (-1: none); else NULL */
} FactorCtx;

/* The pivot block of grid point p (bs unknowns) is singular: its inverse is set to zero (later rows stay finite) and
   the smallest such row is kept in ctx->zerorow (points are factored on several threads) */
static inline void FactorZeroPivot(FactorCtx *ctx, PetscInt p, PetscInt bs)
{
  PetscInt row = p * bs, old = __atomic_load_n(&ctx->zerorow, __ATOMIC_RELAXED);

  for (PetscInt a = 0; a < bs * bs; a++) ctx->dinv[(size_t)p * bs * bs + a] = 0;
  while ((old < 0 || row < old) && !__atomic_compare_exchange_n(&ctx->zerorow, &old, row, PETSC_FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { }
}

/* (not clang's vectorize(assume_safety): it marks every access in the loop as independent of the other iterations', those
   to a temporary declared in the body too (SubtractOffset()'s zq), which clang 14 at -O1 miscompiles (make check-tsan's
   clang build: ex1 compare_ilu, ex18 threads; make check-clang builds at -O2); clang does not vectorize that loop at any
   level anyway) */
#if defined(__GNUC__) && !defined(__clang__)
  #define PRAGMA_IVDEP _Pragma("GCC ivdep")
#else
  #define PRAGMA_IVDEP
#endif

#define MAX_GROUP      8 /* units per tile, at most */
#define MAX_GROUP_DOF1 4 /* lines whose DoF-1 recurrences are interleaved in registers, at most */

#define PASTE3_(a, b, c) a##_##b##_##c
#define PASTE3(a, b, c)  PASTE3_(a, b, c)
#define SUFFIX(name)     PASTE3(name, SDOF, FT)

#define FT          double
#define SDOF_FACTOR 1
#include "ilu-kernels-dofs.h"
#undef FT
#undef SDOF_FACTOR

#define FT          float
#define SDOF_FACTOR 0
#include "ilu-kernels-dofs.h"
#undef FT
#undef SDOF_FACTOR

// clang-format off: one dispatch table a line, by DoF (clang-format would split the function-pointer declarators)
static const GILUTileKernel Factor_Kernels[]         = {NULL, Factor_1_double, Factor_2_double, Factor_3_double, Factor_4_double, Factor_5_double, Factor_6_double, Factor_7_double, Factor_8_double};
static const GILUTileKernel Forward_Kernels[]        = {NULL, Forward_1_double, Forward_2_double, Forward_3_double, Forward_4_double, Forward_5_double, Forward_6_double, Forward_7_double, Forward_8_double};
static const GILUTileKernel Backward_Kernels[]       = {NULL, Backward_1_double, Backward_2_double, Backward_3_double, Backward_4_double, Backward_5_double, Backward_6_double, Backward_7_double, Backward_8_double};
static const GILUTileKernel ForwardSingle_Kernels[]  = {NULL, Forward_1_float, Forward_2_float, Forward_3_float, Forward_4_float, Forward_5_float, Forward_6_float, Forward_7_float, Forward_8_float};
static const GILUTileKernel BackwardSingle_Kernels[] = {NULL, Backward_1_float, Backward_2_float, Backward_3_float, Backward_4_float, Backward_5_float, Backward_6_float, Backward_7_float, Backward_8_float};
static void (*const SolveTranspose_Kernels[])(const SolveCtx *) = {NULL, SolveTranspose_1_double, SolveTranspose_2_double, SolveTranspose_3_double, SolveTranspose_4_double, SolveTranspose_5_double, SolveTranspose_6_double, SolveTranspose_7_double, SolveTranspose_8_double};
static void (*const SolveTransposeSingle_Kernels[])(const SolveCtx *) = {NULL, SolveTranspose_1_float, SolveTranspose_2_float, SolveTranspose_3_float, SolveTranspose_4_float, SolveTranspose_5_float, SolveTranspose_6_float, SolveTranspose_7_float, SolveTranspose_8_float};
static const GILUTileKernel TransposeForward_Kernels[]        = {NULL, TransposeForward_1_double, TransposeForward_2_double, TransposeForward_3_double, TransposeForward_4_double, TransposeForward_5_double, TransposeForward_6_double, TransposeForward_7_double, TransposeForward_8_double};
static const GILUTileKernel TransposeBackward_Kernels[]       = {NULL, TransposeBackward_1_double, TransposeBackward_2_double, TransposeBackward_3_double, TransposeBackward_4_double, TransposeBackward_5_double, TransposeBackward_6_double, TransposeBackward_7_double, TransposeBackward_8_double};
static const GILUTileKernel TransposeForwardSingle_Kernels[]  = {NULL, TransposeForward_1_float, TransposeForward_2_float, TransposeForward_3_float, TransposeForward_4_float, TransposeForward_5_float, TransposeForward_6_float, TransposeForward_7_float, TransposeForward_8_float};
static const GILUTileKernel TransposeBackwardSingle_Kernels[] = {NULL, TransposeBackward_1_float, TransposeBackward_2_float, TransposeBackward_3_float, TransposeBackward_4_float, TransposeBackward_5_float, TransposeBackward_6_float, TransposeBackward_7_float, TransposeBackward_8_float};
// clang-format on

/* GILUStencilFindUnmirrored - an offset of st whose opposite is not in st (its index), or -1: the stencil is symmetric */
PetscErrorCode GILUStencilFindUnmirrored(const GILUStencil *st, PetscInt *unmirrored)
{
  PetscFunctionBegin;
  *unmirrored = -1;
  for (PetscInt s = 0; s < st->ns && *unmirrored < 0; s++) {
    PetscInt d[3] = {-st->off[s][0], -st->off[s][1], -st->off[s][2]}, m;

    PetscCall(GILUStencilFind(st, d, &m));
    if (m < 0) *unmirrored = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  GILUStencilGetMirror - mirror[s] = index of -off[s]; errors if the stencil is not symmetric (the callers check
  that first, GILUStencilFindUnmirrored(), to say which option to change)
*/
PetscErrorCode GILUStencilGetMirror(const GILUStencil *st, PetscInt **mirror)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(st->ns, mirror));
  for (PetscInt s = 0; s < st->ns; s++) {
    PetscInt d[3] = {-st->off[s][0], -st->off[s][1], -st->off[s][2]};

    PetscCall(GILUStencilFind(st, d, &(*mirror)[s]));
    PetscCheck((*mirror)[s] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The stencil is not symmetric (it has the offset (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") but not its opposite): incomplete Cholesky needs a symmetric matrix", st->off[s][0], st->off[s][1], st->off[s][2]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the factorization needs besides the structure: elimination table, mirror offsets (IC), hyperplanes, the inverted diagonal blocks */
PetscErrorCode StructILUSymbolicFinish(GILUStencilMat *sm, PetscBool ic, PetscInt **elim, PetscInt **mirror, PetscInt hyper[3], PetscInt *nlevels, PetscScalar **dinv)
{
  PetscFunctionBegin;
  PetscCall(GILUStencilGetEliminationTable(&sm->stencil, elim));
  if (ic) PetscCall(GILUStencilGetMirror(&sm->stencil, mirror));
  PetscCall(GILUStencilGetHyperplanes(&sm->stencil, &sm->grid, hyper, nlevels));
  PetscCall(PetscMalloc1((size_t)sm->npoints * sm->bs2, dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUFactor_Host(GILUStencilMat *sm, const PetscInt *elim, const PetscInt *mirror, PetscReal zeropivot, PetscScalar *dinv, PetscInt *zerorow)
{
  const PetscInt ns = sm->stencil.ns, nl = sm->stencil.nlower, d = sm->grid.dof;
  FactorCtx      ctx;
  GILUSchedule   sched;
  PetscInt       n = 0;

  PetscFunctionBegin;
  ctx.head      = (GILUSweepHead){PETSC_TRUE, NULL, 0, 0};
  ctx.sm        = sm;
  ctx.dinv      = dinv;
  ctx.zeropivot = zeropivot;
  ctx.zerorow   = -1;
  ctx.ic        = (PetscBool)(mirror != NULL);
  ctx.mirror    = mirror;
  ctx.diagu     = NULL;
  ctx.diagonal  = PETSC_FALSE;
  ctx.diag      = NULL;
  PetscCall(PetscMalloc3(nl + 1, &ctx.elimptr, nl * ns, &ctx.elimu, nl * ns, &ctx.elimt));
  for (PetscInt s = 0; s < nl; s++) {
    ctx.elimptr[s] = n;
    for (PetscInt u = nl + 1; u < ns; u++)
      if (elim[s * ns + u] >= 0 && (!ctx.ic || elim[s * ns + u] >= nl)) { /* IC: only the diagonal and upper blocks */
        ctx.elimu[n]   = u;
        ctx.elimt[n++] = elim[s * ns + u];
      }
  }
  ctx.elimptr[nl] = n;
  ctx.staru       = NULL;
  if (d == 1 && !ctx.ic && !sm->missptr && StructILUStencilIsDILU(&sm->stencil, elim)) { /* FactorStarUnits() */
    PetscCall(PetscMalloc1(nl, &ctx.staru));
    for (PetscInt s = 0; s < nl; s++) ctx.staru[s] = ctx.elimptr[s + 1] > ctx.elimptr[s] ? ctx.elimu[ctx.elimptr[s]] : -1;
  }
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRun(sched, PETSC_FALSE, Factor_Kernels[d], &ctx));
  PetscCall(PetscFree(ctx.staru));
  PetscCall(PetscFree3(ctx.elimptr, ctx.elimu, ctx.elimt));
  *zerorow = ctx.zerorow;
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (2.0 * d * d * d * (n + nl) + 2.0 * d * d * d)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool StructILUStencilIsDILU(const GILUStencil *st, const PetscInt *elim)
{
  for (PetscInt s = 0; s < st->nlower; s++)
    for (PetscInt u = st->nlower + 1; u < st->ns; u++)
      if (elim[s * st->ns + u] >= 0 && elim[s * st->ns + u] != st->nlower) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscErrorCode StructILUFactorDiagonal_Host(GILUStencilMat *sm, const PetscInt *mirror, PetscReal zeropivot, PetscScalar *dinv, PetscScalar *diag, PetscInt *zerorow)
{
  const PetscInt nl = sm->stencil.nlower, d = sm->grid.dof;
  FactorCtx      ctx;
  GILUSchedule   sched;
  PetscInt      *diagu, n = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCall(PetscMalloc1(nl, &diagu));
  for (PetscInt s = 0; s < nl; s++) {
    PetscInt o[3] = {-sm->stencil.off[s][0], -sm->stencil.off[s][1], -sm->stencil.off[s][2]};

    PetscCall(GILUStencilFind(&sm->stencil, o, &diagu[s]));
    n += diagu[s] >= 0;
  }
  ctx.head      = (GILUSweepHead){PETSC_TRUE, NULL, 0, 0};
  ctx.sm        = sm;
  ctx.dinv      = dinv;
  ctx.diag      = diag;
  ctx.zeropivot = zeropivot;
  ctx.zerorow   = -1;
  ctx.ic        = (PetscBool)(mirror != NULL);
  ctx.mirror    = mirror;
  ctx.diagu     = diagu;
  ctx.diagonal  = PETSC_TRUE;
  ctx.staru     = d == 1 && !ctx.ic && !sm->missptr ? diagu : NULL; /* FactorStarUnits() */
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRun(sched, PETSC_FALSE, Factor_Kernels[d], &ctx));
  PetscCall(PetscFree(diagu));
  *zerorow = ctx.zerorow;
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (4.0 * d * d * d * n + 2.0 * d * d * d)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Copies n values into double or float storage; *big (single only): the index of the first finite value that float
  cannot hold (its magnitude above FLT_MAX: it would become Inf), or -1
*/
static PetscErrorCode CopyValues(const PetscScalar *from, size_t n, PetscBool single, void **to, PetscInt64 *big)
{
  PetscFunctionBegin;
  *big = -1;
  if (single) {
    float   *f;
    uint64_t over = 0;

    PetscCall(PetscMalloc1(n, &f));
    for (size_t t = 0; t < n; t++) {
      const PetscReal a = PetscAbsScalar(from[t]);

      f[t] = (float)from[t];
      over |= (uint64_t)(a > (PetscReal)FLT_MAX && a <= PETSC_MAX_REAL); /* branch-free: the loop stays vectorized */
    }
    if (over)
      for (size_t t = 0; t < n && *big < 0; t++)
        if (PetscAbsScalar(from[t]) > (PetscReal)FLT_MAX && PetscAbsScalar(from[t]) <= PETSC_MAX_REAL) *big = (PetscInt64)t;
    *to = f;
  } else {
    PetscScalar *v;

    PetscCall(PetscMalloc1(n, &v));
    PetscCall(PetscArraycpy(v, from, n));
    *to = v;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  StructILUFactorsStore_Host - keeps what the solves read, in the requested form: ILU in
  double reads sm->val and dinv in place; IC keeps only the upper blocks; single precision
  keeps float copies. The copies make sm->val unnecessary until the next numeric setup,
  so it is freed (GILUStencilMatPack() allocates it again).
  rangerow: a local row with a factor entry that single precision cannot hold (finite, beyond FLT_MAX), or -1
*/
PetscErrorCode StructILUFactorsStore_Host(GILUStencilMat *sm, PetscScalar *dinv, const PetscInt *mirror, PetscBool single, PetscBool dilu, StructILUFactors *F, PetscInt *rangerow)
{
  const size_t   blocks = (size_t)sm->npoints * sm->bs2;
  const PetscInt nl = sm->stencil.nlower, nu = sm->stencil.ns - nl - 1, d = sm->grid.dof;
  PetscInt64     big[3] = {-1, -1, -1};

  PetscFunctionBegin;
  *rangerow = -1;
  PetscCall(StructILUFactorsReset_Host(F));
  F->ic     = (PetscBool)(mirror != NULL);
  F->single = single;
  F->mirror = mirror;
  F->dilu   = dilu;
  if (dilu) { /* the matrix's blocks in place, the inverted modified diagonal */
    PetscCheck(!single, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DILU factors are read in place, in double precision");
    F->lval     = F->ic ? NULL : sm->val;
    F->uval     = sm->val + (nl + 1) * blocks;
    F->dinv     = dinv;
    F->owned    = PETSC_FALSE;
    F->bytes    = sizeof(PetscScalar) * blocks;
    F->noffsets = 0;
  } else if (!F->ic && !single) {
    F->lval     = sm->val;
    F->uval     = sm->val + (nl + 1) * blocks;
    F->dinv     = dinv;
    F->owned    = PETSC_FALSE;
    F->bytes    = sizeof(PetscScalar) * blocks * (sm->stencil.ns + 1);
    F->noffsets = sm->stencil.ns;
  } else {
    if (!F->ic) PetscCall(CopyValues(sm->val, nl * blocks, single, &F->lval, &big[0]));
    PetscCall(CopyValues(sm->val + (nl + 1) * blocks, nu * blocks, single, &F->uval, &big[1]));
    PetscCall(CopyValues(dinv, blocks, single, &F->dinv, &big[2]));
    for (PetscInt k = 0; k < 3 && *rangerow < 0; k++) /* value t of an offset-major array: point (t / bs2) mod npoints, row (t mod bs2) / dof of its block */
      if (big[k] >= 0) *rangerow = (PetscInt)((big[k] / sm->bs2) % sm->npoints) * d + (PetscInt)((big[k] % sm->bs2) / d);
    F->owned    = PETSC_TRUE;
    F->bytes    = (single ? sizeof(float) : sizeof(PetscScalar)) * blocks * ((F->ic ? 0 : nl) + nu + 1);
    F->noffsets = (F->ic ? 0 : nl) + nu;
    PetscCall(PetscFree(sm->val));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUFactorsReset_Host(StructILUFactors *F)
{
  PetscFunctionBegin;
  if (F->owned) {
    PetscCall(PetscFree(F->lval));
    PetscCall(PetscFree(F->uval));
    PetscCall(PetscFree(F->dinv));
  }
  PetscCall(PetscMemzero(F, sizeof(*F)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the solve kernels read: the factors F of sm, b and x */
static void SolveCtxInit(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *b, PetscScalar *x, SolveCtx *ctx)
{
  memset(ctx, 0, sizeof(*ctx));
  ctx->sm     = sm;
  ctx->ic     = F->ic;
  ctx->scaled = (PetscBool)(F->ic || F->dilu);
  ctx->lval   = F->lval;
  ctx->uval   = F->uval;
  ctx->dinv   = F->dinv;
  ctx->mirror = F->mirror;
  ctx->b      = b;
  ctx->x      = x;
  ctx->head.x = x;
}

/* The offsets along the grid line, lower and upper, for the sweeps */
static void SolveCtxLines(const GILUStencilMat *sm, SolveCtx *ctx)
{
  for (PetscInt s = 0; s < sm->stencil.ns; s++)
    if (s != sm->stencil.nlower && !sm->stencil.off[s][1] && !sm->stencil.off[s][2]) ctx->nline[s > sm->stencil.nlower]++;
}

PetscErrorCode StructILUSolve_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt d = sm->grid.dof;
  SolveCtx       ctx;
  GILUSchedule   sched;

  PetscFunctionBegin;
  SolveCtxInit(sm, F, b, x, &ctx);
  SolveCtxLines(sm, &ctx);
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRunPair(sched, PETSC_FALSE, (F->single ? ForwardSingle_Kernels : Forward_Kernels)[d], (F->single ? BackwardSingle_Kernels : Backward_Kernels)[d], &ctx));
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (2.0 * d * d * sm->stencil.ns)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Several right-hand sides (PCMatApply()): each tile of each sweep runs the one-vector kernel on every column of a group in
  turn, so the tile's factors, read from memory for the first column, come from cache for the others (a tile is a few grid
  lines); every column is computed by the operations of StructILUSolve_Host() in the same order, so it gets its bits. The
  price: a column's vectors are read in short bursts, a tile at a time, not streamed along the lines, which the hardware
  prefetchers follow less well. So a group has about as many columns as a point's factor bytes (what the sweeps read of
  the factors, or of the matrix and the inverted diagonal for DILU) are times its vector bytes (b read, x written and read
  back, x written: 4 dof scalars). Measured on one thread (Xeon, 480 MiB L3, 16 columns; ms per column against the column
  loop): star7 DoF 1 (DILU, 1.75) 1.04-1.07x faster in groups of 2, 0.74-0.81x in one group of 16; box27 DoF 3 (21)
  2.7-3.1x in one group of 16, 1.4-1.5x in groups of 2.
*/
typedef struct {
  GILUSweepHead   head; /* the group's columns (read by the pipeline only: its messages carry them all) */
  GILUTileKernel  kernel[2];
  const SolveCtx *ctx;
  PetscInt        m;
} SolveMultipleCtx;

static void ForwardMultiple(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  const SolveMultipleCtx *mc = (const SolveMultipleCtx *)vctx;

  for (PetscInt j = 0; j < mc->m; j++) mc->kernel[0]((void *)&mc->ctx[j], sched, nu, units);
}

static void BackwardMultiple(void *vctx, GILUSchedule sched, PetscInt nu, const PetscInt *units)
{
  const SolveMultipleCtx *mc = (const SolveMultipleCtx *)vctx;

  for (PetscInt j = 0; j < mc->m; j++) mc->kernel[1]((void *)&mc->ctx[j], sched, nu, units);
}

/* the columns of a group: a point's factor bytes over its vector bytes, rounded, 1 to m */
PetscInt StructILUSolveMultipleGroup(const GILUStencilMat *sm, const StructILUFactors *F, PetscInt m)
{
  const PetscInt d = sm->grid.dof;
  double         fbytes, vbytes = 4.0 * d * sizeof(PetscScalar);

  fbytes = sm->npoints ? (double)F->bytes / sm->npoints : 0;
  if (F->ic) fbytes *= 2;                                                            /* the upper blocks, read by both sweeps (the forward one through the mirror) */
  if (F->dilu) fbytes += (double)(sm->stencil.ns - 1) * d * d * sizeof(PetscScalar); /* the matrix's off-diagonal blocks, read in place */
  return PetscMax(1, PetscMin(m, (PetscInt)(fbytes / vbytes + 0.5)));
}

/*
  x_j = (LU)^{-1} b_j for the m columns of b (leading dimension ldb) into those of x (ldx), in place too (x b, ldx ldb), in
  groups of *group. In the pipeline across processes a group's columns share each message (its points' values of every
  column of the group), so a group costs the messages and the waits of one solve; its groups are those of one process
  (star7 DoF 1 80^3 on 2 processes, 16 columns in one group: 0.8x the column loop; in the formula's groups of 2: 1.0x;
  bench/results/2026-11-30-vm-distributed-matapply.md), at most the columns a message holds within an int (GILUPipeInfo's
  columns)
*/
PetscErrorCode StructILUSolveMultiple_Host(GILUStencilMat *sm, const StructILUFactors *F, PetscInt m, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx, PetscInt *group)
{
  const PetscInt   d = sm->grid.dof;
  PetscInt         g;
  SolveCtx        *ctx;
  SolveMultipleCtx mc;
  GILUSchedule     sched;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &ctx));
  for (PetscInt j = 0; j < m; j++) {
    SolveCtxInit(sm, F, b + (size_t)j * ldb, x + (size_t)j * ldx, &ctx[j]);
    SolveCtxLines(sm, &ctx[j]);
  }
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  g = StructILUSolveMultipleGroup(sm, F, m);
  if (sched->type == GILU_SCHEDULE_PIPELINE) {
    GILUPipeInfo info;

    PetscCall(GILUPipeGetInfo(sched->pipe, &info));
    g = PetscMin(g, info.columns);
  }
  PetscCall(PetscMemzero(&mc, sizeof(mc)));
  mc.kernel[0] = (F->single ? ForwardSingle_Kernels : Forward_Kernels)[d];
  mc.kernel[1] = (F->single ? BackwardSingle_Kernels : Backward_Kernels)[d];
  for (PetscInt j0 = 0; j0 < m; j0 += g) {
    mc.ctx     = ctx + j0;
    mc.m       = PetscMin(g, m - j0);
    mc.head.x  = x + (size_t)j0 * ldx;
    mc.head.m  = mc.m;
    mc.head.ld = ldx;
    PetscCall(GILUScheduleRunPairMultiple(sched, PETSC_FALSE, ForwardMultiple, BackwardMultiple, &mc, mc.m));
  }
  PetscCall(PetscLogFlops((PetscLogDouble)m * sm->npoints * (2.0 * d * d * sm->stencil.ns)));
  PetscCall(PetscFree(ctx));
  *group = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSolveTranspose_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt d = sm->grid.dof;
  SolveCtx       ctx;

  PetscFunctionBegin;
  PetscCheck(F->dinv, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The structured-grid ILU has no factors on the host");
  SolveCtxInit(sm, F, b, x, &ctx);
  if (sm->schedule && sm->schedule->type == GILU_SCHEDULE_PIPELINE) /* across processes: the pipeline's units and messages */
    PetscCall(GILUScheduleRunPair(sm->schedule, PETSC_FALSE, (F->single ? TransposeForwardSingle_Kernels : TransposeForward_Kernels)[d], (F->single ? TransposeBackwardSingle_Kernels : TransposeBackward_Kernels)[d], &ctx));
  else (F->single ? SolveTransposeSingle_Kernels : SolveTranspose_Kernels)[d](&ctx);
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (2.0 * d * d * sm->stencil.ns)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The symmetric split of IC factors, M = (D + U)^T D^{-1} (D + U) = S^T S with S = R (D + U), R_p the upper Cholesky factor of
  the inverted diagonal block D_p^{-1} = R_p^T R_p (its upper triangle read; DoF 1: R_p = sqrt(1/d_p)). The forward sweep gives
  y = D (D + U)^{-T} b, so the left half is S^{-T} b = R^{-T} D^{-1} y = R y and the right half S^{-1} v = (D + U)^{-1} R^{-1} v:
  right(left(b)) is the usual solve, bitwise for the sweeps. For DoF 1 these are the halves of PETSc's ICC, U^T D U with unit U:
  D^{-1/2} U^{-T} and U^{-1} D^{-1/2} (MatForwardSolve(), MatBackwardSolve() of its factor). *badrow: the first point whose block
  is not positive definite (R unset from there), or -1.
*/
PetscErrorCode StructILUSymmetricSplit_Host(GILUStencilMat *sm, const StructILUFactors *F, PetscScalar *R, PetscInt *badrow)
{
  const PetscInt d = sm->grid.dof, bs2 = sm->bs2;

  PetscFunctionBegin;
  PetscCheck(F->ic && F->dinv, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The symmetric split needs IC factors on the host");
  *badrow = -1;
  for (PetscInt p = 0; p < sm->npoints; p++) {
    PetscScalar *Rp = R + (size_t)p * bs2;

    for (PetscInt a = 0; a < d; a++)
      for (PetscInt e = 0; e < d; e++) { /* R_ae, e >= a: (Dinv_ae - sum_{c<a} R_ca R_ce) / R_aa */
        PetscScalar v = F->single ? (PetscScalar)((const float *)F->dinv)[(size_t)p * bs2 + a * d + e] : ((const PetscScalar *)F->dinv)[(size_t)p * bs2 + a * d + e];

        if (e < a) {
          Rp[a * d + e] = 0;
          continue;
        }
        for (PetscInt c = 0; c < a; c++) v -= Rp[c * d + a] * Rp[c * d + e];
        if (e == a) {
          if (!(PetscRealPart(v) > 0)) { /* also NaN */
            *badrow = p * d + a;
            PetscFunctionReturn(PETSC_SUCCESS);
          }
          Rp[a * d + a] = PetscSqrtScalar(v);
        } else Rp[a * d + e] = v / Rp[a * d + a];
      }
  }
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * d * d * d / 3.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSolveSymmetric_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *R, PetscBool right, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt d = sm->grid.dof, bs2 = sm->bs2;
  SolveCtx       ctx;
  GILUSchedule   sched;
  PetscScalar    v[8];

  PetscFunctionBegin;
  PetscCheck(F->ic && F->dinv, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The symmetric halves need IC factors on the host");
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  if (!right) { /* x = R y, y = D (D + U)^{-T} b the forward sweep's */
    SolveCtxInit(sm, F, b, x, &ctx);
    SolveCtxLines(sm, &ctx);
    PetscCall(GILUScheduleRun(sched, PETSC_FALSE, (F->single ? ForwardSingle_Kernels : Forward_Kernels)[d], &ctx));
    for (PetscInt p = 0; p < sm->npoints; p++) {
      const PetscScalar *Rp = R + (size_t)p * bs2;

      for (PetscInt a = 0; a < d; a++) {
        v[a] = 0;
        for (PetscInt e = a; e < d; e++) v[a] += Rp[a * d + e] * x[p * d + e];
      }
      for (PetscInt a = 0; a < d; a++) x[p * d + a] = v[a];
    }
  } else { /* x = (D + U)^{-1} R^{-1} b: R^{-1} b point by point (back substitution in the block), then the backward sweep in place */
    for (PetscInt p = 0; p < sm->npoints; p++) {
      const PetscScalar *Rp = R + (size_t)p * bs2;

      for (PetscInt a = d - 1; a >= 0; a--) {
        PetscScalar t = b[p * d + a];

        for (PetscInt e = a + 1; e < d; e++) t -= Rp[a * d + e] * x[p * d + e];
        x[p * d + a] = t / Rp[a * d + a];
      }
    }
    SolveCtxInit(sm, F, NULL, x, &ctx);
    SolveCtxLines(sm, &ctx);
    PetscCall(GILUScheduleRun(sched, PETSC_TRUE, (F->single ? BackwardSingle_Kernels : Backward_Kernels)[d], &ctx));
  }
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (d * d * sm->stencil.ns + d * d)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The Eisenstat trick for DILU factors: y = Ahat x, Ahat = (D + L_A)^{-1} A (D + U_A)^{-1}. With A = (D + L_A) + (D + U_A) + E,
  E = D_A - 2 D, and t = (D + U_A)^{-1} x: A t = (D + L_A) t + x + E t, so Ahat x = t + (D + L_A)^{-1} (x + E t). One backward
  sweep writes t, one forward sweep reads x + E t at its points and writes y = t + z (z its solution; w is room for its y): the two sweeps
  of a preconditioned iteration and no product with A.
*/
PetscErrorCode StructILUEisenstatMult_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *E, const PetscScalar *x, PetscScalar *t, PetscScalar *w, PetscScalar *y)
{
  const PetscInt d = sm->grid.dof;
  SolveCtx       ctx;
  GILUSchedule   sched;

  PetscFunctionBegin;
  PetscCheck(F->dilu, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The Eisenstat trick needs DILU factors");
  SolveCtxInit(sm, F, x, w, &ctx);
  ctx.init = x;
  ctx.t    = t;
  ctx.eisE = E;
  ctx.out  = y;
  SolveCtxLines(sm, &ctx);
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRunPair(sched, PETSC_TRUE, Backward_Kernels[d], Forward_Kernels[d], &ctx));
  PetscCall(PetscLogFlops((PetscLogDouble)sm->npoints * (2.0 * d * d * sm->stencil.ns + 4.0 * d * d)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSolveLower_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *b, PetscScalar *y, PetscScalar *z)
{
  SolveCtx     ctx;
  GILUSchedule sched;

  PetscFunctionBegin;
  PetscCheck(F->dilu, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The lower sweep alone needs DILU factors");
  SolveCtxInit(sm, F, b, y, &ctx);
  ctx.out = z;
  SolveCtxLines(sm, &ctx);
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRun(sched, PETSC_FALSE, Forward_Kernels[sm->grid.dof], &ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUSolveUpper_Host(GILUStencilMat *sm, const StructILUFactors *F, const PetscScalar *b, PetscScalar *x)
{
  SolveCtx     ctx;
  GILUSchedule sched;

  PetscFunctionBegin;
  PetscCheck(F->dilu, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The upper sweep alone needs DILU factors");
  SolveCtxInit(sm, F, NULL, x, &ctx);
  ctx.init = b == x ? NULL : b;
  SolveCtxLines(sm, &ctx);
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  PetscCall(GILUScheduleRun(sched, PETSC_TRUE, Backward_Kernels[sm->grid.dof], &ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (D + U_A) x, D the blocks diag, U_A the matrix's upper blocks (sm->val); sequential (once per solve) */
PetscErrorCode StructILUMultUpper_Host(GILUStencilMat *sm, const PetscScalar *diag, const PetscScalar *x, PetscScalar *y)
{
  const GILUGrid    *g  = &sm->grid;
  const GILUStencil *st = &sm->stencil;
  const PetscInt     d = g->dof, bs2 = sm->bs2;
  const size_t       N = (size_t)sm->npoints;

  PetscFunctionBegin;
  for (PetscInt k = 0, p = 0; k < g->n[2]; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++, p++) {
        for (PetscInt a = 0; a < d; a++) {
          PetscScalar v = 0;

          for (PetscInt e = 0; e < d; e++) v += diag[(size_t)p * bs2 + a * d + e] * x[p * d + e];
          y[p * d + a] = v;
        }
        for (PetscInt s = st->nlower + 1; s < st->ns; s++) {
          const PetscInt    *o = st->off[s];
          const PetscScalar *U = sm->val + ((size_t)s * N + p) * bs2, *xq = x + (p + sm->shift[s]) * d;

          if (i + o[0] < 0 || i + o[0] >= g->n[0] || j + o[1] < 0 || j + o[1] >= g->n[1] || k + o[2] < 0 || k + o[2] >= g->n[2]) continue;
          for (PetscInt a = 0; a < d; a++)
            for (PetscInt e = 0; e < d; e++) y[p * d + a] += U[a * d + e] * xq[e];
        }
      }
  PetscCall(PetscLogFlops(2.0 * N * d * d * (st->ns - st->nlower)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StructILUBlockDiagonalMult_Host(GILUStencilMat *sm, const PetscScalar *diag, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = sm->npoints, d = sm->grid.dof, bs2 = sm->bs2;
  GILUSchedule   sched;
  PetscInt       nt;

  PetscFunctionBegin;
  PetscCall(GILUStencilMatGetSchedule(sm, &sched));
  nt = sched->nthreads;
  (void)nt;
  if (d == 1) {
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
    for (PetscInt p = 0; p < n; p++) y[p] = diag[p] * x[p];
  } else {
#if defined(PETSCGILU_HAVE_OPENMP)
  #pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
    for (PetscInt p = 0; p < n; p++)
      for (PetscInt a = 0; a < d; a++) {
        PetscScalar v = 0;

        for (PetscInt e = 0; e < d; e++) v += diag[(size_t)p * bs2 + a * d + e] * x[p * d + e];
        y[p * d + a] = v;
      }
  }
  PetscCall(PetscLogFlops(2.0 * n * d * d));
  PetscFunctionReturn(PETSC_SUCCESS);
}
