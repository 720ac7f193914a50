#!/usr/bin/env python3
# OTLP Profiles seeds for fuzz_otlp, written as wire bytes (so that fields protoc's text format
# cannot say - unknown fields, broken varints - can be there too):
#   otlp-kinds.otlp   every attribute value kind as a label (string, string index, bool, int
#                     with a unit, double, bytes, an array of them, a kvlist), a mapping's
#                     build ID and has_* flags, a folded location, the profile's header
#                     attributes (default sample type by string index, comments with a
#                     non-string element), profile_id, dropped_attributes_count, scope and
#                     resource attributes and schema URLs, a sample with neither values nor
#                     timestamps, and an unknown field of each wire type in every message
#   otlp-bad-WHAT.otlp the same profile with one index out of range (WHAT names it): the
#                     conversion refuses it naming the field, the checker reports O2
#   otlp-split-attrs.otlp a Profile's attribute indices in two parts around a sample
#   otlp-wire-WHAT.otlp a field broken on the wire (a varint past 10 bytes, a truncated fixed64
#                     or tag, a bad packed varint): the reader refuses it naming the field
#   corpus/tools/otlp-seeds.py DIR
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, varint, vi  # noqa: E402

STRINGS = ["", "cpu", "nanoseconds", "main", "app.c", "pprof.build_id", "pprof.has_functions",
           "pprof.has_filenames", "pprof.has_line_numbers", "pprof.has_inline_frames",
           "pprof.is_folded", "pprof.default_sample_type", "pprof.comments", "flag", "ratio",
           "blob", "ref", "size", "bytes", "list", "kv", "scope.key", "host.name", "worker"]
S = {s: i for i, s in enumerate(STRINGS)}
BAD = 999


def f64(num, v):
    """A fixed64 field (wire type 1)."""
    return varint(num << 3 | 1) + struct.pack("<Q", v)


def dbl(num, v):
    return varint(num << 3 | 1) + struct.pack("<d", v)


def f32(num, v):
    return varint(num << 3 | 5) + struct.pack("<I", v)


# an unknown field of every wire type: varint, fixed64, length-delimited, fixed32
UNKNOWN = vi(30, 7) + f64(31, 1) + ld(32, b"?") + f32(33, 2)


def any_value(kind, v):
    if kind == "string":
        return ld(1, v.encode())
    if kind == "bool":
        return vi(2, v)
    if kind == "int":
        return vi(3, v)
    if kind == "double":
        return dbl(4, v)
    if kind == "array":
        return ld(5, b"".join(ld(1, any_value(k, x)) for k, x in v))
    if kind == "kvlist":
        return ld(6, b"".join(ld(1, ld(1, k.encode()) + ld(2, any_value("string", x)))
                              for k, x in v))
    if kind == "bytes":
        return ld(7, v)
    if kind == "strindex":
        return vi(8, v)
    raise ValueError(kind)


def attr(key, kind, v, unit=0, extra=b""):
    return ld(6, vi(1, key) + ld(2, any_value(kind, v) + UNKNOWN) + vi(3, unit) + extra)


