#!/bin/sh
# Benchmark (not a test): two pprof-merge binaries on the inputs of bench/merge-bench.sh, run
# alternately, best of REPS (default 5) by wall time, and their outputs compared byte for byte.
# Used to check that a change keeps the bytes and the speed; the log is docs/bench/core.md.
# Usage: bench/merge-compare.sh OLD_MERGE NEW_MERGE WORK_DIR   (WORK_DIR as merge-bench.sh
# leaves it: a/a.pb, a/b.pb, b/h000.pb.gz ... b/h099.pb.gz)
set -eu
old=$1
new=$2
work=$3
reps=${REPS:-5}
[ -x /usr/bin/time ] || { echo "missing /usr/bin/time" >&2; exit 1; }
measure() { # output file, command... -> "wall cpu rss_mb"
    out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" -q -o "$out"
    awk '{printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
row() { # name, files...
    name=$1; shift
    : > "$work/old.txt"
    : > "$work/new.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        measure "$work/old.pb.gz" "$old" "$@" >> "$work/old.txt"
        measure "$work/new.pb.gz" "$new" "$@" >> "$work/new.txt"
        i=$((i + 1))
    done
    same=same
    cmp -s "$work/old.pb.gz" "$work/new.pb.gz" || same=DIFFERENT
    o=$(sort -n -k1,1 "$work/old.txt" | head -n 1)
    n=$(sort -n -k1,1 "$work/new.txt" | head -n 1)
    ormax=$(sort -n -k3,3 "$work/old.txt" | tail -n 1 | cut -d' ' -f3)
    nrmax=$(sort -n -k3,3 "$work/new.txt" | tail -n 1 | cut -d' ' -f3)
    set -- $o $n
    printf '| %s | %ss / %ss cpu / %s MB | %ss / %ss cpu / %s MB | %+.1f %% | %s / %s MB | %s |\n' \
        "$name" "$1" "$2" "$3" "$4" "$5" "$6" "$(echo "($4 / $1 - 1) * 100" | bc -l)" \
        "$ormax" "$nrmax" "$same"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); best of $reps, alternating"
echo "| row | old wall / cpu / RSS (best) | new wall / cpu / RSS (best) | wall change | max RSS old / new | output |"
echo "|---|---|---|---|---|---|"
row "(a) 2 x 27 MB raw" "$work/a/a.pb" "$work/a/b.pb"
row "(b) 100 x gzip" "$work"/b/h*.pb.gz
