/*
   PCSTRUCTILU: dependency-preserving ILU(k) for structured-grid stencil matrices.

   A thin PC over StructILU's factor (MatSolverType structilu, structilu-factor.c), as PCILU is over
   MatGetFactor(): the factor finds the grid (the PC's DMDA, the matrix's, the options or the
   pattern), extracts the stencil matrix of the local diagonal block (for k > 0 on the ILU(k) fill
   stencil of its pattern, src/mat/stencil/fill.c), factors it and applies the factors with the
   back-end's kernels (src/mat/stencil/ and its cuda/). The PC holds the settings (its options,
   setters and getters: StructILUSettings, whose reader and checks the factor shares under PCILU),
   gives them to the factor at each setup, and runs the Eisenstat trick (PCPreSolve(), PCPostSolve()
   and the transformed operator) on the factor's DILU blocks.

   This file: the settings, the PC's ops, create and destroy; the public API is in structilu-api.c.

   A local block that is not a structured grid (no DMDA box matches it and its pattern is not
   a stencil's in natural ordering: an ASM block with overlap, a block of a process grid that
   holds partial lines, a DoF block coupled through part of its entries) is factored as a
   general sparse matrix instead, in natural ordering, by MatSolverType gilu (ILU(k)) or petsc
   (ICC(k), from the upper triangle): the factors of PETSc's ILU(k) (ICC(k)) of the block, said
   in -ksp_view and -info.
*/
#include <petscgilu/private/citations.h>
#include "structilu.h"

PetscErrorCode StructILUSettingsDefault(StructILUSettings *o)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  o->zeropivot  = 100.0 * PETSC_MACHINE_EPSILON;
  o->cudafactor = PETSC_TRUE;
  o->cudamma    = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks of the settings that take a value, for the setters and the options alike (obj: the PC or the factor, whose prefix the messages name) */
