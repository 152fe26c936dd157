/*
   The BibTeX entries of the papers petscgilu implements, in one place (include/petscgilu/private/citations.h lists
   who registers which). PetscCitationsRegister() keeps each entry for -citations, which prints them at PetscFinalize().
*/
#include <petscgilu/private/citations.h>

static const char StructILUCitation[] = "@inproceedings{luo2025structilu,\n"
                                        "  author    = {Hao Luo and Qianchao Zhu and Xiaochen Hao and Chunxi Lei and Chengdi Ma and Chenchen Zhang and Yun Liang and Chao Yang},\n"
                                        "  title     = {{StructILU}: Dependency-Preserving Incomplete {LU} with Hierarchical Parallelism for Structured Grid {PDEs} on {GPUs}},\n"
                                        "  booktitle = {Proceedings of the 2025 International Conference on Supercomputing},\n"
                                        "  series    = {ICS '25},\n"
                                        "  publisher = {ACM},\n"
                                        "  year      = {2025},\n"
                                        "  doi       = {10.1145/3721145.3725745}\n"
                                        "}\n";

static const char SPCGCitation[] = "@misc{ma2025spcg,\n"
                                   "  author = {Da Ma and Khalid Ahmad and Kazem Cheshmi and Hari Sundar and Mary Hall},\n"
                                   "  title  = {Sparsified Preconditioned Conjugate Gradient Solver on {GPUs}},\n"
                                   "  note   = {Preprint},\n"
                                   "  year   = {2025}\n"
                                   "}\n";

static const char ATSILUCitation[] = "@misc{tunnell-boman-atsilu,\n"
                                     "  author = {Marc A. Tunnell and Erik G. Boman},\n"
                                     "  title  = {Parallel Incomplete {LU} Factorizations Based on Alternating Triangular Solves},\n"
                                     "  note   = {Preprint}\n"
                                     "}\n";

static const char FGDDCitation[] = "@misc{gondhalekar-fgdd,\n"
                                   "  author = {Atharva Gondhalekar and Kjetil Haugen and Thomas Gibson and Wu-chun Feng},\n"
                                   "  title  = {Mapping Sparse Triangular Solves to {GPUs} via Fine-grained Domain Decomposition},\n"
                                   "  note   = {Preprint}\n"
                                   "}\n";

static const char BlockSpTRSVCitation[] = "@inproceedings{lu2020blocksptrsv,\n"
                                          "  author    = {Zhengyang Lu and Yuyao Niu and Weifeng Liu},\n"
                                          "  title     = {Efficient Block Algorithms for Parallel Sparse Triangular Solve},\n"
                                          "  booktitle = {Proceedings of the 49th International Conference on Parallel Processing},\n"
                                          "  series    = {ICPP '20},\n"
                                          "  publisher = {ACM},\n"
                                          "  year      = {2020},\n"
                                          "  doi       = {10.1145/3404397.3404413}\n"
                                          "}\n";

static const char EisenstatCitation[] = "@article{eisenstat1981,\n"
                                        "  author  = {Stanley C. Eisenstat},\n"
                                        "  title   = {Efficient Implementation of a Class of Preconditioned Conjugate Gradient Methods},\n"
                                        "  journal = {SIAM Journal on Scientific and Statistical Computing},\n"
                                        "  volume  = {2},\n"
                                        "  number  = {1},\n"
                                        "  pages   = {1--4},\n"
                                        "  year    = {1981}\n"
                                        "}\n";

/* in the order of GILUCitation */
static const char *const GILUCitations[GILU_CITE_COUNT] = {StructILUCitation, SPCGCitation, ATSILUCitation, FGDDCitation, BlockSpTRSVCitation, EisenstatCitation};
static PetscBool         GILUCited[GILU_CITE_COUNT];

PetscErrorCode PetscGILUCitationsRegister(GILUCitation paper)
{
  PetscFunctionBegin;
  PetscCheck((unsigned)paper < GILU_CITE_COUNT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown citation %d", (int)paper);
  PetscCall(PetscCitationsRegister(GILUCitations[paper], &GILUCited[paper]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
