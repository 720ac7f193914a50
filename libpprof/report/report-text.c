/* The text reports: -traces (report.printTraces), -tags (report.printTags, through Go's
 * text/tabwriter) and -tree / -peek (report.printTree), and their JSON forms. */
#include <stdio.h>
#include <stdlib.h>

#include "report-graph-private.h"
#include "text-private.h"
#include "utf8-private.h"

static pprof_status
nomem(const pprof__rctx *c)
{
    return pprof__error(c->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static pprof_string
pstr(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

static bool
is_num_label(const pprof_label *l)
{
    return l->str == 0 && (l->num != 0 || l->num_unit != 0);
}

static bool
str_is(pprof_string s, const char *t)
{
    size_t n = strlen(t);
    return s.len == n && !memcmp(s.data, t, n);
}

/* ---- Profile.NumLabelUnits, over the profile before filters */

typedef struct num_unit {
    pprof_string key, unit;
} num_unit;

typedef struct num_units {
    num_unit *v;
    size_t n;
} num_units;

static pprof_status
num_units_build(const pprof__rctx *c, num_units *out)
{
    const pprof_profile *u = c->u;
    size_t cap = 0;
    out->v = NULL;
    out->n = 0;
    for (size_t i = 0; i < u->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(u->samples, pprof__sample, i);
        const pprof_label *l = (s->n_lab ? (const pprof_label *)u->labels.data + s->lab_off : NULL);
        for (uint32_t j = 0; j < s->n_lab; j++) {
            if (!is_num_label(&l[j]))
                continue;
            pprof_string k = pstr(u, l[j].key), un = pstr(u, l[j].num_unit);
            size_t x = 0;
            while (x < out->n &&
                   !(out->v[x].key.len == k.len && !memcmp(out->v[x].key.data, k.data, k.len)))
                x++;
            if (x == out->n) {
                if (out->n == cap) {
                    cap = cap ? 2 * cap : 8;
                    num_unit *nv = pprof__realloc(&c->a, out->v, cap * sizeof(num_unit));
                    if (!nv)
                        return nomem(c);
                    out->v = nv;
                }
                out->v[out->n++] = (num_unit){k, {"", 0}};
            }
            if (!out->v[x].unit.len && un.len)
                out->v[x].unit = un;
        }
    }
    for (size_t x = 0; x < out->n; x++)
        if (!out->v[x].unit.len)
            out->v[x].unit = str_is(out->v[x].key, "alignment") || str_is(out->v[x].key, "request")
                                 ? (pprof_string){"bytes", 5}
                                 : out->v[x].key;
    return PPROF_OK;
}

/* The unit of key, NUL-terminated into buf. */
static const char *
unit_of(const num_units *nu, pprof_string key, char *buf, size_t cap)
{
    pprof_string u = {"", 0};
    for (size_t x = 0; x < nu->n; x++)
        if (nu->v[x].key.len == key.len && !memcmp(nu->v[x].key.data, key.data, key.len))
            u = nu->v[x].unit;
    /* as snprintf "%.*s" (a unit may hold a NUL byte), without printf */
    size_t n = u.len;
    const char *z = n ? memchr(u.data, 0, n) : NULL;
    if (z)
        n = (size_t)(z - u.data);
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(buf, u.data, n);
    buf[n] = 0;
    return buf;
}

/* ---- report header lines */

static pprof_status
print_lines(pprof_buffer *out, const pprof__lines *l)
{
    size_t pos = 0;
    const char *s;
    pprof_status st = PPROF_OK;
    while (!st && (s = pprof__lines_next(l, &pos)))
        st = pprof__buffer_printf(out, "%s\n", s);
    return st;
}

static pprof_status
json_head(const pprof__rctx *c, pprof_buffer *b)
{
    pprof_status st = pprof__buffer_printf(b, "{\"sample_type\":");
    if (!st)
        st = pprof__json_string(b, c->type, strlen(c->type));
    if (!st)
        st = pprof__buffer_printf(b, ",\"unit\":");
    if (!st)
        st = pprof__json_string(b, c->unit, strlen(c->unit));
    if (!st)
        st = pprof__buffer_printf(b, ",\"total\":%" PRId64, c->total);
    return st;
}

/* ---- traces */

/* The decimal digits of v at the end of d[24]; returns their count. */
static size_t
i64_digits(int64_t v, char d[24])
{
    size_t i = 24;
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        d[--i] = (char)('0' + m % 10);
    while ((m /= 10) != 0);
    if (v < 0)
        d[--i] = '-';
    return 24 - i;
}

typedef struct lab_group {
    pprof_string key;
    size_t first, n; /* values: indices into the sample's labels */
} lab_group;

static int
cstr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The label lines of one sample: "%10s:  %s" per key (values joined by spaces), sorted; string
 * labels first, then numeric ones. */
static pprof_status
trace_labels(const pprof__rctx *c, const num_units *nu, const pprof__sample *s, bool numeric,
             pprof_buffer *tmp, pprof_buffer *out)
{
    const pprof_profile *p = c->p;
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    tmp->len = 0;
    size_t nkeys = 0;
    pprof_status st = PPROF_OK;
    /* keys in order of first appearance, each with its values in order */
    for (uint32_t j = 0; j < s->n_lab && !st; j++) {
        bool want = numeric ? is_num_label(&l[j]) : l[j].str != 0;
        if (!want)
            continue;
        pprof_string k = pstr(p, l[j].key);
        bool seen = false;
        for (uint32_t q = 0; q < j && !seen; q++)
            seen = (numeric ? is_num_label(&l[q]) : l[q].str != 0) &&
                   pstr(p, l[q].key).len == k.len && !memcmp(pstr(p, l[q].key).data, k.data, k.len);
        if (seen)
            continue;
        char unit[128];
        if (numeric)
            unit_of(nu, k, unit, sizeof(unit));
        /* "%10s:  " of the key, without printf (once per label of every trace) */
        static const char spaces[] = "          ";
        size_t pad = k.len < 10 ? 10 - k.len : 0;
        st = pprof__buffer_append(tmp, spaces, pad);
        if (!st)
            st = pprof__text_escape(tmp, k.data, k.len);
        if (!st)
            st = pprof__buffer_append(tmp, ":  ", 3);
        bool first = true;
        for (uint32_t q = j; q < s->n_lab && !st; q++) {
            if (!(numeric ? is_num_label(&l[q]) : l[q].str != 0))
                continue;
            pprof_string kq = pstr(p, l[q].key);
            if (kq.len != k.len || memcmp(kq.data, k.data, k.len))
                continue;
            if (!first)
                st = pprof__buffer_append(tmp, " ", 1);
            first = false;
            if (st)
                break;
            if (numeric && !unit[0] && l[q].num > -((int64_t)1 << 53) &&
                l[q].num < ((int64_t)1 << 53)) {
                /* no unit: measurement.ScaledLabel is the number itself (Go formats it as a
                 * float64, exact below 2^53) */
                char d[24];
                size_t dn = i64_digits(l[q].num, d);
                st = pprof__buffer_append(tmp, d + sizeof(d) - dn, dn);
            } else if (numeric) {
                char v[96];
                pprof__scaled_label(v, sizeof(v), l[q].num, unit, "auto");
                st = pprof__buffer_append(tmp, v, strlen(v));
            } else {
                pprof_string v = pstr(p, l[q].str);
                st = pprof__text_escape(tmp, v.data, v.len);
            }
        }
        if (!st)
            st = pprof__buffer_append(tmp, "\n", 2); /* newline and NUL */
        nkeys++;
    }
    if (st || !nkeys)
        return st;
    if (nkeys == 1) /* the common case: one line, tmp less its NUL */
        return pprof__buffer_append(out, tmp->data, tmp->len - 1);
    char *few[8];
    char **v = nkeys <= 8 ? few : pprof__malloc(&c->a, nkeys * sizeof(char *));
    if (!v)
        return PPROF_E_NOMEM;
    size_t pos = 0;
    for (size_t i = 0; i < nkeys; i++) {
        v[i] = (char *)tmp->data + pos;
        pos += strlen(v[i]) + 1;
    }
    qsort(v, nkeys, sizeof(char *), cstr_cmp);
    for (size_t i = 0; i < nkeys && !st; i++)
        st = pprof__buffer_append(out, v[i], strlen(v[i]));
    if (v != few)
        pprof__free(&c->a, v);
    return st;
}

static pprof_status
json_labels(const pprof__rctx *c, const num_units *nu, const pprof__sample *s, pprof_buffer *b)
{
    const pprof_profile *p = c->p;
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    pprof_status st = pprof__buffer_printf(b, ",\"labels\":[");
    bool first = true;
    for (uint32_t j = 0; j < s->n_lab && !st; j++) {
        if (!l[j].str && !is_num_label(&l[j]))
            continue;
        pprof_string k = pstr(p, l[j].key);
        st = pprof__buffer_printf(b, "%s{\"key\":", first ? "" : ",");
        first = false;
        if (!st)
            st = pprof__json_string(b, k.data, k.len);
        if (!st && l[j].str) {
            pprof_string v = pstr(p, l[j].str);
            st = pprof__buffer_printf(b, ",\"str\":");
            if (!st)
                st = pprof__json_string(b, v.data, v.len);
        } else if (!st) {
            char unit[128];
            unit_of(nu, k, unit, sizeof(unit));
            st = pprof__buffer_printf(b, ",\"num\":%" PRId64 ",\"unit\":", l[j].num);
            if (!st)
                st = pprof__json_string(b, unit, strlen(unit));
        }
        if (!st)
            st = pprof__buffer_printf(b, "}");
    }
    if (!st)
        st = pprof__buffer_printf(b, "]");
    return st;
}

/* ---- Go's driver merges the profile it reads (profile.Merge): samples with the same locations
 * and labels become one, in order of first appearance, with their values summed; all-zero
 * ones go. Only -traces shows it. Keys: location ids, then each label key's values. */

typedef struct sample_set {
    /* every distinct key's label part; its location ids are its first sample's, compared in
     * the profile (not copied: they are most of a key, and a large profile has many) */
    pprof_buffer keys;
    pprof__vec key_off; /* uint64_t, start of each key; one more at the end */
    pprof__htab index;
    pprof__vec first; /* uint32_t: the first sample of each distinct key */
    pprof__vec sums;  /* int64_t: n_types per distinct key */
} sample_set;

static pprof_status
key_labels(const pprof_profile *p, const pprof__sample *s, bool numeric, pprof_buffer *k,
           pprof_buffer *tmp, const pprof_allocator *a)
{
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    tmp->len = 0;
    size_t n = 0;
    pprof_status st = PPROF_OK;
    for (uint32_t j = 0; j < s->n_lab && !st; j++) {
        if (!(numeric ? is_num_label(&l[j]) : l[j].str != 0))
            continue;
        pprof_string key = pstr(p, l[j].key);
        bool seen = false;
        for (uint32_t q = 0; q < j && !seen; q++)
            seen = (numeric ? is_num_label(&l[q]) : l[q].str != 0) &&
                   pstr(p, l[q].key).len == key.len &&
                   !memcmp(pstr(p, l[q].key).data, key.data, key.len);
        if (seen)
            continue;
        st = pprof__buffer_append(tmp, key.data, key.len);
        for (uint32_t q = j; q < s->n_lab && !st; q++) {
            pprof_string kq = pstr(p, l[q].key);
            if (!(numeric ? is_num_label(&l[q]) : l[q].str != 0) || kq.len != key.len ||
                memcmp(kq.data, key.data, key.len))
                continue;
            if (numeric) {
                /* "\x01NUM\x02UNIT", without printf (once per numeric label of every sample) */
                pprof_string u = pstr(p, l[q].num_unit);
                char d[24];
                size_t dn = i64_digits(l[q].num, d);
                st = pprof__buffer_append(tmp, "\x01", 1);
                if (!st)
                    st = pprof__buffer_append(tmp, d + sizeof(d) - dn, dn);
                if (!st)
                    st = pprof__buffer_append(tmp, "\x02", 1);
                if (!st)
                    st = pprof__buffer_append(tmp, u.data, u.len);
            } else {
                pprof_string v = pstr(p, l[q].str);
                st = pprof__buffer_append(tmp, "\x01", 1);
                if (!st)
                    st = pprof__buffer_append(tmp, v.data, v.len);
            }
        }
        if (!st)
            st = pprof__buffer_append(tmp, "", 1);
        n++;
    }
    if (st || !n)
        return st;
    if (n == 1) /* the common case: nothing to sort */
        return pprof__buffer_append(k, tmp->data, tmp->len);
    char *few[8];
    char **v = n <= 8 ? few : pprof__malloc(a, n * sizeof(char *));
    if (!v)
        return PPROF_E_NOMEM;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = (char *)tmp->data + pos;
        pos += strlen(v[i]) + 1;
    }
    qsort(v, n, sizeof(char *), cstr_cmp);
    for (size_t i = 0; i < n && !st; i++)
        st = pprof__buffer_append(k, v[i], strlen(v[i]) + 1);
    if (v != few)
        pprof__free(a, v);
    return st;
}

/* Whether sample i's location ids are ids[0..n). */
static bool
same_stack(const pprof_profile *p, uint32_t i, const uint64_t *ids, uint32_t n)
{
    const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
    return s->n_loc == n &&
           (n == 0 || !memcmp((const uint64_t *)p->stack.data + s->loc_off, ids, n * 8));
}

static pprof_status
merge_samples(const pprof__rctx *c, sample_set *m)
{
    const pprof_profile *p = c->p;
    size_t nt = p->sample_types.len;
    pprof_buffer key = {0}, tmp = {0};
    memset(m, 0, sizeof(*m));
    uint64_t *z = pprof__vec_push(&c->a, &m->key_off, sizeof(uint64_t));
    if (!z)
        return PPROF_E_NOMEM;
    *z = 0;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        const int64_t *vals = (s->n_val ? (const int64_t *)p->values.data + s->val_off : NULL);
        bool zero = true;
        for (uint32_t j = 0; j < s->n_val; j++)
            zero &= vals[j] == 0;
        if (zero)
            continue;
        key.len = 0;
        const uint64_t *ids = s->n_loc ? (const uint64_t *)p->stack.data + s->loc_off : NULL;
        st = key_labels(p, s, false, &key, &tmp, &c->a);
        if (!st)
            st = pprof__buffer_append(&key, "\xfe", 1);
        if (!st)
            st = key_labels(p, s, true, &key, &tmp, &c->a);
        if (st)
            break;
        uint64_t h = pprof__hash_bytes(pprof__hash_bytes(5, ids, s->n_loc * sizeof(uint64_t)),
                                       key.data, key.len);
        if (pprof__htab_full(&m->index) && !pprof__htab_reserve(&m->index, &c->a, 1)) {
            st = PPROF_E_NOMEM;
            break;
        }
        pprof__htab_probe pr;
        uint32_t v;
        const uint64_t *off = m->key_off.data;
        const uint32_t *first = m->first.data;
        PPROF__HTAB_FIND(&m->index, h, pr, v,
                         off[v + 1] - off[v] == key.len && same_stack(p, first[v], ids, s->n_loc) &&
                             !memcmp(m->keys.data + off[v], key.data, key.len));
        if (v == PPROF_NONE) {
            v = (uint32_t)m->first.len;
            uint32_t *f = pprof__vec_push(&c->a, &m->first, sizeof(uint32_t));
            uint64_t *o = pprof__vec_push(&c->a, &m->key_off, sizeof(uint64_t));
            if (!f || !o || !pprof__vec_grow(&c->a, &m->sums, sizeof(int64_t), m->sums.len + nt) ||
                pprof__buffer_append(&m->keys, key.data, key.len)) {
                st = PPROF_E_NOMEM;
                break;
            }
            *f = (uint32_t)i;
            *o = m->keys.len;
            memset((int64_t *)m->sums.data + m->sums.len, 0, nt * sizeof(int64_t));
            m->sums.len += nt;
            pprof__htab_insert_at(&m->index, &pr, v);
        }
        int64_t *sum = (int64_t *)m->sums.data + (size_t)v * nt;
        for (uint32_t j = 0; j < s->n_val && j < nt; j++)
            sum[j] = (int64_t)((uint64_t)sum[j] + (uint64_t)vals[j]);
    }
    pprof_buffer_free(&key);
    pprof_buffer_free(&tmp);
    return st;
}

static void
sample_set_free(const pprof__rctx *c, sample_set *m)
{
    pprof_buffer_free(&m->keys);
    pprof__free(&c->a, m->key_off.data);
    pprof__htab_free(&m->index, &c->a);
    pprof__free(&c->a, m->first.data);
    pprof__free(&c->a, m->sums.data);
}

/* The stack lines of every location, as -traces prints them below a trace's first line:
 * "             NAME" per line, " (inline)" on all but the last, each ending in "\n"; one
 * block per location (its lines in order), so that a trace is one copy per location. Not made
 * (false) when the blocks would pass cap bytes: the caller then writes line by line. */
enum { TRACE_INDENT = 13 };

typedef struct loc_blocks {
    char *text;
    size_t *off; /* per location index; one more at the end */
} loc_blocks;

static bool
loc_blocks_build(const pprof__rctx *c, const pprof__graph *g, size_t cap, loc_blocks *lb)
{
    size_t nl = c->p->locations.len, total = 0;
    for (size_t li = 0; li < nl; li++) {
        size_t cnt;
        const uint32_t *ln = pprof__nodes_of(&g->nodes, (uint32_t)li, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            size_t n;
            pprof__gname(g, ln[k], &n);
            total += TRACE_INDENT + n + (k != cnt - 1 ? 9 : 0) + 1;
            if (total > cap)
                return false;
        }
    }
    lb->off = pprof__malloc(&c->a, (nl + 1) * sizeof(size_t));
    lb->text = pprof__malloc(&c->a, total ? total : 1);
    if (!lb->off || !lb->text)
        return false;
    char *w = lb->text;
    for (size_t li = 0; li < nl; li++) {
        lb->off[li] = (size_t)(w - lb->text);
        size_t cnt;
        const uint32_t *ln = pprof__nodes_of(&g->nodes, (uint32_t)li, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            size_t n;
            const char *name = pprof__gname(g, ln[k], &n);
            memset(w, ' ', TRACE_INDENT);
            memcpy(w + TRACE_INDENT, name, n);
            w += TRACE_INDENT + n;
            if (k != cnt - 1) {
                memcpy(w, " (inline)", 9);
                w += 9;
            }
            *w++ = '\n';
        }
    }
    lb->off[nl] = (size_t)(w - lb->text);
    return true;
}

pprof_status
pprof__render_traces(pprof__rctx *c, pprof_print_format f, pprof_buffer *out)
{
    static const char sep[] =
        "-----------+-------------------------------------------------------\n";
    const pprof_profile *p = c->p;
    pprof__graph g;
    memset(&g, 0, sizeof(g));
    g.a = c->a;
    pprof__nodes_cfg cfg = {c->o->granularity, false, NULL, NULL, false};
    pprof_status st = pprof__nodes_build_cfg(p, c->index, &cfg, &g.a, &g.nodes, c->err);
    if (st) {
        pprof__nodes_free(&g.nodes);
        return st;
    }
    num_units nu = {NULL, 0};
    pprof__lines hl = {0};
    pprof_buffer tmp = {0};
    uint32_t *idx = NULL;
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    sample_set ms;
    memset(&ms, 0, sizeof(ms));
    if (pprof__graph_names(&g) || (f == PPROF_PRINT_TEXT && pprof__graph_names_text(&g)) ||
        (st = num_units_build(c, &nu)) || merge_samples(c, &ms) ||
        !(idx = pprof__malloc(&c->a, (max_depth + 1) * sizeof(uint32_t)))) {
        st = st ? st : nomem(c);
        goto out;
    }
    if (f == PPROF_PRINT_TEXT) {
        st = pprof__profile_labels(c->u, c->type, c->total, c->unit, c->output_unit, &hl);
        if (!st)
            st = hl.n ? print_lines(out, &hl) : pprof__buffer_append(out, "\n", 1);
    } else {
        st = json_head(c, out);
        if (!st)
            st = pprof__buffer_printf(out, ",\"samples\":[");
    }
    bool first = true, have_last = false;
    int64_t last_v = 0;
    char last_vs[64] = "";
    size_t nt = p->sample_types.len;
    /* the blocks, when they take at most 64 MB more than four times what the node names and
     * the location lines already take (a name repeated on many location lines could make
     * them far larger): a trace is then one copy per location, where most of the time goes */
    loc_blocks lb = {NULL, NULL};
    size_t n_lines = g.nodes.loc_off[p->locations.len];
    bool blocks =
        f == PPROF_PRINT_TEXT &&
        loc_blocks_build(
            c, &g, 4 * (g.name_off[g.nodes.n] + 24 * (size_t)n_lines) + ((size_t)64 << 20), &lb);
    for (size_t u = 0; u < ms.first.len && !st; u++) {
        size_t i = PPROF__AT(ms.first, uint32_t, u);
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        const int64_t *sum = (const int64_t *)ms.sums.data + u * nt;
        bool zero = true;
        for (size_t j = 0; j < nt; j++)
            zero &= sum[j] == 0;
        if (!s->n_loc || zero)
            continue;
        if ((st = pprof__sample_locs(p, i, idx, c->err)))
            break;
        int64_t v = sum[c->index];
        if (c->o->mean && sum[0] != 0) /* Go divides each trace by its own first value */
            v = pprof__div64(v, sum[0]);
        if (f == PPROF_PRINT_TEXT) {
            st = pprof__buffer_append(out, sep, sizeof(sep) - 1);
            if (!st)
                st = trace_labels(c, &nu, s, false, &tmp, out);
            if (!st)
                st = trace_labels(c, &nu, s, true, &tmp, out);
        } else {
            st = pprof__buffer_printf(out, "%s\n{\"value\":%" PRId64, first ? "" : ",", v);
            if (!st)
                st = json_labels(c, &nu, s, out);
            if (!st)
                st = pprof__buffer_printf(out, ",\"stack\":[");
        }
        first = false;
        bool top = true;
        if (blocks) {
            /* the first line: the value, then the first location's block less its indent */
            if (!have_last || v != last_v)
                pprof__rctx_value(c, last_vs, sizeof(last_vs), v);
            have_last = true;
            last_v = v;
            size_t vl = strlen(last_vs), pad = vl < 10 ? 10 - vl : 0;
            for (uint32_t j = 0; j < s->n_loc && !st; j++) {
                const char *b = lb.text + lb.off[idx[j]];
                size_t n = lb.off[idx[j] + 1] - lb.off[idx[j]];
                if (!pprof__buffer_reserve(out, n + pad + vl + 3)) {
                    st = PPROF_E_NOMEM;
                    break;
                }
                char *w = (char *)out->data + out->len;
                if (j == 0) {
                    memset(w, ' ', pad);
                    memcpy(w + pad, last_vs, vl);
                    memcpy(w + pad + vl, "   ", 3);
                    w += pad + vl + 3;
                    b += TRACE_INDENT;
                    n -= TRACE_INDENT;
                }
                memcpy(w, b, n);
                out->len = (size_t)(w + n - (char *)out->data);
            }
            if (!st)
                st = pprof__rctx_spill(c, out);
            continue;
        }
        for (uint32_t j = 0; j < s->n_loc && !st; j++) {
            size_t cnt;
            const uint32_t *ln = pprof__nodes_of(&g.nodes, idx[j], &cnt);
            for (size_t k = 0; k < cnt && !st; k++) {
                size_t nl;
                const char *name = pprof__gname(&g, ln[k], &nl);
                bool inl = k != cnt - 1;
                if (f == PPROF_PRINT_TEXT) {
                    /* "%10s   " NAME [" (inline)"] "\n", without printf: this line is most of
                     * a traces report, which can run to hundreds of megabytes */
                    size_t vl = 0;
                    if (top) {
                        /* samples often share a value: format it once */
                        if (!have_last || v != last_v)
                            pprof__rctx_value(c, last_vs, sizeof(last_vs), v);
                        have_last = true;
                        last_v = v;
                        vl = strlen(last_vs);
                    }
                    const char *vs = last_vs;
                    size_t pad = vl < 10 ? 10 - vl : 0;
                    if (!pprof__buffer_reserve(out, pad + vl + 3 + nl + 10)) {
                        st = PPROF_E_NOMEM;
                        break;
                    }
                    char *w = (char *)out->data + out->len;
                    memset(w, ' ', pad);
                    memcpy(w + pad, vs, vl);
                    memcpy(w + pad + vl, "   ", 3);
                    w += pad + vl + 3;
                    memcpy(w, name, nl);
                    w += nl;
                    if (inl) {
                        memcpy(w, " (inline)", 9);
                        w += 9;
                    }
                    *w++ = '\n';
                    out->len = (size_t)(w - (char *)out->data);
                } else {
                    st = pprof__buffer_printf(out, "%s{\"name\":", top ? "" : ",");
                    if (!st)
                        st = pprof__json_string(out, name, nl);
                    if (!st)
                        st = pprof__buffer_printf(out, ",\"inline\":%s}", inl ? "true" : "false");
                }
                top = false;
            }
        }
        if (!st && f == PPROF_PRINT_JSON)
            st = pprof__buffer_printf(out, "]}");
        if (!st)
            st = pprof__rctx_spill(c, out);
    }
    if (!st)
        st = f == PPROF_PRINT_TEXT ? pprof__buffer_append(out, sep, sizeof(sep) - 1)
                                   : pprof__buffer_printf(out, "]}\n");
    if (st == PPROF_E_NOMEM)
        st = nomem(c);
    pprof__free(&c->a, lb.text);
    pprof__free(&c->a, lb.off);
out:
    sample_set_free(c, &ms);
    pprof__free(&c->a, idx);
    pprof__free(&c->a, nu.v);
    pprof_buffer_free(&tmp);
    pprof__lines_free(&hl);
    pprof__graph_free(&g);
    return st;
}

/* ---- tags */

/* Go's text/tabwriter with minwidth 0, padding 1, ' ' and AlignRight, over whole lines. */
typedef struct tw_cell {
    size_t off, len, width; /* width in runes */
} tw_cell;

typedef struct tw_line {
    size_t first, n; /* cells; the last one is the text after the last tab */
} tw_line;

typedef struct tabw {
    const char *text;
    tw_cell *cells;
    tw_line *lines;
    size_t n_lines;
    size_t *widths;
    size_t n_widths;
    pprof_buffer *out;
    pprof_status st;
} tabw;

static void
tw_write_lines(tabw *t, size_t l0, size_t l1)
{
    for (size_t i = l0; i < l1 && !t->st; i++) {
        const tw_line *ln = &t->lines[i];
        for (size_t j = 0; j < ln->n && !t->st; j++) {
            const tw_cell *cl = &t->cells[ln->first + j];
            if (j < t->n_widths && j + 1 < ln->n) {
                size_t pad = t->widths[j] > cl->width ? t->widths[j] - cl->width : 0;
                for (size_t k = 0; k < pad && !t->st; k++)
                    t->st = pprof__buffer_append(t->out, " ", 1);
            }
            if (!t->st)
                t->st = pprof__buffer_append(t->out, t->text + cl->off, cl->len);
        }
        if (!t->st && i + 1 < t->n_lines)
            t->st = pprof__buffer_append(t->out, "\n", 1);
    }
}

/* Writer.format: a column block is a run of lines that have a cell in this column. */
static void
tw_format(tabw *t, size_t l0, size_t l1)
{
    size_t column = t->n_widths;
    for (size_t i = l0; i < l1; i++) {
        if (column + 1 >= t->lines[i].n)
            continue;
        tw_write_lines(t, l0, i);
        l0 = i;
        size_t width = 0;
        for (; i < l1; i++) {
            const tw_line *ln = &t->lines[i];
            if (column + 1 >= ln->n)
                break;
            size_t w = t->cells[ln->first + column].width + 1;
            if (w > width)
                width = w;
        }
        t->widths[t->n_widths++] = width;
        tw_format(t, l0, i);
        t->n_widths--;
        l0 = i;
        if (i >= l1)
            break;
    }
    tw_write_lines(t, l0, l1);
}

static size_t
runes(const char *s, size_t n)
{
    size_t r = 0;
    for (size_t i = 0; i < n;) {
        size_t l = (unsigned char)s[i] >= 0x80
                       ? pprof__utf8_seq_len((const unsigned char *)s + i, n - i)
                       : 1;
        i += l ? l : 1;
        r++;
    }
    return r;
}

static pprof_status
tabwriter(const pprof_allocator *a, const char *text, size_t len, pprof_buffer *out)
{
    size_t n_cells = 1, n_lines = 1;
    for (size_t i = 0; i < len; i++) {
        n_cells += text[i] == '\t' || text[i] == '\n';
        n_lines += text[i] == '\n';
    }
    tabw t = {text,
              pprof__malloc(a, n_cells * sizeof(tw_cell)),
              pprof__malloc(a, n_lines * sizeof(tw_line)),
              0,
              pprof__malloc(a, n_cells * sizeof(size_t)),
              0,
              out,
              PPROF_OK};
    if (!t.cells || !t.lines || !t.widths) {
        t.st = PPROF_E_NOMEM;
        goto out;
    }
    size_t c = 0, start = 0;
    t.lines[0] = (tw_line){0, 0};
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != '\t' && text[i] != '\n')
            continue;
        t.cells[c] = (tw_cell){start, i - start, runes(text + start, i - start)};
        t.lines[t.n_lines].n++;
        c++;
        start = i + 1;
        if (i == len || text[i] == '\n') {
            t.n_lines++;
            if (i < len)
                t.lines[t.n_lines] = (tw_line){c, 0};
        }
    }
    /* text ends with a newline: the empty line after it prints nothing */
    tw_format(&t, 0, t.n_lines);
