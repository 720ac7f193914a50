/* Robustness (run it under ASan+UBSan): every truncation of several real files at every byte
 * offset, of the decompressed bytes and of the gzip bytes, and random byte flips from a fixed
 * seed, give a clean error or a profile, never a crash. Whatever reads is then written, printed
 * and compared, which must not crash either (a damaged profile may hold dangling indices). */
#include "pb.h"
#include "testutil.h"

static const char *const FILES[] = {
    "parca/query-two-stacks.pb.gz",
    "parca/query-single-stack.pb.gz",
    "parca/symbolizer-profile.pb.gz",
    "parca/query-fib.pb.gz",
    "generated/invalid-utf8.pb.gz",
    "generated/no-address-no-line.pb.gz",
};

typedef struct tally {
    size_t ok, err, unclean;
} tally;

/* Exercises everything that reads a profile. */
static void
use(const pprof_profile *p)
{
    pprof_buffer b = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_error err;
    if (pprof_profile_write_memory(p, &w, &b, &err) == PPROF_OK) {
        pprof_profile *q = NULL;
        /* what we write reads back equal, even from a damaged input */
        if (pprof_profile_read_memory(b.data, b.len, NULL, &q, NULL) != PPROF_OK ||
            !pprof_profile_equal(p, q))
            abort();
        pprof_profile_free(q);
    }
    b.len = 0;
    pprof_profile_print(p, PPROF_PRINT_JSON, &b, NULL);
    b.len = 0;
    pprof_profile_print(p, PPROF_PRINT_TEXT, &b, NULL);
    pprof_buffer_free(&b);
    if (!pprof_profile_equal(p, p))
        abort();
    size_t idx;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_LOCATION); i++)
        pprof_profile_find_location(p, pprof_profile_location(p, i).id, &idx);
}

static void
one(tally *t, const uint8_t *d, size_t n, bool raw)
{
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_status st =
        raw ? tu_decode_raw(d, n, NULL, &p, &err) : pprof_profile_read_memory(d, n, NULL, &p, &err);
    if (st == PPROF_OK) {
        if (!p) {
            t->unclean++;
            return;
        }
        t->ok++;
        use(p);
        pprof_profile_free(p);
        return;
    }
    bool clean = !p && err.code == st && err.message[0] &&
                 (st == PPROF_E_WIRE || st == PPROF_E_EMPTY || st == PPROF_E_COMPRESSION ||
                  st == PPROF_E_LIMIT || st == PPROF_E_INVALID) &&
                 (st != PPROF_E_WIRE || err.offset <= n) &&
                 (st != PPROF_E_INVALID || (err.offset != PPROF_NO_OFFSET && err.path[0]));
    if (clean)
        t->err++;
    else {
        t->unclean++;
        tap_diag("unclean: %s offset %llu path '%s' message '%s'", pprof_status_name(st),
                 (unsigned long long)err.offset, err.path, err.message);
    }
}

int
main(void)
{
    tap t = {0};
    uint64_t seed = 12345;
    int found = 0;
    for (size_t f = 0; f < sizeof(FILES) / sizeof(FILES[0]); f++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", tap_real_corpus(), FILES[f]);
        size_t glen, n;
        uint8_t *gz = tu_read_file(path, &glen);
        if (!gz) {
            tap_diag("%s missing", path);
            continue;
        }
        found++;
        uint8_t *raw = tu_decompress(gz, glen, &n);
        tap_ok(&t, raw != NULL, "%s: decompresses (%zu -> %zu bytes)", FILES[f], glen, n);
        if (!raw) {
            free(gz);
            continue;
        }

        tally a = {0};
        for (size_t k = 0; k <= n; k++)
            one(&a, raw, k, true);
        tap_ok(&t, a.unclean == 0 && a.ok > 0 && a.err > 0,
               "%s: all %zu truncations of the protobuf: %zu read, %zu clean errors", FILES[f],
               n + 1, a.ok, a.err);

        tally b = {0};
        for (size_t k = 0; k <= glen; k++)
            one(&b, gz, k, false);
        /* a cut gzip stream is never mistaken for a shorter profile */
        tap_ok(&t, b.unclean == 0 && b.ok == 1 && b.err == glen,
               "%s: all %zu truncations of the gzip stream are clean errors but the whole",
               FILES[f], glen + 1);

        tally c = {0};
        uint8_t *buf = malloc(n > glen ? n : glen);
        for (int v = 0; v < 3000; v++) {
            bool on_raw = v % 3 != 0;
            const uint8_t *src = on_raw ? raw : gz;
            size_t len = on_raw ? n : glen;
            memcpy(buf, src, len);
            int flips = 1 + (int)(pb_rand(&seed) % 4);
            for (int i = 0; i < flips; i++) {
                uint64_t r = pb_rand(&seed);
                buf[r % len] ^= (uint8_t)(1 + (r >> 32) % 255);
            }
            one(&c, buf, len, on_raw);
        }
        tap_ok(&t, c.unclean == 0, "%s: 3000 byte-flip variants: %zu read, %zu clean errors",
               FILES[f], c.ok, c.err);
        free(buf);
        pprof__free(NULL, raw);
        free(gz);
    }
    if (!found) {
        return tap_skip_all("no corpus at %s", tap_real_corpus());
    }
    return tap_done(&t);
}
