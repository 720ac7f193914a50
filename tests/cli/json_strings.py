#!/usr/bin/env python3
"""One JSON string policy (issue 42): every JSON output quotes a profile string alike. '"' and
'\\' get a backslash, U+0000..U+001F are \\u00XX, U+2028/U+2029 are \\u2028/\\u2029, each byte
that is not part of valid UTF-8 is \\ufffd, the rest is as it is; the outputs made for a web page
(flame, speedscope, cpuprofile) also write '<', '>' and '&' as \\u003c, \\u003e, \\u0026. A
Latin-1 name "caf\\xe9" is "caf\\ufffd" in pprof-dump --json, pprof-flame --format=json and
pprof-report --top --format=json. TAP.

usage: json_strings.py PPROF_DUMP PPROF_FLAME PPROF_REPORT PPROF_DIFF PPROF_CONVERT PPROF_CHECK
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "corpus", "tools"))
from pbwire import ld, packed, vi  # noqa: E402
from tap import Tap  # noqa: E402

T = Tap()
ok = T.ok
DUMP, FLAME, REPORT, DIFF, CONVERT, CHECK = sys.argv[1:7]

LATIN1 = b"caf\xe9"
NAMES = [
    LATIN1,
    b"caf\xc3\xa9",  # the same word in UTF-8: as it is
    b'q"b\\s',
    b"nl\nt\tc\x01e\x1f del\x7f",
    b"ls\xe2\x80\xa8ps\xe2\x80\xa9",
    # a cut sequence, an overlong form, a surrogate, past U+10FFFF: one U+FFFD per byte
    b"cut\xe2\x82 over\xc0\xaf sur\xed\xa0\x80 big\xf4\x90\x80\x80",
    b"<b>&amp;</script>",
    b"nel\xc2\x85 \xf0\x9f\x94\xa5",
]

def text(name):
    """The string a JSON reader gets back: each byte that is not valid UTF-8 is U+FFFD."""
    return re.sub("[\udc80-\udcff]", "\ufffd", name.decode("utf-8", errors="surrogateescape"))


def literal(name, html=False):
    """The JSON literal the one policy writes, as bytes."""
    out = ['"']
    for c in name.decode("utf-8", errors="surrogateescape"):  # a bad byte is one U+DCxx
        if "\udc80" <= c <= "\udcff":
            out.append("\\ufffd")
        elif c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or c in "\u2028\u2029" or (html and c in "<>&"):
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out).encode()


def profile():
    strings = [b"", b"samples", b"count", b"main"] + NAMES
    p = ld(1, vi(1, 1) + vi(2, 2))
    funcs = [(1, 3)] + [(i + 2, 4 + i) for i in range(len(NAMES))]
    for f, name in funcs:
        p += ld(5, vi(1, f) + vi(2, name) + vi(3, name))
        p += ld(4, vi(1, f) + ld(4, vi(1, f) + vi(2, 7)))
    for i, (f, _) in enumerate(funcs[1:]):
        p += ld(2, ld(1, packed([f, 1])) + ld(2, packed([i + 1])))
    for s in strings:
        p += ld(6, s)
    return p


def run(*args):
    r = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr


def strict_json(raw):
    """The document, or None when it is not UTF-8 JSON."""
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return None


def strings_in(doc):
    """Every string value and key of a JSON document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from strings_in(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings_in(v)
    elif isinstance(doc, str):
        yield doc


with tempfile.TemporaryDirectory() as tmp:
    prof = os.path.join(tmp, "names.pb")
    with open(prof, "wb") as f:
        f.write(profile())

    outputs = {  # what: (command, html)
        "pprof-dump --json": ([DUMP, "--json", prof], False),
        "pprof-report --top --format=json": ([REPORT, "--top", "--format=json", prof], False),
        "pprof-report --traces --json": ([REPORT, "--traces", "--json", prof], False),
        "pprof-diff --format=json": ([DIFF, "--format=json", "-n", "0", prof, prof], False),
        "pprof-flame --format=json": ([FLAME, "--format=json", prof], True),
        "pprof-convert --to=speedscope": ([CONVERT, prof, "--to=speedscope", "-o", "-"], True),
        "pprof-convert --to=cpuprofile": ([CONVERT, prof, "--to=cpuprofile", "-o", "-"], True),
    }
    latin1 = {}
    for what, (cmd, html) in outputs.items():
        rc, out, err = run(*cmd)
        if not ok(rc == 0, "%s of hostile names (exit %d)" % (what, rc), err):
            continue
        doc = strict_json(out)
        ok(doc is not None, "%s: UTF-8 JSON" % what, out[:300])
        missing = [n for n in NAMES if literal(n, html) not in out]
        ok(not missing, "%s: every name as the one policy quotes it" % what,
           "\n".join("%r not found as %r" % (n, literal(n, html)) for n in missing))
        got = set(strings_in(doc)) if doc is not None else set()
        ok(all(text(n) in got for n in NAMES), "%s: a JSON reader gets every name back" % what)
        # the literal of the Latin-1 name: the one that starts "caf and is not "café"
        found = set(re.findall(rb'"caf[^"]*"', out)) - {literal(b"caf\xc3\xa9")}
        latin1[what] = b" ".join(sorted(found))

    # the done-when of issue 42: one identical string from the three tools
    three = ["pprof-dump --json", "pprof-flame --format=json", "pprof-report --top --format=json"]
    got = [latin1.get(w) for w in three]
    ok(all(g == b'"caf\\ufffd"' for g in got),
       'Latin-1 caf\\xe9 is "caf\\ufffd" in dump, flame and report JSON',
       "; ".join("%s: %r" % (w, g) for w, g in zip(three, got)))

    # the flame page: the data block holds the strings in the HTML form, so no '<' ends it
    rc, page, err = run(FLAME, "--format=html", "--no-graph", prof)
    m = re.search(rb'<script type="application/json" id="pprof-flame-data">(.*?)</script>',
                  page, re.S)
    ok(rc == 0 and m is not None, "pprof-flame html has its data block", err)
    if m:
        block = m.group(1)
        ok(b"<" not in block and b">" not in block and b"&" not in block,
           "the data block holds no '<', '>' or '&'")
        missing = [n for n in NAMES if literal(n, True) not in block]
        ok(not missing, "the data block quotes every name by the policy", repr(missing))

    # pprof-check's findings name the file: a path that is not UTF-8 or holds U+2028
    for raw in (b"caf\xe9.pb", b"sur\xed\xa0\x80.pb", b"ls\xe2\x80\xa8.pb"):
        path = os.path.join(tmp.encode(), raw)
        with open(path, "wb") as f:
            f.write(b"\xff\xff")  # unreadable: the finding names the file
        rc, out, err = run(CHECK, "--format=json", path)
        ok(strict_json(out) is not None and literal(raw)[1:] in out,
           "pprof-check --format=json: the path %r as the one policy quotes it" % raw, out[:300])
        rc, out, err = run(CHECK, "--format=sarif", path)  # the path is a %-encoded URI there
        ok(strict_json(out) is not None, "pprof-check --format=sarif: UTF-8 JSON", out[:300])

sys.exit(T.done())
