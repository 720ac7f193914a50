/* The legacy readers (pprof/legacy.h): every seed of corpus/legacy reads into a valid profile
 * with the family's sample types and period, through pprof_legacy_read_memory and through the
 * tools' read path (the readers table); the CPU profile's every truncation is refused (its
 * trailer is required: no silent partial profile); truncations and byte flips of every seed
 * give a profile or a coded error with a message, never a crash; the options' limits hold. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "formats.h"
#include "legacy.h"
#include "tap.h"

static unsigned char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *b = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n == cap && !(b = realloc(b, cap = cap ? 2 * cap : 4096)))
            break;
        k = fread(b + n, 1, cap - n, f);
        n += k;
    } while (k);
    fclose(f);
    *len = n;
    return b;
}

typedef struct seed {
    const char *file;
    const char *types; /* "type/unit,type/unit" */
    const char *period_type;
    int64_t period;
    bool binary;
} seed;

static const seed seeds[] = {
    {"gperftools-cpu.prof", "samples/count,cpu/nanoseconds", "cpu/nanoseconds", 4000000, true},
    {"gperftools-cpu-32be.prof", "samples/count,cpu/nanoseconds", "cpu/nanoseconds", 10000000,
     true},
    {"tcmalloc-heap.heap",
     "alloc_objects/count,alloc_space/bytes,inuse_objects/count,inuse_space/bytes", "space/bytes",
     1, false},
    {"tcmalloc-heapz-v2.heap",
     "alloc_objects/count,alloc_space/bytes,inuse_objects/count,inuse_space/bytes", "space/bytes",
     524288, false},
    {"tcmalloc-heap-v1.heap", "objects/count,space/bytes", "space/bytes", 524288, false},
    {"tcmalloc-growth.heap", "objects/count,space/bytes", "space/bytes", 1, false},
    {"contention.prof", "contentions/count,delay/nanoseconds", "contentions/count", 100, false},
    {"threadz.prof", "thread/count", "thread/count", 1, false},
    {"goroutine-count.txt", "goroutine/count", "goroutine/count", 1, false},
    {"java-cpu.prof", "samples/count,cpu/nanoseconds", "cpu/nanoseconds", 10000000, true},
    {"java-heap.prof", "inuse_objects/count,inuse_space/bytes", "/", 0, false},
    {"java-contention.prof", "contentions/count,delay/microseconds", "contentions/count", 100,
     false},
};

static void
str(const pprof_profile *p, int64_t i, char *out, size_t cap)
{
    pprof_string s = {0};
    pprof_profile_string(p, i, &s);
    snprintf(out, cap, "%.*s", (int)s.len, s.data ? s.data : "");
}

static void
describe(const pprof_profile *p, char *types, size_t cap, char *pt, size_t ptcap)
{
    types[0] = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE); i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        char t[64], u[64];
        str(p, vt.type, t, sizeof(t));
        str(p, vt.unit, u, sizeof(u));
        size_t n = strlen(types);
        snprintf(types + n, cap - n, "%s%s/%s", i ? "," : "", t, u);
    }
    pprof_header h = pprof_profile_header(p);
    char t[64], u[64];
    str(p, h.period_type.type, t, sizeof(t));
    str(p, h.period_type.unit, u, sizeof(u));
    snprintf(pt, ptcap, "%s/%s", t, u);
}

static int64_t
total(const pprof_profile *p)
{
    int64_t sum = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++)
        sum += pprof_profile_sample(p, i).value[0];
    return sum;
}

/* A read of b[0..n): a valid profile (its total of the first value in *sum) or a coded error. */
static bool
read_ok_or_coded(const unsigned char *b, size_t n, bool *ok, int64_t *sum)
{
    pprof_profile *p = NULL;
    pprof_error err;
    pprof_status st = pprof_legacy_read_memory(b, n, NULL, &p, &err);
    *ok = st == PPROF_OK;
    bool good = st == PPROF_OK ? p && pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK
                               : !p && err.code == st && err.message[0];
    if (*ok)
        *sum = total(p);
    pprof_profile_free(p);
    return good;
}

