"""pprof.from_perf: perf recordings (corpus/perf, and a fresh one where perf record works)."""
import shutil
import subprocess

import pytest

import pprof


def test_from_perf_file(src):
    p, st = pprof.from_perf(src / "corpus" / "perf" / "threads.data", labels=["tid", "comm"], stats=True)
    assert [(t.type, t.unit) for t in p.sample_types] == [("samples", "count"), ("cpu", "nanoseconds")]
    assert st["samples"] == st["samples_converted"] > 0
    assert sum(s.values[0] for s in p.samples()) == st["samples"]
    assert all("tid" in s.label_dict for s in p.samples())
    assert any(m.filename.endswith("libc.so.6") for m in p.mappings)
    assert any("perf record" in c for c in p.header.comments)


def test_from_perf_pipe_and_bytes(src):
    data = (src / "corpus" / "perf" / "true-pipe.data").read_bytes()
    p, st = pprof.from_perf(data, stats=True)
    assert st["pipe_mode"] and st["samples_converted"] == st["samples"]
    assert p == pprof.from_perf(data, input="perf-data")


def test_from_perf_errors(src):
    with pytest.raises(pprof.PprofError) as e:
        pprof.from_perf(src / "corpus" / "perf" / "n-callchain.data")
    assert "callchain" in e.value.message and e.value.offset is not None
    with pytest.raises(pprof.PprofError):
        pprof.from_perf(src / "corpus" / "perf" / "true.data", events=["cycles"])
    with pytest.raises(ValueError):
        pprof.from_perf(b"x", labels=["nope"])


def test_from_perf_script_text():
    text = b"prog 7/8 [001] 1.000: 250000 cpu-clock: \n\t1234 main+0x4 (/bin/prog)\n\n"
    p, st = pprof.from_perf(text, labels=["cpu"], stats=True)
    assert st["script_text"] and st["samples_converted"] == 1
    s = next(p.samples())
    assert tuple(s.values) == (1, 250000) and s.label_dict["cpu"] == 1


@pytest.mark.skipif(not shutil.which("perf"), reason="perf is not installed")
def test_from_perf_recorded(tmp_path):
    out = tmp_path / "t.data"
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", str(out), "--", "true"],
                       capture_output=True, check=False)
    if r.returncode:
        pytest.skip("perf record is not permitted here: " + r.stderr.decode(errors="replace")[:200])
    p, st = pprof.from_perf(out, stats=True)
    assert sum(s.values[0] for s in p.samples()) == st["samples"]


@pytest.mark.skipif(not shutil.which("perf"), reason="perf is not installed")
def test_from_perf_symbolize(tmp_path):
    out = tmp_path / "t.data"
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "5000", "-g", "-o", str(out), "--",
                        "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"],
                       capture_output=True, check=False)
    if r.returncode:
        pytest.skip("perf record is not permitted here: " + r.stderr.decode(errors="replace")[:200])
    raw = pprof.from_perf(out)
    named = lambda prof: any(f.function for s in prof.samples() for f in s.frames)  # noqa: E731
    assert not named(raw)
    p, st = pprof.from_perf(out, symbolize=True, stats=True)
    want, report = pprof.symbolize(raw)
    assert p == want and p.name == str(out)
    assert named(p)
    assert [m.result for m in st["symbolized"]] == [m.result for m in report]
    p2 = pprof.from_perf(out, symbolize={"demangle": "none", "debug_dirs": [str(tmp_path)]})
    assert p2 == pprof.symbolize(raw, demangle="none", debug_dirs=[str(tmp_path)])[0]
    with pytest.raises(TypeError):
        pprof.from_perf(out, symbolize={"nope": 1})


def test_from_perf_timestamps(src):
    path = src / "corpus" / "perf" / "threads.data"
    plain = pprof.from_perf(path)
    p, st = pprof.from_perf(path, timestamps=True, stats=True)
    times = [s.label_dict.get("timestamp_unix_nano") for s in p.samples()]
    assert len(times) == st["samples_converted"] and all(t is not None and t > 0 for t in times)
    assert all(l.unit == "nanoseconds" for s in p.samples() for l in s.labels if l.key == "timestamp_unix_nano")
    # samples no longer fold together
    assert len(list(p.samples())) > len(list(plain.samples()))
