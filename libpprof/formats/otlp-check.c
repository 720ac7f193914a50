/* The OTLP rules (O* of rules.def): what profiles.proto at opentelemetry-proto ac2c4b5 says a
 * ProfilesData MUST or SHOULD be, checked on the decoded model with OTLP field paths. */
#include <stdio.h>

#include "check-private.h"
#include "hash-private.h"
#include "otlp-private.h"

typedef struct ock {
    pprof__ck c;
    const pprof_otlp *o;
    const pprof_allocator *a;
    /* what is referenced, by table: the orphan rule */
    uint8_t *used[8];
    bool nomem; /* a key table could not be allocated */
} ock;

enum { U_MAP, U_LOC, U_FN, U_LINK, U_STR, U_ATTR, U_STACK, U_N };

static const char *const table_name[U_N] = {"mapping_table", "location_table", "function_table",
                                            "link_table",    "string_table",   "attribute_table",
                                            "stack_table"};

static void put(ock *k, pprof_rule r, uint64_t off, const char *msg, const char *pathfmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
put(ock *k, pprof_rule r, uint64_t off, const char *msg, const char *pathfmt, ...)
{
    if (!pprof__ck_take(&k->c, r))
        return;
    char path[160];
    va_list ap;
    va_start(ap, pathfmt);
    vsnprintf(path, sizeof(path), pathfmt, ap);
    va_end(ap);
    pprof__ck_emit(&k->c, r, off, path, msg);
}

static size_t
table_len(const pprof_otlp *o, int t)
{
    const pprof__vec *v[U_N] = {&o->mappings, &o->locations, &o->functions, &o->links,
                                &o->strings,  &o->attrs,     &o->stacks};
    return v[t]->len;
}

/* An index into table t from the field at path: in range (O2), and marked used. */
static bool ref(ock *k, int t, int64_t i, uint64_t off, const char *pathfmt, ...)
    __attribute__((format(printf, 5, 6)));

static bool
ref(ock *k, int t, int64_t i, uint64_t off, const char *pathfmt, ...)
{
    size_t n = table_len(k->o, t);
    if (i == 0 && n == 0)
        return true; /* no table at all: the zero rule reports it when it matters */
    if (i < 0 || (uint64_t)i >= n) {
        if (pprof__ck_take(&k->c, PPROF_RULE_O2_INDEX_RANGE)) {
            char path[160], msg[200];
            va_list ap;
            va_start(ap, pathfmt);
            vsnprintf(path, sizeof(path), pathfmt, ap);
            va_end(ap);
            snprintf(msg, sizeof(msg), "index %lld, expected below %zu (the size of %s)",
                     (long long)i, n, table_name[t]);
            pprof__ck_emit(&k->c, PPROF_RULE_O2_INDEX_RANGE, off, path, msg);
        }
        return false;
    }
    if (k->used[t])
        k->used[t][i] = 1;
    return true;
}

static pprof_string
otlp_str_of(const pprof_otlp *o, int32_t i)
{
    pprof_string s = {"", 0};
    pprof__otlp_str(o, i, &s);
    return s;
}

/* The key of the attribute at position q of a list, or NULL when it names none. */
static bool
list_key(const pprof_otlp *o, pprof__otlp_range r, uint32_t q, pprof_string *out)
{
    int32_t ai = PPROF__AT(o->ints, int32_t, r.off + q);
    if (ai <= 0 || (size_t)ai >= o->attrs.len)
        return false;
    *out = otlp_str_of(o, PPROF__AT(o->attrs, pprof__otlp_attr, ai).key);
    return true;
}

typedef struct list_ctx {
    const pprof_otlp *o;
    pprof__otlp_range r;
} list_ctx;

static bool
same_key(const void *ctx, uint32_t v, const void *key)
{
    const list_ctx *l = ctx;
    const pprof_string *x = key;
    pprof_string y = {"", 0};
    return list_key(l->o, l->r, v, &y) && x->len == y.len &&
           (x->len == 0 || memcmp(x->data, y.data, x->len) == 0);
}

/* A list of attribute indices: each in range, keys non-empty and unique (O8). Long lists go
 * through a table of their keys, so that the check stays linear. */
static pprof_status
attr_list(ock *k, pprof__otlp_range r, uint64_t off, const char *where)
{
    const pprof_otlp *o = k->o;
    pprof__htab h;
    bool big = r.n > 16;
    if (big && !pprof__htab_init(&h, k->a, r.n))
        return PPROF_E_NOMEM;
    list_ctx lc = {o, r};
    pprof_status st = PPROF_OK;
    for (uint32_t j = 0; j < r.n; j++) {
        int32_t ai = PPROF__AT(o->ints, int32_t, r.off + j);
        pprof_string x = {"", 0};
        if (!ref(k, U_ATTR, ai, off, "%s.attribute_indices[%u]", where, j) || ai == 0 ||
            !list_key(o, r, j, &x))
            continue;
        uint32_t q = UINT32_MAX;
        if (big) {
            bool added;
            uint32_t v =
                pprof__htab_intern(&h, k->a, pprof__mix64(pprof__hash_bytes(0, x.data, x.len)),
                                   same_key, &lc, &x, j, &added);
            if (v == PPROF_NONE) {
                st = PPROF_E_NOMEM;
                break;
            }
            q = added ? UINT32_MAX : v;
        } else {
            for (uint32_t p = 0; p < j && q == UINT32_MAX; p++)
                if (same_key(&lc, p, &x))
                    q = p;
        }
        if (q != UINT32_MAX) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "key \"%.*s\" again (as attribute_indices[%u]); expected unique keys",
                     (int)(x.len > 60 ? 60 : x.len), x.data, q);
            put(k, PPROF_RULE_O8_ATTRIBUTE_KEY, off, msg, "%s.attribute_indices[%u]", where, j);
        }
    }
    if (big)
        pprof__htab_free(&h, k->a);
    return st;
}

