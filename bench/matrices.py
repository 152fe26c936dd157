#!/usr/bin/env python3
"""Every petscgilu preconditioner for general sparse matrices against PETSc's and hypre's, on the generated
test-matrix suite (PetscGILUTestMatrixCreate, tests/ex8), in the same run.

    bench/matrices.py [--quick] [--out STEM] [--only REGEX]

For each matrix of the suite (convdiff3d, aniso3d, jump3d, fem_q1, fem_q2, elasticity3d, circuit, perm7, perm27,
bsr3) and each configuration below, runs tests/ex8 with CG (SPD matrices) or GMRES(30) (the others), rtol 1e-8,
at most 2000 iterations, -log_view (CSV), and records iterations, PCSetUp, PCApply and KSPSolve times. Writes STEM.json,
STEM.md and STEM-solve.png, STEM-iterations.png (default stem build/bench/results/matrices-<date>-<host>[-quick];
--publish: also to bench/results/).
Sizes: --quick s = 12 (8 for 3x3 blocks: about 2e3 rows) on five of the matrices, else s = 36 (24: about 5e4 rows); a run is stopped after 60 s (recorded as a timeout).
"""
import argparse
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import time

import machine  # bench/machine.py: the -log_view CSV
from report import add_publish_option, default_stem, publish_stem  # bench/report.py: where results go

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EX8 = os.path.join(ROOT, 'build', 'tests', 'tests', 'ex8')

MATRICES = ['convdiff3d', 'aniso3d', 'jump3d', 'fem_q1', 'fem_q2', 'elasticity3d', 'circuit', 'perm7', 'perm27', 'bsr3']
NONSYMMETRIC = {'convdiff3d'}
BLOCK3 = {'elasticity3d', 'bsr3'}

# id, label, options, threads, processes, only for SPD
CONFIGS = [
    ('ilu', 'PETSc ILU(0)', '-pc_type ilu', 1, 1, False),
    ('icc', 'PETSc ICC(0)', '-pc_type icc', 1, 1, True),
    ('bjacobi-np2', 'PETSc bjacobi+ILU(0), 2 ranks', '-pc_type bjacobi -sub_pc_type ilu', 1, 2, False),
    ('gilu-t1', 'ILU(0), MatSolverType gilu, 1 thread', '-pc_type ilu -pc_factor_mat_solver_type gilu', 1, 1, False),
    ('gilu-t2', 'ILU(0), MatSolverType gilu, 2 threads', '-pc_type ilu -pc_factor_mat_solver_type gilu -mat_gilu_trisolve_threads 2', 2, 1, False),
    ('atsilu', 'ATS-ILU(0), 5 sweeps', '-pc_type atsilu -pc_atsilu_sweeps 5', 1, 1, False),
    ('atsilut', 'ATS-ILUT, fill 2', '-pc_type atsilu -pc_atsilu_type ilut -pc_atsilu_fill 2', 1, 1, False),
    ('parilu', 'ParILU(0), 5 sweeps', '-pc_type atsilu -pc_atsilu_algorithm parilu -pc_atsilu_sweeps 5', 1, 1, False),
    ('sparsify', 'SPARSIFY + ILU(0) (SPCG)', '-pc_type sparsify', 1, 1, False),
    ('fgdd', 'FGDD (graph partitioner)', '-pc_type fgdd', 1, 1, False),
    ('euclid', 'hypre euclid', '-pc_type hypre -pc_hypre_type euclid', 1, 1, False),
    ('pilut', 'hypre pilut', '-pc_type hypre -pc_hypre_type pilut', 1, 1, False),
    ('boomeramg', 'hypre boomeramg', '-pc_type hypre -pc_hypre_type boomeramg', 1, 1, False),
]
EVENTS = ['PCSetUp', 'PCApply', 'KSPSolve', 'MatSolve', 'MatMult']


def parse(text, csv):
    """the iterations and reason ex8 prints, the EVENTS of the run's -log_view CSV (count, time)"""
    rec = {}
    m = re.search(r'^iterations (\d+) (\S+)', text, re.M)
    if m:
        rec['iterations'], rec['reason'] = int(m.group(1)), m.group(2)
    events = machine.read_log_view_csv(csv)[0]
    for e in EVENTS:
        if e in events:
            rec[e] = dict(count=events[e]['count'], time=events[e]['time'])
    return rec


