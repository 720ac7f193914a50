#!/usr/bin/env python3
"""pprof-symbolize on a program built with clang -gsplit-dwarf (DWARF 5) and packed by llvm-dwp,
its .dwo files removed: every instruction address's frames (function, file, line, inline chain)
compared with llvm-symbolizer --inlines; the package found beside the binary, beside a debug
file and in a debug directory's build-ID tree; .dwo files beside (DWARF 5 and 4, GCC's too); a
DWARF 4 package; hostile packages and .dwo files (truncated, an index pointing outside its
sections, bytes flipped, nesting past the limit, abstract origins in loops, one range list
named by every function) give fewer frames in bounded time, never a crash.

usage: test_dwp.py SYMBOLIZE DUMP MKPROFILE WORKDIR"""
import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, MK, WORK = sys.argv[1:5]
SRC = os.path.dirname(os.path.abspath(__file__))
st.need("clang", "clang++", "llvm-dwp", "llvm-symbolizer", "objdump", "readelf", "objcopy")
tap = st.Tap()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731


def build(tag, dwarf, pack=True, pie=True, split=True):
    """prog.c, lib.cc and split.cc in one executable at -O2, split DWARF (packed into a .dwp,
    the .dwo files removed) or not; WORK/tag/prog."""
    d = W(tag)
    os.makedirs(d)
    flags = ["-O2", "-g", "-gdwarf-%d" % dwarf] + (["-gsplit-dwarf"] if split else []) + \
        (["-fPIE"] if pie else ["-fno-pie"])
    st.check_run(["clang"] + flags + ["-c", os.path.join(SRC, "prog.c"), "-o", "prog.o"], cwd=d)
    st.check_run(["clang++"] + flags + ["-c", os.path.join(SRC, "lib.cc"), "-o", "lib.o"], cwd=d)
    st.check_run(["clang++"] + flags + ["-c", os.path.join(SRC, "split.cc"), "-o", "split.o"], cwd=d)
    st.check_run(["clang++", "prog.o", "lib.o", "split.o", "-o", "prog", "-Wl,--build-id"]
                 + (["-pie"] if pie else ["-no-pie"]),
                 cwd=d)
    if pack and split:
        st.check_run(["llvm-dwp", "-e", "prog", "-o", "prog.dwp"], cwd=d)
        for f in os.listdir(d):
            if f.endswith(".dwo"):
                os.unlink(os.path.join(d, f))
    return os.path.join(d, "prog")


def symbolize(prog, tag, *opts, reference=None, cache=None):
    """Our frames of every instruction address of prog; with reference (the file
    llvm-symbolizer reads), also the share equal to its frames. Returns (ours, llvm, report)."""
    addrs = st.instructions(prog)
    base = st.base_for(prog)
    prof, out, rep = W(tag + ".pb.gz"), W(tag + ".sym.pb.gz"), W(tag + ".json")
    st.profile_for(MK, prof, prog, addrs, base, bid=st.build_id(prog))
    # --no-cache: the hostile cases change .dwo files the address index cache does not key on
    keep = ["--cache-dir", cache] if cache else ["--no-cache"]
    r = st.run([SYM, prof, "-o", out, "--no-default-dirs"] + keep + ["--demangle=none", "--report=json",
                "--report-file", rep] + list(opts),
               timeout=300)
    if r.returncode != 0:
        tap.diag("pprof-symbolize exit %d: %s" % (r.returncode, r.stderr))
        return None, None, None
    with open(rep) as f:
        report = json.load(f)
    # mangled names on both sides: the symbolization itself, not the two demanglers' dialects
    fix = lambda fr: [("??" if n == "" else n, f, l, c) for (n, f, l, c) in fr]  # noqa: E731
    ours = {a - base: fix(st.ours_as_llvm(fr)) for a, fr in st.frames_by_address(st.dump(DUMP, out))[0].items()}
    return ours, (llvm(reference or prog, addrs) if reference is not False else None), report


def llvm(path, addrs):
    return st.llvm_frames(path, addrs, demangle=False)


def compare(ours, ref, what, need=0.999, who="llvm-symbolizer --inlines"):
    same = [a for a in ref if ours.get(a, []) == ref[a]]
    share = len(same) / max(1, len(ref))
    if share < need:
        for a in [a for a in ref if ours.get(a, []) != ref[a]][:8]:
            tap.diag("0x%x ours %r" % (a, ours.get(a)), "0x%x llvm %r" % (a, ref[a]))
    inl = sum(1 for a in same if len(ref[a]) > 1)
    return tap.ok(share >= need and inl > 0,
                  "%s: %d of %d addresses as %s (%.2f %%; %d with inline frames)"
                  % (what, len(same), len(ref), who, 100 * share, inl))


