/* Checker rules, one minimal profile each; repair; cross-file S1; limits; real-corpus verdicts;
 * the committed corpus/check files. `test_check --write-corpus DIR` regenerates corpus/check. */
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "check.h"
#include "edit.h"
#include "formats.h"
#include "tap.h"

typedef struct got {
    char rule[48];
    char path[160];
    char msg[512];
    char file[64];
    pprof_severity sev;
} got;

typedef struct coll {
    got f[64];
    size_t n;
} coll;

/* Every rule: S14 needs the regexp parser of libpprof-analyze. */
static const pprof_check_options full_opts = {sizeof(pprof_check_options), 1000, NULL, 0,
                                              pprof_regex_check,           NULL};

/* pprof_check_path as pprof-check calls it: with the readers of libpprof-formats. */
static const pprof_check_options *
path_opts(pprof_check_options *o)
{
    *o = full_opts;
    o->readers = pprof_formats_readers();
    return o;
}

static bool
collect(void *ctx, const pprof_finding *f)
{
    coll *c = ctx;
    if (c->n < 64) {
        got *g = &c->f[c->n++];
        snprintf(g->rule, sizeof(g->rule), "%s", f->rule_id);
        snprintf(g->path, sizeof(g->path), "%s", f->path);
        snprintf(g->msg, sizeof(g->msg), "%s", f->message);
        snprintf(g->file, sizeof(g->file), "%s", f->file ? f->file : "");
        g->sev = f->severity;
    }
    return true;
}

static const got *
find(const coll *c, const char *rule, const char *path)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->f[i].rule, rule) == 0 && (!path || strcmp(c->f[i].path, path) == 0))
            return &c->f[i];
    return NULL;
}

static void
dump(const coll *c)
{
    for (size_t i = 0; i < c->n; i++)
        tap_diag("  %s %s: %s: %s", pprof_severity_name(c->f[i].sev), c->f[i].rule, c->f[i].path,
                 c->f[i].msg);
}

/* Reads as pprof-check does: what the decoder refuses by default is left to the checker. */
static pprof_status
read_relaxed(const pb *b, pprof_profile **p, pprof_error *err)
{
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    ro.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    return pprof_profile_read_memory(b->d, b->n, &ro, p, err);
}

static pprof_status
check_bytes(const pb *b, pprof_profile **p, coll *c, pprof_check_summary *sum, pprof_error *err)
{
    pprof_status st = read_relaxed(b, p, err);
    if (st)
        return st;
    memset(c, 0, sizeof(*c));
    return pprof_check(*p, &full_opts, collect, c, sum, err);
}

/* Wrapping sum: the S21 case overflows int64 on purpose. */
static uint64_t
value_sum(const pprof_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample x = pprof_profile_sample(p, i);
        for (size_t j = 0; j < x.n_value; j++)
            s += (uint64_t)x.value[j];
    }
    return s;
}

/* Repairs p, writes and re-reads the result, and requires no error-level finding. */
static void
test_repair(tap *t, const rcase *k, pprof_profile *p)
{
    pprof_profile *q = NULL, *back = NULL;
    pprof_repair_stats rs = PPROF_REPAIR_STATS_INIT;
    pprof_error err;
    pprof_buffer buf = {0};
    pprof_status st = pprof_repair(p, &q, &rs, &err);
    if (st == PPROF_OK) {
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        st = pprof_profile_write_memory(q, &wo, &buf, &err);
    }
    if (st == PPROF_OK)
        st = pprof_profile_read_memory(buf.data, buf.len, NULL, &back, &err);
    coll c = {.n = 0};
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    if (st == PPROF_OK)
        st = pprof_check(back, &full_opts, collect, &c, &sum, &err);
    if (!tap_ok(t, st == PPROF_OK && sum.count[PPROF_SEVERITY_ERROR] == 0,
                "repair %s: output passes the check", k->name)) {
        tap_diag("status %s: %s %s", pprof_status_name(st), err.path, err.message);
        dump(&c);
    }
    /* Every sample whose values can be read is kept, with its values. */
    if (st == PPROF_OK && strcmp(k->name, "value-count") != 0) {
        tap_ok(t,
               pprof_profile_count(back, PPROF_TABLE_SAMPLE) ==
                       pprof_profile_count(p, PPROF_TABLE_SAMPLE) &&
                   value_sum(back) == value_sum(p),
               "repair %s: keeps every sample and value", k->name);
    }
    uint64_t total = 0;
    for (unsigned i = 0; i < PPROF_FIX_COUNT; i++)
        total += rs.count[i];
    if (st == PPROF_OK && k->rule) {
        const pprof_rule_info *ri = NULL;
        pprof_rule r;
        if (pprof_rule_find(k->rule, &r))
            ri = pprof_rule_get(r);
        /* W8 is seen only in the wire bytes; a rewrite has one time_nanos by construction. */
        if (ri && ri->severity == PPROF_SEVERITY_ERROR && r != PPROF_RULE_W8_CONCATENATED)
            tap_ok(t, total > 0, "repair %s: reports at least one fix (%llu)", k->name,
                   (unsigned long long)total);
    }
    if (!k->rule)
        tap_ok(t, total == 0 && back && pprof_profile_equal(back, p),
               "repair %s: a valid profile is left unchanged", k->name);
    pprof_buffer_free(&buf);
    pprof_profile_free(q);
    pprof_profile_free(back);
}

