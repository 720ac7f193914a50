#!/usr/bin/env python3
"""pprof-symbolize's first and repeat runs (the address index cache) against llvm-symbolizer
--inlines on the same addresses: best of N by CPU time (user + sys, from wait4), with wall time
and peak RSS, one table row per command (docs/bench/symbolize.md).

usage: cache-run.py SYMBOLIZE PROFILE BINARY ADDRS [N]
  PROFILE  a profile of raw addresses in BINARY's mapping (tests/symbolize/sz_mkprofile)
  ADDRS    the same addresses, one 0x... per line, for llvm-symbolizer"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SYM, PROF, BIN, ADDRS = sys.argv[1:5]
N = int(sys.argv[5]) if len(sys.argv) > 5 else 3
work = tempfile.mkdtemp(prefix="pprof-cache-bench-")
cache, out = os.path.join(work, "cache"), os.path.join(work, "out.pb.gz")


def best(cmd, stdin=None, before=None):
    res = None
    for _ in range(N):
        if before:
            before()
        fin = open(stdin) if stdin else subprocess.DEVNULL
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        if os.waitstatus_to_exitcode(status):
            sys.exit("failed: %s" % " ".join(cmd))
        r = (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)
        if res is None or r[1] < res[1]:
            res = r
    return res


print("load average before:", " ".join(open("/proc/loadavg").read().split()[:3]))
base = [SYM, PROF, "-o", out, "--binary", BIN]
rows = [
    ("pprof-symbolize, first run (--no-cache)", best(base + ["--no-cache"])),
    ("pprof-symbolize, first run (empty cache: writes the index)",
     best(base + ["--cache-dir", cache], before=lambda: shutil.rmtree(cache, ignore_errors=True))),
    ("pprof-symbolize, repeat run (index hit)", best(base + ["--cache-dir", cache])),
    ("llvm-symbolizer --inlines", best(["llvm-symbolizer", "--inlines", "--obj=" + BIN], stdin=ADDRS)),
]
print("load average after:", " ".join(open("/proc/loadavg").read().split()[:3]))
llvm = rows[-1][1][1]
print("| | wall | user + sys | peak RSS | vs llvm-symbolizer (CPU) |")
print("|---|---|---|---|---|")
for name, (wall, cpu, rss) in rows:
    print("| %s | %.3f s | %.3f s | %.0f MB | %.1fx |" % (name, wall, cpu, rss, llvm / cpu))
shutil.rmtree(work)
