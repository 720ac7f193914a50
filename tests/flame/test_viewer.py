#!/usr/bin/env python3
"""Browser tests of the pprof-flame HTML viewer (libpprof/flame/), in headless Chromium.

  test_viewer.py CASE      runs one case, prints TAP; skips (1..0 # SKIP, exit 0) without chromium

Pages are built by make_page.py from a real profile (through pprof-convert --to=folded) or from
documents made here. Every expected figure is worked out here from the page's JSON, apart from
the viewer's code, and the top table is also held against pprof-top --format=json."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import browser  # noqa: E402
import make_page  # noqa: E402

ROOT = os.environ.get('PPROF_SOURCE_ROOT') or os.path.normpath(os.path.join(HERE, '..', '..'))
BUILD = os.environ.get('PPROF_BUILD_ROOT') or os.path.join(ROOT, 'build')
CORPUS = os.environ.get('PPROF_REAL_CORPUS') or os.path.join(ROOT, 'corpus', 'real')
TOOLS = os.path.join(BUILD, 'tools')
FIB = os.path.join(CORPUS, 'parca', 'query-fib.pb.gz')
TEMPLATE_ELEMENTS = ['META', 'META', 'META', 'META', 'LINK', 'STYLE', 'SCRIPT', 'SCRIPT']


# ---- figures worked out from the document, independently of viewer.js
def children(doc):
    par = doc['nodes']['parent']
    kids = [[] for _ in par]
    for i, p in enumerate(par):
        if p >= 0:
            kids[p].append(i)
    return kids


def depth_of(doc, i):
    par = doc['nodes']['parent']
    d = 0
    while par[i] >= 0:
        i = par[i]
        d += 1
    return d


def path_of(doc, i):
    par = doc['nodes']['parent']
    out = []
    while i >= 0:
        out.append(i)
        i = par[i]
    return out[::-1]


def offsets(doc, t):
    """x offset and width of every node in value units (widths |value|, siblings in order)"""
    v = doc['nodes']['value'][t]
    kids = children(doc)
    x = [0.0] * len(v)
    w = [abs(a) for a in v]
    w[0] = max(w[0], sum(w[c] for c in kids[0]))
    for i in range(len(v)):
        cur = x[i]
        for c in kids[i]:
            x[c] = cur
            cur += w[c]
    return x, w


def label_of(doc, i):
    return doc['names'][doc['nodes']['name'][i]]


def matched_pct(doc, t, rx):
    """flamegraph.pl's Matched: matched frames with no matched ancestor, over the total"""
    r = re.compile(rx)
    par = doc['nodes']['parent']
    v = doc['nodes']['value'][t]
    total = doc['total'][t]
    s = 0
    for i in range(1, len(par)):
        if not r.search(label_of(doc, i)):
            continue
        a = par[i]
        while a > 0 and not r.search(label_of(doc, a)):
            a = par[a]
        if a <= 0:
            s += v[i]
    return '%.2f' % (100.0 * s / total)


def flat_cum(doc, t, key='value', selfkey='self', src=None):
    """per name: flat = sum of self; cum = sum of value over nodes with no same-named ancestor"""
    src = src or doc['nodes']
    par = doc['nodes']['parent']
    flat, cum = {}, {}
    for i in range(1, len(par)):
        n = label_of(doc, i)
        flat[n] = flat.get(n, 0) + src[selfkey][t][i]
        a, rec = par[i], False
        while a > 0:
            if label_of(doc, a) == n:
                rec = True
                break
            a = par[a]
        if not rec:
            cum[n] = cum.get(n, 0) + src[key][t][i]
    return {n: (flat[n], cum[n]) for n in flat if flat[n] or cum[n]}


def go_label(v, unit):
    """Go's measurement.Label (ScaledLabel to "auto"), for the units the tests use"""
    if v < 0:
        return '-' + go_label(-v, unit)
    u = unit.lower()
    if len(u) > 2 and u.endswith('s'):
        u = u[:-1]
    tables = {
        'ns': [('ns', 1), ('us', 1e3), ('ms', 1e6), ('s', 1e9), ('hrs', 3600e9)],
        'b': [('B', 1), ('kB', 1024), ('MB', 1024 ** 2), ('GB', 1024 ** 3), ('TB', 1024 ** 4), ('PB', 1024 ** 5)],
    }
    alias = {'nanosecond': ('ns', 1), 'ns': ('ns', 1), 'ms': ('ns', 1e6), 'second': ('ns', 1e9),
             's': ('ns', 1e9), 'byte': ('b', 1), 'b': ('b', 1)}
    if u in alias:
        tab, f0 = alias[u]
        base = v * f0
        best = None
        for name, f in tables[tab]:
            if base / f >= 1:
                best = (name, f)
        if best is None:
            best = ('s', 1e9) if tab == 'ns' else ('B', 1)
        s = '%.2f' % (base / best[1])
        unit_s = best[0]
    else:
        s = '%.2f' % v
        unit_s = ''
    if s.endswith('.00'):
        s = s[:-3]
    return '0' if s in ('0', '-0') else s + unit_s


# ---- pages
def tmpdir():
    d = tempfile.mkdtemp(prefix='flame-test-')
    return d


FLAME_TOOL = os.path.join(TOOLS, 'pprof-flame')
DATA_RE = re.compile(rb'<script type="application/json" id="pprof-flame-data">(.*?)</script>', re.S)


def has_flame_tool():
    return os.access(FLAME_TOOL, os.X_OK)


def doc_of_page(page):
    """the JSON document a page carries (its one data block)"""
    with open(page, 'rb') as f:
        blocks = DATA_RE.findall(f.read())
    assert len(blocks) == 1, '%d data blocks' % len(blocks)
    return json.loads(blocks[0].decode('utf-8'))


def page_from_profile(path, d, *args):
    """the page of a profile: written by pprof-flame when the build has it, else by make_page.py
    from pprof-convert's folded stacks (the same tree)"""
    out = os.path.join(d, 'page.html')
    if has_flame_tool():
        subprocess.run([FLAME_TOOL, path, '-o', out] + list(args), check=True, capture_output=True)
        return out, doc_of_page(out)
    doc = make_page.tree_from_profile(path, os.path.join(TOOLS, 'pprof-convert'))
    make_page.write(out, make_page.build_html(doc))
    return out, doc


def page_from_doc(doc, d, name='page.html'):
    out = os.path.join(d, name)
    make_page.write(out, make_page.build_html(doc))
    return out


def fib_page(d):
    if not os.path.exists(FIB):
        raise Skip('the real corpus (%s) is absent' % FIB)
    return page_from_profile(FIB, d)


class Skip(Exception):
    pass


def check_clean(b, url):
    """no console message, no request but the page itself, no CSP violation, no dialog, and the
    only elements ever added are the template's"""
    # the tests' own getImageData reads draw Chromium's willReadFrequently hint: not the page's
    msgs = [m for m in b.console() if m[0] in ('SEVERE', 'WARNING') and 'willReadFrequently' not in m[1]]
    assert not msgs, 'console: %r' % msgs
    page = url.split('#')[0]
    reqs = [u for u in b.requests() if not u.startswith('chrome://') and u.split('#')[0] != page
            and not u.startswith('data:image/gif;base64,R0lGOD')]
    assert not reqs, 'requests: %r' % reqs
    res = b.js("return performance.getEntriesByType('resource').map(e => e.name)")
    assert res == [], 'resource timing entries: %r' % res
    rec = b.rec()
    assert rec['csp'] == [], 'CSP violations: %r' % rec['csp']
    assert rec['dialogs'] == [], 'dialogs: %r' % rec['dialogs']
    assert rec['added'] == TEMPLATE_ELEMENTS, 'elements added: %r' % rec['added']


