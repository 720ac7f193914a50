#!/bin/sh
# JFR recordings written by gen_jfr.py from the format's description (async-profiler's shape
# and the JDK's, JFR 2.0 and 2.1, compressed and fixed integers, two chunks): pprof-convert
# gives the stacks, thread names and totals the generator says, and pprof-check no error;
# --from=jfr, --event, --timestamps and --to=otlp work on them; a cut recording is refused
# naming the offset, and read with --allow-truncated.
# usage: generated.sh PPROF-CONVERT PPROF-CHECK PPROF-DUMP
set -u
conv=$1 check=$2 dump=$3
here=$(dirname "$0")
. "$here/../cli/tap.sh"
# is GOT WANT DESCRIPTION
is() {
    [ "$1" = "$2" ]
    ok $? "$3"
    [ "$1" = "$2" ] || diag "got: $1" "want: $2" "stderr: $err"
}
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
python3 "$here/gen_jfr.py" "$tmp" || skip_all "gen_jfr.py failed"

for v in asprof-2.0 jdk-2.1 fixed-2.1 two-chunks; do
    f="$tmp/$v.jfr"
    run "$conv" "$f" --to=folded --sample-type samples --labels thread
    printf '%s\n' "$out" | sort >"$tmp/$v.got"
    cmp -s "$tmp/$v.got" "$tmp/$v.expected"
    ok $? "$v: the stacks, counts and thread names the generator wrote"
    [ $rc -ne 0 ] && diag "$err"
    : >"$tmp/$v.gottotals"
    for t in alloc_objects alloc_space contentions cpu delay native samples; do
        "$conv" "$f" --to=folded --sample-type $t |
            awk -v t=$t '{s += $NF} END {printf "%s %d\n", t, s}' >>"$tmp/$v.gottotals"
    done
    cmp -s "$tmp/$v.gottotals" "$tmp/$v.totals"
    ok $? "$v: the totals of every sample type"
    run "$check" "$f"
    is "$rc" 0 "$v: pprof-check finds no error"
done

f="$tmp/asprof-2.0.jfr"
run "$conv" --from=jfr "$f" -o "$tmp/a.pb.gz"
is "$rc" 0 "--from=jfr"
run "$conv" --from=jfr "$here/gen_jfr.py" -o "$tmp/b.pb.gz"
[ "$rc" -ne 0 ]
ok $? "--from=jfr refuses what is not JFR"
run "$conv" "$f" --event cpu -o "$tmp/cpu.pb"
"$dump" "$tmp/cpu.pb" >"$tmp/cpu.txt" 2>&1
grep -q '^samples/count cpu/nanoseconds$' "$tmp/cpu.txt"
ok $? "--event cpu: only the CPU sample types"
run "$conv" "$f" --event native --to=folded --sample-type native --labels thread
is "$out" "thread=native-os;java.lang.Thread.run;Main.work;__GI_read 2" "--event native: jdk.NativeMethodSample"
run "$conv" "$f" --event jdk.ThreadPark --to=folded --sample-type delay
is "$out" "Main.main;Main.compute;java.util.HashMap.get 3000000" "--event jdk.ThreadPark"
run "$conv" "$f" --event no.such.Event -o "$tmp/x.pb"
is "$rc" 2 "--event with an unknown name is a usage error"
run "$conv" "$f" --timestamps --to=folded --sample-type samples --labels timestamp_unix_nano
printf '%s\n' "$out" | grep -q '^timestamp_unix_nano=1700000000000000505;'
ok $? "--timestamps: ticks mapped to wall time through the chunk header"
python3 -c "import gzip, sys; sys.stdout.buffer.write(gzip.compress(open(sys.argv[1], 'rb').read()))" \
    "$f" >"$tmp/a.jfr.gz"
run "$conv" "$tmp/a.jfr.gz" --event cpu --to=folded --sample-type samples
printf '%s\n' "$out" | grep -q '^Main.main;Main.compute;java.util.HashMap.get 3$'
ok $? "a gzipped recording with --event (and so --from=jfr)"
run "$conv" "$f" --to=otlp -o "$tmp/a.otlp"
is "$rc" 0 "--to=otlp straight from JFR"
run "$conv" "$tmp/a.otlp" --to=folded --sample-type samples
[ -n "$out" ]
ok $? "the OTLP output reads back"
run "$conv" "$f" --event lock --to=otlp -o "$tmp/l.otlp"
is "$rc" 0 "--event with --to=otlp"

# cut inside the chunk: refused with the offset, kept with --allow-truncated
size=$(wc -c <"$tmp/jdk-2.1.jfr")
head -c $((size - 40)) "$tmp/jdk-2.1.jfr" >"$tmp/cut.jfr"
run "$conv" "$tmp/cut.jfr" -o "$tmp/cut.pb"
is "$rc" 1 "a recording cut mid-chunk is refused"
printf '%s' "$err" | grep -q "ends inside a chunk"
ok $? "naming the cut"
run "$conv" "$tmp/cut.jfr" --allow-truncated -o "$tmp/cut.pb"
is "$rc" 0 "--allow-truncated reads it"
printf '%s' "$err" | grep -q "events kept"
ok $? "--allow-truncated says how many events were kept"
# damaged on purpose: refused with exit 1, naming the byte
for f in "$tmp"/bad-*.jfr; do
    name=$(basename "$f" .jfr)
    run "$conv" "$f" -o "$tmp/bad.pb"
    is "$rc" 1 "$name: refused"
    printf '%s' "$err" | grep -Eq "$(cat "$tmp/$name.says").*\(byte [0-9]+\)"
    ok $? "$name: the message says what and where ($err)"
done
done_testing
