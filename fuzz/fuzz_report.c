/* What pprof-top, pprof-report and pprof-diff do: decode, then the node report at a
 * granularity, order and sample type chosen from the input, its text and JSON, every render
 * format, the same report and renders with one allocation failing, and the difference of the
 * profile with itself and with an edited copy. Oracles: the JSON parses; the same report twice
 * gives the same bytes; a failed allocation gives PPROF_E_NOMEM and leaks nothing; a profile
 * differs from itself nowhere (every node's base and new values are equal), a rule asking for
 * any growth never fires on that difference, and a malformed rule is refused with a message;
 * against the copy the totals swap both ways and a rule on the total fires exactly when the
 * total moved its way. */
#define _GNU_SOURCE /* nftw, memmem (xml-check.h) */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edit.h"
#include "fuzz.h"
#include "json-check.h"
#include "report.h"
#include "utf8-private.h"
#include "xml-check.h"

/* Sample types by Go's -sample_index rule: default, index, name, inuse_ prefix, and misses. */
static const char *const TYPES[] = {NULL,          "",      "0",  "1",           "samples", "cpu",
                                    "inuse_space", "space", "99", "no-such-type"};

static void
check_json(const pprof_buffer *b, const char *what)
{
    size_t bad = 0;
    FUZZ_CHECK(json_check(b->data, b->len, &bad), "%s: invalid JSON at byte %zu of %zu", what, bad,
               b->len);
}

/* The report, its text and its JSON through allocator fa. */
static pprof_status
report_all(const pprof_profile *p, pprof_report_options ro, fuzz_failing_alloc *fa,
           pprof_error *err)
{
    ro.allocator = fuzz_failing_allocator(fa);
    pprof_report *r = NULL;
    pprof_buffer text = {0}, json = {0};
    pprof_status st = pprof_report_new(p, &ro, &r, err);
    FUZZ_CHECK(st == PPROF_OK || !r, "a failed report returned one");
    if (st == PPROF_OK)
        st = pprof_report_print(r, PPROF_PRINT_TEXT, &text, err);
    if (st == PPROF_OK)
        st = pprof_report_print(r, PPROF_PRINT_JSON, &json, err);
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_report_free(r);
    return st;
}

/* The report and its printing again with one allocation failing, at up to 6 points spread
 * over its allocations (from h): PPROF_E_NOMEM, or success when it was only a hint. */
static void
report_nomem(const pprof_profile *p, pprof_report_options ro, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_error err;
    if (report_all(p, ro, &fa, &err) != PPROF_OK || fa.calls == 0)
        return;
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_status st = report_all(p, ro, &fa, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
    }
}

