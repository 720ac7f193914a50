#!/usr/bin/env python3
"""pprof-symbolize on C and C++ programs the test compiles itself (-O2 -g: inlining, templates,
a shared library, PIE and non-PIE, DWARF 4 and 5, compressed sections), compared frame by frame
with llvm-symbolizer --inlines and addr2line -f -i -C; separate debug files, build-ID
directories, a stripped library with only .dynsym, a wrong build ID, kernel mappings, kept and
forced locations, and profiles symbolized apart then merged (pprof-check S1).

usage: test_native.py SYMBOLIZE DUMP MKPROFILE CHECK MERGE WORKDIR TOP EDIT FLAME"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, MK, CHECK, MERGE, WORK, TOP, EDIT, FLAME = sys.argv[1:10]
SRC = os.path.dirname(os.path.abspath(__file__))
st.need("gcc", "g++", "objdump", "readelf", "objcopy", "strip", "llvm-symbolizer", "addr2line")
tap = st.Tap()
os.makedirs(WORK, exist_ok=True)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731


def build(extra=""):
    """The library and both executables with the given extra flags, in WORK/<tag>."""
    tag = extra.replace(" ", "").replace("-", "") or "plain"
    d = W(tag)
    os.makedirs(d, exist_ok=True)
    ex = extra.split()
    st.check_run(["g++", "-O2", "-g"] + ex + ["-fPIC", "-shared", "-o", os.path.join(d, "libszlib.so"), os.path.join(SRC, "lib.cc")])
    st.check_run(["gcc", "-O2", "-g"] + ex + ["-fPIE", "-pie", "-o", os.path.join(d, "prog-pie"), os.path.join(SRC, "prog.c"),
                  "-L" + d, "-lszlib", "-Wl,--build-id"])
    st.check_run(["gcc", "-O2", "-g"] + ex + ["-fno-pie", "-no-pie", "-o", os.path.join(d, "prog-nopie"), os.path.join(SRC, "prog.c"),
                  "-L" + d, "-lszlib", "-Wl,--build-id"])
    return d


def symbolize(prof, out, *opts, expect_rc=0):
    rep = out + ".json"
    r = st.run([SYM, prof, "-o", out, "--report=json", "--report-file", rep] + list(opts))
    if r.returncode != expect_rc:
        tap.diag("pprof-symbolize exit %d: %s" % (r.returncode, r.stderr))
        return None, None
    import json
    with open(rep) as f:
        report = json.load(f)
    return st.frames_by_address(st.dump(DUMP, out)), report


def strip_clone(name):
    """GCC's clone suffixes, as a symbol (.cold, .part.0) or as libiberty demangles them."""
    name = re.sub(r"( \[clone \.[\w.]+\])+$", "", name)
    return re.sub(r"(\.(cold|part|isra|constprop|lto_priv)(\.\d+)?)+$", "", name)


def llvm_dialect(name):
    """libiberty's spelling of what LLVM's demangler spells its own way."""
    name = re.sub(r"\{lambda\(([^{}]*)\)#1\}", r"'lambda'(\1)", name)
    name = re.sub(r"\{lambda\(([^{}]*)\)#(\d+)\}", lambda m: "'lambda%d'(%s)" % (int(m.group(2)) - 2, m.group(1)), name)
    name = re.sub(r"\{unnamed type#(\d+)\}", r"'unnamed\1'", name)
    return re.sub(r" \[clone (\.[\w.]+)\]", r" (\1)", name)


def share_same(tag, addrs, ours_of, theirs_of, show=8):
    same = [a for a in addrs if ours_of(a) == theirs_of(a)]
    bad = [a for a in addrs if a not in set(same)]
    for a in bad[:show]:
        tap.diag("%s 0x%x ours   %s" % (tag, a, ours_of(a)), "%s 0x%x theirs %s" % (tag, a, theirs_of(a)))
    return len(same), len(addrs)


