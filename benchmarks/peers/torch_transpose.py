#!/usr/bin/env python3
"""PyTorch as a peer of xpose-bench: the same cases, read from the same suite files, timed the same way.

For each case of the suite (benchmarks/suites/NAME.txt, the format of tools/xpose-bench/suites.hpp):
  - the transpose / permutation PyTorch users write: `x.t().contiguous()` for a plain 2-D transpose,
    `x.permute(axes).contiguous()` otherwise; into a pitched output, `out_view.copy_(x.permute(axes))`;
  - element types: 1 B uint8, 2 B float16, 4 B float32, 8 B float64, 16 B complex128; any other size E is
    E / w channels of a w-byte type (w = gcd(E, 8): 3 B RGB8 = 3 x uint8, 6 B = 3 x int16, 12 B = 3 x
    float32), the channel axis last and unpermuted, as an HWC image is transposed in PyTorch;
  - the reference: a torch D2D copy (`dst.copy_(src)`, a cudaMemcpyAsync) of the same payload bytes, on the
    same buffers, in the same run; ratio = copy time / transpose time;
  - timing: CUDA events around one pass over n rotating input/output pairs (n = ceil(4 x L2 / payload) below
    4 x L2, at most 1024, memory permitting), divided by n; the median of --reps samples (>= 20) after
    --warmup runs. The pass is captured once as a CUDA graph and replayed, so that Python's launch overhead
    never shows between short kernels (xpose-bench parks its stream on a spinning kernel for the same
    reason); --no-graph times eager calls instead;
  - verification: inputs hold random bytes (a different seed per pair); outputs are poisoned (0xA5) before
    the timed runs where PyTorch lets us (graph outputs and pitched outputs); after timing, every output is
    compared byte for byte with NumPy's transpose of its input on the host.

Output: a table on stdout, progress on stderr, and with --csv the rows under xpose-bench's column names where
they apply (table=torch, impl, time_us, gbps, ratio, verified, memcpy_*, category, target, device, ...).

Usage (on the GPU machine):
  python3 benchmarks/peers/torch_transpose.py --suite 2d --csv torch-2d.csv
  python3 benchmarks/peers/torch_transpose.py --suite 2d --cases 'fp32|rgb8' --reps 20
  python3 benchmarks/peers/torch_transpose.py --suite 2d --categories skinny --csv torch-skinny.csv
  python3 benchmarks/peers/torch_transpose.py --suite 2d --list        # parse only (no torch needed)
Exit code: 0 when every row verified, 1 otherwise, 2 for bad arguments or a bad suite.
"""
import argparse
import csv
import datetime
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

MIN_REPS = 20
MAX_PAIRS = 1024
POISON = 0xA5


# ---- suites (the format of tools/xpose-bench/suites.hpp) -------------------------------------------------

def parse_ints(text):
    return [int(v) for v in re.split(r"[,xX]", text.strip())]


class Case:
    """One suite case, as the full problem (batch axis prepended, axes explicit)."""

    def __init__(self, fields, origin):
        self.name = fields.get("name", "")
        self.table = fields.get("table", "production")
        self.category = fields.get("category", "")
        self.target = float(fields["target"]) if "target" in fields else None
        self.relative_to = fields.get("relative_to", "")
        self.elem = int(fields.get("elem", "4"))
        batch = int(fields.get("batch", "1"))
        shape = parse_ints(fields["shape"])
        rank = len(shape)
        axes = parse_ints(fields["axes"]) if "axes" in fields else list(reversed(range(rank)))
        axes = [a + rank if a < 0 else a for a in axes]
        if sorted(axes) != list(range(rank)):
            raise ValueError(f"{origin}: axes {axes} is not a permutation of {rank} axes")
        if batch > 1:
            shape = [batch] + shape
            axes = [0] + [a + 1 for a in axes]
        self.shape, self.axes = shape, axes
        self.out_shape = [shape[a] for a in axes]
        self.in_strides = parse_ints(fields["in_strides"]) if "in_strides" in fields else None
        self.out_strides = parse_ints(fields["out_strides"]) if "out_strides" in fields else None
        for what, s in (("in_strides", self.in_strides), ("out_strides", self.out_strides)):
            if s is not None and len(s) != len(shape):
                raise ValueError(f"{origin}: {what} needs {len(shape)} values (batch axis included)")
        if not self.name:
            self.name = f"{self.elem}B " + "x".join(map(str, shape))

    @property
    def elements(self):
        return math.prod(self.shape)

    @property
    def payload(self):
        return self.elements * self.elem

    def shape_string(self):
        return "x".join(map(str, self.shape))

    def axes_string(self):
        return ",".join(map(str, self.axes))


