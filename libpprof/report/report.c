/* pprof_report: `go tool pprof -top`. The nodes come from report-nodes.c; this file trims them
 * the way report.newTrimmedGraph does (cum cutoff, order, node count), marks inlined nodes from
 * the call edges between the nodes kept, and prints Go's text layout or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "report-graph-private.h"
#include "text-private.h"

typedef struct rnode {
    char *name;
    size_t name_len;
    int64_t flat, cum;   /* printed: Go's FlatValue and CumValue */
    int64_t sflat, scum; /* ordered by: the sums (the same without -mean) */
    pprof_inline_mark mark;
    uint32_t id;
    bool cum_sort;
    const pprof__node_info *info;
} rnode;

struct pprof_report {
    pprof_allocator a;
    pprof__arena arena;
    rnode *nodes;
    size_t n;
    pprof_report_summary sum;
    double node_fraction;
    char **labels; /* header lines of ProfileLabels */
    size_t n_labels;
    const char *output_unit;
};

void
pprof_report_options_init(pprof_report_options *opts)
{
    pprof_report_options d = PPROF_REPORT_OPTIONS_INIT;
    *opts = d;
}

bool
pprof_granularity_parse(const char *name, pprof_granularity *out)
{
    static const char *const names[] = {"functions", "filefunctions", "files", "lines",
                                        "addresses"};
    for (int i = 0; i < 5; i++)
        if (name && !strcmp(name, names[i])) {
            *out = (pprof_granularity)(PPROF_GRANULARITY_FUNCTIONS + i);
            return true;
        }
    return false;
}

/* ---- ordering (graph.Nodes.Sort, FlatNameOrder and CumNameOrder) */

/* fmt.Sprint of a NodeInfo, the last tie-break (graph.compareNodes). */
static void
sprint_info(char *x, size_t cap, const pprof__node_info *a)
{
    snprintf(x, cap, "{%.*s  %" PRIu64 " %.*s %" PRId64 " %" PRId64 " %.*s}",
             (int)(a->name.len > 150 ? 150 : a->name.len), a->name.data, a->address,
             (int)(a->file.len > 150 ? 150 : a->file.len), a->file.data, a->start_line, a->lineno,
             (int)(a->objfile.len > 150 ? 150 : a->objfile.len), a->objfile.data);
}

static int
node_cmp(const void *x, const void *y)
{
    const rnode *l = x, *r = y;
    int64_t lp = l->cum_sort ? l->scum : l->sflat, rp = l->cum_sort ? r->scum : r->sflat;
    if (pprof__abs64(lp) != pprof__abs64(rp))
        return pprof__abs64(lp) > pprof__abs64(rp) ? -1 : 1;
    size_t n = l->name_len < r->name_len ? l->name_len : r->name_len;
    int c = memcmp(l->name, r->name, n);
    if (c)
        return c;
    if (l->name_len != r->name_len)
        return l->name_len < r->name_len ? -1 : 1;
    int64_t ls = l->cum_sort ? l->sflat : l->scum, rs = l->cum_sort ? r->sflat : r->scum;
    if (pprof__abs64(ls) != pprof__abs64(rs))
        return pprof__abs64(ls) > pprof__abs64(rs) ? -1 : 1;
    char a[512], b[512];
    sprint_info(a, sizeof(a), l->info);
    sprint_info(b, sizeof(b), r->info);
    return strcmp(a, b);
}

/* ---- inline marks: the In edges of report.TextItems, over the nodes kept */

typedef struct edge {
    uint32_t parent, stamp;
    int64_t weight;
    bool is_inline;
} edge;

typedef struct edges {
    edge *e;
    size_t n, cap;
} edges;

static bool
add_edge(const pprof_allocator *a, edges *in, uint32_t parent, uint32_t stamp, int64_t v,
         bool is_inline, bool *ovf)
{
    for (size_t i = 0; i < in->n; i++) {
        edge *e = &in->e[i];
        if (e->parent != parent)
            continue;
        if (e->stamp != stamp) {
            e->stamp = stamp;
            *ovf |= __builtin_add_overflow(e->weight, v, &e->weight);
            if (!is_inline)
                e->is_inline = false;
        }
        return true;
    }
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 4;
        edge *ne = pprof__realloc(a, in->e, cap * sizeof(edge));
        if (!ne)
            return false;
        in->e = ne;
        in->cap = cap;
    }
    in->e[in->n++] = (edge){parent, stamp, v, is_inline};
    return true;
}

