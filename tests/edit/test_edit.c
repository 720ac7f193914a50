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
#include "measure-private.h"
#include "merge.h"
#include "profile-private.h"
#include "regex-private.h"
#include "tap.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

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
    pprof_status s = pprof_builder_write_memory(b, 0, &wo, &buf, &err);
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
        const char *why = NULL;
        tap_ok(&T, pprof__re2_check(good[i], strlen(good[i]), &why) == 0, "gate accepts %s%s%s",
               good[i], why ? ": " : "", why ? why : "");
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        const char *why = NULL;
        tap_ok(&T, pprof__re2_check(bad[i], strlen(bad[i]), &why) == 1 && why, "gate rejects %s",
               bad[i]);
    }
    /* meanings that differ in PCRE2 and RE2's reading of names */
    struct {
        const char *rx, *s;
        int want;
    } m[] = {{"^a\\vb$", "a\vb", 1},
             {"a\\sb", "a\vb", 0},
             {"a\\Sb", "a\vb", 1},
             {"[\\S]", "\v", 1},
             {"a$", "a\n", 0},
             {"(?m)a$", "a\n", 1},
             {"\\12", "\n", 1},
             {"^\\x{e9}$", "\xc3\xa9", 1},
             {"^.$", "\xc3\xa9", 1},
             {"(?i)É", "é", 1},
             {"a{,2}", "a{,2}", 1},
             /* PCRE2 hit its match limit here (-1); Go, and RE2, answer */
             {"(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", 0},
             {"([a-z]+/?)+\\.go", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz/", 0}};
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
    /* a hostile pattern and subject: RE2 answers (Go's answer), with no limit to hit */
    pprof__regex *re = NULL;
    pprof_error err;
    char subj[4096];
    memset(subj, 'a', sizeof(subj) - 1);
    subj[sizeof(subj) - 1] = 0;
    if (!pprof__regex_new("(a*)*(a|aa)*b", 13, "test", NULL, &re, &err)) {
        int r = pprof__regex_match(re, subj, strlen(subj));
        tap_ok(&T, r == 0, "catastrophic pattern answers no, as Go (%d)", r);
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

uint64_t pprof__siphash(uint64_t k0, uint64_t k1, int tag, const void *data, size_t n);

static void
test_units_and_hash(void)
{
    struct {
        int64_t v;
        const char *from, *to, *want;
    } c[] = {{1536, "bytes", "minimum", "1.50kB"},
             {0, "bytes", "minimum", "0"},
             {-2048, "B", "auto", "-2kB"},
             {1500, "ms", "minimum", "1.50s"},
             {5, "", "", "5"},
             {3, "", "ms", "3ms"},
             {7200000000000, "ns", "minimum", "2hrs"},
             {1, "μss", "minimum", "1us"},
             {3, "requests", "minimum", "3"},
             {1048576, "bytes", "kb", "1024kB"}};
    for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
        char buf[64];
        pprof_string f = {c[i].from, strlen(c[i].from)}, t = {c[i].to, strlen(c[i].to)};
        pprof__measure_label(c[i].v, f, t, buf, sizeof(buf));
        tap_ok(&T, !strcmp(buf, c[i].want), "ScaledLabel(%lld, %s, %s) = %s (want %s)",
               (long long)c[i].v, c[i].from, c[i].to, buf, c[i].want);
    }
    /* SipHash-2-4 reference vectors (key 00..0f; messages 00.. of length 0 and 15) */
    uint8_t msg[15];
    for (int i = 0; i < 15; i++)
        msg[i] = (uint8_t)i;
    uint64_t k0 = UINT64_C(0x0706050403020100), k1 = UINT64_C(0x0f0e0d0c0b0a0908);
    tap_ok(&T, pprof__siphash(k0, k1, -1, msg, 0) == UINT64_C(0x726fdb47dd0e0e31),
           "siphash of the empty message");
    tap_ok(&T, pprof__siphash(k0, k1, -1, msg, 15) == UINT64_C(0xa129ca6149be45e5),
           "siphash of 15 bytes");
    tap_ok(&T, pprof__siphash(k0, k1, 0, msg + 1, 14) == pprof__siphash(k0, k1, -1, msg, 15),
           "a tag byte is the first message byte");
}

static size_t
nsamples(const pprof_profile *p)
{
    return pprof_profile_count(p, PPROF_TABLE_SAMPLE);
}

typedef void (*set_fn)(pprof_edit_options *o);

static void
o_focus(pprof_edit_options *o)
{
    o->focus = "main|json";
}
static void
o_ignore(pprof_edit_options *o)
{
    o->ignore = "runtime";
}
static void
o_hide(pprof_edit_options *o)
{
    o->hide = "runtime|free";
}
static void
o_show(pprof_edit_options *o)
{
    o->show = "main";
}
static void
o_show_from(pprof_edit_options *o)
{
    o->show_from = "Serve";
}
static void
o_prune_from(pprof_edit_options *o)
{
    o->prune_from = "mallocgc";
}
static void
o_drop(pprof_edit_options *o)
{
    o->drop_frames = "runtime\\..*|malloc";
    o->keep_frames = "runtime\\.mcall";
}
static void
o_tagfocus(pprof_edit_options *o)
{
    o->tag_focus = "bytes=64kb:1mb";
}
static void
o_tagignore(pprof_edit_options *o)
{
    o->tag_ignore = "tenant=acme";
}
static void
o_tagshow(pprof_edit_options *o)
{
    o->tag_show = "tenant|bytes";
}
static void
o_taghide(pprof_edit_options *o)
{
    o->tag_hide = "latency";
}
static void
o_tagroot(pprof_edit_options *o)
{
    o->tag_root = "tenant,bytes";
    o->tag_leaf = "latency";
}
static const char *types1[] = {"alloc_space"};
static void
o_types(pprof_edit_options *o)
{
    o->sample_types = types1;
    o->n_sample_types = 1;
}
static const char *rm1[] = {"region"};
static const pprof_edit_rename ren1[] = {{"tenant", "customer"}};
static const pprof_edit_label set1[] = {{"env", "prod"}};
static void
o_labels(pprof_edit_options *o)
{
    o->remove_labels = rm1;
    o->n_remove_labels = 1;
    o->rename_labels = ren1;
    o->n_rename_labels = 1;
    o->set_labels = set1;
    o->n_set_labels = 1;
}
static const pprof_edit_scale sc1[] = {{NULL, 0.25}, {"alloc_space", 3}};
static void
o_scale(pprof_edit_options *o)
{
    o->scale = sc1;
    o->n_scale = 2;
}
static void
o_agg(pprof_edit_options *o)
{
    o->granularity = PPROF_GRANULARITY_FUNCTIONS;
}
static void
o_noinl(pprof_edit_options *o)
{
    o->no_inlines = true;
    o->granularity = PPROF_GRANULARITY_LINES;
}
static void
o_depth(pprof_edit_options *o)
{
    o->max_depth = 4;
}
static void
o_frac(pprof_edit_options *o)
{
    o->min_fraction = 0.0005;
}
static void
o_redact(pprof_edit_options *o)
{
    static const char *k[] = {"tenant"};
    o->redact = 7;
    o->redact_labels = k;
    o->n_redact_labels = 1;
    o->redact_key = "secret";
    o->redact_key_len = 6;
}
/* patterns that match the frames tagroot makes, whose strings differ per batch */
static void
o_rootfocus(pprof_edit_options *o)
{
    o->tag_root = "tenant,bytes";
    o->focus = "acme|MB";
    o->hide = "kB";
}

static void
o_all(pprof_edit_options *o)
{
    o_tagroot(o);
    o_ignore(o);
    o_hide(o);
    o_tagfocus(o);
    o_types(o);
    o_labels(o);
    o_scale(o);
    o_noinl(o);
    o_depth(o);
    o_redact(o);
}

/* Functions whose file name is key: the frames tagroot/tagleaf made. */
static size_t
label_frames(const pprof_profile *p, const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_FUNCTION); i++) {
        pprof_string f;
        if (pprof_profile_string(p, pprof_profile_function(p, i).filename, &f) &&
            f.len == strlen(key) && !memcmp(f.data, key, f.len))
            n++;
    }
    return n;
}

