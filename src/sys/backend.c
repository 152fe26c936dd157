/*
   Which back-ends this build of petscgilu has, which devices it finds at run time, and the choice of back-end:
   -gilu_backend auto|host|cuda|cudaemu (the global default; objects have their own option, e.g. -pc_structilu_backend).
*/
#if !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* dladdr() */
#endif
#include <petsc/private/petscimpl.h>
#include <petscgilu/private/backend.h>
#if defined(PETSCGILU_HAVE_CUDAEMU)
  #include <petscgilu/private/cudaemu.h>
#endif
#if defined(PETSCGILU_HAVE_CUDA)
  #include <dlfcn.h>
#endif

#if defined(PETSCGILU_HAVE_CUDA)
  #define GILU_HAVE_CUDA_BUILD PETSC_TRUE
#else
  #define GILU_HAVE_CUDA_BUILD PETSC_FALSE
#endif
#if defined(PETSCGILU_HAVE_CUDAEMU)
  #define GILU_HAVE_CUDAEMU_BUILD PETSC_TRUE
#else
  #define GILU_HAVE_CUDAEMU_BUILD PETSC_FALSE
#endif

PetscMPIInt GILUNodeRank = 0, GILUNodeSize = 1;

/* The rank of this process on its node and the number of processes there (MPI_COMM_TYPE_SHARED), found once when the
   package is initialized (collective on PETSC_COMM_WORLD there): the device choice and the default host threads */
PetscErrorCode GILUNodeRankSetUp(void)
{
  MPI_Comm node;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &GILUNodeRank));
  PetscCallMPI(MPI_Comm_size(node, &GILUNodeSize));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSCGILU_HAVE_CUDA)
/* The CUDA back-end's library (the nvcc objects): opened once, the first time the cuda back-end is considered (the
   device count of auto, -gilu_backend cuda). It is looked for in the folder libpetscgilu.so was loaded from (dladdr),
   so the build tree and an installation each load their own; without dladdr, in dlopen()'s search path. Never
   closed: its kernels may run until the program ends. */
static void     *GILUCudaLib      = NULL;
static PetscBool GILUCudaLibTried = PETSC_FALSE;
static char      GILUCudaLibWhy[PETSC_MAX_PATH_LEN + 512];

