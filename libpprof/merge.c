/* N-way merge with content keys and canonical output (google/pprof profile.Merge semantics with
 * the deviations listed in docs/merge.md).
 *
 * Every entity the merger holds is keyed by content only; merger-internal indices (string ids,
 * mapping/function/location/sample indices) depend on the order of the inputs, so they never
 * reach the output: finish sorts each table by content and numbers it from that order. Every
 * per-entity attribute that is not part of a key is combined with a commutative, associative
 * rule (min, max, or, sum) so the result is the same for any order and grouping. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "hash-private.h"
#include "htab-private.h"
#include "merge.h"
#include "par-private.h"
#include "profile-private.h"
#include "wire-private.h"

/* ------------------------------------------------------------------ hashing */

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

/* ------------------------------------------------------------------ prefaulting */

/* Large buffers that are about to be filled are faulted in by a thread of their own: a fresh
 * page costs about as much as filling it on this kind of VM, and the thread doing the filling
 * is the one that limits the run (stage 2 while absorbing a large input, the mostly
 * single-threaded ordering before writing). MADV_POPULATE_WRITE faults pages in without
 * touching their bytes, so the buffers may be in use, even grown and moved, meanwhile. */
#define PREFAULT_MAX 8
#define PREFAULT_STEP ((uintptr_t)2 << 20)
typedef struct prefault {
    void *p[PREFAULT_MAX];
    size_t len[PREFAULT_MAX], n;
    pthread_t th;
    bool running;
} prefault;

static void
prefault_add(prefault *pf, void *p, size_t len)
{
    if (p && len >= ((size_t)1 << 20) && pf->n < PREFAULT_MAX) {
        pf->p[pf->n] = p;
        pf->len[pf->n++] = len;
    }
}

static void *
prefault_run(void *arg)
{
#ifdef MADV_POPULATE_WRITE
    const prefault *pf = arg;
    for (size_t i = 0; i < pf->n; i++) {
        uintptr_t start = ((uintptr_t)pf->p[i] + 4095) & ~(uintptr_t)4095;
        uintptr_t end = ((uintptr_t)pf->p[i] + pf->len[i]) & ~(uintptr_t)4095;
        /* In steps of 2 MiB: the call holds the address space's lock, and the threads that
         * map, grow or free memory meanwhile wait for it (30-50 ms stalls when a whole encoding
         * buffer went in one call). A failure only leaves the faults to the first touch. */
        for (uintptr_t at = start; at < end; at += PREFAULT_STEP)
            madvise((void *)at, end - at < PREFAULT_STEP ? end - at : PREFAULT_STEP,
                    MADV_POPULATE_WRITE);
    }
#else
    (void)arg;
#endif
    return NULL;
}

static void
prefault_start(prefault *pf, unsigned threads)
{
    pf->running = pf->n && threads >= 2 && pthread_create(&pf->th, NULL, prefault_run, pf) == 0;
}

static void
prefault_join(prefault *pf)
{
    if (pf->running)
        pthread_join(pf->th, NULL);
    pf->running = false;
}

/* ------------------------------------------------------------------ merger state */

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
    /* Offset into the mapping (see map_location), or the raw address without a mapping. 0 is
     * "no address": exempt from inline conflicts (rule S1) and written as address 0. */
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
    pprof_allocator a;
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
    prefault s2_pf;             /* stage 2's: its tables' room for the rest of a large input */
    size_t s2_mark[4], s2_seen; /* stage 2's table lengths at the input's start, samples since */
    /* Over all samples: PPROF__SAMPLE_BOUND summed, and a guess of their encoded size. */
    size_t sample_bound, sample_guess;

    pprof__vec names; /* const char *, one per input */

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
    pthread_t s2;
    pthread_mutex_t s2_mu;
    pthread_cond_t s2_cv;
};

static pprof_status
nomem(pprof_merger *m, pprof_error *err)
{
    m->failed = PPROF_E_NOMEM;
    return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static const pprof_string *
mstr(const pprof_merger *m, uint32_t id)
{
    return &PPROF__AT(m->strings, pprof_string, id);
}

static int
str_cmp(const pprof_string *a, const pprof_string *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int
sid_cmp(const pprof_merger *m, uint32_t a, uint32_t b)
{
    return a == b ? 0 : str_cmp(mstr(m, a), mstr(m, b));
}

/* The string with these bytes, or PPROF_NONE; *slot is where it would go. */
static uint32_t
str_find(const pprof_merger *m, const char *data, size_t len, uint32_t h32, pprof__htab_probe *slot)
{
    uint32_t idx;
    HT_SCAN(&m->str_ht, h32, *slot, idx,
            (mstr(m, idx)->len == len && (len == 0 || !memcmp(mstr(m, idx)->data, data, len))));
    return idx;
}

static uint32_t
str_hash(const char *data, size_t len)
{
    return (uint32_t)(pprof__hash_bytes(0, data, len) >> 32);
}

/* Interns by content; returns PPROF_NONE when out of memory. */
static uint32_t
intern(pprof_merger *m, const char *data, size_t len)
{
    if (pprof__htab_full(&m->str_ht) && !pprof__htab_reserve(&m->str_ht, &m->a, 1))
        return PPROF_NONE;
    uint32_t h32 = str_hash(data, len);
    pprof__htab_probe slot;
    uint32_t idx = str_find(m, data, len, h32, &slot);
    if (idx != PPROF_NONE)
        return idx;
    if (m->strings.len >= UINT32_MAX - 1)
        return PPROF_NONE;
    char *copy = pprof__arena_alloc(&m->arena, len ? len : 1);
    pprof_string *s = pprof__vec_push(&m->a, &m->strings, sizeof(*s));
    if (!copy || !s)
        return PPROF_NONE;
    if (len)
        memcpy(copy, data, len);
    s->data = copy;
    s->len = len;
    idx = (uint32_t)(m->strings.len - 1);
    pprof__htab_insert_at(&m->str_ht, &slot, idx);
    return idx;
}

static void s2_stop(pprof_merger *m);

static bool
batch_init(pprof_merger *m, int k)
{
    merge_batch *b = &m->batch[k];
    return pprof__vec_grow(&m->a, &b->q, sizeof(psample), 16) &&
           pprof__vec_grow(&m->a, &b->stk, sizeof(uint32_t), 16) &&
           pprof__vec_grow(&m->a, &b->lab, sizeof(mlabel), 16) &&
           pprof__vec_grow(&m->a, &b->val, sizeof(int64_t), 16);
}

void
pprof_merger_free(pprof_merger *m)
{
    if (!m)
        return;
    s2_stop(m);
    prefault_join(&m->s2_pf);
    const pprof_allocator a = m->a;
    pprof__vec *vecs[] = {&m->strings,      &m->mappings,     &m->functions,    &m->locations,
                          &m->lines,        &m->samples,      &m->stack,        &m->labels,
                          &m->values,       &m->names,        &m->types,        &m->comments,
                          &m->type_bad,     &m->tmp_lines,    &m->stacks,       &m->batch[0].q,
                          &m->batch[0].stk, &m->batch[0].lab, &m->batch[0].val, &m->batch[1].q,
                          &m->batch[1].stk, &m->batch[1].lab, &m->batch[1].val, &m->carries};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&a, vecs[i]->data);
    pprof__htab *hts[] = {&m->str_ht,  &m->map_ht,    &m->fn_ht,    &m->loc_ht,
                          &m->addr_ht, &m->sample_ht, &m->stack_ht, &m->carry_ht};
    for (size_t i = 0; i < sizeof(hts) / sizeof(hts[0]); i++)
        pprof__free(&a, hts[i]->slot);
    pprof__arena_destroy(&m->arena);
    pprof__free(&a, m);
}

void
pprof_merge_options_init(pprof_merge_options *opts)
{
    if (!opts)
        return;
    const pprof_merge_options def = PPROF_MERGE_OPTIONS_INIT;
    *opts = def;
}

pprof_status
pprof_merger_new(const pprof_merge_options *opts, pprof_merger **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    *out = NULL;
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    if ((unsigned)o.inline_conflict > PPROF_INLINE_ERROR)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown inline policy %d",
                            (int)o.inline_conflict);
    pprof_merger *m = pprof__malloc(&o.allocator, sizeof(*m));
    if (!m)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(m, 0, sizeof(*m));
    m->o = o;
    m->a = o.allocator;
    pprof__arena_init(&m->arena, &m->a);
    /* Pre-sized so that no table's data pointer is ever NULL (offset arithmetic on it). */
    if (intern(m, "", 0) != 0 || /* "" is string 0, so 0 means "unset" everywhere */
        !pprof__vec_grow(&m->a, &m->lines, sizeof(mline), 16) ||
        !pprof__vec_grow(&m->a, &m->stack, sizeof(uint32_t), 16) ||
        !pprof__vec_grow(&m->a, &m->labels, sizeof(mlabel), 16) ||
        !pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), 16) ||
        !pprof__vec_grow(&m->a, &m->tmp_lines, sizeof(mline), 16) || !batch_init(m, 0) ||
        !batch_init(m, 1)) {
        pprof_merger_free(m);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    *out = m;
    return PPROF_OK;
}

size_t
pprof_merger_count(const pprof_merger *m)
{
    return m ? m->n_inputs : 0;
}

static void warn(pprof_merger *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(pprof_merger *m, const char *fmt, ...)
{
    if (!m->o.warn)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    m->o.warn(m->o.warn_ctx, buf);
}

static const char *
input_name(const pprof_merger *m, uint32_t i)
{
    return i < m->names.len ? PPROF__AT(m->names, const char *, i) : "?";
}

/* ------------------------------------------------------------------ one input */

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
    size_t sample_base; /* global index of the batch's first sample (lazy inputs) */
} in_ctx;

static pprof_status bad(in_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static pprof_status
bad(in_ctx *c, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->m->failed = PPROF_E_INVALID;
    return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path, "%s: %s", c->name, msg);
}

/* Maps an input string index; sets *out. */
static pprof_status
map_str(in_ctx *c, int64_t idx, uint32_t *out, const char *path_fmt, size_t a, size_t b)
{
    const pprof_profile *p = c->p;
    if (idx == 0 && p->strings.len == 0) {
        *out = 0;
        return PPROF_OK;
    }
    if (idx < 0 || (uint64_t)idx >= p->strings.len) {
        char path[128];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        pprof__path(path, path_fmt, a, b);
#pragma GCC diagnostic pop
        return bad(c, path, "string index %lld is outside the string table of %zu entries",
                   (long long)idx, p->strings.len);
    }
    uint32_t *memo = &c->str_memo[idx];
    if (*memo == PPROF_NONE) {
        pprof_string s = PPROF__AT(p->strings, pprof_string, idx);
        if ((*memo = intern(c->m, s.data, s.len)) == PPROF_NONE)
            return nomem(c->m, c->err);
    }
    *out = *memo;
    return PPROF_OK;
}

static uint64_t
mapping_size(const pprof_mapping *sm)
{
    uint64_t size = sm->memory_limit - sm->memory_start; /* wraps like Go's uint64 */
    size = size + 0xfff;
    return size - size % 0x1000;
}

/* The smaller non-empty string by content: a commutative, associative pick. */
static uint32_t
min_nonempty(const pprof_merger *m, uint32_t cur, uint32_t v)
{
    if (v == 0)
        return cur;
    if (cur == 0)
        return v;
    return sid_cmp(m, v, cur) < 0 ? v : cur;
}

