#!/usr/bin/env python3
"""bench/gpu/perf-plot.py [--sparse] STEM.json: the plots of make gpu-perf's report (bench/gpu/perf).

Without --sparse: StructILU's part, the achieved GB/s of one apply (both triangular sweeps: compulsory bytes over the
kernel time, as the report's table) against unknowns, StructILU and cuSPARSE CSR and BSR, one marker per stencil; the
device's peak (read from the device) as a line. Writes STEM.png.

With --sparse: the general-sparse part (the JSON's "sparse_runs", tests/ex21's PrintJSON*), a panel per kind of case:
the engine's algorithms and auto over cuSPARSE's best format, PCFGDD's apply and BiCGSTAB with it over cuSPARSE's ILU(0),
SPCG over PCG, ATS-ILU's setup over ParILU's, each with its issue-37 target as a line; a kind that did not run says so.
Writes STEM-sparse.png. Every figure is one the JSON holds or a ratio of two of them. A run on the emulation (the JSON's
"backend" is not "cuda") is titled as such: its times are the host's, not a GPU's."""
import argparse
import json
import math
import os

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def apply_rate(bytes3, fwd, bwd):
    """GB/s of one apply from the compulsory bytes [fwd, bwd, factor] and the smallest times in ms, None if not timed"""
    t = fwd[0] + bwd[0]
    return (bytes3[0] + bytes3[1]) / (t * 1e-3) / 1e9 if fwd[0] > 0 and bwd[0] > 0 else None


def series(runs):
    """{method: [(unknowns, GB/s, stencil)]}"""
    out = {'StructILU': [], 'cuSPARSE CSR': [], 'cuSPARSE BSR': []}
    for r in runs:
        s = r['structilu']
        out['StructILU'].append((r['unknowns'], apply_rate(s['bytes'], s['forward_ms'], s['backward_ms']), r['stencil']))
        for key, name in (('csr', 'cuSPARSE CSR'), ('bsr', 'cuSPARSE BSR')):
            c = r.get(key)
            if c:
                out[name].append((r['unknowns'], apply_rate(c['bytes'], c['lower_ms'], c['upper_ms']), r['stencil']))
    return {k: [p for p in v if p[1]] for k, v in out.items()}


def emulated(res):
    """the run was not on a GPU (bench/gpu/perf's GPU_PERF_EMULATE=1: backend cudaemu)"""
    return res.get('backend') != 'cuda'


def title(res, what):
    """the figure's title: the device, the date, what it shows, and the emulation's warning when it applies"""
    t = '%s, %s: %s' % (res.get('device', {}).get('name', '?'), res.get('date', ''), what)
    if emulated(res):
        t = 'EMULATION (back-end %s, no GPU): the times are the host\'s and mean nothing\n%s' % (res.get('backend', '?'), t)
    return t