def compare(path, shared, label, limit=4000):
    """Symbolizes the instructions of path; checks the frames against llvm-symbolizer
    --inlines (mangled names: the symbolization itself; demangled: the two demanglers' dialects
    aside) and addr2line -f -i -C (same demangler; GCC clones named as DWARF names them)."""
    base = st.base_for(path, shared)
    addrs = st.instructions(path, limit)
    prof = W(label + ".pb.gz")
    st.profile_for(MK, prof, path, addrs, base)
    (raw, _), _ = symbolize(prof, W(label + ".raw.pb.gz"), "--demangle=none")
    (ours, maps), report = symbolize(prof, W(label + ".sym.pb.gz"))
    llvm_raw = st.llvm_frames(path, addrs, demangle=False)
    fix = lambda fr: [("??" if n == "" else n, f, l, c) for (n, f, l, c) in fr]  # noqa: E731
    n, tot = share_same(label + " mangled", addrs, lambda a: fix(st.ours_as_llvm(raw.get(base + a, []))),
                        lambda a: llvm_raw[a])
    tap.ok(n / tot >= 0.999, "%s: %d of %d addresses have llvm-symbolizer --inlines' frames, mangled (%.2f %%)"
           % (label, n, tot, 100.0 * n / tot))
    llvm = st.llvm_frames(path, addrs)
    def dialect(a):
        # LLVM 14 leaves some names it cannot demangle mangled: those compare mangled
        fr = fix(st.ours_as_llvm(ours.get(base + a, [])))
        mangled = fix(st.ours_as_llvm(raw.get(base + a, [])))
        theirs = llvm[a]
        return [(mangled[i][0] if i < len(theirs) and theirs[i][0].startswith("_Z") else llvm_dialect(x), f, l, c)
                for i, (x, f, l, c) in enumerate(fr)]
    n, tot = share_same(label + " demangled", addrs, dialect, lambda a: llvm[a])
    tap.ok(n / tot >= 0.999, "%s: %d of %d addresses have llvm-symbolizer --inlines' frames, demangled (%.2f %%)"
           % (label, n, tot, 100.0 * n / tot))
    a2l = st.addr2line_frames(path, addrs)

    # addr2line reads no symbol table and names a function for padding past its end: only
    # addresses that it and llvm-symbolizer both place in a source line are compared, by file
    # base name (it prints the line table's spelling)
    # ... and for functions of GCC clones (.constprop) it names the caller's file for the
    # callee's line, where llvm-symbolizer and we name the callee's: names and lines compared
    def norm(fr):
        fr = [(n, l) for (n, f, l) in fr]
        return fr[:-1] + [(strip_clone(fr[-1][0]),) + fr[-1][1:]] if fr else fr
    # addr2line also names the inline levels inside GCC clones (.constprop, .part) one level
    # off, and sometimes drops them: addresses in clones are left to llvm-symbolizer
    def in_clone(a):
        fr = raw.get(base + a, [])
        return bool(fr) and strip_clone(fr[-1][0]) != fr[-1][0]
    # addr2line names inline levels one level off in out-of-line copies (.constprop clones,
    # std::__introsort_loop) where llvm-symbolizer agrees with us: names are compared at
    # addresses without inlining, line numbers at all
    known = [a for a in addrs if a2l.get(a) and llvm[a] and llvm[a][0][2] > 0 and llvm[a][0][0] != "??"
             and not in_clone(a)]
    lines_same = [a for a in known if [x[2] for x in a2l[a]] == [x[3] for x in ours.get(base + a, [])]]
    tap.ok(len(lines_same) >= 0.9 * len(known), "%s: %d of %d addresses have addr2line -i's line numbers"
           % (label, len(lines_same), len(known)))
    known = [a for a in known if len(a2l[a]) == 1]
    n, tot = share_same(label + " addr2line", known, lambda a: norm(st.ours_as_addr2line(ours.get(base + a, []))),
                        lambda a: norm(a2l[a]), show=5)
    tap.ok(n / tot >= 0.999, "%s: %d of %d addresses have addr2line -f -i -C's frames" % (label, n, tot))
    m = list(maps.values())[0]
    tap.ok(m["has_functions"] and m["has_filenames"] and m["has_line_numbers"] and m["has_inline_frames"] or
           report["unresolved"] > 0, label + ": mapping flags set after a complete symbolization")
    return ours, addrs, base


plain = build()
tap.diag("programs in " + plain)
results = {}
for name, shared in (("prog-nopie", False), ("prog-pie", False), ("libszlib.so", True)):
    results[name] = compare(os.path.join(plain, name), shared, name)

