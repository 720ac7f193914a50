/* Operations go tool pprof has no flag for, with the meaning of the profile package's functions
 * where there is one: keeping sample types, RemoveLabel/SetLabel and renaming, ScaleN and
 * Normalize, Aggregate; and the two trims. */
#include <math.h>
#include <stdio.h>

#include "edit-private.h"
#include "htab-private.h"

static bool
str_eq(const pprof__ed *e, int64_t i, const char *s)
{
    pprof_string t = ed_str(e, i);
    size_t n = strlen(s);
    return t.len == n && (!n || !memcmp(t.data, s, n));
}

static const int64_t *
values_of(const pprof__ed *e, const pprof__sample *s)
{
    return ed_ptr(e->w->values.data, sizeof(int64_t), s->val_off);
}

/* Replaces w's values with a fresh table of k per sample, filled by the caller through *out;
 * the old table (borrowed or not) is released afterwards by finish_values. */
static int64_t *
new_values(pprof__ed *e, size_t k, pprof__vec *fresh)
{
    memset(fresh, 0, sizeof(*fresh));
    size_t n = e->w->samples.len * k;
    if (n > UINT32_MAX) {
        e->st = pprof__error(e->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                             "the edited values exceed 2^32");
        return NULL;
    }
    if (!pprof__vec_grow(e->a, fresh, sizeof(int64_t), n ? n : 1)) {
        ed_nomem(e);
        return NULL;
    }
    fresh->len = n;
    return fresh->data;
}

static void
finish_values(pprof__ed *e, pprof__vec *fresh)
{
    if (!(e->borrowed & ED_B_VALUES))
        pprof__free(e->a, e->w->values.data);
    e->borrowed &= ~(unsigned)ED_B_VALUES;
    e->w->values = *fresh;
}

/* ---------------------------------------------------------------- sample types */

pprof_status
ed_sample_types(pprof__ed *e)
{
    size_t k = e->o.n_sample_types, nt = e->w->sample_types.len;
    const pprof_value_type *types = e->w->sample_types.data;
    uint32_t *pick = pprof__malloc(e->a, (k + 1) * sizeof(uint32_t));
    if (!pick)
        return ed_nomem(e);
    for (size_t i = 0; i < k && !e->st; i++) {
        const char *want = e->o.sample_types[i] ? e->o.sample_types[i] : "";
        pick[i] = PPROF_NONE;
        for (size_t t = 0; t < nt; t++)
            if (str_eq(e, types[t].type, want)) {
                if (pick[i] != PPROF_NONE)
                    e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                                         "sample_types: the profile has two sample types "
                                         "named '%s'",
                                         want);
                pick[i] = (uint32_t)t;
            }
        for (size_t j = 0; j < i && !e->st; j++)
            if (pick[j] == pick[i])
                e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                     "sample_types: '%s' is asked for twice", want);
        if (!e->st && pick[i] == PPROF_NONE)
            e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                                 "sample_types: the profile has no sample type '%s'", want);
    }
    pprof__vec fresh, st = {NULL, 0, 0};
    int64_t *v = e->st ? NULL : new_values(e, k, &fresh);
    if (v && !pprof__vec_grow(e->a, &st, sizeof(pprof_value_type), k)) {
        pprof__free(e->a, fresh.data);
        v = NULL;
        ed_nomem(e);
    }
    if (v) {
        bool keep_default = false;
        for (size_t i = 0; i < k; i++) {
            PPROF__AT(st, pprof_value_type, i) = types[pick[i]];
            if (e->w->hdr.default_sample_type &&
                ed_str(e, types[pick[i]].type).len ==
                    ed_str(e, e->w->hdr.default_sample_type).len &&
                !memcmp(ed_str(e, types[pick[i]].type).data,
                        ed_str(e, e->w->hdr.default_sample_type).data,
                        ed_str(e, types[pick[i]].type).len))
                keep_default = true;
        }
        st.len = k;
        for (size_t i = 0; i < e->w->samples.len; i++) {
            pprof__sample *s = &ed_samples(e)[i];
            const int64_t *old = values_of(e, s);
            for (size_t j = 0; j < k; j++)
                v[i * k + j] = old[pick[j]];
            s->val_off = (uint32_t)(i * k);
            s->n_val = (uint32_t)k;
        }
        finish_values(e, &fresh);
        if (!(e->borrowed & ED_B_SAMPLE_TYPES))
            pprof__free(e->a, e->w->sample_types.data);
        e->borrowed &= ~(unsigned)ED_B_SAMPLE_TYPES;
        e->w->sample_types = st;
        if (!keep_default)
            e->w->hdr.default_sample_type = 0;
    }
    pprof__free(e->a, pick);
    return e->st;
}

