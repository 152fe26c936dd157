"""What the benchmark scripts share: where they write (build/bench/results/, or bench/results/ when publishing),
PETSc's tutorials built unchanged, and writing a result as STEM.json and STEM.md."""
import json
import os
import re
import shutil
import socket
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# every run writes here (git-ignored); --publish then copies its report to bench/results/ (publish())
RESULTS = os.path.join(ROOT, 'build', 'bench', 'results')
PUBLISHED = os.path.join(ROOT, 'bench', 'results')
PETSC_DIR = os.environ.get('PETSC_DIR', '/usr/lib/petsc')
PETSC_ARCH = os.environ.get('PETSC_ARCH', '')


def default_stem(name):
    """RESULTS/name, the folder made if needed"""
    os.makedirs(RESULTS, exist_ok=True)
    return os.path.join(RESULTS, name)


def add_tutorial_suite_options(ap):
    """the options of a suite that runs PETSc's tutorials in alternated rounds (tutorials.py, distributed.py)"""
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--repeat', type=int, default=3, help='rounds (alternated); the best is reported')
    ap.add_argument('--only', help='regular expression on tutorial/n/config')
    ap.add_argument('--out', help='output stem')
    add_publish_option(ap)
    ap.add_argument('--report-only', metavar='FILE.json', help='write the report of a finished run again')


def rewrite_report(a, write_report):
    """--report-only: write_report(res, stem, publish) of the finished run's FILE.json; whether it was asked for"""
    if not a.report_only:
        return False
    with open(a.report_only) as f:
        res = json.load(f)
    write_report(res, a.out or default_stem(os.path.splitext(os.path.basename(a.report_only))[0]), a.publish)
    return True


def suite_stem(a, suite, date):
    """--out, else RESULTS/<date>-<host>-<suite>[-quick]"""
    return a.out or default_stem('%s-%s-%s%s' % (date.strftime('%Y-%m-%d'), socket.gethostname(), suite, '-quick' if a.quick else ''))


def add_publish_option(ap):
    ap.add_argument('--publish', action='store_true',
                    help='make this report the one of its suite in bench/results/ (replacing the suite\'s earlier report there; '
                    'their history is in git)')


def _suite(name):
    """the part of a report file's name after its date and host, without the extension ('distributed', 'tutorials-targets',
    '' for make bench's main report); None for a file that is not a dated report (gpu-validate-*: the GPU runs' records)"""
    m = re.match(r'^\d{4}-\d{2}-\d{2}-[^-.]+(?:-(.*?))?\.[^.]+$', name)
    return (m.group(1) or '') if m else None


def publish(files):
    """Copies files (a report, its .json and plots) to bench/results/. make bench's main report replaces every dated
    report there; a suite's report replaces that suite's earlier report and plots (files of the same suite or of the
    same names after the date and host) and leaves the other suites'. The gpu-validate records always stay. Returns the
    copies"""
    os.makedirs(PUBLISHED, exist_ok=True)
    new = [_suite(os.path.basename(f)) for f in files if os.path.isfile(f)]
    key = new[0] if new else None
    for f in os.listdir(PUBLISHED):
        s = _suite(f)
        if s is None or key is None or not os.path.isfile(os.path.join(PUBLISHED, f)):
            continue
        if key == '' or s == key or s in new or (key and s.startswith(key + '-')):
            os.remove(os.path.join(PUBLISHED, f))
    copies = []
    for f in files:
        if os.path.isfile(f):
            copies.append(shutil.copy(f, PUBLISHED))
    print('published to %s: %s (review and commit them with git add -A bench/results)' %
          (os.path.relpath(PUBLISHED, ROOT), ', '.join(os.path.basename(c) for c in copies)))
    return copies


def publish_stem(stem, plots=()):
    """publish() STEM.md, STEM.json and the plots STEM<suffix> (suffixes such as '-apply.png') that a script wrote"""
    return publish([stem + '.md', stem + '.json'] + [stem + p for p in plots])


def petscvar(name):
    with open(os.path.join(PETSC_DIR, PETSC_ARCH, 'lib', 'petsc', 'conf', 'petscvariables')) as f:
        for line in f:
            m = re.match(r'^%s\s*=\s*(.*)$' % name, line)
            if m:
                return m.group(1).strip()
    return ''


def build_petsc_example(src):
    """PETSc's example src (e.g. 'ksp/ksp/tutorials/ex45.c'), built unchanged with PETSc's compiler and flags into
    build/bench/ (as tests/petsc-examples/run does); returns the executable (built once)"""
    exe = os.path.join(ROOT, 'build', 'bench', os.path.splitext(src)[0].replace('/', '_'))
    if os.path.exists(exe):
        return exe
    for d in ['share/petsc/examples/src', os.path.join(PETSC_ARCH, 'share/petsc/examples/src'), 'src']:
        path = os.path.join(PETSC_DIR, d, src)
        if os.path.exists(path):
            break
    else:
        raise SystemExit('PETSc example %s not found under %s (Debian: libpetsc3.18-dev-examples)' % (src, PETSC_DIR))
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = '%s -O2 %s %s -o %s %s -lm' % (petscvar('PCC'), petscvar('PETSC_CC_INCLUDES'), path, exe, petscvar('PETSC_WITH_EXTERNAL_LIB'))
    subprocess.run(cmd, shell=True, check=True)
    return exe


