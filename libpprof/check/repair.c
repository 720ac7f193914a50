/* Repair: a new model in which every error-level rule of the checker holds, built by copying
 * the input and changing only what breaks a rule. The policy for each kind is in fixes.def; the
 * guiding choice is to keep samples and their values (a broken frame is removed from a stack
 * rather than the sample dropped), except where the values themselves cannot be read. */
#include <stdio.h>

#include "check-private.h"
#include "hash-private.h"

static const struct {
    const char *name, *what;
} FIXES[] = {
#define PPROF_FIX(sym, name, what) {name, what},
#include "fixes.def"
#undef PPROF_FIX
};

const char *
pprof_fix_name(pprof_fix fix)
{
    return (unsigned)fix < PPROF_FIX_COUNT ? FIXES[fix].name : NULL;
}

const char *
pprof_fix_description(pprof_fix fix)
{
    return (unsigned)fix < PPROF_FIX_COUNT ? FIXES[fix].what : NULL;
}

typedef struct rep {
    const pprof_profile *p;
    pprof_profile *q;
    const pprof_allocator *a;
    pprof_repair_stats *st;
    size_t nstr_old;
    /* old entity index -> new id (0 = dropped) */
    uint64_t *map_new, *fn_new;
    uint32_t *loc_to; /* old location index -> new location index, PPROF_NONE = dropped */
    uint64_t *loc_new;
    uint32_t *mref; /* old location index -> old index of its mapping, PPROF_NONE = none */
} rep;

#define FIX(r, kind) ((r)->st->count[PPROF_FIX_##kind]++)

static int64_t
smap(rep *r, int64_t i)
{
    if (i < 0 || (uint64_t)i >= r->nstr_old) {
        if (!(i == 0 && r->nstr_old == 0))
            FIX(r, STRING_INDEX);
        return 0;
    }
    return i;
}

/* Length of s with every byte that is not part of valid UTF-8 replaced by U+FFFD. */
static size_t
sanitized_len(const uint8_t *s, size_t n)
{
    size_t out = 0, i = 0, bad;
    while (i < n) {
        if (pprof__utf8_valid(s + i, n - i, &bad))
            return out + (n - i);
        out += bad + 3;
        i += bad + 1;
    }
    return out;
}

static char *
sanitize(char *dst, const uint8_t *s, size_t n)
{
    size_t i = 0, bad;
    while (i < n) {
        if (pprof__utf8_valid(s + i, n - i, &bad)) {
            memcpy(dst, s + i, n - i);
            return dst + (n - i);
        }
        memcpy(dst, s + i, bad);
        dst += bad;
        memcpy(dst, "\xef\xbf\xbd", 3);
        dst += 3;
        i += bad + 1;
    }
    return dst;
}

static bool
copy_strings(rep *r)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    const pprof_string *s = p->strings.data;
    size_t n = p->strings.len;
    r->nstr_old = n;
    /* A field left at 0 is indistinguishable from an absent one in proto3, so index 0 must read
     * as "": a non-empty entry 0 is replaced rather than kept under its index. */
    if (n == 0 || s[0].len != 0)
        FIX(r, STRING_TABLE);
    size_t total = 0;
    for (size_t i = 1; i < n; i++)
        total += sanitized_len((const uint8_t *)s[i].data, s[i].len);
    char *buf = pprof__arena_alloc(&q->arena, total + 1);
    size_t out_n = n ? n : 1;
    if (!buf || !pprof__vec_grow(r->a, &q->strings, sizeof(pprof_string), out_n))
        return false;
    pprof_string *o = q->strings.data;
    q->strings.len = out_n;
    o[0].data = "";
    o[0].len = 0;
    char *w = buf;
    for (size_t i = 1; i < n; i++) {
        size_t bad;
        const char *start = w;
        if (pprof__utf8_valid((const uint8_t *)s[i].data, s[i].len, &bad)) {
            memcpy(w, s[i].data, s[i].len);
            w += s[i].len;
        } else {
            FIX(r, UTF8);
            w = sanitize(w, (const uint8_t *)s[i].data, s[i].len);
        }
        o[i].data = start;
        o[i].len = (size_t)(w - start);
    }
    q->has_string_table = true;
    return true;
}

/* New ids for one table: an entity keeps its id when it is nonzero and the one lookups resolve
 * to. Any other entity gets its position + 1 when no entity has that id, since producers that
 * forget ids almost always number by position (the .NET profile in the corpus does), and
 * otherwise a fresh id above every id and position in use. */