/* ---------------------------------------------------------------- labels */

/* What happens to labels with key string i: -1 removed, else the key's string index after the
 * renames (in order). memo: INT64_MIN = not decided. */
static int64_t
label_key(pprof__ed *e, int64_t *memo, const int64_t *rename_to, int64_t i)
{
    if (memo[i] != INT64_MIN)
        return memo[i];
    int64_t k = i;
    for (size_t r = 0; r < e->o.n_remove_labels; r++)
        if (e->o.remove_labels[r] && str_eq(e, k, e->o.remove_labels[r]))
            return memo[i] = -1;
    for (size_t r = 0; r < e->o.n_rename_labels; r++)
        if (e->o.rename_labels[r].from && str_eq(e, k, e->o.rename_labels[r].from))
            k = rename_to[r];
    return memo[i] = k;
}

pprof_status
ed_labels(pprof__ed *e)
{
    const pprof_edit_options *o = &e->o;
    size_t nset = o->n_set_labels, nren = o->n_rename_labels;
    int64_t *ids = pprof__malloc(e->a, (2 * nset + nren + 1) * sizeof(int64_t));
    if (!ids)
        return ed_nomem(e);
    for (size_t i = 0; i < nset && !e->st; i++) {
        const char *k = o->set_labels[i].key ? o->set_labels[i].key : "";
        const char *v = o->set_labels[i].value ? o->set_labels[i].value : "";
        ids[2 * i] = ed_add_string(e, k, strlen(k));
        ids[2 * i + 1] = ed_add_string(e, v, strlen(v));
    }
    int64_t *rename_to = ids + 2 * nset;
    for (size_t i = 0; i < nren && !e->st; i++) {
        const char *t = o->rename_labels[i].to ? o->rename_labels[i].to : "";
        rename_to[i] = ed_add_string(e, t, strlen(t));
    }
    size_t ns = e->w->strings.len, most = 0;
    int64_t *memo = e->st ? NULL : pprof__malloc(e->a, (ns + 1) * sizeof(int64_t));
    for (size_t i = 0; i < e->w->samples.len; i++)
        if (ed_samples(e)[i].n_lab > most)
            most = ed_samples(e)[i].n_lab;
    pprof_label *tmp = memo ? pprof__malloc(e->a, (most + nset + 1) * sizeof(pprof_label)) : NULL;
    if (!e->st && !tmp)
        ed_nomem(e);
    for (size_t i = 0; tmp && i < ns; i++)
        memo[i] = INT64_MIN;
    for (size_t i = 0; tmp && !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        const pprof_label *l = ed_ptr(e->w->labels.data, sizeof(pprof_label), s->lab_off);
        size_t k = 0;
        bool changed = nset > 0;
        for (uint32_t j = 0; j < s->n_lab; j++) {
            int64_t key = label_key(e, memo, rename_to, l[j].key);
            changed |= key != l[j].key;
            if (key < 0)
                continue;
            /* SetLabel replaces the key's string values */
            bool replaced = false;
            for (size_t t = 0; t < nset && l[j].str; t++)
                replaced |= str_eq(e, key, o->set_labels[t].key ? o->set_labels[t].key : "");
            if (replaced)
                continue;
            tmp[k] = l[j];
            tmp[k++].key = key;
        }
        for (size_t t = 0; t < nset; t++) {
            bool dup = false; /* a key set twice keeps its last value, as SetLabel does */
            for (size_t u = t + 1; u < nset; u++)
                dup |= !strcmp(o->set_labels[u].key ? o->set_labels[u].key : "",
                               o->set_labels[t].key ? o->set_labels[t].key : "");
            if (!dup)
                tmp[k++] = (pprof_label){ids[2 * t], ids[2 * t + 1], 0, 0};
        }
        if (changed)
            ed_set_labels(e, s, tmp, k);
    }
    pprof__free(e->a, tmp);
    pprof__free(e->a, memo);
    pprof__free(e->a, ids);
    return e->st;
}

