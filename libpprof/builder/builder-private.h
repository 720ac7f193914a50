/* The builder's state, shared by builder.c (the API, samples), builder-emit.c (serialize,
 * compact) and builder-tables.c (the interned tables). Not installed. */
#ifndef PPROF_BUILDER_PRIVATE_H
#define PPROF_BUILDER_PRIVATE_H

#include <pthread.h>

#include "htab-private.h"
#include "pprof/builder.h"
#include "profile-private.h"

typedef struct bstr {
    uint32_t off, len;
} bstr;

typedef struct bfn {
    uint32_t name, system_name, filename;
    int64_t start_line;
} bfn;

typedef struct bmap {
    uint64_t start, limit, offset;
    uint32_t filename, build_id;
    uint8_t flags; /* has_functions 1, has_filenames 2, has_line_numbers 4, has_inline_frames 8 */
} bmap;

typedef struct bline {
    uint32_t fn; /* function index */
    int64_t line, column;
} bline;

typedef struct bloc {
    uint32_t map; /* mapping index + 1, 0 = none */
    uint32_t line_off, n_line;
    bool folded;
    uint64_t address;
} bloc;

typedef struct blabel {
    uint32_t key, str, unit; /* string indices; 0 = "" */
    int64_t num;
} blabel;

typedef struct bsample {
    uint32_t loc_off, n_loc, lab_off, n_lab;
    size_t val_off;
} bsample;

typedef struct bopen {
    uint32_t seq; /* bumped when the sample ends, so old handles go stale */
    bool live;
    pprof__vec locs; /* uint32_t location indices, leaf first */
    pprof__vec labs; /* blabel */
} bopen;

struct pprof_builder {
    pprof_allocator alloc;
    uint32_t flags;
    bool locked_mode;
    pthread_mutex_t mu;
    pprof_builder_options o; /* caps filled with defaults; sample_types pointer not kept */

    uint32_t gen; /* never 0 */
    /* The configured value types, interned first so they survive every reset in place. */
    size_t n_types;
    uint32_t *type_str; /* 2 * n_types string indices: type, unit */
    uint32_t period_type, period_unit, default_type;
    uint32_t n_config_strings; /* strings [0, n) are configuration, always retained */

    pprof__vec bytes;    /* char: string contents */
    pprof__vec strs;     /* bstr; [0] = "" */
    pprof__vec fns;      /* bfn */
    pprof__vec maps;     /* bmap */
    pprof__vec locs;     /* bloc */
    pprof__vec lines;    /* bline */
    pprof__vec samples;  /* bsample */
    pprof__vec stack;    /* uint32_t location indices of all samples */
    pprof__vec labels;   /* blabel of all samples */
    pprof__vec values;   /* int64_t, n_types per sample */
    pprof__vec comments; /* uint32_t string indices */
    pprof__htab h_str, h_fn, h_map, h_loc, h_sample;
    int64_t time_nanos, duration_nanos;

    pprof__vec opens;     /* bopen */
    pprof__vec free_open; /* uint32_t slots not live */
    uint64_t n_open;

    pprof__vec scratch_locs; /* uint32_t */
    pprof__vec scratch_labs; /* blabel */

    uint64_t serialized, limit_errors;
};

#define PPROF__BUILDER_MAX_U32 (UINT32_MAX - 1)

/* The files depend one way: builder.c (the API, samples) -> builder-emit.c (serialize,
 * compact) -> builder-tables.c (the interned tables); builder.c uses the tables too. */

/* ---- builder-tables.c */

uint32_t pprof__bstr_hash(const char *s, size_t n);
uint32_t pprof__bfn_hash(const bfn *f);
uint32_t pprof__bmap_hash(const bmap *m);
uint32_t pprof__bloc_hash(const pprof_builder *b, const bloc *l, const bline *lines);
uint32_t pprof__bsample_hash(const uint32_t *locs, size_t n_loc, const blabel *labs, size_t n_lab);

pprof_status pprof__builder_nomem(pprof_error *err);
/* Counts the refusal in limit_errors. */
pprof_status pprof__builder_limit(pprof_builder *b, pprof_error *err, const char *what,
                                  uint64_t cap);

/* Index of an interned entry, adding it when new (under the caps); 0 is the empty string. */
pprof_status pprof__builder_intern_str(pprof_builder *b, const char *s, size_t len, uint32_t *out,
                                       pprof_error *err);
pprof_status pprof__builder_intern_cstr(pprof_builder *b, const char *s, uint32_t *out,
                                        pprof_error *err);
pprof_status pprof__builder_intern_fn(pprof_builder *b, const bfn *k, uint32_t *out,
                                      pprof_error *err);
pprof_status pprof__builder_intern_map(pprof_builder *b, const bmap *k, uint32_t *out,
                                       pprof_error *err);
pprof_status pprof__builder_intern_loc(pprof_builder *b, const bloc *l, const bline *lines,
                                       uint32_t *out, pprof_error *err);
void pprof__builder_free_tables(pprof_builder *b);

typedef bool (*pprof__builder_eq_fn)(const pprof_builder *b, uint32_t index, const void *key);

/* The index of an entry equal to key, or PPROF_NONE with *p where the key would go. */
static inline uint32_t
pprof__builder_find(const pprof__htab *t, uint32_t hash, pprof__builder_eq_fn eq,
                    const pprof_builder *b, const void *key, pprof__htab_probe *p)
{
    for (uint32_t i = pprof__htab_probe_start(t, hash, p); i != PPROF_NONE;
         i = pprof__htab_probe_next(t, p))
        if (eq(b, i, key))
            return i;
    return PPROF_NONE;
}

/* ---- builder-emit.c; callers hold the lock */

pprof_status pprof__builder_encode(pprof_builder *b, const pprof_write_options *opts,
                                   pprof_buffer *out, pprof_error *err);
/* Keeps only what open samples and the configuration reference; new generation. */
pprof_status pprof__builder_compact(pprof_builder *b, pprof_error *err);

#endif
