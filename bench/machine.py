"""bench/machine.py: what every benchmark script needs of the machine and of PETSc's output: the environment of a
run (threads, Open MPI as root), running a command with a timeout, mpiexec, STREAM, the CPU and its caches, and the
parsing of -log_view and -ksp_converged_reason. Standard library only."""

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
EVENT_RE = re.compile(r'^(\S+)\s+(\d+)\s+(' + NUM + r')\s+(' + NUM + r')\s+(' + NUM + r')\s+(' + NUM + r')\s+(' + NUM + r')(\s+' + NUM + r'){8,}\s*$')


def parse_log_view(text):
    """events of every stage: name -> {count (max over ranks), time (max over ranks, s), flop (max)}; summed over stages"""
    events = {}
    in_events = False
    for line in text.splitlines():
        if line.startswith('Event ') and 'Count' in line:
            in_events = True
            continue
        if line.startswith('Object Type') or line.startswith('Memory usage is given in bytes'):
            in_events = False
        if not in_events:
            continue
        m = EVENT_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        e = events.setdefault(name, dict(count=0, time=0.0, flop=0.0))
        e['count'] += int(m.group(2))
        e['time'] += float(m.group(4))
        e['flop'] += float(m.group(6))
    total = None
    m = re.search(r'^Time \(sec\):\s+(' + NUM + ')', text, re.M)
    if m:
        total = float(m.group(1))
    return events, total


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