def plot_structilu(res, out):
    """STEM.png: GB/s against unknowns"""
    marks = {'star7': 'o', 'star13': 's', 'diamond13': '^', 'diamond25': 'v', 'box27': 'D'}
    colors = {'StructILU': 'tab:blue', 'cuSPARSE CSR': 'tab:orange', 'cuSPARSE BSR': 'tab:green'}
    fig, ax = plt.subplots(figsize=(8, 5))
    for method, pts in series(res['runs']).items():
        for st, m in marks.items():
            sel = [(u, g) for u, g, s in pts if s == st]
            if sel:
                ax.scatter([u for u, _ in sel], [g for _, g in sel], marker=m, color=colors[method], label='%s %s' % (method, st))
    peak = res.get('device', {}).get('peak_GBs', 0)
    if peak:
        ax.axhline(peak, color='gray', linestyle='--', label='peak %.0f GB/s (memory clock x bus width)' % peak)
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('unknowns')
    ax.set_ylabel('GB/s of one apply (compulsory bytes / kernel time)')
    ax.set_title(title(res, 'triangular sweeps, StructILU vs cuSPARSE'), fontsize=9)
    ax.legend(fontsize=6, ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------------------- the general-sparse part
def lu_ms(m):
    """a method's L + U, ms (smallest times); PCFGDD's apply is all in lower_ms"""
    return m['lower_ms'][0] + m['upper_ms'][0]


def case_label(c):
    return '%s %d' % (c['matrix'], c['size'])


def engine_data(runs):
    """the engine's cases: (labels, {method: [speedup or None per case]}, reference) where speedup is the reference's
    L + U over the method's; the reference is cuSPARSE's best format, or, when no case has cuSPARSE times (the
    emulation), the fastest algorithm of the case (then the panel shows how far each is from the fastest)"""
    cases = [c for c in runs if c['kind'] == 'engine']
    cusparse = any(c['cusparse'].get('best_ms', 0) > 0 for c in cases)
    labels, speed = [], {}
    for c in cases:
        algs = [m for m in c['methods'] if m['name'] != 'auto' and lu_ms(m) > 0 and m['ran'] != 'not run on the device']
        ref = c['cusparse'].get('best_ms', 0) if cusparse else min((lu_ms(m) for m in algs), default=0)
        labels.append(case_label(c))
        for m in c['methods']:
            ok = ref > 0 and lu_ms(m) > 0 and m['ran'] != 'not run on the device'
            speed.setdefault(m['name'], [None] * len(cases))[len(labels) - 1] = ref / lu_ms(m) if ok else None
    return labels, speed, 'cusparse' if cusparse else 'fastest'


def times(v):
    """a speedup's label: two decimals, or two significant digits below 0.1 (the emulation's tiny ratios)"""
    return ('%.2gx' if v < 0.1 else '%.2fx') % v


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def not_run(ax, what):
    """a panel whose cases are not in the JSON"""
    ax.text(0.5, 0.5, what, ha='center', va='center', transform=ax.transAxes, fontsize=9, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def target(ax, y, text, color='gray', left=False):
    """a horizontal line at y labelled text (at the panel's right end, or its left)"""
    ax.axhline(y, color=color, linestyle='--', linewidth=1)
    ax.annotate(text, (0 if left else 1, y), xycoords=('axes fraction', 'data'), ha='left' if left else 'right', va='bottom',
                fontsize=7, color=color)


def panel_engine(ax, runs):
    """(a) the engine: each algorithm and auto per matrix, over cuSPARSE's best format (1x and the 2x target)"""
    labels, speed, ref = engine_data(runs)
    ax.set_title('(a) triangular-solve engine, L + U (ILU(0))', fontsize=9)
    if not labels:
        not_run(ax, 'not run: no sparse-engine-* case in this report')
        return
    if not any(v for s in speed.values() for v in s):
        not_run(ax, 'no time to compare in this report (see the rows of the engine table)')
        return
    names = [n for n in speed if n != 'auto'] + (['auto'] if 'auto' in speed else [])
    for k, n in enumerate(names):
        x = [i + (k - (len(names) - 1) / 2) * 0.1 for i in range(len(labels))]
        pts = [(xi, v) for xi, v in zip(x, speed[n]) if v]
        g = geomean(speed[n])
        style = dict(marker='*', s=90, color='black', zorder=3) if n == 'auto' else dict(marker='o', s=22)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], label='%s (geomean %.2fx)' % (n, g) if g else n, **style)
    ax.set_yscale('log')
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha='right', fontsize=7)
    if ref == 'cusparse':
        ax.set_ylabel('speedup over cuSPARSE\'s best format (L + U)', fontsize=8)
        target(ax, 1, '1x: cuSPARSE')
        target(ax, 2, 'target 2x (geometric mean, >= 1M rows)', 'tab:red', left=True)
    else:
        ax.set_ylabel('fastest algorithm\'s L + U / this one\'s', fontsize=8)
        ax.set_title('(a) triangular-solve engine, L + U (ILU(0)); no cuSPARSE times in this run', fontsize=9)
        target(ax, 1, 'the fastest algorithm', left=True)
        target(ax, 1 / 1.1, 'auto\'s target: within 10%', 'tab:red')
    # room above the points for the legend (log scale: a factor)
    top = max(v for s in speed.values() for v in s if v)
    ax.set_ylim(top=max(top, 2 if ref == 'cusparse' else 1) * 8)
    ax.legend(fontsize=6, ncol=3, loc='upper center')


