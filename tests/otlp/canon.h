/* A canonical comparison of two pprof profiles' meaning, for round trips through formats that
 * renumber ids and rebuild tables: every string resolved; the header and sample types; the
 * mappings as a sorted set; every sample in order with its values, its labels sorted (with
 * units) and its stack frame by frame (each location's address, folded flag, mapping and every
 * line, inlined ones included). Ids and table order do not count. */
#ifndef PPROF_TESTS_OTLP_CANON_H
#define PPROF_TESTS_OTLP_CANON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/pprof.h"

typedef struct canon_buf {
    char *data;
    size_t len, cap;
} canon_buf;

static inline void canon_put(canon_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void
canon_put(canon_buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n =
            vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (b->data && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)n)
            cap *= 2;
        b->data = realloc(b->data, cap);
        if (!b->data)
            abort();
        b->cap = cap;
    }
}

/* A string of p as "text" with its length (strings may hold any byte). */
static inline void
canon_str(canon_buf *b, const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (i && !pprof_profile_string(p, i, &s)) {
        canon_put(b, "<bad %lld>", (long long)i);
        return;
    }
    canon_put(b, "%zu:", s.len);
    if (s.len)
        canon_put(b, "%.*s", (int)s.len, s.data);
}

static inline void
canon_mapping(canon_buf *b, const pprof_profile *p, uint64_t id)
{
    size_t k;
    if (!id || !pprof_profile_find_mapping(p, id, &k)) {
        canon_put(b, "(no mapping)");
        return;
    }
    pprof_mapping m = pprof_profile_mapping(p, k);
    canon_put(b, "(%llx-%llx@%llx ", (unsigned long long)m.memory_start,
              (unsigned long long)m.memory_limit, (unsigned long long)m.file_offset);
    canon_str(b, p, m.filename);
    canon_put(b, " ");
    canon_str(b, p, m.build_id);
    canon_put(b, " %d%d%d%d)", m.has_functions, m.has_filenames, m.has_line_numbers,
              m.has_inline_frames);
}

static inline int
canon_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The header, sample types and the set of mappings. */
static inline char *
canon_head(const pprof_profile *p)
{
    canon_buf b = {0};
    pprof_header h = pprof_profile_header(p);
    canon_put(&b, "period_type ");
    canon_str(&b, p, h.period_type.type);
    canon_put(&b, "/");
    canon_str(&b, p, h.period_type.unit);
    canon_put(&b, " period %lld time %lld duration %lld\ndefault ", (long long)h.period,
              (long long)h.time_nanos, (long long)h.duration_nanos);
    canon_str(&b, p, h.default_sample_type);
    canon_put(&b, " drop ");
    canon_str(&b, p, h.drop_frames);
    canon_put(&b, " keep ");
    canon_str(&b, p, h.keep_frames);
    canon_put(&b, " doc ");
    canon_str(&b, p, h.doc_url);
    canon_put(&b, "\n");
    for (size_t i = 0; i < h.n_comment; i++) {
        canon_put(&b, "comment ");
        canon_str(&b, p, h.comment[i]);
        canon_put(&b, "\n");
    }
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE); i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        canon_put(&b, "sample_type ");
        canon_str(&b, p, vt.type);
        canon_put(&b, "/");
        canon_str(&b, p, vt.unit);
        canon_put(&b, "\n");
    }
    size_t nm = pprof_profile_count(p, PPROF_TABLE_MAPPING);
    char **ml = calloc(nm + 1, sizeof(char *));
    for (size_t i = 0; i < nm; i++) {
        canon_buf m = {0};
        canon_put(&m, "mapping ");
        canon_mapping(&m, p, pprof_profile_mapping(p, i).id);
        ml[i] = m.data;
    }
    qsort(ml, nm, sizeof(char *), canon_cmp);
    for (size_t i = 0; i < nm; i++)
        if (i == 0 || strcmp(ml[i], ml[i - 1]) != 0)
            canon_put(&b, "%s\n", ml[i]);
    for (size_t i = 0; i < nm; i++)
        free(ml[i]);
    free(ml);
    if (!b.data)
        canon_put(&b, "%s", "");
    return b.data;
}

