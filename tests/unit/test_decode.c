/* The wire decoder on hand-built inputs: every wire type, packed and unpacked repeated scalars,
 * any field order, unknown fields, and every kind of malformed input with its code, byte offset
 * and path. */
#include "check.h"
#include "merge.h"
#include "pb.h"
#include "testutil.h"

/* ---- a small valid profile, as separate top-level fields so tests can reorder them */

enum { N_PARTS = 12 };

static const char *const STRS[] = {"",        "samples",  "count", "cpu", "nanoseconds", "main",
                                   "main.go", "/bin/app", "key",   "val", "bytes"};

static void
std_parts(pb parts[N_PARTS])
{
    memset(parts, 0, sizeof(pb) * N_PARTS);
    pb_strings(&parts[0], STRS, sizeof(STRS) / sizeof(STRS[0]));
    pb_value_type(&parts[1], 1, 1, 2);
    pb_value_type(&parts[1], 1, 3, 4);
    { /* sample 0: packed ids and values, two labels */
        pb s = {0}, l = {0};
        const uint64_t locs[] = {2, 1}, vals[] = {5, 5000};
        pb_packed(&s, 1, locs, 2);
        pb_packed(&s, 2, vals, 2);
        pb_v(&l, 1, 8);
        pb_v(&l, 2, 9);
        pb_msg_free(&s, 3, &l);
        pb_v(&l, 1, 8);
        pb_v(&l, 3, 42);
        pb_v(&l, 4, 10);
        pb_msg_free(&s, 3, &l);
        pb_msg_free(&parts[2], 2, &s);
    }
    { /* sample 1: unpacked, a negative value (10-byte varint) */
        pb s = {0};
        pb_v(&s, 1, 1);
        pb_v(&s, 2, (uint64_t)-1);
        pb_v(&s, 2, 7);
        pb_msg_free(&parts[3], 2, &s);
    }
    {
        pb m = {0};
        pb_v(&m, 1, 1);
        pb_v(&m, 2, 0x1000);
        pb_v(&m, 3, 0x2000);
        pb_v(&m, 5, 7);
        pb_v(&m, 7, 1);
        pb_v(&m, 10, 1);
        pb_msg_free(&parts[4], 3, &m);
    }
    {
        pb l = {0}, ln = {0};
        pb_v(&l, 1, 1);
        pb_v(&l, 2, 1);
        pb_v(&l, 3, 0x1010);
        pb_v(&ln, 1, 1);
        pb_v(&ln, 2, 10);
        pb_v(&ln, 3, 3);
        pb_msg_free(&l, 4, &ln);
        pb_msg_free(&parts[5], 4, &l);
    }
    {
        pb l = {0}, ln = {0};
        pb_v(&l, 1, 2);
        pb_v(&l, 2, 1);
        pb_v(&l, 3, 0x1020);
        pb_v(&ln, 1, 1);
        pb_v(&ln, 2, 11);
        pb_msg_free(&l, 4, &ln);
        pb_v(&ln, 1, 1);
        pb_v(&ln, 2, 12);
        pb_msg_free(&l, 4, &ln);
        pb_v(&l, 5, 1);
        pb_msg_free(&parts[6], 4, &l);
    }
    {
        pb f = {0};
        pb_v(&f, 1, 1);
        pb_v(&f, 2, 5);
        pb_v(&f, 3, 5);
        pb_v(&f, 4, 6);
        pb_v(&f, 5, 9);
        pb_msg_free(&parts[7], 5, &f);
    }
    pb_value_type(&parts[8], 11, 3, 4);
    pb_v(&parts[9], 12, 10000000);
    pb_v(&parts[9], 9, UINT64_C(1700000000000000000));
    pb_v(&parts[9], 10, 1000000000);
    const uint64_t comments[] = {5};
    pb_packed(&parts[10], 13, comments, 1);
    pb_v(&parts[11], 14, 3);
}

static pb
assemble(const int *order)
{
    pb parts[N_PARTS], out = {0};
    std_parts(parts);
    for (int i = 0; i < N_PARTS; i++)
        pb_raw(&out, parts[order[i]].d, parts[order[i]].n);
    for (int i = 0; i < N_PARTS; i++)
        pb_free(&parts[i]);
    return out;
}

static bool
str_is(const pprof_profile *p, int64_t idx, const char *want)
{
    pprof_string s;
    return pprof_profile_string(p, idx, &s) && s.len == strlen(want) &&
           memcmp(s.data, want, s.len) == 0;
}