out:
    pprof__free(a, t.cells);
    pprof__free(a, t.lines);
    pprof__free(a, t.widths);
    return t.st;
}

typedef struct tag_val {
    const char *name;
    size_t name_len;
    int64_t w;
} tag_val;

typedef struct tag_key_vals {
    pprof_string key;
    tag_val *v;
    size_t n, cap;
    int64_t total;
} tag_key_vals;

static int
tag_val_cmp(const void *x, const void *y)
{
    const tag_val *a = x, *b = y;
    if (a->w != b->w) {
        int64_t aa = a->w < 0 ? -a->w : a->w, bb = b->w < 0 ? -b->w : b->w;
        if (aa != bb)
            return aa > bb ? -1 : 1;
    }
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int k = memcmp(a->name, b->name, n);
    return k ? k : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static int
tag_key_cmp(const void *x, const void *y)
{
    const tag_key_vals *a = x, *b = y;
    size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
    int k = memcmp(a->key.data, b->key.data, n);
    return k ? k : (a->key.len > b->key.len) - (a->key.len < b->key.len);
}

static pprof_status
tag_add(const pprof__rctx *c, pprof__arena *ar, tag_key_vals **keys, size_t *nk, size_t *capk,
        pprof_string key, const char *val, size_t vl, int64_t w)
{
    size_t x = 0;
    while (x < *nk &&
           !((*keys)[x].key.len == key.len && !memcmp((*keys)[x].key.data, key.data, key.len)))
        x++;
    if (x == *nk) {
        if (*nk == *capk) {
            *capk = *capk ? 2 * *capk : 8;
            tag_key_vals *nv = pprof__realloc(&c->a, *keys, *capk * sizeof(tag_key_vals));
            if (!nv)
                return PPROF_E_NOMEM;
            *keys = nv;
        }
        (*keys)[(*nk)++] = (tag_key_vals){key, NULL, 0, 0, 0};
    }
    tag_key_vals *k = &(*keys)[x];
    /* values are few per key in practice; a linear scan keeps the order irrelevant */
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i].name_len == vl && !memcmp(k->v[i].name, val, vl)) {
            k->v[i].w = (int64_t)((uint64_t)k->v[i].w + (uint64_t)w);
            return PPROF_OK;
        }
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 8;
        tag_val *nv = pprof__realloc(&c->a, k->v, k->cap * sizeof(tag_val));
        if (!nv)
            return PPROF_E_NOMEM;
        k->v = nv;
    }
    char *copy = pprof__arena_alloc(ar, vl + 1);
    if (!copy)
        return PPROF_E_NOMEM;
    memcpy(copy, val, vl);
    copy[vl] = 0;
    k->v[k->n++] = (tag_val){copy, vl, w};
    return PPROF_OK;
}

