/* Container detection and (de)compression: gzip via libdeflate, zstd via libzstd. Output is
 * capped by the read limits so a decompression bomb fails before memory runs out. */
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "guard-private.h"
#include "memory-private.h"
#include "pool-private.h"
#include "profile-private.h"

pprof_format
pprof_detect_format(const void *data, size_t size)
{
    const uint8_t *b = data;
    if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return PPROF_FORMAT_GZIP;
    if (size >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return PPROF_FORMAT_ZSTD;
    return PPROF_FORMAT_RAW;
}

const char *
pprof_format_name(pprof_format f)
{
    switch (f) {
    case PPROF_FORMAT_GZIP: return "gzip";
    case PPROF_FORMAT_ZSTD: return "zstd";
    default: return "none";
    }
}

/* The most a given input may expand to: the absolute cap, and past ratio_floor the ratio. */
static uint64_t
cap_for(const pprof_read_options *o, size_t in_len)
{
    uint64_t cap = o->max_decompressed_bytes;
    if (o->max_ratio) {
        uint64_t by_ratio = (uint64_t)in_len * o->max_ratio;
        if (by_ratio < o->ratio_floor)
            by_ratio = o->ratio_floor;
        if (by_ratio < cap)
            cap = by_ratio;
    }
    if (cap > SIZE_MAX / 2)
        cap = SIZE_MAX / 2;
    return cap;
}

static pprof_status
limit_error(pprof_error *err, const char *what, uint64_t cap, const pprof_read_options *o)
{
    return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                        "%s data expands past %llu bytes (limits: %llu bytes, ratio %u:1); "
                        "refusing a possible decompression bomb",
                        what, (unsigned long long)cap,
                        (unsigned long long)o->max_decompressed_bytes, o->max_ratio);
}

/* Real profiles compress 2-30x. A stream that expands further is inflated again, chunk by
 * chunk, with the guard looking at each chunk, so a bomb is refused while it is inflated. Below
 * it libdeflate inflates in one go, which is twice as fast. The buffer of that first attempt
 * (at most in_len * TRUST_RATIO bytes) is freed before the second starts. */
#define TRUST_RATIO 20
/* The first bytes inflated are sniffed before anything else: a stream that is not a profile
 * (zeros, text, other data) is refused after this many bytes, however far it would expand. */
#define PROBE_BYTES ((size_t)4 << 10)
/* The guard looks at the output this often in careful mode. */
#define CHUNK_BYTES ((size_t)1 << 20)
/* The most threads that inflate the members of one stream besides the caller. */
#define GZ_SIDE_MAX_HELPERS 15

static voidpf
z_alloc(voidpf ctx, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size)
        return Z_NULL;
    return pprof__malloc(ctx, (size_t)items * size);
}

static void
z_free(voidpf ctx, voidpf p)
{
    pprof__free(ctx, p);
}

/* Grows *buf (of *size bytes, one spare byte past them) toward cap; false when already there. */
static pprof_status
grow(const pprof_allocator *a, uint8_t **buf, size_t *size, uint64_t cap, const char *what,
     const pprof_read_options *o, pprof_error *err)
{
    if (*size >= cap)
        return limit_error(err, what, cap, o);
    size_t ns = *size * 2 < cap ? *size * 2 : (size_t)cap;
    uint8_t *nb = pprof__realloc(a, *buf, ns + 1);
    if (!nb)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    *buf = nb;
    *size = ns;
    return PPROF_OK;
}

/* gzip members (trailing zero padding tolerated) inflated by zlib into *buf, of *size bytes,
 * grown up to cap. With g, the guard sees every chunk, and with slide what it has looked at is
 * dropped (the buffer is a window that keeps the field being cut, *used its bytes at the end);
 * with stop > 0, inflating stops once that many bytes are out (*done false). The errors name
 * truncation apart from corruption. */
