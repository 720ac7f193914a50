#!/usr/bin/env python3
# Seeds for fuzz_report's differences whose values leave int64 (corpus/report/diff-*.pb):
#   diff-int64-min.pb   a sample of value -2^63: BASE negated in the diff profile has no
#                       int64 for it (PPROF_E_OVERFLOW naming the sample)
#   diff-sum-overflow.pb two samples of different stacks whose sum passes 2^63 - 1: the
#                       totals -normalize needs leave int64 (PPROF_E_OVERFLOW naming the sample
#                       that took it there); padded with an unused string to a size with bit 5
#                       set, the size by which fuzz_report's self-difference normalizes
#   corpus/tools/diff-seeds.py DIR
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

M64 = (1 << 64) - 1


def profile(values, pad=""):
    strings = ["", "space", "bytes", "alloc", "free", "heap.c"] + ([pad] if pad else [])
    p = ld(1, vi(1, 1) + vi(2, 2))
    for fid, name in [(1, 3), (2, 4)]:
        p += ld(5, vi(1, fid) + vi(2, name) + vi(4, 5))
        p += ld(4, vi(1, fid) + vi(3, 0x1000 * fid) + ld(4, vi(1, fid) + vi(2, 10 * fid)))
    for loc, v in enumerate(values, start=1):
        p += ld(2, ld(1, packed([loc])) + ld(2, packed([v & M64])))
    for s in strings:
        p += ld(6, s.encode())
    return p


out = sys.argv[1]
with open(os.path.join(out, "diff-int64-min.pb"), "wb") as f:
    f.write(profile([-(1 << 63), 5]))
big = [(1 << 62) + 1, (1 << 62) + 1]
pad = ""
while not len(profile(big, pad)) & 32:
    pad += "x"
with open(os.path.join(out, "diff-sum-overflow.pb"), "wb") as f:
    f.write(profile(big, pad))
