/* Deterministic profile generator: integer-only pseudo-random streams keyed by (seed, what,
 * index), so one entity's shape does not depend on how many others were drawn before it, and a
 * host variant can change a few entities without moving the rest. Protobuf bytes are written
 * directly, in the field order Go's writer uses. */
#include "gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile-private.h"
#include "wire-private.h"

/* ---------------------------------------------------------------- randomness */

enum {
    K_STACK = 1,
    K_SAMPLE,
    K_FUNC,
    K_LOC,
    K_LINE,
    K_MAP,
    K_HOST_FUNC,
    K_HOST_STACK,
    K_CALL,
};

static uint64_t
mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static uint64_t
hash3(uint64_t seed, uint64_t kind, uint64_t i)
{
    return mix64(seed ^ mix64((kind << 56) ^ mix64(i)));
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t
next(rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(r->s);
}

/* Uniform in [0, n) from the top 32 bits. */
static uint32_t
scale(uint64_t h, uint32_t n)
{
    return (uint32_t)(((h >> 32) * n) >> 32);
}

/* Skewed toward 0 (density ~ 1/sqrt(x)): a few hot entities and a long tail. */
static uint32_t
skew(uint64_t h, uint32_t n)
{
    uint64_t u = h >> 32;
    return (uint32_t)((((u * u) >> 32) * n) >> 32);
}

static uint32_t
below(rng *r, uint32_t n)
{
    return scale(next(r), n);
}

/* ---------------------------------------------------------------- string table */

typedef struct strtab {
    char *chars;
    size_t len, cap;
    size_t *off; /* n + 1 offsets */
    size_t n, ncap;
    uint32_t *slots; /* index + 1, 0 = empty */
    size_t mask;
    bool oom;
} strtab;

static uint64_t
hash_str(const char *s, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * UINT64_C(0x100000001b3);
    return h ^ (h >> 31);
}

static bool
grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *p = realloc(*ptr, c * elem);
    if (!p)
        return false;
    *ptr = p;
    *cap = c;
    return true;
}