static void
report(const pprof_profile *p, size_t size, uint64_t h)
{
    pprof_report_options ro;
    pprof_report_options_init(&ro);
    ro.sample_type = TYPES[(h >> 8) % (sizeof(TYPES) / sizeof(TYPES[0]))];
    ro.granularity = (pprof_granularity)(size % 5);
    ro.cum_sort = size & 8;
    ro.node_count = size % 7;
    ro.node_fraction = size & 16 ? PPROF_REPORT_NO_CUTOFF : 0.005;
    pprof_report *r = NULL, *r2 = NULL;
    pprof_error err;
    if (pprof_report_new(p, &ro, &r, &err) != PPROF_OK) {
        FUZZ_CHECK(err.message[0], "a report error without a message");
        return;
    }
    report_nomem(p, ro, h);
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
    /* the profile as its own unfiltered original, with active filters named: the same total
     * and nodes, and the filters listed */
    static const char *const filters[] = {
        "focus=main",
        "tagignore=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
    pprof_report_options fo = ro;
    fo.unfiltered = p;
    fo.active_filters = filters;
    fo.n_active_filters = 2;
    pprof_report *r3 = NULL;
    pprof_buffer ftext = {0};
    FUZZ_CHECK(pprof_report_new(p, &fo, &r3, &err) == PPROF_OK, "report with unfiltered: %s",
               err.message);
    pprof_report_summary s3 = pprof_report_get_summary(r3);
    FUZZ_CHECK(s3.total == s.total && pprof_report_count(r3) == pprof_report_count(r),
               "the profile as its own unfiltered original changes the total (%lld, %lld)",
               (long long)s3.total, (long long)s.total);
    FUZZ_CHECK(pprof_report_print(r3, PPROF_PRINT_TEXT, &ftext, &err) == PPROF_OK,
               "report text with filters: %s", err.message);
    bool listed = false;
    for (size_t i = 0; i + 10 <= ftext.len && !listed; i++)
        listed = !memcmp(ftext.data + i, "focus=main", 10);
    FUZZ_CHECK(listed, "the active filters are not listed");
    pprof_buffer_free(&ftext);
    pprof_report_free(r3);
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_buffer_free(&again);
    pprof_report_free(r);
    pprof_report_free(r2);
}

/* Every granularity name parses to its value, and nothing else parses. */
static void
granularity_names(void)
{
    static const char *const names[] = {"functions", "filefunctions", "files", "lines",
                                        "addresses"};
    pprof_granularity g;
    for (int i = 0; i < 5; i++)
        FUZZ_CHECK(pprof_granularity_parse(names[i], &g) &&
                       g == (pprof_granularity)(PPROF_GRANULARITY_FUNCTIONS + i),
                   "granularity '%s' does not parse", names[i]);
    FUZZ_CHECK(!pprof_granularity_parse("function", &g) && !pprof_granularity_parse(NULL, &g),
               "a wrong granularity name parses");
}

#define RX16 "aaaaaaaaaaaaaaaa"
#define RX256 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16 RX16
#define LONG_RX RX256 RX256 RX256 RX256

/* Growth rules first (never fire against itself), then malformed ones and others. */
static const char *const RULES[] = {
    "total > 0%",          "cum:. > 0",  "flat:^main > +0pp", "total>=+1",
    "cum:a|b>0.5%",        "flat:x > 3", "total >",           "cum: > 1",
    "flat:( > 1%",         "bogus > 1",  "total ~ 1",         "total > 1xyz",
    "total > --1",         "",           "cum:[z-a] > 1",     "  cum:x   >=  2pp  ",
    "flat:" LONG_RX " > 1"};
enum { GOOD_RULES = 6 };

static void
rules(const pprof_diff *d, size_t size)
{
    size_t n = sizeof(RULES) / sizeof(RULES[0]);
    for (size_t k = 0; k < 4; k++) {
        size_t i = k < 3 ? k : 3 + size % (n - 3);
        pprof_diff_rule *rule = NULL;
        pprof_error err;
        pprof_status st = pprof_diff_rule_parse(RULES[i], NULL, &rule, &err);
        if (st != PPROF_OK) {
            FUZZ_CHECK(i >= GOOD_RULES, "rule '%s': %s", RULES[i], err.message);
            FUZZ_CHECK(st == PPROF_E_ARG && err.message[0], "rule '%s' refused with %s", RULES[i],
                       pprof_status_name(st));
            continue;
        }
        size_t fired = 0;
        pprof_buffer msg = {0};
        if (pprof_diff_rule_eval(rule, d, k ? &msg : NULL, &fired, &err) == PPROF_OK &&
            i < GOOD_RULES)
            FUZZ_CHECK(fired == 0, "'%s' fired %zu times on a profile against itself", RULES[i],
                       fired);
        pprof_buffer_free(&msg);
        pprof_diff_rule_free(rule);
    }
    /* through an allocator that fails: a rule that parses needs memory, a malformed one is
     * refused for its text */
    fuzz_failing_alloc fa = {0, 0, 0};
    pprof_allocator a = fuzz_failing_allocator(&fa);
    pprof_diff_rule *rule = NULL;
    pprof_error err;
    size_t i = size % n;
    pprof_status st = pprof_diff_rule_parse(RULES[i], &a, &rule, &err);
    FUZZ_CHECK(!rule && (st == PPROF_E_NOMEM ? fa.failed != 0 : st == PPROF_E_ARG),
               "rule '%s' with no memory: %s", RULES[i], pprof_status_name(st));
}

/* The difference of a profile with itself: every node equal, prints, rules never fire. */
static void
self_diff_nodes(pprof_diff *d, size_t size)
{
    pprof_error err;
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
    rules(d, size);
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_diff_free(d);
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
    if (pprof_diff_new(p, p, &o, &d, &err) == PPROF_OK)
        self_diff_nodes(d, size);
    else
        FUZZ_CHECK(err.message[0], "self diff: an error without a message");
    pprof_profile *q = NULL;
    if (pprof_diff_profile(p, p, &o, &q, &err) == PPROF_OK) {
        pprof_buffer enc = {0};
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        FUZZ_CHECK(pprof_profile_write_memory(q, &wo, &enc, &err) == PPROF_OK,
                   "the diff profile does not write: %s", err.message);
        pprof_buffer_free(&enc);
        pprof_profile_free(q);
    } else {
        FUZZ_CHECK(err.message[0], "self diff profile: an error without a message");
    }
}

/* The render again with one allocation failing, at up to 12 points spread over its
 * allocations (from h): PPROF_E_NOMEM with a message, or the same bytes when it was only a
 * hint. want is the render's output without failures. */
static void
render_nomem(const pprof_profile *p, pprof_report_render_options o, pprof_print_format pf,
             const pprof_buffer *want, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    o.allocator = fuzz_failing_allocator(&fa);
    pprof_buffer b = {0};
    pprof_error err;
    pprof_status st = pprof_report_write_memory(p, &o, pf, &b, &err);
    pprof_buffer_free(&b);
    FUZZ_CHECK(st == PPROF_OK, "render %d through the counting allocator: %s", (int)o.format,
               err.message);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(12);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        st = pprof_report_write_memory(p, &o, pf, &b, &err);
        FUZZ_CHECK((st == PPROF_E_NOMEM && fa.failed && err.message[0]) ||
                       (st == PPROF_OK && b.len == want->len &&
                        (!b.len || !memcmp(b.data, want->data, b.len))),
                   "render %d with allocation %llu of %llu failing gives %s", (int)o.format,
                   (unsigned long long)at, (unsigned long long)calls, pprof_status_name(st));
        pprof_buffer_free(&b);
    }
}

