/* Go's call graph: graph.New over the nodes of report-nodes.c and report.newTrimmedGraph's
 * passes (node cutoff, order, node count, edge cutoff, redundant residual edges).
 *
 * A node's flat and cum do not depend on which nodes are kept (Go's KeptNodes): only the edges
 * do, so each rebuild re-walks the samples for the edges alone. An edge from a kept node to the
 * next kept node down the stack is "residual" when dropped nodes lay between them. Tags (the
 * dot graph's nodelets) likewise depend on the node only and are summed once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pool-private.h"
#include "report-graph-private.h"
#include "text-private.h"

static pprof_status
nomem(const pprof__rctx *c)
{
    return pprof__error(c->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

/* ---- names */

pprof_status
pprof__graph_names(pprof__graph *g)
{
    pprof_buffer b = {0};
    size_t n = g->nodes.n;
    g->name_off = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    if (!g->name_off)
        return PPROF_E_NOMEM;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (b.len > UINT32_MAX - 4096) {
            st = PPROF_E_LIMIT;
            break;
        }
        g->name_off[i] = (uint32_t)b.len;
        st = pprof__node_name(&g->nodes.info[i], &b);
    }
    g->name_off[n] = (uint32_t)b.len;
    g->name_buf = (char *)b.data;
    if (!g->name_buf && !st) {
        g->name_buf = pprof__malloc(&g->a, 1);
        if (!g->name_buf)
            return PPROF_E_NOMEM;
        g->name_buf[0] = 0;
        g->name_off[0] = 0;
    } else if (g->name_buf) {
        /* the buffer came from libc; keep it under the graph's allocator rules */
        char *copy = pprof__malloc(&g->a, b.len ? b.len : 1);
        if (copy)
            memcpy(copy, b.data, b.len);
        pprof_buffer_free(&b);
        g->name_buf = copy;
        if (!copy)
            return PPROF_E_NOMEM;
    }
    return st;
}

pprof_status
pprof__graph_names_text(pprof__graph *g)
{
    size_t n = g->nodes.n, nl;
    bool any = false;
    for (size_t i = 0; i < n && !any; i++) {
        const char *s = pprof__gname(g, (uint32_t)i, &nl);
        any = pprof__text_needs_escape(s, nl);
    }
    if (!any)
        return PPROF_OK;
    pprof_buffer b = {0};
    pprof_status st = PPROF_OK;
    uint32_t *off = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    if (!off)
        return PPROF_E_NOMEM;
    for (size_t i = 0; i < n && !st; i++) {
        if (b.len > UINT32_MAX - 4096) {
            st = PPROF_E_LIMIT;
            break;
        }
        off[i] = (uint32_t)b.len;
        const char *s = pprof__gname(g, (uint32_t)i, &nl);
        st = pprof__text_escape(&b, s, nl);
        if (!st)
            st = pprof__buffer_append(&b, "", 1);
    }
    off[n] = (uint32_t)b.len;
    char *copy = st ? NULL : pprof__malloc(&g->a, b.len ? b.len : 1);
    if (copy) {
        memcpy(copy, b.data, b.len);
        pprof__free(&g->a, g->name_buf);
        pprof__free(&g->a, g->name_off);
        g->name_buf = copy;
        g->name_off = off;
    } else {
        pprof__free(&g->a, off);
        st = st ? st : PPROF_E_NOMEM;
    }
    pprof_buffer_free(&b);
    return st;
}

static int
name_cmp(const pprof__graph *g, uint32_t a, uint32_t b)
{
    size_t la, lb;
    const char *na = pprof__gname(g, a, &la), *nb = pprof__gname(g, b, &lb);
    int c = memcmp(na, nb, la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}

/* ---- strings for tags */

static uint32_t
intern(pprof__graph *g, const char *s, size_t n)
{
    uint64_t h = pprof__hash_bytes(0x9e3779b97f4a7c15ull, s, n);
    if (pprof__htab_full(&g->str_index) && !pprof__htab_reserve(&g->str_index, &g->a, 1))
        return PPROF_NONE;
    pprof__htab_probe pr;
    uint32_t v;
    size_t l;
    PPROF__HTAB_FIND(&g->str_index, h, pr, v,
                     (pprof__gstr(g, v, &l), l == n && !memcmp(pprof__gstr(g, v, &l), s, n)));
    if (v != PPROF_NONE)
        return v;
    uint32_t id = (uint32_t)g->str_off.len - 1;
    if (pprof__buffer_append(&g->str_buf, s, n) || pprof__buffer_append(&g->str_buf, "", 1))
        return PPROF_NONE;
    uint32_t *end = pprof__vec_push(&g->a, &g->str_off, sizeof(uint32_t));
    if (!end)
        return PPROF_NONE;
    *end = (uint32_t)g->str_buf.len;
    pprof__htab_insert_at(&g->str_index, &pr, id);
    return id;
}

/* ---- edges */

static size_t
max_stack(const pprof_profile *p)
{
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    return max_depth;
}

/* The walks of build_edges: samples with the same location stack walk the same nodes and make
 * the same edges, so each stack is walked once, at its first sample with a value, with the
 * values of all its samples summed (the sums wrap as Go's do: the order of the additions does
 * not change them). A sample whose stack does not resolve ends the list: build_edges fails on
 * it as it did walking every sample. */
static pprof_status
stack_walks(const pprof__rctx *c, pprof__graph *g, size_t max_depth)
{
    const pprof_profile *p = c->p;
    size_t ns = p->samples.len ? p->samples.len : 1;
    g->walk = pprof__malloc(&g->a, ns * sizeof(uint32_t));
    g->walk_v = pprof__malloc(&g->a, ns * sizeof(int64_t));
    g->walk_d = pprof__malloc(&g->a, ns * sizeof(int64_t));
    uint32_t *idx = pprof__malloc(&g->a, 2 * (max_depth + 1) * sizeof(uint32_t));
    pprof__htab h = {0};
    pprof_status st = PPROF_OK;
    if (!g->walk || !g->walk_v || !g->walk_d || !idx)
        st = PPROF_E_NOMEM;
    uint32_t *other = idx ? idx + max_depth + 1 : NULL; /* no arithmetic on a failed alloc */
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t v = PPROF__AT(p->values, int64_t, s->val_off + g->nodes.sample_index);
        int64_t d = pprof__mean_divisor(c->p, s, c->o->mean);
        if (v == 0 && d == 0)
            continue;
        pprof_error e;
        size_t n = s->n_loc, w = g->n_walk;
        if (pprof__sample_locs(p, i, idx, &e)) {
            g->walk[w] = (uint32_t)i, g->walk_v[w] = v, g->walk_d[w] = d;
            g->n_walk++;
            break;
        }
        uint64_t hv = pprof__hash_bytes(n, idx, n * sizeof(uint32_t));
        if (pprof__htab_full(&h) && !pprof__htab_reserve(&h, &g->a, 1)) {
            st = PPROF_E_NOMEM;
            break;
        }
        /* a stack met before resolved again to compare (its samples resolved once) */
        pprof__htab_probe pr;
        uint32_t k;
        PPROF__HTAB_FIND(&h, hv, pr, k,
                         (PPROF__AT(p->samples, pprof__sample, g->walk[k]).n_loc == n &&
                          !pprof__sample_locs(p, g->walk[k], other, &e) &&
                          !memcmp(idx, other, n * sizeof(uint32_t))));
        if (k != PPROF_NONE) {
            g->walk_v[k] = pprof__add64(g->walk_v[k], v);
            g->walk_d[k] = pprof__add64(g->walk_d[k], d);
            continue;
        }
        g->walk[w] = (uint32_t)i, g->walk_v[w] = v, g->walk_d[w] = d;
        g->n_walk++;
        pprof__htab_insert_at(&h, &pr, (uint32_t)w);
    }
    pprof__htab_free(&h, &g->a);
    pprof__free(&g->a, idx);
    return st;
}