static bool
rehash(strtab *t)
{
    size_t cap = t->mask ? (t->mask + 1) * 2 : 4096;
    uint32_t *s = calloc(cap, sizeof(uint32_t));
    if (!s)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = hash_str(t->chars + t->off[i], t->off[i + 1] - t->off[i]) & (cap - 1);
        while (s[h])
            h = (h + 1) & (cap - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->mask = cap - 1;
    return true;
}

static uint32_t
intern(strtab *t, const char *s, size_t n)
{
    if (t->oom)
        return 0;
    if ((t->n + 1) * 2 > t->mask && !rehash(t))
        goto oom;
    size_t h = hash_str(s, n) & t->mask;
    for (; t->slots[h]; h = (h + 1) & t->mask) {
        size_t i = t->slots[h] - 1;
        if (t->off[i + 1] - t->off[i] == n && memcmp(t->chars + t->off[i], s, n) == 0)
            return (uint32_t)i;
    }
    if (!grow((void **)&t->chars, &t->cap, t->len + n, 1) ||
        !grow((void **)&t->off, &t->ncap, t->n + 2, sizeof(size_t)))
        goto oom;
    if (t->n == 0)
        t->off[0] = 0;
    if (n) /* "" may come first, before there is any storage */
        memcpy(t->chars + t->len, s, n);
    t->len += n;
    t->off[t->n + 1] = t->len;
    t->slots[h] = (uint32_t)(t->n + 1);
    return (uint32_t)t->n++;
oom:
    t->oom = true;
    return 0;
}

static uint32_t internf(strtab *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static uint32_t
internf(strtab *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof(buf))
        n = (int)sizeof(buf) - 1;
    return intern(t, buf, (size_t)n);
}

/* ---------------------------------------------------------------- vocabulary */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const ROOTS[] = {
    "runtime.goexit",
    "runtime.main",
    "main.main",
    "net/http.(*conn).serve",
    "net/http.serverHandler.ServeHTTP",
    "google.golang.org/grpc.(*Server).serveStreams.func1",
};
static const char *const ROOT_FILES[] = {
    "/usr/lib/go/src/runtime/asm_amd64.s",
    "/usr/lib/go/src/runtime/proc.go",
    "/home/build/go/src/github.com/acme/server/main.go",
    "/usr/lib/go/src/net/http/server.go",
    "/usr/lib/go/src/net/http/server.go",
    "/home/build/go/pkg/mod/google.golang.org/grpc@v1.60.1/server.go",
};
static const char *const FILES[] = {"block", "row",  "batch", "key",    "value", "header",
                                    "frame", "span", "index", "bucket", "chunk", "entry"};
static const char *const ORGS[] = {"acme", "initech", "globex", "umbrella", "hooli", "vandelay"};
static const char *const AREAS[] = {"api",     "storage", "ingest", "query", "auth",
                                    "billing", "search",  "cache",  "queue", "render"};
static const char *const PKGS[] = {"handler", "codec", "index", "pool",   "shard",  "proto",
                                   "parser",  "util",  "store", "client", "server", "block"};
static const char *const TYPES[] = {"Server",  "Client",  "Reader", "Writer", "Encoder",
                                    "Decoder", "Builder", "Tree",   "Table",  "Iterator"};
static const char *const VERBS[] = {"Get",   "Put",   "Read",  "Write", "Encode", "Decode",
                                    "Merge", "Flush", "Apply", "Scan",  "Find",   "Build"};
static const char *const NOUNS[] = {"Block", "Row",  "Batch", "Key",    "Value", "Header",
                                    "Frame", "Span", "Index", "Bucket", "Chunk", "Entry"};
static const char *const LIBS[] = {"c.so.6",   "pthread.so.0",   "ssl.so.3",   "crypto.so.3",
                                   "z.so.1",   "stdc++.so.6",    "m.so.6",     "zstd.so.1",
                                   "lz4.so.1", "protobuf.so.32", "grpc.so.33", "dl.so.2"};

typedef struct vt_name {
    const char *type, *unit;
} vt_name;

static const vt_name SAMPLE_TYPES[] = {
    {"samples", "count"},     {"cpu", "nanoseconds"},     {"alloc_objects", "count"},
    {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"},
};

enum { LK_STR, LK_NUM, LK_BYTES };

typedef struct label_key {
    const char *key;
    int kind;
    const char *value_prefix; /* str labels: the prefix of their values */
} label_key;

static const label_key LABEL_KEYS[] = {
    {"thread_name", LK_STR, "worker-"},
    {"span_id", LK_NUM, NULL},
    {"trace_endpoint", LK_STR, "GET /api/v1/items/"},
    {"bytes", LK_BYTES, NULL},
    {"pod", LK_STR, "frontend-7d9f8b6c4-x"},
    {"goroutine", LK_NUM, NULL},
    {"region", LK_STR, "eu-west-"},
    {"thread_id", LK_NUM, NULL},
};

enum { LABEL_VALUES = 32, FUNCS_PER_PKG = 24, FUNCS_PER_FILE = 8, FANOUT = 6 };

/* ---------------------------------------------------------------- the generator */

typedef struct gen {
    pprof_gen_params p;
    uint32_t n_loc;
    strtab st;
    uint32_t *vt_type, *vt_unit; /* sample types */
    uint32_t period_type, period_unit, comment, default_type;
    uint32_t *lk_key, *lk_unit, *lk_vals; /* label keys; LABEL_VALUES values per key */
    uint64_t *m_start, *m_limit;
    uint32_t *m_file, *m_build;
    uint32_t *f_name, *f_file;
    uint32_t *f_start;
    uint32_t *l_map, *l_line_off, *l_n_line;
    uint64_t *l_addr;
    uint32_t *ln_fn, *ln_line;
    uint32_t *s_off, *s_len, *frames; /* stacks, root first */
    bool oom;
} gen;

static void *
gen_alloc(gen *g, size_t n, size_t elem)
{
    if (n == 0)
        n = 1;
    void *p = calloc(n, elem);
    if (!p)
        g->oom = true;
    return p;
}

static void
gen_free(gen *g)
{
    void *ptrs[] = {g->st.chars, g->st.off,  g->st.slots, g->vt_type, g->vt_unit, g->lk_key,
                    g->lk_unit,  g->lk_vals, g->m_start,  g->m_limit, g->m_file,  g->m_build,
                    g->f_name,   g->f_file,  g->f_start,  g->l_map,   g->l_addr,  g->l_line_off,
                    g->l_n_line, g->ln_fn,   g->ln_line,  g->s_off,   g->s_len,   g->frames};
    for (size_t i = 0; i < COUNT(ptrs); i++)
        free(ptrs[i]);
}

static void
header_strings(gen *g)
{
    strtab *t = &g->st;
    const pprof_gen_params *p = &g->p;
    intern(t, "", 0);
    g->vt_type = gen_alloc(g, p->sample_types, sizeof(uint32_t));
    g->vt_unit = gen_alloc(g, p->sample_types, sizeof(uint32_t));
    if (g->oom)
        return;
    for (uint32_t i = 0; i < p->sample_types; i++) {
        if (i < COUNT(SAMPLE_TYPES)) {
            g->vt_type[i] = internf(t, "%s", SAMPLE_TYPES[i].type);
            g->vt_unit[i] = internf(t, "%s", SAMPLE_TYPES[i].unit);
        } else {
            g->vt_type[i] = internf(t, "value%u", i);
            g->vt_unit[i] = internf(t, "count");
        }
    }
    g->period_type = internf(t, "cpu");
    g->period_unit = internf(t, "nanoseconds");
    g->default_type = p->sample_types > 1 ? g->vt_type[1] : 0;
    g->comment = internf(t, "generated by pprof-gen seed=%llu host=%u", (unsigned long long)p->seed,
                         p->host);

    g->lk_key = gen_alloc(g, p->labels, sizeof(uint32_t));
    g->lk_unit = gen_alloc(g, p->labels, sizeof(uint32_t));
    g->lk_vals = gen_alloc(g, (size_t)p->labels * LABEL_VALUES, sizeof(uint32_t));
    if (g->oom)
        return;
    for (uint32_t k = 0; k < p->labels; k++) {
        const label_key *lk = k < COUNT(LABEL_KEYS) ? &LABEL_KEYS[k] : NULL;
        g->lk_key[k] = lk ? internf(t, "%s", lk->key) : internf(t, "label%u", k);
        g->lk_unit[k] = lk && lk->kind == LK_BYTES ? internf(t, "bytes") : 0;
        if (lk && lk->kind != LK_STR)
            continue;
        for (uint32_t v = 0; v < LABEL_VALUES; v++)
            g->lk_vals[k * LABEL_VALUES + v] =
                lk ? internf(t, "%s%u", lk->value_prefix, v) : internf(t, "value-%u-%u", k, v);
    }
}

static void
mappings(gen *g)
{
    const pprof_gen_params *p = &g->p;
    uint32_t m = p->mappings;
    g->m_start = gen_alloc(g, m, sizeof(uint64_t));
    g->m_limit = gen_alloc(g, m, sizeof(uint64_t));
    g->m_file = gen_alloc(g, m, sizeof(uint32_t));
    g->m_build = gen_alloc(g, m, sizeof(uint32_t));
    if (g->oom)
        return;
    /* Every location gets its own 48-byte slot, so addresses never collide. */
    uint64_t size = ((uint64_t)g->n_loc * 48 + 0x2000 + 0xfffff) & ~UINT64_C(0xfffff);
    if (size < 0x1000000)
        size = 0x1000000;
    for (uint32_t i = 0; i < m; i++) {
        uint64_t h = hash3(p->seed, K_MAP, i);
        g->m_start[i] = i == 0 ? 0x400000 : UINT64_C(0x7f3a00000000) + (uint64_t)i * size * 2;
        g->m_limit[i] = g->m_start[i] + size;
        if (i == 0)
            g->m_file[i] = internf(&g->st, "/usr/local/bin/server");
        else if (i - 1 < COUNT(LIBS))
            g->m_file[i] = internf(&g->st, "/usr/lib/x86_64-linux-gnu/lib%s", LIBS[i - 1]);
        else
            g->m_file[i] = internf(&g->st, "/opt/plugins/libplugin%u.so", i);
        g->m_build[i] = internf(&g->st, "%016llx%016llx%08x", (unsigned long long)h,
                                (unsigned long long)mix64(h), (unsigned)(mix64(h + 1) >> 32));
    }
}

static void
functions(gen *g)
{
    const pprof_gen_params *p = &g->p;
    strtab *t = &g->st;
    uint32_t n = p->functions;
    g->f_name = gen_alloc(g, n, sizeof(uint32_t));
    g->f_file = gen_alloc(g, n, sizeof(uint32_t));
    g->f_start = gen_alloc(g, n, sizeof(uint32_t));
    if (g->oom)
        return;
    char name[400];
    for (uint32_t f = 0; f < n; f++) {
        uint64_t h = hash3(p->seed, K_FUNC, f);
        uint32_t pkg = f / FUNCS_PER_PKG, j = f % FUNCS_PER_PKG;
        uint64_t hp = hash3(p->seed, K_FUNC, UINT64_C(1) << 40 | pkg);
        char path[200];
        snprintf(path, sizeof(path), "github.com/%s/%s/%s%u", ORGS[hp % COUNT(ORGS)],
                 AREAS[(hp >> 8) % COUNT(AREAS)], PKGS[(hp >> 16) % COUNT(PKGS)], pkg);
        if (f < COUNT(ROOTS))
            snprintf(name, sizeof(name), "%s", ROOTS[f]);
        else if (h & 3)
            snprintf(name, sizeof(name), "%s.(*%s).%s%s", path, TYPES[(h >> 8) % COUNT(TYPES)],
                     VERBS[j % COUNT(VERBS)], NOUNS[(j / COUNT(VERBS)) % COUNT(NOUNS)]);
        else
            snprintf(name, sizeof(name), "%s.%s%s.func%u", path, VERBS[j % COUNT(VERBS)],
                     NOUNS[(j / COUNT(VERBS)) % COUNT(NOUNS)], (unsigned)(h >> 60) + 1);
        if (p->host && hash3(p->seed ^ mix64(p->host), K_HOST_FUNC, f) % 100 < p->host_unique_pct)
            g->f_name[f] = internf(t, "%s.host%u", name, p->host);
        else
            g->f_name[f] = intern(t, name, strlen(name));
        if (f < COUNT(ROOTS))
            g->f_file[f] = internf(t, "%s", ROOT_FILES[f]);
        else
            g->f_file[f] = internf(t, "/home/build/go/src/%s/%s%u.go", path,
                                   FILES[(hp >> 24) % COUNT(FILES)], j / FUNCS_PER_FILE);
        g->f_start[f] = 10 + (uint32_t)(h % 2000);
    }
}

static void
locations(gen *g)
{
    const pprof_gen_params *p = &g->p;
    uint32_t n = g->n_loc, nf = p->functions;
    g->l_map = gen_alloc(g, n, sizeof(uint32_t));
    g->l_addr = gen_alloc(g, n, sizeof(uint64_t));
    g->l_line_off = gen_alloc(g, n, sizeof(uint32_t));
    g->l_n_line = gen_alloc(g, n, sizeof(uint32_t));
    if (g->oom)
        return;
    uint32_t n_line = 0;
    for (uint32_t l = 0; l < n; l++) {
        uint64_t h = hash3(p->seed, K_LOC, l);
        uint32_t lines = 1;
        bool root = l < COUNT(ROOTS); /* the frames every stack starts with */
        if (p->inline_depth > 1 && (h & 3) == 0 && !root)
            lines = 2 + scale(mix64(h), p->inline_depth - 1);
        g->l_line_off[l] = n_line;
        g->l_n_line[l] = lines;
        n_line += lines;
        g->l_map[l] =
            p->mappings > 1 && (h >> 8) % 4 == 0 && !root ? 1 + scale(h, p->mappings - 1) : 0;
        g->l_addr[l] = g->m_start[g->l_map[l]] + 0x1000 + (uint64_t)l * 48 + (h >> 16) % 40;
    }
    g->ln_fn = gen_alloc(g, n_line, sizeof(uint32_t));
    g->ln_line = gen_alloc(g, n_line, sizeof(uint32_t));
    if (g->oom)
        return;
    for (uint32_t l = 0; l < n; l++) {
        uint32_t *fn = g->ln_fn + g->l_line_off[l], *ln = g->ln_line + g->l_line_off[l];
        uint32_t last = g->l_n_line[l] - 1;
        for (uint32_t i = 0; i <= last; i++) {
            uint64_t h = hash3(p->seed, K_LINE, (uint64_t)l << 8 | i);
            /* The physical (last) line: every function has a location of its own first. */
            uint32_t f = i == last && l < nf ? l : (h & 1 ? skew(h, nf) : scale(h, nf));
            fn[i] = f;
            ln[i] = g->f_start[f] + 1 + (uint32_t)((h >> 8) % 300);
        }
    }
}

/* Distinct stacks grow like a call tree: most extend a prefix of an earlier stack. */
static void
stacks(gen *g)
{
    const pprof_gen_params *p = &g->p;
    uint32_t n = p->stacks, nl = g->n_loc;
    g->s_off = gen_alloc(g, n, sizeof(uint32_t));
    g->s_len = gen_alloc(g, n, sizeof(uint32_t));
    g->frames = gen_alloc(g, (size_t)n * p->depth, sizeof(uint32_t));
    if (g->oom)
        return;
    rng r = {hash3(p->seed, K_STACK, 0)};
    uint32_t min_depth = p->depth / 4 ? p->depth / 4 : 1;
    uint32_t roots = nl < COUNT(ROOTS) ? nl : (uint32_t)COUNT(ROOTS);
    uint32_t used = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t d = min_depth + below(&r, p->depth - min_depth + 1);
        uint32_t *fr = g->frames + used, k = 0;
        if (s > 0 && below(&r, 8) != 0) {
            /* mostly a recent stack: profilers emit related stacks near each other */
            uint32_t parent = s - 1 - skew(next(&r), s < 512 ? s : 512);
            uint32_t plen = g->s_len[parent];
            uint32_t most = plen < d ? plen : d;
            uint32_t keep = most - skew(next(&r), most); /* siblings share most of the path */
            memcpy(fr, g->frames + g->s_off[parent], keep * sizeof(uint32_t));
            k = keep;
        } else {
            fr[k++] = 0;
            if (d > 1 && roots > 1)
                fr[k++] = 1 + below(&r, roots - 1);
        }
        /* Call graphs are sparse and mostly deterministic: a frame usually calls its caller's
         * main callee, sometimes one of a few others, and rarely (a callback, an interface
         * call) anything. */
        while (k < d) {
            uint64_t h = next(&r);
            if ((h & 63) == 0) {
                fr[k] = skew(h, nl);
            } else {
                uint32_t choice = (h >> 6) & 3 ? 0 : 1 + scale(h, FANOUT - 1);
                fr[k] = skew(hash3(p->seed, K_CALL, (uint64_t)fr[k - 1] * FANOUT + choice), nl);
            }
            k++;
        }
        g->s_off[s] = used;
        g->s_len[s] = d;
        used += d;
    }
}

/* ---------------------------------------------------------------- encoding */

static size_t
vsz(uint64_t v)
{
    return pprof__varint_size(v);
}

/* Size of a varint field with a one-byte tag; proto3 leaves out zeros. */
static size_t
fsz(uint64_t v)
{
    return v ? 1 + vsz(v) : 0;
}

static uint8_t *
fput(uint8_t *q, unsigned field, uint64_t v)
{
    if (!v)
        return q;
    *q++ = (uint8_t)(field << 3);
    return pprof__put_varint(q, v);
}

static uint8_t *
lput(uint8_t *q, unsigned field, size_t len)
{
    *q++ = (uint8_t)(field << 3 | 2);
    return pprof__put_varint(q, len);
}

typedef struct sink {
    pprof_buffer *b;
    bool oom;
} sink;

/* Room for n more bytes; returns the write position or NULL. */
static uint8_t *
room(sink *o, size_t n)
{
    if (o->oom || !pprof__buffer_reserve(o->b, n)) {
        o->oom = true;
        return NULL;
    }
    return o->b->data + o->b->len;
}

static void
done(sink *o, const uint8_t *q)
{
    o->b->len = (size_t)(q - o->b->data);
}

static void
value_type(sink *o, unsigned field, uint64_t type, uint64_t unit)
{
    size_t n = fsz(type) + fsz(unit);
    uint8_t *q = room(o, 2 + n);
    if (!q)
        return;
    q = lput(q, field, n);
    q = fput(q, 1, type);
    q = fput(q, 2, unit);
    done(o, q);
}

static size_t
label_size(uint64_t key, uint64_t str, uint64_t num, uint64_t unit)
{
    return fsz(key) + fsz(str) + fsz(num) + fsz(unit);
}

static void
samples(gen *g, sink *o)
{
    const pprof_gen_params *p = &g->p;
    uint32_t nt = p->sample_types, nlab = p->labels;
    uint64_t host_salt = mix64(p->host);
    rng r = {hash3(p->seed ^ host_salt, K_SAMPLE, 0)};
    uint64_t *vals = gen_alloc(g, nt, sizeof(uint64_t));
    uint64_t *lab = gen_alloc(g, (size_t)nlab * 4, sizeof(uint64_t));
    uint64_t *ids = gen_alloc(g, p->depth, sizeof(uint64_t));
    if (g->oom)
        goto end;
    for (uint64_t j = 0; j < p->samples && !o->oom; j++) {
        uint32_t s = j < p->stacks ? (uint32_t)j : skew(next(&r), p->stacks);
        uint32_t d = g->s_len[s];
        const uint32_t *fr = g->frames + g->s_off[s];
        size_t loc_len = 0;
        for (uint32_t i = 0; i < d; i++) { /* leaf first on the wire */
            ids[i] = (uint64_t)fr[d - 1 - i] + 1;
            loc_len += vsz(ids[i]);
        }
        if (p->host && hash3(p->seed ^ host_salt, K_HOST_STACK, s) % 100 < p->host_unique_pct) {
            loc_len -= vsz(ids[0]);
            ids[0] = 1 + scale(hash3(p->seed ^ host_salt, K_HOST_STACK, (uint64_t)s << 32 | 1),
                               g->n_loc);
            loc_len += vsz(ids[0]);
        }
        uint64_t count = 1 + skew(next(&r), 100);
        uint64_t obj = UINT64_C(16) << below(&r, 12);
        size_t val_len = 0;
        for (uint32_t t = 0; t < nt; t++) {
            const char *unit = t < COUNT(SAMPLE_TYPES) ? SAMPLE_TYPES[t].unit : "count";
            vals[t] = unit[0] == 'n' ? count * 10000000 : unit[0] == 'b' ? count * obj : count;
            val_len += vsz(vals[t]);
        }
        size_t body = 1 + vsz(loc_len) + loc_len + 1 + vsz(val_len) + val_len;
        for (uint32_t k = 0; k < nlab; k++) {
            uint64_t *l = lab + 4 * k;
            int kind = k < COUNT(LABEL_KEYS) ? LABEL_KEYS[k].kind : LK_STR;
            l[0] = g->lk_key[k];
            l[1] = kind == LK_STR ? g->lk_vals[k * LABEL_VALUES + skew(next(&r), LABEL_VALUES)] : 0;
            l[2] = kind == LK_STR ? 0 : kind == LK_BYTES ? obj * count : 1 + below(&r, 1 << 20);
            l[3] = g->lk_unit[k];
            size_t n = label_size(l[0], l[1], l[2], l[3]);
            body += 1 + vsz(n) + n;
        }
        uint8_t *q = room(o, 1 + vsz(body) + body);
        if (!q)
            break;
        q = lput(q, 2, body);
        q = lput(q, 1, loc_len);
        for (uint32_t i = 0; i < d; i++)
            q = pprof__put_varint(q, ids[i]);
        q = lput(q, 2, val_len);
        for (uint32_t t = 0; t < nt; t++)
            q = pprof__put_varint(q, vals[t]);
        for (uint32_t k = 0; k < nlab; k++) {
            const uint64_t *l = lab + 4 * k;
            q = lput(q, 3, label_size(l[0], l[1], l[2], l[3]));
            for (unsigned f = 0; f < 4; f++)
                q = fput(q, f + 1, l[f]);
        }
        done(o, q);
    }
end:
    free(vals);
    free(lab);
    free(ids);
}

static void
write_mappings(gen *g, sink *o)
{
    for (uint32_t i = 0; i < g->p.mappings; i++) {
        uint64_t f[10] = {
            i + 1, g->m_start[i],        g->m_limit[i], 0, g->m_file[i], g->m_build[i], 1, 1,
            1,     g->p.inline_depth > 1};
        size_t n = 0;
        for (unsigned k = 0; k < 10; k++)
            n += fsz(f[k]);
        uint8_t *q = room(o, 1 + vsz(n) + n);
        if (!q)
            return;
        q = lput(q, 3, n);
        for (unsigned k = 0; k < 10; k++)
            q = fput(q, k + 1, f[k]);
        done(o, q);
    }
}

static void
write_locations(gen *g, sink *o)
{
    for (uint32_t l = 0; l < g->n_loc; l++) {
        const uint32_t *fn = g->ln_fn + g->l_line_off[l], *ln = g->ln_line + g->l_line_off[l];
        uint32_t nline = g->l_n_line[l];
        size_t n = fsz(l + 1) + fsz(g->l_map[l] + 1) + fsz(g->l_addr[l]);
        for (uint32_t i = 0; i < nline; i++) {
            size_t m = fsz(fn[i] + 1) + fsz(ln[i]);
            n += 1 + vsz(m) + m;
        }
        uint8_t *q = room(o, 1 + vsz(n) + n);
        if (!q)
            return;
        q = lput(q, 4, n);
        q = fput(q, 1, l + 1);
        q = fput(q, 2, g->l_map[l] + 1);
        q = fput(q, 3, g->l_addr[l]);
        for (uint32_t i = 0; i < nline; i++) {
            q = lput(q, 4, fsz(fn[i] + 1) + fsz(ln[i]));
            q = fput(q, 1, fn[i] + 1);
            q = fput(q, 2, ln[i]);
        }
        done(o, q);
    }
}

static void
write_functions(gen *g, sink *o)
{
    for (uint32_t f = 0; f < g->p.functions; f++) {
        /* Go writes the same string for name and system_name. */
        uint64_t v[5] = {f + 1, g->f_name[f], g->f_name[f], g->f_file[f], g->f_start[f]};
        size_t n = 0;
        for (unsigned k = 0; k < 5; k++)
            n += fsz(v[k]);
        uint8_t *q = room(o, 1 + vsz(n) + n);
        if (!q)
            return;
        q = lput(q, 5, n);
        for (unsigned k = 0; k < 5; k++)
            q = fput(q, k + 1, v[k]);
        done(o, q);
    }
}

static void
write_strings(gen *g, sink *o)
{
    const strtab *t = &g->st;
    for (size_t i = 0; i < t->n; i++) {
        size_t n = t->off[i + 1] - t->off[i];
        uint8_t *q = room(o, 1 + vsz(n) + n);
        if (!q)
            return;
        q = lput(q, 6, n);
        memcpy(q, t->chars + t->off[i], n);
        done(o, q + n);
    }
}

static void
write_header(gen *g, sink *o)
{
    const pprof_gen_params *p = &g->p;
    uint8_t *q = room(o, 64);
    if (!q)
        return;
    q = fput(q, 9, UINT64_C(1700000000000000000) + (uint64_t)p->host * 1000000000);
    q = fput(q, 10, UINT64_C(10000000000));
    done(o, q);
    value_type(o, 11, g->period_type, g->period_unit);
    if (!(q = room(o, 64)))
        return;
    q = fput(q, 12, 10000000);
    q = lput(q, 13, vsz(g->comment));
    q = pprof__put_varint(q, g->comment);
    q = fput(q, 14, g->default_type);
    done(o, q);
}

/* ---------------------------------------------------------------- API */

void
pprof_gen_params_init(pprof_gen_params *p)
{
    const pprof_gen_params def = {
        .seed = 1,
        .samples = 8000,
        .stacks = 3000,
        .functions = 2000,
        .locations = 0,
        .mappings = 8,
        .depth = 32,
        .inline_depth = 3,
        .labels = 2,
        .sample_types = 2,
        .host = 0,
        .host_unique_pct = 5,
    };
    *p = def;
}

bool
pprof_gen_preset(const char *name, pprof_gen_params *p)
{
    pprof_gen_params q;
    pprof_gen_params_init(&q);
    if (strcmp(name, "medium") == 0) {
    } else if (strcmp(name, "small") == 0) {
        q.samples = 800;
        q.stacks = 400;
        q.functions = 300;
        q.mappings = 4;
    } else if (strcmp(name, "large") == 0) {
        q.samples = 290000;
        q.stacks = 80000;
        q.functions = 30000;
        q.mappings = 12;
        q.depth = 40;
    } else if (strcmp(name, "deep") == 0) {
        q.samples = 20000;
        q.stacks = 10000;
        q.functions = 5000;
        q.depth = 200;
        q.inline_depth = 8;
        q.labels = 0;
    } else if (strcmp(name, "labels") == 0) {
        q.samples = 40000;
        q.stacks = 2000;
        q.depth = 16;
        q.labels = 8;
        q.sample_types = 4;
    } else if (strcmp(name, "host") == 0) {
        q.samples = 3000;
        q.stacks = 2500;
        q.functions = 4000;
        q.depth = 24;
    } else {
        return false;
    }
    *p = q;
    return true;
}

static pprof_status
check_params(const pprof_gen_params *p, pprof_error *err)
{
    const char *bad = NULL;
    if (p->stacks < 1 || p->stacks > (1u << 26))
        bad = "stacks must be 1..2^26";
    else if (p->functions < 1 || p->functions > (1u << 24))
        bad = "functions must be 1..2^24";
    else if (p->locations > (1u << 26))
        bad = "locations must be at most 2^26";
    else if (p->mappings < 1 || p->mappings > 4096)
        bad = "mappings must be 1..4096";
    else if (p->depth < 1 || p->depth > 4096)
        bad = "depth must be 1..4096";
    else if ((uint64_t)p->stacks * p->depth > (UINT64_C(1) << 30))
        bad = "stacks * depth must be at most 2^30";
    else if (p->inline_depth < 1 || p->inline_depth > 64)
        bad = "inline depth must be 1..64";
    else if (p->labels > 64)
        bad = "labels must be at most 64";
    else if (p->sample_types < 1 || p->sample_types > 64)
        bad = "sample types must be 1..64";
    else if (p->samples > (UINT64_C(1) << 32))
        bad = "samples must be at most 2^32";
    else if (p->host_unique_pct > 100)
        bad = "host_unique_pct must be 0..100";
    if (bad)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "%s", bad);
    return PPROF_OK;
}

