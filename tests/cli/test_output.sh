#!/bin/sh
# Outputs of every tool: special files and symlinks, temporaries on signals, text over an input,
# binary to a terminal, write errors on stdout, the format from the output's name.
# Usage: test_output.sh PPROF-CONVERT PPROF-DUMP PPROF-CHECK PPROF-MERGE
conv=$1
dump=$2
check=$3
merge=$4
. "$(dirname "$0")/tap.sh"
src="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}/parca/query-fib.pb.gz"
if [ ! -f "$src" ]; then
    skip_all "no corpus file $src"
fi
cp "$src" "$tmp/in.pb.gz"
# no hidden temporary left in a directory
no_temps() {
    [ -z "$(ls -A "$1" | grep '^\.')" ]
}

# ---- 1. special files and symlinks
# A private mount namespace with its own /dev: as root, an output renamed over /dev/null would
# replace the machine's /dev/null. Each line of the inner script's output is "STATUS TEXT".
cat >"$tmp/ns.sh" <<'INNER'
conv=$1 in=$2 work=$3
mount -t tmpfs tmpfs /dev || exit 0
mknod -m 666 /dev/null c 1 3 && ln -s /proc/self/fd/1 /dev/stdout || exit 0
echo "0 ready"
"$conv" "$in" -o /dev/null
echo "$? -o /dev/null succeeds"
[ -c /dev/null ]
echo "$? /dev/null is still a character device"
[ -z "$(ls -A /dev | grep -v '^null$' | grep -v '^stdout$')" ]
echo "$? nothing else was created in /dev"
"$conv" "$in" -o /dev/stdout >"$work/devstdout.gz"
echo "$? -o /dev/stdout, stdout a file"
[ -L /dev/stdout ] && [ "$(od -An -tx1 -N2 "$work/devstdout.gz" | tr -d ' ')" = 1f8b ]
echo "$? /dev/stdout stays a link and the output went to standard output"
"$conv" "$in" -o /dev/stdout | cat >"$work/devstdout-pipe.gz"
cmp -s "$work/devstdout.gz" "$work/devstdout-pipe.gz"
echo "$? -o /dev/stdout into a pipe"
[ -z "$(ls -A /dev | grep -v '^null$' | grep -v '^stdout$')" ]
echo "$? still nothing else in /dev"
INNER
if unshare -m sh "$tmp/ns.sh" "$conv" "$tmp/in.pb.gz" "$tmp" >"$tmp/ns.out" 2>"$tmp/ns.err" &&
    grep -q '^0 ready$' "$tmp/ns.out"; then
    grep -v '^0 ready$' "$tmp/ns.out" >"$tmp/ns.res"
    while read -r st text; do
        ok "$st" "$text (private /dev)"
    done <"$tmp/ns.res"
    [ -s "$tmp/ns.err" ] && diag "$(cat "$tmp/ns.err")"
else
    skip "-o on devices in a private /dev" "unshare -m or mounting a tmpfs is not permitted"
fi

# a FIFO is written in place (a reader gets the profile; the FIFO stays)
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/from-fifo.gz" &
reader=$!
run timeout 20 "$conv" "$tmp/in.pb.gz" -o "$tmp/fifo"
expect_rc 0 "-o FIFO"
wait $reader
[ -p "$tmp/fifo" ] && [ "$(magic "$tmp/from-fifo.gz" | cut -c1-4)" = 1f8b ]
ok $? "the FIFO stays a FIFO and its reader got the profile"
# a Unix socket is connected to and written
py=$(command -v python3)
if [ -n "$py" ]; then
    "$py" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); s.settimeout(20)
open(sys.argv[1] + ".ready", "w").close()  # the path exists at bind, connections work at listen
c, _ = s.accept(); out = open(sys.argv[2], "wb")
while True:
    b = c.recv(65536)
    if not b: break
    out.write(b)
