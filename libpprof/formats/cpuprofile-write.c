/* A profile as a Chrome / Node .cpuprofile. The stacks are merged into a call tree (one node
 * per distinct path of frames, found through one hash table keyed by parent and frame); then
 * the nodes, and the samples expanded by their counts under a cap, are written in one pass. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hash-private.h"
#include "pprof/interchange.h"
#include "pprof/report.h"
#include "validate-private.h"

typedef struct tnode {
    uint32_t parent, first_child, last_child, next_sibling;
    uint64_t frame; /* function index, or functions + location index for an address */
    int64_t line, column;
    uint32_t src;  /* line entry (index into p->lines) or location index */
    uint64_t hits; /* entries of "samples" */
    int64_t us;    /* their time */
    uint32_t id;   /* in the output: preorder, from 1 */
} tnode;

typedef struct wctx {
    const pprof_profile *p;
    const pprof_cpuprofile_write_options *o;
    pprof_error *err;
    pprof__vec nodes;  /* tnode; [0] the root */
    uint32_t *order;   /* node indices in preorder */
    pprof__htab index; /* (parent, frame, line, column) -> node */
    uint32_t *idx;
    size_t count_type, time_type; /* SIZE_MAX: none */
    int64_t time_div, time_mul;   /* values to microseconds */
    uint64_t total;
} wctx;

