/* The OTLP Profiles reader on arbitrary bytes (read + convert + check). When it accepts them:
 * the checker's findings name their rules and agree with its counts; each table limit at 0-2
 * entries gives PPROF_E_LIMIT or success; OTLP -> pprof either fails with a message and a path
 * or gives profiles that write as pprof and as OTLP again, and that OTLP reads back to pprof
 * profiles of the same meaning (the values summed per type, no more samples: samples of one
 * stack and labels may come back as one); the profile and merge-input readers take the bytes
 * exactly when they convert to one profile. A refused input fails with a message and is the
 * checker's O10 finding. Input that is a pprof profile instead is written as OTLP, which must
 * read back and pass the checker without an error. Either chain (OTLP -> pprof -> OTLP, pprof ->
 * OTLP -> pprof) again with one allocation failing, at up to 64 points: PPROF_E_NOMEM or the
 * same outcome. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fuzz.h"
#include "merge.h"
#include "otlp.h"

static size_t
samples_of(pprof_profile *const *v, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += pprof_profile_count(v[i], PPROF_TABLE_SAMPLE);
    return s;
}

/* Whether p and q have as many sample types and the same sum of values of each (modulo 2^64). */
static bool
same_sums(const pprof_profile *p, const pprof_profile *q)
{
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    if (nt != pprof_profile_count(q, PPROF_TABLE_SAMPLE_TYPE))
        return false;
    for (size_t k = 0; k < nt; k++) {
        uint64_t a = 0, b = 0;
        for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
            pprof_sample s = pprof_profile_sample(p, i);
            a += k < s.n_value ? (uint64_t)s.value[k] : 0;
        }
        for (size_t i = 0; i < pprof_profile_count(q, PPROF_TABLE_SAMPLE); i++) {
            pprof_sample s = pprof_profile_sample(q, i);
            b += k < s.n_value ? (uint64_t)s.value[k] : 0;
        }
        if (a != b)
            return false;
    }
    return true;
}

/* Each finding names a rule of the registry with its id and severity, an O rule (or the wire
 * rules the OTLP checker shares), and says what is wrong. */
static bool
finding(void *ctx, const pprof_finding *f)
{
    const pprof_rule_info *info = pprof_rule_get(f->rule);
    FUZZ_CHECK(info && f->rule_id && !strcmp(info->id, f->rule_id) && f->severity == info->severity,
               "finding of rule %d is not the registry's", (int)f->rule);
    FUZZ_CHECK(f->message && f->message[0] && f->path, "finding %s without a message or path",
               f->rule_id);
    ++*(uint64_t *)ctx;
    return true;
}

/* The checker's error count; findings are passed on as the summary says, up to the maximum
 * asked for (from h), and the same whether they are passed on or only counted. */
static uint64_t
otlp_errors(const pprof_otlp *o, uint64_t h)
{
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT, counted = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_options co;
    pprof_check_options_init(&co);
    co.max_findings = h % 4 == 0 ? 1 : 1000;
    uint64_t seen = 0;
    pprof_error err;
    FUZZ_CHECK(pprof_otlp_check(o, &co, finding, &seen, &sum, &err) == PPROF_OK, "check failed: %s",
               err.message);
    FUZZ_CHECK(sum.reported == seen && seen <= co.max_findings,
               "%llu findings passed on, %llu reported (maximum %llu)", (unsigned long long)seen,
               (unsigned long long)sum.reported, (unsigned long long)co.max_findings);
    FUZZ_CHECK(pprof_otlp_check(o, NULL, NULL, NULL, &counted, &err) == PPROF_OK,
               "check failed: %s", err.message);
    for (int k = 0; k < 3; k++)
        FUZZ_CHECK(counted.count[k] == sum.count[k],
                   "severity %d: %llu findings counted, %llu "
                   "passed on",
                   k, (unsigned long long)counted.count[k], (unsigned long long)sum.count[k]);
    FUZZ_CHECK(sum.truncated == (sum.count[0] + sum.count[1] + sum.count[2] > seen),
               "truncated is %d with %llu of the findings passed on", (int)sum.truncated,
               (unsigned long long)seen);
    return sum.count[PPROF_SEVERITY_ERROR];
}

