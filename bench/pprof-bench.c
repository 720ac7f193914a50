/* pprof-bench: throughput of reading, writing and compressing profiles, on generated large
 * profiles and on real ones, beside a bare wire walk and protobuf-c on the same bytes.
 *
 * Every figure is MB/s (10^6 bytes) of *uncompressed* protobuf bytes, so the columns compare
 * directly. Each operation is repeated for at least --min-ms per round, and the best of --reps
 * rounds is kept: the machine is shared, and the best round is the one least disturbed.
 * Setup and teardown (copying the input, freeing results) are outside the timed region.
 *
 * Memory: glibc is told to keep freed memory (no mmap, no trimming), so repeated runs reuse warm
 * pages, as a long-running process does. "dec-cold" decodes with an allocator that maps every
 * large block fresh from the kernel, as a one-shot tool does: on virtual machines a page fault
 * can cost tens of microseconds, and the decoded model is about 3x the input. */
#define _GNU_SOURCE
#include <dirent.h>
#include <libdeflate.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#define PPROF_BENCH_COLD 1
#endif
#include <time.h>
#include <zstd.h>
#ifdef PPROF_BENCH_ZLIB
#include <zlib.h>
#endif

#include "gen.h"
#include "profile-private.h"
#include "profile.pb-c.h"
#include "wire-private.h"

/* ---------------------------------------------------------------- bare wire walk
 * The floor for any decoder: visits every field of the eight messages, descends into every
 * sub-message and every packed varint, checks every bound, stores nothing. */

enum { W_PROFILE, W_VT, W_SAMPLE, W_LABEL, W_MAPPING, W_LOCATION, W_LINE, W_FUNCTION };
#define W_PACKED 0x80
#define W_MSG(m) (0x40 | (m))

/* Per message and field number (1..15): a sub-message, a packed repeated varint, or 0 for a
 * scalar or string. */
static const uint8_t WALK_SCHEMA[8][16] = {
    [W_PROFILE] = {[1] = W_MSG(W_VT),
                   [2] = W_MSG(W_SAMPLE),
                   [3] = W_MSG(W_MAPPING),
                   [4] = W_MSG(W_LOCATION),
                   [5] = W_MSG(W_FUNCTION),
                   [11] = W_MSG(W_VT),
                   [13] = W_PACKED},
    [W_SAMPLE] = {[1] = W_PACKED, [2] = W_PACKED, [3] = W_MSG(W_LABEL)},
    [W_LOCATION] = {[4] = W_MSG(W_LINE)},
};

static inline const uint8_t *
walk_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (p < end && *p < 0x80) {
        *out = *p;
        return p + 1;
    }
    uint64_t v = 0;
    for (unsigned s = 0; s < 70 && p < end; s += 7) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (b < 0x80) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

static bool
walk(const uint8_t *p, const uint8_t *end, unsigned msg, uint64_t *acc)
{
    while (p < end) {
        uint64_t tag, v;
        if (!(p = walk_varint(p, end, &tag)))
            return false;
        uint64_t field = tag >> 3;
        switch (tag & 7) {
        case 0:
            if (!(p = walk_varint(p, end, &v)))
                return false;
            *acc += v;
            break;
        case 1:
            if (end - p < 8)
                return false;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return false;
            p += 4;
            break;
        case 2: {
            if (!(p = walk_varint(p, end, &v)) || v > (uint64_t)(end - p))
                return false;
            const uint8_t *sub = p + v;
            uint8_t kind = field < 16 ? WALK_SCHEMA[msg][field] : 0;
            if (kind & 0x40) {
                if (!walk(p, sub, kind & 0x3f, acc))
                    return false;
            } else if (kind == W_PACKED) {
                while (p < sub) {
                    if (!(p = walk_varint(p, sub, &v)))
                        return false;
                    *acc += v;
                }
            } else {
                *acc += v;
            }
            p = sub;
            break;
        }
        default: return false;
        }
    }
    return true;
}

