/* One input's strings, mappings, functions and locations, mapped onto the merger's by content
 * (stage 1 of absorbing an input; see merge-private.h). */
#include "merge-private.h"

pprof_status
pprof__merge_bad(in_ctx *c, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->m->failed = PPROF_E_INVALID;
    return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path, "%s: %s", c->name, msg);
}

/* Maps an input string index; sets *out. */
pprof_status
pprof__merge_map_str(in_ctx *c, int64_t idx, uint32_t *out, const char *path_fmt, size_t a,
                     size_t b)
{
    const pprof_profile *p = c->p;
    if (idx == 0 && p->strings.len == 0) {
        *out = 0;
        return PPROF_OK;
    }
    if (idx < 0 || (uint64_t)idx >= p->strings.len) {
        char path[128];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        pprof__path(path, path_fmt, a, b);
#pragma GCC diagnostic pop
        return pprof__merge_bad(c, path,
                                "string index %lld is outside the string table of %zu entries",
                                (long long)idx, p->strings.len);
    }
    uint32_t *memo = &c->str_memo[idx];
    if (*memo == PPROF_NONE) {
        pprof_string s = PPROF__AT(p->strings, pprof_string, idx);
        if ((*memo = pprof__merge_intern(c->m, s.data, s.len)) == PPROF_NONE)
            return nomem(c->m, c->err);
    }
    *out = *memo;
    return PPROF_OK;
}

static uint64_t
mapping_size(const pprof_mapping *sm)
{
    uint64_t size = sm->memory_limit - sm->memory_start; /* wraps like Go's uint64 */
    size = size + 0xfff;
    return size - size % 0x1000;
}

