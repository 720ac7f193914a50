/* The wire scan: W8, S18 and S19 need the serialized bytes (field order and repetition are
 * gone from the decoded model), so one pass over the tags against the schema of profile.proto. */
#include <stdio.h>

#include "check-private.h"
#include "schema-tables.h"
#include "wire-private.h"

/* ---------------------------------------------------------------- wire scan */

_Static_assert(PPROF__F_profile_doc_url < 16, "scan_msg counts fields in 16 slots");

typedef struct wscan {
    chk *k;
    const uint8_t *base;
    bool deep; /* into submessages: S18 and S19 are on (W8 is the profile's own field) */
} wscan;

/* The path of the message being scanned as a chain up to the profile, formatted only when a
 * finding needs it: millions of samples must not each pay for a snprintf. */
typedef struct spath {
    const struct spath *up;
    const char *name;
    size_t idx; /* SIZE_MAX: not indexed */
} spath;

static size_t
spath_fmt(const spath *sp, char *out, size_t cap)
{
    if (!sp || !sp->name)
        return 0;
    size_t n = spath_fmt(sp->up, out, cap);
    if (n >= cap)
        return n;
    int k = sp->idx == SIZE_MAX
                ? snprintf(out + n, cap - n, "%s%s", n ? "." : "", sp->name)
                : snprintf(out + n, cap - n, "%s%s[%zu]", n ? "." : "", sp->name, sp->idx);
    return k < 0 ? n : n + (size_t)k;
}

/* The common case for labels and lines, which are most of the messages: every field a known
 * varint seen once. True when the message has nothing to report; anything else goes to the
 * full scan, which finds and words the problem. */
static inline bool
leaf_clean(const pprof__schema *sc, const uint8_t *p, const uint8_t *end)
{
    uint32_t seen = 0;
    while (p < end) {
        uint8_t tag = *p++;
        uint32_t field = tag >> 3;
        if (tag >= 0x80 || (tag & 7) != 0 || field == 0 || field >= sc->n ||
            sc->kind[field] != PPROF__K_ONE || (seen & (1u << field)))
            return false;
        seen |= 1u << field;
        int k = 0; /* continuation bytes; the 10th byte may hold bit 63 only */
        for (; p < end && (*p & 0x80); p++)
            if (++k == 10)
                return false;
        if (p == end || (k == 9 && *p > PPROF__VARINT_LAST_MAX))
            return false;
        p++;
    }
    return true;
}

/* Samples are most of a profile's bytes: the same shortcut for a whole Sample, whose fields
 * are all repeated (location_id, value, label) so only unknown fields and the labels' own
 * fields can break a rule. */
static inline bool
sample_clean(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t n;
        switch (tag) {
        case PPROF__TAG(PPROF__F_sample_location_id, PPROF_WT_VARINT): /* unpacked */
        case PPROF__TAG(PPROF__F_sample_value, PPROF_WT_VARINT):
            if (!pprof__varint(&p, end, &n))
                return false;
            break;
        case PPROF__TAG(PPROF__F_sample_location_id, PPROF_WT_LEN): /* packed */
        case PPROF__TAG(PPROF__F_sample_value, PPROF_WT_LEN):
            if (!pprof__varint(&p, end, &n) || n > (uint64_t)(end - p))
                return false;
            p += n;
            break;
        case PPROF__TAG(PPROF__F_sample_label, PPROF_WT_LEN):
            if (!pprof__varint(&p, end, &n) || n > (uint64_t)(end - p) ||
                !leaf_clean(&pprof__schema_label, p, p + n))
                return false;
            p += n;
            break;
        default: return false;
        }
    }
    return true;
}

/* Decoding already succeeded, so the framing is known to be sound; the checks only guard
 * against surprises. */