static void
check_std(tap *t, const pprof_profile *p, const char *what)
{
    bool ok = pprof_profile_count(p, PPROF_TABLE_STRING) == 11 &&
              pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE) == 2 &&
              pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 2 &&
              pprof_profile_count(p, PPROF_TABLE_MAPPING) == 1 &&
              pprof_profile_count(p, PPROF_TABLE_LOCATION) == 2 &&
              pprof_profile_count(p, PPROF_TABLE_FUNCTION) == 1;
    tap_ok(t, ok, "%s: table sizes", what);
    if (!ok)
        return;
    pprof_value_type vt = pprof_profile_sample_type(p, 1);
    tap_ok(t, str_is(p, vt.type, "cpu") && str_is(p, vt.unit, "nanoseconds"), "%s: sample_type",
           what);
    pprof_sample s = pprof_profile_sample(p, 0);
    tap_ok(t,
           s.n_location_id == 2 && s.location_id[0] == 2 && s.location_id[1] == 1 &&
               s.n_value == 2 && s.value[0] == 5 && s.value[1] == 5000 && s.n_label == 2 &&
               str_is(p, s.label[0].key, "key") && str_is(p, s.label[0].str, "val") &&
               s.label[1].num == 42 && str_is(p, s.label[1].num_unit, "bytes") &&
               s.label[1].str == 0,
           "%s: packed sample with labels", what);
    s = pprof_profile_sample(p, 1);
    tap_ok(t,
           s.n_location_id == 1 && s.location_id[0] == 1 && s.n_value == 2 && s.value[0] == -1 &&
               s.value[1] == 7 && s.n_label == 0,
           "%s: unpacked sample, negative value", what);
    pprof_mapping m = pprof_profile_mapping(p, 0);
    tap_ok(t,
           m.id == 1 && m.memory_start == 0x1000 && m.memory_limit == 0x2000 &&
               m.file_offset == 0 && str_is(p, m.filename, "/bin/app") && m.build_id == 0 &&
               m.has_functions && !m.has_filenames && !m.has_line_numbers && m.has_inline_frames,
           "%s: mapping", what);
    pprof_location l0 = pprof_profile_location(p, 0), l1 = pprof_profile_location(p, 1);
    tap_ok(t,
           l0.id == 1 && l0.mapping_id == 1 && l0.address == 0x1010 && l0.n_line == 1 &&
               l0.line[0].function_id == 1 && l0.line[0].line == 10 && l0.line[0].column == 3 &&
               !l0.is_folded && l1.id == 2 && l1.n_line == 2 && l1.line[0].line == 11 &&
               l1.line[1].line == 12 && l1.is_folded,
           "%s: locations with lines", what);
    pprof_function f = pprof_profile_function(p, 0);
    tap_ok(t,
           f.id == 1 && str_is(p, f.name, "main") && str_is(p, f.system_name, "main") &&
               str_is(p, f.filename, "main.go") && f.start_line == 9,
           "%s: function", what);
    pprof_header h = pprof_profile_header(p);
    tap_ok(t,
           str_is(p, h.period_type.type, "cpu") && str_is(p, h.period_type.unit, "nanoseconds") &&
               h.period == 10000000 && h.time_nanos == INT64_C(1700000000000000000) &&
               h.duration_nanos == 1000000000 && h.n_comment == 1 &&
               str_is(p, h.comment[0], "main") && str_is(p, h.default_sample_type, "cpu") &&
               h.drop_frames == 0 && h.doc_url == 0,
           "%s: header", what);
    size_t idx;
    tap_ok(t,
           pprof_profile_find_location(p, 2, &idx) && idx == 1 &&
               pprof_profile_find_function(p, 1, &idx) && idx == 0 &&
               pprof_profile_find_mapping(p, 1, &idx) && idx == 0 &&
               !pprof_profile_find_location(p, 3, &idx),
           "%s: id lookups", what);
}

static pprof_profile *
decode_ok(tap *t, const pb *b, const char *what)
{
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_status st = tu_decode_raw(b->d, b->n, NULL, &p, &err);
    if (!tap_ok(t, st == PPROF_OK, "%s: decodes", what))
        tap_diag("%s: %s at %llu: %s", pprof_status_name(st), err.path,
                 (unsigned long long)err.offset, err.message);
    return p;
}

static void
expect_err(tap *t, const pb *b, pprof_status code, uint64_t off, const char *path, const char *what)
{
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_status st = tu_decode_raw(b->d, b->n, NULL, &p, &err);
    bool ok = st == code && err.code == code && err.offset == off && strcmp(err.path, path) == 0 &&
              p == NULL && err.message[0];
    if (!tap_ok(t, ok, "%s: %s at byte %llu, path '%s'", what, pprof_status_name(code),
                (unsigned long long)off, path))
        tap_diag("got %s at byte %llu, path '%s': %s", pprof_status_name(st),
                 (unsigned long long)err.offset, err.path, err.message);
    pprof_profile_free(p);
}