/* O14 for one string at path. */
static void utf8(ock *k, pprof_string v, uint64_t off, const char *pathfmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
utf8(ock *k, pprof_string v, uint64_t off, const char *pathfmt, ...)
{
    size_t bad;
    if (pprof__utf8_valid((const uint8_t *)v.data, v.len, &bad) ||
        !pprof__ck_take(&k->c, PPROF_RULE_O14_UTF8))
        return;
    char path[160], msg[160];
    va_list ap;
    va_start(ap, pathfmt);
    vsnprintf(path, sizeof(path), pathfmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg),
             "byte %zu (0x%02x) of this %zu-byte string is not valid UTF-8; expected UTF-8 text",
             bad, (unsigned)(uint8_t)v.data[bad], v.len);
    pprof__ck_emit(&k->c, PPROF_RULE_O14_UTF8, off, path, msg);
}

/* The string values of an attribute (an array's elements too) are UTF-8 (O14). */
static void
attr_utf8(ock *k, const pprof__otlp_attr *a, const char *where)
{
    if (a->value.kind == PPROF__ANY_STRING)
        utf8(k, a->value.s, a->off, "%s.value.string_value", where);
    if (a->value.kind != PPROF__ANY_ARRAY)
        return;
    const uint8_t *p = (const uint8_t *)a->value.s.data, *end = p + a->value.s.len;
    pprof__any v;
    for (unsigned j = 0; pprof__otlp_array_next(&p, end, &v); j++)
        if (v.kind == PPROF__ANY_STRING)
            utf8(k, v.s, a->off, "%s.value.array_value.values[%u].string_value", where, j);
}

