static char help[] = "PCSTRUCTILU's CUDA kernels (run through the emulation, cudaemu, or on a device) against the host solves.\n\
  -stencil <name> : star5 diamond13 (2D), star7 box27 (3D)  (default star7)\n\
  -dof <1..8>     : unknowns per grid point (default 1)\n\
  -n <n>          : grid points per direction (default 5)\n\
  -backend <cudaemu|cuda> : the back-end compared with the host (default cudaemu)\n\
  -napply <k>     : applies (default 2: the flags of the block-to-block waiting are reused)\n\
  -cusparse      : also compare the cuSPARSE ILU(0) baseline (csrilu02/SpSV for AIJ, bsrilu02/bsrsv2 with -dm_mat_type baij; a CUDA device only)\n\
  -matmult       : also compare MatStencilGPUMultWithBackend() with MatMult() (with -dm_mat_type stencilgpu)\n\
  -bench <k>      : then time k applies of the back-end (and of cuSPARSE with -cusparse); prints one line of seconds\n\
  -expect_differ  : print whether the results differ instead of checking that they agree (for -pc_structilu_cuda_nowait)\n\
  -counters_report : (cudaemu) print one line of the emulation's counters of the factorization and of one apply (make gpu-model)\n\
  -counters_header : print the header of that line first\n\
  -counters_budget : (cudaemu) fail when those counters exceed the budgets of this stencil, DoF and -n (make check)\n\
  -counters_columns <m> : (cudaemu) also count one PCMatApply() on m columns against one PCApply() (with -counters_budget: m 8)\n\
  -huge_entry <r> : set row r's coupling to its +x neighbour (column r + dof) to 1e40, beyond single precision's range\n\
  -host_pc_view, -dev_pc_view : PCView() of the host's and of the back-end's PC after the setup\n\
Silent when the applies of the back-end equal the host's to round-off.\n\n";

/*
  Assembles a matrix with the stencil's values on a DMDA, with dense dof x dof blocks (strictly diagonally dominant;
  symmetric with -symmetric; its pattern, with explicit zeros, is the DMDA's stencil: star5 and star7 exactly, diamond13
  in the 5 x 5 box), and applies two PCSTRUCTILU preconditioners, one on the host and one on the
  back-end, to the same vectors. The back-end factors on the device (its factorization kernel; with
  -pc_structilu_cuda_factor 0 it gets a level-ordered copy of the host's factors) and solves there: the factors and so
  the results must agree to round-off (relative difference below 1e-12, or 1e-5 with single-precision factors).

  With -pc_structilu_cuda_nowait (the device kernels, factorization and solves, skip the block-to-block waiting) the
  results must differ under every schedule of the emulation (-gilu_cudaemu_schedule: the resident blocks interleave,
  as a GPU runs them concurrently): that is what proves the waiting is needed and is there. -expect_differ prints the
  outcome instead of checking agreement.

  With -counters_report or -counters_budget the emulation counts (GILUEmuCountersSetActive(), cudaemu.c has the rules)
  the device factorization (the setup) and one more apply: the 32-byte sectors of the kernels' factor and vector
  accesses over the fewest they need, the dependent global round trips per level, and the apply's launches, copies,
  synchronizations and allocations. -counters_budget checks them against the budgets below and prints what exceeds them.
*/
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilutest.h>
#include <petscgilu/private/compat.h>
#include <petscgilu/private/cudaemu.h>

typedef struct {
  const char *name;
  PetscInt    dim, width;
  PetscInt    l1max; /* offsets with |d|_1 <= l1max and |d|_inf <= width */
} Pattern;

static const Pattern patterns[] = {
  {"star5",     2, 1, 1},
  {"diamond13", 2, 2, 2},
  {"star7",     3, 1, 1},
  {"box27",     3, 1, 3}
};

static PetscErrorCode Assemble(DM da, const Pattern *pat, PetscInt dof, PetscBool symmetric, Mat *A)
{
  DMDALocalInfo info;
  PetscScalar   v[8 * 8];

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil row = {0}, col = {0};
        PetscInt   w = pat->width, kw = pat->dim == 3 ? w : 0;

        row.i = i;
        row.j = j;
        row.k = k;
        for (PetscInt dz = -kw; dz <= kw; dz++)
          for (PetscInt dy = -w; dy <= w; dy++)
            for (PetscInt dx = -w; dx <= w; dx++) {
              PetscInt  l1   = PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz);
              PetscBool diag = (PetscBool)(l1 == 0);

              if (l1 > pat->l1max) continue;
              if (i + dx < 0 || i + dx >= info.mx || j + dy < 0 || j + dy >= info.my || k + dz < 0 || k + dz >= info.mz) continue;
              col.i = i + dx;
              col.j = j + dy;
              col.k = k + dz;
              for (PetscInt a = 0; a < dof; a++)
                for (PetscInt b = 0; b < dof; b++) {
                  /* a deterministic function of the two global points and components; symmetric when asked */
                  PetscInt r = ((i * 7 + j * 13 + k * 29) * 8 + a), c = (((i + dx) * 7 + (j + dy) * 13 + (k + dz) * 29) * 8 + b);
                  PetscInt h = symmetric ? (r < c ? r * 131 + c : c * 131 + r) : r * 131 + c * 17 + dx * 5 + dy * 3;

                  v[a * dof + b] = diag && a == b ? 4.0 * 27 * dof : -0.2 - 0.6 * (PetscReal)((h * 2654435761u) % 1000) / 1000.0;
                  if (diag && a != b) v[a * dof + b] *= 0.5;
                }
              PetscCall(MatSetValuesBlockedStencil(*A, 1, &row, 1, &col, v, INSERT_VALUES));
            }
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -setters: the device settings through the setters instead of the options (the tests compare the two views);
   -setters_nowait: the developer setter that drops the waiting (the results must then differ) */
