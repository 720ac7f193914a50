"""The binding's own PEP 517 build backend: a wheel is a zip of the package's .py files and
three metadata files, so nothing needs to be downloaded or compiled to build one.

setuptools (the usual backend) needs the `wheel` package, which a python3 may lack
("invalid command 'bdist_wheel'"), is fetched from the network under pip's build isolation,
and leaves build/ and *.egg-info in the source tree. This backend needs only the standard
library: `pip install ./bindings/python` works offline, isolated or not, and writes nothing
beside the sources."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = "pprof"


def _project():
    with open(os.path.join(_HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    meta = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), text, re.M)
        meta[key] = m.group(1) if m else ""
    return meta


def _metadata(meta):
    with open(os.path.join(_HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {meta['name']}\n"
        f"Version: {meta['version']}\n"
        f"Summary: {meta['description']}\n"
        "License: Apache-2.0\n"
        f"Requires-Python: {meta['requires-python']}\n"
        "Provides-Extra: dask\n"
        "Requires-Dist: dask; extra == \"dask\"\n"
        "Requires-Dist: distributed; extra == \"dask\"\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def _sources():
    pkg = os.path.join(_HERE, _PACKAGE)
    return sorted(
        os.path.join(_PACKAGE, n) for n in os.listdir(pkg) if n.endswith(".py") or n == "py.typed"
    )


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}\n"


def _wheel(wheel_directory, files):
    """files: [(arcname, bytes)]; the dist-info is added here."""
    meta = _project()
    dist = f"{meta['name']}-{meta['version']}"
    info = f"{dist}.dist-info"
    files = list(files) + [
        (f"{info}/METADATA", _metadata(meta).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: _pprof_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/top_level.txt", (_PACKAGE + "\n").encode()),
    ]
    name = f"{dist}-py3-none-any.whl"
    record = "".join(_record_line(a, d) for a, d in files) + f"{info}/RECORD,,\n"
    path = os.path.join(wheel_directory, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data, zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)), record)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for rel in _sources():
        with open(os.path.join(_HERE, rel), "rb") as f:
            files.append((rel.replace(os.sep, "/"), f.read()))
    return _wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: a .pth file that puts the source directory on sys.path
    return _wheel(wheel_directory, [("_pprof_editable.pth", (_HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    meta = _project()
    dist = f"{meta['name']}-{meta['version']}"
    name = f"{dist}.tar.gz"
    members = ["pyproject.toml", "README.md", "_pprof_build.py"] + _sources()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in members:
            t.add(os.path.join(_HERE, rel), arcname=f"{dist}/{rel}")
        pkg_info = ("Metadata-Version: 2.1\n" + _metadata(meta).split("\n", 1)[1]).encode()
        ti = tarfile.TarInfo(f"{dist}/PKG-INFO")
        ti.size = len(pkg_info)
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
