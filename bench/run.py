#!/usr/bin/env python3
"""petscgilu benchmark driver: structilu against PETSc's preconditioners, measured in the same run.

    bench/run.py [--size quick|full] [--resume] [--only REGEX] [--configs LIST] [--timeout S]
                 [--nnz N] [--out STEM] [--no-plots] [--report-only FILE.json] [--list] [--publish]

For each problem (stencil, DoF) and each preconditioner configuration it runs a PETSc program
(tests/ex1: generic stencil problems, GMRES; tutorials/ex1: 3D Poisson, CG) with
-log_view (PETSc's CSV, one file per run), -ksp_converged_reason and a fixed relative tolerance, reads the events, the iterations
and the peak memory, and writes

    build/bench/results/<date>-<host>[-quick].json   every case, written after each case (--resume skips
                                                     the cases already in it)
    build/bench/results/<date>-<host>[-quick].md     the report
    build/bench/results/<date>-<host>[-quick]-*.png  plots, when matplotlib is available
    build/bench/results/<date>-<host>[-quick]-<suite>.{json,md,png}   the feature suites

--publish (make bench PUBLISH=1) then makes a complete run's report, its data and plots the one report in
bench/results/, the dated reports there before removed (their history is in git; the gpu-validate records stay).

Standard library only (plots: bench/plot.py, run with an interpreter that has matplotlib).
See bench/README.md for what is measured and the bandwidth model.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import report  # bench/report.py: where results go
from machine import (NUM, base_env, cache_bytes, cpu_model, fmt, launcher, lib_mtime, mem_total_gib, merge_stream, ms,  # noqa: F401
                     log_view_csv, parse_output, petsc_version, ratio, read_log_view_csv, run_cmd, run_stream, timer_prefix)

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(ROOT, 'build')
EX1 = os.path.join(BUILD, 'tests', 'tests', 'ex1')
POISSON = os.path.join(BUILD, 'tests', 'tutorials', 'ex1')
RESULTS = report.RESULTS

# events read from the -log_view CSV (every other event is kept too)
EVENTS = ['PCSetUp', 'PCApply', 'MatSolve', 'MatLUFactorNum', 'MatILUFactorSym', 'MatICCFactorSym',
          'MatCholFctrNum', 'KSPSolve', 'MatMult', 'GILUStencilExtr', 'StructILUFactor', 'StructILUApply']

# the feature suites: scripts beside this one, each run as `<script> [--quick] --out STEM`, writing STEM.json,
# STEM.md (its section of the report, headed by a level-1 title) and STEM-*.png; run after the structilu cases,
# resumable like them (key suite/<id>), their sections and plots appended to the report
SUITES = [
    dict(id='matrices', script='matrices.py', title='All preconditioners on the generated test-matrix suite'),
    dict(id='sptrsv', script='sptrsv.py', title='Triangular-solve engine and MatSolverType gilu (the Block SpTRSV paper)'),
    dict(id='atsilu', script='atsilu.py', title='PCATSILU: ATS-ILU(k), ATS-ILUT, ParILU(T) (the ATS-ILU paper)'),
    dict(id='sparsify', script='sparsify.py', title='PCSPARSIFY: SPCG (the SPCG paper)'),
    dict(id='fgdd', script='fgdd.py', title='PCFGDD: fine-grained domain decomposition (the FGDD paper)'),
    dict(id='busycore', script='busycore.py', title='Host threads beside a busy core (2-thread / 1-thread apply <= 1.25)'),
    dict(id='memory', script='memory.py', title="Peak memory of every preconditioner against PETSc's ILU(0) (ksp ex45)"),
    dict(id='tutorials', script='tutorials.py', title="Host speed on PETSc's tutorials ksp ex45 and snes ex19 against PETSc's ILU(0)"),
    dict(id='distributed', script='distributed.py', title='PCSTRUCTILU across processes (-pc_structilu_distributed) against block Jacobi'),
    dict(id='matapply', script='matapply.py', title='Blocks of right-hand sides: PCMatApply() against PCApply() of each column'),
]

# --------------------------------------------------------------------------------------------- problems
STENCILS = ['star7', 'star13', 'diamond13', 'diamond25', 'box27']
DOFS = [1, 2, 4, 8]
# the 3D offsets of each stencil of tests/ex1 (same definitions as its InPattern())


def stencil_offsets(name):
    offs = []
    for dz in range(-2, 3):
        for dy in range(-2, 3):
            for dx in range(-2, 3):
                d = (dx, dy, dz)
                l1 = sum(abs(c) for c in d)
                linf = max(abs(c) for c in d)
                naxes = sum(1 for c in d if c)
                if name == 'star7':
                    ok = l1 <= 1
                elif name == 'star13':
                    ok = naxes <= 1 and linf <= 2
                elif name == 'box27':
                    ok = linf <= 1
                elif name == 'diamond13':
                    ok = l1 <= 1 or (naxes == 2 and linf == 1 and sum(d) == 0)
                elif name == 'diamond25':
                    ok = l1 <= 2
                else:
                    raise ValueError(name)
                if ok:
                    offs.append(d)
    return offs


def grid_size(target_nnz, ns, dof, nmin):
    """N such that N^3 points with ns blocks of dof x dof per row hold about target_nnz nonzeros"""
    return max(nmin, int(round((target_nnz / (ns * dof * dof)) ** (1.0 / 3.0))))


def make_problems(size, target_nnz):
    nmin = 6
    probs = []
    quick = size == 'quick'  # bench-quick checks that everything runs: three stencils, DoF 1 and 4
    for st in (['star7', 'diamond13', 'box27'] if quick else STENCILS):
        ns = len(stencil_offsets(st))
        for dof in ([1, 4] if quick else DOFS):
            n = grid_size(target_nnz, ns, dof, nmin)
            probs.append(dict(id='%s-dof%d' % (st, dof), program='tests/ex1', stencil=st, dof=dof, N=n,
                              symmetric=False, ksp='gmres', title='tests/ex1 %s DoF %d, %d^3, GMRES(30)' % (st, dof, n)))
    n = grid_size(target_nnz, 7, 1, nmin)
    probs.append(dict(id='star7-dof1-sym', program='tests/ex1', stencil='star7', dof=1, N=n, symmetric=True, ksp='cg',
                      title='tests/ex1 star7 DoF 1 symmetric (-symmetric), %d^3, CG' % n))
    n = 100 if size == 'full' else grid_size(target_nnz, 7, 1, nmin)
    probs.append(dict(id='poisson-star7', program='tutorials/ex1', stencil='star7', dof=1, N=n, symmetric=True, ksp='cg',
                      headline=True, title='tutorials/ex1 3D Poisson star-7 DoF 1, %d^3, CG (headline)' % n))
    return probs


def problem_args(p):
    n = str(p['N'])
    grid = ['-da_grid_x', n, '-da_grid_y', n, '-da_grid_z', n]
    if p['program'] == 'tests/ex1':
        a = ['-dim', '3', '-stencil', p['stencil'], '-dof', str(p['dof'])] + grid
        if p['symmetric']:
            a.append('-symmetric')
        return EX1, a + ['-ksp_type', p['ksp']] + (['-ksp_gmres_restart', '30'] if p['ksp'] == 'gmres' else [])
    return POISSON, grid + ['-ksp_type', p['ksp']]


# ---------------------------------------------------------------------------------------- configurations
# the problems the MatMult configurations run on: the headline and two tests/ex1 ones (DMDA star and box stencils)
MATMULT_PROBLEMS = ['poisson-star7', 'star7-dof1', 'box27-dof4']

# model: 'structilu' | 'aij' | 'baij' | None (no bandwidth model); base: the configuration ratios are taken against
CONFIGS = [
    dict(id='structilu-t1', label='structilu', pc=['-pc_type', 'structilu'], threads=1, np=1, model='structilu', base='ilu', same_its=True),
    dict(id='structilu-t2', label='structilu', pc=['-pc_type', 'structilu'], threads=2, np=1, model='structilu', base='ilu', same_its=True),
    dict(id='ilu', label='PETSc ilu (AIJ)', pc=['-pc_type', 'ilu'], threads=1, np=1, model='aij', base=None),
    dict(id='ilu-baij', label='PETSc ilu (BAIJ)', pc=['-pc_type', 'ilu', '-dm_mat_type', 'baij'], threads=1, np=1, model='baij', base='ilu',
         same_its=True),
    dict(id='icc', label='PETSc icc', pc=['-pc_type', 'icc'], threads=1, np=1, model=None, base='ilu', symmetric_only=True),
    dict(id='bjacobi-np2', label='bjacobi+ilu 2 ranks', pc=['-pc_type', 'bjacobi', '-sub_pc_type', 'ilu'], threads=1, np=2,
         model='aij', base='ilu'),
    dict(id='hypre-euclid', label='hypre euclid', pc=['-pc_type', 'hypre', '-pc_hypre_type', 'euclid'], threads=1, np=1, model=None, base='ilu'),
    # pilut's factors are not symmetric: CG with them does not converge (the 100^3 Poisson run hit the timeout)
    dict(id='hypre-pilut', label='hypre pilut', pc=['-pc_type', 'hypre', '-pc_hypre_type', 'pilut'], threads=1, np=1, model=None, base='ilu',
         nonsymmetric_only=True),
    dict(id='hypre-boomeramg', label='hypre boomeramg', pc=['-pc_type', 'hypre', '-pc_hypre_type', 'boomeramg'], threads=1, np=1,
         model=None, base='ilu'),
    # optional: run only when the probe finds the option known to this build
    dict(id='structilu-l1-t2', label='structilu ILU(1)', pc=['-pc_type', 'structilu', '-pc_structilu_levels', '1'], threads=2, np=1,
         model=None, base='ilu-l1', probe='levels', same_its=True),
    dict(id='ilu-l1', label='PETSc ilu(1) (AIJ)', pc=['-pc_type', 'ilu', '-pc_factor_levels', '1'], threads=1, np=1, model=None, base=None,
         probe='levels'),
    dict(id='structilu-single-t2', label='structilu single', pc=['-pc_type', 'structilu', '-pc_structilu_factor_precision', 'single'],
         threads=2, np=1, model='structilu-single', base='ilu', probe='single', same_its=True),
    # MatMult of the matrix types, on a few problems only (PCJACOBI keeps the preconditioner out of the way): matmult = the
    # matrix type, whose MatMult time per call is compared with that of matmult-aij in the same run
    dict(id='matmult-stencilgpu-t1', label='MatMult stencilgpu', pc=['-dm_mat_type', 'stencilgpu', '-pc_type', 'jacobi'], threads=1, np=1,
         model=None, base=None, matmult='stencilgpu', problems=MATMULT_PROBLEMS),
    dict(id='matmult-stencilgpu-t2', label='MatMult stencilgpu', pc=['-dm_mat_type', 'stencilgpu', '-pc_type', 'jacobi'], threads=2, np=1,
         model=None, base=None, matmult='stencilgpu', problems=MATMULT_PROBLEMS),
    dict(id='matmult-aij', label='MatMult AIJ', pc=['-dm_mat_type', 'aij', '-pc_type', 'jacobi'], threads=1, np=1,
         model=None, base=None, matmult='aij', problems=MATMULT_PROBLEMS),
    dict(id='matmult-aij-t2', label='MatMult AIJ', pc=['-dm_mat_type', 'aij', '-pc_type', 'jacobi'], threads=2, np=1,
         model=None, base=None, matmult='aij', problems=MATMULT_PROBLEMS),
]
PROBES = {
    'levels': ['-pc_type', 'structilu', '-pc_structilu_levels', '1'],
    'single': ['-pc_type', 'structilu', '-pc_structilu_factor_precision', 'single'],
}


def config_desc(c):
    return '%s %s' % (c['label'], 'threads=%d' % c['threads'] if c['np'] == 1 else 'np=%d' % c['np'])


# -------------------------------------------------------------------------------------------- running


def run_case(prob, cfg, size, timeout, logdir):
    exe, args = problem_args(prob)
    key = '%s/%s' % (prob['id'], cfg['id'])
    tag = key.replace('/', '__')
    lv, lv_opts = log_view_csv(logdir, tag)
    outp = os.path.join(logdir, tag + '.out.txt')
    tim = os.path.join(logdir, tag + '.time.txt')
    if os.path.exists(tim):
        os.remove(tim)
    opts = args + ['-ksp_rtol', '1e-8', '-ksp_max_it', '5000', '-ksp_converged_reason', '-options_left'] + lv_opts + cfg['pc']
    cmd = timer_prefix(tim) + launcher(cfg['np']) + [exe] + opts
    rec = dict(key=key, problem=prob['id'], config=cfg['id'], size=size, N=prob['N'], stencil=prob['stencil'], dof=prob['dof'],
               threads=cfg['threads'], np=cfg['np'], command=' '.join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd),
               load_before=round(os.getloadavg()[0], 2), log=os.path.relpath(outp, ROOT), lib_mtime=lib_mtime())
    rc, wall = run_cmd(cmd, base_env(cfg['threads']), timeout, outp)
    rec['wall_s'] = round(wall, 3)
    rec['rc'] = rc
    try:
        text = open(outp, errors='replace').read()
    except OSError:
        text = ''
    rec.update(parse_output(text))
    if os.path.exists(lv):
        events, total = read_log_view_csv(lv)
        rec['events'] = events
        rec['time_total'] = total
    signame = None
    if os.path.exists(tim):
        ttext = open(tim).read()
        m = re.search(r'maxrss_kb=(\d+)', ttext)
        if m:
            rec['maxrss_kb'] = int(m.group(1))
        m = re.search(r'terminated by signal (\d+)', ttext)
        if m:
            signame = int(m.group(1))
    if rc is not None and rc < 0:
        signame = -rc
    if signame:
        try:
            signame = '%d (%s)' % (signame, signal.Signals(signame).name)
        except ValueError:
            pass
    if rc is None:
        rec['status'] = 'timeout'
        rec['error'] = 'killed after %d s' % timeout
    elif rc != 0:
        rec['status'] = 'error'
        if 'error' not in rec:
            tail = [l for l in text.splitlines() if l.strip()][-3:]
            rec['error'] = ('killed by signal %s' % signame if signame else 'exit %d' % rc) + (': ' + ' | '.join(tail)[:400] if tail else '')
    elif not rec.get('converged', False):
        rec['status'] = 'not converged'
        rec['error'] = rec.get('reason', 'no convergence reason printed')
    elif 'events' not in rec:
        rec['status'] = 'error'
        rec['error'] = 'no -log_view output'
    elif rec.get('unused_options'):
        rec['status'] = 'option ignored'
        rec['error'] = 'unused options: ' + ' '.join(rec['unused_options'])
    else:
        rec['status'] = 'ok'
    rec['loadavg_after'] = round(os.getloadavg()[0], 2)
    derive(rec, prob, cfg)
    return rec


# ----------------------------------------------------------------------------------------- the models
def nnz_and_points(prob, np_=1):
    offs = stencil_offsets(prob['stencil'])
    n = prob['N']
    blocks = 0
    for d in offs:
        blocks += (n - abs(d[0])) * (n - abs(d[1])) * (n - abs(d[2]))
    return blocks, n ** 3, len(offs)


def model_bytes(model, prob):
    """bytes one preconditioner application must move (see bench/README.md)"""
    blocks, npts, ns = nnz_and_points(prob)
    dof = prob['dof']
    nrows = npts * dof
    vec = 3 * nrows * 8
    if model == 'matmult':  # the stored blocks of every stencil offset and point, read x, write y
        return ns * dof * dof * 8 * npts + 2 * 8 * nrows
    if model == 'structilu':
        return (ns * dof * dof + dof * dof) * 8 * npts + vec
    if model == 'structilu-single':
        return (ns * dof * dof + dof * dof) * 4 * npts + vec
    if model == 'aij':  # values + 4-byte column indices + row pointers (i and diag)
        nnz = blocks * dof * dof
        return nnz * (8 + 4) + 2 * (nrows + 1) * 4 + vec
    if model == 'baij':  # values + one 4-byte block column index per block + block row pointers
        return blocks * dof * dof * 8 + blocks * 4 + 2 * (npts + 1) * 4 + vec
    return None


def ev(rec, name, field='time'):
    e = rec.get('events', {}).get(name)
    return e[field] if e else None


def derive(rec, prob, cfg):
    """per-apply times, setup+solve and the bandwidth model of one record"""
    t_setup = ev(rec, 'PCSetUp')
    t_solve = ev(rec, 'KSPSolve')
    napply = ev(rec, 'PCApply', 'count')
    if napply:
        rec['apply_s'] = ev(rec, 'PCApply') / napply
    if ev(rec, 'MatSolve', 'count'):
        rec['matsolve_s'] = ev(rec, 'MatSolve') / ev(rec, 'MatSolve', 'count')
    if ev(rec, 'StructILUApply', 'count'):
        rec['structilu_apply_s'] = ev(rec, 'StructILUApply') / ev(rec, 'StructILUApply', 'count')
    rec['setup_s'] = t_setup
    rec['solve_s'] = t_solve
    # PETSc 3.18 logs the PCSetUp that KSPSolve triggers outside the KSPSolve event
    rec['setup_solve_s'] = (t_setup or 0.0) + t_solve if t_solve is not None else None
    if ev(rec, 'MatMult', 'count'):
        rec['matmult_s'] = ev(rec, 'MatMult') / ev(rec, 'MatMult', 'count')
        if cfg.get('matmult'):
            rec['matmult_bytes'] = model_bytes('matmult', prob)
            rec['matmult_GBs'] = rec['matmult_bytes'] / rec['matmult_s'] / 1e9
    model = cfg.get('model')
    if model:
        rec['model_bytes'] = model_bytes(model, prob)
        # the kernel's own time when it has one: MatSolve for PETSc's factors, StructILUApply for structilu
        t = rec.get('structilu_apply_s') if model.startswith('structilu') else rec.get('matsolve_s')
        t = t or rec.get('apply_s')
        if t:
            rec['model_time_s'] = t
            rec['achieved_GBs'] = rec['model_bytes'] / t / 1e9


# ------------------------------------------------------------------------------------------ machine


def triad(data, threads):
    s = data['meta'].get('stream', {}).get('dram_t%d' % threads, {})
    return s.get('triad_GBs')


def probe_options(logdir):
    """which optional options this build knows: a tiny solve with -options_left must use them and succeed"""
    res = {}
    for name, opts in PROBES.items():
        out = os.path.join(logdir, 'probe-%s.txt' % name)
        cmd = [EX1, '-da_grid_x', '6', '-da_grid_y', '6', '-da_grid_z', '6', '-ksp_converged_reason', '-options_left'] + opts
        rc, _ = run_cmd(cmd, base_env(1), 60, out)
        info = parse_output(open(out, errors='replace').read())
        if rc == 0 and not info.get('unused_options') and info.get('converged'):
            res[name] = dict(ok=True, note='%s: supported' % ' '.join(opts[2:]))
        else:
            if info.get('unused_options'):
                note = 'not known to this build (unused option): its configurations are skipped'
            else:
                note = ('known to this build, but a 6^3 star7 solve with it failed (%s): its configurations are skipped' %
                        (info.get('error') or ('exit %s' % rc if rc is not None else 'timeout')))
            res[name] = dict(ok=False, note='%s: %s' % (' '.join(opts[2:]), note))
    # what structilu says about its back-end and threads (-ksp_view), 2 threads
    out = os.path.join(logdir, 'probe-view.txt')
    run_cmd([EX1, '-da_grid_x', '6', '-da_grid_y', '6', '-da_grid_z', '6', '-pc_type', 'structilu', '-ksp_view'], base_env(2), 60, out)
    lines = [l.strip() for l in open(out, errors='replace') if re.search(r'thread|back-end|backend', l, re.I)]
    res['view'] = lines[:6]
    return res


# ------------------------------------------------------------------------------------------- results
def save(data, path):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(data, f, separators=(',', ':'))
    os.replace(tmp, path)


def case_ratios(data, rec, cfg_by_id):
    """apply, setup and setup+solve speedups of rec against its base configuration on the same problem"""
    cfg = cfg_by_id.get(rec['config'])
    if not cfg or not cfg.get('base') or rec.get('status') != 'ok':
        return None, None, None, None
    base = data['cases'].get('%s/%s' % (rec['problem'], cfg['base']))
    if not base or base.get('status') != 'ok':
        return None, None, None, None
    same = None
    if cfg.get('same_its') and rec.get('iterations') is not None:
        same = rec.get('iterations') == base.get('iterations')
    return (ratio(base.get('apply_s'), rec.get('apply_s')), ratio(base.get('setup_s'), rec.get('setup_s')),
            ratio(base.get('setup_solve_s'), rec.get('setup_solve_s')), same)


def bw_fraction(data, rec):
    if rec.get('status') != 'ok' or not rec.get('achieved_GBs'):
        return None
    t = triad(data, rec['threads'] * rec['np'])
    return rec['achieved_GBs'] / t if t else None


def headline(data, cfg_by_id):
    probs = [p for p in data['problems'] if p.get('headline')]
    if not probs:
        return None
    p = probs[0]
    s = data['cases'].get('%s/structilu-t2' % p['id'])
    b = data['cases'].get('%s/ilu' % p['id'])
    h = dict(problem=p, s=s, b=b)
    if not s or not b:
        return h
    h['ok'] = s.get('status') == 'ok' and b.get('status') == 'ok'
    if h['ok']:
        h['apply_x'] = ratio(b.get('matsolve_s') or b.get('apply_s'), s.get('apply_s'))
        h['setup_x'] = ratio(b.get('setup_s'), s.get('setup_s'))
        h['solve_x'] = ratio(b.get('setup_solve_s'), s.get('setup_solve_s'))
        h['its_equal'] = s.get('iterations') == b.get('iterations')
        h['bw'] = bw_fraction(data, s)
        h['bw_ilu'] = bw_fraction(data, b)
    return h


# the GPU performance model of PCSTRUCTILU's CUDA back-end (src/pc/structilu/structilu.c, -ksp_view on cuda/cudaemu):
# t = 2 launches x 5 us + (levels of the forward and backward sweeps) x latency + bytes moved / HBM bandwidth
GPU_MODEL = [('H100 SXM', 3350e9, 1e-6), ('H200', 4800e9, 1e-6)]


def hyperplane(prob):
    """integer weights w (w0 = 1) of the smallest hyperplane schedule level = w.(i,j,k) that orders every lower
    offset of the stencil before its point (w.d <= -1), and the number of levels on the N^3 grid"""
    offs = stencil_offsets(prob['stencil'])
    lower = [d for d in offs if (d[2], d[1], d[0]) < (0, 0, 0)]
    best = None
    for w1 in range(1, 13):
        for w2 in range(1, 40):
            w = (1, w1, w2)
            if all(sum(a * b for a, b in zip(w, d)) <= -1 for d in lower):
                lev = sum(w) * (prob['N'] - 1) + 1
                if best is None or lev < best[1]:
                    best = (w, lev)
    return best


def gpu_model_section(data):
    L = ['## Hardware-independent figures and the GPU model', '',
         'For each problem: the hyperplane schedule of PCSTRUCTILU (level = w.(i,j,k), found here as in the library), '
         'its levels per sweep (the critical path of one apply is twice that), the bytes one apply must move, and the apply '
         'time the CUDA back-end\'s performance model predicts (2 launches x 5 us + 2 x levels x 1 us + bytes / HBM bandwidth; '
         'the same model `-ksp_view` prints with `-gilu_backend cuda|cudaemu`), next to the measured host apply (2 threads). '
         'No GPU was available for these runs: the GPU columns are predictions, not measurements.', '',
         '| problem | rows | w | levels | points per level | MB per apply | ' + ' | '.join('%s predicted' % g[0] for g in GPU_MODEL) + ' | host (2 threads) measured |',
         '|---|---:|---|---:|---:|---:|' + '---:|' * len(GPU_MODEL) + '---:|']
    for p in data['problems']:
        hp = hyperplane(p)
        if not hp:
            continue
        w, lev = hp
        b = model_bytes('structilu', p)
        rows = p['N'] ** 3 * p['dof']
        pred = ['%.0f us' % (1e6 * (2 * 5e-6 + 2 * lev * lat + b / bw)) for _, bw, lat in GPU_MODEL]
        s = data['cases'].get('%s/structilu-t2' % p['id'])
        host = ms(s.get('apply_s')) + ' ms' if s and s.get('status') == 'ok' else '-'
        L.append('| %s | %d | (%d,%d,%d) | %d | %.0f | %.1f | %s | %s |' % (p['id'], rows, w[0], w[1], w[2], lev, p['N'] ** 3 / lev, b / 1e6, ' | '.join(pred), host))
    L.append('')
    return L


def yes_no(ok):
    return 'met' if ok else '**not met**'


def write_report(data, stem, plots):
    cfg_by_id = {c['id']: c for c in CONFIGS}
    meta = data['meta']
    st = meta.get('stream', {})
    L = []
    L.append('# petscgilu benchmark: %s, %s, size %s' % (meta['host'], meta['date'], meta['size']))
    L.append('')
    L.append('Generated by `bench/run.py` (`%s`), petscgilu %s, PETSc %s. Times are from `-log_view` '
             '(max over ranks), rtol 1e-8 for every run. Raw data: `%s.json`; logs of every run: `%s/`.' %
             (meta.get('command', ''), meta.get('PETSCGILU_VERSION', '?'), meta.get('PETSC_VERSION', '?'), stem,
              meta.get('logdir', 'build/bench/logs')))
    L.append('')
    if not meta.get('complete', True):
        L.append('> **Interrupted run**: only the cases below were measured; `bench/run.py --resume` completes it.')
        L.append('')
    elif meta.get('elapsed_s'):
        L.append('The %d runs and %d suites took %.0f minutes (STREAM and the probes not counted).' %
                 (len(data['cases']), len(data.get('suites', {})), meta['elapsed_s'] / 60.0))
        L.append('')
    if meta['size'] == 'quick':
        L.append('> **Quick size**: tiny problems that fit in cache and last milliseconds; this checks that the '
                 'harness and every configuration run. Do not read performance from it (`make bench` for that).')
        L.append('')
    # machine
    L.append('## Machine')
    L.append('')
    L.append('- CPU: %s, %s cores, %s GiB memory, L2 %s MiB per core, last-level cache %s MiB' %
             (meta.get('cpu'), meta.get('cores'), meta.get('mem_gib'), fmt(meta.get('l2_bytes', 0) / 2 ** 20, '%.3g'),
              fmt(meta.get('llc_bytes', 0) / 2 ** 20, '%.3g')))
    L.append('- Load average (1 min) when the run started: %s (the machine may be shared; each case records its own in the .json)' %
             fmt(meta.get('loadavg'), '%.2f'))
    rows = []
    for kind, what in (('dram', 'memory (3 arrays >= 4 x last-level cache)'), ('cache', 'cache-resident (3 x 16 MB)')):
        cells = []
        for t in (1, 2):
            r = st.get('%s_t%d' % (kind, t), {})
            cells.append('%s / %s' % (fmt(r.get('copy_GBs'), '%.1f'), fmt(r.get('triad_GBs'), '%.1f')))
        rows.append('| %s | %s | %s |' % (what, cells[0], cells[1]))
    L.append('- STREAM (`bench/stream.c`, best of %s), copy / triad in GB/s:' % ('5' if meta['size'] == 'quick' else '20'))
    L.append('')
    L.append('| arrays | 1 thread | 2 threads |')
    L.append('|---|---|---|')
    L += rows
    L.append('')
    L.append('The bandwidth fractions below divide by the *memory* triad of the same thread count (processes x threads). '
             'A working set smaller than the last-level cache can exceed 100%; such cases are marked with `c`.')
    L.append('')
    # headline
    h = headline(data, cfg_by_id)
    L.append('## Headline: 3D Poisson, star-7, DoF 1, 2 threads')
    L.append('')
    if h is None or not h.get('s') or not h.get('b'):
        L.append('The headline case was not run (see `--only`).')
    elif not h.get('ok'):
        L.append('The headline case failed: structilu %s (%s), ilu %s (%s).' % (h['s'].get('status'), h['s'].get('error', ''),
                                                                             h['b'].get('status'), h['b'].get('error', '')))
    else:
        s, b = h['s'], h['b']
        N = h['problem']['N']
        L.append('`tutorials/ex1` at %d^3 (%s unknowns), CG, rtol 1e-8; `-pc_type structilu` with OMP_NUM_THREADS=2 against '
                 '`-pc_type ilu` (AIJ, one process, one thread; PETSc\'s factorization is sequential):' % (N, '{:,}'.format(N ** 3)))
        L.append('')
        L.append('| | structilu (2 threads) | PETSc ilu | speedup | target | |')
        L.append('|---|---|---|---|---|---|')
        L.append('| apply, ms (structilu PCApply vs ilu MatSolve) | %s | %s | %s | >= 3x | %s |' %
                 (ms(s.get('apply_s')), ms(b.get('matsolve_s') or b.get('apply_s')), fmt(h['apply_x'], '%.2fx'),
                  yes_no(h['apply_x'] and h['apply_x'] >= 3)))
        L.append('| bandwidth bound reached by the apply | %s | %s | | >= 70%% | %s |' %
                 (fmt(h['bw'] and 100 * h['bw'], '%.0f%%'), fmt(h['bw_ilu'] and 100 * h['bw_ilu'], '%.0f%%'),
                  yes_no(h['bw'] and h['bw'] >= 0.7)))
        L.append('| setup (PCSetUp), s | %s | %s | %s | >= 3x | %s |' %
                 (fmt(s.get('setup_s'), '%.3f'), fmt(b.get('setup_s'), '%.3f'), fmt(h['setup_x'], '%.2fx'),
                  yes_no(h['setup_x'] and h['setup_x'] >= 3)))
        L.append('| whole CG (PCSetUp + KSPSolve), s | %s | %s | %s | >= 2x | %s |' %
                 (fmt(s.get('setup_solve_s'), '%.3f'), fmt(b.get('setup_solve_s'), '%.3f'), fmt(h['solve_x'], '%.2fx'),
                  yes_no(h['solve_x'] and h['solve_x'] >= 2 and h['its_equal'])))
        L.append('| iterations | %s | %s | %s | identical | %s |' %
                 (s.get('iterations'), b.get('iterations'), 'equal' if h['its_equal'] else 'differ', yes_no(h['its_equal'])))
        L.append('')
        met = [h['apply_x'] and h['apply_x'] >= 3, h['bw'] and h['bw'] >= 0.7, h['setup_x'] and h['setup_x'] >= 3,
               h['solve_x'] and h['solve_x'] >= 2 and h['its_equal']]
        t1 = data['cases'].get('%s/structilu-t1' % h['problem']['id'])
        t1txt = ''
        if t1 and t1.get('status') == 'ok' and t1.get('apply_s'):
            t1txt = (' With one thread structilu applies in %s ms (%s x PETSc\'s MatSolve), so 2 threads give %s x over 1 thread.' %
                     (ms(t1['apply_s']), fmt(ratio(b.get('matsolve_s') or b.get('apply_s'), t1['apply_s']), '%.2f'),
                      fmt(ratio(t1['apply_s'], s.get('apply_s')), '%.2f')))
        ex = data['cases'].get('%s/structilu-t2' % h['problem']['id'], {}).get('events', {})
        parts = ['%s %s s' % (k, fmt(ex[k]['time'], '%.3f')) for k in ('GILUStencilExtr', 'StructILUFactor') if k in ex]
        L.append('On 2 threads structilu applies the preconditioner %s x as fast as PETSc\'s ILU(0) MatSolve (%s of the bandwidth bound; '
                 'PETSc reaches %s on one thread), sets up %s x as fast (%s), and the whole CG solve is %s x as fast with %s iterations (%s vs %s).%s '
                 '**%d of the 4 targets met** (apply >= 3x and >= 70%% of the bound, setup >= 3x, CG >= 2x with identical iterations).' %
                 (fmt(h['apply_x'], '%.2f'), fmt(h['bw'] and 100 * h['bw'], '%.0f%%'), fmt(h['bw_ilu'] and 100 * h['bw_ilu'], '%.0f%%'),
                  fmt(h['setup_x'], '%.2f'), ', '.join(parts) or 'no event breakdown', fmt(h['solve_x'], '%.2f'),
                  'identical' if h['its_equal'] else 'different', s.get('iterations'), b.get('iterations'), t1txt,
                  sum(1 for m in met if m)))
        if s.get('load_before', 0) > 0.5 or b.get('load_before', 0) > 0.5:
            L.append('')
            L.append('Note: the load average was %s / %s before these two runs: other work shared the cores, the times may be inflated.' %
                     (s.get('load_before'), b.get('load_before')))
    L.append('')
    if plots:
        L.append('## Plots')
        L.append('')
        for title, fn in plots:
            L.append('![%s](%s)' % (title, fn))
            L.append('')
    # summary table of apply speedups
    have = lambda stn, d, cid: data['cases'].get('%s-dof%d/%s' % (stn, d, cid))  # noqa: E731
    rows = [stn for stn in STENCILS if any(have(stn, d, cid) for d in DOFS for cid in ('structilu-t1', 'structilu-t2'))]
    if rows:
        L.append('## structilu apply speedup over PETSc ilu (AIJ), all problems')
        L.append('')
        L.append('PCApply time per application of PETSc ilu divided by that of structilu; the bandwidth fraction of the structilu apply in brackets.')
        L.append('')
        L.append('| stencil | ' + ' | '.join('DoF %d 1 thr | DoF %d 2 thr' % (d, d) for d in DOFS) + ' |')
        L.append('|---|' + '---|' * (2 * len(DOFS)))
        for stn in rows:
            cells = []
            for d in DOFS:
                for cid in ('structilu-t1', 'structilu-t2'):
                    rec = have(stn, d, cid)
                    if not rec:
                        cells.append('')
                        continue
                    a, _, _, _ = case_ratios(data, rec, cfg_by_id)
                    bw = bw_fraction(data, rec)
                    cells.append('%s (%s)' % (fmt(a, '%.2fx'), fmt(bw and 100 * bw, '%.0f%%')) if rec.get('status') == 'ok' else rec.get('status'))
            L.append('| %s | %s |' % (stn, ' | '.join(cells)))
        L.append('')
    # per problem tables
    L.append('## Per problem')
    L.append('')
    L.append('Columns: iterations; PCSetUp (s); time per preconditioner application = PCApply time / PCApply count (ms); KSPSolve (s); '
             'PCSetUp + KSPSolve (s; PETSc 3.18 logs the setup outside KSPSolve); peak resident memory of the run (MB, whole program, '
             'all ranks\' max); speedups over the configuration named in "vs" (its time / this time; ilu(1) for the ILU(1) rows, '
             'PETSc ilu AIJ otherwise); the fraction of the memory-bandwidth bound of the kernel (model below; `c`: working set '
             'below the last-level cache).')
    L.append('')
    llc = meta.get('llc_bytes', 0)
    for p in data['problems']:
        recs = [data['cases'].get('%s/%s' % (p['id'], c['id'])) for c in CONFIGS]
        recs = [r for r in recs if r]
        if not recs:
            continue
        blocks, npts, ns = nnz_and_points(p)
        L.append('### %s' % p['title'])
        L.append('')
        L.append('%s unknowns, %s nonzeros (%d-point stencil, %dx%d blocks).' %
                 ('{:,}'.format(npts * p['dof']), '{:,}'.format(blocks * p['dof'] ** 2), ns, p['dof'], p['dof']))
        L.append('')
        L.append('| configuration | its | setup s | apply ms | KSPSolve s | setup+solve s | peak MB | vs | apply x | setup x | solve x | BW bound |')
        L.append('|---|---|---|---|---|---|---|---|---|---|---|---|')
        notes = []
        for r in recs:
            c = cfg_by_id[r['config']]
            name = config_desc(c)
            mem = r.get('maxrss_kb')
            if r.get('status') != 'ok':
                L.append('| %s | %s | | | | | %s | | | | | %s |' % (name, r.get('iterations', '-'), fmt(mem and mem / 1024.0, '%.0f'),
                                                                   r.get('status')))
                notes.append('%s: %s (%s)' % (name, r.get('status'), (r.get('error') or '').replace('|', '/')[:300]))
                continue
            a, su, so, same = case_ratios(data, r, cfg_by_id)
            bw = bw_fraction(data, r)
            cache = ' c' if bw and r.get('model_bytes') and r['model_bytes'] < llc else ''
            its = str(r.get('iterations'))
            if same is False:
                its += '*'
            L.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' %
                     (name, its, fmt(r.get('setup_s'), '%.3g'), ms(r.get('apply_s')), fmt(r.get('solve_s'), '%.3g'),
                      fmt(r.get('setup_solve_s'), '%.3g'), fmt(mem and mem / 1024.0, '%.0f'),
                      (c.get('base') or '') if a is not None else '', fmt(a, '%.2f'), fmt(su, '%.2f'), fmt(so, '%.2f'),
                      (fmt(bw and 100 * bw, '%.0f%%') + cache) if bw else '-'))
        L.append('')
        if any(case_ratios(data, r, cfg_by_id)[3] is False for r in recs):
            L.append('`*`: iteration count differs from that of the configuration it is compared with, which should give the same factors.')
            L.append('')
        for n in notes:
            L.append('- %s' % n)
        if notes:
            L.append('')
    # MatMult of the matrix types
    mm = [c for c in CONFIGS if c.get('matmult')]
    rows = []
    for p in data['problems']:
        base = data['cases'].get('%s/matmult-aij' % p['id'])
        for c in mm:
            r = data['cases'].get('%s/%s' % (p['id'], c['id']))
            if not r:
                continue
            if r.get('status') != 'ok' or not r.get('matmult_s'):
                rows.append('| %s | %s | %d | %s | | | | | |' % (p['id'], c['matmult'], c['threads'], r.get('status')))
                continue
            t = triad(data, r['threads'] * r['np'])
            bw = r['matmult_GBs'] / t if t else None
            x = ratio(base.get('matmult_s'), r['matmult_s']) if base and base.get('status') == 'ok' else None
            rows.append('| %s | %s | %d | %s | %d | %.3f | %s | %.2f | %s |' %
                        (p['id'], c['matmult'], c['threads'], r.get('iterations'), ev(r, 'MatMult', 'count'), 1e3 * r['matmult_s'],
                         fmt(x, '%.2fx'), r['matmult_GBs'], fmt(bw and 100 * bw, '%.0f%%')))
    if rows:
        L.append('## MatMult: stencilgpu vs AIJ')
        L.append('')
        L.append('Same problem and options with `-dm_mat_type stencilgpu` and `-dm_mat_type aij` (`-pc_type jacobi`), MatMult time per '
                 'call from `-log_view`; "vs AIJ" = AIJ 1-thread time / this time (PETSc\'s AIJ MatMult is not threaded); '
                 'bytes = `(ns x dof^2 x 8) x npoints + 2 x 8 x n` (the stored blocks of every stencil offset, x read once, y '
                 'written), the bound fraction divides the achieved GB/s by the STREAM triad of the same thread count.')
        L.append('')
        L.append('| problem | matrix | threads | its | MatMult calls | ms per call | vs AIJ | GB/s | BW bound |')
        L.append('|---|---|---|---|---|---|---|---|---|')
        L.extend(rows)
        L.append('')
    # model
    L.append('## Bandwidth model')
    L.append('')
    L.append('A triangular-solve sweep does ~2 flops per matrix entry read, so it is bound by memory traffic. Per application, '
             'with `npoints` grid points, `ns` stencil points (centre included), `dof` unknowns per point and `n = npoints x dof`:')
    L.append('')
    L.append('- structilu: `(ns x dof^2 + dof^2) x 8 x npoints + 3 x 8 x n` bytes: the factors stored per stencil offset (L, U and '
             'the diagonal, no indices), the inverted diagonal blocks, and three vector streams (read b, write then read the '
             'intermediate, write x). With `-pc_structilu_factor_precision single` the factor terms count 4 bytes.')
    L.append('- PETSc ILU(0), AIJ (MatSolve): `nnz x (8 + 4) + 2 x (n + 1) x 4 + 3 x 8 x n`: values, 4-byte column indices, '
             'the row and diagonal pointers, the same three vector streams. ILU(0) has the nonzeros of A.')
    L.append('- PETSc ILU(0), BAIJ: `nnz x 8 + nblocks x 4 + 2 x (npoints + 1) x 4 + 3 x 8 x n`.')
    L.append('- bjacobi on 2 ranks: the AIJ model of the whole matrix (couplings cut between the blocks included, a slight '
             'overestimate) over the slowest rank\'s MatSolve time; compared with the 2-thread triad.')
    L.append('')
    L.append('bound fraction = model bytes / time of one application / STREAM triad bandwidth with the same number of '
             'threads x processes. The time is the kernel\'s own event where there is one (StructILUApply, MatSolve), else '
             'PCApply / count. Write-allocate traffic is counted neither in the model nor in STREAM. hypre and icc have no model.')
    L.append('')
    notes = meta.get('probes', {})
    L.append('## Notes')
    L.append('')
    for k in ('levels', 'single'):
        if k in notes:
            L.append('- %s' % notes[k]['note'])
    if notes.get('view'):
        L.append('- structilu `-ksp_view` with OMP_NUM_THREADS=2 (tiny grid): ' + '; '.join('`%s`' % v for v in notes['view']))
    else:
        L.append('- structilu `-ksp_view` does not mention threads yet; "threads" in the tables is the OMP_NUM_THREADS the run had.')
    L.append('- Every configuration other than structilu runs with OMP_NUM_THREADS=1; bjacobi runs 2 MPI processes of 1 thread.')
    L.append('- Each run is a separate process: peak memory includes the matrix, the DMDA and PETSc itself (`/usr/bin/time` maximum resident set size; '
             'for 2 ranks the larger rank).')
    builds = sorted(set(r.get('lib_mtime') for r in data['cases'].values() if r.get('lib_mtime')))
    if len(builds) > 1:
        L.append('- **lib/libpetscgilu.so was rebuilt during the run**: the runs used %d builds (%s); each run records its build '
                 'time (`lib_mtime` in the .json).' % (len(builds), ', '.join(builds)))
    nbad = sum(1 for r in data['cases'].values() if r.get('status') != 'ok')
    L.append('- %d runs, %d did not finish with a converged solve (listed under their problem).' % (len(data['cases']), nbad))
    L.append('')
    L.extend(gpu_model_section(data))
    L.extend(report.gpu_perf_section())
    L.extend(suite_sections(data))
    return '\n'.join(L) + '\n'


# --------------------------------------------------------------------------------------------- plots
def find_plot_python():
    for py in (sys.executable, '/usr/bin/python3', shutil.which('python3')):
        if py and os.access(py, os.X_OK):
            if subprocess.run([py, '-c', 'import matplotlib'], capture_output=True).returncode == 0:
                return py
    return None


def make_plots(data, stem):
    py = find_plot_python()
    if not py:
        print('  plots skipped: no python3 with matplotlib (Debian: apt-get install python3-matplotlib; bench/install-deps)')
        return []
    cfg_by_id = {c['id']: c for c in CONFIGS}
    # the data the plots need, computed here so that plot.py only draws
    speed = {}
    for stn in STENCILS:
        for d in DOFS:
            for cid in ('structilu-t1', 'structilu-t2'):
                rec = data['cases'].get('%s-dof%d/%s' % (stn, d, cid))
                if rec:
                    speed['%s|%d|%s' % (stn, d, cid)] = case_ratios(data, rec, cfg_by_id)[0]
    h = headline(data, cfg_by_id)
    breakdown = []
    if h:
        for c in CONFIGS:
            r = data['cases'].get('%s/%s' % (h['problem']['id'], c['id']))
            if r and r.get('status') == 'ok':
                other = max(0.0, (r.get('solve_s') or 0) - ev(r, 'PCApply'))
                breakdown.append(dict(label=config_desc(c), setup=r.get('setup_s') or 0, apply=ev(r, 'PCApply') or 0, other=other,
                                      its=r.get('iterations')))
    spec = dict(stencils=STENCILS, dofs=DOFS, speed=speed, breakdown=breakdown, size=data['meta']['size'],
                host=data['meta']['host'], headline_title=h['problem']['title'] if h else '',
                out_speed=os.path.join(RESULTS, stem + '-apply-speedup.png'),
                out_breakdown=os.path.join(RESULTS, stem + '-headline-breakdown.png'))
    specfile = os.path.join(BUILD, 'bench', stem + '-plot.json')
    save(spec, specfile)
    p = subprocess.run([py, os.path.join(BENCH_DIR, 'plot.py'), specfile], capture_output=True, text=True)
    if p.returncode != 0:
        print('  plots failed: %s' % p.stderr.strip()[-400:])
        return []
    plots = []
    if os.path.exists(spec['out_speed']) and speed:
        plots.append(('structilu apply speedup over PETSc ilu', os.path.basename(spec['out_speed'])))
    if os.path.exists(spec['out_breakdown']) and breakdown:
        plots.append(('headline time breakdown', os.path.basename(spec['out_breakdown'])))
    return plots


def select_cases(problems, probes, wanted=(), only=None):
    """the runs (problem, configuration, key) of problems: every configuration that applies to the problem, whose
    probe (if any) succeeded, in wanted (if given) and whose key matches only (if given)"""
    todo = []
    for p in problems:
        for c in CONFIGS:
            if wanted and c['id'] not in wanted:
                continue
            if c.get('symmetric_only') and not p['symmetric']:
                continue
            if c.get('nonsymmetric_only') and p['symmetric']:
                continue
            if c.get('problems') and p['id'] not in c['problems']:
                continue
            if c.get('probe') and not probes.get(c['probe'], {}).get('ok'):
                continue
            key = '%s/%s' % (p['id'], c['id'])
            if only and not only.search(key):
                continue
            todo.append((p, c, key))
    return todo


def default_nnz(size):
    """the target number of nonzeros of each problem (--nnz): 7e6 (100^3 star-7) full, 125 times fewer quick"""
    return 7e6 / 125 if size == 'quick' else 7e6


def last_timed(size):
    """the newest complete run of this size and of every case (no --only, --configs) whose results are in
    build/bench/results/ or bench/results/: (minutes, its meta, its path, its number of runs, of suites), or None"""
    best = None
    for folder in (RESULTS, report.PUBLISHED):
        for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if not f.endswith('.json'):
                continue
            path = os.path.join(folder, f)
            try:
                with open(path) as fh:
                    data = json.load(fh)
                meta = data.get('meta')
            except (OSError, ValueError, AttributeError):
                continue
            if not isinstance(meta, dict) or meta.get('size') != size or not meta.get('complete') or meta.get('partial') or not meta.get('elapsed_s'):
                continue
            key = (meta.get('date', ''), os.path.getmtime(path))
            if best is None or key > best[0]:
                best = (key, meta, path, len(data.get('cases', {})), len(data.get('suites', {})))
    return best and (best[1]['elapsed_s'] / 60.0,) + best[1:]


def summary():
    """what make help says of make bench and make bench-quick, computed here: the problems, runs and suites of each
    size, and how long the newest complete run of that size on record took (lines indented for make help)"""
    import textwrap
    suites = [x['id'] for x in SUITES if os.path.exists(os.path.join(BENCH_DIR, x['script']))]
    for size, target in (('full', 'bench'), ('quick', 'bench-quick')):
        problems = make_problems(size, default_nnz(size))
        todo = select_cases(problems, {k: dict(ok=True) for k in PROBES})
        nopt = sum(1 for _, c, _ in todo if c.get('probe'))
        t = last_timed(size)
        if t:
            when = 'the newest complete run on record took %.0f min (%s, %s, %s cores; %d runs and %d suites; %s)' % (
                t[0], t[1].get('host'), t[1].get('date'), t[1].get('cores'), t[3], t[4],
                os.path.relpath(t[2], ROOT) if t[2].startswith(ROOT + os.sep) else t[2])
        else:
            when = 'no complete run on record to time it by (build/bench/results/, bench/results/)'
        text = '%s: %d problems, %d runs (%d of them optional configurations), %d suites; %s' % (
            target, len(problems), len(todo), nopt, len(suites), when)
        print(textwrap.fill(text, width=118, initial_indent=' ' * 17, subsequent_indent=' ' * 19, break_on_hyphens=False))
    print(textwrap.fill('suites: ' + ', '.join(suites), width=118, initial_indent=' ' * 17, subsequent_indent=' ' * 19))


# ---------------------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--size', choices=['quick', 'full'], default='full')
    ap.add_argument('--resume', action='store_true', help='skip the cases already in the results file (today\'s, else the newest for this host and size)')
    ap.add_argument('--retry-failed', action='store_true', help='with --resume: run again the cases that did not succeed')
    ap.add_argument('--only', default='', help='regular expression on "problem/config" keys, e.g. "poisson|star7-dof1/"')
    ap.add_argument('--configs', default='', help='comma-separated configuration ids (default: all)')
    ap.add_argument('--timeout', type=float, default=None, help='per run, seconds (default 600 full, 60 quick)')
    ap.add_argument('--nnz', type=float, default=None, help='target nonzeros per problem (default 7e6 full: 100^3 star-7; 5.6e4 quick)')
    ap.add_argument('--out', default='', help='results stem (default <date>-<host>[-quick])')
    ap.add_argument('--no-plots', action='store_true')
    ap.add_argument('--report-only', default='', help='rewrite the report (and plots) of an existing results .json, run nothing')
    ap.add_argument('--list', action='store_true', help='print the cases and exit')
    ap.add_argument('--summary', action='store_true', help='print the number of problems, runs and suites of each size and how long the '
                    'newest complete run of each size on record took (make help shows it), and exit')
    ap.add_argument('--results', default='', help='folder of the results, report and plots (default build/bench/results)')
    report.add_publish_option(ap)
    ap.add_argument('--suite-args', default='', help='extra arguments for every feature suite script (e.g. --only for bench/matrices.py)')
    args = ap.parse_args()
    global RESULTS
    if args.results:
        RESULTS = os.path.abspath(args.results)
    if args.summary:
        summary()
        return 0

    os.makedirs(RESULTS, exist_ok=True)
    if args.report_only:
        data = json.load(open(args.report_only))
        stem = os.path.splitext(os.path.basename(args.report_only))[0]
        src = os.path.dirname(os.path.abspath(args.report_only))
        if src != RESULTS:  # e.g. the published report: rewritten in RESULTS, with the suites' files it shows
            for f in run_files(data, stem, src):
                if os.path.isfile(f):
                    shutil.copy(f, RESULTS)
        finish(data, stem, args)
        return 0

    quick = args.size == 'quick'
    timeout = args.timeout or (60 if quick else 600)
    target_nnz = args.nnz or default_nnz(args.size)
    host = socket.gethostname().split('.')[0]
    date = datetime.date.today().isoformat()
    suffix = '-quick' if quick else ''
    stem = args.out or '%s-%s%s' % (date, host, suffix)
    path = os.path.join(RESULTS, stem + '.json')
    if args.resume and not args.out and not os.path.exists(path):
        cands = sorted(f for f in os.listdir(RESULTS) if re.match(r'\d{4}-\d\d-\d\d-%s%s\.json$' % (re.escape(host), suffix), f))
        if cands:
            stem = cands[-1][:-5]
            path = os.path.join(RESULTS, cands[-1])
    logdir = os.path.join(BUILD, 'bench', 'logs', stem)
    os.makedirs(logdir, exist_ok=True)

    problems = make_problems(args.size, target_nnz)
    wanted = set(x for x in args.configs.split(',') if x)
    unknown = wanted - set(c['id'] for c in CONFIGS) - set(x['id'] for x in SUITES)
    if unknown:
        print('unknown configuration(s): %s; known: %s and the suites %s' % (', '.join(sorted(unknown)), ', '.join(c['id'] for c in CONFIGS), ', '.join(x['id'] for x in SUITES)), file=sys.stderr)
        return 2
    only = re.compile(args.only) if args.only else None

    for exe in (EX1, POISSON):
        if not os.access(exe, os.X_OK):
            print('%s is missing: build it with make -f gmakefile.test %s (make bench does)' % (exe, os.path.relpath(exe, ROOT)), file=sys.stderr)
            return 1

    if args.resume and os.path.exists(path):
        data = json.load(open(path))
        print('resuming %s: %d cases already done' % (os.path.relpath(path, ROOT), len(data['cases'])))
    else:
        data = dict(meta={}, problems=[], cases={})
    meta = data['meta']
    meta.update(dict(host=host, date=date, size=args.size, cpu=cpu_model(), cores=os.cpu_count(), mem_gib=mem_total_gib(),
                     l2_bytes=cache_bytes(2), llc_bytes=max(cache_bytes(3), cache_bytes(2)), loadavg=os.getloadavg()[0],
                     target_nnz=target_nnz, timeout_s=timeout, logdir=os.path.relpath(logdir, ROOT),
                     command='bench/run.py ' + ' '.join(sys.argv[1:]), partial=bool(args.only or args.configs)))
    meta.update(dict(petsc_version()))
    data['problems'] = problems

    if not args.list:
        print('petscgilu bench, size %s: %s, %d cores; results in %s' % (args.size, meta['cpu'], meta['cores'], os.path.relpath(path, ROOT)), flush=True)
        if 'stream' not in meta or any('error' in v for v in meta['stream'].values()):
            meta['stream'] = run_stream(quick, 600)
        meta['probes'] = probe_options(logdir)
        for k in ('levels', 'single'):
            print('  probe: %s' % meta['probes'][k]['note'], flush=True)
        save(data, path)

    # --list shows the optional configurations as if their probes succeeded
    todo = select_cases(problems, meta.get('probes') or {k: dict(ok=True) for k in PROBES}, wanted, only)
    if args.list:
        for i, (p, c, key) in enumerate(todo):
            print('[%d/%d] %s N=%d %s' % (i + 1, len(todo), key, p['N'], config_desc(c)))
        return 0

    t_start = time.time()
    meta['complete'] = False
    ran = 0
    for i, (p, c, key) in enumerate(todo):
        prefix = '[%d/%d] %s %s dof%d N=%d %s ...' % (i + 1, len(todo), p['program'].split('/')[0], p['stencil'] + ('-sym' if p['symmetric'] and p['program'] == 'tests/ex1' else ''),
                                                    p['dof'], p['N'], config_desc(c))
        if args.resume and key in data['cases'] and not (args.retry_failed and data['cases'][key].get('status') != 'ok'):
            print('%s done earlier (%s)' % (prefix, data['cases'][key].get('status')), flush=True)
            continue
        rec = run_case(p, c, args.size, timeout, logdir)
        ran += 1
        data['cases'][key] = rec
        save(data, path)
        extra = ''
        if rec['status'] == 'ok':
            extra = 'its %s, setup %s s, apply %s ms, solve %s s' % (rec.get('iterations'), fmt(rec.get('setup_s'), '%.3g'), ms(rec.get('apply_s')),
                                                                     fmt(rec.get('solve_s'), '%.3g'))
        else:
            extra = '%s: %s' % (rec['status'].upper(), (rec.get('error') or '')[:160])
        print('%s %.1f s  %s' % (prefix, rec['wall_s'], extra), flush=True)
    ran += run_suites(data, path, stem, args, quick, only, logdir)
    meta['elapsed_s'] = round(time.time() - t_start + (meta.get('elapsed_s', 0) if args.resume else 0), 1)
    meta['complete'] = True
    if not quick and ran:
        print('STREAM again after the runs (the better of the two counts):', flush=True)
        meta['stream'] = merge_stream(meta['stream'], run_stream(quick, 600))
    save(data, path)
    finish(data, stem, args)
    return 0


def run_suites(data, path, stem, args, quick, only, logdir):
    """Runs the feature suites (SUITES) that exist; returns how many ran."""
    suites = data.setdefault('suites', {})
    todo = [x for x in SUITES if os.path.exists(os.path.join(BENCH_DIR, x['script'])) and not (args.configs and x['id'] not in args.configs.split(','))
            and not (only and not only.search('suite/' + x['id']))]
    py = find_plot_python() or sys.executable
    ran = 0
    for i, x in enumerate(todo):
        prefix = '[suite %d/%d] %s (bench/%s%s) ...' % (i + 1, len(todo), x['id'], x['script'], ' --quick' if quick else '')
        old = suites.get(x['id'])
        if args.resume and old and not (args.retry_failed and old.get('status') != 'ok'):
            print('%s done earlier (%s)' % (prefix, old.get('status')), flush=True)
            continue
        print(prefix, flush=True)
        out = os.path.join(RESULTS, '%s-%s' % (stem, x['id']))
        cmd = [py, os.path.join(BENCH_DIR, x['script'])] + (['--quick'] if quick else []) + ['--out', out] + args.suite_args.split()
        log = os.path.join(logdir, 'suite-%s.log' % x['id'])
        t0 = time.time()
        try:
            with open(log, 'w') as f:
                rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, timeout=900 if quick else 3600).returncode
            status = 'ok' if rc == 0 and os.path.exists(out + '.md') else 'failed (exit %d)' % rc
        except subprocess.TimeoutExpired:
            status = 'timeout'
        pngs = sorted(f for f in os.listdir(RESULTS) if f.startswith(os.path.basename(out) + '-') and f.endswith('.png'))
        suites[x['id']] = dict(status=status, wall_s=round(time.time() - t0, 1), md=os.path.basename(out) + '.md', pngs=pngs,
                               log=os.path.relpath(log, ROOT), command=' '.join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd))
        save(data, path)
        ran += 1
        print('%s %.1f s  %s, %d plot(s)%s' % (prefix, suites[x['id']]['wall_s'], status, len(pngs), '' if status == 'ok' else '; log: ' + suites[x['id']]['log']), flush=True)
    return ran


def suite_sections(data):
    """The feature suites' sections of the report: their Markdown, headings one level down, and their plots."""
    L = []
    for x in SUITES:
        rec = data.get('suites', {}).get(x['id'])
        if not rec:
            continue
        L.append('## %s' % x['title'])
        L.append('')
        L.append('`%s`: %s in %.0f s.' % (rec.get('command', ''), rec['status'], rec.get('wall_s', 0)))
        L.append('')
        md = os.path.join(RESULTS, rec['md'])
        if rec['status'] == 'ok' and os.path.exists(md):
            body = open(md).read().splitlines()
            if body and body[0].startswith('# '):
                body = body[1:]
            for line in body:
                if line.startswith('#'):
                    line = '#' + line
                L.append(line.replace('](' + os.path.basename(RESULTS) + '/', ']('))
            shown = set(re.findall(r'\]\(([^)]+\.png)\)', '\n'.join(body)))
            for png in rec.get('pngs', []):
                if png not in shown and os.path.basename(png) not in shown:
                    L.append('')
                    L.append('![%s](%s)' % (png, png))
        L.append('')
    return L


