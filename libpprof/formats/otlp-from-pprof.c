/* pprof -> OTLP (opentelemetry-proto ac2c4b5). Every dictionary entry is encoded to its message
 * bytes and interned by them, which is the protocol's identity ("based on its value,
 * recursively"): equal entries share one index and index 0 is the zero value's (empty bytes).
 * docs/otlp.md maps the fields. */
#include <stdio.h>
#include <stdlib.h>

#include "hash-private.h"
#include "memory-private.h"
#include "otlp-private.h"
#include "validate-private.h"
#include "wire-private.h"

/* A growing byte buffer like ob, with the allocator its bytes come from: the encoder's
 * blocks for its own tables (NULL: the C library's, as for the caller's output). */
typedef struct ob {
    uint8_t *data;
    size_t len, cap;
    const pprof_allocator *a;
} ob;

static bool
ob_grow(ob *b, size_t n)
{
    pprof_buffer t = {b->data, b->len, b->cap};
    if (!pprof__buffer_reserve_in(b->a, &t, n))
        return false;
    b->data = t.data;
    b->cap = t.cap;
    return true;
}

/* Room for n more bytes in b: the common case inline, the growth out of line. */
static inline bool
room(ob *b, size_t n)
{
    return b->cap - b->len >= n || ob_grow(b, n);
}

static bool
ob_append(ob *b, const void *data, size_t n)
{
    if (!room(b, n))
        return false;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return true;
}

