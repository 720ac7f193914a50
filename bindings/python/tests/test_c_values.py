"""Values crossing into C are checked, never cut: an integer C cannot hold is OverflowError, a
string with a NUL byte ValueError, a wrong type TypeError, each naming the argument; and read()
refuses what Go's pprof refuses on reading (issue 25)."""
import pytest
from conftest import run, tool

import pprof

TYPES = [("samples", "count")]


def builder():
    return pprof.Builder(TYPES)


def only_sample(b):
    return list(pprof.read(b.serialize()).samples())


# ---- integers


@pytest.mark.parametrize("v", [2**63, -2**63 - 1, 2**64, 2**70])
def test_builder_value_out_of_int64(v):
    b = builder()
    loc = b.location([(b.function("main"), 1)])
    with pytest.raises(OverflowError, match=r"values\[0\] = .* does not fit in int64"):
        b.add_sample([v], [loc])
    with pytest.raises(OverflowError, match=r"values\[0\]"):
        b.add_frames([v], [("main", "m.py", 1)])
    assert b.stats().samples == 0 and b.stats().open_samples == 0


def test_builder_int64_extremes_kept():
    b = builder()
    loc = b.location([(b.function("main"), 1)])
    b.add_sample([2**63 - 1], [loc], labels={"n": -2**63})
    [s] = only_sample(b)
    assert s.values == (2**63 - 1,) and s.label_dict == {"n": -2**63}


def test_label_number_out_of_int64():
    b = builder()
    loc = b.location([(b.function("main"), 1)])
    with pytest.raises(OverflowError, match="label 'n'"):
        b.add_sample([1], [loc], labels={"n": 2**70})
    with pytest.raises(OverflowError, match="label 'n'"):
        b.add_sample([1], [loc], labels={"n": (2**70, "bytes")})
    with pytest.raises(OverflowError, match="label 'n'"):
        b.add_frames([1], [("main", "m.py", 1)], labels={"n": 2**70})
    assert b.stats().samples == 0


def test_builder_other_integers():
    b = builder()
    fn = b.function("main")
    with pytest.raises(OverflowError, match="start_line"):
        b.function("f", start_line=2**63)
    with pytest.raises(OverflowError, match="line"):
        b.location([(fn, 2**64 + 1)])
    with pytest.raises(OverflowError, match="address"):
        b.location([(fn, 1)], address=2**64)
    with pytest.raises(OverflowError, match="address"):
        b.location([(fn, 1)], address=-1)
    with pytest.raises(OverflowError, match="memory_limit"):
        b.mapping(0, 2**64)
    with pytest.raises(OverflowError, match="time_nanos"):
        b.set_time(2**63)
    with pytest.raises(OverflowError, match=r"frames\[0\]\.address"):
        b.add_frames([1], [{"function": "f", "address": 2**64}])
    with pytest.raises(TypeError, match=r"frames\[0\]\.fn: no such field"):
        b.add_frames([1], [{"fn": "f"}])
    with pytest.raises(TypeError, match=r"values\[0\] must be an integer, not float"):
        b.add_sample([1.5], [b.location([(fn, 1)])])
    with pytest.raises(OverflowError, match="period"):
        pprof.Builder(TYPES, period=2**63)
    with pytest.raises(OverflowError, match="max_samples"):
        pprof.Builder(TYPES, max_samples=2**64)