pprof_status
pprof__render_tags(pprof__rctx *c, pprof_print_format f, pprof_buffer *out)
{
    const pprof_profile *p = c->p;
    num_units nu = {NULL, 0};
    tag_key_vals *keys = NULL;
    size_t nk = 0, capk = 0;
    pprof__arena ar;
    pprof__arena_init(&ar, &c->a);
    pprof_buffer text = {0};
    pprof_status st = num_units_build(c, &nu);
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
        int64_t v = c->index < s->n_val ? PPROF__AT(p->values, int64_t, s->val_off + c->index) : 0;
        for (uint32_t j = 0; j < s->n_lab && !st; j++) {
            pprof_string k = pstr(p, l[j].key);
            if (l[j].str) {
                pprof_string sv = pstr(p, l[j].str);
                st = tag_add(c, &ar, &keys, &nk, &capk, k, sv.data, sv.len, v);
            } else if (is_num_label(&l[j])) {
                char unit[128], sv[96];
                unit_of(&nu, k, unit, sizeof(unit));
                pprof__scaled_label(sv, sizeof(sv), l[j].num, unit, "minimum");
                st = tag_add(c, &ar, &keys, &nk, &capk, k, sv, strlen(sv), v);
            }
        }
    }
    if (!st && nk)
        qsort(keys, nk, sizeof(*keys), tag_key_cmp);
    if (!st && f == PPROF_PRINT_JSON) {
        st = json_head(c, out);
        if (!st)
            st = pprof__buffer_printf(out, ",\"tags\":[");
    }
    for (size_t x = 0; x < nk && !st; x++) {
        tag_key_vals *k = &keys[x];
        int64_t total = 0;
        for (size_t i = 0; i < k->n; i++)
            total = (int64_t)((uint64_t)total + (uint64_t)k->v[i].w);
        qsort(k->v, k->n, sizeof(tag_val), tag_val_cmp);
        if (f == PPROF_PRINT_JSON) {
            st = pprof__buffer_printf(out, "%s\n{\"key\":", x ? "," : "");
            if (!st)
                st = pprof__json_string(out, k->key.data, k->key.len);
            if (!st)
                st = pprof__buffer_printf(out, ",\"total\":%" PRId64 ",\"values\":[", total);
            for (size_t i = 0; i < k->n && !st; i++) {
                st = pprof__buffer_printf(out, "%s{\"value\":", i ? "," : "");
                if (!st)
                    st = pprof__json_string(out, k->v[i].name, k->v[i].name_len);
                if (!st)
                    st = pprof__buffer_printf(out, ",\"weight\":%" PRId64 "}", k->v[i].w);
            }
            if (!st)
                st = pprof__buffer_printf(out, "]}");
            continue;
        }
        const char *u;
        double fv = pprof__scale(total, c->unit, c->output_unit, &u);
        /* a tab in a key or value would make a cell of the tabwriter: escaped with the rest */
        st = pprof__text_escape(&text, k->key.data, k->key.len);
        if (!st)
            st = pprof__buffer_printf(&text, ":\t Total %.1f%s\n", fv, u);
        for (size_t i = 0; i < k->n && !st; i++) {
            fv = pprof__scale(k->v[i].w, c->unit, c->output_unit, &u);
            if (total > 0) {
                char pct[40];
                pprof__percentage(pct, sizeof(pct), k->v[i].w, total);
                st = pprof__buffer_printf(&text, " \t%.1f%s (%s):\t ", fv, u, pct);
            } else {
                st = pprof__buffer_printf(&text, " \t%.1f%s:\t ", fv, u);
            }
            if (!st)
                st = pprof__text_escape(&text, k->v[i].name, k->v[i].name_len);
            if (!st)
                st = pprof__buffer_append(&text, "\n", 1);
        }
        if (!st)
            st = pprof__buffer_append(&text, "\n", 1);
    }
    if (!st && f == PPROF_PRINT_JSON)
        st = pprof__buffer_printf(out, "]}\n");
    if (!st && f == PPROF_PRINT_TEXT && text.len)
        st = tabwriter(&c->a, (const char *)text.data, text.len, out);
    if (st == PPROF_E_NOMEM)
        st = nomem(c);
    for (size_t x = 0; x < nk; x++)
        pprof__free(&c->a, keys[x].v);
    pprof__free(&c->a, keys);
    pprof__free(&c->a, nu.v);
    pprof_buffer_free(&text);
    pprof__arena_destroy(&ar);
    return st;
}

