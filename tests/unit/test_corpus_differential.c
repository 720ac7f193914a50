/* protobuf-c as the reference decoder: for every corpus file and thousands of corrupted variants
 * of it (truncations and byte flips from a fixed seed), the hand-written decoder and protobuf-c
 * agree on accept/reject, and when both accept, on every field value. The comparison is at the
 * wire level, so files are decompressed first.
 *
 * Intentional differences, recognised precisely by known_difference() and counted apart:
 * - Empty input: protobuf-c returns an empty message; we refuse it with PPROF_E_EMPTY, because
 *   an empty file is never a profile a tool meant to write. Variants are never empty here.
 * - A bool field (location.is_folded, mapping.has_*) with a wire type other than varint:
 *   protobuf-c does not check the wire type of bool fields (it does for every other scalar) and
 *   reads the payload bytes as a bool. We refuse it as a type mismatch, as Go's pprof reader
 *   does for every field.
 * - A tag above 2^32 (5-byte varint with high bits) or an overlong encoding of field 0:
 *   protobuf-c truncates the first to 32 bits and reads the second as an unknown field 0; the
 *   protobuf spec makes both invalid, and we refuse them.
 * - A varint whose 10th byte sets bits past bit 63: protobuf-c drops those bits; protobuf
 *   forbids them and we refuse the varint as malformed wire data (pinned by an edge case below).
 * Any other disagreement fails the test. */
#include "pb.h"
#include "pbc-private.h"
#include "testutil.h"
#include "wire-private.h"

typedef struct stats {
    size_t variants, both_ok, both_fail, odd, disagree;
} stats;

/* The reason when a disagreement is one of the intentional differences above, else NULL. */
static const char *
known_difference(const uint8_t *d, size_t n, pprof_status st, const pprof_error *err,
                 bool pbc_accepts)
{
    static const char *const bools[] = {".is_folded", ".has_functions", ".has_filenames",
                                        ".has_line_numbers", ".has_inline_frames"};
    if (st != PPROF_E_WIRE || !pbc_accepts)
        return NULL;
    size_t plen = strlen(err->path);
    if (strstr(err->message, "type mismatch"))
        for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
            size_t bl = strlen(bools[i]);
            if (plen > bl && strcmp(err->path + plen - bl, bools[i]) == 0)
                return "bool field with a non-varint wire type";
        }
    if (strstr(err->message, "bad field tag") && err->offset < n) {
        uint64_t v = 0;
        size_t len = 0, at = (size_t)err->offset;
        while (at + len < n && len < 5) {
            v |= (uint64_t)(d[at + len] & 0x7f) << (7 * len);
            if (!(d[at + len++] & 0x80))
                break;
        }
        bool terminated = len && !(d[at + len - 1] & 0x80);
        if (terminated && len == 5 && v > UINT32_MAX)
            return "tag above 2^32";
        if (terminated && len >= 2 && (v >> 3) == 0)
            return "overlong tag of field 0";
    }
    if (strstr(err->message, "bad varint") && err->offset < n)
        for (size_t at = (size_t)err->offset; at <= (size_t)err->offset + 5 && n - at > 9; at++) {
            size_t k = 0; /* the varint starts at the offset, or after an unknown field's tag */
            while (k < 9 && (d[at + k] & 0x80))
                k++;
            if (k == 9 && d[at + 9] >= 2)
                return "varint with bits past 64";
        }
    return NULL;
}

/* 1 both accept and agree, 0 both reject, 2 an intentional difference, -1 a disagreement (why
 * filled). */
static int
compare(const uint8_t *d, size_t n, char *why, size_t why_len)
{
    pprof_profile *p = NULL;
    pprof_error err = {0};
    /* The wire reading is compared: the two rules the decoder enforces on top (a non-empty
     * string_table[0], concatenated profiles) are relaxed, as protobuf-c knows neither. */
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    ro.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    pprof_status st = tu_decode_raw(d, n, &ro, &p, &err);
    Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(NULL, n, d);
    int r;
    const char *known;
    if (st == PPROF_OK && m) {
        r = pprof__pbc_equal(p, m, why, why_len) ? 1 : -1;
    } else if (st != PPROF_OK && !m) {
        r = 0;
    } else if ((known = known_difference(d, n, st, &err, m != NULL))) {
        snprintf(why, why_len, "%s", known);
        r = 2;
    } else {
        snprintf(why, why_len, "ours: %s%s%s: %s (byte %llu), protobuf-c: %s",
                 pprof_status_name(st), st ? " " : "", st ? err.path : "", err.message,
                 (unsigned long long)err.offset, m ? "accepts" : "rejects");
        r = -1;
    }
    if (m)
        perftools__profiles__profile__free_unpacked(m, NULL);
    pprof_profile_free(p);
    return r;
}