def test_string_index_past_int64(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    assert p.string(5) != ""
    for i in (2**64 + 5, 2**63, -2**63 - 1):
        with pytest.raises(IndexError, match="out of range"):
            p.string(i)


def test_read_limit_past_uint64(examples):
    with pytest.raises(OverflowError, match=r"max_samples = 1180591620717411303424 does not fit in uint64"):
        pprof.read(examples / "query-fib.pb.gz", max_samples=2**70)
    with pytest.raises(OverflowError, match="max_samples"):
        pprof.read(examples / "query-fib.pb.gz", max_samples=-1)
    with pytest.raises(OverflowError, match="max_ratio"):  # a uint32_t
        pprof.read(examples / "query-fib.pb.gz", max_ratio=2**32)
    assert len(pprof.read(examples / "query-fib.pb.gz", max_samples=2**64 - 1)) == 120


def test_edit_integers_and_numbers(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    with pytest.raises(OverflowError, match="max_depth"):
        pprof.edit(p, max_depth=2**32)
    with pytest.raises(TypeError, match="scale takes a number"):
        pprof.edit(p, scale="x")
    with pytest.raises(TypeError, match="must be a number, not str"):
        pprof.edit(p, scale={"cpu": "2"})
    with pytest.raises(ValueError, match="finite"):
        pprof.edit(p, scale=float("nan"))
    with pytest.raises(ValueError, match="finite"):
        pprof.edit(p, min_fraction=float("inf"))
    with pytest.raises(OverflowError, match="threads"):
        pprof.merge([p], threads=-1)
    with pytest.raises(OverflowError, match="max_findings"):
        pprof.check([str(examples / "query-fib.pb.gz")], max_findings=2**64)


# ---- strings


@pytest.mark.parametrize("name", ["a\x00b", b"a\x00b"])
def test_builder_names_with_nul(name):
    b = builder()
    with pytest.raises(ValueError, match="name holds a NUL byte at offset 1"):
        b.function(name)
    with pytest.raises(ValueError, match="NUL"):
        b.intern(name)
    with pytest.raises(ValueError, match=r"frames\[0\]\.function holds a NUL"):
        b.add_frames([1], [(name, "m.py", 1)])
    with pytest.raises(ValueError, match="NUL"):
        b.add_frames([1], [("f", "m.py", 1)], labels={"k": "a\x00b"})
    with pytest.raises(ValueError, match="comment"):
        b.add_comment(name)
    with pytest.raises(ValueError, match="NUL"):
        pprof.Builder([(name, "count")])
    loc = b.location([(b.function("f"), 1)])
    with pytest.raises(ValueError, match="label key"):
        b.add_sample([1], [loc], labels={name: "v"})
    assert b.stats().samples == 0


def test_builder_name_kept_whole():
    b = builder()
    b.add_frames([1], [("a\u00e9b", "m.py", 1)])
    [s] = only_sample(b)
    assert s.frames[0].function == "a\u00e9b"


def test_edit_strings_with_nul(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    for op in ("focus", "ignore", "hide", "show", "tag_focus"):
        with pytest.raises(ValueError, match=f"{op} holds a NUL byte"):
            pprof.edit(p, **{op: "ma\x00in"})
    with pytest.raises(ValueError, match="NUL"):
        pprof.edit(p, sample_types=["cpu\x00"])
    with pytest.raises(ValueError, match="NUL"):
        pprof.edit(p, set_labels={"k": "v\x00w"})
    with pytest.raises(ValueError, match="NUL"):
        pprof.edit(p, scale={"c\x00pu": 2})
    # the redaction key is bytes with a length: a NUL is part of it
    assert pprof.edit(p, out=bytes, redact=["files"], redact_key=b"a\x00b") != \
        pprof.edit(p, out=bytes, redact=["files"], redact_key=b"a")


def test_paths_with_nul(examples, tmp_path):
    good = str(examples / "query-fib.pb.gz")
    with pytest.raises(ValueError, match="path holds a NUL"):
        pprof.read(good + "\x00junk")
    p = pprof.read(good)
    with pytest.raises(ValueError, match="path holds a NUL"):
        p.write(str(tmp_path / "out.pb.gz") + "\x00x")
    with pytest.raises(ValueError, match="path holds a NUL"):
        pprof.merge([good + "\x00"])
    with pytest.raises(ValueError, match="path holds a NUL"):
        pprof.check([good + "\x00"])
    assert list(tmp_path.iterdir()) == []


# ---- what Go refuses on reading


def test_read_refuses_duplicate_ids(src):
    path = src / "corpus" / "check" / "n_duplicate-id.pb"
    with pytest.raises(pprof.PprofError) as e:
        pprof.read(path)
    assert e.value.code_name == "PPROF_E_INVALID" and e.value.file == str(path)
    assert "CV5-duplicate-id" in e.value.message and e.value.path
    with pytest.raises(pprof.PprofError):
        pprof.read(path.read_bytes())


def test_read_refuses_what_the_tools_refuse(src):
    """pprof-top refuses a profile that does not decode or breaks a rule Go enforces on
    reading; so does read(), for every file of the checker's corpus."""
    top = tool("pprof-top")
    files = sorted((src / "corpus" / "check").glob("*.pb"))
    refused = 0
    for f in files:
        r = run(top, f)
        assert r.returncode in (0, 1), (f.name, r.stderr)
        # pprof-top also refuses what it cannot report (a total past int64): not a reading rule
        go_refuses = r.returncode == 1 and b"PPROF_E_OVERFLOW" not in r.stderr
        try:
            pprof.read(f).close()
            ok = True
        except pprof.PprofError:
            ok = False
        assert ok != go_refuses, (f.name, r.stderr)
        refused += not ok
    assert refused > 10


def test_relax_does_not_bypass_go(src):
    # relax keeps a non-empty string_table[0] for a reader that only reports (pprof.check);
    # read() still gives Go's answer, as every entry point of the library does
    f = src / "corpus" / "check" / "n_string-table-0.pb"
    for relax in (0, 1):
        with pytest.raises(pprof.PprofError) as e:
            pprof.read(f, relax=relax)
        assert e.value.code_name in ("PPROF_E_WIRE", "PPROF_E_INVALID")
    assert "W6-string-table-0" in e.value.message
    assert [x.rule for x in pprof.check(str(f))] == ["W6-string-table-0"]
