#!/usr/bin/env python3
# A hand-made profile whose label keys and values, units and names try to leave the dot strings
# they are quoted in (docs/report.md, "Strings in the dot graph"): a label value that adds a URL
# (a javascript: link on the node of --svg), one that closes the node and sets the graph's
# stylesheet (a request when the SVG opens), a sample type unit and a "bytes" label unit that add
# a URL to every node, an ordinary `say "hi"`, a key ending in a backslash, a function name with
# a NUL byte and a file name with a quote. Writes the protobuf bytes to standard output
# (tests/report/data/hostile-labels.pb; corpus/regress/report holds the same bytes).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import Strings, ld, packed, vi  # noqa: E402

JS = 'javascript:window.__pwned=1'
s = Strings()
unit = 'ms" href="' + JS + '" target="_self'
p = ld(1, vi(1, s('samples')) + vi(2, s('count')))
p += ld(1, vi(1, s('time')) + vi(2, s(unit)))
labels = [
    ('k', 'x" URL="' + JS + '" target="_self'),
    ('g', 'x"]\nstylesheet="http://127.0.0.1:9/track.css"\nz [label="'),
    ('q', 'say "hi"'),
    ('w\\', 'v\\'),
]
num_unit = 'b" href="' + JS + '" x="'
for i, (k, v) in enumerate(labels):
    lab = ld(3, vi(1, s(k)) + vi(2, s(v)))
    lab += ld(3, vi(1, s('bytes')) + vi(3, 1000 * (i + 1)) + vi(4, s(num_unit)))
    p += ld(2, ld(1, packed([1 + i % 3, 4])) + ld(2, packed([10 + i, 1000 * (i + 1)])) + lab)
p += ld(3, vi(1, 1) + vi(2, 0x1000) + vi(3, 0x9000) + vi(5, s('/bin/prog')) + vi(7, 1))
names = [('nul\x00name', 'a"b.c'), ('main.leaf', 'leaf\\.go'), ('main.other', 'o.go'), ('main.main', 'main.go')]
for i, (name, file) in enumerate(names, 1):
    p += ld(4, vi(1, i) + vi(2, 1) + vi(3, 0x1000 + 0x10 * i) + ld(4, vi(1, i) + vi(2, 10 * i)))
    p += ld(5, vi(1, i) + vi(2, s(name)) + vi(3, s(name)) + vi(4, s(file)))
p += s.encode()
sys.stdout.buffer.write(p)
