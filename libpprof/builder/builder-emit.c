/* Builder output and reset: the builder tables become a pprof_profile for the core writer, and
 * a reset rebuilds the tables from what open samples still reference. */
#include <stdlib.h>

#include "builder-private.h"

/* New dense ids (1..n) in first-use order; 0 = not referenced by any committed sample. */
typedef struct ids {
    uint32_t *loc, *fn, *map;
    uint32_t *loc_order, *fn_order, *map_order;
    uint32_t n_loc, n_fn, n_map;
} ids;

static void
ids_free(const pprof_allocator *a, ids *d)
{
    pprof__free(a, d->loc);
    pprof__free(a, d->fn);
    pprof__free(a, d->map);
    pprof__free(a, d->loc_order);
    pprof__free(a, d->fn_order);
    pprof__free(a, d->map_order);
}

static void *
zalloc(const pprof_allocator *a, size_t n, size_t elem)
{
    void *p = pprof__malloc(a, n * elem + 1);
    if (p)
        memset(p, 0, n * elem + 1);
    return p;
}

static bool
assign_ids(const pprof_builder *b, ids *d)
{
    const pprof_allocator *a = &b->alloc;
    d->loc = zalloc(a, b->locs.len, sizeof(uint32_t));
    d->fn = zalloc(a, b->fns.len, sizeof(uint32_t));
    d->map = zalloc(a, b->maps.len, sizeof(uint32_t));
    d->loc_order = zalloc(a, b->locs.len, sizeof(uint32_t));
    d->fn_order = zalloc(a, b->fns.len, sizeof(uint32_t));
    d->map_order = zalloc(a, b->maps.len, sizeof(uint32_t));
    if (!d->loc || !d->fn || !d->map || !d->loc_order || !d->fn_order || !d->map_order)
        return false;
    const uint32_t *stack = b->stack.data;
    for (size_t i = 0; i < b->stack.len; i++) {
        uint32_t l = stack[i];
        if (!d->loc[l]) {
            d->loc_order[d->n_loc] = l;
            d->loc[l] = ++d->n_loc;
        }
    }
    for (uint32_t k = 0; k < d->n_loc; k++) {
        const bloc *l = &PPROF__AT(b->locs, bloc, d->loc_order[k]);
        if (l->map && !d->map[l->map - 1]) {
            d->map_order[d->n_map] = l->map - 1;
            d->map[l->map - 1] = ++d->n_map;
        }
        /* lines.data is NULL until the first line, and NULL + 0 is undefined */
        const bline *ln = l->n_line ? (const bline *)b->lines.data + l->line_off : NULL;
        for (uint32_t j = 0; j < l->n_line; j++) {
            if (!d->fn[ln[j].fn]) {
                d->fn_order[d->n_fn] = ln[j].fn;
                d->fn[ln[j].fn] = ++d->n_fn;
            }
        }
    }
    return true;
}

