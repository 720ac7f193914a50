/* Broken profiles for the validity tests (corpus/invalid): one per way Go's pprof refuses a
 * profile on reading, each a small variation of the checker's standard valid profile
 * (cases.h). File names are RULE.WHAT.pb: the rule every tool and entry point must name when it
 * refuses the file. */
#include "invalid-cases.h"

#include <stdio.h>

/* A string index just past the standard table: the strings an edit adds (--set-label keys and
 * values) would land there if the index were not refused first. */
#define DANGLING (N_STD + 3)

static const uint64_t L1[] = {1, 10};

static void
dup_function(pb *b)
{
    std_profile(b, 0);
    func(b, 1, S_FOO, S_MAIN_GO);
}

static void
dup_location(pb *b)
{
    std_profile(b, 0);
    loc(b, 1, 1, 0x1200, 1, L1);
}

static void
dup_mapping(pb *b)
{
    std_profile(b, 0);
    mapping(b, 1, 0x3000, 0x4000, S_AOUT, S_BID, false);
}

/* cat a.pb a.pb without time_nanos: nothing marks the second profile, so its tables repeat
 * the first's ids (Go: "multiple mappings with same id") */
static void
concatenated_no_time(pb *b)
{
    std_profile(b, 0);
    std_profile(b, 0);
}

static void
concatenated(pb *b)
{
    std_profile(b, 0);
    fv(b, 9, 5);
    std_profile(b, 0);
    fv(b, 9, 6);
}

static void
zero_function(pb *b)
{
    std_profile(b, NO_FN | NO_LOC);
    func(b, 0, S_MAIN, S_MAIN_GO);
    const uint64_t l[] = {0, 10};
    loc(b, 1, 1, 0x1100, 1, l);
}

static void
zero_location(pb *b)
{
    std_profile(b, NO_LOC | NO_SAMPLE);
    loc(b, 0, 1, 0x1100, 1, L1);
    const uint64_t s[] = {0};
    const int64_t v[] = {1};
    sample(b, 1, s, 1, v, 0, NULL);
}

static void
zero_mapping(pb *b)
{
    std_profile(b, NO_MAP | NO_LOC);
    mapping(b, 0, 0x1000, 0x2000, S_AOUT, S_BID, false);
    loc(b, 1, 0, 0x1100, 1, L1);
}

/* two sample types, a sample with one value: Go refuses it; a reader that did not would drop
 * the sample or read past its values */
static void
short_values(pb *b)
{
    std_profile(b, NO_ST | NO_SAMPLE);
    vt(b, 1, S_SAMPLES, S_COUNT);
    vt(b, 1, S_CPU, S_NS);
    const uint64_t s[] = {1};
    const int64_t v[] = {1};
    sample(b, 1, s, 1, v, 0, NULL);
    const int64_t v2[] = {2, 3};
    sample(b, 1, s, 2, v2, 0, NULL);
}

static void
long_values(pb *b)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {1, 2};
    sample(b, 1, s, 2, v, 0, NULL);
}

static void
missing_location(pb *b)
{
    std_profile(b, NO_SAMPLE);
    const uint64_t s[] = {1, 7};
    const int64_t v[] = {1};
    sample(b, 2, s, 1, v, 0, NULL);
}

static void
no_sample_type(pb *b)
{
    std_profile(b, NO_ST);
}

/* Line{function_id: 0}: no function; the frame would print as "" or be dropped */
static void
line_function_zero(pb *b)
{
    std_profile(b, NO_LOC);
    const uint64_t l[] = {0, 10};
    loc(b, 1, 1, 0x1100, 1, l);
}

static void
line_function_missing(pb *b)
{
    std_profile(b, NO_LOC);
    const uint64_t l[] = {5, 10};
    loc(b, 1, 1, 0x1100, 1, l);
}

/* every index but 0 dangles: "<unknown>" frames if it were read */
static void
no_string_table(pb *b)
{
    std_profile(b, NO_STR);
}

static void
string_table_0(pb *b)
{
    const char *const s[] = {"main"};
    strs(b, s, 1);
    std_profile(b, 0);
}

/* ---- a dangling string index in each of the 15 string fields (and a negative one) */

static void
s_sample_type_type(pb *b)
{
    std_profile(b, NO_ST);
    vt(b, 1, DANGLING, S_COUNT);
}

static void
s_sample_type_unit(pb *b)
{
    std_profile(b, NO_ST);
    vt(b, 1, S_SAMPLES, DANGLING);
}

static void
s_label(pb *b, int which)
{
    std_profile(b, NO_SAMPLE);
    lab l = {S_FOO, S_MAIN, 0, 0};
    if (which == 0)
        l.key = DANGLING;
    else if (which == 1)
        l.str = DANGLING;
    else
        l = (lab){S_FOO, 0, 5, DANGLING};
    const uint64_t s[] = {1};
    const int64_t v[] = {1};
    sample(b, 1, s, 1, v, 1, &l);
}

