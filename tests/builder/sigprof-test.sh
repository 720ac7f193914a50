#!/bin/sh
# Runs the SIGPROF example and checks that its profile decodes, validates and has the hot
# workload function among the top 2 leaf frames.
# usage: sigprof-test.sh SIGPROF TOP_CHECK WORKDIR
set -u
dir=$3/sigprof-test.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
"$1" -o "$dir/cpu.pb.gz" --seconds 1.5 || { echo "sigprof failed"; exit 1; }
"$2" "$dir/cpu.pb.gz" workload_hot 2
