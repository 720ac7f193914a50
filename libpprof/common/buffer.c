/* Growable output buffers: pprof_buffer, grown with a caller's allocator or libc. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common-private.h"
#include "memory-private.h"

void
pprof_buffer_free(pprof_buffer *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool
pprof__buffer_reserve_in(const pprof_allocator *a, pprof_buffer *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        return false;
    size_t need = b->len + extra;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *d = a ? pprof__realloc(a, b->data, cap) : realloc(b->data, cap);
    if (!d)
        return false;
    b->data = d;
    b->cap = cap;
    return true;
}

bool
pprof__buffer_reserve(pprof_buffer *b, size_t extra)
{
    return pprof__buffer_reserve_in(NULL, b, extra);
}

bool
pprof__buffer_reserve_large(pprof_buffer *b, size_t extra)
{
    size_t had = b->cap;
    if (!pprof__buffer_reserve(b, extra))
        return false;
    if (b->cap != had && b->cap - b->len >= ((size_t)4 << 20))
        pprof__mem_huge_pages(b->data + b->len, b->cap - b->len);
    return true;
}

pprof_status
pprof__buffer_append(pprof_buffer *b, const void *data, size_t n)
{
    if (!pprof__buffer_reserve(b, n))
        return PPROF_E_NOMEM;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return PPROF_OK;
}

pprof_status
pprof__buffer_printf(pprof_buffer *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return PPROF_E_ARG;
    if ((size_t)n < sizeof(small))
        return pprof__buffer_append(b, small, (size_t)n);
    if (!pprof__buffer_reserve(b, (size_t)n + 1))
        return PPROF_E_NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return PPROF_OK;
}
