/*
   MatSolverType "structilu": StructILU's factor, the object that owns the grid, the stencil matrix of the local block (or
   of the process's box with ghost layers), the factors and the back-end. MatGetFactor() makes it for PCILU and PCICC, and
   through them for the sub-solvers of PCBJACOBI, PCASM and PCMG's smoothers and every SNES refactorization
   (-pc_factor_mat_solver_type structilu); PCSTRUCTILU (structilu.c) makes one itself and drives it with its own options,
   as PCILU drives a factor (StructILUCreateFactor(), StructILUFactorSetSettings()).

   This file: the factor's ops (symbolic, numeric, solves, info, view, destroy), the positive-definite shift of ICC and
   the view; the setup sequence and the applies are in structilu-setup.c. Under PCILU/PCICC what the factor interface decides
   comes from MatFactorInfo (levels, zero pivot, the shift) and the factor type (ILU or IC); how it runs (threads, back-end,
   precision, device mapping) from the -pc_structilu_ options under the PC's prefix, read at the symbolic factorization.
   As PETSc's ICC, its IC reads the upper triangle.
*/
#include <stdarg.h>
#include <petsc/private/matimpl.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/stencilgpu.h>
#include "structilu.h"

static PetscErrorCode StructILUFactorSetSolveOps(Mat);

/* the performance model's GPUs (their figures: StructILUModelGPU() in src/mat/stencil/cuda/structilu-cuda.h) */
const char *const PCStructILUModelGPUs[]    = {"h100", "h200", "PCStructILUModelGPU", "PC_STRUCTILU_MODEL_GPU_", NULL};
const char *const PCStructILUCUDAMappings[] = {"tiles", "lines", "PCStructILUCUDAMapping", "PC_STRUCTILU_CUDA_MAPPING_", NULL};

