#!/usr/bin/env python3
"""Broken .cpuprofile files for fuzz_cpuprofile (corpus/cpuprofile/bad-*): each breaks one rule
the reader (libpprof/cpuprofile-read.c) states in its own message, starting from one small valid
profile, so every refusal has a seed that reaches it.
  corpus/tools/cpuprofile-seeds.py [OUTDIR]"""
import copy
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'cpuprofile')


def frame(name, url='file:///a.js', line=1, col=1):
    return {'functionName': name, 'scriptId': '1', 'url': url, 'lineNumber': line,
            'columnNumber': col}


BASE = {
    'nodes': [
        {'id': 1, 'callFrame': frame('(root)', '', -1, -1), 'children': [2]},
        {'id': 2, 'callFrame': frame('main'), 'children': [3]},
        {'id': 3, 'callFrame': frame('leaf', line=4)},
    ],
    'startTime': 0, 'endTime': 100, 'samples': [3, 2, 3], 'timeDeltas': [10, 20, 30],
}


def edit(fn):
    p = copy.deepcopy(BASE)
    fn(p)
    return json.dumps(p, separators=(',', ':')).encode()


def setter(path, value):
    def fn(p):
        o = p
        for k in path[:-1]:
            o = o[k]
        if value is DELETE:
            del o[path[-1]]
        else:
            o[path[-1]] = value
    return fn


DELETE = object()
seeds = {
    'bad-node-not-object': edit(setter(['nodes', 1], 7)),
    'bad-node-no-id': edit(setter(['nodes', 1, 'id'], DELETE)),
    'bad-node-id-string': edit(setter(['nodes', 1, 'id'], '2')),
    'bad-no-callframe': edit(setter(['nodes', 2, 'callFrame'], DELETE)),
    'bad-function-name': edit(setter(['nodes', 2, 'callFrame', 'functionName'], 5)),
    'bad-url': edit(setter(['nodes', 2, 'callFrame', 'url'], [])),
    'bad-line-number': edit(setter(['nodes', 2, 'callFrame', 'lineNumber'], 1.5)),
    'bad-children-object': edit(setter(['nodes', 1, 'children'], {'a': 3})),
    'bad-child-string': edit(setter(['nodes', 1, 'children'], ['3'])),
    'bad-child-unknown': edit(setter(['nodes', 1, 'children'], [9])),
    'bad-child-two-parents': edit(setter(['nodes', 0, 'children'], [2, 3])),
    'bad-child-self': edit(setter(['nodes', 2, 'children'], [3])),
    'bad-cycle-no-root': edit(setter(['nodes', 2, 'children'], [1])),
    'bad-duplicate-id': edit(setter(['nodes', 2, 'id'], 2)),
    'bad-no-samples': edit(setter(['samples'], DELETE)),
    'bad-no-deltas': edit(setter(['timeDeltas'], 'x')),
    'bad-delta-count': edit(setter(['timeDeltas'], [1, 2])),
    'bad-sample-string': edit(setter(['samples', 1], '2')),
    'bad-delta-float': edit(setter(['timeDeltas', 2], 0.5)),
    'bad-sample-unknown': edit(setter(['samples', 0], 42)),
    'bad-delta-overflow': edit(setter(['timeDeltas'], [2**62, 2**62, 2**62])),
    'bad-not-object': b'[1, 2, 3]',
    'bad-head-format': json.dumps({'head': {'functionName': '(root)', 'children': []},
                                   'startTime': 0, 'endTime': 1}).encode(),
    'bad-no-nodes': b'{"samples": [], "timeDeltas": []}',
    'bad-nesting': b'{"nodes": ' + b'[' * 2000 + b']' * 2000 + b'}',
    'bad-empty': b'',
}
# a chain of nodes deeper than the harness's 1024 levels
chain = [{'id': i, 'callFrame': {}, 'children': [i + 1]} for i in range(1, 1030)]
chain.append({'id': 1030, 'callFrame': {}})
seeds['bad-deep-tree'] = json.dumps({'nodes': chain, 'samples': [1030], 'timeDeltas': [1]},
                                    separators=(',', ':')).encode()
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name + '.cpuprofile'), 'wb') as f:
        f.write(data)
