#!/bin/sh
# Properties of pprof-edit that hold for any input and need no reference implementation:
#   - every output passes pprof-check with no error, and is compacted (nothing unreferenced);
#   - --focus P --ignore P (P matching some frame) leaves no sample;
#   - an operation that matches nothing changes no value total (per sample type);
#   - editing is deterministic: same bytes from two runs, and from one thread and several.
# Usage: properties.sh PPROF_EDIT PPROF_CHECK PPROF_DUMP [PPROF_GEN]
set -u
. "$(dirname "$0")/../tap.sh"
edit=$1 check=$2 dump=$3
gen=${4:-${PPROF_BUILD_ROOT:-}/bench/pprof-gen}
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
corpus=${PPROF_REAL_CORPUS:-$src/corpus/real}
work=$(mktemp -d "${TMPDIR:-/tmp}/edit-props.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); printf "ok %d - %s\n" $n "$1"; }
notok() { n=$((n + 1)); printf "not ok %d - %s\n" $n "$1"; fail=$((fail + 1)); }

# totals FILE: "N_SAMPLES TOTAL..." (the sum of each sample type's values) from pprof-dump
totals() {
    "$dump" "$1" | awk '
        /^Samples:/ { s = 1; getline; next }
        /^Locations/ { s = 0 }
        s && /^ *-?[0-9]+( +-?[0-9]+)* :/ {
            n++
            for (i = 1; i <= NF && $i != ":"; i++) t[i] += $i
            if (i - 1 > w) w = i - 1
        }
        END { printf "%d", n; for (i = 1; i <= w; i++) printf " %.0f", t[i]; print "" }'
}

# inputs: generated profiles (inline frames, labels, several types) and some of the corpus
inputs=""
if [ -n "$gen" ] && [ -x "$gen" ]; then
    "$gen" --preset labels --samples 4000 --seed 5 -o "$work/labels.pb" &&
        "$gen" --preset deep --samples 3000 --seed 6 --compress gzip -o "$work/deep.pb.gz" &&
        inputs="$work/labels.pb $work/deep.pb.gz"
fi
for f in parca/query-profile-with-labels.pb.gz parca/parca-alloc_objects.pb.gz \
    generated/dotnet-labels.pb.gz generated/java-cpu.pb.gz; do
    [ -f "$corpus/$f" ] && inputs="$inputs $corpus/$f"
done
[ -n "$inputs" ] || skip_all "no inputs (no pprof-gen, no corpus)"

# a function name that occurs in the profile: that of its fifth location (or last, if fewer)
some_function() {
    "$dump" "$1" | awk '/^Locations/ { l = 1; next } /^Mappings/ { exit }
        l && $3 ~ /^M=/ { f = $4; if (++k == 5) exit } END { print f }'
}

# compacted: no location, function or string that nothing refers to (mappings: Go's Compact
# and pprof-edit keep the first, the main binary, even when unused)
compacted="--disable all --enable S7 --disable S7-unused-mapping --fail-on=note"

threads=""
"$edit" --help 2>&1 | grep -q -- '--threads' && threads=--threads
[ -z "$threads" ] && "$edit" --help 2>&1 | grep -q -- ' -j' && threads=-j

for in in $inputs; do
    b=$(basename "$in")
    base=$(totals "$in")
    fn=$(some_function "$in")
    # shellcheck disable=SC2016
    rx=$(printf '%s' "$fn" | sed 's/[][\.*^$(){}?+|]/\\&/g')
    # 1. every output is valid, under a spread of operations
    i=0
    while IFS='|' read -r label args; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        if ! (set -f; eval "exec \"\$edit\" \"\$in\" -o \"\$work/o$i.pb.gz\" $args") \
            < /dev/null 2> "$work/err"; then
            notok "$b: $label: pprof-edit failed: $(head -c 300 "$work/err")"
        elif ! "$check" -q "$work/o$i.pb.gz" < /dev/null; then
            notok "$b: $label: pprof-check finds errors: $("$check" "$work/o$i.pb.gz" 2>&1 | head -3 | tr '\n' ' ')"
        elif ! "$check" -q $compacted "$work/o$i.pb.gz" < /dev/null; then
            notok "$b: $label: not compacted: $("$check" $compacted "$work/o$i.pb.gz" 2>&1 | head -3 | tr '\n' ' ')"
        else
            ok "$b: $label: output passes pprof-check and is compacted"
        fi
    done <<EOF
no operation|
focus|--focus '$rx'
ignore + hide|--ignore '$rx' --hide runtime
show + show_from + prune_from|--show '.' --show-from '$rx' --prune-from '$rx'
drop_frames|--drop-frames '$rx'
tag filters|--tag-focus '.' --tag-ignore 'zzz=x' --tag-hide 'thread' --tag-root 'thread_name,pod' --tag-leaf 'bytes'
labels|--set-label 'zone=a' --rename-label 'pod=k8s_pod' --remove-label 'thread_id'
scale|--scale 0.37
granularity functions|--granularity functions --no-inlines
granularity lines|--granularity lines
trim|--max-depth 4 --min-fraction 0.001
EOF
    # 2. focus and ignore on the same pattern leave nothing
    if [ -n "$fn" ] && "$edit" "$in" -o "$work/fi.pb.gz" --focus "$rx" --ignore "$rx" 2>/dev/null; then
        t=$(totals "$work/fi.pb.gz")
        case $t in
            "0"|"0 "*) ok "$b: focus and ignore '$rx': no sample left" ;;
            *) notok "$b: focus and ignore '$rx': samples and totals left: $t" ;;
        esac
    else
        notok "$b: focus and ignore '$rx': pprof-edit failed or no function found"
    fi
    # 3. operations that match nothing change no total
    for args in "--ignore zzz_no_such_frame" "--hide zzz_no_such_frame" \
        "--prune-from zzz_no_such_frame" "--drop-frames zzz_no_such_frame" \
        "--tag-ignore zzz_no_such_key=x" "--tag-hide zzz_no_such_key" \
        "--remove-label zzz_no_such_key" "--scale 1" "--focus ." ""; do
        # shellcheck disable=SC2086
        if "$edit" "$in" -o "$work/nm.pb.gz" $args 2>/dev/null; then
            t=$(totals "$work/nm.pb.gz")
            # the sample count may shrink (identical samples are summed), the totals may not
            if [ "${t#* }" = "${base#* }" ]; then
                ok "$b: '$args' (matches nothing, or every sample): totals unchanged"
            else
                notok "$b: '$args' (matches nothing, or every sample), yet totals change: ${base#* } -> ${t#* }"
            fi
        else
            notok "$b: '$args': pprof-edit failed"
        fi
    done
    # 4. determinism: two runs, and one thread against the default
    set -- --focus "$rx" --tag-root thread --granularity lines --scale 2
    if "$edit" "$in" -o "$work/d1.pb" --compress=none "$@" 2>/dev/null &&
        "$edit" "$in" -o "$work/d2.pb" --compress=none "$@" 2>/dev/null &&
        cmp -s "$work/d1.pb" "$work/d2.pb"; then
        ok "$b: two runs give the same bytes"
    else
        notok "$b: two runs differ (or failed)"
    fi
    if [ -n "$threads" ]; then
        if "$edit" "$in" -o "$work/d3.pb" --compress=none "$threads" 1 "$@" 2>/dev/null &&
            cmp -s "$work/d1.pb" "$work/d3.pb"; then
            ok "$b: $threads 1 gives the default's bytes"
        else
            notok "$b: $threads 1 differs from the default (or failed)"
        fi
    fi
done
echo "1..$n"
[ $fail -eq 0 ]