/* The same bytes read with each table limit in turn at 0, 1 or 2 entries (from h): accepted,
 * or refused with PPROF_E_LIMIT and a message. */
static void
small_limits(const uint8_t *data, size_t size, uint64_t h)
{
    for (int k = 0; k < 9; k++) {
        pprof_read_options ro = fuzz_read_options();
        uint64_t *limits[] = {&ro.max_strings,   &ro.max_samples,  &ro.max_locations,
                              &ro.max_functions, &ro.max_mappings, &ro.max_lines,
                              &ro.max_labels,    &ro.max_values,   &ro.max_profiles};
        *limits[k] = (h >> (2 * k)) % 3;
        pprof_otlp *o = NULL;
        pprof_error err;
        pprof_status st = pprof_otlp_read_memory(data, size, &ro, &o, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_LIMIT && err.message[0] && !o),
                   "limit %d at %d: %s", k, (int)((h >> (2 * k)) % 3), pprof_status_name(st));
        pprof_otlp_free(o);
    }
}

/* OTLP bytes through the profile reader and as a merge input: accepted exactly when the
 * conversion gives one profile (of as many samples), else refused with a message. */
static void
as_profile(const uint8_t *data, size_t size, pprof_status conv, pprof_profile *const *v, size_t n)
{
    if (!pprof_otlp_detect(data, size))
        return;
    pprof_read_options ro = fuzz_read_options();
    pprof_profile *p = NULL;
    pprof_merge_input *in = NULL;
    pprof_error err;
    pprof_status st = pprof_profile_read_memory(data, size, &ro, &p, &err);
    bool one = conv == PPROF_OK && n == 1;
    FUZZ_CHECK((st == PPROF_OK) == one && (st == PPROF_OK || err.message[0]),
               "the profile reader gives %s on OTLP converting to %zu profiles (%s)",
               pprof_status_name(st), n, pprof_status_name(conv));
    if (p)
        FUZZ_CHECK(pprof_profile_count(p, PPROF_TABLE_SAMPLE) == samples_of(v, n),
                   "the profile reader gives %zu samples, the conversion %zu",
                   pprof_profile_count(p, PPROF_TABLE_SAMPLE), samples_of(v, n));
    pprof_profile_free(p);
    st = pprof_merge_input_read_memory(data, size, &ro, &in, &err);
    FUZZ_CHECK((st == PPROF_OK) == one && (st == PPROF_OK || err.message[0]),
               "the merge input reader gives %s on OTLP converting to %zu profiles (%s)",
               pprof_status_name(st), n, pprof_status_name(conv));
    pprof_merge_input_free(in);
}

/* pprof input: written as OTLP, it reads back and breaks no error-level rule. */
static void writer_options(const pprof_profile *p, uint64_t h);

static bool
count_rule(void *ctx, const pprof_finding *f)
{
    uint64_t *c = ctx; /* c[0]: the rule, c[1]: its findings */
    c[1] += (uint64_t)f->rule == c[0];
    return true;
}

/* Findings of rule r in p (pprof) or o (OTLP). */
static uint64_t
rule_count(pprof_profile *p, const pprof_otlp *o, pprof_rule r)
{
    uint64_t c[2] = {(uint64_t)r, 0};
    if (p)
        pprof_check(p, NULL, count_rule, c, NULL, NULL);
    else
        pprof_otlp_check(o, NULL, count_rule, c, NULL, NULL);
    return c[1];
}