/* The same walk with the decoder's word-at-a-time varint (pprof__varint8) for packed runs
 * (little-endian only): the floor for a decoder that uses that trick too. */
#if PPROF__LITTLE_ENDIAN
#define PPROF_BENCH_WALK8 1
static bool
walk8(const uint8_t *p, const uint8_t *end, const uint8_t *buf_end, unsigned msg, uint64_t *acc)
{
    while (p < end) {
        uint64_t tag, v;
        if (!(p = walk_varint(p, end, &tag)))
            return false;
        uint64_t field = tag >> 3;
        switch (tag & 7) {
        case 0:
            if (!(p = walk_varint(p, end, &v)))
                return false;
            *acc += v;
            break;
        case 1:
            if (end - p < 8)
                return false;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return false;
            p += 4;
            break;
        case 2: {
            if (!(p = walk_varint(p, end, &v)) || v > (uint64_t)(end - p))
                return false;
            const uint8_t *sub = p + v;
            uint8_t kind = field < 16 ? WALK_SCHEMA[msg][field] : 0;
            if (kind & 0x40) {
                if (!walk8(p, sub, buf_end, kind & 0x3f, acc))
                    return false;
            } else if (kind == W_PACKED) {
                while (p < sub) {
                    size_t n;
                    uint64_t w;
                    if (buf_end - p >= 8 && sub - p >= 8 && (memcpy(&w, p, 8), 1) &&
                        (w & UINT64_C(0x8080808080808080)) == 0) {
                        for (unsigned i = 0; i < 8; i++)
                            *acc += p[i];
                        p += 8;
                        continue;
                    }
                    if (buf_end - p >= 8 && (n = pprof__varint8(p, sub, &v)) != 0)
                        p += n;
                    else if (!(p = walk_varint(p, sub, &v)))
                        return false;
                    *acc += v;
                }
            } else {
                *acc += v;
            }
            p = sub;
            break;
        }
        default: return false;
        }
    }
    return true;
}
#endif

/* ---------------------------------------------------------------- cold memory */

#ifdef PPROF_BENCH_COLD
/* Blocks of 64 KB and more come from mmap and go back with munmap, so every page of them is
 * faulted in again on each use. */
typedef struct cold_hdr {
    size_t size;
    size_t mapped;
} cold_hdr;

enum { COLD_MIN = 1 << 16 };

