/* The JFR reader's parts (docs/jfr.md): jfr-parse.c reads chunks, the metadata and the
 * constant pools; jfr-read.c turns events into samples. Not installed. */
#ifndef PPROF_JFR_PRIVATE_H
#define PPROF_JFR_PRIVATE_H

#include "common-private.h"
#include "pprof/builder.h"
#include "pprof/jfr.h"

#define JFR_HEADER_SIZE 68
#define JFR_EVENT_METADATA 0
#define JFR_EVENT_CHECKPOINT 1
/* Nesting of metadata elements and of values inside values; deeper is refused. */
#define JFR_MAX_DEPTH 32

/* How a class's values are encoded: a primitive or a struct of fields. */
typedef enum jfr_prim {
    JFR_STRUCT = 0,
    JFR_BOOLEAN,
    JFR_BYTE,
    JFR_CHAR,
    JFR_SHORT,
    JFR_INT,
    JFR_LONG,
    JFR_FLOAT,
    JFR_DOUBLE,
    JFR_STRING,
} jfr_prim;

typedef struct jfr_field {
    const char *name;
    uint64_t type_id;
    uint32_t cls; /* index into the chunk's classes, PPROF_NONE until resolved */
    bool array, pool;
} jfr_field;

typedef struct jfr_class {
    uint64_t id;
    const char *name;
    uint32_t first_field, n_fields;
    jfr_prim prim;
    /* Constant pool of this type: key -> index into jfr_chunk.entries. */
    pprof__u64map pool;
    bool has_pool;
} jfr_class;

/* Bytes being read: absolute positions into the recording so errors give file offsets. */
typedef struct jfr_in {
    const uint8_t *p;
    uint64_t pos, end;
    bool compressed;
    bool bad; /* read past end or a malformed integer: the caller reports at err_pos */
    uint64_t err_pos;
} jfr_in;

typedef struct jfr_chunk {
    uint64_t start, end; /* absolute; end is where the bytes stop when cut */
    uint64_t size, cp_off, meta_off;
    int64_t start_nanos, duration_nanos, start_ticks, ticks_per_second;
    uint16_t major, minor;
    uint32_t features;
    bool compressed, cut;
    pprof__vec classes; /* jfr_class */
    pprof__vec fields;  /* jfr_field */
    pprof__vec entries; /* uint64_t: absolute offsets of pool values */
    pprof__u64map class_by_id;
    pprof__arena arena;  /* metadata strings */
    uint32_t string_cls; /* java.lang.String, PPROF_NONE when absent */
} jfr_chunk;

typedef struct jfr_parser {
    pprof_allocator a;
    const uint8_t *data;
    uint64_t size;
    const pprof_jfr_read_options *o;
    pprof_error *err;
} jfr_parser;

/* ---- primitives (jfr-parse.c) */
uint64_t jfr__varlong(jfr_in *in);
uint32_t jfr__int(jfr_in *in);
uint64_t jfr__long(jfr_in *in);
uint8_t jfr__byte(jfr_in *in);
/* Appends the string at in (any encoding; a pool reference through java.lang.String's pool)
 * as UTF-8 to out, NUL-terminated but not counted; *is_null for the null string. */
bool jfr__string(jfr_parser *ps, jfr_chunk *c, jfr_in *in, pprof__vec *out, bool *is_null,
                 int depth);
/* Skips one value of field f (array or not) or one value of class cls. */
bool jfr__skip_field(jfr_parser *ps, jfr_chunk *c, jfr_in *in, const jfr_field *f, int depth);
bool jfr__skip_class(jfr_parser *ps, jfr_chunk *c, jfr_in *in, uint32_t cls, int depth);
/* Reads a scalar field (integer, boolean, pool key) as a 64-bit value. */
bool jfr__scalar(jfr_chunk *c, jfr_in *in, const jfr_field *f, uint64_t *v);

/* ---- chunks */
/* Reads the header of the chunk at off; sets c's positions (errors name the offset). */
pprof_status jfr__chunk_header(jfr_parser *ps, uint64_t off, jfr_chunk *c);
/* Reads the chunk's metadata and, with pools, its constant pools (events of types 0 and 1);
 * *events counts the chunk's events. */
pprof_status jfr__chunk_load(jfr_parser *ps, jfr_chunk *c, uint64_t *events, bool pools);
void jfr__chunk_free(jfr_parser *ps, jfr_chunk *c);
/* The next event at *pos (absolute) within c: its size and type; false at the end (or at a
 * cut when c->cut), an error when malformed. */