static bool
new_ids(rep *r, const uint8_t *ids, size_t stride, size_t n, const pprof__idmap *m, uint64_t **out)
{
    uint64_t *nid = pprof__malloc(r->a, (n + 1) * sizeof(uint64_t));
    if (!nid)
        return false;
    uint64_t max = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = *(const uint64_t *)(ids + i * stride);
        if (id > max)
            max = id;
    }
    /* Fresh ids count up from max + 1; when ids reach UINT64_MAX that would wrap to the
     * reserved 0, so search upwards from n + 1 for ids nobody uses instead. */
    uint64_t next = max + 1, search = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = *(const uint64_t *)(ids + i * stride);
        if (id != 0 && pprof__idmap_get(m, id) == i) {
            nid[i] = id;
            continue;
        }
        FIX(r, ID);
        if (pprof__idmap_get(m, i + 1) == PPROF_NONE) {
            nid[i] = i + 1;
        } else if (next != 0) {
            nid[i] = next++;
        } else {
            while (pprof__idmap_get(m, ++search) != PPROF_NONE)
                ;
            nid[i] = search;
        }
    }
    *out = nid;
    return true;
}

/* Old index an id refers to; a dangling reference to an entity that had no usable id resolves
 * to the entity that now carries that id, which is what its producer meant. */
static uint32_t
resolve(const pprof__idmap *m, const uint64_t *nid, size_t n, uint64_t id)
{
    uint32_t i = id ? pprof__idmap_get(m, id) : PPROF_NONE;
    if (i == PPROF_NONE && id && id <= n && nid[id - 1] == id)
        i = (uint32_t)(id - 1);
    return i;
}

static bool
same_seq(const pprof_line *a, const pprof_line *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].function_id != b[i].function_id || a[i].line != b[i].line ||
            a[i].column != b[i].column)
            return false;
    return true;
}

static bool
copy_functions(rep *r)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    size_t nf = p->functions.len;
    if (!pprof__vec_grow(r->a, &q->functions, sizeof(pprof_function), nf + 1))
        return false;
    for (size_t i = 0; i < nf; i++) {
        pprof_function f = PPROF__AT(p->functions, pprof_function, i);
        f.id = r->fn_new[i];
        f.name = smap(r, f.name);
        f.system_name = smap(r, f.system_name);
        f.filename = smap(r, f.filename);
        PPROF__AT(q->functions, pprof_function, q->functions.len++) = f;
    }
    return true;
}

/* Locations, first pass: resolved mapping and lines into q; a location left with neither an
 * address nor a line is dropped (loc_to = PPROF_NONE). */
static bool
copy_locations(rep *r)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    const pprof_allocator *a = r->a;
    size_t nl = p->locations.len, nf = p->functions.len;
    const pprof__location *ol = p->locations.data;
    r->loc_to = pprof__malloc(a, (nl + 1) * sizeof(uint32_t));
    r->mref = pprof__malloc(a, (nl + 1) * sizeof(uint32_t));
    if (!r->loc_to || !r->mref ||
        !pprof__vec_grow(a, &q->locations, sizeof(pprof__location), nl + 1) ||
        !pprof__vec_grow(a, &q->lines, sizeof(pprof_line), p->lines.len + 1))
        return false;
    uint32_t *mref = r->mref;
    for (size_t i = 0; i < nl; i++) {
        pprof__location l = ol[i];
        l.id = r->loc_new[i];
        mref[i] = PPROF_NONE;
        if (l.mapping_id) {
            mref[i] = resolve(&p->map_idx, r->map_new, p->mappings.len, l.mapping_id);
            if (mref[i] == PPROF_NONE) {
                FIX(r, LOCATION_MAPPING);
                l.mapping_id = 0;
            } else {
                l.mapping_id = r->map_new[mref[i]];
            }
        }
        l.line_off = (uint32_t)q->lines.len;
        l.n_line = 0;
        for (uint32_t j = 0; j < ol[i].n_line; j++) {
            pprof_line ln = PPROF__AT(p->lines, pprof_line, ol[i].line_off + j);
            uint32_t fi = resolve(&p->fn_idx, r->fn_new, nf, ln.function_id);
            if (fi == PPROF_NONE) {
                FIX(r, LINE_FUNCTION);
                continue;
            }
            ln.function_id = r->fn_new[fi];
            PPROF__AT(q->lines, pprof_line, q->lines.len++) = ln;
            l.n_line++;
        }
        if (l.address == 0 && l.n_line == 0) {
            FIX(r, EMPTY_LOCATION);
            q->lines.len = l.line_off;
            r->loc_to[i] = PPROF_NONE;
            continue;
        }
        r->loc_to[i] = (uint32_t)q->locations.len;
        PPROF__AT(q->locations, pprof__location, q->locations.len++) = l;
    }
    return true;
}

