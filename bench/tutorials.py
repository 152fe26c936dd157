#!/usr/bin/env python3
"""The host-speed targets on PETSc's own tutorials, built unchanged: ksp ex45 (3D Poisson, star-7, CG) and snes ex19
(driven cavity, 4 DoF, star-5, Newton-GMRES), each configuration against PETSc's ILU in the same run.

    bench/tutorials.py [--quick] [--repeat R] [--out STEM] [--only REGEX]

Each configuration runs R times (rounds alternate the configurations, so drifting load hits them all alike) with
-log_view (CSV, one file per run in build/bench/logs/<name of STEM>/); each measure is reported from its best round (the least disturbed on a shared machine). Per configuration: iterations,
PCSetUp (all Newton steps for ex19), KSPSolve, setup + solve, time per preconditioner application (PCApply / its
count), the bytes one application must move (model below) and the fraction of the STREAM triad of as many threads
it reached, and the time KSPSolve spends outside the preconditioner (PETSc's MatMult and vector operations): the
ceiling of any preconditioner's whole-solve ratio. The targets (at 100^3 and 200^2, 300^2; --quick runs small grids and checks nothing):
  ex45: setup + solve >= 3x PETSc ILU(0) (1 process) and >= 2.5x block Jacobi + ILU(0) on 2 processes, the same
        iterations; apply >= 75% of its bandwidth bound; setup >= 3x PETSc's ILU setup
  ex19: apply >= 1.5x PETSc's BAIJ ILU(0) with its iterations; setup >= 3x
Bytes per application: stencil storage reads (ns + 1) dof^2 doubles per point (the factor blocks of every offset
and the inverted diagonal), AIJ/BAIJ add their column indices and row pointers; every apply reads b, writes and
reads the intermediate, writes x (3 vector streams). DILU (-pc_structilu_diagonal_storage) reads the
matrix's ns - 1 offsets and D^{-1} in both sweeps (one stream more); with the Eisenstat trick the
"apply" is the operator Ahat x (two sweeps, no product with A: (ns + 2) dof^2 doubles and 6 vectors per point).
Writes STEM.json and STEM.md (default build/bench/results/<date>-<host>-tutorials[-quick];
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
import machine as bench  # noqa: E402  (the -log_view CSV and STREAM)

ROOT = bench.ROOT
LIB = os.path.join(ROOT, 'lib', 'libpetscgilu.so')

# id, tutorial, processes, threads per process, options, bandwidth model (storage of the factors)
CONFIGS = [
    ('ilu', 'ex45', 1, 1, ['-pc_type', 'ilu'], 'aij'),
    ('bjacobi-np2', 'ex45', 2, 1, ['-pc_type', 'bjacobi', '-sub_pc_type', 'ilu'], 'aij'),
    ('structilu-t1', 'ex45', 1, 1, ['-pc_type', 'structilu'], 'stencil'),
    ('structilu-t2', 'ex45', 1, 2, ['-pc_type', 'structilu'], 'stencil'),
    ('structilu-dilu-t1', 'ex45', 1, 1, ['-pc_type', 'structilu', '-pc_structilu_diagonal_storage'], 'dilu'),
    ('structilu-dilu-t2', 'ex45', 1, 2, ['-pc_type', 'structilu', '-pc_structilu_diagonal_storage'], 'dilu'),
    ('structilu-eisenstat-t1', 'ex45', 1, 1, ['-pc_type', 'structilu', '-pc_structilu_eisenstat'], 'eisenstat'),
    ('structilu-eisenstat-t2', 'ex45', 1, 2, ['-pc_type', 'structilu', '-pc_structilu_eisenstat'], 'eisenstat'),
    ('structilu-np2', 'ex45', 2, 1, ['-pc_type', 'structilu'], 'stencil'),
    ('stencilgpu-ilu-t2', 'ex45', 1, 2, ['-dm_mat_type', 'stencilgpu', '-pc_type', 'ilu'], 'stencil'),
    ('ilu', 'ex19', 1, 1, ['-pc_type', 'ilu'], 'aij'),
    ('ilu-baij', 'ex19', 1, 1, ['-dm_mat_type', 'baij', '-pc_type', 'ilu'], 'baij'),
    ('structilu-t1', 'ex19', 1, 1, ['-pc_type', 'structilu'], 'stencil'),
    ('structilu-t2', 'ex19', 1, 2, ['-pc_type', 'structilu'], 'stencil'),
    ('structilu-baij-t2', 'ex19', 1, 2, ['-dm_mat_type', 'baij', '-pc_type', 'structilu'], 'stencil'),
    ('structilu-dilu-t1', 'ex19', 1, 1, ['-pc_type', 'structilu', '-pc_structilu_diagonal_storage'], 'dilu'),
    ('structilu-dilu-t2', 'ex19', 1, 2, ['-pc_type', 'structilu', '-pc_structilu_diagonal_storage'], 'dilu'),
    ('structilu-eisenstat-t1', 'ex19', 1, 1, ['-pc_type', 'structilu', '-pc_structilu_eisenstat'], 'eisenstat'),
    ('gilu-baij-t1', 'ex19', 1, 1, ['-dm_mat_type', 'baij', '-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu'], 'baij'),
    ('gilu-baij-t2', 'ex19', 1, 2, ['-dm_mat_type', 'baij', '-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu'], 'baij'),
]
SOURCES = dict(ex45='ksp/ksp/tutorials/ex45.c', ex19='snes/tutorials/ex19.c')
# (tutorial, grid points per direction) of a full run and of a quick one
PROBLEMS = dict(full=[('ex45', 100), ('ex19', 200), ('ex19', 300)], quick=[('ex45', 30), ('ex19', 48)])


def problem_args(tut, n):
    if tut == 'ex45':
        return ['-da_grid_x', str(n), '-da_grid_y', str(n), '-da_grid_z', str(n), '-ksp_type', 'cg', '-ksp_rtol', '1e-8']
    return ['-da_grid_x', str(n), '-da_grid_y', str(n)]


def shape(tut, n):
    """(points, dof, stencil offsets, stored blocks of the operator)"""
    if tut == 'ex45':
        return n ** 3, 1, 7, n ** 3 + 6 * (n - 1) * n * n
    return n ** 2, 4, 5, n ** 2 + 4 * (n - 1) * n


def model_bytes(model, tut, n):
    npts, dof, ns, blocks = shape(tut, n)
    vec = 3 * npts * dof * 8
    if model == 'stencil':
        return (ns + 1) * dof * dof * 8 * npts + vec
    if model == 'dilu':  # the matrix's ns - 1 offsets, D^{-1} in both sweeps
        return (ns + 1) * dof * dof * 8 * npts + vec
    if model == 'eisenstat':  # Ahat x: backward x, A_U, D^{-1} -> t; forward x, E, t, A_L, D^{-1} -> its y, the result
        return (ns + 2) * dof * dof * 8 * npts + 6 * npts * dof * 8
    if model == 'aij':
        return blocks * dof * dof * 12 + 2 * (npts * dof + 1) * 4 + vec
    return blocks * dof * dof * 8 + blocks * 4 + 2 * (npts + 1) * 4 + vec  # baij


def run_one(tut, n, cfg, logdir, rnd):
    cid, _, np_, threads, opts, _ = cfg
    exe = report.build_petsc_example(SOURCES[tut])
    csv, lv_opts = bench.log_view_csv(logdir, '%s-%d-%s-round%d' % (tut, n, cid, rnd))
    cmd = bench.launcher(np_) + [exe, '-dll_append', LIB, '-ksp_converged_reason'] + lv_opts + problem_args(tut, n) + opts
    p = subprocess.run(cmd, env=bench.base_env(threads), capture_output=True, text=True, timeout=1800)
    events, _ = bench.read_log_view_csv(csv)
    its = [int(m) for m in re.findall(r'Linear solve converged due to \S+ iterations (\d+)', p.stdout)]
    rec = dict(iterations=its, rc=p.returncode)
    if p.returncode or not events.get('KSPSolve'):
        rec['error'] = ' | '.join(l for l in (p.stdout + p.stderr).splitlines() if 'ERROR' in l)[:400] or 'no -log_view'
        return rec
    ev = lambda name, f='time': events.get(name, {}).get(f, 0.0)
    rec.update(setup_s=ev('PCSetUp'), solve_s=ev('KSPSolve'), apply_s=ev('PCApply') / max(ev('PCApply', 'count'), 1))
    pc_s = ev('PCApply')
    if '-pc_structilu_eisenstat' in opts:  # the sweeps are in the operator (logged as StructILUApply); PCApply is D x
        rec['apply_s'] = ev('StructILUApply') / max(ev('StructILUApply', 'count'), 1)
        pc_s += ev('StructILUApply')
    # what KSPSolve spends outside the preconditioner (PETSc's MatMult and vector operations, on one thread per process):
    # no preconditioner can make the solve faster than this
    rec['outside_s'] = max(rec['solve_s'] - pc_s, 0.0)
    rec['whole_s'] = rec['setup_s'] + rec['solve_s']  # PETSc 3.18 logs the setup KSPSolve triggers outside KSPSolve
    return rec


def times(a, b):
    return '%.2fx' % (a / b) if a and b else '-'


def best(recs):
    """each time the least of the rounds (the least disturbed, for PETSc's rows and ours alike), separately per measure:
    the setup of the round with the fastest solve is not the least disturbed setup"""
    ok = [r for r in recs if 'error' not in r]
    if not ok:
        return recs[-1]
    rec = dict(min(ok, key=lambda r: r['whole_s']))
    for key in ('setup_s', 'solve_s', 'apply_s', 'outside_s'):
        if all(key in r for r in ok):
            rec[key] = min(r[key] for r in ok)
    return rec


def write_report(res, stem, publish=False):
    quick = res['size'] == 'quick'
    stream = res['stream']
    triad = {t: stream.get('dram_t%d' % t, {}).get('triad_GBs') for t in (1, 2)}
    llc = res.get('llc_bytes', 0)
    lines = ['# Host speed on PETSc\'s tutorials', '',
             '%s, %s (%s), load %.2f before; best of %d alternated rounds; STREAM triad %s / %s GB/s on 1 / 2 threads; '
             '`python3 bench/tutorials.py%s`%s. Bandwidth fractions marked `c`: the bytes fit in the last-level cache (%.0f MiB).'
             % (res['date'], res['host'], res['cpu'], res['loadavg_before'], res['repeat'], bench.fmt(triad[1]), bench.fmt(triad[2]),
                ' --quick' if quick else '', ' (main at %s)' % res['revision'] if res.get('revision') else '', llc / 2 ** 20), '']
    targets, plots = [], []
    for tut, n in PROBLEMS[res['size']]:
        rows = [c for c in CONFIGS if c[1] == tut and '%s/%d/%s' % (tut, n, c[0]) in res['runs']]
        if not rows:
            continue
        ref_id = 'ilu' if tut == 'ex45' else 'ilu-baij'
        bests = {c[0]: best(res['runs'].get('%s/%d/%s' % (tut, n, c[0]), [{}])) for c in CONFIGS if c[1] == tut}
        get = lambda cid: bests[cid]
        ref = get(ref_id)
        lines += ['## %s %s' % (tut, 'x'.join([str(n)] * (3 if tut == 'ex45' else 2))), '',
                  '| configuration | processes x threads | iterations | PCSetUp (s) | KSPSolve (s) | setup + solve (s) | vs %s | apply (ms) | '
                  'apply vs %s | MB per apply | of STREAM | outside the PC (s) |' % (ref_id, ref_id), '|---|---|---|---|---|---|---|---|---|---|---|---|']
        for c in rows:
            cid, _, np_, th, _, model = c
            r = get(cid)
            if 'error' in r:
                lines.append('| %s | %dx%d | failed: %s | | | | | | | | | |' % (cid, np_, th, r['error'][:120]))
                continue
            mb = model_bytes(model, tut, n)
            bw = triad.get(np_ * th)
            r['model_bytes'] = mb
            r['stream_fraction'] = mb / r['apply_s'] / 1e9 / bw if bw else None
            same = ref if np_ == 1 or tut != 'ex45' else get('bjacobi-np2')  # 2 processes: block Jacobi's iterations
            r['same_iterations'] = r['iterations'] == same.get('iterations')
            its = ' '.join(map(str, r['iterations'])) + ('' if r['same_iterations'] else ' (differ)')
            frac = '-' if r['stream_fraction'] is None else '%.0f%%%s' % (100 * r['stream_fraction'], ' c' if mb < llc else '')
            lines.append('| %s | %dx%d | %s | %.3f | %.3f | %.3f | %s | %.3f | %s | %.0f | %s | %s |' % (
                cid, np_, th, its, r['setup_s'], r['solve_s'], r['whole_s'], times(ref.get('whole_s'), r['whole_s']),
                1e3 * r['apply_s'], times(ref.get('apply_s'), r['apply_s']), mb / 1e6, frac,
                '%.3f' % r['outside_s'] if 'outside_s' in r else '-'))
        lines.append('')
        if quick or 'error' in ref:
            continue
        # the host-speed targets: petscgilu on one process (its threads) against PETSc on one process and
        # against block Jacobi on two (the same cores); ex19: structilu's and gilu's applies against PETSc's BAIJ ILU(0)
        mine = [get(c[0]) for c in rows if c[2] == 1 and c[0].startswith(('structilu', 'stencilgpu', 'gilu')) and 'error' not in get(c[0])]
        mine = [r for r in mine if r['same_iterations']]
        if not mine:
            continue
        fastest = lambda key: min(mine, key=lambda r: r[key])
        eis = get('structilu-eisenstat-t2') if tut == 'ex45' else {}
        if tut == 'ex45':
            bj, w = get('bjacobi-np2'), fastest('whole_s')
            targets += [('ex45 %d^3 setup + solve >= 3x PETSc ILU(0), one process' % n, ref['whole_s'] / w['whole_s'], 3.0),
                        ('ex45 %d^3 setup + solve >= 2.5x block Jacobi + ILU(0) on 2 processes' % n,
                         bj['whole_s'] / w['whole_s'] if 'whole_s' in bj else None, 2.5),
                        ('ex45 %d^3 setup >= 3x PETSc ILU(0)' % n, ref['setup_s'] / fastest('setup_s')['setup_s'], 3.0),
                        ('ex45 %d^3 apply >= 75%% of its bandwidth bound (the fastest apply)' % n, fastest('apply_s')['stream_fraction'], 0.75)]
            # the ceiling: PETSc ILU(0)'s setup + solve over the time KSPSolve spends outside the preconditioner in the
            # fastest row (its MatMult and vector operations), as if the setup and the applies cost nothing
            if 'outside_s' in w and w['outside_s'] > 0:
                lines += ['Ceiling: outside the preconditioner (PETSc\'s MatMult and vector operations, one thread) KSPSolve '
                          'spends %.3f s in the fastest row (%s), so no preconditioner on one process reaches more than %s PETSc '
                          'ILU(0) or %s block Jacobi on 2 processes with these iterations, even with free setup and applies.'
                          % (w['outside_s'], next(c[0] for c in rows if get(c[0]) is w), times(ref['whole_s'], w['outside_s']),
                             times(bj.get('whole_s'), w['outside_s'])), '']
            if 'whole_s' in eis and not eis.get('same_iterations'):  # ex45's boundary rows make A nonsymmetric: CG's iterations change
                lines += ['Not counted in the targets: with the Eisenstat trick (2 threads) setup + solve is %s PETSc ILU(0) and %s block Jacobi '
                          'on 2 processes, in %s iterations instead of %s (ex45\'s matrix is not symmetric, so the transformed CG is not '
                          'PCG with the same preconditioner).' % (times(ref['whole_s'], eis['whole_s']), times(bj.get('whole_s'), eis['whole_s']),
                                                                   ' '.join(map(str, eis['iterations'])), ' '.join(map(str, ref['iterations']))), '']
        else:
            targets += [('ex19 %d^2 apply >= 1.5x PETSc BAIJ ILU(0)' % n, ref['apply_s'] / fastest('apply_s')['apply_s'], 1.5),
                        ('ex19 %d^2 setup >= 3x PETSc BAIJ ILU(0)' % n, ref['setup_s'] / fastest('setup_s')['setup_s'], 3.0)]
    if targets:
        lines += ['## Targets', '', 'From the fastest single-process petscgilu row with PETSc\'s iterations (its threads on the same cores).', '',
                  '| target | reached | met |', '|---|---|---|']
        for name, got, want in targets:
            lines.append('| %s | %s | %s |' % (name, '-' if got is None else ('%.0f%%' % (100 * got) if want < 1 else '%.2fx' % got),
                                                'yes' if got is not None and got >= want else 'no'))
        res['targets'] = [dict(name=t[0], reached=t[1], want=t[2]) for t in targets]
        lines += ['', 'Met: %d of %d.' % (sum(1 for t in targets if t[1] is not None and t[1] >= t[2]), len(targets)), '']
        if plot_targets(targets, stem + '-targets.png', '%s, %s' % (res['date'], res['cpu'])):
            lines += ['![each target: reached / wanted](%s-targets.png)' % os.path.basename(stem), '']
            plots.append('-targets.png')
    report.write(stem, res, lines, publish, plots)


def plot_targets(targets, path, machine):
    """Each target's reached value as a fraction of the one wanted (1 = met), horizontal bars; False without matplotlib"""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [t[0] for t in targets][::-1]
    vals = [(t[1] or 0) / t[2] for t in targets][::-1]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(targets) + 1.2))
    ax.barh(names, vals, color=['#55A868' if v >= 1 else '#DD8452' for v in vals])
    ax.axvline(1.0, color='k', lw=1)
    for y, (v, t) in enumerate(zip(vals, targets[::-1])):
        got = t[1] or 0
        ax.text(v + 0.02, y, '%.0f%%' % (100 * got) if t[2] < 1 else '%.2fx' % got, va='center', fontsize=8)
    ax.set_xlabel('reached / wanted (1: met)')
    ax.set_title('petscgilu against PETSc on its tutorials (%s)' % machine, fontsize=9)
    ax.tick_params(axis='y', labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_tutorial_suite_options(ap)
    a = ap.parse_args()
    if report.rewrite_report(a, write_report):
        return
    size = 'quick' if a.quick else 'full'
    date = datetime.datetime.utcnow()
    stem = report.suite_stem(a, 'tutorials', date)
    cases = [(tut, n, c) for tut, n in PROBLEMS[size] for c in CONFIGS if c[1] == tut
             and (not a.only or re.search(a.only, '%s/%d/%s' % (tut, n, c[0])))]
    rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=os.path.dirname(os.path.abspath(__file__)), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip()
    res = dict(date=date.isoformat(timespec='seconds'), host=socket.gethostname(), cpu=bench.cpu_model(), size=size, revision=rev,
               repeat=a.repeat, loadavg_before=os.getloadavg()[0], llc_bytes=max(bench.cache_bytes(3), bench.cache_bytes(2)),
               stream=bench.run_stream(a.quick, 600), runs={})
    for r in range(a.repeat):
        for tut, n, c in cases:
            key = '%s/%d/%s' % (tut, n, c[0])
            rec = run_one(tut, n, c, bench.log_dir(stem), r + 1)
            res['runs'].setdefault(key, []).append(rec)
            print('round %d %-32s %s' % (r + 1, key, rec.get('error') or '%.3f s, apply %.3f ms, iterations %s' %
                                         (rec['whole_s'], 1e3 * rec['apply_s'], rec['iterations'])), flush=True)
    write_report(res, stem, a.publish)


if __name__ == '__main__':
    main()
