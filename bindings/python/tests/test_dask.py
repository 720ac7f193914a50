"""pprof.dask.merge and python3 -m pprof.dask_merge: byte-identical to pprof-merge over
hundreds of generated host profiles, for several partition sizes, fan-ins and worker counts."""
import os
import subprocess
import sys

import pytest
from conftest import SRC, run, tool

pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import pprof  # noqa: E402
import pprof.dask  # noqa: E402

N = 240


@pytest.fixture(scope="module")
def fleet(tmp_path_factory, gen):
    d = tmp_path_factory.mktemp("fleet")
    paths = []
    for i in range(N):
        p = d / f"host{i:03d}.pb.gz"
        r = run(gen, "--preset", "host", "--host", i, "--samples", 300, "--compress", "gzip", "-o", p)
        assert r.returncode == 0, r.stderr
        paths.append(str(p))
    lst = d / "list"
    lst.write_text("".join(p + "\n" for p in paths))
    ref = d / "ref.pb.gz"
    r = run(tool("pprof-merge"), "-q", "--files-from", lst, "-o", ref)
    assert r.returncode == 0, r.stderr
    return paths, lst, ref.read_bytes()


@pytest.fixture(scope="module")
def client():
    # tcp, not inproc, so that the CLI can reach its scheduler from another process
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.parametrize("partition,fan_in,intermediate", [(1, 16, "zstd"), (7, 3, "none"), (32, 2, "gzip"), (64, 8, "zstd"), (N, 8, "zstd")])
def test_identical_to_pprof_merge(fleet, client, partition, fan_in, intermediate):
    paths, _, ref = fleet
    r = pprof.dask.merge(paths, client=client, partition=partition, fan_in=fan_in, intermediate=intermediate)
    assert r.data == ref
    leaves, inner, levels = pprof.dask.plan(N, partition, fan_in)
    assert (r.leaf_tasks, r.inner_tasks, r.levels) == (leaves, inner, levels)


def test_order_and_one_worker(fleet, tmp_path):
    paths, _, ref = fleet
    c = distributed.Client(distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"))
    try:
        out = tmp_path / "out.pb.gz"
        r = pprof.dask.merge(list(reversed(paths)), client=c, partition=20, out=str(out))
        assert r.data is None and out.read_bytes() == ref
    finally:
        c.close()


def test_cli_local_cluster_processes(fleet, tmp_path):
    """The CLI's own LocalCluster, with worker processes: results travel pickled."""
    paths, lst, ref = fleet
    out = tmp_path / "cli.pb.gz"
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"))
    r = subprocess.run([sys.executable, "-m", "pprof.dask_merge", "--files-from", str(lst), "-o", str(out), "--workers", "2",
                        "--partition", "50", "-v"], capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_bytes() == ref
    assert b"5 leaf tasks" in r.stderr


def test_cli_scheduler(fleet, client, tmp_path):
    paths, lst, ref = fleet
    out = tmp_path / "sched.pb.zst"
    ref_zst = tmp_path / "ref.pb.zst"
    assert run(tool("pprof-merge"), "-q", "--compress=zstd", *paths[:100], "-o", ref_zst).returncode == 0
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"))
    r = subprocess.run([sys.executable, "-m", "pprof.dask_merge", *paths[:100], "-o", str(out), "--compress", "zstd",
                        "--scheduler", client.scheduler.address, "--partition", "16"], capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_bytes() == ref_zst.read_bytes()


def test_errors(fleet, client, tmp_path):
    paths, _, _ = fleet
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\xff\xff")
    with pytest.raises(pprof.PprofError) as e:
        pprof.dask.merge(paths[:10] + [str(bad)], client=client, partition=4)
    assert e.value.code_name == "PPROF_E_WIRE" and e.value.file == str(bad)
    env = dict(os.environ, PYTHONPATH=str(SRC / "bindings" / "python"))
    cli = [sys.executable, "-m", "pprof.dask_merge", "--scheduler", client.scheduler.address, "-o", str(tmp_path / "o")]
    r = subprocess.run(cli + [paths[0], str(bad)], capture_output=True, env=env, timeout=120)
    assert r.returncode == 1 and b"bad.pb" in r.stderr
    r = subprocess.run(cli + [paths[0], str(tmp_path / "missing")], capture_output=True, env=env, timeout=120)
    assert r.returncode == 3 and b"missing" in r.stderr
    r = subprocess.run(cli, capture_output=True, env=env, timeout=120)
    assert r.returncode == 2
