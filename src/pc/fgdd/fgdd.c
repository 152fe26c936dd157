/*
   PCFGDD: fine-grained domain decomposition for triangular solves (the FGDD paper of Gondhalekar et al.).

   The PC orchestrates: it partitions the local block into many small subdomains (fgdd-partition.c), reorders
   it so each subdomain's rows are contiguous and drops the entries between subdomains, factors each subdomain
   (ILU(0), then ILDU0) and builds each subdomain's levels (fgdd-apply.c), and applies the factors with the
   chosen variant on the host (fgdd-apply.c) or with the CUDA kernels (cuda/fgdd.cu) on the device or in the
   emulation (cudaemu): the back-end layer (src/sys/backend.c) resolves -pc_fgdd_backend, default -gilu_backend.
*/
#include <petsc/private/pcimpl.h>
#include <petscdmda.h>
#include <petscgilu.h>
#include <petscgilu/private/giluimpl.h>
#include <petscgilu/private/citations.h>
#include <petscgilu/private/backend.h>
#include <petscgilu/private/stencil.h>
#include <petscgilu/private/stencilgpu.h>
#include "fgdd.h"

const char *const PCFGDDPartitioners[] = {"geometric", "graph", "PCFGDDPartitioner", "PC_FGDD_PARTITIONER_", NULL};
const char *const PCFGDDApplyTypes[]   = {"syncfree", "vertex", "edge", "PCFGDDApplyType", "PC_FGDD_APPLY_", NULL};

#define FGDD_HOST_ROWS 512 /* the default target rows per subdomain on the host, and the least on a device */

typedef struct {
  /* options */
  PetscInt             subrows;     /* -pc_fgdd_subdomain_rows: target rows per subdomain, PETSC_DECIDE: PCFGDDDecideRows() */
  PetscInt             box[3];      /* -pc_fgdd_subdomain_box, box[0] = 0 when not given */
  PCFGDDPartitioner    partitioner; /* -pc_fgdd_partitioner */
  PetscBool            partset;     /* the partitioner was chosen */
  PCFGDDApplyType      apply;       /* -pc_fgdd_apply */
  PetscBool            fused;       /* -pc_fgdd_fused */
  PetscGILUBackendType backend;     /* -pc_fgdd_backend; auto: -gilu_backend's */
  PetscBool            backendset;  /* the PC's own option or setter was used */
  PetscReal            zeropivot;   /* -pc_fgdd_zeropivot */
  PetscInt             threads;     /* -pc_fgdd_threads, 0: OMP_NUM_THREADS */
  /* set up */
  FGDDFactors          f;
  PCFGDDPartitioner    used;     /* the partitioner that ran */
  PetscInt             grid[3];  /* geometric: the local DMDA box (points) */
  PetscInt             dof;      /* geometric: unknowns per grid point */
  PetscInt             ubox[3];  /* geometric: the subdomain box used */
  PetscInt             moved;    /* graph: vertices moved by the balancing */
  PetscInt             rows;     /* the target rows per subdomain the partition used */
  FGDDDeviceLimits     lim;      /* the device the decided target came from (lim.sms = 0: not decided from a device) */
  PetscInt            *rowsizes; /* rows (not block rows) per subdomain, for PCFGDDGetSubdomains() */
  IS                   permis;   /* the ordering (rows), for PCFGDDGetSubdomains() */
  PetscScalar         *work;     /* the permuted vector */
  PetscGILUBackendType ran;      /* the resolved back-end of the last setup */
  const FGDDDeviceOps *devops;   /* cuda or cudaemu: the kernels of that build (NULL: host) */
  FGDDDevice           dev;      /* cuda or cudaemu: device copies of the factors */
  PetscObjectState     state;    /* nonzero state of the partitioned block */
  PetscBool            analyzed;
  PetscBool            transposed;  /* PCApplyTranspose() ran: the view says how */
  PetscBool            matapplied;  /* PCMatApply() ran on the device (all columns in each launch): likewise */
  PetscBool            matmultiple; /* ... or on the host, a subdomain at a time for every column */
} PC_FGDD;

static PetscErrorCode PCReset_FGDD(PC pc)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  PetscCall(FGDDFactorsReset(&fg->f));
  PetscCall(PetscFree(fg->rowsizes));
  PetscCall(ISDestroy(&fg->permis));
  PetscCall(PetscFree(fg->work));
  if (fg->dev) PetscCall(fg->devops->destroy(&fg->dev));
  fg->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The DMDA of the PC or of the matrix whose local box has the local block's rows, or NULL */