def profiles(bad=None):
    b = lambda what, good: BAD if bad == what else good  # noqa: E731
    # attribute table: 0 is the zero value
    attrs = [ld(6, b""),
             attr(S["pprof.build_id"], "string", "abc123"),                       # 1
             attr(S["pprof.has_functions"], "bool", 1),                           # 2
             attr(S["pprof.has_filenames"], "bool", 1),                           # 3
             attr(S["pprof.has_line_numbers"], "bool", 0),                        # 4
             attr(S["pprof.has_inline_frames"], "bool", 1),                       # 5
             attr(S["pprof.is_folded"], "bool", 1),                               # 6
             attr(S["pprof.default_sample_type"], "strindex", S["cpu"]),          # 7
             attr(S["pprof.comments"], "array", [("string", "a comment"), ("int", 3)]),  # 8
             attr(b("attr-key", S["flag"]), "bool", 1),                           # 9
             attr(S["ratio"], "double", 0.25, unit=b("attr-unit", 0)),            # 10
             attr(S["blob"], "bytes", b"\x01\xfe"),                               # 11
             attr(S["ref"], "strindex", b("attr-strindex", S["worker"])),         # 12
             attr(S["size"], "int", 64, unit=S["bytes"]),                         # 13
             attr(S["list"], "array", [("strindex", b("array-strindex", 0)), ("bool", 0),
                                       ("double", 1.5), ("bytes", b"\x00")]),     # 14
             attr(S["kv"], "kvlist", [("a", "b")])]                               # 15
    mapping = (vi(1, 0x1000) + vi(2, 0x9000) + vi(3, 0) + vi(4, b("mapping-filename", S["app.c"]))
               + ld(5, packed([1, 2, 3, 4, 5, b("mapping-attr", 0)])) + UNKNOWN)
    line = vi(1, b("line-function", 1)) + vi(2, 7) + vi(3, 2) + UNKNOWN
    location = (vi(1, 1) + vi(2, 0x1100) + ld(3, line) + ld(4, packed([b("location-attr", 6)]))
                + UNKNOWN)
    function = (vi(1, b("function-name", S["main"])) + vi(2, b("function-system-name", 0)) +
                vi(3, b("function-filename", S["app.c"])) + vi(4, 3) + UNKNOWN)
    d = ld(1, b"") + ld(1, mapping)
    d += ld(2, b"") + ld(2, location)
    d += ld(3, b"") + ld(3, function)
    d += ld(4, b"") + ld(4, ld(1, bytes(range(16))) + ld(2, bytes(range(8))) + UNKNOWN)
    for s in STRINGS:
        d += ld(5, s.encode())
    d += b"".join(attrs)
    d += ld(7, b"") + ld(7, ld(1, packed([1])) + UNKNOWN)
    d += UNKNOWN
    samples = [
        vi(1, b("sample-stack", 1)) + ld(2, packed([9, 10, 11, 12, 13, 14, 15,
                                                     b("sample-attr", 0)]))
        + vi(3, b("sample-link", 1)) + ld(4, packed([5])) + UNKNOWN,
        vi(1, 1),  # neither values nor timestamps
    ]
    prof = ld(1, vi(1, b("sample-type", S["cpu"])) + vi(2, S["nanoseconds"]) + UNKNOWN)
    prof += b"".join(ld(2, s) for s in samples)
    prof += f64(3, 1000) + vi(4, 100)
    prof += ld(5, vi(1, b("period-type", S["cpu"])) + vi(2, S["nanoseconds"]))
    prof += vi(6, 10) + ld(7, bytes(16)) + vi(8, 2)
    prof += ld(11, packed([7, 8, b("profile-attr", 0)])) + UNKNOWN
    scope = (ld(1, b"fuzz") + ld(2, b"1.0") +
             ld(3, vi(3, S["scope.key"]) + ld(2, any_value("string", "v")) + UNKNOWN) +
             ld(3, ld(1, b"plain") + ld(2, any_value("int", 1))) + vi(4, 0) + UNKNOWN)
    sp = ld(1, scope) + ld(2, prof) + ld(3, b"https://example.com/scope") + UNKNOWN
    resource = ld(1, ld(1, b"host.name") + ld(2, any_value("string", "h"))) + UNKNOWN
    rp = ld(1, resource) + ld(2, sp) + ld(3, b"https://example.com/resource") + UNKNOWN
    return ld(1, rp) + ld(2, d) + UNKNOWN


BADS = ["attr-key", "attr-unit", "attr-strindex", "array-strindex", "mapping-filename",
        "mapping-attr", "line-function", "location-attr", "function-name",
        "function-system-name", "function-filename", "period-type", "profile-attr",
        "sample-stack", "sample-attr", "sample-link", "sample-type"]

# on the wire: the dictionary's string table followed by a broken field
WIRE = {
    "varint": ld(2, ld(1, b"\x08" + b"\xff" * 11)),                   # Mapping.memory_start
    "fixed64": ld(1, ld(2, ld(2, b"\x19\x01\x02"))),                  # Profile.time cut short
    "tag": ld(2, ld(5, b"") + b"\x80"),                               # a tag cut short
    "packed": ld(2, ld(5, b"") + ld(7, ld(1, b"\x01\x80"))),          # Stack indices cut short
    "double": ld(2, ld(5, b"") + ld(6, ld(2, b"\x21\x00\x00"))),      # AnyValue.double cut
}

def split_attrs():
    """A Profile's attribute_indices in two parts with a sample between them (a packed run,
    then one unpacked index): both parts are the profile's, the sample's index is its own."""
    strings = ["", "cpu", "nanoseconds", "pprof.comments", "k", "pprof.doc_url"]
    d = ld(2, b"") + ld(2, vi(2, 16))
    for x in strings:
        d += ld(5, x.encode())
    d += ld(6, b"")
    d += ld(6, vi(1, 3) + ld(2, any_value("array", [("string", "a comment")])))
    d += ld(6, vi(1, 4) + ld(2, any_value("string", "v")))
    d += ld(6, vi(1, 5) + ld(2, any_value("string", "https://example.com/doc")))
    d += ld(7, b"") + ld(7, ld(1, packed([1])))
    prof = ld(1, vi(1, 1) + vi(2, 2)) + ld(11, packed([1]))
    prof += ld(2, vi(1, 1) + ld(2, packed([2])) + ld(4, packed([5]))) + vi(11, 3)
    return ld(1, ld(2, ld(2, prof))) + ld(2, d)


out = sys.argv[1]
with open(os.path.join(out, "otlp-split-attrs.otlp"), "wb") as f:
    f.write(split_attrs())
with open(os.path.join(out, "otlp-kinds.otlp"), "wb") as f:
    f.write(profiles())
for what in BADS:
    with open(os.path.join(out, "otlp-bad-%s.otlp" % what), "wb") as f:
        f.write(profiles(what))
for what, data in WIRE.items():
    with open(os.path.join(out, "otlp-wire-%s.otlp" % what), "wb") as f:
        f.write(data)
