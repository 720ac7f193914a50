#!/usr/bin/env python3
"""Names are data: a profile whose function and file names carry markup, script, quotes,
CDATA and comment ends, U+2028, control bytes, invalid UTF-8 and a 100 KB name goes through
pprof-flame as HTML, SVG and JSON; each output must parse (json, xml.etree, html.parser) and
give the names back as text, and no name may reach a place where it would run. TAP.

usage: names.py PPROF_FLAME
"""
import codecs
import gzip
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HOSTILE = [
    b"<script>alert(1)</script>",
    b"</script><script>alert(2)</script>",
    b"a & b &amp; <b>bold</b>",
    b"\"double\" 'single' `back`",
    b"]]><x/><![CDATA[",
    b"--><!-- comment",
    "line\u2028sep\u2029para".encode(),
    b"ctl\x01\x02\x1b[31m\x7f\ttab\nnl\rcr",
    b"bad\xff\xfe utf8 \xc3\x28 \xe2\x82 \xed\xa0\x80",
    b"</style><style>*{display:none}</style>",
    b"\xef\xbf\xbe nonchar",
    b"{{template}} ${x} \\u003c",
    b"X" * 100_000,
]

n = 0
failed = 0


def ok(cond, desc, diag=""):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, desc))
    if not cond and diag:
        for line in str(diag).splitlines()[:6]:
            print("# " + line)


# ---- a minimal protobuf encoder for the profile
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def profile():
    strings = [b"", b"samples", b"count", b"main"] + HOSTILE + [b"<file>&\".go"]
    out = bytearray()
    out += field(1, 2, field(1, 0, 1) + field(2, 0, 2))
    fid = 1
    locs = []
    # function 1: main; functions 2..: the hostile names, one location each, all called by main
    funcs = [(1, 3)] + [(i + 2, 4 + i) for i in range(len(HOSTILE))]
    for f, name in funcs:
        out += field(5, 2, field(1, 0, f) + field(2, 0, name) + field(4, 0, len(strings) - 1))
        out += field(4, 2, field(1, 0, f) + field(4, 2, field(1, 0, f) + field(2, 0, 7)))
        locs.append(f)
    for i, f in enumerate(locs[1:]):
        ids = varint(f) + varint(1)
        out += field(2, 2, field(1, 2, ids) + field(2, 2, varint(i + 1)))
    for s in strings:
        out += field(6, 2, s)
    return bytes(out)


codecs.register_error("perbyte", lambda e: ("\ufffd", e.start + 1))


def want_text(name):
    """The name as JSON carries it: each byte that is not valid UTF-8 becomes U+FFFD."""
    return name.decode("utf-8", errors="perbyte")


def svg_text(name):
    """The name as XML 1.0 can carry it: C0 controls but tab, LF, CR and U+FFFE/U+FFFF
    become U+FFFD too."""
    t = want_text(name)
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or c in "\ufffe\uffff"
                   else c for c in t)


class Scripts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = []  # (attrs, text)
        self.cur = None
        self.title = ""
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.cur = [dict(attrs), ""]
        elif tag == "title":
            self.in_title = True

    def handle_endtag(self, tag):
        if tag == "script" and self.cur is not None:
            self.scripts.append(tuple(self.cur))
            self.cur = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.cur is not None:
            self.cur[1] += data
        elif self.in_title:
            self.title += data


def main():
    flame = sys.argv[1]
    tmp = tempfile.TemporaryDirectory(prefix="flame-names.")
    work = tmp.name
    prof = os.path.join(work, "hostile.pb.gz")
    with open(prof, "wb") as f:
        f.write(gzip.compress(profile()))
    names = [want_text(h) for h in HOSTILE]
    title = "T </title><script>alert(3)</script> & \u2028"

    # ---- JSON
    r = subprocess.run([flame, prof, "--format=json", "-o", "-"], capture_output=True)
    ok(r.returncode == 0, "json: exit 0", r.stderr)
    try:
        tree = json.loads(r.stdout.decode("utf-8"))
        got = sorted(c["name"] for c in tree["children"][0]["children"])
        ok(got == sorted(names), "json: parses, every name comes back as text")
    except Exception as e:  # noqa: BLE001
        ok(False, "json: parses", e)

    # ---- SVG
    svg = os.path.join(work, "out.svg")
    r = subprocess.run([flame, prof, "-o", svg, "--title", title, "--minwidth", "0"],
                       capture_output=True)
    ok(r.returncode == 0, "svg: exit 0", r.stderr)
    try:
        root = ET.parse(svg).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        titles = [t.text for t in root.iter(ns + "title")]
        shown = set()
        for t in titles:
            m = re.match(r"^(.*) \([^()]*\)$", t, re.S)
            shown.add(m.group(1) if m else t)
        short = [svg_text(h) for h in HOSTILE if len(h) <= 4096]
        ok(all(x in shown for x in short),
           "svg: well-formed, every name is a frame's <title> text",
           [x for x in short if x not in shown][:3])
        ok(any(t.startswith("X" * 4096) for t in titles), "svg: the 100 KB name is cut, not lost")
        scripts = list(root.iter(ns + "script"))
        ok(len(scripts) == 1 and not re.search(r"alert\(\d\)|display:none", scripts[0].text),
           "svg: one script, ours, holding no name")
        ok(root.find(ns + "text").text == title.replace("\u2028", "\u2028"),
           "svg: the title is text")
    except ET.ParseError as e:
        ok(False, "svg: well-formed XML", e)

    # ---- HTML
    page = os.path.join(work, "out.html")
    r = subprocess.run([flame, prof, "-o", page, "--title", title], capture_output=True)
    ok(r.returncode == 0, "html: exit 0", r.stderr)
    text = open(page, "rb").read()
    ok(b"\xff" not in text and b"\xfe" not in text, "html: valid UTF-8 only")
    doc = text.decode("utf-8")
    p = Scripts()
    p.feed(doc)
    data = [s for a, s in p.scripts if a.get("id") == "pprof-flame-data"]
    code = [s for a, s in p.scripts if a.get("type") != "application/json"]
    ok(len(p.scripts) == 2 and len(data) == 1 and len(code) == 1,
       "html: exactly two script elements (data, viewer)", [a for a, _ in p.scripts])
    ok(all(not re.search(r"alert\(\d\)|display:none", s) for s in code), "html: no name inside the viewer's script")
    ok(p.title == title, "html: the title is text", repr(p.title))
    m = re.search(r"script-src 'sha256-([^']+)'", doc)
    import base64
    import hashlib
    ok(m and code and base64.b64encode(hashlib.sha256(code[0].encode()).digest()).decode()
       == m.group(1), "html: the CSP hash is the viewer script's")
    try:
        d = json.loads(data[0])
        ok(sorted(d["names"][2:]) == sorted(names) or sorted(d["names"][1:]) == sorted(
            names + ["main"]), "html: data parses, every name comes back as text")
        ok(d["files"][1] == '<file>&".go', "html: file names come back as text")
        ok(all(c not in data[0] for c in "<>&\u2028\u2029"),
           "html: no <, >, &, U+2028 or U+2029 left in the data block")
    except Exception as e:  # noqa: BLE001
        ok(False, "html: data parses", e)

    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
