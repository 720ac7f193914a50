/* The perf.data reader on files this test writes itself (either byte order, file and pipe
 * mode, hostile variants), on perf script text, and on the recordings in corpus/perf. */
#include "../unit/testutil.h"
#include "pprof/perf.h"

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    bool big;
} wbuf;

static void
put(wbuf *w, const void *d, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 256;
        w->p = realloc(w->p, w->cap);
        if (!w->p)
            abort();
    }
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void
putn(wbuf *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[w->big ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
    put(w, b, (size_t)bytes);
}
#define P16(w, v) putn(w, v, 2)
#define P32(w, v) putn(w, v, 4)
#define P64(w, v) putn(w, v, 8)

static void
set64(wbuf *w, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        w->p[at + (size_t)(w->big ? 7 - i : i)] = (uint8_t)(v >> (8 * i));
}

static uint8_t
rev8(uint8_t b)
{
    uint8_t r = 0;
    for (int i = 0; i < 8; i++)
        r = (uint8_t)(r | (((b >> i) & 1) << (7 - i)));
    return r;
}

#define ST (1u | 2u | 4u | 64u | 128u | 256u | 32u) /* IP TID TIME ID CPU PERIOD CALLCHAIN */
#define EVID 42

/* An attr of attr_size bytes: cpu-clock, period 1e6, sample_id_all. */
static void
put_attr(wbuf *w, uint32_t attr_size)
{
    size_t at = w->n;
    P32(w, 1);
    P32(w, attr_size);
    P64(w, 0);
    P64(w, 1000000);
    P64(w, ST);
    P64(w, 0);
    uint64_t flags = (1u << 8) | (1u << 9) | (1u << 18);
    for (int i = 0; i < 8; i++) {
        uint8_t b = (uint8_t)(flags >> (8 * i));
        put(w, (uint8_t[]){w->big ? rev8(b) : b}, 1);
    }
    while (w->n < at + attr_size)
        put(w, "", 1);
}

static void
sample_id(wbuf *w, uint32_t pid, uint64_t time)
{
    P32(w, pid);
    P32(w, pid);
    P64(w, time);
    P64(w, EVID);
    P32(w, 1);
    P32(w, 0);
}

static void
rec_head(wbuf *w, uint32_t type, uint16_t misc, uint16_t size)
{
    P32(w, type);
    P16(w, misc);
    P16(w, size);
}

static void
put_str(wbuf *w, const char *s, size_t pad_to)
{
    put(w, s, strlen(s));
    for (size_t i = strlen(s); i < pad_to; i++)
        put(w, "", 1);
}

static void
rec_comm(wbuf *w, uint32_t pid, const char *comm, uint64_t time)
{
    rec_head(w, 3, 0, 8 + 8 + 16 + 32);
    P32(w, pid);
    P32(w, pid);
    put_str(w, comm, 16);
    sample_id(w, pid, time);
}

static void
rec_mmap2(wbuf *w, uint32_t pid, uint64_t addr, uint64_t len, const char *name, uint64_t time)
{
    rec_head(w, 10, 2, 8 + 64 + 32 + 32);
    P32(w, pid);
    P32(w, pid);
    P64(w, addr);
    P64(w, len);
    P64(w, 0x1000);
    P32(w, 8);
    P32(w, 1);
    P64(w, 77);
    P64(w, 0);
    P32(w, 5);
    P32(w, 2);
    put_str(w, name, 32);
    sample_id(w, pid, time);
}

static void
rec_sample(wbuf *w, uint32_t pid, uint64_t time, uint64_t leaf, uint64_t caller)
{
    rec_head(w, 9, 2, 8 + 48 + 8 + 24);
    P64(w, leaf);
    P32(w, pid);
    P32(w, pid);
    P64(w, time);
    P64(w, EVID);
    P32(w, 1);
    P32(w, 0);
    P64(w, 1000000);
    P64(w, 3);
    P64(w, (uint64_t)-512);
    P64(w, leaf);
    P64(w, caller);
}

/* The records: a process, its binary, a sample in it, a library mapped at time 20, the end of
 * a round, then samples in the library at time 30 (mapped) and 5 (before the library existed:
 * a later round may hold records earlier than the last ones of the round before, as perf's
 * per-CPU buffers are written one after the other). */
static void
put_records(wbuf *w)
{
    rec_comm(w, 100, "prog", 1);
    rec_mmap2(w, 100, 0x400000, 0x1000, "/bin/prog", 2);
    rec_sample(w, 100, 10, 0x400100, 0x400200);
    rec_mmap2(w, 100, 0x500000, 0x1000, "/lib/libx.so", 20);
    rec_head(w, 68, 0, 8);
    rec_sample(w, 100, 30, 0x500010, 0x400200);
    rec_sample(w, 100, 5, 0x500010, 0x400200);
    rec_head(w, 68, 0, 8);
}

static size_t data_off_at = 40; /* where the header keeps the data section */

static wbuf
make_file(bool big, uint32_t attr_size)
{
    wbuf w = {NULL, 0, 0, big};
    put(&w, big ? "2ELIFREP" : "PERFILE2", 8);
    P64(&w, 104);
    P64(&w, attr_size + 16);
    P64(&w, 104);
    P64(&w, attr_size + 16);
    P64(&w, 0); /* data: patched */
    P64(&w, 0);
    P64(&w, 0);
    P64(&w, 0);
    P64(&w, (1u << 2) | (1u << 3) | (1u << 11));
    P64(&w, 0);
    P64(&w, 0);
    P64(&w, 0);
    put_attr(&w, attr_size);
    size_t ids_at = w.n;
    P64(&w, 0);
    P64(&w, 8);
    set64(&w, ids_at, w.n);
    P64(&w, EVID);
    size_t data = w.n;
    put_records(&w);
    set64(&w, data_off_at, data);
    set64(&w, data_off_at + 8, w.n - data);
    /* feature section table: BUILD_ID, HOSTNAME, CMDLINE */
    size_t table = w.n;
    for (int i = 0; i < 6; i++)
        P64(&w, 0);
    size_t f0 = w.n;
    rec_head(&w, 67, 0, 36 + 16);
    P32(&w, 100);
    for (uint8_t i = 0; i < 24; i++)
        put(&w, (uint8_t[]){i < 20 ? (uint8_t)(0xa0 + i) : 0}, 1);
    put_str(&w, "/lib/libx.so", 16);
    set64(&w, table, f0);
    set64(&w, table + 8, w.n - f0);
    size_t f1 = w.n;
    P32(&w, 16);
    put_str(&w, "testhost", 16);
    set64(&w, table + 16, f1);
    set64(&w, table + 24, w.n - f1);
    size_t f2 = w.n;
    P32(&w, 2);
    P32(&w, 8);
    put_str(&w, "perf", 8);
    P32(&w, 8);
    put_str(&w, "record", 8);
    set64(&w, table + 32, f2);
    set64(&w, table + 40, w.n - f2);
    return w;
}

static wbuf
make_pipe(bool big)
{
    wbuf w = {NULL, 0, 0, big};
    put(&w, big ? "2ELIFREP" : "PERFILE2", 8);
    P64(&w, 16);
    rec_head(&w, 64, 0, 8 + 128 + 8);
    put_attr(&w, 128);
    P64(&w, EVID);
    put_records(&w);
    return w;
}

/* The pipe stream with a HEADER_CLOCK_DATA feature record first: the perf clock read as ref
 * when the wall clock read wall. */
static wbuf
make_pipe_clock(bool big, uint64_t wall, uint64_t ref)
{
    wbuf w = {NULL, 0, 0, big};
    put(&w, big ? "2ELIFREP" : "PERFILE2", 8);
    P64(&w, 16);
    rec_head(&w, 64, 0, 8 + 128 + 8);
    put_attr(&w, 128);
    P64(&w, EVID);
    rec_head(&w, 80, 0, 8 + 8 + 24);
    P64(&w, 29);
    P32(&w, 1);
    P32(&w, 1); /* CLOCK_MONOTONIC */
    P64(&w, wall);
    P64(&w, ref);
    put_records(&w);
    return w;
}

/* The sample times (timestamp_unix_nano, nanoseconds) sorted, their count in *n (at most 8);
 * false when a sample has none or another unit. */
static bool
sample_times(const pprof_profile *p, int64_t *out, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        bool found = false;
        for (size_t j = 0; j < s.n_label; j++) {
            pprof_string k, u;
            if (!pprof_profile_string(p, s.label[j].key, &k) ||
                k.len != strlen("timestamp_unix_nano") ||
                memcmp(k.data, "timestamp_unix_nano", k.len))
                continue;
            if (!pprof_profile_string(p, s.label[j].num_unit, &u) || u.len != 11 ||
                memcmp(u.data, "nanoseconds", 11) || *n == 8)
                return false;
            out[(*n)++] = s.label[j].num;
            found = true;
        }
        if (!found)
            return false;
    }
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return true;
}

