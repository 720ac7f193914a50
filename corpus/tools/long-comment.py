#!/usr/bin/env python3
# A hand-made profile of 1.1 MB that is almost all one comment: its encoding is more than one
# gzip member (PPROF_GZIP_MEMBER_BYTES), so fuzz_file writes it back as gzip members on two
# threads (the seed's second byte is odd), yet the model stays small for the fuzzing limits
# (fuzz/fuzz.h). The comment is "a" with a "b" at one place in 256 drawn from a fixed LCG, so
# that the zstd seed is a few KB and stays under the reader's ratio limit of 200:
#   corpus/tools/long-comment.py | zstd -19 -c > corpus/file/long-comment.pb.zst
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

N = 1100 * 1024
comment = bytearray(b"a" * N)
x = 1
for _ in range(N // 256):
    x = (x * 1103515245 + 12345) % (1 << 31)
    comment[(x >> 8) % N] = ord("b")
strings = [b"", b"samples", b"count", b"main", b"app.c", bytes(comment)]
p = ld(1, vi(1, 1) + vi(2, 2))
for i in range(4):
    p += ld(2, ld(1, packed([1])) + ld(2, packed([1 + i])))
p += ld(4, vi(1, 1) + vi(3, 0x1000) + ld(4, vi(1, 1) + vi(2, 3)))
p += ld(5, vi(1, 1) + vi(2, 3) + vi(4, 4))
for s in strings:
    p += ld(6, s)
p += vi(13, 5)
sys.stdout.buffer.write(p)
