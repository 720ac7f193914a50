/* pprof_diff_profile (`go tool pprof -proto -diff_base`) and pprof_diff, the node table of two
 * profiles. The diff profile is driver.fetchProfiles' recipe: BASE labelled pprof::base=true,
 * NEW normalized to BASE's totals if asked, BASE negated, both merged by the library's merger
 * (which follows profile.Merge). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pprof/merge.h"
#include "report-private.h"

void
pprof_diff_options_init(pprof_diff_options *opts)
{
    pprof_diff_options d = PPROF_DIFF_OPTIONS_INIT;
    *opts = d;
}

static pprof_diff_options
diff_opts(const pprof_diff_options *opts)
{
    pprof_diff_options o = PPROF_DIFF_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    return o;
}

static bool
copy_vec(const pprof_allocator *a, pprof__vec *dst, const pprof__vec *src, size_t elem)
{
    *dst = (pprof__vec){0};
    if (!src->len)
        return true;
    if (!pprof__vec_grow(a, dst, elem, src->len))
        return false;
    memcpy(dst->data, src->data, src->len * elem);
    dst->len = src->len;
    return true;
}

/* A scaled copy borrows the tables it does not change from its source; these are they. */
static pprof__vec *
borrowed(pprof_profile *c, size_t i)
{
    pprof__vec *v[] = {&c->sample_types, &c->mappings, &c->locations, &c->lines,
                       &c->functions,    &c->comments, &c->stack};
    return i < sizeof(v) / sizeof(v[0]) ? v[i] : NULL;
}

/* Frees a scaled copy without freeing what it borrowed. */
static void
free_copy(pprof_profile *c)
{
    if (!c)
        return;
    pprof__vec *v;
    for (size_t i = 0; (v = borrowed(c, i)); i++)
        *v = (pprof__vec){0};
    pprof_profile_free(c);
}

/* A value of sample i of p (who: which profile, as the diff sees it) that r takes past int64:
 * Go converts such a product to whatever its hardware gives; here it is an error. */
static pprof_status
scaled_overflow(const pprof_profile *p, const char *who, size_t i, uint32_t k, int64_t v, double r,
                pprof_error *err)
{
    char path[64];
    snprintf(path, sizeof(path), "sample[%zu].value[%u]", i, k);
    pprof_string t = {"", 0};
    if (k < p->sample_types.len)
        pprof_profile_string(p, PPROF__AT(p->sample_types, pprof_value_type, k).type, &t);
    return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                        "%s: the %.*s value %lld times %g is past the int64 range", who,
                        (int)(t.len > 40 ? 40 : t.len), t.data, (long long)v, r);
}

/* A copy of p whose samples' values are multiplied per type (profile.ScaleN: rounded, and a
 * sample is kept only if a value whose ratio is not 1 stays nonzero), each sample labelled
 * pprof::base=true when label is set. It borrows p's other tables and strings: p must outlive
 * it, and it is freed with free_copy. */
