/*
   Private description of a structured-grid stencil matrix, shared by all stencil code
   (PCSTRUCTILU today, MATSTENCILGPU and the CUDA kernels later).

   A matrix on a grid of n[0] x n[1] x n[2] points with dof unknowns per point couples
   point p = (i,j,k) to p + off[s] for each offset s of the stencil. Values are stored
   stencil-major: for offset s, a dof x dof block (row-major) per grid point, contiguous
   over the grid in natural (x fastest) order; blocks whose neighbour lies outside the
   grid are zero.
*/
#ifndef PETSCGILU_STENCIL_H
#define PETSCGILU_STENCIL_H

#include <petscmat.h>
#include <petscdm.h>
#include <petscgilu/private/compat.h>

#define GILU_STENCIL_MAX_OFFSETS 343 /* a 3D box of width 3 (ILU(k) fill of wide stencils) */
#define GILU_STENCIL_MAX_WIDTH   4   /* largest |offset| per direction */
#define GILU_MAX_DOF             8

typedef struct {
  PetscInt dim;  /* 1, 2 or 3 */
  PetscInt n[3]; /* points per direction, 1 in unused directions */
  PetscInt dof;  /* unknowns per grid point */
} GILUGrid;

typedef struct {
  PetscInt ns;                              /* number of offsets */
  PetscInt nlower;                          /* offsets [0, nlower) are lower, nlower is the diagonal, the rest upper */
  PetscInt off[GILU_STENCIL_MAX_OFFSETS][3]; /* sorted by their natural-order index shift */
  PetscInt width[3];                        /* largest |offset| per direction */
} GILUStencil;

/* A stencil matrix extracted from an AIJ or BAIJ matrix (the local diagonal block in parallel) */
typedef struct {
  GILUGrid         grid;
  GILUStencil      stencil;
  PetscInt         npoints; /* n[0]*n[1]*n[2] */
  PetscInt         bs2;     /* dof*dof */
  PetscInt        *shift;   /* natural-order index shift of each offset */
  PetscScalar     *val;     /* ns * npoints * bs2 values, stencil-major */
  PetscInt         nmissing;         /* in-grid stencil positions absent from the matrix pattern */
  PetscInt        *missptr, *missoff; /* per point (CSR) the offsets that are absent; NULL when none is */
  PetscObjectState nonzerostate;     /* of the matrix the pattern came from */
} GILUStencilMat;

/* Geometry (stencil.c) */
PETSC_INTERN PetscErrorCode GILUStencilGetName(const GILUStencil *, PetscInt, char[], size_t);
PETSC_INTERN PetscErrorCode GILUStencilFind(const GILUStencil *, const PetscInt[3], PetscInt *);
PETSC_INTERN PetscErrorCode GILUStencilGetHyperplanes(const GILUStencil *, const GILUGrid *, PetscInt[3], PetscInt *);
PETSC_INTERN PetscErrorCode GILUStencilGetEliminationTable(const GILUStencil *, PetscInt **);

/* The ILU(k) pattern of a stencil matrix (fill.c) */
PETSC_INTERN PetscErrorCode GILUStencilMatFill(const GILUStencilMat *, PetscInt, GILUStencilMat *);

/* Extraction from PETSc matrices (extract.c) */
PETSC_INTERN PetscErrorCode GILUGridFromDM(DM, Mat, GILUGrid *, PetscBool *);
PETSC_INTERN PetscErrorCode GILUGridInfer(Mat, PetscInt, GILUGrid *, PetscBool *);
PETSC_INTERN PetscErrorCode GILUStencilMatAnalyze(Mat, const GILUGrid *, GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUStencilMatPack(Mat, GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUStencilMatReset(GILUStencilMat *);
PETSC_INTERN PetscErrorCode GILUMatCheckSupported(Mat, PetscBool *);

#endif
