#!/usr/bin/env python3
"""The address index cache of pprof-symbolize: a repeat run answers from the index the first
run wrote and gives the same frames; an index that is corrupt, truncated, of another version,
too large in its counts, not the user's own, a symlink or a directory is ignored (frames from
DWARF, exit 0) and replaced by a good one; --no-cache neither reads nor writes; the default
directory is $XDG_CACHE_HOME/libpprof; a cache directory that cannot be written costs nothing
but the speed; an interrupted run's stale temporary file is cleaned up.

usage: test_cache.py SYMBOLIZE DUMP MKPROFILE WORKDIR"""
import os
import shutil
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symtest as st  # noqa: E402

SYM, DUMP, MK, WORK = sys.argv[1:5]
SRC = os.path.dirname(os.path.abspath(__file__))
st.need("gcc", "g++", "objdump", "readelf", "objcopy")
tap = st.Tap()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
W = lambda *p: os.path.join(WORK, *p)  # noqa: E731
ENV = dict(os.environ, XDG_CACHE_HOME=W("xdg"), HOME=W("home"))

st.check_run(["g++", "-O2", "-g", "-fPIC", "-shared", "-o", W("libszlib.so"), os.path.join(SRC, "lib.cc")])
exe = W("prog")
st.check_run(["gcc", "-O2", "-g", "-fPIE", "-pie", "-o", exe, os.path.join(SRC, "prog.c"), "-L" + WORK, "-lszlib",
              "-Wl,--build-id"])
bid = st.build_id(exe)
base = st.base_for(exe)
addrs = st.instructions(exe, 3000)
prof = W("prof.pb.gz")
st.profile_for(MK, prof, exe, addrs, base, bid=bid)
# a second profile: half the addresses again, half new ones (instructions in between)
more = sorted(set(addrs[::2] + [a + 1 for a in addrs[1::2] if a < addrs[-1]]))
prof2 = W("prof2.pb.gz")
st.profile_for(MK, prof2, exe, more, base, bid=bid)


def sym(p, out, *opts):
    r = st.run([SYM, p, "-o", out, "--report=json", "--report-file", out + ".json"] + list(opts), env=ENV)
    if r.returncode:
        tap.diag("exit %d: %s" % (r.returncode, r.stderr))
        return None
    with open(out + ".json") as f:
        rep = f.read()
    return st.frames_by_address(st.dump(DUMP, out))[0], rep


cold, cold_rep = sym(prof, W("nocache.pb.gz"), "--no-cache") or (None, None)
tap.ok(cold and sum(1 for fr in cold.values() if fr) > 100 and any(len(fr) > 1 for fr in cold.values()),
       "without the cache: frames, inline levels among them")
tap.ok(not os.path.exists(W("xdg")) and not os.path.exists(W("home", ".cache")),
       "--no-cache writes nothing, in no directory")

C = W("cache")
first = sym(prof, W("first.pb.gz"), "--cache-dir", C)
files = sorted(os.listdir(C)) if os.path.isdir(C) else []
idx = [f for f in files if f.endswith(".idx")]
tap.ok(first and first[0] == cold and first[1] == cold_rep, "first run with the cache: the same frames and report")
tap.ok(len(idx) == 1 and idx[0].startswith(bid + "-") and files == idx,
       "one index, named by the build ID, no temporary file left: %s" % files)
path = os.path.join(C, idx[0]) if idx else W("missing")
mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0
tap.ok(mode == 0o600, "the index is the user's only (mode %o)" % mode)
good = open(path, "rb").read() if os.path.exists(path) else b""

again = sym(prof, W("again.pb.gz"), "--cache-dir", C)
tap.ok(again and again[0] == cold and again[1] == cold_rep, "repeat run from the index: the same frames and report")
tap.ok(open(path, "rb").read() == good, "a run that found every address in the index leaves it as it was")

# the index is what the repeat run reads: a frame's line changed (the file still well formed)
# shows up in the output; the same file with a wrong checksum does not
MAGIC, HDR = b"PPROFSZI", 48
ver, flags, klen, naddr, nframe, slen = struct.unpack_from("<6I", good, 8) if good else (0,) * 6


