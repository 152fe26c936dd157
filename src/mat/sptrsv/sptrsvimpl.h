/*
   Inside the triangular-solve engine (src/mat/sptrsv/ only): the GILUTri object (sptrsv.c), its
   execution plan (sptrsv-plan.c) and the host kernels that run it (sptrsv-host.c); the plan's device copy is
   made through the ops table of the CUDA kernels (sptrsvcuda.h, cuda/sptrsv.cu). Calls go one way:
   sptrsv.c -> sptrsv-plan.c -> the kernels (sptrsv-host.c, cuda/sptrsv.cu).

   The plan is a list of segments run in order, with a thread barrier between two segments:
     triangle  rows R of the factor and the entries of those rows whose columns are in R (a
               diagonal block of the factor, in elimination order); solved in place,
               x_r = D_r^{-1} (x_r - sum_c T_rc x_c), by one of the triangle kernels;
     square    rows R and the entries of those rows whose columns are in an earlier block C:
               x_R -= S x_C (an SpMV, rows split among the threads; empty rows dropped, i.e. DCSR).
   The solve copies b to x and runs the segments. Level-set and sync-free are one triangle
   segment; column-block, row-block and recursive-block are sequences of both (the Block
   SpTRSV paper, Algorithms 4-6), with the kernel of each triangle chosen by the table in sptrsv-plan.c
   (Algorithm 7). Columns and x stay in the caller's numbering; only the rows (and their
   entries) of a triangle are stored in its execution order (level by level), so the values
   are streamed and the rows of a level are contiguous. The exception is the whole factor
   (level-set, sync-free, sequential) where that costs no speed (sequential, the CUDA
   back-ends) or where asked: it keeps only its row order and levels and reads each row's
   entries from the caller's arrays (seg->direct), so the factor is held once. Recursive block with the reordering
   (GILUTriSetRecBlockReorder()) splits positions of a topological order (rows by level,
   again inside each triangle before it is split) instead of elimination indices: the
   segments are the same kind of object, only their row sets differ.
   On the CUDA back-ends (cuda, cudaemu) the same plan is copied to the device (sptrsvcuda.h): level-set, sync-free
   and the blocked algorithms run there, triangles by the GPU level-set or sync-free kernel, squares by scalar-CSR or
   vector-CSR, chosen by the GPU rows of the table; sequential and chunked are host-only.
*/
#ifndef PETSCGILU_SPTRSVIMPL_H
#define PETSCGILU_SPTRSVIMPL_H

#include <petscgilu/private/sptrsv.h>
#include <petscgilu/private/stencil.h>
#include <petscgiluconf.h>
#include "sptrsvcuda.h"

typedef enum {
  GILU_SEG_TRIANGLE,
  GILU_SEG_SQUARE
} GILUSegShape;

typedef enum {
  GILU_KERNEL_PARALLEL,   /* triangle with a diagonal only: one level */
  GILU_KERNEL_LEVELSET,   /* triangle: chunks of one level claimed in order; a chunk waits for the previous level's count */
  GILU_KERNEL_SYNCFREE,   /* triangle: chunks of rows in level order claimed in order; a row waits on its dependencies' flags */
  GILU_KERNEL_SEQUENTIAL, /* triangle: one thread, rows in elimination order (the host's "vendor" kernel) */
  GILU_KERNEL_SPMV,       /* square: x_R -= S x_C, nonempty rows only (DCSR); host: rows split among the threads; CUDA: scalar-CSR */
  GILU_KERNEL_SPMV_VECTOR /* square on a CUDA back-end with long rows: vector-CSR (a group of `width` lanes per row) */
} GILUKernel;
PETSC_INTERN const char *const GILUKernelNames[];

