/* The library's one hash: a 64-bit finaliser, a combining step for sequences of words, and a
 * word-at-a-time byte hash built on them. Used only for table lookups (htab-private.h); no output
 * order depends on a hash value. */
#ifndef PPROF_HASH_PRIVATE_H
#define PPROF_HASH_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
pprof__mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= UINT64_C(0x7fb5d329728ea185);
    x ^= x >> 27;
    x *= UINT64_C(0x81dadef4bc2dd44d);
    x ^= x >> 33;
    return x;
}

/* One step of hashing a sequence of words: cheap, and good enough between steps because the
 * result always goes through pprof__mix64 before use. */
static inline uint64_t
pprof__hash_combine(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= UINT64_C(0x9E3779B97F4A7C15);
    return h ^ (h >> 31);
}

/* Hashes n bytes, continuing from seed h (0 to start). */
static inline uint64_t
pprof__hash_bytes(uint64_t h, const void *data, size_t n)
{
    const uint8_t *s = data;
    h ^= UINT64_C(0xcbf29ce484222325) + n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = pprof__hash_combine(h, w);
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n)
        memcpy(&w, s, n);
    return pprof__mix64(h ^ w ^ ((uint64_t)n << 56));
}

#endif
