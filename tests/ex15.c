static char help[] = "The version of petscgilu: the library's string and numbers against the headers the program was built with.\n\n";

/*
  Prints PetscGILUGetVersion() and checks that the library that runs has the version of the headers
  (petscgiluversion.h): PetscGILUGetVersionNumber() and the PETSCGILU_VERSION_ macros must agree.
*/
#include <petscsys.h>
#include <petscgilu.h>

int main(int argc, char **argv)
{
  char      version[128], expect[128];
  PetscInt  major, minor, subminor, release;
  PetscBool same;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscGILUGetVersion(version, sizeof(version)));
  PetscCall(PetscGILUGetVersionNumber(&major, &minor, &subminor, &release));
  PetscCheck(major == PETSCGILU_VERSION_MAJOR && minor == PETSCGILU_VERSION_MINOR && subminor == PETSCGILU_VERSION_SUBMINOR && release == PETSCGILU_VERSION_RELEASE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "library version %" PetscInt_FMT ".%" PetscInt_FMT ".%" PetscInt_FMT " is not the headers' %d.%d.%d", major, minor, subminor, PETSCGILU_VERSION_MAJOR, PETSCGILU_VERSION_MINOR, PETSCGILU_VERSION_SUBMINOR);
  PetscCall(PetscSNPrintf(expect, sizeof(expect), "petscgilu %" PetscInt_FMT ".%" PetscInt_FMT ".%" PetscInt_FMT "%s", major, minor, subminor, release ? "" : " (development)"));
  PetscCall(PetscStrcmp(version, expect, &same));
  PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PetscGILUGetVersion() gives \"%s\", its numbers say \"%s\"", version, expect);
  PetscCheck(PETSCGILU_VERSION_GE(0, 1, 0) && !PETSCGILU_VERSION_LT(0, 1, 0) && PETSCGILU_VERSION_LT(PETSCGILU_VERSION_MAJOR + 1, 0, 0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the PETSCGILU_VERSION_ comparison macros are wrong");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", version));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     filter: sed -E "s/[0-9]+[.][0-9]+[.][0-9]+/M.m.s/"

TEST*/