static pprof_status
map_mapping(in_ctx *c, size_t mi)
{
    pprof_merger *m = c->m;
    const pprof_mapping *sm = &PPROF__AT(c->p->mappings, pprof_mapping, mi);
    uint32_t file, bid;
    pprof_status st;
    if ((st = map_str(c, sm->filename, &file, "mapping[%zu].filename", mi, 0)) ||
        (st = map_str(c, sm->build_id, &bid, "mapping[%zu].build_id", mi, 0)))
        return st;
    uint64_t size = mapping_size(sm);
    uint32_t key = bid ? bid : file;
    uint64_t h = pprof__mix64(pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(0, size), sm->file_offset), key));
    uint32_t h32 = (uint32_t)(h >> 32);
    if (pprof__htab_full(&m->map_ht) && !pprof__htab_reserve(&m->map_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx;
    HT_SCAN(&m->map_ht, h32, slot, idx,
            (PPROF__AT(m->mappings, mmapping, idx).size == size &&
             PPROF__AT(m->mappings, mmapping, idx).offset == sm->file_offset &&
             PPROF__AT(m->mappings, mmapping, idx).key_str == key));
    mmapping *mm;
    if (idx == PPROF_NONE) {
        if (!(mm = pprof__vec_push(&m->a, &m->mappings, sizeof(*mm))))
            return nomem(m, c->err);
        memset(mm, 0, sizeof(*mm));
        mm->size = size;
        mm->offset = sm->file_offset;
        mm->key_str = key;
        mm->start = sm->memory_start;
        mm->limit = sm->memory_limit;
        idx = (uint32_t)(m->mappings.len - 1);
        pprof__htab_insert_at(&m->map_ht, &slot, idx);
    } else {
        mm = &PPROF__AT(m->mappings, mmapping, idx);
        if (sm->memory_start < mm->start ||
            (sm->memory_start == mm->start && sm->memory_limit > mm->limit)) {
            mm->start = sm->memory_start;
            mm->limit = sm->memory_limit;
        }
    }
    mm->filename = min_nonempty(m, mm->filename, file);
    mm->build_id = min_nonempty(m, mm->build_id, bid);
    mm->has_functions |= sm->has_functions;
    mm->has_filenames |= sm->has_filenames;
    mm->has_line_numbers |= sm->has_line_numbers;
    mm->has_inline_frames |= sm->has_inline_frames;
    if (mi == 0)
        mm->main_candidate = true;
    c->map_memo[mi] = idx;
    return PPROF_OK;
}

static uint32_t
fn_hash(const mfunction *k)
{
    return (uint32_t)(pprof__mix64(pprof__hash_combine(
                          pprof__hash_combine(
                              pprof__hash_combine(pprof__hash_combine(1, k->name), k->system_name),
                              k->filename),
                          (uint64_t)k->start_line)) >>
                      32);
}

static uint32_t
fn_find(const pprof_merger *m, const mfunction *k, uint32_t h32, pprof__htab_probe *slot)
{
    const mfunction *fs = m->functions.data;
    uint32_t idx;
    HT_SCAN(&m->fn_ht, h32, *slot, idx,
            (fs[idx].name == k->name && fs[idx].system_name == k->system_name &&
             fs[idx].filename == k->filename && fs[idx].start_line == k->start_line));
    return idx;
}

static pprof_status
map_function(in_ctx *c, size_t fi, uint32_t *out)
{
    if (c->fn_memo[fi] != PPROF_NONE) {
        *out = c->fn_memo[fi];
        return PPROF_OK;
    }
    pprof_merger *m = c->m;
    const pprof_function *sf = &PPROF__AT(c->p->functions, pprof_function, fi);
    mfunction k = {0, 0, 0, sf->start_line};
    pprof_status st;
    if ((st = map_str(c, sf->name, &k.name, "function[%zu].name", fi, 0)) ||
        (st = map_str(c, sf->system_name, &k.system_name, "function[%zu].system_name", fi, 0)) ||
        (st = map_str(c, sf->filename, &k.filename, "function[%zu].filename", fi, 0)))
        return st;
    uint32_t h32 = fn_hash(&k);
    if (pprof__htab_full(&m->fn_ht) && !pprof__htab_reserve(&m->fn_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx = fn_find(m, &k, h32, &slot);
    if (idx == PPROF_NONE) {
        mfunction *f = pprof__vec_push(&m->a, &m->functions, sizeof(*f));
        if (!f)
            return nomem(m, c->err);
        *f = k;
        idx = (uint32_t)(m->functions.len - 1);
        pprof__htab_insert_at(&m->fn_ht, &slot, idx);
    }
    *out = c->fn_memo[fi] = idx;
    return PPROF_OK;
}

static bool
lines_equal(const mline *a, const mline *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].fn != b[i].fn || a[i].line != b[i].line || a[i].column != b[i].column)
            return false;
    return true;
}

static void
note_conflict(in_ctx *c, const mlocation *old, const mlocation *new_loc)
{
    pprof_merger *m = c->m;
    if (c->n_conflicts++ == 0) {
        const mmapping *mm = new_loc->mapping == PPROF_NONE
                                 ? NULL
                                 : &PPROF__AT(m->mappings, mmapping, new_loc->mapping);
        const pprof_string *f = mstr(m, mm ? mm->key_str : 0);
        snprintf(c->conflict_example, sizeof(c->conflict_example),
                 "mapping '%.*s' +0x%llx has %u line(s) in %s and %u in %s",
                 (int)(f->len > 80 ? 80 : f->len), f->data, (unsigned long long)new_loc->rel,
                 old->n_line, input_name(m, old->input), new_loc->n_line, c->name);
    }
}

/* The merged key of input location li in *key, its lines in m->tmp_lines, and its hash. With
 * add, functions not seen yet are added and a broken reference is an error; without, nothing is
 * added, nothing is reported, and *unresolved says that some function was not known yet. */
static pprof_status
loc_key(in_ctx *c, size_t li, bool add, mlocation *key, uint32_t *h32, bool *unresolved)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof__location *sl = &PPROF__AT(p->locations, pprof__location, li);
    mlocation k = {PPROF_NONE, 0, sl->n_line, c->input, sl->address, sl->is_folded};
    *unresolved = false;
    *h32 = 0;
    if (sl->mapping_id) {
        /* A dangling mapping id means "no mapping", as Go's decoder reads it. The key must
         * survive rebasing onto another start (the merged mapping's start is the lowest of its
         * contributions, so an intermediate merge may have a higher one than the final): the
         * output address is rel + start, which reads back as the same rel only when it cannot
         * wrap to or below the start. So an address below its mapping's start (outside it) is
         * kept as a raw address without the mapping, and address 0 ("no address") stays 0 and
         * shares offset 0 with the start itself. */
        uint32_t mi = pprof__idmap_get(&p->map_idx, sl->mapping_id);
        uint64_t start =
            mi == PPROF_NONE ? 0 : PPROF__AT(p->mappings, pprof_mapping, mi).memory_start;
        if (mi != PPROF_NONE && (sl->address == 0 || sl->address >= start)) {
            k.mapping = c->map_memo[mi];
            k.rel = sl->address ? sl->address - start : 0;
        }
    }
    m->tmp_lines.len = 0;
    if (!pprof__vec_grow(&m->a, &m->tmp_lines, sizeof(mline), sl->n_line))
        return nomem(m, c->err);
    mline *ln = m->tmp_lines.data;
    uint64_t h = pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(2, k.mapping), k.rel),
                            k.folded),
        k.n_line);
    for (uint32_t j = 0; j < sl->n_line; j++) {
        const pprof_line *sline = &PPROF__AT(p->lines, pprof_line, sl->line_off + j);
        uint32_t fi = pprof__idmap_find(&p->fn_idx, sline->function_id);
        if (fi == PPROF_NONE || (!add && c->fn_memo[fi] == PPROF_NONE)) {
            *unresolved = true;
            if (!add)
                return PPROF_OK;
            char path[128];
            pprof__path(path, "location[%zu].line[%u].function_id", li, j);
            return bad(c, path, "function id %llu does not exist",
                       (unsigned long long)sline->function_id);
        }
        if (!add) {
            ln[j].fn = c->fn_memo[fi];
        } else {
            pprof_status st = map_function(c, fi, &ln[j].fn);
            if (st)
                return st;
        }
        ln[j].line = sline->line;
        ln[j].column = sline->column;
        h = pprof__hash_combine(
            pprof__hash_combine(pprof__hash_combine(h, ln[j].fn), (uint64_t)ln[j].line),
            (uint64_t)ln[j].column);
    }
    *h32 = (uint32_t)(pprof__mix64(h) >> 32);
    *key = k;
    return PPROF_OK;
}

static uint32_t
loc_find(const pprof_merger *m, const mlocation *k, const mline *ln, uint32_t h32,
         pprof__htab_probe *slot)
{
    const mlocation *ls = m->locations.data;
    const mline *all = m->lines.data;
    uint32_t idx;
    HT_SCAN(&m->loc_ht, h32, *slot, idx,
            (ls[idx].mapping == k->mapping && ls[idx].rel == k->rel &&
             ls[idx].folded == k->folded && ls[idx].n_line == k->n_line &&
             lines_equal(all + ls[idx].line_off, ln, k->n_line)));
    return idx;
}

