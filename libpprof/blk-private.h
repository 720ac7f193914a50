/* Headed memory blocks, big ones as huge-page mappings of their own: the library's default
 * allocator (arena.c). Every block carries a header saying how it was obtained, so that free and
 * realloc need nothing else. Includers define _GNU_SOURCE (mremap). */
#ifndef PPROF_BLK_PRIVATE_H
#define PPROF_BLK_PRIVATE_H

#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

typedef struct pprof__blk {
    size_t size;   /* mapping length, or the malloc'd payload size */
    size_t mapped; /* 1 when the block is its own mapping */
} pprof__blk;

_Static_assert(sizeof(pprof__blk) % 16 == 0, "the header keeps 16-byte alignment");

#define PPROF__BIG_BLOCK ((size_t)2 << 20)

/* Under AddressSanitizer every block stays on the heap, where it gets redzones. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PPROF__ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PPROF__ASAN 1
#endif
#if defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE) && !defined(PPROF__ASAN)
#define PPROF__HUGE_BLOCKS 1
#endif

/* A heap block of size payload bytes, or NULL. */
static inline void *
pprof__heap_blk(size_t size)
{
    pprof__blk *h = malloc(size + sizeof(pprof__blk));
    if (!h)
        return NULL;
    h->size = size;
    h->mapped = 0;
    return h + 1;
}

/* Heap block h resized to size payload bytes (its payload), or NULL with h still valid. */
static inline void *
pprof__heap_blk_resize(pprof__blk *h, size_t size)
{
    pprof__blk *n = realloc(h, size + sizeof(pprof__blk));
    if (!n)
        return NULL;
    n->size = size;
    return n + 1;
}

#ifdef PPROF__HUGE_BLOCKS
/* Whole huge pages: the kernel aligns an anonymous mapping of such a length to 2 MiB, and only
 * aligned 2 MiB ranges can become huge pages (4 KiB-rounded lengths left most of a growing
 * array in small pages). */
static inline size_t
pprof__big_len(size_t size)
{
    return (size + sizeof(pprof__blk) + PPROF__BIG_BLOCK - 1) & ~(PPROF__BIG_BLOCK - 1);
}

/* A new mapping of len bytes (from pprof__big_len) with huge pages asked for, or NULL. */
static inline pprof__blk *
pprof__big_map(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    madvise(m, len, MADV_HUGEPAGE); /* advice only: failure is harmless */
    pprof__blk *h = m;
    h->size = len;
    h->mapped = 1;
    return h;
}

/* Mapping h resized to len bytes, its pages moving along; NULL on failure, h still valid. */
static inline pprof__blk *
pprof__big_resize(pprof__blk *h, size_t len)
{
    size_t old = h->size;
    if (old == len)
        return h;
    void *m = mremap(h, old, len, MREMAP_MAYMOVE);
    if (m == MAP_FAILED)
        return NULL;
    if (len > old)
        madvise(m, len, MADV_HUGEPAGE); /* advice only: failure is harmless */
    h = m;
    h->size = len;
    return h;
}
#endif

#endif
