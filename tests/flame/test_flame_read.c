/* pprof_flame_profile_read_buffer: a valid profile read straight into the form the tree takes
 * (4-byte location indices, no input bytes) draws the very page pprof_profile_read_buffer's
 * does, with less memory; an id past 32 bits or that names no location, a broken rule, a wire
 * error or a limit gives what pprof_profile_read_buffer gives, to the byte. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame-private.h"
#include "pprof/check.h"
#include "pprof/flame.h"
#include "tap.h"
#include "unit/pb.h"

#define BIG (UINT64_C(1) << 32)

static const char *const strs[] = {"",  "samples", "count", "cpu", "nanoseconds",
                                   "f", "g",       "h",     "k",   "main.go"};

typedef struct smp {
    uint64_t loc[4];
    size_t n;
    size_t n_val; /* 2, one per sample type; another count breaks rule CV2 */
} smp;

/* Two sample types, the samples, and one location per id of locs (each a line of function
 * 1 + i % 4), functions 1..4: raw bytes in *b. */
static void
make(pb *b, const smp *s, size_t ns, const uint64_t *locs, size_t nl)
{
    pb sub = {0}, ln = {0};
    memset(b, 0, sizeof(*b));
    pb_value_type(b, 1, 1, 2);
    pb_value_type(b, 1, 3, 4);
    for (size_t i = 0; i < ns; i++) {
        uint64_t v[3] = {1 + i, 100 * (i + 1), 7};
        pb_packed(&sub, 1, s[i].loc, s[i].n);
        pb_packed(&sub, 2, v, s[i].n_val);
        pb_msg_free(b, 2, &sub);
    }
    for (size_t i = 0; i < nl; i++) {
        pb_v(&sub, 1, locs[i]);
        pb_v(&ln, 1, 1 + i % 4);
        pb_v(&ln, 2, 10 + i);
        pb_msg_free(&sub, 4, &ln);
        pb_msg_free(b, 4, &sub);
    }
    for (size_t i = 0; i < 4; i++) {
        pb_v(&sub, 1, i + 1);
        pb_v(&sub, 2, 5 + i);
        pb_v(&sub, 4, 9);
        pb_msg_free(b, 5, &sub);
    }
    pb_strings(b, strs, sizeof(strs) / sizeof(strs[0]));
}

static void
copy_in(pprof_buffer *in, const void *d, size_t n)
{
    in->data = malloc(n ? n : 1);
    in->len = in->cap = in->data ? n : 0;
    if (in->data)
        memcpy(in->data, d, n);
}

/* The HTML page (with the Graph view) of the tree that takes p. */
static bool
page_of(pprof_profile *p, pprof_buffer *page)
{
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.graph_sample_type = "cpu";
    pprof_flame_tree *tr = NULL;
    pprof_buffer view = {0};
    pprof_error err;
    memset(page, 0, sizeof(*page));
    pprof_status st = pprof_flame_tree_new_take(&p, NULL, NULL, &wo, &view, &tr, &err);
    wo.graph_view = &view;
    if (!st)
        st = pprof_flame_write_memory(tr, &wo, page, &err);
    pprof_flame_tree_free(tr);
    pprof_buffer_free(&view);
    return st == PPROF_OK;
}

static bool
same_error(pprof_status sa, const pprof_error *a, pprof_status sb, const pprof_error *b)
{
    return sa == sb && (!sa || (a->code == b->code && a->offset == b->offset &&
                                !strcmp(a->path, b->path) && !strcmp(a->message, b->message)));
}

/* The first finding pprof_validate reports (status, error), and every sample's ids equal. */
static bool
same_profile_as_read(const pprof_profile *a, const pprof_profile *b)
{
    pprof_error ea, eb;
    pprof_status va = pprof_validate(a, NULL, NULL, 0, NULL, &ea);
    pprof_status vb = pprof_validate(b, NULL, NULL, 0, NULL, &eb);
    if (!same_error(va, &ea, vb, &eb))
        return false;
    size_t n = pprof_profile_count(a, PPROF_TABLE_SAMPLE);
    if (n != pprof_profile_count(b, PPROF_TABLE_SAMPLE))
        return false;
    for (size_t i = 0; i < n; i++) {
        pprof_sample x = pprof_profile_sample(a, i), y = pprof_profile_sample(b, i);
        if (x.n_location_id != y.n_location_id ||
            (x.n_location_id &&
             memcmp(x.location_id, y.location_id, x.n_location_id * sizeof(uint64_t))))
            return false;
    }
    return true;
}

