/*
   PCFGDD: partitioning of the local block into subdomains (the FGDD paper, Section 3), geometric cuts of the DMDA box
   (Algorithm 1) or graph partitioning through MatPartitioning followed by balancing to uniform sizes, the
   ordering that makes each subdomain's rows contiguous, and the reordered matrix without the entries between
   subdomains (Algorithm 2 and Section 3.2).
*/
#include <petscgilu/private/giluimpl.h>
#include "fgdd.h"

/*
  Algorithm 1: labels[] per block row of the local block on an n[0] x n[1] x n[2] box of points with dof
  unknowns each (bs unknowns per block row; bs divides dof), cut into boxes of
  box[0] x box[1] x box[2] points; the boxes at the far ends are smaller when box[] does not divide n[]
*/
PetscErrorCode FGDDPartitionGeometric(const PetscInt n[3], PetscInt dof, const PetscInt box[3], PetscInt bs, PetscInt *nsub, PetscInt labels[])
{
  PetscInt b[3], rpb = dof / bs; /* block rows per point */

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) b[d] = (n[d] + box[d] - 1) / box[d];
  for (PetscInt k = 0; k < n[2]; k++) {
    PetscInt kb = k / box[2];

    for (PetscInt j = 0; j < n[1]; j++) {
      PetscInt jb = j / box[1];

      for (PetscInt i = 0; i < n[0]; i++) {
        PetscInt p = i + n[0] * (j + n[1] * k), label = i / box[0] + b[0] * (jb + b[1] * kb);

        for (PetscInt c = 0; c < rpb; c++) labels[p * rpb + c] = label;
      }
    }
  }
  *nsub = b[0] * b[1] * b[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The symmetrized block graph of A without the diagonal (what MatCreateMPIAdj() wants; PetscMalloc'ed) */
static PetscErrorCode FGDDAdjacency(Mat A, PetscBool blocked, PetscInt *n, PetscInt **xadj, PetscInt **adjncy)
{
  const PetscInt *ia, *ja;
  PetscInt       *cnt, *xa, *ad, m = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, blocked, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCFGDD cannot read the nonzero pattern of the local block");
  PetscCall(PetscCalloc1(m + 1, &cnt));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] != i) {
        cnt[i]++;
        cnt[ja[k]]++;
      }
  PetscCall(PetscMalloc1(m + 1, &xa));
  xa[0] = 0;
  for (PetscInt i = 0; i < m; i++) xa[i + 1] = xa[i] + cnt[i];
  PetscCall(PetscMalloc1(xa[m], &ad));
  for (PetscInt i = 0; i < m; i++) cnt[i] = xa[i];
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] != i) {
        ad[cnt[i]++]     = ja[k];
        ad[cnt[ja[k]]++] = i;
      }
  {
    PetscInt mm; /* MatRestoreRowIJ() may change it */

    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, blocked, &mm, &ia, &ja, &done));
  }
  /* sort and remove the duplicates (entries present in both triangles), compacting in place */
  {
    PetscInt w = 0;

    for (PetscInt i = 0; i < m; i++) {
      PetscInt len = xa[i + 1] - xa[i], start = xa[i];

      PetscCall(PetscSortRemoveDupsInt(&len, ad + start));
      xa[i] = w;
      for (PetscInt k = 0; k < len; k++) ad[w++] = ad[start + k];
    }
    xa[m] = w;
  }
  PetscCall(PetscFree(cnt));
  *n      = m;
  *xadj   = xa;
  *adjncy = ad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Balancing to uniform sizes (the FGDD paper: "partitions of uniform size"): the nb vertices in nparts parts of
  nb / nparts or nb / nparts + 1 vertices. Vertices of too large parts move to a too small neighbouring part
  (passes until nothing moves), then whatever remains moves to any part that is too small. Returns the
  number of vertices moved.