def open_page(b, page, frag=''):
    state = b.open(page, frag)
    assert state == 'ready', 'page state %r, message %r' % (state, b.js("return document.getElementById('message').textContent"))


def canvas_rect(b, box='graph-main'):
    # document coordinates (pointer() scrolls to them)
    return b.js("const r = document.querySelector('#%s canvas.overlay').getBoundingClientRect();"
                "return [r.left + scrollX, r.top + scrollY, r.width, r.height, Number(document.querySelector('#%s canvas.frames').dataset.row)];"
                % (box, box))


def frame_point(b, doc, t, i, inverted, box='graph-main', zoom=0):
    """document point at the middle of node i's frame (zoomed to zoom)"""
    left, top, width, height, row = canvas_rect(b, box)
    x, w = offsets(doc, t)
    k = width / w[zoom]
    px = left + (x[i] - x[zoom] + w[i] / 2) * k
    d = depth_of(doc, i)
    py = top + d * row + row / 2 if inverted else top + height - (d + 1) * row + row / 2
    return px, py


def pointer(b, x, y, click=False):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    ac = ActionChains(b.d)
    vw, vh, sx, sy = b.js('return [innerWidth, innerHeight, scrollX, scrollY]')
    if not (0 <= y - sy < vh - 1):  # scroll the point into the viewport first
        b.js('window.scrollTo(0, arguments[0])', max(0, y - vh / 2))
        sx, sy = b.js('return [scrollX, scrollY]')
    x, y = x - sx, y - sy
    ab = ActionBuilder(b.d)
    assert 0 <= x < vw and 0 <= y < vh, 'point %r outside the viewport %r' % ((x, y), (vw, vh))
    ab.pointer_action.move_to_location(int(round(x)), int(round(y)))
    if click:
        ab.pointer_action.click()
    ab.perform()
    del ac


def text(b, sel):
    return b.js('const e = document.querySelector(arguments[0]); return e ? e.textContent : null;', sel)


def hash_params(b):
    h = b.js('return location.hash').lstrip('#')
    from urllib.parse import parse_qs
    return {k: v[0] for k, v in parse_qs(h, keep_blank_values=True).items()}


def key(b, k, target=None):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(b.d).send_keys(k).perform()


# ---- cases
def case_load(b, d):
    """the page loads from file:// cleanly and draws the profile"""
    page, doc = fib_page(d)
    open_page(b, page)
    url = 'file://' + os.path.abspath(page)
    t = doc['default']
    assert text(b, '#total') == 'Total: %s %s' % (go_label(doc['total'][t], doc['types'][t]['unit']),
                                                   doc['types'][t]['type']), text(b, '#total')
    # the first drawn frame is marked for the benchmark
    assert b.js("return performance.getEntriesByName('pprof-flame-first-draw').length") == 1
    check_clean(b, url)


def case_zoom(b, d):
    """a click on a frame zooms to it: breadcrumb, URL, and the frame spans the width"""
    page, doc = fib_page(d)
    open_page(b, page, 'view=icicle')
    t = doc['default']
    kids = children(doc)
    v = doc['nodes']['value'][t]
    # the widest node at depth 3 that has children
    cand = [i for i in range(len(v)) if depth_of(doc, i) == 3 and kids[i]]
    target = max(cand, key=lambda i: v[i])
    px, py = frame_point(b, doc, t, target, True)
    pointer(b, px, py)
    tip = text(b, '#tip .tip-name')
    assert tip == label_of(doc, target), 'tooltip %r, expected %r' % (tip, label_of(doc, target))
    pct = 100.0 * v[target] / doc['total'][t]
    assert ('%.2f%% of total' % pct) in text(b, '#tip'), text(b, '#tip')
    pointer(b, px, py, click=True)
    assert hash_params(b).get('zoom') == str(target), hash_params(b)
    crumbs = b.js("return [...document.querySelectorAll('#crumbs button')].map(e => e.textContent)")
    assert crumbs == ['all'] + [label_of(doc, i) for i in path_of(doc, target)[1:]], crumbs
    # zoomed: the frame's row is its own from the left edge to the right
    left, top, width, height, row = canvas_rect(b)
    for fx in (left + 2, left + width - 2):
        pointer(b, fx, top + 3 * row + row / 2)
        assert text(b, '#tip .tip-name') == label_of(doc, target), text(b, '#tip')
    # a child of the zoomed frame is at its zoomed place, with its share of the zoomed frame
    c = max(kids[target], key=lambda i: v[i])
    px, py = frame_point(b, doc, t, c, True, zoom=target)
    pointer(b, px, py)
    assert text(b, '#tip .tip-name') == label_of(doc, c)
    share = 100.0 * v[c] / v[target]
    want = '100%' if 99.95 <= share <= 100.05 else ('%.2f%%' % share)
    assert (want + ' of zoomed frame') in text(b, '#tip'), text(b, '#tip')
    # Esc resets the zoom
    key(b, '\ue00c')
    assert 'zoom' not in hash_params(b), hash_params(b)
    assert len(b.js("return [...document.querySelectorAll('#crumbs button')]")) == 1
    # the breadcrumb goes back too
    px, py = frame_point(b, doc, t, c, True)
    pointer(b, px, py, click=True)
    assert hash_params(b).get('zoom') == str(c)
    b.js("document.querySelectorAll('#crumbs button')[1].click()")
    assert hash_params(b).get('zoom') == str(path_of(doc, c)[1])
    check_clean(b, 'file://' + os.path.abspath(page))


def case_search(b, d):
    """a regexp search highlights and shows Matched: P% with nested matches counted once"""
    page, doc = fib_page(d)
    open_page(b, page)
    t = doc['default']
    key(b, '/')
    assert b.js('return document.activeElement.id') == 'search'
    for rx in ('big', r'nat\.(add|mul)', 'Fib|addVV', '^runtime\\.'):
        b.js("const s = document.getElementById('search'); s.value = ''; s.focus()")
        key(b, rx + '\n')
        want = 'Matched: %s%%' % matched_pct(doc, t, rx)
        assert text(b, '#matched') == want, '%s: %r, expected %r' % (rx, text(b, '#matched'), want)
        assert hash_params(b).get('search') == rx
    # nested matches really occur for 'big' (else the test would not tell the rule apart)
    par = doc['nodes']['parent']
    nested = any('big' in label_of(doc, i) and 'big' in label_of(doc, par[i]) for i in range(2, len(par)))
    assert nested
    # a matched frame is drawn in the match colour
    b.js("const s = document.getElementById('search'); s.value = ''; s.focus()")
    key(b, 'addVV\n')
    i = next(i for i in range(len(par)) if label_of(doc, i) == 'math/big.addVV')
    x, y = frame_point(b, doc, t, i, False)
    left, top = canvas_rect(b)[:2]
    px = b.js("const c = document.querySelector('#graph-main canvas.frames');"
              "return [...c.getContext('2d').getImageData(arguments[0], arguments[1], 1, 1).data]",
              int(x - left), int(y - top))
    assert px[:3] == [230, 0, 230], px
    key(b, '\ue00c')
    assert b.js("return document.getElementById('matched').classList.contains('hidden')")
    check_clean(b, 'file://' + os.path.abspath(page))


def case_types(b, d):
    """switching the sample type changes the totals, the drawing and the URL"""
    page, doc = fib_page(d)
    open_page(b, page)
    assert len(doc['types']) >= 2
    for t, ty in enumerate(doc['types']):
        from selenium.webdriver.support.ui import Select
        Select(b.d.find_element('id', 'type')).select_by_value(str(t))
        want = 'Total: %s %s' % (go_label(doc['total'][t], ty['unit']), ty['type'])
        assert text(b, '#total') == want, (text(b, '#total'), want)
        assert hash_params(b)['type'] == ty['type']
        b.js("document.querySelector('#views button[data-view=top]').click()")
        top = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, Number(r.dataset.flat), Number(r.dataset.cum)])")
        want_fc = flat_cum(doc, t)
        assert {r[0]: (r[1], r[2]) for r in top} == want_fc
        b.js("document.querySelector('#views button[data-view=flame]').click()")
    check_clean(b, 'file://' + os.path.abspath(page))