/* Fires rule text on d: how often, and the message is there when it fired. */
static size_t
fired_on(const char *text, const pprof_diff *d)
{
    pprof_diff_rule *rule = NULL;
    pprof_error err;
    FUZZ_CHECK(pprof_diff_rule_parse(text, NULL, &rule, &err) == PPROF_OK, "rule '%s': %s", text,
               err.message);
    size_t fired = 0;
    pprof_buffer msg = {0};
    pprof_status st = pprof_diff_rule_eval(rule, d, &msg, &fired, &err);
    FUZZ_CHECK(st == PPROF_OK, "rule '%s' does not evaluate: %s", text, err.message);
    FUZZ_CHECK(!fired == !msg.len, "rule '%s' fired %zu times with %zu bytes of message", text,
               fired, msg.len);
    pprof_buffer_free(&msg);
    pprof_diff_rule_free(rule);
    return fired;
}

/* pprof_diff_new with one allocation failing, at up to 6 points: PPROF_E_NOMEM or success. */
static void
diff_nomem(const pprof_profile *base, const pprof_profile *cur, pprof_diff_options o, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    o.allocator = fuzz_failing_allocator(&fa);
    pprof_diff *d = NULL;
    pprof_profile *q = NULL;
    pprof_error err;
    if (pprof_diff_new(base, cur, &o, &d, &err) != PPROF_OK)
        return;
    pprof_diff_free(d);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        d = NULL;
        pprof_status st = pprof_diff_new(base, cur, &o, &d, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0] && !d),
                   "diff with allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
        pprof_diff_free(d);
    }
    fa = (fuzz_failing_alloc){0, UINT64_MAX, 0};
    if (pprof_diff_profile(base, cur, &o, &q, &err) != PPROF_OK)
        return;
    pprof_profile_free(q);
    calls = fa.calls;
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h >> 3);
        fa = (fuzz_failing_alloc){0, at, 0};
        q = NULL;
        pprof_status st = pprof_diff_profile(base, cur, &o, &q, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0] && !q),
                   "diff profile with allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
        pprof_profile_free(q);
    }
}

/* The diff profile written to a file is what pprof_diff_profile gives, written. */
static void
diff_file(const pprof_profile *base, const pprof_profile *cur, const pprof_diff_options *o)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-diff-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/diff.pb", dir);
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_profile *q = NULL;
    pprof_error err;
    pprof_status sm = pprof_diff_profile(base, cur, o, &q, &err);
    pprof_status sf = pprof_diff_write_file(base, cur, o, &wo, path, &err);
    FUZZ_CHECK(sm == sf, "the diff profile gives %s, written to a file %s", pprof_status_name(sm),
               pprof_status_name(sf));
    if (sf == PPROF_OK) {
        pprof_buffer mem = {0};
        FUZZ_CHECK(pprof_profile_write_memory(q, &wo, &mem, &err) == PPROF_OK,
                   "the diff profile does not write: %s", err.message);
        size_t n;
        FUZZ_CHECK(fuzz_file_holds(path, mem.data, mem.len, &n),
                   "the diff file (%zu bytes) is not the diff profile (%zu)", n, mem.len);
        pprof_buffer_free(&mem);
        unlink(path);
    } else {
        FUZZ_CHECK(err.message[0], "diff file: %s without a message", pprof_status_name(sf));
    }
    pprof_profile_free(q);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
}

