/* The stack tree: one pass over the samples walks each stack from the root and finds or adds a
 * child per frame in a hash table keyed by (parent, frame), adding the sample's values for
 * every type on the way; then the nodes are put in preorder with children ordered by name, and
 * per-name flat and cum are summed. Frame names come from the report nodes (report-nodes.c),
 * so the names and the per-name numbers are pprof-top's. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>

#include "flame-private.h"
#include "hash-private.h"
#include "pool-private.h"
#include "report-private.h"
#include "validate-private.h"
#include <inttypes.h>

/* The tree while it grows, in creation order. A frame key is name << 1 | inline. */
typedef struct builder {
    pprof_flame_tree *t;
    const pprof_allocator *a;
    size_t nt, n, cap;
    int slots; /* 2 with a base */
    uint32_t *parent, *key;
    int64_t *self[2];
    pprof__htab children; /* (parent, key) -> node */
    pprof__htab names;    /* name bytes -> name id */
    pprof__vec name_vec;  /* pprof_flame_name */
    bool overflow;
    /* frame keys are name rank << 1 | inline (rank_keys): the stacks come in the tree's
     * preorder, so the nodes are made in it */
    bool ranked;
    pprof__vec timed;     /* flame_timed of IN's samples with a time label */
    pprof__vec timed_val; /* their values, nt each, in the order they were found */
} builder;

typedef struct flame_timed {
    int64_t time;
    uint32_t node;   /* creation order until order(), then preorder */
    uint32_t sample; /* index into timed_val */
} flame_timed;

static pprof_status
nomem(pprof_error *err)
{
    return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "",
                        "out of memory building the "
                        "flame graph");
}

