/* JFR chunks: the header, compressed integers, strings, the metadata event (a string table and
 * a tree of elements describing classes and their fields) and the checkpoint events holding the
 * constant pools. Values are not decoded into objects: a pool entry is the offset of its value,
 * read when an event needs it, so memory stays a few words per entry. */
#include <stdlib.h>

#include "jfr-private.h"
#include "utf8-private.h"

static uint64_t
be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static bool
need(jfr_in *in, uint64_t n)
{
    if (in->bad || in->end - in->pos < n || in->pos > in->end) {
        if (!in->bad)
            in->err_pos = in->pos;
        in->bad = true;
        return false;
    }
    return true;
}

uint8_t
jfr__byte(jfr_in *in)
{
    return need(in, 1) ? in->p[in->pos++] : 0;
}

/* Seven bits a byte, low first, the high bit saying more follow; the ninth byte has eight. */
uint64_t
jfr__varlong(jfr_in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (!need(in, 1))
            return 0;
        uint8_t b = in->p[in->pos++];
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return v;
    }
    if (!need(in, 1))
        return 0;
    return v | (uint64_t)in->p[in->pos++] << 56;
}

static uint64_t
fixed(jfr_in *in, int n)
{
    if (!need(in, (uint64_t)n))
        return 0;
    uint64_t v = be(in->p + in->pos, n);
    in->pos += (uint64_t)n;
    return v;
}

uint32_t
jfr__int(jfr_in *in)
{
    return in->compressed ? (uint32_t)jfr__varlong(in) : (uint32_t)fixed(in, 4);
}

uint64_t
jfr__long(jfr_in *in)
{
    return in->compressed ? jfr__varlong(in) : fixed(in, 8);
}

static uint16_t
jfr_short(jfr_in *in)
{
    return in->compressed ? (uint16_t)jfr__varlong(in) : (uint16_t)fixed(in, 2);
}

/* A count of items each at least one byte long: more than the bytes left is malformed. */
static bool
count_fits(jfr_in *in, uint64_t n)
{
    if (n > in->end - in->pos) {
        if (!in->bad)
            in->err_pos = in->pos;
        in->bad = true;
        return false;
    }
    return true;
}

static bool
put_utf8(const pprof_allocator *a, pprof__vec *out, uint32_t cp)
{
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xc0 | cp >> 6);
        b[1] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xe0 | cp >> 12);
        b[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (uint8_t)(0xf0 | cp >> 18);
        b[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
        b[3] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 4;
    }
    if (!pprof__vec_grow(a, out, 1, out->len + n + 1))
        return false;
    memcpy((uint8_t *)out->data + out->len, b, n);
    out->len += n;
    return true;
}

static bool
put_bytes(const pprof_allocator *a, pprof__vec *out, const uint8_t *s, size_t n)
{
    if (!pprof__vec_grow(a, out, 1, out->len + n + 1))
        return false;
    memcpy((uint8_t *)out->data + out->len, s, n);
    out->len += n;
    return true;
}

static bool
terminate(const pprof_allocator *a, pprof__vec *out)
{
    if (!pprof__vec_grow(a, out, 1, out->len + 1))
        return false;
    ((char *)out->data)[out->len] = 0;
    return true;
}

