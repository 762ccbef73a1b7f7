#!/usr/bin/env python3
"""Turns xpose-bench CSV (table=ladder rows) into the Markdown tables of docs/kernels.md.

Usage: benchmarks/ladder_table.py results.csv > table.md
       benchmarks/ladder_table.py --update docs/kernels.md results.csv   (rewrites the marked section)
Prints GB/s and the ratio to cudaMemcpyAsync D2D of the same bytes (same run) per rung and size, including
the production kernel and cuBLAS geam rows the benchmark adds to the ladder table.
"""
import csv
import sys


def render(path):
    out = []
    print = lambda *a: out.append(" ".join(str(x) for x in a))  # noqa: E731 (collect instead of printing)
    rows = [r for r in csv.DictReader(open(path)) if r["table"] == "ladder"]
    sizes, kernels, cell = [], [], {}
    for r in rows:
        size, impl = r["case"], r["impl"]
        if size not in sizes:
            sizes.append(size)
        if impl not in kernels:
            kernels.append(impl)
        ok = "" if r["verified"] == "yes" else " (NOT verified)"
        cell[(impl, size)] = (float(r["gbps"]), float(r["ratio"]), ok)
    first = rows[0]
    print(f"Device: {first['device']}, {first['sm_count']} SMs; xpose {first['xpose_version']} "
          f"(commit {first['git_commit']}), {first['date']}; median of {first['reps']} runs.\n")
    for title, idx, fmt in (("Effective bandwidth, GB/s", 0, "{:.0f}"),
                            ("Ratio to `cudaMemcpyAsync` D2D of the same bytes, same run", 1, "{:.3f}")):
        print(f"{title}:\n")
        print("| kernel | " + " | ".join(s.replace("x", " x ") for s in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for k in kernels:
            vals = []
            for s in sizes:
                c = cell.get((k, s))
                vals.append("—" if c is None else fmt.format(c[idx]) + c[2])
            print(f"| {k} | " + " | ".join(vals) + " |")
        print()
    memcpy = {s: float(next(r for r in rows if r["case"] == s)["memcpy_gbps"]) for s in sizes}
    print("cudaMemcpyAsync D2D (GB/s): " + ", ".join(f"{s} {v:.0f}" for s, v in memcpy.items()))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 4 and argv[1] == "--update":
        doc, csv_path = argv[2], argv[3]
        text = open(doc).read()
        begin = text.index("<!-- ladder-results:begin")
        begin = text.index("\n", begin) + 1
        end = text.index("<!-- ladder-results:end -->")
        open(doc, "w").write(text[:begin] + render(csv_path) + text[end:])
    elif len(argv) == 2:
        sys.stdout.write(render(argv[1]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
