"""TAP helpers shared by the Python test scripts (tests/*/): import after putting tests/ on
sys.path."""
import sys


def skip_all(reason):
    """Skips the whole test. Under meson's TAP protocol a skip is the plan "1..0 # SKIP" and
    exit 0; exit 77 means skip only to the exitcode protocol and is an ERROR there."""
    print("1..0 # SKIP " + " ".join(str(reason).split()), flush=True)
    sys.exit(0)


class Tap:
    """Numbered TAP results: ok() prints one, done() the plan and gives the exit status."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=""):
        self.n += 1
        if not cond:
            self.failed += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, desc))
        if not cond and diag:
            for line in str(diag)[:1500].splitlines()[:8]:
                print("# " + line)
        sys.stdout.flush()
        return cond

    def done(self):
        print("1..%d" % self.n)
        if self.failed:
            print("# %d of %d failed" % (self.failed, self.n))
        return 1 if self.failed else 0
