"""bench/machine.py: what every benchmark script needs of the machine and of PETSc's output: the environment of a
run (threads, Open MPI as root), running a command with a timeout, mpiexec, STREAM, the CPU and its caches, and
reading PETSc's output: the -log_view CSV (the one parser of events every script uses) and -ksp_converged_reason. Standard library only."""

import csv
import datetime
import os
import re
import shutil
import signal
import subprocess
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(ROOT, 'build')
STREAM = os.path.join(BUILD, 'bench', 'stream')



def base_env(threads):
    env = dict(os.environ)
    env['OMP_NUM_THREADS'] = str(threads)
    if os.geteuid() == 0:
        env['OMPI_ALLOW_RUN_AS_ROOT'] = '1'
        env['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM'] = '1'
    env['OMPI_MCA_rmaps_base_oversubscribe'] = '1'
    env.pop('PETSC_OPTIONS', None)
    return env


def run_cmd(cmd, env, timeout, stdout_path):
    """run cmd (own process group, killed on timeout); returns (rc or None on timeout, seconds)"""
    t0 = time.time()
    with open(stdout_path, 'w') as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    pass
            rc = None
    return rc, time.time() - t0


def launcher(np_):
    if np_ == 1:
        return []
    mpiexec = os.environ.get('MPIEXEC') or shutil.which('mpiexec') or 'mpiexec'
    return mpiexec.split() + ['-n', str(np_)]


def timer_prefix(path):
    gnu_time = '/usr/bin/time'
    if os.access(gnu_time, os.X_OK):
        return [gnu_time, '-f', 'maxrss_kb=%M', '-o', path]
    return []


NUM = r'[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?'


def log_dir(stem):
    """where a script writing the report STEM puts its per-run output (the -log_view CSVs): build/bench/logs/<name of
    STEM>/, as bench/run.py does for its own runs"""
    return os.path.join(BUILD, 'bench', 'logs', os.path.basename(stem))


def log_view_csv(logdir, tag):
    """(path, options) of one run's -log_view, written by PETSc as CSV (`-log_view :path:ascii_csv`) to
    logdir/<tag>.log_view.csv; an earlier file of that name is removed, so a run that dies before writing its log is
    never read from a stale one. read_log_view_csv() reads it."""
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, re.sub(r'[^A-Za-z0-9_.+=-]+', '_', tag) + '.log_view.csv')
    if os.path.exists(path):
        os.remove(path)
    return path, ['-log_view', ':%s:ascii_csv' % path]


def read_log_view_csv(path):
    """The events of a `-log_view :path:ascii_csv` file: {name: {count, time (s), flop}} and the total time (s), or
    ({}, None) when there is no file.

    PETSc (3.18 to at least 3.25) writes one header line, `Stage Name,Event Name,Rank,Count,Time,Num Messages,
    Message Length,Num Reductions,FLOP,dof0..dof7,e0..e7,<ranks>`, then one row per stage, event and rank, every
    event of every stage (the pseudo-event `summary` is the stage itself). Here, as in the Max columns of the text
    -log_view: count, time and flop are the maximum over the ranks within a stage, then summed over the stages; events
    never called are left out. The total time is the slowest rank's sum of its stage times (the text log's `Time (sec)`
    also counts the few microseconds of PetscInitialize before the main stage starts)."""
    try:
        f = open(path, newline='', errors='replace')
    except OSError:
        return {}, None
    per_stage = {}  # (stage, event) -> [count, time, flop], each the max over ranks
    stage_time = {}  # rank -> sum of its stage times
    with f:
        rows = csv.reader(f)
        header = next(rows, None)
        if not header:
            return {}, None
        col = {name: i for i, name in enumerate(header)}
        need = ('Stage Name', 'Event Name', 'Rank', 'Count', 'Time', 'FLOP')
        if any(n not in col for n in need):
            raise ValueError('%s: not a -log_view CSV (header %s)' % (path, ','.join(header[:9])))
        stg, evt, rnk, cnt, tim, flp = (col[n] for n in need)
        for r in rows:
            if len(r) <= flp:
                continue
            name = r[evt].strip()  # PETSc pads a few names (`VecScatterEnd  `); the text log's columns hide that
            try:
                count, time_, flop = int(float(r[cnt])), float(r[tim]), float(r[flp])
            except ValueError:  # the last row of a run killed while writing
                continue
            if name == 'summary':
                stage_time[r[rnk]] = stage_time.get(r[rnk], 0.0) + time_
                continue
            e = per_stage.setdefault((r[stg], name), [0, 0.0, 0.0])
            e[0], e[1], e[2] = max(e[0], count), max(e[1], time_), max(e[2], flop)
    events = {}
    for (_, name), (count, time_, flop) in per_stage.items():
        if count == 0:
            continue
        e = events.setdefault(name, dict(count=0, time=0.0, flop=0.0))
        e['count'] += count
        e['time'] += time_
        e['flop'] += flop
    return events, (max(stage_time.values()) if stage_time else None)