static void
check_dictionary(ock *k)
{
    const pprof_otlp *o = k->o;
    /* O1: index 0 of every table present and the zero value (empty bytes; the link's may be 16
     * and 8 zero bytes as the protocol recommends) */
    bool any_profile = o->profiles.len > 0;
    for (int t = 0; t < U_N; t++) {
        size_t n = table_len(o, t);
        if (n == 0) {
            if (any_profile || o->has_dictionary)
                put(k, PPROF_RULE_O1_ZERO_VALUE, PPROF_NO_OFFSET,
                    "the table is empty; expected its zero value at index 0", "dictionary.%s",
                    table_name[t]);
            continue;
        }
        bool zero = true;
        uint64_t off = PPROF_NO_OFFSET;
        switch (t) {
        case U_STR: zero = PPROF__AT(o->strings, pprof_string, 0).len == 0; break;
        case U_MAP: {
            const pprof__otlp_mapping *m = &PPROF__AT(o->mappings, pprof__otlp_mapping, 0);
            zero = !m->start && !m->limit && !m->file_offset && !m->filename && !m->attrs.n;
            off = m->off;
            break;
        }
        case U_LOC: {
            const pprof__otlp_location *l = &PPROF__AT(o->locations, pprof__otlp_location, 0);
            zero = !l->mapping && !l->address && !l->n_line && !l->attrs.n;
            off = l->off;
            break;
        }
        case U_FN: {
            const pprof__otlp_function *f = &PPROF__AT(o->functions, pprof__otlp_function, 0);
            zero = !f->name && !f->system_name && !f->filename && !f->start_line;
            off = f->off;
            break;
        }
        case U_LINK: {
            const pprof__otlp_link *l = &PPROF__AT(o->links, pprof__otlp_link, 0);
            for (size_t b = 0; b < l->trace_id.len; b++)
                zero = zero && l->trace_id.data[b] == 0;
            for (size_t b = 0; b < l->span_id.len; b++)
                zero = zero && l->span_id.data[b] == 0;
            off = l->off;
            break;
        }
        case U_ATTR: {
            const pprof__otlp_attr *a = &PPROF__AT(o->attrs, pprof__otlp_attr, 0);
            zero = !a->key && !a->unit && a->value.kind == PPROF__ANY_NONE;
            off = a->off;
            break;
        }
        case U_STACK:
            zero = PPROF__AT(o->stacks, pprof__otlp_stack, 0).locs.n == 0;
            off = PPROF__AT(o->stacks, pprof__otlp_stack, 0).off;
            break;
        }
        if (!zero)
            put(k, PPROF_RULE_O1_ZERO_VALUE, off,
                "index 0 holds a value; expected the table's zero value", "dictionary.%s[0]",
                table_name[t]);
    }
    for (size_t i = 0; i < o->strings.len; i++)
        utf8(k, PPROF__AT(o->strings, pprof_string, i), PPROF_NO_OFFSET,
             "dictionary.string_table[%zu]", i);
    for (size_t i = 0; i < o->mappings.len; i++) {
        const pprof__otlp_mapping *m = &PPROF__AT(o->mappings, pprof__otlp_mapping, i);
        char w[64];
        snprintf(w, sizeof(w), "dictionary.mapping_table[%zu]", i);
        ref(k, U_STR, m->filename, m->off, "%s.filename_strindex", w);
        k->nomem |= attr_list(k, m->attrs, m->off, w) != PPROF_OK;
    }
    for (size_t i = 0; i < o->locations.len; i++) {
        const pprof__otlp_location *l = &PPROF__AT(o->locations, pprof__otlp_location, i);
        char w[64];
        snprintf(w, sizeof(w), "dictionary.location_table[%zu]", i);
        ref(k, U_MAP, l->mapping, l->off, "%s.mapping_index", w);
        for (uint32_t j = 0; j < l->n_line; j++) {
            const pprof__otlp_line *ln = &PPROF__AT(o->lines, pprof__otlp_line, l->line_off + j);
            ref(k, U_FN, ln->function, l->off, "%s.lines[%u].function_index", w, j);
        }
        k->nomem |= attr_list(k, l->attrs, l->off, w) != PPROF_OK;
    }
    for (size_t i = 1; i < o->functions.len; i++) {
        const pprof__otlp_function *f = &PPROF__AT(o->functions, pprof__otlp_function, i);
        char w[64];
        snprintf(w, sizeof(w), "dictionary.function_table[%zu]", i);
        bool a = ref(k, U_STR, f->name, f->off, "%s.name_strindex", w);
        bool b = ref(k, U_STR, f->system_name, f->off, "%s.system_name_strindex", w);
        bool c = ref(k, U_STR, f->filename, f->off, "%s.filename_strindex", w);
        if (a && b && c && !f->name && !f->system_name && !f->filename)
            put(k, PPROF_RULE_O9_FUNCTION_NAME, f->off,
                "no name, system name or filename; expected at least one", "%s", w);
    }
    for (size_t i = 0; i < o->attrs.len; i++) {
        const pprof__otlp_attr *a = &PPROF__AT(o->attrs, pprof__otlp_attr, i);
        char w[64];
        snprintf(w, sizeof(w), "dictionary.attribute_table[%zu]", i);
        bool key = ref(k, U_STR, a->key, a->off, "%s.key_strindex", w);
        ref(k, U_STR, a->unit, a->off, "%s.unit_strindex", w);
        if (a->value.kind == PPROF__ANY_STRINDEX)
            ref(k, U_STR, a->value.i, a->off, "%s.value.string_value_strindex", w);
        attr_utf8(k, a, w);
        if (i > 0 && key && otlp_str_of(o, a->key).len == 0)
            put(k, PPROF_RULE_O8_ATTRIBUTE_KEY, a->off, "the key is empty; expected a name",
                "%s.key_strindex", w);
        if (i > 0 && a->unit && a->value.kind != PPROF__ANY_INT &&
            a->value.kind != PPROF__ANY_DOUBLE && a->value.kind != PPROF__ANY_ARRAY)
            put(k, PPROF_RULE_O12_UNIT, a->off,
                "a unit on a value that is not a number; expected an int or double value",
                "%s.unit_strindex", w);
    }
    for (size_t i = 1; i < o->links.len; i++) {
        const pprof__otlp_link *l = &PPROF__AT(o->links, pprof__otlp_link, i);
        bool trace = l->trace_id.len != 16;
        if (trace || l->span_id.len != 8) {
            char msg[120];
            snprintf(msg, sizeof(msg), "%zu bytes; expected %d",
                     (size_t)(trace ? l->trace_id.len : l->span_id.len), trace ? 16 : 8);
            put(k, PPROF_RULE_O13_LINK_ID, l->off, msg, "dictionary.link_table[%zu].%s", i,
                trace ? "trace_id" : "span_id");
        }
    }
    for (size_t i = 0; i < o->stacks.len; i++) {
        const pprof__otlp_stack *s = &PPROF__AT(o->stacks, pprof__otlp_stack, i);
        for (uint32_t j = 0; j < s->locs.n; j++) {
            int32_t li = PPROF__AT(o->ints, int32_t, s->locs.off + j);
            if (ref(k, U_LOC, li, s->off, "dictionary.stack_table[%zu].location_indices[%u]", i,
                    j) &&
                li == 0)
                put(k, PPROF_RULE_O7_STACK_ENTRY, s->off,
                    "location 0 is the zero Location; expected a real one",
                    "dictionary.stack_table[%zu].location_indices[%u]", i, j);
        }
    }
}