static void
test_valid(tap *t)
{
    const int in_order[N_PARTS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    /* libdatadog writes samples before the string table; any order must give the same model */
    const int odd_order[N_PARTS] = {2, 11, 5, 3, 9, 0, 7, 10, 6, 8, 4, 1};
    pb a = assemble(in_order), b = assemble(odd_order);
    pprof_profile *pa = decode_ok(t, &a, "standard order");
    pprof_profile *pb_ = decode_ok(t, &b, "samples first, strings in the middle");
    if (pa)
        check_std(t, pa, "standard order");
    if (pb_)
        check_std(t, pb_, "odd order");
    tap_ok(t, pa && pb_ && pprof_profile_equal(pa, pb_), "field order does not change the model");
    tap_ok(t, pa && pprof_profile_unknown_fields(pa) == 0, "no unknown fields counted");
    tap_ok(t, pa && pprof_profile_source_format(pa) == PPROF_FORMAT_RAW, "source format raw");

    /* the same through the public reader, which must detect raw protobuf from the bytes */
    pprof_profile *pc = NULL;
    tap_ok(t,
           pprof_profile_read_memory(a.d, a.n, NULL, &pc, NULL) == PPROF_OK && pc &&
               pprof_profile_equal(pa, pc),
           "pprof_profile_read_memory gives the same model");
    pprof_profile_free(pc);
    pprof_profile_free(pa);
    pprof_profile_free(pb_);
    pb_free(&a);
    pb_free(&b);
}

/* Packed, unpacked, and both mixed in one sample give the same values, in wire order. */
static void
test_packed_mixed(tap *t)
{
    const uint64_t ids[] = {3, 300, UINT64_MAX, 1};
    pb v[3] = {{0}};
    pb s = {0};
    pb_packed(&s, 1, ids, 4);
    pb_packed(&s, 2, ids, 4);
    pb_msg_free(&v[0], 2, &s);
    for (int i = 0; i < 4; i++)
        pb_v(&s, 1, ids[i]);
    for (int i = 0; i < 4; i++)
        pb_v(&s, 2, ids[i]);
    pb_msg_free(&v[1], 2, &s);
    pb_v(&s, 2, ids[0]);
    pb_packed(&s, 1, ids, 2);
    pb_packed(&s, 2, ids + 1, 2);
    pb_v(&s, 1, ids[2]);
    pb_packed(&s, 1, ids + 3, 1);
    pb_packed(&s, 2, NULL, 0); /* an empty packed run adds nothing */
    pb_v(&s, 2, ids[3]);
    pb_msg_free(&v[2], 2, &s);
    const char *names[] = {"packed", "unpacked", "mixed"};
    for (int i = 0; i < 3; i++) {
        pprof_profile *p = decode_ok(t, &v[i], names[i]);
        bool ok = p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1;
        if (ok) {
            pprof_sample x = pprof_profile_sample(p, 0);
            ok = x.n_location_id == 4 && x.n_value == 4;
            for (int j = 0; ok && j < 4; j++)
                ok = x.location_id[j] == ids[j] && x.value[j] == (int64_t)ids[j];
        }
        tap_ok(t, ok, "%s repeated scalars keep values and order", names[i]);
        pprof_profile_free(p);
        pb_free(&v[i]);
    }
    /* packed comments at the top level, split over two runs plus an unpacked one */
    pb c = {0};
    pb_packed(&c, 13, ids, 2);
    pb_v(&c, 13, 7);
    pb_packed(&c, 13, ids + 2, 2);
    pprof_profile *p = decode_ok(t, &c, "comments");
    pprof_header h = p ? pprof_profile_header(p) : (pprof_header){0};
    tap_ok(t,
           p && h.n_comment == 5 && h.comment[0] == 3 && h.comment[1] == 300 && h.comment[2] == 7 &&
               h.comment[3] == -1 && h.comment[4] == 1,
           "comments: packed and unpacked runs concatenate");
    pprof_profile_free(p);
    pb_free(&c);
}

/* Unknown fields of every wire type at every message level are skipped and counted. */
static void
test_unknown(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    int n = 0;
#define UNKNOWNS(x, f)                                                                             \
    do {                                                                                           \
        pb_v(x, f, 12345);                                                                         \
        pb_fixed64(x, f + 1, 1);                                                                   \
        pb_str(x, f + 2, "skipped");                                                               \
        pb_fixed32(x, f + 3, 2);                                                                   \
        pb_v(x, (1u << 29) - 1, 1);                                                                \
        n += 5;                                                                                    \
    } while (0)
    UNKNOWNS(&b, 16);
    pb_str(&b, 6, "");
    pb_str(&b, 6, "x");
    /* value_type */
    UNKNOWNS(&s, 3);
    pb_v(&s, 1, 1);
    pb_msg_free(&b, 1, &s);
    /* sample and label */
    pb_v(&s, 1, 1);
    UNKNOWNS(&s, 4);
    UNKNOWNS(&l, 5);
    pb_v(&l, 1, 1);
    pb_msg_free(&s, 3, &l);
    pb_msg_free(&b, 2, &s);
    /* mapping */
    UNKNOWNS(&s, 11);
    pb_v(&s, 1, 1);
    pb_msg_free(&b, 3, &s);
    /* location and line */
    pb_v(&s, 1, 1);
    UNKNOWNS(&s, 6);
    UNKNOWNS(&l, 4);
    pb_v(&l, 1, 1);
    pb_msg_free(&s, 4, &l);
    pb_msg_free(&b, 4, &s);
    /* function */
    UNKNOWNS(&s, 6);
    pb_v(&s, 1, 1);
    pb_msg_free(&b, 5, &s);
    /* period_type */
    UNKNOWNS(&s, 3);
    pb_msg_free(&b, 11, &s);
    UNKNOWNS(&b, 100);
#undef UNKNOWNS
    pprof_profile *p = decode_ok(t, &b, "unknown fields everywhere");
    tap_ok(t, p && pprof_profile_unknown_fields(p) == (uint64_t)n,
           "unknown fields counted: %d expected, %llu seen", n,
           p ? (unsigned long long)pprof_profile_unknown_fields(p) : 0ULL);
    bool ok = p && pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 1 &&
              pprof_profile_count(p, PPROF_TABLE_LOCATION) == 1 &&
              pprof_profile_count(p, PPROF_TABLE_STRING) == 2;
    if (ok) {
        pprof_sample x = pprof_profile_sample(p, 0);
        pprof_location lo = pprof_profile_location(p, 0);
        ok = x.n_location_id == 1 && x.n_label == 1 && x.label[0].key == 1 && lo.n_line == 1 &&
             lo.line[0].function_id == 1 && pprof_profile_sample_type(p, 0).type == 1;
    }
    tap_ok(t, ok, "known fields between unknown ones are kept");
    pprof_profile_free(p);
    pb_free(&b);

    /* a message made only of unknown fields is a valid, empty profile */
    pb_v(&b, 99, 1);
    p = decode_ok(t, &b, "only unknown fields");
    tap_ok(t,
           p && pprof_profile_count(p, PPROF_TABLE_STRING) == 0 &&
               pprof_profile_unknown_fields(p) == 1 && !pprof_profile_string(p, 0, NULL),
           "only unknown fields: empty model, no string table");
    pprof_profile_free(p);
    pb_free(&b);
}

/* Repeated non-repeated fields: scalars keep the last value, a sub-message merges. */
static void
test_merge_semantics(tap *t)
{
    pb b = {0}, vt = {0};
    pb_v(&b, 10, 1);
    pb_v(&b, 10, 2);
    pb_v(&vt, 1, 5);
    pb_msg_free(&b, 11, &vt);
    pb_v(&vt, 2, 6);
    pb_msg_free(&b, 11, &vt);
    pb_v(&b, 12, 0);
    pprof_profile *p = decode_ok(t, &b, "repeated singular fields");
    pprof_header h = p ? pprof_profile_header(p) : (pprof_header){0};
    tap_ok(t, p && h.duration_nanos == 2, "a repeated scalar keeps the last value");
    tap_ok(t, p && h.period_type.type == 0 && h.period_type.unit == 6,
           "a repeated period_type: the last occurrence wins, as in Go and protobuf-c");
    pprof_profile_free(p);
    pb_free(&b);
}

/* Strings are byte views: NUL bytes, invalid UTF-8 and empty strings come back unchanged. */
static void
test_strings(tap *t)
{
    pb b = {0};
    const char odd[] = {'a', 0, 'b', (char)0xff, (char)0xc3};
    pb_str(&b, 6, "");
    pb_bytes(&b, 6, odd, sizeof(odd));
    pb_str(&b, 6, "");
    pprof_profile *p = decode_ok(t, &b, "odd strings");
    pprof_string s = {0};
    tap_ok(t,
           p && pprof_profile_string(p, 1, &s) && s.len == sizeof(odd) &&
               memcmp(s.data, odd, sizeof(odd)) == 0,
           "a string with NUL and invalid UTF-8 is kept byte for byte");
    tap_ok(t, p && pprof_profile_string(p, 2, &s) && s.len == 0, "an empty string");
    tap_ok(t, p && !pprof_profile_string(p, 3, &s) && !pprof_profile_string(p, -1, &s),
           "indices outside the table are refused");
    pprof_profile_free(p);
    pb_free(&b);
}

static void
test_errors(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    size_t at;
    pprof_profile *p = NULL;

    tap_ok(t, tu_decode_raw(NULL, 0, NULL, &p, NULL) == PPROF_E_EMPTY && !p,
           "empty input: PPROF_E_EMPTY");

    /* field 0 */
    pb_value_type(&b, 1, 0, 0);
    at = b.n;
    pb_byte(&b, 0x00);
    pb_byte(&b, 0x01);
    expect_err(t, &b, PPROF_E_WIRE, at, "", "field 0 at the top level");
    pb_free(&b);

    pb_v(&b, 9, 5);
    at = b.n;
    pb_byte(&b, 0x02); /* field 0, wire type 2 */
    pb_byte(&b, 0x00);
    expect_err(t, &b, PPROF_E_WIRE, at, "", "field 0 after a scalar");
    pb_free(&b);

    pb_v(&s, 1, 1);
    at = s.n;
    pb_byte(&s, 0x00);
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, at + 2, "sample[0]", "field 0 inside a sample");
    pb_free(&b);

    /* overlong, truncated and too large tags */
    const uint8_t overlong[] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01};
    pb_str(&b, 6, "");
    at = b.n;
    pb_raw(&b, overlong, sizeof(overlong));
    expect_err(t, &b, PPROF_E_WIRE, at, "", "6-byte tag");
    pb_free(&b);
    const uint8_t huge_tag[] = {0xf8, 0xff, 0xff, 0xff, 0x7f, 0x01};
    pb_raw(&b, huge_tag, sizeof(huge_tag));
    expect_err(t, &b, PPROF_E_WIRE, 0, "", "tag above 2^32");
    pb_free(&b);
    pb_str(&b, 6, "");
    at = b.n;
    pb_byte(&b, 0x88);
    expect_err(t, &b, PPROF_E_WIRE, at, "", "tag cut at the end");
    pb_free(&b);

    /* wire types 3, 4, 6, 7 are refused for unknown fields, at any level */
    for (uint32_t wt = 3; wt <= 7; wt++) {
        if (wt == 5)
            continue;
        char what[64];
        pb_str(&b, 6, "");
        at = b.n;
        pb_tag(&b, 20, wt);
        pb_byte(&b, 0);
        snprintf(what, sizeof(what), "wire type %u at the top level", wt);
        expect_err(t, &b, PPROF_E_WIRE, at, "field 20", what);
        pb_free(&b);

        pb_v(&s, 1, 1);
        pb_v(&s, 2, 1);
        pb_msg_free(&b, 4, &s); /* location[0] is fine */
        pb_v(&s, 1, 2);
        at = s.n;
        pb_tag(&s, 20, wt);
        pb_byte(&s, 0);
        size_t outer = b.n + 2;
        pb_msg_free(&b, 4, &s);
        snprintf(what, sizeof(what), "wire type %u inside a location", wt);
        expect_err(t, &b, PPROF_E_WIRE, outer + at, "location[1].field 20", what);
        pb_free(&b);
    }

    /* a known field with the wrong wire type */
    pb_str(&b, 6, "");
    at = b.n;
    pb_v(&b, 2, 1);
    expect_err(t, &b, PPROF_E_WIRE, at, "sample", "sample as a varint");
    pb_free(&b);

    at = b.n;
    pb_v(&b, 6, 1);
    expect_err(t, &b, PPROF_E_WIRE, at, "string_table", "string_table as a varint");
    pb_free(&b);

    at = b.n;
    pb_fixed32(&b, 13, 1);
    expect_err(t, &b, PPROF_E_WIRE, at, "comment", "comment as fixed32");
    pb_free(&b);

    at = b.n;
    pb_str(&b, 9, "x");
    expect_err(t, &b, PPROF_E_WIRE, at, "time_nanos", "time_nanos as bytes");
    pb_free(&b);

    at = b.n;
    pb_v(&b, 11, 3);
    expect_err(t, &b, PPROF_E_WIRE, at, "period_type", "period_type as a varint");
    pb_free(&b);

    pb_v(&s, 1, 1);
    at = s.n;
    pb_str(&s, 2, "x");
    pb_msg_free(&b, 5, &s);
    pb_v(&s, 1, 2);
    pb_msg_free(&b, 5, &s);
    expect_err(t, &b, PPROF_E_WIRE, at + 2, "function[0].name", "function.name as bytes");
    pb_free(&b);

    pb_v(&s, 1, 1);
    pb_msg_free(&b, 5, &s);
    at = b.n + 2;
    pb_str(&s, 1, "x");
    pb_msg_free(&b, 5, &s);
    expect_err(t, &b, PPROF_E_WIRE, at, "function[1].id", "function[1].id as bytes");
    pb_free(&b);

    pb_v(&s, 1, 1);
    at = s.n;
    pb_str(&s, 8, "");
    pb_msg_free(&b, 3, &s);
    expect_err(t, &b, PPROF_E_WIRE, at + 2, "mapping[0].has_filenames",
               "mapping.has_filenames as bytes");
    pb_free(&b);

    pb_v(&s, 1, 1);
    pb_msg_free(&b, 4, &s);
    pb_v(&s, 1, 2);
    pb_v(&l, 1, 1);
    pb_msg_free(&s, 4, &l);
    size_t in_loc = s.n + 2; /* tag and 1-byte length of line[1] */
    pb_fixed64(&l, 1, 1);
    pb_msg_free(&s, 4, &l);
    at = b.n + 2 + in_loc;
    pb_msg_free(&b, 4, &s);
    expect_err(t, &b, PPROF_E_WIRE, at, "location[1].line[1].function_id",
               "line.function_id as fixed64");
    pb_free(&b);

    pb_v(&s, 1, 1);
    at = s.n;
    pb_v(&s, 4, 1);
    pb_msg_free(&b, 4, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2 + at, "location[0].line", "location.line as a varint");
    pb_free(&b);

    pb_msg_free(&b, 2, &s); /* an empty sample */
    pb_v(&l, 1, 1);
    pb_msg_free(&s, 3, &l);
    in_loc = s.n;
    pb_fixed32(&l, 1, 1);
    pb_msg_free(&s, 3, &l);
    at = b.n + 2 + in_loc + 2;
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, at, "sample[1].label[1].key", "label.key as fixed32");
    pb_free(&b);

    at = 2;
    pb_fixed64(&s, 1, 1);
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, at, "sample[0].location_id", "location_id as fixed64");
    pb_free(&b);

    pb_fixed32(&s, 2, 1);
    pb_msg_free(&b, 1, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2, "sample_type[0].unit", "sample_type.unit as fixed32");
    pb_free(&b);

    /* truncated and overlong varints */
    pb_str(&b, 6, "");
    pb_tag(&b, 9, 0);
    at = b.n;
    pb_byte(&b, 0x80);
    expect_err(t, &b, PPROF_E_WIRE, at, "time_nanos", "varint cut at the end");
    pb_free(&b);

    pb_tag(&b, 12, 0);
    for (int i = 0; i < 10; i++)
        pb_byte(&b, 0xff);
    pb_byte(&b, 0x01);
    expect_err(t, &b, PPROF_E_WIRE, 1, "period", "11-byte varint");
    pb_free(&b);

    pb_tag(&b, 12, 0);
    for (int i = 0; i < 9; i++)
        pb_byte(&b, 0xff);
    pb_byte(&b, 0x01);
    p = decode_ok(t, &b, "10-byte varint");
    tap_ok(t, p && pprof_profile_header(p).period == -1, "10-byte varint gives -1");
    pprof_profile_free(p);
    pb_free(&b);

    pb_tag(&s, 1, 2);
    pb_varint(&s, 3);
    pb_byte(&s, 0x01);
    pb_byte(&s, 0x81);
    pb_byte(&s, 0x82); /* the packed run ends inside this varint */
    pb_v(&s, 2, 1);
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2 + 3, "sample[0].location_id",
               "varint cut at the end of a packed run");
    pb_free(&b);

    pb_v(&s, 1, 1);
    pb_tag(&l, 2, 0);
    pb_byte(&l, 0x80);
    pb_msg_free(&s, 4, &l);
    pb_msg_free(&b, 4, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2 + 2 + 2 + 1, "location[0].line[0].line",
               "varint cut at the end of a line");
    pb_free(&b);

    /* lengths past the end */
    pb_str(&b, 6, "");
    at = b.n;
    pb_tag(&b, 2, 2);
    pb_varint(&b, 5);
    pb_byte(&b, 0x08);
    pb_byte(&b, 0x01);
    expect_err(t, &b, PPROF_E_WIRE, at, "sample[0]", "sample longer than the input");
    pb_free(&b);

    pb_v(&s, 1, 1);
    at = s.n;
    pb_tag(&s, 3, 2);
    pb_varint(&s, 10);
    pb_byte(&s, 0x08);
    pb_msg_free(&b, 2, &s);
    pb_v(&b, 9, 1);
    expect_err(t, &b, PPROF_E_WIRE, 2 + at, "sample[0].label[0]", "label longer than its sample");
    pb_free(&b);

    pb_tag(&s, 2, 2);
    pb_varint(&s, 4);
    pb_byte(&s, 0x01);
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2, "sample[0].value", "packed run longer than its sample");
    pb_free(&b);

    pb_str(&b, 6, "");
    pb_str(&b, 6, "a");
    at = b.n;
    pb_tag(&b, 6, 2);
    pb_varint(&b, 3);
    pb_byte(&b, 'x');
    expect_err(t, &b, PPROF_E_WIRE, at, "string_table[2]", "string longer than the input");
    pb_free(&b);

    pb_tag(&b, 99, 2);
    pb_varint(&b, 1000);
    expect_err(t, &b, PPROF_E_WIRE, 0, "field 99", "unknown field longer than the input");
    pb_free(&b);

    pb_fixed64(&b, 99, 1);
    b.n -= 1;
    expect_err(t, &b, PPROF_E_WIRE, 0, "field 99", "fixed64 cut at the end");
    pb_free(&b);

    pb_v(&s, 1, 1);
    pb_fixed32(&s, 99, 1);
    s.n -= 1;
    pb_msg_free(&b, 5, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2 + 2, "function[0].field 99",
               "fixed32 cut at the end of a function");
    pb_free(&b);

    /* every nested message: a length that is longer than the message around it */
    const uint32_t outer[] = {1, 2, 3, 4, 5, 11};
    const char *const names[] = {"sample_type[0]", "sample[0]",   "mapping[0]",
                                 "location[0]",    "function[0]", "period_type"};
    for (size_t i = 0; i < 6; i++) {
        pb_tag(&b, outer[i], 2);
        pb_varint(&b, UINT64_C(1) << 62);
        pb_v(&b, 1, 1);
        char what[64];
        snprintf(what, sizeof(what), "%s with an absurd length", names[i]);
        expect_err(t, &b, PPROF_E_WIRE, 0, names[i], what);
        pb_free(&b);
    }
}

