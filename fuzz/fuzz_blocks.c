/* The blocks allocator (blocks.c: malloc'd small blocks, a buddy system of medium blocks in
 * huge-page slabs, big blocks that are mappings of their own, kept in a cache and resized with
 * mremap) under an op-stream decoded from the input: allocations, resizes and frees of up to
 * 16 live blocks of every size class and at the class edges, references taken and dropped.
 * Oracles: every block is aligned, holds its own bytes until freed (a block that overlapped
 * another, or a buddy handed out twice, would be overwritten by the other's fill), and a resize
 * keeps the bytes both sizes share. Under AddressSanitizer the object hands out heap blocks
 * only, which still checks the resize and free paths. */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "fuzz.h"
#include "memory-private.h"

#define SLOTS 16
#define MAX_OPS 96
#define MAX_LIVE ((size_t)24 << 20)

typedef struct slot {
    uint8_t *p;
    size_t size;
    uint8_t fill;
} slot;

typedef struct ops {
    const uint8_t *p;
    size_t n;
} ops;

static uint8_t
u8(ops *d)
{
    if (!d->n)
        return 0;
    d->n--;
    return *d->p++;
}

/* A size from each class the allocator tells apart, and the edges between them. */
static size_t
pick_size(ops *d)
{
    uint8_t cls = u8(d);
    size_t v = u8(d) | (size_t)u8(d) << 8;
    switch (cls % 6) {
    case 0: /* small: malloc'd */ return v % 8192;
    case 1: /* medium: a buddy block */ return 8192 + v * 31 % ((size_t)(2 << 20) - 8192);
    case 2: /* big: a mapping of its own, up to 3.5 MiB */ return ((size_t)2 << 20) + v * 24;
    case 3: { /* an order's size exactly, one less or one more */
        size_t s = (size_t)8192 << (v % 10);
        return s - 1 + (v >> 4) % 3;
    }
    case 4: /* the block header's worth around a huge page */
        return ((size_t)2 << 20) - 32 + v % 64;
    default: return v % 64;
    }
}

static void
fill(slot *s, size_t from)
{
    if (s->size > from)
        memset(s->p + from, s->fill, s->size - from);
}

/* The next byte of n to check after i: all of the first and last 64, one in every 509 between.
 * Two overlapping blocks overwrite each other's checked bytes unless one lies inside the other
 * and is shorter than the stride; each fill is one memset, each check a few thousand reads. */
static size_t
next_checked(size_t i, size_t n)
{
    if (i < 64 || i + 64 >= n)
        return i + 1;
    return i + 509 < n - 64 ? i + 509 : n - 64;
}

/* The first n bytes still hold the slot's fill. */
static void
check_bytes(const slot *s, size_t n, int at)
{
    for (size_t i = 0; i < n; i = next_checked(i, n))
        FUZZ_CHECK(s->p[i] == s->fill,
                   "op %d: byte %zu of a %zu-byte block changed (%02x, not %02x)", at, i, s->size,
                   s->p[i], s->fill);
}

static void
check_aligned(const void *p, int at)
{
    FUZZ_CHECK((uintptr_t)p % alignof(max_align_t) == 0, "op %d: block %p is not aligned", at, p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof__blocks *b = pprof__blocks_new();
    if (!b)
        return 0;
    pprof_allocator a = pprof__blocks_allocator(b);
    /* the allocator finds its object again (what a profile holding blocks does) */
    pprof__blocks *again = pprof__blocks_of(&a);
    FUZZ_CHECK(again == b, "pprof__blocks_of gives another object");
    pprof__blocks_release(again);

    slot s[SLOTS] = {{0}};
    size_t live = 0;
    ops d = {data, size};
    uint8_t next_fill = 1;
    for (int at = 0; at < MAX_OPS && d.n; at++) {
        uint8_t op = u8(&d);
        slot *t = &s[(op >> 3) % SLOTS];
        switch (op & 7) {
        case 0:
        case 1:
        case 2: { /* allocate into the slot, freeing what it held */
            size_t n = pick_size(&d);
            if (t->p) {
                check_bytes(t, t->size, at);
                a.free(a.ctx, t->p);
                live -= t->size;
                t->p = NULL;
            }
            if (live + n > MAX_LIVE)
                break;
            t->p = a.alloc(a.ctx, n);
            FUZZ_CHECK(t->p || !n, "op %d: allocating %zu bytes failed", at, n);
            if (!t->p)
                break;
            check_aligned(t->p, at);
            t->size = n;
            t->fill = next_fill++ | 1; /* never 0: fresh pages are zero */
            live += n;
            fill(t, 0);
            break;
        }
        case 3:
        case 4:
        case 5: { /* resize: the shared bytes stay, the new ones are filled */
            if (!t->p)
                break;
            size_t n = pick_size(&d);
            if (live - t->size + n > MAX_LIVE)
                break;
            uint8_t *q = a.realloc(a.ctx, t->p, n);
            FUZZ_CHECK(q || !n, "op %d: resizing %zu to %zu bytes failed", at, t->size, n);
            if (!q) {
                check_bytes(t, t->size, at);
                break;
            }
            check_aligned(q, at);
            size_t kept = t->size < n ? t->size : n;
            t->p = q;
            size_t old = t->size;
            t->size = n;
            check_bytes(t, kept, at);
            fill(t, kept);
            live = live - old + n;
            break;
        }
        case 6: /* free */
            if (t->p) {
                check_bytes(t, t->size, at);
                a.free(a.ctx, t->p);
                live -= t->size;
                t->p = NULL;
            }
            break;
        default: /* a reference taken and dropped changes nothing */
            pprof__blocks_release(pprof__blocks_ref(b));
            break;
        }
    }
    for (size_t i = 0; i < SLOTS; i++) {
        if (!s[i].p)
            continue;
        check_bytes(&s[i], s[i].size, MAX_OPS);
        a.free(a.ctx, s[i].p);
    }
    a.free(a.ctx, NULL);
    pprof__blocks_release(b);
    return 0;
}
