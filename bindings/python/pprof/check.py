"""pprof.check(): the strict checker of pprof-check, findings as dataclasses."""
import ctypes
import os
from dataclasses import dataclass
from typing import Iterable, List, Optional

from . import _lib
from ._core import PprofError, c_integer, c_str_list, fspath_bytes, readers_first
from ._lib import analyze, lib

SEVERITIES = ("note", "warning", "error")


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    reference: str
    summary: str
    rationale: str
    example: str


@dataclass(frozen=True)
class Finding:
    file: str
    rule: str  # the stable rule id, e.g. "S6-empty-location"
    severity: str  # "error", "warning" or "note"
    path: str  # place inside the profile; "" = the whole profile
    offset: Optional[int]  # byte offset in the decompressed input
    message: str

    def __str__(self):
        s = f"{self.file}: {self.severity}: "
        if self.path:
            s += f"{self.path}: "
        s += self.message
        if self.offset is not None:
            s += f" (byte {self.offset})"
        return s + f" [{self.rule}]"


def _dec(b):
    return b.decode("utf-8", "replace") if b else ""


def rules() -> List[Rule]:
    """Every rule of the registry, in registry order."""
    out = []
    i = 0
    while True:
        r = lib.pprof_rule_get(i)
        if not r:
            return out
        r = r.contents
        out.append(Rule(_dec(r.id), SEVERITIES[r.severity], _dec(r.reference), _dec(r.summary), _dec(r.rationale), _dec(r.example)))
        i += 1


def _enabled_mask(ids, disable, enable):
    on = [True] * len(ids)

    def apply(names, value):
        for name in names:
            n = name.lower()
            hit = False
            for i, rid in enumerate(ids):
                r = rid.lower()
                if n == "all" or r == n or r.startswith(n + "-"):
                    on[i] = value
                    hit = True
            if not hit:
                raise ValueError(f"unknown rule {name!r} (see pprof.rules())")

    apply(disable, False)
    apply(enable, True)
    return (ctypes.c_bool * len(ids))(*on)


def check(paths, disable: Iterable[str] = (), enable: Iterable[str] = (), max_findings: int = 1000, cross_file: bool = True) -> List[Finding]:
    """Checks profiles (paths, or one path) against every enabled rule, as pprof-check does:
    a rule is named by its id, a prefix such as "S7", or "all"; enable applies after disable.
    With several files (and cross_file) one address must expand to the same inline frames in
    every file. An input that does not decode is a finding of its read rule (W1-W8, R1, R2);
    one that cannot be read at all raises PprofError. Findings of every severity are returned
    (pprof-check --min-severity=note); filter on Finding.severity."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    max_findings = c_integer(max_findings, ctypes.c_uint64, "max_findings")
    ids = [r.id for r in rules()]
    disable = [n.decode() for n in c_str_list(disable, "disable")]  # one str: TypeError, not letters
    enable = [n.decode() for n in c_str_list(enable, "enable")]
    mask = _enabled_mask(ids, disable, enable)
    opts = _lib.CheckOptions()
    lib.pprof_check_options_init(ctypes.byref(opts))
    opts.enabled = ctypes.cast(mask, ctypes.POINTER(ctypes.c_bool))
    opts.n_enabled = len(ids)
    findings: List[Finding] = []
    current = [""]

    def on_finding(_ctx, fp):
        if len(findings) >= max_findings:  # the limit is over all files
            return True
        f = fp.contents
        findings.append(Finding(
            _dec(f.file) or current[0],
            _dec(f.rule_id),
            SEVERITIES[f.severity],
            _dec(f.path),
            None if f.offset == _lib.NO_OFFSET else f.offset,
            _dec(f.message),
        ))
        return True

    cb = _lib.FINDING_FN(on_finding)
    # Rule S14 (drop_frames / keep_frames are Go regexps) takes RE2, in libpprof-analyze: the
    # checker calls this only for a profile that has either, and only then is the library loaded
    load_error = []

    def regex_check(pattern, n, why):
        try:
            return analyze.pprof_regex_check(pattern, n, why)
        except BaseException as e:  # raised once pprof_check_path returns
            load_error.append(e)
            return -1

    opts.regex_check = _lib.REGEX_CHECK_FN(regex_check)
    idx = None
    if cross_file and len(paths) > 1:
        h = ctypes.c_void_p()
        err = _lib.Error()
        if lib.pprof_inline_index_new(None, ctypes.byref(h), ctypes.byref(err)) != _lib.OK:
            raise PprofError.from_c(err)
        idx = h
    try:
        for path in paths:
            # as pprof-check (pprof_check_path): pprof or OTLP, undecodable bytes as a finding
            name = os.fsdecode(os.fspath(path))
            current[0] = name
            cpath = fspath_bytes(path)
            # the core alone first (pprof.read): bytes that do not decode as pprof are checked
            # again with libpprof-formats' readers, and only that answer is kept
            opts.readers = _lib.formats_readers() if readers_first(path) else None
            while True:
                before = len(findings)
                err = _lib.Error()
                decoded = ctypes.c_bool()
                opts.max_findings = max(0, max_findings - len(findings))
                st = lib.pprof_check_path(cpath, ctypes.byref(opts), idx, cb, None, None,
                                          ctypes.byref(decoded), ctypes.byref(err))
                if load_error:
                    raise load_error[0]
                if st != _lib.OK:
                    raise PprofError.from_c(err, name)
                if decoded.value or opts.readers:
                    break
                opts.readers = _lib.formats_readers(required=False)
                if not opts.readers:
                    break  # no other format to try: the core's findings stand
                del findings[before:]
    finally:
        if idx:
            lib.pprof_inline_index_free(idx)
    return findings
