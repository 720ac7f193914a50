/* libpprof interchange formats of other viewers: speedscope's JSON file format (out) and the
 * Chrome DevTools / Node.js .cpuprofile (in and out). docs/interchange.md maps the fields.
 *
 * Thread rule: the library's (see pprof.h); writing needs exclusive use of the profile the
 * first time its id index is built.
 */
#ifndef PPROF_INTERCHANGE_H
#define PPROF_INTERCHANGE_H

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
PPROF_API pprof_status pprof_speedscope_write(const pprof_profile *p,
                                              const pprof_speedscope_options *opts,
                                              pprof_buffer *out, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
