#!/bin/sh
# Benchmark (not a test): pprof-edit against `go tool pprof -proto` with the same flags, side by
# side in one run, on
#   L  pprof-gen --preset large (about 27.5 MB raw, no labels)
#   T  pprof-gen --preset labels --samples 245000 (about 22 MB raw, string and numeric labels)
# Each row runs both commands REPS times (default 3), alternating, and keeps each side's run with
# the lowest wall time (on a shared virtual machine other tenants only ever add time). Prints
# wall, CPU (user + sys) and peak RSS (/usr/bin/time) and the ratios. Go runs with
# -symbolize=none (it only saves Go work). Both write to a pipe into a file, so neither fsyncs.
# Usage: bench/edit-bench.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N, ROWS="name ...")
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-edit-bench}
edit=$build/tools/pprof-edit
gen=$build/bench/pprof-gen
for x in "$edit" "$gen" /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
command -v go >/dev/null 2>&1 || { echo "go not found" >&2; exit 1; }
mkdir -p "$work/go-home"
[ -f "$work/L.pb" ] || "$gen" --preset large -o "$work/L.pb"
[ -f "$work/T.pb" ] || "$gen" --preset labels --samples 245000 -o "$work/T.pb"

reps=${REPS:-3}
measure() { # output file, command... -> prints "wall cpu rss_mb"
    out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" > "$out"
    awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
best() { sort -n -k1,1 | head -n 1; }
row() { # name, input, flags...
    name=$1; in=$2; shift 2
    : > "$work/ours.txt"
    : > "$work/go.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        measure "$work/ours.pb.gz" "$edit" "$in" "$@" -o - >> "$work/ours.txt"
        HOME="$work/go-home" PPROF_TMPDIR="$work/go-home" GOFLAGS= \
            measure "$work/go.pb.gz" go tool pprof -symbolize=none -proto "$@" "$in" >> "$work/go.txt" 2>/dev/null
        i=$((i + 1))
    done
    ours=$(best < "$work/ours.txt")
    gor=$(best < "$work/go.txt")
    set -- $ours $gor
    printf '| %s | %ss / %ss cpu / %s MB | %ss / %ss cpu / %s MB | %.1fx | %.1fx | 1/%.1f |\n' \
        "$name" "$1" "$2" "$3" "$4" "$5" "$6" \
        "$(echo "$4 / $1" | bc -l)" "$(echo "$5 / $2" | bc -l)" "$(echo "$6 / $3" | bc -l)"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version); best of $reps"
echo "L = $(($(stat -c %s "$work/L.pb") / 1000000)) MB raw, T = $(($(stat -c %s "$work/T.pb") / 1000000)) MB raw"
echo "| row | pprof-edit wall / cpu / peak RSS | go tool pprof -proto wall / cpu / peak RSS | wall | cpu | RSS |"
echo "|---|---|---|---|---|---|"
rows=${ROWS:-"noop focus ignore hide show_from prune_from tagfocus tagroot range five"}
for r in $rows; do
    case $r in
    noop) row "L: no operation" "$work/L.pb" ;;
    focus) row "L: -focus=main\\." "$work/L.pb" -focus='main\.' ;;
    ignore) row "L: -ignore=runtime" "$work/L.pb" -ignore=runtime ;;
    hide) row "L: -hide=runtime" "$work/L.pb" -hide=runtime ;;
    show_from) row "L: -show_from=Serve" "$work/L.pb" -show_from=Serve ;;
    prune_from) row "L: -prune_from=json" "$work/L.pb" -prune_from=json ;;
    tagfocus) row "T: -tagfocus=thread_name=worker-[0-3]" "$work/T.pb" -tagfocus='thread_name=worker-[0-3]' ;;
    tagroot) row "T: -tagroot=thread_name" "$work/T.pb" -tagroot=thread_name ;;
    range) row "T: -tagfocus=1kb:1mb" "$work/T.pb" -tagfocus=1kb:1mb ;;
    five) row "T: five (focus ignore hide tagfocus show_from)" "$work/T.pb" -focus=main -ignore=gc \
        -hide=runtime -tagfocus=thread_name=worker -show_from=main ;;
    esac
done
