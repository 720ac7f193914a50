"""Runs pytest and reports each test as a TAP line on standard output (meson counts every one),
pytest's own report going to standard error. Usage: run-tap.py [pytest args...]"""
import os
import sys

import pytest

tap = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # pytest's report to stderr, whatever it writes to
sys.stdout = sys.stderr


class Tap:
    def __init__(self):
        self.n = 0

    def _line(self, ok, name, extra=""):
        self.n += 1
        tap.write(f"{'ok' if ok else 'not ok'} {self.n} - {name}{extra}\n")

    def pytest_runtest_logreport(self, report):
        name = report.nodeid.replace("#", "")
        if report.when == "call":
            if report.passed:
                self._line(True, name)
            elif report.skipped:
                self._line(True, name, " # SKIP " + _reason(report))
            else:
                self._line(False, name)
        elif report.failed:  # setup or teardown failed
            self._line(False, f"{name} ({report.when})")
        elif report.when == "setup" and report.skipped:
            self._line(True, name, " # SKIP " + _reason(report))

    def pytest_collectreport(self, report):
        if report.failed:
            self._line(False, f"collect {report.nodeid}")


def _reason(report):
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2]).replace("\n", " ")
    return "skipped"


plugin = Tap()
rc = pytest.main(["-p", "no:cacheprovider", *sys.argv[1:]], plugins=[plugin])
tap.write(f"1..{plugin.n}\n")
sys.exit(0 if rc in (0, 5) and plugin.n else int(rc) or 1)
