/* [libpprof] Read, check, merge, rewrite and build pprof profiles.
 *
 * Thread rule (whole library unless a function says otherwise): no global state, no locks, no
 * init call. Separate objects may be used from different threads at once; one object is used by
 * one thread at a time; a profile that is no longer modified may be read from many threads,
 * through every function that takes it as const, the first call included (what reads build
 * lazily, such as the id index, is built once, whichever thread asks first).
 *
 * Errors: calls return a pprof_status and fill an optional caller-owned pprof_error. The error
 * path never allocates. NULL is accepted wherever a pprof_error * is taken.
 */
#ifndef PPROF_PPROF_H
#define PPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof-version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PPROF_BUILDING_LIBRARY) && defined(__GNUC__)
#define PPROF_API __attribute__((visibility("default")))
#else
#define PPROF_API
#endif

/* Marks a name kept for one release after it was renamed; the message names its successor. */
#if defined(__GNUC__) || defined(__clang__)
#define PPROF_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define PPROF_DEPRECATED(msg)
#endif

/* ---------------------------------------------------------------- errors */

/* Stable codes: a value never changes meaning. */
typedef enum pprof_status {
    PPROF_OK = 0,
    PPROF_E_ARG = 1,          /* a caller passed an invalid argument */
    PPROF_E_NOMEM = 2,        /* an allocation failed */
    PPROF_E_IO = 3,           /* reading or writing a file failed */
    PPROF_E_EMPTY = 4,        /* the input holds no bytes (after decompression) */
    PPROF_E_WIRE = 5,         /* malformed protobuf wire data */
    PPROF_E_LIMIT = 6,        /* a configured limit was exceeded (sizes, counts, ratio) */
    PPROF_E_COMPRESSION = 7,  /* corrupt gzip or zstd stream */
    PPROF_E_INVALID = 8,      /* the profile breaks a rule the operation depends on */
    PPROF_E_INCOMPATIBLE = 9, /* profiles cannot be combined (sample or period types differ) */
    PPROF_E_OVERFLOW = 10,    /* an int64 sum overflowed */
    PPROF_E_STALE = 11,       /* a builder handle from before a reset, or never issued */
    PPROF_E_UNSUPPORTED = 12, /* a feature this build lacks */
} pprof_status;

#define PPROF_NO_OFFSET UINT64_MAX

typedef struct pprof_error {
    pprof_status code;
    uint64_t offset;   /* byte offset in the decompressed input, or PPROF_NO_OFFSET */
    char path[128];    /* place inside the profile, e.g. "location[12].line[1].function_id" */
    char message[256]; /* what is wrong and what was expected */
} pprof_error;

/* A constant name such as "PPROF_E_WIRE"; never NULL. */
PPROF_API const char *pprof_status_name(pprof_status code);
/* The library's version string, equal to PPROF_VERSION_STRING of the build. */
PPROF_API const char *pprof_version_string(void);

/* ---------------------------------------------------------------- allocation */

/* Per-object allocator: set all three hooks, or none for the library's default (malloc, with
 * huge-page mappings for blocks of 2 MiB and more). There is no global setter. */
typedef struct pprof_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
} pprof_allocator;

/* ---------------------------------------------------------------- reading */

typedef enum pprof_format {
    PPROF_FORMAT_RAW = 0, /* uncompressed protobuf */
    PPROF_FORMAT_GZIP = 1,
    PPROF_FORMAT_ZSTD = 2,
} pprof_format;

/* Detects the container from the first bytes, never from a name. */
PPROF_API pprof_format pprof_detect_format(const void *data, size_t size);
/* "gzip", "zstd" or "none". */
PPROF_API const char *pprof_format_name(pprof_format format);

