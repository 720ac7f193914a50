"""pprof.report.render: go tool pprof's reports, the same bytes as pprof-report prints."""
import xml.etree.ElementTree as ET

import pytest
from conftest import SRC, run, tool

import pprof

if not hasattr(pprof, "report"):
    pytest.skip("this libpprof has no pprof_report_write_memory", allow_module_level=True)


@pytest.mark.parametrize("fmt", ["dot", "svg", "tree"])
def test_same_text_as_the_tool(examples, fmt):
    src = examples / "query-fib.pb.gz"
    p = pprof.read(src)
    ours = pprof.report.render(p, fmt, nodecount=12, cum=True)
    cli = run(tool("pprof-report"), "--" + fmt, "--nodecount=12", "--cum", src)
    assert cli.returncode == 0, cli.stderr
    assert ours == cli.stdout.decode()


def test_svg_is_a_pannable_document(examples):
    svg = pprof.report.render(pprof.read(examples / "query-fib.pb.gz"), "svg")
    root = ET.fromstring(svg.encode())
    assert root.get("width") == "100%" and root.get("viewBox") is None
    assert [k.tag.split("}")[1] for k in root][:2] == ["script", "g"]


def test_dot_json_and_svg_without_json(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    g = pprof.report.render(p, "dot", json_output=True)
    assert g["nodes"] and all(e["from"] and e["to"] for e in g["edges"])
    with pytest.raises(pprof.PprofError, match="no JSON form"):
        pprof.report.render(p, "svg", json_output=True)


def test_render_to_a_file_is_the_same_text(examples, tmp_path):
    p = pprof.read(examples / "query-fib.pb.gz")
    assert pprof.report.render(p, "traces", tmp_path / "t.txt") is None
    assert (tmp_path / "t.txt").read_text() == pprof.report.render(p, "traces")
    with pytest.raises(pprof.PprofError):
        pprof.report.render(p, "traces", tmp_path / "no" / "dir" / "t.txt")


def test_mean_divides_by_the_count(examples):
    # cpu profile: samples/count first, so -mean gives nanoseconds per sample
    src = examples / "parca-labels.pb.gz"
    p = pprof.read(src)
    ours = pprof.report.render(p, "top", mean=True)
    cli = run(tool("pprof-report"), "--top", "-mean", src)
    assert cli.returncode == 0, cli.stderr
    assert ours == cli.stdout.decode()
    assert ours.startswith("Type: mean_cpu\n")
    assert ours != pprof.report.render(p, "top")
    tree = pprof.report.render(p, "tree", json_output=True)
    mean_tree = pprof.report.render(p, "tree", json_output=True, mean=True)
    assert [n["cum"] for n in mean_tree["nodes"]] != [n["cum"] for n in tree["nodes"]]


def test_list_reads_sources_as_the_tool_does(tmp_path):
    data = SRC / "tests" / "report" / "data"
    heap = data / "list-heap.pb.gz"
    p = pprof.read(heap)
    args = dict(symbol=r"main\.", trim_path="/tmp/listprog-golden", source_path=str(data / "listprog"))
    ours = pprof.report.render(p, "list", **args)
    cli = run(tool("pprof-report"), "--list", r"main\.", "--trim-path", args["trim_path"], "--source-path",
              args["source_path"], heap)
    assert cli.returncode == 0, cli.stderr
    assert ours == cli.stdout.decode()
    assert "      80kB       80kB     24:\t\tkeep = append(keep, make([]byte, 8192))\n" in ours
    # sources missing: said, not fatal
    missing = pprof.report.render(p, "list", symbol=r"^main\.large$", source_path=str(tmp_path))
    assert " Error: open /tmp/listprog-golden/main.go: no such file or directory" in missing
    with pytest.raises(pprof.PprofError, match="no matches found"):
        pprof.report.render(p, "list", symbol="no_such_function")
