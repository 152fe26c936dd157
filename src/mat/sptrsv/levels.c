/*
   Level sets and symbolic ILU(k) of a sparse pattern, written once for every component that needs them
   (include/petscgilu/private/levels.h says who).
*/
#include <petscgilu/private/levels.h>

PetscInt GILULevels(GILUTriUplo uplo, PetscInt r0, PetscInt r1, const PetscInt i[], const PetscInt j[], PetscInt level[])
{
  PetscInt nl = 0;

  if (uplo == GILU_TRI_LOWER) { /* two loops, so the test on uplo stays out of the inner one */
    for (PetscInt r = r0; r < r1; r++) {
      PetscInt l = 0;

      for (PetscInt k = i[r]; k < i[r + 1]; k++)
        if (j[k] < r) l = PetscMax(l, level[j[k]] + 1);
      level[r] = l;
      nl       = PetscMax(nl, l + 1);
    }
  } else {
    for (PetscInt r = r1 - 1; r >= r0; r--) {
      PetscInt l = 0;

      for (PetscInt k = i[r]; k < i[r + 1]; k++)
        if (j[k] > r) l = PetscMax(l, level[j[k]] + 1);
      level[r] = l;
      nl       = PetscMax(nl, l + 1);
    }
  }
  return nl;
}

void GILULevelSets(PetscInt r0, PetscInt r1, const PetscInt level[], PetscInt nlevels, PetscInt lptr[], PetscInt rows[])
{
  for (PetscInt l = 0; l <= nlevels; l++) lptr[l] = 0;
  for (PetscInt r = r0; r < r1; r++) lptr[level[r] + 1]++;
  lptr[0] = r0;
  for (PetscInt l = 0; l < nlevels; l++) lptr[l + 1] += lptr[l];
  for (PetscInt r = r0; r < r1; r++) rows[lptr[level[r]]++] = r; /* lptr[l] moves to the start of level l + 1 ... */
  for (PetscInt l = nlevels; l > 0; l--) lptr[l] = lptr[l - 1];  /* ... and back */
  lptr[0] = r0;
}

/*
  Row by row: the row's columns in a sorted linked list (next[], n ends it; lev[] their levels), merged with the
  strictly upper entries of the finished rows k < r it holds, in increasing k (the list grows behind k while it is
  walked), each entry with its level kept for the rows below
*/
PetscErrorCode GILUSymbolicILUk(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt levels, PetscInt **fi, PetscInt **fj)
{
  PetscInt *next, *lev, *i, *j, *jl, cap = PetscMax(ai[n] * (levels + 1), n), nz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, &next, n, &lev));
  PetscCall(PetscMalloc1(n + 1, &i));
  PetscCall(PetscMalloc2(cap, &j, cap, &jl));
  i[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt head = n, len = 0;

    for (PetscInt p = ai[r + 1] - 1; p >= ai[r]; p--) {
      next[aj[p]] = head;
      head        = aj[p];
      lev[aj[p]]  = 0;
    }
    for (PetscInt k = head; k < r; k = next[k]) {
      for (PetscInt q = i[k]; q < i[k + 1]; q++) {
        PetscInt c = j[q], nl, prev = k, cur;

        if (c <= k) continue;
        nl = lev[k] + jl[q] + 1;
        if (nl > levels) continue;
        for (cur = next[k]; cur < c; cur = next[cur]) prev = cur;
        if (cur == c) lev[c] = PetscMin(lev[c], nl);
        else {
          /* a fill entry */
          next[prev] = c;
          next[c]    = cur;
          lev[c]     = nl;
        }
      }
    }
    for (PetscInt k = head; k < n; k = next[k]) len++;
    if (nz + len > cap) {
      PetscInt *nj, *njl;

      cap = PetscMax(2 * cap, nz + len);
      PetscCall(PetscMalloc2(cap, &nj, cap, &njl));
      PetscCall(PetscArraycpy(nj, j, nz));
      PetscCall(PetscArraycpy(njl, jl, nz));
      PetscCall(PetscFree2(j, jl));
      j  = nj;
      jl = njl;
    }
    for (PetscInt k = head; k < n; k = next[k]) {
      j[nz]    = k;
      jl[nz++] = lev[k];
    }
    i[r + 1] = nz;
  }
  PetscCall(PetscFree2(next, lev));
  PetscCall(PetscMalloc1(nz, fj));
  PetscCall(PetscArraycpy(*fj, j, nz));
  PetscCall(PetscFree2(j, jl));
  *fi = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}
