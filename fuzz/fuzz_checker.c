/* The checker and the repairer. A failed read maps to a rule; an accepted profile is checked
 * twice (same findings, every finding well formed, the summary consistent with the callback),
 * with a findings cap chosen from the input; then repaired (see check_repaired). The read, the
 * check, the repair and the inline index again with one allocation failing, at up to 6 points:
 * PPROF_E_NOMEM with a message, or success when it was only a hint. */
#include <string.h>

#include "check.h"
#include "edit.h"
#include "fuzz.h"

typedef struct seen {
    uint64_t n;
    uint64_t by_sev[3];
    uint64_t digest;
    uint64_t stop_after; /* the callback returns false after this many; UINT64_MAX = never */
} seen;

static void
mix_str(seen *s, const char *str)
{
    for (; *str; str++)
        s->digest = (s->digest ^ (uint8_t)*str) * UINT64_C(0x100000001b3);
    s->digest *= 31;
}

static bool
on_finding(void *ctx, const pprof_finding *f)
{
    seen *s = ctx;
    FUZZ_CHECK((unsigned)f->rule < PPROF_RULE_COUNT, "rule %d out of range", (int)f->rule);
    const pprof_rule_info *info = pprof_rule_get(f->rule);
    FUZZ_CHECK(info != NULL, "no info for rule %d", (int)f->rule);
    FUZZ_CHECK(f->rule_id && strcmp(f->rule_id, info->id) == 0, "rule id mismatch");
    pprof_rule back;
    FUZZ_CHECK(pprof_rule_find(f->rule_id, &back) && back == f->rule,
               "rule id %s does not find its rule back", f->rule_id);
    FUZZ_CHECK((unsigned)f->severity <= PPROF_SEVERITY_ERROR &&
                   strcmp(pprof_severity_name(f->severity), "unknown") != 0,
               "bad severity");
    FUZZ_CHECK(f->path && f->message && f->message[0], "finding without path or message");
    s->n++;
    s->by_sev[f->severity]++;
    mix_str(s, f->rule_id);
    mix_str(s, f->path);
    mix_str(s, f->message);
    s->digest ^= f->offset;
    return s->n < s->stop_after;
}

static seen
check(pprof_profile *p, uint64_t max_findings, uint64_t stop_after, pprof_check_summary *sum)
{
    pprof_check_options o = PPROF_CHECK_OPTIONS_INIT;
    o.max_findings = max_findings;
    o.regex_check = pprof_regex_check;
    seen s = {0, {0, 0, 0}, UINT64_C(0xcbf29ce484222325), stop_after};
    pprof_error err;
    pprof_status st = pprof_check(p, &o, on_finding, &s, sum, &err);
    FUZZ_CHECK(st == PPROF_OK, "check failed: %s: %s", pprof_status_name(st), err.message);
    FUZZ_CHECK(sum->reported == s.n, "summary says %llu reported, callback saw %llu",
               (unsigned long long)sum->reported, (unsigned long long)s.n);
    for (int i = 0; i < 3; i++)
        FUZZ_CHECK(sum->count[i] >= s.by_sev[i], "summary count below findings seen");
    FUZZ_CHECK(s.n <= max_findings, "more findings than max_findings");
    return s;
}

/* Some errors cannot be repaired (no sample_type at all, say; pprof-check --fix reports
 * those), so the oracle is: no more errors than before, a profile the writer accepts that
 * reads back with no more errors, and a second repair that finds nothing left to fix. */
static void
check_repaired(pprof_profile *q, uint64_t errors_before)
{
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    check(q, 1000, UINT64_MAX, &sum);
    uint64_t errors = sum.count[PPROF_SEVERITY_ERROR];
    FUZZ_CHECK(errors <= errors_before, "repair raised the errors from %llu to %llu",
               (unsigned long long)errors_before, (unsigned long long)errors);
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_buffer b = {0};
    pprof_error err;
    pprof_status st = pprof_profile_write_memory(q, &raw, &b, &err);
    FUZZ_CHECK(st == PPROF_OK, "repaired profile does not write: %s at %s", err.message, err.path);
    if (b.len) {
        pprof_profile *r = NULL;
        st = pprof_profile_read_memory(b.data, b.len, NULL, &r, &err);
        FUZZ_CHECK(st == PPROF_OK, "repaired profile does not read back: %s", err.message);
        check(r, 1000, UINT64_MAX, &sum);
        FUZZ_CHECK(sum.count[PPROF_SEVERITY_ERROR] <= errors,
                   "repaired profile has %llu errors after a write and a read, %llu before",
                   (unsigned long long)sum.count[PPROF_SEVERITY_ERROR], (unsigned long long)errors);
        pprof_profile_free(r);
    }
    pprof_buffer_free(&b);
    pprof_profile *again = NULL;
    pprof_repair_stats rs = PPROF_REPAIR_STATS_INIT;
    st = pprof_repair(q, &again, &rs, &err);
    FUZZ_CHECK(st == PPROF_OK, "second repair failed: %s", err.message);
    for (int i = 0; i < PPROF_FIX_COUNT; i++)
        FUZZ_CHECK(rs.count[i] == 0, "second repair applied %llu %s fixes",
                   (unsigned long long)rs.count[i], pprof_fix_name((pprof_fix)i));
    pprof_profile_free(again);
}