/* --timestamps: each sample's time as a label, mapped to the wall clock by the clock data when
 * the recording has it, else perf's clock. */
static void
test_timestamps(tap *t)
{
    for (int big = 0; big < 2; big++) {
        const uint64_t wall = UINT64_C(1796630400000000000), ref = 1;
        wbuf plain = make_pipe(big), clock = make_pipe_clock(big, wall, ref);
        pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
        pprof_profile *p = NULL;
        pprof_error err;
        int64_t tm[8] = {0};
        size_t n = 0;
        tap_ok(t, pprof_perf_read_memory(plain.p, plain.n, &o, &p, NULL, &err) == PPROF_OK,
               "%s: read without timestamps", big ? "big" : "little");
        tap_ok(t, p && !sample_times(p, tm, &n) && n == 0, "%s: no time label by default",
               big ? "big" : "little");
        pprof_profile_free(p);
        o.timestamps = true;
        p = NULL;
        tap_ok(t, pprof_perf_read_memory(plain.p, plain.n, &o, &p, NULL, &err) == PPROF_OK,
               "%s: read with timestamps", big ? "big" : "little");
        tap_ok(t,
               p && sample_times(p, tm, &n) && n == 3 && tm[0] == 5 && tm[1] == 10 && tm[2] == 30,
               "%s: no clock data: perf's clock, every sample apart (%zu: %lld %lld %lld)",
               big ? "big" : "little", n, (long long)tm[0], (long long)tm[1], (long long)tm[2]);
        pprof_profile_free(p);
        p = NULL;
        tap_ok(t, pprof_perf_read_memory(clock.p, clock.n, &o, &p, NULL, &err) == PPROF_OK,
               "%s: read with clock data", big ? "big" : "little");
        tap_ok(t,
               p && sample_times(p, tm, &n) && n == 3 && tm[0] == (int64_t)(wall + 5 - ref) &&
                   tm[1] == (int64_t)(wall + 10 - ref) && tm[2] == (int64_t)(wall + 30 - ref),
               "%s: clock data: wall-clock nanoseconds (%lld)", big ? "big" : "little",
               (long long)tm[0]);
        tap_ok(t, p && pprof_profile_header(p).time_nanos == (int64_t)(wall + 5 - ref),
               "%s: the profile's time is the first sample's", big ? "big" : "little");
        pprof_profile_free(p);
        free(plain.p);
        free(clock.p);
    }
    /* perf script text: the time stamp's seconds and microseconds */
    const char *txt = "prog   100/100  [001]  12345.678901:     250000 cpu-clock: \n"
                      "\t  400100 main+0x0 (/bin/prog)\n\n"
                      "prog   100/100  [001]  12345.679901:     250000 cpu-clock: \n"
                      "\t  400100 main+0x0 (/bin/prog)\n\n";
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.timestamps = true;
    pprof_profile *p = NULL;
    pprof_error err;
    int64_t tm[8] = {0};
    size_t n = 0;
    tap_ok(t, pprof_perf_read_memory(txt, strlen(txt), &o, &p, NULL, &err) == PPROF_OK,
           "script text with timestamps");
    tap_ok(t,
           p && sample_times(p, tm, &n) && n == 2 && tm[0] == INT64_C(12345678901000) &&
               tm[1] == INT64_C(12345679901000),
           "script text: perf's clock in nanoseconds (%lld)", (long long)tm[0]);
    pprof_profile_free(p);
}

