/* The builder's interned tables (strings, functions, mappings, locations): content hashes,
 * lookup and insertion under the caps, and freeing. builder.c (the API, samples) and
 * builder-emit.c (serialize, compact) both use them; this file uses neither. */
#include "builder-private.h"
#include "hash-private.h"

/* ---------------------------------------------------------------- hashing */

static inline uint32_t
fold(uint64_t h)
{
    return (uint32_t)pprof__mix64(h);
}

uint32_t
pprof__bstr_hash(const char *p, size_t n)
{
    return (uint32_t)pprof__hash_bytes(0, p, n);
}

uint32_t
pprof__bfn_hash(const bfn *f)
{
    uint64_t h = pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(1, f->name), f->system_name),
                            f->filename),
        (uint64_t)f->start_line);
    return fold(h);
}

uint32_t
pprof__bmap_hash(const bmap *m)
{
    uint64_t h = pprof__hash_combine(
        pprof__hash_combine(
            pprof__hash_combine(
                pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(2, m->start), m->limit),
                                    m->offset),
                m->filename),
            m->build_id),
        m->flags);
    return fold(h);
}

uint32_t
pprof__bloc_hash(const pprof_builder *b, const bloc *l, const bline *lines)
{
    (void)b;
    uint64_t h = pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(3, l->map), l->address),
                            l->folded),
        l->n_line);
    for (uint32_t i = 0; i < l->n_line; i++)
        h = pprof__hash_combine(
            pprof__hash_combine(pprof__hash_combine(h, lines[i].fn), (uint64_t)lines[i].line),
            (uint64_t)lines[i].column);
    return fold(h);
}

uint32_t
pprof__bsample_hash(const uint32_t *locs, size_t n_loc, const blabel *labs, size_t n_lab)
{
    uint64_t h = pprof__hash_combine(pprof__hash_combine(4, n_loc), n_lab);
    for (size_t i = 0; i < n_loc; i++)
        h = pprof__hash_combine(h, locs[i]);
    for (size_t i = 0; i < n_lab; i++)
        h = pprof__hash_combine(
            pprof__hash_combine(
                pprof__hash_combine(pprof__hash_combine(h, labs[i].key), labs[i].str),
                labs[i].unit),
            (uint64_t)labs[i].num);
    return fold(h);
}

/* ---------------------------------------------------------------- errors */

pprof_status
pprof__builder_nomem(pprof_error *err)
{
    return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

pprof_status
pprof__builder_limit(pprof_builder *b, pprof_error *err, const char *what, uint64_t cap)
{
    b->limit_errors++;
    return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "", "builder cap reached: %s %llu",
                        what, (unsigned long long)cap);
}

/* ---------------------------------------------------------------- strings */

static bool
str_eq(const pprof_builder *b, uint32_t i, const void *key)
{
    const pprof_string *k = key;
    const bstr *s = &PPROF__AT(b->strs, bstr, i);
    return s->len == k->len && memcmp((const char *)b->bytes.data + s->off, k->data, k->len) == 0;
}