def packed_strides(shape):
    strides, acc = [], 1
    for e in reversed(shape):
        strides.append(acc)
        acc *= e
    return list(reversed(strides))


def span_elements(shape, strides):
    """Elements a strided view spans from its base (0 when empty)."""
    if any(e == 0 for e in shape):
        return 0
    return sum((e - 1) * s for e, s in zip(shape, strides)) + 1


def parse_suite(text, origin):
    cases = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = {}
        for field in line.split(";"):
            field = field.strip()
            if not field:
                continue
            if "=" not in field:
                raise ValueError(f"{origin}:{no}: '{field}' is not key=value")
            key, value = field.split("=", 1)
            fields[key.strip()] = value.strip()
        if "shape" not in fields:
            raise ValueError(f"{origin}:{no}: a case needs shape=...")
        cases.append(Case(fields, f"{origin}:{no}"))
    return cases


def load_suite(name):
    """A suite by name (benchmarks/suites/NAME.txt; `production` is default.txt) or by path."""
    candidates = [name] if (os.sep in name or name.endswith(".txt")) else []
    file_name = "default" if name == "production" else name
    candidates.append(os.path.join(ROOT, "benchmarks", "suites", file_name + ".txt"))
    for path in candidates:
        if os.path.isfile(path):
            with open(path) as f:
                return parse_suite(f.read(), path)
    raise ValueError(f"unknown suite '{name}' (tried {', '.join(candidates)})")


# ---- the reference transpose on the host (NumPy) --------------------------------------------------------

def expected_bytes(np, in_bytes, case):
    """The output a correct permutation writes, as uint8 of shape out_shape + [elem]: NumPy's transpose of
    the input view (`in_bytes`: the input buffer's bytes from its base)."""
    e = case.elem
    in_strides = case.in_strides or packed_strides(case.shape)
    view = np.lib.stride_tricks.as_strided(in_bytes, shape=case.shape + [e],
                                           strides=[s * e for s in in_strides] + [1], writeable=False)
    return view.transpose(case.axes + [len(case.shape)])


def output_view(np, out_bytes, case):
    """The output view (uint8, out_shape + [elem]) over an output buffer's bytes."""
    e = case.elem
    out_strides = case.out_strides or packed_strides(case.out_shape)
    return np.lib.stride_tricks.as_strided(out_bytes, shape=case.out_shape + [e],
                                           strides=[s * e for s in out_strides] + [1], writeable=False)


# ---- timing with torch ---------------------------------------------------------------------------------

def torch_layout(torch, elem):
    """(dtype, channels): the tensor type a PyTorch user holds for elements of `elem` bytes."""
    natural = {1: torch.uint8, 2: torch.float16, 4: torch.float32, 8: torch.float64, 16: torch.complex128}
    if elem in natural:
        return natural[elem], 1
    w = math.gcd(elem, 8)
    return {1: torch.uint8, 2: torch.int16, 4: torch.float32, 8: torch.float64}[w], elem // w


def round_up(v, m):
    return (v + m - 1) // m * m


def from_bytes(torch, buf, dtype):
    """A uint8 buffer (size a multiple of 16) viewed as `dtype` (complex through its real pairs)."""
    if dtype.is_complex:
        return torch.view_as_complex(buf.view(torch.float64).view(-1, 2))
    return buf.view(dtype)


def as_bytes(torch, t):
    """The bytes of a contiguous tensor, flat uint8 (complex through its real pairs)."""
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.reshape(-1).view(torch.uint8)