static pprof_status
conv(const wbuf *w, pprof_profile **p, pprof_perf_stats *st, pprof_error *err)
{
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.labels = PPROF_PERF_LABEL_PID | PPROF_PERF_LABEL_COMM;
    return pprof_perf_read_memory(w->p, w->n, &o, p, st, err);
}

static int64_t
total(const pprof_profile *p, size_t vi)
{
    int64_t t = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++)
        t += pprof_profile_sample(p, i).value[vi];
    return t;
}

/* The mapping file name of the leaf of the sample whose leaf address is addr, "" for none,
 * NULL when there is no such sample; *bid its build id. */
static const char *
leaf_mapping(const pprof_profile *p, uint64_t addr, pprof_string *bid, size_t *count)
{
    *count = 0;
    const char *res = NULL;
    static char name[64];
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        size_t li, mi;
        if (!s.n_location_id || !pprof_profile_find_location(p, s.location_id[0], &li))
            continue;
        pprof_location l = pprof_profile_location(p, li);
        if (l.address != addr)
            continue;
        (*count)++;
        name[0] = 0;
        if (l.mapping_id && pprof_profile_find_mapping(p, l.mapping_id, &mi)) {
            pprof_mapping m = pprof_profile_mapping(p, mi);
            pprof_string n;
            pprof_profile_string(p, m.filename, &n);
            snprintf(name, sizeof(name), "%.*s", (int)n.len, n.data);
            pprof_profile_string(p, m.build_id, bid);
            if (name[0])
                res = name;
        }
        if (!res)
            res = "";
    }
    return res;
}