bool
jfr__string(jfr_parser *ps, jfr_chunk *c, jfr_in *in, pprof__vec *out, bool *is_null, int depth)
{
    const pprof_allocator *a = &ps->a;
    *is_null = false;
    uint64_t at = in->pos;
    uint8_t enc = jfr__byte(in);
    if (in->bad)
        return false;
    switch (enc) {
    case 0: *is_null = true; return terminate(a, out);
    case 1: return terminate(a, out);
    case 2: {
        uint64_t key = jfr__long(in);
        uint64_t off =
            c->string_cls == PPROF_NONE ? UINT64_MAX : jfr__pool_get(c, c->string_cls, key);
        if (in->bad || off == UINT64_MAX || depth > 1) {
            in->err_pos = at;
            in->bad = true;
            return false;
        }
        jfr_in sub = jfr__in(ps, c, off, ps->size);
        bool ok = jfr__string(ps, c, &sub, out, is_null, depth + 1);
        if (!ok && sub.bad) {
            in->bad = true;
            in->err_pos = sub.err_pos;
        }
        return ok;
    }
    case 3:
    case 5: {
        uint32_t n = jfr__int(in);
        if (!need(in, n))
            return false;
        const uint8_t *s = in->p + in->pos;
        in->pos += n;
        if (enc == 3 && pprof__utf8_valid(s, n, NULL))
            return put_bytes(a, out, s, n) && terminate(a, out);
        if (enc == 3) {
            /* profile strings are UTF-8: a byte that is not stands as U+FFFD */
            for (uint32_t i = 0; i < n;) {
                size_t k = pprof__utf8_seq_len(s + i, n - i);
                if (!(k ? put_bytes(a, out, s + i, k) : put_utf8(a, out, 0xfffd)))
                    return false;
                i += k ? (uint32_t)k : 1;
            }
            return terminate(a, out);
        }
        for (uint32_t i = 0; i < n; i++)
            if (!put_utf8(a, out, s[i]))
                return false;
        return terminate(a, out);
    }
    case 4: {
        uint32_t n = jfr__int(in);
        if (!count_fits(in, n))
            return false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = jfr_short(in);
            if (in->bad)
                return false;
            if (u >= 0xd800 && u < 0xdc00 && i + 1 < n) {
                uint64_t back = in->pos;
                uint32_t lo = jfr_short(in);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                    i++;
                } else {
                    in->pos = back;
                    u = 0xfffd;
                }
            } else if (u >= 0xd800 && u < 0xe000) {
                u = 0xfffd;
            }
            if (!put_utf8(a, out, u))
                return false;
        }
        return !in->bad && terminate(a, out);
    }
    default:
        in->err_pos = at;
        in->bad = true;
        return false;
    }
}

bool
jfr__scalar(jfr_chunk *c, jfr_in *in, const jfr_field *f, uint64_t *v)
{
    if (f->pool) {
        *v = jfr__long(in);
        return !in->bad;
    }
    switch (PPROF__AT(c->classes, jfr_class, f->cls).prim) {
    case JFR_BOOLEAN:
    case JFR_BYTE: *v = jfr__byte(in); break;
    case JFR_CHAR:
    case JFR_SHORT: *v = jfr_short(in); break;
    case JFR_INT: *v = (uint64_t)(int64_t)(int32_t)jfr__int(in); break;
    case JFR_LONG: *v = jfr__long(in); break;
    default: return false;
    }
    return !in->bad;
}

static bool
too_deep(jfr_in *in, int depth)
{
    if (depth > JFR_MAX_DEPTH) {
        if (!in->bad)
            in->err_pos = in->pos;
        in->bad = true;
        return true;
    }
    return false;
}

bool
jfr__skip_class(jfr_parser *ps, jfr_chunk *c, jfr_in *in, uint32_t cls, int depth)
{
    if (too_deep(in, depth))
        return false;
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    switch (k->prim) {
    case JFR_BOOLEAN:
    case JFR_BYTE: return need(in, 1) && (in->pos++, true);
    case JFR_CHAR:
    case JFR_SHORT: jfr_short(in); return !in->bad;
    case JFR_INT: jfr__int(in); return !in->bad;
    case JFR_LONG: jfr__long(in); return !in->bad;
    case JFR_FLOAT: return need(in, 4) && (in->pos += 4, true);
    case JFR_DOUBLE: return need(in, 8) && (in->pos += 8, true);
    case JFR_STRING: {
        uint64_t at = in->pos;
        uint8_t enc = jfr__byte(in);
        if (enc == 0 || enc == 1)
            return !in->bad;
        if (enc == 2) {
            jfr__long(in);
            return !in->bad;
        }
        if (enc == 3 || enc == 5) {
            uint32_t n = jfr__int(in);
            return need(in, n) && (in->pos += n, true);
        }
        if (enc == 4) {
            uint32_t n = jfr__int(in);
            if (!count_fits(in, n))
                return false;
            for (uint32_t i = 0; i < n && !in->bad; i++)
                jfr_short(in);
            return !in->bad;
        }
        if (!in->bad)
            in->err_pos = at;
        in->bad = true;
        return false;
    }
    case JFR_STRUCT: break;
    }
    for (uint32_t i = 0; i < k->n_fields; i++)
        if (!jfr__skip_field(ps, c, in, jfr__field(c, cls, i), depth + 1))
            return false;
    return true;
}