static void
variant(tap *t, stats *s, const char *name, const char *kind, size_t at, const uint8_t *d, size_t n)
{
    char why[512] = "";
    s->variants++;
    int r = compare(d, n, why, sizeof(why));
    if (r == 1)
        s->both_ok++;
    else if (r == 0)
        s->both_fail++;
    else if (r == 2) {
        s->odd++;
        if (s->odd <= 3)
            tap_diag("%s: %s at %zu: intentional difference: %s", name, kind, at, why);
    } else {
        s->disagree++;
        if (s->disagree <= 20)
            tap_diag("%s: %s at %zu: %s", name, kind, at, why);
    }
    (void)t;
}

/* Hand-made encodings where decoders often differ: both must accept and agree. */
static void
edge_cases(tap *t)
{
    pb c[8] = {{0}};
    pb s = {0}, l = {0};
    const char *what[8] = {"period_type twice (the last one wins)",
                           "a scalar twice (last wins)",
                           "packed and unpacked runs mixed in one sample",
                           "unknown fields of every wire type at every level",
                           "10-byte negative varints",
                           "a string with a NUL byte",
                           "bool fields holding 2 and 0x80 0x01",
                           "huge ids and field numbers"};
    pb_value_type(&c[0], 11, 1, 0);
    pb_v(&s, 2, 2);
    pb_msg_free(&c[0], 11, &s);
    pb_str(&c[0], 6, "");
    pb_v(&c[1], 12, 5);
    pb_v(&c[1], 12, 7);
    pb_v(&c[1], 9, 1);
    const uint64_t ids[] = {1, 2, 300};
    pb_packed(&s, 1, ids, 3);
    pb_v(&s, 1, 4);
    pb_packed(&s, 1, ids, 2);
    pb_v(&s, 2, 9);
    pb_packed(&s, 2, ids, 3);
    pb_msg_free(&c[2], 2, &s);
    pb_v(&c[3], 100, 1);
    pb_fixed64(&c[3], 101, 2);
    pb_str(&c[3], 102, "x");
    pb_fixed32(&c[3], 103, 3);
    pb_v(&s, 1, 1);
    pb_fixed64(&s, 20, 1);
    pb_v(&l, 1, 1);
    pb_fixed32(&l, 9, 1);
    pb_str(&l, 10, "y");
    pb_msg_free(&s, 4, &l);
    pb_msg_free(&c[3], 4, &s);
    pb_v(&s, 2, 1);
    pb_fixed32(&s, 30, 1);
    pb_v(&l, 1, 1);
    pb_str(&l, 7, "");
    pb_msg_free(&s, 3, &l);
    pb_msg_free(&c[3], 2, &s);
    pb_v(&c[4], 10, (uint64_t)-1);
    pb_v(&s, 2, (uint64_t)INT64_MIN);
    pb_v(&l, 3, (uint64_t)-42);
    pb_msg_free(&s, 3, &l);
    pb_msg_free(&c[4], 2, &s);
    pb_str(&c[5], 6, "");
    pb_bytes(&c[5], 6, "a\0b", 3);
    pb_v(&s, 1, 1);
    pb_v(&s, 7, 2);
    pb_tag(&s, 8, 0);
    pb_byte(&s, 0x80);
    pb_byte(&s, 0x01);
    pb_msg_free(&c[6], 3, &s);
    pb_v(&s, 1, UINT64_MAX);
    pb_v(&s, 3, UINT64_MAX - 1);
    pb_msg_free(&c[7], 4, &s);
    pb_v(&c[7], (1u << 29) - 1, 1);
    for (int i = 0; i < 8; i++) {
        char why[512] = "";
        int r = compare(c[i].d, c[i].n, why, sizeof(why));
        if (!tap_ok(t, r == 1, "edge case: %s", what[i]))
            tap_diag("%s", why);
        pb_free(&c[i]);
    }

    /* period_type twice, {type 1} then {unit 2}: we keep the last occurrence (type 0, unit 2),
     * as protobuf-c and Go's pprof reader do; the protobuf spec would merge them. */
    {
        pb c0 = {0}, vt = {0};
        pb_value_type(&c0, 11, 1, 0);
        pb_v(&vt, 2, 2);
        pb_msg_free(&c0, 11, &vt);
        pprof_profile *p = NULL;
        tap_ok(t,
               tu_decode_raw(c0.d, c0.n, NULL, &p, NULL) == PPROF_OK &&
                   pprof_profile_header(p).period_type.type == 0 &&
                   pprof_profile_header(p).period_type.unit == 2,
               "period_type twice: the last occurrence wins");
        pprof_profile_free(p);
        pb_free(&c0);
    }

    /* A bool whose only set bit lies past bit 63: protobuf-c tests every byte and says true;
     * the value does not fit 64 bits, which protobuf forbids, and we refuse it. Pinned here so
     * a change on either side is noticed. */
    pb b = {0};
    pb_v(&s, 1, 1);
    pb_tag(&s, 5, 0);
    for (int i = 0; i < 9; i++)
        pb_byte(&s, 0x80);
    pb_byte(&s, 0x02);
    pb_msg_free(&b, 4, &s);
    pprof_profile *p = NULL;
    pprof_error err = {0};
    Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(NULL, b.n, b.d);
    bool ours = tu_decode_raw(b.d, b.n, NULL, &p, &err) == PPROF_E_WIRE && err.offset == 5 &&
                strcmp(err.path, "location[0].is_folded") == 0;
    tap_ok(t, ours && m && m->n_location == 1 && m->location[0]->is_folded,
           "known difference: a bool set only past bit 63 is refused by us, true for protobuf-c");
    if (m)
        perftools__profiles__profile__free_unpacked(m, NULL);
    pprof_profile_free(p);
    pb_free(&b);
}

