/* OTLP Profiles (opentelemetry-proto ac2c4b5): reading entry points and content detection. */
#include <stdlib.h>

#include "memory-private.h"
#include "otlp-private.h"
#include "wire-private.h"

/* Framing only: whether [p, end) is a sequence of well-formed length-delimited fields 1 or 2;
 * *dict is set when a field 2 holds a field 5 or 7. The top level is walked first without
 * entering any field: a pprof profile fails there at its first field 3 (mapping), and entering
 * its samples (fields 2) on the way cost a pass over nearly all of it. */
static bool
scan_top(const uint8_t *p, const uint8_t *end, bool *dict)
{
    for (const uint8_t *q = p; q < end;) {
        uint32_t f, wt;
        uint64_t n;
        if (!pprof__tag(&q, end, &f, &wt) || (f != 1 && f != 2) || wt != PPROF_WT_LEN)
            return false;
        if (!pprof__varint(&q, end, &n) || n > (uint64_t)(end - q))
            return false;
        q += n;
    }
    while (p < end && !*dict) {
        uint32_t f = 0, wt = 0;
        uint64_t n = 0;
        if (!pprof__tag(&p, end, &f, &wt) || !pprof__varint(&p, end, &n)) /* walked above */
            return false;
        const uint8_t *e = p + n;
        if (f == 2) {
            const uint8_t *q = p;
            while (q < e) {
                uint32_t g, gwt;
                uint64_t m;
                if (!pprof__tag(&q, e, &g, &gwt))
                    return false;
                if (gwt == PPROF_WT_LEN) {
                    if (!pprof__varint(&q, e, &m) || m > (uint64_t)(e - q))
                        return false;
                    q += m;
                    if (g == 5 || g == 7)
                        *dict = true;
                } else if (gwt == PPROF_WT_VARINT) {
                    if (!pprof__varint(&q, e, &m))
                        return false;
                } else {
                    return false;
                }
            }
        }
        p = e;
    }
    return true;
}

static bool
detect_raw(const uint8_t *p, size_t len)
{
    bool dict = false;
    return len && scan_top(p, p + len, &dict) && dict;
}

bool
pprof_otlp_detect(const void *data, size_t size)
{
    if (!data || !size)
        return false;
    pprof_format fmt = pprof_detect_format(data, size);
    if (fmt == PPROF_FORMAT_RAW)
        return detect_raw(data, size);
    pprof_read_options o;
    pprof_read_options_init(&o);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (pprof__decompress(data, size, fmt, &o, &buf, &len, NULL))
        return false;
    bool r = detect_raw(buf, len);
    pprof__free(&o.allocator, buf);
    return r;
}

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

bool
pprof_otlp_path_is_otlp(const char *path)
{
    if (!path)
        return false;
    size_t n = strlen(path);
    if (ends_with(path, n, ".gz"))
        n -= 3;
    else if (ends_with(path, n, ".zst"))
        n -= 4;
    return ends_with(path, n, ".otlp");
}

bool
pprof__otlp_detect_raw(const uint8_t *p, size_t len)
{
    return detect_raw(p, len);
}

static pprof_otlp *
otlp_new(const pprof_allocator *a, size_t len)
{
    pprof_otlp *o = pprof__malloc(a, sizeof(*o));
    if (!o)
        return NULL;
    memset(o, 0, sizeof(*o));
    if (a)
        o->alloc = *a;
    o->tabs = o->alloc;
    /* blocks the caller's allocator hands out (a merger's) are held; without an
     * allocator, tables grown entry by entry in small pages cost more in first touches than the
     * decoding */
    if (!(o->blocks = pprof__blocks_of(&o->alloc)) &&
        (o->blocks = pprof__blocks_for_work(&o->alloc, len)))
        o->tabs = pprof__blocks_allocator(o->blocks);
    return o;
}