bool
jfr__skip_field(jfr_parser *ps, jfr_chunk *c, jfr_in *in, const jfr_field *f, int depth)
{
    if (!f->array) {
        if (f->pool) {
            jfr__long(in);
            return !in->bad;
        }
        return jfr__skip_class(ps, c, in, f->cls, depth);
    }
    uint32_t n = jfr__int(in);
    if (!count_fits(in, n))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t before = in->pos;
        if (f->pool)
            jfr__long(in);
        else if (!jfr__skip_class(ps, c, in, f->cls, depth))
            return false;
        if (in->bad)
            return false;
        /* a class of no bytes at all: the other elements take none either */
        if (in->pos == before)
            break;
    }
    return true;
}

bool
jfr__seek_field(jfr_parser *ps, jfr_chunk *c, jfr_in *in, uint32_t cls, uint32_t i)
{
    for (uint32_t k = 0; k < i; k++)
        if (!jfr__skip_field(ps, c, in, jfr__field(c, cls, k), 1))
            return false;
    return true;
}

uint32_t
jfr__class_by_id(const jfr_chunk *c, uint64_t id)
{
    return pprof__u64map_get(&c->class_by_id, id);
}

uint32_t
jfr__class_by_name(const jfr_chunk *c, const char *name)
{
    for (size_t i = 0; i < c->classes.len; i++)
        if (!strcmp(PPROF__AT(c->classes, jfr_class, i).name, name))
            return (uint32_t)i;
    return PPROF_NONE;
}

uint32_t
jfr__field_index(const jfr_chunk *c, uint32_t cls, const char *name)
{
    if (cls == PPROF_NONE)
        return PPROF_NONE;
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    for (uint32_t i = 0; i < k->n_fields; i++)
        if (!strcmp(jfr__field(c, cls, i)->name, name))
            return i;
    return PPROF_NONE;
}

uint64_t
jfr__pool_get(const jfr_chunk *c, uint32_t cls, uint64_t key)
{
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    if (!k->has_pool)
        return UINT64_MAX;
    uint32_t i = pprof__u64map_get(&k->pool, key);
    return i == PPROF_NONE ? UINT64_MAX : PPROF__AT(c->entries, uint64_t, i);
}

/* ---------------------------------------------------------------- header and events */

pprof_status
jfr__chunk_header(jfr_parser *ps, uint64_t off, jfr_chunk *c)
{
    memset(c, 0, sizeof(*c));
    c->start = off;
    c->string_cls = PPROF_NONE;
    const uint8_t *h = ps->data + off;
    if (ps->size - off < JFR_HEADER_SIZE) {
        if (ps->size - off >= 4 && memcmp(h, "FLR\0", 4))
            return pprof__error(ps->err, PPROF_E_INVALID, off, "chunk",
                                "not a JFR chunk (no magic FLR\\0)");
        return pprof__error(ps->err, PPROF_E_INVALID, off, "chunk",
                            "the recording ends inside a chunk header (%llu of %d bytes)",
                            (unsigned long long)(ps->size - off), JFR_HEADER_SIZE);
    }
    if (memcmp(h, "FLR\0", 4))
        return pprof__error(ps->err, PPROF_E_INVALID, off, "chunk",
                            "not a JFR chunk (no magic FLR\\0)");
    c->major = (uint16_t)be(h + 4, 2);
    c->minor = (uint16_t)be(h + 6, 2);
    if (c->major != 2)
        return pprof__error(ps->err, PPROF_E_UNSUPPORTED, off + 4, "chunk.version",
                            "JFR version %u.%u (2.0 and 2.1 are read)", c->major, c->minor);
    c->size = be(h + 8, 8);
    c->cp_off = be(h + 16, 8);
    c->meta_off = be(h + 24, 8);
    c->start_nanos = (int64_t)be(h + 32, 8);
    c->duration_nanos = (int64_t)be(h + 40, 8);
    c->start_ticks = (int64_t)be(h + 48, 8);
    c->ticks_per_second = (int64_t)be(h + 56, 8);
    c->features = (uint32_t)be(h + 64, 4);
    c->compressed = c->features & 1;
    if (c->ticks_per_second <= 0)
        return pprof__error(ps->err, PPROF_E_INVALID, off + 56, "chunk.ticks_per_second",
                            "ticks per second %lld (must be positive)",
                            (long long)c->ticks_per_second);
    if (c->size != 0 && c->size < JFR_HEADER_SIZE)
        return pprof__error(ps->err, PPROF_E_INVALID, off + 8, "chunk.size",
                            "chunk size %llu is below the header's %d bytes",
                            (unsigned long long)c->size, JFR_HEADER_SIZE);
    /* 0: the recorder had not finished the chunk (still running or killed) */
    if (c->size == 0 || c->size > ps->size - off) {
        if (!ps->o->allow_truncated && c->size)
            return pprof__error(ps->err, PPROF_E_INVALID, ps->size, "chunk",
                                "the recording ends inside a chunk: the chunk at %llu says %llu "
                                "bytes, %llu are there (allow_truncated keeps what can be read)",
                                (unsigned long long)off, (unsigned long long)c->size,
                                (unsigned long long)(ps->size - off));
        if (!ps->o->allow_truncated)
            return pprof__error(ps->err, PPROF_E_INVALID, off + 8, "chunk.size",
                                "the chunk at %llu is unfinished (size 0: the recorder did not "
                                "close it; allow_truncated keeps what can be read)",
                                (unsigned long long)off);
        c->cut = true;
        c->end = ps->size;
    } else {
        c->end = off + c->size;
        if (c->meta_off >= c->size || c->cp_off >= c->size ||
            (c->meta_off && c->meta_off < JFR_HEADER_SIZE))
            return pprof__error(ps->err, PPROF_E_INVALID, off + 16, "chunk",
                                "constant pool offset %llu or metadata offset %llu outside the "
                                "chunk's %llu bytes",
                                (unsigned long long)c->cp_off, (unsigned long long)c->meta_off,
                                (unsigned long long)c->size);
    }
    return PPROF_OK;
}