static void
check_profiles(ock *k)
{
    const pprof_otlp *o = k->o;
    for (size_t r = 0; r < o->kvs.len; r++) {
        const pprof__otlp_kv *kv = &PPROF__AT(o->kvs, pprof__otlp_kv, r);
        if (kv->key_strindex)
            ref(k, U_STR, kv->key_strindex, PPROF_NO_OFFSET, "attributes[%zu].key_strindex", r);
    }
    for (size_t i = 0; i < o->profiles.len; i++) {
        const pprof__otlp_profile *pr = &PPROF__AT(o->profiles, pprof__otlp_profile, i);
        char w[96];
        snprintf(w, sizeof(w), "resource_profiles[%u].scope_profiles[%u].profiles[%u]",
                 pr->resource, pr->scope_in_resource, pr->index_in_scope);
        ref(k, U_STR, pr->sample_type.type, PPROF_NO_OFFSET, "%s.sample_type.type_strindex", w);
        ref(k, U_STR, pr->sample_type.unit, PPROF_NO_OFFSET, "%s.sample_type.unit_strindex", w);
        ref(k, U_STR, pr->period_type.type, PPROF_NO_OFFSET, "%s.period_type.type_strindex", w);
        ref(k, U_STR, pr->period_type.unit, PPROF_NO_OFFSET, "%s.period_type.unit_strindex", w);
        k->nomem |= attr_list(k, pr->attrs, PPROF_NO_OFFSET, w) != PPROF_OK;
        if (!pr->original_format.len != !pr->original.len)
            put(k, PPROF_RULE_O11_ORIGINAL_PAYLOAD, PPROF_NO_OFFSET,
                "only one of the two is set; expected both or neither", "%s.%s", w,
                pr->original.len ? "original_payload_format" : "original_payload");
        for (uint32_t j = 0; j < pr->n_sample; j++) {
            const pprof__otlp_sample *s =
                &PPROF__AT(o->samples, pprof__otlp_sample, pr->sample_off + j);
            char sw[128];
            pprof__path(sw, "%s.samples[%u]", w, j);
            ref(k, U_STACK, s->stack, PPROF_NO_OFFSET, "%s.stack_index", sw);
            ref(k, U_LINK, s->link, PPROF_NO_OFFSET, "%s.link_index", sw);
            k->nomem |= attr_list(k, s->attrs, PPROF_NO_OFFSET, sw) != PPROF_OK;
            if (!s->n_val && !s->n_ts)
                put(k, PPROF_RULE_O5_VALUES_COUNT, PPROF_NO_OFFSET,
                    "no values and no timestamps; expected at least one of them", "%s", sw);
            else if (s->n_val && s->n_ts && s->n_val != s->n_ts) {
                char msg[160];
                snprintf(msg, sizeof(msg), "%u values but %u timestamps; expected as many of each",
                         s->n_val, s->n_ts);
                put(k, PPROF_RULE_O5_VALUES_COUNT, PPROF_NO_OFFSET, msg, "%s.values", sw);
            }
            /* the window's end when it has one: none when duration_nano is 0 (not known) or
             * the end is past the largest timestamp */
            bool bounded = pr->duration && pr->time + pr->duration > pr->time;
            for (uint32_t q = 0; q < s->n_ts && pr->time; q++) {
                uint64_t t = PPROF__AT(o->times, uint64_t, s->ts_off + q);
                bool before = t < pr->time;
                bool after = bounded && t - pr->time >= pr->duration;
                if (before || after) {
                    char msg[200];
                    if (bounded)
                        snprintf(msg, sizeof(msg),
                                 "%llu is %s the profile's window; expected within [%llu, %llu)",
                                 (unsigned long long)t, before ? "before" : "after",
                                 (unsigned long long)pr->time,
                                 (unsigned long long)(pr->time + pr->duration));
                    else
                        snprintf(msg, sizeof(msg),
                                 "%llu is before the profile's start; expected at or after %llu",
                                 (unsigned long long)t, (unsigned long long)pr->time);
                    put(k, PPROF_RULE_O6_TIMESTAMP_WINDOW, PPROF_NO_OFFSET, msg,
                        "%s.timestamps_unix_nano[%u]", sw, q);
                }
            }
        }
    }
}