/* The profile against another one: BASE is p edited (values scaled by a factor from h; half the
 * time the samples of functions matching "e" dropped; a quarter of the time one sample type
 * kept). Against each other both ways, the totals swap; a rule on the total fires exactly when
 * the total moved its way; the diff profile is the same written to memory or to a file. */
static void
pair_diff(const pprof_profile *p, uint64_t h)
{
    static const double factors[] = {0.5, 2, -1, 0, 3e18, 1};
    pprof_edit_scale sc = {NULL, factors[h % 6]};
    pprof_edit_options eo;
    pprof_edit_options_init(&eo);
    eo.scale = &sc;
    eo.n_scale = 1;
    eo.ignore = (h >> 3) & 1 ? "e" : NULL;
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    pprof_string last = {"", 0};
    char type[128] = "";
    if (nt)
        pprof_profile_string(p, pprof_profile_sample_type(p, nt - 1).type, &last);
    snprintf(type, sizeof(type), "%.*s", (int)(last.len < 127 ? last.len : 127), last.data);
    const char *const keep[] = {type};
    bool one_type = nt > 1 && ((h >> 4) & 3) == 0 && *type && strlen(type) == last.len;
    if (one_type) {
        eo.sample_types = keep;
        eo.n_sample_types = 1;
    }
    pprof_profile *base = NULL;
    pprof_error err;
    if (pprof_edit(p, &eo, &base, &err) != PPROF_OK)
        return;
    pprof_diff_options o;
    pprof_diff_options_init(&o);
    o.granularity = (pprof_granularity)((h >> 6) % 5);
    o.normalize = (h >> 9) & 1;
    o.sample_type = one_type || ((h >> 10) & 1) ? type : NULL;
    pprof_diff *d = NULL, *back = NULL;
    pprof_status st = pprof_diff_new(base, p, &o, &d, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(err.message[0], "diff: %s without a message", pprof_status_name(st));
    } else {
        pprof_diff_summary s = pprof_diff_get_summary(d);
        /* normalized, NEW's values follow BASE's total: the reverse diff is another one */
        if (!o.normalize && pprof_diff_new(p, base, &o, &back, &err) == PPROF_OK) {
            pprof_diff_summary r = pprof_diff_get_summary(back);
            FUZZ_CHECK(r.base_total == s.new_total && r.new_total == s.base_total,
                       "the totals do not swap (%lld, %lld against %lld, %lld)",
                       (long long)s.base_total, (long long)s.new_total, (long long)r.base_total,
                       (long long)r.new_total);
        }
        pprof_diff_free(back);
        double delta = (double)s.new_total - (double)s.base_total;
        FUZZ_CHECK(fired_on("total > 0", d) == (delta > 0), "'total > 0' on a change of %g", delta);
        /* a change from a zero total is infinitely many percent, of its sign */
        FUZZ_CHECK(fired_on("total <= -0%", d) == (delta <= 0), "'total <= -0%%' on a change of %g",
                   delta);
        fired_on(h & 1 ? "flat:. >= 10%" : "cum:e < -1pp", d);
        pprof_buffer text = {0}, json = {0};
        FUZZ_CHECK(pprof_diff_print(d, (h >> 12) % 4, PPROF_PRINT_TEXT, &text, &err) == PPROF_OK,
                   "diff text: %s", err.message);
        FUZZ_CHECK(pprof_diff_print(d, 0, PPROF_PRINT_JSON, &json, &err) == PPROF_OK,
                   "diff JSON: %s", err.message);
        check_json(&json, "pair diff");
        pprof_buffer_free(&text);
        pprof_buffer_free(&json);
        pprof_diff_free(d);
        diff_nomem(base, p, o, h >> 14);
    }
    diff_file(base, p, &o);
    /* a type only NEW has (BASE kept the last): the profile without it is named */
    pprof_string first = {"", 0};
    if (one_type && pprof_profile_string(p, pprof_profile_sample_type(p, 0).type, &first) &&
        first.len && first.len < 127 && !memchr(first.data, 0, first.len) &&
        !(first.len == last.len && !memcmp(first.data, last.data, last.len))) {
        snprintf(type, sizeof(type), "%.*s", (int)first.len, first.data);
        o.sample_type = type;
        for (int k = 0; k < 2; k++) {
            d = NULL;
            st = k ? pprof_diff_new(p, base, &o, &d, &err) : pprof_diff_new(base, p, &o, &d, &err);
            FUZZ_CHECK(st != PPROF_OK ? !strncmp(err.message, k ? "NEW" : "BASE", 3) : !d,
                       "a type %s lacks: %s: %s", k ? "NEW" : "BASE", pprof_status_name(st),
                       st ? err.message : "accepted");
            pprof_diff_free(d);
        }
    }
    pprof_profile_free(base);
}

