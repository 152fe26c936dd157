#!/usr/bin/env python3
"""PCSTRUCTILU across MPI processes (-pc_structilu_distributed) against block Jacobi, on PETSc's tutorials built
unchanged: ksp ex45 (3D Poisson, star-7, CG) and snes ex19 (driven cavity, 4 DoF, star-5, Newton-GMRES).

    bench/distributed.py [--quick] [--repeat R] [--out STEM] [--only REGEX] [--lib PATH] [--report-only FILE.json] [--publish]

On 1, 2 and 3 processes (one thread each): structilu distributed (the global ILU(0) of natural ordering as a
pipeline: PETSc's one-process iterations on any number of processes), structilu as block Jacobi (its default on
several processes, the comparison the pipeline model makes), PETSc's block Jacobi + ILU(0)
(`-pc_type bjacobi -sub_pc_type ilu`) and, on one process, PETSc's `-pc_type ilu`. R rounds (3) alternate the
configurations, so drifting load hits them all alike; each measure is the best of its rounds. Measured from each run's
-log_view CSV (max over ranks): iterations, PCSetUp, KSPSolve, PCApply per call. From -ksp_view: the cut the pipeline
chose and its model's expected idle fraction and block Jacobi / pipeline apply-time ratio, shown beside the measured
apply ratio. Then the model alone for P = 2..8 processes (oversubscribed; -ksp_max_it 1, the same grids): where it
predicts that block Jacobi's apply is faster. Sizes: ex45 100^3 and ex19 192^2 (--quick: 48^3, 96^2; ex19's GMRES iterations grow fast with the grid).
Writes STEM.json and STEM.md (default build/bench/results/<date>-<host>-distributed[-quick]); --publish also copies
them to bench/results/, replacing the report there.
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
import machine as bench  # noqa: E402  (the -log_view CSV, the environment of a run)

ROOT = bench.ROOT
LIB = os.path.join(ROOT, 'lib', 'libpetscgilu.so')
SOURCES = dict(ex45='ksp/ksp/tutorials/ex45.c', ex19='snes/tutorials/ex19.c')
PROBLEMS = dict(full=[('ex45', 100), ('ex19', 192)], quick=[('ex45', 48), ('ex19', 96)])
PROCS = [1, 2, 3]
MODEL_PROCS = range(2, 9)
DIST = ['-pc_type', 'structilu', '-pc_structilu_distributed', '-pc_structilu_threads', '1']
# id, processes, options, shown in the report as
CONFIGS = ([('ilu', 1, ['-pc_type', 'ilu'], "PETSc ILU(0)")]
           + [('dist-np%d' % p, p, DIST, 'structilu distributed') for p in PROCS]
           + [('structilu-bj-np%d' % p, p, ['-pc_type', 'structilu', '-pc_structilu_threads', '1'], 'structilu block Jacobi')
              for p in PROCS if p > 1]
           + [('bjacobi-np%d' % p, p, ['-pc_type', 'bjacobi', '-sub_pc_type', 'ilu'], 'PETSc block Jacobi + ILU(0)') for p in PROCS])


def problem_args(tut, n):
    if tut == 'ex45':
        return ['-da_grid_x', str(n), '-da_grid_y', str(n), '-da_grid_z', str(n), '-ksp_type', 'cg', '-ksp_rtol', '1e-8']
    return ['-da_grid_x', str(n), '-da_grid_y', str(n)]


def grid(tut, n):
    return 'x'.join([str(n)] * (3 if tut == 'ex45' else 2))


NUM = r'([0-9.]+(?:e[-+]?\d+)?)'


def parse_view(text):
    """the last -ksp_view's pipeline lines: the cut and the model (an empty dict when the run printed none)"""
    rec = {}
    for m in re.finditer(r'pipeline: (\d+) tiles \(stages\) of (\d+) grid (\w+) along (\w), skewed by (\d+)', text):
        rec['cut'] = 'tiles of %s %s along %s, skew %s (%s tiles)' % (m.group(2), m.group(3), m.group(4), m.group(5), m.group(1))
        rec['tiles'], rec['chunk'], rec['skew'] = int(m.group(1)), int(m.group(2)), int(m.group(5))
    if re.search(r'pipeline: natural order of the grid lines', text) and 'cut' not in rec:
        rec['cut'] = 'natural order'
    ms = list(re.finditer(r'pipeline model \((\d+) cuts compared\): expected idle fraction %s.*?this one\'s %s[^;]*; process 0 sends (\d+) '
                          r'messages per factorization, (\d+) per forward and (\d+) per backward' % (NUM, NUM), text))
    if ms:
        m = ms[-1]
        rec.update(candidates=int(m.group(1)), idle=float(m.group(2)), speed=float(m.group(3)),
                   messages=[int(m.group(4)), int(m.group(5)), int(m.group(6))])
    return rec