static bool
fill_profile(const pprof_builder *b, const ids *d, pprof_profile *p)
{
    const pprof_allocator *a = &p->alloc;
    if (!pprof__vec_grow(a, &p->strings, sizeof(pprof_string), b->strs.len) ||
        !pprof__vec_grow(a, &p->sample_types, sizeof(pprof_value_type), b->n_types) ||
        !pprof__vec_grow(a, &p->samples, sizeof(pprof__sample), b->samples.len) ||
        !pprof__vec_grow(a, &p->stack, sizeof(uint64_t), b->stack.len) ||
        !pprof__vec_grow(a, &p->values, sizeof(int64_t), b->values.len) ||
        !pprof__vec_grow(a, &p->labels, sizeof(pprof_label), b->labels.len) ||
        !pprof__vec_grow(a, &p->mappings, sizeof(pprof_mapping), d->n_map) ||
        !pprof__vec_grow(a, &p->locations, sizeof(pprof__location), d->n_loc) ||
        !pprof__vec_grow(a, &p->functions, sizeof(pprof_function), d->n_fn) ||
        !pprof__vec_grow(a, &p->comments, sizeof(int64_t), b->comments.len))
        return false;
    /* Views into the builder's bytes: valid while the caller holds the builder. */
    for (size_t i = 0; i < b->strs.len; i++) {
        const bstr *s = &PPROF__AT(b->strs, bstr, i);
        pprof_string *v = &PPROF__AT(p->strings, pprof_string, i);
        v->data = s->len ? (const char *)b->bytes.data + s->off : "";
        v->len = s->len;
    }
    p->strings.len = b->strs.len;
    p->has_string_table = true;
    for (size_t i = 0; i < b->n_types; i++) {
        pprof_value_type *vt = &PPROF__AT(p->sample_types, pprof_value_type, i);
        vt->type = b->type_str[2 * i];
        vt->unit = b->type_str[2 * i + 1];
    }
    p->sample_types.len = b->n_types;

    const uint32_t *stack = b->stack.data;
    const blabel *labs = b->labels.data;
    for (size_t i = 0; i < b->samples.len; i++) {
        const bsample *s = &PPROF__AT(b->samples, bsample, i);
        pprof__sample *o = &PPROF__AT(p->samples, pprof__sample, i);
        o->loc_off = (uint32_t)p->stack.len;
        o->n_loc = s->n_loc;
        o->val_off = (uint32_t)p->values.len;
        o->n_val = (uint32_t)b->n_types;
        o->lab_off = (uint32_t)p->labels.len;
        o->n_lab = s->n_lab;
        for (uint32_t j = 0; j < s->n_loc; j++)
            PPROF__AT(p->stack, uint64_t, p->stack.len++) = d->loc[stack[s->loc_off + j]];
        memcpy((int64_t *)p->values.data + p->values.len,
               (const int64_t *)b->values.data + s->val_off, b->n_types * sizeof(int64_t));
        p->values.len += b->n_types;
        for (uint32_t j = 0; j < s->n_lab; j++) {
            const blabel *l = &labs[s->lab_off + j];
            pprof_label *ol = &PPROF__AT(p->labels, pprof_label, p->labels.len++);
            ol->key = l->key;
            ol->str = l->str;
            ol->num = l->num;
            ol->num_unit = l->unit;
        }
    }
    p->samples.len = b->samples.len;

    for (uint32_t k = 0; k < d->n_map; k++) {
        const bmap *m = &PPROF__AT(b->maps, bmap, d->map_order[k]);
        pprof_mapping *o = &PPROF__AT(p->mappings, pprof_mapping, k);
        memset(o, 0, sizeof(*o));
        o->id = k + 1;
        o->memory_start = m->start;
        o->memory_limit = m->limit;
        o->file_offset = m->offset;
        o->filename = m->filename;
        o->build_id = m->build_id;
        o->has_functions = m->flags & 1;
        o->has_filenames = m->flags & 2;
        o->has_line_numbers = m->flags & 4;
        o->has_inline_frames = m->flags & 8;
    }
    p->mappings.len = d->n_map;

    size_t n_lines = 0;
    for (uint32_t k = 0; k < d->n_loc; k++)
        n_lines += PPROF__AT(b->locs, bloc, d->loc_order[k]).n_line;
    if (!pprof__vec_grow(a, &p->lines, sizeof(pprof_line), n_lines))
        return false;
    for (uint32_t k = 0; k < d->n_loc; k++) {
        const bloc *l = &PPROF__AT(b->locs, bloc, d->loc_order[k]);
        pprof__location *o = &PPROF__AT(p->locations, pprof__location, k);
        memset(o, 0, sizeof(*o));
        o->id = k + 1;
        o->mapping_id = l->map ? d->map[l->map - 1] : 0;
        o->address = l->address;
        o->is_folded = l->folded;
        o->line_off = (uint32_t)p->lines.len;
        o->n_line = l->n_line;
        const bline *ln = l->n_line ? (const bline *)b->lines.data + l->line_off : NULL;
        for (uint32_t j = 0; j < l->n_line; j++) {
            pprof_line *ol = &PPROF__AT(p->lines, pprof_line, p->lines.len++);
            ol->function_id = d->fn[ln[j].fn];
            ol->line = ln[j].line;
            ol->column = ln[j].column;
        }
    }
    p->locations.len = d->n_loc;

    for (uint32_t k = 0; k < d->n_fn; k++) {
        const bfn *f = &PPROF__AT(b->fns, bfn, d->fn_order[k]);
        pprof_function *o = &PPROF__AT(p->functions, pprof_function, k);
        o->id = k + 1;
        o->name = f->name;
        o->system_name = f->system_name;
        o->filename = f->filename;
        o->start_line = f->start_line;
    }
    p->functions.len = d->n_fn;

    for (size_t i = 0; i < b->comments.len; i++)
        PPROF__AT(p->comments, int64_t, i) = PPROF__AT(b->comments, uint32_t, i);
    p->comments.len = b->comments.len;
    p->hdr.period_type.type = b->period_type;
    p->hdr.period_type.unit = b->period_unit;
    p->hdr.period = b->o.period;
    p->hdr.time_nanos = b->time_nanos;
    p->hdr.duration_nanos = b->duration_nanos;
    p->hdr.default_sample_type = b->default_type;
    return true;
}

