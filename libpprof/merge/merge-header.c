/* Sample types (exact or intersected) and the header fields of each input, combined with
 * rules that do not depend on the order of the inputs. */
#include "merge-private.h"

static void
format_types(const pprof_merger *m, const pprof_value_type *t, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        const pprof_string *a = mstr(m, (uint32_t)t[i].type), *b = mstr(m, (uint32_t)t[i].unit);
        int w = snprintf(buf + len, cap - len, "%s%.*s/%.*s", i ? ", " : "",
                         (int)(a->len > 40 ? 40 : a->len), a->data,
                         (int)(b->len > 40 ? 40 : b->len), b->data);
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= cap)
            len = cap - 1;
    }
}

static int
type_cmp(const pprof_merger *m, const pprof_value_type *a, const pprof_value_type *b)
{
    int c = sid_cmp(m, (uint32_t)a->type, (uint32_t)b->type);
    return c ? c : sid_cmp(m, (uint32_t)a->unit, (uint32_t)b->unit);
}

/* Replaces the merged type list by keep (indices of current columns, in new order). */
static pprof_status
reshape_types(pprof_merger *m, const uint32_t *keep, size_t n_new, pprof_error *err)
{
    pprof_status st = pprof__merge_s2_settle(m, err); /* the values and carries are stage 2's */
    if (st)
        return st;
    size_t n_old = m->n_types, ns = m->samples.len;
    pprof_value_type *nt = pprof__malloc(&m->a, (n_new + 1) * sizeof(*nt));
    if (!nt)
        return nomem(m, err);
    for (size_t i = 0; i < n_new; i++)
        nt[i] = PPROF__AT(m->types, pprof_value_type, keep[i]);
    memcpy(m->types.data, nt, n_new * sizeof(*nt));
    m->types.len = n_new;
    pprof__free(&m->a, nt);
    unit_clash *nb = pprof__malloc(&m->a, (n_new + 1) * sizeof(*nb));
    if (!nb)
        return nomem(m, err);
    for (size_t i = 0; i < n_new; i++)
        nb[i] = PPROF__AT(m->type_bad, unit_clash, keep[i]);
    memcpy(m->type_bad.data, nb, n_new * sizeof(*nb));
    m->type_bad.len = n_new;
    pprof__free(&m->a, nb);
    int64_t *v = m->values.data;
    int64_t row[64];
    int64_t *tmp = n_old <= 64 ? row : pprof__malloc(&m->a, n_old * sizeof(int64_t));
    if (!tmp)
        return nomem(m, err);
    for (size_t s = 0; s < ns; s++) { /* rows only shrink, so in-place forward copy is safe */
        memcpy(tmp, v + s * n_old, n_old * sizeof(int64_t));
        for (size_t i = 0; i < n_new; i++)
            v[s * n_new + i] = tmp[keep[i]];
    }
    if (tmp != row)
        pprof__free(&m->a, tmp);
    m->values.len = ns * n_new;
    if (!pprof__merge_carry_reshape(m, keep, n_old, n_new))
        return nomem(m, err);
    m->n_types = n_new;
    return PPROF_OK;
}