static void
from_pprof(const uint8_t *data, size_t size)
{
    pprof_read_options ro = fuzz_read_options();
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &ro, &p, NULL) != PPROF_OK)
        return;
    pprof_buffer b = {0};
    pprof_error err;
    const pprof_profile *const in[] = {p};
    pprof_status st = pprof_otlp_write_memory(in, 1, NULL, &b, &err);
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]),
               "write error without a message");
    writer_options(p, fuzz_hash(data, size));
    if (st == PPROF_OK) {
        pprof_otlp *o = NULL;
        st = pprof_otlp_read_memory(b.data, b.len, &ro, &o, &err);
        FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "the writer's OTLP does not read: %s: %s",
                   err.path, err.message);
        if (o) {
            /* strings are written as they are: one that is not UTF-8 (S23) stays so (O14) */
            uint64_t utf8 = rule_count(p, NULL, PPROF_RULE_S23_UTF8)
                                ? rule_count(NULL, o, PPROF_RULE_O14_UTF8)
                                : 0;
            FUZZ_CHECK(otlp_errors(o, size) == utf8,
                       "the writer's OTLP breaks an error-level rule");
            pprof_profile **v = NULL;
            size_t n = 0;
            st = pprof_otlp_to_pprof(o, &v, &n, &err);
            FUZZ_CHECK(st == PPROF_OK, "the writer's OTLP does not convert: %s: %s", err.path,
                       err.message);
            FUZZ_CHECK(pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE) == 0 || n == 1,
                       "%zu profiles back from one", n);
            pprof_otlp_profiles_free(v, n);
        }
        pprof_otlp_free(o);
    }
    pprof_buffer_free(&b);
    pprof_profile_free(p);
}

/* The writer's options (compression, level, resource attributes, service name), through a
 * file and back (pprof_otlp_read_file, and the profile reader, which takes OTLP too), and the
 * write and the read each with one allocation failing (chosen from h). */
static void
writer_options(const pprof_profile *p, uint64_t h)
{
    static const char *const res[] = {"host.name=fuzz", "service.name=from-resource",
                                      "k=", "no-equals"};
    static const pprof_format fmts[] = {PPROF_FORMAT_RAW, PPROF_FORMAT_GZIP, PPROF_FORMAT_ZSTD};
    pprof_otlp_write_options wo;
    pprof_otlp_write_options_init(&wo);
    wo.format = fmts[h % 3];
    wo.level = (int)((h >> 2) % 4);
    wo.resource = res;
    wo.n_resource = (h >> 4) % 5;
    wo.service_name = (h >> 7) & 1 ? "svc" : NULL;
    const pprof_profile *const in[] = {p, p};
    size_t n = 1 + ((h >> 8) & 1);
    pprof_buffer b = {0};
    pprof_error err;
    pprof_status st = pprof_otlp_write_memory(in, n, &wo, &b, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(err.message[0], "write with options: an error without a message");
        pprof_buffer_free(&b);
        return;
    }
    FUZZ_CHECK(pprof_otlp_detect(b.data, b.len), "the writer's OTLP (format %d) is not detected",
               (int)wo.format);
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-otlp-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/p.otlp", dir);
    FUZZ_CHECK(pprof_otlp_path_is_otlp(path), "%s is not an OTLP name", path);
    FUZZ_CHECK(pprof_otlp_write_file(in, n, &wo, path, &err) == PPROF_OK, "write file: %s",
               err.message);
    pprof_read_options ro = fuzz_read_options();
    pprof_otlp *o = NULL;
    st = pprof_otlp_read_file(path, &ro, &o, &err);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "the written file does not read: %s",
               err.message);
    if (o)
        FUZZ_CHECK(pprof_otlp_profile_count(o) >= n - 1, "%zu profiles read back",
                   pprof_otlp_profile_count(o));
    pprof_otlp_free(o);
    /* one pprof profile: the profile reader takes it (OTLP detected from the bytes) */
    pprof_profile *q = NULL;
    if (n == 1 && pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE) == 1) {
        st = pprof_profile_read_file(path, &ro, &q, &err);
        FUZZ_CHECK(st == PPROF_OK || err.message[0], "profile reader on OTLP: no message");
        pprof_profile_free(q);
    }
    unlink(path);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
    /* allocation failures */
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    ro.allocator = fuzz_failing_allocator(&fa);
    o = NULL;
    if (pprof_otlp_read_memory(b.data, b.len, &ro, &o, &err) == PPROF_OK && fa.calls) {
        pprof_otlp_free(o);
        o = NULL;
        uint64_t at = (h >> 9) % fa.calls;
        fa = (fuzz_failing_alloc){0, at, 0};
        st = pprof_otlp_read_memory(b.data, b.len, &ro, &o, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && !o),
                   "read allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
    }
    pprof_otlp_free(o);
    pprof_buffer_free(&b);
}