static uint64_t
addr_hash(const pprof__location *l)
{
    return pprof__mix64(l->address ^ pprof__mix64(l->mapping_id));
}

static bool
same_addr(const pprof__location *x, const pprof__location *y)
{
    return x->address == y->address && x->mapping_id == y->mapping_id;
}

/* S1: every location at one (mapping, address) takes the longest expansion: canon[i] is the
 * location that replaces i (i itself when it stays). */
static bool
pick_inline_groups(rep *r, uint32_t *canon)
{
    const pprof_allocator *a = r->a;
    size_t n = r->q->locations.len;
    const pprof__location *L = r->q->locations.data;
    const pprof_line *LN = r->q->lines.data;
    /* groups: (mapping, address) -> the group's first location; best[first]: its location
     * with the most lines, the first of equals. canon holds each member's first for now. */
    pprof__htab groups = {0};
    uint32_t *best = pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    if (!best || !pprof__htab_init(&groups, a, n)) {
        pprof__free(a, best);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        canon[i] = (uint32_t)i;
        if (!L[i].address)
            continue;
        pprof__htab_probe at;
        uint32_t g;
        PPROF__HTAB_FIND(&groups, addr_hash(&L[i]), at, g, same_addr(&L[g], &L[i]));
        if (g == PPROF_NONE) {
            pprof__htab_insert_at(&groups, &at, (uint32_t)i);
            best[i] = (uint32_t)i;
            continue;
        }
        canon[i] = g;
        if (L[i].n_line > L[best[g]].n_line)
            best[g] = (uint32_t)i;
    }
    /* Resolve each member to its group's final best, and count the ones that differ. */
    for (size_t i = 0; i < n; i++) {
        uint32_t b = L[i].address ? best[canon[i]] : (uint32_t)i;
        if (b != i && (L[b].n_line != L[i].n_line ||
                       !same_seq(LN + L[b].line_off, LN + L[i].line_off, L[i].n_line))) {
            FIX(r, INLINE);
            canon[i] = b;
        } else {
            canon[i] = (uint32_t)i;
        }
    }
    pprof__htab_free(&groups, a);
    pprof__free(a, best);
    return true;
}

/* Drops the locations S1 replaced and renumbers loc_to. */
static bool
merge_inline_groups(rep *r)
{
    const pprof_allocator *a = r->a;
    pprof_profile *q = r->q;
    size_t n = q->locations.len, nl = r->p->locations.len, kept = 0;
    uint32_t *canon = pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    uint32_t *newpos = pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    if (!canon || !newpos || !pick_inline_groups(r, canon)) {
        pprof__free(a, canon);
        pprof__free(a, newpos);
        return false;
    }
    pprof__location *L = q->locations.data;
    for (size_t i = 0; i < n; i++)
        newpos[i] = canon[i] == i ? (uint32_t)kept++ : PPROF_NONE;
    for (size_t i = 0; i < nl; i++)
        if (r->loc_to[i] != PPROF_NONE)
            r->loc_to[i] = newpos[canon[r->loc_to[i]]];
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (newpos[i] != PPROF_NONE)
            L[w++] = L[i];
    q->locations.len = w;
    pprof__free(a, canon);
    pprof__free(a, newpos);
    return true;
}

/* Mappings, with memory_limit raised over their locations when below start. */
static bool
copy_mappings(rep *r)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    const pprof_allocator *a = r->a;
    size_t nm = p->mappings.len, nl = p->locations.len;
    const pprof__location *ol = p->locations.data;
    /* One pass over the locations: the highest address + 1 on each mapping, 0 for none. */
    uint64_t *top = pprof__malloc(a, (nm + 1) * sizeof(uint64_t));
    if (!top || !pprof__vec_grow(a, &q->mappings, sizeof(pprof_mapping), nm + 1)) {
        pprof__free(a, top);
        return false;
    }
    memset(top, 0, (nm + 1) * sizeof(uint64_t));
    for (size_t j = 0; j < nl; j++) {
        uint64_t end = ol[j].address == UINT64_MAX ? UINT64_MAX : ol[j].address + 1;
        if (r->mref[j] != PPROF_NONE && end > top[r->mref[j]])
            top[r->mref[j]] = end;
    }
    for (size_t i = 0; i < nm; i++) {
        pprof_mapping m = PPROF__AT(p->mappings, pprof_mapping, i);
        m.id = r->map_new[i];
        m.filename = smap(r, m.filename);
        m.build_id = smap(r, m.build_id);
        if (m.memory_limit < m.memory_start) {
            m.memory_limit = top[i] > m.memory_start ? top[i] : m.memory_start;
            FIX(r, MAPPING_LIMIT);
        }
        PPROF__AT(q->mappings, pprof_mapping, q->mappings.len++) = m;
    }
    pprof__free(a, top);
    return true;
}

