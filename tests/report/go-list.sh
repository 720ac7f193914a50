#!/bin/sh
# pprof-report --list against `go tool pprof -list`, byte for byte: on the profiles of a small Go
# program built and run here (data/listprog: its sources and Go's exist on this machine), for
# several regexps, with and without -source_path and -trim_path, with sources missing (relative
# and absolute paths, said in the output); then on corpus/examples and the real corpus, whose
# sources are mostly missing. A case Go rejects must be rejected too. Skips (TAP: 1..0 # SKIP, exit 0) without Go.
# Usage: go-list.sh PPROF_REPORT
set -u
. "$(dirname "$0")/../tap.sh"
rep=$1
# absolute: the reports run in the work directory
src=$(cd "${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
case $rep in /*) ;; *) rep=$(pwd)/$rep ;; esac
command -v go >/dev/null 2>&1 || skip_all "go not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/go-list.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty" "$work/copy"
cp -r "$here/data/listprog" "$work/prog"
# stdlib only: no module download; the build cache stays the user's (or one here without HOME)
[ -n "${GOCACHE:-}" ] || [ -n "${HOME:-}" ] || export GOCACHE="$work/gocache"
if ! (cd "$work/prog" && GOFLAGS= go build -o prog . 2> "$work/build.err"); then
    skip_all "the Go program does not build: $(head -c 200 "$work/build.err" | tr '\n' ' ')"
fi
(cd "$work/prog" && ./prog "$work/heap.pb" "$work/cpu.pb") || { echo "Bail out! the Go program failed"; exit 1; }
cp -r "$work/prog" "$work/copy/sub"
# go tool pprof must neither look for the mappings' binaries nor save anything
export PPROF_BINARY_PATH="$work/empty" PPROF_TMPDIR="$work/empty" HOME="$work/empty" TZ=UTC
n=0
fail=0
# check NAME FILE GOFLAGS...: ours gets the same flags with two dashes; run in $work
check() {
    name=$1 file=$2
    shift 2
    n=$((n + 1))
    ours=""
    for a in "$@"; do ours="$ours -$a"; done
    (cd "$work" && go tool pprof -symbolize=none "$@" "$file") > "$work/go.txt" 2> "$work/go.err"
    grc=$?
    # shellcheck disable=SC2086
    (cd "$work" && "$rep" $ours "$file") > "$work/ours.txt" 2> "$work/ours.err"
    orc=$?
    if [ $grc -ne 0 ]; then
        if [ $orc -ne 0 ]; then
            echo "ok $n - $name $*: both refuse"
        else
            echo "not ok $n - $name $*: Go refuses ($(head -c 150 "$work/go.err" | tr '\n' ' ')), pprof-report does not"
            fail=$((fail + 1))
        fi
    elif [ $orc -ne 0 ]; then
        echo "not ok $n - $name $*: pprof-report failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
    elif cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name $* ($(grep -c '^ROUTINE' "$work/go.txt") routines, $(grep -c 'Error:' "$work/go.txt") missing, $(wc -l < "$work/go.txt") lines equal)"
    elif perl -MEncode -0777 -pe 's/\\x(0[0-8a-f]|1[0-9a-f]|7f)/chr(hex($1))/ge; s/\\u(00[89][0-9a-f]|202[89])/encode_utf8(chr(hex($1)))/ge' "$work/ours.txt" | cmp -s "$work/go.txt" -; then
        # deliberate (docs/report.md): control characters of profile strings are escaped here
        echo "ok $n - $name $* (equal once our escapes of control characters are undone)"
    else
        echo "not ok $n - $name $*: output differs"
        diff "$work/go.txt" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
for p in heap cpu; do
    f=$work/$p.pb
    for rx in 'main\.' '^main\.(large|grow)$' 'runtime\.' 'os\.' .; do
        check "$p" "$f" "-list=$rx"
    done
    check "$p" "$f" '-list=main\.' -sample_index=0
    check "$p" "$f" '-list=main\.' -cum
    check "$p" "$f" '-list=main\.' -focus=large
    # sources found elsewhere: a trim path makes them relative, a source path finds them
    check "$p" "$f" '-list=main\.' "-trim_path=$work/prog" "-source_path=$work/copy/sub"
    check "$p" "$f" '-list=main\.' "-trim_path=$work/prog/" "-source_path=$work/nowhere:$work/copy/sub"
    # the search goes up the source path's parents
    check "$p" "$f" '-list=main\.' "-trim_path=$work" "-source_path=$work/copy/sub/deeper"
    # without a trim path, the heuristic cuts after the search directory's base name
    check "$p" "$f" '-list=main\.' "-source_path=$work/copy/prog"
    check "$p" "$f" '-list=main\.' "-source_path=$work/prog"
    # missing: relative (searched for, not found) and several trim paths
    check "$p" "$f" '-list=main\.' "-trim_path=/nonexistent:$work" "-source_path=$work/empty"
    check "$p" "$f" '-list=.' "-trim_path=/usr/lib" "-source_path=$work/empty"
    check "$p" "$f" '-list=main\.' "-trim_path=$work/prog" "-source_path=/nonexistent/dir"
    check "$p" "$f" '-list=no_such_function_anywhere'
    check "$p" "$f" '-list=(('
done
# Go's scanner: "\r\n" ends a line; a line of 64 KiB or more ends the file; a directory named
# as the source reads as no lines
mkdir "$work/crlf" "$work/long" "$work/dir" "$work/dir/main.go"
sed 's/$/\r/' "$work/prog/main.go" > "$work/crlf/main.go"
awk 'NR == 22 { s = "//"; while (length(s) < 65536) s = s "x"; print s } { print }' "$work/prog/main.go" > "$work/long/main.go"
for d in crlf long dir; do
    check heap "$work/heap.pb" '-list=main\.' "-trim_path=$work/prog" "-source_path=$work/$d"
done
# absolute paths that no longer exist
mv "$work/prog" "$work/gone"
check heap "$work/heap.pb" '-list=main\.'
check heap "$work/heap.pb" '-list=main\.' "-source_path=$work/gone"
files=$(ls "$src"/corpus/examples/*.pb.gz "$corpus"/parca/* "$corpus"/generated/* 2>/dev/null | grep -v SOURCES.txt)
for f in $files; do
    check "$(basename "$f")" "$f" '-list=main|Serve|alloc|e$'
    [ "${GO_LIST_QUICK:-0}" = 1 ] && continue
    check "$(basename "$f")" "$f" '-list=.' -sample_index=0
done
echo "1..$n"
[ $fail -eq 0 ]