static pprof_status
mark_inline(const pprof_profile *p, const pprof__nodes *nodes, pprof_report *r, int64_t edge_cutoff,
            pprof_error *err)
{
    const pprof_allocator *a = &r->a;
    uint32_t *pos = pprof__malloc(a, (nodes->n ? nodes->n : 1) * sizeof(uint32_t));
    edges *in = pprof__malloc(a, (r->n ? r->n : 1) * sizeof(edges));
    if (in) /* zeroed at once: the cleanup frees every in[i].e, also when pos or idx failed */
        memset(in, 0, (r->n ? r->n : 1) * sizeof(edges));
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    uint32_t *idx = pprof__malloc(a, (max_depth + 1) * sizeof(uint32_t));
    pprof_status st = PPROF_OK;
    bool ovf = false;
    if (!pos || !in || !idx) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto out;
    }
    memset(pos, 0, nodes->n * sizeof(uint32_t));
    for (size_t i = 0; i < r->n; i++)
        pos[r->nodes[i].id] = (uint32_t)(i + 1);
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t v = PPROF__AT(p->values, int64_t, s->val_off + nodes->sample_index);
        /* -mean: Go skips a sample only when its value and its divisor are both 0 */
        bool div = pprof__mean_divisor(p, s, nodes->flat_div != NULL) != 0;
        if ((v == 0 && !div) || (st = pprof__sample_locs(p, i, idx, err)))
            continue;
        uint32_t parent = PPROF_NONE, stamp = (uint32_t)(i + 1);
        for (uint32_t j = s->n_loc; j-- > 0 && !st;) {
            size_t k, cnt;
            const uint32_t *ln = pprof__nodes_of(nodes, idx[j], &cnt);
            for (k = cnt; k-- > 0;) {
                uint32_t n = ln[k];
                if (!pos[n])
                    continue;
                if (parent != PPROF_NONE && n != parent &&
                    !add_edge(a, &in[pos[n] - 1], parent, stamp, v, k != cnt - 1, &ovf)) {
                    st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
                    break;
                }
                parent = n;
            }
        }
    }
    for (size_t i = 0; i < r->n && !st; i++) {
        bool inl = false, noinl = false;
        for (size_t k = 0; k < in[i].n; k++) {
            if (pprof__abs64(in[i].e[k].weight) < edge_cutoff)
                continue;
            if (in[i].e[k].is_inline)
                inl = true;
            else
                noinl = true;
        }
        r->nodes[i].mark = inl ? noinl ? PPROF_INLINE_MARK_PARTIAL : PPROF_INLINE_MARK_INLINE
                               : PPROF_INLINE_MARK_NONE;
    }
out:
    if (in)
        for (size_t i = 0; i < r->n; i++)
            pprof__free(a, in[i].e);
    pprof__free(a, in);
    pprof__free(a, pos);
    pprof__free(a, idx);
    (void)ovf; /* an edge weight past int64 only blurs a mark */
    return st;
}

/* ---- header lines (report.ProfileLabels) */