/* The bytes that identify entry i of table t: O3 compares them. */
static pprof_string
entry_bytes(const pprof_otlp *o, int t, size_t i)
{
    uint64_t off = 0, len = 0;
    switch (t) {
    case U_STR: return PPROF__AT(o->strings, pprof_string, i);
    case U_MAP:
        off = PPROF__AT(o->mappings, pprof__otlp_mapping, i).off;
        len = PPROF__AT(o->mappings, pprof__otlp_mapping, i).len;
        break;
    case U_LOC:
        off = PPROF__AT(o->locations, pprof__otlp_location, i).off;
        len = PPROF__AT(o->locations, pprof__otlp_location, i).len;
        break;
    case U_FN:
        off = PPROF__AT(o->functions, pprof__otlp_function, i).off;
        len = PPROF__AT(o->functions, pprof__otlp_function, i).len;
        break;
    case U_LINK:
        off = PPROF__AT(o->links, pprof__otlp_link, i).off;
        len = PPROF__AT(o->links, pprof__otlp_link, i).len;
        break;
    case U_ATTR:
        off = PPROF__AT(o->attrs, pprof__otlp_attr, i).off;
        len = PPROF__AT(o->attrs, pprof__otlp_attr, i).len;
        break;
    case U_STACK:
        off = PPROF__AT(o->stacks, pprof__otlp_stack, i).off;
        len = PPROF__AT(o->stacks, pprof__otlp_stack, i).len;
        break;
    }
    return (pprof_string){(const char *)o->buf + off, (size_t)len};
}

typedef struct dkey {
    const pprof_otlp *o;
    int t;
} dkey;

