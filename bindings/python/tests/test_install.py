"""The binding installs offline with a plain `pip install` (build isolation on, no index, no
compiler, no setuptools or wheel needed: the in-tree backend), leaves nothing in the source
tree, and the installed package finds the library."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import SRC


def test_pip_install_offline(tmp_path):
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("python3 -m venv is not available (Debian: python3-venv): " + r.stderr.decode()[-200:])
    py = venv / "bin" / "python"
    # a copy, to see that the build writes nothing beside the sources
    src = tmp_path / "src"
    shutil.copytree(SRC / "bindings" / "python", src, ignore=shutil.ignore_patterns("__pycache__", "tests", "build", "*.egg-info"))
    before = sorted(str(p.relative_to(src)) for p in src.rglob("*"))
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", CC="/bin/false")
    env.pop("PYTHONPATH", None)
    r = subprocess.run([str(py), "-m", "pip", "install", str(src)], capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout.decode()[-2000:] + r.stderr.decode()[-2000:]
    after = sorted(str(p.relative_to(src)) for p in src.rglob("*") if "__pycache__" not in p.parts)
    assert after == before, "the build left files in the source tree: %s" % (set(after) - set(before))
    r = subprocess.run([str(py), "-c", "import pprof, sys; print(pprof.__file__); print(pprof.__version__); "
                        "print(len(pprof.read(sys.argv[1])))", str(SRC / "corpus" / "examples" / "query-fib.pb.gz")],
                       capture_output=True, env=env, cwd=str(tmp_path), timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    file, version, samples = r.stdout.decode().split()
    assert file.startswith(str(venv)) and samples == "120"