/* Types for the first sample that has values; samples without values cannot be typed at all
 * and are dropped later (a profile's samples need sample types). Sets *nt to the count. */
static bool
invent_sample_types(rep *r, size_t *nt)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    const pprof_allocator *a = r->a;
    for (size_t i = 0; i < p->samples.len && *nt == 0; i++)
        *nt = PPROF__AT(p->samples, pprof__sample, i).n_val;
    int64_t unit = -1;
    for (size_t i = 0; i < *nt; i++) {
        char name[32];
        int len = snprintf(name, sizeof(name), "value%zu", i);
        char *d = pprof__arena_alloc(&q->arena, (size_t)len + 1);
        pprof_string *s = d ? pprof__vec_push(a, &q->strings, sizeof(pprof_string)) : NULL;
        if (!s)
            return false;
        memcpy(d, name, (size_t)len + 1);
        *s = (pprof_string){d, (size_t)len};
        if (unit < 0) {
            pprof_string *u = pprof__vec_push(a, &q->strings, sizeof(pprof_string));
            if (!u)
                return false;
            *u = (pprof_string){"count", 5};
            unit = (int64_t)q->strings.len - 1;
            s = &PPROF__AT(q->strings, pprof_string, q->strings.len - 2);
        }
        pprof_value_type *t = pprof__vec_push(a, &q->sample_types, sizeof(*t));
        if (!t)
            return false;
        t->type = (int64_t)(s - (pprof_string *)q->strings.data);
        t->unit = unit;
        FIX(r, SAMPLE_TYPE);
    }
    return true;
}

/* Sample types; *nt is the number every kept sample must have values for. */
static bool
copy_sample_types(rep *r, size_t *nt)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    *nt = p->sample_types.len;
    if (!pprof__vec_grow(r->a, &q->sample_types, sizeof(pprof_value_type), *nt + 1))
        return false;
    for (size_t i = 0; i < *nt; i++) {
        pprof_value_type t = PPROF__AT(p->sample_types, pprof_value_type, i);
        t.type = smap(r, t.type);
        t.unit = smap(r, t.unit);
        PPROF__AT(q->sample_types, pprof_value_type, q->sample_types.len++) = t;
    }
    if (*nt == 0 && p->samples.len)
        return invent_sample_types(r, nt);
    return true;
}

