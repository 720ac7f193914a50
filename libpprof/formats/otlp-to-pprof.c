/* OTLP (opentelemetry-proto ac2c4b5) -> pprof. The grouping rule and what becomes of links and
 * timestamps are in otlp.h and docs/otlp.md. The pprof profiles are built straight into the
 * model: the OTLP string table is their string table (index 0 forced to ""), and dictionary
 * index k is id k of the mapping, location or function, so nothing is renumbered. */
#include <stdio.h>
#include <stdlib.h>

#include "htab-private.h"
#include "memory-private.h"
#include "otlp-private.h"

typedef struct conv {
    const pprof_otlp *o;
    pprof_profile *p;
    const pprof_allocator *a;
    pprof_error *err;
    const pprof__otlp_profile *pr; /* the profile whose samples are read, for paths */
    /* Each attribute converted to labels once: its range in lab (NONE: not yet). */
    uint32_t *attr_off, *attr_n;
    pprof__vec cache;    /* pprof_label: the attributes' labels */
    pprof__vec lab;      /* pprof_label: the sample's being gathered */
    uint32_t *stack_off; /* each stack's range in p->stack (NONE: not yet) */
    pprof__vec next;     /* uint32_t per pprof sample: the next of its sample key (samples()) */
    int64_t s_trace, s_span, s_ts, s_ns, s_true, s_false;
    uint64_t n_labels;
    uint64_t max_labels;
} conv;

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        pprof_status st_ = (expr);                                                                 \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)

