#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots and tables from a clbench CSV.

    scripts/plot_bench.py results.csv outdir/ [--doc docs/performance.md]
                          [--label pocl]

Writes to outdir/:
  <label>-time-vs-pixels-<element>.png   ms/frame against pixels, one panel
                                         per format, one line per impl+case
  <label>-convolve-vs-ksize.png          clconvolve ms/frame against kernel
                                         size at the sweep frame size,
                                         separable (solid) and 2-D (dashed)
  <label>-tables.md                      markdown tables (1080p, fixed costs)
With --doc, the tables replace what lies between
<!-- BEGIN <label> TABLES --> and <!-- END <label> TABLES --> in that file.

Needs matplotlib (apt-get install python3-matplotlib); run with /usr/bin/python3.
"""
import argparse
import csv
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIXED = ("first-frame", "overhead")
SEPARABLE = ("box", "gaussian")


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r["width"] = int(r["width"])
            r["height"] = int(r["height"])
            r["pixels"] = r["width"] * r["height"]
            r["ksize"] = int(r["ksize"]) if r["ksize"] else 0
            r["n"] = int(r["n"] or 0)
            for k in ("median_ms", "p10_ms", "p90_ms", "mpix_s", "kernel_ms"):
                # kernel_ms: --kernel-time runs only (absent in older CSVs)
                r[k] = float(r[k]) if r.get(k) else None
            rows.append(r)
    return rows


def measured(rows):
    return [r for r in rows if r["n"] > 0 and r["median_ms"] is not None]


def is_fixed(r):
    return r["case"].startswith(FIXED)


def style(impl):
    # our elements bold, yardsticks thin
    ours = impl.startswith("clfilters")
    return dict(linewidth=2.4 if ours else 1.2, marker="o" if ours else ".")


def plot_vs_pixels(rows, outdir, label):
    out = []
    by_el = defaultdict(list)
    for r in measured(rows):
        if not is_fixed(r):
            by_el[r["element"]].append(r)
    for element, rs in sorted(by_el.items()):
        # a series is (impl, case, format) seen at 2+ sizes
        series = defaultdict(list)
        for r in rs:
            series[(r["format"], r["impl"], r["case"])].append(r)
        series = {k: v for k, v in series.items()
                  if len({r["pixels"] for r in v}) >= 2}
        if not series:
            continue
        formats = sorted({k[0] for k in series})
        fig, axes = plt.subplots(1, len(formats), squeeze=False,
                                 figsize=(6.5 * len(formats), 5))
        for ax, fmt in zip(axes[0], formats):
            for (f, impl, case), v in sorted(series.items()):
                if f != fmt:
                    continue
                v.sort(key=lambda r: r["pixels"])
                x = [r["pixels"] / 1e6 for r in v]
                y = [r["median_ms"] for r in v]
                lo = [r["median_ms"] - (r["p10_ms"] or r["median_ms"])
                      for r in v]
                hi = [(r["p90_ms"] or r["median_ms"]) - r["median_ms"]
                      for r in v]
                ax.errorbar(x, y, yerr=[lo, hi], capsize=2,
                            label=f"{impl} {case}", **style(impl))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("Mpixels per frame")
            ax.set_ylabel("ms per frame (median, p10-p90)")
            ax.set_title(f"{element} {fmt}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        dev = device_of(rows)
        fig.suptitle(f"{element}: time against frame size ({dev})",
                     fontsize=10)
        fig.tight_layout()
        name = os.path.join(outdir, f"{label}-time-vs-pixels-{element}.png")
        fig.savefig(name, dpi=110)
        plt.close(fig)
        out.append(name)
    return out


def plot_vs_ksize(rows, outdir, label):
    rs = [r for r in measured(rows)
          if r["element"] == "convolve" and r["ksize"] and not is_fixed(r)]
    if not rs:
        return []
    # the sweep size: the one with the most kernel sizes
    count = defaultdict(set)
    for r in rs:
        count[(r["width"], r["height"])].add(r["ksize"])
    w, h = max(count, key=lambda k: len(count[k]))
    rs = [r for r in rs if (r["width"], r["height"]) == (w, h)]
    formats = sorted({r["format"] for r in rs})
    fig, axes = plt.subplots(1, len(formats), squeeze=False,
                             figsize=(6.5 * len(formats), 5))
    for ax, fmt in zip(axes[0], formats):
        series = defaultdict(list)
        for r in rs:
            if r["format"] == fmt:
                kind = re.sub(r"-\d+x\d+$", "", r["case"])
                series[(r["impl"], kind)].append(r)
        for (impl, kind), v in sorted(series.items()):
            if len({r["ksize"] for r in v}) < 2:
                continue
            v.sort(key=lambda r: r["ksize"])
            ls = "-" if kind in SEPARABLE else "--"
            ax.plot([r["ksize"] for r in v], [r["median_ms"] for r in v],
                    linestyle=ls, label=f"{impl} {kind}"
                    f" ({'separable' if kind in SEPARABLE else '2-D'})",
                    **style(impl))
        ax.set_yscale("log")
        ax.set_xlabel("kernel size (k x k)")
        ax.set_ylabel("ms per frame (median)")
        ax.set_title(f"clconvolve {fmt} {w}x{h}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"convolution: time against kernel size ({device_of(rows)})",
                 fontsize=10)
    fig.tight_layout()
    name = os.path.join(outdir, f"{label}-convolve-vs-ksize.png")
    fig.savefig(name, dpi=110)
    plt.close(fig)
    return [name]


def device_of(rows):
    for r in rows:
        if r["impl"].startswith("clfilters") and r["n"] > 0 and r["device"]:
            return r["device"]
    return "no clfilters figures"


def fmt_ms(v):
    return "" if v is None else f"{v:.3f}"


def tables(rows, size=(1920, 1080)):
    lines = []
    m = measured(rows)
    skipped = [r for r in rows if r["n"] == 0]
    lines.append(f"Device: {device_of(rows)}\n")
    for element in ("histogram", "convolve", "integral"):
        rs = [r for r in m if r["element"] == element and not is_fixed(r)
              and (r["width"], r["height"]) == size]
        if not rs:
            continue
        lines.append(f"\n**{element}, {size[0]}x{size[1]}** (ms per frame)\n")
        lines.append("| case | format | impl | median | p10 | p90 | Mpix/s "
                     "| kernel |")
        lines.append("|---|---|---|---:|---:|---:|---:|---:|")
        rs.sort(key=lambda r: (r["case"], r["format"],
                               r["impl"] != "clfilters", r["impl"]))
        for r in rs:
            lines.append(f"| {r['case']} | {r['format']} | {r['impl']} | "
                         f"{fmt_ms(r['median_ms'])} | {fmt_ms(r['p10_ms'])} | "
                         f"{fmt_ms(r['p90_ms'])} | {r['mpix_s'] or 0:.0f} | "
                         f"{fmt_ms(r['kernel_ms'])} |")
    fx = [r for r in m if is_fixed(r)]
    if fx:
        lines.append("\n**Fixed costs** (ms)\n")
        lines.append("| element | case | format | size | median | p10 | p90 |")
        lines.append("|---|---|---|---|---:|---:|---:|")
        for r in fx:
            lines.append(f"| {r['element']} | {r['case']} | {r['format']} | "
                         f"{r['width']}x{r['height']} | "
                         f"{fmt_ms(r['median_ms'])} | {fmt_ms(r['p10_ms'])} | "
                         f"{fmt_ms(r['p90_ms'])} |")
    if skipped:
        reasons = defaultdict(int)
        for r in skipped:
            reasons[(r["impl"], r["note"])] += 1
        lines.append("\n**Skipped cases**\n")
        lines.append("| impl | reason | cases |")
        lines.append("|---|---|---:|")
        for (impl, note), n in sorted(reasons.items()):
            lines.append(f"| {impl} | {note.replace('|', '/')} | {n} |")
    return "\n".join(lines) + "\n"


def update_doc(doc, label, text):
    begin, end = f"<!-- BEGIN {label} TABLES -->", f"<!-- END {label} TABLES -->"
    with open(doc) as f:
        content = f.read()
    if begin not in content or end not in content:
        sys.exit(f"{doc}: markers {begin} / {end} not found")
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(doc, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("outdir")
    ap.add_argument("--label", default="bench",
                    help="file name prefix, e.g. pocl or h100 (default bench)")
    ap.add_argument("--doc", help="markdown file whose tables to replace")
    ap.add_argument("--size", default="1920x1080",
                    help="frame size of the tables (default 1920x1080)")
    a = ap.parse_args()
    rows = load(a.csv)
    os.makedirs(a.outdir, exist_ok=True)
    pngs = plot_vs_pixels(rows, a.outdir, a.label)
    pngs += plot_vs_ksize(rows, a.outdir, a.label)
    w, h = (int(v) for v in a.size.split("x"))
    text = tables(rows, (w, h))
    md = os.path.join(a.outdir, f"{a.label}-tables.md")
    with open(md, "w") as f:
        f.write(text)
    if a.doc:
        update_doc(a.doc, a.label, text)
    for p in pngs + [md]:
        print(p)


if __name__ == "__main__":
    main()
