"""pprof.Builder: profiles that read back, stale handles, errors, flat memory."""
import pytest
from conftest import run, tool

import pprof

TYPES = [("samples", "count"), ("cpu", "nanoseconds")]


def test_round_trip_and_check(tmp_path):
    b = pprof.Builder(TYPES, period_type=("cpu", "nanoseconds"), period=10_000_000, default_sample_type="cpu")
    main = b.function("main", filename="main.py", start_line=1)
    work = b.function("work", filename="main.py", start_line=10)
    m = b.mapping(0x1000, 0x2000, filename="/usr/bin/python3", build_id="abc")
    leaf = b.location([(work, 12, 4)], mapping=m, address=0x1010)
    root = b.location([(main, 3)])
    b.add_sample([1, 10], [leaf, root], labels={"thread": "MainThread", "bytes": (512, "bytes"), "n": 7})
    b.add_sample([2, 20], [leaf, root], labels={"thread": "MainThread", "bytes": (512, "bytes"), "n": 7})  # aggregated
    b.add_sample([1, 10], [root])
    b.set_time(1_700_000_000_000_000_000, 1_000_000_000)
    b.add_comment("from the test")
    out = tmp_path / "b.pb.gz"
    b.serialize_file(out)
    r = run(tool("pprof-check"), "--fail-on=warning", out)
    assert r.returncode == 0, r.stdout + r.stderr
    p = pprof.read(out)
    assert p.header.default_sample_type == "cpu" and p.header.comments == ("from the test",)
    assert p.header.time_nanos == 1_700_000_000_000_000_000 and p.header.period == 10_000_000
    s = list(p.samples())
    assert [x.values for x in s] == [(3, 30), (1, 10)]
    f = s[0].frames
    assert [(x.function, x.line, x.column) for x in f] == [("work", 12, 4), ("main", 3, 0)]
    assert f[0].mapping.filename == "/usr/bin/python3" and f[0].address == 0x1010
    assert s[0].label_dict == {"thread": "MainThread", "bytes": 512, "n": 7}
    assert [l for l in s[0].labels if l.key == "bytes"][0].unit == "bytes"
    assert b.close() == 0


def test_serialize_resets_and_stale_handles():
    b = pprof.Builder(TYPES)
    fn = b.function("f")
    loc = b.location([(fn, 1)])
    b.add_sample([1, 1], [loc])
    g = b.generation
    data = b.serialize(compress="zstd")
    assert data[:4] == b"\x28\xb5\x2f\xfd"
    assert b.generation != g and b.stats().samples == 0
    with pytest.raises(pprof.PprofError) as e:
        b.add_sample([1, 1], [loc])
    assert e.value.code_name == "PPROF_E_STALE" and e.value.code == 11
    assert e.value.path.startswith("stack[0]")
    with pytest.raises(pprof.PprofError):
        b.location([(fn, 2)])
    # without reset the same samples come out again
    loc = b.location([(b.function("f"), 1)])
    b.add_sample([1, 1], [loc])
    assert b.serialize(reset=False) == b.serialize(reset=False)


def test_errors_and_limits():
    with pytest.raises(pprof.PprofError) as e:
        pprof.Builder([])
    assert e.value.code_name == "PPROF_E_ARG"
    b = pprof.Builder(TYPES, max_samples=2)
    with pytest.raises(ValueError):
        b.add_sample([1], [])
    locs = [b.location([(b.function(f"f{i}"), i)]) for i in range(3)]
    b.add_sample([1, 1], [locs[0]])
    b.add_sample([1, 1], [locs[1]])
    with pytest.raises(pprof.PprofError) as e:
        b.add_sample([1, 1], [locs[2]])
    assert e.value.code_name == "PPROF_E_LIMIT"
    with pytest.raises(pprof.PprofError) as e:
        b.add_sample([2**63 - 1, 1], [locs[0]])
    assert e.value.code_name == "PPROF_E_OVERFLOW"
    with pytest.raises(TypeError):
        pprof.Builder(TYPES, max_bananas=3)
    assert b.close() == 2  # two samples never serialized


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_memory_flat_over_serialize_cycles():
    """Each cycle interns names never seen before (a profiler's churn: generated code, lambdas,
    per-request names); after serialize-and-reset the tables hold only the current cycle's, so
    the builder's memory and the process's RSS stay flat (the unbounded string table bug)."""
    b = pprof.Builder(TYPES)
    arena = []
    rss = []
    for cycle in range(300):
        cache = {}
        for i in range(200):
            name = f"fn_{cycle}_{i}"
            fn = cache.get(name) or cache.setdefault(name, b.function(name, filename=f"gen_{cycle}.py"))
            loc = b.location([(fn, i)])
            b.add_sample([1, 10], [loc], labels={"request": f"r{cycle}-{i % 7}"})
        st = b.stats()
        assert st.strings <= 200 + 7 + 5 + 4  # this cycle's names, files, labels, types
        b.serialize(compress="none")
        arena.append(b.stats().arena_bytes)
        rss.append(rss_kb())
    assert max(arena[50:]) <= max(arena[:50])
    assert rss[-1] - rss[50] < 4096, (rss[50], rss[-1])  # kB; a leak of the tables would be tens of MB


def test_add_frames_by_value_from_threads():
    """add_frames needs no handles: four threads add while the main thread serializes."""
    import threading

    b = pprof.Builder(TYPES, thread_safe=True)
    stop = threading.Event()
    added = [0] * 4

    def worker(k):
        while not stop.is_set() and added[k] < 2000:
            b.add_frames([1, 10], [(f"leaf{k}", "w.py", 3), {"function": "main", "filename": "w.py", "line": 1,
                                                              "start_line": 1}], labels={"worker": k, "kind": "t"})
            added[k] += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    total = 0
    blobs = []
    while any(t.is_alive() for t in threads):
        blobs.append(b.serialize(compress="none"))
    for t in threads:
        t.join()
    blobs.append(b.serialize(compress="none"))
    for data in blobs:
        p = pprof.read(data)
        for s in p.samples():
            total += s.values[0]
            assert [f.function for f in s.frames][1] == "main"
            assert s.label_dict["kind"] == "t"
    assert total == sum(added) == 8000  # every sample in exactly one profile
    with pytest.raises(pprof.PprofError) as e:
        b.add_frames([1, 1], [("f", "x.py", 1)], labels={"": "empty key"})
    assert e.value.code_name == "PPROF_E_ARG" and e.value.path == "label.key"
    assert b.stats().open_samples == 0  # the failed sample was aborted
    with pytest.raises(ValueError):
        b.add_frames([1], [])
