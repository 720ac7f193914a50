#!/bin/sh
# Every public header compiles on its own as strict C99 and C11 (-pedantic -Werror, all warnings),
# and as C++ when a C++ compiler is given; every PPROF_*_INIT macro it defines initializes its
# struct completely (-Wextra's missing-field-initializers) in C and C++. The API convention of
# libpprof(3): every options, summary, result and stats struct starts with struct_size and has
# an INIT macro, every options struct an _options_init() too. Includes: a header includes
# another only for names it uses, and an included header other than pprof.h includes nothing but
# pprof.h (shared types live in pprof.h: no header pulls in a chain of others).
# Both <pprof/x.h> (include root) and "x.h" (pkg-config's include/pprof) are on the path.
# Usage: check-headers.sh INCLUDE-DIR GENERATED-DIR 'CC WORDS' ['CXX WORDS']
inc=$1
gen=$2
cc=$3
cxx=$4
. "$(dirname "$0")/../cli/tap.sh"

# The names a header declares: typedefs, functions and macros (not its include guard).
declared() {
    sed -n -e 's/^} \(pprof_[a-z0-9_]*\);$/\1/p' \
        -e 's/^typedef [^(]*[ *]\(pprof_[a-z0-9_]*\);$/\1/p' \
        -e 's/^typedef [^(]*(\*\(pprof_[a-z0-9_]*\)).*/\1/p' \
        -e 's/^PPROF_API .*[ *]\(pprof_[a-z0-9_]*\)(.*/\1/p' \
        -e 's/^#define \(PPROF_[A-Z0-9_]*\).*/\1/p' "$1" | grep -v '^PPROF_[A-Z0-9_]*_H$'
}
# The headers a header includes by name ("x.h"), but the generated version header.
includes() {
    sed -n 's/^#include "\([a-z0-9-]*\.h\)"$/\1/p' "$1" | grep -v '^pprof-version\.h$'
}

for h in "$inc"/*.h; do
    name=$(basename "$h")
    printf '#include "%s"\n#include "%s"\nint pprof_header_test_dummy(void);\n' "$name" "$name" >"$tmp/t.c"
    for std in c99 c11; do
        $cc -std=$std -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
            -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only "$tmp/t.c" >"$tmp/log" 2>&1
        ok $? "$name: alone, twice, as $std -pedantic -Werror"
        [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
    done
    if [ -n "$cxx" ]; then
        cp "$tmp/t.c" "$tmp/t.cc"
        $cxx -std=c++11 -pedantic -Werror -Wall -Wextra -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only \
            "$tmp/t.cc" >"$tmp/log" 2>&1
        ok $? "$name: as C++11"
        [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
    fi

    # Every INIT macro, used as its struct's initializer.
    inits=$(sed -n 's/^#define \(PPROF_[A-Z0-9_]*_INIT\)\( .*\)\{0,1\}$/\1/p' "$h")
    if [ -n "$inits" ]; then
        {
            printf '#include "%s"\nvoid pprof_header_test_inits(void);\nvoid pprof_header_test_inits(void)\n{\n' "$name"
            i=0
            for m in $inits; do
                t=$(echo "${m%_INIT}" | tr 'A-Z' 'a-z')
                printf '    %s v%d = %s;\n    (void)v%d;\n' "$t" $i "$m" $i
                i=$((i + 1))
            done
            printf '}\n'
        } >"$tmp/i.c"
        $cc -std=c11 -pedantic -Werror -Wall -Wextra -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only \
            "$tmp/i.c" >"$tmp/log" 2>&1
        ok $? "$name: every INIT macro initializes its whole struct in C ($(echo $inits | wc -w))"
        [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
        if [ -n "$cxx" ]; then
            cp "$tmp/i.c" "$tmp/i.cc"
            $cxx -std=c++11 -pedantic -Werror -Wall -Wextra -I"$inc" -I"$inc/.." -I"$gen" \
                -fsyntax-only "$tmp/i.cc" >"$tmp/log" 2>&1
            ok $? "$name: every INIT macro initializes its whole struct in C++"
            [ -s "$tmp/log" ] && diag "$(cat "$tmp/log")"
        fi
    fi

    # Deprecated aliases: a caller is warned (an error under -Werror), and only that.
    old=$(awk '/^PPROF_API /{ if (match($0, /pprof_[a-z0-9_]*\(/)) last = substr($0, RSTART, RLENGTH - 1) }
               /PPROF_DEPRECATED\("/ && !/^#define/ { print last }' "$h")
    if [ -n "$old" ]; then
        {
            printf '#include "%s"\nvoid pprof_header_test_old(void);\nvoid pprof_header_test_old(void)\n{\n' "$name"
            for f in $old; do printf '    (void)&%s;\n' "$f"; done
            printf '}\n'
        } >"$tmp/d.c"
        $cc -std=c11 -Werror -Wall -I"$inc" -I"$inc/.." -I"$gen" -fsyntax-only "$tmp/d.c" \
            >"$tmp/log" 2>&1
        r1=$?
        warned=$(grep -c 'deprecated' "$tmp/log")
        $cc -std=c11 -Werror -Wall -Wno-deprecated-declarations -I"$inc" -I"$inc/.." -I"$gen" \
            -fsyntax-only "$tmp/d.c" >"$tmp/log2" 2>&1
        r2=$?
        [ $r1 -ne 0 ] && [ "$warned" -ge "$(echo $old | wc -w)" ] && [ $r2 -eq 0 ]
        ok $? "$name: the deprecated aliases warn ($(echo $old | tr '\n' ' '))"
        [ $r2 -ne 0 ] && diag "$(cat "$tmp/log2")"
    fi

    # The convention: struct_size first, an INIT macro, and for options an _init() function.
    # A summary returned by value (pprof_report_get_summary) is sized by the library itself.
    bad=
    for s in $(sed -n 's/^typedef struct \(pprof_[a-z0-9_]*_\(options\|summary\|result\|stats\)\) {$/\1/p' "$h"); do
        grep -q "^PPROF_API $s " "$h" && continue
        S=$(echo "$s" | tr 'a-z' 'A-Z')
        first=$(sed -n "/^typedef struct $s {\$/{n;p;q;}" "$h")
        case $first in *'size_t struct_size;'*) ;; *) bad="$bad $s(struct_size)" ;; esac
        grep -q "^#define ${S}_INIT\\b" "$h" || bad="$bad $s(${S}_INIT)"
        case $s in
        *_options) grep -q "^PPROF_API void ${s}_init($s \*" "$h" || bad="$bad $s(${s}_init)" ;;
        esac
    done
    [ -z "$bad" ]
    ok $? "$name: every options/summary/result/stats struct follows the convention"
    [ -n "$bad" ] && diag "missing:$bad"

    # Includes: each one used, and none that drags in others.
    bad=
    for i in $(includes "$h"); do
        [ -f "$inc/$i" ] || continue
        used=
        for id in $(declared "$inc/$i"); do
            if grep -v '^#include' "$h" | grep -qw "$id"; then
                used=$id
                break
            fi
        done
        [ -n "$used" ] || bad="$bad $i(unused)"
        if [ "$i" != pprof.h ]; then
            for j in $(includes "$inc/$i"); do
                [ "$j" = pprof.h ] || bad="$bad $i(includes $j)"
            done
        fi
    done
    [ -z "$bad" ]
    ok $? "$name: includes only what it uses, and no chain of headers"
    [ -n "$bad" ] && diag "includes:$bad"
done
done_testing
