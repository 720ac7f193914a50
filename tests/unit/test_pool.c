/* The thread pool (libpprof/pool.c) and the parallel loop on it (par.c): no pool means no
 * threads, a full pool refuses rather than queues, workers are reused, a job's nice value and
 * name hold only for its duration, and a loop covers every index once whatever ran it; big blocks
 * grow on threads side by side. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid, pthread_getname_np */
#endif
#include "common-private.h"
#include "par-private.h"
#include "pool-private.h"
#include "tap.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct gate {
    atomic_int open, entered;
} gate;

static void
hold(void *arg)
{
    gate *g = arg;
    atomic_fetch_add(&g->entered, 1);
    while (!atomic_load(&g->open))
        usleep(1000);
}

typedef struct seen {
    int nice;
    char name[16];
    pthread_t self;
} seen;

static void
look(void *arg)
{
    seen *s = arg;
    errno = 0;
    s->nice = getpriority(PRIO_PROCESS, (id_t)gettid());
    pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
    s->self = pthread_self();
}

static void
count(void *ctx, size_t lo, size_t hi)
{
    atomic_int *hits = ctx;
    for (size_t i = lo; i < hi; i++)
        atomic_fetch_add(&hits[i], 1);
}

/* What each part of a loop with part indices saw. */
typedef struct part_seen {
    atomic_size_t lo[PPROF__PAR_MAX], hi[PPROF__PAR_MAX];
    atomic_int calls[PPROF__PAR_MAX], bad;
} part_seen;

static void
note_part(void *ctx, size_t part, size_t lo, size_t hi)
{
    part_seen *s = ctx;
    if (part >= PPROF__PAR_MAX) {
        atomic_store(&s->bad, 1);
        return;
    }
    atomic_fetch_add(&s->calls[part], 1);
    atomic_store(&s->lo[part], lo);
    atomic_store(&s->hi[part], hi);
}

/* Parts 0..k-1 each called once, in the order of their ranges, which tile [0, n). */
static bool
parts_in_order(pprof__pool *p, unsigned threads, size_t n, size_t min_part)
{
    static part_seen s;
    memset(&s, 0, sizeof(s));
    size_t k = pprof__par_for_parts(p, threads, n, min_part, "pprof-test", note_part, &s);
    if (k != pprof__par_parts(threads, n, min_part) || k < 1 || atomic_load(&s.bad))
        return false;
    size_t at = 0;
    for (size_t i = 0; i < PPROF__PAR_MAX; i++) {
        if (atomic_load(&s.calls[i]) != (i < k ? 1 : 0))
            return false;
        if (i < k && (atomic_load(&s.lo[i]) != at || atomic_load(&s.hi[i]) < at))
            return false;
        if (i < k)
            at = atomic_load(&s.hi[i]);
    }
    return at == n;
}

/* Every index of [0, n) hit exactly once. */
static bool
loop_covers(pprof__pool *p, unsigned threads, size_t n, size_t min_part)
{
    static atomic_int hits[100000];
    for (size_t i = 0; i < n; i++)
        atomic_store(&hits[i], 0);
    pprof__par_for(p, threads, n, min_part, count, hits);
    for (size_t i = 0; i < n; i++)
        if (atomic_load(&hits[i]) != 1)
            return false;
    return true;
}

/* Two threads growing big blocks side by side, with no order between them: a block that moves
 * as it grows leaves its old addresses free for the other thread's next block. Under TSan this
 * is a false data race unless the move is one TSan sees (it does not see mremap). */
enum { GROW_ROUNDS = 64 };

static void *
grow_blocks(void *arg)
{
    unsigned char mark = (unsigned char)(uintptr_t)arg;
    for (int r = 0; r < GROW_ROUNDS; r++) {
        size_t n = (size_t)2 << 20;
        unsigned char *p = pprof__malloc(NULL, n);
        if (!p)
            return (void *)1;
        for (int step = 0; step < 3; step++) {
            p[0] = p[n - 1] = mark;
            unsigned char *q = pprof__realloc(NULL, p, 2 * n);
            if (!q || q[0] != mark || q[n - 1] != mark) {
                pprof__free(NULL, q ? q : p);
                return (void *)1;
            }
            p = q;
            n *= 2;
        }
        pprof__free(NULL, p);
    }
    return NULL;
}

