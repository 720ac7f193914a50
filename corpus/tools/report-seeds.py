#!/usr/bin/env python3
# Seeds for fuzz_report's text reports (corpus/report/text-*.pb):
#   text-num-labels.pb  numeric labels: one key twice in a sample (traces list both), the same
#                       key with and without a unit in different samples, a negative value
#                       without a unit, and a string label twice
#   text-negative.pb    the same with every value negative: the total is below 0, so tags
#                       print no percentages
#   text-thin-edge.pb   two heavy paths and one of weight 1 between their nodes: the dot graph
#                       drops that edge and says so
#   corpus/tools/report-seeds.py DIR
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

M64 = (1 << 64) - 1
STRINGS = ["", "samples", "count", "main", "work", "idle", "app.c", "size", "bytes", "depth",
           "thread", "worker", "ui"]
S = {s: i for i, s in enumerate(STRINGS)}


def label(key, s=None, num=None, unit=None):
    b = vi(1, S[key])
    if s is not None:
        b += vi(2, S[s])
    if num is not None:
        b += vi(3, num & M64)
    if unit is not None:
        b += vi(4, S[unit])
    return ld(3, b)


def profile(samples):
    p = ld(1, vi(1, S["samples"]) + vi(2, S["count"]))
    for fid, name in [(1, "main"), (2, "work"), (3, "idle")]:
        p += ld(5, vi(1, fid) + vi(2, S[name]) + vi(4, S["app.c"]))
        p += ld(4, vi(1, fid) + vi(3, 0x1000 * fid) + ld(4, vi(1, fid) + vi(2, 10 * fid)))
    for stack, value, labels in samples:
        p += ld(2, ld(1, packed(stack)) + ld(2, packed([value & M64])) + b"".join(labels))
    for s in STRINGS:
        p += ld(6, s.encode())
    return p


def labelled(sign):
    return profile([
        ([2, 1], sign * 7, [label("size", num=64, unit="bytes"), label("size", num=128),
                            label("thread", s="worker"), label("thread", s="ui")]),
        ([3, 1], sign * 3, [label("size", num=32), label("depth", num=-4)]),
        ([1], sign * 2, [label("depth", num=2)]),
    ])


out = sys.argv[1]
for name, data in [("text-num-labels.pb", labelled(1)), ("text-negative.pb", labelled(-1)),
                   ("text-thin-edge.pb", profile([([2, 1], 10000, []), ([3, 1], 10000, []),
                                                  ([3, 2, 1], 1, [])]))]:
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
