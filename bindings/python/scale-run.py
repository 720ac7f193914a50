"""Measures pprof.dask.merge against pprof-merge on generated host profiles (docs/scale.md).
Usage: scale-run.py BUILD_DIR WORK_DIR [N] [WORKERS] [PARTITION] [FAN_IN]
Generates N host profiles (pprof-gen --preset host, about 200 KB gzip each) into WORK_DIR once,
then times pprof-merge -j WORKERS and the Dask merge on a LocalCluster of WORKERS processes,
checks the bytes are identical and prints the figures."""
import os
import resource
import subprocess
import sys
import time

if "PPROF_LIBRARY" not in os.environ and len(sys.argv) > 1:
    os.environ["PPROF_LIBRARY"] = os.path.join(sys.argv[1], "libpprof", "libpprof.so.2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distributed  # noqa: E402

import pprof  # noqa: E402
import pprof.dask  # noqa: E402


def main():
    build, work = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    partition = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    fan_in = int(sys.argv[6]) if len(sys.argv) > 6 else 8

    os.makedirs(work, exist_ok=True)
    paths = []
    for i in range(n):
        p = os.path.join(work, f"host{i:05d}.pb.gz")
        if not os.path.exists(p):
            subprocess.run([os.path.join(build, "bench", "pprof-gen"), "--preset", "host", "--host", str(i), "--compress", "gzip",
                            "-o", p], check=True)
        paths.append(p)
    total = sum(os.path.getsize(p) for p in paths)
    print(f"inputs: {n} files, {total / 1e6:.1f} MB gzip, {total / n / 1e3:.0f} KB each", flush=True)

    lst = os.path.join(work, "list")
    with open(lst, "w") as f:
        f.write("".join(p + "\n" for p in paths))
    ref = os.path.join(work, "ref.pb.gz")
    t = time.perf_counter()
    subprocess.run([os.path.join(build, "tools", "pprof-merge"), "-q", "-j", str(workers), "--files-from", lst, "-o", ref], check=True)
    t_tool = time.perf_counter() - t
    rss_tool = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"pprof-merge -j {workers}: {t_tool:.2f} s, peak RSS {rss_tool:.0f} MB, output {os.path.getsize(ref) / 1e6:.2f} MB", flush=True)

    part_raw = pprof.merge_to_bytes(paths[:partition], compress="none", warn=False)
    part_zst = pprof.merge_to_bytes(paths[:partition], compress="zstd", level=1, warn=False)
    print(f"one leaf's result ({partition} inputs): {len(part_raw) / 1e6:.2f} MB raw, {len(part_zst) / 1e6:.2f} MB zstd-1", flush=True)

    t = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    t_start = time.perf_counter() - t
    out = os.path.join(work, "dask.pb.gz")
    r = pprof.dask.merge(paths, client=client, partition=partition, fan_in=fan_in, out=out)
    rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    client.close()
    cluster.close()
    same = open(out, "rb").read() == open(ref, "rb").read()
    print(f"dask LocalCluster {workers} workers (start {t_start:.2f} s): {r.seconds:.2f} s, {r.leaf_tasks} leaf + "
          f"{r.inner_tasks} inner tasks, {r.levels} levels, worker peak RSS "
          + ", ".join(f"{v:.0f}" for v in rss.values()) + " MB; byte-identical to pprof-merge: " + ("yes" if same else "NO"))
    return 0 if same else 1


# Worker processes import this file again (multiprocessing's spawn): only the parent runs main.
if __name__ == "__main__":
    sys.exit(main())
