/* OTLP -> pprof by the documented rule (otlp.h, docs/otlp.md): profiles with the same samples
 * and times become one pprof profile with a sample type each, others stay apart; every
 * observation is a sample, timestamps and links become labels; and they go back: OTLP -> pprof
 * -> OTLP -> pprof keeps the meaning. Broken OTLP fails with the OTLP path. */
#include "../unit/testutil.h"
#include "canon.h"
#include "pprof/check.h"
#include "pprof/formats.h"
#include "pprof/otlp.h"

static const char *
str(const pprof_profile *p, int64_t i, char *buf, size_t cap)
{
    pprof_string s = {"", 0};
    pprof_profile_string(p, i, &s);
    snprintf(buf, cap, "%.*s", (int)s.len, s.data);
    return buf;
}

/* The label of key in sample s as text ("" when none). */
static const char *
label(const pprof_profile *p, const pprof_sample *s, const char *key, char *buf, size_t cap)
{
    char k[64], v[40], u[20];
    buf[0] = 0;
    for (size_t j = 0; j < s->n_label; j++)
        if (strcmp(str(p, s->label[j].key, k, sizeof(k)), key) == 0) {
            if (s->label[j].str)
                snprintf(buf, cap, "%.40s", str(p, s->label[j].str, v, sizeof(v)));
            else
                snprintf(buf, cap, "%lld %.20s", (long long)s->label[j].num,
                         str(p, s->label[j].num_unit, u, sizeof(u)));
        }
    return buf;
}

static char *
path_of(const char *rel)
{
    const char *src = getenv("PPROF_SOURCE_ROOT");
    static char buf[4096];
    snprintf(buf, sizeof(buf), "%s/tests/otlp/%s", src ? src : ".", rel);
    return buf;
}