static void
test_cases(tap *t)
{
    bool covered[PPROF_RULE_COUNT] = {false};
    for (size_t i = 0; i < N_CASES; i++) {
        const rcase *k = &CASES[i];
        pb b = {.n = 0};
        k->build(&b);
        pprof_profile *p = NULL;
        pprof_error err;
        coll c;
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        pprof_status st = check_bytes(&b, &p, &c, &sum, &err);
        pprof_rule want = PPROF_RULE_COUNT;
        if (k->rule && !pprof_rule_find(k->rule, &want)) {
            tap_ok(t, 0, "%s: rule %s is in the registry", k->name, k->rule);
            continue;
        }
        if (k->rule)
            covered[want] = true;
        if (!k->decodes) {
            pprof_rule r;
            bool ok = st != PPROF_OK && p == NULL && pprof_check_read_error_rule(&err, &r) &&
                      r == want && strcmp(err.path, k->path) == 0;
            if (!tap_ok(t, ok, "%s: read fails as %s at %s", k->name, k->rule, k->path))
                tap_diag("status %s rule %s path '%s': %s", pprof_status_name(st),
                         pprof_check_read_error_rule(&err, &r) ? pprof_rule_get(r)->id : "-",
                         err.path, err.message);
            pprof_profile_free(p);
            continue;
        }
        if (!tap_ok(t, st == PPROF_OK, "%s: decodes and checks", k->name)) {
            tap_diag("%s: %s", err.path, err.message);
            pprof_profile_free(p);
            continue;
        }
        if (!k->rule) {
            /* Unused strings are allowed: a case leaves out parts of the standard profile. */
            bool clean = true;
            for (size_t j = 0; j < c.n; j++)
                clean = clean && strcmp(c.f[j].rule, "S7-unused-string") == 0;
            if (!tap_ok(t, clean, "%s: no finding", k->name))
                dump(&c);
        } else {
            const got *g = find(&c, k->rule, k->path);
            bool others = false;
            for (size_t j = 0; j < c.n; j++)
                if (strcmp(c.f[j].rule, k->rule) != 0 && c.f[j].sev >= PPROF_SEVERITY_WARNING)
                    others = true;
            if (!tap_ok(t, g && !others, "%s: exactly %s at %s", k->name, k->rule, k->path))
                dump(&c);
            else
                tap_ok(t,
                       g->sev == pprof_rule_get(want)->severity && g->msg[0] &&
                           strstr(g->msg, "expected"),
                       "%s: severity %s, message says what was expected", k->name,
                       pprof_severity_name(g->sev));
        }
        if (want == PPROF_RULE_W8_CONCATENATED) {
            /* the wire scan stays at the top level when S18 and S19 are off (the Go-rules
             * gate of the rewriting tools): W8 is still found there */
            bool only[PPROF_RULE_COUNT] = {false};
            only[want] = true;
            pprof_check_options co = PPROF_CHECK_OPTIONS_INIT;
            co.regex_check = pprof_regex_check;
            co.enabled = only;
            co.n_enabled = PPROF_RULE_COUNT;
            coll c1 = {.n = 0};
            st = pprof_check(p, &co, collect, &c1, &sum, &err);
            tap_ok(t, st == PPROF_OK && c1.n == 1 && find(&c1, k->rule, k->path),
                   "%s: found with only %s enabled", k->name, k->rule);
        }
        test_repair(t, k, p);
        pprof_profile_free(p);
    }
    /* Rules with tests elsewhere in this file. */
    covered[PPROF_RULE_S1_CROSS_INLINE_COUNT] = covered[PPROF_RULE_S1_CROSS_INLINE_FRAMES] = true;
    covered[PPROF_RULE_R2_LIMIT] = true;
    /* the OTLP rules, checked on OTLP input: tests/otlp/test_otlp_check.c */
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        if (pprof_rule_get((pprof_rule)r)->id[0] == 'O')
            covered[r] = true;
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        tap_ok(t, covered[r], "rule %s has a violating test profile", pprof_rule_get(r)->id);
}

static void
test_s1_message(tap *t)
{
    pb b = {.n = 0};
    pprof_profile *p = NULL;
    pprof_error err;
    coll c;
    for (size_t i = 0; i < N_CASES; i++)
        if (strcmp(CASES[i].name, "inline-count") == 0)
            CASES[i].build(&b);
    check_bytes(&b, &p, &c, NULL, &err);
    const got *g = find(&c, "S1-inline-count", NULL);
    tap_ok(t,
           g && strstr(g->msg, "location[0](id=1) with 1 line") &&
               strstr(g->msg, "location[1](id=2) with 2 lines") && strstr(g->msg, "0x1100"),
           "S1 message names every location involved and the address");
    pprof_profile_free(p);
}

static pprof_profile *
read_pb(const pb *b)
{
    pprof_profile *p = NULL;
    read_relaxed(b, &p, NULL);
    return p;
}

/* Profile with libx.so (build id b1d0) loaded at base, one location at base+0x100. */
static void
cross_profile(pb *b, uint64_t base, size_t n_lines, uint64_t line)
{
    std_profile(b, NO_MAP | NO_LOC);
    mapping(b, 1, base, base + 0x1000, S_AOUT, S_BID, false);
    const uint64_t l[] = {1, line, 1, 99};
    loc(b, 1, 1, base + 0x100, n_lines, l);
}