def parse_output(text):
    res = {}
    m = None
    for m in re.finditer(r'Linear solve (converged|did not converge|diverged) due to (\S+) iterations (\d+)', text):
        pass
    if m:
        res['reason'] = m.group(2)
        res['converged'] = m.group(1) == 'converged'
        res['iterations'] = int(m.group(3))
    else:
        m2 = re.search(r'(?:^Iterations|Number of iterations =)\s*(\d+)', text, re.M)
        if m2:
            res['iterations'] = int(m2.group(1))
    unused = re.findall(r'Option left: name:(\S+)', text)
    if unused:
        res['unused_options'] = unused
    errs = [l.strip() for l in text.splitlines() if 'PETSC ERROR' in l]
    if errs:
        boiler = re.compile(r'PETSC ERROR:\s*(#|See |Configure|Petsc Release|.*on a .*named|-{5,}|Fix |Option left|Run with|or see|or try|'
                            r'Libraries linked|PETSc Option|Try option|configure using|to get more|and run|The EXACT line|'
                            r'is given\.|likely location|INSTEAD the line|\[0\] |-\S+ |$)')
        keep = [re.sub(r'^\[\d+\]PETSC ERROR:\s*', '', l) for l in errs if not boiler.search(l)]
        res['error'] = ' | '.join(dict.fromkeys(keep or errs).keys()).strip()[:400]
    return res


def cpu_model():
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown'


def cache_bytes(level):
    best = 0
    for i in range(8):
        base = '/sys/devices/system/cpu/cpu0/cache/index%d/' % i
        try:
            if int(open(base + 'level').read()) != level:
                continue
            s = open(base + 'size').read().strip()
        except (OSError, ValueError):
            continue
        mult = {'K': 1024, 'M': 1024 ** 2}.get(s[-1], 1)
        best = max(best, int(s.rstrip('KM')) * mult)
    return best


def mem_total_gib():
    try:
        for line in open('/proc/meminfo'):
            if line.startswith('MemTotal'):
                return round(int(line.split()[1]) / 1024 ** 2, 1)
    except OSError:
        pass
    return None


def run_stream(quick, timeout):
    res = {}
    if not os.access(STREAM, os.X_OK):
        return {'error': '%s is missing (make bench builds it)' % os.path.relpath(STREAM, ROOT)}
    for kind, extra in (('dram', []), ('cache', ['-n', '2000000'])):
        for t in (1, 2):
            cmd = [STREAM, '-repeat', '5' if quick else '20'] + extra
            try:
                p = subprocess.run(cmd, env=base_env(t), capture_output=True, text=True, timeout=timeout)
                m = re.search(r'^STREAM .*$', p.stdout, re.M)
            except subprocess.TimeoutExpired:
                m = None
            if not m:
                res['%s_t%d' % (kind, t)] = {'error': 'stream failed'}
                continue
            d = dict(kv.split('=', 1) for kv in m.group(0).split()[1:])
            res['%s_t%d' % (kind, t)] = {k: (float(v) if re.match(NUM + '$', v) else v) for k, v in d.items()}
            res['%s_t%d' % (kind, t)]['loadavg'] = round(os.getloadavg()[0], 2)
            print('  STREAM %-5s threads=%d: copy %.1f GB/s, triad %.1f GB/s (3 x %.0f MB)' %
                  (kind, t, float(d['copy_GBs']), float(d['triad_GBs']), float(d['array_mb'])), flush=True)
    return res


def merge_stream(old, new):
    """the better of two STREAM measurements of each kind (the machine may be shared: the best is the least disturbed)"""
    out = dict(old)
    for k, v in new.items():
        if 'triad_GBs' in v and ('triad_GBs' not in out.get(k, {}) or v['triad_GBs'] > out[k]['triad_GBs']):
            out[k] = v
    return out


def fmt(x, spec='%.3g', none='-'):
    return none if x is None else spec % x


def ms(x):
    if x is None:
        return '-'
    return '%.3g' % (1e3 * x)


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def lib_mtime():
    """when lib/libpetscgilu.so was built: the report warns when the runs used different builds"""
    try:
        return datetime.datetime.fromtimestamp(os.path.getmtime(os.path.join(ROOT, 'lib', 'libpetscgilu.so'))).isoformat(timespec='seconds')
    except OSError:
        return None


def petsc_version():
    try:
        for line in open(os.path.join(BUILD, 'lib', 'petscgilu', 'conf', 'petscgiluvariables')):
            m = re.match(r'(PETSC_VERSION|PETSCGILU_VERSION)\s*=\s*(\S+)', line)
            if m:
                yield m.group(1), m.group(2)
    except OSError:
        return
