#!/bin/sh
# Errors name the right thing (issue 25): the file at fault, never the output, with its own
# types and its own string table size.
# Usage: test_blame.sh PPROF-DIFF PPROF-CONVERT PPROF-EDIT
diff=$1
conv=$2
edit=$3
. "$(dirname "$0")/tap.sh"
root="${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}"
# bin HEX...: the bytes
bin() {
    for h in $*; do
        printf "\\$(printf %03o "0x$h")"
    done
}
# cpu.pb: one sample type cpu/ns; samples.pb: samples/count with period type cpu/nanoseconds
bin "0a 04 08 01 10 02" "12 04 08 01 10 05" "22 04 08 01 18 10" \
    "32 00 32 03 63 70 75 32 02 6e 73" >"$tmp/cpu.pb"
cp "$root/corpus/check/y_std.pb" "$tmp/samples.pb"
# lacks NAME: no error line names NAME
lacks() {
    if printf '%s' "$err" | grep -q -- "$1"; then ok 1 "$2"; else ok 0 "$2"; fi
}

# ---- pprof-diff A B -o OUT: a mismatch names the inputs' side, not OUT
run "$diff" "$tmp/samples.pb" "$tmp/cpu.pb" -o "$tmp/out.pb"
expect_rc 1 "diff -o OUT of profiles with different sample types"
has "$err" "^pprof-diff: [^ ]*/cpu\.pb: error: .*NEW has cpu/ns, BASE has samples/count" \
    "diff -o: the mismatch names the file compared (NEW) and both files' types"
lacks "out\.pb" "diff -o: the output is not blamed for a mismatch"
[ ! -e "$tmp/out.pb" ]
ok $? "diff -o: nothing written"

# ---- --sample-type T: the file without T is named, with its own types
for o in "" "-o $tmp/out.pb"; do
    run "$diff" "$tmp/samples.pb" "$tmp/cpu.pb" --sample-type cpu $o
    expect_rc 2 "diff samples cpu --sample-type cpu $o"
    has "$err" "^pprof-diff: [^ ]*/samples\.pb: error: .*must be one of: samples( |\$|\[)" \
        "the first file, which lacks cpu, is named with its own types $o"
    lacks "cpu\.pb: error" "the second file is not blamed $o"
    run "$diff" "$tmp/cpu.pb" "$tmp/samples.pb" --sample-type cpu $o
    expect_rc 2 "diff cpu samples --sample-type cpu $o"
    has "$err" "^pprof-diff: [^ ]*/samples\.pb: error: .*must be one of: samples( |\$|\[)" \
        "the second file, which lacks cpu, is named with its own types $o"
    lacks "cpu\.pb: error" "the first file is not blamed $o"
    lacks "out\.pb" "the output is not blamed $o"
done

# ---- --to=folded: what the writer refuses is the input's fault
"$edit" "$tmp/samples.pb" --scale -1 -o "$tmp/negative.pb" 2>/dev/null
for o in "-o $tmp/out.txt" ""; do
    run "$conv" --to=folded "$tmp/negative.pb" $o
    expect_rc 1 "--to=folded of negative values $o"
    has "$err" "^pprof-convert: [^ ]*/negative\.pb: error: " "--to=folded names the input $o"
    lacks "out\.txt|<stdout>" "--to=folded does not blame the output $o"
done
run "$conv" --to=folded "$root/corpus/invalid/CV5-duplicate-id.function.pb" -o "$tmp/out.txt"
has "$err" "^pprof-convert: [^ ]*/CV5-duplicate-id\.function\.pb: error: .*\[CV5-duplicate-id\]" \
    "--to=folded names the input of an invalid profile, with the rule"

# ---- a dangling string index is measured against the input's own table (10 strings)
run "$edit" "$root/corpus/invalid/PD1-string-index.comment.pb" --set-label k1=v1 \
    --set-label k2=v2 --set-label k3=v3 --set-label k4=v4 -o "$tmp/out.pb"
expect_rc 1 "a dangling comment with 4 --set-label is refused"
has "$err" "comment\[1\]: string index 13 is out of range: expected 0\.\.9 \(the string table has 10 entries\)" \
    "the input's own table size is given, not one with the edit's strings"
run "$conv" --no-check "$root/corpus/invalid/PD1-string-index.comment.pb" -o "$tmp/out.pb"
has "$err" "PD1-string-index\.comment\.pb: error: comment.*10" \
    "--no-check: the encoder's error too gives the input's table size"
done_testing
