#!/usr/bin/python3
"""PCATSILU benchmark: the shape of the ATS-ILU paper's Tables 6.1/6.2 and setup times.

Standalone: builds nothing itself; needs `make all` and the test programs tests/ex9 and tutorials/ex3
(`make -f gmakefile.test $PWD/build/tests/tests/ex9 $PWD/build/tests/tutorials/ex3`, done here if missing).

1. GMRES iterations (rtol 1e-10, restart 500, at most 1500 iterations, Jacobi-scaled sweeps) after 1..5 update
   cycles for fill 1, 2, 3: ATS-ILUT "no extra", ATS-ILUT "one extra" (-pc_atsilu_sweeps_after 1) and ParILUT.
2. PCSetUp time (from the run's -log_view CSV) and iterations of PETSc ILU(0..2), hypre pilut and euclid, ATS-ILU(0), ParILU
   and ATS-ILUT, in the same run on the same matrices.

Problems: cd-central = tests/ex9 (7-point -laplace u + beta (u_x+u_y+u_z), central differences, beta 30),
cd-upwind = tutorials/ex3 (upwind convection-diffusion, eps 0.01). Writes build/bench/results/atsilu-<date>.json/.md/-iterations.png (--out STEM
to choose; --publish: also to bench/results/).
How long it takes: bench/README.md, Duration (bench/run.py records each suite's time in its report). OMP_NUM_THREADS=1 unless set.
"""
import datetime
import json
import os
import re
import subprocess
import sys

import machine  # bench/machine.py: the -log_view CSV
from report import default_stem, publish_stem  # bench/report.py: where results go

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EX9 = os.path.join(ROOT, "build", "tests", "tests", "ex9")
EX3 = os.path.join(ROOT, "build", "tests", "tutorials", "ex3")

QUICK = "--quick" in sys.argv
# --out STEM: writes STEM.json, STEM.md, STEM-iterations.png (default build/bench/results/atsilu-<date>[-quick])
OUT = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv[:-1] else None
PUBLISH = "--publish" in sys.argv
N_TABLE = 14 if QUICK else 20   # grid points per direction for the iteration tables
N_TIME = 20 if QUICK else 36    # for the setup times

PROBLEMS = {
    "cd-central": lambda n: [EX9, "-n", str(n), "-beta", "30"],
    "cd-upwind": lambda n: [EX3, "-da_grid_x", str(n), "-da_grid_y", str(n), "-da_grid_z", str(n), "-eps", "0.01"],
}
if QUICK:  # one problem: bench-quick (and its smoke test) checks that everything runs, in seconds
    PROBLEMS = {"cd-central": PROBLEMS["cd-central"]}
GMRES = ["-ksp_type", "gmres", "-ksp_gmres_restart", "500", "-ksp_rtol", "1e-10", "-ksp_max_it", "1500",
         "-ksp_converged_reason"]


def run(cmd, log=None):
    """iterations, PCSetUp time (None unless log = (folder, tag): then from the run's -log_view CSV there) and the output"""
    csv = None
    if log:
        csv, lv_opts = machine.log_view_csv(*log)
        cmd = cmd + lv_opts
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300).stdout
    its = re.findall(r"iterations (\d+)", out)
    setup = machine.read_log_view_csv(csv)[0].get("PCSetUp") if csv else None
    return (int(its[0]) if its else None), (setup["time"] if setup else None), out


def build():
    missing = [p for p in (EX9, EX3) if not os.path.exists(p)]
    if missing:
        subprocess.run(["make", "-s", "-f", os.path.join(ROOT, "gmakefile.test"), "PETSCGILU_DIR=" + ROOT] + missing,
                       cwd=ROOT, check=True)