/* Read, check, repair and an inline index of both, through allocator fa. */
static pprof_status
all_steps(const uint8_t *data, size_t size, fuzz_failing_alloc *fa, pprof_error *err)
{
    pprof_read_options o = fuzz_read_options();
    o.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    o.allocator = fuzz_failing_allocator(fa);
    pprof_allocator a = o.allocator;
    pprof_profile *p = NULL, *q = NULL;
    pprof_inline_index *idx = NULL;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_status st = pprof_profile_read_memory(data, size, &o, &p, err);
    if (st == PPROF_OK)
        st = pprof_check(p, NULL, NULL, NULL, &sum, err);
    if (st == PPROF_OK)
        st = pprof_repair(p, &q, NULL, err);
    if (st == PPROF_OK)
        st = pprof_inline_index_new(&a, &idx, err);
    if (st == PPROF_OK)
        st = pprof_inline_index_add(idx, p, "input", NULL, NULL, NULL, &sum, err);
    if (st == PPROF_OK)
        st = pprof_inline_index_add(idx, q, "repaired", NULL, NULL, NULL, &sum, err);
    pprof_inline_index_free(idx);
    pprof_profile_free(q);
    pprof_profile_free(p);
    return st;
}

static void
nomem(const uint8_t *data, size_t size, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_error err;
    if (all_steps(data, size, &fa, &err) != PPROF_OK)
        return;
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_status st = all_steps(data, size, &fa, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu failing gives %s: %s", (unsigned long long)at,
                   pprof_status_name(st), err.message);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    /* as pprof-check reads: what the decoder refuses by default is left to the checker */
    o.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(data, size, &o, &p, &err);
    if (st != PPROF_OK) {
        pprof_rule rule;
        if (pprof_check_read_error_rule(&err, &rule))
            FUZZ_CHECK(pprof_rule_get(rule) != NULL, "read error maps to no rule");
        else if (st != PPROF_E_LIMIT && st != PPROF_E_NOMEM) {
            /* another format's reader (JFR, legacy, OTLP) refused the bytes: its errors are
             * not the pprof decoder's W and R rules; the pprof decoder alone must map */
            pprof_read_options po = o;
            po.readers = NULL;
            pprof_profile *q = NULL;
            pprof_error e2;
            pprof_status s2 = pprof_profile_read_memory(data, size, &po, &q, &e2);
            pprof_profile_free(q);
            FUZZ_CHECK(s2 == PPROF_OK || s2 == PPROF_E_LIMIT || s2 == PPROF_E_NOMEM ||
                           pprof_check_read_error_rule(&e2, &rule),
                       "%s maps to no rule: %s", pprof_status_name(st), err.message);
        }
        return 0;
    }
    uint64_t h = fuzz_hash(data, size);
    uint64_t cap = h & 1 ? 1000 : h % 5;
    uint64_t stop = h & 2 ? UINT64_MAX : 1 + (h >> 8) % 4;
    pprof_check_summary s1 = PPROF_CHECK_SUMMARY_INIT, s2 = PPROF_CHECK_SUMMARY_INIT;
    seen a = check(p, cap, stop, &s1);
    seen b = check(p, cap, stop, &s2);
    /* field by field: the struct's padding is not part of the result */
    FUZZ_CHECK(a.n == b.n && a.digest == b.digest &&
                   memcmp(s1.count, s2.count, sizeof(s1.count)) == 0 &&
                   s1.reported == s2.reported && s1.truncated == s2.truncated,
               "two checks of one profile differ");

    pprof_profile *q = NULL;
    pprof_repair_stats rs = PPROF_REPAIR_STATS_INIT;
    st = pprof_repair(p, &q, &rs, &err);
    FUZZ_CHECK(st == PPROF_OK, "repair failed: %s: %s", pprof_status_name(st), err.message);
    check_repaired(q, s1.count[PPROF_SEVERITY_ERROR]);

    /* Cross-file inline consistency (S1) between the input and its repair. */
    pprof_inline_index *idx = NULL;
    st = pprof_inline_index_new(NULL, &idx, &err);
    FUZZ_CHECK(st == PPROF_OK && idx != NULL, "inline index: %s", err.message);
    pprof_check_options co = PPROF_CHECK_OPTIONS_INIT;
    for (int i = 0; i < 2; i++) {
        seen sn = {0, {0, 0, 0}, 0, UINT64_MAX};
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        st = pprof_inline_index_add(idx, i ? q : p, i ? "repaired" : "input", &co, on_finding, &sn,
                                    &sum, &err);
        FUZZ_CHECK(st == PPROF_OK, "inline index: %s", err.message);
        FUZZ_CHECK(sum.reported == sn.n, "inline index summary disagrees with the callback");
    }
    pprof_inline_index_free(idx);
    pprof_profile_free(q);
    pprof_profile_free(p);
    nomem(data, size, h >> 11);
    return 0;
}
