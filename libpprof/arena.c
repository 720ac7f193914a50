/* Memory a profile owns: a chunked bump arena for small pieces and growable flat arrays. */
#define _GNU_SOURCE /* mremap */
#include <stdlib.h>
#include <sys/mman.h>

#include "blk-private.h"
#include "profile-private.h"

struct pprof__arena_chunk {
    pprof__arena_chunk *next;
    size_t size;
    max_align_t data[];
};

/* The default allocator. Blocks of 2 MiB and more get their own mapping with transparent huge
 * pages requested: a decoded model is about three times its input, and with 4 KiB pages first-
 * touch page faults dominate a one-shot decode on virtual machines (docs/bench.md). */
static void *
blk_alloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(pprof__blk) - PPROF__BIG_BLOCK)
        return NULL;
#ifdef PPROF__HUGE_BLOCKS
    if (size >= PPROF__BIG_BLOCK) {
        pprof__blk *h = pprof__big_map(pprof__big_len(size));
        return h ? h + 1 : NULL;
    }
#endif
    return pprof__heap_blk(size);
}

static void
blk_free(void *p)
{
    if (!p)
        return;
    pprof__blk *h = (pprof__blk *)p - 1;
    if (h->mapped)
        munmap(h, h->size);
    else
        free(h);
}

static void *
blk_realloc(void *p, size_t size)
{
    if (!p)
        return blk_alloc(size);
    if (size > SIZE_MAX - sizeof(pprof__blk) - PPROF__BIG_BLOCK)
        return NULL;
    pprof__blk *h = (pprof__blk *)p - 1;
#ifdef PPROF__HUGE_BLOCKS
    if (h->mapped && size >= PPROF__BIG_BLOCK) {
        pprof__blk *r = pprof__big_resize(h, pprof__big_len(size));
        return r ? r + 1 : NULL;
    }
#endif
    if (!h->mapped && size < PPROF__BIG_BLOCK)
        return pprof__heap_blk_resize(h, size);
    void *n = blk_alloc(size);
    if (!n)
        return NULL;
    size_t old = h->mapped ? h->size - sizeof(pprof__blk) : h->size;
    memcpy(n, p, old < size ? old : size);
    blk_free(p);
    return n;
}

/* A caller's allocator is used only when all three hooks are set; mixing a caller's alloc with
 * libc's realloc would corrupt memory. */
static bool
custom(const pprof_allocator *a)
{
    return a && a->alloc && a->realloc && a->free;
}

void *
pprof__malloc(const pprof_allocator *a, size_t size)
{
    if (size == 0)
        size = 1;
    return custom(a) ? a->alloc(a->ctx, size) : blk_alloc(size);
}

void *
pprof__realloc(const pprof_allocator *a, void *p, size_t size)
{
    if (size == 0)
        size = 1;
    return custom(a) ? a->realloc(a->ctx, p, size) : blk_realloc(p, size);
}

void
pprof__free(const pprof_allocator *a, void *p)
{
    if (!p)
        return;
    if (custom(a))
        a->free(a->ctx, p);
    else
        blk_free(p);
}

void
pprof__arena_init(pprof__arena *arena, const pprof_allocator *a)
{
    memset(arena, 0, sizeof(*arena));
    if (a)
        arena->a = *a;
    arena->chunk_size = 4096;
}

void *
pprof__arena_alloc(pprof__arena *arena, size_t size)
{
    if (size > SIZE_MAX - 15)
        return NULL; /* rounding up would wrap to a tiny block */
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (size > arena->left) {
        size_t want = arena->chunk_size;
        if (want < size)
            want = size;
        if (want > SIZE_MAX - sizeof(pprof__arena_chunk))
            return NULL;
        pprof__arena_chunk *c = pprof__malloc(&arena->a, sizeof(*c) + want);
        if (!c)
            return NULL;
        c->next = arena->chunks;
        c->size = want;
        arena->chunks = c;
        arena->cur = (uint8_t *)c->data;
        arena->left = want;
        /* Grow geometrically so many small strings cost few chunks. */
        if (arena->chunk_size < (1u << 22))
            arena->chunk_size *= 2;
    }
    void *r = arena->cur;
    arena->cur += size;
    arena->left -= size;
    return r;
}

void
pprof__arena_destroy(pprof__arena *arena)
{
    pprof__arena_chunk *c = arena->chunks;
    while (c) {
        pprof__arena_chunk *n = c->next;
        pprof__free(&arena->a, c);
        c = n;
    }
    arena->chunks = NULL;
    arena->cur = NULL;
    arena->left = 0;
}

bool
pprof__vec_grow(const pprof_allocator *a, pprof__vec *v, size_t elem, size_t need)
{
    if (need <= v->cap)
        return true;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return false;
        cap *= 2;
    }
    if (cap > SIZE_MAX / elem)
        return false;
    void *d = pprof__realloc(a, v->data, cap * elem);
    if (!d)
        return false;
    v->data = d;
    v->cap = cap;
    return true;
}
