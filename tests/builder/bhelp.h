/* Helpers for the builder tests: decode builder output and check the structural rules Go's
 * CheckValid enforces (plus a few strict ones), and run pprof_check when the library has it. */
#ifndef PPROF_TESTS_BHELP_H
#define PPROF_TESTS_BHELP_H

#include <stdio.h>
#include <string.h>

#include "pprof/builder.h"
#include "tap.h"

#ifdef PPROF_HAVE_CHECK
#include "pprof/check.h"
#endif

/* Returns NULL on success, else a static description of the first problem. Checks: sample
 * types present, value count, every location/function/mapping id resolves, ids dense 1..n,
 * no empty location, every string index valid. */
static inline const char *
bhelp_validate(const pprof_profile *p)
{
    size_t nst = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    size_t ns = pprof_profile_count(p, PPROF_TABLE_SAMPLE);
    size_t nl = pprof_profile_count(p, PPROF_TABLE_LOCATION);
    size_t nf = pprof_profile_count(p, PPROF_TABLE_FUNCTION);
    size_t nm = pprof_profile_count(p, PPROF_TABLE_MAPPING);
    if (ns && !nst)
        return "samples without sample types";
    for (size_t i = 0; i < nst; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        if (!pprof_profile_string(p, vt.type, NULL) || !pprof_profile_string(p, vt.unit, NULL))
            return "sample type string out of range";
    }
    for (size_t i = 0; i < ns; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        if (s.n_value != nst)
            return "value count differs from sample types";
        for (size_t j = 0; j < s.n_location_id; j++)
            if (s.location_id[j] == 0 || s.location_id[j] > nl)
                return "sample location id does not resolve";
        for (size_t j = 0; j < s.n_label; j++)
            if (!s.label[j].key || !pprof_profile_string(p, s.label[j].key, NULL) ||
                !pprof_profile_string(p, s.label[j].str, NULL) ||
                !pprof_profile_string(p, s.label[j].num_unit, NULL))
                return "bad label";
    }
    for (size_t i = 0; i < nm; i++) {
        pprof_mapping m = pprof_profile_mapping(p, i);
        if (m.id != i + 1)
            return "mapping ids not dense";
        if (m.memory_limit < m.memory_start)
            return "mapping limit below start";
        if (!pprof_profile_string(p, m.filename, NULL) ||
            !pprof_profile_string(p, m.build_id, NULL))
            return "mapping string out of range";
    }
    for (size_t i = 0; i < nl; i++) {
        pprof_location l = pprof_profile_location(p, i);
        if (l.id != i + 1)
            return "location ids not dense";
        if (l.mapping_id > nm)
            return "location mapping id does not resolve";
        if (!l.address && !l.n_line)
            return "empty location";
        for (size_t j = 0; j < l.n_line; j++)
            if (l.line[j].function_id == 0 || l.line[j].function_id > nf)
                return "line function id does not resolve";
    }
    for (size_t i = 0; i < nf; i++) {
        pprof_function f = pprof_profile_function(p, i);
        if (f.id != i + 1)
            return "function ids not dense";
        if (!pprof_profile_string(p, f.name, NULL) ||
            !pprof_profile_string(p, f.system_name, NULL) ||
            !pprof_profile_string(p, f.filename, NULL))
            return "function string out of range";
    }
    return NULL;
}

#ifdef PPROF_HAVE_CHECK
static inline bool
bhelp_print_finding(void *ctx, const pprof_finding *f)
{
    (void)ctx;
    printf("# pprof_check: %s %s at %s: %s\n", pprof_severity_name(f->severity), f->rule_id,
           f->path, f->message);
    return true;
}
#endif

/* Decodes bytes (any container), validates, runs pprof_check (errors and warnings count as a
 * failure). Returns the profile or NULL after printing why. */
static inline pprof_profile *
bhelp_decode(const void *data, size_t len)
{
    pprof_profile *p = NULL;
    pprof_error e;
    if (pprof_profile_read_memory(data, len, NULL, &p, &e) != PPROF_OK) {
        printf("# decode failed: %s: %s\n", e.path, e.message);
        return NULL;
    }
    const char *why = bhelp_validate(p);
    if (why) {
        printf("# invalid: %s\n", why);
        pprof_profile_free(p);
        return NULL;
    }
#ifdef PPROF_HAVE_CHECK
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    if (pprof_check(p, NULL, bhelp_print_finding, NULL, &sum, &e) != PPROF_OK ||
        sum.count[PPROF_SEVERITY_ERROR] || sum.count[PPROF_SEVERITY_WARNING]) {
        printf("# pprof_check: %llu errors, %llu warnings\n",
               (unsigned long long)sum.count[PPROF_SEVERITY_ERROR],
               (unsigned long long)sum.count[PPROF_SEVERITY_WARNING]);
        pprof_profile_free(p);
        return NULL;
    }
#endif
    return p;
}

/* Sum of value[k] over all samples. */
static inline int64_t
bhelp_total(const pprof_profile *p, size_t k)
{
    int64_t t = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++)
        t += pprof_profile_sample(p, i).value[k];
    return t;
}

static inline bool
bhelp_str_is(const pprof_profile *p, int64_t idx, const char *want)
{
    pprof_string s;
    return pprof_profile_string(p, idx, &s) && s.len == strlen(want) &&
           memcmp(s.data, want, s.len) == 0;
}

/* Name of the function of the first line of location id (1-based), or "" */
static inline pprof_string
bhelp_loc_name(const pprof_profile *p, uint64_t loc_id)
{
    pprof_string s = {"", 0};
    size_t li, fi;
    if (!pprof_profile_find_location(p, loc_id, &li))
        return s;
    pprof_location l = pprof_profile_location(p, li);
    if (!l.n_line || !pprof_profile_find_function(p, l.line[0].function_id, &fi))
        return s;
    pprof_profile_string(p, pprof_profile_function(p, fi).name, &s);
    return s;
}

#endif
