/* Memory policy (see memory-private.h). */
#define _GNU_SOURCE /* mremap */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memory-private.h"

/* Under AddressSanitizer every block stays on the heap, where it gets redzones. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PPROF__ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PPROF__ASAN 1
#endif
/* ThreadSanitizer intercepts mmap and munmap but not mremap: a block moved by mremap left its
 * old addresses' access history behind, and the next mapping there was reported as racing
 * with the thread that had used the old block. Under TSan a block grows by map, copy, unmap. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PPROF__TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define PPROF__TSAN 1
#endif
#if defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE) && !defined(PPROF__ASAN)
#define BIG_BLOCKS 1
#endif

#ifdef BIG_BLOCKS
/* Whole huge pages: the kernel aligns an anonymous mapping of such a length to 2 MiB, and only
 * aligned 2 MiB ranges can become huge pages (4 KiB-rounded lengths left most of a growing array
 * in small pages). */
static size_t
big_len(size_t len)
{
    return (len + PPROF__BIG_BLOCK - 1) & ~(PPROF__BIG_BLOCK - 1);
}

/* What of a mapping of n = big_len(len) bytes is kept: all of it, or, when its last 2 MiB would
 * be at most half used, up to the end of len's last small page. Touching that last 2 MiB would
 * make it resident as one huge page, a megabyte or more per block that nothing uses (an array
 * of 2^k entries behind its header used 16 bytes of it); cut short, it cannot be a huge page.
 * The mapping stays one (a split advice would stop mremap). */
static size_t
kept_len(size_t len, size_t n)
{
    size_t tail = len & (PPROF__BIG_BLOCK - 1), pg = (size_t)sysconf(_SC_PAGESIZE);
    if (!tail || tail > PPROF__BIG_BLOCK / 2 || !pg || (pg & (pg - 1)))
        return n;
    return (len + pg - 1) & ~(pg - 1);
}

static size_t
trim(uint8_t *m, size_t len, size_t n)
{
    size_t keep = kept_len(len, n);
    if (keep < n && munmap(m + keep, n - keep))
        return n;
    return keep;
}
#endif

void *
pprof__mem_map_big(size_t len, size_t *mapped_len)
{
#ifdef BIG_BLOCKS
    if (len > SIZE_MAX - PPROF__BIG_BLOCK)
        return NULL;
    size_t n = big_len(len);
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    madvise(m, n, MADV_HUGEPAGE); /* advice only: failure is harmless */
    *mapped_len = trim(m, len, n);
    return m;
#else
    (void)len;
    (void)mapped_len;
    return NULL;
#endif
}

void *
pprof__mem_remap_big(void *m, size_t old, size_t len, size_t *mapped_len)
{
#ifdef BIG_BLOCKS
    if (len > SIZE_MAX - PPROF__BIG_BLOCK)
        return NULL;
    size_t n = big_len(len);
    if (kept_len(len, n) == old) {
        *mapped_len = old;
        return m;
    }
#ifdef PPROF__TSAN
    size_t got;
    void *r = pprof__mem_map_big(len, &got);
    if (!r)
        return NULL;
    memcpy(r, m, old < got ? old : got);
    munmap(m, old);
    *mapped_len = got;
    return r;
#else
    void *r = mremap(m, old, n, MREMAP_MAYMOVE);
    if (r == MAP_FAILED)
        return NULL;
    if (n > old)
        madvise(r, n, MADV_HUGEPAGE); /* advice only: failure is harmless */
    *mapped_len = trim(r, len, n);
    return r;
#endif
#else
    (void)m;
    (void)old;
    (void)len;
    (void)mapped_len;
    return NULL;
#endif
}

void *
pprof__mem_reserve(size_t len, bool huge)
{
#ifdef BIG_BLOCKS
    if (len > SIZE_MAX - PPROF__BIG_BLOCK)
        return NULL;
    size_t pad = huge ? PPROF__BIG_BLOCK : 0;
    uint8_t *raw = mmap(NULL, len + pad, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    if (!huge)
        return raw;
    /* only aligned 2 MiB ranges can become huge pages */
    uint8_t *r = (uint8_t *)(((uintptr_t)raw + pad - 1) & ~(uintptr_t)(pad - 1));
    if (r > raw)
        munmap(raw, (size_t)(r - raw));
    if (r + len < raw + len + pad)
        munmap(r + len, (size_t)(raw + len + pad - (r + len)));
    madvise(r, len, MADV_HUGEPAGE); /* advice only: failure costs speed, not bytes */
    return r;
#else
    (void)len;
    (void)huge;
    return NULL;
#endif
}

void
pprof__mem_unmap_big(void *m, size_t len)
{
    munmap(m, len);
}

/* In steps of 2 MiB: the call holds the address space's lock, and the threads that map, grow or
 * free memory meanwhile wait for it (a whole encoding buffer in one call stalled them). */
#define PREFAULT_STEP ((uintptr_t)2 << 20)

void
pprof__mem_small_pages(void *p, size_t len)
{
#ifdef MADV_NOHUGEPAGE
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(pg - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(pg - 1);
    if (pg && hi > lo)
        madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

void
pprof__mem_huge_pages(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + PPROF__BIG_BLOCK - 1) & ~(PPROF__BIG_BLOCK - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(PPROF__BIG_BLOCK - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

void
pprof__prefault_add(pprof__prefault *pf, void *p, size_t len)
{
    if (p && len >= ((size_t)1 << 20) && pf->n < PPROF__PREFAULT_MAX) {
        pf->p[pf->n] = p;
        pf->len[pf->n++] = len;
    }
}

static void
prefault_run(void *arg)
{
#ifdef MADV_POPULATE_WRITE
    const pprof__prefault *pf = arg;
    for (size_t i = 0; i < pf->n; i++) {
        uintptr_t start = ((uintptr_t)pf->p[i] + 4095) & ~(uintptr_t)4095;
        uintptr_t end = ((uintptr_t)pf->p[i] + pf->len[i]) & ~(uintptr_t)4095;
        /* a failure only leaves the faults to the first touch */
        for (uintptr_t at = start; at < end; at += PREFAULT_STEP)
            madvise((void *)at, end - at < PREFAULT_STEP ? end - at : PREFAULT_STEP,
                    MADV_POPULATE_WRITE);
    }
#else
    (void)arg;
#endif
}

void
pprof__prefault_start(pprof__prefault *pf, pprof__pool *pool)
{
    pf->job = (pprof__job){.fn = prefault_run, .arg = pf};
    pf->running = pf->n && pprof__pool_start(pool, &pf->job);
}

void
pprof__prefault_join(pprof__prefault *pf)
{
    if (pf->running)
        pprof__pool_wait(&pf->job);
    pf->running = false;
}