/* Missing arguments are refused with PPROF_E_ARG, whichever is missing. */
static void
missing_arguments(const pprof_profile *p)
{
    pprof_diff_options o;
    pprof_diff_options_init(&o);
    pprof_diff *d = NULL;
    pprof_profile *q = NULL;
    pprof_diff_rule *rule = NULL;
    pprof_buffer b = {0};
    size_t fired = 0;
    pprof_error err;
    o.granularity = (pprof_granularity)(PPROF_GRANULARITY_ADDRESSES + 1);
    pprof_status st[] = {
        pprof_diff_new(NULL, p, NULL, &d, &err),
        pprof_diff_new(p, p, &o, &d, &err),
        pprof_diff_profile(p, NULL, NULL, &q, &err),
        pprof_diff_profile(p, p, NULL, NULL, &err),
        pprof_diff_write_file(p, p, NULL, NULL, NULL, &err),
        pprof_diff_print(NULL, 0, PPROF_PRINT_TEXT, &b, &err),
        pprof_diff_rule_parse(NULL, NULL, &rule, &err),
        pprof_diff_rule_eval(NULL, NULL, &b, &fired, &err),
    };
    for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
        FUZZ_CHECK(st[i] == PPROF_E_ARG && err.message[0], "missing argument %zu: %s", i,
                   pprof_status_name(st[i]));
    FUZZ_CHECK(!d && !q && !rule && !b.len, "a refused call gave something back");
    /* renders: no profile, peek without its expression, a directory that is not there */
    pprof_report_render_options ro;
    pprof_report_render_options_init(&ro);
    FUZZ_CHECK(pprof_report_write_memory(NULL, &ro, PPROF_PRINT_TEXT, &b, &err) == PPROF_E_ARG,
               "a render of no profile is not refused");
    ro.format = PPROF_REPORT_PEEK;
    FUZZ_CHECK(pprof_report_write_memory(p, &ro, PPROF_PRINT_TEXT, &b, &err) == PPROF_E_ARG &&
                   pprof_report_write_file(p, &ro, PPROF_PRINT_TEXT, NULL, "-", &err) ==
                       PPROF_E_ARG,
               "peek without an expression is not refused");
    ro.format = PPROF_REPORT_TRACES;
    pprof_status st2 = pprof_report_write_file(p, &ro, PPROF_PRINT_TEXT, NULL,
                                               "/nonexistent-pprof-fuzz/out", &err);
    FUZZ_CHECK(st2 != PPROF_OK && err.message[0], "a render into no directory: %s",
               pprof_status_name(st2));
    FUZZ_CHECK(!b.len, "a refused render gave something back");
}

/* A render written to /dev/full fails, naming the error, unless it has no bytes; traces of a
 * large profile are written in parts as they are made, and the first part fails. */
static void
render_full_device(const pprof_profile *p)
{
    pprof_report_render_options ro;
    pprof_report_render_options_init(&ro);
    ro.format = PPROF_REPORT_TRACES;
    pprof_buffer mem = {0};
    pprof_error err;
    if (pprof_report_write_memory(p, &ro, PPROF_PRINT_TEXT, &mem, &err) != PPROF_OK)
        return;
    pprof_status st = pprof_report_write_file(p, &ro, PPROF_PRINT_TEXT, NULL, "/dev/full", &err);
    FUZZ_CHECK(mem.len ? st == PPROF_E_IO && err.message[0] : st == PPROF_OK,
               "%zu bytes of traces to /dev/full: %s", mem.len, pprof_status_name(st));
    pprof_buffer_free(&mem);
}

/* Where a text render holds a control byte other than newline and tab, or -1: profile strings
 * go through the text escape, so none comes from the profile (list prints source files, dot
 * and svg have their own escapes: not looked at). */