static pprof_status
build_edges(const pprof__rctx *c, pprof__graph *g)
{
    const pprof_profile *p = c->p;
    g->edges.len = 0;
    pprof__u64map_free(&g->emap, &g->a);
    memset(&g->emap, 0, sizeof(g->emap));
    if (!pprof__u64map_init(&g->emap, &g->a, 64))
        return nomem(c);
    size_t max_depth = max_stack(p);
    if (!g->walk && stack_walks(c, g, max_depth))
        return nomem(c);
    uint32_t *idx = pprof__malloc(&g->a, (max_depth + 1) * sizeof(uint32_t));
    if (!idx)
        return nomem(c);
    pprof_status st = PPROF_OK;
    for (size_t w = 0; w < g->n_walk && !st; w++) {
        size_t i = g->walk[w];
        int64_t v = g->walk_v[w], d = g->walk_d[w];
        if ((st = pprof__sample_locs(p, i, idx, c->err)))
            break;
        uint32_t n_loc = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        uint32_t parent = PPROF_NONE, stamp = (uint32_t)(i + 1);
        bool residual = false;
        for (uint32_t j = n_loc; j-- > 0 && !st;) {
            size_t cnt;
            const uint32_t *ln = pprof__nodes_of(&g->nodes, idx[j], &cnt);
            for (size_t k = cnt; k-- > 0;) {
                uint32_t n = ln[k];
                if (!g->in_set[n]) {
                    residual = true;
                    continue;
                }
                if (parent != PPROF_NONE && n != parent) {
                    uint64_t key = (uint64_t)parent << 32 | n;
                    uint32_t old;
                    bool added;
                    if (!pprof__u64map_put(&g->emap, &g->a, key, (uint32_t)g->edges.len, &old,
                                           &added)) {
                        st = nomem(c);
                        break;
                    }
                    bool inl = k != cnt - 1;
                    if (added) {
                        pprof__gedge *e = pprof__vec_push(&g->a, &g->edges, sizeof(pprof__gedge));
                        if (!e) {
                            st = nomem(c);
                            break;
                        }
                        *e = (pprof__gedge){parent, n, stamp, residual, inl, false, v, d};
                    } else {
                        pprof__gedge *e = &PPROF__AT(g->edges, pprof__gedge, old);
                        if (e->stamp != stamp) {
                            e->stamp = stamp;
                            e->w = pprof__add64(e->w, v);
                            e->wd = pprof__add64(e->wd, d);
                            e->residual |= residual;
                            e->is_inline &= inl;
                        }
                    }
                }
                parent = n;
                residual = false;
            }
        }
    }
    pprof__free(&g->a, idx);
    return st;
}

