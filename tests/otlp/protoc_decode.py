#!/usr/bin/env python3
"""Decodes OTLP written by pprof-convert --to=otlp with protoc --decode against the kept schema
(tests/otlp/proto, opentelemetry-proto ac2c4b5) and compares field values with the pprof input
as pprof-dump --json lists it: one Profile per sample type with its type and unit, the samples'
values and stack depths in order (sparse: a sample only where its value is not 0, an all-zero
sample in the first Profile), time, duration and period, function names, the zero value at
index 0 of every dictionary table, the resource's service.name; the same bytes decode as an
ExportProfilesServiceRequest to the same text; and a pprof sample's timestamp_unix_nano label
and trace_id/span_id labels come out as timestamps_unix_nano and a Link.

Usage: protoc_decode.py BUILD_DIR SOURCE_ROOT REAL_CORPUS"""
import codecs
import json
import os
import re
import subprocess
import sys
import tempfile

BUILD, SRC, REAL = sys.argv[1:4]
PROTO = os.path.join(SRC, 'tests', 'otlp', 'proto')
PKG = 'opentelemetry.proto.profiles.v1development'
n_test = 0
failed = 0


def ok(cond, msg):
    global n_test, failed
    n_test += 1
    if not cond:
        failed += 1
    print(('ok' if cond else 'not ok') + ' %d - %s' % (n_test, msg))
    return cond


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, **kw)


def decode(path, message, proto):
    with open(path, 'rb') as f:
        r = run('protoc', '-I', PROTO, '--decode=' + message, proto, stdin=f)
    if r.returncode:
        raise RuntimeError(r.stderr.decode())
    return r.stdout.decode('utf-8', 'replace')


TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_0-9]+)\s*\{|([A-Za-z_0-9]+):\s*("(?:[^"\\]|\\.)*"|[^\s]+))')


def parse(text):
    """protoc's text format as nested dicts of lists."""
    root = {}
    stack = [root]
    pos = 0
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            break
        pos = m.end()
        if m.group(1):
            stack.pop()
        elif m.group(2):
            child = {}
            stack[-1].setdefault(m.group(2), []).append(child)
            stack.append(child)
        else:
            v = m.group(4)
            if v.startswith('"'):
                v = codecs.escape_decode(v[1:-1].encode('latin-1', 'backslashreplace'))[0]
            else:
                v = int(v) if re.fullmatch(r'-?\d+', v) else v
            stack[-1].setdefault(m.group(3), []).append(v)
    return root


def one(d, k, default=0):
    v = d.get(k)
    return v[0] if v else default