pprof_status
pprof__builder_encode(pprof_builder *b, const pprof_write_options *opts, pprof_buffer *out,
                      pprof_error *err)
{
    ids d = {0};
    pprof_profile *p = pprof__profile_new(&b->alloc);
    pprof_status st;
    if (!p || !assign_ids(b, &d) || !fill_profile(b, &d, p))
        st = pprof__builder_nomem(err);
    else
        st = pprof_profile_write_memory(p, opts, out, err);
    ids_free(&b->alloc, &d);
    pprof_profile_free(p);
    return st;
}

/* ---------------------------------------------------------------- compaction */

typedef struct tables {
    pprof__vec bytes, strs, fns, maps, locs, lines;
    pprof__htab h_str, h_fn, h_map, h_loc;
} tables;

static void
tables_free(const pprof_allocator *a, tables *t)
{
    pprof__vec *v[] = {&t->bytes, &t->strs, &t->fns, &t->maps, &t->locs, &t->lines};
    for (size_t i = 0; i < 6; i++)
        pprof__free(a, v[i]->data);
    pprof__htab_free(&t->h_str, a);
    pprof__htab_free(&t->h_fn, a);
    pprof__htab_free(&t->h_map, a);
    pprof__htab_free(&t->h_loc, a);
    memset(t, 0, sizeof(*t));
}

/* Old index -> new index maps (PPROF_NONE = dropped). */
typedef struct remap {
    uint32_t *str, *fn, *map, *loc;
} remap;

static void
remap_free(const pprof_allocator *a, remap *r)
{
    pprof__free(a, r->str);
    pprof__free(a, r->fn);
    pprof__free(a, r->map);
    pprof__free(a, r->loc);
}

static uint32_t *
nones(const pprof_allocator *a, size_t n)
{
    uint32_t *p = pprof__malloc(a, n * sizeof(uint32_t) + 1);
    if (p)
        memset(p, 0xff, n * sizeof(uint32_t));
    return p;
}

/* Marks what must survive: configuration strings and everything open samples reach. Marked
 * entries get 0 in the maps; numbering happens afterwards in table order. */