def run_one(tut, n, cid, np_, opts, logdir, tag, timeout, extra=()):
    exe = report.build_petsc_example(SOURCES[tut])
    csv, lv_opts = bench.log_view_csv(logdir, '%s-%d-%s-%s' % (tut, n, cid, tag))
    cmd = (bench.launcher(np_) + [exe, '-dll_append', LIB, '-ksp_converged_reason'] + lv_opts + problem_args(tut, n) + opts
           + (['-ksp_view'] if 'structilu' in opts else []) + list(extra))
    try:
        p = subprocess.run(cmd, env=bench.base_env(1), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error='timeout after %d s' % timeout)
    events, _ = bench.read_log_view_csv(csv)
    rec = dict(iterations=[int(m) for m in re.findall(r'Linear solve \w+ due to \S+ iterations (\d+)', p.stdout)], rc=p.returncode)
    rec.update(parse_view(p.stdout))
    if p.returncode or not events.get('PCSetUp'):
        rec['error'] = ' | '.join(l for l in (p.stdout + p.stderr).splitlines() if 'ERROR' in l)[:400] or 'exit %d, no -log_view' % p.returncode
        return rec
    ev = lambda name, f='time': events.get(name, {}).get(f, 0.0)
    rec.update(setup_s=ev('PCSetUp'), solve_s=ev('KSPSolve'), apply_s=ev('PCApply') / max(ev('PCApply', 'count'), 1),
               applies=int(ev('PCApply', 'count')))
    rec['whole_s'] = rec['setup_s'] + rec['solve_s']  # PETSc 3.18 logs the setup KSPSolve triggers outside KSPSolve
    return rec


def best(recs):
    """each measure the least of the rounds (the least disturbed), separately"""
    ok = [r for r in recs if 'error' not in r]
    if not ok:
        return recs[-1] if recs else dict(error='not run')
    rec = dict(min(ok, key=lambda r: r['whole_s']))
    for key in ('setup_s', 'solve_s', 'apply_s', 'whole_s'):
        rec[key] = min(r[key] for r in ok)
    return rec


def x(a, b, spec='%.2f'):
    return spec % (a / b) if a and b else '-'


def its_str(r):
    its = r.get('iterations') or []
    if len(its) <= 3:
        return ' '.join(map(str, its)) or '-'
    return '%d (%d solves)' % (sum(its), len(its))


