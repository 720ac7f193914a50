#!/usr/bin/env python3
"""Profile strings are data in line-oriented outputs: a profile whose function, file, mapping,
build ID, label, unit, sample type and comment strings hold newlines, carriage returns, NUL,
other controls, C1 controls, U+2028, invalid UTF-8 and callgrind records goes through
pprof-report (--callgrind, --traces, --tags, --tree, --peek, --top, --list), pprof-diff,
pprof-dump and pprof-convert --to=folded. Callgrind is parsed as KCachegrind reads it: no record is added and
the costs add up to the profile's; in the text outputs each hostile string stays on one line;
the folded text reads back (--from=folded) to the same stacks of the same names. TAP.

usage: lines.py PPROF_REPORT PPROF_DUMP PPROF_CONVERT PPROF_DIFF
"""
import gzip
import os
import re
import subprocess
import sys
import tempfile

# Every hostile string is "<A>" + payload + "<Z>": a string kept on one line shows both marks
# on the same line.
PAYLOADS = [
    b"\nfn=(9) injected\n0 999999\n",
    b"\r\n",
    b"\x00nul",
    b"\x01\x1b[31mred\x7f",
    b"\ttab",
    b"\xc2\x85nel \xc2\x9bcsi",
    "\u2028ls\u2029ps".encode(),
    b"bad\xff\xfe \xc3\x28",
    b"semi;colon and space",
    b"back\\slash \\x0a \\x3b \\",
    b"\xef\xbb\xbfbom",
]


def mark(i, p):
    return b"<A%d>" % i + p + b"<Z%d>" % i


FUNCS = [b"main"] + [mark(i, p) for i, p in enumerate(PAYLOADS)]
FILES = [b"main.go"] + [b"f" + mark(i, p) + b".go" for i, p in enumerate(PAYLOADS)]
VALUES = [3 + i for i in range(len(PAYLOADS))]  # sample i: main -> FUNCS[i + 1]
TOTAL = sum(VALUES)

n = 0
failed = 0


def ok(cond, desc, diag=""):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, desc))
    if not cond and diag:
        for line in str(diag).splitlines()[:8]:
            print("# " + line)


# ---- a minimal protobuf encoder and decoder for the profile
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
    strings = [b""]

    def s(b):
        if b not in strings:
            strings.append(b)
        return strings.index(b)

    out = bytearray()
    # the sample type and unit (an unknown unit is printed after every value)
    out += field(1, 2, field(1, 0, s(mark(93, b"\nfn=(7) x"))) + field(2, 0, s(mark(92, b"\nunit"))))
    # mapping 1: its file name and build ID hostile
    out += field(3, 2, field(1, 0, 1) + field(2, 0, 0x1000) + field(3, 0, 0x100000)
                 + field(5, 0, s(b"/bin/" + mark(90, b"\nob=(5) x\n"))) + field(6, 0, s(mark(91, b"\n"))))
    for f, (name, file) in enumerate(zip(FUNCS, FILES), 1):
        out += field(5, 2, field(1, 0, f) + field(2, 0, s(name)) + field(4, 0, s(file)))
        line = field(1, 0, f) + field(2, 0, 10 + f)
        out += field(4, 2, field(1, 0, f) + field(2, 0, 1) + field(3, 0, 0x1000 + 16 * f)
                     + field(4, 2, line))
    for i, v in enumerate(VALUES):
        ids = varint(i + 2) + varint(1)
        lab = field(1, 0, s(mark(80, b"\nkey"))) + field(2, 0, s(mark(81, b"\nval\t%d" % (i % 2))))
        num = field(1, 0, s(b"bytes")) + field(3, 0, 1024 * (i + 1)) + field(4, 0, s(mark(82, b"\nunit")))
        out += field(2, 2, field(1, 2, ids) + field(2, 2, varint(v)) + field(3, 2, lab) + field(3, 2, num))
    out += field(13, 0, s(mark(83, b"\ncomment")))
    out += field(9, 0, 1_700_000_000_000_000_000) + field(10, 0, 10_000_000_000)
    for st in strings:
        out += field(6, 2, st)
    return bytes(out)


