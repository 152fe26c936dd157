static char help[] = "Bad-input and edge-case matrices for structured-grid preconditioners, solved with the KSP and PC\n\
chosen in the options database.\n\n\
  -case <name> : nonstencil     AIJ matrix with a random sparse pattern, no DM\n\
                 zeropivot      6x6x6 star7 DMDA matrix, one interior row with a zero diagonal and only upper neighbours\n\
                 nan            6x6x6 star7 DMDA matrix with one NaN off-diagonal entry\n\
                 wrongsize      6x6x6 star7 DMDA matrix copied so that it does not know its DM (for wrong grid options)\n\
                 nodm_irregular tridiagonal plus random long-range entries, no DM\n\
                 star7          6x6x6 star7 DMDA matrix, unaltered (diagonally dominant)\n\
                 nonsquare      AIJ matrix of n rows and n + 3 columns (tridiagonal and a last column), no DM (-ksp_type lsqr)\n\
                 sym            6x6x6 symmetric star7 DMDA matrix (7 on the diagonal, -1 off it), altered by -alter\n\
                 zerodiag       6x6x6 star7 DMDA matrix whose diagonal entry (62,62) is a stored 0; ILU(0)'s pivot there is not 0\n\
  -alter <a>   : sym: none, lower (the upper triangle dropped), upper (the lower dropped), noyplus (the +y couplings\n\
                 dropped), far (one entry (0,n-1) added), denserow (row 0 full), roundoff (one entry off by 1e-14),\n\
                 fe (every off-diagonal pair (i,j), (j,i) apart in the last bits, ~1e-14), convect (lower -1.3, upper -0.7),\n\
                 negdiag (the diagonal entry of row 100 is -7: symmetric, not positive definite; IC(0)'s pivot there is\n\
                 negative), huge (every entry times 1e40, beyond single precision's range), zerodiag (the diagonal entry\n\
                 of row 0 is 0: every ILU's first pivot is zero)\n\
  -from_upper  : sym: the preconditioner made from the symmetric matrix of the (altered) upper triangle, made here\n\
                 (what PETSc's ICC reads of the matrix), the operator unchanged\n\
  -sym_bs <bs> : sym: the matrix (and -from_upper's) MATBAIJ of block size bs (a divisor of 216; default 1: MATAIJ)\n\
  -realter <a> : sym: after the solve, the values altered as <a> says (the same pattern), and solved again\n\
  -no_dm       : do not give the DMDA to the KSP (the PC then finds the grid in the pattern, or none)\n\
  -n <n>       : matrix size of nonstencil, nodm_irregular and empty (default 200)\n\
  -scale <s>   : multiply the matrix by s (default 1; 1e40 leaves single precision's range)\n\
  -print_pc_reason   : after each solve, print PCGetFailedReason() (the largest over the processes) whatever the KSP reason\n\
  -catch       : an error of KSPSetUp() is caught: the program prints its code and frees everything (with\n\
                 -malloc_dump: nothing an error path allocated may stay)\n\
  -catch_again : with -catch, KSPSetUp() once more after the caught error (it must fail the same way)\n\
The DMDA grid of zeropivot, nan, wrongsize and star7 can be changed with -da_grid_x/y/z.\n\n";

/*
  Test driver for the failure paths of structured-grid preconditioners (petscgilu's PCSTRUCTILU and friends).

  Of petscgilu it only calls PetscGILUInitializePackage(). Each -case builds a matrix that a structured-grid preconditioner must either
  handle, reject with a PETSc error (the program then exits nonzero, which some tests expect), or report as a
  numerical breakdown (KSP reason DIVERGED_PC_FAILED). It solves A x = 1 from a zero initial guess with the
  KSP and PC from the options database (GMRES by default), never errors on non-convergence, and prints the
  iterations, the KSP converged reason and, when the PC failed, the PC failed reason.

  The values are deterministic functions of the global indices, so they do not depend on the number of ranks.
  The DMDA cases (zeropivot, nan, star7) attach the DMDA to the KSP with KSPSetDM() and GILUKSPSetDMActiveAll(ksp, PETSC_FALSE);
  wrongsize and the AIJ cases give the preconditioner no DM at all.
*/

#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