typedef struct pprof_read_options {
    size_t struct_size;              /* sizeof(pprof_read_options) */
    uint64_t max_input_bytes;        /* bytes read from a file or stdin */
    uint64_t max_decompressed_bytes; /* protobuf bytes after decompression */
    uint32_t max_ratio;              /* decompressed/compressed, enforced past ratio_floor */
    uint64_t ratio_floor;            /* decompressed size below which the ratio is not checked */
    uint64_t max_strings;
    uint64_t max_samples;
    uint64_t max_locations;
    uint64_t max_functions;
    uint64_t max_mappings;
    uint64_t max_lines;         /* total over all locations */
    uint64_t max_labels;        /* total over all samples */
    uint64_t max_stack_entries; /* total location ids over all samples */
    uint64_t max_values;        /* total values over all samples */
    pprof_allocator allocator;
    /* PPROF_RELAX_* bits: rules the reader enforces unless told otherwise, because a profile
     * that breaks them cannot be read back faithfully (Go refuses it too) and rewriting it
     * would spread the damage. 0, the default, enforces them all: a tool that writes what it
     * read keeps 0; one that only reports or lists (pprof-check, pprof-dump) may relax them
     * and leave the finding to pprof_check. */
    uint32_t relax;
    /* OTLP input: Profile messages over all resources and scopes. Each becomes pprof state of
     * its own (a profile, or a sample type of one), so many tiny ones cost far more memory than
     * their bytes: this bound is far below max_samples. */
    uint64_t max_profiles;
    /* Formats read besides pprof, tried in order: a NULL-terminated list of readers such as
     * libpprof-formats' pprof_formats_readers(). NULL: pprof only (the core knows no other). */
    const struct pprof_reader *const *readers;
    /* Threads that may work on one input: the members of a gzip stream written in members
     * (PPROF_GZIP_MEMBER_BYTES each, as this library writes gzip) are inflated side by side,
     * and pprof_convert checks and encodes a large profile's samples in parts. 0 or 1, the
     * default: the calling thread alone. Results never depend on it. */
    unsigned threads;
} pprof_read_options;

/* Keep a profile whose string_table[0] is not "" (rule W6-string-table-0): every field meaning
 * "no string" would read that string instead. Refused by default with PPROF_E_INVALID. */
#define PPROF_RELAX_STRING0 (UINT32_C(1) << 0)
/* Keep reading past a second time_nanos that follows a nonzero one (rule W8-concatenated,
 * Go's "concatenated profiles detected"): the tables of two profiles back to back would be read
 * as one profile's. Refused by default with PPROF_E_INVALID at the second time_nanos. */
#define PPROF_RELAX_CONCATENATED (UINT32_C(1) << 1)

#define PPROF_READ_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(pprof_read_options), UINT64_C(1) << 32, UINT64_C(2) << 30, 1000,                    \
            UINT64_C(64) << 20, UINT64_C(1) << 26, UINT64_C(1) << 28, UINT64_C(1) << 26,           \
            UINT64_C(1) << 26, UINT64_C(1) << 24, UINT64_C(1) << 28, UINT64_C(1) << 28,            \
            UINT64_C(1) << 31, UINT64_C(1) << 30, {0, 0, 0, 0}, 0, UINT64_C(1) << 14, NULL, 0      \
    }

PPROF_API void pprof_read_options_init(pprof_read_options *opts);

typedef struct pprof_profile pprof_profile;

struct pprof_finding;
struct pprof_check_options;
struct pprof_check_summary;

/* A format other than pprof, plugged into every read path from above (docs/architecture.md):
 * the reads of a profile, a merge input, a conversion and a check consult the readers of their
 * options after removing the container (gzip, zstd). Readers are constant tables; the library
 * keeps no registry of them. */
typedef struct pprof_reader {
    size_t struct_size; /* sizeof(pprof_reader) */
    const char *name;   /* "otlp" */
    /* Whether decompressed bytes are certainly in this format. */
    bool (*detect)(const uint8_t *raw, size_t len);
    /* Whether a file name says this format where the content alone is not certain; may be
     * NULL. */
    bool (*path_says)(const char *path);
    /* raw (taken: freed with opts' allocator whatever happens) into one new profile; container
     * is what the bytes came in. */
    pprof_status (*read)(uint8_t *raw, size_t len, pprof_format container,
                         const pprof_read_options *opts, pprof_profile **out, pprof_error *err);
    /* *raw (taken) replaced by the pprof encoding of the one profile it holds, allocated with
     * opts' allocator: the merge's inputs decode pprof bytes lazily. */
    pprof_status (*to_pprof)(uint8_t **raw, size_t *len, pprof_format container,
                             const pprof_read_options *opts, pprof_error *err);
    /* Checks the file's bytes (any container) against the format's own rules, as pprof_check
     * does a profile; *decoded when the bytes decoded. NULL: checked as the profile read. */
    pprof_status (*check)(const uint8_t *data, size_t size, const struct pprof_check_options *opts,
                          bool (*fn)(void *ctx, const struct pprof_finding *f), void *ctx,
                          struct pprof_check_summary *summary, bool *decoded, pprof_error *err);
} pprof_reader;

