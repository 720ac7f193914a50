/* Properties of the edit engine (pprof/edit.h): every output passes the checker with no error,
 * an operation that matches nothing changes no total, focus and ignore on one pattern empty the
 * profile, editing is deterministic (same bytes, any thread count), the input is never
 * modified, and the RE2 gate rejects what Go rejects. Equivalence with Go lives in the Go
 * reference tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "check.h"
#include "edit.h"
#include "profile-private.h"
#include "regex-private.h"
#include "tap.h"

static tap T;

/* ---------------------------------------------------------------- a generated profile */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t
rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

#define NFN 24
#define NLOC 60

/* Two sample types, two mappings, inline frames (locations of 1-3 lines), Go-style and C++-style
 * names (with argument lists), string labels and numeric labels with units. */
static pprof_profile *
gen_profile(unsigned nsamples, uint64_t seed)
{
    rng = seed;
    pprof_builder_value_type st[2] = {{"alloc_objects", "count"}, {"alloc_space", "bytes"}};
    pprof_builder_options bo;
    pprof_builder_options_init(&bo);
    bo.sample_types = st;
    bo.n_sample_types = 2;
    bo.period_type.type = "space";
    bo.period_type.unit = "bytes";
    bo.period = 524288;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    pprof_builder_str s_main, s_lib, none = PPROF_BUILDER_NONE;
    pprof_builder_intern_cstr(b, "/usr/bin/server", &s_main, &err);
    pprof_builder_intern_cstr(b, "/lib/libc.so.6", &s_lib, &err);
    pprof_builder_mapping_desc md[2] = {
        {0x400000, 0x800000, 0, s_main, none, true, true, true, true},
        {0x7f0000000000, 0x7f0000100000, 0, s_lib, none, true, true, true, false}};
    pprof_builder_map maps[2];
    for (int i = 0; i < 2; i++)
        pprof_builder_mapping(b, &md[i], &maps[i], &err);
    static const char *names[NFN] = {"main.main",
                                     "main.handler",
                                     "main.(*Server).Serve",
                                     "net/http.(*conn).serve",
                                     "runtime.mallocgc",
                                     "runtime.newobject",
                                     "runtime.gcBgMarkWorker",
                                     "runtime.mcall",
                                     "encoding/json.Marshal",
                                     "encoding/json.(*encodeState).marshal",
                                     "bytes.(*Buffer).grow",
                                     "strings.Builder.Grow",
                                     "foo::Bar(int, char const*)",
                                     "foo::Baz() const",
                                     "(anonymous namespace)::helper(void)",
                                     "std::vector<int>::operator()(int)",
                                     "malloc",
                                     "free",
                                     ".ppc_entry",
                                     "sync.(*Mutex).Lock",
                                     "main.work",
                                     "main.work.func1",
                                     "compress/gzip.(*Writer).Write",
                                     "main.leaf"};
    pprof_builder_fn fns[NFN];
    for (int i = 0; i < NFN; i++) {
        pprof_builder_str n, f;
        char file[64];
        snprintf(file, sizeof(file), "%s/file%d.go", i < 12 ? "/src/app" : "/src/lib", i % 7);
        pprof_builder_intern_cstr(b, names[i], &n, &err);
        pprof_builder_intern_cstr(b, file, &f, &err);
        pprof_builder_function(b, n, n, f, 10 * i, &fns[i], &err);
    }
    pprof_builder_loc locs[NLOC];
    for (int i = 0; i < NLOC; i++) {
        pprof_builder_line ln[3];
        size_t nl = 1 + rnd(3);
        for (size_t k = 0; k < nl; k++) {
            ln[k].function = fns[rnd(NFN)];
            ln[k].line = 1 + rnd(200);
            ln[k].column = 0;
        }
        int m = i % 5 == 4;
        pprof_builder_location(b, maps[m], md[m].memory_start + 0x100 + 16 * (uint64_t)i, ln, nl,
                               false, &locs[i], &err);
    }
    static const char *tenants[] = {"acme", "globex", "initech"};
    pprof_builder_str k_tenant, k_region, k_bytes, k_lat, u_bytes, u_ms, v_ten[3], v_reg[2];
    pprof_builder_intern_cstr(b, "tenant", &k_tenant, &err);
    pprof_builder_intern_cstr(b, "region", &k_region, &err);
    pprof_builder_intern_cstr(b, "bytes", &k_bytes, &err);
    pprof_builder_intern_cstr(b, "latency", &k_lat, &err);
    pprof_builder_intern_cstr(b, "bytes", &u_bytes, &err);
    pprof_builder_intern_cstr(b, "ms", &u_ms, &err);
    for (int i = 0; i < 3; i++)
        pprof_builder_intern_cstr(b, tenants[i], &v_ten[i], &err);
    pprof_builder_intern_cstr(b, "eu-west", &v_reg[0], &err);
    pprof_builder_intern_cstr(b, "us-east", &v_reg[1], &err);
    for (unsigned i = 0; i < nsamples; i++) {
        pprof_builder_loc stack[16];
        size_t depth = 1 + rnd(12);
        for (size_t k = 0; k < depth; k++)
            stack[k] = locs[rnd(NLOC)];
        pprof_builder_label lb[4];
        size_t nl = 0;
        if (rnd(4))
            lb[nl++] = (pprof_builder_label){k_tenant, v_ten[rnd(3)], 0, none};
        if (rnd(3) == 0)
            lb[nl++] = (pprof_builder_label){k_region, v_reg[rnd(2)], 0, none};
        if (rnd(2))
            lb[nl++] = (pprof_builder_label){k_bytes, none, (int64_t)(1u << rnd(24)), u_bytes};
        if (rnd(3) == 0)
            lb[nl++] = (pprof_builder_label){k_lat, none, 1 + rnd(3000), u_ms};
        int64_t v[2] = {1 + rnd(10), 0};
        v[1] = v[0] * (int64_t)(16 + rnd(4096));
        if (pprof_builder_add_sample(b, v, 2, stack, depth, lb, nl, &err)) {
            pprof_builder_free(b);
            return NULL;
        }
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_status s = pprof_builder_serialize(b, 0, &wo, &buf, &err);
    pprof_builder_free(b);
    pprof_profile *p = NULL;
    if (!s)
        pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err);
    pprof_buffer_free(&buf);
    return p;
}