*/
static PetscErrorCode FGDDBalance(PetscInt nb, const PetscInt xa[], const PetscInt ad[], PetscInt nparts, PetscInt labels[], PetscInt *moved)
{
  PetscInt *size, *target, *order, q = nb / nparts, r = nb % nparts, nmoved = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc3(nparts, &size, nparts, &target, nparts, &order));
  for (PetscInt v = 0; v < nb; v++) size[labels[v]]++;
  /* the r largest parts may keep q + 1 */
  {
    PetscInt *key;

    PetscCall(PetscMalloc1(nparts, &key));
    for (PetscInt p = 0; p < nparts; p++) {
      key[p]   = -size[p];
      order[p] = p;
    }
    PetscCall(PetscSortIntWithArray(nparts, key, order));
    for (PetscInt p = 0; p < nparts; p++) target[order[p]] = q + (p < r ? 1 : 0);
    PetscCall(PetscFree(key));
  }
  for (PetscInt pass = 0; pass < 100; pass++) {
    PetscInt changed = 0;

    for (PetscInt v = 0; v < nb; v++) {
      PetscInt p = labels[v];

      if (size[p] <= target[p]) continue;
      for (PetscInt k = xa[v]; k < xa[v + 1]; k++) {
        PetscInt t = labels[ad[k]];

        if (size[t] < target[t]) {
          labels[v] = t;
          size[p]--;
          size[t]++;
          changed++;
          break;
        }
      }
    }
    nmoved += changed;
    if (!changed) break;
  }
  for (PetscInt v = 0, t = 0; v < nb; v++) {
    PetscInt p = labels[v];

    if (size[p] <= target[p]) continue;
    while (size[t] >= target[t]) t++;
    labels[v] = t;
    size[p]--;
    size[t]++;
    nmoved++;
  }
  PetscCall(PetscFree3(size, target, order));
  *moved = nmoved;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* configure's verdict on PETSc's PT-Scotch (build/include/petscgiluconf.h) as a value, so that both branches compile */
#if defined(PETSCGILU_PTSCOTCH_INT_MISMATCH)
  #define PETSCGILU_PTSCOTCH_MISMATCH 1
#else
  #define PETSCGILU_PTSCOTCH_MISMATCH 0
#endif

/*
  Graph partitioning of the (sequential) local block A into nparts parts with MatPartitioning on a sequential
  MPIAdj (its type from -<prefix>mat_partitioning_type, default PT-Scotch where PETSc has it), then balancing
  to uniform sizes; labels[] per block row, moved the number of vertices the balancing moved.
  PT-Scotch 7 partitions with threads and its partitions then vary from run to run; SCOTCH_PTHREAD_NUMBER=1 in
  the environment makes them reproducible (the tests set it).
*/
PetscErrorCode FGDDPartitionGraph(Mat A, PetscInt nparts, const char prefix[], PetscInt labels[], PetscInt *moved)
{
  PetscInt       *xa = NULL, *ad = NULL, nb = 0, bs;
  Mat             adj;
  MatPartitioning part;
  IS              is;
  const PetscInt *idx;
  PetscBool       isbaij;
  const char     *pre = prefix ? prefix : ""; /* the options' prefix in messages */

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &isbaij)); /* and its subtypes */
  PetscCall(FGDDAdjacency(A, isbaij, &nb, &xa, &ad));
  *moved = 0;
  if (nparts <= 1) {
    for (PetscInt v = 0; v < nb; v++) labels[v] = 0;
    PetscCall(PetscFree(xa));
    PetscCall(PetscFree(ad));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* MatCreateMPIAdj() takes xa and ad; keep a copy for the balancing */
  {
    PetscInt *xc, *ac;

    PetscCall(PetscMalloc2(nb + 1, &xc, xa[nb], &ac));
    PetscCall(PetscArraycpy(xc, xa, nb + 1));
    PetscCall(PetscArraycpy(ac, ad, xa[nb]));
    PetscCall(MatCreateMPIAdj(PETSC_COMM_SELF, nb, nb, xa, ad, NULL, &adj));
    PetscCall(MatPartitioningCreate(PETSC_COMM_SELF, &part));
    PetscCall(MatPartitioningSetAdjacency(part, adj));
    PetscCall(MatPartitioningSetNParts(part, nparts));
    { /* the first graph partitioner this PETSc has, looked up at run time (no branch that only some builds compile) */
      const char *const types[]                 = {MATPARTITIONINGPARMETIS, MATPARTITIONINGPTSCOTCH};
      PetscErrorCode (*create)(MatPartitioning) = NULL;
      PetscBool scotch, given;

      for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types) && !create; t++) {
        if (PETSCGILU_PTSCOTCH_MISMATCH && t == 1) break;
        PetscCall(PetscFunctionListFind(MatPartitioningList, types[t], &create));
        if (create) PetscCall(MatPartitioningSetType(part, types[t]));
      }
      PetscCall(PetscObjectSetOptionsPrefix((PetscObject)part, prefix));
      PetscCall(PetscOptionsHasName(NULL, prefix, "-mat_partitioning_type", &given)); /* (one of the user's own) */
      PetscCheck(create || given, PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has %s for the graph partitioning of PCFGDD: use -%spartitioner geometric with a DMDA matrix (or -%smat_partitioning_type)", PETSCGILU_PTSCOTCH_MISMATCH ? "no ParMETIS, and its PT-Scotch counts with other integers than its PetscInt (configure said so)" : "neither ParMETIS nor PT-Scotch", pre, pre);
      PetscCall(MatPartitioningSetFromOptions(part));
      PetscCall(PetscObjectTypeCompare((PetscObject)part, MATPARTITIONINGPTSCOTCH, &scotch));
      PetscCheck(!(PETSCGILU_PTSCOTCH_MISMATCH && scotch), PETSC_COMM_SELF, PETSC_ERR_SUP, "-%smat_partitioning_type ptscotch: this PETSc's PT-Scotch counts with other integers than its PetscInt (configure said so), so it hangs or returns anything; use -%spartitioner geometric with a DMDA matrix", pre, pre);
    }
    PetscCall(MatPartitioningApply(part, &is));
    PetscCall(ISGetIndices(is, &idx));
    for (PetscInt v = 0; v < nb; v++) {
      MatPartitioningType type;

      /* the balancing indexes by label: a partitioner built with other integer sizes than PETSc's (Debian 12's
         petsc64 links the 32-bit PT-Scotch) returns anything */
      if (PetscUnlikely(idx[v] < 0 || idx[v] >= nparts)) {
        PetscCall(MatPartitioningGetType(part, &type));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "MatPartitioning %s put block row %" PetscInt_FMT " in part %" PetscInt_FMT ", not in [0, %" PetscInt_FMT "): is it built with PETSc's integer size (PETSc has %d-bit indices)? Use another -%smat_partitioning_type, or -%spartitioner geometric with a DMDA matrix", type, v, idx[v], nparts, (int)(8 * sizeof(PetscInt)), pre, pre);
      }
      labels[v] = idx[v];
    }
    PetscCall(ISRestoreIndices(is, &idx));
    PetscCall(ISDestroy(&is));
    PetscCall(MatPartitioningDestroy(&part));
    PetscCall(MatDestroy(&adj));
    PetscCall(FGDDBalance(nb, xc, ac, nparts, labels, moved));
    PetscCall(PetscFree2(xc, ac));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ordering: subdomains (non-empty labels) in label order, block rows in increasing order inside each */