static void *
cold_alloc(void *ctx, size_t size)
{
    (void)ctx;
    cold_hdr *h;
    if (size >= COLD_MIN) {
        void *m = mmap(NULL, size + sizeof(*h), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        h = m;
        h->mapped = 1;
    } else {
        if (!(h = malloc(size + sizeof(*h))))
            return NULL;
        h->mapped = 0;
    }
    h->size = size;
    return h + 1;
}

static void
cold_free(void *ctx, void *p)
{
    (void)ctx;
    if (!p)
        return;
    cold_hdr *h = (cold_hdr *)p - 1;
    if (h->mapped)
        munmap(h, h->size + sizeof(*h));
    else
        free(h);
}

static void *
cold_realloc(void *ctx, void *p, size_t size)
{
    if (!p)
        return cold_alloc(ctx, size);
    cold_hdr *h = (cold_hdr *)p - 1;
    if (h->mapped && size >= COLD_MIN) {
        void *m = mremap(h, h->size + sizeof(*h), size + sizeof(*h), MREMAP_MAYMOVE);
        if (m == MAP_FAILED)
            return NULL;
        h = m;
        h->size = size;
        return h + 1;
    }
    void *n = cold_alloc(ctx, size);
    if (!n)
        return NULL;
    memcpy(n, p, h->size < size ? h->size : size);
    cold_free(ctx, p);
    return n;
}
#endif

/* ---------------------------------------------------------------- subjects and operations */

typedef struct subject {
    char name[64];
    uint8_t *raw;
    size_t raw_len;
    pprof_read_options ro;
    pprof_profile *prof;               /* decoded once, input of encode */
    Perftools__Profiles__Profile *msg; /* unpacked once, input of pack */
    uint8_t *gz;                       /* libdeflate gzip at level 6 */
    size_t gz_len, gz_zlib_len;        /* sizes of libdeflate's and zlib's gzip */
    uint8_t *zs;                       /* zstd at level 3 */
    size_t zs_len;
    uint8_t *scratch; /* raw_len bytes, decompression output */
    uint64_t sink;    /* results folded in so nothing timed is optimized away */
} subject;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One run of an operation; adds the seconds of its timed part to *t. */
typedef bool (*op_fn)(subject *s, double *t);

static bool
op_walk(subject *s, double *t)
{
    uint64_t acc = 0;
    double t0 = now();
    bool ok = walk(s->raw, s->raw + s->raw_len, W_PROFILE, &acc);
    *t += now() - t0;
    s->sink += acc;
    return ok;
}

#ifdef PPROF_BENCH_WALK8
static bool
op_walk8(subject *s, double *t)
{
    uint64_t acc = 0;
    double t0 = now();
    bool ok = walk8(s->raw, s->raw + s->raw_len, s->raw + s->raw_len, W_PROFILE, &acc);
    *t += now() - t0;
    s->sink += acc;
    return ok;
}
#endif

static bool
op_decode(subject *s, double *t)
{
    uint8_t *copy = pprof__malloc(NULL, s->raw_len + 1); /* the profile frees it */
    if (!copy)
        return false;
    memcpy(copy, s->raw, s->raw_len);
    double t0 = now();
    pprof_profile *p = pprof__profile_new(NULL);
    pprof_status st = p ? pprof__decode(p, copy, s->raw_len, &s->ro, NULL) : PPROF_E_NOMEM;
    *t += now() - t0;
    if (!p)
        pprof__free(NULL, copy);
    else
        s->sink += p->samples.len;
    pprof_profile_free(p);
    return st == PPROF_OK;
}

#ifdef PPROF_BENCH_COLD
static bool
op_decode_cold(subject *s, double *t)
{
    pprof_allocator a = {cold_alloc, cold_realloc, cold_free, NULL};
    uint8_t *copy = cold_alloc(NULL, s->raw_len + 1);
    if (!copy)
        return false;
    memcpy(copy, s->raw, s->raw_len);
    pprof_read_options ro = s->ro;
    ro.allocator = a;
    double t0 = now();
    pprof_profile *p = pprof__profile_new(&a);
    pprof_status st = p ? pprof__decode(p, copy, s->raw_len, &ro, NULL) : PPROF_E_NOMEM;
    *t += now() - t0;
    if (!p)
        cold_free(NULL, copy);
    else
        s->sink += p->samples.len;
    pprof_profile_free(p);
    return st == PPROF_OK;
}
#endif

static bool
op_read(subject *s, double *t)
{
    pprof_profile *p;
    double t0 = now();
    pprof_status st = pprof_profile_read_memory(s->raw, s->raw_len, &s->ro, &p, NULL);
    *t += now() - t0;
    if (st == PPROF_OK)
        s->sink += p->samples.len;
    pprof_profile_free(p);
    return st == PPROF_OK;
}

static bool
op_read_gz(subject *s, double *t)
{
    pprof_profile *p;
    double t0 = now();
    pprof_status st = pprof_profile_read_memory(s->gz, s->gz_len, &s->ro, &p, NULL);
    *t += now() - t0;
    if (st == PPROF_OK)
        s->sink += p->samples.len;
    pprof_profile_free(p);
    return st == PPROF_OK;
}

static bool
op_pbc_unpack(subject *s, double *t)
{
    double t0 = now();
    Perftools__Profiles__Profile *m =
        perftools__profiles__profile__unpack(NULL, s->raw_len, s->raw);
    *t += now() - t0;
    if (!m)
        return false;
    s->sink += m->n_sample;
    perftools__profiles__profile__free_unpacked(m, NULL);
    return true;
}

static bool
op_pbc_pack(subject *s, double *t)
{
    if (!s->msg)
        return false;
    double t0 = now();
    size_t n = perftools__profiles__profile__get_packed_size(s->msg);
    uint8_t *b = malloc(n ? n : 1);
    size_t w = b ? perftools__profiles__profile__pack(s->msg, b) : 0;
    *t += now() - t0;
    free(b);
    s->sink += w;
    return b && w == n;
}

static bool
op_encode(subject *s, double *t)
{
    if (!s->prof)
        return false;
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_buffer b = {0};
    double t0 = now();
    pprof_status st = pprof_profile_write_memory(s->prof, &wo, &b, NULL);
    *t += now() - t0;
    s->sink += b.len;
    pprof_buffer_free(&b);
    return st == PPROF_OK;
}

static bool
op_deflate_c(subject *s, double *t)
{
    double t0 = now();
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t bound = c ? libdeflate_gzip_compress_bound(c, s->raw_len) : 0;
    uint8_t *o = c ? malloc(bound) : NULL;
    size_t n = o ? libdeflate_gzip_compress(c, s->raw, s->raw_len, o, bound) : 0;
    libdeflate_free_compressor(c);
    *t += now() - t0;
    free(o);
    s->sink += n;
    return n != 0;
}

static bool
op_deflate_d(subject *s, double *t)
{
    double t0 = now();
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t got = 0;
    enum libdeflate_result r =
        d ? libdeflate_gzip_decompress(d, s->gz, s->gz_len, s->scratch, s->raw_len, &got)
          : LIBDEFLATE_BAD_DATA;
    libdeflate_free_decompressor(d);
    *t += now() - t0;
    s->sink += got;
    return r == LIBDEFLATE_SUCCESS && got == s->raw_len;
}

#ifdef PPROF_BENCH_ZLIB
/* gzip with zlib: windowBits 15 + 16 selects the gzip wrapper. */
static size_t
zlib_gzip(const uint8_t *in, size_t len, uint8_t **out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    size_t bound = deflateBound(&z, (uLong)len);
    *out = malloc(bound);
    size_t n = 0;
    if (*out) {
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = (uInt)len;
        z.next_out = *out;
        z.avail_out = (uInt)bound;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END)
            n = z.total_out;
    }
    deflateEnd(&z);
    return n;
}

