/* The decoded OpenTelemetry Profiles model (otlp-decode.c) shared by the converter and the
 * checker. Pinned to opentelemetry-proto commit ac2c4b5d1f3a6079de62f9afec860158ecc8af09
 * (2026-08-18), package opentelemetry.proto.profiles.v1development. Not installed. */
#ifndef PPROF_OTLP_PRIVATE_H
#define PPROF_OTLP_PRIVATE_H

#include "pprof/otlp.h"
#include "profile-private.h"

/* AnyValue's oneof, by field number (0: unset). */
enum {
    PPROF__ANY_NONE = 0,
    PPROF__ANY_STRING = 1,
    PPROF__ANY_BOOL = 2,
    PPROF__ANY_INT = 3,
    PPROF__ANY_DOUBLE = 4,
    PPROF__ANY_ARRAY = 5, /* s holds the ArrayValue's bytes, read on demand */
    PPROF__ANY_KVLIST = 6,
    PPROF__ANY_BYTES = 7,
    PPROF__ANY_STRINDEX = 8, /* i holds the string index */
};

typedef struct pprof__any {
    uint32_t kind;
    int64_t i;
    double d;
    pprof_string s;
} pprof__any;

/* Resource and scope attributes: common.v1.KeyValue, keys inline (or by key_strindex). */
typedef struct pprof__otlp_kv {
    pprof_string key;
    int32_t key_strindex;
    pprof__any value;
} pprof__otlp_kv;