static pprof_status
gz_stream(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint64_t cap,
          pprof__guard *g, bool slide, size_t stop, uint8_t **buf, size_t *size, size_t *used,
          bool *done, pprof_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    zs.zalloc = z_alloc;
    zs.zfree = z_free;
    zs.opaque = (voidpf)&o->allocator;
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    size_t pos = 0, member = 0, fed = 0;
    *used = 0;
    *done = false;
    pprof_status st = PPROF_OK;
    while (st == PPROF_OK) {
        if (stop && *used >= stop)
            break;
        /* a window grows only for a field longer than itself; the stream's size is bounded by
         * the guard's cost check */
        uint64_t grow_cap = slide ? cap - (g->base < cap ? g->base : cap) : cap;
        if (*used == *size && (st = grow(&o->allocator, buf, size, grow_cap, "gzip", o, err)))
            break;
        size_t room = *size - *used;
        if (g && room > CHUNK_BYTES)
            room = CHUNK_BYTES;
        if (stop && room > stop - *used)
            room = stop - *used;
        size_t in_room = in_len - pos < UINT_MAX ? in_len - pos : UINT_MAX;
        zs.next_in = (Bytef *)(in + pos);
        zs.avail_in = (uInt)in_room;
        zs.next_out = *buf + *used;
        zs.avail_out = (uInt)(room < UINT_MAX ? room : UINT_MAX);
        uInt out_before = zs.avail_out;
        int r = inflate(&zs, Z_NO_FLUSH);
        pos += in_room - zs.avail_in;
        *used += out_before - zs.avail_out;
        if (g && (*used - fed >= CHUNK_BYTES || r == Z_STREAM_END)) {
            if ((st = pprof__guard_feed(g, *buf, *used, false, err)))
                break;
            if (slide)
                pprof__guard_slide(g, *buf, used);
            fed = *used;
        }
        if (r == Z_OK)
            continue;
        if (r == Z_BUF_ERROR && zs.avail_out == 0)
            continue;           /* no room out: grown above */
        if (r == Z_BUF_ERROR) { /* no progress with room out: the input ended */
            st = pprof__error(err, PPROF_E_COMPRESSION, member, "",
                              "truncated gzip data (the member at byte %zu is cut short)", member);
            break;
        }
        if (r == Z_MEM_ERROR) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
            break;
        }
        if (r != Z_STREAM_END) {
            st = pprof__error(err, PPROF_E_COMPRESSION, member, "",
                              "corrupt gzip data in the member at byte %zu%s%s", member,
                              zs.msg ? ": " : "", zs.msg ? zs.msg : "");
            break;
        }
        /* A member ends: padding, another member, or garbage. */
        size_t z = pos;
        while (z < in_len && in[z] == 0)
            z++;
        if (z == in_len) {
            *done = true;
            break;
        }
        if (in_len - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
            st = pprof__error(err, PPROF_E_COMPRESSION, pos, "",
                              "trailing garbage after gzip member at byte %zu", pos);
            break;
        }
        member = pos;
        inflateReset(&zs);
    }
    inflateEnd(&zs);
    if (st == PPROF_OK && g && *done)
        st = pprof__guard_feed(g, *buf, *used, true, err);
    return st;
}

/* The buffer and tables of what was inflated in one go may still be a bomb's when the ratio is
 * past what real profiles show: the guard looks at it all before the decoder allocates. */
static pprof_status
guard_whole(const uint8_t *buf, size_t len, const pprof_read_options *o, uint64_t cap,
            pprof_error *err)
{
    if ((uint64_t)len * (1 + PPROF__MODEL_PER_BYTE) <= cap)
        return PPROF_OK; /* the tables cannot outgrow cap */
    pprof__guard g;
    pprof__guard_init(&g, o, cap);
    pprof_status st = pprof__guard_feed(&g, buf, len, true, err);
    pprof__guard_free(&g);
    return st;
}

/* libdeflate, one member at a time, each in one go; at most cap bytes out. */
static pprof_status
gz_whole(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint64_t cap,
         uint64_t full_cap, uint64_t total_hint, uint8_t **out, size_t *out_len, pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    uint8_t *buf = NULL;
    size_t size = 0, used = 0, pos = 0;
    pprof_status st = PPROF_OK;
    /* Go's reader accepts several members back to back; so do we. */
    while (pos < in_len) {
        if (in_len - pos < 18) {
            st = pprof__error(err, PPROF_E_COMPRESSION, pos, "",
                              "truncated gzip data: %zu bytes at byte %zu are no whole member",
                              in_len - pos, pos);
            break;
        }
        const uint8_t *t = in + in_len - 4; /* ISIZE of the last member: a hint, not trusted */
        uint64_t hint = pos == 0 ? (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
                                       (uint64_t)t[3] << 24
                                 : 0;
        /* deflate expands at most 1032:1, so a larger ISIZE is a lie (or a damaged trailer):
         * allocating for it would let a few hundred bytes claim the whole cap up front */
        if (hint > (uint64_t)in_len * 1032)
            hint = 0;
        /* the members' sizes summed (member_plan), when they are known: one allocation */
        if (pos == 0 && total_hint > hint)
            hint = total_hint;
        uint64_t want = used + (hint > 64 ? hint : in_len * 4 + 1024);
        for (;;) {
            if (want > cap)
                want = cap;
            if (want > size || size == 0) {
                uint8_t *nb = pprof__realloc(a, buf, (size_t)want + 1);
                if (!nb) {
                    st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
                    goto done;
                }
                buf = nb;
                size = (size_t)want;
            }
            size_t in_used = 0, got = 0;
            enum libdeflate_result r = libdeflate_gzip_decompress_ex(
                d, in + pos, in_len - pos, buf + used, size - used, &in_used, &got);
            if (r == LIBDEFLATE_SUCCESS) {
                used += got;
                pos += in_used;
                break;
            }
            if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
                st = pprof__error(err, PPROF_E_COMPRESSION, pos, "",
                                  "corrupt gzip data in the member at byte %zu", pos);
                goto done;
            }
            if (size >= cap) {
                st = limit_error(err, "gzip", full_cap, o);
                goto done;
            }
            want = (uint64_t)size * 2;
        }
        /* Trailing zero padding after the last member is tolerated, like gzip(1) does. */
        size_t z = pos;
        while (z < in_len && in[z] == 0)
            z++;
        if (z == in_len)
            break;
        if (in_len - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
            st = pprof__error(err, PPROF_E_COMPRESSION, pos, "",
                              "trailing garbage after gzip member at byte %zu", pos);
            goto done;
        }
    }
done:
    libdeflate_free_decompressor(d);
    if (st) {
        pprof__free(a, buf);
        return st;
    }
    *out = buf;
    *out_len = used;
    return PPROF_OK;
}

