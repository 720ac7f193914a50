/* The merge plan (canonical order, kept samples and entities, output ids) and its two ends: a
 * profile (pprof_merger_finish) or a stream the encoder pulls samples from
 * (pprof_merger_write_*). */
#include "merge-private.h"

static bool
lines_same(const pprof_merger *m, const mlocation *a, const mlocation *b)
{
    return a->n_line == b->n_line &&
           lines_equal((const mline *)m->lines.data + a->line_off,
                       (const mline *)m->lines.data + b->line_off, a->n_line);
}

/* The loops of finish that may run on several threads (m->o.threads): each writes only its own
 * range of the output, so the result does not depend on the split. */

typedef struct fill_job {
    const merge_ranks *f;
    const uint32_t *stord;
    const uint8_t *live;
    const uint32_t *ostk_off, *lout;
    uint64_t *ostk;
} fill_job;

/* Output location ids of the first stack of each live rank, at the rank's offset. */
static void
fill_stacks(void *c, size_t lo, size_t hi)
{
    const fill_job *j = c;
    const merge_ranks *f = j->f;
    const uint32_t *stack = f->m->stack.data;
    for (size_t i = lo; i < hi; i++) {
        uint32_t r = f->strank[j->stord[i]];
        if (!j->live[r] || (i && f->strank[j->stord[i - 1]] == r))
            continue;
        const mstack *x = &PPROF__AT(f->m->stacks, mstack, j->stord[i]);
        uint64_t *o = j->ostk + j->ostk_off[r];
        for (uint32_t k = 0; k < x->n; k++)
            o[k] = j->lout[f->target[stack[x->off + k]]];
    }
}

typedef struct out_job {
    const merge_ranks *f;
    const uint32_t *sout, *soff, *ostk_off;
    pprof__sample *osam;
    pprof_label *olab;
    size_t nt;
} out_job;

static void
out_samples(void *c, size_t lo, size_t hi)
{
    const out_job *j = c;
    const merge_ranks *f = j->f;
    const msample *ss = f->m->samples.data;
    for (size_t i = lo; i < hi; i++) {
        if (i + 16 < hi) /* canonical order visits the samples at random */
            __builtin_prefetch(&ss[j->sout[i + 16]]);
        if (i + 8 < hi) /* and their labels */
            __builtin_prefetch((const mlabel *)f->m->labels.data + ss[j->sout[i + 8]].lab_off);
        const msample *s = &ss[j->sout[i]];
        pprof__sample *o = &j->osam[i];
        o->loc_off = j->ostk_off[f->strank[s->stack]];
        o->n_loc = PPROF__AT(f->m->stacks, mstack, s->stack).n;
        o->val_off = (uint32_t)(i * j->nt);
        o->n_val = (uint32_t)j->nt;
        o->lab_off = j->soff[i];
        o->n_lab = s->n_lab;
        const mlabel *ml = (const mlabel *)f->m->labels.data + s->lab_off;
        const uint32_t *r = f->srank;
        pprof_label *ol = j->olab + j->soff[i];
        for (uint32_t k = 0; k < s->n_lab; k++) {
            pprof_label x = {r[ml[k].key], r[ml[k].str], ml[k].num, r[ml[k].unit]};
            ol[k] = x;
        }
    }
}

static void
gen_sample(void *ctx, size_t i, pprof_sample *out, bool *same, const uint8_t **packed,
           size_t *packed_len)
{
    sample_gen *g = ctx;
    const pprof_merger *m = g->f->m;
    const msample *ss = m->samples.data;
    const mlabel *labs = m->labels.data;
    const uint32_t *stack = m->stack.data;
    const mstack *sts = m->stacks.data;
    /* canonical order visits the samples at random: records, then their stacks and labels */
    if (i + 16 < g->n)
        __builtin_prefetch(&ss[g->sout[i + 16]]);
    if (i + 8 < g->n) {
        const msample *ahead = &ss[g->sout[i + 8]];
        __builtin_prefetch(&sts[ahead->stack]);
        __builtin_prefetch(&labs[ahead->lab_off]);
        if (!g->vals)
            __builtin_prefetch((const int64_t *)m->values.data + (size_t)g->sout[i + 8] * g->nt);
    }
    if (i + 4 < g->n) { /* the whole stack: deep ones span several lines */
        const mstack *xa = &sts[ss[g->sout[i + 4]].stack];
        prefetch_range(&stack[xa->off], xa->n * sizeof(uint32_t));
    }
    const msample *s = &ss[g->sout[i]];
    const mstack *x = &sts[s->stack];
    const uint32_t *r = g->f->srank;
    *same = s->stack == g->loc_sid;
    if (!*same) {
        uint8_t *q = g->packed;
        for (uint32_t k = 0; k < x->n; k++) {
            uint64_t w = g->lenc[stack[x->off + k]];
            memcpy(q, &w, 8); /* the slack takes the bytes past the varint */
            q += w >> 56;
        }
        g->packed_len = (size_t)(q - g->packed);
        g->loc_sid = s->stack;
    }
    *packed = g->packed;
    *packed_len = g->packed_len;
    const mlabel *ml = labs + s->lab_off;
    for (uint32_t k = 0; k < s->n_lab; k++) {
        pprof_label l = {r[ml[k].key], r[ml[k].str], ml[k].num, r[ml[k].unit]};
        g->lab[k] = l;
    }
    const int64_t *v = g->vals ? g->vals + i * g->nt
                               : (const int64_t *)m->values.data + (size_t)g->sout[i] * g->nt;
    pprof_sample o = {NULL, x->n, v, g->nt, g->lab, s->n_lab};
    *out = o;
}

