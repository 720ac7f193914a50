#!/bin/sh
# gperftools recordings hold addresses only; their mappings name the recorded binaries, so
# pprof-symbolize names the program's functions. Skips without gperftools.
# Usage: symbolize.sh PPROF_SYMBOLIZE PPROF_TOP
set -u
. "$(dirname "$0")/../tap.sh"
sym=$1
top=$2
src=${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}
work=$(mktemp -d "${TMPDIR:-/tmp}/legacy-sym.XXXXXX")
trap 'rm -rf "$work"' EXIT
KEEP=1 sh "$src/tests/legacy/record.sh" "$work" >/dev/null 2>&1 || skip_all "no gperftools recording (libgoogle-perftools-dev)"
n=0
fail=0
check() { # file, functions that must be named
    f=$1
    shift
    n=$((n + 1))
    if ! "$sym" "$work/$f" -o "$work/sym.pb.gz" >/dev/null 2>"$work/err"; then
        echo "not ok $n - $f: pprof-symbolize failed: $(head -c 300 "$work/err")"
        fail=$((fail + 1))
        return
    fi
    "$top" "$work/sym.pb.gz" >"$work/top.txt" 2>&1
    for fn in "$@"; do
        grep -q " $fn\$" "$work/top.txt" || { echo "# $fn missing"; missing=1; }
    done
    if [ -z "${missing:-}" ]; then
        echo "ok $n - $f: $* named"
    else
        echo "not ok $n - $f: not every function named"
        sed 's/^/# /' "$work/top.txt" | head -12
        fail=$((fail + 1))
    fi
    missing=
}
check gperftools-cpu.prof leaf mid main
check tcmalloc-heap.heap big small main
echo "1..$n"
[ $fail -eq 0 ]
