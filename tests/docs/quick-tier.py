#!/usr/bin/env python3
"""The quick tier, `meson test -C build --suite quick`, the loop after an edit (README.md,
docs/architecture.md): at least 50 tests, and none of the slow ones: no Go differential
(suite slow), no browser (flame), no Python binding (python) and no corpus-wide run (corpus).
Reads the build's test list (meson-info/intro-tests.json), so a test that joins both `quick`
and a slow suite fails here, naming it."""
import json
import os
import sys

MIN_TESTS = 50
SLOW_SUITES = {"slow", "flame", "python", "corpus"}

build = os.environ.get("PPROF_BUILD_ROOT") or (sys.argv[1] if len(sys.argv) > 1 else "")
path = os.path.join(build, "meson-info", "intro-tests.json")
try:
    with open(path, encoding="utf-8") as f:
        tests = json.load(f)
except OSError as e:
    print(f"cannot read the build's test list: {e}")
    sys.exit(1)


def suites(t):
    # meson names a suite "project:suite" (and a subproject's "subproject:suite")
    return {s.split(":")[-1] for s in t.get("suite", [])}


quick = [t for t in tests if "quick" in suites(t)]
fail = 0
# A build without the tools (-Dtools=false) or with a fuzzing engine registers fewer tests:
# the count holds for the full test build only.
full = all(any(s in suites(t) for t in tests) for s in ("cli", "fuzz-regress"))
if not full:
    print(f"not counted: this build has no cli or no fuzz-regress tests ({len(quick)} quick)")
elif len(quick) >= MIN_TESTS:
    print(f"ok: the quick suite has {len(quick)} tests (at least {MIN_TESTS})")
else:
    print(f"the quick suite has {len(quick)} tests, fewer than {MIN_TESTS}")
    fail = 1
for t in sorted(quick, key=lambda t: t["name"]):
    slow = sorted(suites(t) & SLOW_SUITES)
    if slow:
        print(f"{t['name']} is in the quick suite and in {', '.join(slow)}: "
              "a slow test stays out of the quick tier")
        fail = 1
if not fail:
    print("ok: no quick test is in the slow, flame, python or corpus suites")
sys.exit(fail)
