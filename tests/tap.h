/* A tiny TAP producer for the unit tests: ok/not ok lines, a plan at the end, exit status. */
#ifndef PPROF_TESTS_TAP_H
#define PPROF_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct tap {
    int n, failed;
} tap;

static inline int tap_ok(tap *t, int cond, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int
tap_ok(tap *t, int cond, const char *fmt, ...)
{
    va_list ap;
    t->n++;
    if (!cond)
        t->failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", t->n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static inline int
tap_done(tap *t)
{
    printf("1..%d\n", t->n);
    if (t->failed)
        printf("# %d of %d failed\n", t->failed, t->n);
    return t->failed ? 1 : 0;
}

/* The whole test is skipped: `return tap_skip_all(...)` from main. Under meson's TAP protocol a
 * skip is the plan "1..0 # SKIP" and exit 0; exit 77 is a skip only to the exitcode protocol. */
static inline int tap_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline int
tap_skip_all(const char *fmt, ...)
{
    va_list ap;
    printf("1..0 # SKIP ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return 0;
}

/* Path of the real corpus (corpus/real of the source tree), from the environment that meson test
 * sets; run by hand from the source root, the relative default finds it. */
static inline const char *
tap_real_corpus(void)
{
    const char *d = getenv("PPROF_REAL_CORPUS");
    return d && *d ? d : "corpus/real";
}

#endif
