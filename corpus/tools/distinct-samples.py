#!/usr/bin/env python3
# A hand-made profile of 16,500 samples that differ only in a numeric label: the merger keeps
# them all, past the 16,384 samples from which it sorts and copies on two threads (par.c). The
# seed is its zstd compression (20 KB, inside the fuzzing limits of fuzz/fuzz.h) followed by
# fuzz_merge's separator, so that it is merged alone (a mutant would not merge); the tag in the
# last string only steers the input's hash to a value for which fuzz_merge uses two threads:
#   corpus/tools/distinct-samples.py 3 | zstd -19 -c > F && printf PPROFMERGE >> F
# (zstd 1.5; another zstd may need another tag), then F is named by its SHA-1 in corpus/merge/.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

N = 16500
tag = int(sys.argv[1]) if len(sys.argv) > 1 else 0
strings = ["", "samples", "count", "main", "app.c", "n", "t%d" % tag]
p = ld(1, vi(1, 1) + vi(2, 2))
for i in range(N):
    p += ld(2, ld(1, packed([1])) + ld(2, packed([1])) + ld(3, vi(1, 5) + vi(3, i)))
p += ld(4, vi(1, 1) + vi(3, 0x1000) + ld(4, vi(1, 1) + vi(2, 3)))
p += ld(5, vi(1, 1) + vi(2, 3) + vi(4, 4))
for s in strings:
    p += ld(6, s.encode())
p += vi(13, 6)
sys.stdout.buffer.write(p)
