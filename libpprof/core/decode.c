/* Wire bytes -> model, in one pass, in any field order. Every length is checked against the
 * bytes that remain before it is used, and every table against its configured limit. */
#include <stdio.h>

#include "guard-private.h"
#include "memory-private.h"
#include "profile-private.h"
#include "schema-tables.h"
#include "wire-private.h"

typedef struct dec {
    pprof_profile *p;
    const pprof_allocator *a;
    const uint8_t *base;
    const uint8_t *buf_end; /* end of the whole input: reads before it are memory-safe */
    const pprof_read_options *o;
    pprof_error *err;
    /* Where we are, kept as cheap stores and turned into a path only when something fails. */
    const char *ent; /* "sample", "location", ... or NULL at the top level */
    size_t idx;      /* index of ent */
    const char *sub; /* "label", "line" or NULL */
    size_t sub_idx;
    const char *const *names; /* field names of the message being read, by number */
    uint32_t n_names;
    uint32_t field; /* field being read, 0 when none */
    bool lazy;      /* samples are framed and recorded in p->lazy, not decoded */
    bool narrow;    /* the stack holds 4-byte ids (pprof_profile.stack_is_id32) */
} dec;

/* Inlined into each caller, where the table (or the width) is a constant: these run once per
 * field, and a call with the table as a variable cost the decoder more instructions than the
 * hand-written readers this replaced. */
#define HOT static inline __attribute__((always_inline))

static void
make_path(const dec *d, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    if (d->ent)
        n += (size_t)snprintf(out + n, cap - n, d->idx == SIZE_MAX ? "%s" : "%s[%zu]", d->ent,
                              d->idx);
    if (d->sub && n < cap)
        n += (size_t)snprintf(out + n, cap - n, ".%s[%zu]", d->sub, d->sub_idx);
    if (d->field && n < cap) {
        const char *fname = d->field < d->n_names ? d->names[d->field] : NULL;
        if (fname && *fname)
            snprintf(out + n, cap - n, "%s%s", n ? "." : "", fname);
        else
            snprintf(out + n, cap - n, "%sfield %u", n ? "." : "", d->field);
    }
}

/* The field names of one message of schema.def, for error paths. */
#define NAMES(d, msg)                                                                              \
    do {                                                                                           \
        (d)->names = pprof__schema_##msg.field;                                                    \
        (d)->n_names = pprof__schema_##msg.n;                                                      \
    } while (0)

/* Enters a top-level entity: the path becomes "ent[idx]" and field names are the entity's. */
#define ENTER(d, e, i, table)                                                                      \
    do {                                                                                           \
        (d)->ent = e;                                                                              \
        (d)->idx = i;                                                                              \
        (d)->field = 0;                                                                            \
        NAMES(d, table);                                                                           \
    } while (0)

#define LEAVE(d)                                                                                   \
    do {                                                                                           \
        (d)->ent = NULL;                                                                           \
        (d)->sub = NULL;                                                                           \
        (d)->field = 0;                                                                            \
        NAMES(d, profile);                                                                         \
    } while (0)