static bool
op_zlib_c(subject *s, double *t)
{
    uint8_t *o = NULL;
    double t0 = now();
    size_t n = zlib_gzip(s->raw, s->raw_len, &o);
    *t += now() - t0;
    free(o);
    s->sink += n;
    return n != 0;
}

static bool
op_zlib_d(subject *s, double *t)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    double t0 = now();
    bool ok = inflateInit2(&z, 15 + 16) == Z_OK;
    if (ok) {
        z.next_in = s->gz;
        z.avail_in = (uInt)s->gz_len;
        z.next_out = s->scratch;
        z.avail_out = (uInt)s->raw_len;
        ok = inflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out == s->raw_len;
        inflateEnd(&z);
    }
    *t += now() - t0;
    s->sink += z.total_out;
    return ok;
}
#endif

static bool
op_zstd_c(subject *s, double *t)
{
    size_t bound = ZSTD_compressBound(s->raw_len);
    double t0 = now();
    uint8_t *o = malloc(bound);
    size_t n = o ? ZSTD_compress(o, bound, s->raw, s->raw_len, 3) : 0;
    *t += now() - t0;
    free(o);
    s->sink += n;
    return o && !ZSTD_isError(n);
}

static bool
op_zstd_d(subject *s, double *t)
{
    double t0 = now();
    size_t n = ZSTD_decompress(s->scratch, s->raw_len, s->zs, s->zs_len);
    *t += now() - t0;
    s->sink += n;
    return !ZSTD_isError(n) && n == s->raw_len;
}

typedef struct op {
    const char *name;
    op_fn fn;
    const char *what;
} op;