static pprof_status
scaled_copy(const pprof_profile *p, const char *who, const double *ratio, bool label,
            const pprof_allocator *a, pprof_profile **out, pprof_error *err)
{
    pprof_profile *c = pprof__profile_new(a);
    if (!c)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    const pprof_allocator *ca = &c->alloc;
    c->source_format = p->source_format;
    c->hdr = p->hdr;
    c->has_string_table = p->has_string_table;
    pprof__vec *bv;
    for (size_t i = 0; (bv = borrowed(c, i)); i++)
        *bv = *borrowed((pprof_profile *)p, i);
    size_t n_samples = p->samples.len;
    bool ok = copy_vec(ca, &c->strings, &p->strings, sizeof(pprof_string)) &&
              pprof__vec_grow(ca, &c->values, sizeof(int64_t), p->values.len + 1) &&
              pprof__vec_grow(ca, &c->labels, sizeof(pprof_label),
                              p->labels.len + (label ? n_samples : 0) + 1) &&
              pprof__vec_grow(ca, &c->samples, sizeof(pprof__sample), n_samples + 1);
    int64_t key = (int64_t)c->strings.len, val = key + 1;
    if (ok && label) {
        pprof_string *k = pprof__vec_push(ca, &c->strings, sizeof(pprof_string));
        if (k)
            *k = (pprof_string){"pprof::base", 11};
        pprof_string *v = k ? pprof__vec_push(ca, &c->strings, sizeof(pprof_string)) : NULL;
        if (v)
            *v = (pprof_string){"true", 4};
        ok = v != NULL;
    }
    size_t nt = p->sample_types.len;
    bool all_ones = true;
    for (size_t t = 0; t < nt; t++)
        all_ones &= ratio[t] == 1;
    for (size_t i = 0; ok && i < p->samples.len; i++) {
        pprof__sample s = PPROF__AT(p->samples, pprof__sample, i);
        const int64_t *v = s.n_val ? (const int64_t *)p->values.data + s.val_off : NULL;
        size_t off = c->values.len;
        bool keep = all_ones;
        for (uint32_t k = 0; k < s.n_val && ok; k++) {
            int64_t *nv = pprof__vec_push(ca, &c->values, sizeof(int64_t));
            ok = nv != NULL;
            if (!ok)
                break;
            double r = k < nt ? ratio[k] : 1;
            *nv = v[k];
            if (r != 1) {
                double x = round((double)v[k] * r);
                if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) {
                    free_copy(c);
                    return scaled_overflow(p, who, i, k, v[k], r, err);
                }
                *nv = (int64_t)x;
                keep |= *nv != 0;
            }
        }
        if (!ok || !keep) {
            if (ok)
                c->values.len = off;
            continue;
        }
        s.val_off = (uint32_t)off;
        size_t loff = c->labels.len;
        for (uint32_t k = 0; k < s.n_lab && ok; k++) {
            pprof_label *l = pprof__vec_push(ca, &c->labels, sizeof(pprof_label));
            if ((ok = l != NULL))
                *l = PPROF__AT(p->labels, pprof_label, s.lab_off + k);
        }
        if (ok && label) {
            pprof_label *l = pprof__vec_push(ca, &c->labels, sizeof(pprof_label));
            if ((ok = l != NULL))
                *l = (pprof_label){key, val, 0, 0};
        }
        s.lab_off = (uint32_t)loff;
        s.n_lab += label;
        pprof__sample *ns = ok ? pprof__vec_push(ca, &c->samples, sizeof(pprof__sample)) : NULL;
        if ((ok = ns != NULL))
            *ns = s;
        if (c->values.len > UINT32_MAX || c->labels.len > UINT32_MAX)
            ok = false;
    }
    if (!ok) {
        free_copy(c);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory copying");
    }
    *out = c;
    return PPROF_OK;
}

static bool
vt_equal(const pprof_profile *a, pprof_value_type x, const pprof_profile *b, pprof_value_type y)
{
    pprof_string s1 = {"", 0}, s2 = {"", 0}, u1 = {"", 0}, u2 = {"", 0};
    pprof_profile_string(a, x.type, &s1);
    pprof_profile_string(b, y.type, &s2);
    pprof_profile_string(a, x.unit, &u1);
    pprof_profile_string(b, y.unit, &u2);
    return s1.len == s2.len && u1.len == u2.len && !memcmp(s1.data, s2.data, s1.len) &&
           !memcmp(u1.data, u2.data, u1.len);
}

/* Go's Profile.compatible: the same period type and the same sample types in order. */
/* "type/unit type/unit" of p's sample types, cut to fit. */
static void
types_of(const pprof_profile *p, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < p->sample_types.len && at + 1 < cap; i++) {
        pprof_value_type t = PPROF__AT(p->sample_types, pprof_value_type, i);
        pprof_string ty = {"", 0}, un = {"", 0};
        pprof_profile_string(p, t.type, &ty);
        pprof_profile_string(p, t.unit, &un);
        int n = snprintf(buf + at, cap - at, "%s%.*s/%.*s", i ? " " : "", (int)ty.len, ty.data,
                         (int)un.len, un.data);
        at = n < 0 ? cap : at + (size_t)n;
    }
}

