/* Shared by the fuzz harnesses, the replay driver and the custom mutators. Everything here is
 * per call: harnesses keep no state between inputs, so a crash reproduces from its file alone. */
#ifndef PPROF_FUZZ_H
#define PPROF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/formats.h"
#include "pprof/pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Oracle failures abort so that every engine and the replay driver treat them as crashes. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Limits small enough that one input never takes more than a few milliseconds or megabytes,
 * large enough for every seed in corpus/. */
static inline pprof_read_options
fuzz_read_options(void)
{
    pprof_read_options o = PPROF_READ_OPTIONS_INIT;
    o.max_input_bytes = 4u << 20;
    o.max_decompressed_bytes = 8u << 20;
    o.max_ratio = 200;
    o.ratio_floor = 1u << 20;
    o.max_strings = 1u << 16;
    o.max_samples = 1u << 16;
    o.max_locations = 1u << 16;
    o.max_functions = 1u << 16;
    o.max_mappings = 1u << 12;
    o.max_lines = 1u << 18;
    o.max_labels = 1u << 18;
    o.max_stack_entries = 1u << 20;
    o.max_values = 1u << 18;
    o.readers = pprof_formats_readers(); /* every format the tools read */
    return o;
}

/* An allocator that fails its n-th call (counting from 0) and counts calls, so a harness can
 * first count the allocations a successful run makes and then fail each one in turn. */
typedef struct fuzz_failing_alloc {
    uint64_t calls;
    uint64_t fail_at; /* UINT64_MAX: never */
    uint64_t failed;
} fuzz_failing_alloc;

static inline void *
fuzz_fa_alloc(void *ctx, size_t size)
{
    fuzz_failing_alloc *f = ctx;
    if (f->calls++ == f->fail_at) {
        f->failed++;
        return NULL;
    }
    return malloc(size);
}

static inline void *
fuzz_fa_realloc(void *ctx, void *ptr, size_t size)
{
    fuzz_failing_alloc *f = ctx;
    if (f->calls++ == f->fail_at) {
        f->failed++;
        return NULL;
    }
    return realloc(ptr, size);
}

static inline void
fuzz_fa_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static inline pprof_allocator
fuzz_failing_allocator(fuzz_failing_alloc *f)
{
    pprof_allocator a = {fuzz_fa_alloc, fuzz_fa_realloc, fuzz_fa_free, f};
    return a;
}

/* How many of a run's allocations a harness fails, one at a time, per input: n while fuzzing,
 * where every input must stay fast; more when FUZZ_FAIL_POINTS names a larger number, and each
 * one when it says "every" (fuzz/coverage, and the sanitizer replay of the corpus in CI: every
 * allocation site the corpus reaches must fail cleanly, without a crash or a leak). */
static inline uint64_t
fuzz_fail_points(uint64_t n)
{
    const char *s = getenv("FUZZ_FAIL_POINTS");
    if (!s || !*s)
        return n;
    if (!strcmp(s, "every"))
        return UINT64_MAX;
    uint64_t v = strtoull(s, NULL, 10);
    return v > n ? v : n;
}

/* The k-th of n allocations to fail among the calls a successful run made: every one when
 * there are at most n, else n spread over them from a point chosen by h. */
static inline uint64_t
fuzz_fail_point(uint64_t calls, uint64_t k, uint64_t n, uint64_t h)
{
    return calls <= n ? k : (h + k * calls / n) % calls;
}

/* Whether the file at path holds exactly the n bytes at d; *len (when not NULL) gets how many it
 * holds, 0 when it cannot be opened. */
static inline bool
fuzz_file_holds(const char *path, const uint8_t *d, size_t n, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t k = 0;
    bool same = f != NULL;
    for (int c; f && (c = fgetc(f)) != EOF; k++)
        same = same && k < n && d[k] == (uint8_t)c;
    if (f)
        fclose(f);
    if (len)
        *len = k;
    return same && k == n;
}

/* FNV-1a of the input: a stable source of choices that does not consume input bytes. */
static inline uint64_t
fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static inline int
fuzz_utf8_valid(const char *str, size_t n)
{
    const uint8_t *s = (const uint8_t *)str;
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        size_t len;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            len = 4, cp = c & 0x07;
        else
            return 0;
        if (n - i < len)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        i += len;
    }
    return 1;
}

#endif