' "$tmp/sock" "$tmp/from-sock.gz" &
    listener=$!
    i=0
    while [ ! -e "$tmp/sock.ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    run timeout 20 "$conv" "$tmp/in.pb.gz" -o "$tmp/sock"
    expect_rc 0 "-o socket"
    wait $listener
    [ -S "$tmp/sock" ] && [ "$(magic "$tmp/from-sock.gz" | cut -c1-4)" = 1f8b ]
    ok $? "the socket stays and its listener got the profile"
    rm -f "$tmp/sock" "$tmp/sock.ready"
else
    skip "-o socket" "no python3 to listen"
fi
# a symlink is followed: the target is replaced atomically, the link stays
mkdir "$tmp/links"
printf 'old' >"$tmp/links/target"
ln -s target "$tmp/links/link"
ln -s "$tmp/links/dangling-target" "$tmp/links/dangling"
run "$conv" "$tmp/in.pb.gz" -o "$tmp/links/link"
expect_rc 0 "-o symlink"
[ -L "$tmp/links/link" ] && [ "$(magic "$tmp/links/target" | cut -c1-4)" = 1f8b ]
ok $? "the link stays and its target holds the profile"
run "$conv" "$tmp/in.pb.gz" -o "$tmp/links/dangling"
[ -L "$tmp/links/dangling" ] && [ "$(magic "$tmp/links/dangling-target" | cut -c1-4)" = 1f8b ]
ok $? "a dangling link: the file it names is created"
no_temps "$tmp/links"
ok $? "no temporary left beside the links"

# ---- 2. temporaries removed on signals; the file size limit is an I/O error
py=$(command -v python3)
if [ -n "$py" ] && "$py" - "$tmp/big.pb" 150000 <<'GEN'; then
# A raw profile of unique random stacks: large enough that merging and compressing it at level
# 12 keeps the temporary output in place for a while.
import random, sys
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if not n:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)
def msg(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data
def num(num, v):
    return varint(num << 3) + varint(v)
locs, samples = 20000, int(sys.argv[2])
rnd = random.Random(1)
vs = [varint(i) for i in range(locs + 1)]
out = bytearray(msg(1, num(1, 1) + num(2, 2)))
for _ in range(samples):
    ids = b"".join(vs[rnd.randrange(1, locs + 1)] for _ in range(16))
    out += msg(2, msg(1, ids) + msg(2, varint(rnd.randrange(1, 1000))))
for i in range(1, locs + 1):
    out += msg(4, num(1, i) + num(3, 0x400000 + 16 * i))
for s in (b"", b"cpu", b"nanoseconds"):
    out += msg(6, s)
open(sys.argv[1], "wb").write(out)
GEN
    mkdir "$tmp/sig"
    ulimit -c 0 # SIGQUIT dumps core by default
    for sig in INT TERM HUP QUIT; do
        # env --default-signal: an asynchronous list of a script starts with SIGINT and SIGQUIT
        # ignored, and a tool keeps a signal its caller ignored
        env --default-signal="$sig" "$merge" -q -j 2 --level 12 "$tmp/big.pb" \
            -o "$tmp/sig/out.pb.gz" 2>"$tmp/sig.err" &
        pid=$!
        i=0
        while [ $i -lt 1000 ] && [ -z "$(ls -A "$tmp/sig")" ]; do
            sleep 0.01
            i=$((i + 1))
        done
        seen=$(ls -A "$tmp/sig")
        kill -"$sig" $pid
        wait $pid
        rc=$?
        [ $rc -gt 128 ] && [ "$(kill -l $((rc - 128)))" = "$sig" ]
        ok $? "SIG$sig mid-write: the tool dies of it (exit $rc)"
        case $seen in .out.pb.gz.*) true ;; *) false ;; esac
        ok $? "SIG$sig: the temporary existed when the signal came ($seen)"
        [ -z "$(ls -A "$tmp/sig")" ]
        ok $? "SIG$sig: the temporary is removed, no output"
        rm -f "$tmp/sig"/.out* "$tmp/sig/out.pb.gz"
    done
    # 64 blocks: the raw output does not fit, the write fails with EFBIG
    (
        ulimit -f 64
        exec "$conv" --compress=none "$tmp/big.pb" -o "$tmp/sig/big-out.pb"
    ) 2>"$tmp/xfsz.err"
    rc=$?
    [ $rc -eq 3 ]
    ok $? "past the file size limit: exit 3, not SIGXFSZ (exit $rc)"
    grep -q "big-out\.pb: .*File too large.*\[PPROF_E_IO\]" "$tmp/xfsz.err"
    ok $? "the output is named with 'File too large'"
    [ -z "$(ls -A "$tmp/sig")" ]
    ok $? "no temporary and no output left past the file size limit"
