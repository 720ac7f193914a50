#!/bin/sh
# Benchmark (not a test): pprof-top and pprof-diff against go tool pprof -top and
# -proto -diff_base on two generated profiles of about 22 MB raw each (pprof-gen --preset large
# --samples 232000, hosts 0 and 1), and pprof-report --dot / --traces against -dot / -traces on
# the 27 MB one (pprof-gen --preset large, what pprof-bench --gen large measures), side by side. Prints wall time, CPU time (user + sys) and
# peak RSS (/usr/bin/time) and the ratios; each command runs REPS times (default 3, alternating)
# and the run with the lowest wall time counts, since on a shared virtual machine other tenants
# only ever add time. Go runs with -symbolize=none (it only saves Go work).
# Usage: bench/report-bench.sh [BUILD_DIR] [WORK_DIR]   (env REPS=N, ROWS=1,3)
set -eu
build=${1:-build}
work=${2:-${TMPDIR:-/tmp}/pprof-report-bench}
top=$build/tools/pprof-top
diff=$build/tools/pprof-diff
rep=$build/tools/pprof-report
gen=$build/bench/pprof-gen
for x in "$top" "$diff" "$rep" "$gen" /usr/bin/time; do
    [ -x "$x" ] || { echo "missing $x (build first)" >&2; exit 1; }
done
command -v go >/dev/null 2>&1 || { echo "go not found" >&2; exit 1; }
mkdir -p "$work"
[ -f "$work/base.pb" ] || "$gen" --preset large --samples 232000 --host 0 -o "$work/base.pb"
[ -f "$work/new.pb" ] || "$gen" --preset large --samples 232000 --host 1 -o "$work/new.pb"
[ -f "$work/large.pb" ] || "$gen" --preset large -o "$work/large.pb"
# go tool pprof must neither look for the mappings' binaries nor save anything
mkdir -p "$work/empty"
export PPROF_BINARY_PATH="$work/empty" PPROF_TMPDIR="$work/empty"
export TZ=UTC
reps=${REPS:-3}
measure() { # output file, command... -> prints "wall cpu rss_mb"
    out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" > "$out"
    awk '{printf "%.3f %.3f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
best() { sort -n -k1,1 | head -n 1; }
row() { # name, ours-command -- go-command; env ROWS=N,M runs only those rows (1-based)
    name=$1; shift
    row_n=$((${row_n:-0} + 1))
    case ",${ROWS:-$row_n}," in *",$row_n,"*) ;; *) return 0 ;; esac
    ours=""; while [ "$1" != -- ]; do ours="$ours $1"; shift; done; shift
    : > "$work/o.txt"; : > "$work/g.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        # shellcheck disable=SC2086
        measure "$work/ours.out" $ours >> "$work/o.txt"
        measure "$work/go.out" "$@" >> "$work/g.txt"
        i=$((i + 1))
    done
    o=$(best < "$work/o.txt"); g=$(best < "$work/g.txt")
    echo "$name|$o|$g" | awk -F'|' '{
        split($2, o, " "); split($3, g, " ")
        printf "| %s | %.3f s | %.3f s | %.0f MB | %.3f s | %.3f s | %.0f MB | %.1fx | %.1fx |\n",
            $1, o[1], o[2], o[3], g[1], g[2], g[3], g[1] / o[1], g[2] / o[2] }'
}
ls -l "$work/base.pb" "$work/new.pb" "$work/large.pb" | awk '{print "# " $5 " bytes " $NF}'
echo "| command | ours wall | ours cpu | ours RSS | Go wall | Go cpu | Go RSS | wall ratio | cpu ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
row "top (functions)" "$top" "$work/new.pb" -- go tool pprof -symbolize=none -top "$work/new.pb"
row "top -n 20 lines" "$top" -n 20 --granularity lines "$work/new.pb" -- go tool pprof -symbolize=none -top -nodecount=20 -lines "$work/new.pb"
row "diff -o (vs -proto -diff_base)" "$diff" -q -o "$work/ours-diff.pb.gz" "$work/base.pb" "$work/new.pb" -- go tool pprof -symbolize=none -proto -diff_base "$work/base.pb" "$work/new.pb"
row "diff report -n 20 (vs -top -diff_base)" "$diff" -n 20 "$work/base.pb" "$work/new.pb" -- go tool pprof -symbolize=none -top -nodecount=20 -diff_base "$work/base.pb" "$work/new.pb"
# both write the report to a file (ours through -o, Go's to the stdout file measure gives)
row "dot (large.pb)" "$rep" --dot "$work/large.pb" -- go tool pprof -symbolize=none -dot "$work/large.pb"
row "traces (large.pb)" "$rep" --traces "$work/large.pb" -- go tool pprof -symbolize=none -traces "$work/large.pb"
cmp -s "$work/ours.out" "$work/go.out" && echo "# traces: byte-identical to Go's" || echo "# traces: DIFFER from Go's"
