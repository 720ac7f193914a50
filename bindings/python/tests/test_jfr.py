"""pprof.read of Java Flight Recorder recordings (issue 45): by content, from a path or bytes."""
import pprof


def test_read_jfr_by_content(src, tmp_path):
    rec = (src / "corpus" / "jfr" / "gen-asprof-2.0.jfr").read_bytes()
    (tmp_path / "a.pb").write_bytes(rec)  # a name that says nothing
    p = pprof.read(tmp_path / "a.pb")
    assert pprof.read(rec) == p
    assert p.counts["samples"] > 0
    assert [(t.type, t.unit) for t in p.sample_types][:2] == [("samples", "count"), ("cpu", "nanoseconds")]


def test_read_jdk_recording(src):
    p = pprof.read(src / "corpus" / "jfr" / "jdk17-min.jfr")
    assert p.counts["samples"] > 0 and p.counts["functions"] > 0