static void
test_each_operation(const pprof_profile *p)
{
    static const struct {
        const char *name;
        set_fn set;
    } ops[] = {{"focus", o_focus},        {"ignore", o_ignore},       {"hide", o_hide},
               {"show", o_show},          {"show_from", o_show_from}, {"prune_from", o_prune_from},
               {"drop_frames", o_drop},   {"tagfocus", o_tagfocus},   {"tagignore", o_tagignore},
               {"tagshow", o_tagshow},    {"taghide", o_taghide},     {"tagroot", o_tagroot},
               {"sample_types", o_types}, {"labels", o_labels},       {"scale", o_scale},
               {"granularity", o_agg},    {"no_inlines", o_noinl},    {"max_depth", o_depth},
               {"min_fraction", o_frac},  {"redact", o_redact},       {"ten at once", o_all}};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    pprof_buffer before = {0}, after = {0};
    pprof_error err;
    pprof_profile_write_memory(p, &wo, &before, &err);
    for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        ops[i].set(&o);
        pprof_profile *q = edit_checked(p, &o, ops[i].name);
        if (q)
            tap_ok(&T, nsamples(q) > 0 && nsamples(q) <= nsamples(p), "%s: %zu of %zu samples",
                   ops[i].name, nsamples(q), nsamples(p));
        if (q && ops[i].set == o_tagroot)
            tap_ok(&T, label_frames(q, "tenant") == 4 && label_frames(q, "latency") > 10,
                   "tagroot: one frame per tenant value and none (%zu), latency frames (%zu)",
                   label_frames(q, "tenant"), label_frames(q, "latency"));
        tap_ok(&T, same_bytes(p, &o, 3), "%s: deterministic, streamed or not", ops[i].name);
        pprof_profile_free(q);
    }
    pprof_profile_write_memory(p, &wo, &after, &err);
    tap_ok(&T, before.len == after.len && !memcmp(before.data, after.data, before.len),
           "the input is unchanged by %zu edits", sizeof(ops) / sizeof(*ops));
    pprof_buffer_free(&before);
    pprof_buffer_free(&after);
}

/* A merge input is edited a batch at a time; the bytes must be those of the whole profile. */
static void
test_batches(void)
{
    pprof_profile *p = gen_profile(150000, 11);
    if (!tap_ok(&T, p != NULL && nsamples(p) > 2 * 65536, "a profile of %zu samples (3 batches)",
                p ? nsamples(p) : 0))
        return;
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_buffer enc = {0};
    pprof_error err;
    pprof_profile_write_memory(p, &raw, &enc, &err);
    pprof_profile *base = gen_profile(500, 3);
    static const struct {
        const char *name;
        set_fn set;
    } ops[] = {{"none", NULL},
               {"focus", o_focus},
               {"hide", o_hide},
               {"tagfocus", o_tagfocus},
               {"tagroot", o_tagroot},
               {"labels", o_labels},
               {"min_fraction", o_frac},
               {"ten at once", o_all},
               {"normalize", NULL},
               {"tagroot + focus on its frames", o_rootfocus},
               {"scale", o_scale},
               {"ignore", o_ignore},
               {"show", o_show},
               {"show_from", o_show_from},
               {"prune_from", o_prune_from},
               {"drop_frames", o_drop},
               {"tagignore", o_tagignore},
               {"tagshow", o_tagshow},
               {"types", o_types},
               {"aggregate", o_agg},
               {"no inlines", o_noinl},
               {"max_depth", o_depth},
               {"redact", o_redact},
               {"hide + prune_from", o_hide},
               {"show + show_from", o_show}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
        /* TSan and ASan run this ten times slower. The batch machinery (decode ahead, edit,
         * merge) is the same for every operation, so a quarter of them and the merge-again
         * check keep it covered under both; each operation's own code runs under them in
         * test_each_operation, and the other builds check every operation's batch bytes. */
        if (UNDER_SANITIZER && i % 4 != 0 && ops[i].set != o_hide)
            continue;
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        if (ops[i].set)
            ops[i].set(&o);
        if (!strcmp(ops[i].name, "hide + prune_from"))
            o_prune_from(&o);
        if (!strcmp(ops[i].name, "show + show_from"))
            o_show_from(&o);
        if (!strcmp(ops[i].name, "normalize"))
            o.normalize_base = base;
        if (!strcmp(ops[i].name, "ten at once") || !strcmp(ops[i].name, "min_fraction"))
            o.min_fraction = 0.00002; /* keeps a few hundred of these samples */
        pprof_buffer a = {0}, b = {0}, b3 = {0};
        pprof_merge_input *in = NULL;
        pprof_status s1 = pprof_edit_write_memory(p, &o, &raw, &a, &err);
        pprof_status s2 = pprof_merge_input_read_memory(enc.data, enc.len, NULL, &in, &err);
        if (!s2)
            s2 = pprof_edit_input_write_memory(in, &o, &raw, &b, &err);
        tap_ok(&T, !s1 && !s2 && a.len == b.len && !memcmp(a.data, b.data, a.len),
               "%s: batches give the bytes of the whole profile (%zu, %zu bytes)", ops[i].name,
               a.len, b.len);
        /* with threads, each batch is decoded while the one before is edited */
        o.threads = 3;
        s2 = s2 ? s2 : pprof_edit_input_write_memory(in, &o, &raw, &b3, &err);
        tap_ok(&T, !s2 && b3.len == b.len && !memcmp(b3.data, b.data, b.len),
               "%s: the same bytes with 3 threads (%zu bytes)", ops[i].name, b3.len);
        pprof_buffer_free(&b3);
        if (ops[i].set == o_hide) {
            /* the batches rewritten in place are decoded again: the input merges as before */
            pprof_merger *m1 = NULL, *m2 = NULL;
            pprof_buffer c = {0}, d = {0};
            bool ok = !pprof_merger_new(NULL, &m1, &err) && !pprof_merger_new(NULL, &m2, &err) &&
                      !pprof_merger_add(m1, p, NULL, &err) &&
                      !pprof_merger_add_input(m2, in, NULL, &err) &&
                      !pprof_merger_write_memory(m1, &raw, &c, NULL, &err) &&
                      !pprof_merger_write_memory(m2, &raw, &d, NULL, &err) && c.len == d.len &&
                      !memcmp(c.data, d.data, c.len);
            tap_ok(&T, ok, "an edited merge input still merges to the profile's bytes");
            pprof_merger_free(m1);
            pprof_merger_free(m2);
            pprof_buffer_free(&c);
            pprof_buffer_free(&d);
        }
        pprof_buffer_free(&a);
        pprof_buffer_free(&b);
        pprof_merge_input_free(in);
    }
    pprof_buffer_free(&enc);
    pprof_profile_free(base);
    pprof_profile_free(p);
}

