static char help[] = "The general-sparse part of make gpu-perf: the triangular-solve engine's L and U solves and PCFGDD's apply against cuSPARSE's ILU(0) solves, kernel times only; SPCG's iterative phase against PCG; ATS-ILU's setup against ParILU; BiCGSTAB end to end with PCFGDD against cuSPARSE's ILU(0).\n\
  -case <engine|fgdd|spcg|ats|bcgs> : the engine (MatSolverType gilu's ILU(0) factor, each algorithm), PCFGDD's apply, KSPCG with\n\
                       PCSPARSIFY against PCILU (ILU(0) and ILU(K), gilu), PCATSILU's setup, ats against parilu, or KSPBCGS's\n\
                       KSPSolve with PCFGDD against cuSPARSE's ILU(0) (PETSc's host ILU(0) in the emulation) (default engine)\n\
  -rtol <r>, -max_it <n> : bcgs: the relative tolerance of ||b - Ax|| (right preconditioning) and the cap of every solve (1e-6, 1000)\n\
  -matrix <name>     : a matrix of the generated suite (PetscGILUTestMatrixCreate(): convdiff3d aniso3d jump3d fem_q1 fem_q2\n\
                       elasticity3d circuit perm7 perm27 bsr3; default convdiff3d); spcg: an SPD problem of bench/sparsify.py\n\
                       (PetscGILUPerfSPDProblemCreate(): poisson3d poisson2d aniso3d-a..d aniso2d-a..c axis7-z0.01 ...)\n\
  -levels <K>        : spcg: K of the ILU(K) pair (default 2, bench/sparsify.py's; 0: the ILU(0) pair only)\n\
  -sweeps <s>        : ats: the sweeps of both algorithms (default 5, PCATSILU's)\n\
  -size <s>          : its scale, about s^3 grid points (default 8)\n\
  -algs <a,b,...>    : engine: the -mat_gilu_trisolve algorithms (default levelset,syncfree,colblock,rowblock,recblock,auto)\n\
  -backend <cuda|cudaemu> : cuda: a device, times of its kernels and cuSPARSE; cudaemu: the emulation, the logic at small sizes (default cudaemu)\n\
  -sreps <k>         : timed solves (applies) (default 5)\n\
  -columns <k>       : engine, fgdd: also a block of k right-hand sides, each launch taking all of them (MatMatSolve()'s,\n\
                       PCMatApply()'s device path), timed against k single solves (applies) (default 0: none)\n\
  -csr <bool>, -bsr <bool> : cuSPARSE CSR, BSR (a matrix with blocks) on a CUDA device (default true)\n\
  -check             : engine: compare with PETSc's ILU(0) on the host where cuSPARSE does not run; fgdd: with PCFGDD's host apply;\n\
                       spcg, ats: with the same runs on the host back-end\n\
  -json <file>       : append the case's results as one JSON line\n\
  -md_row            : print the case's rows of the report's table (-md_header: the header of -case's table)\n\
Without -json and -md_row it prints what does not depend on the machine (sizes, algorithms that ran, checks), for the tests.\n\n";

/*
  One case of the general-sparse part of make gpu-perf (bench/gpu/perf's sparse-* cases, each a process under its own
  timeout). The work is PetscGILUPerfSparseRun() of the test library (src/test/perf-sparse.c): the matrix of the generated
  suite, the engine's triangles on the factor of MatSolverType gilu or PCFGDD set up for the back-end, CUDA events around
  each solve (apply) on device vectors, cuSPARSE's ILU(0) solves of the same matrix. This program formats: a JSON line
  (every figure), the markdown rows of the report (milliseconds: the smallest over the repetitions; GB/s = compulsory
  bytes / that time; of peak = GB/s / the device's peak) or, for the tests, the machine-independent lines.
  Device figures (name, peak) come from tests/ex20 -device_info, which the driver runs once: -peak passes the peak here.
*/
#include <petscgilutest.h>
#include <petscgilu/private/sptrsv.h>
#include <petscksp.h>

static const char *const Kinds[]       = {"engine", "fgdd", "spcg", "ats", "bcgs", "Kind", "", NULL};
static const char *const KrylovNames[] = {"PCG-ILU(0)", "SPCG-ILU(0)", "PCG-ILU(K)", "SPCG-ILU(K)"};

