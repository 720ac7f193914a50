"""pprof.to_speedscope, pprof.to_cpuprofile, pprof.from_cpuprofile: the bytes pprof-convert
writes, and .cpuprofile files read with their errors' paths."""
import json

import pytest
from conftest import run, tool

import pprof

if not hasattr(pprof, "to_speedscope"):
    pytest.skip("this libpprof has no pprof/interchange.h", allow_module_level=True)


def test_speedscope_same_bytes_as_the_tool(examples, tmp_path):
    src = examples / "query-fib.pb.gz"
    ref = tmp_path / "ref.json"
    run(tool("pprof-convert"), str(src), "--to=speedscope", "-o", str(ref))
    p = pprof.read(src)
    assert pprof.to_speedscope(p, name="query-fib.pb.gz") == ref.read_bytes()
    doc = json.loads(pprof.to_speedscope(p, lines=True))
    assert doc["name"] == "profile"
    assert [x["endValue"] for x in doc["profiles"]] == [
        sum(s.values[i] for s in p.samples()) for i in range(len(p.sample_types))]


def test_cpuprofile_round_trip(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    data = pprof.to_cpuprofile(p)
    doc = json.loads(data)
    assert len(doc["samples"]) == sum(s.values[0] for s in p.samples())
    q = pprof.from_cpuprofile(data)
    assert [(t.type, t.unit) for t in q.sample_types] == [("samples", "count"), ("cpu", "nanoseconds")]
    assert sum(s.values[1] for s in q.samples()) == sum(s.values[1] for s in p.samples())
    assert pprof.to_cpuprofile(q) == data  # our output is a fixed point


def test_cpuprofile_errors_name_the_place(tmp_path):
    bad = b'{"nodes": [{"id": 1, "callFrame": {"functionName": "a"}, "children": [4]}]}'
    with pytest.raises(pprof.PprofError) as e:
        pprof.from_cpuprofile(bad)
    assert e.value.path == "nodes[0].children[0]" and e.value.code_name == "PPROF_E_INVALID"
    f = tmp_path / "x.cpuprofile"
    f.write_bytes(b"{")
    with pytest.raises(pprof.PprofError):
        pprof.from_cpuprofile(f)


def test_cpuprofile_limits():
    n = 50
    nodes = [{"id": i + 1, "callFrame": {"functionName": "f%d" % i, "url": ""},
              "children": [i + 2] if i < n - 1 else []} for i in range(n)]
    deep = json.dumps({"nodes": nodes, "samples": list(range(1, n + 1)), "timeDeltas": [1] * n})
    p = pprof.from_cpuprofile(deep.encode())
    assert sum(len(s.frames) for s in p.samples()) == n * (n + 1) // 2
    # every level sampled: the stacks hold n(n+1)/2 frames, refused past the limit
    with pytest.raises(pprof.PprofError) as e:
        pprof.from_cpuprofile(deep.encode(), max_stack_entries=n * (n + 1) // 2 - 1)
    assert e.value.code_name == "PPROF_E_LIMIT" and e.value.path.startswith("nodes[")
    with pytest.raises(pprof.PprofError) as e:
        pprof.from_cpuprofile(deep.encode(), max_depth=10)
    assert e.value.code_name == "PPROF_E_LIMIT" and e.value.path == "nodes[11]"
    with pytest.raises(TypeError):
        pprof.from_cpuprofile(deep.encode(), max_everything=1)