static pprof_status add_label(pprof_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static pprof_status
add_label(pprof_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? pprof__arena_alloc(&r->arena, (size_t)n + 1) : NULL;
    char **nl = pprof__realloc(&r->a, r->labels, (r->n_labels + 1) * sizeof(char *));
    if (nl)
        r->labels = nl;
    if (!s || !nl)
        return PPROF_E_NOMEM;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    r->labels[r->n_labels++] = s;
    return PPROF_OK;
}

/* The shared header lines (report-labels.c), copied into the report's arena. */
static pprof_status
take_lines(pprof_report *r, pprof__lines *l, pprof_status st)
{
    size_t pos = 0;
    const char *line;
    while (!st && (line = pprof__lines_next(l, &pos)))
        st = add_label(r, "%s", line);
    pprof__lines_free(l);
    return st;
}

static pprof_status
profile_labels(const pprof_profile *p, pprof_report *r, const char *type)
{
    pprof__lines l = {0};
    return take_lines(
        r, &l,
        pprof__profile_labels(p, type, r->sum.total, r->sum.sample_unit, r->output_unit, &l));
}

/* report.selectOutputUnit with OutputUnit "minimum". */
static const char *
output_unit(const pprof_report *r)
{
    int64_t min = 0, max = r->sum.total;
    for (size_t i = 0; i < r->n; i++) {
        int64_t m = pprof__abs64(r->nodes[i].flat);
        if (!m)
            m = pprof__abs64(r->nodes[i].cum);
        if (m > 0 && (min == 0 || m < min))
            min = m;
    }
    if (!r->n)
        return "minimum";
    if (min == 0)
        min = max;
    const char *umin, *umax, *u;
    pprof__scale(min, r->sum.sample_unit, "minimum", &umin);
    pprof__scale(max, r->sum.sample_unit, "minimum", &umax);
    u = umin;
    if (strcmp(umin, umax) && (double)min * 100 < (double)max)
        pprof__scale(100 * min, r->sum.sample_unit, "minimum", &u);
    return *u ? u : r->sum.sample_unit;
}

/* report.computeTotal on the profile before filters. */
static pprof_status
unfiltered_total(const pprof_profile *u, const char *type, bool mean, int64_t *total,
                 pprof_error *err)
{
    size_t index;
    pprof_status st = pprof_sample_type_find(u, type, &index, err);
    if (!st)
        *total = pprof__report_total(u, index, mean);
    return st;
}

static pprof_status
filter_labels(pprof_report *r, const pprof_report_options *o)
{
    pprof__lines l = {0};
    return take_lines(r, &l, pprof__filter_labels(o->active_filters, o->n_active_filters, &l));
}

/* ---- building */

static pprof_status
copy_names(pprof_report *r, const pprof__nodes *nodes, pprof_error *err)
{
    pprof_buffer b = {0};
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < r->n && !st; i++) {
        b.len = 0;
        st = pprof__node_name(&nodes->info[r->nodes[i].id], &b);
        char *s = st ? NULL : pprof__arena_alloc(&r->arena, b.len);
        if (!st && !s)
            st = PPROF_E_NOMEM;
        if (s)
            memcpy(s, b.data, b.len);
        r->nodes[i].name = s;
        r->nodes[i].name_len = b.len - 1;
        r->nodes[i].info = &nodes->info[r->nodes[i].id];
    }
    pprof_buffer_free(&b);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory naming nodes");
    return PPROF_OK;
}

static pprof_status
select_nodes(const pprof_report_options *o, const pprof__nodes *nodes, pprof_report *r,
             pprof_error *err)
{
    int64_t cutoff = pprof__abs64(pprof__go_i64((double)nodes->flat_sum * o->node_fraction));
    r->nodes = pprof__malloc(&r->a, (nodes->n ? nodes->n : 1) * sizeof(rnode));
    if (!r->nodes)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    for (uint32_t i = 0; i < nodes->n; i++) {
        if (!nodes->flat[i] && !nodes->cum[i])
            continue;
        r->sum.nodes_nonzero++;
        if (cutoff > 0 && pprof__abs64(nodes->cum[i]) < cutoff)
            continue;
        r->nodes[r->n++] = (rnode){NULL,
                                   0,
                                   pprof__flat_value(nodes, i),
                                   pprof__cum_value(nodes, i),
                                   nodes->flat[i],
                                   nodes->cum[i],
                                   PPROF_INLINE_MARK_NONE,
                                   i,
                                   o->cum_sort,
                                   &nodes->info[i]};
    }
    r->sum.nodes_kept = r->n;
    pprof_status st = copy_names(r, nodes, err);
    if (st)
        return st;
    qsort(r->nodes, r->n, sizeof(rnode), node_cmp);
    if (o->node_count && o->node_count < r->n)
        r->n = o->node_count;
    for (size_t i = 0; i < r->n; i++)
        r->sum.flat_shown += r->nodes[i].flat;
    return PPROF_OK;
}

