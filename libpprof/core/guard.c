/* The sniff and the decompression guard (guard-private.h). */
#include <stdio.h>

#include "guard-private.h"
#include "hash-private.h"
#include "schema-tables.h"
#include "wire-private.h"

/* Top-level fields, their names and wire types come from schema.def (schema-tables.h). */
enum { N_FIELDS = sizeof(pprof__names_profile) / sizeof(pprof__names_profile[0]) };
_Static_assert(N_FIELDS <= sizeof(((pprof__guard *)0)->n) / sizeof(uint64_t),
               "guard.n counts every top-level field of schema.def");

/* Whether a field's wire type is the one its value takes (unknown fields take any). */
static bool
wire_type_ok(uint32_t field, uint32_t wt)
{
    if (field >= N_FIELDS)
        return true;
    return pprof__wire_profile[field] >> (wt & 7) & 1;
}

/* One top-level field at *pp: 1 read (payload in [*pl, *pl_end) for length-delimited ones, v
 * for varints), 0 when it runs past len (a prefix), -1 malformed. */
static int
next_field(const uint8_t **pp, const uint8_t *end, uint32_t *field, uint32_t *wt,
           const uint8_t **pl, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (!pprof__tag(&p, end, field, wt)) { /* cut short (0), or no tag at all (-1) */
        const uint8_t *q = *pp;
        while (q < end && (*q & 0x80) && q - *pp < 5)
            q++;
        return q == end && end - *pp < 5 ? 0 : -1;
    }
    switch (*wt) {
    case PPROF_WT_VARINT:
        if (!pprof__varint(&p, end, v))
            return end - p < 10 ? 0 : -1;
        break;
    case PPROF_WT_I64:
    case PPROF_WT_I32: {
        size_t n = *wt == PPROF_WT_I64 ? 8 : 4;
        if ((size_t)(end - p) < n)
            return 0;
        p += n;
        break;
    }
    case PPROF_WT_LEN:
        if (!pprof__varint(&p, end, v))
            return end - p < 10 ? 0 : -1;
        if (*v > (uint64_t)(end - p))
            return 0;
        *pl = p;
        p += *v;
        break;
    default: return -1;
    }
    *pp = p;
    return 1;
}

/* A field cut at the end of a prefix is no verdict yet; malformed framing at the end of a whole
 * input is. The tag must still be readable and of a sane type for the cut to count as a cut. */
static bool
cut_is_plausible(const uint8_t *p, const uint8_t *end)
{
    uint32_t field, wt;
    const uint8_t *q = p;
    if (!pprof__tag(&q, end, &field, &wt))
        return end - p < 5; /* a tag cut short */
    if (wt == 3 || wt == 4 || wt > 5)
        return false;
    return wire_type_ok(field, wt);
}

/* Text (printable ASCII, whitespace, UTF-8 bytes) in the first bytes: a profile's first bytes
 * always hold a small length or a tag below 0x20, while any text breaks the structure. */
static bool
looks_like_text(const uint8_t *p, size_t len)
{
    size_t n = len < 32 ? len : 32;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x7f)
            continue;
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        /* a UTF-8 sequence: a lead byte C2-F4 and its continuation bytes (one cut at n is fine) */
        size_t k = c >= 0xc2 && c <= 0xdf   ? 1
                   : c >= 0xe0 && c <= 0xef ? 2
                   : c >= 0xf0 && c <= 0xf4 ? 3
                                            : 0;
        if (!k)
            return false;
        for (; k && i + 1 < n; k--)
            if ((p[++i] & 0xc0) != 0x80)
                return false;
    }
    return n > 0;
}

bool
pprof__sniff(const uint8_t *buf, size_t len, bool complete, uint64_t *bad)
{
    const uint8_t *p = buf, *end = buf + len;
    bool text = looks_like_text(buf, len);
    for (unsigned i = 0; i < PPROF__SNIFF_FIELDS && p < end; i++) {
        const uint8_t *tagp = p, *pl = NULL;
        uint32_t field, wt;
        uint64_t v = 0;
        int r = next_field(&p, end, &field, &wt, &pl, &v);
        if (r == 0 && !complete && cut_is_plausible(tagp, end))
            return true;
        bool known_ok = wire_type_ok(field, wt);
        if (r != 1 || !known_ok) {
            /* Binary data is judged by its first tag only (a damaged profile keeps its own
             * error); text by its first few fields. */
            const uint8_t *q = tagp;
            bool impossible = !pprof__tag(&q, end, &field, &wt) || wt == 3 || wt == 4 || wt > 5;
            if (!text && !(i == 0 && impossible))
                return true;
            *bad = (uint64_t)(tagp - buf);
            return false;
        }
    }
    return true;
}

pprof_status
pprof__not_a_profile(pprof_error *err, uint64_t at)
{
    return pprof__error(err, PPROF_E_WIRE, at, "",
                        "not a pprof profile (no protobuf structure at byte %llu)",
                        (unsigned long long)at);
}

