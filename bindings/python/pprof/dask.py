"""Merging a fleet of profiles on Dask: pprof.dask.merge().

Merge is associative and byte-deterministic (merging a grouping of the inputs, then merging
the partial results, gives the bytes of merging them all at once), so the merge is a tree
reduction: each leaf task merges `partition` input files with the library into bytes, each
inner task merges up to `fan_in` such results, and the last task writes the output (on the
worker that runs it; the output path must be on a file system it shares) or returns its bytes.

Workers read the input paths themselves: they must see the same files (a shared or
replicated file system). Only merged partial profiles travel between workers.
"""
import math
import os
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

from .merge import merge as _merge
from .merge import merge_to_bytes as _merge_to_bytes


@dataclass
class DaskMergeResult:
    inputs: int
    leaf_tasks: int
    inner_tasks: int
    levels: int
    seconds: float
    output: Optional[str]
    data: Optional[bytes]  # the merged bytes when no output path was given


def _merge_part(items, compress, level, options):
    """A task: merges paths or partial results (bytes) into bytes."""
    return _merge_to_bytes(items, compress=compress, level=level, **options)


def _merge_final(items, out, compress, level, options):
    if out is None:
        return _merge_to_bytes(items, compress=compress, level=level, **options)
    _merge(items, out=out, compress=compress, level=level, **options)
    return None


def _chunks(seq, n):
    return [seq[i:i + n] for i in range(0, len(seq), n)]


def plan(n_inputs: int, partition: int, fan_in: int):
    """(leaf tasks, inner tasks, levels) of the tree for n_inputs."""
    leaves = max(1, math.ceil(n_inputs / partition))
    inner, level, width = 0, 1, leaves
    while width > 1:
        width = math.ceil(width / fan_in)
        inner += width
        level += 1
    return leaves, inner, level


def merge(paths: Sequence[str], client=None, partition: int = 64, fan_in: int = 8, out: Optional[str] = None,
          compress: str = "gzip", level: int = 0, intermediate: str = "zstd", n_workers: Optional[int] = None,
          processes: bool = True, intersect_types: bool = False, inline_conflict: str = "keep") -> DaskMergeResult:
    """Merges paths on Dask into out (or returns the bytes in .data): the same bytes as
    pprof-merge with the same compression options, whatever the partition, fan-in or number of
    workers. client: a distributed.Client; None starts a LocalCluster (n_workers processes, one
    thread each; processes=False for threads in this process) for the call.
    intermediate: how partial results travel between tasks ('zstd', 'gzip' or 'none')."""
    from distributed import Client, LocalCluster

    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("no input paths")
    if partition < 1 or fan_in < 2:
        raise ValueError("partition must be >= 1 and fan_in >= 2")
    # each level would repeat its inputs' warnings (inline conflicts); pprof-merge shows them once
    options = {"intersect_types": intersect_types, "inline_conflict": inline_conflict, "warn": False}
    ilevel = 1 if intermediate in ("zstd", "gzip") else 0
    own = None
    if client is None:
        cluster = LocalCluster(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=processes,
                               dashboard_address=":0")
        own = (cluster, Client(cluster))
        client = own[1]
    try:
        t0 = time.perf_counter()
        groups = _chunks(paths, partition)
        leaves, inner = len(groups), 0
        if len(groups) == 1:
            tasks = None
            final_inputs = groups[0]
        else:
            tasks = [client.submit(_merge_part, g, intermediate, ilevel, options, pure=False) for g in groups]
            while len(tasks) > fan_in:
                tasks = [client.submit(_merge_part, g, intermediate, ilevel, options, pure=False) for g in _chunks(tasks, fan_in)]
                inner += len(tasks)
            final_inputs = tasks
        final = client.submit(_merge_final, final_inputs, out, compress, level, options, pure=False)
        inner += 1 if tasks is not None else 0
        del tasks, final_inputs
        data = final.result()
        seconds = time.perf_counter() - t0
        levels = plan(len(paths), partition, fan_in)[2]
        return DaskMergeResult(len(paths), leaves, inner, levels, seconds, out, data)
    finally:
        if own:
            own[1].close()
            own[0].close()
