"""Damaged JFR recordings: each seed cut at 10 points, and 500 copies with one random byte
changed (a fixed random seed, so every run tries the same bytes). pprof-convert must neither
crash nor hang: it exits 1 naming the damage, or 0 with a profile pprof-check finds no error
in. Prints TAP.

usage: hostile.py PPROF-CONVERT PPROF-CHECK SEED.jfr..."""
import os
import random
import subprocess
import sys
import tempfile


def main():
    conv, check, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
    datas = [(os.path.basename(s), open(s, "rb").read()) for s in seeds]
    cases = []
    for name, d in datas:
        for k in range(1, 11):
            n = len(d) * k // 11
            cases.append(("%s cut at %d" % (name, n), d[:n]))
    rng = random.Random(45)
    for i in range(500):
        name, d = datas[i % len(datas)]
        b = bytearray(d)
        pos = rng.randrange(len(b))
        b[pos] ^= rng.randrange(1, 256)
        cases.append(("%s byte %d changed" % (name, pos), bytes(b)))
    n = 0
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        rec, out = os.path.join(tmp, "r.jfr"), os.path.join(tmp, "r.pb")
        for i, (what, data) in enumerate(cases):
            with open(rec, "wb") as f:
                f.write(data)
            args = [conv, rec, "-o", out] + (["--allow-truncated"] if i % 2 else [])
            try:
                r = subprocess.run(args, capture_output=True, timeout=20)
            except subprocess.TimeoutExpired:
                bad.append("%s: hangs" % what)
                continue
            if r.returncode == 0:
                c = subprocess.run([check, out], capture_output=True, timeout=20)
                if c.returncode != 0:
                    bad.append("%s: accepted, but pprof-check: %s" % (what, c.stdout.decode()[:200]))
            elif r.returncode != 1 or not r.stderr:
                bad.append("%s: exit %d %s" % (what, r.returncode, r.stderr.decode()[:200]))
            n += 1
    print("1..2")
    print("ok 1 - %d damaged recordings read" % len(cases))
    for b in bad[:20]:
        print("# " + b.replace("\n", " | "))
    print(("ok" if not bad else "not ok") + " 2 - no crash or hang: exit 1 with a message, or a profile with no error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
