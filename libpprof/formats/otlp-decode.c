/* OTLP Profiles wire bytes -> the model of otlp-private.h (opentelemetry-proto ac2c4b5). Every
 * length is checked against the bytes that remain, every table against its limit, and nothing
 * is interpreted here: index checks belong to the converter and the checker. Repeated scalars
 * are accepted packed and unpacked, as protobuf requires of a parser. */
#include <stdio.h>

#include "otlp-private.h"
#include "wire-private.h"

typedef struct odec {
    pprof_otlp *o;
    const pprof_allocator *a;
    const uint8_t *base;
    const pprof_read_options *ro;
    pprof_error *err;
    uint64_t n_attr_idx, n_stack_entries, n_values, n_lines, n_kv;
} odec;

/* Where a message sits, turned into a path only when something fails. */
typedef struct where {
    const char *pre; /* "dictionary.location_table", "resource_profiles[0].scope_profiles[1]..." */
    size_t i;        /* index in pre, SIZE_MAX for none */
    const char *sub; /* "lines" or NULL */
    size_t j;
} where;

static pprof_status failw(odec *d, const where *w, const char *field, const uint8_t *at,
                          pprof_status code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static pprof_status
failw(odec *d, const where *w, const char *field, const uint8_t *at, pprof_status code,
      const char *fmt, ...)
{
    if (!d->err)
        return code;
    char path[128], msg[256];
    size_t n = 0;
    path[0] = 0;
    if (w->pre)
        n +=
            (size_t)snprintf(path, sizeof(path), w->i == SIZE_MAX ? "%s" : "%s[%zu]", w->pre, w->i);
    if (w->sub && n < sizeof(path))
        n += (size_t)snprintf(path + n, sizeof(path) - n, ".%s[%zu]", w->sub, w->j);
    if (field && n < sizeof(path))
        snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pprof__error(d->err, code, (uint64_t)(at - d->base), path, "%s", msg);
}

/* One field's framing: tag read, tp its start. Known fields are handled by the caller's switch,
 * which falls back to SKIP. */
#define FIELDS(d, w, p, end)                                                                       \
    while (p < end) {                                                                              \
        const uint8_t *tp = p;                                                                     \
        uint32_t f, wt;                                                                            \
        if (!pprof__tag(&p, end, &f, &wt))                                                         \
            return failw(d, w, NULL, tp, PPROF_E_WIRE,                                             \
                         "bad field tag (truncated, overlong or field 0)");

#define FIELDS_END }

#define SKIP(d, w, p, end)                                                                         \
    do {                                                                                           \
        d->o->unknown_fields++;                                                                    \
        if (!pprof__skip_field(&p, end, wt))                                                       \
            return failw(d, w, NULL, tp, PPROF_E_WIRE, "unknown field %u: bad %s payload", f,      \
                         pprof__wt_name(wt));                                                      \
    } while (0)

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        pprof_status st_ = (expr);                                                                 \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)

static pprof_status
want(odec *d, const where *w, const char *name, const uint8_t *tp, uint32_t wt, uint32_t expect)
{
    if (wt == expect)
        return PPROF_OK;
    return failw(d, w, name, tp, PPROF_E_WIRE, "wire type %s, expected %s", pprof__wt_name(wt),
                 pprof__wt_name(expect));
}

static pprof_status
rd_varint(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
          const uint8_t *end, uint32_t wt, uint64_t *v)
{
    CHECK(want(d, w, name, tp, wt, PPROF_WT_VARINT));
    if (!pprof__varint(p, end, v))
        return failw(d, w, name, *p, PPROF_E_WIRE,
                     "bad varint (truncated, longer than 10 bytes or past 64 bits)");
    return PPROF_OK;
}

static pprof_status
rd_i32(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
       const uint8_t *end, uint32_t wt, int32_t *out)
{
    uint64_t v = 0;
    CHECK(rd_varint(d, w, name, tp, p, end, wt, &v));
    *out = (int32_t)(uint32_t)v; /* protobuf's int32: the low 32 bits */
    return PPROF_OK;
}

static pprof_status
rd_fixed64(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
           const uint8_t *end, uint32_t wt, uint64_t *v)
{
    CHECK(want(d, w, name, tp, wt, PPROF_WT_I64));
    if (end - *p < 8)
        return failw(d, w, name, *p, PPROF_E_WIRE, "truncated fixed64");
    uint64_t x = 0;
    for (int k = 7; k >= 0; k--)
        x = (x << 8) | (*p)[k];
    *p += 8;
    *v = x;
    return PPROF_OK;
}

static pprof_status
rd_len(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
       const uint8_t *end, uint32_t wt, const uint8_t **sub_end)
{
    CHECK(want(d, w, name, tp, wt, PPROF_WT_LEN));
    uint64_t n;
    if (!pprof__varint(p, end, &n) || n > (uint64_t)(end - *p))
        return failw(d, w, name, tp, PPROF_E_WIRE,
                     "declared length exceeds the %zu bytes that remain", (size_t)(end - *p));
    *sub_end = *p + n;
    return PPROF_OK;
}

static pprof_status
rd_bytes(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
         const uint8_t *end, uint32_t wt, pprof_string *s)
{
    const uint8_t *e;
    CHECK(rd_len(d, w, name, tp, p, end, wt, &e));
    s->data = (const char *)*p;
    s->len = (size_t)(e - *p);
    *p = e;
    return PPROF_OK;
}

static pprof_status
nomem(odec *d, const where *w, const uint8_t *at)
{
    return failw(d, w, NULL, at, PPROF_E_NOMEM, "out of memory");
}

static pprof_status
over(odec *d, const where *w, const char *name, const uint8_t *at, const char *what, uint64_t max)
{
    return failw(d, w, name, at, PPROF_E_LIMIT, "more %s than the limit of %llu", what,
                 (unsigned long long)max);
}

/* Every caller assigns the whole element it gets: no clearing. */
static inline void *
push(odec *d, pprof__vec *v, size_t elem)
{
    return pprof__vec_push(d->a, v, elem);
}

/* Appends the entry just read (size bytes at e) to v; p is where an error points. */
static pprof_status
store(odec *d, const where *w, const uint8_t *p, pprof__vec *v, const void *e, size_t size)
{
    void *slot = push(d, v, size);
    if (!slot)
        return nomem(d, w, p);
    memcpy(slot, e, size);
    return PPROF_OK;
}

/* Repeated int32 (packed or not) appended to ints; *count grows by the number read and is
 * bounded by max together with *total. */
static pprof_status
rd_rep_i32(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
           const uint8_t *end, uint32_t wt, uint32_t *count, uint64_t *total, uint64_t max,
           const char *what)
{
    const uint8_t *q = *p, *e;
    bool packed = wt == PPROF_WT_LEN;
    if (packed) {
        CHECK(rd_len(d, w, name, tp, &q, end, wt, &e));
        /* room for every varint that ends in the field, so that the loop never grows */
        size_t n = pprof__count_varint_ends(q, e, e);
        if (n && !pprof__vec_grow(d->a, &d->o->ints, sizeof(int32_t), d->o->ints.len + n))
            return nomem(d, w, q);
    } else {
        e = end;
    }
    do {
        int32_t v;
        if (packed) {
            uint64_t x = 0;
            if (!pprof__varint(&q, e, &x))
                return failw(d, w, name, q, PPROF_E_WIRE, "bad varint in packed field");
            v = (int32_t)(uint32_t)x;
        } else {
            CHECK(rd_i32(d, w, name, tp, &q, e, wt, &v));
        }
        if (++*total > max)
            return over(d, w, name, q, what, max);
        int32_t *slot = push(d, &d->o->ints, sizeof(int32_t));
        if (!slot)
            return nomem(d, w, q);
        *slot = v;
        ++*count;
    } while (packed && q < e);
    *p = packed ? e : q;
    return PPROF_OK;
}

/* Repeated int64 (varint) or fixed64, packed or not, appended to v. */
static pprof_status
rd_rep_64(odec *d, const where *w, const char *name, const uint8_t *tp, const uint8_t **p,
          const uint8_t *end, uint32_t wt, bool fixed, pprof__vec *v, uint32_t *count)
{
    const uint8_t *q = *p, *e;
    bool packed = wt == PPROF_WT_LEN;
    uint32_t elem_wt = fixed ? PPROF_WT_I64 : PPROF_WT_VARINT;
    if (packed) {
        CHECK(rd_len(d, w, name, tp, &q, end, wt, &e));
        size_t n = fixed ? (size_t)(e - q) / 8 : pprof__count_varint_ends(q, e, e);
        if (n && !pprof__vec_grow(d->a, v, sizeof(uint64_t), v->len + n))
            return nomem(d, w, q);
    } else {
        e = end;
    }
    do {
        uint64_t x = 0;
        uint32_t ewt = packed ? elem_wt : wt;
        if (fixed)
            CHECK(rd_fixed64(d, w, name, tp, &q, e, ewt, &x));
        else
            CHECK(rd_varint(d, w, name, tp, &q, e, ewt, &x));
        if (++d->n_values > d->ro->max_values)
            return over(d, w, name, q, "values and timestamps", d->ro->max_values);
        uint64_t *slot = push(d, v, sizeof(uint64_t));
        if (!slot)
            return nomem(d, w, q);
        *slot = x;
        ++*count;
    } while (packed && q < e);
    *p = packed ? e : q;
    return PPROF_OK;
}

static pprof_status rd_any(odec *d, const where *w, const char *name, const uint8_t *p,
                           const uint8_t *end, pprof__any *v, int depth);

/* An ArrayValue: every element is checked to decode, one level deep (deeper ones are kept as
 * bytes and never interpreted). */
static pprof_status
rd_array(odec *d, const where *w, const char *name, const uint8_t *p, const uint8_t *end, int depth)
{
    FIELDS(d, w, p, end)
    if (f == 1 && depth == 0) {
        const uint8_t *e;
        CHECK(rd_len(d, w, name, tp, &p, end, wt, &e));
        pprof__any v;
        CHECK(rd_any(d, w, name, p, e, &v, depth + 1));
        p = e;
    } else {
        SKIP(d, w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

static pprof_status
rd_any(odec *d, const where *w, const char *name, const uint8_t *p, const uint8_t *end,
       pprof__any *v, int depth)
{
    memset(v, 0, sizeof(*v));
    FIELDS(d, w, p, end)
    uint64_t x = 0;
    switch (f) {
    case 1:
    case 7:
    case 6:
        CHECK(rd_bytes(d, w, name, tp, &p, end, wt, &v->s));
        v->kind = f;
        break;
    case 5:
        CHECK(rd_bytes(d, w, name, tp, &p, end, wt, &v->s));
        v->kind = f;
        CHECK(rd_array(d, w, name, (const uint8_t *)v->s.data,
                       (const uint8_t *)v->s.data + v->s.len, depth));
        break;
    case 2:
    case 3:
        CHECK(rd_varint(d, w, name, tp, &p, end, wt, &x));
        v->kind = f;
        v->i = f == 2 ? (x != 0) : (int64_t)x;
        break;
    case 8:
        CHECK(rd_varint(d, w, name, tp, &p, end, wt, &x));
        v->kind = f;
        v->i = (int32_t)(uint32_t)x;
        break;
    case 4:
        CHECK(rd_fixed64(d, w, name, tp, &p, end, wt, &x));
        v->kind = f;
        memcpy(&v->d, &x, sizeof(double));
        break;
    default: SKIP(d, w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

bool
pprof__otlp_array_next(const uint8_t **pp, const uint8_t *end, pprof__any *v)
{
    /* The array was checked by rd_array when it was read: only framing is redone here. */
    while (*pp < end) {
        uint32_t f, wt;
        if (!pprof__tag(pp, end, &f, &wt))
            return false;
        if (f != 1 || wt != PPROF_WT_LEN) {
            if (!pprof__skip_field(pp, end, wt))
                return false;
            continue;
        }
        uint64_t n;
        if (!pprof__varint(pp, end, &n) || n > (uint64_t)(end - *pp))
            return false;
        odec d = {0};
        pprof_otlp dummy;
        memset(&dummy, 0, sizeof(dummy));
        d.o = &dummy;
        where w = {NULL, SIZE_MAX, NULL, 0};
        const uint8_t *e = *pp + n;
        pprof_status st = rd_any(&d, &w, NULL, *pp, e, v, 1);
        *pp = e;
        return st == PPROF_OK;
    }
    return false;
}

/* ---- dictionary */

static pprof_status
rd_mapping(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.mapping_table", i, NULL, 0};
    if (d->o->mappings.len >= d->ro->max_mappings)
        return over(d, &w, NULL, p, "mappings", d->ro->max_mappings);
    pprof__otlp_mapping m = {0};
    m.off = (uint64_t)(p - d->base);
    m.len = (uint64_t)(end - p);
    m.attrs.off = (uint32_t)d->o->ints.len;
    FIELDS(d, &w, p, end)
    switch (f) {
    case 1: CHECK(rd_varint(d, &w, "memory_start", tp, &p, end, wt, &m.start)); break;
    case 2: CHECK(rd_varint(d, &w, "memory_limit", tp, &p, end, wt, &m.limit)); break;
    case 3: CHECK(rd_varint(d, &w, "file_offset", tp, &p, end, wt, &m.file_offset)); break;
    case 4: CHECK(rd_i32(d, &w, "filename_strindex", tp, &p, end, wt, &m.filename)); break;
    case 5:
        CHECK(rd_rep_i32(d, &w, "attribute_indices", tp, &p, end, wt, &m.attrs.n, &d->n_attr_idx,
                         d->ro->max_labels, "attribute indices"));
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return store(d, &w, p, &d->o->mappings, &m, sizeof(m));
}

static pprof_status
rd_line(odec *d, const where *w, const uint8_t *p, const uint8_t *end)
{
    if (++d->n_lines > d->ro->max_lines)
        return over(d, w, NULL, p, "lines", d->ro->max_lines);
    pprof__otlp_line l = {0};
    FIELDS(d, w, p, end)
    uint64_t x = 0;
    switch (f) {
    case 1: CHECK(rd_i32(d, w, "function_index", tp, &p, end, wt, &l.function)); break;
    case 2:
        CHECK(rd_varint(d, w, "line", tp, &p, end, wt, &x));
        l.line = (int64_t)x;
        break;
    case 3:
        CHECK(rd_varint(d, w, "column", tp, &p, end, wt, &x));
        l.column = (int64_t)x;
        break;
    default: SKIP(d, w, p, end);
    }
    FIELDS_END
    return store(d, w, p, &d->o->lines, &l, sizeof(l));
}

static pprof_status
rd_location(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.location_table", i, NULL, 0};
    if (d->o->locations.len >= d->ro->max_locations)
        return over(d, &w, NULL, p, "locations", d->ro->max_locations);
    pprof__otlp_location l = {0};
    l.off = (uint64_t)(p - d->base);
    l.len = (uint64_t)(end - p);
    l.line_off = (uint32_t)d->o->lines.len;
    l.attrs.off = (uint32_t)d->o->ints.len;
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1: CHECK(rd_i32(d, &w, "mapping_index", tp, &p, end, wt, &l.mapping)); break;
    case 2: CHECK(rd_varint(d, &w, "address", tp, &p, end, wt, &l.address)); break;
    case 3: {
        CHECK(rd_len(d, &w, "lines", tp, &p, end, wt, &e));
        where lw = {"dictionary.location_table", i, "lines", l.n_line};
        CHECK(rd_line(d, &lw, p, e));
        l.n_line++;
        p = e;
        break;
    }
    case 4:
        CHECK(rd_rep_i32(d, &w, "attribute_indices", tp, &p, end, wt, &l.attrs.n, &d->n_attr_idx,
                         d->ro->max_labels, "attribute indices"));
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return store(d, &w, p, &d->o->locations, &l, sizeof(l));
}

static pprof_status
rd_function(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.function_table", i, NULL, 0};
    if (d->o->functions.len >= d->ro->max_functions)
        return over(d, &w, NULL, p, "functions", d->ro->max_functions);
    pprof__otlp_function fn = {0};
    fn.off = (uint64_t)(p - d->base);
    fn.len = (uint64_t)(end - p);
    FIELDS(d, &w, p, end)
    uint64_t x = 0;
    switch (f) {
    case 1: CHECK(rd_i32(d, &w, "name_strindex", tp, &p, end, wt, &fn.name)); break;
    case 2: CHECK(rd_i32(d, &w, "system_name_strindex", tp, &p, end, wt, &fn.system_name)); break;
    case 3: CHECK(rd_i32(d, &w, "filename_strindex", tp, &p, end, wt, &fn.filename)); break;
    case 4:
        CHECK(rd_varint(d, &w, "start_line", tp, &p, end, wt, &x));
        fn.start_line = (int64_t)x;
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return store(d, &w, p, &d->o->functions, &fn, sizeof(fn));
}

static pprof_status
rd_link(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.link_table", i, NULL, 0};
    if (d->o->links.len >= d->ro->max_samples)
        return over(d, &w, NULL, p, "links", d->ro->max_samples);
    pprof__otlp_link l = {0};
    l.off = (uint64_t)(p - d->base);
    l.len = (uint64_t)(end - p);
    FIELDS(d, &w, p, end)
    switch (f) {
    case 1: CHECK(rd_bytes(d, &w, "trace_id", tp, &p, end, wt, &l.trace_id)); break;
    case 2: CHECK(rd_bytes(d, &w, "span_id", tp, &p, end, wt, &l.span_id)); break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return store(d, &w, p, &d->o->links, &l, sizeof(l));
}

static pprof_status
rd_attr(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.attribute_table", i, NULL, 0};
    if (d->o->attrs.len >= d->ro->max_labels)
        return over(d, &w, NULL, p, "attributes", d->ro->max_labels);
    pprof__otlp_attr a = {0};
    a.off = (uint64_t)(p - d->base);
    a.len = (uint64_t)(end - p);
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1: CHECK(rd_i32(d, &w, "key_strindex", tp, &p, end, wt, &a.key)); break;
    case 2:
        CHECK(rd_len(d, &w, "value", tp, &p, end, wt, &e));
        CHECK(rd_any(d, &w, "value", p, e, &a.value, 0));
        p = e;
        break;
    case 3: CHECK(rd_i32(d, &w, "unit_strindex", tp, &p, end, wt, &a.unit)); break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return store(d, &w, p, &d->o->attrs, &a, sizeof(a));
}

static pprof_status
rd_stack(odec *d, const uint8_t *p, const uint8_t *end, size_t i)
{
    where w = {"dictionary.stack_table", i, NULL, 0};
    if (d->o->stacks.len >= d->ro->max_samples)
        return over(d, &w, NULL, p, "stacks", d->ro->max_samples);
    pprof__otlp_stack s = {0};
    s.off = (uint64_t)(p - d->base);
    s.len = (uint64_t)(end - p);
    s.locs.off = (uint32_t)d->o->ints.len;
    FIELDS(d, &w, p, end)
    if (f == 1)
        CHECK(rd_rep_i32(d, &w, "location_indices", tp, &p, end, wt, &s.locs.n, &d->n_stack_entries,
                         d->ro->max_stack_entries, "stack entries"));
    else
        SKIP(d, &w, p, end);
    FIELDS_END
    return store(d, &w, p, &d->o->stacks, &s, sizeof(s));
}

static pprof_status
rd_dictionary(odec *d, const uint8_t *p, const uint8_t *end)
{
    where w = {"dictionary", SIZE_MAX, NULL, 0};
    pprof_otlp *o = d->o;
    o->has_dictionary = true;
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    static const char *const names[] = {
        NULL,         "mapping_table", "location_table",  "function_table",
        "link_table", "string_table",  "attribute_table", "stack_table",
    };
    if (f < 1 || f > 7) {
        SKIP(d, &w, p, end);
        continue;
    }
    CHECK(rd_len(d, &w, names[f], tp, &p, end, wt, &e));
    switch (f) {
    case 1: CHECK(rd_mapping(d, p, e, o->mappings.len)); break;
    case 2: CHECK(rd_location(d, p, e, o->locations.len)); break;
    case 3: CHECK(rd_function(d, p, e, o->functions.len)); break;
    case 4: CHECK(rd_link(d, p, e, o->links.len)); break;
    case 5: {
        if (o->strings.len >= d->ro->max_strings) {
            where sw = {"dictionary.string_table", o->strings.len, NULL, 0};
            return over(d, &sw, NULL, p, "strings", d->ro->max_strings);
        }
        pprof_string *s = push(d, &o->strings, sizeof(pprof_string));
        if (!s)
            return nomem(d, &w, p);
        s->data = (const char *)p;
        s->len = (size_t)(e - p);
        break;
    }
    case 6: CHECK(rd_attr(d, p, e, o->attrs.len)); break;
    case 7: CHECK(rd_stack(d, p, e, o->stacks.len)); break;
    }
    p = e;
    FIELDS_END
    return PPROF_OK;
}

/* ---- resources, scopes, profiles */

static pprof_status
rd_value_type(odec *d, const where *w, const char *name, const uint8_t *p, const uint8_t *end,
              pprof__otlp_vt *vt)
{
    char t[48], u[48];
    snprintf(t, sizeof(t), "%s.type_strindex", name);
    snprintf(u, sizeof(u), "%s.unit_strindex", name);
    FIELDS(d, w, p, end)
    switch (f) {
    case 1: CHECK(rd_i32(d, w, t, tp, &p, end, wt, &vt->type)); break;
    case 2: CHECK(rd_i32(d, w, u, tp, &p, end, wt, &vt->unit)); break;
    default: SKIP(d, w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

static pprof_status
rd_sample(odec *d, const char *pre, size_t i, const uint8_t *p, const uint8_t *end)
{
    where w = {pre, i, NULL, 0};
    pprof_otlp *o = d->o;
    if (o->samples.len >= d->ro->max_samples)
        return over(d, &w, NULL, p, "samples", d->ro->max_samples);
    pprof__otlp_sample s = {0};
    s.attrs.off = (uint32_t)o->ints.len;
    s.val_off = (uint32_t)o->values.len;
    s.ts_off = (uint32_t)o->times.len;
    FIELDS(d, &w, p, end)
    switch (f) {
    case 1: CHECK(rd_i32(d, &w, "stack_index", tp, &p, end, wt, &s.stack)); break;
    case 2:
        CHECK(rd_rep_i32(d, &w, "attribute_indices", tp, &p, end, wt, &s.attrs.n, &d->n_attr_idx,
                         d->ro->max_labels, "attribute indices"));
        break;
    case 3: CHECK(rd_i32(d, &w, "link_index", tp, &p, end, wt, &s.link)); break;
    case 4: CHECK(rd_rep_64(d, &w, "values", tp, &p, end, wt, false, &o->values, &s.n_val)); break;
    case 5:
        CHECK(rd_rep_64(d, &w, "timestamps_unix_nano", tp, &p, end, wt, true, &o->times, &s.n_ts));
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    pprof__otlp_sample *slot = push(d, &o->samples, sizeof(s));
    if (!slot)
        return nomem(d, &w, p);
    *slot = s;
    return PPROF_OK;
}

static pprof_status
rd_profile(odec *d, const char *pre, size_t i, const uint8_t *p, const uint8_t *end,
           pprof__otlp_profile *pr)
{
    where w = {pre, i, NULL, 0};
    pprof_otlp *o = d->o;
    if (o->profiles.len >= d->ro->max_profiles)
        return failw(d, &w, NULL, p, PPROF_E_LIMIT,
                     "more profiles than the limit of %llu (max_profiles)",
                     (unsigned long long)d->ro->max_profiles);
    char spre[128];
    pprof__path(spre, "%s[%zu].samples", pre, i);
    pr->sample_off = (uint32_t)o->samples.len;
    pr->attrs.off = (uint32_t)o->ints.len;
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    uint64_t x = 0;
    switch (f) {
    case 1:
    case 5:
        CHECK(rd_len(d, &w, f == 1 ? "sample_type" : "period_type", tp, &p, end, wt, &e));
        CHECK(rd_value_type(d, &w, f == 1 ? "sample_type" : "period_type", p, e,
                            f == 1 ? &pr->sample_type : &pr->period_type));
        p = e;
        break;
    case 2:
        CHECK(rd_len(d, &w, "samples", tp, &p, end, wt, &e));
        CHECK(rd_sample(d, spre, pr->n_sample, p, e));
        pr->n_sample++;
        p = e;
        break;
    case 3: CHECK(rd_fixed64(d, &w, "time_unix_nano", tp, &p, end, wt, &pr->time)); break;
    case 4: CHECK(rd_varint(d, &w, "duration_nano", tp, &p, end, wt, &pr->duration)); break;
    case 6:
        CHECK(rd_varint(d, &w, "period", tp, &p, end, wt, &x));
        pr->period = (int64_t)x;
        break;
    case 7: CHECK(rd_bytes(d, &w, "profile_id", tp, &p, end, wt, &pr->profile_id)); break;
    case 8:
        CHECK(rd_varint(d, &w, "dropped_attributes_count", tp, &p, end, wt, &x));
        pr->dropped_attributes = (uint32_t)x;
        break;
    case 9:
        CHECK(rd_bytes(d, &w, "original_payload_format", tp, &p, end, wt, &pr->original_format));
        break;
    case 10: CHECK(rd_bytes(d, &w, "original_payload", tp, &p, end, wt, &pr->original)); break;
    case 11:
        /* the profile's indices are one run of ints, but its samples push theirs there too,
         * and they come first in field order: the run starts at the first index, and one
         * that samples interrupted moves to the end before the next part is appended */
        if (!pr->attrs.n) {
            pr->attrs.off = (uint32_t)o->ints.len;
        } else if (pr->attrs.off + pr->attrs.n != o->ints.len) {
            size_t at = o->ints.len;
            if (!pprof__vec_grow(d->a, &o->ints, sizeof(int32_t), at + pr->attrs.n))
                return nomem(d, &w, p);
            memcpy((int32_t *)o->ints.data + at, (int32_t *)o->ints.data + pr->attrs.off,
                   pr->attrs.n * sizeof(int32_t));
            o->ints.len = at + pr->attrs.n;
            pr->attrs.off = (uint32_t)at;
        }
        CHECK(rd_rep_i32(d, &w, "attribute_indices", tp, &p, end, wt, &pr->attrs.n, &d->n_attr_idx,
                         d->ro->max_labels, "attribute indices"));
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

/* common.v1.KeyValue, appended to kvs. */
static pprof_status
rd_kv(odec *d, const where *w, const uint8_t *p, const uint8_t *end)
{
    if (++d->n_kv > d->ro->max_labels)
        return over(d, w, "attributes", p, "attributes", d->ro->max_labels);
    pprof__otlp_kv kv = {0};
    FIELDS(d, w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1: CHECK(rd_bytes(d, w, "attributes.key", tp, &p, end, wt, &kv.key)); break;
    case 2:
        CHECK(rd_len(d, w, "attributes.value", tp, &p, end, wt, &e));
        CHECK(rd_any(d, w, "attributes.value", p, e, &kv.value, 0));
        p = e;
        break;
    case 3:
        CHECK(rd_i32(d, w, "attributes.key_strindex", tp, &p, end, wt, &kv.key_strindex));
        break;
    default: SKIP(d, w, p, end);
    }
    FIELDS_END
    return store(d, w, p, &d->o->kvs, &kv, sizeof(kv));
}

/* InstrumentationScope: name, version, attributes. */
static pprof_status
rd_scope_msg(odec *d, const where *w, const uint8_t *p, const uint8_t *end, pprof__otlp_scope *sc)
{
    pprof_otlp *o = d->o;
    sc->kv_off = (uint32_t)o->kvs.len;
    sc->n_kv = 0;
    FIELDS(d, w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1: CHECK(rd_bytes(d, w, "scope.name", tp, &p, end, wt, &sc->name)); break;
    case 2: CHECK(rd_bytes(d, w, "scope.version", tp, &p, end, wt, &sc->version)); break;
    case 3:
        CHECK(rd_len(d, w, "scope.attributes", tp, &p, end, wt, &e));
        CHECK(rd_kv(d, w, p, e));
        sc->n_kv++;
        p = e;
        break;
    default: SKIP(d, w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

/* Resource: its attributes (the rest is skipped). */
static pprof_status
rd_resource_msg(odec *d, const where *w, const uint8_t *p, const uint8_t *end,
                pprof__otlp_resource *r)
{
    pprof_otlp *o = d->o;
    r->kv_off = (uint32_t)o->kvs.len;
    r->n_kv = 0;
    FIELDS(d, w, p, end)
    const uint8_t *e;
    if (f == 1) {
        CHECK(rd_len(d, w, "resource.attributes", tp, &p, end, wt, &e));
        CHECK(rd_kv(d, w, p, e));
        r->n_kv++;
        p = e;
    } else {
        SKIP(d, w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}

static pprof_status
rd_scope(odec *d, const char *pre, size_t si, uint32_t res, const uint8_t *p, const uint8_t *end)
{
    where w = {pre, si, NULL, 0};
    pprof_otlp *o = d->o;
    pprof__otlp_scope sc = {0};
    sc.resource = res;
    uint32_t scope_index = (uint32_t)o->scopes.len;
    if (!push(d, &o->scopes, sizeof(sc)))
        return nomem(d, &w, p);
    char ppre[128];
    pprof__path(ppre, "%s[%zu].profiles", pre, si);
    uint32_t n_prof = 0;
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1:
        CHECK(rd_len(d, &w, "scope", tp, &p, end, wt, &e));
        CHECK(rd_scope_msg(d, &w, p, e, &sc));
        p = e;
        break;
    case 2: {
        CHECK(rd_len(d, &w, "profiles", tp, &p, end, wt, &e));
        pprof__otlp_profile pr;
        memset(&pr, 0, sizeof(pr));
        pr.scope = scope_index;
        pr.resource = res;
        pr.scope_in_resource = (uint32_t)si;
        pr.index_in_scope = n_prof;
        CHECK(rd_profile(d, ppre, n_prof, p, e, &pr));
        pprof__otlp_profile *slot = push(d, &o->profiles, sizeof(pr));
        if (!slot)
            return nomem(d, &w, p);
        *slot = pr;
        n_prof++;
        p = e;
        break;
    }
    case 3: CHECK(rd_bytes(d, &w, "schema_url", tp, &p, end, wt, &sc.schema_url)); break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    PPROF__AT(o->scopes, pprof__otlp_scope, scope_index) = sc;
    return PPROF_OK;
}

static pprof_status
rd_resource_profiles(odec *d, size_t ri, const uint8_t *p, const uint8_t *end)
{
    where w = {"resource_profiles", ri, NULL, 0};
    pprof_otlp *o = d->o;
    if (o->resources.len >= d->ro->max_samples)
        return over(d, &w, NULL, p, "resources", d->ro->max_samples);
    pprof__otlp_resource r = {0};
    uint32_t res = (uint32_t)o->resources.len;
    if (!push(d, &o->resources, sizeof(r)))
        return nomem(d, &w, p);
    char spre[128];
    pprof__path(spre, "resource_profiles[%zu].scope_profiles", ri);
    size_t n_scope = 0;
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1:
        CHECK(rd_len(d, &w, "resource", tp, &p, end, wt, &e));
        CHECK(rd_resource_msg(d, &w, p, e, &r));
        p = e;
        break;
    case 2:
        CHECK(rd_len(d, &w, "scope_profiles", tp, &p, end, wt, &e));
        CHECK(rd_scope(d, spre, n_scope++, res, p, e));
        p = e;
        break;
    case 3: CHECK(rd_bytes(d, &w, "schema_url", tp, &p, end, wt, &r.schema_url)); break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    PPROF__AT(o->resources, pprof__otlp_resource, res) = r;
    return PPROF_OK;
}

pprof_status
pprof__otlp_decode(pprof_otlp *o, uint8_t *buf, size_t len, const pprof_read_options *ro,
                   pprof_error *err)
{
    o->buf = buf;
    o->buf_len = len;
    odec dd = {o, &o->tabs, buf, ro, err, 0, 0, 0, 0, 0};
    odec *d = &dd;
    where w = {NULL, SIZE_MAX, NULL, 0};
    if (!len)
        return pprof__error(err, PPROF_E_EMPTY, PPROF_NO_OFFSET, "", "the input holds no bytes");
    const uint8_t *p = buf, *end = buf + len;
    size_t n_res = 0;
    /* Stack and attribute indices are most of an OTLP input: room for a quarter of its bytes
     * as indices up front (memory the input's size), so that they are not copied as they grow. */
    if (!pprof__vec_grow(&o->tabs, &o->ints, sizeof(int32_t), len / 4 + 16))
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    FIELDS(d, &w, p, end)
    const uint8_t *e;
    switch (f) {
    case 1:
        CHECK(rd_len(d, &w, "resource_profiles", tp, &p, end, wt, &e));
        CHECK(rd_resource_profiles(d, n_res++, p, e));
        p = e;
        break;
    case 2:
        CHECK(rd_len(d, &w, "dictionary", tp, &p, end, wt, &e));
        CHECK(rd_dictionary(d, p, e));
        p = e;
        break;
    default: SKIP(d, &w, p, end);
    }
    FIELDS_END
    return PPROF_OK;
}
