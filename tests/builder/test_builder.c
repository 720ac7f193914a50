/* Builder API: interning, aggregation, open samples, stale handles, caps, stats, reset, runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bhelp.h"

static const pprof_builder_value_type types2[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};

static pprof_builder *
mk(uint32_t flags, pprof_builder_options *tweak)
{
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    if (tweak)
        o = *tweak;
    o.flags |= flags;
    o.sample_types = types2;
    o.n_sample_types = 2;
    o.period_type = types2[1];
    o.period = 10000000;
    o.default_sample_type = "cpu";
    pprof_builder *b = NULL;
    pprof_error e;
    if (pprof_builder_new(&o, &b, &e) != PPROF_OK) {
        printf("# builder_new: %s\n", e.message);
        exit(1);
    }
    return b;
}

static pprof_builder_str
S(pprof_builder *b, const char *s)
{
    pprof_builder_str h = {0};
    pprof_builder_intern_cstr(b, s, &h, NULL);
    return h;
}

static pprof_builder_loc
L(pprof_builder *b, const char *fn, int64_t line, uint64_t addr)
{
    pprof_builder_fn f = {0};
    pprof_builder_loc l = {0};
    pprof_builder_function(b, S(b, fn), S(b, fn), S(b, "main.c"), 1, &f, NULL);
    pprof_builder_map m = {0};
    pprof_builder_mapping_desc md = {0x1,   0x10000000, 0,    S(b, "/bin/test"), S(b, ""), true,
                                     false, false,      false};
    pprof_builder_mapping(b, &md, &m, NULL);
    pprof_builder_line ln = {f, line, 0};
    pprof_builder_location(b, m, addr, &ln, 1, false, &l, NULL);
    return l;
}

static pprof_profile *
emit(pprof_builder *b, unsigned flags, pprof_format fmt, pprof_buffer *keep)
{
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = fmt;
    pprof_buffer buf = {0};
    pprof_error e;
    if (pprof_builder_write_memory(b, flags, &wo, &buf, &e) != PPROF_OK) {
        printf("# serialize: %s\n", e.message);
        return NULL;
    }
    pprof_profile *p = bhelp_decode(buf.data, buf.len);
    if (p && pprof_profile_source_format(p) != fmt) {
        printf("# format %d, wanted %d\n", pprof_profile_source_format(p), fmt);
        pprof_profile_free(p);
        p = NULL;
    }
    if (keep)
        *keep = buf;
    else
        pprof_buffer_free(&buf);
    return p;
}

static pprof_builder_stats
stats(pprof_builder *b)
{
    pprof_builder_stats s = PPROF_BUILDER_STATS_INIT;
    pprof_builder_get_stats(b, &s, NULL);
    return s;
}

static void
t_interning(tap *t)
{
    pprof_builder *b = mk(0, NULL);
    pprof_builder_str a = S(b, "alpha"), a2 = S(b, "alpha"), c = S(b, "beta"), z = S(b, "");
    tap_ok(t, a.h && a.h == a2.h && a.h != c.h, "same content, same string handle");
    tap_ok(t, z.h == 0, "\"\" is the zero handle");
    pprof_builder_str n = {0};
    tap_ok(t, pprof_builder_intern(b, "alpha\0x", 7, &n, NULL) == PPROF_OK && n.h != a.h,
           "length-delimited strings may hold NUL");
    pprof_builder_loc l1 = L(b, "f", 3, 0x10), l2 = L(b, "f", 3, 0x10), l3 = L(b, "f", 4, 0x10);
    tap_ok(t, l1.h && l1.h == l2.h && l1.h != l3.h, "locations dedup by content");
    pprof_builder_mapping_desc md = {0x1000, 0x2000, 0,     S(b, "/bin/x"), S(b, "abcd"),
                                     true,   false,  false, false};
    pprof_builder_map m1, m2;
    pprof_builder_mapping(b, &md, &m1, NULL);
    pprof_builder_mapping(b, &md, &m2, NULL);
    tap_ok(t, m1.h && m1.h == m2.h, "mappings dedup by content");
    md.memory_limit = 0x10;
    pprof_error e;
    tap_ok(t, pprof_builder_mapping(b, &md, &m2, &e) == PPROF_E_ARG,
           "limit below start is refused: %s", e.message);
    pprof_builder_loc l0;
    tap_ok(t,
           pprof_builder_location(b, (pprof_builder_map)PPROF_BUILDER_NONE, 0, NULL, 0, false, &l0,
                                  NULL) == PPROF_E_ARG,
           "an empty location is refused");
    pprof_builder_stats s = stats(b);
    tap_ok(t, s.strings == 4 + 8 && s.functions == 1 && s.locations == 2 && s.mappings == 2,
           "stats count interned entities (strings %llu)", (unsigned long long)s.strings);
    tap_ok(t, pprof_builder_location(b, m1, 0, NULL, 0, false, &l0, NULL) == PPROF_OK,
           "a location of a mapping needs no address or line (Go's Java profiles)");
    tap_ok(t, pprof_builder_free(b) == 0, "free reports nothing dropped");
}

static void
t_samples(tap *t)
{
    pprof_builder *b = mk(0, NULL);
    pprof_builder_loc st[3] = {L(b, "leaf", 10, 0x100), L(b, "mid", 20, 0x200),
                               L(b, "root", 30, 0x300)};
    pprof_builder_label la[2] = {{S(b, "thread"), S(b, "main"), 0, {0}},
                                 {S(b, "bytes"), {0}, 512, S(b, "bytes")}};
    pprof_builder_label lb[2] = {la[1], la[0]};
    int64_t v1[2] = {1, 100}, v2[2] = {2, 200};
    tap_ok(t,
           pprof_builder_add_sample(b, v1, 2, st, 3, la, 2, NULL) == PPROF_OK &&
               pprof_builder_add_sample(b, v2, 2, st, 3, lb, 2, NULL) == PPROF_OK,
           "two samples added");
    tap_ok(t, stats(b).samples == 1, "same stack and labels (in any order) aggregate");
    tap_ok(t,
           pprof_builder_add_sample(b, v1, 2, st, 2, la, 1, NULL) == PPROF_OK &&
               stats(b).samples == 2,
           "a different stack is a new sample");
    pprof_error e;
    tap_ok(t, pprof_builder_add_sample(b, v1, 1, st, 2, NULL, 0, &e) == PPROF_E_ARG,
           "wrong value count refused: %s", e.message);
    int64_t big[2] = {INT64_MAX, 0};
    tap_ok(t, pprof_builder_add_sample(b, big, 2, st, 3, la, 2, &e) == PPROF_E_OVERFLOW,
           "an overflowing sum is refused: %s", e.message);
    pprof_builder_add_comment(b, "built by test_builder", NULL);
    pprof_builder_set_time(b, 1700000000000000000, 1000000000, NULL);

    pprof_format fmts[3] = {PPROF_FORMAT_RAW, PPROF_FORMAT_GZIP, PPROF_FORMAT_ZSTD};
    for (int f = 0; f < 3; f++) {
        pprof_profile *p = emit(b, 0, fmts[f], NULL);
        tap_ok(t, p != NULL, "%s output decodes and validates", pprof_format_name(fmts[f]));
        if (!p)
            continue;
        pprof_header h = pprof_profile_header(p);
        bool ok = pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 2 && bhelp_total(p, 0) == 4 &&
                  bhelp_total(p, 1) == 400 && pprof_profile_count(p, PPROF_TABLE_LOCATION) == 3 &&
                  pprof_profile_count(p, PPROF_TABLE_FUNCTION) == 3 && h.period == 10000000 &&
                  bhelp_str_is(p, h.period_type.type, "cpu") &&
                  bhelp_str_is(p, h.default_sample_type, "cpu") && h.n_comment == 1 &&
                  bhelp_str_is(p, h.comment[0], "built by test_builder") &&
                  h.time_nanos == 1700000000000000000 && h.duration_nanos == 1000000000;
        pprof_sample s0 = pprof_profile_sample(p, 0);
        pprof_string leaf = bhelp_loc_name(p, s0.location_id[0]);
        ok = ok && s0.n_location_id == 3 && leaf.len == 4 && !memcmp(leaf.data, "leaf", 4) &&
             s0.n_label == 2 && s0.value[0] == 3 && s0.value[1] == 300;
        tap_ok(t, ok, "%s output holds the aggregated samples, header and names",
               pprof_format_name(fmts[f]));
        pprof_profile_free(p);
    }
    pprof_buffer x = {0}, y = {0};
    pprof_write_options raw = {.struct_size = sizeof(raw), .format = PPROF_FORMAT_RAW};
    pprof_builder_write_memory(b, 0, &raw, &x, NULL);
    pprof_builder_write_memory(b, 0, &raw, &y, NULL);
    tap_ok(t, x.len && x.len == y.len && !memcmp(x.data, y.data, x.len),
           "serializing twice without reset gives the same bytes");
    pprof_buffer_free(&x);
    pprof_buffer_free(&y);

    char path[] = "/tmp/pprof-builder-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    tap_ok(t, pprof_builder_write_file(b, PPROF_BUILDER_RESET, NULL, path, &e) == PPROF_OK,
           "serialize_file with reset");
    pprof_profile *p = NULL;
    tap_ok(t,
           pprof_profile_read_file(path, NULL, &p, NULL) == PPROF_OK &&
               pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 2 &&
               pprof_profile_source_format(p) == PPROF_FORMAT_GZIP,
           "the file holds the gzip profile");
    pprof_profile_free(p);
    unlink(path);
    pprof_builder_stats s = stats(b);
    tap_ok(t, s.samples == 0 && s.strings == 4 && s.locations == 0 && s.functions == 0,
           "after reset only configuration strings remain (%llu strings)",
           (unsigned long long)s.strings);
    p = emit(b, 0, PPROF_FORMAT_RAW, NULL);
    tap_ok(t,
           p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 0 &&
               pprof_profile_header(p).n_comment == 0 && pprof_profile_header(p).time_nanos == 0,
           "an empty profile after reset is valid and has no old header fields");
    pprof_profile_free(p);
    tap_ok(t, pprof_builder_free(b) == 0, "nothing left to drop");
}

static void
t_stale(tap *t)
{
    pprof_builder *b = mk(0, NULL);
    pprof_builder_str s = S(b, "old");
    pprof_builder_loc l = L(b, "oldfn", 1, 0x1);
    pprof_builder_fn f;
    pprof_builder_function(b, s, s, s, 0, &f, NULL);
    pprof_builder_open o;
    pprof_builder_open_begin(b, &o, NULL);
    pprof_builder_open_add_location(b, o, l, NULL);
    pprof_builder_reset(b, NULL);
    pprof_error e;
    pprof_builder_fn f2;
    tap_ok(t, pprof_builder_function(b, s, s, s, 0, &f2, &e) == PPROF_E_STALE,
           "a string handle from before reset is stale: %s", e.message);
    pprof_builder_line ln = {f, 1, 0};
    pprof_builder_loc l2;
    tap_ok(t,
           pprof_builder_location(b, (pprof_builder_map)PPROF_BUILDER_NONE, 1, &ln, 1, false, &l2,
                                  &e) == PPROF_E_STALE,
           "a function handle from before reset is stale (%s)", e.path);
    int64_t v[2] = {1, 1};
    tap_ok(t, pprof_builder_add_sample(b, v, 2, &l, 1, NULL, 0, &e) == PPROF_E_STALE,
           "a location kept alive by an open sample still has a stale handle (%s)", e.path);
    tap_ok(t, pprof_builder_open_add_location(b, o, l, &e) == PPROF_E_STALE,
           "adding a stale location to an open sample is refused");
    pprof_builder_loc forged = {l.h + ((uint64_t)1 << 32) + 1000};
    tap_ok(t, pprof_builder_add_sample(b, v, 2, &forged, 1, NULL, 0, &e) == PPROF_E_STALE,
           "a never-issued handle of the current generation is stale");
    tap_ok(t, stats(b).samples == 0, "nothing was added by refused calls");
    tap_ok(t, pprof_builder_open_commit(b, o, v, 2, &e) == PPROF_OK,
           "the open sample survives the reset and commits");
    tap_ok(t,
           pprof_builder_open_commit(b, o, v, 2, &e) == PPROF_E_STALE &&
               pprof_builder_open_abort(b, o, &e) == PPROF_E_STALE,
           "a committed open handle is stale");
    pprof_profile *p = emit(b, 0, PPROF_FORMAT_RAW, NULL);
    pprof_string nm =
        p ? bhelp_loc_name(p, pprof_profile_sample(p, 0).location_id[0]) : (pprof_string){"", 0};
    tap_ok(t,
           p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1 && nm.len == 5 &&
               !memcmp(nm.data, "oldfn", 5),
           "its frame kept its function name across the reset");
    pprof_profile_free(p);
    pprof_builder_str fresh = S(b, "old");
    tap_ok(t, fresh.h != s.h, "re-interning after reset gives a new-generation handle");
    pprof_builder_free(b);
}

static void
t_open(tap *t)
{
    pprof_builder *b = mk(0, NULL);
    pprof_builder_open a, c;
    pprof_builder_open_begin(b, &a, NULL);
    pprof_builder_open_begin(b, &c, NULL);
    pprof_builder_frame fr = {"leaf_fn", NULL,   "x.c", 7,           1,        0x4000,
                              0x1000,    0x9000, 0,     "/bin/prog", "build-1"};
    pprof_builder_frame fr2 = fr;
    fr2.function = "caller_fn";
    fr2.address = 0x5000;
    pprof_error e;
    tap_ok(t,
           pprof_builder_open_add_frame(b, a, &fr, &e) == PPROF_OK &&
               pprof_builder_open_add_label_cstr(b, a, "span", "s1", 0, NULL, &e) == PPROF_OK,
           "frames and labels added to an open sample");
    pprof_builder_open_add_frame(b, c, &fr, NULL);
    /* serialize-and-reset in the middle of building */
    pprof_profile *p = emit(b, PPROF_BUILDER_RESET, PPROF_FORMAT_RAW, NULL);
    tap_ok(t, p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 0,
           "open samples are in no profile before commit");
    pprof_profile_free(p);
    pprof_builder_stats s = stats(b);
    /* config 4 + leaf_fn, x.c, /bin/prog, build-1, span, s1 */
    tap_ok(t,
           s.strings == 10 && s.locations == 1 && s.functions == 1 && s.mappings == 1 &&
               s.open_samples == 2,
           "reset kept exactly what open samples reference (%llu strings)",
           (unsigned long long)s.strings);
    tap_ok(t,
           pprof_builder_open_add_frame(b, a, &fr2, &e) == PPROF_OK &&
               pprof_builder_open_add_label_cstr(b, a, "n", NULL, 3, "bytes", &e) == PPROF_OK,
           "building continues after the reset");
    int64_t v[2] = {5, 50};
    tap_ok(t, pprof_builder_open_commit(b, a, v, 2, &e) == PPROF_OK, "commit");
    p = emit(b, PPROF_BUILDER_RESET, PPROF_FORMAT_GZIP, NULL);
    bool ok = p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1;
    if (ok) {
        pprof_sample x = pprof_profile_sample(p, 0);
        pprof_string n0 = bhelp_loc_name(p, x.location_id[0]);
        pprof_string n1 = bhelp_loc_name(p, x.location_id[1]);
        pprof_mapping m = pprof_profile_mapping(p, 0);
        ok = x.n_location_id == 2 && x.n_label == 2 && x.value[1] == 50 && n0.len == 7 &&
             !memcmp(n0.data, "leaf_fn", 7) && n1.len == 9 && !memcmp(n1.data, "caller_fn", 9) &&
             pprof_profile_count(p, PPROF_TABLE_MAPPING) == 1 && m.memory_start == 0x1000 &&
             bhelp_str_is(p, m.filename, "/bin/prog") && bhelp_str_is(p, m.build_id, "build-1");
    }
    tap_ok(t, ok, "the sample lands whole in the next profile: both frames, both labels");
    pprof_profile_free(p);
    tap_ok(t, pprof_builder_open_abort(b, c, NULL) == PPROF_OK && stats(b).open_samples == 0,
           "abort ends an open sample");
    pprof_builder_reset(b, NULL);
    s = stats(b);
    tap_ok(t, s.strings == 4 && s.locations == 0 && s.mappings == 0,
           "with no open sample a reset frees every interned entity");
    pprof_builder_open_begin(b, &a, NULL);
    tap_ok(t, pprof_builder_free(b) == 1, "free counts the open sample it drops");
}