static void
ob_free(ob *b)
{
    if (b->a)
        pprof__free(b->a, b->data);
    else
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

typedef struct bent {
    size_t off, len;
} bent;

/* A table of distinct byte strings in first-seen order. */
typedef struct btab {
    ob bytes;        /* bytes.a: the encoder's blocks */
    pprof__vec ents; /* bent */
    pprof__htab h;
} btab;

typedef struct bkey {
    const void *data;
    size_t len;
} bkey;

static bool
bt_eq(const void *ctx, uint32_t v, const void *key)
{
    const btab *t = ctx;
    const bkey *k = key;
    const bent *e = &PPROF__AT(t->ents, bent, v);
    return e->len == k->len &&
           (k->len == 0 || memcmp(t->bytes.data + e->off, k->data, k->len) == 0);
}

/* The index of data in t, added if new; -1 when out of memory or past 2^31 entries. */
static int32_t
bt_add(btab *t, const void *data, size_t len)
{
    bent *e = pprof__vec_push(t->bytes.a, &t->ents, sizeof(bent));
    if (!e || !ob_append(&t->bytes, data, len))
        return -1;
    e->off = t->bytes.len - len;
    e->len = len;
    return (int32_t)(t->ents.len - 1);
}

static int32_t
bt_intern(btab *t, const void *data, size_t len)
{
    if (t->ents.len >= INT32_MAX)
        return -1;
    bkey k = {data, len};
    bool added;
    uint32_t v =
        pprof__htab_intern(&t->h, t->bytes.a, pprof__mix64(pprof__hash_bytes(0, data, len)), bt_eq,
                           t, &k, (uint32_t)t->ents.len, &added);
    if (v == PPROF_NONE)
        return -1;
    if (added && bt_add(t, data, len) < 0)
        return -1;
    return (int32_t)v;
}

/* Room for n more entries of about bytes bytes in all, so that the tables grow once. */
static bool
bt_reserve(btab *t, size_t n, size_t bytes)
{
    return pprof__vec_grow(t->bytes.a, &t->ents, sizeof(bent), t->ents.len + n) &&
           pprof__htab_reserve(&t->h, t->bytes.a, n) && room(&t->bytes, bytes);
}

static void
bt_free(btab *t)
{
    ob_free(&t->bytes);
    pprof__free(t->bytes.a, t->ents.data);
    pprof__htab_free(&t->h, t->bytes.a);
}

#define CHECK_ST(expr)                                                                             \
    do {                                                                                           \
        pprof_status st_ = (expr);                                                                 \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)
#define CHECK_GO(expr)                                                                             \
    do {                                                                                           \
        if ((st = (expr)))                                                                         \
            goto out;                                                                              \
    } while (0)

enum { T_MAP, T_LOC, T_FN, T_LINK, T_STR, T_ATTR, T_STACK, T_N };

typedef struct enc {
    btab t[T_N];
    /* The entry that stands for an entity whose message is all defaults, which must not be read
     * as the zero value at index 0 (a location with no address, mapping or line): a second
     * entry of empty bytes, added once per table. */
    int32_t empty[T_N];
    pprof_error *err;
    /* The tables and the Profiles grow in blocks of huge pages (memory-private.h): in small
     * pages their first touches cost about as much as the encoding. NULL ta: no blocks. */
    struct pprof__blocks *blocks;
    pprof_allocator a;
    const pprof_allocator *ta;
} enc;

/* ---- message bytes */

static inline bool
put_varint(ob *b, uint64_t v)
{
    if (!room(b, 10))
        return false;
    b->len = (size_t)(pprof__put_varint(b->data + b->len, v) - b->data);
    return true;
}

static inline bool
put_tag(ob *b, uint32_t field, uint32_t wt)
{
    return put_varint(b, ((uint64_t)field << 3) | wt);
}

/* A scalar field, left out when it is 0 as proto3 does. */
static inline bool
put_u(ob *b, uint32_t field, uint64_t v)
{
    return !v || (put_tag(b, field, PPROF_WT_VARINT) && put_varint(b, v));
}

static inline bool
put_i32(ob *b, uint32_t field, int32_t v)
{
    return put_u(b, field, (uint64_t)(int64_t)v);
}

static bool
put_fixed64_raw(ob *b, uint64_t v)
{
    if (!room(b, 8))
        return false;
    for (int k = 0; k < 8; k++)
        b->data[b->len++] = (uint8_t)(v >> (8 * k));
    return true;
}

static inline bool
put_bytes(ob *b, uint32_t field, const void *data, size_t len)
{
    if (len > SIZE_MAX - 20 || !room(b, 20 + len))
        return false;
    uint8_t *q = pprof__put_varint(b->data + b->len, ((uint64_t)field << 3) | PPROF_WT_LEN);
    q = pprof__put_varint(q, len);
    if (len)
        memcpy(q, data, len);
    b->len = (size_t)(q - b->data) + len;
    return true;
}

/* A repeated int32 field: packed, or unpacked when it has one element (a byte shorter; parsers
 * must take both forms). */
static bool
put_rep_i32(ob *b, uint32_t field, const int32_t *v, size_t n)
{
    if (!n)
        return true;
    if (n == 1)
        return put_tag(b, field, PPROF_WT_VARINT) && put_varint(b, (uint64_t)(int64_t)v[0]);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += pprof__varint_size((uint64_t)(int64_t)v[i]);
    if (len > SIZE_MAX - 20 || !room(b, 20 + len))
        return false;
    uint8_t *q = pprof__put_varint(b->data + b->len, ((uint64_t)field << 3) | PPROF_WT_LEN);
    q = pprof__put_varint(q, len);
    for (size_t i = 0; i < n; i++)
        q = pprof__put_varint(q, (uint64_t)(int64_t)v[i]);
    b->len = (size_t)(q - b->data);
    return true;
}

/* ---- one pprof profile */

typedef struct pconv {
    enc *e;
    const pprof_profile *p;
    int32_t *smap;                       /* pprof string index -> OTLP index, -1 not yet */
    int32_t *fmap, *mmap, *lmap;         /* by table index */
    ob m, m2;                            /* scratch */
    pprof__vec ai;                       /* int32_t: attribute indices being gathered */
    pprof__vec chain;                    /* 9 bytes a label: sample_attrs' next, tail and first */
    int64_t s_ts, s_trace, s_span, s_ns; /* pprof string indices of the special keys, -1: none */
    int64_t index; /* the profile's place among several written together; -1: written alone */
} pconv;

static pprof_status
nomem(pconv *c)
{
    return pprof__error(c->e->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static pprof_status bad(pconv *c, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static pprof_status
bad(pconv *c, const char *what, const char *fmt, ...)
{
    char path[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return pprof__error(c->e->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path, "%s", what);
}

/* The OTLP index of pprof string i; -1 out of memory, -2 out of range. */
static int32_t
str(pconv *c, int64_t i)
{
    if (i < 0 || (uint64_t)i >= c->p->strings.len)
        return i == 0 ? 0 : -2;
    if (c->smap[i] >= 0)
        return c->smap[i];
    pprof_string s = PPROF__AT(c->p->strings, pprof_string, i);
    int32_t r = bt_intern(&c->e->t[T_STR], s.data, s.len);
    if (r >= 0)
        c->smap[i] = r;
    return r;
}

static int32_t
cstr(pconv *c, const char *s)
{
    return bt_intern(&c->e->t[T_STR], s, strlen(s));
}

/* Interns the scratch message m in table t; an empty one as the table's non-zero empty entry. */
static int32_t
intern_msg(pconv *c, int t, bool keep_empty)
{
    if (c->m.len == 0 && keep_empty) {
        if (c->e->empty[t] < 0)
            c->e->empty[t] = bt_add(&c->e->t[t], "", 0);
        return c->e->empty[t];
    }
    return bt_intern(&c->e->t[t], c->m.data, c->m.len);
}

/* AnyValue bytes of a scalar into b. */
static bool
any_str(ob *b, pprof_string s)
{
    return put_bytes(b, 1, s.data, s.len);
}

static bool
any_int(ob *b, int64_t v)
{
    /* int_value 0 is written all the same: an AnyValue with no field set is "unset" */
    return put_tag(b, 3, PPROF_WT_VARINT) && put_varint(b, (uint64_t)v);
}

static bool
any_bool(ob *b, bool v)
{
    return put_tag(b, 2, PPROF_WT_VARINT) && put_varint(b, v);
}

/* An attribute from key, unit and the AnyValue bytes in m2; its index, or -1. */
static int32_t
attr(pconv *c, int32_t key, int32_t unit)
{
    c->m.len = 0;
    if (!put_i32(&c->m, 1, key) || !put_bytes(&c->m, 2, c->m2.data, c->m2.len) ||
        !put_i32(&c->m, 3, unit))
        return -1;
    return intern_msg(c, T_ATTR, false);
}

static int32_t
attr_str(pconv *c, const char *key, pprof_string v)
{
    int32_t k = cstr(c, key);
    c->m2.len = 0;
    if (k < 0 || !any_str(&c->m2, v))
        return -1;
    return attr(c, k, 0);
}

static int32_t
attr_bool(pconv *c, const char *key)
{
    int32_t k = cstr(c, key);
    c->m2.len = 0;
    if (k < 0 || !any_bool(&c->m2, true))
        return -1;
    return attr(c, k, 0);
}

static bool
push_ai(pconv *c, int32_t v)
{
    int32_t *slot = v < 0 ? NULL : pprof__vec_push(NULL, &c->ai, sizeof(int32_t));
    if (slot)
        *slot = v;
    return slot != NULL;
}

static pprof_status
function(pconv *c, size_t i)
{
    const pprof_function *f = &PPROF__AT(c->p->functions, pprof_function, i);
    int32_t n = str(c, f->name), s = str(c, f->system_name), fn = str(c, f->filename);
    if (n == -2 || s == -2 || fn == -2)
        return bad(c, "string index out of range", "function[%zu]", i);
    if (n < 0 || s < 0 || fn < 0)
        return nomem(c);
    /* the protocol requires a name, system name or filename: a function with none is written
     * as no function (index 0), its start_line lost (docs/otlp.md) */
    if (n == 0 && s == 0 && fn == 0) {
        c->fmap[i] = 0;
        return PPROF_OK;
    }
    c->m.len = 0;
    if (!put_i32(&c->m, 1, n) || !put_i32(&c->m, 2, s) || !put_i32(&c->m, 3, fn) ||
        !put_u(&c->m, 4, (uint64_t)f->start_line))
        return nomem(c);
    if ((c->fmap[i] = intern_msg(c, T_FN, true)) < 0)
        return nomem(c);
    return PPROF_OK;
}

static pprof_status
mapping(pconv *c, size_t i)
{
    const pprof_mapping *m = &PPROF__AT(c->p->mappings, pprof_mapping, i);
    int32_t fn = str(c, m->filename), bid = str(c, m->build_id);
    if (fn == -2 || bid == -2)
        return bad(c, "string index out of range", "mapping[%zu]", i);
    if (fn < 0 || bid < 0)
        return nomem(c);
    c->ai.len = 0;
    pprof_string b = {"", 0};
    if (m->build_id && pprof__str(c->p, m->build_id, &b) && b.len &&
        !push_ai(c, attr_str(c, PPROF__OTLP_BUILD_ID, b)))
        return nomem(c);
    if ((m->has_functions && !push_ai(c, attr_bool(c, PPROF__OTLP_HAS_FUNCTIONS))) ||
        (m->has_filenames && !push_ai(c, attr_bool(c, PPROF__OTLP_HAS_FILENAMES))) ||
        (m->has_line_numbers && !push_ai(c, attr_bool(c, PPROF__OTLP_HAS_LINE_NUMBERS))) ||
        (m->has_inline_frames && !push_ai(c, attr_bool(c, PPROF__OTLP_HAS_INLINE_FRAMES))))
        return nomem(c);
    c->m.len = 0;
    if (!put_u(&c->m, 1, m->memory_start) || !put_u(&c->m, 2, m->memory_limit) ||
        !put_u(&c->m, 3, m->file_offset) || !put_i32(&c->m, 4, fn) ||
        !put_rep_i32(&c->m, 5, c->ai.data, c->ai.len))
        return nomem(c);
    if ((c->mmap[i] = intern_msg(c, T_MAP, true)) < 0)
        return nomem(c);
    return PPROF_OK;
}

static pprof_status
location(pconv *c, size_t i)
{
    const pprof_profile *p = c->p;
    const pprof__location *l = &PPROF__AT(p->locations, pprof__location, i);
    int32_t mi = 0;
    /* an id no mapping has is no mapping, as Go reads it (the checker reports it) */
    uint32_t mk = l->mapping_id ? pprof__idmap_get(&p->map_idx, l->mapping_id) : PPROF_NONE;
    if (mk != PPROF_NONE)
        mi = c->mmap[mk];
    /* the attributes first (they use m and m2), then the lines in m2, then the location in m */
    c->ai.len = 0;
    if (l->is_folded && !push_ai(c, attr_bool(c, PPROF__OTLP_IS_FOLDED)))
        return nomem(c);
    c->m2.len = 0;
    for (uint32_t j = 0; j < l->n_line; j++) {
        const pprof_line *pl = &PPROF__AT(p->lines, pprof_line, l->line_off + j);
        int32_t fi = 0;
        if (pl->function_id) {
            uint32_t fk = pprof__idmap_get(&p->fn_idx, pl->function_id);
            if (fk == PPROF_NONE)
                return bad(c, "no function has this id", "location[%zu].line[%u].function_id", i,
                           j);
            fi = c->fmap[fk];
        }
        /* a Line is at most three tags and three varints: built on the stack */
        uint8_t line[3 + 10 + 10 + 10], *q = line;
        if (fi)
            q = pprof__put_varint(pprof__put_varint(q, 1 << 3), (uint64_t)(int64_t)fi);
        if (pl->line)
            q = pprof__put_varint(pprof__put_varint(q, 2 << 3), (uint64_t)pl->line);
        if (pl->column)
            q = pprof__put_varint(pprof__put_varint(q, 3 << 3), (uint64_t)pl->column);
        if (!put_bytes(&c->m2, 3, line, (size_t)(q - line)))
            return nomem(c);
    }
    c->m.len = 0;
    if (!put_i32(&c->m, 1, mi) || !put_u(&c->m, 2, l->address) ||
        !ob_append(&c->m, c->m2.data, c->m2.len) || !put_rep_i32(&c->m, 4, c->ai.data, c->ai.len))
        return nomem(c);
    if ((c->lmap[i] = intern_msg(c, T_LOC, true)) < 0)
        return nomem(c);
    return PPROF_OK;
}

static bool
is_hex(pprof_string s, size_t len)
{
    if (s.len != len)
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s.data[i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return false;
    }
    return true;
}

static void
unhex(pprof_string s, uint8_t *out)
{
    for (size_t i = 0; i < s.len / 2; i++) {
        int hi = s.data[2 * i], lo = s.data[2 * i + 1];
        hi = hi <= '9' ? hi - '0' : hi - 'a' + 10;
        lo = lo <= '9' ? lo - '0' : lo - 'a' + 10;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
}

/* The special labels of a sample: one "timestamp_unix_nano" in nanoseconds becomes its
 * timestamp, and one "trace_id" (32 hex digits) with one "span_id" (16) its link: exactly
 * what OTLP -> pprof makes of them, so that they go back where they came from. */
typedef struct special {
    int ts, trace, span; /* label index, -1 none, -2 more than one */
} special;

static special
find_special(pconv *c, const pprof_sample *s)
{
    special sp = {-1, -1, -1};
    for (size_t j = 0; j < s->n_label; j++) {
        const pprof_label *l = &s->label[j];
        int *slot = NULL;
        if (l->key == c->s_ts && c->s_ts > 0)
            /* a negative one is no OTLP timestamp (they are unsigned, and the reader refuses
             * those past int64): it stays an attribute */
            slot = l->num_unit == c->s_ns && c->s_ns > 0 && !l->str && l->num >= 0 ? &sp.ts : NULL;
        else if (l->key == c->s_trace && c->s_trace > 0)
            slot = &sp.trace;
        else if (l->key == c->s_span && c->s_span > 0)
            slot = &sp.span;
        if (slot)
            *slot = *slot == -1 ? (int)j : -2;
    }
    pprof_string t = {"", 0}, s2 = {"", 0};
    if (sp.trace >= 0 && sp.span >= 0 &&
        !(pprof__str(c->p, s->label[sp.trace].str, &t) && is_hex(t, 32) &&
          pprof__str(c->p, s->label[sp.span].str, &s2) && is_hex(s2, 16)))
        sp.trace = sp.span = -1;
    if (sp.trace < 0 || sp.span < 0)
        sp.trace = sp.span = -1;
    return sp;
}

/* next[j]: the next label after j with j's key (UINT32_MAX: none), for the labels that are
 * not special; false in first[j] for all but each key's first. Linear: a map of keys past a
 * few labels, so that a sample with many labels costs no more than their number. */
static bool
key_chains(const pprof_sample *s, special sp, uint32_t *next, uint8_t *first, uint32_t *tail)
{
    size_t n = s->n_label;
    pprof__u64map m;
    bool big = n > 16;
    if (big && !pprof__u64map_init(&m, NULL, n))
        return false;
    bool ok = true;
    for (size_t j = 0; j < n; j++) {
        next[j] = UINT32_MAX;
        first[j] = 0;
        if ((int)j == sp.ts || (int)j == sp.trace || (int)j == sp.span)
            continue;
        uint32_t head = UINT32_MAX;
        if (big) {
            uint32_t old;
            bool added;
            if (!(ok = pprof__u64map_put(&m, NULL, (uint64_t)s->label[j].key, (uint32_t)j, &old,
                                         &added)))
                break;
            head = added ? UINT32_MAX : old;
        } else {
            for (size_t q = 0; q < j && head == UINT32_MAX; q++)
                if (first[q] && s->label[q].key == s->label[j].key)
                    head = (uint32_t)q;
        }
        if (head == UINT32_MAX) {
            first[j] = 1;
            tail[j] = (uint32_t)j;
        } else {
            next[tail[head]] = (uint32_t)j;
            tail[head] = (uint32_t)j;
        }
    }
    if (big)
        pprof__u64map_free(&m, NULL);
    return ok;
}

/* The sample's attribute indices into c->ai: labels of one key become one attribute, an array
 * when there are several, in the order of the keys' first labels. */
static pprof_status
sample_attrs(pconv *c, const pprof_sample *s, size_t si, special sp)
{
    c->ai.len = 0;
    size_t n = s->n_label;
    if (!n)
        return PPROF_OK;
    if (!pprof__vec_grow(NULL, &c->chain, 9, n))
        return nomem(c);
    uint32_t *next = c->chain.data, *tail = next + n;
    uint8_t *first = (uint8_t *)(tail + n);
    if (!key_chains(s, sp, next, first, tail))
        return nomem(c);
    for (size_t j = 0; j < n; j++) {
        if (!first[j])
            continue;
        const pprof_label *l = &s->label[j];
        bool more = next[j] != UINT32_MAX;
        int32_t key = str(c, l->key), unit = str(c, l->num_unit);
        /* an empty key names nothing in OTLP (O8): it gets a name the reader turns back to "" */
        if (key == 0)
            key = cstr(c, PPROF__OTLP_EMPTY_KEY);
        if (key == -2 || unit == -2)
            return bad(c, "string index out of range", "sample[%zu].label[%zu]", si, j);
        if (key < 0 || unit < 0)
            return nomem(c);
        c->m2.len = 0;
        ob arr = {0}, el = {0};
        bool ok = true;
        for (uint32_t q = (uint32_t)j; q != UINT32_MAX && ok; q = next[q]) {
            const pprof_label *x = &s->label[q];
            ob *dst = more ? &el : &c->m2;
            dst->len = 0;
            pprof_string v = {"", 0};
            if (x->str)
                pprof__str(c->p, x->str, &v);
            ok = x->str ? any_str(dst, v) : any_int(dst, x->num);
            if (ok && more)
                ok = put_bytes(&arr, 1, el.data, el.len);
        }
        if (ok && more)
            ok = put_bytes(&c->m2, 5, arr.data, arr.len);
        ob_free(&arr);
        ob_free(&el);
        if (!ok || !push_ai(c, attr(c, key, l->str ? 0 : unit)))
            return nomem(c);
    }
    return PPROF_OK;
}

static pprof_status
profile_attrs(pconv *c)
{
    const pprof_profile *p = c->p;
    const pprof_header *h = &p->hdr;
    c->ai.len = 0;
    struct {
        int64_t s;
        const char *key;
    } f[] = {{h->default_sample_type, PPROF__OTLP_DEFAULT_SAMPLE_TYPE},
             {h->drop_frames, PPROF__OTLP_DROP_FRAMES},
             {h->keep_frames, PPROF__OTLP_KEEP_FRAMES},
             {h->doc_url, PPROF__OTLP_DOC_URL}};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        pprof_string v = {"", 0};
        if (f[i].s && pprof__str(p, f[i].s, &v) && v.len && !push_ai(c, attr_str(c, f[i].key, v)))
            return nomem(c);
    }
    if (p->comments.len) {
        ob arr = {0}, el = {0};
        bool ok = true;
        for (size_t i = 0; i < p->comments.len && ok; i++) {
            pprof_string v = {"", 0};
            pprof__str(p, PPROF__AT(p->comments, int64_t, i), &v);
            el.len = 0;
            ok = any_str(&el, v) && put_bytes(&arr, 1, el.data, el.len);
        }
        int32_t k = cstr(c, PPROF__OTLP_COMMENTS);
        c->m2.len = 0;
        ok = ok && k >= 0 && put_bytes(&c->m2, 5, arr.data, arr.len);
        ob_free(&arr);
        ob_free(&el);
        if (!ok || !push_ai(c, attr(c, k, 0)))
            return nomem(c);
    }
    /* profiles written together may share a header: this keeps the reader from joining them */
    if (c->index >= 0) {
        int32_t k = cstr(c, PPROF__OTLP_PROFILE_INDEX);
        c->m2.len = 0;
        if (k < 0 || !any_int(&c->m2, c->index) || !push_ai(c, attr(c, k, 0)))
            return nomem(c);
    }
    return PPROF_OK;
}

static int64_t
find_str(const pprof_profile *p, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 1; i < p->strings.len; i++) {
        pprof_string v = PPROF__AT(p->strings, pprof_string, i);
        if (v.len == n && memcmp(v.data, s, n) == 0)
            return (int64_t)i;
    }
    return -1;
}

/* Appends the Profile messages of p (one per sample type, without tag) to profs, a vector of
 * ob that takes them over: the output is assembled once at the end, each copied
 * once. */
static pprof_status
convert(pconv *c, pprof__vec *profs)
{
    const pprof_profile *p = c->p;
    pprof_status st = PPROF_OK;
    size_t nt = p->sample_types.len;
    c->s_ts = find_str(p, PPROF__OTLP_TIMESTAMP);
    c->s_trace = find_str(p, PPROF__OTLP_TRACE_ID);
    c->s_span = find_str(p, PPROF__OTLP_SPAN_ID);
    c->s_ns = find_str(p, "nanoseconds");
    btab *tab = c->e->t;
    /* the tables reserved once when in blocks; in the C library's heap, reserving for small
     * work measured slower (page faults in the work after it, docs/otlp.md) */
    if (pprof__profile_index(p, NULL) != PPROF_OK)
        return nomem(c);
    size_t str_bytes = 0;
    for (size_t i = 0; c->e->ta && i < p->strings.len; i++)
        str_bytes += PPROF__AT(p->strings, pprof_string, i).len + 2;
    if (c->e->ta &&
        (!bt_reserve(&tab[T_STR], p->strings.len, str_bytes) ||
         !bt_reserve(&tab[T_FN], p->functions.len, p->functions.len * 12) ||
         !bt_reserve(&tab[T_LOC], p->locations.len, p->locations.len * 8 + p->lines.len * 10) ||
         !bt_reserve(&tab[T_STACK], p->samples.len, p->samples.len * 3 + p->stack.len * 3)))
        return nomem(c);
    for (size_t i = 0; i < p->functions.len; i++)
        CHECK_ST(function(c, i));
    for (size_t i = 0; i < p->mappings.len; i++)
        CHECK_ST(mapping(c, i));
    for (size_t i = 0; i < p->locations.len; i++)
        CHECK_ST(location(c, i));
    ob *prof = calloc(nt ? nt : 1, sizeof(ob));
    for (size_t t = 0; prof && t < nt; t++)
        prof[t].a = c->e->ta;
    pprof__vec stk = {0};
    ob sb = {0};
    if (!prof)
        return nomem(c);
    /* the header of each Profile except its samples, which follow */
    CHECK_GO(profile_attrs(c));
    int32_t pt = str(c, p->hdr.period_type.type), pu = str(c, p->hdr.period_type.unit);
    if (pt == -2 || pu == -2) {
        st = bad(c, "string index out of range", "period_type");
        goto out;
    }
    for (size_t t = 0; t < nt; t++) {
        /* most samples take 12 to 20 bytes: room for them up front, not by doubling */
        if (!room(&prof[t], p->samples.len * 20 + 64)) {
            st = nomem(c);
            goto out;
        }
        pprof_value_type vt = PPROF__AT(p->sample_types, pprof_value_type, t);
        int32_t ty = str(c, vt.type), un = str(c, vt.unit);
        if (ty == -2 || un == -2) {
            st = bad(c, "string index out of range", "sample_type[%zu]", t);
            goto out;
        }
        ob *b = &prof[t];
        c->m2.len = 0;
        bool ok = ty >= 0 && un >= 0 && pt >= 0 && pu >= 0 && put_i32(&c->m2, 1, ty) &&
                  put_i32(&c->m2, 2, un) && put_bytes(b, 1, c->m2.data, c->m2.len);
        if (ok && p->hdr.time_nanos)
            ok = put_tag(b, 3, PPROF_WT_I64) && put_fixed64_raw(b, (uint64_t)p->hdr.time_nanos);
        ok = ok && put_u(b, 4, (uint64_t)p->hdr.duration_nanos);
        if (ok && (pt || pu)) {
            c->m2.len = 0;
            ok = put_i32(&c->m2, 1, pt) && put_i32(&c->m2, 2, pu) &&
                 put_bytes(b, 5, c->m2.data, c->m2.len);
        }
        ok =
            ok && put_u(b, 6, (uint64_t)p->hdr.period) && put_rep_i32(b, 11, c->ai.data, c->ai.len);
        if (!ok) {
            st = nomem(c);
            goto out;
        }
    }
    for (size_t si = 0; si < p->samples.len; si++) {
        pprof_sample s = pprof_profile_sample(p, si);
        if (s.n_value != nt) {
            st = bad(c, "a value count differs from the number of sample types", "sample[%zu]", si);
            break;
        }
        stk.len = 0;
        for (size_t j = 0; j < s.n_location_id && !st; j++) {
            int32_t *slot = pprof__vec_push(NULL, &stk, sizeof(int32_t));
            uint32_t k = pprof__idmap_get(&p->loc_idx, s.location_id[j]);
            if (!slot)
                st = nomem(c);
            else if (k == PPROF_NONE)
                st = bad(c, "no location has this id", "sample[%zu].location_id[%zu]", si, j);
            else
                *slot = c->lmap[k];
        }
        if (st)
            break;
        c->m.len = 0;
        int32_t stack;
        if (!put_rep_i32(&c->m, 1, stk.data, stk.len) ||
            (stack = intern_msg(c, T_STACK, false)) < 0) {
            st = nomem(c);
            break;
        }
        special sp = find_special(c, &s);
        int32_t link = 0;
        if (sp.trace >= 0) {
            uint8_t tid[16], sid[8];
            pprof_string t = {"", 0}, s2 = {"", 0};
            pprof__str(p, s.label[sp.trace].str, &t);
            pprof__str(p, s.label[sp.span].str, &s2);
            unhex(t, tid);
            unhex(s2, sid);
            c->m.len = 0;
            if (!put_bytes(&c->m, 1, tid, 16) || !put_bytes(&c->m, 2, sid, 8) ||
                (link = intern_msg(c, T_LINK, false)) < 0) {
                st = nomem(c);
                break;
            }
        }
        if ((st = sample_attrs(c, &s, si, sp)))
            break;
        /* sparse: a sample is in the Profiles where its value is not 0, and one whose values
         * are all 0 in the first, so that it is not lost; the reader joins them by sample key */
        bool all_zero = true;
        for (size_t t = 0; t < nt && all_zero; t++)
            all_zero = s.value[t] == 0;
        for (size_t t = 0; t < nt && !st; t++) {
            if (s.value[t] == 0 && !(all_zero && t == 0))
                continue;
            /* one value and at most one timestamp: unpacked, a byte shorter than packed */
            sb.len = 0;
            bool ok = put_i32(&sb, 1, stack) && put_rep_i32(&sb, 2, c->ai.data, c->ai.len) &&
                      put_i32(&sb, 3, link) && put_tag(&sb, 4, PPROF_WT_VARINT) &&
                      put_varint(&sb, (uint64_t)s.value[t]);
            if (ok && sp.ts >= 0)
                ok = put_tag(&sb, 5, PPROF_WT_I64) &&
                     put_fixed64_raw(&sb, (uint64_t)s.label[sp.ts].num);
            if (!ok || !put_bytes(&prof[t], 2, sb.data, sb.len))
                st = nomem(c);
        }
        if (st)
            break;
    }
    for (size_t t = 0; t < nt && !st; t++) {
        ob *slot = pprof__vec_push(NULL, profs, sizeof(ob));
        if (!slot) {
            st = nomem(c);
            break;
        }
        *slot = prof[t];
        memset(&prof[t], 0, sizeof(prof[t]));
    }
out:
    ob_free(&sb);
    for (size_t t = 0; t < nt; t++)
        ob_free(&prof[t]);
    free(prof);
    pprof__free(NULL, stk.data);
    return st;
}

/* Whether p has two sample types alike (or too many to compare cheaply): its Profiles then carry
 * pprof.profile_index too, which tells the reader they are one pprof profile's columns, where two
 * Profiles of one type are otherwise two measurements. */
static bool
repeats_type(const pprof_profile *p)
{
    size_t nt = p->sample_types.len;
    if (nt > 64)
        return true;
    for (size_t i = 0; i < nt; i++)
        for (size_t j = 0; j < i; j++) {
            pprof_value_type a = PPROF__AT(p->sample_types, pprof_value_type, i);
            pprof_value_type b = PPROF__AT(p->sample_types, pprof_value_type, j);
            if (a.type == b.type && a.unit == b.unit)
                return true;
        }
    return false;
}

static pprof_status
convert_one(enc *e, const pprof_profile *p, int64_t index, pprof__vec *profs)
{
    pconv c;
    memset(&c, 0, sizeof(c));
    c.e = e;
    c.p = p;
    c.index = index;
    size_t ns = p->strings.len, nf = p->functions.len, nm = p->mappings.len, nl = p->locations.len;
    c.smap = malloc((ns ? ns : 1) * sizeof(int32_t));
    c.fmap = malloc((nf ? nf : 1) * sizeof(int32_t));
    c.mmap = malloc((nm ? nm : 1) * sizeof(int32_t));
    c.lmap = malloc((nl ? nl : 1) * sizeof(int32_t));
    pprof_status st;
    if (!c.smap || !c.fmap || !c.mmap || !c.lmap) {
        st = nomem(&c);
    } else {
        memset(c.smap, 0xff, (ns ? ns : 1) * sizeof(int32_t));
        st = convert(&c, profs);
    }
    free(c.smap);
    free(c.fmap);
    free(c.mmap);
    free(c.lmap);
    ob_free(&c.m);
    ob_free(&c.m2);
    pprof__free(NULL, c.ai.data);
    pprof__free(NULL, c.chain.data);
    return st;
}

/* A common.v1.KeyValue with a string value, tag included. */
static bool
put_kv(ob *b, const char *key, size_t klen, const char *val)
{
    ob kv = {0}, v = {0};
    bool ok = put_bytes(&v, 1, val, strlen(val)) && put_bytes(&kv, 1, key, klen) &&
              put_bytes(&kv, 2, v.data, v.len) && put_bytes(b, 1, kv.data, kv.len);
    ob_free(&kv);
    ob_free(&v);
    return ok;
}

pprof_status
pprof_otlp_write_memory(const pprof_profile *const *profiles, size_t n,
                        const pprof_otlp_write_options *opts, pprof_buffer *out, pprof_error *err)
{
    if (!out || (n && !profiles))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    pprof_otlp_write_options o;
    pprof_otlp_write_options_init(&o);
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    pprof_write_options wo;
    pprof_write_options_init(&wo);
    wo.format = o.format;
    wo.level = o.level;
    pprof_status st = pprof_write_options_check(&wo, err);
    if (st)
        return st;
    for (size_t i = 0; i < o.n_resource; i++)
        if (!o.resource[i] || !strchr(o.resource[i], '=') || o.resource[i][0] == '=')
            return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                "resource attribute %zu is not KEY=VALUE", i);
    enc e;
    memset(&e, 0, sizeof(e));
    e.err = err;
    size_t work = 0; /* about the bytes of the Profiles and the stack table */
    for (size_t i = 0; i < n; i++)
        if (profiles[i])
            work += profiles[i]->samples.len * 16 + profiles[i]->stack.len * 2;
    if ((e.blocks = pprof__blocks_for_work(NULL, work))) {
        e.a = pprof__blocks_allocator(e.blocks);
        e.ta = &e.a;
    }
    for (int t = 0; t < T_N; t++) {
        e.empty[t] = -1;
        e.t[t].bytes.a = e.ta;
    }
    ob scope = {0}, res = {0}, raw = {.a = e.ta}, tmp = {0};
    /* the caller's buffer, written through an ob of the C library's allocator */
    ob outb = {out->data, out->len, out->cap, NULL};
    pprof__vec profs = {0}; /* ob: the Profile messages */
    /* index 0 of every table: the zero value (Link: 16 and 8 zero bytes, as the protocol
     * recommends for codecs that expect those lengths) */
    static const uint8_t zero[16] = {0};
    for (int t = 0; t < T_N; t++) {
        if (t == T_LINK) {
            if (!put_bytes(&tmp, 1, zero, 16) || !put_bytes(&tmp, 2, zero, 8) ||
                bt_add(&e.t[t], tmp.data, tmp.len) != 0) {
                st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
                goto done;
            }
        } else if (bt_intern(&e.t[t], "", 0) != 0) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            goto done;
        }
    }
    /* scope: name and version, then the profiles */
    tmp.len = 0;
    if (!put_bytes(&tmp, 1, "libpprof", 8) ||
        !put_bytes(&tmp, 2, PPROF_VERSION_STRING, strlen(PPROF_VERSION_STRING)) ||
        !put_bytes(&scope, 1, tmp.data, tmp.len)) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && !st; i++) {
        if (!profiles[i]) {
            st = pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "profile %zu is NULL", i);
            break;
        }
        /* the library's one validity decision, as for every entry point that computes */
        if (!(st = pprof__validate(profiles[i], NULL, err)))
            st = convert_one(&e, profiles[i], n > 1 || repeats_type(profiles[i]) ? (int64_t)i : -1,
                             &profs);
    }
    if (st)
        goto done;
    bool ok = true;
    if (o.service_name)
        ok = put_kv(&res, "service.name", 12, o.service_name);
    for (size_t i = 0; i < o.n_resource && ok; i++) {
        const char *eq = strchr(o.resource[i], '=');
        ok = put_kv(&res, o.resource[i], (size_t)(eq - o.resource[i]), eq + 1);
    }
    /* the sizes first, so that the output is written once: ProfilesData { 1: ResourceProfiles
     * { 1: resource, 2: ScopeProfiles { scope, 2: profiles... } }, 2: dictionary } */
    size_t scope_len = scope.len, dict_len = 0;
    for (size_t i = 0; i < profs.len; i++) {
        size_t n_i = PPROF__AT(profs, ob, i).len;
        scope_len += 1 + pprof__varint_size(n_i) + n_i;
    }
    size_t rp_len = (res.len ? 1 + pprof__varint_size(res.len) + res.len : 0) + 1 +
                    pprof__varint_size(scope_len) + scope_len;
    static const uint32_t field[T_N] = {1, 2, 3, 4, 5, 6, 7};
    for (int t = 0; t < T_N; t++)
        for (size_t k = 0; k < e.t[t].ents.len; k++) {
            size_t n_k = PPROF__AT(e.t[t].ents, bent, k).len;
            dict_len += 1 + pprof__varint_size(n_k) + n_k;
        }
    size_t total =
        1 + pprof__varint_size(rp_len) + rp_len + 1 + pprof__varint_size(dict_len) + dict_len;
    ob *dst = o.format == PPROF_FORMAT_RAW ? &outb : &raw;
    size_t out_len0 = out->len; /* a failure leaves out as it was */
    ok = ok && room(dst, total + 32) && put_tag(dst, 1, PPROF_WT_LEN) && put_varint(dst, rp_len) &&
         (!res.len || put_bytes(dst, 1, res.data, res.len)) && put_tag(dst, 2, PPROF_WT_LEN) &&
         put_varint(dst, scope_len) && ob_append(dst, scope.data, scope.len);
    for (size_t i = 0; i < profs.len && ok; i++) {
        const ob *b = &PPROF__AT(profs, ob, i);
        ok = put_bytes(dst, 2, b->data, b->len);
    }
    ok = ok && put_tag(dst, 2, PPROF_WT_LEN) && put_varint(dst, dict_len);
    for (int t = 0; t < T_N && ok; t++) {
        const btab *b = &e.t[t];
        for (size_t k = 0; k < b->ents.len && ok; k++) {
            bent be = PPROF__AT(b->ents, bent, k);
            ok = put_bytes(dst, field[t], be.len ? b->bytes.data + be.off : NULL, be.len);
        }
    }
    out->data = outb.data; /* grown or not, the buffer is the caller's */
    out->cap = outb.cap;
    out->len = outb.len;
    if (!ok) {
        out->len = out_len0;
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    if (o.format != PPROF_FORMAT_RAW)
        st = pprof__compress(raw.data, raw.len, o.format, o.level, 1, NULL, out, err);
done:
    for (int t = 0; t < T_N; t++)
        bt_free(&e.t[t]);
    for (size_t i = 0; i < profs.len; i++)
        ob_free(&PPROF__AT(profs, ob, i));
    pprof__free(NULL, profs.data);
    ob_free(&scope);
    ob_free(&res);
    ob_free(&raw);
    ob_free(&tmp);
    pprof__blocks_release(e.blocks);
    return st;
}

pprof_status
pprof_otlp_write_file(const pprof_profile *const *profiles, size_t n,
                      const pprof_otlp_write_options *opts, const char *path, pprof_error *err)
{
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    pprof_buffer b = {0};
    pprof_status st = pprof_otlp_write_memory(profiles, n, opts, &b, err);
    if (!st)
        st = pprof_bytes_write_file(b.data, b.len, NULL, path, err);
    pprof_buffer_free(&b);
    return st;
}

pprof_status
pprof_otlp_write_stream(const pprof_profile *const *profiles, size_t n,
                        const pprof_otlp_write_options *opts, FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_otlp_write_memory(profiles, n, opts, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}
