/* The library's one hash table: open addressing with linear probing over 32-bit values.
 *
 * A table does not own keys. It maps a 64-bit hash to values (usually indices into an array the
 * caller owns, where the keys live); a slot holds (32 hash bits << 32) | (value + 1), 0 = empty.
 * The stored hash bits both choose the bucket and filter comparisons, so growing never touches
 * the caller's entities. Equality is the caller's: either a callback (pprof__htab_find,
 * pprof__htab_intern) or an open-coded loop over the candidates (pprof__htab_probe_*), which the
 * hot paths use to keep the comparison inline.
 *
 * pprof__u64map, below, is the same table over keys it stores itself: 64-bit ids mapped to
 * 32-bit values, in insertion order.
 *
 * No output order may depend on a hash value or on the table's iteration order. Values are
 * below PPROF_NONE (UINT32_MAX); at most 3/4 of the slots are used. Nothing is global: every
 * call that allocates takes the allocator. */
#ifndef PPROF_HTAB_PRIVATE_H
#define PPROF_HTAB_PRIVATE_H

#include "api-private.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash-private.h"
#include "pprof/pprof.h"

#ifndef PPROF_NONE
#define PPROF_NONE UINT32_MAX
#endif

typedef struct pprof__htab {
    uint64_t *slot;
    size_t mask;  /* capacity - 1, or 0 when slot is NULL */
    size_t count; /* values held */
} pprof__htab;

/* An empty table with room for expected values without growing (0: allocate on first use). */
PPROF_PRIVATE_API bool pprof__htab_init(pprof__htab *t, const pprof_allocator *a, size_t expected);
PPROF_PRIVATE_API void pprof__htab_free(pprof__htab *t, const pprof_allocator *a);
/* Forgets every value, keeping the capacity. */
PPROF_PRIVATE_API void pprof__htab_clear(pprof__htab *t);
/* Makes room for more values beyond count without a rehash, so that the probe-and-insert calls
 * below never allocate. False when out of memory or past 2^32 slots; the table is unchanged. */
PPROF_PRIVATE_API bool pprof__htab_reserve(pprof__htab *t, const pprof_allocator *a, size_t more);
/* Adds a value known to be absent; room must have been reserved. */
PPROF_PRIVATE_API void pprof__htab_add(pprof__htab *t, uint64_t hash, uint32_t value);

static inline uint32_t
pprof__htab_h32(uint64_t hash)
{
    return (uint32_t)hash;
}

static inline bool
pprof__htab_full(const pprof__htab *t)
{
    return !t->mask || (t->count + 1) * 4 > (t->mask + 1) * 3;
}

/* ---- Probing, for open-coded equality:
 *
 *     pprof__htab_probe p;
 *     for (uint32_t v = pprof__htab_probe_start(t, h, &p); v != PPROF_NONE;
 *          v = pprof__htab_probe_next(t, &p))
 *         if (equal(v, key)) return v;
 *     pprof__htab_insert_at(t, &p, new_value);   (after pprof__htab_reserve)
 *
 * The candidates are the values whose stored hash bits match; the loop ends (PPROF_NONE) at the
 * empty slot where the key would go. */
typedef struct pprof__htab_probe {
    size_t pos;
    uint32_t h32;
} pprof__htab_probe;

static inline uint32_t
pprof__htab_probe_scan(const pprof__htab *t, pprof__htab_probe *p)
{
    for (;; p->pos = (p->pos + 1) & t->mask) {
        uint64_t s = t->slot[p->pos];
        if (!s)
            return PPROF_NONE;
        if ((uint32_t)(s >> 32) == p->h32)
            return (uint32_t)s - 1;
    }
}

static inline uint32_t
pprof__htab_probe_start(const pprof__htab *t, uint64_t hash, pprof__htab_probe *p)
{
    p->h32 = pprof__htab_h32(hash);
    p->pos = p->h32 & t->mask;
    if (!t->slot)
        return PPROF_NONE;
    return pprof__htab_probe_scan(t, p);
}

static inline uint32_t
pprof__htab_probe_next(const pprof__htab *t, pprof__htab_probe *p)
{
    p->pos = (p->pos + 1) & t->mask;
    return pprof__htab_probe_scan(t, p);
}

/* Stores value in the empty slot where the probe ended; the table must not have changed since
 * the probe started, and room must have been reserved. */
static inline void
pprof__htab_insert_at(pprof__htab *t, const pprof__htab_probe *p, uint32_t value)
{
    t->slot[p->pos] = ((uint64_t)p->h32 << 32) | ((uint64_t)value + 1);
    t->count++;
}

