/* The case table: one minimal profile per rule, plus profiles that must pass. */
#include "cases.h"

#include <stdint.h>
#include <stdio.h>

static const uint64_t L10[] = {1, 10};

static void
c_std(pb *b)
{
    std_profile(b, 0);
}

/* Symbolized-only: no mappings, address 0, different line counts at address 0 are fine. */
static void
c_symbolized(pb *b)
{
    std_profile(b, NO_MAP | NO_LOC | NO_SAMPLE);
    const uint64_t l2[] = {1, 10, 1, 20};
    loc(b, 1, 0, 0, 1, L10);
    loc(b, 2, 0, 0, 2, l2);
    const uint64_t s[] = {1, 2};
    const int64_t v[] = {3};
    sample(b, 2, s, 1, v, 0, NULL);
}

/* Inlined frames, labels of both kinds, sparse ids. */
static void
c_inline(pb *b)
{
    std_profile(b, NO_FN | NO_LOC | NO_SAMPLE);
    func(b, 7, S_MAIN, S_MAIN_GO);
    func(b, 9, S_FOO, S_MAIN_GO);
    const uint64_t l2[] = {9, 3, 7, 10};
    loc(b, 40, 1, 0x1100, 2, l2);
    loc(b, 41, 1, 0x1200, 1, l2 + 2);
    const uint64_t s[] = {40, 41};
    const int64_t v[] = {5};
    const lab labs[] = {{S_FOO, S_MAIN, 0, 0}, {S_CPU, 0, 12, S_NS}};
    sample(b, 2, s, 1, v, 2, labs);
}

static void
c_w1(pb *b)
{
    std_profile(b, 0);
    const uint8_t t[] = {0x48, 0x80};
    pb_raw(b, t, 2);
}

static void
c_w2(pb *b)
{
    std_profile(b, 0);
    const uint8_t t[] = {0x12, 0x64, 0x01};
    pb_raw(b, t, 3);
}

static void
c_w3(pb *b)
{
    std_profile(b, 0);
    const uint8_t t[] = {0x81, 0x01, 1, 2, 3};
    pb_raw(b, t, 5);
}

static void
c_w4(pb *b)
{
    std_profile(b, 0);
    const uint8_t t[] = {0x83, 0x01};
    pb_raw(b, t, 2);
}

static void
c_w5(pb *b)
{
    std_profile(b, 0);
    const uint8_t t[] = {0x1a, 0x03, 0x0a, 0x01, 0x00};
    pb_raw(b, t, 5);
}

static void
c_w6(pb *b)
{
    std_profile(b, NO_STR);
    fb(b, 6, "x", 1);
    strs(b, STD_STRINGS + 1, N_STD - 1);
}

static void
c_w7(pb *b)
{
    (void)b;
}

static void
c_w8(pb *b)
{
    std_profile(b, 0);
    fv(b, 9, 5);
    fv(b, 9, 6);
}

static void
c_r1(pb *b)
{
    const uint8_t t[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe3, 0x60};
    pb_raw(b, t, sizeof(t));
}

static void
c_pd1_none(pb *b)
{
    fv(b, 9, 1);
}

static void
c_pd1_index(pb *b)
{
    std_profile(b, NO_FN);
    func3(b, 1, 99, S_FOO, S_MAIN_GO);
}

static void
c_cv1(pb *b)
{
    std_profile(b, NO_ST);
}

static void
c_cv2(pb *b)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {1, 2};
    sample(b, 1, s, 2, v, 0, NULL);
}

static void
c_cv3(pb *b)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1, 7};
    const int64_t v[] = {1};
    sample(b, 2, s, 1, v, 0, NULL);
}

static void
c_cv4(pb *b)
{
    std_profile(b, 0);
    func(b, 0, S_FOO, S_MAIN_GO);
}

static void
c_cv5(pb *b)
{
    std_profile(b, 0);
    func(b, 1, S_FOO, S_MAIN_GO);
}

static void
c_cv6(pb *b)
{
    std_profile(b, NO_LOC);
    const uint64_t l[] = {5, 10};
    loc(b, 1, 1, 0x1100, 1, l);
}

