/* The flame graph's JSON: d3-flame-graph's nested tree, and the HTML page's data block
 * (docs/flame.md). Both are written iteratively (a stack of open nodes, never recursion), and
 * numbers go straight into the buffer: the data block of a large profile holds millions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flame-private.h"
#include "utf8-private.h"

/* ---- escaping */

pprof_status
pprof__flame_xml_str(pprof_buffer *b, const char *str, size_t n, size_t max)
{
    const uint8_t *s = (const uint8_t *)str;
    bool cut = n > max;
    if (cut)
        n = max;
    if (n > (SIZE_MAX - 8) / 6 || !pprof__buffer_reserve(b, 6 * n + 8))
        return PPROF_E_NOMEM;
    uint8_t *o = b->data + b->len;
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        const char *ent = NULL;
        switch (c) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        case '\t': ent = "&#9;"; break;
        case '\n': ent = "&#10;"; break;
        case '\r': ent = "&#13;"; break;
        default: break;
        }
        if (ent) {
            size_t el = strlen(ent);
            memcpy(o, ent, el);
            o += el;
            i++;
            continue;
        }
        if (c >= 0x20 && c < 0x80) {
            *o++ = c;
            i++;
            continue;
        }
        size_t l = c < 0x20 ? 0 : pprof__utf8_seq_len(s + i, n - i);
        /* XML 1.0 forbids C0 controls and U+FFFE, U+FFFF (EF BF BE/BF) */
        if (l == 3 && c == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
            l = 0, i += 2;
        if (!l) {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else {
            memcpy(o, s + i, l);
            o += l;
            i += l;
        }
    }
    if (cut) {
        memcpy(o, "...", 3);
        o += 3;
    }
    b->len = (size_t)(o - b->data);
    return PPROF_OK;
}

/* ---- node selection */

static void
swap_f(float *a, float *b)
{
    float t = *a;
    *a = *b;
    *b = t;
}

/* v[lo..hi) reordered into the values above p, those equal to it, those below it; *eq and *lt
 * get where the second and third parts start. Equal values (many leaves with the same share)
 * form one part, so that a selection among them is done in one pass. */
static void
partition3(float *v, size_t lo, size_t hi, float p, size_t *eq, size_t *lt)
{
    size_t a = lo, i = lo, b = hi;
    while (i < b) {
        if (v[i] > p)
            swap_f(&v[a++], &v[i++]);
        else if (v[i] < p)
            swap_f(&v[i], &v[--b]);
        else
            i++;
    }
    *eq = a;
    *lt = b;
}

static float
median3(float a, float b, float c)
{
    if (a > b) {
        float t = a;
        a = b;
        b = t;
    }
    return c <= a ? a : c >= b ? b : c;
}

/* The median of the medians of groups of five (reorders v): a pivot that leaves at least 3/10
 * of the values on each side. */
static float
median_of_medians(float *v, size_t n)
{
    size_t g = 0;
    for (size_t i = 0; i < n; i += 5) {
        size_t m = n - i < 5 ? n - i : 5;
        for (size_t x = i + 1; x < i + m; x++)
            for (size_t y = x; y > i && v[y] > v[y - 1]; y--)
                swap_f(&v[y], &v[y - 1]);
        swap_f(&v[g++], &v[i + m / 2]);
    }
    return pprof__flame_kth_largest(v, g, g / 2);
}

float
pprof__flame_kth_largest(float *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    /* median-of-three pivots while they shrink the range; past this budget of rounds, the
     * median of medians, which bounds the whole selection to linear time */
    unsigned budget = 8;
    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    while (hi - lo > 1) {
        size_t len = hi - lo, eq, lt;
        float p =
            budget ? median3(v[lo], v[lo + len / 2], v[hi - 1]) : median_of_medians(v + lo, len);
        budget -= budget > 0;
        partition3(v, lo, hi, p, &eq, &lt);
        if (k < eq)
            hi = eq;
        else if (k < lt)
            return p;
        else
            lo = lt;
    }
    return v[lo];
}