PetscErrorCode FGDDOrderingFromLabels(PetscInt nb, PetscInt nlabels, const PetscInt labels[], FGDDFactors *f)
{
  PetscInt *cnt, *map, nsub = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(nlabels, &cnt, nlabels, &map));
  for (PetscInt v = 0; v < nb; v++) {
    PetscCheck(labels[v] >= 0 && labels[v] < nlabels, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Subdomain label %" PetscInt_FMT " out of range", labels[v]);
    cnt[labels[v]]++;
  }
  for (PetscInt l = 0; l < nlabels; l++) map[l] = cnt[l] ? nsub++ : -1;
  f->nb   = nb;
  f->nsub = nsub;
  PetscCall(PetscMalloc1(nsub + 1, &f->subptr));
  PetscCall(PetscMalloc1(nb, &f->perm));
  f->subptr[0] = 0;
  f->maxsub    = 0;
  for (PetscInt l = 0; l < nlabels; l++)
    if (cnt[l]) {
      f->subptr[map[l] + 1] = f->subptr[map[l]] + cnt[l];
      f->maxsub             = PetscMax(f->maxsub, cnt[l]);
    }
  for (PetscInt l = 0; l < nlabels; l++)
    if (cnt[l]) cnt[l] = f->subptr[map[l]];
  for (PetscInt v = 0; v < nb; v++) f->perm[cnt[labels[v]]++] = v;
  PetscCall(PetscFree2(cnt, map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Algorithm 2 and Section 3.2: the local block A (SEQAIJ or SEQBAIJ) permuted by f->perm, without the entries
  between subdomains, into f->ai, aj, aa (row-major blocks), diag; a missing diagonal block is inserted as
  zero (it then gives a zero pivot)
*/
PetscErrorCode FGDDExtract(Mat A, FGDDFactors *f)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscScalar       *vb = NULL;
  PetscInt          *iperm, *sub, nb, bs, bs2, nnz = 0;
  PetscBool          isbaij, done;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQBAIJ, &isbaij)); /* and its subtypes */
  bs = 1;
  if (isbaij) PetscCall(MatGetBlockSize(A, &bs));
  bs2 = bs * bs;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, isbaij, &nb, &ia, &ja, &done));
  PetscCheck(done && nb == f->nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCFGDD cannot read the nonzero pattern of the local block");
  if (isbaij) {
    PetscCall(MatSeqBAIJGetArray(A, &vb));
    va = vb;
  } else PetscCall(MatSeqAIJGetArrayRead(A, &va));
  f->bs   = bs;
  f->bs2  = bs2;
  f->nnzA = ia[nb];
  PetscCall(PetscMalloc2(nb, &iperm, nb, &sub));
  for (PetscInt i = 0; i < nb; i++) iperm[f->perm[i]] = i;
  for (PetscInt s = 0; s < f->nsub; s++)
    for (PetscInt i = f->subptr[s]; i < f->subptr[s + 1]; i++) sub[i] = s;
  /* row lengths of the kept part, plus a diagonal where missing */
  if (!f->ai) PetscCall(PetscMalloc2(nb + 1, &f->ai, nb, &f->diag));
  f->ai[0] = 0;
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt  old = f->perm[i], lo = f->subptr[sub[i]], hi = f->subptr[sub[i] + 1], len = 0;
    PetscBool hasdiag = PETSC_FALSE;

    for (PetscInt k = ia[old]; k < ia[old + 1]; k++) {
      PetscInt c = iperm[ja[k]];

      if (c >= lo && c < hi) len++;
      if (c == i) hasdiag = PETSC_TRUE;
    }
    f->ai[i + 1] = f->ai[i] + len + (hasdiag ? 0 : 1);
  }
  nnz = f->ai[nb];
  PetscCall(PetscFree(f->aj));
  PetscCall(PetscFree(f->aa));
  PetscCall(PetscFree(f->dinv));
  PetscCall(PetscMalloc1(nnz, &f->aj));
  PetscCall(PetscMalloc1(nnz * bs2, &f->aa));
  PetscCall(PetscMalloc1(nb * bs2, &f->dinv));
  f->nnzkept = 0;
  for (PetscInt i = 0; i < nb; i++) {
    PetscInt  old = f->perm[i], lo = f->subptr[sub[i]], hi = f->subptr[sub[i] + 1], w = f->ai[i], *pos;
    PetscBool hasdiag = PETSC_FALSE;

    for (PetscInt k = ia[old]; k < ia[old + 1]; k++) {
      PetscInt c = iperm[ja[k]];

      if (c < lo || c >= hi) continue;
      if (c == i) hasdiag = PETSC_TRUE;
      f->aj[w] = c;
      /* BAIJ blocks are column-major, ours row-major */
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt q = 0; q < bs; q++) f->aa[w * bs2 + r * bs + q] = va[k * bs2 + q * bs + r];
      w++;
    }
    f->nnzkept += w - f->ai[i];
    if (!hasdiag) {
      f->aj[w] = i;
      for (PetscInt t = 0; t < bs2; t++) f->aa[w * bs2 + t] = 0;
      w++;
    }
    /* sort the row by permuted column, moving the blocks along */
    pos = f->aj + f->ai[i];
    {
      PetscInt len = w - f->ai[i];

      for (PetscInt a = 1; a < len; a++) /* insertion sort: rows are short */
        for (PetscInt b = a; b > 0 && pos[b - 1] > pos[b]; b--) {
          PetscInt  tj = pos[b];
          MatScalar tv[64], *x = f->aa + (f->ai[i] + b - 1) * bs2, *y = x + bs2;

          pos[b]     = pos[b - 1];
          pos[b - 1] = tj;
          PetscCall(PetscArraycpy(tv, x, bs2));
          PetscCall(PetscArraycpy(x, y, bs2));
          PetscCall(PetscArraycpy(y, tv, bs2));
        }
    }
    for (PetscInt k = f->ai[i]; k < f->ai[i + 1]; k++)
      if (f->aj[k] == i) f->diag[i] = k;
  }
  if (isbaij) PetscCall(MatSeqBAIJRestoreArray(A, &vb));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &va));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, isbaij, &nb, &ia, &ja, &done));
  PetscCall(PetscFree2(iperm, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGDDFactorsReset(FGDDFactors *f)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(f->subptr));
  PetscCall(PetscFree(f->perm));
  PetscCall(PetscFree2(f->ai, f->diag));
  PetscCall(PetscFree(f->aj));
  PetscCall(PetscFree(f->aa));
  PetscCall(PetscFree(f->dinv));
  PetscCall(PetscFree3(f->lrows, f->llev, f->lsub));
  PetscCall(PetscFree3(f->urows, f->ulev, f->usub));
  PetscCall(PetscFree3(f->ltp, f->lti, f->ltk));
  PetscCall(PetscFree3(f->utp, f->uti, f->utk));
  PetscCall(PetscMemzero(f, sizeof(*f)));
  f->zerorow = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
