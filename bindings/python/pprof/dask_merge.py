"""python3 -m pprof.dask_merge [--files-from LIST] [FILE...] -o OUT [--scheduler ADDR]

Merges pprof profiles on Dask (a tree reduction, see pprof.dask) into the bytes pprof-merge
would write. Without --scheduler it starts a LocalCluster for the run.
Exit status: 0 ok, 1 invalid or incompatible input, 2 usage, 3 I/O error."""
import argparse
import sys

from ._core import PprofError


def _paths_from(name):
    f = sys.stdin if name == "-" else open(name, encoding="utf-8")
    try:
        return [line.rstrip("\n") for line in f if line.strip()]
    finally:
        if f is not sys.stdin:
            f.close()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m pprof.dask_merge",
                                 description="Merges pprof profiles on Dask, byte-identical to pprof-merge.")
    ap.add_argument("files", nargs="*", metavar="FILE", help="input profiles")
    ap.add_argument("--files-from", metavar="LIST", action="append", default=[],
                    help="read more input paths from LIST, one per line ('-' = stdin)")
    ap.add_argument("-o", "--output", required=True, metavar="OUT", help="output path, written atomically by the last task")
    ap.add_argument("--scheduler", metavar="ADDR", help="a running scheduler (tcp://host:8786); default: a LocalCluster")
    ap.add_argument("--workers", type=int, help="LocalCluster worker processes (default: all cores)")
    ap.add_argument("--partition", type=int, default=64, help="input files merged by each leaf task (default 64)")
    ap.add_argument("--fan-in", type=int, default=8, help="partial results merged by each inner task (default 8)")
    ap.add_argument("--compress", choices=["gzip", "zstd", "none"], default="gzip")
    ap.add_argument("--level", type=int, default=0, help="compression level (default: gzip 1, zstd 3, as every tool)")
    ap.add_argument("--intersect-types", action="store_true")
    ap.add_argument("--inline-conflict", choices=["keep", "longest", "error"], default="keep")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the tree and the time taken")
    a = ap.parse_args(argv)
    try:
        paths = list(a.files)
        for lst in a.files_from:
            paths += _paths_from(lst)
    except OSError as e:
        print(f"pprof.dask_merge: {e.filename}: cannot open: {e.strerror}", file=sys.stderr)
        return 3
    if not paths:
        ap.print_usage(sys.stderr)
        print("pprof.dask_merge: no input files", file=sys.stderr)
        return 2
    if a.partition < 1 or a.fan_in < 2:
        print("pprof.dask_merge: --partition must be >= 1 and --fan-in >= 2", file=sys.stderr)
        return 2

    from . import dask as pdask

    client = None
    if a.scheduler:
        from distributed import Client
        client = Client(a.scheduler)
    try:
        r = pdask.merge(paths, client=client, partition=a.partition, fan_in=a.fan_in, out=a.output, compress=a.compress,
                        level=a.level, n_workers=a.workers, intersect_types=a.intersect_types,
                        inline_conflict=a.inline_conflict)
    except PprofError as e:
        print(f"pprof.dask_merge: {e}", file=sys.stderr)
        return 3 if e.code_name == "PPROF_E_IO" else 1
    finally:
        if client is not None:
            client.close()
    if a.verbose:
        print(f"{r.inputs} inputs, {r.leaf_tasks} leaf tasks, {r.inner_tasks} inner tasks, {r.levels} levels: "
              f"{r.seconds:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
