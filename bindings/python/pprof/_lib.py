"""ctypes declarations of libpprof's public C API (libpprof/include/pprof/*.h).

Only the public, versioned API is used: the structs below mirror the headers field by field,
and options structs are always filled by the library's own *_init functions before Python
sets the fields it changes.
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from ctypes import (
    POINTER,
    Structure,
    c_bool,
    c_char,
    c_char_p,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)

NO_OFFSET = 2**64 - 1

# pprof_status
OK = 0
E_ARG, E_NOMEM, E_IO, E_EMPTY, E_WIRE, E_LIMIT, E_COMPRESSION, E_INVALID = 1, 2, 3, 4, 5, 6, 7, 8

FORMAT_RAW, FORMAT_GZIP, FORMAT_ZSTD = 0, 1, 2
TABLE_STRING, TABLE_SAMPLE_TYPE, TABLE_SAMPLE, TABLE_MAPPING, TABLE_LOCATION, TABLE_FUNCTION = range(6)
BUILDER_THREAD_SAFE = 0x1
RELAX_STRING0, RELAX_CONCATENATED = 0x1, 0x2
BUILDER_RESET = 0x1
BUILDER_FINISH_COMMIT_OPEN = 0x1


# Options structs are always filled by the library's own *_init function first, then Python
# sets the fields it changes; they end with _reserved, room for the fields a newer library
# adds, so that its init never writes past them (it sets struct_size to its own size, and the
# fields Python does not know keep their defaults). tests/test_structs.py checks every size
# against the headers (tests/struct-sizes.c) and every prototype's arity against them.


class Error(Structure):
    _fields_ = [
        ("code", c_int),
        ("offset", c_uint64),
        ("path", c_char * 128),
        ("message", c_char * 256),
    ]


class Allocator(Structure):
    _fields_ = [("alloc", c_void_p), ("realloc", c_void_p), ("free", c_void_p), ("ctx", c_void_p)]


class ReadOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("max_input_bytes", c_uint64),
        ("max_decompressed_bytes", c_uint64),
        ("max_ratio", c_uint32),
        ("ratio_floor", c_uint64),
        ("max_strings", c_uint64),
        ("max_samples", c_uint64),
        ("max_locations", c_uint64),
        ("max_functions", c_uint64),
        ("max_mappings", c_uint64),
        ("max_lines", c_uint64),
        ("max_labels", c_uint64),
        ("max_stack_entries", c_uint64),
        ("max_values", c_uint64),
        ("allocator", Allocator),
        ("relax", c_uint32),
        ("max_profiles", c_uint64),
        # const pprof_reader *const *: libpprof-formats' pprof_formats_readers(), or NULL
        ("readers", c_void_p),
        ("threads", c_uint),
        # room for fields a newer library's pprof_read_options_init may write
        ("_reserved", c_uint8 * 256),
    ]


class WriteOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("format", c_int),
        ("level", c_int),
        ("threads", c_uint),
        ("on_temporary", c_void_p),
        ("temporary_ctx", c_void_p),
        ("_reserved", c_uint8 * 256),
    ]


class Buffer(Structure):
    _fields_ = [("data", POINTER(c_uint8)), ("len", c_size_t), ("cap", c_size_t)]


class String(Structure):
    _fields_ = [("data", c_void_p), ("len", c_size_t)]


class ValueType(Structure):
    _fields_ = [("type", c_int64), ("unit", c_int64)]


class Label(Structure):
    _fields_ = [("key", c_int64), ("str", c_int64), ("num", c_int64), ("num_unit", c_int64)]


class Line(Structure):
    _fields_ = [("function_id", c_uint64), ("line", c_int64), ("column", c_int64)]


class Mapping(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("memory_start", c_uint64),
        ("memory_limit", c_uint64),
        ("file_offset", c_uint64),
        ("filename", c_int64),
        ("build_id", c_int64),
        ("has_functions", c_bool),
        ("has_filenames", c_bool),
        ("has_line_numbers", c_bool),
        ("has_inline_frames", c_bool),
    ]


class Function(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("name", c_int64),
        ("system_name", c_int64),
        ("filename", c_int64),
        ("start_line", c_int64),
    ]


class Location(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("mapping_id", c_uint64),
        ("address", c_uint64),
        ("line", POINTER(Line)),
        ("n_line", c_size_t),
        ("is_folded", c_bool),
    ]


class Sample(Structure):
    _fields_ = [
        ("location_id", POINTER(c_uint64)),
        ("n_location_id", c_size_t),
        ("value", POINTER(c_int64)),
        ("n_value", c_size_t),
        ("label", POINTER(Label)),
        ("n_label", c_size_t),
    ]


class Header(Structure):
    _fields_ = [
        ("period_type", ValueType),
        ("period", c_int64),
        ("time_nanos", c_int64),
        ("duration_nanos", c_int64),
        ("drop_frames", c_int64),
        ("keep_frames", c_int64),
        ("default_sample_type", c_int64),
        ("doc_url", c_int64),
        ("comment", POINTER(c_int64)),
        ("n_comment", c_size_t),
    ]


# ------------------------------------------------------------------ merge.h

WARN_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)


class MergeOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("intersect_types", c_bool),
        ("inline_conflict", c_int),
        ("warn", WARN_FN),
        ("warn_ctx", c_void_p),
        ("allocator", Allocator),
        ("threads", c_uint),
        ("_reserved", c_uint8 * 256),
    ]


class MergeSummary(Structure):
    _fields_ = [("struct_size", c_size_t), ("samples", c_size_t), ("locations", c_size_t),
                ("functions", c_size_t)]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(self)


# ------------------------------------------------------------------ check.h


class RuleInfo(Structure):
    _fields_ = [
        ("id", c_char_p),
        ("severity", c_int),
        ("reference", c_char_p),
        ("summary", c_char_p),
        ("rationale", c_char_p),
        ("example", c_char_p),
    ]


class Finding(Structure):
    _fields_ = [
        ("rule", c_int),
        ("rule_id", c_char_p),
        ("severity", c_int),
        ("file", c_char_p),
        ("offset", c_uint64),
        ("path", c_char_p),
        ("message", c_char_p),
    ]


FINDING_FN = ctypes.CFUNCTYPE(c_bool, c_void_p, POINTER(Finding))
# pprof_check_options.regex_check: 0 valid, 1 invalid (*why: the reason), -1 without memory
REGEX_CHECK_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_size_t, POINTER(c_char_p))


class CheckOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("max_findings", c_uint64),
        ("enabled", POINTER(c_bool)),
        ("n_enabled", c_size_t),
        ("regex_check", REGEX_CHECK_FN),
        ("readers", c_void_p),
        ("_reserved", c_uint8 * 256),
    ]


class CheckSummary(Structure):
    _fields_ = [("struct_size", c_size_t), ("count", c_uint64 * 3), ("reported", c_uint64),
                ("truncated", c_bool)]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(self)


# ------------------------------------------------------------------ builder.h


class Handle(Structure):
    """A builder handle (pprof_builder_str, _fn, _map, _loc, _open): one uint64_t."""

    _fields_ = [("h", c_uint64)]

    def __repr__(self):
        return f"{type(self).__name__}({self.h:#x})"


class Str(Handle):
    pass


class Fn(Handle):
    pass


class Map(Handle):
    pass


class Loc(Handle):
    pass


class Open(Handle):
    pass


class BuilderValueType(Structure):
    _fields_ = [("type", c_char_p), ("unit", c_char_p)]


class BuilderOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("flags", c_uint32),
        ("sample_types", POINTER(BuilderValueType)),
        ("n_sample_types", c_size_t),
        ("period_type", BuilderValueType),
        ("period", c_int64),
        ("default_sample_type", c_char_p),
        ("max_strings", c_uint64),
        ("max_string_bytes", c_uint64),
        ("max_samples", c_uint64),
        ("max_locations", c_uint64),
        ("max_functions", c_uint64),
        ("max_mappings", c_uint64),
        ("max_open_samples", c_uint64),
        ("max_open_depth", c_uint64),
        ("allocator", Allocator),
        ("_reserved", c_uint8 * 256),
    ]


class BuilderMappingDesc(Structure):
    _fields_ = [
        ("memory_start", c_uint64),
        ("memory_limit", c_uint64),
        ("file_offset", c_uint64),
        ("filename", Str),
        ("build_id", Str),
        ("has_functions", c_bool),
        ("has_filenames", c_bool),
        ("has_line_numbers", c_bool),
        ("has_inline_frames", c_bool),
    ]


class BuilderLine(Structure):
    _fields_ = [("function", Fn), ("line", c_int64), ("column", c_int64)]


class BuilderLabel(Structure):
    _fields_ = [("key", Str), ("str", Str), ("num", c_int64), ("num_unit", Str)]


class BuilderFrame(Structure):
    _fields_ = [
        ("function", c_char_p),
        ("system_name", c_char_p),
        ("filename", c_char_p),
        ("line", c_int64),
        ("start_line", c_int64),
        ("address", c_uint64),
        ("mapping_start", c_uint64),
        ("mapping_limit", c_uint64),
        ("mapping_offset", c_uint64),
        ("mapping_filename", c_char_p),
        ("mapping_build_id", c_char_p),
    ]


class BuilderStats(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("strings", c_uint64),
        ("string_bytes", c_uint64),
        ("functions", c_uint64),
        ("locations", c_uint64),
        ("mappings", c_uint64),
        ("samples", c_uint64),
        ("open_samples", c_uint64),
        ("arena_bytes", c_uint64),
        ("generation", c_uint64),
        ("serialized", c_uint64),
        ("limit_errors", c_uint64),
    ]


E = POINTER(Error)
P = c_void_p  # opaque handles

# libpprof's (the core's) functions, name: (restype, argtypes); the other libraries' are
# declared by the modules that use them (declare())
_PROTOTYPES = {
    "pprof_status_name": (c_char_p, [c_int]),
    "pprof_version_string": (c_char_p, []),
    "pprof_read_options_init": (None, [POINTER(ReadOptions)]),
    "pprof_write_options_init": (None, [POINTER(WriteOptions)]),
    "pprof_profile_read_memory": (c_int, [c_void_p, c_size_t, POINTER(ReadOptions), POINTER(P), E]),
    "pprof_profile_read_file": (c_int, [c_char_p, POINTER(ReadOptions), POINTER(P), E]),
    "pprof_profile_free": (None, [P]),
    "pprof_profile_source_format": (c_int, [P]),
    "pprof_profile_count": (c_size_t, [P, c_int]),
    "pprof_profile_header": (Header, [P]),
    "pprof_profile_string": (c_bool, [P, c_int64, POINTER(String)]),
    "pprof_profile_sample_type": (ValueType, [P, c_size_t]),
    "pprof_profile_sample": (Sample, [P, c_size_t]),
    "pprof_profile_mapping": (Mapping, [P, c_size_t]),
    "pprof_profile_location": (Location, [P, c_size_t]),
    "pprof_profile_function": (Function, [P, c_size_t]),
    "pprof_profile_find_mapping": (c_bool, [P, c_uint64, POINTER(c_size_t)]),
    "pprof_profile_find_location": (c_bool, [P, c_uint64, POINTER(c_size_t)]),
    "pprof_profile_find_function": (c_bool, [P, c_uint64, POINTER(c_size_t)]),
    "pprof_profile_equal": (c_bool, [P, P]),
    "pprof_buffer_free": (None, [POINTER(Buffer)]),
    "pprof_profile_write_memory": (c_int, [P, POINTER(WriteOptions), POINTER(Buffer), E]),
    "pprof_profile_write_file": (c_int, [P, POINTER(WriteOptions), c_char_p, E]),
    "pprof_profile_print": (c_int, [P, c_int, POINTER(Buffer), E]),
    # merge.h
    "pprof_merge_options_init": (None, [POINTER(MergeOptions)]),
    "pprof_merger_new": (c_int, [POINTER(MergeOptions), POINTER(P), E]),
    "pprof_merger_free": (None, [P]),
    "pprof_merger_add": (c_int, [P, P, c_char_p, E]),
    "pprof_merge_input_read_memory": (c_int, [c_void_p, c_size_t, POINTER(ReadOptions), POINTER(P), E]),
    "pprof_merge_input_read_file": (c_int, [c_char_p, POINTER(ReadOptions), POINTER(P), E]),
    "pprof_merge_input_free": (None, [P]),
    "pprof_merger_add_input": (c_int, [P, P, c_char_p, E]),
    "pprof_merger_count": (c_size_t, [P]),
    "pprof_merger_finish": (c_int, [P, POINTER(P), E]),
    "pprof_merger_write_file": (c_int, [P, POINTER(WriteOptions), c_char_p, POINTER(MergeSummary), E]),
    "pprof_merger_write_memory": (c_int, [P, POINTER(WriteOptions), POINTER(Buffer), POINTER(MergeSummary), E]),
    # check.h
    "pprof_severity_name": (c_char_p, [c_int]),
    "pprof_rule_get": (POINTER(RuleInfo), [c_int]),
    "pprof_rule_find": (c_bool, [c_char_p, POINTER(c_int)]),
    "pprof_check_options_init": (None, [POINTER(CheckOptions)]),
    "pprof_check": (c_int, [P, POINTER(CheckOptions), FINDING_FN, c_void_p, POINTER(CheckSummary), E]),
    "pprof_check_read_error_rule": (c_bool, [E, POINTER(c_int)]),
    "pprof_inline_index_new": (c_int, [c_void_p, POINTER(P), E]),
    "pprof_inline_index_free": (None, [P]),
    "pprof_inline_index_add": (
        c_int,
        [P, P, c_char_p, POINTER(CheckOptions), FINDING_FN, c_void_p, POINTER(CheckSummary), E],
    ),
    "pprof_check_path": (
        c_int,
        [c_char_p, POINTER(CheckOptions), P, FINDING_FN, c_void_p, POINTER(CheckSummary), POINTER(c_bool), E],
    ),
    # builder.h
    "pprof_builder_options_init": (None, [POINTER(BuilderOptions)]),
    "pprof_builder_new": (c_int, [POINTER(BuilderOptions), POINTER(P), E]),
    "pprof_builder_free": (c_uint64, [P]),
    "pprof_builder_intern": (c_int, [P, c_char_p, c_size_t, POINTER(Str), E]),
    "pprof_builder_function": (c_int, [P, Str, Str, Str, c_int64, POINTER(Fn), E]),
    "pprof_builder_mapping": (c_int, [P, POINTER(BuilderMappingDesc), POINTER(Map), E]),
    "pprof_builder_location": (
        c_int,
        [P, Map, c_uint64, POINTER(BuilderLine), c_size_t, c_bool, POINTER(Loc), E],
    ),
    "pprof_builder_add_sample": (
        c_int,
        [P, POINTER(c_int64), c_size_t, POINTER(Loc), c_size_t, POINTER(BuilderLabel), c_size_t, E],
    ),
    "pprof_builder_open_begin": (c_int, [P, POINTER(Open), E]),
    "pprof_builder_open_add_location": (c_int, [P, Open, Loc, E]),
    "pprof_builder_open_add_frame": (c_int, [P, Open, POINTER(BuilderFrame), E]),
    "pprof_builder_open_add_label_cstr": (c_int, [P, Open, c_char_p, c_char_p, c_int64, c_char_p, E]),
    "pprof_builder_open_commit": (c_int, [P, Open, POINTER(c_int64), c_size_t, E]),
    "pprof_builder_open_abort": (c_int, [P, Open, E]),
    "pprof_builder_set_time": (c_int, [P, c_int64, c_int64, E]),
    "pprof_builder_add_comment": (c_int, [P, c_char_p, E]),
    "pprof_builder_write_memory": (c_int, [P, c_uint, POINTER(WriteOptions), POINTER(Buffer), E]),
    "pprof_builder_write_file": (c_int, [P, c_uint, POINTER(WriteOptions), c_char_p, E]),
    "pprof_builder_reset": (c_int, [P, E]),
    "pprof_builder_finish": (
        c_int,
        [P, c_uint, POINTER(c_int64), POINTER(WriteOptions), POINTER(Buffer), POINTER(c_uint64), E],
    ),
    "pprof_builder_get_stats": (c_int, [P, POINTER(BuilderStats), E]),
}


# The sonames' ABI counter (libpprof/meson.build's pprof_soversion): every library has it.
SOVERSION = "2"
CORE = f"libpprof.so.{SOVERSION}"


def _candidates():
    env = os.environ.get("PPROF_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    names = [CORE]
    found = ctypes.util.find_library("pprof")
    if found and os.path.basename(found) == CORE:  # another soname is another ABI
        names.append(found)
    # `meson install` installs this package beside the library and records the library's
    # directory in _where.py; a pip-installed copy has no such file
    try:
        from . import _where

        names.append(os.path.join(_where.LIBDIR, CORE))
    except ImportError:
        pass
    # a prefix the loader does not search (meson install --prefix=$HOME/.local, say)
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(
                ["pkg-config", "--variable=libdir", "libpprof"],
                capture_output=True, text=True, timeout=10, check=False,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            libdir = ""
        if libdir:
            names.append(os.path.join(libdir, CORE))
    # meson's default libdirs under the prefixes people install to without root
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    for prefix in (os.path.expanduser("~/.local"), "/usr/local", sys.prefix):
        for sub in ("lib/" + arch if arch else None, "lib64", "lib"):
            if sub:
                names.append(os.path.join(prefix, sub, CORE))
    return names


def _declare(cdll, prototypes):
    for fname, (res, args) in prototypes.items():
        f = getattr(cdll, fname)
        f.restype = res
        f.argtypes = args


def _load():
    tried = []
    for name in _candidates():
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            tried.append(f"{name}: {e}")
    else:
        raise ImportError(
            "libpprof shared library not found; install libpprof (meson install) or set "
            f"PPROF_LIBRARY to the path of {CORE} (tried: " + "; ".join(tried) + ")"
        )
    _declare(lib, _PROTOTYPES)
    return lib


lib = _load()


class _DlInfo(Structure):
    _fields_ = [("fname", c_char_p), ("fbase", c_void_p), ("sname", c_char_p), ("saddr", c_void_p)]


def _core_dir():
    """The directory of the libpprof.so.2 this process loaded (dladdr on one of its functions),
    or None."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        return None
    dladdr.restype = c_int
    dladdr.argtypes = [c_void_p, POINTER(_DlInfo)]
    info = _DlInfo()
    if not dladdr(ctypes.cast(lib.pprof_version_string, c_void_p), ctypes.byref(info)) or not info.fname:
        return None
    path = os.fsdecode(info.fname)
    return os.path.dirname(os.path.realpath(path)) if os.path.isabs(path) else None