static pprof_status
map_location(in_ctx *c, size_t li, uint32_t *out)
{
    if (c->loc_memo[li] != PPROF_NONE) {
        *out = c->loc_memo[li];
        return PPROF_OK;
    }
    pprof_merger *m = c->m;
    mlocation k;
    uint32_t h32;
    bool unresolved;
    pprof_status st = loc_key(c, li, true, &k, &h32, &unresolved);
    if (st)
        return st;
    const mline *ln = m->tmp_lines.data;
    if (pprof__htab_full(&m->loc_ht) && !pprof__htab_reserve(&m->loc_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx = loc_find(m, &k, ln, h32, &slot);
    if (idx == PPROF_NONE) {
        if (m->lines.len + k.n_line >= UINT32_MAX || m->locations.len >= UINT32_MAX - 1)
            return nomem(m, c->err);
        if (!pprof__vec_grow(&m->a, &m->lines, sizeof(mline), m->lines.len + k.n_line))
            return nomem(m, c->err);
        k.line_off = (uint32_t)m->lines.len;
        memcpy((mline *)m->lines.data + m->lines.len, ln, k.n_line * sizeof(mline));
        m->lines.len += k.n_line;
        mlocation *nl = pprof__vec_push(&m->a, &m->locations, sizeof(*nl));
        if (!nl)
            return nomem(m, c->err);
        *nl = k;
        idx = (uint32_t)(m->locations.len - 1);
        pprof__htab_insert_at(&m->loc_ht, &slot, idx);
        if (k.rel != 0) {
            uint64_t ha =
                pprof__mix64(pprof__hash_combine(pprof__hash_combine(3, k.mapping), k.rel));
            uint32_t a32 = (uint32_t)(ha >> 32);
            if (pprof__htab_full(&m->addr_ht) && !pprof__htab_reserve(&m->addr_ht, &m->a, 1))
                return nomem(m, c->err);
            uint32_t first;
            const mlocation *ls = m->locations.data;
            const mline *all = m->lines.data;
            HT_SCAN(&m->addr_ht, a32, slot, first,
                    (ls[first].mapping == k.mapping && ls[first].rel == k.rel));
            if (first == PPROF_NONE) {
                pprof__htab_insert_at(&m->addr_ht, &slot, idx);
            } else if (ls[first].n_line != k.n_line ||
                       !lines_equal(all + ls[first].line_off, all + k.line_off, k.n_line)) {
                note_conflict(c, &ls[first], &ls[idx]);
                if (m->o.inline_conflict == PPROF_INLINE_ERROR) {
                    char path[128];
                    pprof__path(path, "location[%zu]", li);
                    m->failed = PPROF_E_INVALID;
                    return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                        "inline conflict: %s", c->conflict_example);
                }
            }
        }
    }
    *out = c->loc_memo[li] = idx;
    return PPROF_OK;
}

/* Lookups of an input's entities that the merger holds go a group at a time: each needs its
 * table slot, then the entity there, then (strings, locations) what that points to, and each of
 * those reads was a cache miss (the tables are visited at random). Prefetching a step ahead for
 * the whole group overlaps those misses. */
#define PRE_GROUP 64

static void
preresolve_strings(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof_string *xs = p->strings.data, *ms = m->strings.data;
    uint32_t h[PRE_GROUP], cand[PRE_GROUP];
    for (size_t base = 0; base < p->strings.len; base += PRE_GROUP) {
        size_t k = p->strings.len - base < PRE_GROUP ? p->strings.len - base : PRE_GROUP;
        const pprof_string *x = xs + base;
        for (size_t i = 0; i < k; i++) {
            h[i] = str_hash(x[i].data, x[i].len);
            pprof__htab_prefetch(&m->str_ht, h[i]);
        }
        for (size_t i = 0; i < k; i++)
            if ((cand[i] = pprof__htab_peek(&m->str_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&ms[cand[i]]);
        for (size_t i = 0; i < k; i++)
            if (cand[i] != PPROF_NONE)
                __builtin_prefetch(ms[cand[i]].data);
        for (size_t i = 0; i < k; i++) {
            pprof__htab_probe slot;
            c->str_memo[base + i] = str_find(m, x[i].data, x[i].len, h[i], &slot);
        }
    }
}

/* Returns how many of the input's functions were found. */
static size_t
preresolve_functions(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    size_t ns = p->strings.len, nf = p->functions.len, found = 0;
    const pprof_function *fs = p->functions.data;
    const mfunction *mf = m->functions.data;
    mfunction key[PRE_GROUP];
    uint32_t h[PRE_GROUP], cand;
    for (size_t base = 0; base < nf; base += PRE_GROUP) {
        size_t k = nf - base < PRE_GROUP ? nf - base : PRE_GROUP;
        for (size_t i = 0; i < k; i++) {
            const pprof_function *sf = &fs[base + i];
            h[i] = 0;
            key[i].name = PPROF_NONE;
            if (sf->name < 0 || (uint64_t)sf->name >= ns || sf->system_name < 0 ||
                (uint64_t)sf->system_name >= ns || sf->filename < 0 || (uint64_t)sf->filename >= ns)
                continue;
            mfunction x = {c->str_memo[sf->name], c->str_memo[sf->system_name],
                           c->str_memo[sf->filename], sf->start_line};
            if (x.name == PPROF_NONE || x.system_name == PPROF_NONE || x.filename == PPROF_NONE)
                continue;
            key[i] = x;
            h[i] = fn_hash(&x);
            pprof__htab_prefetch(&m->fn_ht, h[i]);
        }
        for (size_t i = 0; i < k; i++)
            if (key[i].name != PPROF_NONE &&
                (cand = pprof__htab_peek(&m->fn_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&mf[cand]);
        for (size_t i = 0; i < k; i++) {
            if (key[i].name == PPROF_NONE)
                continue;
            pprof__htab_probe slot;
            c->fn_memo[base + i] = fn_find(m, &key[i], h[i], &slot);
            found += c->fn_memo[base + i] != PPROF_NONE;
        }
    }
    return found;
}

static void
preresolve_locations(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const mlocation *ml = m->locations.data;
    const mline *lines = m->lines.data;
    uint32_t h[PRE_GROUP], cand[PRE_GROUP];
    bool ok[PRE_GROUP];
    for (size_t base = 0; base < p->locations.len; base += PRE_GROUP) {
        size_t k = p->locations.len - base < PRE_GROUP ? p->locations.len - base : PRE_GROUP;
        mlocation key;
        bool unresolved;
        for (size_t i = 0; i < k; i++) {
            ok[i] = !loc_key(c, base + i, false, &key, &h[i], &unresolved) && !unresolved;
            if (ok[i])
                pprof__htab_prefetch(&m->loc_ht, h[i]);
        }
        for (size_t i = 0; i < k; i++)
            if (ok[i] && (cand[i] = pprof__htab_peek(&m->loc_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&ml[cand[i]]);
            else
                cand[i] = PPROF_NONE;
        for (size_t i = 0; i < k; i++)
            if (cand[i] != PPROF_NONE)
                __builtin_prefetch(&lines[ml[cand[i]].line_off]);
        /* The keys again (cheap: the input's own tables, now cached) rather than kept. */
        for (size_t i = 0; i < k; i++) {
            if (!ok[i] || loc_key(c, base + i, false, &key, &h[i], &unresolved) || unresolved)
                continue;
            pprof__htab_probe slot;
            c->loc_memo[base + i] = loc_find(m, &key, m->tmp_lines.data, h[i], &slot);
        }
    }
}

/* Before an input's samples are mapped (in their order, which visits the tables at random),
 * its strings, functions and locations that the merger already holds are looked up in table
 * order. Only lookups: nothing is added and nothing is reported (what does not resolve is left
 * to the samples, which add it, warn and word errors as before), so the merger ends up exactly
 * as without this pass. Locations are skipped when few functions were found (an input of
 * another program). */
static void
preresolve(in_ctx *c)
{
    const pprof_merger *m = c->m;
    if (m->n_inputs == 0 || !m->str_ht.mask || !m->fn_ht.mask || !m->loc_ht.mask)
        return; /* nothing to find */
    preresolve_strings(c);
    size_t found = preresolve_functions(c);
    if (found * 2 < c->p->functions.len)
        return;
    preresolve_locations(c);
}

/* Labels in canonical order: string labels (str set) before numeric ones, each group stably
 * sorted by key content, so the value order inside one key is kept (as in Go's key). */
static int
label_order(const pprof_merger *m, const mlabel *a, const mlabel *b)
{
    int ca = a->str == 0, cb = b->str == 0;
    if (ca != cb)
        return ca - cb;
    return sid_cmp(m, a->key, b->key);
}

/* Short label lists (nearly all) are sorted in place by insertion. */
#define LABELS_SHORT 16

/* Sorts n labels into canonical order, stably, through tmp (n entries when n > LABELS_SHORT):
 * insertion sort on runs of LABELS_SHORT, then bottom-up merges, so a sample with very many
 * labels costs O(n log n) comparisons. */
static void
sort_labels(const pprof_merger *m, mlabel *lab, mlabel *tmp, size_t n)
{
    for (size_t lo = 0; lo < n; lo += LABELS_SHORT) {
        size_t hi = lo + LABELS_SHORT < n ? lo + LABELS_SHORT : n;
        for (size_t i = lo + 1; i < hi; i++) {
            mlabel x = lab[i];
            size_t k = i;
            while (k > lo && label_order(m, &lab[k - 1], &x) > 0) {
                lab[k] = lab[k - 1];
                k--;
            }
            lab[k] = x;
        }
    }
    mlabel *from = lab, *to = tmp;
    for (size_t w = LABELS_SHORT; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) /* ties take the left run: stable */
                to[o++] = label_order(m, &from[j], &from[i]) < 0 ? from[j++] : from[i++];
            while (i < mid)
                to[o++] = from[i++];
            while (j < hi)
                to[o++] = from[j++];
        }
        mlabel *t = from;
        from = to;
        to = t;
    }
    if (from != lab)
        memcpy(lab, from, n * sizeof(mlabel));
}

static bool
labels_equal(const mlabel *a, const mlabel *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].key != b[i].key || a[i].str != b[i].str || a[i].unit != b[i].unit ||
            a[i].num != b[i].num)
            return false;
    return true;
}

/* Samples are absorbed in two stages. Stage 1 (the calling thread) maps a sample onto the
 * merger's strings, functions and locations: its stack becomes merged location indices, its
 * labels merged string ids in canonical order, its values the merged columns. Stage 2 interns
 * the stacks and the samples and sums the values. Stage 2 owns the stack and sample tables and
 * stage 1 everything else, so with threads >= 2 stage 2 runs on a thread of its own, a batch
 * behind stage 1 (the merger's thread is joined when the merger is freed). Stage 2 takes the
 * samples in input order either way, so nothing depends on it. Within a batch, stage 2 works in
 * groups whose hash-table slots it prefetches a pass ahead: those tables are far larger than the
 * caches, and a miss per probe was most of the merge. Errors are reported as a one-at-a-time
 * merge would: a sample's error wins over any error of a later sample. */
/* Samples per batch handed to stage 2: an eighth of the input, so that the stages overlap on
 * small inputs too (they wait for each other at the end of every input), within bounds that
 * keep the handovers rare and the batches in cache. */
#define SBATCH_MIN 256
#define SBATCH_MAX 4096
#define PF 32 /* prefetch group */

/* The stage-2 keys' hash bits (stage 1 computes a stack's while mapping it, the same way). */
static uint32_t
stack_hash(const uint32_t *stk, size_t n)
{
    uint64_t h = pprof__hash_combine(4, n);
    for (size_t j = 0; j < n; j++)
        h = pprof__hash_combine(h, stk[j]);
    return (uint32_t)(pprof__mix64(h) >> 32);
}

static uint32_t
sample_hash(uint32_t sid, const mlabel *lab, size_t n_lab)
{
    uint64_t h = pprof__hash_combine(pprof__hash_combine(5, sid), n_lab);
    for (size_t j = 0; j < n_lab; j++)
        h = pprof__hash_combine(
            pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(h, lab[j].key), lab[j].str),
                                lab[j].unit),
            (uint64_t)lab[j].num);
    return (uint32_t)(pprof__mix64(h) >> 32);
}

/* The stacks' and samples' hash tables serve absorbing only, and are the largest of the
 * merger's: writing gives them back for the encoding to reuse, and the next add builds them
 * again from the stacks and samples (stage 2 is idle between adds). */
static void
release_s2_tables(pprof_merger *m)
{
    pprof__htab *ts[] = {&m->stack_ht, &m->sample_ht};
    for (int k = 0; k < 2; k++) {
        pprof__free(&m->a, ts[k]->slot);
        ts[k]->slot = NULL;
        ts[k]->mask = ts[k]->count = 0;
    }
    m->s2_tables_gone = true;
}

static bool
rebuild_s2_tables(pprof_merger *m)
{
    if (!m->s2_tables_gone)
        return true;
    if (!pprof__htab_reserve(&m->stack_ht, &m->a, m->stacks.len) ||
        !pprof__htab_reserve(&m->sample_ht, &m->a, m->samples.len))
        return false;
    const mstack *sts = m->stacks.data;
    for (size_t i = 0; i < m->stacks.len; i++)
        pprof__htab_add(&m->stack_ht,
                        stack_hash((const uint32_t *)m->stack.data + sts[i].off, sts[i].n),
                        (uint32_t)i);
    const msample *ss = m->samples.data;
    const mlabel *labs = m->labels.data;
    for (size_t i = 0; i < m->samples.len; i++)
        pprof__htab_add(&m->sample_ht, sample_hash(ss[i].stack, labs + ss[i].lab_off, ss[i].n_lab),
                        (uint32_t)i);
    m->s2_tables_gone = false;
    return true;
}

/* Stage 2 for one group: the stack interned, the sample hashed. */
static bool
s2_stack(pprof_merger *m, const merge_batch *b, psample *q)
{
    const uint32_t *stk = (const uint32_t *)b->stk.data + q->stk_off;
    uint32_t n_loc = q->n_loc;
    if (pprof__htab_full(&m->stack_ht) && !pprof__htab_reserve(&m->stack_ht, &m->a, 1))
        return false;
    pprof__htab_probe slot;
    uint32_t sid;
    {
        const mstack *sts = m->stacks.data;
        const uint32_t *all = m->stack.data;
        HT_SCAN(&m->stack_ht, q->h32, slot, sid,
                (sts[sid].n == n_loc &&
                 (n_loc == 0 || !memcmp(all + sts[sid].off, stk, n_loc * sizeof(uint32_t)))));
    }
    if (sid == PPROF_NONE) {
        if (m->stack.len + n_loc >= UINT32_MAX || m->stacks.len >= UINT32_MAX - 1 ||
            !pprof__vec_grow(&m->a, &m->stack, sizeof(uint32_t), m->stack.len + n_loc))
            return false;
        mstack *ns = pprof__vec_push(&m->a, &m->stacks, sizeof(*ns));
        if (!ns)
            return false;
        ns->off = (uint32_t)m->stack.len;
        ns->n = n_loc;
        if (n_loc)
            memcpy((uint32_t *)m->stack.data + m->stack.len, stk, n_loc * sizeof(uint32_t));
        m->stack.len += n_loc;
        sid = (uint32_t)(m->stacks.len - 1);
        pprof__htab_insert_at(&m->stack_ht, &slot, sid);
    }
    q->sid = sid;
    const mlabel *lab = (const mlabel *)b->lab.data + q->lab_off;
    q->h32 = sample_hash(sid, lab, q->n_lab);
    pprof__htab_prefetch(&m->sample_ht, q->h32);
    return true;
}

static uint32_t
carry_hash(uint64_t at)
{
    return (uint32_t)(pprof__mix64(pprof__hash_combine(4, at)) >> 32);
}

static carry *
carry_find(const pprof_merger *m, uint64_t at)
{
    if (!m->carries.len)
        return NULL;
    carry *cs = m->carries.data;
    pprof__htab_probe slot;
    uint32_t idx;
    HT_SCAN(&m->carry_ht, carry_hash(at), slot, idx, cs[idx].at == at);
    return idx == PPROF_NONE ? NULL : &cs[idx];
}

/* Counts a wrap of value `at` (dir +1 upward, -1 downward); false when out of memory. */
static bool
carry_note(pprof_merger *m, uint64_t at, int dir, uint32_t input, uint32_t si, int64_t sum,
           int64_t add)
{
    carry *c = carry_find(m, at);
    if (c) {
        c->n += dir;
        return true;
    }
    if (pprof__htab_full(&m->carry_ht) && !pprof__htab_reserve(&m->carry_ht, &m->a, 1))
        return false;
    if (!(c = pprof__vec_push(&m->a, &m->carries, sizeof(*c))))
        return false;
    carry x = {at, dir, input, si, sum, add};
    *c = x;
    pprof__htab_add(&m->carry_ht, carry_hash(at), (uint32_t)(m->carries.len - 1));
    return true;
}

/* The carries after the columns were reshaped (keep[i] = old column of new column i). */
static bool
carry_reshape(pprof_merger *m, const uint32_t *keep, size_t n_old, size_t n_new)
{
    carry *cs = m->carries.data;
    size_t k = 0;
    for (size_t i = 0; i < m->carries.len; i++) {
        uint64_t s = cs[i].at / n_old, t = cs[i].at % n_old;
        for (size_t j = 0; j < n_new; j++) {
            if (keep[j] == t) {
                cs[k] = cs[i];
                cs[k++].at = s * n_new + j;
                break;
            }
        }
    }
    m->carries.len = k;
    pprof__htab_clear(&m->carry_ht);
    if (k && !pprof__htab_reserve(&m->carry_ht, &m->a, k))
        return false;
    for (size_t i = 0; i < k; i++)
        pprof__htab_add(&m->carry_ht, carry_hash(cs[i].at), (uint32_t)i);
    return true;
}

/* Stage 2: the sample found or added, its values summed. */
static pprof_status
s2_sample(pprof_merger *m, merge_batch *b, const psample *q)
{
    const mlabel *lab = (const mlabel *)b->lab.data + q->lab_off;
    uint32_t sid = q->sid, h32 = q->h32, n_lab = q->n_lab;
    size_t nt = b->n_types;
    if (pprof__htab_full(&m->sample_ht) && !pprof__htab_reserve(&m->sample_ht, &m->a, 1))
        return PPROF_E_NOMEM;
    pprof__htab_probe slot;
    uint32_t idx;
    const msample *ss = m->samples.data;
    const mlabel *labels = m->labels.data;
    HT_SCAN(&m->sample_ht, h32, slot, idx,
            (ss[idx].stack == sid && ss[idx].n_lab == n_lab &&
             labels_equal(labels + ss[idx].lab_off, lab, n_lab)));
    int64_t *vals;
    if (idx == PPROF_NONE) {
        if (m->labels.len + n_lab >= UINT32_MAX || m->samples.len >= UINT32_MAX - 1)
            return PPROF_E_NOMEM;
        if (!pprof__vec_grow(&m->a, &m->labels, sizeof(mlabel), m->labels.len + n_lab) ||
            !pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), m->values.len + nt))
            return PPROF_E_NOMEM;
        msample *ns = pprof__vec_push(&m->a, &m->samples, sizeof(*ns));
        if (!ns)
            return PPROF_E_NOMEM;
        const mstack st_ = PPROF__AT(m->stacks, mstack, sid);
        ns->lab_off = (uint32_t)m->labels.len;
        ns->n_lab = n_lab;
        ns->stack = sid;
        m->sample_bound += PPROF__SAMPLE_BOUND(st_.n, nt, n_lab);
        m->sample_guess += 4 + 2 * (size_t)st_.n + 5 * nt + 12 * (size_t)n_lab;
        if (n_lab)
            memcpy((mlabel *)m->labels.data + m->labels.len, lab, n_lab * sizeof(mlabel));
        m->labels.len += n_lab;
        vals = (int64_t *)m->values.data + m->values.len;
        memset(vals, 0, nt * sizeof(int64_t));
        m->values.len += nt;
        idx = (uint32_t)(m->samples.len - 1);
        pprof__htab_insert_at(&m->sample_ht, &slot, idx);
    } else {
        vals = (int64_t *)m->values.data + (size_t)idx * nt;
    }
    const int64_t *add = (const int64_t *)b->val.data + q->val_off;
    for (size_t t = 0; t < nt; t++) {
        int64_t sum;
        if (__builtin_add_overflow(vals[t], add[t], &sum) &&
            !carry_note(m, (uint64_t)idx * nt + t, add[t] > 0 ? 1 : -1, b->input, q->si, vals[t],
                        add[t]))
            return PPROF_E_NOMEM;
        vals[t] = sum;
    }
    return PPROF_OK;
}

/* Room in stage 2's tables for what stage 1 expects of the rest of the input, faulted in by a
 * thread of its own while stage 2 goes on. A hint: failing to grow here is no error (growing
 * later is, where it is needed). */
static void
s2_make_room(pprof_merger *m, const merge_batch *b)
{
    prefault *pf = &m->s2_pf;
    prefault_join(pf);
    memset(pf, 0, sizeof(*pf));
    if (!m->s2_seen)
        return;
    struct {
        pprof__vec *v;
        size_t elem;
    } t[4] = {{&m->stack, sizeof(uint32_t)},
              {&m->labels, sizeof(mlabel)},
              {&m->samples, sizeof(msample)},
              {&m->stacks, sizeof(mstack)}};
    size_t new_samples = 0;
    for (size_t i = 0; i < 4; i++) {
        /* what the input's samples so far added, per sample, for the rest and an eighth */
        size_t added = t[i].v->len - m->s2_mark[i];
        size_t more = (size_t)((double)added / (double)m->s2_seen * (double)b->want_rest * 1.125);
        if (i == 2)
            new_samples = more;
        if (more && pprof__vec_grow(&m->a, t[i].v, t[i].elem, t[i].v->len + more))
            prefault_add(pf, (uint8_t *)t[i].v->data + t[i].v->len * t[i].elem, more * t[i].elem);
    }
    size_t nv = new_samples * b->n_types;
    if (nv && pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), m->values.len + nv))
        prefault_add(pf, (int64_t *)m->values.data + m->values.len, nv * sizeof(int64_t));
    prefault_start(pf, m->o.threads);
}

/* Stage 2 over a batch; stops at the first failure and records it in the batch. */
static void
s2_batch(pprof_merger *m, merge_batch *b)
{
    psample *q = b->q.data;
    size_t n = b->q.len;
    b->st = PPROF_OK;
    if (b->input_start) {
        const pprof__vec *v[4] = {&m->stack, &m->labels, &m->samples, &m->stacks};
        for (int i = 0; i < 4; i++)
            m->s2_mark[i] = v[i]->len;
        m->s2_seen = 0;
    }
    if (b->want_rest)
        s2_make_room(m, b);
    m->s2_seen += n;
    for (size_t base = 0; base < n; base += PF) {
        size_t k = n - base < PF ? n - base : PF;
        for (size_t i = 0; i < k; i++)
            pprof__htab_prefetch(&m->stack_ht, q[base + i].h32);
        for (size_t i = 0; i < k; i++)
            if (!s2_stack(m, b, &q[base + i])) {
                b->st = PPROF_E_NOMEM;
                return;
            }
        for (size_t i = 0; i < k; i++)
            if ((b->st = s2_sample(m, b, &q[base + i])))
                return;
    }
}

static void *
s2_thread(void *arg)
{
    pprof_merger *m = arg;
    pthread_mutex_lock(&m->s2_mu);
    for (;;) {
        while (m->s2_done == m->s2_sent && !m->s2_quit)
            pthread_cond_wait(&m->s2_cv, &m->s2_mu);
        if (m->s2_done == m->s2_sent)
            break; /* quit, with nothing left */
        merge_batch *b = &m->batch[m->s2_done % 2];
        bool skip = m->s2_failed;
        pthread_mutex_unlock(&m->s2_mu);
        if (!skip)
            s2_batch(m, b);
        pthread_mutex_lock(&m->s2_mu);
        if (!skip && b->st)
            m->s2_failed = true;
        m->s2_done++;
        pthread_cond_broadcast(&m->s2_cv);
    }
    pthread_mutex_unlock(&m->s2_mu);
    return NULL;
}

/* Hands the batch being filled to stage 2 and returns the next one to fill, once stage 2 is
 * done with it. Without a stage-2 thread the batch is processed here and now. */
static merge_batch *
s2_send(pprof_merger *m)
{
    merge_batch *b = &m->batch[m->s2_sent % 2];
    if (!m->s2_running) {
        if (!m->s2_failed) {
            s2_batch(m, b);
            m->s2_failed = b->st != PPROF_OK;
        }
        m->s2_sent++;
        m->s2_done++;
    } else {
        pthread_mutex_lock(&m->s2_mu);
        m->s2_sent++;
        pthread_cond_broadcast(&m->s2_cv);
        while (m->s2_done + 1 < m->s2_sent) /* the other batch is still being absorbed */
            pthread_cond_wait(&m->s2_cv, &m->s2_mu);
        pthread_mutex_unlock(&m->s2_mu);
    }
    merge_batch *next = &m->batch[m->s2_sent % 2];
    next->input_start = false;
    next->want_rest = 0;
    next->q.len = next->stk.len = next->lab.len = next->val.len = 0;
    next->n_types = m->n_types;
    next->input = (uint32_t)m->n_inputs;
    return next;
}