def pprof_top(path, t):
    r = subprocess.run([os.path.join(TOOLS, 'pprof-top'), '--format=json', '--nodefraction', '0',
                        '--sample-type', t, path], check=True, capture_output=True)
    doc = json.loads(r.stdout)
    return {n['name']: (n['flat'], n['cum']) for n in doc['nodes'] if n['flat'] or n['cum']}


def case_top(b, d):
    """the top table holds flat/cum per function (pprof-top's numbers) and sorts"""
    paths = [FIB] + [os.path.join(CORPUS, 'parca', f) for f in ('parca-alloc_objects.pb.gz', 'query-fgprof.pb.gz', 'query-profile-with-labels.pb.gz')]
    for n, path in enumerate(paths):
        if not os.path.exists(path):
            raise Skip('the real corpus (%s) is absent' % path)
        sub = os.path.join(d, str(n))
        os.mkdir(sub)
        page, doc = page_from_profile(path, sub)
        for t, ty in enumerate(doc['types']):
            open_page(b, page, 'view=top&type=' + ty['type'])
            rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, Number(r.dataset.flat), Number(r.dataset.cum)])")
            got = {r[0]: (r[1], r[2]) for r in rows}
            assert len(got) == len(rows), 'a function listed twice'
            assert got == flat_cum(doc, t), (path, ty)
            assert got == pprof_top(path, ty['type']), (path, ty, 'differs from pprof-top --format=json')
            # default order: flat descending
            flats = [r[1] for r in rows]
            assert flats == sorted(flats, reverse=True)
            # click cum: cum descending; again: ascending; name: by name
            b.js("document.querySelector('#top th[data-col=cum]').click()")
            cums = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => Number(r.dataset.cum))")
            assert cums == sorted(cums, reverse=True)
            b.js("document.querySelector('#top th[data-col=cum]').click()")
            cums = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => Number(r.dataset.cum))")
            assert cums == sorted(cums)
            b.js("document.querySelector('#top th[data-col=name]').click()")
            nm = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => r.dataset.name)")
            assert nm == sorted(nm, key=lambda s: s.encode('utf-16-be')), nm[:5]
            check_clean(b, 'file://' + os.path.abspath(page) + '#view=top&type=' + ty['type'])


def case_callers(b, d):
    """the callers/callees view merges a function from every place it appears"""
    page, doc = fib_page(d)
    t = doc['default']
    par = doc['nodes']['parent']
    v = doc['nodes']['value'][t]
    kids = children(doc)
    fn = 'math/big.nat.add'
    nodes = [i for i in range(len(par)) if label_of(doc, i) == fn]
    assert len(nodes) > 1, 'the function should appear in several places'
    open_page(b, page, 'view=top')
    b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === arguments[0]).click()", fn)
    assert hash_params(b).get('view') == 'callers' and hash_params(b).get('fn') == fn
    assert text(b, '#fn-title') == fn
    callers, callees = {}, {}
    for i in nodes:
        a = par[i]
        while a > 0 and label_of(doc, a) != fn:
            a = par[a]
        if a > 0:
            continue  # inside another occurrence: counted there
        p = par[i]
        callers[label_of(doc, p) if p > 0 else ''] = callers.get(label_of(doc, p) if p > 0 else '', 0) + v[i]
        for c in kids[i]:
            callees[label_of(doc, c)] = callees.get(label_of(doc, c), 0) + v[c]
    got = b.js("return [...document.querySelectorAll('#callers tbody tr')].map(r => [r.dataset.name, Number(r.dataset.value)])")
    assert {n: x for n, x in got} == {n: x for n, x in callers.items() if x}, got
    got = b.js("return [...document.querySelectorAll('#callees tbody tr')].filter(r => r.dataset.name).map(r => [r.dataset.name, Number(r.dataset.value)])")
    assert {n: x for n, x in got} == {n: x for n, x in callees.items() if x}, got
    # the merged graphs: the function spans the callees graph's top row
    left, top, width, height, row = canvas_rect(b, 'graph-callees')
    pointer(b, left + width / 2, top + row / 2)
    assert text(b, '#tip .tip-name') == fn
    cum = flat_cum(doc, t)[fn][1]
    assert text(b, '#tip').find(go_label(cum, doc['types'][t]['unit'])) > 0, text(b, '#tip')
    # a link to it reproduces the view
    b.js("location.hash = ''")
    open_page(b, page, 'view=callers&fn=' + fn.replace('/', '%2F'))
    assert text(b, '#fn-title') == fn
    check_clean(b, 'file://' + os.path.abspath(page) + '#view=callers&fn=' + fn.replace('/', '%2F'))


def case_url(b, d):
    """the fragment reproduces the view: type, search, zoom, orientation"""
    page, doc = fib_page(d)
    t = [i for i, ty in enumerate(doc['types']) if i != doc['default']][0]
    par = doc['nodes']['parent']
    zoom = max((i for i in range(len(par)) if depth_of(doc, i) == 2), key=lambda i: doc['nodes']['value'][t][i])
    frag = 'type=%s&search=big&zoom=%d&view=icicle' % (doc['types'][t]['type'], zoom)
    open_page(b, page, frag)
    assert b.js("return document.getElementById('type').value") == str(t)
    assert b.js("return document.getElementById('search').value") == 'big'
    assert text(b, '#matched') == 'Matched: %s%%' % matched_pct(doc, t, 'big')
    crumbs = b.js("return [...document.querySelectorAll('#crumbs button')].map(e => e.textContent)")
    assert crumbs[-1] == label_of(doc, zoom), crumbs
    assert b.js("return document.querySelector('#views button.on').dataset.view") == 'icicle'
    # icicle: the zoomed frame is on row 2 from the top, the full width
    left, top, width, height, row = canvas_rect(b)
    pointer(b, left + width / 2, top + 2 * row + row / 2)
    assert text(b, '#tip .tip-name') == label_of(doc, zoom)
    check_clean(b, 'file://' + os.path.abspath(page) + '#' + frag)


HOSTILE = [
    '<script>alert(1)</script>',
    '</script><img src=x onerror=alert(2)><script>alert(3)</script>',
    '<img src=x onerror=alert(4)>',
    'javascript:alert(5)',
    'line\u2028sep\u2029para',
    ']]>--><!--<svg onload=alert(6)>',
    'ctl\u0000\u0001\u001f\u007f\u0085end',
    '&amp;&lt;"\'`${alert(7)}',
    '</style><style>*{display:none}</style>',
    '\ud800lone surrogate',
    'x' * 100000 + '<script>alert(8)</script>',
]


def hostile_doc():
    stacks = [(['main', HOSTILE[0], n], 10 + k) for k, n in enumerate(HOSTILE)]
    stacks.append((['main', HOSTILE[2]], 5))
    doc = make_page.tree_from_stacks([{'type': 'cpu', 'unit': 'nanoseconds'}], [stacks],
                                     title='</title><script>alert(9)</script>', source='<b>x</b>.pb.gz')
    doc['files'] = ['<script>alert(10)</script>'] * len(doc['names'])
    return doc


def shown(n):
    """a name as the browser holds it: the writer turns a lone surrogate into U+FFFD"""
    return n.replace('\ud800', '\ufffd')


