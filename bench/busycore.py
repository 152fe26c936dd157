#!/usr/bin/env python3
"""Host threads beside a busy core: a 2-thread solve while another process holds one core.

    bench/busycore.py [--quick] [--repeat R] [--n N] [--baseline LIBDIR] [--libdir LIBDIR] [--out STEM]

A compute loop (a child process spinning in user space, pinned to the last core) runs for the whole measurement.
Beside it, tutorials/ex1 (3D Poisson star-7, CG) runs each preconditioner with OMP_NUM_THREADS=1 and 2, the two
alternated R times, and the apply time is read from the run's -log_view CSV (PCApply for structilu, MatSolve for
-pc_factor_mat_solver_type gilu; PETSc's ILU, sequential, is the reference). The figure of merit is

    ratio = apply(2 threads, busy core) / apply(1 thread, busy core)      (median of R; required <= 1.25)

i.e. the second thread must not make things worse when its core is taken: its waits back off and yield
(include/petscgilu/private/wait.h). The same ratios without the busy process are reported for reference.
With --baseline DIR, the libpetscgilu.so.MAJOR.MINOR in DIR (e.g. `cp -a lib DIR` before a change) is measured in the same
run, alternated with this build, so a before/after pair sees the same load. The load average before and after is
reported: on a shared machine the "idle" runs are not idle.
Writes STEM.json and STEM.md (default build/bench/results/<date>-<host>-busycore[-quick];
--publish also copies them to bench/results/, replacing the report there).
"""

import argparse
import datetime
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402  (the -log_view CSV)
import report  # noqa: E402

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
POISSON = os.path.join(ROOT, 'build', 'tests', 'tutorials', 'ex1')
LIMIT = 1.25

CONFIGS = [
    dict(id='structilu', label='PCSTRUCTILU', args=['-pc_type', 'structilu'], event='PCApply'),
    dict(id='gilu', label='ILU(0), MatSolverType gilu', args=['-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu'], event='MatSolve'),
    dict(id='ilu', label="PETSc's ILU(0) (sequential)", args=['-pc_type', 'ilu'], event='MatSolve'),
]


def build():
    if not os.path.exists(POISSON):
        subprocess.run(['make', '--no-print-directory', '-f', os.path.join(ROOT, 'gmakefile.test'), 'PETSCGILU_DIR=' + ROOT, POISSON], check=True, cwd=ROOT)


def start_busy():
    """A process spinning in user space on the last core (what another developer's compile or solve does)."""
    core = (os.cpu_count() or 1) - 1

    def pin():
        os.sched_setaffinity(0, {core})
    return subprocess.Popen([sys.executable, '-c', 'while True: pass'], preexec_fn=pin), core


def run_once(n, cfg, threads, libdir, logdir, tag):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if libdir:  # another build of libpetscgilu.so (before/after): ahead of the program's RUNPATH
        env['LD_LIBRARY_PATH'] = libdir + ':' + env.get('LD_LIBRARY_PATH', '')
    csv, lv_opts = machine.log_view_csv(logdir, tag)
    cmd = [POISSON, '-da_grid_x', str(n), '-da_grid_y', str(n), '-da_grid_z', str(n), '-ksp_type', 'cg',
           '-ksp_rtol', '1e-8'] + lv_opts + cfg['args']
    subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    e = machine.read_log_view_csv(csv)[0].get(cfg['event'])
    if not e:
        raise RuntimeError('no %s in the -log_view of %s' % (cfg['event'], ' '.join(cmd)))
    return e['time'] / e['count']


