#!/bin/sh
# pprof-dump: options, exit codes, text and JSON listings, stdin, -o.
# Usage: test_dump.sh PPROF-DUMP PPROF-CONVERT
dump=$1
conv=$2
. "$(dirname "$0")/tap.sh"
corpus="${PPROF_REAL_CORPUS:-${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/corpus/real}"
src="$corpus/parca/query-profile-with-labels.pb.gz"
if [ ! -f "$src" ]; then
    skip_all "no corpus file $src"
fi

run "$dump" --help
expect_rc 0 "--help"
has "$out" '^Usage: pprof-dump' "--help prints the usage"
run "$dump" --version
expect_rc 0 "--version"
has "$out" '^pprof-dump \(libpprof\) [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"
run "$dump" --jsn "$src"
expect_rc 2 "unknown option"
run "$dump"
expect_rc 2 "no input"
run "$dump" "$tmp/missing"
expect_rc 3 "missing file"
has "$err" "missing: .*\[PPROF_E_IO\]" "the missing file is named"
printf '\377\377' >"$tmp/garbage"
run "$dump" "$tmp/garbage"
expect_rc 1 "garbage"
has "$err" "garbage: error: .*\(byte [0-9]+\) \[PPROF_E_WIRE\]" "garbage: file, byte, code"

run "$dump" "$src"
expect_rc 0 "text listing"
has "$out" '^PeriodType: ' "header"
has "$out" '^Samples:' "samples section"
has "$out" '^Locations' "locations section"
has "$out" '^Mappings' "mappings section"
has "$out" ':\[' "labels are listed"
printf '%s\n' "$out" >"$tmp/ref.txt"
# the listing is of Go's merge of the profile: locations numbered in order of their first use
# by the samples; --as-is keeps the profile as stored (this one's ids are in another order)
first_use() {
    awk '/^Samples:/ {s = 1; next} /^Locations/ {exit bad || !n}
         s && /: / {sub(/^[^:]*: /, ""); for (i = 1; i <= NF && $i ~ /^[0-9]+$/; i++)
             if (!($i in seen)) {seen[$i] = 1; n++; if ($i != n) bad = 1}}
         END {exit bad || !n}' "$1"
}
first_use "$tmp/ref.txt"
ok $? "locations numbered in order of first use, as go tool pprof -raw lists them"
run "$dump" --as-is "$src"
expect_rc 0 "--as-is"
printf '%s\n' "$out" >"$tmp/asis.txt"
! first_use "$tmp/asis.txt"
ok $? "--as-is lists the profile as stored, its own ids"

"$dump" - <"$src" >"$tmp/stdin.txt"
cmp -s "$tmp/ref.txt" "$tmp/stdin.txt"
ok $? "'-' reads stdin, same listing"
run "$dump" "$src" -o "$tmp/o.txt"
expect_rc 0 "-o FILE"
cmp -s "$tmp/ref.txt" "$tmp/o.txt"
ok $? "-o writes the same listing"

run "$dump" --json "$src"
expect_rc 0 "--json"
printf '%s\n' "$out" >"$tmp/a.json"
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
need = ["sample_type", "sample", "mapping", "location", "function", "string_table"]
assert all(k in d for k in need), "missing keys"
assert len(d["sample"]) > 0 and d["string_table"][0] == ""
' "$tmp/a.json"
    ok $? "--json parses as JSON with every table"
    # every corpus file, checked by one interpreter (starting one per file is slow)
    mkdir "$tmp/json"
    i=0
    for f in "$corpus"/*/*; do
        case $f in */SOURCES.txt) continue ;; esac
        i=$((i + 1))
        "$dump" --json "$f" >"$tmp/json/$i.json" 2>/dev/null || rm -f "$tmp/json/$i.json"
    done
    python3 -c '
import json, os, sys
bad = []
files = os.listdir(sys.argv[1])
for f in files:
    try:
        json.load(open(os.path.join(sys.argv[1], f), encoding="utf-8"))
    except Exception as e:
        bad.append("%s: %s" % (f, e))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad or len(files) < 10 else 0)
' "$tmp/json"
    all=$?
    ok $all "--json output of every corpus file parses"
else
    skip "--json parses" "no python3"
    skip "--json of every corpus file" "no python3"
fi

# the same profile in every container gives the same listing
for c in none zstd gzip; do
    "$conv" --compress=$c "$src" -o "$tmp/x.$c"
    "$dump" "$tmp/x.$c" >"$tmp/x.txt"
    cmp -s "$tmp/ref.txt" "$tmp/x.txt"
    ok $? "listing of the $c re-encoding is the same"
done

done_testing
