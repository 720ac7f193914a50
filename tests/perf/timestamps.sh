#!/bin/sh
# pprof-from-perf --timestamps on real recordings of a program that spins ~1.5 s in phase_a then
# ~1.5 s in phase_b (progs/phases.c): every sample has the numeric label timestamp_unix_nano
# (unit nanoseconds), the labels span the run (last - first within 10 % of 3 s); with clock data
# (perf record -k CLOCK_MONOTONIC) they are wall-clock times inside the recording's wall-clock
# window; pprof-edit --time-from/--time-to cut the phases apart and --drop-timestamps folds the
# samples back to those of a conversion without times.
# Skips (TAP: 1..0 # SKIP) when perf is absent or the kernel forbids recording.
# usage: timestamps.sh PPROF-FROM-PERF PPROF-DUMP PPROF-EDIT PPROF-CONVERT
set -u
conv=$1 dump=$2 edit=$3 convert=$4
here=$(dirname "$0")
. "$here/../cli/tap.sh"

if ! command -v perf >/dev/null 2>&1; then
    skip_all "perf is not installed"
fi
if ! perf record -q -e cpu-clock -g -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
    skip_all "perf record -e cpu-clock -g is not permitted here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
fi
${CC:-cc} -O1 -g -fno-omit-frame-pointer -fno-inline -o "$tmp/phases" "$here/progs/phases.c" || {
    skip_all "no C compiler to build the recorded program"
}

# samples and timestamp labels of a profile: "SAMPLES LABELED MIN MAX UNITS_OK"
stamps() {
    "$dump" "$1" | awk '
        /^Samples:/ {s = 1; next}
        /^Locations/ {s = 0}
        s && /^ *-?[0-9]+ .*:/ {n++}
        s && /^ +timestamp_unix_nano:\[/ {
            v = $0; sub(/.*\[/, "", v); split(v, f, /[] ]/)
            t = f[1] + 0; l++
            if (f[2] != "nanoseconds") bad++
            if (l == 1 || t < lo) lo = t
            if (l == 1 || t > hi) hi = t
        }
        END {printf "%d %d %.0f %.0f %d\n", n, l, lo, hi, bad == 0}'
}

before=$(date +%s%N)
perf record -q -e cpu-clock -F 999 -g -k CLOCK_MONOTONIC -o "$tmp/mono.data" -- "$tmp/phases" 1.5 >/dev/null 2>&1
ok $? "perf record -k CLOCK_MONOTONIC of phases (clock data)"
after=$(date +%s%N)
perf record -q -e cpu-clock -F 999 -g -o "$tmp/perf.data" -- "$tmp/phases" 1.5 >/dev/null 2>&1
ok $? "perf record of phases (perf's clock)"

for f in mono perf; do
    run "$conv" --timestamps "$tmp/$f.data" -o "$tmp/$f.pb.gz"
    ok $rc "$f: pprof-from-perf --timestamps converts it"
    [ -n "$err" ] && diag "$err"
    set -- $(stamps "$tmp/$f.pb.gz")
    n=$1 l=$2 lo=$3 hi=$4 units=$5
    [ "$n" -gt 100 ] && [ "$n" = "$l" ]
    ok $? "$f: every sample has a timestamp_unix_nano label ($l of $n)"
    [ "$units" = 1 ]
    ok $? "$f: in nanoseconds"
    span=$(awk -v a="$lo" -v b="$hi" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
    awk -v s="$span" 'BEGIN {exit !(s >= 2.7 && s <= 3.3)}'
    ok $? "$f: the labels span ${span} s of a 3 s run (within 10 %)"
    if [ "$f" = mono ]; then
        awk -v a="$lo" -v b="$hi" -v t0="$before" -v t1="$after" 'BEGIN {exit !(a >= t0 - 1e6 && b <= t1 + 1e6)}'
        ok $? "mono: wall-clock times inside the recording's window ($lo..$hi in $before..$after)"
    fi
done

# without --timestamps: no label, and the samples fold (far fewer than with times)
run "$conv" "$tmp/perf.data" -o "$tmp/plain.pb.gz"
ok $rc "perf: converted without --timestamps"
set -- $(stamps "$tmp/plain.pb.gz")
plain_n=$1
[ "$2" = 0 ]
ok $? "perf: no timestamp label without --timestamps"

# pprof-edit: slices of time and folding back
set -- $(stamps "$tmp/perf.pb.gz")
all_n=$1
run "$edit" --time-from 0 --time-to 1.2 "$tmp/perf.pb.gz" -o "$tmp/early.pb.gz"
ok $rc "pprof-edit --time-from 0 --time-to 1.2"
set -- $(stamps "$tmp/early.pb.gz")
early_n=$1
span=$(awk -v a="$2" -v b="$4" -v c="$3" 'BEGIN {printf "%.3f", (b - c) / 1e9}')
awk -v s="$span" -v n="$early_n" -v a="$all_n" 'BEGIN {exit !(s <= 1.2 && s >= 1.0 && n < a / 2 && n > a / 3)}'
ok $? "the first 1.2 s: $early_n of $all_n samples, spanning $span s"
run "$edit" --drop-timestamps "$tmp/perf.pb.gz" -o "$tmp/folded.pb.gz"
ok $rc "pprof-edit --drop-timestamps"
set -- $(stamps "$tmp/folded.pb.gz")
[ "$2" = 0 ] && [ "$1" = "$plain_n" ]
ok $? "--drop-timestamps: no label, the samples of a conversion without times ($1, $plain_n)"
"$convert" "$tmp/folded.pb.gz" --to=folded -o - | sort >"$tmp/folded.txt"
"$convert" "$tmp/plain.pb.gz" --to=folded -o - | sort >"$tmp/plain.txt"
cmp -s "$tmp/folded.txt" "$tmp/plain.txt"
ok $? "--drop-timestamps: the same stacks and values as without --timestamps"

# the phases apart, when the binary symbolizes
run "$conv" --timestamps --symbolize "$tmp/perf.data" -o "$tmp/sym.pb.gz"
if [ "$rc" = 0 ] && "$convert" "$tmp/sym.pb.gz" --to=folded -o - | grep -q phase_a; then
    share() { # share of samples in frames matching $2 in profile $1
        "$convert" "$1" --to=folded --sample-type samples -o - | awk -v re="$2" '
            {n = $NF; t += n; if ($0 ~ re) m += n} END {printf "%.3f", t ? m / t : 0}'
    }
    a=$(share "$tmp/sym.pb.gz" phase_a) b=$(share "$tmp/sym.pb.gz" phase_b)
    awk -v a="$a" -v b="$b" 'BEGIN {exit !(a >= 0.3 && a <= 0.7 && b >= 0.3 && b <= 0.7)}'
    ok $? "symbolized: phase_a $a and phase_b $b of the samples"
    "$edit" --time-from 0 --time-to 1.2 "$tmp/sym.pb.gz" -o "$tmp/sym-early.pb.gz" &&
        "$edit" --time-from 1.8 --time-to 3.5 "$tmp/sym.pb.gz" -o "$tmp/sym-late.pb.gz"
    ok $? "symbolized: two slices of time"
    eb=$(share "$tmp/sym-early.pb.gz" phase_b) la=$(share "$tmp/sym-late.pb.gz" phase_a)
    awk -v a="$eb" -v b="$la" 'BEGIN {exit !(a <= 0.05 && b <= 0.05)}'
    ok $? "symbolized: phase_b $eb of 0-1.2 s, phase_a $la of 1.8-3.5 s (at most 5 %)"
else
    skip "symbolized phases" "pprof-from-perf --symbolize does not name phase_a here"
fi
done_testing
