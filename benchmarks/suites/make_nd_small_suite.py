#!/usr/bin/env python3
"""Writes benchmarks/suites/nd_small.txt: random N-d permutations (rank 3-6) with one to rank-1 small extents
(2-16) and every unit size (1, 2, 3, 4, 6, 8, 12, 16 bytes), 32 MiB a side: the shapes where tile sides stay
short and boxes (plan/box.cpp) or compound tiles take them.
Usage: benchmarks/suites/make_nd_small_suite.py SEED COUNT > file (nd_small.txt: 11 80)
"""
import math, random, sys
rng = random.Random(int(sys.argv[1]))
BYTES = 32 * 2**20
ELEMS = [1, 2, 3, 4, 6, 8, 12, 16]
NAMES = {1: "u8", 2: "fp16", 3: "rgb8", 4: "fp32", 6: "rgb16", 8: "fp64", 12: "rgb32f", 16: "c128"}
out = []
for n in range(int(sys.argv[2])):
    e = rng.choice(ELEMS)
    rank = rng.randint(3, 6)
    k = rng.randint(1, rank - 1)  # small extents
    ext = [rng.choice([2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 16]) for _ in range(k)]
    left = BYTES / e / math.prod(ext)
    rest = rank - k
    for i in range(rest):
        kk = rest - i
        x = max(2, round(left ** (1.0 / kk) * rng.uniform(0.5, 1.6)))
        if i == rest - 1: x = max(2, round(left))
        ext.append(x); left /= x
    rng.shuffle(ext)
    axes = list(range(rank))
    while axes == list(range(rank)):
        rng.shuffle(axes)
    out.append(f"name=q{n} {NAMES[e]} r{rank};shape={','.join(map(str, ext))};axes={','.join(map(str, axes))};elem={e}")
print("\n".join(out))
