/* Limits: decompression bombs refused before memory runs out, absurd declared lengths, every
 * count limit at and past its value, and an allocation-failure sweep that must never crash. */
#include <libdeflate.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "pb.h"
#include "proc-status.h"
#include "testutil.h"

/* An allocator that tracks live bytes and their peak, and can fail the n-th call. */
typedef struct counting {
    size_t live, peak, calls;
    size_t fail_at; /* 0 = never */
    bool failed;
} counting;

typedef struct hdr {
    size_t size;
    max_align_t pad;
} hdr;

static void *
c_alloc(void *ctx, size_t size)
{
    counting *c = ctx;
    if (++c->calls == c->fail_at) {
        c->failed = true;
        return NULL;
    }
    hdr *h = malloc(sizeof(hdr) + size);
    if (!h)
        return NULL;
    h->size = size;
    c->live += size;
    if (c->live > c->peak)
        c->peak = c->live;
    return h + 1;
}

static void
c_free(void *ctx, void *p)
{
    counting *c = ctx;
    if (!p)
        return;
    hdr *h = (hdr *)p - 1;
    c->live -= h->size;
    free(h);
}

static void *
c_realloc(void *ctx, void *p, size_t size)
{
    counting *c = ctx;
    if (!p)
        return c_alloc(ctx, size);
    if (++c->calls == c->fail_at) {
        c->failed = true;
        return NULL;
    }
    hdr *h = (hdr *)p - 1;
    size_t old = h->size;
    hdr *n = realloc(h, sizeof(hdr) + size);
    if (!n)
        return NULL;
    n->size = size;
    c->live = c->live - old + size;
    if (c->live > c->peak)
        c->peak = c->live;
    return n + 1;
}

static pprof_read_options
counting_opts(counting *c)
{
    pprof_read_options o;
    pprof_read_options_init(&o);
    o.allocator.alloc = c_alloc;
    o.allocator.realloc = c_realloc;
    o.allocator.free = c_free;
    o.allocator.ctx = c;
    return o;
}

/* Megabytes of one valid field, repeated, compress to a few KiB. */
static pb
bomb_payload(size_t size)
{
    pb b = {0};
    uint8_t field[] = {0x60, 0x01}; /* period = 1, valid however often it repeats */
    b.d = malloc(size);
    if (!b.d)
        abort();
    for (size_t i = 0; i < size; i += 2)
        memcpy(b.d + i, field, 2);
    b.n = b.cap = size;
    return b;
}