/* NEW is the one named when the two differ: BASE is the reference it is compared with. */
static pprof_status
check_compatible(const pprof_profile *base, const pprof_profile *cur, pprof_error *err)
{
    bool ok = vt_equal(base, base->hdr.period_type, cur, cur->hdr.period_type) &&
              base->sample_types.len == cur->sample_types.len;
    for (size_t i = 0; ok && i < base->sample_types.len; i++)
        ok = vt_equal(base, PPROF__AT(base->sample_types, pprof_value_type, i), cur,
                      PPROF__AT(cur->sample_types, pprof_value_type, i));
    if (!ok) {
        char bt[80], ct[80];
        types_of(base, bt, sizeof(bt));
        types_of(cur, ct, sizeof(ct));
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "NEW: sample or period types differ from BASE's (NEW has %s, BASE "
                            "has %s); pick a sample type both have",
                            ct, bt);
    }
    return PPROF_OK;
}

/* The total of each type (who names p in an error): a total past int64 is an error naming the
 * sample that took it there, where Go's would wrap into a wrong ratio. */
static pprof_status
type_sums(const pprof_profile *p, const char *who, int64_t *sum, pprof_error *err)
{
    size_t nt = p->sample_types.len;
    memset(sum, 0, nt * sizeof(int64_t));
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        for (uint32_t k = 0; k < s->n_val && k < nt; k++)
            if (__builtin_add_overflow(sum[k], PPROF__AT(p->values, int64_t, s->val_off + k),
                                       &sum[k])) {
                char path[64];
                snprintf(path, sizeof(path), "sample[%zu].value[%u]", i, k);
                pprof_string t = {"", 0};
                pprof_profile_string(p, PPROF__AT(p->sample_types, pprof_value_type, k).type, &t);
                return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                                    "normalize: the total of %s %.*s values is past the int64 "
                                    "range at this sample",
                                    who, (int)(t.len > 40 ? 40 : t.len), t.data);
            }
    }
    return PPROF_OK;
}

/* NEW as the diff uses it: scaled to BASE's totals with normalize (profile.Normalize). */
static pprof_status
normalized(const pprof_profile *base, const pprof_profile *cur, const pprof_diff_options *o,
           pprof_profile **merged_out, pprof_profile **out, pprof_error *err)
{
    size_t nt = cur->sample_types.len;
    if (nt != base->sample_types.len)
        return check_compatible(base, cur, err);
    int64_t *bs = pprof__malloc(&o->allocator, 2 * (nt + 1) * sizeof(int64_t));
    double *r = pprof__malloc(&o->allocator, (nt + 1) * sizeof(double));
    pprof_status st = PPROF_E_NOMEM;
    pprof_profile *merged = NULL;
    if (bs && r) {
        /* Go merges every profile it reads (driver.combineProfiles), so samples with the same
         * stack and labels are summed before they are scaled and rounded */
        pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
        mo.allocator = o->allocator;
        const char *name = "NEW";
        st = pprof_merge(&cur, &name, 1, &mo, &merged, err);
    } else {
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    }
    int64_t *cs = st ? NULL : bs + nt + 1;
    if (!st && !(st = type_sums(base, "BASE's", bs, err)) &&
        !(st = type_sums(merged, "NEW's (equal samples summed)", cs, err))) {
        for (size_t i = 0; i < nt; i++)
            r[i] = cs[i] == 0 ? 0.0 : (double)bs[i] / (double)cs[i];
        st = scaled_copy(merged, "normalize: NEW (equal samples summed)", r, false, &o->allocator,
                         out, err);
    }
    *merged_out = merged; /* the copy's strings point into it: the caller frees both */
    pprof__free(&o->allocator, bs);
    pprof__free(&o->allocator, r);
    return st;
}

static pprof_status blame(pprof_error *err, const char *who, pprof_status st);
static pprof_status pick_types(const pprof_profile *base, const pprof_profile *cur,
                               const char *type, size_t *bi, size_t *ci, pprof_error *err);

