/* The merger's internals, shared by its files (docs/merge.md describes the design):
 *   merge.c           the merger's state, its strings, adding inputs, the public calls
 *   merge-entities.c  one input's strings, mappings, functions and locations, mapped onto the
 *                     merger's by content
 *   merge-samples.c   samples: labels, stack and sample keys, stage 2, overflow carries
 *   merge-header.c    sample types and the header
 *   merge-order.c     canonical order of every table
 *   merge-emit.c      the merge plan and its two ends: a profile or a stream to the encoder
 * Not installed. */
#ifndef PPROF_MERGE_PRIVATE_H
#define PPROF_MERGE_PRIVATE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hash-private.h"
#include "htab-private.h"
#include "memory-private.h"
#include "merge.h"
#include "par-private.h"
#include "profile-private.h"
#include "validate-private.h"
#include "wire-private.h"

/* Hash-table lookups whose equality EQ (an expression of idx) stays inline: idx ends as the
 * match, or PPROF_NONE with probe where the key would go. */
#define HT_SCAN(t, h32, probe, idx, EQ) PPROF__HTAB_FIND(t, h32, probe, idx, EQ)

/* Every cache line of [p, p + n). */
static inline void
prefetch_range(const void *p, size_t n)
{
    uintptr_t at = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + n;
    for (; at < end; at += 64)
        __builtin_prefetch((const void *)at);
}

typedef struct mmapping {
    uint64_t size, offset; /* key, with key_str */
    uint32_t key_str;
    uint32_t filename, build_id; /* smallest non-empty by content */
    uint64_t start, limit;       /* from the contribution with the lowest start */
    bool has_functions, has_filenames, has_line_numbers, has_inline_frames; /* or */
    bool main_candidate; /* was some input's mapping[0] */
} mmapping;

typedef struct mfunction {
    uint32_t name, system_name, filename;
    int64_t start_line;
} mfunction;

typedef struct mline {
    uint32_t fn;
    int64_t line, column;
} mline;

typedef struct mlocation {
    uint32_t mapping; /* PPROF_NONE = no mapping */
    uint32_t line_off, n_line;
    uint32_t input; /* first input that produced it, for conflict messages */
    /* Offset into the mapping (see pprof__merge_map_location), or the raw address without a
     * mapping. 0 is "no address": exempt from inline conflicts (rule S1) and written as address 0.
     */
    uint64_t rel;
    bool folded;
} mlocation;

typedef struct mlabel {
    uint32_t key, str, unit;
    int64_t num;
} mlabel;

/* A kept type whose unit differs in some input: an error only if the type is still kept at
 * finish (in every input, as Go's CompatibilizeSampleTypes sees it), since whether a type is
 * dropped must not depend on which input came first. input == PPROF_NONE: no clash. */
typedef struct unit_clash {
    uint32_t unit, input;
} unit_clash;

/* A distinct stack (samples that differ only in labels share one). */
typedef struct mstack {
    uint32_t off, n;
} mstack;

typedef struct msample {
    uint32_t lab_off, n_lab;
    uint32_t stack;
} msample;

typedef struct psample {
    uint32_t si;             /* global sample index, for errors */
    uint32_t stk_off, n_loc; /* merged location indices in the batch's stk */
    uint32_t lab_off, n_lab; /* canonical labels in the batch's lab */
    uint32_t val_off;        /* the batch's n_types values in val */
    uint32_t h32;            /* stack hash, then sample hash */
    uint32_t sid;            /* the interned stack */
} psample;

/* Sums wrap, and each wrap is counted here (sparse: only values that ever wrapped): a value
 * overflows iff its count is not 0 at the end. Checking each partial sum instead made the
 * outcome depend on the order of the inputs (MAX + 1 - 1 failed, -1 + 1 + MAX did not). */
typedef struct carry {
    uint64_t at;        /* sample * n_types + column */
    int64_t n;          /* wraps upward minus wraps downward */
    uint32_t input, si; /* the first wrap, for the message */
    int64_t sum, add;
} carry;

typedef struct merge_batch {
    /* The first batch of an input; and (want_rest) how many samples of a large input are still
     * to come after this batch: stage 2 makes room for what they will likely add, going by what
     * the input's samples added so far, and has the room faulted in meanwhile. */
    bool input_start;
    size_t want_rest;
    pprof__vec q;   /* psample */
    pprof__vec stk; /* uint32_t */
    pprof__vec lab; /* mlabel */
    pprof__vec val; /* int64_t */
    size_t n_types;
    uint32_t input;
    pprof_status st; /* stage 2's outcome: PPROF_OK or PPROF_E_NOMEM */
} merge_batch;

struct pprof_merger {
    pprof_merge_options o;
    pprof_allocator a; /* o.allocator, or blocks' when the caller gave none */
    struct pprof__blocks *blocks;
    pprof__arena arena; /* string bytes, input names */
    pprof_status failed;
    size_t n_inputs;

