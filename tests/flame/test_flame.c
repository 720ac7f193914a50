/* The stack tree (pprof/flame.h): exact totals on every example and real-corpus profile, the
 * per-name numbers equal to pprof-top's, negative values, inline marking, lines granularity,
 * reversed stacks, the differential tree and its JSON delta. TAP. */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flame-private.h"
#include "pprof/builder.h"
#include "pprof/check.h"
#include "pprof/flame.h"
#include "pprof/report.h"
#include "proc-status.h"
#include "tap.h"
#include "unit/pb.h"

/* ---- a hand-made profile: strings, two types, functions main a b c, locations
 * 1 main:10; 2 b:30 inlined into a:20; 3 c:40; 4 c:41 */
static const char *const strs[] = {"",     "samples", "count", "cpu", "nanoseconds",
                                   "main", "a",       "b",     "c",   "main.go"};

typedef struct smp {
    uint64_t loc[4];
    size_t n;
    int64_t v[2];
} smp;

static pprof_profile *
make(const smp *s, size_t ns)
{
    pb b = {0}, sub = {0}, ln = {0};
    pb_value_type(&b, 1, 1, 2);
    pb_value_type(&b, 1, 3, 4);
    for (size_t i = 0; i < ns; i++) {
        uint64_t v[2] = {(uint64_t)s[i].v[0], (uint64_t)s[i].v[1]};
        pb_packed(&sub, 1, s[i].loc, s[i].n);
        pb_packed(&sub, 2, v, 2);
        pb_msg_free(&b, 2, &sub);
    }
    static const struct {
        uint64_t fn[2], line[2];
        size_t n;
    } locs[] = {
        {{1, 0}, {10, 0}, 1}, {{3, 2}, {30, 20}, 2}, {{4, 0}, {40, 0}, 1}, {{4, 0}, {41, 0}, 1}};
    for (size_t i = 0; i < 4; i++) {
        pb_v(&sub, 1, i + 1);
        for (size_t j = 0; j < locs[i].n; j++) {
            pb_v(&ln, 1, locs[i].fn[j]);
            pb_v(&ln, 2, locs[i].line[j]);
            pb_msg_free(&sub, 4, &ln);
        }
        pb_msg_free(&b, 4, &sub);
    }
    for (size_t i = 0; i < 4; i++) {
        pb_v(&sub, 1, i + 1);
        pb_v(&sub, 2, 5 + i);
        pb_v(&sub, 4, 9);
        pb_msg_free(&b, 5, &sub);
    }
    pb_strings(&b, strs, sizeof(strs) / sizeof(strs[0]));
    pprof_profile *p = NULL;
    pprof_error err;
    if (pprof_profile_read_memory(b.d, b.n, NULL, &p, &err))
        fprintf(stderr, "make: %s\n", err.message);
    pb_free(&b);
    return p;
}

static const smp samples[] = {
    {{3, 2, 1}, 3, {1, 10}},
    {{2, 1}, 2, {2, 20}},
    {{4, 2, 1}, 3, {-1, -5}},
    {{1}, 1, {4, 40}},
};

/* The node at a path of names from the root ("main/a/b"), or PPROF_FLAME_NONE. */
static size_t
find(const pprof_flame_tree *t, const char *path)
{
    size_t node = 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/")) {
        pprof_flame_node n = pprof_flame_node_at(t, node);
        size_t c = node + 1, found = PPROF_FLAME_NONE;
        for (size_t k = 0; k < n.n_children; k++, c = pprof_flame_node_at(t, c).end) {
            pprof_flame_name nm = pprof_flame_name_at(t, pprof_flame_node_at(t, c).name_id);
            if (!strcmp(nm.name, tok)) {
                found = c;
                break;
            }
        }
        if (found == PPROF_FLAME_NONE)
            return found;
        node = found;
    }
    return node;
}

/* value == self + the children's values, for every node and type; parents and depths agree. */
static bool
consistent(const pprof_flame_tree *t, bool base)
{
    size_t n = pprof_flame_count(t), nt = pprof_flame_types(t);
    for (size_t i = 0; i < n; i++) {
        pprof_flame_node nd = pprof_flame_node_at(t, i);
        size_t kids = 0;
        for (size_t ty = 0; ty < nt; ty++) {
            __extension__ __int128 sum = pprof_flame_self(t, i, ty, base);
            kids = 0;
            for (size_t c = i + 1; c < nd.end; c = pprof_flame_node_at(t, c).end, kids++) {
                sum += pprof_flame_value(t, c, ty, base);
                if (pprof_flame_node_at(t, c).parent != i ||
                    pprof_flame_node_at(t, c).depth != nd.depth + 1)
                    return false;
            }
            if (sum != pprof_flame_value(t, i, ty, base))
                return false;
        }
        if (kids != nd.n_children)
            return false;
    }
    return true;
}

