/* The builder API driven by an op-stream decoded from the input (the zstd "data producer"
 * idea): interning, entities, one-call and open samples, header, serialize with and without
 * reset, reset, finish and stats, with handles drawn from the ones issued, the zero handle, or
 * forged. Oracles: a handle from before a reset or an ended open sample is refused; every
 * serialized profile reads back and rewrites to the same bytes (and the first one is the same
 * from pprof_builder_write_file); two fresh builders given the
 * same calls produce the same bytes, the first through a counting allocator; and the same calls
 * with one allocation failing (at a few points; FUZZ_FAIL_POINTS for more) fail cleanly, leak
 * nothing, and any output made still reads back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder.h"
#include "fuzz.h"

typedef struct fdp {
    const uint8_t *p;
    size_t n;
} fdp;

static uint8_t
u8(fdp *d)
{
    if (!d->n)
        return 0;
    d->n--;
    return *d->p++;
}

static uint64_t
u64(fdp *d)
{
    uint64_t v = 0;
    for (int i = 0; i < 8 && d->n; i++)
        v |= (uint64_t)u8(d) << (8 * i);
    return v;
}

static int64_t
num(fdp *d)
{
    static const int64_t b[] = {0, 1, -1, 2, 100, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT32_MAX};
    uint8_t k = u8(d);
    if (k < 128)
        return k;
    if (k < 200)
        return b[k % (sizeof(b) / sizeof(b[0]))];
    return (int64_t)u64(d);
}

/* A short string from the input, NUL-terminated in buf (so it may hold an early NUL). */
static size_t
str(fdp *d, char *buf, size_t cap)
{
    size_t len = u8(d) % 12;
    if (len > d->n)
        len = d->n;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, d->p, len);
    buf[len] = 0;
    d->p += len;
    d->n -= len;
    return len;
}

enum { POOL = 16 };

typedef struct pool {
    uint64_t h[POOL];
    bool stale[POOL];
    size_t n, next;
} pool;

static void
push(pool *p, uint64_t h)
{
    size_t i = p->n < POOL ? p->n++ : p->next++ % POOL;
    p->h[i] = h;
    p->stale[i] = false;
}

static void
age(pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        p->stale[i] = p->h[i] != 0;
}

/* A handle: an issued one, the zero handle, or a forged value. *stale reports a handle known
 * to be from an earlier generation (or an ended open sample); *forged one never issued. */
static uint64_t
pick(fdp *d, const pool *p, bool *stale, bool *forged)
{
    uint8_t k = u8(d);
    if (k == 0xff) {
        *forged = true;
        return u64(d);
    }
    if (!p->n || k % (p->n + 1) == p->n)
        return 0;
    size_t i = k % (p->n + 1);
    *stale |= p->stale[i];
    return p->h[i];
}

typedef struct run {
    fdp d;
    pprof_builder *b;
    size_t n_types;
    pool strs, fns, maps, locs, opens;
    uint64_t digest; /* of every status and output, compared between the two runs */
    bool filed;      /* the first serialize without reset was also written to a file */
    bool failing;    /* an allocation fails in this run: any call may give PPROF_E_NOMEM */
} run;

/* pprof_builder_write_file without reset, into a private directory: the file holds the
 * bytes pprof_builder_write_memory just gave (out). */
static void
check_file(pprof_builder *b, const pprof_write_options *w, const pprof_buffer *out, bool failing)
{
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-builder-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/out.pb", dir);
    pprof_error err;
    pprof_status st = pprof_builder_write_file(b, 0, w, path, &err);
    if (failing && st == PPROF_E_NOMEM) {
        FUZZ_CHECK(err.message[0] && rmdir(dir) == 0, "a failed serialize_file left files");
        return;
    }
    FUZZ_CHECK(st == PPROF_OK, "serialize_file failed where serialize succeeded: %s", err.message);
    FUZZ_CHECK(fuzz_file_holds(path, out->data, out->len, NULL),
               "serialize_file wrote other bytes than serialize");
    unlink(path);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
}

static void
mix(run *r, const void *data, size_t n)
{
    const uint8_t *s = data;
    for (size_t i = 0; i < n; i++)
        r->digest = (r->digest ^ s[i]) * UINT64_C(0x100000001b3);
}

