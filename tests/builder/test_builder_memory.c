/* Long run: many serialize-and-reset cycles, each with fresh strings (new function names and
 * label values) and an open sample that spans the cycle boundary. Strings and bytes held after
 * each reset, and the peak within a cycle, must stay flat. Figures are printed; the assertions
 * are about boundedness only (no timing). The live heap is measured independently of the
 * builder's own stats through a size-tracking allocator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhelp.h"

enum { CYCLES = 2000, PER_CYCLE = 200, DEPTH = 4 };

typedef struct heap {
    long long live, peak;
} heap;

static void *
h_alloc(void *ctx, size_t n)
{
    heap *h = ctx;
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    p[0] = n;
    h->live += (long long)n;
    if (h->live > h->peak)
        h->peak = h->live;
    return (char *)p + 16;
}

static void
h_free(void *ctx, void *q)
{
    if (!q)
        return;
    size_t *p = (size_t *)((char *)q - 16);
    ((heap *)ctx)->live -= (long long)p[0];
    free(p);
}

static void *
h_realloc(void *ctx, void *q, size_t n)
{
    heap *h = ctx;
    if (!q)
        return h_alloc(ctx, n);
    size_t *p = (size_t *)((char *)q - 16);
    size_t old = p[0];
    size_t *r = realloc(p, n + 16);
    if (!r)
        return NULL;
    r[0] = n;
    h->live += (long long)n - (long long)old;
    if (h->live > h->peak)
        h->peak = h->live;
    return (char *)r + 16;
}

static const pprof_builder_value_type types[] = {{"samples", "count"}};

int
main(void)
{
    tap t = {0, 0};
    heap hp = {0, 0};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 1;
    o.allocator = (pprof_allocator){h_alloc, h_realloc, h_free, &hp};
    pprof_builder *b;
    if (pprof_builder_new(&o, &b, NULL) != PPROF_OK)
        return 1;
    pprof_write_options raw = {.struct_size = sizeof(raw), .format = PPROF_FORMAT_RAW};
    pprof_builder_open carry = {0};
    bool have_carry = false;
    long long emitted = 0, want = 0;
    int bad = 0;
    uint64_t held_strings_max = 0, held_strings_min = UINT64_MAX, held_bytes_max = 0;
    long long live_after_first = 0, live_after_max = 0, peak_first = 0, peak_max_late = 0;
    uint64_t arena_first = 0, arena_max_late = 0;

    printf("# cycle  strings(peak) bytes(peak)  strings(held) bytes(held) arena(held) "
           "heap-live(held) heap-peak(cycle)\n");
    for (int c = 0; c < CYCLES; c++) {
        hp.peak = hp.live;
        if (have_carry) { /* finish the sample begun in the previous cycle */
            int64_t v = 1;
            pprof_builder_frame fr = {"carry_caller", NULL, NULL, 1, 0, 0, 0, 0, 0, NULL, NULL};
            pprof_builder_open_add_frame(b, carry, &fr, NULL);
            if (pprof_builder_open_commit(b, carry, &v, 1, NULL) == PPROF_OK)
                want += v;
            else
                bad++;
        }
        for (int i = 0; i < PER_CYCLE; i++) {
            pprof_builder_open s;
            pprof_builder_open_begin(b, &s, NULL);
            for (int d = 0; d < DEPTH; d++) {
                char fn[64];
                snprintf(fn, sizeof(fn), "cycle%d_fn%d_%d", c, i, d); /* fresh every cycle */
                pprof_builder_frame fr = {fn, NULL, "gen.c", d + 1, 0, 0, 0, 0, 0, NULL, NULL};
                pprof_builder_open_add_frame(b, s, &fr, NULL);
            }
            char val[32];
            snprintf(val, sizeof(val), "req-%d-%d", c, i);
            pprof_builder_open_add_label_cstr(b, s, "request", val, 0, NULL, NULL);
            int64_t v = 1 + i % 3;
            if (pprof_builder_open_commit(b, s, &v, 1, NULL) == PPROF_OK)
                want += v;
            else
                bad++;
        }
        /* an open sample that straddles the serialize */
        pprof_builder_open_begin(b, &carry, NULL);
        char leaf[64];
        snprintf(leaf, sizeof(leaf), "carry_leaf_%d", c);
        pprof_builder_frame fr = {leaf, NULL, NULL, 1, 0, 0, 0, 0, 0, NULL, NULL};
        pprof_builder_open_add_frame(b, carry, &fr, NULL);
        have_carry = true;

        pprof_builder_stats before = PPROF_BUILDER_STATS_INIT, after = PPROF_BUILDER_STATS_INIT;
        pprof_builder_get_stats(b, &before, NULL);
        pprof_buffer buf = {0};
        if (pprof_builder_write_memory(b, PPROF_BUILDER_RESET, &raw, &buf, NULL) != PPROF_OK)
            bad++;
        pprof_builder_get_stats(b, &after, NULL);
        if (c % 100 == 0 || c == CYCLES - 1) {
            pprof_profile *p = bhelp_decode(buf.data, buf.len);
            if (!p)
                bad++;
            else
                emitted += bhelp_total(p, 0);
            pprof_profile_free(p);
        } else {
            pprof_profile *p = NULL;
            if (pprof_profile_read_memory(buf.data, buf.len, NULL, &p, NULL) == PPROF_OK)
                emitted += bhelp_total(p, 0);
            else
                bad++;
            pprof_profile_free(p);
        }
        pprof_buffer_free(&buf);

        if (after.strings > held_strings_max)
            held_strings_max = after.strings;
        if (after.strings < held_strings_min)
            held_strings_min = after.strings;
        if (after.string_bytes > held_bytes_max)
            held_bytes_max = after.string_bytes;
        if (c == 0) {
            live_after_first = hp.live;
            peak_first = hp.peak;
            arena_first = after.arena_bytes;
        }
        if (hp.live > live_after_max)
            live_after_max = hp.live;
        if (c >= CYCLES / 2) {
            if (hp.peak > peak_max_late)
                peak_max_late = hp.peak;
            if (after.arena_bytes > arena_max_late)
                arena_max_late = after.arena_bytes;
        }
        if (c % 250 == 0 || c == CYCLES - 1)
            printf("# %5d  %13llu %11llu  %13llu %11llu %11llu %15lld %16lld\n", c,
                   (unsigned long long)before.strings, (unsigned long long)before.string_bytes,
                   (unsigned long long)after.strings, (unsigned long long)after.string_bytes,
                   (unsigned long long)after.arena_bytes, hp.live, hp.peak);
    }
    uint64_t dropped = 0;
    pprof_buffer last = {0};
    pprof_builder_finish(b, 0, NULL, &raw, &last, &dropped, NULL);
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(last.data, last.len, NULL, &p, NULL) == PPROF_OK)
        emitted += bhelp_total(p, 0);
    pprof_profile_free(p);
    pprof_buffer_free(&last);

    printf("# %d cycles x %d samples x %d fresh frames; interned in total about %d strings\n",
           CYCLES, PER_CYCLE, DEPTH, CYCLES * PER_CYCLE * (DEPTH + 1));
    tap_ok(&t, bad == 0, "every cycle serialized and decoded");
    tap_ok(
        &t, emitted == want && dropped == 1,
        "values conserved: %lld committed, %lld emitted; finish reports %llu open sample dropped",
        want, emitted, (unsigned long long)dropped);
    /* held after reset: 2 config strings + "carry_leaf_N" (+ its function) */
    tap_ok(&t, held_strings_max <= 3 && held_strings_min >= 3,
           "strings held after each reset stay at %llu..%llu", (unsigned long long)held_strings_min,
           (unsigned long long)held_strings_max);
    tap_ok(&t, held_bytes_max <= 64, "string bytes held after each reset <= %llu",
           (unsigned long long)held_bytes_max);
    tap_ok(&t, live_after_max <= live_after_first + 4096,
           "heap held after reset is flat: first %lld, max %lld bytes", live_after_first,
           live_after_max);
    tap_ok(&t, arena_max_late <= arena_first + 4096,
           "arena bytes held after reset are flat: first %llu, max late %llu",
           (unsigned long long)arena_first, (unsigned long long)arena_max_late);
    tap_ok(&t, peak_max_late <= peak_first + peak_first / 4,
           "per-cycle heap peak is flat: cycle 0 %lld, max over the second half %lld", peak_first,
           peak_max_late);
    pprof_builder_free(b);
    tap_ok(&t, hp.live == 0, "all memory returned at free (%lld)", hp.live);
    return tap_done(&t);
}
