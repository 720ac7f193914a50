#!/usr/bin/env python3
# A hand-made profile: two samples, one at address 0x500 below its mapping [0x1000, 0x2000).
# Writes the protobuf bytes to standard output (tests/report/data/below-start.pb).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

strings = ["", "samples", "count", "a.out"]
p = ld(1, vi(1, 1) + vi(2, 2))
p += ld(2, ld(1, packed([1])) + ld(2, packed([5])))
p += ld(2, ld(1, packed([2])) + ld(2, packed([3])))
p += ld(3, vi(1, 1) + vi(2, 0x1000) + vi(3, 0x2000) + vi(5, 3))
p += ld(4, vi(1, 1) + vi(2, 1) + vi(3, 0x500))
p += ld(4, vi(1, 2) + vi(2, 1) + vi(3, 0x1500))
for s in strings:
    p += ld(6, s.encode())
sys.stdout.buffer.write(p)
