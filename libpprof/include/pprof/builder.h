/* [libpprof] libpprof builder: the write side for profilers.
 *
 * A pprof_builder interns strings, mappings, functions and locations, aggregates samples
 * (identical stack + labels add their values) and serializes a valid profile through the core
 * writer. Its memory is bounded: caps turn into PPROF_E_LIMIT, and after a reset only what an
 * open (uncommitted) sample still references is kept.
 *
 * Handles. Every handle (pprof_builder_str, _fn, _map, _loc) carries the generation in which it
 * was issued. pprof_builder_reset, pprof_builder_finish and a write (pprof_builder_write_*) with
 * PPROF_BUILDER_RESET start a new generation. Rule: from then on EVERY handle of an earlier
 * generation returns PPROF_E_STALE, including handles of entities kept alive because an open
 * sample references them (the open sample's own references are remapped internally). A stale
 * or never-issued handle is never dereferenced and never emitted. The zero handle
 * ({0}, PPROF_BUILDER_NONE) is valid in every generation: the empty string, no mapping or no
 * function. Limits of the check: handles are not tagged with their builder (a handle passed to
 * another builder is only range-checked), and the 32-bit generation wraps after 2^32 resets.
 *
 * Open samples (pprof_builder_open) are not generation-stamped: they survive resets and are
 * ended only by commit or abort; after that their handle is PPROF_E_STALE. An open sample lands
 * whole in exactly one profile: the first one serialized after its commit.
 *
 * Threads. Without PPROF_BUILDER_THREAD_SAFE a builder is used by one thread at a time (any
 * thread). With it, every function below may be called from any number of threads at once; each
 * call is atomic with respect to the others (an internal mutex), so a serialize-and-reset sees
 * each sample either wholly committed or still open. A thread holding handles across calls may
 * get PPROF_E_STALE when another thread resets in between: it re-interns and retries, or uses
 * the by-value calls (pprof_builder_open_add_frame, pprof_builder_open_add_label_cstr), which
 * intern and append in one atomic step and never see a stale handle.
 * pprof_builder_free is never concurrent with other calls on the same builder.
 *
 * Per function, with PPROF_BUILDER_THREAD_SAFE:
 *   pprof_builder_new, _options_init ........ any thread (no shared state)
 *   intern*, function, mapping, location .... concurrent; result valid until the next reset
 *   add_sample, open_* ....................... concurrent; each call atomic
 *   set_time, add_comment, get_stats ......... concurrent
 *   write_memory, _file, _stream, reset, finish concurrent with all of the above; the whole
 *                                              encode (and for _file the write) runs under the
 *                                              lock, so adders wait for its duration
 *   pprof_builder_free ....................... exclusive
 * Without the flag every function needs exclusive use of the builder.
 *
 * Determinism: the builder reads no clock and keeps no state across pprof_builder_finish, so
 * the same calls after a finish give the same bytes as on a fresh builder.
 */
#ifndef PPROF_BUILDER_H
#define PPROF_BUILDER_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pprof_builder pprof_builder;

typedef struct pprof_builder_str {
    uint64_t h;
} pprof_builder_str;
typedef struct pprof_builder_fn {
    uint64_t h;
} pprof_builder_fn;
typedef struct pprof_builder_map {
    uint64_t h;
} pprof_builder_map;
typedef struct pprof_builder_loc {
    uint64_t h;
} pprof_builder_loc;
/* An open sample; survives resets until committed or aborted. */
typedef struct pprof_builder_open {
    uint64_t h;
} pprof_builder_open;

#define PPROF_BUILDER_NONE                                                                         \
    {                                                                                              \
        0                                                                                          \
    }

/* Option flags. */
#define PPROF_BUILDER_THREAD_SAFE 0x1u /* an internal mutex makes every call atomic */

/* A value type given as C strings (interned by the builder). */
typedef struct pprof_builder_value_type {
    const char *type;
    const char *unit;
} pprof_builder_value_type;