/* ---- gzip members side by side
 * A stream of several members (this library writes gzip in members of PPROF_GZIP_MEMBER_BYTES)
 * can be inflated member by member on several threads, each into its place in one buffer,
 * once it is known where each member starts and how much it gives. Both are read from the
 * bytes, untrusted: a member starts with the header libdeflate and zlib write (no name, no
 * extra field), and the trailer before it declares its predecessor's size. The plan is only a
 * guess; it holds when every member inflates from its guessed start to exactly the next one,
 * to exactly its declared size, which is what inflating them one after the other does. */

typedef struct member_plan {
    size_t n;      /* members */
    size_t *at;    /* n + 1: where each starts in the input; at[n] = the input's length */
    uint64_t *out; /* n + 1: where each goes in the output; out[n] = the total */
} member_plan;

static uint32_t
le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
member_plan_free(member_plan *m)
{
    free(m->at);
    free(m->out);
    memset(m, 0, sizeof(*m));
}

/* The members a stream seems to hold; n = 0 when it does not look like two or more. */
static void
member_plan_find(const uint8_t *in, size_t in_len, member_plan *m)
{
    memset(m, 0, sizeof(*m));
    if (in_len < 36)
        return;
    size_t cap = 0;
    const uint8_t *p = in + 18, *end = in + in_len;
    for (;;) {
        if (m->n + 2 > cap) {
            size_t nc = cap ? 2 * cap : 64;
            size_t *na = realloc(m->at, nc * sizeof(size_t));
            if (!na)
                goto none;
            m->at = na;
            cap = nc;
        }
        if (m->n == 0) {
            m->at[m->n++] = 0;
            continue;
        }
        while (p + 18 <= end && (p = memchr(p, 0x1f, (size_t)(end - 18 - p) + 1)) != NULL &&
               !(p[1] == 0x8b && p[2] == 8 && p[3] == 0))
            p++;
        if (!p || p + 18 > end)
            break;
        m->at[m->n++] = (size_t)(p - in);
        p += 18; /* a member is at least a header and a trailer */
    }
    if (m->n < 2)
        goto none;
    m->at[m->n] = in_len;
    if (!(m->out = malloc((m->n + 1) * sizeof(uint64_t))))
        goto none;
    m->out[0] = 0;
    for (size_t k = 0; k < m->n; k++) {
        uint64_t isize = le32(in + m->at[k + 1] - 4);
        /* deflate expands at most 1032:1: a larger size is no trailer */
        if (isize > (uint64_t)(m->at[k + 1] - m->at[k]) * 1032)
            goto none;
        m->out[k + 1] = m->out[k] + isize;
    }
    return;
none:
    member_plan_free(m);
}

typedef struct gz_side {
    const uint8_t *in;
    size_t in_len;
    const member_plan *m;
    uint8_t *buf;
    _Atomic size_t next; /* the next member to take */
    _Atomic bool bad;    /* a member did not go as planned */
} gz_side;

static void
gz_side_work(void *arg)
{
    gz_side *g = arg;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        atomic_store_explicit(&g->bad, true, memory_order_relaxed);
    while (d && !atomic_load_explicit(&g->bad, memory_order_relaxed)) {
        size_t k = atomic_fetch_add_explicit(&g->next, 1, memory_order_relaxed);
        if (k >= g->m->n)
            break;
        const size_t *at = g->m->at;
        size_t want = (size_t)(g->m->out[k + 1] - g->m->out[k]), in_used = 0, got = 0;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(
            d, g->in + at[k], g->in_len - at[k], g->buf + g->m->out[k], want, &in_used, &got);
        if (r != LIBDEFLATE_SUCCESS || in_used != at[k + 1] - at[k] || got != want)
            atomic_store_explicit(&g->bad, true, memory_order_relaxed);
    }
    libdeflate_free_decompressor(d);
}

