#!/bin/sh
# The core embeds in a profiler: examples/sigprof, built as the embedded variant
# (-DSIGPROF_CORE_ONLY) against libpprof.a through `pkg-config --static libpprof` as a profiler's
# own build would, needs nothing at run time outside libc, libm, libpthread, zlib, libdeflate
# and libzstd; it profiles, its profile passes pprof-check, and pprof-symbolize names its hot
# function afterwards. TAP.
# usage: static-embed.sh BUILD_ROOT SOURCE_ROOT PPROF-CHECK PPROF-SYMBOLIZE TOP_CHECK CC...
build=$1 src=$2 check=$3 symbolize=$4 top_check=$5
shift 5
. "$(dirname "$0")/../cli/tap.sh"
command -v pkg-config >/dev/null || { echo "1..0 # SKIP no pkg-config"; exit 0; }
command -v readelf >/dev/null || { echo "1..0 # SKIP no readelf"; exit 0; }
export PKG_CONFIG_PATH="$build/meson-uninstalled"
libs=$(pkg-config --static --libs libpprof-uninstalled)
ok $? "pkg-config --static --libs libpprof: $libs"
# only the core's own dependencies, nothing of the other libraries
extra=$(printf '%s\n' $libs | grep '^-l' | grep -v -x -e -lpprof -e -lm -e -lz -e -ldeflate -e -lzstd -e -lpthread)
[ -z "$extra" ]
ok $? "pkg-config --static names no library beyond libc, libm, libpthread, zlib, libdeflate, libzstd"
[ -z "$extra" ] || diag "also: $extra"
# -l:libpprof.a: the archive, as a static link of the library would take it; -I: the installed
# headers' layout (pprof/NAME.h), which the uninstalled .pc file does not give
"$@" -std=c11 -O1 -g -fno-omit-frame-pointer -DSIGPROF_CORE_ONLY -o "$tmp/sigprof" \
    "$src/examples/sigprof/sigprof.c" $(pkg-config --cflags libpprof-uninstalled) \
    -I"$src/libpprof/include" \
    $(printf '%s\n' $libs | sed 's/^-lpprof$/-l:libpprof.a/') 2>"$tmp/cc.err"
ok $? "examples/sigprof links libpprof.a statically"
[ -s "$tmp/cc.err" ] && diag "$(cat "$tmp/cc.err")"
readelf -d "$tmp/sigprof" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/needed"
grep -v -E '^(libc|libm|libpthread|libz|libdeflate|libzstd)\.so\.[0-9]+$|^ld-linux' "$tmp/needed" >"$tmp/other"
[ -s "$tmp/needed" ] && [ ! -s "$tmp/other" ]
ok $? "its binary needs only $(tr '\n' ' ' <"$tmp/needed")"
[ -s "$tmp/other" ] && diag "also needs: $(tr '\n' ' ' <"$tmp/other")"
"$tmp/sigprof" -o "$tmp/cpu.pb.gz" --seconds 1 2>"$tmp/run.err"
ok $? "the static profiler runs and writes its profile"
"$check" -q "$tmp/cpu.pb.gz" >/dev/null 2>&1
ok $? "its profile passes pprof-check"
"$symbolize" "$tmp/cpu.pb.gz" -o "$tmp/sym.pb.gz" >/dev/null 2>&1 && "$top_check" "$tmp/sym.pb.gz" workload_hot 2 >/dev/null
ok $? "pprof-symbolize names its hot function afterwards"
done_testing
