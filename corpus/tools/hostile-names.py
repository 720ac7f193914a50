#!/usr/bin/env python3
# A hand-made profile whose names break naive text output: the mapping's file is `a"b\` (a quote
# and a trailing backslash, which end a dot string early), one function is named in Latin-1
# (0xe9, not UTF-8) and one holds a control byte (0x01); neither may reach an SVG, which is XML.
# Writes the protobuf bytes to standard output (tests/report/data/hostile-names.pb).
import sys
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f; n >>= 7
        if n: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def field(num, payload):  # length-delimited
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def vint(num, v):
    return varint(num << 3) + varint(v)
def packed(vals):
    return b"".join(varint(v) for v in vals)
strings = [b"", b"samples", b"count", b'/bin/a"b\\', b"caf\xe9", b"ctl\x01name", b"main"]
p = field(1, vint(1, 1) + vint(2, 2))
p += field(2, field(1, packed([1, 3])) + field(2, packed([5])))
p += field(2, field(1, packed([2, 3])) + field(2, packed([3])))
p += field(3, vint(1, 1) + vint(2, 0x1000) + vint(3, 0x2000) + vint(5, 3) + vint(7, 1))
for i, fn in ((1, 4), (2, 5), (3, 6)):
    p += field(4, vint(1, i) + vint(2, 1) + vint(3, 0x1000 + 0x10 * i) + field(4, vint(1, i)))
    p += field(5, vint(1, i) + vint(2, fn) + vint(3, fn))
for s in strings:
    p += field(6, s)
sys.stdout.buffer.write(p)
