/*
   PCATSILU private: the factors being iterated and the sweeps (atsilu-factor.c: ATS-ILU(k) and ATS-ILUT,
   the ATS-ILU paper, Algorithms 5-7; parilu.c: Chow-Patel ParILU and Anzt's ParILUT in the same storage).

   Storage (the ATS-ILU paper, Section 4): L in CSR, each row sorted with its diagonal last; U in CSC, stored as the CSR of
   U^T (row j of U^T = column j of U), each column sorted with its diagonal last. A row of L and a column of U are
   then updated by the same routine (ATSFactorRowSweep) with the roles of (L, U, A) and (U^T, L, A^T) exchanged.
   All values are those of the (optionally Jacobi-scaled) matrix; ATSFactorsExport() undoes the scaling and
   returns L with a unit diagonal (strictly lower CSR) and U with its diagonal (upper CSR, diagonal first).
*/
#ifndef PETSCGILU_ATSILU_H
#define PETSCGILU_ATSILU_H

#include <petscgilu.h>
#include <petscgilu/private/compat.h>
#include <petscgilu/private/backend.h>
#include <petscgiluconf.h>

/* how the factors of a setup failed: a zero pivot met by a sweep (a divisor of ATSFactorRowSweep, not necessarily
   ILU(0)'s pivot), a zero pivot of the final factors, or a residual that is not finite */
typedef enum {
  ATS_FAIL_NONE,
  ATS_FAIL_SWEEP,
  ATS_FAIL_FACTORS,
  ATS_FAIL_NONFINITE
} ATSFailure;

/* a square CSR matrix: n rows, i[n+1], j[i[n]] sorted ascending per row, a[i[n]]; with scale, entry (r, c) is
   a[p] * (scale[r] * scale[c]) (the matrix's own values, Jacobi-scaled where they are read). borrowed: i, j, a (and
   scale) belong to someone else (the user's matrix, or another ATSCSR's pattern) and ATSCSRReset() does not free them */
typedef struct {
  PetscInt         n, nz, nzalloc;
  PetscInt        *i, *j;
  PetscScalar     *a;
  const PetscReal *scale;
  PetscBool        borrowed;
} ATSCSR;

typedef struct {
  PetscInt   n;
  ATSCSR     A;     /* the matrix: the user's arrays, scaled where read (A.scale) */
  ATSCSR     At;    /* its transpose: fixed pattern (type ilu), U^T's pattern with its own scaled values (A's on it,
                       0 elsewhere), the only entries the sweeps read; ilut, all of A^T (scaled) */
  Mat        mat;   /* the matrix whose arrays A borrows (restored by ATSFactorsReset()) */
  PetscReal  anorm; /* ||A||_F^2 of the scaled matrix, summed in row order */
  ATSCSR     S, St; /* the starting pattern (with the diagonal), lower part used by L, upper by U (St); not stored (NULL i)
                       when it is A's own (ILU(0) of a matrix with its diagonal): A and At serve */
  PetscInt   nnzS;  /* its entries */
  ATSCSR     L, Ut; /* the factors, diagonal last in each row of L and of U^T */
  PetscReal *scale; /* Jacobi scaling 1/sqrt|a_ii| (NULL: none) */
  PetscInt   nthreads;
  /* ILUT */
  PetscInt  lmax, umax; /* most entries kept in L and U (diagonals included) */
  PetscBool usenew, updateresidual, residualrhs, residuallhs;
  PetscInt  zerorow; /* a zero pivot met in the sweeps: its row, else -1 */
  /* work */
  PetscScalar *atvalues; /* the fixed pattern's A^T values (At.a) */
  ATSCSR       Lold, R, Rt, U;
  PetscInt    *iwork; /* ilut only */
  PetscReal   *rwork; /* ATS_RESIDUAL_CHUNK rows' residuals */
} ATSFactors;

/* rows whose residual norms are summed at a time (ATSFactorsResidual()) */
#define ATS_RESIDUAL_CHUNK 65536

/* the block (SEQBAIJ) version of the fixed-pattern sweeps (atsilu-block.c): bs x bs row-major blocks */
typedef struct {
  PetscInt     n, bs, nthreads, zerorow;
  ATSCSR       A, AtT;   /* the scaled matrix; A^T with each block transposed */
  ATSCSR       S, St;    /* the starting (block) pattern */
  ATSCSR       L, LT;    /* L (diagonal block last), and its blocks transposed */
  ATSCSR       UtP, UtT; /* U^T's structure with the blocks u_kj (row j), and transposed */
  PetscScalar *dinv;     /* inverted diagonal blocks of the current half-step's triangular factor */
  PetscScalar *xold, *uold;
  PetscReal   *scale, *rwork;
  PetscBool    usenew;
} ATSBlockFactors;

