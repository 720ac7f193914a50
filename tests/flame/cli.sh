#!/bin/sh
# pprof-flame from the command line: usage and exit codes, the format from OUT's name, stdin,
# every sample type in the page, --sample-type, filters applied first, --base with delta,
# folded input (given and detected), the SVG's options, broken and empty inputs. Outputs are
# parsed with python3's json and xml.etree. TAP.
# Usage: cli.sh PPROF_FLAME PPROF_TOP PPROF_CONVERT
set -u
flame=$1 top=$2 conv=$3
here=$(cd "$(dirname "$0")" && pwd)
src=${PPROF_SOURCE_ROOT:-$here/../..}
data=$src/tests/report/data
work=$(mktemp -d "${TMPDIR:-/tmp}/flame-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
t() {
    want=$1 desc=$2
    shift 2
    "$@" > "$work/out" 2> "$work/err"
    got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc (exit $got)"; else flunk "$desc: exit $got, want $want" "$(head -c 400 "$work/err")"; fi
}
grep_err() { if grep -Eq -- "$1" "$work/err"; then pass "$2"; else flunk "$2" "stderr: $(head -c 400 "$work/err")"; fi; }
# py DESCRIPTION PYTHON-EXPRESSION-ON-FILE: passes when the expression is true; f = the file
py() {
    desc=$1 file=$2 expr=$3
    if python3 - "$file" "$expr" > "$work/py" 2>&1 <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
path, expr = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
text = raw.decode('utf-8')
def page(t=text):
    m = re.search(r'<script type="application/json" id="pprof-flame-data">(.*?)</script>', t, re.S)
    return json.loads(m.group(1))
def svg():
    return ET.fromstring(raw)
NS = '{http://www.w3.org/2000/svg}'
sys.exit(0 if eval(expr) else 1)
EOF
    then pass "$desc"; else flunk "$desc" "$(head -c 400 "$work/py")"; fi
}

fib=$data/cpu-fib.pb.gz base=$data/heap-base.pb.gz new=$data/heap-new.pb.gz

t 0 "--help" "$flame" --help
grep -q -- "--minwidth" "$work/out" && pass "--help lists --minwidth" || flunk "--help lists --minwidth"
t 0 "--version" "$flame" --version
t 2 "no input" "$flame"
t 2 "two inputs" "$flame" "$fib" "$fib"
t 2 "unknown option" "$flame" --nope "$fib"
t 2 "unknown format" "$flame" --format=png "$fib"
t 2 "unknown palette" "$flame" --colors=pink "$fib"
grep_err "unknown palette 'pink'" "the palette is named"
t 2 "bad --minwidth" "$flame" --minwidth=wide "$fib"
t 2 "bad --width" "$flame" --width=5 "$fib"
t 2 "--normalize without --base" "$flame" --normalize "$fib"
t 2 "--from=perf" "$flame" --from=perf "$fib"
t 2 "unknown sample type" "$flame" --sample-type nope "$fib" -o "$work/x.html"
grep_err "must be one of: samples cpu" "the sample types are named"
t 3 "missing input" "$flame" "$work/none.pb.gz"
t 2 "output over the input" "$flame" "$fib" -o "$fib"

# the format follows OUT's name
t 0 "html by name" "$flame" "$fib" -o "$work/f.html"
py "html: one page, data block with both types, default cpu" "$work/f.html" \
    "text.startswith('<!DOCTYPE html>') and [x['type'] for x in page()['types']] == ['samples', 'cpu'] and page()['default'] == 1"
py "html: CSP declared, nothing fetched" "$work/f.html" \
    "\"default-src 'none'\" in text and not re.search(r'(src|href)=\"(https?:)?//', text)"
py "html: root == total, 13 names or more" "$work/f.html" \
    "page()['nodes']['value'][1][0] == page()['total'][1] == 29740000000 and len(page()['names']) > 13"
t 0 "svg by name" "$flame" "$fib" -o "$work/f.svg"
py "svg: well-formed, frames with titles NAME (VALUE UNIT, P%)" "$work/f.svg" \
    "any(re.match(r'^main\.calculateFib \([0-9,]+ nanoseconds, [0-9.]+%\)$', t.text) for t in svg().iter(NS + 'title'))"
t 0 "json by name" "$flame" "$fib" -o "$work/f.json"
py "json: d3 tree, root value = total" "$work/f.json" \
    "json.loads(text)['name'] == 'root' and json.loads(text)['value'] == 29740000000"
t 0 "--format overrides the name" "$flame" "$fib" --format=json -o "$work/g.html"
py "json written to .html when asked" "$work/g.html" "json.loads(text)['value'] == 29740000000"
t 0 "stdin to stdout" sh -c "\"$flame\" --format=svg - < \"$fib\" > \"$work/stdin.svg\""
cmp -s "$work/stdin.svg" "$work/f.svg" && flunk "stdin svg names its source '-'" || pass "stdin svg differs only by its source name"
py "stdin svg parses" "$work/stdin.svg" "svg().tag == NS + 'svg'"
t 0 "html to stdout by default" sh -c "\"$flame\" \"$fib\" > \"$work/h.html\""
py "stdout is html" "$work/h.html" "page()['total'][0] == 2974"

# sample type, filters, granularity, reverse
t 0 "--sample-type samples" "$flame" --sample-type samples "$fib" -o "$work/s.json"
py "json shows samples" "$work/s.json" "json.loads(text)['value'] == 2974"
t 0 "--focus keeps matching stacks" "$flame" --focus allocMem "$fib" -o "$work/focus.json"
py "focus: only main.allocMem's samples" "$work/focus.json" \
    "json.loads(text)['value'] == 10000000"
"$top" --focus allocMem --format=json "$fib" > "$work/top.json"
t 0 "--lines" "$flame" --lines "$fib" -o "$work/l.json"
py "lines: frames are 'function file:line'" "$work/l.json" \
    "re.search(r'\"name\":\"main\.calculateFib [^\"]*\.go:[0-9]+\"', text) is not None"
t 0 "--reverse" "$flame" --reverse "$fib" -o "$work/r.json"
py "reverse: a leaf function at the root" "$work/r.json" \
    "'math/big.addVV' in [c['name'] for c in json.loads(text)['children']]"
t 0 "--inverted --hash --colors=lang --title" "$flame" --inverted --hash --colors=lang --title 'T<&>' "$fib" -o "$work/i.svg"
py "svg: inverted, title escaped" "$work/i.svg" \
    "svg().get('data-inverted') == '1' and svg().find(NS + 'text').text == 'T<&>'"
py "--hash: the same name, the same colour" "$work/i.svg" \
    "len({(t.text.rsplit(' (', 1)[0], r.get('fill')) for g in svg().iter(NS + 'g') for t in g.findall(NS + 'title') for r in g.findall(NS + 'rect')}) == len({t.text.rsplit(' (', 1)[0] for t in svg().iter(NS + 'title')})"
t 0 "--minwidth 5%" "$flame" --minwidth 5% "$fib" -o "$work/m.svg"
py "--minwidth 5%: fewer frames, root still the total" "$work/m.svg" \
    "5 < len(list(svg().iter(NS + 'title'))) < 40 and '29,740,000,000' in next(svg().iter(NS + 'title')).text"
t 0 "html --minwidth 0.5%" "$flame" --minwidth 0.5% "$fib" -o "$work/m.html"
py "html carries the minwidth as a percentage" "$work/m.html" "page()['minwidth'] == '0.5%'"

# differential
t 0 "--base json" "$flame" --base "$base" "$new" -o "$work/d.json"
py "diff json: delta on the root" "$work/d.json" "'delta' in json.loads(text)"
t 0 "--base html" "$flame" --base "$base" --normalize "$new" -o "$work/d.html"
py "diff html: base block, normalized, default title" "$work/d.html" \
    "page()['base']['normalized'] and page()['title'] == 'Differential Flame Graph' and page()['base']['value'][0][0] == page()['total'][0]"
t 0 "--base svg" "$flame" --base "$base" "$new" -o "$work/d.svg"
py "diff svg: titles carry base and delta" "$work/d.svg" \
    "'delta' in next(svg().iter(NS + 'title')).text"
t 1 "--base with other sample types" "$flame" --base "$fib" "$new" -o "$work/x.html"
grep_err "PPROF_E_INCOMPATIBLE" "incompatible base named"

# folded input
printf 'main;a;b 3\nmain;a 2\nmain;c 5\n' > "$work/in.folded"
t 0 "--from=folded" "$flame" --from=folded "$work/in.folded" -o "$work/fo.json"
py "folded: total 10" "$work/fo.json" "json.loads(text)['value'] == 10"
t 0 "folded detected" "$flame" "$work/in.folded" -o "$work/fo2.json"
cmp -s "$work/fo.json" "$work/fo2.json" && pass "detected folded = --from=folded" || flunk "detected folded differs"
"$conv" "$fib" --to=folded -o "$work/fib.folded"
t 0 "pprof-convert --to=folded output reads back" "$flame" "$work/fib.folded" -o "$work/ff.json"
py "folded fib: the same total (cpu)" "$work/ff.json" "json.loads(text)['value'] == 29740000000"
printf 'main;a x\n' > "$work/bad.folded"
t 1 "malformed folded input" "$flame" --from=folded "$work/bad.folded"
grep_err "line\[1\]" "the bad line is named"

# broken and empty
t 1 "broken profile: the checker's error" "$flame" "$src/corpus/check/n_duplicate-id.pb" -o "$work/x.html"
grep_err "function id 1 is also used" "the checker's finding is printed"
t 1 "truncated gzip" "$flame" "$src/corpus/check/n_compression.pb" -o "$work/x.html"
t 0 "no samples left after --focus" "$flame" --focus nomatch "$fib" -o "$work/e.html"
py "empty: a page with total 0" "$work/e.html" "page()['total'] == [0, 0] and len(page()['nodes']['parent']) == 1"
t 0 "no samples, svg" "$flame" --focus nomatch "$fib" -o "$work/e.svg"
py "empty svg says No samples" "$work/e.svg" "any(t.text == 'No samples' for t in svg().iter(NS + 'text'))"

echo "1..$n"
[ "$fail" -eq 0 ]