typedef enum { VALID, INVALID, REFUSED } outcome;

/* Reads bytes both ways and compares: a valid profile is slim and draws the same page; an
 * invalid one is the profile read (same ids, same first finding); a refused one the same
 * error. */
static void
both(tap *t, const char *what, const pb *b, const pprof_read_options *ro, outcome want)
{
    pprof_buffer in = {0};
    pprof_profile *a = NULL, *f = NULL;
    pprof_error ea, ef;
    copy_in(&in, b->d, b->n);
    pprof_status sa = pprof_profile_read_buffer(&in, ro, &a, &ea);
    copy_in(&in, b->d, b->n);
    pprof_status sf = pprof_flame_profile_read_buffer(&in, ro, &f, &ef);
    bool ok = !in.data && same_error(sa, &ea, sf, &ef);
    outcome got = sa ? REFUSED : pprof_validate(a, NULL, NULL, 0, NULL, &ea) ? INVALID : VALID;
    if (ok && got == VALID) {
        ok = f->stack_is_index && !f->buf && !f->stack_is_id32 && !f->sample_offs.data;
        pprof_buffer pa, pf;
        bool da = page_of(a, &pa), df = page_of(f, &pf);
        a = f = NULL;
        ok = ok && da && df && pa.len == pf.len && !memcmp(pa.data, pf.data, pa.len);
        pprof_buffer_free(&pa);
        pprof_buffer_free(&pf);
    } else if (ok && got == INVALID) {
        ok = !f->stack_is_index && !f->stack_is_id32 && same_profile_as_read(a, f);
    }
    if (sa)
        tap_diag("%s: %s: %s", what, ea.path, ea.message);
    tap_ok(t, ok && got == want, "%s: %s as pprof_profile_read_buffer's", what,
           want == VALID     ? "valid, slim, the same page"
           : want == INVALID ? "invalid, the same ids and finding"
                             : "refused, the same error");
    pprof_profile_free(a);
    pprof_profile_free(f);
}