typedef struct pprof_builder_options {
    size_t struct_size;                           /* sizeof(pprof_builder_options) */
    uint32_t flags;                               /* PPROF_BUILDER_* */
    const pprof_builder_value_type *sample_types; /* copied; at least one */
    size_t n_sample_types;
    pprof_builder_value_type period_type; /* NULL strings = no period type */
    int64_t period;
    const char *default_sample_type; /* NULL = none */
    /* Caps on what one profile may hold; 0 = the default. Hitting one gives PPROF_E_LIMIT and
     * leaves the builder unchanged. */
    uint64_t max_strings;      /* interned strings, "" not counted; default 1 << 20 */
    uint64_t max_string_bytes; /* their total length; default 64 MiB */
    uint64_t max_samples;      /* distinct (aggregated) samples; default 1 << 20 */
    uint64_t max_locations;    /* default 1 << 20 */
    uint64_t max_functions;    /* default 1 << 20 */
    uint64_t max_mappings;     /* default 1 << 16 */
    uint64_t max_open_samples; /* samples open at once; default 1 << 12 */
    uint64_t max_open_depth;   /* frames + labels in one open sample; default 1 << 12 */
    pprof_allocator allocator;
} pprof_builder_options;

#define PPROF_BUILDER_OPTIONS_INIT                                                                 \
    {                                                                                              \
        sizeof(pprof_builder_options), 0, NULL, 0, {NULL, NULL}, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0,  \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

PPROF_API void pprof_builder_options_init(pprof_builder_options *opts);

/* Creates a builder. Fails with PPROF_E_ARG without sample types. Thread rule: any thread. */
PPROF_API pprof_status pprof_builder_new(const pprof_builder_options *opts, pprof_builder **out,
                                         pprof_error *err);

/* Frees the builder and returns the number of samples it still held and that were therefore
 * never serialized: committed-but-unserialized distinct samples plus open samples. 0 means
 * nothing was dropped. NULL is a no-op returning 0. Never concurrent with other calls. */
PPROF_API uint64_t pprof_builder_free(pprof_builder *b);

/* ---------------------------------------------------------------- interning
 * Each returns the same handle for the same content within a generation. */

PPROF_API pprof_status pprof_builder_intern(pprof_builder *b, const char *s, size_t len,
                                            pprof_builder_str *out, pprof_error *err);
/* NUL-terminated form; NULL interns "". */
PPROF_API pprof_status pprof_builder_intern_cstr(pprof_builder *b, const char *s,
                                                 pprof_builder_str *out, pprof_error *err);

PPROF_API pprof_status pprof_builder_function(pprof_builder *b, pprof_builder_str name,
                                              pprof_builder_str system_name,
                                              pprof_builder_str filename, int64_t start_line,
                                              pprof_builder_fn *out, pprof_error *err);

typedef struct pprof_builder_mapping_desc {
    uint64_t memory_start, memory_limit, file_offset;
    pprof_builder_str filename, build_id;
    bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
} pprof_builder_mapping_desc;

PPROF_API pprof_status pprof_builder_mapping(pprof_builder *b,
                                             const pprof_builder_mapping_desc *desc,
                                             pprof_builder_map *out, pprof_error *err);

/* One line of a location; lines[0] is the innermost (inlined) call, the last the caller. */
typedef struct pprof_builder_line {
    pprof_builder_fn function;
    int64_t line;
    int64_t column;
} pprof_builder_line;

/* mapping may be PPROF_BUILDER_NONE; n_lines may be 0 (an address-only location). Address 0
 * with no line is refused (PPROF_E_ARG) unless a mapping is given. */
PPROF_API pprof_status pprof_builder_location(pprof_builder *b, pprof_builder_map mapping,
                                              uint64_t address, const pprof_builder_line *lines,
                                              size_t n_lines, bool is_folded,
                                              pprof_builder_loc *out, pprof_error *err);

typedef struct pprof_builder_label {
    pprof_builder_str key;
    pprof_builder_str str;      /* a string label when not NONE ... */
    int64_t num;                /* ... else a numeric one */
    pprof_builder_str num_unit; /* NONE = no unit */
} pprof_builder_label;

/* ---------------------------------------------------------------- samples */

/* Adds one sample in one call: n_values must equal the number of sample types; stack is leaf
 * first. A sample equal in stack and labels (as a set) to one already held adds its values.
 * Errors: PPROF_E_STALE (a handle), PPROF_E_LIMIT (max_samples), PPROF_E_OVERFLOW (a sum);
 * on error nothing changed. */
PPROF_API pprof_status pprof_builder_add_sample(pprof_builder *b, const int64_t *values,
                                                size_t n_values, const pprof_builder_loc *stack,
                                                size_t n_stack, const pprof_builder_label *labels,
                                                size_t n_labels, pprof_error *err);

/* A sample built across several calls: begin, add frames (leaf first) and labels, commit. Until
 * commit it is in no profile; a serialize-and-reset keeps it and what it references. */
PPROF_API pprof_status pprof_builder_open_begin(pprof_builder *b, pprof_builder_open *out,
                                                pprof_error *err);
PPROF_API pprof_status pprof_builder_open_add_location(pprof_builder *b, pprof_builder_open s,
                                                       pprof_builder_loc loc, pprof_error *err);

/* A frame given by value; interned and appended in one atomic step. The mapping, if any, is
 * interned with has_functions set and the other has_* flags clear. */
typedef struct pprof_builder_frame {
    const char *function; /* NULL = no line (an address-only location) */
    const char *system_name;
    const char *filename;
    int64_t line;
    int64_t start_line;
    uint64_t address;
    uint64_t mapping_start, mapping_limit, mapping_offset; /* limit 0 = no mapping */
    const char *mapping_filename;
    const char *mapping_build_id;
} pprof_builder_frame;

PPROF_API pprof_status pprof_builder_open_add_frame(pprof_builder *b, pprof_builder_open s,
                                                    const pprof_builder_frame *frame,
                                                    pprof_error *err);
PPROF_API pprof_status pprof_builder_open_add_label(pprof_builder *b, pprof_builder_open s,
                                                    const pprof_builder_label *label,
                                                    pprof_error *err);
/* str NULL = a numeric label (num, unit); unit may be NULL. */
PPROF_API pprof_status pprof_builder_open_add_label_cstr(pprof_builder *b, pprof_builder_open s,
                                                         const char *key, const char *str,
                                                         int64_t num, const char *unit,
                                                         pprof_error *err);
/* Commits with its values. On PPROF_E_LIMIT or PPROF_E_OVERFLOW the sample stays open (so it
 * is not lost): serialize-and-reset and commit again, or abort it. */
PPROF_API pprof_status pprof_builder_open_commit(pprof_builder *b, pprof_builder_open s,
                                                 const int64_t *values, size_t n_values,
                                                 pprof_error *err);
PPROF_API pprof_status pprof_builder_open_abort(pprof_builder *b, pprof_builder_open s,
                                                pprof_error *err);

/* ---------------------------------------------------------------- header */

/* Sets time_nanos and duration_nanos of the next profile (the builder reads no clock); a reset
 * clears them. */
PPROF_API pprof_status pprof_builder_set_time(pprof_builder *b, int64_t time_nanos,
                                              int64_t duration_nanos, pprof_error *err);
/* Appends a comment to the next profile; a reset clears comments. */
PPROF_API pprof_status pprof_builder_add_comment(pprof_builder *b, const char *comment,
                                                 pprof_error *err);

/* ---------------------------------------------------------------- output */

#define PPROF_BUILDER_RESET 0x1u /* after a successful serialize, start a new profile */

/* Serializes the committed samples and what they reference (ids dense 1..n in first-use
 * order; unreferenced entities are left out) and appends the bytes to *out. With
 * PPROF_BUILDER_RESET, and only if serializing succeeded, the samples and header are cleared,
 * tables keep only what open samples reference, and a new generation starts; on failure
 * nothing changed, so no sample is lost. opts NULL = gzip. */
PPROF_API pprof_status pprof_builder_write_memory(pprof_builder *b, unsigned flags,
                                                  const pprof_write_options *opts,
                                                  pprof_buffer *out, pprof_error *err);
/* Same to a path, written atomically, or to standard output for "-". The reset happens only
 * after the write succeeded (the lock is held during the write in thread-safe mode). If the
 * write succeeded but the reset then fails for lack of memory, PPROF_E_NOMEM is returned and
 * the samples are kept: they would be written again by the next call. */
PPROF_API pprof_status pprof_builder_write_file(pprof_builder *b, unsigned flags,
                                                const pprof_write_options *opts, const char *path,
                                                pprof_error *err);
/* Same to an open stream (not atomically; flushed, not closed). */
PPROF_API pprof_status pprof_builder_write_stream(pprof_builder *b, unsigned flags,
                                                  const pprof_write_options *opts, FILE *stream,
                                                  pprof_error *err);
/* Deprecated (one release): the same as pprof_builder_write_memory and
 * pprof_builder_write_file (whose path comes after opts). */
PPROF_API pprof_status pprof_builder_serialize(pprof_builder *b, unsigned flags,
                                               const pprof_write_options *opts, pprof_buffer *out,
                                               pprof_error *err)
    PPROF_DEPRECATED("use pprof_builder_write_memory");
PPROF_API pprof_status pprof_builder_serialize_file(pprof_builder *b, unsigned flags,
                                                    const char *path,
                                                    const pprof_write_options *opts,
                                                    pprof_error *err)
    PPROF_DEPRECATED("use pprof_builder_write_file");
/* Clears samples, header and tables except what open samples reference; new generation. */
PPROF_API pprof_status pprof_builder_reset(pprof_builder *b, pprof_error *err);

#define PPROF_BUILDER_FINISH_COMMIT_OPEN 0x1u /* flush open samples instead of dropping them */
/* Ends a session: open samples are aborted and counted in *n_open_dropped, or with
 * PPROF_BUILDER_FINISH_COMMIT_OPEN committed (values given by open_values, one per sample
 * type, e.g. zeros; NULL = zeros) so they are flushed; then everything is serialized to *out
 * (when out is not NULL) and the builder returns to its freshly created state (except the
 * generation, which only grows). If serializing fails nothing is cleared. */
PPROF_API pprof_status pprof_builder_finish(pprof_builder *b, unsigned flags,
                                            const int64_t *open_values,
                                            const pprof_write_options *opts, pprof_buffer *out,
                                            uint64_t *n_open_dropped, pprof_error *err);

/* ---------------------------------------------------------------- stats */

typedef struct pprof_builder_stats {
    size_t struct_size;    /* sizeof(pprof_builder_stats), set by the caller */
    uint64_t strings;      /* interned, "" not counted */
    uint64_t string_bytes; /* their total length */
    uint64_t functions, locations, mappings;
    uint64_t samples;      /* distinct committed samples held */
    uint64_t open_samples; /* begun, not yet committed or aborted */
    uint64_t arena_bytes;  /* heap bytes the builder holds (capacities, hash tables, strings) */
    uint64_t generation;
    uint64_t serialized;   /* profiles serialized since creation or finish */
    uint64_t limit_errors; /* calls refused with PPROF_E_LIMIT since creation or finish */
} pprof_builder_stats;

#define PPROF_BUILDER_STATS_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_builder_stats), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0                               \
    }

/* Fills *out (up to out->struct_size bytes). */
PPROF_API pprof_status pprof_builder_get_stats(pprof_builder *b, pprof_builder_stats *out,
                                               pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
