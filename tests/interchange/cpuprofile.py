#!/usr/bin/env python3
"""pprof-convert --from=cpuprofile and --to=cpuprofile. A real file is recorded with
`node --cpu-prof` on a small script; what pprof-top says of the converted profile (totals, each
function's flat and cum) is held against figures worked out here from the JSON itself. The
writer's output is checked as Node's format and read back to the same profile; bad inputs are
refused with a path and exit 1. TAP.

usage: cpuprofile.py PPROF_CONVERT PPROF_TOP PPROF_DUMP
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import profiles  # noqa: E402

n = 0
failed = 0

SCRIPT = r"""
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function busy() { let s = 0; for (let i = 0; i < 1e6; i++) s += Math.sqrt(i); return s; }
const end = Date.now() + 250;
let x = 0;
while (Date.now() < end) { x += fib(18); x += busy(); }
if (x < 0) console.log(x);
"""


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


def run(args):
    r = subprocess.run(args, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


def expected(doc):
    """flat and cum per function name, by pprof-top's functions granularity, and the totals:
    one sample per entry of samples, its time the delta before it (negative counts 0)"""
    nodes = {x["id"]: x for x in doc["nodes"]}
    parent = {c: x["id"] for x in doc["nodes"] for c in x.get("children", [])}
    flat = [{}, {}]
    cum = [{}, {}]
    totals = [0, 0]
    for sid, d in zip(doc["samples"], doc["timeDeltas"]):
        vals = [1, max(d, 0) * 1000]
        names = []
        i = sid
        while i is not None:
            cf = nodes[i]["callFrame"]
            if not (i not in parent and cf["functionName"] == "(root)"):
                names.append(cf["functionName"] or "(anonymous)")
            i = parent.get(i)
        for t in (0, 1):
            totals[t] += vals[t]
            if names:
                flat[t][names[0]] = flat[t].get(names[0], 0) + vals[t]
            for nm in set(names):
                cum[t][nm] = cum[t].get(nm, 0) + vals[t]
    return totals, flat, cum


def check_real(conv, top, dump, work):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        skip("a file recorded by node --cpu-prof", "node is not installed (scripts/deps: nodejs)")
        return
    js = os.path.join(work, "work.js")
    with open(js, "w") as f:
        f.write(SCRIPT)
    rc, _, err = run([node, "--cpu-prof", "--cpu-prof-dir=" + work, "--cpu-prof-name=w.cpuprofile",
                      js])
    src = os.path.join(work, "w.cpuprofile")
    ok(rc == 0 and os.path.exists(src), "node --cpu-prof records a profile", err)
    with open(src) as f:
        doc = json.load(f)
    pb = os.path.join(work, "w.pb.gz")
    rc, _, err = run([conv, src, "--from=cpuprofile", "-o", pb])
    ok(rc == 0, "--from=cpuprofile reads it", err)
    totals, flat, cum = expected(doc)
    for t, name in ((0, "samples"), (1, "cpu")):
        rc, out, err = run([top, pb, "--sample-type", name, "--format=json", "-n", "1000"])
        try:
            got = json.loads(out)
        except ValueError as e:
            ok(False, "%s: pprof-top --format=json" % name, (e, err))
            continue
        ok(got["total"] == totals[t], "%s: the total is the file's (%d)" % (name, totals[t]),
           (got["total"], totals[t]))
        bad = [(x["name"], x["flat"], x["cum"], flat[t].get(x["name"], 0), cum[t].get(x["name"], 0))
               for x in got["nodes"]
               if x["flat"] != flat[t].get(x["name"], 0) or x["cum"] != cum[t].get(x["name"], 0)]
        ok(got["nodes"] and not bad, "%s: flat and cum of every function listed (%d) are the file's"
           % (name, len(got["nodes"])), bad[:5])
        want_top = sorted(flat[t].values(), reverse=True)[:3]
        ok([x["flat"] for x in got["nodes"][:3]] == want_top,
           "%s: the top functions by flat are the file's" % name,
           ([(x["name"], x["flat"]) for x in got["nodes"][:3]], want_top))
    names = {x["callFrame"]["functionName"] for x in doc["nodes"]}
    ok(doc["samples"] and ("fib" in names or "busy" in names),
       "the file has samples and the script's functions", sorted(names))

    # out, and back
    out = os.path.join(work, "w2.cpuprofile")
    rc, _, err = run([conv, pb, "--to=cpuprofile", "-o", out])
    ok(rc == 0, "--to=cpuprofile writes it back", err)
    with open(out) as f:
        d2 = json.load(f)
    ids = [x["id"] for x in d2["nodes"]]
    kids = [c for x in d2["nodes"] for c in x["children"]]
    keys = all(set(x["callFrame"]) == {"functionName", "scriptId", "url", "lineNumber",
                                       "columnNumber"} for x in d2["nodes"])
    ok(keys and len(set(ids)) == len(ids) and sorted(kids) == sorted(ids[1:]) and
       d2["nodes"][0]["callFrame"]["functionName"] == "(root)" and
       len(d2["samples"]) == len(d2["timeDeltas"]) == len(doc["samples"]) and
       sum(x["hitCount"] for x in d2["nodes"]) == len(d2["samples"]) and
       d2["endTime"] >= d2["startTime"] + sum(d2["timeDeltas"]),
       "the output has Node's shape: (root), unique ids, one parent each, samples, timeDeltas")
    _, t2, _ = expected(d2)
    ok(expected(d2)[0] == totals and t2 == flat, "the output has the input's totals and flats")
    pb2 = os.path.join(work, "w2.pb.gz")
    rc, _, err = run([conv, out, "--from=cpuprofile", "-o", pb2])
    a = run([dump, "--as-is", pb])[1]  # as stored: ids and order too
    b = run([dump, "--as-is", pb2])[1]
    ok(rc == 0 and a == b and a, "read back, it is the same profile (pprof-dump)", err)


BAD = [
    (b"", "", "empty"),
    (b"{\"nodes\": [", "", "not JSON"),
    (b"[1, 2]", "", "JSON object"),
    (b"{\"head\": {}}", "nodes", "head"),
    (b"{\"nodes\": [1]}", "nodes[0]", "object"),
    (b"{\"nodes\": [{\"callFrame\": {\"functionName\": \"a\"}}]}", "nodes[0].id", "no id"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": 5}}]}",
     "nodes[0].callFrame.functionName", "not a string"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\", \"lineNumber\": \"x\"}}]}",
     "nodes[0].callFrame.lineNumber", "not an integer"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}},"
     b" {\"id\": 1, \"callFrame\": {\"functionName\": \"b\"}}]}", "nodes[1].id", "repeats"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}, \"children\": [9]}]}",
     "nodes[0].children[0]", "no node has id 9"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}, \"children\": [3]},"
     b" {\"id\": 2, \"callFrame\": {\"functionName\": \"b\"}, \"children\": [3]},"
     b" {\"id\": 3, \"callFrame\": {\"functionName\": \"c\"}}]}",
     "nodes[1].children[0]", "two parents"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"r\"}},"
     b" {\"id\": 2, \"callFrame\": {\"functionName\": \"a\"}, \"children\": [3]},"
     b" {\"id\": 3, \"callFrame\": {\"functionName\": \"b\"}, \"children\": [2]}]}",
     "nodes[1]", "cycle"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}}],"
     b" \"samples\": [1, 1, 7], \"timeDeltas\": [1, 2, 3]}", "samples[2]", "no node has id 7"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}}],"
     b" \"samples\": [1, 1], \"timeDeltas\": [1]}", "timeDeltas", "1 time deltas for 2"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}}],"
     b" \"samples\": [1], \"timeDeltas\": [1.5]}", "timeDeltas[0]", "integer"),
    (b"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"a\"}}]}", "samples",
     "no samples"),
    (b"{\"a\":" * 100 + b"1" + b"}" * 100, "", "nested deeper than 32"),
    (b"{\"nodes\": [], \"nodes\": []}", "", "duplicate"),
]


def check_bad(conv, work):
    for i, (data, path, words) in enumerate(BAD):
        f = os.path.join(work, "bad%d.cpuprofile" % i)
        with open(f, "wb") as fh:
            fh.write(data)
        rc, out, err = run([conv, f, "--from=cpuprofile", "-o", os.path.join(work, "o.pb.gz")])
        where = (": %s: " % path) if path else ": "
        ok(rc == 1 and where in err and words in err and "Sanitizer" not in err,
           "bad input %d refused at '%s' (%s), exit 1" % (i, path, words), (rc, err))


def check_bounded(conv, work):
    huge = os.path.join(work, "huge.pb.gz")
    with open(huge, "wb") as f:
        f.write(profiles.encode([(b"samples", b"count"), (b"cpu", b"nanoseconds")],
                                [(1, b"main", b"m.js", 3)], [(1, 0, 0, [(1, 4)])],
                                [([1], [10 ** 12, 10 ** 16])]))
    rc, out, err = run([conv, huge, "--to=cpuprofile"])
    ok(rc == 1 and "samples to write" in err and len(out) == 0,
       "a count of 10^12 is never expanded: refused past the sample limit, exit 1", (rc, err))
    small = os.path.join(work, "small.pb.gz")
    with open(small, "wb") as f:
        f.write(profiles.encode([(b"samples", b"count"), (b"cpu", b"nanoseconds")],
                                [(1, b"main", b"m.js", 3), (2, b"leaf", b"m.js", 9)],
                                [(1, 0, 0, [(2, 10), (1, 4)])],  # leaf inlined into main
                                [([1], [3, 3001000])]))
    rc, out, err = run([conv, small, "--to=cpuprofile"])
    d = json.loads(out) if rc == 0 else {}
    names = [x["callFrame"]["functionName"] for x in d.get("nodes", [])]
    ok(rc == 0 and names == ["(root)", "main", "leaf"] and d["samples"] == [3, 3, 3] and
       d["timeDeltas"] == [1001, 1000, 1000] and d["nodes"][2]["callFrame"]["lineNumber"] == 9,
       "inlined frames are nodes; a sample of count 3 is 3 samples whose deltas sum to its time",
       (err, names, d.get("samples"), d.get("timeDeltas")))


TWO = (b'{"nodes": [{"id": 1, "callFrame": {"functionName": "main", "url": "m.js"},'
       b' "children": [2]}, {"id": 2, "callFrame": {"functionName": "leaf", "url": "l.js"}}],'
       b' "samples": [2, 2, 1], "timeDeltas": [10, 10, 10]')


def check_hostile(conv, dump, work):
    def convert(name, data):
        f = os.path.join(work, name + ".cpuprofile")
        with open(f, "wb") as fh:
            fh.write(data)
        out = os.path.join(work, name + ".pb.gz")
        rc, _, err = run([conv, f, "--from=cpuprofile", "-o", out])
        if rc:
            return rc, err, ""
        rc, text, err2 = run([dump, out])
        return rc, err + err2, text.decode("utf-8", "replace")

    rc, err, text = convert("two", TWO + b"}")
    ok(rc == 0 and "leaf" in text and "main" in text and "Sanitizer" not in err,
       "a two-node tree whose root is not '(root)' is read (every node a frame)", (rc, err))
    rc2, err2, text2 = convert("bom", b"\xef\xbb\xbf" + TWO + b"}")
    ok(rc2 == 0 and text2 == text and "Sanitizer" not in err2,
       "a UTF-8 byte order mark is skipped: the same profile", (rc2, err2))
    rc, err, text = convert("times", TWO + b', "startTime": -9223372036854775808,'
                            b' "endTime": 9223372036854775807}')
    # pprof-dump prints Go's text: no Duration line when there is none
    ok(rc == 0 and "\nDuration:" not in text and "Sanitizer" not in err and
       "runtime error" not in err,
       "startTime INT64_MIN, endTime INT64_MAX: no overflow, no duration (it does not fit)",
       (rc, err, [x for x in text.splitlines() if x.startswith("Duration")]))


def main():
    conv, top, dump = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="cpuprofile-test.") as work:
        check_real(conv, top, dump, work)
        check_bad(conv, work)
        check_bounded(conv, work)
        check_hostile(conv, dump, work)


if __name__ == "__main__":
    main()
    print("1..%d" % n)
    sys.exit(1 if failed else 0)
