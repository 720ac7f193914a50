/* Deterministic generator of large, realistic pprof profiles for benchmarks and tests.
 *
 * The same parameters always give the same bytes, on any machine: the generator uses its own
 * integer-only pseudo-random streams and no floating point. The shape follows a Go CPU/heap
 * profile: a main binary and shared libraries, functions grouped into packages and files,
 * locations with one or several (inlined) lines, distinct stacks that share their root frames
 * like a call tree, samples drawn from those stacks with a skewed popularity, and labels.
 *
 * "host" variants model the same service profiled on many machines: variant 0 is the base;
 * variant h > 0 keeps the mappings, locations and almost every function, but draws other
 * sample values, label values and stack choices, renames host_unique_pct percent of the
 * functions and swaps the leaf frame of host_unique_pct percent of the stacks.
 *
 * Not part of the installed library: link pprof_gen_dep (bench/meson.build). No global state. */
#ifndef PPROF_BENCH_GEN_H
#define PPROF_BENCH_GEN_H

#include "pprof.h"

typedef struct pprof_gen_params {
    uint64_t seed;
    uint64_t samples;         /* Sample messages */
    uint32_t stacks;          /* distinct stacks the samples draw from (>= 1) */
    uint32_t functions;       /* >= 1 */
    uint32_t locations;       /* 0 = functions * 3 / 2 */
    uint32_t mappings;        /* >= 1; mapping 1 is the main binary */
    uint32_t depth;           /* largest stack depth; depths vary from depth / 4 to depth */
    uint32_t inline_depth;    /* largest number of lines per location; 1 = no inlining */
    uint32_t labels;          /* labels per sample */
    uint32_t sample_types;    /* values per sample (>= 1) */
    uint32_t host;            /* host variant; 0 = the base profile */
    uint32_t host_unique_pct; /* share of functions and stacks a host variant changes */
} pprof_gen_params;

/* Defaults: a mid-sized CPU profile (about 1 MB raw). */
void pprof_gen_params_init(pprof_gen_params *p);

/* Named shapes: "small" (~80 KB), "medium" (~0.7 MB, the defaults), "large" (~27.5 MB raw, the
 * size used in the decoder speed target), "deep" (deep stacks, heavy inlining), "labels" (many
 * labels per sample), "host" (one of many hosts of a service, for merge benchmarks; set .host).
 * Returns false for an unknown name and leaves *p untouched. */
bool pprof_gen_preset(const char *name, pprof_gen_params *p);

/* Appends the raw protobuf encoding of the profile to *out. Fails with PPROF_E_ARG for
 * parameters out of range and PPROF_E_NOMEM when memory runs out. */
pprof_status pprof_gen_raw(const pprof_gen_params *p, pprof_buffer *out, pprof_error *err);

/* Same, then compressed as format at level (0 = the library's default). */
pprof_status pprof_gen_write(const pprof_gen_params *p, pprof_format format, int level,
                             pprof_buffer *out, pprof_error *err);

/* Generates the profile and reads it back into a model. */
pprof_status pprof_gen_profile(const pprof_gen_params *p, pprof_profile **out, pprof_error *err);

#endif