void
pprof_otlp_free(pprof_otlp *o)
{
    if (!o)
        return;
    const pprof_allocator a = o->alloc;
    pprof__vec *vecs[] = {&o->strings,   &o->mappings, &o->locations, &o->lines,
                          &o->functions, &o->links,    &o->attrs,     &o->stacks,
                          &o->ints,      &o->samples,  &o->values,    &o->times,
                          &o->profiles,  &o->scopes,   &o->resources, &o->kvs};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&o->tabs, vecs[i]->data);
    struct pprof__blocks *blocks = o->blocks;
    pprof__free(&a, o->buf);
    pprof__free(&a, o);
    pprof__blocks_release(blocks);
}

pprof_status
pprof__otlp_from_buffer(uint8_t *buf, size_t len, pprof_format fmt, const pprof_read_options *ro,
                        pprof_otlp **out, pprof_error *err)
{
    pprof_otlp *o = otlp_new(&ro->allocator, len);
    if (!o) {
        pprof__free(&ro->allocator, buf);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    o->source_format = fmt;
    pprof_status st = pprof__otlp_decode(o, buf, len, ro, err); /* o owns buf from here on */
    if (st) {
        pprof_otlp_free(o);
        return st;
    }
    *out = o;
    return PPROF_OK;
}

pprof_status
pprof_otlp_read_memory(const void *data, size_t size, const pprof_read_options *opts,
                       pprof_otlp **out, pprof_error *err)
{
    if (out)
        *out = NULL;
    pprof_read_options ro;
    pprof_status st = pprof__read_memory_start(data, size, opts, out, &ro, err);
    if (st)
        return st;
    pprof_format fmt = pprof_detect_format(data, size);
    uint8_t *buf = NULL;
    size_t len = 0;
    st = pprof__decompress(data, size, fmt, &ro, &buf, &len, err);
    if (st)
        return st;
    return pprof__otlp_from_buffer(buf, len, fmt, &ro, out, err);
}

pprof_status
pprof_otlp_read_file(const char *path, const pprof_read_options *opts, pprof_otlp **out,
                     pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    *out = NULL;
    pprof_read_options ro;
    pprof__read_options_fill(&ro, opts);
    uint8_t *data;
    size_t len;
    pprof_status st = pprof__read_all(path, ro.max_input_bytes, &ro.allocator, &data, &len, err);
    if (st)
        return st;
    st = pprof_otlp_read_memory(data, len, &ro, out, err);
    pprof__free(&ro.allocator, data);
    return st;
}

size_t
pprof_otlp_profile_count(const pprof_otlp *o)
{
    return o ? o->profiles.len : 0;
}

void
pprof_otlp_write_options_init(pprof_otlp_write_options *opts)
{
    if (!opts)
        return;
    const pprof_otlp_write_options def = PPROF_OTLP_WRITE_OPTIONS_INIT;
    *opts = def;
}

void
pprof_otlp_profiles_free(pprof_profile **profiles, size_t n)
{
    if (!profiles)
        return;
    for (size_t i = 0; i < n; i++)
        pprof_profile_free(profiles[i]);
    free(profiles);
}

pprof_status
pprof__otlp_read_one(uint8_t *buf, size_t len, pprof_format fmt, const pprof_read_options *ro,
                     pprof_profile **out, pprof_error *err)
{
    pprof_otlp *o = NULL;
    pprof_status st = pprof__otlp_from_buffer(buf, len, fmt, ro, &o, err);
    if (st)
        return st;
    pprof_profile *p = NULL;
    size_t n = 0;
    st = pprof__otlp_to_one(o, &p, &n, err);
    pprof_otlp_free(o);
    if (st)
        return st;
    if (n != 1)
        return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, "",
                            "the OTLP input holds %zu profiles that do not combine into one "
                            "pprof profile (pprof-convert --from=otlp --profile N picks one)",
                            n);
    p->source_format = fmt;
    *out = p;
    return PPROF_OK;
}
