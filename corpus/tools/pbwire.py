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


class Strings:
    """A profile's string table, interned in order of first use ("" is index 0)."""

    def __init__(self):
        self.table = [""]

    def __call__(self, x):
        if x not in self.table:
            self.table.append(x)
        return self.table.index(x)

    def encode(self):
        """The table as Profile.string_table fields (field 6)."""
        return b"".join(ld(6, x.encode()) for x in self.table)
