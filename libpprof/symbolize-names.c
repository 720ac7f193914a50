/* Names as a reader expects them. The demangler is libiberty's cplus_demangle (Debian
 * libiberty-dev, the one binutils' addr2line -C and c++filt use): C, it demangles Itanium C++,
 * Rust legacy (the _ZN...17h<hash>E form, hash dropped) and Rust v0 (_R) alike, and bounds its
 * recursion on hostile names. Go names are not mangled; Go's ABI wrappers carry a ".abi0"
 * suffix in the symbol table that Go itself never prints. */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize-private.h"

#define MAX_DEMANGLE 8192

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

const char *
pprof__sz_display_name(const char *name, pprof_demangle d, bool *owned)
{
    *owned = false;
    size_t n = strlen(name);
    if (ends_with(name, n, ".abi0")) {
        char *s = malloc(n - 4);
        if (!s)
            return NULL;
        memcpy(s, name, n - 5);
        s[n - 5] = 0;
        *owned = true;
        return s;
    }
    /* Only names that are mangled at all: cplus_demangle's other styles would read a Go or C
     * name as something else. */
    if (d == PPROF_DEMANGLE_NONE || !(name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')))
        return name;
    /* The C++ demangler sizes arrays on the stack by the name's length. */
    if (n > MAX_DEMANGLE)
        return name;
    /* DMGL_AUTO tries Rust first (legacy Rust names are also valid C++ names), then C++;
     * naming the style keeps libiberty's process-wide default style out of it. */
    char *s = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
    if (!s)
        return name; /* not a valid mangled name after all: shown as it is */
    *owned = true;
    return s;
}
