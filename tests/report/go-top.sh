#!/bin/sh
# pprof-top against `go tool pprof -top`: the text must be byte-identical on every real corpus
# profile Go accepts, at each granularity, sorted by flat and by cum, with and without a node
# count. Skips (TAP: 1..0 # SKIP, exit 0) without Go. Usage: go-top.sh PPROF_TOP [PPROF_GEN]
set -u
. "$(dirname "$0")/../tap.sh"
top=$1
gen=${2:-${PPROF_BUILD_ROOT:-}/bench/pprof-gen}
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/go-top.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TZ=UTC
n=0
fail=0
# our output with its escapes of control characters undone (libpprof/text.c; docs/report.md,
# differences): Go prints those characters raw
unescape_text() {
    perl -MEncode -0777 -pe 's/\\x(0[0-8a-f]|1[0-9a-f]|7f)/chr(hex($1))/ge; s/\\u(00[89][0-9a-f]|202[89])/encode_utf8(chr(hex($1)))/ge' "$1"
}
# check NAME FILE GO_ARGS -- OUR_ARGS
check() {
    name=$1 file=$2
    shift 2
    goargs=
    while [ "$1" != -- ]; do goargs="$goargs $1"; shift; done
    shift
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! go tool pprof -symbolize=none -top $goargs "$file" > "$work/go.txt" 2> "$work/go.err"; then
        echo "ok $n - $name:$goargs: Go rejects the file # SKIP $(head -c 120 "$work/go.err" | tr '\n' ' ')"
        return
    fi
    if ! "$top" "$@" "$file" > "$work/ours.txt" 2> "$work/ours.err"; then
        echo "not ok $n - $name:$goargs: pprof-top failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
    elif cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name:$goargs ($(wc -l < "$work/go.txt") lines equal)"
    elif unescape_text "$work/ours.txt" | cmp -s "$work/go.txt" -; then
        echo "ok $n - $name:$goargs (equal once our escapes of control characters are undone)"
    else
        echo "not ok $n - $name:$goargs: text differs"
        diff "$work/go.txt" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
files=$(ls "$corpus"/parca/* "$corpus"/generated/* 2>/dev/null | grep -v SOURCES.txt)
[ -n "$files" ] || skip_all "no real corpus at $corpus"
if [ -n "$gen" ] && [ -x "$gen" ]; then
    "$gen" --preset deep --seed 7 -o "$work/deep.pb" 2>/dev/null && files="$files $work/deep.pb"
    "$gen" --preset labels --seed 3 -o "$work/labels.pb" 2>/dev/null && files="$files $work/labels.pb"
fi
for f in $files; do
    b=$(basename "$f")
    check "$b" "$f" -- 
    check "$b" "$f" -cum -nodecount=25 -- --cum -n 25
    check "$b" "$f" -mean -- --mean
done
# every granularity on a few profiles with inlining, files and lines
for f in "$corpus"/parca/parca-alloc_objects.pb.gz "$corpus"/parca/query-fib.pb.gz \
    "$corpus"/generated/java-alloc.pb.gz "$corpus"/generated/java-cpu.pb.gz; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    for g in filefunctions files lines addresses; do
        check "$b" "$f" -$g -nodecount=40 -- --granularity $g -n 40
    done
    check "$b" "$f" -sample_index=0 -nodecount=10 -- --sample-type 0 -n 10
done
# pprof-edit's filters, applied before the report as Go applies -focus and the others
f="$corpus"/parca/parca-alloc_objects.pb.gz
if [ -f "$f" ]; then
    check filters "$f" -focus=flate -- --focus flate
    check filters "$f" -ignore=runtime -nodecount=20 -- --ignore runtime -n 20
    check filters "$f" -hide=runtime -nodecount=15 -- --hide runtime -n 15
    check filters "$f" -show=compress -nodecount=10 -- --show compress -n 10
    check filters "$f" -show_from=pprof -- --show-from pprof
    check filters "$f" -focus=Registry -tagfocus=bytes=1kb: -- --focus Registry --tag-focus bytes=1kb:
fi
echo "1..$n"
[ $fail -eq 0 ]
