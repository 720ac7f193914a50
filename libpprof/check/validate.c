/* The library's one validity decision. A profile is valid when it breaks none of the rules Go's
 * pprof enforces when it reads one (rules.def's error-level W, R, PD and CV rules); everything
 * that computes from a profile (edit, reports, diff, folded output, merge) asks this file first,
 * so no path through the library reads a broken profile as if it meant something. The rules
 * themselves are the checker's (check-*.c): this file only chooses them and turns the first
 * finding into an error. */
#include "check-private.h"
#include "validate-private.h"

bool
pprof_rule_go_enforced(pprof_rule rule)
{
    if ((unsigned)rule >= PPROF_RULE_COUNT)
        return false;
    const pprof_rule_info *r = &pprof__rules[rule];
    const char *id = r->id;
    return r->severity == PPROF_SEVERITY_ERROR &&
           (id[0] == 'W' || id[0] == 'R' || (id[0] == 'P' && id[1] == 'D') ||
            (id[0] == 'C' && id[1] == 'V'));
}

typedef struct first_finding {
    pprof_error *err;
    const char *name;
    pprof_finding_fn fn;
    void *ctx;
    bool seen;
} first_finding;

/* The first finding becomes the error; every finding goes on to the caller's callback. */
static bool
take_finding(void *ctx, const pprof_finding *f)
{
    first_finding *ff = ctx;
    if (!ff->seen) {
        ff->seen = true;
        if (ff->name)
            pprof__error(ff->err, PPROF_E_INVALID, f->offset, f->path, "%.100s: %s [%s]", ff->name,
                         f->message, f->rule_id);
        else
            pprof__error(ff->err, PPROF_E_INVALID, f->offset, f->path, "%s [%s]", f->message,
                         f->rule_id);
    }
    return ff->fn ? ff->fn(ff->ctx, f) : false;
}

/* The checker's state with only the Go-enforced rules on. W8 is on only when the reader was
 * told to let concatenated profiles through: otherwise the decoder refused them already, and
 * the scan of the wire bytes it needs would be wasted. */
static void
start(chk *k, bool *enabled, const pprof_profile *p, uint64_t max, first_finding *ff,
      pprof_check_summary *sum)
{
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        enabled[r] = pprof_rule_go_enforced((pprof_rule)r);
    enabled[PPROF_RULE_W8_CONCATENATED] = (p->relax & PPROF_RELAX_CONCATENATED) != 0;
    pprof_check_options co = PPROF_CHECK_OPTIONS_INIT;
    co.enabled = enabled;
    co.n_enabled = PPROF_RULE_COUNT;
    co.max_findings = max ? max : 1;
    memset(k, 0, sizeof(*k));
    pprof__ck_init(&k->c, &co, take_finding, ff, sum);
    k->p = p;
    k->a = &k->p->alloc;
    k->nstr = p->strings.len;
    k->implicit_empty = k->nstr == 0;
}

static pprof_status
tables(chk *k)
{
    const pprof_profile *p = k->p;
    pprof_status st = PPROF_E_NOMEM;
    k->str_used = pprof__malloc(k->a, k->nstr + 1);
    k->map_used = pprof__malloc(k->a, p->mappings.len + 1);
    k->loc_used = pprof__malloc(k->a, p->locations.len + 1);
    k->fn_used = pprof__malloc(k->a, p->functions.len + 1);
    /* the wire first: two profiles read as one also repeat each other's ids, and W8 says why */
    pprof__check_wire(k);
    if (k->str_used && k->map_used && k->loc_used && k->fn_used &&
        !(st = pprof__check_strings(k)) && !(st = pprof__check_mappings(k)) &&
        !(st = pprof__check_functions(k)) && !(st = pprof__check_locations(k)))
        st = pprof__check_header(k);
    pprof__free(k->a, k->str_used);
    pprof__free(k->a, k->map_used);
    pprof__free(k->a, k->loc_used);
    pprof__free(k->a, k->fn_used);
    k->str_used = k->map_used = k->loc_used = k->fn_used = NULL;
    return st;
}

static pprof_status
nomem(pprof_error *err)
{
    return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

pprof_status
pprof__validate_part(const pprof_profile *p, int parts, size_t first, const char *name,
                     pprof_error *err)
{
    if (pprof__profile_index(p, NULL))
        return nomem(err);
    bool enabled[PPROF_RULE_COUNT];
    first_finding ff = {err, name, NULL, NULL, false};
    chk k;
    start(&k, enabled, p, 1, &ff, NULL);
    k.sample_base = first;
    pprof_status st = PPROF_OK;
    if (parts & PPROF__VALIDATE_TABLES) {
        st = tables(&k);
        if (p->lazy.len) /* the samples not decoded yet count too */
            pprof__check_sample_types(&k, p->lazy.len / 2);
    }
    if (!st && !ff.seen && (parts & PPROF__VALIDATE_SAMPLES))
        st = pprof__check_samples(&k);
    if (st)
        return nomem(err);
    return ff.seen ? PPROF_E_INVALID : PPROF_OK;
}

pprof_status
pprof__validate(const pprof_profile *p, const char *name, pprof_error *err)
{
    pprof_profile *w = (pprof_profile *)p;
    /* The verdict is a cache like the id index (same thread rule): a profile does not change
     * once read or built. A merge input's sample table holds one batch, so its verdict is not
     * kept. */
    if (atomic_load_explicit(&w->valid, memory_order_acquire))
        return PPROF_OK;
    pprof_status st =
        pprof__validate_part(p, PPROF__VALIDATE_TABLES | PPROF__VALIDATE_SAMPLES, 0, name, err);
    if (!st && !p->lazy.len)
        atomic_store_explicit(&w->valid, true, memory_order_release);
    return st;
}

static pprof_status
validate_full(const pprof_profile *p, pprof_finding_fn fn, void *ctx, uint64_t max_findings,
              pprof_check_summary *summary, pprof_error *err)
{
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    if (!p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile");
    /* a verdict kept (pprof__validate) holds for every caller: the same rules found nothing */
    if ((!fn && !summary) ||
        atomic_load_explicit(&((pprof_profile *)p)->valid, memory_order_acquire))
        return pprof__validate(p, NULL, err);
    if (pprof__profile_index(p, NULL))
        return nomem(err);
    bool enabled[PPROF_RULE_COUNT];
    first_finding ff = {err, NULL, fn, ctx, false};
    chk k;
    start(&k, enabled, p, max_findings, &ff, summary);
    pprof_status st = tables(&k);
    if (!st)
        st = pprof__check_samples(&k);
    if (st)
        return nomem(err);
    if (ff.seen || (summary && summary->count[PPROF_SEVERITY_ERROR]))
        return PPROF_E_INVALID;
    if (!p->lazy.len) /* the entry points called next need not look again */
        atomic_store_explicit(&((pprof_profile *)p)->valid, true, memory_order_release);
    return PPROF_OK;
}

pprof_status
pprof_validate(const pprof_profile *p, pprof_finding_fn fn, void *ctx, uint64_t max_findings,
               pprof_check_summary *summary, pprof_error *err)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    pprof_status r = validate_full(p, fn, ctx, max_findings, sum, err);
    pprof__sum_out(summary, sum);
    return r;
}
