#!/usr/bin/env python3
"""bench/gpu/run.py: PCSTRUCTILU's CUDA kernels against cuSPARSE on one NVIDIA GPU, in the same run.

    bench/gpu/run.py [--quick] [--out FILE.md]      (after `make all`; needs a GPU and a build with CUDA)

Part 1, kernels (the StructILU paper, Figure 7): for the stencils star5 and diamond13 (2D), star7 and box27 (3D) and DoF 1, 2, 4,
5, 8, tests/ex6 -bench times on the device
  - PCSTRUCTILU's setup (device factorization, with the upload of the matrix values) and apply (forward + backward
    sweep), -gilu_backend cuda;
  - cuSPARSE ILU(0) + triangular solves: CSR (csrilu02 + SpSV) with -dm_mat_type aij, BSR (bsrilu02 + bsrsv2) with
    -dm_mat_type baij;
and reports GB/s (bytes of factors and vectors each method must move, over its time) and Gflop/s.
With Debian's host-only PETSc, every apply (PCSTRUCTILU's and cuSPARSE's) copies b to the device and x back: both
include the same copies; the copy time is given by -log_view's GILUCopyToGPU / GILUCopyToCPU events (the end-to-end
runs write their -log_view as CSV to build/bench/logs/<name of the report>/).
Part 2, end to end (the StructILU paper, Table 4): PETSc's ex45 (3D Poisson, CG) and snes ex19 (DoF 4) with -pc_type structilu
-gilu_backend cuda against -pc_type ilu on the host: KSPSolve time and iterations.
Part 3, the performance model against the measured times: the device runs of part 2 (tiles and lines mappings) also
print -ksp_view, whose performance model (-pc_structilu_model_gpu, see README) predicts one apply (device time + copies);
the measured apply is PCApply's time over its count in -log_view (it includes the copies of b and x).
Writes a markdown table to stdout and to --out (default build/bench/results/<date>-<host>-gpu.md; --publish: also
to bench/results/, replacing the report there).
Every run has a time limit (--timeout, seconds); a run that passes it is reported as timed out, not waited for.
"""
import argparse, datetime, os, re, socket, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import machine  # noqa: E402  (bench/machine.py: the -log_view CSV)
import report  # noqa: E402  (bench/report.py: where results go)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX6 = os.path.join(ROOT, 'build', 'tests', 'tests', 'ex6')
LIB = os.path.join(ROOT, 'lib', 'libpetscgilu.so')
EXDIR = os.path.join(ROOT, 'build', 'petsc-examples')
NOFF = {'star5': (2, 5), 'diamond13': (2, 13), 'star7': (3, 7), 'box27': (3, 27)}


TIMEOUT = 900
KERNEL_FAILURES = []


def sh(cmd, timeout=None):
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get('OMP_NUM_THREADS', '1'))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return 124, f'timed out after {timeout or TIMEOUT} s: {" ".join(cmd)}'
    except OSError as e:
        return 1, str(e)
    return p.returncode, p.stdout + p.stderr


def excerpt(out):
    """the lines of a PETSc error message without its boilerplate, else the end of the output"""
    noise = ('Configure options', 'See https://petsc.org', 'Petsc Release Version', ' named ', 'End of Error Message', 'Option Table', '-----')
    err = [ln.split('PETSC ERROR:', 1)[1].strip() for ln in out.splitlines() if 'PETSC ERROR:' in ln and not any(n in ln for n in noise)]
    err = [e for e in err if e and not e.startswith('-')]
    return ' / '.join(err[:3]) if err else out[-300:].strip().replace('\n', ' ')


def grid_n(dim, dof, target):
    # ex6's grid: 2D (n+2) x n, 3D (n+1) x n x (n-1)
    n = 4
    while True:
        pts = (n + 2) * n if dim == 2 else (n + 1) * n * (n - 1)
        if pts * dof >= target:
            return n
        n += 1


