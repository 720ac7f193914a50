"""Writes small JFR recordings shaped as async-profiler and the JDK write them, from the format
as documented (chunk header, compressed integers, metadata element tree, checkpoint constant
pools, events), with what pprof-convert must make of them.

usage: gen_jfr.py OUTDIR
For each variant V it writes OUTDIR/V.jfr, OUTDIR/V.expected (folded stacks of the samples
type with the thread label as the root, as `pprof-convert --to=folded --sample-type samples
--labels thread` prints them, sorted) and OUTDIR/V.totals ("TYPE TOTAL" lines)."""
import os
import struct
import sys


def varint(v, pad=0):
    v &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if v < 0x80 and len(out) + 1 >= pad:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v & 0xFF)
    return bytes(out)


class W:
    def __init__(self, compressed):
        self.c = compressed
        self.b = bytearray()

    def raw(self, b):
        self.b += b
        return self

    def byte(self, v):
        self.b.append(v & 0xFF)
        return self

    def short(self, v):
        return self.raw(varint(v) if self.c else struct.pack(">H", v & 0xFFFF))

    def int(self, v):
        return self.raw(varint(v) if self.c else struct.pack(">I", v & 0xFFFFFFFF))

    def long(self, v):
        return self.raw(varint(v) if self.c else struct.pack(">Q", v & ((1 << 64) - 1)))

    def string(self, s, enc=3):
        if s is None:
            return self.byte(0)
        if s == "":
            return self.byte(1)
        if enc == 2:  # s is a key into the java.lang.String pool
            return self.byte(2).long(s)
        if enc == 4:
            units = s.encode("utf-16-be")
            self.byte(4).int(len(units) // 2)
            for i in range(0, len(units), 2):
                self.short(units[i] << 8 | units[i + 1])
            return self
        data = s.encode("latin-1" if enc == 5 else "utf-8")
        return self.byte(enc).int(len(data)).raw(data)


LONG, INT, BOOL, STRING = 1, 2, 3, 4
SYMBOL, CLASS, PACKAGE, METHOD, FRAMETYPE, FRAME, STACK, THREAD, STATE = range(100, 109)
EXEC, TLAB_IN, TLAB_OUT, MONITOR, PARK, SETTING, LOG, NATIVE = range(20, 28)
LOOP = 110

# (id, name, [(field, type, pool, array)])
CLASSES = [
    (LONG, "long", []), (INT, "int", []), (BOOL, "boolean", []), (STRING, "java.lang.String", []),
    (SYMBOL, "jdk.types.Symbol", [("string", STRING, 0, 0)]),
    (CLASS, "java.lang.Class", [("name", SYMBOL, 1, 0), ("package", PACKAGE, 1, 0), ("modifiers", INT, 0, 0)]),
    (PACKAGE, "jdk.types.Package", [("name", SYMBOL, 1, 0)]),
    (METHOD, "jdk.types.Method", [("type", CLASS, 1, 0), ("name", SYMBOL, 1, 0), ("descriptor", SYMBOL, 1, 0),
                                  ("modifiers", INT, 0, 0), ("hidden", BOOL, 0, 0)]),
    (FRAMETYPE, "jdk.types.FrameType", [("description", STRING, 0, 0)]),
    (FRAME, "jdk.types.StackFrame", [("method", METHOD, 1, 0), ("lineNumber", INT, 0, 0),
                                     ("bytecodeIndex", INT, 0, 0), ("type", FRAMETYPE, 1, 0)]),
    (STACK, "jdk.types.StackTrace", [("truncated", BOOL, 0, 0), ("frames", FRAME, 0, 1)]),
    (THREAD, "java.lang.Thread", [("osName", STRING, 0, 0), ("osThreadId", LONG, 0, 0),
                                  ("javaName", STRING, 0, 0), ("javaThreadId", LONG, 0, 0)]),
    (STATE, "jdk.types.ThreadState", [("name", STRING, 0, 0)]),
    (EXEC, "jdk.ExecutionSample", [("startTime", LONG, 0, 0), ("sampledThread", THREAD, 1, 0),
                                   ("stackTrace", STACK, 1, 0), ("state", STATE, 1, 0)]),
    (TLAB_IN, "jdk.ObjectAllocationInNewTLAB", [("startTime", LONG, 0, 0), ("eventThread", THREAD, 1, 0),
                                               ("stackTrace", STACK, 1, 0), ("objectClass", CLASS, 1, 0),
                                               ("allocationSize", LONG, 0, 0), ("tlabSize", LONG, 0, 0)]),
    (TLAB_OUT, "jdk.ObjectAllocationOutsideTLAB", [("startTime", LONG, 0, 0), ("eventThread", THREAD, 1, 0),
                                                  ("stackTrace", STACK, 1, 0), ("objectClass", CLASS, 1, 0),
                                                  ("allocationSize", LONG, 0, 0)]),
    (MONITOR, "jdk.JavaMonitorEnter", [("startTime", LONG, 0, 0), ("duration", LONG, 0, 0),
                                       ("eventThread", THREAD, 1, 0), ("stackTrace", STACK, 1, 0),
                                       ("monitorClass", CLASS, 1, 0), ("previousOwner", THREAD, 1, 0),
                                       ("address", LONG, 0, 0)]),
    (PARK, "jdk.ThreadPark", [("startTime", LONG, 0, 0), ("duration", LONG, 0, 0), ("eventThread", THREAD, 1, 0),
                              ("stackTrace", STACK, 1, 0), ("parkedClass", CLASS, 1, 0), ("timeout", LONG, 0, 0),
                              ("until", LONG, 0, 0), ("address", LONG, 0, 0)]),
    (SETTING, "jdk.ActiveSetting", [("startTime", LONG, 0, 0), ("duration", LONG, 0, 0),
                                    ("eventThread", THREAD, 1, 0), ("stackTrace", STACK, 1, 0),
                                    ("id", LONG, 0, 0), ("name", STRING, 0, 0), ("value", STRING, 0, 0)]),
    (LOG, "profiler.Log", [("startTime", LONG, 0, 0), ("level", STRING, 0, 0), ("message", STRING, 0, 0)]),
    (NATIVE, "jdk.NativeMethodSample", [("startTime", LONG, 0, 0), ("sampledThread", THREAD, 1, 0),
                                        ("stackTrace", STACK, 1, 0), ("state", STATE, 1, 0)]),
    (LOOP, "x.Loop", [("next", LOOP, 0, 0)]),
]

SYMBOLS = {1: "java/util/HashMap", 2: "get", 3: "(Ljava/lang/Object;)Ljava/lang/Object;", 4: 1,
           5: "main", 6: "run", 7: "java/lang/Thread", 8: "work", 9: "compute", 10: "__GI_read",
           11: "[B", 12: "java/lang/Object", 13: "()V", 14: "java/util", 15: "java/lang"}
STRINGS = {1: "Main"}  # the java.lang.String pool; symbol 4 refers to it
CLASSES_POOL = {1: (1, 1), 2: (4, 0), 3: (7, 2), 4: (11, 0), 5: (12, 2)}  # key: (symbol, package)
PACKAGES = {1: 14, 2: 15}
METHODS = {1: (1, 2, 3), 2: (2, 5, 13), 3: (3, 6, 13), 4: (2, 8, 13), 5: (2, 9, 13), 6: (0, 10, 13)}
FRAMETYPES = {1: "Interpreted", 2: "JIT compiled", 3: "Inlined", 4: "Native"}
# leaf first: (method, line, frame type); and truncated
STACKS = {1: (False, [(1, 10, 3), (5, 20, 2), (2, 5, 1)]),
          2: (True, [(4, 30, 2), (3, 40, 1)]),
          3: (False, [(6, 0, 4), (4, 31, 2), (3, 40, 1)])}
# key: (osName, osThreadId, javaName (encoding), javaThreadId)
THREADS = {1: ("main-os", 11, ("main", 4), 1), 2: ("worker-os", 12, ("w\u00f6rker", 5), 2),
           3: ("native-os", 13, (None, 3), 0)}
THREAD_LABEL = {1: "main", 2: "w\u00f6rker", 3: "native-os"}
METHOD_NAME = {1: "java.util.HashMap.get", 2: "Main.main", 3: "java.lang.Thread.run", 4: "Main.work",
               5: "Main.compute", 6: "__GI_read"}
TPS = 2_000_000_000  # ticks per second: two ticks a nanosecond
START_TICKS = 5_000_000
START_NANOS = 1_700_000_000_000_000_000
PERIOD_MS = 20

SAMPLES = [(1, 1)] * 3 + [(2, 2)] * 2 + [(3, 3)]  # (thread, stack)
NATIVE_SAMPLES = [(3, 3)] * 2
TLAB = [(1, 1, 4, 100, 1000)] * 2  # thread, stack, class, size, tlab size
OUTSIDE = [(2, 2, 1, 5000), (3, 0, 4, 700)]  # stack 0: no stack trace (a compiler thread's)
LOCKS = [(MONITOR, 2, 3, 2_000_000, 5), (PARK, 1, 1, 3_000_000, 5)]  # kind, thread, stack, ns, class


# Damage a variant may ask for (see HOSTILE): a struct that holds itself (with a pool entry
# of it), a java.lang.String pool entry that refers to itself, a stack trace claiming more
# frames than there are bytes, an event claiming more bytes than its chunk.
DAMAGE = set()


def event(w_c, etype, body, pad):
    """An event: its size (itself included), its type, its fields."""
    payload = W(w_c).long(etype).raw(body).b
    if not w_c:
        return struct.pack(">I", 4 + len(payload)) + payload
    n = len(payload) + 1
    while len(varint(n, pad)) + len(payload) != n:
        n = len(varint(n, pad)) + len(payload)
    return varint(n, pad) + payload


def metadata(c):
    strings = []
    index = {}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]

    def element(name, attrs, children):
        w = W(c).int(s(name)).int(len(attrs))
        for k, v in attrs:
            w.int(s(k)).int(s(v))
        w.int(len(children))
        for ch in children:
            w.raw(ch)
        return w.b

    classes = []
    for cid, name, fields in CLASSES:
        fe = []
        for fname, ftype, pool, array in fields:
            attrs = [("name", fname), ("class", str(ftype))]
            if pool:
                attrs.append(("constantPool", "true"))
            if array:
                attrs.append(("dimension", "1"))
            ann = [element("annotation", [("class", "200"), ("value", "a label")], [])] if fname == "startTime" else []
            fe.append(element("field", attrs, ann))
        attrs = [("name", name), ("id", str(cid))]
        if cid < 100 and cid >= 20:
            attrs.append(("superType", "jdk.jfr.Event"))
        classes.append(element("class", attrs, fe + [element("setting", [("name", "enabled")], [])]))
    root = element("root", [], [element("metadata", [], classes),
                                element("region", [("locale", "en_US"), ("gmtOffset", "0")], [])])
    w = W(c).long(START_TICKS).long(0).long(1).int(len(strings))
    for x in strings:
        w.string(x)
    return w.raw(root).b