static pprof_status
bad_at(jfr_parser *ps, const jfr_in *in, const char *path, const char *what)
{
    return pprof__error(ps->err, PPROF_E_INVALID, in->err_pos, path, "%s", what);
}

pprof_status
jfr__next_event(jfr_parser *ps, jfr_chunk *c, uint64_t *pos, uint64_t *size, uint64_t *type,
                uint64_t *body, bool *more)
{
    *more = false;
    if (*pos >= c->end)
        return PPROF_OK;
    jfr_in in = jfr__in(ps, c, *pos, c->end);
    uint64_t sz = jfr__int(&in);
    uint64_t t = jfr__long(&in);
    if (in.bad || sz < in.pos - *pos || sz > c->end - *pos) {
        if (c->cut)
            return PPROF_OK; /* the cut: the events before it are what there is */
        if (in.bad || sz > c->end - *pos)
            return pprof__error(ps->err, PPROF_E_INVALID, *pos, "event",
                                "event of %llu bytes runs past its chunk (ends at %llu)",
                                (unsigned long long)sz, (unsigned long long)c->end);
        return pprof__error(ps->err, PPROF_E_INVALID, *pos, "event",
                            "event size %llu is smaller than its own header",
                            (unsigned long long)sz);
    }
    *size = sz;
    *type = t;
    *body = in.pos;
    *more = true;
    return PPROF_OK;
}

/* ---------------------------------------------------------------- metadata */

typedef struct meta_ctx {
    jfr_parser *ps;
    jfr_chunk *c;
    const char **strings;
    uint32_t n_strings;
} meta_ctx;

static const char *
meta_str(meta_ctx *m, jfr_in *in)
{
    uint32_t i = jfr__int(in);
    if (in->bad)
        return NULL;
    if (i >= m->n_strings || !m->strings[i]) {
        in->err_pos = in->pos;
        in->bad = true;
        return NULL;
    }
    return m->strings[i];
}

static bool
parse_u64(const char *s, uint64_t *v)
{
    if (!*s)
        return false;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (*e || *s == '-')
        return false;
    *v = x;
    return true;
}