static pprof_status emit(pprof_merger *m, const merge_sink *sink, pprof_profile **out,
                         pprof_error *err);

/* Adds sample's carries to cy (one per column); *first keeps the first carry seen. */
static void
carries_of(const pprof_merger *m, uint32_t sample, size_t nt, int64_t *cy, const carry **first)
{
    for (size_t t = 0; m->carries.len && t < nt; t++) {
        const carry *c = pprof__merge_carry_find(m, (uint64_t)sample * nt + t);
        if (c) {
            cy[t] += c->n;
            if (!*first && c->n)
                *first = c;
        }
    }
}

/* A summed value left int64: names the type, the leaf function and, when the sums of one input
 * wrapped, that input and its sample with the first wrapping addition. */
static pprof_status
overflow_error(const pprof_merger *m, const carry *c, uint32_t sample, size_t t, pprof_error *err)
{
    const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, t);
    const pprof_string *tn = mstr(m, (uint32_t)vt->type);
    const pprof_string *leaf = mstr(m, 0);
    const mstack *x = &PPROF__AT(m->stacks, mstack, PPROF__AT(m->samples, msample, sample).stack);
    if (x->n) {
        const mlocation *l0 =
            &PPROF__AT(m->locations, mlocation, PPROF__AT(m->stack, uint32_t, x->off));
        if (l0->n_line)
            leaf = mstr(
                m, PPROF__AT(m->functions, mfunction, PPROF__AT(m->lines, mline, l0->line_off).fn)
                       .name);
    }
    char path[128] = "";
    char first[200] = "after inline expansions were unified";
    if (c) {
        snprintf(path, sizeof(path), "sample[%u]", c->si);
        snprintf(first, sizeof(first), "first past the limit in %s (%lld + %lld)",
                 input_name(m, c->input), (long long)c->sum, (long long)c->add);
    }
    return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                        "%.*s total of the sample with leaf '%.*s' overflows int64: %s",
                        (int)(tn->len > 40 ? 40 : tn->len), tn->data,
                        (int)(leaf->len > 80 ? 80 : leaf->len), leaf->data, first);
}

pprof_status
pprof_merger_finish(pprof_merger *m, pprof_profile **out, pprof_error *err)
{
    if (!m || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no output");
    *out = NULL;
    return emit(m, NULL, out, err);
}

/* Fills the caller's summary up to its struct_size. */
static void
summary_out(pprof_merge_summary *sum, const pprof_merge_summary *local)
{
    if (!sum)
        return;
    size_t keep = sum->struct_size;
    memcpy(sum, local, keep < sizeof(*local) ? keep : sizeof(*local));
    sum->struct_size = keep;
}

pprof_status
pprof_merger_write_file(pprof_merger *m, const pprof_write_options *opts, const char *path,
                        pprof_merge_summary *sum, pprof_error *err)
{
    if (!m || !path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no path");
    pprof_merge_summary local = PPROF_MERGE_SUMMARY_INIT;
    merge_sink sink = {path, NULL, opts, sum ? &local : NULL};
    pprof_status st = emit(m, &sink, NULL, err);
    summary_out(sum, &local);
    return st;
}

pprof_status
pprof_merger_write_memory(pprof_merger *m, const pprof_write_options *opts, pprof_buffer *out,
                          pprof_merge_summary *sum, pprof_error *err)
{
    if (!m || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no output");
    pprof_merge_summary local = PPROF_MERGE_SUMMARY_INIT;
    merge_sink sink = {NULL, out, opts, sum ? &local : NULL};
    pprof_status st = emit(m, &sink, NULL, err);
    summary_out(sum, &local);
    return st;
}

/* What finish works out before it builds anything: each table's canonical order and ranks (f),
 * which samples are kept and in what order, which locations and functions they reach, and the
 * output ids. Both ends use it: a profile (pprof_merger_finish) or a stream that the encoder
 * pulls the samples from (pprof_merger_write_*). */
typedef struct merge_plan {
    merge_ranks f;
    const merge_sink *sink; /* NULL: build a profile */
    size_t ns, nm, nf, nl, nsm, nt, nst, n_ranks;
    uint32_t *scratch; /* max(ns, nm, nf, nl, nsm) + 1 entries, for the sorts */
    uint32_t *str_order, *map_order, *fn_order, *loc_order, *stack_order;
    uint32_t *sample_order;   /* every merged sample, canonical order */
    uint8_t *loc_used;        /* policy longest: some sample with a non-zero value uses it */
    uint32_t *kept;           /* the samples written, in output order */
    uint32_t *kept_label_off; /* where each one's labels start in the output */
    int64_t *values;          /* their summed values, when the plan owns them */
    int64_t *carry_sum;       /* one sample's carries, per column */
    size_t n_kept, n_kept_labels, src_bound, max_loc, max_lab;
    uint8_t *rank_live, *loc_reached;
    uint8_t *fn_reached; /* in scratch once the sorts are done */
    uint32_t *loc_id, *fn_id;
    size_t n_loc_out, n_fn_out, n_line_out;
    uint64_t *stack_ids;    /* output location ids, one stack per live rank (profile only) */
    uint32_t *stack_id_off; /* rank -> its stack's offset in stack_ids */
    size_t stack_ids_len;
    pprof__prefault pf;
    pprof_buffer raw; /* the encoding buffer, when writing a file */
    bool reported;    /* err already says what failed */
} merge_plan;

/* What makes a merger unable to finish, found while absorbing but reported only now. */
static pprof_status
check_finishable(const pprof_merger *m, pprof_error *err)
{
    if (m->failed)
        return pprof__error(err, m->failed, PPROF_NO_OFFSET, "",
                            "the merger failed earlier and cannot be used");
    if (m->n_inputs == 0)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profiles to merge");
    for (size_t i = 0; i < m->type_bad.len; i++) {
        const unit_clash *bad = &PPROF__AT(m->type_bad, unit_clash, i);
        if (bad->input == PPROF_NONE)
            continue;
        const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, i);
        const pprof_string *t = mstr(m, (uint32_t)vt->type);
        const pprof_string *u1 = mstr(m, (uint32_t)vt->unit), *u2 = mstr(m, bad->unit);
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "incompatible units for sample type '%.*s': %s has '%.*s' but %s "
                            "has '%.*s'",
                            (int)t->len, t->data, input_name(m, bad->input), (int)u2->len, u2->data,
                            input_name(m, m->first_input), (int)u1->len, u1->data);
    }
    if (m->duration_carry != 0)
        return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "duration_nanos",
                            "the summed duration overflows int64 (first past the limit with %s)",
                            input_name(m, m->duration_input));
    return PPROF_OK;
}

