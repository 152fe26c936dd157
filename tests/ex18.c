static char help[] = "-pc_structilu_distributed applies the global ILU(k)/IC(k) of natural ordering, bitwise: on each process the\n\
apply of the distributed PCSTRUCTILU, moved to natural ordering and gathered, equals the apply of a sequential\n\
PCSTRUCTILU of the whole grid (a DMDA on PETSC_COMM_SELF with the same values).\n\
  -dim <2|3>          : dimension of the DMDA (default 3)\n\
  -nx, -ny, -nz <n>   : grid points (default 9, 8, 6)\n\
  -stencils <list>    : star, box and/or xy9 (box within the x-y planes, star across them), width 1 (default star,box)\n\
  -dofs <list>        : unknowns per grid point (default 1,3,8)\n\
  -levels <list>      : ILU(k)/IC(k) levels (default 0,1)\n\
  -types <list>       : ilu and/or ic (IC: symmetric values) (default ilu,ic)\n\
  -baij               : BAIJ matrices (default AIJ)\n\
  -threads <n>        : host threads of each process of the distributed PC (PCStructILUSetThreads(); default 1)\n\
  -columns <k>        : also KSPMatSolve() (PCMatApply()) of k columns 2^j b, j < k: column j must be 2^j times the\n\
                        apply of b, bitwise (the pipeline's passes take groups of columns, each message every column\n\
                        of its group; default 0)\n\
  -transpose          : the transposed applies (KSPSolveTranspose(), PCApplyTranspose())\n\
  -tile <n>           : the distributed PC's cut (PCStructILUSetDistributedTile()): 0 the model's, -1 natural order,\n\
                        n tiles of n lines (3D) or points (2D) (default 0)\n\
  -zero_pivot <first|last> : the grid point (0,0,0) or the last one gets a zero pivot: every process must report\n\
                        DIVERGED_PC_FAILED (and the sequential PC too), no values are compared\n\
The parallel DMDA reads -da_processors_x/y/z. Prints only failures.\n\n";

/*
  Values: nonsymmetric and diagonally dominant, each a function of the global grid points (i,j,k) and components it
  couples, so that the sequential DMDA assembles the same matrix; every DoF block is dense (the stencil matrices of
  PCSTRUCTILU factor whole blocks). -types ic: the same with symmetric couplings (a function of the unordered edge).
  The comparison is ==, entry by entry: the distributed factors are those of one process, with the same arithmetic.
*/
#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilutest.h>

typedef enum {
  ZP_NONE,
  ZP_FIRST,
  ZP_LAST
} ZeroPivot;

static PetscInt  tile      = 0;           /* -tile */
static PetscBool transpose = PETSC_FALSE; /* -transpose */
static PetscInt  threads   = 1;           /* -threads */
static PetscInt  columns   = 0;           /* -columns */
static PetscBool planar    = PETSC_FALSE; /* -stencils xy9: the box stencil without the couplings across planes that leave the line */

/* the natural index of grid point (i,j,k) */
static PetscInt Nat(const DMDALocalInfo *g, PetscInt i, PetscInt j, PetscInt k)
{
  return (k * g->my + j) * g->mx + i;
}

/* the coupling of component c of point p to component e of its neighbour q (q != p) */
static PetscScalar Coupling(PetscBool sym, PetscInt p, PetscInt q, PetscInt c, PetscInt e)
{
  PetscInt  lo = PetscMin(p, q), hi = PetscMax(p, q);
  PetscReal w = 1.0 + 0.1 * ((7 * lo + 3 * hi) % 11);

  if (sym) return -w * (c == e ? 1.0 : 0.05 / (1 + c + e));
  return -w * (q > p ? 1.3 : 0.8) * (c == e ? 1.0 : 0.05 / (1 + c) + 0.02 * e);
}

