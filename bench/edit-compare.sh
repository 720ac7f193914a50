#!/bin/sh
# Check (not a benchmark): pprof-edit of two builds over several option sets per profile, the
# ones the focus-on-the-wire path takes and the ones it gives way on (focus, ignore, both,
# with tag-focus, hide, a focus that keeps everything or nothing, no operation), to raw and gzip
# output. A change to the edit engine must keep the bytes, the messages and the exit status.
# Prints each difference and a count; exit status 1 when any.
# Usage: bench/edit-compare.sh OLD_BUILD NEW_BUILD WORK_DIR PROFILE...
set -u
old=$1
new=$2
work=$3
shift 3
mkdir -p "$work"
n=0
bad=0
for prof in "$@"; do
    # three functions of the profile by flat value, and a label key, for the patterns
    fns=$("$old/tools/pprof-report" --top -n 12 "$prof" 2>/dev/null | tail -n 10 | awk '{ print $NF }')
    f1=$(echo "$fns" | sed -n 3p)
    f2=$(echo "$fns" | sed -n 7p)
    f3=$(echo "$fns" | sed -n 10p)
    key=$("$old/tools/pprof-report" --tags "$prof" 2>/dev/null |
        awk '/:/ { sub(/:$/, "", $1); print $1; exit }')
    while read -r label args; do
        for ext in pb.gz pb; do
            n=$((n + 1))
            eval "set -- $args"
            "$old/tools/pprof-edit" "$prof" "$@" -o "$work/old.$ext" >/dev/null 2>"$work/old.err"
            ro=$?
            "$new/tools/pprof-edit" "$prof" "$@" -o "$work/new.$ext" >/dev/null 2>"$work/new.err"
            rn=$?
            if [ $ro != $rn ] || ! cmp -s "$work/old.err" "$work/new.err" ||
                { [ $ro = 0 ] && ! cmp -s "$work/old.$ext" "$work/new.$ext"; }; then
                bad=$((bad + 1))
                echo "DIFF $prof [$label, $ext]: exit $ro / $rn"
            fi
            rm -f "$work/old.$ext" "$work/new.$ext"
        done
    done <<LIST
focus --focus '^${f1:-main}\$'
focus2 --focus '${f2:-runtime}'
ignore --ignore '${f2:-runtime}'
focus-ignore --focus '${f1:-main}' --ignore '${f3:-x}'
focus-tagfocus --focus '${f2:-runtime}' --tag-focus '${key:-thread}=.*1.*'
hide --hide '${f3:-x}'
focus-hide --focus '${f1:-main}' --hide '${f3:-x}'
focus-all --focus '.'
focus-none --focus 'no_such_function_anywhere'
ignore-all --ignore '.'
none
LIST
done
echo "compared $n runs, $bad differ"
[ $bad -eq 0 ]