static PetscErrorCode UseSetters(PC pc)
{
  PetscBool setters = PETSC_FALSE, nowait = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-setters", &setters, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-setters_nowait", &nowait, NULL));
  if (setters) {
    PetscCall(PCStructILUSetCUDAMapping(pc, PC_STRUCTILU_CUDA_MAPPING_LINES));
    PetscCall(PCStructILUSetCUDATilePoints(pc, 4));
    PetscCall(PCStructILUSetCUDAPipeline(pc, 2));
    PetscCall(PCStructILUSetCUDAFactor(pc, PETSC_TRUE));
    PetscCall(PCStructILUSetCUDAFactorPipeline(pc, PETSC_TRUE));
    PetscCall(PCStructILUSetCUDAMMA(pc, PETSC_FALSE));
    PetscCall(PCStructILUSetPerformanceModel(pc, PC_STRUCTILU_MODEL_GPU_H200, 1000.0, 2.0, 20.0));
  }
  if (nowait) PetscCall(PCStructILUSetCUDANoWait(pc, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what the emulation counts of one configuration: the factorization (the device PC's setup) and one apply */
typedef struct {
  double     factor_ratio, factor_trips;      /* factorization: sectors / minimum of its factor loads and stores; round trips per level */
  double     solve_factor, solve_vector;      /* apply: sectors / minimum of the factor loads, of the vector loads and stores */
  double     solve_trips;                     /* apply: round trips per level (both sweeps) */
  PetscInt64 launches, copies, syncs, allocs; /* apply */
} Cost;

/*
  Budgets of make check (-counters_budget), in one place: what the code measured when they were set (the default tiles
  mapping, the grids of the TEST blocks below) with 10% slack on the ratios and round trips, the counts exact.
  The targets for star7 DoF 1: sectors within 1.25x of the minimum for factors and vectors, <= 3 dependent round trips
  per level, 0 allocations and <= 1 synchronization per apply. Measured: 2.98 round trips per level (one wait per
  predecessor tile, one release per tile, loads before the wait; 3.48 under the reverse schedule: a persistent block
  carries its clock from one tile to the next it took, so the counts depend on which block takes which tile, and the
  budgets hold the largest of the three schedules); a vector ratio of 1.61 (the level-ordered vectors; what is left: b
  read and x written in natural order, and the edges of an 8^3 grid); a factorization ratio of 5.95. The factors in
  component planes (FactorBlock() in structilu-kernels.h, the StructILU paper's per-component layout) hold the apply's
  factor ratio at DoF > 1 to 1.00-1.27 (it was 4.00 at DoF 4 with row-major blocks: a thread read row a of a DoF x DoF
  block, so a warp's request spanned DoF times the sectors it needed); DoF 5 keeps the odd DoF and the tensor-core
  factorization within it. Lower these to what a faster kernel measures (make gpu-model prints it).
*/
static const struct {
  const char *mapping, *stencil;
  PetscInt    dof, n;
  Cost        max;
} budgets[] = {
  /*                           factorization: ratio trips   apply: factor      vector      trips    launches copies syncs allocs */
  {"tiles", "star7", 1, 8, {1.1 * 1.53, 1.1 * 5.95, 1.1 * 1.26, 1.1 * 1.61, 1.1 * 3.48, 2, 2, 1, 0} },
  {"tiles", "star7", 5, 8, {1.1 * 1.43, 1.1 * 3.95, 1.1 * 1.12, 1.1 * 1.40, 1.1 * 4.55, 2, 2, 1, 0} }, /* DoF 5: the tensor-core factorization */
  {"tiles", "box27", 4, 8, {1.1 * 1.82, 1.1 * 11.98, 1.1 * 1.00, 1.1 * 1.39, 1.1 * 3.97, 2, 2, 1, 0}}, /* DoF 4: the CUDA-core factorization */
  {"lines", "box27", 4, 8, {1.1 * 1.56, 1.1 * 3.09, 1.1 * 1.00, 1.1 * 1.43, 1.1 * 4.14, 2, 2, 1, 0} }, /* vectors in level order as the tiles' */
};

static double Ratio(const GILUEmuCounters *c, GILUEmuMemClass cls, PetscBool loads, PetscBool stores)
{
  PetscInt64 sec = 0, min = 0;

  if (loads) sec += c->sectors[0][cls], min += c->minimum[0][cls];
  if (stores) sec += c->sectors[1][cls], min += c->minimum[1][cls];
  return min ? (double)sec / (double)min : 0.0;
}

static double Trips(const GILUEmuCounters *c)
{
  return c->levels ? (double)c->levelled_trips / (double)c->levels : 0.0;
}

/* the apply's part of the Cost: one more apply of the device PC, counted alone; *solve_index: the sectors of the index loads
   (positions, tiles, offsets) per sector of factor and vector accesses (reported, not budgeted, so not in the Cost) */
static PetscErrorCode CountApply(PC dev, Vec b, Vec y, Cost *cost, double *solve_index)
{
  GILUEmuCounters c;

  PetscFunctionBeginUser;
  PetscCall(GILUEmuCountersReset());
  PetscCall(PCApply(dev, b, y));
  PetscCall(GILUEmuCountersGet(NULL, &c));
  cost->solve_factor = Ratio(&c, GILU_EMU_MEM_FACTOR, PETSC_TRUE, PETSC_FALSE);
  cost->solve_vector = Ratio(&c, GILU_EMU_MEM_VECTOR, PETSC_TRUE, PETSC_TRUE);
  cost->solve_trips  = Trips(&c);
  {
    const PetscInt64 fv = c.sectors[0][GILU_EMU_MEM_FACTOR] + c.sectors[0][GILU_EMU_MEM_VECTOR] + c.sectors[1][GILU_EMU_MEM_VECTOR];

    *solve_index = fv ? (double)c.sectors[0][GILU_EMU_MEM_INDEX] / (double)fv : 0.0;
  }
  cost->launches = c.runtime[GILU_EMU_RT_LAUNCH];
  cost->copies   = c.runtime[GILU_EMU_RT_COPY_TO_DEVICE] + c.runtime[GILU_EMU_RT_COPY_TO_HOST] + c.runtime[GILU_EMU_RT_COPY_ON_DEVICE];
  cost->syncs    = c.runtime[GILU_EMU_RT_SYNC];
  cost->allocs   = c.runtime[GILU_EMU_RT_ALLOC];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReportCost(const char stencil[], PetscInt dof, PetscInt n, const Cost *c, double solve_index, PetscBool report, PetscBool budget)
{
  PetscFunctionBeginUser;
  if (report)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s %3" PetscInt_FMT " %3" PetscInt_FMT " | %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f | %8" PetscInt64_FMT " %6" PetscInt64_FMT " %5" PetscInt64_FMT " %6" PetscInt64_FMT "\n", stencil, dof, n, c->factor_ratio, c->factor_trips, c->solve_factor, c->solve_vector, c->solve_trips, solve_index, c->launches, c->copies, c->syncs, c->allocs));
  if (budget) {
    const Cost *m           = NULL;
    char        mapping[16] = "tiles";

    PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_structilu_cuda_mapping", mapping, sizeof(mapping), NULL));
    for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
      PetscBool match, mmatch;

      PetscCall(PetscStrcmp(stencil, budgets[i].stencil, &match));
      PetscCall(PetscStrcmp(mapping, budgets[i].mapping, &mmatch));
      if (match && mmatch && dof == budgets[i].dof && n == budgets[i].n) m = &budgets[i].max;
    }
    PetscCheck(m, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-counters_budget: no budget for the %s mapping, %s DoF %" PetscInt_FMT " -n %" PetscInt_FMT " in ex6.c's table", mapping, stencil, dof, n);
    /* a ratio of 0: nothing of that class was counted (memory not given its class by gilu_mem_class(), or accesses not
       through gilu_ld/gilu_st): the budget would hold for nothing */
    if (!(c->factor_ratio > 0 && c->solve_factor > 0 && c->solve_vector > 0)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ": no factor or vector requests counted (gilu_mem_class(), gilu_ld/gilu_st)\n", stencil, dof));
#define CHECK_BUDGET(field, fmt, what) \
  if (c->field > m->field) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ": %s " fmt " exceeds its budget " fmt "\n", stencil, dof, what, c->field, m->field))
    CHECK_BUDGET(factor_ratio, "%.3f", "factorization sectors / minimum");
    CHECK_BUDGET(factor_trips, "%.3f", "factorization round trips per level");
    CHECK_BUDGET(solve_factor, "%.3f", "apply factor sectors / minimum");
    CHECK_BUDGET(solve_vector, "%.3f", "apply vector sectors / minimum");
    CHECK_BUDGET(solve_trips, "%.3f", "apply round trips per level");
    CHECK_BUDGET(launches, "%" PetscInt64_FMT, "launches per apply");
    CHECK_BUDGET(copies, "%" PetscInt64_FMT, "copies per apply");
    CHECK_BUDGET(syncs, "%" PetscInt64_FMT, "synchronizations per apply");
    CHECK_BUDGET(allocs, "%" PetscInt64_FMT, "allocations per apply");
#undef CHECK_BUDGET
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -counters_columns m: a block of m right-hand sides (PCMatApply()) against one apply, each counted alone (after a first
  PCMatApply() that grows the device's buffers): the factor sectors the block reads per column over those of one apply
  (1: the factors read again for every column; 1/m: once for the block), the dependent round trips per level of the
  block's launches against one apply's (one wait and one release per level for all the columns: a batch of 4 columns
  adds about the round trip of its loads), and the block's launches, copies, synchronizations and allocations.
  Budgets (-counters_budget, m 8, the grids of the TEST blocks: what the code measured when they were set, the largest
  of the three schedules, with 10% slack; the counts exact). The tiles load a factor value once per batch of 4 columns
  (the prefetched ones, and the row of the inverted diagonal, once per tile and batch): star7 DoF 1 0.141 (all its
  offsets prefetched; 0.125 would be every factor once per tile), box27 DoF 4 0.167; their round trips per level: star7
  3.50 against one apply's 3.48 (no barrier between the batches: the emulation, which cannot see data dependences,
  counts the second batch's loads in the run of the first; a GPU would issue them after the first batch's products,
  about one round trip more per batch), box27 4.99 against 3.97 (the stages' exchange: a barrier per batch). The lines
  take a group of columns per pair of launches: box27 DoF 4 (4 stages) fits 2 columns' rings in 48 KiB, so 0.5 of the
  factors, 8 launches, and one apply's 4.14 round trips per level in each.
*/
static const struct {
  const char *mapping, *stencil;
  PetscInt    dof;
  double      factor, trips; /* factor sectors per column over one apply's; round trips per level of the block */
  PetscInt64  launches, copies, syncs, allocs;
} blockbudgets[] = {
  {"tiles", "star7", 1, 1.1 * 0.141, 1.1 * 3.50, 2, 2, 1, 0},
  {"tiles", "box27", 4, 1.1 * 0.167, 1.1 * 4.99, 2, 2, 1, 0},
  {"lines", "box27", 4, 1.1 * 0.500, 1.1 * 4.14, 8, 2, 1, 0},
};

static PetscErrorCode CountBlock(PC dev, Vec b, Vec y, const char stencil[], PetscInt dof, PetscInt m, PetscBool report, PetscBool budget)
{
  GILUEmuCounters c[2];
  Mat             B, X;
  PetscInt        nl;
  double          factor, trips[2];
  PetscInt64      copies;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(b, &nl));
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, nl, PETSC_DECIDE, PETSC_DECIDE, m, NULL, &B));
  PetscCall(MatSetRandom(B, NULL));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  PetscCall(PCMatApply(dev, B, X)); /* the device's buffers grown to the block */
  PetscCall(GILUEmuCountersReset());
  PetscCall(PCApply(dev, b, y));
  PetscCall(GILUEmuCountersGet(NULL, &c[0]));
  PetscCall(GILUEmuCountersReset());
  PetscCall(PCMatApply(dev, B, X));
  PetscCall(GILUEmuCountersGet(NULL, &c[1]));
  factor   = c[0].sectors[0][GILU_EMU_MEM_FACTOR] ? (double)c[1].sectors[0][GILU_EMU_MEM_FACTOR] / ((double)m * (double)c[0].sectors[0][GILU_EMU_MEM_FACTOR]) : 0.0;
  trips[0] = Trips(&c[0]);
  trips[1] = Trips(&c[1]);
  copies   = c[1].runtime[GILU_EMU_RT_COPY_TO_DEVICE] + c[1].runtime[GILU_EMU_RT_COPY_TO_HOST] + c[1].runtime[GILU_EMU_RT_COPY_ON_DEVICE];
  if (report)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ", a block of %" PetscInt_FMT " columns: factor sectors per column %.3f of one apply's; round trips per level %.2f (one apply %.2f); launches %" PetscInt64_FMT " copies %" PetscInt64_FMT " syncs %" PetscInt64_FMT " allocs %" PetscInt64_FMT "\n", stencil, dof, m, factor, trips[1], trips[0],
                          c[1].runtime[GILU_EMU_RT_LAUNCH], copies, c[1].runtime[GILU_EMU_RT_SYNC], c[1].runtime[GILU_EMU_RT_ALLOC]));
  if (budget) {
    char     mapping[16] = "tiles";
    PetscInt i = 0, nb = (PetscInt)(sizeof(blockbudgets) / sizeof(blockbudgets[0]));

    PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_structilu_cuda_mapping", mapping, sizeof(mapping), NULL));
    for (; i < nb; i++) {
      PetscBool match, mmatch;

      PetscCall(PetscStrcmp(stencil, blockbudgets[i].stencil, &match));
      PetscCall(PetscStrcmp(mapping, blockbudgets[i].mapping, &mmatch));
      if (match && mmatch && dof == blockbudgets[i].dof) break;
    }
    PetscCheck(i < nb && m == 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-counters_budget -counters_columns: no budget for the %s mapping, %s DoF %" PetscInt_FMT ", %" PetscInt_FMT " columns in ex6.c's table", mapping, stencil, dof, m);
    if (!(factor > 0)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ": no factor requests counted in the block\n", stencil, dof));
#define CHECK_BLOCK(value, field, fmt, what) \
  if ((value) > blockbudgets[i].field) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ", a block: %s " fmt " exceeds its budget " fmt "\n", stencil, dof, what, value, blockbudgets[i].field))
    CHECK_BLOCK(factor, factor, "%.3f", "factor sectors per column over one apply's");
    CHECK_BLOCK(trips[1], trips, "%.3f", "round trips per level");
    CHECK_BLOCK(c[1].runtime[GILU_EMU_RT_LAUNCH], launches, "%" PetscInt64_FMT, "launches");
    CHECK_BLOCK(copies, copies, "%" PetscInt64_FMT, "copies");
    CHECK_BLOCK(c[1].runtime[GILU_EMU_RT_SYNC], syncs, "%" PetscInt64_FMT, "synchronizations");
    CHECK_BLOCK(c[1].runtime[GILU_EMU_RT_ALLOC], allocs, "%" PetscInt64_FMT, "allocations");
