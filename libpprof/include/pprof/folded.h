/* [libpprof] libpprof folded stacks: Brendan Gregg's collapsed format ("root;caller;leaf VALUE",
 * one line per distinct stack), which flamegraph.pl, inferno and speedscope read and which perf +
 * stackcollapse, py-spy and async-profiler write.
 *
 * Escaping (docs/report.md): a frame name never holds ';' or a line break in the output:
 * ';' is written "\x3b", '\n' "\x0a", '\r' "\x0d", and a backslash that would otherwise start
 * one of these four sequences (or "\x5c") is written "\x5c". The reader undoes exactly these
 * sequences, so folded -> profile -> folded gives the same bytes for output of the writer.
 *
 * Thread rule: the library's (see pprof.h): many threads may write one profile at once.
 */
#ifndef PPROF_FOLDED_H
#define PPROF_FOLDED_H

#include <stdio.h>

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pprof_folded_write_options {
    size_t struct_size;      /* sizeof(pprof_folded_write_options) */
    const char *sample_type; /* as pprof_sample_type_find; NULL = the default */
    bool lines;              /* append ":LINE" to each frame that has a line number */
    /* string label keys whose values become root frames "KEY=VALUE" (KEY= without one), in
     * this order, before the stack's own frames */
    const char *const *labels;
    size_t n_labels;
    pprof_allocator allocator;
} pprof_folded_write_options;

#define PPROF_FOLDED_WRITE_OPTIONS_INIT                                                            \
    {                                                                                              \
        sizeof(pprof_folded_write_options), NULL, false, NULL, 0,                                  \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_FOLDED_WRITE_OPTIONS_INIT. */
PPROF_API void pprof_folded_write_options_init(pprof_folded_write_options *opts);

/* Appends the folded stacks of p: frames root first, inline frames expanded (one frame per
 * line of a location, the caller first), one line per distinct stack with the values of the
 * sample type summed, sorted bytewise, stacks summing to zero left out. A frame is the
 * function name; a location without lines is "0xADDRESS" inside its mapping, "[unknown]" outside
 * every mapping (as perf and stackcollapse-perf.pl print it); one whose line has no function
 * name is "[BINARY]" or "<unknown>".
 * PPROF_E_INVALID when a stack sums to a negative value (folded values are counts). */
PPROF_API pprof_status pprof_folded_write_memory(const pprof_profile *p,
                                                 const pprof_folded_write_options *opts,
                                                 pprof_buffer *out, pprof_error *err);
/* The same to a path as pprof_bytes_write_file writes it (wopts may be NULL), or to an open
 * stream (flushed, not closed). */
PPROF_API pprof_status pprof_folded_write_file(const pprof_profile *p,
                                               const pprof_folded_write_options *opts,
                                               const pprof_write_options *wopts, const char *path,
                                               pprof_error *err);
PPROF_API pprof_status pprof_folded_write_stream(const pprof_profile *p,
                                                 const pprof_folded_write_options *opts,
                                                 FILE *stream, pprof_error *err);
/* Deprecated (one release): pprof_folded_write_memory. */
PPROF_API pprof_status pprof_folded_write(const pprof_profile *p,
                                          const pprof_folded_write_options *opts, pprof_buffer *out,
                                          pprof_error *err)
    PPROF_DEPRECATED("use pprof_folded_write_memory");

typedef struct pprof_folded_read_options {
    size_t struct_size;      /* sizeof(pprof_folded_read_options) */
    const char *sample_type; /* "TYPE/UNIT" of the values; NULL = "samples/count" */
    uint64_t max_input_bytes;
    uint64_t max_stacks; /* distinct stacks */
    uint64_t max_frames; /* distinct frame names */
    pprof_allocator allocator;
} pprof_folded_read_options;

#define PPROF_FOLDED_READ_OPTIONS_INIT                                                             \
    {                                                                                              \
        sizeof(pprof_folded_read_options), NULL, UINT64_C(1) << 32, UINT64_C(1) << 26,             \
            UINT64_C(1) << 24,                                                                     \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_FOLDED_READ_OPTIONS_INIT. */
PPROF_API void pprof_folded_read_options_init(pprof_folded_read_options *opts);

/* Reads folded stacks into a valid profile: one function per distinct frame name, one
 * location (no address, no mapping) per function, one sample per distinct stack. Empty lines
 * are skipped, a final '\r' is dropped and so is a UTF-8 byte-order mark at the start of the
 * input; a value "-0" is 0. Malformed input is PPROF_E_INVALID with path "line[N]" (1-based),
 * the byte offset of the offending byte and a message that says what is wrong (without the
 * line again): no value, a value that is not a non-negative decimal integer or that overflows
 * int64, an empty frame, NUL or other control bytes, bytes that are not UTF-8 (refused, not
 * repaired: a replaced byte could make two names one frame), UTF-16 text. Limits give
 * PPROF_E_LIMIT, also with path "line[N]" when a line's stack passes one. */
PPROF_API pprof_status pprof_folded_read_memory(const void *data, size_t size,
                                                const pprof_folded_read_options *opts,
                                                pprof_profile **out, pprof_error *err);
/* The same from a path ("-" = standard input), at most opts->max_input_bytes of it. */
PPROF_API pprof_status pprof_folded_read_file(const char *path,
                                              const pprof_folded_read_options *opts,
                                              pprof_profile **out, pprof_error *err);
/* Deprecated (one release): pprof_folded_read_memory. */
PPROF_API pprof_status pprof_folded_read(const void *data, size_t size,
                                         const pprof_folded_read_options *opts, pprof_profile **out,
                                         pprof_error *err)
    PPROF_DEPRECATED("use pprof_folded_read_memory");

#ifdef __cplusplus
}
#endif

#endif