static void
test_cross(tap *t)
{
    pb a = {.n = 0}, b = {.n = 0}, c2 = {.n = 0}, d = {.n = 0};
    cross_profile(&a, 0x10000, 2, 10);
    cross_profile(&b, 0x50000, 1, 10);  /* other load address, fewer lines */
    cross_profile(&c2, 0x70000, 2, 10); /* agrees with a */
    cross_profile(&d, 0x90000, 2, 11);  /* same count, other line */
    pprof_profile *pa = read_pb(&a), *pb_ = read_pb(&b), *pc = read_pb(&c2), *pd = read_pb(&d);
    pprof_inline_index *x = NULL;
    pprof_inline_index_new(NULL, &x, NULL);
    coll c = {.n = 0};
    pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
    bool ok = pa && pb_ && pc && pd && x;
    ok = ok && pprof_inline_index_add(x, pa, "a.pb", NULL, collect, &c, &s, NULL) == PPROF_OK;
    tap_ok(t, ok && c.n == 0, "cross-file: first profile alone has no finding");
    ok = ok && pprof_inline_index_add(x, pc, "c.pb", NULL, collect, &c, &s, NULL) == PPROF_OK;
    tap_ok(t, ok && c.n == 0, "cross-file: same expansion at another load address is fine");
    ok = ok && pprof_inline_index_add(x, pb_, "b.pb", NULL, collect, &c, &s, NULL) == PPROF_OK;
    const got *g = find(&c, "S1-cross-inline-count", "location[0](id=1)");
    if (!tap_ok(t,
                ok && g && strcmp(g->file, "b.pb") == 0 && strstr(g->msg, "a.pb") &&
                    strstr(g->msg, "b1d0+0x100") && s.count[PPROF_SEVERITY_ERROR] == 1,
                "cross-file: S1-cross-inline-count names both files and the binary offset"))
        dump(&c);
    c.n = 0;
    ok = ok && pprof_inline_index_add(x, pd, "d.pb", NULL, collect, &c, &s, NULL) == PPROF_OK;
    g = find(&c, "S1-cross-inline-frames", NULL);
    if (!tap_ok(t,
                ok && g && c.n == 1 && strcmp(g->file, "d.pb") == 0 &&
                    s.count[PPROF_SEVERITY_WARNING] == 1,
                "cross-file: different lines with the same count are S1-cross-inline-frames"))
        dump(&c);
    pprof_inline_index_free(x);
    pprof_profile_free(pa);
    pprof_profile_free(pb_);
    pprof_profile_free(pc);
    pprof_profile_free(pd);
}

static void
test_limits(tap *t)
{
    /* 40 unused functions: 40 notes. */
    pb b = {.n = 0};
    std_profile(&b, 0);
    for (uint64_t i = 2; i < 42; i++)
        func(&b, i, S_FOO, S_MAIN_GO);
    pprof_profile *p = read_pb(&b);
    coll c = {.n = 0};
    pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_options o = PPROF_CHECK_OPTIONS_INIT;
    o.regex_check = pprof_regex_check;
    o.max_findings = 3;
    pprof_status st = pprof_check(p, &o, collect, &c, &s, NULL);
    /* 40 unused and 39 duplicate functions */
    tap_ok(t,
           st == PPROF_OK && c.n == 3 && s.reported == 3 && s.truncated &&
               s.count[PPROF_SEVERITY_NOTE] == 79,
           "max_findings: 3 delivered, all 79 counted, truncated (%llu)",
           (unsigned long long)s.count[PPROF_SEVERITY_NOTE]);
    bool en[PPROF_RULE_COUNT];
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        en[r] = r != PPROF_RULE_S7_UNUSED_FUNCTION && r != PPROF_RULE_S7_DUPLICATE_FUNCTION;
    o.max_findings = 100;
    o.enabled = en;
    o.n_enabled = PPROF_RULE_COUNT;
    c.n = 0;
    st = pprof_check(p, &o, collect, &c, &s, NULL);
    tap_ok(t, st == PPROF_OK && c.n == 0 && s.count[PPROF_SEVERITY_NOTE] == 0,
           "disabled rules are neither reported nor counted");
    pprof_profile_free(p);

    pprof_read_options ro;
    pprof_read_options_init(&ro);
    ro.max_samples = 0;
    pb y = {.n = 0};
    std_profile(&y, 0);
    pprof_error err;
    pprof_rule r;
    p = NULL;
    st = pprof_profile_read_memory(y.d, y.n, &ro, &p, &err);
    tap_ok(t,
           st == PPROF_E_LIMIT && pprof_check_read_error_rule(&err, &r) && r == PPROF_RULE_R2_LIMIT,
           "a reader limit maps to R2-limit");
    coll rc = {.n = 0};
    pprof_check_summary rs = PPROF_CHECK_SUMMARY_INIT;
    bool taken = pprof_check_read_error(&err, NULL, collect, &rc, &rs);
    tap_ok(t,
           taken && rc.n == 1 && strcmp(rc.f[0].rule, "R2-limit") == 0 &&
               strcmp(rc.f[0].msg, err.message) == 0 && rs.count[PPROF_SEVERITY_ERROR] == 1,
           "pprof_check_read_error: the limit as one R2-limit finding with the reader's message "
           "(%zu findings)",
           rc.n);
    err.code = PPROF_E_IO;
    tap_ok(t, !pprof_check_read_error_rule(&err, &r), "an I/O error maps to no rule");
    rc.n = 0;
    tap_ok(t, !pprof_check_read_error(&err, NULL, collect, &rc, NULL) && rc.n == 0,
           "pprof_check_read_error: an I/O error is no finding");
}