def kernels(quick):
    rows = []
    target = 2e5 if quick else 4e6
    for st, (dim, ns) in NOFF.items():
        for dof in (1, 2, 4, 5, 8):
            n = grid_n(dim, dof, target)
            res = {}
            for mt in ('aij', 'baij'):
                rc, out = sh([EX6, '-backend', 'cuda', '-cusparse', '-stencil', st, '-dof', str(dof), '-n', str(n), '-dm_mat_type', mt, '-bench', '20'])
                m = re.search(r'bench: \S+ dof \d+ unknowns (\d+) structilu_setup (\S+) structilu_apply (\S+) cusparse_factor (\S+) cusparse_apply (\S+)', out)
                if rc or not m:
                    res[mt] = None
                    print(f'# {st} dof {dof} {mt}: failed\n' + out[-2000:], file=sys.stderr)
                    KERNEL_FAILURES.append(f"{st} dof {dof} {mt} (n {n}): exit {rc}{' (timed out)' if rc == 124 else ''}: " + excerpt(out))
                    continue
                res[mt] = [float(x) for x in m.groups()]
            if not res.get('aij'):
                continue
            N = res['aij'][0]
            pts = N / dof
            # bytes one apply must move: factors (every block once) + vectors (b in, x out, x read once more per sweep)
            fac = 8.0 * pts * dof * dof * (ns + 1)
            vec = 8.0 * N * 5
            csr = 12.0 * pts * dof * dof * ns + 4.0 * (N + 1) + vec
            bsr = 8.0 * pts * dof * dof * ns + 4.0 * pts * ns + 4.0 * (pts + 1) + vec
            flops = 2.0 * pts * dof * dof * ns
            ffl = 2.0 * pts * dof ** 3 * ns  # factorization, order of magnitude
            r = {'stencil': st, 'dof': dof, 'unknowns': int(N),
                 'structilu_apply_GBs': (fac + vec) / res['aij'][2] / 1e9, 'structilu_apply_Gflops': flops / res['aij'][2] / 1e9,
                 'structilu_factor_Gflops': ffl / res['aij'][1] / 1e9,
                 'csr_apply_GBs': csr / res['aij'][4] / 1e9 if res['aij'][4] else 0,
                 'bsr_apply_GBs': bsr / res['baij'][4] / 1e9 if res.get('baij') and res['baij'][4] else 0,
                 'speedup_vs_csr': res['aij'][4] / res['aij'][2] if res['aij'][4] else 0,
                 'speedup_vs_bsr': res['baij'][4] / res['aij'][2] if res.get('baij') and res['baij'][4] else 0,
                 'factor_speedup_vs_csr': res['aij'][3] / res['aij'][1] if res['aij'][3] else 0}
            rows.append(r)
            print(r, file=sys.stderr)
    return rows


MODEL = re.compile(r'performance model \((\w+): .*?(\d+) dependent steps per sweep.*?predicted (\S+) us on the device \+ (\S+) us of copies')


def end_to_end(quick, model_args, logdir):
    cases = [('ex45 CG 3D Poisson', 'ksp_ksp_tutorials_ex45', ['-ksp_type', 'cg'] + (['-da_grid_x', '33', '-da_grid_y', '33', '-da_grid_z', '33'] if quick else ['-da_grid_x', '129', '-da_grid_y', '129', '-da_grid_z', '129'])),
             ('snes ex19 DoF 4', 'snes_tutorials_ex19', ['-da_grid_x', '64', '-da_grid_y', '64'] if quick else ['-da_grid_x', '512', '-da_grid_y', '512'])]
    # label, options, device run (-ksp_view and the model)
    pcs = (('host ilu', ['-pc_type', 'ilu'], False), ('structilu host', ['-pc_type', 'structilu', '-gilu_backend', 'host'], False),
           ('structilu cuda', ['-pc_type', 'structilu', '-gilu_backend', 'cuda'], True),
           ('structilu cuda lines', ['-pc_type', 'structilu', '-gilu_backend', 'cuda', '-pc_structilu_cuda_mapping', 'lines'], True))
    rows = []
    for name, exe, args in cases:
        path = os.path.join(EXDIR, exe)
        if not os.path.exists(path):
            print(f'# {exe} not built: run make check s=petsc-examples* once', file=sys.stderr)
            continue
        for label, pc, dev in pcs:
            csv, lv_opts = machine.log_view_csv(logdir, '%s-%s' % (exe, label))
            rc, out = sh([path, '-dll_append', LIB, '-ksp_converged_reason'] + lv_opts + args + pc + (['-ksp_view'] + model_args if dev else []), timeout=2 * TIMEOUT)
            its = re.findall(r'iterations (\d+)', out)
            events = machine.read_log_view_csv(csv)[0]
            t, a = events.get('KSPSolve'), events.get('PCApply')
            r = {'case': name, 'pc': label, 'iterations': ' '.join(its), 'KSPSolve_s': t['time'] if t else None, 'rc': rc}
            if a:
                r['apply_us'] = a['time'] / a['count'] * 1e6
                r['napply'] = a['count']
            m = MODEL.findall(out)
            if m:  # the last view (snes ex19 views every linear solve; the same size each time)
                gpu, steps, tdev, tcopy = m[-1]
                r.update(model_gpu=gpu, steps=int(steps), model_device_us=float(tdev), model_copy_us=float(tcopy))
            if rc:
                r['error'] = excerpt(out)
            rows.append(r)
            print(rows[-1], file=sys.stderr)
    return rows


