/* N-way merge with content keys and canonical output (google/pprof profile.Merge semantics with
 * the deviations listed in docs/merge.md).
 *
 * Every entity the merger holds is keyed by content only; merger-internal indices (string ids,
 * mapping/function/location/sample indices) depend on the order of the inputs, so they never
 * reach the output: finish sorts each table by content and numbers it from that order. Every
 * per-entity attribute that is not part of a key is combined with a commutative, associative
 * rule (min, max, or, sum) so the result is the same for any order and grouping. */
#include "merge-private.h"

/* The string with these bytes, or PPROF_NONE; *slot is where it would go. */
uint32_t
pprof__merge_str_find(const pprof_merger *m, const char *data, size_t len, uint32_t h32,
                      pprof__htab_probe *slot)
{
    uint32_t idx;
    HT_SCAN(&m->str_ht, h32, *slot, idx,
            (mstr(m, idx)->len == len && (len == 0 || !memcmp(mstr(m, idx)->data, data, len))));
    return idx;
}

/* Interns by content; returns PPROF_NONE when out of memory. */
uint32_t
pprof__merge_intern(pprof_merger *m, const char *data, size_t len)
{
    if (pprof__htab_full(&m->str_ht) && !pprof__htab_reserve(&m->str_ht, &m->a, 1))
        return PPROF_NONE;
    uint32_t h32 = str_hash(data, len);
    pprof__htab_probe slot;
    uint32_t idx = pprof__merge_str_find(m, data, len, h32, &slot);
    if (idx != PPROF_NONE)
        return idx;
    if (m->strings.len >= UINT32_MAX - 1)
        return PPROF_NONE;
    char *copy = pprof__arena_alloc(&m->arena, len ? len : 1);
    pprof_string *s = pprof__vec_push(&m->a, &m->strings, sizeof(*s));
    if (!copy || !s)
        return PPROF_NONE;
    if (len)
        memcpy(copy, data, len);
    s->data = copy;
    s->len = len;
    idx = (uint32_t)(m->strings.len - 1);
    pprof__htab_insert_at(&m->str_ht, &slot, idx);
    return idx;
}

static bool
batch_init(pprof_merger *m, int k)
{
    merge_batch *b = &m->batch[k];
    return pprof__vec_grow(&m->a, &b->q, sizeof(psample), 16) &&
           pprof__vec_grow(&m->a, &b->stk, sizeof(uint32_t), 16) &&
           pprof__vec_grow(&m->a, &b->lab, sizeof(mlabel), 16) &&
           pprof__vec_grow(&m->a, &b->val, sizeof(int64_t), 16);
}

static void
drop_kept_memos(pprof_merger *m)
{
    pprof__free(&m->a, m->kept_str_memo);
    pprof__free(&m->a, m->kept_fn_memo);
    pprof__free(&m->a, m->kept_loc_memo);
    m->kept_str_memo = m->kept_fn_memo = m->kept_loc_memo = NULL;
}

static void
drop_hints(pprof_merger *m)
{
    pprof__free(&m->a, m->hint_str_memo);
    pprof__free(&m->a, m->hint_fn_memo);
    pprof__free(&m->a, m->hint_loc_memo);
    m->hint_str_memo = m->hint_fn_memo = m->hint_loc_memo = NULL;
    m->hint_n_str = m->hint_n_fn = m->hint_n_loc = 0;
}

void
pprof_merger_free(pprof_merger *m)
{
    if (!m)
        return;
    pprof__merge_s2_stop(m);
    pprof__prefault_join(&m->s2_pf);
    pprof__pool_free(m->pool);
    drop_kept_memos(m);
    drop_hints(m);
    const pprof_allocator a = m->a;
    pprof__vec *vecs[] = {&m->strings,      &m->mappings,     &m->functions,    &m->locations,
                          &m->lines,        &m->samples,      &m->stack,        &m->labels,
                          &m->values,       &m->names,        &m->types,        &m->comments,
                          &m->type_bad,     &m->tmp_lines,    &m->stacks,       &m->batch[0].q,
                          &m->batch[0].stk, &m->batch[0].lab, &m->batch[0].val, &m->batch[1].q,
                          &m->batch[1].stk, &m->batch[1].lab, &m->batch[1].val, &m->carries};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&a, vecs[i]->data);
    pprof__htab *hts[] = {&m->str_ht,  &m->map_ht,    &m->fn_ht,    &m->loc_ht,
                          &m->addr_ht, &m->sample_ht, &m->stack_ht, &m->carry_ht};
    for (size_t i = 0; i < sizeof(hts) / sizeof(hts[0]); i++)
        pprof__free(&a, hts[i]->slot);
    pprof__arena_destroy(&m->arena);
    struct pprof__blocks *blocks = m->blocks;
    pprof__free(&m->o.allocator, m);
    pprof__blocks_release(blocks);
}