def run(matrix, size, cfg, timeout, logdir):
    cid, label, opts, threads, np_, _ = cfg
    ksp = '-ksp_type gmres -ksp_gmres_restart 30' if matrix in NONSYMMETRIC else '-ksp_type cg'
    csv, lv_opts = machine.log_view_csv(logdir, '%s-%s' % (matrix, cid))
    cmd = ([] if np_ == 1 else ['mpiexec', '-n', str(np_)]) + [EX8, '-matrix', matrix, '-size', str(size)] + \
        (ksp + ' -ksp_rtol 1e-8 -ksp_max_it 2000 ').split() + lv_opts + opts.split()
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), SCOTCH_PTHREAD_NUMBER='1', OMPI_ALLOW_RUN_AS_ROOT='1',
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_rmaps_base_oversubscribe='1')
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        text = p.stdout + p.stderr
        rec = parse(text, csv)
        rec['status'] = 'ok' if p.returncode == 0 and rec.get('reason', '').startswith('CONVERGED') else 'failed'
        if rec['status'] != 'ok':
            err = [l for l in text.splitlines() if 'ERROR' in l or 'DIVERGED' in l]
            rec['error'] = (err[1] if len(err) > 1 else (err[0] if err else text[-300:])).strip()[:200]
    except subprocess.TimeoutExpired:
        rec = dict(status='timeout')
    rec['wall_s'] = round(time.time() - t0, 2)
    return rec


def t(rec, e):
    return rec.get(e, {}).get('time') if rec.get('status') == 'ok' else None


def report(res):
    L = ['# All preconditioners on the generated test-matrix suite', '',
         'tests/ex8 on %s (%d CPUs), %s; suite size %s; CG for SPD matrices, GMRES(30) for convdiff3d; rtol 1e-8. '
         'Each cell: iterations / KSPSolve seconds (setup excluded) / PCSetUp seconds. "x" marks a run that did not converge '
         '(or failed: see the .json). Ratios in the plots are against PETSc ILU(0) on the same matrix in the same run.'
         % (res['host'], res['cpus'], res['date'], res['size']), '']
    cfgs = [c for c in CONFIGS if any(c[0] in m['runs'] for m in res['matrices'])]
    L.append('| matrix | n | nnz | ' + ' | '.join(c[1] for c in cfgs) + ' |')
    L.append('|---|---:|---:|' + '---:|' * len(cfgs))
    for m in res['matrices']:
        cells = []
        for c in cfgs:
            r = m['runs'].get(c[0])
            if not r:
                cells.append('')
            elif r['status'] != 'ok':
                cells.append('x')
            else:
                cells.append('%d / %.3g / %.3g' % (r['iterations'], t(r, 'KSPSolve') or 0, t(r, 'PCSetUp') or 0))
        L.append('| %s | %s | %s | %s |' % (m['name'], m.get('n', '?'), m.get('nnz', '?'), ' | '.join(cells)))
    L.append('')
    # geometric means against ILU(0)
    L.append('Geometric mean over the matrices where both converged, PETSc ILU(0) = 1 (setup + solve time; iterations):')
    L.append('')
    L.append('| configuration | matrices | time ratio (lower is faster) | iteration ratio |')
    L.append('|---|---:|---:|---:|')
    for c in cfgs:
        if c[0] == 'ilu':
            continue
        tr, ir = [], []
        for m in res['matrices']:
            r, b = m['runs'].get(c[0]), m['runs'].get('ilu')
            if r and b and r['status'] == 'ok' and b['status'] == 'ok':
                tr.append(((t(r, 'KSPSolve') or 0) + (t(r, 'PCSetUp') or 0)) / max(1e-9, (t(b, 'KSPSolve') or 0) + (t(b, 'PCSetUp') or 0)))
                ir.append(max(1, r['iterations']) / max(1, b['iterations']))
        if tr:
            g = lambda v: pow(2.718281828459045, sum(__import__('math').log(x) for x in v) / len(v))
            L.append('| %s | %d | %.2f | %.2f |' % (c[1], len(tr), g(tr), g(ir)))
    L.append('')
    return '\n'.join(L) + '\n'


