#!/bin/sh
# pprof-report without Go: each format on the checked-in profiles against golden outputs that
# `go tool pprof -symbolize=none` printed (tests/report/golden/report-*, TZ=UTC), JSON forms
# parsed, usage errors. TAP. Usage: render.sh PPROF_REPORT PPROF_TOP
set -u
rep=$1 top=$2
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data gold=$here/golden
work=$(mktemp -d "${TMPDIR:-/tmp}/report-render.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TZ=UTC
n=0
fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# g GOLDEN ARGS...: stdout equals golden/GOLDEN
g() {
    name=$1
    shift
    if ! "$rep" "$@" > "$work/out" 2> "$work/err"; then
        flunk "$name: exit $?" "$(head -c 300 "$work/err")"
    elif cmp -s "$work/out" "$gold/$name"; then
        pass "$name"
    else
        flunk "$name differs" "$(diff "$gold/$name" "$work/out" | head -8)"
    fi
}
fib=$data/cpu-fib.pb.gz labels=$data/labels.pb.gz heap=$data/heap-new.pb.gz
for f in fib labels heap; do
    eval "p=\$$f"
    g "report-$f.traces" --traces "$p"
    g "report-$f.tags" --tags "$p"
    g "report-$f.tree" --tree "$p"
    g "report-$f.dot" --dot "$p"
    g "report-$f.callgrind" --callgrind "$p"
    g "report-$f-cum10.dot" --dot --cum --nodecount=10 "$p"
    g "report-$f-lines.tree" --tree --lines "$p"
done
g report-fib-peek.tree --peek 'big\.' "$fib"
# --list: goldens are `go tool pprof -list` on the heap profile of data/listprog (every
# allocation sampled), built in /tmp/listprog-golden, which is gone: found again through the trim
# and source paths (and the source path's parents), or said missing, absolute and relative
lheap=$data/list-heap.pb.gz
g report-list-main --list 'main\.' --trim-path /tmp/listprog-golden --source-path "$data/listprog" "$lheap"
g report-list-parent --list '^main\.(large|grow)$' --sample-index alloc_objects \
    --trim_path=/tmp/listprog-golden --source_path="$data/listprog/no/such/dir" "$lheap"
g report-list-missing --list 'main\.' "$lheap"
g report-list-missing-rel --list 'main\.' --trim-path /tmp/listprog-golden --source-path /nonexistent/dir "$lheap"
"$rep" --list 'no_such_function_anywhere' "$lheap" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no matches found for regexp: no_such" "$work/err" && pass "list without match: exit 2, said" || flunk "list without match: exit $rc"
"$rep" --list '(' "$lheap" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "bad list regexp: exit 2" || flunk "bad list regexp: exit $rc"
"$rep" --list 'main' --json "$lheap" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "list has no JSON: exit 2" || flunk "list --json: exit $rc"
# Go's scanner: "\r\n" read as a line end; a line of 64 KiB or more ends the file, quietly
mkdir "$work/crlf" "$work/long"
sed 's/$/\r/' "$data/listprog/main.go" > "$work/crlf/main.go"
"$rep" --list '^main\.large$' --trim-path /tmp/listprog-golden --source-path "$work/crlf" "$lheap" > "$work/crlf.out"
"$rep" --list '^main\.large$' --trim-path /tmp/listprog-golden --source-path "$data/listprog" "$lheap" > "$work/lf.out"
[ -s "$work/lf.out" ] && cmp -s "$work/crlf.out" "$work/lf.out" && pass "list: CRLF sources print as LF ones" || flunk "list: CRLF" "$(diff "$work/lf.out" "$work/crlf.out" | head -5)"
awk 'NR == 22 { s = "//"; while (length(s) < 65536) s = s "x"; print s } { print }' "$data/listprog/main.go" > "$work/long/main.go"
"$rep" --list '^main\.large$' --trim-path /tmp/listprog-golden --source-path "$work/long" "$lheap" > "$work/long.out"
[ "$(tail -n 1 "$work/long.out" | cut -c 1-30)" = "         .          .     21:f" ] && pass "list: a 64 KiB line ends the source" || flunk "list: long line" "$(tail -n 2 "$work/long.out" | cut -c 1-60)"
# --svg: goldens are `go tool pprof -svg` (Debian 12's Graphviz 2.43) with the pan/zoom
# script's text cut out, since that script is ours (docs/report.md, "SVG")
svg() {
    name=$1
    shift
    if ! "$rep" --svg "$@" > "$work/svg" 2> "$work/err"; then
        flunk "$name: exit $?" "$(head -c 300 "$work/err")"
        return
    fi
    perl -0pe 's/<!\[CDATA\[.*?\]\]>/<![CDATA[]]>/s' "$work/svg" > "$work/out"
    if cmp -s "$work/out" "$gold/$name"; then
        pass "$name (pan/zoom script cut)"
    else
        flunk "$name differs" "$(diff "$gold/$name" "$work/out" | head -8)"
    fi
}
svg report-fib.svg "$fib"
svg report-heap.svg "$heap"
for f in fib labels heap; do
    eval "p=\$$f"
    svg "report-$f-cum10.svg" --cum --nodecount=10 "$p"
done
# the document is XML with Go's structure: our script, then the viewport group around the graph
if "$rep" --svg "$labels" > "$work/svg" && python3 - "$work/svg" > "$work/err" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.get("width") == "100%" and root.get("height") == "100%" and root.get("viewBox") is None, root.attrib
kids = list(root)
assert kids[0].tag == ns + "script" and "addEventListener('wheel'" in kids[0].text, kids[0].tag
assert kids[1].tag == ns + "g" and kids[1].get("id") == "viewport", kids[1].attrib
assert kids[1][0].get("id") == "graph0", kids[1][0].attrib
PY
then pass "--svg: XML with the pan/zoom script and the viewport group"; else flunk "--svg structure" "$(head -c 300 "$work/err")"; fi
# names that break naive text: the mapping file a"b\ must not end the dot strings early, and a
# Latin-1 name and a control byte must not reach the SVG (XML allows neither)
hostile=$data/hostile-names.pb
if "$rep" --dot "$hostile" > "$work/out" 2> "$work/err" &&
    head -1 "$work/out" | grep -qF 'digraph "a\"b\\" {'; then
    pass "--dot: the title's quote and trailing backslash are escaped"
else
    flunk "--dot title" "$(head -c 300 "$work/out") $(head -c 300 "$work/err")"
fi
if "$rep" --svg "$hostile" > "$work/svg" 2> "$work/err" && python3 - "$work/svg" > "$work/err" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
assert "caf\ufffd" in text and "ctl\ufffdname" in text, text
PY
then pass "--svg of names with Latin-1 and control bytes: well-formed XML, U+FFFD in their place"; else flunk "--svg hostile names" "$(head -c 300 "$work/err")"; fi
"$rep" --svg --json "$fib" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no JSON form" "$work/err" && pass "svg has no JSON: exit 2, said" || flunk "svg --json: exit $rc"
# pprof-top is pprof-report --top
"$top" -n 12 "$fib" > "$work/a"
"$rep" --top -n 12 "$fib" > "$work/b"
if cmp -s "$work/a" "$work/b"; then pass "pprof-top = pprof-report --top"; else flunk "pprof-top differs from pprof-report --top"; fi
# JSON forms are JSON
for fmt in traces tags tree dot; do
    if "$rep" --$fmt --json "$labels" > "$work/j" && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/j" 2> "$work/err"; then
        pass "--$fmt --json parses"
    else
        flunk "--$fmt --json" "$(head -c 300 "$work/err")"
    fi
done
# usage and input errors
"$rep" "$fib" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "no format: exit 2" || flunk "no format: exit $rc"
"$rep" --dot --tree "$fib" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "two formats: exit 2" || flunk "two formats: exit $rc"
"$rep" --peek '(' "$fib" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "bad peek regexp: exit 2" || flunk "bad peek regexp: exit $rc"
"$rep" --peek 'no_such_function_anywhere' "$fib" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no matches found" "$work/err" && pass "peek without match: exit 2, said" || flunk "peek without match: exit $rc"
"$rep" --dot "$work/none.pb.gz" > /dev/null 2>&1; rc=$?
[ $rc -eq 3 ] && pass "missing file: exit 3" || flunk "missing file: exit $rc"
"$rep" --callgrind --json "$fib" > /dev/null 2>&1; rc=$?
[ $rc -ne 0 ] && pass "callgrind has no JSON" || flunk "callgrind --json accepted"
# traces past the megabyte at which pprof_report_render_file moves text to the output: the
# same bytes to a file and to a pipe, and an unwritable output is an I/O error naming it
gen=${PPROF_BUILD_ROOT:-}/bench/pprof-gen
if [ -x "$gen" ] && "$gen" --preset labels --seed 3 -o "$work/big.pb" 2> /dev/null; then
    "$rep" --traces "$work/big.pb" -o "$work/t1" && "$rep" --traces "$work/big.pb" | cat > "$work/t2"
    sz=$(wc -c < "$work/t1")
    [ "$sz" -gt 1048576 ] && cmp -s "$work/t1" "$work/t2" && pass "--traces streamed: file = pipe ($sz bytes)" || flunk "--traces streamed ($sz bytes)"
fi
"$rep" --traces "$fib" -o "$work/no/such/dir/t" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 3 ] && grep -q "no/such/dir" "$work/err" && pass "unwritable output: exit 3, named" || flunk "unwritable output: exit $rc" "$(cat "$work/err")"
"$rep" --tree - < "$fib" > "$work/out" && cmp -s "$work/out" "$gold/report-fib.tree" && pass "stdin" || flunk "stdin"
echo "1..$n"
[ $fail -eq 0 ]
