/* The read paths' look-up of formats other than pprof in the caller's table of readers. */
#include "profile-private.h"

const pprof_reader *
pprof__reader_for_raw(const pprof_reader *const *readers, const uint8_t *raw, size_t len)
{
    for (const pprof_reader *const *r = readers; r && *r; r++)
        if ((*r)->detect && (*r)->detect(raw, len))
            return *r;
    return NULL;
}

const pprof_reader *
pprof__reader_for_data(const pprof_reader *const *readers, const uint8_t *data, size_t len)
{
    if (!readers || !*readers || !data || !len)
        return NULL;
    pprof_format fmt = pprof_detect_format(data, len);
    if (fmt == PPROF_FORMAT_RAW)
        return pprof__reader_for_raw(readers, data, len);
    pprof_read_options o;
    pprof_read_options_init(&o);
    uint8_t *buf = NULL;
    size_t blen = 0;
    if (pprof__decompress(data, len, fmt, &o, &buf, &blen, NULL))
        return NULL;
    const pprof_reader *r = pprof__reader_for_raw(readers, buf, blen);
    pprof__free(&o.allocator, buf);
    return r;
}

const pprof_reader *
pprof__reader_for_path(const pprof_reader *const *readers, const char *path)
{
    for (const pprof_reader *const *r = readers; path && r && *r; r++)
        if ((*r)->path_says && (*r)->path_says(path))
            return *r;
    return NULL;
}
