#!/bin/sh
# Invalid profiles through the tools: convert refuses (unless --no-check), dump lists and says
# why; pprof-merge --files-from lists (-0, NUL bytes); pprof-check's severities, summary, SARIF
# notifications and --fix output errors.
# Usage: test_invalid.sh PPROF-CONVERT PPROF-DUMP PPROF-CHECK PPROF-MERGE PPROF-EDIT PPROF-TOP
#        PPROF-DIFF
conv=$1
dump=$2
check=$3
merge=$4
edit=$5
top=$6
diff=$7
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
# ---- 13. --files-from: NUL-separated with -0, a NUL in a list of lines refused
mkdir "$tmp/list dir"
cp "$tmp/good.pb" "$tmp/list dir/a b.pb"
bin $types "12 04 08 01 10 07" $loc1 $strings >"$tmp/list dir/c.pb"
"$merge" -q --compress=none "$tmp/list dir/a b.pb" "$tmp/list dir/c.pb" -o "$tmp/both.pb"
ok $? "merge of the two list entries by name"
printf '%s\0%s\0' "$tmp/list dir/a b.pb" "$tmp/list dir/c.pb" >"$tmp/list0"
run "$merge" -q --compress=none -0 --files-from "$tmp/list0" -o "$tmp/from0.pb"
expect_rc 0 "-0 --files-from LIST"
cmp -s "$tmp/both.pb" "$tmp/from0.pb"
ok $? "-0: both inputs merged"
run "$merge" -q --compress=none --files-from "$tmp/list0" --null -o "$tmp/from0b.pb"
cmp -s "$tmp/both.pb" "$tmp/from0b.pb"
ok $? "--null after --files-from applies too"
run "$merge" -q --compress=none -0 --files-from - -o "$tmp/from0c.pb" <"$tmp/list0"
cmp -s "$tmp/both.pb" "$tmp/from0c.pb"
ok $? "-0 --files-from - reads standard input"
printf '%s\n%s\0junk\n' "$tmp/list dir/a b.pb" "$tmp/list dir/c.pb" >"$tmp/list-nul"
run "$merge" -q --files-from "$tmp/list-nul" -o "$tmp/nul.pb"
expect_rc 2 "a NUL in a newline-separated list is refused"
has "$err" "list-nul:2: a NUL byte" "the list and its line number are named"
[ ! -e "$tmp/nul.pb" ]
ok $? "nothing written"
printf '%s\r\n%s\n' "$tmp/list dir/a b.pb" "$tmp/list dir/c.pb" >"$tmp/list-crlf"
run "$merge" -q --compress=none --files-from "$tmp/list-crlf" -o "$tmp/crlf.pb"
cmp -s "$tmp/both.pb" "$tmp/crlf.pb"
ok $? "newline lists still take CRLF line ends"

# ---- 14. pprof-check: severities shown, per-rule summary, --max-findings, SARIF notifications,
# --fix output errors; pprof-dump errors on the right file
cc="$(dirname "$0")/../../corpus/check"
if [ -f "$cc/i_unused-function.pb" ] && [ -f "$cc/i_address-range.pb" ]; then
    cp "$cc/i_unused-function.pb" "$tmp/note.pb"
    cp "$cc/i_address-range.pb" "$tmp/warning.pb"
    run "$check" "$tmp/note.pb" "$tmp/warning.pb"
    expect_rc 0 "pprof-check: a note and a warning, exit 0"
    if printf '%s' "$out" | grep -q ': note: '; then ok 1 "notes are hidden by default"; else ok 0 "notes are hidden by default"; fi
    has "$out" 'warning\.pb: warning: .*\[S4-address-range\]' "warnings are shown by default"
    has "$out" '1 note \(1 below --min-severity=warning not shown\)' "the summary counts the hidden note"
    has "$out" '^  S7-unused-function +note +1 \(not shown\)$' "per-rule count of the hidden rule"
    has "$out" '^  S4-address-range +warning +1$' "per-rule count of the shown rule"
    run "$check" --max-findings 1 "$tmp/note.pb" "$tmp/warning.pb"
    has "$out" 'warning\.pb: warning: .*\[S4-address-range\]' "a hidden note does not push the warning out of --max-findings 1"
    run "$check" --min-severity=note "$tmp/note.pb" "$tmp/warning.pb"
    has "$out" 'note\.pb: note: .*\[S7-unused-function\]' "--min-severity=note shows notes"
    run "$check" --min-severity=error "$tmp/note.pb" "$tmp/warning.pb"
    if printf '%s' "$out" | grep -q ': warning: '; then ok 1 "--min-severity=error hides warnings"; else ok 0 "--min-severity=error hides warnings"; fi
    run "$check" --fail-on=note "$tmp/note.pb"
    expect_rc 1 "--fail-on=note fails on a hidden note"
    run "$check" --min-severity=bogus "$tmp/note.pb"
    expect_rc 2 "bad --min-severity"
    run "$check" --format=json "$tmp/note.pb"
    has "$out" '"hidden": 1' "json: the hidden count"
    has "$out" '"by_rule": \{"S7-unused-function": 1\}' "json: per-rule counts"