def with_crc(b):
    b = bytearray(b)
    b[40:44] = b"\0\0\0\0"
    struct.pack_into("<I", b, 40, zlib.crc32(bytes(b)) & 0xFFFFFFFF)
    return bytes(b)


def frame_off(i):
    return HDR + klen + 16 * naddr + 32 * i


def addr_rec(i):
    return struct.unpack_from("<QII", good, HDR + klen + 16 * i)


# an address with frames, its first frame's line + 1000
ai = next((i for i in range(naddr) if addr_rec(i)[2] > 0), 0) if good else 0
v, fi, _n = addr_rec(ai) if good else (0, 0, 0)
line = struct.unpack_from("<q", good, frame_off(fi) + 8)[0] if good else 0
tampered = bytearray(good)
if good:
    struct.pack_into("<q", tampered, frame_off(fi) + 8, line + 1000)
bad_crc = bytes(tampered)
tampered = with_crc(tampered)
runtime = base + v
with open(path, "wb") as f:
    f.write(tampered)
r = sym(prof, W("tampered.pb.gz"), "--cache-dir", C)
tap.ok(r and r[0].get(runtime) and r[0][runtime][0][3] == line + 1000,
       "the repeat run takes its frames from the index (a well-formed index edited by hand shows)")


def corrupt_case(name, data, mode=0o600, kind="file"):
    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        else:
            os.unlink(path)
    if kind == "file":
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    elif kind == "symlink":
        tgt = W("elsewhere.idx")
        with open(tgt, "wb") as f:
            f.write(data)
        os.symlink(tgt, path)
    elif kind == "dir":
        os.mkdir(path)
    r = sym(prof, W(name + ".pb.gz"), "--cache-dir", C)
    tap.ok(r and r[0] == cold, "%s: ignored, the frames are DWARF's" % name)
    if kind == "file" and mode == 0o600:
        now = open(path, "rb").read()
        tap.ok(now == good, "%s: replaced by a good index" % name)


big_counts = bytearray(good)
if good:
    struct.pack_into("<I", big_counts, 20, 0xFFFFFFFF)
    big_counts = with_crc(big_counts)
wrong_version = bytearray(good)
if good:
    struct.pack_into("<I", wrong_version, 8, 99)
    wrong_version = with_crc(wrong_version)
bad_string = bytearray(good)
if good:
    struct.pack_into("<I", bad_string, frame_off(fi), slen + 7)
    bad_string = with_crc(bad_string)
unsorted = bytearray(good)
if good and naddr > 2:
    struct.pack_into("<Q", unsorted, HDR + klen + 16, addr_rec(0)[0])
    unsorted = with_crc(unsorted)
other_key = bytearray(good)
if good:
    other_key[HDR + 5] ^= 0x20
    other_key = with_crc(other_key)