pprof_status
pprof__merge_map_mapping(in_ctx *c, size_t mi)
{
    pprof_merger *m = c->m;
    const pprof_mapping *sm = &PPROF__AT(c->p->mappings, pprof_mapping, mi);
    uint32_t file, bid;
    pprof_status st;
    if ((st = pprof__merge_map_str(c, sm->filename, &file, "mapping[%zu].filename", mi, 0)) ||
        (st = pprof__merge_map_str(c, sm->build_id, &bid, "mapping[%zu].build_id", mi, 0)))
        return st;
    uint64_t size = mapping_size(sm);
    uint32_t key = bid ? bid : file;
    uint64_t h = pprof__mix64(pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(0, size), sm->file_offset), key));
    uint32_t h32 = (uint32_t)(h >> 32);
    if (pprof__htab_full(&m->map_ht) && !pprof__htab_reserve(&m->map_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx;
    HT_SCAN(&m->map_ht, h32, slot, idx,
            (PPROF__AT(m->mappings, mmapping, idx).size == size &&
             PPROF__AT(m->mappings, mmapping, idx).offset == sm->file_offset &&
             PPROF__AT(m->mappings, mmapping, idx).key_str == key));
    mmapping *mm;
    if (idx == PPROF_NONE) {
        if (!(mm = pprof__vec_push(&m->a, &m->mappings, sizeof(*mm))))
            return nomem(m, c->err);
        memset(mm, 0, sizeof(*mm));
        mm->size = size;
        mm->offset = sm->file_offset;
        mm->key_str = key;
        mm->start = sm->memory_start;
        mm->limit = sm->memory_limit;
        idx = (uint32_t)(m->mappings.len - 1);
        pprof__htab_insert_at(&m->map_ht, &slot, idx);
    } else {
        mm = &PPROF__AT(m->mappings, mmapping, idx);
        if (sm->memory_start < mm->start ||
            (sm->memory_start == mm->start && sm->memory_limit > mm->limit)) {
            mm->start = sm->memory_start;
            mm->limit = sm->memory_limit;
        }
    }
    mm->filename = min_nonempty(m, mm->filename, file);
    mm->build_id = min_nonempty(m, mm->build_id, bid);
    mm->has_functions |= sm->has_functions;
    mm->has_filenames |= sm->has_filenames;
    mm->has_line_numbers |= sm->has_line_numbers;
    mm->has_inline_frames |= sm->has_inline_frames;
    if (mi == 0)
        mm->main_candidate = true;
    c->map_memo[mi] = idx;
    return PPROF_OK;
}

static uint32_t
fn_hash(const mfunction *k)
{
    return (uint32_t)(pprof__mix64(pprof__hash_combine(
                          pprof__hash_combine(
                              pprof__hash_combine(pprof__hash_combine(1, k->name), k->system_name),
                              k->filename),
                          (uint64_t)k->start_line)) >>
                      32);
}

static uint32_t
fn_find(const pprof_merger *m, const mfunction *k, uint32_t h32, pprof__htab_probe *slot)
{
    const mfunction *fs = m->functions.data;
    uint32_t idx;
    HT_SCAN(&m->fn_ht, h32, *slot, idx,
            (fs[idx].name == k->name && fs[idx].system_name == k->system_name &&
             fs[idx].filename == k->filename && fs[idx].start_line == k->start_line));
    return idx;
}

static pprof_status
map_function(in_ctx *c, size_t fi, uint32_t *out)
{
    if (c->fn_memo[fi] != PPROF_NONE) {
        *out = c->fn_memo[fi];
        return PPROF_OK;
    }
    pprof_merger *m = c->m;
    const pprof_function *sf = &PPROF__AT(c->p->functions, pprof_function, fi);
    mfunction k = {0, 0, 0, sf->start_line};
    pprof_status st;
    if ((st = pprof__merge_map_str(c, sf->name, &k.name, "function[%zu].name", fi, 0)) ||
        (st = pprof__merge_map_str(c, sf->system_name, &k.system_name, "function[%zu].system_name",
                                   fi, 0)) ||
        (st = pprof__merge_map_str(c, sf->filename, &k.filename, "function[%zu].filename", fi, 0)))
        return st;
    uint32_t h32 = fn_hash(&k);
    if (pprof__htab_full(&m->fn_ht) && !pprof__htab_reserve(&m->fn_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx = fn_find(m, &k, h32, &slot);
    if (idx == PPROF_NONE) {
        mfunction *f = pprof__vec_push(&m->a, &m->functions, sizeof(*f));
        if (!f)
            return nomem(m, c->err);
        *f = k;
        idx = (uint32_t)(m->functions.len - 1);
        pprof__htab_insert_at(&m->fn_ht, &slot, idx);
    }
    *out = c->fn_memo[fi] = idx;
    return PPROF_OK;
}

static void
note_conflict(in_ctx *c, const mlocation *old, const mlocation *new_loc)
{
    pprof_merger *m = c->m;
    if (c->n_conflicts++ == 0) {
        const mmapping *mm = new_loc->mapping == PPROF_NONE
                                 ? NULL
                                 : &PPROF__AT(m->mappings, mmapping, new_loc->mapping);
        const pprof_string *f = mstr(m, mm ? mm->key_str : 0);
        snprintf(c->conflict_example, sizeof(c->conflict_example),
                 "mapping '%.*s' +0x%llx has %u line(s) in %s and %u in %s",
                 (int)(f->len > 80 ? 80 : f->len), f->data, (unsigned long long)new_loc->rel,
                 old->n_line, input_name(m, old->input), new_loc->n_line, c->name);
    }
}

/* The merged key of input location li in *key, its lines in m->tmp_lines, and its hash. With
 * add, functions not seen yet are added and a broken reference is an error; without, nothing is
 * added, nothing is reported, and *unresolved says that some function was not known yet. */
static pprof_status
loc_key(in_ctx *c, size_t li, bool add, mlocation *key, uint32_t *h32, bool *unresolved)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof__location *sl = &PPROF__AT(p->locations, pprof__location, li);
    mlocation k = {PPROF_NONE, 0, sl->n_line, c->input, sl->address, sl->is_folded};
    *unresolved = false;
    *h32 = 0;
    if (sl->mapping_id) {
        /* A dangling mapping id means "no mapping", as Go's decoder reads it. The key must
         * survive rebasing onto another start (the merged mapping's start is the lowest of its
         * contributions, so an intermediate merge may have a higher one than the final): the
         * output address is rel + start, which reads back as the same rel only when it cannot
         * wrap to or below the start. So an address below its mapping's start (outside it) is
         * kept as a raw address without the mapping, and address 0 ("no address") stays 0 and
         * shares offset 0 with the start itself. */
        uint32_t mi = pprof__idmap_find(&p->map_idx, sl->mapping_id);
        uint64_t start =
            mi == PPROF_NONE ? 0 : PPROF__AT(p->mappings, pprof_mapping, mi).memory_start;
        if (mi != PPROF_NONE && (sl->address == 0 || sl->address >= start)) {
            k.mapping = c->map_memo[mi];
            k.rel = sl->address ? sl->address - start : 0;
        }
    }
    m->tmp_lines.len = 0;
    if (sl->n_line > m->tmp_lines.cap &&
        !pprof__vec_grow(&m->a, &m->tmp_lines, sizeof(mline), sl->n_line))
        return nomem(m, c->err);
    mline *ln = m->tmp_lines.data;
    uint64_t h = pprof__hash_combine(
        pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(2, k.mapping), k.rel),
                            k.folded),
        k.n_line);
    for (uint32_t j = 0; j < sl->n_line; j++) {
        const pprof_line *sline = &PPROF__AT(p->lines, pprof_line, sl->line_off + j);
        uint32_t fi = pprof__idmap_find(&p->fn_idx, sline->function_id);
        if (fi == PPROF_NONE || (!add && c->fn_memo[fi] == PPROF_NONE)) {
            *unresolved = true;
            if (!add)
                return PPROF_OK;
            char path[128];
            pprof__path(path, "location[%zu].line[%u].function_id", li, j);
            return pprof__merge_bad(c, path, "function id %llu does not exist",
                                    (unsigned long long)sline->function_id);
        }
        if (!add) {
            ln[j].fn = c->fn_memo[fi];
        } else {
            pprof_status st = map_function(c, fi, &ln[j].fn);
            if (st)
                return st;
        }
        ln[j].line = sline->line;
        ln[j].column = sline->column;
        h = pprof__hash_combine(
            pprof__hash_combine(pprof__hash_combine(h, ln[j].fn), (uint64_t)ln[j].line),
            (uint64_t)ln[j].column);
    }
    *h32 = (uint32_t)(pprof__mix64(h) >> 32);
    *key = k;
    return PPROF_OK;
}

