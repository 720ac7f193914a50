/* [libpprof-symbolize] libpprof symbolize: offline symbolization of native profiles from ELF and
 * DWARF.
 *
 * pprof_symbolize fills in the locations that have an address but no lines, from the ELF files
 * of their mappings, and returns a new valid profile (the input is never changed) plus a report
 * per mapping. ELF and DWARF are read through elfutils' libelf and libdw.
 *
 * Finding a mapping's file, in this order (the first that matches wins):
 *   1. its GNU build ID in each debug directory (debug_dirs, then /usr/lib/debug unless
 *      no_default_dirs), as DIR/.build-id/ab/cdef....debug (the layout
 *      of /usr/lib/debug), then DIR/.build-id/ab/cdef... (the executable's link);
 *   2. its build ID in the debuginfod client cache: CACHE/<build-id>/debuginfo, then
 *      CACHE/<build-id>/executable (CACHE: see debuginfod_cache below). Only the cache is read:
 *      no debuginfod server is ever contacted, nothing touches the network;
 *   3. the files named in binaries, by build ID when the mapping has one, else by base name;
 *   4. the mapping's own file name, under sysroot when one is given.
 * A file whose build ID differs from the mapping's is reported (BUILD_ID_MISMATCH) and never
 * used; a file without a build ID is taken for a mapping without one, or for one with one only
 * in steps 3 and 4. When the file found has no DWARF, its separate debug file is looked for by
 * build ID in the debug directories, then through .gnu_debuglink (beside the file, in its
 * .debug/ directory, and under each debug directory; the CRC must match); a .gnu_debugaltlink
 * (dwz) file is found by build ID in the debug directories or by its name relative to the
 * debug file. For split DWARF (skeleton units), a package is looked for beside the file
 * (NAME.dwp), beside its debug file (NAME.debug.dwp, NAME.dwp), then in each debug directory
 * by build ID (DIR/.build-id/ab/cdef....dwp) and by the file's path (DIR/PATH.dwp); without
 * one, each unit's .dwo file is read from its DW_AT_comp_dir. The mapping's reason names the
 * package and how it was found.
 *
 * Addresses: a runtime address becomes a file offset through the mapping (memory_start,
 * file_offset), and the file offset a link-time address through the PT_LOAD segment holding
 * it, which covers non-PIE and PIE executables and shared libraries alike. Kernel mappings
 * ([kernel.kallsyms], addresses in the upper half) and [vdso]-like pseudo files are reported
 * as not symbolizable.
 *
 * Frames: from DWARF 4 and 5 with the whole inline chain, one Line per level, innermost first
 * (pprof's order), each function with its start line; else from .symtab or .dynsym (function
 * names only, and the mapping's has_filenames / has_line_numbers / has_inline_frames say so).
 * The same address of the same file always gets the same frames, so profiles symbolized
 * separately merge without S1 findings.
 *
 * Hostile files: only regular files are opened (O_NONBLOCK, so a FIFO never blocks), files
 * larger than max_file_bytes are refused, and libelf/libdw read through a read-only mapping;
 * a malformed file gets a reason in the report, never a crash.
 *
 * Thread rule: as for the whole library. The input profile is only read: many threads may
 * symbolize one profile at once.
 */
#ifndef PPROF_SYMBOLIZE_H
#define PPROF_SYMBOLIZE_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pprof_demangle {
    PPROF_DEMANGLE_FULL = 0, /* C++ and Rust names demangled with parameters (the default) */
    PPROF_DEMANGLE_NONE = 1, /* names as the symbol table spells them */
} pprof_demangle;

typedef struct pprof_symbolize_options {
    size_t struct_size;            /* sizeof(pprof_symbolize_options) */
    const char *const *debug_dirs; /* searched by build ID and debug link, in order */
    size_t n_debug_dirs;
    const char *const *binaries; /* files to try for every mapping (the tool's --binary) */
    size_t n_binaries;
    const char *sysroot; /* NULL or "": mapping paths are used as they are */
    /* The debuginfod client cache. NULL: $DEBUGINFOD_CACHE_PATH, else
     * $XDG_CACHE_HOME/debuginfod_client, else $HOME/.cache/debuginfod_client (none with
     * no_default_dirs); "": none. */
    const char *debuginfod_cache;
    pprof_demangle demangle;
    bool force;              /* symbolize locations that already have lines too */
    uint64_t max_file_bytes; /* larger files are refused; 0 = the default, 16 GiB */
    pprof_allocator allocator;
    /* true: only debug_dirs and debuginfod_cache as given. false (the default): after
     * debug_dirs, PPROF_SYMBOLIZE_DEFAULT_DEBUG_DIR (under sysroot when one is given) is
     * searched too, and the debuginfod client cache as debuginfod_cache says. */
    bool no_default_dirs;
    /* The address index cache: per file used (by build ID, size, inode and modification time),
     * the frames of every address looked up before, so that symbolizing the same binaries
     * again reads neither their DWARF nor their tables. Off by default: a program that links
     * the library writes no file it did not ask for. cache_dir names the directory and turns
     * the cache on ("": off); cache = true with no cache_dir uses $XDG_CACHE_HOME/libpprof, else
     * $HOME/.cache/libpprof (the tools' default). A cache file that is corrupt, truncated, of
     * another version or not the user's own is ignored (and replaced), never trusted. */
    const char *cache_dir;
    bool cache;
} pprof_symbolize_options;