static void
test_bombs(tap *t)
{
    const size_t big = (size_t)16 << 20;
    pb payload = bomb_payload(big);
    pprof_buffer g = {0}, z = {0};
    if (pprof__compress(payload.d, payload.n, PPROF_FORMAT_GZIP, 1, 1, NULL, &g, NULL) ||
        pprof__compress(payload.d, payload.n, PPROF_FORMAT_ZSTD, 3, 1, NULL, &z, NULL))
        abort();
    /* a zstd frame that does not declare its size, so no hint can be trusted */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    pprof_buffer zu = {0};
    pprof__buffer_reserve(&zu, ZSTD_compressBound(payload.n));
    zu.len = ZSTD_compress2(cc, zu.data, zu.cap, payload.d, payload.n);
    ZSTD_freeCCtx(cc);
    pb_free(&payload);
    tap_diag("16 MiB bomb: gzip %zu bytes, zstd %zu bytes, zstd without size %zu bytes", g.len,
             z.len, zu.len);

    const pprof_buffer *bombs[] = {&g, &z, &zu};
    const char *names[] = {"gzip", "zstd", "zstd (no content size)"};
    for (int i = 0; i < 3; i++) {
        /* the absolute cap */
        counting c = {0};
        pprof_read_options o = counting_opts(&c);
        o.max_decompressed_bytes = 1 << 20;
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = pprof_profile_read_memory(bombs[i]->data, bombs[i]->len, &o, &p, &err);
        tap_ok(t, st == PPROF_E_LIMIT && !p && err.code == PPROF_E_LIMIT,
               "%s bomb refused by max_decompressed_bytes (%s: %s)", names[i],
               pprof_status_name(st), err.message);
        tap_ok(t, c.peak <= (3u << 20) && c.live == 0,
               "%s bomb: peak %zu bytes through the allocator for a 1 MiB cap, none left", names[i],
               c.peak);

        /* the ratio, past the floor */
        counting c2 = {0};
        o = counting_opts(&c2);
        o.max_ratio = 50;
        o.ratio_floor = 4096;
        st = pprof_profile_read_memory(bombs[i]->data, bombs[i]->len, &o, &p, &err);
        size_t cap = bombs[i]->len * 50;
        tap_ok(t, st == PPROF_E_LIMIT && !p && c2.peak <= 3 * cap + 8192,
               "%s bomb refused by max_ratio 50:1 (peak %zu bytes, cap %zu)", names[i], c2.peak,
               cap);

        /* the same bytes under the default limits read fine: they are a valid profile */
        counting c3 = {0};
        o = counting_opts(&c3);
        o.max_ratio = 0;
        st = pprof_profile_read_memory(bombs[i]->data, bombs[i]->len, &o, &p, &err);
        tap_ok(t, st == PPROF_OK && p && pprof_profile_header(p).period == 1,
               "%s: the same data reads when the limits allow it", names[i]);
        pprof_profile_free(p);
        tap_ok(t, c3.live == 0, "%s: everything freed", names[i]);
    }
    pprof_buffer_free(&g);
    pprof_buffer_free(&z);
    pprof_buffer_free(&zu);

    /* a damaged gzip trailer claiming 64 MiB must not make a tiny stream allocate it */
    {
        pb tiny = bomb_payload(256);
        pprof_buffer tg = {0};
        pprof__compress(tiny.d, tiny.n, PPROF_FORMAT_GZIP, 6, 1, NULL, &tg, NULL);
        tg.data[tg.len - 1] = 0x04; /* ISIZE = 0x04xxxxxx */
        counting c = {0};
        pprof_read_options o = counting_opts(&c);
        pprof_profile *p = NULL;
        pprof_status st = pprof_profile_read_memory(tg.data, tg.len, &o, &p, NULL);
        tap_ok(t, st == PPROF_E_COMPRESSION && c.peak < (1u << 20) && c.live == 0,
               "a %zu-byte gzip stream with a lying ISIZE: refused, peak %zu bytes", tg.len,
               c.peak);
        pprof_buffer_free(&tg);
        pb_free(&tiny);
    }

    /* raw input is checked against the same cap, and input size against max_input_bytes */
    pb small = bomb_payload(4096);
    pprof_read_options o;
    pprof_read_options_init(&o);
    o.max_decompressed_bytes = 4095;
    pprof_profile *p = NULL;
    tap_ok(t, pprof_profile_read_memory(small.d, small.n, &o, &p, NULL) == PPROF_E_LIMIT,
           "raw input over max_decompressed_bytes");
    o.max_decompressed_bytes = 4096;
    tap_ok(t, pprof_profile_read_memory(small.d, small.n, &o, &p, NULL) == PPROF_OK,
           "raw input at max_decompressed_bytes");
    pprof_profile_free(p);
    pprof_read_options_init(&o);
    o.max_input_bytes = 100;
    tap_ok(t, pprof_profile_read_memory(small.d, small.n, &o, &p, NULL) == PPROF_E_LIMIT,
           "input over max_input_bytes");
    pb_free(&small);
}

/* n bytes: head, then unit repeated (cut at n). */
static pb
pattern(const void *head, size_t head_len, const void *unit, size_t unit_len, size_t n)
{
    pb b = {0};
    b.d = malloc(n);
    if (!b.d)
        abort();
    memcpy(b.d, head, head_len);
    for (size_t i = head_len; i < n; i += unit_len)
        memcpy(b.d + i, unit, n - i < unit_len ? n - i : unit_len);
    b.n = b.cap = n;
    return b;
}

/* Bombs of the shapes that cost the most before, under the default limits: refused while they
 * are inflated, with a peak of memory far below what they expand to (issue 16 item 11). */
