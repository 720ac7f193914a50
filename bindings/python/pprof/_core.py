"""Errors and small helpers shared by the binding's modules."""
import ctypes
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


def fspath_bytes(path):
    return os.fsencode(os.fspath(path))


def write_options(compress="gzip", level=0, threads=0):
    if compress not in _FORMATS:
        raise ValueError(f"compress must be 'gzip', 'zstd' or 'none', not {compress!r}")
    w = _lib.WriteOptions()
    lib.pprof_write_options_init(ctypes.byref(w))
    w.format, w.level, w.threads = _FORMATS[compress], int(level), int(threads)
    return w


def read_options(limits):
    o = _lib.ReadOptions()
    lib.pprof_read_options_init(ctypes.byref(o))
    for k, v in (limits or {}).items():
        if k in ("struct_size", "allocator") or k.startswith("_") or not hasattr(o, k):
            raise TypeError(f"unknown read limit {k!r}")
        setattr(o, k, int(v))
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
