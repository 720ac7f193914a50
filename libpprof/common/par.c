/* Fork-join over contiguous index ranges, on a pool's workers. */
#include <stdbool.h>

#include "par-private.h"

#define PAR_MAX PPROF__PAR_MAX

typedef struct part {
    pprof__par_part_fn fn;
    void *ctx;
    size_t index, lo, hi;
} part;

static void
run_part(void *arg)
{
    part *p = arg;
    p->fn(p->ctx, p->index, p->lo, p->hi);
}

size_t
pprof__par_parts(unsigned threads, size_t n, size_t min_part)
{
    size_t k = threads > PAR_MAX ? PAR_MAX : threads;
    if (min_part == 0)
        min_part = 1;
    if (k > n / min_part)
        k = n / min_part;
    return k < 2 ? 1 : k;
}

size_t
pprof__par_for_parts(pprof__pool *pool, unsigned threads, size_t n, size_t min_part,
                     const char *name, pprof__par_part_fn fn, void *ctx)
{
    size_t k = pprof__par_parts(threads, n, min_part);
    if (k < 2) {
        fn(ctx, 0, 0, n);
        return 1;
    }
    part parts[PAR_MAX];
    pprof__job jobs[PAR_MAX];
    bool started[PAR_MAX] = {false};
    for (size_t i = 0; i < k; i++)
        parts[i] = (part){fn, ctx, i, n * i / k, n * (i + 1) / k};
    for (size_t i = 1; i < k; i++) {
        jobs[i] = (pprof__job){.fn = run_part, .arg = &parts[i], .name = name};
        started[i] = pprof__pool_start(pool, &jobs[i]);
    }
    /* The parts are the same whoever runs them: the caller takes those no worker took. */
    for (size_t i = 0; i < k; i++)
        if (!started[i])
            run_part(&parts[i]);
    for (size_t i = 1; i < k; i++)
        if (started[i])
            pprof__pool_wait(&jobs[i]);
    return k;
}

/* The callback of the loops that need no part index. */
typedef struct plain {
    pprof__par_fn fn;
    void *ctx;
} plain;

static void
run_plain(void *ctx, size_t index, size_t lo, size_t hi)
{
    (void)index;
    const plain *p = ctx;
    p->fn(p->ctx, lo, hi);
}

void
pprof__par_for(pprof__pool *pool, unsigned threads, size_t n, size_t min_part, pprof__par_fn fn,
               void *ctx)
{
    plain p = {fn, ctx};
    pprof__par_for_parts(pool, threads, n, min_part, NULL, run_plain, &p);
}