/* ---- tree and peek */

/* reportLabels. */
pprof_status pprof__report_labels(const pprof__rctx *c, const pprof__graph *g, bool full,
                                  pprof__lines *l);

pprof_status
pprof__report_labels(const pprof__rctx *c, const pprof__graph *g, bool full, pprof__lines *l)
{
    pprof_status st = PPROF_OK;
    if (full || !c->o->compact_labels)
        st = pprof__profile_labels(c->u, c->type, c->total, c->unit, c->output_unit, l);
    int64_t flat_sum = 0;
    for (size_t i = 0; i < g->n; i++)
        flat_sum = pprof__add64(flat_sum, pprof__flat_value(&g->nodes, g->order[i]));
    if (!st)
        st = pprof__filter_labels(c->o->active_filters, c->o->n_active_filters, l);
    char v1[64], v2[64], p1[40];
    pprof__rctx_value(c, v1, sizeof(v1), flat_sum);
    pprof__rctx_value(c, v2, sizeof(v2), c->total);
    pprof__percentage(p1, sizeof(p1), flat_sum, c->total);
    const char *pt = p1;
    while (*pt == ' ')
        pt++;
    if (!st)
        st = pprof__lines_add(l, "Showing nodes accounting for %s, %s of %s total", v1, pt, v2);
    if (!st && c->total != 0) {
        if (g->dropped_nodes > 0) {
            double x = (double)c->total * c->o->node_fraction;
            int64_t v = (int64_t)x;
            pprof__rctx_value(c, v1, sizeof(v1), v < 0 ? -v : v);
            st = pprof__lines_add(l, "Dropped %zu node%s (cum <= %s)", g->dropped_nodes,
                                  g->dropped_nodes > 1 ? "s" : "", v1);
        }
        if (!st && full && g->dropped_edges > 0) {
            double x = (double)c->total * c->o->edge_fraction;
            int64_t v = (int64_t)x;
            pprof__rctx_value(c, v1, sizeof(v1), v < 0 ? -v : v);
            st = pprof__lines_add(l, "Dropped %zu edge%s (freq <= %s)", g->dropped_edges,
                                  g->dropped_edges > 1 ? "s" : "", v1);
        }
        if (!st && g->n > 0 && g->n < g->orig_count)
            st = pprof__lines_add(l, "Showing top %zu nodes out of %zu", g->n, g->orig_count);
    }
    if (!st && full)
        st = pprof__lines_add(l, "\nSee https://git.io/JfYMW for how to read the graph");
    return st;
}

