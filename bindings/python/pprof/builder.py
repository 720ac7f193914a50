"""pprof.Builder: the write side for profilers (pprof/builder.h)."""
import ctypes
import os
from dataclasses import dataclass
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

from . import _lib
from ._core import _Closing, PprofError, check, fspath_bytes, take_buffer, write_options
from ._lib import Fn, Loc, Map, Str, lib

__all__ = ["Builder", "BuilderStats", "Str", "Fn", "Map", "Loc"]

_NONE_STR = Str(0)
_NONE_MAP = Map(0)


@dataclass(frozen=True)
class BuilderStats:
    strings: int
    string_bytes: int
    functions: int
    locations: int
    mappings: int
    samples: int
    open_samples: int
    arena_bytes: int
    generation: int
    serialized: int
    limit_errors: int


def _cstr(s):
    if s is None:
        return None
    return s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s)


class Builder(_Closing):
    """Builds profiles with bounded memory.

    Strings, functions, mappings and locations are interned into handles (Str, Fn, Map, Loc)
    that belong to one generation: serialize(reset=True), reset() and finish() start a new one,
    after which every older handle raises PprofError with code_name "PPROF_E_STALE" — so a
    profiler drops its handle caches whenever it serializes (see `generation`).

        b = pprof.Builder([("samples", "count"), ("cpu", "nanoseconds")],
                          period_type=("cpu", "nanoseconds"), period=10_000_000)
        fn = b.function("main", filename="main.py", start_line=1)
        loc = b.location([(fn, 12)])
        b.add_sample([1, 10_000_000], [loc], labels={"thread": "MainThread"})
        data = b.serialize()          # bytes of a gzip profile; the builder starts afresh
    """

    def __init__(self, sample_types: Sequence[Tuple[str, str]], period_type: Optional[Tuple[str, str]] = None, period: int = 0,
                 default_sample_type: Optional[str] = None, thread_safe: bool = False, **limits):
        o = _lib.BuilderOptions()
        lib.pprof_builder_options_init(ctypes.byref(o))
        self._keep = []  # C strings the options point to
        types = (_lib.BuilderValueType * len(sample_types))()
        for i, (t, u) in enumerate(sample_types):
            types[i] = _lib.BuilderValueType(_cstr(t), _cstr(u))
        self.n_values = len(sample_types)
        o.sample_types = types
        o.n_sample_types = len(sample_types)
        if period_type:
            o.period_type = _lib.BuilderValueType(_cstr(period_type[0]), _cstr(period_type[1]))
        o.period = int(period)
        o.default_sample_type = _cstr(default_sample_type)
        if thread_safe:
            o.flags |= _lib.BUILDER_THREAD_SAFE
        for k, v in limits.items():
            if not k.startswith("max_") or not hasattr(o, k):
                raise TypeError(f"unknown builder limit {k!r}")
            setattr(o, k, int(v))
        self._b = ctypes.c_void_p()
        err = _lib.Error()
        check(lib.pprof_builder_new(ctypes.byref(o), ctypes.byref(self._b), ctypes.byref(err)), err)
        self._err = _lib.Error()

    # -- lifetime
    def close(self) -> int:
        """Frees the builder; returns how many samples it still held (never serialized)."""
        if not self._b:
            return 0
        n = lib.pprof_builder_free(self._b)
        self._b = ctypes.c_void_p()
        return n

    def _h(self):
        if not self._b:
            raise ValueError("the builder is closed")
        return self._b

    def _call(self, st):
        if st != _lib.OK:
            raise PprofError.from_c(self._err)

    # -- interning
    def intern(self, s: Union[str, bytes, Str, None]) -> Str:
        """The handle of a string ("" and None are the zero handle)."""
        if isinstance(s, Str):
            return s
        if not s:
            return _NONE_STR
        b = _cstr(s)
        out = Str()
        self._call(lib.pprof_builder_intern(self._h(), b, len(b), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def function(self, name, system_name=None, filename=None, start_line: int = 0) -> Fn:
        """A function; names are strings or Str handles. system_name defaults to name."""
        n = self.intern(name)
        sn = n if system_name is None else self.intern(system_name)
        out = Fn()
        self._call(lib.pprof_builder_function(self._h(), n, sn, self.intern(filename), int(start_line), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def mapping(self, memory_start: int, memory_limit: int, file_offset: int = 0, filename=None, build_id=None, has_functions=True,
                has_filenames=False, has_line_numbers=False, has_inline_frames=False) -> Map:
        d = _lib.BuilderMappingDesc(memory_start, memory_limit, file_offset, self.intern(filename), self.intern(build_id),
                                    has_functions, has_filenames, has_line_numbers, has_inline_frames)
        out = Map()
        self._call(lib.pprof_builder_mapping(self._h(), ctypes.byref(d), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def location(self, lines: Sequence = (), mapping: Optional[Map] = None, address: int = 0, is_folded: bool = False) -> Loc:
        """A location: lines are (Fn, line) or (Fn, line, column), innermost (inlined) first."""
        arr = (_lib.BuilderLine * max(1, len(lines)))()
        for i, ln in enumerate(lines):
            arr[i] = _lib.BuilderLine(ln[0], ln[1], ln[2] if len(ln) > 2 else 0)
        out = Loc()
        self._call(lib.pprof_builder_location(self._h(), mapping or _NONE_MAP, address, arr, len(lines), is_folded, ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def _labels(self, labels):
        items = labels.items() if isinstance(labels, dict) else (labels or ())
        arr = (_lib.BuilderLabel * max(1, len(items)))()
        n = 0
        for key, v in items:
            lab = _lib.BuilderLabel()
            lab.key = self.intern(key)
            if isinstance(v, tuple):  # (number, unit)
                lab.num, lab.num_unit = int(v[0]), self.intern(v[1])
            elif isinstance(v, int) and not isinstance(v, bool):
                lab.num = v
            else:
                lab.str = self.intern(str(v))
            arr[n] = lab
            n += 1
        return arr, n

    def add_sample(self, values: Sequence[int], stack: Sequence[Loc], labels: Union[Dict, Iterable, None] = None) -> None:
        """Adds a sample: one value per sample type, the stack leaf first, labels as
        {key: str | int | (int, unit)}. Equal stacks with equal labels add their values."""
        if len(values) != self.n_values:
            raise ValueError(f"{len(values)} values for {self.n_values} sample types")
        vals = (ctypes.c_int64 * len(values))(*values)
        st = (Loc * max(1, len(stack)))(*stack)
        lab, nl = self._labels(labels)
        self._call(lib.pprof_builder_add_sample(self._h(), vals, len(values), st, len(stack), lab, nl, ctypes.byref(self._err)))

    def add_frames(self, values: Sequence[int], frames: Sequence, labels: Union[Dict, Iterable, None] = None) -> None:
        """Adds a sample given by value, without handles: frames (leaf first) are
        (function, filename, line) tuples or dicts with the fields of pprof_builder_frame
        (function, system_name, filename, line, start_line, address, mapping_start,
        mapping_limit, mapping_offset, mapping_filename, mapping_build_id); labels as for
        add_sample. Each frame is interned and appended in one call, so with
        thread_safe=True several threads may add samples while another serializes, and no
        handle can go stale (pprof_builder_open_*)."""
        if len(values) != self.n_values:
            raise ValueError(f"{len(values)} values for {self.n_values} sample types")
        h, err = self._h(), _lib.Error()
        s = _lib.Open()
        if lib.pprof_builder_open_begin(h, ctypes.byref(s), ctypes.byref(err)) != _lib.OK:
            raise PprofError.from_c(err)
        try:
            for fr in frames:
                f = _lib.BuilderFrame()
                if isinstance(fr, dict):
                    for k, v in fr.items():
                        setattr(f, k, _cstr(v) if isinstance(v, str) else v)
                else:
                    f.function, f.filename, f.line = _cstr(fr[0]), _cstr(fr[1]), int(fr[2])
                if lib.pprof_builder_open_add_frame(h, s, ctypes.byref(f), ctypes.byref(err)) != _lib.OK:
                    raise PprofError.from_c(err)
            items = labels.items() if isinstance(labels, dict) else (labels or ())
            for key, v in items:
                if isinstance(v, tuple):
                    st = lib.pprof_builder_open_add_label_cstr(h, s, _cstr(key), None, int(v[0]), _cstr(v[1]), ctypes.byref(err))
                elif isinstance(v, int) and not isinstance(v, bool):
                    st = lib.pprof_builder_open_add_label_cstr(h, s, _cstr(key), None, v, None, ctypes.byref(err))
                else:
                    st = lib.pprof_builder_open_add_label_cstr(h, s, _cstr(key), _cstr(str(v)), 0, None, ctypes.byref(err))
                if st != _lib.OK:
                    raise PprofError.from_c(err)
            vals = (ctypes.c_int64 * len(values))(*values)
            if lib.pprof_builder_open_commit(h, s, vals, len(values), ctypes.byref(err)) != _lib.OK:
                raise PprofError.from_c(err)
        except BaseException:
            lib.pprof_builder_open_abort(h, s, None)
            raise

    # -- header
    def set_time(self, time_nanos: int, duration_nanos: int = 0) -> None:
        self._call(lib.pprof_builder_set_time(self._h(), int(time_nanos), int(duration_nanos), ctypes.byref(self._err)))

    def add_comment(self, comment: str) -> None:
        self._call(lib.pprof_builder_add_comment(self._h(), _cstr(comment), ctypes.byref(self._err)))

    # -- output
    def serialize(self, compress: str = "gzip", level: int = 0, reset: bool = True) -> bytes:
        """The profile's bytes; with reset (the default) the builder starts the next profile
        and every handle issued so far becomes stale."""
        w = write_options(compress, level)
        buf = _lib.Buffer()
        st = lib.pprof_builder_serialize(self._h(), _lib.BUILDER_RESET if reset else 0, ctypes.byref(w), ctypes.byref(buf), ctypes.byref(self._err))
        if st != _lib.OK:
            lib.pprof_buffer_free(ctypes.byref(buf))
            raise PprofError.from_c(self._err)
        return take_buffer(buf)

    def serialize_file(self, path, compress: str = "gzip", level: int = 0, reset: bool = True) -> None:
        """serialize() to a path, written atomically ('-' is standard output)."""
        w = write_options(compress, level)
        st = lib.pprof_builder_serialize_file(self._h(), _lib.BUILDER_RESET if reset else 0, fspath_bytes(path), ctypes.byref(w), ctypes.byref(self._err))
        if st != _lib.OK:
            raise PprofError.from_c(self._err, path)

    def reset(self) -> None:
        self._call(lib.pprof_builder_reset(self._h(), ctypes.byref(self._err)))

    def stats(self) -> BuilderStats:
        s = _lib.BuilderStats()
        s.struct_size = ctypes.sizeof(s)
        self._call(lib.pprof_builder_get_stats(self._h(), ctypes.byref(s), ctypes.byref(self._err)))
        return BuilderStats(*(getattr(s, f) for f, _ in _lib.BuilderStats._fields_[1:]))

    @property
    def generation(self) -> int:
        """Changes whenever older handles become stale."""
        return self.stats().generation