static long
control_at(pprof_report_format f, const pprof_buffer *b)
{
    if (f != PPROF_REPORT_TRACES && f != PPROF_REPORT_TAGS && f != PPROF_REPORT_TREE &&
        f != PPROF_REPORT_PEEK && f != PPROF_REPORT_CALLGRIND)
        return -1;
    for (size_t i = 0; i < b->len; i++)
        if ((b->data[i] < 0x20 && b->data[i] != '\n' && b->data[i] != '\t') || b->data[i] == 0x7f)
            return (long)i;
    return -1;
}

/* pprof_report_write_memory: every format, text and JSON, with options drawn from the input; an
 * error must say why, a second render must give the same bytes, and the render with one
 * allocation failing gives PPROF_E_NOMEM. */
static void
render(const pprof_profile *p, size_t size, uint64_t h)
{
    static const char *const rx[] = {"e", "main|runtime", "^$", "."};
    /* list reads the sources the profile names: every name is made relative ("/" trimmed)
     * and searched under a directory that does not exist and its parents (the working
     * directory): the search runs, relative to the working directory */
    bool small = pprof_profile_count(p, PPROF_TABLE_LOCATION) <= 300;
    for (int f = PPROF_REPORT_TRACES; f <= PPROF_REPORT_LIST; f++) {
        pprof_report_render_options o;
        pprof_report_render_options_init(&o);
        o.format = (pprof_report_format)f;
        o.sample_type = TYPES[(h >> 12) % (sizeof(TYPES) / sizeof(TYPES[0]))];
        o.granularity = (pprof_granularity)((size >> 1) % 6);
        o.cum_sort = h & 1;
        o.node_count = (int64_t)((h >> 4) % 12) - 1;
        if (o.node_count < 0)
            o.node_count = PPROF_REPORT_ALL;
        o.no_trim = (h >> 20) & 1;
        o.symbol = rx[(h >> 24) % 4];
        o.trim_path = "/";
        o.source_path = (h >> 28) & 1 ? "fuzz-no-such-dir" : "fuzz-no-such-dir/a:b";
        for (int j = 0; j < 2; j++) {
            pprof_print_format pf = j ? PPROF_PRINT_JSON : PPROF_PRINT_TEXT;
            pprof_buffer a = {0}, b = {0};
            pprof_error err;
            pprof_status st = pprof_report_write_memory(p, &o, pf, &a, &err);
            if (st) {
                FUZZ_CHECK(err.message[0], "render %d/%d: an error without a message", f, j);
            } else {
                FUZZ_CHECK(pprof_report_write_memory(p, &o, pf, &b, &err) == PPROF_OK,
                           "second render: %s", err.message);
                FUZZ_CHECK(a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)),
                           "render %d/%d differs between two runs", f, j);
                long at = pf == PPROF_PRINT_TEXT ? control_at(o.format, &a) : -1;
                FUZZ_CHECK(at < 0, "render %d: control byte 0x%02x at %ld (not escaped)", f,
                           at < 0 ? 0 : a.data[at], at);
                /* every format of a small profile, one of a large one (time) */
                if (small || (size_t)(f * 2 + j) == (h >> 40) % 14)
                    render_nomem(p, o, pf, &a, h >> (f + 3 * j));
            }
            pprof_buffer_free(&a);
            pprof_buffer_free(&b);
        }
    }
}

/* A source path the harness may create under its private directory: relative once the leading
 * '/' is gone, short, of plain characters, with no empty, "." or ".." component, so that no
 * input can make it write outside the directory. */
static bool
safe_source(const char *s, size_t n)
{
    while (n && *s == '/')
        s++, n--;
    if (!n || n > 120)
        return false;
    size_t comp = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '/') {
            if (comp == 0 || (comp == 1 && s[i - 1] == '.') ||
                (comp == 2 && s[i - 1] == '.' && s[i - 2] == '.'))
                return false;
            comp = 0;
            continue;
        }
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
        comp++;
    }
    return true;
}

/* Whether a list may search for the profile's sources outside the harness's directory (in the
 * working directory and its parents, or at their absolute names): only when no file name could
 * reach a file whose content changes between two runs (/proc, /sys, /dev). */
static bool
sources_tame(const pprof_profile *p)
{
    size_t nf = pprof_profile_count(p, PPROF_TABLE_FUNCTION);
    static const char *const bad[] = {"proc", "sys", "dev"};
    for (size_t i = 0; i < nf; i++) {
        pprof_string name = {"", 0};
        pprof_profile_string(p, pprof_profile_function(p, i).filename, &name);
        for (size_t k = 0; k < 3; k++)
            if (memmem(name.data, name.len, bad[k], strlen(bad[k])))
                return false;
    }
    return true;
}

