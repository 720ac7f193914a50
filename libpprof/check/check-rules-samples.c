/* Sample and label rules: location references, value counts and sums, label kinds and keys. */
#include <stdlib.h>

#include "check-private.h"

/* ---------------------------------------------------------------- samples */

static pprof_status
check_labels(chk *k, size_t si, bool keys_on, uint64_t off, const pprof_label *lb, uint32_t n)
{
    /* A hostile sample may carry millions of labels: past a few, find each label's first
     * same-key label by sorting (key, index) pairs instead of a quadratic scan. */
    uint64_t *pairs = NULL;
    uint32_t *first = NULL;
    if (n > 64 && keys_on) {
        pairs = pprof__malloc(k->a, (size_t)n * 2 * sizeof(uint64_t));
        first = pprof__malloc(k->a, (size_t)n * sizeof(uint32_t));
        if (!pairs || !first) {
            pprof__free(k->a, pairs);
            pprof__free(k->a, first);
            return PPROF_E_NOMEM;
        }
        for (uint32_t j = 0; j < n; j++) {
            pairs[2 * j] = (uint64_t)lb[j].key;
            pairs[2 * j + 1] = j;
        }
        qsort(pairs, n, 2 * sizeof(uint64_t), pprof__cmp_u64pair);
        for (uint32_t j = 0; j < n; j++)
            first[pairs[2 * j + 1]] = j && pairs[2 * j] == pairs[2 * j - 2]
                                          ? first[pairs[2 * j - 1]]
                                          : (uint32_t)pairs[2 * j + 1];
    }
    for (uint32_t j = 0; j < n; j++) {
        const pprof_label *x = &lb[j];
        SREF(k, x->key, off, P("sample[%zu].label[%u].key", si, j));
        SREF(k, x->str, off, P("sample[%zu].label[%u].str", si, j));
        SREF(k, x->num_unit, off, P("sample[%zu].label[%u].num_unit", si, j));
        if (x->key == 0)
            FIND(&k->c, PPROF_RULE_S11_LABEL_KEY_EMPTY, off, P("sample[%zu].label[%u].key", si, j),
                 "label key is the empty string; expected a key");
        if (x->str && (x->num || x->num_unit))
            FIND(&k->c, PPROF_RULE_S8_LABEL_STR_AND_NUM, off, P("sample[%zu].label[%u]", si, j),
                 "label has both str and num/num_unit (num %lld); expected one kind of value, "
                 "Go keeps only the string",
                 (long long)x->num);
        else if (!x->str && x->num == 0 && x->num_unit)
            FIND(&k->c, PPROF_RULE_S9_LABEL_UNIT_WITHOUT_NUM, off,
                 P("sample[%zu].label[%u].num_unit", si, j),
                 "label has num_unit but num is 0; expected num_unit only with a numeric value");
        else if (!x->str && x->num == 0)
            FIND(&k->c, PPROF_RULE_S10_LABEL_LOST, off, P("sample[%zu].label[%u]", si, j),
                 "label has no string value and num 0 without unit; Go drops it on decode, "
                 "expected a value");
        uint32_t q = j;
        if (!keys_on) {
            continue;
        } else if (n <= 64) {
            /* Labels per sample are few: a quadratic scan beats any table here. */
            for (uint32_t c = 0; c < j && q == j; c++)
                if (lb[c].key == x->key)
                    q = c;
        } else {
            q = first[j];
        }
        if (q == j)
            continue;
        bool qs = lb[q].str != 0, xs = x->str != 0;
        if (qs == xs)
            FIND(&k->c, PPROF_RULE_S11_LABEL_DUPLICATE_KEY, off,
                 P("sample[%zu].label[%u].key", si, j),
                 "%s label key repeats label[%u] of the same sample; expected one value per key",
                 xs ? "string" : "numeric", q);
        else
            FIND(&k->c, PPROF_RULE_S11_LABEL_STR_NUM_KEY, off,
                 P("sample[%zu].label[%u].key", si, j),
                 "label key is used by label[%u] with a %s value too; expected one kind of value "
                 "per key",
                 q, qs ? "string" : "numeric");
    }
    pprof__free(k->a, first);
    pprof__free(k->a, pairs);
    return PPROF_OK;
}

void
pprof__check_sample_types(chk *k, size_t n_samples)
{
    if (n_samples && k->p->sample_types.len == 0)
        FIND(&k->c, PPROF_RULE_CV1_NO_SAMPLE_TYPE, PPROF_NO_OFFSET, P("sample_type"),
             "%zu samples but no sample_type; expected one sample_type per value column",
             n_samples);
}

