#!/bin/sh
# Benchmark (not a test): pprof-merge against `go tool pprof -proto`, side by side in one run.
#   (a) two profiles of >= 20 MB raw each (pprof-gen --preset large, hosts 0 and 1)
#   (b) 100 profiles of about 200 KB gzipped sharing most functions (pprof-gen --preset host)
# Prints wall time, CPU time (user + sys) and peak RSS (/usr/bin/time) and the ratios; each
# command runs REPS times (default 3, alternating) and the run with the lowest wall time counts,
# since on a shared virtual machine other tenants only ever add time.
# Usage: bench/merge-bench.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N)
# Go runs with -symbolize=none, which only saves Go work (no binary lookups).
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-merge-bench}
merge=$build/tools/pprof-merge
gen=$build/bench/pprof-gen
for x in "$merge" "$gen" /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
command -v go >/dev/null 2>&1 || { echo "go not found" >&2; exit 1; }
mkdir -p "$work/a" "$work/b" "$work/go-home"
[ -f "$work/a/a.pb" ] || "$gen" --preset large --host 0 -o "$work/a/a.pb"
[ -f "$work/a/b.pb" ] || "$gen" --preset large --host 1 -o "$work/a/b.pb"
i=0
while [ $i -lt 100 ]; do
    f=$(printf '%s/b/h%03d.pb.gz' "$work" $i)
    [ -f "$f" ] || "$gen" --preset host --host $i --compress gzip -o "$f"
    i=$((i + 1))
done

reps=${REPS:-3}
measure() { # output file, command... -> prints "wall cpu rss_mb"
    out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" > "$out"
    awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
best() { # "wall cpu rss" lines on stdin -> the one with the lowest wall time
    sort -n -k1,1 | head -n 1
}
row() { # name, inputs description, files...
    name=$1; desc=$2; shift 2
    : > "$work/ours.txt"
    : > "$work/go.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        measure /dev/null "$merge" -q -o "$work/ours.pb.gz" "$@" >> "$work/ours.txt"
        HOME="$work/go-home" PPROF_TMPDIR="$work/go-home" GOFLAGS= \
            measure "$work/go.pb.gz" go tool pprof -symbolize=none -proto "$@" >> "$work/go.txt"
        i=$((i + 1))
    done
    ours=$(best < "$work/ours.txt")
    gor=$(best < "$work/go.txt")
    set -- $ours $gor
    printf '| %s | %s | %ss / %ss cpu / %s MB | %ss / %ss cpu / %s MB | %.1fx | %.1fx | %.1fx |\n' \
        "$name" "$desc" "$1" "$2" "$3" "$4" "$5" "$6" \
        "$(echo "$4 / $1" | bc -l)" "$(echo "$5 / $2" | bc -l)" "$(echo "$6 / $3" | bc -l)"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version); best of $reps"
echo "| row | inputs | pprof-merge wall / cpu / peak RSS | go tool pprof -proto wall / cpu / peak RSS | wall ratio | cpu ratio | RSS ratio |"
echo "|---|---|---|---|---|---|---|"
sa=$(stat -c %s "$work/a/a.pb"); sb=$(stat -c %s "$work/a/b.pb")
row "(a)" "2 x $((sa / 1000000))/$((sb / 1000000)) MB raw" "$work/a/a.pb" "$work/a/b.pb"
sz=$(du -k "$work/b" | cut -f1)
row "(b)" "100 x ~$((sz / 100)) KB gzip" "$work"/b/h*.pb.gz
echo "commands: $merge -q -o OUT FILES... ; go tool pprof -symbolize=none -proto FILES... > OUT"
