/* Structure-aware mutation. Byte flips rarely get past the wire parser into anything that
 * checks references, merges or prints, so most mutations here act on the decoded model and
 * re-encode it: with the library's writer when every string index is valid, otherwise (and
 * sometimes on purpose) with the raw emitter, which keeps dangling and negative indices. */
#include <string.h>

#include "fuzz.h"
#include "mutator.h"
#include "profile-private.h"

typedef struct mut {
    pprof_profile *p;
    fuzz_rng *r;
    bool oom;
} mut;

static const int64_t BOUNDS[] = {
    0,
    1,
    -1,
    2,
    INT64_MAX,
    INT64_MIN,
    INT64_MAX - 1,
    INT64_MIN + 1,
    INT32_MAX,
    INT32_MIN,
    (int64_t)UINT32_MAX,
    INT64_C(1) << 32,
    127,
    128,
    16383,
    16384,
    -128,
    1000000000,
    0x7fffffffffff,
};
#define N_BOUNDS (sizeof(BOUNDS) / sizeof(BOUNDS[0]))

static const char *const STRINGS[] = {
    "",
    "main",
    "runtime.main",
    "main.fib",
    "cpu",
    "nanoseconds",
    "samples",
    "count",
    "alloc_space",
    "bytes",
    "space",
    "[vdso]",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "pid",
    "thread",
    "bytes",
    "\xff\xfe invalid utf-8",
    "a\0b",
    "quote \" backslash \\ newline \n tab \t bell \a",
    "\xe2\x82\xac euro",
    "\xed\xa0\x80 surrogate",
    "\xf4\x90\x80\x80 past U+10FFFF",
    "\xc0\xaf overlong",
    "%s%n%x",
};
#define N_STRINGS (sizeof(STRINGS) / sizeof(STRINGS[0]))

static uint64_t
below(mut *m, uint64_t n)
{
    return fuzz_below(m->r, n);
}

static int64_t
number(mut *m, int64_t cur)
{
    switch (below(m, 6)) {
    case 0:
    case 1: return BOUNDS[below(m, N_BOUNDS)];
    case 2: return (int64_t)fuzz_rand(m->r);
    case 3: return (int64_t)((uint64_t)cur + 1);
    case 4: return (int64_t)((uint64_t)cur - 1);
    default: return (int64_t)below(m, 100);
    }
}

static int64_t
str_index(mut *m)
{
    int64_t n = (int64_t)m->p->strings.len;
    switch (below(m, 12)) {
    case 0: return -1;
    case 1: return n;
    case 2: return n + 1;
    case 3: return BOUNDS[below(m, N_BOUNDS)];
    case 4: return 0;
    default: return n ? (int64_t)below(m, (uint64_t)n) : 0;
    }
}

/* Every entity table starts with its uint64_t id. */
static uint64_t
id_at(const pprof__vec *v, size_t elem, size_t i)
{
    uint64_t id;
    memcpy(&id, (const uint8_t *)v->data + i * elem, sizeof(id));
    return id;
}

static uint64_t
ref_id(mut *m, const pprof__vec *table, size_t elem)
{
    switch (below(m, 10)) {
    case 0: return 0;
    case 1: return (uint64_t)table->len + 1;
    case 2: return UINT64_MAX;
    case 3: return (uint64_t)BOUNDS[below(m, N_BOUNDS)];
    default: return table->len ? id_at(table, elem, below(m, table->len)) : 1;
    }
}

/* Moves one sample's (or location's) range [*off, *off + n) to the end of v with room for one
 * more element, zeroed, so that it can grow without disturbing its neighbours. Returns the
 * new slot. */
static void *
grow_range(mut *m, pprof__vec *v, size_t elem, uint32_t *off, uint32_t n)
{
    if (v->len + n + 1 > UINT32_MAX || !pprof__vec_grow(&m->p->alloc, v, elem, v->len + n + 1)) {
        m->oom = true;
        return NULL;
    }
    uint8_t *base = v->data;
    if (n)
        memcpy(base + v->len * elem, base + (size_t)*off * elem, n * elem);
    *off = (uint32_t)v->len;
    v->len += n + 1;
    memset(base + (v->len - 1) * elem, 0, elem);
    return base + (v->len - 1) * elem;
}

/* Start of one entity's range in a shared array; NULL while the array has no storage, since
 * NULL + 0 is undefined. */
static void *
range(const pprof__vec *v, size_t elem, uint32_t off)
{
    return v->data ? (uint8_t *)v->data + (size_t)off * elem : NULL;
}

