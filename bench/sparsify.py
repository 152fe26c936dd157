#!/usr/bin/python3
"""SPCG benchmark (the SPCG paper, Table 1 and Figures 4-5 in shape): PCSPARSIFY + CG against PCG with the same inner PC.

    bench/sparsify.py [--quick] [--reps R] [--levels K] [--out STEM] [--no-plots]

For each generated SPD problem (tutorials/ex1 Poisson, tutorials/ex2 anisotropic diffusion with a full tensor,
tests/ex10 axis-anisotropic 7-point problems) it runs CG with
    PCG-ILU(0):   -pc_type ilu                       SPCG-ILU(0): -pc_type sparsify [-pc_sparsify_ratio t]
    PCG-ILU(K):   -pc_type ilu -pc_factor_levels K   SPCG-ILU(K): ... -pc_sparsify_sub_pc_factor_levels K
for the ratios 1, 5, 10 % and the heuristic (Algorithm 2), reads the -log_view CSV, parses -ksp_view and computes
    per-iteration speedup = (t_solve / its)_PCG / (t_solve / its)_SPCG,  t_solve = KSPSolve event
    end-to-end speedup    = (PCSetUp + KSPSolve)_PCG / (PCSetUp + KSPSolve)_SPCG  (sparsification included)
(PETSc 3.18 logs PCSetUp outside the KSPSolve event.)
the oracle being the best of the three ratios for each problem and metric. Each run is repeated --reps times and
the fastest kept (the machine is shared). The inner factorization uses MatSolverType gilu when the library has it
(both PCG and SPCG), else PETSc's sequential ILU, whose triangular solves do not profit from fewer wavefronts.

Writes build/bench/results/sparsify-<date>-<host>.{json,md,-speedup.png} (--out STEM to choose; --publish: also to
bench/results/). Needs the library and the programs built (make all,
make -f gmakefile.test build/tests/tutorials/ex1 ...: the script does it when they are missing).
"""
import argparse
import datetime
import json
import math
import os
import re
import socket
import subprocess
import sys
import time

import machine  # bench/machine.py: the -log_view CSV
from report import add_publish_option, default_stem, publish_stem  # bench/report.py: where results go

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
PROGS = {'ex1': 'build/tests/tutorials/ex1', 'ex2': 'build/tests/tutorials/ex2', 'ex10': 'build/tests/tests/ex10'}
RATIOS = [1, 5, 10]


def problems(quick):
    """(name, program, options): SPD, CG-solvable, ~10-60k unknowns (quick: ~5k)"""
    s3 = [12, 16] if quick else [20, 28, 36]
    s2 = [60] if quick else [100, 160]
    P = []
    for n in s3:
        P.append(('poisson3d-%d' % n, 'ex1', '-da_grid_x %d -da_grid_y %d -da_grid_z %d' % (n, n, n)))
    for n in s2:
        P.append(('poisson2d-%d' % n, 'ex1', '-dim 2 -da_grid_x %d -da_grid_y %d' % (n, n)))
    tensors3 = [('a', '1,1,0.05,-0.3,-0.02,-0.01'), ('b', '1,0.1,0.01,-0.05,-0.005,-0.005'), ('c', '1,1,1,-0.4,-0.2,-0.3'),
                ('d', '1,0.5,0.2,-0.1,-0.05,-0.02')]
    tensors2 = [('a', '1,1,-0.5'), ('b', '1,0.01,-0.005'), ('c', '1,0.2,-0.1')]
    for tag, K in (tensors3[:2] if quick else tensors3):
        n = s3[-1] if quick else 28
        P.append(('aniso3d-%s-%d' % (tag, n), 'ex2', '-da_grid_x %d -da_grid_y %d -da_grid_z %d -K %s' % (n, n, n, K)))
    for tag, K in (tensors2[:1] if quick else tensors2):
        n = s2[-1] if quick else 128
        P.append(('aniso2d-%s-%d' % (tag, n), 'ex2', '-dim 2 -da_grid_x %d -da_grid_y %d -K %s' % (n, n, K)))
    axis = [('z0.01', '-az 0.01'), ('y0.1z0.01', '-ay 0.1 -az 0.01'), ('z0.001', '-az 0.001'), ('x10', '-ax 10'),
            ('y0.01z0.0001', '-ay 0.01 -az 0.0001')]
    for tag, o in (axis[:2] if quick else axis):
        n = 14 if quick else 24
        P.append(('axis7-%s-%d' % (tag, n), 'ex10', '-case poisson -n %d %s' % (n, o)))
    if not quick:
        P.append(('axis7-dof2-z0.01-20', 'ex10', '-case poisson -n 20 -dof 2 -az 0.01'))
        P.append(('axis7-baij2-z0.01-20', 'ex10', '-case poisson -n 20 -dof 2 -az 0.01 -dm_mat_type baij'))
        # a matrix with a real wavefront reduction: the symmetric tridiagonal chain of tests/ex10 (every 10th coupling
        # small; ILU(0) is exact on it, so sparsification can only cost iterations)
        P.append(('chain-20000', 'ex10', '-case chain -n 20000'))
    return P


