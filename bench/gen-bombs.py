#!/usr/bin/env python3
"""Writes the decompression bombs measured in docs/safety.md into DIR (default .): a repeated unit
piped into `gzip -9` or `zstd -19`, after a real profile where the shape needs one.
Usage: bench/gen-bombs.py [DIR]   (takes about 4 minutes; the outputs are 20 KB to 10 MB)"""
import gzip
import os
import subprocess
import sys

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
corpus = os.environ.get("PPROF_REAL_CORPUS", os.path.join(os.path.dirname(__file__), "..", "corpus", "real"))
with open(os.path.join(corpus, "parca/query-single-stack.pb.gz"), "rb") as f:
    real = gzip.decompress(f.read())
G = 1 << 30


def gen(name, head, unit, total, tail=b"", comp="gzip"):
    cmd = ["gzip", "-9", "-c"] if comp == "gzip" else ["zstd", "-19", "-c", "-q"]
    with open(os.path.join(out_dir, name), "wb") as out:
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out)
        p.stdin.write(head)
        block = unit * ((1 << 20) // len(unit))
        n = 0
        while n < total:
            p.stdin.write(block)
            n += len(block)
        p.stdin.write(tail)
        p.stdin.close()
        p.wait()


def gen_distinct(name, head, count, tail):
    """count strings that all differ (a counter in a 100-byte name: deflate gets about 34x out of
    them, and nothing repeats), then tail."""
    with open(os.path.join(out_dir, name), "wb") as out:
        p = subprocess.Popen(["gzip", "-9", "-c"], stdin=subprocess.PIPE, stdout=out)
        p.stdin.write(head)
        for start in range(0, count, 1 << 16):
            p.stdin.write(b"".join(b"\x32\x64" + b"0" * 92 + b"%08x" % i
                                   for i in range(start, min(count, start + (1 << 16)))))
        p.stdin.write(tail)
        p.stdin.close()
        p.wait()


gen("zeros.gz", b"", b"\0", 2 * G)
gen("zeros.zst", b"", b"\0", 2 * G, comp="zstd")
gen("text.gz", b"", b"hello world, this is text\n", G)
gen("profile-then-period.gz", real, b"\x60\x01", G)
gen("profile-then-period.zst", real, b"\x60\x01", G, comp="zstd")
gen("samples.gz", real, b"\x12\x02\x08\x01", G)
gen("comments.gz", real, b"\x68\x01", G)
gen("unknown.gz", real, b"\xa0\x06\x01", G)
gen("empty-strings.gz", b"\x32\x00", b"\x32\x00", 20 << 20)
gen("long-strings.gz", real, b"\x32\x64" + b"a" * 100, G)
gen("long-strings-then-garbage.gz", real, b"\x32\x64" + b"a" * 100, 600 << 20, tail=b"\x00garbage")
gen_distinct("distinct-strings-then-garbage.gz", real, 3_400_000, b"\x00garbage")
