"""Arguments the binding hands to C are checked (range, NUL bytes, type) before any C call, a
closed profile is refused at every step of an iteration, and Graphviz is never entered from two
threads at once."""
import threading

import pytest

import pprof


def _script(n):
    """perf script text of n samples of one thread (pprof.from_perf)."""
    one = "prog 7/8 [001] %d.000: 250000 cpu-clock: \n\t%x f%d+0x4 (/bin/prog)\n\n"
    return "".join(one % (i + 1, 0x1000 + 16 * i, i) for i in range(n)).encode()


def _profiles(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    yield "read", p
    yield "from_cpuprofile", pprof.from_cpuprofile(pprof.to_cpuprofile(p))
    yield "from_perf", pprof.from_perf(_script(3))
    # samples without frames or labels (encoded by hand: the Builder would merge them), where
    # nothing else in a step looks at the handle
    vt = b"\x0a\x04\x08\x01\x10\x02"
    samples = b"".join(b"\x12\x03\x12\x01" + bytes([v]) for v in (1, 2, 3))
    strings = b"\x32\x00\x32\x07samples\x32\x05count"
    yield "bare", pprof.read(vt + samples + strings)


# ---- a closed profile


@pytest.mark.parametrize("how", ["read", "from_cpuprofile", "from_perf", "bare"])
def test_samples_after_close(examples, how):
    """The samples of a profile closed while its iterator is alive are freed memory: each step
    checks the handle (under ASan the unchecked loop is a heap use-after-free)."""
    p = dict(_profiles(examples))[how]
    assert len(p) >= 2
    it = p.samples()
    next(it)
    p.close()
    with pytest.raises(ValueError, match="closed"):
        list(it)
    with pytest.raises(ValueError, match="closed"):
        list(p.samples())


# ---- integers C cannot hold


@pytest.fixture(scope="module")
def fib(examples):
    with pprof.read(examples / "query-fib.pb.gz") as p:
        yield p


@pytest.mark.parametrize("width", [-1, 2**32 + 10, 2**32])
def test_flame_width_range(fib, width):
    with pytest.raises(ValueError, match="width"):
        fib.flame(format="svg", width=width)


def test_flame_width_type(fib):
    for bad in (1.5, "800", None):
        with pytest.raises(TypeError, match="width"):
            fib.flame(format="svg", width=bad)
    assert 'width="1000"' in pprof.flame(fib, format="svg", width=1000)[:2000]


def test_flame_minwidth(fib):
    for bad in ("nan%", float("inf"), "x%", -1):
        with pytest.raises((ValueError, TypeError), match="minwidth"):
            fib.flame(minwidth=bad)
    with pytest.raises(TypeError, match="minwidth"):
        fib.flame(minwidth=[1])


def test_render_nodecount_range(fib):
    with pytest.raises(ValueError, match="nodecount"):
        pprof.report.render(fib, "top", nodecount=2**70)
    with pytest.raises(TypeError, match="nodecount"):
        pprof.report.render(fib, "top", nodecount=2.5)
    with pytest.raises(ValueError, match="nodefraction"):
        pprof.report.render(fib, "top", nodefraction=float("nan"))
    assert pprof.report.render(fib, "top", nodecount=3).count("\n") < 12


def test_to_cpuprofile_max_samples(fib):
    with pytest.raises(ValueError, match="max_samples"):
        pprof.to_cpuprofile(fib, max_samples=-1)
    with pytest.raises(ValueError, match="max_samples"):
        pprof.to_cpuprofile(fib, max_samples=2**64)
    with pytest.raises(TypeError, match="max_samples"):
        pprof.to_cpuprofile(fib, max_samples="10")


# ---- strings: a NUL byte would end the C string, an int would become NUL bytes


@pytest.mark.parametrize("call", [
    lambda p: p.flame(title="a\x00b"),
    lambda p: p.flame(colors="red\x00"),
    lambda p: p.flame(sample_type="cpu\x00x"),
    lambda p: pprof.report.render(p, "peek", symbol="main\x00("),
    lambda p: pprof.report.render(p, "top", sample_type="cpu\x00"),
    lambda p: pprof.report.render(p, "list", symbol="main", source_path="/\x00"),
    lambda p: pprof.to_cpuprofile(p, sample_type="cpu\x00"),
    lambda p: pprof.to_speedscope(p, name="a\x00b"),
    lambda p: pprof.symbolize(p, sysroot="/\x00x"),
    lambda p: pprof.symbolize(p, binaries=["/bin/true\x00x"]),
    lambda p: pprof.symbolize(p, debug_dirs=["/usr/lib/debug\x00"]),
    lambda p: pprof.symbolize(p, debuginfod_cache="/tmp\x00x"),
    lambda p: pprof.symbolize(p, cache_dir="/tmp\x00x"),
])
def test_nul_byte_refused(fib, call):
    with pytest.raises(ValueError, match="NUL"):
        call(fib)


@pytest.mark.parametrize("call", [
    lambda p: p.flame(sample_type=5),
    lambda p: p.flame(title=5),
    lambda p: pprof.report.render(p, "top", sample_type=5),
    lambda p: pprof.to_cpuprofile(p, sample_type=5),
    lambda p: pprof.to_speedscope(p, name=5),
    lambda p: pprof.symbolize(p, binaries=5),
    lambda p: pprof.symbolize(p, binaries=[5]),
    lambda p: pprof.symbolize(p, binaries="/bin/true"),
    lambda p: pprof.symbolize(p, debug_dirs=b"/usr/lib/debug"),
    lambda p: pprof.symbolize(p, sysroot=5),
])
def test_wrong_type_refused(fib, call):
    with pytest.raises(TypeError):
        call(fib)


def test_check_rule_lists(examples):
    f = examples / "query-fib.pb.gz"
    with pytest.raises(TypeError, match="disable"):
        pprof.check(f, disable="S7")
    with pytest.raises(TypeError, match="enable"):
        pprof.check(f, enable=7)
    assert pprof.check(f, disable=["S7"]) is not None


def test_from_perf_arguments(tmp_path):
    data = _script(2)
    with pytest.raises(TypeError, match="events"):
        pprof.from_perf(data, events="cpu-clock")
    with pytest.raises(TypeError, match="labels"):
        pprof.from_perf(data, labels="pid")
    with pytest.raises(ValueError, match="NUL"):
        pprof.from_perf(data, events=["cpu-clock\x00x"])
    with pytest.raises(TypeError, match="kallsyms"):
        pprof.from_perf(data, kallsyms=5)
    with pytest.raises(ValueError, match="NUL"):
        pprof.from_perf(data, kallsyms=str(tmp_path) + "/\x00k")
    assert len(pprof.from_perf(data, events=["cpu-clock"], labels=["pid"])) == 2


# ---- Graphviz from several threads


def test_flame_html_with_graph_on_four_threads(fib, tmp_path):
    """The HTML page's Graph view is laid out by Graphviz, which is not reentrant: the binding
    holds one lock around every call that reaches it, so four threads writing pages at once
    all succeed (without it the process crashed)."""
    errors = []

    def work(k):
        try:
            for i in range(3):
                fib.flame(tmp_path / f"t{k}-{i}.html")
                if i == 1:
                    pprof.report.render(fib, "svg")
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    pages = sorted(tmp_path.glob("*.html"))
    assert len(pages) == 12
    first = pages[0].read_bytes()
    assert all(p.read_bytes() == first for p in pages)
    fib.flame(tmp_path / "nograph.html", graph=False)
    assert len(first) > len((tmp_path / "nograph.html").read_bytes()) + 1000  # the graph is in