PetscErrorCode GILUCudaLibraryOpen(PetscBool *loaded, const char **why)
{
  char path[PETSC_MAX_PATH_LEN] = GILU_CUDA_LIBRARY;

  PetscFunctionBegin;
  if (!GILUCudaLibTried) {
  #if defined(PETSC_HAVE_DLADDR)
    Dl_info info;

    if (dladdr((void *)GILUCudaLibraryOpen, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
      char *slash;

      PetscCall(PetscStrncpy(path, info.dli_fname, sizeof(path)));
      PetscCall(PetscStrrchr(path, '/', &slash)); /* slash points past the last '/' */
      *slash = 0;
      PetscCall(PetscStrlcat(path, GILU_CUDA_LIBRARY, sizeof(path)));
    }
  #endif
    GILUCudaLibTried = PETSC_TRUE;
    GILUCudaLib      = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!GILUCudaLib) {
      const char *err = dlerror();

      PetscCall(PetscSNPrintf(GILUCudaLibWhy, sizeof(GILUCudaLibWhy), "the CUDA back-end's library %s could not be loaded (%s); 'make' builds it beside lib/libpetscgilu.so ('make run' builds only the host library), 'make install' installs both", path, err ? err : "no reason given"));
      PetscCall(PetscInfo(NULL, "%s\n", GILUCudaLibWhy));
    } else PetscCall(PetscInfo(NULL, "loaded the CUDA back-end's library %s\n", path));
  }
  *loaded = GILUCudaLib ? PETSC_TRUE : PETSC_FALSE;
  if (why) *why = GILUCudaLib ? NULL : GILUCudaLibWhy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUCudaLibrarySym(const char name[], void (**f)(void))
{
  PetscBool   loaded;
  const char *why;
  void       *sym;

  PetscFunctionBegin;
  PetscCall(GILUCudaLibraryOpen(&loaded, &why));
  PetscCheck(loaded, PETSC_COMM_SELF, PETSC_ERR_LIB, "The CUDA back-end needs %s: %s", name, why);
  sym = dlsym(GILUCudaLib, name);
  PetscCheck(sym, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s not found in the CUDA back-end's library %s: it was not built from these sources (run make)", name, GILU_CUDA_LIBRARY);
  *f = (void (*)(void))sym;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

const char *const PetscGILUBackendTypes[] = {"auto", "host", "cuda", "cudaemu", "PetscGILUBackendType", "PETSCGILU_BACKEND_", NULL};

PetscErrorCode PetscGILUGetDeviceCount(PetscInt *count)
{
  static PetscInt cached = -1; /* the runtime is asked once */

  PetscFunctionBegin;
  if (cached < 0) {
    cached = 0;
#if defined(PETSCGILU_HAVE_CUDA)
    PetscBool loaded;

    PetscCall(GILUCudaLibraryOpen(&loaded, NULL)); /* without its library the cuda back-end has no device */
    if (loaded) {
      PetscErrorCode (*count)(PetscInt *);

      PetscCall(GILUCudaLibrarySym("PetscGILUGetDeviceCount_CUDA", (void (**)(void))&count));
      PetscCall((*count)(&cached));
    }
#endif
  }
  *count = cached;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscGILUBackendDescribe(char line[], size_t len)
{
  PetscInt ndev = 0;

  PetscFunctionBegin;
  PetscCall(PetscGILUGetDeviceCount(&ndev));
#if defined(PETSCGILU_HAVE_CUDA)
  {
    PetscBool   loaded;
    const char *why;

    PetscCall(GILUCudaLibraryOpen(&loaded, &why));
    if (loaded) PetscCall(PetscSNPrintf(line, len, "library built with CUDA; %" PetscInt_FMT " CUDA device(s) found%s", ndev, GILU_HAVE_CUDAEMU_BUILD ? "; CUDA emulation (cudaemu) available" : ""));
    else PetscCall(PetscSNPrintf(line, len, "library built with CUDA, but %s%s", why, GILU_HAVE_CUDAEMU_BUILD ? "; CUDA emulation (cudaemu) available" : ""));
  }
#else
  PetscCall(PetscSNPrintf(line, len, "library built without CUDA%s", GILU_HAVE_CUDAEMU_BUILD ? "; CUDA emulation (cudaemu) available" : ""));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUGetBackend - The global default back-end, from the option -gilu_backend (default auto)

  Not Collective

  Output Parameter:
. type - the back-end asked for: `PETSCGILU_BACKEND_AUTO`, `PETSCGILU_BACKEND_HOST`, `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Options Database Key:
. -gilu_backend auto|host|cuda|cudaemu - where petscgilu's kernels run, for every object that does not say otherwise

  Notes:
  Objects read it when they are set up, unless their own option (e.g. `-pc_structilu_backend`) was given;
  `PetscGILUBackendResolve()` turns auto into host or cuda and checks that the choice is possible.

  Level: intermediate

.seealso: `PetscGILUBackendType`, `PetscGILUBackendResolve()`, `PCStructILUSetBackend()`
@*/
PetscErrorCode PetscGILUGetBackend(PetscGILUBackendType *type)
{
  PetscFunctionBegin;
  GILUAssertPointer(type, 1);
  *type = PETSCGILU_BACKEND_AUTO;
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-gilu_backend", PetscGILUBackendTypes, (PetscEnum *)type, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The options of the whole plugin (every object of it reads them): read, checked and listed by -help once, when the
  package is initialized (PetscGILUInitializePackage()). The objects consult the database again (PetscGILUGetBackend()
  at each setup; GILUScheduleGetDelay() where a structilu schedule or an engine's plan is made and at each threaded
  numeric factorization of gilu), so a program may change them between solves; the options of the
  emulation are listed with their checks where the cudaemu back-end is first chosen (GILUEmuOptionsHelp()).
*/
static PetscErrorCode ReadPackageOptions(GILUOptionItems PetscOptionsObject, void *ctx)
{
  PetscGILUBackendType backend = PETSCGILU_BACKEND_AUTO;
  PetscInt             delay   = 0;

  PetscFunctionBegin;
  (void)ctx;
  PetscCall(PetscOptionsEnum("-gilu_backend", "Where petscgilu's kernels run, for every object without its own -..._backend option", "PetscGILUGetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsInt("-gilu_schedule_delay", "Developer test hook: microseconds a host thread sleeps before its first unit of work (structilu's sweeps, the triangular-solve engine's triangles, gilu's numeric factorization), so a missing wait shows in every run (environment: GILU_SCHEDULE_DELAY)", "None", delay, &delay, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUOptionsSetUp(void)
{
  PetscFunctionBegin;
  PetscCall(GILUOptionsBlock(PETSC_COMM_WORLD, NULL, NULL, "petscgilu options (every object of the plugin)", "Sys", ReadPackageOptions, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUScheduleGetDelay(PetscInt *delay)
{
  const char *env = getenv("GILU_SCHEDULE_DELAY");
  PetscBool   set;

  PetscFunctionBegin;
  *delay = 0;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-gilu_schedule_delay", delay, &set));
  if (!set && env && env[0]) *delay = (PetscInt)strtol(env, NULL, 10);
  PetscCheck(*delay >= 0 && *delay <= 1000000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-gilu_schedule_delay (or GILU_SCHEDULE_DELAY) %" PetscInt_FMT ": give microseconds in 0..1000000", *delay);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILUOptionsBlock(MPI_Comm comm, PetscOptions options, const char prefix[], const char title[], const char section[], PetscErrorCode (*read)(GILUOptionItems, void *), void *ctx)
{
  PetscErrorCode err = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, prefix, title, section);
  if (options) PetscOptionsObject->options = options; /* the object's database, as PetscObjectOptionsBegin() would take */
  if (!err) err = read(PetscOptionsObject, ctx);      /* (a second pass publishes the options: not after an error) */
  PetscOptionsEnd();
  PetscCall(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUBackendResolve - The back-end that runs for a request: auto becomes cuda when the library was built
  with CUDA and a device is present, else host; cuda and cudaemu are checked to be available

  Not Collective

  Input Parameters:
+ comm - communicator for the error
- type - the back-end asked for

  Output Parameter:
. resolved - `PETSCGILU_BACKEND_HOST`, `PETSCGILU_BACKEND_CUDA` or `PETSCGILU_BACKEND_CUDAEMU`

  Notes:
  Asking for cuda in a build without CUDA, or where no device is found, is an error that says so; the emulation
  needs a build with the emulation (PETSCGILU_HAVE_CUDAEMU, the default).

  Level: developer

.seealso: `PetscGILUGetBackend()`, `PetscGILUBackendType`
@*/
PetscErrorCode PetscGILUBackendResolve(MPI_Comm comm, PetscGILUBackendType type, PetscGILUBackendType *resolved)
{
  PetscInt ndev = 0;

  PetscFunctionBegin;
  GILUAssertPointer(resolved, 3);
  PetscCall(PetscGILUGetDeviceCount(&ndev));
  switch (type) {
  case PETSCGILU_BACKEND_AUTO:
    *resolved = (GILU_HAVE_CUDA_BUILD && ndev > 0) ? PETSCGILU_BACKEND_CUDA : PETSCGILU_BACKEND_HOST;
    break;
  case PETSCGILU_BACKEND_CUDA:
    PetscCheck(GILU_HAVE_CUDA_BUILD, comm, PETSC_ERR_SUP_SYS, "The CUDA back-end was asked for (-gilu_backend cuda or an object's -..._backend cuda), but petscgilu was built without CUDA: rebuild with PETSCGILU_WITH_CUDA=1, or use -gilu_backend host (or cudaemu, the host emulation of the CUDA kernels)");
#if defined(PETSCGILU_HAVE_CUDA)
    {
      PetscBool   loaded;
      const char *why;

      PetscCall(GILUCudaLibraryOpen(&loaded, &why));
      PetscCheck(loaded, comm, PETSC_ERR_LIB, "The CUDA back-end was asked for (-gilu_backend cuda or an object's -..._backend cuda), but %s; or use -gilu_backend host (or cudaemu, the host emulation of the CUDA kernels)", why);
    }
#endif
    PetscCheck(ndev > 0, comm, PETSC_ERR_SUP_SYS, "The CUDA back-end was asked for (-gilu_backend cuda or an object's -..._backend cuda), but no CUDA device was found (no GPU or no driver): use -gilu_backend auto or host (or cudaemu, the host emulation of the CUDA kernels)");
    *resolved = type;
    break;
  case PETSCGILU_BACKEND_CUDAEMU:
    PetscCheck(GILU_HAVE_CUDAEMU_BUILD, comm, PETSC_ERR_SUP_SYS, "The CUDA emulation back-end (cudaemu) was asked for, but petscgilu was built without it");
#if defined(PETSCGILU_HAVE_CUDAEMU)
    PetscCall(GILUEmuOptionsHelp(comm));
#endif
    *resolved = type;
    break;
  default:
    *resolved = PETSCGILU_BACKEND_HOST;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscGILUBackendName(PetscGILUBackendType type, char name[], size_t len)
{
  char                 dev[256] = "";
  const GILUDeviceOps *ops;

  PetscFunctionBegin;
  switch (type) {
  case PETSCGILU_BACKEND_CUDA:
    GILUBackendGetDeviceOps(type, GILUDeviceGetOps, &ops);
    PetscCall(ops->getname(dev, sizeof(dev)));
    PetscCall(PetscSNPrintf(name, len, "cuda (%s)", dev));
    break;
  case PETSCGILU_BACKEND_CUDAEMU:
#if defined(PETSCGILU_HAVE_CUDAEMU)
    if (GILUEmuDeviceCount() > 1) { /* -gilu_cudaemu_devices: which of the emulated node's devices this process uses */
      GILUBackendGetDeviceOps(type, GILUDeviceGetOps, &ops);
      PetscCall(ops->getname(dev, sizeof(dev)));
      PetscCall(PetscStrlcat(dev, "; ", sizeof(dev)));
    }
#endif
    PetscCall(PetscSNPrintf(name, len, "cudaemu (%sthe CUDA kernels run on the host by the emulation of the CUDA execution model)", dev));
    break;
  default:
    PetscCall(PetscSNPrintf(name, len, "host"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