/* S18 and S19 inside labels and lines, below the shortcuts for clean messages. */
static void
test_nested_wire(tap *t)
{
    pb b = {.n = 0};
    std_profile(&b, NO_SAMPLE | NO_LOC);
    pb l1 = {.n = 0}, l2 = {.n = 0}, smp = {.n = 0}, ln = {.n = 0}, lc = {.n = 0};
    fv(&l1, 1, S_FOO);
    fv(&l1, 2, S_MAIN);
    fv(&l1, 9, 1); /* unknown field in a label */
    fv(&l2, 1, S_CPU);
    fv(&l2, 1, S_CPU); /* key twice */
    fv(&l2, 2, S_MAIN);
    fv(&smp, 1, 1);
    fv(&smp, 2, 1);
    fm(&smp, 3, &l1);
    fm(&smp, 3, &l2);
    fm(&b, 2, &smp);
    fv(&ln, 1, 1);
    fv(&ln, 2, 10);
    fv(&ln, 2, 10); /* line twice */
    fv(&lc, 1, 1);
    fv(&lc, 2, 1);
    fv(&lc, 3, 0x1100);
    fm(&lc, 4, &ln);
    fm(&b, 4, &lc);
    pprof_profile *p = read_pb(&b);
    coll c = {.n = 0};
    pprof_status st = p ? pprof_check(p, &full_opts, collect, &c, NULL, NULL) : PPROF_E_ARG;
    bool ok = st == PPROF_OK && find(&c, "S18-unknown-field", "sample[0].label[0].field 9") &&
              find(&c, "S19-repeated-field", "sample[0].label[1].key") &&
              find(&c, "S19-repeated-field", "location[0].line[0].line");
    if (!tap_ok(t, ok, "S18/S19 found inside labels and lines, with their paths"))
        dump(&c);
    pprof_profile_free(p);
}

/* Every one of the 15 string-index fields is checked, each finding naming its own field. */
static void
test_all_string_fields(tap *t)
{
    const int64_t B = 999;
    pb b = {.n = 0};
    strs(&b, STD_STRINGS, N_STD);
    vt(&b, 1, B, B);
    vt(&b, 11, B, B);
    fv(&b, 12, 10);
    mapping(&b, 1, 0x1000, 0x2000, B, B, false);
    func3(&b, 1, B, B, B);
    const uint64_t l[] = {1, 10};
    loc(&b, 1, 1, 0x1100, 1, l);
    const uint64_t s[] = {1};
    const int64_t v[] = {1};
    const lab lb[] = {{B, B, 0, B}};
    sample(&b, 1, s, 1, v, 1, lb);
    fv(&b, 7, (uint64_t)B);
    fv(&b, 8, (uint64_t)B);
    fv(&b, 13, (uint64_t)B);
    fv(&b, 14, (uint64_t)B);
    fv(&b, 15, (uint64_t)B);
    static const char *const paths[] = {"sample_type[0].type",
                                        "sample_type[0].unit",
                                        "period_type.type",
                                        "period_type.unit",
                                        "mapping[0](id=1).filename",
                                        "mapping[0](id=1).build_id",
                                        "function[0](id=1).name",
                                        "function[0](id=1).system_name",
                                        "function[0](id=1).filename",
                                        "sample[0].label[0].key",
                                        "sample[0].label[0].str",
                                        "sample[0].label[0].num_unit",
                                        "drop_frames",
                                        "keep_frames",
                                        "comment[0]",
                                        "default_sample_type",
                                        "doc_url"};
    pprof_profile *p = read_pb(&b);
    coll c = {.n = 0};
    pprof_status st = p ? pprof_check(p, &full_opts, collect, &c, NULL, NULL) : PPROF_E_ARG;
    size_t found = 0, pd1 = 0;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        found += find(&c, "PD1-string-index", paths[i]) != NULL;
    for (size_t i = 0; i < c.n; i++)
        pd1 += strcmp(c.f[i].rule, "PD1-string-index") == 0;
    if (!tap_ok(t, st == PPROF_OK && found == 17 && pd1 == 17,
                "PD1 names each of the 15 string fields (17 paths with both ValueTypes)"))
        dump(&c);
    pprof_profile_free(p);
}

/* S14 asks the library's RE2 gate (regex.c, what pprof-edit compiles with) whether Go's regexp
 * accepts drop_frames and keep_frames. The first patterns are ones the checker once judged
 * wrongly with a hand-written scan: \\101 is an octal escape in Go, (?i-) and [\\b] are
 * errors. */
static void
test_frames_regex(tap *t)
{
    static const struct {
        const char *rx;
        bool bad;
    } k[] = {{"\\101", false},        {"(?i-)", true},   {"[\\b]", true},
             {"runtime\\..*", false}, {"a{2}{3}", true}, {"(?P<x>a)|[[:alpha:]]", false},
             {"a(?=b)", true}};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        for (int field = 7; field <= 8; field++) {
            pb b = {.n = 0};
            std_profile(&b, 0);
            fb(&b, 6, k[i].rx, strlen(k[i].rx));
            fv(&b, (uint32_t)field, N_STD);
            const char *path = field == 7 ? "drop_frames" : "keep_frames";
            pprof_profile *p = NULL;
            coll c;
            pprof_status st = check_bytes(&b, &p, &c, NULL, NULL);
            const got *g = st ? NULL : find(&c, "S14-frames-regex", path);
            if (!tap_ok(t, st == PPROF_OK && (g != NULL) == k[i].bad, "%s \"%s\": %s", path,
                        k[i].rx, k[i].bad ? "S14" : "no S14"))
                dump(&c);
            pprof_profile_free(p);
        }
    }
}