/* The summed values in output order are what a profile takes, and where samples made equal are
 * combined; written straight out otherwise, they are read where they are. */
static bool
plan_owns_values(const merge_plan *pl)
{
    return !pl->sink || pl->f.m->o.inline_conflict == PPROF_INLINE_LONGEST;
}

/* The buffers every plan needs, faulted in ahead of their use by a thread of their own. */
static bool
plan_alloc(merge_plan *pl)
{
    const pprof_merger *m = pl->f.m;
    const pprof_allocator *a = &m->a;
    size_t nmax = pl->ns;
    const size_t sizes[] = {pl->nm, pl->nf, pl->nl, pl->nsm};
    for (size_t i = 0; i < 4; i++)
        nmax = sizes[i] > nmax ? sizes[i] : nmax;
    merge_ranks *f = &pl->f;
    pl->scratch = pprof__malloc(a, (nmax + 1) * sizeof(uint32_t));
    f->srank = pprof__malloc(a, (pl->ns + 1) * sizeof(uint32_t));
    f->mrank = pprof__malloc(a, (pl->nm + 1) * sizeof(uint32_t));
    f->frank = pprof__malloc(a, (pl->nf + 1) * sizeof(uint32_t));
    f->lrank = pprof__malloc(a, (pl->nl + 1) * sizeof(uint32_t));
    f->target = pprof__malloc(a, (pl->nl + 1) * sizeof(uint32_t));
    pl->sample_order = pprof__malloc(a, (pl->nsm + 1) * sizeof(uint32_t));
    if (plan_owns_values(pl))
        pl->values = pprof__malloc(a, (pl->nsm * pl->nt + 1) * sizeof(int64_t));
    pl->kept = pprof__malloc(a, (pl->nsm + 1) * sizeof(uint32_t));
    if (!pl->sink) /* only a profile's sample table is laid out by them */
        pl->kept_label_off = pprof__malloc(a, (pl->nsm + 1) * sizeof(uint32_t));
    if (!pl->scratch || !f->srank || !f->mrank || !f->frank || !f->lrank || !f->target ||
        !pl->sample_order || (plan_owns_values(pl) && !pl->values) || !pl->kept ||
        (!pl->sink && !pl->kept_label_off))
        return false;
    pprof__prefault_add(&pl->pf, pl->sample_order, pl->nsm * sizeof(uint32_t));
    if (pl->values)
        pprof__prefault_add(&pl->pf, pl->values, pl->nsm * pl->nt * sizeof(int64_t));
    pprof__prefault_add(&pl->pf, pl->kept, pl->nsm * sizeof(uint32_t));
    if (pl->kept_label_off)
        pprof__prefault_add(&pl->pf, pl->kept_label_off, pl->nsm * sizeof(uint32_t));
    if (pl->sink && pl->sink->path && pprof__write_file_src_whole(pl->sink->opts)) {
        /* the encoding buffer, sized for the largest output this merger can give (every table
         * whole), faulted in as far as the output is likely to fill it */
        size_t string_bytes = 0;
        for (size_t i = 0; i < pl->ns; i++)
            string_bytes += mstr(m, (uint32_t)i)->len;
        pprof__encoded_counts c = {m->comments.len, pl->nt, pl->nm,       pl->nf,         pl->nl,
                                   m->lines.len,    pl->ns, string_bytes, m->sample_bound};
        size_t guess =
            m->sample_guess + 16 * (pl->nl + m->lines.len + pl->nf) + 2 * pl->ns + string_bytes;
        if (pprof__buffer_reserve_in(a, &pl->raw, pprof__encoded_bound_of(&c)))
            pprof__prefault_add(&pl->pf, pl->raw.data, guess < pl->raw.cap ? guess : pl->raw.cap);
    }
    pprof__prefault_start(&pl->pf, m->pool);
    return true;
}

