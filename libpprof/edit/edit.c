/* pprof_edit: input checks, the working profile, the fixed order of the operations, and the
 * compaction of the result through the merger. The operations live in edit-*.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "edit-private.h"
#include "memory-private.h"
#include "pprof/merge.h"
#include "validate-private.h"

void
pprof_edit_options_init(pprof_edit_options *opts)
{
    if (!opts)
        return;
    const pprof_edit_options def = PPROF_EDIT_OPTIONS_INIT;
    *opts = def;
}

/* ---------------------------------------------------------------- working profile helpers */

pprof_status
ed_nomem(pprof__ed *e)
{
    if (!e->st)
        e->st = pprof__error(e->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    return e->st;
}

static unsigned
borrow_bit(const pprof__ed *e, const pprof__vec *v)
{
    const pprof_profile *w = e->w;
    const pprof__vec *vs[] = {&w->strings,   &w->sample_types, &w->stack,     &w->values,
                              &w->labels,    &w->mappings,     &w->locations, &w->lines,
                              &w->functions, &w->comments};
    for (unsigned i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
        if (vs[i] == v)
            return 1u << i;
    return 0;
}

bool
ed_own(pprof__ed *e, pprof__vec *v, size_t elem)
{
    unsigned bit = borrow_bit(e, v);
    if (!(e->borrowed & bit))
        return true;
    pprof__vec c = {NULL, 0, 0};
    if (v->len && !pprof__vec_grow(e->a, &c, elem, v->len + v->len / 8 + 16)) {
        ed_nomem(e);
        return false;
    }
    if (v->len)
        memcpy(c.data, v->data, v->len * elem);
    c.len = v->len;
    *v = c;
    e->borrowed &= ~bit;
    return true;
}

bool
ed_reserve(pprof__ed *e, pprof__vec *v, size_t elem, size_t n)
{
    if (!ed_own(e, v, elem))
        return false;
    if (v->len + n > v->cap && !pprof__vec_grow(e->a, v, elem, v->len + n)) {
        ed_nomem(e);
        return false;
    }
    return true;
}

int64_t
ed_add_string(pprof__ed *e, const char *s, size_t n)
{
    if (!ed_reserve(e, &e->w->strings, sizeof(pprof_string), 1))
        return -1;
    char *d = n ? pprof__arena_alloc(&e->w->arena, n) : (char *)"";
    if (!d) {
        ed_nomem(e);
        return -1;
    }
    if (n)
        memcpy(d, s, n);
    pprof_string *slot = pprof__vec_push(e->a, &e->w->strings, sizeof(pprof_string));
    slot->data = d;
    slot->len = n;
    return (int64_t)e->w->strings.len - 1;
}

static void vwarn(pprof__ed *e, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void
vwarn(pprof__ed *e, const char *fmt, va_list ap)
{
    if (!e->o.warn)
        return;
    char buf[512];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    e->o.warn(e->o.warn_ctx, buf);
}

void
ed_warn(pprof__ed *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(e, fmt, ap);
    va_end(ap);
}

void
ed_warn_once(pprof__ed *e, const char *fmt, ...)
{
    if (!e->final || e->batch)
        return;
    va_list ap;
    va_start(ap, fmt);
    vwarn(e, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- patterns */

pprof_status
ed_rx_compile(pprof__ed *e, ed_rx *r, const char *option, const char *pattern, bool anchored)
{
    memset(r, 0, sizeof(*r));
    size_t n = strlen(pattern);
    char *buf = NULL;
    const char *p = pattern;
    if (anchored) {
        /* Go compiles "^(" + pattern + ")$" as a whole, and so do we. */
        if (!(buf = pprof__malloc(e->a, n + 5)))
            return ed_nomem(e);
        memcpy(buf, "^(", 2);
        memcpy(buf + 2, pattern, n);
        memcpy(buf + 2 + n, ")$", 3);
        p = buf;
        n += 4;
    }
    pprof_status st = pprof__regex_new(p, n, option, e->a, &r->re, e->err);
    pprof__free(e->a, buf);
    if (st && !e->st)
        e->st = st;
    return st;
}

void
ed_rx_free(pprof__ed *e, ed_rx *r)
{
    pprof__regex_free(r->re);
    pprof__free(e->a, r->memo);
    memset(r, 0, sizeof(*r));
}

static bool
rx_failed(pprof__ed *e, ed_rx *r, const char *s, size_t n)
{
    if (!e->st)
        e->st = pprof__error(e->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "",
                             "%s: out of memory matching \"%.*s\"", pprof__regex_option(r->re),
                             (int)(n > 80 ? 80 : n), s);
    return false;
}

bool
ed_rx_bytes(pprof__ed *e, ed_rx *r, const char *s, size_t n)
{
    int m = pprof__regex_match(r->re, s, n);
    if (m < 0)
        return rx_failed(e, r, s, n);
    return m == 1;
}

bool
ed_rx_str(pprof__ed *e, ed_rx *r, int64_t i)
{
    size_t n = e->n_str0;
    if (i < 0 || (uint64_t)i >= e->w->strings.len)
        return ed_rx_bytes(e, r, "", 0);
    if ((uint64_t)i >= n) { /* a string this batch added: its index means another next time */
        pprof_string s = ed_str(e, i);
        return ed_rx_bytes(e, r, s.data, s.len);
    }
    if (r->n_memo < n) {
        uint8_t *m = pprof__realloc(e->a, r->memo, n);
        if (!m) {
            ed_nomem(e);
            return false;
        }
        memset(m + r->n_memo, 0, n - r->n_memo);
        r->memo = m;
        r->n_memo = n;
    }
    if (!r->memo[i]) {
        pprof_string s = ed_str(e, i);
        r->memo[i] = ed_rx_bytes(e, r, s.data, s.len) ? 2 : 1;
    }
    return r->memo[i] == 2;
}

/* ---------------------------------------------------------------- input checks */

/* The input must be valid as pprof_validate decides (validate.c), before anything is computed
 * from it: every string index resolves (or a string this edit adds would stand in for it),
 * every id resolves, one value per sample type. A merge input's samples are checked a batch at
 * a time, as they are decoded (check_samples); its tables once, here. */
static pprof_status
check_input(pprof__ed *e)
{
    pprof_status st;
    if (!e->lazy)
        st = pprof__validate(e->in, NULL, e->err);
    else if (e->lazy_input && e->lazy_input->tables_valid) /* the reading thread's check */
        st = PPROF_OK;
    else
        st = pprof__validate_part(e->in, PPROF__VALIDATE_TABLES, 0, NULL, e->err);
    if (!st && e->o.normalize_base)
        st = pprof__validate(e->o.normalize_base, "normalize_base", e->err);
    return st;
}

/* The batch of a merge input's samples just decoded; paths carry global sample indices. */
static pprof_status
check_samples(pprof__ed *e)
{
    if (!e->lazy)
        return PPROF_OK; /* check_input saw them all */
    return pprof__validate_part(e->in, PPROF__VALIDATE_SAMPLES, e->first, NULL, e->err);
}

/* ---------------------------------------------------------------- the working profile */

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* New frames are numbered in a block of ED_NEW_IDS ids that no entity of the table (ids first
 * in each entry) has, so they never meet an input id wherever its ids lie, up to UINT64_MAX;
 * the merger renumbers everything on output. Usually the block starts past the largest id; when
 * that leaves too little room, at the first gap wide enough between the sorted ids, which
 * exists while the table has fewer than 2^31 entries (the reader's limits keep it far below).
 * False (e->st set) only without memory or without such a gap. */
#define ED_NEW_IDS (UINT64_C(1) << 32)
static bool
free_ids(pprof__ed *e, const pprof__vec *v, size_t stride, uint64_t *first)
{
    const uint8_t *d = v->data;
    uint64_t max = 0;
    for (size_t i = 0; i < v->len; i++) {
        uint64_t id;
        memcpy(&id, d + i * stride, sizeof(id));
        max = id > max ? id : max;
    }
    if (max < UINT64_MAX - ED_NEW_IDS) {
        *first = max + 1;
        return true;
    }
    uint64_t *ids = pprof__malloc(e->a, (v->len + 1) * sizeof(uint64_t));
    if (!ids) {
        ed_nomem(e);
        return false;
    }
    for (size_t i = 0; i < v->len; i++)
        memcpy(&ids[i], d + i * stride, sizeof(uint64_t));
    qsort(ids, v->len, sizeof(uint64_t), cmp_u64);
    uint64_t prev = 0; /* id 0 is reserved */
    bool found = false;
    for (size_t i = 0; i <= v->len && !found; i++) {
        uint64_t next = i < v->len ? ids[i] : UINT64_MAX;
        if (next - prev - 1 >= ED_NEW_IDS) {
            *first = prev + 1;
            found = true;
        }
        prev = next;
    }
    pprof__free(e->a, ids);
    if (!found)
        e->st = pprof__error(e->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                             "no block of %llu unused ids is left for new frames",
                             (unsigned long long)ED_NEW_IDS);
    return found;
}

static pprof_status
start(pprof__ed *e)
{
    const pprof_profile *in = e->in;
    pprof_profile *w = pprof__profile_new(e->a);
    if (!w)
        return ed_nomem(e);
    e->w = w;
    w->source_format = in->source_format;
    w->hdr = in->hdr;
    w->has_string_table = in->has_string_table;
    w->sample_types = in->sample_types;
    w->stack = in->stack;
    w->values = in->values;
    w->labels = in->labels;
    w->mappings = in->mappings;
    w->locations = in->locations;
    w->lines = in->lines;
    w->functions = in->functions;
    w->comments = in->comments;
    w->strings = in->strings;
    e->borrowed = ED_B_STRINGS | ED_B_SAMPLE_TYPES | ED_B_STACK | ED_B_VALUES | ED_B_LABELS |
                  ED_B_MAPPINGS | ED_B_LOCATIONS | ED_B_LINES | ED_B_FUNCTIONS | ED_B_COMMENTS;
    if (in->samples.len) {
        if (!pprof__vec_grow(e->a, &w->samples, sizeof(pprof__sample), in->samples.len))
            return ed_nomem(e);
        memcpy(w->samples.data, in->samples.data, in->samples.len * sizeof(pprof__sample));
        w->samples.len = in->samples.len;
    }
    if (e->final && e->batch)
        w->hdr.duration_nanos = 0; /* the merger sums it over its inputs */
    if (e->first_loc_id)
        return PPROF_OK;
    e->n_str0 = in->strings.len;
    e->n_loc0 = in->locations.len;
    e->n_fn0 = in->functions.len;
    if (!free_ids(e, &in->locations, sizeof(pprof__location), &e->first_loc_id) ||
        !free_ids(e, &in->functions, sizeof(pprof_function), &e->first_fn_id))
        return e->st;
    return PPROF_OK;
}

static void
finish_working(pprof__ed *e)
{
    pprof_profile *w = e->w;
    if (!w)
        return;
    pprof__vec *vs[] = {&w->strings,  &w->sample_types, &w->stack, &w->values,    &w->labels,
                        &w->mappings, &w->locations,    &w->lines, &w->functions, &w->comments};
    for (unsigned i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
        if (e->borrowed & (1u << i))
            memset(vs[i], 0, sizeof(pprof__vec));
    pprof_profile_free(w);
    e->w = NULL;
}

/* Go's Compact keeps mapping[0] (the main binary) and the mappings that a location of a kept
 * sample uses; the merger keeps every mapping it is given, so the others go here. Once per
 * batch, last: mapping indices are the input's until then. */
static pprof_status
drop_unused_mappings(pprof__ed *e)
{
    pprof_profile *w = e->w;
    size_t nm = w->mappings.len;
    if (nm <= 1)
        return PPROF_OK;
    uint8_t *used = pprof__malloc(e->a, nm + w->locations.len);
    if (!used)
        return ed_nomem(e);
    uint8_t *seen = used + nm;
    memset(used, 0, nm + w->locations.len);
    used[0] = 1;
    size_t unused = nm - 1;
    const pprof__sample *ss = ed_samples(e);
    for (size_t i = 0; i < w->samples.len && unused; i++) {
        const uint64_t *st = ed_stack(e, &ss[i]);
        for (uint32_t j = 0; j < ss[i].n_loc; j++) {
            uint32_t li = ed_loc(e, st[j]);
            if (li == PPROF_NONE || seen[li])
                continue;
            seen[li] = 1;
            const pprof__location *l = &PPROF__AT(w->locations, pprof__location, li);
            uint32_t mi = ed_map(e, l->mapping_id);
            /* the merger takes a location whose address is below its mapping's start off the
             * mapping (docs/merge.md, difference 14): such a use does not count, or a second
             * compaction would drop what the first kept */
            if (mi != PPROF_NONE &&
                (!l->address ||
                 l->address >= PPROF__AT(w->mappings, pprof_mapping, mi).memory_start) &&
                !used[mi]) {
                used[mi] = 1;
                unused--;
            }
        }
    }
    size_t keep = 0;
    for (size_t i = 0; i < nm; i++)
        keep += used[i];
    if (keep < nm && ed_own(e, &w->mappings, sizeof(pprof_mapping))) {
        pprof_mapping *m = w->mappings.data;
        size_t k = 0;
        for (size_t i = 0; i < nm; i++)
            if (used[i])
                m[k++] = m[i];
        w->mappings.len = k;
    }
    pprof__free(e->a, used);
    return e->st;
}

static void
step_totals(const pprof__ed *e, int64_t *t)
{
    size_t nt = e->w->sample_types.len;
    memset(t, 0, nt * sizeof(*t));
    const pprof__sample *ss = ed_samples(e);
    const int64_t *v = e->w->values.data;
    for (size_t i = 0; i < e->w->samples.len; i++)
        for (size_t k = 0; k < nt && k < ss[i].n_val; k++)
            t[k] = (int64_t)((uint64_t)t[k] + (uint64_t)v[ss[i].val_off + k]);
}

typedef pprof_status (*ed_op)(pprof__ed *e);

/* A step's report summed over the batches. */
#define ED_MAX_STEPS 20
struct ed_step_acc {
    const char *name;
    size_t in, out, n_in, n_out;
    uint64_t *t_in, *t_out; /* wrapping sums, as the totals of one pass would be */
};

static bool
step_add(pprof__ed *e, uint64_t **dst, size_t *n, size_t nt, const int64_t *t)
{
    if (!*dst) {
        if (!(*dst = pprof__malloc(e->a, (nt + 1) * sizeof(uint64_t))))
            return false;
        memset(*dst, 0, (nt + 1) * sizeof(uint64_t));
        *n = nt;
    }
    for (size_t k = 0; k < nt && k < *n; k++)
        (*dst)[k] += (uint64_t)t[k];
    return true;
}

/* Runs one operation, adding its effect to the report when one is asked for. */
static pprof_status
run_op(pprof__ed *e, unsigned *slot, const char *name, ed_op op)
{
    if (e->st)
        return e->st;
    if (!e->o.step || !e->final)
        return op(e);
    if (!e->steps) {
        if (!(e->steps = pprof__malloc(e->a, ED_MAX_STEPS * sizeof(*e->steps))))
            return ed_nomem(e);
        memset(e->steps, 0, ED_MAX_STEPS * sizeof(*e->steps));
    }
    struct ed_step_acc *acc = &e->steps[(*slot)++];
    size_t nt0 = e->w->sample_types.len, n0 = e->w->samples.len;
    int64_t *t = pprof__malloc(e->a, (nt0 + e->o.n_sample_types + 1) * sizeof(int64_t));
    if (!t)
        return ed_nomem(e);
    step_totals(e, t);
    bool ok = step_add(e, &acc->t_in, &acc->n_in, nt0, t);
    pprof_status st = op(e);
    if (!st && ok) {
        step_totals(e, t);
        ok = step_add(e, &acc->t_out, &acc->n_out, e->w->sample_types.len, t);
        acc->name = name;
        acc->in += n0;
        acc->out += e->w->samples.len;
    }
    pprof__free(e->a, t);
    return st ? st : ok ? PPROF_OK : ed_nomem(e);
}

static void
report_steps(pprof__ed *e)
{
    for (unsigned i = 0; e->steps && i < ED_MAX_STEPS && e->steps[i].name; i++) {
        struct ed_step_acc *a = &e->steps[i];
        pprof_edit_step s = {
            a->name, a->in, a->out, (const int64_t *)a->t_in, a->n_in, (const int64_t *)a->t_out,
            a->n_out};
        e->o.step(e->o.step_ctx, &s);
    }
}

static void
free_steps(pprof__ed *e)
{
    for (unsigned i = 0; e->steps && i < ED_MAX_STEPS; i++) {
        pprof__free(e->a, e->steps[i].t_in);
        pprof__free(e->a, e->steps[i].t_out);
    }
    pprof__free(e->a, e->steps);
}

static pprof_status
op_remove_uninteresting(pprof__ed *e)
{
    pprof_string d = ed_str(e, e->w->hdr.drop_frames), k = ed_str(e, e->w->hdr.keep_frames);
    if (!d.len)
        return PPROF_OK;
    char *ds = pprof__malloc(e->a, d.len + k.len + 2);
    if (!ds)
        return ed_nomem(e);
    char *ks = ds + d.len + 1;
    memcpy(ds, d.data, d.len);
    ds[d.len] = 0;
    memcpy(ks, k.data, k.len);
    ks[k.len] = 0;
    pprof_error quiet;
    pprof_error *saved = e->err;
    e->err = &quiet;
    ed_prune(e, ds, k.len ? ks : NULL, "drop_frames of the profile");
    e->err = saved;
    if (e->st == PPROF_E_ARG) {
        /* Go's fetch ignores RemoveUninteresting's error: the profile is left unpruned. */
        ed_warn_once(e, "%s; the profile's drop_frames/keep_frames are ignored", quiet.message);
        e->st = PPROF_OK;
    } else if (e->st) {
        *e->err = quiet;
    }
    pprof__free(e->a, ds);
    return e->st;
}

static pprof_status
op_prune_flags(pprof__ed *e)
{
    return ed_prune(e, e->o.drop_frames, e->o.keep_frames, "drop_frames");
}

static pprof_status
check_options(pprof__ed *e)
{
    const pprof_edit_options *o = &e->o;
    if (o->keep_frames && *o->keep_frames && !(o->drop_frames && *o->drop_frames))
        return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                    "keep_frames needs drop_frames (it only spares frames "
                                    "that drop_frames would prune)");
    if (o->granularity > PPROF_GRANULARITY_ADDRESSES)
        return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                    "granularity: unknown value %d", (int)o->granularity);
    if (!(o->min_fraction >= 0 && o->min_fraction <= 1))
        return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                    "min_fraction: must be between 0 and 1");
    if ((o->redact & ~7u) || (o->redact && !o->redact_key_len))
        return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                    o->redact & ~7u ? "redact: unknown kind bits"
                                                    : "redact needs a key (redact_key)");
    if (ed_time_options(e))
        return e->st;
    for (size_t i = 0; i < o->n_scale; i++)
        if (!(o->scale[i].factor == o->scale[i].factor) ||
            o->scale[i].factor - o->scale[i].factor != 0)
            return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                        "scale: the factor must be a finite number");
    return PPROF_OK;
}

static bool
set(const char *s)
{
    return s && *s;
}

/* In Go's order of compilation (applyFocus), so the first bad pattern is the one Go names. */
static pprof_status
compile_patterns(pprof__ed *e)
{
    const pprof_edit_options *o = &e->o;
    struct {
        ed_rx *r;
        const char *name, *pat;
        bool anchored;
    } t[] = {
        {&e->drop, "drop_frames", o->drop_frames, true},
        {&e->keep, "keep_frames", o->keep_frames, true},
        {&e->focus, "focus", o->focus, false},
        {&e->ignore, "ignore", o->ignore, false},
        {&e->hide, "hide", o->hide, false},
        {&e->show, "show", o->show, false},
        {&e->show_from, "show_from", o->show_from, false},
        {&e->prune_from, "prune_from", o->prune_from, false},
        {&e->tag_show, "tagshow", o->tag_show, false},
        {&e->tag_hide, "taghide", o->tag_hide, false},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (set(t[i].pat) && ed_rx_compile(e, t[i].r, t[i].name, t[i].pat, t[i].anchored))
            return e->st;
    return PPROF_OK;
}

static void
free_patterns(pprof__ed *e)
{
    ed_rx *rs[] = {&e->drop, &e->ignore,    &e->focus,      &e->keep,     &e->hide,
                   &e->show, &e->show_from, &e->prune_from, &e->tag_show, &e->tag_hide};
    for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
        ed_rx_free(e, rs[i]);
}

/* Whether any of go tool pprof's own operations is asked for: then Go's applyFocus runs, whose
 * FilterSamplesByName drops samples without locations even with no pattern. */
static bool
go_operations(const pprof_edit_options *o)
{
    const char *ops[] = {o->focus,     o->ignore,     o->hide,      o->show,
                         o->show_from, o->prune_from, o->tag_focus, o->tag_ignore,
                         o->tag_show,  o->tag_hide,   o->tag_root,  o->tag_leaf};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (set(ops[i]))
            return true;
    return false;
}

/* The fixed order (docs/edit.md): Go's fetch (normalize, RemoveUninteresting), our pruning
 * flags beside it, Go's generateRawReport (tagroot/tagleaf, then applyFocus's sequence), then
 * the operations Go's CLI does not have. */
static pprof_status
pipeline(pprof__ed *e)
{
    const pprof_edit_options *o = &e->o;
    unsigned k = 0, *slot = &k;
    if (o->normalize_base)
        run_op(e, slot, "normalize", ed_normalize);
    if (e->t_from.set || e->t_to.set)
        run_op(e, slot, "time", ed_time_range);
    if (o->remove_uninteresting)
        run_op(e, slot, "remove_uninteresting", op_remove_uninteresting);
    if (o->drop_frames && *o->drop_frames)
        run_op(e, slot, "drop_frames", op_prune_flags);
    if ((o->tag_root && *o->tag_root) || (o->tag_leaf && *o->tag_leaf))
        run_op(e, slot, "tagroot/tagleaf", ed_tag_roots);
    if (go_operations(o))
        run_op(e, slot, "focus/ignore/hide/show", ed_filter_names);
    if (o->show_from && *o->show_from)
        run_op(e, slot, "show_from", ed_show_from);
    if ((o->tag_focus && *o->tag_focus) || (o->tag_ignore && *o->tag_ignore))
        run_op(e, slot, "tagfocus/tagignore", ed_tag_filter);
    if ((o->tag_show && *o->tag_show) || (o->tag_hide && *o->tag_hide))
        run_op(e, slot, "tagshow/taghide", ed_tag_names);
    if (o->prune_from && *o->prune_from)
        run_op(e, slot, "prune_from", ed_prune_from);
    if (o->n_sample_types)
        run_op(e, slot, "sample_types", ed_sample_types);
    if (o->drop_timestamps)
        run_op(e, slot, "drop_timestamps", ed_drop_timestamps);
    if (o->n_remove_labels || o->n_rename_labels || o->n_set_labels)
        run_op(e, slot, "labels", ed_labels);
    if (o->n_scale)
        run_op(e, slot, "scale", ed_scale);
    if (o->granularity || o->no_inlines)
        run_op(e, slot, "aggregate", ed_aggregate);
    if (o->max_depth)
        run_op(e, slot, "max_depth", ed_max_depth);
    if (o->min_fraction > 0)
        run_op(e, slot, "min_fraction", ed_min_fraction);
    if (!e->final)
        return e->st;
    if (o->redact)
        run_op(e, slot, "redact", ed_redact);
    return e->st;
}

typedef enum { OUT_PROFILE, OUT_FILE, OUT_MEMORY } out_kind;

typedef pprof_status (*batch_fn)(pprof__ed *e, pprof_merger *m);

/* Calls fn on each batch of samples in a fresh working profile. */
static pprof_status
each_batch(pprof__ed *e, batch_fn fn, pprof_merger *m)
{
    size_t n = e->lazy ? e->lazy->lazy.len / 2 : e->in->samples.len;
    size_t step = !e->lazy ? (n ? n : 1) : e->pre.on ? PPROF__EDIT_KEPT_BATCH : PPROF__EDIT_BATCH;
    /* With threads, the next batch is decoded while this one is edited. */
    pprof__pool *pool = e->lazy && e->o.threads > 1 && n > step ? pprof__pool_new(1) : NULL;
    pprof__decode_ahead ahead;
    pprof__decode_ahead_init(&ahead);
    bool decoded_ahead = false;
    e->batch = 0;
    for (e->first = 0; !e->st && (e->first < n || (e->first == 0 && n == 0));
         e->first += step, e->batch++) {
        if (e->lazy) {
            e->st = decoded_ahead ? pprof__decode_ahead_take(&ahead, e->lazy, e->err)
                                  : pprof__decode_samples(e->lazy, e->first, step, e->err);
            if (e->st)
                break;
            decoded_ahead = pool && e->first + step < n &&
                            pprof__decode_ahead_start(&ahead, e->lazy, pool, e->first + step, step);
        }
        pprof_status cs = check_samples(e);
        if (cs)
            e->st = cs;
        if (!e->st && !start(e))
            fn(e, m);
        finish_working(e);
        if (n == 0)
            break;
    }
    pprof__decode_ahead_free(&ahead);
    pprof__pool_free(pool);
    if (e->lazy) /* the batch there may have been edited in place: decode it again next time */
        e->lazy->lazy_n = 0;
    return e->st;
}

static pprof_status
batch_normalize_sum(pprof__ed *e, pprof_merger *m)
{
    (void)m;
    return ed_normalize_sum(e);
}

/* Go computes NumLabelUnits after normalizing (fetch), before everything else. */
static pprof_status
batch_units(pprof__ed *e, pprof_merger *m)
{
    (void)m;
    if (e->o.normalize_base && ed_normalize(e))
        return e->st;
    return ed_tag_prepare(e, true);
}

static pprof_status
batch_time_first(pprof__ed *e, pprof_merger *m)
{
    (void)m;
    return ed_time_first(e);
}

static pprof_status
batch_total(pprof__ed *e, pprof_merger *m)
{
    (void)m;
    return pipeline(e);
}

/* Whether the operations change the strings, functions, locations and lines only location by
 * location, by what each one is: the frame filters and pruning do, so every batch ends with
 * the same tables. Those that add entries for what a batch's samples hold (tagroot, tagleaf,
 * labels, aggregate, max_depth, redact) do not. */
static bool
tables_by_location(const pprof_edit_options *o)
{
    return !set(o->tag_root) && !set(o->tag_leaf) && !o->n_remove_labels && !o->n_rename_labels &&
           !o->n_set_labels && !o->granularity && !o->no_inlines && !o->max_depth && !o->redact;
}

static pprof_status
batch_output(pprof__ed *e, pprof_merger *m)
{
    if (pipeline(e) || drop_unused_mappings(e))
        return e->st;
    /* Batches that leave the input's tables as they are all borrow the same ones, and the
     * operations of tables_by_location give every batch the same tables too: what the merger
     * looked up in one batch's tables then holds for the next. */
    const unsigned tables = ED_B_STRINGS | ED_B_FUNCTIONS | ED_B_LOCATIONS | ED_B_LINES;
    bool same = (e->borrowed & tables) == tables || tables_by_location(&e->o);
    bool continues = same && e->prev_same_tables && e->batch > 0;
    e->prev_same_tables = same;
    return e->st = same ? pprof__merger_add_batch(m, e->w, continues, e->err)
                        : pprof__merger_add_valid(m, e->w, NULL, e->err);
}

/* Whether focus and ignore are the only operations on a merge input: then which samples
 * survive follows from their location ids alone, and those that do not need never be decoded
 * (edit-prefilter.c). The per-sample report counts every sample, so it goes the usual way. */
static bool
prefilter_applies(const pprof__ed *e)
{
    const pprof_edit_options *o = &e->o;
    if (!e->lazy || o->step || !(e->focus.re || e->ignore.re) || e->hide.re || e->show.re)
        return false;
    const char *others[] = {o->show_from, o->prune_from, o->drop_frames, o->keep_frames,
                            o->tag_focus, o->tag_ignore, o->tag_show,    o->tag_hide,
                            o->tag_root,  o->tag_leaf,   o->time_from,   o->time_to};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        if (set(others[i]))
            return false;
    if (o->n_sample_types || o->n_remove_labels || o->n_rename_labels || o->n_set_labels ||
        o->normalize_base || o->n_scale || o->granularity || o->no_inlines || o->max_depth ||
        o->min_fraction > 0 || o->redact || o->drop_timestamps)
        return false;
    /* remove_uninteresting prunes by the profile's own drop_frames: a no-op when it has none */
    pprof_string d = {"", 0};
    return !o->remove_uninteresting || !pprof__str(e->in, e->in->hdr.drop_frames, &d) || !d.len;
}

/* The spans of the samples focus and ignore keep (prefilter_applies); false: decode them all.
 * The states are those ed_filter_names works out in every batch, from the same tables. */
static bool
prefilter(pprof__ed *e, pprof__vec *kept)
{
    memset(kept, 0, sizeof(*kept));
    if (!prefilter_applies(e) || start(e)) {
        finish_working(e);
        return false;
    }
    size_t nl = e->w->locations.len;
    uint8_t *state = pprof__malloc(e->a, nl ? nl : 1);
    for (size_t i = 0; state && i < nl && !e->st; i++) {
        state[i] = ed_focus_state(e, i);
        e->pre.focus_matched |= state[i] == FI_FOCUS;
        e->pre.ignore_matched |= state[i] == FI_IGNORE;
    }
    bool ok = state && !e->st && ed_prefilter_scan(e, state, kept);
    pprof__free(e->a, state);
    finish_working(e);
    return ok;
}

/* Room in the merge input's sample tables for the kept samples when they fit one batch: the
 * scan counted them, and a table grown while decoding is copied and its pages touched twice. */
static void
presize_kept(pprof__ed *e)
{
    pprof_profile *p = e->lazy;
    size_t n = p->lazy.len / 2;
    if (n > PPROF__EDIT_KEPT_BATCH || e->pre.stack > SIZE_MAX / 16 || e->pre.labels > SIZE_MAX / 64)
        return; /* a guess is then as good */
    const pprof_allocator *a = &p->alloc;
    size_t nt = p->sample_types.len;
    /* failures are harmless: decoding grows the tables as it needs */
    (void)(pprof__vec_grow(a, &p->samples, sizeof(pprof__sample), n) &&
           pprof__vec_grow(a, &p->sample_offs, sizeof(uint64_t), n) &&
           pprof__vec_grow(a, &p->stack, sizeof(uint64_t), (size_t)e->pre.stack) &&
           pprof__vec_grow(a, &p->values, sizeof(int64_t), n * nt) &&
           pprof__vec_grow(a, &p->labels, sizeof(pprof_label), (size_t)e->pre.labels));
}

/* The passes: sums that need every sample first, then the output. */
static pprof_status
passes(pprof__ed *e, pprof_merger *m)
{
    const pprof_edit_options *o = &e->o;
    if (o->normalize_base) {
        if (each_batch(e, batch_normalize_sum, NULL))
            return e->st;
        ed_normalize_ratio(e, e->in->sample_types.len);
    }
    if ((set(o->tag_focus) || set(o->tag_ignore)) && each_batch(e, batch_units, NULL))
        return e->st;
    if ((e->t_from.set || e->t_to.set) &&
        (each_batch(e, batch_time_first, NULL) || ed_time_resolve(e)))
        return e->st;
    if (o->min_fraction > 0 && each_batch(e, batch_total, NULL))
        return e->st;
    e->final = true;
    pprof__vec all = {NULL, 0, 0}, kept;
    bool pre = prefilter(e, &kept);
    if (pre) { /* the batches then go over the kept samples only, in their order */
        all = e->lazy->lazy;
        e->lazy->lazy = kept;
        e->lazy->lazy_n = 0;
        e->pre.on = true;
        presize_kept(e);
    }
    if (!e->st)
        each_batch(e, batch_output, m);
    if (pre) {
        e->pre.on = false;
        e->lazy->lazy = all;
        e->lazy->lazy_n = 0;
        pprof__free(e->a, kept.data);
    }
    if (e->st)
        return e->st;
    static const char *names[ED_NM_COUNT] = {"TagRoot",   "TagLeaf", "Focus",    "Ignore",
                                             "Hide",      "Show",    "ShowFrom", "TagFocus",
                                             "TagIgnore", "TagShow", "TagHide"};
    for (unsigned k = 0; k < ED_NM_COUNT; k++)
        if ((e->nm_seen >> k & 1) && !(e->nm_matched >> k & 1))
            ed_warn(e, "%s expression matched no samples", names[k]);
    if (e->o.step)
        report_steps(e);
    return PPROF_OK;
}

/* Go's fetch loads every profile through Merge, which sums the samples with the same stack and
 * labels, so ScaleN and Normalize round those sums: round(a) + round(b) is not round(a + b).
 * When an operation rounds, the input is compacted by a merger first, a batch at a time for a
 * merge input; the batches then edit that. Samples an operation makes identical are only
 * summed at the end, after the rounding, as Go does not merge again. The input's own checks
 * run first, so their paths name the input's samples. */
static pprof_status
load_as_go(pprof__ed *e, const pprof_merge_options *mo, pprof_profile **pre)
{
    const pprof_edit_options *o = &e->o;
    if (!o->n_scale && !o->normalize_base)
        return PPROF_OK;
    size_t n = e->lazy ? e->lazy->lazy.len / 2 : e->in->samples.len;
    for (e->first = 0; !e->st && e->first < n; e->first += PPROF__EDIT_BATCH) {
        if (e->lazy &&
            (e->st = pprof__decode_samples(e->lazy, e->first, PPROF__EDIT_BATCH, e->err)))
            return e->st;
        if ((e->st = check_samples(e)) || !e->lazy)
            break;
    }
    if (e->lazy)
        e->lazy->lazy_n = 0;
    if (e->st)
        return e->st;
    pprof_merge_options quiet = *mo;
    quiet.warn = NULL; /* the output's merger sees the same and says it */
    pprof_merger *m = NULL;
    if (!(e->st = pprof_merger_new(&quiet, &m, e->err))) {
        /* validated above (check_input, check_samples) */
        e->st = pprof__merger_add_valid(m, e->lazy ? e->lazy : e->in, NULL, e->err);
        if (!e->st)
            e->st = pprof_merger_finish(m, pre, e->err);
    }
    pprof_merger_free(m);
    if (e->st)
        return e->st;
    e->in = *pre;
    e->lazy = NULL;
    e->lazy_input = NULL;
    e->first = 0;
    return e->st = check_input(e);
}

static pprof_status
edit(const pprof_profile *in, pprof_merge_input *lazy, const pprof_edit_options *opts,
     out_kind kind, pprof_profile **out, const char *path, const pprof_write_options *wopts,
     pprof_buffer *buf, pprof_error *err)
{
    if (out)
        *out = NULL;
    if ((!in && !(lazy && lazy->p)) || (kind == OUT_PROFILE && !out) ||
        (kind == OUT_FILE && !path) || (kind == OUT_MEMORY && !buf))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    if (in && in->lazy.len)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "pass a merge input's profile through pprof_edit_input_*");
    pprof__ed e;
    memset(&e, 0, sizeof(e));
    pprof_edit_options_init(&e.o);
    if (opts) {
        size_t n = opts->struct_size < sizeof(e.o) ? opts->struct_size : sizeof(e.o);
        memcpy(&e.o, opts, n);
        e.o.struct_size = sizeof(e.o);
    }
    pprof_error scratch;
    e.err = err ? err : &scratch;
    e.a = &e.o.allocator;
    /* Without a caller's allocator, the working tables of a large input (the batches' sample
     * tables, the focus states, the spans kept) come from blocks in huge pages, as a merger's
     * do (memory-private.h): first touches of the default allocator's small pages cost more
     * than the work done in them. All that is made with them is freed before they are. */
    pprof__blocks *blocks =
        pprof__blocks_for_work(&e.o.allocator, lazy ? lazy->p->buf_len : in->buf_len);
    pprof_allocator blocks_a;
    if (blocks) {
        blocks_a = pprof__blocks_allocator(blocks);
        e.a = &blocks_a;
    }
    e.in = lazy ? lazy->p : in;
    e.lazy = lazy ? lazy->p : NULL;
    e.lazy_input = lazy;
    pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
    mo.warn = e.o.warn;
    mo.warn_ctx = e.o.warn_ctx;
    mo.allocator = e.o.allocator;
    mo.threads = e.o.threads;
    pprof_merger *m = NULL;
    pprof_profile *pre = NULL;
    /* options (patterns included) before the input: a bad option is refused the same way
     * whether the input's samples are checked up front or a batch at a time */
    if (!(e.st = check_options(&e)) && !(e.st = compile_patterns(&e)) &&
        !(e.st = check_input(&e)) && !load_as_go(&e, &mo, &pre) &&
        !(e.st = pprof_merger_new(&mo, &m, e.err)))
        passes(&e, m);
    free_patterns(&e);
    free_steps(&e);
    pprof__free(e.a, e.prune_from_at);
    pprof__free(e.a, e.canon);
    pprof__free(e.a, e.units);
    pprof__free(e.a, e.norm);
    pprof_status st = e.st;
    if (!st) {
        if (kind == OUT_PROFILE)
            st = pprof_merger_finish(m, out, err);
        else if (kind == OUT_FILE)
            st = pprof_merger_write_file(m, wopts, path, NULL, err);
        else
            st = pprof_merger_write_memory(m, wopts, buf, NULL, err);
    }
    pprof_merger_free(m);
    pprof_profile_free(pre);
    pprof__blocks_release(blocks);
    return st;
}

pprof_status
pprof_edit(const pprof_profile *in, const pprof_edit_options *opts, pprof_profile **out,
           pprof_error *err)
{
    return edit(in, NULL, opts, OUT_PROFILE, out, NULL, NULL, NULL, err);
}

pprof_status
pprof_edit_write_file(const pprof_profile *in, const pprof_edit_options *opts,
                      const pprof_write_options *wopts, const char *path, pprof_error *err)
{
    return edit(in, NULL, opts, OUT_FILE, NULL, path, wopts, NULL, err);
}

pprof_status
pprof_edit_write_memory(const pprof_profile *in, const pprof_edit_options *opts,
                        const pprof_write_options *wopts, pprof_buffer *out, pprof_error *err)
{
    return edit(in, NULL, opts, OUT_MEMORY, NULL, NULL, wopts, out, err);
}

pprof_status
pprof_edit_input_write_file(pprof_merge_input *in, const pprof_edit_options *opts,
                            const pprof_write_options *wopts, const char *path, pprof_error *err)
{
    return edit(NULL, in, opts, OUT_FILE, NULL, path, wopts, NULL, err);
}

pprof_status
pprof_edit_input_write_memory(pprof_merge_input *in, const pprof_edit_options *opts,
                              const pprof_write_options *wopts, pprof_buffer *out, pprof_error *err)
{
    return edit(NULL, in, opts, OUT_MEMORY, NULL, NULL, wopts, out, err);
}

pprof_status
pprof_edit_input(pprof_merge_input *in, const pprof_edit_options *opts, pprof_profile **out,
                 pprof_error *err)
{
    return edit(NULL, in, opts, OUT_PROFILE, out, NULL, NULL, NULL, err);
}
