/* Container detection and (de)compression: gzip via libdeflate, zstd via libzstd. Output is
 * capped by the read limits so a decompression bomb fails before memory runs out. */
#include <libdeflate.h>
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

pprof_status
pprof__compress(const uint8_t *in, size_t in_len, pprof_format fmt, int level, pprof_buffer *out,
                pprof_error *err)
{
    if (fmt == PPROF_FORMAT_RAW)
        return pprof__buffer_append(out, in, in_len);
    if (fmt == PPROF_FORMAT_GZIP) {
        if (level <= 0)
            level = 6;
        if (level > 12)
            level = 12;
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
        if (!c)
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        size_t bound = libdeflate_gzip_compress_bound(c, in_len);
        if (!pprof__buffer_reserve(out, bound)) {
            libdeflate_free_compressor(c);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        size_t n = libdeflate_gzip_compress(c, in, in_len, out->data + out->len, bound);
        libdeflate_free_compressor(c);
        if (n == 0)
            return pprof__error(err, PPROF_E_COMPRESSION, PPROF_NO_OFFSET, "",
                                "gzip compression failed");
        out->len += n;
        return PPROF_OK;
    }
    if (fmt == PPROF_FORMAT_ZSTD) {
        if (level <= 0)
            level = 3;
        if (level > ZSTD_maxCLevel())
            level = ZSTD_maxCLevel();
        size_t bound = ZSTD_compressBound(in_len);
        if (!pprof__buffer_reserve(out, bound))
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
