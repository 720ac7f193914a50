/* Mapping and function rules: ranges, overlaps, build ids, duplicates. */
#include <stdlib.h>

#include "check-private.h"

/* ---------------------------------------------------------------- mappings */

pprof_status
pprof__check_mappings(chk *k)
{
    const pprof_profile *p = k->p;
    const pprof_mapping *m = p->mappings.data;
    size_t n = p->mappings.len;
    size_t n_ranged = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = off_at(&p->mapping_offs, i);
        unsigned long long id = (unsigned long long)m[i].id;
        pprof__check_id(k, "mapping", i, m[i].id, &p->map_idx, &p->mapping_offs);
        SREF(k, m[i].filename, off, P("mapping[%zu](id=%llu).filename", i, id));
        SREF(k, m[i].build_id, off, P("mapping[%zu](id=%llu).build_id", i, id));
        if (m[i].memory_limit < m[i].memory_start)
            FIND(&k->c, PPROF_RULE_S5_MAPPING_LIMIT, off,
                 P("mapping[%zu](id=%llu).memory_limit", i, id),
                 "memory_limit 0x%llx is below memory_start 0x%llx; expected limit >= start",
                 (unsigned long long)m[i].memory_limit, (unsigned long long)m[i].memory_start);
        else if (m[i].memory_limit > m[i].memory_start)
            n_ranged++;
        pprof_string b;
        if (str_of(k, m[i].build_id, &b) && b.len == 1)
            FIND(&k->c, PPROF_RULE_S22_BUILD_ID_SHORT, off,
                 P("mapping[%zu](id=%llu).build_id", i, id),
                 "build_id \"%.*s\" is 1 byte long; expected an empty or a real build id (2 bytes "
                 "or more)",
                 (int)b.len, b.data);
    }
    if (n_ranged > 1 && pprof__ck_on(&k->c, PPROF_RULE_S5_MAPPING_OVERLAP)) {
        uint64_t *r = pprof__malloc(k->a, n_ranged * 2 * sizeof(uint64_t));
        if (!r)
            return PPROF_E_NOMEM;
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (m[i].memory_limit > m[i].memory_start) {
                r[2 * j] = m[i].memory_start;
                r[2 * j + 1] = i;
                j++;
            }
        qsort(r, n_ranged, 2 * sizeof(uint64_t), pprof__cmp_u64pair);
        size_t prev = (size_t)r[1];
        for (size_t x = 1; x < n_ranged; x++) {
            size_t i = (size_t)r[2 * x + 1];
            if (m[i].memory_start < m[prev].memory_limit) {
                FIND(&k->c, PPROF_RULE_S5_MAPPING_OVERLAP, off_at(&p->mapping_offs, i),
                     P("mapping[%zu](id=%llu)", i, (unsigned long long)m[i].id),
                     "range [0x%llx, 0x%llx) overlaps mapping[%zu](id=%llu) [0x%llx, 0x%llx); "
                     "expected disjoint mappings",
                     (unsigned long long)m[i].memory_start, (unsigned long long)m[i].memory_limit,
                     prev, (unsigned long long)m[prev].id, (unsigned long long)m[prev].memory_start,
                     (unsigned long long)m[prev].memory_limit);
            }
            if (m[i].memory_limit > m[prev].memory_limit)
                prev = i;
        }
        pprof__free(k->a, r);
    }
    return PPROF_OK;
}

/* ---------------------------------------------------------------- functions */

static bool
fn_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const pprof_function *f = ctx;
    return f[a].name == f[b].name && f[a].system_name == f[b].system_name &&
           f[a].filename == f[b].filename && f[a].start_line == f[b].start_line;
}

pprof_status
pprof__check_functions(chk *k)
{
    const pprof_profile *p = k->p;
    const pprof_function *f = p->functions.data;
    size_t n = p->functions.len;
    bool dup_on = pprof__ck_on(&k->c, PPROF_RULE_S7_DUPLICATE_FUNCTION);
    iset set = {0};
    if (dup_on && !iset_init(k->a, &set, n))
        return PPROF_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = off_at(&p->function_offs, i);
        unsigned long long id = (unsigned long long)f[i].id;
        pprof__check_id(k, "function", i, f[i].id, &p->fn_idx, &p->function_offs);
        SREF(k, f[i].name, off, P("function[%zu](id=%llu).name", i, id));
        SREF(k, f[i].system_name, off, P("function[%zu](id=%llu).system_name", i, id));
        SREF(k, f[i].filename, off, P("function[%zu](id=%llu).filename", i, id));
        if (dup_on) {
            uint64_t h = pprof__mix64((uint64_t)f[i].name * 31 + (uint64_t)f[i].system_name) ^
                         pprof__mix64((uint64_t)f[i].filename * 17 + (uint64_t)f[i].start_line);
            uint32_t j = iset_add(&set, h, (uint32_t)i, fn_eq, f);
            if (j != PPROF_NONE) {
                pprof_string nm;
                str_of(k, f[i].name, &nm);
                FIND(&k->c, PPROF_RULE_S7_DUPLICATE_FUNCTION, off,
                     P("function[%zu](id=%llu)", i, id),
                     "function \"%.*s\" repeats function[%u](id=%llu) field for field; expected "
                     "each function once",
                     (int)(nm.len > 80 ? 80 : nm.len), nm.data, j, (unsigned long long)f[j].id);
            }
        }
    }
    iset_free(k->a, &set);
    return PPROF_OK;
}