static void
new_generation(run *r)
{
    age(&r->strs);
    age(&r->fns);
    age(&r->maps);
    age(&r->locs);
}

static void
expect_refused(pprof_status st, bool stale, const char *op)
{
    /* A stale handle is refused; the call may also fail first on another argument. */
    if (stale)
        FUZZ_CHECK(st != PPROF_OK, "%s accepted a stale handle", op);
}

static void
check_output(const pprof_buffer *out, size_t from)
{
    if (out->len == from)
        return;
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(out->data + from, out->len - from, NULL, &p, &err);
    FUZZ_CHECK(st == PPROF_OK, "builder output does not read: %s at %s: %s", pprof_status_name(st),
               err.path, err.message);
    pprof_buffer again = {0};
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    st = pprof_profile_write_memory(p, &raw, &again, &err);
    FUZZ_CHECK(st == PPROF_OK, "builder output does not rewrite: %s", err.message);
    FUZZ_CHECK(again.len == out->len - from && memcmp(again.data, out->data + from, again.len) == 0,
               "builder output is not what the writer writes for it");
    pprof_buffer_free(&again);
    pprof_profile_free(p);
}

static void
op(run *r)
{
    fdp *d = &r->d;
    pprof_builder *b = r->b;
    pprof_error err;
    pprof_status st = PPROF_OK;
    bool stale = false, forged = false;
    char s1[16], s2[16], s3[16];
    int64_t values[4];
    uint8_t code = u8(d) % 19;
    switch (code) {
    case 0:
    case 1: {
        size_t len = str(d, s1, sizeof(s1));
        pprof_builder_str h;
        st = code ? pprof_builder_intern_cstr(b, s1, &h, &err)
                  : pprof_builder_intern(b, s1, len, &h, &err);
        if (st == PPROF_OK)
            push(&r->strs, h.h);
        break;
    }
    case 2: {
        pprof_builder_str n = {pick(d, &r->strs, &stale, &forged)};
        pprof_builder_str sn = {pick(d, &r->strs, &stale, &forged)};
        pprof_builder_str f = {pick(d, &r->strs, &stale, &forged)};
        pprof_builder_fn h;
        st = pprof_builder_function(b, n, sn, f, num(d), &h, &err);
        expect_refused(st, stale, "function");
        if (st == PPROF_OK)
            push(&r->fns, h.h);
        break;
    }
    case 3: {
        pprof_builder_mapping_desc m = {0};
        m.memory_start = (uint64_t)num(d);
        m.memory_limit = (uint64_t)num(d);
        m.file_offset = (uint64_t)num(d);
        m.filename.h = pick(d, &r->strs, &stale, &forged);
        m.build_id.h = pick(d, &r->strs, &stale, &forged);
        uint8_t f = u8(d);
        m.has_functions = f & 1, m.has_filenames = f & 2, m.has_line_numbers = f & 4;
        m.has_inline_frames = f & 8;
        pprof_builder_map h;
        st = pprof_builder_mapping(b, &m, &h, &err);
        expect_refused(st, stale, "mapping");
        if (st == PPROF_OK)
            push(&r->maps, h.h);
        break;
    }
    case 4: {
        pprof_builder_map m = {pick(d, &r->maps, &stale, &forged)};
        uint64_t addr = (uint64_t)num(d);
        pprof_builder_line lines[4];
        size_t n = u8(d) % 5;
        for (size_t i = 0; i < n; i++) {
            lines[i].function.h = pick(d, &r->fns, &stale, &forged);
            lines[i].line = num(d);
            lines[i].column = num(d);
        }
        pprof_builder_loc h;
        st = pprof_builder_location(b, m, addr, lines, n, u8(d) & 1, &h, &err);
        expect_refused(st, stale, "location");
        if (st == PPROF_OK)
            push(&r->locs, h.h);
        break;
    }
    case 5: {
        size_t nv = u8(d) % 8 == 0 ? r->n_types + 1 : r->n_types;
        for (size_t i = 0; i < nv && i < 4; i++)
            values[i] = num(d);
        pprof_builder_loc stack[8];
        size_t ns = u8(d) % 9;
        for (size_t i = 0; i < ns; i++)
            stack[i].h = pick(d, &r->locs, &stale, &forged);
        pprof_builder_label labels[3];
        size_t nl = u8(d) % 4;
        for (size_t i = 0; i < nl; i++) {
            labels[i].key.h = pick(d, &r->strs, &stale, &forged);
            labels[i].str.h = pick(d, &r->strs, &stale, &forged);
            labels[i].num = num(d);
            labels[i].num_unit.h = pick(d, &r->strs, &stale, &forged);
        }
        st = pprof_builder_add_sample(b, values, nv > 4 ? 4 : nv, stack, ns, labels, nl, &err);
        expect_refused(st, stale, "add_sample");
        break;
    }
    case 6: {
        pprof_builder_open h;
        st = pprof_builder_open_begin(b, &h, &err);
        if (st == PPROF_OK)
            push(&r->opens, h.h);
        break;
    }
    case 7: {
        pprof_builder_open o = {pick(d, &r->opens, &stale, &forged)};
        pprof_builder_loc l = {pick(d, &r->locs, &stale, &forged)};
        st = pprof_builder_open_add_location(b, o, l, &err);
        expect_refused(st, stale, "open_add_location");
        break;
    }
    case 8: {
        pprof_builder_open o = {pick(d, &r->opens, &stale, &forged)};
        pprof_builder_frame f = {0};
        uint8_t k = u8(d);
        str(d, s1, sizeof(s1));
        str(d, s2, sizeof(s2));
        str(d, s3, sizeof(s3));
        f.function = k & 1 ? s1 : NULL;
        f.system_name = k & 2 ? s1 : NULL;
        f.filename = k & 4 ? s2 : NULL;
        f.mapping_filename = k & 8 ? s3 : NULL;
        f.mapping_build_id = k & 16 ? s2 : NULL;
        f.line = num(d);
        f.start_line = num(d);
        f.address = (uint64_t)num(d);
        if (k & 32) {
            f.mapping_start = (uint64_t)num(d);
            f.mapping_limit = (uint64_t)num(d);
            f.mapping_offset = (uint64_t)num(d);
        }
        st = pprof_builder_open_add_frame(b, o, &f, &err);
        expect_refused(st, stale, "open_add_frame");
        break;
    }
    case 9: {
        pprof_builder_open o = {pick(d, &r->opens, &stale, &forged)};
        pprof_builder_label l;
        l.key.h = pick(d, &r->strs, &stale, &forged);
        l.str.h = pick(d, &r->strs, &stale, &forged);
        l.num = num(d);
        l.num_unit.h = pick(d, &r->strs, &stale, &forged);
        st = pprof_builder_open_add_label(b, o, &l, &err);
        expect_refused(st, stale, "open_add_label");
        break;
    }
    case 10: {
        pprof_builder_open o = {pick(d, &r->opens, &stale, &forged)};
        uint8_t k = u8(d);
        str(d, s1, sizeof(s1));
        str(d, s2, sizeof(s2));
        st = pprof_builder_open_add_label_cstr(b, o, s1, k & 1 ? s2 : NULL, num(d),
                                               k & 2 ? s2 : NULL, &err);
        expect_refused(st, stale, "open_add_label_cstr");
        break;
    }
    case 11:
    case 12: {
        size_t i = r->opens.n ? u8(d) % r->opens.n : 0;
        pprof_builder_open o = {r->opens.n ? r->opens.h[i] : u64(d)};
        stale = r->opens.n && r->opens.stale[i];
        for (size_t k = 0; k < r->n_types; k++)
            values[k] = num(d);
        st = code == 11 ? pprof_builder_open_commit(b, o, values, r->n_types, &err)
                        : pprof_builder_open_abort(b, o, &err);
        expect_refused(st, stale, code == 11 ? "open_commit" : "open_abort");
        if (st == PPROF_OK && r->opens.n)
            r->opens.stale[i] = true;
        break;
    }
    case 13: st = pprof_builder_set_time(b, num(d), num(d), &err); break;
    case 14:
        str(d, s1, sizeof(s1));
        st = pprof_builder_add_comment(b, s1, &err);
        break;
    case 15: {
        unsigned flags = u8(d) & 1 ? PPROF_BUILDER_RESET : 0;
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        pprof_buffer out = {0};
        st = pprof_builder_write_memory(b, flags, &w, &out, &err);
        if (st == PPROF_OK) {
            check_output(&out, 0);
            mix(r, out.data, out.len);
            if (!flags && !r->filed) {
                r->filed = true;
                check_file(b, &w, &out, r->failing);
            }
            if (flags)
                new_generation(r);
        }
        pprof_buffer_free(&out);
        break;
    }
    case 16:
        st = pprof_builder_reset(b, &err);
        if (st == PPROF_OK)
            new_generation(r);
        break;
    case 17: {
        unsigned flags = u8(d) & 1 ? PPROF_BUILDER_FINISH_COMMIT_OPEN : 0;
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        pprof_buffer out = {0};
        uint64_t dropped = 0;
        st = pprof_builder_finish(b, flags, NULL, &w, &out, &dropped, &err);
        if (st == PPROF_OK) {
            check_output(&out, 0);
            mix(r, out.data, out.len);
            mix(r, &dropped, sizeof(dropped));
            new_generation(r);
            for (size_t i = 0; i < r->opens.n; i++)
                r->opens.stale[i] = true;
        }
        pprof_buffer_free(&out);
        break;
    }
    default: {
        pprof_builder_stats s = PPROF_BUILDER_STATS_INIT;
        st = pprof_builder_get_stats(b, &s, &err);
        FUZZ_CHECK(st == PPROF_OK || (r->failing && st == PPROF_E_NOMEM), "stats failed: %s",
                   err.message);
        s.arena_bytes = 0; /* depends on the allocator's rounding, not on the calls */
        mix(r, &s, sizeof(s));
        break;
    }
    }
    (void)forged;
    mix(r, &st, sizeof(st));
}

