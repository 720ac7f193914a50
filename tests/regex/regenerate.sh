#!/bin/sh
# Reruns gen.go with the installed Go and compares with the checked-in expected.tsv: the table
# the unit test reads is Go's answer, not a copy of ours. Skips (TAP: 1..0 # SKIP, exit 0) when Go is absent.
. "$(dirname "$0")/../tap.sh"
command -v go >/dev/null 2>&1 || skip_all "no go"
dir=$PPROF_SOURCE_ROOT/tests/regex
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
cache=${GOCACHE:-$(mktemp -d)}
GOCACHE=$cache GOFLAGS=-mod=mod go run "$dir/gen.go" "$dir/cases.txt" >"$out" 2>&1
rc=$?
echo "1..2"
if [ $rc -eq 0 ]; then echo "ok 1 - go run gen.go"; else echo "not ok 1 - go run gen.go: $(head -3 "$out")"; fi
if cmp -s "$out" "$dir/expected.tsv"; then
    echo "ok 2 - expected.tsv is what Go answers today"
else
    echo "not ok 2 - expected.tsv differs from Go's answers (go run tests/regex/gen.go tests/regex/cases.txt >tests/regex/expected.tsv)"
    diff "$out" "$dir/expected.tsv" | head -10 | sed 's/^/# /'
fi