/* Strings, then mappings (the smallest main candidate first), functions and locations in
 * canonical order, and each one's rank. */
static bool
plan_order_tables(merge_plan *pl)
{
    const pprof_merger *m = pl->f.m;
    merge_ranks *f = &pl->f;
    if (!(pl->str_order = pprof__merge_order(m, pl->ns, pprof__merge_cmp_str, f, pl->scratch)))
        return false;
    for (size_t i = 0; i < pl->ns; i++)
        f->srank[pl->str_order[i]] = (uint32_t)i;
    uint32_t *mo = pl->map_order =
        pprof__merge_order(m, pl->nm, pprof__merge_cmp_mapping, f, pl->scratch);
    if (!mo)
        return false;
    for (size_t i = 0; i < pl->nm; i++) {
        if (PPROF__AT(m->mappings, mmapping, mo[i]).main_candidate) {
            uint32_t x = mo[i]; /* the smallest main candidate becomes mapping[0] */
            memmove(mo + 1, mo, i * sizeof(uint32_t));
            mo[0] = x;
            break;
        }
    }
    for (size_t i = 0; i < pl->nm; i++)
        f->mrank[mo[i]] = (uint32_t)i;
    if (!(pl->fn_order = pprof__merge_order(m, pl->nf, pprof__merge_cmp_function, f, pl->scratch)))
        return false;
    for (size_t i = 0; i < pl->nf; i++)
        f->frank[pl->fn_order[i]] = (uint32_t)i;
    if (!(pl->loc_order = pprof__merge_order(m, pl->nl, pprof__merge_cmp_location, f, pl->scratch)))
        return false;
    for (size_t i = 0; i < pl->nl; i++) {
        f->lrank[pl->loc_order[i]] = (uint32_t)i;
        f->target[i] = (uint32_t)i;
    }
    return true;
}

/* Inline policy longest: groups of one (mapping, address) are adjacent in canonical order; the
 * longest expansion wins, the canonically first among equals. Only expansions that a sample with
 * a non-zero value uses compete: one whose samples cancelled out is missing from an intermediate
 * merge's output, so it must not decide the direct merge either. */
static bool
plan_longest_expansions(merge_plan *pl)
{
    const pprof_merger *m = pl->f.m;
    size_t nl = pl->nl, nt = pl->nt;
    if (!(pl->loc_used = pprof__malloc(&m->a, nl + 1)))
        return false;
    memset(pl->loc_used, 0, nl + 1);
    const msample *ms = m->samples.data;
    const int64_t *msv = m->values.data;
    for (size_t i = 0; i < pl->nsm; i++) {
        bool nonzero = false;
        for (size_t t = 0; t < nt && !nonzero; t++) {
            const carry *cy = pprof__merge_carry_find(m, i * nt + t); /* wrapped to 0 is not 0 */
            nonzero = msv[i * nt + t] != 0 || (cy && cy->n);
        }
        const mstack *x = &PPROF__AT(m->stacks, mstack, ms[i].stack);
        for (uint32_t k = 0; nonzero && k < x->n; k++)
            pl->loc_used[PPROF__AT(m->stack, uint32_t, x->off + k)] = 1;
    }
    const uint32_t *lo = pl->loc_order;
    const mlocation *locs = m->locations.data;
    for (size_t i = 0; i < nl;) {
        const mlocation *x = &locs[lo[i]];
        size_t j = i + 1;
        while (j < nl && locs[lo[j]].mapping == x->mapping && locs[lo[j]].rel == x->rel)
            j++;
        uint32_t best = PPROF_NONE;
        for (size_t k = i; x->rel != 0 && j - i > 1 && k < j; k++)
            if (pl->loc_used[lo[k]] &&
                (best == PPROF_NONE || locs[lo[k]].n_line > locs[best].n_line))
                best = lo[k];
        if (best != PPROF_NONE)
            for (size_t k = i; k < j; k++)
                if (!lines_same(m, &locs[lo[k]], &locs[best]))
                    pl->f.target[lo[k]] = best;
        i = j;
    }
    return true;
}

/* Distinct stacks by rank, then every sample in canonical order. */
static bool
plan_order_samples(merge_plan *pl)
{
    const pprof_allocator *a = &pl->f.m->a;
    pl->nst = pl->f.m->stacks.len;
    uint32_t *stack_tmp = NULL;
    bool ok = (pl->f.strank = pprof__malloc(a, (pl->nst + 1) * sizeof(uint32_t))) &&
              (pl->stack_order = pprof__malloc(a, (pl->nst + 1) * sizeof(uint32_t))) &&
              (stack_tmp = pprof__malloc(a, (pl->nst + 1) * sizeof(uint32_t))) &&
              (pl->n_ranks = pprof__merge_sort_stacks(&pl->f, pl->stack_order, stack_tmp,
                                                      pl->nst)) != SIZE_MAX;
    /* Given back now, so that the output's tables below can reuse the pages. */
    pprof__free(a, stack_tmp);
    return ok &&
           pprof__merge_order_samples(&pl->f, pl->nsm, pl->n_ranks, pl->scratch, pl->sample_order);
}

