"""examples/python-sampler: its profiles pass pprof-check and go tool pprof reads them; its
memory stays flat over many serialize cycles with new functions in every cycle."""
import os
import subprocess
import sys
import threading

import pytest
from conftest import SRC, run, tool

import pprof

EXAMPLE = SRC / "examples" / "python-sampler"
sys.path.insert(0, str(EXAMPLE))
from sampler import Sampler  # noqa: E402


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    d = tmp_path_factory.mktemp("sampler")
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"))
    r = subprocess.run([sys.executable, str(EXAMPLE / "sampler.py"), "-o", str(d / "py-{n}.pb.gz"), "--interval", "0.005",
                        "--every", "0.6", str(EXAMPLE / "workload.py"), "1.5"], capture_output=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    files = sorted(d.glob("py-*.pb.gz"))
    assert len(files) >= 2, r.stderr.decode()
    return files


def test_profiles_pass_check(profiles):
    r = run(tool("pprof-check"), "--fail-on=warning", *profiles)
    assert r.returncode == 0, r.stdout + r.stderr


def test_profiles_hold_the_workload(profiles):
    funcs, threads = set(), set()
    for f in profiles:
        p = pprof.read(f)
        assert p.sample_types[1] == pprof.ValueType("wall", "nanoseconds")
        assert p.header.duration_nanos > 0
        for s in p.samples():
            funcs.update(fr.function for fr in s.frames)
            threads.add(s.label_dict["thread"])
            assert s.frames[-1].function in ("<module>", "Thread._bootstrap")  # whole stacks, root last
    assert {"busy_loop", "sleeper", "main"} <= funcs
    assert {"MainThread", "sleeper"} <= threads
    assert "pprof-sampler" not in threads


def test_go_tool_pprof_top(profiles, go, tmp_path):
    env = dict(os.environ, HOME=str(tmp_path), PPROF_TMPDIR=str(tmp_path))
    r = subprocess.run([go, "tool", "pprof", "-top", str(profiles[0])], capture_output=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    assert "Type: wall" in out and "busy_loop" in out and "sleeper" in out


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_memory_flat_over_serialize_cycles(tmp_path):
    """Every cycle a thread runs a function that did not exist before (as generated code,
    lambdas and per-request names make in a long-running program); after each serialize the
    builder holds only the next cycle's names, so its tables and the RSS stay flat."""
    s = Sampler(str(tmp_path / "cycle-{n}.pb"), compress="none")
    strings, arena, rss = [], [], []
    for cycle in range(250):
        ns = {}
        exec(compile(f"def generated_{cycle}(ev):\n    ev.wait()\n", f"<generated-{cycle}>", "exec"), ns)
        ev = threading.Event()
        t = threading.Thread(target=ns[f"generated_{cycle}"], args=(ev,), name=f"worker-{cycle}")
        t.start()
        for _ in range(5):
            s.sample_once()
        ev.set()
        t.join()
        strings.append(s.builder.stats().strings)
        path = s.flush()
        arena.append(s.builder.stats().arena_bytes)
        rss.append(rss_kb())
        if cycle > 2:
            os.unlink(path)
    assert max(strings[50:]) <= max(strings[:50]) + 2, strings[-5:]
    assert max(arena[50:]) <= max(arena[:50])
    assert rss[-1] - rss[50] < 4096, (rss[50], rss[-1])
    # a cycle's profile names only its own generated function
    p = pprof.read(tmp_path / "cycle-2.pb")
    names = {f.function for smp in p.samples() for f in smp.frames}
    assert "generated_2" in names and "generated_1" not in names
    assert s.stop()