static pprof_status
nomem(conv *c)
{
    return pprof__error(c->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static pprof_status bad(conv *c, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* fmt's arguments form the path; the message says the index is out of range. */
static pprof_status
bad(conv *c, uint64_t off, const char *fmt, ...)
{
    char path[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return pprof__error(c->err, PPROF_E_INVALID, off, path, "index out of range of its table");
}

static pprof_status too_late(conv *c, uint64_t t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A time (fmt's arguments form the path) past what pprof's int64 fields and labels hold. */
static pprof_status
too_late(conv *c, uint64_t t, const char *fmt, ...)
{
    char path[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                        "%llu is above %lld, the largest time pprof holds (int64 nanoseconds)",
                        (unsigned long long)t, (long long)INT64_MAX);
}

static bool
in(int64_t i, size_t n)
{
    return i >= 0 && (uint64_t)i < n;
}

static int64_t
add_str(conv *c, const void *s, size_t len)
{
    pprof_string *slot = pprof__vec_push(c->a, &c->p->strings, sizeof(pprof_string));
    if (!slot)
        return -1;
    char *copy = pprof__arena_alloc(&c->p->arena, len ? len : 1);
    if (!copy) {
        c->p->strings.len--;
        return -1;
    }
    if (len)
        memcpy(copy, s, len);
    slot->data = copy;
    slot->len = len;
    return (int64_t)(c->p->strings.len - 1);
}

static int64_t
add_cstr(conv *c, const char *s)
{
    return add_str(c, s, strlen(s));
}

static int64_t
add_hex(conv *c, pprof_string b)
{
    char tmp[129];
    size_t n = b.len > 64 ? 64 : b.len;
    for (size_t i = 0; i < n; i++)
        snprintf(tmp + 2 * i, 3, "%02x", (unsigned char)b.data[i]);
    return add_str(c, tmp, 2 * n);
}

static bool
str_is(const pprof_otlp *o, int32_t i, const char *s)
{
    pprof_string v = {"", 0};
    return pprof__otlp_str(o, i, &v) && v.len == strlen(s) && memcmp(v.data, s, v.len) == 0;
}

/* A scalar AnyValue as a pprof label value: str or num (with unit). False for what has none. */
static bool
scalar_label(conv *c, const pprof__any *v, int64_t unit, pprof_label *l, bool *fail)
{
    char tmp[40];
    l->str = l->num = l->num_unit = 0;
    switch (v->kind) {
    case PPROF__ANY_STRING: l->str = add_str(c, v->s.data, v->s.len); break;
    case PPROF__ANY_STRINDEX:
        if (!in(v->i, c->o->strings.len)) {
            *fail = true;
            return false;
        }
        l->str = v->i ? v->i : add_str(c, "", 0);
        break;
    case PPROF__ANY_BOOL: l->str = v->i ? c->s_true : c->s_false; break;
    case PPROF__ANY_INT:
        l->num = v->i;
        l->num_unit = unit;
        return true;
    case PPROF__ANY_DOUBLE:
        snprintf(tmp, sizeof(tmp), "%.17g", v->d);
        l->str = add_cstr(c, tmp);
        break;
    case PPROF__ANY_BYTES: l->str = add_hex(c, v->s); break;
    default: return false;
    }
    if (l->str < 0) {
        *fail = true;
        return false;
    }
    return true;
}

/* The labels of attribute i: one, or one per element of an array; none for a kvlist. */
static pprof_status
attr_labels(conv *c, int32_t i, uint32_t *off, uint32_t *n, uint64_t at)
{
    if (c->attr_off[i] != PPROF_NONE) {
        *off = c->attr_off[i];
        *n = c->attr_n[i];
        return PPROF_OK;
    }
    const pprof__otlp_attr *a = &PPROF__AT(c->o->attrs, pprof__otlp_attr, i);
    if (!in(a->key, c->o->strings.len))
        return bad(c, a->off, "dictionary.attribute_table[%d].key_strindex", i);
    if (!in(a->unit, c->o->strings.len))
        return bad(c, a->off, "dictionary.attribute_table[%d].unit_strindex", i);
    uint32_t start = (uint32_t)c->cache.len;
    pprof_label l = {str_is(c->o, a->key, PPROF__OTLP_EMPTY_KEY) ? 0 : a->key, 0, 0, 0};
    bool fail = false;
    if (a->value.kind == PPROF__ANY_ARRAY) {
        const uint8_t *p = (const uint8_t *)a->value.s.data, *end = p + a->value.s.len;
        pprof__any v;
        while (pprof__otlp_array_next(&p, end, &v)) {
            if (scalar_label(c, &v, a->unit, &l, &fail)) {
                pprof_label *slot = pprof__vec_push(c->a, &c->cache, sizeof(l));
                if (!slot)
                    return nomem(c);
                *slot = l;
            } else if (fail) {
                return bad(c, a->off, "dictionary.attribute_table[%d].value", i);
            }
        }
    } else if (scalar_label(c, &a->value, a->unit, &l, &fail)) {
        pprof_label *slot = pprof__vec_push(c->a, &c->cache, sizeof(l));
        if (!slot)
            return nomem(c);
        *slot = l;
    } else if (fail) {
        return at == PPROF_NO_OFFSET ? nomem(c)
                                     : bad(c, a->off, "dictionary.attribute_table[%d].value", i);
    }
    c->attr_off[i] = *off = start;
    c->attr_n[i] = *n = (uint32_t)c->cache.len - start;
    return PPROF_OK;
}

/* ---- tables */

static pprof_status
tables(conv *c)
{
    const pprof_otlp *o = c->o;
    pprof_profile *p = c->p;
    /* the strings */
    size_t ns = o->strings.len ? o->strings.len : 1;
    if (!pprof__vec_grow(c->a, &p->strings, sizeof(pprof_string), ns + 16))
        return nomem(c);
    /* copied, so that the profiles outlive the OTLP they came from */
    size_t bytes = 0;
    for (size_t i = 0; i < o->strings.len; i++)
        bytes += PPROF__AT(o->strings, pprof_string, i).len;
    char *copy = pprof__arena_alloc(&p->arena, bytes ? bytes : 1);
    if (!copy)
        return nomem(c);
    for (size_t i = 0; i < o->strings.len; i++) {
        pprof_string s = PPROF__AT(o->strings, pprof_string, i);
        if (s.len)
            memcpy(copy, s.data, s.len);
        PPROF__AT(p->strings, pprof_string, i) = (pprof_string){copy, s.len};
        copy += s.len;
    }
    p->strings.len = ns;
    PPROF__AT(p->strings, pprof_string, 0) = (pprof_string){"", 0};
    p->has_string_table = true;
    if ((c->s_true = add_cstr(c, "true")) < 0 || (c->s_false = add_cstr(c, "false")) < 0 ||
        (c->s_trace = add_cstr(c, PPROF__OTLP_TRACE_ID)) < 0 ||
        (c->s_span = add_cstr(c, PPROF__OTLP_SPAN_ID)) < 0 ||
        (c->s_ts = add_cstr(c, PPROF__OTLP_TIMESTAMP)) < 0 ||
        (c->s_ns = add_cstr(c, "nanoseconds")) < 0)
        return nomem(c);

    /* every table at its final size up front: growing by doubling copied each one again */
    size_t nf = o->functions.len, nm = o->mappings.len, nl = o->locations.len;
    if ((nf > 1 && !pprof__vec_grow(c->a, &p->functions, sizeof(pprof_function), nf - 1)) ||
        (nm > 1 && !pprof__vec_grow(c->a, &p->mappings, sizeof(pprof_mapping), nm - 1)) ||
        (nl > 1 && !pprof__vec_grow(c->a, &p->locations, sizeof(pprof__location), nl - 1)) ||
        (o->lines.len && !pprof__vec_grow(c->a, &p->lines, sizeof(pprof_line), o->lines.len)))
        return nomem(c);
    for (size_t k = 1; k < o->functions.len; k++) {
        const pprof__otlp_function *f = &PPROF__AT(o->functions, pprof__otlp_function, k);
        if (!in(f->name, ns))
            return bad(c, f->off, "dictionary.function_table[%zu].name_strindex", k);
        if (!in(f->system_name, ns))
            return bad(c, f->off, "dictionary.function_table[%zu].system_name_strindex", k);
        if (!in(f->filename, ns))
            return bad(c, f->off, "dictionary.function_table[%zu].filename_strindex", k);
        pprof_function *d = pprof__vec_push(c->a, &p->functions, sizeof(*d));
        if (!d)
            return nomem(c);
        *d = (pprof_function){k, f->name, f->system_name, f->filename, f->start_line};
    }
    for (size_t k = 1; k < o->mappings.len; k++) {
        const pprof__otlp_mapping *m = &PPROF__AT(o->mappings, pprof__otlp_mapping, k);
        if (!in(m->filename, ns))
            return bad(c, m->off, "dictionary.mapping_table[%zu].filename_strindex", k);
        pprof_mapping d = {k, m->start, m->limit, m->file_offset, m->filename,
                           0, false,    false,    false,          false};
        for (uint32_t j = 0; j < m->attrs.n; j++) {
            int32_t ai = PPROF__AT(o->ints, int32_t, m->attrs.off + j);
            if (!in(ai, o->attrs.len))
                return bad(c, m->off, "dictionary.mapping_table[%zu].attribute_indices[%u]", k, j);
            const pprof__otlp_attr *a = &PPROF__AT(o->attrs, pprof__otlp_attr, ai);
            if ((str_is(o, a->key, PPROF__OTLP_BUILD_ID) ||
                 (str_is(o, a->key, PPROF__OTLP_BUILD_ID_GNU) && !d.build_id)) &&
                a->value.kind == PPROF__ANY_STRING) {
                if ((d.build_id = add_str(c, a->value.s.data, a->value.s.len)) < 0)
                    return nomem(c);
            } else if (a->value.kind == PPROF__ANY_BOOL) {
                if (str_is(o, a->key, PPROF__OTLP_HAS_FUNCTIONS))
                    d.has_functions = a->value.i;
                else if (str_is(o, a->key, PPROF__OTLP_HAS_FILENAMES))
                    d.has_filenames = a->value.i;
                else if (str_is(o, a->key, PPROF__OTLP_HAS_LINE_NUMBERS))
                    d.has_line_numbers = a->value.i;
                else if (str_is(o, a->key, PPROF__OTLP_HAS_INLINE_FRAMES))
                    d.has_inline_frames = a->value.i;
            }
        }
        pprof_mapping *slot = pprof__vec_push(c->a, &p->mappings, sizeof(d));
        if (!slot)
            return nomem(c);
        *slot = d;
    }
    for (size_t k = 1; k < o->locations.len; k++) {
        const pprof__otlp_location *l = &PPROF__AT(o->locations, pprof__otlp_location, k);
        if (!in(l->mapping, o->mappings.len ? o->mappings.len : 1))
            return bad(c, l->off, "dictionary.location_table[%zu].mapping_index", k);
        pprof__location d = {
            k, (uint64_t)l->mapping, l->address, (uint32_t)p->lines.len, l->n_line, false};
        for (uint32_t j = 0; j < l->n_line; j++) {
            const pprof__otlp_line *ol = &PPROF__AT(o->lines, pprof__otlp_line, l->line_off + j);
            if (!in(ol->function, o->functions.len ? o->functions.len : 1))
                return bad(c, l->off, "dictionary.location_table[%zu].lines[%u].function_index", k,
                           j);
            pprof_line *pl = pprof__vec_push(c->a, &p->lines, sizeof(*pl));
            if (!pl)
                return nomem(c);
            *pl = (pprof_line){(uint64_t)ol->function, ol->line, ol->column};
        }
        for (uint32_t j = 0; j < l->attrs.n; j++) {
            int32_t ai = PPROF__AT(o->ints, int32_t, l->attrs.off + j);
            if (!in(ai, o->attrs.len))
                return bad(c, l->off, "dictionary.location_table[%zu].attribute_indices[%u]", k, j);
            const pprof__otlp_attr *a = &PPROF__AT(o->attrs, pprof__otlp_attr, ai);
            if (str_is(o, a->key, PPROF__OTLP_IS_FOLDED) && a->value.kind == PPROF__ANY_BOOL)
                d.is_folded = a->value.i;
        }
        pprof__location *slot = pprof__vec_push(c->a, &p->locations, sizeof(d));
        if (!slot)
            return nomem(c);
        *slot = d;
    }
    return PPROF_OK;
}

/* ---- header */

static pprof_status
header(conv *c, const pprof__otlp_profile *pr, const char *pre)
{
    const pprof_otlp *o = c->o;
    pprof_profile *p = c->p;
    size_t ns = o->strings.len ? o->strings.len : 1;
    if (!in(pr->period_type.type, ns) || !in(pr->period_type.unit, ns))
        return bad(c, PPROF_NO_OFFSET, "%s.period_type", pre);
    /* past int64 they are read back as the negative pprof times the writer wrote them from */
    p->hdr.time_nanos = (int64_t)pr->time;
    p->hdr.duration_nanos = (int64_t)pr->duration;
    p->hdr.period_type = (pprof_value_type){pr->period_type.type, pr->period_type.unit};
    p->hdr.period = pr->period;
    for (uint32_t j = 0; j < pr->attrs.n; j++) {
        int32_t ai = PPROF__AT(o->ints, int32_t, pr->attrs.off + j);
        if (!in(ai, o->attrs.len))
            return bad(c, PPROF_NO_OFFSET, "%s.attribute_indices[%u]", pre, j);
        const pprof__otlp_attr *a = &PPROF__AT(o->attrs, pprof__otlp_attr, ai);
        int64_t *field = NULL;
        if (str_is(o, a->key, PPROF__OTLP_DEFAULT_SAMPLE_TYPE))
            field = &p->hdr.default_sample_type;
        else if (str_is(o, a->key, PPROF__OTLP_DROP_FRAMES))
            field = &p->hdr.drop_frames;
        else if (str_is(o, a->key, PPROF__OTLP_KEEP_FRAMES))
            field = &p->hdr.keep_frames;
        else if (str_is(o, a->key, PPROF__OTLP_DOC_URL))
            field = &p->hdr.doc_url;
        if (field && a->value.kind == PPROF__ANY_STRING) {
            if ((*field = add_str(c, a->value.s.data, a->value.s.len)) < 0)
                return nomem(c);
        } else if (field && a->value.kind == PPROF__ANY_STRINDEX && in(a->value.i, ns)) {
            *field = a->value.i;
        } else if (str_is(o, a->key, PPROF__OTLP_COMMENTS) && a->value.kind == PPROF__ANY_ARRAY) {
            const uint8_t *q = (const uint8_t *)a->value.s.data, *end = q + a->value.s.len;
            pprof__any v;
            while (pprof__otlp_array_next(&q, end, &v)) {
                if (v.kind != PPROF__ANY_STRING)
                    continue;
                int64_t s = add_str(c, v.s.data, v.s.len);
                int64_t *slot = s < 0 ? NULL : pprof__vec_push(c->a, &p->comments, sizeof(s));
                if (!slot)
                    return nomem(c);
                *slot = s;
            }
        }
    }
    return PPROF_OK;
}

/* ---- grouping */

static bool
same_ints(const pprof_otlp *o, pprof__otlp_range a, pprof__otlp_range b)
{
    return a.n == b.n &&
           (a.n == 0 || memcmp(&PPROF__AT(o->ints, int32_t, a.off),
                               &PPROF__AT(o->ints, int32_t, b.off), a.n * sizeof(int32_t)) == 0);
}

/* Whether b joins the pprof profile of a: the same scope and header (time, duration, period
 * type, period and profile attributes, pprof.profile_index among them). Their samples are
 * joined by sample key (samples()), so they need not match one to one. */
static bool
joins(const pprof_otlp *o, const pprof__otlp_profile *a, const pprof__otlp_profile *b)
{
    return a->scope == b->scope && a->time == b->time && a->duration == b->duration &&
           a->period_type.type == b->period_type.type &&
           a->period_type.unit == b->period_type.unit && a->period == b->period &&
           same_ints(o, a->attrs, b->attrs);
}

/* Whether the group whose last member is m (earlier ones chained by prev) can take pi: not when a
 * member has pi's sample type, since two Profiles of one type are two measurements (say, two
 * processes exported at one instant), not one profile's columns; nor past PPROF__OTLP_GROUP_MAX
 * members, which bounds this walk. */
#define PPROF__OTLP_GROUP_MAX 64
static bool
group_takes(const pprof_otlp *o, const uint32_t *prev, uint32_t m, const pprof__otlp_profile *pi)
{
    /* written from one pprof profile (pprof.profile_index, with the header joins() compared):
     * its columns, repeated types included */
    for (uint32_t j = 0; j < pi->attrs.n; j++) {
        int32_t ai = PPROF__AT(o->ints, int32_t, pi->attrs.off + j);
        if (ai > 0 && (size_t)ai < o->attrs.len &&
            str_is(o, PPROF__AT(o->attrs, pprof__otlp_attr, ai).key, PPROF__OTLP_PROFILE_INDEX))
            return true;
    }
    for (size_t n = 0; m != PPROF_NONE; m = prev[m], n++) {
        const pprof__otlp_profile *pm = &PPROF__AT(o->profiles, pprof__otlp_profile, m);
        if (n >= PPROF__OTLP_GROUP_MAX || (pm->sample_type.type == pi->sample_type.type &&
                                           pm->sample_type.unit == pi->sample_type.unit))
            return false;
    }
    return true;
}

static void
profile_path(const pprof__otlp_profile *pr, char *out, size_t cap)
{
    snprintf(out, cap, "resource_profiles[%u].scope_profiles[%u].profiles[%u]", pr->resource,
             pr->scope_in_resource, pr->index_in_scope);
}

/* What makes observations of different Profiles one pprof sample: stack, attributes, link and
 * timestamp. The pprof samples of a key are chained in order (conv.next); a member's k-th
 * observation of a key fills the key's k-th sample, or makes a new one past the last. */
typedef struct skey {
    int32_t stack, link;
    pprof__otlp_range attrs;
    uint64_t ts;
    uint32_t has_ts;
    uint32_t head, tail; /* pprof sample indices, PPROF_NONE: none */
    uint32_t cursor;     /* the sample member gen - 1 fills next */
    uint32_t gen;
} skey;

static uint64_t
skey_hash(const pprof_otlp *o, const skey *k)
{
    uint64_t h = pprof__hash_combine((uint64_t)(uint32_t)k->stack, (uint64_t)(uint32_t)k->link);
    h = pprof__hash_combine(h, k->ts ^ ((uint64_t)k->has_ts << 63));
    const int32_t *a = k->attrs.n ? &PPROF__AT(o->ints, int32_t, k->attrs.off) : NULL;
    for (uint32_t j = 0; j < k->attrs.n; j++)
        h = pprof__hash_combine(h, (uint64_t)(uint32_t)a[j]);
    return pprof__mix64(h);
}

static bool
skey_eq(const pprof_otlp *o, const skey *a, const skey *b)
{
    return a->stack == b->stack && a->link == b->link && a->ts == b->ts && a->has_ts == b->has_ts &&
           same_ints(o, a->attrs, b->attrs);
}

/* The pprof stack of OTLP stack index si (validated by the caller), converted once. */
static pprof_status
stack_of(conv *c, int32_t si, uint32_t *off, uint32_t *n)
{
    const pprof_otlp *o = c->o;
    *off = *n = 0;
    if (si <= 0)
        return PPROF_OK;
    const pprof__otlp_stack *st = &PPROF__AT(o->stacks, pprof__otlp_stack, si);
    if (c->stack_off[si] == PPROF_NONE && st->locs.n == 0) {
        c->stack_off[si] = (uint32_t)c->p->stack.len; /* stack.data may still be NULL */
    } else if (c->stack_off[si] == PPROF_NONE) {
        if (!pprof__vec_grow(c->a, &c->p->stack, sizeof(uint64_t), c->p->stack.len + st->locs.n))
            return nomem(c);
        uint64_t *dst = (uint64_t *)c->p->stack.data + c->p->stack.len;
        for (uint32_t j = 0; j < st->locs.n; j++) {
            int32_t li = PPROF__AT(o->ints, int32_t, st->locs.off + j);
            if (li <= 0 || (size_t)li >= o->locations.len)
                return bad(c, st->off, "dictionary.stack_table[%d].location_indices[%u]", si, j);
            dst[j] = (uint64_t)li;
        }
        c->stack_off[si] = (uint32_t)c->p->stack.len;
        c->p->stack.len += st->locs.n;
    }
    *off = c->stack_off[si];
    *n = st->locs.n;
    return PPROF_OK;
}

/* The labels an OTLP sample's observations share (attributes, link) into c->lab from lab_base. */
static pprof_status
shared_labels(conv *c, const pprof__otlp_sample *s)
{
    const pprof_otlp *o = c->o;
    for (uint32_t j = 0; j < s->attrs.n; j++) {
        int32_t ai = PPROF__AT(o->ints, int32_t, s->attrs.off + j);
        if (ai == 0)
            continue;
        uint32_t off = 0, cnt = 0;
        CHECK(attr_labels(c, ai, &off, &cnt, 0));
        if (cnt == 0) /* cache.data may still be NULL: no pointer arithmetic on it */
            continue;
        if (!pprof__vec_grow(c->a, &c->lab, sizeof(pprof_label), c->lab.len + cnt))
            return nomem(c);
        memcpy((pprof_label *)c->lab.data + c->lab.len, (pprof_label *)c->cache.data + off,
               cnt * sizeof(pprof_label));
        c->lab.len += cnt;
    }
    if (s->link > 0) {
        const pprof__otlp_link *ln = &PPROF__AT(o->links, pprof__otlp_link, s->link);
        int64_t t = add_hex(c, ln->trace_id), sp = add_hex(c, ln->span_id);
        if (t < 0 || sp < 0 || !pprof__vec_grow(c->a, &c->lab, sizeof(pprof_label), c->lab.len + 2))
            return nomem(c);
        pprof_label *l2 = (pprof_label *)c->lab.data + c->lab.len;
        l2[0] = (pprof_label){c->s_trace, t, 0, 0};
        l2[1] = (pprof_label){c->s_span, sp, 0, 0};
        c->lab.len += 2;
    }
    return PPROF_OK;
}

/* Checks the indices of member g's sample k, its link's IDs and its timestamps. */
static pprof_status
check_sample(conv *c, const pprof__otlp_sample *s, const char *pre, uint32_t k)
{
    const pprof_otlp *o = c->o;
    if (s->n_val && s->n_ts && s->n_val != s->n_ts)
        return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, "",
                            "%s.samples[%u]: %u values but %u timestamps", pre, k, s->n_val,
                            s->n_ts);
    if (!in(s->stack, o->stacks.len ? o->stacks.len : 1))
        return bad(c, PPROF_NO_OFFSET, "%s.samples[%u].stack_index", pre, k);
    for (uint32_t j = 0; j < s->attrs.n; j++)
        if (!in(PPROF__AT(o->ints, int32_t, s->attrs.off + j), o->attrs.len))
            return bad(c, PPROF_NO_OFFSET, "%s.samples[%u].attribute_indices[%u]", pre, k, j);
    if (!in(s->link, o->links.len ? o->links.len : 1))
        return bad(c, PPROF_NO_OFFSET, "%s.samples[%u].link_index", pre, k);
    if (s->link > 0) {
        /* any other length is no trace or span (rule O13): its hex label would look like one */
        const pprof__otlp_link *ln = &PPROF__AT(o->links, pprof__otlp_link, s->link);
        bool trace = ln->trace_id.len != 16;
        if (trace || ln->span_id.len != 8) {
            char path[64];
            snprintf(path, sizeof(path), "dictionary.link_table[%d].%s", s->link,
                     trace ? "trace_id" : "span_id");
            return pprof__error(c->err, PPROF_E_INVALID, ln->off, path,
                                "%zu bytes (linked from %s.samples[%u]); expected %d",
                                (size_t)(trace ? ln->trace_id.len : ln->span_id.len), pre, k,
                                trace ? 16 : 8);
        }
    }
    for (uint32_t j = 0; j < s->n_ts; j++)
        if (PPROF__AT(o->times, uint64_t, s->ts_off + j) > INT64_MAX)
            return too_late(c, PPROF__AT(o->times, uint64_t, s->ts_off + j),
                            "%s.samples[%u].timestamps_unix_nano[%u]", pre, k, j);
    return PPROF_OK;
}

/* A new pprof sample for observation j of s (labels shared from c->lab[lab_base..]), its values
 * 0 but column g = v; appended to key's chain. */
static pprof_status
new_sample(conv *c, const pprof__otlp_sample *s, uint32_t j, size_t lab_base, size_t n, size_t g,
           int64_t v, skey *key, const char *pre, uint32_t k)
{
    pprof_profile *p = c->p;
    uint32_t loc_off, n_loc;
    CHECK(stack_of(c, s->stack, &loc_off, &n_loc));
    size_t n_shared = c->lab.len - lab_base;
    bool ts = s->n_ts > 0;
    c->n_labels += n_shared + ts;
    if (c->n_labels > c->max_labels)
        return pprof__error(c->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "%s.samples[%u]: more labels than the limit of %llu", pre, k,
                            (unsigned long long)c->max_labels);
    if (!pprof__vec_grow(c->a, &p->labels, sizeof(pprof_label), p->labels.len + n_shared + ts) ||
        !pprof__vec_grow(c->a, &p->values, sizeof(int64_t), p->values.len + n) ||
        !pprof__vec_grow(c->a, &p->samples, sizeof(pprof__sample), p->samples.len + 1) ||
        !pprof__vec_grow(c->a, &c->next, sizeof(uint32_t), p->samples.len + 1))
        return nomem(c);
    pprof__sample ps = {loc_off,
                        n_loc,
                        (uint32_t)p->values.len,
                        (uint32_t)n,
                        (uint32_t)p->labels.len,
                        (uint32_t)(n_shared + ts)};
    /* labels.data is still NULL while no sample has had a label: no pointer arithmetic on it. */
    pprof_label *dst = (n_shared + ts) ? (pprof_label *)p->labels.data + p->labels.len : NULL;
    if (n_shared)
        memcpy(dst, (pprof_label *)c->lab.data + lab_base, n_shared * sizeof(pprof_label));
    if (ts)
        dst[n_shared] = (pprof_label){
            c->s_ts, 0, (int64_t)PPROF__AT(c->o->times, uint64_t, s->ts_off + j), c->s_ns};
    p->labels.len += n_shared + ts;
    int64_t *vals = (int64_t *)p->values.data + p->values.len;
    memset(vals, 0, n * sizeof(int64_t));
    vals[g] = v;
    p->values.len += n;
    uint32_t idx = (uint32_t)p->samples.len;
    PPROF__AT(p->samples, pprof__sample, p->samples.len++) = ps;
    PPROF__AT(c->next, uint32_t, idx) = PPROF_NONE;
    c->next.len = idx + 1;
    if (key->tail == PPROF_NONE)
        key->head = idx;
    else
        PPROF__AT(c->next, uint32_t, key->tail) = idx;
    key->tail = idx;
    return PPROF_OK;
}

/* The pprof samples of group g (profiles gi[0..n)), joined by sample key. */
static pprof_status
samples(conv *c, const uint32_t *gi, size_t n)
{
    const pprof_otlp *o = c->o;
    pprof_profile *p = c->p;
    size_t n_obs_all = 0;
    for (size_t g = 0; g < n; g++) {
        const pprof__otlp_profile *pr = &PPROF__AT(o->profiles, pprof__otlp_profile, gi[g]);
        size_t ns = o->strings.len ? o->strings.len : 1;
        if (!in(pr->sample_type.type, ns) || !in(pr->sample_type.unit, ns)) {
            char pp[96];
            profile_path(pr, pp, sizeof(pp));
            return bad(c, PPROF_NO_OFFSET, "%s.sample_type", pp);
        }
        pprof_value_type *vt = pprof__vec_push(c->a, &p->sample_types, sizeof(*vt));
        if (!vt)
            return nomem(c);
        *vt = (pprof_value_type){pr->sample_type.type, pr->sample_type.unit};
        for (uint32_t k = 0; k < pr->n_sample; k++) {
            const pprof__otlp_sample *s =
                &PPROF__AT(o->samples, pprof__otlp_sample, pr->sample_off + k);
            size_t obs = s->n_val > s->n_ts ? s->n_val : s->n_ts;
            n_obs_all += obs ? obs : 1;
        }
    }
    /* at most one pprof sample and one key per observation: sized once, not by doubling */
    pprof__vec keys = {0}; /* skey */
    pprof__htab h = {0};
    pprof_status st = PPROF_OK;
    if (!pprof__vec_grow(c->a, &p->samples, sizeof(pprof__sample), n_obs_all) ||
        !pprof__vec_grow(c->a, &c->next, sizeof(uint32_t), n_obs_all) ||
        !pprof__vec_grow(c->a, &keys, sizeof(skey), n_obs_all) ||
        !pprof__htab_init(&h, c->a, n_obs_all)) {
        st = nomem(c);
        goto out;
    }
    for (size_t g = 0; g < n && !st; g++) {
        const pprof__otlp_profile *pr = &PPROF__AT(o->profiles, pprof__otlp_profile, gi[g]);
        char pre[96];
        profile_path(pr, pre, sizeof(pre));
        for (uint32_t k = 0; k < pr->n_sample && !st; k++) {
            const pprof__otlp_sample *s =
                &PPROF__AT(o->samples, pprof__otlp_sample, pr->sample_off + k);
            if ((st = check_sample(c, s, pre, k)))
                break;
            uint32_t n_obs = s->n_val > s->n_ts ? s->n_val : s->n_ts;
            if (n_obs == 0)
                n_obs = 1; /* a sample with neither: its stack with value 0 */
            size_t lab_base = c->lab.len;
            bool have_labels = false;
            for (uint32_t j = 0; j < n_obs && !st; j++) {
                skey key = {s->stack,
                            s->link,
                            s->attrs,
                            s->n_ts ? PPROF__AT(o->times, uint64_t, s->ts_off + j) : 0,
                            s->n_ts > 0,
                            PPROF_NONE,
                            PPROF_NONE,
                            PPROF_NONE,
                            0};
                uint64_t hash = skey_hash(o, &key);
                pprof__htab_probe pb;
                uint32_t v;
                PPROF__HTAB_FIND(&h, hash, pb, v, skey_eq(o, &PPROF__AT(keys, skey, v), &key));
                if (v == PPROF_NONE) {
                    v = (uint32_t)keys.len;
                    PPROF__AT(keys, skey, keys.len++) = key;
                    pprof__htab_insert_at(&h, &pb, v);
                }
                skey *ks = &PPROF__AT(keys, skey, v);
                if (ks->gen != g + 1) {
                    ks->gen = (uint32_t)g + 1;
                    ks->cursor = ks->head;
                }
                int64_t val = s->n_val  ? (int64_t)PPROF__AT(o->values, uint64_t, s->val_off + j)
                              : s->n_ts ? 1
                                        : 0;
                if (ks->cursor != PPROF_NONE) {
                    const pprof__sample *ps = &PPROF__AT(p->samples, pprof__sample, ks->cursor);
                    PPROF__AT(p->values, int64_t, ps->val_off + g) = val;
                    ks->cursor = PPROF__AT(c->next, uint32_t, ks->cursor);
                    continue;
                }
                if (!have_labels) {
                    if ((st = shared_labels(c, s)))
                        break;
                    have_labels = true;
                }
                st = new_sample(c, s, j, lab_base, n, g, val, ks, pre, k);
            }
            c->lab.len = lab_base;
        }
    }
out:
    pprof__free(c->a, keys.data);
    pprof__htab_free(&h, c->a);
    return st;
}

static pprof_status
convert_group(const pprof_otlp *o, const uint32_t *gi, size_t n, pprof_profile **out,
              pprof_error *err)
{
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    conv c;
    memset(&c, 0, sizeof(c));
    c.o = o;
    c.err = err;
    c.max_labels = ro.max_labels;
    /* Without a caller's allocator the tables come from blocks in huge pages, as a merge's do
     * (memory-private.h): grown one sample at a time in small pages, their first touches cost
     * more than the conversion. The profile keeps the blocks alive. */
    /* the tables are a few times the input */
    pprof__blocks *blocks = pprof__blocks_for_work(&o->alloc, o->buf_len * 4);
    pprof_allocator ba = blocks ? pprof__blocks_allocator(blocks) : o->alloc;
    c.p = pprof__profile_new(&ba);
    pprof__blocks_release(blocks);
    if (!c.p)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    c.a = &c.p->alloc;
    c.p->source_format = o->source_format;
    pprof_status st = PPROF_OK;
    size_t na = o->attrs.len, nst = o->stacks.len;
    c.attr_off = pprof__malloc(c.a, (na ? na : 1) * sizeof(uint32_t));
    c.attr_n = pprof__malloc(c.a, (na ? na : 1) * sizeof(uint32_t));
    c.stack_off = pprof__malloc(c.a, (nst ? nst : 1) * sizeof(uint32_t));
    if (!c.attr_off || !c.attr_n || !c.stack_off) {
        st = nomem(&c);
        goto done;
    }
    memset(c.attr_off, 0xff, (na ? na : 1) * sizeof(uint32_t));
    memset(c.stack_off, 0xff, (nst ? nst : 1) * sizeof(uint32_t));
    const pprof__otlp_profile *lead = &PPROF__AT(o->profiles, pprof__otlp_profile, gi[0]);
    char pre[96];
    profile_path(lead, pre, sizeof(pre));
    if (!(st = tables(&c)) && !(st = header(&c, lead, pre)))
        st = samples(&c, gi, n);
done:
    pprof__free(c.a, c.attr_off);
    pprof__free(c.a, c.attr_n);
    pprof__free(c.a, c.stack_off);
    pprof__free(c.a, c.lab.data);
    pprof__free(c.a, c.cache.data);
    pprof__free(c.a, c.next.data);
    if (st) {
        pprof_profile_free(c.p);
        return st;
    }
    *out = c.p;
    return PPROF_OK;
}

/* Which profiles form each pprof profile: group g's members, in order, are
 * members[start(g)..end[g]) where start(g) is end[g - 1] (0 for the first). */
typedef struct groups {
    uint32_t *members, *end;
    size_t n;
} groups;

static void
groups_free(groups *gr)
{
    free(gr->members);
    free(gr->end);
}

static pprof_status
group_profiles(const pprof_otlp *o, groups *gr, pprof_error *err)
{
    memset(gr, 0, sizeof(*gr));
    size_t np = o->profiles.len;
    /* group[i]: the group profile i joins; members listed in order of their first profile */
    uint32_t *group = malloc((np ? np : 1) * sizeof(uint32_t));
    uint32_t *lead = malloc((np ? np : 1) * sizeof(uint32_t));
    uint32_t *members = malloc((np ? np : 1) * sizeof(uint32_t));
    /* prev[i]: the member of i's group before it; tail[g]: group g's last member */
    uint32_t *prev = malloc((np ? np : 1) * sizeof(uint32_t));
    uint32_t *tail = malloc((np ? np : 1) * sizeof(uint32_t));
    if (!group || !lead || !members || !prev || !tail) {
        free(group);
        free(lead);
        free(members);
        free(prev);
        free(tail);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    size_t ng = 0;
    for (size_t i = 0; i < np; i++) {
        const pprof__otlp_profile *pi = &PPROF__AT(o->profiles, pprof__otlp_profile, i);
        size_t g = 0;
        /* only the latest groups of the same scope can be joined: groups never interleave
         * scopes, and a search over all of them would be quadratic in profiles */
        for (g = ng; g > 0; g--) {
            const pprof__otlp_profile *pl =
                &PPROF__AT(o->profiles, pprof__otlp_profile, lead[g - 1]);
            if (pl->scope != pi->scope) {
                g = 0;
                break;
            }
            if (joins(o, pl, pi) && group_takes(o, prev, tail[g - 1], pi))
                break;
            if (ng - g >= 8) {
                g = 0;
                break;
            }
        }
        if (g == 0) {
            lead[ng] = (uint32_t)i;
            tail[ng++] = PPROF_NONE;
            g = ng;
        }
        group[i] = (uint32_t)(g - 1);
        prev[i] = tail[g - 1];
        tail[g - 1] = (uint32_t)i;
    }
    /* members of group g at members[lead[g]..): a counting sort (lead becomes the ends) */
    memset(lead, 0, (np ? np : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < np; i++)
        lead[group[i]]++;
    uint32_t sum = 0;
    for (size_t g = 0; g < ng; g++) {
        uint32_t k = lead[g];
        lead[g] = sum;
        sum += k;
    }
    for (size_t i = 0; i < np; i++)
        members[lead[group[i]]++] = (uint32_t)i;
    free(group);
    free(prev);
    free(tail);
    gr->members = members;
    gr->end = lead;
    gr->n = ng;
    return PPROF_OK;
}

pprof_status
pprof_otlp_to_pprof(const pprof_otlp *o, pprof_profile ***out, size_t *n_out, pprof_error *err)
{
    if (!o || !out || !n_out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    *n_out = 0;
    groups gr;
    pprof_status st = group_profiles(o, &gr, err);
    if (st)
        return st;
    pprof_profile **res = calloc(gr.n ? gr.n : 1, sizeof(pprof_profile *));
    if (!res) {
        groups_free(&gr);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    size_t done = 0;
    for (size_t g = 0, start = 0; g < gr.n && !st; g++) {
        st = convert_group(o, gr.members + start, gr.end[g] - start, &res[done], err);
        start = gr.end[g];
        if (!st)
            done++;
    }
    groups_free(&gr);
    if (st) {
        pprof_otlp_profiles_free(res, done);
        return st;
    }
    *out = res;
    *n_out = done;
    return PPROF_OK;
}

pprof_status
pprof__otlp_to_one(const pprof_otlp *o, pprof_profile **out, size_t *n_groups, pprof_error *err)
{
    *out = NULL;
    groups gr;
    pprof_status st = group_profiles(o, &gr, err);
    if (st)
        return st;
    *n_groups = gr.n;
    if (gr.n == 1)
        st = convert_group(o, gr.members, gr.end[0], out, err);
    groups_free(&gr);
    return st;
}