/* Reads a raw, gzip (one or more members) or zstd profile from memory. The bytes are copied or
 * decompressed; the caller keeps ownership of data. opts may be NULL for the defaults. On success
 * *out owns everything it refers to; on failure *out is NULL. */
PPROF_API pprof_status pprof_profile_read_memory(const void *data, size_t size,
                                                 const pprof_read_options *opts,
                                                 pprof_profile **out, pprof_error *err);
/* Same, from a path; "-" reads standard input. */
PPROF_API pprof_status pprof_profile_read_file(const char *path, const pprof_read_options *opts,
                                               pprof_profile **out, pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_profile_free(pprof_profile *profile);

/* The container the profile was read from (PPROF_FORMAT_RAW for built profiles). */
PPROF_API pprof_format pprof_profile_source_format(const pprof_profile *profile);
/* Unknown fields skipped while decoding (they are not written back). */
PPROF_API uint64_t pprof_profile_unknown_fields(const pprof_profile *profile);

/* ---------------------------------------------------------------- model
 * Read-only views. String fields are indices into the string table exactly as stored (they may
 * be out of range in an invalid profile: pprof_profile_string returns false for those). Ids are
 * as stored. Pointers in views stay valid until the profile is freed or modified. */

typedef struct pprof_string {
    const char *data; /* not NUL-terminated */
    size_t len;
} pprof_string;

typedef struct pprof_value_type {
    int64_t type;
    int64_t unit;
} pprof_value_type;

typedef struct pprof_label {
    int64_t key;
    int64_t str;
    int64_t num;
    int64_t num_unit;
} pprof_label;

typedef struct pprof_line {
    uint64_t function_id;
    int64_t line;
    int64_t column;
} pprof_line;

typedef struct pprof_mapping {
    uint64_t id;
    uint64_t memory_start;
    uint64_t memory_limit;
    uint64_t file_offset;
    int64_t filename;
    int64_t build_id;
    bool has_functions;
    bool has_filenames;
    bool has_line_numbers;
    bool has_inline_frames;
} pprof_mapping;

typedef struct pprof_function {
    uint64_t id;
    int64_t name;
    int64_t system_name;
    int64_t filename;
    int64_t start_line;
} pprof_function;

typedef struct pprof_location {
    uint64_t id;
    uint64_t mapping_id;
    uint64_t address;
    const pprof_line *line;
    size_t n_line;
    bool is_folded;
} pprof_location;

typedef struct pprof_sample {
    const uint64_t *location_id; /* leaf first */
    size_t n_location_id;
    const int64_t *value;
    size_t n_value;
    const pprof_label *label;
    size_t n_label;
} pprof_sample;

typedef struct pprof_header {
    pprof_value_type period_type;
    int64_t period;
    int64_t time_nanos;
    int64_t duration_nanos;
    int64_t drop_frames;
    int64_t keep_frames;
    int64_t default_sample_type;
    int64_t doc_url;
    const int64_t *comment;
    size_t n_comment;
} pprof_header;

typedef enum pprof_table {
    PPROF_TABLE_STRING,
    PPROF_TABLE_SAMPLE_TYPE,
    PPROF_TABLE_SAMPLE,
    PPROF_TABLE_MAPPING,
    PPROF_TABLE_LOCATION,
    PPROF_TABLE_FUNCTION,
} pprof_table;

PPROF_API size_t pprof_profile_count(const pprof_profile *p, pprof_table table);
PPROF_API pprof_header pprof_profile_header(const pprof_profile *p);
PPROF_API bool pprof_profile_string(const pprof_profile *p, int64_t index, pprof_string *out);
PPROF_API pprof_value_type pprof_profile_sample_type(const pprof_profile *p, size_t i);
PPROF_API pprof_sample pprof_profile_sample(const pprof_profile *p, size_t i);
PPROF_API pprof_mapping pprof_profile_mapping(const pprof_profile *p, size_t i);
PPROF_API pprof_location pprof_profile_location(const pprof_profile *p, size_t i);
PPROF_API pprof_function pprof_profile_function(const pprof_profile *p, size_t i);

/* Id lookups: the index of the entity with that id (the last one if ids repeat). Return false
 * when there is none or when building the id index failed for lack of memory. */
PPROF_API bool pprof_profile_find_mapping(const pprof_profile *p, uint64_t id, size_t *index);
PPROF_API bool pprof_profile_find_location(const pprof_profile *p, uint64_t id, size_t *index);
PPROF_API bool pprof_profile_find_function(const pprof_profile *p, uint64_t id, size_t *index);

/* Semantic equality: the same header, tables and entities in the same order, with every string
 * compared by content rather than by index. Used to test round trips. */
PPROF_API bool pprof_profile_equal(const pprof_profile *a, const pprof_profile *b);

/* ---------------------------------------------------------------- writing */

typedef struct pprof_write_options {
    size_t struct_size;  /* sizeof(pprof_write_options) */
    pprof_format format; /* default PPROF_FORMAT_GZIP */
    int level; /* compression level; 0 = the format's default (gzip PPROF_GZIP_DEFAULT_LEVEL, zstd
                  3) */
    /* Threads that may compress at once (0 or 1: only the calling one). The bytes never depend
     * on it: gzip output of more than PPROF_GZIP_MEMBER_BYTES uncompressed bytes is always a
     * series of gzip members of that many input bytes each, which gzip readers (Go's included)
     * read as one stream. */
    unsigned threads;
    /* Called with the temporary file's path just before the file is created, and with NULL
     * once it was renamed over the target or removed, or could not be created (the path is valid
     * until then), so that no moment passes where the file exists unannounced. The library installs
     * no signal handler: this lets a program remove the temporary itself when a signal ends it
     * (copy the path, then unlink() it in the handler). NULL: not called. */
    void (*on_temporary)(void *ctx, const char *temporary_path);
    void *temporary_ctx;
} pprof_write_options;

#define PPROF_GZIP_MEMBER_BYTES ((size_t)1 << 20)

/* One default gzip level for every writer (every tool, the library, the Python binding):
 * profiles are written far more often than they are stored for long, and level 1 writes
 * them fastest for a few per cent more bytes (docs/bench/core.md, "one gzip level"). */
#define PPROF_GZIP_DEFAULT_LEVEL 1

/* Whether opts can be written: a known format and a level in its range (gzip 1-12 as
 * libdeflate has them, zstd 1-22, none: 0 only; 0 is the format's default everywhere).
 * PPROF_E_ARG with a message that names the range otherwise. The writers check it first. */
PPROF_API pprof_status pprof_write_options_check(const pprof_write_options *opts, pprof_error *err);

#define PPROF_WRITE_OPTIONS_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_write_options), PPROF_FORMAT_GZIP, 0, 0, NULL, NULL                           \
    }