/* A: the operator on the DMDA's points owned here (the whole grid on a sequential DMDA) */
static PetscErrorCode FillMatrix(DM da, DMDAStencilType st, PetscBool sym, ZeroPivot zp, Mat A)
{
  DMDALocalInfo g;
  PetscInt      dof, nmax;
  MatStencil   *col;
  PetscScalar  *v;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &g));
  dof  = g.dof;
  nmax = 27 * dof;
  PetscCall(PetscMalloc2(nmax, &col, nmax, &v));
  for (PetscInt k = g.zs; k < g.zs + g.zm; k++)
    for (PetscInt j = g.ys; j < g.ys + g.ym; j++)
      for (PetscInt i = g.xs; i < g.xs + g.xm; i++) {
        PetscInt  p    = Nat(&g, i, j, k);
        PetscBool zero = (zp == ZP_FIRST && p == 0) || (zp == ZP_LAST && p == g.mx * g.my * g.mz - 1);

        for (PetscInt c = 0; c < dof; c++) {
          MatStencil row = {k, j, i, c};
          PetscInt   nc  = 0, nd;
          PetscReal  sum = 0;

          for (PetscInt dk = (g.dim > 2 ? -1 : 0); dk <= (g.dim > 2 ? 1 : 0); dk++)
            for (PetscInt dj = -1; dj <= 1; dj++)
              for (PetscInt di = -1; di <= 1; di++) {
                PetscInt ii = i + di, jj = j + dj, kk = k + dk, q;

                if (!di && !dj && !dk) continue;
                if (st == DMDA_STENCIL_STAR && (di != 0) + (dj != 0) + (dk != 0) > 1) continue;
                if (planar && dk && (di || dj)) continue;
                if (ii < 0 || jj < 0 || kk < 0 || ii >= g.mx || jj >= g.my || kk >= g.mz) continue;
                q = Nat(&g, ii, jj, kk);
                for (PetscInt e = 0; e < dof; e++) {
                  col[nc].k = kk;
                  col[nc].j = jj;
                  col[nc].i = ii;
                  col[nc].c = e;
                  v[nc]     = Coupling(sym, p, q, c, e);
                  /* zero pivot: the point's lower couplings and its diagonal block are zero (entries kept); the last point's
                     upper couplings too (IC's symmetry) */
                  if ((zero && q < p) || (zp == ZP_LAST && q == g.mx * g.my * g.mz - 1)) v[nc] = 0;
                  sum += PetscAbsScalar(v[nc]);
                  nc++;
                }
              }
          nd = nc;
          for (PetscInt e = 0; e < dof; e++) {
            col[nc].k = k;
            col[nc].j = j;
            col[nc].i = i;
            col[nc].c = e;
            if (e != c) v[nc] = sym ? 0.1 / (1 + c + e) : 0.1 / (1 + c) - 0.03 * e;
            else v[nc] = 0;
            sum += PetscAbsScalar(v[nc]);
            nc++;
          }
          v[nd + c] = 1.0 + sum + 0.1 * (p % 5);
          if (zero)
            for (PetscInt e = 0; e < dof; e++) v[nd + e] = 0;
          PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(col, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b: a function of the global grid point and component */
static PetscErrorCode FillRhs(DM da, Vec b)
{
  DMDALocalInfo g;
  PetscScalar  *a;
  PetscInt      n = 0;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &g));
  PetscCall(VecGetArray(b, &a));
  for (PetscInt k = g.zs; k < g.zs + g.zm; k++)
    for (PetscInt j = g.ys; j < g.ys + g.ym; j++)
      for (PetscInt i = g.xs; i < g.xs + g.xm; i++)
        for (PetscInt c = 0; c < g.dof; c++) a[n++] = 1.0 + ((13 * Nat(&g, i, j, k) + 5 * c) % 17) / 17.0 - 0.03 * c;
  PetscCall(VecRestoreArray(b, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  -columns k: KSPMatSolve() of the k columns 2^j b (PCMatApply(): the distributed PC's pipeline one pass per group of
  columns, each message carrying every column of the group) against 2^j x, x the apply of b: the same bits (scaling by
  a power of 2 is exact), so a column that took another column's ghost values, or none, differs. *bad: the entries that
  differ.
*/
static PetscErrorCode SolveBlock(KSP ksp, Vec b, Vec x, PetscInt *bad)
{
  Mat                B, X;
  PetscInt           m, M, ld;
  const PetscScalar *xa, *ya;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(b, &m));
  PetscCall(VecGetSize(b, &M));
  PetscCall(MatCreateDense(PetscObjectComm((PetscObject)b), m, PETSC_DECIDE, M, columns, NULL, &B));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  for (PetscInt j = 0; j < columns; j++) {
    Vec c;

    PetscCall(MatDenseGetColumnVecWrite(B, j, &c));
    PetscCall(VecAXPBY(c, PetscPowReal(2.0, (PetscReal)j), 0.0, b));
    PetscCall(MatDenseRestoreColumnVecWrite(B, j, &c));
  }
  PetscCall(KSPMatSolve(ksp, B, X));
  *bad = 0;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(MatDenseGetLDA(X, &ld));
  PetscCall(MatDenseGetArrayRead(X, &ya));
  for (PetscInt j = 0; j < columns; j++) {
    const PetscReal s = PetscPowReal(2.0, (PetscReal)j);

    for (PetscInt r = 0; r < m; r++) *bad += ya[j * ld + r] != s * xa[r];
  }
  PetscCall(MatDenseRestoreArrayRead(X, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = B^{-1} b through a KSPPREONLY with PCSTRUCTILU on A (distributed or not); its converged reason; with -columns
   (distributed, not transposed, converged) the block's entries that differ from the apply's in *bad */
static PetscErrorCode Solve(DM da, Mat A, PetscBool dist, PCStructILUType type, PetscInt levels, Vec b, Vec x, KSPConvergedReason *reason, PetscInt *bad)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSTRUCTILU));
  PetscCall(PCStructILUSetType(pc, type));
  PetscCall(PCStructILUSetLevels(pc, levels));
  PetscCall(PCStructILUSetDistributed(pc, dist));
  if (dist) PetscCall(PCStructILUSetDistributedTile(pc, tile));
  if (dist) PetscCall(PCStructILUSetThreads(pc, threads));
  if (transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  *bad = 0;
  if (dist && columns > 0 && !transpose && *reason > 0) PetscCall(SolveBlock(ksp, b, x, bad));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateDA(MPI_Comm comm, PetscInt dim, const PetscInt n[3], DMDAStencilType st, PetscInt dof, PetscBool baij, PetscBool fromoptions, DM *da)
{
  PetscFunctionBegin;
  if (dim == 2) PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n[0], n[1], PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, da));
  else PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n[0], n[1], n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, NULL, da));
  if (fromoptions) PetscCall(DMSetFromOptions(*da)); /* -da_processors_x/y/z */
  PetscCall(DMSetMatType(*da, baij ? MATBAIJ : MATAIJ));
  if (planar) PetscCall(DMSetMatrixPreallocateOnly(*da, PETSC_TRUE)); /* the pattern of the entries set, not the DMDA's box */
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the problem on comm (PETSC_COMM_WORLD: the distributed PC; PETSC_COMM_SELF: the sequential PC of the whole grid) and its solve */
typedef struct {
  DM                 da;
  Mat                A;
  Vec                b, x;
  KSPConvergedReason reason;
  PetscInt           blockbad; /* -columns: entries of the block that differ from the apply's */
} Problem;

static PetscErrorCode ProblemSolve(MPI_Comm comm, PetscInt dim, const PetscInt n[3], DMDAStencilType st, PetscInt dof, PetscInt levels, PCStructILUType type, PetscBool baij, ZeroPivot zp, Problem *pb)
{
  const PetscBool dist = (PetscBool)(comm != PETSC_COMM_SELF);

  PetscFunctionBegin;
  PetscCall(CreateDA(comm, dim, n, st, dof, baij, dist, &pb->da));
  PetscCall(DMCreateMatrix(pb->da, &pb->A));
  PetscCall(FillMatrix(pb->da, st, (PetscBool)(type == PC_STRUCTILU_IC), zp, pb->A));
  PetscCall(DMCreateGlobalVector(pb->da, &pb->b));
  PetscCall(VecDuplicate(pb->b, &pb->x));
  PetscCall(FillRhs(pb->da, pb->b));
  PetscCall(Solve(pb->da, pb->A, dist, type, levels, pb->b, pb->x, &pb->reason, &pb->blockbad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemDestroy(Problem *pb)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&pb->b));
  PetscCall(VecDestroy(&pb->x));
  PetscCall(MatDestroy(&pb->A));
  PetscCall(DMDestroy(&pb->da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one configuration: the distributed apply against the sequential one; *fail counts the failures (printed) */
static PetscErrorCode RunCase(PetscInt dim, const PetscInt n[3], DMDAStencilType st, PetscInt dof, PetscInt levels, PCStructILUType type, PetscBool baij, ZeroPivot zp, PetscInt *fail)
{
  Problem            par, seq;
  DM                 da;
  Vec                x, nat, all, sx;
  VecScatter         toall;
  KSPConvergedReason reason, sreason;
  PetscMPIInt        rank;
  char               what[256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSNPrintf(what, sizeof(what), "dim %" PetscInt_FMT " %s dof %" PetscInt_FMT " %s(%" PetscInt_FMT ")%s%s%s", dim, st == DMDA_STENCIL_STAR ? "star" : (planar ? "xy9" : "box"), dof, PCStructILUTypes[type], levels, baij ? " baij" : "", zp == ZP_NONE ? "" : (zp == ZP_FIRST ? " zero pivot first" : " zero pivot last"), transpose ? " transposed" : ""));
  PetscCall(ProblemSolve(PETSC_COMM_WORLD, dim, n, st, dof, levels, type, baij, zp, &par)); /* the distributed PC */
  PetscCall(ProblemSolve(PETSC_COMM_SELF, dim, n, st, dof, levels, type, baij, zp, &seq));  /* the sequential PC of the whole grid, on each process */
  da      = par.da;
  x       = par.x;
  sx      = seq.x;
  reason  = par.reason;
  sreason = seq.reason;
  if (zp != ZP_NONE) {
    if (reason != KSP_DIVERGED_PC_FAILED || sreason != KSP_DIVERGED_PC_FAILED) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: converged reason %s (sequential %s), expected DIVERGED_PC_FAILED\n", rank, what, KSPConvergedReasons[reason], KSPConvergedReasons[sreason]));
      (*fail)++;
    }
  } else {
    const PetscScalar *a, *s;
    PetscInt           m, bad = 0, first = -1;

    PetscCall(DMDACreateNaturalVector(da, &nat));
    PetscCall(DMDAGlobalToNaturalBegin(da, x, INSERT_VALUES, nat));
    PetscCall(DMDAGlobalToNaturalEnd(da, x, INSERT_VALUES, nat));
    PetscCall(VecScatterCreateToAll(nat, &toall, &all));
    PetscCall(VecScatterBegin(toall, nat, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(toall, nat, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetLocalSize(all, &m));
    PetscCall(VecGetArrayRead(all, &a));
    PetscCall(VecGetArrayRead(sx, &s));
    for (PetscInt r = 0; r < m; r++)
      if (a[r] != s[r]) {
        if (first < 0) first = r;
        bad++;
      }
    if (par.blockbad) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: %" PetscInt_FMT " entries of the block of %" PetscInt_FMT " columns (KSPMatSolve()) differ from 2^j times the apply\n", rank, what, par.blockbad, columns));
      (*fail)++;
    }
    if (reason < 0 || sreason < 0 || bad) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: %" PetscInt_FMT " of %" PetscInt_FMT " entries differ from the sequential apply", rank, what, bad, m));
      if (bad) PetscCall(PetscPrintf(PETSC_COMM_SELF, " (first: row %" PetscInt_FMT ", %.17g vs %.17g)", first, (double)PetscRealPart(a[first]), (double)PetscRealPart(s[first])));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "; reasons %s, %s\n", KSPConvergedReasons[reason], KSPConvergedReasons[sreason]));
      (*fail)++;
    }
    PetscCall(VecRestoreArrayRead(sx, &s));
    PetscCall(VecRestoreArrayRead(all, &a));
    PetscCall(VecScatterDestroy(&toall));
    PetscCall(VecDestroy(&all));
    PetscCall(VecDestroy(&nat));
  }
  PetscCall(ProblemDestroy(&seq));
  PetscCall(ProblemDestroy(&par));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 3, n[3] = {9, 8, 6}, dofs[8] = {1, 3, 8}, ndofs = 3, levels[4] = {0, 1}, nlevels = 2, nst = 2, nty = 2, fail = 0, nrun = 0;
  char       *stn[2] = {NULL, NULL}, *tyn[2] = {NULL, NULL};
  PetscBool   baij  = PETSC_FALSE, set;
  const char *zpn[] = {"none", "first", "last", "ZeroPivot", "ZP_", NULL};
  PetscEnum   zp    = (PetscEnum)ZP_NONE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex18 options", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-nx", "points in x", NULL, n[0], &n[0], NULL));
  PetscCall(PetscOptionsInt("-ny", "points in y", NULL, n[1], &n[1], NULL));
  PetscCall(PetscOptionsInt("-nz", "points in z", NULL, n[2], &n[2], NULL));
  PetscCall(PetscOptionsStringArray("-stencils", "star,box", NULL, stn, &nst, &set));
  if (!set) nst = 2;
  /* (an array option that is not given sets its count to 0) */
  PetscCall(PetscOptionsIntArray("-dofs", "DoF list", NULL, dofs, &ndofs, &set));
  if (!set) ndofs = 3;
  PetscCall(PetscOptionsIntArray("-levels", "levels list", NULL, levels, &nlevels, &set));
  if (!set) nlevels = 2;
  PetscCall(PetscOptionsStringArray("-types", "ilu,ic", NULL, tyn, &nty, &set));
  if (!set) nty = 2;
  PetscCall(PetscOptionsBool("-baij", "BAIJ", NULL, baij, &baij, NULL));
  PetscCall(PetscOptionsInt("-tile", "the distributed cut", NULL, tile, &tile, NULL));
  PetscCall(PetscOptionsBool("-transpose", "transposed applies", NULL, transpose, &transpose, NULL));
  PetscCall(PetscOptionsInt("-threads", "threads of each process", NULL, threads, &threads, NULL));
  PetscCall(PetscOptionsInt("-columns", "KSPMatSolve() of this many columns too", NULL, columns, &columns, NULL));
  PetscCall(PetscOptionsEnum("-zero_pivot", "zero pivot", NULL, zpn, zp, &zp, NULL));
  PetscOptionsEnd();
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim 2 or 3");
  for (PetscInt s = 0; s < nst; s++) {
    DMDAStencilType st = DMDA_STENCIL_STAR;

    if (stn[s]) {
      PetscBool box;

      PetscCall(PetscStrcmp(stn[s], "box", &box));
      PetscCall(PetscStrcmp(stn[s], "xy9", &planar));
      if (box || planar) st = DMDA_STENCIL_BOX;
    } else st = s ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
    for (PetscInt t = 0; t < nty; t++) {
      PCStructILUType type = PC_STRUCTILU_ILU;

      if (tyn[t]) {
        PetscBool ic;

        PetscCall(PetscStrcmp(tyn[t], "ic", &ic));
        if (ic) type = PC_STRUCTILU_IC;
      } else type = t ? PC_STRUCTILU_IC : PC_STRUCTILU_ILU;
      for (PetscInt d = 0; d < ndofs; d++)
        for (PetscInt l = 0; l < nlevels; l++) {
          PetscCall(RunCase(dim, n, st, dofs[d], levels[l], type, baij, (ZeroPivot)zp, &fail));
          nrun++;
        }
    }
  }
  if (!nrun) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "No configuration ran\n"));
    fail++;
  }
  for (PetscInt s = 0; s < 2; s++) PetscCall(PetscFree(stn[s]));
  for (PetscInt t = 0; t < 2; t++) PetscCall(PetscFree(tyn[t]));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}

