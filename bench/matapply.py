#!/usr/bin/env python3
"""Blocks of right-hand sides: PCMatApply() (KSPMatSolve(), block Krylov methods) of each preconditioner against
PCApply() of each column in turn, and against PETSc's ILU(0) PCMatApply(), measured in the same run.

    bench/matapply.py [--quick] [--columns 16] [--reps 5] [--out STEM] [--publish]

Driver: tests/ex1 -time_matapply K (3D DMDA stencil matrix, nonsymmetric values; the PC of the options set up on it):
PCMatApply() on K random columns and PCApply() on each column, timed one after the other in alternating order,
best of --reps each. The configurations: PETSc's ILU(0) (-pc_type ilu: its MatMatSolve(), a column at a time);
MatSolverType gilu's ILU(0) (MatMatSolve(): up to 8 columns at once, each triangle's values read once per group);
PCATSILU (its gilu factor's MatMatSolve()); PCFGDD (a task per subdomain takes every column in turn); PCSTRUCTILU
(each tile of the sweeps on a group of columns in turn). Host threads 1 and 2 (OMP_NUM_THREADS and
each PC's threads option). Every column of a block is bitwise its PCApply() (tests/ex1 matapply_*), so only the
time differs.

Writes build/bench/results/<date>-<host>-matapply[-quick].json / .md (--publish: also to bench/results/).
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

import machine  # bench/machine.py: the machine facts and environment
from report import add_publish_option, suite_stem, write

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
EX1 = os.path.join(ROOT, 'build', 'tests', 'tests', 'ex1')

# (id, options, threads option or None: PETSc's ILU is sequential)
CONFIGS = [
    ('petsc-ilu', ['-pc_type', 'ilu'], None),
    ('gilu', ['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu'], '-mat_gilu_trisolve_threads'),
    ('atsilu', ['-pc_type', 'atsilu'], '-pc_atsilu_threads'),
    ('fgdd', ['-pc_type', 'fgdd'], '-pc_fgdd_threads'),
    ('structilu', ['-pc_type', 'structilu'], '-pc_structilu_threads'),
]


def run(problem, config, threads, columns, reps):
    name, opts, topt = config
    n = str(problem['n'])
    args = [EX1, '-stencil', problem['stencil'], '-dof', str(problem['dof']), '-da_grid_x', n, '-da_grid_y', n, '-da_grid_z', n] + \
        opts + ([topt, str(threads)] if topt else []) + ['-time_matapply', str(columns), '-time_reps', str(reps)]
    p = subprocess.run(args, env=machine.base_env(threads), capture_output=True, text=True, timeout=600)
    lines = [l for l in p.stdout.splitlines() if l.startswith('{')]
    if p.returncode or not lines:
        return {'config': name, 'threads': threads, 'error': (p.stdout + p.stderr)[-1000:], 'cmd': ' '.join(args)}
    r = json.loads(lines[-1])
    r.update(config=name, threads=threads, cmd=' '.join(args[1:]))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='small grids (a smoke test: claims nothing)')
    ap.add_argument('--columns', type=int, default=16)
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--out', help='output stem')
    add_publish_option(ap)
    a = ap.parse_args()
    if not os.access(EX1, os.X_OK):
        sys.exit("%s is missing: run make check s='tests-ex1_matapply_gilu' first" % EX1)
    problems = [dict(stencil='star7', dof=1, n=100), dict(stencil='box27', dof=3, n=40)] if not a.quick else \
        [dict(stencil='star7', dof=1, n=12), dict(stencil='box27', dof=3, n=6)]
    threads = [int(t) for t in a.threads.split(',')]
    date = datetime.datetime.now()
    rows = []
    for pr in problems:
        for t in threads:
            for c in CONFIGS:
                if c[2] is None and t != threads[0]:
                    continue
                r = run(pr, c, t, a.columns, a.reps)
                r['problem'] = '%s-dof%d-%d^3' % (pr['stencil'], pr['dof'], pr['n'])
                rows.append(r)
                print(json.dumps(r), flush=True)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = -1
    meta = dict(host=platform.node(), cpu=machine.cpu_model(), cpus=os.cpu_count(), l3_bytes=machine.cache_bytes(3), loadavg_1min_at_end=load,
                columns=a.columns, reps=a.reps, date=date.isoformat(timespec='seconds'), quick=a.quick)
    md = ['# Blocks of right-hand sides: PCMatApply() against PCApply() of each column', '',
          'Host %s (%s, %d CPUs, L3 %.0f MiB), 1-min load average %.1f at the end%s. %d columns; times per column, best of %d, '
          'PCMatApply() and the column loop timed in alternating order in one process (`tests/ex1 -time_matapply`). '
          'Every column of a block is bitwise its PCApply() (`tests/ex1 matapply_*`): only the time differs. '
          '"loop / block": the column loop\'s time over PCMatApply()\'s; "PETSc ILU / block": PETSc\'s ILU(0) PCMatApply() '
          'over this one.' % (meta['host'], meta['cpu'], meta['cpus'], meta['l3_bytes'] / 2 ** 20, load,
                              ' (quick sizes: a smoke test, they claim nothing)' if a.quick else '', a.columns, a.reps), '']
    for prob in dict.fromkeys(r['problem'] for r in rows):
        rs = [r for r in rows if r['problem'] == prob]
        ref = [r for r in rs if r['config'] == 'petsc-ilu' and 'error' not in r]
        k = a.columns
        md += ['## %s (%s rows)' % (prob, rs[0].get('rows', '?')), '',
               '| preconditioner | threads | PCMatApply [ms/col] | column loop [ms/col] | loop / block | PETSc ILU / block |',
               '|---|---|---|---|---|---|']
        for r in rs:
            if 'error' in r:
                md.append('| %s | %d | error: %s | | | |' % (r['config'], r['threads'], r['error'].splitlines()[-1][:80] if r['error'] else ''))
                continue
            md.append('| %s | %s | %.3f | %.3f | %.2f | %s |' % (r['config'], r['threads'] if r['config'] != 'petsc-ilu' else '1', 1e3 * r['t_matapply'] / k, 1e3 * r['t_loop'] / k,
                                                                r['t_loop'] / r['t_matapply'], '%.2f' % (ref[0]['t_matapply'] / r['t_matapply']) if ref else '-'))
        md.append('')
    write(a.out or suite_stem(a, 'matapply', date), dict(meta=meta, results=rows), md, a.publish)


if __name__ == '__main__':
    main()
