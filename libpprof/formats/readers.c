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

typedef pprof_status (*read_one_fn)(uint8_t *raw, size_t len, pprof_format container,
                                    const pprof_read_options *ro, pprof_profile **out,
                                    pprof_error *err);

/* Every reader's to_pprof: the merge's inputs decode pprof bytes lazily, so *raw (taken) is
 * replaced by the raw pprof encoding of the one profile read, with ro's allocator. */
static pprof_status
reencode(read_one_fn read_one, uint8_t **raw, size_t *len, pprof_format container,
         const pprof_read_options *ro, pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = read_one(*raw, *len, container, ro, &p, err);
    *raw = NULL;
    if (st)
        return st;
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_buffer b = {0};
    st = pprof_profile_write_memory(p, &wo, &b, err);
    pprof_profile_free(p);
    uint8_t *copy = NULL;
    if (!st && !(copy = pprof__malloc(&ro->allocator, b.len ? b.len : 1)))
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    if (!st) {
        if (b.len)
            memcpy(copy, b.data, b.len);
        *raw = copy;
        *len = b.len;
    }
    pprof_buffer_free(&b);
    return st;
}

#define REENCODE(NAME, READ_ONE)                                                                   \
    static pprof_status NAME(uint8_t **raw, size_t *len, pprof_format container,                   \
                             const pprof_read_options *ro, pprof_error *err)                       \
    {                                                                                              \
        return reencode(READ_ONE, raw, len, container, ro, err);                                   \
    }
REENCODE(otlp_reencode, pprof__otlp_read_one)
REENCODE(jfr_reencode, pprof__jfr_read_one)
REENCODE(legacy_reencode, pprof__legacy_read_one)

static const pprof_reader otlp_reader = {
    sizeof(pprof_reader),
    "otlp",
    pprof__otlp_detect_raw,
    pprof_otlp_path_is_otlp,
    pprof__otlp_read_one,
    otlp_reencode,
    otlp_check,
};

static const pprof_reader jfr_format_reader = {
    sizeof(pprof_reader), "jfr", pprof__jfr_detect_raw, pprof__jfr_path_says, pprof__jfr_read_one,
    jfr_reencode,         NULL,
};

/* gperftools, tcmalloc, contention, thread, Go count and Java profiles (pprof/legacy.h);
 * their bytes say what they are, so no file name is needed */
static const pprof_reader legacy_reader = {
    sizeof(pprof_reader), "legacy", pprof__legacy_detect_raw, NULL, pprof__legacy_read_one,
    legacy_reencode,      NULL,
};

static const pprof_reader *const readers[] = {&otlp_reader, &jfr_format_reader, &legacy_reader,
                                              NULL};

const pprof_reader *const *
pprof_formats_readers(void)
{
    return readers;
}
