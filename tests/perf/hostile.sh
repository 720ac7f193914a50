#!/bin/sh
# pprof-from-perf on inputs that must be refused, not read into a wrong profile (issue 40):
# numbers of perf script text past their range, a perf.data record size that breaks the record
# stream (told apart from a truncated file), samples of an attr whose sample_type is 0.
# usage: hostile.sh PPROF-FROM-PERF
set -u
conv=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
corpus=${PPROF_SOURCE_ROOT:-$here/../..}/corpus/perf

# script LINES...: a perf script text of those lines in $tmp/in.txt
script() {
    printf '%s\n' "$@" >"$tmp/in.txt"
}

for p in 99999999999999999999 9223372036854775808; do
    script "prog 100 [001] 10.5: $p cpu-clock:" "	400100 main (/bin/prog)" ""
    run "$conv" "$tmp/in.txt" -o "$tmp/out.pb"
    expect_rc 1 "period $p"
    has "$err" "line 1: period $p is past .*PPROF_E_OVERFLOW" "period $p: an overflow error naming the line"
done
script "prog 100 [001] 10.5: 9223372036854775807 cpu-clock:" "	400100 main (/bin/prog)" ""
run "$conv" "$tmp/in.txt" -o "$tmp/out.pb"
expect_rc 0 "period 2^63-1 (the largest) is read"

# every other number of a header or frame line, through the same checked parser
check_field() { # FIELD LINE-NUMBER LINES...
    f=$1 n=$2
    shift 2
    script "$@"
    run "$conv" "$tmp/in.txt" -o "$tmp/out.pb"
    expect_rc 1 "$f past its range"
    has "$err" "line $n: $f [0-9a-f]+ is past .*PPROF_E_OVERFLOW" "$f: an overflow error naming line $n"
}
check_field pid 1 "prog 99999999999999999999 10.5: cpu-clock:" "	400100 main (/bin/prog)"
check_field tid 1 "prog 1/18446744073709551616 10.5: cpu-clock:" "	400100 main (/bin/prog)"
check_field cpu 1 "prog 1 [9223372036854775808] 10.5: cpu-clock:" "	400100 main (/bin/prog)"
check_field time 1 "prog 1 99999999999999999999.5: cpu-clock:" "	400100 main (/bin/prog)"
check_field address 3 "prog 1 10.5: cpu-clock:" "	400100 main (/bin/prog)" \
    "	10000000000000000 f (/bin/prog)"
check_field address 1 "prog 1 10.5: cpu-clock: 1ffffffffffffffff f (/bin/prog)"

# a record whose size is 8: the walk goes on inside it and meets a record longer than the rest of
# the data section, which lies whole in the file: an error naming where the stream broke
run "$conv" "$corpus/n-record-tile.perf" -o "$tmp/out.pb"
expect_rc 1 "a record size that breaks the record stream (crafted)"
has "$err" "record at byte 288 .*data section ends" "the error names the offset, not a truncated file"
# the same in a real recording: the SAMPLE at byte 1128 of true-two-events.data (136 bytes)
# given size 8 was read as 1 sample of an unknown id and "3808 bytes at the end cut off
# (truncated file)", exit 0
cp "$corpus/true-two-events.data" "$tmp/rs.data"
printf '\010\000' | dd of="$tmp/rs.data" bs=1 seek=$((1128 + 6)) conv=notrunc 2>/dev/null
run "$conv" "$tmp/rs.data" -o "$tmp/out.pb"
expect_rc 1 "true-two-events.data with a sample's size set to 8"
has "$err" "record at byte 1136 needs 65535 bytes but the data section ends 3808 bytes after it" \
    "the error names where the record stream broke"
if printf '%s' "$err" | grep -q "truncated"; then ok 1 "not called a truncated file"; else ok 0 "not called a truncated file"; fi
# a genuinely cut file (its data section runs past the end; no feature bits, as their sections
# are gone) is still read, with a warning
data=$(od -An -tu8 -j40 -N8 "$corpus/threads.data" | tr -d ' ')
head -c $((data + 1000)) "$corpus/threads.data" >"$tmp/cut.data"
dd if=/dev/zero of="$tmp/cut.data" bs=1 seek=72 count=32 conv=notrunc 2>/dev/null
run "$conv" "$tmp/cut.data" -o "$tmp/out.pb"
expect_rc 0 "a file cut in its data section is read"
has "$err" "truncated file" "and its warning says truncated"

# an AUXTRACE payload past the end of a whole data section (file mode); in pipe mode the
# stream may end anywhere, so there it is a truncated file
run "$conv" "$corpus/n-auxtrace-file.perf" -o "$tmp/out.pb"
expect_rc 1 "file mode: a payload past the end of the data section"
has "$err" "payload after a record at byte 232 needs 4096 bytes" "the error names the payload's offset and size"
run "$conv" "$corpus/n-auxtrace.perf" -o "$tmp/out.pb"
expect_rc 0 "pipe mode: the same payload cut by the end of the stream"
has "$err" "truncated file" "is a truncated file"

run "$conv" "$corpus/n-lost-short.perf" -o "$tmp/out.pb"
expect_rc 1 "a LOST record shorter than its fields"
has "$err" "record of type 2 at byte 160 has size 16, less than the 24" "the error names the type, byte and sizes"

run "$conv" "$corpus/n-sample-type0.perf" -o "$tmp/out.pb"
expect_rc 1 "samples of an attr with sample_type 0"
has "$err" "attr 0 \(at byte 112, sample_type 0x0\)" "the error names the attr and its offset"
done_testing