/* Deterministic hash of (a, b, salt) to [0, 1) (splitmix64 finalizer) */
static PetscReal Hash01(uint64_t a, uint64_t b, uint64_t salt)
{
  uint64_t z = a * 0x9E3779B97F4A7C15ULL + b * 0xC2B2AE3D27D4EB4FULL + salt * 0x165667B19E3779F9ULL + 0x27D4EB2F165667C5ULL;

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

/*
  A general AIJ matrix of size n without a DM. Each row r has off-diagonal entries in [-1,0]:
  irregular = PETSC_FALSE: four random columns; irregular = PETSC_TRUE: r-1 and r+1, and with probability 1/2
  one random long-range column. The diagonal is 1 + the sum of the absolute values of the row.
*/
static PetscErrorCode CreateGeneralMatrix(PetscInt n, PetscBool irregular, Mat *A)
{
  PetscInt    rstart, rend, r, k, cols[6], ncols;
  PetscScalar vals[6];
  PetscReal   sum;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6, NULL, 5, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (r = rstart; r < rend; r++) {
    ncols = 0;
    if (irregular) {
      if (r > 0) cols[ncols++] = r - 1;
      if (r < n - 1) cols[ncols++] = r + 1;
      if (Hash01((uint64_t)r, 0, 3) < 0.5) cols[ncols++] = (PetscInt)(Hash01((uint64_t)r, 1, 3) * n);
    } else {
      for (k = 0; k < 4; k++) cols[ncols++] = (PetscInt)(Hash01((uint64_t)r, (uint64_t)k, 2) * n);
    }
    for (sum = 0.0, k = 0; k < ncols; k++) {
      if (cols[k] == r) { /* a random column hit the diagonal: count it as off-diagonal anyway */
        vals[k] = 0.0;
        continue;
      }
      vals[k] = -Hash01((uint64_t)r, (uint64_t)cols[k], 4);
      sum += PetscAbsScalar(vals[k]);
    }
    cols[ncols]   = r;
    vals[ncols++] = 1.0 + sum;
    /* ADD_VALUES: random columns may repeat, which keeps the row diagonally dominant */
    PetscCall(MatSetValues(*A, 1, &r, ncols, cols, vals, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  A tridiagonal AIJ matrix of size n without a DM (row r: -1 at r-1, -0.5 at r+1, 2 on the diagonal), the rows
  split so that the first process owns none (on one process it owns them all; n = 0 gives a 0x0 matrix).
*/
static PetscErrorCode CreateEmptyRankMatrix(PetscInt n, Mat *A)
{
  PetscMPIInt rank, size;
  PetscInt    m, rstart, rend, r, cols[3], ncols;
  PetscScalar vals[3];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) m = n;
  else m = rank == 0 ? 0 : n / (size - 1) + (rank - 1 < n % (size - 1) ? 1 : 0);
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, m, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (r = rstart; r < rend; r++) {
    ncols = 0;
    if (r > 0) {
      cols[ncols]   = r - 1;
      vals[ncols++] = -1.0;
    }
    cols[ncols]   = r;
    vals[ncols++] = 2.0;
    if (r < n - 1) {
      cols[ncols]   = r + 1;
      vals[ncols++] = -0.5;
    }
    PetscCall(MatSetValues(*A, 1, &r, ncols, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* An AIJ matrix of n rows and n + 3 columns without a DM: row r holds -1 at r-1 and r+1, 3 at r and 0.5 at column n + 2 */
static PetscErrorCode CreateNonSquareMatrix(PetscInt n, Mat *A)
{
  PetscInt    rstart, rend;
  PetscScalar vals[4] = {-1.0, 3.0, -1.0, 0.5};

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n + 3));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 4, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 4, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt cols[4] = {r - 1, r, r + 1, n + 2};

    PetscCall(MatSetValues(*A, 1, &r, r ? 4 : 3, r ? cols : cols + 1, r ? vals : vals + 1, INSERT_VALUES)); /* row 0: no column -1 */
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Entry (r,c) = v of B; fromupper: of the symmetric matrix of the upper triangle instead (c >= r also set at (c,r), c < r dropped) */
static PetscErrorCode SetEntry(Mat B, PetscBool fromupper, PetscInt r, PetscInt c, PetscScalar v)
{
  PetscFunctionBeginUser;
  if (fromupper && c < r) PetscFunctionReturn(0);
  PetscCall(MatSetValue(B, r, c, v, INSERT_VALUES));
  if (fromupper && c > r) PetscCall(MatSetValue(B, c, r, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* The values of the matrix of -case sym (M x N x P grid, natural ordering), altered as -alter says, into B */
static PetscErrorCode FillSymmetricMatrix(const char *alter, PetscBool fromupper, PetscInt M, PetscInt N, PetscInt P, Mat B)
{
  PetscInt  n = M * N * P, rstart, rend;
  PetscBool lower, upper, noyplus, far, denserow, roundoff, fe, convect, negdiag, huge, zerodiag;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(alter, "lower", &lower));
  PetscCall(PetscStrcmp(alter, "upper", &upper));
  PetscCall(PetscStrcmp(alter, "noyplus", &noyplus));
  PetscCall(PetscStrcmp(alter, "far", &far));
  PetscCall(PetscStrcmp(alter, "denserow", &denserow));
  PetscCall(PetscStrcmp(alter, "roundoff", &roundoff));
  PetscCall(PetscStrcmp(alter, "fe", &fe));
  PetscCall(PetscStrcmp(alter, "convect", &convect));
  PetscCall(PetscStrcmp(alter, "negdiag", &negdiag));
  PetscCall(PetscStrcmp(alter, "huge", &huge));
  PetscCall(PetscStrcmp(alter, "zerodiag", &zerodiag));
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt shift[6] = {-M * N, -M, -1, 1, M, M * N};
    PetscInt       i = r % M, j = (r / M) % N, k = r / (M * N);
    PetscBool      in[6] = {k > 0, j > 0, i > 0, i < M - 1, j < N - 1, k < P - 1};

    for (PetscInt s = 0; s < 6; s++) {
      const PetscInt c = r + shift[s];
      PetscScalar    v = -1.0;

      if (!in[s] || (lower && s > 2) || (upper && s < 3) || (noyplus && s == 4)) continue;
      if (roundoff && r == 0 && s == 3) v = -1.0 + 1e-14;
      if (fe) v = -1.0 + 1e-14 * (PetscReal)((3 * r + 5 * c) % 7 - 3); /* (r,c) and (c,r) differ in the last bits, as assembled element matrices do */
      if (convect) v = s < 3 ? -1.3 : -0.7;                            /* upwinded: the pattern symmetric, the values not */
      PetscCall(SetEntry(B, fromupper, r, c, huge ? 1e40 * v : v));
    }
    PetscCall(SetEntry(B, fromupper, r, r, negdiag && r == 100 ? -7.0 : (zerodiag && r == 0 ? 0.0 : (huge ? 7e40 : 7.0))));
    if (far && r == 0) PetscCall(SetEntry(B, fromupper, 0, n - 1, -0.5));
    if (denserow && r == 0)
      for (PetscInt c = 0; c < n; c++) PetscCall(SetEntry(B, fromupper, 0, c, c ? -0.01 : 7.0));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The symmetric star7 matrix of -case sym on a 6x6x6 DMDA, altered as -alter says (in the natural ordering, n = 216); with P,
   also the symmetric matrix of its upper triangle (-from_upper); bs > 1: MATBAIJ of that block size (-sym_bs) */
static PetscErrorCode CreateSymmetricMatrix(const char *alter, PetscInt bs, DM *da, Mat *A, Mat *P)
{
  PetscInt  M, N, K, n;
  PetscBool denserow;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 6, 6, 6, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMDAGetInfo(*da, NULL, &M, &N, &K, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PetscStrcmp(alter, "denserow", &denserow));
  n = M * N * K;
  /* assembled in the natural ordering (one process: the DMDA's), then given the DMDA as DMCreateMatrix() would */
  for (PetscInt t = 0; t < (P ? 2 : 1); t++) {
    Mat B;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
    PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetBlockSize(B, bs));
    PetscCall(MatSetType(B, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(B, denserow ? n : 7, NULL));
    PetscCall(MatMPIAIJSetPreallocation(B, denserow ? n : 7, NULL, denserow ? n : 7, NULL));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* -from_upper: the far entry mirrored */
    PetscCall(FillSymmetricMatrix(alter, (PetscBool)(t == 1), M, N, K, B));
    if (bs > 1) PetscCall(MatConvert(B, MATBAIJ, MAT_INPLACE_MATRIX, &B));
    if (t == 0) *A = B;
    else *P = B;
  }
  PetscFunctionReturn(0);
}

/*
  A star7 matrix on a 3D DMDA (default 6x6x6, 1 dof), off-diagonal entries in [-1,0], diagonal 1 + sum of the
  absolute values of the row. The point bad = (2,2,2) (interior) is altered:
    zeropivot: its row keeps only its three upper neighbours (value -1) and an explicitly stored 0 diagonal, so the
               first zero pivot of ILU(0) in natural ordering is exactly 0;
    nan:       its entry coupling to the lower x neighbour is NaN;
  zerodiag: the diagonal entry of row 62 = (2,4,1) is a stored 0 (its ILU(0) pivot, 0 minus the products of its lower
  neighbours, is not).
*/
static PetscErrorCode CreateStar7Matrix(PetscBool zeropivot, PetscBool nan, PetscBool zerodiag, DM *da, Mat *A)
{
  PetscInt M, N, P, xs, ys, zs, xm, ym, zm, i, j, k, c, n;
  // clang-format off: the offsets on one line
  const PetscInt off[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  // clang-format on
  MatStencil  row, cols[7];
  PetscScalar vals[7];
  PetscReal   sum;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 6, 6, 6, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMSetMatrixPreallocateOnly(*da, PETSC_TRUE));
  PetscCall(DMDAGetInfo(*da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(M > 3 && N > 3 && P > 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "The grid needs at least 4 points in each direction");
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetCorners(*da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscBool  isbad = (PetscBool)(i == 2 && j == 2 && k == 2);
        PetscInt64 p     = i + (PetscInt64)M * (j + (PetscInt64)N * k);
        PetscInt   cdiag = -1;

        row.i = i;
        row.j = j;
        row.k = k;
        row.c = 0;
        for (n = 0, sum = 0.0, c = 0; c < 7; c++) {
          PetscInt   ii = i + off[c][0], jj = j + off[c][1], kk = k + off[c][2];
          PetscInt64 q = ii + (PetscInt64)M * (jj + (PetscInt64)N * kk);

          if (ii < 0 || ii >= M || jj < 0 || jj >= N || kk < 0 || kk >= P) continue;
          if (zeropivot && isbad && off[c][0] + off[c][1] + off[c][2] < 0) continue; /* no lower neighbours */
          cols[n].i = ii;
          cols[n].j = jj;
          cols[n].k = kk;
          cols[n].c = 0;
          if (c == 3) cdiag = n;
          else {
            vals[n] = (zeropivot && isbad) ? -1.0 : -Hash01((uint64_t)p, (uint64_t)q, 0);
            sum += PetscAbsScalar(vals[n]);
          }
          n++;
        }
        vals[cdiag] = ((zeropivot && isbad) || (zerodiag && p == 62)) ? 0.0 : 1.0 + sum;
        if (nan && isbad) vals[cdiag - 1] = (PetscReal)NAN; /* offset (-1,0,0) precedes the centre */
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* PCGetFailedReason() of the KSP's PC, the largest over the processes (a failure may be known only where it happened) */
static PetscErrorCode GetPCFailedReason(KSP ksp, PCFailedReason *reason)
{
  PC             pc;
  PCFailedReason mine;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetFailedReason(pc, &mine));
  PetscCall(MPIU_Allreduce(&mine, reason, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)ksp)));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const char        *cases[] = {"nonstencil", "zeropivot", "nan", "wrongsize", "nodm_irregular", "empty", "star7", "nonsquare", "sym", "zerodiag"};
  PetscInt           icase = 1, n = 200, its, symbs = 1;
  PetscReal          scale    = 1.0;
  PetscBool          catcherr = PETSC_FALSE, again = PETSC_FALSE, nodm = PETSC_FALSE, fromupper = PETSC_FALSE, pcreasonall = PETSC_FALSE;
  char               alter[32] = "none", realter[32] = "";
  DM                 da = NULL;
  Mat                A, Pmat = NULL;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;
  PCFailedReason     pcreason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage()); /* this program is linked with petscgilu */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Bad-input and edge-case matrices", NULL);
  PetscCall(PetscOptionsEList("-case", "Which matrix", NULL, cases, PETSC_STATIC_ARRAY_LENGTH(cases), cases[icase], &icase, NULL));
  PetscCall(PetscOptionsInt("-n", "Size of the nonstencil and nodm_irregular matrices", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-scale", "Multiply the matrix by this", NULL, scale, &scale, NULL));
  PetscCall(PetscOptionsBool("-print_pc_reason", "Print the PC failed reason after each solve", NULL, pcreasonall, &pcreasonall, NULL));
  PetscCall(PetscOptionsBool("-catch", "Catch an error of KSPSetUp() and free everything", NULL, catcherr, &catcherr, NULL));
  PetscCall(PetscOptionsBool("-catch_again", "With -catch: after a caught error, KSPSetUp() once more (the same error is expected)", NULL, again, &again, NULL));
  PetscCall(PetscOptionsString("-alter", "sym: how the symmetric matrix is altered", NULL, alter, alter, sizeof(alter), NULL));
  PetscCall(PetscOptionsBool("-no_dm", "Do not give the DMDA to the KSP", NULL, nodm, &nodm, NULL));
  PetscCall(PetscOptionsInt("-sym_bs", "sym: MATBAIJ of this block size (a divisor of the grid size)", NULL, symbs, &symbs, NULL));
  PetscCall(PetscOptionsBool("-from_upper", "sym: the preconditioner made from the symmetric matrix of the upper triangle", NULL, fromupper, &fromupper, NULL));
  PetscCall(PetscOptionsString("-realter", "sym: after the solve, alter the values so (the same pattern) and solve again", NULL, realter, realter, sizeof(realter), NULL));
  PetscOptionsEnd();
  PetscCheck(n > 2 || (icase == 5 && n >= 0), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 3 (at least 0 for -case empty)");

  switch (icase) {
  case 0:
    PetscCall(CreateGeneralMatrix(n, PETSC_FALSE, &A));
    break;
  case 1:
  case 2:
  case 6:
  case 9:
    PetscCall(CreateStar7Matrix((PetscBool)(icase == 1), (PetscBool)(icase == 2), (PetscBool)(icase == 9), &da, &A));
    break;
  case 3: {
    Mat Ada;
    DM  mdm;

    PetscCall(CreateStar7Matrix(PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, &da, &Ada));
    /* MatDuplicate() would keep the DM; MatConvert() with MATSAME does not */
    PetscCall(MatConvert(Ada, MATSAME, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatDestroy(&Ada));
    PetscCall(DMDestroy(&da));
    PetscCall(MatGetDM(A, &mdm));
    PetscCheck(!mdm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The copy of the matrix still knows its DM");
  } break;
  case 5:
    PetscCall(CreateEmptyRankMatrix(n, &A));
    break;
  case 7:
    PetscCall(CreateNonSquareMatrix(n, &A));
    break;
  case 8:
    PetscCall(CreateSymmetricMatrix(alter, symbs, &da, &A, fromupper ? &Pmat : NULL));
    break;
  default:
    PetscCall(CreateGeneralMatrix(n, PETSC_TRUE, &A));
  }

  if (scale != 1.0) PetscCall(MatScale(A, scale));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, Pmat ? Pmat : A));
  if (da && !nodm) {
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(GILUKSPSetDMActiveAll(ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(ksp));
  if (catcherr) {
    PetscErrorCode err;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err = KSPSetUp(ksp);
    PetscCall(PetscPopErrorHandler());
    if (err) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPSetUp() failed with error code %d\n", (int)err));
      if (again) { /* what was checked once must be checked again: the options have not changed */
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        err = KSPSetUp(ksp);
        PetscCall(PetscPopErrorHandler());
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPSetUp() again: error code %d\n", (int)err));
      }
      goto done;
    }
  }
  PetscCall(KSPSolve(ksp, b, x));
  if (icase == 5) { /* once more outside the Krylov method, which does not apply the PC when b = 0 (the 0x0 matrix) */
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCApply(pc, b, x));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Converged reason: %s\n", KSPConvergedReasons[reason]));
  if (pcreasonall) { /* KSP reads it only where a norm is not finite: a stale failure would pass unseen */
    PetscCall(GetPCFailedReason(ksp, &pcreason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCGetFailedReason(): %s\n", PCFailedReasons[pcreason]));
  }
  if (icase == 8 && realter[0]) { /* new values, the same pattern (a new nonzero is an error): the numeric factorization again */
    PetscInt M, N, P;

    PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(FillSymmetricMatrix(realter, PETSC_FALSE, M, N, P, A));
    if (Pmat) {
      PetscCall(MatSetOption(Pmat, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
      PetscCall(FillSymmetricMatrix(realter, PETSC_TRUE, M, N, P, Pmat));
    }
    PetscCall(KSPSetOperators(ksp, A, Pmat ? Pmat : A));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Altered as %s: iterations %" PetscInt_FMT "\n", realter, its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Converged reason: %s\n", KSPConvergedReasons[reason]));
    if (pcreasonall) {
      PetscCall(GetPCFailedReason(ksp, &pcreason));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCGetFailedReason(): %s\n", PCFailedReasons[pcreason]));
    }
  }
  if (reason == KSP_DIVERGED_PC_FAILED) {
    PetscCall(GetPCFailedReason(ksp, &pcreason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PC failed reason: %s\n", PCFailedReasons[pcreason]));
  }

done:
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Pmat));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # a general sparse matrix: PCSTRUCTILU finds no grid and factors it as PETSc's ILU(0) does (MatSolverType gilu): the
   # same iterations, and -ksp_view says why
   test:
     suffix: nonstencil
     args: -case nonstencil -pc_type ilu

   test:
     suffix: nonstencil_structilu
     args: -case nonstencil -pc_type structilu
     output_file: output/ex2_nonstencil.out

   test:
     suffix: nonstencil_structilu_view
     args: -case nonstencil -pc_type structilu -ksp_view
     filter: grep -E -o "not a structured grid [^:]*|factored as .* of the block\)|Iterations [0-9]+"

   test:
     suffix: nodm_irregular
     args: -case nodm_irregular -pc_type ilu

   test:
     suffix: nodm_irregular_structilu
     args: -case nodm_irregular -pc_type structilu
     output_file: output/ex2_nodm_irregular.out

   # a grid or DoF given that does not fit the block is an error that says why, never a silent general factorization
   test:
     suffix: wrongsize
     args: -case wrongsize -pc_type ilu

   test:
     suffix: wrongsize_structilu
     args: -case wrongsize -pc_type structilu -pc_structilu_grid 5,5,5
     filter: Error: grep -o "pc_structilu_grid 5,5,5 has 125 grid points, which do not divide the 216 rows"

   test:
     suffix: wronggrid_structilu
     args: -case wrongsize -pc_type structilu -pc_structilu_grid 12,18 -ksp_view
     filter: Error: grep -o "pc_structilu_grid 12,18 was given, but the local block is not a stencil matrix on that grid"

   test:
     suffix: wrongdof_structilu
     args: -case wrongsize -pc_type structilu -pc_structilu_dof 5 -ksp_view
     filter: Error: grep -o "pc_structilu_dof 5 does not divide the 216 rows"

   # a grid given on a DMDA matrix overrides the DMDA: 3,3,3 on the 6^3 grid (8 DoF per point) is no stencil there
   test:
     suffix: forcedgrid_dmda
     args: -case zeropivot -pc_type structilu -pc_structilu_grid 3,3,3
     filter: Error: grep -o "pc_structilu_grid 3,3,3 was given, but the local block is not a stencil matrix on that grid"

   test:
     suffix: forceddof_rows
     args: -case wrongsize -da_grid_x 5 -da_grid_y 5 -da_grid_z 5 -pc_type structilu -pc_structilu_dof 4
     filter: Error: grep -o "pc_structilu_dof 4 does not divide the 125 rows"

   test:
     suffix: forceddof_nonstencil
     args: -case nonstencil -pc_type structilu -pc_structilu_dof 2
     filter: Error: grep -o "pc_structilu_dof 2 was given, but the local block is not a structured grid with 2 unknowns per point"

   # grid sizes whose product overflows a PetscInt (the size check passed on the wrapped product and the analysis read
   # past the rows): an error that names the option
   test:
     suffix: grid_overflow
     requires: !defined(PETSC_USE_64BIT_INDICES)
     args: -case zeropivot -malloc_debug -pc_type structilu -pc_structilu_grid {{1073741878,4 100000,100000,100000 2147483647,2,2}separate output}
     filter: Error: grep -o "pc_structilu_grid [0-9,]*: more grid points than a PetscInt counts"
   # with 64-bit indices (PETSc --with-64-bit-indices) those grids are counted, and other products overflow
   test:
     suffix: grid_overflow_64
     requires: defined(PETSC_USE_64BIT_INDICES)
     args: -case zeropivot -malloc_debug -pc_type structilu -pc_structilu_grid {{100000,100000,100000 4294967296,4294967296 9223372036854775807,2}separate output}
     filter: Error: grep -o "pc_structilu_grid [0-9,]*: more grid points than a PetscInt counts\|pc_structilu_grid [0-9,]* has [0-9]* grid points, which do not divide the 216 rows"

   # a zero pivot: KSP stops with DIVERGED_PC_FAILED, as with PETSc's ILU
   test:
     suffix: zeropivot
     args: -case zeropivot -pc_type {{ilu structilu}shared output}

   test:
     suffix: zeropivot_np2
     nsize: 2
     args: -case zeropivot -pc_type bjacobi -sub_pc_type {{ilu structilu}shared output}

   test:
     suffix: zeropivot_error_if_failure
     args: -case zeropivot -pc_type structilu -ksp_error_if_not_converged
     filter: Error: grep -o "Zero pivot in local row [0-9]* of the structured-grid ILU"
   # the device factorization (emulated; both task mappings, every schedule) reports the same row
   test:
     suffix: zeropivot_error_if_failure_cudaemu
     requires: cudaemu
     args: -case zeropivot -pc_type structilu -ksp_error_if_not_converged -gilu_backend cudaemu -pc_structilu_cuda_mapping {{tiles lines}separate output} -gilu_cudaemu_schedule {{inorder reverse random}shared output} -gilu_cudaemu_seed 7
     filter: Error: grep -o "Zero pivot in local row [0-9]* of the structured-grid ILU"
     output_file: output/ex2_zeropivot_error_if_failure.out

   # NaN in the matrix: PETSc's ILU lets GMRES find it, structilu stops at setup
   test:
     suffix: nan
     args: -case nan -pc_type ilu

   test:
     suffix: nan_structilu
     args: -case nan -pc_type structilu
     filter: Error: grep -o "The matrix has a NaN or Inf entry: row [0-9]*"

   # empty blocks: the first of two processes owns no rows (an empty block Jacobi block), and a 0x0 matrix on one
   # process; every PC (and MatSolverType gilu) sets up, applies, views and frees them as PETSc's ILU does
   test:
     suffix: empty_np2
     nsize: 2
     args: -case empty -n 20 -malloc_dump -pc_type bjacobi -sub_pc_type {{ilu structilu atsilu fgdd sparsify}shared output} -sub_pc_atsilu_sweeps 20
     output_file: output/ex2_empty_np2.out

   test:
     suffix: empty_np2_gilu
     nsize: 2
     args: -case empty -n 20 -malloc_dump -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type gilu -sub_mat_gilu_trisolve {{levelset syncfree colblock rowblock recblock sequential chunked}shared output}
     output_file: output/ex2_empty_np2.out

   test:
     suffix: empty_np2_cudaemu
     nsize: 2
     requires: cudaemu
     args: -case empty -n 20 -malloc_dump -gilu_backend cudaemu -pc_type bjacobi -sub_pc_type {{structilu atsilu fgdd sparsify}shared output} -sub_pc_atsilu_sweeps 20 -sub_mat_gilu_trisolve_backend cudaemu -sub_pc_sparsify_sub_mat_gilu_trisolve_backend cudaemu
     output_file: output/ex2_empty_np2.out

   # PCSPARSIFY on the parallel matrix itself: its column sums (the matrix is not symmetric) are collective, also on
   # the process without rows (before: that process skipped them and the run ended without a message)
   test:
     suffix: empty_sparsify
     nsize: {{2 3}separate output}
     args: -case empty -n 20 -malloc_dump -pc_type sparsify

   test:
     suffix: empty_0x0
     args: -case empty -n 0 -malloc_dump -pc_type {{ilu structilu atsilu fgdd sparsify}separate output} -pc_factor_mat_solver_type gilu -ksp_view
     filter: grep -E "Iterations|Converged|empty|rows 0|0 rows"

   # NaN in a MATSTENCILGPU matrix: the same error as for AIJ, from PCSTRUCTILU and from the stencilgpu factor of PCILU
   test:
     suffix: nan_stencilgpu
     args: -case nan -dm_mat_type stencilgpu -pc_type {{structilu ilu}shared output}
     filter: Error: grep -o "The matrix has a NaN or Inf entry: row [0-9]*"
     output_file: output/ex2_nan_structilu.out

   # option values out of range: an error that names the option and the valid range
   test:
     suffix: badopt_sparsify_ratio
     args: -case nodm_irregular -pc_type sparsify -pc_sparsify_ratio -1
     filter: Error: grep -o -e "-pc_sparsify_ratio -1.: must be a percentage in \[0, 100)"

   test:
     suffix: badopt_fgdd_zeropivot
     args: -case zeropivot -pc_type fgdd -pc_fgdd_zeropivot -1
     filter: Error: grep -o -e "-pc_fgdd_zeropivot -1.: must be finite and nonnegative"

   test:
     suffix: badopt_structilu_zeropivot
     # PETSc >= 3.19 rejects inf itself, in PetscOptionsReal(), before the PC sees it (ex2_badopt_structilu_zeropivot_alt.out)
     args: -case zeropivot -pc_type structilu -pc_structilu_zeropivot inf
     filter: Error: grep -o -e "-pc_structilu_zeropivot inf.: must be finite and nonnegative" -e "Newly set value inf. greater than allowed bound"

   test:
     suffix: badopt_structilu_model
     args: -case zeropivot -pc_type structilu -pc_structilu_model_bandwidth -5
     filter: Error: grep -o -e "-pc_structilu_model_bandwidth -5.: must be finite and nonnegative"

   test:
     suffix: badopt_atsilu_tol
     args: -case zeropivot -pc_type atsilu -pc_atsilu_tol -1
     filter: Error: grep -o -e "-pc_atsilu_tol -1.: must be finite and nonnegative"

   test:
     suffix: badopt_gilu_block_depth
     args: -case zeropivot -pc_type ilu -pc_factor_mat_solver_type gilu -mat_gilu_trisolve_block_depth 30
     filter: Error: grep -o -e "-mat_gilu_trisolve_block_depth 30: must be in \[0, 20\]"

   test:
     suffix: badopt_cudaemu_devices
     requires: cudaemu
     args: -case zeropivot -pc_type structilu -gilu_backend cudaemu -gilu_cudaemu_devices 0
     filter: Error: grep -o -e "-gilu_cudaemu_devices 0: must be in 1..64"

   # a negative seed after random: (strtoull() took the sign and wrapped it around)
   test:
     suffix: badopt_cudaemu_schedule_seed
     requires: cudaemu
     args: -case zeropivot -pc_type structilu -gilu_backend cudaemu -gilu_cudaemu_schedule random:-3
     filter: Error: grep -o -e "-gilu_cudaemu_schedule random:-3: the seed after random: must be a non-negative integer"

   test:
     suffix: badopt_cudaemu_max_grid_x
     requires: cudaemu
     args: -case zeropivot -pc_type structilu -gilu_backend cudaemu -gilu_cudaemu_max_grid_x 0
     filter: Error: grep -o -e "-gilu_cudaemu_max_grid_x 0: must be in 1..2147483647"

   # thread counts past what a node runs (an option or OMP_NUM_THREADS of 100000) are clamped by one rule in every
   # component, at most 4 threads per core and OpenMP's thread limit (before: SIGSEGV or "libgomp: Thread creation failed")
   test:
     suffix: threads_clamp
     args: -case star7 -malloc_debug -pc_type {{atsilu fgdd structilu}separate output} -pc_atsilu_threads 100000 -pc_fgdd_threads 100000 -pc_structilu_threads 100000 -pc_structilu_schedule hyperplane

   test:
     suffix: threads_clamp_gilu
     args: -case star7 -malloc_debug -pc_type ilu -pc_factor_mat_solver_type gilu -mat_gilu_trisolve levelset -mat_gilu_trisolve_threads 100000

   test:
     suffix: threads_clamp_env
     env: OMP_NUM_THREADS=100000
     args: -case star7 -malloc_debug -pc_type {{atsilu fgdd structilu}separate output}

   # a matrix that is not square: the error PETSc's factorizations give, from every PC (before: PCATSILU read past a
   # buffer and applied inf, PCFGDD applied a meaningless preconditioner)
   test:
     suffix: nonsquare
     args: -case nonsquare -ksp_type lsqr -malloc_debug -pc_type {{ilu atsilu fgdd sparsify structilu}shared output}
     filter: Error: grep -o "Must be square matrix, rows 200 columns 203"
     output_file: output/ex2_nonsquare.out

   test:
     suffix: nonsquare_gilu
     args: -case nonsquare -ksp_type lsqr -malloc_debug -pc_type {{ilu icc}shared output} -pc_factor_mat_solver_type gilu
     filter: Error: grep -o "Must be square matrix, rows 200 columns 203"
     output_file: output/ex2_nonsquare.out

   test:
     suffix: nonsquare_np2
     nsize: 2
     args: -case nonsquare -ksp_type lsqr -malloc_debug -pc_type {{atsilu fgdd sparsify structilu}shared output}
     filter: Error: grep -o "Must be square matrix, rows 200 columns 203"
     output_file: output/ex2_nonsquare.out

   # single-precision factors of a matrix beyond float's range (scaled by 1e40; by 1e-42 its inverted pivots are): the PC
   # fails (DIVERGED_PC_FAILED, FACTOR_OTHER) and says which option to change, on the host and on the emulated device
   # (before: DIVERGED_NANORINF at iteration 0 without a word; in double it converges)
   test:
     suffix: single_range
     args: -case star7 -pc_type structilu -pc_structilu_factor_precision single -pc_structilu_zeropivot 0 -scale {{1e40 1e-42}shared output}

   test:
     suffix: single_range_cudaemu
     requires: cudaemu
     args: -case star7 -pc_type structilu -pc_structilu_factor_precision single -pc_structilu_zeropivot 0 -scale {{1e40 1e-42}shared output} -gilu_backend cudaemu -pc_structilu_cuda_factor {{0 1}shared output}
     output_file: output/ex2_single_range.out

   test:
     suffix: single_range_error
     args: -case star7 -pc_type structilu -pc_structilu_factor_precision single -scale 1e40 -ksp_error_if_not_converged
     filter: Error: grep -o "local row [0-9]* of the structured-grid ILU have an entry beyond the range of single precision .*: use -pc_structilu_factor_precision double"

   test:
     suffix: single_range_view
     args: -case star7 -pc_type structilu -pc_structilu_factor_precision single -scale 1e40 -ksp_view
     filter: grep -E "FAILED|Converged"

   # a value that is none of an enum option's choices is PETSc's error, also where PETSc itself would write one byte past
   # its list of the choices (slab, hyperplane: none shorter than the one before; compat.h checks first), which
   # -malloc_debug found: 3.18 crashed on it (SEGV, no message), 3.25 with debugging says that the memory "is corrupted"
   test:
     suffix: enum_unknown
     args: -case star7 -pc_type structilu -malloc_debug -pc_structilu_schedule foo
     filter: Error: grep -o "for -pc_structilu_schedule. Available options: slab hyperplane\|is corrupted"

   # -pc_structilu_diagonal_storage is a preference: -ksp_view says whether DILU is used, and why not when it is not
   # (the device back-end, single precision, a factorization that changes more than the diagonal)
   test:
     suffix: diagonal_storage_view
     requires: cudaemu
     args: -case star7 -pc_type structilu -pc_structilu_diagonal_storage -ksp_view -gilu_backend {{host cudaemu}separate output} -pc_structilu_factor_precision {{double single}separate output} -pc_structilu_levels {{0 1}separate output}
     filter: grep -E "diagonal_storage|DILU"

   # more sizes than a grid has are an error, not dropped (before: 6,6,6,6 was read as 6,6,6)
   test:
     suffix: grid_too_many
     args: -case wrongsize -pc_type structilu -pc_structilu_grid 6,6,6,6
     filter: Error: grep -o "pc_structilu_grid takes 1 to 3 sizes nx,ny\[,nz\], not at least 4"

   test:
     suffix: single_range_double
     args: -case star7 -pc_type structilu -scale 1e40

   # an error of the setup leaks nothing once caught: ILU(5) of star-7 is wider than the stencils structilu holds (before:
   # about 96 KB of GILUStencilMatFill(), its candidates and GILUStencilMatAnalyze() stayed)
   test:
     suffix: error_leak
     args: -case star7 -catch -malloc_debug -malloc_dump -pc_type structilu -pc_structilu_levels 5 -dm_mat_type {{aij stencilgpu}shared output}

   # nor an emulated launch refused at the setup (a bad -gilu_cudaemu_* value): before, the launch record (cudaemu.c) and
   # PCATSILU's host buffer of the device sweeps stayed
   test:
     suffix: error_leak_cudaemu
     requires: cudaemu
     args: -case star7 -catch -malloc_debug -malloc_dump -gilu_backend cudaemu -gilu_cudaemu_resident 100 -pc_type {{structilu atsilu}separate output}
     output_file: output/ex2_error_leak_cudaemu.out

   test:
     suffix: error_leak_ilu_stencilgpu
     args: -case star7 -catch -malloc_debug -malloc_dump -dm_mat_type stencilgpu -pc_type ilu -pc_factor_levels 5
     output_file: output/ex2_error_leak.out

   # nor a bad option read at the setup (the factorizations' symbolic phase, the engine's triangles, the emulation's
   # options): before, an error raised inside their PetscOptionsBegin()/End() block (a setter's check, a value that is
   # none of an enum's choices, not a number) skipped PetscOptionsEnd() and left its strings (16 to 64 bytes)
   test:
     suffix: error_leak_options
     args: -case star7 -catch -malloc_debug -malloc_dump -pc_type {{ilu atsilu sparsify}shared output} -pc_factor_mat_solver_type gilu -mat_gilu_trisolve_block_depth 30 -pc_sparsify_sub_mat_gilu_trisolve_block_depth 30
     output_file: output/ex2_error_leak_cudaemu.out

   test:
     suffix: error_leak_options_structilu
     args: -case star7 -catch -malloc_debug -malloc_dump -pc_type ilu -pc_factor_mat_solver_type structilu -pc_structilu_model_bandwidth -5
     output_file: output/ex2_error_leak_cudaemu.out

   test:
     suffix: error_leak_options_enum
     args: -case star7 -catch -malloc_debug -malloc_dump -pc_type ilu -pc_factor_mat_solver_type {{gilu structilu}shared output} -mat_gilu_factor_schedule foo -pc_structilu_schedule foo
     output_file: output/ex2_error_leak_options_enum.out

   test:
     suffix: error_leak_options_cudaemu
     requires: cudaemu
     args: -case star7 -catch -malloc_debug -malloc_dump -gilu_backend cudaemu -gilu_cudaemu_seed abc -pc_type structilu
     output_file: output/ex2_error_leak_cudaemu.out

   # the emulation's options are checked each time it is chosen until they pass: a program that caught the error and
   # sets up again gets it again (not a setup that takes the out-of-range value as 1); CG: PETSc's GMRES
   # allocates its work space again when KSPSetUp() is repeated after a failed PCSetUp(), which -malloc_dump would report
   test:
     suffix: error_again_cudaemu
     requires: cudaemu
     args: -case star7 -catch -catch_again -malloc_dump -ksp_type cg -gilu_backend cudaemu -pc_type structilu -gilu_cudaemu_devices {{0 65}shared output}
     output_file: output/ex2_error_again_cudaemu.out
   test:
     suffix: error_again_cudaemu_seed
     requires: cudaemu
     args: -case star7 -catch -catch_again -malloc_dump -ksp_type cg -gilu_backend cudaemu -pc_type structilu -gilu_cudaemu_seed -1
     output_file: output/ex2_error_again_cudaemu.out

   # a MATSTENCILGPU matrix's ILU under MatSolverType petsc is structilu's: an ordering other than the natural one is an
   # error that says so and names AIJ for PETSc's own (before: only "MatSolverType structilu ...", which was not asked for)
   test:
     suffix: stencilgpu_ordering
     args: -case star7 -dm_mat_type stencilgpu -pc_type ilu -pc_factor_mat_solver_type petsc -pc_factor_mat_ordering_type rcm
     filter: Error: grep -o "not rcm: use -pc_factor_mat_ordering_type natural (a MATSTENCILGPU matrix.s ILU and ICC are structilu.s, also as MatSolverType petsc: for PETSc.s own with other orderings, assemble the matrix as AIJ, e.g. -dm_mat_type aij)"

   # structilu's incomplete Cholesky reads the upper triangle, as PETSc's ICC (the rule of every incomplete Cholesky of
   # petscgilu): PETSc's ICC's residuals where the triangles differ in values (convect, fe), or where the pattern is no
   # stencil (far, denserow: PETSc's ICC of the block) or no grid (-no_dm 1: the pattern is inferred, the block falls back);
   # a stencil offset without its opposite, which the IC's symmetric stencil cannot hold, is an error that names ILU
   # (before: an error for every matrix not symmetric to 1e-10)
   test:
     suffix: ic_symmetry
     args: -case sym -ksp_type gmres -ksp_monitor -alter {{far denserow convect fe}separate output} -no_dm {{0 1}shared output} -pc_type {{icc structilu}shared output} -pc_structilu_type ic
   test:
     suffix: ic_symmetry_stencil
     args: -case sym -ksp_type cg -pc_type structilu -pc_structilu_type ic -alter {{lower upper noyplus}separate output}
     filter: Error: grep -o "Incomplete Cholesky needs a symmetric matrix, but .*: use -pc_structilu_type ilu"

   # MatSolverType gilu's ICC reads the upper triangle only, as PETSc's ICC: of a matrix that is not exactly symmetric it
   # factors the symmetric image of the upper triangle. The same residuals as PETSc's ICC, and as either ICC made from that
   # symmetric matrix built here (-from_upper: the preconditioning matrix, the operator unchanged); upper and lower
   # triangles apart in pattern (lower, upper, noyplus, far, denserow), in values only (convect), by round-off (fe)
   # (before: an error for all but fe)
   test:
     suffix: ic_symmetry_gilu
     args: -case sym -pc_type icc -ksp_monitor -alter {{lower upper noyplus far denserow convect fe}separate output} -pc_factor_levels {{0 1}separate output} -pc_factor_mat_solver_type {{gilu petsc}shared output} -from_upper {{0 1}shared output}

   # values that turn nonsymmetric (or symmetric) at a numeric factorization with the same pattern: the image made then
   # (or refreshed); the same residuals as PETSc's ICC
   test:
     suffix: ic_symmetry_gilu_realter
     args: -case sym -pc_type icc -ksp_monitor -alter {{none convect}separate output} -realter convect -pc_factor_mat_solver_type {{gilu petsc}shared output} -from_upper {{0 1}shared output}

   # block size 2 (MATBAIJ): the image by blocks where the diagonal blocks are symmetric (noyplus, far); where one is not
   # (convect, at the symbolic factorization or once the values change so) PETSc's block ICC factors and solves: it
   # assumes them symmetric (the inverse of the block on one side, its transpose on the other), which is no ILU
   test:
     suffix: ic_symmetry_gilu_baij
     args: -case sym -sym_bs 2 -pc_type icc -pc_factor_shift_type none -ksp_monitor -alter {{noyplus far}separate output} -pc_factor_mat_solver_type {{gilu petsc}shared output} -from_upper {{0 1}shared output}

   test:
     suffix: ic_symmetry_gilu_baij_diag
     args: -case sym -sym_bs 2 -pc_type icc -pc_factor_shift_type none -ksp_monitor -alter {{none convect}separate output} -realter convect -pc_factor_mat_solver_type {{gilu petsc}shared output}

   # what gilu's ICC factors: the matrix where it is exactly symmetric, else the image (fe: apart in the last bits), or
   # (block size 2, a diagonal block not symmetric) what PETSc's block ICC does
   test:
     suffix: ic_symmetry_gilu_view
     args: -case sym -pc_type icc -pc_factor_shift_type none -pc_factor_mat_solver_type gilu -alter {{none fe far convect}separate output} -sym_bs {{1 2}separate output} -ksp_view
     filter: grep -o -e "gilu: ICC ([^)]*)" -e "gilu: block size [0-9]*: [^;]*"

   test:
     suffix: ic_symmetry_ok
     args: -case sym -ksp_type cg -alter {{none roundoff fe}shared output} -pc_type {{icc structilu}shared output} -pc_structilu_type ic -pc_factor_mat_solver_type {{gilu petsc}shared output} -no_dm {{0 1}shared output}

   # -ksp_pc_side symmetric with IC (GMRES: PETSc's CG takes the left side only): the PC fails (PC_FACTOR_NUMERIC_ZEROPIVOT)
   # only where the split S^T S of the current factors was made and a diagonal block is not positive definite; KSP reads
   # PCGetFailedReason() only where a norm is not finite, so -print_pc_reason prints it after each solve. The split made and
   # positive definite: the DMDA's grid, the grid inferred from the pattern (-no_dm 1); no split: the fallback's ICC halves
   # of a block that is no stencil (far), a process without rows (empty; the other process's tridiagonal block is a 1D
   # grid, split), and PETSc's ICC for comparison (before 558da7b: FACTOR_NUMERIC_ZEROPIVOT without a split, from a symbad of 0)
   test:
     suffix: sym_side_reason
     args: -case sym -ksp_type gmres -ksp_pc_side symmetric -print_pc_reason -alter {{none far}separate output} -no_dm {{0 1}shared output} -pc_type {{structilu icc}shared output} -pc_structilu_type ic
   test:
     suffix: sym_side_reason_np2
     nsize: 2
     args: -ksp_type gmres -ksp_pc_side symmetric -print_pc_reason -case {{sym empty}separate output} -n 20 -pc_type structilu -pc_structilu_type ic
   # a diagonal block of the factors that is not positive definite (negdiag: the matrix is not): no real split, the PC
   # fails and KSP stops with DIVERGED_PC_FAILED, in either precision of the factors
   test:
     suffix: sym_side_notpd
     args: -case sym -alter negdiag -ksp_type gmres -ksp_pc_side symmetric -print_pc_reason -pc_type structilu -pc_structilu_type ic -pc_structilu_factor_precision {{double single}shared output}
   # the values change (the same pattern) after the failed solve: the PC's failed reason is of the new factors, the split of
   # the old ones is not read (positive definite: none; beyond single precision's range: FACTOR_OTHER, no split made)
   test:
     suffix: sym_side_notpd_realter
     args: -case sym -alter negdiag -realter {{none huge}separate output} -ksp_type gmres -ksp_pc_side symmetric -print_pc_reason -pc_type structilu -pc_structilu_type ic -pc_structilu_factor_precision single -pc_structilu_zeropivot 0

   # a PC that failed at one setup and not at the next says so (KSPSetUp() reads the reason): the first solve stops with a zero
   # pivot, the second (new values, the same pattern) converges with NOERROR. PETSc's PCILU itself (any solver type) keeps
   # the failure: it reads its factor's error of the last numeric factorization before refactoring (3.18 to 3.25), as ilu
   # shows; PCSPARSIFY clears its inner factor's error so that it refactors
   test:
     suffix: reason_reset
     args: -case sym -alter zerodiag -realter none -print_pc_reason -pc_type {{ilu structilu atsilu fgdd sparsify}separate output} -pc_factor_mat_solver_type gilu -pc_atsilu_sweeps 3

   # an option named in a message carries the options prefix of the object that reads it: inside PCBJACOBI, PCSPARSIFY
   # (before: -pc_structilu_type ilu, -pc_type ilu, options that do nothing there)
   test:
     suffix: prefix_structilu_ic
     args: -case sym -alter upper -ksp_type cg -pc_type bjacobi -sub_pc_type structilu -sub_pc_structilu_type ic
     filter: Error: grep -o "Incomplete Cholesky needs a symmetric matrix, but .*: use -sub_pc_structilu_type ilu"

   # (before: an error that gilu's ICC needed a symmetric matrix, with the prefixed options; now PETSc's ICC's residuals)
   test:
     suffix: prefix_gilu_icc
     args: -case sym -alter far -ksp_type cg -ksp_monitor -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type {{gilu petsc}shared output}

   test:
     suffix: prefix_sparsify_icc
     args: -case sym -alter far -ksp_monitor -pc_type sparsify -pc_sparsify_sub_pc_type icc -pc_sparsify_sub_pc_factor_mat_solver_type {{gilu petsc}shared output}

   test:
     suffix: prefix_levels
     args: -case star7 -pc_type bjacobi -sub_pc_type structilu -sub_pc_structilu_levels 5
     filter: Error: grep -o "use fewer levels of fill (-sub_pc_structilu_levels)"

   test:
     suffix: prefix_badopt
     args: -case star7 -pc_type bjacobi -sub_pc_type {{atsilu fgdd structilu sparsify}separate output} -sub_pc_atsilu_tol -1 -sub_pc_fgdd_zeropivot -1 -sub_pc_structilu_zeropivot -1 -sub_pc_sparsify_ratio -1
     filter: Error: grep -o -e "-sub_pc_[a-z]*_[a-z]* -1.: must be [a-z ]*"

   test:
     suffix: prefix_gilu_option
     args: -case star7 -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type gilu -sub_mat_gilu_trisolve_block_depth 30
     filter: Error: grep -o -e "-sub_mat_gilu_trisolve_block_depth 30: must be in \[0, 20\]"

   # a zero diagonal entry whose ILU(0) pivot is not zero: PCATSILU starts that pivot from a_rr - sum l_rk u_kr, not 0, and
   # converges as PETSc's ILU does (before: "Zero pivot in local row 62"); where its sweeps meet a zero of their own, or
   # ILU(0)'s pivot is zero, the message says which and what to do
   test:
     suffix: zerodiag
     args: -case zerodiag -pc_type {{ilu structilu fgdd atsilu}shared output}

   test:
     suffix: zerodiag_atsilu
     args: -case zerodiag -pc_type atsilu -pc_atsilu_algorithm {{ats parilu}shared output} -dm_mat_type {{aij baij stencilgpu}shared output}
     output_file: output/ex2_zerodiag.out

   test:
     suffix: zerodiag_atsilu_cudaemu
     requires: cudaemu
     args: -case zerodiag -pc_type atsilu -gilu_backend cudaemu
     output_file: output/ex2_zerodiag.out

   test:
     suffix: zerodiag_atsilu_own_zero
     args: -case zerodiag -pc_type atsilu -pc_atsilu_initial_guess diagonal -ksp_error_if_not_converged
     filter: Error: grep -o "Zero pivot in local row 62 of PCATSILU: sweep 1 divided by a zero diagonal entry of L or U there (A.s diagonal entry there is 0.*). PETSc.s ILU(0) of the block, which the sweeps approach, has no zero pivot"

   test:
     suffix: zeropivot_atsilu_error
     args: -case zeropivot -pc_type atsilu -ksp_error_if_not_converged -dm_mat_type {{aij baij stencilgpu}separate output}
     filter: Error: grep -o "Zero pivot in local row 86 of PCATSILU: .*PETSc.s ILU(0) of the block has its first zero pivot in row 86"

   # -help prints the defaults of the candidate ratios (was uninitialised memory)
   test:
     # PETSc >= 3.19 writes -help as "-name: <now value : formerly default>" (ex2_help_sparsify_alt.out)
     suffix: help_sparsify
     args: -case nodm_irregular -pc_type sparsify -help
     filter: grep -e "-pc_sparsify_ratio"
   # an operator other than the preconditioning matrix (-snes_mf_operator): the Eisenstat trick says what to do
   test:
     suffix: eisenstat_amat_pmat
     args: -case sym -from_upper -pc_type structilu -pc_structilu_eisenstat
     filter: Error: grep -o "pc_structilu_eisenstat needs the operator to be the preconditioning matrix.*"
   # MatSolverType structilu on 2 processes gives the global factors of a DMDA grid: without a DMDA it says what to use
   test:
     suffix: msst_np2_nodm
     nsize: 2
     args: -case nonstencil -pc_type ilu -pc_factor_mat_solver_type structilu
     filter: Error: grep -o "needs the DMDA of the matrix.*-sub_pc_factor_mat_solver_type structilu" | sort -u
   # under a prefix (PCKSP's inner PC, PCREDISTRIBUTE's) the block Jacobi it suggests has that prefix, so do its sub-PCs' options
   test:
     suffix: msst_np2_nodm_prefix
     nsize: 2
     args: -case nonstencil -pc_type ksp -ksp_pc_type ilu -ksp_pc_factor_mat_solver_type structilu
     filter: Error: grep -o "needs the DMDA of the matrix.*-ksp_sub_pc_factor_mat_solver_type structilu" | sort -u

TEST*/