static bool
has_comment(const pprof_profile *p, const char *want)
{
    pprof_header h = pprof_profile_header(p);
    for (size_t i = 0; i < h.n_comment; i++) {
        pprof_string s;
        if (pprof_profile_string(p, h.comment[i], &s) && s.len == strlen(want) &&
            !memcmp(s.data, want, s.len))
            return true;
    }
    return false;
}

static void
test_synthetic(tap *t)
{
    pprof_profile *le = NULL, *be = NULL, *fut = NULL, *pipe = NULL;
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    pprof_error err;
    wbuf w = make_file(false, 128);
    tap_ok(t, conv(&w, &le, &st, &err) == PPROF_OK, "little-endian file converts (%s)",
           err.message);
    if (!le)
        return;
    tap_ok(t,
           pprof_profile_count(le, PPROF_TABLE_SAMPLE) == 3 && total(le, 1) == 3000000 &&
               total(le, 0) == 3,
           "3 samples of 1e6 ns each");
    pprof_value_type vt = pprof_profile_sample_type(le, 1);
    pprof_string ty, un;
    pprof_profile_string(le, vt.type, &ty);
    pprof_profile_string(le, vt.unit, &un);
    tap_ok(t, ty.len == 3 && !memcmp(ty.data, "cpu", 3) && un.len == 11,
           "cpu-clock is cpu/nanoseconds");
    pprof_string bid = {"", 0};
    size_t n;
    const char *m = leaf_mapping(le, 0x400100, &bid, &n);
    tap_ok(t, m && !strcmp(m, "/bin/prog") && n == 1, "sample at time 10 is in /bin/prog");
    m = leaf_mapping(le, 0x500010, &bid, &n);
    tap_ok(t, m && !strcmp(m, "/lib/libx.so") && n == 2,
           "the library's address: one sample mapped (time 30), one not (time 5), as 2 samples");
    tap_ok(t, bid.len == 40 && !memcmp(bid.data, "a0a1a2", 6), "build id from the header feature");
    tap_ok(t, st.unmapped_frames == 1, "the sample before the dlopen has an unmapped leaf (%llu)",
           (unsigned long long)st.unmapped_frames);
    tap_ok(t, has_comment(le, "perf record") && has_comment(le, "host: testhost"),
           "comments carry the command line and host");
    tap_ok(t, pprof_profile_header(le).duration_nanos == 25, "duration from first to last sample");

    wbuf wb = make_file(true, 128);
    pprof_perf_stats sb = PPROF_PERF_STATS_INIT;
    tap_ok(t, conv(&wb, &be, &sb, &err) == PPROF_OK && sb.swapped, "big-endian file converts");
    tap_ok(t, be && pprof_profile_equal(le, be), "both byte orders give equal profiles");

    wbuf wf = make_file(false, 200);
    tap_ok(t, conv(&wf, &fut, NULL, &err) == PPROF_OK && pprof_profile_equal(le, fut),
           "an attr of a future perf (200 bytes) reads the same");

    for (int big = 0; big < 2; big++) {
        wbuf wp = make_pipe(big);
        pprof_perf_stats sp = PPROF_PERF_STATS_INIT;
        pipe = NULL;
        pprof_status s = conv(&wp, &pipe, &sp, &err);
        tap_ok(t,
               s == PPROF_OK && sp.pipe_mode && pipe && total(pipe, 1) == 3000000 &&
                   pprof_profile_count(pipe, PPROF_TABLE_SAMPLE) == 3,
               "pipe mode (%s) converts: 3 samples", big ? "big-endian" : "little-endian");
        pprof_profile_free(pipe);
        free(wp.p);
    }

    /* events: unknown name refused, known kept */
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    const char *bad_ev[] = {"cycles"};
    o.events = bad_ev;
    o.n_events = 1;
    pprof_profile *q = NULL;
    tap_ok(t, pprof_perf_read_memory(w.p, w.n, &o, &q, NULL, &err) == PPROF_E_ARG && !q,
           "an event the file lacks is refused: %s", err.message);

    pprof_profile_free(le);
    pprof_profile_free(be);
    pprof_profile_free(fut);
    free(w.p);
    free(wb.p);
    free(wf.p);
}

