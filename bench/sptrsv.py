#!/usr/bin/python3
"""Benchmark of the triangular-solve engine (src/mat/sptrsv) behind MatSolverType gilu.

For ILU(0) factors (3D 7-point and 27-point stencils, a 7-point one under a random symmetric
permutation, and the test-matrix suite of src/test/testmat.c: --matrices) it runs tests/ex16 -test bench, which times in one process PETSc's
MatSolve and gilu's MatSolve (L and U solves) for every algorithm (auto, levelset, syncfree, colblock,
rowblock, recblock, sequential, chunked: tests/ex16.c loops over GILUTriSolveTypes) on 1 and 2 threads (best of
-reps), and reports the level count and parallelism (rows/levels) of the factors, as the Block SpTRSV
paper's Table 4. Writes build/bench/results/sptrsv-<stamp>.json, .md and -speedup.png (--out STEM to choose;
--publish: also to bench/results/).

  /usr/bin/python3 bench/sptrsv.py [--quick] [--threads 1,2] [--reps 10]

Needs build/tests/tests/ex16 (make check s='tests-ex16_factor' builds it). The last table checks
auto against the best single algorithm (the 10% target).
Blocks of right-hand sides (--columns K, default 16; 0: none): for each matrix, algorithm auto, PETSc's MatMatSolve,
gilu's MatMatSolve (up to 8 columns solved at once: each triangle's values read once per group) and gilu's
MatSolve of each column in turn, per column, best of --reps over 3 rounds (ex16 -bench_columns).
The timings are honest wall-clock times of this machine: on a shared, loaded machine the
two-thread numbers are noisy (a descheduled thread stalls every barrier and flag).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

from report import add_publish_option, default_stem, publish_stem  # bench/report.py: where results go

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EX16 = os.path.join(ROOT, "build", "tests", "tests", "ex16")
PLUGIN = os.path.join(ROOT, "lib", "libpetscgilu.so")


def run_case(grid, points, permute, threads, reps, matrix=None, columns=0):
    args = [EX16, "-test", "bench", "-grid", str(grid), "-points", str(points), "-reps", str(reps),
            "-bench_threads", threads]
    if columns:
        args += ["-bench_columns", str(columns), "-bench_types", "auto"]
    if permute:
        args.append("-permute")
    if matrix:
        args += ["-matrix", matrix]
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(max(int(t) for t in threads.split(",")))
    env.setdefault("OMP_WAIT_POLICY", "active")
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=170)
    if out.returncode:
        sys.exit("ex16 failed:\n" + out.stdout + out.stderr)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small matrices (a smoke test)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--columns", type=int, default=16, help="right-hand sides of the block comparison (MatMatSolve); 0: none")
    ap.add_argument("--matrices", default="all", help="test-suite matrices besides the stencils: all, or a comma list ('' for none)")
    ap.add_argument("--out", default=None, help="output stem: writes STEM.json, STEM.md, STEM-speedup.png (default build/bench/results/sptrsv-<stamp>)")
    add_publish_option(ap)
    a = ap.parse_args()
    if not os.access(EX16, os.X_OK):
        sys.exit("%s is missing: run make check s='tests-ex16_factor' first" % EX16)
    cases = [(60, 7, False), (36, 27, False), (40, 7, True)] if not a.quick else [(16, 7, False), (10, 27, False), (12, 7, True)]
    # the test-matrix suite (src/test/testmat.c, the Block SpTRSV paper's classes): name -> size (full run; --quick: 12, bs 3: 8)
    suite = {"convdiff3d": 60, "aniso3d": 60, "jump3d": 60, "fem_q1": 60, "fem_q2": 60, "elasticity3d": 36, "circuit": 60,
             "perm27": 36, "bsr3": 40} if a.matrices == "all" else {m: 60 for m in a.matrices.split(",") if m}
    if a.quick:
        suite = {m: (8 if m in ("elasticity3d", "bsr3") else 12) for m in suite}
    rows = []
    for grid, points, permute in cases:
        rows += run_case(grid, points, permute, a.threads, a.reps)
    for m, size in suite.items():
        rows += run_case(size, 7, False, a.threads, a.reps, matrix=m)
    blocks = []  # MatMatSolve of --columns right-hand sides, algorithm auto
    if a.columns > 0:
        for grid, points, permute in cases:
            blocks += run_case(grid, points, permute, a.threads, max(1, a.reps // 3), columns=a.columns)
        for m, size in suite.items():
            blocks += run_case(size, 7, False, a.threads, max(1, a.reps // 3), matrix=m, columns=a.columns)
    stamp = datetime.datetime.utcnow().strftime("%Y%m%d-%H%M%S")
    base = a.out or default_stem("sptrsv-" + stamp)
    os.makedirs(os.path.dirname(os.path.abspath(base)), exist_ok=True)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = -1
    meta = {"host": platform.node(), "cpus": os.cpu_count(), "loadavg_1min_at_end": load, "reps": a.reps, "stamp": stamp,
            "note": "per-solve time = one MatSolve (L and U), best of reps; t_petsc is PETSc's MatSolve of the same ILU(0) factor in the same process"}
    with open(base + ".json", "w") as f:
        json.dump({"meta": meta, "results": rows, "blocks": blocks}, f, indent=1)

    # Markdown: one table per matrix
    md = ["# Triangular solves of ILU(0) factors: petscgilu engine vs PETSc MatSolve", "",
          "Host %s, %d CPUs, 1-min load average %.1f at the end (the machine is shared: two-thread times are noisy). "
          "Times are per MatSolve (L and U solves), best of %d. Speedup = PETSc / gilu." % (meta["host"], meta["cpus"], load, a.reps), ""]
    mats = []
    for r in rows:
        if r["matrix"] not in mats:
            mats.append(r["matrix"])
    for m in mats:
        rs = [r for r in rows if r["matrix"] == m]
        r0 = rs[0]
        md += ["## %s: n = %d, levels L/U = %d/%d, parallelism (rows/levels) %.0f, largest level %d rows" % (m, r0["n"], r0["levels_L"], r0["levels_U"], r0["n"] / max(1, r0["levels_L"]), r0["maxlevel_L"]), "",
               "| threads | algorithm | ran (L/U) | gilu [ms] | PETSc [ms] | speedup | factor setup [s] |", "|---|---|---|---|---|---|---|"]
        for r in rs:
            md.append("| %d | %s | %s | %.3f | %.3f | %.2f | %.3f |" % (r["threads"], r["algorithm"], r["ran"], 1e3 * r["t_gilu"], 1e3 * r["t_petsc"], r["t_petsc"] / r["t_gilu"], r["t_setup"]))
        best = min(rs, key=lambda r: r["t_gilu"])
        for t in sorted(set(r["threads"] for r in rs)):
            auto = [r for r in rs if r["threads"] == t and r["algorithm"] == "auto"]
            bt = min((r for r in rs if r["threads"] == t), key=lambda r: r["t_gilu"])
            if auto:
                md.append("")
                md.append("%d thread(s): auto %.3f ms (%s), best %s %.3f ms: auto is %.0f%% slower than the best" % (t, 1e3 * auto[0]["t_gilu"], auto[0]["ran"], bt["algorithm"], 1e3 * bt["t_gilu"], 100 * (auto[0]["t_gilu"] / bt["t_gilu"] - 1)))
        md += ["", "Fastest overall: %s on %d thread(s), %.2fx PETSc." % (best["algorithm"], best["threads"], best["t_petsc"] / best["t_gilu"]), ""]
    # the target: auto within 10% of the best single algorithm on every matrix
    md += ["## auto against the best algorithm", "", "| matrix | threads | auto ran | auto [ms] | best | best [ms] | auto slower by | within 10% |", "|---|---|---|---|---|---|---|---|"]
    nmiss = 0
    for m in mats:
        for t in sorted(set(r["threads"] for r in rows if r["matrix"] == m)):
            rs = [r for r in rows if r["matrix"] == m and r["threads"] == t]
            auto = [r for r in rs if r["algorithm"] == "auto"]
            if not auto:
                continue
            bt = min(rs, key=lambda r: r["t_gilu"])
            slow = auto[0]["t_gilu"] / bt["t_gilu"] - 1
            nmiss += slow > 0.10
            md.append("| %s | %d | %s | %.3f | %s | %.3f | %.0f%% | %s |" % (m, t, auto[0]["ran"], 1e3 * auto[0]["t_gilu"], bt["algorithm"], 1e3 * bt["t_gilu"], 100 * slow, "yes" if slow <= 0.10 else "**no**"))
    md += ["", "auto more than 10%% slower than the best on %d of the matrix/thread cases above." % nmiss, ""]
    if blocks:
        k = blocks[0]["columns"]
        md += ["## Blocks of %d right-hand sides (MatMatSolve: PCMatApply, KSPMatSolve)" % k, "",
               "Per column, best of %d over 3 rounds, algorithm auto. gilu's MatMatSolve solves up to 8 columns at once "
               "(GILUTriSolveMultiple: each triangle's values read once per group, every column bitwise its MatSolve); "
               "the loop is gilu's MatSolve on each column in turn (what MatMatSolve did before); PETSc's MatMatSolve "
               "solves its columns one after the other." % max(1, a.reps // 3), "",
               "| matrix | threads | gilu MatMatSolve [ms/col] | gilu loop [ms/col] | PETSc MatMatSolve [ms/col] | loop / block | PETSc / gilu block |",
               "|---|---|---|---|---|---|---|"]
        for r in blocks:
            md.append("| %s | %d | %.3f | %.3f | %.3f | %.2f | %.2f |" % (r["matrix"], r["threads"], 1e3 * r["t_gilu_mat"] / k, 1e3 * r["t_gilu_loop"] / k,
                                                                    1e3 * r["t_petsc_mat"] / k, r["t_gilu_loop"] / r["t_gilu_mat"], r["t_petsc_mat"] / r["t_gilu_mat"]))
        md.append("")
    with open(base + ".md", "w") as f:
        f.write("\n".join(md) + "\n")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        algs = []
        for r in rows:
            if r["algorithm"] not in algs:
                algs.append(r["algorithm"])
        ths = sorted(set(r["threads"] for r in rows))
        ncol = min(4, len(mats))
        nrow = (len(mats) + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(5 * ncol, 4 * nrow), squeeze=False)
        for ax in axes.flat[len(mats):]:
            ax.axis("off")
        for ax, m in zip(axes.flat, mats):
            w = 0.8 / len(ths)
            for k, t in enumerate(ths):
                ys = []
                for al in algs:
                    r = [r for r in rows if r["matrix"] == m and r["threads"] == t and r["algorithm"] == al]
                    ys.append(r[0]["t_petsc"] / r[0]["t_gilu"] if r else 0)
                ax.bar([i + k * w for i in range(len(algs))], ys, w, label="%d thread(s)" % t)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.axhline(1.5, color="r", lw=0.8, ls="--")
            ax.set_xticks([i + 0.4 - w / 2 for i in range(len(algs))])
            ax.set_xticklabels(algs, rotation=45, ha="right")
            ax.set_title(m)
            ax.set_ylabel("speedup over PETSc MatSolve")
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(base + "-speedup.png", dpi=100)
    except ImportError:
        print("matplotlib is missing: no plot")
    print("wrote %s.json, .md, .png" % base)
    print("\n".join(md))
    if a.publish:
        publish_stem(base, ["-speedup.png"])


if __name__ == "__main__":
    main()
