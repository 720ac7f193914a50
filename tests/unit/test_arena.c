/* Memory: the bump arena (alignment, large blocks, everything freed) and growable vectors
 * (growth, overflow refused), through a counting allocator. */
#include "memory-private.h"
#include "testutil.h"

typedef struct counting {
    long live;
    size_t calls;
    size_t fail_at;
} counting;

static void *
c_alloc(void *ctx, size_t n)
{
    counting *c = ctx;
    if (++c->calls == c->fail_at)
        return NULL;
    c->live++;
    return malloc(n);
}

static void *
c_realloc(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    if (++c->calls == c->fail_at)
        return NULL;
    if (!p)
        c->live++;
    return realloc(p, n);
}

static void
c_free(void *ctx, void *p)
{
    counting *c = ctx;
    if (p)
        c->live--;
    free(p);
}

static void
test_arena(tap *t)
{
    counting c = {0};
    pprof_allocator a = {c_alloc, c_realloc, c_free, &c};
    pprof__arena ar;
    pprof__arena_init(&ar, &a);
    bool aligned = true, distinct = true;
    uint8_t *prev = NULL;
    for (size_t i = 0; i < 5000; i++) {
        size_t n = i % 37;
        uint8_t *p = pprof__arena_alloc(&ar, n);
        if (!p || ((uintptr_t)p & 15))
            aligned = false;
        if (p && n)
            memset(p, (int)i, n); /* ASan would catch an overlap or overrun here */
        if (p == prev)
            distinct = false;
        prev = p;
    }
    tap_ok(t, aligned, "5000 allocations, all 16-byte aligned");
    tap_ok(t, distinct, "consecutive allocations are distinct, zero sizes too");
    long chunks_small = c.live;
    uint8_t *big = pprof__arena_alloc(&ar, 1 << 20);
    tap_ok(t, big && ((uintptr_t)big & 15) == 0, "an allocation larger than a chunk");
    if (big)
        memset(big, 1, 1 << 20);
    tap_ok(t, chunks_small > 0 && chunks_small < 40, "few chunks for many small blocks (%ld)",
           chunks_small);
    tap_ok(t, pprof__arena_alloc(&ar, SIZE_MAX - 8) == NULL, "an impossible size is refused");
    pprof__arena_destroy(&ar);
    tap_ok(t, c.live == 0, "destroy frees every chunk");

    c.fail_at = c.calls + 1;
    pprof__arena_init(&ar, &a);
    tap_ok(t, pprof__arena_alloc(&ar, 10) == NULL, "allocator failure gives NULL");
    c.fail_at = 0;
    tap_ok(t, pprof__arena_alloc(&ar, 10) != NULL, "and the arena works afterwards");
    pprof__arena_destroy(&ar);
    tap_ok(t, c.live == 0, "nothing leaked");
}

static void
test_vec(tap *t)
{
    counting c = {0};
    pprof_allocator a = {c_alloc, c_realloc, c_free, &c};
    pprof__vec v = {0};
    bool ok = true;
    for (uint64_t i = 0; i < 100000 && ok; i++) {
        uint64_t *slot = pprof__vec_push(&a, &v, sizeof(uint64_t));
        ok = slot != NULL;
        if (ok)
            *slot = i * 3;
    }
    for (size_t i = 0; i < v.len && ok; i++)
        ok = PPROF__AT(v, uint64_t, i) == i * 3;
    tap_ok(t, ok && v.len == 100000 && v.cap >= v.len, "100000 pushes keep every value");
    tap_ok(t, c.calls < 40, "growth is geometric (%zu reallocations)", c.calls);
    size_t cap = v.cap;
    tap_ok(t, pprof__vec_grow(&a, &v, sizeof(uint64_t), 10) && v.cap == cap,
           "growing to less than the capacity is a no-op");
    tap_ok(t,
           !pprof__vec_grow(&a, &v, sizeof(uint64_t), SIZE_MAX / 4) && v.cap == cap &&
               v.len == 100000,
           "an overflowing size is refused and the vector is unchanged");
    tap_ok(t, !pprof__vec_grow(&a, &v, SIZE_MAX / 2, cap + 1), "elem * cap overflow refused");
    c.fail_at = c.calls + 1;
    v.len = v.cap;
    tap_ok(t, pprof__vec_push(&a, &v, sizeof(uint64_t)) == NULL && v.len == cap,
           "a failed push returns NULL and keeps the length");
    c.fail_at = 0;
    pprof__free(&a, v.data);
    tap_ok(t, c.live == 0, "one block, freed");

    /* the default allocator (NULL fields) */
    pprof__vec w = {0};
    tap_ok(t, pprof__vec_push(NULL, &w, 8) != NULL, "NULL allocator uses malloc");
    pprof__free(NULL, w.data);
}

/* The resident bytes of the mappings overlapping [lo, hi), from /proc/self/smaps; -1 unknown. */
static long
resident(uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    long kb = 0;
    bool in = false;
    while (fgets(line, sizeof(line), f)) {
        unsigned long s, e;
        long v;
        if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = s < hi && e > lo;
        else if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
            kb += v;
    }
    fclose(f);
    return kb * 1024;
}

/* A big block whose last 2 MiB is barely used keeps that part in small pages: touching it all
 * makes resident about what is used, not a whole huge page more; it still grows and shrinks. */
static void
test_big_tail(tap *t)
{
    size_t used = ((size_t)4 << 20) + (64 << 10);
    uint8_t *p = pprof__malloc(NULL, used - sizeof(pprof__blk));
    pprof__blk *h = p ? (pprof__blk *)p - 1 : NULL;
    if (!h || !h->mapped) {
        tap_ok(t, p != NULL, "big block (kept on the heap in this build: nothing to check)");
        pprof__free(NULL, p);
        return;
    }
    memset(p, 1, used - sizeof(pprof__blk));
    long r = resident((uintptr_t)h, (uintptr_t)h + h->size);
    tap_ok(t, r >= 0 && (size_t)r <= used + ((size_t)256 << 10),
           "%zu bytes used of a %zu-byte mapping: %ld resident", used, h->size, r);
    uint8_t *q = pprof__realloc(NULL, p, 2 * used);
    bool same = q != NULL;
    for (size_t i = 0; q && i < used - sizeof(pprof__blk); i += 4093)
        same &= q[i] == 1;
    tap_ok(t, same, "it grows (mremap), the bytes kept");
    uint8_t *s = q ? pprof__realloc(NULL, q, used) : NULL;
    tap_ok(t, s && s[used / 2] == 1, "and shrinks");
    pprof__free(NULL, s ? s : q);
}

int
main(void)
{
    tap t = {0};
    test_arena(&t);
    test_vec(&t);
    test_big_tail(&t);
    return tap_done(&t);
}
