/* id -> dense index maps. Ids may be sparse, huge, unordered or duplicated; the common case of
 * ids 1..n in table order needs no table at all. */
#include <sched.h>

#include "profile-private.h"

uint32_t
pprof__idmap_get(const pprof__idmap *m, uint64_t id)
{
    if (m->dense)
        return id - 1 <= m->mask ? (uint32_t)(id - 1) : PPROF_NONE; /* mask = n-1 when dense */
    if (!m->sparse.n || id == 0)
        return PPROF_NONE;
    return pprof__u64map_get(&m->sparse, id);
}

void
pprof__idmap_free(const pprof_allocator *a, pprof__idmap *m)
{
    pprof__u64map_free(&m->sparse, a);
    memset(m, 0, sizeof(*m));
}

/* ids are read with a stride so one function serves every table. */
static pprof_status
build(const pprof_allocator *a, pprof__idmap *m, const uint8_t *ids, size_t stride, size_t n)
{
    pprof__idmap_free(a, m);
    bool dense = true;
    for (size_t i = 0; i < n && dense; i++)
        dense = *(const uint64_t *)(ids + i * stride) == i + 1;
    if (dense) {
        m->dense = n > 0;
        m->mask = n ? n - 1 : 0;
        m->built = true;
        return PPROF_OK;
    }
    if (!pprof__u64map_init(&m->sparse, a, n))
        return PPROF_E_NOMEM;
    /* Backwards, so that a later duplicate wins (the map keeps the first put), as in Go's
     * postDecode. */
    for (size_t i = n; i-- > 0;) {
        uint64_t id = *(const uint64_t *)(ids + i * stride);
        uint32_t old;
        bool added;
        if (id == 0)
            continue; /* reserved; never resolvable */
        if (!pprof__u64map_put(&m->sparse, a, id, (uint32_t)i, &old, &added)) {
            pprof__idmap_free(a, m);
            return PPROF_E_NOMEM;
        }
    }
    m->built = true;
    return PPROF_OK;
}

/* The three indices, by the one thread that won the right to build them. */
static pprof_status
build_all(pprof_profile *p)
{
    if (build(&p->alloc, &p->map_idx, p->mappings.data, sizeof(pprof_mapping), p->mappings.len) ||
        build(&p->alloc, &p->loc_idx, p->locations.data, sizeof(pprof__location),
              p->locations.len) ||
        build(&p->alloc, &p->fn_idx, p->functions.data, sizeof(pprof_function), p->functions.len))
        return PPROF_E_NOMEM;
    return PPROF_OK;
}

pprof_status
pprof__profile_index(const pprof_profile *cp, pprof_error *err)
{
    /* The indices are a cache: building them does not change what the profile means, so a
     * const profile gets them too, once, whichever thread asks first. */
    pprof_profile *p = (pprof_profile *)cp;
    for (;;) {
        unsigned s = atomic_load_explicit(&p->idx_state, memory_order_acquire);
        if (s == PPROF__IDX_READY)
            return PPROF_OK;
        if (s == PPROF__IDX_NONE &&
            atomic_compare_exchange_strong_explicit(&p->idx_state, &s, PPROF__IDX_BUILDING,
                                                    memory_order_acquire, memory_order_relaxed)) {
            if (build_all(p)) { /* out of memory: a later call tries again */
                atomic_store_explicit(&p->idx_state, PPROF__IDX_NONE, memory_order_release);
                return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            }
            /* published whole: a reader that sees READY sees every table built */
            atomic_store_explicit(&p->idx_state, PPROF__IDX_READY, memory_order_release);
            return PPROF_OK;
        }
        sched_yield(); /* another thread is building: once, and for as long as a table scan */
    }
}
