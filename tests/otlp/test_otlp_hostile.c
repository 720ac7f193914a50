/* Hostile OTLP that used to convert to a wrong answer or cost memory out of proportion: a time
 * past int64, a link ID of the wrong length, and many Profile messages (the max_profiles limit,
 * and a refusal of several profiles that builds no pprof state for them). The inputs are
 * built here on the wire, the largest (a million Profiles, 2 MB) too. */
#include "../unit/testutil.h"
#include "pprof/formats.h"
#include "pprof/otlp.h"

typedef struct wb {
    uint8_t *p;
    size_t n, cap;
} wb;

static void
put(wb *b, const void *d, size_t n)
{
    if (!n) /* an empty message: d may be NULL */
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void
varint(wb *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, t, n);
}

static void
vi(wb *b, uint32_t f, uint64_t v)
{
    varint(b, (uint64_t)f << 3);
    varint(b, v);
}

static void
fixed64(wb *b, uint32_t f, uint64_t v)
{
    varint(b, (uint64_t)f << 3 | 1);
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put(b, t, 8);
}

static void
ld(wb *b, uint32_t f, const void *d, size_t n)
{
    varint(b, (uint64_t)f << 3 | 2);
    varint(b, n);
    put(b, d, n);
}

static void
ldw(wb *b, uint32_t f, wb *in)
{
    ld(b, f, in->p, in->n);
    free(in->p);
    *in = (wb){0};
}

/* ProfilesData: one resource, one scope holding the given Profile messages (bytes of each
 * repeated n times), and a dictionary with strings "", "cpu", "nanoseconds" and the given
 * links (pairs of trace and span IDs, with their lengths). */
static wb
otlp(const wb *profile, size_t n, const char *const *ids, const size_t *lens, size_t n_link)
{
    wb scope = {0}, rp = {0}, dict = {0}, out = {0}, link = {0};
    for (size_t i = 0; i < n; i++)
        ld(&scope, 2, profile->p, profile->n);
    ldw(&rp, 2, &scope);
    ldw(&out, 1, &rp);
    ld(&dict, 4, "", 0); /* link_table[0] */
    for (size_t i = 0; i < n_link; i++) {
        ld(&link, 1, ids[2 * i], lens[2 * i]);
        ld(&link, 2, ids[2 * i + 1], lens[2 * i + 1]);
        ldw(&dict, 4, &link);
    }
    ld(&dict, 5, "", 0);
    ld(&dict, 5, "cpu", 3);
    ld(&dict, 5, "nanoseconds", 11);
    ldw(&out, 2, &dict);
    return out;
}

/* A Profile of type cpu/nanoseconds with one sample: value 5, the timestamp ts when not 0,
 * link_index link; time_unix_nano t0 when not 0. */
static wb
profile(uint64_t t0, uint64_t ts, uint32_t link)
{
    wb p = {0}, vt = {0}, s = {0};
    vi(&vt, 1, 1);
    vi(&vt, 2, 2);
    ldw(&p, 1, &vt);
    vi(&s, 4, 5);
    if (ts)
        fixed64(&s, 5, ts);
    if (link)
        vi(&s, 3, link);
    ldw(&p, 2, &s);
    if (t0)
        fixed64(&p, 3, t0);
    return p;
}

/* Reads data as the tools do (one pprof profile); err filled. */
static pprof_status
read1(const wb *b, const pprof_read_options *ro, pprof_error *err)
{
    pprof_read_options o;
    pprof_read_options_init(&o);
    if (ro)
        o = *ro;
    o.readers = pprof_formats_readers(); /* the tools' readers: OTLP besides pprof */
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(b->p, b->n, &o, &p, err);
    pprof_profile_free(p);
    return st;
}

/* Live and peak bytes through the allocator given to the reader. */
typedef struct counting {
    size_t live, peak;
} counting;

typedef struct hdr {
    size_t size;
    max_align_t pad;
} hdr;

static void *
c_realloc(void *ctx, void *p, size_t size)
{
    counting *c = ctx;
    hdr *h = p ? (hdr *)p - 1 : NULL;
    size_t old = h ? h->size : 0;
    hdr *n = realloc(h, sizeof(hdr) + size);
    if (!n)
        return NULL;
    n->size = size;
    c->live = c->live - old + size;
    if (c->live > c->peak)
        c->peak = c->live;
    return n + 1;
}

