/*
   PCSTRUCTILU: dependency-preserving ILU(k) for structured-grid stencil matrices.

   The PC orchestrates: it finds the grid (DMDA, options or the pattern), extracts the
   stencil matrix of the local diagonal block (for k > 0 on the ILU(k) fill stencil of its
   pattern, src/mat/stencil/fill.c), factors it and applies the factors with the
   back-end's kernels (the host kernels in src/mat/stencil/ilu.c).

   This file: the options, the view, the setters and getters, create and destroy; setup and
   apply are in structilu-setup.c, the context in structilu.h, the public API in structilu-api.c.

   A local block that is not a structured grid (no DMDA box matches it and its pattern is not
   a stencil's in natural ordering: an ASM block with overlap, a block of a process grid that
   holds partial lines, a DoF block coupled through part of its entries) is factored as a
   general sparse matrix instead, in natural ordering, by MatSolverType gilu (ILU(k)) or petsc
   (ICC(k), from the upper triangle): the factors of PETSc's ILU(k) (ICC(k)) of the block, said
   in -ksp_view and -info.
*/
#include <stdarg.h>
#include "structilu.h"

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

/*
  The back-end that ran, and for cuda/cudaemu the schedule and the performance model of one apply:
    t = 2 launches + (dependent steps of the forward and the backward sweep) x latency + bytes moved / bandwidth
  + the copies of b and x over the host-device link (a host-only PETSc)
  The dependent steps of a sweep are its levels; with the lines mapping and a P-stage intra-row pipeline the first
  block starts P - 1 steps early (its earlier stages work ahead of the levels), so P - 1 more.
*/
static PetscErrorCode PCView_StructILU_Backend(PC pc, PetscViewer viewer)
{
  PC_StructILU              *ilu = (PC_StructILU *)pc->data;
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
  if (ilu->matapplied && ilu->dev) PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): one device solve per column, in turn\n"));
  if (!ilu->dev) PetscFunctionReturn(PETSC_SUCCESS);
  StructILUModelGPU(ilu->modelgpu, &bw, &lat, &pcie);
  bw        = ilu->modelbw > 0 ? ilu->modelbw : bw;
  lat       = ilu->modellat > 0 ? ilu->modellat : lat;
  pcie      = ilu->modelpcie > 0 ? ilu->modelpcie : pcie;
  bytesmat  = (double)ilu->factors.bytes;
  bytesvec  = 8.0 * N * d * (ilu->type == PC_STRUCTILU_IC ? 7.0 : 5.0);      /* b; x written, read, written; neighbour reads once; IC: z written, read */
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
  if (ilu->devfactored && ilu->factorpipe)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, two-substage pipeline (the StructILU paper, Section 4.2.2): at each level step a block runs substage 2 of its rows of that level beside substage 1 of its rows of the next level (2 thread groups of DoF threads per line, one barrier between the substages and one for the diagonal inversions); substage 1: %" PetscInt_FMT " of the %" PetscInt_FMT " L blocks and %" PetscInt_FMT " of the %" PetscInt_FMT " updates of a row (intra-row levels 0 and 1, rows at least two levels back)%s\n", di->nearly, di->nlowerL, di->npairs1, di->npairs,
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else if (ilu->devfactored)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: in place on the device with the schedule of the solves, level-ordered layout, %s%s\n", ilu->usedmma ? "one warp per grid point, block products on the FP64 tensor cores (m8n8k4 MMA), warp-shuffle Gauss-Jordan inversion of the diagonal blocks" : "DoF threads per grid point (a row of the block row each)",
                                     ilu->factors.single ? "; single-precision copy of the factors for the solves" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  device factorization: none (-%spc_structilu_cuda_factor 0): on the host, factors copied to the device in the level-ordered layout at each setup\n", GILUPrefix(pc)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  performance model (%s: %.0f GB/s, %.2f us per dependent step, %.0f GB/s host link, 5 us per launch): %" PetscInt_FMT " dependent steps per sweep, per apply %.4g MB of factors + %.4g MB of vectors on the device, %.4g MB copied; predicted %.4g us on the device + %.4g us of copies\n",
                                   PCStructILUModelGPUs[ilu->modelgpu], bw, lat, pcie, steps, bytesmat / 1e6, bytesvec / 1e6, bytescopy / 1e6, tdev, tcopy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_StructILU(PC pc, PetscViewer viewer)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  const GILUStencil *st  = &ilu->sm.stencil;
  const GILUGrid    *g   = &ilu->sm.grid;
  PetscBool          ascii;
  PetscMPIInt        size;
  char               name[64], line[2048];
  const char        *axis[3] = {"i", "j", "k"};

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (ilu->type == PC_STRUCTILU_IC)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid IC(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT ") of a symmetric matrix; upper triangle stored)\n", ilu->levels, ilu->levels));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  structured-grid ILU(%" PetscInt_FMT "), natural ordering (the factors of sequential ILU(%" PetscInt_FMT "))\n", ilu->levels, ilu->levels));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  zero pivot tolerance %g\n", (double)ilu->zeropivot));
  if (ilu->empty) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  local block with 0 rows: empty factor\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ilu->analyzed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (ilu->pipe) PetscCall(PCViewDistributed_StructILU(pc, viewer));
  else if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  block Jacobi across %d MPI processes: each factors its local block (its DMDA box); process 0 shown (-%spc_structilu_distributed: the global factors instead)\n", size, GILUPrefix(pc)));
  if (ilu->fallback) {
    MatSolverType solver;

    PetscCall(MatFactorGetSolverType(ilu->fallback, &solver));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  the local block is not a structured grid (%s): factored as a general sparse matrix, %s(%" PetscInt_FMT ") in natural ordering by MatSolverType %s (the factors of PETSc's %s(%" PetscInt_FMT ") of the block), on the host\n",
                                     ilu->fallbackwhy, ilu->type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->levels, solver, ilu->type == PC_STRUCTILU_IC ? "ICC" : "ILU", ilu->levels));
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
  PetscCall(PetscViewerASCIIPrintf(viewer, "  hyperplane levels: %" PetscInt_FMT " (level = %s), %.1f grid points per level on average\n", ilu->nlevels, line, (double)ilu->sm.npoints / (double)ilu->nlevels));
  if (ilu->levels > 0) {
    PetscInt64 npos = 0; /* in-grid positions of the fill stencil */

    for (PetscInt s = 0; s < st->ns; s++) {
      PetscInt64 cnt = 1;

      for (PetscInt d = 0; d < 3; d++) cnt *= PetscMax(g->n[d] - PetscAbsInt(st->off[s][d]), 0);
      npos += cnt;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill: the ILU(%" PetscInt_FMT ") fill stencil of the matrix's %s is %s (%" PetscInt_FMT " offsets)\n", ilu->levels, ilu->patname, name, st->ns));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fill positions: %" PetscInt64_FMT " in-grid positions of the fill stencil, %" PetscInt64_FMT " kept (level of fill at most %" PetscInt_FMT "), %" PetscInt_FMT " dropped (kept at zero)\n", npos,
                                     npos - ilu->sm.nmissing, ilu->levels, ilu->sm.nmissing));
  } else if (ilu->sm.nmissing) PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: %" PetscInt_FMT " in-grid stencil positions absent from the matrix, kept at zero (as ILU(0) on the matrix pattern does)\n", ilu->sm.nmissing));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  pattern: the full stencil at every grid point\n"));
  if (ilu->factors.dilu)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in double precision, DILU: ILU(0) of this stencil changes only the diagonal, so only the inverted modified diagonal blocks are stored (%" PetscInt_FMT " x %" PetscInt_FMT "); the solves read the matrix's other %" PetscInt_FMT " offsets in place (L = A_L D^{-1}, U = D + A_U)\n",
                                     (double)ilu->factors.bytes / 1048576.0, g->dof, g->dof, st->ns - 1));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors: %.3g MiB in %s precision (blocks of %" PetscInt_FMT " of the %" PetscInt_FMT " offsets and the inverted diagonal blocks, %" PetscInt_FMT " x %" PetscInt_FMT " blocks, stencil-major, no column indices)\n",
                                     (double)ilu->factors.bytes / 1048576.0, ilu->precision == PC_STRUCTILU_PRECISION_SINGLE ? "single" : "double", ilu->factors.noffsets, st->ns, g->dof, g->dof));
  if (ilu->eisenstat)
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
  if (ilu->zerorow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  FAILED: zero pivot in %s row %" PetscInt_FMT "\n", ilu->pipe ? "the grid's (natural ordering)" : "local", ilu->zerorow));
  else if (ilu->rangerow >= 0)
    PetscCall(
      PetscViewerASCIIPrintf(viewer, "  FAILED: the single-precision factors of %s row %" PetscInt_FMT " have an entry beyond float's range: use -%spc_structilu_factor_precision double\n", ilu->pipe ? "the grid's (natural ordering)" : "local", ilu->rangerow, GILUPrefix(pc)));
  PetscCall(PCView_StructILU_Backend(pc, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_StructILU(PC pc, GILUOptionItems PetscOptionsObject)
{
  PC_StructILU        *ilu     = (PC_StructILU *)pc->data;
  PetscInt             grid[3] = {0, 0, 0}, ngrid = 3, dof, levels, threads;
  PetscReal            zeropivot;
  PetscBool            flg, bval;
  PCStructILUType      type;
  PCStructILUPrecision precision;
  PCStructILUSchedule  schedule;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Structured-grid ILU options");
  PetscCall(PetscOptionsIntArray("-pc_structilu_grid", "Local grid nx,ny[,nz] when there is no DMDA", "PCStructILUSetGrid", grid, &ngrid, &flg));
  if (flg) PetscCall(PCStructILUSetGrid(pc, ngrid, grid));
  PetscCall(PetscOptionsInt("-pc_structilu_dof", "Unknowns per grid point when there is no DMDA", "PCStructILUSetDof", ilu->dof, &dof, &flg));
  if (flg) PetscCall(PCStructILUSetDof(pc, dof));
  PetscCall(PetscOptionsEnum("-pc_structilu_type", "Incomplete factorization", "PCStructILUSetType", PCStructILUTypes, (PetscEnum)ilu->type, (PetscEnum *)&type, &flg));
  if (flg) PetscCall(PCStructILUSetType(pc, type));
  PetscCall(PetscOptionsInt("-pc_structilu_levels", "Levels of fill of the incomplete factorization, ILU(k)", "PCStructILUSetLevels", ilu->levels, &levels, &flg));
  if (flg) PetscCall(PCStructILUSetLevels(pc, levels));
  PetscCall(PetscOptionsEnum("-pc_structilu_factor_precision", "Precision of the stored factors", "PCStructILUSetFactorPrecision", PCStructILUPrecisions, (PetscEnum)ilu->precision, (PetscEnum *)&precision, &flg));
  if (flg) PetscCall(PCStructILUSetFactorPrecision(pc, precision));
  PetscCall(PetscOptionsInt("-pc_structilu_threads", "Host threads (0: OMP_NUM_THREADS if set, else the cores divided among the node's MPI processes; fewer for small grids)", "PCStructILUSetThreads", ilu->threads, &threads, &flg));
  if (flg) PetscCall(PCStructILUSetThreads(pc, threads));
  PetscCall(PetscOptionsBool("-pc_structilu_distributed", "On several processes: the global ILU(k) of natural ordering across them (a pipeline), not block Jacobi", "PCStructILUSetDistributed", ilu->distributed, &bval, &flg));
  if (flg) PetscCall(PCStructILUSetDistributed(pc, bval));
  PetscCall(PetscOptionsInt("-pc_structilu_distributed_tile", "Stages of the pipeline across processes: tiles of n grid lines along y (3D) or points along x (2D); 0: the model's choice, -1: natural order", "PCStructILUSetDistributedTile", ilu->disttile, &threads, &flg));
  if (flg) PetscCall(PCStructILUSetDistributedTile(pc, threads));
  PetscCall(PetscOptionsEnum("-pc_structilu_schedule", "How the host threads share the rows", "PCStructILUSetSchedule", PCStructILUSchedules, (PetscEnum)ilu->schedule, (PetscEnum *)&schedule, &flg));
  if (flg) PetscCall(PCStructILUSetSchedule(pc, schedule));
  PetscCall(PetscOptionsReal("-pc_structilu_zeropivot", "Pivots at most this large in absolute value are zero pivots", "PCStructILUSetZeroPivot", ilu->zeropivot, &zeropivot, &flg));
  if (flg) PetscCall(PCStructILUSetZeroPivot(pc, zeropivot));
  PetscCall(PetscOptionsBool("-pc_structilu_diagonal_storage", "Store only the modified diagonal (DILU) when ILU(0) of the stencil changes nothing else (always with the Eisenstat trick)", "PCStructILUSetDiagonalStorage", ilu->diagstorage, &bval, &flg));
  if (flg) PetscCall(PCStructILUSetDiagonalStorage(pc, bval));
  PetscCall(PetscOptionsBool("-pc_structilu_eisenstat", "The Krylov method runs on (D + L)^{-1} A (D + U)^{-1} (the Eisenstat trick, DILU factors)", "PCStructILUSetEisenstat", ilu->eisenstat, &bval, &flg));
  if (flg) PetscCall(PCStructILUSetEisenstat(pc, bval));
  /* back-end */
  {
    PetscGILUBackendType backend = ilu->backend;

    if (!ilu->backendset) PetscCall(PetscGILUGetBackend(&backend));
    PetscCall(PetscOptionsEnum("-pc_structilu_backend", "Where the solves run (default: -gilu_backend)", "PCStructILUSetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, &flg));
    if (flg) PetscCall(PCStructILUSetBackend(pc, backend));
    {
      PCStructILUCUDAMapping mapping = (PCStructILUCUDAMapping)ilu->mapping;
      PCStructILUModelGPU    gpu     = (PCStructILUModelGPU)ilu->modelgpu;
      PetscInt               n;
      PetscReal              bw = ilu->modelbw, lat = ilu->modellat, link = ilu->modelpcie;
      PetscBool              set[4];

      PetscCall(PetscOptionsEnum("-pc_structilu_cuda_mapping", "Grid-tier task mapping of the device kernels: tiles of one level, or lines along z^ of the transformed grid in 2D blocks", "PCStructILUSetCUDAMapping", PCStructILUCUDAMappings, (PetscEnum)mapping, (PetscEnum *)&mapping, &flg));
      if (flg) PetscCall(PCStructILUSetCUDAMapping(pc, mapping));
      PetscCall(PetscOptionsInt("-pc_structilu_cuda_tile_points", "Grid points per thread block of the device kernels (lines mapping: lines per block) (0: 128/dof)", "PCStructILUSetCUDATilePoints", ilu->tilepoints, &n, &flg));
      if (flg) PetscCall(PCStructILUSetCUDATilePoints(pc, n));
      PetscCall(PetscOptionsInt("-pc_structilu_cuda_pipeline", "Stages of the intra-row pipeline of the device solves (0: automatic, min(4, levels spanned by the stencil))", "PCStructILUSetCUDAPipeline", ilu->pipeline, &n, &flg));
      if (flg) PetscCall(PCStructILUSetCUDAPipeline(pc, n));
      PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor", "Factor on the device (else on the host, the factors copied to the device)", "PCStructILUSetCUDAFactor", ilu->cudafactor, &bval, &flg));
      if (flg) PetscCall(PCStructILUSetCUDAFactor(pc, bval));
      PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor_pipeline", "The two-substage pipelined device factorization (lines mapping; not with the tensor cores)", "PCStructILUSetCUDAFactorPipeline", ilu->factorpipe, &bval, &flg));
      if (flg) PetscCall(PCStructILUSetCUDAFactorPipeline(pc, bval));
      PetscCall(PetscOptionsBool("-pc_structilu_cuda_mma", "DoF >= 5: the block products of the device factorization on the FP64 tensor cores (m8n8k4 MMA)", "PCStructILUSetCUDAMMA", ilu->cudamma, &bval, &flg));
      if (flg) PetscCall(PCStructILUSetCUDAMMA(pc, bval));
      PetscCall(PetscOptionsBool("-pc_structilu_cuda_nowait", "Developer: leave out the block-to-block waiting of the device solves (wrong results; tests that the waiting matters)", "PCStructILUSetCUDANoWait", ilu->nowait, &bval, &flg));
      if (flg) PetscCall(PCStructILUSetCUDANoWait(pc, bval));
      PetscCall(PetscOptionsEnum("-pc_structilu_model_gpu", "GPU of the performance model printed by -ksp_view", "PCStructILUSetPerformanceModel", PCStructILUModelGPUs, (PetscEnum)gpu, (PetscEnum *)&gpu, &set[0]));
      PetscCall(PetscOptionsReal("-pc_structilu_model_bandwidth", "Memory bandwidth of the model in GB/s (0: the GPU's)", "PCStructILUSetPerformanceModel", bw, &bw, &set[1]));
      PetscCall(PetscOptionsReal("-pc_structilu_model_latency", "Latency of one dependent level in microseconds (0: the GPU's)", "PCStructILUSetPerformanceModel", lat, &lat, &set[2]));
      PetscCall(PetscOptionsReal("-pc_structilu_model_link", "Host-device bandwidth in GB/s (0: the GPU's)", "PCStructILUSetPerformanceModel", link, &link, &set[3]));
      if (set[0] || set[1] || set[2] || set[3]) PetscCall(PCStructILUSetPerformanceModel(pc, gpu, bw, lat, link));
    }
  }
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetGrid_StructILU(PC pc, PetscInt dim, const PetscInt n[])
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid takes 1 to 3 sizes nx,ny[,nz], not %" PetscInt_FMT, GILUPrefix(pc), dim);
  for (PetscInt d = 0; d < dim; d++) PetscCheck(n[d] >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid: the sizes must be positive, size %" PetscInt_FMT " is %" PetscInt_FMT, GILUPrefix(pc), d, n[d]);
  { /* the points must be countable in a PetscInt, as the grid's indices are */
    PetscInt  npts = 1;
    PetscBool over = PETSC_FALSE;
    char      str[96];

    for (PetscInt d = 0; d < dim; d++) {
      over = (PetscBool)(over || n[d] > PETSC_MAX_INT / npts);
      if (!over) npts *= n[d];
    }
    PetscCall(StructILUGridString(dim, n, str, sizeof(str)));
    PetscCheck(!over, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid %s: more grid points than a PetscInt counts (%" PetscInt_FMT "): give the local grid of the matrix", GILUPrefix(pc), str, (PetscInt)PETSC_MAX_INT);
  }
  ilu->griddim = dim;
  for (PetscInt d = 0; d < 3; d++) ilu->grid[d] = d < dim ? n[d] : 1;
  ilu->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetGrid_StructILU(PC pc, PetscInt *dim, PetscInt n[])
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->analyzed) {
    if (dim) *dim = ilu->sm.grid.dim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = ilu->sm.grid.n[d];
  } else {
    if (dim) *dim = ilu->griddim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = ilu->grid[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDof_StructILU(PC pc, PetscInt dof)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dof >= 1 && dof <= GILU_MAX_DOF, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_dof %" PetscInt_FMT ": must be in 1..%d", GILUPrefix(pc), dof, GILU_MAX_DOF);
  ilu->dof      = dof;
  ilu->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDof_StructILU(PC pc, PetscInt *dof)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  *dof = ilu->analyzed ? ilu->sm.grid.dof : ilu->dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetLevels_StructILU(PC pc, PetscInt levels)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_levels %" PetscInt_FMT ": must be nonnegative", GILUPrefix(pc), levels);
  if (levels != ilu->levels && pc->setupcalled) { /* a new fill pattern: redo the symbolic setup at the next PCSetUp(), as PCFactorSetLevels() does */
    PetscCall(PCReset_StructILU(pc));
    pc->setupcalled = 0;
  }
  ilu->levels = levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetLevels_StructILU(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  *levels = ((PC_StructILU *)pc->data)->levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetZeroPivot_StructILU(PC pc, PetscReal zeropivot)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(zeropivot >= 0 && zeropivot < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_zeropivot %g: must be finite and nonnegative", GILUPrefix(pc), (double)zeropivot);
  ilu->zeropivot = zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetZeroPivot_StructILU(PC pc, PetscReal *zeropivot)
{
  PetscFunctionBegin;
  *zeropivot = ((PC_StructILU *)pc->data)->zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetStencil_StructILU(PC pc, PetscInt *dim, PetscInt *ns, const PetscInt **offsets)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(ilu->analyzed, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() first: the stencil is found at setup");
  if (dim) *dim = ilu->sm.grid.dim;
  if (ns) *ns = ilu->sm.stencil.ns;
  if (offsets) *offsets = &ilu->sm.stencil.off[0][0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetType_StructILU(PC pc, PCStructILUType type)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->type != type && pc->setupcalled) PetscCall(PCReset_StructILU(pc));
  ilu->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetType_StructILU(PC pc, PCStructILUType *type)
{
  PetscFunctionBegin;
  *type = ((PC_StructILU *)pc->data)->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetFactorPrecision_StructILU(PC pc, PCStructILUPrecision precision)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->precision != precision && pc->setupcalled) PetscCall(PCReset_StructILU(pc));
  ilu->precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetFactorPrecision_StructILU(PC pc, PCStructILUPrecision *precision)
{
  PetscFunctionBegin;
  *precision = ((PC_StructILU *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetThreads_StructILU(PC pc, PetscInt nthreads)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_threads %" PetscInt_FMT ": must be 0 (automatic) or positive", GILUPrefix(pc), nthreads);
  ilu->threads     = nthreads;
  ilu->sm.nthreads = nthreads; /* the schedule follows at the next factorization or solve */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetThreads_StructILU(PC pc, PetscInt *nthreads)
{
  PetscFunctionBegin;
  *nthreads = ((PC_StructILU *)pc->data)->threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDistributed_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (flg != ilu->distributed) {
    ilu->distributed = flg;
    PetscCall(PCReset_StructILU(pc));
    pc->setupcalled = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDistributedTile_StructILU(PC pc, PetscInt tile)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(tile >= -1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_distributed_tile %" PetscInt_FMT ": give -1 (natural order), 0 (the model's choice) or a tile size", GILUPrefix(pc), tile);
  if (tile != ilu->disttile) {
    ilu->disttile = tile;
    PetscCall(PCReset_StructILU(pc));
    pc->setupcalled = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDistributedTile_StructILU(PC pc, PetscInt *tile)
{
  PetscFunctionBegin;
  *tile = ((PC_StructILU *)pc->data)->disttile;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDistributed_StructILU(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_StructILU *)pc->data)->distributed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetSchedule_StructILU(PC pc, PCStructILUSchedule schedule)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  ilu->schedule        = schedule;
  ilu->sm.scheduletype = (GILUScheduleType)schedule;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device kernels' settings take effect at the next setup; those the device schedule depends on (mapping, tile
   points, pipeline stages, no waiting) drop the schedule when they change, so that setup builds it again */
static PetscErrorCode PCStructILUDeviceScheduleChanged(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->dev) PetscCall(ilu->devops->destroy(&ilu->dev));
  pc->setupcalled = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAMapping_StructILU(PC pc, PCStructILUCUDAMapping mapping)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if ((PCStructILUCUDAMapping)ilu->mapping != mapping) PetscCall(PCStructILUDeviceScheduleChanged(pc));
  ilu->mapping = (StructILUCUDAMapping)mapping; /* the same values (structilu-cuda.h) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDATilePoints_StructILU(PC pc, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_cuda_tile_points %" PetscInt_FMT ": must be 0 (automatic) or positive", GILUPrefix(pc), n);
  if (((PC_StructILU *)pc->data)->tilepoints != n) PetscCall(PCStructILUDeviceScheduleChanged(pc));
  ((PC_StructILU *)pc->data)->tilepoints = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAPipeline_StructILU(PC pc, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_cuda_pipeline %" PetscInt_FMT ": must be 0 (automatic) or positive", GILUPrefix(pc), n);
  if (((PC_StructILU *)pc->data)->pipeline != n) PetscCall(PCStructILUDeviceScheduleChanged(pc));
  ((PC_StructILU *)pc->data)->pipeline = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAFactor_StructILU(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_StructILU *)pc->data)->cudafactor = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAFactorPipeline_StructILU(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_StructILU *)pc->data)->factorpipe = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAMMA_StructILU(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_StructILU *)pc->data)->cudamma = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDANoWait_StructILU(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  if (((PC_StructILU *)pc->data)->nowait != flg) PetscCall(PCStructILUDeviceScheduleChanged(pc));
  ((PC_StructILU *)pc->data)->nowait = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetPerformanceModel_StructILU(PC pc, PCStructILUModelGPU gpu, PetscReal bw, PetscReal lat, PetscReal link)
{
  PC_StructILU *ilu  = (PC_StructILU *)pc->data;
  MPI_Comm      comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCheck(bw >= 0 && bw < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_bandwidth %g: must be finite and nonnegative (0: the GPU's)", GILUPrefix(pc), (double)bw);
  PetscCheck(lat >= 0 && lat < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_latency %g: must be finite and nonnegative (0: the GPU's)", GILUPrefix(pc), (double)lat);
  PetscCheck(link >= 0 && link < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_link %g: must be finite and nonnegative (0: the GPU's)", GILUPrefix(pc), (double)link);
  ilu->modelgpu  = (PetscInt)gpu;
  ilu->modelbw   = bw;
  ilu->modellat  = lat;
  ilu->modelpcie = link;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetSchedule_StructILU(PC pc, PCStructILUSchedule *schedule)
{
  PetscFunctionBegin;
  *schedule = ((PC_StructILU *)pc->data)->schedule;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDiagonalStorage_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (ilu->diagstorage != flg) pc->setupcalled = 0; /* the next PCSetUp() factors again */
  ilu->diagstorage = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDiagonalStorage_StructILU(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_StructILU *)pc->data)->diagstorage;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetEisenstat_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ilu->eisdepth, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "-%spc_structilu_eisenstat cannot change inside KSPSolve()", GILUPrefix(pc));
  if (ilu->eisenstat != flg) pc->setupcalled = 0; /* the next PCSetUp() keeps (or drops) what the trick needs */
  ilu->eisenstat = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetEisenstat_StructILU(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_StructILU *)pc->data)->eisenstat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetBackend_StructILU(PC pc, PetscGILUBackendType backend)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  ilu->backend    = backend;
  ilu->backendset = PETSC_TRUE;
  pc->setupcalled = 0; /* the next PCSetUp() factors again, on the new back-end */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetBackend_StructILU(PC pc, PetscGILUBackendType *backend)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  if (pc->setupcalled) *backend = ilu->ran;
  else if (ilu->backendset) *backend = ilu->backend;
  else PetscCall(PetscGILUGetBackend(backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_StructILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_StructILU(pc));
  PetscCall(MatDestroy(&((PC_StructILU *)pc->data)->image));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetGrid_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetGrid_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDof_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDof_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetStencil_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetFactorPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetFactorPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetThreads_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDistributed_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDistributed_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDistributedTile_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDistributedTile_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetThreads_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetSchedule_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetSchedule_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDiagonalStorage_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDiagonalStorage_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetEisenstat_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetEisenstat_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAMapping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDATilePoints_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAPipeline_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAFactor_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAFactorPipeline_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAMMA_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDANoWait_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetPerformanceModel_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCSTRUCTILU - "structilu": ILU(k) for matrices that come from a stencil on a structured grid,
  with the factors of sequential ILU(k) in natural ordering, stored per stencil offset
  without column indices (StructILU).

  Options Database Keys:
+ -pc_structilu_grid nx,ny[,nz] - the local grid, when there is no `DMDA` and the pattern does not reveal it
. -pc_structilu_dof d           - unknowns per grid point (1 to 8), when there is no `DMDA`
. -pc_structilu_type ilu|ic     - ILU (default) or incomplete Cholesky of a symmetric matrix (`PCStructILUSetType()`)
. -pc_structilu_levels k        - levels of fill (default 0), as `-pc_factor_levels` of `PCILU`
. -pc_structilu_zeropivot tol   - pivots at most tol in absolute value are zero pivots (default 100 machine epsilon)
. -pc_structilu_factor_precision double|single - precision of the stored factors (default double; the arithmetic is double)
. -pc_structilu_distributed <false> - on several MPI processes, the global ILU(k)/IC(k) of natural ordering across them
                                    (the factors of one process, as a pipeline) instead of block Jacobi
. -pc_structilu_distributed_tile n - the pipeline's tiles: n grid lines (3D) or points (2D); 0: the model's choice, -1: none
. -pc_structilu_threads n       - host threads (default 0: OMP_NUM_THREADS if set, else the cores divided among the node's
                                  MPI processes; fewer for small grids; at most 4 per core); the results do not depend on it
. -pc_structilu_schedule slab|hyperplane - how the host threads share the rows (default slab, see `PCStructILUSetSchedule()`)
. -pc_structilu_diagonal_storage <false> - when ILU(0) of the stencil changes only the diagonal (star stencils), store only
                                  the inverted modified diagonal and read the matrix's other blocks (DILU; host, double precision):
                                  a shorter factorization, an apply that reads D^{-1} twice (see `PCStructILUSetDiagonalStorage()`)
. -pc_structilu_eisenstat <false> - the Krylov method runs on (D + A_L)^{-1} A (D + A_U)^{-1} preconditioned by D, as `PCEISENSTAT`
                                  does for SSOR: two sweeps and no product with A per iteration (DILU factors, one process)
. -pc_structilu_backend auto|host|cuda|cudaemu - where the solves run (default: -gilu_backend, whose default is auto:
                                  cuda when built with CUDA and a device is present, else host)
. -pc_structilu_cuda_factor <true> - on cuda/cudaemu, factor on the device (else on the host and copy the factors)
. -pc_structilu_cuda_mma <true> - DoF >= 5: the block products of the device factorization on the FP64 tensor cores (one warp
                                  per grid point, m8n8k4 MMA through gilu_mma_m8n8k4_f64); needs tile points at most 32
. -pc_structilu_cuda_mapping tiles|lines - the grid-tier task mapping of the device factorization and solves: tiles (the
                                  default: a block per run of tile points of one level, launched by level, waiting for
                                  each neighbour's tile) or lines (the StructILU paper, Section 4.1: the affine transformation
                                  (x^,y^,z^) of the grid, a thread per line along z^, 2D blocks of lines of the x^y^-plane
                                  that step through their levels together and wait per level for their predecessor blocks)
. -pc_structilu_cuda_factor_pipeline <false> - with the lines mapping, the two-substage pipelined device factorization
                                  (the StructILU paper, Section 4.2.2): the part of a row's elimination that needs only rows two or
                                  more levels back (of its first two intra-row levels) runs one level step early, beside
                                  the rest of the rows of the previous level; the same factors (each element updated in
                                  the sequential order); DoF threads per line, so the tensor-core kernel is not used
. -pc_structilu_cuda_tile_points n - grid points per thread block of the device kernels; with lines: lines per block (0, the default: 128/dof; at most 512/dof)
. -pc_structilu_cuda_pipeline n - stages of the intra-row pipelined dot product of the device solves (the StructILU paper, Table 2):
                                  a row's off-diagonal products grouped by how many levels back their neighbour lies, each
                                  stage summed by its own thread group, so only the last stage waits for the previous level
                                  (0, the default: min(4, the levels the stencil spans); capped by them and by 512 threads)
. -pc_structilu_model_gpu h100|h200 - the GPU of the performance model -ksp_view prints on the cuda and cudaemu
                                  back-ends: h100 (H100 SXM: 3350 GB/s HBM3) or h200 (4800 GB/s HBM3e), both with
                                  1 us per dependent level and 55 GB/s host link (PCIe 5)
. -pc_structilu_cuda_nowait <false> - developer: leave out the block-to-block waiting of the device solves (wrong results;
                                  shows that the waiting matters, `-ksp_view` says so)
. -pc_structilu_model_bandwidth GB/s - the model's memory bandwidth (default 0: the GPU's)
. -pc_structilu_model_latency us - the model's time per dependent level (default 0: the GPU's)
- -pc_structilu_model_link GB/s - the model's host-device bandwidth (default 0: the GPU's)

  Notes:
  The matrix is `MATAIJ`, `MATBAIJ` or `MATSEQSBAIJ`, in the natural (x fastest, interlaced DoF) ordering
  of a `DMDA`. The grid is taken from `-pc_structilu_grid`, else from the `DMDA` of the PC
  (`KSPSetDM()`) or of the matrix (`DMCreateMatrix()`), else inferred from the pattern; a grid or DoF
  given that the local block does not fit is an error at setup (a block without them that is no
  structured grid, or whose grid has more than 8 unknowns per point, is factored as a general sparse
  matrix: -ksp_view says why). A `MATSEQSBAIJ` matrix is read through an AIJ (block size 1) or BAIJ
  image of the whole symmetric matrix, refreshed at each setup. The
  stencil is the set of grid offsets present in the pattern: star, box, diamond or any
  other with offsets of at most 4 in each direction and at most 343 points (the same limits for the
  ILU(k) fill stencil), in 1, 2 or 3 dimensions. Stencil positions
  absent from a row are kept at zero, so the factors are those of `PCILU` with zero fill
  on the same matrix: the same iterations. With k levels of fill the factorization runs on
  the ILU(k) fill stencil (ILU(1) of star-7 is diamond-13) with the positions of level above
  k kept at zero: the factors and iterations of `PCILU` with `-pc_factor_levels k`. With several DoF per point the DoF blocks are
  dense and the diagonal blocks are inverted (as `MATBAIJ`'s ILU(0) does).

  In parallel each process factors its local diagonal block, its `DMDA` box: block Jacobi
  with one block per process, as `-pc_type bjacobi -sub_pc_type ilu`. It is also usable as
  the sub-preconditioner of `PCBJACOBI` and `PCASM` (`-sub_pc_type structilu`), where the
  grid of each block is inferred from its pattern. A block with no rows (a process that owns
  none, an empty block of `PCBJACOBI`, a 0 x 0 matrix) has an empty factor, whatever its grid.

  A zero pivot sets the failed reason so that `KSPSolve()` returns `KSP_DIVERGED_PC_FAILED`;
  a NaN or Inf in the matrix (AIJ, BAIJ or `MATSTENCILGPU`) is an error at setup.

  `PCApplyTranspose()` (`KSPBICG`, `KSPSolveTranspose()`) solves (D + U)^T y = b, then L^T x = y (DoF blocks
  transposed) sequentially on the host with the host's factors, whatever the back-end: after a factorization on
  the device (cuda, cudaemu) the host factors the same values at the first transposed apply. `-ksp_view` says so
  once a transposed apply has run.

  `PCMatApply()` (`KSPMatSolve()`) applies the factors to all columns of a dense block in one call, each column bitwise
  `PCApply()`'s; the columns run through the sweeps in turn (on cuda and cudaemu one device solve each).

  With `-pc_structilu_type ic`, `-ksp_pc_side symmetric` applies the halves of the split of the factors,
  (D + U)^T D^{-1} (D + U) = S^T S with S = R (D + U), R the Cholesky factors of the inverted diagonal blocks
  (`PCApplySymmetricLeft()`: S^{-T}, `PCApplySymmetricRight()`: S^{-1}), as `PCICC` does with its factor, on the host
  factors (on cuda/cudaemu with `-pc_structilu_cuda_factor 0`); ILU has no symmetric split and is an error there.

  The same setup and factors are MatSolverType structilu (`MATSOLVERSTRUCTILU`): `-pc_type ilu
  -pc_factor_mat_solver_type structilu` (or `icc`, or as the sub-solver of `PCBJACOBI`, `PCASM` and `PCMG`'s smoothers)
  runs them under PETSc's factor options, and on several processes with the global factors.

  Level: beginner

  References:
+ * - Hao Luo, Qianchao Zhu, Xiaochen Hao, Chunxi Lei, Chengdi Ma, Chenchen Zhang, Yun Liang and Chao Yang, StructILU:
      Dependency-Preserving Incomplete LU with Hierarchical Parallelism for Structured Grid PDEs on GPUs, Proceedings of
      the 2025 International Conference on Supercomputing (ICS '25), ACM, 2025, doi:10.1145/3721145.3725745 (the StructILU paper)
- * - Stanley C. Eisenstat, Efficient Implementation of a Class of Preconditioned Conjugate Gradient Methods, SIAM Journal
      on Scientific and Statistical Computing 2(1), 1981 (-pc_structilu_eisenstat)

  `-citations` lists the papers a run used, as BibTeX, at `PetscFinalize()`.

.seealso: `PCILU`, `MATSOLVERSTRUCTILU`, `PCStructILUSetGrid()`, `PCStructILUSetDof()`, `PCStructILUSetLevels()`, `PCStructILUSetZeroPivot()`, `PCStructILUGetStencil()`,
          `PCStructILUSetCUDAMapping()`, `PCStructILUSetPerformanceModel()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_StructILU(PC pc)
{
  PC_StructILU *ilu;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ilu));
  ilu->zeropivot  = 100.0 * PETSC_MACHINE_EPSILON;
  ilu->zerorow    = -1;
  ilu->rangerow   = -1;
  ilu->cudafactor = PETSC_TRUE;
  ilu->cudamma    = PETSC_TRUE;
  pc->data        = (void *)ilu;

  pc->ops->setup               = PCSetUp_StructILU;
  pc->ops->apply               = PCApply_StructILU;
  pc->ops->applytranspose      = PCApplyTranspose_StructILU;
  pc->ops->matapply            = PCMatApply_StructILU;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_StructILU;
  pc->ops->applysymmetricright = PCApplySymmetricRight_StructILU;
  pc->ops->reset               = PCReset_StructILU;
  pc->ops->destroy             = PCDestroy_StructILU;
  pc->ops->view                = PCView_StructILU;
  pc->ops->setfromoptions      = PCSetFromOptions_StructILU;
  pc->ops->presolve            = PCPreSolve_StructILU;
  pc->ops->postsolve           = PCPostSolve_StructILU;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetGrid_C", PCStructILUSetGrid_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetGrid_C", PCStructILUGetGrid_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDof_C", PCStructILUSetDof_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDof_C", PCStructILUGetDof_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetLevels_C", PCStructILUSetLevels_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetLevels_C", PCStructILUGetLevels_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetZeroPivot_C", PCStructILUSetZeroPivot_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetZeroPivot_C", PCStructILUGetZeroPivot_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetStencil_C", PCStructILUGetStencil_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetType_C", PCStructILUSetType_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetType_C", PCStructILUGetType_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetFactorPrecision_C", PCStructILUSetFactorPrecision_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetFactorPrecision_C", PCStructILUGetFactorPrecision_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetThreads_C", PCStructILUSetThreads_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDistributed_C", PCStructILUSetDistributed_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDistributed_C", PCStructILUGetDistributed_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDistributedTile_C", PCStructILUSetDistributedTile_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDistributedTile_C", PCStructILUGetDistributedTile_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetThreads_C", PCStructILUGetThreads_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetSchedule_C", PCStructILUSetSchedule_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetSchedule_C", PCStructILUGetSchedule_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetBackend_C", PCStructILUSetBackend_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetBackend_C", PCStructILUGetBackend_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetDiagonalStorage_C", PCStructILUSetDiagonalStorage_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetDiagonalStorage_C", PCStructILUGetDiagonalStorage_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetEisenstat_C", PCStructILUSetEisenstat_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUGetEisenstat_C", PCStructILUGetEisenstat_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAMapping_C", PCStructILUSetCUDAMapping_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDATilePoints_C", PCStructILUSetCUDATilePoints_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAPipeline_C", PCStructILUSetCUDAPipeline_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAFactor_C", PCStructILUSetCUDAFactor_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAFactorPipeline_C", PCStructILUSetCUDAFactorPipeline_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDAMMA_C", PCStructILUSetCUDAMMA_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetCUDANoWait_C", PCStructILUSetCUDANoWait_StructILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCStructILUSetPerformanceModel_C", PCStructILUSetPerformanceModel_StructILU));
  PetscFunctionReturn(PETSC_SUCCESS);
}