/* Location k (by table index): address, folded, mapping and every line with its function. */
static inline char *
canon_location(const pprof_profile *p, size_t k)
{
    canon_buf b = {0};
    pprof_location l = pprof_profile_location(p, k);
    canon_put(&b, "loc %llx folded %d ", (unsigned long long)l.address, l.is_folded);
    canon_mapping(&b, p, l.mapping_id);
    for (size_t q = 0; q < l.n_line; q++) {
        size_t fk;
        canon_put(&b, " | line %lld:%lld ", (long long)l.line[q].line, (long long)l.line[q].column);
        pprof_function f = {0};
        if (l.line[q].function_id && pprof_profile_find_function(p, l.line[q].function_id, &fk))
            f = pprof_profile_function(p, fk);
        /* a function with no name, system name or filename is no function in OTLP (O9) */
        if (f.name || f.system_name || f.filename) {
            canon_str(&b, p, f.name);
            canon_put(&b, " ");
            canon_str(&b, p, f.system_name);
            canon_put(&b, " ");
            canon_str(&b, p, f.filename);
            canon_put(&b, " %lld", (long long)f.start_line);
        } else {
            canon_put(&b, "(no function)");
        }
    }
    return b.data;
}

/* Sample i's values and labels, the labels sorted. */
static inline char *
canon_sample(const pprof_profile *p, size_t i)
{
    canon_buf b = {0};
    pprof_sample s = pprof_profile_sample(p, i);
    canon_put(&b, "values");
    for (size_t j = 0; j < s.n_value; j++)
        canon_put(&b, " %lld", (long long)s.value[j]);
    canon_put(&b, " frames %zu", s.n_location_id);
    char **ll = calloc(s.n_label + 1, sizeof(char *));
    for (size_t j = 0; j < s.n_label; j++) {
        canon_buf m = {0};
        canon_put(&m, " label ");
        canon_str(&m, p, s.label[j].key);
        if (s.label[j].str) {
            canon_put(&m, " = ");
            canon_str(&m, p, s.label[j].str);
        } else {
            canon_put(&m, " = %lld ", (long long)s.label[j].num);
            canon_str(&m, p, s.label[j].num_unit);
        }
        ll[j] = m.data;
    }
    qsort(ll, s.n_label, sizeof(char *), canon_cmp);
    for (size_t j = 0; j < s.n_label; j++) {
        canon_put(&b, "%s", ll[j]);
        free(ll[j]);
    }
    free(ll);
    return b.data;
}

static inline char **
canon_locations(const pprof_profile *p)
{
    size_t n = pprof_profile_count(p, PPROF_TABLE_LOCATION);
    char **v = calloc(n + 1, sizeof(char *));
    for (size_t k = 0; k < n; k++)
        v[k] = canon_location(p, k);
    return v;
}

static inline void
canon_free_list(char **v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(v[k]);
    free(v);
}

/* Whether a and b mean the same; otherwise why (cap bytes) names the first difference. */
static inline bool
canon_equal(const pprof_profile *a, const pprof_profile *b, char *why, size_t cap)
{
    bool eq = true;
    char *ha = canon_head(a), *hb = canon_head(b);
    if (strcmp(ha, hb) != 0) {
        snprintf(why, cap, "header:\n%.300s\n---\n%.300s", ha, hb);
        eq = false;
    }
    free(ha);
    free(hb);
    size_t ns = pprof_profile_count(a, PPROF_TABLE_SAMPLE);
    if (eq && ns != pprof_profile_count(b, PPROF_TABLE_SAMPLE)) {
        snprintf(why, cap, "%zu samples, then %zu", ns, pprof_profile_count(b, PPROF_TABLE_SAMPLE));
        eq = false;
    }
    char **la = canon_locations(a), **lb = canon_locations(b);
    for (size_t i = 0; i < ns && eq; i++) {
        char *sa = canon_sample(a, i), *sb = canon_sample(b, i);
        if (strcmp(sa, sb) != 0) {
            snprintf(why, cap, "sample %zu: %.200s\n---\n%.200s", i, sa, sb);
            eq = false;
        }
        free(sa);
        free(sb);
        pprof_sample x = pprof_profile_sample(a, i), y = pprof_profile_sample(b, i);
        for (size_t j = 0; j < x.n_location_id && eq; j++) {
            size_t ka, kb;
            bool fa = pprof_profile_find_location(a, x.location_id[j], &ka);
            bool fb = pprof_profile_find_location(b, y.location_id[j], &kb);
            if (fa != fb || (fa && strcmp(la[ka], lb[kb]) != 0)) {
                snprintf(why, cap, "sample %zu frame %zu: %.200s\n---\n%.200s", i, j,
                         fa ? la[ka] : "none", fb ? lb[kb] : "none");
                eq = false;
            }
        }
    }
    canon_free_list(la, pprof_profile_count(a, PPROF_TABLE_LOCATION));
    canon_free_list(lb, pprof_profile_count(b, PPROF_TABLE_LOCATION));
    return eq;
}