static void
test_small(tap *t)
{
    pprof_profile *p = make(samples, 4);
    tap_ok(t, p != NULL, "hand-made profile reads");
    if (!p)
        return;
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    tap_ok(t, pprof_flame_tree_new(p, NULL, NULL, &tr, &err) == PPROF_OK, "tree builds");
    tap_ok(t, pprof_flame_types(tr) == 2 && pprof_flame_default_type(tr) == 1,
           "two types, the last one shown first");
    tap_ok(t, pprof_flame_value(tr, 0, 0, false) == 6 && pprof_flame_value(tr, 0, 1, false) == 65,
           "root = totals 6 and 65, negative sample included");
    size_t m = find(tr, "main"), a = find(tr, "main/a"), b = find(tr, "main/a/b"),
           c = find(tr, "main/a/b/c");
    tap_ok(t,
           m != PPROF_FLAME_NONE && a != PPROF_FLAME_NONE && b != PPROF_FLAME_NONE &&
               c != PPROF_FLAME_NONE,
           "inline frames expanded, the outermost call first: main/a/b/c");
    tap_ok(t,
           !pprof_flame_node_at(tr, a).is_inline && pprof_flame_node_at(tr, b).is_inline &&
               pprof_flame_node_at(tr, b).kind == PPROF_FLAME_KIND_INLINE,
           "b (inlined into a) is marked inline, a is not");
    tap_ok(t, pprof_flame_self(tr, m, 1, false) == 40 && pprof_flame_value(tr, m, 1, false) == 65,
           "main: self 40, value 65");
    tap_ok(t, pprof_flame_value(tr, c, 0, false) == 0 && pprof_flame_value(tr, c, 1, false) == 5,
           "c keeps the negative sample: 1 - 1 = 0 samples, 10 - 5 = 5 ns");
    tap_ok(t, consistent(tr, false), "value = self + children everywhere");
    size_t cn = pprof_flame_node_at(tr, c).name_id;
    tap_ok(t, pprof_flame_flat(tr, cn, 1, false) == 5 && pprof_flame_cum(tr, cn, 1, false) == 5,
           "per-name flat and cum of c");
    tap_ok(t, strcmp(pprof_flame_name_at(tr, cn).file, "main.go") == 0, "c's file is kept");
    pprof_flame_tree_free(tr);

    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.lines = true;
    tap_ok(t, pprof_flame_tree_new(p, NULL, &o, &tr, &err) == PPROF_OK, "lines tree builds");
    size_t l40 = find(tr, "main main.go:10/a main.go:20/b main.go:30/c main.go:40"),
           l41 = find(tr, "main main.go:10/a main.go:20/b main.go:30/c main.go:41");
    tap_ok(t, l40 != PPROF_FLAME_NONE && l41 != PPROF_FLAME_NONE,
           "lines granularity: c main.go:40 and c main.go:41 are two frames");
    tap_ok(t, l41 != PPROF_FLAME_NONE && pprof_flame_value(tr, l41, 0, false) == -1,
           "a frame of only negative samples is negative, not clamped");
    pprof_flame_tree_free(tr);

    o = (pprof_flame_options)PPROF_FLAME_OPTIONS_INIT;
    o.reverse = true;
    o.sample_type = "samples";
    tap_ok(t, pprof_flame_tree_new(p, NULL, &o, &tr, &err) == PPROF_OK, "reversed tree builds");
    tap_ok(t, pprof_flame_default_type(tr) == 0, "--sample-type samples picks type 0");
    size_t rc = find(tr, "c/b/a/main"), rm = find(tr, "main");
    tap_ok(t,
           rc != PPROF_FLAME_NONE && rm != PPROF_FLAME_NONE &&
               pprof_flame_value(tr, rm, 1, false) == 40 &&
               pprof_flame_value(tr, 0, 1, false) == 65,
           "reversed: leaf frames at the root, totals unchanged");
    tap_ok(t, consistent(tr, false), "reversed tree consistent");
    pprof_flame_tree_free(tr);

    o.sample_type = "nope";
    tap_ok(t, pprof_flame_tree_new(p, NULL, &o, &tr, &err) == PPROF_E_ARG && tr == NULL,
           "unknown sample type: PPROF_E_ARG");
    pprof_profile_free(p);
}

static void
test_diff(tap *t)
{
    static const smp base_s[] = {{{1}, 1, {2, 20}}, {{3}, 1, {5, 50}}};
    pprof_profile *p = make(samples, 4), *b = make(base_s, 2);
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    tap_ok(t, p && b && pprof_flame_tree_new(p, b, NULL, &tr, &err) == PPROF_OK,
           "differential tree builds");
    if (!tr) {
        pprof_profile_free(p);
        pprof_profile_free(b);
        return;
    }
    size_t only = find(tr, "c"), m = find(tr, "main");
    tap_ok(t,
           pprof_flame_has_base(tr) && only != PPROF_FLAME_NONE &&
               pprof_flame_value(tr, only, 1, false) == 0 &&
               pprof_flame_value(tr, only, 1, true) == 50,
           "a frame only in BASE is in the union tree with IN value 0");
    tap_ok(t, pprof_flame_value(tr, m, 1, true) == 20 && pprof_flame_value(tr, 0, 1, true) == 70,
           "BASE's values at the same path; BASE's root is its total");
    tap_ok(t, consistent(tr, false) && consistent(tr, true), "both sides consistent");
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FLAME_JSON;
    pprof_buffer out = {0};
    tap_ok(t, pprof_flame_write_memory(tr, &wo, &out, &err) == PPROF_OK, "JSON writes");
    const char *want = "{\"name\":\"root\",\"value\":65,\"delta\":-5,";
    tap_ok(t, out.len > strlen(want) && !memcmp(out.data, want, strlen(want)),
           "JSON root: value 65, delta 65 - 70 = -5");
    tap_ok(t, strstr((char *)out.data, "{\"name\":\"c\",\"value\":0,\"delta\":-50,") != NULL,
           "JSON base-only frame: delta -50");
    pprof_buffer_free(&out);
    pprof_flame_tree_free(tr);

    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.normalize = true;
    tap_ok(t, pprof_flame_tree_new(p, b, &o, &tr, &err) == PPROF_OK, "normalized diff builds");
    /* cpu: IN 65, BASE 70: BASE scaled by 65/70; main 20 -> 18.57 -> 19 */
    tap_ok(t,
           pprof_flame_value(tr, 0, 1, true) == 65 &&
               pprof_flame_value(tr, find(tr, "main"), 1, true) == 19,
           "--normalize: BASE's total becomes IN's, nodes rounded");
    pprof_flame_tree_free(tr);
    pprof_profile_free(p);
    pprof_profile_free(b);
}