/* The debug directory searched without options, as perf, gdb and llvm-symbolizer do. */
#define PPROF_SYMBOLIZE_DEFAULT_DEBUG_DIR "/usr/lib/debug"

#define PPROF_SYMBOLIZE_OPTIONS_INIT                                                               \
    {                                                                                              \
        sizeof(pprof_symbolize_options), NULL, 0, NULL, 0, NULL, NULL, PPROF_DEMANGLE_FULL, false, \
            0, {NULL, NULL, NULL, NULL}, false, NULL, false                                        \
    }

PPROF_API void pprof_symbolize_options_init(pprof_symbolize_options *opts);

/* What became of one mapping. Stable values. */
typedef enum pprof_symbolize_result {
    PPROF_SYMBOLIZE_OK = 0,                /* a file was found and used */
    PPROF_SYMBOLIZE_NOTHING_TO_DO = 1,     /* no location of the mapping needed symbols */
    PPROF_SYMBOLIZE_NOT_FOUND = 2,         /* no file in any place searched */
    PPROF_SYMBOLIZE_BUILD_ID_MISMATCH = 3, /* a file was there, with another build ID */
    PPROF_SYMBOLIZE_NOT_ELF = 4,           /* the file is not a readable ELF file */
    PPROF_SYMBOLIZE_NO_SYMBOLS = 5,        /* ELF, but neither DWARF nor a symbol table */
    PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE = 6,  /* kernel, [vdso] and other pseudo mappings */
    PPROF_SYMBOLIZE_UNREADABLE = 7,        /* not a regular file, too large, or unreadable */
} pprof_symbolize_result;

/* "ok", "nothing-to-do", "not-found", "build-id-mismatch", "not-elf", "no-symbols",
 * "not-symbolizable", "unreadable"; never NULL. */
PPROF_API const char *pprof_symbolize_result_name(pprof_symbolize_result r);

typedef struct pprof_symbolize_mapping {
    uint64_t mapping_id;
    const char *mapping_file; /* the mapping's file name ("" when none) */
    const char *build_id;     /* the mapping's build ID ("" when none) */
    pprof_symbolize_result result;
    const char *file;           /* the file used, or the last one tried; "" when none */
    const char *found_by;       /* "build-id", "debuginfod-cache", "binary", "path"; "" when none */
    const char *debug_file;     /* a separate debug file used, "" when none */
    const char *reason;         /* why the result is not OK, or what was odd; "" when nothing */
    bool dwarf;                 /* frames came from DWARF, not only from a symbol table */
    uint64_t addresses;         /* distinct addresses that needed symbols */
    uint64_t resolved;          /* of those, how many got at least one frame */
    uint64_t kept;              /* locations that had lines already and were kept */
    const uint64_t *unresolved; /* the addresses left without frames, ascending */
    size_t n_unresolved;
    /* how debug_file was found: "build-id", "debuglink", "debuginfod-cache"; "" when none */
    const char *debug_found_by;
    bool lines; /* files and lines known: from DWARF, or from Go's .gopclntab */
} pprof_symbolize_mapping;

typedef struct pprof_symbolize_report pprof_symbolize_report;

/* Symbolizes p into a new profile *out (p is not changed). The report (when report is not
 * NULL) is set even when the call fails, or NULL. Mappings whose file cannot be used are listed
 * with their reason and their locations kept as they were: that is not an error. Errors:
 * PPROF_E_ARG (NULL p or out), PPROF_E_NOMEM, PPROF_E_LIMIT (the output outgrows a table),
 * PPROF_E_INVALID (a lazy merge input). */
PPROF_API pprof_status pprof_symbolize(const pprof_profile *p, const pprof_symbolize_options *opts,
                                       pprof_profile **out, pprof_symbolize_report **report,
                                       pprof_error *err);

PPROF_API size_t pprof_symbolize_report_count(const pprof_symbolize_report *r);
/* The i-th mapping's entry, in the profile's mapping order; valid until the report is freed. */
PPROF_API pprof_symbolize_mapping pprof_symbolize_report_mapping(const pprof_symbolize_report *r,
                                                                 size_t i);
/* Addresses left without frames over all mappings (locations of no mapping count too). */
PPROF_API uint64_t pprof_symbolize_report_unresolved(const pprof_symbolize_report *r);
/* Appends the report as text (one paragraph per mapping) or JSON. */
PPROF_API pprof_status pprof_symbolize_report_print(const pprof_symbolize_report *r,
                                                    pprof_print_format format, pprof_buffer *out,
                                                    pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_symbolize_report_free(pprof_symbolize_report *r);

#ifdef __cplusplus
}
#endif

#endif
