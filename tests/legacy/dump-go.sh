#!/bin/sh
# pprof-dump against Go's text of a profile (TZ=UTC): on every legacy input, byte for byte what
# `go tool pprof -raw -symbolize=none` prints; on every profile of the real corpus, byte for byte
# Go's Profile.String() of it as parsed (goref raw: the text go tool pprof -raw prints, before
# its merge of the input, which pprof-dump does not do). Skips without Go or the pprof Go
# package. Usage: dump-go.sh PPROF_DUMP
set -u
. "$(dirname "$0")/../tap.sh"
dump=$1
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
[ -d /usr/share/gocode/src/github.com/google/pprof/profile ] || skip_all "no google/pprof Go package"
work=$(mktemp -d "${TMPDIR:-/tmp}/dump-go.XXXXXX")
trap 'rm -rf "$work"' EXIT
goref=$work/goref
(cd "$src/tests/merge/goref" && GOPATH=/usr/share/gocode GO111MODULE=off \
    GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS= go build -o "$goref" .) || { echo "goref build failed"; exit 1; }
export TZ=UTC
n=0
fail=0
compare() { # name, go's text, file
    n=$((n + 1))
    if ! "$dump" "$3" > "$work/ours.txt" 2> "$work/ours.err"; then
        echo "not ok $n - $1: pprof-dump failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
    elif cmp -s "$2" "$work/ours.txt"; then
        echo "ok $n - $1: $(wc -l < "$2") lines equal"
    else
        echo "not ok $n - $1: the texts differ"
        diff "$2" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
for f in "$src"/corpus/legacy/*; do
    if go tool pprof -raw -symbolize=none "$f" > "$work/go.txt" 2> "$work/go.err"; then
        compare "legacy ${f##*/} (go tool pprof -raw)" "$work/go.txt" "$f"
    else
        n=$((n + 1))
        echo "not ok $n - ${f##*/}: go tool pprof does not read it: $(head -c 200 "$work/go.err")"
        fail=$((fail + 1))
    fi
done
for f in $(find "$corpus" -type f -name '*.pb*' | sort); do
    # profiles Go refuses are pprof-check's business, not this comparison's
    "$goref" raw "$f" > "$work/go.txt" 2>/dev/null || continue
    compare "corpus ${f#"$corpus"/}" "$work/go.txt" "$f"
done
echo "1..$n"
[ $fail -eq 0 ]