/* In and out lists of the live edges. */
static pprof_status
index_edges(pprof__graph *g)
{
    size_t n = g->nodes.n, ne = g->edges.len;
    pprof__free(&g->a, g->in_off);
    pprof__free(&g->a, g->in_e);
    pprof__free(&g->a, g->out_off);
    pprof__free(&g->a, g->out_e);
    g->in_off = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    g->out_off = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    g->in_e = pprof__malloc(&g->a, (ne ? ne : 1) * sizeof(uint32_t));
    g->out_e = pprof__malloc(&g->a, (ne ? ne : 1) * sizeof(uint32_t));
    if (!g->in_off || !g->out_off || !g->in_e || !g->out_e)
        return PPROF_E_NOMEM;
    memset(g->in_off, 0, (n + 1) * sizeof(uint32_t));
    memset(g->out_off, 0, (n + 1) * sizeof(uint32_t));
    const pprof__gedge *e = g->edges.data;
    for (size_t i = 0; i < ne; i++)
        if (!e[i].dead) {
            g->in_off[e[i].dst + 1]++;
            g->out_off[e[i].src + 1]++;
        }
    for (size_t i = 0; i < n; i++) {
        g->in_off[i + 1] += g->in_off[i];
        g->out_off[i + 1] += g->out_off[i];
    }
    uint32_t *ip = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    uint32_t *op = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    if (!ip || !op) {
        pprof__free(&g->a, ip);
        pprof__free(&g->a, op);
        return PPROF_E_NOMEM;
    }
    memcpy(ip, g->in_off, (n + 1) * sizeof(uint32_t));
    memcpy(op, g->out_off, (n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < ne; i++)
        if (!e[i].dead) {
            g->in_e[ip[e[i].dst]++] = (uint32_t)i;
            g->out_e[op[e[i].src]++] = (uint32_t)i;
        }
    pprof__free(&g->a, ip);
    pprof__free(&g->a, op);
    return PPROF_OK;
}

int
pprof__graph_edge_cmp(const pprof__graph *g, uint32_t a, uint32_t b)
{
    const pprof__gedge *x = &PPROF__AT(g->edges, pprof__gedge, a),
                       *y = &PPROF__AT(g->edges, pprof__gedge, b);
    if (x->w != y->w) {
        int64_t ax = pprof__abs64(x->w), ay = pprof__abs64(y->w);
        if (ax != ay)
            return ax > ay ? -1 : 1;
        /* Go: the weights differ but not their magnitudes: neither Less holds */
    }
    int c = name_cmp(g, x->src, y->src);
    if (!c)
        c = name_cmp(g, x->dst, y->dst);
    return c;
}

/* A merge sort: stable, and free of qsort's context-less comparator. */
static void
sort_edges(const pprof__graph *g, uint32_t *v, uint32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_edges(g, v, tmp, h);
    sort_edges(g, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = pprof__graph_edge_cmp(g, v[j], v[i]) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof(uint32_t));
}

static pprof_status
sorted_copy(const pprof__graph *g, const uint32_t *src, size_t n, uint32_t **out)
{
    uint32_t *v = pprof__malloc(&g->a, (n ? n : 1) * sizeof(uint32_t));
    uint32_t *tmp = pprof__malloc(&g->a, (n ? n : 1) * sizeof(uint32_t));
    if (!v || !tmp) {
        pprof__free(&g->a, v);
        pprof__free(&g->a, tmp);
        return PPROF_E_NOMEM;
    }
    if (n)
        memcpy(v, src, n * sizeof(uint32_t));
    sort_edges(g, v, tmp, n);
    pprof__free(&g->a, tmp);
    *out = v;
    return PPROF_OK;
}

pprof_status
pprof__graph_sorted_edges(const pprof__graph *g, uint32_t node, bool in, uint32_t **out, size_t *n)
{
    const uint32_t *off = in ? g->in_off : g->out_off, *list = in ? g->in_e : g->out_e;
    *n = off[node + 1] - off[node];
    return sorted_copy(g, list + off[node], *n, out);
}

pprof_status
pprof__graph_all_edges(const pprof__graph *g, uint32_t **out, size_t *n)
{
    /* Go collects the out edges of the graph's nodes */
    size_t cnt = 0;
    for (size_t i = 0; i < g->n; i++)
        cnt += g->out_off[g->order[i] + 1] - g->out_off[g->order[i]];
    uint32_t *all = pprof__malloc(&g->a, (cnt ? cnt : 1) * sizeof(uint32_t));
    if (!all)
        return PPROF_E_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        uint32_t id = g->order[i];
        for (uint32_t j = g->out_off[id]; j < g->out_off[id + 1]; j++)
            all[k++] = g->out_e[j];
    }
    pprof_status st = sorted_copy(g, all, cnt, out);
    pprof__free(&g->a, all);
    *n = cnt;
    return st;
}

/* ---- tags (dot): label sets and the "bytes" numeric label */

typedef struct tag_key {
    uint32_t node, labels, name;
    bool numeric;
} tag_key;

static uint64_t
tag_hash(const tag_key *k)
{
    uint64_t h = pprof__mix64((uint64_t)k->node << 32 | k->labels);
    return pprof__hash_combine(h, (uint64_t)k->name << 1 | k->numeric);
}

/* At most this many cells of tag rows (4 bytes each) per graph. */
#define TAG_ROW_CELLS ((size_t)1 << 21)

/* The row of label set `labels`, made on its first tag if the cells allow; NULL: its tags are
 * in tag_index (decided once per set, so each tag is found where it was made). */
static uint32_t *
tag_row(pprof__graph *g, uint32_t labels)
{
    if (labels >= g->n_tag_row) {
        size_t n = (size_t)labels + 1 > 2 * g->n_tag_row ? (size_t)labels + 1 : 2 * g->n_tag_row;
        uint32_t **rows = pprof__realloc(&g->a, g->tag_row, n * sizeof(uint32_t *));
        if (!rows)
            return NULL;
        g->tag_row = rows;
        uint8_t *kind = pprof__realloc(&g->a, g->tag_row_kind, n);
        if (!kind)
            return NULL;
        g->tag_row_kind = kind;
        for (size_t i = g->n_tag_row; i < n; i++)
            rows[i] = NULL, kind[i] = 0;
        g->n_tag_row = n;
    }
    if (g->tag_row_kind[labels])
        return g->tag_row[labels];
    size_t nn = g->n_ranked ? g->n_ranked : 1;
    uint32_t *r = NULL;
    if (g->tag_rank && g->tag_row_cells + nn <= TAG_ROW_CELLS &&
        (r = pprof__malloc(&g->a, nn * sizeof(uint32_t)))) {
        memset(r, 0xff, nn * sizeof(uint32_t)); /* PPROF_NONE */
        g->tag_row_cells += nn;
    }
    g->tag_row_kind[labels] = 1;
    return g->tag_row[labels] = r;
}

static pprof__gtag *
new_tag(pprof__graph *g, const tag_key *k, int64_t value)
{
    pprof__gtag *nt = pprof__vec_push(&g->a, &g->tags, sizeof(pprof__gtag));
    if (nt)
        *nt = (pprof__gtag){k->node, k->labels, k->name, 0, k->numeric, false, value, 0, 0, 0, 0};
    return nt;
}

