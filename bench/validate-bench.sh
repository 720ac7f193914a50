#!/bin/sh
# What pprof_validate costs the tools (docs/safety.md): best-of-5 CPU seconds (user + sys) of
# each row, for one build's tools. Inputs L.pb and T.pb in the current directory:
#   BUILD/bench/pprof-gen --preset large -o L.pb
#   BUILD/bench/pprof-gen --preset labels --samples 245000 -o T.pb
# Usage: sh bench/validate-bench.sh BUILD/tools
T=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
best() {
    b=999
    for i in 1 2 3 4 5; do
        /usr/bin/time -o "$tmp/t" -f "%U %S" "$@" >/dev/null 2>&1
        s=$(tail -1 "$tmp/t" | awk '{print $1+$2}')
        b=$(echo "$s $b" | awk '{print ($1<$2)?$1:$2}')
    done
    echo "$b"
}
echo "edit-noop $(best "$T/pprof-edit" L.pb -o "$tmp/o.pb")"
echo "edit-focus $(best "$T/pprof-edit" L.pb --focus 'main\.' -o "$tmp/o.pb")"
echo "edit-T-tagfocus $(best "$T/pprof-edit" T.pb --tag-focus 'thread_name=worker-[0-3]' -o "$tmp/o.pb")"
echo "top $(best "$T/pprof-top" L.pb)"
echo "top-focus $(best "$T/pprof-top" L.pb --focus 'main\.')"
echo "merge-LL $(best "$T/pprof-merge" L.pb L.pb -o "$tmp/o.pb")"
echo "diff-o $(best "$T/pprof-diff" L.pb L.pb -q -o "$tmp/o.pb")"
