/* Fork-join over contiguous index ranges with plain pthreads: no pool, no state kept. */
#include <pthread.h>
#include <stdbool.h>

#include "par-private.h"

#define PAR_MAX 16

typedef struct part {
    pprof__par_fn fn;
    void *ctx;
    size_t lo, hi;
} part;

static void *
run_part(void *arg)
{
    part *p = arg;
    p->fn(p->ctx, p->lo, p->hi);
    return NULL;
}

void
pprof__par_for(unsigned threads, size_t n, size_t min_part, pprof__par_fn fn, void *ctx)
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
    pthread_t th[PAR_MAX];
    bool started[PAR_MAX] = {false};
    for (size_t i = 0; i < k; i++)
        parts[i] = (part){fn, ctx, n * i / k, n * (i + 1) / k};
    for (size_t i = 1; i < k; i++)
        started[i] = pthread_create(&th[i], NULL, run_part, &parts[i]) == 0;
    fn(ctx, parts[0].lo, parts[0].hi);
    for (size_t i = 1; i < k; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(ctx, parts[i].lo, parts[i].hi);
    }
}