static void
test_cases(tap *t)
{
    const uint64_t locs[] = {1, 2, 3, 4}, big_locs[] = {1, 2, BIG + 5, 4};
    pb b;
    const smp valid[] = {{{3, 2, 1}, 3, 2}, {{2, 1}, 2, 2}, {{4, 2, 1}, 3, 2}, {{1}, 1, 2}};
    make(&b, valid, 4, locs, 4);
    both(t, "4-byte ids", &b, NULL, VALID);
    pb_free(&b);
    /* the first id past 32 bits comes after samples read with 4-byte ids */
    const smp big[] = {{{4, 2, 1}, 3, 2}, {{2, 1}, 2, 2}, {{BIG + 5, 2, 1}, 3, 2}, {{1}, 1, 2}};
    make(&b, big, 4, big_locs, 4);
    both(t, "an id past 32 bits", &b, NULL, VALID);
    pb_free(&b);
    const smp missing[] = {{{3, 2, 1}, 3, 2}, {{2, 99, 1}, 3, 2}, {{4, 2, 1}, 3, 2}};
    make(&b, missing, 3, locs, 4);
    both(t, "an id without location", &b, NULL, INVALID);
    pb_free(&b);
    const smp missing_big[] = {{{3, 2, 1}, 3, 2}, {{2, 1}, 2, 2}, {{BIG + 7, 1}, 2, 2}};
    make(&b, missing_big, 3, locs, 4);
    both(t, "an id past 32 bits without location", &b, NULL, INVALID);
    pb_free(&b);
    const smp zero[] = {{{3, 2, 1}, 3, 2}, {{0, 1}, 2, 2}};
    make(&b, zero, 2, locs, 4);
    both(t, "id 0", &b, NULL, INVALID);
    pb_free(&b);
    /* every id names a location: the indices go back to ids for the findings */
    const smp values[] = {{{3, 2, 1}, 3, 2}, {{2, 1}, 2, 3}, {{4, 2, 1}, 3, 2}};
    make(&b, values, 3, locs, 4);
    both(t, "three values for two sample types", &b, NULL, INVALID);
    pb_free(&b);
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.max_stack_entries = 7;
    make(&b, valid, 4, locs, 4);
    both(t, "more stack entries than the limit", &b, &ro, REFUSED);
    pb_free(&b);
    make(&b, big, 4, big_locs, 4);
    ro.max_stack_entries = 6; /* reached at the sample whose ids are read again 8-byte */
    both(t, "the limit at the id past 32 bits", &b, &ro, REFUSED);
    pb_free(&b);
    /* a packed run whose last varint is cut: a sample of [2, 1, 0x80...] */
    pb sub = {0};
    memset(&b, 0, sizeof(b));
    pb_value_type(&b, 1, 1, 2);
    pb_tag(&sub, 1, 2);
    pb_varint(&sub, 3);
    pb_byte(&sub, 2);
    pb_byte(&sub, 1);
    pb_byte(&sub, 0x80);
    pb_msg_free(&b, 2, &sub);
    pb_strings(&b, strs, 3);
    both(t, "a cut varint among the ids", &b, NULL, REFUSED);
    pb_free(&b);
    /* a cut varint after an id past 32 bits: read again 8-byte, the same error */
    memset(&b, 0, sizeof(b));
    pb_value_type(&b, 1, 1, 2);
    pb_tag(&sub, 1, 2);
    pb_varint(&sub, 6);
    pb_varint(&sub, BIG + 1);
    pb_byte(&sub, 0x80);
    pb_msg_free(&b, 2, &sub);
    pb_strings(&b, strs, 3);
    both(t, "a cut varint after an id past 32 bits", &b, NULL, REFUSED);
    pb_free(&b);
    /* ids as single varint fields, not packed */
    memset(&b, 0, sizeof(b));
    pb_value_type(&b, 1, 1, 2);
    pb_v(&sub, 1, 2);
    pb_v(&sub, 1, BIG + 5);
    pb_v(&sub, 2, 3);
    pb_msg_free(&b, 2, &sub);
    pb_v(&sub, 1, 2);
    pb_v(&sub, 2, 1);
    pb_msg_free(&b, 2, &sub);
    for (size_t i = 0; i < 4; i++) {
        pb ln = {0};
        pb_v(&sub, 1, big_locs[i]);
        pb_v(&ln, 1, 1);
        pb_msg_free(&sub, 4, &ln);
        pb_msg_free(&b, 4, &sub);
    }
    pb_v(&sub, 1, 1);
    pb_v(&sub, 2, 5);
    pb_msg_free(&b, 5, &sub);
    pb_strings(&b, strs, sizeof(strs) / sizeof(strs[0]));
    both(t, "unpacked ids, one past 32 bits", &b, NULL, VALID);
    pb_free(&b);
}

/* ---- memory: the read holds 4 bytes per stack entry instead of 8 */

typedef struct counter {
    size_t live, peak;
} counter;

static void *
count_alloc(void *ctx, size_t size)
{
    counter *c = ctx;
    size_t *m = malloc(size + 16);
    if (!m)
        return NULL;
    m[0] = size;
    c->live += size;
    c->peak = c->live > c->peak ? c->live : c->peak;
    return (char *)m + 16;
}

static void
count_free(void *ctx, void *p)
{
    if (!p)
        return;
    counter *c = ctx;
    size_t *m = (size_t *)((char *)p - 16);
    c->live -= m[0];
    free(m);
}

static void *
count_realloc(void *ctx, void *p, size_t size)
{
    if (!p)
        return count_alloc(ctx, size);
    size_t old = ((size_t *)((char *)p - 16))[0];
    void *n = count_alloc(ctx, size);
    if (!n)
        return NULL;
    memcpy(n, p, old < size ? old : size);
    count_free(ctx, p);
    return n;
}