static void
s_label_key(pb *b)
{
    s_label(b, 0);
}

static void
s_label_str(pb *b)
{
    s_label(b, 1);
}

static void
s_label_num_unit(pb *b)
{
    s_label(b, 2);
}

static void
s_mapping_filename(pb *b)
{
    std_profile(b, NO_MAP);
    mapping(b, 1, 0x1000, 0x2000, DANGLING, S_BID, false);
}

static void
s_mapping_build_id(pb *b)
{
    std_profile(b, NO_MAP);
    mapping(b, 1, 0x1000, 0x2000, S_AOUT, DANGLING, false);
}

static void
s_function_name(pb *b)
{
    std_profile(b, NO_FN);
    func3(b, 1, DANGLING, S_FOO, S_MAIN_GO);
}

static void
s_function_system_name(pb *b)
{
    std_profile(b, NO_FN);
    func3(b, 1, S_MAIN, DANGLING, S_MAIN_GO);
}

static void
s_function_filename(pb *b)
{
    std_profile(b, NO_FN);
    func3(b, 1, S_MAIN, S_FOO, DANGLING);
}

static void
s_period_type_type(pb *b)
{
    std_profile(b, NO_PERIOD);
    vt(b, 11, DANGLING, S_NS);
    fv(b, 12, 10);
}

static void
s_period_type_unit(pb *b)
{
    std_profile(b, NO_PERIOD);
    vt(b, 11, S_CPU, DANGLING);
    fv(b, 12, 10);
}

static void
s_drop_frames(pb *b)
{
    std_profile(b, 0);
    fv(b, 7, DANGLING);
}

static void
s_keep_frames(pb *b)
{
    std_profile(b, 0);
    fv(b, 8, DANGLING);
}

static void
s_comment(pb *b)
{
    std_profile(b, 0);
    fv(b, 13, S_MAIN);
    fv(b, 13, DANGLING);
}

static void
s_comment_negative(pb *b)
{
    std_profile(b, 0);
    fv(b, 13, (uint64_t)(int64_t)-2);
}

static void
s_default_sample_type(pb *b)
{
    std_profile(b, 0);
    fv(b, 14, DANGLING);
}

static void
s_doc_url(pb *b)
{
    std_profile(b, 0);
    fv(b, 15, DANGLING);
}

const icase ICASES[] = {
    {"CV5-duplicate-id", "function", dup_function},
    {"CV5-duplicate-id", "location", dup_location},
    {"CV5-duplicate-id", "mapping", dup_mapping},
    {"CV5-duplicate-id", "concatenated-without-time", concatenated_no_time},
    {"W8-concatenated", "with-time", concatenated},
    {"CV4-id-zero", "function", zero_function},
    {"CV4-id-zero", "location", zero_location},
    {"CV4-id-zero", "mapping", zero_mapping},
    {"CV2-value-count", "short", short_values},
    {"CV2-value-count", "long", long_values},
    {"CV3-sample-location", "missing", missing_location},
    {"CV1-no-sample-type", "samples", no_sample_type},
    {"CV6-line-function", "zero", line_function_zero},
    {"CV6-line-function", "missing", line_function_missing},
    {"PD1-no-string-table", "samples", no_string_table},
    {"W6-string-table-0", "main", string_table_0},
    {"PD1-string-index", "sample_type.type", s_sample_type_type},
    {"PD1-string-index", "sample_type.unit", s_sample_type_unit},
    {"PD1-string-index", "label.key", s_label_key},
    {"PD1-string-index", "label.str", s_label_str},
    {"PD1-string-index", "label.num_unit", s_label_num_unit},
    {"PD1-string-index", "mapping.filename", s_mapping_filename},
    {"PD1-string-index", "mapping.build_id", s_mapping_build_id},
    {"PD1-string-index", "function.name", s_function_name},
    {"PD1-string-index", "function.system_name", s_function_system_name},
    {"PD1-string-index", "function.filename", s_function_filename},
    {"PD1-string-index", "period_type.type", s_period_type_type},
    {"PD1-string-index", "period_type.unit", s_period_type_unit},
    {"PD1-string-index", "drop_frames", s_drop_frames},
    {"PD1-string-index", "keep_frames", s_keep_frames},
    {"PD1-string-index", "comment", s_comment},
    {"PD1-string-index", "comment-negative", s_comment_negative},
    {"PD1-string-index", "default_sample_type", s_default_sample_type},
    {"PD1-string-index", "doc_url", s_doc_url},
};
const size_t N_ICASES = sizeof(ICASES) / sizeof(ICASES[0]);

void
icase_file_name(const icase *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s.%s.pb", c->rule, c->what);
}