def fgdd_data(runs):
    """[(label, speedup or None, why)]: PCFGDD's apply over cuSPARSE's L + U, BiCGSTAB end to end and per iteration"""
    bars = []
    for c in runs:
        if c['kind'] == 'fgdd':
            best, apply_ms = c['cusparse'].get('best_ms', 0), lu_ms(c['methods'][0])
            bars.append(('apply over cuSPARSE L + U\n%s' % case_label(c), best / apply_ms if best > 0 and apply_ms > 0 else None,
                         'no cuSPARSE times' if best <= 0 else 'not timed'))
        elif c['kind'] == 'bcgs':
            refs = ', '.join(s['name'] for s in c['solves'][1:])
            why = 'a solve did not converge' if any(not s['reason'].startswith('CONVERGED') for s in c['solves']) else 'not timed'
            bars.append(('BiCGSTAB end to end\nvs %s\n%s' % (refs, case_label(c)), c['speedup'] or None, why))
            bars.append(('BiCGSTAB per iteration\n%s' % case_label(c), c['speedup_per_iteration'] or None, why))
    return bars


def panel_fgdd(ax, runs):
    """(b) PCFGDD: the apply over cuSPARSE's ILU(0) solves (5x target), BiCGSTAB with it end to end (2x target)"""
    bars = fgdd_data(runs)
    ax.set_title('(b) PCFGDD against ILU(0)', fontsize=9)
    if not bars:
        not_run(ax, 'not run: no sparse-fgdd-* case in this report')
        return
    for i, (lab, v, why) in enumerate(bars):
        if v:
            ax.bar(i, v, color='tab:blue' if lab.startswith('apply') else 'tab:green')
            ax.text(i, v, times(v), ha='center', va='bottom', fontsize=7)
        else:
            ax.text(i, 1.1, why, ha='center', va='bottom', fontsize=7)
    ax.set_yscale('log')
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([b[0] for b in bars], fontsize=6)
    ax.set_ylabel('speedup (the reference\'s time / PCFGDD\'s)', fontsize=8)
    target(ax, 1, '1x')
    if any(b[0].startswith('apply') for b in bars):
        target(ax, 5, 'target 5x: the apply', 'tab:blue')
    if any(b[0].startswith('BiCGSTAB end') for b in bars):
        target(ax, 2, 'target 2x: end to end', 'tab:green')
    ax.set_ylim(min([b[1] for b in bars if b[1]] + [0.5]) / 2, max([b[1] or 0 for b in bars] + [5]) * 2)


def spcg_data(runs):
    """(labels, {ilu_levels: ([iterative phase], [per iteration])}) of SPCG over PCG, None where not converged"""
    cases = [c for c in runs if c['kind'] == 'spcg']
    out = {}
    for i, c in enumerate(cases):
        for s in c['speedups']:
            ph, pi = out.setdefault(s['ilu_levels'], ([None] * len(cases), [None] * len(cases)))
            ph[i], pi[i] = s['iterative_phase'] or None, s['per_iteration'] or None
    return [case_label(c) for c in cases], out


