/*
   PCSPARSIFY: the public setters and getters (dispatched to sparsify.c through composed functions).
*/
#include <petsc/private/pcimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>

/*@
  PCSparsifySetRatios - Sets the candidate sparsification ratios of Algorithm 2, tried in the order given

  Logically Collective

  Input Parameters:
+ pc     - the `PCSPARSIFY` preconditioner
. n      - the number of ratios (1 to 16)
- ratios - percentages of the nonzeros to drop, most aggressive first (default 10, 5, 1)

  Options Database Key:
. -pc_sparsify_ratios <10,5,1> - the candidate ratios

  Level: intermediate

  Note:
  The first ratio is the fall-back when no ratio passes the convergence indicator; the last one is taken when it
  passes the indicator, whatever its wavefront reduction.

.seealso: `PCSPARSIFY`, `PCSparsifyGetRatios()`, `PCSparsifySetRatio()`
@*/
PetscErrorCode PCSparsifySetRatios(PC pc, PetscInt n, const PetscReal ratios[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(ratios, 3);
  PetscTryMethod(pc, "PCSparsifySetRatios_C", (PC, PetscInt, const PetscReal[]), (pc, n, ratios));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCSparsifyGetRatios - Gets the candidate sparsification ratios

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameters:
+ n      - the number of ratios
- ratios - the ratios (percent), owned by the PC

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifySetRatios()`
@*/
PetscErrorCode PCSparsifyGetRatios(PC pc, PetscInt *n, const PetscReal *ratios[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCSparsifyGetRatios_C", (PC, PetscInt *, const PetscReal *[]), (pc, n, ratios));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifySetRatio - Forces one sparsification ratio instead of Algorithm 2's choice

  Logically Collective

  Input Parameters:
+ pc    - the `PCSPARSIFY` preconditioner
- ratio - percent of the nonzeros to drop; 0: no sparsification (the inner PC works on A itself); `PETSC_DECIDE`: Algorithm 2 (default); anything else outside [0, 100) is an error

  Options Database Key:
. -pc_sparsify_ratio <t> - the forced ratio, a percentage in [0, 100)

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetRatio()`, `PCSparsifySetRatios()`
@*/
PetscErrorCode PCSparsifySetRatio(PC pc, PetscReal ratio)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, ratio, 2);
  PetscTryMethod(pc, "PCSparsifySetRatio_C", (PC, PetscReal), (pc, ratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetRatio - Gets the sparsification ratio in use

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameter:
. ratio - after setup the ratio of the last setup (forced or chosen by Algorithm 2; 0: none); before, the forced ratio (negative: Algorithm 2)

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifySetRatio()`
@*/
PetscErrorCode PCSparsifyGetRatio(PC pc, PetscReal *ratio)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(ratio, 2);
  PetscUseMethod(pc, "PCSparsifyGetRatio_C", (PC, PetscReal *), (pc, ratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifySetTau - Sets the threshold tau of the convergence indicator ||Ahat^-1|| ||S||

  Logically Collective

  Input Parameters:
+ pc  - the `PCSPARSIFY` preconditioner
- tau - the threshold (default 1)

  Options Database Key:
. -pc_sparsify_tau <1> - the threshold

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetTau()`, `PCSparsifySetOmega()`
@*/
PetscErrorCode PCSparsifySetTau(PC pc, PetscReal tau)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, tau, 2);
  PetscTryMethod(pc, "PCSparsifySetTau_C", (PC, PetscReal), (pc, tau));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetTau - Gets the threshold of the convergence indicator

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameter:
. tau - the threshold

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifySetTau()`
@*/
PetscErrorCode PCSparsifyGetTau(PC pc, PetscReal *tau)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(tau, 2);
  PetscUseMethod(pc, "PCSparsifyGetTau_C", (PC, PetscReal *), (pc, tau));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifySetOmega - Sets the wavefront reduction omega (percent) that a ratio must reach to be taken

  Logically Collective

  Input Parameters:
+ pc    - the `PCSPARSIFY` preconditioner
- omega - the reduction 100 (w_A - w_Ahat) / w_A in percent (default 10)

  Options Database Key:
. -pc_sparsify_omega <10> - the reduction

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetOmega()`, `PCSparsifySetTau()`
@*/
PetscErrorCode PCSparsifySetOmega(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCSparsifySetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetOmega - Gets the wavefront reduction threshold

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameter:
. omega - the threshold (percent)

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifySetOmega()`
@*/
PetscErrorCode PCSparsifyGetOmega(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(omega, 2);
  PetscUseMethod(pc, "PCSparsifyGetOmega_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifySetSymmetric - Says whether entries are dropped in symmetric pairs (default: detected at setup)

  Logically Collective

  Input Parameters:
+ pc  - the `PCSPARSIFY` preconditioner
- sym - `PETSC_TRUE`: drop a_ij and a_ji together, so a symmetric matrix stays symmetric

  Options Database Key:
. -pc_sparsify_symmetric <bool> - drop pairs

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetSymmetric()`
@*/
PetscErrorCode PCSparsifySetSymmetric(PC pc, PetscBool sym)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, sym, 2);
  PetscTryMethod(pc, "PCSparsifySetSymmetric_C", (PC, PetscBool), (pc, sym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetSymmetric - Gets whether entries are dropped in symmetric pairs (after setup: as done at the last setup)

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameter:
. sym - whether pairs are dropped

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifySetSymmetric()`
@*/
PetscErrorCode PCSparsifyGetSymmetric(PC pc, PetscBool *sym)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(sym, 2);
  PetscUseMethod(pc, "PCSparsifyGetSymmetric_C", (PC, PetscBool *), (pc, sym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetSubPC - Gets the inner preconditioner, built on the sparsified matrix

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner

  Output Parameter:
. sub - the inner PC (options prefix -pc_sparsify_sub_)

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetSparsifiedMatrix()`
@*/
PetscErrorCode PCSparsifyGetSubPC(PC pc, PC *sub)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(sub, 2);
  PetscUseMethod(pc, "PCSparsifyGetSubPC_C", (PC, PC *), (pc, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetSparsifiedMatrix - Gets Ahat, the matrix the inner preconditioner is built on

  Not Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner, set up

  Output Parameter:
. Ahat - the sparsified matrix (the preconditioning matrix itself when nothing is dropped), owned by the PC

  Note:
  Where the inner ILU(0)'s factor (MatSolverType gilu) drops the entries of S from A itself, Ahat is not kept by the
  setup: this call assembles it from A's current values (and it is freed at the next setup).

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetSubPC()`, `PCSparsifyGetWavefronts()`
@*/
PetscErrorCode PCSparsifyGetSparsifiedMatrix(PC pc, Mat *Ahat)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(Ahat, 2);
  PetscUseMethod(pc, "PCSparsifyGetSparsifiedMatrix_C", (PC, Mat *), (pc, Ahat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSparsifyGetWavefronts - Gets the wavefronts of A and of the chosen Ahat (largest over the processes)

  Collective

  Input Parameter:
. pc - the `PCSPARSIFY` preconditioner, set up

  Output Parameters:
+ wA    - wavefronts of the lower factor of A (of its ILU(K) pattern for an inner ILU(K))
- wAhat - the same for Ahat

  Level: intermediate

.seealso: `PCSPARSIFY`, `PCSparsifyGetSparsifiedMatrix()`
@*/
PetscErrorCode PCSparsifyGetWavefronts(PC pc, PetscInt *wA, PetscInt *wAhat)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCSparsifyGetWavefronts_C", (PC, PetscInt *, PetscInt *), (pc, wA, wAhat));
  PetscFunctionReturn(PETSC_SUCCESS);
}