/* ---- the Graph view drawn beforehand (graph_view): the same page, with the profile gone */
static void
test_graph_view(tap *t)
{
    pprof_profile *p = make(samples, 4);
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    if (!p || pprof_flame_tree_new(p, NULL, NULL, &tr, &err)) {
        tap_ok(t, false, "graph view: the tree builds");
        pprof_profile_free(p);
        return;
    }
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.graph = p;
    wo.graph_sample_type = "cpu";
    pprof_buffer page = {0}, view = {0}, later = {0};
    bool ok = pprof_flame_write_memory(tr, &wo, &page, &err) == PPROF_OK &&
              pprof_flame_graph_view_memory(&wo, &view, &err) == PPROF_OK;
    tap_ok(t,
           ok && view.len > 0 && page.len > view.len &&
               memmem(page.data, page.len, view.data, view.len) != NULL,
           "the element drawn beforehand is the page's (%zu bytes)", view.len);
    pprof_profile_free(p); /* what graph_view is for */
    wo.graph = NULL;
    wo.graph_view = &view;
    ok = ok && pprof_flame_write_memory(tr, &wo, &later, &err) == PPROF_OK;
    tap_ok(t, ok && later.len == page.len && !memcmp(later.data, page.data, page.len),
           "with graph_view and the profile freed, the page is byte-identical");
    pprof_buffer none = {0};
    wo.graph_view = NULL;
    tap_ok(t, pprof_flame_graph_view_memory(&wo, &none, &err) == PPROF_OK && none.len == 0,
           "no graph: no element");
    tap_ok(t, pprof_flame_graph_view_memory(&wo, NULL, &err) == PPROF_E_ARG, "no output: E_ARG");
    pprof_buffer_free(&page);
    pprof_buffer_free(&view);
    pprof_buffer_free(&later);
    pprof_buffer_free(&none);
    pprof_flame_tree_free(tr);
}

/* ---- memory: the tree build's peak, counted by a tracking allocator */

typedef struct counter {
    size_t live, peak;
    /* when live falls to 0 on a free: watch's live bytes then */
    const struct counter *watch;
    size_t watch_at_zero;
    /* at the first allocation: first_watch's live bytes then */
    const struct counter *first_watch;
    size_t watch_at_first;
    bool allocated;
} counter;

/* each block starts with its size, so free and realloc know what leaves */
static void *
count_alloc(void *ctx, size_t size)
{
    counter *c = ctx;
    size_t *m = malloc(size + 16);
    if (!m)
        return NULL;
    m[0] = size;
    if (!c->allocated && c->first_watch)
        c->watch_at_first = c->first_watch->live;
    c->allocated = true;
    c->live += size;
    c->peak = c->live > c->peak ? c->live : c->peak;
    return (char *)m + 16;
}

static void
count_free(void *ctx, void *p)
{
    counter *c = ctx;
    if (!p)
        return;
    size_t *m = (size_t *)((char *)p - 16);
    c->live -= m[0];
    free(m);
    if (!c->live && c->watch)
        c->watch_at_zero = c->watch->live;
}

static void *
count_realloc(void *ctx, void *p, size_t size)
{
    if (!p)
        return count_alloc(ctx, size);
    counter *c = ctx;
    size_t old = ((size_t *)((char *)p - 16))[0];
    void *n = count_alloc(ctx, size);
    if (!n)
        return NULL;
    memcpy(n, p, old < size ? old : size);
    count_free(ctx, p);
    c->peak = c->live > c->peak ? c->live : c->peak;
    return n;
}

/* 100,000 distinct stacks main > aI > bJ > cK (50 x 50 x 40 functions): ~100,000 nodes; each
 * stack in reps samples. */
static pprof_profile *
make_wide_reps(int reps)
{
    pprof_builder_value_type vt[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = vt;
    bo.n_sample_types = 2;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    enum { NA = 50, NB = 50, NC = 40 };
    pprof_builder_loc loc[1 + NA + NB + NC];
    pprof_builder_str none = PPROF_BUILDER_NONE;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    for (int i = 0; i < 1 + NA + NB + NC; i++) {
        char name[16];
        if (i == 0)
            snprintf(name, sizeof(name), "main");
        else
            snprintf(name, sizeof(name), "%c%d", i <= NA ? 'a' : i <= NA + NB ? 'b' : 'c', i);
        pprof_builder_str n;
        pprof_builder_line line = {{0}, 1, 0};
        if (pprof_builder_intern_cstr(b, name, &n, &err) ||
            pprof_builder_function(b, n, n, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x10 + (uint64_t)i, &line, 1, false, &loc[i], &err))
            return NULL;
    }
    pprof_builder_label rep = {{0}, PPROF_BUILDER_NONE, 0, {0}};
    if (pprof_builder_intern_cstr(b, "rep", &rep.key, &err))
        return NULL;
    for (int i = 0; i < NA; i++)
        for (int j = 0; j < NB; j++)
            for (int k = 0; k < NC; k++) {
                int64_t v[2] = {1, 1000 + k};
                pprof_builder_loc st[4] = {loc[1 + NA + NB + k], loc[1 + NA + j], loc[1 + i],
                                           loc[0]};
                for (int r = 0; r < reps; r++) {
                    rep.num = r; /* a sample of its own, not summed into the stack's first */
                    if (pprof_builder_add_sample(b, v, 2, st, 4, &rep, reps > 1, &err))
                        return NULL;
                }
            }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_profile *p = NULL;
    if (!pprof_builder_write_memory(b, 0, &wo, &buf, &err))
        pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err);
    pprof_builder_free(b);
    pprof_buffer_free(&buf);
    return p;
}

static pprof_profile *
make_wide(void)
{
    return make_wide_reps(1);
}

/* The build holds at most about twice what the tree keeps: the lookup tables and the builder's
 * arrays go before (or as) the tree's arrays come, and no node's values are held twice over. */
static void
test_peak(tap *t)
{
    pprof_profile *p = make_wide();
    counter c = {0};
    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.allocator = (pprof_allocator){count_alloc, count_realloc, count_free, &c};
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    tap_ok(t, p && pprof_flame_tree_new(p, NULL, &o, &tr, &err) == PPROF_OK,
           "a profile of 100,000 distinct stacks: the tree builds");
    size_t kept = c.live, n = tr ? pprof_flame_count(tr) : 0;
    tap_ok(t, n > 50 * 50 * 40, "%zu nodes", n);
    tap_ok(t, tr && c.peak <= 2 * kept, "peak %zu bytes while building, %zu kept (%.2fx)", c.peak,
           kept, kept ? (double)c.peak / (double)kept : 0.0);
    pprof_flame_tree_free(tr);
    pprof_profile_free(p);
}

/* ---- the samples' times in the page's data (docs/flame.md "The samples' times") */

