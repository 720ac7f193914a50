"""Formats of other viewers through libpprof's pprof/interchange.h: speedscope's JSON (out) and
the Chrome / Node .cpuprofile (in and out)."""
import ctypes
import os
from ctypes import POINTER, Structure, c_bool, c_char_p, c_int, c_size_t, c_uint32, c_uint64, c_void_p
from typing import Optional, Union

from . import _lib
from ._core import PprofError, as_bytes, c_integer, c_str, check, fspath_bytes, take_buffer
from ._lib import formats, lib
from .profile import Profile


class _SpeedscopeOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("lines", c_bool),
                ("allocator", _lib.Allocator)]


class _CpuprofileReadOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("max_input_bytes", c_uint64), ("max_nodes", c_uint64),
                ("max_samples", c_uint64), ("max_nesting", c_uint32), ("max_depth", c_uint32),
                ("max_stack_entries", c_uint64), ("allocator", _lib.Allocator)]


class _CpuprofileWriteOptions(Structure):
    _fields_ = [("struct_size", c_size_t), ("sample_type", c_char_p), ("max_samples", c_uint64),
                ("allocator", _lib.Allocator)]


_E = POINTER(_lib.Error)
_B = POINTER(_lib.Buffer)
formats.declare({
    "pprof_speedscope_write_memory": (c_int, [c_void_p, POINTER(_SpeedscopeOptions), _B, _E]),
    "pprof_cpuprofile_read_memory": (c_int, [c_void_p, c_size_t, POINTER(_CpuprofileReadOptions), POINTER(c_void_p), _E]),
    "pprof_cpuprofile_write_memory": (c_int, [c_void_p, POINTER(_CpuprofileWriteOptions), _B, _E]),
})


def _write(fn, profile: Profile, opts) -> bytes:
    buf = _lib.Buffer()
    err = _lib.Error()
    st = fn(profile._handle(), ctypes.byref(opts), ctypes.byref(buf), ctypes.byref(err))
    if st != _lib.OK:
        lib.pprof_buffer_free(ctypes.byref(buf))
        raise PprofError.from_c(err, profile.name)
    return take_buffer(buf)


def to_speedscope(profile: Profile, name: Optional[str] = None, lines: bool = False) -> bytes:
    """speedscope's JSON file of the profile (pprof-convert --to=speedscope): one sampled
    profile per sample type, each pprof sample one sample weighted by its value; name is the
    file's title (default "profile"), lines one frame per function and line."""
    o = _SpeedscopeOptions(ctypes.sizeof(_SpeedscopeOptions), c_str(name, "name"), bool(lines))
    return _write(formats.pprof_speedscope_write_memory, profile, o)


def to_cpuprofile(profile: Profile, sample_type: Optional[str] = None,
                  max_samples: int = 1 << 24) -> bytes:
    """The profile as a Chrome / Node .cpuprofile (pprof-convert --to=cpuprofile);
    sample_type names the type whose values become the time deltas."""
    o = _CpuprofileWriteOptions(ctypes.sizeof(_CpuprofileWriteOptions), c_str(sample_type, "sample_type"),
                                c_integer(max_samples, c_uint64, "max_samples"))
    return _write(formats.pprof_cpuprofile_write_memory, profile, o)


def from_cpuprofile(source: Union[str, os.PathLike, bytes, bytearray, memoryview], **limits) -> Profile:
    """Reads a .cpuprofile (node --cpu-prof, DevTools) from a path or bytes into a Profile with
    the types samples/count and cpu/nanoseconds (pprof-convert --from=cpuprofile). Keyword
    arguments override the limits of pprof_cpuprofile_read_options (max_nodes=...,
    max_stack_entries=...). Raises PprofError with the place (e.g. nodes[3].children[0]) for a
    malformed file."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        name, data = "<bytes>", source
    else:
        name = os.fsdecode(fspath_bytes(source, "source"))
        with open(source, "rb") as f:
            data = f.read()
    keep, ptr, n = as_bytes(data)
    o = _CpuprofileReadOptions(ctypes.sizeof(_CpuprofileReadOptions), 1 << 28, 1 << 24, 1 << 28,
                               32, 1 << 16, 1 << 26)
    for k, v in limits.items():
        if k not in ("max_input_bytes", "max_nodes", "max_samples", "max_nesting", "max_depth",
                     "max_stack_entries"):
            raise TypeError(f"from_cpuprofile() got an unexpected keyword argument '{k}'")
        setattr(o, k, c_integer(v, ctypes.c_uint64 if k not in ("max_nesting", "max_depth") else ctypes.c_uint32, k))
    out = c_void_p()
    err = _lib.Error()
    st = formats.pprof_cpuprofile_read_memory(ptr, n, ctypes.byref(o), ctypes.byref(out), ctypes.byref(err))
    del keep
    check(st, err, name)
    return Profile(out, name)