static pprof__gtag *
find_tag(pprof__graph *g, const tag_key *k, int64_t value)
{
    /* a label-set tag of a set with a row: looked up by index (the tags are made in the same
     * order either way) */
    uint32_t *row =
        !k->numeric && k->name == k->labels && g->tag_rank && g->tag_rank[k->node] != PPROF_NONE
            ? tag_row(g, k->labels)
            : NULL;
    if (row) {
        uint32_t *cell = &row[g->tag_rank[k->node]];
        if (*cell != PPROF_NONE)
            return (pprof__gtag *)g->tags.data + *cell;
        uint32_t id = (uint32_t)g->tags.len;
        pprof__gtag *nt = new_tag(g, k, value);
        if (nt)
            *cell = id;
        return nt;
    }
    uint64_t h = tag_hash(k);
    if (pprof__htab_full(&g->tag_index) && !pprof__htab_reserve(&g->tag_index, &g->a, 1))
        return NULL;
    pprof__htab_probe pr;
    uint32_t v;
    pprof__gtag *t = g->tags.data;
    PPROF__HTAB_FIND(&g->tag_index, h, pr, v,
                     t[v].node == k->node && t[v].labels == k->labels && t[v].name == k->name &&
                         t[v].numeric == k->numeric);
    if (v != PPROF_NONE)
        return &t[v];
    uint32_t id = (uint32_t)g->tags.len;
    pprof__gtag *nt = new_tag(g, k, value);
    if (!nt)
        return NULL;
    pprof__htab_insert_at(&g->tag_index, &pr, id);
    return nt;
}

static int
cstr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static pprof_string
pstr(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

/* joinLabels: "key:value" of the string labels (pprof::base removed), sorted, joined by the
 * two characters \n. */
static uint32_t
label_set(pprof__graph *g, const pprof_profile *p, const pprof__sample *s, pprof_buffer *tmp,
          char ***parts, size_t *cap)
{
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    tmp->len = 0;
    size_t n = 0;
    if (s->n_lab > *cap) {
        char **np = pprof__realloc(&g->a, *parts, s->n_lab * sizeof(char *));
        if (!np)
            return PPROF_NONE;
        *parts = np;
        *cap = s->n_lab;
    }
    for (uint32_t k = 0; k < s->n_lab; k++) {
        if (!l[k].str)
            continue;
        pprof_string key = pstr(p, l[k].key), v = pstr(p, l[k].str);
        if (key.len == 11 && !memcmp(key.data, "pprof::base", 11))
            continue;
        if (pprof__buffer_printf(tmp, "%.*s:%.*s", (int)key.len, key.data, (int)v.len, v.data) ||
            pprof__buffer_append(tmp, "", 1))
            return PPROF_NONE;
        n++;
    }
    if (!n)
        return 0;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        (*parts)[i] = (char *)tmp->data + pos;
        pos += strlen((*parts)[i]) + 1;
    }
    qsort(*parts, n, sizeof(char *), cstr_cmp);
    pprof_buffer joined = {0};
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (i)
            st = pprof__buffer_append(&joined, "\\n", 2);
        if (!st)
            st = pprof__buffer_append(&joined, (*parts)[i], strlen((*parts)[i]));
    }
    uint32_t id = st ? PPROF_NONE : intern(g, (const char *)joined.data, joined.len);
    pprof_buffer_free(&joined);
    return id;
}

/* label_set's answers for recent samples: a sample with the same string labels (key and
 * value, in the same order) as the one cached in its slot has the same set, already interned. */
#define LABEL_CACHE 1024

typedef struct label_cache_slot {
    uint32_t sample; /* + 1; 0: empty */
    uint32_t labels;
} label_cache_slot;

static uint64_t
str_labels_hash(const pprof_profile *p, const pprof__sample *s)
{
    const pprof_label *l = (const pprof_label *)p->labels.data + s->lab_off;
    uint64_t h = 0;
    for (uint32_t k = 0; k < s->n_lab; k++)
        if (l[k].str)
            h = pprof__hash_combine(pprof__mix64((uint64_t)l[k].key + h), (uint64_t)l[k].str);
    return h;
}

static bool
same_str_labels(const pprof_profile *p, const pprof__sample *a, const pprof__sample *b)
{
    const pprof_label *x = (const pprof_label *)p->labels.data + a->lab_off;
    const pprof_label *y = (const pprof_label *)p->labels.data + b->lab_off;
    uint32_t i = 0, j = 0;
    for (;;) {
        while (i < a->n_lab && !x[i].str)
            i++;
        while (j < b->n_lab && !y[j].str)
            j++;
        if (i == a->n_lab || j == b->n_lab)
            return i == a->n_lab && j == b->n_lab;
        if (x[i].key != y[j].key || x[i].str != y[j].str)
            return false;
        i++, j++;
    }
}

static uint32_t
cached_label_set(pprof__graph *g, const pprof_profile *p, const pprof__sample *s,
                 label_cache_slot *cache, pprof_buffer *tmp, char ***parts, size_t *cap)
{
    if (!cache)
        return label_set(g, p, s, tmp, parts, cap);
    label_cache_slot *c = &cache[str_labels_hash(p, s) & (LABEL_CACHE - 1)];
    const pprof__sample *s0 = p->samples.data;
    if (c->sample && same_str_labels(p, s, &s0[c->sample - 1]))
        return c->labels;
    uint32_t id = label_set(g, p, s, tmp, parts, cap);
    if (id != PPROF_NONE)
        *c = (label_cache_slot){(uint32_t)(s - s0) + 1, id};
    return id;
}

/* Profile.NumLabelUnits for the key "bytes": its first unit, else "bytes". */
static void
bytes_unit(const pprof_profile *p, char *out, size_t cap)
{
    snprintf(out, cap, "bytes");
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
        for (uint32_t k = 0; k < s->n_lab; k++) {
            if (l[k].str || (!l[k].num && !l[k].num_unit))
                continue;
            pprof_string key = pstr(p, l[k].key), u = pstr(p, l[k].num_unit);
            if (key.len == 5 && !memcmp(key.data, "bytes", 5) && u.len) {
                snprintf(out, cap, "%.*s", (int)u.len, u.data);
                return;
            }
        }
    }
}

