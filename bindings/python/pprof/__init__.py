"""Python binding of libpprof: read, check, merge and build pprof profiles.

The shared library is found through PPROF_LIBRARY (a path to libpprof.so.2), else the
system's loader path, else pkg-config's libdir for libpprof. libpprof-analyze, -formats and
-symbolize load beside it on first use (README.md, "What loads when"). Everything here calls the
library's public C API; nothing about the format is re-implemented in Python.
"""
from ._core import ArgumentRangeError, PprofError
from ._lib import lib as _clib
from .builder import Builder, BuilderStats
from .check import Finding, Rule, check, rules
from .merge import MergeSummary, MergeWarning, merge, merge_to_bytes
from .profile import Frame, Header, Label, Mapping, Profile, Sample, ValueType, read
# Each of these modules loads its library on first use, not here (pprof._lib.Library):
# libpprof-analyze (edit, report, flame), libpprof-formats (OTLP, perf, .cpuprofile,
# speedscope), libpprof-symbolize.
from .edit import edit
from .flame import flame
from . import report
from .symbolize import SymbolizedMapping, symbolize
from .otlp import is_otlp, read_otlp, to_otlp, write_otlp
from .perf import from_perf
from .interchange import from_cpuprofile, to_cpuprofile, to_speedscope

__version__ = _clib.pprof_version_string().decode()

__all__ = [
    "PprofError", "ArgumentRangeError", "Builder", "BuilderStats", "Finding", "Rule", "check", "rules", "MergeSummary", "MergeWarning",
    "merge", "merge_to_bytes", "edit", "flame", "report", "symbolize", "SymbolizedMapping", "Frame", "Header", "Label", "Mapping", "Profile", "Sample", "ValueType", "read",
    "from_perf", "to_speedscope", "to_cpuprofile", "from_cpuprofile",
    "read_otlp", "to_otlp", "write_otlp", "is_otlp",
]
