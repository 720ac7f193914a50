#!/usr/bin/env python3
"""Profile strings are data in the dot graph (docs/report.md, "Strings in the dot graph"): a
profile whose label keys and values, units, names and files try to leave their dot strings
(tests/report/data/hostile-labels.pb, corpus/tools/hostile-labels.py) gives a --dot with no
attribute but ours, an --svg and a pprof-flame Graph view with no link, image or stylesheet out
of the document, and the strings back as text; a 1 MiB function name draws quickly. TAP.

usage: strings.py PPROF_REPORT PPROF_FLAME
"""
import base64
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import Tap  # noqa: E402

T = Tap()
ok = T.ok

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'corpus', 'tools'))
from pbwire import Strings, ld, packed, vi  # noqa: E402

REPORT, FLAME = sys.argv[1], sys.argv[2]
HOSTILE = os.path.join(HERE, 'data', 'hostile-labels.pb')
SVG = '{http://www.w3.org/2000/svg}'
# the attributes of the dot text pprof writes (graph.ComposeDot)
OURS = {'style', 'fillcolor', 'shape', 'fontsize', 'label', 'id', 'tooltip', 'color', 'weight',
        'penwidth', 'labeltooltip', 'minlen'}


def dot_attributes(text):
    """The names before `=` outside dot strings, reading the strings as Graphviz's scanner
    does (a backslash pairs with the byte after it)."""
    names, i, out = set(), 0, []
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            if j >= len(text):
                return None  # a string that never ends
            out.append('"')
            i = j + 1
            continue
        out.append(c)
        i += 1
    for m in re.finditer(r'([A-Za-z_][A-Za-z0-9_]*)\s*=', ''.join(out)):
        names.add(m.group(1))
    return names


def links(root):
    """Every href out of the document, every <a> and <image> with a reference."""
    bad = []
    for e in root.iter():
        for k, v in e.attrib.items():
            if k.split('}')[-1] == 'href' and not v.strip().startswith('#'):
                bad.append((e.tag, k, v))
    return bad


def check_svg(data, what):
    text = data.decode('utf-8', 'replace')
    ok('<?xml-stylesheet' not in text, what + ': no stylesheet', text[:300])
    pis = re.findall(r'<\?(?!xml )[^>]*>', text)
    ok(not pis, what + ': no processing instruction but the XML declaration', pis)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        ok(False, what + ': parses as XML', e)
        return None
    bad = links(root)
    ok(not bad, what + ': no link or reference out of the document', bad)
    return root


def run(*args, timeout=120):
    t = time.monotonic()
    p = subprocess.run(list(args), capture_output=True, timeout=timeout)
    return p, time.monotonic() - t


# ---- --dot: the strings stay inside their quotes
p, _ = run(REPORT, '--dot', HOSTILE)
dot = p.stdout.decode('utf-8', 'replace')
ok(p.returncode == 0, '--dot exits 0', p.stderr)
names = dot_attributes(dot)
ok(names is not None and names <= OURS, '--dot: no attribute but ours', sorted((names or set()) - OURS))
ok(names is not None and 'stylesheet' not in names, '--dot: no graph attribute from a label value')
ok('label = "q:say \\"hi\\""' in dot, '--dot: a quoted value is escaped', dot[:2000])
ok('label = "w\\:v\\\\"' in dot, '--dot: a key and a value ending in a backslash', dot[:2000])
ok('label = "k:x\\" URL=\\"javascript:' in dot, '--dot: the URL stays in the label')
for flags in ([], ['--lines'], ['--cum', '--nodecount=2']):
    p, _ = run(REPORT, '--dot', *flags, HOSTILE)
    names = dot_attributes(p.stdout.decode('utf-8', 'replace'))
    ok(p.returncode == 0 and names is not None and names <= OURS,
       '--dot %s: no attribute but ours' % ' '.join(flags), sorted((names or set()) - OURS))