/* The plan's members on up to `threads` threads into one buffer of the planned size. False
 * when the plan did not hold (or memory ran out): the caller inflates the usual way. */
static bool
gz_sides(const uint8_t *in, size_t in_len, const member_plan *m, unsigned threads,
         const pprof_allocator *a, uint8_t **out, size_t *out_len)
{
    size_t total = (size_t)m->out[m->n];
    uint8_t *buf = pprof__malloc(a, total + 1);
    if (!buf)
        return false;
    gz_side g = {.in = in, .in_len = in_len, .m = m, .buf = buf};
    atomic_init(&g.next, 0);
    atomic_init(&g.bad, false);
    size_t helpers = threads - 1 < m->n - 1 ? threads - 1 : m->n - 1;
    if (helpers > GZ_SIDE_MAX_HELPERS)
        helpers = GZ_SIDE_MAX_HELPERS;
    pprof__pool *pool = pprof__pool_new((unsigned)helpers);
    pprof__job job[GZ_SIDE_MAX_HELPERS];
    bool started[GZ_SIDE_MAX_HELPERS] = {false};
    for (size_t t = 0; t < helpers; t++) {
        job[t] = (pprof__job){.fn = gz_side_work, .arg = &g, .name = "pprof-inflate"};
        started[t] = pprof__pool_start(pool, &job[t]);
    }
    gz_side_work(&g);
    for (size_t t = 0; t < helpers; t++)
        if (started[t])
            pprof__pool_wait(&job[t]);
    pprof__pool_free(pool);
    if (atomic_load_explicit(&g.bad, memory_order_relaxed)) {
        pprof__free(a, buf);
        return false;
    }
    *out = buf;
    *out_len = total;
    return true;
}