def reason(report):
    return " ".join(m.get("reason", "") for m in report.get("mappings", []))


def text_of(prog):
    out = prog + ".text"
    st.check_run(["objcopy", "-O", "binary", "--only-section=.text", prog, out])
    with open(out, "rb") as f:
        return f.read()


# ---- the package beside the binary, PIE and not. The reference is llvm-symbolizer on the same
# code built without -gsplit-dwarf: LLVM 14's symbolizer misplaces the ranges of inlined calls
# that a split unit gives as offset pairs of a range list (DW_FORM_rnglistx), with a .dwp as
# with the .dwo files, and so drops those frames.
for pie in (True, False):
    tag = "dwp5" + ("" if pie else "-nopie")
    prog = build(tag, 5, pie=pie)
    whole = build(tag + "-whole", 5, pie=pie, split=False)
    tap.ok(text_of(prog) == text_of(whole), "%s: the same code with and without -gsplit-dwarf" % tag)
    ours, ref_split, report = symbolize(prog, tag)
    if ours is None:
        tap.ok(False, "%s: symbolized" % tag)
        continue
    ref = llvm(whole, sorted(ref_split))
    compare(ours, ref, "DWARF 5 .dwp beside the binary (%s)" % ("PIE" if pie else "no PIE"))
    same = sum(1 for a in ref_split if ours.get(a, []) == ref_split[a])
    tap.diag("llvm-symbolizer --inlines on the split program itself agrees on %d of %d" % (same, len(ref_split)))
    # and as libdw's reading of the same program unsplit gives them, address for address
    unsplit, _, _ = symbolize(whole, tag + "-whole", reference=False)
    if unsplit is not None:
        compare(ours, unsplit, tag, need=1.0, who="libdw's reading of the unsplit program")
    tap.ok("prog.dwp (found beside-binary)" in reason(report),
           "the report names the package and where it was found: %r" % reason(report)[:200])
prog = W("dwp5", "prog")
ref = llvm(W("dwp5-whole", "prog"), st.instructions(prog))

# ---- a stripped binary, its debug file in a build-ID tree and the package beside that
bid = st.build_id(prog)
dbgdir = W("debug", ".build-id", bid[:2])
os.makedirs(dbgdir)
st.check_run(["objcopy", "--only-keep-debug", prog, os.path.join(dbgdir, bid[2:] + ".debug")])
shutil.copy(prog + ".dwp", os.path.join(dbgdir, bid[2:] + ".dwp"))
os.makedirs(W("stripped"))
stripped = W("stripped", "prog")
st.check_run(["objcopy", "--strip-debug", prog, stripped])
ours, _, report = symbolize(stripped, "stripped", "--debug-dir", W("debug"), reference=False)
if ours is not None:
    compare(ours, ref, "stripped, debug file and package in a build-ID tree")
    tap.ok("(found beside-debug-file)" in reason(report), "found beside the debug file: %r" % reason(report)[:200])

# the package alone in the build-ID tree, the debug sections still in the binary
os.makedirs(W("alone"))
shutil.copy(prog, W("alone", "prog"))
os.makedirs(W("debug2", ".build-id", bid[:2]))
shutil.copy(prog + ".dwp", W("debug2", ".build-id", bid[:2], bid[2:] + ".dwp"))
ours, _, report = symbolize(W("alone", "prog"), "alone", "--debug-dir", W("debug2"), reference=False)
if ours is not None:
    compare(ours, ref, "package in a debug directory's build-ID tree")
    tap.ok("(found build-id)" in reason(report), "found by build ID: %r" % reason(report)[:200])

# ---- the address index cache keeps no index of split DWARF: a package that appears later in a
# debug directory (the binary unchanged) is read, not answered for by an index of the first run
os.makedirs(W("late"))
shutil.copy(prog, W("late", "prog"))
cache = W("late-cache")
first, _, _ = symbolize(W("late", "prog"), "late1", "--debug-dir", W("debug3"), reference=False, cache=cache)
os.makedirs(W("debug3", ".build-id", bid[:2]))
shutil.copy(prog + ".dwp", W("debug3", ".build-id", bid[:2], bid[2:] + ".dwp"))
ours, _, report = symbolize(W("late", "prog"), "late2", "--debug-dir", W("debug3"), reference=False, cache=cache)
if first is not None and ours is not None:
    compare(ours, ref, "a package installed after a first run with the cache on")
    idx = [f for f in os.listdir(cache) if f.endswith(".idx")] if os.path.isdir(cache) else []
    tap.ok(not idx, "no address index of a split DWARF binary: %r" % idx)

