/* Bounds-checked protobuf wire primitives. Every read checks the end pointer first. */
#ifndef PPROF_WIRE_PRIVATE_H
#define PPROF_WIRE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PPROF__LITTLE_ENDIAN 1
#else
#define PPROF__LITTLE_ENDIAN 0
#endif

enum {
    PPROF_WT_VARINT = 0,
    PPROF_WT_I64 = 1,
    PPROF_WT_LEN = 2,
    PPROF_WT_I32 = 5,
};

/* The 10th byte of a varint holds bit 63 only: protobuf forbids anything more (a value that
 * does not fit 64 bits), and reading it would silently truncate. */
#define PPROF__VARINT_LAST_MAX 1

/* Slow path: up to 10 bytes. Every reader refuses a varint that is truncated, longer than 10
 * bytes or wider than 64 bits, and leaves *pp where the varint starts. */
static inline bool
pprof__varint_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= end)
            return false;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            if (i == 9 && b > PPROF__VARINT_LAST_MAX)
                return false;
            *pp = p;
            *out = v;
            return true;
        }
    }
    return false;
}

static inline bool
pprof__varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (__builtin_expect(p < end && *p < 0x80, 1)) {
        *out = *p;
        *pp = p + 1;
        return true;
    }
    /* With 10 bytes in reach no byte needs its own bounds check; same result as the slow path. */
    if (__builtin_expect(end - p >= 10, 1)) {
        uint64_t v = p[0] & 0x7f;
        for (unsigned i = 1; i < 10; i++) {
            uint8_t b = p[i];
            v |= (uint64_t)(b & 0x7f) << (7 * i);
            if (b < 0x80) {
                if (i == 9 && b > PPROF__VARINT_LAST_MAX)
                    return false;
                *out = v;
                *pp = p + i + 1;
                return true;
            }
        }
        return false;
    }
    if (end - p >= 2 && p[1] < 0x80) {
        *out = (uint64_t)(p[0] & 0x7f) | ((uint64_t)p[1] << 7);
        *pp = p + 2;
        return true;
    }
    return pprof__varint_slow(pp, end, out);
}

/* The wire type's name, for messages. */
static inline const char *
pprof__wt_name(uint32_t wt)
{
    static const char *const n[] = {"varint",    "fixed64", "length-delimited", "start-group",
                                    "end-group", "fixed32", "invalid (6)",      "invalid (7)"};
    return n[wt & 7];
}

/* Skips one unknown field's payload of wire type wt; false when it is malformed or cut. */
static inline bool
pprof__skip_field(const uint8_t **pp, const uint8_t *end, uint32_t wt)
{
    uint64_t v;
    switch (wt) {
    case PPROF_WT_VARINT: return pprof__varint(pp, end, &v);
    case PPROF_WT_I64:
        if (end - *pp < 8)
            return false;
        *pp += 8;
        return true;
    case PPROF_WT_I32:
        if (end - *pp < 4)
            return false;
        *pp += 4;
        return true;
    case PPROF_WT_LEN:
        if (!pprof__varint(pp, end, &v) || v > (uint64_t)(end - *pp))
            return false;
        *pp += v;
        return true;
    default: return false;
    }
}

/* A tag is at most 5 bytes and its field number is 1..2^29-1. */
static inline bool
pprof__tag(const uint8_t **pp, const uint8_t *end, uint32_t *field, uint32_t *wt)
{
    const uint8_t *start = *pp;
    if (__builtin_expect(start < end && *start < 0x80, 1)) { /* fields 1..15 */
        *pp = start + 1;
        *field = (uint32_t)(*start >> 3);
        *wt = (uint32_t)(*start & 7);
        return *field != 0;
    }
    uint64_t t;
    if (!pprof__varint(pp, end, &t))
        return false;
    if (*pp - start > 5 || t > UINT32_MAX || (t >> 3) == 0)
        return false;
    *field = (uint32_t)(t >> 3);
    *wt = (uint32_t)(t & 7);
    return true;
}

static inline size_t
pprof__varint_size(uint64_t v)
{
    /* 1 + floor(bits/7); bit length of 0 counts as 1 */
    int bits = 64 - __builtin_clzll(v | 1);
    return (size_t)(bits + 6) / 7;
}

static inline uint8_t *
pprof__put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The varint at p when it is at most 8 bytes long and ends before limit, without a branch per
 * byte; 0 when the careful path must decide. The 8 bytes read must lie inside the input. */
static inline size_t
pprof__varint8(const uint8_t *p, const uint8_t *limit, uint64_t *out)
{
#if PPROF__LITTLE_ENDIAN
    uint32_t w4;
    memcpy(&w4, p, 4);
    uint32_t stop4 = ~w4 & 0x80808080u;
    if (__builtin_expect(stop4 != 0, 1)) { /* up to 4 bytes: ids and most values */
        unsigned bits4 = (unsigned)__builtin_ctz(stop4);
        size_t len4 = (bits4 >> 3) + 1;
        if (len4 > (size_t)(limit - p))
            return 0;
        uint32_t x4 = w4 & (uint32_t)((UINT64_C(2) << bits4) - 1);
        *out = (x4 & 0x7fu) | ((x4 >> 1) & 0x3f80u) | ((x4 >> 2) & 0x1fc000u) |
               ((x4 >> 3) & 0xfe00000u);
        return len4;
    }
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t stop = ~w & UINT64_C(0x8080808080808080);
    if (!stop)
        return 0;
    unsigned bits = (unsigned)__builtin_ctzll(stop); /* top bit of the last byte */
    size_t len = (bits >> 3) + 1;
    if (len > (size_t)(limit - p))
        return 0;
    uint64_t x = w & ((UINT64_C(2) << bits) - 1) & UINT64_C(0x7f7f7f7f7f7f7f7f);
    /* squeeze the 7-bit groups together: pairs, then quads, then all eight */
    x = ((x & UINT64_C(0x7f007f007f007f00)) >> 1) | (x & UINT64_C(0x007f007f007f007f));
    x = ((x & UINT64_C(0x3fff00003fff0000)) >> 2) | (x & UINT64_C(0x00003fff00003fff));
    x = ((x & UINT64_C(0x0fffffff00000000)) >> 4) | (x & UINT64_C(0x000000000fffffff));
    *out = x;
    return len;
#else
    (void)p, (void)limit, (void)out;
    return 0;
#endif
}

/* The number of bytes below 0x80 in [p, end): each complete varint ends with one. Reads whole
 * words, up to buf_end. */
static inline size_t
pprof__count_varint_ends(const uint8_t *p, const uint8_t *end, const uint8_t *buf_end)
{
    const uint64_t high = UINT64_C(0x8080808080808080);
    size_t n = 0;
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        /* one bit per byte below 0x80, summed by the multiply into the top byte */
        w = (~w & high) >> 7;
        n += (size_t)((w * UINT64_C(0x0101010101010101)) >> 56);
    }
#if PPROF__LITTLE_ENDIAN
    if (p < end && buf_end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w = ((~w & high) >> 7) & ((UINT64_C(1) << (8 * (end - p))) - 1);
        return n + (size_t)((w * UINT64_C(0x0101010101010101)) >> 56);
    }
#else
    (void)buf_end;
#endif
    for (; p < end; p++)
        n += *p < 0x80;
    return n;
}

#endif