PPROF_API void pprof_write_options_init(pprof_write_options *opts);

/* A growable output buffer; release its bytes with pprof_buffer_free. */
typedef struct pprof_buffer {
    uint8_t *data;
    size_t len;
    size_t cap;
} pprof_buffer;

PPROF_API void pprof_buffer_free(pprof_buffer *buf);

/* pprof_profile_read_memory taking in: its bytes are freed (pprof_buffer_free) as soon as they
 * are decompressed (or copied), so the compressed input and the decoded profile are never held
 * together. in is empty on return, success or not. */
PPROF_API pprof_status pprof_profile_read_buffer(pprof_buffer *in, const pprof_read_options *opts,
                                                 pprof_profile **out, pprof_error *err);

/* Encodes the profile deterministically (same model, same bytes): packed repeated scalars, the
 * string table rebuilt from the strings actually referenced, deduplicated, "" first. Fails with
 * PPROF_E_INVALID, naming the path, when a string index is out of range. Appends to *out. */
PPROF_API pprof_status pprof_profile_write_memory(const pprof_profile *p,
                                                  const pprof_write_options *opts,
                                                  pprof_buffer *out, pprof_error *err);
/* Writes to a path atomically (temporary file in the same directory, fsync, rename), so the
 * path's old content is intact if anything fails; "-" and "/dev/stdout" write standard output.
 * A symbolic link is followed: its target is replaced and the link stays. A character or block
 * device, FIFO or socket is written in place, not atomically (never replaced by a file). */