/* Writes dir/NAME (NAME = s without its leading '/', parents made) with lines "line K", ended
 * by "\r\n" when crlf; a long first line is longer than a list reads (64 KiB). */
static void
write_source(const char *dir, const char *s, size_t n, int lines, bool crlf, bool long_first)
{
    while (n && *s == '/')
        s++, n--;
    char path[4400];
    int at = snprintf(path, sizeof(path), "%s/", dir);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/') {
            path[at] = 0;
            FUZZ_CHECK(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s: %s", path,
                       strerror(errno));
        }
        path[at++] = s[i];
    }
    path[at] = 0;
    FILE *f = fopen(path, "wx");
    if (!f) /* the same name twice, or a directory of that name already */
        return;
    if (long_first)
        for (int k = 0; k < 70000; k++)
            fputc('x', f);
    for (int k = 1; k <= lines; k++)
        fprintf(f, "%s line %d%s\n", k % 7 ? "\t" : "// ", k, crlf ? "\r" : "");
    FUZZ_CHECK(fclose(f) == 0, "writing %s", path);
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    FUZZ_CHECK(remove(path) == 0, "remove %s: %s", path, strerror(errno));
    return 0;
}

/* list with the sources present: the first functions' files are written under a private
 * directory, which is the search path; a file the profile names twice or under a name the
 * harness will not create is reported missing, as any unreadable source is. */
static void
render_list_sources(const pprof_profile *p, uint64_t h)
{
    size_t nf = pprof_profile_count(p, PPROF_TABLE_FUNCTION), made = 0;
    const char *base = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-list-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    for (size_t i = 0; i < nf && made < 8; i++) {
        pprof_string name = {"", 0};
        pprof_profile_string(p, pprof_profile_function(p, i).filename, &name);
        if (!safe_source(name.data, name.len))
            continue;
        /* the first files long enough for every line, the later ones cut short */
        write_source(dir, name.data, name.len, made < 4 ? 400 : (int)(h >> 40) % 30,
                     (h >> (20 + made)) & 1, made == 0 && (h >> 48) % 8 == 0);
        made++;
    }
    if (made) {
        static const char *const rx[] = {".", "main", "e"};
        pprof_report_render_options o;
        pprof_report_render_options_init(&o);
        o.format = PPROF_REPORT_LIST;
        o.symbol = rx[h % 3];
        o.trim_path = "/";
        o.source_path = dir;
        o.mean = (h >> 3) & 1;
        o.no_trim = (h >> 5) & 1;
        pprof_buffer a = {0}, b = {0};
        pprof_error err;
        if (pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, &a, &err) == PPROF_OK) {
            FUZZ_CHECK(pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, &b, &err) == PPROF_OK,
                       "second list: %s", err.message);
            FUZZ_CHECK(a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)),
                       "list with sources differs between two runs");
            render_nomem(p, o, PPROF_PRINT_TEXT, &a, h >> 7);
        } else {
            FUZZ_CHECK(err.message[0], "list: an error without a message");
        }
        pprof_buffer_free(&a);
        pprof_buffer_free(&b);
        /* the names as they are (absolute ones opened there), and the working directory as
         * the search path: errors say why, and two runs agree */
        if (sources_tame(p)) {
            for (int k = 0; k < 2; k++) {
                o.trim_path = k ? "/" : NULL;
                o.source_path = k ? NULL : dir;
                pprof_status st = pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, &a, &err);
                if (st == PPROF_OK) {
                    FUZZ_CHECK(pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, &b, &err) ==
                                   PPROF_OK,
                               "second list %d: %s", k, err.message);
                    FUZZ_CHECK(a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)),
                               "list %d differs between two runs", k);
                } else {
                    FUZZ_CHECK(err.message[0], "list %d: an error without a message", k);
                }
                pprof_buffer_free(&a);
                pprof_buffer_free(&b);
            }
        }
    }
    FUZZ_CHECK(nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0, "cleaning %s", dir);
}

/* Whether every string of p is UTF-8. Graphviz writes the names it is given as they are, so
 * the SVG of a profile with other bytes in a name is not XML (a known gap, not checked here). */
static bool
strings_utf8(const pprof_profile *p)
{
    size_t n = pprof_profile_count(p, PPROF_TABLE_STRING);
    for (size_t i = 0; i < n; i++) {
        pprof_string s = {"", 0};
        size_t bad;
        if (pprof_profile_string(p, (int64_t)i, &s) &&
            !pprof__utf8_valid((const uint8_t *)s.data, s.len, &bad))
            return false;
    }
    return true;
}

