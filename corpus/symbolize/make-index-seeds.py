#!/usr/bin/env python3
"""Writes the address index seeds of fuzz_symbolize (the cache files of symbolize-cache.c):
index-small.idx, a well-formed index (three addresses, one without frames, an inline chain),
and index-torn.idx, the same cut in the middle of its frames."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
key = b"libpprof-symbolize frames 1\0seed"
strs = b"main\0inlined_fn\0/src/a.c\0"
name_main, name_inl, file_a = 1, 6, 17  # offset + 1
addrs = [(0x1000, 0, 1), (0x1004, 1, 2), (0x2000, 3, 0)]
frames = [(name_main, file_a, 3, 1, 2), (name_inl, file_a, 10, 5, 9), (name_main, file_a, 4, 3, 2)]
body = key + b"".join(struct.pack("<QII", *a) for a in addrs)
body += b"".join(struct.pack("<IIqqq", *f) for f in frames) + strs
hdr = bytearray(b"PPROFSZI" + struct.pack("<6IQII", 1, 3, len(key), len(addrs), len(frames), len(strs), 0, 0, 0))
data = bytearray(hdr + body)
struct.pack_into("<I", data, 40, zlib.crc32(bytes(data)) & 0xFFFFFFFF)
with open(os.path.join(HERE, "index-small.idx"), "wb") as f:
    f.write(data)
with open(os.path.join(HERE, "index-torn.idx"), "wb") as f:
    f.write(data[: 48 + len(key) + 16 * len(addrs) + 40])
