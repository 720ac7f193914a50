#!/usr/bin/env python3
# A hand-made profile whose names break naive text output: the mapping's file is `a"b\` (a quote
# and a trailing backslash, which end a dot string early), one function is named in Latin-1
# (0xe9, not UTF-8) and one holds a control byte (0x01); neither may reach an SVG, which is XML.
# Writes the protobuf bytes to standard output (tests/report/data/hostile-names.pb).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

strings = [b"", b"samples", b"count", b'/bin/a"b\\', b"caf\xe9", b"ctl\x01name", b"main"]
p = ld(1, vi(1, 1) + vi(2, 2))
p += ld(2, ld(1, packed([1, 3])) + ld(2, packed([5])))
p += ld(2, ld(1, packed([2, 3])) + ld(2, packed([3])))
p += ld(3, vi(1, 1) + vi(2, 0x1000) + vi(3, 0x2000) + vi(5, 3) + vi(7, 1))
for i, fn in ((1, 4), (2, 5), (3, 6)):
    p += ld(4, vi(1, i) + vi(2, 1) + vi(3, 0x1000 + 0x10 * i) + ld(4, vi(1, i)))
    p += ld(5, vi(1, i) + vi(2, fn) + vi(3, fn))
for s in strings:
    p += ld(6, s)
sys.stdout.buffer.write(p)