static void
test_bomb_shapes(tap *t)
{
    const size_t n = (size_t)64 << 20;
    static const uint8_t hdr_[] = {0x32, 0x00, 0x32, 0x03, 'c',  'p',  'u', 0x0a,
                                   0x04, 0x08, 0x01, 0x10, 0x01, 0x48, 0x01};
    struct {
        const char *name;
        pb data;
        pprof_format fmt;
        size_t max_peak;
        const char *says;
    } shapes[] = {
        {"zeros", pattern("", 0, "\0", 1, n), PPROF_FORMAT_GZIP, 1 << 20, "not a pprof profile"},
        {"zeros", pattern("", 0, "\0", 1, n), PPROF_FORMAT_ZSTD, 1 << 20, "not a pprof profile"},
        {"text", pattern("", 0, "hello world\n", 12, n), PPROF_FORMAT_GZIP, 1 << 20,
         "not a pprof profile"},
        {"a profile, then period repeated", pattern(hdr_, sizeof(hdr_), "\x60\x01", 2, n),
         PPROF_FORMAT_GZIP, 16 << 20, "decompression bomb"},
        {"a profile, then period repeated", pattern(hdr_, sizeof(hdr_), "\x60\x01", 2, n),
         PPROF_FORMAT_ZSTD, 16 << 20, "decompression bomb"},
        {"a profile, then empty samples", pattern(hdr_, sizeof(hdr_), "\x12\x00", 2, n),
         PPROF_FORMAT_GZIP, 16 << 20, "decompression bomb"},
        {"a profile, then one 100-byte string repeated",
         pattern(hdr_, sizeof(hdr_),
                 "\x32"
                 "daaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                 "aaaaaaaaaaaaaaaaaaaaaaaaaa",
                 102, n),
         PPROF_FORMAT_GZIP, 32 << 20, "decompression bomb"},
        {"4 M empty strings", pattern("", 0, "\x32\x00", 2, (size_t)8 << 20), PPROF_FORMAT_GZIP,
         16 << 20, "decompression bomb"},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        pprof_buffer c = {0};
        if (pprof__compress(shapes[i].data.d, shapes[i].data.n, shapes[i].fmt, 0, 1, NULL, &c,
                            NULL))
            abort();
        counting cnt = {0};
        pprof_read_options o = counting_opts(&cnt);
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = pprof_profile_read_memory(c.data, c.len, &o, &p, &err);
        tap_ok(t,
               st != PPROF_OK && !p && strstr(err.message, shapes[i].says) &&
                   cnt.peak <= shapes[i].max_peak && cnt.live == 0,
               "%s (%zu bytes, %s of %zu bytes): refused with a peak of %zu bytes: %s",
               shapes[i].name, shapes[i].data.n, pprof_format_name(shapes[i].fmt), c.len, cnt.peak,
               err.message);
        pprof_profile_free(p);
        pprof_buffer_free(&c);
        pb_free(&shapes[i].data);
    }
}

/* gzip as one member, as gzip(1) writes, whose trailer declares the size; or zstd. The data is
 * malloc'd. */
static pprof_buffer
compress_one(const uint8_t *d, size_t n, pprof_format fmt)
{
    pprof_buffer c = {0};
    size_t room = fmt == PPROF_FORMAT_GZIP ? 0 : ZSTD_compressBound(n);
    struct libdeflate_compressor *z = NULL;
    if (fmt == PPROF_FORMAT_GZIP) {
        if (!(z = libdeflate_alloc_compressor(6)))
            abort();
        room = libdeflate_gzip_compress_bound(z, n);
    }
    if (!(c.data = malloc(room)))
        abort();
    c.len =
        z ? libdeflate_gzip_compress(z, d, n, c.data, room) : ZSTD_compress(c.data, room, d, n, 3);
    libdeflate_free_compressor(z);
    if (!c.len || ZSTD_isError(c.len))
        abort();
    return c;
}

/* Strings that all differ (a counter in a long name: deflate gets about 34x out of them, past
 * the ratio of real profiles, but they repeat nothing), then one wire error at the very end.
 * Before the whole stream was validated first, it was refused only once all of it was in
 * memory (issue 16 item 11). The read runs in a child whose peak resident memory, past what it
 * had at the start, is measured (the high-water mark reset through /proc/self/clear_refs). */
