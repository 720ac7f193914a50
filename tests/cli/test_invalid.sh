#!/bin/sh
# Invalid profiles through the tools: convert refuses (unless --no-check), dump lists and says
# why; pprof-merge --files-from lists (-0, NUL bytes); pprof-check's severities, summary, SARIF
# notifications and --fix output errors.
# Usage: test_invalid.sh PPROF-CONVERT PPROF-DUMP PPROF-CHECK PPROF-MERGE
conv=$1
dump=$2
check=$3
merge=$4
. "$(dirname "$0")/tap.sh"
# bin HEX...: the bytes
bin() {
    for h in $*; do
        printf "\\$(printf %03o "0x$h")"
    done
}
types="0a 04 08 01 10 02"               # sample_type {type: "cpu", unit: "ns"}
strings="32 00 32 03 63 70 75 32 02 6e 73" # "", "cpu", "ns"
loc1="22 04 08 01 18 10"                # location {id: 1, address: 0x10}
sample="12 04 08 01 10 05"              # sample {location_id: 1, value: 5}
bin $types $sample $loc1 $strings >"$tmp/good.pb"
bin $types "12 04 08 02 10 05" $loc1 $strings >"$tmp/missing-location.pb"
bin $types "12 06 08 01 12 02 05 06" $loc1 $strings >"$tmp/value-count.pb"
bin $types "12 04 08 00 10 05" "22 04 08 00 18 10" $strings >"$tmp/zero-id.pb"
bin $types $sample $loc1 "22 04 08 01 18 20" $strings >"$tmp/duplicate-id.pb"
bin $sample $loc1 $strings >"$tmp/no-sample-type.pb"
bin $types $sample $loc1 "2a 04 08 01 10 63" $strings >"$tmp/dangling-string.pb"

# ---- 9. convert refuses what Go refuses, naming the input and the rule; dump says so
run "$conv" "$tmp/good.pb" -o "$tmp/good.out.pb"
expect_rc 0 "a valid profile converts"
for case in "missing-location CV3-sample-location" "value-count CV2-value-count" \
    "zero-id CV4-id-zero" "duplicate-id CV5-duplicate-id" "no-sample-type CV1-no-sample-type" \
    "dangling-string PD1-string-index"; do
    set -- $case
    run "$conv" "$tmp/$1.pb" -o "$tmp/$1.out.pb"
    expect_rc 1 "pprof-convert refuses $1"
    has "$err" "^pprof-convert: [^ ]*/$1\.pb: error: .*\[$2\]" "$1: the input and rule $2 are named"
    [ ! -e "$tmp/$1.out.pb" ]
    ok $? "$1: nothing written"
    run "$dump" "$tmp/$1.pb"
    expect_rc 1 "pprof-dump lists $1 but exits 1"
    has "$out" "^Samples" "$1: the listing is printed"
    has "$err" "$1\.pb: invalid profile: .*\[$2\]" "$1: stderr says why it is invalid"
done
run "$conv" --no-check "$tmp/duplicate-id.pb" -o "$tmp/dup.out.pb"
expect_rc 0 "--no-check passes a broken profile through"
run "$conv" --no-check "$tmp/dangling-string.pb" -o "$tmp/dangling.out.pb"
expect_rc 1 "--no-check: a dangling string cannot be written"
has "$err" "dangling-string\.pb: error: function" "the dangling string is blamed on the input"
if printf '%s' "$err" | grep -q "dangling\.out\.pb"; then
    ok 1 "the output is not blamed"
else
    ok 0 "the output is not blamed"
fi
run "$dump" "$tmp/good.pb"
expect_rc 0 "pprof-dump of a valid profile: exit 0"
[ -z "$err" ]
ok $? "and nothing on stderr"
done_testing
