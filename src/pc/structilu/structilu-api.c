/*
   The public interface of PCSTRUCTILU: setters and getters that dispatch to the
   implementation in structilu.c.
*/
#include <petsc/private/petscimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>

const char *const PCStructILUTypes[]      = {"ilu", "ic", "PCStructILUType", "PC_STRUCTILU_", NULL};
const char *const PCStructILUPrecisions[] = {"double", "single", "PCStructILUPrecision", "PC_STRUCTILU_PRECISION_", NULL};
const char *const PCStructILUSchedules[]  = {"slab", "hyperplane", "PCStructILUSchedule", "PC_STRUCTILU_SCHEDULE_", NULL};

/*@
  PCStructILUSetGrid - Gives the local structured grid of a matrix that has no `DMDA`

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
. dim - 1, 2 or 3
- n   - the grid points per direction, x fastest (the natural ordering of the local rows)

  Options Database Key:
. -pc_structilu_grid nx,ny[,nz] - the local grid

  Notes:
  Needed only when the grid can neither be taken from a `DMDA` nor inferred from the pattern.
  In parallel it is the grid of the local diagonal block, the same on every process.
  A grid given is used as it is, also on a `DMDA` matrix: one whose points do not fit in a `PetscInt`,
  do not divide the local rows, or on which the block is not a stencil matrix is an error at setup
  (never the general sparse factorization of a block that is no structured grid).

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetDof()`, `PCStructILUGetGrid()`
@*/
PetscErrorCode PCStructILUSetGrid(PC pc, PetscInt dim, const PetscInt n[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(n, 3);
  PetscTryMethod(pc, "PCStructILUSetGrid_C", (PC, PetscInt, const PetscInt[]), (pc, dim, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetGrid - The local grid the preconditioner uses (after setup) or was given

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameters:
+ dim - the dimension (0 before setup if no grid was given)
- n   - three sizes, 1 for unused directions

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetGrid()`
@*/
PetscErrorCode PCStructILUGetGrid(PC pc, PetscInt *dim, PetscInt n[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCStructILUGetGrid_C", (PC, PetscInt *, PetscInt[]), (pc, dim, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetDof - Gives the number of unknowns per grid point of a matrix that has no `DMDA`

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- dof - 1 to 8

  Options Database Key:
. -pc_structilu_dof d - unknowns per grid point

  Notes:
  Without it the block size of the matrix is used. The unknowns of a grid point are
  numbered consecutively (interlaced), as a `DMDA` numbers them. A DoF given that does not
  divide the local rows, contradicts the `DMDA` or `MATSTENCILGPU` matrix, or with which the
  block is no structured grid is an error at setup.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetGrid()`, `PCStructILUGetDof()`
@*/
PetscErrorCode PCStructILUSetDof(PC pc, PetscInt dof)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, dof, 2);
  PetscTryMethod(pc, "PCStructILUSetDof_C", (PC, PetscInt), (pc, dof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetDof - The number of unknowns per grid point used (after setup) or given

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. dof - unknowns per grid point (0 before setup if none was given)

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetDof()`
@*/
PetscErrorCode PCStructILUGetDof(PC pc, PetscInt *dof)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(dof, 2);
  PetscUseMethod(pc, "PCStructILUGetDof_C", (PC, PetscInt *), (pc, dof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetLevels - Sets the levels of fill of the structured-grid incomplete factorization, ILU(k)

  Logically Collective

  Input Parameters:
+ pc     - the `PCSTRUCTILU` preconditioner
- levels - the levels of fill k, 0 or more (default 0)

  Options Database Key:
. -pc_structilu_levels k - the levels of fill

  Notes:
  The levels of fill are those of `PCILU` with `PCFactorSetLevels()` in natural ordering: the
  entries of the matrix have level 0 and an entry filled in by eliminating with pivot row m
  has level lev(i,m) + lev(m,j) + 1; entries of level above k are dropped. The factors are
  those of `PCILU` with the same levels, so the Krylov iterations are the same.

  For k > 0 the factors are stored on the fill stencil, the offsets that have level at most
  k at some grid point (ILU(1) of star-7 is diamond-13); positions of the fill stencil whose
  level exceeds k are kept at zero. The fill stencil must have width at most 4 and at most
  343 offsets, otherwise `PCSetUp()` errors and asks for fewer levels. Changing the levels
  redoes the symbolic setup at the next `PCSetUp()`.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetLevels()`, `PCFactorSetLevels()`, `PCStructILUGetStencil()`
@*/
PetscErrorCode PCStructILUSetLevels(PC pc, PetscInt levels)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, levels, 2);
  PetscTryMethod(pc, "PCStructILUSetLevels_C", (PC, PetscInt), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetLevels - The levels of fill of the structured-grid incomplete factorization

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. levels - the levels of fill k of ILU(k)

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetLevels()`
@*/
PetscErrorCode PCStructILUGetLevels(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(levels, 2);
  PetscUseMethod(pc, "PCStructILUGetLevels_C", (PC, PetscInt *), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetZeroPivot - Sets the size at or below which a pivot is taken as zero

  Logically Collective

  Input Parameters:
+ pc        - the `PCSTRUCTILU` preconditioner
- zeropivot - the tolerance (default 100 times machine epsilon, as `PCFactorSetZeroPivot()`)

  Options Database Key:
. -pc_structilu_zeropivot tol - the tolerance

  Notes:
  A zero pivot makes `PCSetUp()` set the failed reason `PC_FACTOR_NUMERIC_ZEROPIVOT`, so
  `KSPSolve()` stops with `KSP_DIVERGED_PC_FAILED` (or errors with `-ksp_error_if_not_converged`).
  With several DoF per point a diagonal block is inverted with partial pivoting and the
  tolerance applies to its pivots.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetZeroPivot()`, `PCFactorSetZeroPivot()`
@*/
PetscErrorCode PCStructILUSetZeroPivot(PC pc, PetscReal zeropivot)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, zeropivot, 2);
  PetscTryMethod(pc, "PCStructILUSetZeroPivot_C", (PC, PetscReal), (pc, zeropivot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetZeroPivot - The zero pivot tolerance

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. zeropivot - the tolerance

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetZeroPivot()`
@*/
PetscErrorCode PCStructILUGetZeroPivot(PC pc, PetscReal *zeropivot)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(zeropivot, 2);
  PetscUseMethod(pc, "PCStructILUGetZeroPivot_C", (PC, PetscReal *), (pc, zeropivot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCStructILUGetStencil - The stencil found at setup (the ILU(k) fill stencil for k > 0)

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner, set up

  Output Parameters:
+ dim     - the grid dimension
. ns      - the number of offsets
- offsets - 3*ns integers (dx,dy,dz), in natural order: the lower offsets, (0,0,0), then the upper ones; owned by the PC

  Notes:
  With levels of fill (`PCStructILUSetLevels()`) it is the stencil of the factors, the matrix's
  stencil with the offsets filled in.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetGrid()`, `PCStructILUSetLevels()`
@*/
PetscErrorCode PCStructILUGetStencil(PC pc, PetscInt *dim, PetscInt *ns, const PetscInt **offsets)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCStructILUGetStencil_C", (PC, PetscInt *, PetscInt *, const PetscInt **), (pc, dim, ns, offsets));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetType - Chooses the incomplete factorization: ILU, or incomplete Cholesky for symmetric matrices

  Logically Collective

  Input Parameters:
+ pc   - the `PCSTRUCTILU` preconditioner
- type - `PC_STRUCTILU_ILU` (default) or `PC_STRUCTILU_IC`

  Options Database Key:
. -pc_structilu_type ilu|ic - the factorization

  Notes:
  IC(k) stores the upper triangle of the factors only, (D + U), and applies
  (D + U)^T D^{-1} (D + U); for a symmetric matrix these are the factors of ILU(k), so the
  iterations are those of `PCILU` and of `PCICC` where PETSc's ICC applies, with half the
  memory. As PETSc's ICC, IC reads the upper triangle of the matrix (on every path: stencil,
  `MATSTENCILGPU`, the general sparse factorization of a block that is no grid,
  `-pc_structilu_distributed`); a stencil offset without its opposite, which the symmetric stencil
  of the factors cannot hold, is an error that names ILU. MatSolverType gilu's ICC follows the
  same rule.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetType()`, `PCStructILUSetLevels()`
@*/
PetscErrorCode PCStructILUSetType(PC pc, PCStructILUType type)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCStructILUSetType_C", (PC, PCStructILUType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetType - The incomplete factorization, ILU or IC

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. type - `PC_STRUCTILU_ILU` or `PC_STRUCTILU_IC`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetType()`
@*/
PetscErrorCode PCStructILUGetType(PC pc, PCStructILUType *type)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(type, 2);
  PetscUseMethod(pc, "PCStructILUGetType_C", (PC, PCStructILUType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetFactorPrecision - Stores the factors in double or in single precision

  Logically Collective

  Input Parameters:
+ pc        - the `PCSTRUCTILU` preconditioner
- precision - `PC_STRUCTILU_PRECISION_DOUBLE` (default) or `PC_STRUCTILU_PRECISION_SINGLE`

  Options Database Key:
. -pc_structilu_factor_precision double|single - the precision of the stored factors

  Notes:
  The factorization is computed in double precision either way; single precision rounds the
  factors to float for storage, which halves the memory and the factor traffic of every
  apply, while the triangular solves still compute in double on double vectors. The
  preconditioner changes at the level of float round-off, which may change the number of
  iterations slightly. A factor entry beyond float's range (|x| > FLT_MAX, e.g. the inverted
  pivots of a matrix scaled by 1e-42) would become Inf: the rounding detects it, on the host
  and on the device, and the PC fails (`PC_FACTOR_OTHER`, KSP's `KSP_DIVERGED_PC_FAILED`; an
  error that names the row and `-pc_structilu_factor_precision double` with
  `-ksp_error_if_not_converged`; `-ksp_view` and `-info` say so too).

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetFactorPrecision()`
@*/
PetscErrorCode PCStructILUSetFactorPrecision(PC pc, PCStructILUPrecision precision)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, precision, 2);
  PetscTryMethod(pc, "PCStructILUSetFactorPrecision_C", (PC, PCStructILUPrecision), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetFactorPrecision - The precision the factors are stored in

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. precision - `PC_STRUCTILU_PRECISION_DOUBLE` or `PC_STRUCTILU_PRECISION_SINGLE`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetFactorPrecision()`
@*/
PetscErrorCode PCStructILUGetFactorPrecision(PC pc, PCStructILUPrecision *precision)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(precision, 2);
  PetscUseMethod(pc, "PCStructILUGetFactorPrecision_C", (PC, PCStructILUPrecision *), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetThreads - Sets the number of host threads of the factorization and the solves

  Logically Collective

  Input Parameters:
+ pc       - the `PCSTRUCTILU` preconditioner
- nthreads - the number of threads, or 0 (default) for `OMP_NUM_THREADS` if set, else the cores divided among the MPI processes of the node, with no more than one thread per 16384 unknowns

  Options Database Key:
. -pc_structilu_threads n - the number of threads

  Notes:
  The results do not depend on the number of threads: every row is computed by the same
  operations in the same order, the threads only share the rows out along the schedule.
  Without OpenMP in the build there is one thread. A count above 4 per core of the node or OpenMP's
  thread limit is clamped to it (the rule of every component of petscgilu); `-ksp_view` shows the threads that run.

  Each apply runs on all the threads or on one, whichever the timings of earlier applies say is
  faster (beside another process's busy core one thread is), and the other way is timed again now
  and then. While the machine has more runnable threads than cores the default number of threads
  is not tried (a count set here is, at the first apply). The results are the same either way.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetThreads()`, `PCStructILUSetSchedule()`
@*/
PetscErrorCode PCStructILUSetThreads(PC pc, PetscInt nthreads)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, nthreads, 2);
  PetscTryMethod(pc, "PCStructILUSetThreads_C", (PC, PetscInt), (pc, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetThreads - The number of host threads asked for (0: automatic)

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. nthreads - the number given to `PCStructILUSetThreads()`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetThreads()`
@*/
PetscErrorCode PCStructILUGetThreads(PC pc, PetscInt *nthreads)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(nthreads, 2);
  PetscUseMethod(pc, "PCStructILUGetThreads_C", (PC, PetscInt *), (pc, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetDistributed - On several MPI processes, factors and applies the global ILU(k) (IC(k)) of the grid in
  natural ordering across the processes, the same factors as on one process, instead of each process's block
  (block Jacobi)

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` for the global factors, `PETSC_FALSE` (default) for block Jacobi

  Options Database Key:
. -pc_structilu_distributed <bool> - the global factors across processes

  Notes:
  The matrix must come from a `DMDA` (`DMCreateMatrix()`, AIJ or BAIJ) without periodic boundaries. Each process
  factors and sweeps its box extended by ghost layers, in an order of tiles that all processes share, and sends the
  rows (factorization) and values (solves) of its boundary to the processes that need them as soon as they are
  computed (nonblocking messages): the processes work as a pipeline (a wavefront) whose fill and drain `-ksp_view`
  reports, with the cut the model chose (natural order or tiles, their size and skew) and the expected idle fraction.
  Every row is computed by the same operations as on one process, so the factors, and each apply, equal those of
  `-pc_type structilu` (and of `-pc_type ilu`) on one process bitwise, whatever the number of processes; the
  Krylov method's dot products and the matrix product do depend on it (their sums run in another order).

  Transposed applies (`PCApplyTranspose()`) run the transposed sweeps through the same pipeline; for ILU each
  factorization also sends the lower blocks of the boundary rows to the neighbours that read them.

  Each process sweeps on `-pc_structilu_threads` threads (default: the cores divided among the processes of the
  node), its box cut along x into one segment a thread, each segment a step behind the one before; the factors stay
  bitwise those of one process.

  Host only; not with `-pc_structilu_eisenstat`, `MATSTENCILGPU` or the CUDA back-end (the
  CUDA path is planned with the same cut). On one process it changes nothing.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetDistributed()`, `PCBJACOBI`
@*/
PetscErrorCode PCStructILUSetDistributed(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetDistributed_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetDistributed - Whether the global factors across processes were asked for

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. flg - the value given to `PCStructILUSetDistributed()`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetDistributed()`
@*/
PetscErrorCode PCStructILUGetDistributed(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCStructILUGetDistributed_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetDistributedTile - How `PCStructILUSetDistributed()` cuts the grid into the stages of its pipeline

  Logically Collective

  Input Parameters:
+ pc   - the `PCSTRUCTILU` preconditioner
- tile - 0 (default): the cut the model predicts fastest; n > 0: tiles of n grid lines along y (3D) or n points along x (2D); -1: the natural order of the grid lines (no tiles)

  Options Database Key:
. -pc_structilu_distributed_tile n - the tile size (0: the model's choice, -1: natural order)

  Notes:
  Smaller tiles mean a shorter fill and drain of the pipeline and more, smaller messages; the model (see
  `-ksp_view`) simulates the sweeps of all processes for each cut and takes the fastest. The factors and the results do
  not depend on the cut.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetDistributed()`, `PCStructILUGetDistributedTile()`
@*/
PetscErrorCode PCStructILUSetDistributedTile(PC pc, PetscInt tile)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, tile, 2);
  PetscTryMethod(pc, "PCStructILUSetDistributedTile_C", (PC, PetscInt), (pc, tile));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetDistributedTile - The tile size asked for by `PCStructILUSetDistributedTile()`

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. tile - 0: the model's choice, -1: natural order, n > 0: tiles of n

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetDistributedTile()`
@*/
PetscErrorCode PCStructILUGetDistributedTile(PC pc, PetscInt *tile)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(tile, 2);
  PetscUseMethod(pc, "PCStructILUGetDistributedTile_C", (PC, PetscInt *), (pc, tile));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetSchedule - Chooses how the host threads share the rows

  Logically Collective

  Input Parameters:
+ pc       - the `PCSTRUCTILU` preconditioner
- schedule - `PC_STRUCTILU_SCHEDULE_SLAB` (default) or `PC_STRUCTILU_SCHEDULE_HYPERPLANE`

  Options Database Key:
. -pc_structilu_schedule slab|hyperplane - the schedule

  Notes:
  Both cut the grid lines into segments (units) that wait only for the units holding their
  lower neighbours (block-to-block waiting, no barrier per level). hyperplane is StructILU's
  GPU schedule: units are ordered by their hyperplane level (the affine transformation of
  the stencil), threads claim tiles of independent units of one level in that order and
  interleave their recurrences. slab gives each thread a slab of the grid (a range of y in
  3D, of x in 2D) to sweep in natural order: long unit-stride runs through memory, which
  the prefetchers of a CPU follow; it is the faster one on the machines measured in bench/.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUGetSchedule()`, `PCStructILUSetThreads()`
@*/
PetscErrorCode PCStructILUSetSchedule(PC pc, PCStructILUSchedule schedule)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, schedule, 2);
  PetscTryMethod(pc, "PCStructILUSetSchedule_C", (PC, PCStructILUSchedule), (pc, schedule));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetSchedule - How the host threads share the rows

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. schedule - `PC_STRUCTILU_SCHEDULE_SLAB` or `PC_STRUCTILU_SCHEDULE_HYPERPLANE`

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetSchedule()`
@*/
PetscErrorCode PCStructILUGetSchedule(PC pc, PCStructILUSchedule *schedule)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(schedule, 2);
  PetscUseMethod(pc, "PCStructILUGetSchedule_C", (PC, PCStructILUSchedule *), (pc, schedule));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- back-end ---- */
/*@
  PCStructILUSetBackend - Chooses where the triangular solves of `PCSTRUCTILU` run

  Logically Collective

  Input Parameters:
+ pc      - the `PCSTRUCTILU` preconditioner
- backend - `PETSCGILU_BACKEND_AUTO`, `PETSCGILU_BACKEND_HOST`, `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Options Database Keys:
+ -pc_structilu_backend auto|host|cuda|cudaemu - the back-end of this PC
- -gilu_backend auto|host|cuda|cudaemu         - the default of every petscgilu object (default auto)

  Notes:
  auto runs the CUDA kernels when the library was built with CUDA and a device is present, else the host
  threads; cuda without a device or without a CUDA build is an error. cudaemu runs the same CUDA kernels on the
  host through the emulation of the CUDA execution model (slow: for tests). The factorization runs on the host;
  on cuda and cudaemu the factors are copied to the device, in the level-ordered layout of the device schedule,
  at each setup, and the solves run there (with a host-only PETSc, the vectors are copied in and out in each
  apply). `-ksp_view` names the back-end that ran and, on cuda and cudaemu, prints the device schedule and a
  performance model of one apply.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetBackend()`, `PetscGILUBackendType`, `PetscGILUGetBackend()`
@*/
PetscErrorCode PCStructILUSetBackend(PC pc, PetscGILUBackendType backend)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, backend, 2);
  PetscTryMethod(pc, "PCStructILUSetBackend_C", (PC, PetscGILUBackendType), (pc, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetBackend - The back-end that ran at the last setup (before setup: the one asked for)

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. backend - after setup `PETSCGILU_BACKEND_HOST`, `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUGetBackend(PC pc, PetscGILUBackendType *backend)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(backend, 2);
  PetscUseMethod(pc, "PCStructILUGetBackend_C", (PC, PetscGILUBackendType *), (pc, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetDiagonalStorage - Sets whether ILU(0) of a stencil whose factorization changes only the diagonal blocks stores only those

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` to store the modified diagonal only when the stencil allows it, `PETSC_FALSE` (default) to store L and U

  Options Database Key:
. -pc_structilu_diagonal_storage <false> - store only the modified diagonal (DILU) when the stencil allows it

  Notes:
  For a star stencil (3-, 5- and 7-point, and their block versions with dense DoF blocks) in natural
  ordering, ILU(0) changes only the diagonal blocks: a product of a lower and an upper offset lands in
  the stencil only on the diagonal. The factors are then L = A_L D^{-1} (unit block diagonal) and
  U = D + A_U with A = A_L + A_D + A_U and D the modified diagonal, so the solves read the matrix's own
  off-diagonal blocks and only D^{-1} is stored: the factorization is one sweep over the diagonal, the
  factor memory one block vector, the factors the same as `PCILU`'s (the solves apply L as A_L times
  D^{-1} y, so the iterations are `PCILU`'s up to round-off). Used on the host back-end, in double
  precision; `-ksp_view` says whether it was, and why not (on the cuda and cudaemu back-ends the device keeps a
  level-ordered copy of the values anyway, so DILU would save no memory there and read one more block per point in each
  apply). It is what `PCStructILUSetEisenstat()` needs, and the
  trick uses it whatever this setting.

  It is not the default because an apply then reads D^{-1} in both sweeps and forms D_q^{-1} y_q
  where the stored factor has L = A_L D^{-1} ready: on ksp ex45 at 100^3 an apply took 1.07-1.12x
  the time of the stored factors (the factorization 0.8x), so a solve of more than about ten
  iterations is faster with L and U stored (bench/tutorials.py, the structilu-full row). The
  matrix is copied into the stencil layout either way (sm->val); DILU keeps it as it is.

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUGetDiagonalStorage()`, `PCStructILUSetEisenstat()`
@*/
PetscErrorCode PCStructILUSetDiagonalStorage(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetDiagonalStorage_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetDiagonalStorage - Whether diagonal (DILU) storage is allowed

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. flg - the value given to `PCStructILUSetDiagonalStorage()`

  Level: intermediate

.seealso: `PCSTRUCTILU`, `PCStructILUSetDiagonalStorage()`
@*/
PetscErrorCode PCStructILUGetDiagonalStorage(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCStructILUGetDiagonalStorage_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetEisenstat - Sets whether the Krylov method runs on the split-preconditioned operator of the Eisenstat trick

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` to use the trick, `PETSC_FALSE` (default) for the usual preconditioner

  Options Database Key:
. -pc_structilu_eisenstat <false> - use the Eisenstat trick

  Notes:
  With DILU factors (`PCStructILUSetDiagonalStorage()`), M = (D + A_L) D^{-1} (D + A_U), and as `PCEISENSTAT` does
  for SSOR, the Krylov method solves Ahat y = bhat with Ahat = (D + A_L)^{-1} A (D + A_U)^{-1},
  bhat = (D + A_L)^{-1} b and x = (D + A_U)^{-1} y, preconditioned by D. Since A = (D + A_L) + (D + A_U) + (A_D - 2 D),
  a product with Ahat is two triangular sweeps and a diagonal product, t = (D + A_U)^{-1} x and
  Ahat x = t + (D + A_L)^{-1} (x + (A_D - 2 D) t): an iteration costs the two sweeps of a preconditioned iteration
  and no product with A. `KSPSolve()` swaps the operator before the solve and back after it (`PCPreSolve()`,
  `PCPostSolve()`), so the operator must be the preconditioning matrix. Factors kept from an earlier matrix
  (`KSPSetReusePreconditioner()`, `-snes_lag_preconditioner`) are not those of A, and the identity above does not
  hold: a product with Ahat is then the two sweeps around a product with A, the same transformed system
  (`-ksp_view` says so).

  The Krylov method sees the transformed system: its residuals are those of Ahat y = bhat (as with `PCEISENSTAT`).
  For a symmetric matrix Ahat is symmetric and the preconditioner D positive definite when M is, so `KSPCG` works;
  with `-ksp_norm_type natural` its residual norms, r^T M^{-1} r, are those of `KSPCG` with the usual preconditioner
  up to round-off, and so are the iterations. One process only (in parallel, the operator's couplings between the
  processes are not part of the sweeps), host back-end; an error otherwise, as when the stencil does not allow
  DILU factors or the factors are stored in single precision.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCEISENSTAT`, `PCStructILUGetEisenstat()`, `PCStructILUSetDiagonalStorage()`
@*/
PetscErrorCode PCStructILUSetEisenstat(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetEisenstat_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUGetEisenstat - Whether the Eisenstat trick is used

  Not Collective

  Input Parameter:
. pc - the `PCSTRUCTILU` preconditioner

  Output Parameter:
. flg - the value given to `PCStructILUSetEisenstat()`

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetEisenstat()`
@*/
PetscErrorCode PCStructILUGetEisenstat(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCStructILUGetEisenstat_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDAMapping - The grid-tier task mapping of the device kernels (cuda and cudaemu back-ends)

  Logically Collective

  Input Parameters:
+ pc      - the `PCSTRUCTILU` preconditioner
- mapping - `PC_STRUCTILU_CUDA_MAPPING_TILES` (default) or `PC_STRUCTILU_CUDA_MAPPING_LINES`

  Options Database Key:
. -pc_structilu_cuda_mapping tiles|lines - the mapping

  Notes:
  tiles: a thread block per run of points of one hyperplane level, launched by level, waiting for each neighbour's
  tile. lines: the StructILU paper's mapping (Section 4.1), a thread per line along z^ of the affinely transformed grid,
  2D blocks of lines stepping through their levels together. A change takes effect at the next setup.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`, `PCStructILUSetCUDATilePoints()`
@*/
PetscErrorCode PCStructILUSetCUDAMapping(PC pc, PCStructILUCUDAMapping mapping)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, mapping, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDAMapping_C", (PC, PCStructILUCUDAMapping), (pc, mapping));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDATilePoints - The grid points per thread block of the device kernels (with the lines mapping: the lines per block)

  Logically Collective

  Input Parameters:
+ pc - the `PCSTRUCTILU` preconditioner
- n - the points (0, the default: 128/dof; at most 512/dof)

  Options Database Key:
. -pc_structilu_cuda_tile_points n - the points per block

  Notes:
  A change takes effect at the next setup.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`, `PCStructILUSetCUDAMapping()`
@*/
PetscErrorCode PCStructILUSetCUDATilePoints(PC pc, PetscInt n)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, n, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDATilePoints_C", (PC, PetscInt), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDAPipeline - The stages of the intra-row pipelined dot product of the device solves

  Logically Collective

  Input Parameters:
+ pc     - the `PCSTRUCTILU` preconditioner
- stages - the stages (0, the default: min(4, the levels the stencil spans))

  Options Database Key:
. -pc_structilu_cuda_pipeline n - the stages

  Notes:
  A row's off-diagonal products are grouped by how many levels back their neighbour lies (the StructILU paper, Table 2);
  each group is summed by its own thread group, so only the last waits for the previous level. A change takes effect
  at the next setup.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUSetCUDAPipeline(PC pc, PetscInt stages)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, stages, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDAPipeline_C", (PC, PetscInt), (pc, stages));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDAFactor - Whether the device back-ends factor on the device

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` (default): factor on the device; `PETSC_FALSE`: factor on the host and copy the factors

  Options Database Key:
. -pc_structilu_cuda_factor <true> - factor on the device

  Notes:
  Both give the same factors (each element updated in the sequential order).

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUSetCUDAFactor(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDAFactor_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDAFactorPipeline - The two-substage pipelined device factorization (lines mapping)

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` to use it (default `PETSC_FALSE`)

  Options Database Key:
. -pc_structilu_cuda_factor_pipeline <false> - use it

  Notes:
  The StructILU paper, Section 4.2.2: the part of a row's elimination that needs only rows two or more levels back
  runs one level step early. The same factors; DoF threads per line, so the tensor-core kernel is not used.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`, `PCStructILUSetCUDAMapping()`
@*/
PetscErrorCode PCStructILUSetCUDAFactorPipeline(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDAFactorPipeline_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDAMMA - Whether the device factorization of DoF >= 5 runs its block products on the FP64 tensor cores

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` (default) or `PETSC_FALSE`

  Options Database Key:
. -pc_structilu_cuda_mma <true> - use the tensor cores

  Notes:
  One warp per grid point, m8n8k4 MMA; needs tile points at most 32. Not with the pipelined factorization. Not at DoF 4,
  where the MMA pads each 4 x 4 product to 8 x 8 and the DoF threads per point on the CUDA cores do better.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUSetCUDAMMA(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDAMMA_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetCUDANoWait - Developer: leave out the block-to-block waiting of the device solves

  Logically Collective

  Input Parameters:
+ pc  - the `PCSTRUCTILU` preconditioner
- flg - `PETSC_TRUE` to leave it out (default `PETSC_FALSE`)

  Options Database Key:
. -pc_structilu_cuda_nowait <false> - leave out the waiting

  Notes:
  The results are then wrong: the tests use it to show that the waiting matters; `-ksp_view` says so.

  Level: developer

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUSetCUDANoWait(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCStructILUSetCUDANoWait_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCStructILUSetPerformanceModel - The GPU and the figures of the performance model that `-ksp_view` prints for the device
  back-ends (cuda and cudaemu)

  Logically Collective

  Input Parameters:
+ pc        - the `PCSTRUCTILU` preconditioner
. gpu       - `PC_STRUCTILU_MODEL_GPU_H100` (default: 3350 GB/s) or `PC_STRUCTILU_MODEL_GPU_H200` (4800 GB/s), both with 1 us
              per dependent level and a 55 GB/s host link
. bandwidth - the memory bandwidth in GB/s (0: the GPU's)
. latency   - the time of one dependent level in microseconds (0: the GPU's)
- link      - the host-device bandwidth in GB/s (0: the GPU's)

  Options Database Keys:
+ -pc_structilu_model_gpu h100|h200 - the GPU
. -pc_structilu_model_bandwidth GB/s - the bandwidth
. -pc_structilu_model_latency us - the latency
- -pc_structilu_model_link GB/s - the host link

  Notes:
  The model estimates the time of an apply on that GPU from the bytes the kernels move and the dependent levels of
  the schedule; it changes nothing that runs.

  Level: advanced

.seealso: `PCSTRUCTILU`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PCStructILUSetPerformanceModel(PC pc, PCStructILUModelGPU gpu, PetscReal bandwidth, PetscReal latency, PetscReal link)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, gpu, 2);
  PetscValidLogicalCollectiveReal(pc, bandwidth, 3);
  PetscValidLogicalCollectiveReal(pc, latency, 4);
  PetscValidLogicalCollectiveReal(pc, link, 5);
  PetscTryMethod(pc, "PCStructILUSetPerformanceModel_C", (PC, PCStructILUModelGPU, PetscReal, PetscReal, PetscReal), (pc, gpu, bandwidth, latency, link));
  PetscFunctionReturn(PETSC_SUCCESS);
}
