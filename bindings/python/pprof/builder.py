"""pprof.Builder: the write side for profilers (pprof/builder.h)."""
import ctypes
import os
from dataclasses import dataclass
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

from . import _lib
from ._core import _Closing, PprofError, c_integer, c_str, check, fspath_bytes, set_fields, take_buffer, write_options
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


_I64, _U64 = ctypes.c_int64, ctypes.c_uint64


def _values(values, n_types):
    """The C array of a sample's values, each checked to fit in int64."""
    values = list(values)
    if len(values) != n_types:
        raise ValueError(f"{len(values)} values for {n_types} sample types")
    return (ctypes.c_int64 * max(1, len(values)))(*(c_integer(v, _I64, f"values[{i}]") for i, v in enumerate(values)))


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
            types[i] = _lib.BuilderValueType(c_str(t, f"sample_types[{i}] type"), c_str(u, f"sample_types[{i}] unit"))
        self.n_values = len(sample_types)
        o.sample_types = types
        o.n_sample_types = len(sample_types)
        if period_type:
            o.period_type = _lib.BuilderValueType(c_str(period_type[0], "period_type type"), c_str(period_type[1], "period_type unit"))
        o.period = c_integer(period, _I64, "period")
        o.default_sample_type = c_str(default_sample_type, "default_sample_type")
        if thread_safe:
            o.flags |= _lib.BUILDER_THREAD_SAFE
        for k in limits:
            if not k.startswith("max_") or not hasattr(o, k):
                raise TypeError(f"unknown builder limit {k!r}")
        set_fields(o, limits)
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
    def intern(self, s: Union[str, bytes, Str, None], what: str = "string") -> Str:
        """The handle of a string ("" and None are the zero handle). ValueError when it holds
        a NUL byte (what names it in the message)."""
        if isinstance(s, Str):
            return s
        if not s:
            return _NONE_STR
        b = c_str(s, what)
        out = Str()
        self._call(lib.pprof_builder_intern(self._h(), b, len(b), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def function(self, name, system_name=None, filename=None, start_line: int = 0) -> Fn:
        """A function; names are strings or Str handles. system_name defaults to name."""
        n = self.intern(name, "name")
        sn = n if system_name is None else self.intern(system_name, "system_name")
        fname = self.intern(filename, "filename")
        out = Fn()
        start_line = c_integer(start_line, _I64, "start_line")
        self._call(lib.pprof_builder_function(self._h(), n, sn, fname, start_line, ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def mapping(self, memory_start: int, memory_limit: int, file_offset: int = 0, filename=None, build_id=None, has_functions=True,
                has_filenames=False, has_line_numbers=False, has_inline_frames=False) -> Map:
        d = _lib.BuilderMappingDesc(c_integer(memory_start, _U64, "memory_start"), c_integer(memory_limit, _U64, "memory_limit"),
                                    c_integer(file_offset, _U64, "file_offset"), self.intern(filename, "filename"), self.intern(build_id, "build_id"),
                                    bool(has_functions), bool(has_filenames), bool(has_line_numbers), bool(has_inline_frames))
        out = Map()
        self._call(lib.pprof_builder_mapping(self._h(), ctypes.byref(d), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def location(self, lines: Sequence = (), mapping: Optional[Map] = None, address: int = 0, is_folded: bool = False) -> Loc:
        """A location: lines are (Fn, line) or (Fn, line, column), innermost (inlined) first."""
        arr = (_lib.BuilderLine * max(1, len(lines)))()
        for i, ln in enumerate(lines):
            arr[i] = _lib.BuilderLine(ln[0], c_integer(ln[1], _I64, f"lines[{i}] line"),
                                      c_integer(ln[2], _I64, f"lines[{i}] column") if len(ln) > 2 else 0)
        address = c_integer(address, _U64, "address")
        out = Loc()
        self._call(lib.pprof_builder_location(self._h(), mapping or _NONE_MAP, address, arr, len(lines), bool(is_folded), ctypes.byref(out), ctypes.byref(self._err)))
        return out

    def _labels(self, labels):
        items = labels.items() if isinstance(labels, dict) else (labels or ())
        arr = (_lib.BuilderLabel * max(1, len(items)))()
        n = 0
        for key, v in items:
            lab = _lib.BuilderLabel()
            lab.key = self.intern(key, "label key")
            if isinstance(v, tuple):  # (number, unit)
                lab.num, lab.num_unit = c_integer(v[0], _I64, f"label {key!r}"), self.intern(v[1], f"label {key!r} unit")
            elif isinstance(v, int) and not isinstance(v, bool):
                lab.num = c_integer(v, _I64, f"label {key!r}")
            else:
                lab.str = self.intern(str(v), f"label {key!r}")
            arr[n] = lab
            n += 1
        return arr, n

    def add_sample(self, values: Sequence[int], stack: Sequence[Loc], labels: Union[Dict, Iterable, None] = None) -> None:
        """Adds a sample: one value per sample type, the stack leaf first, labels as
        {key: str | int | (int, unit)}. Equal stacks with equal labels add their values."""
        vals = _values(values, self.n_values)
        st = (Loc * max(1, len(stack)))(*stack)
        lab, nl = self._labels(labels)
        self._call(lib.pprof_builder_add_sample(self._h(), vals, self.n_values, st, len(stack), lab, nl, ctypes.byref(self._err)))

    def add_frames(self, values: Sequence[int], frames: Sequence, labels: Union[Dict, Iterable, None] = None) -> None:
        """Adds a sample given by value, without handles: frames (leaf first) are
        (function, filename, line) tuples or dicts with the fields of pprof_builder_frame
        (function, system_name, filename, line, start_line, address, mapping_start,
        mapping_limit, mapping_offset, mapping_filename, mapping_build_id); labels as for
        add_sample. Each frame is interned and appended in one call, so with
        thread_safe=True several threads may add samples while another serializes, and no
        handle can go stale (pprof_builder_open_*)."""
        vals = _values(values, self.n_values)
        h, err = self._h(), _lib.Error()
        s = _lib.Open()
        if lib.pprof_builder_open_begin(h, ctypes.byref(s), ctypes.byref(err)) != _lib.OK:
            raise PprofError.from_c(err)
        try:
            for i, fr in enumerate(frames):
                f = _lib.BuilderFrame()
                if isinstance(fr, dict):
                    set_fields(f, fr, f"frames[{i}].")
                else:
                    set_fields(f, {"function": fr[0], "filename": fr[1], "line": fr[2]}, f"frames[{i}].")
                if lib.pprof_builder_open_add_frame(h, s, ctypes.byref(f), ctypes.byref(err)) != _lib.OK:
                    raise PprofError.from_c(err)
            items = labels.items() if isinstance(labels, dict) else (labels or ())
            for key, v in items:
                k = c_str(key, "label key")
                if isinstance(v, tuple):
                    st = lib.pprof_builder_open_add_label_cstr(h, s, k, None, c_integer(v[0], _I64, f"label {key!r}"),
                                                               c_str(v[1], f"label {key!r} unit"), ctypes.byref(err))
                elif isinstance(v, int) and not isinstance(v, bool):
                    st = lib.pprof_builder_open_add_label_cstr(h, s, k, None, c_integer(v, _I64, f"label {key!r}"), None, ctypes.byref(err))
                else:
                    st = lib.pprof_builder_open_add_label_cstr(h, s, k, c_str(str(v), f"label {key!r}"), 0, None, ctypes.byref(err))
                if st != _lib.OK:
                    raise PprofError.from_c(err)
            if lib.pprof_builder_open_commit(h, s, vals, self.n_values, ctypes.byref(err)) != _lib.OK:
                raise PprofError.from_c(err)
        except BaseException:
            lib.pprof_builder_open_abort(h, s, None)
            raise

    # -- header
    def set_time(self, time_nanos: int, duration_nanos: int = 0) -> None:
        t, d = c_integer(time_nanos, _I64, "time_nanos"), c_integer(duration_nanos, _I64, "duration_nanos")
        self._call(lib.pprof_builder_set_time(self._h(), t, d, ctypes.byref(self._err)))

    def add_comment(self, comment: str) -> None:
        self._call(lib.pprof_builder_add_comment(self._h(), c_str(comment, "comment"), ctypes.byref(self._err)))

    # -- output
    def serialize(self, compress: str = "gzip", level: int = 0, reset: bool = True) -> bytes:
        """The profile's bytes; with reset (the default) the builder starts the next profile
        and every handle issued so far becomes stale."""
        w = write_options(compress, level)
        buf = _lib.Buffer()
        st = lib.pprof_builder_write_memory(self._h(), _lib.BUILDER_RESET if reset else 0, ctypes.byref(w), ctypes.byref(buf), ctypes.byref(self._err))
        if st != _lib.OK:
            lib.pprof_buffer_free(ctypes.byref(buf))
            raise PprofError.from_c(self._err)
        return take_buffer(buf)

    def serialize_file(self, path, compress: str = "gzip", level: int = 0, reset: bool = True) -> None:
        """serialize() to a path, written atomically ('-' is standard output)."""
        w = write_options(compress, level)
        st = lib.pprof_builder_write_file(self._h(), _lib.BUILDER_RESET if reset else 0, ctypes.byref(w), fspath_bytes(path), ctypes.byref(self._err))
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