int
main(void)
{
    tap t = {0};
    edge_cases(&t);
    tu_files fl = tu_corpus();
    if (fl.n == 0) {
        tap_diag("no corpus at %s: only the edge cases ran", tap_real_corpus());
        return tap_done(&t);
    }
    stats total = {0};
    uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < fl.n; i++) {
        const char *name = tu_short(fl.path[i]);
        size_t flen, n;
        uint8_t *file = tu_read_file(fl.path[i], &flen);
        uint8_t *raw = file ? tu_decompress(file, flen, &n) : NULL;
        free(file);
        if (!raw || n == 0) {
            tap_ok(&t, false, "%s: decompresses", name);
            pprof__free(NULL, raw);
            continue;
        }
        char why[512] = "";
        int r = compare(raw, n, why, sizeof(why));
        if (!tap_ok(&t, r == 1, "%s: both decoders accept it and agree on every field", name))
            tap_diag("%s", why);

        /* more variants for small files, fewer for large ones: about the same bytes each */
        size_t k = (size_t)4000000 / n;
        k = k < 24 ? 24 : k > 300 ? 300 : k;
        stats s = {0};
        uint8_t *buf = malloc(n);
        for (size_t j = 0; j < k / 2; j++) {
            /* the first bytes exactly, then spread over the file */
            size_t cut = j < 16 ? j + 1 : 1 + (size_t)(pb_rand(&seed) % (n - 1));
            variant(&t, &s, name, "truncation", cut, raw, cut);
        }
        for (size_t j = 0; j < k - k / 2; j++) {
            memcpy(buf, raw, n);
            int flips = 1 + (int)(pb_rand(&seed) % 3);
            size_t first = 0;
            for (int f = 0; f < flips; f++) {
                size_t at = (size_t)(pb_rand(&seed) % n);
                if (!f)
                    first = at;
                /* half bit flips, half arbitrary bytes: both reach different decoder paths */
                uint64_t rnd = pb_rand(&seed);
                buf[at] = rnd & 1 ? buf[at] ^ (uint8_t)(1u << (rnd >> 1 & 7)) : (uint8_t)(rnd >> 8);
            }
            variant(&t, &s, name, "flip", first, buf, n);
        }
        free(buf);
        pprof__free(NULL, raw);
        tap_ok(&t, s.disagree == 0,
               "%s: %zu variants agree (%zu both accept, %zu both reject, %zu intentional "
               "differences)",
               name, s.variants, s.both_ok, s.both_fail, s.odd);
        total.variants += s.variants;
        total.both_ok += s.both_ok;
        total.both_fail += s.both_fail;
        total.odd += s.odd;
        total.disagree += s.disagree;
    }
    tap_diag("%zu variants: %zu both accept, %zu both reject, %zu intentional differences, %zu "
             "disagreements",
             total.variants, total.both_ok, total.both_fail, total.odd, total.disagree);
    tap_ok(&t, total.variants >= 2000 && total.both_ok > 0 && total.both_fail > 0,
           "thousands of variants, some accepted and some rejected by both");
    tu_files_free(&fl);
    return tap_done(&t);
}
