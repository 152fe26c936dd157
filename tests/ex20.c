static char help[] = "The kernel benchmark of make gpu-perf: PCSTRUCTILU's device sweeps and factorization against cuSPARSE ILU(0) (CSR, BSR), kernel times only.\n\
  -stencil <name>    : star7 star13 diamond13 diamond25 box27 (default star7)\n\
  -dof <1..8>        : unknowns per grid point (default 1)\n\
  -n <n[,ny,nz]>     : grid points per direction (default 8)\n\
  -backend <cuda|cudaemu> : cuda: a device, times of its kernels; cudaemu: the emulation, the logic at small sizes (default cudaemu)\n\
  -mapping <tiles|lines>  : the device mapping (-pc_structilu_cuda_mapping; default tiles)\n\
  -tile_points <k>   : points per tile (lines: lines per block; default 0, the kernels' choice)\n\
  -mma <bool>        : the tensor-core factorization for DoF >= 4 (default true, the PC's default)\n\
  -freps <k>, -sreps <k> : timed factorizations (default 2) and solves (default 5)\n\
  -csr <bool>, -bsr <bool> : cuSPARSE CSR, BSR (DoF > 1) on a CUDA device (default true)\n\
  -check             : compare with PETSc's ILU(0) on the host (small grids)\n\
  -columns <m>       : also a block of m right-hand sides (PCMatApply()'s device sweeps) against one solve, wall times\n\
  -json <file>       : append the case's results as one JSON line\n\
  -md_row            : print the case's row of the report's table (-md_header: its header)\n\
  -device_info       : print the device as one JSON line and exit\n\
Without -json and -md_row it prints what does not depend on the machine (plan, bytes, checks), for the tests.\n\n";

/*
  One case of make gpu-perf (bench/gpu/perf runs the plan, each case a process under its own timeout). The work is
  PetscGILUPerfRun() of the test library (src/test/perf.c): the matrix assembled in the stencil storage, StructILU's
  device API with CUDA events around its launches, cuSPARSE from CSR/BSR arrays built from the same storage. This
  program formats: a JSON line (every figure), a markdown row (the report's table: milliseconds are the smallest over
  the repetitions; GB/s = compulsory bytes / that time) or, for the tests, the machine-independent lines.
*/
#include <petscgilutest.h>

static const char *const Mappings[] = {"tiles", "lines", "Mapping", "", NULL};

