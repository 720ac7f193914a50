/* The table of readers this library plugs into the core's read paths (pprof/formats.h). A new
 * format adds its reader here and nowhere in the core (docs/architecture.md). */
#include "jfr-private.h"
#include "legacy-private.h"
#include "otlp-private.h"
#include "pprof/check.h"
#include "pprof/formats.h"

static pprof_status
otlp_check(const uint8_t *data, size_t size, const pprof_check_options *opts, pprof_finding_fn fn,
           void *ctx, pprof_check_summary *summary, bool *decoded, pprof_error *err)
{
    pprof_otlp *o = NULL;
    pprof_status st = pprof_otlp_read_memory(data, size, NULL, &o, err);
    if (st)
        return pprof_otlp_check_read_error(err, opts, fn, ctx, summary) ? PPROF_OK : st;
    *decoded = true;
    st = pprof_otlp_check(o, opts, fn, ctx, summary, err);
    pprof_otlp_free(o);
    return st;
}

static const pprof_reader otlp_reader = {
    sizeof(pprof_reader),
    "otlp",
    pprof__otlp_detect_raw,
    pprof_otlp_path_is_otlp,
    pprof__otlp_read_one,
    pprof__otlp_reencode,
    otlp_check,
};

static const pprof_reader jfr_format_reader = {
    sizeof(pprof_reader), "jfr", pprof__jfr_detect_raw, pprof__jfr_path_says, pprof__jfr_read_one,
    pprof__jfr_reencode,  NULL,
};

/* gperftools, tcmalloc, contention, thread, Go count and Java profiles (pprof/legacy.h);
 * their bytes say what they are, so no file name is needed */
static const pprof_reader legacy_reader = {
    sizeof(pprof_reader),   "legacy", pprof__legacy_detect_raw, NULL, pprof__legacy_read_one,
    pprof__legacy_reencode, NULL,
};

static const pprof_reader *const readers[] = {&otlp_reader, &jfr_format_reader, &legacy_reader,
                                              NULL};

const pprof_reader *const *
pprof_formats_readers(void)
{
    return readers;
}
