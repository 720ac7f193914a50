/* What every layer shares: allocation, growable arrays, errors, output buffers and the JSON
 * string writers. Not installed. */
#ifndef PPROF_COMMON_PRIVATE_H
#define PPROF_COMMON_PRIVATE_H

#include "api-private.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#include "pprof/pprof.h"

#define PPROF_NONE UINT32_MAX

#include "htab-private.h"
#include "pool-private.h"

/* ---- allocation: every block a profile owns is freed by pprof_profile_free */

typedef struct pprof__arena_chunk pprof__arena_chunk;

typedef struct pprof__arena {
    pprof_allocator a;
    pprof__arena_chunk *chunks;
    uint8_t *cur;
    size_t left;
    size_t chunk_size;
} pprof__arena;

PPROF_PRIVATE_API void pprof__arena_init(pprof__arena *arena, const pprof_allocator *a);
PPROF_PRIVATE_API void *pprof__arena_alloc(pprof__arena *arena, size_t size);
PPROF_PRIVATE_API void pprof__arena_destroy(pprof__arena *arena);

PPROF_PRIVATE_API void *pprof__malloc(const pprof_allocator *a, size_t size);
PPROF_PRIVATE_API void *pprof__realloc(const pprof_allocator *a, void *p, size_t size);
PPROF_PRIVATE_API void pprof__free(const pprof_allocator *a, void *p);

/* A growable flat array of fixed-size elements. */
typedef struct pprof__vec {
    void *data;
    size_t len, cap;
} pprof__vec;

PPROF_PRIVATE_API bool pprof__vec_grow(const pprof_allocator *a, pprof__vec *v, size_t elem,
                                       size_t need);

static inline void *
pprof__vec_push(const pprof_allocator *a, pprof__vec *v, size_t elem)
{
    if (v->len == v->cap && !pprof__vec_grow(a, v, elem, v->len + 1))
        return NULL;
    return (uint8_t *)v->data + elem * v->len++;
}

#define PPROF__AT(vec, type, i) (((type *)(vec).data)[i])

/* ---- errors */

PPROF_PRIVATE_API pprof_status pprof__error(pprof_error *err, pprof_status code, uint64_t offset,
                                            const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Builds a path with printf syntax into a buffer of 128 bytes. */
PPROF_PRIVATE_API void pprof__path(char *dst, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- output buffers */

/* Grows b to hold extra more bytes, with a (NULL: libc realloc, as pprof_buffer_free expects). */
PPROF_PRIVATE_API bool pprof__buffer_reserve_in(const pprof_allocator *a, pprof_buffer *b,
                                                size_t extra);
PPROF_PRIVATE_API bool pprof__buffer_reserve(pprof_buffer *b, size_t extra);
/* pprof__buffer_reserve for a large buffer about to be filled: a new reservation of 4 MiB or more
 * asks for huge pages (a first touch per 2 MiB, not per 4 KiB). */
PPROF_PRIVATE_API bool pprof__buffer_reserve_large(pprof_buffer *b, size_t extra);
PPROF_PRIVATE_API pprof_status pprof__buffer_append(pprof_buffer *b, const void *data, size_t n);
PPROF_PRIVATE_API pprof_status pprof__buffer_printf(pprof_buffer *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- JSON strings (json.c) */

/* Appends s (n bytes) as a JSON string literal, with the one policy of every JSON the library
 * and the tools write (pprof_json_string_write, pprof.h): '"' and '\\' escaped with a
 * backslash, U+0000 to U+001F as \u00XX, U+2028 and U+2029 as \u2028 and \u2029 (JavaScript
 * before ES2019 reads them as line ends), each byte that is not part of valid UTF-8 as \ufffd
 * (U+FFFD, one per byte, as Go reads such a string); everything else as it is. */
PPROF_PRIVATE_API pprof_status pprof__json_string(pprof_buffer *b, const char *s, size_t n);
/* The same, and '<', '>' and '&' as \u003c, \u003e and \u0026, so that the literal is safe
 * inside an HTML <script> element (the flame page's data block, docs/flame.md "Contract"): the
 * flame data and JSON, speedscope and cpuprofile. */
PPROF_PRIVATE_API pprof_status pprof__json_string_html(pprof_buffer *b, const char *s, size_t n);

#endif