def panel_spcg(ax, runs):
    """(c) SPCG over PCG with the same inner ILU: the iterative phase (bars) and per iteration (markers), per problem"""
    labels, sp = spcg_data(runs)
    ax.set_title('(c) SPCG (PCSPARSIFY) over PCG, KSPCG\'s iterative phase', fontsize=9)
    if not labels:
        not_run(ax, 'not run: no sparse-spcg-* case in this report')
        return
    colors = ['tab:blue', 'tab:orange']
    w = 0.8 / max(len(sp), 1)
    for k, lev in enumerate(sorted(sp)):
        ph, pi = sp[lev]
        x = [i + (k - (len(sp) - 1) / 2) * w for i in range(len(labels))]
        g = geomean(ph)
        ax.bar([xi for xi, v in zip(x, ph) if v], [v for v in ph if v], w, color=colors[k % 2],
               label='ILU(%d), iterative phase%s' % (lev, ' (geomean %.2fx)' % g if g else ''))
        ax.scatter([xi for xi, v in zip(x, pi) if v], [v for v in pi if v], marker='_', s=150, color='black', zorder=3,
                   label='per iteration' if k == 0 else None)
        for xi, v in zip(x, ph):
            if not v:
                ax.text(xi, 0.05, 'not converged', rotation=90, fontsize=6, ha='center', va='bottom')
        target(ax, 1.2 if lev == 0 else 1.5, 'target %sx: ILU(%d)' % ('1.2' if lev == 0 else '1.5', lev), colors[k % 2])
    target(ax, 1, '1x: PCG')
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha='right', fontsize=7)
    ax.set_ylabel('PCG / SPCG', fontsize=8)
    ax.legend(fontsize=6, loc='lower right')


def ats_data(runs):
    """[(label, ParILU's setup over ATS's or None, ATS's final residual, ParILU's)]"""
    out = []
    for c in runs:
        if c['kind'] == 'ats':
            a = {x['name']: x for x in c['algorithms']}
            t, p = a['ats']['setup_ms'][0], a['parilu']['setup_ms'][0]
            out.append((case_label(c), p / t if t > 0 and p > 0 else None, a['ats']['residual'], a['parilu']['residual']))
    return out


def panel_ats(ax, runs):
    """(d) ATS-ILU's setup over ParILU's, the same sweeps; the final ||A - LU|| / ||A|| each reached under its bar"""
    rows = ats_data(runs)
    ax.set_title('(d) PCATSILU\'s setup: ATS-ILU over ParILU, the same sweeps', fontsize=9)
    if not rows:
        not_run(ax, 'not run: no sparse-ats-* case in this report')
        return
    for i, (lab, v, ra, rp) in enumerate(rows):
        if v:
            ax.bar(i, v, color='tab:purple')
            ax.text(i, v, times(v), ha='center', va='bottom', fontsize=7)
        else:
            ax.text(i, 0.5, 'not timed', ha='center', fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(['%s\nresidual ATS %.1e\nParILU %.1e' % (r[0], r[2], r[3]) for r in rows], fontsize=6)
    ax.set_ylabel('ParILU\'s PCSetUp / ATS-ILU\'s', fontsize=8)
    target(ax, 1, '1x: ParILU')
    ax.set_ylim(0, max([r[1] or 0 for r in rows] + [1.2]) * 1.2)


def plot_sparse(res, out):
    """STEM-sparse.png: the four panels of the general-sparse part"""
    runs = res.get('sparse_runs', [])
    fig, axs = plt.subplots(2, 2, figsize=(13, 9))
    panel_engine(axs[0][0], runs)
    panel_fgdd(axs[0][1], runs)
    panel_spcg(axs[1][0], runs)
    panel_ats(axs[1][1], runs)
    fig.suptitle(title(res, 'general sparse (issue 37), speedups from kernel / wall-clock times'), fontsize=10,
                 color='tab:red' if emulated(res) else 'black')
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sparse', action='store_true', help='the general-sparse part (STEM-sparse.png)')
    ap.add_argument('json', help='STEM.json of bench/gpu/perf')
    a = ap.parse_args()
    with open(a.json) as f:
        res = json.load(f)
    stem = os.path.splitext(a.json)[0]
    out = stem + ('-sparse.png' if a.sparse else '.png')
    (plot_sparse if a.sparse else plot_structilu)(res, out)
    print(out)


if __name__ == '__main__':
    main()