/* The same-key search gives the same answer for few labels (quadratic) and many (sorted). */
static void
test_many_labels(tap *t)
{
    const size_t counts[] = {30, 100};
    for (size_t c = 0; c < 2; c++) {
        size_t n = counts[c];
        pb b = {.n = 0};
        std_profile(&b, NO_SAMPLE);
        lab labs[100];
        for (size_t j = 0; j < n; j++) {
            char name[16];
            int len = snprintf(name, sizeof(name), "k%zu", j);
            fb(&b, 6, name, (size_t)len);
            labs[j] = (lab){(int64_t)(N_STD + j), S_MAIN, 0, 0};
        }
        labs[n - 5].key = labs[3].key;              /* string label, same key as label 3 */
        labs[n - 2] = (lab){labs[7].key, 0, 42, 0}; /* numeric label, key of label 7 */
        const uint64_t s[] = {1};
        const int64_t v[] = {1};
        sample(&b, 1, s, 1, v, n, labs);
        pprof_profile *p = read_pb(&b);
        coll got_ = {.n = 0};
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        pprof_status st = p ? pprof_check(p, &full_opts, collect, &got_, &sum, NULL) : PPROF_E_ARG;
        char p1[64], p2[64];
        snprintf(p1, sizeof(p1), "sample[0].label[%zu].key", n - 5);
        snprintf(p2, sizeof(p2), "sample[0].label[%zu].key", n - 2);
        const got *d = find(&got_, "S11-label-duplicate-key", p1);
        const got *m = find(&got_, "S11-label-str-num-key", p2);
        if (!tap_ok(t,
                    st == PPROF_OK && d && strstr(d->msg, "label[3]") && m &&
                        strstr(m->msg, "label[7]") && sum.count[PPROF_SEVERITY_WARNING] == 2,
                    "%zu labels on one sample: duplicate keys found with the first label", n))
            dump(&got_);
        pprof_profile_free(p);
    }
}

/* CV1 repair when the first sample carries no value: types come from the first that does. */
static void
test_repair_untyped(tap *t)
{
    pb b = {.n = 0};
    std_profile(&b, NO_ST | NO_SAMPLE);
    const uint64_t s[] = {1};
    const int64_t v[] = {4, 5};
    sample(&b, 1, s, 0, NULL, 0, NULL);
    sample(&b, 1, s, 2, v, 0, NULL);
    pprof_profile *p = read_pb(&b), *q = NULL;
    pprof_repair_stats rs = PPROF_REPAIR_STATS_INIT;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_status st = p ? pprof_repair(p, &q, &rs, NULL) : PPROF_E_ARG;
    if (st == PPROF_OK)
        st = pprof_check(q, &full_opts, NULL, NULL, &sum, NULL);
    tap_ok(t,
           st == PPROF_OK && sum.count[PPROF_SEVERITY_ERROR] == 0 &&
               pprof_profile_count(q, PPROF_TABLE_SAMPLE_TYPE) == 2 &&
               pprof_profile_count(q, PPROF_TABLE_SAMPLE) == 1 &&
               rs.count[PPROF_FIX_SAMPLE_TYPE] == 2 && rs.count[PPROF_FIX_VALUE_COUNT] == 1,
           "repair: sample types from the first sample with values, untyped samples dropped");
    pprof_profile_free(q);
    q = NULL;
    /* a caller built against a shorter struct gets only what it has room for */
    pprof_repair_stats old = {.struct_size = offsetof(pprof_repair_stats, count) +
                                             PPROF_FIX_SAMPLE_TYPE * sizeof(uint64_t)};
    for (int i = 0; i < PPROF_FIX_COUNT; i++)
        old.count[i] = 77;
    st = p ? pprof_repair(p, &q, &old, NULL) : PPROF_E_ARG;
    tap_ok(t,
           st == PPROF_OK && old.count[PPROF_FIX_SAMPLE_TYPE] == 77 &&
               old.struct_size ==
                   offsetof(pprof_repair_stats, count) + PPROF_FIX_SAMPLE_TYPE * sizeof(uint64_t),
           "repair: stats are filled up to their struct_size");
    pprof_profile_free(p);
    pprof_profile_free(q);
}

static void
test_registry(tap *t)
{
    bool ok = true;
    for (unsigned i = 0; i < PPROF_RULE_COUNT; i++) {
        const pprof_rule_info *a = pprof_rule_get(i);
        pprof_rule back;
        ok = ok && a && a->id && a->summary && a->rationale && a->example &&
             pprof_rule_find(a->id, &back) && back == i;
        for (unsigned j = 0; j < i; j++)
            ok = ok && strcmp(a->id, pprof_rule_get(j)->id) != 0;
    }
    tap_ok(t, ok && !pprof_rule_get(PPROF_RULE_COUNT) && !pprof_rule_find("nope", NULL),
           "registry: %d rules, unique ids, complete entries", PPROF_RULE_COUNT);
}

/* Every profile of corpus/real with its verdict: the rules it breaks at error level, or none.
 * generated/ holds the shapes of producers whose files cannot be copied (corpus/tools/shapes.py).
 */
