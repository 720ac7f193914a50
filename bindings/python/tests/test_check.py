"""pprof.check gives exactly pprof-check's findings."""
import json

import pytest
from conftest import run, tool

import pprof


def tool_findings(*args):
    r = run(tool("pprof-check"), "--format=json", "--fail-on=note", "--min-severity=note", *args)
    assert r.returncode in (0, 1), r.stderr
    return [(f["file"], f["rule"], f["severity"], f["path"], f["offset"], f["message"]) for f in json.loads(r.stdout)["findings"]]


def mine(findings):
    return [(f.file, f.rule, f.severity, f.path, f.offset, f.message) for f in findings]


def test_each_checker_corpus_file(src):
    files = sorted((src / "corpus" / "check").glob("*.pb"))
    assert len(files) > 20
    some = 0
    for f in files:
        got = mine(pprof.check(str(f)))
        assert got == tool_findings(str(f)), f.name
        some += bool(got)
    assert some > 10  # the corpus is mostly broken on purpose


def test_several_files_cross_inline(src):
    files = [str(f) for f in sorted((src / "corpus" / "check").glob("i_*.pb"))]
    assert mine(pprof.check(files)) == tool_findings(*files)


def test_disable_enable(src):
    f = str(src / "corpus" / "check" / "i_unused-string.pb")
    all_ = pprof.check(f)
    assert all_
    rule = all_[0].rule
    assert all(x.rule != rule for x in pprof.check(f, disable=[rule]))
    assert mine(pprof.check(f, disable=["all"], enable=[rule])) == tool_findings("--disable", "all", "--enable", rule, f)
    with pytest.raises(ValueError):
        pprof.check(f, disable=["no-such-rule"])


def test_max_findings(src):
    files = [str(f) for f in sorted((src / "corpus" / "check").glob("i_*.pb"))]
    assert len(pprof.check(files, max_findings=3)) == 3


def test_clean_and_rules(examples):
    assert pprof.check([str(examples / "query-fib.pb.gz")]) == []
    rules = pprof.rules()
    assert len(rules) > 30 and all(r.severity in ("error", "warning", "note") for r in rules)
    r = run(tool("pprof-check"), "--list-rules")
    assert [l.split()[0] for l in r.stdout.decode().splitlines()] == [x.id for x in rules]


def test_unreadable_is_an_error(tmp_path):
    with pytest.raises(pprof.PprofError) as e:
        pprof.check([str(tmp_path / "missing")])
    assert e.value.code_name == "PPROF_E_IO"
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\xff\xff")
    got = pprof.check([str(bad)])
    assert [f.severity for f in got] == ["error"] and got[0].file == str(bad)
    assert mine(got) == tool_findings(str(bad))


def test_otlp_files_as_the_tool(src):
    # pprof.check and pprof-check share pprof_check_path: OTLP is checked with the O rules
    files = sorted((src / "tests" / "otlp" / "check").glob("*.otlp"))
    assert len(files) > 5
    for f in files:
        got = mine(pprof.check(str(f)))
        assert got == tool_findings(str(f)), f.name
        if f.name == "clean.otlp":
            assert got == []
        else:  # each file breaks the rule it is named for
            assert any(g[1].startswith(f.name.split("-")[0] + "-") for g in got), f.name