/* Waits until stage 2 has absorbed everything sent. */
static void
s2_drain(pprof_merger *m)
{
    if (!m->s2_running)
        return;
    pthread_mutex_lock(&m->s2_mu);
    while (m->s2_done < m->s2_sent)
        pthread_cond_wait(&m->s2_cv, &m->s2_mu);
    pthread_mutex_unlock(&m->s2_mu);
}

static void
s2_start(pprof_merger *m)
{
    if (m->s2_running || m->o.threads < 2 || m->s2_tried)
        return;
    m->s2_tried = true; /* one attempt: without a thread, stage 2 runs inline */
    if (pthread_mutex_init(&m->s2_mu, NULL))
        return;
    if (pthread_cond_init(&m->s2_cv, NULL)) {
        pthread_mutex_destroy(&m->s2_mu);
        return;
    }
    if (pthread_create(&m->s2, NULL, s2_thread, m)) {
        pthread_cond_destroy(&m->s2_cv);
        pthread_mutex_destroy(&m->s2_mu);
        return;
    }
    m->s2_running = true;
}

static void
s2_stop(pprof_merger *m)
{
    if (!m->s2_running)
        return;
    pthread_mutex_lock(&m->s2_mu);
    m->s2_quit = true;
    pthread_cond_broadcast(&m->s2_cv);
    pthread_mutex_unlock(&m->s2_mu);
    pthread_join(m->s2, NULL);
    pthread_cond_destroy(&m->s2_cv);
    pthread_mutex_destroy(&m->s2_mu);
    m->s2_running = false;
}

/* Stage 1 for one sample (index si in p's sample table, the input's sample si + sample_base):
 * checked and mapped into batch b, or nothing when all its values are zero. */
static pprof_status
s1_sample(in_ctx *c, size_t si, merge_batch *b)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    pprof_sample s = pprof_profile_sample(p, si);
    size_t gsi = si + c->sample_base;
    char path[128];
    if (s.n_value != p->sample_types.len) {
        pprof__path(path, "sample[%zu].value", gsi);
        return bad(c, path, "sample has %zu values but there are %zu sample types", s.n_value,
                   p->sample_types.len);
    }
    /* Zero in the input's own columns, not in the merged ones: those depend on the inputs
     * absorbed so far (type intersection), and whether a sample is checked and its locations
     * taken must not. A sample zero in the kept columns only is dropped by finish. */
    bool nonzero = false;
    for (size_t t = 0; t < s.n_value; t++)
        nonzero |= s.value[t] != 0;
    if (!nonzero)
        return PPROF_OK;
    size_t nt = b->n_types;
    if (b->stk.len + s.n_location_id >= UINT32_MAX ||
        !pprof__vec_grow(&m->a, &b->stk, sizeof(uint32_t), b->stk.len + s.n_location_id) ||
        !pprof__vec_grow(&m->a, &b->lab, sizeof(mlabel),
                         b->lab.len + s.n_label * (s.n_label > LABELS_SHORT ? 2 : 1)) ||
        !pprof__vec_grow(&m->a, &b->val, sizeof(int64_t), b->val.len + nt) ||
        !pprof__vec_grow(&m->a, &b->q, sizeof(psample), b->q.len + 1))
        return nomem(m, c->err);
    psample *q = (psample *)b->q.data + b->q.len;
    q->si = (uint32_t)gsi;
    q->stk_off = (uint32_t)b->stk.len;
    q->n_loc = (uint32_t)s.n_location_id;
    uint32_t *stk = (uint32_t *)b->stk.data + q->stk_off;
    for (size_t j = 0; j < s.n_location_id; j++) {
        uint32_t li = pprof__idmap_find(&p->loc_idx, s.location_id[j]);
        if (li == PPROF_NONE) {
            pprof__path(path, "sample[%zu].location_id[%zu]", gsi, j);
            return bad(c, path, "location id %llu does not exist",
                       (unsigned long long)s.location_id[j]);
        }
        stk[j] = c->loc_memo[li]; /* most frames were mapped before */
        if (stk[j] == PPROF_NONE) {
            pprof_status st = map_location(c, li, &stk[j]);
            if (st)
                return st;
        }
    }
    q->h32 = stack_hash(stk, s.n_location_id);
    q->lab_off = (uint32_t)b->lab.len;
    q->n_lab = (uint32_t)s.n_label;
    mlabel *lab = (mlabel *)b->lab.data + q->lab_off;
    for (size_t j = 0; j < s.n_label; j++) {
        const pprof_label *l = &s.label[j];
        pprof_status st;
        mlabel x = {0, 0, 0, l->num};
        if ((st = map_str(c, l->key, &x.key, "sample[%zu].label[%zu].key", gsi, j)) ||
            (st = map_str(c, l->str, &x.str, "sample[%zu].label[%zu].str", gsi, j)) ||
            (st = map_str(c, l->num_unit, &x.unit, "sample[%zu].label[%zu].num_unit", gsi, j)))
            return st;
        lab[j] = x;
    }
    sort_labels(m, lab, lab + s.n_label, s.n_label); /* scratch: the room grown past them */
    q->val_off = (uint32_t)b->val.len;
    int64_t *val = (int64_t *)b->val.data + q->val_off;
    for (size_t t = 0; t < nt; t++)
        val[t] = s.value[c->col_of[t]];
    b->stk.len += s.n_location_id;
    b->lab.len += s.n_label;
    b->val.len += nt;
    b->q.len++;
    return PPROF_OK;
}

/* The error stage 2 recorded (out of memory), as an error of this input. */
static pprof_status
s2_error(in_ctx *c, const merge_batch *b)
{
    c->m->failed = b->st;
    return nomem(c->m, c->err);
}

/* ------------------------------------------------------------------ types and header */

static void
format_types(const pprof_merger *m, const pprof_value_type *t, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        const pprof_string *a = mstr(m, (uint32_t)t[i].type), *b = mstr(m, (uint32_t)t[i].unit);
        int w = snprintf(buf + len, cap - len, "%s%.*s/%.*s", i ? ", " : "",
                         (int)(a->len > 40 ? 40 : a->len), a->data,
                         (int)(b->len > 40 ? 40 : b->len), b->data);
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= cap)
            len = cap - 1;
    }
}

static int
type_cmp(const pprof_merger *m, const pprof_value_type *a, const pprof_value_type *b)
{
    int c = sid_cmp(m, (uint32_t)a->type, (uint32_t)b->type);
    return c ? c : sid_cmp(m, (uint32_t)a->unit, (uint32_t)b->unit);
}

/* Replaces the merged type list by keep (indices of current columns, in new order). */
static pprof_status
reshape_types(pprof_merger *m, const uint32_t *keep, size_t n_new, pprof_error *err)
{
    size_t n_old = m->n_types, ns = m->samples.len;
    pprof_value_type *nt = pprof__malloc(&m->a, (n_new + 1) * sizeof(*nt));
    if (!nt)
        return nomem(m, err);
    for (size_t i = 0; i < n_new; i++)
        nt[i] = PPROF__AT(m->types, pprof_value_type, keep[i]);
    memcpy(m->types.data, nt, n_new * sizeof(*nt));
    m->types.len = n_new;
    pprof__free(&m->a, nt);
    unit_clash *nb = pprof__malloc(&m->a, (n_new + 1) * sizeof(*nb));
    if (!nb)
        return nomem(m, err);
    for (size_t i = 0; i < n_new; i++)
        nb[i] = PPROF__AT(m->type_bad, unit_clash, keep[i]);
    memcpy(m->type_bad.data, nb, n_new * sizeof(*nb));
    m->type_bad.len = n_new;
    pprof__free(&m->a, nb);
    int64_t *v = m->values.data;
    int64_t row[64];
    int64_t *tmp = n_old <= 64 ? row : pprof__malloc(&m->a, n_old * sizeof(int64_t));
    if (!tmp)
        return nomem(m, err);
    for (size_t s = 0; s < ns; s++) { /* rows only shrink, so in-place forward copy is safe */
        memcpy(tmp, v + s * n_old, n_old * sizeof(int64_t));
        for (size_t i = 0; i < n_new; i++)
            v[s * n_new + i] = tmp[keep[i]];
    }
    if (tmp != row)
        pprof__free(&m->a, tmp);
    m->values.len = ns * n_new;
    if (!carry_reshape(m, keep, n_old, n_new))
        return nomem(m, err);
    m->n_types = n_new;
    return PPROF_OK;
}

static pprof_status
absorb_types(in_ctx *c, const uint32_t *in_types /* pairs */, size_t n_in)
{
    pprof_merger *m = c->m;
    pprof_error *err = c->err;
    if (m->n_inputs == 0) {
        if (!pprof__vec_grow(&m->a, &m->types, sizeof(pprof_value_type), n_in + 1) ||
            !pprof__vec_grow(&m->a, &m->type_bad, sizeof(unit_clash), n_in + 1))
            return nomem(m, err);
        for (size_t i = 0; i < n_in; i++) {
            pprof_value_type vt = {in_types[2 * i], in_types[2 * i + 1]};
            PPROF__AT(m->types, pprof_value_type, i) = vt;
            unit_clash none = {0, PPROF_NONE};
            PPROF__AT(m->type_bad, unit_clash, i) = none;
        }
        m->type_bad.len = n_in;
        m->types.len = m->n_types = n_in;
        m->first_input = c->input;
        for (size_t i = 0; i < n_in; i++)
            c->col_of[i] = (int32_t)i;
        return PPROF_OK;
    }
    const pprof_value_type *cur = m->types.data;
    bool same = n_in == m->n_types;
    for (size_t i = 0; same && i < n_in; i++)
        same = cur[i].type == in_types[2 * i] && cur[i].unit == in_types[2 * i + 1];
    if (same) {
        for (size_t i = 0; i < n_in; i++)
            c->col_of[i] = (int32_t)i;
        return PPROF_OK;
    }
    if (!m->o.intersect_types) {
        char a[200], b[200];
        pprof_value_type tmp[16];
        size_t k = n_in < 16 ? n_in : 16;
        for (size_t i = 0; i < k; i++) {
            tmp[i].type = in_types[2 * i];
            tmp[i].unit = in_types[2 * i + 1];
        }
        format_types(m, cur, m->n_types, a, sizeof(a));
        format_types(m, tmp, k, b, sizeof(b));
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "incompatible sample types: %s has [%s] but %s has [%s]", c->name, b,
                            input_name(m, m->first_input), a);
    }
    /* Intersect by type name; the result is sorted by content once inputs disagree, so it does
     * not depend on which input came first. */
    uint32_t keep[256];
    size_t n_keep = 0;
    for (size_t i = 0; i < m->n_types && n_keep < 256; i++) {
        /* A type name listed twice is kept once, or the result would depend on whether the
         * list with the repeat came first. */
        bool dup = false;
        for (size_t k = 0; k < n_keep && !dup; k++)
            dup = cur[keep[k]].type == cur[i].type;
        for (size_t j = 0; j < n_in && !dup; j++) {
            if (cur[i].type != in_types[2 * j])
                continue;
            unit_clash *bad = &PPROF__AT(m->type_bad, unit_clash, i);
            if (cur[i].unit != in_types[2 * j + 1] && bad->input == PPROF_NONE) {
                bad->unit = in_types[2 * j + 1];
                bad->input = c->input;
            }
            keep[n_keep++] = (uint32_t)i;
            break;
        }
    }
    if (n_keep == 0) {
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "%s and %s have no sample type in common", c->name,
                            input_name(m, m->first_input));
    }
    for (size_t i = 1; i < n_keep; i++) { /* sort kept columns by (type, unit) content */
        uint32_t x = keep[i];
        size_t k = i;
        while (k > 0 && type_cmp(m, &cur[keep[k - 1]], &cur[x]) > 0) {
            keep[k] = keep[k - 1];
            k--;
        }
        keep[k] = x;
    }
    pprof_status st = reshape_types(m, keep, n_keep, err);
    if (st)
        return st;
    cur = m->types.data;
    for (size_t i = 0; i < m->n_types; i++)
        for (size_t j = 0; j < n_in; j++)
            if (cur[i].type == in_types[2 * j]) {
                c->col_of[i] = (int32_t)j;
                break;
            }
    return PPROF_OK;
}

static pprof_status
absorb_header(in_ctx *c)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof_header h = pprof_profile_header(p);
    pprof_status st;
    uint32_t pt = 0, pu = 0, drop = 0, keep = 0, dst = 0,
             doc = 0; /* set by map_str; gcc -O3 cannot tell */
    if ((st = map_str(c, h.period_type.type, &pt, "period_type.type", 0, 0)) ||
        (st = map_str(c, h.period_type.unit, &pu, "period_type.unit", 0, 0)) ||
        (st = map_str(c, h.drop_frames, &drop, "drop_frames", 0, 0)) ||
        (st = map_str(c, h.keep_frames, &keep, "keep_frames", 0, 0)) ||
        (st = map_str(c, h.default_sample_type, &dst, "default_sample_type", 0, 0)) ||
        (st = map_str(c, h.doc_url, &doc, "doc_url", 0, 0)))
        return st;
    if (m->n_inputs == 0) {
        m->period_type = pt;
        m->period_unit = pu;
    } else if (m->period_type != pt || m->period_unit != pu) {
        const pprof_string *a = mstr(m, pt), *b = mstr(m, pu), *x = mstr(m, m->period_type),
                           *y = mstr(m, m->period_unit);
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(c->err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "period_type",
                            "incompatible period types: %s has %.*s/%.*s but %s has %.*s/%.*s",
                            c->name, (int)a->len, a->data, (int)b->len, b->data,
                            input_name(m, m->first_input), (int)x->len, x->data, (int)y->len,
                            y->data);
    }
    if (h.period > m->period)
        m->period = h.period;
    if (__builtin_add_overflow(m->duration, h.duration_nanos, &m->duration)) {
        if (m->duration_carry == 0)
            m->duration_input = c->input;
        m->duration_carry += h.duration_nanos > 0 ? 1 : -1;
    }
    if (h.time_nanos != 0 && (m->time == 0 || h.time_nanos < m->time))
        m->time = h.time_nanos;
    m->drop_frames = min_nonempty(m, m->drop_frames, drop);
    m->keep_frames = min_nonempty(m, m->keep_frames, keep);
    m->default_sample_type = min_nonempty(m, m->default_sample_type, dst);
    m->doc_url = min_nonempty(m, m->doc_url, doc);
    for (size_t i = 0; i < h.n_comment; i++) {
        uint32_t cs;
        if ((st = map_str(c, h.comment[i], &cs, "comment[%zu]", i, 0)))
            return st;
        bool seen = false;
        for (size_t j = 0; j < m->comments.len && !seen; j++)
            seen = PPROF__AT(m->comments, uint32_t, j) == cs;
        if (!seen) {
            uint32_t *d = pprof__vec_push(&m->a, &m->comments, sizeof(uint32_t));
            if (!d)
                return nomem(m, c->err);
            *d = cs;
        }
    }
    return PPROF_OK;
}