/* ---------------------------------------------------------------- scale, normalize */

/* Go's int64(math.Round(x)) when x rounds into int64's range: false otherwise. Go then gives
 * what its hardware gives (INT64_MIN on amd64), a wrong number; here it is an error. */
static bool
round_i64(double x, int64_t *out)
{
    double r = round(x);
    if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
        return false;
    *out = (int64_t)r;
    return true;
}

/* The name of the leaf function of s ("" when it has none), for errors. */
static pprof_string
leaf_name(const pprof__ed *e, const pprof__sample *s)
{
    pprof_string none = {"", 0};
    if (!s->n_loc)
        return none;
    uint32_t li = ed_loc(e, ed_stack(e, s)[0]);
    if (li == PPROF_NONE)
        return none;
    const pprof__location *l = &PPROF__AT(e->w->locations, pprof__location, li);
    if (!l->n_line)
        return none;
    const pprof_line *ln = ed_ptr(e->w->lines.data, sizeof(pprof_line), l->line_off);
    uint32_t fi = ln->function_id ? ed_fn(e, ln->function_id) : PPROF_NONE;
    return fi == PPROF_NONE ? none : ed_str(e, PPROF__AT(e->w->functions, pprof_function, fi).name);
}

/* A scaled value past int64: the error names the sample (its index in the input when no
 * operation before has dropped samples, its leaf function always), the type, value and
 * factor. */
static pprof_status
scale_overflow(pprof__ed *e, const char *op, size_t i, bool input_index, size_t k, int64_t v,
               double f)
{
    char path[64] = "sample";
    if (input_index)
        snprintf(path, sizeof(path), "sample[%zu].value[%zu]", e->first + i, k);
    pprof_string leaf = leaf_name(e, &ed_samples(e)[i]);
    pprof_string type = ed_str(e, PPROF__AT(e->w->sample_types, pprof_value_type, k).type);
    return e->st = pprof__error(
               e->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
               "%s: the %.*s value %lld of the sample with leaf '%.*s' times %g is past the "
               "int64 range",
               op, (int)(type.len > 40 ? 40 : type.len), type.data, (long long)v,
               (int)(leaf.len > 80 ? 80 : leaf.len), leaf.data, f);
}

/* Profile.ScaleN: a sample stays when a scaled column is non-zero (unscaled columns are not
 * looked at, as in Go). */
static pprof_status
scale_n(pprof__ed *e, const double *ratio, const char *op, bool input_index)
{
    size_t nt = e->w->sample_types.len;
    bool ones = true;
    for (size_t i = 0; i < nt; i++)
        ones &= ratio[i] == 1;
    if (ones)
        return PPROF_OK;
    pprof__vec fresh;
    int64_t *v = new_values(e, nt, &fresh);
    if (!v)
        return e->st;
    size_t out = 0;
    for (size_t i = 0; i < e->w->samples.len; i++) {
        pprof__sample s = ed_samples(e)[i];
        const int64_t *old = values_of(e, &s);
        int64_t *dst = v + out * nt;
        bool keep = false;
        for (size_t k = 0; k < nt; k++) {
            dst[k] = old[k];
            if (ratio[k] != 1) {
                if (!round_i64((double)old[k] * ratio[k], &dst[k])) {
                    pprof__free(e->a, fresh.data);
                    return scale_overflow(e, op, i, input_index, k, old[k], ratio[k]);
                }
                keep |= dst[k] != 0;
            }
        }
        if (!keep)
            continue;
        s.val_off = (uint32_t)(out * nt);
        ed_samples(e)[out++] = s;
    }
    e->w->samples.len = out;
    fresh.len = out * nt;
    finish_values(e, &fresh);
    return PPROF_OK;
}