PPROF_API pprof_status pprof_profile_write_file(const pprof_profile *p,
                                                const pprof_write_options *opts, const char *path,
                                                pprof_error *err);
/* Writes to an open stream (not atomically; the stream is flushed, not closed). PPROF_E_IO
 * when writing or flushing fails. */
PPROF_API pprof_status pprof_profile_write_stream(const pprof_profile *p,
                                                  const pprof_write_options *opts, FILE *stream,
                                                  pprof_error *err);

/* Writes bytes to a path as pprof_profile_write_file does, or to standard output for "-". Of
 * opts (may be NULL) only on_temporary and temporary_ctx are used: the bytes are written as
 * they are. Every other format's _write_file writes through it. */
PPROF_API pprof_status pprof_bytes_write_file(const void *data, size_t size,
                                              const pprof_write_options *opts, const char *path,
                                              pprof_error *err);

/* Deprecated (one release): pprof_bytes_write_file(data, size, NULL or opts, path, err). */
PPROF_API pprof_status pprof_write_bytes_atomic(const char *path, const void *data, size_t size,
                                                pprof_error *err)
    PPROF_DEPRECATED("use pprof_bytes_write_file");
PPROF_API pprof_status pprof_write_bytes_file(const char *path, const void *data, size_t size,
                                              const pprof_write_options *opts, pprof_error *err)
    PPROF_DEPRECATED("use pprof_bytes_write_file");

/* ---------------------------------------------------------------- converting */

/* How pprof_convert_* produce the output; the bytes are the same whichever is used. */
typedef enum pprof_convert_mode {
    /* in place when the input allows it, else through the model */
    PPROF_CONVERT_AUTO = 0,
    /* read the whole profile into the model, check it, write it (pprof_profile_read_* + write) */
    PPROF_CONVERT_MODEL = 1,
    /* decode every table but the samples into the model; check each sample's bytes where they
     * lie and copy its location ids as they are. Refused with PPROF_E_UNSUPPORTED, writing
     * nothing, when the input needs the model: a sample whose location ids are not one packed
     * run of shortest varints naming existing locations, whose value count differs from the
     * sample types', whose labels name strings out of range, or which holds fields the
     * writer drops; a profile that does not decode or fails the check; OTLP input. */
    PPROF_CONVERT_IN_PLACE = 2,
} pprof_convert_mode;

struct pprof_finding;

typedef struct pprof_convert_options {
    size_t struct_size; /* sizeof(pprof_convert_options) */
    pprof_convert_mode mode;
    const pprof_read_options *read;   /* NULL: the defaults */
    const pprof_write_options *write; /* NULL: the defaults (gzip) */
    /* Write a profile that breaks a rule Go enforces when it reads one (pprof_validate)
     * instead of refusing it with PPROF_E_INVALID. */
    bool no_check;
    /* Each finding of the check (may be NULL), at most max_findings of them (0: 1), as
     * pprof_validate gives them. */
    bool (*on_finding)(void *ctx, const struct pprof_finding *f);
    void *finding_ctx;
    uint64_t max_findings;
} pprof_convert_options;

#define PPROF_CONVERT_OPTIONS_INIT                                                                 \
    {                                                                                              \
        sizeof(pprof_convert_options), PPROF_CONVERT_AUTO, NULL, NULL, false, NULL, NULL, 0        \
    }

/* The defaults, as PPROF_CONVERT_OPTIONS_INIT. */
PPROF_API void pprof_convert_options_init(pprof_convert_options *opts);

/* What a conversion did, for callers that report it; filled up to struct_size (set by the
 * caller, e.g. with PPROF_CONVERT_RESULT_INIT). */
typedef struct pprof_convert_result {
    size_t struct_size;    /* sizeof(pprof_convert_result), set by the caller */
    bool in_place;         /* the samples were copied in place */
    bool output_failed;    /* the error is about the output (writing it), not the input */
    uint64_t check_errors; /* findings of the check (PPROF_E_INVALID when not zero) */
} pprof_convert_result;