def plot(res, stem):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('no matplotlib: no plots')
        return
    cfgs = [c for c in CONFIGS if c[0] != 'ilu' and any(c[0] in m['runs'] for m in res['matrices'])]
    names = [m['name'] for m in res['matrices']]
    for what, fname, ylabel in (('time', '-solve.png', 'setup + solve time / PETSc ILU(0)  (lower is better)'),
                                ('its', '-iterations.png', 'iterations / PETSc ILU(0)')):
        fig, ax = plt.subplots(figsize=(max(10, 1.2 * len(names)), 5))
        w = 0.85 / len(cfgs)
        for k, c in enumerate(cfgs):
            xs, ys = [], []
            for i, m in enumerate(res['matrices']):
                r, b = m['runs'].get(c[0]), m['runs'].get('ilu')
                if r and b and r['status'] == 'ok' and b['status'] == 'ok':
                    if what == 'time':
                        y = ((t(r, 'KSPSolve') or 0) + (t(r, 'PCSetUp') or 0)) / max(1e-9, (t(b, 'KSPSolve') or 0) + (t(b, 'PCSetUp') or 0))
                    else:
                        y = max(1, r['iterations']) / max(1, b['iterations'])
                    xs.append(i + (k - len(cfgs) / 2) * w)
                    ys.append(y)
            ax.bar(xs, ys, w, label=c[1], color=plt.cm.tab20(k % 20))
        ax.axhline(1.0, color='k', lw=0.8)
        ax.set_yscale('log')
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20)
        ax.set_ylabel(ylabel)
        ax.set_title('Generated matrix suite (size %s), %s: every preconditioner against PETSc ILU(0)' % (res['size'], res['host']))
        ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        fig.savefig(stem + fname, dpi=100)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--out', default=None)
    ap.add_argument('--only', default='', help='regular expression on "matrix/config"')
    add_publish_option(ap)
    a = ap.parse_args()
    if not os.access(EX8, os.X_OK):
        subprocess.run(['make', '-s', '-C', ROOT, '-f', 'gmakefile.test', 'PETSCGILU_DIR=' + ROOT, 'TESTDIR=' + os.path.join(ROOT, 'build', 'tests'), EX8])
    size = 12 if a.quick else 36
    only = re.compile(a.only) if a.only else None
    res = dict(host=socket.gethostname(), cpus=os.cpu_count(), date=datetime.date.today().isoformat(), size=size, matrices=[])
    timeout = 60
    mats = ['convdiff3d', 'jump3d', 'fem_q1', 'elasticity3d', 'circuit'] if a.quick else MATRICES
    # pilut's factors are not symmetric: CG with them does not converge, so it runs on the nonsymmetric matrices only
    todo = [(m, c) for m in mats for c in CONFIGS if not (c[5] and m in NONSYMMETRIC) and not (c[0] == 'pilut' and m not in NONSYMMETRIC)
            and not (only and not only.search('%s/%s' % (m, c[0])))]
    stem = a.out or default_stem('matrices-%s-%s%s' % (res['date'], res['host'], '-quick' if a.quick else ''))
    t0 = time.time()
    for i, (m, c) in enumerate(todo):
        s = size * 2 // 3 if m in BLOCK3 else size
        ent = next((x for x in res['matrices'] if x['name'] == m), None)
        if not ent:
            ent = dict(name=m, size=s, runs={})
            info = subprocess.run([EX8, '-matrix', m, '-size', str(s), '-no_solve'], capture_output=True, text=True).stdout
            mm = re.search(r'n (\d+) nnz (\d+)', info)
            if mm:
                ent['n'], ent['nnz'] = int(mm.group(1)), int(mm.group(2))
            res['matrices'].append(ent)
        rec = run(m, s, c, timeout, machine.log_dir(stem))
        ent['runs'][c[0]] = rec
        print('[%d/%d] %s size %d %s: %s, its %s, setup %s s, solve %s s' % (i + 1, len(todo), m, s, c[1], rec['status'], rec.get('iterations'),
                                                                          t(rec, 'PCSetUp'), t(rec, 'KSPSolve')), flush=True)
    res['elapsed_s'] = round(time.time() - t0, 1)
    os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
    with open(stem + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    with open(stem + '.md', 'w') as f:
        f.write(report(res))
    plot(res, stem)
    if a.publish:
        publish_stem(stem, ['-solve.png', '-iterations.png'])
    print('wrote %s.{json,md} and plots in %.0f s' % (stem, res['elapsed_s']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