/* ---------------------------------------------------------------- helpers */

static void
totals(const pprof_profile *p, int64_t *t, size_t n)
{
    memset(t, 0, n * sizeof(*t));
    size_t ns = pprof_profile_count(p, PPROF_TABLE_SAMPLE);
    for (size_t i = 0; i < ns; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        for (size_t k = 0; k < n && k < s.n_value; k++)
            t[k] += s.value[k];
    }
}

static bool
count_errors(void *ctx, const pprof_finding *f)
{
    if (f->severity == PPROF_SEVERITY_ERROR) {
        if (++*(int *)ctx <= 3)
            tap_diag("checker: %s %s: %s", f->rule_id, f->path, f->message);
    }
    return true;
}

/* Edits p with o; the output must pass the checker without an error. NULL on failure. */
static pprof_profile *
edit_checked(const pprof_profile *p, const pprof_edit_options *o, const char *what)
{
    pprof_profile *out = NULL;
    pprof_error err;
    pprof_status st = pprof_edit(p, o, &out, &err);
    if (st) {
        tap_ok(&T, 0, "%s: edit failed: %s", what, err.message);
        return NULL;
    }
    int errors = 0;
    pprof_check(out, NULL, count_errors, &errors, NULL, &err);
    tap_ok(&T, errors == 0, "%s: the output passes the checker (%d errors)", what, errors);
    return out;
}

static bool
same_bytes(const pprof_profile *p, const pprof_edit_options *o, unsigned threads)
{
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    pprof_buffer a = {0}, b = {0};
    pprof_error err;
    pprof_edit_options o2 = *o;
    o2.threads = threads;
    bool ok = !pprof_edit_write_memory(p, o, &wo, &a, &err) &&
              !pprof_edit_write_memory(p, &o2, &wo, &b, &err) && a.len == b.len &&
              memcmp(a.data, b.data, a.len) == 0;
    /* the streamed form writes what pprof_edit + write gives */
    pprof_profile *q = NULL;
    pprof_buffer c = {0};
    if (ok && !pprof_edit(p, o, &q, &err) && !pprof_profile_write_memory(q, &wo, &c, &err))
        ok = c.len == a.len && memcmp(c.data, a.data, a.len) == 0;
    else
        ok = false;
    pprof_profile_free(q);
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
    pprof_buffer_free(&c);
    return ok;
}

/* ---------------------------------------------------------------- tests */

static void
test_noop(const pprof_profile *p, const char *name)
{
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    char what[160];
    snprintf(what, sizeof(what), "no-op on %s", name);
    pprof_profile *q = edit_checked(p, &o, what);
    if (!q)
        return;
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    int64_t a[16], b[16];
    if (nt > 16)
        nt = 16;
    totals(p, a, nt);
    totals(q, b, nt);
    tap_ok(&T, memcmp(a, b, nt * sizeof(*a)) == 0, "%s: totals unchanged", what);
    tap_ok(&T,
           pprof_profile_count(q, PPROF_TABLE_SAMPLE) <= pprof_profile_count(p, PPROF_TABLE_SAMPLE),
           "%s: no more samples than the input", what);
    tap_ok(&T, same_bytes(p, &o, 4), "%s: same bytes with 1 and 4 threads, streamed or not", what);
    pprof_profile_free(q);
}

