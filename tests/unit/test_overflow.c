/* Arithmetic at int64's ends: scale, normalize (edit and diff), aggregation, diff negation and
 * max_depth give an error naming the sample, or the right number, never a wrapped one and never
 * undefined behaviour (this runs under UBSan in CI). Go converts an out-of-range float with
 * what its hardware gives (INT64_MIN on amd64) and lets sums wrap: a wrong number with exit 0,
 * which is what these tests rule out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "edit.h"
#include "merge.h"
#include "pprof.h"
#include "report.h"
#include "tap.h"

static tap T;

/* One sample type (cpu/nanoseconds); sample i has the stack main -> f<i> and values[i]. */
static pprof_profile *
profile_of(const int64_t *values, size_t n)
{
    pprof_builder_value_type types[1] = {{"cpu", "nanoseconds"}};
    pprof_builder_options bo;
    pprof_builder_options_init(&bo);
    bo.sample_types = types;
    bo.n_sample_types = 1;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    pprof_builder_str none = PPROF_BUILDER_NONE, name;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    pprof_builder_fn fmain, f;
    pprof_builder_loc lmain, l;
    pprof_builder_intern_cstr(b, "main", &name, &err);
    pprof_builder_function(b, name, name, none, 0, &fmain, &err);
    pprof_builder_line ln = {fmain, 1, 0};
    pprof_builder_location(b, nomap, 0, &ln, 1, false, &lmain, &err);
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st; i++) {
        char fn[32];
        snprintf(fn, sizeof(fn), "f%zu", i);
        pprof_builder_intern_cstr(b, fn, &name, &err);
        pprof_builder_function(b, name, name, none, 0, &f, &err);
        ln.function = f;
        pprof_builder_location(b, nomap, 0, &ln, 1, false, &l, &err);
        pprof_builder_loc stack[2] = {l, lmain};
        st = pprof_builder_add_sample(b, &values[i], 1, stack, 2, NULL, 0, &err);
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    if (!st)
        st = pprof_builder_write_memory(b, 0, &wo, &buf, &err);
    pprof_builder_free(b);
    pprof_profile *p = NULL;
    if (!st && pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err))
        p = NULL;
    pprof_buffer_free(&buf);
    if (!p)
        tap_diag("building a profile: %s", err.message);
    return p;
}

/* The value of sample 0 of p's single type. */
static int64_t
first_value(const pprof_profile *p)
{
    if (!p || pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 0)
        return -1;
    pprof_sample s = pprof_profile_sample(p, 0);
    return s.n_value ? s.value[0] : -1;
}

/* pprof_edit with the options on the profile of values, then as a merge input (the batched
 * path): both fail with want (0: both succeed), and a failure's message holds has. */
static void
edit_case(const char *what, const int64_t *values, size_t n, const pprof_edit_options *o,
          pprof_status want, const char *has, int64_t want_first)
{
    pprof_profile *p = profile_of(values, n), *q = NULL, *r = NULL;
    pprof_merge_input *in = NULL;
    pprof_error e1, e2;
    memset(&e1, 0, sizeof(e1));
    memset(&e2, 0, sizeof(e2));
    pprof_status s1 = p ? pprof_edit(p, o, &q, &e1) : PPROF_E_ARG;
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_status s2 = PPROF_E_ARG;
    if (p && !pprof_profile_write_memory(p, &wo, &buf, &e2) &&
        !pprof_merge_input_read_memory(buf.data, buf.len, NULL, &in, &e2))
        s2 = pprof_edit_input(in, o, &r, &e2);
    bool msg = !has || (s1 && strstr(e1.message, has) && s2 && strstr(e2.message, has));
    tap_ok(&T, s1 == want && s2 == want && msg, "%s: status %d / %d (want %d)%s%s", what, s1, s2,
           want, s1 ? ": " : "", s1 ? e1.message : "");
    if (!want && want_first != -1)
        tap_ok(&T, first_value(q) == want_first && first_value(r) == want_first,
               "%s: first value %lld / %lld (want %lld)", what, (long long)first_value(q),
               (long long)first_value(r), (long long)want_first);
    pprof_buffer_free(&buf);
    pprof_merge_input_free(in);
    pprof_profile_free(p);
    pprof_profile_free(q);
    pprof_profile_free(r);
}

static void
test_scale(void)
{
    pprof_edit_options o;
    pprof_edit_scale sc = {NULL, 2};
    pprof_edit_options_init(&o);
    o.scale = &sc;
    o.n_scale = 1;
    const int64_t max1[] = {INT64_MAX, 1}, min1[] = {INT64_MIN, 1}, one[] = {1, 7};
    edit_case("INT64_MAX x 2", max1, 2, &o, PPROF_E_OVERFLOW, "leaf 'f0'", 0);
    sc.factor = 1e300;
    edit_case("1 x 1e300", one, 2, &o, PPROF_E_OVERFLOW, "leaf 'f0'", 0);
    sc.factor = -1;
    edit_case("INT64_MIN x -1", min1, 2, &o, PPROF_E_OVERFLOW, "value -9223372036854775808", 0);
    /* float64(INT64_MAX) is 2^63, so Go's answer is -2^63, in range: not an overflow */
    edit_case("INT64_MAX x -1", max1, 2, &o, PPROF_OK, NULL, INT64_MIN);
    sc.factor = 0.5;
    edit_case("INT64_MAX x 0.5", max1, 2, &o, PPROF_OK, NULL, INT64_C(4611686018427387904));
    edit_case("INT64_MIN x 0.5", min1, 2, &o, PPROF_OK, NULL, -INT64_C(4611686018427387904));
}