/* One element and its children; kind 1 = inside "metadata" (classes), 2 = inside a class. */
static pprof_status
meta_element(meta_ctx *m, jfr_in *in, int depth, int parent, uint32_t cls)
{
    jfr_parser *ps = m->ps;
    jfr_chunk *c = m->c;
    if (depth > JFR_MAX_DEPTH)
        return pprof__error(ps->err, PPROF_E_INVALID, in->pos, "metadata",
                            "metadata elements nested deeper than %d", JFR_MAX_DEPTH);
    uint64_t at = in->pos;
    const char *name = meta_str(m, in);
    uint32_t nattr = jfr__int(in);
    if (in->bad || !count_fits(in, nattr))
        return bad_at(ps, in, "metadata", "malformed metadata element");
    bool is_class = parent == 1 && !strcmp(name, "class");
    bool is_field = parent == 2 && !strcmp(name, "field");
    const char *a_name = NULL, *a_id = NULL, *a_dim = NULL, *a_pool = NULL, *a_class = NULL;
    for (uint32_t i = 0; i < nattr; i++) {
        const char *k = meta_str(m, in), *v = meta_str(m, in);
        if (in->bad)
            return bad_at(ps, in, "metadata", "metadata attribute names no string");
        if (!strcmp(k, "name"))
            a_name = v;
        else if (!strcmp(k, "id"))
            a_id = v;
        else if (!strcmp(k, "dimension"))
            a_dim = v;
        else if (!strcmp(k, "constantPool"))
            a_pool = v;
        else if (!strcmp(k, "class"))
            a_class = v;
    }
    int kind = !strcmp(name, "metadata") ? 1 : 0;
    if (is_class) {
        uint64_t id;
        if (!a_name || !a_id || !parse_u64(a_id, &id))
            return pprof__error(ps->err, PPROF_E_INVALID, at, "metadata.class",
                                "a class without a name or a numeric id");
        if (c->classes.len >= (ps->o->max_types ? ps->o->max_types : (UINT64_C(1) << 16)))
            return pprof__error(
                ps->err, PPROF_E_LIMIT, at, "metadata.class", "more than %llu classes (max_types)",
                (unsigned long long)(ps->o->max_types ? ps->o->max_types : (UINT64_C(1) << 16)));
        uint32_t old;
        bool added;
        if (!pprof__u64map_put(&c->class_by_id, &ps->a, id, (uint32_t)c->classes.len, &old, &added))
            return pprof__error(ps->err, PPROF_E_NOMEM, at, "", "out of memory");
        if (!added)
            return pprof__error(ps->err, PPROF_E_INVALID, at, "metadata.class",
                                "class id %llu is given twice", (unsigned long long)id);
        jfr_class *k = pprof__vec_push(&ps->a, &c->classes, sizeof(*k));
        if (!k)
            return pprof__error(ps->err, PPROF_E_NOMEM, at, "", "out of memory");
        memset(k, 0, sizeof(*k));
        k->id = id;
        k->name = a_name;
        k->first_field = (uint32_t)c->fields.len;
        cls = (uint32_t)(c->classes.len - 1);
        kind = 2;
    } else if (is_field) {
        uint64_t t;
        if (!a_name || !a_class || !parse_u64(a_class, &t))
            return pprof__error(ps->err, PPROF_E_INVALID, at, "metadata.field",
                                "a field without a name or a numeric class");
        if (c->fields.len >= UINT32_MAX / 2)
            return pprof__error(ps->err, PPROF_E_LIMIT, at, "metadata.field", "too many fields");
        jfr_field *f = pprof__vec_push(&ps->a, &c->fields, sizeof(*f));
        if (!f)
            return pprof__error(ps->err, PPROF_E_NOMEM, at, "", "out of memory");
        f->name = a_name;
        f->type_id = t;
        f->cls = PPROF_NONE;
        f->array = a_dim && strcmp(a_dim, "0") != 0;
        f->pool = a_pool && !strcmp(a_pool, "true");
        PPROF__AT(c->classes, jfr_class, cls).n_fields++;
    }
    uint32_t nchild = jfr__int(in);
    if (in->bad || !count_fits(in, nchild))
        return bad_at(ps, in, "metadata", "malformed metadata element");
    for (uint32_t i = 0; i < nchild; i++) {
        pprof_status st = meta_element(m, in, depth + 1, kind, cls);
        if (st)
            return st;
    }
    return PPROF_OK;
}

