/* [libpprof-formats] libpprof interchange formats of other viewers: speedscope's JSON file format
 * (out) and the Chrome DevTools / Node.js .cpuprofile (in and out). docs/interchange.md maps the
 * fields.
 *
 * Thread rule: the library's (see pprof.h): many threads may write one profile at once.
 */
#ifndef PPROF_INTERCHANGE_H
#define PPROF_INTERCHANGE_H

#include <stdio.h>

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- speedscope */

typedef struct pprof_speedscope_options {
    size_t struct_size; /* sizeof(pprof_speedscope_options) */
    const char *name;   /* the file's "name" (speedscope's title); NULL = "profile" */
    /* One frame per function and line of call instead of one per function (whose "line" is
     * then the function's start line). */
    bool lines;
    pprof_allocator allocator;
} pprof_speedscope_options;

#define PPROF_SPEEDSCOPE_OPTIONS_INIT                                                              \
    {                                                                                              \
        sizeof(pprof_speedscope_options), NULL, false,                                             \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_SPEEDSCOPE_OPTIONS_INIT. */
PPROF_API void pprof_speedscope_options_init(pprof_speedscope_options *opts);

/* Appends p as a speedscope file (https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile per sample type, in the profile's order, named "TYPE/UNIT", over one shared
 * frame table; "activeProfileIndex" is the default sample type (pprof_sample_type_find).
 * Every pprof sample with a non-zero value is one speedscope sample whose weight is that value
 * (never repeated by count), its stack root first with inlined frames as frames of their own;
 * a frame has the function's name, its file and line when known. Units speedscope knows
 * (nanoseconds, microseconds, milliseconds, seconds, bytes) are kept, others become "none".
 * Names are JSON strings whatever bytes they hold, as in pprof-flame's JSON: control bytes, NUL
 * included, as \u00XX, each byte that is not UTF-8 as U+FFFD (frames stay apart: speedscope
 * tells them by index, not name). PPROF_E_INVALID for an invalid profile
 * (pprof_validate) or a negative value (weights are amounts), naming the sample;
 * PPROF_E_OVERFLOW when a type's total passes int64. */
PPROF_API pprof_status pprof_speedscope_write_memory(const pprof_profile *p,
                                                     const pprof_speedscope_options *opts,
                                                     pprof_buffer *out, pprof_error *err);
/* The same to a path as pprof_bytes_write_file writes it (wopts may be NULL), or to an open
 * stream (flushed, not closed). */
PPROF_API pprof_status pprof_speedscope_write_file(const pprof_profile *p,
                                                   const pprof_speedscope_options *opts,
                                                   const pprof_write_options *wopts,
                                                   const char *path, pprof_error *err);
PPROF_API pprof_status pprof_speedscope_write_stream(const pprof_profile *p,
                                                     const pprof_speedscope_options *opts,
                                                     FILE *stream, pprof_error *err);
/* Deprecated (one release): pprof_speedscope_write_memory. */
PPROF_API pprof_status pprof_speedscope_write(const pprof_profile *p,
                                              const pprof_speedscope_options *opts,
                                              pprof_buffer *out, pprof_error *err)
    PPROF_DEPRECATED("use pprof_speedscope_write_memory");

/* ---------------------------------------------------------------- Chrome .cpuprofile
 * The JSON that Node's --cpu-prof, DevTools and Chrome's Profiler.stop write: "nodes" (id,
 * callFrame {functionName, scriptId, url, lineNumber, columnNumber} with 0-based line and
 * column, children ids), "samples" (the node of each sample), "timeDeltas" (microseconds since
 * the previous sample), "startTime" and "endTime" (microseconds, a monotonic clock). */

typedef struct pprof_cpuprofile_read_options {
    size_t struct_size;       /* sizeof(pprof_cpuprofile_read_options) */
    uint64_t max_input_bytes; /* default 256 MiB (the JSON tree takes several times that) */
    uint64_t max_nodes;       /* default 1 << 24 */
    uint64_t max_samples;     /* entries of "samples"; default 1 << 28 */
    uint32_t max_nesting;     /* of arrays and objects; default 32 (the format needs 4) */
    uint32_t max_depth;       /* of the call tree; default 1 << 16 */
    /* frames of all the stacks made (each node that samples hit, times its depth): a deep
     * tree hit at every level would otherwise make a quadratic profile; default 1 << 26 */
    uint64_t max_stack_entries;
    pprof_allocator allocator;
} pprof_cpuprofile_read_options;

#define PPROF_CPUPROFILE_READ_OPTIONS_INIT                                                         \
    {                                                                                              \
        sizeof(pprof_cpuprofile_read_options), UINT64_C(1) << 28, UINT64_C(1) << 24,               \
            UINT64_C(1) << 28, 32, UINT32_C(1) << 16, UINT64_C(1) << 26,                           \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_CPUPROFILE_READ_OPTIONS_INIT. */
PPROF_API void pprof_cpuprofile_read_options_init(pprof_cpuprofile_read_options *opts);

/* Reads a .cpuprofile into a valid profile with two sample types: samples/count (one per entry
 * of "samples") and cpu/nanoseconds (each sample's time delta, microseconds in the file, a
 * negative delta counting 0). One function per distinct callFrame (an empty functionName is
 * "(anonymous)", url the file name, lineNumber + 1 the start line), one location per call
 * frame with its line and column (1-based), one pprof sample per node that samples hit, its
 * stack the node's ancestors; the "(root)" node is no frame. duration_nanos is endTime -
 * startTime; time_nanos stays 0 (the file's clock is not the wall clock). scriptId is not
 * kept. Malformed input is PPROF_E_INVALID with a path such as "nodes[3].children[0]" and a
 * message saying what is wrong (not JSON, with its byte offset; a missing or mistyped field; an
 * id that repeats or that no node has; a node with two parents; a cycle of children; samples
 * and timeDeltas of different lengths); limits give PPROF_E_LIMIT. */
PPROF_API pprof_status pprof_cpuprofile_read_memory(const void *data, size_t size,
                                                    const pprof_cpuprofile_read_options *opts,
                                                    pprof_profile **out, pprof_error *err);
/* The same from a path ("-" = standard input), at most opts->max_input_bytes of it. */
PPROF_API pprof_status pprof_cpuprofile_read_file(const char *path,
                                                  const pprof_cpuprofile_read_options *opts,
                                                  pprof_profile **out, pprof_error *err);
/* Deprecated (one release): pprof_cpuprofile_read_memory. */
PPROF_API pprof_status pprof_cpuprofile_read(const void *data, size_t size,
                                             const pprof_cpuprofile_read_options *opts,
                                             pprof_profile **out, pprof_error *err)
    PPROF_DEPRECATED("use pprof_cpuprofile_read_memory");

typedef struct pprof_cpuprofile_write_options {
    size_t struct_size; /* sizeof(pprof_cpuprofile_write_options) */
    /* The type whose values become the time deltas, as pprof_sample_type_find; NULL = the first
     * type measured in nanoseconds, microseconds, milliseconds or seconds (none: deltas 0). */
    const char *sample_type;
    uint64_t max_samples; /* entries of "samples" written; default 1 << 24 */
    pprof_allocator allocator;
} pprof_cpuprofile_write_options;

#define PPROF_CPUPROFILE_WRITE_OPTIONS_INIT                                                        \
    {                                                                                              \
        sizeof(pprof_cpuprofile_write_options), NULL, UINT64_C(1) << 24,                           \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_CPUPROFILE_WRITE_OPTIONS_INIT. */
PPROF_API void pprof_cpuprofile_write_options_init(pprof_cpuprofile_write_options *opts);

/* Appends p as a .cpuprofile: one node per distinct call path (inlined frames are nodes of
 * their own; a node's callFrame is the function name, its file as url, the line and column of
 * the frame, 0-based, -1 when unknown), under a "(root)" node. A pprof sample becomes as many
 * entries of "samples" as its samples/count value says (one when the profile has no such
 * type), its time value spread over them in whole microseconds that sum to it (rounded to the
 * microsecond). The samples are listed node by node in preorder of the tree (pprof keeps no
 * order of samples), startTime is 0 and endTime its duration or the sum of the deltas. So
 * pprof_cpuprofile_read_memory gives back the profile it read (same samples, stacks and values),
 * and writing that again gives the same bytes. PPROF_E_LIMIT past max_samples (a count of 10^12 is
 * never expanded); PPROF_E_INVALID for an invalid profile or a negative count or time. */
PPROF_API pprof_status pprof_cpuprofile_write_memory(const pprof_profile *p,
                                                     const pprof_cpuprofile_write_options *opts,
                                                     pprof_buffer *out, pprof_error *err);
/* The same to a path as pprof_bytes_write_file writes it (wopts may be NULL), or to an open
 * stream (flushed, not closed). */
PPROF_API pprof_status pprof_cpuprofile_write_file(const pprof_profile *p,
                                                   const pprof_cpuprofile_write_options *opts,
                                                   const pprof_write_options *wopts,
                                                   const char *path, pprof_error *err);
PPROF_API pprof_status pprof_cpuprofile_write_stream(const pprof_profile *p,
                                                     const pprof_cpuprofile_write_options *opts,
                                                     FILE *stream, pprof_error *err);
/* Deprecated (one release): pprof_cpuprofile_write_memory. */
PPROF_API pprof_status pprof_cpuprofile_write(const pprof_profile *p,
                                              const pprof_cpuprofile_write_options *opts,
                                              pprof_buffer *out, pprof_error *err)
    PPROF_DEPRECATED("use pprof_cpuprofile_write_memory");

#ifdef __cplusplus
}
#endif

#endif
