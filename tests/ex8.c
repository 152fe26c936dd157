static char help[] = "petscgilu's test matrices: build one (or load one from a PETSc binary file), describe it, solve with it.\n\n\
  -matrix <name>        : a test matrix of PetscGILUTestMatrixCreate() (default convdiff3d); -list prints them all\n\
  -size <s>             : its scale: about s^3 grid points, nodes or vertices (default 10)\n\
  -f <file>             : instead, load the matrix from a PETSc binary file, and the right-hand side if the file has one\n\
                          (-mat_type chooses the type it is loaded as, the .info file its block size)\n\
  -write <file>         : write the matrix and the right-hand side to a PETSc binary file (and <file>.info);\n\
                          a name ending in / is a folder: the file is <folder>/<matrix>-<size>.petsc\n\
  -reload               : with -write: load the file back, check that matrix and right-hand side are equal, use them\n\
  -check_serial         : with -write: each rank loads the file alone and compares it with the matrix it generates alone\n\
  -convert_type <type>  : convert the matrix (e.g. aij, baij, sbaij) before solving\n\
  -no_solve             : stop after the description\n\
  -check_dmplex         : fem_q1, fem_q2: compare with the matrix PETSc's DMPlex FEM assembles (hexahedral box mesh,\n\
                          Lagrange Q1/Q2, pointwise Jacobians), up to the numbering of the nodes\n\
  -check_rbm            : elasticity3d: the 6 rigid body modes are in the kernel of every row not next to the clamped face\n\
The matrix is solved with the KSP and PC of the options database; the program prints n, nnz, the block size,\n\
whether the matrix is symmetric, its Frobenius norm, and the KSP iterations and converged reason.\n\n";

/*
  Driver of petscgilu's test matrix suite (src/test/testmat.c, in the test library): the other components (ATS-ILU, sparsify, FGDD,
  the triangular-solve bench) take their matrices from here, and bench/gen-matrices writes the large ones with it:

    ex8 -matrix jump3d -size 100 -write jump3d-100.petsc -no_solve
    ex8 -f jump3d-100.petsc -ksp_type cg -pc_type icc
*/
#include <petscksp.h>
#include <petscdmplex.h>
#include <petscds.h>
#include <petscfe.h>
#include <petscsnes.h>
#include <petscgilu.h>
#include <petscgilutest.h>

static PetscErrorCode LoadFile(MPI_Comm comm, const char file[], Mat *A, Vec *b)
{
  PetscViewer    viewer;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &viewer));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatLoad(*A, viewer));
  PetscCall(MatCreateVecs(*A, NULL, b));
  /* the right-hand side, if the file has one after the matrix */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VecLoad(*b, viewer);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    PetscCall(PetscPrintf(comm, "no right-hand side in %s: using A * ones\n", file));
    PetscCall(VecDestroy(b));
    PetscCall(MatCreateVecs(*A, NULL, b));
    {
      Vec one;

      PetscCall(VecDuplicate(*b, &one));
      PetscCall(VecSet(one, 1.0));
      PetscCall(MatMult(*A, one, *b));
      PetscCall(VecDestroy(&one));
    }
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode IsSymmetric(Mat A, PetscBool *sym)
{
  Mat       B = A;
  PetscBool isaij;

  PetscFunctionBeginUser;
  /* MatIsTranspose() compares the entries (MatIsSymmetric() would just return the MAT_SYMMETRIC flag) */
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJ, MATMPIAIJ, ""));
  if (!isaij) PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatIsTranspose(B, B, 0.0, sym));
  if (!isaij) PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* entries bitwise equal (MatEqual() of two different types would compare products with random vectors) */
static PetscErrorCode SameMatrix(Mat A, Mat B, PetscBool *eq)
{
  MatType   ta;
  PetscBool same;
  Mat       C = B;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &ta));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ta, &same));
  if (!same) PetscCall(MatConvert(B, ta, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatEqual(A, C, eq));
  if (!same) PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

/* the pointwise Jacobian of u v + dt grad u . grad v (constants[0] = dt) */
static void g0_mass(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = 1.0;
}

static void g3_stiff(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < dim; d++) g3[d * dim + d] = constants[0];
}

