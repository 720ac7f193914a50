/* Structure-aware mutation of pprof inputs, shared by the libFuzzer and AFL++ mutators: decode,
 * change the model (ids, string indices, counts, inline lines, labels, values at int64
 * boundaries), encode again; inputs that do not decode get byte mutations. */
#ifndef PPROF_FUZZ_MUTATOR_H
#define PPROF_FUZZ_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/pprof.h"

typedef struct fuzz_rng {
    uint64_t s;
} fuzz_rng;

/* splitmix64 */
static inline uint64_t
fuzz_rand(fuzz_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t
fuzz_below(fuzz_rng *r, uint64_t n)
{
    return n ? fuzz_rand(r) % n : 0;
}

/* Byte-level mutation supplied by the engine (LLVMFuzzerMutate) or our own for AFL++. */
typedef size_t (*fuzz_byte_mutator)(void *ctx, uint8_t *data, size_t size, size_t max_size);

/* Mutates data[0..size) in place into at most max_size bytes and returns the new size. */
size_t fuzz_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t seed,
                   fuzz_byte_mutator bytes, void *bytes_ctx);

/* Simple byte mutations (flip, set, insert, erase, interesting values) for engines without
 * their own, driven by an rng in ctx (a fuzz_rng *). */
size_t fuzz_mutate_bytes(void *ctx, uint8_t *data, size_t size, size_t max_size);

/* ---- the raw emitter: the model written verbatim, dangling indices and all */

enum {
    FUZZ_EMIT_UNPACKED = 1,      /* repeated scalars one field each instead of packed */
    FUZZ_EMIT_ZEROS = 2,         /* zero-valued scalars written explicitly */
    FUZZ_EMIT_UNKNOWN = 4,       /* an unknown field in every message */
    FUZZ_EMIT_STRINGS_FIRST = 8, /* the string table before everything else */
};

/* Appends the profile's protobuf encoding to out without touching the string table: every index
 * is written as stored. Returns PPROF_E_NOMEM or PPROF_OK. */
pprof_status fuzz_emit_raw(const pprof_profile *p, unsigned flags, pprof_buffer *out);

#endif
