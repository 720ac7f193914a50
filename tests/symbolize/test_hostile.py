#!/usr/bin/env python3
"""Mappings that name hostile files: a FIFO (no writer), /dev/zero, a 10 GB sparse file, a
directory, a truncated ELF file, DWARF overwritten with junk, a unit length past the section, a
DW_AT_sibling loop stand-in (every byte of .debug_info set to 0xff), a missing file. Each must
give a reason in the report and exit 0, in bounded time (the subprocess timeout) and memory
(RLIMIT_AS).
Then paths that are not the mappings' to open: build IDs that are not hex (never looked up
in the debug directory or the cache, checked with files planted where they lead and with
strace when present) and /proc/self/exe (not opened without --sysroot, used under one).

usage: test_hostile.py SYMBOLIZE MKPROFILE WORKDIR"""
import json
import os
import random
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, MK, WORK = sys.argv[1:4]
SRC = os.path.dirname(os.path.abspath(__file__))
st.need("gcc", "readelf")
tap = st.Tap()
os.makedirs(WORK, exist_ok=True)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731

prog = W("prog")
st.check_run(["gcc", "-O2", "-g", "-o", prog, os.path.join(SRC, "prog.c"), "-xc", "-",
              "-Wl,--build-id"], input="int lib_work(int n) { return n; }\n")
data = open(prog, "rb").read()


def section(name):
    out = st.check_run(["readelf", "-SW", prog]).stdout
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == name:
            return int(f[4], 16), int(f[5], 16)
    raise RuntimeError("no section " + name)


def variant(name, edit):
    b = bytearray(data)
    edit(b)
    with open(W(name), "wb") as f:
        f.write(b)
    return W(name)


info_off, info_size = section(".debug_info")
line_off, line_size = section(".debug_line")
rnd = random.Random(28)


def junk(off, size):
    def f(b):
        for i in range(off, off + size):
            b[i] = rnd.randrange(256)
    return f


def fill(off, size, v):
    def f(b):
        b[off:off + size] = bytes([v]) * size
    return f


def unit_length(b):
    b[info_off:info_off + 4] = (0xFFFFFFF0).to_bytes(4, "little")


cases = []
fifo = W("fifo")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
cases.append(("a FIFO without a writer", fifo, "unreadable", "FIFO"))
cases.append(("/dev/zero", "/dev/zero", "not-symbolizable", "pseudo"))
cases.append(("/dev/null", "/dev/null", "unreadable", "character device"))
sparse = W("sparse")
with open(sparse, "wb") as f:
    f.truncate(10 << 30)
cases.append(("a 10 GB sparse file", sparse, "not-elf", "not an ELF"))
cases.append(("a directory", WORK, "unreadable", "directory"))
trunc = W("truncated")
with open(trunc, "wb") as f:
    f.write(data[:3000])
cases.append(("a truncated ELF file", trunc, None, ""))
cases.append(("junk in .debug_info", variant("junk-info", junk(info_off, info_size)), None, ""))
cases.append(("junk in .debug_line", variant("junk-line", junk(line_off, line_size)), None, ""))
cases.append(("a unit length past the section", variant("unit-length", unit_length), None, ""))
cases.append(("every .debug_info byte 0xff", variant("ff-info", fill(info_off, info_size, 0xFF)), None, ""))
cases.append(("every .debug_info byte 0", variant("zero-info", fill(info_off, info_size, 0)), None, ""))
cases.append(("a missing file", W("does-not-exist"), "not-found", "no file"))

addrs = st.instructions(prog, 300)
base = st.base_for(prog)


# AddressSanitizer reserves terabytes of address space for its shadow: no RLIMIT_AS under it
LIBPPROF = os.path.join(os.path.dirname(SYM), "..", "libpprof", "libpprof.so.2")
SANITIZED = any(os.path.exists(f) and b"__asan_init" in open(f, "rb").read() for f in (SYM, LIBPPROF))


def limit_memory():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


for what, path, result, reason in cases:
    p = W("h.pb.gz")
    maps = st.mapping_specs(prog, base, name=path)
    st.write_profile(MK, p, maps + ["addr %x" % (base + a) for a in addrs])
    try:
        r = st.run([SYM, p, "-o", W("h.sym"), "--report=json"], timeout=60, preexec_fn=limit_memory)
    except Exception as e:  # a hang is a failure, not a stuck suite
        tap.ok(False, "%s: finished (%s)" % (what, e))
        continue
    try:
        rep = json.loads(r.stderr)["mappings"][0]
    except ValueError:
        rep = {}
        tap.diag(r.stderr[-2000:])
    good = r.returncode == 0 and rep.get("result") is not None
    if result:
        good = good and rep.get("result") == result and reason in rep.get("reason", "")
    else:  # damaged but ELF: used or refused, never a crash; what was not found is said
        good = good and (rep.get("resolved") == rep.get("addresses") or rep.get("reason") or rep.get("unresolved"))
    tap.ok(good, "%s: exit %d, %s: %s" % (what, r.returncode, rep.get("result"), rep.get("reason")))