/* The buffers the kept samples and their entities need. */
static bool
plan_alloc_kept(merge_plan *pl)
{
    const pprof_allocator *a = &pl->f.m->a;
    pl->loc_reached = pprof__malloc(a, pl->nl + 1);
    pl->loc_id = pprof__malloc(a, (pl->nl + 1) * sizeof(uint32_t));
    pl->fn_id = pprof__malloc(a, (pl->nf + 1) * sizeof(uint32_t));
    pl->rank_live = pprof__malloc(a, pl->n_ranks + 1);
    pl->stack_id_off = pprof__malloc(a, (pl->n_ranks + 1) * sizeof(uint32_t));
    if (!pl->loc_reached || !pl->loc_id || !pl->fn_id || !pl->rank_live || !pl->stack_id_off)
        return false;
    memset(pl->loc_reached, 0, pl->nl + 1);
    memset(pl->rank_live, 0, pl->n_ranks + 1);
    bool longest = pl->f.m->o.inline_conflict == PPROF_INLINE_LONGEST;
    return !(longest || pl->f.m->carries.len) ||
           (pl->carry_sum = pprof__malloc(a, (pl->nt + 1) * sizeof(int64_t)));
}

/* The sample at sample_order[i] with the ones after it that became equal to it (only the inline
 * policy longest makes distinct samples equal: otherwise distinct stacks have distinct ranks),
 * their values summed into v; returns the index past them, or 0 with *err set when a sum is
 * left past int64. */
static size_t
combine_equal(merge_plan *pl, size_t i, int64_t *v, pprof_error *err)
{
    const pprof_merger *m = pl->f.m;
    const uint32_t *so = pl->sample_order;
    const msample *ss = m->samples.data;
    const int64_t *mv = m->values.data;
    size_t nt = pl->nt, j = i + 1;
    const carry *first = NULL; /* this sample's, not one whose carries were made up for before */
    if (pl->carry_sum) {
        memset(pl->carry_sum, 0, nt * sizeof(int64_t));
        carries_of(m, so[i], nt, pl->carry_sum, &first);
    }
    uint32_t r = pl->f.strank[ss[so[i]].stack];
    while (m->o.inline_conflict == PPROF_INLINE_LONGEST && j < pl->nsm &&
           pl->f.strank[ss[so[j]].stack] == r &&
           pprof__merge_cmp_labels(&pl->f, so[i], so[j]) == 0) {
        carries_of(m, so[j], nt, pl->carry_sum, &first);
        for (size_t t = 0; t < nt; t++) {
            int64_t x = mv[(size_t)so[j] * nt + t];
            if (__builtin_add_overflow(v[t], x, &v[t]))
                pl->carry_sum[t] += x > 0 ? 1 : -1;
        }
        j++;
    }
    for (size_t t = 0; pl->carry_sum && t < nt; t++) {
        if (pl->carry_sum[t] != 0) {
            const carry *c = pprof__merge_carry_find(m, (uint64_t)so[i] * nt + t);
            overflow_error(m, c && c->n ? c : first, so[i], t, err);
            return 0;
        }
    }
    return j;
}

/* The samples to write, in canonical order: samples made equal combined, all-zero ones
 * dropped. */
static pprof_status
plan_keep_samples(merge_plan *pl, pprof_error *err)
{
    const pprof_merger *m = pl->f.m;
    const uint32_t *so = pl->sample_order;
    const msample *ss = m->samples.data;
    const int64_t *mv = m->values.data;
    size_t nt = pl->nt;
    for (size_t i = 0; i < pl->nsm;) {
        if (i + 16 < pl->nsm) { /* canonical order visits the samples at random */
            __builtin_prefetch(&ss[so[i + 16]]);
            __builtin_prefetch(mv + (size_t)so[i + 16] * nt);
        }
        const msample *s = &ss[so[i]];
        int64_t *v = pl->values ? pl->values + pl->n_kept * nt : NULL;
        const int64_t *vr = mv + (size_t)so[i] * nt; /* the values, combined when v */
        if (v) {
            memcpy(v, vr, nt * sizeof(int64_t));
            vr = v;
        }
        size_t j = combine_equal(pl, i, v, err);
        if (!j) {
            pl->reported = true;
            return PPROF_E_OVERFLOW;
        }
        bool nonzero = false;
        for (size_t t = 0; t < nt; t++)
            nonzero |= vr[t] != 0;
        if (nonzero) {
            if (pl->kept_label_off)
                pl->kept_label_off[pl->n_kept] = (uint32_t)pl->n_kept_labels;
            pl->kept[pl->n_kept++] = so[i];
            pl->rank_live[pl->f.strank[s->stack]] = 1;
            pl->n_kept_labels += s->n_lab;
            uint32_t n_loc = PPROF__AT(m->stacks, mstack, s->stack).n;
            pl->src_bound += PPROF__SAMPLE_BOUND(n_loc, nt, s->n_lab);
            pl->max_loc = n_loc > pl->max_loc ? n_loc : pl->max_loc;
            pl->max_lab = s->n_lab > pl->max_lab ? s->n_lab : pl->max_lab;
        }
        i = j;
    }
    return PPROF_OK;
}

/* Output ids: the locations the live stacks reach and their functions, numbered in canonical
 * order; for a profile, each live rank's stack as output location ids. */
