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

PPROF_PRIVATE_API bool pprof__vec_grow(const pprof_allocator *a, pprof__vec *v, size_t elem, size_t need);

static inline void *
pprof__vec_push(const pprof_allocator *a, pprof__vec *v, size_t elem)
{
    if (v->len == v->cap && !pprof__vec_grow(a, v, elem, v->len + 1))
        return NULL;
    return (uint8_t *)v->data + elem * v->len++;
}

#define PPROF__AT(vec, type, i) (((type *)(vec).data)[i])

/* ---- errors */

PPROF_PRIVATE_API pprof_status pprof__error(pprof_error *err, pprof_status code, uint64_t offset, const char *path,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Builds a path with printf syntax into a buffer of 128 bytes. */
PPROF_PRIVATE_API void pprof__path(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- output buffers */

/* Grows b to hold extra more bytes, with a (NULL: libc realloc, as pprof_buffer_free expects). */
PPROF_PRIVATE_API bool pprof__buffer_reserve_in(const pprof_allocator *a, pprof_buffer *b, size_t extra);
PPROF_PRIVATE_API bool pprof__buffer_reserve(pprof_buffer *b, size_t extra);
PPROF_PRIVATE_API pprof_status pprof__buffer_append(pprof_buffer *b, const void *data, size_t n);
PPROF_PRIVATE_API pprof_status pprof__buffer_printf(pprof_buffer *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- JSON strings (json.c) */

/* Bytes that are not UTF-8 come out as \u00XX so that the document stays valid JSON (the
 * reports' and pprof-dump's policy). */
PPROF_PRIVATE_API pprof_status pprof__json_string(pprof_buffer *b, const char *s, size_t n);
/* JSON string literal with the contract's escaping (docs/flame.md): <, >, & as \u003c..., U+2028
 * and U+2029 escaped, control bytes as \u00XX, invalid UTF-8 as U+FFFD. */
PPROF_PRIVATE_API pprof_status pprof__flame_json_str(pprof_buffer *b, const char *s, size_t n);

#endif