def measure(n, repeat, busy, builds, logdir):
    """{build: {config: {threads: [seconds per apply]}}}, every (build, threads) pair of a config alternated in each repeat"""
    proc = None
    if busy:
        proc, _ = start_busy()
        time.sleep(0.5)
    try:
        res = {b: {} for b, _ in builds}
        for cfg in CONFIGS:
            t = {b: {1: [], 2: []} for b, _ in builds}
            for rep in range(repeat):  # alternated, so drifting load hits all
                for b, libdir in builds:
                    if cfg['id'] == 'ilu' and b != builds[0][0]:
                        continue
                    for th in (1, 2):
                        if cfg['id'] == 'ilu' and th == 2:
                            continue
                        tag = '%s-%s-%s-t%d-run%d' % ('busy' if busy else 'idle', b, cfg['id'], th, rep + 1)
                        t[b][th].append(run_once(n, cfg, th, libdir, logdir, tag))
            for b, _ in builds:
                if t[b][1]:
                    res[b][cfg['id']] = {str(k): v for k, v in t[b].items() if v}
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='a small grid (seconds)')
    ap.add_argument('--repeat', type=int, default=5, help='runs per case (alternated); the median is reported')
    ap.add_argument('--n', type=int, help='grid points per direction (default 64, quick 32)')
    ap.add_argument('--libdir', help='the directory of another libpetscgilu.so to measure instead of this build')
    ap.add_argument('--baseline', help='the directory of another libpetscgilu.so (e.g. before a change) measured in the same run, '
                    'alternated with this build; its rows are reported beside this build\'s')
    ap.add_argument('--out', help='output stem')
    report.add_publish_option(ap)
    a = ap.parse_args()
    build()
    builds = [('this build', a.libdir)] + ([('baseline', a.baseline)] if a.baseline else [])
    n = a.n or (32 if a.quick else 64)
    date = datetime.datetime.utcnow()
    stem = a.out or report.default_stem('%s-%s-busycore%s' % (date.strftime('%Y-%m-%d'), socket.gethostname(), '-quick' if a.quick else ''))
    command = 'python3 bench/busycore.py' + ''.join(' ' + x for x in sys.argv[1:])
    res = dict(date=date.isoformat(timespec='seconds'), host=socket.gethostname(), nproc=os.cpu_count(), n=n, repeat=a.repeat,
               command=command, libdir=a.libdir, baseline=a.baseline, loadavg_before=os.getloadavg()[0], limit=LIMIT)
    res['busy'] = measure(n, a.repeat, True, builds, machine.log_dir(stem))
    res['idle'] = measure(n, a.repeat, False, builds, machine.log_dir(stem))
    res['loadavg_after'] = os.getloadavg()[0]
    med = lambda v: statistics.median(v) if v else float('nan')
    lines = ['# Host threads beside a busy core', '',
             '%s, %s (%d cores, load average %.2f before, %.2f after), tutorials/ex1 3D Poisson %d^3, CG rtol 1e-8; a compute loop pinned to the '
             'last core during the "busy" runs; apply time per call, median of %d alternated runs; `%s`.' %
             (res['date'], res['host'], res['nproc'], res['loadavg_before'], res['loadavg_after'], n, a.repeat, command), '',
             '| preconditioner | build | busy: 1 thread (ms) | busy: 2 threads (ms) | busy ratio 2/1 (<= %.2f) | idle: 1 thread (ms) | idle: 2 threads (ms) | idle ratio 2/1 |' % LIMIT,
             '|---|---|---|---|---|---|---|---|']
    ok = True
    for cfg in CONFIGS:
        for bname, _ in builds:
            if cfg['id'] not in res['busy'][bname]:
                continue
            b, i = res['busy'][bname][cfg['id']], res['idle'][bname][cfg['id']]
            if '2' not in b:
                lines.append('| %s | %s | %.3f | | | %.3f | | |' % (cfg['label'], bname, 1e3 * med(b['1']), 1e3 * med(i['1'])))
                continue
            rb, ri = med(b['2']) / med(b['1']), med(i['2']) / med(i['1'])
            res.setdefault('ratio', {}).setdefault(bname, {})[cfg['id']] = dict(busy=rb, idle=ri)
            if bname == builds[0][0]:
                ok = ok and rb <= LIMIT
            lines.append('| %s | %s | %.3f | %.3f | %.2f %s | %.3f | %.3f | %.2f |' % (cfg['label'], bname, 1e3 * med(b['1']), 1e3 * med(b['2']), rb, 'ok' if rb <= LIMIT else 'FAIL',
                                                                                    1e3 * med(i['1']), 1e3 * med(i['2']), ri))
    res['pass'] = ok
    lines += ['', 'Busy-core requirement for this build (2-thread / 1-thread apply <= %.2f): %s' % (LIMIT, 'met' if ok else 'NOT met'), '']
    if a.baseline:
        lines += ['baseline: `%s`' % a.baseline, '']
    report.write(stem, res, lines, a.publish)


if __name__ == '__main__':
    main()