pprof_status
pprof__flame_keep_select(const pprof_flame_tree *t, double frac, size_t max_nodes,
                         const pprof_allocator *a, pprof__flame_keep *k, pprof_error *err)
{
    memset(k, 0, sizeof(*k));
    size_t n = t->n, nt = t->nt;
    if (frac <= 0 && (!max_nodes || n <= max_nodes)) {
        k->kept = n;
        return PPROF_OK;
    }
    float *m = pprof__malloc(a, n * sizeof(float));
    k->keep = pprof__malloc(a, n);
    if (!m || !k->keep) {
        pprof__free(a, m);
        pprof__flame_keep_free(a, k);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    /* m[i]: the largest share of a total any type gives node i or a node below it */
    for (size_t i = 0; i < n; i++) {
        float best = 0;
        for (int s = 0; s < 2 && t->value[s]; s++)
            for (size_t j = 0; j < nt; j++) {
                double d = fabs((double)t->value[s][j]);
                double share = fabs((double)t->value[s][i * nt + j]) / (d > 0 ? d : 1);
                best = share > best ? (float)share : best;
            }
        m[i] = best;
    }
    for (size_t i = n; i-- > 1;)
        if (m[i] > m[t->parent[i]])
            m[t->parent[i]] = m[i];
    m[0] = INFINITY;
    float cut = (float)frac;
    bool strict = false;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += m[i] >= cut;
    if (max_nodes && count > max_nodes) {
        float *c = pprof__malloc(a, n * sizeof(float));
        if (!c) {
            pprof__free(a, m);
            pprof__flame_keep_free(a, k);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        memcpy(c, m, n * sizeof(float));
        cut = pprof__flame_kth_largest(c, n, max_nodes - 1);
        pprof__free(a, c);
        count = 0;
        for (size_t i = 0; i < n; i++)
            count += m[i] >= cut;
        strict = count > max_nodes; /* ties at the cut: leave them all out */
    }
    k->kept = 0;
    for (size_t i = 0; i < n; i++) {
        k->keep[i] = i == 0 || (strict ? m[i] > cut : m[i] >= cut);
        k->kept += k->keep[i];
    }
    k->pruned = n - k->kept;
    pprof__free(a, m);
    return PPROF_OK;
}

void
pprof__flame_keep_free(const pprof_allocator *a, pprof__flame_keep *k)
{
    pprof__free(a, k->keep);
    k->keep = NULL;
}

/* ---- d3-flame-graph */

pprof_status
pprof__flame_write_json(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                        pprof_buffer *out, pprof_error *err)
{
    pprof__flame_keep k;
    double frac = o->minwidth_percent && o->minwidth > 0 ? o->minwidth / 100 : 0;
    pprof_status st = pprof__flame_keep_select(t, frac, 0, &o->allocator, &k, err);
    if (st)
        return st;
    size_t nt = t->nt, ty = t->default_type;
    bool base = t->value[1] != NULL;
    uint32_t *open = pprof__malloc(&o->allocator, (t->n + 1) * sizeof(uint32_t));
    size_t sp = 0;
    if (!open)
        st = PPROF_E_NOMEM;
    for (size_t i = 0; i < t->n && !st; i++) {
        if (k.keep && !k.keep[i]) {
            i = t->end[i] - 1;
            continue;
        }
        size_t closed = 0;
        while (sp && t->end[open[sp - 1]] <= i) {
            sp--;
            closed++;
        }
        const pprof_flame_name *nm = &t->names[t->name[i]];
        if (!pprof__buffer_reserve(out, 2 * closed + 100)) {
            st = PPROF_E_NOMEM;
            break;
        }
        for (size_t c = 0; c < closed; c++)
            memcpy(out->data + out->len + 2 * c, "]}", 2);
        out->len += 2 * closed;
        if (closed) /* a sibling of the node just closed; a first child follows its parent */
            out->data[out->len++] = ',';
        memcpy(out->data + out->len, "{\"name\":", 8);
        out->len += 8;
        if ((st = pprof__json_string_html(out, nm->name, nm->name_len)))
            break;
        if (!pprof__buffer_reserve(out, 120)) {
            st = PPROF_E_NOMEM;
            break;
        }
        int64_t v = t->value[0][i * nt + ty];
        memcpy(out->data + out->len, ",\"value\":", 9);
        out->len += 9;
        pprof__flame_put_i64(out, v);
        if (base) {
            int64_t d;
            if (__builtin_sub_overflow(v, t->value[1][i * nt + ty], &d))
                d = v < 0 ? INT64_MIN : INT64_MAX;
            memcpy(out->data + out->len, ",\"delta\":", 9);
            out->len += 9;
            pprof__flame_put_i64(out, d);
        }
        if (t->inl[i]) {
            memcpy(out->data + out->len, ",\"inline\":true", 14);
            out->len += 14;
        }
        memcpy(out->data + out->len, ",\"children\":[", 13);
        out->len += 13;
        open[sp++] = (uint32_t)i;
    }
    if (!st && !pprof__buffer_reserve(out, 2 * sp + 2))
        st = PPROF_E_NOMEM;
    if (!st) {
        while (sp--) {
            memcpy(out->data + out->len, "]}", 2);
            out->len += 2;
        }
        out->data[out->len++] = '\n';
    }
    pprof__free(&o->allocator, open);
    pprof__flame_keep_free(&o->allocator, &k);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory writing JSON");
    return st;
}
