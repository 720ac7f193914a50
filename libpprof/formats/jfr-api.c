/* pprof/jfr.h's entry points and the formats' reader of JFR (readers.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "jfr-private.h"
#include "profile-private.h"

void
pprof_jfr_read_options_init(pprof_jfr_read_options *opts)
{
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    *opts = o;
}

bool
pprof_jfr_detect(const void *data, size_t size)
{
    return data && size >= 4 && !memcmp(data, "FLR\0", 4);
}

pprof_status
pprof_jfr_read_memory(const void *data, size_t size, const pprof_jfr_read_options *opts,
                      pprof_profile **out, pprof_error *err)
{
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    *out = NULL;
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    pprof_jfr_stats local = PPROF_JFR_STATS_INIT;
    if (!size)
        return pprof__error(err, PPROF_E_EMPTY, 0, "", "empty input");
    /* a gzip or zstd file holding the recording: offsets are then in the decompressed bytes */
    pprof_format container = pprof_detect_format(data, size);
    if (container == PPROF_FORMAT_GZIP || container == PPROF_FORMAT_ZSTD) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = o.allocator;
        if (o.max_input_bytes)
            ro.max_decompressed_bytes = o.max_input_bytes;
        uint8_t *raw = NULL;
        size_t len = 0;
        pprof_status st = pprof__decompress(data, size, container, &ro, &raw, &len, err);
        if (st)
            return st;
        st = pprof_jfr_read_memory(raw, len, &o, out, err);
        pprof__free(&o.allocator, raw);
        return st;
    }
    jfr_reader r;
    memset(&r, 0, sizeof(r));
    r.ps.a = o.allocator;
    r.ps.data = data;
    r.ps.size = size;
    r.ps.o = &o;
    r.ps.err = err;
    r.st = &local;
    pprof_status st = jfr__read_all(&r, out);
    jfr__caches_reset(&r);
    pprof__vec *vecs[] = {&r.fns,  &r.threads, &r.frames, &r.stacks, &r.class_strs,
                          &r.locs, &r.lines,   &r.text,   &r.text2};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&r.ps.a, vecs[i]->data);
    pprof__free(&r.ps.a, r.kinds);
    pprof__free(&r.ps.a, r.roles);
    pprof_builder_free(r.b);
    if (o.stats) {
        size_t n = o.stats->struct_size < sizeof(local) ? o.stats->struct_size : sizeof(local);
        local.struct_size = o.stats->struct_size;
        memcpy(o.stats, &local, n);
    }
    return st;
}

static pprof_status
slurp(const char *path, uint64_t max, const pprof_allocator *a, uint8_t **buf, size_t *len,
      pprof_error *err)
{
    bool std_in = !strcmp(path, "-");
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f)
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot open: %s",
                            strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = pprof__malloc(a, cap);
    pprof_status st = b ? PPROF_OK : pprof__error(err, PPROF_E_NOMEM, 0, "", "out of memory");
    while (!st) {
        if (n == cap) {
            uint8_t *nb = pprof__realloc(a, b, cap * 2);
            if (!nb) {
                st = pprof__error(err, PPROF_E_NOMEM, n, "", "out of memory");
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n > max)
            st = pprof__error(err, PPROF_E_LIMIT, max, "",
                              "the recording is larger than %llu bytes (max_input_bytes)",
                              (unsigned long long)max);
        else if (!got) {
            if (ferror(f))
                st = pprof__error(err, PPROF_E_IO, n, "", "read error: %s", strerror(errno));
            break;
        }
    }
    if (!std_in)
        fclose(f);
    if (st) {
        pprof__free(a, b);
        return st;
    }
    *buf = b;
    *len = n;
    return PPROF_OK;
}

pprof_status
pprof_jfr_read_file(const char *path, const pprof_jfr_read_options *opts, pprof_profile **out,
                    pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    *out = NULL;
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = slurp(path, o.max_input_bytes ? o.max_input_bytes : UINT64_C(1) << 40,
                            &o.allocator, &buf, &len, err);
    if (st)
        return st;
    st = pprof_jfr_read_memory(buf, len, &o, out, err);
    pprof__free(&o.allocator, buf);
    return st;
}

/* ---------------------------------------------------------------- the formats' reader */

bool
pprof__jfr_detect_raw(const uint8_t *raw, size_t len)
{
    return pprof_jfr_detect(raw, len);
}

bool
pprof__jfr_path_says(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && !strcmp(path + n - 4, ".jfr");
}

pprof_status
pprof__jfr_read_one(uint8_t *raw, size_t len, pprof_format container, const pprof_read_options *ro,
                    pprof_profile **out, pprof_error *err)
{
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    o.allocator = ro->allocator;
    pprof_status st = pprof_jfr_read_memory(raw, len, &o, out, err);
    pprof__free(&ro->allocator, raw);
    if (!st)
        (*out)->source_format = container;
    return st;
}