static const struct {
    const char *file;
    const char *errors; /* comma-separated rule ids, "" = passes */
} REAL[] = {
    {"parca/normalizer-node-profile.pb.gz", ""},
    {"parca/normalizer-profile.pb.gz", ""},
    {"parca/parca-alloc_objects.pb.gz", ""},
    {"parca/parca-labels.pb.gz", ""},
    {"parca/query-alloc_space_delta.pb.gz", ""},
    {"parca/query-fgprof.pb.gz", ""},
    {"parca/query-fib.pb.gz", ""},
    {"parca/query-many-1644509272337470000.pb.gz", ""},
    {"parca/query-many-1644509275338070000.pb.gz", ""},
    {"parca/query-many-1644509278338696000.pb.gz", ""},
    {"parca/query-many-1644509281339135000.pb.gz", ""},
    {"parca/query-many-1644509284338649000.pb.gz", ""},
    {"parca/query-many-1644509287338709000.pb.gz", ""},
    {"parca/query-many-1644509290338056000.pb.gz", ""},
    {"parca/query-many-1644509293338714000.pb.gz", ""},
    {"parca/query-many-1644509296350592000.pb.gz", ""},
    {"parca/query-many-1644509299337903000.pb.gz", ""},
    {"parca/query-no-python.pb.gz", ""},
    {"parca/query-profile-with-labels.pb.gz", ""},
    {"parca/query-profile1.pb.gz", ""},
    {"parca/query-single-stack.pb.gz", ""},
    {"parca/query-two-stacks.pb.gz", ""},
    {"parca/symbolizer-profile.pb.gz", ""},
    {"generated/dotnet-function-id-zero.pb.gz", "CV4-id-zero,CV6-line-function"},
    {"generated/dotnet-labels.pb.gz", ""},
    {"generated/invalid-utf8.pb.gz", "S23-utf8"},
    {"generated/java-alloc.pb.gz", ""},
    {"generated/java-cpu.pb.gz", ""},
    {"generated/no-address-no-line.pb.gz", "S6-empty-location"},
    {"generated/nodejs-heap.pb.gz", ""},
    {"generated/python.pb.gz", ""},
    {"generated/ruby.pb.gz", ""},
    {"generated/rust.pb.gz", ""},
};

typedef struct errset {
    char ids[512];
} errset;

static bool
collect_errors(void *ctx, const pprof_finding *f)
{
    errset *e = ctx;
    if (f->severity == PPROF_SEVERITY_ERROR && !strstr(e->ids, f->rule_id)) {
        size_t n = strlen(e->ids);
        snprintf(e->ids + n, sizeof(e->ids) - n, "%s%s", n ? "," : "", f->rule_id);
    }
    return true;
}

static void
test_real(tap *t)
{
    const char *dir = tap_real_corpus();
    char path[1024];
    snprintf(path, sizeof(path), "%s/parca/query-fib.pb.gz", dir);
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        tap_diag("real corpus not found at %s: skipped", dir);
        return;
    }
    fclose(probe);
    pprof_check_options o = PPROF_CHECK_OPTIONS_INIT;
    o.regex_check = pprof_regex_check;
    o.max_findings = UINT64_MAX;
    for (size_t i = 0; i < sizeof(REAL) / sizeof(REAL[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, REAL[i].file);
        pprof_profile *p = NULL, *q = NULL, *back = NULL;
        pprof_error err;
        errset e;
        memset(&e, 0, sizeof(e));
        pprof_status st = pprof_profile_read_file(path, NULL, &p, &err);
        if (st == PPROF_OK)
            st = pprof_check(p, &o, collect_errors, &e, NULL, &err);
        if (!tap_ok(t, st == PPROF_OK && strcmp(e.ids, REAL[i].errors) == 0, "real %s: %s",
                    REAL[i].file, *REAL[i].errors ? REAL[i].errors : "valid"))
            tap_diag("got '%s' (%s)", e.ids, err.message);
        /* Repair: passes, keeps all samples of files whose samples are all readable. */
        pprof_buffer buf = {0};
        pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
        if (st == PPROF_OK)
            st = pprof_repair(p, &q, NULL, &err);
        if (st == PPROF_OK)
            st = pprof_profile_write_memory(q, NULL, &buf, &err);
        if (st == PPROF_OK)
            st = pprof_profile_read_memory(buf.data, buf.len, NULL, &back, &err);
        if (st == PPROF_OK)
            st = pprof_check(back, &full_opts, NULL, NULL, &s, &err);
        tap_ok(t,
               st == PPROF_OK && s.count[PPROF_SEVERITY_ERROR] == 0 &&
                   pprof_profile_count(back, PPROF_TABLE_SAMPLE) ==
                       pprof_profile_count(p, PPROF_TABLE_SAMPLE) &&
                   value_sum(back) == value_sum(p),
               "real %s: repaired output passes and keeps every sample", REAL[i].file);
        if (!*REAL[i].errors && st == PPROF_OK)
            tap_ok(t, pprof_profile_equal(back, p),
                   "real %s: repair of a valid file changes nothing", REAL[i].file);
        pprof_buffer_free(&buf);
        pprof_profile_free(p);
        pprof_profile_free(q);
        pprof_profile_free(back);
    }
}

/* A file added to the real corpus must get a recorded verdict here. */
static void
test_real_listed(tap *t)
{
    const char *sub[] = {"parca", "generated"};
    size_t unlisted = 0, seen = 0;
    for (size_t d = 0; d < 2; d++) {
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s/%s", tap_real_corpus(), sub[d]);
        DIR *dp = opendir(dir);
        if (!dp)
            return;
        for (struct dirent *e; (e = readdir(dp));) {
            if (e->d_name[0] == '.' || strcmp(e->d_name, "SOURCES.txt") == 0)
                continue;
            char rel[512];
            snprintf(rel, sizeof(rel), "%s/%s", sub[d], e->d_name);
            bool found = false;
            for (size_t i = 0; i < sizeof(REAL) / sizeof(REAL[0]) && !found; i++)
                found = strcmp(REAL[i].file, rel) == 0;
            seen++;
            if (!found && unlisted++ == 0)
                tap_diag("no verdict recorded for %s", rel);
        }
        closedir(dp);
    }
    tap_ok(t, unlisted == 0 && seen == sizeof(REAL) / sizeof(REAL[0]),
           "every real corpus file has a recorded verdict (%zu files)", seen);
}