/* Ten varint bytes whose last one is `last`: 9 continuation bytes of 0xff. */
static void
pb_varint10(pb *b, uint8_t last)
{
    for (int i = 0; i < 9; i++)
        pb_byte(b, 0xff);
    pb_byte(b, last);
}

/* A 10th varint byte above 1 sets bits past bit 63: malformed wire data wherever the varint is
 * (protobuf forbids it; reading it truncated the value silently), refused at its byte offset. */
static void
test_varint_overflow(tap *t)
{
    pb b = {0}, s = {0}, m = {0};
    for (uint8_t last = 2; last != 0; last = last == 2 ? 0x7f : 0) {
        /* at the end of the input: the bounds-checked path */
        pb_tag(&b, 12, 0);
        pb_varint10(&b, last);
        expect_err(t, &b, PPROF_E_WIRE, 1, "period", "10th byte past bit 63, at the end");
        /* more than 10 bytes left: the unchecked path */
        pb_v(&b, 9, 1);
        expect_err(t, &b, PPROF_E_WIRE, 1, "period", "10th byte past bit 63, bytes after it");
        pb_free(&b);
    }
    pb_tag(&s, 2, 2); /* packed values: 1, then the bad one, then 1 */
    pb_varint(&s, 12);
    pb_byte(&s, 0x01);
    pb_varint10(&s, 0x02);
    pb_byte(&s, 0x01);
    pb_msg_free(&b, 2, &s);
    expect_err(t, &b, PPROF_E_WIRE, 2 + 2 + 1, "sample[0].value", "in a packed run");
    pb_free(&b);

    pb_v(&m, 1, 1);
    pb_tag(&m, 7, 0); /* a bool whose only set bits are past 64 (protobuf-c reads it true) */
    pb_varint10(&m, 0x7e);
    pb_msg_free(&b, 3, &m);
    expect_err(t, &b, PPROF_E_WIRE, 2 + 2 + 1, "mapping[0].has_functions", "in a bool");
    pb_free(&b);

    pb_tag(&b, 99, 0);
    pb_varint10(&b, 0x40);
    expect_err(t, &b, PPROF_E_WIRE, 0, "field 99", "in an unknown field");
    pb_free(&b);

    pb_tag(&b, 12, 0);
    pb_varint10(&b, 0x01);
    pprof_profile *p = decode_ok(t, &b, "10th byte 1 (bit 63 only)");
    tap_ok(t, p && pprof_profile_header(p).period == -1, "10th byte 1 still reads as -1");
    pprof_profile_free(p);
    pb_free(&b);
}