# inline chains really are there: some address of the PIE has three levels
pie_frames = results["prog-pie"][0]
tap.ok(any([f[0] for f in fr] == ["square", "sum_squares", "compute"] for fr in pie_frames.values()),
       "an address in square() inlined into sum_squares() inlined into compute() has all three frames")
tap.ok(any(fr and fr[0][0] == "sz::Acc<int>::add(int)" for fr in results["libszlib.so"][0].values()),
       "C++ template member demangled: sz::Acc<int>::add(int)")
tap.ok(all(fr[0][5] > 0 for fr in pie_frames.values() if fr and fr[0][0] and fr[0][2].endswith("prog.c")),
       "every frame of prog.c has its function's start line")

# an assembly label (STT_NOTYPE, no DWARF) names its code, as in llvm-symbolizer
lab = [int(l.split()[1], 16) for l in st.check_run(["readelf", "-sW", os.path.join(plain, "prog-pie")]).stdout.splitlines()
       if l.split()[-1:] == ["sz_asm_label"] and "NOTYPE" in l]
tap.ok(len(lab) == 1 and [f[0] for f in pie_frames.get(0x555555554000 + lab[0] + 1, [])] == ["sz_asm_label"]
       and st.llvm_frames(os.path.join(plain, "prog-pie"), [lab[0] + 1])[lab[0] + 1][0][0] == "sz_asm_label",
       "code at an assembly label (STT_NOTYPE) is named by the label, as llvm-symbolizer names it")

for extra, label in (("-gdwarf-4", "dwarf4"), ("-gz", "compressed debug sections")):
    d = build(extra)
    compare(os.path.join(d, "prog-pie"), False, "prog-pie " + label, limit=1500)

# ---- separate debug files
pie = os.path.join(plain, "prog-pie")
bid = st.build_id(pie)
addrs = st.instructions(pie, 800)
base = st.base_for(pie)
ref = results["prog-pie"][0]
want = {base + a: ref[base + a] for a in addrs}


def same_as_ref(label, prof_out, *opts, file=None):
    got, report = symbolize(prof_out, prof_out + ".sym", *opts)
    if got is None:
        return tap.ok(False, label), None
    frames, _ = got
    return tap.ok({a: frames.get(a) for a in want} == want, label), report


dl = W("debuglink")
os.makedirs(dl, exist_ok=True)
st.check_run(["objcopy", "--only-keep-debug", pie, os.path.join(dl, "prog-pie.debug")])
st.check_run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + os.path.join(dl, "prog-pie.debug"), pie, os.path.join(dl, "prog-pie")])
p = W("debuglink.pb.gz")
st.profile_for(MK, p, os.path.join(dl, "prog-pie"), addrs, base, bid=bid)
ok, report = same_as_ref("separate debug file through .gnu_debuglink: the same frames", p)
tap.ok(report is not None and report["mappings"][0]["debug_file"].endswith("prog-pie.debug"),
       ".gnu_debuglink: the report names the debug file")

bd = W("buildid-dir")
os.makedirs(os.path.join(bd, ".build-id", bid[:2]), exist_ok=True)
shutil.copy(os.path.join(dl, "prog-pie.debug"), os.path.join(bd, ".build-id", bid[:2], bid[2:] + ".debug"))
st.check_run(["objcopy", "--strip-debug", pie, W("prog-pie-nolink")])
p = W("buildid.pb.gz")
st.profile_for(MK, p, W("prog-pie-nolink"), addrs, base, bid=bid)
ok, report = same_as_ref("build-ID directory: the same frames", p, "--debug-dir", bd)
tap.ok(report is not None and report["mappings"][0]["debug_file"].startswith(bd), "build-ID directory: the debug file found by build ID")
p = W("buildid-only.pb.gz")
st.profile_for(MK, p, W("prog-pie-nolink"), addrs, base, name="/gone/prog-pie", bid=bid)
ok, report = same_as_ref("build-ID directory without the executable: the same frames", p, "--debug-dir", bd)
tap.ok(report is not None and report["mappings"][0]["found_by"] == "build-id" and "guessed" in report["mappings"][0]["reason"],
       "build-ID directory without the executable: found by build ID, segment offsets said to be guessed")