static void
mark(const pprof_builder *b, remap *r)
{
    for (uint32_t i = 0; i < b->n_config_strings; i++)
        r->str[i] = 0;
    for (size_t i = 0; i < b->opens.len; i++) {
        const bopen *o = &PPROF__AT(b->opens, bopen, i);
        if (!o->live)
            continue;
        for (size_t j = 0; j < o->locs.len; j++)
            r->loc[PPROF__AT(o->locs, uint32_t, j)] = 0;
        for (size_t j = 0; j < o->labs.len; j++) {
            const blabel *l = &PPROF__AT(o->labs, blabel, j);
            r->str[l->key] = r->str[l->str] = r->str[l->unit] = 0;
        }
    }
    for (size_t i = 0; i < b->locs.len; i++) {
        if (r->loc[i])
            continue;
        const bloc *l = &PPROF__AT(b->locs, bloc, i);
        if (l->map)
            r->map[l->map - 1] = 0;
        for (uint32_t j = 0; j < l->n_line; j++)
            r->fn[PPROF__AT(b->lines, bline, l->line_off + j).fn] = 0;
    }
    for (size_t i = 0; i < b->fns.len; i++) {
        if (r->fn[i])
            continue;
        const bfn *f = &PPROF__AT(b->fns, bfn, i);
        r->str[f->name] = r->str[f->system_name] = r->str[f->filename] = 0;
    }
    for (size_t i = 0; i < b->maps.len; i++) {
        if (r->map[i])
            continue;
        const bmap *m = &PPROF__AT(b->maps, bmap, i);
        r->str[m->filename] = r->str[m->build_id] = 0;
    }
    r->str[0] = 0;
}

static size_t
number(uint32_t *m, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i] == 0)
            m[i] = (uint32_t)k++;
    return k;
}

static bool
rebuild(const pprof_builder *b, const remap *r, tables *t)
{
    const pprof_allocator *a = &b->alloc;
    size_t ns = number(r->str, b->strs.len), nf = number(r->fn, b->fns.len);
    size_t nm = number(r->map, b->maps.len), nl = number(r->loc, b->locs.len);
    size_t nbytes = 0, nlines = 0;
    for (size_t i = 0; i < b->strs.len; i++)
        if (r->str[i] != PPROF_NONE)
            nbytes += PPROF__AT(b->strs, bstr, i).len;
    for (size_t i = 0; i < b->locs.len; i++)
        if (r->loc[i] != PPROF_NONE)
            nlines += PPROF__AT(b->locs, bloc, i).n_line;
    if (!pprof__vec_grow(a, &t->bytes, 1, nbytes) ||
        !pprof__vec_grow(a, &t->strs, sizeof(bstr), ns) ||
        !pprof__vec_grow(a, &t->fns, sizeof(bfn), nf) ||
        !pprof__vec_grow(a, &t->maps, sizeof(bmap), nm) ||
        !pprof__vec_grow(a, &t->locs, sizeof(bloc), nl) ||
        !pprof__vec_grow(a, &t->lines, sizeof(bline), nlines) ||
        !pprof__htab_reserve(&t->h_str, a, ns) || !pprof__htab_reserve(&t->h_fn, a, nf) ||
        !pprof__htab_reserve(&t->h_map, a, nm) || !pprof__htab_reserve(&t->h_loc, a, nl))
        return false;
    for (size_t i = 0; i < b->strs.len; i++) {
        if (r->str[i] == PPROF_NONE)
            continue;
        const bstr *s = &PPROF__AT(b->strs, bstr, i);
        const char *src = (const char *)b->bytes.data + s->off;
        bstr *d = &PPROF__AT(t->strs, bstr, t->strs.len++);
        d->off = (uint32_t)t->bytes.len;
        d->len = s->len;
        if (s->len)
            memcpy((char *)t->bytes.data + t->bytes.len, src, s->len);
        t->bytes.len += s->len;
        if (i)
            pprof__htab_add(&t->h_str, pprof__bstr_hash(src, s->len), (uint32_t)t->strs.len - 1);
    }
    for (size_t i = 0; i < b->fns.len; i++) {
        if (r->fn[i] == PPROF_NONE)
            continue;
        bfn f = PPROF__AT(b->fns, bfn, i);
        f.name = r->str[f.name];
        f.system_name = r->str[f.system_name];
        f.filename = r->str[f.filename];
        PPROF__AT(t->fns, bfn, t->fns.len++) = f;
        pprof__htab_add(&t->h_fn, pprof__bfn_hash(&f), (uint32_t)t->fns.len - 1);
    }
    for (size_t i = 0; i < b->maps.len; i++) {
        if (r->map[i] == PPROF_NONE)
            continue;
        bmap m = PPROF__AT(b->maps, bmap, i);
        m.filename = r->str[m.filename];
        m.build_id = r->str[m.build_id];
        PPROF__AT(t->maps, bmap, t->maps.len++) = m;
        pprof__htab_add(&t->h_map, pprof__bmap_hash(&m), (uint32_t)t->maps.len - 1);
    }
    for (size_t i = 0; i < b->locs.len; i++) {
        if (r->loc[i] == PPROF_NONE)
            continue;
        bloc l = PPROF__AT(b->locs, bloc, i);
        const bline *src = l.n_line ? (const bline *)b->lines.data + l.line_off : NULL;
        l.map = l.map ? r->map[l.map - 1] + 1 : 0;
        l.line_off = (uint32_t)t->lines.len;
        bline *dst = l.n_line ? (bline *)t->lines.data + t->lines.len : NULL;
        for (uint32_t j = 0; j < l.n_line; j++) {
            dst[j] = src[j];
            dst[j].fn = r->fn[src[j].fn];
        }
        t->lines.len += l.n_line;
        PPROF__AT(t->locs, bloc, t->locs.len++) = l;
        pprof__htab_add(&t->h_loc, pprof__bloc_hash(b, &l, dst), (uint32_t)t->locs.len - 1);
    }
    return true;
}

