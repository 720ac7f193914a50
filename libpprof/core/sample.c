/* Per-sample lookups every layer above needs: the sample type a caller names, and a sample's
 * locations by index. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "memory-private.h"
#include "profile-private.h"

static bool
str_eq(const pprof_profile *p, int64_t i, const char *s, size_t n)
{
    pprof_string v;
    return pprof_profile_string(p, i, &v) && v.len == n && (!n || !memcmp(v.data, s, n));
}

pprof_status
pprof_sample_type_find(const pprof_profile *p, const char *name, size_t *index, pprof_error *err)
{
    size_t nt = p->sample_types.len;
    if (!nt)
        return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, "sample_type",
                            "the profile has no sample types");
    if (!name || !*name) {
        pprof_string d;
        if (pprof_profile_string(p, p->hdr.default_sample_type, &d) && d.len)
            for (size_t i = 0; i < nt; i++)
                if (str_eq(p, PPROF__AT(p->sample_types, pprof_value_type, i).type, d.data,
                           d.len)) {
                    *index = i;
                    return PPROF_OK;
                }
        *index = nt - 1;
        return PPROF_OK;
    }
    char *end;
    long long v = strtoll(name, &end, 10);
    if (*end == 0 && end != name) {
        if (v < 0 || (unsigned long long)v >= nt)
            return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                                "sample index %s is outside [0..%zu]", name, nt - 1);
        *index = (size_t)v;
        return PPROF_OK;
    }
    const char *no_inuse = strncmp(name, "inuse_", 6) ? name : name + 6;
    for (size_t i = 0; i < nt; i++) {
        int64_t t = PPROF__AT(p->sample_types, pprof_value_type, i).type;
        if (str_eq(p, t, name, strlen(name)) || str_eq(p, t, no_inuse, strlen(no_inuse))) {
            *index = i;
            return PPROF_OK;
        }
    }
    char list[200] = "";
    for (size_t i = 0; i < nt && strlen(list) < 150; i++) {
        pprof_string s = {"", 0};
        pprof_profile_string(p, PPROF__AT(p->sample_types, pprof_value_type, i).type, &s);
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%.*s", i ? " " : "", (int)(s.len > 40 ? 40 : s.len),
                 s.data);
    }
    return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                        "sample type '%s' must be one of: %s", name, list);
}

pprof_status
pprof__sample_locs(const pprof_profile *p, size_t si, uint32_t *idx, pprof_error *err)
{
    const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, si);
    if (!s->n_loc)
        return PPROF_OK;
    if (p->stack_is_index) { /* resolved once by pprof__profile_slim */
        memcpy(idx, (const uint32_t *)p->stack.data + s->loc_off, s->n_loc * sizeof(uint32_t));
        return PPROF_OK;
    }
    const uint64_t *ids = (const uint64_t *)p->stack.data + s->loc_off;
    for (uint32_t j = 0; j < s->n_loc; j++) {
        uint32_t li = pprof__idmap_find(&p->loc_idx, ids[j]);
        if (li == PPROF_NONE) {
            char path[128];
            pprof__path(path, "sample[%zu].location_id[%u]", si, j);
            return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                "no location has id %" PRIu64, ids[j]);
        }
        idx[j] = li;
    }
    return PPROF_OK;
}

