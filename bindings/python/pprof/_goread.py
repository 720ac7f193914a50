"""Go's reading rules: what pprof.read() refuses beyond what the decoder itself refuses.

The decoder keeps a profile that decodes but that Go's profile.Parse rejects (duplicate or zero
ids, a dangling string index, a line without a function...), so that pprof-check can report it.
A reader wants Go's answer instead: such a profile resolves to wrong frames. The decision is
the library's: the checker's error-level rules that Go enforces on reading (wire, container,
postDecode and CheckValid: W, R, PD and CV), the same set the C tools refuse
(tools/common.c tool_check_go_rules).
"""
import ctypes

from . import _lib
from ._core import PprofError
from ._lib import lib

_E_INVALID = 8  # PPROF_E_INVALID: the profile breaks a rule the operation depends on
_SEVERITY_ERROR = 2


def _is_go_rule(info):
    rid = info.id.decode()
    return info.severity == _SEVERITY_ERROR and (rid[:1] in ("W", "R") or rid[:2] in ("PD", "CV"))


def _mask():
    on = []
    while True:
        r = lib.pprof_rule_get(len(on))
        if not r:
            return (ctypes.c_bool * len(on))(*on)
        on.append(_is_go_rule(r.contents))


_MASK = _mask()  # the registry is constant for the library loaded
# what a caller's pprof_read_options.relax asked to keep is not refused afterwards
_RELAXED = {_lib.RELAX_STRING0: b"W6-string-table-0", _lib.RELAX_CONCATENATED: b"W8-concatenated"}


def refuse_invalid(handle, file, relax=0):
    """Raises PprofError (PPROF_E_INVALID) naming the first finding, its rule and how many
    there are, when the profile breaks a rule Go's pprof refuses on reading."""
    mask = (ctypes.c_bool * len(_MASK))(*_MASK)
    for bit, rid in _RELAXED.items():
        rule = ctypes.c_int()
        if relax & bit and lib.pprof_rule_find(rid, ctypes.byref(rule)):
            mask[rule.value] = False
    opts = _lib.CheckOptions()
    lib.pprof_check_options_init(ctypes.byref(opts))
    opts.enabled = ctypes.cast(mask, ctypes.POINTER(ctypes.c_bool))
    opts.n_enabled = len(mask)
    opts.max_findings = 1
    first = []

    def on_finding(_ctx, fp):
        f = fp.contents
        first.append((f.rule_id.decode(), (f.path or b"").decode("utf-8", "replace"),
                      f.offset, (f.message or b"").decode("utf-8", "replace")))
        return True

    cb = _lib.FINDING_FN(on_finding)
    sums = _lib.CheckSummary()
    err = _lib.Error()
    if lib.pprof_check(handle, ctypes.byref(opts), cb, None, ctypes.byref(sums), ctypes.byref(err)) != _lib.OK:
        raise PprofError.from_c(err, file)
    n = sums.count[_SEVERITY_ERROR]
    if not n or not first:
        return
    rule, path, offset, message = first[0]
    more = f"; {n - 1} more" if n > 1 else ""
    raise PprofError(_E_INVALID, path, None if offset == _lib.NO_OFFSET else offset,
                     f"{message} [{rule}] (Go's pprof refuses this profile{more}; pprof.check() lists every finding)", file)