static bool
plan_output_ids(merge_plan *pl)
{
    const pprof_merger *m = pl->f.m;
    const merge_ranks *f = &pl->f;
    const uint32_t *stack = m->stack.data;
    const mstack *sts = m->stacks.data;
    /* from the stacks of live ranks (each stack once, not once per sample), in the order they
     * are stored: it reads them as a stream */
    for (size_t i = 0; i < pl->nst; i++) {
        if (!pl->rank_live[f->strank[i]])
            continue;
        for (uint32_t k = 0; k < sts[i].n; k++)
            pl->loc_reached[f->target[stack[sts[i].off + k]]] = 1;
    }
    pl->fn_reached = (uint8_t *)pl->scratch; /* nmax + 1 uint32, enough for nf bytes */
    memset(pl->fn_reached, 0, pl->nf + 1);
    for (size_t i = 0; i < pl->nl; i++) {
        uint32_t l = pl->loc_order[i];
        if (!pl->loc_reached[l])
            continue;
        pl->loc_id[l] = (uint32_t)++pl->n_loc_out;
        const mlocation *x = &PPROF__AT(m->locations, mlocation, l);
        pl->n_line_out += x->n_line;
        for (uint32_t k = 0; k < x->n_line; k++)
            pl->fn_reached[PPROF__AT(m->lines, mline, x->line_off + k).fn] = 1;
    }
    for (size_t i = 0; i < pl->nf; i++)
        if (pl->fn_reached[pl->fn_order[i]])
            pl->fn_id[pl->fn_order[i]] = (uint32_t)++pl->n_fn_out;
    if (pl->sink)
        return true;
    /* The profile's stack table: each live rank's stack once, in rank order; the samples of one
     * rank (which differ in labels) share its entries instead of each holding a copy. */
    for (size_t i = 0; i < pl->nst; i++) {
        uint32_t r = f->strank[pl->stack_order[i]];
        if (pl->rank_live[r] && !(i && f->strank[pl->stack_order[i - 1]] == r)) {
            if (pl->stack_ids_len >= UINT32_MAX)
                return false;
            pl->stack_id_off[r] = (uint32_t)pl->stack_ids_len;
            pl->stack_ids_len += PPROF__AT(m->stacks, mstack, pl->stack_order[i]).n;
        }
    }
    if (pl->stack_ids_len >= UINT32_MAX ||
        !(pl->stack_ids = pprof__malloc(&m->a, (pl->stack_ids_len + 1) * sizeof(uint64_t))))
        return false;
    fill_job fj = {f, pl->stack_order, pl->rank_live, pl->stack_id_off, pl->loc_id, pl->stack_ids};
    pprof__par_for(m->pool, m->o.threads, pl->nst, 8192, fill_stacks, &fj);
    return true;
}

static int64_t
out_str(const merge_plan *pl, uint32_t sid)
{
    return (int64_t)pl->f.srank[sid];
}

/* The string table in content order ("" sorts first, so index 0 stays "") and the types. */
static bool
out_strings_types(const merge_plan *pl, pprof_profile *p)
{
    const pprof_merger *m = pl->f.m;
    size_t total = 0;
    for (size_t i = 0; i < pl->ns; i++)
        total += mstr(m, (uint32_t)i)->len;
    char *sp = pprof__arena_alloc(&p->arena, total + 1);
    if (!sp || !pprof__vec_grow(&m->a, &p->strings, sizeof(pprof_string), pl->ns) ||
        !pprof__vec_grow(&m->a, &p->sample_types, sizeof(pprof_value_type), pl->nt + 1))
        return false;
    for (size_t i = 0; i < pl->ns; i++) {
        const pprof_string *s = mstr(m, pl->str_order[i]);
        if (s->len)
            memcpy(sp, s->data, s->len);
        pprof_string d = {sp, s->len};
        PPROF__AT(p->strings, pprof_string, i) = d;
        sp += s->len;
    }
    p->strings.len = pl->ns;
    p->has_string_table = true;
    for (size_t t = 0; t < pl->nt; t++) {
        const pprof_value_type *vt = &PPROF__AT(m->types, pprof_value_type, t);
        pprof_value_type o = {out_str(pl, (uint32_t)vt->type), out_str(pl, (uint32_t)vt->unit)};
        PPROF__AT(p->sample_types, pprof_value_type, t) = o;
    }
    p->sample_types.len = pl->nt;
    return true;
}

/* A profile's samples: they take the plan's stack table and summed values. */
static bool
out_samples_into(merge_plan *pl, pprof_profile *p)
{
    const pprof_allocator *a = &pl->f.m->a;
    if (!pprof__vec_grow(a, &p->samples, sizeof(pprof__sample), pl->n_kept + 1) ||
        !pprof__vec_grow(a, &p->labels, sizeof(pprof_label), pl->n_kept_labels + 1))
        return false;
    out_job oj = {&pl->f,         pl->kept, pl->kept_label_off, pl->stack_id_off, p->samples.data,
                  p->labels.data, pl->nt};
    pprof__par_for(pl->f.m->pool, pl->f.m->o.threads, pl->n_kept, 8192, out_samples, &oj);
    pprof__free(a, p->stack.data);
    p->stack.data = pl->stack_ids;
    p->stack.cap = pl->stack_ids_len + 1;
    p->stack.len = pl->stack_ids_len;
    pl->stack_ids = NULL;
    p->labels.len = pl->n_kept_labels;
    p->samples.len = pl->n_kept;
    pprof__free(a, p->values.data);
    p->values.data = pl->values;
    p->values.cap = pl->nsm * pl->nt + 1;
    p->values.len = pl->n_kept * pl->nt;
    pl->values = NULL;
    return true;
}