static void
t_caps(tap *t)
{
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.max_strings = 4 + 3;
    o.max_samples = 2;
    o.max_string_bytes = 4096;
    o.max_open_samples = 1;
    pprof_builder *b = mk(0, &o);
    pprof_error e;
    pprof_builder_str h;
    tap_ok(t,
           pprof_builder_intern_cstr(b, "a", &h, NULL) == PPROF_OK &&
               pprof_builder_intern_cstr(b, "b", &h, NULL) == PPROF_OK &&
               pprof_builder_intern_cstr(b, "c", &h, NULL) == PPROF_OK,
           "strings up to the cap");
    pprof_builder_stats s0 = stats(b);
    tap_ok(t, pprof_builder_intern_cstr(b, "d", &h, &e) == PPROF_E_LIMIT,
           "max_strings gives PPROF_E_LIMIT: %s", e.message);
    tap_ok(t, pprof_builder_intern_cstr(b, "a", &h, &e) == PPROF_OK,
           "an existing string still interns at the cap");
    pprof_builder_stats s1 = stats(b);
    tap_ok(t,
           s1.strings == s0.strings && s1.string_bytes == s0.string_bytes && s1.limit_errors == 1,
           "a refused string changed nothing but the limit counter");
    pprof_builder_reset(b, NULL);
    pprof_builder_loc l1 = L(b, "a", 1, 1), l2 = L(b, "a", 2, 2), l3 = L(b, "a", 3, 3);
    int64_t v[2] = {1, 1};
    pprof_builder_add_sample(b, v, 2, &l1, 1, NULL, 0, NULL);
    pprof_builder_add_sample(b, v, 2, &l2, 1, NULL, 0, NULL);
    tap_ok(t, pprof_builder_add_sample(b, v, 2, &l3, 1, NULL, 0, &e) == PPROF_E_LIMIT,
           "max_samples gives PPROF_E_LIMIT");
    tap_ok(t, pprof_builder_add_sample(b, v, 2, &l1, 1, NULL, 0, &e) == PPROF_OK,
           "aggregating into a held sample works at the cap");
    pprof_builder_open op, op2;
    pprof_builder_open_begin(b, &op, NULL);
    tap_ok(t, pprof_builder_open_begin(b, &op2, &e) == PPROF_E_LIMIT, "max_open_samples");
    pprof_builder_open_add_location(b, op, l3, NULL);
    tap_ok(t,
           pprof_builder_open_commit(b, op, v, 2, &e) == PPROF_E_LIMIT &&
               stats(b).open_samples == 1,
           "a commit refused by max_samples leaves the sample open");
    pprof_profile *p = emit(b, PPROF_BUILDER_RESET, PPROF_FORMAT_RAW, NULL);
    tap_ok(t, p && bhelp_total(p, 0) == 3, "the held samples serialize");
    pprof_profile_free(p);
    tap_ok(t, pprof_builder_open_commit(b, op, v, 2, &e) == PPROF_OK,
           "after serialize-and-reset the same open sample commits");
    p = emit(b, PPROF_BUILDER_RESET, PPROF_FORMAT_RAW, NULL);
    tap_ok(t, p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1 && bhelp_total(p, 0) == 1,
           "and lands in the next profile");
    pprof_profile_free(p);
    tap_ok(t, stats(b).limit_errors >= 3, "limit_errors counts refusals");
    pprof_builder_free(b);

    pprof_builder_options o2 = PPROF_BUILDER_OPTIONS_INIT;
    o2.sample_types = types2;
    o2.n_sample_types = 2;
    o2.max_string_bytes = 8; /* the configured names alone are 26 bytes */
    tap_ok(t, pprof_builder_new(&o2, &b, &e) == PPROF_E_LIMIT && !b,
           "a builder whose configuration exceeds max_string_bytes is refused");
    o2.max_string_bytes = 30;
    tap_ok(t,
           pprof_builder_new(&o2, &b, &e) == PPROF_OK &&
               pprof_builder_intern_cstr(b, "abcd", &h, &e) == PPROF_OK &&
               pprof_builder_intern_cstr(b, "e", &h, &e) == PPROF_E_LIMIT,
           "max_string_bytes gives PPROF_E_LIMIT at 31 bytes: %s", e.message);
    pprof_builder_free(b);
}