static bool
same_entry(const void *ctx, uint32_t v, const void *key)
{
    const dkey *d = ctx;
    const pprof_string *k = key;
    pprof_string e = entry_bytes(d->o, d->t, v);
    return e.len == k->len && (e.len == 0 || memcmp(e.data, k->data, e.len) == 0);
}

static pprof_status
check_tables(ock *k, pprof_error *err)
{
    const pprof_otlp *o = k->o;
    for (int t = 0; t < U_N; t++) {
        size_t n = table_len(o, t);
        pprof__htab h;
        if (!pprof__htab_init(&h, k->a, n))
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        dkey d = {o, t};
        for (size_t i = 1; i < n; i++) {
            pprof_string e = entry_bytes(o, t, i);
            bool added;
            uint32_t v =
                pprof__htab_intern(&h, k->a, pprof__mix64(pprof__hash_bytes(0, e.data, e.len)),
                                   same_entry, &d, &e, (uint32_t)i, &added);
            if (v == PPROF_NONE) {
                pprof__htab_free(&h, k->a);
                return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            }
            if (!added) {
                char msg[120];
                snprintf(msg, sizeof(msg), "the same as %s[%u]; expected each entry once",
                         table_name[t], v);
                put(k, PPROF_RULE_O3_DUPLICATE_ENTRY,
                    t == U_STR ? PPROF_NO_OFFSET : (uint64_t)(e.data - (const char *)o->buf), msg,
                    "dictionary.%s[%zu]", table_name[t], i);
            }
            if (k->used[t] && !k->used[t][i])
                put(k, PPROF_RULE_O4_ORPHAN_ENTRY, PPROF_NO_OFFSET,
                    "nothing references it; expected every entry to be used", "dictionary.%s[%zu]",
                    table_name[t], i);
        }
        pprof__htab_free(&h, k->a);
    }
    return PPROF_OK;
}

static pprof_status
otlp_check_full(const pprof_otlp *o, const pprof_check_options *opts, pprof_finding_fn fn,
                void *ctx, pprof_check_summary *summary, pprof_error *err)
{
    if (!o)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no OTLP");
    ock k;
    memset(&k, 0, sizeof(k));
    k.o = o;
    k.a = &o->alloc;
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    pprof__ck_init(&k.c, opts, fn, ctx, summary);
    pprof_status st = PPROF_OK;
    for (int t = 0; t < U_N; t++) {
        size_t n = table_len(o, t);
        if (n && !(k.used[t] = pprof__malloc(k.a, n))) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            goto done;
        }
        if (n)
            memset(k.used[t], 0, n);
    }
    check_dictionary(&k);
    check_profiles(&k);
    st = k.nomem ? pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory")
                 : check_tables(&k, err);
done:
    for (int t = 0; t < U_N; t++)
        pprof__free(k.a, k.used[t]);
    return st;
}

static bool
otlp_check_read_error_full(const pprof_error *read_err, const pprof_check_options *opts,
                           pprof_finding_fn fn, void *ctx, pprof_check_summary *summary)
{
    if (!read_err || read_err->code == PPROF_E_IO || read_err->code == PPROF_E_NOMEM ||
        read_err->code == PPROF_E_ARG)
        return false;
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    pprof__ck c;
    pprof__ck_init(&c, opts, fn, ctx, summary);
    if (pprof__ck_take(&c, PPROF_RULE_O10_DECODE))
        pprof__ck_emit(&c, PPROF_RULE_O10_DECODE, read_err->offset, read_err->path,
                       read_err->message);
    return true;
}

pprof_status
pprof_otlp_check(const pprof_otlp *o, const pprof_check_options *opts, pprof_finding_fn fn,
                 void *ctx, pprof_check_summary *summary, pprof_error *err)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    pprof_status r = otlp_check_full(o, opts, fn, ctx, sum, err);
    pprof__sum_out(summary, sum);
    return r;
}

bool
pprof_otlp_check_read_error(const pprof_error *read_err, const pprof_check_options *opts,
                            pprof_finding_fn fn, void *ctx, pprof_check_summary *summary)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    bool r = otlp_check_read_error_full(read_err, opts, fn, ctx, sum);
    pprof__sum_out(summary, sum);
    return r;
}
