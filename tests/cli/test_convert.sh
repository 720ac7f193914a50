#!/bin/sh
# pprof-convert: options, exit codes, stdin/stdout, in-place output, detection from bytes.
# Usage: test_convert.sh PPROF-CONVERT PPROF-DUMP
conv=$1
dump=$2
. "$(dirname "$0")/tap.sh"
src="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}/parca/query-fib.pb.gz"
if [ ! -f "$src" ]; then
    skip_all "no corpus file $src"
fi
cp "$src" "$tmp/in.pb.gz"

run "$conv" --help
expect_rc 0 "--help"
has "$out" '^Usage: pprof-convert' "--help prints the usage on stdout"
run "$conv" --version
expect_rc 0 "--version"
has "$out" '^pprof-convert \(libpprof\) [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"

run "$conv" --bogus "$tmp/in.pb.gz"
expect_rc 2 "unknown option"
has "$err" "--bogus" "the unknown option is named"
run "$conv"
expect_rc 2 "no input"
run "$conv" "$tmp/in.pb.gz" "$tmp/in.pb.gz"
expect_rc 2 "two inputs"
run "$conv" --compress=lz4 "$tmp/in.pb.gz"
expect_rc 2 "unknown --compress"
run "$conv" --level 0 "$tmp/in.pb.gz"
expect_rc 2 "--level 0"
run "$conv" "$tmp/in.pb.gz" --level
expect_rc 2 "--level without a value"

run "$conv" "$tmp/missing.pb" -o "$tmp/o"
expect_rc 3 "missing input file"
has "$err" "missing\.pb: .*\[PPROF_E_IO\]" "the missing file is named, with the I/O code"
[ ! -e "$tmp/o" ]
ok $? "no output is created when the input fails"
run "$conv" "$tmp/in.pb.gz" -o "$tmp/no/such/dir/out.pb"
expect_rc 3 "unwritable output"
has "$err" "out\.pb: .*\[PPROF_E_IO\]" "the output file is named"

printf 'garbage\n' >"$tmp/garbage.txt"
run "$conv" "$tmp/garbage.txt"
expect_rc 1 "garbage input"
has "$err" "garbage\.txt: error: .*\(byte 0\) \[PPROF_E_WIRE\]" "garbage: file, byte and code named"

# a truncated profile names the entity and the byte
"$conv" --compress=none "$tmp/in.pb.gz" -o "$tmp/raw.pb"
head -c 200 "$tmp/raw.pb" >"$tmp/cut.pb"
run "$conv" "$tmp/cut.pb"
expect_rc 1 "truncated profile"
has "$err" "cut\.pb: error: sample\[[0-9]+\]: .*\(byte [0-9]+\) \[PPROF_E_WIRE\]" \
    "truncated: the error names the file, the sample and the byte"

# formats, decided by --compress and detected from bytes on reading
run "$conv" "$tmp/in.pb.gz" -o "$tmp/out.gz"
expect_rc 0 "convert to gzip (default)"
[ "$(magic "$tmp/out.gz" | cut -c1-4)" = 1f8b ]
ok $? "default output is gzip"
"$conv" --compress=zstd "$tmp/in.pb.gz" -o "$tmp/out.zst"
[ "$(magic "$tmp/out.zst")" = 28b52ffd ]
ok $? "--compress=zstd writes zstd"
"$conv" --compress none "$tmp/in.pb.gz" -o "$tmp/out.raw"
m=$(magic "$tmp/out.raw")
[ "${m#1f8b}" = "$m" ] && [ "$m" != 28b52ffd ]
ok $? "--compress none writes raw protobuf"
"$conv" --compress=gzip --level 9 "$tmp/in.pb.gz" -o "$tmp/out9.gz"
ok $? "--level 9"
# misleading names: the bytes decide
cp "$tmp/out.zst" "$tmp/zstd-named.pb.gz"
cp "$tmp/out.gz" "$tmp/gzip-named.txt"
cp "$tmp/out.raw" "$tmp/raw-named.zst"
# --as-is: the listing of the profile as stored, ids and order included
"$dump" --as-is "$tmp/in.pb.gz" >"$tmp/ref.txt"
all=0
for f in out.gz out.zst out.raw out9.gz zstd-named.pb.gz gzip-named.txt raw-named.zst; do
    "$dump" --as-is "$tmp/$f" >"$tmp/d.txt" && cmp -s "$tmp/ref.txt" "$tmp/d.txt" || { all=1; diag "$f differs"; }
done
ok $all "every format and misleading name reads to the same listing"

# determinism and fixed point
"$conv" "$tmp/in.pb.gz" -o "$tmp/again.gz"
cmp -s "$tmp/out.gz" "$tmp/again.gz"
ok $? "converting twice gives the same bytes"
"$conv" --compress=none "$tmp/out.raw" -o "$tmp/out2.raw"
cmp -s "$tmp/out.raw" "$tmp/out2.raw"
ok $? "converting the output again gives the same bytes"

# stdin and stdout
"$conv" - <"$tmp/in.pb.gz" >"$tmp/stdout.gz"
ok $? "'-' reads stdin, stdout is the default output"
cmp -s "$tmp/out.gz" "$tmp/stdout.gz"
ok $? "stdin/stdout output equals the file output"
"$conv" "$tmp/in.pb.gz" -o - --compress=none >"$tmp/dash.raw"
cmp -s "$tmp/out.raw" "$tmp/dash.raw"
ok $? "-o - writes stdout"
run "$conv" - <"$tmp/garbage.txt"
expect_rc 1 "garbage on stdin"
has "$err" "<stdin>: error:" "stdin errors name <stdin>"

# -o naming the input: replaced atomically, mode kept; on failure the input is untouched
cp "$tmp/in.pb.gz" "$tmp/same.pb"
chmod 640 "$tmp/same.pb"
run "$conv" "$tmp/same.pb" -o "$tmp/same.pb" --compress=zstd
expect_rc 0 "-o naming the input"
[ "$(magic "$tmp/same.pb")" = 28b52ffd ]
ok $? "the input was replaced by the zstd output"
"$dump" --as-is "$tmp/same.pb" >"$tmp/d.txt" && cmp -s "$tmp/ref.txt" "$tmp/d.txt"
ok $? "and holds the same profile"
[ "$(stat -c %a "$tmp/same.pb")" = 640 ]
ok $? "its mode 640 is kept"
[ "$(ls -A "$tmp" | grep -c '^\.')" -eq 0 ]
ok $? "no temporary files are left"
# string table "" then a function whose name index 99 dangles
printf '\062\000\052\004\010\001\020\143' >"$tmp/bad.pb"
cp "$tmp/bad.pb" "$tmp/bad.orig"
run "$conv" "$tmp/bad.pb" -o "$tmp/bad.pb"
expect_rc 1 "an unwritable profile over its own input"
has "$err" "bad\.pb: error: function\[0\](\(id=1\))?\.name: .*\[PD1-string-index\]" \
    "the dangling index is named, with the checker's rule, on the input"
cmp -s "$tmp/bad.pb" "$tmp/bad.orig"
ok $? "the input is left intact"

done_testing