# ---- --svg: renders, no link out, the strings back as text
for flags in ([], ['--lines']):
    what = '--svg ' + ' '.join(flags)
    p, _ = run(REPORT, '--svg', *flags, HOSTILE)
    if not ok(p.returncode == 0, what + ' exits 0 (quoted values, a NUL in a name)', p.stderr):
        continue
    root = check_svg(p.stdout, what)
    if root is None:
        continue
    text = '\n'.join(''.join(t.itertext()) for t in root.iter(SVG + 'text'))
    ok('q:say "hi"' in text, what + ': say "hi" drawn as it is', text[:1000])
    ok('nul\ufffdname' in text or 'nul\ufffd' in text, what + ': the NUL drawn as U+FFFD', text[:1000])
    ok('k:x" URL="javascript:window.__pwned=1" target="_self' in text,
       what + ': the URL label drawn as text', text[:1000])
    if flags:
        ok('a"b.c:10' in text, what + ': a file name with a quote', text[:1000])

# ---- pprof-flame's Graph view embeds the same SVG
with tempfile.TemporaryDirectory() as d:
    page = os.path.join(d, 'h.html')
    p, _ = run(FLAME, HOSTILE, '-o', page)
    if ok(p.returncode == 0, 'pprof-flame on the hostile profile', p.stderr):
        html = open(page, encoding='utf-8').read()
        m = re.search(r'<div id="pprof-flame-graph" class="hidden" data-state="ok" data-svg="([^"]*)"', html)
        if ok(m is not None, 'pprof-flame: a Graph view', html[-500:]):
            check_svg(base64.b64decode(m.group(1)), 'pprof-flame Graph view')

# ---- a 1 MiB function name: the SVG's strings are cut, the layout quick
with tempfile.TemporaryDirectory() as d:
    s = Strings()
    prof = ld(1, vi(1, s('samples')) + vi(2, s('count')))
    prof += ld(2, ld(1, packed([1, 2])) + ld(2, packed([5])))
    prof += ld(2, ld(1, packed([2])) + ld(2, packed([3])))
    big = 'n' * (1 << 20)
    for i, (name, file) in enumerate([(big, 'big.go'), ('main', 'f' * (1 << 20))], 1):
        prof += ld(4, vi(1, i) + vi(3, 0x1000 * i) + ld(4, vi(1, i) + vi(2, i)))
        prof += ld(5, vi(1, i) + vi(2, s(name)) + vi(3, s(name)) + vi(4, s(file)))
    prof += s.encode()
    path = os.path.join(d, 'big.pb')
    with open(path, 'wb') as f:
        f.write(prof)
    p, secs = run(REPORT, '--svg', '--lines', path)
    ok(p.returncode == 0, '1 MiB name: --svg --lines exits 0 (%.1f s)' % secs, p.stderr)
    ok(len(p.stdout) < 100_000, '1 MiB name: --svg --lines holds the name cut (%d bytes)' % len(p.stdout))
    ok('\u2026' in p.stdout.decode('utf-8', 'replace'), '1 MiB name: the cut is marked with …')
    ok(secs < 30, '1 MiB name: --svg --lines in %.1f s' % secs)
    p, _ = run(REPORT, '--dot', path)
    ok(p.returncode == 0 and big in p.stdout.decode(), '1 MiB name: --dot keeps it whole, as Go')
    page = os.path.join(d, 'big.html')
    p, secs = run(FLAME, path, '-o', page)
    ok(p.returncode == 0, '1 MiB name: pprof-flame page (%.1f s)' % secs, p.stderr)
    ok(secs < 30, '1 MiB name: pprof-flame page in %.1f s' % secs)
    html = open(page, encoding='utf-8').read() if p.returncode == 0 else ''
    m = re.search(r'data-state="ok" data-svg="([^"]*)"', html)
    size = len(base64.b64decode(m.group(1))) if m else -1
    ok(0 < size < 100_000, '1 MiB name: the Graph view holds the name cut (%d bytes)' % size)

sys.exit(T.done())