/* The loop above as a statement: v ends as the first value for which EQ (an expression of v)
 * holds, or PPROF_NONE with probe where the key would go. */
#define PPROF__HTAB_FIND(t, hash, probe, v, EQ)                                                    \
    for ((v) = pprof__htab_probe_start((t), (hash), &(probe)); (v) != PPROF_NONE && !(EQ);         \
         (v) = pprof__htab_probe_next((t), &(probe)))

/* ---- Lookups with an equality callback: eq(ctx, value, key) says whether the entity that value
 * names equals key. Static inline, so a constant eq is inlined. */
typedef bool (*pprof__htab_eq)(const void *ctx, uint32_t value, const void *key);

static inline uint32_t
pprof__htab_find(const pprof__htab *t, uint64_t hash, pprof__htab_eq eq, const void *ctx,
                 const void *key)
{
    pprof__htab_probe p;
    for (uint32_t v = pprof__htab_probe_start(t, hash, &p); v != PPROF_NONE;
         v = pprof__htab_probe_next(t, &p))
        if (eq(ctx, v, key))
            return v;
    return PPROF_NONE;
}

/* Lookup-or-insert: the value equal to key, or new_value after adding it (*added set). PPROF_NONE
 * when out of memory. */
static inline uint32_t
pprof__htab_intern(pprof__htab *t, const pprof_allocator *a, uint64_t hash, pprof__htab_eq eq,
                   const void *ctx, const void *key, uint32_t new_value, bool *added)
{
    *added = false;
    if (pprof__htab_full(t) && !pprof__htab_reserve(t, a, 1))
        return PPROF_NONE;
    pprof__htab_probe p;
    for (uint32_t v = pprof__htab_probe_start(t, hash, &p); v != PPROF_NONE;
         v = pprof__htab_probe_next(t, &p))
        if (eq(ctx, v, key))
            return v;
    pprof__htab_insert_at(t, &p, new_value);
    *added = true;
    return new_value;
}

/* The first value whose stored hash bits match (most likely the one wanted), or PPROF_NONE: a
 * guess to prefetch the entity early, never an answer. */
static inline uint32_t
pprof__htab_peek(const pprof__htab *t, uint64_t hash)
{
    pprof__htab_probe p;
    return pprof__htab_probe_start(t, hash, &p);
}

static inline void
pprof__htab_prefetch(const pprof__htab *t, uint64_t hash)
{
    if (t->slot)
        __builtin_prefetch(&t->slot[pprof__htab_h32(hash) & t->mask]);
}

/* Iteration in slot order (which depends on the hashes: never let it reach an output):
 *     for (size_t pos = 0; pprof__htab_next(t, &pos, &v);) ... */
static inline bool
pprof__htab_next(const pprof__htab *t, size_t *pos, uint32_t *value)
{
    for (; t->slot && *pos <= t->mask; (*pos)++)
        if (t->slot[*pos]) {
            *value = (uint32_t)t->slot[(*pos)++] - 1;
            return true;
        }
    return false;
}

/* ---- pprof__u64map: 64-bit keys (ids) it stores itself mapped to 32-bit values. */
typedef struct pprof__u64map_entry {
    uint64_t key;
    uint32_t value;
} pprof__u64map_entry;

typedef struct pprof__u64map {
    pprof__htab t; /* key hash -> index into e */
    pprof__u64map_entry *e;
    size_t n, cap;
} pprof__u64map;

static inline uint64_t
pprof__u64map_hash(uint64_t key)
{
    return pprof__mix64(key);
}

PPROF_PRIVATE_API bool pprof__u64map_init(pprof__u64map *m, const pprof_allocator *a, size_t expected);
PPROF_PRIVATE_API void pprof__u64map_free(pprof__u64map *m, const pprof_allocator *a);
/* Sets key -> value, or, when key is already there, leaves it and gives its value in *old.
 * Returns false when out of memory. */
PPROF_PRIVATE_API bool pprof__u64map_put(pprof__u64map *m, const pprof_allocator *a, uint64_t key, uint32_t value,
                       uint32_t *old, bool *added);

/* The value of key, or PPROF_NONE. */
static inline uint32_t
pprof__u64map_get(const pprof__u64map *m, uint64_t key)
{
    pprof__htab_probe p;
    for (uint32_t i = pprof__htab_probe_start(&m->t, pprof__u64map_hash(key), &p); i != PPROF_NONE;
         i = pprof__htab_probe_next(&m->t, &p))
        if (m->e[i].key == key)
            return m->e[i].value;
    return PPROF_NONE;
}

/* Entries in insertion order: m->e[0 .. m->n). */

#endif
