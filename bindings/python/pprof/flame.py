"""pprof.flame(): flame graphs of a profile (pprof/flame.h), as pprof-flame draws them."""
import contextlib
import ctypes
import json
import os
from ctypes import POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint, c_void_p

from . import _lib
from ._core import c_integer, c_real, c_str, check, fspath_bytes, graphviz_lock, take_buffer
from ._lib import analyze
from .profile import Profile


class _FlameOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("sample_type", c_char_p),
        ("lines", c_bool),
        ("reverse", c_bool),
        ("normalize", c_bool),
        ("allocator", _lib.Allocator),
    ]


class _FlameWriteOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("format", c_int),
        ("title", c_char_p),
        ("source", c_char_p),
        ("base_source", c_char_p),
        ("width", c_uint),
        ("minwidth", c_double),
        ("minwidth_percent", c_bool),
        ("colors", c_char_p),
        ("hash", c_bool),
        ("inverted", c_bool),
        ("max_nodes", c_size_t),
        ("allocator", _lib.Allocator),
        ("graph", c_void_p),
        ("graph_sample_type", c_char_p),
        ("max_time_samples", c_size_t),
        ("graph_view", c_void_p),
    ]


_FORMATS = {"html": 0, "svg": 1, "json": 2, "data": 3}

analyze.declare({
    "pprof_flame_tree_new": (c_int, [c_void_p, c_void_p, POINTER(_FlameOptions), POINTER(c_void_p), POINTER(_lib.Error)]),
    "pprof_flame_tree_free": (None, [c_void_p]),
    "pprof_flame_write_memory": (c_int, [c_void_p, POINTER(_FlameWriteOptions), POINTER(_lib.Buffer), POINTER(_lib.Error)]),
    "pprof_flame_write_file": (c_int, [c_void_p, POINTER(_FlameWriteOptions), POINTER(_lib.WriteOptions), c_char_p, POINTER(_lib.Error)]),
})


def _minwidth(v):
    """minwidth= as (value, percent): pixels (a number, 0 to 10^6) or a percentage ("0.5%", 0
    to 100), as pprof-flame --minwidth takes them."""
    if isinstance(v, str):
        if not v.endswith("%"):
            raise TypeError(f"minwidth takes pixels (a number) or a percentage ('0.5%'), not {v!r}")
        try:
            d = float(v[:-1])
        except ValueError:
            raise ValueError(f"minwidth = {v!r} is not a percentage") from None
        return c_real(d, "minwidth", 0, 100), True
    return c_real(v, "minwidth", 0, 1e6), False


def flame(profile, path=None, *, format=None, base=None, sample_type=None, lines=False, reverse=False,
          normalize=False, title=None, width=0, minwidth=None, colors=None, hash=False, inverted=False,
          graph=True, **filters):
    """The flame graph of a Profile, as pprof-flame draws it.

    Without path: d3-flame-graph's tree as Python objects ({"name", "value", "children"}, and
    "delta" with a base; format="data" gives the HTML page's data block of docs/flame.md).
    With path: writes the file atomically, in the format of its name (.html, .svg, .json) unless
    format says otherwise, and returns None.

    base: a Profile to compare with (normalize=True scales it to the profile's total first).
    minwidth: pixels (a number) or a percentage ("0.5%"). graph: the HTML page gets a Graph view,
    go tool pprof -svg's call graph drawn by Graphviz (not with a base; graph=False leaves it
    out; Graphviz is not reentrant: the binding writes one such page at a time, whatever the
    thread). width: SVG pixels, 100 to 10^6 (0: 1200).
    Filters, in pprof-edit's names with
    '_' for '-' (focus, ignore, hide, show, show_from, prune_from, tag_focus, ...), apply
    first through pprof.edit. Raises PprofError."""
    if not isinstance(profile, Profile) or (base is not None and not isinstance(base, Profile)):
        raise TypeError("flame takes Profiles (pprof.read(path))")
    if normalize and base is None:
        raise ValueError("normalize needs a base")
    cpath = fspath_bytes(path) if path is not None else None
    if format is None:
        name = os.fspath(path) if path is not None else ""
        format = next((f for f in ("svg", "json", "html") if str(name).endswith("." + f)),
                      "html" if path is not None else "json")
    if format not in _FORMATS:
        raise ValueError("format must be 'html', 'svg', 'json' or 'data'")
    o = _FlameOptions()
    o.struct_size = ctypes.sizeof(o)
    o.sample_type = c_str(sample_type, "sample_type")
    o.lines, o.reverse, o.normalize = bool(lines), bool(reverse), bool(normalize)
    w = _FlameWriteOptions()
    w.struct_size = ctypes.sizeof(w)
    w.format = _FORMATS[format]
    w.title = c_str(title, "title")
    # 0 is the default (1200), else the range pprof-flame --width takes
    lo, hi = (0, 0) if width == 0 else (100, 1000000)
    w.width = c_integer(width, c_uint, "width", lo, hi)
    w.minwidth, w.minwidth_percent = -1.0, False
    if minwidth is not None:
        w.minwidth, w.minwidth_percent = _minwidth(minwidth)
    w.colors, w.hash, w.inverted = c_str(colors, "colors"), bool(hash), bool(inverted)
    use_graphviz = bool(graph) and base is None and format == "html"
    filtered = []
    if filters:
        from .edit import edit
        profile = edit(profile, **filters)
        filtered.append(profile)
        if base is not None:
            base = edit(base, **filters)
            filtered.append(base)
    w.source = c_str(profile.name or "", "profile name")
    w.base_source = c_str(base.name or "", "base profile name") if base is not None else None
    if use_graphviz:
        w.graph, w.graph_sample_type = profile._handle(), o.sample_type
    err = _lib.Error()
    tree = c_void_p()
    try:
        check(analyze.pprof_flame_tree_new(profile._handle(), base._handle() if base is not None else None,
                                       ctypes.byref(o), ctypes.byref(tree), ctypes.byref(err)), err, profile.name)
        if path is None:
            buf = _lib.Buffer()
            with graphviz_lock if use_graphviz else contextlib.nullcontext():
                st = analyze.pprof_flame_write_memory(tree, ctypes.byref(w), ctypes.byref(buf), ctypes.byref(err))
            data = take_buffer(buf)
            check(st, err, profile.name)
            return json.loads(data.decode("utf-8")) if format in ("json", "data") else data.decode("utf-8")
        with graphviz_lock if use_graphviz else contextlib.nullcontext():
            st = analyze.pprof_flame_write_file(tree, ctypes.byref(w), None, cpath, ctypes.byref(err))
        check(st, err, path)
        return None
    finally:
        analyze.pprof_flame_tree_free(tree)
        for p in filtered:
            p.close()


def _profile_flame(self, path=None, **kw):
    """pprof.flame(self, path, **kw)."""
    return flame(self, path, **kw)


Profile.flame = _profile_flame
