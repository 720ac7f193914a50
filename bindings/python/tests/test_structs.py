"""The ctypes mirrors of the public structs have the headers' sizes (a field added in C and
not in Python would make the library read or write past a Python struct)."""
import ctypes
import importlib
import os
import subprocess

import pytest

from pprof import _lib as L


def c_sizes():
    exe = os.environ.get("PPROF_STRUCT_SIZES")
    if not exe or not os.path.exists(exe):
        pytest.skip("struct-sizes is not built (meson builds it)")
    out = subprocess.run([exe], capture_output=True, check=True, text=True).stdout
    return {n: int(s) for n, s in (l.split() for l in out.splitlines())}


MIRRORS = {
    "pprof_error": L.Error, "pprof_read_options": L.ReadOptions, "pprof_write_options": L.WriteOptions,
    "pprof_buffer": L.Buffer, "pprof_header": L.Header, "pprof_sample": L.Sample, "pprof_location": L.Location,
    "pprof_mapping": L.Mapping, "pprof_function": L.Function, "pprof_label": L.Label, "pprof_line": L.Line,
    "pprof_merge_options": L.MergeOptions, "pprof_merge_summary": L.MergeSummary, "pprof_check_options": L.CheckOptions,
    "pprof_check_summary": L.CheckSummary, "pprof_finding": L.Finding, "pprof_rule_info": L.RuleInfo,
    "pprof_builder_options": L.BuilderOptions, "pprof_builder_mapping_desc": L.BuilderMappingDesc,
    "pprof_builder_line": L.BuilderLine, "pprof_builder_label": L.BuilderLabel, "pprof_builder_frame": L.BuilderFrame,
    "pprof_builder_stats": L.BuilderStats,
}


def py_size(t):
    # a struct with room for a newer library's fields: its known part must match
    names = [f[0] for f in t._fields_]
    if "_reserved" not in names:
        return ctypes.sizeof(t)
    align = max(ctypes.alignment(f[1]) for f in t._fields_)
    return -(-getattr(t, "_reserved").offset // align) * align


def test_sizes_match_headers():
    sizes = c_sizes()
    mirrors = dict(MIRRORS)
    if "pprof_edit_options" in sizes:
        E = importlib.import_module("pprof.edit")
        mirrors["pprof_edit_options"] = E._EditOptions
        mirrors["pprof_edit_step"] = E._Step
    if "pprof_flame_options" in sizes:
        F = importlib.import_module("pprof.flame")
        mirrors["pprof_flame_options"] = F._FlameOptions
        mirrors["pprof_flame_write_options"] = F._FlameWriteOptions
    if "pprof_report_render_options" in sizes:
        mirrors["pprof_report_render_options"] = importlib.import_module("pprof.report")._RenderOptions
    if "pprof_symbolize_options" in sizes:
        S = importlib.import_module("pprof.symbolize")
        mirrors["pprof_symbolize_options"] = S._Options
        mirrors["pprof_symbolize_mapping"] = S._Mapping
    if "pprof_speedscope_options" in sizes:
        I = importlib.import_module("pprof.interchange")
        mirrors["pprof_speedscope_options"] = I._SpeedscopeOptions
        mirrors["pprof_cpuprofile_read_options"] = I._CpuprofileReadOptions
        mirrors["pprof_cpuprofile_write_options"] = I._CpuprofileWriteOptions
    assert set(mirrors) == set(sizes)
    wrong = {n: (sizes[n], py_size(t)) for n, t in mirrors.items() if py_size(t) != sizes[n]}
    assert not wrong, f"C size vs ctypes size: {wrong}"


def test_prototypes_match_headers(src):
    """Every function the binding declares exists in the headers with as many parameters."""
    import glob
    import re

    text = "".join(open(f).read() for f in glob.glob(str(src / "libpprof" / "include" / "pprof" / "*.h")))
    decls = {}
    for m in re.finditer(r"PPROF_API\s+([^;(]*?)\b(pprof_\w+)\s*\(([^;]*?)\)\s*;", text, re.S):
        params = " ".join(m.group(3).split())
        decls[m.group(2)] = 0 if params in ("void", "") else params.count(",") + 1
    import pprof  # noqa: F401 (every module declares its library's functions on import)

    protos = {name: len(args) for name, (_, args) in L._PROTOTYPES.items()}
    for library in L.LIBRARIES:
        protos.update({name: len(args) for name, (_, args) in library.prototypes.items()})
    missing = sorted(set(protos) - set(decls))
    assert not missing, f"not in the headers: {missing}"
    wrong = {n: (decls[n], k) for n, k in protos.items() if decls[n] != k}
    assert not wrong, f"parameters in C vs in ctypes: {wrong}"


def test_prototypes_grouped_by_library(src):
    """Each function is declared with the library whose header has it (the header's first
    line names its library): a function declared with another library would be looked up in
    a library that does not export it, or load one that is not needed."""
    import glob
    import re

    import pprof  # noqa: F401

    owner = {}
    for f in glob.glob(str(src / "libpprof" / "include" / "pprof" / "*.h")):
        text = open(f).read()
        lib = re.match(r"/\* \[(lib[\w-]+)\]", text)
        assert lib, f"{f}: the first line does not name its library"
        for m in re.finditer(r"PPROF_API\s+[^;(]*?\b(pprof_\w+)\s*\(", text):
            owner[m.group(1)] = lib.group(1)
    declared = {name: "libpprof" for name in L._PROTOTYPES}
    for library in L.LIBRARIES:
        declared.update({name: "lib" + library.name for name in library.prototypes})
    wrong = {n: (owner.get(n), lib) for n, lib in declared.items() if owner.get(n) != lib}
    assert not wrong, f"function: (its header's library, the library the binding declares it in): {wrong}"
