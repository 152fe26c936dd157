/*
   The analyses of a sparse pattern that several components need, written once (src/mat/sptrsv/levels.c): the level
   sets (wavefronts) of a triangle and the symbolic ILU(k) fill pattern. Used by the triangular-solve engine and
   MatSolverType gilu (src/mat/sptrsv), PCFGDD (its subdomains' level sets), PCSPARSIFY (the wavefronts of a candidate's
   ILU(k)) and PCATSILU (its symbolic ILU(k) starting pattern).
*/
#ifndef PETSCGILU_LEVELS_H
#define PETSCGILU_LEVELS_H

#include <petscsys.h>
#include <petscgilu/private/sptrsv.h> /* GILUTriUplo */

/*
  GILULevels(uplo, r0, r1, i, j, level): the level of each row r in [r0, r1) of the lower (upper) triangle of the CSR
  pattern i, j (columns sorted or not; the diagonal and the other triangle's entries ignored): rows in elimination order
  (lower: r0, r0 + 1, ...; upper: r1 - 1, r1 - 2, ...), level[r] = 0 for a row that reads no other row, else 1 + the
  largest level of the rows it reads (which must be in [r0, r1)). Returns the number of levels (0 for no rows). No
  allocation and no error: threads may analyse disjoint row ranges at once (PCFGDD's subdomains).
*/
PETSC_INTERN PetscInt GILULevels(GILUTriUplo, PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt[]);
/*
  GILULevelSets(r0, r1, level, nlevels, lptr, rows): the level sets of rows [r0, r1) from their levels: rows[] (indexed
  r0 .. r1 - 1) holds them level by level, in increasing row order inside a level; level l is rows[lptr[l] ..
  lptr[l + 1] - 1] (lptr[0] = r0, lptr[nlevels] = r1). No allocation, thread-safe like GILULevels().
*/
PETSC_INTERN void GILULevelSets(PetscInt, PetscInt, const PetscInt[], PetscInt, PetscInt[], PetscInt[]);
/*
  GILUSymbolicILUk(n, i, j, levels, &fi, &fj): the fill pattern of ILU(levels) of the n x n CSR pattern i, j (each row's
  columns sorted, unique, the diagonal among them), by levels of fill as PETSc's ILU(k) (natural ordering): lev(r, c) =
  0 for an entry of the pattern, else the least lev(r, k) + lev(k, c) + 1 over the rows k < r eliminated into row r;
  entries kept while lev <= levels. fi[n + 1], fj[fi[n]] (sorted) are allocated here (PetscFree() each).
*/
PETSC_INTERN PetscErrorCode GILUSymbolicILUk(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt **, PetscInt **);

#endif