def case_hostile(b, d):
    """names carrying script and markup run none of it and stay text"""
    doc = hostile_doc()
    page = page_from_doc(doc, d)
    open_page(b, page)
    url = 'file://' + os.path.abspath(page)
    assert b.js('return document.title') == '</title><script>alert(9)</script>'
    names = b.js("return JSON.parse(document.getElementById('pprof-flame-data').textContent).names")
    assert names == [shown(n) for n in doc['names']]
    # hover every drawn frame of the top two rows; the tooltip shows the name as text
    t = 0
    par = doc['nodes']['parent']
    x, w = offsets(doc, t)
    for i in range(1, len(par)):
        px, py = frame_point(b, doc, t, i, False)
        pointer(b, px, py)
        assert text(b, '#tip .tip-name') == shown(label_of(doc, i)), (i, text(b, '#tip .tip-name')[:80])
        assert text(b, '#tip .tip-file') == '<script>alert(10)</script>'
        px, py = frame_point(b, doc, t, i, False)
        pointer(b, px, py, click=True)
        crumbs = b.js("return [...document.querySelectorAll('#crumbs button')].map(e => e.textContent)")
        assert crumbs[-1] == shown(label_of(doc, i))
        key(b, '\ue00c')
    # search by a hostile regexp, then every view
    b.js("const s = document.getElementById('search'); s.value = ''; s.focus()")
    key(b, '<script>\n')
    assert text(b, '#matched') == 'Matched: %s%%' % matched_pct(doc, t, '<script>')
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, r.querySelector('td.name').textContent])")
    assert sorted(r[0] for r in rows) == sorted(shown(n) for n in flat_cum(doc, t))
    assert all(a == c for a, c in rows)
    for n in HOSTILE:
        b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === arguments[0]).click()", shown(n))
        assert text(b, '#fn-title') == shown(n)
        b.js("document.querySelector('#views button[data-view=top]').click()")
    # the fragment carries a hostile name and search back in
    b.js("location.hash = arguments[0]", '#view=callers&search=%3Cimg&fn=' +
         __import__('urllib.parse').parse.quote(HOSTILE[1], safe=''))
    assert text(b, '#fn-title') == HOSTILE[1]
    check_clean(b, url)
    # no element with a name's markup exists anywhere
    assert b.js("return document.querySelectorAll('img, iframe, svg, object, embed').length") == 0
    assert b.js("return document.scripts.length") == 2


def case_hostile_tool(b, d):
    """the same hostile names through pprof-flame (folded input): the page runs none of them"""
    if not has_flame_tool():
        raise Skip('pprof-flame is not built yet (tools/pprof-flame.c)')
    # folded input refuses control bytes (binary data): those names are tested through JSON above
    names = [n for n in HOSTILE if '\ud800' not in n and ';' not in n and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in n)]
    # folded input refuses invalid UTF-8 (pprof-convert(1)): such names come through JSON above
    folded = os.path.join(d, 'hostile.folded')
    with open(folded, 'wb') as f:
        for k, n in enumerate(names):
            # folded text: ';' separates frames and a newline ends the line, so neither is in a name
            f.write(('main;%s;%s %d\n' % (HOSTILE[0], n, 10 + k)).encode('utf-8', 'surrogateescape'))
    page = os.path.join(d, 'page.html')
    subprocess.run([FLAME_TOOL, '--from=folded', folded, '-o', page, '--title', '</title><script>alert(9)</script>'],
                   check=True, capture_output=True)
    open_page(b, page)
    assert b.js('return document.title') == '</title><script>alert(9)</script>'
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => r.querySelector('td.name').textContent)")
    want = set(n.replace('\udcff', '\ufffd') for n in names) | {'main'}
    assert set(rows) == want, sorted(set(rows) ^ want)
    for n in names[:4]:
        b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === arguments[0]).click()", n)
        assert text(b, '#fn-title') == n
        b.js("document.querySelector('#views button[data-view=top]').click()")
    check_clean(b, 'file://' + os.path.abspath(page))
    assert b.js("return document.querySelectorAll('img, iframe, svg, object, embed').length") == 0
    assert b.js("return document.scripts.length") == 2


def case_minwidth(b, d):
    """frames narrower than minwidth are not drawn (no hover) but stay counted"""
    stacks = [(['main', 'wide'], 900), (['main', 'narrow'], 60), (['main', 'tiny', 'leaf'], 40)]
    doc = make_page.tree_from_stacks([{'type': 'cpu', 'unit': 'nanoseconds'}], [stacks])
    doc['minwidth'] = '10%'
    page = page_from_doc(doc, d)
    open_page(b, page)
    par = doc['nodes']['parent']
    ix = {label_of(doc, i): i for i in range(len(par))}
    # root, main, wide are >= 10% of the width: drawn; narrow (6%), tiny and leaf (4%) are not
    assert b.js("return document.querySelector('#graph-main canvas.frames').dataset.drawn") == '3'
    for n in ('narrow', 'tiny', 'leaf'):
        x, y = frame_point(b, doc, 0, ix[n], False)
        pointer(b, x, y)
        assert b.js("return document.getElementById('tip').classList.contains('hidden')"), n
    x, y = frame_point(b, doc, 0, ix['main'], False)
    pointer(b, x, y)
    assert 'Value: 1us  (100% of total)' in text(b, '#tip'), text(b, '#tip')
    b.js("const s = document.getElementById('search'); s.value = ''; s.focus()")
    key(b, 'leaf|narrow\n')
    assert text(b, '#matched') == 'Matched: 10.00%', text(b, '#matched')
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, Number(r.dataset.cum)])")
    assert dict(rows) == {'main': 1000, 'wide': 900, 'narrow': 60, 'tiny': 40, 'leaf': 40}, rows
    check_clean(b, 'file://' + os.path.abspath(page))


def case_empty(b, d):
    """a profile with no samples says so"""
    doc = make_page.tree_from_stacks([{'type': 'alloc_space', 'unit': 'bytes'}], [[]])
    page = page_from_doc(doc, d)
    open_page(b, page)
    assert text(b, '#message') == 'This profile has no samples.'
    assert b.js("return document.getElementById('message').classList.contains('hidden')") is False
    check_clean(b, 'file://' + os.path.abspath(page))


def case_broken(b, d):
    """data that is not a pprof-flame/1 document gets a message, not an exception"""
    doc = make_page.tree_from_stacks([{'type': 'cpu', 'unit': 'nanoseconds'}], [[(['a', 'b'], 3)]])
    doc['nodes']['parent'] = [-1, 0, 5]
    page = page_from_doc(doc, d)
    state = b.open(page)
    assert state == 'error', state
    assert 'not in preorder' in text(b, '#message'), text(b, '#message')
    check_clean(b, 'file://' + os.path.abspath(page))


def diff_doc():
    types = [{'type': 'cpu', 'unit': 'nanoseconds'}]
    cur = [(['main', 'grow'], 300), (['main', 'same'], 100), (['main', 'shrink'], 50)]
    base = [(['main', 'grow'], 100), (['main', 'same'], 100), (['main', 'shrink'], 200), (['main', 'gone', 'deep'], 70)]
    both = make_page.tree_from_stacks(types, [cur + [(f, 0) for f, _ in base]])
    bdoc = make_page.tree_from_stacks(types, [base + [(f, 0) for f, _ in cur]])
    assert both['names'] == bdoc['names'] and both['nodes']['parent'] == bdoc['nodes']['parent']
    both['base'] = {'source': 'base.pb.gz', 'normalized': False,
                    'value': bdoc['nodes']['value'], 'self': bdoc['nodes']['self']}
    both['title'] = 'Differential Flame Graph'
    return both


