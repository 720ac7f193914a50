/* The file-search options of pprof-symbolize, shared with the tools that take --symbolize
 * (pprof-merge, pprof-edit, pprof-top): the same names, the same pprof_symbolize options. */
#ifndef PPROF_TOOLS_SYMBOLIZE_OPTS_H
#define PPROF_TOOLS_SYMBOLIZE_OPTS_H

#include "common.h"
#include "symbolize.h"

#define SYMBOLIZE_OPTS_MAX 64 /* --binary and --debug-dir each */

typedef struct symbolize_opts {
    bool enabled; /* --symbolize (the other tools) */
    const char *binaries[SYMBOLIZE_OPTS_MAX];
    size_t n_binaries;
    const char *debug_dirs[SYMBOLIZE_OPTS_MAX];
    size_t n_debug_dirs;
    const char *sysroot;
    pprof_demangle demangle;
    bool no_default_dirs;
    const char *cache_dir; /* --cache-dir (NULL: the library's default) */
    bool no_cache;
} symbolize_opts;

#define SYMBOLIZE_OPTS_HELP                                                                        \
    "  --binary FILE         an ELF file to try for every mapping (by build ID, else by\n"         \
    "                        base name); may repeat\n"                                             \
    "  --debug-dir DIR       look up build IDs as DIR/.build-id/ab/cdef.debug and debug\n"         \
    "                        links under DIR; may repeat\n"                                        \
    "  --no-default-dirs     search neither /usr/lib/debug nor the debuginfod client cache\n"      \
    "                        unless named (searched by default, after each --debug-dir)\n"         \
    "  --sysroot DIR         look for mapping paths under DIR\n"                                   \
    "  --cache-dir DIR       the address index cache (default $XDG_CACHE_HOME/libpprof, else\n"    \
    "                        ~/.cache/libpprof): frames of addresses looked up before\n"           \
    "  --no-cache            neither read nor write the address index cache\n"                     \
    "  --demangle=MODE       full (default: C++ and Rust names demangled) or none\n"

void symbolize_opts_init(symbolize_opts *o);
/* Handles opt when it is one of the options above (and --symbolize when with_switch): returns
 * true and sets *rc (nonzero = exit status of a usage error). */
bool symbolize_opts_opt(symbolize_opts *o, tool_args *a, const char *prog, const char *opt,
                        bool with_switch, int *rc);
void symbolize_opts_fill(const symbolize_opts *o, pprof_symbolize_options *so);
/* For the other tools: replaces *p with its symbolized copy when --symbolize was given, saying
 * on stderr which mappings could not be symbolized and why. Returns 0 or an exit status. */
int symbolize_opts_apply(const symbolize_opts *o, const char *prog, const char *file,
                         pprof_profile **p);

#endif
