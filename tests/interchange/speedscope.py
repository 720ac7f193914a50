#!/usr/bin/env python3
"""pprof-convert --to=speedscope: the output is valid against the schema the speedscope npm
package ships (tests/flame/node_modules, installed by scripts/deps), and says what the profile
says, worked out here from the profile's own encoding (profiles.py) or from pprof-dump --json.
TAP.

usage: speedscope.py PPROF_CONVERT PPROF_DUMP
"""
import codecs
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import profiles  # noqa: E402

ROOT = os.environ.get("PPROF_SOURCE_ROOT") or os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.environ.get("PPROF_REAL_CORPUS") or ""
SCHEMA = os.path.join(ROOT, "tests", "flame", "node_modules", "speedscope", "dist", "release",
                      "file-format-schema.json")

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


def skip(desc, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, desc, why))


codecs.register_error("perbyte", lambda e: ("\ufffd", e.start + 1))


def text(b):
    return b.decode("utf-8", errors="perbyte")


def validate(doc, desc):
    try:
        import jsonschema
    except ImportError:
        skip(desc, "python3-jsonschema is not installed (scripts/deps)")
        return
    if not os.path.exists(SCHEMA):
        skip(desc, "speedscope's schema is not installed (scripts/deps: npm ci in tests/flame)")
        return
    with open(SCHEMA) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(doc, schema)
        ok(True, desc)
    except jsonschema.ValidationError as e:
        ok(False, desc, e)


def convert(conv, args):
    r = subprocess.run([conv] + args, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


def stacks(doc, prof):
    """each sample's stack as frame names, root first"""
    fr = doc["shared"]["frames"]
    return [[fr[i]["name"] for i in s] for s in prof["samples"]]


def main():
    conv, dump = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="speedscope-test.")
    alloc = os.path.join(work, "alloc.pb.gz")
    with open(alloc, "wb") as f:
        f.write(profiles.alloc_profile())

    rc, out, err = convert(conv, [alloc, "--to=speedscope"])
    ok(rc == 0, "alloc profile converts", err)
    try:
        raw = out.decode("utf-8")
        doc = json.loads(raw)
    except Exception as e:  # noqa: BLE001
        ok(False, "the output is UTF-8 JSON", e)
        return
    ok(True, "the output is UTF-8 JSON")
    validate(doc, "valid against speedscope's file-format-schema.json")
    ok(doc["name"] == "alloc.pb.gz" and doc["activeProfileIndex"] == 1,
       "name is the input's, the active profile is the default type (the last)",
       (doc["name"], doc["activeProfileIndex"]))
    profs = doc["profiles"]
    ok([(p["type"], p["name"], p["unit"]) for p in profs] ==
       [("sampled", "alloc_objects/count", "none"), ("sampled", "alloc_space/bytes", "bytes")],
       "one sampled profile per sample type, named TYPE/UNIT, unit kept when speedscope has it",
       [(p["type"], p["name"], p["unit"]) for p in profs])
    hostile = text(profiles.HOSTILE)
    want = {
        "alloc_objects/count": ([["main", "work", hostile, "0x401234"], ["main", "work", hostile],
                                 ["main", "work"]], [3, 10 ** 12, 2]),
        "alloc_space/bytes": ([["main", "work", hostile, "0x401234"], ["main", "work", hostile],
                               ["main", "work"]], [4096, 10 ** 15, 512]),
    }
    for p in profs:
        w_stacks, w_weights = want[p["name"]]
        ok(stacks(doc, p) == w_stacks,
           "%s: stacks root first, the inlined frame its own frame, zero values left out"
           % p["name"], stacks(doc, p))
        ok(p["weights"] == w_weights and p["startValue"] == 0 and
           p["endValue"] == sum(w_weights),
           "%s: one sample per pprof sample weighted by its value (never expanded)" % p["name"],
           (p["weights"], p["endValue"]))
    ok(len(raw) < 4000, "output stays small with a count of 10^12 (%d bytes)" % len(raw))
    fr = {f["name"]: f for f in doc["shared"]["frames"]}
    ok(fr["main"].get("file") == "main.go" and fr["main"].get("line") == 10 and
       fr["work"].get("file") == "work.go" and fr["work"].get("line") == 20,
       "frames carry file and the function's start line", doc["shared"]["frames"])
    ok(hostile in fr and "\x00" in hostile and fr[hostile].get("file") == text(b"ctl\x02.c") and
       "line" not in fr[hostile], "NUL, control bytes and bad UTF-8 in names survive as text")
    ok("\\u0000" in raw and "\\u0001" in raw and "\\u001b" in raw and "\x00" not in raw and
       "</script>" not in raw, "control bytes are escaped as \\u00XX, markup as well")
    ok(fr["0x401234"].get("file") == "/usr/lib/libx.so",
       "a location without lines is its address, in its mapping's file")
    ok(len(doc["shared"]["frames"]) == 4, "one frame per function (and unsymbolized address)",
       doc["shared"]["frames"])

    rc, out, err = convert(conv, [alloc, "--to=speedscope", "--lines"])
    d2 = json.loads(out) if rc == 0 else {}
    lines = sorted((f["name"], f.get("line")) for f in d2.get("shared", {}).get("frames", []))
    ok(rc == 0 and ("main", 12) in lines and ("work", 25) in lines,
       "--lines: frames carry the line of the call", (err, lines))

    # refusals
    neg = os.path.join(work, "neg.pb.gz")
    with open(neg, "wb") as f:
        f.write(profiles.encode([(b"delta", b"count")], [(1, b"f", b"", 0)], [(1, 0, 0, [(1, 1)])],
                                [([1], [5]), ([1], [-2])]))
    rc, out, err = convert(conv, [neg, "--to=speedscope"])
    ok(rc == 1 and "sample[1].value[0]" in err and "negative" in err and not out,
       "a negative value is refused naming the sample, exit 1", (rc, err))
    bad = os.path.join(work, "bad.pb.gz")
    with open(bad, "wb") as f:
        f.write(profiles.encode([(b"samples", b"count")], [], [], [([7], [1])]))
    rc, out, err = convert(conv, [bad, "--to=speedscope"])
    ok(rc == 1 and "neg" not in err and err.strip() and not out,
       "an invalid profile (dangling location) is refused, exit 1", (rc, err))
    rc, out, err = convert(conv, [alloc, "--to=speedscope", "-o", alloc])
    ok(rc == 2, "refuses to write the JSON over its input, exit 2", (rc, err))

    # a real profile: every type's total is the sum of its values in pprof-dump --json
    fib = os.path.join(CORPUS, "parca", "query-fib.pb.gz") if CORPUS else ""
    if fib and os.path.exists(fib):
        rc, out, err = convert(conv, [fib, "--to=speedscope"])
        d = json.loads(out)
        r = subprocess.run([dump, fib, "--json"], capture_output=True)
        pj = json.loads(r.stdout)
        samples = pj.get("sample") or pj.get("samples") or []
        sums = [0] * len(d["profiles"])
        for s in samples:
            for i, v in enumerate(s.get("value") or s.get("values") or []):
                sums[i] += v
        validate(d, "query-fib: valid against the schema")
        ok([p["endValue"] for p in d["profiles"]] == sums and
           [sum(p["weights"]) for p in d["profiles"]] == sums,
           "query-fib: each type's total equals the profile's (pprof-dump --json)",
           ([p["endValue"] for p in d["profiles"]], sums))
    else:
        skip("query-fib", "the real corpus is not there")


if __name__ == "__main__":
    main()
    print("1..%d" % n)
    sys.exit(1 if failed else 0)