def case_diff(b, d):
    """--base: red grew, blue shrank; tooltips show both values; BASE-only frames reachable"""
    doc = diff_doc()
    page = page_from_doc(doc, d)
    open_page(b, page)
    par = doc['nodes']['parent']
    ix = {label_of(doc, i): i for i in range(len(par))}

    def colour(i):
        x, y = frame_point(b, doc, 0, i, False)
        left, top = canvas_rect(b)[:2]
        return b.js("const c = document.querySelector('#graph-main canvas.frames');"
                    "return [...c.getContext('2d').getImageData(arguments[0], arguments[1], 1, 1).data]",
                    int(x - left), int(y - top))[:3]
    g, s, k = colour(ix['grow']), colour(ix['shrink']), colour(ix['same'])
    assert g[0] == 255 and g[1] < 255 and g[2] < 255, g
    assert s[2] == 255 and s[0] < 255 and s[1] < 255, s
    assert k == [250, 250, 250], k
    # the larger change is the deeper colour: grow +200 (max), shrink -150
    assert g[1] < s[0]
    x, y = frame_point(b, doc, 0, ix['grow'], False)
    pointer(b, x, y)
    tip = text(b, '#tip')
    assert 'Base: 100ns' in tip and 'Delta: +200ns' in tip and 'Value: 300ns' in tip, tip
    # 'gone' is only in BASE: zero wide here, but in the top table and the callers view
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, Number(r.dataset.cum), Number(r.dataset.bcum)])")
    got = {r[0]: (r[1], r[2]) for r in rows}
    assert got['gone'] == (0, 70) and got['deep'] == (0, 70) and got['grow'] == (300, 100), got
    b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === 'gone').click()")
    assert text(b, '#fn-title') == 'gone'
    callers = b.js("return [...document.querySelectorAll('#callers tbody tr')].map(r => [r.dataset.name, Number(r.dataset.value), Number(r.dataset.base)])")
    assert callers == [['main', 0, 70]], callers
    left, top, width, height, row = canvas_rect(b, 'graph-callees')
    pointer(b, left + width / 2, top + row / 2)
    assert text(b, '#tip .tip-name') == 'gone' and 'Base: 70ns' in text(b, '#tip'), text(b, '#tip')
    check_clean(b, 'file://' + os.path.abspath(page))


def big_doc(n_target=200000, seed=7):
    """a synthetic tree of about n_target nodes: fan-out 2-12, depth up to 40"""
    import random
    rnd = random.Random(seed)
    fns = ['pkg%d.fn%d' % (k % 97, k) for k in range(5000)]
    stacks = []
    seen = 0
    while seen < n_target:
        depth = rnd.randint(5, 40)
        frames = ['main']
        for _ in range(depth):
            frames.append(fns[min(int(rnd.paretovariate(0.6)) - 1, len(fns) - 1)] if rnd.random() < .7 else rnd.choice(fns))
        stacks.append((frames, rnd.randint(1, 1000) * 10000000))
        seen += depth // 2 + 1
    return make_page.tree_from_stacks([{'type': 'cpu', 'unit': 'nanoseconds'}], [stacks])


def case_large(b, d):
    """~200,000 nodes: loads, hovers and zooms; narrow frames are not drawn but counted"""
    doc = big_doc()
    n = len(doc['nodes']['parent'])
    assert n >= 150000, n
    page = page_from_doc(doc, d)
    open_page(b, page)
    drawn = b.js("return document.querySelector('#graph-main canvas.frames').dataset.drawn")
    assert drawn is not None and 0 < int(drawn) < n, (drawn, n)
    t = 0
    kids = children(doc)
    v = doc['nodes']['value'][t]
    c = max(kids[1], key=lambda i: v[i])
    x, y = frame_point(b, doc, t, c, False)
    pointer(b, x, y)
    assert text(b, '#tip .tip-name') == label_of(doc, c)
    pointer(b, x, y, click=True)
    assert hash_params(b).get('zoom') == str(c)
    # counted though not drawn: Matched over every node, however narrow
    rx = 'fn4[0-9]{3}$'
    b.js("const s = document.getElementById('search'); s.value = ''; s.focus()")
    key(b, rx + '\n')
    assert text(b, '#matched') == 'Matched: %s%%' % matched_pct(doc, t, rx)
    check_clean(b, 'file://' + os.path.abspath(page))


def case_svg(b, d):
    """the SVG pprof-flame writes opens from file:// and zooms on a click"""
    if not has_flame_tool():
        raise Skip('pprof-flame is not built yet (tools/pprof-flame.c); the SVG is its output')
    if not os.path.exists(FIB):
        raise Skip('the real corpus (%s) is absent' % FIB)
    svg = os.path.join(d, 'fib.svg')
    subprocess.run([FLAME_TOOL, FIB, '-o', svg], check=True, capture_output=True)
    import xml.etree.ElementTree as ET
    ET.parse(svg)  # well-formed
    b.d.get('about:blank')
    b.d.get('file://' + svg)
    n = b.js("return document.querySelectorAll('#frames > g').length")
    assert n > 10, n
    width = float(b.js("return document.documentElement.getAttribute('width')"))
    # the widest frame that is not the root and not already the full width
    frames = b.js("""return [...document.querySelectorAll('#frames > g')].map((g, i) => {
        const r = g.querySelector('rect');
        return [i, Number(r.getAttribute('width')), g.querySelector('title').textContent]; })""")
    full = max(f[1] for f in frames)
    cand = [f for f in frames if f[1] < full * 0.9]
    i, w0, title = max(cand, key=lambda f: f[1])
    rect = b.js("const r = document.querySelectorAll('#frames > g')[arguments[0]].querySelector('rect')"
                ".getBoundingClientRect(); return [r.left + scrollX + r.width / 2, r.top + scrollY + r.height / 2]", i)
    pointer(b, rect[0], rect[1], click=True)
    w1 = b.js("return Number(document.querySelectorAll('#frames > g')[arguments[0]].querySelector('rect').getAttribute('width'))", i)
    assert w1 > w0 * 1.05 and w1 > full * 0.9, (title, w0, w1, full)
    hidden = b.js("return [...document.querySelectorAll('#frames > g')].filter(g => g.style.display === 'none').length")
    assert hidden > 0, 'zoom hid no frame'
    key(b, '\ue00c')
    w2 = b.js("return Number(document.querySelectorAll('#frames > g')[arguments[0]].querySelector('rect').getAttribute('width'))", i)
    assert abs(w2 - w0) < 0.01, (w0, w2)
    assert width > 0
    msgs = [m for m in b.console() if m[0] in ('SEVERE', 'WARNING')]
    assert not msgs, msgs
    reqs = [u for u in b.requests() if not u.startswith('chrome://') and u != 'file://' + svg
            and not u.startswith('data:image/gif;base64,R0lGOD')]
    assert not reqs, reqs
    assert b.rec()['dialogs'] == []


