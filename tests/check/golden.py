#!/usr/bin/env python3
"""pprof-check tests that run the tool or the docs generator.

  golden.py rules-md GEN DOC           docs/rules.md equals the generator's output
  golden.py golden TOOL CORPUS GOLDEN  text/json/sarif output over corpus/check equals golden/
  golden.py cli TOOL CORPUS            options, exit codes, --fix, stdin, cross-file

PPROF_UPDATE_GOLDEN=1 rewrites the golden files (and docs/rules.md) instead of comparing.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

UPDATE = os.environ.get("PPROF_UPDATE_GOLDEN") == "1"
failures = []


def check(cond, what):
    print(("ok - " if cond else "FAIL - ") + what)
    if not cond:
        failures.append(what)


def run(args, cwd=None, stdin=None):
    p = subprocess.run(args, cwd=cwd, input=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def compare(path, data):
    if UPDATE:
        with open(path, "wb") as f:
            f.write(data)
        print("updated", path)
        return
    try:
        with open(path, "rb") as f:
            want = f.read()
    except OSError:
        want = None
    check(want == data, "%s matches (PPROF_UPDATE_GOLDEN=1 to refresh)" % os.path.basename(path))
    if want is not None and want != data:
        a, b = want.decode(errors="replace").splitlines(), data.decode(errors="replace").splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print("  first difference at line %d:\n  want: %s\n  have: %s" % (i + 1, x, y))
                break
        else:
            print("  lengths differ: %d vs %d lines" % (len(a), len(b)))


def rules_md(gen, doc):
    rc, out, err = run([gen])
    check(rc == 0, "generator runs")
    compare(doc, out)


def corpus_files(corpus):
    return sorted(f for f in os.listdir(corpus) if f.endswith(".pb"))


def golden(tool, corpus, gdir):
    tool = os.path.abspath(tool)
    files = corpus_files(corpus)
    check(len(files) > 40, "corpus/check has the rule profiles (%d)" % len(files))
    version = run([tool, "--version"])[1].decode().split()[-1].encode()
    for fmt, ext in (("text", "txt"), ("json", "json"), ("sarif", "sarif")):
        rc, out, err = run([tool, "--format=" + fmt, "--max-findings=100000", "--min-severity=note"]
                           + files, cwd=corpus)
        check(rc == 1, "%s: exit 1 over corpus/check (got %d)" % (fmt, rc))
        out = out.replace(version, b"VERSION")
        # SARIF's base for relative URIs is the directory the check ran in
        out = out.replace(("file://%s/" % os.path.realpath(corpus)).encode(), b"file://CORPUS/")
        compare(os.path.join(gdir, "check." + ext), out)
        if fmt == "text":
            continue
        doc = json.loads(out)
        if fmt == "json":
            ids = {f["rule"] for f in doc["findings"]}
            check(doc["summary"]["errors"] > 0 and len(doc["files"]) == len(files),
                  "json: summary and file list")
        else:
            run0 = doc["runs"][0]
            rules = [r["id"] for r in run0["tool"]["driver"]["rules"]]
            ok = doc["version"] == "2.1.0" and "$schema" in doc
            for r in run0["results"]:
                ok = ok and rules[r["ruleIndex"]] == r["ruleId"]
                ok = ok and r["level"] in ("error", "warning", "note")
                ok = ok and r["message"]["text"] and r["locations"][0]["physicalLocation"]
            check(ok, "sarif: 2.1.0, every result's ruleIndex points at its rule")
            ids = {r["ruleId"] for r in run0["results"]}
        # Each n_/i_ file's name is its rule: that rule must be reported for that file.
        check(all(any(i.endswith("-" + f[2:-3]) for i in ids) for f in files if f[0] != "y"),
              "%s: every rule profile reports its rule" % fmt)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(n, v):
    if isinstance(v, bytes):
        return varint(n << 3 | 2) + varint(len(v)) + v
    return varint(n << 3) + varint(v)


def cross_profile(base, lines):
    """libx.so (build id b1d0) at base, a location at base+0x100 with the given line numbers."""
    strs = [b"", b"samples", b"count", b"f", b"x.c", b"libx.so", b"b1d0"]
    p = b"".join(field(6, s) for s in strs)
    p += field(1, field(1, 1) + field(2, 2))
    p += field(3, field(1, 1) + field(2, base) + field(3, base + 0x1000) + field(5, 5) + field(6, 6))
    p += field(5, field(1, 1) + field(2, 3) + field(4, 4))
    p += field(4, field(1, 1) + field(2, 1) + field(3, base + 0x100) +
               b"".join(field(4, field(1, 1) + field(2, ln)) for ln in lines))
    p += field(2, field(1, 1) + field(2, 1))
    return p


def cli(tool, corpus):
    y = os.path.join(corpus, "y_std.pb")
    n = os.path.join(corpus, "n_id-zero.pb")
    w = os.path.join(corpus, "i_address-range.pb")
    note = os.path.join(corpus, "i_unused-function.pb")
    check(run([tool, y])[0] == 0, "valid file: exit 0")
    check(run([tool, n])[0] == 1, "file with an error: exit 1")
    check(run([tool, w])[0] == 0, "warning only: exit 0 by default")
    check(run([tool, "--fail-on=warning", w])[0] == 1, "--fail-on=warning: exit 1")
    check(run([tool, "--fail-on=warning", note])[0] == 0, "--fail-on=warning ignores notes")
    check(run([tool, "--fail-on=note", note])[0] == 1, "--fail-on=note: exit 1")
    check(run([tool, "--fail-on=bogus", y])[0] == 2, "bad --fail-on: exit 2")
    check(run([tool])[0] == 2, "no file: exit 2")
    check(run([tool, "--bogus", y])[0] == 2, "unknown option: exit 2")
    check(run([tool, "--disable", "NOPE", y])[0] == 2, "unknown rule: exit 2")
    check(run([tool, "/nonexistent/x.pb"])[0] == 3, "unreadable file: exit 3")
    rc, out, _ = run([tool, "/nonexistent/x.pb", n])
    check(rc == 3 and b"CV4-id-zero" in out, "continues after an unreadable file")
    check(run([tool, "--disable", "CV4", n])[0] == 0, "--disable by prefix turns the rule off")
    check(run([tool, "--disable", "all", "--enable", "CV4-id-zero", n])[0] == 1,
          "--disable all --enable RULE")
    rc, out, err = run([tool, "-q", n])
    check(rc == 1 and out == b"" and err == b"", "--quiet prints nothing")
    rc, out, _ = run([tool, "--help"])
    check(rc == 0 and b"--fail-on" in out and b"--fix" in out, "--help")
    rc, out, _ = run([tool, "--version"])
    check(rc == 0 and out.startswith(b"pprof-check"), "--version")
    rc, out, _ = run([tool, "--list-rules"])
    check(rc == 0 and b"S1-inline-count" in out and b"error" in out, "--list-rules")
    with open(n, "rb") as f:
        data = f.read()
    rc, out, _ = run([tool, "-"], stdin=data)
    check(rc == 1 and out.startswith(b"<stdin>: error: function[1](id=0).id: "), "stdin as -")
    rc, out, _ = run([tool, "--max-findings", "1", os.path.join(corpus, "n_bad-varint.pb"), n])
    lines = [ln for ln in out.decode().splitlines() if not ln.startswith(("findings by", "  "))]
    check(rc == 1 and len(lines) == 2 and "W1-bad-varint" in lines[0] and "1 shown" in lines[1],
          "--max-findings 1: one finding, the summary says so")
    check(b"(byte " in out, "a wire finding gives its byte offset")

    with tempfile.TemporaryDirectory() as d:
        a, b, c = (os.path.join(d, x) for x in ("a.pb", "b.pb", "c.pb"))
        for path, base, lines in ((a, 0x10000, [10, 20]), (b, 0x50000, [10]), (c, 0x70000, [10, 20])):
            with open(path, "wb") as f:
                f.write(cross_profile(base, lines))
        rc, out, _ = run([tool, a, c])
        check(rc == 0, "cross-file: same expansion at other load addresses passes")
        rc, out, _ = run([tool, a, b, c])
        text = out.decode()
        check(rc == 1 and "S1-cross-inline-count" in text and a in text and b in text
              and "b1d0+0x100" in text, "cross-file: S1 conflict names both files")

        # --fix: output passes, input untouched, counts printed; nothing written without --fix.
        src = os.path.join(d, "in.pb")
        with open(os.path.join(corpus, "n_duplicate-id.pb"), "rb") as f:
            orig = f.read()
        with open(src, "wb") as f:
            f.write(orig)
        before = sorted(os.listdir(d))
        check(run([tool, src])[0] == 1 and sorted(os.listdir(d)) == before,
              "without --fix nothing is written")
        check(run([tool, "--fix", src])[0] == 2, "--fix without -o: exit 2")
        check(run([tool, "-o", os.path.join(d, "o.pb"), src])[0] == 2, "-o without --fix: exit 2")
        out_path = os.path.join(d, "fixed.pb.gz")
        rc, out, _ = run([tool, "--fix", "-o", out_path, src])
        check(rc == 0 and b"id" in out and b"1 fix" in out, "--fix: exit 0, prints fix counts")
        with open(src, "rb") as f:
            check(f.read() == orig, "--fix never modifies the input")
        check(run([tool, out_path])[0] == 0, "--fix output passes the check")
        rc, out, err = run([tool, "--fix", "-o", "-", "--compress=none", src])
        check(rc == 0 and out[:1] == b"\x0a" and b"fix" in err,
              "--fix -o - writes the profile to stdout and the counts to stderr")
        rc, _, _ = run([tool, "--fix", "-o", out_path, os.path.join(corpus, "n_bad-varint.pb")])
        check(rc == 1, "--fix on an undecodable input: exit 1")


def main():
    mode = sys.argv[1]
    if mode == "rules-md":
        rules_md(sys.argv[2], sys.argv[3])
    elif mode == "golden":
        golden(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "cli":
        cli(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown mode " + mode)
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