def checkpoint(c):
    pools = []

    def pool(tid, entries):
        w = W(c).long(tid).int(len(entries))
        for k, body in entries:
            w.long(k).raw(body)
        pools.append(w.b)

    pool(STRING, [(k, W(c).string(1, 2).b if "string-cycle" in DAMAGE else W(c).string(v).b)
                  for k, v in STRINGS.items()])
    if "self-struct" in DAMAGE:
        pool(LOOP, [(1, W(c).byte(0).b * 64)])
    pool(SYMBOL, [(k, W(c).string(v, 2 if isinstance(v, int) else 3).b) for k, v in SYMBOLS.items()])
    pool(PACKAGE, [(k, W(c).long(v).b) for k, v in PACKAGES.items()])
    pool(CLASS, [(k, W(c).long(sym).long(pkg).int(1).b) for k, (sym, pkg) in CLASSES_POOL.items()])
    pool(METHOD, [(k, W(c).long(t).long(n).long(d).int(9).byte(0).b) for k, (t, n, d) in METHODS.items()])
    pool(FRAMETYPE, [(k, W(c).string(v).b) for k, v in FRAMETYPES.items()])
    st = []
    for k, (trunc, frames) in STACKS.items():
        w = W(c).byte(1 if trunc else 0).int(0xFFFFFFF if "huge-count" in DAMAGE else len(frames))
        for m, line, ft in frames:
            w.long(m).int(line).int(0).long(ft)
        st.append((k, w.b))
    pool(STACK, st)
    pool(THREAD, [(k, W(c).string(o).long(oid).string(j[0], j[1]).long(jid).b)
                  for k, (o, oid, j, jid) in THREADS.items()])
    pool(STATE, [(1, W(c).string("STATE_RUNNABLE").b)])
    w = W(c).long(START_TICKS).long(0).long(0).byte(1).int(len(pools))
    for p in pools:
        w.raw(p)
    return w.b


