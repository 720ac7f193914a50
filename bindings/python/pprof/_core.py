"""Errors and small helpers shared by the binding's modules."""
import ctypes
import math
import numbers
import operator
import os
import stat
import threading

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
# -1 is 4294967295 in an unsigned), a char * ends at the first NUL ("a\x00b" is "a"), bytes(5)
# is five NUL bytes and a str is a sequence of one-character strings. Every integer, number,
# string, list of strings and path the binding hands to the library goes through c_integer /
# c_real / c_str / c_str_array / c_path first, so a value C cannot hold is an error naming the
# argument instead of a different value.


class ArgumentRangeError(OverflowError, ValueError):
    """A number outside what the argument takes (what the C field holds, or the range the
    command-line tool accepts). An OverflowError, and a ValueError too."""


def _bounds(ctype):
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value < 0
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def c_integer(value, ctype, what, lo=None, hi=None):
    """value as an int that the C type ctype (ctypes.c_int64, c_uint64, ...) holds exactly, and
    within lo..hi when given: TypeError when it is no integer (a float is not truncated, a bool
    is not a number), ArgumentRangeError (an OverflowError and a ValueError) out of range."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, not bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    clo, chi = _bounds(ctype)
    if not clo <= v <= chi:
        name = f"{'int' if clo else 'uint'}{8 * ctypes.sizeof(ctype)}"
        raise ArgumentRangeError(f"{what} = {v} does not fit in {name} ({clo}..{chi})")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ArgumentRangeError(f"{what} = {v} is outside {lo}..{hi}")
    return v


def c_real(value, what, lo=None, hi=None):
    """A finite number as a float (a C double), within lo..hi when given: TypeError for a
    non-number (a string is not parsed), ValueError for NaN, infinities and out of range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:
        raise ArgumentRangeError(f"{what} = {value} does not fit in a double") from None
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, not {v}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ArgumentRangeError(f"{what} = {v} is outside {lo}..{hi}")
    return v


def c_str(s, what):
    """str (UTF-8; undecodable bytes of file names kept by surrogateescape) or bytes-like as
    the bytes of a C string; None stays None. TypeError for anything else (an int would be
    that many NUL bytes); ValueError when it holds a NUL byte: C would end the string there and
    use what precedes it."""
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


def c_str_list(items, what, item=None):
    """A list of strings (any iterable of str or bytes, each through c_str, or through item:
    c_path for paths) as a list of bytes. TypeError for one string (it would be taken character
    by character) or a non-iterable."""
    item = item or c_str
    if isinstance(items, (str, bytes, bytearray, memoryview, os.PathLike)):
        raise TypeError(f"{what} takes a list of strings, not one string")
    try:
        it = iter(items)
    except TypeError:
        raise TypeError(f"{what} takes a list of strings, not {type(items).__name__}") from None
    out = []
    for i, x in enumerate(it):
        if x is None:
            raise TypeError(f"{what}[{i}] must be str or bytes, not None")
        out.append(item(x, f"{what}[{i}]"))
    return out


def c_str_array(items, what, keep, item=None):
    """c_str_list as a C array of char * and its length; keep holds the memory alive."""
    items = c_str_list(items, what, item)
    arr = (ctypes.c_char_p * max(1, len(items)))(*items)
    keep.append(arr)
    return arr, len(items)


def c_path(path, what="path"):
    """A path (str, bytes or os.PathLike) as the bytes of a C string. TypeError for anything
    else (an int would be a file descriptor to open()); ValueError for a NUL byte."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"{what} must be a path (str, bytes or os.PathLike), not {type(path).__name__}")
    return c_str(os.fsencode(os.fspath(path)), what)


# Graphviz (libgvc) keeps global state and is not reentrant: every call that can reach it (a
# report rendered as svg, a flame HTML page with its Graph view) runs holding this lock.
graphviz_lock = threading.Lock()


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


def fspath_bytes(path, what="path"):
    return c_path(path, what)


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


# ---- formats other than pprof (libpprof-formats' readers, pprof_read_options.readers)
# A read tries the core alone first, so that pprof reads never load libpprof-formats (and
# Jansson); the core, which reads only pprof, takes another format for malformed pprof, so a
# read it refuses is made again with the readers, which answer exactly as one read with them
# would have (bytes no reader claims fail the same way). These statuses come before the
# readers are consulted or do not depend on the format: no second read.
_FINAL = {_lib.OK, _lib.E_ARG, _lib.E_NOMEM, _lib.E_IO, _lib.E_COMPRESSION}


def other_format_possible(status):
    """Whether the readers of libpprof-formats could still read what the core refused."""
    return status not in _FINAL


def readers_first(source):
    """Whether a read of source must have the readers from the start: a name that says OTLP
    (the readers believe the name over the content, as pprof_otlp_path_is_otlp: .otlp,
    .otlp.gz, .otlp.zst), or a path that cannot be read twice (standard input, a pipe)."""
    if not isinstance(source, (str, bytes, os.PathLike)):
        return False  # bytes to read, or a wrong argument that the read reports
    path = os.fsencode(os.fspath(source))
    for ext in (b".gz", b".zst"):
        if path.endswith(ext):
            path = path[: -len(ext)]
            break
    if path.endswith(b".otlp") or os.fsencode(os.fspath(source)) == b"-":
        return True
    try:
        return not stat.S_ISREG(os.stat(os.fspath(source)).st_mode)
    except (OSError, ValueError):
        return False  # the core reports it


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
