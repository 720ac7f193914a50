#!/usr/bin/env python3
"""Gzip containers around one profile for fuzz_decode (corpus/decode/gz-*): members back to
back, trailing zero padding, trailing garbage, a short tail that is no whole member, a corrupt
second member and trailers whose declared size lies. The profile (a roundtrip seed, 52 KB
decoded) is past the reader's first 4 KiB probe, so these reach the one-go and the streaming
paths of libpprof/compress.c. Deterministic: mtime 0.
  corpus/tools/gzip-members.py [OUTDIR]"""
import gzip
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, '..', 'roundtrip', 'e25a780a2dddf77d2925033fd4fead46c7c0d9d5')
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'decode')

raw = open(src, 'rb').read()
if raw[:2] == b'\x1f\x8b':
    raw = gzip.decompress(raw)


def gz(b, level=6):
    return gzip.compress(b, compresslevel=level, mtime=0)


half = len(raw) // 2
m1, m2 = gz(raw[:half]), gz(raw[half:], 1)
whole = gz(raw)


def with_isize(member, isize):
    return member[:-4] + struct.pack('<I', isize & 0xffffffff)


corrupt = bytearray(m2)
corrupt[len(corrupt) // 2] ^= 0x55
seeds = {
    'gz-two-members': m1 + m2,
    'gz-zero-padding': m1 + m2 + bytes(16),
    # the last four bytes are read as the size the trailer declares: garbage and a short tail
    # that end in a small one go the one-go way, others the streaming way
    'gz-trailing-garbage': m1 + m2 + b'garbage!',
    'gz-trailing-garbage-small': m1 + m2 + b'garbage!' + struct.pack('<I', 16),
    'gz-short-tail': m1 + m2 + gz(b'x')[:10],
    'gz-short-tail-small': m1 + m2 + gz(b'x')[:10] + struct.pack('<I', 5),
    'gz-corrupt-second': m1 + bytes(corrupt),
    # an ISIZE past deflate's 1032:1: a hint not to trust
    'gz-isize-huge': with_isize(whole, len(whole) * 2000),
    # an ISIZE far below the real size: the buffer grows
    'gz-isize-small': with_isize(whole, 100),
}
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
