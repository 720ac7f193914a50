#!/usr/bin/env python3
# A hand-made pprof profile with every feature the OTLP writer maps to a place of its own, for
# fuzz_otlp (pprof -> OTLP -> pprof): a sample type twice (pprof.profile_index), a line with a
# column, a folded location, a sample with its timestamp_unix_nano label in nanoseconds and a
# trace_id/span_id pair in hex (a link), one with a bad trace_id (kept as labels), a label with
# the empty key, numeric labels with a unit and several values of one key, comments, drop and
# keep frames, the doc URL and the default sample type:
#   corpus/tools/otlp-features.py > corpus/otlp/pprof-features.pb
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402

strings = [b"", b"cpu", b"nanoseconds", b"main", b"app.c", b"timestamp_unix_nano",
           b"trace_id", b"span_id", b"0123456789abcdef0123456789abcdef", b"0123456789abcdef",
           b"not-hex", b"bytes", b"size", b"a comment", b"drop.*", b"keep.*",
           b"https://example.com/doc", b"worker", b"thread"]
S = {s: i for i, s in enumerate(strings)}


def label(key, s=None, num=None, unit=None):
    b = vi(1, S[key])
    if s is not None:
        b += vi(2, S[s])
    if num is not None:
        b += vi(3, num)
    if unit is not None:
        b += vi(4, S[unit])
    return ld(3, b)


p = ld(1, vi(1, S[b"cpu"]) + vi(2, S[b"nanoseconds"])) * 2
# a link and a timestamp
p += ld(2, ld(1, packed([1, 2])) + ld(2, packed([10, 20])) +
        label(b"timestamp_unix_nano", num=1500, unit=b"nanoseconds") +
        label(b"trace_id", s=b"0123456789abcdef0123456789abcdef") +
        label(b"span_id", s=b"0123456789abcdef"))
# trace_id that is no hex: stays two labels; a label with the empty key; a key twice
p += ld(2, ld(1, packed([2])) + ld(2, packed([5, 0])) +
        label(b"trace_id", s=b"not-hex") + label(b"span_id", s=b"0123456789abcdef") +
        ld(3, vi(2, S[b"worker"])) + label(b"size", num=64, unit=b"bytes") +
        label(b"size", num=128, unit=b"bytes") + label(b"thread", s=b"worker"))
# values all zero
p += ld(2, ld(1, packed([1])) + ld(2, packed([0, 0])))
p += ld(3, vi(1, 1) + vi(2, 0x1000) + vi(3, 0x9000) + vi(5, S[b"app.c"]) + vi(7, 1))
p += ld(4, vi(1, 1) + vi(2, 1) + vi(3, 0x1100) + ld(4, vi(1, 1) + vi(2, 7) + vi(3, 12)))
p += ld(4, vi(1, 2) + vi(2, 1) + vi(3, 0x1200) + ld(4, vi(1, 1) + vi(2, 9)) + vi(5, 1))
p += ld(5, vi(1, 1) + vi(2, S[b"main"]) + vi(4, S[b"app.c"]) + vi(5, 3))
for s in strings:
    p += ld(6, s)
p += vi(7, S[b"drop.*"]) + vi(8, S[b"keep.*"]) + vi(9, 1000) + vi(10, 5000)
p += ld(11, vi(1, S[b"cpu"]) + vi(2, S[b"nanoseconds"])) + vi(12, 10)
p += vi(13, S[b"a comment"]) + vi(14, S[b"cpu"]) + vi(15, S[b"https://example.com/doc"])
sys.stdout.buffer.write(p)