/* Both profiles valid as pprof_validate decides, before anything is computed; the error's
 * message starts with BASE or NEW. */
static pprof_status
valid_pair(const pprof_profile *base, const pprof_profile *cur, pprof_error *err)
{
    if (!base || !cur)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile");
    pprof_status st = pprof__validate(base, "BASE", err);
    return st ? st : pprof__validate(cur, "NEW", err);
}

/* Merges NEW (normalized if asked) with BASE labelled and negated, then either finishes into
 * *out or writes to path. */
static pprof_status
diff_merge(const pprof_profile *base, const pprof_profile *cur, const pprof_diff_options *opts,
           pprof_profile **out, const char *path, const pprof_write_options *wopts,
           pprof_error *err)
{
    pprof_diff_options o = diff_opts(opts);
    if (!base || !cur || (!out && !path))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    if (out)
        *out = NULL;
    pprof_status st = valid_pair(base, cur, err);
    if (st)
        return st;
    bool intersect = o.sample_type && *o.sample_type;
    size_t bi, ci;
    if (!intersect && (st = check_compatible(base, cur, err)))
        return st;
    if (intersect && (st = pick_types(base, cur, o.sample_type, &bi, &ci, err)))
        return st;
    pprof_profile *nb = NULL, *nc = NULL, *nm = NULL;
    pprof_merger *m = NULL;
    size_t nt = base->sample_types.len;
    double *minus = pprof__malloc(&o.allocator, (nt + 1) * sizeof(double));
    if (!minus)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    for (size_t i = 0; i < nt; i++)
        minus[i] = -1;
    if (o.normalize)
        st = normalized(base, cur, &o, &nm, &nc, err);
    if (!st)
        st = scaled_copy(base, "BASE, negated", minus, true, &o.allocator, &nb, err);
    pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
    mo.intersect_types = intersect;
    mo.allocator = o.allocator;
    mo.threads = o.threads;
    if (!st)
        st = pprof_merger_new(&mo, &m, err);
    if (!st)
        st = pprof__merger_add_valid(m, nc ? nc : cur, "NEW", err);
    if (!st)
        st = pprof__merger_add_valid(m, nb, "BASE", err);
    if (st == PPROF_E_INCOMPATIBLE) /* NEW is compared with BASE: NEW is named */
        blame(err, "NEW", st);
    if (!st && out)
        st = pprof_merger_finish(m, out, err);
    else if (!st)
        st = pprof_merger_write_file(m, wopts, path, NULL, err);
    pprof_merger_free(m);
    pprof__free(&o.allocator, minus);
    free_copy(nb);
    free_copy(nc);
    pprof_profile_free(nm);
    return st;
}

pprof_status
pprof_diff_profile(const pprof_profile *base, const pprof_profile *cur,
                   const pprof_diff_options *opts, pprof_profile **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    return diff_merge(base, cur, opts, out, NULL, NULL, err);
}

pprof_status
pprof_diff_write_file(const pprof_profile *base, const pprof_profile *cur,
                      const pprof_diff_options *opts, const pprof_write_options *wopts,
                      const char *path, pprof_error *err)
{
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output path");
    return diff_merge(base, cur, opts, NULL, path, wopts, err);
}

/* ---- the node table */

typedef struct dnode {
    char *name;
    size_t len;
    int64_t v[4]; /* base flat, base cum, new flat, new cum */
} dnode;

struct pprof_diff {
    pprof_allocator a;
    pprof__arena arena;
    dnode *nodes;
    size_t n;
    pprof_diff_summary sum;
};

static int
name_cmp(const dnode *x, const dnode *y)
{
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->name, y->name, n) : 0;
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static int
by_name(const void *a, const void *b)
{
    return name_cmp(a, b);
}

