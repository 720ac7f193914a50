#!/bin/sh
# pprof-report against `go tool pprof`: every format (traces, tags, tree, peek, dot, svg, callgrind)
# on every profile of corpus/examples and the real corpus, with several flag sets (default, -cum,
# -nodecount=10, a focus, -lines, -sample_index=0; -mean on one heap profile), byte for byte. A case Go rejects must be
# rejected by pprof-report too, except an svg whose dot text Graphviz cannot read under Go. Deliberate differences: docs/report.md; svg is compared with the
# text of the pan/zoom script cut out of both (the script is ours, the rest Go's and dot's). Skips (TAP: 1..0 # SKIP, exit 0) without
# Go. Usage: go-report.sh PPROF_REPORT [PPROF_GEN]
#   GO_REPORT_FORMATS="dot tree": only these formats; GO_REPORT_QUICK=1: default flags only
set -u
. "$(dirname "$0")/../tap.sh"
rep=$1
gen=${2:-${PPROF_BUILD_ROOT:-}/bench/pprof-gen}
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/go-report.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty"
# go tool pprof must neither look for the mappings' binaries nor save anything
export PPROF_BINARY_PATH="$work/empty" PPROF_TMPDIR="$work/empty" HOME="$work/empty" TZ=UTC
n=0
fail=0
formats=${GO_REPORT_FORMATS:-traces tags tree peek dot svg callgrind}
# the traces of a -traces output, one line each, sorted
blocks() {
    awk '/^-----------\+/ { if (b != "") print b; b = ""; next } { b = b "|" $0 } END { if (b != "") print b }' "$1" | sort
}
# our output with its escapes of control characters undone (libpprof/text.c; docs/report.md,
# differences): Go prints those characters raw
unescape_text() {
    perl -MEncode -0777 -pe 's/\\x(0[0-8a-f]|1[0-9a-f]|7f)/chr(hex($1))/ge; s/\\u(00[89][0-9a-f]|202[89])/encode_utf8(chr(hex($1)))/ge' "$1"
}
# check NAME FILE FORMAT GOFLAGS...: ours gets the same flags with two dashes
check() {
    name=$1 file=$2 fmt=$3
    shift 3
    n=$((n + 1))
    filtered=0
    case "$*" in *focus*) filtered=1 ;; esac
    ours=""
    for a in "$@"; do ours="$ours -$a"; done
    garg=-$fmt ouarg=--$fmt
    if [ "$fmt" = peek ]; then garg="-peek=$peek_rx" ouarg="--peek=$peek_rx"; fi
    # shellcheck disable=SC2086
    go tool pprof -symbolize=none "$garg" "$@" "$file" > "$work/go.txt" 2> "$work/go.err"
    grc=$?
    # shellcheck disable=SC2086
    "$rep" "$ouarg" $ours "$file" > "$work/ours.txt" 2> "$work/ours.err"
    orc=$?
    if [ "$fmt" = svg ]; then
        for w in go ours; do
            perl -0pi -e 's/<!\[CDATA\[.*?\]\]>/<![CDATA[]]>/s' "$work/$w.txt"
        done
    fi
    if [ $grc -ne 0 ]; then
        if [ $orc -ne 0 ]; then
            echo "ok $n - $name $fmt $*: both refuse"
        elif [ "$fmt" = svg ] && grep -q "syntax error in line" "$work/go.err"; then
            # deliberate (docs/report.md, "Strings in the dot graph"): dot cannot read Go's
            # dot text (a quote or NUL in a profile string); ours is escaped and drawn
            echo "ok $n - $name $fmt $*: Go's dot text does not parse, pprof-report draws it"
        else
            echo "not ok $n - $name $fmt $*: Go refuses ($(head -c 150 "$work/go.err" | tr '\n' ' ')), pprof-report does not"
            fail=$((fail + 1))
        fi
    elif [ $orc -ne 0 ]; then
        echo "not ok $n - $name $fmt $*: pprof-report failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
    elif cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name $fmt $* ($(wc -l < "$work/go.txt") lines equal)"
    elif [ "$fmt" = traces ] && [ "$filtered" = 1 ] && [ "$(blocks "$work/go.txt")" = "$(blocks "$work/ours.txt")" ]; then
        # deliberate (docs/report.md): after a filter, pprof_edit's compacted profile lists
        # the samples in the merger's order; the traces themselves are Go's
        echo "ok $n - $name $fmt $* (same traces, in the merger's order)"
    elif [ "$fmt" = callgrind ] &&
        python3 "$here/callgrind-ties.py" "$work/go.txt" > "$work/go.ties" &&
        python3 "$here/callgrind-ties.py" "$work/ours.txt" > "$work/ours.ties" &&
        cmp -s "$work/go.ties" "$work/ours.ties"; then
        # Go's own order of calls whose weights differ only in sign varies from run to run
        # (a Go map's iteration; docs/report.md): equal once such ties are sorted
        echo "ok $n - $name $fmt $* (equal up to the order of calls tied by |weight|)"
    elif unescape_text "$work/ours.txt" | cmp -s "$work/go.txt" -; then
        echo "ok $n - $name $fmt $* (equal once our escapes of control characters are undone)"
    else
        echo "not ok $n - $name $fmt $*: output differs"
        diff "$work/go.txt" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
files=$(ls "$src"/corpus/examples/*.pb.gz "$corpus"/parca/* "$corpus"/generated/* 2>/dev/null | grep -v SOURCES.txt)
[ -n "$files" ] || skip_all "no corpus"
if [ -n "$gen" ] && [ -x "$gen" ]; then
    "$gen" --preset deep --seed 7 -o "$work/deep.pb" 2>/dev/null && files="$files $work/deep.pb"
    "$gen" --preset labels --seed 3 -o "$work/labels.pb" 2>/dev/null && files="$files $work/labels.pb"
fi
peek_rx='main|Serve|alloc|e$'
for f in $files; do
    b=$(basename "$f")
    for fmt in $formats; do
        # The generated shapes (corpus/real/generated) are call graphs no real program has:
        # java-alloc's workers all call each other, and dot's layout of that graph runs for many
        # minutes under Go and here alike. Their dot text is compared; the drawing is left to the
        # real profiles. (One of them also has names that are not UTF-8, which reach Go's dot as
        # raw bytes drawn as Latin-1, where our SVG is UTF-8 XML: docs/report.md.)
        case $f in */generated/*) [ "$fmt" = svg ] && continue ;; esac
        check "$b" "$f" "$fmt"
        # -mean on a heap profile with labels (a count first, bytes after; dot's tags): the
        # other profiles were checked by hand (docs/report.md), go-top.sh keeps top on all
        case $b in query-alloc_space_delta.pb.gz) check "$b" "$f" "$fmt" -mean ;; esac
        [ "${GO_REPORT_QUICK:-0}" = 1 ] && continue
        check "$b" "$f" "$fmt" -cum
        check "$b" "$f" "$fmt" -nodecount=10
        check "$b" "$f" "$fmt" -focus=e
        check "$b" "$f" "$fmt" -lines
        check "$b" "$f" "$fmt" -sample_index=0
    done
done
echo "1..$n"
[ $fail -eq 0 ]