pprof_status
pprof__builder_intern_str(pprof_builder *b, const char *s, size_t len, uint32_t *out,
                          pprof_error *err)
{
    if (len == 0) {
        *out = 0;
        return PPROF_OK;
    }
    if (!s)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL string of length %zu",
                            len);
    if (!pprof__htab_reserve(&b->h_str, &b->alloc, 1))
        return pprof__builder_nomem(err);
    pprof_string key = {s, len};
    uint32_t h = pprof__bstr_hash(s, len);
    pprof__htab_probe pos;
    uint32_t i = pprof__builder_find(&b->h_str, h, str_eq, b, &key, &pos);
    if (i != PPROF_NONE) {
        *out = i;
        return PPROF_OK;
    }
    if (b->strs.len - 1 >= b->o.max_strings)
        return pprof__builder_limit(b, err, "max_strings", b->o.max_strings);
    if (len > b->o.max_string_bytes || b->bytes.len > b->o.max_string_bytes - len)
        return pprof__builder_limit(b, err, "max_string_bytes", b->o.max_string_bytes);
    if (b->bytes.len + len > UINT32_MAX || b->strs.len >= PPROF__BUILDER_MAX_U32)
        return pprof__builder_limit(b, err, "4 GiB of string bytes or 2^32 strings", UINT32_MAX);
    if (!pprof__vec_grow(&b->alloc, &b->bytes, 1, b->bytes.len + len) ||
        !pprof__vec_grow(&b->alloc, &b->strs, sizeof(bstr), b->strs.len + 1))
        return pprof__builder_nomem(err);
    bstr *e = pprof__vec_push(&b->alloc, &b->strs, sizeof(bstr));
    e->off = (uint32_t)b->bytes.len;
    e->len = (uint32_t)len;
    memcpy((char *)b->bytes.data + b->bytes.len, s, len);
    b->bytes.len += len;
    *out = (uint32_t)b->strs.len - 1;
    pprof__htab_insert_at(&b->h_str, &pos, *out);
    return PPROF_OK;
}

pprof_status
pprof__builder_intern_cstr(pprof_builder *b, const char *s, uint32_t *out, pprof_error *err)
{
    return pprof__builder_intern_str(b, s ? s : "", s ? strlen(s) : 0, out, err);
}

/* ---------------------------------------------------------------- functions, mappings */

static bool
fn_eq(const pprof_builder *b, uint32_t i, const void *key)
{
    const bfn *k = key, *f = &PPROF__AT(b->fns, bfn, i);
    return f->name == k->name && f->system_name == k->system_name && f->filename == k->filename &&
           f->start_line == k->start_line;
}

pprof_status
pprof__builder_intern_fn(pprof_builder *b, const bfn *k, uint32_t *out, pprof_error *err)
{
    if (!pprof__htab_reserve(&b->h_fn, &b->alloc, 1))
        return pprof__builder_nomem(err);
    uint32_t h = pprof__bfn_hash(k);
    pprof__htab_probe pos;
    uint32_t i = pprof__builder_find(&b->h_fn, h, fn_eq, b, k, &pos);
    if (i == PPROF_NONE) {
        if (b->fns.len >= b->o.max_functions)
            return pprof__builder_limit(b, err, "max_functions", b->o.max_functions);
        bfn *f = pprof__vec_push(&b->alloc, &b->fns, sizeof(bfn));
        if (!f)
            return pprof__builder_nomem(err);
        *f = *k;
        i = (uint32_t)b->fns.len - 1;
        pprof__htab_insert_at(&b->h_fn, &pos, i);
    }
    *out = i;
    return PPROF_OK;
}

static bool
map_eq(const pprof_builder *b, uint32_t i, const void *key)
{
    const bmap *k = key, *m = &PPROF__AT(b->maps, bmap, i);
    return m->start == k->start && m->limit == k->limit && m->offset == k->offset &&
           m->filename == k->filename && m->build_id == k->build_id && m->flags == k->flags;
}

pprof_status
pprof__builder_intern_map(pprof_builder *b, const bmap *k, uint32_t *out, pprof_error *err)
{
    if (k->limit < k->start)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "mapping.memory_limit",
                            "memory_limit 0x%llx is below memory_start 0x%llx",
                            (unsigned long long)k->limit, (unsigned long long)k->start);
    if (!pprof__htab_reserve(&b->h_map, &b->alloc, 1))
        return pprof__builder_nomem(err);
    uint32_t h = pprof__bmap_hash(k);
    pprof__htab_probe pos;
    uint32_t i = pprof__builder_find(&b->h_map, h, map_eq, b, k, &pos);
    if (i == PPROF_NONE) {
        if (b->maps.len >= b->o.max_mappings)
            return pprof__builder_limit(b, err, "max_mappings", b->o.max_mappings);
        bmap *m = pprof__vec_push(&b->alloc, &b->maps, sizeof(bmap));
        if (!m)
            return pprof__builder_nomem(err);
        *m = *k;
        i = (uint32_t)b->maps.len - 1;
        pprof__htab_insert_at(&b->h_map, &pos, i);
    }
    *out = i;
    return PPROF_OK;
}

