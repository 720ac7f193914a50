/* The distinct frame stacks of a profile, with the values of their samples summed, in an order
 * where neighbours share their root-most frames. A profile has many more distinct location
 * stacks than frame stacks (the same functions at other addresses), and the tree's lookups are
 * its costly part (a cache miss each), so the tree is built from these (flame-tree.c): each
 * distinct frame stack once, each walk starting where it parts from the one before. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>

#include "flame-private.h"
#include "hash-private.h"

typedef struct sctx {
    const pprof__flame_stacks *s;
    const uint32_t *key; /* a stack not yet stored, for lookups */
    size_t key_len;
} sctx;

static bool
stack_eq(const void *ctx, uint32_t v, const void *unused)
{
    const sctx *c = ctx;
    (void)unused;
    return c->s->len[v] == c->key_len &&
           (!c->key_len ||
            !memcmp(c->s->frames + c->s->off[v], c->key, c->key_len * sizeof(uint32_t)));
}

static int
stack_cmp(const void *x, const void *y, void *ctx)
{
    const pprof__flame_stacks *s = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t n = s->len[a] < s->len[b] ? s->len[a] : s->len[b];
    if (!n) /* no frames stored at all when every stack is empty: frames may be NULL */
        return s->len[a] < s->len[b] ? -1 : s->len[a] > s->len[b];
    const uint32_t *fa = s->frames + s->off[a], *fb = s->frames + s->off[b];
    for (uint32_t k = 0; k < n; k++)
        if (fa[k] != fb[k])
            return fa[k] < fb[k] ? -1 : 1;
    return s->len[a] < s->len[b] ? -1 : s->len[a] > s->len[b];
}

/* Sample i's frames root-first (leaf-first with reverse) into *scratch; false when out of
 * memory; *bad set (and true returned) for a location id without location. */
static bool
frames_of(const pprof_profile *p, const pprof__flame_loc_frames *lf, size_t i, bool reverse,
          const pprof_allocator *a, pprof__vec *scratch, uint32_t *bad)
{
    const pprof__sample *sm = &PPROF__AT(p->samples, pprof__sample, i);
    uint32_t n = sm->n_loc;
    /* no stack entries at all: the table may be NULL */
    const uint64_t *ids = n ? (const uint64_t *)p->stack.data + sm->loc_off : NULL;
    const uint32_t *idx = n ? (const uint32_t *)p->stack.data + sm->loc_off : NULL;
    scratch->len = 0;
    *bad = PPROF_NONE;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t pos = reverse ? j : n - 1 - j;
        uint32_t li = p->stack_is_index ? idx[pos] : pprof__idmap_find(&p->loc_idx, ids[pos]);
        if (li == PPROF_NONE) {
            *bad = pos;
            return true;
        }
        uint32_t lo = lf->off[li], hi = lf->off[li + 1];
        if (!pprof__vec_grow(a, scratch, sizeof(uint32_t), scratch->len + (hi - lo)))
            return false;
        uint32_t *d = (uint32_t *)scratch->data + scratch->len;
        for (uint32_t f = 0; f < hi - lo; f++)
            d[f] = lf->fr[reverse ? hi - 1 - f : lo + f];
        scratch->len += hi - lo;
    }
    return true;
}

static pprof_status
fail(const pprof_allocator *a, pprof__flame_stacks *s, pprof__htab *h, pprof__vec *scratch,
     pprof_status st, pprof_error *err)
{
    pprof__htab_free(h, a);
    pprof__free(a, scratch->data);
    pprof__flame_stacks_free(a, s);
    if (st == PPROF_E_NOMEM)
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return st;
}