class Runner:
    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        self.dev = torch.device("cuda")
        props = torch.cuda.get_device_properties(self.dev)
        self.device_name = props.name
        self.sm_count = props.multi_processor_count
        self.memory_bytes = props.total_memory
        self.l2_bytes = getattr(props, "L2_cache_size", 0) or 50 << 20

    def time_pass(self, run_pass, n):
        """Median per-run time (us) of `reps` samples; a sample is one pass over the n pairs."""
        torch, args = self.torch, self.args
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
        for s, e in zip(starts, stops):
            s.record()
            run_pass()
            e.record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) * 1e3 / n for s, e in zip(starts, stops))

    def prepare(self, fn, n):
        """Warm-up, then (unless --no-graph) capture one pass over the n pairs as a CUDA graph. Returns
        (run_pass, outputs of the captured pass or None)."""
        torch, args = self.torch, self.args

        def eager():
            return [fn(i) for i in range(n)]

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for w in range(max(args.warmup, 1)):
                fn(w % n)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        if args.no_graph:
            return eager, None
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            outs = eager()
        torch.cuda.synchronize()
        return graph.replay, outs

    def run_case(self, case, np):
        torch = self.torch
        row = base_row(case, self)
        dtype, channels = torch_layout(torch, case.elem)
        in_strides = case.in_strides or packed_strides(case.shape)
        in_span = span_elements(case.shape, in_strides) * case.elem
        out_span = (span_elements(case.out_shape, case.out_strides) * case.elem if case.out_strides
                    else case.payload)
        payload = case.payload
        pitched_out = case.out_strides is not None

        # Rotation: enough pairs to exceed 4 x L2, memory permitting (input, reference/pitched output, and
        # the tensors contiguous() allocates).
        want = math.ceil(4 * self.l2_bytes / payload) if 0 < payload < 4 * self.l2_bytes else 1
        free, _ = torch.cuda.mem_get_info()
        per_pair = round_up(in_span, 256) + round_up(max(out_span, payload), 256) + (0 if pitched_out else payload)
        fit = max((free - (1 << 30)) // max(per_pair, 1), 0)
        if fit < 1:
            row["verified"] = "no"
            row["note"] = f"needs {per_pair >> 20} MiB of device memory, {free >> 20} MiB free"
            return row
        n = int(min(want, fit, MAX_PAIRS))
        row["buffers"] = n
        if fit < want:
            row["row_note"] = f"rotation limited to {n} pairs by device memory"

        gen = torch.Generator(device=self.dev)
        ins, dsts = [], []
        for i in range(n):
            gen.manual_seed(0x243F6A88 + i)
            ins.append(torch.randint(0, 256, (round_up(max(in_span, payload), 256),), dtype=torch.uint8,
                                     device=self.dev, generator=gen))
            dsts.append(torch.empty(round_up(max(out_span, payload), 256), dtype=torch.uint8, device=self.dev))

        def typed_view(buf, shape, strides):
            t = from_bytes(torch, buf, dtype)
            return t.as_strided(shape + ([channels] if channels > 1 else []),
                                [s * channels for s in strides] + ([1] if channels > 1 else []))

        axes = case.axes + ([len(case.shape)] if channels > 1 else [])
        x = [typed_view(b, case.shape, in_strides) for b in ins]
        plain_2d = len(case.shape) == 2 and case.axes == [1, 0] and channels == 1
        if pitched_out:
            outs_view = [typed_view(d, case.out_shape, case.out_strides) for d in dsts]
            row["impl"] = f"torch copy_(permute({','.join(map(str, axes))}))"
            fn = lambda i: outs_view[i].copy_(x[i].permute(axes))  # noqa: E731
        elif plain_2d:
            row["impl"] = "torch t().contiguous()"
            fn = lambda i: x[i].t().contiguous()  # noqa: E731
        else:
            row["impl"] = f"torch permute({','.join(map(str, axes))}).contiguous()"
            fn = lambda i: x[i].permute(axes).contiguous()  # noqa: E731
        dtype_name = str(dtype).replace("torch.", "")
        row["variant"] = f"{dtype_name} x {channels}" if channels > 1 else dtype_name

        # The reference: a D2D copy of the payload bytes, same pairs, timed the same way.
        copy = lambda i: dsts[i][:payload].copy_(ins[i][:payload])  # noqa: E731
        run_copy, _ = self.prepare(copy, n)
        for d in dsts:
            d.fill_(POISON)
        memcpy_us = self.time_pass(run_copy, n)
        memcpy_ok = all(torch.equal(dsts[i][:payload], ins[i][:payload]) for i in range(n))
        row.update(memcpy_time_us=memcpy_us, memcpy_gbps=2 * payload / (memcpy_us * 1e3),
                   memcpy_verified="yes" if memcpy_ok else "no")

        # PyTorch's transpose.
        run_pass, graph_outs = self.prepare(fn, n)
        poisoned = pitched_out or graph_outs is not None
        if pitched_out:
            for d in dsts:
                d.fill_(POISON)
        elif graph_outs is not None:
            for o in graph_outs:
                as_bytes(torch, o).fill_(POISON)
        us = self.time_pass(run_pass, n)
        if not poisoned:
            row["note"] = "eager: outputs allocated per call, not poisoned"

        # Verification: every pair's last output against NumPy on the host.
        wrong = 0
        for i in range(n):
            if pitched_out:
                out_np = output_view(np, dsts[i].cpu().numpy(), case)
            else:
                out_t = graph_outs[i] if graph_outs is not None else fn(i)
                out_np = as_bytes(torch, out_t).cpu().numpy().reshape(case.out_shape + [case.elem])
            want_np = expected_bytes(np, ins[i].cpu().numpy(), case)
            wrong += int((out_np != want_np).any(axis=-1).sum())
        row.update(time_us=us, gbps=2 * payload / (us * 1e3), ratio=memcpy_us / us,
                   verified="yes" if wrong == 0 else "no")
        if wrong:
            row["note"] = (row.get("note", "") + "; " if row.get("note") else "") + \
                f"{wrong} wrong elements over {n} outputs"
        return row


# ---- rows, table, CSV -------------------------------------------------------------------------------------

COLUMNS = ["table", "case", "impl", "shape", "axes", "elem_bytes", "bytes_moved", "buffers", "time_us", "gbps",
           "ratio", "verified", "variant", "note", "memcpy_time_us", "memcpy_gbps", "memcpy_verified", "category",
           "target", "relative_to", "row_note", "backend", "device", "sm_count", "l2_bytes", "memory_bytes", "reps",
           "warmup", "torch_version", "git_commit", "date"]


def git_commit():
    env = os.environ.get("XPOSE_GIT_COMMIT")
    if env:
        return env
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def base_row(case, runner):
    return {
        "table": "torch", "case": case.name, "impl": "", "shape": case.shape_string(), "axes": case.axes_string(),
        "elem_bytes": case.elem, "bytes_moved": 2 * case.payload, "buffers": 1, "verified": "no", "note": "",
        "category": case.category, "target": case.target if case.target is not None else "",
        "relative_to": case.relative_to, "backend": "torch", "device": runner.device_name,
        "sm_count": runner.sm_count, "l2_bytes": runner.l2_bytes, "memory_bytes": runner.memory_bytes,
        "reps": runner.args.reps, "warmup": runner.args.warmup, "torch_version": runner.torch.__version__,
        "git_commit": runner.commit, "date": runner.date,
    }


def fmt(v, spec):
    return "-" if v in (None, "") or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def print_table(rows, out):
    cols = [("case", "case", "s"), ("shape", "shape", "s"), ("elem B", "elem_bytes", "d"),
            ("impl", "impl", "s"), ("time us", "time_us", ".2f"), ("GB/s", "gbps", ".1f"),
            ("vs memcpy", "ratio", ".3f"), ("verified", "verified", "s"), ("memcpy GB/s", "memcpy_gbps", ".1f")]
    cells = [[fmt(r.get(k), f) for _, k, f in cols] for r in rows]
    width = [max([len(h)] + [len(c[j]) for c in cells]) for j, (h, _, _) in enumerate(cols)]
    left = {0, 1, 3, 7}

    def line(vals):
        return "  ".join(v.ljust(width[j]) if j in left else v.rjust(width[j]) for j, v in enumerate(vals)).rstrip()

    print("\n== PyTorch: vs memcpy = ratio to a torch D2D copy of the same bytes, same run ==", file=out)
    print(line([h for h, _, _ in cols]), file=out)
    print("-" * (sum(width) + 2 * (len(width) - 1)), file=out)
    category = None
    for r, c in zip(rows, cells):
        if r.get("category") and r["category"] != category:
            category = r["category"]
            print(f"[{category}]", file=out)
        print(line(c), file=out)
    for r in rows:
        if r.get("note"):
            print(f"  note: {r['case']}: {r['note']}", file=out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default="2d", help="suite name (benchmarks/suites/NAME.txt) or file (default 2d)")
    ap.add_argument("--cases", default="", help="only cases whose name matches this regular expression")
    ap.add_argument("--categories", default="", help="only these categories (comma-separated)")
    ap.add_argument("--csv", default="", help="write the rows as CSV ('-' = stdout)")
    ap.add_argument("--reps", type=int, default=30, help=f"timed samples, median reported (>= {MIN_REPS})")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs before the samples")
    ap.add_argument("--no-graph", action="store_true", help="time eager calls instead of a replayed CUDA graph")
    ap.add_argument("--list", action="store_true", help="print the cases and exit (needs no torch)")
    args = ap.parse_args(argv)
    if args.reps < MIN_REPS:
        ap.error(f"--reps must be >= {MIN_REPS}")
    try:
        cases = load_suite(args.suite)
    except (ValueError, KeyError) as e:
        print(f"torch_transpose.py: --suite: {e}", file=sys.stderr)
        return 2
    if args.cases:
        cases = [c for c in cases if re.search(args.cases, c.name)]
    if args.categories:
        cases = [c for c in cases if c.category in args.categories.split(",")]
    if args.list:
        for c in cases:
            print(f"{c.category or c.table}: {c.name}: {c.shape_string()} axes {c.axes_string()}, {c.elem} B"
                  + (f", in_strides {c.in_strides}" if c.in_strides else "")
                  + (f", out_strides {c.out_strides}" if c.out_strides else ""))
        return 0

    import numpy as np
    import torch
    if not torch.cuda.is_available():
        print("torch_transpose.py: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    runner = Runner(torch, args)
    runner.commit = git_commit()
    runner.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"torch {torch.__version__} on {runner.device_name} ({runner.sm_count} SMs, L2 {runner.l2_bytes >> 20} MiB); "
          f"median of {args.reps} samples after {args.warmup} warm-up runs; "
          f"{'eager' if args.no_graph else 'CUDA graph'} timing; commit {runner.commit}; {runner.date}")
    rows = []
    for k, case in enumerate(cases, 1):
        print(f"[{k}/{len(cases)}] torch: {case.name} ...", end="", file=sys.stderr, flush=True)
        try:
            row = runner.run_case(case, np)
        except Exception as e:  # a case PyTorch cannot run (e.g. out of memory) is a failed row
            row = base_row(case, runner)
            row["note"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        torch.cuda.empty_cache()  # the case's buffers and graph pool are gone
        rows.append(row)
        print(" ok" if row["verified"] == "yes" and row.get("memcpy_verified") == "yes" else " FAILED",
              file=sys.stderr)
    print_table(rows, sys.stdout)
    if args.csv:
        f = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
        if f is not sys.stdout:
            f.close()
    failed = [r["case"] for r in rows if r["verified"] != "yes" or r.get("memcpy_verified") != "yes"]
    ratios = [r["ratio"] for r in rows if isinstance(r.get("ratio"), float)]
    print(f"\nsummary: {len(rows) - len(failed)}/{len(rows)} rows verified"
          + (f"; worst ratio to memcpy {min(ratios):.3f}" if ratios else ""))
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