static pprof_string
str_at(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

static bool
str_is(pprof_string s, const char *c)
{
    return s.len == strlen(c) && !memcmp(s.data, c, s.len);
}

/* Whether unit is one of time, with its factor to microseconds. */
static bool
time_unit(pprof_string unit, int64_t *div, int64_t *mul)
{
    static const struct {
        const char *name;
        int64_t div, mul;
    } units[] = {{"nanoseconds", 1000, 1},
                 {"microseconds", 1, 1},
                 {"milliseconds", 1, 1000},
                 {"seconds", 1, 1000000}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (str_is(unit, units[i].name)) {
            *div = units[i].div;
            *mul = units[i].mul;
            return true;
        }
    return false;
}

static pprof_status
pick_types(wctx *w)
{
    const pprof_profile *p = w->p;
    w->count_type = w->time_type = SIZE_MAX;
    for (size_t t = 0; t < p->sample_types.len; t++) {
        pprof_value_type vt = pprof_profile_sample_type(p, t);
        if (w->count_type == SIZE_MAX && str_is(str_at(p, vt.type), "samples") &&
            str_is(str_at(p, vt.unit), "count"))
            w->count_type = t;
        if (w->time_type == SIZE_MAX && !w->o->sample_type &&
            time_unit(str_at(p, vt.unit), &w->time_div, &w->time_mul))
            w->time_type = t;
    }
    if (!w->o->sample_type)
        return PPROF_OK;
    pprof_status st = pprof_sample_type_find(p, w->o->sample_type, &w->time_type, w->err);
    if (st)
        return st;
    pprof_value_type vt = pprof_profile_sample_type(p, w->time_type);
    pprof_string u = str_at(p, vt.unit);
    if (!time_unit(u, &w->time_div, &w->time_mul))
        return pprof__error(w->err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                            "sample type %s is in %.*s, not in time (nanoseconds, microseconds, "
                            "milliseconds or seconds)",
                            w->o->sample_type, (int)(u.len > 60 ? 60 : u.len), u.data);
    return PPROF_OK;
}

static uint64_t
node_hash(uint32_t parent, uint64_t frame, int64_t line, int64_t column)
{
    uint64_t h = pprof__hash_combine(pprof__mix64(parent), frame);
    return pprof__hash_combine(pprof__hash_combine(h, (uint64_t)line), (uint64_t)column);
}

typedef struct node_key {
    uint32_t parent;
    uint64_t frame;
    int64_t line, column;
} node_key;

static bool
node_eq(const void *ctx, uint32_t v, const void *key)
{
    const tnode *n = &((const tnode *)ctx)[v];
    const node_key *k = key;
    return n->parent == k->parent && n->frame == k->frame && n->line == k->line &&
           n->column == k->column;
}

/* The child of parent for the frame; created (and linked last among its siblings) if new. */
static pprof_status
child(wctx *w, uint32_t parent, uint64_t frame, int64_t line, int64_t column, uint32_t src,
      uint32_t *out)
{
    node_key k = {parent, frame, line, column};
    uint32_t n = (uint32_t)w->nodes.len;
    if (w->nodes.len >= UINT32_MAX - 1 ||
        !pprof__vec_grow(&w->o->allocator, &w->nodes, sizeof(tnode), w->nodes.len + 1))
        return pprof__error(w->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    bool added;
    uint32_t v =
        pprof__htab_intern(&w->index, &w->o->allocator, node_hash(parent, frame, line, column),
                           node_eq, w->nodes.data, &k, n, &added);
    if (v == PPROF_NONE)
        return pprof__error(w->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    if (added) {
        tnode *t = pprof__vec_push(&w->o->allocator, &w->nodes, sizeof(tnode));
        *t = (tnode){parent, PPROF_NONE, PPROF_NONE, PPROF_NONE, frame, line, column, src, 0, 0, 0};
        tnode *par = &PPROF__AT(w->nodes, tnode, parent);
        if (par->last_child == PPROF_NONE)
            par->first_child = v;
        else
            PPROF__AT(w->nodes, tnode, par->last_child).next_sibling = v;
        par->last_child = v;
    }
    *out = v;
    return PPROF_OK;
}

static pprof_status
sample_node(wctx *w, size_t si, const pprof__sample *s, uint32_t *out)
{
    const pprof_profile *p = w->p;
    pprof_status st = pprof__sample_locs(p, si, w->idx, w->err);
    uint32_t node = 0;
    for (uint32_t j = s->n_loc; j-- > 0 && !st;) {
        const pprof__location *l = &PPROF__AT(p->locations, pprof__location, w->idx[j]);
        if (!l->n_line)
            st = child(w, node, p->functions.len + w->idx[j], 0, 0, w->idx[j], &node);
        for (uint32_t k = l->n_line; k-- > 0 && !st;) {
            const pprof_line *ln = &PPROF__AT(p->lines, pprof_line, l->line_off + k);
            size_t fi = SIZE_MAX;
            if (!ln->function_id || !pprof_profile_find_function(p, ln->function_id, &fi))
                fi = p->functions.len + p->locations.len + l->line_off + k;
            st = child(w, node, fi, ln->line, ln->column, l->line_off + k, &node);
        }
    }
    *out = node;
    return st;
}

static pprof_status
build_tree(wctx *w)
{
    const pprof_profile *p = w->p;
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t k = w->count_type != SIZE_MAX
                        ? PPROF__AT(p->values, int64_t, s->val_off + w->count_type)
                        : 1;
        int64_t v =
            w->time_type != SIZE_MAX ? PPROF__AT(p->values, int64_t, s->val_off + w->time_type) : 0;
        char path[128];
        pprof__path(path, "sample[%zu]", i);
        if (k < 0 || v < 0)
            return pprof__error(w->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                "negative %s (a .cpuprofile counts samples and time)",
                                k < 0 ? "count" : "time");
        if (!k && v) /* time without a count: one sample carries it */
            k = 1;
        if (!k)
            continue;
        if ((uint64_t)k > w->o->max_samples - w->total)
            return pprof__error(w->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, path,
                                "more than %" PRIu64 " samples to write (a .cpuprofile lists "
                                "every sample)",
                                w->o->max_samples);
        w->total += (uint64_t)k;
        /* whole microseconds, rounded to the nearest */
        int64_t us = v / w->time_div + (v % w->time_div >= (w->time_div + 1) / 2 ? 1 : 0);
        if (w->time_div == 1)
            us = v;
        if (__builtin_mul_overflow(us, w->time_mul, &us))
            return pprof__error(w->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                                "time passes int64 microseconds");
        uint32_t node;
        pprof_status st = sample_node(w, i, s, &node);
        if (st)
            return st;
        tnode *t = &PPROF__AT(w->nodes, tnode, node);
        t->hits += (uint64_t)k;
        if (__builtin_add_overflow(t->us, us, &t->us))
            return pprof__error(w->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                                "time passes int64 microseconds");
    }
    return PPROF_OK;
}

static pprof_status
put_call_frame(const wctx *w, const tnode *n, pprof_buffer *b)
{
    const pprof_profile *p = w->p;
    pprof_string name = {"(root)", 6}, url = {"", 0};
    char addr[32];
    if (n->parent == PPROF_NONE) {
        /* the root */
    } else if (n->frame < p->functions.len) {
        const pprof_function *f = &PPROF__AT(p->functions, pprof_function, n->frame);
        name = str_at(p, f->name);
        url = str_at(p, f->filename);
    } else if (n->frame < p->functions.len + p->locations.len) {
        const pprof__location *l = &PPROF__AT(p->locations, pprof__location, n->src);
        size_t mi;
        snprintf(addr, sizeof(addr), "0x%" PRIx64, l->address);
        name = (pprof_string){addr, strlen(addr)};
        if (l->mapping_id && pprof_profile_find_mapping(p, l->mapping_id, &mi))
            url = str_at(p, PPROF__AT(p->mappings, pprof_mapping, mi).filename);
    } else {
        name = (pprof_string){"", 0};
    }
    pprof_status st = pprof__buffer_append(b, "\"callFrame\":{\"functionName\":", 28);
    if (!st)
        st = pprof__json_string_html(b, name.data, name.len);
    if (!st)
        st = pprof__buffer_append(b, ",\"scriptId\":\"0\",\"url\":", 22);
    if (!st)
        st = pprof__json_string_html(b, url.data, url.len);
    if (!st)
        st = pprof__buffer_printf(b, ",\"lineNumber\":%" PRId64 ",\"columnNumber\":%" PRId64 "}",
                                  n->line > 0 ? n->line - 1 : -1,
                                  n->column > 0 ? n->column - 1 : -1);
    return st;
}

/* Preorder ids, children in the order they were met: the same tree always gets the same
 * numbering, whatever order its samples came in, so reading our output and writing it again
 * gives the same bytes. */
static pprof_status
number_nodes(wctx *w)
{
    size_t n = w->nodes.len;
    uint32_t *stack = pprof__malloc(&w->o->allocator, (n + 1) * sizeof(uint32_t));
    w->order = pprof__malloc(&w->o->allocator, (n + 1) * sizeof(uint32_t));
    if (!stack || !w->order) {
        pprof__free(&w->o->allocator, stack);
        return pprof__error(w->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    size_t sp = 0, len = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t u = stack[--sp];
        tnode *t = &PPROF__AT(w->nodes, tnode, u);
        t->id = (uint32_t)len + 1;
        w->order[len++] = u;
        /* children pushed last first, so the first is taken next */
        size_t base = sp;
        for (uint32_t c = t->first_child; c != PPROF_NONE;
             c = PPROF__AT(w->nodes, tnode, c).next_sibling)
            stack[sp++] = c;
        for (size_t i = base, j = sp - 1; i < j && sp > base; i++, j--) {
            uint32_t x = stack[i];
            stack[i] = stack[j];
            stack[j] = x;
        }
    }
    pprof__free(&w->o->allocator, stack);
    return PPROF_OK;
}

static pprof_status
put_nodes(const wctx *w, pprof_buffer *b)
{
    pprof_status st = pprof__buffer_append(b, "{\"nodes\":[", 10);
    for (size_t i = 0; i < w->nodes.len && !st; i++) {
        const tnode *n = &PPROF__AT(w->nodes, tnode, w->order[i]);
        st = pprof__buffer_printf(b, "%s{\"id\":%u,", i ? "," : "", n->id);
        if (!st)
            st = put_call_frame(w, n, b);
        if (!st)
            st = pprof__buffer_printf(b, ",\"hitCount\":%" PRIu64 ",\"children\":[", n->hits);
        for (uint32_t c = n->first_child; c != PPROF_NONE && !st;
             c = PPROF__AT(w->nodes, tnode, c).next_sibling)
            st = pprof__buffer_printf(b, c == n->first_child ? "%u" : ",%u",
                                      PPROF__AT(w->nodes, tnode, c).id);
        if (!st)
            st = pprof__buffer_append(b, "]}", 2);
    }
    return st ? st : pprof__buffer_append(b, "]", 1);
}

/* "samples" and "timeDeltas": the samples of each node in preorder, its time spread over them
 * in whole microseconds that sum to it. */
static pprof_status
put_samples(const wctx *w, pprof_buffer *b, int64_t start, int64_t duration_us)
{
    pprof_status st = pprof__buffer_printf(b, ",\"startTime\":%" PRId64 ",\"samples\":[", start);
    bool first = true;
    for (size_t i = 0; i < w->nodes.len && !st; i++) {
        const tnode *n = &PPROF__AT(w->nodes, tnode, w->order[i]);
        for (uint64_t k = 0; k < n->hits && !st; k++, first = false)
            st = pprof__buffer_printf(b, first ? "%u" : ",%u", n->id);
    }
    if (!st)
        st = pprof__buffer_append(b, "],\"timeDeltas\":[", 16);
    first = true;
    int64_t end = start;
    for (size_t i = 0; i < w->nodes.len && !st; i++) {
        const tnode *n = &PPROF__AT(w->nodes, tnode, w->order[i]);
        if (!n->hits)
            continue;
        int64_t base = n->us / (int64_t)n->hits, rem = n->us % (int64_t)n->hits;
        for (uint64_t k = 0; k < n->hits && !st; k++, first = false) {
            int64_t d = base + ((int64_t)k < rem ? 1 : 0);
            if (__builtin_add_overflow(end, d, &end))
                return pprof__error(w->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "",
                                    "the profile's time passes int64 microseconds");
            st = pprof__buffer_printf(b, first ? "%" PRId64 : ",%" PRId64, d);
        }
    }
    /* the profile's duration when the samples end before it (so reading gives it back) */
    if (end - start < duration_us && start <= INT64_MAX - duration_us)
        end = start + duration_us;
    if (!st)
        st = pprof__buffer_printf(b, "],\"endTime\":%" PRId64 "}\n", end);
    return st;
}

pprof_status
pprof_cpuprofile_write_memory(const pprof_profile *p, const pprof_cpuprofile_write_options *opts,
                              pprof_buffer *out, pprof_error *err)
{
    pprof_cpuprofile_write_options o = PPROF_CPUPROFILE_WRITE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    pprof_status st = pprof__validate(p, NULL, err);
    if (st)
        return st;
    wctx w = {p, &o, err, {0}, NULL, {0}, NULL, 0, 0, 1, 1, 0};
    if ((st = pick_types(&w)))
        return st;
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    w.idx = pprof__malloc(&o.allocator, (max_depth + 1) * sizeof(uint32_t));
    tnode *root = w.idx ? pprof__vec_push(&o.allocator, &w.nodes, sizeof(tnode)) : NULL;
    if (!root || !pprof__htab_init(&w.index, &o.allocator, 1024)) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    } else {
        *root = (tnode){PPROF_NONE, PPROF_NONE, PPROF_NONE, PPROF_NONE, 0, 0, 0, 0, 0, 0, 0};
        st = build_tree(&w);
    }
    size_t before = out->len;
    if (!st)
        st = number_nodes(&w);
    if (!st && !(st = put_nodes(&w, out))) {
        /* startTime 0: the format's clock is a monotonic one, not time_nanos's wall clock */
        pprof_header h = pprof_profile_header(p);
        st = put_samples(&w, out, 0, h.duration_nanos > 0 ? h.duration_nanos / 1000 : 0);
    }
    if (st == PPROF_E_NOMEM)
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    if (st)
        out->len = before;
    pprof__htab_free(&w.index, &o.allocator);
    pprof__free(&o.allocator, w.nodes.data);
    pprof__free(&o.allocator, w.order);
    pprof__free(&o.allocator, w.idx);
    return st;
}

pprof_status
pprof_cpuprofile_write_file(const pprof_profile *p, const pprof_cpuprofile_write_options *opts,
                            const pprof_write_options *wopts, const char *path, pprof_error *err)
{
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    pprof_buffer b = {0};
    pprof_status st = pprof_cpuprofile_write_memory(p, opts, &b, err);
    return pprof__buffer_write_file(path, wopts, st, &b, err);
}

pprof_status
pprof_cpuprofile_write_stream(const pprof_profile *p, const pprof_cpuprofile_write_options *opts,
                              FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_cpuprofile_write_memory(p, opts, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}

/* ---- deprecated name, kept for one release (interchange.h) */

pprof_status
pprof_cpuprofile_write(const pprof_profile *p, const pprof_cpuprofile_write_options *opts,
                       pprof_buffer *out, pprof_error *err)
{
    return pprof_cpuprofile_write_memory(p, opts, out, err);
}

void
pprof_cpuprofile_write_options_init(pprof_cpuprofile_write_options *opts)
{
    if (!opts)
        return;
    const pprof_cpuprofile_write_options def = PPROF_CPUPROFILE_WRITE_OPTIONS_INIT;
    *opts = def;
}
