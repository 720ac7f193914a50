#!/usr/bin/env python3
# Seeds for fuzz_report's list with sources (corpus/report/list-N.pb): small profiles whose
# functions name relative-safe source files and lines, so the harness writes those files and
# `list` annotates them. Usage: list-seeds.py DIR (writes DIR/list-0.pb .. list-3.pb, and
# list-4.pb: see windows()).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402


def profile(variant):
    strings = ["", "samples", "count", "cpu", "nanoseconds", "main.compute", "main.main",
               "util.helper", "/src/app/main.go", "src/app/util.go", "app"]
    s = {x: i for i, x in enumerate(strings)}
    p = ld(1, vi(1, s["samples"]) + vi(2, s["count"]))
    p += ld(1, vi(1, s["cpu"]) + vi(2, s["nanoseconds"]))
    # functions: compute and main in main.go, helper in util.go
    funcs = [(1, "main.compute", "/src/app/main.go", 10), (2, "main.main", "/src/app/main.go", 3),
             (3, "util.helper", "src/app/util.go", 20 + variant)]
    for fid, name, fn, start in funcs:
        p += ld(5, vi(1, fid) + vi(2, s[name]) + vi(3, s[name]) + vi(4, s[fn]) + vi(5, start))
    p += ld(3, vi(1, 1) + vi(2, 0x400000) + vi(3, 0x500000) + vi(5, s["app"]) + vi(7, 1) +
            vi(8, 1) + vi(9, 1))
    # locations: lines spread over the files; variant 1 and 3 have an inlined frame
    locs = [(1, 0x401000, [(1, 12 + variant)]), (2, 0x401100, [(1, 15 + 2 * variant)]),
            (3, 0x402000, [(2, 5)]), (4, 0x403000, [(3, 22 + variant), (1, 40)] if variant % 2
                                      else [(3, 22 + variant)]),
            (5, 0x404000, [(3, 60 + 10 * variant)])]
    for lid, addr, lines in locs:
        body = vi(1, lid) + vi(2, 1) + vi(3, addr)
        for fid, ln in lines:
            body += ld(4, vi(1, fid) + vi(2, ln))
        p += ld(4, body)
    stacks = [([1, 3], [3, 3000]), ([2, 3], [1, 1000]), ([4, 2, 3], [2 + variant, 2000]),
              ([5, 3], [1, 500 * (variant + 1)]), ([3], [1, 10])]
    for st, vals in stacks:
        p += ld(2, ld(1, packed(st)) + ld(2, packed(vals)))
    for x in strings:
        p += ld(6, x.encode())
    p += vi(12, 10000000)  # period
    return p


def windows():
    """Source windows that are not one block: a function starting (start_line 10) after a line
    it has samples at (3, then 12), so the listing passes that node by; a later function of the
    same file starting at 100 with its only sample at line 3, so its window holds no line (the
    file opens, as the earlier routine read it, and nothing is printed); and a function whose
    absolute file name holds a NUL byte, which no open takes."""
    strings = ["", "samples", "count", "a.first", "b.second", "c.nul", "src/app/win.go",
               "/src/app/n\0l.go"]
    s = {x: i for i, x in enumerate(strings)}
    p = ld(1, vi(1, s["samples"]) + vi(2, s["count"]))
    funcs = [(1, "a.first", "src/app/win.go", 10), (2, "b.second", "src/app/win.go", 100),
             (3, "c.nul", "/src/app/n\0l.go", 1)]
    for fid, name, fn, start in funcs:
        p += ld(5, vi(1, fid) + vi(2, s[name]) + vi(3, s[name]) + vi(4, s[fn]) + vi(5, start))
    locs = [(1, [(1, 3)]), (2, [(1, 12)]), (3, [(2, 3)]), (4, [(3, 7)])]
    for lid, lines in locs:
        body = vi(1, lid)
        for fid, ln in lines:
            body += ld(4, vi(1, fid) + vi(2, ln))
        p += ld(4, body)
    for st, v in [([1], 5), ([2, 1], 7), ([3], 2), ([4], 4)]:
        p += ld(2, ld(1, packed(st)) + ld(2, packed([v])))
    for x in strings:
        p += ld(6, x.encode())
    return p


out = sys.argv[1]
with open(os.path.join(out, "list-4.pb"), "wb") as f:
    f.write(windows())
for v in range(4):
    with open(os.path.join(out, "list-%d.pb" % v), "wb") as f:
        f.write(profile(v))
