/* Many threads reading one profile (pprof.h allows it once the profile is no longer modified):
 * four threads look up every id of a fresh profile at once, so that the first lookups race to
 * build the id index. Every lookup must succeed, and under TSan (scripts/test runs this test in
 * its tsan configuration) no data race may be reported. */
#include <pthread.h>

#include "pb.h"
#include "testutil.h"

enum { THREADS = 4, IDS = 3000, ROUNDS = 40 };

typedef struct job {
    const pprof_profile *p;
    pthread_barrier_t *go;
    unsigned misses;
} job;

/* Sparse ids (odd, descending), so the index needs a hash table and takes a while to build. */
static uint64_t
id_of(size_t i)
{
    return 2 * (uint64_t)(IDS - i) + 1;
}

static pprof_profile *
sparse_profile(void)
{
    pb b = {0}, s = {0};
    pb_str(&b, 6, "");
    for (uint32_t table = 3; table <= 5; table++)
        for (size_t i = 0; i < IDS; i++) {
            pb_v(&s, 1, id_of(i));
            pb_msg_free(&b, table, &s);
        }
    pprof_profile *p = NULL;
    tu_decode_raw(b.d, b.n, NULL, &p, NULL);
    pb_free(&b);
    return p;
}

static void *
reader(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(j->go);
    for (size_t i = 0; i < IDS; i++) {
        size_t at = SIZE_MAX;
        j->misses += !pprof_profile_find_location(j->p, id_of(i), &at) || at != i;
        j->misses += !pprof_profile_find_function(j->p, id_of(i), &at) || at != i;
        j->misses += !pprof_profile_find_mapping(j->p, id_of(i), &at) || at != i;
    }
    return NULL;
}

int
main(void)
{
    tap t = {0};
    unsigned misses = 0, failed_rounds = 0;
    for (int r = 0; r < ROUNDS; r++) {
        pprof_profile *p = sparse_profile();
        if (!p) {
            failed_rounds++;
            continue;
        }
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, THREADS);
        job jobs[THREADS];
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (job){p, &go, 0};
            pthread_create(&th[i], NULL, reader, &jobs[i]);
        }
        for (int i = 0; i < THREADS; i++) {
            pthread_join(th[i], NULL);
            misses += jobs[i].misses;
        }
        pthread_barrier_destroy(&go);
        pprof_profile_free(p);
    }
    tap_ok(&t, failed_rounds == 0, "%d profiles of %d sparse ids per table decode", ROUNDS, IDS);
    tap_ok(&t, misses == 0,
           "%d threads looking up every id of a fresh profile at once find all of them (%u of "
           "%u lookups missed)",
           THREADS, misses, (unsigned)(ROUNDS * THREADS * IDS * 3));
    return tap_done(&t);
}
