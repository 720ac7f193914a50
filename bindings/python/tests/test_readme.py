"""The Python example of bindings/python/README.md runs as written."""
import os
import re
import shutil

from conftest import SRC


def test_readme_example(tmp_path, examples, capsys):
    text = (SRC / "bindings" / "python" / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    ex = examples
    shutil.copy(ex / "query-many-1644509272337470000.pb.gz", tmp_path / "a.pb.gz")
    shutil.copy(ex / "query-many-1644509275338070000.pb.gz", tmp_path / "b.pb.gz")
    shutil.copy(ex / "query-fib.pb.gz", tmp_path / "cpu.pb.gz")
    raw = (ex / "query-many-1644509278338696000.pb.gz").read_bytes()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md", "exec"), {"raw_bytes": raw})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "merged.pb.gz").exists() and (tmp_path / "cpu.pb.zst").exists()
