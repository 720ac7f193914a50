#!/bin/sh
# pprof-merge command line: exit codes, --files-from, stdin, order independence of the output
# bytes, atomic output, --inline-conflict parsing. TAP.
# Usage: cli.sh PPROF_MERGE
set -u
. "$(dirname "$0")/../tap.sh"
merge=$1
corpus=${PPROF_REAL_CORPUS:-$(dirname "$0")/../../corpus/real}
work=$(mktemp -d "${TMPDIR:-/tmp}/merge-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
fail=0
t() { # expected-exit description command...
    want=$1; desc=$2; shift 2
    n=$((n + 1))
    "$@" > "$work/out" 2> "$work/err"
    got=$?
    if [ "$got" -eq "$want" ]; then
        echo "ok $n - $desc (exit $got)"
    else
        echo "not ok $n - $desc: exit $got, expected $want"
        sed 's/^/# /' "$work/err" | head -5
        fail=$((fail + 1))
    fi
}
many=$(ls "$corpus"/parca/query-many-* 2>/dev/null)
[ -n "$many" ] || skip_all "corpus not found"
first=$(echo "$many" | head -1)

t 0 "--help" "$merge" --help
t 0 "--version" "$merge" --version
t 2 "no input is a usage error" "$merge"
t 2 "unknown option" "$merge" --bogus "$first"
t 2 "bad --inline-conflict" "$merge" --inline-conflict=maybe "$first"
t 2 "bad -j" "$merge" -j 0 "$first"
t 2 "stdin twice" "$merge" - - 
t 3 "missing input file" "$merge" -q -o "$work/x.pb.gz" "$work/does-not-exist.pb.gz"
# shellcheck disable=SC2086
t 0 "merge the query-many profiles" "$merge" -q -o "$work/a.pb.gz" $many
echo "$many" | sort -r > "$work/list"
t 0 "--files-from in reverse order, one thread" "$merge" -q -j 1 --files-from "$work/list" -o "$work/b.pb.gz"
n=$((n + 1))
if cmp -s "$work/a.pb.gz" "$work/b.pb.gz"; then echo "ok $n - same bytes for any input order and -j"; else echo "not ok $n - outputs differ"; fail=$((fail + 1)); fi
t 0 "--files-from - (stdin)" sh -c "\"$merge\" -q --files-from - -o \"$work/c.pb.gz\" < \"$work/list\""
n=$((n + 1))
if cmp -s "$work/a.pb.gz" "$work/c.pb.gz"; then echo "ok $n - stdin list gives the same bytes"; else echo "not ok $n - stdin list differs"; fail=$((fail + 1)); fi
t 0 "input from stdin, raw output to stdout" sh -c "\"$merge\" -q --compress=none - < \"$first\" > \"$work/d.pb\""
n=$((n + 1))
if [ "$(head -c 1 "$work/d.pb" | od -An -tx1 | tr -d ' ')" = "0a" ]; then echo "ok $n - --compress=none writes raw protobuf"; else echo "not ok $n - not raw protobuf"; fail=$((fail + 1)); fi
cp "$work/a.pb.gz" "$work/keep.pb.gz"
fib=$corpus/parca/query-fib.pb.gz
t 1 "incompatible inputs exit 1" "$merge" -q -o "$work/keep.pb.gz" "$first" "$fib"
n=$((n + 1))
if grep -q "$(basename "$fib")" "$work/err" && grep -q "$(basename "$first")" "$work/err"; then
    echo "ok $n - the message names both files"
else
    echo "not ok $n - the message does not name both files"; fail=$((fail + 1))
fi
n=$((n + 1))
if cmp -s "$work/a.pb.gz" "$work/keep.pb.gz"; then echo "ok $n - a failed merge leaves the old output intact"; else echo "not ok $n - output clobbered"; fail=$((fail + 1)); fi
echo "1..$n"
[ $fail -eq 0 ]