static pprof_status
decode_relaxed(const pb *b, uint32_t relax, pprof_profile **p, pprof_error *err)
{
    pprof_read_options o;
    pprof_read_options_init(&o);
    o.relax = relax;
    return tu_decode_raw(b->d, b->n, &o, p, err);
}

/* A non-empty string_table[0] is refused (Go: "string_table[0] must be ''") with the checker's
 * rule id, unless relaxed for a reader that only reports. */
static void
test_string0(tap *t)
{
    pb b = {0};
    pb_v(&b, 12, 1);
    size_t at = b.n;
    pb_str(&b, 6, "main");
    pb_str(&b, 6, "");
    expect_err(t, &b, PPROF_E_INVALID, at, "string_table[0]", "string_table[0] = \"main\"");
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_rule r;
    tu_decode_raw(b.d, b.n, NULL, &p, &err);
    tap_ok(t,
           strstr(err.message, "must be ''") && strstr(err.message, "\"main\"") &&
               pprof_check_read_error_rule(&err, &r) && r == PPROF_RULE_W6_STRING_TABLE_0,
           "the message quotes it and maps to W6-string-table-0: %s", err.message);
    pprof_merge_input *in = NULL;
    tap_ok(t,
           pprof_merge_input_read_memory(b.d, b.n, NULL, &in, &err) == PPROF_E_INVALID && !in &&
               strstr(err.message, "W6-string-table-0"),
           "a merge input refuses it too");
    pprof_string s = {0};
    tap_ok(t,
           decode_relaxed(&b, PPROF_RELAX_STRING0, &p, NULL) == PPROF_OK &&
               pprof_profile_string(p, 0, &s) && s.len == 4,
           "PPROF_RELAX_STRING0 keeps it");
    pprof_profile_free(p);
    pb_free(&b);
    pb_str(&b, 6, "");
    pb_str(&b, 6, "main");
    pb_str(&b, 6, "");
    p = decode_ok(t, &b, "\"\" first, other strings and a later \"\"");
    pprof_profile_free(p);
    pb_free(&b);
}

