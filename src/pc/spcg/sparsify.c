/*
   PCSPARSIFY: wavefront-aware sparsification before an incomplete factorization (SPCG, the paper of Ma et al.).

   At setup the PC splits A = Â + S by dropping the smallest off-diagonal entries of A, choosing how many
   with Algorithm 2 of the paper (sparsify-select.c has the pieces), and sets up an inner PC (prefix
   -pc_sparsify_sub_, default ILU(0)) on Â. The Krylov method keeps A: with KSPCG this is SPCG.
*/
#include <petsc/private/pcimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/stencilgpu.h>
#include <petscgilu/private/sptrsv.h>
#include "sparsify.h"

#define PC_SPARSIFY_MAX_RATIOS 16

typedef enum {
  SPARSIFY_NOT_EVALUATED,
  SPARSIFY_INDICATOR_FAILS, /* ||Â^-1|| ||S|| > tau: next ratio */
  SPARSIFY_WAVEFRONTS_FAIL, /* reduction < omega: next ratio */
  SPARSIFY_CHOSEN,          /* reduction >= omega */
  SPARSIFY_CHOSEN_LAST,     /* the last ratio passes the indicator: chosen whatever its reduction */
  SPARSIFY_CHOSEN_FALLBACK, /* no ratio passes the indicator: the first (most aggressive) one */
  SPARSIFY_FORCED           /* -pc_sparsify_ratio */
} SparsifyVerdict;

typedef struct {
  PetscReal       ratio;                           /* percent of the nonzeros asked for */
  PetscInt        nprefix;                         /* local: leading items dropped */
  PetscInt        dropped;                         /* scalar entries dropped, all processes */
  PetscBool       capped;                          /* every off-diagonal entry dropped before the ratio was reached */
  PetscReal       normS, normAhat, norm2, invnorm; /* ||S||_inf, ||Â||_inf, ||Â||_2 estimate, ||Â^-1|| estimate */
  PetscReal       indicator;                       /* ||Â^-1|| ||S|| */
  PetscInt        waves;                           /* wavefronts of Â, -1 if not counted */
  PetscReal       reduction;                       /* 100 (w_A - w_Â) / w_A */
  SparsifyVerdict verdict;
} SparsifyCandidate;

typedef struct {
  /* options */
  PetscInt   nratios;
  PetscReal  ratios[PC_SPARSIFY_MAX_RATIOS]; /* -pc_sparsify_ratios */
  PetscReal  ratio;                          /* -pc_sparsify_ratio, < 0: Algorithm 2 */
  PetscReal  tau, omega;                     /* -pc_sparsify_tau, -pc_sparsify_omega (percent) */
  PetscBool3 symmetric;                      /* -pc_sparsify_symmetric; unknown: detected */
  /* set up */
  PC                sub;
  PetscBool         subset;              /* the inner PC's type and options have been set */
  Mat               Ahat;                /* NULL when the inner PC works on A itself (or made on request, PCSparsifyGetSparsifiedMatrix()) */
  PetscBool         viafactor;           /* Â is not assembled: the inner ILU(0)'s factor (MatSolverType gilu) is told the entries
                                            of S and drops them from A itself (MatGILUFactorSetDropped()) */
  PetscBT           mask;                /* during setup: the entries of the local diagonal block dropped from Â (one bit each) */
  PetscInt          masklen, maskprefix; /* the mask holds the first maskprefix items */
  PetscInt         *drop, ndrop;         /* after setup: the positions of the entries dropped (increasing), to tell the next setup
                                            whether Â's pattern changed (the mask, one flag per entry of A, is freed) */
  PetscBool         issym;               /* pairs dropped at the last setup */
  PetscInt          levels;              /* K of the inner ILU(K) that the wavefronts were counted for */
  PetscInt          ncand, chosen;
  SparsifyCandidate cand[PC_SPARSIFY_MAX_RATIOS];
  PetscInt          wA, wAhat;          /* wavefronts of A and of the chosen Â (max over processes) */
  PetscInt          fillA, bs;          /* entries (blocks of bs x bs) of the ILU(levels) pattern of A's diagonal blocks */
  PetscInt          nnz, noffdiag;      /* scalar entries of the diagonal blocks, of which off-diagonal (all processes) */
  PetscReal         mindiag;            /* smallest |a_ii| */
  PetscReal         chosenratio;        /* -1 before setup */
  PetscInt          nsetups, nrebuilds; /* setups, and those that changed the pattern of Â */
} PC_Sparsify;

static PetscErrorCode PCSparsifyGetSubPC_Sparsify(PC pc, PC *sub)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;
  const char  *prefix;

  PetscFunctionBegin;
  if (!sp->sub) {
    PetscCall(PCCreate(PetscObjectComm((PetscObject)pc), &sp->sub));
    PetscCall(PetscObjectIncrementTabLevel((PetscObject)sp->sub, (PetscObject)pc, 1));
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(PCSetOptionsPrefix(sp->sub, prefix));
    PetscCall(PCAppendOptionsPrefix(sp->sub, "pc_sparsify_sub_"));
  }
  *sub = sp->sub;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inner PC's type (ILU(0) on one process, block Jacobi on several), its options, and MatSolverType gilu for
   ILU/ICC when the plugin's solver is registered for the matrix type and the user chose no other */