/* the sorted entries of v, on every rank */
static PetscErrorCode SortedValues(Vec v, PetscReal **vals, PetscInt *n)
{
  Vec                all;
  VecScatter         sc;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecScatterCreateToAll(v, &sc, &all));
  PetscCall(VecScatterBegin(sc, v, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, v, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetSize(all, n));
  PetscCall(PetscMalloc1(*n, vals));
  PetscCall(VecGetArrayRead(all, &a));
  for (PetscInt l = 0; l < *n; l++) (*vals)[l] = PetscRealPart(a[l]);
  PetscCall(VecRestoreArrayRead(all, &a));
  PetscCall(PetscSortReal(*n, *vals));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&all));
  PetscFunctionReturn(0);
}

/* diagonal, row sums and Frobenius norm of A, compared with B's (the same matrix in another numbering) */
static PetscErrorCode CompareInvariants(Mat A, Mat B, PetscReal *diff)
{
  Mat        M[2] = {A, B};
  PetscReal *v[2][2], nrm[2];
  PetscInt   n[2][2];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < 2; l++) {
    Vec d, one, rs;

    PetscCall(MatCreateVecs(M[l], &one, &d));
    PetscCall(VecDuplicate(d, &rs));
    PetscCall(MatGetDiagonal(M[l], d));
    PetscCall(VecSet(one, 1.0));
    PetscCall(MatMult(M[l], one, rs));
    PetscCall(SortedValues(d, &v[l][0], &n[l][0]));
    PetscCall(SortedValues(rs, &v[l][1], &n[l][1]));
    PetscCall(MatNorm(M[l], NORM_FROBENIUS, &nrm[l]));
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&rs));
    PetscCall(VecDestroy(&one));
  }
  *diff = PetscAbsReal(nrm[0] - nrm[1]) / nrm[0];
  for (PetscInt k = 0; k < 2; k++) {
    PetscReal scale = 0.0;

    if (n[0][k] != n[1][k]) *diff = PETSC_MAX_REAL;
    for (PetscInt l = 0; l < n[0][k]; l++) scale = PetscMax(scale, PetscAbsReal(v[0][k][l]));
    for (PetscInt l = 0; l < n[0][k] && n[0][k] == n[1][k]; l++) *diff = PetscMax(*diff, PetscAbsReal(v[0][k][l] - v[1][k][l]) / scale);
    PetscCall(PetscFree(v[0][k]));
    PetscCall(PetscFree(v[1][k]));
  }
  PetscFunctionReturn(0);
}