static uint32_t
loc_find(const pprof_merger *m, const mlocation *k, const mline *ln, uint32_t h32,
         pprof__htab_probe *slot)
{
    const mlocation *ls = m->locations.data;
    const mline *all = m->lines.data;
    uint32_t idx;
    HT_SCAN(&m->loc_ht, h32, *slot, idx,
            (ls[idx].mapping == k->mapping && ls[idx].rel == k->rel &&
             ls[idx].folded == k->folded && ls[idx].n_line == k->n_line &&
             lines_equal(all + ls[idx].line_off, ln, k->n_line)));
    return idx;
}

pprof_status
pprof__merge_map_location(in_ctx *c, size_t li, uint32_t *out)
{
    if (c->loc_memo[li] != PPROF_NONE) {
        *out = c->loc_memo[li];
        return PPROF_OK;
    }
    pprof_merger *m = c->m;
    mlocation k;
    uint32_t h32;
    bool unresolved;
    pprof_status st = loc_key(c, li, true, &k, &h32, &unresolved);
    if (st)
        return st;
    const mline *ln = m->tmp_lines.data;
    if (pprof__htab_full(&m->loc_ht) && !pprof__htab_reserve(&m->loc_ht, &m->a, 1))
        return nomem(m, c->err);
    pprof__htab_probe slot;
    uint32_t idx = loc_find(m, &k, ln, h32, &slot);
    if (idx == PPROF_NONE) {
        if (m->lines.len + k.n_line >= UINT32_MAX || m->locations.len >= UINT32_MAX - 1)
            return nomem(m, c->err);
        if (!pprof__vec_grow(&m->a, &m->lines, sizeof(mline), m->lines.len + k.n_line))
            return nomem(m, c->err);
        k.line_off = (uint32_t)m->lines.len;
        memcpy((mline *)m->lines.data + m->lines.len, ln, k.n_line * sizeof(mline));
        m->lines.len += k.n_line;
        mlocation *nl = pprof__vec_push(&m->a, &m->locations, sizeof(*nl));
        if (!nl)
            return nomem(m, c->err);
        *nl = k;
        idx = (uint32_t)(m->locations.len - 1);
        pprof__htab_insert_at(&m->loc_ht, &slot, idx);
        if (k.rel != 0) {
            uint64_t ha =
                pprof__mix64(pprof__hash_combine(pprof__hash_combine(3, k.mapping), k.rel));
            uint32_t a32 = (uint32_t)(ha >> 32);
            if (pprof__htab_full(&m->addr_ht) && !pprof__htab_reserve(&m->addr_ht, &m->a, 1))
                return nomem(m, c->err);
            uint32_t first;
            const mlocation *ls = m->locations.data;
            const mline *all = m->lines.data;
            HT_SCAN(&m->addr_ht, a32, slot, first,
                    (ls[first].mapping == k.mapping && ls[first].rel == k.rel));
            if (first == PPROF_NONE) {
                pprof__htab_insert_at(&m->addr_ht, &slot, idx);
            } else if (ls[first].n_line != k.n_line ||
                       !lines_equal(all + ls[first].line_off, all + k.line_off, k.n_line)) {
                note_conflict(c, &ls[first], &ls[idx]);
                if (m->o.inline_conflict == PPROF_INLINE_ERROR) {
                    char path[128];
                    pprof__path(path, "location[%zu]", li);
                    m->failed = PPROF_E_INVALID;
                    return pprof__error(c->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                        "inline conflict: %s", c->conflict_example);
                }
            }
        }
    }
    *out = c->loc_memo[li] = idx;
    return PPROF_OK;
}

