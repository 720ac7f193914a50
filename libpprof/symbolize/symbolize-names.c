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

/* Go's runtime prints a generic function's type arguments as "[...]" (funcNameForPrint: from
 * the first '[' to the last ']'), and never the ".abi0" of an ABI wrapper. */
static const char *
go_name(const char *name, size_t n, bool *owned)
{
    if (ends_with(name, n, ".abi0"))
        n -= 5;
    const char *open = memchr(name, '[', n), *close = NULL;
    for (size_t i = n; open && i > 0 && !close; i--)
        if (name[i - 1] == ']')
            close = name + i - 1;
    if (close && close < open)
        close = NULL;
    if (n == strlen(name) && !close)
        return name;
    size_t head = close ? (size_t)(open - name) : n,
           tail = close ? n - (size_t)(close + 1 - name) : 0;
    char *s = malloc(head + 5 + tail + 1);
    if (!s)
        return NULL;
    memcpy(s, name, head);
    size_t k = head;
    if (close) {
        memcpy(s + k, "[...]", 5);
        k += 5;
        memcpy(s + k, close + 1, tail);
        k += tail;
    }
    s[k] = 0;
    *owned = true;
    return s;
}

const char *
pprof__sz_display_name(const char *name, pprof_demangle d, bool go, bool *owned)
{
    *owned = false;
    size_t n = strlen(name);
    if (go)
        return go_name(name, n, owned);
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