static bool
copy_samples(rep *r, size_t nt)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    const pprof_allocator *a = r->a;
    const pprof__sample *os = p->samples.data;
    /* Samples may share stack entries (a merged profile's do), so count what the copy needs. */
    size_t n_entries = 0, n_values = 0, n_labels = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        n_entries += os[i].n_loc;
        n_values += os[i].n_val;
        n_labels += os[i].n_lab;
    }
    if (n_entries >= UINT32_MAX || n_values >= UINT32_MAX || n_labels >= UINT32_MAX ||
        !pprof__vec_grow(a, &q->samples, sizeof(pprof__sample), p->samples.len + 1) ||
        !pprof__vec_grow(a, &q->stack, sizeof(uint64_t), n_entries + 1) ||
        !pprof__vec_grow(a, &q->values, sizeof(int64_t), n_values + 1) ||
        !pprof__vec_grow(a, &q->labels, sizeof(pprof_label), n_labels + 1))
        return false;
    const pprof__location *QL = q->locations.data;
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *x = &os[i];
        if (x->n_val != nt || nt == 0) {
            FIX(r, VALUE_COUNT);
            continue;
        }
        pprof__sample y = {(uint32_t)q->stack.len,  0,       (uint32_t)q->values.len, x->n_val,
                           (uint32_t)q->labels.len, x->n_lab};
        for (uint32_t j = 0; j < x->n_loc; j++) {
            uint64_t id = PPROF__AT(p->stack, uint64_t, x->loc_off + j);
            uint32_t oi = resolve(&p->loc_idx, r->loc_new, p->locations.len, id);
            uint32_t ni = oi == PPROF_NONE ? PPROF_NONE : r->loc_to[oi];
            if (ni == PPROF_NONE) {
                if (oi == PPROF_NONE)
                    FIX(r, SAMPLE_LOCATION);
                continue;
            }
            PPROF__AT(q->stack, uint64_t, q->stack.len++) = QL[ni].id;
            y.n_loc++;
        }
        if (x->n_val) /* values.data may be NULL, and NULL + 0 is undefined */
            memcpy((int64_t *)q->values.data + q->values.len,
                   (const int64_t *)p->values.data + x->val_off, x->n_val * sizeof(int64_t));
        q->values.len += x->n_val;
        for (uint32_t j = 0; j < x->n_lab; j++) {
            pprof_label l = PPROF__AT(p->labels, pprof_label, x->lab_off + j);
            l.key = smap(r, l.key);
            l.str = smap(r, l.str);
            l.num_unit = smap(r, l.num_unit);
            PPROF__AT(q->labels, pprof_label, q->labels.len++) = l;
        }
        PPROF__AT(q->samples, pprof__sample, q->samples.len++) = y;
    }
    return true;
}

static bool
copy_header(rep *r)
{
    const pprof_profile *p = r->p;
    pprof_profile *q = r->q;
    q->hdr = p->hdr;
    q->hdr.comment = NULL;
    q->hdr.n_comment = 0;
    q->hdr.period_type.type = smap(r, p->hdr.period_type.type);
    q->hdr.period_type.unit = smap(r, p->hdr.period_type.unit);
    q->hdr.drop_frames = smap(r, p->hdr.drop_frames);
    q->hdr.keep_frames = smap(r, p->hdr.keep_frames);
    q->hdr.default_sample_type = smap(r, p->hdr.default_sample_type);
    q->hdr.doc_url = smap(r, p->hdr.doc_url);
    if (!pprof__vec_grow(r->a, &q->comments, sizeof(int64_t), p->comments.len + 1))
        return false;
    for (size_t i = 0; i < p->comments.len; i++)
        PPROF__AT(q->comments, int64_t, q->comments.len++) =
            smap(r, PPROF__AT(p->comments, int64_t, i));
    return true;
}

/* The copy, table by table in the order the references need: ids first, then each table that
 * others refer to before the tables that refer to it. Only allocation can fail. */
static pprof_status
repair(rep *r)
{
    const pprof_profile *p = r->p;
    size_t nt = 0;
    bool ok = copy_strings(r) &&
              new_ids(r, p->mappings.data, sizeof(pprof_mapping), p->mappings.len, &p->map_idx,
                      &r->map_new) &&
              new_ids(r, p->functions.data, sizeof(pprof_function), p->functions.len, &p->fn_idx,
                      &r->fn_new) &&
              new_ids(r, p->locations.data, sizeof(pprof__location), p->locations.len, &p->loc_idx,
                      &r->loc_new) &&
              copy_functions(r) && copy_locations(r) && merge_inline_groups(r) &&
              copy_mappings(r) && copy_sample_types(r, &nt) && copy_samples(r, nt) &&
              copy_header(r);
    return ok ? PPROF_OK : PPROF_E_NOMEM;
}

pprof_status
pprof_repair(const pprof_profile *p, pprof_profile **out, pprof_repair_stats *stats,
             pprof_error *err)
{
    if (out)
        *out = NULL;
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    pprof_repair_stats local;
    memset(&local, 0, sizeof(local));
    rep r = {.p = p, .a = &p->alloc, .st = &local};
    r.q = pprof__profile_new(&p->alloc);
    if (!r.q)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    r.q->source_format = p->source_format;
    st = repair(&r);
    pprof__free(r.a, r.map_new);
    pprof__free(r.a, r.fn_new);
    pprof__free(r.a, r.loc_to);
    pprof__free(r.a, r.loc_new);
    pprof__free(r.a, r.mref);
    if (st) {
        pprof_profile_free(r.q);
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    }
    if (stats) {
        local.struct_size = stats->struct_size;
        memcpy(stats, &local,
               stats->struct_size < sizeof(local) ? stats->struct_size : sizeof(local));
    }
    *out = r.q;
    return PPROF_OK;
}
