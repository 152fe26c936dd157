/*
   The papers behind petscgilu's methods, registered with PetscCitationsRegister() where a run uses the method
   (-citations then lists them at PetscFinalize()). Their BibTeX entries are in src/sys/citations.c, the one place
   that holds them; a component calls PetscGILUCitationsRegister() with the paper it implements.
*/
#ifndef PETSCGILU_CITATIONS_H
#define PETSCGILU_CITATIONS_H

#include <petscsys.h>
#include <petscgilu/private/compat.h>

typedef enum {
  GILU_CITE_STRUCTILU,   /* the StructILU paper (Luo et al., ICS '25): PCSTRUCTILU, MatSolverType structilu */
  GILU_CITE_SPCG,        /* the SPCG paper (Ma et al.): PCSPARSIFY */
  GILU_CITE_ATSILU,      /* the ATS-ILU paper (Tunnell and Boman): PCATSILU with -pc_atsilu_algorithm ats */
  GILU_CITE_FGDD,        /* the FGDD paper (Gondhalekar et al.): PCFGDD */
  GILU_CITE_BLOCKSPTRSV, /* the Block SpTRSV paper (Lu, Niu and Liu, ICPP '20): the engine's colblock, rowblock, recblock and auto */
  GILU_CITE_EISENSTAT,   /* Eisenstat (1981): -pc_structilu_eisenstat */
  GILU_CITE_COUNT
} GILUCitation;

/* Registers the paper's BibTeX entry once per run (later calls do nothing) */
PETSC_INTERN PetscErrorCode PetscGILUCitationsRegister(GILUCitation);

#endif