def write_report(res, stem, publish=False):
    quick = res['size'] == 'quick'
    cores = res.get('cores') or 0
    loads = [r['loadavg'] for recs in res['runs'].values() for r in recs if 'loadavg' in r]
    lines = ['# PCSTRUCTILU across processes: -pc_structilu_distributed against block Jacobi', '',
             '%s, %s (%s, %s cores), load %.2f before%s; best of %d alternated rounds, one thread per process; '
             '`python3 bench/distributed.py%s`%s. Rows with more processes than cores are oversubscribed: their times '
             'measure the sharing, not the method.' % (res['date'], res['host'], res['cpu'], cores, res['loadavg_before'],
                                                       ' and %.1f to %.1f during the runs' % (min(loads), max(loads)) if loads else '', res['repeat'],
                                                       ' --quick' if quick else '', ' (at %s)' % res['revision'] if res.get('revision') else ''), '',
             'structilu distributed computes the global ILU(0) of natural ordering, so its iterations are PETSc ILU(0)\'s on one '
             'process for any number of processes (a difference is marked `*`); block Jacobi factors each process\'s block. '
             'The model ("model idle", "model BJ/pipe") is what `-ksp_view` prints: the pipeline\'s expected idle fraction and '
             'block Jacobi\'s apply time over the pipeline\'s with the same kernel, which the measured '
             '"structilu BJ / distributed apply" column checks.', '']
    for tut, n in PROBLEMS[res['size']]:
        key = lambda cid: '%s/%d/%s' % (tut, n, cid)
        if not any(key(c[0]) in res['runs'] for c in CONFIGS):
            continue
        b = {c[0]: best(res['runs'].get(key(c[0]), [])) for c in CONFIGS}
        ref = b['ilu']
        lines += ['## %s %s' % (tut, grid(tut, n)), '',
                  '| configuration | processes | iterations | PCSetUp (s) | KSPSolve (s) | setup + solve (s) | apply (ms) | '
                  'PETSc ILU(0) apply / this | cut |', '|---|---|---|---|---|---|---|---|---|']
        for cid, np_, _, title in CONFIGS:
            if key(cid) not in res['runs']:
                continue
            r = b[cid]
            if 'error' in r:
                lines.append('| %s | %d | failed: %s | | | | | | |' % (title, np_, r['error'][:160]))
                continue
            star = '' if not cid.startswith('dist') or r['iterations'] == ref.get('iterations') else ' *'
            lines.append('| %s | %d%s | %s%s | %.3f | %.3f | %.3f | %.3f | %s | %s |' % (
                title, np_, ' (oversubscribed)' if cores and np_ > cores else '', its_str(r), star, r['setup_s'], r['solve_s'],
                r['whole_s'], 1e3 * r['apply_s'], x(ref.get('apply_s'), r['apply_s']), r.get('cut', '')))
        lines += ['', 'Predicted against measured, per process count:', '',
                  '| processes | cut | model idle | model BJ/pipe | structilu BJ / distributed apply | PETSc BJ / distributed apply | '
                  'PETSc BJ / distributed setup + solve | iterations: distributed, PETSc BJ |', '|---|---|---|---|---|---|---|---|']
        for p in PROCS[1:]:
            d, sb, pb = b['dist-np%d' % p], b['structilu-bj-np%d' % p], b['bjacobi-np%d' % p]
            if 'error' in d:
                continue
            lines.append('| %d%s | %s | %s | %s | %s | %s | %s | %s, %s |' % (
                p, ' (oversubscribed)' if cores and p > cores else '', d.get('cut', '-'), bench.fmt(d.get('idle'), '%.2f'),
                bench.fmt(d.get('speed'), '%.2f'), x(sb.get('apply_s'), d['apply_s']), x(pb.get('apply_s'), d['apply_s']),
                x(pb.get('whole_s'), d['whole_s']), its_str(d), its_str(pb)))
        lines.append('')
        mod = res.get('model', {}).get('%s/%d' % (tut, n))
        if mod:
            one = sum(ref.get('iterations') or []) or None  # the pipeline's iterations: PETSc ILU(0)'s on one process
            lines += ['Model for P processes (the pipeline set up with `-ksp_max_it 1`, %s; block Jacobi\'s iterations from a '
                      'whole solve with PETSc\'s block Jacobi + ILU(0); oversubscribed, so no times): "model BJ/pipe" is per apply; '
                      'times the iterations (block Jacobi\'s over the pipeline\'s, %s) it is the predicted ratio of the time '
                      'the whole solve spends in the preconditioner.' % (grid(tut, n), one or '-'), '',
                      '| P | cut | cuts compared | model idle | model BJ/pipe per apply | faster apply (model) | block Jacobi iterations | '
                      'predicted BJ/pipe over the solve | messages of process 0 (factor, forward, backward) |',
                      '|---|---|---|---|---|---|---|---|---|']
            slower, slower_solve = [], []
            for p in MODEL_PROCS:
                m = mod.get(str(p), {})
                if 'speed' not in m:
                    lines.append('| %d | failed: %s | | | | | | | |' % (p, (m.get('error') or 'no model in -ksp_view')[:160]))
                    continue
                if m['speed'] < 1:
                    slower.append(p)
                bjits = sum(m.get('bjacobi_iterations') or []) or None
                whole = m['speed'] * bjits / one if bjits and one else None
                if whole is not None and whole < 1:
                    slower_solve.append(p)
                lines.append('| %d | %s | %d | %.2f | %.2f | %s | %s | %s | %s |' % (
                    p, m.get('cut', '-'), m['candidates'], m['idle'], m['speed'], 'block Jacobi' if m['speed'] < 1 else 'pipeline',
                    its_str(dict(iterations=m.get('bjacobi_iterations'))), bench.fmt(whole, '%.2f'), ', '.join(map(str, m['messages']))))
            lines += ['', ('Per apply the model predicts block Jacobi faster on %s processes (it does the same sweeps without waiting: '
                           'the ratio is 1 - idle at best).' % ', '.join(map(str, slower))) if slower else
                      'Per apply the model predicts the pipeline at least as fast as block Jacobi for every P here.',
                      ('Over the whole solve, with block Jacobi\'s extra iterations, it predicts block Jacobi faster on %s processes.'
                       % ', '.join(map(str, slower_solve))) if slower_solve else
                      'Over the whole solve, with block Jacobi\'s extra iterations, it predicts the pipeline faster for every P here.', '']
    report.write(stem, res, lines, publish)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_tutorial_suite_options(ap)
    ap.add_argument('--lib', default=None, help='the libpetscgilu.so to load (default: this tree\'s lib/)')
    a = ap.parse_args()
    global LIB
    LIB = os.path.abspath(a.lib or LIB)
    if report.rewrite_report(a, write_report):
        return 0
    size = 'quick' if a.quick else 'full'
    timeout = 120 if a.quick else 1800
    date = datetime.datetime.utcnow()
    stem = report.suite_stem(a, 'distributed', date)
    logdir = bench.log_dir(stem)
    cases = [(tut, n, c) for tut, n in PROBLEMS[size] for c in CONFIGS if not a.only or re.search(a.only, '%s/%d/%s' % (tut, n, c[0]))]
    rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    res = dict(date=date.isoformat(timespec='seconds'), host=socket.gethostname(), cpu=bench.cpu_model(), cores=os.cpu_count(), size=size,
               revision=rev, repeat=a.repeat, loadavg_before=os.getloadavg()[0], runs={}, model={})
    for r in range(a.repeat):
        for tut, n, (cid, np_, opts, _) in cases:
            key = '%s/%d/%s' % (tut, n, cid)
            rec = run_one(tut, n, cid, np_, opts, logdir, 'round%d' % (r + 1), timeout)
            rec['loadavg'] = round(os.getloadavg()[0], 2)
            res['runs'].setdefault(key, []).append(rec)
            print('round %d %-28s %s' % (r + 1, key, rec.get('error') or 'setup %.3f s, solve %.3f s, apply %.3f ms, iterations %s%s' % (
                rec['setup_s'], rec['solve_s'], 1e3 * rec['apply_s'], rec['iterations'],
                ', model idle %.2f BJ/pipe %.2f' % (rec['idle'], rec['speed']) if 'speed' in rec else '')), flush=True)
    for tut, n in PROBLEMS[size]:
        if a.only and not re.search(a.only, '%s/%d/model' % (tut, n)):
            continue
        mod = res['model'].setdefault('%s/%d' % (tut, n), {})
        for p in MODEL_PROCS:
            rec = run_one(tut, n, 'model', p, DIST, logdir, 'np%d' % p, timeout, ['-ksp_max_it', '1', '-snes_max_it', '1'])
            m = mod[str(p)] = {k: v for k, v in rec.items() if k in ('cut', 'tiles', 'chunk', 'skew', 'candidates', 'idle', 'speed', 'messages', 'error')}
            # block Jacobi's iterations on P processes (the pipeline's are those of one process): what the model's
            # per-apply ratio is weighed against
            bj = run_one(tut, n, 'model-bjacobi', p, ['-pc_type', 'bjacobi', '-sub_pc_type', 'ilu'], logdir, 'np%d' % p, timeout)
            m['bjacobi_iterations'] = bj.get('iterations') if 'error' not in bj else None
            print('model %s/%d P=%d: %s; block Jacobi iterations %s' % (tut, n, p, rec.get('error') if 'speed' not in rec else 'idle %.2f, BJ/pipe %.2f, %s' % (
                rec['idle'], rec['speed'], rec.get('cut')), m['bjacobi_iterations']), flush=True)
    write_report(res, stem, a.publish)
    return 0


if __name__ == '__main__':
    sys.exit(main())