pprof_status
pprof_report_new(const pprof_profile *p, const pprof_report_options *opts, pprof_report **out,
                 pprof_error *err)
{
    pprof_report_options o = PPROF_REPORT_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    /* 0: the default; PPROF_REPORT_ALL and PPROF_REPORT_NO_CUTOFF: none (0 from here on) */
    if (o.node_count >= (size_t)PPROF_REPORT_ALL)
        o.node_count = 0;
    o.node_fraction = o.node_fraction == 0 ? 0.005 : o.node_fraction < 0 ? 0 : o.node_fraction;
    o.edge_fraction = o.edge_fraction == 0 ? 0.001 : o.edge_fraction < 0 ? 0 : o.edge_fraction;
    if (!p || !out || o.granularity > PPROF_GRANULARITY_ADDRESSES)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    *out = NULL;
    size_t index;
    /* the one validity decision (validate.c) before anything is computed */
    pprof_status st = pprof__validate(p, NULL, err);
    if (!st && o.unfiltered)
        st = pprof__validate(o.unfiltered, NULL, err);
    if (!st)
        st = pprof_sample_type_find(p, o.sample_type, &index, err);
    if (st)
        return st;
    pprof_report *r = pprof__malloc(&o.allocator, sizeof(*r));
    if (!r)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(r, 0, sizeof(*r));
    r->a = o.allocator;
    pprof__arena_init(&r->arena, &r->a);
    r->node_fraction = o.node_fraction;
    pprof__nodes nodes;
    pprof__nodes_cfg cfg = {o.granularity, false, NULL, NULL, o.mean};
    st = pprof__nodes_build_cfg(p, index, &cfg, &r->a, &nodes, err);
    if (!st)
        st = select_nodes(&o, &nodes, r, err);
    if (!st) {
        int64_t edge_cutoff = pprof__abs64(pprof__go_i64((double)nodes.flat_sum * o.edge_fraction));
        st = mark_inline(p, &nodes, r, edge_cutoff, err);
    }
    if (!st) {
        pprof_value_type vt = PPROF__AT(p->sample_types, pprof_value_type, index);
        pprof_string t = {"", 0}, u = {"", 0};
        pprof_profile_string(p, vt.type, &t);
        pprof_profile_string(p, vt.unit, &u);
        size_t pre = o.mean ? 5 : 0; /* Go prints mean_TYPE */
        char *ts = pprof__arena_alloc(&r->arena, pre + t.len + 1);
        char *us = pprof__arena_alloc(&r->arena, u.len + 1);
        if (!ts || !us) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        } else {
            memcpy(ts, "mean_", pre);
            memcpy(ts + pre, t.data, t.len);
            ts[pre + t.len] = 0;
            for (size_t i = 0; i < u.len; i++)
                us[i] = (char)(u.data[i] >= 'A' && u.data[i] <= 'Z' ? u.data[i] + 32 : u.data[i]);
            us[u.len] = 0;
            r->sum.sample_index = index;
            r->sum.sample_type = ts;
            r->sum.sample_unit = us;
            r->sum.total = nodes.total;
            if (o.unfiltered)
                st = unfiltered_total(o.unfiltered, o.sample_type, o.mean, &r->sum.total, err);
            r->output_unit = output_unit(r);
            if (!st &&
                (profile_labels(o.unfiltered ? o.unfiltered : p, r, ts) || filter_labels(r, &o)))
                st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
    }
    for (size_t i = 0; i < r->n; i++)
        r->nodes[i].info = NULL; /* the views point into p and nodes */
    pprof__nodes_free(&nodes);
    if (st) {
        pprof_report_free(r);
        return st;
    }
    *out = r;
    return PPROF_OK;
}

void
pprof_report_free(pprof_report *r)
{
    if (!r)
        return;
    pprof_allocator a = r->a;
    pprof__free(&a, r->nodes);
    pprof__free(&a, r->labels);
    pprof__arena_destroy(&r->arena);
    pprof__free(&a, r);
}

pprof_report_summary
pprof_report_get_summary(const pprof_report *r)
{
    return r->sum;
}

size_t
pprof_report_count(const pprof_report *r)
{
    return r->n;
}

pprof_report_node
pprof_report_node_at(const pprof_report *r, size_t i)
{
    pprof_report_node n = {"", 0, 0, 0, PPROF_INLINE_MARK_NONE};
    if (i < r->n)
        n = (pprof_report_node){r->nodes[i].name, r->nodes[i].name_len, r->nodes[i].flat,
                                r->nodes[i].cum, r->nodes[i].mark};
    return n;
}

/* ---- printing */