static void
test_distinct_strings_late_error(tap *t)
{
    static const uint8_t hdr_[] = {0x32, 0x00, 0x32, 0x03, 'c',  'p',  'u', 0x0a,
                                   0x04, 0x08, 0x01, 0x10, 0x01, 0x48, 0x01};
    const size_t count = 700000, unit = 102;
    pb raw = {0};
    raw.n = raw.cap = sizeof(hdr_) + count * unit + 8;
    if (!(raw.d = malloc(raw.n)))
        abort();
    memcpy(raw.d, hdr_, sizeof(hdr_));
    uint8_t *w = raw.d + sizeof(hdr_);
    for (size_t i = 0; i < count; i++, w += unit) {
        char name[128];
        snprintf(name, sizeof(name), "\x32\x64%092d%08zx", 0, i);
        memcpy(w, name, unit);
    }
    memcpy(w, "\x00garbage", 8); /* field 0: malformed */
    const pprof_format fmts[] = {PPROF_FORMAT_GZIP, PPROF_FORMAT_ZSTD};
    for (size_t k = 0; k < 2; k++) {
        pprof_buffer c = compress_one(raw.d, raw.n, fmts[k]);
        counting cnt = {0};
        pprof_read_options o = counting_opts(&cnt);
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = pprof_profile_read_memory(c.data, c.len, &o, &p, &err);
        /* zstd gets 120x out of it: there the guard's own state (a set of 700 k hashes, the
         * window) is the bound */
        size_t bound = fmts[k] == PPROF_FORMAT_GZIP ? c.len * 10 : (size_t)24 << 20;
        tap_ok(t, st == PPROF_E_WIRE && !p && cnt.peak <= bound && cnt.live == 0,
               "distinct strings then a wire error (%zu bytes, %s of %zu bytes): refused with an "
               "allocator peak of %zu bytes (bound %zu): %s",
               raw.n, pprof_format_name(fmts[k]), c.len, cnt.peak, bound, err.message);
        pprof_profile_free(p);
        int fd[2];
        if (pipe(fd))
            abort();
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            FILE *cr = fopen("/proc/self/clear_refs", "w");
            if (cr) {
                fputs("5", cr);
                fclose(cr);
            }
            long start = status_kb("VmHWM");
            pprof_profile *q = NULL;
            pprof_status s2 = pprof_profile_read_memory(c.data, c.len, NULL, &q, NULL);
            long res[2] = {status_kb("VmHWM") - start, (long)s2};
            if (write(fd[1], res, sizeof(res)) != sizeof(res))
                _exit(1);
            _exit(0);
        }
        close(fd[1]);
        long res[2] = {-1, -1};
        bool got = read(fd[0], res, sizeof(res)) == sizeof(res);
        close(fd[0]);
        int ws = 0;
        waitpid(pid, &ws, 0);
        /* resident memory also holds what the C library keeps around the allocations */
        size_t rss_bound = bound + ((size_t)4 << 20);
        tap_ok(t,
               got && res[1] == PPROF_E_WIRE && res[0] >= 0 && (size_t)res[0] * 1024 <= rss_bound,
               "the same in a child: refused with %ld KB of peak resident memory past its start "
               "(bound %zu KB)",
               res[0], rss_bound / 1024);
        free(c.data);
        /* without the error, the same stream (checked, then inflated again) reads whole */
        c = compress_one(raw.d, raw.n - 8, fmts[k]);
        st = pprof_profile_read_memory(c.data, c.len, NULL, &p, &err);
        tap_ok(t, st == PPROF_OK && pprof_profile_count(p, PPROF_TABLE_STRING) == count + 2,
               "without the error, %s of %zu bytes: accepted with its %zu strings (%s)",
               pprof_format_name(fmts[k]), c.len, count + 2, st ? err.message : "ok");
        pprof_profile_free(p);
        free(c.data);
    }
    pb_free(&raw);
}

/* A gzip stream cut short says so, unlike a corrupt one (issue 16 item 14). */
static void
test_truncated_gzip(tap *t)
{
    static const uint8_t prof[] = {0x32, 0x00, 0x32, 0x03, 'c', 'p', 'u', 0x48, 0x01};
    pb big = pattern(prof, sizeof(prof), "\x32\x01x", 3, 200000);
    pprof_buffer c = {0};
    if (pprof__compress(big.d, big.n, PPROF_FORMAT_GZIP, 0, 1, NULL, &c, NULL))
        abort();
    bool all = true;
    for (size_t cut = 1; cut < c.len; cut += 1 + cut / 8) {
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = pprof_profile_read_memory(c.data, cut, NULL, &p, &err);
        if (cut >= 2 &&
            (st != PPROF_E_COMPRESSION || !strstr(err.message, "truncated gzip data"))) {
            tap_diag("cut at %zu of %zu: %s: %s", cut, c.len, pprof_status_name(st), err.message);
            all = false;
        }
        pprof_profile_free(p);
    }
    tap_ok(t, all, "gzip cut anywhere: 'truncated gzip data'");
    c.data[c.len / 2] ^= 0x55;
    pprof_profile *p = NULL;
    pprof_error err = {0};
    pprof_status st = pprof_profile_read_memory(c.data, c.len, NULL, &p, &err);
    tap_ok(t, st == PPROF_E_COMPRESSION && !strstr(err.message, "truncated"),
           "corrupt gzip is not called truncated: %s", err.message);
    pprof_buffer_free(&c);
    pb_free(&big);
}

