#!/bin/sh
# pprof-diff -o against `go tool pprof -proto -diff_base BASE NEW` (and -normalize): the
# canonical semantic forms (tests/merge/goref) must be equal; and pprof-top of the diff profile
# must print what go tool pprof -top prints for it. Skips (TAP: 1..0 # SKIP, exit 0) without Go.
# Usage: go-diff.sh PPROF_DIFF PPROF_TOP
set -u
. "$(dirname "$0")/../tap.sh"
diff=$1 top=$2
gen=${PPROF_BUILD_ROOT:-}/bench/pprof-gen
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
command -v go >/dev/null 2>&1 || skip_all "go not found"
[ -d /usr/share/gocode/src/github.com/google/pprof/profile ] || skip_all "no google/pprof Go package"
work=$(mktemp -d "${TMPDIR:-/tmp}/go-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TZ=UTC
goref=$work/goref
(cd "$src/tests/merge/goref" && GOPATH=/usr/share/gocode GO111MODULE=off \
    GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS= go build -o "$goref" .) || { echo "Bail out! goref build failed"; exit 1; }
n=0
fail=0
pair() { # NAME BASE NEW [--normalize] [GO_FILTER OUR_FILTER...]
    name=$1 b=$2 c=$3 norm=${4:-} gof=${5:-}
    shift 3; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift
    ourf="$*"
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! go tool pprof -symbolize=none -proto ${norm:+-normalize} $gof -diff_base "$b" "$c" > "$work/go.pb.gz" 2> "$work/go.err"; then
        echo "ok $n - $name $norm: Go rejects the pair # SKIP $(head -c 100 "$work/go.err" | tr '\n' ' ')"
        return
    fi
    # shellcheck disable=SC2086
    if ! "$diff" -q $norm $ourf -o "$work/ours.pb.gz" "$b" "$c" 2> "$work/ours.err"; then
        echo "not ok $n - $name $norm: pprof-diff failed: $(head -c 300 "$work/ours.err")"
        fail=$((fail + 1))
        return
    fi
    "$goref" canon "$work/go.pb.gz" > "$work/go.txt"
    "$goref" canon "$work/ours.pb.gz" > "$work/ours.txt"
    if cmp -s "$work/go.txt" "$work/ours.txt"; then
        echo "ok $n - $name $norm: diff profile equal ($(wc -l < "$work/go.txt") canonical lines)"
    else
        echo "not ok $n - $name $norm: diff profiles differ"
        diff "$work/go.txt" "$work/ours.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
    case $name in generated*) return ;; esac # Go's -top on the large diff profiles is slow
    n=$((n + 1))
    # from "Type:" on: the merger orders mappings and comments canonically (docs/merge.md), so
    # File:, Build ID: and comment lines may name another input's than Go's
    go tool pprof -symbolize=none -top -nodecount=30 "$work/go.pb.gz" 2>/dev/null | sed -n '/^Type:/,$p' > "$work/go-top.txt"
    "$top" -n 30 "$work/ours.pb.gz" | sed -n '/^Type:/,$p' > "$work/ours-top.txt"
    if cmp -s "$work/go-top.txt" "$work/ours-top.txt"; then
        echo "ok $n - $name $norm: top of the diff profile equal"
    else
        echo "not ok $n - $name $norm: top of the diff profile differs"
        diff "$work/go-top.txt" "$work/ours-top.txt" | head -10 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
}
many=$(ls "$corpus"/parca/query-many-* 2>/dev/null)
[ -n "$many" ] || skip_all "no real corpus"
first=$(echo "$many" | head -1)
last=$(echo "$many" | tail -1)
mid=$(echo "$many" | sed -n 5p)
pair "query-many first->last" "$first" "$last"
pair "query-many first->last" "$first" "$last" --normalize
pair "query-many last->mid" "$last" "$mid"
pair "query-many last->mid" "$last" "$mid" --normalize
pair "alloc_objects->alloc_space_delta" "$corpus"/parca/parca-alloc_objects.pb.gz "$corpus"/parca/query-alloc_space_delta.pb.gz
pair "query-many first->last, focus" "$first" "$last" "" -focus=badger --focus badger
pair "same file" "$corpus"/parca/query-fib.pb.gz "$corpus"/parca/query-fib.pb.gz
# heap against allocs of one program: the same four sample types, a different default (issue
# 32): Go diffs them with NEW's default (BASE's when NEW has none); pprof-diff must too.
"$goref" default "" "$first" "$work/heap.pb.gz" && "$goref" default alloc_space "$last" "$work/allocs.pb.gz" &&
    for order in "heap.pb.gz allocs.pb.gz" "allocs.pb.gz heap.pb.gz"; do
        set -- $order
        n=$((n + 1))
        go tool pprof -symbolize=none -top -diff_base "$work/$1" "$work/$2" 2>/dev/null | grep '^Type:' > "$work/go-type.txt"
        if "$diff" -n 3 "$work/$1" "$work/$2" > "$work/ours-diff.txt" 2> "$work/ours.err" &&
            grep '^Type:' "$work/ours-diff.txt" | cmp -s - "$work/go-type.txt" && [ -s "$work/go-type.txt" ]; then
            echo "ok $n - diff $1 $2 (different defaults) compares Go's type: $(cat "$work/go-type.txt")"
        else
            echo "not ok $n - diff $1 $2 (different defaults): Go $(cat "$work/go-type.txt"), ours: $(head -c 200 "$work/ours.err") $(grep '^Type:' "$work/ours-diff.txt")"
            fail=$((fail + 1))
        fi
    done
pair "heap->allocs (defaults differ)" "$work/heap.pb.gz" "$work/allocs.pb.gz"
if [ -x "$gen" ]; then
    "$gen" --preset deep --seed 7 -o "$work/d1.pb" 2>/dev/null &&
        "$gen" --preset deep --seed 7 --host 1 --host-unique-pct 20 -o "$work/d2.pb" 2>/dev/null &&
        pair "generated deep hosts" "$work/d1.pb" "$work/d2.pb" && pair "generated deep hosts" "$work/d1.pb" "$work/d2.pb" --normalize
    "$gen" --preset labels --seed 3 -o "$work/l1.pb" 2>/dev/null &&
        "$gen" --preset labels --seed 4 -o "$work/l2.pb" 2>/dev/null &&
        pair "generated labels" "$work/l1.pb" "$work/l2.pb"
fi
echo "1..$n"
[ $fail -eq 0 ]