pprof_status
pprof__builder_compact(pprof_builder *b, pprof_error *err)
{
    const pprof_allocator *a = &b->alloc;
    remap r = {nones(a, b->strs.len), nones(a, b->fns.len), nones(a, b->maps.len),
               nones(a, b->locs.len)};
    tables t = {0};
    if (!r.str || !r.fn || !r.map || !r.loc) {
        remap_free(a, &r);
        return pprof__builder_nomem(err);
    }
    mark(b, &r);
    if (!rebuild(b, &r, &t)) {
        tables_free(a, &t);
        remap_free(a, &r);
        return pprof__builder_nomem(err);
    }
    /* Nothing can fail from here on. */
    for (size_t i = 0; i < b->opens.len; i++) {
        bopen *o = &PPROF__AT(b->opens, bopen, i);
        if (!o->live)
            continue;
        for (size_t j = 0; j < o->locs.len; j++)
            PPROF__AT(o->locs, uint32_t, j) = r.loc[PPROF__AT(o->locs, uint32_t, j)];
        for (size_t j = 0; j < o->labs.len; j++) {
            blabel *l = &PPROF__AT(o->labs, blabel, j);
            l->key = r.str[l->key];
            l->str = r.str[l->str];
            l->unit = r.str[l->unit];
        }
    }
    remap_free(a, &r);
    pprof__builder_free_tables(b);
    b->bytes = t.bytes;
    b->strs = t.strs;
    b->fns = t.fns;
    b->maps = t.maps;
    b->locs = t.locs;
    b->lines = t.lines;
    b->h_str = t.h_str;
    b->h_fn = t.h_fn;
    b->h_map = t.h_map;
    b->h_loc = t.h_loc;
    pprof__free(a, b->scratch_locs.data);
    pprof__free(a, b->scratch_labs.data);
    memset(&b->scratch_locs, 0, sizeof(b->scratch_locs));
    memset(&b->scratch_labs, 0, sizeof(b->scratch_labs));
    b->time_nanos = b->duration_nanos = 0;
    b->gen = b->gen == UINT32_MAX ? 1 : b->gen + 1;
    return PPROF_OK;
}