static void
add_tag_value(pprof__gtag *t, int64_t v, int64_t d, bool flat)
{
    if (flat) {
        t->flat = pprof__add64(t->flat, v);
        t->flat_div = pprof__add64(t->flat_div, d);
    } else {
        t->cum = pprof__add64(t->cum, v);
        t->cum_div = pprof__add64(t->cum_div, d);
    }
}

/* The sample's numeric "bytes" labels (the tags' numeric ones), at most n_lab, into out; their
 * count. Found once per sample, not once per node of its stack. */
static uint32_t
bytes_labels(const pprof_profile *p, const pprof__sample *s, uint32_t *out)
{
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->n_lab; j++) {
        if (l[j].str || (!l[j].num && !l[j].num_unit))
            continue;
        pprof_string key = pstr(p, l[j].key);
        if (key.len == 5 && !memcmp(key.data, "bytes", 5))
            out[n++] = j;
    }
    return n;
}

static bool
add_tags(pprof__graph *g, const pprof_profile *p, const pprof__sample *s, uint32_t node,
         uint32_t labels, int64_t v, int64_t d, bool flat, const uint32_t *bl, uint32_t nb)
{
    if (labels) {
        tag_key k = {node, labels, labels, false};
        pprof__gtag *t = find_tag(g, &k, 0);
        if (!t)
            return false;
        add_tag_value(t, v, d, flat);
    }
    const pprof_label *l = (s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL);
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t j = bl[b];
        char name[64];
        pprof__scaled_label(name, sizeof(name), l[j].num, g->tag_unit, "minimum");
        uint32_t nid = intern(g, name, strlen(name));
        if (nid == PPROF_NONE)
            return false;
        tag_key k = {node, labels, nid, true};
        pprof__gtag *t = find_tag(g, &k, l[j].num);
        if (!t)
            return false;
        add_tag_value(t, v, d, flat);
    }
    return true;
}

/* Node.addSample's tags, for the nodes in the set. */
static pprof_status
build_tags(const pprof__rctx *c, pprof__graph *g)
{
    const pprof_profile *p = c->p;
    bytes_unit(p, g->tag_unit, sizeof(g->tag_unit));
    uint32_t *zero = pprof__vec_push(&g->a, &g->str_off, sizeof(uint32_t));
    if (!zero || pprof__buffer_append(&g->str_buf, "", 1))
        return nomem(c);
    *zero = 0;
    uint32_t *one = pprof__vec_push(&g->a, &g->str_off, sizeof(uint32_t));
    if (!one)
        return nomem(c);
    *one = 1;
    size_t max_depth = 0, max_lab = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        max_depth = s->n_loc > max_depth ? s->n_loc : max_depth;
        max_lab = s->n_lab > max_lab ? s->n_lab : max_lab;
    }
    /* the rows of label-set tags cover the nodes in the set (the only ones given tags) */
    g->tag_rank = pprof__malloc(&g->a, (g->nodes.n ? g->nodes.n : 1) * sizeof(uint32_t));
    if (g->tag_rank)
        for (size_t i = 0; i < g->nodes.n; i++)
            g->tag_rank[i] = g->in_set[i] ? (uint32_t)g->n_ranked++ : PPROF_NONE;
    uint32_t *idx = pprof__malloc(&g->a, (max_depth + 1) * sizeof(uint32_t));
    uint32_t *stamp = pprof__malloc(&g->a, (g->nodes.n ? g->nodes.n : 1) * sizeof(uint32_t));
    label_cache_slot *cache = pprof__malloc(&g->a, LABEL_CACHE * sizeof(label_cache_slot));
    if (cache)
        memset(cache, 0, LABEL_CACHE * sizeof(label_cache_slot));
    pprof_buffer tmp = {0};
    char **parts = NULL;
    size_t cap = 0;
    uint32_t *bl = pprof__malloc(&g->a, (max_lab ? max_lab : 1) * sizeof(uint32_t));
    pprof_status st = PPROF_OK;
    if (!idx || !stamp || !bl)
        st = nomem(c);
    else
        memset(stamp, 0, g->nodes.n * sizeof(uint32_t));
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t v = PPROF__AT(p->values, int64_t, s->val_off + g->nodes.sample_index);
        int64_t d = pprof__mean_divisor(c->p, s, c->o->mean);
        if ((v == 0 && d == 0) || !s->n_lab || (st = pprof__sample_locs(p, i, idx, c->err)))
            continue;
        uint32_t labels = cached_label_set(g, p, s, cache, &tmp, &parts, &cap);
        if (labels == PPROF_NONE) {
            st = nomem(c);
            break;
        }
        uint32_t sid = (uint32_t)(i + 1), leaf = PPROF_NONE, nb = bytes_labels(p, s, bl);
        for (uint32_t j = s->n_loc; j-- > 0 && !st;) {
            size_t cnt;
            const uint32_t *ln = pprof__nodes_of(&g->nodes, idx[j], &cnt);
            for (size_t k = cnt; k-- > 0;) {
                uint32_t n = ln[k];
                leaf = n;
                if (!g->in_set[n] || stamp[n] == sid)
                    continue;
                stamp[n] = sid;
                if (!add_tags(g, p, s, n, labels, v, d, false, bl, nb)) {
                    st = nomem(c);
                    break;
                }
            }
        }
        if (!st && leaf != PPROF_NONE && g->in_set[leaf] &&
            !add_tags(g, p, s, leaf, labels, v, d, true, bl, nb))
            st = nomem(c);
    }
    pprof_buffer_free(&tmp);
    pprof__free(&g->a, parts);
    pprof__free(&g->a, idx);
    pprof__free(&g->a, stamp);
    pprof__free(&g->a, cache);
    pprof__free(&g->a, bl);
    return st;
}

/* build_tags on a worker while the caller builds the edges: the two fill disjoint parts of the
 * graph and only read the profile, the nodes and in_set, so the graph is the one a single
 * thread makes. The job's error is its own until the caller takes it. */
