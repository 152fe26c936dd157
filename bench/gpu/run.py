#!/usr/bin/env python3
"""bench/gpu/run.py: PCSTRUCTILU's CUDA kernels against cuSPARSE on one NVIDIA GPU, in the same run.

    bench/gpu/run.py [--quick] [--out FILE.md]      (after `make all`; needs a GPU and a build with CUDA)

Part 1, kernels (seed 000, Figure 7): for the stencils star5 and diamond13 (2D), star7 and box27 (3D) and DoF 1, 2, 4,
5, 8, tests/ex6 -bench times on the device
  - PCSTRUCTILU's setup (device factorization, with the upload of the matrix values) and apply (forward + backward
    sweep), -gilu_backend cuda;
  - cuSPARSE ILU(0) + triangular solves: CSR (csrilu02 + SpSV) with -dm_mat_type aij, BSR (bsrilu02 + bsrsv2) with
    -dm_mat_type baij;
and reports GB/s (bytes of factors and vectors each method must move, over its time) and Gflop/s.
With Debian's host-only PETSc, every apply (PCSTRUCTILU's and cuSPARSE's) copies b to the device and x back: both
include the same copies; the copy time is given by -log_view's GILUCopyToGPU / GILUCopyToCPU events.
Part 2, end to end (seed 000, Table 4): PETSc's ex45 (3D Poisson, CG) and snes ex19 (DoF 4) with -pc_type structilu
-gilu_backend cuda against -pc_type ilu on the host: KSPSolve time and iterations.
Writes a markdown table to stdout and to --out (default bench/results/<date>-<host>-gpu.md).
"""
import argparse, datetime, os, re, socket, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX6 = os.path.join(ROOT, 'build', 'tests', 'tests', 'ex6')
LIB = os.path.join(ROOT, 'lib', 'libpetscgilu.so')
EXDIR = os.path.join(ROOT, 'build', 'petsc-examples')
NOFF = {'star5': (2, 5), 'diamond13': (2, 13), 'star7': (3, 7), 'box27': (3, 27)}


def sh(cmd, timeout=900):
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get('OMP_NUM_THREADS', '1'))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, str(e)
    return p.returncode, p.stdout + p.stderr


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


def end_to_end(quick):
    cases = [('ex45 CG 3D Poisson', 'ksp_ksp_tutorials_ex45', ['-ksp_type', 'cg'] + (['-da_grid_x', '33', '-da_grid_y', '33', '-da_grid_z', '33'] if quick else ['-da_grid_x', '129', '-da_grid_y', '129', '-da_grid_z', '129'])),
             ('snes ex19 DoF 4', 'snes_tutorials_ex19', ['-da_grid_x', '64', '-da_grid_y', '64'] if quick else ['-da_grid_x', '512', '-da_grid_y', '512'])]
    rows = []
    for name, exe, args in cases:
        path = os.path.join(EXDIR, exe)
        if not os.path.exists(path):
            print(f'# {exe} not built: run make check s=petsc-examples* once', file=sys.stderr)
            continue
        for label, pc in (('host ilu', ['-pc_type', 'ilu']), ('structilu host', ['-pc_type', 'structilu', '-gilu_backend', 'host']), ('structilu cuda', ['-pc_type', 'structilu', '-gilu_backend', 'cuda'])):
            rc, out = sh([path, '-dll_append', LIB, '-ksp_converged_reason', '-log_view'] + args + pc, timeout=1800)
            its = re.findall(r'iterations (\d+)', out)
            t = re.search(r'^KSPSolve\s+\d+\s+\S+\s+(\S+)', out, re.M)
            rows.append({'case': name, 'pc': label, 'iterations': ' '.join(its), 'KSPSolve_s': float(t.group(1)) if t else None, 'rc': rc})
            print(rows[-1], file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--out')
    a = ap.parse_args()
    rc, out = sh(['nvidia-smi', '-L'])
    if rc or 'GPU' not in out:
        sys.exit('bench/gpu/run.py: no NVIDIA GPU found (nvidia-smi -L); this benchmark needs one')
    if not os.path.exists(EX6):
        sh(['make', '-s', '-C', ROOT, 'all'])
        sh(['make', '-s', '-f', os.path.join(ROOT, 'gmakefile.test'), 'PETSCGILU_DIR=' + ROOT, 'PETSC_DIR=/usr/lib/petsc', 'PETSC_ARCH=', 'TESTDIR=' + os.path.join(ROOT, 'build', 'tests'), EX6])
    gpu = out.splitlines()[0]
    k = kernels(a.quick)
    e = end_to_end(a.quick)
    lines = [f'# PCSTRUCTILU on {gpu} ({datetime.date.today()}, {socket.gethostname()})', '',
             'Kernels (tests/ex6 -bench 20; times include the copies of b and x, the same for all methods):', '',
             '| stencil | DoF | unknowns | structilu apply GB/s | Gflop/s | vs cuSPARSE CSR | vs BSR | CSR GB/s | BSR GB/s | factor Gflop/s | factor vs CSR |',
             '|---|---|---|---|---|---|---|---|---|---|---|']
    for r in k:
        lines.append(f"| {r['stencil']} | {r['dof']} | {r['unknowns']} | {r['structilu_apply_GBs']:.1f} | {r['structilu_apply_Gflops']:.1f} | {r['speedup_vs_csr']:.2f}x | {r['speedup_vs_bsr']:.2f}x | {r['csr_apply_GBs']:.1f} | {r['bsr_apply_GBs']:.1f} | {r['structilu_factor_Gflops']:.1f} | {r['factor_speedup_vs_csr']:.2f}x |")
    lines += ['', 'End to end:', '', '| case | preconditioner | iterations | KSPSolve s |', '|---|---|---|---|']
    for r in e:
        lines.append(f"| {r['case']} | {r['pc']} | {r['iterations']} | {r['KSPSolve_s']} |")
    text = '\n'.join(lines) + '\n'
    out = a.out or os.path.join(ROOT, 'bench', 'results', f'{datetime.date.today()}-{socket.gethostname()}-gpu{"-quick" if a.quick else ""}.md')
    with open(out, 'w') as f:
        f.write(text)
    print(text)


if __name__ == '__main__':
    main()