pprof_status
pprof__profile_slim(pprof_profile *p, pprof_error *err)
{
    if (!p->stack_is_index && p->stack.len) {
        if (pprof__profile_index(p, err))
            return PPROF_E_NOMEM;
        const uint64_t *ids = p->stack.data;
        for (size_t j = 0; j < p->stack.len; j++)
            if (pprof__idmap_find(&p->loc_idx, ids[j]) == PPROF_NONE)
                return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, "sample",
                                    "no location has id %" PRIu64, ids[j]);
        /* in place, front to back: entry j is read (bytes 8j..) before any write reaches it */
        uint32_t *idx = p->stack.data;
        for (size_t j = 0; j < p->stack.len; j++)
            idx[j] = pprof__idmap_find(&p->loc_idx, ids[j]);
        void *d = pprof__realloc(&p->alloc, p->stack.data, p->stack.len * sizeof(uint32_t));
        if (d) {
            p->stack.data = d;
            p->stack.cap = p->stack.len * sizeof(uint32_t) / sizeof(uint64_t);
        }
        p->stack_is_index = true;
    }
    if (!p->buf)
        return PPROF_OK;
    /* the strings that point into the input (a built profile's are elsewhere) */
    uintptr_t lo = (uintptr_t)p->buf, hi = lo + p->buf_len;
    size_t total = 0;
    const pprof_string *s = p->strings.data;
    for (size_t i = 0; i < p->strings.len; i++)
        if ((uintptr_t)s[i].data >= lo && (uintptr_t)s[i].data <= hi)
            total += s[i].len;
    /* 1.5 to 2 MiB: a whole huge page, as the tables of a profile read to be drawn (decode.c) */
    size_t want = total ? total : 1;
    if (!pprof__allocator_custom(&p->alloc) && want >= PPROF__BIG_BLOCK / 4 * 3 &&
        want < PPROF__BIG_BLOCK)
        want = PPROF__BIG_BLOCK;
    char *copy = pprof__arena_alloc(&p->arena, want);
    if (!copy)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_string *w = p->strings.data;
    for (size_t i = 0; i < p->strings.len; i++) {
        uintptr_t at = (uintptr_t)w[i].data;
        if (at < lo || at > hi)
            continue;
        if (w[i].len)
            memcpy(copy, w[i].data, w[i].len);
        w[i].data = w[i].len ? copy : "";
        copy += w[i].len;
    }
    pprof__free(&p->alloc, p->buf);
    p->buf = NULL;
    p->buf_len = 0;
    /* where each sample was in the input, gone with it: only a check's messages say it */
    pprof__free(&p->alloc, p->sample_offs.data);
    memset(&p->sample_offs, 0, sizeof(p->sample_offs));
    return PPROF_OK;
}

/* The stack's 4-byte entries given room for 8 bytes each (v->cap counts 8-byte entries). */
static bool
stack_room_for_u64(pprof_profile *p)
{
    pprof__vec *v = &p->stack;
    if (v->cap) {
        void *d = pprof__realloc(&p->alloc, v->data, v->cap * sizeof(uint64_t));
        if (!d)
            return false;
        v->data = d;
    }
    return true;
}

bool
pprof__stack_widen(pprof_profile *p)
{
    pprof__vec *v = &p->stack;
    if (!stack_room_for_u64(p))
        return false;
    /* back to front: entry j's new bytes (8j..) start at or past its old ones (4j..) */
    const uint32_t *narrow = v->data;
    uint64_t *wide = v->data;
    for (size_t j = v->len; j-- > 0;)
        wide[j] = narrow[j];
    p->stack_is_id32 = false;
    return true;
}

bool
pprof__stack_unindex(pprof_profile *p)
{
    if (!p->stack_is_index)
        return true;
    pprof__vec *v = &p->stack;
    if (!stack_room_for_u64(p))
        return false;
    const pprof__location *loc = p->locations.data;
    const uint32_t *idx = v->data;
    uint64_t *ids = v->data;
    for (size_t j = v->len; j-- > 0;)
        ids[j] = loc[idx[j]].id;
    p->stack_is_index = false;
    return true;
}

/* 4-byte ids (stack_is_id32) to location indices in place; at an id that names no location the
 * entries done go back to their ids (each index's location has that id) and the stack becomes
 * 8-byte ids. */
static pprof_status
stack_index(pprof_profile *p, pprof_error *err)
{
    if (pprof__profile_index(p, err))
        return PPROF_E_NOMEM;
    uint32_t *s = p->stack.data;
    const pprof__location *loc = p->locations.data;
    for (size_t j = 0; j < p->stack.len; j++) {
        uint32_t li = pprof__idmap_find(&p->loc_idx, s[j]);
        if (li == PPROF_NONE) {
            for (size_t k = 0; k < j; k++)
                s[k] = (uint32_t)loc[s[k]].id;
            return pprof__stack_widen(p)
                       ? PPROF_OK
                       : pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        s[j] = li;
    }
    p->stack_is_id32 = false;
    p->stack_is_index = true;
    return PPROF_OK;
}

pprof_status
pprof__profile_read_indexed(pprof_buffer *in, const pprof_read_options *opts, pprof_profile **out,
                            pprof_error *err)
{
    pprof_status st = pprof__read_buffer_id32(in, opts, out, err);
    if (st || !(*out)->stack_is_id32)
        return st;
    if ((st = stack_index(*out, err))) {
        pprof_profile_free(*out);
        *out = NULL;
    }
    return st;
}
