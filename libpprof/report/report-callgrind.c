/* -callgrind: report.printCallgrind, the format KCachegrind and callgrind_annotate read. Nodes
 * are addresses with their inline frames (Go forces that granularity), no trimming. */
#include <stdio.h>
#include <stdlib.h>

#include "report-graph-private.h"
#include "text-private.h"

/* callgrindName: a name's first use defines "(N) name", later ones say "(N)". Names are
 * copied into the arena and found through a hash table. The format has no quoting: a name is
 * the rest of its line, so it goes through the text escape (a newline in it would start a
 * record). */
typedef struct cg_names {
    pprof_allocator a;
    pprof__arena *arena;
    pprof__htab h;
    pprof__vec s; /* pprof_string */
} cg_names;

static pprof_status
cg_name(cg_names *t, const char *s, size_t n, pprof_buffer *out)
{
    if (!n)
        return PPROF_OK;
    uint64_t hh = pprof__hash_bytes(7, s, n);
    if (pprof__htab_full(&t->h) && !pprof__htab_reserve(&t->h, &t->a, 1))
        return PPROF_E_NOMEM;
    pprof__htab_probe pr;
    uint32_t v;
    const pprof_string *tab = t->s.data;
    PPROF__HTAB_FIND(&t->h, hh, pr, v, tab[v].len == n && !memcmp(tab[v].data, s, n));
    if (v != PPROF_NONE)
        return pprof__buffer_printf(out, "(%u)", v + 1);
    char *copy = pprof__arena_alloc(t->arena, n);
    pprof_string *slot = pprof__vec_push(&t->a, &t->s, sizeof(pprof_string));
    if (!copy || !slot)
        return PPROF_E_NOMEM;
    memcpy(copy, s, n);
    *slot = (pprof_string){copy, n};
    pprof__htab_insert_at(&t->h, &pr, (uint32_t)(t->s.len - 1));
    pprof_status st = pprof__buffer_printf(out, "(%zu) ", t->s.len);
    return st ? st : pprof__text_escape(out, s, n);
}

static void
cg_names_free(cg_names *t)
{
    pprof__htab_free(&t->h, &t->a);
    pprof__free(&t->a, t->s.data);
}

static void
cg_address(char *dst, size_t cap, const pprof__node_info *prev, uint64_t cur)
{
    char abs[32];
    snprintf(abs, sizeof(abs), "0x%" PRIx64, cur);
    if (!prev) {
        snprintf(dst, cap, "%s", abs);
        return;
    }
    if (prev->address == cur) {
        snprintf(dst, cap, "*");
        return;
    }
    char rel[32];
    snprintf(rel, sizeof(rel), "%+" PRId64, (int64_t)(cur - prev->address));
    snprintf(dst, cap, "%s", strlen(rel) < strlen(abs) ? rel : abs);
}

/* The function node of an info: the same without address and line. */
static bool
same_function(const pprof__node_info *a, const pprof__node_info *b)
{
    return a->start_line == b->start_line && pprof__str_eq(a->name, b->name) &&
           pprof__str_eq(a->file, b->file) && pprof__str_eq(a->objfile, b->objfile);
}

/* getDisambiguatedNames: " [i/n]" after names shared by several functions in one file. */
static pprof_status
disambiguate(const pprof__graph *g, uint32_t *index, uint32_t *count)
{
    /* for each node in order: the first earlier node of the same file and name gives the
     * group; distinct functions in the group are numbered in order of appearance */
    size_t n = g->n;
    uint32_t *leader = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *fn_id = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!leader || !fn_id) {
        free(leader);
        free(fn_id);
        return PPROF_E_NOMEM;
    }
    const pprof__node_info *info = g->nodes.info;
    /* sort-free grouping through a hash of (file, name) */
    pprof__htab h = {0};
    pprof_allocator a = g->a;
    pprof_status st = pprof__htab_init(&h, &a, n) ? PPROF_OK : PPROF_E_NOMEM;
    for (size_t i = 0; i < n && !st; i++) {
        const pprof__node_info *x = &info[g->order[i]];
        uint64_t hh = pprof__hash_bytes(pprof__hash_bytes(1, x->name.data, x->name.len),
                                        x->file.data, x->file.len);
        pprof__htab_probe pr;
        uint32_t v;
        PPROF__HTAB_FIND(&h, hh, pr, v,
                         pprof__str_eq(info[g->order[v]].name, x->name) &&
                             pprof__str_eq(info[g->order[v]].file, x->file));
        if (v == PPROF_NONE) {
            if (pprof__htab_full(&h)) {
                if (!pprof__htab_reserve(&h, &a, 1)) {
                    st = PPROF_E_NOMEM;
                    break;
                }
                for (v = pprof__htab_probe_start(&h, hh, &pr); v != PPROF_NONE;
                     v = pprof__htab_probe_next(&h, &pr)) {
                }
            }
            pprof__htab_insert_at(&h, &pr, (uint32_t)i);
            leader[i] = (uint32_t)i;
            fn_id[i] = 0;
            count[i] = 1;
            continue;
        }
        leader[i] = v;
        /* the function's number: that of an earlier node of the same function, else next */
        uint32_t id = PPROF_NONE;
        for (size_t j = v; j < i && id == PPROF_NONE; j++)
            if (leader[j] == v && same_function(&info[g->order[j]], x))
                id = fn_id[j];
        if (id == PPROF_NONE)
            id = count[v]++;
        fn_id[i] = id;
    }
    /* after a failed reservation the nodes from there on have no leader yet */
    for (size_t i = 0; i < n && !st; i++) {
        index[i] = fn_id[i];
        count[i] = count[leader[i]];
    }
    pprof__htab_free(&h, &a);
    free(leader);
    free(fn_id);
    return st;
}

