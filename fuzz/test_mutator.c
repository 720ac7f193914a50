/* Self-test of the fuzzing helpers, run over the kept seeds: the raw emitter reproduces every
 * decodable seed in each wire variant, and the structure-aware mutator stays within max_size,
 * changes its input, and mostly produces profiles that still decode (otherwise it would only
 * be a slow byte mutator). */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "mutator.h"
#include "tap.h"

static uint8_t *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

typedef struct totals {
    int seeds, rounds, decoded, changed;
} totals;

/* Returns whether the seed decoded (and was used). */
static bool
one_seed(tap *t, totals *tot, const char *path)
{
    size_t len;
    uint8_t *data = slurp(path, &len);
    if (!data) {
        tap_ok(t, false, "read %s", path);
        return false;
    }
    pprof_read_options o = fuzz_read_options();
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, len, &o, &p, NULL) != PPROF_OK) {
        free(data);
        return false; /* seeds for the wire parser may be invalid on purpose */
    }
    bool emit_ok = true;
    for (unsigned flags = 0; flags < 16; flags++) {
        pprof_buffer b = {0};
        pprof_profile *q = NULL;
        if (fuzz_emit_raw(p, flags, &b) != PPROF_OK ||
            (b.len && pprof_profile_read_memory(b.data, b.len, NULL, &q, NULL) != PPROF_OK) ||
            (b.len && !pprof_profile_equal(p, q))) {
            tap_diag("emit flags %u differ", flags);
            emit_ok = false;
        }
        pprof_profile_free(q);
        pprof_buffer_free(&b);
    }
    tap_ok(t, emit_ok, "raw emitter reproduces %s in all 16 variants", path);

    enum { ROUNDS = 100 };
    size_t max = len * 2 + 4096;
    uint8_t *buf = malloc(max);
    int decoded = 0, changed = 0, too_big = 0;
    fuzz_rng bytes_rng = {42};
    for (int i = 0; i < ROUNDS && buf; i++) {
        memcpy(buf, data, len);
        size_t n = fuzz_mutate(buf, len, max, (uint64_t)i * 7919, fuzz_mutate_bytes, &bytes_rng);
        if (n > max)
            too_big++;
        if (n != len || memcmp(buf, data, len) != 0)
            changed++;
        pprof_profile *q = NULL;
        if (pprof_profile_read_memory(buf, n, &o, &q, NULL) == PPROF_OK)
            decoded++;
        pprof_profile_free(q);
    }
    tap_ok(t, buf && too_big == 0, "mutator stays within max_size on %s", path);
    tot->seeds++;
    tot->rounds += ROUNDS;
    tot->decoded += decoded;
    tot->changed += changed;
    free(buf);
    pprof_profile_free(p);
    free(data);
    return true;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every decodable seed of the given directories, up to MAX_SEEDS each (the kept corpora grow
 * with fuzzing; a sample keeps the test fast). The mutator's rates are judged over all of
 * them: single minimized seeds can be degenerate (an empty profile has little to mutate). */
int
main(int argc, char **argv)
{
    enum { MAX_SEEDS = 12 };
    tap t = {0, 0};
    totals tot = {0, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d)
            continue;
        char *names[4096];
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < 4096)
            if (e->d_name[0] != '.')
                names[n++] = strdup(e->d_name);
        closedir(d);
        qsort(names, n, sizeof(char *), by_name);
        int used = 0;
        for (size_t k = 0; k < n; k++) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]);
            if (used < MAX_SEEDS && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                used += one_seed(&t, &tot, path);
            free(names[k]);
        }
    }
    tap_ok(&t, tot.seeds > 0, "%d decodable seeds", tot.seeds);
    tap_ok(&t, tot.changed >= tot.rounds / 2, "mutator changed %d of %d inputs", tot.changed,
           tot.rounds);
    tap_ok(&t, tot.decoded >= tot.rounds / 3, "%d of %d mutants decode", tot.decoded, tot.rounds);
    return tap_done(&t);
}