static void
test_absurd_lengths(tap *t)
{
    const uint32_t fields[] = {1, 2, 3, 4, 5, 6, 11, 13, 99};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const uint64_t lens[] = {UINT64_MAX, UINT64_C(1) << 62, UINT64_C(1) << 31, 1u << 20};
        for (int j = 0; j < 4; j++) {
            counting c = {0};
            pprof_read_options o = counting_opts(&c);
            pb b = {0};
            pb_tag(&b, fields[i], 2);
            pb_varint(&b, lens[j]);
            pb_raw(&b, "\x08\x01\x10\x02", 4);
            pprof_profile *p = NULL;
            pprof_error err = {0};
            pprof_status st = pprof_profile_read_memory(b.d, b.n, &o, &p, &err);
            tap_ok(t, st == PPROF_E_WIRE && err.offset == 0 && c.peak < 65536 && c.live == 0,
                   "field %u with declared length %llu: PPROF_E_WIRE at byte 0, peak %zu "
                   "(%s)",
                   fields[i], (unsigned long long)lens[j], c.peak, err.path);
            pb_free(&b);
        }
    }
    /* inside a sample: an absurd packed run and an absurd label */
    pb b = {0}, s = {0};
    pb_tag(&s, 1, 2);
    pb_varint(&s, UINT64_C(1) << 40);
    pb_msg_free(&b, 2, &s);
    pprof_error err;
    pprof_profile *p = NULL;
    tap_ok(t,
           tu_decode_raw(b.d, b.n, NULL, &p, &err) == PPROF_E_WIRE &&
               strcmp(err.path, "sample[0].location_id") == 0 && err.offset == 2,
           "absurd packed length inside a sample");
    pb_free(&b);
}

typedef struct limit_case {
    const char *name;
    size_t field_offset; /* offsetof(pprof_read_options, max_x) */
    const char *path;    /* path of the error one past the limit */
} limit_case;

/* A profile holding exactly n of everything that is counted. */
static pb
counted_profile(uint64_t n)
{
    pb b = {0}, s = {0}, l = {0};
    for (uint64_t i = 0; i < n; i++)
        pb_str(&b, 6, i ? "s" : "");
    for (uint64_t i = 0; i < n; i++)
        pb_value_type(&b, 1, 0, 0);
    /* one sample with n stack entries, n values, n labels (so max_samples is n too) */
    for (uint64_t i = 0; i < n; i++) {
        if (i == 0) {
            for (uint64_t k = 0; k < n; k++)
                pb_v(&s, 1, k + 1);
            for (uint64_t k = 0; k < n; k++)
                pb_v(&s, 2, k);
            for (uint64_t k = 0; k < n; k++) {
                pb_v(&l, 1, 0);
                pb_msg_free(&s, 3, &l);
            }
        }
        pb_msg_free(&b, 2, &s);
    }
    for (uint64_t i = 0; i < n; i++) {
        pb_v(&s, 1, i + 1);
        pb_msg_free(&b, 3, &s);
    }
    for (uint64_t i = 0; i < n; i++) {
        pb_v(&s, 1, i + 1);
        if (i == 0)
            for (uint64_t k = 0; k < n; k++) {
                pb_v(&l, 1, 1);
                pb_msg_free(&s, 4, &l);
            }
        pb_msg_free(&b, 4, &s);
    }
    for (uint64_t i = 0; i < n; i++) {
        pb_v(&s, 1, i + 1);
        pb_msg_free(&b, 5, &s);
    }
    return b;
}