static pprof_status
tree_edges(const pprof__rctx *c, const pprof__graph *g, uint32_t n, bool in, pprof_buffer *out)
{
    uint32_t *e = NULL;
    size_t cnt;
    pprof_status st = pprof__graph_sorted_edges(g, n, in, &e, &cnt);
    const pprof__gedge *E = g->edges.data;
    for (size_t i = 0; i < cnt && !st; i++) {
        const pprof__gedge *x = &E[e[i]];
        char v[64], pct[40];
        size_t nl;
        const char *name = pprof__gname(g, in ? x->src : x->dst, &nl);
        pprof__rctx_value(c, v, sizeof(v), x->w);
        pprof__percentage(pct, sizeof(pct), x->w, pprof__cum_value(&g->nodes, n));
        st = pprof__buffer_printf(out, "%50s %s |   ", v, pct);
        if (!st)
            st = pprof__text_escape(out, name, nl);
        if (!st)
            st = pprof__buffer_printf(out, "%s\n", x->is_inline ? " (inline)" : "");
    }
    pprof__free(&g->a, e);
    return st;
}

/* The graph as JSON (tree, peek, dot): nodes in report order with ids from 1, then edges. */
pprof_status pprof__graph_json(const pprof__rctx *c, const pprof__graph *g, pprof__regex *rx,
                               pprof_buffer *out);