pprof_status
ed_scale(pprof__ed *e)
{
    size_t nt = e->w->sample_types.len;
    double *r = pprof__malloc(e->a, (nt + 1) * sizeof(double));
    if (!r)
        return ed_nomem(e);
    for (size_t i = 0; i < nt; i++)
        r[i] = 1;
    for (size_t i = 0; i < e->o.n_scale && !e->st; i++) {
        const pprof_edit_scale *s = &e->o.scale[i];
        bool found = !s->type;
        for (size_t t = 0; t < nt; t++)
            if (!s->type ||
                str_eq(e, PPROF__AT(e->w->sample_types, pprof_value_type, t).type, s->type)) {
                r[t] = s->factor;
                found = true;
            }
        if (!found)
            e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                                 "scale: the profile has no sample type '%s'", s->type);
    }
    if (!e->st)
        scale_n(e, r, "scale", false);
    pprof__free(e->a, r);
    return e->st;
}

static bool
same_type(const pprof__ed *e, pprof_value_type a, const pprof_profile *bp, pprof_value_type b)
{
    pprof_string at = ed_str(e, a.type), au = ed_str(e, a.unit), bt = {"", 0}, bu = {"", 0};
    pprof__str(bp, b.type, &bt);
    pprof__str(bp, b.unit, &bu);
    return at.len == bt.len && au.len == bu.len && !memcmp(at.data, bt.data, at.len) &&
           !memcmp(au.data, bu.data, au.len);
}

static pprof_status
normalize_overflow(pprof__ed *e, const char *whose, size_t i, size_t k)
{
    char path[64];
    snprintf(path, sizeof(path), "sample[%zu].value[%zu]", i, k);
    pprof_string type = ed_str(e, PPROF__AT(e->w->sample_types, pprof_value_type, k).type);
    return e->st = pprof__error(e->err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, path,
                                "normalize: the total of %s %.*s values is past the int64 range "
                                "at this sample",
                                whose, (int)(type.len > 40 ? 40 : type.len), type.data);
}

/* Profile.Normalize: each type scaled by base total / own total (0 when the own total is 0).
 * The totals are over every sample: ed_normalize_sum adds a batch's, ed_normalize_ratio
 * turns them into the ratios that ed_normalize applies to each batch. */
pprof_status
ed_normalize_sum(pprof__ed *e)
{
    const pprof_profile *b = e->o.normalize_base;
    size_t nt = e->w->sample_types.len;
    if (!e->norm) {
        bool ok = b->lazy.len == 0 && same_type(e, e->w->hdr.period_type, b, b->hdr.period_type) &&
                  b->sample_types.len == nt;
        for (size_t i = 0; ok && i < nt; i++)
            ok = same_type(e, PPROF__AT(e->w->sample_types, pprof_value_type, i), b,
                           PPROF__AT(b->sample_types, pprof_value_type, i));
        if (!ok)
            return e->st =
                       pprof__error(e->err, PPROF_E_INCOMPATIBLE, PPROF_NO_OFFSET, "sample_type",
                                    "normalize: the base profile's period type or sample "
                                    "types differ from the profile's");
        /* nt ratios, then 2 * nt sums (base, own) as int64_t: Go's sums wrap into a wrong
         * ratio; here a sum past int64 is an error naming the sample that took it there */
        if (!(e->norm = pprof__malloc(e->a, (3 * nt + 1) * sizeof(double))))
            return ed_nomem(e);
        memset(e->norm, 0, (3 * nt + 1) * sizeof(double));
        int64_t *sum = (int64_t *)(e->norm + nt);
        for (size_t i = 0; i < b->samples.len; i++) {
            const pprof__sample *s = &PPROF__AT(b->samples, pprof__sample, i);
            for (size_t k = 0; k < nt && k < s->n_val; k++)
                if (__builtin_add_overflow(sum[k], PPROF__AT(b->values, int64_t, s->val_off + k),
                                           &sum[k]))
                    return normalize_overflow(e, "the base profile's", i, k);
        }
    }
    int64_t *own = (int64_t *)(e->norm + nt) + nt;
    for (size_t i = 0; i < e->w->samples.len; i++) {
        const int64_t *v = values_of(e, &ed_samples(e)[i]);
        for (size_t k = 0; k < nt; k++)
            if (__builtin_add_overflow(own[k], v[k], &own[k]))
                return normalize_overflow(e, "the profile's", e->first + i, k);
    }
    return PPROF_OK;
}