static const op OPS[] = {
    {"walk", op_walk, "bare wire walk: every field and packed varint, bounds-checked, no stores"},
#ifdef PPROF_BENCH_WALK8
    {"walk8", op_walk8, "the walk with decode's word-at-a-time packed varints"},
#endif
    {"decode", op_decode, "pprof__decode: raw bytes -> model (input copy outside the timer)"},
#ifdef PPROF_BENCH_COLD
    {"dec-cold", op_decode_cold, "pprof__decode with every large block fresh from mmap"},
#endif
    {"read", op_read, "pprof_profile_read_memory on raw bytes (includes the input copy)"},
    {"pbc-un", op_pbc_unpack, "protobuf-c perftools__profiles__profile__unpack"},
    {"pbc-pk", op_pbc_pack, "protobuf-c get_packed_size + pack"},
    {"encode", op_encode, "pprof_profile_write_memory, raw (string table rebuilt)"},
    {"read-gz", op_read_gz, "pprof_profile_read_memory on libdeflate gzip: gunzip + decode"},
    {"ldf-c", op_deflate_c, "libdeflate gzip compress, level 6"},
    {"ldf-d", op_deflate_d, "libdeflate gzip decompress"},
#ifdef PPROF_BENCH_ZLIB
    {"zlib-c", op_zlib_c, "zlib gzip compress, level 6"},
    {"zlib-d", op_zlib_d, "zlib gzip decompress (the same libdeflate stream)"},
#endif
    {"zstd-c", op_zstd_c, "zstd compress, level 3"},
    {"zstd-d", op_zstd_d, "zstd decompress"},
};
#define N_OPS (sizeof(OPS) / sizeof(OPS[0]))

static size_t
op_index(const char *name)
{
    for (size_t k = 0; k < N_OPS; k++)
        if (strcmp(OPS[k].name, name) == 0)
            return k;
    return N_OPS;
}

/* ---------------------------------------------------------------- measuring */

typedef struct config {
    unsigned reps;
    double min_time;
    const char *gen_presets[16];
    unsigned n_presets;
    bool corpus_total_only;
    bool skip[32]; /* by index in OPS, from --ops */
} config;

_Static_assert(N_OPS <= 32, "config.skip has a flag for every operation");

/* Best seconds per run, or a negative value when the operation fails. */
static double
measure(subject *s, op_fn fn, const config *c)
{
    double t = 0;
    if (!fn(s, &t)) /* also a warm-up */
        return -1;
    unsigned long iters = 1;
    if (t < c->min_time)
        iters = (unsigned long)ceil(c->min_time / (t > 1e-7 ? t : 1e-7));
    double best = INFINITY;
    for (unsigned r = 0; r < c->reps; r++) {
        double total = 0;
        for (unsigned long i = 0; i < iters; i++)
            if (!fn(s, &total))
                return -1;
        if (total / (double)iters < best)
            best = total / (double)iters;
    }
    return best;
}

static bool
subject_prepare(subject *s)
{
    pprof_read_options_init(&s->ro);
    s->scratch = malloc(s->raw_len + 1);
    if (!s->scratch)
        return false;
    if (pprof_profile_read_memory(s->raw, s->raw_len, &s->ro, &s->prof, NULL) != PPROF_OK)
        s->prof = NULL;
    s->msg = perftools__profiles__profile__unpack(NULL, s->raw_len, s->raw);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    if (!c)
        return false;
    size_t bound = libdeflate_gzip_compress_bound(c, s->raw_len);
    s->gz = malloc(bound);
    if (s->gz)
        s->gz_len = libdeflate_gzip_compress(c, s->raw, s->raw_len, s->gz, bound);
    libdeflate_free_compressor(c);
#ifdef PPROF_BENCH_ZLIB
    uint8_t *z = NULL;
    s->gz_zlib_len = zlib_gzip(s->raw, s->raw_len, &z);
    free(z);
#endif
    bound = ZSTD_compressBound(s->raw_len);
    s->zs = malloc(bound);
    if (s->zs) {
        s->zs_len = ZSTD_compress(s->zs, bound, s->raw, s->raw_len, 3);
        if (ZSTD_isError(s->zs_len))
            s->zs_len = 0;
    }
    return s->gz && s->gz_len && s->zs && s->zs_len;
}