static pprof_status
gunzip(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint8_t **out,
       size_t *out_len, pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    uint64_t cap = cap_for(o, in_len);
    /* 1. the first bytes: not a profile, or all there is */
    size_t size = PROBE_BYTES < cap ? PROBE_BYTES : (size_t)cap, used = 0;
    uint8_t *buf = pprof__malloc(a, size + 1);
    if (!buf)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    bool done = false;
    uint64_t bad = 0;
    pprof_status st =
        gz_stream(in, in_len, o, size, NULL, false, size, &buf, &size, &used, &done, err);
    if (st == PPROF_E_LIMIT) /* cap below the probe: the careful path says so */
        st = PPROF_OK;
    if (st == PPROF_OK && !done && !pprof__sniff(buf, used, false, &bad))
        st = pprof__not_a_profile(err, bad);
    if (st || done) {
        if (st == PPROF_OK && (st = guard_whole(buf, used, o, cap, err)) == PPROF_OK) {
            *out = buf;
            *out_len = used;
            return PPROF_OK;
        }
        pprof__free(a, buf);
        return st;
    }
    pprof__free(a, buf);
    /* 2. in one go, as long as the ratio is one of real profiles */
    uint64_t trusted = (uint64_t)in_len * TRUST_RATIO;
    if (trusted < 4 * PROBE_BYTES)
        trusted = 4 * PROBE_BYTES;
    if (trusted > cap)
        trusted = cap;
    /* The size the trailer declares (of the last member, modulo 2^32) is a hint: past the
     * trusted ratio, the one-go attempt would only fill trusted bytes to throw them away. A
     * trailer that lies costs that attempt, no more. */
    const uint8_t *t = in + in_len - 4;
    uint64_t isize = in_len >= 18 ? (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
                                        (uint64_t)t[3] << 24
                                  : 0;
    if (isize <= trusted) {
        member_plan m;
        member_plan_find(in, in_len, &m);
        uint64_t total = m.n && m.out[m.n] <= trusted ? m.out[m.n] : 0;
        if (total && o->threads > 1 && gz_sides(in, in_len, &m, o->threads, a, out, out_len))
            st = PPROF_OK;
        else
            st = gz_whole(in, in_len, o, trusted, cap, total, out, out_len, err);
        member_plan_free(&m);
        if (st == PPROF_OK && (st = guard_whole(*out, *out_len, o, cap, err)) != PPROF_OK)
            pprof__free(a, *out);
        if (st != PPROF_E_LIMIT && st != PPROF_E_COMPRESSION)
            return st;
        if (st == PPROF_E_LIMIT && trusted >= cap)
            return st;
    }
    /* 3. past it, or corrupt (zlib tells truncation apart): the whole stream is checked chunk
     * by chunk under the guard, keeping nothing but the field being cut, so a stream refused
     * anywhere (a wire error at its very end too) is refused at the cost of the guard's state;
     * only a stream it accepts is inflated again, to keep. */
    pprof__guard g;
    pprof__guard_init(&g, o, cap);
    size = 2 * CHUNK_BYTES < cap ? 2 * CHUNK_BYTES : (size_t)cap;
    if (!(buf = pprof__malloc(a, size + 1))) {
        pprof__guard_free(&g);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    st = gz_stream(in, in_len, o, cap, &g, true, 0, &buf, &size, &used, &done, err);
    pprof__guard_free(&g);
    pprof__free(a, buf);
    if (st)
        return st;
    size = in_len * 4 + PROBE_BYTES < cap ? in_len * 4 + PROBE_BYTES : (size_t)cap;
    if (!(buf = pprof__malloc(a, size + 1)))
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    st = gz_stream(in, in_len, o, cap, NULL, false, 0, &buf, &size, &used, &done, err);
    if (st) {
        pprof__free(a, buf);
        return st;
    }
    *out = buf;
    *out_len = used;
    return PPROF_OK;
}

/* One pass of zstd frames into *buf (*size bytes, grown up to cap; *used out): with sniff the
 * first bytes are sniffed, with g the guard sees every chunk, and with slide what it has looked
 * at is dropped (see gz_stream). */
static pprof_status
zstd_stream(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint64_t cap, bool sniff,
            pprof__guard *g, bool slide, uint8_t **buf, size_t *size, size_t *used,
            pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    /* The window size bounds zstd's own memory; 2^27 covers every level a profiler uses. */
    ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, 27);
    pprof_status st = PPROF_OK;
    ZSTD_inBuffer ib = {in, in_len, 0};
    size_t pos = 0, r = 1, fed = 0;
    bool sniffed = !sniff;
    while (ib.pos < ib.size || r != 0) {
        uint64_t grow_cap = slide ? cap - (g->base < cap ? g->base : cap) : cap;
        if (pos == *size && (st = grow(a, buf, size, grow_cap, "zstd", o, err)))
            goto done;
        size_t lim = *size;
        if (!sniffed && lim > PROBE_BYTES)
            lim = PROBE_BYTES;
        else if (g && lim - pos > CHUNK_BYTES)
            lim = pos + CHUNK_BYTES;
        ZSTD_outBuffer ob = {*buf, lim, pos};
        size_t before_in = ib.pos;
        r = ZSTD_decompressStream(dc, &ob, &ib);
        if (ZSTD_isError(r)) {
            st = pprof__error(err, PPROF_E_COMPRESSION, ib.pos, "", "corrupt zstd data: %s",
                              ZSTD_getErrorName(r));
            goto done;
        }
        bool progress = ob.pos != pos || ib.pos != before_in;
        pos = ob.pos;
        bool end = ib.pos == ib.size && r == 0;
        if (!sniffed && (pos >= PROBE_BYTES || end)) {
            sniffed = true;
            uint64_t bad;
            if (!end && !pprof__sniff(*buf, pos, false, &bad)) {
                st = pprof__not_a_profile(err, bad);
                goto done;
            }
        }
        if (g && pos - fed >= CHUNK_BYTES) {
            if ((st = pprof__guard_feed(g, *buf, pos, false, err)))
                goto done;
            if (slide)
                pprof__guard_slide(g, *buf, &pos);
            fed = pos;
        }
        if (ib.pos == ib.size && r != 0 && pos < lim && !progress) {
            st = pprof__error(err, PPROF_E_COMPRESSION, ib.pos, "", "truncated zstd frame");
            goto done;
        }
    }
    if (g)
        st = pprof__guard_feed(g, *buf, pos, true, err);
done:
    ZSTD_freeDCtx(dc);
    *used = pos;
    return st;
}

/* As gunzip: sniffed, then in one go up to the ratio of real profiles; past it the whole stream
 * is checked under the guard through a window, and inflated again only if it passes. */
static pprof_status
unzstd(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint8_t **out,
       size_t *out_len, pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    uint64_t cap = cap_for(o, in_len);
    uint64_t trusted = (uint64_t)in_len * TRUST_RATIO;
    if (trusted < 4 * PROBE_BYTES)
        trusted = 4 * PROBE_BYTES;
    if (trusted > cap)
        trusted = cap;
    unsigned long long declared = ZSTD_getFrameContentSize(in, in_len), hint = declared;
    /* a declared size past what real profiles compress to is only grown into, so a tiny frame
     * header cannot claim the whole cap up front */
    if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR && hint > trusted)
        hint = ZSTD_CONTENTSIZE_UNKNOWN;
    size_t size = hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR
                      ? (size_t)hint + 1
                      : (in_len * 4 + 1024 < trusted ? in_len * 4 + 1024 : (size_t)trusted);
    if (size > trusted)
        size = (size_t)trusted;
    /* the sniff only, when the frame declares more than the trusted ratio (as gzip's trailer:
     * a frame that lies costs the one-go attempt, no more) */
    uint64_t first = trusted;
    if (hint == ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_UNKNOWN &&
        declared != ZSTD_CONTENTSIZE_ERROR && PROBE_BYTES < trusted)
        first = PROBE_BYTES;
    if (size > first)
        size = (size_t)first;
    size_t used = 0;
    uint8_t *buf = pprof__malloc(a, size + 1);
    if (!buf)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_status st = zstd_stream(in, in_len, o, first, true, NULL, false, &buf, &size, &used, err);
    if (st == PPROF_OK && (st = guard_whole(buf, used, o, cap, err)) == PPROF_OK) {
        *out = buf;
        *out_len = used;
        return PPROF_OK;
    }
    pprof__free(a, buf);
    if (st != PPROF_E_LIMIT || first >= cap)
        return st;
    pprof__guard g;
    pprof__guard_init(&g, o, cap);
    size = 2 * CHUNK_BYTES < cap ? 2 * CHUNK_BYTES : (size_t)cap;
    if (!(buf = pprof__malloc(a, size + 1))) {
        pprof__guard_free(&g);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    st = zstd_stream(in, in_len, o, cap, false, &g, true, &buf, &size, &used, err);
    pprof__guard_free(&g);
    pprof__free(a, buf);
    if (st)
        return st;
    size = in_len * 4 + 1024 < cap ? in_len * 4 + 1024 : (size_t)cap;
    if (!(buf = pprof__malloc(a, size + 1)))
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    st = zstd_stream(in, in_len, o, cap, false, NULL, false, &buf, &size, &used, err);
    if (st) {
        pprof__free(a, buf);
        return st;
    }
    *out = buf;
    *out_len = used;
    return PPROF_OK;
}

pprof_status
pprof__decompress(const uint8_t *in, size_t in_len, pprof_format fmt, const pprof_read_options *o,
                  uint8_t **out, size_t *out_len, pprof_error *err)
{
    if (fmt == PPROF_FORMAT_GZIP)
        return gunzip(in, in_len, o, out, out_len, err);
    if (fmt == PPROF_FORMAT_ZSTD)
        return unzstd(in, in_len, o, out, out_len, err);
    if (in_len > o->max_decompressed_bytes)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "input of %zu bytes exceeds the limit of %llu", in_len,
                            (unsigned long long)o->max_decompressed_bytes);
    uint8_t *b = pprof__malloc(&o->allocator, in_len + 1);
    if (!b)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    if (in_len)
        memcpy(b, in, in_len);
    *out = b;
    *out_len = in_len;
    return PPROF_OK;
}

