"""pprof.edit gives pprof-edit's bytes for the same operations."""
import pytest
from conftest import run, tool

import pprof

if not hasattr(pprof, "edit"):
    pytest.skip("this libpprof has no pprof/edit.h", allow_module_level=True)

CASES = [
    ({"focus": "Fibonacci"}, ["--focus", "Fibonacci"]),
    ({"ignore": "runtime", "hide": "big"}, ["--ignore", "runtime", "--hide", "big"]),
    ({"show_from": "main", "granularity": "functions"}, ["--show-from", "main", "--granularity", "functions"]),
    ({"sample_types": ["cpu"], "scale": {"cpu": 0.5}}, ["--sample-types", "cpu", "--scale", "cpu=0.5"]),
    ({"max_depth": 3, "min_fraction": 0.01}, ["--max-depth", "3", "--min-fraction", "0.01"]),
    ({"set_labels": {"host": "a"}, "tag_root": "host"}, ["--set-label", "host=a", "--tag-root", "host"]),
    ({"no_inlines": True, "drop_frames": "runtime\\..*"}, ["--no-inlines", "--drop-frames", "runtime\\..*"]),
]


@pytest.mark.parametrize("ops,args", CASES)
def test_bytes_equal_tool(examples, tmp_path, ops, args):
    src = examples / "query-fib.pb.gz"
    ref = tmp_path / "ref.pb.gz"
    r = run(tool("pprof-edit"), src, *args, "-o", ref)
    assert r.returncode == 0, r.stderr
    p = pprof.read(src)
    mine = tmp_path / "mine.pb.gz"
    assert pprof.edit(p, out=mine, **ops) is None
    assert mine.read_bytes() == ref.read_bytes()
    assert pprof.edit(p, out=bytes, **ops) == ref.read_bytes()
    e = pprof.edit(p, **ops)
    assert e == pprof.read(ref)
    assert len(e) <= len(p) or "tag_root" in ops


def test_redact(examples, tmp_path):
    src = examples / "parca-labels.pb.gz"
    key = tmp_path / "key"
    key.write_bytes(b"secret")
    ref = tmp_path / "ref.pb.gz"
    r = run(tool("pprof-edit"), src, "--redact", "files,label:api", "--redact-key", key, "-o", ref)
    assert r.returncode == 0, r.stderr
    p = pprof.read(src)
    got = pprof.edit(p, out=bytes, redact=["files", "label:api"], redact_key=b"secret")
    assert got == ref.read_bytes()
    e = pprof.read(got)
    assert all(s.label_dict.get("api") not in ("query",) for s in e.samples())


def test_focus_keeps_matching_samples(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    e = pprof.edit(p, focus="Fibonacci")
    assert len(e) > 0
    assert all(any("Fibonacci" in f.function for f in s.frames) for s in e.samples())


def test_errors_and_warnings(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    with pytest.raises(pprof.PprofError) as e:
        pprof.edit(p, focus="(?=x)")
    assert e.value.code_name == "PPROF_E_ARG" and "focus" in str(e.value)
    with pytest.raises(TypeError):
        pprof.edit(p, bananas=1)
    with pytest.raises(ValueError):
        pprof.edit(p, granularity="atoms")
    seen = []
    pprof.edit(p, focus="no-such-function-anywhere", warn=seen.append)
    assert seen and "matched no samples" in seen[0]


def test_edit_time(src):
    perf = pprof.from_perf(src / "corpus" / "perf" / "threads.data", timestamps=True)
    n = sum(s.values[0] for s in perf.samples())
    times = sorted(s.label_dict["timestamp_unix_nano"] for s in perf.samples())
    cut = times[len(times) // 2]
    at = "%d.%09d" % divmod(cut - times[0], 10 ** 9)
    first = pprof.edit(perf, time_to=at)
    rest = pprof.edit(perf, time_from=at)
    assert sum(s.values[0] for s in first.samples()) == sum(1 for t in times if t < cut) > 0
    assert sum(s.values[0] for s in first.samples()) + sum(s.values[0] for s in rest.samples()) == n
    folded = pprof.edit(perf, drop_timestamps=True)
    assert not any(l.key == "timestamp_unix_nano" for s in folded.samples() for l in s.labels)
    assert len(list(folded.samples())) < len(list(perf.samples()))
    with pytest.raises(pprof.PprofError) as e:
        pprof.edit(perf, time_from="yesterday")
    assert "time_from" in e.value.message