/* One profiler "run": samples plus, optionally, an open sample left unfinished at stop. */
static void
session(pprof_builder *b, int k, bool leave_open)
{
    for (int i = 0; i < 20; i++) {
        char fn[32];
        snprintf(fn, sizeof(fn), "fn_%d_%d", k, i % 5);
        pprof_builder_loc st[2] = {L(b, fn, i, 0x100 + (uint64_t)i), L(b, "main", 1, 0x10)};
        int64_t v[2] = {1, 10 * i};
        pprof_builder_add_sample(b, v, 2, st, 2, NULL, 0, NULL);
    }
    if (leave_open) {
        pprof_builder_open o;
        pprof_builder_frame fr = {"unfinished", NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL};
        pprof_builder_open_begin(b, &o, NULL);
        pprof_builder_open_add_frame(b, o, &fr, NULL);
        pprof_builder_open_add_label_cstr(b, o, "leak", "yes", 0, NULL, NULL);
    }
}

static bool
same(const pprof_buffer *x, const pprof_buffer *y)
{
    return x->len && x->len == y->len && !memcmp(x->data, y->data, x->len);
}

static void
t_runs(tap *t)
{
    pprof_write_options raw = {.struct_size = sizeof(raw), .format = PPROF_FORMAT_RAW};
    pprof_buffer r1 = {0}, r2 = {0}, fresh = {0}, r1c = {0};
    uint64_t dropped = 99;
    pprof_builder *b = mk(0, NULL);
    session(b, 1, true);
    pprof_status st = pprof_builder_finish(b, 0, NULL, &raw, &r1, &dropped, NULL);
    tap_ok(t, st == PPROF_OK && dropped == 1, "finish reports the open sample it dropped (%llu)",
           (unsigned long long)dropped);
    pprof_builder_stats s = stats(b);
    tap_ok(t, s.samples == 0 && s.open_samples == 0 && s.strings == 4 && s.serialized == 0,
           "finish returns the builder to its created state");
    session(b, 2, false);
    pprof_builder_finish(b, 0, NULL, &raw, &r2, &dropped, NULL);
    pprof_builder_free(b);

    pprof_builder *f = mk(0, NULL);
    session(f, 2, false);
    pprof_builder_finish(f, 0, NULL, &raw, &fresh, &dropped, NULL);
    pprof_builder_free(f);
    tap_ok(t, same(&r2, &fresh), "the second run's bytes equal a fresh run's (%zu bytes)",
           fresh.len);
    pprof_profile *p = bhelp_decode(r2.data, r2.len);
    bool leak = false;
    for (size_t i = 0; p && i < pprof_profile_count(p, PPROF_TABLE_STRING); i++)
        leak |= bhelp_str_is(p, (int64_t)i, "unfinished") || bhelp_str_is(p, (int64_t)i, "fn_1_0");
    tap_ok(t, p && !leak && bhelp_total(p, 0) == 20, "nothing of run 1 reaches run 2");
    pprof_profile_free(p);

    /* The other policy: flush the open sample at stop. */
    b = mk(0, NULL);
    session(b, 1, true);
    int64_t ov[2] = {1, 7};
    st = pprof_builder_finish(b, PPROF_BUILDER_FINISH_COMMIT_OPEN, ov, &raw, &r1c, &dropped, NULL);
    p = bhelp_decode(r1c.data, r1c.len);
    tap_ok(t,
           st == PPROF_OK && dropped == 0 && p && bhelp_total(p, 0) == 21 &&
               bhelp_total(p, 1) == 1900 + 7,
           "FINISH_COMMIT_OPEN flushes the open sample into the output");
    pprof_profile_free(p);
    pprof_buffer r2b = {0};
    session(b, 2, false);
    pprof_builder_finish(b, 0, NULL, &raw, &r2b, &dropped, NULL);
    tap_ok(t, same(&r2b, &fresh), "after a flushing stop the next run still equals a fresh run");
    session(b, 3, true);
    tap_ok(t, pprof_builder_free(b) == 21, "free reports 20 unserialized samples + 1 open");
    pprof_buffer_free(&r1);
    pprof_buffer_free(&r2);
    pprof_buffer_free(&r2b);
    pprof_buffer_free(&r1c);
    pprof_buffer_free(&fresh);
}

