"""pprof.symbolize(): offline symbolization from ELF and DWARF (pprof/symbolize.h)."""
import ctypes
from ctypes import POINTER, Structure, c_bool, c_char_p, c_int, c_size_t, c_uint64, c_void_p
from typing import List, NamedTuple, Optional, Sequence, Tuple

from . import _lib
from ._core import c_path, c_str_array, check
from ._lib import symbolize as _symbolize_lib
from .profile import Profile


class _Options(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("debug_dirs", POINTER(c_char_p)),
        ("n_debug_dirs", c_size_t),
        ("binaries", POINTER(c_char_p)),
        ("n_binaries", c_size_t),
        ("sysroot", c_char_p),
        ("debuginfod_cache", c_char_p),
        ("demangle", c_int),
        ("force", c_bool),
        ("max_file_bytes", c_uint64),
        ("allocator", _lib.Allocator),
        ("no_default_dirs", c_bool),
        ("cache_dir", c_char_p),
        ("cache", c_bool),
        ("_reserved", ctypes.c_uint8 * 256),  # see _lib.py
    ]


class _Mapping(Structure):
    _fields_ = [
        ("mapping_id", c_uint64),
        ("mapping_file", c_char_p),
        ("build_id", c_char_p),
        ("result", c_int),
        ("file", c_char_p),
        ("found_by", c_char_p),
        ("debug_file", c_char_p),
        ("reason", c_char_p),
        ("dwarf", c_bool),
        ("addresses", c_uint64),
        ("resolved", c_uint64),
        ("kept", c_uint64),
        ("unresolved", POINTER(c_uint64)),
        ("n_unresolved", c_size_t),
        ("debug_found_by", c_char_p),
        ("lines", c_bool),
    ]


_symbolize_lib.declare({
    "pprof_symbolize_options_init": (None, [POINTER(_Options)]),
    "pprof_symbolize": (c_int, [c_void_p, POINTER(_Options), POINTER(c_void_p), POINTER(c_void_p), POINTER(_lib.Error)]),
    "pprof_symbolize_report_count": (c_size_t, [c_void_p]),
    "pprof_symbolize_report_mapping": (_Mapping, [c_void_p, c_size_t]),
    "pprof_symbolize_report_free": (None, [c_void_p]),
    "pprof_symbolize_result_name": (c_char_p, [c_int]),
})


class SymbolizedMapping(NamedTuple):
    """What became of one mapping: result is 'ok', 'nothing-to-do', 'not-found',
    'build-id-mismatch', 'not-elf', 'no-symbols', 'not-symbolizable' or 'unreadable'."""
    mapping_id: int
    mapping_file: str
    build_id: str
    result: str
    file: str
    found_by: str
    debug_file: str
    reason: str
    dwarf: bool
    addresses: int
    resolved: int
    kept: int
    unresolved: Tuple[int, ...]
    debug_found_by: str = ""


def _s(b):
    return (b or b"").decode("utf-8", "replace")


def symbolize(profile: Profile, binaries: Sequence[str] = (), debug_dirs: Sequence[str] = (),
              sysroot: Optional[str] = None, demangle: str = "full", force: bool = False,
              debuginfod_cache: Optional[str] = None,
              no_default_dirs: bool = False, cache_dir: Optional[str] = None,
              cache: bool = False) -> Tuple[Profile, List[SymbolizedMapping]]:
    """Fills in the frames of the locations that have an address but no lines, from the ELF
    files of their mappings, like pprof-symbolize. Returns the new Profile (the input is not
    changed) and one SymbolizedMapping per mapping. debuginfod_cache: None reads
    $DEBUGINFOD_CACHE_PATH and the XDG default, '' none; no server is ever contacted.
    /usr/lib/debug is searched after debug_dirs unless no_default_dirs (which also leaves the
    cache out unless debuginfod_cache names one). cache_dir: the address index cache's directory
    (it turns the cache on); cache: True keeps one in $XDG_CACHE_HOME/libpprof, else
    ~/.cache/libpprof (see pprof-symbolize(1)); neither: no cache, as in the library.
    Raises PprofError."""
    if not isinstance(profile, Profile):
        raise TypeError("symbolize takes a Profile (pprof.read(path))")
    if demangle not in ("full", "none"):
        raise ValueError("demangle: 'full' or 'none'")
    keep = []
    o = _Options()
    _symbolize_lib.pprof_symbolize_options_init(ctypes.byref(o))
    o.binaries, o.n_binaries = c_str_array(binaries, "binaries", keep, c_path)
    o.debug_dirs, o.n_debug_dirs = c_str_array(debug_dirs, "debug_dirs", keep, c_path)
    if sysroot is not None:
        o.sysroot = c_path(sysroot, "sysroot")
    if debuginfod_cache is not None:
        o.debuginfod_cache = c_path(debuginfod_cache, "debuginfod_cache")
    o.demangle = 0 if demangle == "full" else 1
    o.force = bool(force)
    o.no_default_dirs = bool(no_default_dirs)
    if cache_dir is not None:
        o.cache_dir = c_path(cache_dir, "cache_dir")
    o.cache = bool(cache)
    out, rep = c_void_p(), c_void_p()
    err = _lib.Error()
    try:
        check(_symbolize_lib.pprof_symbolize(profile._handle(), ctypes.byref(o), ctypes.byref(out), ctypes.byref(rep),
                                  ctypes.byref(err)), err, profile.name)
        maps = []
        for i in range(_symbolize_lib.pprof_symbolize_report_count(rep)):
            m = _symbolize_lib.pprof_symbolize_report_mapping(rep, i)
            maps.append(SymbolizedMapping(
                m.mapping_id, _s(m.mapping_file), _s(m.build_id), _s(_symbolize_lib.pprof_symbolize_result_name(m.result)),
                _s(m.file), _s(m.found_by), _s(m.debug_file), _s(m.reason), bool(m.dwarf), m.addresses,
                m.resolved, m.kept, tuple(m.unresolved[k] for k in range(m.n_unresolved)), _s(m.debug_found_by)))
        return Profile(out, "<symbolized>"), maps
    finally:
        _symbolize_lib.pprof_symbolize_report_free(rep)
