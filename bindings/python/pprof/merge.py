"""pprof.merge(): the exact, deterministic merge of pprof-merge."""
import ctypes
import os
import warnings
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from . import _lib
from ._core import (PprofError, as_bytes, c_integer, c_str, check, fspath_bytes, other_format_possible, read_options,
                    readers_first, take_buffer, write_options)
from ._lib import lib
from .profile import Profile

_POLICIES = {"keep": 0, "longest": 1, "error": 2}


class MergeWarning(UserWarning):
    """A warning of the merger (an inline conflict, say)."""


@dataclass(frozen=True)
class MergeSummary:
    inputs: int
    samples: int
    locations: int
    functions: int


class _Merger:
    def __init__(self, threads, intersect_types, inline_conflict, warn=True):
        if inline_conflict not in _POLICIES:
            raise ValueError("inline_conflict must be 'keep', 'longest' or 'error'")
        self.warnings = []
        self.warn_to = warn
        # warnings may come from the merger's own thread: collected, then issued by the caller
        self._warn = _lib.WARN_FN(lambda _ctx, msg: self.warnings.append(msg.decode("utf-8", "replace")))
        o = _lib.MergeOptions()
        lib.pprof_merge_options_init(ctypes.byref(o))
        o.intersect_types = bool(intersect_types)
        o.inline_conflict = _POLICIES[inline_conflict]
        o.warn = self._warn
        o.threads = c_integer(threads, ctypes.c_uint, "threads")
        self.m = ctypes.c_void_p()
        err = _lib.Error()
        check(lib.pprof_merger_new(ctypes.byref(o), ctypes.byref(self.m), ctypes.byref(err)), err)

    def add(self, item, limits):
        """Adds a path, bytes or a Profile."""
        err = _lib.Error()
        if isinstance(item, Profile):
            name = c_str(item.name or "<profile>", "profile name")
            check(lib.pprof_merger_add(self.m, item._handle(), name, ctypes.byref(err)), err, item.name)
            return
        ro = read_options(limits)
        if readers_first(item):
            ro.readers = _lib.formats_readers()
        inp, st, name = self._read(item, ro, err)
        if st != _lib.OK and not ro.readers and other_format_possible(st):
            ro.readers = _lib.formats_readers(required=False)  # OTLP, say (pprof.read)
            if ro.readers:
                inp, st, name = self._read(item, ro, err)
        check(st, err, name)
        try:
            check(lib.pprof_merger_add_input(self.m, inp, c_str(name, "input name"), ctypes.byref(err)), err, name)
        finally:
            lib.pprof_merge_input_free(inp)

    @staticmethod
    def _read(item, ro, err):
        inp = ctypes.c_void_p()
        if isinstance(item, (bytes, bytearray, memoryview)):
            keep, ptr, n = as_bytes(item)
            st = lib.pprof_merge_input_read_memory(ptr, n, ctypes.byref(ro), ctypes.byref(inp), ctypes.byref(err))
            del keep
            return inp, st, "<bytes>"
        st = lib.pprof_merge_input_read_file(fspath_bytes(item), ctypes.byref(ro), ctypes.byref(inp), ctypes.byref(err))
        return inp, st, os.fsdecode(os.fspath(item))

    def count(self):
        return lib.pprof_merger_count(self.m)

    def close(self):
        if self.m:
            lib.pprof_merger_free(self.m)
            self.m = ctypes.c_void_p()
        for w in self.warnings:
            if callable(self.warn_to):
                self.warn_to(w)
            elif self.warn_to:
                warnings.warn(w, MergeWarning, stacklevel=3)
        self.warnings = []


def merge(inputs: Iterable[Union[str, os.PathLike, bytes, Profile]], out=None, threads: int = 0, compress: str = "gzip", level: int = 0,
          intersect_types: bool = False, inline_conflict: str = "keep", warn=True, **limits) -> Union[Profile, MergeSummary]:
    """Merges profiles (paths, bytes or Profiles) with Go's semantics, exactly and
    deterministically. With out=None returns the merged Profile; with out (a path, '-' for
    standard output) writes it there atomically, as pprof-merge does with the same options
    (the same bytes), and returns a MergeSummary. threads: the merger's threads (0: the
    calling one). The merger's warnings (inline conflicts) are issued as MergeWarning; warn=False
    drops them, a callable receives each message. Raises PprofError naming the input."""
    if isinstance(inputs, (str, bytes, os.PathLike, Profile)):
        inputs = [inputs]
    m = _Merger(threads, intersect_types, inline_conflict, warn)
    try:
        for item in inputs:
            m.add(item, limits)
        err = _lib.Error()
        if out is None:
            p = ctypes.c_void_p()
            check(lib.pprof_merger_finish(m.m, ctypes.byref(p), ctypes.byref(err)), err)
            return Profile(p, "<merged>")
        w = write_options(compress, level, threads)
        s = _lib.MergeSummary()
        check(lib.pprof_merger_write_file(m.m, ctypes.byref(w), fspath_bytes(out), ctypes.byref(s), ctypes.byref(err)), err, out)
        return MergeSummary(m.count(), s.samples, s.locations, s.functions)
    finally:
        m.close()


def merge_to_bytes(inputs, threads: int = 0, compress: str = "gzip", level: int = 0, intersect_types: bool = False,
                   inline_conflict: str = "keep", warn=True, **limits) -> bytes:
    """merge(), encoded in memory (pprof_merger_write_memory): the bytes pprof-merge would write
    with the same options. Inputs may be paths, bytes or Profiles."""
    if isinstance(inputs, (str, bytes, os.PathLike, Profile)):
        inputs = [inputs]
    m = _Merger(threads, intersect_types, inline_conflict, warn)
    try:
        for item in inputs:
            m.add(item, limits)
        w = write_options(compress, level, threads)
        buf = _lib.Buffer()
        err = _lib.Error()
        st = lib.pprof_merger_write_memory(m.m, ctypes.byref(w), ctypes.byref(buf), None, ctypes.byref(err))
        if st != _lib.OK:
            lib.pprof_buffer_free(ctypes.byref(buf))
            raise PprofError.from_c(err)
        return take_buffer(buf)
    finally:
        m.close()