static void
test_peak(tap *t)
{
    enum { NS = 4000, DEPTH = 24, NL = 500 };
    static uint64_t locs[NL];
    pb b = {0}, sub = {0}, ln = {0};
    pb_value_type(&b, 1, 1, 2);
    pb_value_type(&b, 1, 3, 4);
    for (size_t i = 0; i < NS; i++) {
        uint64_t ids[DEPTH], v[2] = {1, 1000 + i};
        for (size_t j = 0; j < DEPTH; j++)
            ids[j] = 1 + (i * 7919 + j * 104729) % NL;
        pb_packed(&sub, 1, ids, DEPTH);
        pb_packed(&sub, 2, v, 2);
        pb_msg_free(&b, 2, &sub);
    }
    for (size_t i = 0; i < NL; i++) {
        locs[i] = i + 1;
        pb_v(&sub, 1, locs[i]);
        pb_v(&ln, 1, 1 + i % 4);
        pb_msg_free(&sub, 4, &ln);
        pb_msg_free(&b, 4, &sub);
    }
    for (size_t i = 0; i < 4; i++) {
        pb_v(&sub, 1, i + 1);
        pb_v(&sub, 2, 5 + i);
        pb_msg_free(&b, 5, &sub);
    }
    pb_strings(&b, strs, sizeof(strs) / sizeof(strs[0]));
    counter ca = {0}, cf = {0};
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    pprof_profile *a = NULL, *f = NULL;
    pprof_error e;
    pprof_buffer in = {0};
    ro.allocator = (pprof_allocator){count_alloc, count_realloc, count_free, &ca};
    copy_in(&in, b.d, b.n);
    pprof_status sa = pprof_profile_read_buffer(&in, &ro, &a, &e);
    ro.allocator = (pprof_allocator){count_alloc, count_realloc, count_free, &cf};
    copy_in(&in, b.d, b.n);
    pprof_status sf = pprof_flame_profile_read_buffer(&in, &ro, &f, &e);
    size_t entries = (size_t)NS * DEPTH;
    /* what the check and the strings' copy allocate for a moment: a few KB */
    tap_ok(t, !sa && !sf && cf.peak + 4 * entries <= ca.peak + 8192 && cf.live + b.n <= ca.live,
           "%zu stack entries: the read peaks at %zu bytes instead of %zu, the profile "
           "holds %zu instead of %zu",
           entries, cf.peak, ca.peak, cf.live, ca.live);
    pprof_profile_free(a);
    pprof_profile_free(f);
    pb_free(&b);
}

/* A table of 1.5 to 2 MiB (here 40,000 locations) is given a whole 2 MiB block, a huge page,
 * instead of hundreds of small pages; a profile read otherwise gets what it holds. */
static void
test_whole_page(tap *t)
{
    enum { NL = 40000 };
    static uint64_t locs[NL];
    for (size_t i = 0; i < NL; i++)
        locs[i] = i + 1;
    const smp one[] = {{{3, 2, 1}, 3, 2}};
    pb b;
    make(&b, one, 1, locs, NL);
    pprof_buffer in = {0};
    pprof_profile *a = NULL, *f = NULL;
    pprof_error e;
    copy_in(&in, b.d, b.n);
    pprof_status sa = pprof_profile_read_buffer(&in, NULL, &a, &e);
    copy_in(&in, b.d, b.n);
    pprof_status sf = pprof_flame_profile_read_buffer(&in, NULL, &f, &e);
    size_t block = (size_t)2 << 20;
    tap_ok(t,
           !sa && !sf && a->locations.cap == NL && f->locations.len == NL &&
               f->locations.cap * sizeof(pprof__location) >= block &&
               (f->locations.cap - 1) * sizeof(pprof__location) < block,
           "%d locations: a table of 2 MiB when read to be drawn (%zu entries), else %zu", NL,
           f ? f->locations.cap : 0, a ? a->locations.cap : 0);
    pprof_profile_free(a);
    pprof_profile_free(f);
    pb_free(&b);
}

int
main(void)
{
    tap t = {0};
    test_cases(&t);
    test_peak(&t);
    test_whole_page(&t);
    return tap_done(&t);
}