def case_graph(b, d):
    """the Graph view shows every node of pprof-report --svg, pans, zooms, opens from its tab and the URL, is absent with --no-graph and said absent without Graphviz"""
    if not has_flame_tool():
        raise Skip('pprof-flame is not built')
    prof = os.path.join(ROOT, 'tests', 'report', 'data', 'cpu-fib.pb.gz')
    svg = subprocess.run([os.path.join(TOOLS, 'pprof-report'), '--svg', prof], capture_output=True)
    if svg.returncode != 0:
        raise Skip('pprof-report --svg fails (a build without Graphviz?): %s' % svg.stderr[:200])
    import xml.etree.ElementTree as ET
    ns = '{http://www.w3.org/2000/svg}'
    want = sorted(g.find(ns + 'title').text for g in ET.fromstring(svg.stdout).iter(ns + 'g')
                  if g.get('class') == 'node')
    assert len(want) > 10, want
    page = os.path.join(d, 'graph.html')
    subprocess.run([FLAME_TOOL, prof, '-o', page], check=True, capture_output=True)
    url = 'file://' + os.path.abspath(page)
    open_page(b, page)
    btn = '#views button[data-view="graph"]'
    assert b.js("return getComputedStyle(document.querySelector(arguments[0])).display", btn) != 'none'
    assert b.js("return document.querySelector('#graph-pane svg')") is None, 'graph parsed before shown'
    r = b.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
             "return [r.left + scrollX + r.width / 2, r.top + scrollY + r.height / 2]", btn)
    pointer(b, r[0], r[1], click=True)
    assert not b.js("return document.getElementById('graph-pane').classList.contains('hidden')")
    assert b.js("return document.getElementById('flame-pane').classList.contains('hidden')")
    got = sorted(b.js("return [...document.querySelectorAll('#graph-pane svg g.node')]"
                      ".map(g => g.querySelector('title').textContent)"))
    assert got == want, (len(got), len(want))
    assert b.js("return document.querySelectorAll('#graph-pane script').length") == 0
    assert b.js("return document.querySelectorAll('#graph-pane svg g.edge').length") > 0
    # the graph is drawn in the pane: its nodes have a size, and the fitted graph is inside it
    pane = b.js("const r = document.getElementById('graph-pane').getBoundingClientRect(); return [r.width, r.height]")
    assert pane[0] > 500 and pane[1] >= 300, pane
    box = b.js("const r = document.getElementById('viewport').getBoundingClientRect(),"
               " p = document.getElementById('graph-pane').getBoundingClientRect();"
               "return [r.left - p.left, r.top - p.top, r.width, r.height]")
    assert box[2] > 100 and box[3] > 100 and box[0] >= -1 and box[1] >= -1, box
    assert box[0] + box[2] <= pane[0] + 1 and box[1] + box[3] <= pane[1] + 1, (box, pane)
    assert hash_params(b).get('view') == 'graph'
    # the wheel zooms about the pointer, a drag pans
    t0 = b.js("return document.getElementById('viewport').getAttribute('transform')")
    b.js("const p = document.getElementById('graph-pane'), r = p.getBoundingClientRect();"
         "p.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: r.left + r.width / 2,"
         " clientY: r.top + r.height / 2, bubbles: true, cancelable: true}))")
    w1 = b.js("return document.getElementById('viewport').getBoundingClientRect().width")
    assert w1 > box[2] * 1.5, (box[2], w1)
    x1 = b.js("return document.getElementById('viewport').getBoundingClientRect().left")
    b.js("const p = document.getElementById('graph-pane');"
         "p.dispatchEvent(new MouseEvent('mousedown', {button: 0, clientX: 300, clientY: 300, bubbles: true}));"
         "window.dispatchEvent(new MouseEvent('mousemove', {clientX: 380, clientY: 320}));"
         "window.dispatchEvent(new MouseEvent('mouseup', {clientX: 380, clientY: 320}))")
    x2 = b.js("return document.getElementById('viewport').getBoundingClientRect().left")
    assert abs(x2 - x1 - 80) < 1, (x1, x2)
    assert t0 != b.js("return document.getElementById('viewport').getAttribute('transform')")
    msgs = [m for m in b.console() if m[0] in ('SEVERE', 'WARNING') and 'willReadFrequently' not in m[1]]
    assert not msgs, 'console: %r' % msgs
    rec = b.rec()
    assert rec['csp'] == [] and rec['dialogs'] == [], rec
    assert rec['added'] == TEMPLATE_ELEMENTS + ['svg'], rec['added']  # the graph, once
    reqs = [u for u in b.requests() if not u.startswith('chrome://') and u.split('#')[0] != url
            and not u.startswith('data:image/gif;base64,R0lGOD')]
    assert not reqs, reqs
    # straight from the URL
    open_page(b, page, 'view=graph')
    assert b.js("return document.querySelectorAll('#graph-pane svg g.node').length") == len(want)
    # --no-graph: no tab, no note
    plain = os.path.join(d, 'plain.html')
    subprocess.run([FLAME_TOOL, prof, '--no-graph', '-o', plain], check=True, capture_output=True)
    with open(plain, 'rb') as f:
        assert b'<div id="pprof-flame-graph"' not in f.read()
    open_page(b, plain, 'view=graph')
    assert b.js("return getComputedStyle(document.querySelector(arguments[0])).display", btn) == 'none'
    assert hash_params(b).get('view') == 'flame'
    # the element a libpprof without Graphviz writes (flame-write.c): no tab, the page says why
    note = 'No Graph view: this libpprof was built without Graphviz (libgvc), which draws the call graph.'
    absent = os.path.join(d, 'absent.html')
    with open(absent, 'wb') as f:
        f.write(make_page.build_html(doc_of_page(page), graph='<div id="pprof-flame-graph" class="hidden" '
                                     'data-state="absent">' + note + '</div>'))
    b.requests()  # forget the pages opened above
    open_page(b, absent)
    assert b.js("return getComputedStyle(document.querySelector(arguments[0])).display", btn) == 'none'
    assert text(b, '#graph-note') == note
    assert b.js("return document.getElementById('graph-note').getBoundingClientRect().width") > 0
    check_clean(b, 'file://' + os.path.abspath(absent))


def case_graph_hostile(b, d):
    """the Graph view keeps no link or reference out of the page: the hostile labels of pprof-report's strings test are text, and links put in the SVG by hand are removed before it is shown"""
    if not has_flame_tool():
        raise Skip('pprof-flame is not built')
    import base64
    prof = os.path.join(ROOT, 'tests', 'report', 'data', 'hostile-labels.pb')
    page = os.path.join(d, 'hostile-graph.html')
    subprocess.run([FLAME_TOOL, prof, '-o', page], check=True, capture_output=True)
    with open(page, 'rb') as f:
        if b'data-state="ok"' not in f.read():
            raise Skip('no Graph view in the page (a build without Graphviz?)')
    links = ("return [...document.querySelectorAll('#graph-pane *')].flatMap(e => [...e.attributes]"
             ".filter(a => a.localName === 'href' && !a.value.trim().startsWith('#'))"
             ".map(a => e.localName + ' ' + a.name + '=' + a.value))")
    open_page(b, page, 'view=graph')
    assert b.js("return document.querySelectorAll('#graph-pane svg g.node').length") > 4
    assert b.js(links) == [], b.js(links)
    text = b.js("return document.getElementById('graph-pane').textContent")
    assert 'k:x" URL="javascript:window.__pwned=1" target="_self' in text, text[:2000]
    assert 'q:say "hi"' in text, text[:2000]
    for i in range(b.js("return document.querySelectorAll('#graph-pane svg g.node').length")):
        b.js("document.querySelectorAll('#graph-pane svg g.node')[arguments[0]]"
             ".dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}))", i)
    assert b.js("return window.__pwned") is None
    rec = b.rec()
    assert rec['csp'] == [] and rec['dialogs'] == [], rec
    reqs = [u for u in b.requests() if not u.startswith('chrome://') and u.split('#')[0] != 'file://' + os.path.abspath(page)
            and not u.startswith('data:image/gif;base64,R0lGOD')]
    assert not reqs, reqs
    # the viewer's own sanitizer, on an SVG that carries links (report-svg.c drops them too)
    svg = ('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" '
           'xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">'
           '<g id="graph0"><g class="node"><title>n</title>'
           '<a xlink:href="javascript:window.__pwned=1" target="_self"><text x="10" y="20">js</text></a>'
           '<a href=" javascript:window.__pwned=2"><text x="10" y="40">js2</text></a>'
           '<image href="http://127.0.0.1:9/i.png" width="10" height="10"/>'
           '<image xlink:href="http://127.0.0.1:9/j.png" width="10" height="10"/>'
           '<a xlink:href="#graph0"><text x="10" y="60">inside</text></a></g></g></svg>')
    crafted = os.path.join(d, 'crafted.html')
    with open(crafted, 'wb') as f:
        f.write(make_page.build_html(doc_of_page(page), graph='<div id="pprof-flame-graph" class="hidden" '
                                     'data-state="ok" data-svg="%s"></div>' % base64.b64encode(svg.encode()).decode()))
    b.requests()
    open_page(b, crafted, 'view=graph')
    assert b.js(links) == [], b.js(links)
    assert b.js("return document.querySelectorAll('#graph-pane [*|href=\"#graph0\"]').length") == 1
    for t in ('js', 'js2'):
        b.js("[...document.querySelectorAll('#graph-pane text')].find(e => e.textContent === arguments[0])"
             ".dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}))", t)
    assert b.js("return window.__pwned") is None
    rec = b.rec()
    assert rec['csp'] == [] and rec['dialogs'] == [], rec



