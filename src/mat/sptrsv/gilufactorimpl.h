/*
   Inside MatSolverType "gilu" (src/mat/sptrsv/): the factor's context, shared by gilufactor.c (the factor object:
   options, symbolic factorization, PETSc's storage read into CSR/BSR, the solves, the view) and gilufactor-numeric.c
   (the schedule of the numeric factorization and its row kernels).
*/
#ifndef PETSCGILU_GILUFACTORIMPL_H
#define PETSCGILU_GILUFACTORIMPL_H

#include <petsc/private/matimpl.h>
#include <petscgilu.h>
#include <petscgilu/private/sptrsv.h>

typedef enum {
  GILU_FACTOR_NUMERIC_GILU,
  GILU_FACTOR_NUMERIC_PETSC
} GILUFactorNumericType;

typedef enum {
  GILU_FACTOR_SCHEDULE_CHUNKED,
  GILU_FACTOR_SCHEDULE_LEVELSET
} GILUFactorSchedule;

typedef struct {
  Mat              F;     /* PETSc's factor (MatSolverType petsc, ILU): its symbolic factorization, and its numeric one where gilu's is not used;
                              destroyed once gilu's own numeric factorization of a MATSEQAIJ has run (the factor is then stored once, in the
                              arrays below), made again from A, the orderings and sinfo where PETSc's numeric factorization is needed */
  MatFactorInfo    sinfo; /* the symbolic factorization's info (levels, fill, ...), to make F again */
  MatInfo          finfo; /* F's MatGetInfo() when it was destroyed (what MatGetInfo() of the factor answers without F) */
  PetscBool        hasfinfo;
  MatFactorType    ftype;       /* what the user asked for: ILU or ICC */
  Mat              image;       /* what ICC factors in place of A where A is not exactly symmetric (PETSc's ICC reads the upper
                              triangle only): the MATSEQAIJ or MATSEQBAIJ image of the symmetric matrix of A's upper triangle
                              (of a MATSEQSBAIJ, which stores no other, the whole matrix it stands for), made at the symbolic
                              factorization (or at a numeric one that finds A no longer symmetric), its values refreshed at
                              each numeric one (MatGILUFactorImage()). NULL where A is factored */
  PetscObjectState imagestate;  /* A's nonzero state when the image was made */
  PetscBool        imagesbaij;  /* the image is of a MATSEQSBAIJ */
  PetscInt        *drop, ndrop; /* MatGILUFactorSetDropped(): A's stored entries at these positions (increasing) are left out of
                                   the factorization, which is then of A - S (PCSPARSIFY's Â, never assembled) */
  PetscObjectState dropstate;   /* A's nonzero state when they were given: the positions are of that pattern */
  PetscBool        petscicc;    /* ICC of block size > 1 (BAIJ, SBAIJ) with k > 0 (PETSc's fill is its own, not ILU(k)'s) or a shift
                                  that block ILU lacks (positive_definite, nonzero): F is PETSc's ICC factor and does the
                                  factorization and the solves (why says which) */
  GILUTri          L, U;        /* the factors, in the permuted numbering */
  GILUTri          Lt, Ut;      /* L^T (upper) and U^T (lower), built at the first MatSolveTranspose() */
  IS               row, col;
  PetscBool        identity;
  PetscInt         nb, bs;
  PetscScalar     *work;
  PetscScalar     *mwork; /* [nb*bs*GILU_TRI_MAX_RHS] MatMatSolve()'s columns interleaved (allocated by its first call) */
  /* MatSolve() where L and U solve on the same device back-end (cuda or cudaemu): device buffers for b and x (when they
     are not CUDA vectors: src/sys/device-vec.c), the permuted vector and the orderings row and col, made at the first
     such MatSolve() after a symbolic factorization (dbackend: theirs; db NULL: none); dcols columns of the buffers
     (MatMatSolve(): grown to its block, kept) */
  PetscGILUBackendType dbackend;
  void                *db, *dx, *dwork, *drow, *dcol;
  PetscInt             dcols;
  GILUTriSolveType     type;
  PetscInt             nthreads;
  /* the factors in CSR/BSR */
  PetscInt  *Li, *Lj, *Ui, *Uj; /* where PETSc's factor keeps U's row i diagonal (its off-diagonal entries just before it): UdPos() */
  MatScalar *La, *Ua, *Ud;
  PetscBool  taken;     /* Li, Lj, La are one PetscMalloc3() allocation and Ui, Uj, Ua another, Ud its own, taken from the caller
                           (MatGILUFactorTakeValues()); else Li, Lj and Ui, Uj are PetscMalloc2() pairs, La, Ua, Ud a PetscMalloc3() */
  PetscBool  pattern;   /* the CSR patterns above are current */
  PetscInt   patternid; /* counts the patterns read (the engine works on the arrays above in place: it is told when they change) */
  /* the numeric factorization */
  GILUFactorNumericType numeric;               /* asked for */
  GILUFactorSchedule    schedule;              /* asked for */
  GILUFactorSchedule    ranschedule;           /* what runs: chunked falls back to levelset where its chunks leave the threads idle */
  PetscBool             ranserial;             /* ... and to one thread where the level sets are small too */
  PetscBool             rangilu;               /* the last numeric factorization was gilu's */
  PetscBool             given;                 /* L and U were given by MatGILUFactorTakeValues() (their maker named in why), no factorization ran */
  char                  why[128];              /* else why PETSc's ran */
  PetscInt             *ic;                    /* inverse of the column ordering (during a numeric factorization only) */
  PetscBool             analyzed;              /* the schedule below is current (once per pattern) */
  PetscInt              nlevels, *lptr, *lrow; /* the level sets of L: rows lrow[lptr[l] .. lptr[l+1]-1] */
  PetscInt              nchunks, nclevels;     /* chunked: chunks of consecutive rows, levels of the chunk DAG */
  PetscInt             *cptr, *corder;         /* [nchunks+1] first row of each chunk; [nchunks] the chunks by level */
  PetscInt             *clptr;                 /* [nclevels+1] chunk level l is corder[clptr[l] .. clptr[l+1]-1] */
  PetscInt             *dptr, *dep;            /* [nchunks+1], [dptr[nchunks]] the chunks each chunk reads */
  unsigned int         *cdone, epoch;          /* cdone[c] == epoch: chunk c is final in this factorization */
  MatScalar            *rtmp;                  /* [nthreads * nb] the dense work rows of the threads (during a numeric factorization only) */
} Mat_GILUFactor;

/* Where PETSc's factor (its layout, checked when the patterns are read: L's rows, then U's rows from the last, each its
   off-diagonal entries then its diagonal) keeps U's row i diagonal */
static inline PetscInt UdPos(const Mat_GILUFactor *f, PetscInt i)
{
  return f->Li[f->nb] + f->Ui[f->nb] - f->Ui[i] + f->nb - 1 - i;
}

/* gilufactor-numeric.c: the schedule (once per pattern of L) and gilu's numeric factorization of a MATSEQAIJ or
   MATSEQBAIJ (bs 2..7); *needshift: a pivot needs PETSc's shift, the caller runs PETSc's numeric factorization instead */
PETSC_INTERN PetscErrorCode MatGILUFactorScheduleDestroy(Mat_GILUFactor *);
/* frees the arrays of the factors, as they were allocated (f->taken) */
PETSC_INTERN PetscErrorCode MatGILUFactorFreeFactors(Mat_GILUFactor *);
PETSC_INTERN PetscErrorCode MatGILUFactorNumeric_Seq(Mat, Mat, const MatFactorInfo *, PetscBool *);

#endif