/* Serializes b (then frees it) and edits the result with o twice, as one profile and as a merge
 * input a batch at a time; the bytes must be the same. ok: b was built without error. */
static void
batched_is_whole(pprof_builder *b, bool ok, const pprof_edit_options *o, const char *what)
{
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_buffer enc = {0}, whole = {0}, batched = {0};
    pprof_profile *p = NULL;
    pprof_merge_input *in = NULL;
    pprof_error err;
    ok = ok && !pprof_builder_write_memory(b, 0, &raw, &enc, &err) &&
         !pprof_profile_read_memory(enc.data, enc.len, NULL, &p, &err) &&
         !pprof_merge_input_read_memory(enc.data, enc.len, NULL, &in, &err);
    pprof_builder_free(b);
    ok = ok && !pprof_edit_write_memory(p, o, &raw, &whole, &err) &&
         !pprof_edit_input_write_memory(in, o, &raw, &batched, &err);
    tap_ok(&T, ok && whole.len == batched.len && !memcmp(whole.data, batched.data, whole.len),
           "%s: the batches give the bytes of the whole profile (%zu, %zu bytes)", what, whole.len,
           batched.len);
    pprof_buffer_free(&enc);
    pprof_buffer_free(&whole);
    pprof_buffer_free(&batched);
    pprof_profile_free(p);
    pprof_merge_input_free(in);
}

/* A builder of one sample type (NULL, with err set, when it cannot be made). */
static pprof_builder *
one_type_builder(const char *type, const char *unit, pprof_error *err)
{
    pprof_builder_value_type st[1] = {{type, unit}};
    pprof_builder_options bo;
    pprof_builder_options_init(&bo);
    bo.sample_types = st;
    bo.n_sample_types = 1;
    pprof_builder *b = NULL;
    return pprof_builder_new(&bo, &b, err) ? NULL : b;
}

/* Two batches whose tagroot frames differ in content but not in number: 65536 samples of
 * tenant=a, then 65536 of tenant=b. The merger may carry its lookups over from one batch to the
 * next only when the tables are the same; here they are not. */
static void
test_batches_with_other_tables(void)
{
    pprof_error err;
    pprof_builder *b = one_type_builder("samples", "count", &err);
    if (!tap_ok(&T, b != NULL, "builder"))
        return;
    pprof_builder_str name, file, tenant, n, val[2];
    pprof_builder_fn fn;
    pprof_builder_loc loc;
    pprof_builder_intern_cstr(b, "main.f", &name, &err);
    pprof_builder_intern_cstr(b, "f.go", &file, &err);
    pprof_builder_intern_cstr(b, "tenant", &tenant, &err);
    pprof_builder_intern_cstr(b, "n", &n, &err);
    pprof_builder_intern_cstr(b, "a", &val[0], &err);
    pprof_builder_intern_cstr(b, "b", &val[1], &err);
    pprof_builder_function(b, name, name, file, 1, &fn, &err);
    pprof_builder_line ln = {fn, 3, 0};
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    pprof_builder_location(b, nomap, 0, &ln, 1, false, &loc, &err);
    bool ok = true;
    for (unsigned i = 0; ok && i < 2 * 65536; i++) {
        pprof_builder_label lb[2] = {{tenant, val[i / 65536], 0, PPROF_BUILDER_NONE},
                                     {n, PPROF_BUILDER_NONE, (int64_t)i, PPROF_BUILDER_NONE}};
        int64_t v = 1;
        ok = !pprof_builder_add_sample(b, &v, 1, &loc, 1, lb, 2, &err);
    }
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.tag_root = "tenant";
    batched_is_whole(b, ok, &o, "tagroot frames that differ by batch");
}

/* n identical samples of value 1 (one frame, no labels), raw-encoded (free() it). The builder
 * sums identical samples, so it makes one and the others are appended as encoded samples
 * (Profile.sample, field 2: location_id [1], value [1]). */
static uint8_t *
dup_profile(unsigned n, size_t *len)
{
    pprof_error err;
    pprof_builder *b = one_type_builder("samples", "count", &err);
    if (!b)
        return NULL;
    pprof_builder_str name, file;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    pprof_builder_fn fn;
    pprof_builder_loc loc;
    pprof_builder_intern_cstr(b, "main.f", &name, &err);
    pprof_builder_intern_cstr(b, "f.go", &file, &err);
    pprof_builder_function(b, name, name, file, 1, &fn, &err);
    pprof_builder_line ln = {fn, 3, 0};
    pprof_builder_location(b, nomap, 0, &ln, 1, false, &loc, &err);
    int64_t v = 1;
    pprof_buffer one = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    bool ok = !pprof_builder_add_sample(b, &v, 1, &loc, 1, NULL, 0, &err) &&
              !pprof_builder_write_memory(b, 0, &wo, &one, &err);
    pprof_builder_free(b);
    static const uint8_t sample[] = {0x12, 0x06, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x01};
    *len = one.len + (n - 1) * sizeof(sample);
    uint8_t *d = ok ? malloc(*len) : NULL;
    if (d) {
        memcpy(d, one.data, one.len);
        for (unsigned i = 1; i < n; i++)
            memcpy(d + one.len + (i - 1) * sizeof(sample), sample, sizeof(sample));
    }
    pprof_buffer_free(&one);
    return d;
}