static uint64_t
absu(int64_t v)
{
    return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static uint64_t
change(const dnode *d)
{
    uint64_t f = absu(d->v[2] - d->v[0]), c = absu(d->v[3] - d->v[1]);
    return f > c ? f : c;
}

static int
by_change(const void *a, const void *b)
{
    uint64_t x = change(a), y = change(b);
    if (x != y)
        return x > y ? -1 : 1;
    return name_cmp(a, b);
}

/* The nonzero nodes of p, named, into d->nodes from index d->n, with values at slot (0 base,
 * 2 new). */
static pprof_status
add_nodes(pprof_diff *d, const pprof_profile *p, size_t index, pprof_granularity g, int slot,
          pprof_error *err)
{
    pprof__nodes nodes;
    pprof_status st = pprof__nodes_build(p, index, g, &d->a, &nodes, err);
    pprof_buffer b = {0};
    if (!st) {
        dnode *nn = pprof__realloc(&d->a, d->nodes, (d->n + nodes.n + 1) * sizeof(dnode));
        if (!nn)
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        else
            d->nodes = nn;
    }
    for (size_t i = 0; i < nodes.n && !st; i++) {
        if (!nodes.flat[i] && !nodes.cum[i])
            continue;
        b.len = 0;
        char *s = NULL;
        if (!pprof__node_name(&nodes.info[i], &b) && (s = pprof__arena_alloc(&d->arena, b.len)))
            memcpy(s, b.data, b.len);
        if (!s) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            break;
        }
        dnode *x = &d->nodes[d->n++];
        memset(x, 0, sizeof(*x));
        x->name = s;
        x->len = b.len - 1;
        x->v[slot] = nodes.flat[i];
        x->v[slot + 1] = nodes.cum[i];
    }
    pprof_buffer_free(&b);
    pprof__nodes_free(&nodes);
    return st;
}

/* Sorts by name and folds equal names together (nodes that print alike count as one). */
static void
fold_names(pprof_diff *d)
{
    qsort(d->nodes, d->n, sizeof(dnode), by_name);
    size_t w = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (w && !name_cmp(&d->nodes[w - 1], &d->nodes[i])) {
            for (int k = 0; k < 4; k++)
                d->nodes[w - 1].v[k] += d->nodes[i].v[k];
            continue;
        }
        d->nodes[w++] = d->nodes[i];
    }
    d->n = w;
}

/* Prefixes err's message with the profile it is about. */
static pprof_status
blame(pprof_error *err, const char *who, pprof_status st)
{
    if (err) {
        char msg[sizeof(err->message)];
        snprintf(msg, sizeof(msg), "%s: %.240s", who, err->message);
        memcpy(err->message, msg, sizeof(msg));
    }
    return st;
}

static pprof_status
pick_types(const pprof_profile *base, const pprof_profile *cur, const char *type, size_t *bi,
           size_t *ci, pprof_error *err)
{
    pprof_status st;
    if (!type || !*type) {
        if ((st = check_compatible(base, cur, err)))
            return st;
        /* Go diffs the merge of NEW and BASE (negated), in that order: its default sample type
         * is NEW's, or BASE's when NEW names none. The types are equal, so one index serves
         * both (a heap and an allocs profile of one program differ only there). */
        pprof_string d;
        const pprof_profile *by =
            pprof_profile_string(cur, cur->hdr.default_sample_type, &d) && d.len ? cur : base;
        if ((st = pprof_sample_type_find(by, NULL, ci, err)))
            return blame(err, by == cur ? "NEW" : "BASE", st);
        *bi = *ci;
        return PPROF_OK;
    }
    /* the profile without the type is named, with its own types */
    if ((st = pprof_sample_type_find(base, type, bi, err)))
        return blame(err, "BASE", st);
    if ((st = pprof_sample_type_find(cur, type, ci, err)))
        return blame(err, "NEW", st);
    if (!vt_equal(base, PPROF__AT(base->sample_types, pprof_value_type, *bi), cur,
                  PPROF__AT(cur->sample_types, pprof_value_type, *ci)))
        return pprof__error(err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                            "NEW: the sample type picked differs in name or unit from BASE's");
    return PPROF_OK;
}

