#!/usr/bin/env python3
"""bench/gpu/perf-plot.py STEM.json: the plot of make gpu-perf's report (bench/gpu/perf): achieved GB/s of one apply
(both triangular sweeps: compulsory bytes over the kernel time, as the report's table) against unknowns, StructILU and
cuSPARSE CSR and BSR, one marker per stencil; the device's peak (read from the device) as a line. Writes STEM.png."""
import json
import os
import sys

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


def main():
    path = sys.argv[1]
    with open(path) as f:
        res = json.load(f)
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
    ax.set_title('%s, %s: triangular sweeps, StructILU vs cuSPARSE' % (res.get('device', {}).get('name', '?'), res.get('date', '')))
    ax.legend(fontsize=6, ncol=3)
    fig.tight_layout()
    out = os.path.splitext(path)[0] + '.png'
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == '__main__':
    main()