else
    skip "pprof-check severities" "no corpus/check"
fi
abs_check=$(cd "$(dirname "$check")" && pwd)/$(basename "$check")
(
    cd "$tmp" || exit 1
    "$abs_check" --format=sarif good.pb missing.pb "$tmp/list dir/c.pb" /nonexistent/x.pb >sarif.json 2>/dev/null
)
grep -q '"toolExecutionNotifications": \[' "$tmp/sarif.json" &&
    grep -q '"level": "error", "message": {"text": "cannot read the profile: cannot open: No such file or directory \[PPROF_E_IO\]"}, "locations": \[{"physicalLocation": {"artifactLocation": {"uri": "missing.pb", "uriBaseId": "CWD"}}}\]' "$tmp/sarif.json"
ok $? "SARIF: an unreadable file is a tool execution notification with a URI relative to the cwd"
grep -q '"uri": "file:///nonexistent/x.pb"' "$tmp/sarif.json"
ok $? "SARIF: a file outside the cwd gets an absolute file: URI"
grep -q '"uri": "list%20dir/c.pb", "uriBaseId": "CWD"' "$tmp/sarif.json"
ok $? "SARIF: an absolute path inside the cwd becomes relative, percent-encoded"
grep -q '"executionSuccessful": false' "$tmp/sarif.json"
ok $? "SARIF: the invocation is marked unsuccessful"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/sarif.json"
    ok $? "SARIF: valid JSON"
fi
run "$check" --fix "$tmp/duplicate-id.pb" -o "$tmp/no/such/dir/fixed.pb"
expect_rc 3 "pprof-check --fix to an unwritable output"
has "$err" "no/such/dir/fixed\.pb: error: .*\[PPROF_E_IO\]" "--fix: the output is named when it fails"
if printf '%s' "$err" | grep -q "duplicate-id\.pb: error"; then ok 1 "--fix: the input is not blamed"; else ok 0 "--fix: the input is not blamed"; fi
"$check" --fix "$tmp/duplicate-id.pb" -o /dev/stdout --compress=none >"$tmp/fix-stdout.pb" 2>/dev/null
"$check" "$tmp/fix-stdout.pb" >/dev/null 2>&1
ok $? "--fix -o /dev/stdout: only the profile goes to standard output, the counts to stderr"
printf 'not a profile\n' >"$tmp/text.txt"
run "$dump" "$tmp/text.txt"
expect_rc 1 "pprof-dump of a text file"
if printf '%s' "$err" | grep -q "<stdout>"; then ok 1 "pprof-dump: a reading error is not blamed on <stdout>"; else ok 0 "pprof-dump: a reading error is not blamed on <stdout>"; fi
has "$err" "text\.txt: error:" "pprof-dump: the input is named"

# ---- the other tools that read and write profiles share the same output rules
run "$edit" "$tmp/duplicate-id.pb" -o "$tmp/edited.pb"
expect_rc 1 "pprof-edit refuses a profile Go refuses"
has "$err" "duplicate-id\.pb: error: .*\[CV5-duplicate-id\]" "pprof-edit names the input and the rule"
run "$edit" "$tmp/good.pb" -o "$tmp/edited.zst"
[ $rc -eq 0 ] && [ "$(od -An -tx1 -N4 "$tmp/edited.zst" | tr -d ' ')" = 28b52ffd ]
ok $? "pprof-edit -o X.zst writes zstd"
run "$diff" "$tmp/good.pb" "$tmp/good.pb" -o "$tmp/diff.pb"
[ $rc -eq 0 ] && [ "$(od -An -tx1 -N2 "$tmp/diff.pb" | tr -d ' ')" != 1f8b ]
ok $? "pprof-diff -o X.pb writes uncompressed protobuf"
cp "$tmp/good.pb" "$tmp/top-in.pb"
run "$top" "$tmp/top-in.pb" -o "$tmp/top-in.pb"
expect_rc 2 "pprof-top refuses to write its listing over the input"
cmp -s "$tmp/good.pb" "$tmp/top-in.pb"
ok $? "and the input is intact"
if [ -c /dev/full ]; then
    for t in "$top" "$diff"; do
        if [ "$t" = "$diff" ]; then
            "$t" "$tmp/good.pb" "$tmp/good.pb" >/dev/full 2>/dev/null
        else
            "$t" "$tmp/good.pb" >/dev/full 2>/dev/null
        fi
        ok $(($? != 3)) "$(basename "$t") >/dev/full: exit 3"
    done
    "$edit" --help >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-edit --help >/dev/full: exit 3"
fi

done_testing
