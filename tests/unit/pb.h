/* A tiny protobuf byte builder for hand-made test inputs: every wire type, packed or not, fields
 * in any order, and deliberately broken encodings. Aborts on out of memory (tests only). */
#ifndef PPROF_TESTS_PB_H
#define PPROF_TESTS_PB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb {
    uint8_t *d;
    size_t n, cap;
} pb;

static inline void
pb_free(pb *b)
{
    free(b->d);
    memset(b, 0, sizeof(*b));
}

static inline void
pb_raw(pb *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n)
            cap *= 2;
        b->d = realloc(b->d, cap);
        if (!b->d)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->d + b->n, data, n);
    b->n += n;
}

static inline void
pb_byte(pb *b, uint8_t c)
{
    pb_raw(b, &c, 1);
}

static inline void
pb_varint(pb *b, uint64_t v)
{
    while (v >= 0x80) {
        pb_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    pb_byte(b, (uint8_t)v);
}

static inline void
pb_tag(pb *b, uint32_t field, uint32_t wt)
{
    pb_varint(b, (uint64_t)field << 3 | wt);
}

/* field = varint */
static inline void
pb_v(pb *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, 0);
    pb_varint(b, v);
}

static inline void
pb_bytes(pb *b, uint32_t field, const void *data, size_t n)
{
    pb_tag(b, field, 2);
    pb_varint(b, n);
    pb_raw(b, data, n);
}

static inline void
pb_str(pb *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

static inline void
pb_msg(pb *b, uint32_t field, const pb *sub)
{
    pb_bytes(b, field, sub->d, sub->n);
}

/* Writes sub as a length-delimited field and frees it. */
static inline void
pb_msg_free(pb *b, uint32_t field, pb *sub)
{
    pb_msg(b, field, sub);
    pb_free(sub);
}

static inline void
pb_packed(pb *b, uint32_t field, const uint64_t *v, size_t n)
{
    pb tmp = {0};
    for (size_t i = 0; i < n; i++)
        pb_varint(&tmp, v[i]);
    pb_bytes(b, field, tmp.d, tmp.n);
    pb_free(&tmp);
}

static inline void
pb_fixed64(pb *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, 1);
    for (int i = 0; i < 8; i++)
        pb_byte(b, (uint8_t)(v >> (8 * i)));
}

static inline void
pb_fixed32(pb *b, uint32_t field, uint32_t v)
{
    pb_tag(b, field, 5);
    for (int i = 0; i < 4; i++)
        pb_byte(b, (uint8_t)(v >> (8 * i)));
}

/* {type, unit} */
static inline void
pb_value_type(pb *b, uint32_t field, uint64_t type, uint64_t unit)
{
    pb vt = {0};
    pb_v(&vt, 1, type);
    pb_v(&vt, 2, unit);
    pb_msg_free(b, field, &vt);
}

static inline void
pb_strings(pb *b, const char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pb_str(b, 6, s[i]);
}

/* Locations 1..n, each with one line of function 1 at line = its id, and function 1, named by
 * string 3: the smallest table that samples with location ids up to n can refer to. */
static inline void
pb_simple_locations(pb *b, uint64_t n)
{
    pb l = {0}, ln = {0};
    for (uint64_t id = 1; id <= n; id++) {
        pb_v(&ln, 1, 1);
        pb_v(&ln, 2, id);
        pb_v(&l, 1, id);
        pb_msg_free(&l, 4, &ln);
        pb_msg_free(b, 4, &l);
    }
    pb_v(&l, 1, 1);
    pb_v(&l, 2, 3);
    pb_msg_free(b, 5, &l);
}

/* A deterministic xorshift generator for corrupted variants. */
static inline uint64_t
pb_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
