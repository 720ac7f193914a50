#!/bin/sh
# Records a two-thread Java program with the JDK's flight recorder (settings=profile, a few
# seconds) and holds pprof-convert against the JDK's own reader, `jfr print --json`:
#  - the CPU samples as folded stacks at function granularity (the Java thread name as the
#    root) equal the jdk.ExecutionSample events, stack for stack and count for count;
#  - the alloc_space total equals the sum of the jdk.ObjectAllocationSample weights;
#  - the samples carry both threads' names; pprof-check finds no error;
#  - with --timestamps every CPU sample has timestamp_unix_nano, within the recording's run.
# Skips (TAP: 1..0 # SKIP) when java, javac, jfr or python3 is missing.
# usage: record.sh PPROF-CONVERT PPROF-CHECK
set -u
conv=$1 check=$2
here=$(dirname "$0")
. "$here/../cli/tap.sh"
for t in java javac jfr python3; do
    command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
javac -d "$tmp" "$here/progs/TwoThreads.java" >"$tmp/javac.log" 2>&1 ||
    skip_all "javac failed: $(head -c 300 "$tmp/javac.log")"
rec="$tmp/rec.jfr"
t0=$(date +%s)
java -XX:StartFlightRecording=settings=profile,filename="$rec" -cp "$tmp" TwoThreads 2 \
    >"$tmp/java.log" 2>&1
ok $? "java -XX:StartFlightRecording records the program"
t1=$(date +%s)
[ -s "$rec" ] || {
    diag "$(tail -5 "$tmp/java.log")"
    done_testing
    exit 1
}

jfr print --json --stack-depth 4096 --events jdk.ExecutionSample "$rec" >"$tmp/cpu.json"
ok $? "jfr print --json of jdk.ExecutionSample"
jfr print --json --stack-depth 1 --events jdk.ObjectAllocationSample "$rec" >"$tmp/alloc.json"
ok $? "jfr print --json of jdk.ObjectAllocationSample"

run "$conv" "$rec" --to=folded --sample-type samples --labels thread -o "$tmp/cpu.folded"
expect_rc 0 "pprof-convert --to=folded of the recording"
python3 "$here/jfr_compare.py" stacks "$tmp/cpu.json" "$tmp/cpu.folded"
ok $? "the CPU samples equal jfr print's, stack for stack and count for count"
run "$conv" "$rec" --to=folded --sample-type alloc_space -o "$tmp/alloc.folded"
expect_rc 0 "pprof-convert --to=folded --sample-type alloc_space"
python3 "$here/jfr_compare.py" weight "$tmp/alloc.json" "$tmp/alloc.folded"
ok $? "the alloc_space total equals the sum of jdk.ObjectAllocationSample weights"

run "$conv" "$rec" --to=folded --sample-type samples --labels thread
printf '%s\n' "$out" | grep -q '^thread=cpu-worker;' && printf '%s\n' "$out" | grep -q '^thread=alloc-worker;'
ok $? "the samples carry the Java thread names (cpu-worker, alloc-worker)"
printf '%s\n' "$out" | grep -q -v '^thread='
[ $? -ne 0 ]
ok $? "every CPU sample has its thread name"
run "$conv" "$rec" --timestamps --to=folded --sample-type samples --labels timestamp_unix_nano
expect_rc 0 "pprof-convert --timestamps --to=folded"
all=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/cpu.folded")
printf '%s\n' "$out" | awk -v t0="$t0" -v t1="$t1" -v all="$all" '
    { if (!match($0, /^timestamp_unix_nano=[0-9]+;/)) bad++
      ns = substr($0, 21, RLENGTH - 21) / 1e9
      if (ns < t0 - 1 || ns > t1 + 1) bad++
      n += $NF }
    END { exit !(bad == 0 && n == all && n > 0) }'
ok $? "--timestamps: every CPU sample has timestamp_unix_nano within the run ($all samples)"
run "$check" "$rec"
expect_rc 0 "pprof-check of the recording finds no error"
run "$conv" "$rec" -o "$tmp/rec.pb.gz"
expect_rc 0 "pprof-convert rec.jfr -o rec.pb.gz (detected from the bytes)"
run "$check" "$tmp/rec.pb.gz"
expect_rc 0 "pprof-check of the converted profile finds no error"
run "$conv" "$rec" --to=otlp -o "$tmp/rec.otlp"
expect_rc 0 "pprof-convert --to=otlp straight from the recording"
done_testing