static bool
read_whole(const char *path, pb *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    out->n = fread(out->d, 1, sizeof(out->d), f);
    bool ok = !ferror(f) && fgetc(f) == EOF;
    fclose(f);
    return ok;
}

static void
test_corpus_files(tap *t)
{
    const char *root = getenv("PPROF_SOURCE_ROOT");
    if (!root) {
        tap_diag("PPROF_SOURCE_ROOT unset: corpus/check not compared");
        return;
    }
    for (size_t i = 0; i < N_CASES; i++) {
        char name[128], path[1024];
        case_file_name(&CASES[i], name, sizeof(name));
        snprintf(path, sizeof(path), "%s/corpus/check/%s", root, name);
        pb want = {.n = 0}, have = {.n = 0};
        CASES[i].build(&want);
        tap_ok(t,
               read_whole(path, &have) && have.n == want.n && memcmp(have.d, want.d, want.n) == 0,
               "corpus/check/%s is up to date (run test_check --write-corpus corpus/check)", name);
    }
}

/* Every one-byte corruption of every case: the checker never fails on a decodable profile, and
 * the repaired profile always passes. This is what the repair promises for arbitrary input. */
static void
test_mutations(tap *t)
{
    static const uint8_t flips[] = {0x01, 0x02, 0x7f, 0x80, 0xff};
    pprof_inline_index *x = NULL;
    pprof_inline_index_new(NULL, &x, NULL);
    for (size_t i = 0; i < N_CASES; i++) {
        pb base = {.n = 0};
        CASES[i].build(&base);
        size_t tried = 0, decoded = 0, bad = 0;
        char why[600] = "";
        for (size_t at = 0; at < base.n; at++) {
            for (size_t f = 0; f < sizeof(flips); f++) {
                pb m = base;
                m.d[at] ^= flips[f];
                tried++;
                pprof_profile *p = NULL, *q = NULL, *back = NULL;
                pprof_error err;
                if (pprof_profile_read_memory(m.d, m.n, NULL, &p, &err) != PPROF_OK)
                    continue;
                decoded++;
                pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
                pprof_buffer buf = {0};
                pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
                wo.format = PPROF_FORMAT_RAW;
                pprof_status st = pprof_check(p, &full_opts, NULL, NULL, &s, &err);
                if (st == PPROF_OK)
                    st = pprof_inline_index_add(x, p, "m", NULL, NULL, NULL, NULL, &err);
                if (st == PPROF_OK)
                    st = pprof_repair(p, &q, NULL, &err);
                if (st == PPROF_OK)
                    st = pprof_profile_write_memory(q, &wo, &buf, &err);
                if (st == PPROF_OK)
                    st = pprof_profile_read_memory(buf.data, buf.len, NULL, &back, &err);
                if (st == PPROF_OK)
                    st = pprof_check(back, &full_opts, NULL, NULL, &s, &err);
                if (st != PPROF_OK || s.count[PPROF_SEVERITY_ERROR]) {
                    if (!bad++)
                        snprintf(why, sizeof(why), "byte %zu ^ 0x%02x: %s %s %s (%llu errors)", at,
                                 flips[f], pprof_status_name(st), err.path, err.message,
                                 (unsigned long long)s.count[PPROF_SEVERITY_ERROR]);
                }
                pprof_buffer_free(&buf);
                pprof_profile_free(p);
                pprof_profile_free(q);
                pprof_profile_free(back);
            }
        }
        if (!tap_ok(t, bad == 0, "mutations of %s: %zu tried, %zu decode, all repair to valid",
                    CASES[i].name, tried, decoded))
            tap_diag("%zu failed; first: %s", bad, why);
    }
    pprof_inline_index_free(x);
}

static bool
write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(d, 1, n, f) == n;
    return (f && fclose(f) == 0) && ok;
}