static void
erase_at(void *base, size_t elem, size_t *len, size_t i)
{
    uint8_t *b = base;
    memmove(b + i * elem, b + (i + 1) * elem, (*len - i - 1) * elem);
    (*len)--;
}

static void
erase_range(void *base, size_t elem, uint32_t *n, size_t i)
{
    size_t len = *n;
    erase_at(base, elem, &len, i);
    *n = (uint32_t)len;
}

/* Duplicate, erase or swap whole entities in any table. */
static void
op_table(mut *m)
{
    pprof_profile *p = m->p;
    struct {
        pprof__vec *v;
        size_t elem;
    } t[] = {
        {&p->sample_types, sizeof(pprof_value_type)}, {&p->samples, sizeof(pprof__sample)},
        {&p->mappings, sizeof(pprof_mapping)},        {&p->locations, sizeof(pprof__location)},
        {&p->functions, sizeof(pprof_function)},      {&p->strings, sizeof(pprof_string)},
    };
    size_t k = below(m, sizeof(t) / sizeof(t[0]));
    pprof__vec *v = t[k].v;
    size_t elem = t[k].elem;
    if (!v->len)
        return;
    size_t i = below(m, v->len);
    uint8_t *b = v->data;
    switch (below(m, 5)) {
    case 0:
    case 1: { /* duplicate, at a random place */
        if (!pprof__vec_grow(&p->alloc, v, elem, v->len + 1)) {
            m->oom = true;
            return;
        }
        b = v->data;
        size_t at = below(m, v->len + 1);
        memmove(b + (at + 1) * elem, b + at * elem, (v->len - at) * elem);
        v->len++;
        size_t src = i >= at ? i + 1 : i;
        memcpy(b + at * elem, b + src * elem, elem);
        break;
    }
    case 2: erase_at(b, elem, &v->len, i); break;
    case 3: { /* swap */
        size_t j = below(m, v->len);
        uint8_t tmp[64];
        memcpy(tmp, b + i * elem, elem);
        memcpy(b + i * elem, b + j * elem, elem);
        memcpy(b + j * elem, tmp, elem);
        break;
    }
    default: /* truncate */ v->len = below(m, v->len); break;
    }
}

static void
op_header(mut *m)
{
    pprof_header *h = &m->p->hdr;
    switch (below(m, 10)) {
    case 0: h->period_type.type = str_index(m); break;
    case 1: h->period_type.unit = str_index(m); break;
    case 2: h->period = number(m, h->period); break;
    case 3: h->time_nanos = number(m, h->time_nanos); break;
    case 4: h->duration_nanos = number(m, h->duration_nanos); break;
    case 5: h->drop_frames = str_index(m); break;
    case 6: h->keep_frames = str_index(m); break;
    case 7: h->default_sample_type = str_index(m); break;
    case 8: h->doc_url = str_index(m); break;
    default: {
        pprof__vec *c = &m->p->comments;
        if (c->len && below(m, 2)) {
            erase_at(c->data, sizeof(int64_t), &c->len, below(m, c->len));
        } else {
            int64_t *x = pprof__vec_push(&m->p->alloc, c, sizeof(int64_t));
            if (x)
                *x = str_index(m);
            else
                m->oom = true;
        }
    }
    }
}

static void
op_sample_type(mut *m)
{
    pprof__vec *v = &m->p->sample_types;
    if (!v->len || below(m, 4) == 0) {
        pprof_value_type *t = pprof__vec_push(&m->p->alloc, v, sizeof(*t));
        if (!t) {
            m->oom = true;
            return;
        }
        t->type = str_index(m);
        t->unit = str_index(m);
        return;
    }
    pprof_value_type *t = &PPROF__AT(*v, pprof_value_type, below(m, v->len));
    if (below(m, 2))
        t->type = str_index(m);
    else
        t->unit = str_index(m);
}

