"""pprof.read and Profile against the C tools' view of the same files."""
import json

import pytest
from conftest import run, tool

import pprof


def dump_json(path):
    r = run(tool("pprof-dump"), "--json", path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("name", ["query-fib.pb.gz", "parca-labels.pb.gz", "query-many-1644509272337470000.pb.gz"])
def test_samples_match_dump(examples, name):
    path = examples / name
    d = dump_json(path)
    p = pprof.read(path)
    assert p.counts["samples"] == len(d["sample"]) == len(p)
    assert p.counts["locations"] == len(d["location"])
    assert p.counts["functions"] == len(d["function"])
    assert [(t.type, t.unit) for t in p.sample_types] == [(t["type"], t["unit"]) for t in d["sample_type"]]
    h = p.header
    assert (h.period, h.time_nanos, h.duration_nanos) == (d["period"], d["time_nanos"], d["duration_nanos"])
    assert h.period_type.type == d["period_type"]["type"]
    locs = {l["id"]: l for l in d["location"]}
    funcs = {f["id"]: f for f in d["function"]}
    samples = list(p.samples())
    for s, js in zip(samples, d["sample"]):
        assert list(s.values) == js["value"]
        assert list(s.location_ids) == js["location_id"]
        want = []
        for lid in js["location_id"]:
            for ln in locs[lid]["line"]:
                f = funcs[ln["function_id"]]
                want.append((f["name"], f["filename"], ln["line"], locs[lid]["address"]))
        assert [(f.function, f.filename, f.line, f.address) for f in s.frames] == want
        assert [(l.key, l.str or "", l.num) for l in s.labels] == [(l["key"], l["str"], l["num"]) for l in js["label"]]


def test_labels_resolved(examples):
    p = pprof.read(examples / "parca-labels.pb.gz")
    labelled = [s for s in p.samples() if s.labels]
    assert labelled and labelled[0].label_dict == {"api": "query"}


def test_read_bytes_like(examples):
    data = (examples / "query-fib.pb.gz").read_bytes()
    a = pprof.read(data)
    assert a == pprof.read(bytearray(data)) == pprof.read(memoryview(data)) == pprof.read(str(examples / "query-fib.pb.gz"))
    assert a.source_format == "gzip"


def test_write_matches_convert(examples, tmp_path):
    src = examples / "query-fib.pb.gz"
    for compress in ("gzip", "zstd", "none"):
        out = tmp_path / f"c.{compress}"
        r = run(tool("pprof-convert"), src, "--compress=" + compress, "-o", out)
        assert r.returncode == 0, r.stderr
        p = pprof.read(src)
        mine = tmp_path / f"p.{compress}"
        p.write(mine, compress=compress)
        assert mine.read_bytes() == out.read_bytes() == p.to_bytes(compress)
        assert pprof.read(mine) == p
    assert (tmp_path / "p.zstd").read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    with pytest.raises(ValueError):
        p.to_bytes("lz4")


def test_dump_text(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    r = run(tool("pprof-dump"), examples / "query-fib.pb.gz")
    assert p.dump() == r.stdout.decode()
    assert json.loads(p.dump(json=True))["period"] == p.header.period
    # a profile Go's merge renumbers: the default follows it, as_is lists it as stored
    many = examples / "query-many-1644509272337470000.pb.gz"
    p = pprof.read(many)
    assert p.dump() == run(tool("pprof-dump"), many).stdout.decode()
    assert p.dump(as_is=True) == run(tool("pprof-dump"), "--as-is", many).stdout.decode()
    assert p.dump() != p.dump(as_is=True)


def test_errors_carry_code_path_offset(tmp_path):
    with pytest.raises(pprof.PprofError) as e:
        pprof.read(b"\xff\xff")
    assert e.value.code_name == "PPROF_E_WIRE" and e.value.code == 5
    assert e.value.offset == 0 and e.value.file == "<bytes>"
    assert "PPROF_E_WIRE" in str(e.value)
    missing = tmp_path / "missing.pb"
    with pytest.raises(pprof.PprofError) as e:
        pprof.read(missing)
    assert e.value.code_name == "PPROF_E_IO" and e.value.file == str(missing)
    with pytest.raises(pprof.PprofError) as e:
        pprof.read(b"")
    assert e.value.code_name == "PPROF_E_EMPTY"


def test_broken_profile_iterates(src):
    # duplicate function ids (a checker finding) still decode and resolve
    p = pprof.read(src / "corpus" / "check" / "i_duplicate-function.pb")
    assert len(list(p.samples())) == len(p)


def test_limits(examples):
    with pytest.raises(pprof.PprofError) as e:
        pprof.read(examples / "query-fib.pb.gz", max_samples=10)
    assert e.value.code_name == "PPROF_E_LIMIT"
    with pytest.raises(TypeError):
        pprof.read(examples / "query-fib.pb.gz", max_bananas=1)


def test_close(examples):
    with pprof.read(examples / "query-fib.pb.gz") as p:
        assert len(p) == 120
    with pytest.raises(ValueError):
        len(p)
    assert "closed" in repr(p)