static pprof_status rebuild(const pprof__rctx *c, pprof__graph *g);

typedef struct tags_job {
    const pprof__rctx *c;
    pprof__graph *g;
    pprof_status st;
    pprof_error err;
} tags_job;

static void
run_tags(void *arg)
{
    tags_job *j = arg;
    pprof__rctx c = *j->c;
    c.err = &j->err;
    j->st = build_tags(&c, j->g);
}

/* rebuild, then (visual) build_tags; at once when the context allows two threads. */
static pprof_status
edges_and_tags(const pprof__rctx *c, pprof__graph *g, bool tags)
{
    if (tags)
        g->with_tags = true;
    pprof__pool *pool = tags && c->threads > 1 ? pprof__pool_new(1) : NULL;
    tags_job tj = {.c = c, .g = g, .st = PPROF_OK};
    pprof__job job = {.fn = run_tags, .arg = &tj, .name = "pprof-graph-tags"};
    bool started = pool && pprof__pool_start(pool, &job);
    pprof_status st = rebuild(c, g);
    if (started)
        pprof__pool_wait(&job);
    pprof__pool_free(pool);
    if (st || !tags)
        return st;
    if (!started)
        return build_tags(c, g);
    if (tj.st && c->err)
        *c->err = tj.err;
    return tj.st;
}

/* trimLowFreqTags. */
static void
trim_tags(pprof__graph *g, int64_t cutoff)
{
    pprof__gtag *t = g->tags.data;
    for (size_t i = 0; i < g->tags.len; i++)
        if (pprof__abs64(t[i].flat) < cutoff && pprof__abs64(t[i].cum) < cutoff)
            t[i].dead = true;
}

