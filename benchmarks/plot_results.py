#!/usr/bin/env python3
"""Bar chart of an xpose-bench run: per case, the ratio to memcpy of xpose and of each peer.

Usage:
  benchmarks/plot_results.py RESULTS.csv [--torch TORCH.csv] [--out chart.png] [--table 2d]
                             [--categories large,odd] [--columns 2] [--title TEXT]

RESULTS.csv is xpose-bench's --csv output. Rows of one table are drawn (default: `2d` when the file has such
rows, else `production`; `cpu` draws the CPU table on all threads). Per case, horizontal bars: xpose,
cuBLAS geam, cublasLt MatrixTransform, NPP nppiTranspose (from the same rows), and PyTorch from
TORCH.csv (benchmarks/peers/torch_transpose.py --csv, joined on the case name). A bar is drawn only where the
value exists; an output that failed verification is drawn hatched. The dashed line is memcpy (1.0); a short
black mark on the xpose bar is the case's target (the 2d suite's `target`; relative targets are not drawn).
Cases are grouped by category, in the order of the CSV; categories are laid out in --columns columns side by
side (largest category first into the shortest column). Needs matplotlib.
"""
import argparse
import csv
import math
import sys

SERIES = [  # (label, csv prefix, colour)
    ("xpose", "", "#1f5fbf"),
    ("cuBLAS geam", "geam_", "#e69f00"),
    ("cublasLt transform", "cublaslt_", "#009e73"),
    ("NPP nppiTranspose", "npp_", "#cc79a7"),
]
TORCH = ("PyTorch", "#7f7f7f")


def number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="xpose-bench CSV")
    ap.add_argument("--torch", action="append", default=[], help="torch_transpose.py CSV (repeatable)")
    ap.add_argument("--out", default="", help="PNG to write (default: the CSV's name with .png)")
    ap.add_argument("--table", default="", help="which table's rows: 2d, production, cpu (default: 2d if any)")
    ap.add_argument("--categories", default="", help="comma-separated categories to draw (default: all)")
    ap.add_argument("--title", default="", help="chart title (default: device, commit and date of the run)")
    ap.add_argument("--columns", type=int, default=2, help="columns of categories side by side (default 2)")
    args = ap.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = read_rows(args.csv)
    tables = {r["table"] for r in rows}
    table = args.table or ("2d" if "2d" in tables else "production" if "production" in tables else "cpu")
    rows = [r for r in rows if r["table"] == table and r["impl"].startswith("xpose")]
    if args.categories:
        wanted = set(args.categories.split(","))
        rows = [r for r in rows if r.get("category", "") in wanted]
    if not rows:
        sys.exit(f"plot_results.py: no '{table}' rows in {args.csv} (tables: {', '.join(sorted(tables))})")

    torch_by_case = {}
    for path in args.torch:
        for r in read_rows(path):
            torch_by_case[r["case"]] = r
    series = list(SERIES) + ([(TORCH[0], None, TORCH[1])] if torch_by_case else [])

    # values[case index][series index] = (ratio, verified) or None
    values = []
    for r in rows:
        line = []
        for label, prefix, _ in series:
            if prefix is None:
                t = torch_by_case.get(r["case"])
                v = number(t.get("ratio")) if t else None
                line.append((v, t.get("verified") == "yes") if v is not None else None)
            else:
                v = number(r.get(prefix + "ratio"))
                line.append((v, r.get(prefix + "verified") == "yes") if v is not None else None)
        values.append(line)
    present = [j for j in range(len(series)) if any(v[j] is not None for v in values)]

    # Categories (in CSV order) go to columns, largest first into the shortest column, so that a big category
    # (skinny: 50 cases) does not make one very tall chart; inside a column the CSV order is kept.
    order = []
    for r in rows:
        if r.get("category", "") not in order:
            order.append(r.get("category", ""))
    size = {c: sum(1 for r in rows if r.get("category", "") == c) for c in order}
    ncols = max(1, min(args.columns, len(order)))
    columns = [[] for _ in range(ncols)]
    for c in sorted(order, key=lambda c: -size[c]):
        min(columns, key=lambda col: sum(size[x] for x in col)).append(c)
    columns = [sorted(col, key=order.index) for col in columns if col]
    max_v = max([1.0] + [v[0] for line in values for v in line if v is not None])

    bar_h = 0.8 / len(present)
    group_gap = 0.6  # extra space between categories
    tallest = max(sum(size[c] for c in col) + group_gap * (len(col) - 1) for col in columns)
    fig_h = max(3.0, (0.09 * len(present) + 0.12) * tallest + 1.6)
    fig, axes = plt.subplots(1, len(columns), figsize=(8.5 * len(columns), fig_h), squeeze=False)
    for ax, col in zip(axes[0], columns):
        y, ticks, labels = 0.0, [], []
        for n_cat, cat in enumerate(col):
            if n_cat > 0:
                ax.axhline(y - 0.5 + group_gap / 2, color="#bbbbbb", linewidth=0.8)
                y += group_gap
            if cat:
                ax.text(max_v * 1.13, y - 0.5, cat, ha="right", va="top", fontsize=9, fontweight="bold")
            for i, r in enumerate(rows):
                if r.get("category", "") != cat:
                    continue
                for k, j in enumerate(present):
                    v = values[i][j]
                    if v is None:
                        continue
                    ratio, ok = v
                    ax.barh(y - 0.4 + (k + 0.5) * bar_h, ratio, height=bar_h * 0.92, color=series[j][2],
                            hatch=None if ok else "///", edgecolor="red" if not ok else series[j][2], linewidth=0.5)
                target = number(r.get("target"))
                if target is not None and not r.get("relative_to"):
                    ax.plot([target, target], [y - 0.45, y - 0.4 + bar_h], color="black", linewidth=2)
                ticks.append(y)
                labels.append(r["case"])
                y += 1.0
        ax.axvline(1.0, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=7.5)
        ax.set_ylim(max(y, tallest) - 0.4, -0.6)
        ax.set_xlim(0, max_v * 1.15)
        ax.set_xlabel("ratio to memcpy of the same bytes, same run (1.0 = memcpy; higher is better)", fontsize=8)
        ax.grid(axis="x", color="#eeeeee")
        ax.set_axisbelow(True)
    first = rows[0]
    title = args.title or (f"{first.get('device', '')}: {table} table, xpose {first.get('xpose_version', '')} "
                           f"(commit {first.get('git_commit', '')}), {first.get('date', '')}; "
                           "black mark: the case's target")
    handles = [Patch(color=series[j][2], label=series[j][0]) for j in present]
    handles.append(Patch(facecolor="white", edgecolor="red", hatch="///", label="output not verified"))
    # Fixed distances from the top in inches: title, then the legend, then the charts.
    fig.suptitle(title, fontsize=10, y=1 - 0.12 / fig_h, va="top")
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8,
               bbox_to_anchor=(0.5, 1 - 0.42 / fig_h))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.8 / fig_h))
    out = args.out or (args.csv.rsplit(".", 1)[0] + ".png")
    fig.savefig(out, dpi=110)
    print(f"wrote {out} ({len(rows)} cases, series: {', '.join(series[j][0] for j in present)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