class Library:
    """One of the libraries above the core (libpprof-analyze, -formats, -symbolize), loaded on
    first use: `import pprof` and what only needs the core (read, samples, check, merge,
    Builder) map none of their dependencies (RE2, libstdc++, Graphviz, Jansson, libdw...).
    The modules that use a library declare its functions (declare()); they get their types
    when it loads. It is looked for beside the core first, so that the two match; without
    PPROF_LIBRARY, then everywhere the core is."""

    def __init__(self, name):
        self.name = name  # "pprof-analyze"
        self.soname = f"lib{name}.so.{SOVERSION}"
        self.prototypes = {}
        self._cdll = None
        self._lock = threading.Lock()

    def declare(self, prototypes):
        """name: (restype, argtypes) of functions of this library."""
        with self._lock:
            self.prototypes.update(prototypes)
            if self._cdll is not None:
                _declare(self._cdll, prototypes)

    def _candidates(self):
        seen = set()
        d = _core_dir()
        env = os.environ.get("PPROF_LIBRARY")
        dirs = [d] if d else []
        if env:
            # beside the explicit choice and nowhere else (its directory as given, too, in
            # case dladdr could not say where the core is)
            dirs.append(os.path.dirname(os.path.abspath(env)))
        for x in dirs:
            name = os.path.join(x, self.soname)
            if name not in seen:
                seen.add(name)
                yield name
        if env:
            return
        # where the core would be looked for, lazily: pkg-config runs only when needed
        for c in _candidates():
            name = os.path.join(os.path.dirname(c), self.soname)
            if name not in seen:
                seen.add(name)
                yield name

    def cdll(self):
        """The loaded library (loading it on the first call); ImportError when not found."""
        if self._cdll is not None:
            return self._cdll
        with self._lock:
            if self._cdll is None:
                tried = []
                for name in self._candidates():
                    try:
                        c = ctypes.CDLL(name)
                        break
                    except OSError as e:
                        tried.append(f"{name}: {e}")
                else:
                    raise ImportError(
                        f"lib{self.name} shared library not found; it is installed beside "
                        f"{CORE} (loaded from {_core_dir() or 'an unknown directory'}; "
                        f"tried: " + "; ".join(tried) + ")")
                _declare(c, self.prototypes)
                self._cdll = c
        return self._cdll

    def __getattr__(self, fname):
        # only the library's functions (pprof_*) come here: attributes set in __init__ do not
        if not fname.startswith("pprof_"):
            raise AttributeError(fname)
        return getattr(self.cdll(), fname)


analyze = Library("pprof-analyze")  # edit, reports, flame graphs, the regexp check
formats = Library("pprof-formats")  # OTLP, perf, .cpuprofile and speedscope
symbolize = Library("pprof-symbolize")  # ELF and DWARF
LIBRARIES = (analyze, formats, symbolize)

formats.declare({"pprof_formats_readers": (c_void_p, [])})
# the pattern as a pointer: it comes from pprof_check_options.regex_check, with its length
analyze.declare({"pprof_regex_check": (c_int, [c_void_p, c_size_t, POINTER(c_char_p)])})


def formats_readers(required=True):
    """libpprof-formats' table of readers (pprof_read_options.readers), loading it. Without
    the library: ImportError, or None when not required (a second read that would only try
    the other formats: the core's answer stands)."""
    try:
        return formats.pprof_formats_readers()
    except ImportError:
        if required:
            raise
        return None
