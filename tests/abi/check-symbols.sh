#!/bin/sh
# Symbol hygiene of one built library, as TAP:
#  - the shared library exports only pprof_* symbols (plus its version nodes); internal pprof__
#    symbols only where PRIVATE-NODE is given (the core, for the build's other libraries), and
#    only under that node;
#  - every PPROF_API function declared in the library's public headers is exported;
#  - the library objects hold no writable data (.data/.bss/.tdata/.tbss: no global mutable state;
#    const tables with pointers live in .data.rel.ro, which is read-only after relocation) and no
#    static constructors. DW.ref.* (the C++ shim's exception personality and type-info
#    references, regex-re2.cc) sit in .data.rel.local but only the loader writes them.
# Usage: check-symbols.sh NM OBJDUMP SHARED-LIB STATIC-LIB INSTRUMENTED(true|false) PRIVATE-NODE|-
#        HEADER...
nm=$1
objdump=$2
so=$3
ar=$4
instrumented=$5
private=$6
shift 6
. "$(dirname "$0")/../cli/tap.sh"

"$nm" -D --defined-only "$so" >"$tmp/dyn" 2>"$tmp/err"
ok $? "nm -D reads the shared library"
awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$tmp/dyn" | sort -u >"$tmp/exported"
grep -v '^pprof_' "$tmp/exported" >"$tmp/foreign"
[ ! -s "$tmp/foreign" ]
ok $? "every exported symbol starts with pprof_ ($(wc -l <"$tmp/exported") exported)"
[ -s "$tmp/foreign" ] && diag "not pprof_: $(tr '\n' ' ' <"$tmp/foreign")"
if [ "$private" = - ]; then
    grep -q '^pprof__' "$tmp/exported"
    [ $? -ne 0 ]
    ok $? "no internal pprof__ symbol is exported"
else
    awk '$2 != "A" && $3 ~ /^pprof__/ && $3 !~ /@@?'"$private"'$/ { print $3 }' "$tmp/dyn" >"$tmp/stray"
    [ ! -s "$tmp/stray" ]
    ok $? "internal pprof__ symbols are exported only under $private"
    [ -s "$tmp/stray" ] && diag "elsewhere: $(tr '\n' ' ' <"$tmp/stray")"
fi

sed -n 's/.*PPROF_API[^(]*[ *]\(pprof_[a-z0-9_]*\)(.*/\1/p' "$@" | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/unexported"
[ -s "$tmp/declared" ] && [ ! -s "$tmp/unexported" ]
ok $? "every PPROF_API function of the public headers is exported ($(wc -l <"$tmp/declared") declared)"
[ -s "$tmp/unexported" ] && diag "declared, not exported: $(tr '\n' ' ' <"$tmp/unexported")"

if [ "$instrumented" = true ]; then
    skip "no writable data in the library objects" "sanitizer or coverage build adds its own"
    skip "no static constructors" "sanitizer or coverage build adds its own"
else
    # sysv format: name|value|class|type|size|line|section
    "$nm" -f sysv --defined-only "$ar" 2>/dev/null |
        awk -F'|' 'NF >= 7 {
            cls = $3; sec = $7; gsub(/ /, "", cls); gsub(/ /, "", sec); gsub(/ /, "", $1)
            if (cls ~ /^[DdBbSsVv]$/ && sec !~ /^\.data\.rel\.ro/ && sec != "*UND*" &&
                $1 !~ /^DW\.ref\./)
                print $1 " (" cls ", " sec ")"
        }' >"$tmp/writable"
    [ ! -s "$tmp/writable" ]
    ok $? "no writable data in the library objects"
    [ -s "$tmp/writable" ] && diag "writable: $(tr '\n' ' ' <"$tmp/writable")"
    "$objdump" -h "$ar" 2>/dev/null | grep -E '\.(init_array|ctors)' >"$tmp/ctors"
    [ ! -s "$tmp/ctors" ]
    ok $? "no static constructors (.init_array/.ctors) in the library objects"
fi
done_testing
