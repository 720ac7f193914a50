/* Cross-file S1: does one binary address expand the same way in every input? Keys are (binary,
 * offset) with the binary named by build_id, else filename, and the offset address -
 * memory_start, so the same library at different load addresses matches. The index copies what
 * it keeps and holds no pointer into an added profile. */
#include <stdio.h>

#include "check-private.h"
#include "hash-private.h"
#include "htab-private.h"

typedef struct ientry {
    uint64_t bin;    /* index into bins */
    uint64_t offset; /* address - memory_start */
    uint64_t frames; /* hash of the (name, file, line, column) sequence */
    uint32_t n_line;
    uint32_t file;         /* index into names of the profile that added it */
    uint64_t loc_id;       /* location id in that profile */
    uint32_t reported_for; /* last profile a conflict on this key was reported for, + 1 */
} ientry;

struct pprof_inline_index {
    pprof_allocator a;
    pprof__vec names;        /* char *, copied */
    pprof__vec bins;         /* char *, copied, NUL-terminated */
    pprof__vec binlens;      /* size_t */
    pprof__htab bin_by_name; /* bins by content */
    pprof__vec e;            /* ientry */
    pprof__htab e_by_key;    /* entries by (bin, offset) */
};

pprof_status
pprof_inline_index_new(const pprof_allocator *a, pprof_inline_index **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    *out = NULL;
    pprof_allocator al = {0};
    if (a)
        al = *a;
    pprof_inline_index *x = pprof__malloc(&al, sizeof(*x));
    if (!x)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(x, 0, sizeof(*x));
    x->a = al;
    *out = x;
    return PPROF_OK;
}

void
pprof_inline_index_free(pprof_inline_index *x)
{
    if (!x)
        return;
    pprof_allocator a = x->a;
    for (size_t i = 0; i < x->names.len; i++)
        pprof__free(&a, PPROF__AT(x->names, char *, i));
    for (size_t i = 0; i < x->bins.len; i++)
        pprof__free(&a, PPROF__AT(x->bins, char *, i));
    pprof__free(&a, x->names.data);
    pprof__free(&a, x->bins.data);
    pprof__free(&a, x->binlens.data);
    pprof__htab_free(&x->bin_by_name, &a);
    pprof__htab_free(&x->e_by_key, &a);
    pprof__free(&a, x->e.data);
    pprof__free(&a, x);
}

static char *
dup_bytes(const pprof_allocator *a, const char *s, size_t n)
{
    char *d = pprof__malloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The index of a binary key, added if new; UINT32_MAX when out of memory. */
static uint32_t
bin_id(pprof_inline_index *x, const char *s, size_t n)
{
    if (!pprof__htab_reserve(&x->bin_by_name, &x->a, 1))
        return UINT32_MAX;
    pprof__htab_probe at;
    uint32_t v;
    PPROF__HTAB_FIND(&x->bin_by_name, pprof__hash_bytes(7, s, n), at, v,
                     PPROF__AT(x->binlens, size_t, v) == n &&
                         memcmp(PPROF__AT(x->bins, char *, v), s, n) == 0);
    if (v != PPROF_NONE)
        return v;
    char *d = dup_bytes(&x->a, s, n);
    char **slot = d ? pprof__vec_push(&x->a, &x->bins, sizeof(char *)) : NULL;
    size_t *len = slot ? pprof__vec_push(&x->a, &x->binlens, sizeof(size_t)) : NULL;
    if (!len) {
        if (slot)
            x->bins.len--;
        pprof__free(&x->a, d);
        return UINT32_MAX;
    }
    *slot = d;
    *len = n;
    pprof__htab_insert_at(&x->bin_by_name, &at, (uint32_t)x->bins.len - 1);
    return (uint32_t)(x->bins.len - 1);
}

static inline uint64_t
key_hash(uint64_t bin, uint64_t off)
{
    return pprof__mix64(pprof__hash_combine(bin, off));
}

static uint64_t
frames_hash(const pprof_profile *p, const pprof_line *ln, uint32_t n)
{
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fi = pprof__idmap_get(&p->fn_idx, ln[i].function_id);
        pprof_string name = {"", 0}, file = {"", 0};
        if (fi != PPROF_NONE) {
            const pprof_function *f = &PPROF__AT(p->functions, pprof_function, fi);
            pprof__str(p, f->name, &name);
            pprof__str(p, f->filename, &file);
        }
        h = pprof__hash_bytes(h, name.data, name.len);
        h = pprof__hash_bytes(h, file.data, file.len);
        int64_t lc[2] = {ln[i].line, ln[i].column};
        h = pprof__hash_bytes(h, lc, sizeof(lc));
    }
    return h;
}