static void
subject_free(subject *s)
{
    pprof__free(NULL, s->raw);
    free(s->scratch);
    free(s->gz);
    free(s->zs);
    pprof_profile_free(s->prof);
    if (s->msg)
        perftools__profiles__profile__free_unpacked(s->msg, NULL);
    memset(s, 0, sizeof(*s));
}

typedef struct totals {
    double bytes;
    double secs[N_OPS];
    bool failed[N_OPS];
    double gz, gz_zlib, zs;
} totals;

static void
print_header(const config *c)
{
    printf("%-34s %9s", "profile", "raw KB");
    for (size_t k = 0; k < N_OPS; k++)
        if (!c->skip[k])
            printf(" %7s", OPS[k].name);
    printf(" %6s %6s %6s %6s %6s\n", "dec/wk", "dec/w8", "gz%", "zgz%", "zst%");
}

static void
print_row(const config *c, const char *name, double bytes, const double *secs, const bool *failed,
          double gz, double gz_zlib, double zs)
{
    printf("%-34.34s %9.1f", name, bytes / 1024);
    for (size_t k = 0; k < N_OPS; k++) {
        if (c->skip[k])
            continue;
        if (failed[k])
            printf(" %7s", "fail");
        else
            printf(" %7.0f", bytes / secs[k] / 1e6);
    }
    size_t dec = op_index("decode");
    const char *walks[] = {"walk", "walk8"};
    for (size_t w = 0; w < 2; w++) {
        size_t k = op_index(walks[w]);
        if (k < N_OPS && dec < N_OPS && !failed[k] && !failed[dec] && !c->skip[k] && !c->skip[dec])
            printf(" %6.2f", secs[k] / secs[dec]);
        else
            printf(" %6s", "-");
    }
    printf(" %6.1f %6.1f %6.1f\n", 100 * gz / bytes, gz_zlib ? 100 * gz_zlib / bytes : 0.0,
           100 * zs / bytes);
    fflush(stdout);
}

static void
bench_subject(subject *s, const config *c, totals *tot, bool print)
{
    double secs[N_OPS];
    bool failed[N_OPS];
    if (!subject_prepare(s)) {
        fprintf(stderr, "pprof-bench: %s: cannot prepare (out of memory?)\n", s->name);
        return;
    }
    for (size_t k = 0; k < N_OPS; k++) {
        secs[k] = c->skip[k] ? -1 : measure(s, OPS[k].fn, c);
        failed[k] = secs[k] < 0;
        if (tot) {
            tot->secs[k] += failed[k] ? 0 : secs[k];
            tot->failed[k] |= failed[k];
        }
    }
    if (tot) {
        tot->bytes += (double)s->raw_len;
        tot->gz += (double)s->gz_len;
        tot->gz_zlib += (double)s->gz_zlib_len;
        tot->zs += (double)s->zs_len;
    }
    if (print)
        print_row(c, s->name, (double)s->raw_len, secs, failed, (double)s->gz_len,
                  (double)s->gz_zlib_len, (double)s->zs_len);
}

/* ---------------------------------------------------------------- inputs */

static bool
load_file(const char *path, subject *s)
{
    pprof_read_options o;
    pprof_read_options_init(&o);
    uint8_t *data;
    size_t len;
    pprof_error err;
    if (pprof__read_all(path, o.max_input_bytes, NULL, &data, &len, &err) != PPROF_OK) {
        fprintf(stderr, "pprof-bench: %s: %s\n", path, err.message);
        return false;
    }
    pprof_format f = pprof_detect_format(data, len);
    pprof_status st = pprof__decompress(data, len, f, &o, &s->raw, &s->raw_len, &err);
    pprof__free(NULL, data);
    if (st != PPROF_OK) {
        fprintf(stderr, "pprof-bench: %s: %s\n", path, err.message);
        return false;
    }
    /* "parca/file": the producer stays visible without the whole path */
    const char *name = strrchr(path, '/');
    if (name && name > path)
        for (name--; name > path && name[-1] != '/'; name--)
            ;
    snprintf(s->name, sizeof(s->name), "%s", name ? name : path);
    return true;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

static bool
strlist_push(strlist *l, char *s)
{
    if (!s)
        return false;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, nc * sizeof(char *));
        if (!v) {
            free(s);
            return false;
        }
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n++] = s;
    return true;
}