/* Lookups of an input's entities that the merger holds go a group at a time: each needs its
 * table slot, then the entity there, then (strings, locations) what that points to, and each of
 * those reads was a cache miss (the tables are visited at random). Prefetching a step ahead for
 * the whole group overlaps those misses. */
#define PRE_GROUP 64

/* The entity at the same index in the input before (its memo, the hint) is tried first: inputs
 * of one program tend to list their tables in the same order, and a hit costs one comparison
 * where a lookup costs a hash and misses in a table far larger than the caches. A hint is only
 * taken when the entity equals it by content, which is what the lookup would have found (keys
 * are unique), so the merger ends up exactly as without hints. The hinted entities are
 * prefetched a group at a time like the lookups' (they lie at random in the merger's tables).
 * Inputs whose tables are in another order stop trying after a while. */
typedef struct hints {
    const uint32_t *memo;
    size_t n, tries, hits;
} hints;

/* The hints of group [base, base + k) in hint[] (PPROF_NONE: none, or no longer tried). */
static void
hints_of(hints *h, size_t base, size_t k, uint32_t *hint)
{
    if (h->tries >= PRE_GROUP && h->hits * 4 < h->tries)
        h->n = 0; /* few hits so far: this input's order differs */
    for (size_t i = 0; i < k; i++)
        hint[i] = base + i < h->n ? h->memo[base + i] : PPROF_NONE;
}

