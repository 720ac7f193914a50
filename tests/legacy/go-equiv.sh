#!/bin/sh
# The legacy readers against Go's profile.Parse: for every legacy input (corpus/legacy and
# fresh gperftools recordings made by record.sh), the canonical semantic form
# (tests/merge/goref: sample types, period type, stacks with their summed values) of what
# pprof-convert makes of it equals that of Go's own parse. Skips without Go or the pprof Go
# package. Usage: go-equiv.sh PPROF_CONVERT
set -u
. "$(dirname "$0")/../tap.sh"
convert=$1
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
command -v go >/dev/null 2>&1 || skip_all "go not found"
[ -d /usr/share/gocode/src/github.com/google/pprof/profile ] || skip_all "no google/pprof Go package"
work=$(mktemp -d "${TMPDIR:-/tmp}/legacy-equiv.XXXXXX")
trap 'rm -rf "$work"' EXIT
goref=$work/goref
(cd "$src/tests/merge/goref" && GOPATH=/usr/share/gocode GO111MODULE=off \
    GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS= go build -o "$goref" .) || { echo "goref build failed"; exit 1; }
files=$(ls "$src"/corpus/legacy/*)
if sh "$src/tests/legacy/record.sh" "$work/rec" >/dev/null 2>&1; then
    files="$files $work/rec/gperftools-cpu.prof $work/rec/tcmalloc-heap.heap"
else
    echo "# no fresh recordings (gperftools missing): the corpus only"
fi
n=0
fail=0
for f in $files; do
    n=$((n + 1))
    name=${f##*/}
    if ! "$goref" canon "$f" > "$work/go.txt" 2> "$work/go.err"; then
        echo "not ok $n - $name: Go does not read it: $(head -c 200 "$work/go.err")"
        fail=$((fail + 1))
        continue
    fi
    if ! "$convert" "$f" -o "$work/ours.pb.gz" 2> "$work/ours.err"; then
        echo "not ok $n - $name: pprof-convert failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
        continue
    fi
    "$goref" canon "$work/ours.pb.gz" > "$work/ours.txt"
    if cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name: $(wc -l < "$work/go.txt") canonical lines equal"
    else
        echo "not ok $n - $name: canonical forms differ"
        diff "$work/go.txt" "$work/ours.txt" | head -20 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
done
echo "1..$n"
[ $fail -eq 0 ]