# ---- .dwo files beside (no package; libdw 0.188 does not give a skeleton's split DIEs either),
# DWARF 5 and 4; then DWARF 4 packed (index version 2)
for v in (5, 4):
    p = build("dwo%d" % v, v, pack=False)
    r = llvm(build("dwo%d-whole" % v, v, split=False), st.instructions(p))
    ours, _, _ = symbolize(p, "dwo%d" % v, reference=False)
    if ours is not None:
        compare(ours, r, "DWARF %d, the .dwo files beside" % v)
    if v == 4:
        ref4 = r
# GCC's split units (DWARF 5), .dwo files beside: neither llvm-dwp 14 (it hangs) nor binutils'
# dwp 2.40 (it crashes) packs them, so no GCC package is tried
if shutil.which("gcc") and shutil.which("g++"):
    d = W("gcc-dwo")
    os.makedirs(d)
    for cc, src in (("gcc", "prog.c"), ("g++", "lib.cc"), ("g++", "split.cc")):
        st.check_run([cc, "-O2", "-g", "-gsplit-dwarf", "-c", os.path.join(SRC, src), "-o", src + ".o"], cwd=d)
    st.check_run(["g++", "prog.c.o", "lib.cc.o", "split.cc.o", "-o", "prog"], cwd=d)
    ours, r, _ = symbolize(os.path.join(d, "prog"), "gcc-dwo")
    if ours is not None:
        compare(ours, r, "GCC, DWARF 5, the .dwo files beside")
else:
    tap.skip("GCC, DWARF 5, the .dwo files beside", "gcc missing")
prog4p = build("dwp4", 4)
ours, _, report = symbolize(prog4p, "dwp4", reference=False)
if ours is not None:
    compare(ours, ref4, "DWARF 4 .dwp (index version 2)")
    tap.ok("found beside-binary" in reason(report), "DWARF 4 package found beside the binary")

# ---- hostile packages: never a crash, a hang or a nonzero exit
with open(prog + ".dwp", "rb") as f:
    good = f.read()
rng = random.Random(44)
sect = {}
for line in st.check_run(["readelf", "-SW", prog + ".dwp"]).stdout.splitlines():
    parts = line.replace("[ ", "[").split()
    if len(parts) > 6 and parts[1].startswith(".debug"):
        sect[parts[1]] = (int(parts[4], 16), int(parts[5], 16))