/* -svg: Graphviz lays the graph out, so only small profiles (64 locations at most) keep an
 * input within milliseconds. Graphviz must always read the dot text, the document must be
 * well-formed XML; JSON is refused. */
static void
render_svg(const pprof_profile *p, uint64_t h)
{
    if (pprof_profile_count(p, PPROF_TABLE_LOCATION) > 64)
        return;
    pprof_report_render_options o;
    pprof_report_render_options_init(&o);
    o.format = PPROF_REPORT_SVG;
    o.granularity = (pprof_granularity)((h >> 7) % 6);
    o.node_count = (int64_t)((h >> 11) % 10) - 1;
    if (o.node_count < 0)
        o.node_count = PPROF_REPORT_ALL;
    o.cum_sort = (h >> 2) & 1;
    pprof_buffer a = {0};
    pprof_error err;
    pprof_status st = pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, &a, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(err.message[0], "svg: %s without a message", pprof_status_name(st));
        /* every profile string is quoted so that the dot text always parses (dot_quote) */
        FUZZ_CHECK(!strstr(err.message, "could not read the dot graph"), "svg: %s", err.message);
    } else {
        if (strings_utf8(p)) {
            size_t bad = 0;
            FUZZ_CHECK(xml_check(a.data, a.len, &bad), "SVG not well-formed at byte %zu of %zu",
                       bad, a.len);
        }
        /* Graphviz lays the graph out again for each failure point: a few, on small graphs */
        if (pprof_profile_count(p, PPROF_TABLE_LOCATION) <= 24)
            render_nomem(p, o, PPROF_PRINT_TEXT, &a, h >> 19);
    }
    pprof_buffer_free(&a);
    FUZZ_CHECK(pprof_report_write_memory(p, &o, PPROF_PRINT_JSON, &a, &err) == PPROF_E_ARG,
               "svg as JSON is not refused");
    pprof_buffer_free(&a);
}

/* top through pprof_report_write_memory, and a render to a file (each format's streamed writer),
 * which must hold what the same render gives in memory. */
static void
render_file(const pprof_profile *p, uint64_t h)
{
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-render-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/out", dir);
    pprof_report_render_options o;
    pprof_report_render_options_init(&o);
    o.format = (pprof_report_format)(h % (PPROF_REPORT_CALLGRIND + 1));
    o.symbol = ".";
    o.node_count = (int64_t)((h >> 9) % 6) - 1;
    if (o.node_count < 0)
        o.node_count = PPROF_REPORT_ALL;
    o.node_fraction = (h >> 13) & 1 ? 0.1 : 0;
    o.edge_fraction = (h >> 14) & 1 ? 0.1 : 0;
    o.compact_labels = (h >> 15) & 1;
    o.mean = (h >> 16) & 1;
    pprof_print_format pf = (h >> 17) & 1 ? PPROF_PRINT_JSON : PPROF_PRINT_TEXT;
    if (o.format == PPROF_REPORT_CALLGRIND)
        pf = PPROF_PRINT_TEXT;
    pprof_buffer mem = {0};
    pprof_error err;
    pprof_status sm = pprof_report_write_memory(p, &o, pf, &mem, &err);
    pprof_status sf = pprof_report_write_file(p, &o, pf, NULL, path, &err);
    FUZZ_CHECK(sm == sf, "render %d to memory gives %s, to a file %s", (int)o.format,
               pprof_status_name(sm), pprof_status_name(sf));
    if (sf == PPROF_OK) {
        size_t n;
        FUZZ_CHECK(fuzz_file_holds(path, mem.data, mem.len, &n),
                   "render %d: the file (%zu bytes) differs from memory (%zu)", (int)o.format, n,
                   mem.len);
        unlink(path);
    }
    pprof_buffer_free(&mem);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p, &err) != PPROF_OK)
        return 0;
    granularity_names();
    report(p, size, fuzz_hash(data, size));
    render(p, size, fuzz_hash(data, size));
    render_list_sources(p, fuzz_hash(data, size));
    render_svg(p, fuzz_hash(data, size));
    render_file(p, fuzz_hash(data, size));
    self_diff(p, size);
    pair_diff(p, fuzz_hash(data, size) >> 5);
    missing_arguments(p);
    render_full_device(p);
    pprof_profile_free(p);
    return 0;
}