/* 1000 samples 1 ms apart (the first 500 in main > a, the rest in main > b, every tenth one
 * deeper in main > a > tiny or main > b > tiny with a value of 1), and one without a time. */
static pprof_profile *
make_timed(void)
{
    pprof_builder_value_type vt[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = vt;
    bo.n_sample_types = 2;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    pprof_builder_loc loc[4];
    pprof_builder_str none = PPROF_BUILDER_NONE;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    const char *names[] = {"main", "a", "b", "tiny"};
    for (int i = 0; i < 4; i++) {
        pprof_builder_str n;
        pprof_builder_line line = {{0}, 1, 0};
        if (pprof_builder_intern_cstr(b, names[i], &n, &err) ||
            pprof_builder_function(b, n, n, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x10 + (uint64_t)i, &line, 1, false, &loc[i], &err))
            return NULL;
    }
    pprof_builder_label l = {{0}, PPROF_BUILDER_NONE, 0, {0}};
    if (pprof_builder_intern_cstr(b, "timestamp_unix_nano", &l.key, &err) ||
        pprof_builder_intern_cstr(b, "nanoseconds", &l.num_unit, &err))
        return NULL;
    for (int k = 0; k <= 1000; k++) {
        bool deep = k % 10 == 9;
        int64_t v[2] = {1, deep ? 1 : 1000};
        pprof_builder_loc st[3] = {loc[3], loc[k < 500 ? 1 : 2], loc[0]};
        l.num = INT64_C(1796601600000000000) + (int64_t)k * 1000000 + 7;
        if (pprof_builder_add_sample(b, v, 2, deep ? st : st + 1, deep ? 3 : 2, &l, k < 1000, &err))
            return NULL;
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_profile *p = NULL;
    if (!pprof_builder_write_memory(b, 0, &wo, &buf, &err))
        pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err);
    pprof_builder_free(b);
    pprof_buffer_free(&buf);
    return p;
}

/* The integers of the array after key (the first one after "\"time\":"); their count. */
static size_t
time_array(const char *json, const char *key, int64_t *out, size_t cap)
{
    const char *p = strstr(json, "\"time\":");
    p = p ? strstr(p, key) : NULL;
    if (!p)
        return SIZE_MAX;
    p += strlen(key);
    size_t n = 0;
    while (*p && *p != ']') {
        char *end;
        int64_t v = strtoll(p, &end, 10);
        if (end == p)
            return SIZE_MAX;
        if (n < cap)
            out[n] = v;
        n++;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

typedef struct time_block {
    size_t n_ent, n_keys;
    int64_t ent[4000], node[64], self[64], val[64];
    int64_t total, self_total, last_tick;
} time_block;

static bool
read_time_block(const char *json, time_block *tb)
{
    memset(tb, 0, sizeof(*tb));
    tb->n_ent = time_array(json, "\"samples\":[", tb->ent, 4000);
    tb->n_keys = time_array(json, "\"node\":[", tb->node, 64);
    if (tb->n_ent > 4000 || tb->n_keys > 64 || tb->n_ent % 2 ||
        time_array(json, "\"self\":[", tb->self, 64) != tb->n_keys)
        return false;
    /* the second type's values: the list after the first in "value":[[..],[..]] */
    const char *v = strstr(strstr(json, "\"time\":"), "\"value\":[[");
    v = v ? strstr(v, "],[") : NULL;
    if (!v)
        return false;
    size_t nv = 0;
    for (const char *p = v + 3; *p && *p != ']' && nv < 64;) {
        char *end;
        tb->val[nv++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    if (nv != tb->n_keys)
        return false;
    for (size_t i = 0; i < tb->n_ent; i += 2) {
        int64_t k = tb->ent[i + 1];
        if (k < 0 || (size_t)k >= tb->n_keys || tb->ent[i] < 0)
            return false;
        tb->total += tb->val[k];
        tb->self_total += tb->self[k] ? tb->val[k] : 0;
        tb->last_tick += tb->ent[i];
    }
    return true;
}

/* 5000 stacks 30 frames deep: 30,000 nodes, a tree several times the size of the summed
 * stacks. */
static pprof_profile *
make_deep(void)
{
    pprof_builder_value_type vt[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = vt;
    bo.n_sample_types = 2;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    enum { NF = 1000, NS = 5000, DEPTH = 30 };
    static pprof_builder_loc loc[NF];
    pprof_builder_str none = PPROF_BUILDER_NONE;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    for (int i = 0; i < NF; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        pprof_builder_str n;
        pprof_builder_line line = {{0}, 1, 0};
        if (pprof_builder_intern_cstr(b, name, &n, &err) ||
            pprof_builder_function(b, n, n, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x10 + (uint64_t)i, &line, 1, false, &loc[i], &err))
            return NULL;
    }
    for (int i = 0; i < NS; i++) {
        pprof_builder_loc st[DEPTH];
        for (int j = 0; j < DEPTH; j++) /* leaf first */
            st[j] = loc[(unsigned)(i * 7919 + j * 104729 + (j < DEPTH - 2 ? i : 0)) % NF];
        int64_t v[2] = {1, 1000 + i};
        if (pprof_builder_add_sample(b, v, 2, st, DEPTH, NULL, 0, &err))
            return NULL;
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_profile *p = NULL;
    if (!pprof_builder_write_memory(b, 0, &wo, &buf, &err))
        pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err);
    pprof_builder_free(b);
    pprof_buffer_free(&buf);
    return p;
}

/* ---- pprof_flame_tree_new_take: the same page, each profile gone before the tree's nodes */

/* The profile of raw bytes read with allocator a. */
static pprof_profile *
reread(const pprof_profile *p, const pprof_allocator *a)
{
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    if (a)
        ro.allocator = *a;
    pprof_profile *q = NULL;
    pprof_error err;
    if (p && !pprof_profile_write_memory(p, &wo, &buf, &err))
        pprof_profile_read_memory(buf.data, buf.len, &ro, &q, &err);
    pprof_buffer_free(&buf);
    return q;
}

/* The HTML page of tree_new + the Graph view (or of the take call when take), on p (and base);
 * NULL on failure. *peak: the most the allocator held once the profiles were read, them
 * included. */
static pprof_buffer *
page_of(const pprof_profile *p, const pprof_profile *base, bool take, bool graph, size_t *peak)
{
    counter c = {0};
    pprof_allocator a = {count_alloc, count_realloc, count_free, &c};
    pprof_profile *in = reread(p, &a), *bs = base ? reread(base, &a) : NULL;
    c.peak = c.live; /* from the profiles read on */
    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.allocator = a;
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.graph_sample_type = "cpu";
    pprof_flame_tree *tr = NULL;
    pprof_buffer view = {0}, *page = calloc(1, sizeof(*page));
    pprof_error err;
    pprof_status st;
    if (take) {
        st = pprof_flame_tree_new_take(&in, &bs, &o, &wo, graph ? &view : NULL, &tr, &err);
        if (in || bs)
            st = PPROF_E_ARG; /* the profiles must be gone */
    } else {
        st = pprof_flame_tree_new(in, bs, &o, &tr, &err);
        wo.graph = graph ? in : NULL;
        if (!st && graph)
            st = pprof_flame_graph_view_memory(&wo, &view, &err);
        wo.graph = NULL;
    }
    pprof_profile_free(in);
    pprof_profile_free(bs);
    wo.graph_view = graph ? &view : NULL;
    if (!st)
        st = pprof_flame_write_memory(tr, &wo, page, &err);
    pprof_flame_tree_free(tr);
    pprof_buffer_free(&view);
    if (st) {
        pprof_buffer_free(page);
        free(page);
        page = NULL;
    }
    *peak = c.peak;
    return page;
}

static void
take_same(tap *t, const char *what, pprof_profile *p, pprof_profile *base)
{
    size_t peak_new, peak_take;
    pprof_buffer *a = page_of(p, base, false, !base, &peak_new);
    pprof_buffer *b = page_of(p, base, true, !base, &peak_take);
    tap_ok(t, a && b && a->len == b->len && !memcmp(a->data, b->data, a->len),
           "take, %s: the page is byte-identical (%zu bytes)", what, a ? a->len : 0);
    if (a)
        pprof_buffer_free(a);
    if (b)
        pprof_buffer_free(b);
    free(a);
    free(b);
    pprof_profile_free(p);
    pprof_profile_free(base);
}

/* The profile taken is checked and slimmed before the tree allocates anything: its decoded input
 * gone (the strings copied out) and its location ids 4-byte indices, so the profile and the
 * stacks summed from it, or the Graph view drawn from it, are never held at full size together.
 * The page stays the same (take_same). */
static void
take_slims(tap *t)
{
    pprof_profile *w = make_deep();
    pprof_buffer raw = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    size_t entries = 0;
    for (size_t i = 0; w && i < pprof_profile_count(w, PPROF_TABLE_SAMPLE); i++)
        entries += pprof_profile_sample(w, i).n_location_id;
    counter pc = {0}, tc = {0};
    tc.first_watch = &pc;
    pprof_allocator pa = {count_alloc, count_realloc, count_free, &pc};
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = pa;
    pprof_profile *in = NULL;
    pprof_error e;
    if (w && !pprof_profile_write_memory(w, &wo, &raw, &e))
        pprof_profile_read_memory(raw.data, raw.len, &ro, &in, &e);
    size_t read = pc.live;
    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.allocator = (pprof_allocator){count_alloc, count_realloc, count_free, &tc};
    pprof_flame_tree *wt = NULL;
    bool ok = in && pprof_flame_tree_new_take(&in, NULL, &o, NULL, NULL, &wt, &e) == PPROF_OK;
    /* gone: the input and 4 of each entry's 8 bytes; the strings' copy (5,000 bytes of names
     * here) comes back */
    size_t gone = raw.len + 4 * entries;
    if (!ok)
        tap_diag("take: %s", e.message);
    tap_ok(t, ok && entries > 10000 && tc.allocated && tc.watch_at_first + gone <= read + 8192,
           "take: the profile holds %zu bytes when the tree starts, %zu read (%zu input bytes, "
           "%zu stack entries)",
           tc.watch_at_first, read, raw.len, entries);
    pprof_flame_tree_free(wt);
    pprof_buffer_free(&raw);
    pprof_profile_free(w);
}

static void
test_take(tap *t)
{
    take_same(t, "small", make(samples, 4), NULL);
    take_same(t, "timed samples", make_timed(), NULL);
    take_same(t, "with a base", make(samples, 4), make(samples + 1, 3));
    /* the profile is freed before the nodes are made: when its last byte goes, the tree's
     * allocator holds the names and the summed stacks, not yet the nodes */
    pprof_profile *w = make_deep();
    counter pc = {0}, tc = {0};
    pc.watch = &tc;
    pprof_allocator pa = {count_alloc, count_realloc, count_free, &pc};
    pprof_profile *in = reread(w, &pa);
    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    o.allocator = (pprof_allocator){count_alloc, count_realloc, count_free, &tc};
    pprof_flame_tree *wt = NULL;
    pprof_error e;
    bool ok = in && pprof_flame_tree_new_take(&in, NULL, &o, NULL, NULL, &wt, &e) == PPROF_OK;
    size_t n = wt ? pprof_flame_count(wt) : 0;
    tap_ok(t, ok && !in && pc.live == 0 && n > 25000 && pc.watch_at_zero < tc.live / 4,
           "take, %zu nodes: the profile went while the tree's allocator held %zu bytes; the "
           "tree keeps %zu",
           n, pc.watch_at_zero, tc.live);
    take_same(t, "5000 deep stacks", w, NULL);
    take_slims(t);
    pprof_flame_tree_free(wt);
    pprof_profile *none = NULL;
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    tap_ok(t, pprof_flame_tree_new_take(&none, NULL, NULL, NULL, NULL, &tr, &err) == PPROF_E_ARG,
           "take, no profile: E_ARG");
}

/* The integers of the JSON array that starts at s ('['), nested arrays flattened, into v (at
 * most cap); the count, or SIZE_MAX when s is no array. */
static size_t
ints_of(const char *s, int64_t *v, size_t cap)
{
    if (!s || *s != '[')
        return SIZE_MAX;
    size_t n = 0;
    int depth = 0;
    do {
        if (*s == '[')
            depth++;
        else if (*s == ']')
            depth--;
        else if (*s == '-' || (*s >= '0' && *s <= '9')) {
            char *end;
            long long x = strtoll(s, &end, 10);
            if (n < cap)
                v[n] = x;
            n++;
            s = end - 1;
        }
        s++;
    } while (depth > 0 && *s);
    return n;
}

/* A tree large enough for the data block to be written in parts on two threads: every array
 * says what the tree holds, in its place. */
static void
test_data_parts(tap *t)
{
    pprof_profile *p = make_wide();
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    pprof_buffer b = {0};
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FLAME_DATA;
    bool ok = p && !pprof_flame_tree_new(p, NULL, NULL, &tr, &err) &&
              !pprof_flame_write_memory(tr, &wo, &b, &err) && !pprof__buffer_append(&b, "", 1);
    size_t n = ok ? pprof_flame_count(tr) : 0, nn = ok ? pprof_flame_names(tr) : 0;
    tap_ok(t, ok && n >= 65536, "a data block of %zu nodes", n);
    int64_t *v = malloc((2 * n + nn + 1) * sizeof(int64_t));
    const char *d = ok ? (const char *)b.data : "";
    const char *keys[] = {"\"parent\":", "\"value\":", "\"self\":", "\"flat\":"};
    for (int k = 0; k < 4 && v; k++) {
        const char *at = strstr(d, keys[k]);
        size_t want = k == 0 ? n : k == 3 ? 2 * nn : 2 * n;
        size_t got = ints_of(at ? at + strlen(keys[k]) : NULL, v, want);
        bool same = got == want;
        for (size_t i = 0; i < want && same; i++) {
            size_t ty = i / (k == 3 ? nn : n), x = i % (k == 3 ? nn : n);
            int64_t e = k == 0   ? (x ? (int64_t)pprof_flame_node_at(tr, x).parent : -1)
                        : k == 1 ? pprof_flame_value(tr, x, ty, false)
                        : k == 2 ? pprof_flame_self(tr, x, ty, false)
                                 : pprof_flame_flat(tr, x, ty, false);
            same = v[i] == e;
        }
        tap_ok(t, same, "data block: %s%zu numbers, each the tree's", keys[k], got);
    }
    free(v);
    pprof_buffer_free(&b);
    pprof_flame_tree_free(tr);
    pprof_profile_free(p);
}

/* The whole of the file at path in b. */
static bool
slurp(const char *path, pprof_buffer *b)
{
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    bool ok = f != NULL;
    while (ok && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ok = !pprof__buffer_append(b, chunk, n);
    if (f)
        fclose(f);
    return ok;
}

/* The resident peak (KB, VmHWM past VmRSS after a reset through /proc/self/clear_refs) of
 * writing tr in a child: to path with pprof_flame_write_file, else with write_memory; -1 when
 * it cannot be measured. */
static long
write_peak(const pprof_flame_tree *tr, const pprof_flame_write_options *wo, const char *path)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        long res = -1;
        FILE *cr = fopen("/proc/self/clear_refs", "w");
        if (cr && fputs("5", cr) >= 0 && !fclose(cr)) {
            long start = status_kb("VmRSS");
            pprof_buffer b = {0};
            bool ok = path ? !pprof_flame_write_file(tr, wo, NULL, path, NULL)
                           : !pprof_flame_write_memory(tr, wo, &b, NULL);
            long hwm = status_kb("VmHWM");
            pprof_buffer_free(&b);
            res = ok && start && hwm ? hwm - start : -1;
        }
        if (write(fd[1], &res, sizeof(res)) != sizeof(res))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    long res = -1;
    if (pid < 0 || read(fd[0], &res, sizeof(res)) != sizeof(res))
        res = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return res;
}

/* pprof_flame_write_file writes the page and the data block as they are made: the same bytes
 * as write_memory, with a resident peak during the write at least half the page's size under
 * write_memory's (the whole page was held before it was written). */
static void
test_write_file(tap *t)
{
    pprof_profile *p = make_wide();
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    bool ok = p && !pprof_flame_tree_new(p, NULL, NULL, &tr, &err);
    pprof_profile_free(p);
    char path[] = "/tmp/test_flame_write_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    const pprof_flame_format fmts[] = {PPROF_FLAME_HTML, PPROF_FLAME_DATA};
    for (int k = 0; k < 2; k++) {
        pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
        wo.format = fmts[k];
        pprof_buffer mem = {0}, file = {0};
        bool made = ok && fd >= 0 && !pprof_flame_write_memory(tr, &wo, &mem, &err) &&
                    !pprof_flame_write_file(tr, &wo, NULL, path, &err) && slurp(path, &file);
        tap_ok(t, made && file.len == mem.len && !memcmp(file.data, mem.data, mem.len),
               "write_file, %s: the %zu bytes of write_memory", k ? "data" : "html", mem.len);
        long pm = made ? write_peak(tr, &wo, NULL) : -1;
        long pf = pm >= 0 ? write_peak(tr, &wo, path) : -1;
        if (pm < 0 || pf < 0)
            tap_ok(t, true, "# SKIP no /proc/self/clear_refs to measure the write's peak");
        else
            tap_ok(t, (size_t)pf * 1024 + mem.len / 2 <= (size_t)pm * 1024,
                   "write_file, %s: %ld KB of peak resident memory, write_memory's %ld KB (a %zu "
                   "KB page)",
                   k ? "data" : "html", pf, pm, mem.len / 1024);
        pprof_buffer_free(&mem);
        pprof_buffer_free(&file);
    }
    if (fd >= 0)
        remove(path);
    pprof_flame_tree_free(tr);
}

static void
test_time(tap *t)
{
    pprof_profile *p = make_timed();
    pprof_flame_tree *tr = NULL;
    pprof_error err;
    tap_ok(t, p && pprof_flame_tree_new(p, NULL, NULL, &tr, &err) == PPROF_OK,
           "a profile of 1000 timed samples and one without: the tree builds");
    if (!tr) {
        pprof_profile_free(p);
        return;
    }
    const int64_t timed_total = 900 * 1000 + 100; /* the cpu values of the timed samples */
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FLAME_DATA;
    pprof_buffer out = {0};
    static time_block tb;
    bool ok = pprof_flame_write_memory(tr, &wo, &out, &err) == PPROF_OK &&
              !pprof__buffer_append(&out, "", 1) && read_time_block((char *)out.data, &tb);
    tap_ok(t,
           ok && tb.n_ent == 2000 && tb.total == timed_total && tb.self_total == timed_total &&
               tb.last_tick == 999000 &&
               strstr((char *)out.data, "\"start\":\"1796601600000000007\",\"tick\":1000,"),
           "every timed sample an entry, in microseconds from the first (%zu entries, total "
           "%lld, last tick %lld)",
           tb.n_ent / 2, (long long)tb.total, (long long)tb.last_tick);
    tap_ok(t, ok && tb.n_keys <= 8, "entries share keys: %zu keys", tb.n_keys);
    pprof_buffer_free(&out);

    /* pruned: the tiny frames are left out, their samples drawn at their parents, not as self */
    wo.max_nodes = 4;
    ok = pprof_flame_write_memory(tr, &wo, &out, &err) == PPROF_OK &&
         !pprof__buffer_append(&out, "", 1) && read_time_block((char *)out.data, &tb);
    tap_ok(t,
           ok && strstr((char *)out.data, "\"pruned\":2") && tb.n_ent == 2000 &&
               tb.total == timed_total && tb.self_total == timed_total - 100,
           "pruned: every sample drawn at a kept node, the pruned ones not as self (self %lld)",
           (long long)tb.self_total);
    for (size_t k = 0; ok && k < tb.n_keys; k++)
        ok = tb.node[k] >= 1 && tb.node[k] < 4;
    tap_ok(t, ok, "pruned: every key names a kept node");
    pprof_buffer_free(&out);

    /* past max_time_samples: summed per node and 20 ms slice */
    wo.max_nodes = 0;
    wo.max_time_samples = 100;
    ok = pprof_flame_write_memory(tr, &wo, &out, &err) == PPROF_OK &&
         !pprof__buffer_append(&out, "", 1) && read_time_block((char *)out.data, &tb);
    /* 50 slices of 20 ms, each with its phase's frame and its tiny frame */
    tap_ok(t,
           ok && tb.n_ent == 2 * 100 && tb.total == timed_total && tb.self_total == timed_total &&
               tb.last_tick == 49 &&
               strstr((char *)out.data, "\"tick\":20000000,\"slice\":20000000,"),
           "summed per 20 ms slice: %zu entries, total %lld, last slice %lld", tb.n_ent / 2,
           (long long)tb.total, (long long)tb.last_tick);
    pprof_buffer_free(&out);
    pprof_flame_tree_free(tr);

    /* with a base: no times */
    pprof_flame_tree *d = NULL;
    wo.max_time_samples = 0;
    ok = pprof_flame_tree_new(p, p, NULL, &d, &err) == PPROF_OK &&
         pprof_flame_write_memory(d, &wo, &out, &err) == PPROF_OK &&
         !pprof__buffer_append(&out, "", 1);
    tap_ok(t, ok && !strstr((char *)out.data, "\"time\":"), "a differential page has no times");
    pprof_buffer_free(&out);
    pprof_flame_tree_free(d);
    pprof_profile_free(p);
}

/* ---- every example and real-corpus profile */

static void
check_file(tap *t, const char *path)
{
    pprof_profile *p = NULL;
    pprof_error err;
    if (pprof_profile_read_file(path, NULL, &p, &err))
        return; /* the corpus holds some profiles the reader refuses; not this test's matter */
    pprof_flame_tree *tr = NULL;
    pprof_status st = pprof_flame_tree_new(p, NULL, NULL, &tr, &err);
    if (pprof_validate(p, NULL, NULL, 0, NULL, NULL) !=
        PPROF_OK) { /* Go refuses it: so does the tree */
        tap_ok(t, st == PPROF_E_INVALID && !tr, "%s: refused as Go refuses it (%s)", path,
               pprof_status_name(st));
        pprof_flame_tree_free(tr);
        pprof_profile_free(p);
        return;
    }
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    bool totals = st == PPROF_OK;
    for (size_t ty = 0; ty < nt && totals; ty++) {
        __extension__ __int128 sum = 0;
        for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
            pprof_sample s = pprof_profile_sample(p, i);
            sum += ty < s.n_value ? s.value[ty] : 0;
        }
        totals = sum == pprof_flame_value(tr, 0, ty, false);
    }
    tap_ok(t, totals, "%s: root == total for each of %zu types (%s)", path, nt,
           st ? err.message : "built");
    if (st) {
        pprof_profile_free(p);
        return;
    }
    tap_ok(t, consistent(tr, false), "%s: value = self + children everywhere", path);
    /* the per-name numbers are pprof-top's at function granularity */
    pprof_report_options ro = PPROF_REPORT_OPTIONS_INIT;
    ro.node_fraction = PPROF_REPORT_NO_CUTOFF;
    pprof_report *r = NULL;
    bool same = pprof_report_new(p, &ro, &r, &err) == PPROF_OK;
    size_t def = pprof_flame_default_type(tr), checked = 0;
    for (size_t i = 0; same && i < pprof_report_count(r); i++) {
        pprof_report_node rn = pprof_report_node_at(r, i);
        for (size_t k = 1; k < pprof_flame_names(tr); k++) {
            pprof_flame_name nm = pprof_flame_name_at(tr, k);
            if (nm.name_len == rn.name_len && !memcmp(nm.name, rn.name, rn.name_len)) {
                same = pprof_flame_flat(tr, k, def, false) == rn.flat &&
                       pprof_flame_cum(tr, k, def, false) == rn.cum;
                if (!same)
                    tap_diag("%s: flat %lld cum %lld, top %lld %lld", nm.name,
                             (long long)pprof_flame_flat(tr, k, def, false),
                             (long long)pprof_flame_cum(tr, k, def, false), (long long)rn.flat,
                             (long long)rn.cum);
                checked++;
                break;
            }
        }
    }
    tap_ok(t, same && checked == pprof_report_count(r),
           "%s: flat and cum of %zu names equal pprof-top's", path, checked);
    pprof_report_free(r);
    pprof_flame_tree_free(tr);
    pprof_profile_free(p);
}

static void
walk_dir(tap *t, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char *names[512];
    size_t n = 0;
    while ((e = readdir(d)) && n < 512)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *x = names[i];
                names[i] = names[j];
                names[j] = x;
            }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        size_t l = strlen(path);
        if (depth < 2 && !strchr(names[i], '.'))
            walk_dir(t, path, depth + 1);
        else if ((l > 6 && !strcmp(path + l - 6, ".pb.gz")) ||
                 (l > 3 && !strcmp(path + l - 3, ".pb")))
            check_file(t, path);
        free(names[i]);
    }
}

static int
float_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

/* The pruning's selection against a sort: all equal (the case that was quadratic), few
 * distinct values, ascending, descending and organ-pipe runs, every k of small arrays and a
 * few k of large ones. */
static void
test_kth_largest(tap *t)
{
    enum { N = 20000 };
    float *v = malloc(N * sizeof(float)), *w = malloc(N * sizeof(float)),
          *sorted = malloc(N * sizeof(float));
    uint64_t seed = 42;
    size_t bad = 0, checks = 0;
    for (int shape = 0; shape < 6; shape++) {
        for (size_t n = 1; n <= N; n = n < 64 ? n + 1 : n * 7) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                float r = (float)(seed >> 40);
                v[i] = shape == 0   ? 1.0f
                       : shape == 1 ? (float)((seed >> 33) % 3)
                       : shape == 2 ? (float)i
                       : shape == 3 ? (float)(n - i)
                       : shape == 4 ? (float)(i < n / 2 ? i : n - i)
                                    : r;
            }
            memcpy(sorted, v, n * sizeof(float));
            qsort(sorted, n, sizeof(float), float_desc);
            size_t step = n <= 64 ? 1 : n / 5;
            for (size_t k = 0; k < n; k += step) {
                memcpy(w, v, n * sizeof(float));
                checks++;
                bad += pprof__flame_kth_largest(w, n, k) != sorted[k];
            }
            memcpy(w, v, n * sizeof(float));
            checks++;
            bad += pprof__flame_kth_largest(w, n, n - 1) != sorted[n - 1];
        }
    }
    tap_ok(t, bad == 0, "kth_largest equals the k-th of a sort in %zu of %zu cases (ties included)",
           checks - bad, checks);
    free(v);
    free(w);
    free(sorted);
}

/* ---- pprof_profile_read_buffer (pprof-flame's read): the profile of read_memory, the input gone
 * once decompressed; the same error on a broken input; the buffer empty either way */

static void
test_read_buffer(tap *t)
{
    pprof_profile *w = make_deep();
    pprof_buffer gz = {0}, raw = {0}, in = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    pprof_error e, e2;
    bool made = w && !pprof_profile_write_memory(w, &wo, &gz, &e);
    wo.format = PPROF_FORMAT_RAW;
    made = made && !pprof_profile_write_memory(w, &wo, &raw, &e);
    for (int k = 0; k < 2 && made; k++) {
        const pprof_buffer *src = k ? &raw : &gz;
        in.data = malloc(src->len);
        in.len = in.cap = in.data ? src->len : 0;
        if (in.data)
            memcpy(in.data, src->data, src->len);
        pprof_profile *a = NULL, *b = NULL;
        pprof_status sa = pprof_profile_read_memory(src->data, src->len, NULL, &a, &e);
        pprof_status sb = pprof_profile_read_buffer(&in, NULL, &b, &e2);
        pprof_buffer wa = {0}, wb = {0};
        bool same = !sa && !sb && !pprof_profile_write_memory(a, &wo, &wa, &e) &&
                    !pprof_profile_write_memory(b, &wo, &wb, &e) && wa.len == wb.len &&
                    !memcmp(wa.data, wb.data, wa.len);
        tap_ok(t, same && !in.data && !in.len,
               "read_buffer, %s: the profile of read_memory, the "
               "buffer emptied",
               k ? "raw" : "gzip");
        pprof_buffer_free(&wa);
        pprof_buffer_free(&wb);
        pprof_profile_free(a);
        pprof_profile_free(b);
    }
    /* a gzip stream cut short */
    size_t cut = gz.len / 2;
    in.data = malloc(cut);
    in.len = in.cap = in.data ? cut : 0;
    if (in.data)
        memcpy(in.data, gz.data, cut);
    pprof_profile *a = NULL, *b = NULL;
    pprof_status sa = pprof_profile_read_memory(gz.data, cut, NULL, &a, &e);
    pprof_status sb = pprof_profile_read_buffer(&in, NULL, &b, &e2);
    tap_ok(t, made && sa && sa == sb && !a && !b && !strcmp(e.message, e2.message) && !in.data,
           "read_buffer, cut gzip: the same error (%s)", sb ? e2.message : "none");
    tap_ok(t, pprof_profile_read_buffer(NULL, NULL, &b, &e2) == PPROF_E_ARG && !b,
           "read_buffer, no buffer: E_ARG");
    pprof_buffer_free(&gz);
    pprof_buffer_free(&raw);
    pprof_profile_free(w);
}

int
main(void)
{
    tap t = {0};
    test_read_buffer(&t);
    test_kth_largest(&t);
    test_small(&t);
    test_diff(&t);
    test_time(&t);
    test_peak(&t);
    test_graph_view(&t);
    test_take(&t);
    test_data_parts(&t);
    test_write_file(&t);
    const char *src = getenv("PPROF_SOURCE_ROOT");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/corpus/examples", src ? src : ".");
    walk_dir(&t, dir, 0);
    walk_dir(&t, tap_real_corpus(), 0);
    return tap_done(&t);
}