static void
test_counts(tap *t)
{
    const limit_case cases[] = {
        {"strings", offsetof(pprof_read_options, max_strings), "string_table[5]"},
        {"samples", offsetof(pprof_read_options, max_samples), "sample[5]"},
        {"locations", offsetof(pprof_read_options, max_locations), "location[5]"},
        {"functions", offsetof(pprof_read_options, max_functions), "function[5]"},
        {"mappings", offsetof(pprof_read_options, max_mappings), "mapping[5]"},
        {"lines", offsetof(pprof_read_options, max_lines), "location[0].line[5]"},
        {"labels", offsetof(pprof_read_options, max_labels), "sample[0].label[5]"},
        {"stack entries", offsetof(pprof_read_options, max_stack_entries), "sample[0].location_id"},
        {"values", offsetof(pprof_read_options, max_values), "sample_type[5]"},
    };
    pb at = counted_profile(5), past = counted_profile(6);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pprof_read_options o;
        pprof_read_options_init(&o);
        memcpy((char *)&o + cases[i].field_offset, &(uint64_t){5}, sizeof(uint64_t));
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = tu_decode_raw(at.d, at.n, &o, &p, &err);
        tap_ok(t, st == PPROF_OK, "max %s = 5: 5 are read", cases[i].name);
        pprof_profile_free(p);
        st = tu_decode_raw(past.d, past.n, &o, &p, &err);
        if (!tap_ok(t, st == PPROF_E_LIMIT && strcmp(err.path, cases[i].path) == 0 && !p,
                    "max %s = 5: the 6th is refused with PPROF_E_LIMIT at %s", cases[i].name,
                    cases[i].path))
            tap_diag("%s '%s' %s", pprof_status_name(st), err.path, err.message);
    }
    pb_free(&at);
    pb_free(&past);

    /* the same limits on packed runs: 6 stack entries or values in one packed field */
    pb b = {0}, s = {0};
    const uint64_t six[] = {1, 2, 3, 4, 5, 6};
    pb_packed(&s, 1, six, 6);
    pb_packed(&s, 2, six, 6);
    pb_msg_free(&b, 2, &s);
    pprof_read_options o;
    pprof_read_options_init(&o);
    o.max_stack_entries = 5;
    pprof_profile *p = NULL;
    pprof_error err;
    tap_ok(t,
           tu_decode_raw(b.d, b.n, &o, &p, &err) == PPROF_E_LIMIT &&
               strcmp(err.path, "sample[0].location_id") == 0,
           "packed stack entries past the limit");
    pprof_read_options_init(&o);
    o.max_values = 5;
    tap_ok(t,
           tu_decode_raw(b.d, b.n, &o, &p, &err) == PPROF_E_LIMIT &&
               strcmp(err.path, "sample[0].value") == 0,
           "packed values past the limit");
    o.max_values = 6;
    tap_ok(t, tu_decode_raw(b.d, b.n, &o, &p, &err) == PPROF_OK, "packed values at the limit");
    pprof_profile_free(p);
    pb_free(&b);

    /* an older caller's options struct, cut before the count limits, gets the defaults */
    pprof_read_options old;
    pprof_read_options_init(&old);
    old.struct_size = offsetof(pprof_read_options, max_strings);
    old.max_strings = 0; /* past struct_size: must be ignored */
    pb str = counted_profile(3);
    tap_ok(t, pprof_profile_read_memory(str.d, str.n, &old, &p, NULL) == PPROF_OK,
           "short options struct: fields past struct_size take the defaults");
    pprof_profile_free(p);
    pb_free(&str);
}

/* Failing each allocation in turn gives PPROF_E_NOMEM or success, and leaks nothing. */
static void
test_alloc_failures(tap *t)
{
    pb raw = counted_profile(40);
    pprof_buffer gzb = {0};
    pprof__compress(raw.d, raw.n, PPROF_FORMAT_GZIP, 6, 1, NULL, &gzb, NULL);
    const struct {
        const uint8_t *d;
        size_t n;
        const char *name;
    } in[] = {{raw.d, raw.n, "raw"}, {gzb.data, gzb.len, "gzip"}};
    for (int k = 0; k < 2; k++) {
        int bad = 0, nomem = 0;
        size_t n;
        for (n = 1; n < 10000; n++) {
            counting c = {.fail_at = n};
            pprof_read_options o = counting_opts(&c);
            pprof_profile *p = NULL;
            pprof_status st = pprof_profile_read_memory(in[k].d, in[k].n, &o, &p, NULL);
            if (st == PPROF_E_NOMEM)
                nomem++;
            else if (st != PPROF_OK)
                bad++;
            pprof_profile_free(p);
            if (c.live != 0)
                bad++;
            if (!c.failed)
                break; /* every allocation succeeded: the sweep is complete */
        }
        tap_ok(t, bad == 0 && nomem > 0,
               "%s: failing each of %zu allocations gives PPROF_E_NOMEM (%d times), no leak",
               in[k].name, n - 1, nomem);
    }
    pprof_buffer_free(&gzb);
    pb_free(&raw);
}

int
main(void)
{
    tap t = {0};
    test_bombs(&t);
    test_bomb_shapes(&t);
    test_distinct_strings_late_error(&t);
    test_truncated_gzip(&t);
    test_absurd_lengths(&t);
    test_counts(&t);
    test_alloc_failures(&t);
    return tap_done(&t);
}
