#!/bin/sh
# Equivalence with Go's profile.Merge: for every group of merge-compatible profiles in the real
# corpus (and generated sets), the canonical semantic form (tests/merge/goref) of pprof-merge's
# output must equal that of Go's merge. Skips (TAP: 1..0 # SKIP, exit 0) without Go or the pprof Go package.
# Usage: go-equiv.sh PPROF_MERGE [PPROF_GEN]
set -u
. "$(dirname "$0")/../tap.sh"
merge=$1
gen=${2:-${PPROF_BUILD_ROOT:-}/bench/pprof-gen}
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
[ -d /usr/share/gocode/src/github.com/google/pprof/profile ] || skip_all "no google/pprof Go package"
work=$(mktemp -d "${TMPDIR:-/tmp}/go-equiv.XXXXXX")
trap 'rm -rf "$work"' EXIT
goref=$work/goref
(cd "$src/tests/merge/goref" && GOPATH=/usr/share/gocode GO111MODULE=off \
    GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS= go build -o "$goref" .) || { echo "goref build failed"; exit 1; }

n=0
fail=0
check_group() { # name, files...
    name=$1; shift
    n=$((n + 1))
    if ! "$goref" merge "$@" > "$work/go.txt" 2> "$work/go.err"; then
        echo "ok $n - $name: Go rejects the group, skipped # SKIP $(head -c 200 "$work/go.err")"
        return
    fi
    if ! "$merge" -q -o "$work/ours.pb.gz" "$@" 2> "$work/ours.err"; then
        echo "not ok $n - $name: pprof-merge failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
        return
    fi
    "$goref" canon "$work/ours.pb.gz" > "$work/ours.txt"
    if cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name: $# file(s), $(wc -l < "$work/go.txt") canonical lines equal"
    else
        echo "not ok $n - $name: canonical forms differ"
        diff "$work/go.txt" "$work/ours.txt" | head -20 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}

# groups of the real corpus by (sample types, period type)
files=$(ls "$corpus"/parca/* "$corpus"/generated/* 2>/dev/null | grep -v SOURCES.txt)
"$goref" sig $files | grep -v '^invalid ' | sort > "$work/sigs"
for sig in $(cut -d' ' -f1 "$work/sigs" | sort -u); do
    # shellcheck disable=SC2046
    check_group "corpus group $sig" $(awk -v s="$sig" '$1 == s {print $2}' "$work/sigs")
done
# the 10 consecutive CPU profiles of one process, on their own
# shellcheck disable=SC2046
check_group "parca query-many" $(ls "$corpus"/parca/query-many-*)

# generated sets: many hosts of one service
if [ -n "$gen" ] && [ -x "$gen" ]; then
    i=0
    while [ $i -lt 8 ]; do
        "$gen" --preset host --host $i --compress gzip -o "$work/gen$i.pb.gz" 2>/dev/null || break
        i=$((i + 1))
    done
    if [ $i -gt 0 ]; then
        check_group "generated hosts" "$work"/gen*.pb.gz
        "$gen" --preset deep --seed 7 -o "$work/deep1.pb" 2>/dev/null &&
            "$gen" --preset deep --seed 7 --host 1 --host-unique-pct 20 -o "$work/deep2.pb" 2>/dev/null &&
            check_group "generated deep inlining" "$work/deep1.pb" "$work/deep2.pb"
        "$gen" --preset labels --seed 3 -o "$work/lab1.pb" 2>/dev/null &&
            "$gen" --preset labels --seed 4 -o "$work/lab2.pb" 2>/dev/null &&
            check_group "generated labels" "$work/lab1.pb" "$work/lab2.pb"
    fi
fi
# --intersect-types against Go's CompatibilizeSampleTypes (one common type, so column order
# cannot differ; see docs/merge.md for the order rule)
cpu=$(awk '$1 == "cpu/nanoseconds|cpu/nanoseconds" || $1 == "samples/count,cpu/nanoseconds|cpu/nanoseconds" {print $2}' "$work/sigs")
if [ -n "$cpu" ]; then
    n=$((n + 1))
    # shellcheck disable=SC2086
    if "$goref" merge -intersect $cpu > "$work/go.txt" 2>/dev/null &&
        "$merge" -q --intersect-types -o "$work/ours.pb.gz" $cpu &&
        "$goref" canon "$work/ours.pb.gz" > "$work/ours.txt" && cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - intersect-types over the CPU groups"
    else
        echo "not ok $n - intersect-types over the CPU groups"
        fail=$((fail + 1))
    fi
fi
echo "1..$n"
[ $fail -eq 0 ]
