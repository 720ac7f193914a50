"""OpenTelemetry Profiles (OTLP, opentelemetry-proto ac2c4b5) in and out through libpprof's
pprof/otlp.h: ProfilesData (or an ExportProfilesServiceRequest, the same fields) read into
Profiles, and Profiles written as one ProfilesData."""
import ctypes
import os
from ctypes import POINTER, Structure, c_char_p, c_int, c_size_t, c_void_p
from typing import Iterable, List, Mapping, Optional, Union

from . import _lib
from ._core import PprofError, as_bytes, c_integer, c_str, check, fspath_bytes, read_options, take_buffer
from ._lib import formats, lib
from .profile import Profile

class OtlpWriteOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("format", c_int),
        ("level", c_int),
        ("resource", POINTER(c_char_p)),
        ("n_resource", c_size_t),
        ("service_name", c_char_p),
    ]


_E = POINTER(_lib.Error)
_PP = POINTER(c_void_p)
formats.declare({
    "pprof_otlp_read_memory": (c_int, [c_void_p, c_size_t, POINTER(_lib.ReadOptions), POINTER(c_void_p), _E]),
    "pprof_otlp_read_file": (c_int, [c_char_p, POINTER(_lib.ReadOptions), POINTER(c_void_p), _E]),
    "pprof_otlp_free": (None, [c_void_p]),
    "pprof_otlp_to_pprof": (c_int, [c_void_p, POINTER(_PP), POINTER(c_size_t), _E]),
    "pprof_otlp_profiles_free": (None, [_PP, c_size_t]),
    "pprof_otlp_write_options_init": (None, [POINTER(OtlpWriteOptions)]),
    "pprof_otlp_write_memory": (c_int, [POINTER(c_void_p), c_size_t, POINTER(OtlpWriteOptions), POINTER(_lib.Buffer), _E]),
    "pprof_otlp_detect": (ctypes.c_bool, [c_void_p, c_size_t]),
})

_COMPRESS = {"none": 0, "gzip": 1, "zstd": 2}


def read_otlp(source: Union[str, os.PathLike, bytes, bytearray, memoryview], **limits) -> List[Profile]:
    """Reads OTLP Profiles (raw, gzip or zstd) from a path ('-' is standard input) or bytes and
    converts them by the library's rule (docs/otlp.md): the profiles of one scope with the same
    samples and times become one Profile with a sample type each, the others one Profile each.
    Keyword arguments are read limits, as for pprof.read. Raises PprofError with the OTLP path
    (e.g. 'dictionary.location_table[3].mapping_index')."""
    o = read_options(limits)
    h = ctypes.c_void_p()
    err = _lib.Error()
    if isinstance(source, (bytes, bytearray, memoryview)):
        name = "<bytes>"
        keep, ptr, n = as_bytes(source)
        st = formats.pprof_otlp_read_memory(ptr, n, ctypes.byref(o), ctypes.byref(h), ctypes.byref(err))
        del keep
    else:
        name = os.fsdecode(os.fspath(source))
        st = formats.pprof_otlp_read_file(fspath_bytes(source), ctypes.byref(o), ctypes.byref(h), ctypes.byref(err))
    check(st, err, name)
    arr = _PP()
    n = c_size_t()
    try:
        check(formats.pprof_otlp_to_pprof(h, ctypes.byref(arr), ctypes.byref(n), ctypes.byref(err)), err, name)
    finally:
        formats.pprof_otlp_free(h)
    try:
        return [Profile(c_void_p(arr[i]), name) for i in range(n.value)]
    finally:
        formats.pprof_otlp_profiles_free(arr, 0)  # the array only: the Profiles own their handles


def is_otlp(data: Union[bytes, bytearray, memoryview]) -> bool:
    """Whether the bytes are OTLP by content (pprof_otlp_detect's rule: only when certain)."""
    keep, ptr, n = as_bytes(data)
    r = bool(formats.pprof_otlp_detect(ptr, n))
    del keep
    return r


def to_otlp(profiles: Union[Profile, Iterable[Profile]], *, resource: Optional[Mapping[str, str]] = None,
            service_name: Optional[str] = None, compress: str = "none", level: int = 0) -> bytes:
    """Encodes one or more Profiles as one OTLP ProfilesData: every sample type a Profile, one
    shared deduplicated dictionary; resource gives the resource's string attributes and
    service_name its service.name. Raises PprofError for a profile Go's pprof would refuse."""
    if isinstance(profiles, Profile):
        profiles = [profiles]
    profiles = list(profiles)
    if compress not in _COMPRESS:
        raise ValueError(f"compress must be 'gzip', 'zstd' or 'none', not {compress!r}")
    w = OtlpWriteOptions()
    formats.pprof_otlp_write_options_init(ctypes.byref(w))
    w.format = _COMPRESS[compress]
    w.level = c_integer(level, ctypes.c_int, "level")
    res = []
    for k, v in (resource or {}).items():
        kb, vb = c_str(k, "resource key"), c_str(v, f"resource[{k!r}]")
        if not kb or b"=" in kb:
            raise ValueError(f"resource key {k!r} is empty or holds '='")
        res.append(kb + b"=" + vb)
    arr_res = (c_char_p * max(1, len(res)))(*res)
    w.resource = arr_res
    w.n_resource = len(res)
    w.service_name = c_str(service_name, "service_name")
    hs = (c_void_p * max(1, len(profiles)))(*[p._handle() for p in profiles])
    buf = _lib.Buffer()
    err = _lib.Error()
    st = formats.pprof_otlp_write_memory(hs, len(profiles), ctypes.byref(w), ctypes.byref(buf), ctypes.byref(err))
    if st != _lib.OK:
        lib.pprof_buffer_free(ctypes.byref(buf))
        raise PprofError.from_c(err, profiles[0].name if profiles else None)
    return take_buffer(buf)


def write_otlp(profiles: Union[Profile, Iterable[Profile]], path: Union[str, os.PathLike], **kw) -> None:
    """to_otlp's bytes written to a path."""
    data = to_otlp(profiles, **kw)
    with open(path, "wb") as f:
        f.write(data)