cache = W("debuginfod")
os.makedirs(os.path.join(cache, bid), exist_ok=True)
shutil.copy(os.path.join(dl, "prog-pie.debug"), os.path.join(cache, bid, "debuginfo"))
p = W("cache.pb.gz")
st.profile_for(MK, p, pie, addrs, base, name="/nonexistent/prog-pie", bid=bid)
r = st.run([SYM, p, "-o", p + ".sym", "--report=json"], env=dict(os.environ, DEBUGINFOD_CACHE_PATH=cache, DEBUGINFOD_URLS="http://192.0.2.1/"))
tap.ok(r.returncode == 0 and '"found_by":"debuginfod-cache"' in r.stderr, "debuginfod client cache: found there, no server asked")

p = W("binary.pb.gz")
st.profile_for(MK, p, pie, addrs, base, name="/elsewhere/prog-pie", bid=bid)
same_as_ref("--binary: the same frames", p, "--binary", pie)

# ---- wrong build ID: reported, the file not used, exit 0 (1 with --strict)
p = W("wrongid.pb.gz")
st.profile_for(MK, p, pie, addrs[:20], base, bid="00" * 20)
got, report = symbolize(p, W("wrongid.sym"))
m = report["mappings"][0] if report else {}
tap.ok(m.get("result") == "build-id-mismatch" and m.get("resolved") == 0 and m.get("addresses") == 20,
       "wrong build ID: build-id-mismatch, no address resolved")
tap.ok(got is not None and all(not fr for fr in got[0].values()), "wrong build ID: the locations are left as they were")
r = st.run([SYM, p, "-o", W("wrongid.strict"), "--strict"])
tap.ok(r.returncode == 1 and "unresolved" in r.stderr, "--strict: unresolved addresses exit 1")

# ---- stripped library: only .dynsym
lib = os.path.join(plain, "libszlib.so")
st.check_run(["strip", "--strip-all", lib, "-o", W("libszlib-stripped.so")])
laddrs = st.instructions(lib, 2000)
lbase = st.base_for(lib, True)
p = W("dynsym.pb.gz")
st.profile_for(MK, p, W("libszlib-stripped.so"), laddrs, lbase)
got, report = symbolize(p, W("dynsym.sym"))
names = {fr[0][0] for fr in got[0].values() if fr} if got else set()
m = list(got[1].values())[0] if got else {}
tap.ok("lib_work" in names and all(len(fr) <= 1 for fr in got[0].values()),
       "only .dynsym: exported functions named, one frame each")
tap.ok(got is not None and all(fr[0][2] == "" and fr[0][3] == 0 for fr in got[0].values() if fr),
       "only .dynsym: no file names or lines made up")
tap.ok(not m.get("has_filenames") and not m.get("has_line_numbers") and not m.get("has_inline_frames"),
       "only .dynsym: the mapping says it has no file names, lines or inline frames")
tap.ok(report is not None and report["mappings"][0]["dwarf"] is False, "only .dynsym: the report says so")

# ---- kernel and pseudo mappings
p = W("kernel.pb.gz")
st.write_profile(MK, p, ["map ffffffff81000000 ffffffff82000000 0 [kernel.kallsyms]", "addr ffffffff81001234",
                         "map 7ffff7fc1000 7ffff7fc3000 0 [vdso]", "addr 7ffff7fc1100"])
got, report = symbolize(p, W("kernel.sym"))
tap.ok(report is not None and [m["result"] for m in report["mappings"]] == ["not-symbolizable"] * 2,
       "kernel and [vdso] mappings: not symbolizable")

# ---- kept and forced
p = W("kept.pb.gz")
maps = st.mapping_specs(pie, base)
a0, a1 = addrs[100], addrs[101]
st.write_profile(MK, p, maps + ["line %x already_there" % (base + a0), "addr %x" % (base + a1)])
got, report = symbolize(p, W("kept.sym"))
tap.ok(got is not None and got[0][base + a0][0][0] == "already_there" and got[0][base + a1] == ref[base + a1]
       and report["mappings"][0]["kept"] == 1, "a location with lines is kept; the others are symbolized")
got, report = symbolize(p, W("forced.sym"), "--force")
tap.ok(got is not None and got[0][base + a0] == ref[base + a0], "--force: the location's lines are replaced")

