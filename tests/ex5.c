static char help[] = "The back-end layer: -gilu_backend and -pc_structilu_backend on a 3D Laplacian (7-point, DMDA).\n\
  -n <n> : grid points per direction (default 6)\n\
  -subset : only the last process solves, on PETSC_COMM_SELF\n\
Prints the iterations and the back-end that ran (PCStructILUGetBackend()).\n\n";

/*
  Solves a 3D Laplacian with the KSP and PC of the options database (PCSTRUCTILU in the tests) and prints the
  iteration count and the back-end the PC ran on: auto is host where there is no device, the per-object option
  overrides the global one, cuda without a device is an error that says so, and on cudaemu the PC gives the host's
  iterations, shows its device schedule and performance model in -ksp_view, and logs its host-device copies.
*/
#include <petscdmda.h>
#include <petscksp.h>
#include <petscgilu.h>
#include <petscgilu/private/compat.h>

int main(int argc, char **argv)
{
  PetscInt             n = 6, its;
  DM                   da;
  Mat                  A;
  Vec                  x, b;
  KSP                  ksp;
  PC                   pc;
  PetscBool            isstruct, subset = PETSC_FALSE;
  PetscMPIInt          rank, size;
  MPI_Comm             comm;
  PetscGILUBackendType ran;
  DMDALocalInfo        info;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-subset", &subset, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (subset) { /* the objects of the other processes are never created: their setup must not wait for them */
    comm = PETSC_COMM_SELF;
    if (rank != size - 1) {
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt    nc = 0;

        for (PetscInt s = 0; s < 7; s++) {
          // clang-format off: the offsets on one line
          PetscInt d[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
          // clang-format on

          if (i + d[s][0] < 0 || i + d[s][0] >= info.mx || j + d[s][1] < 0 || j + d[s][1] >= info.my || k + d[s][2] < 0 || k + d[s][2] >= info.mz) continue;
          col[nc].i = i + d[s][0];
          col[nc].j = j + d[s][1];
          col[nc].k = k + d[s][2];
          col[nc].c = 0;
          v[nc++]   = s == 3 ? 6.0 : -1.0;
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSet(x, 0.0));

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSTRUCTILU));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSTRUCTILU, &isstruct));
  if (isstruct) {
    PetscCall(PCStructILUGetBackend(pc, &ran));
    PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT ", back-end %s\n", its, PetscGILUBackendTypes[ran]));
    /* a second solve after a new numeric setup (same pattern): the device gets the new factors */
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT " after MatScale\n", its));
  } else PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT "\n", its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # auto is host where no device is found; the same iterations on every back-end
   test:
     suffix: backend
     args: -gilu_backend {{auto host cudaemu}separate output}
     requires: cudaemu !cuda_device

   # a device object on one process of two: choosing its device needs no other process (the rank on the node was found
   # when the package was initialized); with two emulated devices the node's second process takes the second
   test:
     suffix: device_subset
     nsize: 2
     requires: cudaemu
     args: -n 5 -subset -gilu_backend cudaemu -gilu_cudaemu_devices 2 -ksp_view
     filter: grep -E "back-end" | sed -e "s/; library built.*$//"

   # the PC's own option overrides the global one
   test:
     suffix: override
     requires: cudaemu
     args: -gilu_backend host -pc_structilu_backend cudaemu -gilu_cudaemu_schedule {{inorder reverse random}shared output}
     output_file: output/ex5_override.out

   # cuda where there is no device: a clear error
   test:
     suffix: no_device
     requires: cuda !cuda_device
     args: -gilu_backend cuda
     filter: Error: grep -o "no CUDA device was found"

   # cuda in a build without CUDA (no nvcc found, or PETSCGILU_WITH_CUDA=0): a clear error
   test:
     suffix: no_cuda_build
     requires: !cuda
     args: -gilu_backend cuda
     filter: Error: grep -o "petscgilu was built without CUDA"

   # what -ksp_view shows on the emulated back-end: the device schedule and the performance model
   test:
     suffix: view
     requires: cudaemu
     args: -n 5 -gilu_backend cudaemu -ksp_view -pc_structilu_model_gpu {{h100 h200}separate output}
     filter: grep -E "back-end|device|model|iterations" | sed -e "s/; library built.*$//"

   # the lines mapping in the view: the transformed grid, the blocks of lines, the predecessor blocks
   test:
     suffix: view_lines
     requires: cudaemu
     args: -n 5 -gilu_backend cudaemu -ksp_view -pc_structilu_cuda_mapping lines -pc_structilu_cuda_tile_points 4
     filter: grep -E "back-end|device|model|iterations" | sed -e "s/; library built.*$//"

   # the host-device copies are logged: per apply b in, x out; at setup the schedule and the factors
   test:
     suffix: log
     requires: cudaemu
     args: -n 5 -gilu_backend cudaemu -log_view
     filter: grep -E "^GILUCopyTo" | cut -c 1-24

   test:
     suffix: malloc
     requires: cudaemu
     args: -n 5 -gilu_backend cudaemu -malloc_debug -malloc_dump -gilu_cudaemu_schedule random
     output_file: output/ex5_override.out

   # on a machine with a GPU
   test:
     suffix: cuda
     requires: cuda_device
     args: -gilu_backend {{auto cuda}shared output} -ksp_view
     filter: grep -o -E "back-end: cuda |iterations [0-9]+(, back-end cuda)?"

TEST*/
