#!/bin/sh
# The habits of pprof users (issue 31): Go's single-dash flag spellings, Go's "matched no
# samples" warnings, one compression-level range per format and one default level, --fix capped as the check is.
# Usage: test_habits.sh PPROF-TOP PPROF-EDIT PPROF-DIFF PPROF-CONVERT PPROF-MERGE PPROF-CHECK
#        PPROF-FLAME
top=$1
edit=$2
diff=$3
conv=$4
merge=$5
check=$6
flame=$7
. "$(dirname "$0")/tap.sh"
root="${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}"
ex=$root/corpus/examples
cpu=$ex/parca-labels.pb.gz
heap_a=$ex/query-many-1644509272337470000.pb.gz
heap_b=$ex/query-many-1644509296350592000.pb.gz

# ---- Go's spellings give what the double-dash spellings give
run "$top" --cum --nodecount 7 --focus 'parca' "$cpu"
want=$out
expect_rc 0 "top --cum --nodecount 7 --focus"
run "$top" -cum -nodecount=7 -focus=parca "$cpu"
expect_rc 0 "top -cum -nodecount=7 -focus=parca (Go's spellings)"
[ "$out" = "$want" ]
ok $? "top: Go's spellings print the same report as ours"
run "$top" -cum -nodecount 7 -focus parca "$cpu"
[ "$out" = "$want" ]
ok $? "top: Go's spellings with the value as the next argument"
case "$want" in *"Showing top 7 nodes"*) ok 0 "the options took effect (7 nodes)" ;;
*) ok 1 "the options took effect (7 nodes)" ;; esac
if command -v go >/dev/null 2>&1; then
    go_out=$(go tool pprof -top -cum -nodecount=7 -focus=parca "$cpu" 2>/dev/null)
    [ "$go_out" = "$want" ]
    ok $? "top -cum -nodecount=7 -focus=parca prints what go tool pprof prints"
else
    skip "top against go tool pprof" "go is not installed"
fi
run "$top" -sample_index=alloc_space -nodecount=3 "$heap_b"
has "$out" "^Type: alloc_space" "top -sample_index=NAME picks the sample type"
run "$top" --sample-index alloc_space -nodecount=3 -lines "$heap_b"
want=$out
run "$top" -sample_index alloc_space -nodecount=3 --granularity=lines "$heap_b"
[ "$out" = "$want" ]
ok $? "top -lines is --granularity=lines"
run "$top" --cum -flat -nodecount=5 "$cpu"
want=$out
run "$top" -nodecount=5 "$cpu"
[ "$out" = "$want" ]
ok $? "top -flat after -cum is the default order"
run "$top" -nosuchflag "$cpu"
expect_rc 2 "top -nosuchflag is refused"
run "$top" -nodecount=x "$cpu"
expect_rc 2 "top -nodecount=x is refused"
has "$err" "nodecount takes a number" "the refusal names the option"

run "$edit" --focus parca --show_from 'main' -o "$tmp/a.pb.gz" "$cpu"
run "$edit" -focus=parca -show_from=main -o "$tmp/b.pb.gz" "$cpu"
expect_rc 0 "edit -focus=RX -show_from=RX"
cmp -s "$tmp/a.pb.gz" "$tmp/b.pb.gz"
ok $? "edit: Go's spellings write the same bytes"

run "$diff" -nodecount=4 "$heap_a" "$heap_b"
want=$out
run "$diff" -nodecount=4 -diff_base="$heap_a" "$heap_b"
expect_rc 0 "diff -diff_base=BASE NEW"
[ "$out" = "$want" ]
ok $? "diff -diff_base=BASE NEW is diff BASE NEW"
run "$diff" -diff_base "$heap_a" "$heap_a" "$heap_b"
expect_rc 2 "diff -diff_base with two more files is refused"
run "$diff" -sample_index=inuse_space -nodecount=4 "$heap_a" "$heap_b"
has "$out" "^Type: inuse_space" "diff -sample_index=NAME"
has "$out" "MB" "diff prints bytes with Go's unit scaling (MB)"