static char *
arena_copy(pprof__arena *arena, const char *s, size_t n)
{
    char *d = pprof__arena_alloc(arena, n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* Room for cap nodes (more than now). */
static bool
nodes_to(builder *b, size_t cap)
{
    uint32_t *p = pprof__realloc(b->a, b->parent, cap * sizeof(uint32_t));
    if (!p)
        return false;
    b->parent = p;
    uint32_t *k = pprof__realloc(b->a, b->key, cap * sizeof(uint32_t));
    if (!k)
        return false;
    b->key = k;
    for (int s = 0; s < b->slots; s++) {
        /* zeroed node by node as they are made (new_node): pages past the last node stay
         * untouched, so the doubling costs address space, not memory */
        int64_t *v = pprof__realloc(b->a, b->self[s], cap * b->nt * sizeof(int64_t));
        if (!v)
            return false;
        b->self[s] = v;
    }
    b->cap = cap;
    return true;
}

static bool
grow_nodes(builder *b)
{
    return nodes_to(b, b->cap ? b->cap * 2 : 1024);
}

static uint32_t
new_node(builder *b, uint32_t parent, uint32_t key)
{
    uint32_t v = (uint32_t)b->n++;
    b->parent[v] = parent;
    b->key[v] = key;
    for (int s = 0; s < b->slots; s++)
        memset(b->self[s] + (size_t)v * b->nt, 0, b->nt * sizeof(int64_t));
    return v;
}

static uint64_t
child_hash(uint32_t parent, uint32_t key)
{
    return pprof__mix64(((uint64_t)parent << 32) | key);
}

/* A new node for frame key under parent, known to have none; PPROF_NONE when out of memory or
 * full. */
static uint32_t
fresh_child(builder *b, uint32_t parent, uint32_t key)
{
    if (b->n >= UINT32_MAX - 2)
        return PPROF_NONE;
    if (b->n == b->cap && !grow_nodes(b))
        return PPROF_NONE;
    return new_node(b, parent, key);
}

/* The node for frame key under parent, added if new; PPROF_NONE when out of memory or full. */
static uint32_t
child(builder *b, uint32_t parent, uint32_t key)
{
    uint64_t h = child_hash(parent, key);
    pprof__htab_probe pr;
    uint32_t v;
    PPROF__HTAB_FIND(&b->children, h, pr, v, b->parent[v] == parent && b->key[v] == key);
    if (v != PPROF_NONE)
        return v;
    if (b->n >= UINT32_MAX - 2)
        return PPROF_NONE;
    if (b->n == b->cap && !grow_nodes(b))
        return PPROF_NONE;
    if (pprof__htab_full(&b->children)) {
        if (!pprof__htab_reserve(&b->children, b->a, 1))
            return PPROF_NONE;
        PPROF__HTAB_FIND(&b->children, h, pr, v, false);
    }
    v = new_node(b, parent, key);
    pprof__htab_insert_at(&b->children, &pr, v);
    return v;
}

static bool
name_eq(const void *ctx, uint32_t v, const void *key)
{
    const pprof_flame_name *n = (const pprof_flame_name *)((const pprof__vec *)ctx)->data + v;
    const pprof_string *k = key;
    return n->name_len == k->len && (!k->len || !memcmp(n->name, k->data, k->len));
}

/* The id of a name, added (copied) if new; PPROF_NONE when out of memory. */
static uint32_t
intern_name(builder *b, const char *s, size_t len)
{
    pprof_string k = {s, len};
    bool added;
    uint32_t id = pprof__htab_intern(&b->names, b->a, pprof__hash_bytes(0, s, len), name_eq,
                                     &b->name_vec, &k, (uint32_t)b->name_vec.len, &added);
    if (id == PPROF_NONE || !added)
        return id;
    pprof_flame_name *n = pprof__vec_push(b->a, &b->name_vec, sizeof(*n));
    char *copy = arena_copy(&b->t->arena, s, len);
    if (!n || !copy)
        return PPROF_NONE;
    *n = (pprof_flame_name){copy, len, "", 0, PPROF_FLAME_KIND_NATIVE};
    return id;
}

static bool
has_prefix(const char *s, size_t n, const char *pre)
{
    size_t l = strlen(pre);
    return n >= l && !memcmp(s, pre, l);
}

static bool
has_suffix(const char *s, size_t n, const char *suf)
{
    size_t l = strlen(suf);
    return n >= l && !memcmp(s + n - l, suf, l);
}

static bool
contains(const char *s, size_t n, const char *needle)
{
    size_t l = strlen(needle);
    for (size_t i = 0; i + l <= n; i++)
        if (!memcmp(s + i, needle, l))
            return true;
    return false;
}

/* The language-aware palette's class of a frame, from its name, its function's file and its
 * mapping's file (docs/flame.md). */
static pprof_flame_kind
kind_of(pprof_string name, pprof_string file, pprof_string obj)
{
    const char *s = name.data, *f = file.data;
    size_t n = name.len, fl = file.len;
    if (has_suffix(s, n, "_[k]") || contains(obj.data, obj.len, "kernel") ||
        contains(obj.data, obj.len, "vmlinux") || has_prefix(s, n, "[kernel"))
        return PPROF_FLAME_KIND_KERNEL;
    if (has_prefix(s, n, "runtime.") || has_prefix(s, n, "runtime/") ||
        has_prefix(s, n, "internal/runtime/") || has_prefix(s, n, "runtime_"))
        return PPROF_FLAME_KIND_RUNTIME;
    static const char *const native_ext[] = {".c",   ".cc", ".cpp", ".cxx", ".h",
                                             ".hpp", ".S",  ".s",   ".rs"};
    for (size_t i = 0; i < sizeof(native_ext) / sizeof(native_ext[0]); i++)
        if (has_suffix(f, fl, native_ext[i]))
            return PPROF_FLAME_KIND_NATIVE;
    if (!n || s[0] == '[' || s[0] == '<' || has_prefix(s, n, "0x") || contains(s, n, "::") ||
        (n >= 16 && strspn(s, "0123456789abcdef") >= 16))
        return PPROF_FLAME_KIND_NATIVE;
    return PPROF_FLAME_KIND_USER;
}

static pprof_string
str_at(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof__str(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

static pprof_status
location_frames(builder *b, const pprof_profile *p, const pprof__nodes *rn,
                pprof__flame_loc_frames *lf, pprof_error *err)
{
    size_t nl = p->locations.len;
    uint32_t *rname = pprof__malloc(b->a, (rn->n ? rn->n : 1) * sizeof(uint32_t));
    lf->off = pprof__malloc(b->a, (nl + 1) * sizeof(uint32_t));
    lf->fr = pprof__malloc(b->a, (rn->loc_off[nl] ? rn->loc_off[nl] : 1) * sizeof(uint32_t));
    pprof_buffer nb = {0};
    pprof_status st = PPROF_OK;
    if (!rname || !lf->off || !lf->fr)
        st = nomem(err);
    for (size_t i = 0; i < rn->n && !st; i++) {
        nb.len = 0;
        if (pprof__node_name(&rn->info[i], &nb) ||
            (rname[i] = intern_name(b, (char *)nb.data, nb.len - 1)) == PPROF_NONE)
            st = nomem(err);
    }
    for (size_t li = 0; li < nl && !st; li++) {
        const pprof__location *l = &PPROF__AT(p->locations, pprof__location, li);
        size_t k;
        const uint32_t *nodes = pprof__nodes_of(rn, (uint32_t)li, &k);
        lf->off[li] = rn->loc_off[li];
        pprof_string obj = {"", 0};
        size_t mi;
        if (l->mapping_id && pprof_profile_find_mapping(p, l->mapping_id, &mi))
            obj = str_at(p, PPROF__AT(p->mappings, pprof_mapping, mi).filename);
        for (size_t j = 0; j < k; j++) { /* nodes[0] is the innermost line, the last one the call */
            uint32_t name = rname[nodes[j]];
            lf->fr[lf->off[li] + (k - 1 - j)] = name << 1 | (j + 1 < k);
            pprof_flame_name *fn = (pprof_flame_name *)b->name_vec.data + name;
            if (fn->file_len || fn->kind != PPROF_FLAME_KIND_NATIVE)
                continue; /* seen before */
            pprof_string file = {"", 0};
            size_t fi;
            const pprof_line *ln =
                l->n_line ? &PPROF__AT(p->lines, pprof_line, l->line_off + j) : NULL;
            if (ln && ln->function_id && pprof_profile_find_function(p, ln->function_id, &fi))
                file = str_at(p, PPROF__AT(p->functions, pprof_function, fi).filename);
            fn->kind = kind_of((pprof_string){fn->name, fn->name_len}, file, obj);
            if (file.len) {
                fn->file = arena_copy(&b->t->arena, file.data, file.len);
                fn->file_len = file.len;
                if (!fn->file)
                    st = nomem(err);
            }
        }
    }
    if (!st)
        lf->off[nl] = rn->loc_off[nl];
    pprof__free(b->a, rname);
    free(nb.data);
    return st;
}

static pprof_status collect_timed(builder *b, const pprof_profile *p, const pprof__flame_stacks *s,
                                  pprof_error *err);
static bool any_time(const pprof_profile *p);

static int name_cmp(const void *x, const void *y, void *ctx);

/* The frame keys of lf as name rank << 1 | inline, the rank in the order of the names' bytes
 * (the root's first): the order the tree's children take (order()). The stacks then sort in the
 * tree's preorder. Only for IN's tree: BASE's names would change the ranks. */
static pprof_status
rank_keys(builder *b, pprof__flame_loc_frames *lf, size_t n_fr, pprof_error *err)
{
    size_t nn = b->name_vec.len;
    uint32_t *byname = pprof__malloc(b->a, (nn ? nn : 1) * sizeof(uint32_t));
    uint32_t *rank = pprof__malloc(b->a, (nn ? nn : 1) * sizeof(uint32_t));
    if (!byname || !rank) {
        pprof__free(b->a, byname);
        pprof__free(b->a, rank);
        return nomem(err);
    }
    for (size_t i = 0; i < nn; i++)
        byname[i] = (uint32_t)i;
    if (nn > 1)
        qsort_r(byname + 1, nn - 1, sizeof(uint32_t), name_cmp, b->name_vec.data);
    for (size_t i = 0; i < nn; i++)
        rank[byname[i]] = (uint32_t)i;
    for (size_t k = 0; k < n_fr; k++)
        lf->fr[k] = rank[lf->fr[k] >> 1] << 1 | (lf->fr[k] & 1);
    pprof__free(b->a, byname);
    pprof__free(b->a, rank);
    b->ranked = true;
    return PPROF_OK;
}

/* The (parent, key) -> node table over every node made so far. */
static bool
index_children(builder *b)
{
    if (!pprof__htab_reserve(&b->children, b->a, b->n))
        return false;
    for (size_t v = 1; v < b->n; v++)
        pprof__htab_add(&b->children, child_hash(b->parent[v], b->key[v]), (uint32_t)v);
    return true;
}

/* Called once a profile's samples are summed into stacks, before the nodes are made: the
 * profile is not read after it (pprof_flame_tree_new_take frees it there). */
typedef struct release_hook {
    void (*fn)(void *ctx, int slot);
    void *ctx;
} release_hook;

/* Adds every sample of p to the tree, into slot (0 IN, 1 BASE): each distinct frame stack's
 * summed values become its leaf's self value (values are summed up the tree in order()). The
 * stacks come sorted, so a walk starts from the node where it parts from the one before; and
 * into a tree of nothing but the root (IN's), every node past that point is new: the stacks
 * sharing a prefix are neighbours, so none met earlier has this one's. Only BASE, added to IN's
 * tree, needs the lookup table. p is read only until rel is called. */
static pprof_status
add_profile(builder *b, const pprof_profile *p, int slot, bool lines, bool reverse,
            const release_hook *rel, pprof_error *err)
{
    pprof__nodes rn;
    pprof_status st = pprof__nodes_intern(
        p, lines ? PPROF_GRANULARITY_LINES : PPROF_GRANULARITY_FUNCTIONS, b->a, &rn, err);
    pprof__flame_loc_frames lf = {NULL, NULL};
    pprof__flame_stacks s = {0};
    if (!st)
        st = location_frames(b, p, &rn, &lf, err);
    if (!st && slot == 0 && b->slots == 1)
        st = rank_keys(b, &lf, rn.loc_off[p->locations.len], err);
    /* the nodes are in lf now: they go before the stacks come */
    pprof__nodes_free(&rn);
    /* the samples' times, with their stack for a node (IN only: no times with a base); each
     * sample's stack is kept only when some sample has one */
    bool timed = slot == 0 && b->slots == 1 && any_time(p);
    if (!st)
        st = pprof__flame_stacks_build(p, &lf, b->nt, reverse, timed, b->a, &s, err);
    pprof__free(b->a, lf.off);
    pprof__free(b->a, lf.fr);
    if (!st && timed)
        st = collect_timed(b, p, &s, err);
    pprof__free(b->a, s.of_sample);
    s.of_sample = NULL;
    if (rel && rel->fn)
        rel->fn(rel->ctx, slot);
    b->overflow |= s.overflow;
    size_t maxlen = 0;
    for (size_t k = 0; k < s.n; k++)
        maxlen = s.len[k] > maxlen ? s.len[k] : maxlen;
    uint32_t *path = st ? NULL : pprof__malloc(b->a, (maxlen + 1) * sizeof(uint32_t));
    if (!st && (!path || (slot && !index_children(b))))
        st = nomem(err);
    /* into the root alone, each stack adds a node per frame past the prefix it shares with the
     * one before: the arrays are made that size once (one mapping each, not a doubling's copies
     * and first touches) */
    size_t need = b->n;
    for (size_t k = 0; k < s.n && !st && !slot; k++) {
        size_t n = s.len[s.order[k]], j = 0, pn = k ? s.len[s.order[k - 1]] : 0;
        if (n && pn) { /* frames may be NULL */
            const uint32_t *fr = s.frames + s.off[s.order[k]];
            const uint32_t *pf = s.frames + s.off[s.order[k - 1]];
            while (j < n && j < pn && fr[j] == pf[j])
                j++;
        }
        need += n - j;
    }
    if (!st && !slot && need > b->cap && need < UINT32_MAX - 2 && !nodes_to(b, need))
        st = nomem(err);
    /* the node each stack ends at, for the samples' times */
    uint32_t *stack_node = NULL;
    if (!st && timed && b->timed.len &&
        !(stack_node = pprof__malloc(b->a, (s.n ? s.n : 1) * sizeof(uint32_t))))
        st = nomem(err);
    const uint32_t *prev = NULL;
    size_t prev_len = 0;
    for (size_t k = 0; k < s.n && !st; k++) {
        uint32_t id = s.order[k];
        const uint32_t *fr = s.len[id] ? s.frames + s.off[id] : NULL; /* frames may be NULL */
        size_t n = s.len[id], j = 0;
        while (j < n && j < prev_len && fr[j] == prev[j])
            j++;
        uint32_t node = j ? path[j - 1] : 0;
        for (; j < n && node != PPROF_NONE; j++)
            node = path[j] = slot ? child(b, node, fr[j]) : fresh_child(b, node, fr[j]);
        prev = fr;
        prev_len = n;
        if (node == PPROF_NONE) {
            st = b->n >= UINT32_MAX - 2 ? pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                                       "more than 2^32 flame graph nodes")
                                        : nomem(err);
            break;
        }
        int64_t *d = b->self[slot] + (size_t)node * b->nt;
        const int64_t *v = s.sum + (size_t)id * b->nt;
        for (size_t t = 0; t < b->nt; t++)
            b->overflow |= __builtin_add_overflow(d[t], v[t], &d[t]);
        if (stack_node)
            stack_node[id] = node;
    }
    if (!st && stack_node) {
        flame_timed *f = b->timed.data;
        for (size_t i = 0; i < b->timed.len; i++)
            f[i].node = stack_node[f[i].node];
    }
    pprof__free(b->a, stack_node);
    pprof__free(b->a, path);
    pprof__flame_stacks_free(b->a, &s);
    return st;
}

/* The sample's first numeric "timestamp_unix_nano" label; false without one. */
static bool
sample_time(const pprof_profile *p, const pprof__sample *sm, int64_t *t)
{
    const pprof_label *l = sm->n_lab ? (const pprof_label *)p->labels.data + sm->lab_off : NULL;
    for (uint32_t j = 0; j < sm->n_lab; j++) {
        pprof_string k;
        if (l[j].str || !pprof__str(p, l[j].key, &k))
            continue;
        if (k.len == sizeof(PPROF__FLAME_TIME_LABEL) - 1 &&
            !memcmp(k.data, PPROF__FLAME_TIME_LABEL, k.len)) {
            *t = l[j].num;
            return true;
        }
    }
    return false;
}

/* Whether some sample has a time. */
static bool
any_time(const pprof_profile *p)
{
    int64_t t;
    for (size_t i = 0; i < p->samples.len; i++)
        if (sample_time(p, &PPROF__AT(p->samples, pprof__sample, i), &t))
            return true;
    return false;
}

/* IN's samples that have a time, with their stack (node: the stack's id until add_profile has
 * made the nodes). */
static pprof_status
collect_timed(builder *b, const pprof_profile *p, const pprof__flame_stacks *s, pprof_error *err)
{
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *sm = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t t;
        if (!sample_time(p, sm, &t))
            continue;
        if (b->timed.len >= UINT32_MAX ||
            !pprof__vec_grow(b->a, &b->timed, sizeof(flame_timed), b->timed.len + 1) ||
            !pprof__vec_grow(b->a, &b->timed_val, sizeof(int64_t), b->timed_val.len + b->nt))
            return nomem(err);
        flame_timed *f = (flame_timed *)b->timed.data + b->timed.len;
        f->time = t;
        f->node = s->of_sample[i];
        f->sample = (uint32_t)b->timed.len++;
        memcpy((int64_t *)b->timed_val.data + b->timed_val.len,
               (const int64_t *)p->values.data + sm->val_off, b->nt * sizeof(int64_t));
        b->timed_val.len += b->nt;
    }
    return PPROF_OK;
}

/* ---- preorder */

static int
name_cmp(const void *x, const void *y, void *ctx)
{
    const pprof_flame_name *n = ctx;
    const pprof_flame_name *a = &n[*(const uint32_t *)x], *b = &n[*(const uint32_t *)y];
    size_t l = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = l ? memcmp(a->name, b->name, l) : 0;
    return c ? c : a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static int
u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Each node's children as (rank of name << 1 | inline) << 32 | node, sorted, in CSR form. */
static pprof_status
sorted_children(builder *b, const uint32_t *rank, uint32_t *coff, uint64_t *cl)
{
    size_t n = b->n;
    memset(coff, 0, (n + 1) * sizeof(uint32_t));
    for (size_t i = 1; i < n; i++)
        coff[b->parent[i] + 1]++;
    for (size_t i = 0; i < n; i++)
        coff[i + 1] += coff[i];
    for (size_t i = 1; i < n; i++) {
        uint32_t p = b->parent[i];
        uint64_t key = (uint64_t)(rank[b->key[i] >> 1] << 1 | (b->key[i] & 1));
        cl[coff[p]++] = key << 32 | i; /* coff[p] moves to p's end; put back below */
    }
    for (size_t i = n; i-- > 0;)
        coff[i + 1] = coff[i];
    coff[0] = 0;
    for (size_t i = 0; i < n; i++)
        if (coff[i + 1] - coff[i] > 1)
            qsort(cl + coff[i], coff[i + 1] - coff[i], sizeof(uint64_t), u64_cmp);
    return PPROF_OK;
}

/* Moves each node's nt values from i to to[i], in place, following the permutation's cycles;
 * to is left the identity. */
static void
permute(int64_t *v, uint32_t *to, size_t n, size_t nt)
{
    for (size_t i = 0; i < n; i++)
        while (to[i] != i) {
            uint32_t j = to[i];
            for (size_t k = 0; k < nt; k++) {
                int64_t x = v[i * nt + k];
                v[i * nt + k] = v[(size_t)j * nt + k];
                v[(size_t)j * nt + k] = x;
            }
            to[i] = to[j];
            to[j] = j;
        }
}

/* Block p cut to size bytes; where the cut fails, p as it was (it is only larger). */
static void *
fit(const pprof_allocator *a, void *p, size_t size)
{
    void *v = pprof__realloc(a, p, size);
    return v ? v : p;
}

/* Orders the tree: children by (name rank, inline), nodes in preorder; fills t's node arrays.
 * Each builder array goes as soon as its tree counterpart is made, and the walk's own arrays
 * before any of them: the largest of the tree's arrays never meet the builder's. */
static pprof_status
order(builder *b, bool base, pprof_error *err)
{
    pprof_flame_tree *t = b->t;
    const pprof_allocator *a = b->a;
    size_t n = b->n, nn = t->n_names, nt = b->nt, nv = n * nt, nf = nn * nt;
    int slots = base ? 2 : 1;
    t->n = n;
    /* ranked keys: the nodes were made in preorder with their children in order */
    bool made = b->ranked;
    uint32_t *byname = pprof__malloc(a, nn * sizeof(uint32_t));
    uint32_t *rank = pprof__malloc(a, nn * sizeof(uint32_t));
    uint32_t *coff = made ? NULL : pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    uint64_t *cl = made ? NULL : pprof__malloc(a, n * sizeof(uint64_t));
    uint32_t *stack = made ? NULL : pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    uint32_t *newof = made ? NULL : pprof__malloc(a, n * sizeof(uint32_t)), *perm = NULL;
    pprof_status st = PPROF_OK;
    if (!byname || !rank || (!made && (!coff || !cl || !stack || !newof)))
        goto nomem;
    for (size_t i = 0; i < nn; i++)
        byname[i] = (uint32_t)i;
    qsort_r(byname + 1, nn - 1, sizeof(uint32_t), name_cmp, t->names);
    for (size_t i = 0; i < nn; i++)
        rank[byname[i]] = (uint32_t)i;
    if (made) {
        /* in preorder already: the builder's arrays become the tree's where they are, the keys
         * turned into names in place (a ranked key's name is the rank's) */
        if (!(t->inl = pprof__malloc(a, n)))
            goto nomem;
        for (size_t i = 0; i < n; i++) {
            t->inl[i] = b->key[i] & 1;
            b->key[i] = byname[b->key[i] >> 1];
        }
        t->name = fit(a, b->key, n * sizeof(uint32_t));
        t->parent = fit(a, b->parent, n * sizeof(uint32_t));
        t->self[0] = fit(a, b->self[0], (nv ? nv : 1) * sizeof(int64_t));
        b->key = b->parent = NULL;
        b->self[0] = NULL;
        goto sums;
    }
    sorted_children(b, rank, coff, cl);
    size_t sp = 0, next = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t old = stack[--sp];
        newof[old] = (uint32_t)next++;
        for (uint32_t j = coff[old + 1]; j-- > coff[old];)
            stack[sp++] = (uint32_t)cl[j];
    }
    pprof__free(a, cl);
    pprof__free(a, coff);
    pprof__free(a, stack);
    cl = NULL, coff = stack = NULL;
    if (!(t->parent = pprof__malloc(a, n * sizeof(uint32_t))))
        goto nomem;
    t->parent[0] = UINT32_MAX;
    for (size_t old = 1; old < n; old++)
        t->parent[newof[old]] = newof[b->parent[old]];
    pprof__free(a, b->parent);
    b->parent = NULL;
    if (!(t->name = pprof__malloc(a, n * sizeof(uint32_t))) || !(t->inl = pprof__malloc(a, n)))
        goto nomem;
    for (size_t old = 0; old < n; old++) {
        t->name[newof[old]] = b->key[old] >> 1;
        t->inl[newof[old]] = b->key[old] & 1;
    }
    pprof__free(a, b->key);
    b->key = NULL;
    for (size_t k = 0; k < b->timed.len; k++) {
        flame_timed *f = (flame_timed *)b->timed.data + k;
        f->node = newof[f->node];
    }
    /* the builder's self values become the tree's, put in preorder where they are */
    for (int s = 0; s < slots; s++) {
        if (s + 1 < slots && !(perm = pprof__malloc(a, n * sizeof(uint32_t))))
            goto nomem;
        if (perm)
            memcpy(perm, newof, n * sizeof(uint32_t));
        permute(b->self[s], perm ? perm : newof, n, nt);
        pprof__free(a, perm);
        perm = NULL;
        int64_t *sv = pprof__realloc(a, b->self[s], (nv ? nv : 1) * sizeof(int64_t));
        t->self[s] = sv ? sv : b->self[s];
        b->self[s] = NULL;
    }
    pprof__free(a, newof);
    newof = NULL;
sums:
    t->end = pprof__malloc(a, n * sizeof(uint32_t));
    t->depth = pprof__malloc(a, n * sizeof(uint32_t));
    t->n_children = pprof__malloc(a, n * sizeof(uint32_t));
    if (!t->end || !t->depth || !t->n_children)
        goto nomem;
    t->depth[0] = 0;
    memset(t->n_children, 0, n * sizeof(uint32_t));
    for (size_t i = 1; i < n; i++) { /* in preorder a parent comes first */
        t->depth[i] = t->depth[t->parent[i]] + 1;
        t->n_children[t->parent[i]]++;
    }
    for (size_t i = 0; i < n; i++)
        t->end[i] = (uint32_t)(i + 1);
    for (size_t i = n; i-- > 1;)
        if (t->end[i] > t->end[t->parent[i]])
            t->end[t->parent[i]] = t->end[i];
    /* a node's value: its self plus its children's values, summed leaves up */
    for (int s = 0; s < slots; s++) {
        t->value[s] = pprof__malloc(a, (nv ? nv : 1) * sizeof(int64_t));
        t->flat[s] = pprof__malloc(a, (nf ? nf : 1) * sizeof(int64_t));
        t->cum[s] = pprof__malloc(a, (nf ? nf : 1) * sizeof(int64_t));
        if (!t->value[s] || !t->flat[s] || !t->cum[s])
            goto nomem;
        memcpy(t->value[s], t->self[s], nv * sizeof(int64_t));
        for (size_t i = n; i-- > 1;) {
            int64_t *pv = t->value[s] + (size_t)t->parent[i] * nt, *v = t->value[s] + i * nt;
            for (size_t k = 0; k < nt; k++)
                b->overflow |= __builtin_add_overflow(pv[k], v[k], &pv[k]);
        }
    }
    goto out;
nomem:
    st = nomem(err);
out:
    pprof__free(a, byname);
    pprof__free(a, rank);
    pprof__free(a, coff);
    pprof__free(a, cl);
    pprof__free(a, stack);
    pprof__free(a, newof);
    pprof__free(a, perm);
    return st;
}

/* Per name: flat = self summed; cum = value summed over nodes without an ancestor of the same
 * name, found with a count per name of the open nodes on the path. */
static pprof_status
per_name(pprof_flame_tree *t, int s, pprof_error *err)
{
    size_t nt = t->nt, nn = t->n_names;
    uint32_t *open = pprof__malloc(&t->a, (nn ? nn : 1) * sizeof(uint32_t));
    uint32_t *path = pprof__malloc(&t->a, (t->n + 1) * sizeof(uint32_t));
    if (!open || !path) {
        pprof__free(&t->a, open);
        pprof__free(&t->a, path);
        return nomem(err);
    }
    memset(open, 0, nn * sizeof(uint32_t));
    memset(t->flat[s], 0, nn * nt * sizeof(int64_t));
    memset(t->cum[s], 0, nn * nt * sizeof(int64_t));
    bool ovf = false;
    size_t sp = 0;
    for (size_t i = 1; i < t->n; i++) {
        while (sp && t->end[path[sp - 1]] <= i)
            open[t->name[path[--sp]]]--;
        uint32_t nm = t->name[i];
        int64_t *f = t->flat[s] + (size_t)nm * nt, *c = t->cum[s] + (size_t)nm * nt;
        const int64_t *v = t->value[s] + i * nt, *sf = t->self[s] + i * nt;
        for (size_t k = 0; k < nt; k++) {
            ovf |= __builtin_add_overflow(f[k], sf[k], &f[k]);
            if (!open[nm])
                ovf |= __builtin_add_overflow(c[k], v[k], &c[k]);
        }
        open[nm]++;
        path[sp++] = (uint32_t)i;
    }
    pprof__free(&t->a, open);
    pprof__free(&t->a, path);
    if (ovf)
        return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "sample",
                            "a flat or cum value leaves int64");
    return PPROF_OK;
}

/* v * f rounded to the nearest integer, held within int64. */
static int64_t
scaled(int64_t v, long double f)
{
    long double x = roundl((long double)v * f);
    if (x != x)
        return 0;
    if (x <= (long double)INT64_MIN)
        return INT64_MIN;
    return x < 9223372036854775807.0L ? (int64_t)x : INT64_MAX;
}

/* --normalize: BASE's values times IN's total over BASE's, per type. */
static void
normalize(pprof_flame_tree *t)
{
    for (size_t k = 0; k < t->nt; k++) {
        int64_t in = t->value[0][k], bt = t->value[1][k];
        if (!bt)
            continue;
        long double f = (long double)in / (long double)bt;
        for (size_t i = 0; i < t->n; i++) {
            int64_t *v = &t->value[1][i * t->nt + k], *s = &t->self[1][i * t->nt + k];
            *v = i == 0 ? in : scaled(*v, f);
            *s = scaled(*s, f);
        }
    }
    t->normalized = true;
}

static pprof_status
copy_types(pprof_flame_tree *t, const pprof_profile *p, const pprof_profile *base, pprof_error *err)
{
    t->nt = p->sample_types.len;
    t->types = pprof__arena_alloc(&t->arena, (t->nt ? t->nt : 1) * sizeof(*t->types));
    if (!t->types)
        return nomem(err);
    if (base && base->sample_types.len != t->nt)
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "the base has %zu sample types, the profile %zu",
                            base->sample_types.len, t->nt);
    for (size_t i = 0; i < t->nt; i++) {
        pprof_value_type vt = PPROF__AT(p->sample_types, pprof_value_type, i);
        pprof_string ty = str_at(p, vt.type), un = str_at(p, vt.unit);
        if (base) {
            pprof_value_type bv = PPROF__AT(base->sample_types, pprof_value_type, i);
            pprof_string by = str_at(base, bv.type), bu = str_at(base, bv.unit);
            if (by.len != ty.len || bu.len != un.len ||
                (ty.len && memcmp(by.data, ty.data, ty.len)) ||
                (un.len && memcmp(bu.data, un.data, un.len)))
                return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                                    "sample type %zu differs: %.*s/%.*s in the profile, %.*s/%.*s "
                                    "in the base",
                                    i, (int)(ty.len > 40 ? 40 : ty.len), ty.data,
                                    (int)(un.len > 40 ? 40 : un.len), un.data,
                                    (int)(by.len > 40 ? 40 : by.len), by.data,
                                    (int)(bu.len > 40 ? 40 : bu.len), bu.data);
        }
        t->types[i].type = arena_copy(&t->arena, ty.data, ty.len);
        t->types[i].unit = arena_copy(&t->arena, un.data, un.len);
        if (!t->types[i].type || !t->types[i].unit)
            return nomem(err);
    }
    return PPROF_OK;
}

