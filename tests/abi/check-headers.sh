#!/bin/sh
# Every public header compiles on its own as strict C99 (-std=c99 -pedantic -Werror, all warnings),
# and as C++ when a C++ compiler is given.
# Both <pprof/x.h> (include root) and "x.h" (pkg-config's include/pprof) are on the path.
# Usage: check-headers.sh INCLUDE-DIR GENERATED-DIR 'CC WORDS' ['CXX WORDS']
inc=$1
gen=$2
cc=$3
cxx=$4
. "$(dirname "$0")/../cli/tap.sh"
for h in "$inc"/*.h; do
    name=$(basename "$h")
    printf '#include "%s"\n#include "%s"\nint pprof_header_test_dummy(void);\n' "$name" "$name" >"$tmp/t.c"
    $cc -std=c99 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
        -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only "$tmp/t.c" >"$tmp/log" 2>&1
    ok $? "$name: alone, twice, as C99 -pedantic -Werror"
    [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
    if [ -n "$cxx" ]; then
        cp "$tmp/t.c" "$tmp/t.cc"
        $cxx -std=c++11 -pedantic -Werror -Wall -Wextra -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only \
            "$tmp/t.cc" >"$tmp/log" 2>&1
        ok $? "$name: as C++11"
        [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
    fi
done
done_testing