/* Three batches where the merger must not look a location up ahead: L1 (mapping M, address A)
 * and L2 (no mapping, raw address A, the same line) key alike exactly when M is left out.
 * Batch 1 has a stack max_depth cuts (so its tables are the batch's own) and uses L2; batch 2
 * uses neither (so M, unused, is dropped from it); batch 3 uses L1. Looking L1 up during batch
 * 2 would find L2's merged location, and batch 3 would inherit that. */
static void
test_batches_mapping_dropped(void)
{
    pprof_error err;
    pprof_builder *b = one_type_builder("samples", "count", &err);
    if (!tap_ok(&T, b != NULL, "builder"))
        return;
    pprof_builder_str fname, gname, dname, file, bin0, bin1, n, none = PPROF_BUILDER_NONE;
    pprof_builder_intern_cstr(b, "main.f", &fname, &err);
    pprof_builder_intern_cstr(b, "main.g", &gname, &err);
    pprof_builder_intern_cstr(b, "main.deep", &dname, &err);
    pprof_builder_intern_cstr(b, "f.go", &file, &err);
    pprof_builder_intern_cstr(b, "/bin/main", &bin0, &err);
    pprof_builder_intern_cstr(b, "/lib/m.so", &bin1, &err);
    pprof_builder_intern_cstr(b, "n", &n, &err);
    pprof_builder_mapping_desc md[2] = {{0x400000, 0x500000, 0, bin0, none, true, true, true, true},
                                        {0x1000, 0x2000, 0, bin1, none, true, true, true, true}};
    pprof_builder_map m0, m1, nomap = PPROF_BUILDER_NONE;
    pprof_builder_fn f, g, d;
    pprof_builder_mapping(b, &md[0], &m0, &err);
    pprof_builder_mapping(b, &md[1], &m1, &err);
    pprof_builder_function(b, fname, fname, file, 1, &f, &err);
    pprof_builder_function(b, gname, gname, file, 1, &g, &err);
    pprof_builder_function(b, dname, dname, file, 1, &d, &err);
    pprof_builder_line lf = {f, 7, 0}, lg = {g, 9, 0};
    pprof_builder_loc l1, l2, lgl, deep[10];
    pprof_builder_location(b, m1, 0x1500, &lf, 1, false, &l1, &err);
    pprof_builder_location(b, nomap, 0x1500, &lf, 1, false, &l2, &err);
    pprof_builder_location(b, nomap, 0x10, &lg, 1, false, &lgl, &err);
    bool ok = true;
    for (int i = 0; i < 10; i++) {
        pprof_builder_line ld = {d, 100 + i, 0};
        /* the root frame is in the main binary, so that mapping (the first) is written */
        ok = ok && !pprof_builder_location(b, i == 9 ? m0 : nomap, 0x400100 + (uint64_t)i, &ld, 1,
                                           false, &deep[i], &err);
    }
    int64_t v = 1;
    ok = ok && !pprof_builder_add_sample(b, &v, 1, deep, 10, NULL, 0, &err);
    for (unsigned i = 1; ok && i < 3 * 65536; i++) {
        pprof_builder_label lb = {n, PPROF_BUILDER_NONE, (int64_t)i, PPROF_BUILDER_NONE};
        const pprof_builder_loc *at = i < 65536 ? &l2 : i < 2 * 65536 ? &lgl : &l1;
        ok = !pprof_builder_add_sample(b, &v, 1, at, 1, &lb, 1, &err);
    }
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.max_depth = 4;
    batched_is_whole(b, ok, &o, "a mapping one batch drops");
}

/* A broken sample in a later batch: decoded ahead on another thread or in turn, the edit fails
 * the same way, naming the same sample, after the batches before it. */
static void
test_batch_error_ahead(void)
{
    size_t len = 0;
    uint8_t *enc = dup_profile(150000, &len);
    if (!tap_ok(&T, enc != NULL, "a profile of 150000 samples"))
        return;
    /* sample 100000's location id becomes an unterminated varint (see dup_profile) */
    enc[len - (150000 - 100000) * 8 + 4] = 0x80;
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_status st[2];
    pprof_error err[2];
    for (int k = 0; k < 2; k++) {
        pprof_merge_input *in = NULL;
        pprof_buffer b = {0};
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.threads = k ? 3 : 1;
        memset(&err[k], 0, sizeof(err[k]));
        st[k] = pprof_merge_input_read_memory(enc, len, NULL, &in, &err[k]);
        if (!st[k])
            st[k] = pprof_edit_input_write_memory(in, &o, &raw, &b, &err[k]);
        pprof_buffer_free(&b);
        pprof_merge_input_free(in);
    }
    tap_ok(&T,
           st[0] == PPROF_E_WIRE && st[1] == st[0] && err[0].offset == err[1].offset &&
               !strcmp(err[0].path, err[1].path) && !strcmp(err[0].message, err[1].message) &&
               strstr(err[0].path, "sample[100000]"),
           "a broken sample in batch 2: the same error with 1 and 3 threads (%s, %s: %s)",
           pprof_status_name(st[1]), err[1].path, err[1].message);
    free(enc);
}

/* ---------------------------------------------------------------- focus on the wire */

static void
no_step(void *ctx, const pprof_edit_step *s)
{
    (void)ctx, (void)s;
}

/* A profile of n samples of one value: sample i is on location 1 (main.keep) when i % 3 == 0,
 * else on location 2 (main.drop), given as wire bytes; sample n / 2 is `odd` instead (its
 * body, without the sample's tag and length). */
