/*
   The CUDA back-end of the triangular-solve engine (src/mat/sptrsv/cuda/sptrsv.cu): a device copy of one
   triangle in level order, solved by the level-set or the sync-free kernel. The functions exist twice: compiled by
   nvcc (GILUTriCUDA*, builds with CUDA) and for the host emulation (GILUTriCUDA*_cudaemu, builds with cudaemu).
*/
#ifndef PETSCGILU_SPTRSVCUDA_H
#define PETSCGILU_SPTRSVCUDA_H

#include <petscsys.h>
#include <petscgiluconf.h>

/* the device arrays, passed by value to the kernels */
typedef struct {
  PetscInt   n, bs, nrows, nnz, nlevels;
  PetscInt  *row, *ptr, *col;
  MatScalar *val, *dval;
} GILUTriCUDA_s;

typedef struct _n_GILUTriCUDA *GILUTriCUDA;
struct _n_GILUTriCUDA {
  GILUTriCUDA_s d;
  PetscInt     *lptr; /* host: level pointers */
  PetscScalar  *x;    /* device: the solution */
  int          *flag; /* device: sync-free completion flags */
};

#define GILU_TRI_CUDA_DECLARE(suffix) \
  PETSC_INTERN PetscErrorCode GILUTriCUDACreate##suffix(PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], const PetscInt[], const MatScalar[], const MatScalar[], GILUTriCUDA *); \
  PETSC_INTERN PetscErrorCode GILUTriCUDASetValues##suffix(GILUTriCUDA, const MatScalar[], const MatScalar[]); \
  PETSC_INTERN PetscErrorCode GILUTriCUDASolve##suffix(GILUTriCUDA, PetscInt, const PetscScalar[], PetscScalar[]); \
  PETSC_INTERN PetscErrorCode GILUTriCUDADestroy##suffix(GILUTriCUDA *);
#if defined(PETSCGILU_HAVE_CUDA)
GILU_TRI_CUDA_DECLARE()
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
GILU_TRI_CUDA_DECLARE(_cudaemu)
#endif

#endif