def events(c, pad):
    out = []
    t = START_TICKS + 10
    s = W(c).long(t).long(0).long(1).long(0).long(EXEC).string("period").string("%d ms" % PERIOD_MS).b
    out.append(event(c, SETTING, s, pad))
    for th, stk in SAMPLES:
        t += 1000
        out.append(event(c, EXEC, W(c).long(t).long(th).long(stk).long(1).b, pad))
    for th, stk in NATIVE_SAMPLES:
        out.append(event(c, NATIVE, W(c).long(t).long(th).long(stk).long(1).b, pad))
    for th, stk, cls, size, tlab in TLAB:
        out.append(event(c, TLAB_IN, W(c).long(t).long(th).long(stk).long(cls).long(size).long(tlab).b, pad))
    for th, stk, cls, size in OUTSIDE:
        out.append(event(c, TLAB_OUT, W(c).long(t).long(th).long(stk).long(cls).long(size).b, pad))
    for kind, th, stk, ns, cls in LOCKS:
        w = W(c).long(t).long(ns * TPS // 1_000_000_000).long(th).long(stk).long(cls)
        w.long(0).long(0).long(0) if kind == PARK else w.long(0).long(0)
        out.append(event(c, kind, w.b if kind == MONITOR else w.long(0).b, pad))
    out.append(event(c, LOG, W(c).long(t).string("INFO").string("a message the reader skips").b, pad))
    if "event-past-chunk" in DAMAGE:
        out.append(varint(1 << 20) + varint(LOG))
    return b"".join(out)


def chunk(minor, compressed, meta_first, pad):
    """One chunk: header, then events, metadata and the checkpoint in the writer's order."""
    c = compressed
    meta = event(c, 0, metadata(c), pad)
    cp = event(c, 1, checkpoint(c), pad)
    body = events(c, pad)
    parts = [meta, body, cp] if meta_first else [body, cp, meta]
    off, offs = 68, {}
    for p in parts:
        offs[id(p)] = off
        off += len(p)
    header = b"FLR\0" + struct.pack(">HHqqqqqqqI", 2, minor, off, offs[id(cp)], offs[id(meta)], START_NANOS,
                                      1_000_000_000, START_TICKS, TPS, 1 if c else 0)
    return header + b"".join(parts)


def expected(chunks):
    stacks = {}
    for th, stk in SAMPLES:
        trunc, frames = STACKS[stk]
        names = [METHOD_NAME[m] for m, _, _ in reversed(frames)]
        key = ";".join(["thread=" + THREAD_LABEL[th]] + (["truncated"] if trunc else []) + names)
        stacks[key] = stacks.get(key, 0) + chunks
    lines = sorted("%s %d" % kv for kv in stacks.items())
    totals = {"samples": len(SAMPLES), "native": len(NATIVE_SAMPLES), "cpu": len(SAMPLES) * PERIOD_MS * 1_000_000,
              "alloc_objects": len(TLAB) + len(OUTSIDE),
              "alloc_space": sum(x[4] for x in TLAB) + sum(x[3] for x in OUTSIDE),
              "contentions": len(LOCKS), "delay": sum(x[3] for x in LOCKS)}
    return lines, {k: v * chunks for k, v in totals.items()}


VARIANTS = {
    # async-profiler: JFR 2.0, events first, then the constant pools, then the metadata
    "asprof-2.0": ([(0, True, False, 0)]),
    # the JDK's way: JFR 2.1, metadata first, sizes padded to four bytes
    "jdk-2.1": ([(1, True, True, 4)]),
    # integers not compressed (features 0)
    "fixed-2.1": ([(1, False, True, 0)]),
    # two chunks back to back, as a long recording has
    "two-chunks": ([(0, True, False, 0), (1, True, True, 4)]),
}

# Recordings the reader must refuse (exit 1), with what its message says.
HOSTILE = {
    "self-struct": "nested deeper|malformed constant pool",
    "string-cycle": "malformed",
    "huge-count": "malformed",
    "event-past-chunk": "runs past its chunk",
}

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, says in HOSTILE.items():
        DAMAGE.clear()
        DAMAGE.add(name)
        with open(os.path.join(out, "bad-" + name + ".jfr"), "wb") as f:
            f.write(chunk(0, True, False, 0))
        with open(os.path.join(out, "bad-" + name + ".says"), "w", encoding="utf-8") as f:
            f.write(says + "\n")
    DAMAGE.clear()
    for name, chunks in VARIANTS.items():
        with open(os.path.join(out, name + ".jfr"), "wb") as f:
            for args in chunks:
                f.write(chunk(*args))
        lines, totals = expected(len(chunks))
        with open(os.path.join(out, name + ".expected"), "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines))
        with open(os.path.join(out, name + ".totals"), "w", encoding="utf-8") as f:
            f.write("".join("%s %d\n" % kv for kv in sorted(totals.items())))