void
pprof__guard_init(pprof__guard *g, const pprof_read_options *o, uint64_t cap)
{
    memset(g, 0, sizeof(*g));
    g->o = o;
    g->cap = cap;
}

void
pprof__guard_free(pprof__guard *g)
{
    pprof__htab_free(&g->seen, &g->o->allocator);
}

/* Whether the field's bytes were seen before (1, and remembers them; 0 when not), or -1 when the
 * set cannot grow: a stream that repeats its strings or entities is a bomb's, real writers write
 * each once, and the set's memory is counted with the tables. */
static int
seen_before(pprof__guard *g, const uint8_t *p, size_t n)
{
    uint64_t h = pprof__mix64(pprof__hash_bytes(0, p, n));
    uint32_t tag = (uint32_t)(h >> 33); /* with the low 32 bits the table keeps: 63 of 64 */
    size_t before = g->seen.slot ? g->seen.mask + 1 : 0;
    if (pprof__htab_full(&g->seen) && !pprof__htab_reserve(&g->seen, &g->o->allocator, 1))
        return -1;
    g->model += (g->seen.mask + 1 - before) * sizeof(uint64_t);
    pprof__htab_probe probe;
    uint32_t v;
    PPROF__HTAB_FIND(&g->seen, h, probe, v, v == tag);
    if (v != PPROF_NONE)
        return 1;
    pprof__htab_insert_at(&g->seen, &probe, tag);
    return 0;
}

/* Counts inside a sample (is_sample) or a location; framing errors are left to the decoder. */
static void
count_inner(pprof__guard *g, const uint8_t *p, const uint8_t *end, bool is_sample)
{
    while (p < end) {
        uint32_t field, wt;
        const uint8_t *pl = NULL;
        uint64_t v = 0;
        if (next_field(&p, end, &field, &wt, &pl, &v) != 1)
            return;
        if (is_sample && (field == PPROF__F_sample_location_id || field == PPROF__F_sample_value)) {
            uint64_t n = wt == PPROF_WT_LEN ? pprof__count_varint_ends(pl, pl + v, pl + v) : 1;
            *(field == PPROF__F_sample_location_id ? &g->stack : &g->values) += n;
            g->model += 8 * n;
        } else if (is_sample && field == PPROF__F_sample_label && wt == PPROF_WT_LEN) {
            g->labels++;
            g->model += sizeof(pprof_label);
        } else if (!is_sample && field == PPROF__F_location_line && wt == PPROF_WT_LEN) {
            g->lines++;
            g->model += sizeof(pprof_line);
        }
    }
}

static pprof_status
over_limit(pprof_error *err, uint64_t at, const char *path, uint64_t limit, const char *what)
{
    return pprof__error(err, PPROF_E_LIMIT, at, path, "more than %llu %s",
                        (unsigned long long)limit, what);
}

/* The limits of the decoder, checked on the counts so far. */
static pprof_status
check_limits(const pprof__guard *g, uint64_t at, uint32_t field, pprof_error *err)
{
    const pprof_read_options *o = g->o;
    const char *path = field < N_FIELDS ? pprof__names_profile[field] : "";
    if (g->n[PPROF__F_profile_sample_type] > o->max_values)
        return over_limit(err, at, path, o->max_values, "sample types");
    if (g->n[PPROF__F_profile_sample] > o->max_samples)
        return over_limit(err, at, path, o->max_samples, "samples");
    if (g->n[PPROF__F_profile_mapping] > o->max_mappings)
        return over_limit(err, at, path, o->max_mappings, "mappings");
    if (g->n[PPROF__F_profile_location] > o->max_locations)
        return over_limit(err, at, path, o->max_locations, "locations");
    if (g->n[PPROF__F_profile_function] > o->max_functions)
        return over_limit(err, at, path, o->max_functions, "functions");
    if (g->n[PPROF__F_profile_string_table] > o->max_strings)
        return over_limit(err, at, path, o->max_strings, "strings");
    if (g->n[PPROF__F_profile_comment] > o->max_strings)
        return over_limit(err, at, path, o->max_strings, "comments");
    if (g->lines > o->max_lines)
        return over_limit(err, at, path, o->max_lines, "lines");
    if (g->labels > o->max_labels)
        return over_limit(err, at, path, o->max_labels, "labels");
    if (g->stack > o->max_stack_entries)
        return over_limit(err, at, path, o->max_stack_entries, "stack entries");
    if (g->values > o->max_values)
        return over_limit(err, at, path, o->max_values, "sample values");
    return PPROF_OK;
}