def ensure_built():
    missing = [p for p in PROGS.values() if not os.path.exists(os.path.join(ROOT, p))]
    if not os.path.exists(os.path.join(ROOT, 'lib', 'libpetscgilu.so')):
        subprocess.run(['make', '-s', 'all'], cwd=ROOT, check=True)
    if missing:
        subprocess.run(['make', '--no-print-directory', '-f', 'gmakefile.test', 'PETSCGILU_DIR=' + ROOT] + [os.path.join(ROOT, p) for p in missing], cwd=ROOT, check=True)


def run(prog, opts, logdir, tag, timeout=120):
    env = dict(os.environ, OMP_NUM_THREADS='1', OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    csv, lv_opts = machine.log_view_csv(logdir, tag)
    cmd = [os.path.join(ROOT, PROGS[prog])] + opts.split() + ['-ksp_type', 'cg', '-ksp_rtol', '1e-8', '-ksp_max_it', '2000', '-ksp_converged_reason'] + lv_opts
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env).stdout
    events = machine.read_log_view_csv(csv)[0]
    ev = {name: events[name]['time'] if name in events else 0.0 for name in ('KSPSolve', 'PCSetUp', 'PCApply', 'MatSolve', 'SparsifySetUp')}
    m = re.search(r'(CONVERGED|DIVERGED)_\w+ iterations (\d+)', out)
    r = {'events': ev, 'its': int(m.group(2)) if m else None, 'converged': bool(m and m.group(1) == 'CONVERGED')}
    m = re.search(r'Ahat = A - S at (\S+) %: (\d+) of (\d+) nonzeros dropped .*wavefronts (\d+) -> (\d+)', out)
    if m:
        r.update(ratio=float(m.group(1).rstrip('.')), dropped=int(m.group(2)), nnz=int(m.group(3)), wA=int(m.group(4)), wAhat=int(m.group(5)))
    return r


def best_of(prog, opts, reps, logdir, tag):
    best = None
    for i in range(reps):
        r = run(prog, opts, logdir, '%s-run%d' % (tag, i + 1))
        if best is None or (r['events']['KSPSolve'] + r['events']['PCSetUp'] < best['events']['KSPSolve'] + best['events']['PCSetUp']):
            best = r
    return best


