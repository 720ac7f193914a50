#!/bin/sh
# pprof-edit: exit codes, stdin/stdout, Go's spellings, -v, warnings, determinism.
# Usage: cli.sh PPROF-EDIT PPROF-CHECK
edit=$1
check=$2
. "$PPROF_SOURCE_ROOT/tests/cli/tap.sh"
src="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}/parca/query-profile-with-labels.pb.gz"
if [ ! -f "$src" ]; then
    skip_all "no corpus file $src"
fi
cp "$src" "$tmp/in.pb.gz"

run "$edit" --help
expect_rc 0 "--help"
has "$out" '^Usage: pprof-edit' "--help prints the usage on stdout"
run "$edit" --version
expect_rc 0 "--version"
run "$edit"
expect_rc 2 "no input"
run "$edit" "$tmp/in.pb.gz" --bogus
expect_rc 2 "unknown option"
run "$edit" "$tmp/in.pb.gz" --focus 'a(?=b)' -o "$tmp/x.pb.gz"
expect_rc 2 "a lookahead is a usage error"
has "$err" 'focus: .*not a valid Go regular expression' "the error names the option"
run "$edit" "$tmp/missing.pb.gz"
expect_rc 3 "a missing input is an I/O error"
printf 'not a profile' >"$tmp/bad.pb"
run "$edit" "$tmp/bad.pb" -o "$tmp/x.pb.gz"
expect_rc 1 "an invalid input"
has "$err" 'bad.pb' "the error names the file"

run "$edit" "$tmp/in.pb.gz" -o "$tmp/noop.pb.gz"
expect_rc 0 "no operation"
run "$check" "$tmp/noop.pb.gz"
expect_rc 0 "the compacted profile passes the checker"

run "$edit" "$tmp/in.pb.gz" --show-from runtime --tag-focus thread_name=parca --tag-root thread_id \
    --no-inlines -o "$tmp/dash.pb"
expect_rc 0 "hyphenated options"
run "$edit" "$tmp/in.pb.gz" --show_from=runtime -tagfocus=thread_name=parca -tagroot thread_id \
    --noinlines -o "$tmp/go.pb"
expect_rc 0 "Go's spellings"
cmp -s "$tmp/dash.pb" "$tmp/go.pb"
ok $? "Go's spellings give the same bytes"

"$edit" - --focus runtime <"$tmp/in.pb.gz" >"$tmp/stdio.pb.gz" 2>"$tmp/stderr"
ok $? "stdin to stdout"
"$edit" "$tmp/in.pb.gz" --focus runtime -o "$tmp/file.pb.gz"
cmp -s "$tmp/stdio.pb.gz" "$tmp/file.pb.gz"
ok $? "stdin/stdout and files give the same bytes"

run "$edit" "$tmp/in.pb.gz" -v --focus runtime --sample-types samples -o "$tmp/x.pb.gz"
expect_rc 0 "-v"
has "$err" 'focus/ignore/hide/show: samples [0-9]+ -> [0-9]+, totals \[[0-9]+\] -> \[[0-9]+\]' \
    "-v reports samples and totals per step"
run "$edit" "$tmp/in.pb.gz" --focus 'no such function' -o "$tmp/x.pb.gz"
expect_rc 0 "a focus matching nothing"
has "$err" 'warning: Focus expression matched no samples' "Go's warning"
# Go's regexp is RE2, linear time: a pattern PCRE2 gave up on ("hit the match limit") answers,
# and the answer is that of the simpler pattern it equals for a search; (a{2}){600} is refused
# as Go refuses it.
fg="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}/parca/query-fgprof.pb.gz"
run "$edit" "$fg" --focus '([a-z]+/?)+\.go' -o "$tmp/bt.pb"
expect_rc 0 "([a-z]+/?)+\.go answers on a real profile"
"$edit" "$fg" --focus '[a-z]/?\.go' -o "$tmp/bt2.pb" 2>/dev/null
cmp -s "$tmp/bt.pb" "$tmp/bt2.pb"
ok $? "([a-z]+/?)+\.go selects what [a-z]/?\.go does"
run "$edit" "$tmp/in.pb.gz" --focus '(a{2}){600}' -o "$tmp/x.pb.gz"
expect_rc 2 "(a{2}){600} is refused"
has "$err" 'focus: .*not a valid Go regular expression: invalid repeat count' "with Go's reason"
run "$edit" "$tmp/in.pb.gz" --sample-types nope -o "$tmp/x.pb.gz"
expect_rc 2 "an unknown sample type"
has "$err" "no sample type 'nope'" "is named"

printf 'secret' >"$tmp/key"
run "$edit" "$tmp/in.pb.gz" --redact files,mappings,label:thread_name --redact-key "$tmp/key" \
    -o "$tmp/r1.pb"
expect_rc 0 "redact"
"$edit" "$tmp/in.pb.gz" --redact files,mappings,label:thread_name --redact-key "$tmp/key" \
    -o "$tmp/r2.pb"
cmp -s "$tmp/r1.pb" "$tmp/r2.pb"
ok $? "redaction is deterministic"
run "$edit" "$tmp/in.pb.gz" --redact files
expect_rc 2 "--redact without a key"
done_testing
