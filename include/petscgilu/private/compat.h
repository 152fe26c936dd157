/* The few differences between PETSc 3.18 and newer releases (up to 3.25) that petscgilu touches.

   Each entry names the release that changed the API; the code is written against the newest API where a
   macro can give it to the older releases, and through a GILU name where the two cannot be reconciled by
   a macro (a type that changed its level of indirection, a callback that changed its signature).
   Only public PETSc headers are read here. */
#ifndef PETSCGILU_COMPAT_H
#define PETSCGILU_COMPAT_H

#include <petscversion.h>
#include <petscsys.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

/* Every release (3.18 to 3.25 and PETSc's main) sizes the list of choices of PetscOptionsGetEList()'s error message (under
   PetscOptionsEnum(), PetscOptionsEList() and PetscOptionsGetEnum()) one byte short when no choice is shorter than the
   one before it (slab, hyperplane: -pc_structilu_schedule; auto, host, cuda, cudaemu: -gilu_backend), so a value that
   is none of the choices writes past the end of that buffer: 3.18 with strcat(), 3.19 on with PetscStrlcat(), whose
   strncat() puts its terminating zero one byte past the length it is given. -malloc_debug then finds the corruption
   (it crashed on 3.18; on 3.25 it reports it beside the error). So the value is checked here first and refused with
   the same error, and PETSc's list is never built. PetscOptionItems became a pointer type in 3.23. */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *GILUOptionItems;
#else
typedef PetscOptionItems GILUOptionItems;
#endif

static inline PetscErrorCode GILUOptionsCheckEList(PetscOptions options, const char pre[], const char opt[], const char *const list[], PetscInt ntext)
{
  char      value[256], avail[1024] = "";
  PetscBool set, found;
  PetscInt  idx;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(options, pre, opt, value, sizeof(value), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEListFind(ntext, list, value, &idx, &found));
  if (found) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < ntext; i++) {
    PetscCall(PetscStrlcat(avail, list[i], sizeof(avail)));
    PetscCall(PetscStrlcat(avail, " ", sizeof(avail)));
  }
  PetscCall(PetscStrtolower(avail));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER, "Unknown option %s for -%s%s. Available options: %s", value, pre ? pre : "", opt + 1, avail);
}

static inline PetscInt GILUEnumChoices(const char *const list[]) /* an enum's list: its choices, the type, the prefix, NULL */
{
  PetscInt n = 0;

  while (list[n]) n++;
  return n - 2;
}