static void
two_at_same_address(pb *b, const uint64_t *l2, size_t n2)
{
    std_profile(b, NO_LOC | NO_SAMPLE);
    loc(b, 1, 1, 0x1100, 1, L10);
    loc(b, 2, 1, 0x1100, n2, l2);
    const uint64_t s1[] = {1}, s2[] = {2};
    const int64_t v[] = {1};
    sample(b, 1, s1, 1, v, 0, NULL);
    sample(b, 1, s2, 1, v, 0, NULL);
}

static void
c_s1_count(pb *b)
{
    const uint64_t l2[] = {1, 10, 1, 11};
    two_at_same_address(b, l2, 2);
}

static void
c_s1_frames(pb *b)
{
    const uint64_t l2[] = {1, 11};
    two_at_same_address(b, l2, 1);
}

static void
c_s2(pb *b)
{
    std_profile(b, NO_LOC);
    loc(b, 1, 9, 0x1100, 1, L10);
}

static void
c_s3(pb *b)
{
    std_profile(b, NO_LOC);
    loc(b, 1, 0, 0x1100, 1, L10);
}

static void
c_s4(pb *b)
{
    std_profile(b, NO_LOC);
    loc(b, 1, 1, 0x3000, 1, L10);
}

static void
c_s5_limit(pb *b)
{
    std_profile(b, NO_MAP);
    mapping(b, 1, 0x2000, 0x1000, S_AOUT, S_BID, false);
}

static void
c_s5_overlap(pb *b)
{
    std_profile(b, 0);
    mapping(b, 2, 0x1800, 0x3000, S_FOO, 0, false);
}

static void
c_s6(pb *b)
{
    std_profile(b, NO_SAMPLE);
    loc(b, 2, 0, 0, 0, NULL);
    const uint64_t s[] = {2, 1};
    const int64_t v[] = {1};
    sample(b, 2, s, 1, v, 0, NULL);
}

static void
c_s7_mapping(pb *b)
{
    std_profile(b, 0);
    mapping(b, 2, 0x3000, 0x4000, S_FOO, 0, false);
}

static void
c_s7_location(pb *b)
{
    std_profile(b, 0);
    const uint64_t l[] = {1, 12};
    loc(b, 2, 1, 0x1200, 1, l);
}

static void
c_s7_function(pb *b)
{
    std_profile(b, 0);
    func(b, 2, S_FOO, S_MAIN_GO);
}

static void
c_s7_string(pb *b)
{
    std_profile(b, 0);
    fb(b, 6, "zzz", 3);
}

static void
c_s7_dup_function(pb *b)
{
    std_profile(b, NO_LOC);
    func3(b, 2, S_MAIN, S_FOO, S_MAIN_GO);
    const uint64_t l[] = {1, 10, 2, 10};
    loc(b, 1, 1, 0x1100, 2, l);
}

static void
c_s7_dup_location(pb *b)
{
    std_profile(b, NO_SAMPLE);
    loc(b, 2, 1, 0x1100, 1, L10);
    const uint64_t s[] = {1, 2};
    const int64_t v[] = {1};
    sample(b, 2, s, 1, v, 0, NULL);
}

static void
c_s7_dup_string(pb *b)
{
    std_profile(b, NO_FN);
    fb(b, 6, "foo", 3);
    func3(b, 1, S_MAIN, 10, S_MAIN_GO); /* uses the duplicate so it is not also unused */
}

static void
one_label_set(pb *b, size_t n, const lab *l)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {1};
    sample(b, 1, s, 1, v, n, l);
}

static void
c_s8(pb *b)
{
    const lab l[] = {{S_FOO, S_MAIN, 3, 0}};
    one_label_set(b, 1, l);
}

static void
c_s9(pb *b)
{
    const lab l[] = {{S_FOO, 0, 0, S_COUNT}};
    one_label_set(b, 1, l);
}

static void
c_s10(pb *b)
{
    const lab l[] = {{S_FOO, 0, 0, 0}};
    one_label_set(b, 1, l);
}