/* The checks Go's CheckValid makes on what the merge follows: ids are non-zero and unique. */
static pprof_status
check_ids(in_ctx *c)
{
    const pprof_profile *p = c->p;
    char path[128];
    struct {
        const pprof__idmap *idx;
        const uint8_t *base;
        size_t stride, n;
        const char *name;
    } t[3] = {
        {&p->map_idx, p->mappings.data, sizeof(pprof_mapping), p->mappings.len, "mapping"},
        {&p->loc_idx, p->locations.data, sizeof(pprof__location), p->locations.len, "location"},
        {&p->fn_idx, p->functions.data, sizeof(pprof_function), p->functions.len, "function"},
    };
    for (int k = 0; k < 3; k++) {
        if (t[k].idx->dense)
            continue;
        for (size_t i = 0; i < t[k].n; i++) {
            uint64_t id = *(const uint64_t *)(t[k].base + i * t[k].stride);
            if (id == 0 || pprof__idmap_get(t[k].idx, id) != i) {
                pprof__path(path, "%s[%zu].id", t[k].name, i);
                return id == 0 ? bad(c, path, "id 0 is reserved")
                               : bad(c, path, "another %s has id %llu", t[k].name,
                                     (unsigned long long)id);
            }
        }
    }
    if ((p->samples.len || p->lazy.len) && !p->sample_types.len)
        return bad(c, "sample_type", "samples but no sample types");
    return PPROF_OK;
}

/* A merge input's samples are decoded a part at a time, so the input never holds more than one
 * part decoded (a decoded sample table is several times its encoding). */
static pprof_status
absorb_all_samples(in_ctx *c)
{
    pprof_merger *m = c->m;
    pprof_profile *p = (pprof_profile *)c->p; /* only merge inputs, which the merger may decode */
    size_t lazy = p->lazy.len / 2, total = lazy ? lazy : p->samples.len;
    if (!rebuild_s2_tables(m))
        return nomem(m, c->err);
    s2_start(m);
    merge_batch *b = &m->batch[m->s2_sent % 2];
    b->input_start = true;
    b->input = c->input;
    b->want_rest = 0;
    b->q.len = b->stk.len = b->lab.len = b->val.len = 0;
    b->n_types = m->n_types;
    size_t sbatch = total / 8 < SBATCH_MIN   ? SBATCH_MIN
                    : total / 8 > SBATCH_MAX ? SBATCH_MAX
                                             : total / 8;
    pprof_status st = PPROF_OK;
    for (size_t base = 0; base < total && st == PPROF_OK; base += PPROF__LAZY_BATCH) {
        size_t n = total - base < PPROF__LAZY_BATCH ? total - base : PPROF__LAZY_BATCH;
        if (base == PPROF__LAZY_BATCH) /* stage 2 has seen a batch's worth of this input by then */
            b->want_rest = total - base;
        if (lazy && (st = pprof__decode_samples(p, base, n, c->err))) {
            if (c->err) { /* name the input, as the merger's own errors do */
                char msg[sizeof(c->err->message)];
                snprintf(msg, sizeof(msg), "%.100s: %.150s", c->name, c->err->message);
                memcpy(c->err->message, msg, sizeof(msg));
            }
            m->failed = st;
            break;
        }
        c->sample_base = lazy ? base : 0;
        for (size_t i = lazy ? 0 : base; i < (lazy ? n : base + n); i++) {
            if ((st = s1_sample(c, i, b)))
                break;
            if (b->q.len == sbatch)
                b = s2_send(m);
        }
    }
    /* The samples before a stage-1 failure are absorbed first: an overflow among them is the
     * earlier error. */
    if (b->q.len)
        b = s2_send(m);
    s2_drain(m);
    prefault_join(&m->s2_pf); /* stage 2 is idle */
    if (m->s2_failed) {
        for (int k = 0; k < 2; k++)
            if (m->batch[k].st)
                return s2_error(c, &m->batch[k]);
    }
    return st;
}

/* Room for everything p could add, made up front: growing step by step while absorbing
 * rehashes the tables and copies the arrays several times over. */
static bool
reserve_for(pprof_merger *m, const pprof_profile *p)
{
    const pprof_allocator *a = &m->a;
    size_t ns = p->samples.len + p->lazy.len / 2, nl = p->locations.len;
    return pprof__htab_reserve(&m->str_ht, a, p->strings.len) &&
           pprof__htab_reserve(&m->map_ht, a, p->mappings.len) &&
           pprof__htab_reserve(&m->fn_ht, a, p->functions.len) &&
           pprof__htab_reserve(&m->loc_ht, a, nl) && pprof__htab_reserve(&m->addr_ht, a, nl) &&
           pprof__htab_reserve(&m->stack_ht, a, ns) && pprof__htab_reserve(&m->sample_ht, a, ns) &&
           pprof__vec_grow(a, &m->strings, sizeof(pprof_string), m->strings.len + p->strings.len) &&
           pprof__vec_grow(a, &m->functions, sizeof(mfunction),
                           m->functions.len + p->functions.len) &&
           pprof__vec_grow(a, &m->locations, sizeof(mlocation), m->locations.len + nl) &&
           pprof__vec_grow(a, &m->lines, sizeof(mline), m->lines.len + p->lines.len) &&
           pprof__vec_grow(a, &m->stacks, sizeof(mstack), m->stacks.len + ns) &&
           pprof__vec_grow(a, &m->stack, sizeof(uint32_t), m->stack.len + p->stack.len) &&
           pprof__vec_grow(a, &m->samples, sizeof(msample), m->samples.len + ns) &&
           pprof__vec_grow(a, &m->labels, sizeof(mlabel), m->labels.len + p->labels.len) &&
           pprof__vec_grow(a, &m->values, sizeof(int64_t),
                           m->values.len + ns * p->sample_types.len);
}

/* Stage 1 visits an input's tables in the order its samples name them, and another thread
 * decoded them, so nearly every first visit was a cache miss (a location, its lines, their
 * functions, their strings: about 220 ns per location on the 2-core VM). Prefetching the
 * tables as streams first lets those visits hit: merging 100 small profiles, absorbing took
 * 0.344 -> 0.312 s (median of 10). Tables beyond any cache gain nothing and are left. */
#define WARM_MAX ((size_t)16 << 20)

static void
warm_input(const pprof_profile *p)
{
    size_t nloc = p->locations.len * sizeof(pprof__location),
           nline = p->lines.len * sizeof(pprof_line),
           nfn = p->functions.len * sizeof(pprof_function),
           nstr = p->strings.len * sizeof(pprof_string);
    if (nloc + nline + nfn + 2 * nstr > WARM_MAX)
        return;
    prefetch_range(p->locations.data, nloc);
    prefetch_range(p->lines.data, nline);
    prefetch_range(p->functions.data, nfn);
    prefetch_range(p->strings.data, nstr);
    uintptr_t last = 0; /* the bytes, one prefetch per cache line they start in */
    for (size_t i = 0; i < p->strings.len; i++) {
        const char *d = PPROF__AT(p->strings, pprof_string, i).data;
        if ((uintptr_t)d >> 6 != last) {
            __builtin_prefetch(d);
            last = (uintptr_t)d >> 6;
        }
    }
}

pprof_status
pprof_merger_add(pprof_merger *m, const pprof_profile *p, const char *name, pprof_error *err)
{
    if (!m || !p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no profile");
    if (m->failed)
        return pprof__error(err, m->failed, PPROF_NO_OFFSET, "",
                            "the merger failed earlier and cannot be used");
    if (m->n_inputs >= UINT32_MAX - 1)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "", "too many inputs");
    char anon[32];
    if (!name) {
        snprintf(anon, sizeof(anon), "input #%zu", m->n_inputs + 1);
        name = anon;
    }
    /* The id index is a cache: building it does not change what the profile means. */
    pprof_status st = pprof__profile_index((pprof_profile *)p, err);
    if (st)
        return st;

    size_t nl = strlen(name);
    char *name_copy = pprof__arena_alloc(&m->arena, nl + 1);
    const char **slot = pprof__vec_push(&m->a, &m->names, sizeof(const char *));
    if (!name_copy || !slot)
        return nomem(m, err);
    memcpy(name_copy, name, nl + 1);
    *slot = name_copy;

    in_ctx c = {.m = m, .p = p, .name = name_copy, .input = (uint32_t)m->n_inputs, .err = err};
    size_t n_types = p->sample_types.len;
    c.str_memo = pprof__malloc(&m->a, (p->strings.len + 1) * sizeof(uint32_t));
    c.map_memo = pprof__malloc(&m->a, (p->mappings.len + 1) * sizeof(uint32_t));
    c.fn_memo = pprof__malloc(&m->a, (p->functions.len + 1) * sizeof(uint32_t));
    c.loc_memo = pprof__malloc(&m->a, (p->locations.len + 1) * sizeof(uint32_t));
    c.col_of = pprof__malloc(&m->a, (n_types + 1) * sizeof(int32_t));
    uint32_t *types = pprof__malloc(&m->a, (2 * n_types + 1) * sizeof(uint32_t));
    if (!c.str_memo || !c.map_memo || !c.fn_memo || !c.loc_memo || !c.col_of || !types) {
        st = nomem(m, err);
        goto done;
    }
    memset(c.str_memo, 0xff, (p->strings.len + 1) * sizeof(uint32_t));
    memset(c.fn_memo, 0xff, (p->functions.len + 1) * sizeof(uint32_t));
    memset(c.loc_memo, 0xff, (p->locations.len + 1) * sizeof(uint32_t));
    if ((st = check_ids(&c)))
        goto done;
    if (!reserve_for(m, p)) {
        st = nomem(m, err);
        goto done;
    }
    for (size_t i = 0; i < n_types; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        if ((st = map_str(&c, vt.type, &types[2 * i], "sample_type[%zu].type", i, 0)) ||
            (st = map_str(&c, vt.unit, &types[2 * i + 1], "sample_type[%zu].unit", i, 0)))
            goto done;
    }
    if ((st = absorb_header(&c)) || (st = absorb_types(&c, types, n_types)))
        goto done;
    /* Every mapping is kept (not only referenced ones) so that the canonical base address of a
     * mapping never depends on which samples cancelled out in an intermediate merge. */
    for (size_t i = 0; i < p->mappings.len; i++)
        if ((st = map_mapping(&c, i)))
            goto done;
    warm_input(p);
    preresolve(&c);
    if ((st = absorb_all_samples(&c)))
        goto done;
    if (c.n_conflicts)
        warn(m,
             "%s: inline conflict at %zu location(s): the same address expands into different "
             "inline frames (policy %s); e.g. %s",
             c.name, c.n_conflicts,
             m->o.inline_conflict == PPROF_INLINE_LONGEST ? "longest" : "keep", c.conflict_example);
    m->n_inputs++;
done:
    pprof__free(&m->a, c.str_memo);
    pprof__free(&m->a, c.map_memo);
    pprof__free(&m->a, c.fn_memo);
    pprof__free(&m->a, c.loc_memo);
    pprof__free(&m->a, c.col_of);
    pprof__free(&m->a, types);
    if (st && !m->failed)
        m->failed = st;
    return st;
}

pprof_status
pprof_merger_add_input(pprof_merger *m, pprof_merge_input *in, const char *name, pprof_error *err)
{
    if (!in)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merge input");
    return pprof_merger_add(m, in->p, name, err);
}

/* ------------------------------------------------------------------ canonical output */

/* Stable merge sort of uint32 items with a context comparator (qsort_r is not portable). */
typedef int (*cmp_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Merges the sorted runs v[0, h) and v[h, n), stably; tmp holds h items. */
static void
merge_halves(uint32_t *v, uint32_t *tmp, size_t h, size_t n, cmp_fn cmp, const void *ctx)
{
    if (cmp(ctx, v[h - 1], v[h]) <= 0)
        return;
    memcpy(tmp, v, h * sizeof(uint32_t));
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        v[k++] = cmp(ctx, v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];
    while (i < h)
        v[k++] = tmp[i++];
}

static void
msort(uint32_t *v, uint32_t *tmp, size_t n, cmp_fn cmp, const void *ctx)
{
    if (n < 16) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = v[i];
            size_t k = i;
            while (k > 0 && cmp(ctx, v[k - 1], x) > 0) {
                v[k] = v[k - 1];
                k--;
            }
            v[k] = x;
        }
        return;
    }
    size_t h = n / 2;
    msort(v, tmp, h, cmp, ctx);
    msort(v + h, tmp, n - h, cmp, ctx);
    merge_halves(v, tmp, h, n, cmp, ctx);
}

typedef struct sort_job {
    uint32_t *v, *tmp;
    size_t n;
    cmp_fn cmp;
    const void *ctx;
} sort_job;

static void
sort_half(void *c, size_t lo, size_t hi)
{
    const sort_job *j = c;
    size_t h = j->n / 2; /* where msort splits, so the result is the same as one msort's */
    for (size_t k = lo; k < hi; k++) {
        if (k == 0)
            msort(j->v, j->tmp, h, j->cmp, j->ctx);
        else
            msort(j->v + h, j->tmp + h, j->n - h, j->cmp, j->ctx);
    }
}

/* msort with its two halves sorted at once (tmp needs n entries here, not n / 2). */
static void
psort(uint32_t *v, uint32_t *tmp, size_t n, cmp_fn cmp, const void *ctx, unsigned threads)
{
    if (threads < 2 || n < 4096) {
        msort(v, tmp, n, cmp, ctx);
        return;
    }
    sort_job j = {v, tmp, n, cmp, ctx};
    pprof__par_for(2, 2, 1, sort_half, &j);
    merge_halves(v, tmp, n / 2, n, cmp, ctx);
}

typedef struct fin {
    const pprof_merger *m;
    uint32_t *srank;  /* string id -> rank by content */
    uint32_t *mrank;  /* mapping -> output position (0-based) */
    uint32_t *frank;  /* function -> rank */
    uint32_t *lrank;  /* location -> rank */
    uint32_t *target; /* location -> location it is rewritten to (inline policy longest) */
    uint32_t *strank; /* distinct stack -> rank (equal ranks for stacks made equal) */
} fin;

static int
cmp_str(const void *ctx, uint32_t a, uint32_t b)
{
    const fin *f = ctx;
    return str_cmp(mstr(f->m, a), mstr(f->m, b));
}

#define CMP(x, y)                                                                                  \
    do {                                                                                           \
        if ((x) != (y))                                                                            \
            return (x) < (y) ? -1 : 1;                                                             \
    } while (0)

static int
cmp_mapping(const void *ctx, uint32_t a, uint32_t b)
{
    const fin *f = ctx;
    const mmapping *x = &PPROF__AT(f->m->mappings, mmapping, a);
    const mmapping *y = &PPROF__AT(f->m->mappings, mmapping, b);
    CMP(x->size, y->size);
    CMP(x->offset, y->offset);
    CMP(f->srank[x->key_str], f->srank[y->key_str]);
    return 0;
}

static int
cmp_function(const void *ctx, uint32_t a, uint32_t b)
{
    const fin *f = ctx;
    const mfunction *x = &PPROF__AT(f->m->functions, mfunction, a);
    const mfunction *y = &PPROF__AT(f->m->functions, mfunction, b);
    CMP(f->srank[x->name], f->srank[y->name]);
    CMP(f->srank[x->system_name], f->srank[y->system_name]);
    CMP(f->srank[x->filename], f->srank[y->filename]);
    CMP(x->start_line, y->start_line);
    return 0;
}