static void
test_hostile(tap *t)
{
    wbuf w = make_file(false, 128);
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    uint64_t data;
    memcpy(&data, w.p + data_off_at, 8);

    /* every prefix: a clear error or a result, never a crash */
    int bad = 0;
    for (size_t cut = 0; cut < w.n; cut++) {
        pprof_status s = pprof_perf_read_memory(w.p, cut, NULL, &p, &st, &err);
        if (s == PPROF_OK)
            pprof_profile_free(p);
        else if (s != PPROF_E_INVALID && s != PPROF_E_EMPTY)
            bad++;
        p = NULL;
    }
    tap_ok(t, !bad, "every prefix of the file: a result or PPROF_E_INVALID");

    /* data section cut: counted, not fatal */
    wbuf c = w;
    c.p = malloc(w.n);
    memcpy(c.p, w.p, w.n);
    uint64_t dsize;
    memcpy(&dsize, w.p + data_off_at + 8, 8);
    c.n = (size_t)(data + dsize - 20);
    memset(c.p + data_off_at + 32, 0, 32); /* no features past the cut */
    pprof_perf_stats sc = PPROF_PERF_STATS_INIT;
    pprof_status s = pprof_perf_read_memory(c.p, c.n, NULL, &p, &sc, &err);
    tap_ok(t, s == PPROF_OK && sc.truncated_bytes > 0,
           "a cut data section is a counted warning (%llu bytes)",
           (unsigned long long)sc.truncated_bytes);
    char warn[512];
    tap_ok(t, pprof_perf_warning(&sc, warn, sizeof(warn)) && strstr(warn, "truncated"),
           "the warning names it: %s", warn);
    pprof_profile_free(p);
    p = NULL;

    /* record size 0 */
    memcpy(c.p, w.p, w.n);
    c.n = w.n;
    c.p[data + 6] = 0;
    c.p[data + 7] = 0;
    s = pprof_perf_read_memory(c.p, c.n, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_INVALID && err.offset == data && strstr(err.message, "size 0"),
           "record size 0: %s (byte %llu)", err.message, (unsigned long long)err.offset);

    /* callchain of 2^32 entries: the first sample's nr sits after 8 + 48 bytes */
    memcpy(c.p, w.p, w.n);
    size_t s1 = (size_t)data + 64 + 136; /* after the comm (64) and mmap2 (136) records */
    set64(&c, s1 + 8 + 48, UINT64_C(1) << 32);
    s = pprof_perf_read_memory(c.p, c.n, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_INVALID && err.offset == s1 && strstr(err.message, "callchain"),
           "callchain of 2^32 entries: %s (byte %llu)", err.message,
           (unsigned long long)err.offset);

    /* overlapping sections */
    memcpy(c.p, w.p, w.n);
    set64(&c, 24, 0);
    s = pprof_perf_read_memory(c.p, c.n, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_INVALID && strstr(err.message, "overlap"), "overlapping sections: %s",
           err.message);

    /* a section past the file */
    memcpy(c.p, w.p, w.n);
    set64(&c, 24, UINT64_C(1) << 40);
    s = pprof_perf_read_memory(c.p, c.n, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_INVALID && strstr(err.message, "past the end"),
           "attrs past the file: %s", err.message);

    /* every byte set to 0xff in turn */
    bad = 0;
    for (size_t i = 0; i < w.n; i++) {
        memcpy(c.p, w.p, w.n);
        c.p[i] ^= 0xff;
        s = pprof_perf_read_memory(c.p, c.n, NULL, &p, NULL, &err);
        if (s == PPROF_OK)
            pprof_profile_free(p);
        else if (s != PPROF_E_INVALID && s != PPROF_E_LIMIT)
            bad++;
        p = NULL;
    }
    tap_ok(t, !bad, "every byte flipped: a result or a clear error");
    free(c.p);

    /* millions of tiny records: 2^21 records of 8 bytes (an unknown kernel type) */
    wbuf m = make_file(false, 128);
    size_t n_tiny = (size_t)1 << 21, hdr = (size_t)data;
    m.n = hdr;
    for (size_t i = 0; i < n_tiny; i++)
        rec_head(&m, 60, 0, 8);
    set64(&m, data_off_at + 8, m.n - hdr);
    memset(m.p + data_off_at + 32, 0, 32);
    pprof_perf_stats sm = PPROF_PERF_STATS_INIT;
    s = pprof_perf_read_memory(m.p, m.n, NULL, &p, &sm, &err);
    tap_ok(t, s == PPROF_OK && sm.records == n_tiny && sm.unknown_records == n_tiny,
           "2^21 tiny records are read and counted");
    pprof_profile_free(p);
    p = NULL;
    free(m.p);

    /* a round longer than max_round_records is replayed in pieces */
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.max_round_records = 2;
    pprof_perf_stats sr = PPROF_PERF_STATS_INIT;
    s = pprof_perf_read_memory(w.p, w.n, &o, &p, &sr, &err);
    tap_ok(t, s == PPROF_OK && sr.rounds_split > 0, "long rounds are split and counted");
    pprof_profile_free(p);
    free(w.p);

    const char junk[] = "hello world\n";
    s = pprof_perf_read_memory(junk, sizeof(junk) - 1, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_INVALID, "neither perf.data nor perf script text: %s", err.message);
}

