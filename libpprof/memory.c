/* Memory policy (see memory-private.h). */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memory-private.h"

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