static int
timed_cmp(const void *x, const void *y)
{
    const flame_timed *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->sample < b->sample ? -1 : a->sample > b->sample;
}

/* The timed samples into the tree, sorted by time (then by their order in the profile). */
static pprof_status
timed_to_tree(builder *b, pprof_error *err)
{
    pprof_flame_tree *t = b->t;
    size_t n = b->timed.len, nt = b->nt;
    if (!n)
        return PPROF_OK;
    flame_timed *f = b->timed.data;
    qsort(f, n, sizeof(*f), timed_cmp);
    t->tm_time = pprof__malloc(b->a, n * sizeof(int64_t));
    t->tm_node = pprof__malloc(b->a, n * sizeof(uint32_t));
    t->tm_value = pprof__malloc(b->a, n * (nt ? nt : 1) * sizeof(int64_t));
    if (!t->tm_time || !t->tm_node || !t->tm_value)
        return nomem(err);
    const int64_t *v = b->timed_val.data;
    for (size_t k = 0; k < n; k++) {
        t->tm_time[k] = f[k].time;
        t->tm_node[k] = f[k].node;
        memcpy(t->tm_value + k * nt, v + (size_t)f[k].sample * nt, nt * sizeof(int64_t));
    }
    t->n_timed = n;
    return PPROF_OK;
}

