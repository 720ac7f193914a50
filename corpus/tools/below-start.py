#!/usr/bin/env python3
# A hand-made profile: two samples, one at address 0x500 below its mapping [0x1000, 0x2000).
# Writes the protobuf bytes to standard output (tests/report/data/below-start.pb).
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
strings = ["", "samples", "count", "a.out"]
p = field(1, vint(1, 1) + vint(2, 2))
p += field(2, field(1, packed([1])) + field(2, packed([5])))
p += field(2, field(1, packed([2])) + field(2, packed([3])))
p += field(3, vint(1, 1) + vint(2, 0x1000) + vint(3, 0x2000) + vint(5, 3))
p += field(4, vint(1, 1) + vint(2, 1) + vint(3, 0x500))
p += field(4, vint(1, 2) + vint(2, 1) + vint(3, 0x1500))
for s in strings:
    p += field(6, s.encode())
sys.stdout.buffer.write(p)
