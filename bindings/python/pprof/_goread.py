"""Go's reading rules: what pprof.read() refuses beyond what the decoder itself refuses.

The decoder keeps a profile that decodes but that Go's profile.Parse rejects (duplicate or zero
ids, a dangling string index, a line without a function...), so that pprof-check can report it.
A reader wants Go's answer instead: such a profile resolves to wrong frames. The decision is
the library's: pprof_validate (check.h) where the library has it, else the same rule set run
through pprof_check: the checker's error-level rules that Go enforces on reading (wire,
container, postDecode and CheckValid: W, R, PD and CV), which the C tools refuse too.
"""
import ctypes

from . import _lib
from ._core import PprofError
from ._lib import lib

_E_INVALID = 8  # PPROF_E_INVALID: the profile breaks a rule the operation depends on
_SEVERITY_ERROR = 2

_validate = getattr(lib, "pprof_validate", None)
if _validate is not None:
    _validate.restype = ctypes.c_int
    _validate.argtypes = [ctypes.c_void_p, _lib.FINDING_FN, ctypes.c_void_p, ctypes.c_uint64,
                          ctypes.POINTER(_lib.CheckSummary), ctypes.POINTER(_lib.Error)]


_enforced = getattr(lib, "pprof_rule_go_enforced", None)
if _enforced is not None:
    _enforced.restype, _enforced.argtypes = ctypes.c_bool, [ctypes.c_int]


def _go_enforced(rule, info):
    if _enforced is not None:
        return bool(_enforced(rule))
    rid = info.id.decode()
    return info.severity == _SEVERITY_ERROR and (rid[:1] in ("W", "R") or rid[:2] in ("PD", "CV"))


def _mask():
    on = []
    while True:
        r = lib.pprof_rule_get(len(on))
        if not r:
            return (ctypes.c_bool * len(on))(*on)
        on.append(_go_enforced(len(on), r.contents))


_NO_FN = _lib.FINDING_FN()  # a NULL callback: pprof_validate only counts
_MASK = None if _validate is not None else _mask()  # the registry is constant


def _check_go_rules(handle, sums, err):
    """pprof_validate's answer through pprof_check: PPROF_E_INVALID with err naming the first
    finding as "message [RULE-ID]"."""
    mask = _MASK
    opts = _lib.CheckOptions()
    lib.pprof_check_options_init(ctypes.byref(opts))
    opts.enabled = ctypes.cast(mask, ctypes.POINTER(ctypes.c_bool))
    opts.n_enabled = len(mask)
    opts.max_findings = 1
    first = []

    def on_finding(_ctx, fp):
        f = fp.contents
        first.append((f.rule_id or b"", f.path or b"", f.offset, f.message or b""))
        return True

    cb = _lib.FINDING_FN(on_finding)
    st = lib.pprof_check(handle, ctypes.byref(opts), cb, None, ctypes.byref(sums), ctypes.byref(err))
    if st != _lib.OK:
        return st
    if not sums.count[_SEVERITY_ERROR] or not first:
        return _lib.OK
    rule, path, offset, message = first[0]
    err.code, err.offset = _E_INVALID, offset
    err.path = path[: _lib.Error.path.size - 1]
    err.message = (message + b" [" + rule + b"]")[: _lib.Error.message.size - 1]
    return _E_INVALID


def refuse_invalid(handle, file):
    """Raises PprofError (PPROF_E_INVALID) naming the first finding, its rule and how many
    more there are, when the profile breaks a rule Go's pprof refuses on reading."""
    sums = _lib.CheckSummary()
    err = _lib.Error()
    if _validate is not None:
        st = _validate(handle, _NO_FN, None, 1, ctypes.byref(sums), ctypes.byref(err))
    else:
        st = _check_go_rules(handle, sums, err)
    if st == _lib.OK:
        return
    e = PprofError.from_c(err, file)
    if st == _E_INVALID:
        n = sums.count[_SEVERITY_ERROR]
        more = f", {n - 1} more" if n > 1 else ""
        e = PprofError(e.code, e.path, e.offset,
                       f"{e.message} (Go's pprof refuses this profile{more}; pprof.check() lists every finding)", e.file)
    raise e