static void
builder_free(builder *b)
{
    pprof__free(b->a, b->timed.data);
    pprof__free(b->a, b->timed_val.data);
    pprof__free(b->a, b->parent);
    pprof__free(b->a, b->key);
    for (int s = 0; s < 2; s++)
        pprof__free(b->a, b->self[s]);
    pprof__htab_free(&b->children, b->a);
    pprof__htab_free(&b->names, b->a);
    pprof__free(b->a, b->name_vec.data);
}

static pprof_status
tree_new(const pprof_profile *p, const pprof_profile *base, const pprof_flame_options *opts,
         const release_hook *rel, pprof_flame_tree **out, pprof_error *err)
{
    pprof_flame_options o = PPROF_FLAME_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (out)
        *out = NULL;
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    /* a profile Go refuses is refused here too, before anything is computed (validate.c) */
    pprof_status st = pprof__validate(p, NULL, err);
    if (!st && base)
        st = pprof__validate(base, "base", err);
    if (st)
        return st;
    size_t def;
    st = pprof_sample_type_find(p, o.sample_type, &def, err);
    if (st)
        return st;
    pprof_flame_tree *t = pprof__malloc(&o.allocator, sizeof(*t));
    if (!t)
        return nomem(err);
    memset(t, 0, sizeof(*t));
    t->a = o.allocator;
    pprof__arena_init(&t->arena, &t->a);
    t->default_type = def;
    t->lines = o.lines;
    t->reverse = o.reverse;
    builder b = {.t = t, .a = &t->a, .slots = base ? 2 : 1};
    st = copy_types(t, p, base, err);
    b.nt = t->nt;
    if (!st && (!pprof__htab_init(&b.children, b.a, 0) || !pprof__htab_init(&b.names, b.a, 256) ||
                !grow_nodes(&b) || intern_name(&b, "root", 4) != 0))
        st = nomem(err);
    if (!st) {
        new_node(&b, UINT32_MAX, 0); /* the root */
        st = add_profile(&b, p, 0, o.lines, o.reverse, rel, err);
    }
    if (!st && base)
        st = add_profile(&b, base, 1, o.lines, o.reverse, rel, err);
    /* the lookups are done: their tables go before order() allocates the tree */
    pprof__htab_free(&b.children, b.a);
    pprof__htab_free(&b.names, b.a);
    if (!st && b.overflow)
        st = pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "sample",
                          "a flame graph value leaves int64");
    if (!st) {
        t->n_names = b.name_vec.len;
        t->names = pprof__arena_alloc(&t->arena, t->n_names * sizeof(*t->names));
        if (!t->names)
            st = nomem(err);
        else
            memcpy(t->names, b.name_vec.data, t->n_names * sizeof(*t->names));
    }
    if (!st)
        st = order(&b, base != NULL, err);
    if (!st)
        st = timed_to_tree(&b, err);
    if (!st && b.overflow)
        st = pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "sample",
                          "a flame graph value leaves int64");
    builder_free(&b);
    if (!st && base && o.normalize)
        normalize(t);
    for (int s = 0; s < (base ? 2 : 1) && !st; s++)
        st = per_name(t, s, err);
    if (st) {
        pprof_flame_tree_free(t);
        return st;
    }
    *out = t;
    return PPROF_OK;
}

