#!/bin/sh
# Runs the SIGPROF example, which records raw addresses and symbolizes its profile on write
# (pprof_symbolize): the profile decodes, validates and has the hot workload function among the
# top 2 leaf frames. With --raw it writes the addresses as recorded: no function is named, and
# pprof-symbolize (when built) names them afterwards.
# usage: sigprof-test.sh SIGPROF TOP_CHECK WORKDIR [PPROF-SYMBOLIZE]
set -u
dir=$3/sigprof-test.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
"$1" -o "$dir/cpu.pb.gz" --seconds 1.5 2>"$dir/err" || { cat "$dir/err"; echo "sigprof failed"; exit 1; }
grep -q "symbolized on write" "$dir/err" || { cat "$dir/err"; echo "sigprof did not symbolize on write"; exit 1; }
"$2" "$dir/cpu.pb.gz" workload_hot 2 || exit 1
"$1" -o "$dir/raw.pb.gz" --seconds 1 --raw 2>"$dir/err" || { cat "$dir/err"; echo "sigprof --raw failed"; exit 1; }
if "$2" "$dir/raw.pb.gz" workload_hot 2 >/dev/null; then
    echo "sigprof --raw named workload_hot: it should record addresses only"
    exit 1
fi
if [ $# -ge 4 ]; then
    "$4" "$dir/raw.pb.gz" -o "$dir/sym.pb.gz" || { echo "pprof-symbolize failed on the --raw profile"; exit 1; }
    "$2" "$dir/sym.pb.gz" workload_hot 2 || exit 1
fi
echo "ok"