pprof_status
pprof_gen_raw(const pprof_gen_params *params, pprof_buffer *buf, pprof_error *err)
{
    if (!params || !buf)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no parameters or output");
    pprof_status st = check_params(params, err);
    if (st)
        return st;
    gen g;
    memset(&g, 0, sizeof(g));
    g.p = *params;
    g.n_loc =
        params->locations ? params->locations : (uint32_t)((uint64_t)params->functions * 3 / 2);
    if (g.n_loc < 1)
        g.n_loc = 1;
    size_t start = buf->len;
    sink o = {buf, false};
    header_strings(&g);
    if (!g.oom)
        mappings(&g);
    if (!g.oom)
        functions(&g);
    if (!g.oom)
        locations(&g);
    if (!g.oom)
        stacks(&g);
    if (!g.oom && !g.st.oom) {
        for (uint32_t i = 0; i < params->sample_types; i++)
            value_type(&o, 1, g.vt_type[i], g.vt_unit[i]);
        samples(&g, &o);
        write_mappings(&g, &o);
        write_locations(&g, &o);
        write_functions(&g, &o);
        write_strings(&g, &o);
        write_header(&g, &o);
    }
    bool oom = g.oom || g.st.oom || o.oom;
    gen_free(&g);
    if (oom) {
        buf->len = start;
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    return PPROF_OK;
}

pprof_status
pprof_gen_write(const pprof_gen_params *p, pprof_format format, int level, pprof_buffer *out,
                pprof_error *err)
{
    if (format == PPROF_FORMAT_RAW)
        return pprof_gen_raw(p, out, err);
    pprof_buffer raw = {0};
    pprof_status st = pprof_gen_raw(p, &raw, err);
    if (st == PPROF_OK)
        st = pprof__compress(raw.data, raw.len, format, level, 1, NULL, out, err);
    pprof_buffer_free(&raw);
    return st;
}

pprof_status
pprof_gen_profile(const pprof_gen_params *p, pprof_profile **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    *out = NULL;
    pprof_buffer raw = {0};
    pprof_status st = pprof_gen_raw(p, &raw, err);
    if (st == PPROF_OK)
        st = pprof_profile_read_memory(raw.data, raw.len, NULL, out, err);
    pprof_buffer_free(&raw);
    return st;
}