# ---- Time: samples with times (docs/flame.md "Time")
MAKE_TIMED = os.path.join(BUILD, 'tests', 'flame', 'make_timed')


def time_entries(doc):
    """(seconds from the first sample, key) of every entry of the document's time block"""
    tm = doc['time']
    f = tm['tick'] / 1e9
    s = tm['samples']
    out, ticks = [], 0
    for i in range(0, len(s), 2):
        ticks += s[i]
        out.append((ticks * f, s[i + 1]))
    return out


def range_doc(doc, a, b):
    """the document with the values of the samples in [a, b) seconds only, summed up the tree
    as the writer sums a whole profile"""
    keys = doc['time']['keys']
    par = doc['nodes']['parent']
    nt = len(doc['types'])
    v = [[0] * len(par) for _ in range(nt)]
    sf = [[0] * len(par) for _ in range(nt)]
    for t, k in time_entries(doc):
        if a <= t < b:
            node = keys['node'][k]
            for ty in range(nt):
                v[ty][node] += keys['value'][ty][k]
                if keys['self'][k]:
                    sf[ty][node] += keys['value'][ty][k]
    for ty in range(nt):
        for i in range(len(par) - 1, 0, -1):
            v[ty][par[i]] += v[ty][i]
    out = json.loads(json.dumps(doc))
    out['nodes']['value'], out['nodes']['self'] = v, sf
    out['total'] = [v[ty][0] for ty in range(nt)]
    out.pop('top', None)
    return out


def timed_page(d, *names):
    if not has_flame_tool() or not os.access(MAKE_TIMED, os.X_OK):
        raise Skip('pprof-flame or tests/flame/make_timed is not built')
    prof = os.path.join(d, 'timed.pb.gz')
    subprocess.run([MAKE_TIMED, prof] + list(names), check=True, capture_output=True)
    return page_from_profile(prof, d)


def matched(b):
    m = text(b, '#matched')
    assert m.startswith('Matched: ') and m.endswith('%'), m
    return float(m[len('Matched: '):-1])


def drag(b, x0, y0, x1, y1):
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    sx, sy = b.js('return [scrollX, scrollY]')
    ab = ActionBuilder(b.d)
    ab.pointer_action.move_to_location(int(round(x0 - sx)), int(round(y0 - sy)))
    ab.pointer_action.pointer_down()
    ab.pointer_action.move_to_location(int(round((x0 + x1) / 2 - sx)), int(round((y0 + y1) / 2 - sy)))
    ab.pointer_action.move_to_location(int(round(x1 - sx)), int(round(y1 - sy)))
    ab.pointer_action.pointer_up()
    ab.perform()


def heat_cell(b, col, row):
    """document point in the middle of the heat map's cell (second col, 20 ms slice row)"""
    left, top, cw, ch = b.js("const r = document.getElementById('heat-over').getBoundingClientRect();"
                             "const h = document.getElementById('heat').dataset;"
                             "return [r.left + scrollX, r.top + scrollY, Number(h.cw), Number(h.ch)]")
    return left + 1 + col * cw + cw / 2, top + 1 + row * ch + ch / 2


def case_time(b, d):
    """a profile with times: the phases by search, a Time view whose heat map is drawn, hover, drag"""
    page, doc = timed_page(d)
    url = 'file://' + os.path.abspath(page)
    assert 'time' in doc and len(time_entries(doc)) == 3000, sorted(doc)
    for name in ('phase_a', 'phase_b'):
        open_page(b, page, 'search=' + name)
        m = matched(b)
        assert 30 <= m <= 70, (name, m)
        assert '%.2f' % m == matched_pct(doc, doc['default'], name)
    btn = b.js("const e = document.querySelector('#views button[data-view=time]');"
               "return e && !e.classList.contains('hidden') ? e.textContent : null")
    assert btn == 'Time', btn
    b.js("document.querySelector('#views button[data-view=time]').click()")
    assert hash_params(b)['view'] == 'time'
    assert b.js("return document.getElementById('time-pane').classList.contains('hidden')") is False
    cols, rows = b.js("const h = document.getElementById('heat').dataset; return [Number(h.cols), Number(h.rows)]")
    assert cols == 3 and rows == 50, (cols, rows)
    # the hottest cells are painted (not white): read one cell's middle pixel
    x, y = heat_cell(b, 1, 10)
    px = b.js("const c = document.getElementById('heat'); const r = c.getBoundingClientRect();"
              "const k = c.width / r.width;"
              "return [...c.getContext('2d').getImageData(Math.floor((arguments[0] - r.left - scrollX) * k),"
              " Math.floor((arguments[1] - r.top - scrollY) * k), 1, 1).data]", x, y)
    assert px[:3] != [255, 255, 255] and px[0] == 255, px
    # hover: the slice's time and value
    pointer(b, x, y)
    tip = text(b, '#tip')
    assert tip.startswith('1.2\u20131.22 s'), tip
    # twenty samples per 20 ms slice, a cpu value each of 1 ms and a little more
    want = sum(doc['time']['keys']['value'][doc['default']][k] for t, k in time_entries(doc) if 1.2 <= t < 1.22)
    assert ('cpu: ' + go_label(want, 'nanoseconds')) in tip, (tip, want)
    # drag from the first cell to the tenth of the second column: 0 to 1.2 s
    x0, y0 = heat_cell(b, 0, 0)
    x1, y1 = heat_cell(b, 1, 9)
    drag(b, x0, y0, x1, y1)
    h = hash_params(b)
    assert h.get('time') == '0-1.2' and h.get('view') == 'flame', h
    rd = range_doc(doc, 0, 1.2)
    t = doc['default']
    assert text(b, '#total') == 'Total: %s cpu' % go_label(rd['total'][t], 'nanoseconds'), text(b, '#total')
    assert text(b, '#range') == 'Time: 0\u20131.2 s', text(b, '#range')
    check_clean(b, url)


def case_time_url(b, d):
    """#time=A-B: flame, search, top table and callers of just that range"""
    page, doc = timed_page(d)
    url = 'file://' + os.path.abspath(page)
    t = doc['default']
    for frag, name in (('time=0-1.2&search=phase_b', 'phase_b'), ('time=1.8-3.5&search=phase_a', 'phase_a')):
        open_page(b, page, frag)
        m = matched(b)
        assert m <= 5, (frag, m)
        a, z = [float(x) for x in frag.split('&')[0][5:].split('-')]
        rd = range_doc(doc, a, z)
        assert '%.2f' % m == matched_pct(rd, t, name), (m, matched_pct(rd, t, name))
        other = 'phase_a' if name == 'phase_b' else 'phase_b'
        b.js("const s = document.getElementById('search'); s.value = arguments[0];"
             "s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))", other)
        assert '%.2f' % matched(b) == matched_pct(rd, t, other)
        assert matched(b) >= 80, matched(b)
        # hover the range's phase frame: its value and percent of the range
        node = next(i for i in range(len(doc['nodes']['parent'])) if label_of(doc, i) == other)
        px, py = frame_point(b, rd, t, node, False)
        pointer(b, px, py)
        assert text(b, '#tip .tip-name') == other
        assert ('%.2f%% of total' % (100.0 * rd['nodes']['value'][t][node] / rd['total'][t])) in text(b, '#tip')
        # the top table is the range's
        b.js("document.querySelector('#views button[data-view=top]').click()")
        rows = b.js("return Object.fromEntries([...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, [Number(r.dataset.flat), Number(r.dataset.cum)]]))")
        want = flat_cum(rd, t)
        assert rows == {k: [v[0], v[1]] for k, v in want.items()}, (rows, want)
        # and the callers view
        b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === 'spin').click()")
        assert text(b, '#fn-title') == 'spin'
        assert go_label(want['spin'][1], 'nanoseconds') in text(b, '#fn-note'), text(b, '#fn-note')
        assert hash_params(b).get('time') == frag.split('&')[0][5:]
    check_clean(b, url)


