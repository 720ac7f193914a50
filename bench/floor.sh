#!/bin/sh
# Benchmark (not a test): each operation against its floor, measured in the same run. The floor
# is what no implementation can skip on gzip profiles: inflating the inputs and deflating the
# output (libdeflate, one core, the tools' level; bench/floor.c).
#   merge  100 host profiles (pprof-gen --preset host, ~0.3 MB gzip each) -o x.pb.gz
#   merge  2 CPU profiles of ~10 MB gzip (pprof-gen --preset large --samples 225000) -o x.pb.gz
#   convert one of them gz -> raw
#   edit   --focus of one function on one of them -o x.pb.gz
#   flame  one of them -> HTML (also peak RSS)
# Each command runs REPS times (default 3) and its lowest wall time counts; prints our wall time,
# CPU time, peak RSS, page faults, the floor and the ratio.
# Usage: bench/floor.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N)
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-floor-bench}
gen=$build/bench/pprof-gen
floor=$build/bench/floor
t=$build/tools
for x in "$gen" "$floor" "$t/pprof-merge" "$t/pprof-convert" "$t/pprof-edit" "$t/pprof-flame" \
    /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
mkdir -p "$work/hosts"
[ -f "$work/a.pb.gz" ] || "$gen" --preset large --samples 225000 --host 0 --compress gzip -o "$work/a.pb.gz"
[ -f "$work/b.pb.gz" ] || "$gen" --preset large --samples 225000 --host 1 --compress gzip -o "$work/b.pb.gz"
i=0
while [ $i -lt 100 ]; do
    f=$(printf '%s/hosts/h%03d.pb.gz' "$work" $i)
    [ -f "$f" ] || "$gen" --preset host --host $i --compress gzip -o "$f"
    i=$((i + 1))
done
# The 20th function by flat value: a focus that keeps a real part of the profile, not all of it.
fn=$("$t/pprof-report" --top -n 20 "$work/a.pb.gz" 2>/dev/null | tail -n 1 | awk '{ print $NF }')

reps=${REPS:-3}
ours() { # output file, command... -> "wall cpu rss_mb faults", best wall of REPS
    out=$1; shift
    : > "$work/runs.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        /usr/bin/time -f '%e %U %S %M %R' -o "$work/time.txt" "$@" > "$out"
        awk '{printf "%.3f %.2f %.0f %d\n", $1, $2 + $3, $4 / 1024, $5}' "$work/time.txt" >> "$work/runs.txt"
        i=$((i + 1))
    done
    sort -n -k1,1 "$work/runs.txt" | head -n 1
}
floor_of() { # output file or "", inputs... -> seconds of inflate (+ deflate of the output)
    out=$1; shift
    if [ -n "$out" ]; then
        "$floor" --reps "$reps" --out "$out" "$@" | awk '{s += $2} END {printf "%.3f\n", s}'
    else
        "$floor" --reps "$reps" "$@" | awk '{s += $2} END {printf "%.3f\n", s}'
    fi
}
row() { # name, "wall cpu rss faults", floor
    set -- "$1" $2 "$3"
    printf '| %s | %ss | %ss | %s MB | %s | %ss | %.1fx |\n' "$1" "$2" "$3" "$4" "$5" "$6" \
        "$(echo "$2 / $6" | bc -l)"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); best of $reps; $(date -u +%FT%TZ)"
echo "| operation | wall | cpu | peak RSS | page faults | floor (inflate + deflate out) | ratio |"
echo "|---|---|---|---|---|---|---|"
r=$(ours /dev/null "$t/pprof-merge" -q -o "$work/m100.pb.gz" "$work"/hosts/h*.pb.gz)
row "pprof-merge 100 hosts -o x.pb.gz" "$r" "$(floor_of "$work/m100.pb.gz" "$work"/hosts/h*.pb.gz)"
r=$(ours /dev/null "$t/pprof-merge" -q -o "$work/m2.pb.gz" "$work/a.pb.gz" "$work/b.pb.gz")
row "pprof-merge 2 x $(($(stat -c %s "$work/a.pb.gz") / 1000000)) MB gz -o x.pb.gz" "$r" \
    "$(floor_of "$work/m2.pb.gz" "$work/a.pb.gz" "$work/b.pb.gz")"
r=$(ours /dev/null "$t/pprof-convert" "$work/a.pb.gz" -o "$work/a.pb")
row "pprof-convert gz -> raw" "$r" "$(floor_of "" "$work/a.pb.gz")"
r=$(ours /dev/null "$t/pprof-edit" "$work/a.pb.gz" --focus "^$fn\$" -o "$work/e.pb.gz")
row "pprof-edit --focus '^$fn\$' -o x.pb.gz" "$r" "$(floor_of "$work/e.pb.gz" "$work/a.pb.gz")"
r=$(ours "$work/f.html" "$t/pprof-flame" "$work/a.pb.gz" -o -)
row "pprof-flame gz -> HTML" "$r" "$(floor_of "" "$work/a.pb.gz")"
echo "floor: $floor --reps $reps [--out OUTPUT] INPUTS (libdeflate, one core, level PPROF_GZIP_DEFAULT_LEVEL)"