/* Sample i's key as text: its labels sorted and its stack frame by frame (locs: the locations'
 * canonical texts by table index). */
static inline char *
canon_key(const pprof_profile *p, size_t i, char **locs)
{
    canon_buf b = {0};
    char *lab = canon_sample(p, i);
    const char *l = strstr(lab, " label ");
    canon_put(&b, "%s |", l ? l : "");
    free(lab);
    pprof_sample s = pprof_profile_sample(p, i);
    for (size_t j = 0; j < s.n_location_id; j++) {
        size_t k;
        canon_put(&b, " [%s]",
                  pprof_profile_find_location(p, s.location_id[j], &k) ? locs[k] : "none");
    }
    return b.data;
}

typedef struct canon_kv {
    char *key;
    const int64_t *value;
    size_t n_value;
} canon_kv;

static inline int
canon_kv_cmp(const void *a, const void *b)
{
    return strcmp(((const canon_kv *)a)->key, ((const canon_kv *)b)->key);
}

/* Every sample key of p with its values summed over the samples of that key, sorted, one line
 * each: what a join by sample key must keep whatever it merges or reorders. */
static inline char *
canon_sums(const pprof_profile *p)
{
    size_t ns = pprof_profile_count(p, PPROF_TABLE_SAMPLE);
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    char **locs = canon_locations(p);
    canon_kv *kv = calloc(ns + 1, sizeof(canon_kv));
    for (size_t i = 0; i < ns; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        kv[i] = (canon_kv){canon_key(p, i, locs), s.value, s.n_value};
    }
    qsort(kv, ns, sizeof(canon_kv), canon_kv_cmp);
    canon_buf b = {0};
    int64_t *sum = calloc(nt + 1, sizeof(int64_t));
    for (size_t i = 0; i < ns;) {
        size_t j = i;
        memset(sum, 0, (nt + 1) * sizeof(int64_t));
        for (; j < ns && strcmp(kv[j].key, kv[i].key) == 0; j++)
            for (size_t t = 0; t < kv[j].n_value && t < nt; t++)
                /* wraps like Go's int64 sums: a corpus profile holds INT64_MAX values */
                sum[t] = (int64_t)((uint64_t)sum[t] + (uint64_t)kv[j].value[t]);
        canon_put(&b, "%s =>", kv[i].key);
        for (size_t t = 0; t < nt; t++)
            canon_put(&b, " %lld", (long long)sum[t]);
        canon_put(&b, "\n");
        i = j;
    }
    for (size_t i = 0; i < ns; i++)
        free(kv[i].key);
    free(kv);
    free(sum);
    canon_free_list(locs, pprof_profile_count(p, PPROF_TABLE_LOCATION));
    if (!b.data)
        canon_put(&b, "%s", "");
    return b.data;
}

/* Whether a and b have the same header and the same values summed per sample key (canon_sums);
 * otherwise why names the first difference. For round trips that join samples by key. */
static inline bool
canon_equal_sums(const pprof_profile *a, const pprof_profile *b, char *why, size_t cap)
{
    char *ha = canon_head(a), *hb = canon_head(b);
    bool eq = strcmp(ha, hb) == 0;
    if (!eq)
        snprintf(why, cap, "header:\n%.300s\n---\n%.300s", ha, hb);
    free(ha);
    free(hb);
    if (!eq)
        return false;
    char *sa = canon_sums(a), *sb = canon_sums(b);
    eq = strcmp(sa, sb) == 0;
    if (!eq) {
        size_t k = 0;
        while (sa[k] && sa[k] == sb[k])
            k++;
        while (k > 0 && sa[k - 1] != '\n')
            k--;
        snprintf(why, cap, "sums per key differ at:\n%.300s\n---\n%.300s", sa + k, sb + k);
    }
    free(sa);
    free(sb);
    return eq;
}

#endif
