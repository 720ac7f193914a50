#!/usr/bin/env python3
"""pprof-convert's output opened in speedscope's own viewer (the speedscope npm package that
scripts/deps installs in tests/flame/node_modules), in headless Chromium as the flame viewer's
tests drive it (tests/flame/browser.py). One page load per case; TAP; skips (1..0 # SKIP, exit 0) without
chromium, chromedriver, selenium or the package.

  browser_speedscope.py CASE PPROF_CONVERT     CASE: speedscope | cpuprofile

The page is given the file as `speedscope FILE` gives it: a script calling
speedscope.loadFileFromBase64, named by #localProfilePath. Expected names and counts are
worked out here from the JSON file itself."""
import base64
import json
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("PPROF_SOURCE_ROOT") or os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "flame"))
sys.path.insert(0, HERE)
import browser  # noqa: E402
import tap  # noqa: E402  (tests/, put on the path by browser)
import profiles  # noqa: E402

VIEWER = os.path.join(ROOT, "tests", "flame", "node_modules", "speedscope", "dist", "release",
                      "index.html")


def load(b, work, path, name):
    with open(path, "rb") as f:
        data = f.read()
    js = os.path.join(work, "load.js")
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" %
                (json.dumps(name), json.dumps(base64.b64encode(data).decode())))
    b.d.get("file://" + VIEWER + "#localProfilePath=" + js)
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(b.d, 60).until(lambda d: d.title.endswith(" - speedscope"))


def sandwich_rows(b):
    """the symbol names of the sandwich view's table (all frames with weight)"""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    b.d.find_element(By.XPATH, "//*[contains(text(),'Sandwich')]").click()
    script = r"""
      const ts = [...document.querySelectorAll('table')].filter(t => t.rows.length &&
          !/Symbol Name|#\s*Name/.test(t.rows[0].innerText));
      return ts.length ? [...ts[ts.length - 1].rows].map(r => r.cells[r.cells.length - 1].textContent)
                       : null;"""
    WebDriverWait(b.d, 30).until(lambda d: d.execute_script(script))
    return b.js(script)


def errors(b):
    return [m for lvl, m in b.console() if lvl == "SEVERE"]


def case_speedscope(b, work, conv):
    """the speedscope file of an alloc profile with hostile names loads: title, profile names,
    every frame in the sandwich view, no console error"""
    src = os.path.join(work, "alloc.pb.gz")
    with open(src, "wb") as f:
        f.write(profiles.alloc_profile())
    out = os.path.join(work, "alloc.speedscope.json")
    subprocess.run([conv, src, "--to=speedscope", "-o", out], check=True)
    with open(out) as f:
        doc = json.load(f)
    load(b, work, out, "alloc.speedscope.json")
    active = doc["profiles"][doc["activeProfileIndex"]]
    assert b.d.title == doc["name"] + " - speedscope", b.d.title
    body = b.js("return document.body.innerText")
    head = "%s (%d/%d)" % (active["name"], doc["activeProfileIndex"] + 1, len(doc["profiles"]))
    assert head in body, (head, body[:300])
    want = sorted({doc["shared"]["frames"][i]["name"] for s in active["samples"] for i in s})
    got = sorted(sandwich_rows(b))
    assert got == want, (got, want)
    assert len(got) == len(doc["shared"]["frames"]), got
    e = errors(b)
    assert not e, e


def case_cpuprofile(b, work, conv):
    """pprof-convert --to=cpuprofile is read by speedscope's Chrome importer: every function
    of the file in the sandwich view, no console error"""
    src = os.path.join(work, "cpu.pb.gz")
    with open(src, "wb") as f:
        f.write(profiles.cpu_profile())
    out = os.path.join(work, "alloc.cpuprofile")
    subprocess.run([conv, src, "--to=cpuprofile", "-o", out], check=True)
    with open(out) as f:
        doc = json.load(f)
    load(b, work, out, "alloc.cpuprofile")
    assert b.d.title == "alloc.cpuprofile - speedscope", b.d.title
    # speedscope drops the (root) node and frames no sample reaches
    hit = set(doc["samples"])
    parent = {c: n["id"] for n in doc["nodes"] for c in n.get("children", [])}
    byid = {n["id"]: n for n in doc["nodes"]}
    names = set()
    for s in hit:
        i = s
        while i in byid and byid[i]["callFrame"]["functionName"] != "(root)":
            names.add(byid[i]["callFrame"]["functionName"] or "(anonymous)")
            i = parent.get(i)
    got = sorted(sandwich_rows(b))
    assert got == sorted(names), (got, sorted(names))
    e = errors(b)
    assert not e, e


CASES = {"speedscope": case_speedscope, "cpuprofile": case_cpuprofile}


def main(argv):
    if len(argv) != 2 or argv[0] not in CASES:
        print("usage: browser_speedscope.py CASE PPROF_CONVERT  (%s)" % " ".join(CASES),
              file=sys.stderr)
        return 2
    name, conv = argv
    browser.skip_or_none()
    if not os.path.exists(VIEWER):
        tap.skip_all("speedscope's viewer is not installed (scripts/deps: npm ci in "
                     "tests/flame)")
    print("1..1")
    b = None
    with tempfile.TemporaryDirectory(prefix="speedscope-browser.") as work:
        try:
            b = browser.Browser()
            CASES[name](b, work, conv)
            print("ok 1 - %s: %s" % (name, " ".join(CASES[name].__doc__.split())))
            return 0
        except Exception:  # noqa: BLE001
            for line in traceback.format_exc().splitlines():
                print("# " + line[:2000])
            print("not ok 1 - %s" % name)
            return 1
        finally:
            if b:
                b.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