#undef CHECK_BLOCK
  }
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreatePC(Mat A, PetscGILUBackendType backend, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetType(*pc, PCSTRUCTILU));
  PetscCall(PCSetOperators(*pc, A, A));
  if (backend != PETSCGILU_BACKEND_HOST) PetscCall(UseSetters(*pc));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCStructILUSetBackend(*pc, backend));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char                 name[64] = "star7";
  const Pattern       *pat      = NULL;
  PetscInt             dof = 1, n = 5, napply = 2, nbench = 0, huge = -1, columns = 0;
  PetscLogDouble       t0, tsetup = 0, tapply = 0, tcsfactor = 0, tcsapply = 0;
  PetscBool            matmult = PETSC_FALSE, cusparse = PETSC_FALSE, symmetric = PETSC_FALSE, expect_differ = PETSC_FALSE, single = PETSC_FALSE, differ = PETSC_FALSE;
  PetscBool            report = PETSC_FALSE, header = PETSC_FALSE, budget = PETSC_FALSE;
  Cost                 cost        = {0};
  double               solve_index = 0.0;
  PetscGILUBackendType backend     = PETSCGILU_BACKEND_CUDAEMU, ran;
  PCStructILUPrecision prec;
  DM                   da;
  Mat                  A;
  PC                   host, dev;
  Vec                  b, yh, yd;
  PetscRandom          rnd;
  PetscReal            tol;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-stencil", name, sizeof(name), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-napply", &napply, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench", &nbench, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-huge_entry", &huge, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-counters_columns", &columns, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-symmetric", &symmetric, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cusparse", &cusparse, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-matmult", &matmult, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_differ", &expect_differ, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-backend", PetscGILUBackendTypes, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counters_report", &report, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counters_header", &header, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counters_budget", &budget, NULL));
  PetscCheck(!(report || budget) || backend == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-counters_report and -counters_budget count the emulated kernels: use -backend cudaemu");
  if (header)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s %3s %3s | %-13s | %-27s | %-29s\n%-9s %3s %3s | %6s %6s | %6s %6s %6s %6s | %8s %6s %5s %6s\n", "", "", "", "factorization", "apply (both sweeps)", "per apply", "stencil", "dof", "n", "sec/mn", "trp/lv", "factor", "vector", "trp/lv", "index", "launches", "copies", "syncs", "allocs"));
  for (size_t t = 0; t < sizeof(patterns) / sizeof(patterns[0]); t++) {
    PetscBool match;

    PetscCall(PetscStrcmp(name, patterns[t].name, &match));
    if (match) pat = &patterns[t];
  }
  PetscCheck(pat, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown -stencil %s: star5 diamond13 star7 box27", name);
  PetscCheck(dof >= 1 && dof <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dof 1..8");
  /* DMCreateMatrix() stores explicit zeros at every position of the DMDA's stencil, so its stencil is the pattern of the matrix: the
     star (5, 7 points) for star5 and star7, the box (25, 27 points) for diamond13 and box27 */
  if (pat->dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, pat->l1max == 1 ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX, n + 2, n, PETSC_DECIDE, PETSC_DECIDE, dof, pat->width, NULL, NULL, &da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, pat->l1max == 1 ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX, n + 1, n, n - 1, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, pat->width, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(Assemble(da, pat, dof, symmetric, &A));
  if (huge >= 0) { /* one process: the global numbering is the natural one, point-major with interlaced components */
    PetscInt m;

    PetscCall(MatGetSize(A, &m, NULL));
    PetscCheck(huge + dof < m && (huge / dof) % (pat->dim == 2 ? n + 2 : n + 1) < (pat->dim == 2 ? n + 1 : n), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-huge_entry %" PetscInt_FMT ": the row's point needs a +x neighbour", huge);
    PetscCall(MatSetValue(A, huge, huge + dof, 1e40, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }

  PetscCall(CreatePC(A, PETSCGILU_BACKEND_HOST, &host));
  PetscCall(PCViewFromOptions(host, NULL, "-host_pc_view"));
  if (report || budget) { /* the device's setup (its factorization) counted alone */
    PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
    PetscCall(GILUEmuCountersReset());
  }
  PetscCall(PetscTime(&t0));
  PetscCall(CreatePC(A, backend, &dev));
  PetscCall(PetscTimeSubtract(&t0));
  tsetup = -t0;
  if (report || budget) {
    GILUEmuCounters c;

    PetscCall(GILUEmuCountersGet(NULL, &c));
    cost.factor_ratio = Ratio(&c, GILU_EMU_MEM_FACTOR, PETSC_TRUE, PETSC_TRUE);
    cost.factor_trips = Trips(&c);
  }
  PetscCall(PCViewFromOptions(dev, NULL, "-dev_pc_view"));
  PetscCall(PCStructILUGetBackend(dev, &ran));
  PetscCheck(ran == backend, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The PC ran on %s, not %s", PetscGILUBackendTypes[ran], PetscGILUBackendTypes[backend]);
  PetscCall(PCStructILUGetFactorPrecision(dev, &prec));
  single = (PetscBool)(prec == PC_STRUCTILU_PRECISION_SINGLE);
  tol    = single ? 1e-5 : 1e-12;

  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &yh));
  PetscCall(VecDuplicate(b, &yd));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt r = 0; r < napply; r++) {
    PetscReal nh, nd;

    PetscCall(VecSetRandom(b, rnd));
    PetscCall(PCApply(host, b, yh));
    PetscCall(PCApply(dev, b, yd));
    PetscCall(VecNorm(yh, NORM_2, &nh));
    PetscCall(VecAXPY(yd, -1.0, yh));
    PetscCall(VecNorm(yd, NORM_2, &nd));
    if (!(nd <= tol * nh)) { /* a NaN (a value read before it was written: shared memory starts as NaNs in the emulation) differs too */
      differ = PETSC_TRUE;
      if (!expect_differ) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT " apply %" PetscInt_FMT ": %s differs from host by %g (relative)\n", name, dof, r, PetscGILUBackendTypes[backend], (double)(nd / nh)));
    }
  }
  if (matmult) { /* MATSTENCILGPU's device product against its host MatMult() */
    PetscReal nh, nd;

    PetscCall(VecSetRandom(b, rnd));
    PetscCall(MatMult(A, b, yh));
    PetscCall(MatStencilGPUMultWithBackend(A, backend, b, yd));
    PetscCall(VecNorm(yh, NORM_2, &nh));
    PetscCall(VecAXPY(yd, -1.0, yh));
    PetscCall(VecNorm(yd, NORM_2, &nd));
    if (!(nd <= 1e-14 * nh)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ": the %s MATSTENCILGPU product differs from MatMult() by %g (relative)\n", name, dof, PetscGILUBackendTypes[backend], (double)(nd / nh)));
  }
  if (cusparse) { /* the cuSPARSE ILU(0): PETSc's ILU(0) factors, so the host's solves to round-off */
    PetscGILUCuSparseILU cs;
    PetscInt             zerorow;
    PetscReal            nh, nd;

    PetscCall(PetscTime(&t0));
    PetscCall(PetscGILUCuSparseILUCreate(A, &cs, &zerorow));
    PetscCall(PetscTimeSubtract(&t0));
    tcsfactor = -t0;
    PetscCheck(zerorow < 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "cuSPARSE reports a zero pivot in row %" PetscInt_FMT, zerorow);
    PetscCall(VecSetRandom(b, rnd));
    PetscCall(PCApply(host, b, yh));
    PetscCall(PetscGILUCuSparseILUApply(cs, b, yd));
    PetscCall(VecNorm(yh, NORM_2, &nh));
    PetscCall(VecAXPY(yd, -1.0, yh));
    PetscCall(VecNorm(yd, NORM_2, &nd));
    if (!(nd <= 1e-12 * nh)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s dof %" PetscInt_FMT ": cuSPARSE ILU(0) differs from host by %g (relative)\n", name, dof, (double)(nd / nh)));
    if (nbench > 0) {
      PetscCall(PetscGILUCuSparseILUApply(cs, b, yd)); /* warm-up */
      PetscCall(PetscTime(&t0));
      for (PetscInt r = 0; r < nbench; r++) PetscCall(PetscGILUCuSparseILUApply(cs, b, yd));
      PetscCall(PetscTimeSubtract(&t0));
      tcsapply = -t0 / nbench;
    }
    PetscCall(PetscGILUCuSparseILUDestroy(&cs));
  }
  if (nbench > 0) {
    PetscCall(PCApply(dev, b, yd)); /* warm-up */
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < nbench; r++) PetscCall(PCApply(dev, b, yd));
    PetscCall(PetscTimeSubtract(&t0));
    tapply = -t0 / nbench;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: %s dof %" PetscInt_FMT " unknowns %" PetscInt_FMT " structilu_setup %g structilu_apply %g cusparse_factor %g cusparse_apply %g\n", name, dof, dof * (pat->dim == 2 ? (n + 2) * n : (n + 1) * n * (n - 1)), (double)tsetup, (double)tapply, (double)tcsfactor, (double)tcsapply));
  }
  if (expect_differ) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: results %s the host's\n", PetscGILUBackendTypes[backend], differ ? "differ from" : "equal"));
  if (report || budget) {
    PetscCall(CountApply(dev, b, yd, &cost, &solve_index));
    PetscCall(ReportCost(name, dof, n, &cost, solve_index, report, budget));
    if (columns > 0) PetscCall(CountBlock(dev, b, yd, name, dof, columns, report, budget));
  }

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&yd));
  PetscCall(PCDestroy(&host));
  PetscCall(PCDestroy(&dev));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: cudaemu

   # Every emulated case runs under three schedules a GPU may choose (in-order, reverse and random block dispatch and
   # thread order): the block-to-block waiting must hold under any of them. Together the cases launch every kernel
   # instantiation nvcc emits for structilu.cu (DoF 1-8, double and single factors, both mappings, each factorization).

   # the device factorization and solves (emulated) equal the host's: ILU and IC, 2D and 3D stencils
   test:
     suffix: emu
     requires: cudaemu
     args: -stencil {{star5 diamond13 star7 box27}separate output} -dof {{1 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_ic
     requires: cudaemu
     args: -symmetric -pc_structilu_type ic -stencil {{star5 box27}separate output} -dof {{1 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # every DoF: without the tensor cores (DoF threads per point) with single-precision factors, and with them
   test:
     suffix: emu_dof
     requires: cudaemu
     args: -stencil diamond13 -pc_structilu_cuda_mma 0 -pc_structilu_factor_precision single -dof {{2 3 4 5 6 7 8}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_mma
     requires: cudaemu
     args: -stencil star7 -dof {{5 6 7 8}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # ILU(1) (the fill stencil: positions absent from the pattern), small tiles (many blocks per level)
   test:
     suffix: emu_variants
     requires: cudaemu
     args: -stencil star7 -dof {{1 8}separate output} -pc_structilu_levels 1 -pc_structilu_cuda_tile_points 3 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # the intra-row pipelined dot product of the solves: 3 stages (the default is min(4, levels spanned): star7 1,
   # diamond13 2, box27 4, in the cases above), ILU and IC
   test:
     suffix: emu_pipeline
     requires: cudaemu
     args: -stencil box27 -dof {{1 4}separate output} -pc_structilu_cuda_pipeline 3 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_pipeline_ic
     requires: cudaemu
     args: -symmetric -pc_structilu_type ic -stencil box27 -dof 2 -pc_structilu_cuda_pipeline {{2 4}separate output} -pc_structilu_cuda_tile_points 4 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

   # the tiles' persistent grid at other residencies (the emulated device holds -gilu_cudaemu_resident blocks): one block
   # taking every tile in turn, three blocks taking them out of step; small tiles so that each level has several
   test:
     suffix: emu_persistent
     requires: cudaemu
     args: -stencil {{star7 box27}separate output} -dof 2 -pc_structilu_cuda_tile_points 5 -gilu_cudaemu_resident {{1 3}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 11
     output_file: output/empty.out
   test:
     suffix: emu_persistent_ic
     requires: cudaemu
     args: -symmetric -pc_structilu_type ic -stencil star7 -dof 3 -pc_structilu_cuda_tile_points 4 -gilu_cudaemu_resident 2 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 11
     output_file: output/empty.out

   # MATSTENCILGPU: PCSTRUCTILU on it directly, and its product on the device against MatMult(), one and two processes
   test:
     suffix: emu_stencilgpu
     requires: cudaemu
     nsize: {{1 2}separate output}
     args: -dm_mat_type stencilgpu -matmult -stencil box27 -dof 3 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

   # what the kernels would cost on a GPU, counted by the emulation (sectors over the minimum, round trips per level,
   # launches, copies, syncs, allocations per apply; and of a block of 8 right-hand sides, blockbudgets[]), against the
   # budgets above: silent within them.
   # The counts follow the kernels' dependences and, through the persistent blocks of the solves, which block takes which
   # tile: the budgets hold under every schedule
   test:
     suffix: emu_budget_star7
     requires: cudaemu
     args: -stencil star7 -dof 1 -n 8 -napply 1 -counters_budget -counters_columns 8 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_budget_star7_dof5
     requires: cudaemu
     args: -stencil star7 -dof 5 -n 8 -napply 1 -counters_budget -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_budget_box27
     requires: cudaemu
     args: -stencil box27 -dof 4 -n 8 -napply 1 -counters_budget -counters_columns 8 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_budget_lines_box27
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -stencil box27 -dof 4 -n 8 -napply 1 -counters_budget -counters_columns 8 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

   # the host's factors copied to the device (the factorization on the host), ILU and IC (single precision)
   test:
     suffix: emu_hostfactor
     requires: cudaemu
     args: -pc_structilu_cuda_factor 0 -stencil box27 -dof {{2 3}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_hostfactor_ic
     requires: cudaemu
     args: -pc_structilu_cuda_factor 0 -symmetric -pc_structilu_type ic -pc_structilu_factor_precision single -stencil star7 -dof {{1 2}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

   # single-precision factors with one entry beyond float's range, away from row 0 and at DoF > 1: row 37 (component 1
   # of point 12) couples to its +x neighbour with 1e40, so U's block of that point holds it; the host's factors and the
   # device's (its factorization, or the host's copied; the level-ordered planes mapped back to the natural row) name row 37
   test:
     suffix: emu_single_range_row
     requires: cudaemu
     args: -stencil star7 -dof 3 -huge_entry 37 -napply 0 -pc_structilu_factor_precision single -pc_structilu_cuda_factor {{0 1}shared output} -pc_structilu_cuda_mapping {{tiles lines}shared output} -host_pc_view -dev_pc_view
     filter: grep FAILED

   # the block-to-block waiting is needed: without it the results differ (under every schedule); with it they equal the host's
   test:
     suffix: nowait
     requires: cudaemu
     args: -stencil box27 -dof {{1 4}shared output} -pc_structilu_cuda_nowait -pc_structilu_cuda_tile_points 4 -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
   test:
     suffix: wait
     requires: cudaemu
     args: -stencil box27 -dof {{1 4}shared output} -pc_structilu_cuda_tile_points 4 -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7

   # the lines mapping (-pc_structilu_cuda_mapping lines, the StructILU paper, Section 4.1): a thread per line along z^ of the
   # transformed grid, 2D blocks of 2 x 2 lines (many blocks, so the block-to-block waiting is exercised);
   # factorization and both solves against the host
   test:
     suffix: emu_lines
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil {{star5 diamond13 star7 box27}separate output} -dof {{1 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_lines_ic
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -symmetric -pc_structilu_type ic -stencil {{star5 box27}separate output} -dof {{1 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_lines_dof
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil diamond13 -pc_structilu_cuda_mma 0 -pc_structilu_factor_precision single -dof {{2 3 4 5 6 7 8}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_lines_mma
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil star7 -dof {{5 6 7 8}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # ILU(1) (the fill stencil), 3 lines per block (1 x 3)
   test:
     suffix: emu_lines_variants
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 3 -stencil star7 -dof {{1 8}separate output} -pc_structilu_levels 1 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # the solves' intra-row pipeline with lines: the earlier stages work ahead of the level (3 stages; ILU and IC)
   test:
     suffix: emu_lines_pipeline
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil box27 -dof {{1 4}separate output} -pc_structilu_cuda_pipeline 3 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_lines_pipeline_ic
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -symmetric -pc_structilu_type ic -stencil box27 -dof 2 -pc_structilu_cuda_pipeline {{2 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # the host's factors with the lines solves
   test:
     suffix: emu_lines_hostfactor
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor 0 -stencil box27 -dof {{2 3}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # the lines mapping's block-to-block waiting is needed: without it the results differ (factorization and solves,
   # and the solves alone with the host's factors); with it they equal the host's
   test:
     suffix: lines_nowait
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil box27 -dof {{1 4}shared output} -pc_structilu_cuda_factor {{0 1}shared output} -pc_structilu_cuda_nowait -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/ex6_nowait.out
   test:
     suffix: lines_wait
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -stencil box27 -dof {{1 4}shared output} -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/ex6_wait.out

   # the device settings through their setters (-setters) give the view of the same options; the nowait setter makes the results differ
   test:
     suffix: setters
     requires: cudaemu
     filter: grep -v "back-end: cudaemu"
     args: -stencil box27 -dof 4 -dev_pc_view -setters
     output_file: output/ex6_setters.out
   test:
     suffix: setters_options
     requires: cudaemu
     filter: grep -v "back-end: cudaemu"
     args: -stencil box27 -dof 4 -dev_pc_view -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_pipeline 2 -pc_structilu_cuda_factor_pipeline -pc_structilu_cuda_mma 0 -pc_structilu_model_gpu h200 -pc_structilu_model_bandwidth 1000 -pc_structilu_model_latency 2 -pc_structilu_model_link 20
     output_file: output/ex6_setters.out
   test:
     suffix: setters_nowait
     requires: cudaemu
     args: -setters -setters_nowait -stencil box27 -dof {{1 4}shared output} -expect_differ
     output_file: output/ex6_nowait.out

   # the two-substage pipelined factorization (-pc_structilu_cuda_factor_pipeline, the StructILU paper, Section 4.2.2) on the lines
   # mapping: ILU, every DoF (single-precision factors), IC, ILU(1); and its block-to-block waiting is needed
   test:
     suffix: emu_factor_pipeline
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -stencil {{diamond13 box27}separate output} -dof {{1 4}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   # DoF 3 is left to emu_factor_pipeline_ic (the only test that launches the pipelined factorization for DoF 3), so the
   # mutation pass's cover (one test per kernel instantiation, chosen by speed) always runs the IC case, the one that
   # notices a missing barrier after the first LinesWait of StructILULinesFactorPipelined (the ILU cases do not)
   test:
     suffix: emu_factor_pipeline_dof
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -pc_structilu_factor_precision single -stencil box27 -dof {{1 2 5 6 7 8}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_factor_pipeline_ic
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -symmetric -pc_structilu_type ic -stencil box27 -dof {{1 3}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: emu_factor_pipeline_variants
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_factor_pipeline -pc_structilu_cuda_tile_points 3 -stencil diamond13 -dof {{1 8}separate output} -pc_structilu_levels 1 -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/empty.out
   test:
     suffix: factor_pipeline_nowait
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -stencil box27 -dof {{1 4}shared output} -pc_structilu_cuda_nowait -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/ex6_nowait.out
   test:
     suffix: factor_pipeline_wait
     requires: cudaemu
     args: -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline -stencil box27 -dof {{1 4}shared output} -expect_differ -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     output_file: output/ex6_wait.out
   # the pipelined factorization needs the lines mapping
   test:
     suffix: factor_pipeline_tiles
     requires: cudaemu
     args: -pc_structilu_cuda_factor_pipeline
     filter: Error: grep -o "runs on the lines mapping"

   # on a real GPU: the same comparisons with the cuda back-end
   test:
     suffix: cuda
     requires: cuda_device
     args: -backend cuda -stencil {{star5 diamond13 star7 box27}separate output} -dof {{1 2 4 5 8}separate output}
     output_file: output/empty.out
   test:
     suffix: cuda_lines
     requires: cuda_device
     args: -backend cuda -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4 -pc_structilu_cuda_factor_pipeline {{0 1}separate output} -stencil {{star5 diamond13 star7 box27}separate output} -dof {{1 2 4 5 8}separate output}
     output_file: output/empty.out

   # the cuSPARSE baselines (CSR and BSR) against the host solves, on a GPU
   test:
     suffix: cusparse
     requires: cuda_device
     args: -backend cuda -cusparse -stencil {{star7 box27}separate output} -dof {{1 4}separate output} -dm_mat_type {{aij baij}separate output}
     output_file: output/empty.out

   # without a device the baselines say why they cannot run
   test:
     suffix: cusparse_no_device
     requires: cuda cudaemu !cuda_device
     args: -cusparse
     filter: Error: grep -o "no CUDA device was found"

TEST*/
