#!/usr/bin/env python3
"""Packs a tree input of fuzz_symbolize_profile (see run_tree() in
fuzz/fuzz_symbolize_profile.c): "PPROFSZTREE\\n" and one record per argument.

    sztree.py OUT ARG...
    f:NAME=PATH   the file at PATH as NAME in the tree     d:NAME  a directory
    s:NAME  a Unix socket
    l:NAME=TARGET a symbolic link (relative, or /dev/null)   p:NAME  a FIFO
    D:NAME  a debug directory   b:NAME  a --binary   c:NAME  the debuginfod cache
    r:NAME  the sysroot ("-": none)
    m:START,LIMIT,OFFSET,FILE,BUILD_ID  a mapping (hex numbers)
    o:FLAGS  F force, N no demangling, L a 4 KiB file size limit, K lines already there
"""
import struct
import sys


def record(arg):
    op, _, rest = arg.partition(":")
    if op == "f":
        name, _, path = rest.partition("=")
        with open(path, "rb") as f:
            data = f.read()
        return b"f" + name.encode() + b"\0" + struct.pack("<I", len(data)) + data
    if op == "l":
        name, _, target = rest.partition("=")
        return b"l" + name.encode() + b"\0" + target.encode() + b"\0"
    if op == "m":
        fields = rest.split(",")
        if len(fields) != 5:
            sys.exit("m: needs START,LIMIT,OFFSET,FILE,BUILD_ID: " + arg)
        return b"m" + b"".join(x.encode() + b"\0" for x in fields)
    if op in ("d", "p", "s", "D", "b", "c", "r", "o"):
        return op.encode() + rest.encode() + b"\0"
    sys.exit("unknown record " + arg)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = b"PPROFSZTREE\n" + b"".join(record(a) for a in sys.argv[2:])
    with open(sys.argv[1], "wb") as f:
        f.write(out)


main()