def main():
    build()
    date = datetime.date.today().isoformat()
    stem = OUT or default_stem("atsilu-%s%s" % (date, "-quick" if QUICK else ""))
    methods = {
        "ATS-ILUT no extra": ["-pc_type", "atsilu", "-pc_atsilu_type", "ilut"],
        "ATS-ILUT one extra": ["-pc_type", "atsilu", "-pc_atsilu_type", "ilut", "-pc_atsilu_sweeps_after", "1"],
        "ParILUT": ["-pc_type", "atsilu", "-pc_atsilu_type", "ilut", "-pc_atsilu_algorithm", "parilu"],
    }
    tables = {}
    for prob, cmd in PROBLEMS.items():
        t = {}
        for meth, opts in methods.items():
            for fill in (1, 2, 3):
                row = []
                for sweeps in range(1, 6):
                    its, _, _ = run(cmd(N_TABLE) + GMRES + opts + ["-pc_atsilu_fill", str(fill), "-pc_atsilu_sweeps", str(sweeps)])
                    row.append(its)
                t["%s|%d" % (meth, fill)] = row
                print(prob, meth, "fill", fill, row, flush=True)
        ref, _, _ = run(cmd(N_TABLE) + GMRES + ["-pc_type", "ilu"])
        t["PETSc ILU(0)"] = ref
        tables[prob] = t

    setups = {
        "PETSc ILU(0)": ["-pc_type", "ilu"],
        "PETSc ILU(1)": ["-pc_type", "ilu", "-pc_factor_levels", "1"],
        "PETSc ILU(2)": ["-pc_type", "ilu", "-pc_factor_levels", "2"],
        "hypre pilut": ["-pc_type", "hypre", "-pc_hypre_type", "pilut"],
        "hypre euclid": ["-pc_type", "hypre", "-pc_hypre_type", "euclid"],
        "ATS-ILU(0), 5 sweeps": ["-pc_type", "atsilu", "-pc_atsilu_sweeps", "5"],
        "ParILU(0), 5 sweeps": ["-pc_type", "atsilu", "-pc_atsilu_algorithm", "parilu", "-pc_atsilu_sweeps", "5"],
        "ATS-ILU(1) symbolic, 5 sweeps": ["-pc_type", "atsilu", "-pc_atsilu_pattern", "symbolic", "-pc_atsilu_levels", "1", "-pc_atsilu_sweeps", "5"],
        "ATS-ILUT fill 2, 3 cycles": ["-pc_type", "atsilu", "-pc_atsilu_type", "ilut", "-pc_atsilu_fill", "2", "-pc_atsilu_sweeps", "3"],
        "ParILUT fill 2, 3 cycles": ["-pc_type", "atsilu", "-pc_atsilu_type", "ilut", "-pc_atsilu_algorithm", "parilu", "-pc_atsilu_fill", "2", "-pc_atsilu_sweeps", "3"],
    }
    times = {}
    for prob, cmd in PROBLEMS.items():
        times[prob] = {}
        for name, opts in setups.items():
            its, t, _ = run(cmd(N_TIME) + GMRES + opts, (machine.log_dir(stem), "%s-%s" % (prob, name)))
            times[prob][name] = {"iterations": its, "setup_s": t}
            print(prob, name, its, t, flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
    threads = os.environ.get("OMP_NUM_THREADS", "1")
    with open(stem + ".json", "w") as f:
        json.dump({"date": date, "grid_tables": N_TABLE, "grid_times": N_TIME, "omp_threads": threads,
                   "gmres": GMRES, "tables": tables, "setup": times}, f, indent=1)
    md = ["# PCATSILU benchmark %s" % date, "",
          "GMRES(500), rtol 1e-10, Jacobi-scaled sweeps, %s OpenMP thread(s). Grid %d^3 for the iteration tables, %d^3 for the setup times." % (threads, N_TABLE, N_TIME), ""]
    for prob, t in tables.items():
        md += ["## %s: GMRES iterations after 1..5 update cycles (PETSc ILU(0): %s)" % (prob, t["PETSc ILU(0)"]), "",
               "| Method | Fill | 1 | 2 | 3 | 4 | 5 |", "|---|---|---|---|---|---|---|"]
        for meth in methods:
            for fill in (1, 2, 3):
                md.append("| %s | %d | %s |" % (meth, fill, " | ".join(str(x) for x in t["%s|%d" % (meth, fill)])))
        md.append("")
    for prob, t in times.items():
        md += ["## %s: PCSetUp time and iterations (grid %d^3)" % (prob, N_TIME), "",
               "| Preconditioner | Iterations | PCSetUp [s] | vs PETSc ILU(0) |", "|---|---|---|---|"]
        base = t["PETSc ILU(0)"]["setup_s"]
        for name, v in t.items():
            ratio = "%.2f" % (v["setup_s"] / base) if v["setup_s"] and base else "-"
            md.append("| %s | %s | %s | %s |" % (name, v["iterations"], "%.4f" % v["setup_s"] if v["setup_s"] else "-", ratio))
        md.append("")
    with open(stem + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(tables), figsize=(6 * len(tables), 4.5), squeeze=False)
        styles = {"ATS-ILUT no extra": "-o", "ATS-ILUT one extra": "--s", "ParILUT": ":^"}
        colors = {1: "tab:blue", 2: "tab:orange", 3: "tab:green"}
        for ax, (prob, t) in zip(axes[0], tables.items()):
            for meth in methods:
                for fill in (1, 2, 3):
                    ys = [y if y is not None else float("nan") for y in t["%s|%d" % (meth, fill)]]
                    ax.plot(range(1, 6), ys, styles[meth], color=colors[fill], label="%s, fill %d" % (meth, fill))
            if t["PETSc ILU(0)"] is not None:
                ax.axhline(t["PETSc ILU(0)"], color="k", lw=0.8, label="PETSc ILU(0)")
            ax.set_title("%s (%d^3)" % (prob, N_TABLE))
            ax.set_xlabel("update cycles")
            ax.set_ylabel("GMRES iterations")
        axes[0][-1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(stem + "-iterations.png", dpi=110)
    except ImportError:
        print("matplotlib missing: no plot")
    print("wrote", stem + ".{json,md,-iterations.png}")
    if PUBLISH:
        publish_stem(stem, ["-iterations.png"])


if __name__ == "__main__":
    main()
