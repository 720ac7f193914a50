/* Every OTLP rule (O* in rules.def) has an input that triggers it at the expected path
 * (tests/otlp/check/RULE.otlp, encoded from RULE.txtpb by gen.sh), a clean input gives no
 * finding, and the writer's output for the example profiles breaks no rule. */
#include "../unit/testutil.h"
#include "pprof/check.h"
#include "pprof/otlp.h"

typedef struct got {
    char rule[32], path[160], msg[256];
    pprof_severity sev;
} got;

typedef struct coll {
    got f[64];
    size_t n;
} coll;

static bool
collect(void *ctx, const pprof_finding *f)
{
    coll *c = ctx;
    if (c->n < 64) {
        snprintf(c->f[c->n].rule, sizeof(c->f[0].rule), "%s", f->rule_id);
        snprintf(c->f[c->n].path, sizeof(c->f[0].path), "%s", f->path);
        snprintf(c->f[c->n].msg, sizeof(c->f[0].msg), "%s", f->message);
        c->f[c->n].sev = f->severity;
        c->n++;
    }
    return true;
}

static const struct {
    const char *rule, *path;
    const char *file; /* NULL: RULE.otlp */
    const char *msg;  /* NULL, or what the message must hold */
} CASES[] = {
    {"O1-zero-value", "dictionary.string_table[0]", NULL, NULL},
    {"O2-index-range", "dictionary.location_table[1].mapping_index", NULL, NULL},
    {"O3-duplicate-entry", "dictionary.string_table[4]", NULL, NULL},
    {"O4-orphan-entry", "dictionary.function_table[2]", NULL, NULL},
    {"O5-values-count", "resource_profiles[0].scope_profiles[0].profiles[0].samples[0].values",
     NULL, NULL},
    {"O6-timestamp-window",
     "resource_profiles[0].scope_profiles[0].profiles[0].samples[0].timestamps_unix_nano[0]", NULL,
     "expected within [1000, 1100)"},
    /* time_unix_nano + duration_nano past 2^64: the window has no end, the message no wrapped one
     */
    {"O6-timestamp-window",
     "resource_profiles[0].scope_profiles[0].profiles[0].samples[0].timestamps_unix_nano[0]",
     "O6-timestamp-window-wrap",
     "10 is before the profile's start; expected at or after "
     "18446744073709551610"},
    {"O7-stack-entry", "dictionary.stack_table[2].location_indices[1]", NULL, NULL},
    {"O8-attribute-key",
     "resource_profiles[0].scope_profiles[0].profiles[0].samples[0].attribute_indices[1]", NULL,
     NULL},
    /* a list long enough to go through the key table */
    {"O8-attribute-key",
     "resource_profiles[0].scope_profiles[0].profiles[0].samples[0].attribute_indices[40]",
     "O8-attribute-key-long", NULL},
    {"O9-function-name", "dictionary.function_table[2]", NULL, NULL},
    {"O10-decode", "dictionary", NULL, NULL},
    {"O11-original-payload", "resource_profiles[0].scope_profiles[0].profiles[0].original_payload",
     NULL, NULL},
    {"O12-unit", "dictionary.attribute_table[1].unit_strindex", NULL, NULL},
    {"O13-link-id", "dictionary.link_table[1].trace_id", NULL, "4 bytes; expected 16"},
    {"O13-link-id", "dictionary.link_table[2].span_id", NULL, "3 bytes; expected 8"},
    {"O14-utf8", "dictionary.string_table[3]", NULL, "byte 2 (0xff)"},
    {"O14-utf8", "dictionary.attribute_table[1].value.string_value", NULL, "byte 1 (0xc3)"},
};

/* Reads and checks a file; a read failure becomes O10 as pprof-check reports it. */
static bool
check_file(const char *path, coll *c)
{
    pprof_otlp *o = NULL;
    pprof_error err;
    c->n = 0;
    if (pprof_otlp_read_file(path, NULL, &o, &err) != PPROF_OK)
        return pprof_otlp_check_read_error(&err, NULL, collect, c, NULL);
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    bool ok = pprof_otlp_check(o, NULL, collect, c, &sum, &err) == PPROF_OK && sum.reported == c->n;
    pprof_otlp_free(o);
    return ok;
}

static void
dump(const coll *c)
{
    for (size_t i = 0; i < c->n; i++)
        tap_diag("  %s %s at %s: %s", pprof_severity_name(c->f[i].sev), c->f[i].rule, c->f[i].path,
                 c->f[i].msg);
}

int
main(void)
{
    tap t = {0};
    const char *src = getenv("PPROF_SOURCE_ROOT");
    char path[4096];
    bool covered[PPROF_RULE_COUNT] = {false};
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        snprintf(path, sizeof(path), "%s/tests/otlp/check/%s.otlp", src ? src : ".",
                 CASES[i].file ? CASES[i].file : CASES[i].rule);
        coll c;
        bool ran = check_file(path, &c);
        bool found = false;
        for (size_t j = 0; j < c.n; j++)
            found = found || (strcmp(c.f[j].rule, CASES[i].rule) == 0 &&
                              strcmp(c.f[j].path, CASES[i].path) == 0 &&
                              (!CASES[i].msg || strstr(c.f[j].msg, CASES[i].msg)));
        pprof_rule r;
        if (pprof_rule_find(CASES[i].rule, &r) && found)
            covered[r] = true;
        if (!tap_ok(&t, ran && found, "%s: found at %s", CASES[i].rule, CASES[i].path))
            dump(&c);
    }
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        if (pprof_rule_get((pprof_rule)r)->id[0] == 'O')
            tap_ok(&t, covered[r], "rule %s has a violating test input",
                   pprof_rule_get((pprof_rule)r)->id);
    snprintf(path, sizeof(path), "%s/tests/otlp/check/clean.otlp", src ? src : ".");
    coll c;
    if (!tap_ok(&t, check_file(path, &c) && c.n == 0, "clean.otlp: no finding"))
        dump(&c);

    /* the writer's output breaks no rule */
    snprintf(path, sizeof(path), "%s/corpus/examples", src ? src : ".");
    tu_files fl = {0};
    tu_walk(&fl, path);
    size_t n_checked = 0;
    for (size_t i = 0; i < fl.n; i++) {
        pprof_profile *p = NULL;
        if (pprof_profile_read_file(fl.path[i], NULL, &p, NULL) != PPROF_OK)
            continue;
        if (pprof_validate(p, NULL, NULL, 0, NULL, NULL) != PPROF_OK) {
            pprof_profile_free(p);
            continue;
        }
        pprof_buffer b = {0};
        const pprof_profile *const in[] = {p};
        pprof_otlp *o = NULL;
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        c.n = 0;
        bool ok = pprof_otlp_write_memory(in, 1, NULL, &b, NULL) == PPROF_OK &&
                  pprof_otlp_read_memory(b.data, b.len, NULL, &o, NULL) == PPROF_OK &&
                  pprof_otlp_check(o, NULL, collect, &c, &sum, NULL) == PPROF_OK;
        if (!tap_ok(&t,
                    ok && sum.count[PPROF_SEVERITY_ERROR] == 0 &&
                        sum.count[PPROF_SEVERITY_WARNING] == 0,
                    "%s: the OTLP written for it breaks no rule", fl.path[i] + strlen(path) + 1))
            dump(&c);
        n_checked++;
        pprof_otlp_free(o);
        pprof_buffer_free(&b);
        pprof_profile_free(p);
    }
    tap_ok(&t, n_checked >= 3, "%zu example profiles written and checked", n_checked);
    tu_files_free(&fl);
    return tap_done(&t);
}