else
    skip "signals" "no python3 to make a large profile"
fi

# ---- 4. every write checked, the final flush and close of stdout included
if [ -c /dev/full ]; then
    printf 'garbage\n' >"$tmp/garbage.txt"
    "$check" "$tmp/in.pb.gz" >/dev/full 2>"$tmp/full.err"
    rc=$?
    err=$(cat "$tmp/full.err")
    [ $rc -eq 3 ]
    ok $? "pprof-check FILE >/dev/full: exit 3 (exit $rc)"
    has "$err" "<stdout>: error: cannot write: No space left on device" \
        "pprof-check: the lost report is reported"
    "$check" --format=json "$tmp/in.pb.gz" >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-check --format=json >/dev/full: exit 3"
    "$check" "$tmp/garbage.txt" >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-check with findings >/dev/full: exit 3, not 1"
    "$check" --list-rules >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-check --list-rules >/dev/full: exit 3"
    for t in "$conv" "$dump" "$check" "$merge"; do
        "$t" --help >/dev/full 2>/dev/null
        ok $(($? != 3)) "$(basename "$t") --help >/dev/full: exit 3"
    done
    "$dump" "$tmp/in.pb.gz" >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-dump >/dev/full: exit 3"
    "$conv" "$tmp/in.pb.gz" >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-convert >/dev/full: exit 3"
    "$merge" -q "$tmp/in.pb.gz" >/dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-merge >/dev/full: exit 3"
    "$dump" "$tmp/in.pb.gz" -o /dev/full 2>/dev/null
    ok $(($? != 3)) "pprof-dump -o /dev/full: exit 3"
else
    skip "writes to /dev/full" "no /dev/full"
fi

# ---- 5. the output format from the output's name unless --compress is given
fmt_is() { # FILE gzip|zstd|raw
    m=$(magic "$1")
    case $2 in
    gzip) [ "${m#1f8b}" != "$m" ] ;;
    zstd) [ "$m" = 28b52ffd ] ;;
    raw) [ "${m#1f8b}" = "$m" ] && [ "$m" != 28b52ffd ] ;;
    esac
}
mkdir "$tmp/fmt"
for case in "out.zst zstd" "out.pb.zst zstd" "out.gz gzip" "out.pb.gz gzip" "out.pb raw" \
    "out.prof gzip" "out gzip"; do
    set -- $case
    run "$conv" "$tmp/in.pb.gz" -o "$tmp/fmt/$1"
    [ $rc -eq 0 ] && fmt_is "$tmp/fmt/$1" "$2"
    ok $? "pprof-convert -o $1 writes $2"
done
run "$conv" "$tmp/in.pb.gz" -o "$tmp/fmt/x.zst"
has "$err" "note: writing zstd, which .go tool pprof. cannot read" "writing zstd prints a note for Go users"
run "$conv" "$tmp/in.pb.gz" -o "$tmp/fmt/x.gz"
[ -z "$err" ]
ok $? "writing gzip prints nothing"
run "$conv" --compress=gzip "$tmp/in.pb.gz" -o "$tmp/fmt/explicit.zst"
fmt_is "$tmp/fmt/explicit.zst" gzip
ok $? "--compress wins over the name"
run "$conv" "$tmp/in.pb.gz"
fmt_is "$tmp/stdout" gzip
ok $? "standard output: gzip"
run "$merge" "$tmp/in.pb.gz" -o "$tmp/fmt/m.zst"
[ $rc -eq 0 ] && fmt_is "$tmp/fmt/m.zst" zstd
ok $? "pprof-merge -o m.zst writes zstd"
has "$err" "note: writing zstd" "pprof-merge notes zstd"
run "$merge" -q "$tmp/in.pb.gz" -o "$tmp/fmt/q.zst"
[ -z "$err" ]
ok $? "pprof-merge -q: no note"
run "$merge" "$tmp/in.pb.gz" -o "$tmp/fmt/m.pb"
[ $rc -eq 0 ] && fmt_is "$tmp/fmt/m.pb" raw
ok $? "pprof-merge -o m.pb writes raw protobuf"
run "$check" --fix "$tmp/in.pb.gz" -o "$tmp/fmt/fixed.pb"
[ $rc -eq 0 ] && fmt_is "$tmp/fmt/fixed.pb" raw
ok $? "pprof-check --fix -o fixed.pb writes raw protobuf"
run "$check" --fix "$tmp/in.pb.gz" -o "$tmp/fmt/fixed.zst"
[ $rc -eq 0 ] && fmt_is "$tmp/fmt/fixed.zst" zstd
ok $? "pprof-check --fix -o fixed.zst writes zstd"

