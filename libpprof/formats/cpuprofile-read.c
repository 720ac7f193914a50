/* Chrome / Node .cpuprofile into a profile. Jansson parses the JSON (its tree is the one
 * allocation this module cannot bound by count, so the input size and nesting are checked
 * before it runs); the call tree is then checked as a tree (unique ids, one parent each, every
 * node reachable from a root) before any stack is walked, and the profile is built through the
 * builder, one sample per node that samples hit. */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pprof/builder.h"
#include "pprof/interchange.h"
#include "profile-private.h"

typedef struct cnode {
    json_int_t id;
    json_t *frame;   /* callFrame */
    uint32_t parent; /* index, PPROF_NONE for a root */
    uint32_t depth;  /* frames from the root, the root itself 0 */
    uint64_t count;
    int64_t cpu;
    pprof_builder_loc loc;
    bool has_loc, is_root_frame;
} cnode;

typedef struct id_index {
    json_int_t id;
    uint32_t idx;
} id_index;

typedef struct rctx {
    const pprof_cpuprofile_read_options *o;
    pprof_error *err;
    cnode *nodes;
    size_t n;
    id_index *ids; /* sorted by id */
    pprof_builder *b;
} rctx;

static pprof_status bad(pprof_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static pprof_status
bad(pprof_error *err, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path, "%s", msg);
}

/* Nesting of arrays and objects, outside strings, before jansson (which recurses) sees it. */
static pprof_status
check_nesting(const char *s, size_t n, uint32_t max, pprof_error *err)
{
    uint32_t depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max)
                return pprof__error(err, PPROF_E_LIMIT, i, "",
                                    "arrays and objects nested deeper than %u", max);
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
    }
    return PPROF_OK;
}