pprof_status
pprof__merge_absorb_types(in_ctx *c, const uint32_t *in_types /* pairs */, size_t n_in)
{
    pprof_merger *m = c->m;
    pprof_error *err = c->err;
    if (m->n_inputs == 0) {
        if (!pprof__vec_grow(&m->a, &m->types, sizeof(pprof_value_type), n_in + 1) ||
            !pprof__vec_grow(&m->a, &m->type_bad, sizeof(unit_clash), n_in + 1))
            return nomem(m, err);
        for (size_t i = 0; i < n_in; i++) {
            pprof_value_type vt = {in_types[2 * i], in_types[2 * i + 1]};
            PPROF__AT(m->types, pprof_value_type, i) = vt;
            unit_clash none = {0, PPROF_NONE};
            PPROF__AT(m->type_bad, unit_clash, i) = none;
        }
        m->type_bad.len = n_in;
        m->types.len = m->n_types = n_in;
        m->first_input = c->input;
        for (size_t i = 0; i < n_in; i++)
            c->col_of[i] = (int32_t)i;
        return PPROF_OK;
    }
    const pprof_value_type *cur = m->types.data;
    bool same = n_in == m->n_types;
    for (size_t i = 0; same && i < n_in; i++)
        same = cur[i].type == in_types[2 * i] && cur[i].unit == in_types[2 * i + 1];
    if (same) {
        for (size_t i = 0; i < n_in; i++)
            c->col_of[i] = (int32_t)i;
        return PPROF_OK;
    }
    if (!m->o.intersect_types) {
        char a[200], b[200];
        pprof_value_type tmp[16];
        size_t k = n_in < 16 ? n_in : 16;
        for (size_t i = 0; i < k; i++) {
            tmp[i].type = in_types[2 * i];
            tmp[i].unit = in_types[2 * i + 1];
        }
        format_types(m, cur, m->n_types, a, sizeof(a));
        format_types(m, tmp, k, b, sizeof(b));
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "incompatible sample types: %s has [%s] but %s has [%s]", c->name, b,
                            input_name(m, m->first_input), a);
    }
    /* Intersect by type name; the result is sorted by content once inputs disagree, so it does
     * not depend on which input came first. */
    uint32_t keep[256];
    size_t n_keep = 0;
    for (size_t i = 0; i < m->n_types && n_keep < 256; i++) {
        /* A type name listed twice is kept once, or the result would depend on whether the
         * list with the repeat came first. */
        bool dup = false;
        for (size_t k = 0; k < n_keep && !dup; k++)
            dup = cur[keep[k]].type == cur[i].type;
        for (size_t j = 0; j < n_in && !dup; j++) {
            if (cur[i].type != in_types[2 * j])
                continue;
            unit_clash *bad = &PPROF__AT(m->type_bad, unit_clash, i);
            if (cur[i].unit != in_types[2 * j + 1] && bad->input == PPROF_NONE) {
                bad->unit = in_types[2 * j + 1];
                bad->input = c->input;
            }
            keep[n_keep++] = (uint32_t)i;
            break;
        }
    }
    if (n_keep == 0) {
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "%s and %s have no sample type in common", c->name,
                            input_name(m, m->first_input));
    }
    for (size_t i = 1; i < n_keep; i++) { /* sort kept columns by (type, unit) content */
        uint32_t x = keep[i];
        size_t k = i;
        while (k > 0 && type_cmp(m, &cur[keep[k - 1]], &cur[x]) > 0) {
            keep[k] = keep[k - 1];
            k--;
        }
        keep[k] = x;
    }
    pprof_status st = reshape_types(m, keep, n_keep, err);
    if (st)
        return st;
    cur = m->types.data;
    for (size_t i = 0; i < m->n_types; i++)
        for (size_t j = 0; j < n_in; j++)
            if (cur[i].type == in_types[2 * j]) {
                c->col_of[i] = (int32_t)j;
                break;
            }
    return PPROF_OK;
}

