#!/bin/sh
# Two check-bench binaries (bench/check-bench.c), alternating old, new, old, ... for ROUNDS
# rounds (default 5), and the best decode, decode-gzip and check time of each over the rounds
# (each run already takes the best of 5 repetitions per preset).
# usage: bench/check-compare.sh OLD_CHECK_BENCH NEW_CHECK_BENCH [PRESET...]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [PRESET...]" >&2; exit 2; }
old=$1 new=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq 1 "${ROUNDS:-5}"); do
    "$old" "$@" | sed 's/^/old /' >>"$out"
    "$new" "$@" | sed 's/^/new /' >>"$out"
done
echo "# $(date -u +%Y-%m-%dT%H:%MZ), ${ROUNDS:-5} rounds, load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" <<'PY'
import re, sys
best, presets = {}, []
for line in open(sys.argv[1]):
    who, preset = line.split()[:2]
    if preset not in presets:
        presets.append(preset)
    for k in ("decode", "decode-gzip", "check"):
        v = float(re.search(r"\s" + re.escape(k) + r"\s+([\d.]+) ms", line).group(1))
        best[preset, k, who] = min(best.get((preset, k, who), v), v)
for p in presets:
    for k in ("decode", "decode-gzip", "check"):
        o, n = best[p, k, "old"], best[p, k, "new"]
        print(f"{p:8s} {k:12s} old {o:9.2f} ms  new {n:9.2f} ms  {100 * (n - o) / o:+6.1f} %")
PY