pprof_status
pprof__graph_json(const pprof__rctx *c, const pprof__graph *g, pprof__regex *rx, pprof_buffer *out)
{
    uint32_t *pos = pprof__malloc(&c->a, (g->nodes.n ? g->nodes.n : 1) * sizeof(uint32_t));
    if (!pos)
        return PPROF_E_NOMEM;
    memset(pos, 0, g->nodes.n * sizeof(uint32_t));
    pprof_status st = json_head(c, out);
    if (!st)
        st = pprof__buffer_printf(out, ",\"output_unit\":");
    if (!st)
        st = pprof__json_string(out, c->output_unit, strlen(c->output_unit));
    if (!st)
        st = pprof__buffer_printf(out, ",\"nodes\":[");
    for (size_t i = 0; i < g->n && !st; i++) {
        uint32_t n = g->order[i];
        pos[n] = (uint32_t)(i + 1);
        size_t nl;
        const char *name = pprof__gname(g, n, &nl);
        st = pprof__buffer_printf(out, "%s\n{\"id\":%zu,\"name\":", i ? "," : "", i + 1);
        if (!st)
            st = pprof__json_string(out, name, nl);
        if (!st)
            st = pprof__buffer_printf(out, ",\"flat\":%" PRId64 ",\"cum\":%" PRId64,
                                      pprof__flat_value(&g->nodes, n),
                                      pprof__cum_value(&g->nodes, n));
        if (!st && rx) {
            int m = pprof__regex_match(rx, name, nl);
            st = m < 0 ? PPROF_E_NOMEM
                       : pprof__buffer_printf(out, ",\"match\":%s", m ? "true" : "false");
        }
        if (!st)
            st = pprof__buffer_printf(out, "}");
    }
    uint32_t *e = NULL;
    size_t ne = 0;
    if (!st)
        st = pprof__graph_all_edges(g, &e, &ne);
    if (!st)
        st = pprof__buffer_printf(out, "],\"edges\":[");
    const pprof__gedge *E = g->edges.data;
    size_t k = 0;
    for (size_t i = 0; i < ne && !st; i++) {
        const pprof__gedge *x = &E[e[i]];
        st = pprof__buffer_printf(
            out, "%s\n{\"from\":%u,\"to\":%u,\"weight\":%" PRId64 ",\"inline\":%s,\"residual\":%s}",
            k++ ? "," : "", pos[x->src], pos[x->dst], pprof__gedge_value(x),
            x->is_inline ? "true" : "false", x->residual ? "true" : "false");
    }
    if (!st)
        st = pprof__buffer_printf(out, "]}\n");
    pprof__free(&c->a, e);
    pprof__free(&c->a, pos);
    return st;
}

