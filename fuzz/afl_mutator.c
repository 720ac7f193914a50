/* AFL++ custom mutator (AFL_CUSTOM_MUTATOR_LIBRARY=.../libpprof-afl-mutator.so): the same
 * structure-aware mutation as the libFuzzer builds. AFL++ keeps running its own byte stages
 * unless AFL_CUSTOM_MUTATOR_ONLY=1 is set. All state lives in the handle from afl_custom_init. */
#include <stdlib.h>
#include <string.h>

#include "mutator.h"

typedef struct afl_mutator {
    fuzz_rng rng;
    uint8_t *buf;
    size_t cap;
} afl_mutator;

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                       uint8_t *add_buf, size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

void *
afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl;
    afl_mutator *m = calloc(1, sizeof(*m));
    if (m)
        m->rng.s = seed;
    return m;
}

size_t
afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                size_t add_buf_size, size_t max_size)
{
    (void)add_buf;
    (void)add_buf_size;
    afl_mutator *m = data;
    if (m->cap < max_size) {
        uint8_t *nb = realloc(m->buf, max_size);
        if (!nb) {
            *out_buf = buf;
            return buf_size;
        }
        m->buf = nb;
        m->cap = max_size;
    }
    size_t n = buf_size < max_size ? buf_size : max_size;
    memcpy(m->buf, buf, n);
    *out_buf = m->buf;
    return fuzz_mutate(m->buf, n, max_size, fuzz_rand(&m->rng), fuzz_mutate_bytes, &m->rng);
}

void
afl_custom_deinit(void *data)
{
    afl_mutator *m = data;
    if (m)
        free(m->buf);
    free(m);
}