void
ed_normalize_ratio(pprof__ed *e, size_t nt)
{
    const int64_t *sum = (const int64_t *)(e->norm + nt), *own = sum + nt;
    for (size_t k = 0; k < nt; k++)
        e->norm[k] = own[k] ? (double)sum[k] / (double)own[k] : 0.0;
}

pprof_status
ed_normalize(pprof__ed *e)
{
    return scale_n(e, e->norm, "normalize", true); /* normalize runs first: input indices */
}

/* ---------------------------------------------------------------- aggregate */

pprof_status
ed_aggregate(pprof__ed *e)
{
    bool inl = !e->o.no_inlines, fn = false, file = false, line = false, addr = false;
    switch (e->o.granularity) {
    case PPROF_GRANULARITY_NONE:
    case PPROF_GRANULARITY_ADDRESSES:
        if (inl)
            return PPROF_OK;
        fn = file = line = addr = true;
        break;
    case PPROF_GRANULARITY_LINES: fn = file = line = true; break;
    case PPROF_GRANULARITY_FILES: file = true; break;
    case PPROF_GRANULARITY_FUNCTIONS: fn = true; break;
    case PPROF_GRANULARITY_FILEFUNCTIONS: fn = file = true; break;
    }
    pprof_profile *w = e->w;
    if (!ed_own(e, &w->mappings, sizeof(pprof_mapping)) ||
        !ed_own(e, &w->functions, sizeof(pprof_function)) ||
        !ed_own(e, &w->locations, sizeof(pprof__location)) ||
        (!line && !ed_own(e, &w->lines, sizeof(pprof_line))))
        return e->st;
    for (size_t i = 0; i < w->mappings.len; i++) {
        pprof_mapping *m = &PPROF__AT(w->mappings, pprof_mapping, i);
        m->has_inline_frames &= inl;
        m->has_functions &= fn;
        m->has_filenames &= file;
        m->has_line_numbers &= line;
    }
    for (size_t i = 0; i < w->functions.len; i++) {
        pprof_function *f = &PPROF__AT(w->functions, pprof_function, i);
        if (!fn)
            f->name = f->system_name = 0;
        if (!file)
            f->filename = 0;
    }
    for (size_t i = 0; i < w->locations.len; i++) {
        pprof__location *l = &PPROF__AT(w->locations, pprof__location, i);
        if (!inl && l->n_line > 1) {
            l->line_off += l->n_line - 1;
            l->n_line = 1;
        }
        if (!addr)
            l->address = 0;
    }
    /* Go's Line has no column in this version; a column without a line number means
     * nothing, so it goes too */
    for (size_t i = 0; !line && i < w->lines.len; i++) {
        PPROF__AT(w->lines, pprof_line, i).line = 0;
        PPROF__AT(w->lines, pprof_line, i).column = 0;
    }
    return PPROF_OK;
}

/* ---------------------------------------------------------------- trim */

