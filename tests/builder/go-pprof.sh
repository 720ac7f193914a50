#!/bin/sh
# Go differential: `go tool pprof -raw` must read every builder output. Skips (77) without Go.
# usage: go-pprof.sh BUILDER_GEN WORKDIR
set -u
command -v go >/dev/null 2>&1 || { echo "go not found: skipping"; exit 77; }
gen=$1
dir=$2/go-pprof.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
files=$("$gen" "$dir") || { echo "builder_gen failed"; exit 1; }
export HOME="${HOME:-/tmp}" GOFLAGS=-mod=mod GOTOOLCHAIN=local
rc=0
for f in $files; do
    case $f in
    *.zst) # Go pprof reads raw and gzip only: hand it the zstd output decompressed by zstd(1)
        command -v zstd >/dev/null 2>&1 || { echo "skip (no zstd): $f"; continue; }
        zstd -q -d -c "$f" >"$f.raw" || { echo "zstd could not decompress $f"; rc=1; continue; }
        f=$f.raw ;;
    esac
    if out=$(go tool pprof -raw "$f" 2>&1); then
        echo "ok: $f"
        case ${f##*/} in
        builder-a*) echo "$out" | grep -q "inlined_helper" || { echo "missing inlined frame in $f"; rc=1; } ;;
        builder-b*) echo "$out" | grep -q "open_caller" || { echo "missing open sample in $f"; rc=1; } ;;
        esac
    else
        echo "go tool pprof rejected $f:"; echo "$out"; rc=1
    fi
done
exit $rc