static uint8_t *
focus_profile(unsigned n, const uint8_t *odd, size_t odd_len, size_t *len)
{
    pprof_error err;
    pprof_builder *b = one_type_builder("samples", "count", &err);
    if (!b)
        return NULL;
    pprof_builder_str name[2], file;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    pprof_builder_fn fn[2];
    pprof_builder_loc loc[2];
    bool ok = !pprof_builder_intern_cstr(b, "main.keep", &name[0], &err) &&
              !pprof_builder_intern_cstr(b, "main.drop", &name[1], &err) &&
              !pprof_builder_intern_cstr(b, "f.go", &file, &err);
    for (int i = 0; ok && i < 2; i++) {
        ok = !pprof_builder_function(b, name[i], name[i], file, 1, &fn[i], &err);
        pprof_builder_line ln = {fn[i], 3, 0};
        ok = ok && !pprof_builder_location(b, nomap, 0, &ln, 1, false, &loc[i], &err);
    }
    /* one sample on each location, so that the builder writes both */
    int64_t v = 1;
    ok = ok && !pprof_builder_add_sample(b, &v, 1, &loc[0], 1, NULL, 0, &err) &&
         !pprof_builder_add_sample(b, &v, 1, &loc[1], 1, NULL, 0, &err);
    pprof_buffer head = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    ok = ok && !pprof_builder_write_memory(b, 0, &wo, &head, &err);
    pprof_builder_free(b);
    /* location_id (packed), value, and a label of strings 1 and 2 (the sample type's) */
    static const uint8_t keep[] = {0x12, 0x0c, 0x0a, 0x01, 0x01, 0x12, 0x01,
                                   0x01, 0x1a, 0x04, 0x08, 0x01, 0x10, 0x02};
    static const uint8_t drop[] = {0x12, 0x06, 0x0a, 0x01, 0x02, 0x12, 0x01, 0x01};
    uint8_t *d = ok ? malloc(head.len + (size_t)n * sizeof(keep) + odd_len + 16) : NULL;
    size_t at = 0;
    if (d) {
        memcpy(d, head.data, head.len);
        at = head.len;
        for (unsigned i = 2; i < n; i++) {
            if (i == n / 2) {
                d[at++] = 0x12;
                d[at++] = (uint8_t)odd_len; /* short bodies only */
                memcpy(d + at, odd, odd_len);
                at += odd_len;
            } else if (i % 3 == 0) {
                memcpy(d + at, keep, sizeof(keep));
                at += sizeof(keep);
            } else {
                memcpy(d + at, drop, sizeof(drop));
                at += sizeof(drop);
            }
        }
    }
    pprof_buffer_free(&head);
    *len = at;
    return d;
}

/* Focus and ignore on a merge input read the dropped samples' location ids from the wire and
 * decode only the kept ones (edit-prefilter.c). The result must be what decoding them all
 * gives, with the step report on (which turns that off): the same bytes, and for a profile
 * whose trouble lies in a dropped sample, the same error. */
static void
test_focus_on_the_wire(void)
{
    static const struct {
        const char *what;
        uint8_t body[16];
        size_t len;
        pprof_status want;
    } odd[] = {
        {"a dropped sample like the others", {0x0a, 0x01, 0x02, 0x12, 0x01, 0x01}, 6, PPROF_OK},
        {"ids not packed", {0x08, 0x02, 0x08, 0x02, 0x12, 0x01, 0x01}, 7, PPROF_OK},
        {"an empty packed run", {0x0a, 0x00, 0x0a, 0x01, 0x02, 0x10, 0x01}, 7, PPROF_OK},
        {"a kept sample, two-byte length of the run",
         {0x0a, 0x81, 0x00, 0x01, 0x10, 0x01},
         6,
         PPROF_OK},
        {"an unknown field", {0x0a, 0x01, 0x02, 0x12, 0x01, 0x01, 0x20, 0x05}, 8, PPROF_OK},
        /* ids in more bytes than they need: up to 4 are read at once, more the general way */
        {"a two-byte id", {0x0a, 0x02, 0x82, 0x00, 0x12, 0x01, 0x01}, 7, PPROF_OK},
        {"a four-byte id", {0x0a, 0x04, 0x82, 0x80, 0x80, 0x00, 0x12, 0x01, 0x01}, 9, PPROF_OK},
        {"a five-byte id",
         {0x0a, 0x05, 0x82, 0x80, 0x80, 0x80, 0x00, 0x12, 0x01, 0x01},
         10,
         PPROF_OK},
        {"a kept sample, a five-byte id first",
         {0x0a, 0x06, 0x81, 0x80, 0x80, 0x80, 0x00, 0x02, 0x12, 0x01, 0x01},
         11,
         PPROF_OK},
        {"a five-byte id that names none",
         {0x0a, 0x05, 0x82, 0x80, 0x80, 0x80, 0x01, 0x12, 0x01, 0x01},
         10,
         PPROF_E_INVALID},
        {"a four-byte id that names none",
         {0x0a, 0x04, 0x82, 0x80, 0x80, 0x01, 0x12, 0x01, 0x01},
         9,
         PPROF_E_INVALID},
        {"a location id that names none", {0x0a, 0x01, 0x09, 0x12, 0x01, 0x01}, 6, PPROF_E_INVALID},
        {"location id 0", {0x0a, 0x01, 0x00, 0x12, 0x01, 0x01}, 6, PPROF_E_INVALID},
        {"two values for one sample type",
         {0x0a, 0x01, 0x02, 0x12, 0x02, 0x01, 0x01},
         7,
         PPROF_E_INVALID},
        {"no value", {0x0a, 0x01, 0x02}, 3, PPROF_E_INVALID},
        {"a label key out of the string table",
         {0x0a, 0x01, 0x02, 0x12, 0x01, 0x01, 0x1a, 0x03, 0x08, 0xe7, 0x07},
         11,
         PPROF_E_INVALID},
        {"a label num_unit out of the string table",
         {0x0a, 0x01, 0x02, 0x12, 0x01, 0x01, 0x1a, 0x06, 0x08, 0x01, 0x18, 0x01, 0x20, 0x63},
         14,
         PPROF_E_INVALID},
        {"a varint cut by the end of its run",
         {0x0a, 0x01, 0x82, 0x12, 0x01, 0x01},
         6,
         PPROF_E_WIRE},
        {"a run longer than the sample", {0x0a, 0x09, 0x02, 0x12, 0x01, 0x01}, 6, PPROF_E_WIRE},
        {"location ids of the wrong wire type",
         {0x0d, 0x02, 0x00, 0x00, 0x00, 0x12, 0x01, 0x01},
         8,
         PPROF_E_WIRE},
    };
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    unsigned n = UNDER_SANITIZER ? 40000 : 100000; /* two batches of the usual path */
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        size_t len = 0;
        uint8_t *enc = focus_profile(n, odd[i].body, odd[i].len, &len);
        if (!tap_ok(&T, enc != NULL, "%s: a profile of %u samples", odd[i].what, n))
            continue;
        for (int k = 0; k < 4; k++) { /* focus, ignore; 1 thread, 3 */
            pprof_status st[2];
            pprof_error err[2];
            pprof_buffer out[2] = {{0}, {0}};
            for (int slow = 0; slow < 2; slow++) {
                pprof_merge_input *in = NULL;
                pprof_edit_options o;
                pprof_edit_options_init(&o);
                if (k & 1)
                    o.ignore = "main\\.drop";
                else
                    o.focus = "main\\.keep";
                o.threads = k & 2 ? 3 : 1;
                o.step = slow ? no_step : NULL;
                memset(&err[slow], 0, sizeof(err[slow]));
                st[slow] = pprof_merge_input_read_memory(enc, len, NULL, &in, &err[slow]);
                if (!st[slow])
                    st[slow] = pprof_edit_input_write_memory(in, &o, &raw, &out[slow], &err[slow]);
                pprof_merge_input_free(in);
            }
            bool same =
                st[0] == st[1] && st[0] == odd[i].want &&
                (st[0] ? err[0].offset == err[1].offset && !strcmp(err[0].path, err[1].path) &&
                             !strcmp(err[0].message, err[1].message)
                       : out[0].len == out[1].len && !memcmp(out[0].data, out[1].data, out[0].len));
            tap_ok(&T, same, "%s, %s, %d thread(s): %s as when every sample is decoded (%s %s)",
                   odd[i].what, k & 1 ? "ignore" : "focus", k & 2 ? 3 : 1,
                   odd[i].want ? "the same error" : "the same bytes", pprof_status_name(st[0]),
                   st[0] ? err[0].message : "");
            pprof_buffer_free(&out[0]);
            pprof_buffer_free(&out[1]);
        }
        free(enc);
    }
    /* the limits are totals over every sample, the dropped ones included */
    size_t len = 0;
    uint8_t *enc = focus_profile(n, odd[0].body, odd[0].len, &len);
    pprof_status st[2] = {PPROF_OK, PPROF_OK};
    for (int slow = 0; enc && slow < 2; slow++) {
        pprof_read_options ro;
        pprof_read_options_init(&ro);
        ro.max_stack_entries = n - 10;
        pprof_merge_input *in = NULL;
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.focus = "main\\.keep";
        o.step = slow ? no_step : NULL;
        pprof_buffer out = {0};
        pprof_error err;
        st[slow] = pprof_merge_input_read_memory(enc, len, &ro, &in, &err);
        if (!st[slow])
            st[slow] = pprof_edit_input_write_memory(in, &o, &raw, &out, &err);
        pprof_buffer_free(&out);
        pprof_merge_input_free(in);
    }
    tap_ok(&T, enc && st[0] == PPROF_E_LIMIT && st[1] == st[0],
           "focus: more stack entries than the limit in all, if not in the kept samples: %s",
           pprof_status_name(st[0]));
    free(enc);
}