static pprof_status
inline_index_add_full(pprof_inline_index *x, const pprof_profile *p, const char *name,
                      const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
                      pprof_check_summary *summary, pprof_error *err)
{
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    if (!x || !p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no index or no profile");
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    pprof__ck c;
    pprof__ck_init(&c, opts, fn, ctx, summary);
    bool want = pprof__ck_on(&c, PPROF_RULE_S1_CROSS_INLINE_COUNT) ||
                pprof__ck_on(&c, PPROF_RULE_S1_CROSS_INLINE_FRAMES);
    uint32_t me = (uint32_t)x->names.len;
    char *nm = dup_bytes(&x->a, name ? name : "", name ? strlen(name) : 0);
    char **slot = nm ? pprof__vec_push(&x->a, &x->names, sizeof(char *)) : NULL;
    if (!slot) {
        pprof__free(&x->a, nm);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    *slot = nm;
    c.file = nm;
    if (!want)
        return PPROF_OK;

    size_t nm_maps = p->mappings.len;
    uint32_t *bins = pprof__malloc(&p->alloc, (nm_maps + 1) * sizeof(uint32_t));
    if (!bins)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    const pprof_mapping *maps = p->mappings.data;
    for (size_t i = 0; i < nm_maps; i++) {
        pprof_string s = {"", 0};
        if (!pprof__str(p, maps[i].build_id, &s) || s.len == 0)
            if (!pprof__str(p, maps[i].filename, &s))
                s.len = 0;
        bins[i] = s.len ? bin_id(x, s.data, s.len) : PPROF_NONE - 1;
        if (bins[i] == UINT32_MAX) {
            pprof__free(&p->alloc, bins);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
    }
    const pprof__location *l = p->locations.data;
    const pprof_line *lines = p->lines.data;
    st = PPROF_OK;
    for (size_t i = 0; i < p->locations.len; i++) {
        if (!l[i].address || !l[i].mapping_id)
            continue;
        uint32_t mi = pprof__idmap_get(&p->map_idx, l[i].mapping_id);
        if (mi == PPROF_NONE || bins[mi] == PPROF_NONE - 1 || l[i].address < maps[mi].memory_start)
            continue;
        uint64_t bin = bins[mi], off = l[i].address - maps[mi].memory_start;
        uint64_t fh = frames_hash(p, lines ? lines + l[i].line_off : NULL, l[i].n_line);
        if (!pprof__htab_reserve(&x->e_by_key, &x->a, 1) ||
            !pprof__vec_grow(&x->a, &x->e, sizeof(ientry), x->e.len + 1)) {
            st = PPROF_E_NOMEM;
            break;
        }
        ientry *es = x->e.data;
        pprof__htab_probe at;
        uint32_t k;
        PPROF__HTAB_FIND(&x->e_by_key, key_hash(bin, off), at, k,
                         es[k].bin == bin && es[k].offset == off);
        if (k == PPROF_NONE) {
            es[x->e.len] = (ientry){bin, off, fh, l[i].n_line, me, l[i].id, 0};
            pprof__htab_insert_at(&x->e_by_key, &at, (uint32_t)x->e.len++);
            continue;
        }
        ientry *e = &es[k];
        /* The same profile disagreeing with itself is S1-inline-*, checked by pprof_check. */
        if (e->file == me || e->reported_for == me + 1)
            continue;
        pprof_rule r;
        if (e->n_line != l[i].n_line)
            r = PPROF_RULE_S1_CROSS_INLINE_COUNT;
        else if (e->frames != fh)
            r = PPROF_RULE_S1_CROSS_INLINE_FRAMES;
        else
            continue;
        e->reported_for = me + 1;
        if (!pprof__ck_take(&c, r))
            continue;
        char path[160];
        snprintf(path, sizeof(path), "location[%zu](id=%llu)", i, (unsigned long long)l[i].id);
        const char *other = PPROF__AT(x->names, char *, e->file);
        const char *bname = PPROF__AT(x->bins, char *, bin);
        if (r == PPROF_RULE_S1_CROSS_INLINE_COUNT)
            pprof__ck_put(&c, r,
                          i < p->location_offs.len ? PPROF__AT(p->location_offs, uint64_t, i)
                                                   : PPROF_NO_OFFSET,
                          path,
                          "%s+0x%llx expands to %u line%s in %s but to %u line%s in %s "
                          "(location id %llu); expected one inline expansion per address "
                          "across files",
                          bname, (unsigned long long)off, l[i].n_line, l[i].n_line == 1 ? "" : "s",
                          nm, e->n_line, e->n_line == 1 ? "" : "s", other,
                          (unsigned long long)e->loc_id);
        else
            pprof__ck_put(&c, r,
                          i < p->location_offs.len ? PPROF__AT(p->location_offs, uint64_t, i)
                                                   : PPROF_NO_OFFSET,
                          path,
                          "%s+0x%llx has different function/file/line/column frames in %s than "
                          "in %s (location id %llu); expected the same symbolization across "
                          "files",
                          bname, (unsigned long long)off, nm, other, (unsigned long long)e->loc_id);
    }
    pprof__free(&p->alloc, bins);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return PPROF_OK;
}

pprof_status
pprof_inline_index_add(pprof_inline_index *x, const pprof_profile *cp, const char *name,
                       const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
                       pprof_check_summary *summary, pprof_error *err)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    pprof_status r = inline_index_add_full(x, cp, name, opts, fn, ctx, sum, err);
    pprof__sum_out(summary, sum);
    return r;
}
