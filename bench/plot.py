#!/usr/bin/env python3
"""Draw the benchmark plots from the spec bench/run.py writes (build/bench/<stem>-plot.json).

    python3 bench/plot.py SPEC.json

Needs matplotlib (Debian: python3-matplotlib). run.py computes every number; this file only draws:
  out_speed:     structilu apply speedup over PETSc ilu, grouped bars per stencil and DoF, 1 and 2 threads
  out_breakdown: PCSetUp / PCApply / rest of KSPSolve per configuration for the headline problem
"""
import json
import math
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

spec = json.load(open(sys.argv[1]))
stencils, dofs, speed = spec['stencils'], spec['dofs'], spec['speed']
colors = ['#4C72B0', '#55A868', '#DD8452', '#8172B3']
note = ' (quick size: tiny problems, not a performance measurement)' if spec['size'] == 'quick' else ''

# ---- apply speedup, grouped bars
if speed:
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    width = 0.8 / len(dofs)
    vals = [v for v in speed.values() if v]
    ymax = max(vals + [3.2]) * 1.15
    # a log axis when the speedups span more than a factor 20 (e.g. a slow threaded path next to a fast one)
    logy = bool(vals) and min(vals) < ymax / 20
    ymin = 10 ** math.floor(math.log10(min(vals))) if logy else 0
    if logy:
        ymax = ymax * 2
    for ax, cid, title in zip(axes, ('structilu-t1', 'structilu-t2'), ('1 thread', '2 threads')):
        for j, d in enumerate(dofs):
            xs, ys, labels = [], [], []
            for i, st in enumerate(stencils):
                v = speed.get('%s|%d|%s' % (st, d, cid))
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(v if v else (ymin if logy else 0.0))
                labels.append(('%.2f' % v if v >= 0.01 else '%.1g' % v) if v else 'n/a')
            bars = ax.bar(xs, ys, width * 0.92, color=colors[j % len(colors)], label='DoF %d' % d)
            for b, lab in zip(bars, labels):
                top = b.get_y() + b.get_height()
                ax.text(b.get_x() + b.get_width() / 2, top * 1.05 if logy else top + ymax * 0.01, lab, ha='center', va='bottom',
                        fontsize=7.5, rotation=90)
        ax.axhline(1.0, color='black', lw=1)
        ax.axhline(3.0, color='#C44E52', lw=1, ls='--')
        ax.text(-0.45, 3.0, 'target 3x', color='#C44E52', ha='left', va='bottom', fontsize=9)
        ax.set_xticks(range(len(stencils)))
        ax.set_xticklabels(stencils, fontsize=10)
        if logy:
            ax.set_yscale('log')
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: '%g' % y))
        ax.set_ylim(ymin, ymax)
        ax.set_title('structilu, %s' % title, fontsize=11)
        ax.grid(axis='y', alpha=0.3)
    axes[0].set_ylabel('PETSc ilu time per apply / structilu time per apply' + (' (log scale)' if logy else ''), fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc='lower center', ncol=len(dofs), fontsize=10, frameon=False)
    fig.suptitle('Preconditioner apply speedup over PETSc ILU(0) (AIJ, 1 thread), host %s%s' % (spec['host'], '\n' + note.strip() if note else ''),
                 fontsize=12)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(spec['out_speed'], dpi=110)
    plt.close(fig)

# ---- headline breakdown, horizontal stacked bars
bd = spec['breakdown']
if bd:
    fig, ax = plt.subplots(figsize=(11, 0.55 * len(bd) + 1.8))
    ys = list(range(len(bd)))[::-1]
    parts = (('setup', 'PCSetUp', '#DD8452'), ('apply', 'PCApply (all applications)', '#4C72B0'), ('other', 'rest of KSPSolve', '#BBBBBB'))
    left = [0.0] * len(bd)
    for k, lab, col in parts:
        vals = [r[k] for r in bd]
        ax.barh(ys, vals, left=left, color=col, label=lab, height=0.6)
        left = [a + b for a, b in zip(left, vals)]
    xmax = max(left) * 1.25 if max(left) > 0 else 1
    for y, r, tot in zip(ys, bd, left):
        ax.text(tot + xmax * 0.01, y, '%.3g s, %s its' % (tot, r['its']), va='center', fontsize=9)
    ax.set_yticks(ys)
    ax.set_yticklabels([r['label'] for r in bd], fontsize=9.5)
    ax.set_xlim(0, xmax)
    ax.set_xlabel('seconds (PCSetUp + KSPSolve, from -log_view)')
    ax.set_title('%s%s' % (spec['headline_title'], '\n' + note.strip() if note else ''), fontsize=11)
    ax.legend(loc='lower right', fontsize=9)
    ax.grid(axis='x', alpha=0.3)
    fig.tight_layout()
    fig.savefig(spec['out_breakdown'], dpi=110)
    plt.close(fig)
