#!/usr/bin/env python3
"""A Go program's runtime/pprof profile, its lines removed, symbolized back from the binary's
DWARF: every location gets the frames the runtime wrote (function, file, line, inline levels).

usage: test_go.py SYMBOLIZE DUMP STRIPLINES CHECK WORKDIR"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, STRIP, CHECK, WORK = sys.argv[1:6]
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goprog")
st.need("go")
tap = st.Tap()
os.makedirs(WORK, exist_ok=True)
env = dict(os.environ, GOFLAGS="-mod=mod", GO111MODULE="off", GOCACHE=os.path.join(WORK, "gocache"), CGO_ENABLED="0")
exe = os.path.join(WORK, "goprog")
st.check_run(["go", "build", "-o", exe, os.path.join(SRC, "main.go")], env=env, timeout=600)
prof = os.path.join(WORK, "allocs.pb.gz")
st.check_run([exe, prof], timeout=120)
st.check_run([STRIP, prof, prof + ".raw"])
r = st.run([SYM, prof + ".raw", "-o", prof + ".sym", "--report=json"])
tap.ok(r.returncode == 0, "pprof-symbolize on the stripped profile")
orig, _ = st.frames_by_address(st.dump(DUMP, prof))
back, maps = st.frames_by_address(st.dump(DUMP, prof + ".sym"))


def key(fr):  # what the runtime writes: name, file, line (no columns; start lines when it knows)
    return [(n, f, l) for (n, _s, f, l, _c, _st) in fr]


exe_addrs = [a for a in orig if orig[a] and any(m["filename"] == exe for m in maps.values())]
same = [a for a in orig if key(orig[a]) == key(back.get(a, []))]
for a in [a for a in orig if a not in set(same)][:10]:
    tap.diag("0x%x runtime %s" % (a, key(orig[a])), "0x%x ours    %s" % (a, key(back.get(a, []))))
tap.ok(len(orig) > 20 and len(same) == len(orig),
       "%d of %d locations have the runtime's frames again" % (len(same), len(orig)))
tap.ok(any(len(fr) > 1 for fr in back.values()), "inlined frames come back as lines of one location")
starts = [(fr[i][0], fr[i][5], orig[a][i][5]) for a, fr in back.items() for i in range(len(fr))
          if a in orig and i < len(orig[a]) and orig[a][i][5]]
tap.ok(all(s == o for (_n, s, o) in starts), "start lines, where the runtime wrote them, agree (%d)" % len(starts))
r = st.run([CHECK, prof + ".sym"])
tap.ok(r.returncode == 0, "the symbolized profile passes pprof-check")
tap.done()