static void
test_script(tap *t)
{
    static const char deflt[] =
        "prog 100 [001]  3440.522669:     250000 cpu-clock: \n"
        "\tffffffff8177d51a elf_load+0x28a ([kernel.kallsyms])\n"
        "\t    7fa27d0f2ad7 main+0x17 (/bin/prog)\n"
        "\n"
        "my prog 101/102  3440.522855:     250000 cpu-clock: \n"
        "\t    7fa27d0f2000 std::vector<int>::push_back(int const&)+0x1 (/bin/prog)\n"
        "\t    7fa27d0f2ad7 main+0x17 (/bin/prog)\n"
        "\n";
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.labels = PPROF_PERF_LABEL_TID | PPROF_PERF_LABEL_COMM | PPROF_PERF_LABEL_CPU;
    pprof_profile *p = NULL;
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    pprof_error err;
    pprof_status s = pprof_perf_read_memory(deflt, sizeof(deflt) - 1, &o, &p, &st, &err);
    tap_ok(t, s == PPROF_OK && st.script_text && p && total(p, 0) == 2 && total(p, 1) == 500000,
           "perf script default output: 2 samples, 500000 ns (%s)", s ? err.message : "");
    bool found = false;
    for (size_t i = 0; p && i < pprof_profile_count(p, PPROF_TABLE_FUNCTION); i++) {
        pprof_string n;
        pprof_profile_string(p, pprof_profile_function(p, i).name, &n);
        const char *want = "std::vector<int>::push_back(int const&)";
        found |= n.len == strlen(want) && !memcmp(n.data, want, n.len);
    }
    tap_ok(t, found, "a C++ name with spaces and parentheses is one function");
    pprof_profile_free(p);
    p = NULL;
    static const char fform[] = "prog 100/100 3440.522669: cpu-clock: \n"
                                "\t           13a34 f (/bin/prog)\n"
                                "\t           1010 [unknown] (/bin/prog)\n"
                                "\n"
                                "prog 100/100 3440.522670: cpu-clock:  13a34 f (/bin/prog)\n";
    s = pprof_perf_read_memory(fform, sizeof(fform) - 1, NULL, &p, &st, &err);
    tap_ok(t, s == PPROF_OK && total(p, 0) == 2 && total(p, 1) == 2,
           "-F comm,pid,tid,time,event,ip,sym,dso forms: 2 samples counted (%s)",
           s ? err.message : "");
    pprof_profile_free(p);
}