/* ---------------------------------------------------------------- locations */

typedef struct lockey {
    bloc l;
    const bline *lines;
} lockey;

static bool
loc_eq(const pprof_builder *b, uint32_t i, const void *key)
{
    const lockey *k = key;
    const bloc *l = &PPROF__AT(b->locs, bloc, i);
    if (l->map != k->l.map || l->address != k->l.address || l->folded != k->l.folded ||
        l->n_line != k->l.n_line)
        return false;
    /* lines.data is NULL until the first line, and NULL + 0 is undefined */
    const bline *ln = l->n_line ? (const bline *)b->lines.data + l->line_off : NULL;
    for (uint32_t j = 0; j < l->n_line; j++)
        if (ln[j].fn != k->lines[j].fn || ln[j].line != k->lines[j].line ||
            ln[j].column != k->lines[j].column)
            return false;
    return true;
}

pprof_status
pprof__builder_intern_loc(pprof_builder *b, const bloc *l, const bline *lines, uint32_t *out,
                          pprof_error *err)
{
    /* with a mapping it says at least where the frame was: Go's Java profiles hold such
     * locations (their addresses aggregated away) */
    if (l->address == 0 && l->n_line == 0 && l->map == 0)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "location",
                            "a location needs an address or at least one line");
    if (!pprof__htab_reserve(&b->h_loc, &b->alloc, 1))
        return pprof__builder_nomem(err);
    lockey k = {*l, lines};
    uint32_t h = pprof__bloc_hash(b, l, lines);
    pprof__htab_probe pos;
    uint32_t i = pprof__builder_find(&b->h_loc, h, loc_eq, b, &k, &pos);
    if (i == PPROF_NONE) {
        if (b->locs.len >= b->o.max_locations)
            return pprof__builder_limit(b, err, "max_locations", b->o.max_locations);
        if (b->lines.len + l->n_line > PPROF__BUILDER_MAX_U32)
            return pprof__builder_limit(b, err, "2^32 lines", UINT32_MAX);
        if (!pprof__vec_grow(&b->alloc, &b->lines, sizeof(bline), b->lines.len + l->n_line) ||
            !pprof__vec_grow(&b->alloc, &b->locs, sizeof(bloc), b->locs.len + 1))
            return pprof__builder_nomem(err);
        bloc *d = pprof__vec_push(&b->alloc, &b->locs, sizeof(bloc));
        *d = *l;
        d->line_off = (uint32_t)b->lines.len;
        if (l->n_line)
            memcpy((bline *)b->lines.data + b->lines.len, lines, l->n_line * sizeof(bline));
        b->lines.len += l->n_line;
        i = (uint32_t)b->locs.len - 1;
        pprof__htab_insert_at(&b->h_loc, &pos, i);
    }
    *out = i;
    return PPROF_OK;
}

/* ---------------------------------------------------------------- freeing */

void
pprof__builder_free_tables(pprof_builder *b)
{
    const pprof_allocator *a = &b->alloc;
    pprof__vec *v[] = {&b->bytes,   &b->strs,  &b->fns,    &b->maps,   &b->locs,    &b->lines,
                       &b->samples, &b->stack, &b->labels, &b->values, &b->comments};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        pprof__free(a, v[i]->data);
        memset(v[i], 0, sizeof(*v[i]));
    }
    pprof__htab *h[] = {&b->h_str, &b->h_fn, &b->h_map, &b->h_loc, &b->h_sample};
    for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
        pprof__htab_free(h[i], a);
}
