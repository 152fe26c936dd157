#!/usr/bin/env python3
"""Peak memory of each preconditioner on PETSc's ksp ex45 (3D Laplacian, star-7, CG).

    bench/memory.py [--quick] [--n N] [--lib PATH] [--out STEM]

Builds PETSc's ex45 with the PETSc makefile variables (as tests/petsc-examples/run does), then runs it with
-pc_type none and with each preconditioner (-dll_append lib/libpetscgilu.so, OMP_NUM_THREADS=1), reading the
maximum resident set size from /usr/bin/time -v (the process's peak: setup included). The increment of a
preconditioner is its peak minus that of -pc_type none; the figure of merit is the increment over PETSc's ILU(0)'s
(goal: <= 1.5, or the reason in the README). --lib measures another build of the library (a before/after pair).
Writes STEM.json and STEM.md (default build/bench/results/<date>-<host>-memory[-quick];
--publish also copies them to bench/results/, replacing the report there).
"""

import argparse
import datetime
import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)

CONFIGS = [
    dict(id='none', label='none (the baseline)', args=['-pc_type', 'none']),
    dict(id='ilu', label="PETSc's ILU(0)", args=['-pc_type', 'ilu']),
    dict(id='structilu', label='structilu', args=['-pc_type', 'structilu']),
    dict(id='atsilu', label='atsilu', args=['-pc_type', 'atsilu']),
    dict(id='sparsify', label='sparsify', args=['-pc_type', 'sparsify']),
    dict(id='gilu', label='ILU(0), MatSolverType gilu', args=['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu']),
    dict(id='fgdd', label='fgdd', args=['-pc_type', 'fgdd']),
    # gilu's whole-factor triangle solves (not the default on stencils: auto runs chunked), whose plans once kept a
    # level-ordered copy of the factor
    dict(id='gilu-levelset', label='gilu, -mat_gilu_trisolve levelset', args=['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu', '-mat_gilu_trisolve', 'levelset']),
    dict(id='gilu-syncfree', label='gilu, -mat_gilu_trisolve syncfree', args=['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu', '-mat_gilu_trisolve', 'syncfree']),
    dict(id='gilu-levelset-nocopy', label='gilu, -mat_gilu_trisolve levelset -mat_gilu_trisolve_copy 0',
         args=['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu', '-mat_gilu_trisolve', 'levelset', '-mat_gilu_trisolve_copy', '0']),
]


def run(exe, n, cfg, lib):
    env = dict(os.environ, OMP_NUM_THREADS='1')
    cmd = ['/usr/bin/time', '-v', exe, '-da_grid_x', str(n), '-da_grid_y', str(n), '-da_grid_z', str(n), '-ksp_type', 'cg',
           '-ksp_converged_reason', '-dll_append', lib] + cfg['args']
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    m = re.search(r'Maximum resident set size \(kbytes\): (\d+)', p.stderr)
    its = re.search(r'iterations (\d+)', p.stdout)
    if p.returncode or not m:
        return dict(rss_mib=None, its=None, error=(p.stdout + p.stderr)[-400:])
    return dict(rss_mib=int(m.group(1)) / 1024.0, its=int(its.group(1)) if its else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='50^3 instead of 100^3')
    ap.add_argument('--n', type=int, help='grid points per direction')
    ap.add_argument('--lib', default=os.path.join(ROOT, 'lib', 'libpetscgilu.so'))
    ap.add_argument('--only', help='comma-separated configuration ids (none and ilu are always run)')
    ap.add_argument('--out', help='output stem')
    report.add_publish_option(ap)
    a = ap.parse_args()
    exe = report.build_petsc_example('ksp/ksp/tutorials/ex45.c')
    n = a.n or (50 if a.quick else 100)
    date = datetime.datetime.utcnow()
    stem = a.out or report.default_stem('%s-%s-memory%s' % (date.strftime('%Y-%m-%d'), socket.gethostname(), '-quick' if a.quick else ''))
    cfgs = [c for c in CONFIGS if not a.only or c['id'] in ('none', 'ilu') or c['id'] in a.only.split(',')]
    res = dict(date=date.isoformat(timespec='seconds'), host=socket.gethostname(), n=n, lib=a.lib, runs={})
    for c in cfgs:
        res['runs'][c['id']] = run(exe, n, c, a.lib)
    base = res['runs']['none']['rss_mib']
    ilu = res['runs']['ilu']['rss_mib']
    lines = ['# Peak memory of the preconditioners', '',
             "%s, %s: PETSc's ksp ex45 %d^3 (%.1fM rows), CG, OMP_NUM_THREADS=1; maximum resident set size from /usr/bin/time -v; "
             "increment = peak - peak of -pc_type none; `python3 bench/memory.py --n %d`." % (res['date'], res['host'], n, n ** 3 / 1e6, n), '',
             '| preconditioner | iterations | peak (MiB) | increment (MiB) | increment / ILU(0)\'s |', '|---|---|---|---|---|']
    for c in cfgs:
        r = res['runs'][c['id']]
        if r['rss_mib'] is None:
            lines.append('| %s | failed | | | |' % c['label'])
            continue
        inc = r['rss_mib'] - base
        r['increment_mib'] = inc
        r['ratio_ilu'] = inc / (ilu - base) if c['id'] != 'none' and ilu and ilu > base else None
        lines.append('| %s | %s | %.0f | %s | %s |' % (c['label'], r['its'] if r['its'] is not None else '', r['rss_mib'],
                                                       '' if c['id'] == 'none' else '%+.0f' % inc,
                                                       '%.2f' % r['ratio_ilu'] if r['ratio_ilu'] is not None else ''))
    lines.append('')
    report.write(stem, res, lines, a.publish)


if __name__ == '__main__':
    main()
