#!/usr/bin/env python3
"""Mappings that name hostile files: a FIFO (no writer), /dev/zero, a 10 GB sparse file, a
directory, a truncated ELF file, DWARF overwritten with junk, a unit length past the section, a
DW_AT_sibling loop stand-in (every byte of .debug_info set to 0xff), a missing file. Each must
give a reason in the report and exit 0, in bounded time (the subprocess timeout) and memory
(RLIMIT_AS).

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
LIBPPROF = os.path.join(os.path.dirname(SYM), "..", "libpprof", "libpprof.so.0")
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
tap.done()
