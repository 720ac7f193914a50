/* What pprof-top and pprof-diff do: decode, then the node report at a granularity and order
 * chosen from the input's size, its text and JSON, and the difference of the profile with
 * itself. Oracles: the JSON parses; the same report twice gives the same bytes; a profile
 * differs from itself nowhere (every node's base and new values are equal) and a rule asking
 * for any growth never fires on that difference. */
#include <string.h>

#include "fuzz.h"
#include "json-check.h"
#include "report.h"

static void
check_json(const pprof_buffer *b, const char *what)
{
    size_t bad = 0;
    FUZZ_CHECK(json_check(b->data, b->len, &bad), "%s: invalid JSON at byte %zu of %zu", what, bad,
               b->len);
}

static void
report(const pprof_profile *p, size_t size)
{
    pprof_report_options ro;
    pprof_report_options_init(&ro);
    ro.granularity = (pprof_granularity)(size % 5);
    ro.cum_sort = size & 8;
    ro.node_count = size % 7;
    ro.node_fraction = size & 16 ? 0 : 0.005;
    pprof_report *r = NULL, *r2 = NULL;
    pprof_error err;
    if (pprof_report_new(p, &ro, &r, &err) != PPROF_OK)
        return;
    pprof_buffer text = {0}, json = {0}, again = {0};
    FUZZ_CHECK(pprof_report_print(r, PPROF_PRINT_TEXT, &text, &err) == PPROF_OK, "report text: %s",
               err.message);
    FUZZ_CHECK(pprof_report_print(r, PPROF_PRINT_JSON, &json, &err) == PPROF_OK, "report JSON: %s",
               err.message);
    check_json(&json, "report");
    pprof_report_summary s = pprof_report_get_summary(r);
    FUZZ_CHECK(s.nodes_kept <= s.nodes_nonzero, "kept %zu of %zu nodes", s.nodes_kept,
               s.nodes_nonzero);
    for (size_t i = 0; i < pprof_report_count(r); i++)
        FUZZ_CHECK(pprof_report_node_at(r, i).name != NULL, "node %zu has no name", i);
    FUZZ_CHECK(pprof_report_new(p, &ro, &r2, &err) == PPROF_OK, "second report: %s", err.message);
    FUZZ_CHECK(pprof_report_print(r2, PPROF_PRINT_TEXT, &again, &err) == PPROF_OK,
               "second report text: %s", err.message);
    FUZZ_CHECK(again.len == text.len && memcmp(again.data, text.data, text.len) == 0,
               "the same report twice differs");
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_buffer_free(&again);
    pprof_report_free(r);
    pprof_report_free(r2);
}

static void
self_diff(const pprof_profile *p, size_t size)
{
    pprof_diff_options o;
    pprof_diff_options_init(&o);
    o.granularity = (pprof_granularity)((size / 5) % 5);
    o.normalize = size & 32;
    pprof_diff *d = NULL;
    pprof_error err;
    if (pprof_diff_new(p, p, &o, &d, &err) != PPROF_OK)
        return;
    for (size_t i = 0; i < pprof_diff_count(d); i++) {
        pprof_diff_node n = pprof_diff_node_at(d, i);
        FUZZ_CHECK(n.base_flat == n.new_flat && n.base_cum == n.new_cum,
                   "node %zu differs from itself", i);
    }
    pprof_buffer text = {0}, json = {0};
    FUZZ_CHECK(pprof_diff_print(d, size % 4, PPROF_PRINT_TEXT, &text, &err) == PPROF_OK,
               "diff text: %s", err.message);
    FUZZ_CHECK(pprof_diff_print(d, 0, PPROF_PRINT_JSON, &json, &err) == PPROF_OK, "diff JSON: %s",
               err.message);
    check_json(&json, "diff");
    static const char *const rules[] = {"total > 0%", "cum:. > 0", "flat:^main > +0pp"};
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        pprof_diff_rule *rule = NULL;
        FUZZ_CHECK(pprof_diff_rule_parse(rules[i], NULL, &rule, &err) == PPROF_OK, "rule %s: %s",
                   rules[i], err.message);
        size_t fired = 0;
        if (pprof_diff_rule_eval(rule, d, NULL, &fired, &err) == PPROF_OK)
            FUZZ_CHECK(fired == 0, "'%s' fired %zu times on a profile against itself", rules[i],
                       fired);
        pprof_diff_rule_free(rule);
    }
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_diff_free(d);
    pprof_profile *q = NULL;
    if (pprof_diff_profile(p, p, &o, &q, &err) == PPROF_OK) {
        pprof_buffer enc = {0};
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        FUZZ_CHECK(pprof_profile_write_memory(q, &wo, &enc, &err) == PPROF_OK,
                   "the diff profile does not write: %s", err.message);
        pprof_buffer_free(&enc);
        pprof_profile_free(q);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p, &err) != PPROF_OK)
        return 0;
    report(p, size);
    self_diff(p, size);
    pprof_profile_free(p);
    return 0;
}