pprof_status
pprof__render_callgrind(pprof__rctx *c, pprof_buffer *out)
{
    const pprof_report_render_options *o = c->o;
    pprof__graph g;
    pprof__graph_opts go = {PPROF_GRANULARITY_ADDRESSES, false, o->cum_sort, true, 0, 0, 0};
    pprof_status st = pprof__graph_build(c, &go, &g);
    uint32_t *fidx = NULL, *fcnt = NULL, *pos = NULL;
    pprof__arena arena;
    pprof__arena_init(&arena, &c->a);
    cg_names obj = {c->a, &arena, {0}, {0}}, files = obj, names = obj;
    pprof_buffer nm = {0};
    if (st)
        goto out;
    pprof__select_output_unit(c, &g);
    fidx = malloc((g.n ? g.n : 1) * sizeof(uint32_t));
    fcnt = malloc((g.n ? g.n : 1) * sizeof(uint32_t));
    pos = calloc(g.nodes.n ? g.nodes.n : 1, sizeof(uint32_t));
    if (!fidx || !fcnt || !pos || disambiguate(&g, fidx, fcnt)) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < g.n; i++)
        pos[g.order[i]] = (uint32_t)(i + 1);
    st = pprof__buffer_printf(out, "positions: instr line\nevents: ");
    if (!st)
        st = pprof__text_escape(out, c->type, strlen(c->type));
    if (!st)
        st = pprof__buffer_append(out, "(", 1);
    if (!st)
        st = pprof__text_escape(out, c->output_unit, strlen(c->output_unit));
    if (!st)
        st = pprof__buffer_append(out, ")\n", 2);
    const pprof__node_info *prev = NULL;
    const pprof__gedge *E = g.edges.data;
    for (size_t i = 0; i < g.n && !st; i++) {
        uint32_t n = g.order[i];
        const pprof__node_info *x = &g.nodes.info[n];
        if (!prev || !pprof__str_eq(x->objfile, prev->objfile) ||
            !pprof__str_eq(x->file, prev->file) || !pprof__str_eq(x->name, prev->name)) {
            st = pprof__buffer_printf(out, "\nob=");
            if (!st)
                st = cg_name(&obj, x->objfile.data, x->objfile.len, out);
            if (!st)
                st = pprof__buffer_printf(out, "\nfl=");
            if (!st)
                st = cg_name(&files, x->file.data, x->file.len, out);
            if (!st)
                st = pprof__buffer_printf(out, "\nfn=");
            if (!st)
                st = cg_name(&names, x->name.data, x->name.len, out);
            if (!st)
                st = pprof__buffer_printf(out, "\n");
        }
        char addr[40];
        cg_address(addr, sizeof(addr), prev, x->address);
        const char *u;
        double sv = pprof__scale(pprof__flat_value(&g.nodes, n), c->unit, c->output_unit, &u);
        if (!st)
            st = pprof__buffer_printf(out, "%s %" PRId64 " %" PRId64 "\n", addr, x->lineno,
                                      (int64_t)sv);
        uint32_t *e = NULL;
        size_t ne = 0;
        if (!st)
            st = pprof__graph_sorted_edges(&g, n, false, &e, &ne);
        for (size_t k = 0; k < ne && !st; k++) {
            const pprof__gedge *ed = &E[e[k]];
            const pprof__node_info *y = &g.nodes.info[ed->dst];
            double cv = pprof__scale(ed->w, c->unit, c->output_unit, &u);
            st = pprof__buffer_printf(out, "cfl=");
            if (!st)
                st = cg_name(&files, y->file.data, y->file.len, out);
            if (!st)
                st = pprof__buffer_printf(out, "\ncfn=");
            nm.len = 0;
            size_t p = pos[ed->dst];
            /* a callee outside the graph (its values sum to 0: -mean's samples of value 0, or a
             * diff's cancelling ones) has no name in Go's disambiguated table: "cfn=" */
            if (!st && p)
                st = pprof__buffer_append(&nm, y->name.data, y->name.len);
            if (!st && p && fcnt[p - 1] > 1)
                st = pprof__buffer_printf(&nm, " [%u/%u]", fidx[p - 1] + 1, fcnt[p - 1]);
            if (!st)
                st = cg_name(&names, nm.len ? (const char *)nm.data : "", nm.len, out);
            cg_address(addr, sizeof(addr), prev, y->address);
            if (!st)
                st = pprof__buffer_printf(out, "\ncalls=0 %s %" PRId64 "\n* * %" PRId64 "\n", addr,
                                          y->lineno, (int64_t)cv);
        }
        pprof__free(&g.a, e);
        prev = x;
    }
out:
    if (st == PPROF_E_NOMEM)
        st = pprof__error(c->err, st, PPROF_NO_OFFSET, "", "out of memory");
    cg_names_free(&obj);
    cg_names_free(&files);
    cg_names_free(&names);
    pprof__arena_destroy(&arena);
    pprof_buffer_free(&nm);
    free(fidx);
    free(fcnt);
    free(pos);
    pprof__graph_free(&g);
    return st;
}
