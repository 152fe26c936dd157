/*
   Chow-Patel ParILU and Anzt-Chow-Dongarra ParILUT in the storage of ATS-ILU (L CSR with a unit diagonal,
   U CSC), so PCATSILU runs them with -pc_atsilu_algorithm parilu beside ATS-ILU.

   ParILU is run in its deterministic (Jacobi) order: every entry of a sweep is computed from the factors of
   the previous sweep (the ATS-ILU paper, Algorithm 2 with L and U both read from the previous iterate), so the factors
   do not depend on the number of threads. The asynchronous form of the original (entries read while other
   threads update them) is not offered: its factors change from run to run.
*/
#include "atsilu.h"

static void NoteZero(ATSFactors *F, PetscInt zr)
{
  if (zr >= 0 && F->zerorow < 0) F->zerorow = zr;
}

/*
  One Jacobi sweep over the pattern of L and U (Algorithm 2):
     l_ij = (a_ij - sum_{k<j} l_ik u_kj) / u_jj  (i > j),   u_ij = a_ij - sum_{k<i} l_ik u_kj  (i <= j),
  all from the previous L and U. These are ATSFactorRowSweep's formulas with the previous values in the sums and L's
  unit diagonal kept (u_ij's division is by l_ii = 1).
*/
PetscErrorCode ParILUSweep(ATSFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSCSRCopy(&F->L, &F->Lold));
  PetscCall(ATSCSRCopy(&F->Ut, &F->U));
  NoteZero(F, ATSSolveRows(&F->L, F->Lold.a, F->L.a, &F->Ut, &F->A, NULL, NULL, PETSC_TRUE, F->nthreads));
  NoteZero(F, ATSSolveRows(&F->Ut, F->U.a, F->Ut.a, &F->Lold, &F->At, NULL, NULL, PETSC_FALSE, F->nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  One ParILUT cycle: candidates from the pattern of R = A - LU (new l_ij = r_ij / u_jj, u_ij = r_ij), a ParILU
  sweep on the enlarged pattern, thresholding to the largest lmax (umax) entries, a ParILU sweep on the kept pattern.
*/
PetscErrorCode ParILUTSweep(ATSFactors *F)
{
  PetscFunctionBegin;
  PetscCall(ATSComputeResidualMatrix(F, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE));
  PetscCall(ATSExpandPatternsParILUT(F));
  PetscCall(ParILUSweep(F));
  PetscCall(ATSThreshold(&F->L, F->lmax));
  PetscCall(ATSThreshold(&F->Ut, F->umax));
  PetscCall(ParILUSweep(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
