/* Minimal profiles, one per checker rule, written as raw protobuf bytes so that any broken
 * structure can be expressed. Shared by the rule test and the corpus writer. */
#ifndef PPROF_TESTS_CHECK_CASES_H
#define PPROF_TESTS_CHECK_CASES_H

#include <stdint.h>
#include <string.h>

#include "check.h"

typedef struct pb {
    uint8_t d[8192];
    size_t n;
} pb;

static inline void
pb_raw(pb *b, const void *d, size_t n)
{
    if (b->n + n <= sizeof(b->d)) {
        memcpy(b->d + b->n, d, n);
        b->n += n;
    }
}

static inline void
pb_vint(pb *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    pb_raw(b, t, n);
}

/* varint field */
static inline void
fv(pb *b, unsigned field, uint64_t v)
{
    pb_vint(b, (uint64_t)field << 3);
    pb_vint(b, v);
}

/* length-delimited field */
static inline void
fb(pb *b, unsigned field, const void *d, size_t n)
{
    pb_vint(b, (uint64_t)field << 3 | 2);
    pb_vint(b, n);
    pb_raw(b, d, n);
}

static inline void
fm(pb *b, unsigned field, const pb *sub)
{
    fb(b, field, sub->d, sub->n);
}

static inline void
strs(pb *b, const char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fb(b, 6, s[i], strlen(s[i]));
}

static inline void
vt(pb *b, unsigned field, int64_t type, int64_t unit)
{
    pb m = {.n = 0};
    fv(&m, 1, (uint64_t)type);
    fv(&m, 2, (uint64_t)unit);
    fm(b, field, &m);
}

static inline void
mapping(pb *b, uint64_t id, uint64_t start, uint64_t limit, int64_t file, int64_t bid,
        bool has_functions)
{
    pb m = {.n = 0};
    fv(&m, 1, id);
    fv(&m, 2, start);
    fv(&m, 3, limit);
    fv(&m, 5, (uint64_t)file);
    fv(&m, 6, (uint64_t)bid);
    if (has_functions)
        fv(&m, 7, 1);
    fm(b, 3, &m);
}

static inline void
func3(pb *b, uint64_t id, int64_t name, int64_t system_name, int64_t file)
{
    pb m = {.n = 0};
    fv(&m, 1, id);
    fv(&m, 2, (uint64_t)name);
    if (system_name)
        fv(&m, 3, (uint64_t)system_name);
    fv(&m, 4, (uint64_t)file);
    fm(b, 5, &m);
}

static inline void
func(pb *b, uint64_t id, int64_t name, int64_t file)
{
    func3(b, id, name, 0, file);
}

/* lines: n pairs of (function_id, line) */
static inline void
loc(pb *b, uint64_t id, uint64_t mapping_id, uint64_t addr, size_t n, const uint64_t *lines)
{
    pb m = {.n = 0};
    fv(&m, 1, id);
    if (mapping_id)
        fv(&m, 2, mapping_id);
    if (addr)
        fv(&m, 3, addr);
    for (size_t i = 0; i < n; i++) {
        pb l = {.n = 0};
        fv(&l, 1, lines[2 * i]);
        fv(&l, 2, lines[2 * i + 1]);
        fm(&m, 4, &l);
    }
    fm(b, 4, &m);
}

typedef struct lab {
    int64_t key, str, num, unit;
} lab;

static inline void
sample(pb *b, size_t nl, const uint64_t *locs, size_t nv, const int64_t *vals, size_t nlab,
       const lab *labs)
{
    pb m = {.n = 0};
    for (size_t i = 0; i < nl; i++)
        fv(&m, 1, locs[i]);
    for (size_t i = 0; i < nv; i++)
        fv(&m, 2, (uint64_t)vals[i]);
    for (size_t i = 0; i < nlab; i++) {
        pb l = {.n = 0};
        if (labs[i].key)
            fv(&l, 1, (uint64_t)labs[i].key);
        if (labs[i].str)
            fv(&l, 2, (uint64_t)labs[i].str);
        if (labs[i].num)
            fv(&l, 3, (uint64_t)labs[i].num);
        if (labs[i].unit)
            fv(&l, 4, (uint64_t)labs[i].unit);
        fm(&m, 3, &l);
    }
    fm(b, 2, &m);
}

/* The standard strings: indices used by the cases below. */
enum { S_EMPTY, S_SAMPLES, S_COUNT, S_MAIN, S_MAIN_GO, S_AOUT, S_BID, S_FOO, S_CPU, S_NS, N_STD };
static const char *const STD_STRINGS[N_STD] = {"",      "samples", "count", "main", "main.go",
                                               "a.out", "b1d0",    "foo",   "cpu",  "nanoseconds"};

/* Parts of the standard valid profile that a case replaces with its own. */
enum {
    NO_STR = 1,
    NO_ST = 2,
    NO_MAP = 4,
    NO_FN = 8,
    NO_LOC = 16,
    NO_SAMPLE = 32,
    NO_PERIOD = 64,
};

/* One sample type, one mapping [0x1000,0x2000), one function, one location 0x1100 with one
 * line, one sample with value 1, period 10 cpu/nanoseconds. Passes every rule. */
static inline void
std_profile(pb *b, int omit)
{
    if (!(omit & NO_STR))
        strs(b, STD_STRINGS, N_STD);
    if (!(omit & NO_ST))
        vt(b, 1, S_SAMPLES, S_COUNT);
    if (!(omit & NO_MAP))
        mapping(b, 1, 0x1000, 0x2000, S_AOUT, S_BID, false);
    if (!(omit & NO_FN))
        func3(b, 1, S_MAIN, S_FOO, S_MAIN_GO);
    const uint64_t l1[] = {1, 10};
    if (!(omit & NO_LOC))
        loc(b, 1, 1, 0x1100, 1, l1);
    const uint64_t s1[] = {1};
    const int64_t v1[] = {1};
    if (!(omit & NO_SAMPLE))
        sample(b, 1, s1, 1, v1, 0, NULL);
    if (!(omit & NO_PERIOD)) {
        vt(b, 11, S_CPU, S_NS);
        fv(b, 12, 10);
    }
}

typedef struct rcase {
    const char *name; /* also the corpus file name without prefix */
    const char *rule; /* expected rule id, NULL for a valid profile */
    const char *path; /* expected path of that finding */
    void (*build)(pb *b);
    bool decodes; /* false: the read fails and the rule comes from the read error */
} rcase;

extern const rcase CASES[];
extern const size_t N_CASES;
void case_file_name(const rcase *c, char *out, size_t cap);

#endif