/* Two profiles back to back (`cat a.pb b.pb`): Go's test, a second time_nanos after a nonzero
 * one, names them at the second one's byte offset. */
static void
test_concatenated(tap *t)
{
    pb one = {0}, b = {0};
    pb_str(&one, 6, "");
    pb_str(&one, 6, "cpu");
    pb_value_type(&one, 1, 1, 1);
    pb_v(&one, 9, 1700000000);
    pb_raw(&b, one.d, one.n);
    size_t at = b.n + (one.n - 5 - 1); /* the second copy's time_nanos tag */
    pb_raw(&b, one.d, one.n);
    expect_err(t, &b, PPROF_E_INVALID, at, "time_nanos", "two profiles back to back");
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_rule r;
    tu_decode_raw(b.d, b.n, NULL, &p, &err);
    tap_ok(t,
           strstr(err.message, "concatenated profiles detected") && err.offset == at &&
               pprof_check_read_error_rule(&err, &r) && r == PPROF_RULE_W8_CONCATENATED,
           "says so, with the offset, and maps to W8-concatenated: %s", err.message);
    pprof_merge_input *in = NULL;
    tap_ok(t,
           pprof_merge_input_read_memory(b.d, b.n, NULL, &in, &err) == PPROF_E_INVALID && !in &&
               strstr(err.message, "concatenated profiles detected"),
           "a merge input refuses them too (not \"another mapping has id 1\")");
    tap_ok(t,
           decode_relaxed(&b, PPROF_RELAX_CONCATENATED, &p, NULL) == PPROF_OK &&
               pprof_profile_count(p, PPROF_TABLE_STRING) == 4,
           "PPROF_RELAX_CONCATENATED reads both as one");
    pprof_profile_free(p);
    pb_free(&b);
    /* `cat a.pb.gz b.pb.gz`: two gzip members, read as one stream */
    pprof_buffer gz = {0};
    pprof__compress(one.d, one.n, PPROF_FORMAT_GZIP, 0, 1, NULL, &gz, NULL);
    pprof__compress(one.d, one.n, PPROF_FORMAT_GZIP, 0, 1, NULL, &gz, NULL);
    tap_ok(t,
           pprof_profile_read_memory(gz.data, gz.len, NULL, &p, &err) == PPROF_E_INVALID &&
               err.offset == at && strstr(err.message, "concatenated profiles detected"),
           "two gzip members of one profile each: the same");
    pprof_buffer_free(&gz);
    /* a zero time_nanos before, as Go: not a sign of a second profile */
    pb_v(&b, 9, 0);
    pb_v(&b, 9, 5);
    p = decode_ok(t, &b, "time_nanos 0 then 5");
    tap_ok(t, p && pprof_profile_header(p).time_nanos == 5, "time_nanos 0 then 5 reads 5");
    pprof_profile_free(p);
    pb_free(&b);
    pb_free(&one);
}

