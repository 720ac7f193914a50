"""What `import pprof` loads: the core (libpprof.so.2) only, until a call needs libpprof-analyze,
-formats or -symbolize (README.md, "What loads when"). Each case runs in a fresh interpreter
and reads its /proc/self/maps."""
import json
import os
import subprocess
import sys

import pytest
from conftest import SRC

# the libraries above the core and what they bring in
HEAVY = ("libgvc", "libcgraph", "libdw", "libelf", "libre2", "libstdc++", "libjansson",
         "libpprof-analyze", "libpprof-formats", "libpprof-symbolize")

PRELUDE = """
import json, sys
import pprof

def mapped():
    names = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6:
                names.add(parts[5].rsplit("/", 1)[-1])
    return sorted(names)

args = sys.argv[1:]
"""


def run_py(body, *args):
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps")
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"))
    r = subprocess.run([sys.executable, "-c", PRELUDE + body + "\nprint(json.dumps(mapped()))"]
                       + [str(a) for a in args], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def heavy(names):
    return sorted(n for n in names if n.startswith(HEAVY))


def has(names, prefix):
    return any(n.startswith(prefix) for n in names)


def test_read_samples_maps_only_the_core(examples):
    names = run_py("assert len(list(pprof.read(args[0]).samples())) == 120",
                   examples / "query-fib.pb.gz")
    assert any(n.startswith("libpprof.so") for n in names), names  # the maps are the right ones
    assert heavy(names) == []


def test_core_operations_map_only_the_core(examples, tmp_path):
    body = """
p = pprof.read(args[0])
assert pprof.check([args[0], args[1]]) is not None
m = pprof.merge([args[0], args[1], p])
assert len(pprof.merge_to_bytes([args[0], open(args[1], "rb").read()])) > 0
b = pprof.Builder([("samples", "count")])
b.add_frames([1], [("f", "f.py", 1)])
assert pprof.read(b.serialize()).counts["samples"] == 1
p.write(args[2])
assert pprof.read(args[2]) == p
"""
    names = run_py(body, examples / "query-fib.pb.gz", examples / "parca-labels.pb.gz", tmp_path / "w.pb.gz")
    assert heavy(names) == []


def test_report_maps_libpprof_analyze(examples):
    names = run_py("assert pprof.report.render(pprof.read(args[0]), 'top')", examples / "query-fib.pb.gz")
    assert has(names, "libpprof-analyze.so") and has(names, "libre2")
    assert not [n for n in heavy(names) if n.startswith(("libpprof-formats", "libjansson", "libdw"))]


def test_otlp_by_name_and_by_content_maps_libpprof_formats(src, tmp_path):
    otlp = (src / "corpus" / "otlp" / "clean.otlp").read_bytes()
    (tmp_path / "a.pb").write_bytes(otlp)  # a name that says nothing
    body = """
first = pprof.read(args[0])
assert first == pprof.read_otlp(args[0])[0]
assert pprof.read(open(args[0], "rb").read()) == first
assert pprof.merge([args[0]]).counts["samples"] == first.counts["samples"]
"""
    names = run_py(body, tmp_path / "a.pb")
    assert has(names, "libpprof-formats.so") and has(names, "libjansson")
    assert not [n for n in heavy(names) if n.startswith(("libpprof-analyze", "libre2", "libdw"))]


def _drop_frames_profile(pattern):
    """The smallest pprof profile whose drop_frames is pattern: string_table ["", pattern],
    drop_frames = 1."""
    p = pattern.encode()
    return b"\x32\x00" + b"\x32" + bytes([len(p)]) + p + b"\x38\x01"


def test_check_maps_libpprof_analyze_only_for_frames_regexps(tmp_path):
    bad = tmp_path / "bad.pb"
    bad.write_bytes(_drop_frames_profile("a("))
    good = tmp_path / "good.pb"
    good.write_bytes(_drop_frames_profile("runtime\\..*"))
    body = """
rules = lambda path: sorted({f.rule for f in pprof.check(path)})
print(json.dumps([rules(args[0]), rules(args[1])]))
"""
    r = subprocess.run([sys.executable, "-c", PRELUDE + body + "\nprint(json.dumps(mapped()))", str(bad), str(good)],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python")))
    assert r.returncode == 0, r.stderr
    found, names = (json.loads(x) for x in r.stdout.splitlines()[-2:])
    assert "S14-frames-regex" in found[0]  # RE2's answer, as pprof-check gives it
    assert "S14-frames-regex" not in found[1]
    assert has(names, "libpprof-analyze.so")


def test_core_alone_works_and_a_missing_library_is_an_import_error(build, examples, tmp_path):
    """With libpprof.so.2 alone in its directory: what needs only the core works, bytes the
    core refuses keep its error, and a call that needs another library raises ImportError
    naming where it looked."""
    core = build / "libpprof" / "libpprof.so.2"
    if not core.exists():
        pytest.skip(f"{core} is not built")
    alone = tmp_path / "lib"
    alone.mkdir()
    (alone / "libpprof.so.2").write_bytes(core.read_bytes())
    body = """
p = pprof.read(args[0])
assert len(p) == 120 and pprof.check(args[0]) == []
try:
    pprof.read(args[1])
except pprof.PprofError as e:
    assert e.code_name == "PPROF_E_WIRE", e
for call in (lambda: pprof.report.render(p, "top"), lambda: pprof.read(args[2])):
    try:
        call()
        raise AssertionError("no ImportError")
    except ImportError as e:
        assert args[3] in str(e), e
"""
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"), PPROF_LIBRARY=str(alone / "libpprof.so.2"))
    r = subprocess.run([sys.executable, "-c", PRELUDE + body, str(examples / "query-fib.pb.gz"),
                        str(SRC / "README.md"), str(SRC / "corpus" / "otlp" / "clean.otlp"), str(alone)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr


def test_sonames_are_the_built_ones(build):
    """The binding's sonames (pprof._lib.SOVERSION) are those meson gives the libraries (the
    DT_SONAME of each built file: a stale link of an older build would not say)."""
    import re
    import shutil

    from pprof import _lib

    d = build / "libpprof"
    readelf = shutil.which("readelf")
    if not d.is_dir() or not readelf:
        pytest.skip(f"{d} is not built or there is no readelf")
    for name in [_lib.CORE] + [x.soname for x in _lib.LIBRARIES]:
        base = name.split(".so.")[0]
        files = [p for p in d.glob(base + ".so.*.*") if p.is_file() and not p.is_symlink()]
        assert files, f"no {base}.so.X.Y.Z in {d}"
        for f in files:
            if f.stat().st_mtime < max(p.stat().st_mtime for p in files):
                continue  # an older build's file
            out = subprocess.run([readelf, "-d", str(f)], capture_output=True, text=True).stdout
            m = re.search(r"\(SONAME\).*\[(.*)\]", out)
            assert m and m.group(1) == name, (f, m and m.group(1))