typedef struct pprof__otlp_attr { /* KeyValueAndUnit */
    int32_t key, unit;
    pprof__any value;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_attr;

/* A range in ints (attribute and location indices). */
typedef struct pprof__otlp_range {
    uint32_t off, n;
} pprof__otlp_range;

typedef struct pprof__otlp_mapping {
    uint64_t start, limit, file_offset;
    int32_t filename;
    pprof__otlp_range attrs;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_mapping;

typedef struct pprof__otlp_line {
    int32_t function;
    int64_t line, column;
} pprof__otlp_line;

typedef struct pprof__otlp_location {
    int32_t mapping;
    uint64_t address;
    uint32_t line_off, n_line;
    pprof__otlp_range attrs;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_location;

typedef struct pprof__otlp_function {
    int32_t name, system_name, filename;
    int64_t start_line;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_function;

typedef struct pprof__otlp_link {
    pprof_string trace_id, span_id;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_link;

typedef struct pprof__otlp_stack {
    pprof__otlp_range locs;
    uint64_t off, len; /* the entry's bytes in the input */
} pprof__otlp_stack;

typedef struct pprof__otlp_sample {
    int32_t stack, link;
    pprof__otlp_range attrs;
    uint32_t val_off, n_val; /* into values */
    uint32_t ts_off, n_ts;   /* into timestamps */
} pprof__otlp_sample;

typedef struct pprof__otlp_vt {
    int32_t type, unit;
} pprof__otlp_vt;

typedef struct pprof__otlp_profile {
    pprof__otlp_vt sample_type, period_type;
    uint64_t time, duration;
    int64_t period;
    pprof_string profile_id, original_format, original;
    uint32_t dropped_attributes;
    pprof__otlp_range attrs;
    uint32_t sample_off, n_sample;                        /* into samples */
    uint32_t scope;                                       /* index into scopes */
    uint32_t resource, scope_in_resource, index_in_scope; /* for paths */
} pprof__otlp_profile;

typedef struct pprof__otlp_scope {
    pprof_string name, version, schema_url;
    uint32_t kv_off, n_kv; /* into kvs */
    uint32_t resource;
} pprof__otlp_scope;

typedef struct pprof__otlp_resource {
    uint32_t kv_off, n_kv;
    pprof_string schema_url;
} pprof__otlp_resource;

struct pprof_otlp {
    pprof_allocator alloc; /* the caller's: o itself and buf */
    /* the tables': blocks in huge pages when the caller gave no allocator (memory-private.h),
     * else alloc */
    pprof_allocator tabs;
    struct pprof__blocks *blocks;
    uint8_t *buf; /* the decompressed input every pprof_string points into; owned */
    size_t buf_len;
    pprof_format source_format;
    bool has_dictionary;
    uint64_t unknown_fields;
    pprof__vec strings;   /* pprof_string */
    pprof__vec mappings;  /* pprof__otlp_mapping */
    pprof__vec locations; /* pprof__otlp_location */
    pprof__vec lines;     /* pprof__otlp_line */
    pprof__vec functions; /* pprof__otlp_function */
    pprof__vec links;     /* pprof__otlp_link */
    pprof__vec attrs;     /* pprof__otlp_attr */
    pprof__vec stacks;    /* pprof__otlp_stack */
    pprof__vec ints;      /* int32_t: stack locations and attribute indices */
    pprof__vec samples;   /* pprof__otlp_sample */
    pprof__vec values;    /* int64_t */
    pprof__vec times;     /* uint64_t */
    pprof__vec profiles;  /* pprof__otlp_profile */
    pprof__vec scopes;    /* pprof__otlp_scope */
    pprof__vec resources; /* pprof__otlp_resource */
    pprof__vec kvs;       /* pprof__otlp_kv */
};

/* Decodes buf (owned by o from here on, allocated with o->alloc) within the limits of ro. */
pprof_status pprof__otlp_decode(pprof_otlp *o, uint8_t *buf, size_t len,
                                const pprof_read_options *ro, pprof_error *err);

/* Whether decompressed bytes are OTLP by content (pprof_otlp_detect's rule). */
bool pprof__otlp_detect_raw(const uint8_t *p, size_t len);
/* Decodes buf (taken whatever happens, allocated with ro's allocator) into a new pprof_otlp. */
pprof_status pprof__otlp_from_buffer(uint8_t *buf, size_t len, pprof_format fmt,
                                     const pprof_read_options *ro, pprof_otlp **out,
                                     pprof_error *err);
/* The read path's hook (profile.c): buf (taken) as OTLP, converted to the one pprof profile it
 * must hold; PPROF_E_INVALID naming the count when it holds several. */
pprof_status pprof__otlp_read_one(uint8_t *buf, size_t len, pprof_format fmt,
                                  const pprof_read_options *ro, pprof_profile **out,
                                  pprof_error *err);
/* The one pprof profile o converts to, when its profiles form one group (*n_groups is 1); when
 * they form several (or none), *n_groups says how many and nothing is converted, so that a
 * refusal costs no pprof state per profile. */
pprof_status pprof__otlp_to_one(const pprof_otlp *o, pprof_profile **out, size_t *n_groups,
                                pprof_error *err);

/* Reads an ArrayValue's elements one at a time: true with the next one in *v. */
bool pprof__otlp_array_next(const uint8_t **p, const uint8_t *end, pprof__any *v);

static inline bool
pprof__otlp_str(const pprof_otlp *o, int64_t i, pprof_string *out)
{
    if (i < 0 || (uint64_t)i >= o->strings.len)
        return false;
    *out = PPROF__AT(o->strings, pprof_string, i);
    return true;
}

/* The names pprof -> OTLP gives what the protocol has no field for (docs/otlp.md). */
#define PPROF__OTLP_COMMENTS "pprof.comments"
#define PPROF__OTLP_DEFAULT_SAMPLE_TYPE "pprof.default_sample_type"
#define PPROF__OTLP_DROP_FRAMES "pprof.drop_frames"
#define PPROF__OTLP_KEEP_FRAMES "pprof.keep_frames"
#define PPROF__OTLP_DOC_URL "pprof.doc_url"
#define PPROF__OTLP_BUILD_ID "pprof.build_id"
/* the semantic conventions' GNU build ID of a mapping, as the OpenTelemetry eBPF profiler
 * writes it: read as the mapping's build ID too (symbolization finds files by it) */
#define PPROF__OTLP_BUILD_ID_GNU "process.executable.build_id.gnu"
#define PPROF__OTLP_HAS_FUNCTIONS "pprof.has_functions"
#define PPROF__OTLP_HAS_FILENAMES "pprof.has_filenames"
#define PPROF__OTLP_HAS_LINE_NUMBERS "pprof.has_line_numbers"
#define PPROF__OTLP_HAS_INLINE_FRAMES "pprof.has_inline_frames"
#define PPROF__OTLP_IS_FOLDED "pprof.is_folded"
/* On every Profile when several pprof profiles are written together: which one it came from. */
#define PPROF__OTLP_PROFILE_INDEX "pprof.profile_index"
/* The key of an attribute from a pprof label whose key is "" (OTLP keys must not be empty). */
#define PPROF__OTLP_EMPTY_KEY "pprof.empty_key"
/* Labels that carry a Link and per-observation timestamps in pprof. */
#define PPROF__OTLP_TRACE_ID "trace_id"
#define PPROF__OTLP_SPAN_ID "span_id"
#define PPROF__OTLP_TIMESTAMP "timestamp_unix_nano"

#endif