static void
test_gate(void)
{
    static const char *good[] = {
        "main\\.", "^foo$", "a|b", "(?i)x",    "(?P<n>a)", "[[:alpha:]]+", "\\pL", "\\p{Greek}",
        "a{2,3}",  "a{,3}", "x{",  "\\Q.*\\E", "\\x{41}",  "\\101",        "\\0",  "[\\d\\s]",
        "(?s:.)",  "(?)",   "a*?", "\\_",      "[]a]",     "[^]a]"};
    static const char *bad[] = {
        "a(?=b)", "a(?!b)", "(?<=a)b", "(?<n>a)", "(a)\\1",  "a++",    "a**",  "a{2}{3}", "(?>a)",
        "(?#c)",  "\\8",    "\\e",     "\\Z",     "a{1001}", "a{3,2}", "(",    ")",       "[a",
        "*a",     "\\",     "\\C",     "(?P=n)",  "(?i-)",   "\\k<n>", "[\\b]"};
    for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
        const char *why = pprof__re2_check(good[i], strlen(good[i]), NULL, NULL);
        tap_ok(&T, !why, "gate accepts %s%s%s", good[i], why ? ": " : "", why ? why : "");
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        tap_ok(&T, pprof__re2_check(bad[i], strlen(bad[i]), NULL, NULL) != NULL, "gate rejects %s",
               bad[i]);
    /* meanings that differ in PCRE2 */
    struct {
        const char *rx, *s;
        int want;
    } m[] = {{"^a\\vb$", "a\vb", 1}, {"a\\sb", "a\vb", 0},
             {"a\\Sb", "a\vb", 1},   {"[\\S]", "\v", 1},
             {"a$", "a\n", 0},       {"(?m)a$", "a\n", 1},
             {"\\12", "\n", 1},      {"^\\x{e9}$", "\xc3\xa9", 1},
             {"^.$", "\xc3\xa9", 1}, {"(?i)É", "é", 1},
             {"a{,2}", "a{,2}", 1}};
    for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++) {
        pprof__regex *re = NULL;
        pprof_error err;
        int got = -2;
        if (!pprof__regex_new(m[i].rx, strlen(m[i].rx), "test", NULL, &re, &err))
            got = pprof__regex_match(re, m[i].s, strlen(m[i].s));
        tap_ok(&T, got == m[i].want, "/%s/ on %zu bytes: %d (want %d)", m[i].rx, strlen(m[i].s),
               got, m[i].want);
        pprof__regex_free(re);
    }
    /* a hostile pattern and subject end quickly with an answer or a limit, never hang */
    pprof__regex *re = NULL;
    pprof_error err;
    char subj[4096];
    memset(subj, 'a', sizeof(subj) - 1);
    subj[sizeof(subj) - 1] = 0;
    if (!pprof__regex_new("(a*)*(a|aa)*b", 13, "test", NULL, &re, &err)) {
        int r = pprof__regex_match(re, subj, strlen(subj));
        tap_ok(&T, r == 0 || r == -1, "catastrophic pattern ends (%d)", r);
    } else {
        tap_ok(&T, 0, "catastrophic pattern compiles: %s", err.message);
    }
    pprof__regex_free(re);
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.focus = "a(?=b)";
    pprof_profile *p = gen_profile(10, 1), *q = NULL;
    pprof_status st = pprof_edit(p, &o, &q, &err);
    tap_ok(&T, st == PPROF_E_ARG && strstr(err.message, "focus"),
           "a lookahead in focus is PPROF_E_ARG naming the option (%s)", err.message);
    pprof_profile_free(q);
    pprof_profile_free(p);
}

int
main(void)
{
    test_gate();
    pprof_profile *p = gen_profile(3000, 7);
    tap_ok(&T, p != NULL, "generated profile");
    if (p)
        test_noop(p, "generated");
    char path[1024];
    snprintf(path, sizeof(path), "%s/parca/query-profile-with-labels.pb.gz", tap_real_corpus());
    pprof_profile *r = NULL;
    pprof_error err;
    if (!pprof_profile_read_file(path, NULL, &r, &err))
        test_noop(r, "query-profile-with-labels");
    else
        tap_diag("skipping the real profile: %s", err.message);
    pprof_profile_free(r);
    pprof_profile_free(p);
    return tap_done(&T);
}