# ---- Go's warnings when a filter matches nothing
for t in top diff flame; do
    case $t in
    top) run "$top" -focus=no_such_function_zz "$cpu" ;;
    diff) run "$diff" -focus=no_such_function_zz "$heap_a" "$heap_b" ;;
    flame) run "$flame" --focus no_such_function_zz --format=json -o "$tmp/f.json" "$cpu" ;;
    esac
    has "$err" "warning: Focus expression matched no samples" "$t: a focus matching nothing is warned"
done
run "$top" -focus=parca "$cpu"
printf '%s' "$err" | grep -q "matched no samples"
[ $? -ne 0 ]
ok $? "top: a focus that matches is not warned"

# ---- compression levels: one range per format
for t in conv merge edit; do
    eval "tool=\$$t"
    run "$tool" --level 13 -o "$tmp/l.pb.gz" "$cpu"
    expect_rc 2 "$t --level 13 for gzip"
    has "$err" "gzip compression level 13 is outside 1-12" "$t: the message names gzip's range"
done
run "$conv" --level 12 -o "$tmp/l.pb.gz" "$cpu"
expect_rc 0 "convert --level 12 for gzip"
run "$conv" --level 22 --compress=zstd -o "$tmp/l.pb.zst" "$cpu"
expect_rc 0 "convert --level 22 for zstd"
run "$conv" --level 23 --compress=zstd -o "$tmp/l.pb.zst" "$cpu"
expect_rc 2 "convert --level 23 for zstd"
has "$err" "zstd compression level 23 is outside 1-22" "convert: the message names zstd's range"
run "$conv" --level 3 -o "$tmp/l.pb" "$cpu"
expect_rc 2 "convert --level for an uncompressed output"
[ ! -e "$tmp/l.pb" ]
ok $? "nothing is written after a refused --level"

# ---- one default gzip level for every tool: convert, edit and merge of one input write the
# bytes of --level 1 (and not those of level 6)
"$conv" --compress=none -o "$tmp/one.pb" "$cpu"
"$conv" --level 1 -o "$tmp/lv1.pb.gz" "$tmp/one.pb"
"$conv" --level 6 -o "$tmp/lv6.pb.gz" "$tmp/one.pb"
! cmp -s "$tmp/lv1.pb.gz" "$tmp/lv6.pb.gz"
ok $? "levels 1 and 6 give different bytes (the comparisons below can fail)"
"$conv" -o "$tmp/dconv.pb.gz" "$tmp/one.pb"
cmp -s "$tmp/dconv.pb.gz" "$tmp/lv1.pb.gz"
ok $? "convert's default gzip level is 1"
"$edit" -o "$tmp/dedit.pb.gz" "$tmp/one.pb"
"$edit" --level 1 -o "$tmp/edit1.pb.gz" "$tmp/one.pb"
cmp -s "$tmp/dedit.pb.gz" "$tmp/edit1.pb.gz"
ok $? "edit's default gzip level is 1"
"$merge" -o "$tmp/dmerge.pb.gz" "$tmp/one.pb"
"$merge" --level 1 -o "$tmp/merge1.pb.gz" "$tmp/one.pb"
cmp -s "$tmp/dmerge.pb.gz" "$tmp/merge1.pb.gz"
ok $? "merge's default gzip level is 1"

# ---- --fix shows at most --max-findings findings, as the check does
bad=$root/corpus/invalid/CV5-duplicate-id.concatenated-without-time.pb
run "$check" --fix --max-findings 1 -o "$tmp/fixed.pb.gz" "$bad"
expect_rc 0 "check --fix --max-findings 1"
n=$(printf '%s\n' "$out" | grep -c ": error: ")
[ "$n" -eq 1 ]
ok $? "check --fix prints one finding with --max-findings 1 (printed $n)"
has "$out" "fixes written to" "check --fix still says what it fixed"

done_testing