/* Text and other non-protobuf bytes say so instead of naming a wire-type error; a damaged
 * profile keeps its own error. */
static void
test_not_a_profile(tap *t)
{
    static const char *const texts[] = {"hello world, this is text\n", "{\"a\": 1}\n",
                                        "# comment\n", "PeriodType: cpu nanoseconds\n",
                                        "caf\xc3\xa9 au lait\n"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st =
            tu_decode_raw((const uint8_t *)texts[i], strlen(texts[i]), NULL, &p, &err);
        char want[80];
        snprintf(want, sizeof(want), "not a pprof profile (no protobuf structure at byte %llu)",
                 (unsigned long long)err.offset);
        pprof_rule r;
        tap_ok(t,
               st == PPROF_E_WIRE && !p && strncmp(err.message, want, strlen(want)) == 0 &&
                   pprof_check_read_error_rule(&err, &r) &&
                   (r == PPROF_RULE_W4_BAD_WIRE_TYPE || r == PPROF_RULE_W5_TYPE_MISMATCH),
               "text %zu: %s (a wire-type rule for the checker)", i, err.message);
    }
    uint8_t zeros[64] = {0};
    pprof_profile *p = NULL;
    pprof_error err = {0};
    tap_ok(t,
           tu_decode_raw(zeros, sizeof(zeros), NULL, &p, &err) == PPROF_E_WIRE && err.offset == 0 &&
               strstr(err.message, "not a pprof profile (no protobuf "
                                   "structure at byte 0)"),
           "zero bytes: %s", err.message);
    pb b = {0};
    pb_str(&b, 6, "");
    pb_tag(&b, 2, 2); /* a profile cut inside a sample keeps the decoder's error */
    pb_varint(&b, 50);
    pb_v(&b, 1, 1);
    tap_ok(t,
           tu_decode_raw(b.d, b.n, NULL, &p, &err) == PPROF_E_WIRE &&
               !strstr(err.message, "not a pprof profile") && strcmp(err.path, "sample[0]") == 0,
           "a truncated profile: %s", err.message);
    pb_free(&b);
}

int
main(void)
{
    tap t = {0};
    test_valid(&t);
    test_packed_mixed(&t);
    test_unknown(&t);
    test_merge_semantics(&t);
    test_strings(&t);
    test_errors(&t);
    test_varint_overflow(&t);
    test_string0(&t);
    test_concatenated(&t);
    test_not_a_profile(&t);
    return tap_done(&t);
}