typedef struct {
  GILUSegShape shape;
  GILUKernel   kernel;
  PetscInt     nrows;  /* rows stored (triangle: all rows of the block, in execution order; square: nonempty rows) */
  PetscInt     nblock; /* rows of the block (square: including empty rows) */
  PetscInt     ncols;  /* square: columns of the block C */
  PetscInt     width;  /* square, GILU_KERNEL_SPMV_VECTOR: lanes of a warp per row (a power of two, at most 32) */
  PetscInt    *row;    /* [nrows] the caller's row index of each stored row */
  PetscInt    *ptr;    /* [nrows+1] */
  PetscInt    *col;    /* [nnz] the caller's column indices */
  PetscInt    *src;    /* [nnz] position of the entry in the caller's arrays (to refresh the values) */
  MatScalar   *val;    /* [nnz*bs2] */
  MatScalar   *dval;   /* triangle with a diagonal: [nrows*bs2] inverted diagonal blocks in execution order */
  PetscInt     nnz;
  PetscInt     nlevels; /* triangle: levels of the block */
  PetscInt    *lptr;    /* triangle: [nlevels+1] stored rows of level l are lptr[l] .. lptr[l+1]-1 */
  PetscInt     chunk;   /* syncfree: rows per chunk */
  PetscInt     nchunks; /* levelset, syncfree: stored rows cut into chunks, claimed by the threads in order */
  PetscInt    *cptr;    /* [nchunks+1] first stored row of each chunk */
  PetscInt    *clev;    /* [nchunks] levelset: level of the chunk (a chunk holds rows of one level) */
  PetscInt    *ldone;   /* [nlevels] levelset: rows of the level finished in this solve */
  PetscInt     next;    /* the next chunk to claim (atomic) */
  /* a whole-matrix triangle (BuildTriangle() of all rows: level-set, sync-free or sequential): stored row s, the
     caller's row r = row[s], is the caller's entries ai[r] + dlo .. ai[r+1] - dhi - 1 (dlo, dhi: 1 where a stored
     diagonal is the row's first or last entry, stepped over) of aj and av, its inverted diagonal block ad + r*bs2 (ad
     NULL: unit), so it needs no src. direct: it keeps no entries or values of its own either (ptr, col, src, val, dval
     NULL) and the solve reads those (the same entries in the same order, so the same bits): the factor is held once.
     Direct on the CUDA back-ends (they gather their device copy from the caller's arrays, SegmentGather() in
     sptrsv-plan.c) and for the sequential kernel (elimination order: the caller's arrays are streamed); on the host
     level-set and sync-free only when asked (GILUTriSetExecutionOrderCopy(): in level order the rows of a level lie
     apart in the caller's arrays, 3.6x slower solves on 7-point 80^3, see doc/gilu.md) */
  PetscBool       whole, direct;
  const PetscInt *ai, *aj;
  PetscInt        dlo, dhi;
  PetscInt       *colp; /* permuted layout (a whole-matrix level-set/sync-free triangle on the host): the stored position of
                           each entry's column; the solve keeps the solution also in execution order (tri->xp), so a row
                           reads its dependencies from the previous levels' contiguous stretch. Copied: [nnz] by stored
                           entry, in col's array, overwritten (col is then not read); direct: [the caller's nz] by the
                           caller's entry (as aj) */
  /* chunked (a whole-matrix triangle, kernel GILU_KERNEL_SYNCFREE, BuildChunked()): the chunks are runs of consecutive
     rows in elimination order, stored and claimed level by level of the chunk DAG (nlevels, lptr count chunk levels);
     chunk c waits for the done flags (tri->done[chunk], by claim position) of its dependencies dep[dptr[c] .. dptr[c+1]-1] */
  PetscBool chunked;
  PetscInt *dptr;  /* [nchunks+1] (lptr[l]: the claim position of chunk level l's first chunk) */
  PetscInt *dep;   /* [dptr[nchunks]] claim positions of the chunks holding the columns the chunk's rows read */
  PetscBool quad;  /* chunked with patterns: a thread runs four chunks at a time (the rows are short), else two */
  PetscInt  rstep; /* the rows of a chunk are row[cptr[c]] + rstep * k, k = 0, 1, ... (1 lower, -1 upper) */
  /* chunked, when the rows have few distinct column-offset lists (col - row; a stencil matrix in natural order has a
     handful): the rows of chunk c are runs rptr[c] .. rptr[c+1]-1, run q holding rlen[q] consecutive rows of pattern
     rpat[q], whose offsets are poff[pptr[p] .. pptr[p+1]-1]. The solve then reads no row pointer and no column index:
     the values alone stream from memory (inplace below says so; without patterns the rows as ptr/col) */
  PetscInt *rptr, *rpat, *rlen; /* [nchunks+1], [nruns], [nruns] */
  PetscInt  npat, *pptr, *poff; /* [npat+1], [pptr[npat]] */
  /* chunked with patterns: no rows, entries or values of its own (row, ptr, col, src, val, dval NULL); the solve reads
     the caller's values where they are, av = tri->a and ad = tri->dinv (set with the values; a stored diagonal's
     inverses are the engine's own_d, and the cursor steps over the diagonal blocks in av). A
     chunk's rows are consecutive rows of the caller, so their values are consecutive too: chunk c starts at row crow[c],
     its values at block cvoff[c] of av (lower: the first row's first entry, read forwards; upper: the end of the first
     row, read backwards) */
  PetscBool        inplace;
  PetscInt         dskip;        /* in place: 1 with a stored diagonal (last of a lower row, first of an upper one: stepped over), else 0 */
  PetscInt        *crow, *cvoff; /* [nchunks] */
  const MatScalar *av, *ad;      /* in place and direct: the caller's values and inverted diagonal blocks (set with the values) */
} GILUTriSeg;

