#!/bin/sh
# pprof-dump against Go's text of a profile (TZ=UTC), byte for byte, on every legacy input and
# every profile of the corpus (real and examples): pprof-dump against what
# `go tool pprof -raw -symbolize=none` prints (the text of Go's merge of the one profile), and
# pprof-dump --as-is against Go's Profile.String() of the profile as parsed (goref raw, before
# that merge) where the pprof Go package is there. Go runs with a private HOME and PPROF_TMPDIR
# (it looks for binaries under $HOME/pprof). Skips without Go. Usage: dump-go.sh PPROF_DUMP
set -u
. "$(dirname "$0")/../tap.sh"
dump=$1
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/dump-go.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/pprof-tmp"
goref=
if [ -d /usr/share/gocode/src/github.com/google/pprof/profile ]; then
    goref=$work/goref
    (cd "$src/tests/merge/goref" && GOPATH=/usr/share/gocode GO111MODULE=off \
        GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS= go build -o "$goref" .) ||
        { echo "goref build failed"; exit 1; }
fi
export TZ=UTC
n=0
fail=0
equal=0
compare() { # name, go's text, file, pprof-dump options...
    name=$1 want=$2 file=$3
    shift 3
    n=$((n + 1))
    if ! "$dump" "$@" "$file" > "$work/ours.txt" 2> "$work/ours.err"; then
        echo "not ok $n - $name: pprof-dump $* failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
    elif cmp -s "$want" "$work/ours.txt"; then
        echo "ok $n - $name: $(wc -l < "$want") lines equal"
        equal=$((equal + 1))
    else
        echo "not ok $n - $name: the texts differ"
        diff "$want" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
gotool() { # file: go tool pprof's raw text into $work/go.txt
    HOME=$work/home PPROF_TMPDIR=$work/pprof-tmp PPROF_BINARY_PATH= \
        go tool pprof -raw -symbolize=none "$1" > "$work/go.txt" 2> "$work/go.err"
}
for f in "$src"/corpus/legacy/*; do
    if gotool "$f"; then
        compare "legacy ${f##*/} (go tool pprof -raw)" "$work/go.txt" "$f"
    else
        n=$((n + 1))
        echo "not ok $n - ${f##*/}: go tool pprof does not read it: $(head -c 200 "$work/go.err")"
        fail=$((fail + 1))
    fi
done
files=$(find "$corpus" "$src/corpus/examples" -type f -name '*.pb*' | sort)
for f in $files; do
    # profiles Go refuses are pprof-check's business, not this comparison's
    gotool "$f" || continue
    compare "corpus ${f#"$src"/corpus/} (go tool pprof -raw)" "$work/go.txt" "$f"
done
if [ -n "$goref" ]; then
    for f in $files; do
        "$goref" raw "$f" > "$work/go.txt" 2>/dev/null || continue
        compare "corpus ${f#"$src"/corpus/} --as-is (Go's String() as parsed)" "$work/go.txt" "$f" --as-is
    done
fi
echo "# $equal of $n listings byte-equal"
echo "1..$n"
[ $fail -eq 0 ]
