/* floor: the work no implementation of an operation on gzip profiles can skip, timed with
 * libdeflate on one core: inflating every input, and deflating the output's decompressed
 * bytes at the level the tools write (bench/floor.sh).
 *
 *   floor [--reps N] [--level N] [--out OUT.gz] IN...
 *
 * prints "inflate SECONDS" for all inputs together and, with --out, "deflate SECONDS" for the
 * output; each the best of N runs (default 3). An input that is not gzip counts as 0 (it is
 * read as is). */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pprof/pprof.h"

typedef struct blob {
    unsigned char *data;
    size_t len;
} blob;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
slurp(const char *path, blob *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 20, len = 0;
    unsigned char *d = malloc(cap);
    for (size_t n; d && (n = fread(d + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            unsigned char *g = realloc(d, cap * 2);
            if (!g) {
                free(d);
                d = NULL;
                break;
            }
            d = g;
            cap *= 2;
        }
    }
    fclose(f);
    if (!d) {
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    b->data = d;
    b->len = len;
    return 0;
}

static int
is_gzip(const blob *b)
{
    return b->len >= 2 && b->data[0] == 0x1f && b->data[1] == 0x8b;
}

/* Inflates every gzip member of b into *out (grown as needed); 0 on success. */
static int
inflate_all(struct libdeflate_decompressor *d, const blob *b, blob *out)
{
    size_t pos = 0;
    out->len = 0;
    while (pos < b->len) {
        size_t in_used = 0, got = 0;
        /* Grow until the member fits: its trailer's size is modulo 2^32. */
        size_t room = (size_t)1 << 24;
        for (;;) {
            unsigned char *g = realloc(out->data, out->len + room);
            if (!g)
                return -1;
            out->data = g;
            enum libdeflate_result r = libdeflate_gzip_decompress_ex(
                d, b->data + pos, b->len - pos, out->data + out->len, room, &in_used, &got);
            if (r == LIBDEFLATE_SUCCESS)
                break;
            if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
                return -1;
            room *= 2;
        }
        out->len += got;
        pos += in_used;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    int reps = 3, level = PPROF_GZIP_DEFAULT_LEVEL, i = 1;
    const char *outp = NULL;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (i + 1 >= argc)
            goto usage;
        if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--level") == 0)
            level = atoi(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0)
            outp = argv[++i];
        else
            goto usage;
    }
    if (reps < 1 || level < 0 || level > 12)
        goto usage;
    int n = argc - i;
    blob *in = calloc((size_t)n + 1, sizeof *in);
    if (!in)
        return 1;
    for (int k = 0; k < n; k++)
        if (slurp(argv[i + k], &in[k]))
            return 1;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    blob raw = {NULL, 0};
    double best = 1e99;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int k = 0; k < n; k++)
            if (is_gzip(&in[k]) && inflate_all(d, &in[k], &raw)) {
                fprintf(stderr, "%s: not valid gzip\n", argv[i + k]);
                return 1;
            }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("inflate %.4f\n", n ? best : 0.0);
    if (outp) {
        blob o;
        if (slurp(outp, &o))
            return 1;
        if (is_gzip(&o)) {
            if (inflate_all(d, &o, &raw)) {
                fprintf(stderr, "%s: not valid gzip\n", outp);
                return 1;
            }
        } else {
            free(raw.data);
            raw = o;
        }
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
        size_t bound = libdeflate_gzip_compress_bound(c, raw.len);
        unsigned char *z = malloc(bound);
        if (!c || !z)
            return 1;
        best = 1e99;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            if (!libdeflate_gzip_compress(c, raw.data, raw.len, z, bound))
                return 1;
            double t = now() - t0;
            if (t < best)
                best = t;
        }
        printf("deflate %.4f\n", best);
    }
    return 0;
usage:
    fprintf(stderr, "usage: floor [--reps N] [--level 0-12] [--out OUT] IN...\n");
    return 2;
}