/* What a plan is built for: the settings asked for (GILUTri's ask) and those the plan was built with (its plan); the
   plan is rebuilt when they differ */
typedef struct {
  GILUTriSolveType     type;
  PetscInt             nthreads;
  PetscInt             depth;    /* recblock: recursion depth, colblock/rowblock: blocks; 0: by the rule */
  PetscGILUBackendType backend;  /* resolved (host, cuda or cudaemu) */
  PetscBool            permuted; /* the permuted layout */
  PetscBool            reorder;  /* recblock: rows reordered by levels before each split */
  PetscBool            csc;      /* CUDA back-ends: sync-free triangles by columns */
  PetscBool            copy;     /* host whole-matrix level-set/sync-free: the rows copied in execution order (else direct) */
} GILUTriSettings;

struct _n_GILUTri {
  GILUTriSettings  ask; /* asked for (the back-end resolved from reqbackend) */
  GILUTriSolveType ran;
  char             prefix[256]; /* the options prefix the options were read with (GILUTriSetFromOptions()), for messages */
  GILUTriUplo      uplo;
  GILUTriDiag      diag;
  PetscInt         n, bs, nz;
  const PetscInt  *i, *j;         /* the pattern: the engine's copies (own) or the caller's arrays (GILUTriSetMatrixWithArrays()) */
  const MatScalar *a, *dinv;      /* the values, likewise (a stored diagonal's inverses always in own_d) */
  PetscInt        *own_i, *own_j; /* the copies the engine owns (allocated together with own_a, own_d) */
  MatScalar       *own_a, *own_d;
  PetscBool        borrowed;          /* i, j, a (and dinv unless stored) are the caller's */
  PetscInt         patternid;         /* borrowed: the caller's number for the pattern of i, j */
  PetscInt         nlevels, maxlevel; /* analysis */
  PetscBool        analyzed;
  /* the plan, built for the settings plan (rebuilt when ask differs: PlanUpToDate()) */
  PetscBool               planned;
  GILUTriSettings         plan;
  GILUThreadGovernor      gov;  /* host solves: all nthreads, or one when that is faster (a busy core; private/wait.h) */
  GILUThreadGovernor      govm; /* ... of several right-hand sides (GILUTriSolveMultiple()) */
  PetscInt                nseg;
  GILUTriSeg             *seg;
  PetscInt                depth; /* recblock: recursion depth; colblock/rowblock: blocks (the rule's when ask.depth is 0) */
  unsigned int           *done;  /* syncfree: done[r] == epoch when row r is final in this solve */
  unsigned int            epoch;
  PetscLogDouble          tanalysis, tplan; /* seconds */
  PetscGILUBackendType    reqbackend;       /* asked for (GILUTriSetBackend(), default -gilu_backend); auto: resolved at each plan check */
  PetscBool               cstatic;          /* chunked on several threads: fixed shares of each chunk level (else claimed) */
  PetscInt                delay;            /* the developers' test hook -gilu_schedule_delay (microseconds; 0: off), read with the plan */
  PetscScalar            *xp;               /* [n*bs] the solution in execution order (permuted layout) */
  PetscScalar            *xpm;              /* [n*bs*GILU_TRI_MAX_RHS] the same for GILUTriSolveMultiple() (allocated by its first call) */
  PetscInt               *rord;             /* recblock reordered: [n] the row at each position of the final order */
  PetscInt                nnzsq, nnzsq0;    /* recblock reordered: off-diagonal blocks in the squares, and without the reordering */
  const GILUTriDeviceOps *devops;           /* the plan's back-end's device kernels (cuda/sptrsv.cu), NULL on the host */
  GILUTriCUDA             dev;              /* the device copy of the plan (GILUTriPlanDeviceSetUp()) */
  PetscInt                nsolves;
  PetscInt                nmultiple; /* of them, right-hand sides solved with others (GILUTriSolveMultiple(), GILUTriSolveDeviceMultiple()) */
};

/* sptrsv-plan.c: the plan for (type, threads, depth, back-end, layouts), its values, its device copy, its device segments' view */
PETSC_INTERN PetscErrorCode GILUTriPlanBuild(GILUTri);
PETSC_INTERN PetscErrorCode GILUTriPlanDestroy(GILUTri);
PETSC_INTERN PetscErrorCode GILUTriPlanSetValues(GILUTri);
PETSC_INTERN PetscErrorCode GILUTriPlanDeviceSetUp(GILUTri);
PETSC_INTERN PetscErrorCode GILUTriViewSegments(GILUTri, PetscViewer);
/* sptrsv-host.c: x = T^{-1} b by the plan on the host threads, for m right-hand sides interleaved */
PETSC_INTERN PetscErrorCode GILUTriSolve_Host(GILUTri, PetscInt, const PetscScalar[], PetscScalar[]);

#endif