static int
cmp_location(const void *ctx, uint32_t a, uint32_t b)
{
    const fin *f = ctx;
    const mlocation *x = &PPROF__AT(f->m->locations, mlocation, a);
    const mlocation *y = &PPROF__AT(f->m->locations, mlocation, b);
    uint64_t mx = x->mapping == PPROF_NONE ? 0 : (uint64_t)f->mrank[x->mapping] + 1;
    uint64_t my = y->mapping == PPROF_NONE ? 0 : (uint64_t)f->mrank[y->mapping] + 1;
    CMP(mx, my);
    CMP(x->rel, y->rel);
    CMP(x->folded, y->folded);
    const mline *lx = (const mline *)f->m->lines.data + x->line_off;
    const mline *ly = (const mline *)f->m->lines.data + y->line_off;
    for (uint32_t i = 0; i < x->n_line && i < y->n_line; i++) {
        CMP(f->frank[lx[i].fn], f->frank[ly[i].fn]);
        CMP(lx[i].line, ly[i].line);
        CMP(lx[i].column, ly[i].column);
    }
    CMP(x->n_line, y->n_line);
    return 0;
}

/* The ranks of frames [from, from + per) of a stack packed into one integer, most significant
 * first, each as rank + 1 in `bits` bits and 0 past the stack's end: keys order those frames
 * as canonical order does, rank by rank, and a stack that ends before one that goes on. */
static inline uint64_t
stack_key(const fin *f, uint32_t s, uint32_t from, unsigned bits, unsigned per)
{
    const mstack *x = &PPROF__AT(f->m->stacks, mstack, s);
    const uint32_t *st = (const uint32_t *)f->m->stack.data + x->off;
    uint64_t k = 0;
    for (uint32_t j = from; j < from + per; j++)
        k = (k << bits) | (j < x->n ? (uint64_t)f->lrank[f->target[st[j]]] + 1 : 0);
    return k;
}

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)

/* Stable sort of n (key, item) pairs: insertion sort when short, else LSD radix sort that skips
 * digits every key shares. kt and vt are scratch of n entries; cnt has RADIX. */
static void
sort_pairs(uint64_t *k, uint32_t *v, uint64_t *kt, uint32_t *vt, size_t n, uint32_t *cnt)
{
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = k[i];
            uint32_t y = v[i];
            size_t j = i;
            for (; j > 0 && k[j - 1] > x; j--) {
                k[j] = k[j - 1];
                v[j] = v[j - 1];
            }
            k[j] = x;
            v[j] = y;
        }
        return;
    }
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        any |= k[i];
        all &= k[i];
    }
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        if ((((any ^ all) >> shift) & (RADIX - 1)) == 0) /* the same digit in every key */
            continue;
        memset(cnt, 0, RADIX * sizeof(uint32_t));
        for (size_t i = 0; i < n; i++)
            cnt[(k[i] >> shift) & (RADIX - 1)]++;
        uint32_t sum = 0;
        for (size_t d = 0; d < RADIX; d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t at = cnt[(k[i] >> shift) & (RADIX - 1)]++;
            kt[at] = k[i];
            vt[at] = v[i];
        }
        memcpy(k, kt, n * sizeof(uint64_t));
        memcpy(v, vt, n * sizeof(uint32_t));
    }
}

typedef struct stack_run {
    uint32_t lo, hi, from; /* ord[lo, hi) share frames [0, from) */
} stack_run;

typedef struct stack_sort {
    const fin *f;
    uint32_t *ord, *tmp; /* tmp: scratch of n */
    uint64_t *key, *kt;  /* kt: scratch of n */
    uint8_t *brk;        /* brk[i]: ord[i] differs from ord[i - 1] */
    uint32_t *rest;      /* rest[lo]: end of a first-level run to sort on, else 0 */
    unsigned bits, per;
    bool failed; /* a part ran out of memory (set atomically) */
} stack_sort;

/* Sorts run r by its next key; the runs of equal keys whose stacks go on are pushed on work,
 * or (rest, the first level) recorded there. Runs are disjoint, and so is all they touch. */
static bool
sort_run(stack_sort *j, stack_run r, uint32_t *cnt, pprof__vec *work, bool keys_done)
{
    const pprof_allocator *a = &j->f->m->a;
    if (!keys_done)
        for (uint32_t i = r.lo; i < r.hi; i++)
            j->key[i] = stack_key(j->f, j->ord[i], r.from, j->bits, j->per);
    sort_pairs(j->key + r.lo, j->ord + r.lo, j->kt + r.lo, j->tmp + r.lo, r.hi - r.lo, cnt);
    for (uint32_t i = r.lo; i < r.hi;) {
        uint32_t k = i + 1;
        while (k < r.hi && j->key[k] == j->key[i])
            k++;
        if (i > r.lo)
            j->brk[i] = 1;
        /* equal keys that hold a last frame: their stacks may go on */
        if (k - i > 1 && (j->key[i] & (((uint64_t)1 << j->bits) - 1)) != 0) {
            if (!work) {
                j->rest[i] = k;
            } else {
                stack_run *w = pprof__vec_push(a, work, sizeof(stack_run));
                if (!w)
                    return false;
                *w = (stack_run){i, k, r.from + j->per};
            }
        }
        i = k;
    }
    return true;
}

static void
first_keys(void *c, size_t lo, size_t hi)
{
    stack_sort *j = c;
    for (size_t i = lo; i < hi; i++)
        j->key[i] = stack_key(j->f, (uint32_t)i, 0, j->bits, j->per);
}

/* The first-level runs that start in [lo, hi), each sorted to the end. */
static void
sort_rest(void *c, size_t lo, size_t hi)
{
    stack_sort *j = c;
    const pprof_allocator *a = &j->f->m->a;
    uint32_t *cnt = pprof__malloc(a, RADIX * sizeof(uint32_t));
    pprof__vec work = {0};
    bool ok = cnt != NULL;
    for (size_t i = lo; ok && i < hi; i++) {
        if (!j->rest[i])
            continue;
        stack_run *w = pprof__vec_push(a, &work, sizeof(stack_run));
        ok = w != NULL;
        if (w)
            *w = (stack_run){(uint32_t)i, j->rest[i], j->per};
        while (ok && work.len)
            ok = sort_run(j, PPROF__AT(work, stack_run, --work.len), cnt, &work, false);
    }
    if (!ok)
        __atomic_store_n(&j->failed, true, __ATOMIC_RELAXED);
    pprof__free(a, cnt);
    pprof__free(a, work.data);
}

/* Stacks in canonical order: the order of their location ranks frame by frame, a stack before
 * any longer one it begins (ties in index order, as a stable comparison sort gives), found
 * without comparing stacks: a stable sort by the first frames packed in one key (stack_key),
 * then each run of equal keys whose stacks go on sorted by the next frames' key, and so on.
 * Each stack's frames are read once per level, in order; the comparison sort this replaces
 * read two stacks at random for every comparison (20-45 ms of ordering 150 k stacks). The
 * first keys, and the runs they leave, are shared out among the threads.
 * Ranks go to f->strank (stacks made equal share one); returns the number of ranks, or
 * SIZE_MAX when out of memory. */
static size_t
sort_stacks(const fin *f, uint32_t *ord, uint32_t *tmp, size_t n)
{
    const pprof_merger *m = f->m;
    const pprof_allocator *a = &m->a;
    unsigned bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) <= m->locations.len)
        bits++;
    stack_sort j = {.f = f, .ord = ord, .tmp = tmp, .bits = bits, .per = 64 / bits};
    j.key = pprof__malloc(a, (n + 1) * sizeof(uint64_t));
    j.kt = pprof__malloc(a, (n + 1) * sizeof(uint64_t));
    j.brk = pprof__malloc(a, n + 1);
    j.rest = pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    uint32_t *cnt = pprof__malloc(a, RADIX * sizeof(uint32_t));
    size_t ranks = SIZE_MAX;
    if (!j.key || !j.kt || !j.brk || !j.rest || !cnt)
        goto done;
    memset(j.brk, 0, n + 1);
    memset(j.rest, 0, (n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        ord[i] = (uint32_t)i;
    if (n > 1) {
        pprof__par_for(m->o.threads, n, 8192, first_keys, &j);
        sort_run(&j, (stack_run){0, (uint32_t)n, 0}, cnt, NULL, true);
        pprof__par_for(m->o.threads, n, 8192, sort_rest, &j);
        if (j.failed)
            goto done;
    }
    ranks = 0;
    for (size_t i = 0; i < n; i++) {
        ranks += j.brk[i];
        f->strank[ord[i]] = (uint32_t)ranks;
    }
    ranks += n != 0;
done:
    pprof__free(a, j.key);
    pprof__free(a, j.kt);
    pprof__free(a, j.brk);
    pprof__free(a, j.rest);
    pprof__free(a, cnt);
    return ranks;
}

/* Labels of two samples (ranked), the second part of the sample key. */
static int
cmp_labels(const void *ctx, uint32_t a, uint32_t b)
{
    const fin *f = ctx;
    const msample *x = &PPROF__AT(f->m->samples, msample, a);
    const msample *y = &PPROF__AT(f->m->samples, msample, b);
    const mlabel *labs = f->m->labels.data;
    const mlabel *lx = labs + x->lab_off, *ly = labs + y->lab_off;
    const uint32_t *r = f->srank;
    for (uint32_t i = 0; i < x->n_lab && i < y->n_lab; i++) {
        CMP(r[lx[i].key], r[ly[i].key]);
        CMP(r[lx[i].str], r[ly[i].str]);
        CMP(lx[i].num, ly[i].num);
        CMP(r[lx[i].unit], r[ly[i].unit]);
    }
    CMP(x->n_lab, y->n_lab);
    return 0;
}

typedef struct runs_job {
    const fin *f;
    uint32_t *out, *tmp;
    const uint32_t *pos;
} runs_job;

static void
sort_runs(void *c, size_t lo, size_t hi)
{
    const runs_job *j = c;
    const msample *ss = j->f->m->samples.data;
    const mlabel *labs = j->f->m->labels.data;
    size_t first = lo ? j->pos[lo - 1] : 0, last = hi ? j->pos[hi - 1] : 0;
    size_t rec_at = first, lab_at = first; /* how far records and labels were fetched */
    for (size_t r = lo; r < hi; r++) {
        size_t start = r ? j->pos[r - 1] : 0, end = j->pos[r];
        /* The runs' samples lie at random, and most runs hold one or two: their records are
         * fetched 32 samples ahead, their labels 16 ahead (the records are there by then). */
        for (; rec_at < last && rec_at < end + 32; rec_at++)
            __builtin_prefetch(&ss[j->out[rec_at]]);
        for (; lab_at < last && lab_at < end + 16; lab_at++)
            __builtin_prefetch(&labs[ss[j->out[lab_at]].lab_off]);
        if (end - start > 1) /* tmp at the run's own offset: runs never share scratch */
            msort(j->out + start, j->tmp + start, end - start, cmp_labels, j->f);
    }
}

/* Samples in canonical order (stack rank, then labels): a stable counting sort by stack rank,
 * then each run of one rank (a few samples that differ in labels) sorted by labels. No full-key
 * comparison crosses stacks, and the rank pass reads the samples sequentially. */
static bool
order_samples(const fin *f, size_t n, size_t n_ranks, uint32_t *tmp, uint32_t *out)
{
    const pprof_merger *m = f->m;
    uint32_t *pos = pprof__malloc(&m->a, (n_ranks + 1) * sizeof(uint32_t));
    if (!pos)
        return false;
    memset(pos, 0, (n_ranks + 1) * sizeof(uint32_t));
    const msample *ss = m->samples.data;
    for (size_t i = 0; i < n; i++)
        pos[f->strank[ss[i].stack] + 1]++;
    for (size_t r = 0; r < n_ranks; r++)
        pos[r + 1] += pos[r];
    for (size_t i = 0; i < n; i++)
        out[pos[f->strank[ss[i].stack]]++] = (uint32_t)i;
    /* pos[r] is now the end of rank r's run; the runs are sorted independently */
    runs_job j = {f, out, tmp, pos};
    pprof__par_for(m->o.threads, n_ranks, 8192, sort_runs, &j);
    pprof__free(&m->a, pos);
    return true;
}

static uint32_t *
order(const pprof_merger *m, size_t n, cmp_fn cmp, const fin *f, uint32_t *tmp)
{
    uint32_t *v = pprof__malloc(&m->a, (n + 1) * sizeof(uint32_t));
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    psort(v, tmp, n, cmp, f, m->o.threads); /* tmp holds nmax + 1 entries */
    return v;
}

static bool
lines_same(const pprof_merger *m, const mlocation *a, const mlocation *b)
{
    return a->n_line == b->n_line &&
           lines_equal((const mline *)m->lines.data + a->line_off,
                       (const mline *)m->lines.data + b->line_off, a->n_line);
}

/* The loops of finish that may run on several threads (m->o.threads): each writes only its own
 * range of the output, so the result does not depend on the split. */

typedef struct fill_job {
    const fin *f;
    const uint32_t *stord;
    const uint8_t *live;
    const uint32_t *ostk_off, *lout;
    uint64_t *ostk;
} fill_job;

/* Output location ids of the first stack of each live rank, at the rank's offset. */
static void
fill_stacks(void *c, size_t lo, size_t hi)
{
    const fill_job *j = c;
    const fin *f = j->f;
    const uint32_t *stack = f->m->stack.data;
    for (size_t i = lo; i < hi; i++) {
        uint32_t r = f->strank[j->stord[i]];
        if (!j->live[r] || (i && f->strank[j->stord[i - 1]] == r))
            continue;
        const mstack *x = &PPROF__AT(f->m->stacks, mstack, j->stord[i]);
        uint64_t *o = j->ostk + j->ostk_off[r];
        for (uint32_t k = 0; k < x->n; k++)
            o[k] = j->lout[f->target[stack[x->off + k]]];
    }
}

typedef struct out_job {
    const fin *f;
    const uint32_t *sout, *soff, *ostk_off;
    pprof__sample *osam;
    pprof_label *olab;
    size_t nt;
} out_job;

static void
out_samples(void *c, size_t lo, size_t hi)
{
    const out_job *j = c;
    const fin *f = j->f;
    const msample *ss = f->m->samples.data;
    for (size_t i = lo; i < hi; i++) {
        if (i + 16 < hi) /* canonical order visits the samples at random */
            __builtin_prefetch(&ss[j->sout[i + 16]]);
        if (i + 8 < hi) /* and their labels */
            __builtin_prefetch((const mlabel *)f->m->labels.data + ss[j->sout[i + 8]].lab_off);
        const msample *s = &ss[j->sout[i]];
        pprof__sample *o = &j->osam[i];
        o->loc_off = j->ostk_off[f->strank[s->stack]];
        o->n_loc = PPROF__AT(f->m->stacks, mstack, s->stack).n;
        o->val_off = (uint32_t)(i * j->nt);
        o->n_val = (uint32_t)j->nt;
        o->lab_off = j->soff[i];
        o->n_lab = s->n_lab;
        const mlabel *ml = (const mlabel *)f->m->labels.data + s->lab_off;
        const uint32_t *r = f->srank;
        pprof_label *ol = j->olab + j->soff[i];
        for (uint32_t k = 0; k < s->n_lab; k++) {
            pprof_label x = {r[ml[k].key], r[ml[k].str], ml[k].num, r[ml[k].unit]};
            ol[k] = x;
        }
    }
}

/* Writing straight out: the output profile is built without its samples, and the encoder takes
 * them from here, one at a time, as finish would have laid them out. */
typedef struct merge_sink {
    const char *path;  /* pprof_merger_write_file */
    pprof_buffer *mem; /* pprof_merger_write_memory */
    const pprof_write_options *opts;
    pprof_merge_summary *sum;
} merge_sink;

typedef struct sample_gen {
    const fin *f;
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

static void
gen_sample(void *ctx, size_t i, pprof_sample *out, bool *same, const uint8_t **packed,
           size_t *packed_len)
{
    sample_gen *g = ctx;
    const pprof_merger *m = g->f->m;
    const msample *ss = m->samples.data;
    const mlabel *labs = m->labels.data;
    const uint32_t *stack = m->stack.data;
    const mstack *sts = m->stacks.data;
    /* canonical order visits the samples at random: records, then their stacks and labels */
    if (i + 16 < g->n)
        __builtin_prefetch(&ss[g->sout[i + 16]]);
    if (i + 8 < g->n) {
        const msample *ahead = &ss[g->sout[i + 8]];
        __builtin_prefetch(&sts[ahead->stack]);
        __builtin_prefetch(&labs[ahead->lab_off]);
        if (!g->vals)
            __builtin_prefetch((const int64_t *)m->values.data + (size_t)g->sout[i + 8] * g->nt);
    }
    if (i + 4 < g->n) { /* the whole stack: deep ones span several lines */
        const mstack *xa = &sts[ss[g->sout[i + 4]].stack];
        prefetch_range(&stack[xa->off], xa->n * sizeof(uint32_t));
    }
    const msample *s = &ss[g->sout[i]];
    const mstack *x = &sts[s->stack];
    const uint32_t *r = g->f->srank;
    *same = s->stack == g->loc_sid;
    if (!*same) {
        uint8_t *q = g->packed;
        for (uint32_t k = 0; k < x->n; k++) {
            uint64_t w = g->lenc[stack[x->off + k]];
            memcpy(q, &w, 8); /* the slack takes the bytes past the varint */
            q += w >> 56;
        }
        g->packed_len = (size_t)(q - g->packed);
        g->loc_sid = s->stack;
    }
    *packed = g->packed;
    *packed_len = g->packed_len;
    const mlabel *ml = labs + s->lab_off;
    for (uint32_t k = 0; k < s->n_lab; k++) {
        pprof_label l = {r[ml[k].key], r[ml[k].str], ml[k].num, r[ml[k].unit]};
        g->lab[k] = l;
    }
    const int64_t *v = g->vals ? g->vals + i * g->nt
                               : (const int64_t *)m->values.data + (size_t)g->sout[i] * g->nt;
    pprof_sample o = {NULL, x->n, v, g->nt, g->lab, s->n_lab};
    *out = o;
}

static pprof_status emit(pprof_merger *m, const merge_sink *sink, pprof_profile **out,
                         pprof_error *err);

/* Adds sample's carries to cy (one per column); *first keeps the first carry seen. */
static void
carries_of(const pprof_merger *m, uint32_t sample, size_t nt, int64_t *cy, const carry **first)
{
    for (size_t t = 0; m->carries.len && t < nt; t++) {
        const carry *c = carry_find(m, (uint64_t)sample * nt + t);
        if (c) {
            cy[t] += c->n;
            if (!*first && c->n)
                *first = c;
        }
    }
}

/* A summed value left int64: names the type, the leaf function and, when the sums of one input
 * wrapped, that input and its sample with the first wrapping addition. */
static pprof_status
overflow_error(const pprof_merger *m, const carry *c, uint32_t sample, size_t t, pprof_error *err)
{
    const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, t);
    const pprof_string *tn = mstr(m, (uint32_t)vt->type);
    const pprof_string *leaf = mstr(m, 0);
    const mstack *x = &PPROF__AT(m->stacks, mstack, PPROF__AT(m->samples, msample, sample).stack);
    if (x->n) {
        const mlocation *l0 =
            &PPROF__AT(m->locations, mlocation, PPROF__AT(m->stack, uint32_t, x->off));
        if (l0->n_line)
            leaf = mstr(
                m, PPROF__AT(m->functions, mfunction, PPROF__AT(m->lines, mline, l0->line_off).fn)
                       .name);
    }
    char path[128] = "";
    char first[200] = "after inline expansions were unified";
    if (c) {
        snprintf(path, sizeof(path), "sample[%u]", c->si);
        snprintf(first, sizeof(first), "first past the limit in %s (%lld + %lld)",
                 input_name(m, c->input), (long long)c->sum, (long long)c->add);
    }
    return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                        "%.*s total of the sample with leaf '%.*s' overflows int64: %s",
                        (int)(tn->len > 40 ? 40 : tn->len), tn->data,
                        (int)(leaf->len > 80 ? 80 : leaf->len), leaf->data, first);
}