pprof_status jfr__next_event(jfr_parser *ps, jfr_chunk *c, uint64_t *pos, uint64_t *size,
                             uint64_t *type, uint64_t *body, bool *more);
uint32_t jfr__class_by_name(const jfr_chunk *c, const char *name);
uint32_t jfr__class_by_id(const jfr_chunk *c, uint64_t id);
/* Index of a field of class cls by name (PPROF_NONE when absent). */
uint32_t jfr__field_index(const jfr_chunk *c, uint32_t cls, const char *name);
static inline const jfr_field *
jfr__field(const jfr_chunk *c, uint32_t cls, uint32_t i)
{
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    return &PPROF__AT(c->fields, jfr_field, k->first_field + i);
}
/* Absolute offset of the value of key in the pool of class cls, or UINT64_MAX. */
uint64_t jfr__pool_get(const jfr_chunk *c, uint32_t cls, uint64_t key);
/* Positions in at field i of the struct at its position (skipping the fields before it). */
bool jfr__seek_field(jfr_parser *ps, jfr_chunk *c, jfr_in *in, uint32_t cls, uint32_t i);

/* ---- the formats' reader (readers.c) */
bool pprof__jfr_detect_raw(const uint8_t *raw, size_t len);
bool pprof__jfr_path_says(const char *path);
pprof_status pprof__jfr_read_one(uint8_t *raw, size_t len, pprof_format container,
                                 const pprof_read_options *ro, pprof_profile **out,
                                 pprof_error *err);

static inline jfr_in
jfr__in(const jfr_parser *ps, const jfr_chunk *c, uint64_t pos, uint64_t end)
{
    jfr_in in = {ps->data, pos, end, c->compressed, false, pos};
    return in;
}

/* ---- the reader (jfr-read.c: events and the profile; jfr-resolve.c: what their pool keys
 * stand for, resolved once per chunk) */
enum { JFR_G_CPU, JFR_G_NATIVE, JFR_G_ALLOC, JFR_G_LOCK, JFR_G_COUNT };

typedef struct thread_info {
    pprof_builder_str name;
    int64_t id;
    bool has_name;
} thread_info;

typedef struct frame_kind {
    pprof_builder_map map;
    bool inlined;
} frame_kind;

typedef struct stack_info {
    uint32_t first, n;
} stack_info;

typedef struct jfr_reader {
    jfr_parser ps;
    pprof_jfr_stats *st;
    pprof_builder *b;
    unsigned use; /* kinds turned into samples */
    int slot[JFR_G_COUNT];
    size_t n_values;
    int64_t values[8];
    int64_t period_ns; /* of jdk.ExecutionSample in the current chunk */
    int64_t profile_period;
    bool have_period;
    int64_t time_start, time_end;
    bool have_time;
    jfr_chunk c;
    uint8_t *kinds; /* per class of the chunk */
    uint8_t *roles; /* per field of the chunk */
    /* per-chunk caches: pool key -> index into the vectors beside them */
    pprof__u64map m_method, m_thread, m_frame, m_stack, m_class;
    pprof__vec fns, threads, frames, stacks, class_strs, locs, lines, text, text2;
    pprof_builder_str k_thread, k_thread_id, k_class, k_ts, u_ns;
    pprof_builder_loc truncated;
} jfr_reader;

pprof_status jfr__nomem(jfr_reader *r);
bool jfr__text_of_field(jfr_reader *r, jfr_in *in, const jfr_field *f, pprof__vec *out, int depth);
bool jfr__scalar_or_skip(jfr_reader *r, jfr_in *in, const jfr_field *f, uint64_t *v, bool *got);
/* The locations of a stack trace, leaf first, in r->locs; PPROF_E_EMPTY when no pool has it. */
pprof_status jfr__stack_of(jfr_reader *r, uint32_t scls, uint64_t key, stack_info *out);
pprof_status jfr__thread_of(jfr_reader *r, uint32_t tcls, uint64_t key, thread_info *out);
pprof_status jfr__class_label(jfr_reader *r, const jfr_field *f, uint64_t key,
                              pprof_builder_str *out, bool *has);
pprof_status jfr__caches_init(jfr_reader *r);
void jfr__caches_reset(jfr_reader *r);
pprof_status jfr__read_all(jfr_reader *r, pprof_profile **out);

static inline const char *
jfr__text_cstr(pprof__vec *v)
{
    return v->len ? (const char *)v->data : "";
}

#endif