static void
op_sample(mut *m)
{
    pprof_profile *p = m->p;
    if (!p->samples.len) {
        pprof__sample *s = pprof__vec_push(&p->alloc, &p->samples, sizeof(*s));
        if (!s) {
            m->oom = true;
            return;
        }
        memset(s, 0, sizeof(*s));
        s->loc_off = (uint32_t)p->stack.len;
        s->val_off = (uint32_t)p->values.len;
        s->lab_off = (uint32_t)p->labels.len;
    }
    pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, below(m, p->samples.len));
    int64_t *vals = range(&p->values, sizeof(int64_t), s->val_off);
    uint64_t *stk = range(&p->stack, sizeof(uint64_t), s->loc_off);
    switch (below(m, 9)) {
    case 0:
    case 1:
        if (s->n_val) {
            size_t j = below(m, s->n_val);
            vals[j] = number(m, vals[j]);
            break;
        }
        /* fall through */
    case 2: {
        int64_t *x = grow_range(m, &p->values, sizeof(int64_t), &s->val_off, s->n_val);
        if (x) {
            *x = number(m, 0);
            s->n_val++;
        }
        break;
    }
    case 3:
        if (s->n_val)
            erase_range(vals, sizeof(int64_t), &s->n_val, below(m, s->n_val));
        break;
    case 4: {
        uint64_t *x = grow_range(m, &p->stack, sizeof(uint64_t), &s->loc_off, s->n_loc);
        if (x) {
            *x = ref_id(m, &p->locations, sizeof(pprof__location));
            s->n_loc++;
        }
        break;
    }
    case 5:
        if (s->n_loc)
            erase_range(stk, sizeof(uint64_t), &s->n_loc, below(m, s->n_loc));
        break;
    case 6:
        if (s->n_loc)
            stk[below(m, s->n_loc)] = ref_id(m, &p->locations, sizeof(pprof__location));
        break;
    case 7:
        for (uint32_t i = 0; i < s->n_loc / 2; i++) {
            uint64_t t = stk[i];
            stk[i] = stk[s->n_loc - 1 - i];
            stk[s->n_loc - 1 - i] = t;
        }
        break;
    default: s->n_loc = 0; break;
    }
}

static void
op_label(mut *m)
{
    pprof_profile *p = m->p;
    if (!p->samples.len)
        return;
    pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, below(m, p->samples.len));
    pprof_label *labs = range(&p->labels, sizeof(pprof_label), s->lab_off);
    if (s->n_lab && below(m, 3)) {
        pprof_label *l = &labs[below(m, s->n_lab)];
        switch (below(m, 5)) {
        case 0: l->key = str_index(m); break;
        case 1: l->str = str_index(m); break;
        case 2: l->num = number(m, l->num); break;
        case 3: l->num_unit = str_index(m); break;
        default: erase_range(labs, sizeof(pprof_label), &s->n_lab, (size_t)(l - labs)); break;
        }
        return;
    }
    int64_t dup_key = s->n_lab ? labs[below(m, s->n_lab)].key : 0;
    pprof_label *l = grow_range(m, &p->labels, sizeof(pprof_label), &s->lab_off, s->n_lab);
    if (!l)
        return;
    s->n_lab++;
    l->key = s->n_lab > 1 && below(m, 4) == 0 ? dup_key : str_index(m);
    switch (below(m, 4)) {
    case 0: l->str = str_index(m); break;
    case 1: l->num = number(m, 0); break;
    case 2:
        l->num = number(m, 0);
        l->num_unit = str_index(m);
        break;
    default: /* both, which is invalid */
        l->str = str_index(m);
        l->num = number(m, 0);
        break;
    }
}

static void
op_mapping(mut *m)
{
    pprof__vec *v = &m->p->mappings;
    if (!v->len)
        return;
    pprof_mapping *x = &PPROF__AT(*v, pprof_mapping, below(m, v->len));
    switch (below(m, 9)) {
    case 0:
        x->id = below(m, 2) ? (uint64_t)number(m, (int64_t)x->id) : ref_id(m, v, sizeof(*x));
        break;
    case 1: x->memory_start = (uint64_t)number(m, (int64_t)x->memory_start); break;
    case 2: x->memory_limit = (uint64_t)number(m, (int64_t)x->memory_limit); break;
    case 3: {
        uint64_t t = x->memory_start;
        x->memory_start = x->memory_limit;
        x->memory_limit = t;
        break;
    }
    case 4: x->file_offset = (uint64_t)number(m, (int64_t)x->file_offset); break;
    case 5: x->filename = str_index(m); break;
    case 6: x->build_id = str_index(m); break;
    case 7: x->has_functions = !x->has_functions; break;
    default: x->has_inline_frames = !x->has_inline_frames; break;
    }
}

