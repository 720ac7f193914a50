/* pprof -> OTLP -> pprof keeps the meaning of every profile in corpus/ and in the shared real
 * corpus: the header and mappings, and the values summed per sample key (canon.h: stacks with
 * every inlined frame, labels with units) of the input and of the profile read back are equal,
 * and the OTLP holds exactly one Profile per sample type. Sums, not samples: the writer is
 * sparse and the reader joins by key, which may merge two samples of one key. Files that do not
 * read as pprof (the corpus holds folded stacks, perf data and broken inputs too) are skipped. */
#include "../unit/testutil.h"
#include "canon.h"
#include "pprof/check.h"
#include "pprof/otlp.h"

/* Labels of one key with different units in one sample: an attribute has one unit, so this
 * cannot survive (docs/otlp.md); such profiles are only required to convert. */
static bool
mixed_units(const pprof_profile *p)
{
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        for (size_t j = 0; j < s.n_label; j++)
            for (size_t k = j + 1; k < s.n_label; k++)
                if (s.label[j].key == s.label[k].key &&
                    (s.label[j].num_unit != s.label[k].num_unit ||
                     !s.label[j].str != !s.label[k].str))
                    return true;
    }
    return false;
}

static void
one(tap *t, const char *path, const char *name, size_t *n_tested)
{
    pprof_profile *p = NULL;
    if (pprof_profile_read_file(path, NULL, &p, NULL) != PPROF_OK)
        return;
    (*n_tested)++;
    pprof_error err = {0};
    pprof_buffer b = {0};
    pprof_otlp *o = NULL;
    pprof_profile **back = NULL;
    size_t n = 0;
    const pprof_profile *const in[] = {p};
    bool ok = pprof_otlp_write_memory(in, 1, NULL, &b, &err) == PPROF_OK &&
              pprof_otlp_read_memory(b.data, b.len, NULL, &o, &err) == PPROF_OK &&
              pprof_otlp_to_pprof(o, &back, &n, &err) == PPROF_OK;
    bool valid = pprof_validate(p, NULL, NULL, 0, NULL, NULL) == PPROF_OK;
    if (!valid) {
        /* a profile that breaks a rule Go enforces is refused, with the finding's path */
        if (!tap_ok(t, !ok && err.code == PPROF_E_INVALID && err.path[0],
                    "%s: an invalid profile is refused with a path", name))
            tap_diag("%s: %s: %s", pprof_status_name(err.code), err.path, err.message);
    } else if (!ok) {
        tap_ok(t, 0, "%s: pprof -> OTLP -> pprof", name);
        tap_diag("%s: %s: %s", pprof_status_name(err.code), err.path, err.message);
    } else {
        size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
        bool count = pprof_otlp_profile_count(o) == nt && n == (nt ? 1 : 0);
        char why[1024] = "";
        bool same = !nt || (n && canon_equal_sums(p, back[0], why, sizeof(why))) || mixed_units(p);
        if (!tap_ok(t, count && same, "%s: same meaning after pprof -> OTLP -> pprof", name))
            tap_diag("%zu OTLP profiles, %zu pprof profiles back, %zu sample types: %s",
                     pprof_otlp_profile_count(o), n, nt, why);
    }
    pprof_otlp_profiles_free(back, n);
    pprof_otlp_free(o);
    pprof_buffer_free(&b);
    pprof_profile_free(p);
}

int
main(void)
{
    tap t = {0};
    tu_files fl = tu_corpus();
    const char *src = getenv("PPROF_SOURCE_ROOT");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/corpus", src ? src : ".");
    size_t n_real = fl.n;
    tu_walk(&fl, dir);
    size_t tested = 0;
    for (size_t i = 0; i < fl.n; i++)
        one(&t, fl.path[i], i < n_real ? tu_short(fl.path[i]) : fl.path[i] + strlen(dir) + 1,
            &tested);
    tap_ok(&t, tested >= 50, "%zu profiles round-tripped", tested);
    tu_files_free(&fl);
    return tap_done(&t);
}