int
main(void)
{
    tap t = {0};
    pprof_otlp *o = NULL;
    pprof_error err;
    pprof_profile **v = NULL;
    size_t n = 0;
    pprof_read_options any; /* what the tools read: pprof and libpprof-formats' formats */
    pprof_read_options_init(&any);
    any.readers = pprof_formats_readers();
    bool ok = pprof_otlp_read_file(path_of("in/group.otlp"), NULL, &o, &err) == PPROF_OK &&
              pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK;
    if (!tap_ok(&t, ok && n == 2 && pprof_otlp_profile_count(o) == 3,
                "group.otlp: 3 OTLP profiles become 2 pprof profiles"))
        tap_diag("%s: %s (%zu)", err.path, err.message, n);
    if (ok && n == 2) {
        char a[64], b[64];
        pprof_profile *p = v[0], *q = v[1];
        pprof_sample s0 = pprof_profile_sample(p, 0), s1 = pprof_profile_sample(p, 1);
        tap_ok(&t,
               pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE) == 2 &&
                   strcmp(str(p, pprof_profile_sample_type(p, 1).type, a, sizeof(a)), "samples") ==
                       0 &&
                   pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 2 && s0.n_value == 2 &&
                   s0.value[0] == 5 && s0.value[1] == 50 && s1.value[0] == 7 && s1.value[1] == 70,
               "the two profiles with the same samples are one with two sample types");
        tap_ok(&t,
               strcmp(label(p, &s1, "timestamp_unix_nano", a, sizeof(a)), "1010 nanoseconds") ==
                       0 &&
                   label(p, &s0, "timestamp_unix_nano", b, sizeof(b))[0] == 0,
               "a sample's timestamp is its timestamp_unix_nano label, in nanoseconds");
        pprof_header h = pprof_profile_header(p);
        tap_ok(&t,
               h.time_nanos == 1000 && h.duration_nanos == 100 && h.period == 10 &&
                   strcmp(str(p, h.period_type.type, a, sizeof(a)), "cpu") == 0,
               "time, duration, period and period type kept");
        pprof_location l = pprof_profile_location(p, 0);
        tap_ok(&t, l.n_line == 2 && l.address == 4100, "every inlined frame kept");
        pprof_sample r0 = pprof_profile_sample(q, 0), r1 = pprof_profile_sample(q, 1);
        tap_ok(&t,
               pprof_profile_count(q, PPROF_TABLE_SAMPLE) == 2 && r0.value[0] == 3 &&
                   r1.value[0] == 4 && r0.n_location_id == 1,
               "values [3, 4] with two timestamps are two samples");
        tap_ok(&t,
               strcmp(label(q, &r1, "timestamp_unix_nano", a, sizeof(a)), "1002 nanoseconds") ==
                       0 &&
                   strcmp(label(q, &r0, "trace_id", b, sizeof(b)),
                          "0102030405060708090a0b0c0d0e0f10") == 0 &&
                   strcmp(label(q, &r0, "span_id", a, sizeof(a)), "aabbccddeeff0011") == 0 &&
                   strcmp(label(q, &r0, "bytes", b, sizeof(b)), "64 bytes") == 0,
               "a link is trace_id and span_id in hex; a numeric attribute keeps its unit");
        /* and back: the labels become timestamps and a link again, so the meaning survives */
        for (size_t i = 0; i < 2; i++) {
            pprof_buffer buf = {0};
            pprof_otlp *o2 = NULL;
            pprof_profile **w = NULL;
            size_t m = 0;
            const pprof_profile *const in[] = {v[i]};
            char why[1024] = "";
            bool back = pprof_otlp_write_memory(in, 1, NULL, &buf, &err) == PPROF_OK &&
                        pprof_otlp_read_memory(buf.data, buf.len, NULL, &o2, &err) == PPROF_OK &&
                        pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK && m == 1 &&
                        canon_equal(v[i], w[0], why, sizeof(why));
            if (!tap_ok(&t, back, "pprof profile %zu -> OTLP -> pprof keeps its meaning", i))
                tap_diag("%s %s %s", err.path, err.message, why);
            pprof_otlp_profiles_free(w, m);
            pprof_otlp_free(o2);
            pprof_buffer_free(&buf);
        }
    }
    pprof_otlp_profiles_free(v, n);
    pprof_otlp_free(o);

    /* a sample with 41 labels, one key twice (one numeric, one string): the writer's key
     * chains (past 16 labels) make them one array attribute, which reads back as both */
    ok = pprof_otlp_read_file(path_of("check/O8-attribute-key-long.otlp"), NULL, &o, &err) ==
             PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK && n == 1;
    pprof_otlp_free(o);
    o = NULL;
    if (tap_ok(&t, ok && pprof_profile_sample(v[0], 0).n_label == 41,
               "41 attributes are 41 labels")) {
        pprof_buffer buf = {0};
        pprof_otlp *o2 = NULL;
        pprof_profile **w = NULL;
        size_t m = 0;
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        char why[1024] = "";
        const pprof_profile *const in[] = {v[0]};
        bool back = pprof_otlp_write_memory(in, 1, NULL, &buf, &err) == PPROF_OK &&
                    pprof_otlp_read_memory(buf.data, buf.len, NULL, &o2, &err) == PPROF_OK &&
                    pprof_otlp_check(o2, NULL, NULL, NULL, &sum, &err) == PPROF_OK &&
                    pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK && m == 1;
        tap_ok(&t, back && sum.count[PPROF_SEVERITY_ERROR] == 0,
               "written back with unique keys (no O8 or other error)");
        if (!tap_ok(&t, back && canon_equal(v[0], w[0], why, sizeof(why)),
                    "and read again with the same labels"))
            tap_diag("%s", why);
        pprof_otlp_profiles_free(w, m);
        pprof_otlp_free(o2);
        pprof_buffer_free(&buf);
    }
    pprof_otlp_profiles_free(v, n);
    v = NULL;
    n = 0;

    /* the read path takes OTLP by content, and refuses one that does not combine */
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_file(path_of("in/group.otlp"), &any, &p, &err);
    tap_ok(&t, st == PPROF_E_INVALID && strstr(err.message, "2 profiles") && !p,
           "pprof_profile_read_file refuses OTLP holding 2 profiles, saying so");
    st = pprof_profile_read_file(path_of("check/clean.otlp"), &any, &p, &err);
    tap_ok(&t, st == PPROF_OK && p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1,
           "pprof_profile_read_file reads OTLP of one profile");
    pprof_profile_free(p);

    /* broken references fail with the OTLP path */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("check/O2-index-range.otlp"), NULL, &o, &err) == PPROF_OK;
    st = ok ? pprof_otlp_to_pprof(o, &v, &n, &err) : PPROF_E_IO;
    tap_ok(&t,
           st == PPROF_E_INVALID &&
               strcmp(err.path, "dictionary.location_table[1].mapping_index") == 0,
           "an index out of range fails with its path (%s)", err.path);
    pprof_otlp_free(o);
    st = pprof_otlp_read_file(path_of("check/O10-decode.otlp"), NULL, &o, &err);
    tap_ok(&t, st == PPROF_E_WIRE && !o && err.path[0], "truncated OTLP: PPROF_E_WIRE at %s",
           err.path);
    /* an empty stack and an attribute that is an empty array: no location, no label (both
     * once did pointer arithmetic on a table not yet allocated; UBSan stops there) */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("in/empty-parts.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK;
    pprof_otlp_free(o);
    if (ok && n == 1) {
        pprof_sample e0 = pprof_profile_sample(v[0], 0), e1 = pprof_profile_sample(v[0], 1);
        char a[16];
        tap_ok(
            &t,
            pprof_profile_count(v[0], PPROF_TABLE_SAMPLE) == 2 && e0.n_location_id == 0 &&
                e0.n_label == 0 && e0.value[0] == 5 && e1.n_location_id == 1 && e1.n_label == 1 &&
                strcmp(label(v[0], &e1, "k", a, sizeof(a)), "v") == 0,
            "empty-parts.otlp: the empty stack and the empty array give nothing, the rest stays");
    } else {
        tap_ok(&t, false, "empty-parts.otlp converts (%s: %s)", err.path, err.message);
    }
    if (ok)
        pprof_otlp_profiles_free(v, n);
    /* two Profiles of one type, same header, no pprof.profile_index: two profiles, not one
     * with the type twice */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("in/same-type.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK;
    pprof_otlp_free(o);
    tap_ok(&t,
           ok && n == 2 && pprof_profile_count(v[0], PPROF_TABLE_SAMPLE_TYPE) == 1 &&
               pprof_profile_count(v[1], PPROF_TABLE_SAMPLE_TYPE) == 1 &&
               pprof_profile_sample(v[0], 0).value[0] == 5 &&
               pprof_profile_sample(v[1], 0).value[0] == 7,
           "same-type.otlp: two Profiles of one type are two pprof profiles (%zu)", n);
    if (ok)
        pprof_otlp_profiles_free(v, n);
    /* a pprof profile with a type twice comes back as one profile (pprof.profile_index) */
    if (ok) {
        /* sample_type cpu/nanoseconds twice, one sample [3, 4] at 0x1000 */
        static const uint8_t dup_pb[] = {0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x04, 0x08, 0x01,
                                         0x10, 0x02, 0x12, 0x07, 0x0a, 0x01, 0x01, 0x12, 0x02, 0x03,
                                         0x04, 0x22, 0x05, 0x08, 0x01, 0x18, 0x80, 0x20, 0x32, 0x00,
                                         0x32, 0x03, 'c',  'p',  'u',  0x32, 0x0b, 'n',  'a',  'n',
                                         'o',  's',  'e',  'c',  'o',  'n',  'd',  's'};
        pprof_profile *dup = NULL;
        pprof_buffer buf = {0};
        pprof_otlp *o3 = NULL;
        pprof_profile **back = NULL;
        size_t nb = 0;
        bool built =
            pprof_profile_read_memory(dup_pb, sizeof(dup_pb), NULL, &dup, &err) == PPROF_OK &&
            pprof_profile_count(dup, PPROF_TABLE_SAMPLE_TYPE) == 2;
        const pprof_profile *const in2[] = {dup};
        bool rt = built && pprof_otlp_write_memory(in2, 1, NULL, &buf, &err) == PPROF_OK &&
                  pprof_otlp_read_memory(buf.data, buf.len, NULL, &o3, &err) == PPROF_OK &&
                  pprof_otlp_to_pprof(o3, &back, &nb, &err) == PPROF_OK && nb == 1 &&
                  pprof_profile_count(back[0], PPROF_TABLE_SAMPLE_TYPE) == 2 &&
                  pprof_profile_sample(back[0], 0).value[0] == 3 &&
                  pprof_profile_sample(back[0], 0).value[1] == 4;
        if (!tap_ok(&t, rt, "a pprof profile with one type twice: one profile back"))
            tap_diag("%s: %s (built %d, %zu back)", err.path, err.message, built, nb);
        if (back)
            pprof_otlp_profiles_free(back, nb);
        pprof_otlp_free(o3);
        pprof_buffer_free(&buf);
        pprof_profile_free(dup);
    }
    /* the join by sample key: stack 1 in both Profiles, stack 2 all 0 in the first only,
     * stack 3 in the second only */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("in/join.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK && n == 1;
    pprof_otlp_free(o);
    o = NULL;
    if (!tap_ok(&t, ok && pprof_profile_count(v[0], PPROF_TABLE_SAMPLE) == 3,
                "join.otlp: two Profiles joined by key into one profile of 3 samples"))
        tap_diag("%s: %s (%zu)", err.path, err.message, n);
    if (ok) {
        int64_t want[3][3] = {{4100, 5, 50}, {4200, 0, 0}, {4300, 0, 9}};
        bool good = pprof_profile_count(v[0], PPROF_TABLE_SAMPLE_TYPE) == 2;
        for (size_t i = 0; i < 3 && good; i++) {
            pprof_sample s = pprof_profile_sample(v[0], i);
            size_t k;
            good = s.n_location_id == 1 && s.n_value == 2 &&
                   pprof_profile_find_location(v[0], s.location_id[0], &k) &&
                   (int64_t)pprof_profile_location(v[0], k).address == want[i][0] &&
                   s.value[0] == want[i][1] && s.value[1] == want[i][2];
        }
        tap_ok(&t, good, "values joined by key, missing ones 0, the all-zero sample kept");
        /* written sparse and read back: the same sums per key, the all-zero sample included */
        pprof_buffer buf = {0};
        pprof_otlp *o2 = NULL;
        pprof_profile **w = NULL;
        size_t m = 0;
        char why[1024] = "";
        const pprof_profile *const in1[] = {v[0]};
        bool back = pprof_otlp_write_memory(in1, 1, NULL, &buf, &err) == PPROF_OK &&
                    pprof_otlp_read_memory(buf.data, buf.len, NULL, &o2, &err) == PPROF_OK &&
                    pprof_otlp_profile_count(o2) == 2 &&
                    pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK && m == 1 &&
                    pprof_profile_count(w[0], PPROF_TABLE_SAMPLE) == 3 &&
                    canon_equal_sums(v[0], w[0], why, sizeof(why));
        if (!tap_ok(&t, back, "sparse pprof -> OTLP -> pprof keeps the sums and the zero sample"))
            tap_diag("%s %s %s", err.path, err.message, why);
        pprof_otlp_profiles_free(w, m);
        pprof_otlp_free(o2);
        o2 = NULL;
        buf.len = 0;
        /* two profiles with the same header in one file: pprof.profile_index keeps them apart */
        const pprof_profile *const in2[] = {v[0], v[0]};
        back = pprof_otlp_write_memory(in2, 2, NULL, &buf, &err) == PPROF_OK &&
               pprof_otlp_read_memory(buf.data, buf.len, NULL, &o2, &err) == PPROF_OK &&
               pprof_otlp_profile_count(o2) == 4 &&
               pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK && m == 2 &&
               canon_equal_sums(v[0], w[0], why, sizeof(why)) &&
               canon_equal_sums(v[0], w[1], why, sizeof(why));
        if (!tap_ok(&t, back, "two profiles of one header written together read back as two"))
            tap_diag("%s %s %zu %s", err.path, err.message, m, why);
        pprof_otlp_profiles_free(w, m);
        pprof_otlp_free(o2);
        pprof_buffer_free(&buf);
    }
    pprof_otlp_profiles_free(v, n);
    v = NULL;
    n = 0;

    /* fuzzing found the writer writing what its own checker refuses: a label with an empty key
     * (O8) and a function with no name, system name or filename (O9) */
    ok = pprof_otlp_read_file(path_of("in/writer-bugs.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK && n == 1;
    pprof_otlp_free(o);
    o = NULL;
    if (tap_ok(&t, ok, "writer-bugs.otlp reads")) {
        pprof_buffer buf = {0};
        pprof_otlp *o2 = NULL;
        pprof_profile **w = NULL;
        size_t m = 0;
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        const pprof_profile *const in1[] = {v[0]};
        bool back = pprof_otlp_write_memory(in1, 1, NULL, &buf, &err) == PPROF_OK &&
                    pprof_otlp_read_memory(buf.data, buf.len, NULL, &o2, &err) == PPROF_OK &&
                    pprof_otlp_check(o2, NULL, NULL, NULL, &sum, &err) == PPROF_OK &&
                    pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK && m == 1;
        tap_ok(&t, back && sum.count[PPROF_SEVERITY_ERROR] == 0,
               "written without an empty key or a nameless function (no O8, O9 or other error)");
        char a[64];
        pprof_sample s = back ? pprof_profile_sample(w[0], 0) : (pprof_sample){0};
        tap_ok(&t,
               back && s.n_label == 1 && s.label[0].key == 0 &&
                   strcmp(str(w[0], s.label[0].str, a, sizeof(a)), "worker") == 0,
               "the label with an empty key comes back with an empty key");
        pprof_otlp_profiles_free(w, m);
        pprof_otlp_free(o2);
        pprof_buffer_free(&buf);
    }
    pprof_otlp_profiles_free(v, n);
    v = NULL;
    n = 0;
    /* the profile's attribute_indices after its samples, in field order as protoc writes them:
     * they once were read where the samples' indices start (the comment lost, the sample's
     * label taken for a profile attribute) */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("in/profile-attrs.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK;
    pprof_otlp_free(o);
    if (ok && n == 1) {
        pprof_header h = pprof_profile_header(v[0]);
        pprof_sample s0 = pprof_profile_sample(v[0], 0);
        char a[32], b[16];
        tap_ok(&t,
               h.n_comment == 1 &&
                   strcmp(str(v[0], h.comment[0], a, sizeof(a)), "a comment") == 0 &&
                   s0.n_label == 1 && strcmp(label(v[0], &s0, "k", b, sizeof(b)), "v") == 0,
               "profile attributes after the samples: the comment is the profile's, the label "
               "the sample's");
    } else {
        tap_ok(&t, false, "profile-attrs.otlp converts (%s: %s)", err.path, err.message);
    }
    if (ok)
        pprof_otlp_profiles_free(v, n);
    /* the same with the profile's indices in two parts around the sample (written by
     * corpus/tools/otlp-seeds.py, as otlp-split-attrs.otlp): both parts are the profile's */
    o = NULL;
    ok = pprof_otlp_read_file(path_of("in/profile-attrs-split.otlp"), NULL, &o, &err) == PPROF_OK &&
         pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK;
    pprof_otlp_free(o);
    if (ok && n == 1) {
        pprof_header h = pprof_profile_header(v[0]);
        pprof_sample s0 = pprof_profile_sample(v[0], 0);
        char a[32], b[16], u[32];
        tap_ok(&t,
               h.n_comment == 1 &&
                   strcmp(str(v[0], h.comment[0], a, sizeof(a)), "a comment") == 0 &&
                   strcmp(str(v[0], h.doc_url, u, sizeof(u)), "https://example.com/doc") == 0 &&
                   s0.n_label == 1 && strcmp(label(v[0], &s0, "k", b, sizeof(b)), "v") == 0,
               "profile attributes in two parts around a sample: both are the profile's");
    } else {
        tap_ok(&t, false, "profile-attrs-split.otlp converts (%s: %s)", err.path, err.message);
    }
    if (ok)
        pprof_otlp_profiles_free(v, n);
    return tap_done(&t);
}