#define PPROF_CONVERT_RESULT_INIT                                                                  \
    {                                                                                              \
        sizeof(pprof_convert_result), false, false, 0                                              \
    }

/* Reads a profile (raw, gzip or zstd; "-" is standard input), checks it as pprof_validate does
 * unless opts->no_check, and writes it as pprof_profile_write_file does: the same bytes as
 * reading it with pprof_profile_read_file and writing that, in every mode. opts and res may be
 * NULL. Thread rule: any number of calls at once. */
PPROF_API pprof_status pprof_convert_file(const char *in_path, const pprof_convert_options *opts,
                                          const char *out_path, pprof_convert_result *res,
                                          pprof_error *err);
/* The same from memory to *out (appended), as pprof_profile_read_memory then
 * pprof_profile_write_memory. */
PPROF_API pprof_status pprof_convert_memory(const void *data, size_t size,
                                            const pprof_convert_options *opts, pprof_buffer *out,
                                            pprof_convert_result *res, pprof_error *err);

/* ---------------------------------------------------------------- sample types */

/* The sample type a report, flame graph or writer reads, by Go's -sample_index rule: name NULL or
 * "" picks the profile's default_sample_type when it names one of its types, else the last type; a
 * decimal number is an index; otherwise the type whose name equals name (or name without an
 * "inuse_" prefix). PPROF_E_ARG names the types when none matches; PPROF_E_INVALID without types.
 */
PPROF_API pprof_status pprof_sample_type_find(const pprof_profile *p, const char *name,
                                              size_t *index, pprof_error *err);

/* ---------------------------------------------------------------- shared types
 * Types that several layers take, kept here so that a header includes only what it uses. */

/* Aggregation granularity (Go's -granularity with Profile.Aggregate). */
typedef enum pprof_granularity {
    PPROF_GRANULARITY_NONE = 0, /* no aggregation (unless no_inlines) */
    PPROF_GRANULARITY_FUNCTIONS = 1,
    PPROF_GRANULARITY_FILEFUNCTIONS = 2,
    PPROF_GRANULARITY_FILES = 3,
    PPROF_GRANULARITY_LINES = 4,
    PPROF_GRANULARITY_ADDRESSES = 5,
} pprof_granularity;

/* Receives warnings (one line of text, no newline). ctx is the options' warn_ctx. */
typedef void (*pprof_warn_fn)(void *ctx, const char *message);

/* A profile read only to be merged or edited, its samples decoded a batch at a time
 * (pprof/merge.h reads, adds and frees one; pprof_edit_input edits one). */
typedef struct pprof_merge_input pprof_merge_input;

/* ---------------------------------------------------------------- printing */

typedef enum pprof_print_format {
    PPROF_PRINT_TEXT = 0, /* Go's Profile.String() of the profile as stored */
    PPROF_PRINT_JSON = 1, /* every field, strings resolved */
    /* What `go tool pprof -raw -symbolize=none` prints: the text of Go's merge of the one
     * profile (ids renumbered in order of first use, what no sample reaches dropped, zero
     * samples dropped, equal samples combined, a fake mapping when there is none).
     * pprof_profile_print only; reports take TEXT or JSON. */
    PPROF_PRINT_GO_RAW = 2,
} pprof_print_format;

/* Appends a readable listing of the profile to *out. */
PPROF_API pprof_status pprof_profile_print(const pprof_profile *p, pprof_print_format format,
                                           pprof_buffer *out, pprof_error *err);

/* Appends s (n bytes, any bytes) to *out as a JSON string literal, as every JSON output of the
 * library quotes its strings: '"' and '\\' escaped with a backslash, U+0000 to U+001F as
 * \u00XX, U+2028 and U+2029 as \u2028 and \u2029, and each byte that is not part of valid
 * UTF-8 as \ufffd (U+FFFD, one per byte, as Go and JSON readers take such bytes); the rest as
 * it is. A name that is Latin-1 "caf\xe9" comes out as "caf\ufffd". Errors: PPROF_E_ARG (no
 * output, or s NULL with n > 0), PPROF_E_NOMEM. */
PPROF_API pprof_status pprof_json_string_write(const char *s, size_t n, pprof_buffer *out,
                                               pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
