#!/usr/bin/env python3
"""Sorts, within each run of callgrind call blocks (cfl=/cfn=/calls=/cost) of one function,
the blocks whose cost has the same absolute value. Go orders calls by |weight| and leaves
ties of opposite sign in the order of a Go map's iteration, which changes from run to run
(docs/report.md); everything else must still match byte for byte."""
import sys

lines = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
out, run, i = [], [], 0


def flush():
    j = 0
    while j < len(run):
        k = j
        while k < len(run) and run[k][0] == run[j][0]:
            k += 1
        for block in sorted(b for _, b in run[j:k]):
            out.extend(block)
        j = k
    run.clear()


while i < len(lines):
    j = i
    while j < len(lines) and (lines[j].startswith("cfl=") or lines[j].startswith("cfn=")):
        j += 1
    if j > i and j + 1 < len(lines) and lines[j].startswith("calls="):
        block = lines[i:j + 2]
        try:
            w = abs(int(block[-1].split()[-1]))
        except ValueError:
            w = None
        run.append((w, block))
        i = j + 2
    else:
        flush()
        out.append(lines[i])
        i += 1
flush()
sys.stdout.write("\n".join(out))