static pprof_status
print_text(const pprof_report *r, pprof_buffer *b)
{
    pprof_status st = PPROF_OK;
    char v1[64], v2[64], v3[64], p1[40], p2[40], p3[40];
    /* a unit that is no known one is printed after each value: escaped, as names are (known
     * units have nothing to escape, so the scaling is the same) */
    char su[256], ou[256];
    pprof__text_escape_cstr(su, sizeof(su), r->sum.sample_unit);
    pprof__text_escape_cstr(ou, sizeof(ou), r->output_unit);
    for (size_t i = 0; i < r->n_labels && !st; i++)
        st = pprof__buffer_printf(b, "%s\n", r->labels[i]);
    pprof__scaled_label(v1, sizeof(v1), r->sum.flat_shown, su, ou);
    pprof__percentage(p1, sizeof(p1), r->sum.flat_shown, r->sum.total);
    pprof__scaled_label(v2, sizeof(v2), r->sum.total, su, ou);
    const char *pt = p1;
    while (*pt == ' ')
        pt++;
    if (!st)
        st = pprof__buffer_printf(b, "Showing nodes accounting for %s, %s of %s total\n", v1, pt,
                                  v2);
    size_t dropped = r->sum.nodes_nonzero - r->sum.nodes_kept;
    if (!st && r->sum.total != 0 && dropped > 0) {
        pprof__scaled_label(v3, sizeof(v3),
                            pprof__abs64(pprof__go_i64((double)r->sum.total * r->node_fraction)),
                            su, ou);
        st = pprof__buffer_printf(b, "Dropped %zu node%s (cum <= %s)\n", dropped,
                                  dropped > 1 ? "s" : "", v3);
    }
    if (!st && r->sum.total != 0 && r->n > 0 && r->n < r->sum.nodes_kept)
        st = pprof__buffer_printf(b, "Showing top %zu nodes out of %zu\n", r->n, r->sum.nodes_kept);
    if (!st)
        st = pprof__buffer_printf(b, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum",
                                  "cum");
    int64_t sum = 0;
    for (size_t i = 0; i < r->n && !st; i++) {
        const rnode *n = &r->nodes[i];
        sum += n->flat;
        pprof__scaled_label(v1, sizeof(v1), n->flat, su, ou);
        pprof__scaled_label(v2, sizeof(v2), n->cum, su, ou);
        pprof__percentage(p1, sizeof(p1), n->flat, r->sum.total);
        pprof__percentage(p2, sizeof(p2), sum, r->sum.total);
        pprof__percentage(p3, sizeof(p3), n->cum, r->sum.total);
        const char *mark = n->mark == PPROF_INLINE_MARK_INLINE    ? " (inline)"
                           : n->mark == PPROF_INLINE_MARK_PARTIAL ? " (partial-inline)"
                                                                  : "";
        st = pprof__buffer_printf(b, "%10s %s %s %10s %s  ", v1, p1, p2, v2, p3);
        if (!st)
            st = pprof__text_escape(b, n->name, n->name_len);
        if (!st)
            st = pprof__buffer_printf(b, "%s\n", mark);
    }
    return st;
}

static pprof_status
print_json(const pprof_report *r, pprof_buffer *b)
{
    pprof_status st = pprof__buffer_printf(b, "{\"sample_type\":");
    if (!st)
        st = pprof__json_string(b, r->sum.sample_type, strlen(r->sum.sample_type));
    if (!st)
        st = pprof__buffer_printf(b, ",\"unit\":");
    if (!st)
        st = pprof__json_string(b, r->sum.sample_unit, strlen(r->sum.sample_unit));
    if (!st)
        st = pprof__buffer_printf(b,
                                  ",\"total\":%" PRId64 ",\"nodes_nonzero\":%zu,\"nodes_kept\":%zu,"
                                  "\"nodes\":[",
                                  r->sum.total, r->sum.nodes_nonzero, r->sum.nodes_kept);
    for (size_t i = 0; i < r->n && !st; i++) {
        const rnode *n = &r->nodes[i];
        st = pprof__buffer_printf(b, "%s\n{\"name\":", i ? "," : "");
        if (!st)
            st = pprof__json_string(b, n->name, n->name_len);
        if (!st)
            st = pprof__buffer_printf(
                b, ",\"flat\":%" PRId64 ",\"cum\":%" PRId64 ",\"inline\":\"%s\"}", n->flat, n->cum,
                n->mark == PPROF_INLINE_MARK_INLINE    ? "inline"
                : n->mark == PPROF_INLINE_MARK_PARTIAL ? "partial"
                                                       : "none");
    }
    if (!st)
        st = pprof__buffer_printf(b, "]}\n");
    return st;
}

pprof_status
pprof_report_print(const pprof_report *r, pprof_print_format format, pprof_buffer *out,
                   pprof_error *err)
{
    if (!r || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no report or no output");
    pprof_status st = format == PPROF_PRINT_JSON ? print_json(r, out) : print_text(r, out);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory printing the report");
    return PPROF_OK;
}