pprof_status
pprof__render_tree(pprof__rctx *c, pprof_print_format f, pprof_buffer *out)
{
    static const char sep[] =
        "----------------------------------------------------------+-------------\n";
    static const char legend[] =
        "      flat  flat%   sum%        cum   cum%   calls calls% + context 	 	 \n";
    const pprof_report_render_options *o = c->o;
    pprof__regex *rx = NULL;
    pprof_status st = PPROF_OK;
    if (o->format == PPROF_REPORT_PEEK &&
        (st = pprof__regex_new(o->symbol, strlen(o->symbol), "peek", &c->a, &rx, c->err)))
        return st;
    pprof__graph g;
    pprof__graph_opts go = {
        o->granularity,   false,           o->cum_sort, false, (size_t)o->node_count,
        o->node_fraction, o->edge_fraction};
    pprof__lines hl = {0};
    st = pprof__graph_build(c, &go, &g);
    if (st)
        goto out;
    pprof__select_output_unit(c, &g);
    if (f == PPROF_PRINT_JSON) {
        st = pprof__graph_json(c, &g, rx, out);
        goto out;
    }
    st = pprof__report_labels(c, &g, false, &hl);
    if (!st)
        st = print_lines(out, &hl);
    if (!st)
        st = pprof__buffer_printf(out, "%s%s", sep, legend);
    int64_t flat_sum = 0;
    size_t matched = 0;
    for (size_t i = 0; i < g.n && !st; i++) {
        uint32_t n = g.order[i];
        size_t nl;
        const char *name = pprof__gname(&g, n, &nl);
        if (rx) {
            int m = pprof__regex_match(rx, name, nl);
            if (m < 0) { /* no memory for the search */
                st = PPROF_E_NOMEM;
                break;
            }
            if (!m)
                continue;
        }
        matched++;
        int64_t flat = pprof__flat_value(&g.nodes, n), cum = pprof__cum_value(&g.nodes, n);
        st = pprof__buffer_append(out, sep, sizeof(sep) - 1);
        if (!st)
            st = tree_edges(c, &g, n, true, out);
        flat_sum = (int64_t)((uint64_t)flat_sum + (uint64_t)flat);
        char v1[64], v2[64], p1[40], p2[40], p3[40];
        pprof__rctx_value(c, v1, sizeof(v1), flat);
        pprof__rctx_value(c, v2, sizeof(v2), cum);
        pprof__percentage(p1, sizeof(p1), flat, c->total);
        pprof__percentage(p2, sizeof(p2), flat_sum, c->total);
        pprof__percentage(p3, sizeof(p3), cum, c->total);
        if (!st)
            st = pprof__buffer_printf(out, "%10s %s %s %10s %s                | ", v1, p1, p2, v2,
                                      p3);
        if (!st)
            st = pprof__text_escape(out, name, nl);
        if (!st)
            st = pprof__buffer_append(out, "\n", 1);
        if (!st)
            st = tree_edges(c, &g, n, false, out);
    }
    if (!st && g.n > 0)
        st = pprof__buffer_append(out, sep, sizeof(sep) - 1);
    if (!st && rx && matched == 0)
        st = pprof__error(c->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                          "no matches found for regexp: %s", o->symbol);
out:
    if (st == PPROF_E_NOMEM)
        st = nomem(c);
    pprof__lines_free(&hl);
    pprof__graph_free(&g);
    pprof__regex_free(rx);
    return st;
}