pprof_status
pprof_merger_finish(pprof_merger *m, pprof_profile **out, pprof_error *err)
{
    if (!m || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no output");
    *out = NULL;
    return emit(m, NULL, out, err);
}

pprof_status
pprof_merger_write_file(pprof_merger *m, const char *path, const pprof_write_options *opts,
                        pprof_merge_summary *sum, pprof_error *err)
{
    if (!m || !path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no path");
    merge_sink sink = {path, NULL, opts, sum};
    return emit(m, &sink, NULL, err);
}

pprof_status
pprof_merger_write_memory(pprof_merger *m, const pprof_write_options *opts, pprof_buffer *out,
                          pprof_merge_summary *sum, pprof_error *err)
{
    if (!m || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no output");
    merge_sink sink = {NULL, out, opts, sum};
    return emit(m, &sink, NULL, err);
}

/* Emits the merged profile into *out, or with a sink writes it out without its sample table. */
static pprof_status
emit(pprof_merger *m, const merge_sink *sink, pprof_profile **out, pprof_error *err)
{
    if (m->failed)
        return pprof__error(err, m->failed, PPROF_NO_OFFSET, "",
                            "the merger failed earlier and cannot be used");
    if (m->n_inputs == 0)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profiles to merge");
    for (size_t i = 0; i < m->type_bad.len; i++) {
        const unit_clash *bad = &PPROF__AT(m->type_bad, unit_clash, i);
        if (bad->input == PPROF_NONE)
            continue;
        const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, i);
        const pprof_string *t = mstr(m, (uint32_t)vt->type);
        const pprof_string *u1 = mstr(m, (uint32_t)vt->unit), *u2 = mstr(m, bad->unit);
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "incompatible units for sample type '%.*s': %s has '%.*s' but %s "
                            "has '%.*s'",
                            (int)t->len, t->data, input_name(m, bad->input), (int)u2->len, u2->data,
                            input_name(m, m->first_input), (int)u1->len, u1->data);
    }
    if (m->duration_carry != 0)
        return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "duration_nanos",
                            "the summed duration overflows int64 (first past the limit with %s)",
                            input_name(m, m->duration_input));

    const pprof_allocator *a = &m->a;
    size_t ns = m->strings.len, nm = m->mappings.len, nf = m->functions.len, nl = m->locations.len,
           nsm = m->samples.len, nt = m->n_types;
    size_t nmax = ns;
    if (nm > nmax)
        nmax = nm;
    if (nf > nmax)
        nmax = nf;
    if (nl > nmax)
        nmax = nl;
    if (nsm > nmax)
        nmax = nsm;
    pprof_status st = PPROF_E_NOMEM;
    bool reported = false;
    pprof_profile *p = NULL;
    pprof_buffer raw = {0};
    prefault pf = {0};
    fin f = {.m = m};
    uint32_t *tmp = pprof__malloc(a, (nmax + 1) * sizeof(uint32_t));
    uint32_t *stord = NULL, *sttmp = NULL;
    uint32_t *sord = NULL, *mord = NULL, *ford = NULL, *lord = NULL, *smord = NULL;
    uint32_t *lout = NULL, *fout = NULL, *sout = NULL, *soff = NULL;
    uint8_t *lreach = NULL, *live = NULL, *lused = NULL;
    uint64_t *ostk = NULL;
    uint32_t *ostk_off = NULL;
    int64_t *vals = NULL, *cyt = NULL;
    f.srank = pprof__malloc(a, (ns + 1) * sizeof(uint32_t));
    f.mrank = pprof__malloc(a, (nm + 1) * sizeof(uint32_t));
    f.frank = pprof__malloc(a, (nf + 1) * sizeof(uint32_t));
    f.lrank = pprof__malloc(a, (nl + 1) * sizeof(uint32_t));
    f.target = pprof__malloc(a, (nl + 1) * sizeof(uint32_t));
    smord = pprof__malloc(a, (nsm + 1) * sizeof(uint32_t));
    /* The summed values in output order: what finish's profile takes, and where samples made
     * equal are combined; written straight out otherwise, they are read where they are. */
    const bool own_vals = !sink || m->o.inline_conflict == PPROF_INLINE_LONGEST;
    if (own_vals)
        vals = pprof__malloc(a, (nsm * nt + 1) * sizeof(int64_t));
    sout = pprof__malloc(a, (nsm + 1) * sizeof(uint32_t));
    soff = pprof__malloc(a, (nsm + 1) * sizeof(uint32_t));
    if (!tmp || !f.srank || !f.mrank || !f.frank || !f.lrank || !f.target || !smord ||
        (own_vals && !vals) || !sout || !soff)
        goto fail;
    prefault_add(&pf, smord, nsm * sizeof(uint32_t));
    if (vals)
        prefault_add(&pf, vals, nsm * nt * sizeof(int64_t));
    prefault_add(&pf, sout, nsm * sizeof(uint32_t));
    prefault_add(&pf, soff, nsm * sizeof(uint32_t));
    if (sink && sink->path) {
        /* the encoding buffer, sized for the largest output this merger can give (every table
         * whole), faulted in as far as the output is likely to fill it */
        size_t string_bytes = 0;
        for (size_t i = 0; i < ns; i++)
            string_bytes += mstr(m, (uint32_t)i)->len;
        pprof__encoded_counts c = {m->comments.len, nt, nm, nf, nl, m->lines.len, ns, string_bytes,
                                   m->sample_bound};
        size_t guess = m->sample_guess + 16 * (nl + m->lines.len + nf) + 2 * ns + string_bytes;
        if (pprof__buffer_reserve_in(a, &raw, pprof__encoded_bound_of(&c)))
            prefault_add(&pf, raw.data, guess < raw.cap ? guess : raw.cap);
    }
    prefault_start(&pf, m->o.threads);

    /* strings, then mappings (main candidate first), functions, locations, samples */
    if (!(sord = order(m, ns, cmp_str, &f, tmp)))
        goto fail;
    for (size_t i = 0; i < ns; i++)
        f.srank[sord[i]] = (uint32_t)i;
    if (!(mord = order(m, nm, cmp_mapping, &f, tmp)))
        goto fail;
    for (size_t i = 0; i < nm; i++) {
        if (PPROF__AT(m->mappings, mmapping, mord[i]).main_candidate) {
            uint32_t x = mord[i]; /* the smallest main candidate becomes mapping[0] */
            memmove(mord + 1, mord, i * sizeof(uint32_t));
            mord[0] = x;
            break;
        }
    }
    for (size_t i = 0; i < nm; i++)
        f.mrank[mord[i]] = (uint32_t)i;
    if (!(ford = order(m, nf, cmp_function, &f, tmp)))
        goto fail;
    for (size_t i = 0; i < nf; i++)
        f.frank[ford[i]] = (uint32_t)i;
    if (!(lord = order(m, nl, cmp_location, &f, tmp)))
        goto fail;
    for (size_t i = 0; i < nl; i++) {
        f.lrank[lord[i]] = (uint32_t)i;
        f.target[i] = (uint32_t)i;
    }
    if (m->o.inline_conflict == PPROF_INLINE_LONGEST) {
        /* Groups of one (mapping, address) are adjacent in canonical order; the longest
         * expansion wins, the canonically first among equals. Only expansions that a sample
         * with a non-zero value uses compete: one whose samples cancelled out is missing from
         * an intermediate merge's output, so it must not decide the direct merge either. */
        if (!(lused = pprof__malloc(a, nl + 1)))
            goto fail;
        memset(lused, 0, nl + 1);
        const msample *ms = m->samples.data;
        const int64_t *msv = m->values.data;
        for (size_t i = 0; i < nsm; i++) {
            bool nonzero = false;
            for (size_t t = 0; t < nt && !nonzero; t++) {
                const carry *cy = carry_find(m, i * nt + t); /* wrapped to 0 is not 0 */
                nonzero = msv[i * nt + t] != 0 || (cy && cy->n);
            }
            const mstack *x = &PPROF__AT(m->stacks, mstack, ms[i].stack);
            for (uint32_t k = 0; nonzero && k < x->n; k++)
                lused[PPROF__AT(m->stack, uint32_t, x->off + k)] = 1;
        }
        for (size_t i = 0; i < nl;) {
            const mlocation *x = &PPROF__AT(m->locations, mlocation, lord[i]);
            size_t j = i + 1;
            while (j < nl) {
                const mlocation *y = &PPROF__AT(m->locations, mlocation, lord[j]);
                if (y->mapping != x->mapping || y->rel != x->rel)
                    break;
                j++;
            }
            uint32_t best = PPROF_NONE;
            for (size_t k = i; x->rel != 0 && j - i > 1 && k < j; k++)
                if (lused[lord[k]] &&
                    (best == PPROF_NONE || PPROF__AT(m->locations, mlocation, lord[k]).n_line >
                                               PPROF__AT(m->locations, mlocation, best).n_line))
                    best = lord[k];
            if (best != PPROF_NONE) {
                const mlocation *b = &PPROF__AT(m->locations, mlocation, best);
                for (size_t k = i; k < j; k++)
                    if (!lines_same(m, &PPROF__AT(m->locations, mlocation, lord[k]), b))
                        f.target[lord[k]] = best;
            }
            i = j;
        }
    }
    const uint32_t *stack = m->stack.data;
    size_t nst = m->stacks.len;
    if (!(f.strank = pprof__malloc(a, (nst + 1) * sizeof(uint32_t))) ||
        !(stord = pprof__malloc(a, (nst + 1) * sizeof(uint32_t))) ||
        !(sttmp = pprof__malloc(a, (nst + 1) * sizeof(uint32_t))))
        goto fail;
    size_t n_ranks = sort_stacks(&f, stord, sttmp, nst);
    if (n_ranks == SIZE_MAX)
        goto fail;
    /* Given back now, so that the output's tables below can reuse the pages. */
    pprof__free(a, sttmp);
    sttmp = NULL;
    if (!order_samples(&f, nsm, n_ranks, tmp, smord))
        goto fail;

    /* Combine samples that became equal (only the inline policy "longest" makes distinct
     * samples equal: otherwise distinct stacks have distinct ranks), drop all-zero ones. */
    lreach = pprof__malloc(a, nl + 1);
    lout = pprof__malloc(a, (nl + 1) * sizeof(uint32_t));
    fout = pprof__malloc(a, (nf + 1) * sizeof(uint32_t));
    live = pprof__malloc(a, n_ranks + 1);
    ostk_off = pprof__malloc(a, (n_ranks + 1) * sizeof(uint32_t));
    if (!lreach || !lout || !fout || !live || !ostk_off)
        goto fail;
    memset(lreach, 0, nl + 1);
    memset(live, 0, n_ranks + 1);
    const bool longest = m->o.inline_conflict == PPROF_INLINE_LONGEST;
    const carry *first = NULL;
    if ((longest || m->carries.len) && !(cyt = pprof__malloc(a, (nt + 1) * sizeof(int64_t))))
        goto fail;
    const msample *ss = m->samples.data;
    size_t n_out = 0, lab_out = 0, src_bound = 0, max_loc = 0, max_lab = 0;
    const int64_t *mv = m->values.data;
    for (size_t i = 0; i < nsm;) {
        size_t j = i + 1;
        if (i + 16 < nsm) { /* canonical order visits the samples at random */
            __builtin_prefetch(&ss[smord[i + 16]]);
            __builtin_prefetch(mv + (size_t)smord[i + 16] * nt);
        }
        const msample *s = &ss[smord[i]];
        uint32_t r = f.strank[s->stack];
        int64_t *v = vals ? vals + n_out * nt : NULL;
        const int64_t *vr = mv + (size_t)smord[i] * nt; /* the values, combined when vals */
        if (v) {
            memcpy(v, vr, nt * sizeof(int64_t));
            vr = v;
        }
        if (cyt) {
            memset(cyt, 0, nt * sizeof(int64_t));
            first = NULL; /* this sample's, not one whose carries were made up for before */
            carries_of(m, smord[i], nt, cyt, &first);
        }
        while (longest && j < nsm && f.strank[ss[smord[j]].stack] == r &&
               cmp_labels(&f, smord[i], smord[j]) == 0) {
            carries_of(m, smord[j], nt, cyt, &first);
            for (size_t t = 0; t < nt; t++) {
                int64_t x = mv[(size_t)smord[j] * nt + t];
                if (__builtin_add_overflow(v[t], x, &v[t]))
                    cyt[t] += x > 0 ? 1 : -1;
            }
            j++;
        }
        for (size_t t = 0; cyt && t < nt; t++) {
            if (cyt[t] != 0) {
                const carry *c = carry_find(m, (uint64_t)smord[i] * nt + t);
                st = overflow_error(m, c && c->n ? c : first, smord[i], t, err);
                reported = true;
                goto fail;
            }
        }
        bool nonzero = false;
        for (size_t t = 0; t < nt; t++)
            nonzero |= vr[t] != 0;
        if (nonzero) {
            soff[n_out] = (uint32_t)lab_out;
            sout[n_out++] = smord[i];
            live[r] = 1;
            lab_out += s->n_lab;
            uint32_t n_loc = PPROF__AT(m->stacks, mstack, s->stack).n;
            src_bound += PPROF__SAMPLE_BOUND(n_loc, nt, s->n_lab);
            max_loc = n_loc > max_loc ? n_loc : max_loc;
            max_lab = s->n_lab > max_lab ? s->n_lab : max_lab;
        }
        i = j;
    }
    /* Reachable locations, from the stacks of live ranks (each stack once, not once per sample),
     * in the order they are stored: it reads them as a stream. */
    const mstack *sts = m->stacks.data;
    for (size_t i = 0; i < nst; i++) {
        if (!live[f.strank[i]])
            continue;
        for (uint32_t k = 0; k < sts[i].n; k++)
            lreach[f.target[stack[sts[i].off + k]]] = 1;
    }
    /* output ids: reachable locations and their functions, in canonical order */
    uint8_t *freach = (uint8_t *)tmp; /* tmp holds nmax+1 uint32, enough for nf bytes */
    memset(freach, 0, nf + 1);
    size_t n_loc_out = 0, n_fn_out = 0, n_line_out = 0;
    for (size_t i = 0; i < nl; i++) {
        uint32_t l = lord[i];
        if (!lreach[l])
            continue;
        lout[l] = (uint32_t)++n_loc_out;
        const mlocation *x = &PPROF__AT(m->locations, mlocation, l);
        n_line_out += x->n_line;
        for (uint32_t k = 0; k < x->n_line; k++)
            freach[PPROF__AT(m->lines, mline, x->line_off + k).fn] = 1;
    }
    for (size_t i = 0; i < nf; i++)
        if (freach[ford[i]])
            fout[ford[i]] = (uint32_t)++n_fn_out;
    /* Output location ids of each live stack rank, laid out in rank order; this is the output's
     * stack table, and the samples of one rank (which differ in labels) share their rank's
     * entries instead of each holding a copy: the copies were most of the output model. */
    size_t ostk_len = 0;
    for (size_t i = 0; !sink && i < nst; i++) {
        uint32_t r = f.strank[stord[i]];
        if (live[r] && !(i && f.strank[stord[i - 1]] == r)) {
            if (ostk_len >= UINT32_MAX)
                goto fail;
            ostk_off[r] = (uint32_t)ostk_len;
            ostk_len += PPROF__AT(m->stacks, mstack, stord[i]).n;
        }
    }
    if (!sink) {
        if (ostk_len >= UINT32_MAX || !(ostk = pprof__malloc(a, (ostk_len + 1) * sizeof(uint64_t))))
            goto fail;
        fill_job fj = {&f, stord, live, ostk_off, lout, ostk};
        pprof__par_for(m->o.threads, nst, 8192, fill_stacks, &fj);
    }

    /* build the profile */
    if (!(p = pprof__profile_new(a)))
        goto fail;
    size_t total = 0;
    for (size_t i = 0; i < ns; i++)
        total += mstr(m, (uint32_t)i)->len;
    char *sbuf = pprof__arena_alloc(&p->arena, total + 1);
    if (!sbuf || !pprof__vec_grow(a, &p->strings, sizeof(pprof_string), ns) ||
        !pprof__vec_grow(a, &p->sample_types, sizeof(pprof_value_type), nt + 1) ||
        (!sink && !pprof__vec_grow(a, &p->samples, sizeof(pprof__sample), n_out + 1)) ||
        (!sink && !pprof__vec_grow(a, &p->labels, sizeof(pprof_label), lab_out + 1)) ||
        !pprof__vec_grow(a, &p->mappings, sizeof(pprof_mapping), nm + 1) ||
        !pprof__vec_grow(a, &p->locations, sizeof(pprof__location), n_loc_out + 1) ||
        !pprof__vec_grow(a, &p->lines, sizeof(pprof_line), n_line_out + 1) ||
        !pprof__vec_grow(a, &p->functions, sizeof(pprof_function), n_fn_out + 1) ||
        !pprof__vec_grow(a, &p->comments, sizeof(int64_t), m->comments.len + 1))
        goto fail;
    /* string table in content order: "" sorts first, so index 0 stays "" */
    char *sp = sbuf;
    for (size_t i = 0; i < ns; i++) {
        const pprof_string *s = mstr(m, sord[i]);
        if (s->len)
            memcpy(sp, s->data, s->len);
        pprof_string d = {sp, s->len};
        PPROF__AT(p->strings, pprof_string, i) = d;
        sp += s->len;
    }
    p->strings.len = ns;
    p->has_string_table = true;
#define R(sid) ((int64_t)f.srank[(sid)])
    for (size_t t = 0; t < nt; t++) {
        const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, t);
        pprof_value_type o = {R(vt->type), R(vt->unit)};
        PPROF__AT(p->sample_types, pprof_value_type, t) = o;
    }
    p->sample_types.len = nt;
    if (!sink) {
        out_job oj = {&f, sout, soff, ostk_off, p->samples.data, p->labels.data, nt};
        pprof__par_for(m->o.threads, n_out, 8192, out_samples, &oj);
        pprof__free(a, p->stack.data);
        p->stack.data = ostk;
        p->stack.cap = ostk_len + 1;
        p->stack.len = ostk_len;
        ostk = NULL;
        p->labels.len = lab_out;
        p->samples.len = n_out;
        /* the summed values are already in output order: the profile takes the buffer */
        pprof__free(a, p->values.data);
        p->values.data = vals;
        p->values.cap = nsm * nt + 1;
        p->values.len = n_out * nt;
        vals = NULL;
    }
    for (size_t i = 0; i < nm; i++) {
        const mmapping *x = &PPROF__AT(m->mappings, mmapping, mord[i]);
        pprof_mapping o = {
            .id = i + 1,
            .memory_start = x->start,
            .memory_limit = x->limit,
            .file_offset = x->offset,
            .filename = R(x->filename),
            .build_id = R(x->build_id),
            .has_functions = x->has_functions,
            .has_filenames = x->has_filenames,
            .has_line_numbers = x->has_line_numbers,
            .has_inline_frames = x->has_inline_frames,
        };
        PPROF__AT(p->mappings, pprof_mapping, i) = o;
    }
    p->mappings.len = nm;
    for (size_t i = 0; i < nl; i++) {
        uint32_t l = lord[i];
        if (!lreach[l])
            continue;
        const mlocation *x = &PPROF__AT(m->locations, mlocation, l);
        pprof__location *o = pprof__vec_push(a, &p->locations, sizeof(*o));
        o->id = lout[l];
        o->mapping_id = x->mapping == PPROF_NONE ? 0 : (uint64_t)f.mrank[x->mapping] + 1;
        /* rel >= 1 was an address at or above a start no lower than the merged one: the sum
         * neither wraps nor reaches 0, so it reads back as rel. */
        o->address = x->mapping == PPROF_NONE || x->rel == 0
                         ? x->rel
                         : x->rel + PPROF__AT(m->mappings, mmapping, x->mapping).start;
        o->line_off = (uint32_t)p->lines.len;
        o->n_line = x->n_line;
        o->is_folded = x->folded;
        for (uint32_t k = 0; k < x->n_line; k++) {
            const mline *ln = &PPROF__AT(m->lines, mline, x->line_off + k);
            pprof_line ol = {fout[ln->fn], ln->line, ln->column};
            PPROF__AT(p->lines, pprof_line, p->lines.len++) = ol;
        }
    }
    for (size_t i = 0; i < nf; i++) {
        uint32_t fi = ford[i];
        if (!freach[fi])
            continue;
        const mfunction *x = &PPROF__AT(m->functions, mfunction, fi);
        pprof_function o = {fout[fi], R(x->name), R(x->system_name), R(x->filename), x->start_line};
        PPROF__AT(p->functions, pprof_function, p->functions.len++) = o;
    }
    /* comments: a set, in content order */
    for (size_t i = 0; i < m->comments.len; i++)
        PPROF__AT(p->comments, int64_t, i) = R(PPROF__AT(m->comments, uint32_t, i));
    p->comments.len = m->comments.len;
    for (size_t i = 1; i < p->comments.len; i++) {
        int64_t x = PPROF__AT(p->comments, int64_t, i);
        size_t k = i;
        while (k > 0 && PPROF__AT(p->comments, int64_t, k - 1) > x) {
            PPROF__AT(p->comments, int64_t, k) = PPROF__AT(p->comments, int64_t, k - 1);
            k--;
        }
        PPROF__AT(p->comments, int64_t, k) = x;
    }
    p->hdr.period_type.type = R(m->period_type);
    p->hdr.period_type.unit = R(m->period_unit);
    p->hdr.period = m->period;
    p->hdr.time_nanos = m->time;
    p->hdr.duration_nanos = m->duration;
    p->hdr.drop_frames = R(m->drop_frames);
    p->hdr.keep_frames = R(m->keep_frames);
    p->hdr.doc_url = R(m->doc_url);
    p->hdr.default_sample_type = R(m->default_sample_type);
    /* No fallback when the default names a dropped type (Go takes the first kept type): the
     * fallback would be written out and then compete as an input's default in the next merge,
     * so a grouped merge could pick another one. */