static void
scan_msg(wscan *w, const pprof__schema *sc, const uint8_t *p, const uint8_t *end, const spath *at)
{
    uint32_t seen = 0;
    size_t counts[16]; /* by field number; profile.proto's largest is 15 */
    bool time_nonzero = false;
    if (sc->sub)
        memset(counts, 0, sizeof(counts)); /* leaf messages (labels, lines) are the many */
    while (p < end) {
        const uint8_t *tagp = p;
        uint32_t field, wt;
        uint64_t v = 0;
        if (!pprof__tag(&p, end, &field, &wt))
            return;
        const uint8_t *payload = p, *sub_end = NULL;
        switch (wt) {
        case PPROF_WT_VARINT:
            if (!pprof__varint(&p, end, &v))
                return;
            break;
        case PPROF_WT_I64:
            if (end - p < 8)
                return;
            p += 8;
            break;
        case PPROF_WT_I32:
            if (end - p < 4)
                return;
            p += 4;
            break;
        case PPROF_WT_LEN:
            if (!pprof__varint(&p, end, &v) || v > (uint64_t)(end - p))
                return;
            payload = p;
            p += v;
            sub_end = p;
            break;
        default: return;
        }
        uint8_t kind = field < sc->n ? sc->kind[field] : PPROF__K_UNKNOWN;
        if (kind == PPROF__K_UNKNOWN) {
            if (pprof__ck_take(&w->k->c, PPROF_RULE_S18_UNKNOWN_FIELD)) {
                char path[160];
                size_t n = spath_fmt(at, path, sizeof(path));
                if (n < sizeof(path))
                    snprintf(path + n, sizeof(path) - n, "%sfield %u", n ? "." : "", field);
                pprof__ck_put(&w->k->c, PPROF_RULE_S18_UNKNOWN_FIELD, (uint64_t)(tagp - w->base),
                              path,
                              "field number %u (wire type %u) is not defined in %s; expected "
                              "only fields of profile.proto (readers skip it and writers drop it)",
                              field, wt, sc == &pprof__schema_profile ? "Profile" : sc->name);
            }
            continue;
        }
        if (kind == PPROF__K_ONE || kind == PPROF__K_MSG_ONE) {
            bool again = seen & (1u << field);
            seen |= 1u << field;
            if (sc == &pprof__schema_profile && field == PPROF__F_profile_time_nanos) {
                if (again && time_nonzero)
                    FIND(&w->k->c, PPROF_RULE_W8_CONCATENATED, (uint64_t)(tagp - w->base),
                         P("time_nanos"),
                         "time_nanos appears again (now %lld) after a nonzero value: this looks "
                         "like concatenated profiles; expected one serialized profile",
                         (long long)v);
                else if (again)
                    FIND(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD, (uint64_t)(tagp - w->base),
                         P("time_nanos"),
                         "time_nanos appears more than once; expected it at most once");
                time_nonzero = v != 0;
                continue;
            }
            if (again && pprof__ck_take(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD)) {
                char path[160];
                size_t n = spath_fmt(at, path, sizeof(path));
                if (n < sizeof(path))
                    snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "", sc->field[field]);
                pprof__ck_put(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD, (uint64_t)(tagp - w->base),
                              path,
                              "non-repeated field %s appears more than once; the last value "
                              "wins, expected it at most once",
                              sc->field[field]);
            }
        }
        if ((kind == PPROF__K_MSG_ONE || kind == PPROF__K_MSG_MANY) && wt == PPROF_WT_LEN &&
            sc->sub && sc->sub[field] && w->deep) {
            size_t idx = counts[field]++;
            const pprof__schema *ss = sc->sub[field];
            if (ss->sub ? ss == &pprof__schema_sample && sample_clean(payload, sub_end)
                        : leaf_clean(ss, payload, sub_end))
                continue;
            spath sub = {at, sc->field[field], kind == PPROF__K_MSG_ONE ? SIZE_MAX : idx};
            scan_msg(w, ss, payload, sub_end, &sub);
        }
    }
}

/* W8, S18 and S19 need the wire bytes: one scan of tags, skipping every payload. */
void
pprof__check_wire(chk *k)
{
    const pprof_profile *p = k->p;
    if (!p->buf || !p->buf_len)
        return;
    bool deep = pprof__ck_on(&k->c, PPROF_RULE_S18_UNKNOWN_FIELD) ||
                pprof__ck_on(&k->c, PPROF_RULE_S19_REPEATED_FIELD);
    if (!deep && !pprof__ck_on(&k->c, PPROF_RULE_W8_CONCATENATED))
        return;
    wscan w = {k, p->buf, deep};
    scan_msg(&w, &pprof__schema_profile, p->buf, p->buf + p->buf_len, NULL);
}
