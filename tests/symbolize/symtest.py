"""Shared pieces of the symbolization tests: TAP, running the tools, building programs, profiles
of raw addresses, and reading llvm-symbolizer's and addr2line's answers."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tap  # noqa: E402


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, what), flush=True)
        return cond

    def skip(self, what, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, what, why), flush=True)

    def diag(self, *lines):
        for text in lines:
            for line in str(text).splitlines():
                print("# " + line)

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def run(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def check_run(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    return r


def need(*progs):
    """Skips the whole test when a program it depends on is missing."""
    for p in progs:
        if not shutil.which(p):
            tap.skip_all("%s not found" % p)


def load_segments(path):
    """PT_LOAD segments: (offset, vaddr, filesz, memsz, flags)."""
    out = check_run(["readelf", "-lW", path]).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16), int(f[5], 16), " ".join(f[6:-1])))
    return segs


def elf_type(path):
    out = check_run(["readelf", "-hW", path]).stdout
    return "DYN" if re.search(r"Type:\s+DYN", out) else "EXEC"


def build_id(path):
    out = check_run(["readelf", "-nW", path]).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else ""


def instructions(path, limit=None):
    """Link-time addresses of the instructions in the file's executable sections."""
    out = check_run(["objdump", "-d", "--no-show-raw-insn", path], timeout=600).stdout
    addrs = []
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s", line)
        if m:
            addrs.append(int(m.group(1), 16))
    addrs = sorted(set(addrs))
    if limit and len(addrs) > limit:
        step = len(addrs) / limit
        addrs = [addrs[int(i * step)] for i in range(limit)]
    return addrs


def base_for(path, shared=False):
    if elf_type(path) == "EXEC":
        return 0
    return 0x7F1234560000 if shared else 0x555555554000


def mapping_specs(path, base, name=None, bid=""):
    """'map' lines for the file's executable segments, loaded at base."""
    lines = []
    for off, vaddr, filesz, memsz, flags in load_segments(path):
        if "E" not in flags:
            continue
        start = base + (vaddr & ~0xFFF)
        limit = base + ((vaddr + memsz + 0xFFF) & ~0xFFF)
        lines.append("map %x %x %x %s %s" % (start, limit, off & ~0xFFF, name or path, bid))
    return lines


def write_profile(mkprofile, out, spec_lines):
    check_run([mkprofile, out], input="\n".join(spec_lines) + "\n")


def profile_for(mkprofile, out, path, addrs, base, name=None, bid=""):
    """A profile of the runtime addresses base + a, a in addrs, in the file's code mapping."""
    maps = mapping_specs(path, base, name, bid)
    assert len(maps) == 1, maps
    write_profile(mkprofile, out, maps + ["addr %x" % (base + a) for a in addrs])


def dump(pprof_dump, path):
    return json.loads(check_run([pprof_dump, "--json", path]).stdout)


def frames_by_address(doc):
    """{runtime address: [(name, system_name, file, line, column, start_line), ...]} innermost
    first, and the mappings by id."""
    fns = {f["id"]: f for f in doc["function"]}
    res = {}
    for loc in doc["location"]:
        fr = []
        for ln in loc["line"]:
            f = fns[ln["function_id"]]
            fr.append((f["name"], f["system_name"], f["filename"], ln["line"], ln["column"], f["start_line"]))
        res[loc["address"]] = fr
    return res, {m["id"]: m for m in doc["mapping"]}


def llvm_frames(path, addrs, demangle=True):
    """llvm-symbolizer --inlines: {addr: [(name, file, line, column)]}."""
    cmd = ["llvm-symbolizer", "--inlines", "--obj=" + path]
    if not demangle:
        cmd.append("--no-demangle")
    out = check_run(cmd, input="".join("0x%x\n" % a for a in addrs), timeout=600).stdout
    blocks = out.strip("\n").split("\n\n")
    res = {}
    for a, block in zip(addrs, blocks):
        ls = block.split("\n")
        fr = []
        for i in range(0, len(ls) - 1, 2):
            name, where = ls[i], ls[i + 1]
            m = re.match(r"^(.*):(\d+):(\d+)$", where)
            file, line, col = (m.group(1), int(m.group(2)), int(m.group(3))) if m else (where, 0, 0)
            fr.append((name, file, line, col))
        if fr == [("??", "??", 0, 0)]:
            fr = []
        res[a] = fr
    return res


def addr2line_frames(path, addrs):
    """addr2line -f -i -C: {addr: [(name, file, line)]}."""
    out = check_run(["addr2line", "-a", "-f", "-i", "-C", "-e", path] + ["0x%x" % a for a in addrs], timeout=600).stdout
    res = {}
    cur = None
    lines = out.split("\n")
    i = 0
    while i < len(lines):
        ln = lines[i]
        if re.match(r"^0x[0-9a-f]+$", ln):
            cur = int(ln, 16)
            res[cur] = []
            i += 1
            continue
        if cur is None or i + 1 >= len(lines):
            i += 1
            continue
        where = re.sub(r" \(discriminator \d+\)$", "", lines[i + 1])
        m = re.match(r"^(.*):(\d+|\?)$", where)
        file = m.group(1) if m else where
        line = int(m.group(2)) if m and m.group(2).isdigit() else 0
        res[cur].append((ln, file, line))
        i += 2
    for a, fr in res.items():
        if fr == [("??", "??", 0)]:
            res[a] = []
    return res


def ours_as_llvm(fr):
    return [(n, f or "??", l, c) for (n, _s, f, l, c, _st) in fr]


def ours_as_addr2line(fr):
    return [(n, f or "??", l) for (n, _s, f, l, _c, _st) in fr]
