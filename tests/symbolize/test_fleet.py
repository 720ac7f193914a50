#!/usr/bin/env python3
"""What distributions ship: a stripped C++ program whose local functions are only in its
MiniDebugInfo (.gnu_debugdata, made as Fedora's find-debuginfo makes it), every instruction of
its functions named by the enclosing symbol; a corrupt .gnu_debugdata is only ignored. OTLP in,
OTLP out: the same frames as the pprof path; a mapping found by the build ID the OpenTelemetry
eBPF profiler writes (process.executable.build_id.gnu).

usage: test_fleet.py SYMBOLIZE DUMP MKPROFILE WORKDIR CONVERT"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, MK, WORK, CONVERT = sys.argv[1:6]
SRC = os.path.dirname(os.path.abspath(__file__))
st.need("gcc", "g++", "objdump", "readelf", "objcopy", "strip", "nm", "xz")
tap = st.Tap()
os.makedirs(WORK, exist_ok=True)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731
ENV = dict(os.environ, HOME=W("home"), XDG_CACHE_HOME="")
ENV.pop("DEBUGINFOD_CACHE_PATH", None)


def func_symbols(path):
    """Sized function symbols of .symtab: [(lo, hi, name)]."""
    out = st.check_run(["readelf", "-sW", path]).stdout
    res = []
    for ln in out.splitlines():
        f = ln.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[2].isdigit() and int(f[2]) > 0 and int(f[1], 16):
            res.append((int(f[1], 16), int(f[1], 16) + int(f[2]), f[7].split("@")[0]))
    return sorted(set(res))


def symbolize(prof, out, *opts):
    r = st.run([SYM, prof, "-o", out, "--demangle=none", "--no-default-dirs"] + list(opts), env=ENV)
    if r.returncode:
        tap.diag("pprof-symbolize exit %d: %s" % (r.returncode, r.stderr))
        return {}
    return st.frames_by_address(st.dump(DUMP, out))[0]


def minidebuginfo(binary, out):
    """Fedora's recipe: the function symbols .dynsym lacks, kept in an xz-compressed copy of
    the debug file with no DWARF, added as .gnu_debugdata to the stripped binary."""
    dyn = set(st.check_run(["nm", "-D", "--format=posix", "--defined-only", binary]).stdout.split("\n"))
    dyn = {ln.split()[0] for ln in dyn if ln.strip()}
    funcs = {ln.split()[0] for ln in st.check_run(["nm", "--format=posix", "--defined-only", binary]).stdout.splitlines()
             if len(ln.split()) > 1 and ln.split()[1] in ("T", "t")}
    keep = W("keep_symbols")
    with open(keep, "w") as f:
        f.write("\n".join(sorted(funcs - dyn)) + "\n")
    dbg, mini = W("debuginfo"), W("mini_debuginfo")
    st.check_run(["objcopy", "--only-keep-debug", binary, dbg])
    st.check_run(["objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section", ".comment",
                  "--keep-symbols=" + keep, dbg, mini])
    if os.path.exists(mini + ".xz"):
        os.unlink(mini + ".xz")
    st.check_run(["xz", "--keep", mini])
    st.check_run(["strip", "--strip-all", "-R", ".comment", binary, "-o", out])
    st.check_run(["objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", out])
    return mini + ".xz", funcs - dyn


# ---- MiniDebugInfo
full = W("mdi-full")
st.check_run(["g++", "-O2", "-g", "-c", os.path.join(SRC, "lib.cc"), "-o", W("lib.o")])
st.check_run(["gcc", "-O2", "-g", "-c", os.path.join(SRC, "prog.c"), "-o", W("prog.o")])
st.check_run(["g++", "-O2", "-o", full, W("prog.o"), W("lib.o"), "-Wl,--build-id"])
prog = W("mdi")
xz, kept = minidebuginfo(full, prog)
secs = st.check_run(["readelf", "-SW", prog]).stdout
tap.ok(".gnu_debugdata" in secs and ".symtab" not in secs and ".debug_info" not in secs,
       "the program has .gnu_debugdata and neither .symtab nor DWARF")
# the functions the recipe keeps (T and t; weak ones, W, are neither kept nor in an
# executable's .dynsym: no reader can name those), and those of .dynsym
dyn = {ln.split()[0] for ln in st.check_run(["nm", "-D", "--format=posix", "--defined-only", prog]).stdout.splitlines()
       if ln.strip()}
syms = func_symbols(full)
addrs = []
want = {}
for a in st.instructions(full):
    enclosing = [s for s in syms if s[0] <= a < s[1]]
    if enclosing and (enclosing[-1][2] in kept or enclosing[-1][2] in dyn):
        addrs.append(a)
        want[a] = enclosing[-1][2]
base = st.base_for(prog)
prof = W("mdi.pb.gz")
st.profile_for(MK, prof, prog, addrs, base, bid=st.build_id(prog))
ours = symbolize(prof, W("mdi.sym.pb.gz"))
name = lambda a: (ours.get(base + a) or [("",)])[-1][0]  # noqa: E731
same = [a for a in addrs if name(a) == want[a]]
for a in [a for a in addrs if a not in set(same)][:6]:
    tap.diag("0x%x ours %r, enclosing symbol %r" % (a, name(a), want[a]))
local = [a for a in addrs if want[a] in ("fib", "_ZN2sz12_GLOBAL__N_110sorted_sumESt6vectorIiSaIiEE")]
tap.ok(len(addrs) > 100 and len(same) >= 0.999 * len(addrs) and local and all(a in same for a in local),
       "MiniDebugInfo: %d of %d function instructions named by the enclosing symbol (local ones: %d)"
       % (len(same), len(addrs), len(local)))

# a corrupt or truncated .gnu_debugdata: .dynsym's names only, no failure
with open(xz, "rb") as f:
    data = f.read()
for tag, bad in (("truncated", data[: len(data) // 2]), ("corrupt", data[:32] + bytes(b ^ 0x5A for b in data[32:])),
                 ("not-xz", b"\x7fELF" + data[4:])):
    with open(W(tag + ".xz"), "wb") as f:
        f.write(bad)
    out = W("mdi-" + tag)
    st.check_run(["strip", "--strip-all", "-R", ".comment", full, "-o", out])
    st.check_run(["objcopy", "--add-section", ".gnu_debugdata=" + W(tag + ".xz"), out])
    p = W(tag + ".pb.gz")
    st.profile_for(MK, p, out, addrs, base, bid=st.build_id(out))
    r = subprocess.run([SYM, p, "-o", W(tag + ".sym.pb.gz"), "--no-default-dirs"], capture_output=True, text=True,
                       env=ENV, timeout=120)
    fr = st.frames_by_address(st.dump(DUMP, W(tag + ".sym.pb.gz")))[0] if r.returncode == 0 else {}
    tap.ok(r.returncode == 0 and not any((fr.get(base + a) or [("",)])[-1][0] == "fib" for a in local),
           "a %s .gnu_debugdata is ignored (exit %d)" % (tag, r.returncode))

# ---- .dwp: read (test_dwp.py compares every address); the report says where it was found
if shutil.which("clang") and shutil.which("llvm-dwp"):
    sd = W("split")
    st.check_run(["clang", "-O2", "-g", "-gsplit-dwarf", "-gdwarf-5", "-o", sd, "-x", "c", "-", "-Wl,--build-id"],
                 input="__attribute__((noinline)) int f(int n) { return n * 3; }\n"
                       "int main(int c, char **v) { (void)v; return f(c); }\n", cwd=WORK)
    st.check_run(["llvm-dwp", "-e", sd, "-o", sd + ".dwp"], cwd=WORK)
    for f in os.listdir(WORK):
        if f.endswith(".dwo"):
            os.unlink(W(f))
    sp = W("split.pb.gz")
    st.profile_for(MK, sp, sd, st.instructions(sd), st.base_for(sd), bid=st.build_id(sd))
    r = st.run([SYM, sp, "-o", W("split.sym.pb.gz"), "--no-default-dirs"], env=ENV)
    fr = st.frames_by_address(st.dump(DUMP, W("split.sym.pb.gz")))[0] if r.returncode == 0 else {}
    tap.ok(r.returncode == 0 and "split.dwp (found beside-binary)" in r.stderr and
           any(f and f[0][0] == "f" and f[0][3] > 0 for f in fr.values()),
           "a NAME.dwp beside the binary: read, and the report says where it was found")
else:
    tap.skip("a NAME.dwp beside the binary", "clang or llvm-dwp missing")

# ---- OTLP in, OTLP out
otlp = W("mdi.otlp")
st.check_run([CONVERT, prof, "--to=otlp", "-o", otlp])
r = st.run([SYM, otlp, "-o", W("mdi.sym.otlp"), "--demangle=none", "--no-default-dirs"], env=ENV)
back = W("mdi.back.pb.gz")
r2 = st.run([CONVERT, W("mdi.sym.otlp"), "--from=otlp", "-o", back])
with open(W("mdi.sym.otlp"), "rb") as f:
    head = f.read(2)
fr = st.frames_by_address(st.dump(DUMP, back))[0] if r.returncode == 0 and r2.returncode == 0 else {}
key = lambda fr: [(n, f, ln) for (n, _s, f, ln, _c, _st) in fr]  # noqa: E731
tap.ok(r.returncode == 0 and head != b"\x1f\x8b" and fr and all(key(fr.get(base + a, [])) == key(ours.get(base + a, [])) for a in addrs),
       "OTLP in, OTLP out: the frames of the pprof path at all %d addresses" % len(addrs))
protoc = shutil.which("protoc")
proto = os.path.join(os.environ.get("PPROF_SOURCE_ROOT", ""), "tests", "otlp", "proto")
if not protoc or not os.path.isdir(proto):
    tap.skip("OTLP: a mapping by process.executable.build_id.gnu", "protoc or tests/otlp/proto missing")
else:
    # as the eBPF profiler writes it: the build ID under the semantic conventions' key, the
    # mapping's path one that is not on this machine; the file is found by build ID only
    msg = "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest"
    files = [os.path.relpath(os.path.join(dp, f), proto) for dp, _d, fs in os.walk(proto) for f in fs if f.endswith(".proto")]
    with open(otlp, "rb") as f:
        text = subprocess.run([protoc, "-I", proto, "--decode=" + msg] + files, input=f.read(), capture_output=True,
                              check=True).stdout.decode()
    text = text.replace('"pprof.build_id"', '"process.executable.build_id.gnu"').replace('"%s"' % prog, '"/nonexistent/mdi"')
    enc = subprocess.run([protoc, "-I", proto, "--encode=" + msg] + files, input=text.encode(), capture_output=True, check=True).stdout
    ebpf = W("ebpf.otlp")
    with open(ebpf, "wb") as f:
        f.write(enc)
    pid = st.build_id(prog)
    os.makedirs(W("bid", ".build-id", pid[:2]), exist_ok=True)
    link = W("bid", ".build-id", pid[:2], pid[2:])
    if not os.path.lexists(link):
        os.symlink(prog, link)
    r = st.run([SYM, ebpf, "-o", W("ebpf.sym.otlp"), "--demangle=none", "--no-default-dirs", "--debug-dir", W("bid")], env=ENV)
    r2 = st.run([CONVERT, W("ebpf.sym.otlp"), "--from=otlp", "-o", W("ebpf.back.pb.gz")])
    fr = st.frames_by_address(st.dump(DUMP, W("ebpf.back.pb.gz")))[0] if r.returncode == 0 and r2.returncode == 0 else {}
    n = sum(1 for a in addrs if fr.get(base + a) and key(fr[base + a]) == key(ours.get(base + a, [])))
    tap.ok(n == len(addrs), "OTLP with process.executable.build_id.gnu: found by build ID, %d of %d addresses" % (n, len(addrs)))
    if r.stderr:
        tap.diag(r.stderr[:600])
tap.done()
