/* Fork-join over contiguous index ranges, on a pool's workers. */
#include <stdbool.h>

#include "par-private.h"

#define PAR_MAX PPROF__PAR_MAX

typedef struct part {
    pprof__par_fn fn;
    void *ctx;
    size_t lo, hi;
} part;

static void
run_part(void *arg)
{
    part *p = arg;
    p->fn(p->ctx, p->lo, p->hi);
}

void
pprof__par_for(pprof__pool *pool, unsigned threads, size_t n, size_t min_part, pprof__par_fn fn,
               void *ctx)
{
    size_t k = threads > PAR_MAX ? PAR_MAX : threads;
    if (min_part == 0)
        min_part = 1;
    if (k > n / min_part)
        k = n / min_part;
    if (k < 2) {
        fn(ctx, 0, n);
        return;
    }
    part parts[PAR_MAX];
    pprof__job jobs[PAR_MAX];
    bool started[PAR_MAX] = {false};
    for (size_t i = 0; i < k; i++)
        parts[i] = (part){fn, ctx, n * i / k, n * (i + 1) / k};
    for (size_t i = 1; i < k; i++) {
        jobs[i] = (pprof__job){.fn = run_part, .arg = &parts[i]};
        started[i] = pprof__pool_start(pool, &jobs[i]);
    }
    /* The parts are the same whoever runs them: the caller takes those no worker took. */
    for (size_t i = 0; i < k; i++)
        if (!started[i])
            fn(ctx, parts[i].lo, parts[i].hi);
    for (size_t i = 1; i < k; i++)
        if (started[i])
            pprof__pool_wait(&jobs[i]);
}
