/* Shared helpers for the unit and corpus tests: whole-file reads, the real corpus file list,
 * reading raw bytes into a profile, byte-for-byte buffer checks. */
#ifndef PPROF_TESTS_TESTUTIL_H
#define PPROF_TESTS_TESTUTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile-private.h"
#include "tap.h"

/* Reads a whole file into malloc'd memory; NULL when it cannot. */
static inline uint8_t *
tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        uint8_t *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return b;
}

typedef struct tu_files {
    char **path;
    size_t n, cap;
} tu_files;

static inline int
tu_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void
tu_walk(tu_files *fl, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "SOURCES.txt") == 0)
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p)
            abort();
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0) {
            free(p);
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            tu_walk(fl, p);
            free(p);
            continue;
        }
        if (!S_ISREG(sb.st_mode)) {
            free(p);
            continue;
        }
        if (fl->n == fl->cap) {
            fl->cap = fl->cap ? fl->cap * 2 : 64;
            fl->path = realloc(fl->path, fl->cap * sizeof(char *));
            if (!fl->path)
                abort();
        }
        fl->path[fl->n++] = p;
    }
    closedir(d);
}

/* Every file of the real corpus, recursively, sorted; SOURCES.txt files are skipped. */
static inline tu_files
tu_corpus(void)
{
    tu_files fl = {0};
    tu_walk(&fl, tap_real_corpus());
    if (fl.n)
        qsort(fl.path, fl.n, sizeof(char *), tu_cmp_str);
    return fl;
}

static inline void
tu_files_free(tu_files *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->path[i]);
    free(fl->path);
    memset(fl, 0, sizeof(*fl));
}

/* The corpus-relative name, for readable test lines. */
static inline const char *
tu_short(const char *path)
{
    size_t n = strlen(tap_real_corpus());
    return strncmp(path, tap_real_corpus(), n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* Decodes bytes as raw protobuf (no container detection), as the decoder sees them after
 * decompression. opts may be NULL. */
static inline pprof_status
tu_decode_raw(const uint8_t *data, size_t len, const pprof_read_options *opts, pprof_profile **out,
              pprof_error *err)
{
    pprof_read_options o;
    pprof__read_options_fill(&o, opts);
    *out = NULL;
    pprof_profile *p = pprof__profile_new(&o.allocator);
    uint8_t *copy = pprof__malloc(&o.allocator, len + 1); /* the profile frees it */
    if (!p || !copy)
        abort();
    if (len)
        memcpy(copy, data, len);
    pprof_status st = pprof__decode(p, copy, len, &o, err);
    if (st) {
        pprof_profile_free(p);
        return st;
    }
    *out = p;
    return PPROF_OK;
}

/* Decompresses a corpus file's bytes with the default limits. */
static inline uint8_t *
tu_decompress(const uint8_t *in, size_t len, size_t *out_len)
{
    pprof_read_options o;
    pprof_read_options_init(&o);
    uint8_t *out = NULL;
    if (pprof__decompress(in, len, pprof_detect_format(in, len), &o, &out, out_len, NULL))
        return NULL;
    return out;
}

#endif