def gmean(v):
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--reps', type=int, default=1)
    ap.add_argument('--levels', type=int, default=2, help='K of ILU(K)')
    ap.add_argument('--out', default=None)
    ap.add_argument('--no-plots', action='store_true')
    add_publish_option(ap)
    a = ap.parse_args()
    ensure_built()
    stem = a.out or default_stem('sparsify-%s-%s%s' % (datetime.date.today().isoformat(), socket.gethostname(), '-quick' if a.quick else ''))
    logs = machine.log_dir(stem)
    t0 = time.time()
    # the inner solver: gilu when registered for seqaij (then for PCG too)
    probe = subprocess.run([os.path.join(ROOT, PROGS['ex10']), '-pc_type', 'ilu', '-pc_factor_mat_solver_type', 'gilu'], capture_output=True, text=True,
                           env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1'))
    solver = 'gilu' if probe.returncode == 0 and 'ERROR' not in probe.stdout + probe.stderr else 'petsc'
    sopt = ' -pc_factor_mat_solver_type %s' % solver
    subopt = ' -pc_sparsify_sub_pc_factor_mat_solver_type %s -ksp_view' % solver
    res = {'date': datetime.datetime.now().isoformat(timespec='seconds'), 'host': socket.gethostname(), 'solver': solver, 'levels': a.levels,
           'reps': a.reps, 'problems': []}
    for name, prog, opts in problems(a.quick):
        entry = {'name': name, 'program': prog, 'options': opts, 'runs': {}}
        for K in (0, a.levels):
            lev = ' -pc_factor_levels %d' % K
            sublev = ' -pc_sparsify_sub_pc_factor_levels %d' % K
            entry['runs']['pcg-ilu%d' % K] = best_of(prog, opts + ' -pc_type ilu' + lev + sopt, a.reps, logs, '%s-pcg-ilu%d' % (name, K))
            for t in RATIOS:
                entry['runs']['spcg-ilu%d-r%d' % (K, t)] = best_of(prog, opts + ' -pc_type sparsify -pc_sparsify_ratio %d' % t + sublev + subopt, a.reps,
                                                                   logs, '%s-spcg-ilu%d-r%d' % (name, K, t))
            entry['runs']['spcg-ilu%d-heur' % K] = best_of(prog, opts + ' -pc_type sparsify' + sublev + subopt, a.reps, logs, '%s-spcg-ilu%d-heur' % (name, K))
        res['problems'].append(entry)
        h0 = entry['runs']['spcg-ilu0-heur']
        print('%-24s pcg-ilu0 %4s its  heuristic %s %%  w %s -> %s  (%.0f s)' % (name, entry['runs']['pcg-ilu0']['its'], h0.get('ratio'), h0.get('wA'), h0.get('wAhat'), time.time() - t0), flush=True)
    res['elapsed_s'] = time.time() - t0
    summarize(res, a.levels)
    os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
    with open(stem + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    with open(stem + '.md', 'w') as f:
        f.write(report(res, a.levels, stem))
    if not a.no_plots:
        plot(res, a.levels, stem + '-speedup.png')
    print('wrote %s.{json,md%s} in %.0f s' % (stem, '' if a.no_plots else ',-speedup.png', time.time() - t0))
    if a.publish:
        publish_stem(stem, [] if a.no_plots else ['-speedup.png'])


def speedups(entry, K, cfg):
    base, r = entry['runs']['pcg-ilu%d' % K], entry['runs'][cfg]
    if not (base['converged'] and r['converged']) or not base['its'] or not r['its']:
        return None
    B, E = base['events'], r['events']
    bs, rs = B['KSPSolve'] / base['its'], E['KSPSolve'] / r['its']
    return {'periter': bs / rs, 'e2e': (B['PCSetUp'] + B['KSPSolve']) / (E['PCSetUp'] + E['KSPSolve']), 'dits': r['its'] - base['its']}


def summarize(res, L):
    rows = {}
    for K in (0, L):
        for cfg in ['r%d' % t for t in RATIOS] + ['heur', 'oracle']:
            per, e2e, dits, oracle_hit = [], [], [], 0
            for e in res['problems']:
                if cfg == 'oracle':
                    s = [speedups(e, K, 'spcg-ilu%d-r%d' % (K, t)) for t in RATIOS]
                    s = [x for x in s if x]
                    if not s:
                        continue
                    x = {'periter': max(y['periter'] for y in s), 'e2e': max(y['e2e'] for y in s), 'dits': min(y['dits'] for y in s)}
                else:
                    x = speedups(e, K, 'spcg-ilu%d-%s' % (K, cfg))
                    if not x:
                        continue
                per.append(x['periter'])
                e2e.append(x['e2e'])
                dits.append(x['dits'])
            n = len(per)
            rows['ilu%d-%s' % (K, cfg)] = {
                'n': n, 'gmean_periter': gmean(per), 'share_periter_faster': sum(1 for v in per if v > 1) / n if n else float('nan'),
                'gmean_e2e': gmean(e2e), 'share_e2e_faster': sum(1 for v in e2e if v > 1) / n if n else float('nan'),
                'iterations_changed': sum(1 for d in dits if d != 0), 'iterations_more': sum(1 for d in dits if d > 0),
                'median_iteration_change': sorted(dits)[n // 2] if n else None}
    res['summary'] = rows


def report(res, L, stem):
    s = ['# SPCG benchmark (PCSPARSIFY + CG against PCG with the same inner PC)', '',
         'Generated by `bench/sparsify.py` on %s (%s), %d problems, inner factorization MatSolverType `%s`, best of %d run(s), '
         '1 thread, %.0f s. Shape of Table 1 of the SPCG paper: geometric means over the problems of the per-iteration speedup '
         '(solve phase / iterations) and of the end-to-end speedup (sparsification + factorization + solve), share of problems '
         'faster than PCG, and how many changed their iteration count.' % (res['date'], res['host'], len(res['problems']), res['solver'], res['reps'], res['elapsed_s']), '']
    if res['solver'] == 'petsc':
        s += ['**Caveat:** MatSolverType gilu (the wavefront-parallel engine) was not available in this build, so both PCG and SPCG '
              'use PETSc\'s sequential triangular solves: wavefront reductions cannot show here, only the smaller number of nonzeros '
              'and the changed iteration counts. Timings come from a shared 2-core machine.', '']
    for K in (0, L):
        s += ['## SPCG-ILU(%d) over PCG-ILU(%d)' % (K, K), '', '| ratio | problems | per-iteration gmean | faster | end-to-end gmean | faster | iterations changed (more) | median iteration change |',
              '|---|---|---|---|---|---|---|---|']
        for cfg in ['r%d' % t for t in RATIOS] + ['heur', 'oracle']:
            r = res['summary']['ilu%d-%s' % (K, cfg)]
            label = {'heur': 'heuristic (Algorithm 2)', 'oracle': 'oracle (best of 1/5/10 %)'}.get(cfg, cfg[1:] + ' %')
            s.append('| %s | %d | %.3f | %.0f %% | %.3f | %.0f %% | %d (%d) | %s |' % (label, r['n'], r['gmean_periter'], 100 * r['share_periter_faster'], r['gmean_e2e'],
                                                                              100 * r['share_e2e_faster'], r['iterations_changed'], r['iterations_more'], r['median_iteration_change']))
        s.append('')
    # the heuristic builds the same Ahat as the forced ratio it chose: their timings differ by noise only
    for K in (0, L):
        d = []
        for e in res['problems']:
            h = e['runs']['spcg-ilu%d-heur' % K]
            if h.get('ratio') in RATIOS:
                a, b = speedups(e, K, 'spcg-ilu%d-heur' % K), speedups(e, K, 'spcg-ilu%d-r%d' % (K, int(h['ratio'])))
                if a and b:
                    d.append(abs(math.log(a['periter'] / b['periter'])))
        if d:
            d.sort()
            s.append('Timing noise, ILU(%d): the heuristic and the forced ratio it chose build the same Ahat; their per-iteration '
                     'times differ by a factor %.2f in the median, %.2f at most, over %d problems.' % (K, math.exp(d[len(d) // 2]), math.exp(d[-1]), len(d)))
    s += ['', '## Per problem (ILU(0)): iterations PCG / SPCG at 1, 5, 10 %, heuristic; heuristic choice and wavefronts', '',
          '| problem | PCG | 1 %% | 5 %% | 10 %% | heuristic | chosen | w_A -> w_Ahat | ILU(%d): PCG / heuristic (chosen, w) |' % L, '|---|---|---|---|---|---|---|---|---|']
    for e in res['problems']:
        R = e['runs']
        h, hk = R['spcg-ilu0-heur'], R['spcg-ilu%d-heur' % L]
        s.append('| %s | %s | %s | %s | %s | %s | %s %% | %s -> %s | %s / %s (%s %%, %s -> %s) |' % (
            e['name'], R['pcg-ilu0']['its'], R['spcg-ilu0-r1']['its'], R['spcg-ilu0-r5']['its'], R['spcg-ilu0-r10']['its'], h['its'], h.get('ratio'), h.get('wA'), h.get('wAhat'),
            R['pcg-ilu%d' % L]['its'], hk['its'], hk.get('ratio'), hk.get('wA'), hk.get('wAhat')))
    s += ['', 'Timings: the KSPSolve event is the solve phase (PETSc 3.18 logs PCSetUp outside it); end-to-end = PCSetUp + KSPSolve. ',
          'Problems: `tutorials/ex1` (Poisson), `tutorials/ex2` (anisotropic diffusion, full tensor, diamond-13 / 7-point), '
          '`tests/ex10 -case poisson` (7-point with axis coefficients). Options of each run are in the .json.', '']
    return '\n'.join(s)


def plot(res, L, path):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('matplotlib missing: no plot (apt-get install python3-matplotlib)')
        return
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), sharex=True)
    names = [e['name'] for e in res['problems']]
    x = range(len(names))
    for row, K in enumerate((0, L)):
        for col, metric in enumerate(('periter', 'e2e')):
            ax = axes[row][col]
            for cfg, mk in [('r1', 'o'), ('r5', 's'), ('r10', '^'), ('heur', 'x')]:
                y = []
                for e in res['problems']:
                    sp = speedups(e, K, 'spcg-ilu%d-%s' % (K, cfg))
                    y.append(sp[metric] if sp else float('nan'))
                ax.plot(x, y, mk, label={'heur': 'heuristic'}.get(cfg, cfg[1:] + ' %'), alpha=0.8)
            ax.axhline(1.0, color='k', lw=0.8)
            ax.set_yscale('log')
            ax.set_title('SPCG-ILU(%d) %s speedup over PCG-ILU(%d)' % (K, 'per-iteration' if metric == 'periter' else 'end-to-end', K), fontsize=10)
            if row == 1:
                ax.set_xticks(list(x))
                ax.set_xticklabels(names, rotation=75, fontsize=7)
            ax.legend(fontsize=7)
    fig.suptitle('PCSPARSIFY, %s, inner solver %s (%s)' % (res['host'], res['solver'], res['date']), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == '__main__':
    sys.exit(main())
