"""Python binding of libpprof: read, check, merge and build pprof profiles.

The shared library is found through PPROF_LIBRARY (a path to libpprof.so.0), else the
system's loader path, else pkg-config's libdir for libpprof. Everything here calls the
library's public C API; nothing about the format is re-implemented in Python.
"""
from ._core import ArgumentRangeError, PprofError
from ._lib import lib as _clib
from .builder import Builder, BuilderStats
from .check import Finding, Rule, check, rules
from .merge import MergeSummary, MergeWarning, merge, merge_to_bytes
try:  # pprof/edit.h, when the library has it
    from .edit import edit
except AttributeError:  # an older libpprof without pprof_edit
    pass
try:  # pprof/flame.h, when the library has it
    from .flame import flame
except AttributeError:  # an older libpprof without flame graphs
    pass
try:  # pprof_report_render (pprof/report.h), when the library has it
    from . import report
except AttributeError:  # an older libpprof without rendered reports
    pass
try:  # pprof/symbolize.h, when the library has it
    from .symbolize import SymbolizedMapping, symbolize
except AttributeError:  # an older libpprof without pprof_symbolize
    pass
from .profile import Frame, Header, Label, Mapping, Profile, Sample, ValueType, read
try:  # pprof/otlp.h, when the library has it
    from .otlp import is_otlp, read_otlp, to_otlp, write_otlp
except AttributeError:  # an older libpprof without OTLP
    pass
try:  # pprof/perf.h, when the library has it
    from .perf import from_perf
except AttributeError:  # an older libpprof without pprof_perf_read_file
    pass

try:  # pprof/interchange.h, when the library has it
    from .interchange import from_cpuprofile, to_cpuprofile, to_speedscope
except AttributeError:  # an older libpprof without speedscope and .cpuprofile
    pass

__version__ = _clib.pprof_version_string().decode()

__all__ = [
    "PprofError", "ArgumentRangeError", "Builder", "BuilderStats", "Finding", "Rule", "check", "rules", "MergeSummary", "MergeWarning",
    "merge", "merge_to_bytes", "edit", "flame", "report", "symbolize", "SymbolizedMapping", "Frame", "Header", "Label", "Mapping", "Profile", "Sample", "ValueType", "read",
    "from_perf", "to_speedscope", "to_cpuprofile", "from_cpuprofile",
    "read_otlp", "to_otlp", "write_otlp", "is_otlp",
]
