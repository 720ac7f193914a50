"""pprof.symbolize(): a profile of raw addresses of a program compiled here gets its frames."""
import os
import shutil
import subprocess

import pytest

import pprof

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "symbolize")


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    d = tmp_path_factory.mktemp("sym")
    exe = str(d / "prog")
    subprocess.run(["gcc", "-O2", "-g", "-no-pie", "-fno-pie", "-o", exe, os.path.join(SRC, "prog.c"), "-xc", "-"],
                   input=b"int lib_work(int n) { return n; }\n", check=True)
    nm = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    compute = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" compute"))
    return exe, compute


def profile_of(exe, addr, tmp_path, name=None):
    b = pprof.Builder([("samples", "count")])
    m = b.mapping(0x400000, 0x500000, 0, name or exe, has_functions=False)
    b.add_sample([1], [b.location(mapping=m, address=addr)])
    path = tmp_path / "raw.pb.gz"
    b.serialize_file(str(path))
    return pprof.read(str(path))


def test_symbolize_fills_frames(prog, tmp_path):
    exe, compute = prog
    p = profile_of(exe, compute, tmp_path)
    q, maps = pprof.symbolize(p)
    frames = [f for s in q.samples() for f in s.frames]
    assert frames and frames[-1].function == "compute"
    assert maps[0].result == "ok" and maps[0].found_by == "path" and maps[0].resolved == 1 and maps[0].dwarf
    assert not [f for s in p.samples() for f in s.frames if f.function], "the input is unchanged"


def test_symbolize_reports_why_not(prog, tmp_path):
    exe, compute = prog
    p = profile_of(exe, compute, tmp_path, name="/nonexistent/prog")
    q, maps = pprof.symbolize(p)
    assert maps[0].result == "not-found" and maps[0].unresolved == (compute,)
    q, maps = pprof.symbolize(p, binaries=[exe])
    assert maps[0].result == "ok" and maps[0].found_by == "binary"


def test_symbolize_cache(prog, tmp_path, monkeypatch):
    exe, compute = prog
    p = profile_of(exe, compute, tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    q0, _ = pprof.symbolize(p)
    assert not (tmp_path / "xdg").exists(), "the library keeps no cache unless asked for"
    q1, m1 = pprof.symbolize(p, cache_dir=str(cache))
    assert [f.name for f in cache.iterdir()] and all(f.name.endswith(".idx") for f in cache.iterdir())
    q2, m2 = pprof.symbolize(p, cache_dir=str(cache))
    frames = lambda q: [(f.function, f.filename, f.line) for s in q.samples() for f in s.frames]  # noqa: E731
    assert frames(q0) == frames(q1) == frames(q2) and frames(q0)
    assert m1[0].dwarf and m2[0].dwarf, "the index keeps what the report says"