/* pprof_check_path: what pprof-check runs per file, against the same checks made by hand. */
static void
test_check_path(tap *t)
{
    char dir[] = "/tmp/pprof-check-path.XXXXXX", path[128];
    pprof_check_options po;
    if (!mkdtemp(dir)) {
        tap_ok(t, 0, "check_path: a temporary directory");
        return;
    }
    coll c;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_error err;
    bool decoded = true;
    memset(&c, 0, sizeof(c));
    snprintf(path, sizeof(path), "%s/missing.pb", dir);
    pprof_status st =
        pprof_check_path(path, path_opts(&po), NULL, collect, &c, &sum, &decoded, &err);
    tap_ok(t, st == PPROF_E_IO && !decoded && c.n == 0 && strstr(err.message, "cannot open"),
           "check_path: a missing file is an I/O error, not a finding (%s)", err.message);
    st = pprof_check_path(dir, path_opts(&po), NULL, collect, &c, &sum, &decoded, &err);
    tap_ok(t, st == PPROF_E_IO && !decoded && c.n == 0, "check_path: a directory is an I/O error");

    static const uint8_t junk[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff};
    snprintf(path, sizeof(path), "%s/junk.pb", dir);
    write_file(path, junk, sizeof(junk));
    st = pprof_check_path(path, path_opts(&po), NULL, collect, &c, &sum, &decoded, &err);
    tap_ok(t,
           st == PPROF_OK && !decoded && c.n == 1 && strncmp(c.f[0].rule, "W", 1) == 0 &&
               sum.count[PPROF_SEVERITY_ERROR] == 1,
           "check_path: bytes that do not decode are one W finding (%s)", c.n ? c.f[0].rule : "-");
    bool none[PPROF_RULE_COUNT] = {false};
    pprof_check_options off = PPROF_CHECK_OPTIONS_INIT;
    off.enabled = none;
    off.n_enabled = PPROF_RULE_COUNT;
    memset(&c, 0, sizeof(c));
    st = pprof_check_path(path, &off, NULL, collect, &c, &sum, &decoded, &err);
    tap_ok(t, st == PPROF_OK && !decoded && c.n == 0 && sum.count[PPROF_SEVERITY_ERROR] == 0,
           "check_path: with every rule off, nothing is reported");

    /* every case: the same findings as reading relaxed and checking by hand */
    size_t same = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        pb b = {.n = 0};
        CASES[i].build(&b);
        snprintf(path, sizeof(path), "%s/case.pb", dir);
        write_file(path, b.d, b.n);
        coll want, got_;
        pprof_profile *p = NULL;
        pprof_check_summary ws = PPROF_CHECK_SUMMARY_INIT, gs = PPROF_CHECK_SUMMARY_INIT;
        memset(&want, 0, sizeof(want));
        memset(&got_, 0, sizeof(got_));
        pprof_status wst = check_bytes(&b, &p, &want, &ws, &err);
        pprof_profile_free(p);
        st = pprof_check_path(path, path_opts(&po), NULL, collect, &got_, &gs, &decoded, &err);
        bool ok = st == PPROF_OK && (wst == PPROF_OK) == decoded;
        if (wst == PPROF_OK) {
            ok = ok && got_.n == want.n && gs.count[0] == ws.count[0] &&
                 gs.count[1] == ws.count[1] && gs.count[2] == ws.count[2];
            for (size_t k = 0; ok && k < want.n; k++)
                ok = strcmp(got_.f[k].rule, want.f[k].rule) == 0 &&
                     strcmp(got_.f[k].path, want.f[k].path) == 0;
        }
        if (ok)
            same++;
        else
            tap_diag("check_path differs on case %s", CASES[i].name);
    }
    tap_ok(t, same == N_CASES, "check_path: %zu of %zu cases as checked by hand", same,
           (size_t)N_CASES);

    /* cross-file: one case twice through one index, no S1 finding from the second */
    pb b = {.n = 0};
    CASES[0].build(&b);
    snprintf(path, sizeof(path), "%s/case.pb", dir);
    write_file(path, b.d, b.n);
    pprof_inline_index *idx = NULL;
    pprof_inline_index_new(NULL, &idx, NULL);
    memset(&c, 0, sizeof(c));
    st = pprof_check_path(path, path_opts(&po), idx, collect, &c, NULL, NULL, &err);
    size_t first = c.n;
    st |= pprof_check_path(path, path_opts(&po), idx, collect, &c, NULL, NULL, &err);
    tap_ok(t, st == PPROF_OK && c.n == 2 * first && !find(&c, "S1-cross-inline-count", NULL),
           "check_path: the same profile twice through one index adds no cross-file finding");
    pprof_inline_index_free(idx);

    /* OTLP by name: bytes that do not decode are O10-decode */
    snprintf(path, sizeof(path), "%s/bad.otlp", dir);
    write_file(path, junk, sizeof(junk));
    memset(&c, 0, sizeof(c));
    st = pprof_check_path(path, path_opts(&po), NULL, collect, &c, &sum, &decoded, &err);
    tap_ok(t, st == PPROF_OK && !decoded && c.n == 1 && strcmp(c.f[0].rule, "O10-decode") == 0,
           "check_path: an undecodable .otlp file is O10-decode (%s)", c.n ? c.f[0].rule : "-");
    const char *root = getenv("PPROF_SOURCE_ROOT");
    if (root) {
        char otlp[1024];
        snprintf(otlp, sizeof(otlp), "%s/tests/otlp/in/join.otlp", root);
        memset(&c, 0, sizeof(c));
        st = pprof_check_path(otlp, path_opts(&po), NULL, collect, &c, &sum, &decoded, &err);
        tap_ok(t, st == PPROF_OK && decoded, "check_path: an OTLP file decodes and is checked");
    }
    remove(path);
    snprintf(path, sizeof(path), "%s/case.pb", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/junk.pb", dir);
    remove(path);
    rmdir(dir);
}

static int
write_corpus(const char *dir)
{
    for (size_t i = 0; i < N_CASES; i++) {
        char name[128], path[1024];
        case_file_name(&CASES[i], name, sizeof(name));
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        pb b = {.n = 0};
        CASES[i].build(&b);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b.d, 1, b.n, f) != b.n || fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    tap t = {0, 0};
    test_registry(&t);
    test_cases(&t);
    test_s1_message(&t);
    test_cross(&t);
    test_limits(&t);
    test_repair_untyped(&t);
    test_many_labels(&t);
    test_all_string_fields(&t);
    test_nested_wire(&t);
    test_frames_regex(&t);
    test_real(&t);
    test_real_listed(&t);
    test_mutations(&t);
    test_corpus_files(&t);
    test_check_path(&t);
    return tap_done(&t);
}