static void
out_mappings(const merge_plan *pl, pprof_profile *p)
{
    for (size_t i = 0; i < pl->nm; i++) {
        const mmapping *x = &PPROF__AT(pl->f.m->mappings, mmapping, pl->map_order[i]);
        pprof_mapping o = {
            .id = i + 1,
            .memory_start = x->start,
            .memory_limit = x->limit,
            .file_offset = x->offset,
            .filename = out_str(pl, x->filename),
            .build_id = out_str(pl, x->build_id),
            .has_functions = x->has_functions,
            .has_filenames = x->has_filenames,
            .has_line_numbers = x->has_line_numbers,
            .has_inline_frames = x->has_inline_frames,
        };
        PPROF__AT(p->mappings, pprof_mapping, i) = o;
    }
    p->mappings.len = pl->nm;
}

static void
out_locations_functions(const merge_plan *pl, pprof_profile *p)
{
    const pprof_merger *m = pl->f.m;
    for (size_t i = 0; i < pl->nl; i++) {
        uint32_t l = pl->loc_order[i];
        if (!pl->loc_reached[l])
            continue;
        const mlocation *x = &PPROF__AT(m->locations, mlocation, l);
        pprof__location *o = &PPROF__AT(p->locations, pprof__location, p->locations.len++);
        memset(o, 0, sizeof(*o));
        o->id = pl->loc_id[l];
        o->mapping_id = x->mapping == PPROF_NONE ? 0 : (uint64_t)pl->f.mrank[x->mapping] + 1;
        /* rel >= 1 was an address at or above a start no lower than the merged one: the sum
         * neither wraps nor reaches 0, so it reads back as rel. */
        o->address = x->mapping == PPROF_NONE || x->rel == 0
                         ? x->rel
                         : x->rel + PPROF__AT(m->mappings, mmapping, x->mapping).start;
        o->line_off = (uint32_t)p->lines.len;
        o->n_line = x->n_line;
        o->is_folded = x->folded;
        for (uint32_t k = 0; k < x->n_line; k++) {
            const mline *ln = &PPROF__AT(m->lines, mline, x->line_off + k);
            pprof_line ol = {pl->fn_id[ln->fn], ln->line, ln->column};
            PPROF__AT(p->lines, pprof_line, p->lines.len++) = ol;
        }
    }
    for (size_t i = 0; i < pl->nf; i++) {
        uint32_t fi = pl->fn_order[i];
        if (!pl->fn_reached[fi])
            continue;
        const mfunction *x = &PPROF__AT(m->functions, mfunction, fi);
        pprof_function o = {pl->fn_id[fi], out_str(pl, x->name), out_str(pl, x->system_name),
                            out_str(pl, x->filename), x->start_line};
        PPROF__AT(p->functions, pprof_function, p->functions.len++) = o;
    }
}

/* The comments (a set, in content order) and the header. */
static void
out_comments_header(const merge_plan *pl, pprof_profile *p)
{
    const pprof_merger *m = pl->f.m;
    int64_t *c = p->comments.data;
    for (size_t i = 0; i < m->comments.len; i++)
        c[i] = out_str(pl, PPROF__AT(m->comments, uint32_t, i));
    p->comments.len = m->comments.len;
    for (size_t i = 1; i < p->comments.len; i++) {
        int64_t x = c[i];
        size_t k = i;
        for (; k > 0 && c[k - 1] > x; k--)
            c[k] = c[k - 1];
        c[k] = x;
    }
    p->hdr.period_type.type = out_str(pl, m->period_type);
    p->hdr.period_type.unit = out_str(pl, m->period_unit);
    p->hdr.period = m->period;
    p->hdr.time_nanos = m->time;
    p->hdr.duration_nanos = m->duration;
    p->hdr.drop_frames = out_str(pl, m->drop_frames);
    p->hdr.keep_frames = out_str(pl, m->keep_frames);
    p->hdr.doc_url = out_str(pl, m->doc_url);
    /* No fallback when the default names a dropped type (Go takes the first kept type): the
     * fallback would be written out and then compete as an input's default in the next merge,
     * so a grouped merge could pick another one. */
    p->hdr.default_sample_type = out_str(pl, m->default_sample_type);
}

/* Fills the output profile p; written to a sink, it has no samples: the encoder takes them from
 * gen_sample. */
static bool
out_profile(merge_plan *pl, pprof_profile *p)
{
    const pprof_merger *m = pl->f.m;
    const pprof_allocator *a = &m->a;
    if (!out_strings_types(pl, p) || (!pl->sink && !out_samples_into(pl, p)) ||
        !pprof__vec_grow(a, &p->mappings, sizeof(pprof_mapping), pl->nm + 1) ||
        !pprof__vec_grow(a, &p->locations, sizeof(pprof__location), pl->n_loc_out + 1) ||
        !pprof__vec_grow(a, &p->lines, sizeof(pprof_line), pl->n_line_out + 1) ||
        !pprof__vec_grow(a, &p->functions, sizeof(pprof_function), pl->n_fn_out + 1) ||
        !pprof__vec_grow(a, &p->comments, sizeof(int64_t), m->comments.len + 1))
        return false;
    out_mappings(pl, p);
    out_locations_functions(pl, p);
    out_comments_header(pl, p);
    return true;
}

/* Writes the profile p (without samples) with the plan's samples to the sink. What the samples
 * are not made from goes back first, for the encoding to reuse. */