def model_lines(e):
    lines = ['', 'Performance model against the measured times (the device runs above; model from -ksp_view, measured = PCApply time / count in -log_view, copies of b and x included):', '',
             '| case | mapping | model GPU | dependent steps | predicted device us | predicted copies us | predicted us | measured us per apply | measured / predicted |',
             '|---|---|---|---|---|---|---|---|---|']
    for r in e:
        if 'model_device_us' not in r:
            continue
        pred = r['model_device_us'] + r['model_copy_us']
        meas = r.get('apply_us')
        lines.append(f"| {r['case']} | {'lines' if 'lines' in r['pc'] else 'tiles'} | {r['model_gpu']} | {r['steps']} | {r['model_device_us']:.1f} | {r['model_copy_us']:.1f} | {pred:.1f} | "
                     f"{f'{meas:.1f}' if meas else 'n/a'} | {f'{meas / pred:.2f}' if meas and pred > 0 else 'n/a'} |")
    if len(lines) == 5:
        lines.append('| (no device run printed the model) | | | | | | | | |')
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--out')
    report.add_publish_option(ap)
    ap.add_argument('--timeout', type=float, default=TIMEOUT, help='seconds one run may take (end-to-end runs: twice that)')
    ap.add_argument('--model-gpu', choices=('h100', 'h200'), help='-pc_structilu_model_gpu of the model (default: from nvidia-smi, else h100)')
    ap.add_argument('--model-bandwidth', type=float, help='-pc_structilu_model_bandwidth (GB/s) for a GPU the model does not name')
    a = ap.parse_args()
    globals()['TIMEOUT'] = a.timeout
    rc, out = sh(['nvidia-smi', '-L'])
    if rc or 'GPU' not in out:
        sys.exit('bench/gpu/run.py: no NVIDIA GPU found (nvidia-smi -L); this benchmark needs one')
    if not os.path.exists(EX6):
        sh(['make', '-s', '-C', ROOT, 'all'])
        sh(['make', '-s', '-f', os.path.join(ROOT, 'gmakefile.test'), 'PETSCGILU_DIR=' + ROOT, 'PETSC_DIR=/usr/lib/petsc', 'PETSC_ARCH=', 'TESTDIR=' + os.path.join(ROOT, 'build', 'tests'), EX6])
    gpu = out.splitlines()[0]
    mgpu = a.model_gpu or ('h200' if 'H200' in gpu else 'h100')
    margs = ['-pc_structilu_model_gpu', mgpu] + (['-pc_structilu_model_bandwidth', str(a.model_bandwidth)] if a.model_bandwidth else [])
    out = a.out or report.default_stem(f'{datetime.date.today()}-{socket.gethostname()}-gpu{"-quick" if a.quick else ""}') + '.md'
    k = kernels(a.quick)
    e = end_to_end(a.quick, margs, machine.log_dir(os.path.splitext(out)[0]))
    lines = [f'# PCSTRUCTILU on {gpu} ({datetime.date.today()}, {socket.gethostname()})', '',
             'Kernels (tests/ex6 -bench 20; times include the copies of b and x, the same for all methods):', '',
             '| stencil | DoF | unknowns | structilu apply GB/s | Gflop/s | vs cuSPARSE CSR | vs BSR | CSR GB/s | BSR GB/s | factor Gflop/s | factor vs CSR |',
             '|---|---|---|---|---|---|---|---|---|---|---|']
    for r in k:
        lines.append(f"| {r['stencil']} | {r['dof']} | {r['unknowns']} | {r['structilu_apply_GBs']:.1f} | {r['structilu_apply_Gflops']:.1f} | {r['speedup_vs_csr']:.2f}x | {r['speedup_vs_bsr']:.2f}x | {r['csr_apply_GBs']:.1f} | {r['bsr_apply_GBs']:.1f} | {r['structilu_factor_Gflops']:.1f} | {r['factor_speedup_vs_csr']:.2f}x |")
    if KERNEL_FAILURES:
        lines += ['', 'Failed kernel runs:', ''] + ['- ' + f for f in KERNEL_FAILURES]
    lines += ['', 'End to end:', '', '| case | preconditioner | iterations | KSPSolve s | PCApply us | exit |', '|---|---|---|---|---|---|']
    for r in e:
        ap_us = f"{r['apply_us']:.1f}" if 'apply_us' in r else ''
        lines.append(f"| {r['case']} | {r['pc']} | {r['iterations']} | {r['KSPSolve_s']} | {ap_us} | {r['rc']}{' (timed out)' if r['rc'] == 124 else ''} |")
    lines += model_lines(e)
    failed = [f"{r['case']} / {r['pc']}: {r.get('error', '')}" for r in e if r['rc']]
    if failed:
        lines += ['', 'Failed end-to-end runs:', ''] + ['- ' + f for f in failed]
    text = '\n'.join(lines) + '\n'
    with open(out, 'w') as f:
        f.write(text)
    print(text)
    if a.publish:
        report.publish([out])
    sys.exit(1 if KERNEL_FAILURES or failed else 0)


if __name__ == '__main__':
    main()