/* GB/s of bytes in ms, "-" when not measured */
static PetscErrorCode Rate(char s[], size_t len, double bytes, double ms)
{
  PetscFunctionBeginUser;
  if (ms > 0) PetscCall(PetscSNPrintf(s, len, "%.0f", bytes / (ms * 1e-3) / 1e9));
  else PetscCall(PetscSNPrintf(s, len, "-"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintJSON(FILE *f, const PetscGILUPerfCase *c, const PetscGILUPerfResult *r, const char dev[], double peak, double copy)
{
  const char *cs[2] = {"csr", "bsr"};

  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "{\"stencil\": \"%s\", \"dof\": %" PetscInt_FMT ", \"n\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "], \"unknowns\": %.0f, ", c->stencil, c->dof, c->n[0], c->n[1], c->n[2], r->unknowns));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"mapping\": \"%s\", \"offsets\": %" PetscInt_FMT ", \"lower\": %" PetscInt_FMT ", \"w\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "], \"levels\": %" PetscInt_FMT ", \"blocks\": %" PetscInt_FMT ", \"stages\": %" PetscInt_FMT ", \"steps\": %" PetscInt_FMT ", ", Mappings[c->mapping], r->ns, r->nlower, r->w[0], r->w[1], r->w[2], r->nlevels, r->ntiles, r->nstage, r->steps));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"device\": {\"name\": \"%s\", \"peak_GBs\": %.1f, \"copy_GBs\": %.1f}, ", dev, peak, copy));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"structilu\": {\"bytes\": [%.0f, %.0f, %.0f], \"forward_ms\": [%.6g, %.6g], \"backward_ms\": [%.6g, %.6g], \"factor_ms\": [%.6g, %.6g], \"mma\": %s, \"zerorow\": %" PetscInt_FMT "}, ", r->bytes[0], r->bytes[1], r->bytes[2], r->ms[0][0], r->ms[0][1], r->ms[1][0], r->ms[1][1], r->ms[2][0], r->ms[2][1], r->usedmma ? "true" : "false", r->zerorow));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"model\": {\"gpu\": \"%s\", \"apply_us\": %.6g}, ", r->modelgpu, r->modelus));
  for (int k = 0; k < 2; k++) {
    const GILUCuSparseTimes *t   = k ? &r->bsr : &r->csr;
    const double            *b   = k ? r->bsrbytes : r->csbytes;
    const PetscBool          has = k ? r->hasbsr : r->hascsr;

    if (!has) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"%s\": null, ", cs[k]));
    else
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"%s\": {\"bytes\": [%.0f, %.0f, %.0f], \"analysis_ms\": %.6g, \"factor_ms\": [%.6g, %.6g], \"solve_analysis_ms\": %.6g, \"lower_ms\": [%.6g, %.6g], \"upper_ms\": [%.6g, %.6g]}, ", cs[k], b[0], b[1], b[2], t->analysis, t->factor[0], t->factor[1], t->solveanalysis, t->lower[0], t->lower[1], t->upper[0], t->upper[1]));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"diff\": {\"csr\": %.3g, \"bsr\": %.3g, \"reference\": %.3g}, \"host_s\": {\"assembly\": %.3f, \"plan\": %.3f, \"arrays\": %.3f, \"reference\": %.3f}, ", (double)r->diffcsr, (double)r->diffbsr, (double)r->diffref, r->hosts[0], r->hosts[1], r->hosts[2], r->hosts[3]));
  if (c->columns > 0)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"block\": {\"columns\": %" PetscInt_FMT ", \"group\": %" PetscInt_FMT ", \"wall_ms\": [%.6g, %.6g], \"solve_wall_ms\": [%.6g, %.6g], \"bitwise\": %s}}\n", c->columns, r->group, r->blockwall[0], r->blockwall[1], r->solvewall[0], r->solvewall[1], r->blockequal ? "true" : "false"));
  else PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"block\": null}\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintRow(const PetscGILUPerfCase *c, const PetscGILUPerfResult *r, double peak)
{
  const double sapply = r->ms[0][0] + r->ms[1][0], sbytes = r->bytes[0] + r->bytes[1];
  const double capply = r->hascsr ? r->csr.lower[0] + r->csr.upper[0] : 0, bapply = r->hasbsr ? r->bsr.lower[0] + r->bsr.upper[0] : 0;
  double       best = capply > 0 && (bapply <= 0 || capply < bapply) ? capply : bapply;
  const double diff = PetscMax(r->diffcsr, r->diffbsr);
  char         sr[32], cr[32], br[32], pk[32], sp[32], cms[64], bms[64], cf[32], bf[32], df[32], blk[64];

  PetscFunctionBeginUser;
  PetscCall(Rate(sr, sizeof(sr), sbytes, sapply));
  PetscCall(Rate(cr, sizeof(cr), r->csbytes[0] + r->csbytes[1], capply));
  PetscCall(Rate(br, sizeof(br), r->bsrbytes[0] + r->bsrbytes[1], bapply));
  if (peak > 0 && sapply > 0) PetscCall(PetscSNPrintf(pk, sizeof(pk), "%.0f%%", 100.0 * sbytes / (sapply * 1e-3) / 1e9 / peak));
  else PetscCall(PetscSNPrintf(pk, sizeof(pk), "-"));
  if (best > 0 && sapply > 0) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f", best / sapply));
  else PetscCall(PetscSNPrintf(sp, sizeof(sp), "-"));
  PetscCall(PetscSNPrintf(cms, sizeof(cms), r->hascsr ? "%.3f + %.3f" : "-", r->csr.lower[0], r->csr.upper[0]));
  PetscCall(PetscSNPrintf(bms, sizeof(bms), r->hasbsr ? "%.3f + %.3f" : "-", r->bsr.lower[0], r->bsr.upper[0]));
  PetscCall(PetscSNPrintf(cf, sizeof(cf), r->hascsr ? "%.3f" : "-", r->csr.factor[0]));
  PetscCall(PetscSNPrintf(bf, sizeof(bf), r->hasbsr ? "%.3f" : "-", r->bsr.factor[0]));
  PetscCall(PetscSNPrintf(df, sizeof(df), diff >= 0 ? "%.1e" : "-", diff));
  if (c->columns > 0 && r->solvewall[0] > 0) PetscCall(PetscSNPrintf(blk, sizeof(blk), "%.2f%s", r->blockwall[0] / (c->columns * r->solvewall[0]), r->blockequal ? "" : " NOT BITWISE"));
  else PetscCall(PetscSNPrintf(blk, sizeof(blk), "-"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s DoF %" PetscInt_FMT " %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " %s | %.3g | %" PetscInt_FMT " | %.3f + %.3f | %s | %s | %.0f | %.3f%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c->stencil, c->dof, c->n[0], c->n[1], c->n[2], Mappings[c->mapping], r->unknowns, r->nlevels, r->ms[0][0], r->ms[1][0], sr, pk, r->modelus, r->ms[2][0], r->usedmma ? " (mma)" : "", cms, cr, cf, bms, br, bf, sp, df, blk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscGILUPerfCase    c;
  PetscGILUPerfResult  r;
  PetscGILUBackendType backend = PETSCGILU_BACKEND_CUDAEMU, ran;
  PetscInt             nn = 3, mapping = 0;
  PetscBool            mdrow = PETSC_FALSE, mdheader = PETSC_FALSE, devinfo = PETSC_FALSE, flg;
  char                 json[PETSC_MAX_PATH_LEN] = "", dev[256];
  double               memGB, peak, copy;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGILUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCall(PetscStrncpy(c.stencil, "star7", sizeof(c.stencil)));
  c.n[0] = c.n[1] = c.n[2] = 8;
  c.dof                    = 1;
  c.mma                    = PETSC_TRUE;
  c.freps                  = 2;
  c.sreps                  = 5;
  c.csr = c.bsr = PETSC_TRUE;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "make gpu-perf's kernel benchmark", NULL);
  PetscCall(PetscOptionsString("-stencil", "star7 star13 diamond13 diamond25 box27", NULL, c.stencil, c.stencil, sizeof(c.stencil), NULL));
  PetscCall(PetscOptionsInt("-dof", "unknowns per grid point", NULL, c.dof, &c.dof, NULL));
  PetscCall(PetscOptionsIntArray("-n", "grid points per direction (one value: all three)", NULL, c.n, &nn, &flg));
  if (flg && nn == 1) c.n[1] = c.n[2] = c.n[0];
  PetscCheck(!flg || nn == 1 || nn == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-n takes one value or three, not %" PetscInt_FMT, nn);
  PetscCall(PetscOptionsEnum("-backend", "cuda (a device) or cudaemu (the emulation)", NULL, PetscGILUBackendTypes, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsEList("-mapping", "the device mapping", NULL, Mappings, 2, Mappings[0], &mapping, NULL));
  PetscCall(PetscOptionsInt("-tile_points", "points per tile (lines: lines per block); 0: default", NULL, c.tilepoints, &c.tilepoints, NULL));
  PetscCall(PetscOptionsBool("-mma", "tensor-core factorization for DoF >= 4", NULL, c.mma, &c.mma, NULL));
  PetscCall(PetscOptionsInt("-freps", "timed factorizations", NULL, c.freps, &c.freps, NULL));
  PetscCall(PetscOptionsInt("-sreps", "timed solves", NULL, c.sreps, &c.sreps, NULL));
  PetscCall(PetscOptionsBool("-csr", "cuSPARSE CSR", NULL, c.csr, &c.csr, NULL));
  PetscCall(PetscOptionsBool("-bsr", "cuSPARSE BSR", NULL, c.bsr, &c.bsr, NULL));
  PetscCall(PetscOptionsBool("-check", "compare with PETSc's ILU(0)", NULL, c.check, &c.check, NULL));
  PetscCall(PetscOptionsInt("-columns", "also a block of this many right-hand sides", NULL, c.columns, &c.columns, NULL));
  PetscCall(PetscOptionsString("-json", "append a JSON line", NULL, json, json, sizeof(json), NULL));
  PetscCall(PetscOptionsBool("-md_row", "print the report's table row", NULL, mdrow, &mdrow, NULL));
  PetscCall(PetscOptionsBool("-md_header", "print the report table's header and exit", NULL, mdheader, &mdheader, NULL));
  PetscCall(PetscOptionsBool("-device_info", "print the device and exit", NULL, devinfo, &devinfo, NULL));
  PetscOptionsEnd();
  c.mapping = mapping;
  if (mdheader) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "| case | unknowns | levels | StructILU fwd + bwd ms | GB/s | of peak | model us | factor ms | CSR L + U ms | GB/s | factor ms | BSR L + U ms | GB/s | factor ms | speedup | max diff | block/column |\n"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscGILUBackendResolve(PETSC_COMM_WORLD, backend, &ran));
  PetscCheck(ran == PETSCGILU_BACKEND_CUDA || ran == PETSCGILU_BACKEND_CUDAEMU, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on -backend cuda or cudaemu, not %s", PetscGILUBackendTypes[ran]);
  PetscCall(PetscGILUPerfDeviceInfo(ran, dev, sizeof(dev), &memGB, &peak, &copy));
  if (devinfo) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "{\"name\": \"%s\", \"memory_GB\": %.1f, \"peak_GBs\": %.1f, \"copy_GBs\": %.1f}\n", dev, memGB, peak, copy));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscGILUPerfRun(ran, &c, &r));
  if (json[0]) {
    FILE *f;

    PetscCall(PetscFOpen(PETSC_COMM_SELF, json, "a", &f));
    PetscCall(PrintJSON(f, &c, &r, dev, peak, copy));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  }
  if (mdrow) PetscCall(PrintRow(&c, &r, peak));
  if (!json[0] && !mdrow) { /* what does not depend on the machine */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s DoF %" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": %" PetscInt_FMT " offsets (%" PetscInt_FMT " lower), mapping %s: %" PetscInt_FMT " levels of w = (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "), %" PetscInt_FMT " %s, %" PetscInt_FMT " stage(s), %" PetscInt_FMT " dependent steps per sweep\n", c.stencil, c.dof, c.n[0], c.n[1], c.n[2], r.ns, r.nlower, Mappings[c.mapping], r.nlevels, r.w[0], r.w[1], r.w[2], r.ntiles, c.mapping ? "blocks of lines" : "tiles (work units of a persistent grid)", r.nstage, r.steps));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "compulsory bytes: forward sweep %.0f, backward sweep %.0f, factorization %.0f; timed %s\n", r.bytes[0], r.bytes[1], r.bytes[2], r.ms[0][0] >= 0 && r.ms[1][0] >= 0 && r.ms[2][0] >= 0 ? "all three kernels" : "NOT all kernels"));
    if (r.zerorow >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "zero pivot in row %" PetscInt_FMT "\n", r.zerorow));
    if (c.check) PetscCall(PetscPrintf(PETSC_COMM_SELF, "StructILU on %s vs PETSc's ILU(0): %s\n", PetscGILUBackendTypes[ran], r.diffref >= 0 && r.diffref < 1e-10 ? "agree (relative difference below 1e-10)" : "DIFFER"));
    if (c.columns > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "a block of %" PetscInt_FMT " right-hand sides in groups of %" PetscInt_FMT ": every column %s the single solve's\n", c.columns, r.group, r.blockequal ? "bitwise" : "NOT bitwise"));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: cudaemu

  testset:
    requires: cudaemu
    args: -backend cudaemu -check -tile_points 4
    test:
      suffix: star7
      args: -stencil star7 -dof 2 -n 6,5,4
    test:
      suffix: box27_mma
      args: -stencil box27 -dof 4 -n 4,4,3
    test:
      suffix: diamond25_lines
      args: -stencil diamond25 -dof 1 -n 6,5,5 -mapping lines
    test:
      suffix: star13_diamond13
      args: -stencil {{star13 diamond13}separate output} -dof 5 -n 5
    test:
      # a block of 6 right-hand sides (make gpu-perf times it against one solve): every column the single solve's
      suffix: block
      args: -stencil box27 -dof 3 -n 5,4,4 -columns 6 -mapping {{tiles lines}separate output}

TEST*/
