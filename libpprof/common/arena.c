/* Memory a profile owns: a chunked bump arena for small pieces and growable flat arrays. */
#include <stdlib.h>
#include <string.h>

#include "memory-private.h"
#include "common-private.h"

struct pprof__arena_chunk {
    pprof__arena_chunk *next;
    size_t size;
    max_align_t data[];
};

/* The default allocator's blocks carry a header (pprof__blk) saying how they were obtained.
 * Blocks of PPROF__BIG_BLOCK and more are mappings of their own where the memory policy
 * (memory.c) allows. */
typedef pprof__blk blk;

_Static_assert(sizeof(blk) % 16 == 0, "the header keeps 16-byte alignment");

void *
pprof__heap_blk(size_t size)
{
    blk *h = malloc(size + sizeof(blk));
    if (!h)
        return NULL;
    h->size = size;
    h->mapped = 0;
    return h + 1;
}

void *
pprof__heap_blk_resize(blk *h, size_t size)
{
    blk *n = realloc(h, size + sizeof(blk));
    if (!n)
        return NULL;
    n->size = size;
    return n + 1;
}

static void *
blk_alloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(blk) - PPROF__BIG_BLOCK)
        return NULL;
    if (size >= PPROF__BIG_BLOCK) {
        size_t len;
        blk *h = pprof__mem_map_big(size + sizeof(blk), &len);
        if (h) {
            h->size = len;
            h->mapped = 1;
            return h + 1;
        }
    }
    return pprof__heap_blk(size);
}

static void
blk_free(void *p)
{
    if (!p)
        return;
    blk *h = (blk *)p - 1;
    if (h->mapped)
        pprof__mem_unmap_big(h, h->size);
    else
        free(h);
}

static void *
blk_realloc(void *p, size_t size)
{
    if (!p)
        return blk_alloc(size);
    if (size > SIZE_MAX - sizeof(blk) - PPROF__BIG_BLOCK)
        return NULL;
    blk *h = (blk *)p - 1;
    if (h->mapped && size >= PPROF__BIG_BLOCK) {
        size_t len;
        blk *r = pprof__mem_remap_big(h, h->size, size + sizeof(blk), &len);
        if (!r)
            return NULL;
        r->size = len;
        return r + 1;
    }
    if (!h->mapped && size < PPROF__BIG_BLOCK)
        return pprof__heap_blk_resize(h, size);
    void *n = blk_alloc(size);
    if (!n)
        return NULL;
    size_t old = h->mapped ? h->size - sizeof(blk) : h->size;
    memcpy(n, p, old < size ? old : size);
    blk_free(p);
    return n;
}

/* A caller's allocator is used only when all three hooks are set; mixing a caller's alloc with
 * libc's realloc would corrupt memory. */
void *
pprof__malloc(const pprof_allocator *a, size_t size)
{
    if (size == 0)
        size = 1;
    return pprof__allocator_custom(a) ? a->alloc(a->ctx, size) : blk_alloc(size);
}

void *
pprof__realloc(const pprof_allocator *a, void *p, size_t size)
{
    if (size == 0)
        size = 1;
    return pprof__allocator_custom(a) ? a->realloc(a->ctx, p, size) : blk_realloc(p, size);
}

void
pprof__free(const pprof_allocator *a, void *p)
{
    if (!p)
        return;
    if (pprof__allocator_custom(a))
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
