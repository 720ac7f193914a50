#!/bin/sh
# Benchmark (not a test): the tools of two builds (OLD, NEW: meson build directories, release
# builds for figures that mean anything) on the same generated inputs, run alternately, best of
# REPS (default 5) by wall time, with CPU time, the largest peak RSS, and `cmp` of the outputs.
# A restructure must keep the bytes and not slow anything; the log is docs/bench/core.md.
# Rows: merge of 100 host profiles (gzip) and of two 10 MB gzip CPU profiles, convert of one of
# those to raw, edit --focus of one function of it, and the flame page of it.
# Usage: bench/build-compare.sh OLD_BUILD NEW_BUILD WORK_DIR
set -eu
old=$1
new=$2
work=$3
reps=${REPS:-5}
gen=$new/bench/pprof-gen
for x in "$gen" /usr/bin/time "$old/tools/pprof-merge" "$new/tools/pprof-merge"; do
    [ -x "$x" ] || { echo "missing $x (build first, with -Dbench=true)" >&2; exit 1; }
done
mkdir -p "$work/hosts"
big=$work/big.pb.gz
big2=$work/big2.pb.gz
[ -f "$big" ] || "$gen" --preset large --stacks 50000 --samples 225000 --compress gzip -o "$big"
[ -f "$big2" ] || "$gen" --preset large --host 1 --stacks 50000 --samples 225000 --compress gzip -o "$big2"
i=0
while [ $i -lt 100 ]; do
    f=$(printf '%s/hosts/h%03d.pb.gz' "$work" $i)
    [ -f "$f" ] || "$gen" --preset host --host $i --compress gzip -o "$f"
    i=$((i + 1))
done
# a function of the big profile that holds some of its samples, for --focus (its last name
# part: no regexp syntax)
fn=$("$new/tools/pprof-top" --nodecount 5 "$big" 2>/dev/null | awk '$1 == "flat" {t = 1; next} t && $6 != "runtime.goexit" {sub(/.*\./, "", $6); print $6; exit}')

measure() { # build, output file, tool, args... -> "wall cpu rss_mb"
    b=$1 out=$2 tool=$3
    shift 3
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$b/tools/$tool" "$@" -o "$out" >/dev/null 2>&1 ||
        { echo "$b/tools/$tool $* failed" >&2; exit 1; }
    awk '{printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt"
}
row() { # name, output suffix, tool, args...
    name=$1 ext=$2 tool=$3
    shift 3
    : >"$work/old.txt"
    : >"$work/new.txt"
    i=0
    while [ $i -lt "$reps" ]; do
        measure "$old" "$work/old$ext" "$tool" "$@" >>"$work/old.txt"
        measure "$new" "$work/new$ext" "$tool" "$@" >>"$work/new.txt"
        i=$((i + 1))
    done
    same=same
    cmp -s "$work/old$ext" "$work/new$ext" || same=DIFFERENT
    o=$(sort -n -k1,1 "$work/old.txt" | head -n 1)
    n=$(sort -n -k1,1 "$work/new.txt" | head -n 1)
    oc=$(sort -n -k2,2 "$work/old.txt" | head -n 1 | cut -d' ' -f2)
    nc=$(sort -n -k2,2 "$work/new.txt" | head -n 1 | cut -d' ' -f2)
    ormax=$(sort -n -k3,3 "$work/old.txt" | tail -n 1 | cut -d' ' -f3)
    nrmax=$(sort -n -k3,3 "$work/new.txt" | tail -n 1 | cut -d' ' -f3)
    set -- $o $n
    printf '| %s | %s s | %s s | %+.1f %% | %s s | %s s | %+.1f %% | %s / %s MB | %s |\n' \
        "$name" "$1" "$4" "$(echo "($4 / $1 - 1) * 100" | bc -l)" "$oc" "$nc" \
        "$(echo "($nc / $oc - 1) * 100" | bc -l)" "$ormax" "$nrmax" "$same"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); best of $reps, alternating"
echo "| row | old wall | new wall | wall | old cpu | new cpu | cpu | max RSS old / new | output |"
echo "|---|---|---|---|---|---|---|---|---|"
row "merge 100 hosts -o x.pb.gz" .pb.gz pprof-merge "$work"/hosts/h*.pb.gz
row "merge 2 x 10 MB -o x.pb.gz" .pb.gz pprof-merge "$big" "$big2"
row "convert 10 MB gz -> raw" .pb pprof-convert "$big"
row "edit --focus $fn" .pb.gz pprof-edit "$big" --focus "$fn"
row "flame 10 MB -> html" .html pprof-flame "$big"