    pprof__vec strings; /* pprof_string */
    pprof__htab str_ht;

    pprof__vec mappings; /* mmapping */
    pprof__htab map_ht;
    pprof__vec functions; /* mfunction */
    pprof__htab fn_ht;
    pprof__vec locations; /* mlocation */
    pprof__vec lines;     /* mline */
    pprof__htab loc_ht;
    pprof__htab addr_ht; /* (mapping, rel) -> first location there, for inline conflicts */
    pprof__vec samples;  /* msample */
    pprof__vec stack;    /* uint32_t location indices of the distinct stacks */
    pprof__vec stacks;   /* mstack */
    pprof__htab stack_ht;
    pprof__vec labels; /* mlabel */
    pprof__vec values; /* int64_t, n_types per sample */
    pprof__htab sample_ht;
    pprof__vec carries; /* carry, stage 2's */
    pprof__htab carry_ht;
    bool s2_tables_gone;        /* stack_ht and sample_ht were given back (release_s2_tables) */
    pprof__prefault s2_pf;      /* stage 2's: its tables' room for the rest of a large input */
    size_t s2_mark[4], s2_seen; /* stage 2's table lengths at the input's start, samples since */
    /* Over all samples: PPROF__SAMPLE_BOUND summed, and a guess of their encoded size. */
    size_t sample_bound, sample_guess;

    pprof__vec names; /* const char *, one per input */

    /* The string, function and location memos of the last add, kept when it was a batch
     * (pprof__merger_add_batch) for the next batch of the same tables; NULL otherwise. */
    uint32_t *kept_str_memo, *kept_fn_memo, *kept_loc_memo;
    size_t kept_n_str, kept_n_fn, kept_n_loc;
    /* The string, function and location memos of the last whole input (pprof__merge_preresolve
     * tries the entity at the same index first: inputs of one program tend to list their tables
     * in the same order); NULL before the first. */
    uint32_t *hint_str_memo, *hint_fn_memo, *hint_loc_memo;
    size_t hint_n_str, hint_n_fn, hint_n_loc;

    /* header */
    size_t n_types;
    pprof__vec types;     /* pprof_value_type with merger string ids */
    pprof__vec type_bad;  /* unit_clash per column (intersect mode) */
    uint32_t first_input; /* the input whose type list came first, for messages */
    uint32_t period_type, period_unit;
    int64_t period, duration, time;
    int64_t duration_carry; /* as a carry's n; the first wrap was in input duration_input */
    uint32_t duration_input;
    uint32_t drop_frames, keep_frames, default_sample_type, doc_url;
    pprof__vec comments; /* uint32_t, deduplicated */

    /* scratch for one lookup */
    pprof__vec tmp_lines; /* mline */

    /* samples in flight from stage 1 to stage 2 (see s1_sample), and stage 2's thread */
    merge_batch batch[2];
    size_t s2_sent, s2_done; /* batches handed over and absorbed; batch[k % 2] is the k-th */
    bool s2_running, s2_tried, s2_quit, s2_failed;
    /* The last input's final batch may still be in stage 2 (pprof__merge_s2_settle). */
    bool s2_pending;
    pprof__job s2_job;
    pprof__pool *pool; /* the merger's threads: stage 2, prefaulting, parallel loops; or NULL */
    pthread_mutex_t s2_mu;
    pthread_cond_t s2_cv;
};

static inline pprof_status
nomem(pprof_merger *m, pprof_error *err)
{
    m->failed = PPROF_E_NOMEM;
    return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static inline const pprof_string *
mstr(const pprof_merger *m, uint32_t id)
{
    return &PPROF__AT(m->strings, pprof_string, id);
}

static inline int
str_cmp(const pprof_string *a, const pprof_string *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static inline int
sid_cmp(const pprof_merger *m, uint32_t a, uint32_t b)
{
    return a == b ? 0 : str_cmp(mstr(m, a), mstr(m, b));
}

static inline uint32_t
str_hash(const char *data, size_t len)
{
    return (uint32_t)(pprof__hash_bytes(0, data, len) >> 32);
}

static inline const char *
input_name(const pprof_merger *m, uint32_t i)
{
    return i < m->names.len ? PPROF__AT(m->names, const char *, i) : "?";
}

typedef struct in_ctx {
    pprof_merger *m;
    const pprof_profile *p;
    const char *name;
    uint32_t input;
    pprof_error *err;
    uint32_t *str_memo; /* input string index -> merger id */
    uint32_t *map_memo; /* input mapping index -> merged mapping */
    uint32_t *fn_memo;
    uint32_t *loc_memo;
    int32_t *col_of; /* merged type column -> input column, -1 when dropped */
    size_t n_conflicts;
    char conflict_example[256];
    size_t sample_base;     /* global index of the batch's first sample (lazy inputs) */
    bool validate_samples;  /* each decoded batch goes through pprof__validate_part first */
    bool first_batch_valid; /* except the first, which the input's decoding thread checked */
} in_ctx;

/* The smaller non-empty string by content: a commutative, associative pick. */
static inline uint32_t
min_nonempty(const pprof_merger *m, uint32_t cur, uint32_t v)
{
    if (v == 0)
        return cur;
    if (cur == 0)
        return v;
    return sid_cmp(m, v, cur) < 0 ? v : cur;
}

static inline bool
lines_equal(const mline *a, const mline *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].fn != b[i].fn || a[i].line != b[i].line || a[i].column != b[i].column)
            return false;
    return true;
}