static int
id_cmp(const void *x, const void *y)
{
    const id_index *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static uint32_t
find_id(const rctx *r, json_int_t id)
{
    id_index key = {id, 0};
    const id_index *f = bsearch(&key, r->ids, r->n, sizeof(id_index), id_cmp);
    return f ? f->idx : PPROF_NONE;
}

/* An optional integer member; *v keeps its default when absent. */
static pprof_status
get_int(json_t *obj, const char *key, bool required, json_int_t *v, const char *path,
        pprof_error *err)
{
    json_t *x = json_object_get(obj, key);
    char p[128];
    pprof__path(p, "%s%s%s", path, *path ? "." : "", key);
    if (!x)
        return required ? bad(err, p, "no %s (an integer)", key) : PPROF_OK;
    if (!json_is_integer(x))
        return bad(err, p, "%s is not an integer", key);
    *v = json_integer_value(x);
    return PPROF_OK;
}

static pprof_status
read_node(rctx *r, size_t i, json_t *node)
{
    char path[128];
    pprof__path(path, "nodes[%zu]", i);
    if (!json_is_object(node))
        return bad(r->err, path, "a node is an %s", "object");
    cnode *c = &r->nodes[i];
    pprof_status st = get_int(node, "id", true, &c->id, path, r->err);
    if (st)
        return st;
    c->parent = PPROF_NONE;
    c->frame = json_object_get(node, "callFrame");
    char fp[128];
    pprof__path(fp, "%s.callFrame", path);
    if (!json_is_object(c->frame))
        return bad(r->err, fp, "no callFrame %s", "object");
    json_t *name = json_object_get(c->frame, "functionName");
    pprof__path(fp, "%s.callFrame.functionName", path);
    if (!json_is_string(name))
        return bad(r->err, fp, "functionName is not a %s", "string");
    json_t *url = json_object_get(c->frame, "url");
    pprof__path(fp, "%s.callFrame.url", path);
    if (url && !json_is_string(url))
        return bad(r->err, fp, "url is not a %s", "string");
    pprof__path(fp, "%s.callFrame", path);
    json_int_t v = -1;
    if ((st = get_int(c->frame, "lineNumber", false, &v, fp, r->err)) ||
        (st = get_int(c->frame, "columnNumber", false, &v, fp, r->err)))
        return st;
    json_t *kids = json_object_get(node, "children");
    pprof__path(fp, "%s.children", path);
    if (kids && !json_is_array(kids))
        return bad(r->err, fp, "children is not an %s", "array");
    r->ids[i] = (id_index){c->id, (uint32_t)i};
    return PPROF_OK;
}

/* Parents from the children lists: every child an existing node with no other parent. */
static pprof_status
link_children(rctx *r, json_t *nodes)
{
    for (size_t i = 0; i < r->n; i++) {
        json_t *kids = json_object_get(json_array_get(nodes, i), "children");
        for (size_t j = 0; kids && j < json_array_size(kids); j++) {
            json_t *k = json_array_get(kids, j);
            char path[128];
            pprof__path(path, "nodes[%zu].children[%zu]", i, j);
            if (!json_is_integer(k))
                return bad(r->err, path, "a child is a node id, an %s", "integer");
            uint32_t ci = find_id(r, json_integer_value(k));
            if (ci == PPROF_NONE)
                return pprof__error(r->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                    "no node has id %" JSON_INTEGER_FORMAT, json_integer_value(k));
            if (r->nodes[ci].parent != PPROF_NONE || ci == i)
                return pprof__error(r->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                    "node %" JSON_INTEGER_FORMAT " has two parents or is its "
                                    "own child (the nodes are not a tree)",
                                    json_integer_value(k));
            r->nodes[ci].parent = (uint32_t)i;
        }
    }
    return PPROF_OK;
}

/* Depths from the roots down, in an order where parents come first; a node never reached is
 * on a cycle. */
static pprof_status
check_tree(rctx *r, json_t *nodes)
{
    uint32_t *order = pprof__malloc(&r->o->allocator, (r->n + 1) * sizeof(uint32_t));
    uint32_t *first = pprof__malloc(&r->o->allocator, (r->n + 1) * sizeof(uint32_t));
    uint32_t *next = pprof__malloc(&r->o->allocator, (r->n + 1) * sizeof(uint32_t));
    pprof_status st = PPROF_OK;
    if (!order || !first || !next) {
        st = pprof__error(r->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r->n; i++)
        first[i] = PPROF_NONE;
    size_t len = 0;
    for (size_t i = r->n; i-- > 0;) { /* child lists without recursion */
        uint32_t p = r->nodes[i].parent;
        if (p == PPROF_NONE) {
            order[len++] = (uint32_t)i;
            r->nodes[i].depth = 0;
        } else {
            next[i] = first[p];
            first[p] = (uint32_t)i;
        }
    }
    for (size_t q = 0; q < len; q++) {
        uint32_t u = order[q];
        for (uint32_t c = first[u]; c != PPROF_NONE; c = next[c]) {
            r->nodes[c].depth = r->nodes[u].depth + 1;
            if (r->nodes[c].depth > r->o->max_depth) {
                char path[128];
                pprof__path(path, "nodes[%u]", c);
                st = pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, path,
                                  "call tree deeper than %u", r->o->max_depth);
                goto done;
            }
            order[len++] = c;
        }
    }
    if (len < r->n) {
        size_t i = 0;
        while (i < r->n && r->nodes[i].depth != UINT32_MAX)
            i++;
        char path[128];
        pprof__path(path, "nodes[%zu]", i < r->n ? i : 0);
        st = bad(r->err, path, "the node is on a cycle of children (%s)", "no root above it");
    }
    (void)nodes;
done:
    pprof__free(&r->o->allocator, order);
    pprof__free(&r->o->allocator, first);
    pprof__free(&r->o->allocator, next);
    return st;
}

static pprof_status
read_samples(rctx *r, json_t *root)
{
    json_t *samples = json_object_get(root, "samples");
    json_t *deltas = json_object_get(root, "timeDeltas");
    if (!json_is_array(samples))
        return bad(r->err, "samples", "no samples %s (the node of each sample)", "array");
    if (!json_is_array(deltas))
        return bad(r->err, "timeDeltas", "no timeDeltas %s (microseconds)", "array");
    size_t n = json_array_size(samples);
    if (n > r->o->max_samples)
        return pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "samples",
                            "%zu samples, more than the limit", n);
    if (json_array_size(deltas) != n)
        return pprof__error(r->err, PPROF_E_INVALID, PPROF_NO_OFFSET, "timeDeltas",
                            "%zu time deltas for %zu samples", json_array_size(deltas), n);
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(samples, i), *d = json_array_get(deltas, i);
        char path[128];
        if (!json_is_integer(s) || !json_is_integer(d)) {
            pprof__path(path, "%s[%zu]", json_is_integer(s) ? "timeDeltas" : "samples", i);
            return bad(r->err, path, "not an %s", "integer");
        }
        uint32_t ni = find_id(r, json_integer_value(s));
        if (ni == PPROF_NONE) {
            pprof__path(path, "samples[%zu]", i);
            return pprof__error(r->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                "no node has id %" JSON_INTEGER_FORMAT, json_integer_value(s));
        }
        json_int_t us = json_integer_value(d);
        int64_t ns;
        /* a negative delta (Chrome can record samples slightly out of order) counts 0 */
        if (us > 0 && (__builtin_mul_overflow((int64_t)us, 1000, &ns) ||
                       __builtin_add_overflow(r->nodes[ni].cpu, ns, &r->nodes[ni].cpu))) {
            pprof__path(path, "timeDeltas[%zu]", i);
            return pprof__error(r->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                                "the time of the samples passes int64 nanoseconds");
        }
        r->nodes[ni].count++;
    }
    return PPROF_OK;
}

