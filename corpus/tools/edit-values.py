#!/usr/bin/env python3
"""fuzz_edit seeds ("OPS\\nPPROFEDIT\\nPROFILE") for the value edits of libpprof/edit-values.c:
picking sample types (a name twice in the profile, asked twice, missing, keeping the default
type), scaling by name and past int64 (the error names the leaf), normalizing values whose sum
leaves int64. Written to corpus/edit/values-*.
  corpus/tools/edit-values.py [OUTDIR]"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from pbwire import Strings, ld, packed, vi  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'edit')


def profile(types, values, default=None):
    """One sample per row of values, stacks main -> leafN; types: (type, unit) pairs."""
    s = Strings()
    p = b''
    for t, u in types:
        p += ld(1, vi(1, s(t)) + vi(2, s(u)))
    for i, row in enumerate(values):
        p += ld(2, ld(1, packed([2 + i, 1])) + ld(2, packed(row)))
    p += ld(3, vi(1, 1) + vi(2, 0x1000) + vi(3, 0x9000) + vi(5, s('/bin/app')))
    for lid in range(1, 2 + len(values)):
        p += ld(4, vi(1, lid) + vi(2, 1) + vi(3, 0x1000 + 16 * lid) + ld(4, vi(1, lid) + vi(2, 3)))
    for fid in range(1, 2 + len(values)):
        p += ld(5, vi(1, fid) + vi(2, s('main' if fid == 1 else 'leaf%d' % fid)) + vi(4, s('a.c')))
    if default:
        p += vi(14, s(default))
    p += s.encode()
    return p


def seed(ops, prof):
    return '\n'.join(ops).encode() + b'\nPPROFEDIT\n' + prof


two = [('alloc_objects', 'count'), ('alloc_space', 'bytes')]
seeds = {
    'values-type-named-twice': seed(['type=x'], profile([('x', 'count'), ('x', 'bytes')],
                                                        [(1, 2)])),
    'values-type-asked-twice': seed(['type=alloc_space', 'type=alloc_space'],
                                    profile(two, [(1, 2)])),
    'values-type-missing': seed(['type=inuse_space'], profile(two, [(1, 2)])),
    'values-type-default': seed(['type=alloc_space'],
                                profile(two, [(1, 2), (3, 4)], default='alloc_space')),
    'values-type-reorder': seed(['type=alloc_space', 'type=alloc_objects'],
                                profile(two, [(1, 2), (3, 4)], default='alloc_objects')),
    'values-scale-named': seed(['scale=alloc_space:2.5', 'scale=alloc_objects:0.5'],
                               profile(two, [(1, 2), (3, 4)])),
    'values-scale-overflow': seed(['scale=1e300'], profile(two, [(1, 2), (3, 4)])),
    'values-scale-negative': seed(['scale=alloc_space:-3'], profile(two, [(1, 2)])),
    'values-norm-overflow': seed(['norm=1'], profile(two, [(1, 2**62), (3, 2**62)])),
    'values-norm-scale': seed(['norm=1', 'scale=0.25'], profile(two, [(1, 7), (3, 9)])),
}
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