/* Compares two items (table indices) given a context, for the sorts of merge-order.c. */
typedef int (*cmp_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Each table's canonical rank, worked out by finish (merge-order.c) and read by the output. */
typedef struct merge_ranks {
    const pprof_merger *m;
    uint32_t *srank;  /* string id -> rank by content */
    uint32_t *mrank;  /* mapping -> output position (0-based) */
    uint32_t *frank;  /* function -> rank */
    uint32_t *lrank;  /* location -> rank */
    uint32_t *target; /* location -> location it is rewritten to (inline policy longest) */
    uint32_t *strank; /* distinct stack -> rank (equal ranks for stacks made equal) */
} merge_ranks;

/* Writing straight out: the output profile is built without its samples, and the encoder takes
 * them from here, one at a time, as finish would have laid them out. */
typedef struct merge_sink {
    const char *path;  /* pprof_merger_write_file */
    pprof_buffer *mem; /* pprof_merger_write_memory */
    const pprof_write_options *opts;
    pprof_merge_summary *sum;
} merge_sink;

typedef struct sample_gen {
    const merge_ranks *f;
    const uint32_t *sout;
    const int64_t *vals;
    size_t nt, n;
    /* Per merged location, its output id as a varint: the bytes from the lowest up, the
     * length in the top byte (ids are 32-bit: at most 5 bytes). */
    const uint64_t *lenc;
    uint8_t *packed; /* one sample's location ids, as packed varints, and 8 bytes of slack */
    size_t packed_len;
    uint32_t loc_sid; /* the stack they are of (samples of one stack come in a row) */
    pprof_label *lab; /* one sample's labels */
} sample_gen;

/* merge.c: state, strings, adding inputs, the public calls */
uint32_t pprof__merge_intern(pprof_merger *m, const char *data, size_t len);
uint32_t pprof__merge_str_find(const pprof_merger *m, const char *data, size_t len, uint32_t h32,
                               pprof__htab_probe *slot);

/* merge-entities.c: an input's strings, mappings, functions and locations */
void pprof__merge_preresolve(in_ctx *c);
pprof_status pprof__merge_map_str(in_ctx *c, int64_t idx, uint32_t *out, const char *path_fmt,
                                  size_t a, size_t b);
pprof_status pprof__merge_map_location(in_ctx *c, size_t li, uint32_t *out);
pprof_status pprof__merge_bad(in_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
pprof_status pprof__merge_map_mapping(in_ctx *c, size_t mi);

/* merge-samples.c: samples: labels, stacks, stage 2, overflow carries */
bool pprof__merge_carry_reshape(pprof_merger *m, const uint32_t *keep, size_t n_old, size_t n_new);
pprof_status pprof__merge_absorb_all_samples(in_ctx *c);
carry *pprof__merge_carry_find(const pprof_merger *m, uint64_t at);
void pprof__merge_s2_stop(pprof_merger *m);
pprof_status pprof__merge_s2_settle(pprof_merger *m, pprof_error *err);
void pprof__merge_release_s2_tables(pprof_merger *m);

/* merge-header.c: sample types and the header */
pprof_status pprof__merge_absorb_header(in_ctx *c);
pprof_status pprof__merge_absorb_types(in_ctx *c, const uint32_t *in_types /* pairs */,
                                       size_t n_in);
pprof_status pprof__merge_check_ids(in_ctx *c);

/* merge-order.c: canonical order */
int pprof__merge_cmp_str(const void *ctx, uint32_t a, uint32_t b);
size_t pprof__merge_sort_stacks(const merge_ranks *f, uint32_t *ord, uint32_t *tmp, size_t n);
bool pprof__merge_order_samples(const merge_ranks *f, size_t n, size_t n_ranks, uint32_t *tmp,
                                uint32_t *out);
uint32_t *pprof__merge_order(const pprof_merger *m, size_t n, cmp_fn cmp, const merge_ranks *f,
                             uint32_t *tmp);
int pprof__merge_cmp_function(const void *ctx, uint32_t a, uint32_t b);
int pprof__merge_cmp_labels(const void *ctx, uint32_t a, uint32_t b);
int pprof__merge_cmp_location(const void *ctx, uint32_t a, uint32_t b);
int pprof__merge_cmp_mapping(const void *ctx, uint32_t a, uint32_t b);

#endif