# ---- demangling
p = W("mangled.pb.gz")
st.profile_for(MK, p, lib, laddrs, lbase)
got, _ = symbolize(p, W("mangled.sym"), "--demangle=none")
llvm_raw = st.llvm_frames(lib, laddrs, demangle=False)
tap.ok(got is not None and all([f[0] or "??" for f in got[0].get(lbase + a, [])] == [f[0] for f in llvm_raw[a]] for a in laddrs),
       "--demangle=none: names as llvm-symbolizer --no-demangle gives them")
ok_sys = got is not None and any(f[0].startswith("_ZN") for fr in got[0].values() for f in fr)
full = results["libszlib.so"][0]
tap.ok(ok_sys and all(f[1].startswith("_Z") for fr in full.values() for f in fr if f[0] != f[1] and "(" in f[0]),
       "demangled names keep the mangled one in system_name")

# ---- consistency: symbolized apart, merged, checked
half = len(addrs) // 2
p1, p2 = W("part1.pb.gz"), W("part2.pb.gz")
st.profile_for(MK, p1, pie, addrs[: half + 50], base)
st.profile_for(MK, p2, pie, addrs[half - 50:], base)
st.check_run([SYM, p1, "-o", p1 + ".sym"])
st.check_run([SYM, p2, "-o", p2 + ".sym"])
r = st.run([MERGE, p1 + ".sym", p2 + ".sym", "-o", W("merged.pb.gz")])
tap.ok(r.returncode == 0, "profiles symbolized apart merge")
r = st.run([CHECK, W("merged.pb.gz")])
tap.ok(r.returncode == 0 and "S1" not in r.stdout, "the merged profile passes pprof-check (no S1 finding)")
if r.returncode != 0:
    tap.diag(r.stdout[:2000], r.stderr[:2000])
r = st.run([CHECK, p1 + ".sym"])
tap.ok(r.returncode == 0, "a symbolized profile passes pprof-check")

# ---- --symbolize on the other tools: the same frames as pprof-symbolize's output
r = st.run([MERGE, "--symbolize", p1, p2, "-o", W("merged-sym.pb.gz")])
r2 = st.run([DUMP, "--json", W("merged-sym.pb.gz")])
tap.ok(r.returncode == 0 and st.dump(DUMP, W("merged-sym.pb.gz")) == st.dump(DUMP, W("merged.pb.gz")),
       "pprof-merge --symbolize: the merge of the inputs symbolized one by one")
r = st.run([TOP, "--symbolize", p1])
r2 = st.run([TOP, p1 + ".sym"])
tap.ok(r.returncode == 0 and r.stdout == r2.stdout and " main" in r.stdout, "pprof-top --symbolize: the report of the symbolized profile")
r = st.run([EDIT, "--symbolize", p1, "--focus", "fib", "-o", W("edited.pb.gz")])
r2 = st.run([EDIT, p1 + ".sym", "--focus", "fib", "-o", W("edited2.pb.gz")])
tap.ok(r.returncode == 0 and r2.returncode == 0 and st.dump(DUMP, W("edited.pb.gz")) == st.dump(DUMP, W("edited2.pb.gz")),
       "pprof-edit --symbolize: the edit of the symbolized profile")
r = st.run([FLAME, "--symbolize", p1, "--format=json"])
r2 = st.run([FLAME, p1 + ".sym", "--format=json"])
r3 = st.run([FLAME, p1, "--format=json"])
tap.ok(r.returncode == 0 and r.stdout == r2.stdout and r.stdout != r3.stdout and '"fib' in r.stdout,
       "pprof-flame --symbolize: the flame graph of the symbolized profile")
r = st.run([FLAME, "--symbolize", "--demangle=bogus", p1, "--format=json"])
tap.ok(r.returncode == 2 and "--demangle" in r.stderr, "pprof-flame --demangle=bogus is a usage error")
r = st.run([FLAME, "--symbolize", "--debug-dir", W("nonexistent"), W("wrongid.pb.gz"), "-o", W("wrongid.html")])
tap.ok(r.returncode == 0 and "build-id-mismatch" in r.stderr, "pprof-flame --symbolize says which mapping was not symbolized, and why")
r = st.run([TOP, "--symbolize", "--debug-dir", W("nonexistent"), W("wrongid.pb.gz")])
tap.ok(r.returncode == 0 and "build-id-mismatch" in r.stderr, "--symbolize says which mapping could not be symbolized, and why")
tap.done()