/* What one complete top-level field adds; an error when the decoder is bound to refuse it. */
static pprof_status
take(pprof__guard *g, const uint8_t *buf, const uint8_t *tagp, const uint8_t *fend, uint32_t field,
     uint32_t wt, const uint8_t *pl, uint64_t v, pprof_error *err)
{
    uint64_t at = g->base + (uint64_t)(tagp - buf);
    bool known = field < N_FIELDS;
    if (known && !(pprof__wire_profile[field] >> (wt & 7) & 1))
        return pprof__error(err, PPROF_E_WIRE, at, pprof__names_profile[field],
                            "type mismatch: field %u has wire type %u", field, wt);
    uint64_t seen = known ? g->n[field]++ : g->n[0]++;
    int repeat = wt == PPROF_WT_LEN && field != PPROF__F_profile_sample && v
                     ? seen_before(g, tagp, (size_t)(fend - tagp))
                     : 0;
    if (repeat < 0) /* a guess left out would change the verdict: an allocation failing is NOMEM */
        return pprof__error(err, PPROF_E_NOMEM, at, "", "out of memory");
    if (repeat)
        g->model += PPROF__MODEL_PER_BYTE * (uint64_t)(fend - tagp);
    switch (known ? field : 0) {
    case PPROF__F_profile_sample_type: g->model += sizeof(pprof_value_type); break;
    case PPROF__F_profile_sample:
        g->model += sizeof(pprof__sample) + 8;
        count_inner(g, pl, pl + v, true);
        break;
    case PPROF__F_profile_mapping: g->model += sizeof(pprof_mapping) + 8; break;
    case PPROF__F_profile_location:
        g->model += sizeof(pprof__location) + 8;
        count_inner(g, pl, pl + v, false);
        break;
    case PPROF__F_profile_function: g->model += sizeof(pprof_function) + 8; break;
    case PPROF__F_profile_string_table:
        g->model += sizeof(pprof_string);
        if (seen == 0 && v && !(g->o->relax & PPROF_RELAX_STRING0))
            return pprof__error(err, PPROF_E_INVALID, at, "string_table[0]",
                                "string_table[0] must be '' (rule W6-string-table-0)");
        break;
    case PPROF__F_profile_comment:
        g->model += 8 * (wt == PPROF_WT_LEN ? pprof__count_varint_ends(pl, pl + v, pl + v) : 1);
        break;
    case PPROF__F_profile_time_nanos:
        if (g->time_nonzero && !(g->o->relax & PPROF_RELAX_CONCATENATED))
            return pprof__error(err, PPROF_E_INVALID, at, "time_nanos",
                                "concatenated profiles detected: a second time_nanos after a "
                                "nonzero one (rule W8-concatenated); expected one profile");
        g->time_nonzero = v != 0;
        /* fall through */
    default:
        /* Fields that leave nothing in the tables: a singular one repeated, or one the format
         * does not define. No writer repeats them, a bomb does: they are charged as the densest
         * tables are, so a stream of them is refused as early as the densest real content. */
        if (seen || !known)
            g->model += PPROF__MODEL_PER_BYTE * (uint64_t)(fend - tagp);
        break;
    }
    return check_limits(g, at, field, err);
}

pprof_status
pprof__guard_feed(pprof__guard *g, const uint8_t *buf, size_t len, bool final, pprof_error *err)
{
    const uint8_t *p = buf + g->at, *end = buf + len;
    while (p < end) {
        const uint8_t *tagp = p, *pl = NULL;
        uint32_t field, wt;
        uint64_t v = 0;
        int r = next_field(&p, end, &field, &wt, &pl, &v);
        if (r == 0 && !final && cut_is_plausible(tagp, end))
            break;
        if (r != 1) {
            g->at = (size_t)(tagp - buf);
            uint64_t fields = 0;
            for (int i = 0; i < N_FIELDS; i++)
                fields += g->n[i];
            uint64_t at = g->base + g->at;
            if (fields < PPROF__SNIFF_FIELDS)
                return pprof__not_a_profile(err, at);
            return pprof__error(err, PPROF_E_WIRE, at, "",
                                "malformed top-level field at byte %llu (truncated, a bad tag "
                                "or wire type, or a length past the end)",
                                (unsigned long long)at);
        }
        pprof_status st = take(g, buf, tagp, p, field, wt, pl, v, err);
        if (st)
            return st;
    }
    g->at = (size_t)(p - buf);
    if (g->base + len + g->model > g->cap)
        return pprof__error(
            err, PPROF_E_LIMIT, g->base + g->at, "",
            "decoding would take more than %llu bytes (%zu bytes of protobuf so far, %llu "
            "for its tables, a field repeated or unknown counted as the densest "
            "table; limits: %llu bytes, ratio %u:1); refusing a possible "
            "decompression bomb",
            (unsigned long long)g->cap, (size_t)(g->base + len), (unsigned long long)g->model,
            (unsigned long long)g->o->max_decompressed_bytes, g->o->max_ratio);
    return PPROF_OK;
}

void
pprof__guard_slide(pprof__guard *g, uint8_t *buf, size_t *len)
{
    memmove(buf, buf + g->at, *len - g->at);
    *len -= g->at;
    g->base += g->at;
    g->at = 0;
}