static char *
dup_string(pprof__arena *arena, const pprof_profile *p, int64_t i, bool lower)
{
    pprof_string s = {"", 0};
    pprof_profile_string(p, i, &s);
    char *c = pprof__arena_alloc(arena, s.len + 1);
    if (!c)
        return NULL;
    for (size_t k = 0; k < s.len; k++)
        c[k] = (char)(lower && s.data[k] >= 'A' && s.data[k] <= 'Z' ? s.data[k] + 32 : s.data[k]);
    c[s.len] = 0;
    return c;
}

pprof_status
pprof_diff_new(const pprof_profile *base, const pprof_profile *cur, const pprof_diff_options *opts,
               pprof_diff **out, pprof_error *err)
{
    pprof_diff_options o = diff_opts(opts);
    if (!base || !cur || !out || o.granularity > PPROF_GRANULARITY_ADDRESSES)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    *out = NULL;
    size_t bi, ci;
    pprof_status st = valid_pair(base, cur, err);
    if (!st)
        st = pick_types(base, cur, o.sample_type, &bi, &ci, err);
    if (st)
        return st;
    pprof_diff *d = pprof__malloc(&o.allocator, sizeof(*d));
    if (!d)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(d, 0, sizeof(*d));
    d->a = o.allocator;
    pprof__arena_init(&d->arena, &d->a);
    pprof_profile *nc = NULL, *nm = NULL, *mb = NULL;
    if (o.normalize)
        st = normalized(base, cur, &o, &nm, &nc, err);
    /* normalize reads NEW through the merger, which may change how a location prints (one
     * below its mapping's start loses the mapping): BASE goes through it too, as Go merges
     * every profile it reads, so that a profile against itself differs nowhere */
    if (!st && o.normalize) {
        pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
        mo.allocator = o.allocator;
        const char *name = "BASE";
        st = pprof_merge(&base, &name, 1, &mo, &mb, err);
    }
    const pprof_profile *c = nc ? nc : cur;
    if (mb)
        base = mb;
    if (!st)
        st = add_nodes(d, base, bi, o.granularity, 0, err);
    if (!st)
        st = add_nodes(d, c, ci, o.granularity, 2, err);
    if (!st) {
        fold_names(d);
        qsort(d->nodes, d->n, sizeof(dnode), by_change);
        pprof_value_type vt = PPROF__AT(base->sample_types, pprof_value_type, bi);
        d->sum.sample_type = dup_string(&d->arena, base, vt.type, false);
        d->sum.sample_unit = dup_string(&d->arena, base, vt.unit, true);
        for (size_t i = 0; i < base->samples.len; i++) {
            const pprof__sample *s = &PPROF__AT(base->samples, pprof__sample, i);
            if (bi < s->n_val)
                d->sum.base_total += PPROF__AT(base->values, int64_t, s->val_off + bi);
        }
        for (size_t i = 0; i < c->samples.len; i++) {
            const pprof__sample *s = &PPROF__AT(c->samples, pprof__sample, i);
            if (ci < s->n_val)
                d->sum.new_total += PPROF__AT(c->values, int64_t, s->val_off + ci);
        }
        if (!d->sum.sample_type || !d->sum.sample_unit)
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    free_copy(nc);
    pprof_profile_free(nm);
    pprof_profile_free(mb);
    if (st) {
        pprof_diff_free(d);
        return st;
    }
    *out = d;
    return PPROF_OK;
}

void
pprof_diff_free(pprof_diff *d)
{
    if (!d)
        return;
    pprof_allocator a = d->a;
    pprof__free(&a, d->nodes);
    pprof__arena_destroy(&d->arena);
    pprof__free(&a, d);
}

pprof_diff_summary
pprof_diff_get_summary(const pprof_diff *d)
{
    return d->sum;
}

size_t
pprof_diff_count(const pprof_diff *d)
{
    return d->n;
}

pprof_diff_node
pprof_diff_node_at(const pprof_diff *d, size_t i)
{
    pprof_diff_node n = {"", 0, 0, 0, 0, 0};
    if (i < d->n) {
        const dnode *x = &d->nodes[i];
        n = (pprof_diff_node){x->name, x->len, x->v[0], x->v[1], x->v[2], x->v[3]};
    }
    return n;
}
