/* The gperftools CPU profile (and the Java one that shares its binary layout): five header
 * words (0, 3, 0 for C++ or 1 for Java, the sampling period in microseconds, 0), records of
 * (count, depth, depth PCs), the trailer record (0, 1, 0), then the /proc/self/maps text. The
 * words are 32 or 64 bits in either byte order, tried in Go's order. */
#include "legacy-private.h"

static uint64_t
word_at(const uint8_t *b, size_t word, bool big)
{
    uint64_t v = 0;
    for (size_t k = 0; k < word; k++)
        v |= (uint64_t)b[big ? word - 1 - k : k] << (8 * k);
    return v;
}

int
lg_cpu_samples(lg *g, const uint8_t *b, size_t n, size_t word, bool big, bool adjust, size_t *end)
{
    size_t i = 5 * word;
    while (i < n) {
        uint64_t rec = i;
        if (n - i < 2 * word)
            return lg_invalid(g, rec,
                              "a sample record cut short (%zu bytes left, a record "
                              "needs %zu for its count and depth)",
                              n - i, 2 * word);
        uint64_t count = word_at(b + i, word, big);
        uint64_t depth = word_at(b + i + word, word, big);
        i += 2 * word;
        if (depth > (n - i) / word)
            return lg_invalid(g, rec, "a sample record of %llu frames runs past the end",
                              (unsigned long long)depth);
        if (count == 0 && depth == 1 && word_at(b + i, word, big) == 0) {
            *end = i + word;
            return LG_OK;
        }
        if (count > (uint64_t)INT64_MAX / (uint64_t)(g->period ? g->period : 1))
            return lg_invalid(g, rec, "a sample count of %llu overflows its cpu time",
                              (unsigned long long)count);
        lg_sample *s = lg_sample_begin(g);
        if (!s)
            return LG_ERROR;
        s->v[0] = (int64_t)count;
        s->v[1] = (int64_t)count * g->period;
        for (uint64_t k = 0; k < depth; k++, i += word) {
            uint64_t pc = word_at(b + i, word, big);
            if (adjust && k > 0)
                pc--;
            if (lg_push_frame(g, pc))
                return LG_ERROR;
        }
        lg_sample_end(g, rec);
    }
    return lg_invalid(g, n, "no end-of-data trailer record (0, 1, 0): the profile is cut short");
}

/* Go's removal of up to two second frames that most samples share: a frame the signal
 * handler pushed. */
static int
strip_handler_frames(lg *g)
{
    size_t ns = g->samples.len;
    size_t margin = ns / 32;
    pprof__u64map counts;
    for (int iter = 0; iter < 2; iter++) {
        if (!pprof__u64map_init(&counts, &g->o.allocator, 64))
            return lg_nomem(g), LG_ERROR;
        pprof__vec tally = {0};
        uint64_t found = 0;
        bool have = false;
        for (size_t i = 0; i < ns && !have; i++) {
            lg_sample *s = &PPROF__AT(g->samples, lg_sample, i);
            if (s->n <= 1)
                continue;
            uint64_t a =
                PPROF__AT(g->locs, lg_loc, PPROF__AT(g->stack, uint32_t, s->first + 1)).addr;
            uint32_t old;
            bool added;
            uint32_t *c = NULL;
            if (!pprof__u64map_put(&counts, &g->o.allocator, a, (uint32_t)tally.len, &old,
                                   &added) ||
                (added && !(c = pprof__vec_push(&g->o.allocator, &tally, sizeof(uint32_t))))) {
                /* a skipped heuristic would be a wrong profile: out of memory is an error */
                pprof__free(&g->o.allocator, tally.data);
                pprof__u64map_free(&counts, &g->o.allocator);
                return lg_nomem(g), LG_ERROR;
            }
            if (added) {
                *c = 0;
            } else {
                c = &PPROF__AT(tally, uint32_t, old);
            }
            ++*c;
        }
        /* the first address (in order of appearance) that qualifies */
        for (size_t k = 0; k < counts.n && !have; k++)
            if (PPROF__AT(tally, uint32_t, counts.e[k].value) >= ns - margin) {
                found = counts.e[k].key;
                have = true;
            }
        pprof__free(&g->o.allocator, tally.data);
        pprof__u64map_free(&counts, &g->o.allocator);
        if (!have)
            continue;
        for (size_t i = 0; i < ns; i++) {
            lg_sample *s = &PPROF__AT(g->samples, lg_sample, i);
            if (s->n > 1 &&
                PPROF__AT(g->locs, lg_loc, PPROF__AT(g->stack, uint32_t, s->first + 1)).addr ==
                    found)
                lg_drop_frame(g, s, 1);
        }
    }
    return LG_OK;
}

int
lg_parse_cpu(lg *g, const uint8_t *b, size_t n)
{
    static const char *const types[][2] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    for (size_t word = 4; word <= 8; word += 4)
        for (int big = 0; big < 2; big++) {
            if (n < 5 * word)
                continue;
            uint64_t w[5];
            for (size_t i = 0; i < 5; i++)
                w[i] = word_at(b + i * word, word, big);
            if (!(w[0] == 0 && w[1] == 3 && w[2] <= 1 && w[3] > 0 && w[4] == 0))
                continue;
            if (w[3] > (uint64_t)INT64_MAX / 1000)
                return lg_invalid(g, 3 * word,
                                  "a sampling period of %llu microseconds "
                                  "overflows nanoseconds",
                                  (unsigned long long)w[3]);
            if (w[2] == 1)
                return lg_parse_java_cpu(g, b, n, word, big, (int64_t)w[3]);
            lg_set_types(g, types, 2, "cpu", "nanoseconds", (int64_t)w[3] * 1000);
            size_t end = 0;
            if (lg_cpu_samples(g, b, n, word, big, true, &end))
                return LG_ERROR;
            if (strip_handler_frames(g))
                return LG_ERROR;
            lg_scan s;
            lg_scan_init(&s, (const char *)b, (const char *)b + end, (const char *)b + n);
            if (lg_parse_maps(g, &s))
                return LG_ERROR;
            lg_cleanup_duplicate_leaf(g);
            return LG_OK;
        }
    return LG_NOT_MINE;
}