static void *
c_alloc(void *ctx, size_t size)
{
    return c_realloc(ctx, NULL, size);
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

#define P0 "resource_profiles[0].scope_profiles[0].profiles[0]"

int
main(void)
{
    tap t = {0};
    pprof_error err;

    /* timestamps past int64: refused with the path, not turned into negative labels */
    const uint64_t big = UINT64_C(1) << 63;
    struct {
        uint64_t t0, ts;
        const char *path; /* NULL: accepted */
    } times[] = {
        {0, big, P0 ".samples[0].timestamps_unix_nano[0]"},
        {0, UINT64_MAX, P0 ".samples[0].timestamps_unix_nano[0]"},
        {0, big - 1, NULL},
        {big - 1, 0, NULL},
    };
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        wb pr = profile(times[i].t0, times[i].ts, 0);
        wb b = otlp(&pr, 1, NULL, NULL, 0);
        pprof_status st = read1(&b, NULL, &err);
        if (times[i].path)
            tap_ok(&t,
                   st == PPROF_E_INVALID && !strcmp(err.path, times[i].path) &&
                       strstr(err.message, "largest time pprof holds"),
                   "time_unix_nano %llu, timestamp %llu: refused at %s (%s: %s)",
                   (unsigned long long)times[i].t0, (unsigned long long)times[i].ts, times[i].path,
                   err.path, err.message);
        else
            tap_ok(&t, st == PPROF_OK, "time_unix_nano %llu, timestamp %llu: read (%s)",
                   (unsigned long long)times[i].t0, (unsigned long long)times[i].ts,
                   st ? err.message : "ok");
        free(pr.p);
        free(b.p);
    }

    /* a pprof profile whose timestamp label is negative: written as an attribute (OTLP
     * timestamps are unsigned, and the reader refuses those past int64), so it comes back */
    {
        wb pp = {0}, vt = {0}, smp = {0}, lab = {0};
        vi(&vt, 1, 1);
        vi(&vt, 2, 2);
        ldw(&pp, 1, &vt);
        vi(&lab, 1, 3);
        vi(&lab, 3, (uint64_t)-1);
        vi(&lab, 4, 2);
        vi(&smp, 2, 5);
        ldw(&smp, 3, &lab);
        ldw(&pp, 2, &smp);
        const char *strs[] = {"", "cpu", "nanoseconds", "timestamp_unix_nano"};
        for (size_t i = 0; i < 4; i++)
            ld(&pp, 6, strs[i], strlen(strs[i]));
        pprof_profile *p = NULL, **v = NULL;
        pprof_buffer ob = {0};
        pprof_otlp *o = NULL;
        size_t n = 0;
        bool ok = pprof_profile_read_memory(pp.p, pp.n, NULL, &p, &err) == PPROF_OK;
        const pprof_profile *const in[] = {p};
        ok = ok && pprof_otlp_write_memory(in, 1, NULL, &ob, &err) == PPROF_OK &&
             pprof_otlp_read_memory(ob.data, ob.len, NULL, &o, &err) == PPROF_OK &&
             pprof_otlp_to_pprof(o, &v, &n, &err) == PPROF_OK && n == 1;
        pprof_sample s0 = {0};
        if (ok)
            s0 = pprof_profile_sample(v[0], 0);
        tap_ok(&t, ok && s0.n_label == 1 && s0.label[0].num == -1 && s0.label[0].str == 0,
               "a negative timestamp label goes to OTLP and back (%s)", ok ? "" : err.message);
        pprof_otlp_profiles_free(v, n);
        pprof_otlp_free(o);
        pprof_buffer_free(&ob);
        pprof_profile_free(p);
        free(pp.p);
    }

    /* link IDs: 16 and 8 bytes, nothing else */
    static const char id[17] = "0123456789abcdef";
    struct {
        size_t trace, span;
        const char *path, *msg; /* NULL: accepted */
    } links[] = {
        {4, 8, "dictionary.link_table[1].trace_id", "4 bytes"},
        {17, 8, "dictionary.link_table[1].trace_id", "17 bytes"},
        {16, 0, "dictionary.link_table[1].span_id", "0 bytes"},
        {16, 9, "dictionary.link_table[1].span_id", "9 bytes"},
        {16, 8, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        const char *ids[2] = {id, id};
        size_t lens[2] = {links[i].trace, links[i].span};
        wb pr = profile(0, 0, 1);
        wb b = otlp(&pr, 1, ids, lens, 1);
        pprof_status st = read1(&b, NULL, &err);
        if (links[i].path)
            tap_ok(&t,
                   st == PPROF_E_INVALID && !strcmp(err.path, links[i].path) &&
                       strstr(err.message, links[i].msg),
                   "trace_id %zu bytes, span_id %zu: refused at %s (%s: %s)", links[i].trace,
                   links[i].span, links[i].path, err.path, err.message);
        else
            tap_ok(&t, st == PPROF_OK, "trace_id 16 bytes, span_id 8: read (%s)",
                   st ? err.message : "ok");
        free(pr.p);
        free(b.p);
    }

    /* A million empty Profiles (2 MB): refused at the limit, before any per-Profile state. */
    wb empty = {0};
    wb b = otlp(&empty, 1000000, NULL, NULL, 0);
    counting c = {0};
    pprof_read_options ro = counting_opts(&c);
    pprof_status st = read1(&b, &ro, &err);
    tap_ok(&t,
           st == PPROF_E_LIMIT &&
               !strcmp(err.path, "resource_profiles[0].scope_profiles[0]."
                                 "profiles[16384]") &&
               strstr(err.message, "max_profiles"),
           "1000000 Profiles (%zu bytes): PPROF_E_LIMIT at the 16385th (%s: %s)", b.n, err.path,
           err.message);
    tap_ok(&t, c.peak <= (16u << 20) && c.live == 0,
           "1000000 Profiles: peak %zu bytes through the allocator, none left", c.peak);
    free(b.p);

    /* Under a raised limit, profiles that do not combine are refused without building one pprof
     * profile each: memory in proportion to the input. */
    b = otlp(&empty, 20000, NULL, NULL, 0);
    c = (counting){0};
    ro = counting_opts(&c);
    ro.max_profiles = 1u << 20;
    st = read1(&b, &ro, &err);
    tap_ok(&t, st == PPROF_E_INVALID && strstr(err.message, "holds 20000 profiles"),
           "20000 Profiles under a raised limit: refused as several profiles (%s)", err.message);
    /* the decoded model's Profile with its share of the tables' growth, not a pprof profile */
    tap_ok(&t, c.peak <= 20000 * 256 + (1u << 20) && c.live == 0,
           "20000 Profiles (%zu bytes): peak %zu bytes through the allocator, at most 256 per "
           "Profile + 1 MiB",
           b.n, c.peak);
    free(b.p);

    /* the limit is the option's: one Profile over it */
    wb one = profile(0, 0, 0);
    b = otlp(&one, 3, NULL, NULL, 0);
    pprof_read_options_init(&ro);
    ro.max_profiles = 2;
    pprof_otlp *o = NULL;
    st = pprof_otlp_read_memory(b.p, b.n, &ro, &o, &err);
    tap_ok(&t,
           st == PPROF_E_LIMIT && !o &&
               !strcmp(err.path, "resource_profiles[0].scope_profiles[0].profiles[2]"),
           "max_profiles 2, 3 Profiles: PPROF_E_LIMIT at profiles[2] (%s)", err.path);
    ro.max_profiles = 3;
    st = pprof_otlp_read_memory(b.p, b.n, &ro, &o, &err);
    tap_ok(&t, st == PPROF_OK && pprof_otlp_profile_count(o) == 3, "max_profiles 3: read");
    pprof_otlp_free(o);
    free(b.p);
    free(one.p);

    /* Detection by content: a request is length-delimited fields 1 and 2 with a dictionary in a
     * field 2; a pprof profile starts the same way (sample types, then samples as fields 2) up
     * to its first mapping (field 3). */
    one = profile(0, 0, 0);
    b = otlp(&one, 1, NULL, NULL, 0);
    tap_ok(&t, pprof_otlp_detect(b.p, b.n), "a request is detected as OTLP");
    vi(&b, 1, 1); /* a varint field 1 after the dictionary */
    tap_ok(&t, !pprof_otlp_detect(b.p, b.n), "nor with a varint field 1 after its dictionary");
    free(b.p);
    free(one.p);
    wb pp = {0};
    for (int i = 0; i < 2; i++) {
        wb vt = {0};
        vi(&vt, 1, 1);
        vi(&vt, 2, 2);
        ldw(&pp, 1, &vt);
    }
    for (int i = 0; i < 1000; i++) {
        wb sm = {0};
        ld(&sm, 1, "\x01\x02\x03", 3);
        ld(&sm, 2, "\x05", 1);
        ldw(&pp, 2, &sm);
    }
    tap_ok(&t, !pprof_otlp_detect(pp.p, pp.n),
           "sample types and 1000 samples (fields 1 and 2, no dictionary): not OTLP");
    wb dict = {0};
    ld(&dict, 5, "", 0);
    ldw(&pp, 2, &dict);
    tap_ok(&t, pprof_otlp_detect(pp.p, pp.n), "with a field 2 holding a field 5 after them: OTLP");
    wb mp = {0};
    vi(&mp, 1, 1);
    ldw(&pp, 3, &mp);
    tap_ok(&t, !pprof_otlp_detect(pp.p, pp.n), "with a mapping (field 3) after that: not OTLP");
    free(pp.p);
    return tap_done(&t);
}
