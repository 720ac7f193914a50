/* pprof_check_path: one file checked the way pprof-check checks it, pprof or a format of the
 * readers given, with bytes
 * that do not decode reported as the finding of the rule they break. */
#include <stddef.h>
#include <string.h>

#include "check-private.h"
#include "memory-private.h"

/* Adds one call's summary to the caller's. */
static void
sum_add(pprof_check_summary *to, const pprof_check_summary *s)
{
    if (!to)
        return;
    for (int i = 0; i < 3; i++)
        to->count[i] += s->count[i];
    to->reported += s->reported;
    to->truncated |= s->truncated;
}

/* A failed pprof read as the finding of its W or R rule; false for errors about no content. */
static bool
check_read_error_full(const pprof_error *e, const pprof_check_options *opts, pprof_finding_fn fn,
                      void *ctx, pprof_check_summary *summary)
{
    pprof_rule r;
    if (!pprof_check_read_error_rule(e, &r))
        return false;
    pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
    pprof__ck c;
    pprof__ck_init(&c, opts, fn, ctx, &s);
    if (pprof__ck_take(&c, r))
        pprof__ck_emit(&c, r, e->offset, e->path, e->message);
    sum_add(summary, &s);
    return true;
}

static pprof_status
check_path_full(const char *path, const pprof_check_options *opts, pprof_inline_index *idx,
                pprof_finding_fn fn, void *ctx, pprof_check_summary *summary, bool *decoded,
                pprof_error *err)
{
    pprof_error scratch;
    bool dec_scratch;
    err = err ? err : &scratch;
    decoded = decoded ? decoded : &dec_scratch;
    *decoded = false;
    if (summary)
        *summary = (pprof_check_summary)PPROF_CHECK_SUMMARY_INIT;
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    /* Reporting only: read what the decoder would refuse, so the findings name it. */
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    ro.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = pprof__read_all(path, ro.max_input_bytes, &ro.allocator, &buf, &len, err);
    if (st)
        return pprof_check_read_error(err, opts, fn, ctx, summary) ? PPROF_OK : st;
    const pprof_reader *const *readers =
        opts && opts->struct_size >= offsetof(pprof_check_options, readers) + sizeof(readers)
            ? opts->readers
            : NULL;
    ro.readers = readers;
    const pprof_reader *r = pprof__reader_for_path(readers, path);
    if (!r)
        r = pprof__reader_for_data(readers, buf, len);
    if (r && r->check) {
        pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
        st = r->check(buf, len, opts, fn, ctx, &s, decoded, err);
        sum_add(summary, &s);
        pprof__free(&ro.allocator, buf);
        return st;
    }
    /* Not another format's own check: a file is read again by the reader, which keeps a raw one
     * without a copy (the page cache makes the second read cheap); standard input from the bytes.
     */
    pprof_profile *p = NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    st = is_stdin ? pprof_profile_read_memory(buf, len, &ro, &p, err) : PPROF_OK;
    pprof__free(&ro.allocator, buf);
    if (!st && !is_stdin)
        st = pprof_profile_read_file(path, &ro, &p, err);
    if (st)
        return pprof_check_read_error(err, opts, fn, ctx, summary) ? PPROF_OK : st;
    *decoded = true;
    pprof_check_summary s = PPROF_CHECK_SUMMARY_INIT;
    st = pprof_check(p, opts, fn, ctx, &s, err);
    sum_add(summary, &s);
    if (!st && idx) {
        pprof_check_summary s2 = PPROF_CHECK_SUMMARY_INIT;
        st = pprof_inline_index_add(idx, p, path, opts, fn, ctx, &s2, err);
        sum_add(summary, &s2);
    }
    pprof_profile_free(p);
    return st;
}

bool
pprof_check_read_error(const pprof_error *e, const pprof_check_options *opts, pprof_finding_fn fn,
                       void *ctx, pprof_check_summary *summary)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    bool r = check_read_error_full(e, opts, fn, ctx, sum);
    pprof__sum_out(summary, sum);
    return r;
}

pprof_status
pprof_check_path(const char *path, const pprof_check_options *opts, pprof_inline_index *idx,
                 pprof_finding_fn fn, void *ctx, pprof_check_summary *summary, bool *decoded,
                 pprof_error *err)
{
    pprof_check_summary local = PPROF_CHECK_SUMMARY_INIT;
    pprof_check_summary *sum = pprof__sum_in(&local, summary);
    pprof_status r = check_path_full(path, opts, idx, fn, ctx, sum, decoded, err);
    pprof__sum_out(summary, sum);
    return r;
}