/*TEST

   # the distributed apply equals the sequential one bitwise: star and box, DoF 1, 3, 8, ILU(0), ILU(1), IC(0), IC(1);
   # with -columns 3 also the blocks (KSPMatSolve(): the pipeline's passes by groups of columns, 2 + 1 at star DoF 1,
   # one of 3 where a point's factors are larger), each column bitwise 2^j times the apply
   testset:
     output_file: output/empty.out

     test:
       suffix: 2d
       nsize: {{1 2 3}}
       args: -dim 2 -columns 3

     test:
       suffix: 3d
       nsize: {{1 2 3}}
       args: -dim 3 -columns 3

     # every cut of a 1D process grid
     test:
       suffix: 2d_px
       nsize: {{2 3}}
       args: -dim 2 -da_processors_y 1

     test:
       suffix: 2d_py
       nsize: {{2 3}}
       args: -dim 2 -da_processors_x 1

     test:
       suffix: 3d_pz
       nsize: {{2 3}}
       args: -dim 3 -da_processors_x 1 -da_processors_y 1

     test:
       suffix: 3d_py
       nsize: {{2 3}}
       args: -dim 3 -da_processors_x 1 -da_processors_z 1

     test:
       suffix: 3d_px
       nsize: {{2 3}}
       args: -dim 3 -da_processors_y 1 -da_processors_z 1

     # the cut forced: natural order and tiles of 2 lines or points; in 3D with star stencils the sweeps interleave
     # groups of 3 (DoF 1) or 2 (DoF 2) lines, one plane apart, also in natural order where the messages go up the
     # ranks (a cut in x or y)
     test:
       suffix: 3d_cut
       nsize: {{2 3}}
       args: -dim 3 -ny 12 -nz 5 -dofs 1,2 -tile {{-1 2}} -da_processors_x 1 -da_processors_z 1 -columns 3

     test:
       suffix: 3d_cut_pz
       nsize: 2
       args: -dim 3 -ny 12 -nz 6 -dofs 1,2 -tile {{-1 2}} -da_processors_x 1 -da_processors_y 1

     test:
       suffix: 3d_cut_p2x2
       nsize: 4
       args: -dim 3 -nx 6 -ny 12 -nz 4 -dofs 1,2 -levels 0 -tile {{-1 2}} -da_processors_x 2 -da_processors_y 2

     # a box stencil within the x-y planes and star across them has no skew (groups) but, cut in x, forward messages
     # both ways (x and the line below): the groups' key check and the rank-order check both fail, so no groups
     test:
       suffix: 3d_cut_xy9
       nsize: 2
       args: -dim 3 -stencils xy9 -nx 8 -ny 12 -nz 4 -dofs 1 -levels 0 -tile {{-1 2}} -da_processors_y 1 -da_processors_z 1

     test:
       suffix: 2d_cut
       nsize: {{2 3}}
       args: -dim 2 -nx 12 -dofs 1,3 -tile {{-1 2}} -columns 3

     # the transposed applies (KSPSolveTranspose(): the pipeline's transposed sweeps; ILU exchanges the lower blocks of
     # the boundary rows after the factorization)
     test:
       suffix: transpose
       nsize: {{2 3}}
       args: -transpose -dim {{2 3}} -dofs 1,3

     test:
       suffix: transpose_cut
       nsize: {{2 3}}
       args: -transpose -dim 3 -ny 12 -nz 5 -dofs 1,2 -tile {{-1 2}} -da_processors_x 1 -da_processors_z 1

     test:
       suffix: transpose_baij
       nsize: 3
       args: -transpose -dim {{2 3}} -baij -dofs 3 -da_processors_x 1

     test:
       suffix: transpose_zero_pivot
       nsize: 3
       args: -transpose -zero_pivot {{first last}} -dim 3 -dofs 1 -levels 0,1

     # threads inside each process (-threads: PCStructILUSetThreads()): segments of the box along x, each a step behind
     # the one before; -gilu_schedule_delay makes the leading thread start late and the last one fall behind after its
     # first step, so that a missing wait reads values not yet written (the box stencils read the next segment's
     # earlier lines). Factorization, forward and backward sweeps, plain and transposed.
     test:
       suffix: threads
       nsize: 2
       args: -threads {{2 3}} -nx 24 -dim {{2 3}} -dofs 1,3 -gilu_schedule_delay 2000 -columns 3

     test:
       suffix: threads_transpose
       nsize: 2
       args: -threads 2 -transpose -nx 24 -dim {{2 3}} -dofs 1,3 -gilu_schedule_delay 2000

     test:
       suffix: threads_cut
       nsize: 3
       args: -threads 2 -nx 20 -ny 12 -nz 5 -dim 3 -dofs 1 -tile {{-1 2}} -da_processors_x 1 -da_processors_z 1 -gilu_schedule_delay 2000 -columns 3

     # 2D process grids (4 processes) and a 3D one (8 processes), smaller grids
     test:
       suffix: 2d_p2x2
       nsize: 4
       args: -dim 2 -da_processors_x 2 -da_processors_y 2 -dofs 1,3 -columns 3

     test:
       suffix: 3d_p2x2
       nsize: 4
       args: -dim 3 -da_processors_x 2 -da_processors_y {{1 2}} -nx 6 -ny 5 -nz 4 -dofs 1,3 -columns 3

     test:
       suffix: 3d_p2x2x2
       nsize: 8
       args: -dim 3 -da_processors_x 2 -da_processors_y 2 -da_processors_z 2 -nx 5 -ny 4 -nz 4 -dofs 1,3 -levels 0

     # BAIJ
     test:
       suffix: baij
       nsize: 3
       args: -dim {{2 3}} -baij -dofs 3,8

     # a zero pivot on the first or on the last process: all of them report DIVERGED_PC_FAILED, none hangs
     test:
       suffix: zero_pivot
       nsize: {{1 3}}
       args: -zero_pivot {{first last}} -dim {{2 3}} -dofs 1,3 -levels 0,1

TEST*/
