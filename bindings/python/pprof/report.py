"""pprof.report.render(): go tool pprof's reports of a profile (pprof/report.h), as pprof-report
prints them."""
import contextlib
import ctypes
import json
from ctypes import POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_int64, c_size_t

from . import _lib
from ._core import c_integer, c_real, c_str, check, fspath_bytes, graphviz_lock, take_buffer
from ._lib import analyze
from .profile import Profile


class _RenderOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("format", c_int),
        ("sample_type", c_char_p),
        ("granularity", c_int),
        ("cum_sort", c_bool),
        ("node_count", c_int64),
        ("node_fraction", c_double),
        ("edge_fraction", c_double),
        ("no_trim", c_bool),
        ("compact_labels", c_bool),
        ("symbol", c_char_p),
        ("source_path", c_char_p),
        ("trim_path", c_char_p),
        ("allocator", _lib.Allocator),
        ("unfiltered", ctypes.c_void_p),
        ("active_filters", POINTER(c_char_p)),
        ("n_active_filters", c_size_t),
        ("mean", c_bool),
    ]


# pprof_report_format
FORMATS = {"top": 0, "traces": 1, "tags": 2, "tree": 3, "peek": 4, "dot": 5, "callgrind": 6, "list": 7,
           "svg": 8}
# pprof_granularity: 0 is "the format's default"
_GRANULARITIES = {None: 0, "functions": 1, "filefunctions": 2, "files": 3, "lines": 4, "addresses": 5}

analyze.declare({
    "pprof_report_write_memory": (c_int, [ctypes.c_void_p, POINTER(_RenderOptions), c_int, POINTER(_lib.Buffer), POINTER(_lib.Error)]),
    "pprof_report_write_file": (c_int, [ctypes.c_void_p, POINTER(_RenderOptions), c_int, ctypes.c_void_p, c_char_p, POINTER(_lib.Error)]),
})


_REPORT_ALL = 2**63 - 1  # PPROF_REPORT_ALL
_REPORT_NO_CUTOFF = -1.0  # PPROF_REPORT_NO_CUTOFF


def _fraction(v, what):
    if v is None:
        return 0.0
    v = c_real(v, what, 0, 1)
    return _REPORT_NO_CUTOFF if v == 0 else v


def render(profile, format="top", path=None, *, json_output=False, sample_type=None, granularity=None, cum=False,
           nodecount=-1, nodefraction=None, edgefraction=None, trim=True, compact_labels=False, symbol=None,
           source_path=None, trim_path=None, mean=False):
    """The report go tool pprof -FORMAT prints for a Profile, as a str (format: top, traces, tags,
    tree, peek, dot, svg, callgrind, list). peek and list take symbol, a Go regexp; list reads the
    sources of the matching functions from the paths in the profile, with Go's -source_path
    (source_path: ':'-separated directories, default the working directory) and -trim_path
    (trim_path: ':'-separated prefixes); a source it cannot read is said in the text, and bytes
    of a source that are not UTF-8 come back as surrogate escapes. json_output=True gives the JSON form (docs/report.md) as
    Python objects. With path: writes the report there (atomically; "-" is standard output), long
    reports as they are made, and returns None. "svg" is the dot graph laid out by Graphviz in this
    process; Graphviz is not reentrant, so the binding renders one svg at a time, whatever the
    thread. nodecount: -1 (the format's default) or at least 0; nodefraction, edgefraction: 0 to
    1. mean=True is Go's -mean (values divided by the first sample value). Raises PprofError."""
    if not isinstance(profile, Profile):
        raise TypeError("render takes a Profile (pprof.read(path))")
    if format not in FORMATS:
        raise ValueError("format must be one of " + ", ".join(FORMATS))
    if granularity not in _GRANULARITIES:
        raise ValueError("granularity must be functions, filefunctions, files, lines or addresses")
    o = _RenderOptions()
    o.struct_size = ctypes.sizeof(o)
    o.format = FORMATS[format]
    o.sample_type = c_str(sample_type, "sample_type")
    o.granularity = _GRANULARITIES[granularity]
    o.cum_sort = bool(cum)
    # -1 / None: the format's default; else the range pprof-report --nodecount and --*fraction
    # take. In the C options 0 is the default, so 0 here (all, no cutoff) is the named value.
    n = c_integer(nodecount, c_int64, "nodecount", -1)
    o.node_count = 0 if n < 0 else n if n else _REPORT_ALL
    o.node_fraction = _fraction(nodefraction, "nodefraction")
    o.edge_fraction = _fraction(edgefraction, "edgefraction")
    o.no_trim = not trim
    o.compact_labels = bool(compact_labels)
    o.symbol = c_str(symbol, "symbol")
    o.mean = bool(mean)
    o.source_path = c_str(source_path, "source_path")
    o.trim_path = c_str(trim_path, "trim_path")
    cpath = fspath_bytes(path) if path is not None else None
    # Graphviz lays out the svg report and is not reentrant: one at a time, whatever the thread
    gv = graphviz_lock if format == "svg" else contextlib.nullcontext()
    err = _lib.Error()
    if path is not None:
        with gv:
            st = analyze.pprof_report_write_file(profile._handle(), ctypes.byref(o), 1 if json_output else 0,
                                              None, cpath, ctypes.byref(err))
        check(st, err, path)
        return None
    buf = _lib.Buffer()
    with gv:
        st = analyze.pprof_report_write_memory(profile._handle(), ctypes.byref(o), 1 if json_output else 0,
                                     ctypes.byref(buf), ctypes.byref(err))
    data = take_buffer(buf)
    check(st, err, profile.name)
    text = data.decode("utf-8", "surrogateescape" if format == "list" else "strict")
    return json.loads(text) if json_output else text
