/* Container detection and (de)compression: gzip via libdeflate, zstd via libzstd. Output is
 * capped by the read limits so a decompression bomb fails before memory runs out. */
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <zstd.h>

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

static pprof_status
gunzip(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint8_t **out,
       size_t *out_len, pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    uint64_t cap = cap_for(o, in_len);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    uint8_t *buf = NULL;
    size_t size = 0, used = 0, pos = 0;
    pprof_status st = PPROF_OK;
    /* Go's reader accepts several members back to back; so do we. */
    while (pos < in_len) {
        if (in_len - pos < 18) {
            st = pprof__error(err, PPROF_E_COMPRESSION, pos, "", "truncated gzip member");
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
                st = limit_error(err, "gzip", cap, o);
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

static pprof_status
unzstd(const uint8_t *in, size_t in_len, const pprof_read_options *o, uint8_t **out,
       size_t *out_len, pprof_error *err)
{
    const pprof_allocator *a = &o->allocator;
    uint64_t cap = cap_for(o, in_len);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    /* The window size bounds zstd's own memory; 2^27 covers every level a profiler uses. */
    ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, 27);
    unsigned long long hint = ZSTD_getFrameContentSize(in, in_len);
    /* a declared size far beyond what real profiles compress to is only grown into, so a tiny
     * frame header cannot claim the whole cap up front */
    if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR &&
        hint > (unsigned long long)in_len * 1032)
        hint = ZSTD_CONTENTSIZE_UNKNOWN;
    size_t size = hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR && hint < cap
                      ? (size_t)hint + 1
                      : (in_len * 4 + 1024 < cap ? in_len * 4 + 1024 : (size_t)cap);
    uint8_t *buf = pprof__malloc(a, size + 1);
    pprof_status st = PPROF_OK;
    ZSTD_inBuffer ib = {in, in_len, 0};
    ZSTD_outBuffer ob = {buf, size, 0};
    size_t r = 1;
    if (!buf) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    while (ib.pos < ib.size || r != 0) {
        if (ob.pos == ob.size) {
            if (ob.size >= cap) {
                st = limit_error(err, "zstd", cap, o);
                goto done;
            }
            size_t ns = ob.size * 2 < cap ? ob.size * 2 : (size_t)cap;
            uint8_t *nb = pprof__realloc(a, buf, ns + 1);
            if (!nb) {
                st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
                goto done;
            }
            buf = nb;
            ob.dst = buf;
            ob.size = ns;
        }
        size_t before_in = ib.pos, before_out = ob.pos;
        r = ZSTD_decompressStream(dc, &ob, &ib);
        if (ZSTD_isError(r)) {
            st = pprof__error(err, PPROF_E_COMPRESSION, ib.pos, "", "corrupt zstd data: %s",
                              ZSTD_getErrorName(r));
            goto done;
        }
        if (ib.pos == ib.size && r != 0 && ob.pos < ob.size && before_in == ib.pos &&
            before_out == ob.pos) {
            st = pprof__error(err, PPROF_E_COMPRESSION, ib.pos, "", "truncated zstd frame");
            goto done;
        }
    }
done:
    ZSTD_freeDCtx(dc);
    if (st) {
        pprof__free(a, buf);
        return st;
    }
    *out = buf;
    *out_len = ob.pos;
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

/* gzip in members of PPROF_GZIP_MEMBER_BYTES input bytes, compressed by up to `threads` threads
 * at once. Member k is compressed into its own bounded region at dst[k]; the regions are packed
 * together afterwards, in order, so the bytes depend only on the input and the level. */
typedef struct gz_job {
    const uint8_t *in;
    size_t in_len, n;
    int level;
    uint8_t *out;
    const size_t *dst; /* n + 1 region offsets */
    size_t *size;      /* compressed size of each member; 0 = failed */
    atomic_size_t next;
} gz_job;

static void
gz_run(gz_job *j, struct libdeflate_compressor *c)
{
    for (;;) {
        size_t k = atomic_fetch_add(&j->next, 1);
        if (k >= j->n)
            return;
        size_t off = k * PPROF_GZIP_MEMBER_BYTES;
        size_t len =
            j->in_len - off < PPROF_GZIP_MEMBER_BYTES ? j->in_len - off : PPROF_GZIP_MEMBER_BYTES;
        j->size[k] = c ? libdeflate_gzip_compress(c, j->in + off, len, j->out + j->dst[k],
                                                  j->dst[k + 1] - j->dst[k])
                       : 0;
    }
}

static void *
gz_worker(void *arg)
{
    gz_job *j = arg;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(j->level);
    gz_run(j, c);
    libdeflate_free_compressor(c);
    return NULL;
}

#define GZ_MAX_THREADS 64

static pprof_status
gzip_members(const uint8_t *in, size_t in_len, int level, unsigned threads,
             const pprof_allocator *a, pprof_buffer *out, pprof_error *err)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t n = in_len ? (in_len - 1) / PPROF_GZIP_MEMBER_BYTES + 1 : 1;
    size_t *dst = malloc((2 * n + 1) * sizeof(size_t));
    pprof_status st = PPROF_OK;
    if (!c || !dst) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        size_t off = k * PPROF_GZIP_MEMBER_BYTES;
        size_t len =
            in_len - off < PPROF_GZIP_MEMBER_BYTES ? in_len - off : PPROF_GZIP_MEMBER_BYTES;
        dst[k] = total;
        total += libdeflate_gzip_compress_bound(c, len);
    }
    dst[n] = total;
    if (!pprof__buffer_reserve_in(a, out, total)) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    gz_job j = {in, in_len, n, level, out->data + out->len, dst, dst + n + 1, 0};
    pthread_t th[GZ_MAX_THREADS];
    size_t started = 0;
    size_t want = threads > 1 ? threads - 1 : 0;
    if (want > n - 1)
        want = n - 1;
    if (want > GZ_MAX_THREADS)
        want = GZ_MAX_THREADS;
    for (; started < want; started++) /* fewer threads only means slower */
        if (pthread_create(&th[started], NULL, gz_worker, &j))
            break;
    gz_run(&j, c);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        if (j.size[k] == 0) {
            st = pprof__error(err, PPROF_E_COMPRESSION, PPROF_NO_OFFSET, "",
                              "gzip compression failed");
            goto done;
        }
        if (at != dst[k]) /* packing forward: at <= dst[k] always */
            memmove(j.out + at, j.out + dst[k], j.size[k]);
        at += j.size[k];
    }
    out->len += at;
done:
    libdeflate_free_compressor(c);
    free(dst);
    return st;
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
    if (fmt == PPROF_FORMAT_GZIP) {
        if (level <= 0)
            level = 6;
        if (level > 12)
            level = 12;
        return gzip_members(in, in_len, level, threads, a, out, err);
    }
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
