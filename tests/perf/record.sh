#!/bin/sh
# Records real perf.data files (file and pipe mode) of small programs built with frame
# pointers and holds pprof-from-perf against what perf itself says about them:
#  - the address stacks, sample for sample, equal those of `perf script -F ip,dso`
#    (normalised by perf-stacks-ref.awk: root first, file frames as FILE+0xOFFSET);
#  - the samples and the cpu total equal perf report's "Samples" and "Event count";
#  - the folded stacks of `pprof-from-perf --symbolize` (inline frames folded into their
#    caller, `pprof-convert --to=folded --labels comm`) equal those of
#    `perf script | stackcollapse-perf.pl`, stack by stack with their periods, after the name
#    normalisation of folded-norm.awk and aliases.sh (docs/perf.md); stackcollapse-perf.pl is run from the
#    directory PPROF_PEERS names (opt-in: never copied into the project), skipped when unset;
#  - per event of a two-event recording, samples and period totals equal perf report's;
#  - a dlopen'ed library's samples are in its mapping; the threads give distinct tids.
# Skips (TAP: 1..0 # SKIP, exit 0) with the reason when perf is absent or the kernel forbids recording.
# usage: record.sh PPROF-FROM-PERF PERF_STACKS PPROF-DUMP PPROF-EDIT PPROF-CONVERT
set -u
conv=$1 stacks=$2 dump=$3 edit=$4 convert=$5
here=$(dirname "$0")
. "$here/../cli/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v perf >/dev/null 2>&1; then
    skip_all "perf is not installed"
fi
if ! perf record -q -e cpu-clock -g -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
    skip_all "perf record -e cpu-clock -g is not permitted here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
fi
cc=${CC:-cc}
cflags="-O1 -g -fno-omit-frame-pointer -fno-inline"
$cc $cflags -pthread -o "$tmp/threads" "$here/progs/threads.c" &&
    $cc $cflags -o "$tmp/dlmain" "$here/progs/dlmain.c" -ldl &&
    $cc $cflags -shared -fPIC -o "$tmp/libperfdl.so" "$here/progs/dllib.c" || {
    skip_all "no C compiler to build the recorded programs"
}

perf record -q -e cpu-clock -F 1999 -g -o "$tmp/threads.data" -- "$tmp/threads" 9 >/dev/null 2>&1
ok $? "perf record of a multi-threaded program"
perf record -q -e cpu-clock -F 1999 -g -o "$tmp/dl.data" -- "$tmp/dlmain" "$tmp/libperfdl.so" >/dev/null 2>&1
ok $? "perf record of a program that dlopens a library"
perf record -q -e cpu-clock -F 1999 -g -o - -- "$tmp/threads" 5 >"$tmp/pipe.data" 2>/dev/null
ok $? "perf record -o - (pipe mode)"

ksyms=
if [ -r /proc/kallsyms ] && awk '$1 !~ /^0+$/ {found = 1; exit} END {exit !found}' /proc/kallsyms; then
    ksyms="--kallsyms /proc/kallsyms"
fi

# sums the counts of equal stacks ("STACK COUNT" lines), sorted
agg() {
    awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort
}
# The FlameGraph scripts are another project's (CDDL): run from where the user keeps them
peers=${PPROF_PEERS:-}
for f in threads dl pipe; do
    data="$tmp/$f.data"
    run "$conv" "$data" -o "$tmp/$f.pb.gz" --labels pid,tid,comm,cpu
    ok $rc "$f: pprof-from-perf converts it"
    [ -n "$err" ] && diag "$err"
    "$stacks" "$tmp/$f.pb.gz" | agg >"$tmp/$f.ours"
    perf script -i "$data" -F ip,dso 2>/dev/null | awk -f "$here/perf-stacks-ref.awk" | agg >"$tmp/$f.ref"
    cmp -s "$tmp/$f.ours" "$tmp/$f.ref"
    ok $? "$f: address stacks equal perf script's, sample for sample ($(wc -l <"$tmp/$f.ref") distinct stacks)"
    diff "$tmp/$f.ours" "$tmp/$f.ref" | head -5 | while read -r l; do diag "$l"; done
    ours_n=$(awk '{n += $NF} END {print n + 0}' "$tmp/$f.ours")
    perf report -i "$data" --stdio 2>/dev/null >"$tmp/$f.report"
    rep_n=$(sed -n "s/^# Samples: \([0-9]*\) *of event 'cpu-clock'.*/\1/p" "$tmp/$f.report" | head -1)
    rep_p=$(sed -n 's/^# Event count (approx.): \([0-9]*\).*/\1/p' "$tmp/$f.report" | head -1)
    [ "$ours_n" = "$rep_n" ]
    ok $? "$f: $ours_n samples, perf report says ${rep_n:-?}"
    "$dump" "$tmp/$f.pb.gz" >"$tmp/$f.dump"
    ours_p=$(awk '/^Samples:/ {s = 1; next} s && /^ *[0-9]+ +[0-9]+ *:/ {t += $2} /^Locations/ {s = 0} END {print t + 0}' "$tmp/$f.dump")
    [ "$ours_p" = "$rep_p" ]
    ok $? "$f: cpu total $ours_p ns, perf report's event count ${rep_p:-?}"
    if [ -n "$peers" ] && [ -f "$peers/stackcollapse-perf.pl" ]; then
        sc_n=$(perf script -i "$data" 2>/dev/null | perl "$peers/stackcollapse-perf.pl" --all | awk '{n += $NF} END {print n + 0}')
        [ "$ours_p" = "$sc_n" ]
        ok $? "$f: stackcollapse-perf.pl sums periods to $sc_n, ours $ours_p"
        # Symbolized in the same pass, as perf names the frames: the same debug files, the
        # same kallsyms (when this user can read its addresses; else neither side names
        # kernel frames).
        sh "$here/aliases.sh" "$data" >"$tmp/$f.aliases"
        run "$conv" "$data" --symbolize $ksyms --labels comm -o "$tmp/$f.sym.pb.gz"
        ok $rc "$f: pprof-from-perf --symbolize converts and symbolizes it"
        [ -n "$err" ] && diag "$err"
        "$edit" --no-inlines "$tmp/$f.sym.pb.gz" -o - | "$convert" - --to=folded --labels comm --sample-type cpu -o - |
            awk -f "$here/folded-norm.awk" "$tmp/$f.aliases" - | sort >"$tmp/$f.folded"
        # perf prints address 0 where a frame-pointer chain ends in a zeroed slot; pprof has no
        # location at 0 and pprof-from-perf leaves it out (as perf_stacks above)
        perf script -i "$data" 2>/dev/null | grep -Ev '^[[:space:]]+0 \[unknown\] \(\[unknown\]\)$' |
            perl "$peers/stackcollapse-perf.pl" | awk -f "$here/folded-norm.awk" "$tmp/$f.aliases" - | sort >"$tmp/$f.sc"
        cmp -s "$tmp/$f.folded" "$tmp/$f.sc"
        ok $? "$f: folded stacks of --symbolize equal stackcollapse-perf.pl's, stack by stack with periods ($(wc -l <"$tmp/$f.sc") distinct stacks)"
        diff "$tmp/$f.folded" "$tmp/$f.sc" | head -6 | cut -c1-300 | while read -r l; do diag "$l"; done
        grep -q '^[a-z]*;[a-z_]*;main;' "$tmp/$f.folded"
        ok $? "$f: the frames are named, the comm at the root (...;main;... stacks)"
        grep -q '^[a-z]*;[a-z_]*;main;' "$tmp/$f.folded" || diag "$(head -3 "$tmp/$f.folded")"
    else
        if [ -z "$peers" ]; then
            skip "$f: stackcollapse-perf.pl" "PPROF_PEERS unset (the directory of FlameGraph's scripts)"
        else
            skip "$f: stackcollapse-perf.pl" "not found in PPROF_PEERS=$peers"
        fi
    fi
