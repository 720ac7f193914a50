"""A sampling profiler for Python programs, writing pprof profiles through pprof.Builder.

A timer thread wakes every `interval` seconds, takes every other thread's current stack from
sys._current_frames() and adds it as a sample (1 sample, the wall time since the last tick),
labelled with the thread's name. Every `every` seconds (and when stopped) the builder
serializes a profile and starts the next one; the handle caches are dropped with it, since the
builder's handles are stale after a reset. Memory therefore stays bounded by what one profile
holds, however long the program runs and however many functions it creates.

    python3 sampler.py [-o OUT] [--interval S] [--every S] script.py [args...]

OUT may contain {n}, the number of the profile (0, 1, ...); with --every it must.
As a library:

    from sampler import Sampler
    with Sampler("app-{n}.pb.gz", interval=0.01, every=60):
        main()
"""
import argparse
import os
import runpy
import sys
import threading
import time

import pprof


class Sampler:
    def __init__(self, out="python-{n}.pb.gz", interval=0.01, every=None, compress="gzip"):
        if every and "{n}" not in out:
            raise ValueError("with every=..., the output name needs {n}")
        self.out = out
        self.interval = interval
        self.every = every
        self.compress = compress
        self.written = []
        self.builder = pprof.Builder([("samples", "count"), ("wall", "nanoseconds")], period_type=("wall", "nanoseconds"),
                                     period=int(interval * 1e9), default_sample_type="wall")
        self._fns = {}  # code object -> Fn, for the current profile only
        self._locs = {}  # (code object, line) -> Loc, likewise
        self._stop = threading.Event()
        self._thread = None
        self._start_ns = time.time_ns()
        self._last = time.perf_counter_ns()

    # -- the parts a test can drive
    def _location(self, code, line):
        loc = self._locs.get((code, line))
        if loc is None:
            fn = self._fns.get(code)
            if fn is None:
                name = getattr(code, "co_qualname", code.co_name)
                fn = self.builder.function(name, filename=code.co_filename, start_line=code.co_firstlineno)
                self._fns[code] = fn
            loc = self.builder.location([(fn, line)])
            self._locs[(code, line)] = loc
        return loc

    def sample_once(self, skip_thread=None):
        """Adds one sample per thread (but skip_thread) of the stacks running now."""
        now = time.perf_counter_ns()
        elapsed, self._last = now - self._last, now
        names = {t.ident: t.name for t in threading.enumerate()}
        # Walk every stack before calling the library: a ctypes call releases the GIL, and the
        # threads would run on meanwhile, leaving the frames not yet walked (a finished
        # generator's frame loses its f_back).
        stacks = []
        for tid, frame in sys._current_frames().items():
            if tid == skip_thread:
                continue
            walk = []
            while frame is not None:
                walk.append((frame.f_code, frame.f_lineno or 0))
                frame = frame.f_back
            stacks.append((names.get(tid, str(tid)), walk))
        for name, walk in stacks:
            stack = [self._location(code, line) for code, line in walk]
            self.builder.add_sample([1, elapsed], stack, labels={"thread": name})

    def flush(self):
        """Writes the profile so far and starts the next one."""
        now = time.time_ns()
        self.builder.set_time(self._start_ns, now - self._start_ns)
        path = self.out.format(n=len(self.written))
        self.builder.serialize_file(path, compress=self.compress)
        self._fns.clear()  # every handle is stale now
        self._locs.clear()
        self._start_ns = now
        self.written.append(path)
        return path

    # -- the timer thread
    def _run(self):
        me = threading.get_ident()
        next_flush = time.monotonic() + self.every if self.every else None
        while not self._stop.wait(self.interval):
            self.sample_once(skip_thread=me)
            if next_flush is not None and time.monotonic() >= next_flush:
                self.flush()
                next_flush += self.every

    def start(self):
        self._last = time.perf_counter_ns()
        self._thread = threading.Thread(target=self._run, name="pprof-sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join()
        self.flush()
        self.builder.close()
        return self.written

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Runs a Python script under a sampling profiler writing pprof profiles.")
    ap.add_argument("-o", "--output", default="python-{n}.pb.gz", help="output path; {n} numbers the profiles")
    ap.add_argument("--interval", type=float, default=0.01, help="seconds between samples (default 0.01)")
    ap.add_argument("--every", type=float, help="write a profile every this many seconds (default: once, at exit)")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    sys.argv = [a.script] + a.args
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    s = Sampler(a.output, a.interval, a.every)
    with s:
        runpy.run_path(a.script, run_name="__main__")
    for path in s.written:
        print(f"sampler: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