/* gzip as members of PPROF_GZIP_MEMBER_BYTES input bytes each, compressed by up to `threads`
 * threads, possibly while the input is still being produced (pprof__gz_stream_ready). Without a
 * sink, member k is compressed into its own bounded region of out; the regions are packed
 * together in order at the end. With a sink, each thread compresses into a region of its own,
 * reused for every member it takes, and writes the member when those before it are out: a
 * member fills about a fifth of its region, and on some virtual machines every 4 KiB page
 * touched for the first time costs microseconds. The bytes depend only on the input and the
 * level. */
#define GZ_MAX_THREADS 64
#define GZ_M PPROF_GZIP_MEMBER_BYTES

typedef struct gz_worker {
    struct pprof__gz_stream *g;
    uint8_t *scratch; /* with a sink: this worker's region */
    struct libdeflate_compressor *c;
} gz_worker;

struct pprof__gz_stream {
    const uint8_t *in;
    /* Without in: each member's bytes, handed over by the producer before they are announced
     * (pprof__gz_stream_member), in buffers it reuses once the member is compressed. */
    const uint8_t **member_in;
    int level;
    size_t max_members, region; /* region: room for one compressed member */
    const pprof_allocator *a;
    pprof_buffer *out;
    uint8_t *base; /* without a sink: max_members regions, at out's end */
    size_t *size;  /* compressed size of each member; 0 = failed */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t ready, next; /* input bytes available; next member to take */
    bool done, abort;   /* ready is final; stop without compressing */
    uint8_t *fin;       /* per member: compressed (or failed) */
    size_t n_fin;       /* members below this are all compressed */
    size_t busy;        /* members being compressed */
    pprof__out_file *sink;
    size_t n_written;  /* with a sink: members written, in order */
    pprof__pool *pool; /* the write call's: one worker per helper */
    pprof__job job[GZ_MAX_THREADS];
    gz_worker w[GZ_MAX_THREADS + 1]; /* the last one is the caller's, in finish */
    size_t n_threads;
};

/* Takes the next member and waits for its input; false when there is none left. */
static bool
gz_take(pprof__gz_stream *g, size_t *k, size_t *len)
{
    pthread_mutex_lock(&g->mu);
    *k = g->next++;
    size_t start = *k * GZ_M;
    while (!g->done && g->ready < start + GZ_M)
        pthread_cond_wait(&g->cv, &g->mu);
    bool ok = !g->abort && *k < g->max_members && (start < g->ready || *k == 0);
    if (ok) {
        *len = g->ready - start < GZ_M ? g->ready - start : GZ_M;
        g->busy++;
    }
    pthread_mutex_unlock(&g->mu);
    return ok;
}