static PetscErrorCode PCSparsifySetUpSubPC(PC pc)
{
  PC_Sparsify  *sp = (PC_Sparsify *)pc->data;
  PC            sub;
  PetscMPIInt   size;
  PetscBool     isilu, isicc, avail;
  MatSolverType st;
  const char   *prefix;
  char          subprefix[256];

  PetscFunctionBegin;
  PetscCall(PCSparsifyGetSubPC_Sparsify(pc, &sub));
  if (!sp->subset) {
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    if (!((PetscObject)sub)->type_name) PetscCall(PCSetType(sub, size > 1 ? PCBJACOBI : PCILU));
    PetscCall(PCSetFromOptions(sub));
    PetscCall(PetscObjectTypeCompare((PetscObject)sub, PCILU, &isilu));
    PetscCall(PetscObjectTypeCompare((PetscObject)sub, PCICC, &isicc));
    if (isilu || isicc) {
      PetscCall(PCFactorGetMatSolverType(sub, &st));
      if (!st) {
        PetscCall(MatGetFactorAvailable(pc->pmat, "gilu", isilu ? MAT_FACTOR_ILU : MAT_FACTOR_ICC, &avail)); /* (stencilgpu's: its image's) */
        if (avail) PetscCall(PCFactorSetMatSolverType(sub, "gilu"));
      }
    }
    /* structilu finds its grid in the DMDA of the PC: the sparsified pattern no longer reveals it */
    if (pc->dm) {
      PetscBool isstruct;

      PetscCall(PetscObjectTypeCompare((PetscObject)sub, "structilu", &isstruct));
      if (isstruct) PetscCall(PCSetDM(sub, pc->dm));
    }
    sp->subset = PETSC_TRUE;
  }
  /* the levels of fill of the factorization the wavefronts are counted for */
  PetscCall(PetscObjectTypeCompare((PetscObject)sub, PCILU, &isilu));
  PetscCall(PetscObjectTypeCompare((PetscObject)sub, PCICC, &isicc));
  sp->levels = 0;
  if (isilu || isicc) PetscCall(PCFactorGetLevels(sub, &sp->levels));
  else {
    PetscCall(PCGetOptionsPrefix(sub, &prefix));
    PetscCall(PetscSNPrintf(subprefix, sizeof(subprefix), "%ssub_", prefix ? prefix : ""));
    PetscCall(PetscOptionsGetInt(((PetscObject)pc)->options, subprefix, "-pc_factor_levels", &sp->levels, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Line 9 of Algorithm 2: the wavefronts of the Â_t whose mask is sp->mask */
static PetscErrorCode PCSparsifyCountWavefronts(PC pc, const SparsifyLocal *L, SparsifyCandidate *c)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCall(SparsifyCountWavefronts(L->n, L->ai, L->aj, sp->mask, sp->levels, &c->waves, NULL));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &c->waves, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
  c->reduction = sp->wA > 0 ? 100.0 * (PetscReal)(sp->wA - c->waves) / (PetscReal)sp->wA : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Lines 3-4 of Algorithm 2 for one candidate: Â_t (its mask in sp->mask) and ||Â_t^-1|| ||S_t|| */
static PetscErrorCode PCSparsifyEvaluate(PC pc, const SparsifyLocal *L, PetscInt nitems, PetscInt nkept, const SparsifyItem items[], const PetscReal rowsum[], const PetscReal colsum[], SparsifyCandidate *c)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;
  PetscInt     bs = L->bs, bs2 = bs * bs, nl = L->n * bs, nd;
  PetscReal   *rowS, *colS = NULL, mx[3] = {0, 0, 0};
  PetscInt     cnt[2];
  MPI_Comm     comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCall(SparsifyItemsCount(nkept, items, L->ai[L->n], c->ratio, &c->nprefix, &nd)); /* never reaches past the kept items (SparsifyItemsCreate()) */
  PetscCall(PetscCalloc1(nl, &rowS));
  if (colsum) PetscCall(PetscCalloc1(PetscMax(nl, 1), &colS)); /* not NULL without rows: the same norm on every process */
  PetscCall(SparsifyMask(L, c->nprefix, items, &sp->maskprefix, sp->mask));
  /* the dropped entries: each item's entry (row r, column c) and its partner (row c, column r) */
  for (PetscInt m = 0; m < c->nprefix; m++) {
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt k = side ? items[m].kt : items[m].k, r = side ? L->aj[items[m].k] : items[m].r, col = side ? items[m].r : L->aj[items[m].k];

      if (k < 0) continue;
      for (PetscInt jj = 0; jj < bs; jj++)
        for (PetscInt ii = 0; ii < bs; ii++) {
          PetscReal a = PetscAbsScalar(L->aa[k * bs2 + jj * bs + ii]);

          rowS[r * bs + ii] += a;
          if (colS) colS[col * bs + jj] += a;
        }
    }
  }
  for (PetscInt q = 0; q < nl; q++) {
    mx[0] = PetscMax(mx[0], rowS[q]);
    mx[1] = PetscMax(mx[1], rowsum[q] - rowS[q]);
    if (colS) mx[2] = PetscMax(mx[2], colsum[q] - colS[q]);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mx, 3, MPIU_REAL, MPIU_MAX, comm));
  cnt[0] = nd * bs2;
  cnt[1] = c->nprefix == nitems && nitems ? 1 : 0;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, 2, MPIU_INT, MPI_SUM, comm));
  c->dropped  = cnt[0];
  c->capped   = (PetscBool)(cnt[1] > 0 && (PetscReal)c->dropped < c->ratio * (PetscReal)sp->nnz / 100.0 - (PetscReal)bs2);
  c->normS    = mx[0];
  c->normAhat = mx[1];
  /* the paper's estimate: kappa(Â) ~ ||Â||_inf / min_i Â_ii and ||Â^-1|| ~ kappa(Â) / ||Â||_2, with ||Â||_2 taken as
     ||Â||_inf for a symmetric Â (the paper's proxy for the largest eigenvalue), else sqrt(||Â||_1 ||Â||_inf) >= ||Â||_2 */
  c->norm2     = colS ? PetscSqrtReal(mx[2] * mx[1]) : mx[1];
  c->invnorm   = sp->mindiag > 0 && c->norm2 > 0 ? (c->normAhat / sp->mindiag) / c->norm2 : PETSC_INFINITY;
  c->indicator = c->normS > 0 ? (c->invnorm >= PETSC_INFINITY ? PETSC_INFINITY : c->invnorm * c->normS) : 0;
  c->waves     = -1;
  PetscCall(PetscFree(rowS));
  PetscCall(PetscFree(colS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Â: A without the masked entries of its diagonal block, same type and layout; values only when the pattern is kept */
static PetscErrorCode PCSparsifyAssemble(PC pc, const SparsifyLocal *L, PetscBool newpattern)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;
  Mat          A, B;
  PetscInt     bs = L->bs, bs2 = bs * bs, m, nc, M, N, *dnz, *onz, *cols, maxrow = 0;
  PetscScalar *vals;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCSPARSIFY", &A));
  if (newpattern) {
    PetscCall(MatDestroy(&sp->Ahat));
    PetscCall(MatGetLocalSize(A, &m, &nc));
    PetscCall(MatGetSize(A, &M, &N));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, m, nc, M, N));
    PetscCall(MatSetType(B, ((PetscObject)A)->type_name));
    PetscCall(PetscCalloc2(L->n, &dnz, L->n, &onz));
    for (PetscInt r = 0; r < L->n; r++) {
      for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++)
        if (!PetscBTLookup(sp->mask, k)) dnz[r]++;
      if (L->Ao) onz[r] = L->bi[r + 1] - L->bi[r];
    }
    PetscCall(MatXAIJSetPreallocation(B, bs, dnz, onz, NULL, NULL));
    PetscCall(PetscFree2(dnz, onz));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    if (!L->ismpi) PetscCall(MatSetOption(B, MAT_SORTED_FULL, PETSC_TRUE)); /* rows come whole and sorted into an empty matrix: the fast insertion (first assembly only) */
    sp->Ahat = B;
  }
  B = sp->Ahat;
  if (L->isbaij) PetscCall(MatSetOption(B, MAT_ROW_ORIENTED, PETSC_FALSE)); /* the blocks are copied as BAIJ stores them */
  for (PetscInt r = 0; r < L->n; r++) maxrow = PetscMax(maxrow, L->ai[r + 1] - L->ai[r] + (L->Ao ? L->bi[r + 1] - L->bi[r] : 0));
  PetscCall(PetscMalloc2(maxrow, &cols, maxrow, &vals));
  for (PetscInt r = 0; r < L->n; r++) {
    PetscInt g = L->rstart + r, nk = 0;

    if (L->isbaij) {
      for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++) {
        PetscInt gc = L->rstart + L->aj[k];

        if (!PetscBTLookup(sp->mask, k)) PetscCall(MatSetValuesBlocked(B, 1, &g, 1, &gc, &L->aa[k * bs2], INSERT_VALUES));
      }
      if (L->Ao)
        for (PetscInt k = L->bi[r]; k < L->bi[r + 1]; k++) PetscCall(MatSetValuesBlocked(B, 1, &g, 1, &L->garray[L->bj[k]], &L->ba[k * bs2], INSERT_VALUES));
      continue;
    }
    for (PetscInt k = L->ai[r]; k < L->ai[r + 1]; k++)
      if (!PetscBTLookup(sp->mask, k)) {
        cols[nk]   = L->rstart + L->aj[k];
        vals[nk++] = L->aa[k];
      }
    if (L->Ao)
      for (PetscInt k = L->bi[r]; k < L->bi[r + 1]; k++) {
        cols[nk]   = L->garray[L->bj[k]];
        vals[nk++] = L->ba[k];
      }
    PetscCall(MatSetValues(B, 1, &g, nk, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (newpattern && !L->ismpi) PetscCall(MatSetOption(B, MAT_SORTED_FULL, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCReset() of the inner PC. After an ILU in place (-pc_sparsify_sub_pc_factor_in_place) PETSc's PCILU keeps its factor,
   Â itself, without a reference of its own and does not forget it at a reset; once Â is destroyed, the next setup
   destroys that stale pointer. The factor is given a reference and the reset made as for a factor of its own, which
   destroys it (that reference) and forgets it. */
static PetscErrorCode PCSparsifyResetSub(PC pc)
{
  PC_Sparsify   *sp  = (PC_Sparsify *)pc->data;
  PC             sub = sp->sub;
  PetscBool      isilu, inplace = PETSC_FALSE;
  MatFactorType  ft = MAT_FACTOR_NONE;
  PCFailedReason reason;

  PetscFunctionBegin;
  if (!sub) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)sub, PCILU, &isilu));
  if (isilu && sub->setupcalled && sub->pmat) {
    PetscCall(PCFactorGetUseInPlace(sub, &inplace));
    PetscCall(MatGetFactorType(sub->pmat, &ft));
    PetscCall(PCGetFailedReason(sub, &reason));
    inplace = (PetscBool)(inplace && ft != MAT_FACTOR_NONE && !reason); /* a failed factorization set no factor */
  }
  if (inplace) {
    PetscCall(PetscObjectReference((PetscObject)sub->pmat));
    PetscCall(PCFactorSetUseInPlace(sub, PETSC_FALSE));
  }
  PetscCall(PCReset(sub));
  if (inplace) PetscCall(PCFactorSetUseInPlace(sub, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Whether Â need not be assembled: an inner ILU(0) with MatSolverType gilu and its own numeric factorization, in the
  natural ordering, not in place and without a shift that restarts the factorization, on one process's MATSEQAIJ, factors A - S from A itself (its own
  numeric ILU(0) skips S's entries), so Â and its factor are not both held during the setup (ksp ex45 100^3: the peak's
  increment over no preconditioner was 1.96x PETSc ILU(0)'s with Â assembled). Anything else gets Â assembled.
*/
static PetscErrorCode PCSparsifyFactorDrops(PC pc, const SparsifyLocal *L, PetscBool *drops)
{
  PC_Sparsify       *sp = (PC_Sparsify *)pc->data;
  PetscBool          isilu, gilu = PETSC_FALSE, inplace, natural = PETSC_TRUE, ownnumeric = PETSC_TRUE, flg;
  MatSolverType      st;
  MatFactorShiftType shift;
  const char        *prefix;
  char               ot[64];

  PetscFunctionBegin;
  *drops = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)sp->sub, PCILU, &isilu));
  if (!isilu || L->ismpi || L->isbaij || sp->levels != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCFactorGetMatSolverType(sp->sub, &st));
  if (st) PetscCall(PetscStrcmp(st, MATSOLVERGILU, &gilu));
  PetscCall(PCFactorGetUseInPlace(sp->sub, &inplace));
  /* (PETSc has no getter of PCFactor's ordering: an ordering set in the code reaches gilu, which refuses it, naming it) */
  PetscCall(PCGetOptionsPrefix(sp->sub, &prefix));
  PetscCall(PetscOptionsGetString(((PetscObject)sp->sub)->options, prefix, "-pc_factor_mat_ordering_type", ot, sizeof(ot), &flg));
  if (flg) PetscCall(PetscStrcmp(ot, MATORDERINGNATURAL, &natural));
  /* the factor's options have the inner PC's prefix: PETSc's numeric factorization (-mat_gilu_factor_numeric petsc) cannot skip S */
  PetscCall(PetscOptionsGetString(((PetscObject)sp->sub)->options, prefix, "-mat_gilu_factor_numeric", ot, sizeof(ot), &flg));
  if (flg) PetscCall(PetscStrcasecmp(ot, "petsc", &flg));
  if (flg) ownnumeric = PETSC_FALSE;
  PetscCall(PCFactorGetShiftType(sp->sub, &shift));
  *drops = (PetscBool)(gilu && !inplace && natural && ownnumeric && (shift == MAT_SHIFT_NONE || shift == MAT_SHIFT_INBLOCKS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Sparsify(PC pc)
{
  PC_Sparsify   *sp = (PC_Sparsify *)pc->data;
  SparsifyLocal  L;
  Mat            A;
  SparsifyItem  *items  = NULL;
  PetscInt       nitems = 0, nkept = 0, noff, cnt[2], oldlen = sp->masklen;
  PetscReal     *rowsum, *colsum = NULL;
  PetscBool      sym, newpattern, viafactor, wasA = (PetscBool)(sp->sub && !sp->Ahat && !sp->viafactor && sp->nsetups > 0);
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PCFailedReason reason;

  PetscFunctionBegin;
  pc->failedreason = PC_NOERROR; /* a failure is of the factors it was found in (KSPSetUp() reads it) */
  PetscCall(PetscGILUCitationsRegister(GILU_CITE_SPCG));
  PetscCall(GILUMatCheckSquare(pc->pmat));
  PetscCall(PCSparsifySetUpSubPC(pc));
  PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCSPARSIFY", &A));
  PetscCall(SparsifyLocalGet(A, &L)); /* checks the matrix type */
  PetscCall(PetscLogEventBegin(GILU_SparsifySetUp, pc, 0, 0, 0));
  /* symmetric: drop pairs */
  if (sp->symmetric == PETSC_BOOL3_UNKNOWN) PetscCall(SparsifyLocalIsSymmetric(&L, GILU_SYMMETRY_RTOL, &sym));
  else sym = sp->symmetric == PETSC_BOOL3_TRUE ? PETSC_TRUE : PETSC_FALSE;
  sp->issym = sym;
  /* the entries in magnitude order, the norms of A, the wavefronts of A */
  {
    PetscReal rmax = PetscMax(sp->ratio, 0);

    if (sp->ratio < 0)
      for (PetscInt t = 0; t < sp->nratios; t++) rmax = PetscMax(rmax, sp->ratios[t]);
    /* only the smallest items that the largest ratio can drop are sorted */
    PetscCall(SparsifyItemsCreate(&L, sym, (PetscInt)PetscFloorReal(rmax * (PetscReal)L.ai[L.n] / 100.0 + 1e-9) + 1, &nitems, &nkept, &items, &noff));
  }
  cnt[0] = L.ai[L.n] * L.bs * L.bs;
  cnt[1] = noff * L.bs * L.bs;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, 2, MPIU_INT, MPI_SUM, comm));
  sp->nnz      = cnt[0];
  sp->noffdiag = cnt[1];
  PetscCall(PetscMalloc1(L.n * L.bs, &rowsum));
  if (!sym) PetscCall(PetscMalloc1(PetscMax(L.n * L.bs, 1), &colsum)); /* not NULL on a process without rows: every process takes the column sums */
  PetscCall(SparsifyLocalNorms(&L, rowsum, (PetscBool)!sym, colsum, &sp->mindiag));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sp->mindiag, 1, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(SparsifyCountWavefronts(L.n, L.ai, L.aj, NULL, sp->levels, &sp->wA, &sp->fillA));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sp->wA, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sp->fillA, 1, MPIU_INT, MPI_SUM, comm));
  sp->bs         = L.bs;
  sp->masklen    = L.ai[L.n];
  sp->maskprefix = 0;
  PetscCall(PetscBTDestroy(&sp->mask)); /* left by a setup that failed */
  PetscCall(PetscBTCreate(sp->masklen, &sp->mask));

  /* Algorithm 2 (or the forced ratio) */
  sp->ncand  = 0;
  sp->chosen = -1;
  if (sp->ratio > 0) {
    SparsifyCandidate *c = &sp->cand[0];

    PetscCall(PetscMemzero(c, sizeof(*c)));
    c->ratio = sp->ratio;
    PetscCall(PCSparsifyEvaluate(pc, &L, nitems, nkept, items, rowsum, colsum, c));
    PetscCall(PCSparsifyCountWavefronts(pc, &L, c));
    c->verdict = SPARSIFY_FORCED;
    sp->ncand  = 1;
    sp->chosen = 0;
  } else if (sp->ratio < 0) {
    for (PetscInt t = 0; t < sp->nratios; t++) {
      SparsifyCandidate *c    = &sp->cand[t];
      PetscBool          last = (PetscBool)(t == sp->nratios - 1);

      PetscCall(PetscMemzero(c, sizeof(*c)));
      c->ratio = sp->ratios[t];
      sp->ncand++;
      PetscCall(PCSparsifyEvaluate(pc, &L, nitems, nkept, items, rowsum, colsum, c)); /* lines 3-4 */
      if (c->indicator > sp->tau) {                                                   /* line 5 */
        c->verdict = SPARSIFY_INDICATOR_FAILS;
        if (last) { /* line 6: return A - S_t of the first (most aggressive) ratio */
          sp->chosen          = 0;
          sp->cand[0].verdict = SPARSIFY_CHOSEN_FALLBACK;
          break;
        }
        continue; /* line 7 */
      }
      PetscCall(PCSparsifyCountWavefronts(pc, &L, c)); /* line 9 */
      if (c->reduction >= sp->omega || last) {         /* line 10 */
        c->verdict = c->reduction >= sp->omega ? SPARSIFY_CHOSEN : SPARSIFY_CHOSEN_LAST;
        sp->chosen = t; /* line 11 */
        break;
      }
      c->verdict = SPARSIFY_WAVEFRONTS_FAIL;
    }
    /* line 14 (return A - S_t of the first ratio) is reached only without candidates, which the options forbid */
  }

  /* the chosen Â: its mask (and its wavefronts, for the view, when the indicator test stopped before line 9) */
  if (sp->chosen >= 0) {
    SparsifyCandidate *c = &sp->cand[sp->chosen];

    PetscCall(SparsifyMask(&L, c->nprefix, items, &sp->maskprefix, sp->mask));
    if (c->waves < 0) PetscCall(PCSparsifyCountWavefronts(pc, &L, c));
    sp->wAhat       = c->waves;
    sp->chosenratio = c->ratio;
  } else {
    PetscCall(SparsifyMask(&L, 0, items, &sp->maskprefix, sp->mask));
    sp->wAhat       = sp->wA;
    sp->chosenratio = 0;
  }
  PetscCall(PetscFree(items));
  PetscCall(PetscFree(rowsum));
  PetscCall(PetscFree(colsum));

  /* Â is rebuilt when its pattern changes (a new pattern of A, or other entries dropped), else only its values; where
     the inner factor drops S's entries itself, the same decides between a new factor and a numeric factorization */
  PetscCall(PCSparsifyFactorDrops(pc, &L, &viafactor));
  if (sp->chosen < 0) {
    viafactor  = PETSC_FALSE;
    newpattern = (PetscBool)(sp->Ahat || !wasA || pc->flag != SAME_NONZERO_PATTERN);
    PetscCall(MatDestroy(&sp->Ahat));
  } else {
    PetscInt      diff, ndrop = 0;
    MatFactorType ft = MAT_FACTOR_NONE;

    /* an inner factorization in place (-pc_sparsify_sub_pc_factor_in_place) left its factor in Â's storage: Â is
       assembled again, as for a new pattern, since a factored matrix takes no new values */
    if (sp->Ahat) PetscCall(MatGetFactorType(sp->Ahat, &ft));
    diff = (PetscInt)(!(viafactor ? sp->viafactor : sp->Ahat && !sp->viafactor) || ft != MAT_FACTOR_NONE || pc->flag != SAME_NONZERO_PATTERN || oldlen != sp->masklen);

    for (PetscInt k = 0; k < sp->masklen && !diff; k++)
      if (PetscBTLookup(sp->mask, k)) diff = (PetscInt)(ndrop >= sp->ndrop || sp->drop[ndrop++] != k);
    if (ndrop != sp->ndrop) diff = 1;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &diff, 1, MPIU_INT, MPI_MAX, comm)); /* every process takes the same path */
    newpattern = (PetscBool)(diff > 0);
    if (viafactor) PetscCall(MatDestroy(&sp->Ahat)); /* (one made on request, PCSparsifyGetSparsifiedMatrix()) */
    else PetscCall(PCSparsifyAssemble(pc, &L, newpattern));
  }
  sp->viafactor = viafactor;
  /* the mask as the list of the dropped positions (a few percent of the entries), for the next setup */
  PetscCall(PetscFree(sp->drop));
  sp->ndrop = 0;
  for (PetscInt k = 0; k < sp->masklen; k++) sp->ndrop += PetscBTLookup(sp->mask, k) ? 1 : 0;
  PetscCall(PetscMalloc1(sp->ndrop, &sp->drop));
  for (PetscInt k = 0, q = 0; k < sp->masklen; k++)
    if (PetscBTLookup(sp->mask, k)) sp->drop[q++] = k;
  PetscCall(PetscBTDestroy(&sp->mask));
  PetscCall(SparsifyLocalRestore(&L));
  PetscCall(PetscLogEventEnd(GILU_SparsifySetUp, pc, 0, 0, 0));

  /* the inner PC on Â (a new operator: set up from scratch; new values only: numeric setup) */
  if (newpattern) {
    /* Â, or where nothing is dropped A itself (a stencilgpu operator too: the inner PC's factor takes it), or where the
       inner factor drops S itself the matrix whose entries S numbers (a stencilgpu operator's AIJ image) */
    Mat inner = sp->Ahat ? sp->Ahat : (sp->viafactor ? A : pc->pmat);

    if (sp->nsetups) PetscCall(PCSparsifyResetSub(pc));
    PetscCall(PCSetOperators(sp->sub, inner, inner));
    if (sp->viafactor) { /* the factor is made now, to be told S before its symbolic factorization */
      Mat         F;
      const char *prefix;

      /* the inner PC's prefix for the factor's options, as PCSetUp_ILU() gives it (it would, but after this factor is made) */
      PetscCall(PCGetOptionsPrefix(sp->sub, &prefix));
      PetscCall(MatSetOptionsPrefixFactor(inner, prefix));
      PetscCall(PCFactorSetUpMatSolverType(sp->sub));
      PetscCall(PCFactorGetMatrix(sp->sub, &F));
      PetscCall(MatGILUFactorSetDropped(F, A, sp->ndrop, sp->drop));
    }
    sp->nrebuilds++;
  }
  sp->nsetups++;
  if (!newpattern) { /* PETSc's PCILU/PCICC return before refactoring while their factor keeps the error of its last
                        factorization (they read it as the symbolic factorization's): new values get a new numeric one */
    PetscBool isfactor;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)sp->sub, &isfactor, PCILU, PCICC, ""));
    if (isfactor && sp->sub->setupcalled) {
      Mat F;

      PetscCall(PCFactorGetMatrix(sp->sub, &F));
      PetscCall(MatFactorClearError(F));
    }
  }
  PetscCall(PCSetReusePreconditioner(sp->sub, PETSC_FALSE)); /* the outer PC is set up: so is the inner one (an apply may have left it reused) */
  PetscCall(PCSetUp(sp->sub));
  PetscCall(PCSetUpOnBlocks(sp->sub));
  PetscCall(PCGetFailedReason(sp->sub, &reason));
  if (reason) pc->failedreason = reason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Sparsify(PC pc, Vec x, Vec y)
{
  PC_Sparsify   *sp = (PC_Sparsify *)pc->data;
  PCFailedReason reason;

  PetscFunctionBegin;
  /* the inner PC's operator may be A itself (nothing dropped, or the inner factor drops S): PCApply() would set it up
     again for A's new values when the outer PC is reused (KSPSetReusePreconditioner(), -snes_lag_preconditioner), as
     PCBJACOBI's single block would without the same line */
  PetscCall(PCSetReusePreconditioner(sp->sub, pc->reusepreconditioner));
  PetscCall(PCApply(sp->sub, x, y));
  PetscCall(PCGetFailedReason(sp->sub, &reason));
  if (reason) pc->failedreason = reason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_Sparsify(PC pc, Vec x, Vec y)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCSetReusePreconditioner(sp->sub, pc->reusepreconditioner)); /* as PCApply_Sparsify() */
  PetscCall(PCApplyTranspose(sp->sub, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the inner PC's PCMatApply() (its own, or PETSc's column by column where it has none), with the reuse of PCApply_Sparsify() */
static PetscErrorCode PCMatApply_Sparsify(PC pc, Mat B, Mat X)
{
  PC_Sparsify   *sp = (PC_Sparsify *)pc->data;
  PCFailedReason reason;

  PetscFunctionBegin;
  PetscCall(PCSetReusePreconditioner(sp->sub, pc->reusepreconditioner)); /* as PCApply_Sparsify() */
  PetscCall(PCMatApply(sp->sub, B, X));
  PetscCall(PCGetFailedReason(sp->sub, &reason));
  if (reason) pc->failedreason = reason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PETSC_VERSION_GE(3, 24, 0) /* PCMatApplyTranspose() */
static PetscErrorCode PCMatApplyTranspose_Sparsify(PC pc, Mat B, Mat X)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCSetReusePreconditioner(sp->sub, pc->reusepreconditioner)); /* as PCApply_Sparsify() */
  PetscCall(PCMatApplyTranspose(sp->sub, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PCReset_Sparsify(PC pc)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCSparsifyResetSub(pc));
  PetscCall(MatDestroy(&sp->Ahat));
  PetscCall(PetscBTDestroy(&sp->mask));
  PetscCall(PetscFree(sp->drop));
  sp->ndrop       = 0;
  sp->masklen     = 0;
  sp->ncand       = 0;
  sp->chosen      = -1;
  sp->chosenratio = -1;
  sp->nsetups     = 0;
  sp->nrebuilds   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Sparsify(PC pc)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_Sparsify(pc));
  PetscCall(PCDestroy(&sp->sub));
  PetscCall(PetscFree(pc->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetRatios_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetRatios_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetRatio_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetRatio_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetTau_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetTau_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetOmega_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetOmega_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetSymmetric_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSymmetric_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSubPC_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSparsifiedMatrix_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetWavefronts_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *VerdictText(SparsifyVerdict v)
{
  switch (v) {
  case SPARSIFY_INDICATOR_FAILS:
    return "indicator > tau: next ratio";
  case SPARSIFY_WAVEFRONTS_FAIL:
    return "reduction < omega: next ratio";
  case SPARSIFY_CHOSEN:
    return "CHOSEN (indicator <= tau, reduction >= omega)";
  case SPARSIFY_CHOSEN_LAST:
    return "CHOSEN (last ratio, indicator <= tau: taken whatever its reduction)";
  case SPARSIFY_CHOSEN_FALLBACK:
    return "CHOSEN (fall-back: no ratio passes the indicator, the first one is taken)";
  case SPARSIFY_FORCED:
    return "CHOSEN (forced by -pc_sparsify_ratio)";
  default:
    return "not evaluated";
  }
}

static PetscErrorCode PCView_Sparsify(PC pc, PetscViewer viewer)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;
  PetscBool    ascii;
  char         list[256] = "";
  PetscInt     N         = -1;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt t = 0; t < sp->nratios; t++) {
    size_t len;

    PetscCall(PetscStrlen(list, &len));
    PetscCall(PetscSNPrintf(list + len, sizeof(list) - len, "%s%g", t ? ", " : "", (double)sp->ratios[t]));
  }
  if (sp->ratio < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  wavefront-aware sparsification (Algorithm 2): ratios %s %% of the nonzeros, tau %g, omega %g %%\n", list, (double)sp->tau, (double)sp->omega));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  sparsification ratio forced: %g %% of the nonzeros\n", (double)sp->ratio));
  if (!sp->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (pc->pmat) PetscCall(MatGetSize(pc->pmat, &N, NULL));
  if (!N) PetscCall(PetscViewerASCIIPrintf(viewer, "  A is 0 x 0: nothing to sparsify, Ahat = A\n"));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %s; smallest |a_ii| %g; A: %" PetscInt_FMT " nonzeros in the local diagonal blocks, %" PetscInt_FMT " off-diagonal\n", sp->issym ? "symmetric: entries dropped in pairs" : "nonsymmetric: entries dropped one by one",
                                     (double)sp->mindiag, sp->nnz, sp->noffdiag));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  wavefronts counted on the lower triangle of the ILU(%" PetscInt_FMT ") pattern (largest over the local diagonal blocks): w_A = %" PetscInt_FMT "; that pattern of A has %" PetscInt_FMT " %s\n", sp->levels, sp->wA, sp->fillA, sp->bs > 1 ? "blocks" : "nonzeros"));
  for (PetscInt t = 0; t < sp->ncand; t++) {
    const SparsifyCandidate *c = &sp->cand[t];

    if (c->invnorm >= PETSC_INFINITY)
      PetscCall(
        PetscViewerASCIIPrintf(viewer, "  ratio %g %%: dropped %" PetscInt_FMT "%s, ||S||_inf %.4g, ||Ahat^-1|| ~ inf (a zero diagonal entry), indicator inf", (double)c->ratio, c->dropped, c->capped ? " (every off-diagonal entry)" : "", (double)c->normS));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  ratio %g %%: dropped %" PetscInt_FMT "%s, ||S||_inf %.4g, ||Ahat^-1|| ~ %.4g, indicator %.4g", (double)c->ratio, c->dropped, c->capped ? " (every off-diagonal entry)" : "", (double)c->normS, (double)c->invnorm,
                                       (double)c->indicator));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    if (c->waves >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", wavefronts %" PetscInt_FMT " -> %" PetscInt_FMT " (reduction %.1f %%)", sp->wA, c->waves, (double)c->reduction));
    PetscCall(PetscViewerASCIIPrintf(viewer, ": %s\n", VerdictText(c->verdict)));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  }
  if (sp->chosen >= 0) {
    const SparsifyCandidate *c = &sp->cand[sp->chosen];

    PetscCall(PetscViewerASCIIPrintf(viewer, "  Ahat = A - S at %g %%: %" PetscInt_FMT " of %" PetscInt_FMT " nonzeros dropped (%.2f %%), wavefronts %" PetscInt_FMT " -> %" PetscInt_FMT "\n", (double)c->ratio, c->dropped, sp->nnz,
                                     sp->nnz ? 100.0 * (double)c->dropped / (double)sp->nnz : 0.0, sp->wA, sp->wAhat));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  ratio 0: no sparsification, the inner PC works on A itself (wavefronts %" PetscInt_FMT ")\n", sp->wA));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setups %" PetscInt_FMT ", of which %" PetscInt_FMT " built the pattern of Ahat\n", sp->nsetups, sp->nrebuilds));
  if (sp->viafactor) PetscCall(PetscViewerASCIIPrintf(viewer, "  Ahat is not assembled: the inner ILU(0)'s factor (MatSolverType gilu) drops the entries of S from A itself\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  inner PC on Ahat (prefix -%spc_sparsify_sub_):\n", ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PCView(sp->sub, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Sparsify(PC pc, GILUOptionItems PetscOptionsObject)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;
  PetscReal    ratios[PC_SPARSIFY_MAX_RATIOS + 1], v; /* room for one more: too many are an error, not dropped */
  PetscInt     n = PC_SPARSIFY_MAX_RATIOS + 1;
  PetscBool    flg, sym;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < n; t++) ratios[t] = t < sp->nratios ? sp->ratios[t] : 0; /* the defaults -help prints */
  PetscOptionsHeadBegin(PetscOptionsObject, "Sparsification (SPCG) options");
  PetscCall(PetscOptionsRealArray("-pc_sparsify_ratios", "Candidate sparsification ratios (percent of the nonzeros), most aggressive first", "PCSparsifySetRatios", ratios, &n, &flg));
  if (flg) PetscCall(PCSparsifySetRatios(pc, n, ratios));
  PetscCall(PetscOptionsReal("-pc_sparsify_ratio", "Force one ratio (percent in [0, 100); 0: no sparsification; not given: Algorithm 2)", "PCSparsifySetRatio", sp->ratio, &v, &flg));
  if (flg) {
    PetscCheck(v >= 0 && v < 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_ratio %g: must be a percentage in [0, 100) (leave the option out for Algorithm 2's choice)", GILUPrefix(pc), (double)v);
    PetscCall(PCSparsifySetRatio(pc, v));
  }
  PetscCall(PetscOptionsReal("-pc_sparsify_tau", "Threshold of the convergence indicator ||Ahat^-1|| ||S||", "PCSparsifySetTau", sp->tau, &v, &flg));
  if (flg) PetscCall(PCSparsifySetTau(pc, v));
  PetscCall(PetscOptionsReal("-pc_sparsify_omega", "Wavefront reduction (percent) a ratio must reach", "PCSparsifySetOmega", sp->omega, &v, &flg));
  if (flg) PetscCall(PCSparsifySetOmega(pc, v));
  PetscCall(PetscOptionsBool("-pc_sparsify_symmetric", "Drop symmetric pairs (default: detected)", "PCSparsifySetSymmetric", sp->symmetric == PETSC_BOOL3_TRUE ? PETSC_TRUE : PETSC_FALSE, &sym, &flg));
  if (flg) PetscCall(PCSparsifySetSymmetric(pc, sym));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifySetRatios_Sparsify(PC pc, PetscInt n, const PetscReal ratios[])
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(n >= 1 && n <= PC_SPARSIFY_MAX_RATIOS, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_ratios: give 1 to %d ratios, not %s%" PetscInt_FMT, GILUPrefix(pc), PC_SPARSIFY_MAX_RATIOS, n > PC_SPARSIFY_MAX_RATIOS ? "at least " : "", n);
  for (PetscInt t = 0; t < n; t++) PetscCheck(ratios[t] > 0 && ratios[t] < 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_ratios: ratio %g must be a percentage in (0, 100)", GILUPrefix(pc), (double)ratios[t]);
  for (PetscInt t = 0; t < n; t++) sp->ratios[t] = ratios[t];
  sp->nratios = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetRatios_Sparsify(PC pc, PetscInt *n, const PetscReal *ratios[])
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  if (n) *n = sp->nratios;
  if (ratios) *ratios = sp->ratios;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifySetRatio_Sparsify(PC pc, PetscReal ratio)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(ratio == (PetscReal)PETSC_DECIDE || (ratio >= 0 && ratio < 100), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_ratio %g: must be a percentage in [0, 100) (PCSparsifySetRatio(): or PETSC_DECIDE for Algorithm 2's choice)", GILUPrefix(pc), (double)ratio);
  sp->ratio = ratio;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetRatio_Sparsify(PC pc, PetscReal *ratio)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  *ratio = sp->nsetups ? sp->chosenratio : sp->ratio;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifySetTau_Sparsify(PC pc, PetscReal tau)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(tau >= 0 && tau < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_tau %g: must be finite and nonnegative", GILUPrefix(pc), (double)tau);
  sp->tau = tau;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetTau_Sparsify(PC pc, PetscReal *tau)
{
  PetscFunctionBegin;
  *tau = ((PC_Sparsify *)pc->data)->tau;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifySetOmega_Sparsify(PC pc, PetscReal omega)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(omega >= 0 && omega <= 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_sparsify_omega %g: must be a percentage in [0, 100]", GILUPrefix(pc), (double)omega);
  sp->omega = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetOmega_Sparsify(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  *omega = ((PC_Sparsify *)pc->data)->omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifySetSymmetric_Sparsify(PC pc, PetscBool sym)
{
  PetscFunctionBegin;
  ((PC_Sparsify *)pc->data)->symmetric = sym ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetSymmetric_Sparsify(PC pc, PetscBool *sym)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  *sym = sp->nsetups ? sp->issym : (PetscBool)(sp->symmetric == PETSC_BOOL3_TRUE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetSparsifiedMatrix_Sparsify(PC pc, Mat *Ahat)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(sp->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() (or KSPSetUp()) before PCSparsifyGetSparsifiedMatrix()");
  if (sp->viafactor && !sp->Ahat) { /* the inner factor dropped S itself: Â assembled now, from A's current values */
    SparsifyLocal L;
    Mat           A;

    PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCSPARSIFY", &A));
    PetscCall(SparsifyLocalGet(A, &L));
    PetscCheck(L.ai[L.n] == sp->masklen, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of the matrix changed since PCSetUp(): call it again before PCSparsifyGetSparsifiedMatrix()");
    PetscCall(PetscBTCreate(sp->masklen, &sp->mask));
    for (PetscInt q = 0; q < sp->ndrop; q++) PetscCall(PetscBTSet(sp->mask, sp->drop[q]));
    PetscCall(PCSparsifyAssemble(pc, &L, PETSC_TRUE));
    PetscCall(PetscBTDestroy(&sp->mask));
    PetscCall(SparsifyLocalRestore(&L));
  }
  *Ahat = sp->Ahat ? sp->Ahat : pc->pmat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSparsifyGetWavefronts_Sparsify(PC pc, PetscInt *wA, PetscInt *wAhat)
{
  PC_Sparsify *sp = (PC_Sparsify *)pc->data;

  PetscFunctionBegin;
  PetscCheck(sp->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() (or KSPSetUp()) before PCSparsifyGetWavefronts()");
  if (wA) *wA = sp->wA;
  if (wAhat) *wAhat = sp->wAhat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCSPARSIFY - "sparsify": wavefront-aware sparsification of the matrix before an inner preconditioner (the SPCG
   paper of Ma et al.: with `KSPCG` this is the sparsified preconditioned conjugate gradient method)

   At setup the matrix is split A = Ahat + S by dropping the t % smallest-magnitude off-diagonal entries (the
   diagonal is always kept; a symmetric matrix loses symmetric pairs, so Ahat stays symmetric; `MATBAIJ` loses whole
   blocks, ranked by their Frobenius norm). The ratio t is chosen by Algorithm 2 of the paper: for each candidate
   ratio, most aggressive first, the convergence indicator ||Ahat^-1|| ||S||_inf is compared with tau, where
   ||Ahat^-1|| ~ kappa(Ahat) / ||Ahat||_2 and kappa(Ahat) ~ ||Ahat||_inf / min_i |Ahat_ii| (the paper's estimate;
   ||Ahat||_2 is taken as ||Ahat||_inf for a symmetric matrix, as the paper's proxy for the largest eigenvalue,
   else as sqrt(||Ahat||_1 ||Ahat||_inf)); a ratio that passes is taken if its wavefront reduction
   100 (w_A - w_Ahat) / w_A (the paper's Equation 7) reaches omega, or if it is the last ratio; a ratio that fails the
   indicator leads to the next ratio, and when the last one fails too, the first (most aggressive) ratio is taken.
   The inner preconditioner is built on Ahat; the Krylov method keeps A. With the default inner ILU(0) of
   MatSolverType gilu (one process, AIJ) Ahat is not assembled: the factor drops S's entries from A as it factors it,
   so the factor is the PC's only copy of Ahat.

   Options Database Keys:
+  -pc_sparsify_ratios <10,5,1> - candidate ratios, percent of the nonzeros, tried in the order given (`PCSparsifySetRatios()`)
.  -pc_sparsify_ratio <t> - force the ratio t (0: no sparsification, the inner PC works on A itself; negative: Algorithm 2) (`PCSparsifySetRatio()`)
.  -pc_sparsify_tau <1> - threshold of the convergence indicator (`PCSparsifySetTau()`)
.  -pc_sparsify_omega <10> - wavefront reduction in percent a ratio must reach (`PCSparsifySetOmega()`)
.  -pc_sparsify_symmetric <bool> - drop symmetric pairs; default: detected on the local diagonal block, relative tolerance 1e-10 (`PCSparsifySetSymmetric()`)
-  -pc_sparsify_sub_<pc options> - the inner preconditioner, e.g. -pc_sparsify_sub_pc_type icc, -pc_sparsify_sub_pc_factor_levels 2 (`PCSparsifyGetSubPC()`)

   Level: intermediate

   Notes:
   The inner PC defaults to `PCILU` (ILU(0)) on one process, using `MatSolverType` "gilu" when it is registered for
   the matrix type and no other solver type was chosen, and to `PCBJACOBI` on several processes. Wavefronts are
   counted on the lower triangle of the pattern the inner factorization works on: that of Ahat, or for ILU(K)
   (-pc_sparsify_sub_pc_factor_levels K, or -pc_sparsify_sub_sub_pc_factor_levels K under block Jacobi) its symbolic
   ILU(K) fill pattern. An inner `PCSTRUCTILU` (while Ahat is still a stencil) gets the PC's `DMDA` for its grid.
   A `MATSTENCILGPU` operator is read through its AIJ image, from which Ahat is assembled; where nothing is dropped the
   inner PC gets the operator itself. `PCMatApply()` (`KSPMatSolve()`; `PCMatApplyTranspose()` with PETSc 3.24 or
   newer) is the inner PC's.

   In parallel each process sparsifies the couplings inside its diagonal block (what block Jacobi factors); couplings
   between processes are kept. The ratio counts the nonzeros of each diagonal block; norms and wavefronts (the largest
   over the processes) are global, so every process takes the same decision.

   Only off-diagonal entries are dropped: a ratio larger than the share of off-diagonal entries drops all of them
   (the view says so) and Ahat is diagonal, which the indicator accepts only when they are small.

   A new setup with the same nonzero pattern runs the selection again on the new values: when the same entries are
   dropped, only the values of Ahat change and the inner PC refactors numerically; else Ahat and the inner PC are rebuilt.

   References:
.  * - Da Ma, Khalid Ahmad, Kazem Cheshmi, Hari Sundar and Mary Hall, Sparsified Preconditioned Conjugate Gradient Solver on
       GPUs, preprint, 2025 (the SPCG paper; `-citations` lists it)

.seealso: `PCSparsifySetRatios()`, `PCSparsifySetRatio()`, `PCSparsifySetTau()`, `PCSparsifySetOmega()`, `PCSparsifySetSymmetric()`,
          `PCSparsifyGetSubPC()`, `PCSparsifyGetSparsifiedMatrix()`, `PCSparsifyGetWavefronts()`, `PCILU`, `KSPCG`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_Sparsify(PC pc)
{
  PC_Sparsify *sp;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sp));
  sp->nratios     = 3;
  sp->ratios[0]   = 10;
  sp->ratios[1]   = 5;
  sp->ratios[2]   = 1;
  sp->ratio       = -1;
  sp->tau         = 1;
  sp->omega       = 10;
  sp->symmetric   = PETSC_BOOL3_UNKNOWN;
  sp->chosen      = -1;
  sp->chosenratio = -1;
  pc->data        = (void *)sp;

  pc->ops->setup          = PCSetUp_Sparsify;
  pc->ops->apply          = PCApply_Sparsify;
  pc->ops->applytranspose = PCApplyTranspose_Sparsify;
  pc->ops->matapply       = PCMatApply_Sparsify;
#if PETSC_VERSION_GE(3, 24, 0)
  pc->ops->matapplytranspose = PCMatApplyTranspose_Sparsify;
#endif
  pc->ops->reset          = PCReset_Sparsify;
  pc->ops->destroy        = PCDestroy_Sparsify;
  pc->ops->view           = PCView_Sparsify;
  pc->ops->setfromoptions = PCSetFromOptions_Sparsify;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetRatios_C", PCSparsifySetRatios_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetRatios_C", PCSparsifyGetRatios_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetRatio_C", PCSparsifySetRatio_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetRatio_C", PCSparsifyGetRatio_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetTau_C", PCSparsifySetTau_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetTau_C", PCSparsifyGetTau_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetOmega_C", PCSparsifySetOmega_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetOmega_C", PCSparsifyGetOmega_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifySetSymmetric_C", PCSparsifySetSymmetric_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSymmetric_C", PCSparsifyGetSymmetric_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSubPC_C", PCSparsifyGetSubPC_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetSparsifiedMatrix_C", PCSparsifyGetSparsifiedMatrix_Sparsify));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSparsifyGetWavefronts_C", PCSparsifyGetWavefronts_Sparsify));
  PetscFunctionReturn(PETSC_SUCCESS);
}