static PetscErrorCode PCFGDDFindDMDA(PC pc, Mat A, PetscInt mlocal, DM *da)
{
  DM dms[2] = {NULL, NULL};

  PetscFunctionBegin;
  *da = NULL;
  PetscCall(PCGetDM(pc, &dms[0]));
  PetscCall(MatGetDM(A, &dms[1]));
  for (PetscInt t = 0; t < 2 && !*da; t++) {
    PetscBool isda;
    PetscInt  xm, ym, zm, dof;

    if (!dms[t]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)dms[t], DMDA, &isda));
    if (!isda) continue;
    PetscCall(DMDAGetCorners(dms[t], NULL, NULL, NULL, &xm, &ym, &zm));
    PetscCall(DMDAGetInfo(dms[t], NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    if (xm * ym * zm * dof == mlocal) *da = dms[t];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The target rows per subdomain when the user gave neither rows nor a box (PETSC_DECIDE). On the host: 512, small enough
  that a subdomain's levels are short, large enough that the dropped couplings cost few iterations. On a device (cuda,
  cudaemu), where a subdomain is a thread block keeping its vector in shared memory, the FGDD paper sizes the
  subdomains from the shared memory (Section 4: 8,192 rows of doubles in the 64 KB of an MI210 compute unit, 2,048
  block rows of 3x3 in its multi-GPU runs). Here, in block rows:
    fit    the kernel's shared memory (8 bs + 4 bytes a block row: the vector and the sync-free variant's flag, so that
           every variant fits) within half a multiprocessor's shared memory less the 1 KiB the hardware reserves per
           block, so that two blocks are resident per multiprocessor (one computes while the other waits at its
           level's barrier), and within the opt-in limit per block; H100: 9,642 block rows of size 1, 4,132 of size 3;
    spread ceil(block rows / (4 multiprocessors)): at least 4 subdomains per multiprocessor, two full waves of
           resident blocks, so that the device is busy to the end of the apply;
  the target is bs min(fit, spread) rows, or the host's 512 if that is more: larger subdomains (fewer iterations, longer levels) only
  where the matrix is large enough to fill the device with them; below 4 x 512 rows a multiprocessor (270k rows on
  an H100) the same subdomains as on the host.
*/
static PetscErrorCode PCFGDDDecideRows(PC pc, PetscInt m, PetscInt bs)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  fg->lim.sms = 0;
  fg->rows    = fg->subrows;
  if (fg->subrows != PETSC_DECIDE) PetscFunctionReturn(PETSC_SUCCESS);
  fg->rows = FGDD_HOST_ROWS;
  if (fg->devops && m > 0) {
    const PetscInt row = 8 * bs + 4; /* bytes of shared memory a block row */
    PetscInt       nb  = m / bs, fit, spread;

    PetscCall(fg->devops->limits(&fg->lim));
    fit      = PetscMin((fg->lim.persm / 2 - 1024) / row, fg->lim.optin / row);
    spread   = (nb + 4 * fg->lim.sms - 1) / (4 * fg->lim.sms);
    fg->rows = PetscMax(FGDD_HOST_ROWS, bs * PetscMin(fit, spread)); /* 512 rows fit every block size: 8 x 68 bytes a block row */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Partitioning and ordering of the local block (only when its nonzero pattern changed) */
static PetscErrorCode PCFGDDPartition(PC pc, Mat Alocal)
{
  PC_FGDD  *fg = (PC_FGDD *)pc->data;
  DM        da;
  PetscInt  m, bs = 1, nb, *labels, nlabels;
  PetscBool isbaij;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(Alocal, &m, NULL));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)Alocal, MATSEQBAIJ, &isbaij)); /* with its subtypes, as for AIJ below */
  if (isbaij) PetscCall(MatGetBlockSize(Alocal, &bs));
  PetscCheck(bs <= FGDD_MAX_BS, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCFGDD supports BAIJ block sizes 1 to %d, not %" PetscInt_FMT ": use an AIJ matrix", FGDD_MAX_BS, bs);
  nb = m / bs;
  PetscCall(PCFGDDDecideRows(pc, m, bs));
  PetscCall(PCFGDDFindDMDA(pc, pc->pmat, m, &da)); /* the operator's DMDA (a stencilgpu operator's, not its AIJ image's, which has none) */
  fg->used = fg->partset ? fg->partitioner : (da ? PC_FGDD_PARTITIONER_GEOMETRIC : PC_FGDD_PARTITIONER_GRAPH);
  PetscCheck(fg->used != PC_FGDD_PARTITIONER_GEOMETRIC || da, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCFGDD's geometric partitioner needs the DMDA of the matrix (KSPSetDM(), PCSetDM() or a matrix from DMCreateMatrix()): use -%spc_fgdd_partitioner graph for a general matrix", GILUPrefix(pc));
  PetscCall(PetscMalloc1(nb, &labels));
  if (fg->used == PC_FGDD_PARTITIONER_GEOMETRIC) {
    PetscInt dim;

    PetscCall(DMDAGetInfo(da, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &fg->dof, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDAGetCorners(da, NULL, NULL, NULL, &fg->grid[0], &fg->grid[1], &fg->grid[2]));
    PetscCheck(fg->dof % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "PCFGDD: the BAIJ block size %" PetscInt_FMT " does not divide the DMDA's %" PetscInt_FMT " unknowns per grid point: use -%spc_fgdd_partitioner graph", bs, fg->dof, GILUPrefix(pc));
    if (fg->box[0] > 0) {
      for (PetscInt d = 0; d < 3; d++) fg->ubox[d] = PetscMin(d < dim ? fg->box[d] : 1, fg->grid[d]);
    } else { /* a cube (square) of about rows / dof points */
      PetscReal pts  = PetscMax(1.0, (PetscReal)fg->rows / fg->dof);
      PetscInt  edge = PetscMax(1, (PetscInt)PetscFloorReal(PetscPowReal(pts, 1.0 / dim) + 1e-9));

      for (PetscInt d = 0; d < 3; d++) fg->ubox[d] = d < dim ? PetscMin(edge, fg->grid[d]) : 1;
    }
    for (PetscInt d = 0; d < 3; d++) fg->ubox[d] = PetscMax(1, fg->ubox[d]);
    PetscCall(FGDDPartitionGeometric(fg->grid, fg->dof, fg->ubox, bs, &nlabels, labels));
  } else {
    char        prefix[256];
    const char *pre;

    nlabels = PetscMax(1, (m + fg->rows - 1) / fg->rows);
    nlabels = PetscMin(nlabels, nb);
    PetscCall(PCGetOptionsPrefix(pc, &pre));
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%spc_fgdd_", pre ? pre : ""));
    PetscCall(FGDDPartitionGraph(Alocal, nlabels, prefix, labels, &fg->moved));
  }
  PetscCall(FGDDOrderingFromLabels(nb, nlabels, labels, &fg->f));
  PetscCall(PetscFree(labels));
  /* the ordering in rows, for PCFGDDGetSubdomains() */
  {
    PetscInt *idx;

    PetscCall(PetscMalloc1(fg->f.nsub, &fg->rowsizes));
    for (PetscInt s = 0; s < fg->f.nsub; s++) fg->rowsizes[s] = bs * (fg->f.subptr[s + 1] - fg->f.subptr[s]);
    PetscCall(PetscMalloc1(m, &idx));
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt c = 0; c < bs; c++) idx[i * bs + c] = fg->f.perm[i] * bs + c;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, idx, PETSC_OWN_POINTER, &fg->permis));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The back-end of this setup (the PC's own, else -gilu_backend's), resolved, and the entry points of its build */
static PetscErrorCode PCFGDDSetUpBackend(PC pc)
{
  PC_FGDD             *fg   = (PC_FGDD *)pc->data;
  PetscGILUBackendType want = fg->backend, ran;

  PetscFunctionBegin;
  if (!fg->backendset) PetscCall(PetscGILUGetBackend(&want));
  PetscCall(PetscGILUBackendResolve(PetscObjectComm((PetscObject)pc), want, &ran));
  fg->ran = ran;
  GILUBackendGetDeviceOps(ran, FGDDDeviceGetOps, &fg->devops);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_FGDD(PC pc)
{
  PC_FGDD             *fg = (PC_FGDD *)pc->data;
  Mat                  A, Alocal;
  PetscMPIInt          size;
  PetscBool            ok;
  PetscObjectState     state;
  PetscBool            newpattern;
  const FGDDDeviceOps *old;

  PetscFunctionBegin;
  pc->failedreason = PC_NOERROR; /* as PCILU and PCICC: a failure is of the factors it was found in, KSPSetUp() reads it */
  PetscCall(GILUMatCheckSquare(pc->pmat));
  PetscCall(MatStencilGPUGetRowMatrix(pc->pmat, "PCFGDD", &A));
  Alocal = A;
  PetscCall(PetscGILUCitationsRegister(GILU_CITE_FGDD));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatGetDiagonalBlock(A, &Alocal));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)Alocal, &ok, MATSEQAIJ, MATSEQBAIJ, "")); /* with their subtypes (MATSEQAIJCUSPARSE ...): read on the host as AIJ */
  PetscCheck(ok, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCFGDD works on AIJ and BAIJ matrices (SEQ or MPI), not %s: use -mat_type aij (or -dm_mat_type aij)", ((PetscObject)Alocal)->type_name);
  PetscCall(MatGetNonzeroState(Alocal, &state));
  newpattern = (PetscBool)(!fg->analyzed || pc->flag != SAME_NONZERO_PATTERN || state != fg->state);
  old        = fg->devops;
  PetscCall(PCFGDDSetUpBackend(pc));
  /* the device's copy is kept for new values of the same pattern on the same back-end: only the values are copied below */
  if (fg->dev && (newpattern || fg->devops != old)) PetscCall(old->destroy(&fg->dev)); /* with the old back-end's entry points */
  if (newpattern) {
    PetscCall(PCReset_FGDD(pc));
    PetscCall(PetscLogEventBegin(GILU_FGDDPartition, pc, A, 0, 0));
    PetscCall(PCFGDDPartition(pc, Alocal));
    PetscCall(PetscLogEventEnd(GILU_FGDDPartition, pc, A, 0, 0));
  }
  PetscCall(PetscLogEventBegin(GILU_FGDDFactor, pc, A, 0, 0));
  PetscCall(GILUClampThreads(fg->threads, &fg->f.nthreads)); /* the rule of every component: at most GILUGetMaxThreads() */
  PetscCall(FGDDExtract(Alocal, &fg->f));
  PetscCall(FGDDFactor(&fg->f, fg->zeropivot));
  if (fg->dev) PetscCall(fg->devops->values(fg->dev, &fg->f)); /* the device's layout of this pattern, the new values */
  PetscCall(PetscLogEventEnd(GILU_FGDDFactor, pc, A, 0, 0));
  if (!fg->analyzed) {
    PetscCall(PetscLogEventBegin(GILU_FGDDLevels, pc, A, 0, 0));
    PetscCall(FGDDBuildLevels(&fg->f));
    PetscCall(PetscLogEventEnd(GILU_FGDDLevels, pc, A, 0, 0));
    PetscCall(PetscMalloc1(fg->f.nb * fg->f.bs, &fg->work));
    fg->state    = state;
    fg->analyzed = PETSC_TRUE;
  }
  if (fg->f.zerorow >= 0) {
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in (permuted block) row %" PetscInt_FMT " of the subdomain ILU(0) of PCFGDD (tolerance %g)", fg->f.zerorow, (double)fg->zeropivot);
    PetscCall(PetscInfo(pc, "Zero pivot in permuted block row %" PetscInt_FMT " (tolerance %g)\n", fg->f.zerorow, (double)fg->zeropivot));
    PetscCall(PCSetFailedReason(pc, PC_FACTOR_NUMERIC_ZEROPIVOT));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device apply of the chosen variant on m columns, as GILUMatDenseApplyDevice() calls it */
static PetscErrorCode FGDDApplyDeviceColumns(void *ctx, PetscInt m, const PetscScalar *x, PetscInt ldx, PetscScalar *y, PetscInt ldy)
{
  PC_FGDD *fg = (PC_FGDD *)ctx;

  PetscFunctionBegin;
  PetscCall(fg->devops->apply(fg->dev, (FGDDApplyType)fg->apply, fg->fused, m, x, ldx, y, ldy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ... on one vector, as GILUVecApplyDevice() calls it */
static PetscErrorCode FGDDApplyDevice(void *ctx, const PetscScalar *x, PetscScalar *y)
{
  PC_FGDD       *fg = (PC_FGDD *)ctx;
  const PetscInt n  = fg->f.nb * fg->f.bs;

  PetscFunctionBegin;
  PetscCall(FGDDApplyDeviceColumns(ctx, 1, x, n, y, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the event without the PC, as PCApply_StructILU() says why (a process that returns before it) */
static PetscErrorCode PCApply_FGDD(PC pc, Vec x, Vec y)
{
  PC_FGDD           *fg = (PC_FGDD *)pc->data;
  const FGDDFactors *f  = &fg->f;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (f->zerorow >= 0) { /* the factorization failed: let the Krylov method see it */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_FGDDApply, 0, x, y, 0));
  PetscCall(GILUClampThreads(fg->threads, &fg->f.nthreads)); /* the rule of every component: at most GILUGetMaxThreads() */
  if (fg->ran == PETSCGILU_BACKEND_HOST) {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    if (fg->apply == PC_FGDD_APPLY_EDGE) PetscCall(FGDDBuildTransposes(&fg->f));
    PetscCall(FGDDApply_Host(f, (FGDDApplyType)fg->apply, fg->fused, xa, fg->work, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  } else if (f->nb) { /* cuda or cudaemu (nothing for an empty local block): the permutation runs in the kernels, the
                         vectors are the CUDA vectors' own device arrays or the device's buffers with one logged copy
                         each way (src/sys/device-vec.c) */
    void *xbuf, *ybuf;

    if (!fg->dev) PetscCall(fg->devops->create(f, &fg->dev)); /* the factors of this setup, copied once */
    PetscCall(fg->devops->buffers(fg->dev, 1, &xbuf, &ybuf));
    PetscCall(GILUVecApplyDevice(x, y, fg->ran, xbuf, ybuf, FGDDApplyDevice, fg, NULL));
  }
  PetscCall(PetscLogEventEnd(GILU_FGDDApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PCFGDDGetDeviceBuffers - the device buffers of a set-up PCFGDD on the cuda or cudaemu back-end for ncols columns of
  the local size (the factors copied to the device first if they are not yet) and the blocks its apply reads, for the
  kernel benchmark (src/test/perf-sparse.c: PCFGDDApplyDevice() timed with CUDA events, nothing copied); developer
  level. They are the PC's own: a later call or PCMatApply() for more columns than any before reallocates them
*/
PetscErrorCode PCFGDDGetDeviceBuffers(PC pc, PetscInt ncols, void **xbuf, void **ybuf, PetscInt *keptblocks)
{
  PC_FGDD  *fg;
  PetscBool isfgdd;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCFGDD, &isfgdd));
  PetscCheck(isfgdd && pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCFGDDGetDeviceBuffers() needs a PCFGDD after PCSetUp()");
  fg = (PC_FGDD *)pc->data;
  PetscCheck(fg->devops && fg->f.nb, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCFGDD runs on the %s back-end: no device buffers (-pc_fgdd_backend cuda or cudaemu)", PetscGILUBackendTypes[fg->ran]);
  PetscCheck(fg->f.zerorow < 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_MAT_LU_ZRPVT, "PCFGDD's factorization found a zero pivot in permuted block row %" PetscInt_FMT, fg->f.zerorow);
  if (!fg->dev) PetscCall(fg->devops->create(&fg->f, &fg->dev));
  PetscCall(fg->devops->buffers(fg->dev, ncols, xbuf, ybuf));
  if (keptblocks) *keptblocks = fg->f.nnzkept;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCFGDDApplyDevice - y = the apply of x for ncols columns ldx, ldy apart (PCMatApply()'s device apply: every launch
   takes all of them), device arrays of the back-end (x, y from PCFGDDGetDeviceBuffers() for at least ncols columns, or
   of the same size; the PC's device buffers must hold at least ncols columns: an error otherwise), queued on the
   default stream (complete after a wait on the device, or for anything later on that stream); developer level */
PetscErrorCode PCFGDDApplyDevice(PC pc, PetscInt ncols, const PetscScalar x[], PetscInt ldx, PetscScalar y[], PetscInt ldy)
{
  PetscBool isfgdd;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCFGDD, &isfgdd));
  PetscCheck(isfgdd && ((PC_FGDD *)pc->data)->dev, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCFGDDApplyDevice() needs a PCFGDD whose device buffers PCFGDDGetDeviceBuffers() gave");
  /* device arrays: only NULL checked (PetscAssertPointer() of a debugging PETSc would read them on the host) */
  PetscCheck(x && y, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_NULL, "PCFGDDApplyDevice() needs device arrays x and y, not NULL");
  PetscCall(FGDDApplyDeviceColumns(pc->data, ncols, x, ldx, y, ldy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (P^T L D U P)^{-T} x on the host, whatever the back-end (the factors are computed and kept on the host) */
static PetscErrorCode PCApplyTranspose_FGDD(PC pc, Vec x, Vec y)
{
  PC_FGDD           *fg = (PC_FGDD *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (fg->f.zerorow >= 0) {
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_FGDDApply, 0, x, y, 0));
  PetscCall(GILUClampThreads(fg->threads, &fg->f.nthreads));
  fg->transposed = PETSC_TRUE;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(FGDDApplyTranspose_Host(&fg->f, xa, fg->work, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(GILU_FGDDApply, 0, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Y = M^{-1} X (M^{-T} X) for the columns of a dense block (PCMatApply(), KSPMatSolve()), each column bitwise what
  PCApply() (PCApplyTranspose()) gives it, in one call: on the host a task per subdomain applies it to every column in
  turn (its factors in cache after the first column); on a device back-end, one device apply of all columns (each launch
  a thread block per subdomain and column: FGDDDeviceOps' apply), the block in one copy each way or a CUDA dense
  matrix's own array (GILUMatDenseApplyDevice()); the transpose is on the host anyway. A failed factorization flags
  every column, as PCApply() flags its vector.
*/
static PetscErrorCode PCMatApply_FGDD_Private(PC pc, PetscBool transpose, Mat X, Mat Y)
{
  PC_FGDD           *fg = (PC_FGDD *)pc->data;
  Mat                Xl, Yl;
  PetscInt           N, ldx, ldy;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(MatGetSize(X, NULL, &N));
  if (fg->f.zerorow < 0 && !transpose && fg->ran != PETSCGILU_BACKEND_HOST) {
    fg->matapplied = PETSC_TRUE;
    PetscCall(PetscLogEventBegin(GILU_FGDDApply, 0, X, Y, 0));
    if (fg->f.nb && N > 0) { /* (nothing for an empty local block or block of columns) */
      void *xbuf, *ybuf;

      PetscCall(MatDenseGetLocalMatrix(X, &Xl));
      PetscCall(MatDenseGetLocalMatrix(Y, &Yl));
      if (!fg->dev) PetscCall(fg->devops->create(&fg->f, &fg->dev));
      PetscCall(fg->devops->buffers(fg->dev, N, &xbuf, &ybuf));
      PetscCall(GILUMatDenseApplyDevice(Xl, Yl, fg->ran, xbuf, ybuf, FGDDApplyDeviceColumns, fg, NULL));
    }
    PetscCall(PetscLogEventEnd(GILU_FGDDApply, 0, X, Y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (fg->f.zerorow >= 0) {
    for (PetscInt c = 0; c < N; c++) {
      Vec x, y;

      PetscCall(MatDenseGetColumnVecRead(X, c, &x));
      PetscCall(MatDenseGetColumnVecWrite(Y, c, &y));
      PetscCall(PCApply_FGDD(pc, x, y));
      PetscCall(MatDenseRestoreColumnVecWrite(Y, c, &y));
      PetscCall(MatDenseRestoreColumnVecRead(X, c, &x));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(GILU_FGDDApply, 0, X, Y, 0));
  PetscCall(GILUClampThreads(fg->threads, &fg->f.nthreads));
  fg->matmultiple = PETSC_TRUE;
  if (transpose) fg->transposed = PETSC_TRUE;
  else if (fg->apply == PC_FGDD_APPLY_EDGE) PetscCall(FGDDBuildTransposes(&fg->f));
  PetscCall(MatDenseGetLocalMatrix(X, &Xl)); /* a MATSEQDENSE itself; of a MATMPIDENSE, this process's rows */
  PetscCall(MatDenseGetLocalMatrix(Y, &Yl));
  PetscCall(MatDenseGetLDA(Xl, &ldx));
  PetscCall(MatDenseGetLDA(Yl, &ldy));
  PetscCall(MatDenseGetArrayRead(Xl, &xa));
  PetscCall(MatDenseGetArrayWrite(Yl, &ya));
  PetscCall(FGDDApplyMultiple_Host(&fg->f, (FGDDApplyType)fg->apply, transpose, N, xa, ldx, fg->work, ya, ldy));
  PetscCall(MatDenseRestoreArrayWrite(Yl, &ya));
  PetscCall(MatDenseRestoreArrayRead(Xl, &xa));
  PetscCall(PetscLogEventEnd(GILU_FGDDApply, 0, X, Y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCMatApply_FGDD(PC pc, Mat X, Mat Y)
{
  PetscFunctionBegin;
  PetscCall(PCMatApply_FGDD_Private(pc, PETSC_FALSE, X, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PETSC_VERSION_GE(3, 24, 0) /* PCMatApplyTranspose() */
static PetscErrorCode PCMatApplyTranspose_FGDD(PC pc, Mat X, Mat Y)
{
  PetscFunctionBegin;
  PetscCall(PCMatApply_FGDD_Private(pc, PETSC_TRUE, X, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PCView_FGDD(PC pc, PetscViewer viewer)
{
  PC_FGDD           *fg = (PC_FGDD *)pc->data;
  const FGDDFactors *f  = &fg->f;
  PetscBool          ascii;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  fine-grained domain decomposition: ILDU0 of each subdomain, entries between subdomains dropped\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: %s%s\n", PCFGDDApplyTypes[fg->apply], fg->fused ? " (fused L-D-U)" : " (separate L, D, U)"));
  if (!fg->analyzed) {
    if (fg->subrows == PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet (subdomain rows: chosen at setup for the back-end)\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet (subdomain rows target %" PetscInt_FMT ")\n", fg->subrows));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    char name[256];

    PetscCall(PetscGILUBackendName(fg->ran, name, sizeof(name)));
    if (fg->ran == PETSCGILU_BACKEND_HOST) PetscCall(PetscViewerASCIIPrintf(viewer, "  back-end: %s, %" PetscInt_FMT " thread(s) (-%spc_fgdd_threads; a subdomain each at a time)\n", name, fg->f.nthreads, GILUPrefix(pc)));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  back-end: %s\n", name));
    if (fg->dev) PetscCall(fg->devops->view(fg->dev, viewer));
    else if (fg->devops) PetscCall(PetscViewerASCIIPrintf(viewer, "  device: the factors not copied yet (at the first apply)\n"));
    if (fg->transposed) PetscCall(PetscViewerASCIIPrintf(viewer, "  transposed apply (PCApplyTranspose): U^T, D^T, L^T of each subdomain by columns, a host task per subdomain, host factors\n"));
    if (fg->matmultiple)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (%s): a host task per subdomain applies it to every column in turn (its factors in cache after the first)\n", fg->ran != PETSCGILU_BACKEND_HOST ? "PCMatApplyTranspose()" : "PCMatApply(), KSPMatSolve()"));
    if (fg->matapplied && fg->ran != PETSCGILU_BACKEND_HOST)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks of right-hand sides (PCMatApply(), KSPMatSolve()): one device apply of all columns, each launch a thread block per subdomain and column\n"));
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) {
    PetscInt loc[3] = {f->nsub, f->nnzA, f->nnzkept}, tot[3];

    PetscCall(MPIU_Allreduce(loc, tot, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  each of the %d MPI processes partitions its local block: %" PetscInt_FMT " subdomains in all, %" PetscInt_FMT " of the %" PetscInt_FMT " local-block nonzeros dropped (%.1f%%); process 0 shown\n", size, tot[0], tot[1] - tot[2], tot[1], (double)(100.0 * (tot[1] - tot[2]) / PetscMax(1, tot[1]))));
  }
  if (fg->used == PC_FGDD_PARTITIONER_GEOMETRIC)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  partitioner: geometric, local DMDA box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points (DoF %" PetscInt_FMT ") cut into boxes of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT "\n", fg->grid[0], fg->grid[1], fg->grid[2], fg->dof, fg->ubox[0], fg->ubox[1], fg->ubox[2]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  partitioner: graph (MatPartitioning), balanced to uniform sizes (%" PetscInt_FMT " block rows moved)\n", fg->moved));
  if (fg->used == PC_FGDD_PARTITIONER_GRAPH || !fg->box[0]) {
    if (fg->subrows != PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  target rows per subdomain: %" PetscInt_FMT " (given)\n", fg->rows));
    else if (!fg->lim.sms) PetscCall(PetscViewerASCIIPrintf(viewer, "  target rows per subdomain: %" PetscInt_FMT " (the host's default)\n", fg->rows));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  target rows per subdomain: %" PetscInt_FMT " (chosen for the device: at least 4 subdomains for each of its %d multiprocessors, two resident per multiprocessor in its %d bytes of shared memory, not below the host's 512)\n", fg->rows,
                                       fg->lim.sms, fg->lim.persm));
  }
  if (!f->nsub) PetscCall(PetscViewerASCIIPrintf(viewer, "  subdomains: none (local block with 0 rows: empty factor)\n"));
  else {
    PetscInt  mn = PETSC_MAX_INT, mx = 0, lmn = PETSC_MAX_INT, lmx = 0, umn = PETSC_MAX_INT, umx = 0;
    PetscReal lav = 0, uav = 0;

    for (PetscInt s = 0; s < f->nsub; s++) {
      PetscInt n = f->subptr[s + 1] - f->subptr[s], nl = f->lsub[s + 1] - f->lsub[s] - 1, nu = f->usub[s + 1] - f->usub[s] - 1;

      mn  = PetscMin(mn, n);
      mx  = PetscMax(mx, n);
      lmn = PetscMin(lmn, nl);
      lmx = PetscMax(lmx, nl);
      umn = PetscMin(umn, nu);
      umx = PetscMax(umx, nu);
      lav += nl;
      uav += nu;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  subdomains: %" PetscInt_FMT ", block rows per subdomain %" PetscInt_FMT " to %" PetscInt_FMT " (block size %" PetscInt_FMT ", %" PetscInt_FMT " block rows)\n", f->nsub, mn, mx, f->bs, f->nb));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzeros dropped: %" PetscInt_FMT " of %" PetscInt_FMT " blocks (%.1f%%)\n", f->nnzA - f->nnzkept, f->nnzA, (double)(100.0 * (f->nnzA - f->nnzkept) / PetscMax(1, f->nnzA))));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  levels per subdomain: L %" PetscInt_FMT " to %" PetscInt_FMT " (mean %.1f), U %" PetscInt_FMT " to %" PetscInt_FMT " (mean %.1f)\n", lmn, lmx, (double)(lav / f->nsub), umn, umx, (double)(uav / f->nsub)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_FGDD(PC pc, GILUOptionItems PetscOptionsObject)
{
  PC_FGDD             *fg = (PC_FGDD *)pc->data;
  PetscInt             rows, box[4] = {0, 0, 0, 0}, nbox = 4; /* room for a fourth size: too many are an error, not dropped */
  PetscBool            flg, fused;
  PCFGDDPartitioner    part;
  PCFGDDApplyType      apply;
  PetscGILUBackendType backend;
  PetscReal            zp;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Fine-grained domain decomposition options");
  PetscCall(PetscOptionsInt("-pc_fgdd_subdomain_rows", "Target number of rows per subdomain (-1: PETSC_DECIDE, 512 on the host, from the device's shared memory and multiprocessors on cuda/cudaemu)", "PCFGDDSetSubdomainRows", fg->subrows, &rows, &flg));
  if (flg) PetscCall(PCFGDDSetSubdomainRows(pc, rows));
  PetscCall(PetscOptionsIntArray("-pc_fgdd_subdomain_box", "Subdomain box nx,ny,nz in grid points (geometric partitioner)", "PCFGDDSetSubdomainBox", box, &nbox, &flg));
  if (flg) {
    PetscCheck(nbox >= 1 && nbox <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_fgdd_subdomain_box takes 1 to 3 sizes nx[,ny[,nz]] (the missing ones 1), not %s%" PetscInt_FMT, GILUPrefix(pc), nbox > 3 ? "at least " : "", nbox);
    for (PetscInt d = nbox; d < 3; d++) box[d] = 1;
    PetscCall(PCFGDDSetSubdomainBox(pc, box));
  }
  PetscCall(PetscOptionsEnum("-pc_fgdd_partitioner", "How the subdomains are found", "PCFGDDSetPartitioner", PCFGDDPartitioners, (PetscEnum)fg->partitioner, (PetscEnum *)&part, &flg));
  if (flg) PetscCall(PCFGDDSetPartitioner(pc, part));
  PetscCall(PetscOptionsEnum("-pc_fgdd_apply", "Triangular-solve variant inside the subdomains", "PCFGDDSetApplyType", PCFGDDApplyTypes, (PetscEnum)fg->apply, (PetscEnum *)&apply, &flg));
  if (flg) PetscCall(PCFGDDSetApplyType(pc, apply));
  PetscCall(PetscOptionsBool("-pc_fgdd_fused", "Fused L-D-U per subdomain (else separate L, D and U passes)", "PCFGDDSetFused", fg->fused, &fused, &flg));
  if (flg) PetscCall(PCFGDDSetFused(pc, fused));
  backend = fg->backend;
  if (!fg->backendset) PetscCall(PetscGILUGetBackend(&backend));
  PetscCall(PetscOptionsEnum("-pc_fgdd_backend", "Where the apply runs (default: -gilu_backend)", "PCFGDDSetBackend", PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, &flg));
  if (flg) PetscCall(PCFGDDSetBackend(pc, backend));
  PetscCall(PetscOptionsInt("-pc_fgdd_threads", "Host threads (0: OMP_NUM_THREADS if set, else the cores divided among the node's MPI processes)", "PCFGDDSetThreads", fg->threads, &rows, &flg));
  if (flg) PetscCall(PCFGDDSetThreads(pc, rows));
  PetscCall(PetscOptionsReal("-pc_fgdd_zeropivot", "Pivots at most this in absolute value are zero", "PCFGDDSetZeroPivot", fg->zeropivot, &zp, &flg));
  if (flg) PetscCall(PCFGDDSetZeroPivot(pc, zp));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetSubdomainRows_FGDD(PC pc, PetscInt rows)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  PetscCheck(rows > 0 || rows == PETSC_DECIDE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_fgdd_subdomain_rows %" PetscInt_FMT ": must be positive, or PETSC_DECIDE (-1: chosen for the back-end)", GILUPrefix(pc), rows);
  if (fg->subrows != rows) fg->analyzed = PETSC_FALSE;
  fg->subrows = rows;
  fg->box[0]  = 0; /* the box is derived from the rows */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDGetSubdomainRows_FGDD(PC pc, PetscInt *rows)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  *rows = fg->analyzed ? fg->rows : fg->subrows;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetSubdomainBox_FGDD(PC pc, const PetscInt box[])
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++)
    PetscCheck(box[d] > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_fgdd_subdomain_box %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": the sizes nx,ny,nz must be positive", GILUPrefix(pc), box[0], box[1], box[2]);
  for (PetscInt d = 0; d < 3; d++) fg->box[d] = box[d];
  fg->analyzed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetPartitioner_FGDD(PC pc, PCFGDDPartitioner part)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  if (!fg->partset || fg->partitioner != part) fg->analyzed = PETSC_FALSE;
  fg->partitioner = part;
  fg->partset     = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetApplyType_FGDD(PC pc, PCFGDDApplyType apply)
{
  PetscFunctionBegin;
  ((PC_FGDD *)pc->data)->apply = apply;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetFused_FGDD(PC pc, PetscBool fused)
{
  PetscFunctionBegin;
  ((PC_FGDD *)pc->data)->fused = fused;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetBackend_FGDD(PC pc, PetscGILUBackendType backend)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  fg->backend    = backend; /* resolved (and checked) at the setup, or now when the PC is set up */
  fg->backendset = PETSC_TRUE;
  if (pc->setupcalled && fg->analyzed) {
    if (fg->dev) PetscCall(fg->devops->destroy(&fg->dev)); /* with the old back-end's entry points */
    PetscCall(PCFGDDSetUpBackend(pc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDGetBackend_FGDD(PC pc, PetscGILUBackendType *backend)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  if (pc->setupcalled) *backend = fg->ran;
  else if (fg->backendset) *backend = fg->backend;
  else PetscCall(PetscGILUGetBackend(backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetThreads_FGDD(PC pc, PetscInt threads)
{
  PetscFunctionBegin;
  PetscCheck(threads >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_fgdd_threads %" PetscInt_FMT ": must be 0 (OMP_NUM_THREADS) or positive", GILUPrefix(pc), threads);
  ((PC_FGDD *)pc->data)->threads = threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDSetZeroPivot_FGDD(PC pc, PetscReal zeropivot)
{
  PetscFunctionBegin;
  PetscCheck(zeropivot >= 0 && zeropivot < PETSC_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_fgdd_zeropivot %g: must be finite and nonnegative", GILUPrefix(pc), (double)zeropivot);
  ((PC_FGDD *)pc->data)->zeropivot = zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFGDDGetSubdomains_FGDD(PC pc, PetscInt *n, const PetscInt *rows[], IS *perm)
{
  PC_FGDD *fg = (PC_FGDD *)pc->data;

  PetscFunctionBegin;
  PetscCheck(fg->analyzed, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() (or KSPSetUp()) before PCFGDDGetSubdomains()");
  if (n) *n = fg->f.nsub;
  if (rows) *rows = fg->rowsizes;
  if (perm) *perm = fg->permis;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_FGDD(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_FGDD(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetSubdomainRows_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetSubdomainRows_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetSubdomainBox_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetPartitioner_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetApplyType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetFused_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetBackend_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetSubdomains_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetThreads_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetZeroPivot_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetSubdomainRows - Sets the target number of rows per subdomain of `PCFGDD`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner
- rows - the target, or `PETSC_DECIDE` (the default): 512 on the host; on a device back-end (cuda, cudaemu) at least
         4 subdomains per multiprocessor, two of them resident in its shared memory, and not below 512. The graph
         partitioner makes ceil(local rows / rows) subdomains of uniform size, the geometric one boxes of about
         rows / DoF grid points (a cube in 3D, a square in 2D)

  Options Database Key:
. -pc_fgdd_subdomain_rows <rows> - the target

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetSubdomainBox()`, `PCFGDDSetPartitioner()`
@*/
PetscErrorCode PCFGDDSetSubdomainRows(PC pc, PetscInt rows)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCFGDDSetSubdomainRows_C", (PC, PetscInt), (pc, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDGetSubdomainRows - Gets the target number of rows per subdomain of `PCFGDD`: after `PCSetUp()` the one its
  partition used (the one chosen for the back-end where it was `PETSC_DECIDE`), before it the one set

  Not Collective

  Input Parameter:
. pc - the preconditioner

  Output Parameter:
. rows - the target, `PETSC_DECIDE` before the setup when none was set

  Level: intermediate

  Note:
  With `-pc_fgdd_subdomain_box` the geometric partitioner cuts boxes of that size and the target is not used.

.seealso: `PCFGDD`, `PCFGDDSetSubdomainRows()`, `PCFGDDGetSubdomains()`
@*/
PetscErrorCode PCFGDDGetSubdomainRows(PC pc, PetscInt *rows)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(rows, 2);
  PetscUseMethod(pc, "PCFGDDGetSubdomainRows_C", (PC, PetscInt *), (pc, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetSubdomainBox - Sets the subdomain box (grid points per direction) of the geometric partitioner of `PCFGDD`

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner
- box - nx, ny, nz (1 for the directions a 1D or 2D DMDA does not have)

  Options Database Key:
. -pc_fgdd_subdomain_box <nx,ny,nz> - the box (missing sizes are 1)

  Note:
  The boxes at the far end of the local DMDA box are smaller when the sizes do not divide it.

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetSubdomainRows()`
@*/
PetscErrorCode PCFGDDSetSubdomainBox(PC pc, const PetscInt box[])
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(box, 2);
  PetscTryMethod(pc, "PCFGDDSetSubdomainBox_C", (PC, const PetscInt[]), (pc, box));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetPartitioner - Sets how `PCFGDD` finds its subdomains

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner
- part - `PC_FGDD_PARTITIONER_GEOMETRIC` (boxes of the DMDA) or `PC_FGDD_PARTITIONER_GRAPH` (MatPartitioning of the
         local block's graph, PT-Scotch here, then balancing to uniform sizes)

  Options Database Keys:
+ -pc_fgdd_partitioner <geometric,graph> - the partitioner (default: geometric when the matrix has a DMDA, else graph)
- -pc_fgdd_mat_partitioning_type <type>  - the MatPartitioning type of the graph partitioner

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetSubdomainRows()`, `PCFGDDSetSubdomainBox()`
@*/
PetscErrorCode PCFGDDSetPartitioner(PC pc, PCFGDDPartitioner part)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCFGDDSetPartitioner_C", (PC, PCFGDDPartitioner), (pc, part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetApplyType - Sets the triangular-solve variant inside the subdomains of `PCFGDD`

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner
- apply - `PC_FGDD_APPLY_SYNCFREE` (spin-waits per row; host: natural order), `PC_FGDD_APPLY_VERTEX` (level by level,
          a row per thread; deterministic) or `PC_FGDD_APPLY_EDGE` (level by level, a nonzero per thread with atomics;
          host: push-style column updates)

  Options Database Key:
. -pc_fgdd_apply <syncfree,vertex,edge> - the variant (default vertex)

  Notes:
  syncfree and vertex give the same result, bitwise, as the sequential solve of each subdomain. edge sums in another
  order (equal to round-off); on the host it is deterministic, on a GPU the order of the atomic updates is not, so
  iteration counts may vary from run to run there.

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetFused()`
@*/
PetscErrorCode PCFGDDSetApplyType(PC pc, PCFGDDApplyType apply)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCFGDDSetApplyType_C", (PC, PCFGDDApplyType), (pc, apply));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetFused - Fuses the lower solve, the diagonal scaling and the upper solve of each subdomain

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner
- fused - `PETSC_TRUE`: one task (one kernel, the vector in shared memory) per subdomain; `PETSC_FALSE`: three passes (kernels)

  Options Database Key:
. -pc_fgdd_fused <bool> - fuse (default true)

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetApplyType()`
@*/
PetscErrorCode PCFGDDSetFused(PC pc, PetscBool fused)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCFGDDSetFused_C", (PC, PetscBool), (pc, fused));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetBackend - Sets where `PCFGDD` applies its factors

  Logically Collective

  Input Parameters:
+ pc      - the preconditioner
- backend - `PETSCGILU_BACKEND_AUTO` (cuda when the library was built with CUDA and a device is present, else host),
            `PETSCGILU_BACKEND_HOST` (OpenMP, a task per subdomain), `PETSCGILU_BACKEND_CUDA` (the CUDA kernels, a
            thread block per subdomain, on the device) or `PETSCGILU_BACKEND_CUDAEMU` (the same kernels run by the
            host emulation of CUDA)

  Options Database Keys:
+ -pc_fgdd_backend auto|host|cuda|cudaemu - the back-end of this PC
- -gilu_backend auto|host|cuda|cudaemu    - the default when the PC's own is not given (default auto)

  Notes:
  The choice is resolved at `PCSetUp()` by `PetscGILUBackendResolve()`: asking for cuda without a CUDA build or
  without a device is an error that says so. On cuda and cudaemu the factors are copied to the device once per
  setup (at the first apply), and each apply copies the permuted vector in and out. `-ksp_view` names the
  back-end that ran. The emulation is slow (every CUDA thread is a fiber): it is for testing the kernels on small
  problems.

  Level: advanced

.seealso: `PCFGDD`, `PCFGDDGetBackend()`, `PCFGDDSetApplyType()`, `PetscGILUGetBackend()`, `PetscGILUBackendType`
@*/
PetscErrorCode PCFGDDSetBackend(PC pc, PetscGILUBackendType backend)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, backend, 2);
  PetscTryMethod(pc, "PCFGDDSetBackend_C", (PC, PetscGILUBackendType), (pc, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDGetBackend - Gets the back-end of `PCFGDD`: after the setup the one that ran (host, cuda or cudaemu),
  before it the one asked for

  Not Collective

  Input Parameter:
. pc - the preconditioner

  Output Parameter:
. backend - the back-end

  Level: advanced

.seealso: `PCFGDD`, `PCFGDDSetBackend()`
@*/
PetscErrorCode PCFGDDGetBackend(PC pc, PetscGILUBackendType *backend)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  GILUAssertPointer(backend, 2);
  PetscUseMethod(pc, "PCFGDDGetBackend_C", (PC, PetscGILUBackendType *), (pc, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetThreads - Sets the number of host threads of `PCFGDD` (a task per subdomain)

  Logically Collective

  Input Parameters:
+ pc      - the preconditioner
- threads - the number of threads, 0 (the default) for OMP_NUM_THREADS if set, else the cores divided among the MPI processes of the node
            (at most 4 per core and OpenMP's thread limit: a larger count is clamped)

  Options Database Key:
. -pc_fgdd_threads <n> - the threads

  Note:
  The subdomains are independent: the results do not depend on the number of threads, bitwise.

  Level: intermediate

.seealso: `PCFGDD`, `PCFGDDSetApplyType()`
@*/
PetscErrorCode PCFGDDSetThreads(PC pc, PetscInt threads)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCFGDDSetThreads_C", (PC, PetscInt), (pc, threads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCFGDDSetZeroPivot - Sets the tolerance below which a pivot of the subdomain ILU(0) of `PCFGDD` is a zero pivot

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner
- zeropivot - pivots at most this in absolute value are zero: finite and nonnegative (default 100 `PETSC_MACHINE_EPSILON`, as `PCILU`)

  Options Database Key:
. -pc_fgdd_zeropivot <tol> - the tolerance

  Note:
  A zero pivot sets the `PCFailedReason` (the `KSP` stops with `KSP_DIVERGED_PC_FAILED`), or is an error with `-ksp_error_if_not_converged`.

  Level: intermediate

.seealso: `PCFGDD`, `PCFactorSetZeroPivot()`
@*/
PetscErrorCode PCFGDDSetZeroPivot(PC pc, PetscReal zeropivot)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, zeropivot, 2);
  PetscTryMethod(pc, "PCFGDDSetZeroPivot_C", (PC, PetscReal), (pc, zeropivot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCFGDDGetSubdomains - Gets the subdomains of `PCFGDD` after its setup

  Not Collective

  Input Parameter:
. pc - the preconditioner

  Output Parameters:
+ n    - the number of subdomains (of this process's local block)
. rows - the number of rows of each subdomain, in order (owned by the PC)
- perm - the ordering: row i of the permuted local block is row perm[i] of the local block (owned by the PC)

  Note:
  PCFGDD with -pc_fgdd_apply vertex is block Jacobi with ILU(0) on these blocks of the local block permuted by perm.

  Level: advanced

.seealso: `PCFGDD`
@*/
PetscErrorCode PCFGDDGetSubdomains(PC pc, PetscInt *n, const PetscInt *rows[], IS *perm)
{
  PetscFunctionBegin;
  GILUValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCFGDDGetSubdomains_C", (PC, PetscInt *, const PetscInt *[], IS *), (pc, n, rows, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCFGDD - "fgdd": fine-grained domain decomposition for triangular solves (the FGDD paper of Gondhalekar et al.). The local block is cut into
   many small non-overlapping subdomains, reordered so each subdomain's rows are contiguous; the entries between
   subdomains are dropped for the preconditioner only, each subdomain is factored by ILU(0) and stored as ILDU0
   (unit lower L, inverted diagonal D^{-1}, unit upper D^{-1} U), and the subdomains are solved independently (a host
   task or a CUDA thread block each, the subdomain's vector in shared memory).

   Options Database Keys:
+  -pc_fgdd_subdomain_rows <-1>                 - target rows per subdomain (-1: `PETSC_DECIDE`, 512 on the host, chosen from the device's shared memory and multiprocessors on a device back-end)
.  -pc_fgdd_subdomain_box <nx,ny,nz>            - subdomain box of the geometric partitioner (instead of the rows)
.  -pc_fgdd_partitioner <geometric,graph>       - boxes of the DMDA (default when there is one) or graph partitioning
.  -pc_fgdd_mat_partitioning_type <ptscotch>    - the MatPartitioning type of the graph partitioner
.  -pc_fgdd_apply <vertex,syncfree,edge>        - the triangular-solve variant
.  -pc_fgdd_fused <true>                        - fused L-D-U per subdomain
.  -pc_fgdd_backend <auto,host,cuda,cudaemu>    - where the apply runs (default: -gilu_backend, whose default is auto)
.  -pc_fgdd_threads <n>                         - host threads (default 0: OMP_NUM_THREADS if set, else the cores / the MPI processes of the node; at most 4 per core)
-  -pc_fgdd_zeropivot <tol>                     - pivots at most tol in absolute value are zero (default 100 PETSC_MACHINE_EPSILON, as PCILU)

   Notes:
   Works on SEQAIJ and SEQBAIJ (block sizes 1 to 8) and on the local diagonal block of MPIAIJ and MPIBAIJ (each
   process partitions its own block: block Jacobi across processes), and as the sub-PC of `PCBJACOBI`; on a
   `MATSTENCILGPU` operator through its AIJ image. With the
   vertex (or syncfree) variant it is exactly block Jacobi with ILU(0) on the subdomains of the permuted matrix
   (see `PCFGDDGetSubdomains()`). A zero pivot makes the Krylov method stop with `KSP_DIVERGED_PC_FAILED`.
   The host runs a task per subdomain on OpenMP threads; results do not depend on their number, bitwise.
   On a CUDA device each subdomain is one thread block that keeps its vector and flags in shared memory, 8 bs + 4
   bytes per block row: above 48 KiB the kernels opt in, up to the device's limit per block (A100: 163 KiB, 13909
   block rows of size 1; H100: 227 KiB, 19370); a larger subdomain is an error at setup that says so. The default
   size (`PETSC_DECIDE`) is 512 rows on the host; on a device at least 4 subdomains per multiprocessor, two of them
   resident in its shared memory, and not below 512 rows (doc/fgdd.md).

   `PCApplyTranspose()` (`KSPBICG`, `KSPSolveTranspose()`) applies the exact transpose, P^T L^{-T} D^{-T} U^{-T} P
   (blocks transposed): per subdomain, U^T and L^T by columns, sequential within a subdomain, a host task per
   subdomain, on the host factors whatever the back-end (`-pc_fgdd_backend cuda` or cudaemu included).
   `PCMatApply()` (`KSPMatSolve()`; with PETSc 3.24 or newer `PCMatApplyTranspose()` too) applies it to a block of
   right-hand sides in one call, each column bitwise `PCApply()`'s: on the host a task per subdomain takes every column in
   turn, so the subdomain's factors are read from memory once for the block; on a device a column at a time (the device's
   edge variant, whose atomic updates have no fixed order, agrees with `PCApply()` to round-off only).

   Level: intermediate

   References:
.  * - Atharva Gondhalekar, Kjetil Haugen, Thomas Gibson and Wu-chun Feng, Mapping Sparse Triangular Solves to GPUs via
       Fine-grained Domain Decomposition, preprint (the FGDD paper; `-citations` lists it)

.seealso: `PCCreate()`, `PCSetType()`, `PCBJACOBI`, `PCILU`, `PCFGDDSetSubdomainRows()`, `PCFGDDGetSubdomainRows()`, `PCFGDDSetSubdomainBox()`,
          `PCFGDDSetPartitioner()`, `PCFGDDSetApplyType()`, `PCFGDDSetFused()`, `PCFGDDSetBackend()`, `PCFGDDSetThreads()`, `PCFGDDSetZeroPivot()`,
          `PCFGDDGetSubdomains()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_FGDD(PC pc)
{
  PC_FGDD *fg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&fg));
  fg->subrows     = PETSC_DECIDE;
  fg->partitioner = PC_FGDD_PARTITIONER_GEOMETRIC;
  fg->apply       = PC_FGDD_APPLY_VERTEX;
  fg->fused       = PETSC_TRUE;
  fg->backend     = PETSCGILU_BACKEND_AUTO;
  fg->ran         = PETSCGILU_BACKEND_HOST;
  fg->zeropivot   = 100.0 * PETSC_MACHINE_EPSILON; /* as PETSc's ILU */
  fg->f.zerorow   = -1;
  pc->data        = (void *)fg;

  pc->ops->setup          = PCSetUp_FGDD;
  pc->ops->apply          = PCApply_FGDD;
  pc->ops->applytranspose = PCApplyTranspose_FGDD;
  pc->ops->matapply       = PCMatApply_FGDD;
#if PETSC_VERSION_GE(3, 24, 0)
  pc->ops->matapplytranspose = PCMatApplyTranspose_FGDD;
#endif
  pc->ops->reset          = PCReset_FGDD;
  pc->ops->destroy        = PCDestroy_FGDD;
  pc->ops->setfromoptions = PCSetFromOptions_FGDD;
  pc->ops->view           = PCView_FGDD;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetSubdomainRows_C", PCFGDDSetSubdomainRows_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetSubdomainRows_C", PCFGDDGetSubdomainRows_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetSubdomainBox_C", PCFGDDSetSubdomainBox_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetPartitioner_C", PCFGDDSetPartitioner_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetApplyType_C", PCFGDDSetApplyType_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetFused_C", PCFGDDSetFused_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetBackend_C", PCFGDDSetBackend_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetBackend_C", PCFGDDGetBackend_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDGetSubdomains_C", PCFGDDGetSubdomains_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetThreads_C", PCFGDDSetThreads_FGDD));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFGDDSetZeroPivot_C", PCFGDDSetZeroPivot_FGDD));
  PetscFunctionReturn(PETSC_SUCCESS);
}
