"""pprof.flame / Profile.flame: the tree pprof-flame writes, as Python objects or files."""
import json
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import run, tool

import pprof

if not hasattr(pprof, "flame"):
    pytest.skip("this libpprof has no pprof/flame.h", allow_module_level=True)


def total(p, index):
    return sum(s.values[index] for s in p.samples())


def test_tree_root_is_total(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    t = p.flame()
    assert t["name"] == "root"
    assert t["value"] == total(p, len(p.sample_types) - 1)
    t0 = pprof.flame(p, sample_type=p.sample_types[0].type)
    assert t0["value"] == total(p, 0)


def test_same_bytes_as_the_tool(examples, tmp_path):
    src = examples / "query-fib.pb.gz"
    ref = tmp_path / "ref.json"
    r = run(tool("pprof-flame"), src, "--focus", "Fibonacci", "--lines", "-o", ref)
    assert r.returncode == 0, r.stderr
    p = pprof.read(src)
    mine = tmp_path / "mine.json"
    assert p.flame(mine, focus="Fibonacci", lines=True) is None
    assert mine.read_bytes() == ref.read_bytes()
    assert json.loads(mine.read_text()) == p.flame(focus="Fibonacci", lines=True)


def test_formats_from_the_name(examples, tmp_path):
    p = pprof.read(examples / "query-fib.pb.gz")
    p.flame(tmp_path / "f.svg", title="T<&>")
    root = ET.parse(tmp_path / "f.svg").getroot()
    assert root.find("{http://www.w3.org/2000/svg}text").text == "T<&>"
    p.flame(tmp_path / "f.html")
    page = (tmp_path / "f.html").read_text()
    m = re.search(r'<script type="application/json" id="pprof-flame-data">(.*?)</script>', page, re.S)
    data = json.loads(m.group(1))
    assert data == p.flame(format="data") | {"source": data["source"]}
    assert data["total"][-1] == total(p, len(p.sample_types) - 1)


def test_diff_delta(examples):
    a = pprof.read(examples / "query-many-1644509272337470000.pb.gz")
    b = pprof.read(examples / "query-many-1644509275338070000.pb.gz")
    t = pprof.flame(b, base=a)
    assert t["delta"] == t["value"] - total(a, len(a.sample_types) - 1)
    n = pprof.flame(b, base=a, normalize=True, format="data")
    assert n["base"]["normalized"] and n["base"]["value"][0][0] == n["total"][0]


def test_errors(examples):
    p = pprof.read(examples / "query-fib.pb.gz")
    with pytest.raises(pprof.PprofError) as e:
        p.flame(sample_type="nope")
    assert "must be one of" in str(e.value)
    with pytest.raises(pprof.PprofError):
        p.flame(colors="pink")
    with pytest.raises(ValueError):
        p.flame(normalize=True)


def test_html_has_the_graph_view_unless_asked_not_to(examples, tmp_path):
    p = pprof.read(examples / "query-fib.pb.gz")
    page = pprof.flame(p, format="html")
    cli = run(tool("pprof-flame"), examples / "query-fib.pb.gz", "--format=html")
    assert cli.returncode == 0, cli.stderr
    assert page.count('<div id="pprof-flame-graph"') == 1
    assert page.split('<div id="pprof-flame-graph"')[1].split(">")[0] == \
        cli.stdout.decode().split('<div id="pprof-flame-graph"')[1].split(">")[0]
    assert '<div id="pprof-flame-graph"' not in pprof.flame(p, format="html", graph=False)