/* the text of bytes / ms as GB/s and as a percentage of peak ("-" when not measured) */
static PetscErrorCode Rate(char gbs[], char pct[], size_t len, double bytes, double ms, double peak)
{
  PetscFunctionBeginUser;
  if (ms > 0) PetscCall(PetscSNPrintf(gbs, len, "%.0f", bytes / (ms * 1e-3) / 1e9));
  else PetscCall(PetscSNPrintf(gbs, len, "-"));
  if (ms > 0 && peak > 0) PetscCall(PetscSNPrintf(pct, len, "%.0f%%", 100.0 * bytes / (ms * 1e-3) / 1e9 / peak));
  else PetscCall(PetscSNPrintf(pct, len, "-"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the faster cuSPARSE format's L + U (ms, smallest) and its name; 0 when none ran */
static double BestCuSparse(const PetscGILUPerfSparseResult *r, const char **name)
{
  const double c = r->hascsr ? r->csr.lower[0] + r->csr.upper[0] : 0, b = r->hasbsr ? r->bsr.lower[0] + r->bsr.upper[0] : 0;

  *name = "-";
  if (c > 0 && (b <= 0 || c <= b)) {
    *name = "CSR";
    return c;
  }
  if (b > 0) *name = "BSR";
  return b;
}

static const char *AlgName(PetscInt a)
{
  return a >= 0 ? GILUTriSolveTypes[a] : (a == -1 ? "mixed" : "not run on the device");
}

static PetscErrorCode PrintJSON(FILE *f, const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r, PetscBool engine)
{
  const char *best;
  double      bms = BestCuSparse(r, &best);

  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "{\"kind\": \"%s\", \"matrix\": \"%s\", \"size\": %" PetscInt_FMT ", \"rows\": %.0f, \"nnz\": %.0f, \"bs\": %" PetscInt_FMT ", \"nsub\": %" PetscInt_FMT ", \"subrows\": %" PetscInt_FMT ", \"partitioner\": \"%s\", \"reference\": \"%s\", ", c->kind, c->matrix, c->size, r->rows, r->nnz, r->bs, r->nsub, r->subrows, r->geometric ? "geometric" : "graph", r->ref));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"cusparse\": {"));
  for (int k = 0; k < 2; k++) {
    const GILUCuSparseTimes *t = k ? &r->bsr : &r->csr;
    const double            *b = k ? r->bsrbytes : r->csrbytes;

    if (!(k ? r->hasbsr : r->hascsr)) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"%s\": null, ", k ? "bsr" : "csr"));
    else
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"%s\": {\"bytes\": [%.0f, %.0f], \"analysis_ms\": %.6g, \"factor_ms\": %.6g, \"solve_analysis_ms\": %.6g, \"lower_ms\": [%.6g, %.6g], \"upper_ms\": [%.6g, %.6g]}, ", k ? "bsr" : "csr", b[0], b[1], t->analysis, t->factor[0], t->solveanalysis, t->lower[0], t->lower[1], t->upper[0], t->upper[1]));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"best_ms\": %.6g, \"best\": \"%s\"}, \"methods\": [", bms, best));
  for (PetscInt a = 0; a < (engine ? c->nalg : 1); a++) {
    const PetscGILUPerfSparseMethod *m = &r->m[a];

    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s{\"name\": \"%s\", \"ran\": \"%s\", \"bytes\": [%.0f, %.0f], \"lower_ms\": [%.6g, %.6g], \"upper_ms\": [%.6g, %.6g], \"launches\": [%" PetscInt_FMT ", %" PetscInt_FMT "], \"syncs\": [%" PetscInt_FMT ", %" PetscInt_FMT "], \"levels\": [%" PetscInt_FMT ", %" PetscInt_FMT "], \"diff\": %.3g, \"columns\": %" PetscInt_FMT ", \"block_ms\": [%.6g, %.6g], \"block_diff\": %.3g}", a ? ", " : "", engine ? GILUTriSolveTypes[c->alg[a]] : "fgdd", engine ? AlgName(m->ran) : "fgdd", m->bytes[0], m->bytes[1], m->lower[0], m->lower[1], m->upper[0], m->upper[1], m->launches[0], m->launches[1], m->syncs[0], m->syncs[1], m->levels[0], m->levels[1],
                           (double)m->diff, c->columns, m->block[0], m->block[1], (double)m->blockdiff));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "], \"host_s\": {\"matrix\": %.3f, \"setup\": %.3f, \"cusparse\": %.3f}}\n", r->hosts[0], r->hosts[1], r->hosts[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the report's rows: a row per cuSPARSE format, then per method (engine: algorithm; fgdd: the apply) */
static PetscErrorCode PrintRows(const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r, PetscBool engine, double peak)
{
  const char  *best;
  const double bms = BestCuSparse(r, &best);
  char         gbs[32], pct[32], sp[32], df[32], cas[96], bk[48];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(cas, sizeof(cas), "%s %" PetscInt_FMT, c->matrix, c->size));
  for (int k = 0; k < 2; k++) {
    const GILUCuSparseTimes *t = k ? &r->bsr : &r->csr;
    const double            *b = k ? r->bsrbytes : r->csrbytes;

    if (!(k ? r->hasbsr : r->hascsr)) continue;
    PetscCall(Rate(gbs, pct, sizeof(gbs), b[0] + b[1], t->lower[0] + t->upper[0], peak));
    if (engine)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | %.3g | cuSPARSE %s | %.3f | %.3f | %.3f | %s | %s | 1 | - | - | - | - |\n", cas, r->rows, r->nnz, k ? "BSR" : "CSR", t->lower[0], t->upper[0], t->lower[0] + t->upper[0], gbs, pct));
    else PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | cuSPARSE %s L + U | %.3f | %s | %s | 1 | - | - |\n", cas, r->rows, k ? "BSR" : "CSR", t->lower[0] + t->upper[0], gbs, pct));
  }
  for (PetscInt a = 0; a < (engine ? c->nalg : 1); a++) {
    const PetscGILUPerfSparseMethod *m  = &r->m[a];
    const double                     ms = m->lower[0] + m->upper[0];

    PetscCall(Rate(gbs, pct, sizeof(gbs), m->bytes[0] + m->bytes[1], ms, peak));
    if (bms > 0 && ms > 0) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f", bms / ms));
    else PetscCall(PetscSNPrintf(sp, sizeof(sp), "-"));
    if (m->diff >= 0) PetscCall(PetscSNPrintf(df, sizeof(df), "%.1e", (double)m->diff));
    else PetscCall(PetscSNPrintf(df, sizeof(df), "-"));
    /* the block's L + U (apply) over k single ones: below 1 the block saves */
    if (c->columns > 0 && m->block[0] > 0 && ms > 0) PetscCall(PetscSNPrintf(bk, sizeof(bk), "%.2f%s", m->block[0] / (c->columns * ms), m->blockdiff == 0 ? "" : " NOT BITWISE"));
    else PetscCall(PetscSNPrintf(bk, sizeof(bk), "-"));
    if (engine) {
      char name[64];

      if (m->ran == -2) PetscCall(PetscSNPrintf(name, sizeof(name), "engine %s (not run on the device)", GILUTriSolveTypes[c->alg[a]]));
      else PetscCall(PetscSNPrintf(name, sizeof(name), c->alg[a] == GILU_TRISOLVE_AUTO ? "engine auto (%s)" : "engine %s", c->alg[a] == GILU_TRISOLVE_AUTO ? AlgName(m->ran) : GILUTriSolveTypes[c->alg[a]]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | %.3g | %s | %.3f | %.3f | %.3f | %s | %s | %s | %" PetscInt_FMT " + %" PetscInt_FMT " | %" PetscInt_FMT " + %" PetscInt_FMT " | %s | %s |\n", cas, r->rows, r->nnz, name, m->lower[0], m->upper[0], ms, gbs, pct, sp, m->launches[0], m->launches[1], m->syncs[0], m->syncs[1], df, bk));
    } else
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | PCFGDD apply (%" PetscInt_FMT " %s subdomains, target %" PetscInt_FMT " rows) | %.3f | %s | %s | %s | %s | %s |\n", cas, r->rows, r->nsub, r->geometric ? "geometric" : "graph", r->subrows, ms, gbs, pct, sp, df, bk));
  }
  if (engine) { /* the line bench/gpu/perf's summary reads: cuSPARSE's best, auto's and the fastest algorithm's L + U */
    PetscInt bi = -1, ai = -1;

    for (PetscInt a = 0; a < c->nalg; a++) {
      const double ms = r->m[a].lower[0] + r->m[a].upper[0];

      if (c->alg[a] == GILU_TRISOLVE_AUTO) ai = a;
      else if (ms > 0 && (bi < 0 || ms < r->m[bi].lower[0] + r->m[bi].upper[0])) bi = a;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "summary %s_%" PetscInt_FMT " %.6g %.6g %.6g %s\n", c->matrix, c->size, bms, ai >= 0 ? r->m[ai].lower[0] + r->m[ai].upper[0] : 0.0, bi >= 0 ? r->m[bi].lower[0] + r->m[bi].upper[0] : 0.0, bi >= 0 ? GILUTriSolveTypes[c->alg[bi]] : "-"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tests' line of a block of right-hand sides: timed, and each column bitwise what one solve (apply) gives it */
static PetscErrorCode BlockLine(const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseMethod *m, const char what[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  a block of %" PetscInt_FMT " columns: %s; its columns %s the single %s's\n", c->columns, m->block[0] > 0 ? "timed" : "NOT timed",
                        m->blockdiff == 0  ? "bitwise"
                        : m->blockdiff < 0 ? "not compared with"
                                           : "NOT bitwise",
                        what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* spcg: the iterative phase's time per iteration (ms, smallest solve); 0 when it did not converge */
static double PerIteration(const PetscGILUPerfKrylov *k)
{
  return k->reason > 0 && k->its > 0 ? k->solve[0] / k->its : 0;
}

/* spcg: SPCG's speedups over PCG with the same inner ILU: per iteration and of the whole iterative phase; 0 unknown */
static void KrylovSpeedups(const PetscGILUPerfKrylov *pcg, const PetscGILUPerfKrylov *spcg, double *periter, double *phase)
{
  const double a = PerIteration(pcg), b = PerIteration(spcg);

  *periter = a > 0 && b > 0 ? a / b : 0;
  *phase   = a > 0 && b > 0 ? pcg->solve[0] / spcg->solve[0] : 0;
}

static PetscErrorCode PrintJSONOther(FILE *f, const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r, PetscBool spcg)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "{\"kind\": \"%s\", \"matrix\": \"%s\", \"size\": %" PetscInt_FMT ", \"rows\": %.0f, \"nnz\": %.0f, \"reference\": \"%s\", ", c->kind, c->matrix, c->size, r->rows, r->nnz, r->ref));
  if (spcg) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"levels\": %" PetscInt_FMT ", \"configs\": [", c->levels));
    for (PetscInt k = 0; k < (c->levels > 0 ? 4 : 2); k++) {
      const PetscGILUPerfKrylov *q = &r->k[k];

      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s{\"name\": \"%s\", \"ilu_levels\": %" PetscInt_FMT ", \"its\": %" PetscInt_FMT ", \"reason\": \"%s\", \"solve_ms\": [%.6g, %.6g], \"ms_per_iteration\": %.6g, \"setup_ms\": %.6g, \"ratio\": %.3f, \"wavefronts\": [%" PetscInt_FMT ", %" PetscInt_FMT "], \"host_its\": %" PetscInt_FMT ", \"diff\": %.3g}", k ? ", " : "", KrylovNames[k], k < 2 ? (PetscInt)0 : c->levels, q->its, KSPConvergedReasons[q->reason], q->solve[0], q->solve[1], PerIteration(q), q->setup,
                             (double)q->ratio, q->wavefronts[0], q->wavefronts[1], q->hostits, (double)q->diff));
    }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "], \"speedups\": ["));
    for (PetscInt k = 0; k < (c->levels > 0 ? 2 : 1); k++) {
      double pi, ph;

      KrylovSpeedups(&r->k[2 * k], &r->k[2 * k + 1], &pi, &ph);
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s{\"ilu_levels\": %" PetscInt_FMT ", \"per_iteration\": %.6g, \"iterative_phase\": %.6g}", k ? ", " : "", k ? c->levels : (PetscInt)0, pi, ph));
    }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "]"));
  } else {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"sweeps\": %" PetscInt_FMT ", \"algorithms\": [", c->sweeps));
    for (PetscInt a = 0; a < 2; a++) {
      const PetscGILUPerfATS *q = &r->ats[a];

      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s{\"name\": \"%s\", \"setup_ms\": [%.6g, %.6g], \"sweeps_done\": %" PetscInt_FMT ", \"residual0\": %.6g, \"residual\": %.6g, \"host_residual\": %.6g}", a ? ", " : "", a ? "parilu" : "ats", q->setup[0], q->setup[1], q->nsweeps,
                             (double)q->res0, (double)q->res, (double)q->hostres));
    }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "]"));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, ", \"host_s\": {\"matrix\": %.3f, \"runs\": %.3f}}\n", r->hosts[0], r->hosts[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* spcg: a row per configuration, the speedups on the SPCG rows, and the summary line bench/gpu/perf reads ("spcg <problem>
   <per-iteration ILU(0)> <phase ILU(0)> <per-iteration ILU(K)> <phase ILU(K)>", 0 unknown); ats: a row per algorithm */
static PetscErrorCode PrintRowsOther(const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r, PetscBool spcg)
{
  char   cas[96], sp[64], wf[48];
  double s[2][2] = {
    {0, 0},
    {0, 0}
  };

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(cas, sizeof(cas), "%s %" PetscInt_FMT, c->matrix, c->size));
  if (!spcg) {
    for (PetscInt a = 0; a < 2; a++) {
      const PetscGILUPerfATS *q = &r->ats[a];

      if (a) PetscCall(PetscSNPrintf(sp, sizeof(sp), "1"));
      else if (r->ats[0].setup[0] > 0) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f", r->ats[1].setup[0] / r->ats[0].setup[0]));
      else PetscCall(PetscSNPrintf(sp, sizeof(sp), "-"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | %.3g | %s | %" PetscInt_FMT " | %.1f | %.3e | %.3e | %s |\n", cas, r->rows, r->nnz, a ? "ParILU" : "ATS-ILU", q->nsweeps, q->setup[0], (double)q->res0, (double)q->res, sp));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < (c->levels > 0 ? 2 : 1); k++) KrylovSpeedups(&r->k[2 * k], &r->k[2 * k + 1], &s[k][0], &s[k][1]);
  for (PetscInt k = 0; k < (c->levels > 0 ? 4 : 2); k++) {
    const PetscGILUPerfKrylov *q = &r->k[k];
    char                       name[32];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s", KrylovNames[k]));
    if (k >= 2) PetscCall(PetscSNPrintf(name, sizeof(name), "%s-ILU(%" PetscInt_FMT ")", k == 2 ? "PCG" : "SPCG", c->levels));
    if (k % 2) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f | %.2f", s[k / 2][0], s[k / 2][1]));
    else PetscCall(PetscSNPrintf(sp, sizeof(sp), "1 | 1"));
    if (k % 2) PetscCall(PetscSNPrintf(wf, sizeof(wf), "%.1f %% | %" PetscInt_FMT " -> %" PetscInt_FMT, (double)q->ratio, q->wavefronts[0], q->wavefronts[1]));
    else PetscCall(PetscSNPrintf(wf, sizeof(wf), "- | -"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | %.3g | %s | %" PetscInt_FMT "%s | %.1f | %.3f | %.1f | %s | %s |\n", cas, r->rows, r->nnz, name, q->its, q->reason > 0 ? "" : " (not converged)", q->solve[0], PerIteration(q), q->setup, wf, sp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "spcg %s_%" PetscInt_FMT " %.6g %.6g %.6g %.6g\n", c->matrix, c->size, s[0][0], s[0][1], s[1][0], s[1][1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bcgs: the end-to-end speedup of PCFGDD (k[0]) over the fastest converged reference (KSPSolve ms, smallest), and per
   iteration; 0 when PCFGDD or every reference did not converge */
static void BCGSSpeedups(const PetscGILUPerfSparseResult *r, double *phase, double *periter)
{
  double best = 0, bestit = 0;

  for (PetscInt k = 1; k < r->nk; k++) {
    if (r->k[k].reason <= 0) continue;
    if (best <= 0 || r->k[k].solve[0] < best) best = r->k[k].solve[0];
    if (bestit <= 0 || PerIteration(&r->k[k]) < bestit) bestit = PerIteration(&r->k[k]);
  }
  *phase   = best > 0 && r->k[0].reason > 0 ? best / r->k[0].solve[0] : 0;
  *periter = bestit > 0 && PerIteration(&r->k[0]) > 0 ? bestit / PerIteration(&r->k[0]) : 0;
}

static PetscErrorCode PrintJSONBCGS(FILE *f, const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r)
{
  double phase, periter;

  PetscFunctionBeginUser;
  BCGSSpeedups(r, &phase, &periter);
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "{\"kind\": \"%s\", \"matrix\": \"%s\", \"size\": %" PetscInt_FMT ", \"rows\": %.0f, \"nnz\": %.0f, \"bs\": %" PetscInt_FMT ", \"nsub\": %" PetscInt_FMT ", \"subrows\": %" PetscInt_FMT ", \"partitioner\": \"%s\", \"reference\": \"%s\", \"rtol\": %g, \"max_it\": %" PetscInt_FMT ", \"solves\": [", c->kind, c->matrix, c->size, r->rows, r->nnz, r->bs, r->nsub, r->subrows, r->geometric ? "geometric" : "graph", r->ref,
                         (double)c->rtol, c->maxit));
  for (PetscInt k = 0; k < r->nk; k++) {
    const PetscGILUPerfKrylov *q = &r->k[k];

    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s{\"name\": \"%s\", \"its\": %" PetscInt_FMT ", \"reason\": \"%s\", \"solve_ms\": [%.6g, %.6g], \"ms_per_iteration\": %.6g, \"setup_ms\": %.6g, \"true_residual\": %.6g}", k ? ", " : "", q->name, q->its, KSPConvergedReasons[q->reason], q->solve[0], q->solve[1], PerIteration(q), q->setup,
                           (double)q->resid));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "], \"speedup\": %.6g, \"speedup_per_iteration\": %.6g, \"host_s\": {\"matrix\": %.3f, \"runs\": %.3f}}\n", phase, periter, r->hosts[0], r->hosts[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bcgs: a row per preconditioner, the speedups on PCFGDD's row (over the fastest converged reference) */
static PetscErrorCode PrintRowsBCGS(const PetscGILUPerfSparseCase *c, const PetscGILUPerfSparseResult *r)
{
  char   cas[96], name[80], sp[64];
  double phase, periter;

  PetscFunctionBeginUser;
  BCGSSpeedups(r, &phase, &periter);
  PetscCall(PetscSNPrintf(cas, sizeof(cas), "%s %" PetscInt_FMT, c->matrix, c->size));
  for (PetscInt k = 0; k < r->nk; k++) {
    const PetscGILUPerfKrylov *q = &r->k[k];

    if (k) PetscCall(PetscSNPrintf(name, sizeof(name), "%s", q->name));
    else PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%" PetscInt_FMT " %s subdomains, target %" PetscInt_FMT " rows)", q->name, r->nsub, r->geometric ? "geometric" : "graph", r->subrows));
    if (k) PetscCall(PetscSNPrintf(sp, sizeof(sp), "- | -"));
    else if (phase > 0) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f | %.2f", phase, periter));
    else PetscCall(PetscSNPrintf(sp, sizeof(sp), "- | - (not converged)"));
    PetscCall(
      PetscPrintf(PETSC_COMM_SELF, "| %s | %.3g | %.3g | %s | %" PetscInt_FMT "%s | %.1f | %.3f | %.1f | %.2e | %s |\n", cas, r->rows, r->nnz, name, q->its, q->reason > 0 ? "" : " (NOT converged)", q->solve[0], PerIteration(q), q->setup, (double)q->resid, sp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscGILUPerfSparseCase   c;
  PetscGILUPerfSparseResult r;
  PetscGILUBackendType      backend = PETSCGILU_BACKEND_CUDAEMU, ran;
  PetscInt                  kind = 0, nalg = PETSCGILU_PERF_SPARSE_MAXALG;
  PetscBool                 mdrow = PETSC_FALSE, mdheader = PETSC_FALSE, flg;
  char                      json[PETSC_MAX_PATH_LEN] = "", *algs[PETSCGILU_PERF_SPARSE_MAXALG];
  PetscReal                 peak                     = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCall(PetscStrncpy(c.matrix, "convdiff3d", sizeof(c.matrix)));
  c.size  = 8;
  c.sreps = 5;
  c.csr = c.bsr = PETSC_TRUE;
  c.nalg        = 6;
  c.levels      = 2; /* bench/sparsify.py's K */
  c.sweeps      = 5; /* PCATSILU's default */
  c.rtol        = 1e-6;
  c.maxit       = 1000;
  c.alg[0]      = GILU_TRISOLVE_LEVELSET;
  c.alg[1]      = GILU_TRISOLVE_SYNCFREE;
  c.alg[2]      = GILU_TRISOLVE_COLBLOCK;
  c.alg[3]      = GILU_TRISOLVE_ROWBLOCK;
  c.alg[4]      = GILU_TRISOLVE_RECBLOCK;
  c.alg[5]      = GILU_TRISOLVE_AUTO;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "make gpu-perf's general-sparse benchmark", NULL);
  PetscCall(PetscOptionsEList("-case", "engine, fgdd, spcg, ats or bcgs", NULL, Kinds, 5, Kinds[0], &kind, NULL));
  PetscCall(PetscOptionsReal("-rtol", "bcgs: the relative tolerance of every solve", NULL, c.rtol, &c.rtol, NULL));
  PetscCall(PetscOptionsInt("-max_it", "bcgs: the iteration cap of every solve", NULL, c.maxit, &c.maxit, NULL));
  PetscCall(PetscOptionsInt("-levels", "spcg: K of the ILU(K) pair", NULL, c.levels, &c.levels, NULL));
  PetscCall(PetscOptionsInt("-sweeps", "ats: the sweeps of both algorithms", NULL, c.sweeps, &c.sweeps, NULL));
  PetscCall(PetscOptionsString("-matrix", "a matrix of the generated suite", NULL, c.matrix, c.matrix, sizeof(c.matrix), NULL));
  PetscCall(PetscOptionsInt("-size", "its scale (about size^3 grid points)", NULL, c.size, &c.size, NULL));
  PetscCall(PetscOptionsStringArray("-algs", "engine: the algorithms", NULL, algs, &nalg, &flg));
  if (flg) {
    c.nalg = nalg;
    for (PetscInt a = 0; a < nalg; a++) {
      PetscInt k;

      for (k = 0; GILUTriSolveTypes[k] && k < GILU_TRISOLVE_CHUNKED + 1; k++) {
        PetscBool match;

        PetscCall(PetscStrcasecmp(algs[a], GILUTriSolveTypes[k], &match));
        if (match) break;
      }
      PetscCheck(k <= GILU_TRISOLVE_CHUNKED, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown algorithm %s in -algs: give -mat_gilu_trisolve's names", algs[a]);
      c.alg[a] = k;
      PetscCall(PetscFree(algs[a]));
    }
  }
  PetscCall(PetscOptionsEnum("-backend", "cuda (a device) or cudaemu (the emulation)", NULL, PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsInt("-sreps", "timed solves", NULL, c.sreps, &c.sreps, NULL));
  PetscCall(PetscOptionsInt("-columns", "engine, fgdd: also a block of that many right-hand sides", NULL, c.columns, &c.columns, NULL));
  PetscCall(PetscOptionsBool("-csr", "cuSPARSE CSR", NULL, c.csr, &c.csr, NULL));
  PetscCall(PetscOptionsBool("-bsr", "cuSPARSE BSR", NULL, c.bsr, &c.bsr, NULL));
  PetscCall(PetscOptionsBool("-check", "compare with the host's reference", NULL, c.check, &c.check, NULL));
  PetscCall(PetscOptionsReal("-peak", "the device's peak bandwidth, GB/s (tests/ex20 -device_info)", NULL, peak, &peak, NULL));
  PetscCall(PetscOptionsString("-json", "append a JSON line", NULL, json, json, sizeof(json), NULL));
  PetscCall(PetscOptionsBool("-md_row", "print the report's table rows", NULL, mdrow, &mdrow, NULL));
  PetscCall(PetscOptionsBool("-md_header", "print the header of -case's table and exit", NULL, mdheader, &mdheader, NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrncpy(c.kind, Kinds[kind], sizeof(c.kind)));
  if (mdheader) {
    if (kind == 4) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix size | rows | nonzeros | preconditioner | iterations | KSPSolve ms | ms / iteration | setup ms | true residual | speedup end to end | speedup per iteration |\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"));
    } else if (kind == 2) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| problem size | rows | nonzeros | method | iterations | KSPSolve ms | ms / iteration | setup ms | ratio | wavefronts | speedup per iteration | speedup of the phase |\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"));
    } else if (kind == 3) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix size | rows | nonzeros | algorithm | sweeps | PCSetUp ms | initial residual | final residual | speedup |\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---:|---|---:|---:|---:|---:|---:|\n"));
    } else if (!kind) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix size | rows | nonzeros | method | L ms | U ms | L + U ms | GB/s | of peak | speedup | launches L + U | syncs L + U | rel diff | block/column |\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"));
    } else {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix size | rows | method | ms | GB/s | of peak | speedup | rel diff | block/column |\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---|---:|---:|---:|---:|---:|---:|\n"));
    }
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscGILUBackendResolve(PETSC_COMM_WORLD, backend, &ran));
  PetscCheck(ran == PETSCGILU_BACKEND_CUDA || ran == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on -backend cuda or cudaemu, not %s", PetscGILUBackendTypes[ran]);
  PetscCall(PetscGILUPerfSparseRun(ran, &c, &r));
  if (json[0]) {
    FILE *f;

    PetscCall(PetscFOpen(PETSC_COMM_SELF, json, "a", &f));
    if (kind == 4) PetscCall(PrintJSONBCGS(f, &c, &r));
    else if (kind >= 2) PetscCall(PrintJSONOther(f, &c, &r, (PetscBool)(kind == 2)));
    else PetscCall(PrintJSON(f, &c, &r, (PetscBool)!kind));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  }
  if (mdrow && kind == 4) PetscCall(PrintRowsBCGS(&c, &r));
  else if (mdrow && kind >= 2) PetscCall(PrintRowsOther(&c, &r, (PetscBool)(kind == 2)));
  else if (mdrow) PetscCall(PrintRows(&c, &r, (PetscBool)!kind, (double)peak));
  if (!json[0] && !mdrow && kind == 4) { /* what does not depend on the machine: convergence, iterations */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT ": %.0f rows, %.0f nonzeros, block size %" PetscInt_FMT "; KSPBCGS, right preconditioning, rtol %g, at most %" PetscInt_FMT " iterations; reference: %s\n", c.matrix, c.size, r.rows, r.nnz, r.bs,
                          (double)c.rtol, c.maxit, r.ref));
    for (PetscInt k = 0; k < r.nk; k++) {
      const PetscGILUPerfKrylov *q = &r.k[k];

      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", q->name));
      if (!k) PetscCall(PetscPrintf(PETSC_COMM_SELF, " (%s, %" PetscInt_FMT " %s subdomains, target %" PetscInt_FMT " rows)", PetscGILUBackendTypes[ran], r.nsub, r.geometric ? "geometric" : "graph", r.subrows));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, ": %s, %" PetscInt_FMT " iterations, true residual %s rtol, solve %s\n", KSPConvergedReasons[q->reason], q->its, q->resid <= c.rtol ? "at or below" : "ABOVE", q->solve[0] > 0 ? "timed" : "NOT timed"));
    }
  } else if (!json[0] && !mdrow && kind == 2) { /* what does not depend on the machine: iterations, the choice, the checks */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT ": %.0f rows, %.0f nonzeros\n", c.matrix, c.size, r.rows, r.nnz));
    for (PetscInt k = 0; k < (c.levels > 0 ? 4 : 2); k++) {
      const PetscGILUPerfKrylov *q = &r.k[k];

      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s (K = %" PetscInt_FMT "): %s, %" PetscInt_FMT " iterations, %s", KrylovNames[k], k < 2 ? (PetscInt)0 : c.levels, KSPConvergedReasons[q->reason], q->its, q->solve[0] > 0 ? "timed" : "NOT timed"));
      if (k % 2) PetscCall(PetscPrintf(PETSC_COMM_SELF, ", ratio %.1f %%, wavefronts %" PetscInt_FMT " -> %" PetscInt_FMT, (double)q->ratio, q->wavefronts[0], q->wavefronts[1]));
      if (q->hostits >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; vs %s: iterations %s, solution %s", r.ref, q->hostits == q->its ? "equal" : "DIFFER", q->diff >= 0 && q->diff < 1e-8 ? "agrees (relative difference below 1e-8)" : "DIFFERS"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    }
  } else if (!json[0] && !mdrow && kind == 3) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT ": %.0f rows, %.0f nonzeros\n", c.matrix, c.size, r.rows, r.nnz));
    for (PetscInt a = 0; a < 2; a++) {
      const PetscGILUPerfATS *q = &r.ats[a];

      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %" PetscInt_FMT " sweeps, setup %s, residual %s the initial guess's", a ? "ParILU" : "ATS-ILU", q->nsweeps, q->setup[0] > 0 ? "timed" : "NOT timed", q->res < q->res0 ? "below" : "NOT below"));
      if (q->hostres >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; vs %s: %s", r.ref, PetscAbsReal(q->res - q->hostres) <= 1e-10 * PetscAbsReal(q->hostres) ? "final residual agrees (relative difference below 1e-10)" : "final residual DIFFERS"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ATS-ILU's final residual %s ParILU's\n", r.ats[0].res <= r.ats[1].res ? "at or below" : "above"));
  } else if (!json[0] && !mdrow) { /* what does not depend on the machine */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT ": %.0f rows, %.0f nonzeros, block size %" PetscInt_FMT "\n", c.matrix, c.size, r.rows, r.nnz, r.bs));
    for (PetscInt a = 0; a < (kind ? 1 : c.nalg); a++) {
      const PetscGILUPerfSparseMethod *m     = &r.m[a];
      const PetscBool                  timed = (PetscBool)(m->lower[0] > 0 && (kind || m->upper[0] > 0) && m->bytes[0] > 0);

      if (!kind && m->ran == -2) PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine %s: not run on the device (host only, or its plan refused)\n", GILUTriSolveTypes[c.alg[a]]));
      else if (kind) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "PCFGDD apply, %" PetscInt_FMT " %s subdomains, target %" PetscInt_FMT " rows: %s; vs %s: %s\n", r.nsub, r.geometric ? "geometric" : "graph", r.subrows, timed ? "timed" : "NOT timed", r.ref,
                              m->diff >= 0 && m->diff < 1e-10 ? "agree (relative difference below 1e-10)"
                              : m->diff < 0                   ? "not compared"
                                                              : "DIFFER"));
        if (c.columns > 0) PetscCall(BlockLine(&c, m, "apply"));
      } else {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "engine %s (ran %s; levels L %" PetscInt_FMT ", U %" PetscInt_FMT "): L and U %s; vs %s: %s\n", GILUTriSolveTypes[c.alg[a]], AlgName(m->ran), m->levels[0], m->levels[1], timed ? "timed" : "NOT timed", r.ref,
                              m->diff >= 0 && m->diff < 1e-10 ? "agree (relative difference below 1e-10)"
                              : m->diff < 0                   ? "not compared"
                                                              : "DIFFER"));
        if (c.columns > 0) PetscCall(BlockLine(&c, m, "solve"));
      }
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: cudaemu

  testset:
    requires: cudaemu
    args: -backend cudaemu -check -sreps 2
    test:
      suffix: engine
      args: -case engine -matrix {{convdiff3d perm7}separate output} -size 6 -columns 3
    test:
      suffix: engine_blocks
      args: -case engine -matrix bsr3 -size 5 -algs levelset,recblock,sequential,auto
    # the check applies the timed PC's own factors on the host (a second PC would partition anew: PT-Scotch's random state
    # moves from call to call, so above a few subdomains two PCs of one process differ); size 10: 6 subdomains.
    # SCOTCH_PTHREAD_NUMBER=1: the same partition from run to run (PT-Scotch's threads partition differently)
    test:
      suffix: fgdd
      args: -case fgdd -matrix bsr3 -size 10 -columns 3
    # a matrix without a grid ordering: the graph partitioner (PT-Scotch here; the device bundle's PETSc has none)
    test:
      suffix: fgdd_graph
      requires: graph_partitioner
      env: SCOTCH_PTHREAD_NUMBER=1
      args: -case fgdd -matrix perm7 -size 16
    # BiCGSTAB end to end: both solves converged (true residual at or below rtol), their iterations; the reference is
    # PETSc's host ILU(0) (cuSPARSE needs a device); one partition from run to run as fgdd's
    test:
      suffix: bcgs
      env: SCOTCH_PTHREAD_NUMBER=1
      args: -case bcgs -matrix bsr3 -size 10 -sreps 1
    test:
      suffix: spcg
      args: -case spcg -matrix axis7-z0.01 -size 6 -levels 2
    test:
      suffix: spcg_2d
      args: -case spcg -matrix aniso2d-b -size 6 -levels 1
    test:
      suffix: ats
      args: -case ats -matrix convdiff3d -size 6 -sweeps 3

TEST*/