static void
c_s11_empty(pb *b)
{
    const lab l[] = {{0, S_MAIN, 0, 0}};
    one_label_set(b, 1, l);
}

static void
c_s11_dup(pb *b)
{
    const lab l[] = {{S_FOO, S_MAIN, 0, 0}, {S_FOO, S_AOUT, 0, 0}};
    one_label_set(b, 2, l);
}

static void
c_s11_strnum(pb *b)
{
    const lab l[] = {{S_FOO, S_MAIN, 0, 0}, {S_FOO, 0, 5, 0}};
    one_label_set(b, 2, l);
}

static void
c_s13(pb *b)
{
    std_profile(b, 0);
    fv(b, 14, S_CPU);
}

static void
c_s14(pb *b)
{
    std_profile(b, 0);
    fb(b, 6, "runtime\\.(", 10);
    fv(b, 7, N_STD);
}

static void
one_value(pb *b, int64_t v0)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {v0};
    sample(b, 1, s, 1, v, 0, NULL);
}

static void
c_s15_value(pb *b)
{
    one_value(b, -5);
}

static void
c_s15_header(pb *b)
{
    std_profile(b, 0);
    fv(b, 10, (uint64_t)-1);
}

static void
c_s16(pb *b)
{
    one_value(b, 0);
}

static void
c_s17(pb *b)
{
    std_profile(b, NO_MAP | NO_SAMPLE);
    mapping(b, 1, 0x1000, 0x2000, S_AOUT, S_BID, true);
    loc(b, 2, 1, 0x1200, 0, NULL);
    const uint64_t s[] = {2, 1};
    const int64_t v[] = {1};
    sample(b, 2, s, 1, v, 0, NULL);
}

static void
c_s18(pb *b)
{
    std_profile(b, 0);
    fv(b, 99, 1);
}

static void
c_s19(pb *b)
{
    std_profile(b, 0);
    fv(b, 12, 20);
}

static void
c_s20(pb *b)
{
    std_profile(b, NO_PERIOD);
    fv(b, 12, 10);
}

static void
c_s21(pb *b)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {INT64_MAX};
    sample(b, 1, s, 1, v, 0, NULL);
    sample(b, 1, s, 1, v, 0, NULL);
}

static void
c_s22(pb *b)
{
    std_profile(b, NO_MAP);
    fb(b, 6, "x", 1);
    mapping(b, 1, 0x1000, 0x2000, S_AOUT, N_STD, false);
}

static void
c_s23(pb *b)
{
    std_profile(b, NO_FN);
    fb(b, 6, "ma\xffin", 5);
    func3(b, 1, N_STD, S_FOO, S_MAIN_GO);
}

