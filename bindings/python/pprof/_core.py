"""Errors and small helpers shared by the binding's modules."""
import ctypes
import math
import numbers
import operator
import os

from . import _lib
from ._lib import lib

_FORMATS = {"gzip": _lib.FORMAT_GZIP, "zstd": _lib.FORMAT_ZSTD, "none": _lib.FORMAT_RAW, None: _lib.FORMAT_RAW}
FORMAT_NAMES = {_lib.FORMAT_RAW: "none", _lib.FORMAT_GZIP: "gzip", _lib.FORMAT_ZSTD: "zstd"}


class _Closing:
    """close() on leaving a with-block and on garbage collection (never raising there)."""

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class PprofError(Exception):
    """A libpprof call failed: the C pprof_error, with the input it was about.

    code      the pprof_status number (stable), e.g. 5
    code_name its constant, e.g. "PPROF_E_WIRE"
    path      the place inside the profile, e.g. "sample[3].location_id" ("" = none)
    offset    byte offset in the decompressed input, or None
    message   what is wrong and what was expected
    file      the file or input the call was about, or None
    """

    def __init__(self, code, path, offset, message, file=None):
        self.code = code
        self.code_name = lib.pprof_status_name(code).decode()
        self.path = path
        self.offset = offset
        self.message = message
        self.file = file
        super().__init__(str(self))

    def __str__(self):
        parts = [p for p in (self.file, self.path) if p]
        where = ": ".join(parts + [self.message])
        if self.offset is not None:
            where += f" (byte {self.offset})"
        return f"{where} [{self.code_name}]"

    def __reduce__(self):  # travels between processes (Dask workers) whole
        return (type(self), (self.code, self.path, self.offset, self.message, self.file))

    @classmethod
    def from_c(cls, err, file=None):
        offset = None if err.offset == _lib.NO_OFFSET else err.offset
        return cls(
            err.code,
            err.path.decode("utf-8", "replace"),
            offset,
            err.message.decode("utf-8", "replace"),
            None if file is None else os.fsdecode(file),
        )


def check(status, err, file=None):
    if status != _lib.OK:
        raise PprofError.from_c(err, file)


# ---- values crossing into C
# ctypes converts silently: an int past a field's width is cut to its low bits (2**64 + 5 is 5,
# 2**63 is INT64_MIN) and a char * ends at the first NUL ("a\x00b" is "a"). Every integer and
# string the binding hands to the library goes through c_integer / c_str / c_real first, so a
# value C cannot hold is an error naming the argument instead of a different value.


def _bounds(ctype):
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value < 0
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def c_integer(value, ctype, what):
    """value as an int that the C type ctype (ctypes.c_int64, c_uint64, ...) holds exactly:
    TypeError when it is no integer (a float is not truncated), OverflowError when it is out
    of the type's range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    lo, hi = _bounds(ctype)
    if not lo <= v <= hi:
        name = f"{'int' if lo else 'uint'}{8 * ctypes.sizeof(ctype)}"
        raise OverflowError(f"{what} = {v} does not fit in {name} ({lo}..{hi})")
    return v


def c_real(value, what):
    """A finite number as a float (a C double): TypeError for a non-number (a string is not
    parsed), ValueError for NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:
        raise OverflowError(f"{what} = {value} does not fit in a double") from None
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, not {v}")
    return v


def c_str(s, what):
    """str (UTF-8; undecodable bytes of file names kept by surrogateescape) or bytes-like as
    the bytes of a C string; None stays None. ValueError when it holds a NUL byte: C would
    end the string there and use what precedes it."""
    if s is None:
        return None
    if isinstance(s, str):
        b = s.encode("utf-8", "surrogateescape")
    elif isinstance(s, (bytes, bytearray, memoryview)):
        b = bytes(s)
    else:
        raise TypeError(f"{what} must be str or bytes, not {type(s).__name__}")
    nul = b.find(b"\0")
    if nul >= 0:
        raise ValueError(f"{what} holds a NUL byte at offset {nul} ({b[:40]!r}): C strings end there")
    return b


def set_fields(struct, values, prefix=""):
    """Sets integer, bool and char * fields of a ctypes Structure from a dict, each through
    c_integer / c_str for its C type (errors name prefix + the field); TypeError for a field the
    struct does not have."""
    types = {name: t for name, t, *_ in struct._fields_ if not name.startswith("_")}
    for k, v in values.items():
        t = types.get(k)
        if t is None:
            raise TypeError(f"{prefix}{k}: no such field (one of: {', '.join(types)})")
        if t is ctypes.c_char_p:
            setattr(struct, k, c_str(v, prefix + k))
        elif t is ctypes.c_bool:
            setattr(struct, k, bool(v))
        else:
            setattr(struct, k, c_integer(v, t, prefix + k))


def fspath_bytes(path):
    return c_str(os.fsencode(os.fspath(path)), "path")


def write_options(compress="gzip", level=0, threads=0):
    if compress not in _FORMATS:
        raise ValueError(f"compress must be 'gzip', 'zstd' or 'none', not {compress!r}")
    w = _lib.WriteOptions()
    lib.pprof_write_options_init(ctypes.byref(w))
    w.format = _FORMATS[compress]
    w.level = c_integer(level, ctypes.c_int, "level")
    w.threads = c_integer(threads, ctypes.c_uint, "threads")
    return w


def read_options(limits):
    o = _lib.ReadOptions()
    lib.pprof_read_options_init(ctypes.byref(o))
    limits = dict(limits or {})
    for k in limits:
        if k in ("struct_size", "allocator") or k.startswith("_") or not hasattr(o, k):
            raise TypeError(f"unknown read limit {k!r}")
    set_fields(o, limits)
    return o


def take_buffer(buf):
    """The bytes of a pprof_buffer, which is then freed."""
    try:
        return ctypes.string_at(buf.data, buf.len) if buf.len else b""
    finally:
        lib.pprof_buffer_free(ctypes.byref(buf))


def as_bytes(data):
    """bytes-like -> (object keeping the memory alive, c pointer, size)."""
    if isinstance(data, bytes):
        return data, ctypes.c_char_p(data), len(data)
    mv = memoryview(data).cast("B")
    if mv.readonly:
        b = mv.tobytes()
        return b, ctypes.c_char_p(b), len(b)
    arr = (ctypes.c_char * len(mv)).from_buffer(mv)
    return (mv, arr), ctypes.cast(arr, ctypes.c_char_p), len(mv)