/* Writes member k, compressed into at, once every member before it is out. Members are taken
 * in order and a taken member is always finished, so the wait ends; a failed member stops
 * everything (finish reports it). */
static void
gz_write_in_order(pprof__gz_stream *g, size_t k, const uint8_t *at)
{
    pthread_mutex_lock(&g->mu);
    while (g->n_written != k && !g->abort)
        pthread_cond_wait(&g->cv, &g->mu);
    if (!g->abort && g->size[k] == 0)
        g->abort = true;
    if (!g->abort) {
        pthread_mutex_unlock(&g->mu);
        pprof__out_write(g->sink, at, g->size[k]);
        pthread_mutex_lock(&g->mu);
        g->n_written++;
    }
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Compresses member k (len input bytes), writes it with a sink, and marks it done. */
static void
gz_member(gz_worker *w, size_t k, size_t len)
{
    pprof__gz_stream *g = w->g;
    if (!w->c)
        w->c = libdeflate_alloc_compressor(g->level);
    const uint8_t *in = g->member_in ? g->member_in[k] : g->in + k * GZ_M;
    uint8_t *at = g->sink ? w->scratch : g->base + k * g->region;
    g->size[k] = w->c && in ? libdeflate_gzip_compress(w->c, in, len, at, g->region) : 0;
    if (g->sink)
        gz_write_in_order(g, k, at);
    pthread_mutex_lock(&g->mu);
    g->busy--;
    g->fin[k] = 1;
    while (g->n_fin < g->max_members && g->fin[g->n_fin])
        g->n_fin++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void
gz_work(gz_worker *w)
{
    size_t k, len;
    while (gz_take(w->g, &k, &len))
        gz_member(w, k, len);
}

static void
gz_thread(void *arg)
{
    gz_work(arg);
}

static void
gz_free(pprof__gz_stream *g)
{
    for (size_t t = 0; t <= GZ_MAX_THREADS; t++) {
        pprof__free(g->a, g->w[t].scratch);
        libdeflate_free_compressor(g->w[t].c);
    }
    pprof__pool_free(g->pool);
    free(g->size);
    free(g->fin);
    free(g->member_in);
    free(g);
}

pprof__gz_stream *
pprof__gz_stream_start(const uint8_t *in, size_t max_len, int level, unsigned threads,
                       const pprof_allocator *a, pprof_buffer *out, pprof__out_file *sink,
                       pprof_error *err)
{
    if (level <= 0)
        level = PPROF_GZIP_DEFAULT_LEVEL;
    if (level > 12)
        level = 12;
    pprof__gz_stream *g = calloc(1, sizeof(*g));
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    if (!g || !c)
        goto nomem;
    g->in = in;
    g->level = level;
    g->a = a;
    g->out = out;
    g->max_members = max_len ? (max_len - 1) / GZ_M + 1 : 1;
    /* every member is full size but the last; the bound of a full one covers all */
    g->region = libdeflate_gzip_compress_bound(c, max_len < GZ_M ? max_len : GZ_M);
    libdeflate_free_compressor(c);
    c = NULL;
    g->size = calloc(g->max_members, sizeof(size_t));
    g->fin = calloc(g->max_members, 1);
    if (!in)
        g->member_in = calloc(g->max_members, sizeof(*g->member_in));
    g->sink = sink;
    if (!g->size || !g->fin || (!in && !g->member_in))
        goto nomem;
    size_t want = threads > 1 ? threads - 1 : 0;
    if (want > g->max_members - 1)
        want = g->max_members - 1;
    if (want > GZ_MAX_THREADS)
        want = GZ_MAX_THREADS;
    for (size_t t = 0; t <= GZ_MAX_THREADS; t++)
        g->w[t].g = g;
    if (sink) {
        for (size_t t = 0; t < want; t++)
            if (!(g->w[t].scratch = pprof__malloc(a, g->region)))
                goto nomem;
        if (!(g->w[GZ_MAX_THREADS].scratch = pprof__malloc(a, g->region)))
            goto nomem;
    } else {
        if (g->max_members > SIZE_MAX / g->region ||
            !pprof__buffer_reserve_in(a, out, g->max_members * g->region))
            goto nomem;
        g->base = out->data + out->len;
        /* A member fills a fraction of its region: in huge pages, every region would be
         * faulted in whole. */
        pprof__mem_small_pages(g->base, g->max_members * g->region);
    }
    if (pthread_mutex_init(&g->mu, NULL))
        goto nomem;
    if (pthread_cond_init(&g->cv, NULL)) {
        pthread_mutex_destroy(&g->mu);
        goto nomem;
    }
    g->pool = pprof__pool_new((unsigned)want);
    for (; g->n_threads < want; g->n_threads++) { /* fewer threads only means slower */
        g->job[g->n_threads] = (pprof__job){.fn = gz_thread, .arg = &g->w[g->n_threads]};
        if (!pprof__pool_start(g->pool, &g->job[g->n_threads]))
            break;
    }
    return g;
nomem:
    libdeflate_free_compressor(c);
    if (g)
        gz_free(g);
    pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    return NULL;
}

void
pprof__gz_stream_member(pprof__gz_stream *g, size_t k, const uint8_t *data)
{
    if (g->member_in && k < g->max_members) /* beyond: finish reports more input than announced */
        g->member_in[k] = data;
}

void
pprof__gz_stream_wait(pprof__gz_stream *g, size_t k)
{
    if (k > g->max_members) /* more input than announced: finish reports it */
        k = g->max_members;
    pthread_mutex_lock(&g->mu);
    /* after a failure nothing more is compressed, but what is being compressed still reads */
    while (g->n_fin < k && !(g->abort && g->busy == 0)) {
        size_t j = g->next;
        if (!g->abort && j < g->max_members && g->ready >= (j + 1) * GZ_M) {
            /* a whole member is ready and nobody took it: compressed here rather than waited
             * for (also what makes progress when no worker started) */
            g->next++;
            g->busy++;
            pthread_mutex_unlock(&g->mu);
            gz_member(&g->w[GZ_MAX_THREADS], j, GZ_M);
            pthread_mutex_lock(&g->mu);
            continue;
        }
        pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
}

void
pprof__gz_stream_ready(pprof__gz_stream *g, size_t len)
{
    pthread_mutex_lock(&g->mu);
    g->ready = len;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

pprof_status
pprof__gz_stream_finish(pprof__gz_stream *g, size_t len, bool ok, pprof_error *err)
{
    pthread_mutex_lock(&g->mu);
    g->ready = len;
    g->done = true;
    g->abort = !ok;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (ok)
        gz_work(&g->w[GZ_MAX_THREADS]); /* the caller compresses what is left, too */
    for (size_t t = 0; t < g->n_threads; t++)
        pprof__pool_wait(&g->job[t]);
    pprof_status st = PPROF_OK;
    size_t n = len ? (len - 1) / GZ_M + 1 : 1, at = 0;
    if (ok && n > g->max_members)
        st = pprof__error(err, PPROF_E_COMPRESSION, PPROF_NO_OFFSET, "",
                          "gzip: more input than announced");
    for (size_t k = 0; ok && st == PPROF_OK && k < n; k++) {
        if (g->size[k] == 0 || (g->sink && k >= g->n_written)) {
            st = pprof__error(err, PPROF_E_COMPRESSION, PPROF_NO_OFFSET, "",
                              "gzip compression failed");
            break;
        }
        if (g->sink)
            continue;
        if (at != k * g->region) /* packing forward: at <= k * region always */
            memmove(g->base + at, g->base + k * g->region, g->size[k]);
        at += g->size[k];
    }
    if (ok && st == PPROF_OK)
        g->out->len += at;
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    gz_free(g);
    return st;
}

static pprof_status
gzip_members(const uint8_t *in, size_t in_len, int level, unsigned threads,
             const pprof_allocator *a, pprof_buffer *out, pprof_error *err)
{
    pprof__gz_stream *g = pprof__gz_stream_start(in, in_len, level, threads, a, out, NULL, err);
    return g ? pprof__gz_stream_finish(g, in_len, true, err) : PPROF_E_NOMEM;
}

pprof_status
pprof__compress(const uint8_t *in, size_t in_len, pprof_format fmt, int level, unsigned threads,
                const pprof_allocator *a, pprof_buffer *out, pprof_error *err)
{
    if (fmt == PPROF_FORMAT_RAW) {
        if (!pprof__buffer_reserve_in(a, out, in_len))
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        if (in_len)
            memcpy(out->data + out->len, in, in_len);
        out->len += in_len;
        return PPROF_OK;
    }
    if (fmt == PPROF_FORMAT_GZIP)
        return gzip_members(in, in_len, level, threads, a, out, err);
    if (fmt == PPROF_FORMAT_ZSTD) {
        if (level <= 0)
            level = 3;
        if (level > ZSTD_maxCLevel())
            level = ZSTD_maxCLevel();
        size_t bound = ZSTD_compressBound(in_len);
        if (!pprof__buffer_reserve_in(a, out, bound))
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        size_t n = ZSTD_compress(out->data + out->len, bound, in, in_len, level);
        if (ZSTD_isError(n))
            return pprof__error(err, PPROF_E_COMPRESSION, PPROF_NO_OFFSET, "",
                                "zstd compression failed: %s", ZSTD_getErrorName(n));
        out->len += n;
        return PPROF_OK;
    }
    return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown output format %d", fmt);
}