static inline PetscErrorCode GILUOptionsEnumChecked(GILUOptionItems o, const char opt[], const char text[], const char man[], const char *const list[], PetscEnum cur, PetscEnum *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(GILUOptionsCheckEList(o->options, o->prefix, opt, list, GILUEnumChoices(list)));
  PetscCall(PetscOptionsEnum_Private(o, opt, text, man, list, cur, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode GILUOptionsEListChecked(GILUOptionItems o, const char opt[], const char text[], const char man[], const char *const list[], PetscInt ntext, const char cur[], PetscInt *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(GILUOptionsCheckEList(o->options, o->prefix, opt, list, ntext));
  PetscCall(PetscOptionsEList_Private(o, opt, text, man, list, ntext, cur, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode GILUOptionsGetEnumChecked(PetscOptions options, const char pre[], const char opt[], const char *const list[], PetscEnum *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(GILUOptionsCheckEList(options, pre, opt, list, GILUEnumChoices(list)));
  PetscCall(PetscOptionsGetEnum(options, pre, opt, list, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode GILUOptionsGetEListChecked(PetscOptions options, const char pre[], const char opt[], const char *const list[], PetscInt ntext, PetscInt *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(GILUOptionsCheckEList(options, pre, opt, list, ntext));
  PetscCall(PetscOptionsGetEList(options, pre, opt, list, ntext, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#undef PetscOptionsEnum
#define PetscOptionsEnum(a, b, c, d, e, f, g) GILUOptionsEnumChecked(PetscOptionsObject, a, b, c, d, e, f, g)
#undef PetscOptionsEList
#define PetscOptionsEList(a, b, c, d, e, f, g, h) GILUOptionsEListChecked(PetscOptionsObject, a, b, c, d, e, f, g, h)
#define PetscOptionsGetEnum(a, b, c, d, e, f)     GILUOptionsGetEnumChecked(a, b, c, d, e, f)
#define PetscOptionsGetEList(a, b, c, d, e, f, g) GILUOptionsGetEListChecked(a, b, c, d, e, f, g)

/* 3.20: PetscValidPointer() became PetscAssertPointer() */
#if PETSC_VERSION_LT(3, 20, 0)
  #define PetscAssertPointer(h, arg) PetscValidPointer(h, arg)
#endif

/* 3.22: VecSetInf(v) became VecFlag(v, flg), which sets v to Inf when flg is nonzero */
#if PETSC_VERSION_LT(3, 22, 0)
  #define VecFlag(v, flg) ((flg) ? VecSetInf(v) : PETSC_SUCCESS)
#endif

/* 3.23: PetscOptionItems is itself a pointer (struct _n_PetscOptionItems *); the SetFromOptions ops of
   3.18-3.22 take a PetscOptionItems *. PetscOptionsBegin() and the PetscOptionsXxx() macros expect a variable
   named PetscOptionsObject of that type: declare it as `GILUOptionItems PetscOptionsObject`. */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems GILUOptionItems;
#else
typedef PetscOptionItems *GILUOptionItems;
#endif

/* 3.23: PetscContainerSetUserDestroy(c, f(void *)) became PetscContainerSetCtxDestroy(c, f(void **)); the
   plugin's containers only ever hold one PetscMalloc()ed struct, freed by PETSc's default destroy */
#if PETSC_VERSION_GE(3, 23, 0)
  #define GILUContainerSetFree(c) PetscContainerSetCtxDestroy(c, PetscCtxDestroyDefault)
#else
  #define GILUContainerSetFree(c) PetscContainerSetUserDestroy(c, PetscContainerUserDestroyDefault)
#endif

/* 3.25: the destroy routine of a Mat_Product's data (PetscCtxDestroyFn) receives the address of the data, before it
   the data itself: GILU_PRODUCT_DATA(arg) is the data either way */
#if PETSC_VERSION_GE(3, 25, 0)
  #define GILU_PRODUCT_DATA(arg) (*(void **)(arg))
#else
  #define GILU_PRODUCT_DATA(arg) (arg)
#endif

/* 3.24: PetscBool is C's bool, and its MPI datatype is MPI_C_BOOL (MPIU_BOOL is deprecated) */
#if PETSC_VERSION_GE(3, 24, 0)
  #define GILU_MPI_BOOL MPI_C_BOOL
#else
  #define GILU_MPI_BOOL MPIU_BOOL
#endif

/* 3.21: MatCreateGraph() and the creategraph op take the block components to keep (index_size, index[]);
   GILU_CREATEGRAPH_PARAMS declares them in an implementation of the op, GILU_CREATEGRAPH_ARGS passes them on */
#if PETSC_VERSION_GE(3, 21, 0)
  #define GILU_CREATEGRAPH_PARAMS PetscInt index_size, PetscInt index[],
  #define GILU_CREATEGRAPH_ARGS   index_size, index,
#else
  #define GILU_CREATEGRAPH_PARAMS
  #define GILU_CREATEGRAPH_ARGS
#endif

/* 3.25: KSPSetDMActive() says which of the operator, right-hand side and initial guess the DM computes; the
   programs here only ever switch all of them off or on */
#if PETSC_VERSION_GE(3, 25, 0)
  #define GILUKSPSetDMActiveAll(ksp, flg) KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, flg)
#else
  #define GILUKSPSetDMActiveAll(ksp, flg) KSPSetDMActive(ksp, flg)
#endif

/* 3.22: DMPlexCreateBoxMesh() takes the localization height and sparse localization of periodic meshes
   (only significant for periodic meshes; the values are PETSc's defaults) */
#if PETSC_VERSION_GE(3, 22, 0)
  #define GILU_BOXMESH_LOCALIZATION 0, PETSC_TRUE,
#else
  #define GILU_BOXMESH_LOCALIZATION
#endif

#endif