void
pprof_merge_options_init(pprof_merge_options *opts)
{
    if (!opts)
        return;
    const pprof_merge_options def = PPROF_MERGE_OPTIONS_INIT;
    *opts = def;
}

pprof_status
pprof_merger_new(const pprof_merge_options *opts, pprof_merger **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    *out = NULL;
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    if ((unsigned)o.inline_conflict > PPROF_INLINE_ERROR)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown inline policy %d",
                            (int)o.inline_conflict);
    pprof_merger *m = pprof__malloc(&o.allocator, sizeof(*m));
    if (!m)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(m, 0, sizeof(*m));
    m->o = o;
    m->a = o.allocator;
    /* A merge allocates and frees tables of every size for each input: without a caller's
     * allocator they come from blocks in huge pages (memory-private.h). */
    if (!pprof__allocator_custom(&o.allocator) && (m->blocks = pprof__blocks_new()))
        m->a = pprof__blocks_allocator(m->blocks);
    pprof__arena_init(&m->arena, &m->a);
    /* Stage 2 and a prefault walk may each hold a worker while a parallel loop uses threads - 1
     * more, as many threads as each of them once started for itself. Without a pool (threads
     * < 2, or no memory for it) the merger works alone. */
    unsigned loop_threads = o.threads < PPROF__PAR_MAX ? o.threads : PPROF__PAR_MAX;
    m->pool = o.threads >= 2 ? pprof__pool_new(loop_threads + 1) : NULL;
    /* Pre-sized so that no table's data pointer is ever NULL (offset arithmetic on it). */
    if (pprof__merge_intern(m, "", 0) != 0 || /* "" is string 0, so 0 means "unset" everywhere */
        !pprof__vec_grow(&m->a, &m->lines, sizeof(mline), 16) ||
        !pprof__vec_grow(&m->a, &m->stack, sizeof(uint32_t), 16) ||
        !pprof__vec_grow(&m->a, &m->labels, sizeof(mlabel), 16) ||
        !pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), 16) ||
        !pprof__vec_grow(&m->a, &m->tmp_lines, sizeof(mline), 16) || !batch_init(m, 0) ||
        !batch_init(m, 1)) {
        pprof_merger_free(m);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    *out = m;
    return PPROF_OK;
}

void
pprof__merger_blocks(const pprof_merger *m, pprof_allocator *a)
{
    if (m->blocks)
        *a = m->a;
}

size_t
pprof_merger_count(const pprof_merger *m)
{
    return m ? m->n_inputs : 0;
}

