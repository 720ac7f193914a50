# The protobuf wire encoding the hand-made profiles of corpus/tools need (imported by the
# scripts beside it): varints, length-delimited fields, varint fields, packed runs.


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def ld(num, payload):
    """A length-delimited field (wire type 2)."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vi(num, v):
    """A varint field (wire type 0)."""
    return varint(num << 3) + varint(v)


def packed(vals):
    return b"".join(varint(v) for v in vals)
