#!/usr/bin/env python3
"""Builds a pprof-flame HTML page the way the contract (docs/flame.md) says the C writer does:
the template libpprof/flame/viewer.html with viewer.css and viewer.js inlined, the CSP meta
carrying the sha256 of each, and ONE JSON data block with '<', '>', '&', U+2028/U+2029 and
control characters escaped. The browser tests use it for pages the C writer would never make
(hostile or malformed data) and, until pprof-flame exists, for every page.

Usage:
  make_page.py json DATA.json -o OUT.html           page from a pprof-flame/1 JSON document
  make_page.py profile IN [--convert EXE] -o OUT.html [--json OUT.json]
                                                    page from a profile, through
                                                    `pprof-convert --to=folded` per sample type
"""
import argparse
import base64
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get('PPROF_SOURCE_ROOT') or os.path.normpath(os.path.join(HERE, '..', '..'))
FLAME = os.path.join(ROOT, 'libpprof', 'flame')
MARKERS = ('csp', 'style', 'script', 'title', 'graph', 'data')
MARKER = re.compile(r'<!--pprof-flame:(%s)-->' % '|'.join(MARKERS))


def _read(name):
    with open(os.path.join(FLAME, name), 'rb') as f:
        return f.read()


def sha256_b64(b):
    return base64.b64encode(hashlib.sha256(b).digest()).decode('ascii')


def escape_json(obj):
    """The JSON text of obj, safe inside <script type="application/json">."""
    text = json.dumps(obj, ensure_ascii=False, separators=(',', ':'), allow_nan=False)
    out = []
    for ch in text:
        c = ord(ch)
        if ch in '<>&' or c in (0x2028, 0x2029) or c < 0x20 or 0x7f <= c <= 0x9f:
            out.append('\\u%04x' % c)
        elif 0xd800 <= c <= 0xdfff:  # a lone surrogate is not UTF-8: U+FFFD, as the writer does
            out.append('\ufffd')
        else:
            out.append(ch)
    return ''.join(out).encode('utf-8')


def build_html(data, template=None, graph=''):
    """bytes of the page for a pprof-flame/1 document (a dict), with the markers of
    docs/flame.md ("The template") filled as libpprof/flame/embed.py and the writer fill them."""
    tpl = template if template is not None else _read('viewer.html')
    css = _read('viewer.css')
    js = _read('viewer.js')
    for name, b in (('viewer.css', css), ('viewer.js', js)):
        low = b.lower()
        if b'</style' in low or b'</script' in low:
            raise ValueError(name + ' must not contain </style or </script')
    csp = ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "script-src 'sha256-%s'; style-src 'sha256-%s'; img-src data:\">" % (sha256_b64(js), sha256_b64(css)))
    title = str(data.get('title', '')) if isinstance(data, dict) else ''
    parts = {
        'csp': csp,
        'style': '<style>' + css.decode('utf-8') + '</style>',
        'script': '<script>' + js.decode('utf-8') + '</script>',
        'title': html_escape(title),
        'graph': graph,  # the Graph view's element (docs/flame.md); '' = no Graph view
        'data': '<script type="application/json" id="pprof-flame-data">' + escape_json(data).decode('utf-8') + '</script>',
    }
    seen = []
    # one pass: text put in for one marker is never searched for another
    html = MARKER.sub(lambda m: (seen.append(m.group(1)), parts[m.group(1)])[1], tpl.decode('utf-8'))
    if sorted(seen) != sorted(MARKERS):
        raise ValueError('template markers: expected each of %s once, found %s' % (sorted(MARKERS), seen))
    return html.encode('utf-8')


def html_escape(s):
    s = ''.join('\ufffd' if 0xd800 <= ord(c) <= 0xdfff else c for c in s)
    return s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;').replace("'", '&#39;')


def tree_from_stacks(types, stacks_per_type, title='Flame Graph', source='', default=None):
    """A pprof-flame/1 document from folded stacks: stacks_per_type[t] is a list of
    (frames list, value). Nodes in preorder, children ordered by name."""
    nt = len(types)
    root = {'kids': {}, 'v': [0] * nt, 's': [0] * nt}
    for t, stacks in enumerate(stacks_per_type):
        for frames, value in stacks:
            node = root
            node['v'][t] += value
            for fr in frames:
                node = node['kids'].setdefault(fr, {'kids': {}, 'v': [0] * nt, 's': [0] * nt})
                node['v'][t] += value
            node['s'][t] += value
    names = ['root']
    name_ix = {'root': 0}
    parent, name, value, self_ = [], [], [[] for _ in range(nt)], [[] for _ in range(nt)]
    stack = [(root, -1, 'root')]
    while stack:
        node, p, nm = stack.pop()
        idx = len(parent)
        parent.append(p)
        if nm not in name_ix:
            name_ix[nm] = len(names)
            names.append(nm)
        name.append(name_ix[nm] if p >= 0 else 0)
        for t in range(nt):
            value[t].append(node['v'][t])
            self_[t].append(node['s'][t])
        for k in sorted(node['kids'], reverse=True):
            stack.append((node['kids'][k], idx, k))
    n = len(parent)
    return {
        'format': 'pprof-flame/1', 'title': title, 'source': source,
        'types': types, 'default': nt - 1 if default is None else default,
        'granularity': 'functions', 'colors': 'hot', 'hash': False,
        'inverted': False, 'reverse': False, 'minwidth': 0.1,
        'names': names, 'files': [''] * len(names),
        'nodes': {'parent': parent, 'name': name, 'inline': [0] * n, 'kind': [0] * n,
                  'value': value, 'self': self_},
        'base': None, 'total': [value[t][0] for t in range(nt)],
    }


def parse_folded(text):
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        stack, _, v = line.rpartition(' ')
        out.append((stack.split(';'), int(v)))
    return out


def sample_types(convert, path):
    """[(type, unit)] of a profile, from pprof-dump --json beside pprof-convert."""
    dump = os.path.join(os.path.dirname(convert), 'pprof-dump')
    doc = json.loads(subprocess.run([dump, '--json', path], check=True, capture_output=True).stdout)
    return [{'type': st['type'], 'unit': st['unit']} for st in doc['sample_type']]


def tree_from_profile(path, convert):
    types = sample_types(convert, path)
    stacks = []
    for t in types:
        r = subprocess.run([convert, '--to=folded', '--sample-type', t['type'], path],
                           check=True, capture_output=True)
        stacks.append(parse_folded(r.stdout.decode('utf-8', 'replace')))
    # Go's rule for the type shown first: the last one, unless the profile names a default
    default = len(types) - 1
    dump = os.path.join(os.path.dirname(convert), 'pprof-dump')
    doc = json.loads(subprocess.run([dump, '--json', path], check=True, capture_output=True).stdout)
    dst = doc.get('default_sample_type')
    for i, t in enumerate(types):
        if dst and t['type'] == dst:
            default = i
    return tree_from_stacks(types, stacks, source=os.path.basename(path), default=default)


def write(path, b):
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(b)
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['json', 'profile'])
    ap.add_argument('input')
    ap.add_argument('-o', '--output', required=True)
    ap.add_argument('--json', help='also write the document (profile mode)')
    ap.add_argument('--convert', default=os.path.join(ROOT, 'build', 'tools', 'pprof-convert'))
    a = ap.parse_args(argv)
    if a.mode == 'json':
        with open(a.input, 'rb') as f:
            data = json.loads(f.read().decode('utf-8'))
    else:
        data = tree_from_profile(a.input, a.convert)
        if a.json:
            write(a.json, json.dumps(data).encode())
    write(a.output, build_html(data))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