static pprof_status
out_stream(merge_plan *pl, pprof_profile *p, pprof_error *err)
{
    pprof_merger *m = (pprof_merger *)pl->f.m;
    const pprof_allocator *a = &m->a;
    const merge_sink *sink = pl->sink;
    if (sink->sum) {
        sink->sum->samples = pl->n_kept;
        sink->sum->locations = pl->n_loc_out;
        sink->sum->functions = pl->n_fn_out;
    }
    uint32_t **done_with[] = {
        &pl->scratch,        &pl->f.mrank,  &pl->f.frank,     &pl->f.lrank,      &pl->str_order,
        &pl->map_order,      &pl->fn_order, &pl->loc_order,   &pl->sample_order, &pl->fn_id,
        &pl->kept_label_off, &pl->f.strank, &pl->stack_order, &pl->stack_id_off};
    for (size_t i = 0; i < sizeof(done_with) / sizeof(done_with[0]); i++) {
        pprof__free(a, *done_with[i]);
        *done_with[i] = NULL;
    }
    pl->fn_reached = NULL; /* was in scratch */
    sample_gen g = {.f = &pl->f,
                    .sout = pl->kept,
                    .vals = pl->values,
                    .nt = pl->nt,
                    .n = pl->n_kept,
                    .loc_sid = PPROF_NONE};
    uint64_t *lenc = pprof__malloc(a, (pl->nl + 1) * sizeof(uint64_t));
    g.lenc = lenc;
    g.packed = pprof__malloc(a, pl->max_loc * 5 + 8);
    g.lab = pprof__malloc(a, (pl->max_lab + 1) * sizeof(pprof_label));
    for (size_t l = 0; lenc && l < pl->nl; l++) {
        uint8_t b[10] = {0};
        uint64_t id = pl->loc_id[pl->f.target[l]], len = (uint64_t)(pprof__put_varint(b, id) - b);
        uint64_t w;
        memcpy(&w, b, 8);
        lenc[l] = (w & ((UINT64_C(1) << 56) - 1)) | len << 56;
    }
    pprof__sample_src src = {pl->n_kept, pl->src_bound, gen_sample, &g};
    pprof_status st;
    if (!lenc || !g.packed || !g.lab)
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    else if (sink->path) /* the prefault thread may still be ahead of the encoder */
        st = pprof__write_file_src(p, &src, &pl->raw, sink->path, sink->opts, err);
    else
        st = pprof__write_memory_src(p, &src, sink->opts, sink->mem, err);
    pprof__free(a, lenc);
    pprof__free(a, g.packed);
    pprof__free(a, g.lab);
    return st;
}

static void
plan_free(merge_plan *pl)
{
    const pprof_allocator *a = &pl->f.m->a;
    pprof__prefault_join(&pl->pf);
    pprof__free(a, pl->raw.data);
    void *bufs[] = {pl->scratch,      pl->f.srank,   pl->f.mrank,   pl->f.frank,
                    pl->f.lrank,      pl->f.target,  pl->f.strank,  pl->str_order,
                    pl->map_order,    pl->fn_order,  pl->loc_order, pl->stack_order,
                    pl->sample_order, pl->loc_used,  pl->kept,      pl->kept_label_off,
                    pl->values,       pl->carry_sum, pl->rank_live, pl->loc_reached,
                    pl->loc_id,       pl->fn_id,     pl->stack_ids, pl->stack_id_off};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        pprof__free(a, bufs[i]);
}

/* Emits the merged profile into *out, or with a sink writes it out. */
static pprof_status
emit(pprof_merger *m, const merge_sink *sink, pprof_profile **out, pprof_error *err)
{
    pprof_status st = pprof__merge_s2_settle(m, err);
    if (!st)
        st = check_finishable(m, err);
    if (st)
        return st;
    /* Before the plan's buffers are made: the encoding buffer, the largest, starts in the pages
     * of the largest of them instead of fresh ones. */
    if (sink)
        pprof__merge_release_s2_tables(m);
    merge_plan pl = {.f = {.m = m},
                     .sink = sink,
                     .ns = m->strings.len,
                     .nm = m->mappings.len,
                     .nf = m->functions.len,
                     .nl = m->locations.len,
                     .nsm = m->samples.len,
                     .nt = m->n_types};
    pprof_profile *p = NULL;
    st = PPROF_E_NOMEM;
    if (plan_alloc(&pl) && plan_order_tables(&pl) &&
        (m->o.inline_conflict != PPROF_INLINE_LONGEST || plan_longest_expansions(&pl)) &&
        plan_order_samples(&pl) && plan_alloc_kept(&pl) &&
        (st = plan_keep_samples(&pl, err)) == PPROF_OK) {
        st = plan_output_ids(&pl) && (p = pprof__profile_new(&m->a)) && out_profile(&pl, p)
                 ? PPROF_OK
                 : PPROF_E_NOMEM;
        if (st == PPROF_OK && sink) {
            st = out_stream(&pl, p, err);
            pl.reported = true; /* whatever the writer returned, it said why */
        } else if (st == PPROF_OK) {
            *out = p;
            p = NULL;
        }
    }
    pprof__prefault_join(&pl.pf); /* before anything it faults in is freed */
    if (st == PPROF_E_NOMEM && !pl.reported)
        pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_profile_free(p); /* with a sink, it was only the vehicle */
    plan_free(&pl);
    return st;
}
