/* The one hash table (see htab-private.h): allocation, growth, and the u64 map over it. */
#include <string.h>

#include "htab-private.h"
#include "common-private.h"

/* Slots for n values at a load of at most 3/4: a power of two, at least 16; 0 when too large. */
static size_t
capacity_for(size_t n)
{
    if (n > (UINT64_C(3) << 30))
        return 0;
    size_t cap = 16;
    while (n * 4 > cap * 3)
        cap *= 2;
    return cap;
}

static void
put(uint64_t *slot, size_t mask, uint64_t s)
{
    size_t pos = (uint32_t)(s >> 32) & mask;
    while (slot[pos])
        pos = (pos + 1) & mask;
    slot[pos] = s;
}

static bool
resize(pprof__htab *t, const pprof_allocator *a, size_t cap)
{
    uint64_t *slot = pprof__malloc(a, cap * sizeof(uint64_t));
    if (!slot)
        return false;
    memset(slot, 0, cap * sizeof(uint64_t));
    for (size_t i = 0; t->slot && i <= t->mask; i++)
        if (t->slot[i])
            put(slot, cap - 1, t->slot[i]);
    pprof__free(a, t->slot);
    t->slot = slot;
    t->mask = cap - 1;
    return true;
}

bool
pprof__htab_init(pprof__htab *t, const pprof_allocator *a, size_t expected)
{
    memset(t, 0, sizeof(*t));
    return expected == 0 || pprof__htab_reserve(t, a, expected);
}

void
pprof__htab_free(pprof__htab *t, const pprof_allocator *a)
{
    pprof__free(a, t->slot);
    memset(t, 0, sizeof(*t));
}

void
pprof__htab_clear(pprof__htab *t)
{
    if (t->slot)
        memset(t->slot, 0, (t->mask + 1) * sizeof(uint64_t));
    t->count = 0;
}

bool
pprof__htab_reserve(pprof__htab *t, const pprof_allocator *a, size_t more)
{
    if (more > SIZE_MAX / 8 - t->count)
        return false;
    size_t need = t->count + more + 1; /* one slot always stays empty to end probes */
    if (t->slot && need * 4 <= (t->mask + 1) * 3)
        return true;
    size_t cap = capacity_for(need);
    if (!cap)
        return false;
    /* Growing doubles at least, so that adding one at a time stays linear overall. */
    if (t->slot && cap < (t->mask + 1) * 2)
        cap = (t->mask + 1) * 2;
    return resize(t, a, cap);
}

void
pprof__htab_add(pprof__htab *t, uint64_t hash, uint32_t value)
{
    uint32_t h32 = pprof__htab_h32(hash);
    put(t->slot, t->mask, ((uint64_t)h32 << 32) | ((uint64_t)value + 1));
    t->count++;
}

/* ------------------------------------------------------------------ u64 map */

static bool
entries_reserve(pprof__u64map *m, const pprof_allocator *a, size_t need)
{
    if (need <= m->cap)
        return true;
    size_t cap = m->cap ? m->cap : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / sizeof(pprof__u64map_entry))
            return false;
        cap *= 2;
    }
    pprof__u64map_entry *e = pprof__malloc(a, cap * sizeof(*e));
    if (!e)
        return false;
    if (m->n)
        memcpy(e, m->e, m->n * sizeof(*e));
    pprof__free(a, m->e);
    m->e = e;
    m->cap = cap;
    return true;
}

bool
pprof__u64map_init(pprof__u64map *m, const pprof_allocator *a, size_t expected)
{
    memset(m, 0, sizeof(*m));
    if (!expected)
        return true;
    if (pprof__htab_init(&m->t, a, expected) && entries_reserve(m, a, expected))
        return true;
    pprof__u64map_free(m, a);
    return false;
}

void
pprof__u64map_free(pprof__u64map *m, const pprof_allocator *a)
{
    pprof__htab_free(&m->t, a);
    pprof__free(a, m->e);
    memset(m, 0, sizeof(*m));
}

bool
pprof__u64map_put(pprof__u64map *m, const pprof_allocator *a, uint64_t key, uint32_t value,
                  uint32_t *old, bool *added)
{
    *added = false;
    if (m->n >= PPROF_NONE - 1)
        return false;
    if ((pprof__htab_full(&m->t) && !pprof__htab_reserve(&m->t, a, 1)) ||
        !entries_reserve(m, a, m->n + 1))
        return false;
    pprof__htab_probe p;
    for (uint32_t i = pprof__htab_probe_start(&m->t, pprof__u64map_hash(key), &p); i != PPROF_NONE;
         i = pprof__htab_probe_next(&m->t, &p))
        if (m->e[i].key == key) {
            *old = m->e[i].value;
            return true;
        }
    pprof__htab_insert_at(&m->t, &p, (uint32_t)m->n);
    m->e[m->n++] = (pprof__u64map_entry){key, value};
    *old = value;
    *added = true;
    return true;
}