static void
test_corpus(tap *t)
{
    const char *root = getenv("PPROF_SOURCE_ROOT");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/corpus/perf", root ? root : ".");
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !strstr(e->d_name, ".data"))
            continue;
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        pprof_profile *p = NULL;
        pprof_perf_stats st = PPROF_PERF_STATS_INIT;
        pprof_error err;
        pprof_status s = pprof_perf_read_file(path, NULL, &p, &st, &err);
        if (!strncmp(e->d_name, "n-", 2)) {
            /* hand-made hostile files: a clear error naming a byte, or a counted warning */
            char w[512];
            tap_ok(t,
                   (s == PPROF_E_INVALID && err.offset != PPROF_NO_OFFSET) ||
                       (s == PPROF_OK && pprof_perf_warning(&st, w, sizeof(w))) ||
                       (s == PPROF_OK && strstr(e->d_name, "future")),
                   "corpus/perf/%s: %s", e->d_name, s ? err.message : "read, with a warning");
            pprof_profile_free(p);
            continue;
        }
        tap_ok(t,
               s == PPROF_OK && p && st.samples_converted == st.samples &&
                   total(p, 0) == (int64_t)st.samples,
               "corpus/perf/%s: %llu samples (%s)", e->d_name, (unsigned long long)st.samples,
               s ? err.message : "ok");
        pprof_profile_free(p);
        n++;
    }
    if (d)
        closedir(d);
    tap_ok(t, n >= 2, "corpus/perf holds recordings (%d)", n);
}

typedef struct failing {
    size_t calls, fail_at;
} failing;

static void *
f_alloc(void *ctx, size_t n)
{
    failing *f = ctx;
    return f->calls++ == f->fail_at ? NULL : malloc(n);
}

static void *
f_realloc(void *ctx, void *p, size_t n)
{
    failing *f = ctx;
    return f->calls++ == f->fail_at ? NULL : realloc(p, n);
}

static void
f_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* Each allocation of a read failing in turn gives PPROF_E_NOMEM (or success, for a hint), not
 * another error: a feature string whose copy failed once read as a malformed section
 * (PPROF_E_INVALID). */
static void
test_nomem(tap *t)
{
    /* a real recording: its feature strings are the first allocations of an arena block */
    const char *root = getenv("PPROF_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof(path), "%s/corpus/perf/true-pipe.data", root ? root : ".");
    size_t n = 0;
    uint8_t *data = tu_read_file(path, &n);
    failing f = {0, SIZE_MAX};
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.allocator = (pprof_allocator){f_alloc, f_realloc, f_free, &f};
    pprof_profile *p = NULL;
    pprof_error err;
    pprof_status s = data ? pprof_perf_read_memory(data, n, &o, &p, NULL, &err) : PPROF_E_IO;
    tap_ok(t, s == PPROF_OK && f.calls > 0, "%s reads with a counting allocator (%zu calls)", path,
           f.calls);
    pprof_profile_free(p);
    size_t calls = s == PPROF_OK ? f.calls : 0, bad = 0;
    for (size_t k = 0; k < calls; k++) {
        f = (failing){0, k};
        p = NULL;
        s = pprof_perf_read_memory(data, n, &o, &p, NULL, &err);
        if (s != PPROF_OK && !(s == PPROF_E_NOMEM && !p) && bad++ == 0)
            tap_diag("allocation %zu failing gives %s: %s", k, pprof_status_name(s), err.message);
        pprof_profile_free(p);
    }
    tap_ok(t, bad == 0, "each of %zu failing allocations gives PPROF_E_NOMEM (or is only a hint)",
           calls);
    free(data);
}

/* More event attributes than the reader keeps (4096) is PPROF_E_LIMIT naming the attr, not
 * memory in proportion to the input: too large a case for corpus/perf's seeds. */
static void
test_attr_limit(tap *t)
{
    wbuf w = {NULL, 0, 0, false};
    put(&w, "PERFILE2", 8);
    P64(&w, 16);
    for (int i = 0; i < 4097; i++) {
        rec_head(&w, 64, 0, 8 + 128 + 8);
        put_attr(&w, 128);
        P64(&w, (uint64_t)i);
    }
    pprof_profile *p = NULL;
    pprof_error err;
    pprof_status s = pprof_perf_read_memory(w.p, w.n, NULL, &p, NULL, &err);
    tap_ok(t, s == PPROF_E_LIMIT && !p && strstr(err.message, "4096"),
           "4097 attrs: PPROF_E_LIMIT (%s)", err.message);
    free(w.p);
}

int
main(void)
{
    tap t = {0};
    test_synthetic(&t);
    test_hostile(&t);
    test_script(&t);
    test_corpus(&t);
    test_nomem(&t);
    test_attr_limit(&t);
    test_timestamps(&t);
    return tap_done(&t);
}
