#!/bin/sh
# What every tool that writes a profile refuses (issue 16 items 7, 8, 11, 14): a non-empty
# string_table[0], concatenated profiles (raw and gzip), text, a gzip of zeros, a truncated gzip;
# while pprof-check reports the first two as findings with their rule and pprof-dump lists them.
# Usage: test_refusals.sh PPROF-CONVERT PPROF-MERGE PPROF-EDIT PPROF-CHECK PPROF-DUMP
conv=$1
merge=$2
edit=$3
check=$4
dump=$5
. "$(dirname "$0")/tap.sh"
corpus="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}"
src="$corpus/parca/query-single-stack.pb.gz"
if [ ! -f "$src" ]; then
    skip_all "no corpus file $src"
fi
gzip -dc "$src" >"$tmp/one.pb"
cat "$tmp/one.pb" "$tmp/one.pb" >"$tmp/cat.pb"
cat "$src" "$src" >"$tmp/cat.pb.gz"
# string_table[0] = "x" in front of the profile's own table
printf '\062\001x' | cat - "$tmp/one.pb" >"$tmp/s0.pb"
printf 'hello world, this is text\n' >"$tmp/text.txt"
head -c 4000000 /dev/zero | gzip -c >"$tmp/zeros.gz"
size=$(wc -c <"$src")
head -c $((size - 10)) "$src" >"$tmp/cut.pb.gz"

refused() { # FILE PATTERN WHAT
    run "$conv" "$1" -o "$tmp/out.pb.gz"
    expect_rc 1 "convert refuses $3"
    has "$err" "$2" "convert says why: $3"
    [ ! -e "$tmp/out.pb.gz" ]
    ok $? "convert writes nothing for $3"
    run "$merge" "$1" "$src" -o "$tmp/out.pb.gz"
    expect_rc 1 "merge refuses $3"
    has "$err" "$2" "merge says why: $3"
    run "$edit" "$1" -o "$tmp/out.pb.gz"
    expect_rc 1 "edit refuses $3"
    has "$err" "$2" "edit says why: $3"
}
refused "$tmp/s0.pb" "string_table\[0\] must be '' but holds \"x\" \(rule W6-string-table-0\)" \
    "a non-empty string_table[0]"
refused "$tmp/cat.pb" "concatenated profiles detected.*\(byte 1392\)" "two raw profiles back to back"
refused "$tmp/cat.pb.gz" "concatenated profiles detected.*\(byte 1392\)" "two gzip profiles back to back"
refused "$tmp/text.txt" "not a pprof profile \(no protobuf structure at byte 2\)" "a text file"
refused "$tmp/zeros.gz" "not a pprof profile \(no protobuf structure at byte 0\)" "a gzip of zeros"
refused "$tmp/cut.pb.gz" "truncated gzip data" "a truncated gzip file"
run "$merge" "$tmp/cat.pb" "$src" -o "$tmp/out.pb.gz"
printf '%s' "$err" | grep -q "another mapping has id"
[ $? -ne 0 ]
ok $? "merge no longer blames a duplicate mapping id for concatenated profiles"

run "$check" "$tmp/s0.pb"
expect_rc 1 "check reports a non-empty string_table[0]"
has "$out" "\[W6-string-table-0\]" "as a finding of W6-string-table-0"
run "$check" "$tmp/cat.pb.gz"
expect_rc 1 "check reports concatenated profiles"
has "$out" "\[W8-concatenated\]" "as a finding of W8-concatenated"
run "$dump" "$tmp/s0.pb"
has "$out" "main|cpu|samples" "dump still lists a profile with a non-empty string_table[0]"
run "$dump" "$tmp/cat.pb.gz"
has "$out" "Time:" "dump still lists concatenated profiles"
done_testing