static pprof_status
node_loc(rctx *r, uint32_t i)
{
    cnode *c = &r->nodes[i];
    if (c->has_loc)
        return PPROF_OK;
    json_t *f = c->frame;
    const char *name = json_string_value(json_object_get(f, "functionName"));
    size_t name_len = json_string_length(json_object_get(f, "functionName"));
    json_t *url = json_object_get(f, "url");
    json_int_t line = -1, col = -1;
    get_int(f, "lineNumber", false, &line, "", NULL);
    get_int(f, "columnNumber", false, &col, "", NULL);
    pprof_builder_str n, file, none = PPROF_BUILDER_NONE;
    pprof_builder_fn fn = PPROF_BUILDER_NONE;
    if (!name_len) {
        name = "(anonymous)";
        name_len = 11;
    }
    int64_t l1 = line >= 0 && line < INT64_MAX ? (int64_t)line + 1 : 0;
    int64_t c1 = col >= 0 && col < INT64_MAX ? (int64_t)col + 1 : 0;
    pprof_status st = pprof_builder_intern(r->b, name, name_len, &n, r->err);
    if (!st)
        st = pprof_builder_intern(r->b, url ? json_string_value(url) : "",
                                  url ? json_string_length(url) : 0, &file, r->err);
    if (!st)
        st = pprof_builder_function(r->b, n, none, file, l1, &fn, r->err);
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    if (!st) {
        pprof_builder_line bl = {fn, l1, c1};
        st = pprof_builder_location(r->b, nomap, 0, &bl, 1, false, &c->loc, r->err);
    }
    c->has_loc = !st;
    return st;
}

static pprof_status
add_samples(rctx *r)
{
    pprof__vec stack = {0};
    pprof_status st = PPROF_OK;
    uint64_t entries = 0;
    for (uint32_t i = 0; i < r->n && !st; i++) {
        if (!r->nodes[i].count)
            continue;
        entries += r->nodes[i].depth + 1;
        if (entries > r->o->max_stack_entries) {
            char path[128];
            pprof__path(path, "nodes[%u]", i);
            st = pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, path,
                              "the stacks of the sampled nodes hold more than %" PRIu64
                              " frames in all",
                              r->o->max_stack_entries);
            break;
        }
        stack.len = 0;
        for (uint32_t u = i; u != PPROF_NONE && !st; u = r->nodes[u].parent) {
            if (r->nodes[u].is_root_frame)
                continue;
            pprof_builder_loc *slot;
            if ((st = node_loc(r, u)))
                break;
            if (!(slot = pprof__vec_push(&r->o->allocator, &stack, sizeof(*slot))))
                st = pprof__error(r->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            else
                *slot = r->nodes[u].loc;
        }
        int64_t values[2] = {(int64_t)r->nodes[i].count, r->nodes[i].cpu};
        if (!st)
            st = pprof_builder_add_sample(r->b, values, 2, stack.data, stack.len, NULL, 0, r->err);
        if (st && r->err && !r->err->path[0])
            pprof__path(r->err->path, "nodes[%u]", i);
    }
    pprof__free(&r->o->allocator, stack.data);
    return st;
}

