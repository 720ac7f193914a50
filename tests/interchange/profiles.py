"""Small pprof profiles for the interchange tests, encoded here (no library code involved):
inlined frames, a location without lines, names with NUL, control bytes and bytes that are not
UTF-8, an allocation sample whose count is huge."""
import gzip

HOSTILE = b"nul\x00ctl\x01\x1b[31m\"q\"\\ bad\xff\xfe </script>"


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def packed(vals):
    return b"".join(varint(v) for v in vals)


def encode(sample_types, functions, locations, samples, mappings=(), default_type=None):
    """sample_types [(type, unit)]; functions [(id, name, file, start_line)] (bytes);
    locations [(id, mapping_id, address, [(function_id, line)] innermost first)];
    samples [([location ids leaf first], [values])]; mappings [(id, filename)]."""
    strings = [b""]
    index = {b"": 0}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]

    out = bytearray()
    for t, u in sample_types:
        out += field(1, 2, field(1, 0, s(t)) + field(2, 0, s(u)))
    for locs, vals in samples:
        out += field(2, 2, field(1, 2, packed(locs)) + field(2, 2, packed(vals)))
    for mid, fname in mappings:
        out += field(3, 2, field(1, 0, mid) + field(2, 0, 0x400000) + field(3, 0, 0x500000) +
                     field(5, 0, s(fname)))
    for lid, mid, addr, lines in locations:
        body = field(1, 0, lid)
        if mid:
            body += field(2, 0, mid)
        if addr:
            body += field(3, 0, addr)
        for fid, line in lines:
            body += field(4, 2, field(1, 0, fid) + field(2, 0, line))
        out += field(4, 2, body)
    for fid, name, fname, start in functions:
        out += field(5, 2, field(1, 0, fid) + field(2, 0, s(name)) + field(3, 0, s(name)) +
                     field(4, 0, s(fname)) + field(5, 0, start))
    if default_type is not None:
        s(default_type)
    for x in strings:
        out += field(6, 2, x)
    if default_type is not None:
        out += field(14, 0, index[default_type])
    return gzip.compress(bytes(out))


def alloc_profile():
    """alloc_objects/count and alloc_space/bytes; main -> work (inlined into main at one
    address: two frames in one location) -> HOSTILE -> an unsymbolized address."""
    functions = [(1, b"main", b"main.go", 10), (2, b"work", b"work.go", 20),
                 (3, HOSTILE, b"ctl\x02.c", 0)]
    locations = [(1, 0, 0, [(2, 25), (1, 12)]),  # work inlined into main
                 (2, 0, 0, [(3, 7)]),
                 (3, 1, 0x401234, [])]
    samples = [([3, 2, 1], [3, 4096]),
               ([2, 1], [10 ** 12, 10 ** 15]),  # one sample, never a trillion
               ([1], [0, 512]),                  # no object count: left out of that profile
               ([1], [2, 0])]
    return encode([(b"alloc_objects", b"count"), (b"alloc_space", b"bytes")], functions,
                  locations, samples, mappings=[(1, b"/usr/lib/libx.so")])


def cpu_profile():
    """samples/count and cpu/nanoseconds over the stacks of alloc_profile"""
    functions = [(1, b"main", b"main.go", 10), (2, b"work", b"work.go", 20),
                 (3, HOSTILE, b"ctl\x02.c", 0)]
    locations = [(1, 0, 0, [(2, 25), (1, 12)]), (2, 0, 0, [(3, 7)]), (3, 1, 0x401234, [])]
    samples = [([3, 2, 1], [3, 30000000]), ([2, 1], [5, 52000000]), ([1], [1, 9000000])]
    return encode([(b"samples", b"count"), (b"cpu", b"nanoseconds")], functions, locations,
                  samples, mappings=[(1, b"/usr/lib/libx.so")])
