#!/usr/bin/env python3
"""Profiles the merger must refuse, each with the rule it breaks (libpprof/merge-header.c and
merge-samples.c), for the merge-input path of fuzz_decode (corpus/decode/merge-bad-*), and
pairs for fuzz_merge (corpus/merge/pair-*: two profiles split at PPROFMERGE) whose sample types
differ, in name, in unit or in number.
  corpus/tools/merge-refusals.py [DECODE_DIR MERGE_DIR]"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from pbwire import Strings, ld, packed, vi  # noqa: E402

decode_dir = sys.argv[1] if len(sys.argv) > 2 else os.path.join(here, '..', 'decode')
merge_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, '..', 'merge')


def profile(types=(('samples', 'count'),), samples=((1, (5,)),), locations=(1,), functions=(1,),
            period=('cpu', 'nanoseconds'), extra=b''):
    """types: (type, unit) pairs; samples: (location id, values); locations: ids (each a line
    of function 1); functions: ids. Strings are interned in order of use."""
    s = Strings()
    p = b''
    for t, u in types:
        p += ld(1, vi(1, s(t)) + vi(2, s(u)))
    for loc, vals in samples:
        p += ld(2, ld(1, packed([loc] if loc else [])) + ld(2, packed(vals)))
    for lid in locations:
        p += ld(4, vi(1, lid) + vi(3, 0x1000 + lid) + ld(4, vi(1, functions[0]) + vi(2, 7)))
    for fid in functions:
        p += ld(5, vi(1, fid) + vi(2, s('f%d' % fid)) + vi(4, s('a.c')))
    pt, pu = period
    p += ld(11, vi(1, s(pt)) + vi(2, s(pu))) + vi(12, 10)
    p += s.encode()
    return p + extra


bad = {
    'merge-bad-values': profile(samples=((1, (5, 6)),)),
    'merge-bad-location': profile(samples=((9, (5,)),)),
    'merge-bad-location-twice': profile(locations=(1, 1)),
    'merge-bad-location-zero': profile(samples=((1, (5,)),), locations=(1, 0)),
    'merge-bad-function-twice': profile(functions=(1, 1)),
    'merge-bad-no-types': profile(types=()),
}
pairs = {
    'pair-type-names': (profile(), profile(types=(('alloc_space', 'bytes'),))),
    'pair-type-units': (profile(), profile(types=(('samples', 'bytes'),))),
    'pair-type-count': (profile(), profile(types=(('samples', 'count'), ('cpu', 'nanoseconds')),
                                           samples=((1, (5, 7)),))),
    'pair-period': (profile(), profile(period=('space', 'bytes'))),
}
os.makedirs(decode_dir, exist_ok=True)
os.makedirs(merge_dir, exist_ok=True)
for name, data in bad.items():
    with open(os.path.join(decode_dir, name), 'wb') as f:
        f.write(data)
for name, (a, b) in pairs.items():
    with open(os.path.join(merge_dir, name), 'wb') as f:
        f.write(a + b'PPROFMERGE' + b)