pprof_status
pprof__check_samples(chk *k)
{
    const pprof_profile *p = k->p;
    size_t n = p->samples.len, nt = p->sample_types.len;
    const pprof__sample *s = p->samples.data;
    const uint64_t *stack = p->stack.data;
    const int64_t *vals = p->values.data;
    const pprof_label *labs = p->labels.data;
    const pprof__idmap *li = &p->loc_idx;
    /* the label key rules need a sort past 64 labels: not for a check without them */
    bool keys_on = pprof__ck_on(&k->c, PPROF_RULE_S11_LABEL_DUPLICATE_KEY) ||
                   pprof__ck_on(&k->c, PPROF_RULE_S11_LABEL_STR_NUM_KEY);
    pprof__check_sample_types(k, n);
    int64_t *sum = pprof__malloc(k->a, (nt + 1) * sizeof(int64_t));
    uint8_t *ovf = pprof__malloc(k->a, nt + 1);
    if (!sum || !ovf) {
        pprof__free(k->a, sum);
        pprof__free(k->a, ovf);
        return PPROF_E_NOMEM;
    }
    memset(sum, 0, (nt + 1) * sizeof(int64_t));
    memset(ovf, 0, nt + 1);
    bool neg_on = pprof__ck_on(&k->c, PPROF_RULE_S15_NEGATIVE_VALUE);
    for (size_t i = 0; i < n; i++) {
        const pprof__sample *x = &s[i];
        uint64_t off = off_at(&p->sample_offs, i);
        size_t si = k->sample_base + i; /* the number in paths */
        const uint64_t *ids = stack ? stack + x->loc_off : NULL;
        uint32_t n_ids = x->n_loc;
        if (p->stack_is_index) { /* indices (pprof__sample_locs): each names a location */
            const uint32_t *idx = n_ids ? (const uint32_t *)p->stack.data + x->loc_off : NULL;
            for (uint32_t j = 0; k->loc_used && j < n_ids; j++)
                k->loc_used[idx[j]] = 1;
            n_ids = 0;
        }
        for (uint32_t j = 0; j < n_ids; j++) {
            uint64_t id = ids[j];
            uint32_t at;
            if (li->dense)
                at = id - 1 <= li->mask ? (uint32_t)(id - 1) : PPROF_NONE;
            else
                at = pprof__idmap_get(li, id);
            if (at != PPROF_NONE) {
                if (k->loc_used)
                    k->loc_used[at] = 1;
            } else
                FIND(&k->c, PPROF_RULE_CV3_SAMPLE_LOCATION, off,
                     P("sample[%zu].location_id[%u]", si, j),
                     "location id %llu %s; expected the id of one of the %zu locations",
                     (unsigned long long)id, id ? "names no location" : "is reserved",
                     p->locations.len);
        }
        const int64_t *v = vals ? vals + x->val_off : NULL; /* NULL + 0 is undefined */
        if (x->n_val != nt && nt)
            FIND(&k->c, PPROF_RULE_CV2_VALUE_COUNT, off, P("sample[%zu].value", si),
                 "sample has %u values; expected %zu, one per sample_type", x->n_val, nt);
        bool nonzero = false;
        for (uint32_t j = 0; j < x->n_val; j++) {
            int64_t y = v[j];
            nonzero |= y != 0;
            if (j < nt && __builtin_add_overflow(sum[j], y, &sum[j]) && !ovf[j]) {
                ovf[j] = 1;
                FIND(&k->c, PPROF_RULE_S21_VALUE_OVERFLOW, off, P("sample[%zu].value[%u]", si, j),
                     "the sum of value column %u overflows int64 at this sample; expected totals "
                     "that fit in int64",
                     j);
            }
            if (y < 0 && neg_on)
                FIND(&k->c, PPROF_RULE_S15_NEGATIVE_VALUE, off, P("sample[%zu].value[%u]", si, j),
                     "value %lld is negative; expected >= 0 outside diff profiles", (long long)y);
        }
        if (!nonzero && x->n_val)
            FIND(
                &k->c, PPROF_RULE_S16_ZERO_SAMPLE, off, P("sample[%zu].value", si),
                "every value is 0; expected at least one nonzero value (merges drop such samples)");
        if (x->n_lab)
            if (check_labels(k, si, keys_on, off, labs ? labs + x->lab_off : NULL, x->n_lab)) {
                pprof__free(k->a, sum);
                pprof__free(k->a, ovf);
                return PPROF_E_NOMEM;
            }
    }
    pprof__free(k->a, sum);
    pprof__free(k->a, ovf);
    return PPROF_OK;
}