def check(name, pprof_path, extra=()):
    out = os.path.join(tmp, 'out.otlp')
    r = run(os.path.join(BUILD, 'tools', 'pprof-convert'), '--to=otlp', '--service-name', 'svc',
            *extra, pprof_path, '-o', out)
    if not ok(r.returncode == 0, '%s: pprof-convert --to=otlp' % name):
        print('# ' + r.stderr.decode())
        return None
    dump = json.loads(run(os.path.join(BUILD, 'tools', 'pprof-dump'), '--json', pprof_path).stdout)
    proto = 'opentelemetry/proto/profiles/v1development/profiles.proto'
    text = decode(out, PKG + '.ProfilesData', proto)
    svc = 'opentelemetry/proto/collector/profiles/v1development/profiles_service.proto'
    text2 = decode(out, 'opentelemetry.proto.collector.profiles.v1development.'
                   'ExportProfilesServiceRequest', svc)
    ok(text == text2, '%s: decodes the same as an ExportProfilesServiceRequest' % name)
    d = parse(text)
    dic = one(d, 'dictionary', {})
    strings = [s.decode('utf-8', 'replace') for s in dic.get('string_table', [])]
    S = lambda i: strings[i] if 0 <= i < len(strings) else '<bad %d>' % i
    ok(strings[:1] == [''] and all(dic.get(t, [None])[0] == {} for t in
       ('mapping_table', 'location_table', 'function_table', 'attribute_table', 'stack_table')),
       '%s: index 0 of every table is the zero value' % name)
    link0 = one(dic, 'link_table', {})
    ok(set(link0.get('trace_id', [b'\0' * 16])[0]) == {0}, '%s: link_table[0] is zero' % name)
    rp = one(d, 'resource_profiles', {})
    attrs = {one(kv, 'key', b'').decode(): one(one(kv, 'value', {}), 'string_value', b'').decode()
             for kv in one(rp, 'resource', {}).get('attributes', [])}
    ok(attrs.get('service.name') == 'svc', '%s: resource service.name' % name)
    profs = one(rp, 'scope_profiles', {}).get('profiles', [])
    ok(len(profs) == len(dump['sample_type']), '%s: %d profiles for %d sample types'
       % (name, len(profs), len(dump['sample_type'])))
    stacks = dic.get('stack_table', [])
    good = True
    for i, (pr, st) in enumerate(zip(profs, dump['sample_type'])):
        vt = one(pr, 'sample_type', {})
        good &= (S(one(vt, 'type_strindex')), S(one(vt, 'unit_strindex'))) == (st['type'], st['unit'])
        good &= one(pr, 'time_unix_nano') == dump['time_nanos']
        good &= one(pr, 'duration_nano') == dump['duration_nanos']
        good &= one(pr, 'period') == dump['period']
        # sparse: a sample where its value is not 0; one whose values are all 0 in the first
        want = [ps for ps in dump['sample'] if ps['value'][i] != 0 or
                (i == 0 and not any(ps['value']))]
        samples = pr.get('samples', [])
        good &= len(samples) == len(want)
        for s, ps in zip(samples, want):
            good &= s.get('values', [0]) == [ps['value'][i]]
            depth = len(stacks[one(s, 'stack_index')].get('location_indices', []))
            good &= depth == len(ps['location_id'])
    ok(good, '%s: sample types, values, stack depths, time, duration, period' % name)
    names = {S(one(f, 'name_strindex')) for f in dic.get('function_table', [])[1:]}
    want = {f['name'] for f in dump['function']} if 'function' in dump else set()
    ok(names == want or names == want - {''}, '%s: function names' % name)
    return d


BROKEN = {'dotnet-function-id-zero.pb.gz', 'invalid-utf8.pb.gz', 'no-address-no-line.pb.gz'}

with tempfile.TemporaryDirectory() as tmp:
    files = [os.path.join(SRC, 'corpus', 'examples', f)
             for f in sorted(os.listdir(os.path.join(SRC, 'corpus', 'examples')))
             if f.endswith('.pb.gz')]
    for sub in ('parca', 'generated'):
        dr = os.path.join(REAL, sub)
        if os.path.isdir(dr):
            # the generated files that break a rule on purpose are not conversion inputs
            files += [os.path.join(dr, f) for f in sorted(os.listdir(dr))
                      if f != 'SOURCES.txt' and f not in BROKEN][:3]
    for f in files:
        check(os.path.relpath(f, os.path.dirname(os.path.dirname(f))), f)
    # timestamps and a link: from the pprof that group.otlp's second profile becomes
    g = os.path.join(tmp, 'g1.pb')
    r = run(os.path.join(BUILD, 'tools', 'pprof-convert'), '--from=otlp', '--profile', '1',
            os.path.join(SRC, 'tests', 'otlp', 'in', 'group.otlp'), '-o', g)
    ok(r.returncode == 0, 'group.otlp --profile 1 to pprof')
    d = check('group-1', g)
    if d:
        dic = one(d, 'dictionary', {})
        pr = one(one(one(d, 'resource_profiles', {}), 'scope_profiles', {}), 'profiles', {})
        s = pr.get('samples', [])
        ok([x.get('timestamps_unix_nano') for x in s] == [[1001], [1002]],
           'group-1: timestamp labels are timestamps_unix_nano again')
        links = dic.get('link_table', [])
        li = one(s[0], 'link_index') if s else 0
        ok(0 < li < len(links) and one(links[li], 'trace_id') == bytes(range(1, 17)) and
           one(links[li], 'span_id') == bytes.fromhex('aabbccddeeff0011'),
           'group-1: trace_id and span_id labels are a Link again')
print('1..%d' % n_test)
sys.exit(1 if failed else 0)