/* The same on stacks of ids of one to three bytes (20,000 locations, a function each) with
 * labels, where a focus keeps about a quarter of the samples. */
static void
test_focus_on_the_wire_long_stacks(void)
{
    enum { NL = 20000 };
    unsigned n = UNDER_SANITIZER ? 33000 : 60000;
    pprof_error err;
    pprof_builder *b = one_type_builder("cpu", "nanoseconds", &err);
    if (!tap_ok(&T, b != NULL, "builder"))
        return;
    pprof_builder_loc *locs = malloc(NL * sizeof(*locs));
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    pprof_builder_str file, key, val[3], unit;
    bool ok = locs && !pprof_builder_intern_cstr(b, "f.go", &file, &err) &&
              !pprof_builder_intern_cstr(b, "thread", &key, &err) &&
              !pprof_builder_intern_cstr(b, "bytes", &unit, &err);
    for (int i = 0; ok && i < 3; i++) {
        char v[8];
        snprintf(v, sizeof(v), "w%d", i);
        ok = !pprof_builder_intern_cstr(b, v, &val[i], &err);
    }
    for (int i = 0; ok && i < NL; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        pprof_builder_str nm;
        pprof_builder_fn fn;
        if (pprof_builder_intern_cstr(b, name, &nm, &err) ||
            pprof_builder_function(b, nm, nm, file, 1, &fn, &err)) {
            ok = false;
            break;
        }
        pprof_builder_line ln = {fn, 3, 0};
        ok = !pprof_builder_location(b, nomap, 0, &ln, 1, false, &locs[i], &err);
    }
    for (unsigned i = 0; ok && i < n; i++) {
        pprof_builder_loc stack[12];
        size_t depth = 1 + rnd(12);
        for (size_t k = 0; k < depth; k++)
            stack[k] = locs[rnd(NL)];
        int64_t v = 1 + rnd(1000);
        pprof_builder_label lb[2] = {{key, val[rnd(3)], 0, PPROF_BUILDER_NONE},
                                     {unit, PPROF_BUILDER_NONE, 1 + rnd(100000), unit}};
        ok = !pprof_builder_add_sample(b, &v, 1, stack, depth, lb, rnd(3), &err);
    }
    pprof_buffer enc = {0};
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    ok = ok && !pprof_builder_write_memory(b, 0, &raw, &enc, &err);
    pprof_builder_free(b);
    free(locs);
    if (!tap_ok(&T, ok, "a profile of %u samples on %d locations", n, NL))
        return;
    for (int k = 0; k < 2; k++) {
        pprof_status st2[2];
        pprof_buffer out[2] = {{0}, {0}};
        for (int slow = 0; slow < 2; slow++) {
            pprof_merge_input *in = NULL;
            pprof_edit_options o;
            pprof_edit_options_init(&o);
            o.focus = "^f1\\d\\d\\d$";
            o.threads = k ? 3 : 1;
            o.step = slow ? no_step : NULL;
            st2[slow] = pprof_merge_input_read_memory(enc.data, enc.len, NULL, &in, &err);
            if (!st2[slow])
                st2[slow] = pprof_edit_input_write_memory(in, &o, &raw, &out[slow], &err);
            pprof_merge_input_free(in);
        }
        tap_ok(&T,
               !st2[0] && !st2[1] && out[0].len == out[1].len && out[0].len < enc.len * 3 / 4 &&
                   out[0].len > enc.len / 10 && !memcmp(out[0].data, out[1].data, out[0].len),
               "focus on 1,000 of 20,000 locations, %d thread(s): the bytes of decoding every "
               "sample (%zu of %zu bytes)",
               k ? 3 : 1, out[0].len, enc.len);
        pprof_buffer_free(&out[0]);
        pprof_buffer_free(&out[1]);
    }
    /* A dropped sample first whose one-byte run of ids ends in a cut varint: read on, past the
     * run, it would be id 1 + (0x12 << 7) = 2305, a location of this profile (f2304, not
     * focused), from the tag of the value that follows. */
    static const uint8_t cut[] = {0x12, 0x06, 0x0a, 0x01, 0x81, 0x12, 0x01, 0x01};
    uint8_t *bad = malloc(sizeof(cut) + enc.len);
    pprof_status st3[2] = {PPROF_OK, PPROF_OK};
    pprof_error err3[2];
    for (int slow = 0; bad && slow < 2; slow++) {
        memcpy(bad, cut, sizeof(cut));
        memcpy(bad + sizeof(cut), enc.data, enc.len);
        pprof_merge_input *in = NULL;
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.focus = "^f1\\d\\d\\d$";
        o.step = slow ? no_step : NULL;
        pprof_buffer out = {0};
        memset(&err3[slow], 0, sizeof(err3[slow]));
        st3[slow] =
            pprof_merge_input_read_memory(bad, sizeof(cut) + enc.len, NULL, &in, &err3[slow]);
        if (!st3[slow])
            st3[slow] = pprof_edit_input_write_memory(in, &o, &raw, &out, &err3[slow]);
        pprof_buffer_free(&out);
        pprof_merge_input_free(in);
    }
    tap_ok(&T,
           bad && st3[0] == PPROF_E_WIRE && st3[1] == st3[0] && err3[0].offset == err3[1].offset &&
               !strcmp(err3[0].message, err3[1].message),
           "an id cut by the end of its run, that would name a location read on: the error of "
           "decoding every sample (%s: %s)",
           pprof_status_name(st3[0]), err3[0].message);
    free(bad);
    pprof_buffer_free(&enc);
}

