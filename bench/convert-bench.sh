#!/bin/sh
# Benchmark (not a test): pprof-convert against Go's profile.Parse + Write (bench/goconvert),
# side by side in one run, on the generated profiles of bench/edit-bench.sh:
#   L  pprof-gen --preset large (about 27.5 MB raw, labels on every sample)
#   T  pprof-gen --preset labels --samples 245000 (about 22 MB raw)
# Rows: raw in, raw out (Parse + WriteUncompressed: decode + encode only); raw in, gzip out and
# gzip in, gzip out (Parse + Write, gzip at Go's default level; pprof-convert at its own
# default, level 1). Each row runs both REPS times (default 3), alternating, and keeps each
# side's run with the lowest wall time. Both write to a pipe into a file (no fsync).
# Usage: bench/convert-bench.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N)
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-convert-bench}
src=$(cd "$(dirname "$0")" && pwd)
conv=$build/tools/pprof-convert
gen=$build/bench/pprof-gen
for x in "$conv" "$gen" /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
command -v go >/dev/null 2>&1 || { echo "go not found" >&2; exit 1; }
mkdir -p "$work"
(cd "$src/goconvert" && GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$work/gocache" GOFLAGS= \
    go build -o "$work/goconvert" .)
[ -f "$work/L.pb" ] || "$gen" --preset large -o "$work/L.pb"
[ -f "$work/T.pb" ] || "$gen" --preset labels --samples 245000 -o "$work/T.pb"
[ -f "$work/L.pb.gz" ] || "$conv" "$work/L.pb" -o "$work/L.pb.gz"

reps=${REPS:-3}
measure() { # output file, command... -> prints "wall cpu rss_mb"
    out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" > "$out"
    awk '{printf "%.3f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
best() { sort -n -k1,1 | head -n 1; }
row() { # name, input, pprof-convert flags (one word), goconvert flags (one word)
    name=$1; in=$2; ours_flag=$3; go_flag=$4
    : > "$work/ours.txt"
    : > "$work/go.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        measure "$work/ours.out" "$conv" $ours_flag "$in" -o - >> "$work/ours.txt"
        measure "$work/go.out" "$work/goconvert" $go_flag "$in" >> "$work/go.txt"
        i=$((i + 1))
    done
    set -- $(best < "$work/ours.txt") $(best < "$work/go.txt")
    printf '| %s | %ss / %ss cpu / %s MB | %ss / %ss cpu / %s MB | %.1fx | %.1fx | 1/%.1f |\n' \
        "$name" "$1" "$2" "$3" "$4" "$5" "$6" \
        "$(echo "$4 / $1" | bc -l)" "$(echo "$5 / $2" | bc -l)" "$(echo "$6 / $3" | bc -l)"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version); best of $reps"
echo "| row | pprof-convert wall / cpu / peak RSS | Go Parse + Write wall / cpu / peak RSS | wall | cpu | RSS |"
echo "|---|---|---|---|---|---|"
row "L raw -> raw" "$work/L.pb" --compress=none -raw
row "L raw -> gzip" "$work/L.pb" --compress=gzip -raw=false
row "L gzip -> gzip" "$work/L.pb.gz" --compress=gzip -raw=false
row "T raw -> raw" "$work/T.pb" --compress=none -raw
