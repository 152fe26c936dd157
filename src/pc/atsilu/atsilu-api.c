/*
   The public setters of PCATSILU (the implementations are in atsilu.c).
*/
#include <petsc/private/pcimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>

/*@
  PCATSILUSetType - Sets the fixed-pattern (`PC_ATSILU_ILU`, the ATS-ILU paper, Algorithm 6) or thresholded (`PC_ATSILU_ILUT`, Algorithm 7) variant

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_type <ilu,ilut> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetType(PC pc, PCATSILUType v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetType_C", (PC, PCATSILUType), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetAlgorithm - Sets alternating triangular solves (`PC_ATSILU_ALGORITHM_ATS`) or Chow-Patel sweeps (`PC_ATSILU_ALGORITHM_PARILU`: ParILU, ParILUT for ilut)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_algorithm <ats,parilu> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetAlgorithm(PC pc, PCATSILUAlgorithm v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetAlgorithm_C", (PC, PCATSILUAlgorithm), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetLevels - Sets the levels k of the starting pattern (see `PCATSILUSetPattern()`)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_levels <k> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetLevels(PC pc, PetscInt v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetLevels_C", (PC, PetscInt), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetPattern - Sets the starting pattern: the pattern of A^(k+1) (power), the symbolic ILU(k) pattern (symbolic) or the diagonal, A^0 (diagonal)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_pattern <power,symbolic,diagonal> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetPattern(PC pc, PCATSILUPattern v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetPattern_C", (PC, PCATSILUPattern), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetSweeps - Sets the most sweeps (update cycles for ilut)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_sweeps <n> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetSweeps(PC pc, PetscInt v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetSweeps_C", (PC, PetscInt), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetTol - Sets the tolerance on ||A - LU||_F / ||A||_F on the pattern that stops the sweeps (0: run all)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_tol <t> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetTol(PC pc, PetscReal v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetTol_C", (PC, PetscReal), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetFill - Sets ilut's fill: L keeps at most fill times the entries of tril(A), U of triu(A)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_fill <f> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetFill(PC pc, PetscReal v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetFill_C", (PC, PetscReal), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetThreads - Sets the host threads of the sweeps and solves (0: OpenMP's); the factors do not depend on it

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_threads <n> - the same

  Note:
  A count above 4 per core of the node or OpenMP's thread limit is clamped to it (the rule of every component of
  petscgilu); `-ksp_view` shows the threads that run.

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetThreads(PC pc, PetscInt v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetThreads_C", (PC, PetscInt), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetJacobiScaling - Sets whether the sweeps run on D^{-1/2} A D^{-1/2}, D = |diag(A)| (the factors are unscaled afterwards)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_jacobi_scaling <bool> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetJacobiScaling(PC pc, PetscBool v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetJacobiScaling_C", (PC, PetscBool), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetInitialGuess - Sets the starting factors: triu(A) and tril(A) with a unit diagonal (triu), or diag(A) and I (diagonal)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_initial_guess <triu,diagonal> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetInitialGuess(PC pc, PCATSILUInitialGuess v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetInitialGuess_C", (PC, PCATSILUInitialGuess), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetUseNew - Sets whether the U half-step reads the L just computed (USE_NEW of the ATS-ILU paper, Section 4) or the previous one

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_use_new <bool> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetUseNew(PC pc, PetscBool v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetUseNew_C", (PC, PetscBool), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetUpdateResidual - Sets ilut: whether A - LU is recomputed between the half-steps (UPDATE_RESIDUAL_BETWEEN)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_update_residual <bool> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetUpdateResidual(PC pc, PetscBool v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetUpdateResidual_C", (PC, PetscBool), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetResidualRHS - Sets ilut: whether the right-hand side of a row solve takes the residual where A has no entry (USE_RESIDUAL_RHS)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_residual_rhs <bool> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetResidualRHS(PC pc, PetscBool v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetResidualRHS_C", (PC, PetscBool), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetSweepsBefore - Sets ilut: fixed-pattern sweeps before the first update cycle (ADDITIONAL_SWEEPS_BEFORE)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_sweeps_before <n> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetSweepsBefore(PC pc, PetscInt v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetSweepsBefore_C", (PC, PetscInt), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetSweepsAfter - Sets ilut with ats: fixed-pattern sweeps after each thresholding (ADDITIONAL_SWEEPS_AFTER)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_sweeps_after <n> - the same

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetSweepsAfter(PC pc, PetscInt v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetSweepsAfter_C", (PC, PetscInt), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetTriSolve - Sets how the factors are applied: exact triangular solves (MatSolve() of a factor of
  `MATSOLVERGILU` given L and U) or m Jacobi sweeps on each triangular system

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
. t  - `PC_ATSILU_TRISOLVE_EXACT` or `PC_ATSILU_TRISOLVE_JACOBI`
- m  - Jacobi sweeps per factor (ignored by exact)

  Options Database Keys:
+ -pc_atsilu_trisolve <exact,jacobi> - the kind
- -pc_atsilu_trisolve_sweeps <m> - the Jacobi sweeps

  Level: intermediate

.seealso: `PCATSILU`
@*/
PetscErrorCode PCATSILUSetTriSolve(PC pc, PCATSILUTriSolve t, PetscInt m)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, t, 2);
  PetscValidLogicalCollectiveInt(pc, m, 3);
  PetscTryMethod(pc, "PCATSILUSetTriSolve_C", (PC, PCATSILUTriSolve, PetscInt), (pc, t, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCATSILUGetResidualHistory - Gets ||A - LU||_F / ||A||_F on the pattern of the factors after each sweep of the
  last setup (entry 0: the initial guess), in the Jacobi-scaled matrix when scaling is on

  Not Collective

  Input Parameter:
. pc - the `PCATSILU` preconditioner

  Output Parameters:
+ nsweeps - the sweeps done (-1 before the setup)
- hist    - nsweeps + 1 norms, owned by the PC

  Level: intermediate

.seealso: `PCATSILU`, `PCATSILUSetSweeps()`, `PCATSILUSetTol()`
@*/
PetscErrorCode PCATSILUGetResidualHistory(PC pc, PetscInt *nsweeps, const PetscReal *hist[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCATSILUGetResidualHistory_C", (PC, PetscInt *, const PetscReal *[]), (pc, nsweeps, hist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetBackend - Sets where the fixed-pattern sweeps (`PC_ATSILU_ILU`) run: on host threads, as CUDA kernels
  on a GPU (a thread per row of L and per column of U), or as the same kernels in the host emulation of CUDA

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - `PETSCGILU_BACKEND_AUTO` (cuda when the library was built with CUDA and a device is found, else host),
       `PETSCGILU_BACKEND_HOST`, `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Options Database Keys:
+ -pc_atsilu_backend auto|host|cuda|cudaemu - the back-end of this PC
- -gilu_backend auto|host|cuda|cudaemu      - the default when the PC's own is not given (default auto)

  Notes:
  The choice is resolved at `PCSetUp()` by `PetscGILUBackendResolve()`: asking for cuda without a CUDA build or
  without a device is an error that says so. ilut has no device sweeps: cuda or cudaemu given by this setter (or
  -pc_atsilu_backend) with ilut is an error, while the global default (-gilu_backend, or auto) runs ilut on the
  host. The triangular solves of the apply are those of a `MATSOLVERGILU` factor and follow its option
  (-mat_gilu_trisolve_backend with the PC's prefix, default -gilu_backend). `-ksp_view` names the back-end that ran.

  Level: advanced

.seealso: `PCATSILU`, `PCATSILUGetBackend()`, `PetscGILUGetBackend()`, `PetscGILUBackendType`
@*/
PetscErrorCode PCATSILUSetBackend(PC pc, PetscGILUBackendType v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetBackend_C", (PC, PetscGILUBackendType), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUGetBackend - Gets the back-end of the sweeps of `PCATSILU`: after the setup the one that ran (host, cuda or
  cudaemu), before it the one asked for

  Not Collective

  Input Parameter:
. pc - the `PCATSILU` preconditioner

  Output Parameter:
. v - the back-end

  Level: advanced

.seealso: `PCATSILU`, `PCATSILUSetBackend()`
@*/
PetscErrorCode PCATSILUGetBackend(PC pc, PetscGILUBackendType *v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(v, 2);
  PetscUseMethod(pc, "PCATSILUGetBackend_C", (PC, PetscGILUBackendType *), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCATSILUSetResidualLHS - Sets whether, in ilut, the triangular matrix of each row (column) solve takes the
  residual A - LU where the factor has no entry (USE_RESIDUAL_LHS of the ATS-ILU paper, Section 4)

  Logically Collective

  Input Parameters:
+ pc - the `PCATSILU` preconditioner
- v  - the value

  Options Database Key:
. -pc_atsilu_residual_lhs <bool> - the same

  Level: advanced

.seealso: `PCATSILU`, `PCATSILUSetResidualRHS()`
@*/
PetscErrorCode PCATSILUSetResidualLHS(PC pc, PetscBool v)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, v, 2);
  PetscTryMethod(pc, "PCATSILUSetResidualLHS_C", (PC, PetscBool), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