/* go tool pprof merges identical input samples on loading, so ScaleN rounds their sum: two
 * samples of 1 scaled by 0.5 give round(2 * 0.5) = 1, not round(0.5) * 2 = 2. The same across
 * the batches of a merge input: 65537 samples of 1 by 0.4 give round(26214.8) = 26215
 * (rounding a batch's sum would give 26214 + 0, rounding each sample 0). */
static void
test_scale_rounds_input_sums(void)
{
    static const struct {
        unsigned n;
        double f;
        int64_t want;
    } cases[] = {{2, 0.5, 1}, {3, 0.5, 2}, {65537, 0.4, 26215}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        pprof_profile *p = NULL, *q = NULL, *r = NULL;
        pprof_merge_input *in = NULL;
        pprof_error err;
        pprof_edit_scale sc = {NULL, cases[i].f};
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.scale = &sc;
        o.n_scale = 1;
        int64_t a = -1, b = -1;
        int64_t t = -1;
        size_t len = 0;
        uint8_t *enc = dup_profile(cases[i].n, &len);
        if (enc && !pprof_profile_read_memory(enc, len, NULL, &p, &err))
            totals(p, &t, 1);
        tap_ok(&T, t == cases[i].n && p && nsamples(p) == cases[i].n,
               "input: %u samples of 1 (%zu, total %lld)", cases[i].n, p ? nsamples(p) : 0,
               (long long)t);
        if (p && !pprof_edit(p, &o, &q, &err))
            totals(q, &a, 1);
        if (p && !pprof_merge_input_read_memory(enc, len, NULL, &in, &err) &&
            !pprof_edit_input(in, &o, &r, &err))
            totals(r, &b, 1);
        tap_ok(&T, a == cases[i].want && b == cases[i].want,
               "%u samples of 1, scale %g: %lld as Go (profile %lld, merge input %lld)", cases[i].n,
               cases[i].f, (long long)cases[i].want, (long long)a, (long long)b);
        free(enc);
        pprof_profile_free(p);
        pprof_profile_free(q);
        pprof_profile_free(r);
        pprof_merge_input_free(in);
    }
}

/* A profile of samples with times: 100 in "a" 10 ms apart from 2026-12-07T00:00:00Z, then 100
 * in "b", and 5 in "c" without a time. Encoded into *enc (the caller frees it). */
static pprof_profile *
timed_profile(uint8_t **enc, size_t *len)
{
    pprof_builder_value_type vt[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = vt;
    bo.n_sample_types = 2;
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&bo, &b, &err))
        return NULL;
    pprof_builder_loc loc[3];
    pprof_builder_str none = PPROF_BUILDER_NONE;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    for (int i = 0; i < 3; i++) {
        pprof_builder_str s;
        pprof_builder_line line = {{0}, 1, 0};
        char name[2] = {(char)('a' + i), 0};
        if (pprof_builder_intern_cstr(b, name, &s, &err) ||
            pprof_builder_function(b, s, s, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x100 + (uint64_t)i, &line, 1, false, &loc[i], &err))
            return NULL;
    }
    pprof_builder_label l = {{0}, PPROF_BUILDER_NONE, 0, {0}};
    if (pprof_builder_intern_cstr(b, "timestamp_unix_nano", &l.key, &err) ||
        pprof_builder_intern_cstr(b, "nanoseconds", &l.num_unit, &err))
        return NULL;
    for (int k = 0; k < 205; k++) {
        int64_t v[2] = {1, 10000000};
        l.num = INT64_C(1796601600000000000) + (int64_t)k * 10000000;
        if (pprof_builder_add_sample(b, v, 2,
                                     &loc[k < 100   ? 0
                                          : k < 200 ? 1
                                                    : 2],
                                     1, &l, k < 200 ? 1 : 0, &err))
            return NULL;
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_profile *p = NULL;
    if (!pprof_builder_write_memory(b, 0, &wo, &buf, &err))
        pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err);
    pprof_builder_free(b);
    *enc = buf.data;
    *len = buf.len;
    return p;
}

/* time_from / time_to keep [from, to) by the samples' timestamp_unix_nano labels, relative or
 * RFC 3339; drop_timestamps folds the samples back; bad times are PPROF_E_ARG. */
