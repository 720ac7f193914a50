#!/bin/sh
# Benchmark (not a test): pprof-flame's HTML page against pprof-convert --to=folded followed by
# flamegraph.pl ($PPROF_PEERS/flamegraph.pl, when set) on a generated 10 MB gzip CPU profile with
# 48,304 distinct stacks (pprof-gen --preset large --stacks 50000 --samples 225000 --compress
# gzip: the shape of issue 26's profile). Prints wall time, CPU time (user + sys) and peak RSS
# (/usr/bin/time) and the sizes of the outputs. pprof-flame runs REPS times (default 5) and the
# run with the lowest wall time counts, since on a shared machine other tenants only ever add
# time; flamegraph.pl runs once (minutes).
# Usage: bench/flame-bench.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N; PPROF_PEERS=DIR
# runs DIR/flamegraph.pl too, NO_PEER=1 skips it)
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-flame-bench}
flame=$build/tools/pprof-flame
conv=$build/tools/pprof-convert
gen=$build/bench/pprof-gen
peer=${PPROF_PEERS:+$PPROF_PEERS/flamegraph.pl}
for x in "$flame" "$conv" "$gen" /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
mkdir -p "$work"
in=$work/flame10.pb.gz
[ -f "$in" ] || "$gen" --preset large --stacks 50000 --samples 225000 --compress gzip -o "$in"
measure() { # label, command... -> "label wall cpu rss_mb"
    label=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@"
    awk -v l="$label" '{printf "%s %.3f %.3f %.0f\n", l, $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
echo "# input: $(wc -c < "$in") bytes gzip"
reps=${REPS:-5}
i=0
: > "$work/runs.txt"
while [ $i -lt "$reps" ]; do
    measure pprof-flame-html "$flame" "$in" -o "$work/flame.html" >> "$work/runs.txt"
    i=$((i + 1))
done
echo "# label wall_s cpu_s rss_mb (pprof-flame: best of $reps by wall)"
sort -n -k2,2 "$work/runs.txt" | head -n 1
measure pprof-flame-svg "$flame" "$in" -o "$work/flame.svg"
echo "# page: $(wc -c < "$work/flame.html") bytes; svg: $(wc -c < "$work/flame.svg") bytes"
if [ -z "${NO_PEER:-}" ] && [ -n "$peer" ] && [ -f "$peer" ]; then
    measure pprof-convert-folded "$conv" "$in" --to=folded -o "$work/in.folded"
    echo "# distinct stacks: $(wc -l < "$work/in.folded")"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" perl "$peer" "$work/in.folded" > "$work/fg.svg"
    awk '{printf "flamegraph.pl %.3f %.3f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
    echo "# flamegraph.pl svg: $(wc -c < "$work/fg.svg") bytes"
elif [ -z "${NO_PEER:-}" ]; then
    echo "# flamegraph.pl not run: PPROF_PEERS does not name a directory holding it"
fi
