static char help[] = "Structured-grid stencil test problems: builds a DMDA matrix with a chosen stencil pattern and\n\
dense dof x dof blocks, then solves it with the KSP and PC chosen in the options database.\n\n\
  -dim <2,3>            : grid dimension (default 3)\n\
  -dof <1..8>           : unknowns per grid point, each coupling is a dense dof x dof block (default 1)\n\
  -stencil <name>       : 2D: star5 star9 box9 box25 diamond7 diamond13; 3D: star7 star13 diamond13 diamond25 box27\n\
                          (default star7 in 3D, star5 in 2D); the grid is set with -da_grid_x/y/z (default 8^3 or 16^2)\n\
  -symmetric            : make the matrix symmetric (for CG, ICC, SBAIJ)\n\
  -nonsym_scale <s>     : weight of the non-symmetric part of the off-diagonal values (default 0.3)\n\
  -no_dm                : solve with a copy of the matrix that does not know its DMDA, and do not give the DMDA to the KSP\n\
  -solve_twice          : halve the off-diagonal values (same pattern) and solve a second time\n\
  -twice_in_place       : with -solve_twice, solve again without KSPSetOperators() (the values changed in place: the KSP\n\
                          sets its PC up again only at the first PCApply())\n\
  -view_pattern         : print a summary of the assembled nonzero pattern\n\
  -compare_threads <n>  : only check that PCSTRUCTILU on 1..n threads gives bitwise the same solves as on one\n\
  -compare_ilu          : only apply PCSTRUCTILU and PETSc's PCILU (natural ordering) to one vector and print whether\n\
                          the results agree to round-off\n\
  -compare_matapply <n> : only check that PCMatApply() of the PC of the options on n columns is bitwise PCApply() of each,\n\
                          and count the PCApply() and PCMatApply() calls of a KSPMatSolve() with KSPPREONLY\n\
  -matapply_pc_view     : with -compare_matapply, view the PC after the applies\n\
  -matapply_lda_pad <k> : with -compare_matapply, the blocks' leading dimension is their local rows plus k\n\
  -matapply_inplace     : with -compare_matapply and a factor PC (ilu, icc): MatMatSolve(F, C, C) in place must give X\n\
  -matapply_rtol <r>    : with -compare_matapply, a column agrees with PCApply() to a relative r instead of bitwise (kernels\n\
                          that add with atomics in no fixed order)\n\
  -time_matapply <n>    : only time PCMatApply() on n columns against PCApply() of each column (best of -time_reps, default 5); one JSON line\n\
The matrix type comes from -dm_mat_type (aij, baij, sbaij, ...).\n\n";

/*
  Test driver for structured-grid preconditioners (petscgilu's PCSTRUCTILU and friends).

  Of petscgilu it only calls PetscGILUInitializePackage(): it assembles a matrix whose nonzero pattern is exactly a stencil
  (a set of grid offsets) on a DMDA, with full dof x dof blocks, and solves A x = A*1 with the KSP and
  PC from the options database. So it runs with -pc_type ilu today and with -pc_type structilu
  once that is registered.

  The values are deterministic functions of the global (natural) grid indices, so they, and the
  iteration counts of PC's that do not depend on the decomposition, are the same on any number of
  ranks. Off-diagonal block entries lie in [-1,0], the diagonal blocks hold small entries of either sign
  off their diagonal, and each diagonal entry is 1 + the sum of the absolute values of the other entries
  of its row, so the matrix is strictly diagonally dominant.

  By default the DMDA is attached to the KSP (and so to the PC) with KSPSetDM() and
  GILUKSPSetDMActiveAll(ksp, PETSC_FALSE), and the matrix knows it (MatGetDM()). With -no_dm neither holds:
  the matrix is copied with MatConvert(A, MATSAME, ...), which (unlike MatDuplicate()) does not keep
  the DM, so a preconditioner must infer the grid from the matrix itself.
*/

#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>
#include <petscgilutest.h>

#define MAX_OFFSETS 27

typedef struct {
  PetscInt        dim, dof;
  char            stencil[64];
  PetscInt        noff;                /* number of offsets, the centre included */
  PetscInt        off[MAX_OFFSETS][3]; /* the offsets (dx, dy, dz); dz = 0 in 2D */
  DMDAStencilType stype;               /* DMDA stencil type containing the pattern */
  PetscInt        width;               /* DMDA stencil width containing the pattern */
  PetscBool       symmetric;
  PetscReal       nonsym;
  PetscInt        M, N, P; /* global grid sizes (P = 1 in 2D) */
} AppCtx;

/* The patterns: which offsets d (|d|_inf <= 2) they hold */
typedef enum {
  PATTERN_STAR1,    /* |d|_1 <= 1 */
  PATTERN_STAR2,    /* on an axis, |d|_inf <= 2 */
  PATTERN_BOX1,     /* |d|_inf <= 1 */
  PATTERN_BOX2,     /* |d|_inf <= 2 */
  PATTERN_DIAMOND1, /* |d|_1 <= 1, and e_i - e_j for i != j */
  PATTERN_DIAMOND2  /* |d|_1 <= 2 */
} PatternKind;

static const struct {
  const char *name;
  PetscInt    dim;
  PatternKind kind;
} patterns[] = {
  {"star5",     2, PATTERN_STAR1   },
  {"star9",     2, PATTERN_STAR2   },
  {"box9",      2, PATTERN_BOX1    },
  {"box25",     2, PATTERN_BOX2    },
  {"diamond7",  2, PATTERN_DIAMOND1},
  {"diamond13", 2, PATTERN_DIAMOND2},
  {"star7",     3, PATTERN_STAR1   },
  {"star13",    3, PATTERN_STAR2   },
  {"diamond13", 3, PATTERN_DIAMOND1},
  {"diamond25", 3, PATTERN_DIAMOND2},
  {"box27",     3, PATTERN_BOX1    }
};

static PetscBool InPattern(PatternKind kind, const PetscInt d[3])
{
  PetscInt c, l1 = 0, linf = 0, naxes = 0, sum = 0;

  for (c = 0; c < 3; c++) {
    l1 += PetscAbsInt(d[c]);
    linf = PetscMax(linf, PetscAbsInt(d[c]));
    naxes += d[c] ? 1 : 0;
    sum += d[c];
  }
  switch (kind) {
  case PATTERN_STAR1:
    return (PetscBool)(l1 <= 1);
  case PATTERN_STAR2:
    return (PetscBool)(naxes <= 1 && linf <= 2);
  case PATTERN_BOX1:
    return (PetscBool)(linf <= 1);
  case PATTERN_BOX2:
    return (PetscBool)(linf <= 2);
  case PATTERN_DIAMOND1:
    return (PetscBool)(l1 <= 1 || (naxes == 2 && linf == 1 && sum == 0));
  default:
    return (PetscBool)(l1 <= 2);
  }
}