def fields(buf):
    """(number, wire type, value) of each field of a message."""
    i = 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            ln, i = read_varint(buf, i)
            v, i = buf[i:i + ln], i + ln
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def read_varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def packed(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = read_varint(v, i)
        out.append(x)
    return out


def stacks(data):
    """{(root-first function names): value} of a profile's samples."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, funcs, locs, samples = [], {}, {}, []
    for num, wt, v in fields(data):
        if num == 6:
            strings.append(v)
        elif num == 5:
            f = {k: x for k, _, x in fields(v)}
            funcs[f.get(1, 0)] = f.get(2, 0)
        elif num == 4:
            lid, fns = 0, []
            for k, _, x in fields(v):
                if k == 1:
                    lid = x
                elif k == 4:
                    fns.append({a: b for a, _, b in fields(x)}.get(1, 0))
            locs[lid] = fns
        elif num == 2:
            ids, vals = [], []
            for k, w, x in fields(v):
                if k == 1:
                    ids += packed(w, x)
                elif k == 2:
                    vals += packed(w, x)
            samples.append((ids, vals[0] if vals else 0))
    out = {}
    for ids, val in samples:
        names = tuple(strings[funcs[f]] for lid in reversed(ids) for f in reversed(locs[lid]))
        out[names] = out.get(names, 0) + val
    return out


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def one_line(text, marks):
    """Lines where a string's first mark is without its last, or the last without the first."""
    bad = []
    for line in text.split(b"\n"):
        low = line.lower()  # units are printed lowercased
        for i in marks:
            a, z = b"<a%d>" % i in low, b"<z%d>" % i in low
            if a != z:
                bad.append(line[:120])
    return bad


def controls(text):
    """Control bytes other than newline and tab (tabs: Go's own column separators)."""
    return sorted(set(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]", text)))


# ---- callgrind as KCachegrind reads it
CG_RECORD = re.compile(rb"^(positions|events|ob|fl|fi|fe|fn|cob|cfi|cfl|cfn|calls)[=:]")
CG_COST = re.compile(rb"^(0x[0-9a-f]+|[+-][0-9]+|\*) (-?[0-9]+|\*) (-?[0-9]+)$")


def callgrind(text):
    """(defined fn names, self cost, max cost, lines that are neither records nor costs)."""
    fns, self_cost, max_cost, strange = {}, 0, 0, []
    after_calls = False
    for line in text.split(b"\n"):
        if not line:
            continue
        m = CG_RECORD.match(line)
        if m:
            after_calls = m.group(1) == b"calls"
            if m.group(1) == b"fn":
                d = re.match(rb"^fn=\((\d+)\)(?: (.*))?$", line)
                if not d:
                    strange.append(line)
                elif d.group(2) is not None:
                    fns[int(d.group(1))] = d.group(2)
            continue
        c = CG_COST.match(line)
        if not c:
            strange.append(line)
            continue
        cost = int(c.group(3))
        max_cost = max(max_cost, cost)
        if not after_calls:
            self_cost += cost
        after_calls = False
    return fns, self_cost, max_cost, strange


def main():
    rep, dump, conv, diff = (os.path.abspath(a) for a in sys.argv[1:5])
    tmp = tempfile.TemporaryDirectory(prefix="report-lines.")
    work = tmp.name
    prof = os.path.join(work, "hostile.pb.gz")
    with open(prof, "wb") as f:
        f.write(gzip.compress(profile()))
    marks = list(range(len(PAYLOADS))) + [80, 81, 82, 83, 90, 91, 92, 93]

    r = run([rep, "--callgrind", prof])
    ok(r.returncode == 0, "callgrind of hostile names", r.stderr)
    fns, self_cost, max_cost, strange = callgrind(r.stdout)
    ok(not strange, "callgrind: every line is a record or a cost line", b"\n".join(strange[:5]))
    ok(len(fns) == len(FUNCS), "callgrind: %d functions defined (want %d)" % (len(fns), len(FUNCS)),
       fns)
    ok(self_cost == TOTAL and max_cost <= TOTAL,
       "callgrind: self costs sum to %d (want %d), largest %d" % (self_cost, TOTAL, max_cost))
    ok(not one_line(r.stdout, marks) and not controls(r.stdout),
       "callgrind: each name on its line, no control byte", one_line(r.stdout, marks))

    reports = [["--traces"], ["--tags"], ["--tree"], ["--peek", "main"], ["--top"],
               ["--list", "main|A"], ["--traces", "--lines"], ["--tree", "--files"]]
    for args in reports:
        r = run([rep] + args + [prof], cwd=work)
        name = " ".join(args)
        ok(r.returncode == 0, "%s of hostile names" % name, r.stderr)
        bad = one_line(r.stdout, marks)
        ok(not bad, "%s: each hostile string on one line" % name, b"\n".join(bad[:5]))
        ok(not controls(r.stdout), "%s: no control byte but newline and tab" % name,
           controls(r.stdout))
        ok(b"999999" not in r.stdout or b"\\x0a0 999999" in r.stdout,
           "%s: the injected line is no line of its own" % name)
    r = run([rep, "--traces", prof])
    ok(b"<A0>\\x0afn=(9) injected\\x0a0 999999\\x0a<Z0>" in r.stdout,
       "traces: a newline shows as \\x0a")
    ok(b"<A5>\\u0085nel \\u009bcsi<Z5>" in r.stdout and b"<A6>\\u2028ls\\u2029ps<Z6>" in r.stdout,
       "traces: C1 controls and U+2028/U+2029 show as \\uHHHH")
    ok(b"<A7>bad\xff\xfe \xc3(<Z7>" in r.stdout and b"<A4>\ttab<Z4>" in r.stdout,
       "traces: bytes that are not UTF-8 and tabs are printed as they are (as go tool pprof)")
    ok(b"<A9>back\\slash \\x0a \\x3b \\<Z9>" in r.stdout,
       "traces: a backslash is printed as it is (as go tool pprof prints it)")

    r = run([diff, prof, prof])
    ok(r.returncode == 0, "pprof-diff of hostile names", r.stderr)
    ok(not one_line(r.stdout, marks) and not controls(r.stdout),
       "pprof-diff: each string on one line, no control byte", one_line(r.stdout, marks))

    r = run([dump, prof])
    ok(r.returncode in (0, 1), "pprof-dump of hostile names", r.stderr)
    ok(not one_line(r.stdout, marks) and not controls(r.stdout),
       "pprof-dump: each string on one line, no control byte", one_line(r.stdout, marks))

    folded = os.path.join(work, "out.folded")
    back = os.path.join(work, "back.pb.gz")
    again = os.path.join(work, "again.folded")
    r = run([conv, prof, "--to=folded", "-o", folded])
    ok(r.returncode == 0, "folded: written", r.stderr)
    with open(folded, "rb") as f:
        text = f.read()
    # tab and DEL stand as themselves in folded text (the reader takes them)
    ok(not controls(text.replace(b"\x7f", b"")) and text.count(b"\n") == len(PAYLOADS),
       "folded: one line per stack, no control byte but tab and DEL", text[:300])
    r = run([conv, folded, "--from=folded", "-o", back])
    ok(r.returncode == 0, "folded: the output reads back", r.stderr)
    if r.returncode == 0:
        with open(back, "rb") as f:
            got = stacks(f.read())
        want = {(b"main", name): v for name, v in zip(FUNCS[1:], VALUES)}
        ok(got == want, "folded: written and read back, the same stacks of the same names",
           "\n".join(repr(k) for k in sorted(set(got) ^ set(want))))
        r = run([conv, back, "--to=folded", "-o", again])
        with open(again, "rb") as f:
            ok(r.returncode == 0 and f.read() == text, "folded: written again, the same bytes")
    # an ordinary folded file (flamegraph.pl's) is written back byte for byte
    plain = b"main;a::b<T>;c(int) 3\nmain;d\\e;f g 2\nmain;x\\y;\\x41 4\nmain;caf\xc3\xa9 1\n"
    src = os.path.join(work, "plain.folded")
    with open(src, "wb") as f:
        f.write(plain)
    r = run([conv, src, "--from=folded", "-o", back])
    r2 = run([conv, back, "--to=folded", "-o", again])
    with open(again, "rb") as f:
        out = f.read()
    ok(r.returncode == 0 and r2.returncode == 0 and out == b"".join(sorted(plain.splitlines(True))),
       "folded: ordinary names (backslashes, \\x41, UTF-8) read and written unchanged", out)

    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