static void
test_normalize_and_aggregate(void)
{
    const int64_t max1[] = {INT64_MAX, 1}, small[] = {5, 3}, min_neg[] = {INT64_MIN, -1};
    const int64_t mixed[] = {5, -4}; /* total 1: the ratio is the base's total */
    pprof_profile *base_max = profile_of(max1, 2), *base_small = profile_of(small, 2);
    pprof_profile *base_one = profile_of((const int64_t[]){INT64_MAX}, 1);
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.normalize_base = base_max;
    edit_case("normalize: the base's total passes INT64_MAX", small, 2, &o, PPROF_E_OVERFLOW,
              "total of the base profile's cpu values", 0);
    o.normalize_base = base_small;
    edit_case("normalize: the profile's total passes INT64_MIN", min_neg, 2, &o, PPROF_E_OVERFLOW,
              "total of the profile's cpu values", 0);
    o.normalize_base = base_one;
    edit_case("normalize: a ratio of INT64_MAX takes 5 past INT64_MAX", mixed, 2, &o,
              PPROF_E_OVERFLOW, "normalize: the cpu value 5 of the sample with leaf 'f0'", 0);
    pprof_edit_options_init(&o);
    o.granularity = PPROF_GRANULARITY_FILES; /* both samples become one */
    edit_case("aggregate: two samples summing past INT64_MAX", max1, 2, &o, PPROF_E_OVERFLOW,
              "overflows int64", 0);
    pprof_profile_free(base_max);
    pprof_profile_free(base_small);
    pprof_profile_free(base_one);
}

static void
test_max_depth(void)
{
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.max_depth = UINT32_MAX; /* no stack is that deep: nothing to cut, nothing to allocate */
    const int64_t v[] = {1, 2, 3};
    edit_case("max_depth 2^32-1 on three samples", v, 3, &o, PPROF_OK, NULL, 1);
    o.max_depth = 1;
    edit_case("max_depth 1 still cuts", v, 3, &o, PPROF_OK, NULL, 1);
}

/* pprof_diff_profile and pprof_diff_new (normalize and not) on BASE and NEW. */
static void
diff_case(const char *what, const int64_t *bv, size_t bn, const int64_t *nv, size_t nn,
          bool normalize, pprof_status want, const char *has)
{
    pprof_profile *b = profile_of(bv, bn), *c = profile_of(nv, nn), *out = NULL;
    pprof_diff_options o;
    pprof_diff_options_init(&o);
    o.normalize = normalize;
    pprof_error err;
    memset(&err, 0, sizeof(err));
    pprof_status st = b && c ? pprof_diff_profile(b, c, &o, &out, &err) : PPROF_E_ARG;
    tap_ok(&T, st == want && (!has || strstr(err.message, has)), "diff %s: %d (want %d)%s%s", what,
           st, want, st ? ": " : "", st ? err.message : "");
    pprof_diff *d = NULL;
    if (b && c && !pprof_diff_new(b, c, &o, &d, &err))
        pprof_diff_free(d);
    pprof_profile_free(out);
    pprof_profile_free(b);
    pprof_profile_free(c);
}

static void
test_diff(void)
{
    const int64_t max1[] = {INT64_MAX, 1}, min1[] = {INT64_MIN, 1}, small[] = {5, 3};
    const int64_t one_max[] = {INT64_MAX}, min_neg[] = {INT64_MIN, -1}, mixed[] = {5, -4};
    diff_case("normalize, BASE's total past INT64_MAX", max1, 2, small, 2, true, PPROF_E_OVERFLOW,
              "total of BASE's cpu values");
    diff_case("normalize, NEW's total past INT64_MIN", small, 2, min_neg, 2, true, PPROF_E_OVERFLOW,
              "total of NEW's");
    diff_case("normalize, NEW scaled by INT64_MAX past INT64_MAX", one_max, 1, mixed, 2, true,
              PPROF_E_OVERFLOW, "NEW (equal samples summed): the cpu value 5 times");
    diff_case("BASE INT64_MIN negated", min1, 2, small, 2, false, PPROF_E_OVERFLOW,
              "BASE, negated: the cpu value -9223372036854775808 times -1");
    diff_case("normalize, BASE INT64_MIN", min1, 2, small, 2, true, PPROF_E_OVERFLOW, NULL);
    diff_case("BASE INT64_MAX negated", max1, 2, small, 2, false, PPROF_OK, NULL);
}

int
main(void)
{
    test_scale();
    test_normalize_and_aggregate();
    test_max_depth();
    test_diff();
    printf("1..%d\n", T.n);
    return T.failed ? 1 : 0;
}