/* The root frame that stands for the cut part of a stack: one per count of cut frames. */
static uint64_t
cut_frame(pprof__ed *e, pprof__u64map *made, uint64_t cut)
{
    uint32_t have = pprof__u64map_get(made, cut);
    if (have != PPROF_NONE)
        return PPROF__AT(e->w->locations, pprof__location, have).id;
    char name[64];
    int n = snprintf(name, sizeof(name), "[%llu frames cut by pprof-edit --max-depth]",
                     (unsigned long long)cut);
    int64_t ns = ed_add_string(e, name, (size_t)n);
    if (ns < 0 || !ed_reserve(e, &e->w->functions, sizeof(pprof_function), 1) ||
        !ed_reserve(e, &e->w->lines, sizeof(pprof_line), 1) ||
        !ed_reserve(e, &e->w->locations, sizeof(pprof__location), 1)) {
        ed_nomem(e);
        return 0;
    }
    uint64_t fid = e->first_fn_id + (e->w->functions.len - e->n_fn0);
    uint64_t lid = e->first_loc_id + (e->w->locations.len - e->n_loc0);
    pprof_function *f = pprof__vec_push(e->a, &e->w->functions, sizeof(pprof_function));
    *f = (pprof_function){fid, ns, ns, 0, 0};
    pprof_line *ln = pprof__vec_push(e->a, &e->w->lines, sizeof(pprof_line));
    *ln = (pprof_line){fid, 0, 0};
    pprof__location *l = pprof__vec_push(e->a, &e->w->locations, sizeof(pprof__location));
    *l = (pprof__location){lid, 0, 0, (uint32_t)(e->w->lines.len - 1), 1, false};
    uint32_t old;
    bool added;
    if (!pprof__u64map_put(made, e->a, cut, (uint32_t)(e->w->locations.len - 1), &old, &added))
        ed_nomem(e);
    return lid;
}

pprof_status
ed_max_depth(pprof__ed *e)
{
    uint32_t d = e->o.max_depth;
    /* sized by the stacks, not by d (which may be 2^32 - 1): d + 1 frames only when a stack
     * is deeper than d */
    bool cut = false;
    for (size_t i = 0; !cut && i < e->w->samples.len; i++)
        cut = ed_samples(e)[i].n_loc > d;
    if (!cut)
        return PPROF_OK;
    pprof__u64map made;
    uint64_t *buf = pprof__malloc(e->a, ((size_t)d + 1) * sizeof(uint64_t));
    if (!buf || !pprof__u64map_init(&made, e->a, 0)) {
        pprof__free(e->a, buf);
        return ed_nomem(e);
    }
    for (size_t i = 0; !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        if (s->n_loc <= d)
            continue;
        memcpy(buf, ed_stack(e, s), d * sizeof(uint64_t));
        buf[d] = cut_frame(e, &made, s->n_loc - d);
        if (!e->st)
            ed_set_stack(e, s, buf, (size_t)d + 1);
    }
    pprof__u64map_free(&made, e->a);
    pprof__free(e->a, buf);
    return e->st;
}

/* The index go tool pprof reports by default (SampleIndexByName("")): the default sample
 * type, else the last type. */
static size_t
default_index(const pprof__ed *e)
{
    size_t nt = e->w->sample_types.len;
    pprof_string d = ed_str(e, e->w->hdr.default_sample_type);
    for (size_t i = 0; d.len && i < nt; i++) {
        pprof_string t = ed_str(e, PPROF__AT(e->w->sample_types, pprof_value_type, i).type);
        if (t.len == d.len && !memcmp(t.data, d.data, d.len))
            return i;
    }
    return nt - 1;
}

pprof_status
ed_min_fraction(pprof__ed *e)
{
    if (!e->w->sample_types.len)
        return PPROF_OK;
    size_t k = default_index(e);
    if (!e->final) { /* the first pass only sums */
        for (size_t i = 0; i < e->w->samples.len; i++)
            e->mf_total += fabs((double)values_of(e, &ed_samples(e)[i])[k]);
        return PPROF_OK;
    }
    double min = e->mf_total * e->o.min_fraction;
    size_t out = 0;
    for (size_t i = 0; i < e->w->samples.len; i++) {
        pprof__sample s = ed_samples(e)[i];
        if (fabs((double)values_of(e, &s)[k]) >= min)
            ed_samples(e)[out++] = s;
    }
    e->w->samples.len = out;
    return PPROF_OK;
}
