import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(os.environ.get("PPROF_SOURCE_ROOT", Path(__file__).resolve().parents[3]))
BUILD = Path(os.environ.get("PPROF_BUILD_ROOT", SRC / "build"))
sys.path.insert(0, str(SRC / "bindings" / "python"))
os.environ.setdefault("PPROF_LIBRARY", str(BUILD / "libpprof" / "libpprof.so.2"))


def tool(name):
    p = BUILD / "tools" / name
    if not p.exists():
        pytest.skip(f"{p} is not built")
    return str(p)


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, check=False, **kw)


@pytest.fixture(scope="session")
def src():
    return SRC


@pytest.fixture(scope="session")
def build():
    return BUILD


@pytest.fixture(scope="session")
def gen():
    p = BUILD / "bench" / "pprof-gen"
    if not p.exists():
        pytest.skip("bench/pprof-gen is not built")
    return str(p)


@pytest.fixture(scope="session")
def examples():
    return SRC / "corpus" / "examples"


@pytest.fixture(scope="session")
def go():
    if not shutil.which("go"):
        pytest.skip("go is not installed")
    return shutil.which("go")