def case_time_diff(b, d):
    """a base range and a range: the differential colouring, Base and Delta in the tooltip"""
    page, doc = timed_page(d)
    url = 'file://' + os.path.abspath(page)
    t = doc['default']
    # chosen in the Time view: a range, made the base, then another range
    open_page(b, page, 'view=time')
    drag(b, *heat_cell(b, 0, 0), *heat_cell(b, 0, 49))
    assert hash_params(b).get('time') == '0-1'
    b.js("document.querySelector('#views button[data-view=time]').click()")
    b.js("document.getElementById('time-base').click()")
    assert hash_params(b).get('tbase') == '0-1' and 'time' not in hash_params(b), hash_params(b)
    drag(b, *heat_cell(b, 2, 0), *heat_cell(b, 2, 49))
    h = hash_params(b)
    assert h.get('time') == '2-3' and h.get('tbase') == '0-1', h
    assert text(b, '#range') == 'Time: 2\u20133 s against base 0\u20131 s', text(b, '#range')
    rd = range_doc(doc, 2, 3)
    base = range_doc(doc, 0, 1)
    # phase_b grew from nothing (phase_a, absent from the range, is not drawn: frames are sized
    # by the range)
    for name in ('phase_b',):
        node = next(i for i in range(len(doc['nodes']['parent'])) if label_of(doc, i) == name)
        px, py = frame_point(b, rd, t, node, False)
        pointer(b, px, py)
        tip = text(b, '#tip')
        f = rd['total'][t] / base['total'][t]
        bval = base['nodes']['value'][t][node] * f
        assert ('Base: ' + go_label(bval, 'nanoseconds')) in tip, tip
        assert ('Delta: +' + go_label(rd['nodes']['value'][t][node] - bval, 'nanoseconds')) in tip, tip
        c = b.js("const c = document.querySelector('#graph-main canvas.frames'); const r = c.getBoundingClientRect();"
                 "const k = c.width / r.width;"
                 "return [...c.getContext('2d').getImageData(Math.floor((arguments[0] - r.left - scrollX) * k),"
                 " Math.floor((arguments[1] - r.top - scrollY) * k), 1, 1).data]", px - 30, py - 5)
        assert c[0] == 255 and c[1] < 100 and c[2] < 100, c  # red: grew
    # the top table has base and delta columns: phase_a shrank to nothing
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return Object.fromEntries([...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, [Number(r.dataset.cum), Number(r.dataset.bcum)]]))")
    assert rows['phase_a'][0] == 0 and rows['phase_a'][1] > 0, rows
    assert rows['phase_b'][1] == 0 and rows['phase_b'][0] > 0, rows
    check_clean(b, url)


def case_time_hostile(b, d):
    """hostile names in a profile with times: the Time view, a range and its views run none of it"""
    doc = hostile_doc()
    par = doc['nodes']['parent']
    leaves = [i for i in range(1, len(par)) if i + 1 >= len(par) or par[i + 1] != i]
    nt = len(doc['types'])
    # one key per leaf (its self value), ten samples of each, 100 ms apart
    doc['time'] = {'start': '1796630400000000000', 'tick': 1000, 'slice': 0,
                   'keys': {'node': leaves, 'self': [1] * len(leaves),
                            'value': [[doc['nodes']['self'][ty][i] for i in leaves] for ty in range(nt)]},
                   'samples': []}
    for r in range(10):
        for k in range(len(leaves)):
            doc['time']['samples'] += [100000 if r and not k else 0, k]
    page = page_from_doc(doc, d)
    url = 'file://' + os.path.abspath(page)
    open_page(b, page, 'view=time')
    assert b.js("return document.getElementById('time-pane').classList.contains('hidden')") is False
    pointer(b, *heat_cell(b, 0, 0))
    assert text(b, '#tip .tip-name') == '0\u20130.02 s'
    drag(b, *heat_cell(b, 0, 0), *heat_cell(b, 0, 24))
    assert hash_params(b).get('time') == '0-0.5'
    rd = range_doc(doc, 0, 0.5)
    t = 0
    for i in range(1, len(par)):
        if rd['nodes']['value'][t][i] <= 0:
            continue
        px, py = frame_point(b, rd, t, i, False)
        pointer(b, px, py)
        assert text(b, '#tip .tip-name') == shown(label_of(doc, i)), (i, text(b, '#tip .tip-name')[:80])
    b.js("document.querySelector('#views button[data-view=top]').click()")
    rows = b.js("return [...document.querySelectorAll('#top tbody tr')].map(r => [r.dataset.name, r.querySelector('td.name').textContent])")
    assert sorted(r[0] for r in rows) == sorted(shown(n) for n in flat_cum(rd, t)), rows
    assert all(a == c for a, c in rows)
    b.js("[...document.querySelectorAll('#top tbody button')].find(e => e.textContent === arguments[0]).click()", shown(HOSTILE[1]))
    assert text(b, '#fn-title') == shown(HOSTILE[1])
    # a hostile fragment: time and tbase that are no ranges are ignored
    b.js("location.hash = arguments[0]", '#view=time&time=%3Cscript%3E&tbase=1-0')
    assert 'time' not in hash_params(b) and 'tbase' not in hash_params(b), hash_params(b)
    check_clean(b, url)
    assert b.js("return document.querySelectorAll('img, iframe, svg, object, embed').length") == 0
    assert b.js("return document.scripts.length") == 2
    # a time block that names no node: a message, the whole profile, no Time tab
    doc['time']['keys']['node'][0] = 10 ** 6
    page2 = page_from_doc(doc, d, 'broken.html')
    open_page(b, page2, 'view=time&time=0-1')
    assert text(b, '#range').startswith('The times in this page cannot be read'), text(b, '#range')
    assert b.js("return document.getElementById('range').classList.contains('hidden')") is False
    h = hash_params(b)
    assert h['view'] == 'flame' and 'time' not in h, h
    assert b.js("return document.querySelector('#views button[data-view=time]').classList.contains('hidden')")
    check_clean(b, 'file://' + os.path.abspath(page2))


CASES = {k[5:]: f for k, f in globals().items() if k.startswith('case_')}


def main(argv):
    if len(argv) != 1 or argv[0] not in CASES:
        print('usage: test_viewer.py CASE  (%s)' % ' '.join(sorted(CASES)), file=sys.stderr)
        return 2
    name = argv[0]
    browser.skip_or_none()
    d = tmpdir()
    b = None
    print('1..1')
    try:
        b = browser.Browser()
        CASES[name](b, d)
        print('ok 1 - %s: %s' % (name, CASES[name].__doc__.strip()))
        return 0
    except Skip as e:
        print('ok 1 - %s # SKIP %s' % (name, e))
        return 0
    except Exception:
        for line in traceback.format_exc().splitlines():
            print('# ' + line[:2000])
        print('not ok 1 - %s' % name)
        return 1
    finally:
        if b:
            b.close()
        import shutil
        shutil.rmtree(d, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