/* The calls the input encodes on a fresh builder; with fa, its allocations go through fa. */
static uint64_t
run_once(const uint8_t *data, size_t size, fuzz_failing_alloc *fa)
{
    run r;
    memset(&r, 0, sizeof(r));
    r.d = (fdp){data, size};
    r.digest = UINT64_C(0xcbf29ce484222325);
    static const pprof_builder_value_type types[] = {
        {"samples", "count"}, {"cpu", "nanoseconds"}, {"alloc_space", "bytes"}};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    uint8_t cfg = u8(&r.d);
    r.n_types = 1 + cfg % 3;
    o.sample_types = types;
    o.n_sample_types = r.n_types;
    o.flags = cfg & 0x80 ? PPROF_BUILDER_THREAD_SAFE : 0;
    if (cfg & 0x08)
        o.period_type = types[1];
    o.period = cfg & 0x10 ? 10000000 : 0;
    o.default_sample_type = cfg & 0x20 ? "cpu" : NULL;
    if (cfg & 0x40) { /* small caps, to reach the limit paths */
        o.max_strings = 1 + u8(&r.d) % 16;
        o.max_samples = 1 + u8(&r.d) % 8;
        o.max_locations = 1 + u8(&r.d) % 8;
        o.max_functions = 1 + u8(&r.d) % 8;
        o.max_mappings = 1 + u8(&r.d) % 4;
        o.max_open_samples = 1 + u8(&r.d) % 4;
        o.max_open_depth = 1 + u8(&r.d) % 8;
        o.max_string_bytes = 1 + u8(&r.d) % 64;
    }
    if (fa) {
        o.allocator = fuzz_failing_allocator(fa);
        r.failing = fa->fail_at != UINT64_MAX;
    }
    pprof_error err;
    pprof_status st = pprof_builder_new(&o, &r.b, &err);
    /* Tiny caps may not even hold the sample type strings. */
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT || (r.failing && st == PPROF_E_NOMEM),
               "builder_new failed: %s", err.message);
    if (st != PPROF_OK)
        return st;
    for (int i = 0; i < 256 && r.d.n; i++)
        op(&r);
    uint64_t left = pprof_builder_free(r.b);
    mix(&r, &left, sizeof(left));
    return r.digest;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the first through a counting allocator: the caller's allocator changes nothing */
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    uint64_t a = run_once(data, size, &fa);
    uint64_t b = run_once(data, size, NULL);
    FUZZ_CHECK(a == b, "two fresh builders given the same calls differ");
    /* Again with one allocation failing, at a few points: every call fails cleanly or works,
     * whatever output is made still reads back and rewrites to the same bytes, and the builder
     * frees everything (LeakSanitizer). */
    uint64_t calls = fa.calls, points = fuzz_fail_points(4), h = fuzz_hash(data, size);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h), 0};
        run_once(data, size, &fa);
    }
    return 0;
}
