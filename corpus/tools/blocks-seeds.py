#!/usr/bin/env python3
"""Seeds for fuzz_blocks (fuzz/fuzz_blocks.c): op-streams that reach each path of the blocks
allocator on purpose, for libFuzzer to start from. An op is one byte, slot << 3 | kind
(kind 0-2 allocate, 3-5 resize, 6 free, 7 reference), followed for allocate and resize by a
size: a class byte (0 small, 1 medium, 2 big, 3 an order's edge, 4 around a huge page, 5 tiny)
and a 16-bit value. Writes corpus/blocks/<name>."""
import os
import struct
import sys

ALLOC, RESIZE, FREE, REF = 0, 3, 6, 7
SMALL, MEDIUM, BIG, EDGE, HUGE_EDGE, TINY = range(6)


def edge(order, delta):
    """The EDGE value giving (8 KiB << order) - 1 + delta."""
    return next(v for v in range(1 << 16) if v % 10 == order and (v >> 4) % 3 == delta)


def op(kind, slot, cls=None, v=0):
    b = bytes([slot << 3 | kind])
    if cls is not None:
        b += bytes([cls]) + struct.pack('<H', v)
    return b


SEEDS = {
    # every class once, freed in the order allocated
    'classes': b''.join(op(ALLOC, i, c, 1000 + i) for i, c in enumerate(range(6))) +
    b''.join(op(FREE, i) for i in range(6)),
    # medium blocks of one order freed out of order: buddies merge back into a slab
    'buddies': b''.join(op(ALLOC, i, EDGE, edge(3, 1)) for i in range(8)) +
    b''.join(op(FREE, i) for i in (1, 0, 3, 2, 5, 7, 4, 6)) + op(ALLOC, 9, EDGE, edge(6, 1)),
    # a big block freed into the cache, then taken again smaller, larger, and by a resize
    'big-cache': op(ALLOC, 0, BIG, 20000) + op(ALLOC, 1, BIG, 60000) + op(FREE, 0) +
    op(FREE, 1) + op(ALLOC, 2, BIG, 100) + op(ALLOC, 3, MEDIUM, 5) + op(RESIZE, 3, BIG, 30000) +
    op(RESIZE, 2, BIG, 65000),
    # a big block grown in place (mremap), shrunk within its mapping, then to medium and small
    'big-resize': op(ALLOC, 0, BIG, 10) + op(RESIZE, 0, BIG, 40000) + op(RESIZE, 0, BIG, 5) +
    op(RESIZE, 0, MEDIUM, 9000) + op(RESIZE, 0, SMALL, 300) + op(RESIZE, 0, HUGE_EDGE, 40),
    # medium blocks shrunk to a quarter (they move) and grown past their order
    'medium-resize': op(ALLOC, 0, EDGE, edge(5, 1)) + op(RESIZE, 0, EDGE, edge(3, 1)) +
    op(RESIZE, 0, EDGE, edge(3, 0)) + op(RESIZE, 0, EDGE, edge(7, 2)) + op(RESIZE, 0, SMALL, 9000) +
    op(RESIZE, 0, TINY, 0) + op(RESIZE, 0, EDGE, edge(9, 2)),
    # references taken and dropped among live blocks, a slot reused without a free
    'refs': op(ALLOC, 0, MEDIUM, 1) + op(REF, 0) + op(ALLOC, 0, BIG, 1) + op(REF, 1) +
    op(ALLOC, 0, SMALL, 7) + op(REF, 2),
    # more big blocks than the cache keeps
    'big-many': b''.join(op(ALLOC, i, BIG, 1) for i in range(16)) +
    b''.join(op(FREE, i) for i in range(16)) + b''.join(op(ALLOC, i, BIG, 2) for i in range(4)),
}

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'blocks')
if len(sys.argv) > 1:
    out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
