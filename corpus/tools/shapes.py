#!/usr/bin/env python3
# Profiles in the shapes other producers write (Java, .NET, Ruby, Python, Node.js, Rust), for the
# corpus the tests walk (corpus/real/generated/). Real files of those producers come with licences
# that do not allow copying them here, so the shapes are made instead: symbolized-only stacks
# (address 0, no mapping), one Location per function (pprof-rs), several sample types, string and
# numeric labels, and the faults real producers were seen to write (a function with id 0, strings
# that are not UTF-8, a Location with neither address nor line). Deterministic: a fixed seed and
# gzip with mtime 0, so running it again gives the same bytes.
#   corpus/tools/shapes.py corpus/real/generated
import gzip
import os
import random
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import ld, packed, vi  # noqa: E402


class Table:
    """A string table that also takes raw bytes (for the strings that are not UTF-8)."""

    def __init__(self):
        self.items = [b""]

    def __call__(self, s):
        b = s if isinstance(s, bytes) else s.encode()
        if b not in self.items:
            self.items.append(b)
        return self.items.index(b)


def build(sample_types, period_type, period, stacks, *, funcs_from=1, rust_ids=False,
          mapping=None, empty_location=False, default_type=None, seed=1, labels=None,
          time_nanos=1700000000000000000, duration=10000000000):
    """stacks: list of (frames leaf first as (name, file, line), values, [(key, str|int, unit)])."""
    st = Table()
    rnd = random.Random(seed)
    funcs = {}  # (name, file) -> id
    locs = {}  # (name, file, line) -> id
    body_f, body_l = b"", b""
    samples = b""
    addr = 0x401000
    for frames, values, lab in stacks:
        ids = []
        for name, file, line in frames:
            fk = (name, file)
            if fk not in funcs:
                fid = len(funcs) + funcs_from
                funcs[fk] = fid
                body_f += ld(5, vi(1, fid) + vi(2, st(name)) + vi(3, st(name)) + vi(4, st(file)) +
                             vi(5, max(line - rnd.randint(0, 20), 1)))
            # pprof-rs: one Location per function, with the function's id
            lk = fk if rust_ids else (name, file, line)
            if lk not in locs:
                lid = funcs[fk] if rust_ids else len(locs) + 1
                locs[lk] = lid
                loc = vi(1, lid)
                if mapping:
                    loc += vi(2, 1) + vi(3, addr)
                    addr += 0x10 + rnd.randint(0, 0x40)
                loc += ld(4, vi(1, funcs[fk]) + vi(2, line))
                body_l += ld(4, loc)
            ids.append(locs[lk])
        s = ld(1, packed(ids)) + ld(2, packed(v & (1 << 64) - 1 for v in values))
        for k, v, unit in lab:
            if isinstance(v, int):
                s += ld(3, vi(1, st(k)) + vi(3, v) + (vi(4, st(unit)) if unit else b""))
            else:
                s += ld(3, vi(1, st(k)) + vi(2, st(v)))
        samples += ld(2, s)
    if empty_location:
        # neither address nor line: a Location that names no code at all
        lid = len(locs) + 1
        body_l += ld(4, vi(1, lid) + vi(2, 1))
        samples += ld(2, ld(1, packed([lid, 1])) + ld(2, packed([1] * len(sample_types))))
    p = b"".join(ld(1, vi(1, st(t)) + vi(2, st(u))) for t, u in sample_types)
    p += samples
    if mapping:
        p += ld(3, vi(1, 1) + vi(2, 0x400000) + vi(3, 0x400000 + 0x200000) + vi(5, st(mapping)) +
                vi(6, st("2f9a6c8e41d07b3355aa10c3e2b1d4f6a8c90e17")) + vi(7, 1) + vi(8, 1) +
                vi(9, 1))
    p += body_l + body_f
    p += vi(9, time_nanos) + vi(10, duration)
    p += ld(11, vi(1, st(period_type[0])) + vi(2, st(period_type[1]))) + vi(12, period)
    if default_type:
        p += vi(14, st(default_type))
    p += b"".join(ld(6, s) for s in st.items)
    return p


def stacks_of(rnd, pool, n, depth, nvalues, scale, lab=lambda rnd: []):
    """n samples, each a random walk from a root through pool (a list of (name, file))."""
    out = []
    for _ in range(n):
        d = rnd.randint(depth[0], depth[1])
        path = [pool[0]] + [pool[rnd.randrange(1, len(pool))] for _ in range(d - 1)]
        frames = [(name, file, 10 + zlib.crc32(name.encode()) % 400 + rnd.randint(0, 3)) for name, file in path]
        frames.reverse()  # leaf first
        vals = [rnd.randint(1, 9) * scale[i] for i in range(nvalues)]
        out.append((frames, vals, lab(rnd)))
    return out


def names(rnd, n, fmt, files):
    return [(fmt.format(i=i, w=rnd.choice(WORDS)), rnd.choice(files)) for i in range(n)]


WORDS = ["handle", "process", "parse", "render", "flush", "encode", "lookup", "dispatch", "read",
         "write", "compute", "merge", "visit", "resolve", "emit", "schedule"]