idx_off, idx_len = sect[".debug_cu_index"]
info_off, info_len = sect[".debug_info.dwo"]
cases = [("truncated", good[: len(good) // 2])]
bad = bytearray(good)  # every offset of the index's table far out of its section
for k in range(idx_off + 16, idx_off + idx_len):
    bad[k] = 0x7F
cases.append(("index-out-of-range", bytes(bad)))
bad = bytearray(good)  # the slot count: not a power of two, then huge
bad[idx_off + 12: idx_off + 16] = (3).to_bytes(4, "little")
cases.append(("slots-3", bytes(bad)))
bad[idx_off + 12: idx_off + 16] = (0x40000000).to_bytes(4, "little")
cases.append(("slots-huge", bytes(bad)))
for n in range(6):
    bad = bytearray(good)
    for _ in range(40):
        k = info_off + rng.randrange(info_len)
        bad[k] ^= 1 << rng.randrange(8)
    cases.append(("flipped-info-%d" % n, bytes(bad)))
bad = bytearray(good)  # the abbreviations: one byte repeated
a_off, a_len = sect[".debug_abbrev.dwo"]
bad[a_off: a_off + a_len] = b"\x01" * a_len
cases.append(("abbrev-ones", bytes(bad)))
os.makedirs(W("hostile"))
hp = W("hostile", "prog")
shutil.copy(prog, hp)
results = []
for tag, data in cases:
    with open(hp + ".dwp", "wb") as f:
        f.write(data)
    addrs = st.instructions(hp)[::7]
    p = W("hostile-%s.pb.gz" % tag)
    st.profile_for(MK, p, hp, addrs, st.base_for(hp), bid=st.build_id(hp))
    r = st.run([SYM, p, "-o", p + ".sym", "--no-default-dirs", "--no-cache"], timeout=120)
    results.append((tag, r.returncode))
tap.ok(all(rc == 0 for _t, rc in results), "hostile packages symbolize without a crash: %r" % results)


def hostile_unit(dwo_id, n):
    """A split unit (abbreviations, .debug_info.dwo) whose every DIE opens a level that never
    closes (n deep), each inlined subroutine its own abstract origin, the first two each
    other's, over the whole code; the string of the unit's name unterminated at the end."""
    abbrev = bytes([1, 0x11, 1, 0x03, 0x08, 0, 0,
                    2, 0x1D, 1, 0x31, 0x13, 0x11, 0x1B, 0x12, 0x06, 0x58, 0x0B, 0x59, 0x0B, 0, 0,
                    3, 0x2E, 1, 0x31, 0x13, 0x11, 0x1B, 0x12, 0x06, 0, 0, 0])
    le = lambda v, k: v.to_bytes(k, "little")  # noqa: E731
    body = bytearray()
    off = 20  # the unit header's size
    body += bytes([1]) + b"x\0"
    off += 3
    first = off
    body += bytes([3]) + le(first + 10, 4) + bytes([0]) + le(0x100000, 4)  # origin: the next DIE
    off += 10
    for k in range(n):
        origin = first if k == 0 else off  # the first: back to the subprogram; then itself
        body += bytes([2]) + le(origin, 4) + bytes([0]) + le(0x100000, 4) + bytes([1, k & 0x7F])
        off += 12
    unit = le(5, 2) + bytes([5, 8]) + le(0, 4) + le(dwo_id, 8) + bytes(body)
    return abbrev, le(len(unit), 4) + unit


d5 = W("dwo5")
dwo = os.path.join(d5, "prog.dwo")
info = W("prog-info.bin")
st.check_run(["objcopy", "--dump-section", ".debug_info.dwo=" + info, dwo, W("scratch.o")])
with open(info, "rb") as f:
    dwo_id = int.from_bytes(f.read()[12:20], "little")
tap.ok(dwo_id != 0, "the .dwo unit's id: %x" % dwo_id)
abbrev, unit = hostile_unit(dwo_id, 20000)
with open(W("h-abbrev.bin"), "wb") as f:
    f.write(abbrev)
with open(W("h-info.bin"), "wb") as f:
    f.write(unit)
st.check_run(["objcopy", "--update-section", ".debug_abbrev.dwo=" + W("h-abbrev.bin"),
              "--update-section", ".debug_info.dwo=" + W("h-info.bin"), dwo])
import time  # noqa: E402
t0 = time.time()
ours, _, _ = symbolize(os.path.join(d5, "prog"), "hostile-dwo", reference=False)
took = time.time() - t0
deep = max((len(fr) for fr in (ours or {}).values()), default=0)
tap.ok(ours is not None and took < 60 and deep <= 256,
       "a .dwo 20000 levels deep, abstract origins in loops: symbolized in %.1f s, at most %d frames" % (took, deep))


# 150000 functions of one unit all naming one range list of 150000 empty entries: without a
# bound on the entries read per unit, 2.25e10 steps (over a minute)
n = 150000
abbrev = bytes([1, 0x11, 1, 0, 0, 2, 0x1D, 0, 0x55, 0x23, 0, 0, 0])
unit = (5).to_bytes(2, "little") + bytes([5, 8]) + bytes(4)
dwo = os.path.join(d5, "split.dwo")
st.check_run(["objcopy", "--dump-section", ".debug_info.dwo=" + info, dwo, W("scratch.o")])
with open(info, "rb") as f:
    unit += f.read()[12:20]
unit += bytes([1]) + bytes([2, 0]) * n + bytes([0])
lists = (12 + 4 + 3 * n + 1 - 4).to_bytes(4, "little") + (5).to_bytes(2, "little") + bytes([8, 0]) + \
    (1).to_bytes(4, "little") + (4).to_bytes(4, "little") + bytes([4, 0, 0]) * n + bytes([0])
for name, data in (("h2-abbrev.bin", abbrev), ("h2-info.bin", len(unit).to_bytes(4, "little") + unit),
                   ("h2-rng.bin", lists)):
    with open(W(name), "wb") as f:
        f.write(data)
st.check_run(["objcopy", "--update-section", ".debug_abbrev.dwo=" + W("h2-abbrev.bin"), "--update-section",
              ".debug_info.dwo=" + W("h2-info.bin"), "--update-section", ".debug_rnglists.dwo=" + W("h2-rng.bin"), dwo])
t0 = time.time()
ours, _, _ = symbolize(os.path.join(d5, "prog"), "hostile-ranges", reference=False)
took = time.time() - t0
tap.ok(ours is not None and took < 20, "%d functions sharing a range list of %d entries: %.1f s" % (n, n, took))

tap.done()