PETSC_INTERN PetscErrorCode ATSCSRReset(ATSCSR *);
PETSC_INTERN PetscErrorCode ATSFactorsReset(ATSFactors *);
PETSC_INTERN PetscErrorCode ATSFactorsReleaseWork(ATSFactors *);
/* A from an assembled SEQAIJ matrix; the starting pattern S: levels k of pattern (power: A^(k+1); symbolic: ILU(k); diagonal);
   keeppattern false: S is not stored when it would be A's pattern (the fixed-pattern sweeps read it only for the initial guess) */
PETSC_INTERN PetscErrorCode ATSFactorsCreate(Mat, PCATSILUPattern, PetscInt, PetscBool, PetscInt, PetscBool, ATSFactors *);
PETSC_INTERN PetscErrorCode ATSFactorsInitialGuess(ATSFactors *, PCATSILUInitialGuess);
/* one ATS-ILU(k) sweep on the fixed pattern (Algorithm 6) */
PETSC_INTERN PetscErrorCode ATSFactorsSweep(ATSFactors *);
/* one ATS-ILUT update cycle (Algorithm 7): sweepsafter extra fixed-pattern sweeps after thresholding */
PETSC_INTERN PetscErrorCode ATSFactorsSweepILUT(ATSFactors *, PetscInt sweepsafter);
/* ParILU (Chow-Patel), one Jacobi sweep: every entry from the previous iterate; ParILUT (Anzt) one cycle */
PETSC_INTERN PetscErrorCode ParILUSweep(ATSFactors *);
PETSC_INTERN PetscErrorCode ParILUTSweep(ATSFactors *);
/* ||A - LU||_F on the pattern of the factors, relative to ||A||_F */
PETSC_INTERN PetscErrorCode ATSFactorsResidual(ATSFactors *, PetscReal *);
/* L unit (strictly lower CSR) and U (upper CSR, diagonal first) of the unscaled matrix, made in the storage of F's L
   and U^T, which F gives up */
PETSC_INTERN PetscErrorCode ATSFactorsExport(ATSFactors *, ATSCSR *, ATSCSR *);

/* shared by the two files */
PETSC_INTERN PetscErrorCode ATSCSRTranspose(const ATSCSR *, ATSCSR *);
PETSC_INTERN PetscErrorCode ATSCSRCopy(const ATSCSR *, ATSCSR *);
PETSC_INTERN PetscErrorCode ATSStartingPattern(const ATSCSR *, PCATSILUPattern, PetscInt, ATSCSR *);
PETSC_INTERN PetscErrorCode ATSComputeResidualMatrix(ATSFactors *, PetscBool lower, PetscBool upper, PetscBool keepr, PetscBool maket);
PETSC_INTERN PetscErrorCode ATSExpandPatterns(ATSFactors *, PetscBool lower, PetscBool upper);
PETSC_INTERN PetscErrorCode ATSThreshold(ATSCSR *, PetscInt);
PETSC_INTERN PetscErrorCode ATSExpandPatternsParILUT(ATSFactors *);
PETSC_INTERN PetscInt       ATSSolveRows(ATSCSR *, const PetscScalar *, PetscScalar *, const ATSCSR *, const ATSCSR *, const ATSCSR *, const ATSCSR *, PetscBool, PetscInt);

PETSC_INTERN PetscErrorCode ATSBlockFactorsReset(ATSBlockFactors *);
PETSC_INTERN PetscErrorCode ATSBlockFactorsCreate(Mat, PCATSILUPattern, PetscInt, PetscBool, PetscInt, PCATSILUInitialGuess, ATSBlockFactors *);
PETSC_INTERN PetscErrorCode ATSBlockFactorsSweep(ATSBlockFactors *, PetscBool);
PETSC_INTERN PetscErrorCode ATSBlockFactorsFinishU(ATSBlockFactors *);
PETSC_INTERN PetscErrorCode ATSBlockFactorsResidual(ATSBlockFactors *, PetscReal *);
PETSC_INTERN PetscErrorCode ATSBlockFactorsExport(ATSBlockFactors *, ATSCSR *, ATSCSR *, PetscInt *);

/* The device ops of PCATSILU (cuda/atsilu.cu), on a GPU or in the cudaemu emulation, taken once at setup with
   GILUBackendGetDeviceOps() (backend.h) */
typedef struct {
  /* up to nsweeps fixed-pattern sweeps (ParILU when parilu, else ATS-ILU) from the factors in F, stopping after a
     sweep whose relative residual is at most tol (tol > 0); the residual history, the sweeps run */
  PetscErrorCode (*sweeps)(ATSFactors *, PetscBool, PetscInt, PetscReal, PetscReal[], PetscInt *);
} ATSILUDeviceOps;
GILU_DEVICE_GETOPS_DECLARE(ATSILUDeviceGetOps, ATSILUDeviceOps)

#endif
