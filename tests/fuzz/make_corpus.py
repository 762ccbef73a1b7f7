#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_plan.cpp into tests/fuzz/corpus/ (one small file per seed).

The format is the one documented at the top of fuzz_plan.cpp. Seeds cover every canonical form (copy, rows,
transpose2d), pitched, broadcast and overlapping-read views, odd element sizes, every SIMD level and
streaming, and one hostile problem per error case of docs/errors.md, and in-place problems of every algorithm;
libFuzzer mutates from there.
Re-run after changing the format: python3 tests/fuzz/make_corpus.py
"""
import os
import struct

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63
SPECIAL = [INT64_MAX, INT64_MAX - 1, INT64_MAX // 2, INT64_MAX // 2 + 1, 2**32 - 1, 2**32 + 1, 2**31 - 1, 3 * 2**61,
           2**62 + 1, 255, 256, 1000, 4095, 65537, -2**62, INT64_MIN + 1]


def value(v):
    if 0 <= v < 0x80:
        return bytes([v])
    if -32 <= v <= -1:
        return bytes([0x80 + (-1 - v)])
    if v == INT64_MIN:
        return bytes([0xa0 + 63])
    if v > 0 and v & (v - 1) == 0:
        return bytes([0xa0 + v.bit_length() - 1])
    if v in SPECIAL:
        return bytes([0xe0 + SPECIAL.index(v)])
    return bytes([0xf0]) + struct.pack('<q', v)


def encode(shape, elem_bytes, axes=None, in_strides=None, out_strides=None, threads=1, skew=None,
           streaming=False, isa=3, rank=None, lengths=(0, 0, 0)):
    """lengths: per list (axes, in_strides, out_strides) 0 = rank, 2 = rank + 1, 3 = rank - 1 (the decoder's
    codes); the lists given must have that many entries."""
    flags = (axes is not None) | (in_strides is not None) << 1 | (out_strides is not None) << 2
    flags |= {1: 0, 2: 1, 0: 2, -1: 3}[threads] << 4
    flags |= (skew is not None) << 6 | streaming << 7
    out = bytes([len(shape) if rank is None else rank, flags, lengths[0] | lengths[1] << 2 | lengths[2] << 4 | isa << 6])
    out += value(elem_bytes)
    for v in shape + (axes or []) + (in_strides or []) + (out_strides or []):
        out += value(v)
    if skew is not None:
        out += bytes([skew[0] | skew[1] << 4])
    return out


def inplace(elem_bytes, rows, cols, batch, ld, batch_stride, threads=1, pin=None):
    """An in-place problem: byte 0 = 250 + the threads code (1, 2, 0, -1), then the fields as values, then
    (pin) 'no_staged' or 'shuffle_only': the same rectangle also run with that choice of algorithms."""
    out = bytes([250 + {1: 0, 2: 1, 0: 2, -1: 3}[threads]])
    for v in (elem_bytes, rows, cols, batch, ld, batch_stride):
        out += value(v)
    if pin is not None:
        out += value({'no_staged': 1, 'shuffle_only': 2}[pin])
    return out


SEEDS = {
    # valid problems, executed
    'valid-scalar': encode([], 4),
    'valid-copy-1d': encode([100], 1, axes=[0]),
    'valid-transpose-7x9': encode([7, 9], 4, axes=[1, 0]),
    'valid-reversed-rgb': encode([33, 17], 3),
    'valid-nchw-to-nhwc': encode([2, 3, 4, 5], 4, axes=[0, 2, 3, 1], threads=0),
    'valid-batched-fp16': encode([3, 17, 65], 2, axes=[0, 2, 1], threads=2),
    'valid-rows': encode([4, 3, 50], 4, axes=[1, 0, 2]),
    'valid-pitched-in': encode([13, 29], 8, axes=[1, 0], in_strides=[31, 1]),
    'valid-pitched-out': encode([13, 29], 12, axes=[1, 0], out_strides=[17, 1], skew=(3, 5)),
    'valid-pitched-batch': encode([3, 13, 29], 6, axes=[0, 2, 1], in_strides=[13 * 29 + 7, 29, 1],
                                  out_strides=[29 * 14 + 3, 14, 1]),
    'valid-broadcast': encode([7, 9], 4, axes=[1, 0], in_strides=[0, 1]),
    'valid-overlapping-reads': encode([5, 4], 4, axes=[1, 0], in_strides=[2, 1]),
    'valid-negative-axes': encode([4, 6, 5], 2, axes=[-1, 0, -2]),
    'valid-extent1-huge-strides': encode([1, 5], 12, axes=[1, 0], in_strides=[INT64_MAX, 1], out_strides=[1, INT64_MIN]),
    'valid-thin-aos': encode([517, 3], 4, axes=[1, 0]),
    'valid-thin-soa': encode([3, 517], 2, axes=[1, 0], isa=2),
    'valid-rank6': encode([2, 3, 2, 3, 2, 3], 5, axes=[3, 0, 5, 1, 4, 2]),
    'valid-rank8': encode([2] * 8, 1, axes=[7, 6, 5, 4, 3, 2, 1, 0]),
    'valid-empty-huge': encode([0, 2**62, 2**62], 16),
    'valid-streaming-u8': encode([65, 300], 1, axes=[1, 0], streaming=True, skew=(1, 7)),
    'valid-streaming-fp32-sse2': encode([70, 129], 4, axes=[1, 0], streaming=True, isa=1, out_strides=[71, 1]),
    'valid-scalar-level': encode([9, 70], 7, axes=[1, 0], isa=0),
    'valid-elem24': encode([5, 6], 24, axes=[1, 0], skew=(15, 15)),
    'valid-elem48-threads': encode([11, 13], 48, axes=[1, 0], threads=0),
    'valid-column-major-out': encode([6, 5, 4], 4, axes=[2, 0, 1], out_strides=[1, 4, 24]),
    'valid-threads-negative': encode([3, 4], 4, axes=[1, 0], threads=-1),
    'valid-large-not-run': encode([2**20, 2**20], 4, axes=[1, 0]),
    'valid-near-limit-strides': encode([2, 2], 1, axes=[1, 0], in_strides=[2**61, 1]),
    # hostile problems, refused
    'bad-rank9': encode([2] * 9, 4),
    'bad-elem-zero': encode([2, 3], 0, axes=[1, 0]),
    'bad-elem-negative': encode([2, 3], -1),
    'bad-elem-huge': encode([2, 3], INT64_MAX, axes=[1, 0]),
    'bad-extent-negative': encode([2, -3], 4, axes=[1, 0]),
    'bad-elements-overflow': encode([2**32, 2**32], 1, axes=[1, 0]),
    'bad-bytes-overflow': encode([2**31, 2**31], 4, axes=[1, 0]),
    'bad-axes-repeat': encode([2, 3, 4], 4, axes=[0, 1, 1]),
    'bad-axes-range': encode([2, 3], 4, axes=[0, 2]),
    'bad-axes-min': encode([2, 3], 4, axes=[INT64_MIN, 0]),
    'bad-axes-long': encode([2, 3], 4, axes=[1, 0, 2], lengths=(2, 0, 0)),
    'bad-in-strides-short': encode([2, 3], 4, axes=[1, 0], in_strides=[1], lengths=(0, 3, 0)),
    'bad-in-stride-negative': encode([2, 3], 4, axes=[1, 0], in_strides=[3, -1]),
    'bad-out-stride-zero': encode([2, 3], 4, axes=[1, 0], out_strides=[2, 0]),
    'bad-out-stride-min': encode([2, 3], 4, axes=[1, 0], out_strides=[INT64_MIN, 1]),
    'bad-out-self-overlap': encode([2, 3], 4, axes=[1, 0], out_strides=[1, 1]),
    'bad-stride-overflow': encode([4, 2], 4, axes=[1, 0], in_strides=[2**62, 1]),
    'bad-one-past-overflow': encode([2, 2], 1, axes=[1, 0], in_strides=[2**62, 1]),
    'bad-out-stride-max': encode([3, 3], 2, axes=[0, 1], out_strides=[INT64_MAX, 1]),
    'unsupported-strided-gather': encode([4, 5], 4, axes=[1, 0], in_strides=[10, 2]),
    'unsupported-strided-scatter': encode([4, 5], 4, axes=[1, 0], out_strides=[8, 2]),
    'raw-bytes': bytes(range(0xf0, 0x100)) * 3,
    # in-place problems (byte 0 >= 250): elem_bytes, rows, cols, batch, ld, batch_stride
    'inplace-square-pitched': inplace(4, 37, 37, 3, 41, 0),
    'inplace-shuffle': inplace(1, 641, 643, 1, 0, 0, threads=2),
    'inplace-small-chunk': inplace(8, 29, 31, 1, 0, 0),
    'inplace-tile-cycles': inplace(4, 96, 64, 2, 0, 0),
    'inplace-skinny-cycles': inplace(4, 4096, 3, 1, 0, 0, threads=0),
    'inplace-skinny-wide-gaps': inplace(8, 7, 3000, 2, 0, 7 * 3000 + 5),
    'inplace-near-square': inplace(1, 656, 672, 1, 0, 0),
    'inplace-odd-units': inplace(3, 120, 180, 2, 0, 0),
    'inplace-huge-not-run': inplace(1, 2**40, 2**20 + 2, 1, 0, 0),
    # rectangles under 32 MiB take staged; pinned, the same shapes run the algorithms it took them from
    'inplace-staged-batch-gaps': inplace(2, 51, 33, 7, 0, 51 * 33 + 3, threads=2),
    'inplace-pinned-shuffle': inplace(1, 641, 643, 1, 0, 0, threads=2, pin='shuffle_only'),
    'inplace-pinned-shuffle-rotation': inplace(3, 120, 70, 1, 0, 0, pin='shuffle_only'),
    'inplace-pinned-tile-cycles': inplace(4, 96, 64, 2, 0, 0, pin='no_staged'),
    'inplace-pinned-skinny-cycles': inplace(4, 4096, 3, 1, 0, 0, threads=0, pin='no_staged'),
    'inplace-pinned-near-square': inplace(1, 656, 672, 1, 0, 0, pin='no_staged'),
    'inplace-bad-pitched-rectangle': inplace(4, 5, 7, 1, 9, 0),
    'inplace-bad-overlap': inplace(4, 10, 10, 2, 0, 50),
    'inplace-bad-overflow': inplace(8, 2**31, 2**31, 2, 0, 0),
    'inplace-bad-negative': inplace(-1, 5, 7, 1, 0, 0),
    'inplace-bad-pitch-overflow': inplace(1, 2**31, 2**31, 1, 2**32, 0),
    'inplace-threads-negative': inplace(16, 1, 28, 28, 28, 28, threads=-1),
    'inplace-threads-negative-cycles': inplace(4, 96, 64, 1, 0, 0, threads=-1),
}


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    os.makedirs(out_dir, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out_dir, name), 'wb') as f:
            f.write(data)
    print(f'{len(SEEDS)} seeds in {out_dir}')


if __name__ == '__main__':
    main()