/* printf-append to a string */
static PetscErrorCode Append(char line[], size_t len, const char fmt[], ...)
{
  size_t  used = strlen(line);
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  if (used < len) (void)vsnprintf(line + used, len - used, fmt, ap);
  va_end(ap);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "i + j + 2k" for the coefficients a of a.(i,j,k) */
static PetscErrorCode LinearForm(const PetscInt a[3], char str[], size_t len)
{
  const char *axis[3] = {"i", "j", "k"};

  PetscFunctionBegin;
  str[0] = 0;
  for (PetscInt e = 0; e < 3; e++) {
    if (!a[e]) continue;
    if (str[0]) PetscCall(Append(str, len, a[e] > 0 ? " + " : " - "));
    else if (a[e] < 0) PetscCall(Append(str, len, "-"));
    if (PetscAbsInt(a[e]) != 1) PetscCall(Append(str, len, "%" PetscInt_FMT, PetscAbsInt(a[e])));
    PetscCall(Append(str, len, "%s", axis[e]));
  }
  if (!str[0]) PetscCall(Append(str, len, "0"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What was asked for: the first lines of the view of PCSTRUCTILU and of the factor (before its setup, the only ones) */
PetscErrorCode StructILUViewHeader(const StructILUSettings *opt, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (opt->type == PC_STRUCTILU_IC)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid IC(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT ") of a symmetric matrix; upper triangle stored)\n", opt->levels, opt->levels));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid ILU(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT "))\n", opt->levels, opt->levels));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  zero pivot tolerance %g\n", (double)opt->zeropivot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The back-end that ran, and for cuda/cudaemu the schedule and the performance model of one apply:
    t = 2 launches + (dependent steps of the forward and the backward sweep) x latency + bytes moved / bandwidth
  + the copies of b and x over the host-device link (a host-only PETSc)
  The dependent steps of a sweep are its levels; with the lines mapping and a P-stage intra-row pipeline the first
  block starts P - 1 steps early (its earlier stages work ahead of the levels), so P - 1 more.
*/
static PetscErrorCode StructILUViewBackend(Mat F, PetscViewer viewer)
{
  Mat_StructILU             *ilu = (Mat_StructILU *)F->data;
  const StructILUDeviceInfo *di  = &ilu->devinfo;
  char                       name[256], build[256];
  const PetscInt             d = ilu->sm.grid.dof, N = ilu->sm.npoints;
  double                     bw, lat, pcie, bytesmat, bytesvec, bytescopy, tdev, tcopy;
  PetscInt                   steps;

  PetscFunctionBegin;
  PetscCall(PetscGILUBackendName(ilu->ran, name, sizeof(name)));
  PetscCall(PetscGILUBackendDescribe(build, sizeof(build)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  back-end: %s; %s\n", name, build));
  if (ilu->transposed)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  transposed solves (PCApplyTranspose): (D + U)^T then L^T, sequential on the host with the host's factors%s\n", ilu->dev ? " (after a device factorization the host factors the same values once more)" : ""));
  if (ilu->matapplied && ilu->dev && ilu->matgroup) {
    const PetscBool lines = (PetscBool)(ilu->devinfo.mapping == STRUCTILU_CUDA_MAPPING_LINES);

    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): the device sweeps take the columns of a group between one wait and one release of each %s (its factors read once per group), groups of %" PetscInt_FMT "%s\n", lines ? "level of a block of lines" : "tile",
                                     ilu->matgroup, lines ? " (a column's rings in 48 KiB of shared memory)" : " (all the columns of the block)"));
  } else if (ilu->matapplied && ilu->dev) PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): one device solve per column, in turn\n"));
  else if (ilu->matgroup && ilu->source && ilu->source->solve)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): a pass of the pipeline across processes per group of %" PetscInt_FMT " columns, each message carrying the group's values of its points (one solve's messages and waits a group), each unit of the sweeps on the group's columns in turn (a point's factor bytes over its vector bytes, at most the block's columns)\n",
                                     ilu->matgroup));
  else if (ilu->matgroup)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): each tile of the host sweeps on the columns of a group in turn (its factors from cache after the first), groups of %" PetscInt_FMT " (a point's factor bytes over its vector bytes, at most the block's columns)\n",
                                     ilu->matgroup));
  else if (ilu->matapplied) PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): the columns in turn\n"));
  if (!ilu->dev) PetscFunctionReturn(PETSC_SUCCESS);
  StructILUModelGPU(ilu->opt.modelgpu, &bw, &lat, &pcie);
  bw        = ilu->opt.modelbw > 0 ? ilu->opt.modelbw : bw;
  lat       = ilu->opt.modellat > 0 ? ilu->opt.modellat : lat;
  pcie      = ilu->opt.modelpcie > 0 ? ilu->opt.modelpcie : pcie;
  bytesmat  = (double)ilu->factors.bytes;
  bytesvec  = 8.0 * N * d * (ilu->opt.type == PC_STRUCTILU_IC ? 7.0 : 5.0);  /* b; x written, read, written; neighbour reads once; IC: z written, read */
  bytescopy = ilu->devnative ? 0.0 : 16.0 * N * d;                           /* b in, x out; none with PETSc's CUDA vectors */
  steps     = StructILUModelSteps(di);                                       /* lines: the pipeline's P - 1 steps ahead */
  tdev      = StructILUModelDeviceTime(steps, bytesmat + bytesvec, bw, lat); /* microseconds */
  tcopy     = bytescopy / (pcie * 1e3);
  if (di->mapping == STRUCTILU_CUDA_MAPPING_TILES) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device solves: mapping tiles, level = %" PetscInt_FMT "i + %" PetscInt_FMT "j + %" PetscInt_FMT "k, %" PetscInt_FMT " levels, %" PetscInt_FMT " tiles of at most %" PetscInt_FMT " points of one level, taken by level by a persistent grid of the resident thread blocks, %" PetscInt_FMT " threads per block (%" PetscInt_FMT " per point and stage of the intra-row pipeline of %" PetscInt_FMT " stage(s)), each tile waiting once for its predecessor tiles (%" PetscInt_FMT " in all, backward %" PetscInt_FMT ", at most %" PetscInt_FMT " per tile; one warp, acquire polls), one release per tile%s\n", di->w[0], di->w[1], di->w[2], di->nlevels, di->ntiles, di->tilepoints, di->maxthreads * di->nstage, d, di->nstage, di->npred[0], di->npred[1], di->maxpred, di->nowait ? " DISABLED (-pc_structilu_cuda_nowait: results are wrong)" : ""));
  } else {
    char c[3][64];

    for (PetscInt r = 0; r < 3; r++) PetscCall(LinearForm(di->M[r], c[r], sizeof(c[r])));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device solves: mapping lines (the StructILU paper, Section 4.1), level = %" PetscInt_FMT "i + %" PetscInt_FMT "j + %" PetscInt_FMT "k, %" PetscInt_FMT " levels; transformed grid x^ = %s, y^ = %s, z^ = %s (level = x^ + y^ + z^); %" PetscInt_FMT " lines along z^ in %" PetscInt_FMT " thread blocks of %" PetscInt_FMT " x %" PetscInt_FMT " lines of the x^y^-plane, %" PetscInt_FMT " threads per block (%" PetscInt_FMT " per line and stage of the intra-row pipeline of %" PetscInt_FMT " stage(s)%s), stepping through their levels together, launched by minimum effective level, block-to-block waiting per level on per-block level counters for %" PetscInt_FMT " predecessor blocks (backward: %" PetscInt_FMT ")%s\n", di->w[0], di->w[1], di->w[2], di->nlevels, c[0], c[1], c[2], di->nlines, di->nblocks, di->linesx, di->linesy, di->linesx * di->linesy * d * di->nstage, d, di->nstage, di->nstage > 1 ? ", the earlier stages working ahead of the level" : "", di->npred[0], di->npred[1], di->nowait ? " DISABLED (-pc_structilu_cuda_nowait: results are wrong)" : ""));
  }
  if (ilu->devfactored && ilu->opt.factorpipe)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, two-substage pipeline (the StructILU paper, Section 4.2.2): at each level step a block runs substage 2 of its rows of that level beside substage 1 of its rows of the next level (2 thread groups of DoF threads per line, one barrier between the substages and one for the diagonal inversions); substage 1: %" PetscInt_FMT " of the %" PetscInt_FMT " L blocks and %" PetscInt_FMT " of the %" PetscInt_FMT " updates of a row (intra-row levels 0 and 1, rows at least two levels back)%s\n", di->nearly, di->nlowerL, di->npairs1, di->npairs,
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else if (ilu->devfactored)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, %s%s\n", ilu->usedmma ? "one warp per grid point, block products on the FP64 tensor cores (m8n8k4 MMA), warp-shuffle Gauss-Jordan inversion of the diagonal blocks" : "DoF threads per grid point (a row of the block row each)",
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: none (-%spc_structilu_cuda_factor 0): on the host, factors copied to the device in the level-ordered layout at each setup\n", GILUPrefix(F)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  performance model (%s: %.0f GB/s, %.2f us per dependent step, %.0f GB/s host link, 5 us per launch): %" PetscInt_FMT " dependent steps per sweep, per apply %.4g MB of factors + %.4g MB of vectors on the device, %.4g MB copied; predicted %.4g us on the device + %.4g us of copies\n",
                                   PCStructILUModelGPUs[ilu->opt.modelgpu], bw, lat, pcie, steps, bytesmat / 1e6, bytesvec / 1e6, bytescopy / 1e6, tdev, tcopy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factor as it was set up: grid, stencil, fill, factors, schedule and back-end (PCSTRUCTILU's view, and the factor's under PCILU) */
