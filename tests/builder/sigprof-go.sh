#!/bin/sh
# `go tool pprof -top` reads the SIGPROF example's profile and ranks workload_hot among the
# first rows. Skips (77) without Go.
# usage: sigprof-go.sh SIGPROF WORKDIR
set -u
command -v go >/dev/null 2>&1 || { echo "go not found: skipping"; exit 77; }
dir=$2/sigprof-go.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
export HOME="${HOME:-/tmp}" GOTOOLCHAIN=local
"$1" -o "$dir/cpu.pb.gz" --seconds 1.5 || { echo "sigprof failed"; exit 1; }
out=$(go tool pprof -top "$dir/cpu.pb.gz" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# rows follow the "flat  flat%   sum%" header; workload_hot must be in the first two
echo "$out" | sed -n '/flat%/,$p' | sed -n '2,3p' | grep -q workload_hot ||
    { echo "workload_hot is not among the top 2 rows"; exit 1; }
