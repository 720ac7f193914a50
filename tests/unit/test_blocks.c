/* The tools' allocator (tools/blocks.c): contents survive every realloc, blocks are aligned,
 * freed medium blocks are reused and their buddies merge, and two threads can share it. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "blocks.h"
#include "tap.h"

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t
next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* Sizes spread over every path: malloc'd, each buddy order, big mappings. */
static size_t
some_size(rng *r)
{
    switch (next(r) % 4) {
    case 0: return 1 + next(r) % 8192;
    case 1: return 8192 + next(r) % (1u << 20);
    case 2: return (1u << 20) + next(r) % (1u << 20);
    default: return 1 + next(r) % (5u << 20);
    }
}

static uint8_t
byte_at(uint32_t tag, size_t i)
{
    return (uint8_t)(tag * 131u + i * 7u + (i >> 12));
}

typedef struct live {
    uint8_t *p;
    size_t size;
    uint32_t tag;
} live;

static void
fill(live *l)
{
    for (size_t i = 0; i < l->size; i++)
        l->p[i] = byte_at(l->tag, i);
}

static bool
intact(const live *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (l->p[i] != byte_at(l->tag, i))
            return false;
    return true;
}

typedef struct stress {
    tool_blocks *b;
    uint64_t seed;
    int rounds;
    bool ok, aligned;
    live *handoff; /* blocks left for the other thread to free */
    size_t n_handoff;
} stress;

#define SLOTS 48

static void *
run_stress(void *arg)
{
    stress *s = arg;
    rng r = {s->seed};
    live v[SLOTS] = {{0}};
    s->ok = s->aligned = true;
    for (int k = 0; k < s->rounds && s->ok; k++) {
        live *l = &v[next(&r) % SLOTS];
        size_t want = some_size(&r);
        if (!l->p) {
            l->p = tool_blocks_alloc(s->b, want);
            l->size = want;
            l->tag = (uint32_t)next(&r);
            if (!l->p) {
                s->ok = false;
                break;
            }
            fill(l);
        } else if (next(&r) % 3 == 0) {
            s->ok = intact(l, l->size);
            tool_blocks_free(s->b, l->p);
            l->p = NULL;
            continue;
        } else {
            uint8_t *n = tool_blocks_realloc(s->b, l->p, want);
            if (!n) {
                s->ok = false;
                break;
            }
            l->p = n;
            size_t kept = want < l->size ? want : l->size;
            s->ok = intact(l, kept);
            l->size = want;
            fill(l);
        }
        if (((uintptr_t)l->p & 15) != 0)
            s->aligned = false;
    }
    for (size_t i = 0; i < SLOTS; i++) {
        if (!v[i].p)
            continue;
        if (!intact(&v[i], v[i].size))
            s->ok = false;
        s->handoff[s->n_handoff++] = v[i];
    }
    return NULL;
}

int
main(void)
{
    tap t = {0};
    tool_blocks b;
    tap_ok(&t, tool_blocks_init(&b), "init");

    /* two threads at once, each freeing what the other allocated at the end */
    live h0[SLOTS], h1[SLOTS];
    stress s[2] = {{&b, 0x9e3779b97f4a7c15u, 1000, false, false, h0, 0},
                   {&b, 0xd1b54a32d192ed03u, 1000, false, false, h1, 0}};
    pthread_t th;
    int started = pthread_create(&th, NULL, run_stress, &s[1]) == 0;
    run_stress(&s[0]);
    if (started)
        pthread_join(th, NULL);
    else
        run_stress(&s[1]);
    tap_ok(&t, s[0].ok && s[1].ok, "contents survive alloc, realloc and free on two threads");
    tap_ok(&t, s[0].aligned && s[1].aligned, "every block is 16-byte aligned");
    for (size_t i = 0; i < s[0].n_handoff; i++)
        tool_blocks_free(&b, s[0].handoff[i].p);
    for (size_t i = 0; i < s[1].n_handoff; i++)
        tool_blocks_free(&b, s[1].handoff[i].p);

    if (!b.region) {
        tap_diag("no buddy region in this build (sanitizer or no huge pages): reuse not tested");
    } else {
        /* Everything was freed: every slab merged back whole. Filling them with the smallest
         * blocks and freeing those again takes no new slab. */
        size_t slabs = b.slabs_used;
        size_t per = slabs * 256, got = 0;
        void **v = calloc(per, sizeof(void *));
        for (size_t i = 0; v && i < per; i++)
            if ((v[i] = tool_blocks_alloc(&b, 8192)))
                got++;
        tap_ok(&t, v && got == per && b.slabs_used == slabs,
               "the %zu freed slabs serve %zu blocks of 8 KiB without a new one", slabs, per);
        /* no two overlap: each holds its own number in every byte */
        for (size_t i = 0; v && i < got; i++)
            memset(v[i], (int)(i % 251), 8192);
        bool own = true;
        for (size_t i = 0; v && i < got; i++)
            for (size_t k = 0; k < 8192; k += 512)
                own &= ((uint8_t *)v[i])[k] == i % 251 && ((uint8_t *)v[i])[k + 511] == i % 251;
        tap_ok(&t, own, "no two blocks overlap");
        for (size_t i = 0; v && i < per; i++)
            tool_blocks_free(&b, v[i]);
        /* freed in any order, buddies merge again: each slab is one 2 MiB-less-a-byte block */
        got = 0;
        for (size_t i = 0; v && i < slabs; i++)
            if ((v[i] = tool_blocks_alloc(&b, ((size_t)2 << 20) - 1)))
                got++;
        tap_ok(&t, got == slabs && b.slabs_used == slabs, "buddies merge back into whole slabs");
        for (size_t i = 0; v && i < slabs; i++)
            tool_blocks_free(&b, v[i]);
        free(v);

        /* a block grown within its order stays; shrunk to under a quarter it moves */
        uint8_t *p = tool_blocks_alloc(&b, 20000);
        uint8_t *q = tool_blocks_realloc(&b, p, 32768);
        tap_ok(&t, p && q == p, "growing within the block's order keeps it in place");
        uint8_t *r = tool_blocks_realloc(&b, q, 100);
        tap_ok(&t, r && r != q, "shrinking far moves the block");
        tool_blocks_free(&b, r);
    }
    tool_blocks_destroy(&b);
    return tap_done(&t);
}