/* Grows the per-stack arrays to hold one more stack. */
static bool
grow(const pprof_allocator *a, pprof__flame_stacks *s, size_t nt, size_t *cap)
{
    if (s->n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 1024;
    uint32_t *off = pprof__realloc(a, s->off, c * sizeof(uint32_t));
    if (off)
        s->off = off;
    uint32_t *len = pprof__realloc(a, s->len, c * sizeof(uint32_t));
    if (len)
        s->len = len;
    int64_t *sum = pprof__realloc(a, s->sum, c * (nt ? nt : 1) * sizeof(int64_t));
    if (sum)
        s->sum = sum;
    if (!off || !len || !sum)
        return false;
    *cap = c;
    return true;
}

pprof_status
pprof__flame_stacks_build(const pprof_profile *p, const pprof__flame_loc_frames *lf, size_t nt,
                          bool reverse, bool per_sample, const pprof_allocator *a,
                          pprof__flame_stacks *s, pprof_error *err)
{
    memset(s, 0, sizeof(*s));
    pprof__htab h = {0};
    pprof__vec scratch = {0}, store = {0};
    size_t cap = 0;
    sctx c = {s, NULL, 0};
    if (per_sample)
        s->of_sample = pprof__malloc(a, (p->samples.len ? p->samples.len : 1) * sizeof(uint32_t));
    if (per_sample && !s->of_sample)
        return fail(a, s, &h, &scratch, PPROF_E_NOMEM, err);
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *sm = &PPROF__AT(p->samples, pprof__sample, i);
        if (sm->n_val < nt) {
            char path[128];
            pprof__path(path, "sample[%zu].value", i);
            pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                         "%u values for %zu sample types", sm->n_val, nt);
            return fail(a, s, &h, &scratch, PPROF_E_INVALID, err);
        }
        uint32_t bad;
        if (!frames_of(p, lf, i, reverse, a, &scratch, &bad))
            return fail(a, s, &h, &scratch, PPROF_E_NOMEM, err);
        if (bad != PPROF_NONE) {
            char path[128];
            pprof__path(path, "sample[%zu].location_id[%u]", i, bad);
            pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path, "no location has id %" PRIu64,
                         ((const uint64_t *)p->stack.data)[sm->loc_off + bad]);
            return fail(a, s, &h, &scratch, PPROF_E_INVALID, err);
        }
        c.key = scratch.data;
        c.key_len = scratch.len;
        s->frames = store.data;
        bool added;
        if (!grow(a, s, nt, &cap))
            return fail(a, s, &h, &scratch, PPROF_E_NOMEM, err);
        uint32_t id = pprof__htab_intern(
            &h, a, pprof__hash_bytes(0, scratch.data, scratch.len * sizeof(uint32_t)), stack_eq, &c,
            NULL, (uint32_t)s->n, &added);
        if (id == PPROF_NONE ||
            (added && (store.len > UINT32_MAX - scratch.len ||
                       !pprof__vec_grow(a, &store, sizeof(uint32_t), store.len + scratch.len)))) {
            s->frames = store.data;
            return fail(a, s, &h, &scratch, PPROF_E_NOMEM, err);
        }
        if (s->of_sample)
            s->of_sample[i] = id;
        const int64_t *v = (const int64_t *)p->values.data + sm->val_off;
        int64_t *d = s->sum + (size_t)id * nt;
        if (added) {
            s->off[s->n] = (uint32_t)store.len;
            s->len[s->n] = (uint32_t)scratch.len;
            s->n++;
            if (scratch.len)
                memcpy((uint32_t *)store.data + store.len, scratch.data,
                       scratch.len * sizeof(uint32_t));
            store.len += scratch.len;
            s->frames = store.data;
            memcpy(d, v, nt * sizeof(int64_t));
        } else {
            for (size_t k = 0; k < nt; k++)
                s->overflow |= __builtin_add_overflow(d[k], v[k], &d[k]);
        }
    }
    s->frames = store.data;
    pprof__htab_free(&h, a);
    pprof__free(a, scratch.data);
    s->order = pprof__malloc(a, (s->n ? s->n : 1) * sizeof(uint32_t));
    if (!s->order) {
        pprof__flame_stacks_free(a, s);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    for (size_t i = 0; i < s->n; i++)
        s->order[i] = (uint32_t)i;
    qsort_r(s->order, s->n, sizeof(uint32_t), stack_cmp, s);
    return PPROF_OK;
}

void
pprof__flame_stacks_free(const pprof_allocator *a, pprof__flame_stacks *s)
{
    pprof__free(a, s->off);
    pprof__free(a, s->len);
    pprof__free(a, s->frames);
    pprof__free(a, s->sum);
    pprof__free(a, s->order);
    pprof__free(a, s->of_sample);
    memset(s, 0, sizeof(*s));
}