/* The whole chain with allocator fa behind it (the writer and the converter allocate through
 * their profile's and their OTLP's): pprof input -> OTLP -> pprof, or OTLP input -> pprof ->
 * OTLP. */
static pprof_status
chain(const uint8_t *data, size_t size, fuzz_failing_alloc *fa, pprof_error *err)
{
    pprof_read_options ro = fuzz_read_options();
    ro.allocator = fuzz_failing_allocator(fa);
    pprof_profile *p = NULL, **v = NULL;
    pprof_otlp *o = NULL;
    size_t n = 0;
    pprof_buffer b = {0};
    pprof_status st;
    if (pprof_otlp_detect(data, size)) {
        st = pprof_otlp_read_memory(data, size, &ro, &o, err);
        if (st == PPROF_OK)
            st = pprof_otlp_to_pprof(o, &v, &n, err);
        if (st == PPROF_OK && n)
            st = pprof_otlp_write_memory((const pprof_profile *const *)v, n, NULL, &b, err);
    } else {
        st = pprof_profile_read_memory(data, size, &ro, &p, err);
        if (st == PPROF_OK)
            st = pprof_otlp_write_memory((const pprof_profile *const *)&p, 1, NULL, &b, err);
        if (st == PPROF_OK)
            st = pprof_otlp_read_memory(b.data, b.len, &ro, &o, err);
        if (st == PPROF_OK)
            st = pprof_otlp_to_pprof(o, &v, &n, err);
    }
    if (v)
        pprof_otlp_profiles_free(v, n);
    pprof_otlp_free(o);
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    return st;
}

/* The chain again with one allocation failing, at up to 64 points spread over its allocations:
 * each gives PPROF_E_NOMEM with a message, or the outcome of the chain (a hint). */
static void
chain_nomem(const uint8_t *data, size_t size, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_error err;
    pprof_status want = chain(data, size, &fa, &err);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(64);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_status st = chain(data, size, &fa, &err);
        FUZZ_CHECK(st == want || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu of %llu failing gives %s, not %s", (unsigned long long)at,
                   (unsigned long long)calls, pprof_status_name(st), pprof_status_name(want));
    }
}

/* Missing arguments are refused with PPROF_E_ARG; the names and bytes that are no OTLP are
 * not taken for it. */