static pprof_status
index_tags(pprof__graph *g)
{
    size_t n = g->nodes.n, nt = g->tags.len;
    pprof__free(&g->a, g->tag_off);
    pprof__free(&g->a, g->tag_list);
    g->tag_off = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    g->tag_list = pprof__malloc(&g->a, (nt ? nt : 1) * sizeof(uint32_t));
    if (!g->tag_off || !g->tag_list)
        return PPROF_E_NOMEM;
    memset(g->tag_off, 0, (n + 1) * sizeof(uint32_t));
    const pprof__gtag *t = g->tags.data;
    for (size_t i = 0; i < nt; i++)
        if (!t[i].dead)
            g->tag_off[t[i].node + 1]++;
    for (size_t i = 0; i < n; i++)
        g->tag_off[i + 1] += g->tag_off[i];
    uint32_t *pos = pprof__malloc(&g->a, (n + 1) * sizeof(uint32_t));
    if (!pos)
        return PPROF_E_NOMEM;
    memcpy(pos, g->tag_off, (n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < nt; i++)
        if (!t[i].dead)
            g->tag_list[pos[t[i].node]++] = (uint32_t)i;
    pprof__free(&g->a, pos);
    return PPROF_OK;
}

/* countTags: tags with a nonzero flat (after index_tags). */
static size_t
count_tags(const pprof__graph *g, uint32_t node)
{
    size_t n = 0;
    const pprof__gtag *t = g->tags.data;
    for (uint32_t i = g->tag_off[node]; i < g->tag_off[node + 1]; i++)
        n += t[g->tag_list[i]].flat != 0;
    return n;
}

/* ---- order */

typedef struct sort_ctx {
    const pprof__graph *g;
    const int64_t *score; /* per node id: the first key */
    bool score_then_name; /* CumNameOrder and EntropyOrder: score, name, flat */
} sort_ctx;

static int
sprint_cmp(const pprof__node_info *a, const pprof__node_info *b)
{
    /* fmt.Sprint of a NodeInfo, the last tie-break (graph.compareNodes) */
    char x[512], y[512];
    snprintf(x, sizeof(x), "{%.*s  %" PRIu64 " %.*s %" PRId64 " %" PRId64 " %.*s}",
             (int)(a->name.len > 150 ? 150 : a->name.len), a->name.data, a->address,
             (int)(a->file.len > 150 ? 150 : a->file.len), a->file.data, a->start_line, a->lineno,
             (int)(a->objfile.len > 150 ? 150 : a->objfile.len), a->objfile.data);
    snprintf(y, sizeof(y), "{%.*s  %" PRIu64 " %.*s %" PRId64 " %" PRId64 " %.*s}",
             (int)(b->name.len > 150 ? 150 : b->name.len), b->name.data, b->address,
             (int)(b->file.len > 150 ? 150 : b->file.len), b->file.data, b->start_line, b->lineno,
             (int)(b->objfile.len > 150 ? 150 : b->objfile.len), b->objfile.data);
    return strcmp(x, y);
}

static int
node_order(const sort_ctx *c, uint32_t l, uint32_t r)
{
    const pprof__graph *g = c->g;
    const int64_t *flat = g->nodes.flat, *cum = g->nodes.cum;
    int64_t a = pprof__abs64(c->score[l]), b = pprof__abs64(c->score[r]);
    if (a != b)
        return a > b ? -1 : 1;
    int k = name_cmp(g, l, r);
    if (k)
        return k;
    const int64_t *second = c->score_then_name ? flat : cum;
    a = pprof__abs64(second[l]);
    b = pprof__abs64(second[r]);
    if (a != b)
        return a > b ? -1 : 1;
    return sprint_cmp(&g->nodes.info[l], &g->nodes.info[r]);
}

static void
sort_nodes_rec(const sort_ctx *c, uint32_t *v, uint32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_nodes_rec(c, v, tmp, h);
    sort_nodes_rec(c, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = node_order(c, v[j], v[i]) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof(uint32_t));
}

/* edgeEntropyScore over the live in (or out) edges of node. */
static double
edge_entropy(const pprof__graph *g, uint32_t node, bool in, int64_t self)
{
    const uint32_t *off = in ? g->in_off : g->out_off, *list = in ? g->in_e : g->out_e;
    const pprof__gedge *e = g->edges.data;
    double score = 0;
    int64_t total = self;
    for (uint32_t j = off[node]; j < off[node + 1]; j++)
        if (e[list[j]].w > 0)
            total = pprof__add64(total, pprof__abs64(e[list[j]].w));
    if (total != 0) {
        for (uint32_t j = off[node]; j < off[node + 1]; j++) {
            double frac = (double)pprof__abs64(e[list[j]].w) / (double)total;
            score += -frac * log2(frac);
        }
        if (self > 0) {
            double frac = (double)pprof__abs64(self) / (double)total;
            score += -frac * log2(frac);
        }
    }
    return score;
}

static pprof_status
sort_graph(pprof__graph *g, bool cum_sort, bool visual)
{
    int64_t *score = NULL;
    const int64_t *s = cum_sort ? g->nodes.cum : g->nodes.flat;
    if (visual) {
        score = pprof__malloc(&g->a, (g->nodes.n ? g->nodes.n : 1) * sizeof(int64_t));
        if (!score)
            return PPROF_E_NOMEM;
        for (size_t i = 0; i < g->n; i++) {
            uint32_t n = g->order[i];
            double sc = 0;
            int64_t flat = g->nodes.flat[n];
            sc += g->in_off[n + 1] == g->in_off[n] ? 1 : edge_entropy(g, n, true, 0);
            sc += g->out_off[n + 1] == g->out_off[n] ? 1 : edge_entropy(g, n, false, flat);
            score[n] = pprof__add64(pprof__go_i64(sc * (double)g->nodes.cum[n]), flat);
        }
        s = score;
    }
    uint32_t *tmp = pprof__malloc(&g->a, (g->n ? g->n : 1) * sizeof(uint32_t));
    if (!tmp) {
        pprof__free(&g->a, score);
        return PPROF_E_NOMEM;
    }
    sort_ctx c = {g, s, visual || cum_sort};
    sort_nodes_rec(&c, g->order, tmp, g->n);
    pprof__free(&g->a, tmp);
    pprof__free(&g->a, score);
    return PPROF_OK;
}

/* ---- the passes of newTrimmedGraph */

/* newGraph(kept): the nodes of the set with a nonzero flat or cum, and their edges. */
static pprof_status
rebuild(const pprof__rctx *c, pprof__graph *g)
{
    g->n = 0;
    for (uint32_t i = 0; i < g->nodes.n; i++)
        if (g->in_set[i] && (g->nodes.flat[i] || g->nodes.cum[i]))
            g->order[g->n++] = i;
    pprof_status st = build_edges(c, g);
    if (!st && index_edges(g))
        st = nomem(c);
    return st;
}

static size_t
trim_edges(pprof__graph *g, int64_t cutoff)
{
    size_t dropped = 0;
    pprof__gedge *e = g->edges.data;
    /* Go walks the In maps of the graph's nodes */
    for (size_t i = 0; i < g->n; i++) {
        uint32_t n = g->order[i];
        for (uint32_t j = g->in_off[n]; j < g->in_off[n + 1]; j++) {
            pprof__gedge *x = &e[g->in_e[j]];
            if (!x->dead && pprof__abs64(x->w) < cutoff) {
                x->dead = true;
                dropped++;
            }
        }
    }
    return dropped;
}

/* isRedundantEdge: is e's source reachable from its destination going up other in edges? */
static bool
redundant(const pprof__graph *g, uint32_t ei, uint32_t *queue, uint8_t *seen)
{
    const pprof__gedge *e = g->edges.data;
    uint32_t src = e[ei].src, n0 = e[ei].dst;
    size_t head = 0, tail = 0;
    queue[tail++] = n0;
    seen[n0] = 1;
    bool found = false;
    while (head < tail && !found) {
        uint32_t n = queue[head++];
        for (uint32_t j = g->in_off[n]; j < g->in_off[n + 1]; j++) {
            const pprof__gedge *ie = &e[g->in_e[j]];
            if (ie->dead || g->in_e[j] == ei || seen[ie->src])
                continue;
            if (ie->src == src) {
                found = true;
                break;
            }
            seen[ie->src] = 1;
            queue[tail++] = ie->src;
        }
    }
    for (size_t i = 0; i < tail; i++)
        seen[queue[i]] = 0;
    return found;
}

static pprof_status
remove_redundant(pprof__graph *g)
{
    size_t nn = g->nodes.n ? g->nodes.n : 1;
    uint32_t *queue = pprof__malloc(&g->a, nn * sizeof(uint32_t));
    uint8_t *seen = pprof__malloc(&g->a, nn);
    if (!queue || !seen) {
        pprof__free(&g->a, queue);
        pprof__free(&g->a, seen);
        return PPROF_E_NOMEM;
    }
    memset(seen, 0, nn);
    pprof_status st = PPROF_OK;
    pprof__gedge *e = g->edges.data;
    for (size_t i = g->n; i-- > 0 && !st;) {
        uint32_t n = g->order[i];
        size_t cnt = 0;
        uint32_t *live =
            pprof__malloc(&g->a, (g->in_off[n + 1] - g->in_off[n] + 1) * sizeof(uint32_t));
        if (!live) {
            st = PPROF_E_NOMEM;
            break;
        }
        for (uint32_t j = g->in_off[n]; j < g->in_off[n + 1]; j++)
            if (!e[g->in_e[j]].dead)
                live[cnt++] = g->in_e[j];
        uint32_t *in = NULL;
        st = sorted_copy(g, live, cnt, &in);
        pprof__free(&g->a, live);
        for (size_t j = cnt; j-- > 0 && !st;) {
            if (!e[in[j]].residual)
                break;
            if (redundant(g, in[j], queue, seen))
                e[in[j]].dead = true;
        }
        pprof__free(&g->a, in);
    }
    pprof__free(&g->a, queue);
    pprof__free(&g->a, seen);
    return st;
}

/* selectTopNodes: the first max nodes; in visual mode each node also counts its nodelets. */
static size_t
select_top(const pprof__graph *g, size_t max, bool visual)
{
    if (max > 0 && visual) {
        size_t count = 0;
        for (size_t i = 0; i < g->n; i++) {
            size_t tags = g->with_tags ? count_tags(g, g->order[i]) : 0;
            count += (tags > 4 ? 4 : tags) + 1;
            if (count >= max) {
                max = i + 1;
                break;
            }
        }
    }
    return max > g->n ? g->n : max;
}

pprof_status
pprof__graph_build(const pprof__rctx *c, const pprof__graph_opts *o, pprof__graph *g)
{
    memset(g, 0, sizeof(*g));
    g->a = c->a;
    pprof__nodes_cfg cfg = {o->granularity, o->obj_names, c->o->trim_path, c->o->source_path,
                            c->o->mean};
    pprof_status st = pprof__nodes_build_cfg(c->p, c->index, &cfg, &g->a, &g->nodes, c->err);
    if (st)
        return st;
    size_t nn = g->nodes.n ? g->nodes.n : 1;
    g->in_set = pprof__malloc(&g->a, nn);
    g->order = pprof__malloc(&g->a, nn * sizeof(uint32_t));
    if (!g->in_set || !g->order || pprof__graph_names(g))
        return nomem(c);
    memset(g->in_set, 1, nn);
    int64_t total = g->nodes.flat_sum;
    int64_t node_cutoff = pprof__abs64(pprof__go_i64((double)total * o->node_fraction));
    int64_t edge_cutoff = pprof__abs64(pprof__go_i64((double)total * o->edge_fraction));
    g->node_cutoff = node_cutoff;
    g->edge_cutoff = edge_cutoff;
    size_t nonzero = 0, kept = 0;
    for (uint32_t i = 0; i < g->nodes.n; i++) {
        bool nz = g->nodes.flat[i] || g->nodes.cum[i];
        nonzero += nz;
        if (node_cutoff > 0) {
            g->in_set[i] = nz && pprof__abs64(g->nodes.cum[i]) >= node_cutoff;
            kept += g->in_set[i];
        }
    }
    if (node_cutoff > 0 && kept != nonzero)
        g->dropped_nodes = nonzero - kept;
    else
        memset(g->in_set, 1, nn);
    if ((st = edges_and_tags(c, g, o->visual)))
        return st;
    g->orig_count = g->n;
    if (sort_graph(g, o->cum_sort, o->visual))
        return nomem(c);
    if (o->node_count > 0) {
        trim_tags(g, node_cutoff);
        trim_edges(g, edge_cutoff);
        if (g->with_tags && index_tags(g))
            return nomem(c);
        size_t top = select_top(g, o->node_count, o->visual);
        if (top != g->n) {
            memset(g->in_set, 0, nn);
            for (size_t i = 0; i < top; i++)
                g->in_set[g->order[i]] = 1;
            if ((st = rebuild(c, g)))
                return st;
            if (sort_graph(g, o->cum_sort, o->visual))
                return nomem(c);
        } else if (index_edges(g)) {
            return nomem(c);
        }
    }
    trim_tags(g, node_cutoff);
    g->dropped_edges = trim_edges(g, edge_cutoff);
    if (index_edges(g))
        return nomem(c);
    if (o->visual) {
        if (remove_redundant(g) || index_edges(g))
            return nomem(c);
    }
    if (g->with_tags && index_tags(g))
        return nomem(c);
    return PPROF_OK;
}

void
pprof__graph_free(pprof__graph *g)
{
    pprof__free(&g->a, g->name_buf);
    pprof__free(&g->a, g->name_off);
    pprof__free(&g->a, g->in_set);
    pprof__free(&g->a, g->order);
    pprof__free(&g->a, g->edges.data);
    pprof__u64map_free(&g->emap, &g->a);
    pprof__free(&g->a, g->in_off);
    pprof__free(&g->a, g->in_e);
    pprof__free(&g->a, g->out_off);
    pprof__free(&g->a, g->out_e);
    pprof__free(&g->a, g->tags.data);
    pprof__htab_free(&g->tag_index, &g->a);
    for (size_t i = 0; i < g->n_tag_row; i++)
        pprof__free(&g->a, g->tag_row[i]);
    pprof__free(&g->a, g->tag_row);
    pprof__free(&g->a, g->tag_row_kind);
    pprof__free(&g->a, g->tag_rank);
    pprof__free(&g->a, g->walk);
    pprof__free(&g->a, g->walk_v);
    pprof__free(&g->a, g->walk_d);
    pprof_buffer_free(&g->str_buf);
    pprof__free(&g->a, g->str_off.data);
    pprof__htab_free(&g->str_index, &g->a);
    pprof__free(&g->a, g->tag_off);
    pprof__free(&g->a, g->tag_list);
    pprof__nodes_free(&g->nodes);
    memset(g, 0, sizeof(*g));
}

void
pprof__select_output_unit(pprof__rctx *c, const pprof__graph *g)
{
    if (strcmp(c->output_unit, "minimum") || !g->n)
        return;
    int64_t min = 0, max = c->total;
    for (size_t i = 0; i < g->n; i++) {
        uint32_t n = g->order[i];
        int64_t m = pprof__abs64(pprof__flat_value(&g->nodes, n));
        if (!m)
            m = pprof__abs64(pprof__cum_value(&g->nodes, n));
        if (m > 0 && (min == 0 || m < min))
            min = m;
    }
    if (min == 0)
        min = max;
    const char *umin, *umax, *u;
    pprof__scale(min, c->unit, "minimum", &umin);
    pprof__scale(max, c->unit, "minimum", &umax);
    u = umin;
    if (strcmp(umin, umax) && (double)min * 100 < (double)max &&
        c->o->format != PPROF_REPORT_CALLGRIND)
        pprof__scale((int64_t)((uint64_t)min * 100), c->unit, "minimum", &u);
    snprintf(c->output_unit_buf, sizeof(c->output_unit_buf), "%s", *u ? u : c->unit);
    c->output_unit = c->output_unit_buf;
}
