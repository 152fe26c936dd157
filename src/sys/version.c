/* The version of petscgilu, for programs that load or link it (the numbers are in petscgiluversion.h) */
#include <petscgilu.h>
#include <petsc/private/petscimpl.h>
#include <petscgilu/private/giluimpl.h>

/*@C
  PetscGILUGetVersion - the version of petscgilu as a string, e.g. "petscgilu 0.1.0 (development)"

  Not Collective

  Input Parameter:
. len - the length of the buffer

  Output Parameter:
. version - the version string

  Level: intermediate

  Note:
  The numbers are those of the library that runs (`-dll_append` may load another build than the headers a program
  was compiled with); `PETSCGILU_VERSION_MAJOR`, ... in `petscgiluversion.h` are those of the headers.

.seealso: `PetscGILUGetVersionNumber()`, `PetscGILUInitializePackage()`
@*/
PetscErrorCode PetscGILUGetVersion(char version[], size_t len)
{
  PetscFunctionBegin;
  GILUAssertPointer(version, 1);
  PetscCall(PetscSNPrintf(version, len, "petscgilu %d.%d.%d%s", PETSCGILU_VERSION_MAJOR, PETSCGILU_VERSION_MINOR, PETSCGILU_VERSION_SUBMINOR, PETSCGILU_VERSION_RELEASE ? "" : " (development)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUGetVersionNumber - the version numbers of petscgilu

  Not Collective

  Output Parameters:
+ major    - the major version (or `NULL`)
. minor    - the minor version (or `NULL`)
. subminor - the subminor version (or `NULL`)
- release  - 1 for a release, 0 for the development version (or `NULL`)

  Level: intermediate

.seealso: `PetscGILUGetVersion()`
@*/
PetscErrorCode PetscGILUGetVersionNumber(PetscInt *major, PetscInt *minor, PetscInt *subminor, PetscInt *release)
{
  PetscFunctionBegin;
  if (major) *major = PETSCGILU_VERSION_MAJOR;
  if (minor) *minor = PETSCGILU_VERSION_MINOR;
  if (subminor) *subminor = PETSCGILU_VERSION_SUBMINOR;
  if (release) *release = PETSCGILU_VERSION_RELEASE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
