"""Holds a pprof-convert conversion of a JFR recording against the JDK's own reader.

usage: jfr_compare.py KIND JSON FOLDED
  stacks: JSON is `jfr print --json --events jdk.ExecutionSample`, FOLDED is
          `pprof-convert --to=folded --sample-type samples --labels thread`; the folded stacks
          (thread name as the root, then root-first frames at function granularity) must be
          equal stack for stack and count for count.
  weight: JSON is `jfr print --json --events jdk.ObjectAllocationSample`, FOLDED the
          alloc_space folded stacks; the totals must be equal.
Prints a TAP diagnostic of the first differences and exits 1 when they differ."""
import json
import sys
from collections import Counter


def frame_name(frame):
    method = frame.get("method") or {}
    cls = ((method.get("type") or {}).get("name") or "").replace("/", ".")
    name = method.get("name") or ""
    return cls + "." + name if cls and name else (name or cls or "[unknown]")


def events(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["recording"]["events"]


def folded(path):
    c = Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            c[stack] += int(n)
    return c


def stacks(json_path, folded_path):
    want = Counter()
    for e in events(json_path):
        v = e["values"]
        st = v.get("stackTrace") or {}
        frames = [frame_name(fr) for fr in reversed(st.get("frames") or [])]
        if st.get("truncated"):
            frames.insert(0, "truncated")
        th = v.get("sampledThread") or {}
        name = th.get("javaName") or th.get("osName")
        key = ";".join((["thread=" + name] if name else []) + frames)
        want[key] += 1
    got = folded(folded_path)
    if want == got:
        print("# %d samples in %d stacks equal" % (sum(want.values()), len(want)))
        return 0
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]:
            print("# jfr print %d, pprof-convert %d: %s" % (want[k], got[k], k[:300]))
    return 1


def weight(json_path, folded_path):
    want = sum(int(e["values"]["weight"]) for e in events(json_path))
    got = sum(folded(folded_path).values())
    print("# sum of weights %d, alloc_space total %d" % (want, got))
    return 0 if want == got and want > 0 else 1


if __name__ == "__main__":
    kind, js, fo = sys.argv[1:4]
    sys.exit({"stacks": stacks, "weight": weight}[kind](js, fo))
