/*
   StructILU's factor with -pc_structilu_distributed (PCSTRUCTILU) or under PCILU on several processes: the global ILU(k)/IC(k) of the DMDA's grid in
   natural ordering, the factors of one process, computed and applied by all of them as a pipeline
   (src/mat/stencil/pipeline.c explains the order and why it cannot deadlock).

   Each process takes the rows and columns of its box extended by ghost layers (MatCreateSubMatrices()) and makes the
   stencil matrix of that box with the same analysis as on one process (src/mat/stencil/extract.c, fill.c); its
   schedule is the pipeline's, so the factorization and the solves of src/mat/stencil/ilu.c run unchanged, on the
   process's own points, exchanging the ghost points' rows and values with their owners.
*/
#include <petscdmda.h>
#include <petscgilu/private/giluimpl.h>
#include "structilu.h"

PetscErrorCode StructILUResetDistributed(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (ilu->extmats) PetscCall(MatDestroySubMatrices(1, &ilu->extmats));
  else PetscCall(MatDestroy(&ilu->extmat)); /* before the pipeline: it holds the matrix's arrays */
  ilu->extmats = NULL;
  ilu->extmat  = NULL;
  PetscCall(GILUPipeDestroy(&ilu->pipe));
  PetscCall(ISDestroy(&ilu->extis));
  PetscCall(PetscFree(ilu->extx));
  ilu->extcols = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the DMDA of PCSTRUCTILU or of the matrix, NULL if none */
static PetscErrorCode StructILUGetDMDA(Mat F, DM *da)
{
  Mat_StructILU *ilu  = (Mat_StructILU *)F->data;
  DM             dm   = ilu->dm;
  PetscBool      isda = PETSC_FALSE;

  PetscFunctionBegin;
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) {
    PetscCall(MatGetDM(ilu->A, &dm));
    if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  }
  *da = isda ? dm : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the matrix of the extended box: AIJ by the pipeline's own extraction (own rows local, ghost rows fetched), else (BAIJ)
   by MatCreateSubMatrices() of the whole box */
static PetscErrorCode StructILUExtendedMatrix(Mat F, MatReuse reuse)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscBool      aij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)ilu->A, MATMPIAIJ, &aij));
  if (aij) {
    PetscCall(MatDestroy(&ilu->extmat));
    PetscCall(GILUPipeCreateExtendedMatrix(ilu->pipe, ilu->A, ilu->extis, &ilu->extmat));
  } else {
    PetscCall(MatCreateSubMatrices(ilu->A, 1, &ilu->extis, &ilu->extis, reuse, &ilu->extmats));
    ilu->extmat = ilu->extmats[0];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each setup: the host back-end and a DMDA; the pattern depends on the whole matrix's */
static PetscErrorCode DistCheck(Mat F, PetscObjectState *state)
{
  Mat_StructILU       *ilu  = (Mat_StructILU *)F->data;
  PetscGILUBackendType want = ilu->opt.backend;
  DM                   da   = NULL;
  const char          *pre  = GILUPrefix(F);
  char                 what[128], instead[192];

  PetscFunctionBegin;
  /* under MatSolverType structilu the global factors are what PCILU asks for on several processes: the messages name PCILU's alternative */
  if (ilu->asfactor) {
    /* PETSc has no ILU or ICC of its own for a parallel matrix, so it takes this one where the user named none */
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s of a matrix on several processes (MatSolverType structilu, the only one PETSc has for it: the global factors of a grid)", ilu->opt.type == PC_STRUCTILU_IC ? "ICC" : "ILU"));
    PetscCall(PetscSNPrintf(instead, sizeof(instead), "-%spc_type bjacobi (or asm) with -%ssub_pc_factor_mat_solver_type structilu (each process's block)", pre, pre));
  } else {
    PetscCall(PetscSNPrintf(what, sizeof(what), "-%spc_structilu_distributed", pre));
    PetscCall(PetscSNPrintf(instead, sizeof(instead), "-%spc_structilu_distributed 0 (block Jacobi)", pre));
  }
  if (!ilu->opt.backendset) PetscCall(PetscGILUGetBackend(&want));
  PetscCheck(want == PETSCGILU_BACKEND_HOST || want == PETSCGILU_BACKEND_AUTO, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "%s runs on the host only: use -%spc_structilu_backend host, or %s on the device", what, pre, instead);
  PetscCall(StructILUGetDMDA(F, &da));
  PetscCheck(da, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "%s needs the DMDA of the matrix (KSPSetDM(), or a matrix from DMCreateMatrix()): none was found; use %s", what, instead);
  PetscCall(MatGetNonzeroState(ilu->A, state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pipeline over the DMDA's boxes, the extended box's matrix and its stencil matrix's pattern */
static PetscErrorCode DistPattern(Mat F)
{
  Mat_StructILU *ilu  = (Mat_StructILU *)F->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)F);
  PetscInt       sw, dof, w;
  GILUGrid       g;
  DM             da;

  PetscFunctionBegin;
  PetscCall(StructILUGetDMDA(F, &da));
  PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, &sw, NULL, NULL, NULL, NULL));
  PetscCheck(dof <= GILU_MAX_DOF, comm, PETSC_ERR_SUP, "The global structured-grid factors take 1 to %d unknowns per grid point, not %" PetscInt_FMT ": %s (each process's block is then factored as a general sparse matrix)", GILU_MAX_DOF, dof, ilu->asfactor ? "use -pc_type bjacobi (or asm) with the sub-solver's ILU" : "use -pc_structilu_distributed 0 for block Jacobi");
  PetscCheck(!ilu->opt.griddim, comm, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_grid was given, but -%spc_structilu_distributed factors the grid of the DMDA: leave -%spc_structilu_grid out", GILUPrefix(F), GILUPrefix(F), GILUPrefix(F));
  PetscCheck(!ilu->opt.dof || ilu->opt.dof == dof, comm, PETSC_ERR_ARG_INCOMP, "-%spc_structilu_dof %" PetscInt_FMT " contradicts the DMDA's %" PetscInt_FMT " DoF per grid point", GILUPrefix(F), ilu->opt.dof, dof);
  /* the ghost layers: ILU(k)'s fill reaches (k + 1) stencil widths, and the levels of a row's fill depend on rows up to k + 1 of those away */
  w = PetscMax(sw, 1) * (ilu->opt.levels + 1) * (ilu->opt.levels + 1);
  PetscCall(GILUPipeCreate(da, ilu->A, w, GILUPrefix(F), &ilu->pipe));
  PetscCall(GILUPipeGetExtendedIS(ilu->pipe, dof, &ilu->extis));
  PetscCall(StructILUExtendedMatrix(F, MAT_INITIAL_MATRIX));
  PetscCall(GILUPipeGetExtendedGrid(ilu->pipe, &g));
  ilu->gridfrom = "from the DMDA, this process's box with its ghost layers";
  PetscCall(StructILUAnalyze(F, ilu->extmat, &g, 1)); /* the extraction's threads; the sweeps' below */
  PetscCheck(!ilu->fallbackwhy[0], PETSC_COMM_SELF, PETSC_ERR_SUP, "-%spc_structilu_distributed: the matrix on this process's box of the DMDA is not a stencil matrix (%s); use -%spc_structilu_distributed 0 (block Jacobi, with the general sparse ILU where needed)", GILUPrefix(F),
             ilu->fallbackwhy, GILUPrefix(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after the symbolic factorization: the pipeline's order, its schedule and threads, the vector of the extended box */
static PetscErrorCode DistFinish(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscInt       nt, delay, nbox;

  PetscFunctionBegin;
  PetscCall(GILUPipeSetUp(ilu->pipe, &ilu->sm.stencil, ilu->opt.disttile ? (ilu->opt.disttile < 0 ? GILU_PIPE_NATURAL : GILU_PIPE_TILED) : -1, PetscMax(ilu->opt.disttile, 0)));
  PetscCall(GILUScheduleDestroy(&ilu->sm.schedule));
  PetscCall(GILUScheduleCreatePipe(ilu->pipe, &ilu->sm.schedule));
  /* threads as on one process (-pc_structilu_threads; default: the cores divided among the processes of the node) */
  PetscCall(MatGetLocalSize(ilu->A, &nbox, NULL));
  PetscCall(GILUGetNumThreadsFor(ilu->opt.threads, nbox, &nt));
  PetscCall(GILUScheduleGetDelay(&delay));
  PetscCall(GILUPipeSetThreads(ilu->pipe, ilu->sm.schedule, nt, delay));
  PetscCall(PetscFree(ilu->extx));
  PetscCall(PetscMalloc1((size_t)ilu->sm.npoints * ilu->sm.grid.dof, &ilu->extx));
  ilu->extcols = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the extended box's values (its ghost rows fetched again unless just made), which the pipeline's factorization reads */
static PetscErrorCode DistValues(Mat F, PetscBool fresh)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (!fresh) PetscCall(StructILUExtendedMatrix(F, MAT_REUSE_MATRIX));
  PetscCall(GILUStencilMatPack(ilu->extmat, &ilu->sm));
  PetscCall(GILUPipeSetFactorData(ilu->pipe, ilu->sm.val, ilu->dinv, ilu->sm.stencil.ns, ilu->sm.stencil.nlower));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU: the lower blocks of the upper ghost rows, which the transposed solves read (IC reads none) */
static PetscErrorCode DistFactored(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;

  PetscFunctionBegin;
  if (ilu->opt.type != PC_STRUCTILU_IC) PetscCall(GILUPipeExchangeLower(ilu->pipe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the zero pivot of any process (the smallest row of the grid in natural ordering), so that all of them fail together */
static PetscErrorCode DistPivot(Mat F)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  PetscInt       row = PETSC_MAX_INT;

  PetscFunctionBegin;
  if (ilu->zerorow >= 0) PetscCall(GILUPipeGlobalRow(ilu->pipe, ilu->zerorow, &row));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &row, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)F)));
  ilu->zerorow = row == PETSC_MAX_INT ? -1 : row;
  row          = PETSC_MAX_INT; /* the same for a single-precision factor entry beyond float's range */
  if (ilu->rangerow >= 0) PetscCall(GILUPipeGlobalRow(ilu->pipe, ilu->rangerow, &row));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &row, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)F)));
  ilu->rangerow = row == PETSC_MAX_INT ? -1 : row;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  y = (LU)^{-1} x (transpose: (LU)^{-T} x) of the global factors for m columns (x and y ldx, ldy apart): this process's
  part, its ghost values from and to its neighbours. A block (m > 1) by groups of the columns (those of one process's
  sweeps, StructILUSolveMultipleGroup()), each group copied in, swept by one pass of the pipeline whose messages carry
  every column of the group (StructILUSolveMultiple_Host(): one solve's messages and waits per group) and copied out
  (the whole block copied in at once was slower than the column loop on star5 600^2, 2 processes; a group at a time
  matches it); every process takes this path for the same m (StructILUMatApply(): its test is collective here)
*/
static PetscErrorCode DistSolve(Mat F, PetscBool transpose, PetscInt m, const PetscScalar *x, PetscInt ldx, PetscScalar *y, PetscInt ldy)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  const size_t   ld  = (size_t)ilu->sm.npoints * ilu->sm.grid.dof; /* (a PetscInt: the rows of the extended box's matrix) */
  PetscInt       group, most = 0;

  PetscFunctionBegin;
  PetscCheck(!transpose || m == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The transposed solves of the pipeline take one column");
  if (transpose) {
    PetscBool flg;

    PetscCall(GILUPipeTransposable(ilu->pipe, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCApplyTranspose() of -%spc_structilu_distributed needs a factor stencil whose lower offsets are its upper ones negated (a structurally symmetric matrix); use -%spc_structilu_distributed 0 (block Jacobi) with a method that needs transposed solves", GILUPrefix(F), GILUPrefix(F));
  }
  if (m == 1) {
    PetscCall(GILUPipeOwnedCopy(ilu->pipe, PETSC_TRUE, x, ilu->extx));
    if (transpose) PetscCall(StructILUSolveTranspose_Host(&ilu->sm, &ilu->factors, ilu->extx, ilu->extx));
    else PetscCall(StructILUSolve_Host(&ilu->sm, &ilu->factors, ilu->extx, ilu->extx));
    PetscCall(GILUPipeOwnedCopy(ilu->pipe, PETSC_FALSE, ilu->extx, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  group = StructILUSolveMultipleGroup(&ilu->sm, &ilu->factors, m);
  if (group > ilu->extcols) {
    PetscCall(PetscFree(ilu->extx));
    PetscCall(PetscMalloc1(ld * group, &ilu->extx));
    ilu->extcols = group;
  }
  for (PetscInt j0 = 0; j0 < m; j0 += group) { /* a group's columns copied in, swept together, copied out */
    const PetscInt g = PetscMin(group, m - j0);
    PetscInt       ran; /* the columns of a pass: g, or fewer where a message would exceed an int (GILUPipeInfo's columns) */

    for (PetscInt j = 0; j < g; j++) PetscCall(GILUPipeOwnedCopy(ilu->pipe, PETSC_TRUE, x + (size_t)(j0 + j) * ldx, ilu->extx + j * ld));
    PetscCall(StructILUSolveMultiple_Host(&ilu->sm, &ilu->factors, g, ilu->extx, (PetscInt)ld, ilu->extx, (PetscInt)ld, &ran));
    most = PetscMax(most, ran);
    for (PetscInt j = 0; j < g; j++) PetscCall(GILUPipeOwnedCopy(ilu->pipe, PETSC_FALSE, ilu->extx + j * ld, y + (size_t)(j0 + j) * ldy));
  }
  ilu->matgroup = most;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DistView(Mat F, PetscViewer viewer)
{
  Mat_StructILU *ilu = (Mat_StructILU *)F->data;
  GILUPipeInfo   info;
  PetscMPIInt    size;
  PetscInt       nt;
  char           threads[128];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)F), &size));
  PetscCall(GILUPipeGetInfo(ilu->pipe, &info));
  PetscCall(GILUPipeGetThreads(ilu->pipe, &nt));
  if (nt > 1) PetscCall(PetscSNPrintf(threads, sizeof(threads), "%" PetscInt_FMT " threads (process 0; segments of its box along x, each a step behind the one before)", nt));
  else PetscCall(PetscStrncpy(threads, "one thread", sizeof(threads)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  distributed across %d MPI processes: the global factors of natural ordering, the same as on one process; each process factors and sweeps its DMDA box (with ghost layers) on %s, as a pipeline\n", size, threads));
  if (info.order == GILU_PIPE_TILED)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  pipeline: %" PetscInt_FMT " tiles (stages) of %" PetscInt_FMT " grid %s along %s, skewed by %" PetscInt_FMT " a %s; each process runs its part of the tiles in turn and sends its boundary to its neighbours after each\n",
                                     info.tiles, info.chunk, ilu->sm.grid.dim == 3 ? "lines" : "points", ilu->sm.grid.dim == 3 ? "y" : "x", info.skew, ilu->sm.grid.dim == 3 ? "plane" : "line"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  pipeline: natural order of the grid lines; each process sends its boundary lines to its neighbours as it passes them\n"));
  if (info.depth > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  pipeline groups: %" PetscInt_FMT " independent lines interleaved (sub-slabs of each %s, one plane apart)\n", info.depth, info.order == GILU_PIPE_TILED ? "tile" : "process's box"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  pipeline model (%" PetscInt_FMT " cuts compared): expected idle fraction %.2f of the processes' time in an apply; block Jacobi's apply time / this one's %.2f (per apply, iterations not counted); process 0 sends %" PetscInt_FMT " messages per factorization, %" PetscInt_FMT " per forward and %" PetscInt_FMT " per backward sweep\n",
                                   info.candidates, (double)info.idle, (double)info.speed, info.messages[0], info.messages[1], info.messages[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const StructILUSourceOps StructILUSourceDistributed = {"distributed", "the grid's (natural ordering)", DistCheck, DistPattern, DistFinish, DistValues, PETSC_TRUE, DistFactored, DistPivot, DistSolve, DistView};