def write(stem, res, lines, publish=False, plots=()):
    """res as STEM.json, the markdown lines as STEM.md (the folder made if needed); the lines are printed too.
    publish: then the two files and the plots STEM<suffix> the script drew replace the suite's report in bench/results/."""
    os.makedirs(os.path.dirname(stem) or '.', exist_ok=True)
    with open(stem + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    with open(stem + '.md', 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))
    if publish:
        publish_stem(stem, plots)


def _md_section(path, heading):
    """The lines of the markdown file path's level-2 section whose heading starts with heading, up to the next level-2
    heading, its headings one level down (to sit inside a level-2 section); [] when the file or the section is missing"""
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f.read().splitlines():
            if line.startswith('## '):
                if out:
                    break
                if line.startswith(heading):
                    out.append('#' + line)
            elif out:
                out.append('#' + line if line.startswith('#') else line)
    return out


def gpu_perf_section(folder=PUBLISHED):
    """The GPU section's measurements: the latest make gpu-perf report in folder (gpu-perf-<date>-<host>.json, written by
    bench/gpu/perf on a GPU machine) as markdown lines, per case StructILU's apply and factorization kernels against
    cuSPARSE's in GB/s of compulsory bytes and the speedup, its plot, then the report's general-sparse part (its tables
    and its plot, as bench/gpu/perf wrote them in the .md: one writer of those tables); [] when there is none"""
    import glob
    files = sorted(glob.glob(os.path.join(folder, 'gpu-perf-*.json')))
    if not files:
        return []
    stem = files[-1][:-5]
    with open(files[-1]) as f:
        res = json.load(f)
    dev = res.get('device', {})
    if res.get('backend') != 'cuda':
        return []

    def rate(b, f, g):
        return (b[0] + b[1]) / ((f[0] + g[0]) * 1e-3) / 1e9 if f[0] > 0 and g[0] > 0 else None

    def fmt(x, spec='%.0f'):
        return spec % x if x else '-'

    L = ['## Measured on a GPU: `make gpu-perf`', '',
         'From [%s](%s) (%s, %s, petscgilu %s): kernel times only (CUDA events), the smallest over the repetitions; GB/s of '
         'one apply = compulsory bytes of both sweeps / their time; peak %.0f GB/s read from the device (memory clock x bus '
         'width), a device-to-device copy reached %.0f GB/s.' % (os.path.basename(files[-1])[:-5] + '.md', os.path.basename(files[-1])[:-5] + '.md',
                                                                  dev.get('name', '?'), res.get('date', '?'), res.get('commit', '?'),
                                                                  dev.get('peak_GBs', 0), dev.get('copy_GBs', 0)), '',
         '| case | unknowns | StructILU apply ms | GB/s | of peak | model ms | cuSPARSE CSR apply ms | GB/s | BSR apply ms | GB/s | speedup | StructILU factor ms | CSR factor ms | BSR factor ms |',
         '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for r in res.get('runs', []):
        s = r['structilu']
        sa = s['forward_ms'][0] + s['backward_ms'][0]
        sr = rate(s['bytes'], s['forward_ms'], s['backward_ms'])
        cells = []
        best = None
        for key in ('csr', 'bsr'):
            c = r.get(key)
            if c:
                t = c['lower_ms'][0] + c['upper_ms'][0]
                best = t if best is None or t < best else best
                cells += [fmt(t, '%.3f'), fmt(rate(c['bytes'], c['lower_ms'], c['upper_ms']))]
            else:
                cells += ['-', '-']
        peak = dev.get('peak_GBs', 0)
        L.append('| %s DoF %d %s %s | %.3g | %.3f | %s | %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['stencil'], r['dof'], 'x'.join(str(n) for n in r['n']), r.get('mapping', ''), r['unknowns'], sa, fmt(sr),
            '%.0f%%' % (100 * sr / peak) if sr and peak else '-', r['model']['apply_us'] / 1e3, cells[0], cells[1], cells[2], cells[3],
            '%.2f' % (best / sa) if best and sa > 0 else '-', fmt(s['factor_ms'][0], '%.3f'),
            fmt((r.get('csr') or {}).get('factor_ms', [0])[0], '%.3f'), fmt((r.get('bsr') or {}).get('factor_ms', [0])[0], '%.3f')))
    L.append('')
    if os.path.exists(stem + '.png'):
        L += ['![StructILU and cuSPARSE: GB/s against unknowns](%s)' % os.path.basename(stem + '.png'), '']
    if res.get('sparse_runs'):
        # the .md's section ends with its plot's line (the image, or why there is none); an image whose file was not
        # published with the report is left out rather than linked broken
        L += [x for x in _md_section(stem + '.md', '## General sparse')
              if not (x.startswith('![') and x.endswith('-sparse.png)') and not os.path.exists(stem + '-sparse.png'))]
    return L