static void
strlist_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* Files under path (recursively, sorted by name), or path itself. */
static bool
collect(const char *path, strlist *out)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "pprof-bench: %s: cannot stat\n", path);
        return false;
    }
    if (!S_ISDIR(sb.st_mode))
        return strlist_push(out, strdup(path));
    DIR *d = opendir(path);
    if (!d)
        return false;
    strlist names = {0};
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "SOURCES.txt") == 0 ||
            strstr(e->d_name, ".md"))
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(n);
        if (full)
            snprintf(full, n, "%s/%s", path, e->d_name);
        ok = strlist_push(&names, full);
    }
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof(char *), cmp_str);
    for (size_t i = 0; ok && i < names.n; i++)
        ok = collect(names.v[i], out);
    strlist_free(&names);
    return ok;
}

/* ---------------------------------------------------------------- main */

static const char USAGE[] =
    "usage: pprof-bench [options] [FILE|DIR...]\n"
    "Throughput (MB/s of uncompressed protobuf, best of --reps rounds) of the bare wire walk,\n"
    "libpprof decode/read/encode, protobuf-c unpack/pack, gzip (libdeflate, zlib) and zstd, on\n"
    "generated profiles and on real ones: FILE/DIR operands, else $PPROF_REAL_CORPUS.\n"
    "  --gen PRESET      generated profile to measure (repeatable; default: large);\n"
    "                    presets: small medium large deep labels host\n"
    "  --no-gen          no generated profiles\n"
    "  --no-corpus       no real profiles\n"
    "  --ops LIST        only these operations, comma-separated (names as in the table)\n"
    "  --totals-only     one aggregate row per corpus directory instead of one per file\n"
    "  --reps N          rounds per operation, best kept (default 5)\n"
    "  --min-ms N        least time per round in milliseconds (default 20)\n"
    "  -h, --help        this text\n";

/* "walk,decode": only these operations (walk and decode always come first in the table). */
static bool
select_ops(const char *list, config *c)
{
    for (size_t k = 0; k < N_OPS; k++)
        c->skip[k] = true;
    while (*list) {
        size_t n = strcspn(list, ",");
        bool found = false;
        for (size_t k = 0; k < N_OPS; k++)
            if (strlen(OPS[k].name) == n && strncmp(OPS[k].name, list, n) == 0)
                c->skip[k] = !(found = true);
        if (!found)
            return false;
        list += n + (list[n] == ',');
    }
    return true;
}

static int
usage(const char *msg, const char *arg)
{
    fprintf(stderr, "pprof-bench: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", USAGE);
    return 2;
}

static void
print_legend(const config *c)
{
    printf("# MB/s = 10^6 uncompressed protobuf bytes per second; best of %u rounds of >= %.0f "
           "ms each\n",
           c->reps, c->min_time * 1e3);
    for (size_t k = 0; k < N_OPS; k++)
        if (!c->skip[k])
            printf("#   %-8s %s\n", OPS[k].name, OPS[k].what);
#ifdef __GLIBC__
    printf("#   memory: glibc keeps freed memory (M_MMAP_MAX 0), so runs reuse warm pages\n");
#endif
    printf("#   %-8s walk time / decode time (the target is >= 1/1.3 = 0.77)\n", "dec/wk");
    printf("#   %-8s walk8 time / decode time\n", "dec/w8");
    printf("#   %-8s compressed size in %% of raw: libdeflate gzip 6, zlib gzip 6, zstd 3\n",
           "gz% ...");
#ifndef PPROF_BENCH_ZLIB
    printf("#   (zlib was not found at build time: no zlib columns)\n");
#endif
}

