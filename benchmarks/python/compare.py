#!/usr/bin/env python3
"""xpose from Python against what Python users write today, on the same GPU buffers in the same run.

For each case of the suites (benchmarks/suites/NAME.txt, the format of tools/xpose-bench/suites.hpp; the same
parsing and element-type mapping as benchmarks/peers/torch_transpose.py):
  - xpose:  `xpose.permute(x, axes)` on the PyTorch tensor (`xpose.transpose(x)` for a plain 2-D transpose);
  - torch:  `x.permute(axes).contiguous()` (`x.t().contiguous()` for a plain 2-D transpose);
  - cupy:   `cupy.ascontiguousarray(cupy.transpose(c, axes))` on a CuPy view of the same memory;
  into a pitched output (cases with out_strides) each writes the output view instead (`out=`, `copy_`, `[...] =`).
  Element types: 1 B uint8, 2 B float16, 4 B float32, 8 B float64, 16 B complex128; other sizes E are E / w
  channels of a w-byte type (w = gcd(E, 8)), the channel axis last and unpermuted.
  - reference: a D2D copy (`dst.copy_(src)`, cudaMemcpyAsync) of the same payload bytes, same buffers, same run;
  - timing: CUDA events around one pass over n rotating input/output pairs (n = ceil(4 x L2 / payload) below
    4 x L2, at most 256, so payloads under ~0.8 MB on an H100 rotate through less than 4 x L2 and run partly
    from L2), divided by n; the median of --reps samples after warm-up. Each pass is captured once as a CUDA
    graph and replayed (PyTorch's graphs for torch and xpose, CuPy's for CuPy), so Python's call overhead does
    not count for any of them (--no-graph times eager calls behind a spinning kernel that parks the stream
    while Python enqueues the pass). The memcpy reference is always launched eagerly behind such a spin;
  - verification: outputs are poisoned before the timed replays; afterwards every xpose and CuPy output is
    compared byte for byte with PyTorch's output of the same input (on the device).

Throughput = (bytes read + bytes written) / time. The summary gives, per suite, each library's median
throughput and xpose's median over PyTorch's (issue 8's target: >= 2.5), and the median of per-case speedups.

Usage (GPU machine; xpose importable, e.g. after `pip install .`):
  python3 benchmarks/python/compare.py --suites nd,2d --csv compare.csv --plot compare.png
  python3 benchmarks/python/compare.py --suites 2d --categories odd,large --reps 20
Exit code: 0 when every row verified, 1 otherwise, 2 for bad arguments.
"""
import argparse
import csv
import datetime
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "peers"))
import torch_transpose as peers  # noqa: E402  (suite parsing, element types, git commit)

MIN_REPS = 20
MAX_PAIRS = 256
POISON = 0xA5
IMPLS = ("xpose", "torch", "cupy")


class Timer:
    def __init__(self, torch, cupy, args):
        self.torch, self.cupy, self.args = torch, cupy, args

    def median_us(self, run_pass, n, stream, park=False):
        """Median per-run time (us) of `reps` samples of `run_pass` (one pass over n pairs) on `stream`.
        park: before each sample the stream spins (torch.cuda._sleep) long enough for Python to enqueue the
        whole pass, so that an eager pass is timed on the GPU, not at Python's launch rate."""
        torch = self.torch
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.reps)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.reps)]
        with torch.cuda.stream(stream):
            for s, e in zip(starts, stops):
                if park:
                    torch.cuda._sleep(1_000_000 + 40_000 * n)  # ~0.5 ms + ~20 us a call at ~2 GHz
                s.record()
                run_pass()
                e.record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) * 1e3 / n for s, e in zip(starts, stops))

    def torch_pass(self, fn, n):
        """(run_pass, outputs, stream): `fn` over the n pairs, warmed up, captured as a PyTorch CUDA graph."""
        torch = self.torch
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for w in range(max(self.args.warmup, 1)):
                fn(w % n)
        torch.cuda.synchronize()
        if self.args.no_graph:
            return (lambda: [fn(i) for i in range(n)]), None, stream
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            outs = [fn(i) for i in range(n)]
        torch.cuda.synchronize()
        return graph.replay, outs, stream

    def cupy_pass(self, fn, n):
        """The same for CuPy: warm-up on a CuPy stream (so that its memory pool holds the outputs' blocks for
        that stream), then one pass captured with CuPy's stream capture. The timing events go on the same
        stream (wrapped for PyTorch)."""
        cupy, torch = self.cupy, self.torch
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            outs = [fn(i) for i in range(n)]
            for w in range(max(self.args.warmup, 1)):
                fn(w % n)
        stream.synchronize()
        del outs
        tstream = torch.cuda.ExternalStream(stream.ptr)
        if self.args.no_graph:
            def eager():
                with stream:
                    [fn(i) for i in range(n)]
            return eager, None, tstream
        with stream:
            stream.begin_capture()
            outs = [fn(i) for i in range(n)]
            graph = stream.end_capture()
        graph.upload(stream)
        stream.synchronize()
        return (lambda: graph.launch(stream)), outs, tstream


