#!/bin/sh
# pprof-top, pprof-diff and pprof-convert's folded stacks from the command line: golden text and
# JSON, every kind of --fail-if rule firing and not firing, incompatible inputs, folded round
# trips (inline frames, recursion, labels, names with ';') and malformed folded input. TAP.
# Usage: cli.sh PPROF_TOP PPROF_DIFF PPROF_CONVERT PPROF_DUMP PPROF_CHECK [--update]
set -u
top=$1 diff=$2 conv=$3 dump=$4 check=$5
update=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
gold=$here/golden
gen=${PPROF_BUILD_ROOT:-}/bench/pprof-gen
work=$(mktemp -d "${TMPDIR:-/tmp}/report-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TZ=UTC
n=0
fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# t WANT_EXIT DESCRIPTION CMD...: runs CMD, output in $work/out and $work/err
t() {
    want=$1 desc=$2
    shift 2
    "$@" > "$work/out" 2> "$work/err"
    got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc (exit $got)"; else flunk "$desc: exit $got, want $want" "$(head -c 400 "$work/err")"; fi
}
# grep_err PATTERN DESCRIPTION: the last command's stderr matches
grep_err() { if grep -Eq -- "$1" "$work/err"; then pass "$2"; else flunk "$2" "stderr: $(head -c 400 "$work/err")"; fi; }
# golden NAME: the last command's stdout equals golden/NAME
golden() {
    if [ "$update" = --update ]; then cp "$work/out" "$gold/$1"; fi
    if cmp -s "$work/out" "$gold/$1"; then pass "golden $1"; else flunk "golden $1 differs" "$(diff "$gold/$1" "$work/out" | head -8)"; fi
}

fib=$data/cpu-fib.pb.gz base=$data/heap-base.pb.gz new=$data/heap-new.pb.gz labels=$data/labels.pb.gz

# ---- pprof-top
t 0 "top --help" "$top" --help
t 2 "top without input" "$top"
t 2 "top unknown granularity" "$top" --granularity nope "$fib"
t 3 "top missing file" "$top" "$work/none.pb.gz"
t 2 "top unknown sample type" "$top" --sample-type nope "$fib"
grep_err "must be one of: samples cpu" "unknown sample type names the types"
t 0 "top text" "$top" -n 12 "$fib"; golden top-fib.txt
t 0 "top text --cum lines" "$top" -n 12 --cum --granularity lines "$fib"; golden top-fib-cum-lines.txt
t 0 "top json" "$top" -n 5 --format=json "$fib"; golden top-fib.json
t 0 "top stdin" sh -c "\"$top\" -n 12 - < \"$fib\""; golden top-fib.txt

# ---- pprof-diff report
t 0 "diff text" "$diff" -n 10 "$base" "$new"; golden diff-heap.txt
t 0 "diff json" "$diff" -n 5 --format=json "$base" "$new"; golden diff-heap.json
t 0 "diff --normalize" "$diff" -n 5 --normalize "$base" "$new"; golden diff-heap-normalize.txt
t 1 "diff of different sample types" "$diff" "$fib" "$new"
grep_err "sample or period types differ from BASE's" "incompatible inputs are named as such"
# a profile of cpu/nanoseconds only, from folded stacks, against fib (samples + cpu)
"$conv" "$fib" --to=folded --sample-type cpu -o "$work/fib.folded"
"$conv" "$work/fib.folded" --from=folded --sample-type cpu/nanoseconds -o "$work/fib-cpu.pb.gz"
t 1 "diff with other types, no --sample-type" "$diff" "$fib" "$work/fib-cpu.pb.gz"
t 0 "diff with --sample-type both have" "$diff" --sample-type cpu --fail-if 'total>0' --fail-if 'total<0' "$fib" "$work/fib-cpu.pb.gz"
t 1 "diff -o with another period type" "$diff" -q --sample-type cpu -o "$work/d.pb.gz" "$fib" "$work/fib-cpu.pb.gz"
grep_err "incompatible period types" "the period types are named"
t 0 "diff with a filter" "$diff" -n 3 --focus 'badger/v3\.Open' "$base" "$new"
if grep -q "base total\|Base total: 0," "$work/out" && ! grep -q "runtime.main$" "$work/out"; then pass "--focus filters both inputs"; else flunk "--focus did not filter" "$(head -5 "$work/out")"; fi
t 0 "top with a filter lists Active filters" "$top" -n 3 --focus flate --hide runtime "$fib"
if grep -q "^Active filters:" "$work/out" && grep -q "^   focus=flate" "$work/out"; then pass "Active filters: listed"; else flunk "no Active filters" "$(head -8 "$work/out")"; fi
t 2 "bad filter regexp" "$top" --focus '(' "$fib"
t 0 "diff -o" "$diff" -o "$work/heap-diff.pb.gz" "$base" "$new"
t 0 "dump diff profile" "$dump" "$work/heap-diff.pb.gz"
if grep -q "pprof::base:\[true\]" "$work/out"; then pass "diff profile labels BASE pprof::base=true"; else flunk "no pprof::base label"; fi
t 0 "top of the diff profile" "$top" -n 5 "$work/heap-diff.pb.gz"; golden top-heap-diff.txt

# ---- the gate: each subject, measure and operator, firing (exit 1) and not (exit 0).
# heap-base -> heap-new: total inuse_space 48928729 -> 143698391 (+193.69%, +94769662).
gate() { # WANT RULE [PATTERN]
    t "$1" "gate '$2'" "$diff" -q --fail-if "$2" "$base" "$new"
    if [ "$1" -eq 1 ]; then grep_err "${3:-rule}" "gate '$2' names rule and node"; fi
}
gate 1 'total>+5%' "rule 'total>\+5%' fired: total went from 48928729 to 143698391"
gate 0 'total>+200%'
gate 1 'total>=193.68%'
gate 0 'total<0%'
gate 1 'total>+100pp'
gate 0 'total>200pp'
gate 1 'total>94769661' "total went from 48928729 to 143698391 bytes"
gate 0 'total>94769662'
gate 0 'total<=-1'
gate 1 'cum:^runtime\.main$>+100%' "rule 'cum:\^runtime\\\\.main\\$>\+100%' fired: cum of runtime.main went from"
gate 0 'cum:^runtime\.main$>+300%'
gate 1 'cum:skl\.NewSkiplist>+2pp' "cum of github.com/dgraph-io/badger/v3/skl.NewSkiplist went from 0 to"
gate 0 'cum:skl\.NewSkiplist>+500pp'
gate 1 'flat:.>1000000' "flat of"
gate 0 'flat:^no such function$>0'
gate 1 'flat:.<-1' "flat of .* went from [0-9]+ to [0-9]+ bytes"
gate 0 'flat:.<-100%'
gate 1 'cum:.<=-100%' "cum of .* to 0 bytes"
t 1 "two rules, one fires" "$diff" -q --fail-if 'total>1000%' --fail-if 'total>+5%' "$base" "$new"
grep_err "total>\+5%" "the rule that fired is named"
if grep -q "total>1000%" "$work/err"; then flunk "a rule that did not fire is named"; else pass "a rule that did not fire is not named"; fi
t 0 "no rule fires when nothing changed" "$diff" -q --fail-if 'total>0' --fail-if 'total<0' --fail-if 'cum:.>0' --fail-if 'flat:.<0' "$new" "$new"
# a location below its mapping's start: --normalize reads NEW through the merger, which keeps
# such an address without its mapping; BASE must be read alike, so a profile differs from
# itself in no node (each line of the table: delta 0 in flat and cum)
below=$data/below-start.pb
t 0 "diff --normalize of a profile with an address below its mapping, against itself" \
    "$diff" --normalize "$below" "$below"
if awk 'NR > 4 && ($3 != 0 || $7 != 0) { bad = 1 } END { exit bad || NR < 5 }' "$work/out"; then
    pass "no node of it differs"
else
    flunk "a node of it differs" "$(cat "$work/out")"
fi
t 0 "the same, by the gate" "$diff" -q --normalize --fail-if 'flat:.>0' --fail-if 'flat:.<0' \
    --fail-if 'cum:.>0' --fail-if 'cum:.<0' "$below" "$below"
# REGEX is Go's syntax (RE2), as every other pattern: (?i), \pL and named groups, on
# cpu-fib (the demo's query-fib) against itself
for rule in 'cum:^main\.calculateFib$>=0' 'cum:(?i)^MAIN\.calculateFib$>=0' \
    'flat:(?P<pkg>fib)\.Fibonacci$>=0' 'cum:^\pL+\.calculateFib$<=0'; do
    t 1 "Go regexp rule '$rule' fires" "$diff" -q --fail-if "$rule" "$fib" "$fib"
    grep_err "fired: (cum|flat) of [^ ]*(main\.calculateFib|fib\.Fibonacci) went from" "rule '$rule' names the node"
done
t 0 "(?i) does not make a rule match what it does not" "$diff" -q --fail-if 'cum:(?i)^MAIN\.nosuch$>=0' "$fib" "$fib"
t 2 "a rule with a regexp Go refuses" "$diff" --fail-if 'cum:a**>0' "$fib" "$fib"
grep_err "rule 'cum:a\*\*>0': not a valid Go regular expression \(invalid nested repetition operator\) at character 5" \
    "a refused regexp gives Go's reason and the character"
for bad in 'total' 'total>' 'total>abc' 'total>5%%' 'sum:x>1' 'cum:(>1' 'cum:>1' 'total>5 pq'; do
    t 2 "malformed rule '$bad'" "$diff" --fail-if "$bad" "$base" "$new"
done
grep_err "rule 'total>5 pq': expected '%', 'pp' or the end at character 9" "a malformed rule points at the character"

# ---- folded out
t 0 "folded fib" "$conv" "$fib" --to=folded; golden folded-fib.txt
t 0 "folded fib --lines" "$conv" "$fib" --to=folded --lines; golden folded-fib-lines.txt
t 0 "folded labels --labels api" "$conv" "$labels" --to=folded --labels api; golden folded-labels.txt
if LC_ALL=C sort -c "$work/out" 2>/dev/null; then pass "folded lines are sorted"; else flunk "folded lines are not sorted"; fi
if grep -q ' 0$' "$gold/folded-fib.txt"; then flunk "a zero stack is written"; else pass "no zero stacks"; fi
# the folded total equals the report's total
tot=$(awk '{s += $NF} END {print s}' "$gold/folded-labels.txt")
"$top" --format=json "$labels" > "$work/top.json"
if grep -q "\"total\":$tot," "$work/top.json"; then pass "folded total = report total ($tot)"; else flunk "folded total $tot not in $(head -c 200 "$work/top.json")"; fi

# ---- round trips folded -> pprof -> folded
rt() { # NAME FOLDED_FILE [convert-out options]
    name=$1 f=$2
    shift 2
    if "$conv" "$f" --from=folded -o "$work/rt.pb.gz" 2> "$work/err" &&
        "$conv" "$work/rt.pb.gz" --to=folded "$@" -o "$work/rt.txt" 2>> "$work/err" && cmp -s "$f" "$work/rt.txt"; then
        pass "round trip $name"
    else
        flunk "round trip $name" "$(head -c 300 "$work/err")" "$(diff "$f" "$work/rt.txt" 2>&1 | head -5)"
    fi
}
rt "fib" "$gold/folded-fib.txt"
rt "fib --lines" "$gold/folded-fib-lines.txt"
rt "labels as root frames, recursion" "$gold/folded-labels.txt"
printf '%s\n' 'a;b\x3bc;d\x0ae 3' 'main;C:\path\x5cx3b;f 2' 'main;rec;rec;rec 5' 'main;x y;z  7' > "$work/esc.folded"
LC_ALL=C sort "$work/esc.folded" > "$work/esc-sorted.folded"
rt "names with ';', newline, backslashes and spaces" "$work/esc-sorted.folded"
"$conv" "$work/esc-sorted.folded" --from=folded -o "$work/esc.pb.gz" && "$dump" "$work/esc.pb.gz" > "$work/esc.dump"
if grep -q 'b;c' "$work/esc.dump" && grep -q 'C:\\path\\x3b' "$work/esc.dump"; then pass "escapes read back to ';' and a literal backslash"; else flunk "escapes not undone" "$(grep -n 'b' "$work/esc.dump" | head -3)"; fi
if [ -x "$gen" ] && "$gen" --preset deep --seed 3 --samples 3000 -o "$work/deep.pb" 2>/dev/null; then
    "$conv" "$work/deep.pb" --to=folded -o "$work/deep.folded"
    rt "generated profile with inline frames" "$work/deep.folded"
    "$conv" "$work/deep.pb" --to=folded --lines -o "$work/deep-lines.folded"
    rt "generated profile with inline frames, --lines" "$work/deep-lines.folded"
    d1=$(wc -l < "$work/deep.folded")
    if [ "$d1" -gt 100 ]; then pass "deep profile gives $d1 stacks"; else flunk "deep profile gives $d1 stacks"; fi
else
    n=$((n + 1)); echo "ok $n - generated inline round trip # SKIP no pprof-gen"
fi
# inline frames: every line of a location is one frame, caller first
"$top" --granularity addresses --format=json "$fib" > /dev/null

# ---- malformed folded input: exit 1, the line named
bad() { # DESCRIPTION CONTENT PATTERN
    printf "$2" > "$work/bad.folded"
    t 1 "malformed: $1" "$conv" "$work/bad.folded" --from=folded -o "$work/bad.pb.gz"
    grep_err "$3" "malformed: $1: $3"
}
# one message naming FILE:LINE:COLUMN (bytes from 1), the line said once
bad "no value" 'a;b 1\na;b\n' 'bad\.folded:2:1: error: no value \(expected .FRAMES VALUE.\) \[PPROF_E_INVALID\]$'
bad "negative value" 'a;b -1\n' 'bad\.folded:1:5: error: negative value'
bad "overflowing value" 'a;b 1\n\na 9223372036854775808\n' 'bad\.folded:3:3: error: the value overflows int64'
bad "value not a number" 'a;b 1x\n' 'bad\.folded:1:6: error: the value is not a non-negative decimal integer'
bad "a lone minus" 'a;b -\n' 'bad\.folded:1:5: error: the value is not a non-negative decimal integer'
bad "empty frame" 'a;;b 1\n' 'bad\.folded:1:3: error: empty frame'
bad "empty first frame" ';b 1\n' 'bad\.folded:1:1: error: empty frame'
bad "binary data" 'a;b 1\n\037\213\010\000 1\n' 'bad\.folded:2:1: error: control or NUL byte'
bad "nothing before the value" ' 5\n' 'bad\.folded:1:1: error: empty stack'
# invalid UTF-8 is refused, not repaired (two names would become one frame), at its byte
bad "invalid UTF-8" 'main;ok 1\nmain;caf\351;x 3\n' 'bad\.folded:2:9: error: byte 0xe9 is not valid UTF-8'
bad "overlong UTF-8" 'main;\300\257 3\n' 'bad\.folded:1:6: error: byte 0xc0 is not valid UTF-8'
# plain ASCII is taken 8 bytes at a time: what follows such a run is still looked at
bad "a control byte after 8 plain bytes" 'abcdefgh\001ijk 1\n' 'bad\.folded:1:9: error: control or NUL byte'
bad "a cut UTF-8 sequence after 16 plain bytes" 'abcdefghijklmnop\303 1\n' 'bad\.folded:1:17: error: byte 0xc3 is not valid UTF-8'
bad "DEL is no escape from the check" 'abcdefg\177\377 1\n' 'bad\.folded:1:9: error: byte 0xff'
bad "UTF-16 text" '\377\376m\000;\000f\000 \0001\000\n\000' 'bad\.folded:1:1: error: UTF-16 text'
printf 'a;b -1\n' > "$work/bad.folded"
"$conv" "$work/bad.folded" --from=folded -o "$work/bad.pb.gz" 2> "$work/err"
if [ "$(wc -l < "$work/err")" -eq 1 ] && ! grep -q 'line\[\|line 1' "$work/err"; then
    pass "a folded error is one line naming the line once"
else
    flunk "a folded error is one line naming the line once" "$(cat "$work/err")"
fi
printf 'a;b -1\n' | "$conv" - --from=folded -o "$work/bad.pb.gz" 2> "$work/err"
grep_err '^pprof-convert: <stdin>:1:5: error: negative value' "standard input is named <stdin>:LINE:COLUMN"
# good() DESCRIPTION CONTENT EXPECTED-FOLDED: read, then written back as EXPECTED
good() {
    printf "$2" > "$work/good.folded"
    t 0 "folded in: $1" "$conv" "$work/good.folded" --from=folded -o "$work/good.pb.gz"
    "$conv" "$work/good.pb.gz" --to=folded -o "$work/good.out" 2> "$work/err"
    printf "$3" > "$work/good.want"
    if cmp -s "$work/good.want" "$work/good.out"; then pass "folded in: $1: written back"; else flunk "folded in: $1: written back" "$(od -c "$work/good.out" | head -4)"; fi
}
good "a count of -0 is 0" 'a;b -0\na;c 2\na;d -00\n' 'a;c 2\n'
good "a UTF-8 byte-order mark is stripped" '\357\273\277main;f 2\nmain;g 1\n' 'main;f 2\nmain;g 1\n'
good "a mark past the start stays" 'main;\357\273\277f 2\n' 'main;\357\273\277f 2\n'
good "UTF-8 across an 8-byte boundary, a tab" 'abcdefg\303\251h;\tx 2\n' 'abcdefg\303\251h;\tx 2\n'
good "UTF-8 names" 'main;caf\303\251;\346\227\245\346\234\254 3\n' 'main;caf\303\251;\346\227\245\346\234\254 3\n'
# what is accepted is valid for the checker: no S23 in the profile read
printf '\357\273\277main;caf\303\251 3\n' > "$work/good.folded"
"$conv" "$work/good.folded" --from=folded -o "$work/good.pb.gz"
t 0 "a folded input's profile passes pprof-check" "$check" --fail-on=note "$work/good.pb.gz"
"$dump" "$work/good.pb.gz" > "$work/good.dump"
if grep -q "$(printf '\357\273\277')" "$work/good.dump"; then flunk "the byte-order mark is in a name" "$(head -5 "$work/good.dump")"; else pass "no byte-order mark in any name"; fi
t 2 "--from=folded with a bad sample type" "$conv" "$work/esc.folded" --from=folded --sample-type cpu -o "$work/x.pb.gz"
t 0 "--to=folded --sample-type index" "$conv" "$fib" --to=folded --sample-type 0
# a profile Go refuses on reading is refused here too, naming the rule
bad_prof=${PPROF_SOURCE_ROOT:-$here/../..}/corpus/check/n_line-function.pb
t 1 "pprof-top refuses a profile Go refuses" "$top" "$bad_prof"
grep_err 'CV6-line-function.*|not reported: 1 error' "pprof-top names the rule"
t 1 "pprof-diff refuses a profile Go refuses" "$diff" "$fib" "$bad_prof"
grep_err 'not compared: [0-9]+ error' "pprof-diff names the input"
echo "1..$n"
[ $fail -eq 0 ]