static bool
blocks_grow_side_by_side(void)
{
    pthread_t a, b;
    void *ra = (void *)1, *rb = (void *)1;
    if (pthread_create(&a, NULL, grow_blocks, (void *)(uintptr_t)0x5a))
        return false;
    if (pthread_create(&b, NULL, grow_blocks, (void *)(uintptr_t)0xa5)) {
        pthread_join(a, &ra);
        return false;
    }
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    return !ra && !rb;
}

int
main(void)
{
    tap t = {0};
    errno = 0;
    int base = getpriority(PRIO_PROCESS, (id_t)gettid()); /* new threads start at it */
    int want = base <= 10 || geteuid() == 0 ? 10 : base;  /* raising nice needs no privilege */
    pprof__job j = {.fn = look};
    tap_ok(&t, pprof__pool_new(0) == NULL, "a pool of no workers is NULL");
    tap_ok(&t, blocks_grow_side_by_side(), "big blocks grown on two threads keep their bytes");
    tap_ok(&t, !pprof__pool_start(NULL, &j), "no pool: start refuses, the caller works alone");

    pprof__pool *p = pprof__pool_new(2);
    gate g = {0};
    pprof__job a = {.fn = hold, .arg = &g}, b = a, c = a;
    bool sa = pprof__pool_start(p, &a), sb = pprof__pool_start(p, &b);
    tap_ok(&t, p && sa && sb, "two long jobs start on a pool of two");
    tap_ok(&t, !pprof__pool_start(p, &c), "a third is refused while both run, not queued");
    tap_ok(&t, loop_covers(p, 8, 50000, 100), "a loop on a busy pool runs on the caller");
    atomic_store(&g.open, 1);
    pprof__pool_wait(&a);
    pprof__pool_wait(&b);
    tap_ok(&t, atomic_load(&g.entered) == 2 && a.done && b.done, "both ran and were waited for");

    seen s1 = {0}, s2 = {0};
    pprof__job n1 = {.fn = look, .arg = &s1, .nice = 10, .name = "pprof-test"};
    tap_ok(&t, pprof__pool_start(p, &n1), "a free worker is reused");
    pprof__pool_wait(&n1);
    tap_ok(&t, s1.nice == want, "the job ran at its nice value (%d)", s1.nice);
    tap_ok(&t, strcmp(s1.name, "pprof-test") == 0, "under its name (%s)", s1.name);
    /* Both workers are idle; run plain jobs until one lands on the worker that ran n1. */
    bool restored = true, landed = false;
    for (int k = 0; k < 20 && !landed; k++) {
        pprof__job n2 = {.fn = look, .arg = &s2};
        if (!pprof__pool_start(p, &n2)) {
            restored = false; /* that worker stays at nice 10 and refuses plain jobs */
            break;
        }
        pprof__pool_wait(&n2);
        landed = pthread_equal(s1.self, s2.self);
        if (landed)
            restored = s2.nice == base && strcmp(s2.name, "pprof-test") != 0;
    }
    if (geteuid() == 0)
        tap_ok(&t, landed && restored, "priority and name restored after the job (nice %d, %s)",
               s2.nice, s2.name);
    else
        tap_ok(&t, !landed || restored, "a worker left niced takes no plain job");
    pprof__pool_free(p);

    for (unsigned threads = 0; threads <= 20; threads++) {
        pprof__pool *q = threads ? pprof__pool_new(threads) : NULL;
        bool ok = loop_covers(q, threads, 99991, 1000) && loop_covers(q, threads, 3, 1) &&
                  loop_covers(q, threads, 0, 0) && loop_covers(q, 2, 2, 1);
        bool parts = parts_in_order(q, threads, 99991, 1000) && parts_in_order(q, threads, 3, 1) &&
                     parts_in_order(q, threads, 0, 0) && parts_in_order(q, 2, 2, 1);
        pprof__pool_free(q);
        tap_ok(&t, ok, "loops cover every index once, threads %u", threads);
        tap_ok(&t, parts, "parts 0..k-1 run once each over ranges in their order, threads %u",
               threads);
    }
    return tap_done(&t);
}