def main(out):
    os.makedirs(out, exist_ok=True)
    made = {}
    rnd = random.Random(7)

    # Java (async-profiler JFR converted): symbolized only, cpu/nanoseconds, thread labels
    pool = [("java.lang.Thread.run", "Thread.java")] + names(
        rnd, 60, "org.example.service.Worker{i}.{w}", ["Worker.java", "Service.java", "Pool.java"])
    # JFR conversion writes one Sample per event: the same stack and labels repeat
    jc = stacks_of(rnd, pool, 300, (4, 28), 1, [10000000],
                   lambda r: [("thread", "pool-1-thread-%d" % r.randint(1, 6), None)])
    made["java-cpu.pb.gz"] = build([("cpu", "nanoseconds")], ("cpu", "nanoseconds"), 10000000,
                                   jc + jc[:40], seed=2)

    # Java allocations: two sample types (objects, bytes), default type the second
    made["java-alloc.pb.gz"] = build(
        [("alloc_in_new_tlab_objects", "count"), ("alloc_in_new_tlab_bytes", "bytes")],
        ("space", "bytes"), 524288, stacks_of(rnd, pool, 200, (3, 20), 2, [1, 524288]),
        default_type="alloc_in_new_tlab_bytes", seed=3)

    # .NET: numeric and string labels on every sample
    pool = [("System.Threading.ThreadPoolWorkQueue.Dispatch", "")] + names(
        rnd, 50, "Example.Api.Controller{i}.{w}", ["", "Controller.cs"])
    made["dotnet-labels.pb.gz"] = build(
        [("cpu", "nanoseconds"), ("exception", "count")], ("cpu", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 250, (5, 25), 2, [10000000, 1],
                  lambda r: [("thread_id", r.randint(1, 30), None),
                             ("thread_name", ".NET ThreadPool Worker", None),
                             ("span_id", "%016x" % r.getrandbits(64), None)]), seed=4)

    # .NET with function ids counted from 0, as one .NET exporter wrote them: Go rejects the
    # reserved id and the Line that names it
    made["dotnet-function-id-zero.pb.gz"] = build(
        [("cpu", "nanoseconds")], ("cpu", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 80, (3, 12), 1, [10000000]), funcs_from=0, seed=5)

    # Ruby (rbspy-like): samples/count and wall time, file paths as Ruby prints them
    pool = [("<main>", "/app/bin/server")] + names(
        rnd, 50, "block in Example::Handler{i}#{w}", ["/app/lib/handler.rb", "/app/lib/db.rb"])
    made["ruby.pb.gz"] = build(
        [("samples", "count"), ("wall", "nanoseconds")], ("wall", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 250, (4, 30), 2, [1, 10000000]), seed=6)

    # Python (py-spy-like)
    pool = [("<module>", "main.py")] + names(rnd, 40, "{w}_{i}", ["app.py", "models.py", "util.py"])
    made["python.pb.gz"] = build(
        [("samples", "count")], ("cpu", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 200, (3, 18), 1, [1],
                  lambda r: [("thread", "MainThread" if r.random() < .7 else "worker", None)]),
        seed=7)

    # Node.js heap: inuse objects and space, anonymous functions, file URLs
    pool = [("(root)", "")] + [("(anonymous)", "file:///app/index.js")] + names(
        rnd, 30, "{w}{i}", ["file:///app/index.js", "node:internal/streams"])
    made["nodejs-heap.pb.gz"] = build(
        [("objects", "count"), ("space", "bytes")], ("space", "bytes"), 524288,
        stacks_of(rnd, pool, 150, (2, 16), 2, [1, 1024]), time_nanos=0, duration=0, seed=8)

    # Rust (pprof-rs): one Location per function with the same id, a thread label
    pool = [("std::rt::lang_start", "")] + names(
        rnd, 40, "example::server::{w}_{i}", ["src/server.rs", "src/codec.rs"])
    made["rust.pb.gz"] = build(
        [("samples", "count"), ("cpu", "nanoseconds")], ("cpu", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 200, (3, 22), 2, [1, 10000000],
                  lambda r: [("thread", "tokio-runtime-w", None)]), rust_ids=True, seed=9)

    # Strings that are not UTF-8 (a stray 0xff, a cut multi-byte sequence, an overlong form)
    bad = [(b"\xffmain", b"app.py"), (b"caf\xc3", b"caf\xc3.py"), (b"\xc0\xafetc", b"x.py"),
           (b"ok", b"ok.py")]
    made["invalid-utf8.pb.gz"] = build(
        [("samples", "count")], ("cpu", "nanoseconds"), 10000000,
        [([(bad[0][0], bad[0][1], 3), (bad[1][0], bad[1][1], 7)], [3], []),
         ([(bad[3][0], bad[3][1], 2), (bad[2][0], bad[2][1], 9), (bad[0][0], bad[0][1], 3)], [5],
          [("thread", b"w\xe2\x82", None)])], seed=10)

    # A Go-like profile with a mapping where one Location has neither address nor line
    pool = [("runtime.main", "/usr/lib/go/src/runtime/proc.go")] + names(
        rnd, 12, "main.{w}{i}", ["/src/main.go"])
    made["no-address-no-line.pb.gz"] = build(
        [("samples", "count"), ("cpu", "nanoseconds")], ("cpu", "nanoseconds"), 10000000,
        stacks_of(rnd, pool, 12, (2, 6), 2, [1, 10000000]), mapping="/usr/local/bin/server",
        empty_location=True, seed=11)

    for name, data in made.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(gzip.compress(data, mtime=0))


main(sys.argv[1] if len(sys.argv) > 1 else ".")
