"""Linux perf recordings (perf.data, file or pipe mode, or `perf script` text) read into a
Profile through libpprof's pprof/perf.h."""
import ctypes
import os
from ctypes import POINTER, Structure, c_bool, c_char_p, c_int, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p
from typing import Iterable, Optional, Union

from . import _lib
from ._core import as_bytes, c_path, c_str_array, c_str_list, check, fspath_bytes
from ._lib import formats
from .profile import Profile

_INPUTS = {None: 0, "auto": 0, "perf-data": 1, "perf-script": 2}
_LABELS = {"pid": 0x1, "tid": 0x2, "comm": 0x4, "cpu": 0x8}


class PerfOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("input", c_int),
        ("labels", c_uint32),
        ("events", POINTER(c_char_p)),
        ("n_events", c_size_t),
        ("kallsyms", c_void_p),
        ("kallsyms_size", c_size_t),
        ("max_input_bytes", c_uint64),
        ("max_round_records", c_uint64),
        ("max_processes", c_uint64),
        ("allocator", _lib.Allocator),
        ("timestamps", c_bool),
        ("_reserved", c_uint8 * 64),
    ]


_COUNTS = [
    "records", "samples", "samples_converted", "samples_other_event", "samples_unknown_id", "lost",
    "unmapped_frames", "dwarf_stacks", "branch_stacks", "raw_payloads", "aux_records",
    "compressed_records", "unknown_records", "rounds_split", "truncated_bytes", "guest_frames",
    "bad_lines",
]


class PerfStats(Structure):
    _fields_ = [("struct_size", c_size_t), ("pipe_mode", c_bool), ("swapped", c_bool),
                ("script_text", c_bool)] + [(n, c_uint64) for n in _COUNTS]


_E = POINTER(_lib.Error)
formats.declare({
    "pprof_perf_options_init": (None, [POINTER(PerfOptions)]),
    "pprof_perf_read_memory": (c_int, [c_void_p, c_size_t, POINTER(PerfOptions), POINTER(c_void_p), POINTER(PerfStats), _E]),
    "pprof_perf_read_file": (c_int, [c_char_p, POINTER(PerfOptions), POINTER(c_void_p), POINTER(PerfStats), _E]),
    "pprof_perf_warning": (c_size_t, [POINTER(PerfStats), c_char_p, c_size_t]),
})


def from_perf(source: Union[str, os.PathLike, bytes, bytearray, memoryview], *,
              events: Optional[Iterable[str]] = None, labels: Iterable[str] = (),
              kallsyms: Union[str, os.PathLike, bytes, None] = None, input: Optional[str] = None,
              stats: bool = False, symbolize: Union[bool, dict] = False, timestamps: bool = False):
    """Reads a perf recording from a path ('-' is standard input) or bytes into a Profile:
    one sample type per event plus samples/count, address locations in the process mappings.
    events keeps only the named events; labels is a subset of pid, tid, comm, cpu; kallsyms
    (a path or the text of /proc/kallsyms) names kernel frames; input is 'perf-data',
    'perf-script' or None (detected). With stats=True returns (profile, dict of counts with
    'warning', the text naming what was not converted). symbolize=True symbolizes the addresses
    in the same call, as pprof-from-perf --symbolize (pprof.symbolize's defaults); a dict gives
    pprof.symbolize's keyword arguments (binaries, debug_dirs, sysroot, demangle, ...); the
    per-mapping report is then stats['symbolized'] with stats=True. timestamps=True labels each
    sample with its time (timestamp_unix_nano, as pprof-from-perf --timestamps). Raises
    PprofError."""
    if input not in _INPUTS:
        raise ValueError(f"input must be 'perf-data', 'perf-script' or None, not {input!r}")
    o = PerfOptions()
    formats.pprof_perf_options_init(ctypes.byref(o))
    o.input = _INPUTS[input]
    o.timestamps = bool(timestamps)
    for l in c_str_list(labels, "labels"):
        l = l.decode("utf-8", "replace")
        if l not in _LABELS:
            raise ValueError(f"unknown label {l!r} (pid, tid, comm, cpu)")
        o.labels |= _LABELS[l]
    ev_keep = []
    ev_arr, n_ev = c_str_array(events if events is not None else [], "events", ev_keep)
    if n_ev:
        o.events, o.n_events = ev_arr, n_ev
    ks = None
    if kallsyms is not None:
        if isinstance(kallsyms, (bytes, bytearray, memoryview)):
            ks = bytes(kallsyms)
        else:
            with open(c_path(kallsyms, "kallsyms"), "rb") as f:
                ks = f.read()
        ks_buf = ctypes.create_string_buffer(ks, len(ks))
        o.kallsyms, o.kallsyms_size = ctypes.cast(ks_buf, c_void_p), len(ks)
    st = PerfStats()
    st.struct_size = ctypes.sizeof(PerfStats)
    out = c_void_p()
    err = _lib.Error()
    if isinstance(source, (bytes, bytearray, memoryview)):
        keep, ptr, n = as_bytes(source)
        rc = formats.pprof_perf_read_memory(ptr, n, ctypes.byref(o), ctypes.byref(out), ctypes.byref(st), ctypes.byref(err))
        del keep
        name = "<bytes>"
    else:
        name = os.fsdecode(os.fspath(source))
        rc = formats.pprof_perf_read_file(fspath_bytes(source), ctypes.byref(o), ctypes.byref(out), ctypes.byref(st), ctypes.byref(err))
    del ev_keep, ks
    check(rc, err, name)
    p = Profile(out, name)
    report = None
    if symbolize is not False and symbolize is not None:
        from .symbolize import symbolize as _symbolize
        kw = {} if symbolize is True else dict(symbolize)
        p, report = _symbolize(p, **kw)
        p.name = name
    if not stats:
        return p
    d = {n: getattr(st, n) for n in ["pipe_mode", "swapped", "script_text"] + _COUNTS}
    buf = ctypes.create_string_buffer(2048)
    formats.pprof_perf_warning(ctypes.byref(st), buf, len(buf))
    d["warning"] = buf.value.decode("utf-8", "replace")
    if report is not None:
        d["symbolized"] = report
    return p, d
