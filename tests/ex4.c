static char help[] = "Self-tests of petscgilu's host emulation of the CUDA execution model (cudaemu).\n\
  -test <name> : run only this test (default: all); prints only failures\n\n";

/*
  Runs the kernels of src/test/cudaemu/selftest.cu (the test library) through the emulation (PetscGILUCUDASelfTest_cudaemu):
  block reductions with barriers (exact sum) and without (the missing barrier must change the sum), warp
  shuffles and votes against their CUDA definitions, spin-waits between threads of a block and between blocks
  (a chain of blocks by ticket), the FP64 MMA m8n8k4 wrapper against a plain GEMM, static and dynamic shared
  memory (with the 48 KiB opt-in rule), atomics, and six broken kernels (two deadlocks, divergent warp
  operations, a chain by blockIdx under reverse dispatch, a signal without its fence, barriers at two call sites)
  that the emulation must stop with an error naming the kernel and the block instead of hanging; the counters
  (-gilu_cudaemu_counters): the sectors of coalesced, strided and broadcast warp loads, and the round trips of a chain
  of blocks waiting once and waiting per thread; the poison of the emulated cudaMalloc() (NaN, -1: a read of what nothing
  wrote shows in every run). Silent on success. Run under the three schedules of make check.
*/
#include <petscsys.h>
#include <petscgilu.h>
#include <petscgilutest.h>

int main(int argc, char **argv)
{
  const char *const tests[]  = {"reduce_barrier", "reduce_nobarrier", "warp_shfl",     "warp_vote",        "spin_intrablock", "interblock_chain", "mma",
                                "dynamic_shared", "static_shared",    "shared_optin",  "atomics",          "deadlock_flag",   "deadlock_barrier", "divergent_warp",
                                "blockidx_order", "signal_nofence",   "barrier_sites", "counters_sectors", "counters_clock",  "poisoned_alloc",   "kernel_names"};
  char              only[64] = "";
  PetscBool         ok, match;
  size_t            i;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", only, sizeof(only), NULL));
  for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
    PetscCall(PetscStrcmp(only, tests[i], &match));
    if (only[0] && !match) continue;
    PetscCall(PetscGILUCUDASelfTest_cudaemu(tests[i], &ok));
    if (!ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cudaemu self-test %s FAILED\n", tests[i]));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: cudaemu

   test:
     requires: cudaemu
     args: -gilu_cudaemu_schedule {{inorder reverse random}separate output} -gilu_cudaemu_seed 7
     output_file: output/empty.out

   # a single test by name (the harness would catch a hang of the deadlock test by its timeout)
   test:
     suffix: deadlock
     requires: cudaemu
     args: -test deadlock_flag
     output_file: output/empty.out

TEST*/