static void
missing_arguments(void)
{
    pprof_otlp *o = NULL;
    pprof_profile **v = NULL;
    size_t n = 0;
    pprof_buffer b = {0};
    pprof_error err;
    pprof_status st[] = {
        pprof_otlp_read_file(NULL, NULL, &o, &err),
        pprof_otlp_to_pprof(NULL, &v, &n, &err),
        pprof_otlp_check(NULL, NULL, NULL, NULL, NULL, &err),
        pprof_otlp_write_memory(NULL, 1, NULL, &b, &err),
        pprof_otlp_write_file(NULL, 0, NULL, NULL, &err),
    };
    for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
        FUZZ_CHECK(st[i] == PPROF_E_ARG && err.message[0], "missing argument %zu: %s", i,
                   pprof_status_name(st[i]));
    FUZZ_CHECK(!o && !v && !b.len, "a refused call gave something back");
    FUZZ_CHECK(pprof_otlp_read_memory("", 0, NULL, &o, &err) == PPROF_E_EMPTY && !o,
               "no bytes are not refused as empty");
    FUZZ_CHECK(!pprof_otlp_detect(NULL, 0) && !pprof_otlp_path_is_otlp(NULL) &&
                   pprof_otlp_path_is_otlp("a.otlp.gz") && pprof_otlp_path_is_otlp("a.otlp.zst") &&
                   !pprof_otlp_path_is_otlp("a.pb.gz") && !pprof_otlp_path_is_otlp("otlp"),
               "OTLP names");
    pprof_otlp_write_options_init(NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    chain_nomem(data, size, fuzz_hash(data, size) >> 17);
    missing_arguments();
    pprof_read_options ro = fuzz_read_options();
    pprof_otlp *o = NULL;
    pprof_error err;
    pprof_status st = pprof_otlp_read_memory(data, size, &ro, &o, &err);
    uint64_t h = fuzz_hash(data, size);
    if (st != PPROF_OK) {
        FUZZ_CHECK(o == NULL && err.code == st && err.message[0], "refusal without a message");
        /* the refusal as the checker's O10 finding, unless it is not about the bytes */
        uint64_t seen = 0;
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        bool about_input = pprof_otlp_check_read_error(&err, NULL, finding, &seen, &sum);
        FUZZ_CHECK(about_input == (st != PPROF_E_IO && st != PPROF_E_NOMEM && st != PPROF_E_ARG) &&
                       seen == about_input && (!about_input || sum.count[PPROF_SEVERITY_ERROR]),
                   "the refusal (%s) as a finding: %d, %llu passed on", pprof_status_name(st),
                   (int)about_input, (unsigned long long)seen);
        from_pprof(data, size);
        return 0;
    }
    otlp_errors(o, h);
    small_limits(data, size, h >> 2);
    pprof_profile **v = NULL;
    size_t n = 0;
    st = pprof_otlp_to_pprof(o, &v, &n, &err);
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]),
               "conversion error without a message");
    as_profile(data, size, st, v, n);
    if (st == PPROF_OK && n) {
        pprof_buffer b = {0}, pb = {0};
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        /* as pprof: the bytes read again (the converter may build what Go refuses; then the
         * OTLP writer refuses it too, naming why) */
        FUZZ_CHECK(pprof_profile_write_memory(v[0], &wo, &pb, &err) == PPROF_OK || err.message[0],
                   "pprof write error without a message");
        st = pprof_otlp_write_memory((const pprof_profile *const *)v, n, NULL, &b, &err);
        FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]),
                   "OTLP write error without a message");
        if (st == PPROF_OK) {
            pprof_otlp *o2 = NULL;
            pprof_profile **w = NULL;
            size_t m = 0;
            st = pprof_otlp_read_memory(b.data, b.len, &ro, &o2, &err);
            FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "rewritten OTLP does not read: %s",
                       err.message);
            if (o2) {
                FUZZ_CHECK(pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK,
                           "rewritten OTLP does not convert: %s: %s", err.path, err.message);
                /* samples of one stack and labels may come back as one (docs/otlp.md, the
                 * join): the values summed per sample type stay, the samples do not grow */
                FUZZ_CHECK(samples_of(w, m) <= samples_of(v, n),
                           "%zu samples after a second trip, %zu before", samples_of(w, m),
                           samples_of(v, n));
                for (size_t i = 0; i < m && m == n; i++)
                    FUZZ_CHECK(same_sums(v[i], w[i]),
                               "profile %zu: the values summed per type change on a second trip",
                               i);
            }
            pprof_otlp_profiles_free(w, m);
            pprof_otlp_free(o2);
        }
        pprof_buffer_free(&b);
        pprof_buffer_free(&pb);
    }
    pprof_otlp_profiles_free(v, n);
    pprof_otlp_free(o);
    return 0;
}