pprof_status
pprof_flame_tree_new(const pprof_profile *p, const pprof_profile *base,
                     const pprof_flame_options *opts, pprof_flame_tree **out, pprof_error *err)
{
    return tree_new(p, base, opts, NULL, out, err);
}

/* ---- the tree of profiles it takes, with the Graph view drawn alongside */

typedef struct take_ctx {
    pprof_profile **in, **base;
    pprof__job job; /* the Graph view's, when started */
    bool started;
    pprof_flame_write_options vo;
    pprof_buffer *view;
    pprof_status view_st;
    pprof_error view_err;
} take_ctx;

static void
draw_view(void *arg)
{
    take_ctx *c = arg;
    /* two threads: the view's graph sums its tags beside its edges, on the core the stacks
     * leave free once summed */
    c->view_st = pprof__flame_graph_view(&c->vo, 2, c->view, &c->view_err);
}

static void
release(void *ctx, int slot)
{
    take_ctx *c = ctx;
    if (slot == 0 && c->started) {
        pprof__pool_wait(&c->job);
        c->started = false;
    }
    pprof_profile **pp = slot ? c->base : c->in;
    if (pp) {
        pprof_profile_free(*pp);
        *pp = NULL;
    }
}

pprof_status
pprof_flame_tree_new_take(pprof_profile **in, pprof_profile **base, const pprof_flame_options *opts,
                          const pprof_flame_write_options *view_opts, pprof_buffer *view,
                          pprof_flame_tree **out, pprof_error *err)
{
    take_ctx c = {.in = in, .base = base, .view = view};
    pprof_flame_write_options vo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    if (view_opts)
        memcpy(&vo, view_opts,
               view_opts->struct_size < sizeof(vo) ? view_opts->struct_size : sizeof(vo));
    vo.graph = in ? *in : NULL;
    vo.graph_view = NULL;
    c.vo = vo;
    /* The profiles are the tree's now: checked first (tree_new's check, which then finds its
     * verdict kept), then slimmed before anything reads them. */
    pprof_status st = PPROF_OK;
    if (in && *in && out) {
        st = pprof__validate(*in, NULL, err);
        if (!st && base && *base)
            st = pprof__validate(*base, "base", err);
        if (!st)
            st = pprof__profile_slim(*in, err);
        if (!st && base && *base)
            st = pprof__profile_slim(*base, err);
        if (st) {
            *out = NULL;
            release(&c, 0);
            release(&c, 1);
            return st;
        }
    }
    pprof__pool *pool = NULL;
    if (view && vo.graph && !(base && *base)) {
        /* on a second thread while the stacks are summed: both only read the profile */
        pool = pprof__pool_new(1);
        c.job = (pprof__job){.fn = draw_view, .arg = &c, .name = "pprof-flame-view"};
        c.started = pprof__pool_start(pool, &c.job);
        if (!c.started)
            draw_view(&c);
    }
    release_hook rel = {release, &c};
    st = tree_new(in ? *in : NULL, base ? *base : NULL, opts, &rel, out, err);
    release(&c, 0); /* when the tree failed before its stacks */
    release(&c, 1);
    pprof__pool_free(pool);
    if (!st && c.view_st) {
        if (*out)
            pprof_flame_tree_free(*out);
        *out = NULL;
        if (err)
            *err = c.view_err;
        st = c.view_st;
    }
    return st;
}

void
pprof_flame_tree_free(pprof_flame_tree *t)
{
    if (!t)
        return;
    pprof_allocator a = t->a;
    pprof__free(&a, t->parent);
    pprof__free(&a, t->end);
    pprof__free(&a, t->depth);
    pprof__free(&a, t->n_children);
    pprof__free(&a, t->name);
    pprof__free(&a, t->inl);
    pprof__free(&a, t->tm_time);
    pprof__free(&a, t->tm_node);
    pprof__free(&a, t->tm_value);
    for (int s = 0; s < 2; s++) {
        pprof__free(&a, t->value[s]);
        pprof__free(&a, t->self[s]);
        pprof__free(&a, t->flat[s]);
        pprof__free(&a, t->cum[s]);
    }
    pprof__arena_destroy(&t->arena);
    pprof__free(&a, t);
}

void
pprof_flame_options_init(pprof_flame_options *opts)
{
    if (!opts)
        return;
    const pprof_flame_options def = PPROF_FLAME_OPTIONS_INIT;
    *opts = def;
}
