#!/bin/sh
# Validity does not depend on the path taken (issue 25): every broken profile of corpus/invalid
# (RULE.WHAT.pb) through every tool and several operations of each gives the same refusal:
# exit 1, the rule named, the input named (never the output), nothing written.
# Usage: test_validity.sh PPROF-CONVERT PPROF-EDIT PPROF-TOP PPROF-DIFF PPROF-MERGE PPROF-DUMP
#        PPROF-CHECK [full]
# Without "full", 13 of the 23 option sets (about 450 runs): suite cli, under ASan too; with it,
# all of them (suite slow).
conv=$1
edit=$2
top=$3
diff=$4
merge=$5
dump=$6
check=$7
full=$8
. "$(dirname "$0")/tap.sh"
root="${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}"
dir="$root/corpus/invalid"
good="$root/corpus/check/y_std.pb"
if [ ! -d "$dir" ] || [ ! -f "$good" ]; then
    skip_all "no corpus/invalid"
fi
cp "$good" "$tmp/good.pb"

# refused FILE RULE DESCRIPTION CMD...: exit 1, RULE and FILE's name in stderr, no error line
# naming the output or the good input, no output file
refused() {
    f=$1
    rule=$2
    what=$3
    shift 3
    rm -f "$tmp/out.pb" "$tmp/out.txt"
    run "$@"
    name=$(basename "$f")
    text="$err"
    [ "$what" = "pprof-check" ] && text="$out"
    bad=""
    [ "$rc" -eq 1 ] || bad="exit $rc"
    printf '%s' "$text" | grep -qF -- "$rule" || bad="$bad; $rule not named"
    printf '%s' "$text" | grep -qF -- "$name" || bad="$bad; the input not named"
    if printf '%s\n' "$err" | grep -E ': (error|<stdout>)' | grep -qE "out\.(pb|txt)|<stdout>|good\.pb: error"; then
        bad="$bad; the output or the good input blamed"
    fi
    if [ -e "$tmp/out.pb" ] || [ -e "$tmp/out.txt" ]; then
        bad="$bad; an output was written"
    fi
    ok $([ -z "$bad" ] && echo 0 || echo 1) "$name: $what"
    [ -z "$bad" ] || diag "$bad" "stderr: $err"
}

for f in "$dir"/*.pb; do
    name=$(basename "$f")
    rule=${name%%.*}
    refused "$f" "$rule" "pprof-convert" "$conv" "$f" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-convert --to=folded" "$conv" --to=folded "$f" -o "$tmp/out.txt"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-convert --to=folded --lines to stdout" "$conv" --to=folded --lines "$f"
    refused "$f" "$rule" "pprof-edit" "$edit" "$f" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-edit --hide --show-from --granularity lines" \
        "$edit" "$f" --hide nothing --show-from main --granularity lines -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-edit --sample-types samples" \
        "$edit" "$f" --sample-types samples -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-edit 4x --set-label" "$edit" "$f" --set-label k1=v1 \
        --set-label k2=v2 --set-label k3=v3 --set-label k4=v4 -o "$tmp/out.pb"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-edit --focus" "$edit" "$f" --focus main -o "$tmp/out.pb"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-edit --scale" "$edit" "$f" --scale 2 -o "$tmp/out.pb"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-edit --max-depth --tag-root" \
        "$edit" "$f" --max-depth 1 --tag-root k1 -o "$tmp/out.pb"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-edit --normalize BAD" \
        "$edit" "$tmp/good.pb" --normalize "$f" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-top" "$top" "$f"
    refused "$f" "$rule" "pprof-top --focus" "$top" "$f" --focus main
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-top --granularity lines" "$top" "$f" --granularity lines
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-top --sample-type samples" "$top" "$f" --sample-type samples
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-diff BAD GOOD" "$diff" "$f" "$tmp/good.pb"
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-diff GOOD BAD" "$diff" "$tmp/good.pb" "$f"
    refused "$f" "$rule" "pprof-diff BAD GOOD -o OUT" "$diff" "$f" "$tmp/good.pb" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-diff GOOD BAD -o OUT --sample-type samples" \
        "$diff" "$tmp/good.pb" "$f" -o "$tmp/out.pb" --sample-type samples
    [ -n "$full" ] &&
    refused "$f" "$rule" "pprof-merge BAD GOOD" "$merge" "$f" "$tmp/good.pb" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-merge GOOD BAD" "$merge" "$tmp/good.pb" "$f" -o "$tmp/out.pb"
    refused "$f" "$rule" "pprof-dump" "$dump" "$f"
    refused "$f" "$rule" "pprof-check" "$check" "$f"
done
done_testing