static jfr_prim
prim_of(const char *name)
{
    static const struct {
        const char *name;
        jfr_prim prim;
    } t[] = {{"boolean", JFR_BOOLEAN}, {"byte", JFR_BYTE},     {"char", JFR_CHAR},
             {"short", JFR_SHORT},     {"int", JFR_INT},       {"long", JFR_LONG},
             {"float", JFR_FLOAT},     {"double", JFR_DOUBLE}, {"java.lang.String", JFR_STRING}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(name, t[i].name))
            return t[i].prim;
    return JFR_STRUCT;
}

static pprof_status
parse_metadata(jfr_parser *ps, jfr_chunk *c, uint64_t body, uint64_t end)
{
    jfr_in in = jfr__in(ps, c, body, end);
    jfr__long(&in); /* start time */
    jfr__long(&in); /* duration */
    jfr__long(&in); /* metadata id */
    uint32_t n = jfr__int(&in);
    if (in.bad || !count_fits(&in, n))
        return bad_at(ps, &in, "metadata.strings", "malformed metadata string table");
    meta_ctx m = {ps, c, NULL, n};
    m.strings = pprof__arena_alloc(&c->arena, (n ? n : 1) * sizeof(char *));
    if (!m.strings)
        return pprof__error(ps->err, PPROF_E_NOMEM, body, "", "out of memory");
    pprof__vec s = {0};
    pprof_status st = PPROF_OK;
    for (uint32_t i = 0; i < n && !st; i++) {
        bool is_null;
        s.len = 0;
        if (!jfr__string(ps, c, &in, &s, &is_null, 0)) {
            st = in.bad ? bad_at(ps, &in, "metadata.strings", "malformed metadata string")
                        : pprof__error(ps->err, PPROF_E_NOMEM, in.pos, "", "out of memory");
            break;
        }
        char *copy = pprof__arena_alloc(&c->arena, s.len + 1);
        if (!copy) {
            st = pprof__error(ps->err, PPROF_E_NOMEM, in.pos, "", "out of memory");
            break;
        }
        memcpy(copy, s.data, s.len + 1);
        m.strings[i] = is_null ? NULL : copy;
    }
    pprof__free(&ps->a, s.data);
    if (st)
        return st;
    if ((st = meta_element(&m, &in, 0, 0, PPROF_NONE)))
        return st;
    for (size_t i = 0; i < c->classes.len; i++) {
        jfr_class *k = &PPROF__AT(c->classes, jfr_class, i);
        k->prim = prim_of(k->name);
        if (k->prim == JFR_STRING)
            c->string_cls = (uint32_t)i;
        for (uint32_t j = 0; j < k->n_fields; j++) {
            jfr_field *f = &PPROF__AT(c->fields, jfr_field, k->first_field + j);
            f->cls = jfr__class_by_id(c, f->type_id);
            if (f->cls == PPROF_NONE)
                return pprof__error(ps->err, PPROF_E_INVALID, body, "metadata.field",
                                    "field %s.%s has the type %llu that no class has", k->name,
                                    f->name, (unsigned long long)f->type_id);
        }
    }
    return PPROF_OK;
}

/* ---------------------------------------------------------------- constant pools */