PetscErrorCode StructILUView(Mat F, PetscViewer viewer)
{
  Mat_StructILU     *ilu = (Mat_StructILU *)F->data;
  const GILUStencil *st  = &ilu->sm.stencil;
  const GILUGrid    *g   = &ilu->sm.grid;
  PetscBool          ascii;
  PetscMPIInt        size;
  char               name[64], line[2048];
  const char        *axis[3] = {"i", "j", "k"};

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(StructILUViewHeader(&ilu->opt, viewer));
  if (ilu->empty) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  local block with 0 rows: empty factor\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ilu->analyzed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)F), &size));
  if (ilu->source->view) PetscCall(ilu->source->view(F, viewer));
  else if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  block Jacobi across %d MPI processes: each factors its local block (its DMDA box); process 0 shown (-%spc_structilu_distributed: the global factors instead)\n", size, GILUPrefix(F)));
  if (ilu->fallback) {
    MatSolverType solver;

    PetscCall(MatFactorGetSolverType(ilu->fallback, &solver));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  the local block is not a structured grid (%s): factored as a general sparse matrix, %s(%" PetscInt_FMT ") in natural ordering by MatSolverType %s (the factors of PETSc's %s(%" PetscInt_FMT ") of the block), on the host\n",
                                     ilu->fallbackwhy, ilu->opt.type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->opt.levels, solver, ilu->opt.type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->opt.levels));
    if (ilu->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in local row %" PetscInt_FMT "\n", ilu->zerorow));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(ilu->fallback, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSNPrintf(line, sizeof(line), "%" PetscInt_FMT, g->n[0]));
  for (PetscInt d = 1; d < g->dim; d++) PetscCall(Append(line, sizeof(line), " x %" PetscInt_FMT, g->n[d]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  grid: %" PetscInt_FMT "D, %s points (%s), DoF %" PetscInt_FMT "\n", g->dim, line, ilu->gridfrom, g->dof));
  PetscCall(GILUStencilGetName(st, g->dim, name, sizeof(name)));
  line[0] = 0;
  for (PetscInt s = 0; s < st->ns; s++) {
    PetscCall(Append(line, sizeof(line), " (%" PetscInt_FMT, st->off[s][0]));
    for (PetscInt d = 1; d < g->dim; d++) PetscCall(Append(line, sizeof(line), ",%" PetscInt_FMT, st->off[s][d]));
    PetscCall(Append(line, sizeof(line), ")"));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  stencil: %s, %" PetscInt_FMT " lower and %" PetscInt_FMT " upper offsets:%s\n", name, st->nlower, st->ns - st->nlower - 1, line));
  line[0] = 0;
  for (PetscInt d = 0; d < g->dim; d++) {
    if (!ilu->hyper[d]) continue;
    if (line[0]) PetscCall(Append(line, sizeof(line), " + "));
    if (ilu->hyper[d] > 1) PetscCall(Append(line, sizeof(line), "%" PetscInt_FMT, ilu->hyper[d]));
    PetscCall(Append(line, sizeof(line), "%s", axis[d]));
  }
  if (!line[0]) PetscCall(Append(line, sizeof(line), "0: no offset orders the points"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  hyperplane levels: %" PetscInt_FMT " (level = %s), %.1f grid points per level on average\n", ilu->nlevels, line, (double)ilu->sm.npoints / (double)ilu->nlevels));
  if (ilu->opt.levels > 0) {
    PetscInt64 npos = 0; /* in-grid positions of the fill stencil */

    for (PetscInt s = 0; s < st->ns; s++) {
      PetscInt64 cnt = 1;

      for (PetscInt d = 0; d < 3; d++) cnt *= PetscMax(g->n[d] - PetscAbsInt(st->off[s][d]), 0);
      npos += cnt;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill: the ILU(%" PetscInt_FMT ") fill stencil of the matrix's %s is %s (%" PetscInt_FMT " offsets)\n", ilu->opt.levels, ilu->patname, name, st->ns));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill positions: %" PetscInt64_FMT " in-grid positions of the fill stencil, %" PetscInt64_FMT " kept (level of fill at most %" PetscInt_FMT "), %" PetscInt_FMT " dropped (kept at zero)\n", npos,
                                     npos - ilu->sm.nmissing, ilu->opt.levels, ilu->sm.nmissing));
  } else if (ilu->sm.nmissing) PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: %" PetscInt_FMT " in-grid stencil positions absent from the matrix, kept at zero (as ILU(0) on the matrix pattern does)\n", ilu->sm.nmissing));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: the full stencil at every grid point\n"));
  if (ilu->factors.dilu)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in double precision, DILU: ILU(0) of this stencil changes only the diagonal, so only the inverted modified diagonal blocks are stored (%" PetscInt_FMT " x %" PetscInt_FMT "); the solves read the matrix's other %" PetscInt_FMT " offsets in place (L = A_L D^{-1}, U = D + A_U)\n",
                                     (double)ilu->factors.bytes / 1048576.0, g->dof, g->dof, st->ns - 1));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in %s precision (blocks of %" PetscInt_FMT " of the %" PetscInt_FMT " offsets and the inverted diagonal blocks, %" PetscInt_FMT " x %" PetscInt_FMT " blocks, stencil-major, no column indices)\n",
                                     (double)ilu->factors.bytes / 1048576.0, ilu->opt.precision == PC_STRUCTILU_PRECISION_SINGLE ? "single" : "double", ilu->factors.noffsets, st->ns, g->dof, g->dof));
  if (ilu->opt.diagstorage && !ilu->factors.dilu) { /* asked for, not used: say why (a preference, not an error) */
    char why[256];

    if (ilu->dev)
      PetscCall(PetscStrncpy(why, "on the device back-end the factors are a level-ordered copy in component planes, apart from the matrix: DILU would save no memory there and its solves would read one more block per point (D^{-1} twice)", sizeof(why)));
    else if (ilu->opt.precision == PC_STRUCTILU_PRECISION_SINGLE) PetscCall(PetscStrncpy(why, "the factors are in single precision (DILU reads the matrix's double-precision blocks)", sizeof(why)));
    else
      PetscCall(PetscSNPrintf(why, sizeof(why), "%s(%" PetscInt_FMT ") of the matrix's stencil (%s) changes more than the diagonal (DILU holds for ILU(0) of star stencils)", ilu->opt.type == PC_STRUCTILU_IC ? "IC" : "ILU", ilu->opt.levels, ilu->patname));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  -%spc_structilu_diagonal_storage: not used: %s\n", GILUPrefix(F), why));
  }
  if (ilu->opt.eisenstat)
    PetscCall(
      PetscViewerASCIIPrintf(viewer, "  Eisenstat trick: the Krylov method runs on Ahat = (D + A_L)^{-1} A (D + A_U)^{-1} (two sweeps per product, no product with A), preconditioned by D; its residuals are those of the transformed system\n"));
  if (ilu->sm.schedule && ilu->sm.schedule->type != GILU_SCHEDULE_PIPELINE) {
    GILUSchedule sch = ilu->sm.schedule;

    if (sch->type == GILU_SCHEDULE_SLAB)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads: %" PetscInt_FMT ", slab schedule: %" PetscInt_FMT " units (line segments of up to %" PetscInt_FMT " points), each thread sweeps its slab in natural order as %" PetscInt_FMT " pipelined sub-slab(s), waiting only for the units of its neighbours\n",
                                       sch->nthreads, sch->nunits, sch->chunk, sch->depth));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads: %" PetscInt_FMT ", hyperplane schedule: %" PetscInt_FMT " units (line segments of up to %" PetscInt_FMT " points) in %" PetscInt_FMT " levels, claimed in tiles of up to %" PetscInt_FMT " units of one level\n",
                                       sch->nthreads, sch->nunits, sch->chunk, sch->nlevels, sch->group));
  }
  if (ilu->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in %s row %" PetscInt_FMT "\n", ilu->source->rows, ilu->zerorow));
  else if (ilu->rangerow >= 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: the single-precision factors of %s row %" PetscInt_FMT " have an entry beyond float's range: use -%spc_structilu_factor_precision double\n", ilu->source->rows, ilu->rangerow, GILUPrefix(F)));
  PetscCall(StructILUViewBackend(F, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the symmetric d x d block a is positive definite: its Cholesky factorization exists */
static PetscBool BlockPositiveDefinite(const PetscScalar *a, PetscInt d)
{
  PetscReal l[GILU_MAX_DOF * GILU_MAX_DOF];

  for (PetscInt k = 0; k < d; k++) {
    for (PetscInt i = k; i < d; i++) {
      PetscReal t = PetscRealPart(a[i * d + k]);

      for (PetscInt j = 0; j < k; j++) t -= l[i * d + j] * l[k * d + j];
      if (i == k) {
        if (!(t > 0)) return PETSC_FALSE;
        l[k * d + k] = PetscSqrtReal(t);
      } else l[i * d + k] = t / l[k * d + k];
    }
  }
  return PETSC_TRUE;
}

/*
  The factorization of A by another solver type, whose solves (and factor error) the factor then uses (GILUMatFactorSetDelegate()):
  PETSc's ICC, or for ILU MatSolverType gilu (PETSc's ILU(k), with PETSc's shifts), of A's AIJ form (a MATSTENCILGPU's own
  image); its symbolic factorization once per pattern (the symbolic one of this factor drops it, StructILUFactorSetSolveOps())
*/
static PetscErrorCode StructILUFactorHandTo(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_StructILU        *ilu    = (Mat_StructILU *)F->data;
  const PetscBool       ic     = (PetscBool)(ilu->ftype == MAT_FACTOR_ICC);
  MatSolverType         solver = ic ? MATSOLVERPETSC : MATSOLVERGILU;
  Mat                   B;
  PetscBool             stencil, avail;
  const GILUStencilMat *msm;

  PetscFunctionBegin;
  PetscCall(MatStencilGPUGetStencilMat(A, &stencil, &msm));
  if (stencil) PetscCall(MatStencilGPUGetAIJ(A, ic ? "PETSc's ICC with a shift" : "MatSolverType gilu's ILU with a shift", &B));
  else {
    PetscCall(MatGetFactorAvailable(A, solver, ilu->ftype, &avail));
    if (avail) {
      PetscCall(PetscObjectReference((PetscObject)A));
      B = A;
    } else PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
  }
  if (!ilu->shifted) {
    IS perm;

    PetscCall(MatGetFactor(B, solver, ilu->ftype, &ilu->shifted));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, B->rmap->n, 0, 1, &perm));
    if (ic) PetscCall(MatICCFactorSymbolic(ilu->shifted, B, perm, &ilu->info));
    else PetscCall(MatILUFactorSymbolic(ilu->shifted, B, perm, perm, &ilu->info));
    PetscCall(ISDestroy(&perm));
  }
  if (ic) PetscCall(MatCholeskyFactorNumeric(ilu->shifted, B, info));
  else PetscCall(MatLUFactorNumeric(ilu->shifted, B, info));
  if (!stencil) PetscCall(MatDestroy(&B));              /* (the stencil matrix keeps its AIJ image) */
  PetscCall(GILUMatFactorSetDelegate(F, ilu->shifted)); /* its solves and its factor error */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ICC with PCICC's default -pc_factor_shift_type positive_definite: the structured-grid IC has no shift, so as long as
  PETSc's ICC would not shift (one unknown per point: no pivot at most the zero pivot tolerance times the sum of its row's
  |U| entries, PETSc's test; DoF blocks: every pivot block positive definite) its factors are PETSc's; else PETSc's shifted
  ICC of the matrix is computed and its solves used (said once with -info and in the view), so PCICC behaves as on
  MATAIJ. On several processes (the global factors) there is no sequential ICC to hand over to: the factorization fails.
*/
static PetscErrorCode StructILUFactorShiftPositiveDefinite(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  const PetscInt d   = ilu->sm.grid.dof;
  PetscInt       bad = -1;
  PetscMPIInt    size;

  PetscFunctionBegin;
  ilu->badrow = -1;
  if (ilu->ftype != MAT_FACTOR_ICC || ilu->info.shifttype != (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE || ilu->empty || ilu->fallback) {
    if (ilu->shifted) PetscCall(StructILUFactorSetSolveOps(F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1 && ilu->zerorow >= 0) PetscFunctionReturn(PETSC_SUCCESS); /* the global factors failed (the factor error says where) */
  if (ilu->zerorow >= 0) bad = ilu->zerorow;                             /* a pivot at most the zero pivot tolerance: PETSc's ICC would shift */
  else if (d == 1) { /* PETSc's test of a scalar ICC pivot: pivot <= zeropivot * sum_j>k |U(k,j)| (U unscaled, as stored) */ const size_t N  = (size_t)ilu->sm.npoints;
    const PetscInt                                                                                                                        nu = ilu->sm.stencil.ns - ilu->sm.stencil.nlower - 1;

    for (PetscInt p = 0; p < ilu->sm.npoints && bad < 0; p++) {
      PetscReal rs = 0;

      for (PetscInt s = 0; s < nu; s++) rs += ilu->factors.single ? PetscAbsReal((PetscReal)((const float *)ilu->factors.uval)[s * N + p]) : PetscAbsScalar(((const PetscScalar *)ilu->factors.uval)[s * N + p]);
      if (PetscRealPart(1.0 / ilu->dinv[p]) <= info->zeropivot * rs) bad = p;
    }
  } else {
    for (PetscInt p = 0; p < ilu->sm.npoints && bad < 0; p++)
      if (!BlockPositiveDefinite(ilu->dinv + (size_t)p * ilu->sm.bs2, d)) bad = p * d; /* the inverse of a positive definite block is positive definite */
  }
  if (size > 1) { /* the pipeline's factors: a failure on any process is one of all of them */
    PetscInt gbad;

    PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (gbad >= 0) {
      PetscCheck(!A->erroriffailure, PetscObjectComm((PetscObject)A), PETSC_ERR_MAT_CH_ZRPVT, "The structured-grid IC across processes has a pivot block that is not positive definite and no positive-definite shift: use -%spc_factor_shift_type none (or ILU)", A->factorprefix ? A->factorprefix : "");
      PetscCall(PetscInfo(A, "A pivot block of the structured-grid IC is not positive definite (local point row %" PetscInt_FMT ")\n", bad));
      F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
      F->factorerror_zeropivot_row   = PetscMax(bad, 0);
      F->factorerror_zeropivot_value = 0;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (bad < 0) {
    if (ilu->shifted) PetscCall(StructILUFactorSetSolveOps(F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ilu->badrow = bad;
  if (!ilu->shifted)
    PetscCall(PetscInfo(A, "MatSolverType structilu: the structured-grid IC has a pivot block that is not positive definite (local row %" PetscInt_FMT "): -%spc_factor_shift_type positive_definite, so PETSc's shifted ICC is used\n", bad, GILUPrefix(F)));
  PetscCall(StructILUFactorHandTo(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorNumeric_StructILU(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (ilu->handover) { /* a shift StructILU has none of, or PETSc's block ICC(k): the whole factorization is another solver type's */
    PetscCall(StructILUFactorHandTo(F, A, info));
    F->assembled = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ilu->A = A;                   /* what the setup reads, during this call only */
  PetscCall(StructILUSetUp(F)); /* a pattern already analyzed is kept (the factorization runs again) */
  {
    MatInfo ainfo;

    PetscCall(MatGetInfo(ilu->image ? ilu->image : A, MAT_LOCAL, &ainfo)); /* (an SBAIJ's: the whole matrix's) */
    ilu->anz = ainfo.nz_used;
  }
  F->factorerrortype             = MAT_FACTOR_NOERROR;
  F->factorerror_zeropivot_row   = 0;
  F->factorerror_zeropivot_value = 0;
  if (ilu->zerorow >= 0) {
    F->factorerrortype           = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_row = ilu->zerorow;
  } else if (ilu->rangerow >= 0) F->factorerrortype = MAT_FACTOR_OTHER;
  PetscCall(StructILUFactorShiftPositiveDefinite(F, A, info));
  ilu->A       = NULL;
  F->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The solves. MatSolve() and its kin apply no failed factorization (they return Inf, which the Krylov method sees); with
  PETSc's shifted ICC in charge (StructILUFactorShiftPositiveDefinite()) its solves serve instead (GILUMatFactorSetDelegate()).
  The symbolic factorization sets them, but the factors come with the numeric one: a solve between the two is an error (the
  factors it would read do not exist yet), as PETSc's factors have no solve before their numeric factorization.
*/
static PetscErrorCode StructILUFactorCheckNumeric(Mat F, const char call[])
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  PetscCheck(ilu->analyzed || ilu->empty, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONGSTATE, "%s() of a factor of MatSolverType structilu needs its numeric factorization first (MatLUFactorNumeric() or MatCholeskyFactorNumeric() after the symbolic one)", call);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorCheckNumeric(F, "MatSolve"));
  PetscCall(StructILUApply(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorCheckNumeric(F, "MatSolveTranspose"));
  PetscCall(StructILUApplyTranspose(F, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_StructILU(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorCheckNumeric(F, "MatMatSolve"));
  PetscCall(StructILUMatApply(F, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ICC's halves for -ksp_pc_side symmetric: PETSc's split, S^{-T} then S^{-1} (StructILUApplySymmetric()) */
static PetscErrorCode MatForwardSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorCheckNumeric(F, "MatForwardSolve"));
  PetscCall(StructILUApplySymmetric(F, PETSC_FALSE, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBackwardSolve_StructILU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorCheckNumeric(F, "MatBackwardSolve"));
  PetscCall(StructILUApplySymmetric(F, PETSC_TRUE, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's own solves (again, after PETSc's shifted ICC served) */
static PetscErrorCode StructILUFactorSetSolveOps(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&ilu->shifted));
  PetscCall(GILUMatFactorSetDelegate(F, NULL));
  F->ops->solve             = MatSolve_StructILU;
  F->ops->solvetranspose    = MatSolveTranspose_StructILU;
  F->ops->matsolve          = MatMatSolve_StructILU;
  F->ops->forwardsolve      = ilu->ftype == MAT_FACTOR_ICC ? MatForwardSolve_StructILU : NULL;
  F->ops->backwardsolve     = ilu->ftype == MAT_FACTOR_ICC ? MatBackwardSolve_StructILU : NULL;
  F->ops->solveadd          = NULL;
  F->ops->matsolvetranspose = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PCSTRUCTILU's settings for the factor it drives (its options; the PC's DM, where the grid is looked for first). What the
  analysis depends on, when changed, makes the next factorization analyze the pattern again; what the device schedule
  depends on (mapping, tile points, pipeline stages, no waiting) drops the schedule, so that setup builds it again.
*/
PetscErrorCode StructILUFactorSetSettings(Mat F, const StructILUSettings *opt, DM dm)
{
  Mat_StructILU           *ilu  = (Mat_StructILU *)F->data;
  const StructILUSettings *o    = &ilu->opt;
  PetscBool                grid = (PetscBool)(o->griddim != opt->griddim || o->grid[0] != opt->grid[0] || o->grid[1] != opt->grid[1] || o->grid[2] != opt->grid[2]);

  PetscFunctionBegin;
  if (grid || o->dof != opt->dof || o->levels != opt->levels || o->type != opt->type || o->precision != opt->precision || o->distributed != opt->distributed || o->disttile != opt->disttile) PetscCall(StructILUReset(F));
  if (ilu->dev && (o->mapping != opt->mapping || o->tilepoints != opt->tilepoints || o->pipeline != opt->pipeline || o->nowait != opt->nowait)) PetscCall(ilu->devops->destroy(&ilu->dev));
  ilu->opt             = *opt;
  ilu->sm.nthreads     = opt->threads; /* the schedule follows at the next factorization or solve */
  ilu->sm.scheduletype = (GILUScheduleType)opt->schedule;
  if (dm) PetscCall(PetscObjectReference((PetscObject)dm));
  PetscCall(DMDestroy(&ilu->dm));
  ilu->dm = dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the -pc_structilu_ settings that a factor honours (StructILUSettingsSetFromOptions(): read as by the PC) */
typedef struct {
  Mat                F;
  StructILUSettings *opt;
} FactorOptionsCtx;

static PetscErrorCode FactorReadOptions(GILUOptionItems PetscOptionsObject, void *ctx)
{
  FactorOptionsCtx *c = (FactorOptionsCtx *)ctx;

  PetscFunctionBegin;
  PetscCall(StructILUSettingsSetFromOptions((PetscObject)c->F, PetscOptionsObject, c->opt, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The symbolic factorizations: the pattern is analyzed at the next numeric one (which analyzes again whenever the local block's
  pattern changed). Under PCILU/PCICC the factor options StructILU cannot honour are errors that name the option, the levels,
  type and zero pivot come from the factorization, the rest of the settings from the -pc_structilu_ options under the PC's prefix.
*/
static PetscErrorCode StructILUFactorSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_StructILU  *ilu = (Mat_StructILU *)F->data;
  const char     *pre = GILUPrefix(F);
  const PetscBool ic  = (PetscBool)(ilu->ftype == MAT_FACTOR_ICC);
  PetscBool       rid = PETSC_TRUE, cid = PETSC_TRUE;

  PetscFunctionBegin;
  if (row) PetscCall(ISIdentity(row, &rid));
  if (col) PetscCall(ISIdentity(col, &cid));
  PetscCheck(rid && cid, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu factors in the natural ordering of the grid only: use -%spc_factor_mat_ordering_type natural", pre);
  PetscCheck(info->levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be non-negative, not %g (-%spc_factor_levels)", (double)info->levels, pre);
  PetscCheck(info->levels == (PetscReal)(PetscInt)info->levels, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be an integer, not %g (-%spc_factor_levels)", (double)info->levels, pre);
  if (ilu->asfactor) {
    const char *const own[] = {"pc_structilu_levels", "pc_structilu_type", "pc_structilu_zeropivot", "pc_structilu_eisenstat"};
    const char *const use[] = {"use -%spc_factor_levels", "use -%spc_type ilu or icc", "use -%spc_factor_zeropivot", "the Eisenstat trick is -%spc_type structilu's"};
    char              name[256], hint[256];
    PetscBool         set;
    PetscMPIInt       size;

    /* a shift StructILU cannot do (ICC's positive-definite one is handed over only where a pivot block needs it) */
    ilu->handover = (PetscBool)(info->shifttype == (PetscReal)MAT_SHIFT_NONZERO || (!ic && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE));
    if (ilu->handover)
      PetscCall(PetscSNPrintf(ilu->handwhy, sizeof(ilu->handwhy), "shift type %s (-pc_factor_shift_type): StructILU has no diagonal shift, so the factorization is %s with that shift", MatFactorShiftTypes[(PetscInt)info->shifttype], ic ? "PETSc's ICC" : "MatSolverType gilu's ILU"));
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    if (!ilu->handover && ic && info->levels > 0 && size == 1) {
      /* PETSc's ICC(k) of a block matrix (BAIJ, SBAIJ) has a fill of its own, not ILU(k)'s of the blocks, which is StructILU's
         (and what PETSc's ICC(k) of the same matrix as AIJ gives): PCICC gets PETSc's factorization */
      PetscBool blocked;
      PetscInt  bs;

      PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &blocked, MATSEQBAIJ, MATSEQSBAIJ, ""));
      PetscCall(MatGetBlockSize(A, &bs));
      if (blocked && bs > 1) {
        ilu->handover = PETSC_TRUE;
        PetscCall(PetscSNPrintf(ilu->handwhy, sizeof(ilu->handwhy), "ICC(%" PetscInt_FMT ") of a block matrix (block size %" PetscInt_FMT "): PETSc's block ICC(k) has a fill of its own, not ILU(k)'s of the blocks, so the factorization is PETSc's ICC",
                                (PetscInt)info->levels, bs));
      }
    }
    PetscCheck(!ilu->handover || size == 1, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MatSolverType structilu has no diagonal shift, and across processes no factorization to hand one to: use -%spc_factor_shift_type none, or -%spc_type bjacobi (each process's block then takes the shift)", pre, pre);
    if (ilu->handover) PetscCall(PetscInfo(A, "MatSolverType structilu: %s\n", ilu->handwhy));
    PetscCheck(info->diagonal_fill == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSolverType structilu keeps the pattern of the grid's stencil: leave -%spc_factor_diagonal_fill out", pre);
    for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", own[k]));
      PetscCall(PetscOptionsHasName(((PetscObject)A)->options, pre, name, &set));
      PetscCall(PetscSNPrintf(hint, sizeof(hint), use[k], pre));
      PetscCheck(!set, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-%s%s is an option of -%spc_type structilu; with -%spc_factor_mat_solver_type structilu the factorization's options decide: %s", pre, own[k], pre, pre, hint);
    }
    {
      StructILUSettings opt = ilu->opt;
      FactorOptionsCtx  ctx = {F, &opt};

      /* its own -help section, under the PC's prefix */
      PetscCall(GILUOptionsBlock(PetscObjectComm((PetscObject)F), NULL, pre, "MatSolverType structilu options", "PC", FactorReadOptions, &ctx));
      opt.distributed = (PetscBool)(size > 1); /* the global factors, as PETSc's ILU would be on one process */
      opt.type        = ic ? PC_STRUCTILU_IC : PC_STRUCTILU_ILU;
      opt.levels      = (PetscInt)info->levels;
      opt.zeropivot   = info->zeropivot;
      /* the positive-definite check reads the inverted pivot blocks that the host factorization keeps */
      if (ic && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE) opt.cudafactor = PETSC_FALSE;
      PetscCall(StructILUFactorSetSettings(F, &opt, NULL));
    }
  }
  ilu->info = *info;
  PetscCall(StructILUReset(F));       /* a new pattern: analyzed at the numeric factorization */
  PetscCall(MatDestroy(&ilu->image)); /* (an SBAIJ's image: of this matrix) */
  F->ops->lufactornumeric       = MatFactorNumeric_StructILU;
  F->ops->choleskyfactornumeric = MatFactorNumeric_StructILU;
  PetscCall(StructILUFactorSetSolveOps(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_StructILU(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(StructILUFactorSymbolic(F, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_StructILU(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (ilu->shifted) PetscCall(MatGetInfo(ilu->shifted, flag, info));
  else if (ilu->fallback) PetscCall(MatGetInfo(ilu->fallback, flag, info));
  else {
    const PetscLogDouble nz = (PetscLogDouble)ilu->factors.noffsets * ilu->sm.npoints * ilu->sm.bs2 + (PetscLogDouble)ilu->sm.npoints * ilu->sm.bs2;

    PetscCall(PetscMemzero(info, sizeof(*info)));
    info->block_size        = ilu->sm.grid.dof ? ilu->sm.grid.dof : 1;
    info->nz_allocated      = nz;
    info->nz_used           = nz;
    info->memory            = (PetscLogDouble)ilu->factors.bytes;
    info->assemblies        = F->num_ass;
    info->fill_ratio_given  = ilu->info.fill;
    info->fill_ratio_needed = ilu->anz > 0 ? nz / ilu->anz : 0; /* what the factors store over the matrix's nonzeros */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The pivots, as PETSc's ILU and ICC factors give them (their inverted diagonal inverted again), from the host factors: 1 / dinv
  of each row at DoF 1; at DoF > 1 those of PETSc's point factors of a matrix without blocks (AIJ, stencilgpu). A factored BAIJ
  has no diagonal in PETSc, and neither has this factor of a BAIJ or SBAIJ matrix.
*/
static PetscErrorCode MatGetDiagonal_StructILU(Mat F, Vec d)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  const char    *pre = GILUPrefix(F);
  PetscScalar   *x;

  PetscFunctionBegin;
  if (ilu->shifted) {
    PetscCall(MatGetDiagonal(ilu->shifted, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ilu->analyzed, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONGSTATE, "MatGetDiagonal() of a factor of MatSolverType structilu needs its numeric factorization first");
  if (ilu->fallback) {
    PetscCall(MatGetDiagonal(ilu->fallback, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ilu->sm.grid.dof > 1) {
    PetscBool block;

    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)F, &block, MATSEQBAIJ, MATSEQSBAIJ, ""));
    PetscCheck(!block, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetDiagonal() of a factor gives its pivots, which a factor of a matrix with blocks of %" PetscInt_FMT " has not (as PETSc's factored BAIJ): use -dm_mat_type aij (or -mat_type aij)",
               ilu->sm.grid.dof);
  }
  PetscCheck(!ilu->source->hostonly, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "MatGetDiagonal() of the global structured-grid factors across processes is not provided: use -%spc_type bjacobi with -sub_pc_factor_mat_solver_type structilu", pre);
  PetscCheck(!ilu->devfactored, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetDiagonal() reads the host factors, and these were computed on the device only: use -%spc_structilu_cuda_factor 0 (factored on the host) or -%spc_structilu_backend host", pre, pre);
  PetscCheck(ilu->zerorow < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "MatGetDiagonal() of a failed factorization (zero pivot in %s row %" PetscInt_FMT ")", ilu->source->rows, ilu->zerorow);
  PetscCall(VecGetArrayWrite(d, &x));
  if (ilu->sm.grid.dof == 1)
    for (PetscInt i = 0; i < ilu->sm.npoints; i++) x[i] = 1.0 / ilu->dinv[i];
  else { /* a matrix without blocks (AIJ, stencilgpu): PETSc's point ILU(k)/ICC(k) of it is the block one (dense blocks) followed, in
            each pivot block, by elimination without pivoting, whose pivots are its diagonal: those of the LU of the block */
    const PetscInt D = ilu->sm.grid.dof;
    PetscScalar    M[GILU_MAX_DOF * GILU_MAX_DOF];

    for (PetscInt i = 0; i < ilu->sm.npoints; i++) {
      PetscCheck(GILUBlockInvert(D, ilu->dinv + i * D * D, M, 0.0), PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "MatGetDiagonal(): the stored inverse of the pivot block of local row %" PetscInt_FMT " is singular", i * D);
      for (PetscInt c = 0; c < D; c++) {
        /* the block's own factorization pivots; the point factor does not, and has a zero pivot where this LU meets one */
        PetscCheck(M[c * D + c] != (PetscScalar)0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "MatGetDiagonal(): PETSc's point factor of this matrix has a zero pivot in local row %" PetscInt_FMT ", so there is no point pivot to give (StructILU inverts its pivot blocks with pivoting: its factors exist and solve)", i * D + c);
        x[i * D + c] = M[c * D + c];
        for (PetscInt r = c + 1; r < D; r++) {
          const PetscScalar l = M[r * D + c] / M[c * D + c];

          for (PetscInt t = c + 1; t < D; t++) M[r * D + t] -= l * M[c * D + t];
        }
      }
    }
  }
  PetscCall(VecRestoreArrayWrite(d, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_StructILU(Mat F, PetscViewer viewer)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscBool      ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "StructILU factorization (MatSolverType structilu, the factors of PCSTRUCTILU):\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ilu->handover) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", ilu->handwhy));
    if (ilu->shifted) {
      PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(ilu->shifted, viewer));
      PetscCall(PetscViewerPopFormat(viewer));
    }
  } else PetscCall(StructILUView(F, viewer));
  if (ilu->shifted && !ilu->handover) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "the pivot block of local row %" PetscInt_FMT " was not positive definite: PETSc's ICC with its positive-definite shift (-pc_factor_shift_type positive_definite) is used instead\n", ilu->badrow));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(ilu->shifted, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_StructILU(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  PetscCall(StructILUReset(F));
  PetscCall(MatDestroy(&ilu->image));
  PetscCall(MatDestroy(&ilu->shifted));
  PetscCall(DMDestroy(&ilu->dm));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The factor of A (ILU or ICC), with the default settings: asfactor for MatGetFactor() (PCILU/PCICC), else PCSTRUCTILU's,
  which then gives it its settings (StructILUFactorSetSettings()) and its options prefix
*/
PetscErrorCode StructILUCreateFactor(Mat A, MatFactorType ftype, PetscBool asfactor, Mat *F)
{
  Mat            B;
  Mat_StructILU *ilu;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ilu));
  PetscCall(StructILUSettingsDefault(&ilu->opt));
  ilu->ftype    = ftype;
  ilu->asfactor = asfactor;
  ilu->badrow   = -1;
  ilu->zerorow  = -1;
  ilu->rangerow = -1;
  ilu->symbad   = -1;
  PetscCall(MatFactorInfoInitialize(&ilu->info));
  PetscCall(GILUMatCreateFactor(A, ftype, MATSOLVERSTRUCTILU, ((PetscObject)A)->type_name, ilu, &B));
  if (asfactor) PetscCall(PetscObjectSetOptionsPrefix((PetscObject)B, A->factorprefix)); /* the PC's: what its options and messages name */
  B->ops->ilufactorsymbolic = StructILUFactorSymbolic;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_StructILU;
  B->ops->getinfo           = MatGetInfo_StructILU;
  B->ops->getdiagonal       = MatGetDiagonal_StructILU;
  B->ops->view              = MatView_StructILU;
  B->ops->destroy           = MatDestroy_StructILU;
  *F                        = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSOLVERSTRUCTILU - "structilu": the structured-grid ILU(k) and IC(k) of `PCSTRUCTILU` as the ILU and ICC
   factorizations of `MatGetFactor()`, for `MATSEQAIJ`, `MATSEQBAIJ`, `MATSEQAIJCUSPARSE`, `MATSEQSTENCILGPU` and, with
   the global factors across processes, `MATMPIAIJ`, `MATMPIBAIJ` and `MATMPIAIJCUSPARSE`; ICC also for `MATSEQSBAIJ`

   Options Database Keys:
+  -pc_factor_mat_solver_type structilu - choose it for `PCILU` or `PCICC` (the default, and only, ILU of `MATSEQSTENCILGPU`)
.  -pc_factor_levels k - levels of fill, ILU(k) or IC(k)
.  -pc_factor_zeropivot tol - pivots at most this large are zero pivots
-  -pc_structilu_xxx - the options of `PCSTRUCTILU` that choose how it runs (threads, back-end, precision, device mapping)
   under the same prefix; its levels, type, zero pivot and Eisenstat options are those of the factorization instead

   Notes:
   The factor is StructILU's object: it owns the grid, the stencil matrix, the factors and the back-end, and `PCSTRUCTILU`
   is a thin preconditioner over it (its options, the Eisenstat trick), as `PCILU` is over `MatGetFactor()`.
   With `PCILU` or `PCICC` the grid is found as `PCSTRUCTILU` finds it: the matrix's `DMDA` (a matrix from
   `DMCreateMatrix()`), `-pc_structilu_grid`, or its pattern; a (sub)matrix that is no structured grid is factored
   as a general sparse matrix by `MATSOLVERGILU` (ICC: by PETSc's), which `-ksp_view` says. So `-pc_type bjacobi
   -sub_pc_type ilu -sub_pc_factor_mat_solver_type structilu`, `PCASM` and `PCMG` smoothers get it too. On several
   processes the factors are the global ILU(k)/IC(k) of the `DMDA`'s grid (`-pc_structilu_distributed`): `PCILU`
   then iterates as on one process.

   Natural ordering only (`-pc_factor_mat_ordering_type natural`, `PCILU`'s default). StructILU has no diagonal shift:
   none and inblocks are accepted, nonzero (and for ILU positive_definite) hands the whole factorization to `MATSOLVERGILU`'s
   ILU (ICC: PETSc's) with that shift, which `-ksp_view` says (one process only); for ICC, `PCICC`'s default `-pc_factor_shift_type positive_definite` is honoured: as long as
   PETSc's ICC would not shift (its test with one unknown per point; every pivot block positive definite with DoF blocks) the
   factors are PETSc's; where it would, PETSc's shifted ICC of the matrix is computed and used (`-info` and `-ksp_view` say so; on several processes the factorization
   fails instead). That check needs the host factorization, which then runs (the solves stay on the device).

   ICC reads the upper triangle of the matrix, as PETSc's ICC. A `MATSEQSBAIJ` matrix (ICC only, as in PETSc) is read
   through an AIJ (block size 1) or BAIJ image of the whole matrix, made at the symbolic factorization and refreshed at
   each numeric one. A grid with more than 8 unknowns per point (a `DMDA` with dof > 8, a BAIJ block size above 8) is
   beyond the structured-grid kernels: it is factored as a block that is no grid is (`-ksp_view` says why). A zero pivot sets the factor error, so
   `KSPSolve()` returns `KSP_DIVERGED_PC_FAILED`. `MatSolveTranspose()`, `MatMatSolve()` and, for ICC,
   `MatForwardSolve()`/`MatBackwardSolve()` (`-ksp_pc_side symmetric`) are provided (on the host factors), and
   `MatGetDiagonal()` gives the pivots as PETSc's factors do (host factors; at DoF > 1 of an AIJ or stencilgpu matrix, those of
   PETSc's point factors; BAIJ factors have none, as PETSc's).

   Level: intermediate

   References:
.  * - Hao Luo, Qianchao Zhu, Xiaochen Hao, Chunxi Lei, Chengdi Ma, Chenchen Zhang, Yun Liang and Chao Yang, StructILU:
       Dependency-Preserving Incomplete LU with Hierarchical Parallelism for Structured Grid PDEs on GPUs, Proceedings of
       the 2025 International Conference on Supercomputing (ICS '25), ACM, 2025, doi:10.1145/3721145.3725745 (the StructILU paper)

.seealso: `PCSTRUCTILU`, `MATSTENCILGPU`, `PCILU`, `PCICC`, `MatGetFactor()`, `MATSOLVERGILU`
M*/
PETSC_INTERN PetscErrorCode MatGetFactor_StructILU(Mat A, MatFactorType ftype, Mat *F)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, comm, PETSC_ERR_SUP, "MatSolverType structilu provides ILU and ICC factorizations only");
  {
    PetscBool sbaij;

    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &sbaij));
    PetscCheck(!sbaij || ftype == MAT_FACTOR_ICC, comm, PETSC_ERR_SUP, "A MATSEQSBAIJ matrix has ICC and Cholesky factorizations only (as in PETSc): use -%spc_type icc", A->factorprefix ? A->factorprefix : "");
  }
  { /* an ordering asked for on the command line: said here, before PCFactor computes it (MatGetOrdering() of a non-natural ordering needs the AIJ structure) */
    char      ordering[256];
    PetscBool set, natural;

    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, A->factorprefix, "-pc_factor_mat_ordering_type", ordering, sizeof(ordering), &set));
    if (set) {
      PetscBool stencilgpu;

      PetscCall(PetscStrcmp(ordering, MATORDERINGNATURAL, &natural));
      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQSTENCILGPU, &stencilgpu)); /* whose ILU/ICC is structilu's, under MatSolverType petsc too */
      PetscCheck(natural, comm, PETSC_ERR_SUP, "MatSolverType structilu factors in the natural ordering of the grid only, not %s: use -%spc_factor_mat_ordering_type natural%s", ordering, A->factorprefix ? A->factorprefix : "", stencilgpu ? " (a MATSTENCILGPU matrix's ILU and ICC are structilu's, also as MatSolverType petsc: for PETSc's own with other orderings, assemble the matrix as AIJ, e.g. -dm_mat_type aij)" : "");
    }
  }
  PetscCall(StructILUCreateFactor(A, ftype, PETSC_TRUE, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