int
main(int argc, char **argv)
{
    config c = {.reps = 5, .min_time = 0.020};
#ifdef __GLIBC__
    /* Keep freed memory in the heap: repeated runs measure the code, not page faults. */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    bool gen = true, corpus = true;
    strlist paths = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(a, "--no-gen") == 0) {
            gen = false;
        } else if (strcmp(a, "--no-corpus") == 0) {
            corpus = false;
        } else if (strcmp(a, "--totals-only") == 0) {
            c.corpus_total_only = true;
        } else if (strcmp(a, "--gen") == 0 || strcmp(a, "--reps") == 0 ||
                   strcmp(a, "--min-ms") == 0 || strcmp(a, "--ops") == 0) {
            if (i + 1 >= argc)
                return usage("missing value for", a);
            const char *v = argv[++i];
            if (strcmp(a, "--ops") == 0) {
                if (!select_ops(v, &c))
                    return usage("unknown operation in", v);
            } else if (strcmp(a, "--gen") == 0) {
                pprof_gen_params p;
                if (!pprof_gen_preset(v, &p))
                    return usage("unknown preset", v);
                if (c.n_presets == sizeof(c.gen_presets) / sizeof(c.gen_presets[0]))
                    return usage("too many presets", NULL);
                c.gen_presets[c.n_presets++] = v;
            } else {
                char *end;
                long n = strtol(v, &end, 10);
                if (*end || n < 1 || n > 100000)
                    return usage("bad number", v);
                if (strcmp(a, "--reps") == 0)
                    c.reps = (unsigned)n;
                else
                    c.min_time = (double)n / 1e3;
            }
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option", a);
        } else if (!strlist_push(&paths, strdup(a))) {
            return 3;
        }
    }
    if (c.n_presets == 0)
        c.gen_presets[c.n_presets++] = "large";

    print_legend(&c);
    print_header(&c);
    int rc = 0;
    if (gen) {
        for (unsigned i = 0; i < c.n_presets; i++) {
            subject s;
            memset(&s, 0, sizeof(s));
            pprof_gen_params p;
            pprof_gen_preset(c.gen_presets[i], &p);
            pprof_buffer b = {0};
            pprof_error err;
            if (pprof_gen_raw(&p, &b, &err) != PPROF_OK) {
                fprintf(stderr, "pprof-bench: gen %s: %s\n", c.gen_presets[i], err.message);
                rc = 1;
                continue;
            }
            s.raw = b.data;
            s.raw_len = b.len;
            snprintf(s.name, sizeof(s.name), "gen:%s", c.gen_presets[i]);
            bench_subject(&s, &c, NULL, true);
            subject_free(&s);
        }
    }
    if (corpus && paths.n == 0) {
        const char *env = getenv("PPROF_REAL_CORPUS");
        if (env && *env && !strlist_push(&paths, strdup(env)))
            return 3;
    }
    for (size_t i = 0; corpus && i < paths.n; i++) {
        strlist files = {0};
        if (!collect(paths.v[i], &files)) {
            rc = 3;
            strlist_free(&files);
            continue;
        }
        /* One aggregate per operand: sum of bytes over sum of best times. */
        totals tot;
        memset(&tot, 0, sizeof(tot));
        for (size_t f = 0; f < files.n; f++) {
            subject s;
            memset(&s, 0, sizeof(s));
            if (!load_file(files.v[f], &s)) {
                rc = 1;
                continue;
            }
            bench_subject(&s, &c, &tot, !c.corpus_total_only);
            subject_free(&s);
        }
        if (files.n > 1) {
            char name[64];
            const char *base = strrchr(paths.v[i], '/');
            snprintf(name, sizeof(name), "TOTAL %s (%zu files)",
                     base && base[1] ? base + 1 : paths.v[i], files.n);
            print_row(&c, name, tot.bytes, tot.secs, tot.failed, tot.gz, tot.gz_zlib, tot.zs);
        }
        strlist_free(&files);
    }
    strlist_free(&paths);
    return rc;
}