static pprof_status fail(dec *d, const uint8_t *at, pprof_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static pprof_status
fail(dec *d, const uint8_t *at, pprof_status code, const char *fmt, ...)
{
    if (!d->err)
        return code;
    char msg[256], path[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    make_path(d, path, sizeof(path));
    return pprof__error(d->err, code, (uint64_t)(at - d->base), path, "%s", msg);
}

/* Common framing for the message loops below. */
#define FIELD_LOOP(d, p, end, field, wt, tagp)                                                     \
    while (p < end) {                                                                              \
        const uint8_t *tagp = p;                                                                   \
        uint32_t field, wt;                                                                        \
        if (!pprof__tag(&p, end, &field, &wt)) {                                                   \
            d->field = 0; /* the broken tag belongs to no field, not the previous one */           \
            return fail(d, tagp, PPROF_E_WIRE, "bad field tag (truncated, overlong or field 0)");  \
        }                                                                                          \
        d->field = field;

#define FIELD_LOOP_END }

#define WANT(d, tagp, wt, expect, field)                                                           \
    do {                                                                                           \
        if (wt != expect)                                                                          \
            return fail(d, tagp, PPROF_E_WIRE,                                                     \
                        "type mismatch: field %u has wire type %s, expected %s", field,            \
                        pprof__wt_name(wt), pprof__wt_name(expect));                               \
    } while (0)

#define VARINT(d, p, end, out)                                                                     \
    do {                                                                                           \
        if (!pprof__varint(&p, end, &(out)))                                                       \
            return fail(d, p, PPROF_E_WIRE,                                                        \
                        "bad varint (truncated, longer than 10 bytes or past 64 bits)");           \
    } while (0)

#define SKIP(d, p, end, wt, tagp, field)                                                           \
    do {                                                                                           \
        d->p->unknown_fields++;                                                                    \
        if (!pprof__skip_field(&p, end, wt))                                                       \
            return fail(d, tagp, PPROF_E_WIRE, "unknown field %u: bad %s payload", field,          \
                        pprof__wt_name(wt));                                                       \
    } while (0)

static bool
len_prefix(const uint8_t **pp, const uint8_t *end, const uint8_t **sub_end)
{
    uint64_t n;
    if (!pprof__varint(pp, end, &n) || n > (uint64_t)(end - *pp))
        return false;
    *sub_end = *pp + n;
    return true;
}

#define LEN(d, p, end, sub_end, tagp)                                                              \
    do {                                                                                           \
        if (!len_prefix(&p, end, &sub_end))                                                        \
            return fail(d, tagp, PPROF_E_WIRE,                                                     \
                        "declared length exceeds the %zu bytes that remain", (size_t)(end - p));   \
    } while (0)

/* The packed varints [p, sub_end) into out, 4-byte entries when narrow (else 8); *n their
 * number. narrow: *fits false at the first value past 32 bits, with nothing kept. Inlined with
 * a constant narrow, so each width has its own loop. */
HOT pprof_status
packed_run(dec *d, const uint8_t *p, const uint8_t *sub_end, void *dst, bool narrow, size_t *n,
           bool *fits)
{
    uint64_t *out = dst;
    uint32_t *out32 = dst;
    size_t k = 0;
    const uint8_t *buf_end = d->buf_end;
    while (p < sub_end) {
        uint64_t v;
        size_t m;
        if (__builtin_expect(buf_end - p >= 8, 1)) {
            uint64_t w;
            memcpy(&w, p, 8);
            /* eight one-byte varints (small ids in long stacks): no per-byte branch */
            if ((w & UINT64_C(0x8080808080808080)) == 0 && sub_end - p >= 8) {
                for (unsigned i = 0; i < 8; i++) {
                    if (narrow)
                        out32[k + i] = p[i];
                    else
                        out[k + i] = p[i];
                }
                p += 8;
                k += 8;
                continue;
            }
            if ((m = pprof__varint8(p, sub_end, &v)) != 0) {
                p += m;
                goto store;
            }
        }
        if (!pprof__varint(&p, sub_end, &v))
            return fail(d, p, PPROF_E_WIRE,
                        "bad varint in packed field (truncated or past 64 bits)");
    store:
        if (!narrow) {
            out[k++] = v;
        } else if (v <= UINT32_MAX) {
            out32[k++] = (uint32_t)v;
        } else {
            *fits = false;
            return PPROF_OK;
        }
    }
    *n = k;
    return PPROF_OK;
}

/* Appends one scalar or a packed run of varints to vec; *count grows by the number added. With
 * narrow, vec's entries are 4 bytes: at a value past 32 bits, *fits is false and nothing is
 * read (the caller widens vec and reads the field again). */
HOT pprof_status
repeated_varint_of(dec *d, const uint8_t **pp, const uint8_t *end, uint32_t wt, const uint8_t *tagp,
                   pprof__vec *vec, uint32_t *count, uint64_t limit, uint64_t used,
                   const char *what, bool narrow, bool *fits)
{
    /* used: entries of this kind decoded in earlier batches (lazy samples), which count too */
    limit = used < limit ? limit - used : 0;
    const size_t elem = narrow ? sizeof(uint32_t) : sizeof(uint64_t);
    const uint8_t *p = *pp;
    uint64_t v;
    if (wt == PPROF_WT_VARINT) {
        VARINT(d, p, end, v);
        if (vec->len >= limit)
            return fail(d, tagp, PPROF_E_LIMIT, "more than %llu %s",
                        (unsigned long long)(limit + used), what);
        if (narrow && v > UINT32_MAX) {
            *fits = false;
            return PPROF_OK;
        }
        void *slot = pprof__vec_push(d->a, vec, elem);
        if (!slot)
            return fail(d, tagp, PPROF_E_NOMEM, "out of memory");
        if (narrow)
            *(uint32_t *)slot = (uint32_t)v;
        else
            *(uint64_t *)slot = v;
        (*count)++;
        *pp = p;
        return PPROF_OK;
    }
    if (wt != PPROF_WT_LEN)
        return fail(d, tagp, PPROF_E_WIRE, "type mismatch: repeated varint field has wire type %s",
                    pprof__wt_name(wt));
    const uint8_t *sub_end;
    LEN(d, p, end, sub_end, tagp);
    if (p == sub_end) { /* an empty packed run: the vector may have no storage yet */
        *pp = p;
        return PPROF_OK;
    }
    /* Usually the pre-sized vector has room for a byte per element; otherwise count the
     * varints that end in the run, an exact bound, so the vector grows no more than needed. */
    if (vec->cap - vec->len < (size_t)(sub_end - p)) {
        size_t max_n = pprof__count_varint_ends(p, sub_end, d->buf_end);
        if (max_n == 0) /* not one complete varint */
            return fail(d, p, PPROF_E_WIRE,
                        "bad varint in packed field (truncated or past 64 bits)");
        if (!pprof__vec_grow(d->a, vec, elem, vec->len + max_n))
            return fail(d, tagp, PPROF_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    pprof_status st =
        packed_run(d, p, sub_end, (uint8_t *)vec->data + elem * vec->len, narrow, &n, fits);
    if (st || (narrow && !*fits))
        return st;
    if (vec->len + n > limit)
        return fail(d, tagp, PPROF_E_LIMIT, "more than %llu %s", (unsigned long long)(limit + used),
                    what);
    vec->len += n;
    *count += (uint32_t)n;
    *pp = sub_end;
    return PPROF_OK;
}

static pprof_status
repeated_varint(dec *d, const uint8_t **pp, const uint8_t *end, uint32_t wt, const uint8_t *tagp,
                pprof__vec *vec, uint32_t *count, uint64_t limit, uint64_t used, const char *what)
{
    return repeated_varint_of(d, pp, end, wt, tagp, vec, count, limit, used, what, false, NULL);
}

/* A sample's location ids while they are 4-byte (dec.narrow); the first id past 32 bits makes
 * the stack 8-byte, as any profile's, and its field is read again. */
static pprof_status
location_ids(dec *d, const uint8_t **pp, const uint8_t *end, uint32_t wt, const uint8_t *tagp,
             uint32_t *count)
{
    pprof_profile *pr = d->p;
    const pprof_read_options *o = d->o;
    bool fits = true;
    pprof_status st =
        repeated_varint_of(d, pp, end, wt, tagp, &pr->stack, count, o->max_stack_entries,
                           pr->lazy_stack, "stack entries", true, &fits);
    if (st || fits)
        return st;
    if (!pprof__stack_widen(pr))
        return fail(d, tagp, PPROF_E_NOMEM, "out of memory");
    d->narrow = false;
    return repeated_varint(d, pp, end, wt, tagp, &pr->stack, count, o->max_stack_entries,
                           pr->lazy_stack, "stack entries");
}

/* ---- varint fields, by table
 * Where each varint field of a message lives in its C struct: kept whole (int64 and uint64
 * share their 64 bits) or as a bool, told apart by the member's size. One reader serves every
 * message, so the wire checks and the error paths are the same for all of them. */

typedef struct slot {
    uint32_t off, size; /* size 0: not a varint field of the message */
} slot;

/* The array's size is -1, which does not compile, for a member that is neither 8 bytes nor a
 * bool: the reader stores only those two. */
#define SLOT(msg, type, name)                                                                      \
    [PPROF__F_##msg##_##                                                                           \
        name] = {(uint32_t)offsetof(type, name),                                                   \
                 (uint32_t)sizeof(((type *)0)->name) +                                             \
                     0 * (uint32_t)sizeof(char[sizeof(((type *)0)->name) == 8 ||                   \
                                                       sizeof(((type *)0)->name) == sizeof(bool)   \
                                                   ? 1                                             \
                                                   : -1])}

typedef struct slots {
    const slot *slot; /* by field number */
    uint32_t n;
    const pprof__schema *schema; /* field names for error paths */
    /* Constants in each inlined caller, so a message without bools skips the size test, and a
     * dense one (field f is the (f-1)th 64-bit word, for every f in 1..n-1) the table load. */
    bool bools, dense;
} slots;

#define SLOTS(msg, table, bools, dense)                                                            \
    {                                                                                              \
        table, sizeof(table) / sizeof(table[0]), &pprof__schema_##msg, bools, dense                \
    }

/* The slot tables, from schema.def: every singular varint field (INT64, UINT64, BOOL with ONE)
 * of a message, in the struct that holds it; the rest (messages, strings, repeated fields) is
 * read by hand. sample's table stays empty and is not used. */
#define SLOT_STRUCT_value_type pprof_value_type
#define SLOT_STRUCT_sample pprof__sample
#define SLOT_STRUCT_label pprof_label
#define SLOT_STRUCT_mapping pprof_mapping
#define SLOT_STRUCT_location pprof__location
#define SLOT_STRUCT_line pprof_line
#define SLOT_STRUCT_function pprof_function
#define SLOT_STRUCT_profile pprof_header
#define SLOT_IF_INT64_ONE(m, name) SLOT(m, SLOT_STRUCT_##m, name),
#define SLOT_IF_UINT64_ONE(m, name) SLOT(m, SLOT_STRUCT_##m, name),
#define SLOT_IF_BOOL_ONE(m, name) SLOT(m, SLOT_STRUCT_##m, name),
#define SLOT_IF_INT64_MANY(m, name)
#define SLOT_IF_UINT64_MANY(m, name)
#define SLOT_IF_STRING_MANY(m, name)
#define SLOT_IF_MESSAGE_ONE(m, name)
#define SLOT_IF_MESSAGE_MANY(m, name)
#define PPROF_MESSAGE(m, fields)                                                                   \
    __attribute__((unused)) static const slot m##_slot[] = {[0] = {0, 0}, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx) SLOT_IF_##type##_##card(m, name)
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

/* The layout "dense" promises. */
_Static_assert(offsetof(pprof_value_type, unit) == 8, "value_type not dense");
_Static_assert(offsetof(pprof_label, num_unit) == 24, "label not dense");
_Static_assert(offsetof(pprof_line, column) == 16, "line not dense");
_Static_assert(offsetof(pprof_function, start_line) == 32, "function not dense");
static const slots VALUE_TYPE = SLOTS(value_type, value_type_slot, false, true);
static const slots LABEL = SLOTS(label, label_slot, false, true);
static const slots MAPPING = SLOTS(mapping, mapping_slot, true, false);
static const slots LINE = SLOTS(line, line_slot, false, true);
static const slots LOCATION = SLOTS(location, location_slot, true, false);
static const slots FUNCTION = SLOTS(function, function_slot, false, true);
static const slots HEADER = SLOTS(profile, profile_slot, false, false);

/* One field of a message read by table: a varint stored in its slot, anything else skipped.
 * A macro, not a function taking &p: with p's address taken inside the message loops, the
 * compiler kept p in memory and spilled registers around the inlined label and line loops
 * (docs/bench/core.md, 2026-12-06 23:45). */
#define SLOT_FIELD(d, p, end, tagp, field, wt, m, obj)                                             \
    do {                                                                                           \
        if ((m)->dense ? field - 1 < (m)->n - 1 : field < (m)->n && (m)->slot[field].size) {       \
            uint64_t v_;                                                                           \
            WANT(d, tagp, wt, PPROF_WT_VARINT, field);                                             \
            VARINT(d, p, end, v_);                                                                 \
            char *at_ =                                                                            \
                (char *)(obj) + ((m)->dense ? 8 * (size_t)(field - 1) : (m)->slot[field].off);     \
            if ((m)->bools && (m)->slot[field].size == sizeof(bool))                               \
                *(bool *)at_ = v_ != 0;                                                            \
            else                                                                                   \
                memcpy(at_, &v_, sizeof(v_));                                                      \
        } else {                                                                                   \
            SKIP(d, p, end, wt, tagp, field);                                                      \
        }                                                                                          \
    } while (0)

/* A message of varint fields only (value_type, label, mapping, line, function). */
HOT pprof_status
slot_message(dec *d, const uint8_t *p, const uint8_t *end, const slots *m, void *obj)
{
    FIELD_LOOP(d, p, end, field, wt, tagp)
    SLOT_FIELD(d, p, end, tagp, field, wt, m, obj);
    FIELD_LOOP_END
    return PPROF_OK;
}

/* Appends an element to one of the entity tables, with its offset; the caller writes every
 * member. used: entries of this kind decoded in earlier batches (lazy samples), which count
 * against the limit too. */
HOT void *
push_entity(dec *d, const uint8_t *at, pprof__vec *v, size_t elem, pprof__vec *offs, uint64_t limit,
            uint64_t used, const char *what, pprof_status *st)
{
    if (v->len + used >= limit) { /* counts of elements in memory: the sum cannot wrap */
        *st = fail(d, at, PPROF_E_LIMIT, "more than %llu %s", (unsigned long long)limit, what);
        return NULL;
    }
    void *e = pprof__vec_push(d->a, v, elem);
    uint64_t *o = offs ? pprof__vec_push(d->a, offs, sizeof(uint64_t)) : NULL;
    if (!e || (offs && !o)) {
        *st = fail(d, at, PPROF_E_NOMEM, "out of memory");
        return NULL;
    }
    if (o)
        *o = (uint64_t)(at - d->base);
    return e;
}

/* push_entity() for a message, whose absent fields read as zero. */
HOT void *
new_entity(dec *d, const uint8_t *at, pprof__vec *v, size_t elem, pprof__vec *offs, uint64_t limit,
           uint64_t used, const char *what, pprof_status *st)
{
    void *e = push_entity(d, at, v, elem, offs, limit, used, what, st);
    if (e)
        memset(e, 0, elem);
    return e;
}

/* A sample's label or a location's line: appended to vec and counted in *n, the path naming it
 * "name[*n]" while it is read; then the field names are outer's again. */
HOT pprof_status
sub_message(dec *d, const uint8_t **pp, const uint8_t *end, const uint8_t *tagp, uint32_t wt,
            const char *name, uint32_t *n, pprof__vec *vec, size_t elem, uint64_t limit,
            uint64_t used, const char *what, const slots *m, const pprof__schema *outer)
{
    const uint8_t *p = *pp, *sub_end;
    pprof_status st = PPROF_OK;
    WANT(d, tagp, wt, PPROF_WT_LEN, d->field);
    d->sub = name;
    d->sub_idx = *n;
    d->field = 0;
    LEN(d, p, end, sub_end, tagp);
    void *e = new_entity(d, tagp, vec, elem, NULL, limit, used, what, &st);
    if (!e)
        return st;
    (*n)++;
    d->names = m->schema->field;
    d->n_names = m->schema->n;
    if ((st = slot_message(d, p, sub_end, m, e)))
        return st;
    d->sub = NULL;
    d->names = outer->field;
    d->n_names = outer->n;
    *pp = sub_end;
    return PPROF_OK;
}

static pprof_status
sample(dec *d, const uint8_t *p, const uint8_t *end)
{
    pprof_profile *pr = d->p;
    const pprof_read_options *o = d->o;
    pprof_status st = PPROF_OK;
    pprof__sample *s = push_entity(d, p, &pr->samples, sizeof(*s), &pr->sample_offs, o->max_samples,
                                   0, "samples", &st);
    if (!s)
        return st;
    s->loc_off = (uint32_t)pr->stack.len;
    s->val_off = (uint32_t)pr->values.len;
    s->lab_off = (uint32_t)pr->labels.len;
    s->n_loc = s->n_val = s->n_lab = 0;
    FIELD_LOOP(d, p, end, field, wt, tagp)
    switch (field) {
    case PPROF__F_sample_location_id:
        st = d->narrow ? location_ids(d, &p, end, wt, tagp, &s->n_loc)
                       : repeated_varint(d, &p, end, wt, tagp, &pr->stack, &s->n_loc,
                                         o->max_stack_entries, pr->lazy_stack, "stack entries");
        break;
    case PPROF__F_sample_value:
        st = repeated_varint(d, &p, end, wt, tagp, &pr->values, &s->n_val, o->max_values,
                             pr->lazy_values, "sample values");
        break;
    case PPROF__F_sample_label:
        st = sub_message(d, &p, end, tagp, wt, "label", &s->n_lab, &pr->labels, sizeof(pprof_label),
                         o->max_labels, pr->lazy_labels, "labels", &LABEL, &pprof__schema_sample);
        break;
    default: SKIP(d, p, end, wt, tagp, field);
    }
    if (st) /* PPROF_OK from push_entity() until a reader fails */
        return st;
    FIELD_LOOP_END
    return PPROF_OK;
}

static pprof_status
location(dec *d, const uint8_t *p, const uint8_t *end, pprof__location *l)
{
    pprof_profile *pr = d->p;
    l->line_off = (uint32_t)pr->lines.len;
    FIELD_LOOP(d, p, end, field, wt, tagp)
    if (field == PPROF__F_location_line) {
        pprof_status st =
            sub_message(d, &p, end, tagp, wt, "line", &l->n_line, &pr->lines, sizeof(pprof_line),
                        d->o->max_lines, 0, "lines", &LINE, &pprof__schema_location);
        if (st)
            return st;
    } else {
        SLOT_FIELD(d, p, end, tagp, field, wt, &LOCATION, l);
    }
    FIELD_LOOP_END
    return PPROF_OK;
}

/* A non-empty string_table[0], quoted with anything unprintable shown as '?'. */
static pprof_status
string0_error(dec *d, const uint8_t *at, const pprof_string *s)
{
    char q[41];
    size_t n = s->len < sizeof(q) - 1 ? s->len : sizeof(q) - 1;
    for (size_t i = 0; i < n; i++)
        q[i] = s->data[i] >= 0x20 && s->data[i] < 0x7f && s->data[i] != '"' ? s->data[i] : '?';
    q[n] = 0;
    return fail(d, at, PPROF_E_INVALID,
                "string_table[0] must be '' but holds \"%s\"%s (rule W6-string-table-0): every "
                "field meaning \"no string\" would read it",
                q, s->len > n ? "..." : "");
}

/* Enters the entity a top-level message or string field opens: the path becomes "name[idx]"
 * ("period_type", of which there is one, has no index) and field names are the entity's.
 * Called with a constant field where it is hot, so the switch and the schema loads fold. */
HOT void
enter(dec *d, uint32_t field)
{
    const pprof_profile *pr = d->p;
    size_t idx;
    switch (field) {
    case PPROF__F_profile_sample_type: idx = pr->sample_types.len; break;
    case PPROF__F_profile_sample: idx = d->lazy ? pr->lazy.len / 2 : pr->samples.len; break;
    case PPROF__F_profile_mapping: idx = pr->mappings.len; break;
    case PPROF__F_profile_location: idx = pr->locations.len; break;
    case PPROF__F_profile_function: idx = pr->functions.len; break;
    case PPROF__F_profile_string_table: idx = pr->strings.len; break;
    default: idx = SIZE_MAX; break;
    }
    const pprof__schema *sub = pprof__schema_profile.sub[field];
    if (!sub) /* string_table */
        sub = &pprof__schema_profile;
    d->ent = pprof__schema_profile.field[field];
    d->idx = idx;
    d->field = 0;
    d->names = sub->field;
    d->n_names = sub->n;
}

/* The body [p, end) of a top-level message or string field: entered, read, and left. */
HOT pprof_status
entity(dec *d, uint32_t field, const uint8_t *tagp, const uint8_t *p, const uint8_t *end)
{
    pprof_profile *pr = d->p;
    const pprof_read_options *o = d->o;
    pprof_status st = PPROF_OK;
    void *e;
    switch (field) {
    case PPROF__F_profile_sample_type:
        enter(d, PPROF__F_profile_sample_type);
        e = new_entity(d, p, &pr->sample_types, sizeof(pprof_value_type), NULL, o->max_values, 0,
                       "sample types", &st);
        st = e ? slot_message(d, p, end, &VALUE_TYPE, e) : st;
        break;
    case PPROF__F_profile_sample:
        enter(d, PPROF__F_profile_sample);
        if (!d->lazy) {
            st = sample(d, p, end);
            break;
        }
        if (pr->lazy.len / 2 >= o->max_samples)
            return fail(d, p, PPROF_E_LIMIT, "more than %llu samples",
                        (unsigned long long)o->max_samples);
        if (!pprof__vec_grow(d->a, &pr->lazy, sizeof(uint64_t), pr->lazy.len + 2))
            return fail(d, p, PPROF_E_NOMEM, "out of memory");
        uint64_t *span = (uint64_t *)pr->lazy.data + pr->lazy.len;
        span[0] = (uint64_t)(p - d->base);
        span[1] = (uint64_t)(end - p);
        pr->lazy.len += 2;
        break;
    case PPROF__F_profile_mapping:
        enter(d, PPROF__F_profile_mapping);
        e = new_entity(d, tagp, &pr->mappings, sizeof(pprof_mapping), &pr->mapping_offs,
                       o->max_mappings, 0, "mappings", &st);
        st = e ? slot_message(d, p, end, &MAPPING, e) : st;
        break;
    case PPROF__F_profile_location:
        enter(d, PPROF__F_profile_location);
        e = new_entity(d, tagp, &pr->locations, sizeof(pprof__location), &pr->location_offs,
                       o->max_locations, 0, "locations", &st);
        st = e ? location(d, p, end, e) : st;
        break;
    case PPROF__F_profile_function:
        enter(d, PPROF__F_profile_function);
        e = new_entity(d, tagp, &pr->functions, sizeof(pprof_function), &pr->function_offs,
                       o->max_functions, 0, "functions", &st);
        st = e ? slot_message(d, p, end, &FUNCTION, e) : st;
        break;
    case PPROF__F_profile_string_table: {
        enter(d, PPROF__F_profile_string_table);
        pprof_string *s =
            push_entity(d, tagp, &pr->strings, sizeof(*s), NULL, o->max_strings, 0, "strings", &st);
        if (!s)
            return st;
        s->data = (const char *)p;
        s->len = (size_t)(end - p);
        pr->has_string_table = true;
        if (pr->strings.len == 1 && s->len && !(o->relax & PPROF_RELAX_STRING0))
            return string0_error(d, tagp, s);
        break;
    }
    default: /* period_type */
        enter(d, PPROF__F_profile_period_type);
        /* A repeated occurrence replaces the earlier one, as Go's reader and protobuf-c do
         * (the protobuf spec would merge them field by field). */
        memset(&pr->hdr.period_type, 0, sizeof(pr->hdr.period_type));
        st = slot_message(d, p, end, &VALUE_TYPE, &pr->hdr.period_type);
    }
    if (st)
        return st;
    /* Back at the top level; the field and sub-message are cleared by the next tag and by
     * sub_message(), so only the entity and the names are restored. */
    d->ent = NULL;
    NAMES(d, profile);
    return PPROF_OK;
}

/* The top-level fields entity() reads: message and string fields. */
enum {
    ENTITY_FIELDS = 1u << PPROF__F_profile_sample_type | 1u << PPROF__F_profile_sample |
                    1u << PPROF__F_profile_mapping | 1u << PPROF__F_profile_location |
                    1u << PPROF__F_profile_function | 1u << PPROF__F_profile_string_table |
                    1u << PPROF__F_profile_period_type
};

static pprof_status
profile(dec *d, const uint8_t *p, const uint8_t *end)
{
    pprof_profile *pr = d->p;
    const pprof_read_options *o = d->o;
    pprof_status st = PPROF_OK;
    uint32_t n_comment = 0;
    FIELD_LOOP(d, p, end, field, wt, tagp)
    /* A bit test rather than a switch: entity() dispatches once more, and two jump tables per
     * field cost more than the hand-written decoder's one. */
    if (field < 32 && (ENTITY_FIELDS >> field & 1)) {
        WANT(d, tagp, wt, PPROF_WT_LEN, field);
        const uint8_t *sub_end;
        if (!len_prefix(&p, end, &sub_end)) {
            enter(d, field); /* the path names the entity, as for an error inside it */
            return fail(d, tagp, PPROF_E_WIRE, "declared length exceeds the %zu bytes that remain",
                        (size_t)(end - p));
        }
        if ((st = entity(d, field, tagp, p, sub_end)))
            return st;
        p = sub_end;
    } else if (field == PPROF__F_profile_comment) {
        st = repeated_varint(d, &p, end, wt, tagp, &pr->comments, &n_comment, o->max_strings, 0,
                             "comments");
        if (st)
            return st;
    } else {
        /* Go's test: only a second profile's header sets time_nanos after a nonzero one */
        if (field == PPROF__F_profile_time_nanos && wt == PPROF_WT_VARINT && pr->hdr.time_nanos &&
            !(o->relax & PPROF_RELAX_CONCATENATED))
            return fail(d, tagp, PPROF_E_INVALID,
                        "concatenated profiles detected: a second time_nanos after a nonzero "
                        "one (rule W8-concatenated); expected one profile");
        SLOT_FIELD(d, p, end, tagp, field, wt, &HEADER, &pr->hdr);
    }
    FIELD_LOOP_END
    return PPROF_OK;
}

/* ---- pre-sizing
 * A cheap first pass counts the entities of each table, so the tables are allocated once at
 * their final size: no copying while growing, and no page touched twice. It trusts nothing: on
 * anything malformed it stops, counts are capped by the limits, a failed allocation is ignored,
 * and the decoding pass does every check as before (its errors stay exactly the same). */

typedef struct counts {
    size_t sample_types, samples, mappings, locations, functions, strings;
    size_t stack, values, labels, lines;
} counts;

/* Counts inside one sample or location; false on malformed framing. */
static bool
prescan_sub(const uint8_t *p, const uint8_t *end, const uint8_t *buf_end, bool is_sample, counts *c)
{
    while (p < end) {
        uint32_t field, wt;
        uint64_t v;
        if (!pprof__tag(&p, end, &field, &wt))
            return false;
        if (wt == PPROF_WT_LEN) {
            if (!pprof__varint(&p, end, &v) || v > (uint64_t)(end - p))
                return false;
            if (is_sample && field == PPROF__F_sample_location_id)
                c->stack += pprof__count_varint_ends(p, p + v, buf_end);
            else if (is_sample && field == PPROF__F_sample_value)
                c->values += pprof__count_varint_ends(p, p + v, buf_end);
            else if (is_sample && field == PPROF__F_sample_label)
                c->labels++;
            else if (!is_sample && field == PPROF__F_location_line)
                c->lines++;
            p += v;
        } else if (wt == PPROF_WT_VARINT) {
            if (!pprof__varint(&p, end, &v))
                return false;
            if (is_sample && field == PPROF__F_sample_location_id)
                c->stack++;
            else if (is_sample && field == PPROF__F_sample_value)
                c->values++;
        } else if (!pprof__skip_field(&p, end, wt)) {
            return false;
        }
    }
    return true;
}

static void
prescan(const uint8_t *p, const uint8_t *end, bool lazy, counts *c)
{
    memset(c, 0, sizeof(*c));
    while (p < end) {
        uint32_t field, wt;
        uint64_t v;
        if (!pprof__tag(&p, end, &field, &wt))
            return;
        if (wt != PPROF_WT_LEN) {
            if (!pprof__skip_field(&p, end, wt))
                return;
            continue;
        }
        if (!pprof__varint(&p, end, &v) || v > (uint64_t)(end - p))
            return;
        const uint8_t *sub_end = p + v;
        switch (field) {
        case PPROF__F_profile_sample_type: c->sample_types++; break;
        case PPROF__F_profile_sample:
            c->samples++;
            if (!lazy && !prescan_sub(p, sub_end, end, true, c)) /* lazy: not decoded now */
                return;
            break;
        case PPROF__F_profile_mapping: c->mappings++; break;
        case PPROF__F_profile_location:
            c->locations++;
            if (!prescan_sub(p, sub_end, end, false, c))
                return;
            break;
        case PPROF__F_profile_function: c->functions++; break;
        case PPROF__F_profile_string_table: c->strings++; break;
        default: break;
        }
        p = sub_end;
    }
}

/* A profile read to be drawn (stack_is_id32) is read once and freed whole: a table of 1.5 to 2
 * MiB gets 2 MiB, a block of its own in a huge page (arena.c), instead of hundreds of small
 * pages whose first touches cost more than decoding into them on virtual machines. At most a
 * quarter of such a block goes unused. */
static size_t
whole_page(const pprof_profile *p, size_t elem, size_t n)
{
    if (!p->stack_is_id32 || pprof__allocator_custom(&p->alloc) || n > SIZE_MAX / elem ||
        n * elem < PPROF__BIG_BLOCK / 4 * 3 || n * elem >= PPROF__BIG_BLOCK)
        return n;
    return (PPROF__BIG_BLOCK + elem - 1) / elem;
}

static void
reserve(const pprof_allocator *a, pprof__vec *v, size_t elem, size_t n, uint64_t limit)
{
    if (n > limit)
        n = (size_t)limit;
    if (n <= v->cap || n > SIZE_MAX / elem)
        return;
    void *data = pprof__realloc(a, v->data, n * elem);
    if (data) {
        v->data = data;
        v->cap = n;
    }
}

static void
presize(pprof_profile *p, const uint8_t *buf, size_t len, const pprof_read_options *o, bool lazy)
{
    counts c;
    prescan(buf, buf + len, lazy, &c);
    const pprof_allocator *a = &p->alloc;
    if (lazy) { /* the sample tables hold one batch at a time */
        reserve(a, &p->lazy, 2 * sizeof(uint64_t), c.samples, o->max_samples);
        c.samples = c.stack = c.values = c.labels = 0;
    }
    reserve(a, &p->sample_types, sizeof(pprof_value_type), c.sample_types, o->max_values);
    reserve(a, &p->samples, sizeof(pprof__sample), c.samples, o->max_samples);
    reserve(a, &p->sample_offs, sizeof(uint64_t), whole_page(p, 8, c.samples), o->max_samples);
    reserve(a, &p->stack, p->stack_is_id32 ? sizeof(uint32_t) : sizeof(uint64_t), c.stack,
            o->max_stack_entries);
    reserve(a, &p->values, sizeof(int64_t), c.values, o->max_values);
    reserve(a, &p->labels, sizeof(pprof_label), c.labels, o->max_labels);
    reserve(a, &p->mappings, sizeof(pprof_mapping), c.mappings, o->max_mappings);
    reserve(a, &p->mapping_offs, sizeof(uint64_t), c.mappings, o->max_mappings);
    reserve(a, &p->locations, sizeof(pprof__location),
            whole_page(p, sizeof(pprof__location), c.locations), o->max_locations);
    reserve(a, &p->location_offs, sizeof(uint64_t), whole_page(p, 8, c.locations),
            o->max_locations);
    reserve(a, &p->lines, sizeof(pprof_line), whole_page(p, sizeof(pprof_line), c.lines),
            o->max_lines);
    reserve(a, &p->functions, sizeof(pprof_function),
            whole_page(p, sizeof(pprof_function), c.functions), o->max_functions);
    reserve(a, &p->function_offs, sizeof(uint64_t), whole_page(p, 8, c.functions),
            o->max_functions);
    reserve(a, &p->strings, sizeof(pprof_string), whole_page(p, sizeof(pprof_string), c.strings),
            o->max_strings);
}

/* Room in a lazy batch's sample tables for what the batch can hold, so that decoding it grows
 * none of them (a grown table is copied and its pages touched twice): a location id takes at
 * least a byte of the batch (room for one per two bytes: a guess, grown past if need be), a
 * valid sample has one value per sample type, and for labels a guess of one per 32 bytes. Bounds
 * and guesses, not counts: counting would cost a pass over the batch, and the room past what is
 * used is never touched. Each table is reused from batch to batch. */
#define PRESIZE_BATCH_BYTES ((size_t)4 << 20)

static void
presize_batch(pprof_profile *p, const uint64_t *span, size_t first, size_t n,
              const pprof_read_options *o)
{
    size_t bytes = 0;
    for (size_t i = first; i < first + n; i++)
        bytes += (size_t)span[2 * i + 1];
    /* small batches: growing costs little, and room past the end of a table would be a huge
     * page of resident memory for each, and a merge reads many small inputs */
    if (bytes < PRESIZE_BATCH_BYTES)
        return;
    const pprof_allocator *a = &p->alloc;
    size_t types = p->sample_types.len ? p->sample_types.len : 1;
    reserve(a, &p->samples, sizeof(pprof__sample), n, o->max_samples);
    reserve(a, &p->sample_offs, sizeof(uint64_t), n, o->max_samples);
    reserve(a, &p->stack, sizeof(uint64_t), bytes / 2, o->max_stack_entries);
    if (n <= SIZE_MAX / types)
        reserve(a, &p->values, sizeof(int64_t), n * types, o->max_values);
    reserve(a, &p->labels, sizeof(pprof_label), bytes / 32, o->max_labels);
}

static pprof_status
decode(pprof_profile *p, uint8_t *buf, size_t len, const pprof_read_options *o, bool lazy,
       pprof_error *err)
{
    p->buf = buf;
    p->buf_len = len;
    p->relax = o->relax;
    if (len == 0)
        return pprof__error(err, PPROF_E_EMPTY, 0, "", "empty input: no profile data");
    p->stack_is_id32 = p->stack_is_id32 && !lazy; /* stays set while every id fits */
    presize(p, buf, len, o, lazy);
    dec d = {.p = p,
             .a = &p->alloc,
             .base = buf,
             .buf_end = buf + len,
             .o = o,
             .err = err,
             .lazy = lazy,
             .narrow = p->stack_is_id32};
    LEAVE(&d);
    pprof_status st = profile(&d, buf, buf + len);
    uint64_t bad;
    /* Broken within its first few fields: most likely not a profile at all (a text file, other
     * binary data), which says more than the first wire error met */
    if (st == PPROF_E_WIRE && err && !pprof__sniff(buf, len, true, &bad)) {
        char was[sizeof(err->message)];
        memcpy(was, err->message, sizeof(was));
        snprintf(err->message, sizeof(err->message),
                 "not a pprof profile (no protobuf structure at byte %llu): %.160s",
                 (unsigned long long)err->offset, was);
        err->path[0] = 0;
    }
    return st;
}

pprof_status
pprof__decode(pprof_profile *p, uint8_t *buf, size_t len, const pprof_read_options *o,
              pprof_error *err)
{
    return decode(p, buf, len, o, false, err);
}

pprof_status
pprof__decode_lazy(pprof_profile *p, uint8_t *buf, size_t len, const pprof_read_options *o,
                   pprof_error *err)
{
    p->lazy_opts = *o;
    return decode(p, buf, len, o, true, err);
}

pprof_status
pprof__decode_samples(pprof_profile *p, size_t first, size_t n, pprof_error *err)
{
    size_t total = p->lazy.len / 2;
    if (first > total)
        first = total;
    if (n > total - first)
        n = total - first;
    if (p->lazy_n && p->lazy_first == first && p->lazy_n == n)
        return PPROF_OK;
    if (p->lazy_n) { /* the batch there counts as decoded before this one */
        p->lazy_stack += p->stack.len;
        p->lazy_values += p->values.len;
        p->lazy_labels += p->labels.len;
    }
    if (first == 0)
        p->lazy_stack = p->lazy_values = p->lazy_labels = 0;
    p->lazy_n = 0;
    p->samples.len = p->sample_offs.len = p->stack.len = p->values.len = p->labels.len = 0;
    /* The limits are totals over the profile, as a full decode applies them: sample() counts
     * p->lazy_* (the earlier batches) in. */
    const pprof_read_options o = p->lazy_opts;
    dec d = {.p = p,
             .a = &p->alloc,
             .base = p->buf,
             .buf_end = p->buf + p->buf_len,
             .o = &o,
             .err = err};
    const uint64_t *span = p->lazy.data;
    presize_batch(p, span, first, n, &o);
    for (size_t i = first; i < first + n; i++) {
        const uint8_t *body = p->buf + span[2 * i];
        ENTER(&d, "sample", i, sample);
        pprof_status st = sample(&d, body, body + span[2 * i + 1]);
        if (st)
            return st;
    }
    p->lazy_first = first;
    p->lazy_n = n;
    return PPROF_OK;
}

/* ---- decoding the next batch ahead
 * The shadow is a copy of p's header that shares p's buffer and sample spans (read only, and
 * p's owner changes neither while a batch is in use) but has sample tables of its own, which
 * pprof__decode_samples fills as it would p's; taking the batch swaps the tables, so each side
 * keeps reusing the memory of the other's last batch. */

static void
ahead_run(void *arg)
{
    pprof__decode_ahead *a = arg;
    a->st = pprof__decode_samples(&a->shadow, a->first, a->n, &a->err);
}

void
pprof__decode_ahead_init(pprof__decode_ahead *a)
{
    memset(a, 0, sizeof(*a));
}

enum { N_SAMPLE_TABLES = 5 };

/* The tables pprof__decode_samples fills. */
static void
sample_tables(pprof_profile *p, pprof__vec *v[N_SAMPLE_TABLES])
{
    v[0] = &p->samples, v[1] = &p->sample_offs, v[2] = &p->stack, v[3] = &p->values;
    v[4] = &p->labels;
}

static void
swap_tables(pprof_profile *x, pprof_profile *y)
{
    pprof__vec *vx[N_SAMPLE_TABLES], *vy[N_SAMPLE_TABLES];
    sample_tables(x, vx);
    sample_tables(y, vy);
    for (size_t i = 0; i < N_SAMPLE_TABLES; i++) {
        pprof__vec t = *vx[i];
        *vx[i] = *vy[i];
        *vy[i] = t;
    }
}

bool
pprof__decode_ahead_start(pprof__decode_ahead *a, pprof_profile *p, pprof__pool *pool, size_t first,
                          size_t n)
{
    if (a->started || !p->lazy_n || first != p->lazy_first + p->lazy_n)
        return false;
    pprof_profile *s = &a->shadow;
    s->alloc = p->alloc;
    s->buf = p->buf;
    s->buf_len = p->buf_len;
    s->lazy = p->lazy;
    s->lazy_opts = p->lazy_opts;
    /* as pprof__decode_samples counts the batch in p before decoding the next */
    s->lazy_stack = p->lazy_stack + p->stack.len;
    s->lazy_values = p->lazy_values + p->values.len;
    s->lazy_labels = p->lazy_labels + p->labels.len;
    s->lazy_first = first;
    s->lazy_n = 0;
    a->first = first;
    a->n = n;
    a->st = PPROF_OK;
    a->job = (pprof__job){.fn = ahead_run, .arg = a, .name = "pprof-decode"};
    a->started = pprof__pool_start(pool, &a->job);
    return a->started;
}

pprof_status
pprof__decode_ahead_take(pprof__decode_ahead *a, pprof_profile *p, pprof_error *err)
{
    if (!a->started)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no batch decoded ahead");
    pprof__pool_wait(&a->job);
    a->started = false;
    swap_tables(p, &a->shadow);
    p->lazy_stack = a->shadow.lazy_stack;
    p->lazy_values = a->shadow.lazy_values;
    p->lazy_labels = a->shadow.lazy_labels;
    p->lazy_first = a->shadow.lazy_first;
    p->lazy_n = a->shadow.lazy_n;
    if (a->st && err)
        *err = a->err;
    return a->st;
}

void
pprof__decode_ahead_free(pprof__decode_ahead *a)
{
    if (a->started)
        pprof__pool_wait(&a->job);
    a->started = false;
    pprof__vec *vs[N_SAMPLE_TABLES];
    sample_tables(&a->shadow, vs);
    for (size_t i = 0; i < N_SAMPLE_TABLES; i++) {
        pprof__free(&a->shadow.alloc, vs[i]->data);
        memset(vs[i], 0, sizeof(*vs[i]));
    }
}
