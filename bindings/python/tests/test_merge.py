"""pprof.merge gives pprof-merge's bytes."""
import pytest
from conftest import run, tool

import pprof

INPUTS = ["query-many-1644509272337470000.pb.gz", "query-many-1644509275338070000.pb.gz", "query-many-1644509278338696000.pb.gz"]


@pytest.fixture
def inputs(examples):
    return [str(examples / n) for n in INPUTS]


@pytest.mark.parametrize("compress", ["gzip", "zstd", "none"])
def test_bytes_equal_tool(inputs, tmp_path, compress):
    ref = tmp_path / "ref"
    r = run(tool("pprof-merge"), "-q", "--compress=" + compress, *inputs, "-o", ref)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    s = pprof.merge(inputs, out=out, compress=compress)
    assert out.read_bytes() == ref.read_bytes()
    assert s.inputs == 3 and s.samples > 0
    assert pprof.merge_to_bytes(inputs, compress=compress) == ref.read_bytes()
    assert pprof.merge_to_bytes(inputs, compress=compress, threads=2) == ref.read_bytes()
    # bytes, Profiles and paths mix; the grouping does not matter
    part = pprof.merge_to_bytes(inputs[:2], compress="none")
    assert pprof.merge_to_bytes([part, pprof.read(inputs[2])], compress=compress) == ref.read_bytes()


def test_profile_result(inputs, tmp_path):
    m = pprof.merge(inputs)
    assert isinstance(m, pprof.Profile)
    assert m == pprof.read(pprof.merge_to_bytes(inputs))
    assert sum(s.values[0] for s in m.samples()) == sum(sum(s.values[0] for s in pprof.read(p).samples()) for p in inputs)


def test_incompatible(examples, inputs):
    with pytest.raises(pprof.PprofError) as e:
        pprof.merge([inputs[0], str(examples / "parca-labels.pb.gz")])
    assert e.value.code_name == "PPROF_E_INCOMPATIBLE"
    assert "parca-labels" in str(e.value)


def test_errors(tmp_path, inputs):
    with pytest.raises(pprof.PprofError) as e:
        pprof.merge([inputs[0], str(tmp_path / "missing.pb")])
    assert e.value.code_name == "PPROF_E_IO" and e.value.file.endswith("missing.pb")
    with pytest.raises(pprof.PprofError) as e:
        pprof.merge([])
    assert e.value.code_name == "PPROF_E_ARG"
    with pytest.raises(ValueError):
        pprof.merge(inputs, inline_conflict="maybe")