pprof_status
pprof__merge_absorb_header(in_ctx *c)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof_header h = pprof_profile_header(p);
    pprof_status st;
    uint32_t pt = 0, pu = 0, drop = 0, keep = 0, dst = 0,
             doc = 0; /* set by pprof__merge_map_str; gcc -O3 cannot tell */
    if ((st = pprof__merge_map_str(c, h.period_type.type, &pt, "period_type.type", 0, 0)) ||
        (st = pprof__merge_map_str(c, h.period_type.unit, &pu, "period_type.unit", 0, 0)) ||
        (st = pprof__merge_map_str(c, h.drop_frames, &drop, "drop_frames", 0, 0)) ||
        (st = pprof__merge_map_str(c, h.keep_frames, &keep, "keep_frames", 0, 0)) ||
        (st = pprof__merge_map_str(c, h.default_sample_type, &dst, "default_sample_type", 0, 0)) ||
        (st = pprof__merge_map_str(c, h.doc_url, &doc, "doc_url", 0, 0)))
        return st;
    if (m->n_inputs == 0) {
        m->period_type = pt;
        m->period_unit = pu;
    } else if (m->period_type != pt || m->period_unit != pu) {
        const pprof_string *a = mstr(m, pt), *b = mstr(m, pu), *x = mstr(m, m->period_type),
                           *y = mstr(m, m->period_unit);
        m->failed = PPROF_E_INCOMPATIBLE;
        return pprof__error(c->err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "period_type",
                            "incompatible period types: %s has %.*s/%.*s but %s has %.*s/%.*s",
                            c->name, (int)a->len, a->data, (int)b->len, b->data,
                            input_name(m, m->first_input), (int)x->len, x->data, (int)y->len,
                            y->data);
    }
    if (h.period > m->period)
        m->period = h.period;
    if (__builtin_add_overflow(m->duration, h.duration_nanos, &m->duration)) {
        if (m->duration_carry == 0)
            m->duration_input = c->input;
        m->duration_carry += h.duration_nanos > 0 ? 1 : -1;
    }
    if (h.time_nanos != 0 && (m->time == 0 || h.time_nanos < m->time))
        m->time = h.time_nanos;
    m->drop_frames = min_nonempty(m, m->drop_frames, drop);
    m->keep_frames = min_nonempty(m, m->keep_frames, keep);
    m->default_sample_type = min_nonempty(m, m->default_sample_type, dst);
    m->doc_url = min_nonempty(m, m->doc_url, doc);
    for (size_t i = 0; i < h.n_comment; i++) {
        uint32_t cs;
        if ((st = pprof__merge_map_str(c, h.comment[i], &cs, "comment[%zu]", i, 0)))
            return st;
        bool seen = false;
        for (size_t j = 0; j < m->comments.len && !seen; j++)
            seen = PPROF__AT(m->comments, uint32_t, j) == cs;
        if (!seen) {
            uint32_t *d = pprof__vec_push(&m->a, &m->comments, sizeof(uint32_t));
            if (!d)
                return nomem(m, c->err);
            *d = cs;
        }
    }
    return PPROF_OK;
}

/* The checks Go's CheckValid makes on what the merge follows: ids are non-zero and unique. */
pprof_status
pprof__merge_check_ids(in_ctx *c)
{
    const pprof_profile *p = c->p;
    char path[128];
    struct {
        const pprof__idmap *idx;
        const uint8_t *base;
        size_t stride, n;
        const char *name;
    } t[3] = {
        {&p->map_idx, p->mappings.data, sizeof(pprof_mapping), p->mappings.len, "mapping"},
        {&p->loc_idx, p->locations.data, sizeof(pprof__location), p->locations.len, "location"},
        {&p->fn_idx, p->functions.data, sizeof(pprof_function), p->functions.len, "function"},
    };
    for (int k = 0; k < 3; k++) {
        if (t[k].idx->dense)
            continue;
        for (size_t i = 0; i < t[k].n; i++) {
            uint64_t id = *(const uint64_t *)(t[k].base + i * t[k].stride);
            if (id == 0 || pprof__idmap_get(t[k].idx, id) != i) {
                pprof__path(path, "%s[%zu].id", t[k].name, i);
                return id == 0 ? pprof__merge_bad(c, path, "id 0 is reserved")
                               : pprof__merge_bad(c, path, "another %s has id %llu", t[k].name,
                                                  (unsigned long long)id);
            }
        }
    }
    if ((p->samples.len || p->lazy.len) && !p->sample_types.len)
        return pprof__merge_bad(c, "sample_type", "samples but no sample types");
    return PPROF_OK;
}