static PetscErrorCode StructILUSettingsSetGrid(PetscObject obj, StructILUSettings *o, PetscInt dim, const PetscInt n[])
{
  MPI_Comm comm = PetscObjectComm(obj);

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid takes 1 to 3 sizes nx,ny[,nz], not %s%" PetscInt_FMT, GILUPrefix(obj), dim > 3 ? "at least " : "", dim);
  for (PetscInt d = 0; d < dim; d++) PetscCheck(n[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid: the sizes must be positive, size %" PetscInt_FMT " is %" PetscInt_FMT, GILUPrefix(obj), d, n[d]);
  { /* the points must be countable in a PetscInt, as the grid's indices are */
    PetscInt  npts = 1;
    PetscBool over = PETSC_FALSE;
    char      str[96];

    for (PetscInt d = 0; d < dim; d++) {
      over = (PetscBool)(over || n[d] > PETSC_MAX_INT / npts);
      if (!over) npts *= n[d];
    }
    PetscCall(StructILUGridString(dim, n, str, sizeof(str)));
    PetscCheck(!over, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_grid %s: more grid points than a PetscInt counts (%" PetscInt_FMT "): give the local grid of the matrix", GILUPrefix(obj), str, (PetscInt)PETSC_MAX_INT);
  }
  o->griddim = dim;
  for (PetscInt d = 0; d < 3; d++) o->grid[d] = d < dim ? n[d] : 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StructILUSettingsCheck(PetscObject obj, const StructILUSettings *o)
{
  MPI_Comm    comm = PetscObjectComm(obj);
  const char *pre  = GILUPrefix(obj);

  PetscFunctionBegin;
  PetscCheck(!o->dof || (o->dof >= 1 && o->dof <= GILU_MAX_DOF), comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_dof %" PetscInt_FMT ": must be in 1..%d", pre, o->dof, GILU_MAX_DOF);
  PetscCheck(o->levels >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_levels %" PetscInt_FMT ": must be nonnegative", pre, o->levels);
  PetscCheck(o->zeropivot >= 0 && o->zeropivot < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_zeropivot %g: must be finite and nonnegative", pre, (double)o->zeropivot);
  PetscCheck(o->threads >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_threads %" PetscInt_FMT ": must be 0 (automatic) or positive", pre, o->threads);
  PetscCheck(o->disttile >= -1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_distributed_tile %" PetscInt_FMT ": give -1 (natural order), 0 (the model's choice) or a tile size", pre, o->disttile);
  PetscCheck(o->tilepoints >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_cuda_tile_points %" PetscInt_FMT ": must be 0 (automatic) or positive", pre, o->tilepoints);
  PetscCheck(o->pipeline >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_cuda_pipeline %" PetscInt_FMT ": must be 0 (automatic) or positive", pre, o->pipeline);
  PetscCheck(o->modelbw >= 0 && o->modelbw < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_bandwidth %g: must be finite and nonnegative (0: the GPU's)", pre, (double)o->modelbw);
  PetscCheck(o->modellat >= 0 && o->modellat < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_latency %g: must be finite and nonnegative (0: the GPU's)", pre, (double)o->modellat);
  PetscCheck(o->modelpcie >= 0 && o->modelpcie < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_model_link %g: must be finite and nonnegative (0: the GPU's)", pre, (double)o->modelpcie);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The options into the settings o, checked: PCSTRUCTILU's (PCSetFromOptions()) and, with asfactor, a factor's under PCILU/PCICC,
  which takes its levels, type and zero pivot from the factorization and has no Eisenstat trick (those options are its errors)
*/
PetscErrorCode StructILUSettingsSetFromOptions(PetscObject obj, GILUOptionItems PetscOptionsObject, StructILUSettings *o, PetscBool asfactor)
{
  PetscInt  grid[4] = {0, 0, 0, 0}, ngrid = 4; /* room for a fourth size, so that too many are an error, not dropped */
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Structured-grid ILU options");
  PetscCall(PetscOptionsIntArray("-pc_structilu_grid", "Local grid nx,ny[,nz] when there is no DMDA", "PCStructILUSetGrid", grid, &ngrid, &flg));
  if (flg) PetscCall(StructILUSettingsSetGrid(obj, o, ngrid, grid));
  PetscCall(PetscOptionsInt("-pc_structilu_dof", "Unknowns per grid point when there is no DMDA", "PCStructILUSetDof", o->dof, &o->dof, NULL));
  if (!asfactor) {
    PetscCall(PetscOptionsEnum("-pc_structilu_type", "Incomplete factorization", "PCStructILUSetType", PCStructILUTypes, (PetscEnum)o->type, (PetscEnum *)&o->type, NULL));
    PetscCall(PetscOptionsInt("-pc_structilu_levels", "Levels of fill of the incomplete factorization, ILU(k)", "PCStructILUSetLevels", o->levels, &o->levels, NULL));
  }
  PetscCall(PetscOptionsEnum("-pc_structilu_factor_precision", "Precision of the stored factors", "PCStructILUSetFactorPrecision", PCStructILUPrecisions, (PetscEnum)o->precision, (PetscEnum *)&o->precision, NULL));
  PetscCall(PetscOptionsInt("-pc_structilu_threads", "Host threads (0: OMP_NUM_THREADS if set, else the cores divided among the node's MPI processes; fewer for small grids)", "PCStructILUSetThreads", o->threads, &o->threads, NULL));
  if (!asfactor) PetscCall(PetscOptionsBool("-pc_structilu_distributed", "On several processes: the global ILU(k) of natural ordering across them (a pipeline), not block Jacobi", "PCStructILUSetDistributed", o->distributed, &o->distributed, NULL));
  PetscCall(PetscOptionsInt("-pc_structilu_distributed_tile", "Stages of the pipeline across processes: tiles of n grid lines along y (3D) or points along x (2D); 0: the model's choice, -1: natural order", "PCStructILUSetDistributedTile", o->disttile, &o->disttile, NULL));
  PetscCall(PetscOptionsEnum("-pc_structilu_schedule", "How the host threads share the rows", "PCStructILUSetSchedule", PCStructILUSchedules, (PetscEnum)o->schedule, (PetscEnum *)&o->schedule, NULL));
  if (!asfactor) PetscCall(PetscOptionsReal("-pc_structilu_zeropivot", "Pivots at most this large in absolute value are zero pivots", "PCStructILUSetZeroPivot", o->zeropivot, &o->zeropivot, NULL));
  PetscCall(PetscOptionsBool("-pc_structilu_diagonal_storage", "Store only the modified diagonal (DILU) when ILU(0) of the stencil changes nothing else (always with the Eisenstat trick)", "PCStructILUSetDiagonalStorage", o->diagstorage, &o->diagstorage, NULL));
  if (!asfactor) PetscCall(PetscOptionsBool("-pc_structilu_eisenstat", "The Krylov method runs on (D + L)^{-1} A (D + U)^{-1} (the Eisenstat trick, DILU factors)", "PCStructILUSetEisenstat", o->eisenstat, &o->eisenstat, NULL));
  /* back-end */
  {
    PetscGILUBackendType   backend = o->backend;
    PCStructILUCUDAMapping mapping = (PCStructILUCUDAMapping)o->mapping;
    PCStructILUModelGPU    gpu     = (PCStructILUModelGPU)o->modelgpu;

    if (!o->backendset) PetscCall(PetscGILUGetBackend(&backend));
    PetscCall(PetscOptionsEnum("-pc_structilu_backend", "Where the solves run (default: -gilu_backend)", "PCStructILUSetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, &flg));
    if (flg) {
      o->backend    = backend;
      o->backendset = PETSC_TRUE;
    }
    PetscCall(PetscOptionsEnum("-pc_structilu_cuda_mapping", "Grid-tier task mapping of the device kernels: tiles of one level, or lines along z^ of the transformed grid in 2D blocks", "PCStructILUSetCUDAMapping", PCStructILUCUDAMappings, (PetscEnum)mapping, (PetscEnum *)&mapping, NULL));
    o->mapping = (StructILUCUDAMapping)mapping; /* the same values (structilu-cuda.h) */
    PetscCall(PetscOptionsInt("-pc_structilu_cuda_tile_points", "Grid points per thread block of the device kernels (lines mapping: lines per block) (0: 128/dof)", "PCStructILUSetCUDATilePoints", o->tilepoints, &o->tilepoints, NULL));
    PetscCall(PetscOptionsInt("-pc_structilu_cuda_pipeline", "Stages of the intra-row pipeline of the device solves (0: automatic, min(4, levels spanned by the stencil))", "PCStructILUSetCUDAPipeline", o->pipeline, &o->pipeline, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor", "Factor on the device (else on the host, the factors copied to the device)", "PCStructILUSetCUDAFactor", o->cudafactor, &o->cudafactor, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_factor_pipeline", "The two-substage pipelined device factorization (lines mapping; not with the tensor cores)", "PCStructILUSetCUDAFactorPipeline", o->factorpipe, &o->factorpipe, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_mma", "DoF >= 5: the block products of the device factorization on the FP64 tensor cores (m8n8k4 MMA)", "PCStructILUSetCUDAMMA", o->cudamma, &o->cudamma, NULL));
    PetscCall(PetscOptionsBool("-pc_structilu_cuda_nowait", "Developer: leave out the block-to-block waiting of the device solves (wrong results; tests that the waiting matters)", "PCStructILUSetCUDANoWait", o->nowait, &o->nowait, NULL));
    PetscCall(PetscOptionsEnum("-pc_structilu_model_gpu", "GPU of the performance model printed by -ksp_view", "PCStructILUSetPerformanceModel", PCStructILUModelGPUs, (PetscEnum)gpu, (PetscEnum *)&gpu, NULL));
    o->modelgpu = (PetscInt)gpu;
    PetscCall(PetscOptionsReal("-pc_structilu_model_bandwidth", "Memory bandwidth of the model in GB/s (0: the GPU's)", "PCStructILUSetPerformanceModel", o->modelbw, &o->modelbw, NULL));
    PetscCall(PetscOptionsReal("-pc_structilu_model_latency", "Latency of one dependent level in microseconds (0: the GPU's)", "PCStructILUSetPerformanceModel", o->modellat, &o->modellat, NULL));
    PetscCall(PetscOptionsReal("-pc_structilu_model_link", "Host-device bandwidth in GB/s (0: the GPU's)", "PCStructILUSetPerformanceModel", o->modelpcie, &o->modelpcie, NULL));
  }
  PetscOptionsHeadEnd();
  PetscCall(StructILUSettingsCheck(obj, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's context, NULL before the first setup */
static Mat_StructILU *PCStructILUFactorContext(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  return ilu->fact ? (Mat_StructILU *)ilu->fact->data : NULL;
}

/* A setting changed: checked, and after a setup the next PCSetUp() gives the settings to the factor and factors again */
static PetscErrorCode PCStructILUSettingsChanged(PC pc, const StructILUSettings *old)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(StructILUSettingsCheck((PetscObject)pc, &ilu->opt));
  if (memcmp(old, &ilu->opt, sizeof(*old))) pc->setupcalled = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_StructILU(PC pc, GILUOptionItems PetscOptionsObject)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  PetscCheck(!ilu->eisdepth, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCSTRUCTILU's options cannot change inside KSPSolve()");
  PetscCall(StructILUSettingsSetFromOptions((PetscObject)pc, PetscOptionsObject, &ilu->opt, PETSC_FALSE));
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the setters and getters: one setting each */
#define PCSTRUCTILU_SET(name, type, field) \
  static PetscErrorCode PCStructILUSet##name##_StructILU(PC pc, type value) \
  { \
    PC_StructILU     *ilu = (PC_StructILU *)pc->data; \
    StructILUSettings old = ilu->opt; \
\
    PetscFunctionBegin; \
    ilu->opt.field = value; \
    PetscCall(PCStructILUSettingsChanged(pc, &old)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
#define PCSTRUCTILU_GET(name, type, field) \
  static PetscErrorCode PCStructILUGet##name##_StructILU(PC pc, type *value) \
  { \
    PetscFunctionBegin; \
    *value = ((PC_StructILU *)pc->data)->opt.field; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
PCSTRUCTILU_SET(Levels, PetscInt, levels)
PCSTRUCTILU_GET(Levels, PetscInt, levels)
PCSTRUCTILU_SET(ZeroPivot, PetscReal, zeropivot)
PCSTRUCTILU_GET(ZeroPivot, PetscReal, zeropivot)
PCSTRUCTILU_SET(Type, PCStructILUType, type)
PCSTRUCTILU_GET(Type, PCStructILUType, type)
PCSTRUCTILU_SET(FactorPrecision, PCStructILUPrecision, precision)
PCSTRUCTILU_GET(FactorPrecision, PCStructILUPrecision, precision)
PCSTRUCTILU_SET(Threads, PetscInt, threads)
PCSTRUCTILU_GET(Threads, PetscInt, threads)
PCSTRUCTILU_SET(Distributed, PetscBool, distributed)
PCSTRUCTILU_GET(Distributed, PetscBool, distributed)
PCSTRUCTILU_SET(DistributedTile, PetscInt, disttile)
PCSTRUCTILU_GET(DistributedTile, PetscInt, disttile)
PCSTRUCTILU_SET(Schedule, PCStructILUSchedule, schedule)
PCSTRUCTILU_GET(Schedule, PCStructILUSchedule, schedule)
PCSTRUCTILU_SET(DiagonalStorage, PetscBool, diagstorage)
PCSTRUCTILU_GET(DiagonalStorage, PetscBool, diagstorage)
PCSTRUCTILU_GET(Eisenstat, PetscBool, eisenstat)
PCSTRUCTILU_SET(CUDATilePoints, PetscInt, tilepoints)
PCSTRUCTILU_SET(CUDAPipeline, PetscInt, pipeline)
PCSTRUCTILU_SET(CUDAFactor, PetscBool, cudafactor)
PCSTRUCTILU_SET(CUDAFactorPipeline, PetscBool, factorpipe)
PCSTRUCTILU_SET(CUDAMMA, PetscBool, cudamma)
PCSTRUCTILU_SET(CUDANoWait, PetscBool, nowait)

static PetscErrorCode PCStructILUSetGrid_StructILU(PC pc, PetscInt dim, const PetscInt n[])
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  PetscCall(StructILUSettingsSetGrid((PetscObject)pc, &ilu->opt, dim, n));
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the grid of the last setup, else the one set */
static PetscErrorCode PCStructILUGetGrid_StructILU(PC pc, PetscInt *dim, PetscInt n[])
{
  PC_StructILU  *ilu = (PC_StructILU *)pc->data;
  Mat_StructILU *fi  = PCStructILUFactorContext(pc);

  PetscFunctionBegin;
  if (fi && fi->analyzed) {
    if (dim) *dim = fi->sm.grid.dim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = fi->sm.grid.n[d];
  } else {
    if (dim) *dim = ilu->opt.griddim;
    if (n)
      for (PetscInt d = 0; d < 3; d++) n[d] = ilu->opt.grid[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetDof_StructILU(PC pc, PetscInt dof)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  PetscCheck(dof >= 1 && dof <= GILU_MAX_DOF, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_structilu_dof %" PetscInt_FMT ": must be in 1..%d", GILUPrefix(pc), dof, GILU_MAX_DOF);
  ilu->opt.dof = dof;
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetDof_StructILU(PC pc, PetscInt *dof)
{
  Mat_StructILU *fi = PCStructILUFactorContext(pc);

  PetscFunctionBegin;
  *dof = fi && fi->analyzed ? fi->sm.grid.dof : ((PC_StructILU *)pc->data)->opt.dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUGetStencil_StructILU(PC pc, PetscInt *dim, PetscInt *ns, const PetscInt **offsets)
{
  Mat_StructILU *fi = PCStructILUFactorContext(pc);

  PetscFunctionBegin;
  PetscCheck(fi && fi->analyzed, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() first: the stencil is found at setup");
  if (dim) *dim = fi->sm.grid.dim;
  if (ns) *ns = fi->sm.stencil.ns;
  if (offsets) *offsets = &fi->sm.stencil.off[0][0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetCUDAMapping_StructILU(PC pc, PCStructILUCUDAMapping mapping)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  ilu->opt.mapping = (StructILUCUDAMapping)mapping; /* the same values (structilu-cuda.h) */
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetPerformanceModel_StructILU(PC pc, PCStructILUModelGPU gpu, PetscReal bw, PetscReal lat, PetscReal link)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  ilu->opt.modelgpu  = (PetscInt)gpu;
  ilu->opt.modelbw   = bw;
  ilu->opt.modellat  = lat;
  ilu->opt.modelpcie = link;
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetEisenstat_StructILU(PC pc, PetscBool flg)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  PetscCheck(!ilu->eisdepth, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "-%spc_structilu_eisenstat cannot change inside KSPSolve()", GILUPrefix(pc));
  ilu->opt.eisenstat = flg;
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCStructILUSetBackend_StructILU(PC pc, PetscGILUBackendType backend)
{
  PC_StructILU     *ilu = (PC_StructILU *)pc->data;
  StructILUSettings old = ilu->opt;

  PetscFunctionBegin;
  ilu->opt.backend    = backend;
  ilu->opt.backendset = PETSC_TRUE;
  PetscCall(PCStructILUSettingsChanged(pc, &old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the back-end of the last setup, else the one asked for */
static PetscErrorCode PCStructILUGetBackend_StructILU(PC pc, PetscGILUBackendType *backend)
{
  PC_StructILU  *ilu = (PC_StructILU *)pc->data;
  Mat_StructILU *fi  = PCStructILUFactorContext(pc);

  PetscFunctionBegin;
  if (pc->setupcalled && fi) *backend = fi->ran;
  else if (ilu->opt.backendset) *backend = ilu->opt.backend;
  else PetscCall(PetscGILUGetBackend(backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The factor of the preconditioning matrix, as PCILU makes it: a new one for a new factorization type, the symbolic
  factorization for a new pattern, the numeric one each setup; the factor's failure is the PC's failed reason. It is
  made directly, not through MatGetFactor(), whose registrations are PCILU's (ILU on AIJ, BAIJ, MATSTENCILGPU; ICC also
  on SBAIJ): PCSTRUCTILU takes IC and ILU of any of them, and the setup names what it cannot take.
*/
static PetscErrorCode PCSetUp_StructILU(PC pc)
{
  PC_StructILU       *ilu   = (PC_StructILU *)pc->data;
  const MatFactorType ftype = ilu->opt.type == PC_STRUCTILU_IC ? MAT_FACTOR_ICC : MAT_FACTOR_ILU;
  PetscBool           fresh = PETSC_FALSE;
  MatFactorInfo       info;
  MatFactorError      err;
  DM                  dm;

  PetscFunctionBegin;
  pc->failedreason = PC_NOERROR; /* as PCILU and PCICC: a failure is of the factors it was found in, KSPSetUp() reads it */
  if (ilu->fact && ((Mat_StructILU *)ilu->fact->data)->ftype != ftype) PetscCall(MatDestroy(&ilu->fact));
  if (!ilu->fact) {
    PetscCall(StructILUCreateFactor(pc->pmat, ftype, PETSC_FALSE, &ilu->fact));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)ilu->fact, ((PetscObject)pc)->prefix));
    fresh = PETSC_TRUE;
  }
  PetscCall(PCGetDM(pc, &dm));
  PetscCall(StructILUFactorSetSettings(ilu->fact, &ilu->opt, dm));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels    = (PetscReal)ilu->opt.levels;
  info.zeropivot = ilu->opt.zeropivot;
  info.fill      = 1.0;
  if (fresh || pc->flag != SAME_NONZERO_PATTERN) {
    if (ftype == MAT_FACTOR_ICC) PetscCall(MatICCFactorSymbolic(ilu->fact, pc->pmat, NULL, &info));
    else PetscCall(MatILUFactorSymbolic(ilu->fact, pc->pmat, NULL, NULL, &info));
  }
  PetscCall(MatSetErrorIfFailure(pc->pmat, pc->erroriffailure)); /* as PCILU: the factor's zero pivot is an error with -ksp_error_if_not_converged */
  if (ftype == MAT_FACTOR_ICC) PetscCall(MatCholeskyFactorNumeric(ilu->fact, pc->pmat, &info));
  else PetscCall(MatLUFactorNumeric(ilu->fact, pc->pmat, &info));
  PetscCall(MatFactorGetError(ilu->fact, &err));
  if (err != MAT_FACTOR_NOERROR) PetscCall(PCSetFailedReason(pc, err == MAT_FACTOR_NUMERIC_ZEROPIVOT ? PC_FACTOR_NUMERIC_ZEROPIVOT : PC_FACTOR_OTHER));
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &ilu->factoredid));
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &ilu->factoredstate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_StructILU(PC pc, Vec x, Vec y)
{
  PC_StructILU  *ilu = (PC_StructILU *)pc->data;
  Mat_StructILU *fi  = PCStructILUFactorContext(pc);

  PetscFunctionBegin;
  if (ilu->opt.eisenstat) { /* the preconditioner of the transformed system: D (the sweeps are in the operator) */
    const PetscScalar *xa;
    PetscScalar       *ya;

    if (fi->empty) PetscFunctionReturn(PETSC_SUCCESS);
    if (fi->zerorow >= 0) { /* the factorization failed: let the Krylov method see it */
      PetscCall(VecFlag(y, 1));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(StructILUBlockDiagonalMult_Host(&fi->sm, fi->diag, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSolve(ilu->fact, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_StructILU(PC pc, Vec x, Vec y)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ilu->opt.eisenstat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCApplyTranspose() of -%spc_structilu_eisenstat: the transformed system has no transposed solve here; use the usual preconditioner (-%spc_structilu_eisenstat 0)", GILUPrefix(pc), GILUPrefix(pc));
  PetscCall(MatSolveTranspose(ilu->fact, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCMatApply_StructILU(PC pc, Mat B, Mat X)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ilu->opt.eisenstat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCMatApply() of -%spc_structilu_eisenstat: apply the columns in turn (PCApply()), or -%spc_structilu_eisenstat 0", GILUPrefix(pc), GILUPrefix(pc));
  PetscCall(MatMatSolve(ilu->fact, B, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* IC's halves (-ksp_pc_side symmetric); a diagonal block of the factors that is not positive definite has no real split: the PC fails */
static PetscErrorCode PCApplySymmetric_StructILU(PC pc, PetscBool right, Vec x, Vec y)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ilu->opt.eisenstat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCApplySymmetric%s() of -%spc_structilu_eisenstat: the transformed system is already split; use -ksp_pc_side left or -%spc_structilu_eisenstat 0", right ? "Right" : "Left", GILUPrefix(pc), GILUPrefix(pc));
  PetscCall(StructILUApplySymmetric(ilu->fact, right, x, y));
  {
    const Mat_StructILU *fi = PCStructILUFactorContext(pc);

    if (fi->symvalid && fi->symbad >= 0) pc->failedreason = PC_FACTOR_NUMERIC_ZEROPIVOT; /* (the split of these factors was made) */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_StructILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetric_StructILU(pc, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_StructILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetric_StructILU(pc, PETSC_TRUE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The Eisenstat trick's operator: y = Ahat x, by StructILUEisenstatMult_Host() (two sweeps, no product with A) when the
  factors are those of A; when they are not (a reused preconditioner: factors of an earlier matrix) the identity that
  saves the product does not hold, and y = (D + A_L)^{-1} (A ((D + A_U)^{-1} x)) with A's own product: the same
  transformed system, with the same splitting as PCPreSolve() and PCPostSolve()
*/
static PetscErrorCode MatMult_StructILUEisenstat(Mat S, Vec x, Vec y)
{
  PC                 pc;
  PC_StructILU      *ilu;
  Mat_StructILU     *fi;
  const PetscScalar *xa;
  PetscScalar       *ya, *ta;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &pc));
  ilu = (PC_StructILU *)pc->data;
  fi  = PCStructILUFactorContext(pc);
  if (fi->empty) PetscFunctionReturn(PETSC_SUCCESS);
  if (fi->zerorow >= 0 || fi->rangerow >= 0) { /* the factorization failed: let the Krylov method see it */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_StructILUApply, 0, x, y, 0));
  if (!ilu->eisproduct) {
    PetscScalar *wa;

    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(VecGetArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(VecGetArrayWrite(ilu->eiswork[1], &wa));
    PetscCall(StructILUEisenstatMult_Host(&fi->sm, &fi->factors, fi->eisE, xa, ta, wa, ya));
    PetscCall(VecRestoreArrayWrite(ilu->eiswork[1], &wa));
    PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  } else { /* t = (D + A_U)^{-1} x, w = A t, y = (D + A_L)^{-1} w (t's room the forward sweep's scratch) */
    const PetscScalar *wa;

    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(StructILUSolveUpper_Host(&fi->sm, &fi->factors, xa, ta));
    PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(MatMult(ilu->eisA, ilu->eiswork[0], ilu->eiswork[1]));
    PetscCall(VecGetArrayRead(ilu->eiswork[1], &wa));
    PetscCall(VecGetArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(StructILUSolveLower_Host(&fi->sm, &fi->factors, wa, ta, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &ta));
    PetscCall(VecRestoreArrayRead(ilu->eiswork[1], &wa));
  }
  PetscCall(PetscLogEventEnd(GILU_StructILUApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Eisenstat: before KSPSolve() the operator becomes Ahat (the shell), the right-hand side (D + A_L)^{-1} b (the user's b
  kept to be put back after) and a nonzero initial guess (D + A_U) x; PCPostSolve() undoes it, x = (D + A_U)^{-1} y.
  Nested solves (a KSP inside the operator) take a second slot, as PCPreSolve() allows two. Any splitting gives the
  solution of A x = b as long as the three use the same one: factors kept from an earlier matrix
  (KSPSetReusePreconditioner()) make Ahat with A's product (MatMult_StructILUEisenstat())
*/
static PetscErrorCode PCPreSolve_StructILU(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_StructILU      *ilu = (PC_StructILU *)pc->data;
  Mat_StructILU     *fi;
  PetscBool          nonzero;
  PetscInt           slot = ilu->eisdepth;
  const PetscScalar *ba;
  PetscScalar       *xa, *wa, *bb;

  PetscFunctionBegin;
  if (!ilu->opt.eisenstat) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(slot < 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_structilu_eisenstat: solves nested more than twice", GILUPrefix(pc));
  if (!slot) {
    PetscInt         m, n, M, N;
    PetscObjectId    id;
    PetscObjectState state;

    /* (an operator of its own, as -snes_mf_operator's, may read the b this transforms in place: its base function) */
    PetscCheck(pc->mat == pc->pmat, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_structilu_eisenstat needs the operator to be the preconditioning matrix, but they differ (as with -snes_mf_operator): use -%spc_structilu_eisenstat 0", GILUPrefix(pc), GILUPrefix(pc));
    /* KSPSolve() sets a PC up again for values changed in place only at its first PCApply(), after this: b must be
       transformed with the factors of the matrix being solved, which are also those of Ahat and of PCPostSolve() */
    PetscCall(PCSetUp(pc));
    PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &id));
    PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &state));
    ilu->eisproduct = (PetscBool)(id != ilu->factoredid || state != ilu->factoredstate);
    if (!ilu->eisshell) {
      PetscCall(MatGetLocalSize(pc->mat, &m, &n));
      PetscCall(MatGetSize(pc->mat, &M, &N));
      PetscCall(MatCreateShell(PetscObjectComm((PetscObject)pc), m, n, M, N, pc, &ilu->eisshell));
      PetscCall(MatShellSetOperation(ilu->eisshell, MATOP_MULT, (void (*)(void))MatMult_StructILUEisenstat));
      PetscCall(PetscObjectSetName((PetscObject)ilu->eisshell, "structilu Eisenstat operator"));
    }
    ilu->eisA = pc->mat;
    pc->mat   = ilu->eisshell;
    PetscCall(PetscGILUCitationsRegister(GILU_CITE_EISENSTAT));
  }
  ilu->eisdepth++;
  if (!ilu->eisb[slot]) PetscCall(VecDuplicate(b, &ilu->eisb[slot]));
  if (!ilu->eiswork[0]) PetscCall(VecDuplicate(b, &ilu->eiswork[0]));
  if (!ilu->eiswork[1]) PetscCall(VecDuplicate(b, &ilu->eiswork[1]));
  PetscCall(VecCopy(b, ilu->eisb[slot]));
  fi = PCStructILUFactorContext(pc); /* (after the setup above) */
  if (fi->empty) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) { /* y0 = (D + A_U) x0 */
    PetscCall(VecCopy(x, ilu->eiswork[0]));
    PetscCall(VecGetArrayRead(ilu->eiswork[0], &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(StructILUMultUpper_Host(&fi->sm, fi->diag, ba, xa));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(ilu->eiswork[0], &ba));
  }
  PetscCall(VecGetArrayRead(ilu->eisb[slot], &ba));
  PetscCall(VecGetArrayWrite(ilu->eiswork[0], &wa));
  PetscCall(VecGetArrayWrite(b, &bb));
  PetscCall(StructILUSolveLower_Host(&fi->sm, &fi->factors, ba, wa, bb));
  PetscCall(VecRestoreArrayWrite(b, &bb));
  PetscCall(VecRestoreArrayWrite(ilu->eiswork[0], &wa));
  PetscCall(VecRestoreArrayRead(ilu->eisb[slot], &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_StructILU(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_StructILU  *ilu = (PC_StructILU *)pc->data;
  Mat_StructILU *fi  = PCStructILUFactorContext(pc);
  PetscScalar   *xa;

  PetscFunctionBegin;
  if (!ilu->opt.eisenstat || !ilu->eisdepth) PetscFunctionReturn(PETSC_SUCCESS);
  ilu->eisdepth--;
  PetscCall(VecCopy(ilu->eisb[ilu->eisdepth], b));
  if (!fi->empty) {
    PetscCall(VecGetArray(x, &xa));
    PetscCall(StructILUSolveUpper_Host(&fi->sm, &fi->factors, xa, xa));
    PetscCall(VecRestoreArray(x, &xa));
  }
  if (!ilu->eisdepth) pc->mat = ilu->eisA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_StructILU(PC pc, PetscViewer viewer)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;
  PetscBool     ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (ilu->fact) {
    PetscCall(StructILUView(ilu->fact, viewer));
    if (ilu->opt.eisenstat && ilu->eisproduct)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Eisenstat trick of the last solve: the factors are of an earlier matrix (a reused preconditioner), so each product with Ahat took a product with A between the sweeps\n"));
  } else {
    PetscCall(StructILUViewHeader(&ilu->opt, viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_StructILU(PC pc)
{
  PC_StructILU *ilu = (PC_StructILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&ilu->fact));
  PetscCall(MatDestroy(&ilu->eisshell));
  PetscCall(VecDestroy(&ilu->eisb[0]));
  PetscCall(VecDestroy(&ilu->eisb[1]));
  PetscCall(VecDestroy(&ilu->eiswork[0]));
  PetscCall(VecDestroy(&ilu->eiswork[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_StructILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_StructILU(pc));
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
  `PCApply()`'s: the host sweeps run each tile on a group of columns in turn (the tile's factors from cache after the
  first), the device sweeps take a group's columns between one wait and one release of each tile, and across processes
  (`-pc_structilu_distributed`) each pass of the pipeline takes a group, its messages carrying every column of it.
  `-ksp_view` says which ran.

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
  PetscCall(StructILUSettingsDefault(&ilu->opt));
  pc->data = (void *)ilu;

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