static PetscErrorCode BuildPattern(AppCtx *user)
{
  PetscInt    d[3], r2, p;
  PetscBool   flg, star = PETSC_TRUE;
  PatternKind kind;

  PetscFunctionBeginUser;
  for (p = 0; p < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(patterns); p++) {
    if (patterns[p].dim != user->dim) continue;
    PetscCall(PetscStrcmp(user->stencil, patterns[p].name, &flg));
    if (flg) break;
  }
  PetscCheck(p < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(patterns), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -stencil %s for -dim %" PetscInt_FMT "; use star5 star9 box9 box25 diamond7 diamond13 (2D) or star7 star13 diamond13 diamond25 box27 (3D)",
             user->stencil, user->dim);
  kind        = patterns[p].kind;
  r2          = user->dim == 3 ? 2 : 0;
  user->noff  = 0;
  user->width = 0;
  for (d[2] = -r2; d[2] <= r2; d[2]++)
    for (d[1] = -2; d[1] <= 2; d[1]++)
      for (d[0] = -2; d[0] <= 2; d[0]++) {
        if (!InPattern(kind, d)) continue;
        PetscCheck(user->noff < MAX_OFFSETS, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Too many offsets");
        user->off[user->noff][0] = d[0];
        user->off[user->noff][1] = d[1];
        user->off[user->noff][2] = d[2];
        user->noff++;
        user->width = PetscMax(user->width, PetscMax(PetscAbsInt(d[0]), PetscMax(PetscAbsInt(d[1]), PetscAbsInt(d[2]))));
        if ((d[0] != 0) + (d[1] != 0) + (d[2] != 0) > 1) star = PETSC_FALSE;
      }
  user->stype = star ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX;
  PetscFunctionReturn(0);
}

/* Deterministic hash of (a, b, salt) to [0, 1) (splitmix64 finalizer) */
static PetscReal Hash01(uint64_t a, uint64_t b, uint64_t salt)
{
  uint64_t z = a * 0x9E3779B97F4A7C15ULL + b * 0xC2B2AE3D27D4EB4FULL + salt * 0x165667B19E3779F9ULL + 0x27D4EB2F165667C5ULL;

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* Value of the off-diagonal entry (gi, gj), gi != gj, of global natural unknown numbers; samepoint: both unknowns at one grid point */
static PetscReal OffDiagonalValue(const AppCtx *user, PetscInt64 gi, PetscInt64 gj, PetscBool samepoint)
{
  PetscInt64 lo = PetscMin(gi, gj), hi = PetscMax(gi, gj);
  PetscReal  u = Hash01((uint64_t)lo, (uint64_t)hi, 0);

  if (!user->symmetric) u = (1.0 - user->nonsym) * u + user->nonsym * Hash01((uint64_t)gi, (uint64_t)gj, 1);
  return samepoint ? 0.2 * u - 0.1 : -u;
}

/* Assemble the pattern with off-diagonal values times offscale; the diagonal keeps the matrix strictly diagonally dominant */
static PetscErrorCode AssembleMatrix(const AppCtx *user, DM da, Mat A, PetscReal offscale)
{
  PetscInt     xs, ys, zs, xm, ym, zm, i, j, k, n, c, a, b, dof = user->dof;
  MatStencil   row, cols[MAX_OFFSETS];
  PetscScalar *vals;
  PetscReal    rowsum[8];
  PetscInt64   pt, q;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(dof * dof * user->noff, &vals));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt ccentre = -1;

        pt    = i + (PetscInt64)user->M * (j + (PetscInt64)user->N * k);
        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        for (n = 0, c = 0; c < user->noff; c++) {
          PetscInt ii = i + user->off[c][0], jj = j + user->off[c][1], kk = k + user->off[c][2];

          if (ii < 0 || ii >= user->M || jj < 0 || jj >= user->N || kk < 0 || kk >= user->P) continue;
          cols[n].i = ii;
          cols[n].j = jj;
          cols[n].k = kk;
          cols[n].c = 0;
          if (!user->off[c][0] && !user->off[c][1] && !user->off[c][2]) ccentre = n;
          n++;
        }
        for (a = 0; a < dof; a++) rowsum[a] = 0.0;
        for (c = 0; c < n; c++) {
          q = cols[c].i + (PetscInt64)user->M * (cols[c].j + (PetscInt64)user->N * cols[c].k);
          for (a = 0; a < dof; a++)
            for (b = 0; b < dof; b++) {
              PetscInt e = a * n * dof + c * dof + b;

              if (c == ccentre && a == b) continue;
              vals[e] = offscale * OffDiagonalValue(user, pt * dof + a, q * dof + b, (PetscBool)(c == ccentre));
              rowsum[a] += PetscAbsScalar(vals[e]);
            }
        }
        for (a = 0; a < dof; a++) vals[a * n * dof + ccentre * dof + a] = 1.0 + rowsum[a];
        PetscCall(MatSetValuesBlockedStencil(A, 1, &row, n, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(vals));
  PetscFunctionReturn(0);
}

static PetscErrorCode ViewPattern(const AppCtx *user, Mat A)
{
  MatInfo    info;
  PetscInt   i, j, k, c, nb, rstart, rend, r, ncols, range[2] = {PETSC_MAX_INT, 0}, gmin, gmax;
  PetscInt64 expected = 0;
  PetscBool  sbaij;

  PetscFunctionBeginUser;
  for (k = 0; k < user->P; k++)
    for (j = 0; j < user->N; j++)
      for (i = 0; i < user->M; i++) {
        for (nb = 0, c = 0; c < user->noff; c++) {
          PetscInt ii = i + user->off[c][0], jj = j + user->off[c][1], kk = k + user->off[c][2];

          if (ii >= 0 && ii < user->M && jj >= 0 && jj < user->N && kk >= 0 && kk < user->P) nb++;
        }
        expected += nb * user->dof * user->dof;
      }
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Pattern %s: %" PetscInt_FMT " offsets, DMDA stencil %s width %" PetscInt_FMT "; nonzeros stored %" PetscInt64_FMT ", pattern entries %" PetscInt64_FMT "\n", user->stencil, user->noff, user->stype == DMDA_STENCIL_STAR ? "star" : "box",
                        user->width, (PetscInt64)info.nz_used, expected));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
  if (!sbaij) PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPISBAIJ, &sbaij));
  if (sbaij) PetscFunctionReturn(0);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (r = rstart; r < rend; r++) {
    PetscCall(MatGetRow(A, r, &ncols, NULL, NULL));
    range[0] = PetscMin(range[0], ncols);
    range[1] = PetscMax(range[1], ncols);
    PetscCall(MatRestoreRow(A, r, &ncols, NULL, NULL));
  }
  PetscCall(MPIU_Allreduce(&range[0], &gmin, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&range[1], &gmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Nonzeros per row: min %" PetscInt_FMT ", max %" PetscInt_FMT "\n", gmin, gmax));
  PetscFunctionReturn(0);
}

/* Solve Aop x = Aop * 1 from a zero initial guess and print the iterations, the error and the reason */
static PetscErrorCode SolveAndReport(KSP ksp, Mat Aop)
{
  Vec                x, b, ones;
  PetscInt           its;
  PetscReal          err, nrm;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(Aop, &x, &b));
  PetscCall(VecDuplicate(x, &ones));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMult(Aop, ones, b));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecNorm(ones, NORM_2, &nrm));
  PetscCall(VecAXPY(x, -1.0, ones));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Error norm %s\n", err / nrm < 1e-6 ? "small" : "LARGE"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Converged reason: %s\n", KSPConvergedReasons[reason]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&ones));
  PetscFunctionReturn(0);
}

