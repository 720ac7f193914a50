/* The strict checker's entry points. One pass per table over flat arrays (check-*.c); hash
 * tables only where a rule needs grouping (S1, S7 duplicates). Findings are counted always and
 * formatted only while under the caller's limit, so a profile with millions of broken entries
 * costs no more than a clean one. */
#include <stdlib.h>

#include "check-private.h"

int
pprof__cmp_u64pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* ---------------------------------------------------------------- entry points */

static pprof_status
check_full(const pprof_profile *p, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
           pprof_check_summary *summary, pprof_error *err)
{
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    if (!p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile");
    chk k = {0};
    pprof__ck_init(&k.c, opts, fn, ctx, summary);
    k.p = p;
    k.a = &p->alloc;
    k.nstr = p->strings.len;
    k.implicit_empty = k.nstr == 0;
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    k.str_used = pprof__malloc(k.a, k.nstr + 1);
    k.map_used = pprof__malloc(k.a, p->mappings.len + 1);
    k.loc_used = pprof__malloc(k.a, p->locations.len + 1);
    k.fn_used = pprof__malloc(k.a, p->functions.len + 1);
    if (!k.str_used || !k.map_used || !k.loc_used || !k.fn_used) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    memset(k.str_used, 0, k.nstr + 1);
    memset(k.map_used, 0, p->mappings.len + 1);
    memset(k.loc_used, 0, p->locations.len + 1);
    memset(k.fn_used, 0, p->functions.len + 1);
    if ((st = pprof__check_strings(&k)) || (st = pprof__check_mappings(&k)) ||
        (st = pprof__check_functions(&k)) || (st = pprof__check_locations(&k)) ||
        (st = pprof__check_samples(&k)) || (st = pprof__check_header(&k)))
        goto out;
    pprof__check_unused(&k);
    pprof__check_wire(&k);
out:
    pprof__free(k.a, k.str_used);
    pprof__free(k.a, k.map_used);
    pprof__free(k.a, k.loc_used);
    pprof__free(k.a, k.fn_used);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return st;
}

bool
pprof_check_read_error_rule(const pprof_error *e, pprof_rule *out)
{
    pprof_rule r;
    if (!e)
        return false;
    switch (e->code) {
    case PPROF_E_EMPTY: r = PPROF_RULE_W7_EMPTY; break;
    case PPROF_E_COMPRESSION:
    case PPROF_E_UNSUPPORTED: r = PPROF_RULE_R1_COMPRESSION; break;
    case PPROF_E_LIMIT: r = PPROF_RULE_R2_LIMIT; break;
    case PPROF_E_WIRE: {
        /* The decoder's messages are fixed strings of this library; classify by them. */
        const char *m = e->message;
        bool group = strstr(m, "group") || strstr(m, "wire type 6") || strstr(m, "wire type 7");
        /* "not a pprof profile (...): " may come first (decode.c) */
        const char *colon = strncmp(m, "not a pprof profile", 19) == 0 ? strstr(m, "): ") : NULL;
        if (colon)
            m = colon + 3;
        if (strncmp(m, "type mismatch", 13) == 0)
            r = group ? PPROF_RULE_W4_BAD_WIRE_TYPE : PPROF_RULE_W5_TYPE_MISMATCH;
        else if (strncmp(m, "declared length", 15) == 0)
            r = PPROF_RULE_W2_BAD_LENGTH;
        else if (strncmp(m, "unknown field", 13) == 0)
            r = group                           ? PPROF_RULE_W4_BAD_WIRE_TYPE
                : strstr(m, "fixed")            ? PPROF_RULE_W3_TRUNCATED_FIXED
                : strstr(m, "length-delimited") ? PPROF_RULE_W2_BAD_LENGTH
                                                : PPROF_RULE_W1_BAD_VARINT;
        else
            r = PPROF_RULE_W1_BAD_VARINT;
        break;
    }
    case PPROF_E_INVALID: /* the decoder refuses these two rules unless relaxed */
        if (strstr(e->message, "W6-string-table-0"))
            r = PPROF_RULE_W6_STRING_TABLE_0;
        else if (strstr(e->message, "W8-concatenated"))
            r = PPROF_RULE_W8_CONCATENATED;
        else
            return false;
        break;
    default: return false;
    }
    if (out)
        *out = r;
    return true;
}

pprof_status
pprof_check(const pprof_profile *p, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
            pprof_check_summary *summary, pprof_error *err)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    pprof_status r = check_full(p, opts, fn, ctx, sum, err);
    pprof__sum_out(summary, sum);
    return r;
}