static void
preresolve_strings(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const pprof_string *xs = p->strings.data, *ms = m->strings.data;
    hints hs = {m->hint_str_memo, m->hint_str_memo ? m->hint_n_str : 0, 0, 0};
    uint32_t h[PRE_GROUP], cand[PRE_GROUP], miss[PRE_GROUP], hint[PRE_GROUP];
    for (size_t base = 0; base < p->strings.len; base += PRE_GROUP) {
        size_t k = p->strings.len - base < PRE_GROUP ? p->strings.len - base : PRE_GROUP, n = 0;
        hints_of(&hs, base, k, hint);
        for (size_t i = 0; i < k; i++)
            if (hint[i] != PPROF_NONE)
                __builtin_prefetch(&ms[hint[i]]);
        for (size_t i = 0; i < k; i++)
            if (hint[i] != PPROF_NONE)
                __builtin_prefetch(ms[hint[i]].data);
        for (size_t i = 0; i < k; i++) {
            const pprof_string *x = &xs[base + i];
            if (hint[i] != PPROF_NONE) {
                hs.tries++;
                if (ms[hint[i]].len == x->len &&
                    (x->len == 0 || !memcmp(ms[hint[i]].data, x->data, x->len))) {
                    c->str_memo[base + i] = hint[i];
                    hs.hits++;
                    continue;
                }
            }
            miss[n++] = (uint32_t)(base + i);
        }
        for (size_t i = 0; i < n; i++) {
            h[i] = str_hash(xs[miss[i]].data, xs[miss[i]].len);
            pprof__htab_prefetch(&m->str_ht, h[i]);
        }
        for (size_t i = 0; i < n; i++)
            if ((cand[i] = pprof__htab_peek(&m->str_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&ms[cand[i]]);
        for (size_t i = 0; i < n; i++)
            if (cand[i] != PPROF_NONE)
                __builtin_prefetch(ms[cand[i]].data);
        for (size_t i = 0; i < n; i++) {
            pprof__htab_probe slot;
            const pprof_string *x = &xs[miss[i]];
            c->str_memo[miss[i]] = pprof__merge_str_find(m, x->data, x->len, h[i], &slot);
        }
    }
}

/* Returns how many of the input's functions were found. */
static size_t
preresolve_functions(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    size_t ns = p->strings.len, nf = p->functions.len, found = 0;
    const pprof_function *fs = p->functions.data;
    const mfunction *mf = m->functions.data;
    hints hs = {m->hint_fn_memo, m->hint_fn_memo ? m->hint_n_fn : 0, 0, 0};
    mfunction key[PRE_GROUP];
    uint32_t h[PRE_GROUP], cand, hint[PRE_GROUP];
    for (size_t base = 0; base < nf; base += PRE_GROUP) {
        size_t k = nf - base < PRE_GROUP ? nf - base : PRE_GROUP;
        hints_of(&hs, base, k, hint);
        for (size_t i = 0; i < k; i++)
            if (hint[i] != PPROF_NONE)
                __builtin_prefetch(&mf[hint[i]]);
        for (size_t i = 0; i < k; i++) {
            const pprof_function *sf = &fs[base + i];
            h[i] = 0;
            key[i].name = PPROF_NONE;
            if (sf->name < 0 || (uint64_t)sf->name >= ns || sf->system_name < 0 ||
                (uint64_t)sf->system_name >= ns || sf->filename < 0 || (uint64_t)sf->filename >= ns)
                continue;
            mfunction x = {c->str_memo[sf->name], c->str_memo[sf->system_name],
                           c->str_memo[sf->filename], sf->start_line};
            if (x.name == PPROF_NONE || x.system_name == PPROF_NONE || x.filename == PPROF_NONE)
                continue;
            if (hint[i] != PPROF_NONE) {
                const mfunction *y = &mf[hint[i]];
                hs.tries++;
                if (y->name == x.name && y->system_name == x.system_name &&
                    y->filename == x.filename && y->start_line == x.start_line) {
                    c->fn_memo[base + i] = hint[i];
                    hs.hits++;
                    found++;
                    continue;
                }
            }
            key[i] = x;
            h[i] = fn_hash(&x);
            pprof__htab_prefetch(&m->fn_ht, h[i]);
        }
        for (size_t i = 0; i < k; i++)
            if (key[i].name != PPROF_NONE &&
                (cand = pprof__htab_peek(&m->fn_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&mf[cand]);
        for (size_t i = 0; i < k; i++) {
            if (key[i].name == PPROF_NONE)
                continue;
            pprof__htab_probe slot;
            c->fn_memo[base + i] = fn_find(m, &key[i], h[i], &slot);
            found += c->fn_memo[base + i] != PPROF_NONE;
        }
    }
    return found;
}

/* Whether merged location idx has key k with lines ln (loc_find's equality). */
static bool
loc_is(const pprof_merger *m, uint32_t idx, const mlocation *k, const mline *ln)
{
    const mlocation *x = &PPROF__AT(m->locations, mlocation, idx);
    return x->mapping == k->mapping && x->rel == k->rel && x->folded == k->folded &&
           x->n_line == k->n_line &&
           lines_equal((const mline *)m->lines.data + x->line_off, ln, k->n_line);
}

static void
preresolve_locations(in_ctx *c)
{
    const pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    const mlocation *ml = m->locations.data;
    const mline *lines = m->lines.data;
    hints hs = {m->hint_loc_memo, m->hint_loc_memo ? m->hint_n_loc : 0, 0, 0};
    uint32_t h[PRE_GROUP], cand[PRE_GROUP], hint[PRE_GROUP];
    bool ok[PRE_GROUP];
    for (size_t base = 0; base < p->locations.len; base += PRE_GROUP) {
        size_t k = p->locations.len - base < PRE_GROUP ? p->locations.len - base : PRE_GROUP;
        mlocation key;
        bool unresolved;
        hints_of(&hs, base, k, hint);
        for (size_t i = 0; i < k; i++)
            if (hint[i] != PPROF_NONE)
                __builtin_prefetch(&ml[hint[i]]);
        for (size_t i = 0; i < k; i++)
            if (hint[i] != PPROF_NONE)
                __builtin_prefetch(&lines[ml[hint[i]].line_off]);
        for (size_t i = 0; i < k; i++) {
            ok[i] = !loc_key(c, base + i, false, &key, &h[i], &unresolved) && !unresolved;
            if (!ok[i])
                continue;
            if (hint[i] != PPROF_NONE) {
                hs.tries++;
                if (loc_is(m, hint[i], &key, m->tmp_lines.data)) {
                    c->loc_memo[base + i] = hint[i];
                    hs.hits++;
                    ok[i] = false;
                    continue;
                }
            }
            pprof__htab_prefetch(&m->loc_ht, h[i]);
        }
        for (size_t i = 0; i < k; i++)
            if (ok[i] && (cand[i] = pprof__htab_peek(&m->loc_ht, h[i])) != PPROF_NONE)
                __builtin_prefetch(&ml[cand[i]]);
            else
                cand[i] = PPROF_NONE;
        for (size_t i = 0; i < k; i++)
            if (cand[i] != PPROF_NONE)
                __builtin_prefetch(&lines[ml[cand[i]].line_off]);
        /* The keys again (cheap: the input's own tables, now cached) rather than kept. */
        for (size_t i = 0; i < k; i++) {
            if (!ok[i] || loc_key(c, base + i, false, &key, &h[i], &unresolved) || unresolved)
                continue;
            pprof__htab_probe slot;
            c->loc_memo[base + i] = loc_find(m, &key, m->tmp_lines.data, h[i], &slot);
        }
    }
}

/* Before an input's samples are mapped (in their order, which visits the tables at random),
 * its strings, functions and locations that the merger already holds are looked up in table
 * order. Only lookups: nothing is added and nothing is reported (what does not resolve is left
 * to the samples, which add it, warn and word errors as before), so the merger ends up exactly
 * as without this pass. Locations are skipped when few functions were found (an input of
 * another program). */
void
pprof__merge_preresolve(in_ctx *c)
{
    const pprof_merger *m = c->m;
    if (m->n_inputs == 0 || !m->str_ht.mask || !m->fn_ht.mask || !m->loc_ht.mask)
        return; /* nothing to find */
    preresolve_strings(c);
    size_t found = preresolve_functions(c);
    if (found * 2 < c->p->functions.len)
        return;
    preresolve_locations(c);
}