static void warn(pprof_merger *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(pprof_merger *m, const char *fmt, ...)
{
    if (!m->o.warn)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    m->o.warn(m->o.warn_ctx, buf);
}

/* Room for everything p could add to stage 1's tables, made up front: growing step by step while
 * absorbing rehashes the tables and copies the arrays several times over. */
static bool
reserve_for(pprof_merger *m, const pprof_profile *p, bool continues)
{
    const pprof_allocator *a = &m->a;
    size_t nl = p->locations.len;
    /* stage 2's tables: pprof__merge_absorb_all_samples, once stage 2 is idle */
    if (continues) /* the tables took all they could from the batch before */
        return true;
    return pprof__htab_reserve(&m->str_ht, a, p->strings.len) &&
           pprof__htab_reserve(&m->map_ht, a, p->mappings.len) &&
           pprof__htab_reserve(&m->fn_ht, a, p->functions.len) &&
           pprof__htab_reserve(&m->loc_ht, a, nl) && pprof__htab_reserve(&m->addr_ht, a, nl) &&
           pprof__vec_grow(a, &m->strings, sizeof(pprof_string), m->strings.len + p->strings.len) &&
           pprof__vec_grow(a, &m->functions, sizeof(mfunction),
                           m->functions.len + p->functions.len) &&
           pprof__vec_grow(a, &m->locations, sizeof(mlocation), m->locations.len + nl) &&
           pprof__vec_grow(a, &m->lines, sizeof(mline), m->lines.len + p->lines.len);
}

/* Stage 1 visits an input's tables in the order its samples name them, and another thread
 * decoded them, so nearly every first visit would be a cache miss (a location, its lines, their
 * functions, their strings). Reading the tables as streams first lets those visits hit; it pays
 * for many small inputs (docs/bench/core.md). Tables beyond any cache gain nothing and are left. */
#define WARM_MAX ((size_t)16 << 20)

static void
warm_input(const pprof_profile *p)
{
    size_t nloc = p->locations.len * sizeof(pprof__location),
           nline = p->lines.len * sizeof(pprof_line),
           nfn = p->functions.len * sizeof(pprof_function),
           nstr = p->strings.len * sizeof(pprof_string);
    if (nloc + nline + nfn + 2 * nstr > WARM_MAX)
        return;
    prefetch_range(p->locations.data, nloc);
    prefetch_range(p->lines.data, nline);
    prefetch_range(p->functions.data, nfn);
    prefetch_range(p->strings.data, nstr);
    uintptr_t last = 0; /* the bytes, one prefetch per cache line they start in */
    for (size_t i = 0; i < p->strings.len; i++) {
        const char *d = PPROF__AT(p->strings, pprof_string, i).data;
        if ((uintptr_t)d >> 6 != last) {
            __builtin_prefetch(d);
            last = (uintptr_t)d >> 6;
        }
    }
}

/* The memos of in_ctx c: taken over from the batch before when it continues its tables, else
 * fresh; false when out of memory. */
static bool
memos(pprof_merger *m, in_ctx *c, bool continues)
{
    const pprof_profile *p = c->p;
    if (continues && m->kept_str_memo && m->kept_n_str == p->strings.len &&
        m->kept_n_fn == p->functions.len && m->kept_n_loc == p->locations.len) {
        c->str_memo = m->kept_str_memo;
        c->fn_memo = m->kept_fn_memo;
        c->loc_memo = m->kept_loc_memo;
        m->kept_str_memo = m->kept_fn_memo = m->kept_loc_memo = NULL;
        return true;
    }
    drop_kept_memos(m);
    c->str_memo = pprof__malloc(&m->a, (p->strings.len + 1) * sizeof(uint32_t));
    c->fn_memo = pprof__malloc(&m->a, (p->functions.len + 1) * sizeof(uint32_t));
    c->loc_memo = pprof__malloc(&m->a, (p->locations.len + 1) * sizeof(uint32_t));
    if (!c->str_memo || !c->fn_memo || !c->loc_memo)
        return false;
    memset(c->str_memo, 0xff, (p->strings.len + 1) * sizeof(uint32_t));
    memset(c->fn_memo, 0xff, (p->functions.len + 1) * sizeof(uint32_t));
    memset(c->loc_memo, 0xff, (p->locations.len + 1) * sizeof(uint32_t));
    return true;
}

/* batch: p is a batch of samples of a larger input (its memos are kept for the next batch);
 * continues: p has the tables of the batch added last, whose memos are taken over; in: the
 * merge input p comes from, whose decoding thread may have checked parts of it, or NULL. */
static pprof_status
add(pprof_merger *m, const pprof_profile *p, const char *name, bool batch, bool continues,
    bool valid, const pprof_merge_input *in, pprof_error *err)
{
    if (!m || !p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no profile");
    if (m->failed)
        return pprof__error(err, m->failed, PPROF_NO_OFFSET, "",
                            "the merger failed earlier and cannot be used");
    if (m->n_inputs >= UINT32_MAX - 1)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "", "too many inputs");
    char anon[32];
    if (!name) {
        snprintf(anon, sizeof(anon), "input #%zu", m->n_inputs + 1);
        name = anon;
    }
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;

    size_t nl = strlen(name);
    char *name_copy = pprof__arena_alloc(&m->arena, nl + 1);
    const char **slot = pprof__vec_push(&m->a, &m->names, sizeof(const char *));
    if (!name_copy || !slot)
        return nomem(m, err);
    memcpy(name_copy, name, nl + 1);
    *slot = name_copy;

    in_ctx c = {.m = m, .p = p, .name = name_copy, .input = (uint32_t)m->n_inputs, .err = err};
    /* the one validity decision (validate.c) before anything is absorbed; a merge input's
     * samples are checked a batch at a time as they are decoded */
    c.validate_samples = !batch && !valid && p->lazy.len;
    c.first_batch_valid = in && in->first_batch_valid;
    if (!batch && !valid && !(in && in->tables_valid && p->lazy.len) &&
        (st = p->lazy.len ? pprof__validate_part(p, PPROF__VALIDATE_TABLES, 0, name_copy, err)
                          : pprof__validate(p, name_copy, err))) {
        if (st != PPROF_E_NOMEM)
            m->failed = st;
        return st == PPROF_E_NOMEM ? nomem(m, err) : st;
    }
    size_t n_types = p->sample_types.len;
    continues = continues && batch;
    bool fresh = !memos(m, &c, continues);
    c.map_memo = pprof__malloc(&m->a, (p->mappings.len + 1) * sizeof(uint32_t));
    c.col_of = pprof__malloc(&m->a, (n_types + 1) * sizeof(int32_t));
    uint32_t *types = pprof__malloc(&m->a, (2 * n_types + 1) * sizeof(uint32_t));
    if (fresh || !c.map_memo || !c.col_of || !types) {
        st = nomem(m, err);
        goto done;
    }
    if ((st = pprof__merge_check_ids(&c)))
        goto done;
    if (!reserve_for(m, p, continues)) {
        st = nomem(m, err);
        goto done;
    }
    for (size_t i = 0; i < n_types; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        if ((st =
                 pprof__merge_map_str(&c, vt.type, &types[2 * i], "sample_type[%zu].type", i, 0)) ||
            (st = pprof__merge_map_str(&c, vt.unit, &types[2 * i + 1], "sample_type[%zu].unit", i,
                                       0)))
            goto done;
    }
    if ((st = pprof__merge_absorb_header(&c)) ||
        (st = pprof__merge_absorb_types(&c, types, n_types)))
        goto done;
    /* Every mapping is kept (not only referenced ones) so that the canonical base address of a
     * mapping never depends on which samples cancelled out in an intermediate merge. */
    for (size_t i = 0; i < p->mappings.len; i++)
        if ((st = pprof__merge_map_mapping(&c, i)))
            goto done;
    /* A batch's memos hold only what its samples named: a location's key depends on its
     * mapping, which a batch leaves out when none of its samples uses it, so a location looked
     * up ahead (preresolve) for one batch could be keyed differently in the next. */
    if (!batch) {
        warm_input(p);
        pprof__merge_preresolve(&c);
    }
    if ((st = pprof__merge_absorb_all_samples(&c)))
        goto done;
    if (c.n_conflicts)
        warn(m,
             "%s: inline conflict at %zu location(s): the same address expands into different "
             "inline frames (policy %s); e.g. %s",
             c.name, c.n_conflicts,
             m->o.inline_conflict == PPROF_INLINE_LONGEST ? "longest" : "keep", c.conflict_example);
    m->n_inputs++;
done:
    if (batch && !st) {
        m->kept_str_memo = c.str_memo;
        m->kept_fn_memo = c.fn_memo;
        m->kept_loc_memo = c.loc_memo;
        m->kept_n_str = p->strings.len;
        m->kept_n_fn = p->functions.len;
        m->kept_n_loc = p->locations.len;
    } else if (!batch && !st) {
        drop_hints(m);
        m->hint_str_memo = c.str_memo;
        m->hint_fn_memo = c.fn_memo;
        m->hint_loc_memo = c.loc_memo;
        m->hint_n_str = p->strings.len;
        m->hint_n_fn = p->functions.len;
        m->hint_n_loc = p->locations.len;
    } else {
        pprof__free(&m->a, c.str_memo);
        pprof__free(&m->a, c.fn_memo);
        pprof__free(&m->a, c.loc_memo);
    }
    pprof__free(&m->a, c.map_memo);
    pprof__free(&m->a, c.col_of);
    pprof__free(&m->a, types);
    if (st && !m->failed)
        m->failed = st;
    return st;
}

pprof_status
pprof_merger_add(pprof_merger *m, const pprof_profile *p, const char *name, pprof_error *err)
{
    return add(m, p, name, false, false, false, NULL, err);
}

pprof_status
pprof__merger_add_valid(pprof_merger *m, const pprof_profile *p, const char *name, pprof_error *err)
{
    return add(m, p, name, false, false, true, NULL, err);
}

pprof_status
pprof__merger_add_batch(pprof_merger *m, const pprof_profile *p, bool continues, pprof_error *err)
{
    return add(m, p, NULL, true, continues, true, NULL, err);
}

pprof_status
pprof_merger_add_input(pprof_merger *m, pprof_merge_input *in, const char *name, pprof_error *err)
{
    if (!in)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merge input");
    return add(m, in->p, name, false, false, false, in, err);
}

pprof_status
pprof_merge(const pprof_profile *const *profiles, const char *const *names, size_t n,
            const pprof_merge_options *opts, pprof_profile **out, pprof_error *err)
{
    if (!out || (n && !profiles))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    pprof_merger *m;
    pprof_status st = pprof_merger_new(opts, &m, err);
    for (size_t i = 0; st == PPROF_OK && i < n; i++)
        st = pprof_merger_add(m, profiles[i], names ? names[i] : NULL, err);
    if (st == PPROF_OK)
        st = pprof_merger_finish(m, out, err);
    pprof_merger_free(m);
    return st;
}