const rcase CASES[] = {
    {"std", NULL, NULL, c_std, true},
    {"symbolized", NULL, NULL, c_symbolized, true},
    {"inline", NULL, NULL, c_inline, true},
    {"bad-varint", "W1-bad-varint", "time_nanos", c_w1, false},
    {"bad-length", "W2-bad-length", "sample[1]", c_w2, false},
    {"truncated-fixed", "W3-truncated-fixed", "field 16", c_w3, false},
    {"bad-wire-type", "W4-bad-wire-type", "field 16", c_w4, false},
    {"type-mismatch", "W5-type-mismatch", "mapping[1].id", c_w5, false},
    {"string-table-0", "W6-string-table-0", "string_table[0]", c_w6, true},
    {"empty", "W7-empty", "", c_w7, false},
    {"concatenated", "W8-concatenated", "time_nanos", c_w8, true},
    {"compression", "R1-compression", "", c_r1, false},
    {"no-string-table", "PD1-no-string-table", "string_table", c_pd1_none, true},
    {"string-index", "PD1-string-index", "function[0](id=1).name", c_pd1_index, true},
    {"no-sample-type", "CV1-no-sample-type", "sample_type", c_cv1, true},
    {"value-count", "CV2-value-count", "sample[0].value", c_cv2, true},
    {"sample-location", "CV3-sample-location", "sample[0].location_id[1]", c_cv3, true},
    {"id-zero", "CV4-id-zero", "function[1](id=0).id", c_cv4, true},
    {"duplicate-id", "CV5-duplicate-id", "function[0](id=1).id", c_cv5, true},
    {"line-function", "CV6-line-function", "location[0](id=1).line[0].function_id", c_cv6, true},
    {"inline-count", "S1-inline-count", "location[0](id=1)", c_s1_count, true},
    {"inline-frames", "S1-inline-frames", "location[0](id=1)", c_s1_frames, true},
    {"location-mapping", "S2-location-mapping", "location[0](id=1).mapping_id", c_s2, true},
    {"address-no-mapping", "S3-address-no-mapping", "location[0](id=1).address", c_s3, true},
    {"address-range", "S4-address-range", "location[0](id=1).address", c_s4, true},
    {"mapping-limit", "S5-mapping-limit", "mapping[0](id=1).memory_limit", c_s5_limit, true},
    {"mapping-overlap", "S5-mapping-overlap", "mapping[1](id=2)", c_s5_overlap, true},
    {"empty-location", "S6-empty-location", "location[1](id=2)", c_s6, true},
    {"unused-mapping", "S7-unused-mapping", "mapping[1](id=2)", c_s7_mapping, true},
    {"unused-location", "S7-unused-location", "location[1](id=2)", c_s7_location, true},
    {"unused-function", "S7-unused-function", "function[1](id=2)", c_s7_function, true},
    {"unused-string", "S7-unused-string", "string_table[10]", c_s7_string, true},
    {"duplicate-function", "S7-duplicate-function", "function[1](id=2)", c_s7_dup_function, true},
    {"duplicate-location", "S7-duplicate-location", "location[1](id=2)", c_s7_dup_location, true},
    {"duplicate-string", "S7-duplicate-string", "string_table[10]", c_s7_dup_string, true},
    {"label-str-and-num", "S8-label-str-and-num", "sample[0].label[0]", c_s8, true},
    {"label-unit-without-num", "S9-label-unit-without-num", "sample[0].label[0].num_unit", c_s9,
     true},
    {"label-lost", "S10-label-lost", "sample[0].label[0]", c_s10, true},
    {"label-key-empty", "S11-label-key-empty", "sample[0].label[0].key", c_s11_empty, true},
    {"label-duplicate-key", "S11-label-duplicate-key", "sample[0].label[1].key", c_s11_dup, true},
    {"label-str-num-key", "S11-label-str-num-key", "sample[0].label[1].key", c_s11_strnum, true},
    {"default-sample-type", "S13-default-sample-type", "default_sample_type", c_s13, true},
    {"frames-regex", "S14-frames-regex", "drop_frames", c_s14, true},
    {"negative-value", "S15-negative-value", "sample[0].value[0]", c_s15_value, true},
    {"negative-header", "S15-negative-header", "duration_nanos", c_s15_header, true},
    {"zero-sample", "S16-zero-sample", "sample[0].value", c_s16, true},
    {"has-functions", "S17-has-functions", "location[1](id=2).line", c_s17, true},
    {"unknown-field", "S18-unknown-field", "field 99", c_s18, true},
    {"repeated-field", "S19-repeated-field", "period", c_s19, true},
    {"period-type", "S20-period-type", "period_type", c_s20, true},
    {"value-overflow", "S21-value-overflow", "sample[1].value[0]", c_s21, true},
    {"build-id-short", "S22-build-id-short", "mapping[0](id=1).build_id", c_s22, true},
    {"utf8", "S23-utf8", "string_table[10]", c_s23, true},
};
const size_t N_CASES = sizeof(CASES) / sizeof(CASES[0]);

/* Corpus file name: y_ passes, n_ has an error, i_ has only warnings or notes. */
void
case_file_name(const rcase *c, char *out, size_t cap)
{
    const char *prefix = "y_";
    if (c->rule) {
        pprof_rule r;
        pprof_rule_find(c->rule, &r);
        prefix = pprof_rule_get(r)->severity == PPROF_SEVERITY_ERROR ? "n_" : "i_";
    }
    snprintf(out, cap, "%s%s.pb", prefix, c->name);
}