static pprof_status
parse_checkpoint(jfr_parser *ps, jfr_chunk *c, uint64_t at, uint64_t body, uint64_t end)
{
    jfr_in in = jfr__in(ps, c, body, end);
    jfr__long(&in); /* start time */
    jfr__long(&in); /* duration */
    jfr__long(&in); /* delta to the previous checkpoint: all are found by the scan */
    jfr__byte(&in); /* flush (2.0) or checkpoint kind (2.1) */
    uint32_t pools = jfr__int(&in);
    if (in.bad || !count_fits(&in, pools))
        return bad_at(ps, &in, "checkpoint", "malformed checkpoint event");
    uint64_t max = ps->o->max_pool_entries ? ps->o->max_pool_entries : UINT64_C(1) << 24;
    if (max > UINT32_MAX - 1)
        max = UINT32_MAX - 1; /* the pools' maps hold 32-bit indices */
    for (uint32_t p = 0; p < pools; p++) {
        uint64_t tat = in.pos;
        uint64_t type = jfr__long(&in);
        uint32_t n = jfr__int(&in);
        if (in.bad || !count_fits(&in, n))
            return bad_at(ps, &in, "checkpoint.pool", "malformed constant pool");
        uint32_t cls = jfr__class_by_id(c, type);
        if (cls == PPROF_NONE)
            return pprof__error(ps->err, PPROF_E_INVALID, tat, "checkpoint.pool",
                                "constant pool of type %llu that the metadata does not describe",
                                (unsigned long long)type);
        jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
        if (!k->has_pool) {
            if (!pprof__u64map_init(&k->pool, &ps->a, 16))
                return pprof__error(ps->err, PPROF_E_NOMEM, tat, "", "out of memory");
            k->has_pool = true;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t key = jfr__long(&in);
            uint64_t voff = in.pos;
            if (in.bad || !jfr__skip_class(ps, c, &in, cls, 0))
                return bad_at(ps, &in, "checkpoint.pool",
                              "malformed constant pool entry (or one running past its event)");
            if (c->entries.len >= max)
                return pprof__error(ps->err, PPROF_E_LIMIT, voff, "checkpoint.pool",
                                    "more than %llu constant pool entries in one chunk "
                                    "(max_pool_entries)",
                                    (unsigned long long)max);
            uint32_t old;
            bool added;
            if (!pprof__u64map_put(&k->pool, &ps->a, key, (uint32_t)c->entries.len, &old, &added))
                return pprof__error(ps->err, PPROF_E_NOMEM, voff, "", "out of memory");
            if (!added)
                continue; /* written again by a later flush: the first one stands */
            uint64_t *e = pprof__vec_push(&ps->a, &c->entries, sizeof(*e));
            if (!e)
                return pprof__error(ps->err, PPROF_E_NOMEM, voff, "", "out of memory");
            *e = voff;
        }
    }
    (void)at;
    return PPROF_OK;
}

pprof_status
jfr__chunk_load(jfr_parser *ps, jfr_chunk *c, uint64_t *events, bool pools)
{
    pprof__arena_init(&c->arena, &ps->a);
    if (!pprof__u64map_init(&c->class_by_id, &ps->a, 256))
        return pprof__error(ps->err, PPROF_E_NOMEM, c->start, "", "out of memory");
    /* The metadata the header names (the last one written); in an unfinished chunk, the last
     * one met. */
    uint64_t meta = 0, pos = c->start + JFR_HEADER_SIZE, size, type, body;
    uint64_t n = 0;
    bool more;
    pprof_status st;
    while (!(st = jfr__next_event(ps, c, &pos, &size, &type, &body, &more)) && more) {
        if (type == JFR_EVENT_METADATA && (c->cut || pos == c->start + c->meta_off || !meta))
            meta = pos;
        pos += size;
        n++;
    }
    if (st)
        return st;
    *events = n;
    if (!meta) {
        if (c->cut)
            return PPROF_OK;
        return pprof__error(ps->err, PPROF_E_INVALID, c->start + 24, "chunk.metadata",
                            "the chunk holds no metadata event");
    }
    if (!c->cut && meta != c->start + c->meta_off)
        return pprof__error(ps->err, PPROF_E_INVALID, c->start + 24, "chunk.metadata",
                            "the metadata offset %llu is not where an event starts",
                            (unsigned long long)c->meta_off);
    jfr__next_event(ps, c, &meta, &size, &type, &body, &more);
    if ((st = parse_metadata(ps, c, body, meta + size)) || !pools)
        return st;
    pos = c->start + JFR_HEADER_SIZE;
    while (!(st = jfr__next_event(ps, c, &pos, &size, &type, &body, &more)) && more) {
        if (type == JFR_EVENT_CHECKPOINT && (st = parse_checkpoint(ps, c, pos, body, pos + size)))
            return st;
        pos += size;
    }
    return st;
}

void
jfr__chunk_free(jfr_parser *ps, jfr_chunk *c)
{
    for (size_t i = 0; i < c->classes.len; i++) {
        jfr_class *k = &PPROF__AT(c->classes, jfr_class, i);
        if (k->has_pool)
            pprof__u64map_free(&k->pool, &ps->a);
    }
    pprof__free(&ps->a, c->classes.data);
    pprof__free(&ps->a, c->fields.data);
    pprof__free(&ps->a, c->entries.data);
    pprof__u64map_free(&c->class_by_id, &ps->a);
    pprof__arena_destroy(&c->arena);
    memset(&c->classes, 0, sizeof(c->classes));
}