# Paths that are not the mappings' to open (issue 40). A build ID names files in the debug
# directories and the debuginfod cache: one that is not hex ("../../trav") must never reach
# outside them. Each target is planted, a copy of prog, where the ID would lead, and the
# mapping names no file of its own, so that the last file tried is what the report shows.
def symbolize(maps, extra=(), env=None):
    p = W("t.pb.gz")
    st.write_profile(MK, p, maps + ["addr %x" % (base + a) for a in addrs[:20]])
    e = dict(os.environ)
    e.update(env or {})
    cmd = [SYM, p, "-o", W("t.sym"), "--report=json"] + list(extra)
    if STRACE:
        cmd = [STRACE, "-f", "-qq", "-e", "trace=open,openat", "-o", W("strace.log")] + cmd
    r = st.run(cmd, timeout=60, env=e)
    try:
        rep = json.loads(r.stderr)["mappings"][0]
    except (ValueError, IndexError, KeyError):
        rep = {}
        tap.diag(r.stderr[-2000:])
    opened = open(W("strace.log")).read() if STRACE else ""
    return r, rep, opened


STRACE = None
for d in os.environ.get("PATH", "").split(os.pathsep):
    if os.access(os.path.join(d, "strace"), os.X_OK) and not SANITIZED:
        STRACE = os.path.join(d, "strace")
        break
if STRACE and st.run([STRACE, "-qq", "-o", os.devnull, "true"]).returncode != 0:
    STRACE = None  # ptrace forbidden here

dd = W("dd")
os.makedirs(os.path.join(dd, ".build-id"), exist_ok=True)
cache = W("cache")
os.makedirs(cache, exist_ok=True)
with open(W("trav.debug"), "wb") as f:  # DIR/.build-id/..//../trav.debug
    f.write(data)
os.makedirs(W("trav"), exist_ok=True)
with open(W("trav", "debuginfo"), "wb") as f:  # CACHE/../trav/debuginfo
    f.write(data)
missing = W("no-such-file")
for what, bid, extra, env, target in (
        ("debug dir", "../../trav", ["--debug-dir", dd], {"DEBUGINFOD_CACHE_PATH": ""},
         W("trav.debug")),
        ("debuginfod cache", "../trav", [], {"DEBUGINFOD_CACHE_PATH": cache}, W("trav", "debuginfo"))):
    maps = st.mapping_specs(prog, base, name=missing, bid=bid)
    r, rep, opened = symbolize(maps, extra, env)
    tap.ok(r.returncode == 0 and "trav" not in rep.get("file", "") and
           rep.get("result") == "not-symbolizable" and "not hexadecimal" in rep.get("reason", ""),
           "build ID %s with a %s: the file it leads to is not used or reported (%s, %s: %s)" %
           (bid, what, rep.get("file"), rep.get("result"), rep.get("reason")))
    if STRACE:
        tap.ok("trav" not in opened, "build ID %s with a %s: nothing outside it is opened" % (bid, what))
    else:
        tap.skip("build ID %s with a %s: nothing opened outside it" % (bid, what), "no strace")

# /proc/self/exe would be the symbolizer's own binary: not opened without --sysroot; under a
# sysroot it is SYSROOT/proc/self/exe, which is fine
for name in ("/proc/self/exe", "//proc/self/exe", "/usr/../proc/self/exe"):
    maps = st.mapping_specs(prog, base, name=name)
    r, rep, opened = symbolize(maps, env={"DEBUGINFOD_CACHE_PATH": ""})
    tap.ok(r.returncode == 0 and rep.get("result") == "not-symbolizable" and
           "/proc" in rep.get("reason", "") and rep.get("resolved") == 0,
           "mapping %s without --sysroot: not opened (%s: %s)" % (name, rep.get("result"), rep.get("reason")))
    if STRACE:
        tap.ok("proc/self/exe" not in opened, "mapping %s: no open of /proc/self/exe" % name)
    else:
        tap.skip("mapping %s: no open of /proc/self/exe" % name, "no strace")
root = W("root")
os.makedirs(os.path.join(root, "proc", "self"), exist_ok=True)
with open(os.path.join(root, "proc", "self", "exe"), "wb") as f:
    f.write(data)
maps = st.mapping_specs(prog, base, name="/proc/self/exe")
r, rep, opened = symbolize(maps, ["--sysroot", root], env={"DEBUGINFOD_CACHE_PATH": ""})
tap.ok(r.returncode == 0 and rep.get("result") == "ok" and
       rep.get("file") == os.path.join(root, "proc", "self", "exe") and rep.get("resolved", 0) > 0,
       "mapping /proc/self/exe under --sysroot: the sysroot's file is used (%s, %s)" %
       (rep.get("result"), rep.get("file")))
tap.done()