# ---- 3. text over an input refused; binary to a terminal refused; --force for both
cp "$tmp/in.pb.gz" "$tmp/p.pb.gz"
ln -s p.pb.gz "$tmp/p-link"
run "$dump" "$tmp/p.pb.gz" -o "$tmp/p.pb.gz"
expect_rc 2 "pprof-dump P -o P is refused"
has "$err" "p\.pb\.gz is the input.*--force" "the refusal names the file and --force"
cmp -s "$tmp/in.pb.gz" "$tmp/p.pb.gz"
ok $? "the profile is intact"
run "$dump" "$tmp/p.pb.gz" -o "$tmp/p-link"
expect_rc 2 "pprof-dump P -o LINK-TO-P is refused"
run "$dump" - -o "$tmp/p.pb.gz" <"$tmp/p.pb.gz"
expect_rc 2 "pprof-dump - <P -o P is refused"
cmp -s "$tmp/in.pb.gz" "$tmp/p.pb.gz"
ok $? "the profile is still intact"
run "$dump" --force "$tmp/p.pb.gz" -o "$tmp/p.pb.gz"
expect_rc 0 "--force writes the listing over the input"
[ "$(magic "$tmp/p.pb.gz" | cut -c1-4)" != 1f8b ]
ok $? "the input now holds text"
if script -qec true /dev/null </dev/null >/dev/null 2>&1; then
    for t in "$conv" "$merge"; do
        script -qec "'$t' '$tmp/in.pb.gz'; echo rc=\$?" /dev/null </dev/null >"$tmp/tty.out" 2>&1
        grep -q "rc=2" "$tmp/tty.out" && grep -q "refusing to write a binary profile to a terminal" "$tmp/tty.out"
        ok $? "$(basename "$t") to a terminal: refused, exit 2"
        script -qec "'$t' --force '$tmp/in.pb.gz' >/dev/null; echo rc=\$?" /dev/null </dev/null >"$tmp/tty.out" 2>&1
        grep -q "rc=0" "$tmp/tty.out"
        ok $? "$(basename "$t") --force to a terminal: written"
    done
    script -qec "'$check' --fix '$tmp/in.pb.gz' -o -; echo rc=\$?" /dev/null </dev/null >"$tmp/tty.out" 2>&1
    grep -q "rc=2" "$tmp/tty.out"
    ok $? "pprof-check --fix -o - to a terminal: refused, exit 2"
    script -qec "'$conv' '$tmp/in.pb.gz' | cat >/dev/null; echo rc=\$?" /dev/null </dev/null >"$tmp/tty.out" 2>&1
    grep -q "rc=0" "$tmp/tty.out"
    ok $? "to a pipe from a terminal session: written"
else
    skip "binary output to a terminal" "script(1) cannot make a pseudo-terminal"
fi
"$dump" - <"$tmp/in.pb.gz" >>"$tmp/in.pb.gz" 2>/dev/null
ok $(($? != 2)) "pprof-dump - <P >>P is refused"
cmp -s "$tmp/in.pb.gz" "$src"
ok $? "and P is intact"
"$dump" - <"$tmp/in.pb.gz" >"$tmp/d1.txt" && "$dump" "$tmp/in.pb.gz" >"$tmp/d2.txt" && cmp -s "$tmp/d1.txt" "$tmp/d2.txt"
ok $? "pprof-dump - <P >OTHER works"