def run_case(case, timer, torch, cupy, xpose, device_info):
    row_base = {"index": case.index, "case": case.name, "suite": case.suite, "category": case.category, "shape": case.shape_string(),
                "axes": case.axes_string(), "elem_bytes": case.elem, "bytes_moved": 2 * case.payload}
    dtype, channels = peers.torch_layout(torch, case.elem)
    in_strides = case.in_strides or peers.packed_strides(case.shape)
    in_span = peers.span_elements(case.shape, in_strides) * case.elem
    pitched_out = case.out_strides is not None
    out_span = peers.span_elements(case.out_shape, case.out_strides) * case.elem if pitched_out else case.payload
    payload = case.payload
    l2 = device_info["l2_bytes"]
    want = math.ceil(4 * l2 / payload) if 0 < payload < 4 * l2 else 1
    free, _ = torch.cuda.mem_get_info()
    # Per pair: the input, a pitched output per library (or one output each, allocated by the call), the copy.
    per_pair = peers.round_up(in_span, 256) + 4 * peers.round_up(max(out_span, payload), 256)
    fit = max((free - (2 << 30)) // max(per_pair, 1), 0)
    if fit < 1:
        return {**row_base, "note": f"needs {per_pair >> 20} MiB of device memory, {free >> 20} MiB free"}
    n = int(min(want, fit, MAX_PAIRS))

    gen = torch.Generator(device="cuda")
    ins, copies = [], []
    for i in range(n):
        gen.manual_seed(0x243F6A88 + i)
        ins.append(torch.randint(0, 256, (peers.round_up(max(in_span, payload), 256),), dtype=torch.uint8,
                                 device="cuda", generator=gen))
        copies.append(torch.empty(peers.round_up(payload, 256), dtype=torch.uint8, device="cuda"))

    def typed_view(buf, shape, strides):
        t = peers.from_bytes(torch, buf, dtype)
        return t.as_strided(shape + ([channels] if channels > 1 else []),
                            [s * channels for s in strides] + ([1] if channels > 1 else []))

    axes = case.axes + ([len(case.shape)] if channels > 1 else [])
    x = [typed_view(b, case.shape, in_strides) for b in ins]
    xc = [cupy.asarray(t) for t in x] if cupy is not None else None
    plain_2d = len(case.shape) == 2 and case.axes == [1, 0] and channels == 1

    if pitched_out:
        out_bufs = {impl: [torch.empty(peers.round_up(out_span, 256), dtype=torch.uint8, device="cuda")
                           for _ in range(n)] for impl in IMPLS}
        outs = {impl: [typed_view(b, case.out_shape, case.out_strides) for b in bufs] for impl, bufs in out_bufs.items()}
        outs_c = [cupy.asarray(t) for t in outs["cupy"]] if cupy is not None else None
        fns = {
            "xpose": lambda i: xpose.permute(x[i], axes, out=outs["xpose"][i]),
            "torch": lambda i: outs["torch"][i].copy_(x[i].permute(axes)),
            "cupy": lambda i: outs_c[i].__setitem__(Ellipsis, cupy.transpose(xc[i], axes)) or outs_c[i],
        }
    elif plain_2d:
        fns = {"xpose": lambda i: xpose.transpose(x[i]), "torch": lambda i: x[i].t().contiguous(),
               "cupy": lambda i: cupy.ascontiguousarray(xc[i].T)}
    else:
        fns = {"xpose": lambda i: xpose.permute(x[i], axes), "torch": lambda i: x[i].permute(axes).contiguous(),
               "cupy": lambda i: cupy.ascontiguousarray(cupy.transpose(xc[i], axes))}

    def raw(out):
        """The output's bytes as a flat uint8 tensor (pitched outputs: the whole buffer)."""
        if isinstance(out, torch.Tensor):
            return peers.as_bytes(torch, out) if out.is_contiguous() else None
        return torch.as_tensor(out.reshape(-1).view(cupy.uint8), device="cuda")

    rows = []
    # The reference runs eagerly (cudaMemcpyAsync launched as xpose-bench launches it): captured in a graph,
    # a D2D copy becomes a memcpy node that measured ~20 % slower than the launched copy on the H100.
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for i in range(n):
            copies[i][:payload].copy_(ins[i][:payload])
    memcpy_us = timer.median_us(lambda: [copies[i][:payload].copy_(ins[i][:payload]) for i in range(n)], n, stream,
                                park=True)
    results = {}
    for impl in IMPLS:
        row = {**row_base, "impl": impl, "buffers": n, "memcpy_time_us": memcpy_us,
               "memcpy_gbps": 2 * payload / (memcpy_us * 1e3)}
        rows.append(row)
        if impl == "cupy" and cupy is None:
            row["note"] = "CuPy not installed"
            row["verified"] = "skipped"
            continue
        try:
            run_pass, graph_outs, stream = (timer.cupy_pass if impl == "cupy" else timer.torch_pass)(fns[impl], n)
            if pitched_out:
                for b in out_bufs[impl]:
                    b.fill_(POISON)
            elif graph_outs is not None:
                for o in graph_outs:
                    raw(o).fill_(POISON)
            torch.cuda.synchronize()
            us = timer.median_us(run_pass, n, stream, park=timer.args.no_graph)
            row.update(time_us=us, gbps=2 * payload / (us * 1e3), ratio=memcpy_us / us)
            if pitched_out:
                results[impl] = out_bufs[impl]
            else:
                results[impl] = [raw(o) for o in (graph_outs if graph_outs is not None else [fns[impl](i) for i in range(n)])]
        except Exception as e:  # a library that cannot run a case is a failed row, not a crashed run
            row["note"] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
    torch.cuda.synchronize()
    reference = results.get("torch")
    for row in rows:
        impl = row["impl"]
        if row.get("verified") == "skipped":
            continue
        if impl not in results or reference is None:
            row["verified"] = "no"
            continue
        if impl == "torch":
            row["verified"] = "reference"
            continue
        same = all(torch.equal(a, b) for a, b in zip(results[impl], reference))
        row["verified"] = "yes" if same else "no"
    return rows


def summarize(rows, out):
    print("\n== summary: median throughput (GB/s, read + write) per suite; speedup = xpose / torch ==", file=out)
    suites = sorted({r["suite"] for r in rows})
    lines = {}
    for suite in suites:
        part = [r for r in rows if r["suite"] == suite]
        med = {}
        for impl in IMPLS:
            g = [r["gbps"] for r in part if r.get("impl") == impl and isinstance(r.get("gbps"), float)]
            med[impl] = statistics.median(g) if g else float("nan")
        by_case = {}
        for r in part:
            if isinstance(r.get("gbps"), float):  # by position: a suite may repeat a name
                by_case.setdefault(r["index"], {})[r["impl"]] = r["gbps"]
        speedups = [v["xpose"] / v["torch"] for v in by_case.values() if "xpose" in v and "torch" in v]
        cupy_speedups = [v["xpose"] / v["cupy"] for v in by_case.values() if "xpose" in v and "cupy" in v]
        ratio = med["xpose"] / med["torch"]
        lines[suite] = ratio
        print(f"  {suite:4s} {len(by_case):4d} cases  xpose {med['xpose']:7.1f}  torch {med['torch']:7.1f}  "
              f"cupy {med['cupy']:7.1f}  median(xpose)/median(torch) {ratio:5.2f}  "
              f"median per-case speedup vs torch {statistics.median(speedups) if speedups else float('nan'):5.2f} "
              f"(worst {min(speedups) if speedups else float('nan'):.2f}), vs cupy "
              f"{statistics.median(cupy_speedups) if cupy_speedups else float('nan'):5.2f}", file=out)
    return lines


def print_table(rows, out):
    print(f"{'suite':5s} {'case':44s} {'impl':6s} {'time us':>10s} {'GB/s':>8s} {'vs memcpy':>9s} {'verified':>9s}",
          file=out)
    for r in rows:
        t = f"{r['time_us']:10.2f}" if isinstance(r.get("time_us"), float) else f"{'-':>10s}"
        g = f"{r['gbps']:8.1f}" if isinstance(r.get("gbps"), float) else f"{'-':>8s}"
        q = f"{r['ratio']:9.3f}" if isinstance(r.get("ratio"), float) else f"{'-':>9s}"
        note = f"  {r['note']}" if r.get("note") else ""
        print(f"{r['suite']:5s} {r['case'][:44]:44s} {r.get('impl', '-'):6s} {t} {g} {q} {r.get('verified', 'no'):>9s}{note}",
              file=out)


def plot(rows, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    suites = sorted({r["suite"] for r in rows})
    fig, axs = plt.subplots(len(suites), 1, figsize=(22, 5.5 * len(suites)), squeeze=False)
    colors = {"xpose": "tab:blue", "torch": "tab:red", "cupy": "tab:green"}
    for ax, suite in zip(axs[:, 0], suites):
        cases = []
        for r in rows:
            if r["suite"] == suite and r["case"] not in cases:
                cases.append(r["case"])
        width = 0.27
        for k, impl in enumerate(IMPLS):
            vals = []
            for c in cases:
                v = [r.get("ratio") for r in rows if r["suite"] == suite and r["case"] == c and r.get("impl") == impl]
                vals.append(v[0] if v and isinstance(v[0], float) else 0.0)
            ax.bar([i + (k - 1) * width for i in range(len(cases))], vals, width, label=impl, color=colors[impl])
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(cases, rotation=90, fontsize=5)
        ax.set_ylabel("ratio to memcpy")
        ax.set_ylim(0, 1.15)
        ax.axhline(1.0, color="gray", lw=0.5)
        ax.set_title(f"suite {suite}: {title}")
        ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suites", default="nd,2d", help="comma-separated suite names (default nd,2d)")
    ap.add_argument("--cases", default="", help="only cases whose name matches this regular expression")
    ap.add_argument("--categories", default="", help="only these categories (comma-separated)")
    ap.add_argument("--csv", default="", help="write the rows as CSV")
    ap.add_argument("--plot", default="", help="write a PNG: ratio to memcpy per case and library")
    ap.add_argument("--reps", type=int, default=20, help=f"timed samples, median reported (>= {MIN_REPS})")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs before capture")
    ap.add_argument("--no-graph", action="store_true", help="time eager calls instead of replayed CUDA graphs")
    args = ap.parse_args(argv)
    if args.reps < MIN_REPS:
        ap.error(f"--reps must be >= {MIN_REPS}")
    cases = []
    for suite in args.suites.split(","):
        for c in peers.load_suite(suite):
            c.suite = suite
            c.index = len(cases)
            cases.append(c)
    if args.cases:
        cases = [c for c in cases if re.search(args.cases, c.name)]
    if args.categories:
        cases = [c for c in cases if c.category in args.categories.split(",")]

    import torch

    import xpose

    try:
        import cupy
    except ImportError:
        cupy = None
    if not torch.cuda.is_available():
        print("compare.py: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    props = torch.cuda.get_device_properties(0)
    info = {"device": props.name, "l2_bytes": getattr(props, "L2_cache_size", 0) or 50 << 20}
    commit = peers.git_commit()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = (f"xpose {xpose.__version__} (commit {commit}), torch {torch.__version__}, "
              f"cupy {cupy.__version__ if cupy else 'absent'} on {info['device']}; median of {args.reps}; "
              f"{'eager' if args.no_graph else 'CUDA graph'} timing; {date}")
    print(header)
    timer = Timer(torch, cupy, args)
    rows = []
    for k, case in enumerate(cases, 1):
        print(f"[{k}/{len(cases)}] {case.suite}: {case.name} ...", end="", file=sys.stderr, flush=True)
        try:
            case_rows = run_case(case, timer, torch, cupy, xpose, info)
        except Exception as e:
            case_rows = [{"index": case.index, "case": case.name, "suite": case.suite, "impl": impl, "verified": "no",
                          "note": f"{type(e).__name__}: {e}".splitlines()[0][:200]} for impl in IMPLS]
        if cupy is not None:
            cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
        rows.extend(case_rows)
        bad = [r["impl"] for r in case_rows if r.get("verified") not in ("yes", "reference", "skipped")]
        print(" ok" if not bad else f" FAILED ({', '.join(bad)})", file=sys.stderr)
    print_table(rows, sys.stdout)
    summarize(rows, sys.stdout)
    for r in rows:
        r.update(device=info["device"], git_commit=commit, date=date, torch_version=torch.__version__,
                 cupy_version=cupy.__version__ if cupy else "")
    if args.csv:
        cols = ["suite", "case", "category", "impl", "shape", "axes", "elem_bytes", "bytes_moved", "buffers", "time_us",
                "gbps", "ratio", "verified", "note", "memcpy_time_us", "memcpy_gbps", "device", "git_commit", "date",
                "torch_version", "cupy_version"]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            for r in rows:
                w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    if args.plot:
        plot(rows, args.plot, header)
    failed = [f"{r['suite']}: {r['case']} ({r.get('impl')})" for r in rows
              if r.get("verified") not in ("yes", "reference", "skipped")]
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
