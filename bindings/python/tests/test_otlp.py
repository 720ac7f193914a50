"""pprof.read_otlp / to_otlp: OpenTelemetry Profiles through the library (pprof/otlp.h)."""
import pytest

import pprof


def test_round_trip(src):
    p = pprof.read(src / "corpus" / "examples" / "query-fib.pb.gz")
    data = pprof.to_otlp(p, service_name="svc", resource={"env": "prod"})
    assert pprof.is_otlp(data) and not pprof.is_otlp(p.to_bytes())
    back = pprof.read_otlp(data)
    assert len(back) == 1
    q = back[0]
    assert [(t.type, t.unit) for t in q.sample_types] == [(t.type, t.unit) for t in p.sample_types]
    assert [s.values for s in q.samples()] == [s.values for s in p.samples()]
    assert [[f.function for f in s.frames] for s in q.samples()] == \
        [[f.function for f in s.frames] for s in p.samples()]
    assert q.header.time_nanos == p.header.time_nanos
    # pprof.read takes OTLP too (by content)
    assert pprof.read(data) == q


def test_group_and_labels(src, tmp_path):
    ps = pprof.read_otlp(src / "tests" / "otlp" / "in" / "group.otlp")
    assert [len(p.sample_types) for p in ps] == [2, 1]
    s = list(ps[1].samples())
    assert [x.values for x in s] == [(3,), (4,)]
    d = s[0].label_dict
    assert d["trace_id"] == "0102030405060708090a0b0c0d0e0f10"
    out = tmp_path / "two.otlp"
    pprof.write_otlp(ps, out, compress="gzip")
    again = pprof.read_otlp(out)
    assert [len(p.sample_types) for p in again] == [2, 1]


def test_errors(src):
    with pytest.raises(pprof.PprofError) as e:
        pprof.read_otlp(src / "tests" / "otlp" / "check" / "O2-index-range.otlp")
    assert e.value.path == "dictionary.location_table[1].mapping_index"
    with pytest.raises(pprof.PprofError):
        pprof.read_otlp(b"\x0a\x05\x01")
    with pytest.raises(ValueError):
        pprof.to_otlp([], compress="lz4")