/*
  Solves with PCSTRUCTILU on 1, 2, ..., nthreads host threads and both schedules, each time
  from a new KSP (so the factorization is redone), and checks that the residual histories
  and the solutions are bitwise those of one thread. Prints only what differs.
*/
/*
  One application of PCSTRUCTILU and of PETSc's PCILU (natural ordering, the level of -pc_structilu_levels for both) to
  one vector: prints whether the results agree to round-off (relative difference below 1e-13 in the max norm), else
  the difference. The factor entries and the sweeps are those of PETSc's ILU in exact arithmetic, and each row is
  formed in PETSc's order of operations except that PETSc's solves pair their products, so the results differ in the
  last bits only; a factor or sweep that changes a value by more than round-off shows here, where the iteration counts
  of the other cases may not move.
*/
static PetscErrorCode CompareILU(Mat Aop)
{
  PC          pc[2];
  Vec         b, x[2];
  PetscInt    levels = 0;
  PetscReal   nrm, dif;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_structilu_levels", &levels, NULL));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[t]));
    PetscCall(PCSetOperators(pc[t], Aop, Aop));
    PetscCall(PCSetType(pc[t], t ? PCILU : PCSTRUCTILU));
    if (t) {
      PetscCall(PCFactorSetLevels(pc[t], levels));
      PetscCall(PCFactorSetMatOrderingType(pc[t], MATORDERINGNATURAL));
    } else PetscCall(PCSetFromOptions(pc[t]));
    PetscCall(PCSetUp(pc[t]));
  }
  PetscCall(MatCreateVecs(Aop, &b, &x[0]));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  for (PetscInt t = 0; t < 2; t++) PetscCall(PCApply(pc[t], b, x[t]));
  PetscCall(VecNorm(x[1], NORM_INFINITY, &nrm));
  PetscCall(VecAXPY(x[0], -1.0, x[1]));
  PetscCall(VecNorm(x[0], NORM_INFINITY, &dif));
  if (dif <= 1e-13 * nrm) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "structilu and PETSc's ILU(%" PetscInt_FMT ") agree to round-off\n", levels));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "structilu and PETSc's ILU(%" PetscInt_FMT ") differ: relative difference %g\n", levels, (double)(dif / nrm)));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(VecDestroy(&x[t]));
    PetscCall(PCDestroy(&pc[t]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareThreads(Mat Aop, DM da, PetscInt nthreads)
{
  Vec       b, x, x1 = NULL;
  PetscReal hist[2][1000];
  PetscInt  n[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(Aop, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(Aop, x, b));
  for (PetscInt sched = 0; sched < 2; sched++)
    for (PetscInt t = 1; t <= nthreads; t++) {
      KSP       ksp;
      PC        pc;
      PetscBool same;

      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, Aop, Aop));
      if (da) {
        PetscCall(KSPSetDM(ksp, da));
        PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
      }
      PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCSTRUCTILU));
      PetscCall(PCSetFromOptions(pc));
      PetscCall(PCStructILUSetThreads(pc, t));
      PetscCall(PCStructILUSetSchedule(pc, sched ? PC_STRUCTILU_SCHEDULE_HYPERPLANE : PC_STRUCTILU_SCHEDULE_SLAB));
      PetscCall(KSPSetResidualHistory(ksp, hist[x1 ? 1 : 0], 1000, PETSC_TRUE));
      PetscCall(VecSet(x, 0.0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetResidualHistory(ksp, NULL, &n[x1 ? 1 : 0]));
      if (!x1) {
        PetscCall(VecDuplicate(x, &x1));
        PetscCall(VecCopy(x, x1));
      } else {
        PetscCall(VecEqual(x, x1, &same));
        if (!same) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s schedule, %" PetscInt_FMT " threads: the solution differs from one thread's\n", sched ? "hyperplane" : "slab", t));
        same = (PetscBool)(n[0] == n[1]);
        for (PetscInt i = 0; i < n[0] && same; i++) same = (PetscBool)(hist[0][i] == hist[1][i]);
        if (!same) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s schedule, %" PetscInt_FMT " threads: the residual history differs from one thread's\n", sched ? "hyperplane" : "slab", t));
      }
      PetscCall(KSPDestroy(&ksp));
    }
  PetscCall(VecDestroy(&x1));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* A KSPPREONLY with the PC of the options set up on Aop (and the DM), and a dense block of n random columns */
/* a dense block of n columns with Aop's local rows, its leading dimension those rows plus -matapply_lda_pad (default 0) */
static PetscErrorCode CreateBlock(Mat Aop, PetscInt n, Mat *B)
{
  PetscInt m, pad = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-matapply_lda_pad", &pad, NULL));
  PetscCall(MatGetLocalSize(Aop, &m, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, B));
  PetscCall(MatSetSizes(*B, m, PETSC_DECIDE, PETSC_DECIDE, n));
  PetscCall(MatSetType(*B, MATDENSE));
  if (pad) PetscCall(MatDenseSetLDA(*B, m + pad));
  PetscCall(MatSetUp(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUpPreonly(Mat Aop, DM da, PetscInt n, KSP *ksp, PC *pc, Mat *B)
{
  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, Aop, Aop));
  if (da) {
    PetscCall(KSPSetDM(*ksp, da));
    PetscCall(GILUKSPSetDMActiveAll(*ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscCall(KSPGetPC(*ksp, pc));
  PetscCall(CreateBlock(Aop, n, B));
  PetscCall(MatSetRandom(*B, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PCMatApply() of the PC of the options (set up on Aop) on n random columns against PCApply() of each column: prints whether
  they agree bitwise. Then KSPMatSolve() with KSPPREONLY on the same columns: prints how many PCApply() and PCMatApply() calls it
  made (a PC without a PCMatApply() of its own is applied column by column, PETSc's fallback) and whether its result is the same.
  A second PCMatApply() must copy to the device no more often than the column applies did (it prints the counts if it does);
  With PETSc 3.24 or newer PCMatApplyTranspose() must be PCApplyTranspose() of each column (it prints what differs).
  -matapply_pc_view views the PC after them (what it says of the blocks of right-hand sides).
*/
static PetscErrorCode CompareMatApply(Mat Aop, DM da, PetscInt n)
{
  KSP                ksp;
  PC                 pc;
  Mat                B, X, Y;
  PetscInt           same = 0;
  PetscBool          eq, userel;
  PetscReal          rtol = 0;
  PetscLogEvent      evapply, evmatapply, evcopy;
  PetscEventPerfInfo info[2][2], copies[3];

  PetscFunctionBeginUser;
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscLogEventRegister("PCApply", PC_CLASSID, &evapply)); /* PETSc's events: registering again returns them */
  PetscCall(PetscLogEventRegister("PCMatApply", PC_CLASSID, &evmatapply));
  PetscCall(PetscLogEventRegister("GILUCopyToGPU", PC_CLASSID, &evcopy)); /* the plugin's */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-matapply_rtol", &rtol, &userel));
  PetscCall(SetUpPreonly(Aop, da, n, &ksp, &pc, &B));
  PetscCall(CreateBlock(Aop, n, &X));
  PetscCall(CreateBlock(Aop, n, &Y));
  PetscCall(PCMatApply(pc, B, X));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evcopy, &copies[0]));
  for (PetscInt c = 0; c < n; c++) {
    Vec b, x, y;

    PetscCall(MatDenseGetColumnVecRead(B, c, &b));
    PetscCall(MatDenseGetColumnVecRead(X, c, &x));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(PCApply(pc, b, y));
    if (userel) {
      PetscReal d;

      PetscCall(PetscGILUTestVecRelDiff(y, x, &d));
      eq = (PetscBool)(d <= rtol);
    } else PetscCall(VecEqual(x, y, &eq));
    same += eq;
    PetscCall(VecDestroy(&y));
    PetscCall(MatDenseRestoreColumnVecRead(X, c, &x));
    PetscCall(MatDenseRestoreColumnVecRead(B, c, &b));
  }
  if (userel) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCMatApply() on %" PetscInt_FMT " columns: %" PetscInt_FMT " equal to PCApply() of the column to a relative %g\n", n, same, (double)rtol));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCMatApply() on %" PetscInt_FMT " columns: %" PetscInt_FMT " bitwise equal to PCApply() of the column\n", n, same));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-matapply_inplace", &eq));
  if (eq) { /* MatMatSolve(F, C, C) of the PC's factor in place on a copy of B (prints only what differs) */
    Mat F, C;

    PetscCall(PCFactorGetMatrix(pc, &F));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
    PetscCall(MatMatSolve(F, C, C));
    PetscCall(MatEqual(C, X, &eq));
    if (!eq) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMatSolve() in place is not bitwise PCMatApply()'s\n"));
    PetscCall(MatDestroy(&C));
  }
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evcopy, &copies[1]));
  PetscCall(PCMatApply(pc, B, X)); /* again, its copies counted once the device holds the factors */
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evcopy, &copies[2]));
  if (copies[2].count - copies[1].count > copies[1].count - copies[0].count)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "PCMatApply() copied to the device %d times, the %" PetscInt_FMT " PCApply() %d times\n", copies[2].count - copies[1].count, n, copies[1].count - copies[0].count));
#if PETSC_VERSION_GE(3, 24, 0) /* PCMatApplyTranspose(): the same against PCApplyTranspose() (prints only what differs) */
  PetscCall(PCMatApplyTranspose(pc, B, Y));
  for (PetscInt c = 0; c < n; c++) {
    Vec b, x, y;

    PetscCall(MatDenseGetColumnVecRead(B, c, &b));
    PetscCall(MatDenseGetColumnVecRead(Y, c, &x));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(PCApplyTranspose(pc, b, y));
    PetscCall(VecEqual(x, y, &eq));
    if (!eq) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCMatApplyTranspose(): column %" PetscInt_FMT " is not PCApplyTranspose()'s\n", c));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDenseRestoreColumnVecRead(Y, c, &x));
    PetscCall(MatDenseRestoreColumnVecRead(B, c, &b));
  }