static void
op_location(mut *m)
{
    pprof_profile *p = m->p;
    pprof__vec *v = &p->locations;
    if (!v->len)
        return;
    pprof__location *l = &PPROF__AT(*v, pprof__location, below(m, v->len));
    pprof_line *lines = range(&p->lines, sizeof(pprof_line), l->line_off);
    switch (below(m, 10)) {
    case 0:
        l->id = below(m, 2) ? (uint64_t)number(m, (int64_t)l->id) : ref_id(m, v, sizeof(*l));
        break;
    case 1: l->mapping_id = ref_id(m, &p->mappings, sizeof(pprof_mapping)); break;
    case 2:
        if (p->mappings.len && below(m, 2)) {
            pprof_mapping mp = PPROF__AT(p->mappings, pprof_mapping, below(m, p->mappings.len));
            l->address = mp.memory_start + below(m, mp.memory_limit - mp.memory_start + 2);
        } else {
            l->address = (uint64_t)number(m, (int64_t)l->address);
        }
        break;
    case 3: l->is_folded = !l->is_folded; break;
    case 4:
    case 5: { /* one more (inline) line, often a copy of an existing one */
        int64_t copy = l->n_line ? (int64_t)below(m, l->n_line) : -1;
        pprof_line c = copy >= 0 ? lines[copy] : (pprof_line){0};
        pprof_line *n = grow_range(m, &p->lines, sizeof(pprof_line), &l->line_off, l->n_line);
        if (!n)
            return;
        l->n_line++;
        *n = c;
        if (copy < 0 || below(m, 2))
            n->function_id = ref_id(m, &p->functions, sizeof(pprof_function));
        if (below(m, 2))
            n->line = number(m, n->line);
        break;
    }
    case 6:
        if (l->n_line)
            erase_range(lines, sizeof(pprof_line), &l->n_line, below(m, l->n_line));
        break;
    case 7:
        if (l->n_line)
            lines[below(m, l->n_line)].function_id =
                ref_id(m, &p->functions, sizeof(pprof_function));
        break;
    case 8:
        if (l->n_line) {
            pprof_line *x = &lines[below(m, l->n_line)];
            if (below(m, 2))
                x->line = number(m, x->line);
            else
                x->column = number(m, x->column);
        }
        break;
    default: l->n_line = 0; break;
    }
}

static void
op_function(mut *m)
{
    pprof__vec *v = &m->p->functions;
    if (!v->len)
        return;
    pprof_function *f = &PPROF__AT(*v, pprof_function, below(m, v->len));
    switch (below(m, 5)) {
    case 0:
        f->id = below(m, 2) ? (uint64_t)number(m, (int64_t)f->id) : ref_id(m, v, sizeof(*f));
        break;
    case 1: f->name = str_index(m); break;
    case 2: f->system_name = str_index(m); break;
    case 3: f->filename = str_index(m); break;
    default: f->start_line = number(m, f->start_line); break;
    }
}

static void
op_string(mut *m)
{
    pprof_profile *p = m->p;
    pprof__vec *v = &p->strings;
    switch (below(m, 6)) {
    case 0:
    case 1: { /* a new string: a common one, an awkward one, or an existing one again */
        const char *src;
        size_t len;
        uint64_t k = below(m, N_STRINGS + 2);
        if (k < N_STRINGS) {
            src = STRINGS[k];
            len = k == 17 ? 3 : strlen(src); /* "a\0b" keeps its NUL */
        } else if (v->len) {
            pprof_string s = PPROF__AT(*v, pprof_string, below(m, v->len));
            src = s.data;
            len = s.len;
        } else {
            src = "x";
            len = 1;
        }
        pprof_string *s = pprof__vec_push(&p->alloc, v, sizeof(*s));
        if (!s) {
            m->oom = true;
            return;
        }
        s->data = src; /* literals and the profile's own bytes both outlive the encoding */
        s->len = len;
        break;
    }
    case 2:
    case 3: { /* edit a string's bytes */
        if (!v->len)
            return;
        pprof_string *s = &PPROF__AT(*v, pprof_string, below(m, v->len));
        size_t len = s->len + 1;
        char *d = pprof__arena_alloc(&p->arena, len);
        if (!d) {
            m->oom = true;
            return;
        }
        if (s->len)
            memcpy(d, s->data, s->len);
        if (below(m, 2) && s->len) {
            d[below(m, s->len)] = (char)fuzz_rand(m->r);
            len = s->len;
        } else {
            d[s->len] = (char)(below(m, 2) ? 0x80 + below(m, 0x80) : 'a');
        }
        s->data = d;
        s->len = len;
        break;
    }
    case 4: /* a non-empty first string, which the format forbids */
        if (v->len)
            PPROF__AT(*v, pprof_string, 0) = (pprof_string){"x", 1};
        break;
    default:
        if (below(m, 4) == 0)
            v->len = 0; /* no string table at all */
        break;
    }
}