int
main(void)
{
    tap t = {0, 0};
    const char *src = getenv("PPROF_SOURCE_ROOT");
    char path[4096];
    pprof_legacy_read_options o = PPROF_LEGACY_READ_OPTIONS_INIT, oi;
    pprof_legacy_read_options_init(&oi);
    tap_ok(&t, !memcmp(&o, &oi, sizeof(o)) && o.struct_size == sizeof(o),
           "PPROF_LEGACY_READ_OPTIONS_INIT equals pprof_legacy_read_options_init");
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        const seed *s = &seeds[i];
        snprintf(path, sizeof(path), "%s/corpus/legacy/%s", src ? src : ".", s->file);
        size_t n = 0;
        unsigned char *b = slurp(path, &n);
        if (!tap_ok(&t, b != NULL, "%s: read the seed", s->file))
            continue;
        tap_ok(&t, pprof_legacy_detect(b, n), "%s: detected as legacy", s->file);
        pprof_profile *p = NULL;
        pprof_error err;
        pprof_status st = pprof_legacy_read_file(path, NULL, &p, &err);
        if (tap_ok(&t, st == PPROF_OK, "%s: reads (%s)", s->file, st ? err.message : "ok")) {
            char types[256], pt[128];
            describe(p, types, sizeof(types), pt, sizeof(pt));
            pprof_header h = pprof_profile_header(p);
            tap_ok(&t,
                   !strcmp(types, s->types) && !strcmp(pt, s->period_type) && h.period == s->period,
                   "%s: types %s, period %s %lld", s->file, types, pt, (long long)h.period);
            tap_ok(&t, pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK,
                   "%s: the profile is valid", s->file);
        }
        pprof_profile_free(p);
        /* the read path every tool takes */
        pprof_read_options ro;
        pprof_read_options_init(&ro);
        ro.readers = pprof_formats_readers();
        p = NULL;
        st = pprof_profile_read_memory(b, n, &ro, &p, &err);
        tap_ok(&t, st == PPROF_OK, "%s: read through pprof_formats_readers() (%s)", s->file,
               st ? err.message : "ok");
        pprof_profile_free(p);
        /* truncations: every length; the binary ones hold their samples whole or are
         * refused (the trailer is required), whatever of the text after it is cut */
        bool all_good = true, partial = false;
        int64_t full = 0, sum = 0;
        bool ok;
        read_ok_or_coded(b, n, &ok, &full);
        for (size_t k = 0; k < n; k++) {
            all_good = all_good && read_ok_or_coded(b, k, &ok, &sum);
            partial = partial || (s->binary && ok && sum != full);
        }
        tap_ok(&t, all_good, "%s: every truncation reads or is refused with a coded error",
               s->file);
        if (s->binary)
            tap_ok(&t, !partial, "%s: no truncation reads fewer samples", s->file);
        /* byte flips */
        all_good = true;
        size_t step = n > 4096 ? n / 4096 : 1;
        for (size_t k = 0; k < n; k += step)
            for (int m = 0; m < 3; m++) {
                static const unsigned char masks[] = {0x01, 0x80, 0xff};
                b[k] ^= masks[m];
                all_good = all_good && read_ok_or_coded(b, n, &ok, &sum);
                b[k] ^= masks[m];
            }
        tap_ok(&t, all_good, "%s: every byte flip reads or is refused with a coded error", s->file);
        free(b);
    }
    /* limits */
    {
        snprintf(path, sizeof(path), "%s/corpus/legacy/gperftools-cpu.prof", src ? src : ".");
        pprof_legacy_read_options lo = PPROF_LEGACY_READ_OPTIONS_INIT;
        lo.max_samples = 2;
        pprof_profile *p = NULL;
        pprof_error err;
        tap_ok(&t, pprof_legacy_read_file(path, &lo, &p, &err) == PPROF_E_LIMIT && !p,
               "max_samples is a limit");
        lo.max_samples = 0;
        lo.max_mappings = 1;
        tap_ok(&t, pprof_legacy_read_file(path, &lo, &p, &err) == PPROF_E_LIMIT && !p,
               "max_mappings is a limit");
    }
    /* hand-made refusals */
    {
        static const char *const bad[] = {
            "heap profile: 1: 2 [ 1: 2] @ heap_v2/524288\n1: 2 [1: 2] @ 0x10000000000000000\n",
            "heap profile: 1: 2 [ 1: 2] @ heap_v2/524288\n0: 5 [0: 0] @ 0x1\n",
            "--- contentionz 1 ---\ncycles/second = 1000\n1 2 @ 0x1\nnot a sample\n",
            "goroutine profile: total 1\n1 @ 0xzz\n",
            "not any profile\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            pprof_profile *p = NULL;
            pprof_error err;
            pprof_status st = pprof_legacy_read_memory(bad[i], strlen(bad[i]), NULL, &p, &err);
            tap_ok(&t, st == PPROF_E_INVALID && !p && err.message[0],
                   "refused: hand-made input %zu (%s)", i, err.message);
        }
    }
    return tap_done(&t);
}