static void
test_time(void)
{
    uint8_t *enc = NULL;
    size_t len = 0;
    pprof_profile *p = timed_profile(&enc, &len);
    tap_ok(&T, p && nsamples(p) == 201,
           "a profile of 200 samples with times and 5 without (folded: 201)");
    if (!p)
        return;
    static const struct {
        const char *from, *to;
        int64_t want;
        size_t samples;
    } cases[] = {
        {"0", "1", 100, 100},
        {"0", "1.0", 100, 100},
        {NULL, "0.5", 50, 50},
        {"1.985", NULL, 1, 1},
        {"2026-12-07T00:00:01Z", NULL, 100, 100},
        {"2026-12-07T01:00:00.5+01:00", "2026-12-07t00:00:01.255z", 76, 76},
        {"2026-12-06T19:00:00.99-05:00", "2026-12-07 00:00:01.01Z", 2, 2},
        {"3", NULL, 0, 0},
        {"", "", 205, 201},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.time_from = cases[i].from;
        o.time_to = cases[i].to;
        pprof_profile *q = edit_checked(p, &o, "time");
        int64_t t[2] = {-1, -1};
        if (q)
            totals(q, t, 2);
        pprof_merge_input *in = NULL;
        pprof_profile *r = NULL;
        pprof_error err;
        int64_t u[2] = {-1, -1};
        if (!pprof_merge_input_read_memory(enc, len, NULL, &in, &err) &&
            !pprof_edit_input(in, &o, &r, &err))
            totals(r, u, 2);
        tap_ok(&T, t[0] == cases[i].want && q && nsamples(q) == cases[i].samples && u[0] == t[0],
               "time [%s, %s): %lld samples (want %lld; merge input %lld)",
               cases[i].from ? cases[i].from : "-", cases[i].to ? cases[i].to : "-",
               (long long)t[0], (long long)cases[i].want, (long long)u[0]);
        pprof_profile_free(q);
        pprof_profile_free(r);
        pprof_merge_input_free(in);
    }
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.drop_timestamps = true;
    pprof_profile *q = edit_checked(p, &o, "drop_timestamps");
    int64_t t[2] = {0, 0};
    if (q)
        totals(q, t, 2);
    bool labels = false;
    for (size_t i = 0; q && i < nsamples(q); i++)
        labels |= pprof_profile_sample(q, i).n_label != 0;
    tap_ok(&T, q && nsamples(q) == 3 && t[0] == 205 && t[1] == 2050000000 && !labels,
           "drop_timestamps: the samples folded into 3, totals kept, no label");
    pprof_profile_free(q);
    static const char *bad[] = {"yesterday",
                                "-1",
                                "1e3",
                                "2026-02-29T00:00:00Z",
                                "2026-12-07T24:00:00Z",
                                "2026-12-07T00:00:00",
                                ".",
                                "2026-12-07T00:00:00+1:00",
                                "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pprof_edit_options_init(&o);
        o.time_to = bad[i];
        pprof_profile *x = NULL;
        pprof_error err;
        pprof_status st = pprof_edit(p, &o, &x, &err);
        tap_ok(&T, st == PPROF_E_ARG && strstr(err.message, "time_to") && !x,
               "time_to '%s': PPROF_E_ARG naming the option (%d: %s)", bad[i], st,
               st ? err.message : "");
        pprof_profile_free(x);
    }
    /* a profile without times: a range is an error, not an empty profile */
    pprof_profile *plain = NULL;
    pprof_edit_options_init(&o);
    o.drop_timestamps = true;
    pprof_error err;
    pprof_status st = pprof_edit(p, &o, &plain, &err);
    pprof_edit_options_init(&o);
    o.time_from = "0";
    pprof_profile *x = NULL;
    if (!st)
        st = pprof_edit(plain, &o, &x, &err);
    tap_ok(&T, st == PPROF_E_ARG && strstr(err.message, "timestamp_unix_nano") && !x,
           "a range over a profile without times: PPROF_E_ARG (%s)", st ? err.message : "");
    pprof_profile_free(x);
    pprof_profile_free(plain);
    pprof_profile_free(p);
    free(enc);
}

static void
test_properties(const pprof_profile *p, const char *name)
{
    /* focus and ignore on one pattern: nothing left */
    static const char *pats[] = {"main", "runtime", ".", "json|gzip"};
    for (size_t i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        o.focus = o.ignore = pats[i];
        char what[128];
        snprintf(what, sizeof(what), "%s: focus = ignore = %s", name, pats[i]);
        pprof_profile *q = edit_checked(p, &o, what);
        if (q)
            tap_ok(&T, nsamples(q) == 0, "%s: empty (%zu samples)", what, nsamples(q));
        pprof_profile_free(q);
    }
    /* operations that match nothing change no total */
    static const struct {
        const char *name;
        size_t off;
    } none[] = {{"ignore", offsetof(pprof_edit_options, ignore)},
                {"hide", offsetof(pprof_edit_options, hide)},
                {"prune_from", offsetof(pprof_edit_options, prune_from)},
                {"drop_frames", offsetof(pprof_edit_options, drop_frames)},
                {"tagignore", offsetof(pprof_edit_options, tag_ignore)},
                {"taghide", offsetof(pprof_edit_options, tag_hide)}};
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    if (nt > 16)
        nt = 16;
    int64_t a[16], b[16];
    totals(p, a, nt);
    for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++) {
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        *(const char **)((char *)&o + none[i].off) = "^no such name in any profile$";
        char what[128];
        snprintf(what, sizeof(what), "%s: %s matching nothing", name, none[i].name);
        pprof_profile *q = edit_checked(p, &o, what);
        if (q) {
            totals(q, b, nt);
            tap_ok(&T, !memcmp(a, b, nt * sizeof(*a)), "%s: totals unchanged", what);
        }
        pprof_profile_free(q);
    }
}

int
main(void)
{
    test_gate();
    test_units_and_hash();
    test_batches();
    test_batches_with_other_tables();
    test_batch_error_ahead();
    test_focus_on_the_wire();
    test_focus_on_the_wire_long_stacks();
    test_batches_mapping_dropped();
    test_scale_rounds_input_sums();
    test_time();
    pprof_profile *p = gen_profile(3000, 7);
    tap_ok(&T, p != NULL, "generated profile");
    const char *dump = getenv("EDIT_GEN_OUT"); /* for comparing by hand with go tool pprof */
    if (p && dump) {
        pprof_error e2;
        pprof_profile_write_file(p, NULL, dump, &e2);
    }
    if (p) {
        test_noop(p, "generated");
        test_each_operation(p);
        test_properties(p, "generated");
    }
    char path[1024];
    snprintf(path, sizeof(path), "%s/parca/query-profile-with-labels.pb.gz", tap_real_corpus());
    pprof_profile *r = NULL;
    pprof_error err;
    if (!pprof_profile_read_file(path, NULL, &r, &err)) {
        test_noop(r, "query-profile-with-labels");
        test_properties(r, "query-profile-with-labels");
    } else
        tap_diag("skipping the real profile: %s", err.message);
    pprof_profile_free(r);
    pprof_profile_free(p);
    return tap_done(&T);
}