corrupt_case("flipped byte (checksum)", bad_crc)
corrupt_case("truncated", good[: len(good) // 2])
corrupt_case("empty", b"")
corrupt_case("header only", good[:HDR])
corrupt_case("counts past the end", bytes(big_counts))
corrupt_case("another version", bytes(wrong_version))
corrupt_case("string offset outside the table", bytes(bad_string))
corrupt_case("addresses out of order", bytes(unsorted))
corrupt_case("another key (other files)", bytes(other_key))
corrupt_case("random bytes", os.urandom(4096))
corrupt_case("group-writable", tampered, mode=0o620)
corrupt_case("symlink", tampered, kind="symlink")
corrupt_case("directory", b"", kind="dir")

# a second profile with new addresses: answered (old from the index, new from DWARF) as without
# the cache, and the index grows to hold both
os.rmdir(path) if os.path.isdir(path) else None
shutil.rmtree(C)
sym(prof, W("seed.pb.gz"), "--cache-dir", C)
nocache2 = sym(prof2, W("nocache2.pb.gz"), "--no-cache")
# what an interrupted run left two hours ago goes when an index is written; other files stay
for name, age in ((".tmp-stale1", 7200), (".tmp-fresh1", 0), ("notes.txt", 7200)):
    with open(os.path.join(C, name), "w") as f:
        f.write("x")
    t = os.stat(os.path.join(C, name)).st_mtime - age
    os.utime(os.path.join(C, name), (t, t))
mixed = sym(prof2, W("mixed.pb.gz"), "--cache-dir", C)
left = sorted(f for f in os.listdir(C) if not f.endswith(".idx"))
tap.ok(left == [".tmp-fresh1", "notes.txt"], "a stale temporary file is removed, nothing else: %s" % left)
tap.ok(mixed and nocache2 and mixed[0] == nocache2[0], "old and new addresses: frames as without the cache")
grown = open(path, "rb").read() if os.path.exists(path) else b""
n_after = struct.unpack_from("<I", grown, 20)[0] if len(grown) >= HDR else 0
tap.ok(n_after == len(set(addrs) | set(more)),
       "the index now holds both runs' addresses (%d of %d)" % (n_after, len(set(addrs) | set(more))))
hot2 = sym(prof2, W("hot2.pb.gz"), "--cache-dir", C)
tap.ok(hot2 and hot2[0] == nocache2[0], "and answers the second profile alone")

# a .debug_info of no unit in the binary (so no DWARF of its own) and the real debug file
# through .gnu_debuglink: the index is the one of both files, found again by a repeat run, and
# not used once the debug file changes
dbgfile = W("prog-bogus.debug")
st.check_run(["objcopy", "--only-keep-debug", exe, dbgfile])
junk = W("junk")
with open(junk, "wb") as f:
    f.write(b"\x01\x00")  # a unit length cut short: libdw finds no unit
bogus = W("prog-bogus")
st.check_run(["objcopy", "--strip-debug", "--add-section", ".debug_info=" + junk,
              "--add-gnu-debuglink=" + dbgfile, exe, bogus])
profb = W("profb.pb.gz")
st.profile_for(MK, profb, bogus, addrs, base, bid=bid)
CB = W("cache-bogus")
opts = ["--binary", bogus, "--no-default-dirs"]
want = sym(profb, W("bogus-nocache.pb.gz"), "--no-cache", *opts)
b1 = sym(profb, W("bogus1.pb.gz"), "--cache-dir", CB, *opts)
n1 = sorted(os.listdir(CB)) if os.path.isdir(CB) else []
b2 = sym(profb, W("bogus2.pb.gz"), "--cache-dir", CB, *opts)
tap.ok(want and b1 and b2 and want[0] == b1[0] == b2[0] and want[1] == b2[1] and '"debug_found_by":"debuglink"' in want[1],
       "a binary whose own DWARF is unusable: its debug file's frames, first and repeat run")
tap.ok(len(n1) == 1 and sorted(os.listdir(CB)) == n1, "one index for the pair, found again: %s" % n1)
t = os.stat(dbgfile).st_mtime + 10
os.utime(dbgfile, (t, t))
b3 = sym(profb, W("bogus3.pb.gz"), "--cache-dir", CB, *opts)
tap.ok(b3 and b3[0] == want[0] and len(os.listdir(CB)) == 2,
       "the debug file changed: its old index is not used (a new one is made)")

# a split DWARF package appearing beside the binary (NAME.dwp) makes a new index: the frames
# may come from it
shutil.rmtree(C)
sym(prof, W("pre-dwp.pb.gz"), "--cache-dir", C)
with open(exe + ".dwp", "wb") as f:
    f.write(b"not yet a package")
sym(prof, W("with-dwp.pb.gz"), "--cache-dir", C)
tap.ok(len(os.listdir(C)) == 2, "a .dwp beside the binary: another index (%d)" % len(os.listdir(C)))
os.unlink(exe + ".dwp")

# the default directory, and one that cannot be written
dflt = sym(prof, W("default.pb.gz"))
made = os.listdir(W("xdg", "libpprof")) if os.path.isdir(W("xdg", "libpprof")) else []
tap.ok(dflt and dflt[0] == cold and len(made) == 1, "no option: the index goes to $XDG_CACHE_HOME/libpprof")
ro = W("not-a-dir")
open(ro, "w").close()
r = sym(prof, W("ro.pb.gz"), "--cache-dir", os.path.join(ro, "sub"))
tap.ok(r and r[0] == cold, "a cache directory that cannot be made: exit 0, the same frames")
tap.done()