done

# per event: a recording of two events, each event's samples and period total against
# perf report --stdio -F overhead,sample (its "Samples" column summed, its "Event count")
perf record -q -e cpu-clock -e task-clock -F 1999 -g -o "$tmp/multi.data" -- "$tmp/threads" 5 >/dev/null 2>&1
ok $? "perf record of two events (cpu-clock, task-clock)"
perf report -i "$tmp/multi.data" --stdio -F overhead,sample -g none 2>/dev/null >"$tmp/multi.report"
for ev in cpu-clock task-clock; do
    rep_n=$(awk -v ev="'$ev'" '/^# Samples:/ {on = index($0, ev) > 0; next}
        on && /^ +[0-9.]+% +[0-9]+$/ {n += $2} END {print n + 0}' "$tmp/multi.report")
    rep_p=$(awk -v ev="'$ev'" '/^# Samples:/ {on = index($0, ev) > 0; next}
        on && /^# Event count/ {print $NF; exit}' "$tmp/multi.report")
    st=$([ "$ev" = cpu-clock ] && echo cpu || echo "$ev")
    run "$conv" "$tmp/multi.data" --event "$ev" -o "$tmp/multi-$ev.pb.gz"
    ok $rc "multi: pprof-from-perf --event $ev"
    ours_n=$("$convert" "$tmp/multi-$ev.pb.gz" --to=folded --sample-type samples -o - | awk '{n += $NF} END {print n + 0}')
    ours_p=$("$convert" "$tmp/multi-$ev.pb.gz" --to=folded --sample-type "$st" -o - | awk '{n += $NF} END {print n + 0}')
    [ "$rep_n" -gt 0 ] && [ "$ours_n" = "$rep_n" ]
    ok $? "multi: $ev: $ours_n samples, perf report's Samples column sums to $rep_n"
    [ "$ours_p" = "$rep_p" ]
    ok $? "multi: $ev: period total $ours_p, perf report's event count ${rep_p:-?}"
done

grep -q 'libperfdl.so' "$tmp/dl.ours"
ok $? "dl: samples in the dlopen'ed library's mapping"
ntid=$(grep -o 'tid:\[[0-9]*\]' "$tmp/threads.dump" | sort -u | wc -l)
[ "$ntid" -ge 2 ]
ok $? "threads: samples of $ntid threads (--labels tid)"

# pipe mode read from standard input
run sh -c "\"$conv\" - -o \"$tmp/stdin.pb.gz\" < \"$tmp/pipe.data\""
ok $rc "pipe: read from standard input"
"$stacks" "$tmp/stdin.pb.gz" | agg | cmp -s - "$tmp/pipe.ours"
ok $? "pipe: the same stacks from standard input"

# perf script text: the same samples
perf script -i "$tmp/threads.data" 2>/dev/null >"$tmp/threads.txt"
run "$conv" "$tmp/threads.txt" -o "$tmp/text.pb.gz"
ok $rc "perf script text converts (detected)"
text_n=$("$stacks" "$tmp/text.pb.gz" | awk '{n += $NF} END {print n + 0}')
[ "$text_n" = "$(awk '{n += $NF} END {print n + 0}' "$tmp/threads.ours")" ]
ok $? "perf script text: as many samples ($text_n) as the perf.data"
done_testing