def run_files(data, stem, folder):
    """The files of a run in folder: its results, report and plots, and those of its suites"""
    names = [stem + '.json', stem + '.md', stem + '-apply-speedup.png', stem + '-headline-breakdown.png']
    for rec in data.get('suites', {}).values():
        names += [rec['md'], rec['md'][:-3] + '.json'] + rec.get('pngs', [])
    return [os.path.join(folder, f) for f in names]


def finish(data, stem, args):
    plots = [] if args.no_plots else make_plots(data, stem)
    md = write_report(data, stem, plots)
    mdpath = os.path.join(RESULTS, stem + '.md')
    with open(mdpath, 'w') as f:
        f.write(md)
    print('report: %s' % os.path.relpath(mdpath, ROOT))
    if args.publish:
        if data['meta'].get('partial') or not data['meta'].get('complete', True):
            print('not published: %s' % ('a selection of the cases' if data['meta'].get('partial') else 'an interrupted run, finish it with --resume'))
        else:
            report.publish(run_files(data, stem, RESULTS))
    h = headline(data, {c['id']: c for c in CONFIGS})
    if h and h.get('ok'):
        print('headline (%s, structilu 2 threads vs PETSc ilu): apply %sx, setup %sx, setup+solve %sx, iterations %s, %s of the bandwidth bound' %
              (h['problem']['title'], fmt(h['apply_x'], '%.2f'), fmt(h['setup_x'], '%.2f'), fmt(h['solve_x'], '%.2f'),
               'equal' if h['its_equal'] else 'DIFFER', fmt(h['bw'] and 100 * h['bw'], '%.0f%%')))


if __name__ == '__main__':
    sys.exit(main())