typedef struct counting {
    long live;
    long total;
} counting;

static void *
c_alloc(void *ctx, size_t n)
{
    ((counting *)ctx)->live++;
    ((counting *)ctx)->total++;
    return malloc(n);
}
static void *
c_realloc(void *ctx, void *p, size_t n)
{
    if (!p) {
        ((counting *)ctx)->live++;
        ((counting *)ctx)->total++;
    }
    return realloc(p, n);
}
static void
c_free(void *ctx, void *p)
{
    ((counting *)ctx)->live--;
    free(p);
}

static void
t_allocator(tap *t)
{
    counting c = {0, 0};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.allocator = (pprof_allocator){c_alloc, c_realloc, c_free, &c};
    pprof_builder *b = mk(0, &o);
    session(b, 1, true);
    pprof_buffer buf = {0};
    pprof_builder_write_memory(b, PPROF_BUILDER_RESET, NULL, &buf, NULL);
    session(b, 2, false);
    pprof_builder_free(b);
    pprof_buffer_free(&buf);
    tap_ok(t, c.total > 10 && c.live == 0,
           "every allocation goes through the allocator and is "
           "freed (%ld allocations)",
           c.total);
}

static void
t_errors(tap *t)
{
    pprof_builder *b = NULL;
    pprof_error e;
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    tap_ok(t, pprof_builder_new(&o, &b, &e) == PPROF_E_ARG && !b,
           "a builder needs sample types: %s", e.message);
    tap_ok(t, pprof_builder_free(NULL) == 0, "free(NULL) is a no-op");
    b = mk(0, NULL);
    pprof_builder_label l = {{0}, {0}, 1, {0}};
    pprof_builder_loc loc = L(b, "x", 1, 1);
    int64_t v[2] = {1, 1};
    tap_ok(t, pprof_builder_add_sample(b, v, 2, &loc, 1, &l, 1, &e) == PPROF_E_ARG,
           "a label without key is refused (%s)", e.path);
    pprof_builder_open o2 = {12345};
    tap_ok(t, pprof_builder_open_commit(b, o2, v, 2, &e) == PPROF_E_STALE,
           "a never-begun open handle is stale");
    pprof_builder_free(b);
}

int
main(void)
{
    tap t = {0, 0};
    t_interning(&t);
    t_samples(&t);
    t_stale(&t);
    t_open(&t);
    t_caps(&t);
    t_runs(&t);
    t_allocator(&t);
    t_errors(&t);
    return tap_done(&t);
}