static pprof_status
new_builder(rctx *r, json_t *root)
{
    static const pprof_builder_value_type types[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = types;
    bo.n_sample_types = 2;
    bo.period_type = types[1];
    bo.max_samples = bo.max_locations = bo.max_functions = r->n + 1;
    /* a name and a URL per node, "", and the four strings of the sample types */
    bo.max_strings = 2 * r->n + 5;
    bo.max_string_bytes = r->o->max_input_bytes;
    bo.allocator = r->o->allocator;
    pprof_status st = pprof_builder_new(&bo, &r->b, r->err);
    json_int_t start = 0, end = 0;
    if (!st && !(st = get_int(root, "startTime", false, &start, "", r->err)) &&
        !(st = get_int(root, "endTime", false, &end, "", r->err)) && end > start &&
        (uint64_t)end - (uint64_t)start < INT64_MAX / 1000)
        st = pprof_builder_set_time(r->b, 0, (int64_t)((uint64_t)end - (uint64_t)start) * 1000,
                                    r->err);
    return st;
}

static pprof_status
read_tree(rctx *r, json_t *root)
{
    if (!json_is_object(root))
        return bad(r->err, "", "a .cpuprofile is a JSON %s", "object");
    json_t *nodes = json_object_get(root, "nodes");
    if (!json_is_array(nodes))
        return bad(r->err, "nodes", "%s",
                   json_object_get(root, "head")
                       ? "no nodes array: this is the older format with a 'head' tree, not read"
                       : "no nodes array (a .cpuprofile has nodes, samples and timeDeltas)");
    r->n = json_array_size(nodes);
    if (r->n > r->o->max_nodes || r->n >= UINT32_MAX)
        return pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "nodes",
                            "%zu nodes, more than the limit", r->n);
    r->nodes = pprof__malloc(&r->o->allocator, (r->n + 1) * sizeof(cnode));
    r->ids = pprof__malloc(&r->o->allocator, (r->n + 1) * sizeof(id_index));
    if (!r->nodes || !r->ids)
        return pprof__error(r->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(r->nodes, 0, (r->n + 1) * sizeof(cnode));
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < r->n && !st; i++)
        st = read_node(r, i, json_array_get(nodes, i));
    if (st)
        return st;
    if (r->n)
        qsort(r->ids, r->n, sizeof(id_index), id_cmp);
    for (size_t i = 1; i < r->n; i++)
        if (r->ids[i].id == r->ids[i - 1].id) {
            char path[128];
            uint32_t a = r->ids[i - 1].idx, b = r->ids[i].idx;
            pprof__path(path, "nodes[%u].id", a > b ? a : b);
            return pprof__error(r->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                "id %" JSON_INTEGER_FORMAT " repeats nodes[%u].id", r->ids[i].id,
                                a < b ? a : b);
        }
    for (size_t i = 0; i < r->n; i++)
        r->nodes[i].depth = UINT32_MAX;
    if ((st = link_children(r, nodes)) || (st = check_tree(r, nodes)))
        return st;
    for (size_t i = 0; i < r->n; i++) {
        json_t *name = json_object_get(r->nodes[i].frame, "functionName");
        r->nodes[i].is_root_frame =
            r->nodes[i].parent == PPROF_NONE && !strcmp(json_string_value(name), "(root)");
    }
    return read_samples(r, root);
}

pprof_status
pprof_cpuprofile_read_memory(const void *data, size_t size,
                             const pprof_cpuprofile_read_options *opts, pprof_profile **out,
                             pprof_error *err)
{
    pprof_cpuprofile_read_options o = PPROF_CPUPROFILE_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    if (size > o.max_input_bytes)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "%zu bytes of .cpuprofile, more than the limit", size);
    /* a UTF-8 byte order mark, as editors on Windows save JSON; offsets stay the input's */
    size_t bom = size >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    if (bom) { /* never an offset on a NULL data of size 0 */
        data = (const char *)data + bom;
        size -= bom;
    }
    if (!size)
        return pprof__error(err, PPROF_E_EMPTY, PPROF_NO_OFFSET, "", "empty input");
    pprof_status st = check_nesting(data, size, o.max_nesting, err);
    if (st) {
        if (err && err->offset != PPROF_NO_OFFSET)
            err->offset += bom;
        return st;
    }
    json_error_t je;
    json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!root)
        return pprof__error(err, PPROF_E_INVALID, (uint64_t)je.position + bom, "",
                            "not JSON: %s (line %d, column %d)", je.text, je.line, je.column);
    rctx r = {&o, err, NULL, 0, NULL, NULL};
    st = read_tree(&r, root);
    if (!st)
        st = new_builder(&r, root);
    if (!st)
        st = add_samples(&r);
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    if (!st)
        st = pprof_builder_finish(r.b, 0, NULL, &wo, &buf, NULL, err);
    pprof_builder_free(r.b);
    json_decref(root);
    pprof__free(&o.allocator, r.nodes);
    pprof__free(&o.allocator, r.ids);
    if (!st) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = o.allocator;
        st = pprof_profile_read_memory(buf.data, buf.len, &ro, out, err);
    }
    pprof_buffer_free(&buf);
    return st;
}

pprof_status
pprof_cpuprofile_read_file(const char *path, const pprof_cpuprofile_read_options *opts,
                           pprof_profile **out, pprof_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    pprof_cpuprofile_read_options o = PPROF_CPUPROFILE_READ_OPTIONS_INIT;
    if (opts)
        o = *opts;
    uint8_t *data = NULL;
    size_t len = 0;
    pprof_status st = pprof__read_all(path, o.max_input_bytes, &o.allocator, &data, &len, err);
    if (st == PPROF_OK)
        st = pprof_cpuprofile_read_memory(data, len, opts, out, err);
    pprof__free(&o.allocator, data);
    return st;
}

/* ---- deprecated name, kept for one release (interchange.h) */

pprof_status
pprof_cpuprofile_read(const void *data, size_t size, const pprof_cpuprofile_read_options *opts,
                      pprof_profile **out, pprof_error *err)
{
    return pprof_cpuprofile_read_memory(data, size, opts, out, err);
}

void
pprof_cpuprofile_read_options_init(pprof_cpuprofile_read_options *opts)
{
    if (!opts)
        return;
    const pprof_cpuprofile_read_options def = PPROF_CPUPROFILE_READ_OPTIONS_INIT;
    *opts = def;
}