/* fem_q1 / fem_q2 assembled by DMPlex: box mesh of hexahedra, Lagrange elements, exact quadrature, scaled by 1/h^3 */
static PetscErrorCode CheckDMPlex(MPI_Comm comm, const char name[], PetscInt size, Mat A)
{
  PetscBool   q1, q2;
  PetscInt    degree, cells, faces[3];
  DM          dm;
  PetscFE     fe;
  PetscDS     ds;
  Mat         J;
  Vec         X;
  PetscScalar dt   = 0.01;
  PetscReal   diff = 0.0;
  MatInfo     ia, ib;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(name, "fem_q1", &q1));
  PetscCall(PetscStrcmp(name, "fem_q2", &q2));
  PetscCheck(q1 || q2, comm, PETSC_ERR_USER_INPUT, "-check_dmplex is for fem_q1 and fem_q2");
  degree   = q1 ? 1 : 2;
  cells    = q1 ? size - 1 : size / 2;
  faces[0] = faces[1] = faces[2] = cells;
  PetscCall(DMPlexCreateBoxMesh(comm, 3, PETSC_FALSE, faces, NULL, NULL, NULL, PETSC_TRUE, GILU_BOXMESH_LOCALIZATION & dm));
  { /* the mesh is made on the first process: distributed, as a PETSc program would (PETSc 3.21 cannot make the coordinate
       field of a process without cells: "No quadrature for celltype vertex"); the invariants compared do not depend on it */
    DM               dist = NULL;
    PetscPartitioner part;

    /* PETSc's simple partitioner: PT-Scotch's partitions may vary, and Debian 12's petsc64 (64-bit indices) links the
       32-bit PT-Scotch, in which DMPlexDistribute() crashes */
    PetscCall(DMPlexGetPartitioner(dm, &part));
    PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERSIMPLE));
    PetscCall(DMPlexDistribute(dm, 0, NULL, &dist));
    if (dist) {
      PetscCall(DMDestroy(&dm));
      dm = dist;
    }
  }
  PetscCall(PetscFECreateLagrange(comm, 3, 1, PETSC_FALSE, degree, 2 * degree, &fe)); /* Gauss points exact for the mass */
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_mass, NULL, NULL, g3_stiff));
  PetscCall(PetscDSSetConstants(ds, 1, &dt));
  PetscCall(DMCreateMatrix(dm, &J));
  PetscCall(DMCreateLocalVector(dm, &X));
  PetscCall(VecSet(X, 0.0));
  PetscCall(DMPlexSNESComputeJacobianFEM(dm, X, J, J, NULL));
  PetscCall(MatScale(J, (PetscReal)cells * cells * cells));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(J, MAT_GLOBAL_SUM, &ib));
  PetscCall(CompareInvariants(A, J, &diff));
  PetscCall(PetscPrintf(comm, "DMPlex Q%" PetscInt_FMT " reference: nnz %s, sorted diagonals, sorted row sums and norms %s\n", degree, ia.nz_used == ib.nz_used ? "equal" : "DIFFERENT", diff < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
  if (diff >= 1e-12) PetscCall(PetscPrintf(comm, "  relative difference %g, nnz %.0f against %.0f\n", (double)diff, (double)ia.nz_used, (double)ib.nz_used));
  PetscCall(VecDestroy(&X));
  PetscCall(MatDestroy(&J));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/* elasticity3d: A u = 0 for the rigid body modes u, in the rows whose node is not next to the clamped face x = 0 */
static PetscErrorCode CheckRigidBodyModes(MPI_Comm comm, const char name[], PetscInt size, Mat A)
{
  PetscBool    elas;
  Vec          u, r;
  PetscInt     rs, re;
  PetscReal    inner = 0.0, clamp = 0.0, unorm, anorm, g[2];
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(name, "elasticity3d", &elas));
  PetscCheck(elas, comm, PETSC_ERR_USER_INPUT, "-check_rbm is for elasticity3d");
  PetscCall(MatCreateVecs(A, &u, &r));
  PetscCall(VecGetOwnershipRange(u, &rs, &re));
  PetscCall(MatNorm(A, NORM_INFINITY, &anorm));
  for (PetscInt mode = 0; mode < 6; mode++) {
    const PetscScalar *y;

    PetscCall(VecGetArray(u, &x));
    for (PetscInt l = rs; l < re; l++) {
      PetscInt  nd = l / 3, c = l % 3;
      PetscReal p[3] = {(PetscReal)(nd % size + 1), (PetscReal)((nd / size) % size), (PetscReal)(nd / (size * size))}; /* x = i + 1: the clamped nodes are at x = 0 */
      PetscReal v[3] = {0, 0, 0};

      if (mode < 3) v[mode] = 1.0;
      else if (mode == 3) v[0] = -p[1], v[1] = p[0]; /* rotation about z */
      else if (mode == 4) v[1] = -p[2], v[2] = p[1]; /* about x */
      else v[2] = -p[0], v[0] = p[2];                /* about y */
      x[l - rs] = v[c];
    }
    PetscCall(VecRestoreArray(u, &x));
    PetscCall(VecNorm(u, NORM_INFINITY, &unorm));
    PetscCall(MatMult(A, u, r));
    PetscCall(VecGetArrayRead(r, &y));
    for (PetscInt l = rs; l < re; l++) {
      PetscReal e = PetscAbsScalar(y[l - rs]) / (anorm * unorm);

      if ((l / 3) % size == 0) clamp = PetscMax(clamp, e);
      else inner = PetscMax(inner, e);
    }
    PetscCall(VecRestoreArrayRead(r, &y));
  }
  g[0] = inner, g[1] = clamp;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, g, 2, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscPrintf(comm, "rigid body modes: |A u| / (|A| |u|) %s away from the clamped face, %s next to it\n", g[0] < 1e-14 ? "< 1e-14" : "LARGE", g[1] > 1e-3 ? "> 1e-3" : "SMALL"));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Mat                A;
  Vec                b, x;
  KSP                ksp;
  char               name[64] = "convdiff3d", file[PETSC_MAX_PATH_LEN] = "", wfile[PETSC_MAX_PATH_LEN] = "", ctype[64] = "";
  PetscInt           size = 10, N, bs, its;
  PetscBool          load, write, reload = PETSC_FALSE, serial = PETSC_FALSE, dmplex = PETSC_FALSE, rbm = PETSC_FALSE, nosolve = PETSC_FALSE, list = PETSC_FALSE, convert, sym, spd;
  MatInfo            info;
  PetscReal          norm, bnorm;
  KSPConvergedReason reason;
  MatType            type;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "petscgilu test matrices", NULL);
  PetscCall(PetscOptionsBool("-list", "Print the test matrices and stop", NULL, list, &list, NULL));
  PetscCall(PetscOptionsString("-matrix", "Test matrix", NULL, name, name, sizeof(name), NULL));
  PetscCall(PetscOptionsInt("-size", "Scale of the test matrix (about size^3 grid points)", NULL, size, &size, NULL));
  PetscCall(PetscOptionsString("-f", "Load the matrix (and right-hand side) from this PETSc binary file", NULL, file, file, sizeof(file), &load));
  PetscCall(PetscOptionsString("-write", "Write the matrix and right-hand side to this PETSc binary file", NULL, wfile, wfile, sizeof(wfile), &write));
  PetscCall(PetscOptionsBool("-reload", "Load the written file back and check it", NULL, reload, &reload, NULL));
  PetscCall(PetscOptionsBool("-check_serial", "Compare the written file with the matrix generated on one rank", NULL, serial, &serial, NULL));
  PetscCall(PetscOptionsString("-convert_type", "Convert the matrix to this type before solving", NULL, ctype, ctype, sizeof(ctype), &convert));
  PetscCall(PetscOptionsBool("-no_solve", "Only describe the matrix", NULL, nosolve, &nosolve, NULL));
  PetscCall(PetscOptionsBool("-check_dmplex", "Compare fem_q1/fem_q2 with DMPlex's FEM assembly", NULL, dmplex, &dmplex, NULL));
  PetscCall(PetscOptionsBool("-check_rbm", "Check the rigid body modes of elasticity3d", NULL, rbm, &rbm, NULL));
  PetscOptionsEnd();
  if (write) {
    size_t len;

    PetscCall(PetscStrlen(wfile, &len));
    if (len && wfile[len - 1] == '/') {
      PetscCheck(!load, comm, PETSC_ERR_USER_INPUT, "-write %s names a folder: give a file name when the matrix comes from -f", wfile);
      PetscCall(PetscSNPrintf(wfile + len, sizeof(wfile) - len, "%s-%" PetscInt_FMT ".petsc", name, size));
    }
  }

  if (list) {
    PetscInt           n;
    const char *const *names;

    PetscCall(PetscGILUTestMatrixList(&n, &names));
    for (PetscInt l = 0; l < n; l++) {
      const char *desc;

      PetscCall(PetscGILUTestMatrixGetInfo(names[l], &spd, &bs, &desc));
      PetscCall(PetscPrintf(comm, "%-13s spd %-3s bs %" PetscInt_FMT "  %s\n", names[l], spd ? "yes" : "no", bs, desc));
    }
    PetscCall(PetscFinalize());
    return 0;
  }

  if (load) PetscCall(LoadFile(comm, file, &A, &b));
  else PetscCall(PetscGILUTestMatrixCreate(comm, name, size, &A, &b));

  if (write) {
    PetscViewer viewer;

    PetscCall(PetscViewerBinaryOpen(comm, wfile, FILE_MODE_WRITE, &viewer));
    PetscCall(MatView(A, viewer));
    PetscCall(VecView(b, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    if (serial && !load) {
      Mat         As, Af;
      Vec         bs_, bf;
      PetscBool   eqA, eqb;
      PetscMPIInt neq, one;

      /* the same bits whatever the number of ranks that generated and wrote it */
      PetscCall(PetscGILUTestMatrixCreate(PETSC_COMM_SELF, name, size, &As, &bs_));
      PetscCall(LoadFile(PETSC_COMM_SELF, wfile, &Af, &bf));
      PetscCall(SameMatrix(As, Af, &eqA));
      PetscCall(VecEqual(bs_, bf, &eqb));
      one = (eqA && eqb) ? 1 : 0;
      PetscCallMPI(MPI_Allreduce(&one, &neq, 1, MPI_INT, MPI_SUM, comm));
      PetscCall(PetscPrintf(comm, "%s against the matrix generated on one rank: %s\n", wfile, neq == 0 ? "DIFFERENT on every rank" : (one ? "equal" : "DIFFERENT")));
      PetscCall(MatDestroy(&As));
      PetscCall(MatDestroy(&Af));
      PetscCall(VecDestroy(&bs_));
      PetscCall(VecDestroy(&bf));
    }
    if (reload) {
      Mat       A2;
      Vec       b2;
      PetscBool eqA, eqb;

      PetscCall(LoadFile(comm, wfile, &A2, &b2));
      PetscCall(SameMatrix(A, A2, &eqA));
      PetscCall(VecEqual(b, b2, &eqb));
      PetscCall(PetscPrintf(comm, "reloaded %s: matrix %s, right-hand side %s\n", wfile, eqA ? "equal" : "DIFFERENT", eqb ? "equal" : "DIFFERENT"));
      PetscCall(MatDestroy(&A));
      PetscCall(VecDestroy(&b));
      A = A2, b = b2;
    }
  }
  if (dmplex && !load) PetscCall(CheckDMPlex(comm, name, size, A));
  if (rbm && !load) PetscCall(CheckRigidBodyModes(comm, name, size, A));
  if (convert) PetscCall(MatConvert(A, ctype, MAT_INPLACE_MATRIX, &A));

  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetType(A, &type));
  PetscCall(IsSymmetric(A, &sym));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &norm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  if (load) PetscCall(PetscPrintf(comm, "%s: ", file));
  else PetscCall(PetscPrintf(comm, "%s size %" PetscInt_FMT ": ", name, size));
  PetscCall(PetscPrintf(comm, "n %" PetscInt_FMT " nnz %.0f bs %" PetscInt_FMT " type %s symmetric %s norm %.6e rhs norm %.6e\n", N, (double)info.nz_used, bs, type, sym ? "yes" : "no", (double)norm, (double)bnorm));

  if (!nosolve) {
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT " %s\n", its, KSPConvergedReasons[reason]));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: list
     args: -list

   # every matrix at a small size: its description, then CG + ICC (SPD) or GMRES + ILU
   test:
     suffix: spd
     args: -size 12 -ksp_type cg -pc_type icc -ksp_rtol 1e-8 -matrix {{aniso3d jump3d fem_q1 fem_q2 elasticity3d circuit perm7 perm27 bsr3}separate output}

   test:
     suffix: gmres_ilu
     args: -size 12 -ksp_type gmres -pc_type ilu -ksp_rtol 1e-8 -matrix {{convdiff3d aniso3d jump3d fem_q1 fem_q2 elasticity3d circuit perm7 perm27 bsr3}separate output}

   # the same matrices on 2 ranks (n, nnz and norm as on 1 rank; block Jacobi iterations)
   test:
     suffix: np2
     nsize: 2
     args: -size 12 -ksp_type gmres -pc_type bjacobi -sub_pc_type ilu -ksp_rtol 1e-8 -matrix {{convdiff3d jump3d circuit bsr3}separate output}

   # write, load back (the -f path), compare, and solve with what was loaded: the iterations of spd_matrix-X
   test:
     suffix: roundtrip_jump3d
     args: -size 12 -ksp_type cg -pc_type icc -ksp_rtol 1e-8 -write ./ -reload -matrix jump3d

   test:
     suffix: roundtrip_bsr3
     args: -size 12 -ksp_type cg -pc_type icc -ksp_rtol 1e-8 -write ./ -reload -matrix bsr3

   # written from 2 ranks: the same file as generated on one, and the iterations of np2_matrix-convdiff3d
   test:
     suffix: roundtrip_np2
     nsize: 2
     args: -size 12 -ksp_type gmres -pc_type bjacobi -sub_pc_type ilu -ksp_rtol 1e-8 -write ./ -reload -check_serial -matrix convdiff3d

   # every matrix written from 3 ranks is bitwise the one generated on one rank
   test:
     suffix: serial_np3
     nsize: 3
     args: -size 7 -no_solve -write ./ -check_serial -matrix {{convdiff3d aniso3d jump3d fem_q1 fem_q2 elasticity3d circuit perm7 perm27 bsr3}separate output}

   # elasticity3d converted to MATBAIJ: the iterations of spd_matrix-elasticity3d
   test:
     suffix: convert
     args: -size 12 -ksp_type cg -pc_type icc -ksp_rtol 1e-8 -convert_type {{aij baij}separate output} -matrix elasticity3d

   # fem_q1, fem_q2 against DMPlex's FEM assembly (the same matrix up to the numbering), 1 and 2 ranks
   test:
     suffix: dmplex
     args: -size 9 -no_solve -check_dmplex -matrix {{fem_q1 fem_q2}separate output}

   test:
     suffix: dmplex_np2
     nsize: 2
     args: -size 8 -no_solve -check_dmplex -matrix fem_q2

   # elasticity3d: translations and rotations are in the kernel away from the clamped face
   test:
     suffix: rbm
     nsize: {{1 2}separate output}
     args: -size 6 -no_solve -check_rbm -matrix elasticity3d

   test:
     suffix: unknown
     args: -matrix laplace
     filter: Error: grep -o "Unknown test matrix laplace"

TEST*/
