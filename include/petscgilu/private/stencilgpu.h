/*
   Private to src/mat/stencilgpu (and read by PCSTRUCTILU): the data of a MATSTENCILGPU matrix.

   The matrix of a DMDA stored the way its stencil defines it: a GILUStencilMat on this
   rank's box (grid = the local box, stencil = every offset of the DMDA's star or box of its
   stencil width, values stencil-major, blocks whose neighbour lies outside the global grid
   are zero). Neighbours are addressed in the DMDA's ghosted local numbering, so one product
   kernel serves one rank (ghost box = box) and many (ghost box filled by DMGlobalToLocal()).
*/
#ifndef PETSCGILU_STENCILGPU_H
#define PETSCGILU_STENCILGPU_H

#include <petscgilu.h>
#include <petscgilu/private/stencil.h>

#define GILU_STENCILGPU_CUBE (2 * GILU_STENCIL_MAX_WIDTH + 1)

/* The device kernels of MATSTENCILGPU as one ops table (defined in cuda/stencilgpu-cuda.h, provided by cuda/stencilgpu.cu) */
typedef struct _n_MatStencilGPUDeviceOps MatStencilGPUDeviceOps;
typedef struct _n_MatStencilGPUDevice   *MatStencilGPUDevice;

typedef struct {
  GILUStencilMat sm;                                                                         /* the local box: grid, stencil, values */
  PetscInt       M[3];                                                                       /* global grid, 1 in unused directions */
  PetscInt       xs[3];                                                                      /* global coordinates of the box's first point */
  PetscInt       gs[3], gn[3];                                                               /* the ghost box: first point, points per direction */
  PetscInt      *gshift;                                                                     /* shift of each offset in the ghost box numbering */
  PetscInt      *gglobal;                                                                    /* global point (block) index of each ghost box point */
  PetscInt       cube2s[GILU_STENCILGPU_CUBE * GILU_STENCILGPU_CUBE * GILU_STENCILGPU_CUBE]; /* offset index of each (dx,dy,dz), -1 if none */
  PetscInt       swidth;                                                                     /* the DMDA's stencil width */
  PetscBool      box;                                                                        /* DMDA_STENCIL_BOX (else star) */
  PetscMPIInt    size;
  /* MatGetRow() buffers */
  PetscInt    *rowcols;
  PetscScalar *rowvals;
  PetscBool    getrowactive;
  /* off-process entries set since the last assembly (global row, global column, value) */
  PetscInt     nstash, maxstash;
  PetscInt    *stashrc;
  PetscScalar *stashv;
  /* the AIJ image of stencilgpu-aij.c: the matrix's state when it was last refreshed */
  PetscObjectState aijstate;
  /* MatInvertBlockDiagonal(): the inverted point blocks (column-major, as AIJ's) */
  PetscScalar *ibdiag;
  /* MatStencilGPUMultWithBackend(): the back-end it last resolved and that back-end's device ops (NULL: the host),
     the device copy of the stencil and values with the buffers of the vectors, and the matrix's state it was made at */
  PetscGILUBackendType          devran;
  const MatStencilGPUDeviceOps *devops;
  MatStencilGPUDevice           dev;
  PetscObjectState              devstate;
} Mat_StencilGPU;

/* Frees the device copy of MatStencilGPUMultWithBackend() (stencilgpu-device.c) */
PETSC_INTERN PetscErrorCode MatStencilGPUDeviceReset(Mat_StencilGPU *);

/* The ghost-box index of point (i,j,k) of the box */
static inline PetscInt StencilGPUGhostIndex(const Mat_StencilGPU *sg, PetscInt i, PetscInt j, PetscInt k)
{
  return ((k + sg->xs[2] - sg->gs[2]) * sg->gn[1] + (j + sg->xs[1] - sg->gs[1])) * sg->gn[0] + (i + sg->xs[0] - sg->gs[0]);
}

/* Is the neighbour at offset s of the box line (j,k) in the global grid, and for which points i in [*ia, *ib)? */
static inline PetscBool StencilGPULineRange(const Mat_StencilGPU *sg, PetscInt s, PetscInt j, PetscInt k, PetscInt *ia, PetscInt *ib)
{
  const PetscInt *d  = sg->sm.stencil.off[s];
  PetscInt        jj = sg->xs[1] + j + d[1], kk = sg->xs[2] + k + d[2];

  if (jj < 0 || jj >= sg->M[1] || kk < 0 || kk >= sg->M[2]) return PETSC_FALSE;
  *ia = PetscMax(0, -sg->xs[0] - d[0]);
  *ib = PetscMin(sg->sm.grid.n[0], sg->M[0] - sg->xs[0] - d[0]);
  return (PetscBool)(*ia < *ib);
}

PETSC_INTERN PetscErrorCode MatStencilGPUGetStencilMat(Mat, PetscBool *, const GILUStencilMat **);

/* stencilgpu-ops.c */
PETSC_INTERN PetscErrorCode MatMult_StencilGPU(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultAdd_StencilGPU(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTranspose_StencilGPU(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_StencilGPU(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatGetDiagonal_StencilGPU(Mat, Vec);
PETSC_INTERN PetscErrorCode MatScale_StencilGPU(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatShift_StencilGPU(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatDiagonalScale_StencilGPU(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatNorm_StencilGPU(Mat, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode MatInvertBlockDiagonal_StencilGPU(Mat, const PetscScalar **);

/* stencilgpu-convert.c */
PETSC_INTERN PetscErrorCode MatStencilGPUComposeConversions(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatZeroRowsColumns_StencilGPU(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);

PETSC_INTERN PetscErrorCode MatConvert_StencilGPU(Mat, MatType, MatReuse, Mat *);

/* stencilgpu-aij.c */
PETSC_INTERN PetscErrorCode MatStencilGPUGetAIJ(Mat, const char *, Mat *);
PETSC_INTERN PetscErrorCode MatStencilGPUGetRowMatrix(Mat, const char *, Mat *);
PETSC_INTERN PetscErrorCode MatStencilGPUSetAIJOps(Mat);
PETSC_INTERN PetscErrorCode MatSOR_StencilGPU_AIJ(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_Petsc(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_MUMPS(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_GILU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_SuperLU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatGetFactor_StencilGPU_SuperLU_DIST(Mat, MatFactorType, Mat *);

/* stencilgpu-sor.c */
PETSC_INTERN PetscErrorCode MatSOR_StencilGPU(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);

/* stencilgpu-color.c */
PETSC_INTERN PetscErrorCode MatStencilGPUSetColoringOps(Mat);

#endif