static void
mutate_model(mut *m)
{
    int n = 1 + (int)below(m, 4);
    for (int i = 0; i < n && !m->oom; i++) {
        switch (below(m, 16)) {
        case 0: op_table(m); break;
        case 1: op_header(m); break;
        case 2: op_sample_type(m); break;
        case 3:
        case 4:
        case 5: op_sample(m); break;
        case 6:
        case 7: op_label(m); break;
        case 8: op_mapping(m); break;
        case 9:
        case 10:
        case 11: op_location(m); break;
        case 12: op_function(m); break;
        default: op_string(m); break;
        }
    }
}

/* The model back to bytes: the library's writer (raw, sometimes compressed) when it accepts the
 * profile, the raw emitter otherwise or by choice. */
static bool
encode(mut *m, pprof_buffer *out)
{
    uint64_t how = below(m, 10);
    if (how < 6) {
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = how == 0 ? PPROF_FORMAT_GZIP : how == 1 ? PPROF_FORMAT_ZSTD : PPROF_FORMAT_RAW;
        w.level = 1;
        if (pprof_profile_write_memory(m->p, &w, out, NULL) == PPROF_OK)
            return true;
        out->len = 0;
    }
    return fuzz_emit_raw(m->p, (unsigned)below(m, 16), out) == PPROF_OK;
}

size_t
fuzz_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t seed, fuzz_byte_mutator bytes,
            void *bytes_ctx)
{
    fuzz_rng r = {seed};
    /* A quarter of the time plain bytes anyway, so the wire parser keeps being fuzzed. */
    if (fuzz_below(&r, 4) == 0 || size == 0)
        return bytes(bytes_ctx, data, size, max_size);
    pprof_read_options o = fuzz_read_options();
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p, NULL) != PPROF_OK)
        return bytes(bytes_ctx, data, size, max_size);
    mut m = {p, &r, false};
    mutate_model(&m);
    pprof_buffer out = {0};
    size_t n = 0;
    if (!m.oom && encode(&m, &out) && out.len > 0) {
        pprof_buffer z = {0};
        /* Too big for the engine's max_len: a gzip container usually fits. */
        if (out.len > max_size && pprof_detect_format(out.data, out.len) == PPROF_FORMAT_RAW &&
            pprof__compress(out.data, out.len, PPROF_FORMAT_GZIP, 1, 1, NULL, &z, NULL) ==
                PPROF_OK) {
            pprof_buffer_free(&out);
            out = z;
        } else {
            pprof_buffer_free(&z);
        }
        if (out.len <= max_size) {
            memcpy(data, out.data, out.len);
            n = out.len;
        }
    }
    pprof_buffer_free(&out);
    pprof_profile_free(p);
    return n ? n : bytes(bytes_ctx, data, size, max_size);
}

size_t
fuzz_mutate_bytes(void *ctx, uint8_t *data, size_t size, size_t max_size)
{
    fuzz_rng *r = ctx;
    static const uint8_t interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x0a,
                                          0x12, 0x1a, 0x22, 0x32, 0x1f, 0x8b, 0x28};
    if (size > max_size)
        size = max_size;
    switch (fuzz_below(r, size ? 6 : 2)) {
    case 0: /* insert a byte */
        if (size < max_size) {
            size_t at = fuzz_below(r, size + 1);
            memmove(data + at + 1, data + at, size - at);
            data[at] = fuzz_below(r, 2) ? interesting[fuzz_below(r, sizeof(interesting))]
                                        : (uint8_t)fuzz_rand(r);
            size++;
        }
        break;
    case 1: /* insert an overlong varint */
        if (size + 10 <= max_size) {
            size_t at = fuzz_below(r, size + 1);
            memmove(data + at + 10, data + at, size - at);
            memset(data + at, 0xff, 9);
            data[at + 9] = 0x01;
            size += 10;
        }
        break;
    case 2: data[fuzz_below(r, size)] ^= (uint8_t)(1u << fuzz_below(r, 8)); break;
    case 3: data[fuzz_below(r, size)] = interesting[fuzz_below(r, sizeof(interesting))]; break;
    case 4: { /* erase a run */
        size_t at = fuzz_below(r, size);
        size_t n = 1 + fuzz_below(r, size - at < 16 ? size - at : 16);
        memmove(data + at, data + at + n, size - at - n);
        size -= n;
        break;
    }
    default: /* copy a run elsewhere */
        if (size >= 2) {
            size_t from = fuzz_below(r, size), to = fuzz_below(r, size);
            size_t n = 1 + fuzz_below(r, size - (from > to ? from : to));
            memmove(data + to, data + from, n);
        }
        break;
    }
    return size;
}
