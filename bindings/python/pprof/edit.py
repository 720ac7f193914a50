"""pprof.edit(): the rewrite engine of pprof-edit (pprof/edit.h)."""
import ctypes
import numbers
from ctypes import POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint, c_uint32, c_void_p

from . import _lib
from ._core import PprofError, c_integer, c_real, c_str, c_str_array, check, fspath_bytes, take_buffer, write_options
from ._lib import analyze, lib
from .profile import Profile


class _Label(Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


class _Rename(Structure):
    _fields_ = [("from_", c_char_p), ("to", c_char_p)]


class _Scale(Structure):
    _fields_ = [("type", c_char_p), ("factor", c_double)]


class _Step(Structure):
    _fields_ = [
        ("op", c_char_p),
        ("samples_in", c_size_t),
        ("samples_out", c_size_t),
        ("total_in", POINTER(ctypes.c_int64)),
        ("n_total_in", c_size_t),
        ("total_out", POINTER(ctypes.c_int64)),
        ("n_total_out", c_size_t),
    ]


_STEP_FN = ctypes.CFUNCTYPE(None, c_void_p, POINTER(_Step))

_STR_OPS = ["focus", "ignore", "hide", "show", "show_from", "prune_from", "drop_frames", "keep_frames"]
_TAG_OPS = ["tag_focus", "tag_ignore", "tag_show", "tag_hide", "tag_root", "tag_leaf", "tag_unit"]


class _EditOptions(Structure):
    _fields_ = (
        [("struct_size", c_size_t)]
        + [(n, c_char_p) for n in _STR_OPS]
        + [("remove_uninteresting", c_bool)]
        + [(n, c_char_p) for n in _TAG_OPS]
        + [
            ("sample_types", POINTER(c_char_p)),
            ("n_sample_types", c_size_t),
            ("remove_labels", POINTER(c_char_p)),
            ("n_remove_labels", c_size_t),
            ("rename_labels", POINTER(_Rename)),
            ("n_rename_labels", c_size_t),
            ("set_labels", POINTER(_Label)),
            ("n_set_labels", c_size_t),
            ("normalize_base", c_void_p),
            ("scale", POINTER(_Scale)),
            ("n_scale", c_size_t),
            ("granularity", c_int),
            ("no_inlines", c_bool),
            ("max_depth", c_uint32),
            ("min_fraction", c_double),
            ("redact", c_uint),
            ("redact_labels", POINTER(c_char_p)),
            ("n_redact_labels", c_size_t),
            ("redact_key", c_void_p),
            ("redact_key_len", c_size_t),
            ("warn", _lib.WARN_FN),
            ("warn_ctx", c_void_p),
            ("step", _STEP_FN),
            ("step_ctx", c_void_p),
            ("allocator", _lib.Allocator),
            ("threads", c_uint),
            ("time_from", c_char_p),
            ("time_to", c_char_p),
            ("drop_timestamps", c_bool),
            ("_reserved", ctypes.c_uint8 * 256),  # see _lib.py
        ]
    )


analyze.declare({
    "pprof_edit_options_init": (None, [POINTER(_EditOptions)]),
    "pprof_edit": (c_int, [c_void_p, POINTER(_EditOptions), POINTER(c_void_p), POINTER(_lib.Error)]),
    "pprof_edit_write_file": (c_int, [c_void_p, POINTER(_EditOptions), POINTER(_lib.WriteOptions), c_char_p, POINTER(_lib.Error)]),
    "pprof_edit_write_memory": (c_int, [c_void_p, POINTER(_EditOptions), POINTER(_lib.WriteOptions), POINTER(_lib.Buffer), POINTER(_lib.Error)]),
})

_GRANULARITY = {None: 0, "": 0, "functions": 1, "filefunctions": 2, "files": 3, "lines": 4, "addresses": 5}
_REDACT = {"files": 0x1, "mappings": 0x2, "labels": 0x4}


def _scales(sc):
    """scale=F or {sample type: F} as (type or None, factor) pairs."""
    if isinstance(sc, dict):
        return [(c_str(t, "scale type"), c_real(f, f"scale[{t!r}]")) for t, f in sc.items()]
    if isinstance(sc, numbers.Real) and not isinstance(sc, bool):
        return [(None, c_real(sc, "scale"))]
    raise TypeError(f"scale takes a number or {{sample type: number}}, not {type(sc).__name__}")


def _options(ops, keep):
    o = _EditOptions()
    analyze.pprof_edit_options_init(ctypes.byref(o))
    ops = dict(ops)
    for n in _STR_OPS + _TAG_OPS:
        v = ops.pop(n, None)
        if v is not None:
            setattr(o, n, c_str(v, n))
    ru = ops.pop("remove_uninteresting", None)
    # like pprof-edit (and go tool pprof): any of Go's frame or label filters also applies the
    # profile's own drop_frames / keep_frames
    o.remove_uninteresting = bool(ru) if ru is not None else any(
        getattr(o, n) for n in _STR_OPS[:7] + _TAG_OPS[:6])
    if "sample_types" in ops:
        st = ops.pop("sample_types")
        o.sample_types, o.n_sample_types = c_str_array([st] if isinstance(st, str) else st, "sample_types", keep)
    if "remove_labels" in ops:
        o.remove_labels, o.n_remove_labels = c_str_array(ops.pop("remove_labels"), "remove_labels", keep)
    if "rename_labels" in ops:
        pairs = list(ops.pop("rename_labels").items())
        arr = (_Rename * max(1, len(pairs)))(*[_Rename(c_str(a, "rename_labels key"), c_str(b, f"rename_labels[{a!r}]")) for a, b in pairs])
        keep.append(arr)
        o.rename_labels, o.n_rename_labels = arr, len(pairs)
    if "set_labels" in ops:
        pairs = list(ops.pop("set_labels").items())
        arr = (_Label * max(1, len(pairs)))(*[_Label(c_str(a, "set_labels key"), c_str(str(b), f"set_labels[{a!r}]")) for a, b in pairs])
        keep.append(arr)
        o.set_labels, o.n_set_labels = arr, len(pairs)
    base = ops.pop("normalize", None)
    if base is not None:
        if not isinstance(base, Profile):
            raise TypeError("normalize takes a Profile (pprof.read(path))")
        o.normalize_base = base._handle()
    if "scale" in ops:
        pairs = _scales(ops.pop("scale"))
        arr = (_Scale * max(1, len(pairs)))(*[_Scale(t, f) for t, f in pairs])
        keep.append(arr)
        o.scale, o.n_scale = arr, len(pairs)
    g = ops.pop("granularity", None)
    if g not in _GRANULARITY:
        raise ValueError("granularity: functions, filefunctions, files, lines or addresses")
    o.granularity = _GRANULARITY[g]
    o.no_inlines = bool(ops.pop("no_inlines", False))
    o.max_depth = c_integer(ops.pop("max_depth", 0), c_uint32, "max_depth")
    o.min_fraction = c_real(ops.pop("min_fraction", 0.0), "min_fraction")
    red = ops.pop("redact", ())
    red = [red] if isinstance(red, str) else list(red)
    labels = list(ops.pop("redact_labels", ()))
    for r in red:
        if not isinstance(r, str):
            raise TypeError(f"redact takes strings, not {type(r).__name__}")
        if r.startswith("label:"):
            labels.append(r[len("label:"):])
        elif r in _REDACT:
            o.redact |= _REDACT[r]
        else:
            raise ValueError("redact: files, mappings or label:KEY")
    if labels:
        o.redact |= _REDACT["labels"]
        o.redact_labels, o.n_redact_labels = c_str_array(labels, "redact_labels", keep)
    key = ops.pop("redact_key", None)
    if key is not None:  # bytes with a length: any byte, NUL too, is part of the key
        if not isinstance(key, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"redact_key must be bytes or str, not {type(key).__name__}")
        key = key.encode() if isinstance(key, str) else bytes(key)
        keep.append(key)
        o.redact_key = ctypes.cast(ctypes.c_char_p(key), c_void_p)
        o.redact_key_len = len(key)
    o.threads = c_integer(ops.pop("threads", 0), c_uint, "threads")
    for n in ("time_from", "time_to"):
        v = ops.pop(n, None)
        if v is not None:
            setattr(o, n, c_str(v if isinstance(v, str) else repr(float(v)), n))
    o.drop_timestamps = bool(ops.pop("drop_timestamps", False))
    if ops:
        raise TypeError("unknown edit operation(s): " + ", ".join(sorted(ops)))
    return o


def edit(profile: Profile, out=None, compress="gzip", level=0, warn=None, **ops):
    """Rewrites a profile like pprof-edit, into a new compacted Profile (or, with out, a file
    written atomically with pprof-edit's bytes for the same operations; or, with
    out=bytes, the encoded bytes). Operations, in pprof-edit's names with '_' for '-':

      focus, ignore, hide, show, show_from, prune_from, drop_frames, keep_frames (Go regexps);
      tag_focus, tag_ignore, tag_show, tag_hide, tag_root, tag_leaf, tag_unit;
      sample_types=[...]; remove_labels=[...]; rename_labels={old: new}; set_labels={k: v};
      normalize=Profile; scale=F or {type: F}; granularity='functions'|...; no_inlines=True;
      max_depth=N; min_fraction=F; redact=['files', 'mappings', 'label:KEY'], redact_key=bytes;
      remove_uninteresting (default: on with any frame or label filter, as go tool pprof);
      time_from, time_to (RFC 3339 text, or seconds from the first sample as text or a number);
      drop_timestamps=True.

    warn: None drops Go's "matched no samples" warnings; a callable receives each.
    Raises PprofError (PPROF_E_ARG names a bad option)."""
    if not isinstance(profile, Profile):
        raise TypeError("edit takes a Profile (pprof.read(path))")
    keep = []
    o = _options(ops, keep)
    msgs = []
    if warn is not None:
        cb = _lib.WARN_FN(lambda _ctx, m: msgs.append(m.decode("utf-8", "replace")))
        keep.append(cb)
        o.warn = cb
    err = _lib.Error()
    try:
        if out is None:
            p = c_void_p()
            check(analyze.pprof_edit(profile._handle(), ctypes.byref(o), ctypes.byref(p), ctypes.byref(err)), err, profile.name)
            return Profile(p, "<edited>")
        w = write_options(compress, level)
        if out is bytes:
            buf = _lib.Buffer()
            st = analyze.pprof_edit_write_memory(profile._handle(), ctypes.byref(o), ctypes.byref(w), ctypes.byref(buf), ctypes.byref(err))
            if st != _lib.OK:
                lib.pprof_buffer_free(ctypes.byref(buf))
                raise PprofError.from_c(err, profile.name)
            return take_buffer(buf)
        check(analyze.pprof_edit_write_file(profile._handle(), ctypes.byref(o), ctypes.byref(w), fspath_bytes(out), ctypes.byref(err)), err, out)
        return None
    finally:
        if warn is not None:
            for m in msgs:
                warn(m)
