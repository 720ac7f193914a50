#!/usr/bin/env python3
"""The places searched without options: /usr/lib/debug (libc's local functions, whose names
only libc6-dbg's debug file has, named as llvm-symbolizer names them, which looks there too)
and the debuginfod client cache ($DEBUGINFOD_CACHE_PATH); --no-default-dirs turns both off;
the report says how each file was found. Folded output spells an address outside every
mapping "[unknown]", as perf does.

usage: test_defaults.py SYMBOLIZE DUMP MKPROFILE CONVERT WORKDIR"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, MK, CONVERT, WORK = sys.argv[1:6]
st.need("gcc", "readelf", "objcopy", "strip", "llvm-symbolizer")
tap = st.Tap()
os.makedirs(WORK, exist_ok=True)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731
# no user cache or XDG dirs of the machine: only what each case sets
ENV = dict(os.environ, HOME=W("home"), XDG_CACHE_HOME="")
ENV.pop("DEBUGINFOD_CACHE_PATH", None)


def symbolize(prof, out, *opts, env=ENV):
    rep = out + ".json"
    r = st.run([SYM, prof, "-o", out, "--report=json", "--report-file", rep] + list(opts), env=env)
    if r.returncode:
        tap.diag("pprof-symbolize exit %d: %s" % (r.returncode, r.stderr))
        return {}, []
    with open(rep) as f:
        report = json.load(f)
    frames, _ = st.frames_by_address(st.dump(DUMP, out))
    return frames, report["mappings"] if isinstance(report, dict) else report


def mapping_report(report):
    return next((m for m in report if m["result"] != "nothing-to-do"), {})


# ---- libc: its local functions are only in /usr/lib/debug's debug file
libc = "/lib/x86_64-linux-gnu/libc.so.6"
bid = st.build_id(libc) if os.path.exists(libc) else ""
dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]) if bid else ""
if not dbg or not os.path.exists(dbg):
    tap.skip("libc's local functions from /usr/lib/debug", "libc6-dbg's debug file for %s is not installed" % libc)
else:
    syms = st.check_run(["readelf", "-sW", dbg]).stdout
    local = sorted({int(f[1], 16) + int(f[2]) // 2 for f in (ln.split() for ln in syms.splitlines())
                    if len(f) >= 8 and f[3] == "FUNC" and f[4] == "LOCAL" and f[2].isdigit() and int(f[2]) > 0})
    prof = W("libc.pb.gz")
    base = st.base_for(libc, True)
    st.profile_for(MK, prof, libc, local, base, bid=bid)
    ours, report = symbolize(prof, W("libc.sym.pb.gz"))
    # llvm-symbolizer given libc names the code by libc's own .dynsym, which has no local
    # symbols (a GCC clone "f.cold" is then "f"): given the debug file, by its .symtab as we do.
    # Its file names join a relative DW_AT_comp_dir twice ("./csu/./csu/init-first.c"): the
    # base names are compared.
    llvm = {a: [(n, os.path.basename(f), ln, c) for (n, f, ln, c) in fr] for a, fr in st.llvm_frames(dbg, local).items()}
    fix = lambda fr: [("??" if n == "" else n, os.path.basename(f), ln, c) for (n, f, ln, c) in fr]  # noqa: E731
    same = [a for a in local if fix(st.ours_as_llvm(ours.get(base + a, []))) == llvm[a]]
    for a in [a for a in local if a not in set(same)][:6]:
        tap.diag("0x%x ours   %s" % (a, fix(st.ours_as_llvm(ours.get(base + a, [])))), "0x%x theirs %s" % (a, llvm[a]))
    tap.ok(len(local) > 100 and len(same) >= 0.99 * len(local),
           "libc, no option: %d of %d local functions as llvm-symbolizer names them" % (len(same), len(local)))
    m = mapping_report(report)
    tap.ok(m.get("debug_file", "").startswith("/usr/lib/debug/.build-id/") and m.get("debug_found_by") == "build-id",
           "the report names the debug file and how it was found: %s (by %s)" % (m.get("debug_file"), m.get("debug_found_by")))
    off, report = symbolize(prof, W("libc.off.pb.gz"), "--no-default-dirs")
    named = [a for a in local if off.get(base + a) and off[base + a][-1][0] == (ours.get(base + a) or [("",)])[-1][0]]
    tap.ok(not mapping_report(report).get("debug_file") and len(named) < 0.5 * len(local),
           "--no-default-dirs: /usr/lib/debug is not read (%d of %d still named, from .dynsym)" % (len(named), len(local)))
    _, report = symbolize(prof, W("libc.dir.pb.gz"), "--no-default-dirs", "--debug-dir", "/usr/lib/debug")
    tap.ok(mapping_report(report).get("debug_file", "").startswith("/usr/lib/debug/"),
           "--no-default-dirs with --debug-dir /usr/lib/debug reads it again")

# ---- the debuginfod client cache: CACHE/<build-id>/debuginfo for a stripped program
prog = W("prog")
st.check_run(["gcc", "-O2", "-g", "-o", prog, "-x", "c", "-", "-Wl,--build-id"],
             input="static int __attribute__((noinline)) local_fn(int x) { return x * 3 + 1; }\n"
                   "int main(int c, char **v) { (void)v; return local_fn(c); }\n")
pid = st.build_id(prog)
cache = W("cache")
os.makedirs(os.path.join(cache, pid), exist_ok=True)
st.check_run(["objcopy", "--only-keep-debug", prog, os.path.join(cache, pid, "debuginfo")])
st.check_run(["strip", "-s", prog])
syms = st.check_run(["readelf", "-sW", os.path.join(cache, pid, "debuginfo")]).stdout
addr = next(int(f[1], 16) for f in (ln.split() for ln in syms.splitlines()) if len(f) >= 8 and f[7] == "local_fn")
pprof_ = W("cache.pb.gz")
pbase = st.base_for(prog)
st.profile_for(MK, pprof_, prog, [addr], pbase, bid=pid)
env = dict(ENV, DEBUGINFOD_CACHE_PATH=cache)
fr, report = symbolize(pprof_, W("cache.sym.pb.gz"), env=env)
m = mapping_report(report)
tap.ok((fr.get(pbase + addr) or [("",)])[-1][0] == "local_fn" and m.get("debug_found_by") == "debuginfod-cache",
       "$DEBUGINFOD_CACHE_PATH, no option: local_fn named, debug file by %s" % m.get("debug_found_by"))
fr, report = symbolize(pprof_, W("cache.off.pb.gz"), "--no-default-dirs", env=env)
tap.ok((fr.get(pbase + addr) or [("",)])[-1][0] != "local_fn" and not mapping_report(report).get("debug_file"),
       "--no-default-dirs: the debuginfod cache is not read")

# ---- folded: outside every mapping "[unknown]", inside one the address
folded = W("unmapped.pb.gz")
st.write_profile(MK, folded, ["map 400000 401000 0 /nonexistent/prog", "addr 400123", "addr 1e00000000"])
r = st.run([CONVERT, folded, "--to=folded", "-o", "-"])
lines = sorted(r.stdout.split())
tap.ok(r.returncode == 0 and "[unknown]" in lines and "0x400123" in lines and not any("1e00000000" in x for x in lines),
       "folded: an address outside every mapping is [unknown], one inside it 0xADDRESS (%s)" % " ".join(lines))
tap.done()