#endif
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evapply, &info[0][0]));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evmatapply, &info[0][1]));
  PetscCall(KSPMatSolve(ksp, B, Y));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evapply, &info[1][0]));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, evmatapply, &info[1][1]));
  if (userel) { /* to round-off as well */
    PetscReal nx, nd;

    PetscCall(MatNorm(X, NORM_FROBENIUS, &nx));
    PetscCall(MatAXPY(Y, -1.0, X, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(Y, NORM_FROBENIUS, &nd));
    eq = (PetscBool)(nd <= rtol * nx);
  } else PetscCall(MatEqual(X, Y, &eq));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPMatSolve() with KSPPREONLY: %d PCApply() and %d PCMatApply() calls; the result %s PCMatApply()'s\n", info[1][0].count - info[0][0].count, info[1][1].count - info[0][1].count, eq ? "is" : "is NOT"));
  PetscCall(PCViewFromOptions(pc, NULL, "-matapply_pc_view"));
  PetscCall(MatDestroy(&Y));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/*
  -time_matapply n (bench/matapply.py): the PC of the options set up on Aop, then PCMatApply() on n random columns and
  PCApply() on each column in turn, timed one after the other in alternating order, best of reps each (wall clock,
  after one call of each to warm up); prints one JSON line with the PC's type, the rows and both times
*/
static PetscErrorCode TimeMatApply(Mat Aop, DM da, PetscInt n, PetscInt reps)
{
  KSP       ksp;
  PC        pc;
  PCType    type;
  Mat       B, X;
  PetscInt  N;
  PetscReal best[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL};

  PetscFunctionBeginUser;
  PetscCall(SetUpPreonly(Aop, da, n, &ksp, &pc, &B));
  PetscCall(PCGetType(pc, &type));
  PetscCall(MatGetSize(Aop, &N, NULL));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  for (PetscInt r = 0; r <= reps; r++) /* r == 0: warm-up */
    for (PetscInt w = 0; w < 2; w++) { /* the order alternates with r */
      const PetscInt loop = (w + r) % 2;
      PetscLogDouble t0, t1;

      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t0));
      if (loop)
        for (PetscInt c = 0; c < n; c++) {
          Vec b, x;

          PetscCall(MatDenseGetColumnVecRead(B, c, &b));
          PetscCall(MatDenseGetColumnVecWrite(X, c, &x));
          PetscCall(PCApply(pc, b, x));
          PetscCall(MatDenseRestoreColumnVecWrite(X, c, &x));
          PetscCall(MatDenseRestoreColumnVecRead(B, c, &b));
        }
      else PetscCall(PCMatApply(pc, B, X));
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t1));
      if (r) best[loop] = PetscMin(best[loop], (PetscReal)(t1 - t0));
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "{\"pc\": \"%s\", \"rows\": %" PetscInt_FMT ", \"columns\": %" PetscInt_FMT ", \"t_matapply\": %.6e, \"t_loop\": %.6e}\n", type, N, n, (double)best[0], (double)best[1]));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx    user;
  DM        da;
  Mat       A, Aop;
  KSP       ksp;
  PetscBool nodm = PETSC_FALSE, twice = PETSC_FALSE, inplace = PETSC_FALSE, viewpattern = PETSC_FALSE, compareilu = PETSC_FALSE, sbaij;
  PetscInt  comparethreads = 0, comparematapply = 0, timematapply = 0, timereps = 5;
  MatType   mtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* this program is linked with petscgilu */
  user.dim       = 3;
  user.dof       = 1;
  user.symmetric = PETSC_FALSE;
  user.nonsym    = 0.3;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Structured-grid stencil test problem", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Grid dimension", NULL, user.dim, &user.dim, NULL, 2, 3));
  PetscCall(PetscOptionsRangeInt("-dof", "Unknowns per grid point", NULL, user.dof, &user.dof, NULL, 1, 8));
  PetscCall(PetscStrcpy(user.stencil, user.dim == 3 ? "star7" : "star5"));
  PetscCall(PetscOptionsString("-stencil", "Stencil pattern", NULL, user.stencil, user.stencil, sizeof(user.stencil), NULL));
  PetscCall(PetscOptionsBool("-symmetric", "Make the matrix symmetric", NULL, user.symmetric, &user.symmetric, NULL));
  PetscCall(PetscOptionsReal("-nonsym_scale", "Weight of the non-symmetric part of the values", NULL, user.nonsym, &user.nonsym, NULL));
  PetscCall(PetscOptionsBool("-no_dm", "Hide the DMDA from the matrix and the KSP", NULL, nodm, &nodm, NULL));
  PetscCall(PetscOptionsBool("-solve_twice", "Change the values and solve again", NULL, twice, &twice, NULL));
  PetscCall(PetscOptionsBool("-twice_in_place", "With -solve_twice, solve again without KSPSetOperators()", NULL, inplace, &inplace, NULL));
  PetscCall(PetscOptionsBool("-view_pattern", "Print a summary of the nonzero pattern", NULL, viewpattern, &viewpattern, NULL));
  PetscCall(PetscOptionsInt("-compare_threads", "Only check that PCSTRUCTILU on 1..n threads gives bitwise the same solves", NULL, comparethreads, &comparethreads, NULL));
  PetscCall(PetscOptionsBool("-compare_ilu", "Only check that one PCSTRUCTILU apply is PETSc's ILU's to round-off", NULL, compareilu, &compareilu, NULL));
  PetscCall(PetscOptionsInt("-compare_matapply", "Only check that PCMatApply() on n columns is PCApply() of each, and count the applies of KSPMatSolve()", NULL, comparematapply, &comparematapply, NULL));
  PetscCall(PetscOptionsInt("-time_matapply", "Only time PCMatApply() on n columns against PCApply() of each (bench/matapply.py)", NULL, timematapply, &timematapply, NULL));
  PetscCall(PetscOptionsInt("-time_reps", "With -time_matapply: best of this many", NULL, timereps, &timereps, NULL));
  PetscOptionsEnd();
  PetscCheck(user.nonsym >= 0.0 && user.nonsym <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nonsym_scale must lie in [0,1]");
  PetscCall(BuildPattern(&user));

  if (user.dim == 3) {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, user.stype, 8, 8, 8, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, user.dof, user.width, NULL, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, user.stype, 16, 16, PETSC_DECIDE, PETSC_DECIDE, user.dof, user.width, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatrixPreallocateOnly(da, PETSC_TRUE));
  PetscCall(DMDAGetInfo(da, NULL, &user.M, &user.N, &user.P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  if (user.dim == 2) user.P = 1;

  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscStrbeginswith(mtype, MATSEQSBAIJ, &sbaij)); /* "seqsbaij" */
  if (!sbaij) PetscCall(PetscStrbeginswith(mtype, MATMPISBAIJ, &sbaij));
  if (sbaij) {
    PetscCheck(user.symmetric, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-dm_mat_type sbaij needs -symmetric");
    PetscCall(MatSetOption(A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
  }
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  if (user.symmetric) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(AssembleMatrix(&user, da, A, 1.0));
  if (user.symmetric) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));

  if (nodm) {
    DM mdm;

    /* MatDuplicate() would keep the DM; MatConvert() with MATSAME does not */
    PetscCall(MatConvert(A, MATSAME, MAT_INITIAL_MATRIX, &Aop));
    PetscCall(MatGetDM(Aop, &mdm));
    PetscCheck(!mdm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The copy of the matrix still knows its DM");
    if (user.symmetric) PetscCall(MatSetOption(Aop, MAT_SYMMETRIC, PETSC_TRUE));
  } else {
    PetscCall(PetscObjectReference((PetscObject)A));
    Aop = A;
  }
  if (viewpattern) PetscCall(ViewPattern(&user, Aop));

  if (comparethreads || compareilu || comparematapply || timematapply) {
    if (comparethreads) PetscCall(CompareThreads(Aop, nodm ? NULL : da, comparethreads));
    else if (timematapply) PetscCall(TimeMatApply(Aop, nodm ? NULL : da, timematapply, timereps));
    else if (comparematapply) PetscCall(CompareMatApply(Aop, nodm ? NULL : da, comparematapply));
    else PetscCall(CompareILU(Aop));
    PetscCall(MatDestroy(&Aop));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, Aop, Aop));
  if (!nodm) {
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(SolveAndReport(ksp, Aop));

  if (twice) {
    PetscCall(AssembleMatrix(&user, da, A, 0.5));
    if (nodm) PetscCall(MatCopy(A, Aop, SAME_NONZERO_PATTERN));
    if (!inplace) PetscCall(KSPSetOperators(ksp, Aop, Aop));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Second solve, off-diagonal values halved\n"));
    PetscCall(SolveAndReport(ksp, Aop));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&Aop));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # PCSTRUCTILU has the factors of PETSc's ILU(0): each case runs both and compares them
   # with the same output file, so the iteration counts must be equal.
   test:
     suffix: 3d
     args: -stencil {{star7 star13 diamond13 diamond25 box27}separate output} -dof {{1 2 3 4 5 8}separate output} -pc_type {{ilu structilu}shared output}

   test:
     suffix: 2d
     args: -dim 2 -stencil {{star5 star9 box9 box25 diamond7 diamond13}separate output} -dof {{1 2 3 4 5 8}separate output} -pc_type {{ilu structilu}shared output}

   test:
     suffix: 3d_baij
     args: -dm_mat_type baij -stencil {{star7 diamond13 box27}separate output} -dof {{2 5 8}separate output} -pc_type {{ilu structilu}shared output}

   test:
     suffix: 2d_baij
     args: -dim 2 -dm_mat_type baij -stencil {{star9 box25}separate output} -dof {{3 4}separate output} -pc_type {{ilu structilu}shared output}

   # one block per process: structilu on its own, as the sub-PC of bjacobi, and PETSc's bjacobi+ilu
   test:
     suffix: np2
     nsize: 2
     args: -stencil {{star13 diamond13 box27}separate output} -dof 3 -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output}

   test:
     suffix: np2_structilu_star13
     nsize: 2
     args: -stencil star13 -dof 3 -pc_type structilu
     output_file: output/ex1_np2_stencil-star13.out

   test:
     suffix: np2_structilu_diamond13
     nsize: 2
     args: -stencil diamond13 -dof 3 -pc_type structilu
     output_file: output/ex1_np2_stencil-diamond13.out

   test:
     suffix: np2_structilu_box27
     nsize: 2
     args: -stencil box27 -dof 3 -pc_type structilu
     output_file: output/ex1_np2_stencil-box27.out

   test:
     suffix: np3_2d_baij
     nsize: 3
     args: -dim 2 -dm_mat_type baij -stencil diamond7 -dof 4 -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output}

   test:
     suffix: np2_asm
     nsize: 2
     args: -stencil diamond25 -dof 2 -pc_type asm -sub_pc_type {{ilu structilu}shared output}

   # no DMDA: the grid is inferred from the pattern, or given with -pc_structilu_grid
   test:
     suffix: no_dm
     args: -no_dm -stencil {{star7 diamond13 box27}separate output} -dof 2 -pc_type {{ilu structilu}shared output}

   test:
     suffix: no_dm_2d
     args: -no_dm -dim 2 -da_grid_x 12 -da_grid_y 9 -stencil {{star9 diamond13}separate output} -pc_type {{ilu structilu}shared output}

   test:
     suffix: no_dm_grid_option
     args: -no_dm -stencil diamond13 -dof 2 -pc_type structilu -pc_structilu_grid 8,8,8 -pc_structilu_dof 2
     output_file: output/ex1_no_dm_stencil-diamond13.out

   # re-setup with the same pattern and new values
   test:
     suffix: solve_twice
     args: -stencil diamond13 -dof 2 -solve_twice -pc_type {{ilu structilu}shared output}

   test:
     suffix: no_dm_solve_twice_np3
     nsize: 3
     args: -stencil box27 -dof 3 -dm_mat_type baij -no_dm -solve_twice -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output}

   # symmetric matrices with CG
   test:
     suffix: sym_cg
     args: -symmetric -stencil box27 -dof 2 -ksp_type cg -pc_type {{ilu structilu}shared output}

   test:
     suffix: sym_cg_icc
     args: -symmetric -stencil box27 -dof 2 -ksp_type cg -pc_type icc

   test:
     suffix: sym_sbaij_cg_icc
     args: -symmetric -stencil diamond13 -dof 3 -dm_mat_type sbaij -ksp_type cg -pc_type icc

   # ICC of the SBAIJ (its AIJ/BAIJ image) by MatSolverType gilu and structilu, and PCSTRUCTILU's IC: PETSc's iterations
   test:
     suffix: sym_sbaij_cg_icc_solvers
     args: -symmetric -stencil diamond13 -dof 3 -dm_mat_type sbaij -ksp_type cg -pc_type icc -pc_factor_mat_solver_type {{gilu structilu}shared output} -pc_factor_shift_type {{none positive_definite}shared output}
     output_file: output/ex1_sym_sbaij_cg_icc.out

   # ICC(k > 0) of a block matrix: PETSc's block ICC(k) has a fill of its own (not ILU(k)'s of the blocks), so the factor
   # hands the factorization to PETSc's ICC: PETSc's residuals
   test:
     suffix: sym_block_icck
     args: -symmetric -stencil diamond13 -dof 3 -dm_mat_type {{baij sbaij}separate output} -ksp_type cg -pc_type icc -pc_factor_levels {{1 2}separate output} -pc_factor_mat_solver_type {{petsc structilu}shared output} -ksp_monitor

   test:
     suffix: sym_block_icck_view
     args: -symmetric -stencil diamond13 -dof 3 -dm_mat_type baij -ksp_type cg -pc_type icc -pc_factor_levels 1 -pc_factor_mat_solver_type structilu -ksp_view
     filter: grep -o "ICC(1) of a block matrix.*"

   test:
     suffix: sym_sbaij_cg_structilu_ic
     args: -symmetric -stencil diamond13 -dof 3 -dm_mat_type sbaij -ksp_type cg -pc_type structilu -pc_structilu_type ic
     output_file: output/ex1_sym_sbaij_cg_icc.out

   # the other Krylov methods
   test:
     suffix: bcgs
     args: -stencil diamond25 -dof 2 -ksp_type bcgs -pc_type {{ilu structilu}shared output}

   # what -pc_view reports
   test:
     suffix: view
     args: -stencil {{star7 diamond13 box27}separate output} -dof 2 -pc_type structilu -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   test:
     suffix: view_2d_no_dm
     args: -dim 2 -stencil diamond7 -no_dm -pc_type structilu -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   test:
     suffix: view_np2
     nsize: 2
     args: -stencil star7 -pc_type structilu -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   # the global factors across processes: the cut of the pipeline and its model in the view
   test:
     suffix: view_distributed
     nsize: {{2 3}separate output}
     args: -stencil star7 -pc_type structilu -pc_structilu_distributed -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   # no leaks (the harness fails on any output of -malloc_dump)
   test:
     suffix: malloc_dump
     args: -stencil diamond25 -dof 3 -solve_twice -pc_type structilu -malloc_debug -malloc_dump

   # SBAIJ on one process: read through its AIJ image, PETSc's ICC(0) iterations (ILU(0) of a symmetric matrix is IC(0))
   test:
     suffix: sbaij_structilu
     args: -symmetric -stencil star7 -dm_mat_type sbaij -ksp_type cg -pc_type {{icc structilu}shared output}

   # a matrix type structilu cannot read
   test:
     suffix: sbaij_error
     nsize: 2
     args: -symmetric -stencil star7 -dm_mat_type sbaij -ksp_type cg -pc_type structilu
     filter: Error: grep -o "PCSTRUCTILU reads SBAIJ on one process only (MATSEQSBAIJ), not mpisbaij"

   # a DoF that contradicts the DMDA
   test:
     suffix: dof_error
     args: -stencil star7 -dof 2 -pc_type structilu -pc_structilu_dof 3
     filter: Error: grep -o "pc_structilu_dof 3 contradicts the DMDA"

   # ILU(k): the factors of PETSc's ILU(k) in natural ordering. Both level options are given,
   # each PC reads its own; the shared output proves equal iterations (and, with
   # -ksp_monitor, equal residual histories).
   test:
     suffix: levels1
     args: -stencil {{star7 diamond13 box27 star13}separate output} -dof {{1 2 4}separate output} -pc_factor_levels 1 -pc_structilu_levels 1 -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels2
     args: -stencil {{star7 diamond13 box27 star13}separate output} -dof {{1 2 4}separate output} -pc_factor_levels 2 -pc_structilu_levels 2 -ksp_monitor -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels1_baij
     args: -dm_mat_type baij -stencil {{star7 diamond13 box27}separate output} -dof {{2 4}separate output} -pc_factor_levels 1 -pc_structilu_levels 1 -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels2_baij
     args: -dm_mat_type baij -stencil {{star7 star13}separate output} -dof {{2 4}separate output} -pc_factor_levels 2 -pc_structilu_levels 2 -ksp_monitor -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels1_2d
     args: -dim 2 -stencil {{star5 box9}separate output} -dof {{1 2 4}separate output} -pc_factor_levels 1 -pc_structilu_levels 1 -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels2_2d
     args: -dim 2 -stencil {{star5 box9}separate output} -dof {{1 2 4}separate output} -dm_mat_type {{aij baij}separate output} -pc_factor_levels 2 -pc_structilu_levels 2 -ksp_monitor -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels3_2d
     args: -dim 2 -da_grid_x 10 -da_grid_y 9 -stencil star5 -dof 2 -pc_factor_levels 3 -pc_structilu_levels 3 -ksp_monitor -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels1_np2
     nsize: 2
     args: -stencil diamond13 -dof 2 -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output} -sub_pc_factor_levels 1 -sub_pc_structilu_levels 1

   test:
     suffix: levels1_no_dm
     args: -no_dm -stencil star7 -dof 2 -pc_factor_levels 1 -pc_structilu_levels 1 -pc_type {{ilu structilu}shared output}

   test:
     suffix: levels1_solve_twice
     args: -stencil box27 -dof 2 -solve_twice -pc_factor_levels 1 -pc_structilu_levels 1 -pc_type {{ilu structilu}shared output}

   # the fill stencil: ILU(1) of star-7 is diamond-13
   test:
     suffix: levels1_view
     args: -stencil star7 -pc_type structilu -pc_structilu_levels 1 -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   # a fill stencil with positions of level above k at some points (dropped, kept at zero)
   test:
     suffix: levels2_view_2d
     args: -dim 2 -da_grid_x 8 -da_grid_y 8 -stencil box9 -pc_type structilu -pc_structilu_levels 2 -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   # too many levels: the fill of diamond-25 at level 2 is wider than 4 grid points
   test:
     suffix: levels_error
     args: -stencil diamond25 -pc_type structilu -pc_structilu_levels 2
     filter: Error: grep -o "ILU(2) fills grid point.*"

   # threads: the factorization and the solves on 1..8 threads, both schedules, give bitwise the
   # residual history and solution of one thread (prints only differences: empty output)
   test:
     suffix: threads_3d
     args: -compare_threads 8 -stencil {{star7 star13 diamond13 diamond25 box27}} -dof {{1 3}} -da_grid_x 11 -da_grid_y 9 -da_grid_z 7
     output_file: output/empty.out

   test:
     suffix: threads_2d
     args: -compare_threads 8 -dim 2 -stencil {{star5 star9 box9 box25 diamond7 diamond13}} -dof {{1 2}} -da_grid_x 90 -da_grid_y 20
     output_file: output/empty.out

   test:
     suffix: threads_levels
     args: -compare_threads 5 -stencil diamond13 -dof 2 -pc_structilu_levels 1
     output_file: output/empty.out

   test:
     suffix: threads_single
     args: -compare_threads 5 -stencil diamond13 -dof 2 -pc_structilu_factor_precision single
     output_file: output/empty.out

   test:
     suffix: threads_ic
     args: -compare_threads 5 -stencil diamond13 -dof 2 -symmetric -ksp_type cg -pc_structilu_type ic
     output_file: output/empty.out

   test:
     suffix: threads_baij_no_dm
     args: -compare_threads 5 -stencil diamond13 -dof 2 -dm_mat_type baij -no_dm
     output_file: output/empty.out

   # the waits of the threads (schedule.c), which on 2 threads rarely miss: -gilu_schedule_delay makes the threads
   # that take the first and the last tile of a forward sweep (hyperplane) sleep before running them, so without the
   # per-tile waits the other thread runs the tiles after the first from unwritten values, and without the barrier
   # between the sweeps it runs the last tile backward before it is done forward (the solution differs, every run);
   # the slab schedule (thread 0 late: the others wait for it), whose per-unit waits also order its two sweeps
   test:
     suffix: threads_delay
     args: -compare_threads 2 -gilu_schedule_delay 20000 -stencil {{star7 box27}} -dof {{1 3}}
     output_file: output/empty.out

   test:
     suffix: threads_delay_2d
     args: -compare_threads 2 -gilu_schedule_delay 20000 -dim 2 -stencil {{star5 box9}} -dof {{1 2}} -da_grid_x 90 -da_grid_y 20
     output_file: output/empty.out

   # one apply against PETSc's ILU to round-off (the iteration counts of the cases above do not see a factor changed
   # by 1e-7): full and DILU factors, the DoF-1 factorization of star stencils on the units of a tile together
   # (slab sub-slabs, hyperplane groups), 1 and 2 threads
   test:
     suffix: compare_ilu
     args: -compare_ilu -stencil {{star7 star13 box27}} -dof {{1 3}} -pc_structilu_diagonal_storage {{0 1}} -pc_structilu_schedule {{slab hyperplane}} -pc_structilu_threads {{1 2}}
     output_file: output/ex1_compare_ilu.out

   test:
     suffix: compare_ilu_2d
     args: -compare_ilu -dim 2 -stencil {{star5 box9}} -dof {{1 4}} -pc_structilu_diagonal_storage {{0 1}} -pc_structilu_threads {{1 2}} -da_grid_x 40 -da_grid_y 30
     output_file: output/ex1_compare_ilu.out

   test:
     suffix: compare_ilu_levels
     args: -compare_ilu -stencil star7 -dof {{1 2}} -pc_structilu_levels 1
     output_file: output/ex1_compare_ilu1.out

   # the Eisenstat trick's operator: the backward sweep, then the forward sweep, which reads the backward's result
   test:
     suffix: threads_delay_eisenstat
     args: -compare_threads 2 -gilu_schedule_delay 20000 -stencil star7 -dof {{1 3}} -pc_structilu_eisenstat -ksp_type gmres
     output_file: output/empty.out

   # the hyperplane schedule on several threads, as the sequential factorization
   test:
     suffix: hyperplane
     args: -stencil {{diamond13 box27}separate output} -dof 2 -pc_type {{ilu structilu}shared output} -pc_structilu_schedule hyperplane -pc_structilu_threads 3

   # IC(k) of a symmetric matrix: the iterations of PETSc's ICC(k)
   test:
     suffix: ic
     args: -symmetric -ksp_type cg -stencil {{star7 diamond13 box27 star13}separate output} -dof {{1 3}separate output} -pc_type {{icc structilu}shared output} -pc_structilu_type ic

   test:
     suffix: ic_levels
     args: -symmetric -ksp_type cg -stencil star7 -dof 2 -pc_type {{icc structilu}shared output} -pc_structilu_type ic -pc_factor_levels 1 -pc_structilu_levels 1

   test:
     suffix: ic_2d_baij
     args: -symmetric -ksp_type cg -dim 2 -dm_mat_type baij -stencil box9 -dof 4 -pc_type {{icc structilu}shared output} -pc_structilu_type ic

   test:
     # a matrix that is not symmetric: IC of its upper triangle, as PETSc's ICC (before: an error)
     suffix: ic_nonsymmetric
     args: -stencil star7 -pc_type {{icc structilu}shared output} -pc_structilu_type ic

   # factors stored in single precision: the same preconditioner up to float round-off
   test:
     suffix: single
     args: -stencil {{star7 diamond25 box27}separate output} -dof {{1 4}separate output} -pc_type structilu -pc_structilu_factor_precision single

   test:
     suffix: single_view
     args: -stencil star7 -symmetric -ksp_type cg -pc_type structilu -pc_structilu_type ic -pc_structilu_factor_precision single -ksp_view -ksp_max_it 3
     filter: sed -e "s/back-end: host.*$/back-end: host/"

   # DILU (a star stencil's ILU(0) changes only the diagonal: only D^{-1} stored, the matrix's blocks read in
   # place): PETSc's iterations and residual history
   test:
     suffix: dilu
     args: -stencil star7 -dof {{1 3}separate output} -pc_type {{ilu structilu}shared output} -pc_structilu_diagonal_storage -ksp_monitor

   test:
     suffix: dilu_2d_baij
     args: -dim 2 -dm_mat_type baij -stencil star5 -dof {{2 4}separate output} -pc_type {{ilu structilu}shared output} -pc_structilu_diagonal_storage -ksp_monitor

   test:
     suffix: dilu_ic
     args: -symmetric -ksp_type cg -stencil star7 -dof 2 -pc_type {{icc structilu}shared output} -pc_structilu_type ic -pc_structilu_diagonal_storage -ksp_monitor

   test:
     suffix: threads_dilu
     args: -compare_threads 5 -stencil star7 -dof {{1 3}} -da_grid_x 11 -da_grid_y 9 -da_grid_z 7 -pc_structilu_diagonal_storage
     output_file: output/empty.out

   test:
     suffix: dilu_view
     args: -stencil star7 -dof 2 -pc_type structilu -pc_structilu_diagonal_storage -ksp_view -ksp_max_it 3
     filter: grep -e "factors:"

   # a stencil whose ILU(0) fills more than the diagonal: L and U stored whatever the option
   test:
     suffix: dilu_box27
     args: -stencil box27 -pc_type {{ilu structilu}shared output} -pc_structilu_diagonal_storage -ksp_monitor

   # The Eisenstat trick: for a symmetric matrix, CG with the natural norm has the residual history of
   # PETSc's ILU(0) (ICC(0)) up to round-off
   test:
     suffix: eisenstat
     args: -symmetric -ksp_type cg -ksp_norm_type natural -ksp_monitor -stencil star7 -dof {{1 2}separate output} -pc_type {{ilu structilu}shared output} -pc_structilu_eisenstat

   test:
     suffix: eisenstat_ic
     args: -symmetric -ksp_type cg -ksp_norm_type natural -ksp_monitor -dim 2 -stencil star5 -dof 3 -pc_type {{icc structilu}shared output} -pc_structilu_type ic -pc_structilu_eisenstat

   # a nonsymmetric matrix with GMRES, a changed matrix (the second solve starts from the first's solution:
   # a nonzero initial guess goes through (D + A_U) x0), the view
   test:
     suffix: eisenstat_gmres
     args: -stencil star7 -dof 2 -solve_twice -ksp_initial_guess_nonzero -pc_type structilu -pc_structilu_eisenstat -ksp_view -ksp_max_it 200
     filter: grep -v -e "back-end:" -e "host threads:"

   # the values changed in place, no KSPSetOperators(): PCPreSolve() must transform b with the new factors, which
   # KSPSolve() would make only at the first PCApply(), after it (both solves' errors small)
   test:
     suffix: eisenstat_in_place
     args: -stencil star7 -dof {{1 2}separate output} -solve_twice -twice_in_place -pc_type structilu -pc_structilu_eisenstat -ksp_type gmres

   test:
     suffix: threads_eisenstat
     args: -compare_threads 5 -stencil star7 -dof {{1 3}} -da_grid_x 11 -da_grid_y 9 -da_grid_z 7 -pc_structilu_eisenstat -ksp_type gmres
     output_file: output/empty.out

   test:
     suffix: eisenstat_error_stencil
     args: -stencil box27 -pc_type structilu -pc_structilu_eisenstat
     filter: Error: grep -o "pc_structilu_eisenstat needs DILU factors.*this one is box-27"

   # the device back-ends have no DILU factors: an error before the device factorization (before: a setup without them,
   # then a NULL dereference in the first sweep with a nonzero initial guess, or an internal error)
   test:
     suffix: eisenstat_error_device
     requires: cudaemu
     args: -stencil star7 -pc_type structilu -pc_structilu_eisenstat -gilu_backend cudaemu -ksp_initial_guess_nonzero -pc_structilu_cuda_factor {{0 1}shared output}
     filter: Error: grep -o "pc_structilu_eisenstat needs DILU factors, which the host back-end makes, not cudaemu: use -pc_structilu_backend host"

   # the lines mapping on one-point grids (the centre only: no offset orders the points; weight 1 along i lets its
   # transformation exist) and on a line of points without couplings along i: PETSc's ILU's iterations, one process and
   # two (a point each; before: "No affine transformation ... use tiles")
   test:
     suffix: lines_one_point
     requires: cudaemu
     args: -da_grid_x {{1 2}separate output} -da_grid_y 1 -da_grid_z 1 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -ksp_view
     filter: grep -o -e "hyperplane levels: [^,]*" -e "Iterations.*" -e "mapping lines[^;]*;"
   test:
     suffix: lines_one_point_np2
     requires: cudaemu
     nsize: 2
     args: -da_grid_x 2 -da_grid_y 1 -da_grid_z 1 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -ksp_view
     filter: grep -o -e "hyperplane levels: [^,]*" -e "Iterations.*" -e "mapping lines[^;]*;"

   # ICC(k) of a MATSEQBAIJ of block size 1: PETSc's has a fill of its own (not its AIJ's or SBAIJ's); MatSolverType gilu
   # hands it to PETSc's as it does for larger blocks: PETSc's iterations (before: AIJ's ICC(3), 4 iterations against 3)
   test:
     suffix: icc_baij_bs1
     args: -dim 2 -stencil star5 -da_grid_x 7 -da_grid_y 4 -symmetric -dm_mat_type baij -pc_type icc -pc_factor_levels {{2 3}separate output} -pc_factor_mat_solver_type {{petsc gilu}shared output}
     filter: grep Iterations

   test:
     suffix: eisenstat_error_np2
     nsize: 2
     args: -stencil star7 -pc_type structilu -pc_structilu_eisenstat
     filter: Error: grep -o "pc_structilu_eisenstat runs on one process only"

   # the factors of the first matrix kept for the second (KSPSetReusePreconditioner()): the trick's identity, which
   # needs the factors of the matrix solved, would solve the first matrix's system (Error norm LARGE, KSP converged);
   # Ahat takes A's product instead. Symmetric: CG with the natural norm has PETSc's reused ILU(0)'s residual history;
   # nonsymmetric, the values changed in place, a nonzero initial guess: the second error small and the view says it
   test:
     suffix: eisenstat_reuse
     args: -symmetric -ksp_type cg -ksp_norm_type natural -ksp_monitor -stencil star7 -dof {{1 2}separate output} -solve_twice -ksp_reuse_preconditioner -pc_type {{ilu structilu}shared output} -pc_structilu_eisenstat
   test:
     suffix: eisenstat_reuse_gmres
     args: -stencil star7 -dof 2 -solve_twice -twice_in_place -ksp_reuse_preconditioner -ksp_initial_guess_nonzero -ksp_type gmres -pc_type structilu -pc_structilu_eisenstat -ksp_view
     filter: grep -e "Error norm" -e "Eisenstat trick of the last solve" -e "Second solve"

   # PCSPARSIFY reused (KSPSetReusePreconditioner(), -snes_lag_preconditioner) after the values changed in place: its inner
   # PC, on A itself when nothing is dropped or when the inner factor drops S, keeps the first matrix's factors as PETSc's
   # reused ILU does (before: the inner PCApply() refactored A's new values, 8 iterations instead of 10 and 11). Nothing
   # dropped: PETSc's reused ILU(0)'s iterations; S dropped by gilu's factor: those of the assembled Ahat under structilu
   test:
     suffix: sparsify_reuse
     args: -stencil star7 -solve_twice -twice_in_place -ksp_reuse_preconditioner -ksp_type gmres -pc_type {{ilu sparsify}shared output} -pc_sparsify_ratio 0
   test:
     suffix: sparsify_reuse_dropped
     args: -stencil star7 -solve_twice -twice_in_place -ksp_reuse_preconditioner -ksp_type gmres -pc_type sparsify -pc_sparsify_ratio 5 -pc_sparsify_sub_pc_type {{ilu structilu}shared output}

   test:
     suffix: eisenstat_error_transpose
     args: -stencil star7 -ksp_type bicg -pc_type structilu -pc_structilu_eisenstat
     filter: Error: grep -o "PCApplyTranspose() of -pc_structilu_eisenstat"

   # -citations: PetscFinalize() prints the BibTeX entries of the papers the run used; the filter keeps the titles of the
   # papers petscgilu cites. Each PC names its paper; the triangular-solve engine's adaptive choice (MatSolverType gilu, which is
   # also sparsify's inner ILU, and atsilu's solves) the Block SpTRSV paper; the Eisenstat trick Eisenstat's
   test:
     suffix: citations
     args: -stencil star7 -citations -pc_type {{structilu sparsify atsilu fgdd}separate output}
     filter: grep -i "title *=" | grep -i -e structilu -e sparsified -e "alternating triangular" -e "fine-grained" -e "block algorithms" -e "conjugate gradient methods"

   test:
     suffix: citations_gilu
     args: -stencil star7 -citations -pc_type ilu -pc_factor_mat_solver_type gilu
     filter: grep -i "title *=" | grep -i -e structilu -e sparsified -e "alternating triangular" -e "fine-grained" -e "block algorithms" -e "conjugate gradient methods"

   test:
     suffix: citations_eisenstat
     args: -stencil star7 -citations -pc_type structilu -pc_structilu_eisenstat
     filter: grep -i "title *=" | grep -i -e structilu -e sparsified -e "alternating triangular" -e "fine-grained" -e "block algorithms" -e "conjugate gradient methods"

   # PCMatApply(): the columns of a block in one call, each bitwise PCApply()'s (host and cudaemu; ILU and IC; DoF 1 and 3;
   # single-precision factors), and KSPMatSolve() with KSPPREONLY calls it once and PCApply() never (PETSc's fallback
   # for a PC without PCMatApply() calls PCApply() once per column: 5 here)
   test:
     suffix: matapply
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type structilu -gilu_backend {{host cudaemu}}
   # the device sweeps (cudaemu) on all the columns of a block at once: both mappings, with and without the intra-row
   # pipeline (lines: a column's rings of 4 stages take 17 KiB, so the groups are 2, 2 and 1 column), blocks whose
   # leading dimension is not their rows (copied a column at a time)
   test:
     suffix: matapply_structilu_cuda
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil {{diamond13 box27}} -dof {{1 3}} -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping {{tiles lines}} -pc_structilu_cuda_pipeline {{1 4}} -matapply_lda_pad {{0 3}}
   # every configuration of the blocks' sweep kernels (DoF 1 to 8, double and single factors, both mappings)
   test:
     suffix: matapply_structilu_cuda_dofs
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil star7 -dof {{1 2 3 4 5 6 7 8}} -pc_type structilu -gilu_backend cudaemu -pc_structilu_factor_precision {{double single}} -pc_structilu_cuda_mapping {{tiles lines}}
   # MatSolverType structilu's factor (PCILU) on the device, and its MatMatSolve() in place (a column at a time)
   test:
     suffix: matapply_structilu_factor_cuda
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type ilu -pc_factor_mat_solver_type structilu -gilu_backend {{host cudaemu}} -matapply_inplace
   # on two processes: block Jacobi (the host sweeps on groups of columns of each block), the pipeline across processes
   # and MatSolverType structilu's global factors (groups of columns in each pass, every message carrying the group's
   # values); the columns of the blocks' local rows. tests/ex18 -columns checks the pipeline's blocks on every cut
   test:
     suffix: matapply_structilu_np2
     nsize: 2
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof 3 -pc_type {{structilu ilu}} -pc_factor_mat_solver_type structilu -pc_structilu_distributed {{0 1}}
   # the global factors' MatMatSolve(F, B, B) in place (the pipeline solves copies over its boxes), on 3 processes, and
   # what -ksp_view says of the blocks: star7 DoF 1 groups of 2 columns (2 + 2 + 1), box27 DoF 3 one group of 5
   test:
     suffix: matapply_structilu_np3
     nsize: 3
     args: -compare_matapply 5 -stencil {{star7 box27}separate output} -dof {{1 3}separate output} -pc_type ilu -pc_factor_mat_solver_type structilu -matapply_inplace -matapply_pc_view
     filter: grep -e "PCMatApply\|KSPMatSolve\|blocks of right-hand sides"
   # the host sweeps on groups of columns (of 4 and 5 here), on each schedule's threads
   test:
     suffix: matapply_structilu_schedules
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type structilu -pc_structilu_schedule {{slab hyperplane}} -pc_structilu_threads 2
   test:
     suffix: matapply_ic
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -symmetric -stencil box27 -dof 2 -pc_type structilu -pc_structilu_type ic -pc_structilu_factor_precision {{double single}} -gilu_backend {{host cudaemu}}
   test:
     suffix: matapply_ic_lines
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -symmetric -stencil box27 -dof 2 -pc_type structilu -pc_structilu_type ic -pc_structilu_factor_precision {{double single}} -gilu_backend cudaemu -pc_structilu_cuda_mapping lines

   # PCATSILU's PCMatApply() (MatMatSolve() of its gilu factor, or the Jacobi sweeps on each column; block factors of BAIJ),
   # the same checks, on one process and on two (each its local block); on cudaemu the factor's solves run on the
   # device and PCMatApply() must copy no more than the column applies (MatMatSolve() of gilu copied each column in and
   # out for each triangle)
   test:
     suffix: matapply_atsilu
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -dm_mat_type {{aij baij}} -pc_type atsilu -pc_atsilu_trisolve {{exact jacobi}} -gilu_backend {{host cudaemu}}
   test:
     suffix: matapply_atsilu_np2
     nsize: 2
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil star7 -pc_type atsilu -pc_atsilu_trisolve {{exact jacobi}} -gilu_backend {{host cudaemu}}
   # PCFGDD: a host task per subdomain takes every column (every apply variant, fused or not; the transposed apply with
   # PETSc >= 3.24); on cudaemu one device apply of the block (a thread block per subdomain and column in each launch;
   # leading dimensions padded: packed on the way to the device): vertex and syncfree only, since the device's edge
   # variant adds with atomics in no fixed order (two applies of one column agree to round-off, under
   # -gilu_cudaemu_schedule random)
   test:
     suffix: matapply_fgdd
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type fgdd -pc_fgdd_subdomain_rows 64 -pc_fgdd_apply {{vertex edge syncfree}} -pc_fgdd_fused {{0 1}} -pc_fgdd_threads 2
   test:
     suffix: matapply_fgdd_cudaemu
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type fgdd -pc_fgdd_subdomain_rows 64 -pc_fgdd_apply {{vertex syncfree}} -pc_fgdd_fused {{0 1}} -gilu_backend cudaemu -matapply_lda_pad {{0 3}}
   test:
     suffix: matapply_fgdd_np2
     nsize: 2
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil star7 -pc_type fgdd -pc_fgdd_subdomain_rows 64 -gilu_backend {{host cudaemu}}
   test:
     # PETSc >= 3.24 also runs PCMatApplyTranspose(), which on a device back-end the host tasks apply
     # (ex1_matapply_fgdd_view_gilu_backend-cudaemu_alt.out)
     suffix: matapply_fgdd_view
     args: -compare_matapply 3 -stencil star7 -pc_type fgdd -gilu_backend {{host cudaemu}separate output} -matapply_pc_view
     filter: grep -e "bitwise" -e "KSPMatSolve" -e "blocks of right-hand sides"
   # PCILU with MatSolverType gilu: MatMatSolve() of the factor, 8 columns at once, on 1 and 2 threads, ILU(0) and ILU(1)
   test:
     suffix: matapply_gilu
     output_file: output/ex1_matapply_gilu.out
     args: -compare_matapply 11 -stencil diamond13 -dof {{1 3}} -pc_type ilu -pc_factor_mat_solver_type gilu -pc_factor_levels {{0 1}} -mat_gilu_trisolve_threads {{1 2}}
   # ... on a device back-end (cudaemu): every launch of both triangles' solves takes all columns (one wait per dependency
   # for the block), each column bitwise its MatSolve(): every kernel of the engine (level-set, sync-free by rows and by
   # columns, the block algorithms' squares by scalar- and vector-CSR), the orderings gathered and scattered by the
   # kernels (rcm) or by passes of their own (the block algorithms), leading dimensions padded (packed on the way to the
   # device: ex7 gives the kernels padded columns); and in place (X = B)
   test:
     suffix: matapply_gilu_cudaemu
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type ilu -pc_factor_mat_solver_type gilu -gilu_backend cudaemu -mat_gilu_trisolve {{levelset syncfree recblock colblock}} -pc_factor_mat_ordering_type {{natural rcm}} -matapply_lda_pad {{0 3}}
   test:
     suffix: matapply_gilu_cudaemu_inplace
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil box27 -dof {{1 2}} -pc_type ilu -pc_factor_mat_solver_type gilu -gilu_backend cudaemu -mat_gilu_trisolve {{syncfree rowblock}} -pc_factor_mat_ordering_type {{natural rcm}} -matapply_lda_pad 2 -matapply_inplace
   # sync-free by columns adds with atomics in no fixed order: round-off (KSPMatSolve()'s result against PCMatApply()'s too)
   test:
     suffix: matapply_gilu_cudaemu_csc
     args: -compare_matapply 5 -stencil box27 -dof {{1 2}} -pc_type ilu -pc_factor_mat_solver_type gilu -gilu_backend cudaemu -mat_gilu_trisolve {{syncfree rowblock}} -mat_gilu_trisolve_csc -pc_factor_mat_ordering_type {{natural rcm}} -matapply_lda_pad 2 -matapply_rtol 1e-12
   # bench/matapply.py's timing mode: one JSON line (the numbers masked)
   test:
     suffix: time_matapply
     args: -time_matapply 3 -time_reps 1 -pc_type {{ilu fgdd}separate output}
     filter: sed -E "s/[0-9][0-9.e+-]{0,20}/N/g"
   # what -ksp_view says of it (and of PCSTRUCTILU's on a device)
   test:
     suffix: matapply_view
     args: -compare_matapply 3 -stencil star7 -pc_type {{atsilu structilu}separate output} -gilu_backend cudaemu -matapply_pc_view
     filter: grep -e "bitwise" -e "KSPMatSolve" -e "blocks of right-hand sides"
   test:
     suffix: matapply_view_lines
     args: -compare_matapply 5 -stencil box27 -pc_type structilu -gilu_backend cudaemu -pc_structilu_cuda_mapping lines -pc_structilu_cuda_pipeline 4 -matapply_pc_view
     filter: grep -e "bitwise" -e "KSPMatSolve" -e "blocks of right-hand sides"
   test:
     suffix: matapply_structilu_host_view
     args: -compare_matapply 3 -stencil star7 -pc_type structilu -pc_structilu_threads {{1 2}separate output} -matapply_pc_view
     filter: grep -e "bitwise" -e "KSPMatSolve" -e "blocks of right-hand sides"
   test:
     suffix: matapply_atsilu_jacobi_view
     args: -compare_matapply 3 -stencil star7 -pc_type atsilu -pc_atsilu_trisolve jacobi -matapply_pc_view
     filter: grep -e "bitwise" -e "KSPMatSolve" -e "blocks of right-hand sides"
   # PCSPARSIFY: its inner PC's PCMatApply() (PCILU's MatMatSolve() of the gilu factor that drops S; block Jacobi on two
   # processes): no PCApply() (PETSc counts the nested PCMatApply() events once)
   test:
     suffix: matapply_sparsify
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil diamond13 -dof {{1 3}} -pc_type sparsify -pc_sparsify_ratio {{0 5}} -gilu_backend {{host cudaemu}}
   test:
     suffix: matapply_sparsify_np2
     nsize: 2
     output_file: output/ex1_matapply.out
     args: -compare_matapply 5 -stencil star7 -pc_type sparsify -pc_sparsify_ratio 5

   # -ksp_pc_side symmetric with IC: the halves of PCICC's split (MatForwardSolve(), MatBackwardSolve() of its factor), so
   # the same residuals as PETSc's ICC(0) (PETSc's CG takes only the left side: GMRES, which takes the symmetric one);
   # on cudaemu with the factors of the host (-pc_structilu_cuda_factor 0)
   test:
     suffix: sym_side
     args: -symmetric -ksp_type gmres -ksp_pc_side symmetric -ksp_monitor -stencil {{star7 box27}separate output} -dof {{1 3}separate output} -pc_type {{icc structilu}shared output} -pc_structilu_type ic
   test:
     suffix: sym_side_cudaemu
     output_file: output/ex1_sym_side_stencil-star7_dof-1.out
     args: -symmetric -ksp_type gmres -ksp_pc_side symmetric -ksp_monitor -stencil star7 -dof 1 -pc_type structilu -pc_structilu_type ic -gilu_backend cudaemu -pc_structilu_cuda_factor 0
   # what is refused: ILU (no symmetric split), IC factored on the device only
   test:
     suffix: sym_side_ilu
     args: -symmetric -ksp_type gmres -ksp_pc_side symmetric -stencil star7 -pc_type structilu
     filter: Error: grep -o "PCApplySymmetricLeft() .*pc_structilu_type ic"
   test:
     suffix: sym_side_device_factors
     args: -symmetric -ksp_type gmres -ksp_pc_side symmetric -stencil star7 -pc_type structilu -pc_structilu_type ic -gilu_backend cudaemu
     filter: Error: grep -o "PCApplySymmetricLeft() .*pc_structilu_cuda_factor 0"

   # the plugin's preconditioners that read rows (and MatSolverType gilu) on a MATSTENCILGPU operator work on its AIJ
   # image, as PETSc's own preconditioners do: the residuals of the AIJ operator of the same pattern, the DMDA's full
   # stencil (before: errors naming seqstencilgpu)
   test:
     suffix: stencilgpu_rows
     args: -stencil box27 -dof 3 -solve_twice -ksp_monitor -dm_mat_type {{aij stencilgpu}shared output} -pc_type {{fgdd atsilu sparsify}separate output} -pc_sparsify_ratio 5
   test:
     suffix: stencilgpu_rows_in_place
     args: -stencil box27 -dof 3 -solve_twice -twice_in_place -dm_mat_type {{aij stencilgpu}shared output} -pc_type {{fgdd atsilu sparsify}separate output} -pc_sparsify_ratio 5
     filter: grep -e Iterations -e Error
   test:
     # nothing dropped: the inner PC gets the operator itself (gilu: through the image, the factor's)
     suffix: stencilgpu_rows_sparsify0
     args: -stencil box27 -dof 2 -ksp_monitor -dm_mat_type {{aij stencilgpu}shared output} -pc_type sparsify -pc_sparsify_ratio 0 -pc_sparsify_sub_pc_type {{ilu structilu}separate output}
   test:
     suffix: stencilgpu_rows_gilu
     args: -symmetric -stencil box27 -dof 2 -ksp_monitor -dm_mat_type {{aij stencilgpu}shared output} -pc_type {{ilu icc}separate output} -pc_factor_levels 1 -pc_factor_mat_solver_type gilu
   test:
     suffix: stencilgpu_rows_np2
     nsize: 2
     args: -stencil star7 -dof 2 -ksp_monitor -dm_mat_type {{aij stencilgpu}shared output} -pc_type {{fgdd atsilu sparsify}separate output}

TEST*/