#undef R
    if (sink) {
        if (sink->sum) {
            sink->sum->samples = n_out;
            sink->sum->locations = n_loc_out;
            sink->sum->functions = n_fn_out;
        }
        /* What the samples are not made from goes back first, for the encoding to reuse. */
        uint32_t **done_with[] = {&tmp,  &f.mrank,  &f.frank, &f.lrank, &sord,
                                  &mord, &ford,     &lord,    &smord,   &fout,
                                  &soff, &f.strank, &stord,   &ostk_off};
        for (size_t i = 0; i < sizeof(done_with) / sizeof(done_with[0]); i++) {
            pprof__free(a, *done_with[i]);
            *done_with[i] = NULL;
        }
        release_s2_tables(m);
        sample_gen g = {
            .f = &f, .sout = sout, .vals = vals, .nt = nt, .n = n_out, .loc_sid = PPROF_NONE};
        uint64_t *lenc = pprof__malloc(a, (nl + 1) * sizeof(uint64_t));
        g.lenc = lenc;
        g.packed = pprof__malloc(a, max_loc * 5 + 8);
        g.lab = pprof__malloc(a, (max_lab + 1) * sizeof(pprof_label));
        for (size_t l = 0; lenc && l < nl; l++) {
            uint8_t b[10] = {0};
            uint64_t id = lout[f.target[l]], len = (uint64_t)(pprof__put_varint(b, id) - b), w;
            memcpy(&w, b, 8);
            lenc[l] = (w & ((UINT64_C(1) << 56) - 1)) | len << 56;
        }
        pprof__sample_src src = {n_out, src_bound, gen_sample, &g};
        if (!lenc || !g.packed || !g.lab)
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        else if (sink->path) /* the prefault thread may still be ahead of the encoder */
            st = pprof__write_file_src(p, &src, &raw, sink->path, sink->opts, err);
        else
            st = pprof__write_memory_src(p, &src, sink->opts, sink->mem, err);
        pprof__free(a, lenc);
        pprof__free(a, g.packed);
        pprof__free(a, g.lab);
        reported = true; /* whatever the writer returned, it said why */
        goto fail;       /* the profile was only the vehicle: freed there */
    }
    *out = p;
    p = NULL;
    st = PPROF_OK;
fail:
    prefault_join(&pf);
    pprof__free(a, raw.data);
    if (st == PPROF_E_NOMEM && !reported)
        pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_profile_free(p);
    uint32_t *bufs[] = {tmp,  f.srank, f.mrank, f.frank, f.lrank, f.target, sord, mord,
                        ford, lord,    smord,   lout,    fout,    sout,     soff};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        pprof__free(a, bufs[i]);
    pprof__free(a, f.strank);
    pprof__free(a, stord);
    pprof__free(a, sttmp);
    pprof__free(a, lreach);
    pprof__free(a, lused);
    pprof__free(a, live);
    pprof__free(a, ostk);
    pprof__free(a, ostk_off);
    pprof__free(a, vals);
    pprof__free(a, cyt);
    return st;
}

pprof_status
pprof_merge(const pprof_profile *const *profiles, const char *const *names, size_t n,
            const pprof_merge_options *opts, pprof_profile **out, pprof_error *err)
{
    if (!out || (n && !profiles))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    pprof_merger *m;
    pprof_status st = pprof_merger_new(opts, &m, err);
    for (size_t i = 0; st == PPROF_OK && i < n; i++)
        st = pprof_merger_add(m, profiles[i], names ? names[i] : NULL, err);
    if (st == PPROF_OK)
        st = pprof_merger_finish(m, out, err);
    pprof_merger_free(m);
    return st;
}
