/* Merge inputs: profiles read with their samples left encoded, for pprof_merger_add_input. */
#include <stdlib.h>
#include <string.h>

#include "memory-private.h"
#include "merge.h"
#include "profile-private.h"
#include "validate-private.h"

/* Takes buf (owned) and decodes it lazily into a new input. */
static pprof_status
wrap(const pprof_read_options *o, pprof_format fmt, uint8_t *buf, size_t len, const pprof_reader *r,
     pprof_merge_input **out, pprof_error *err)
{
    /* another format (by content, or by its name): its one profile, encoded as pprof */
    if (!r)
        r = pprof__reader_for_raw(o->readers, buf, len);
    if (r) {
        pprof_status st0 = r->to_pprof(&buf, &len, fmt, o, err);
        if (st0)
            return st0;
    }
    pprof_profile *p = pprof__profile_new(&o->allocator);
    pprof_merge_input *in = p ? pprof__malloc(&o->allocator, sizeof(*in)) : NULL;
    if (!in) {
        pprof__free(&o->allocator, buf);
        pprof_profile_free(p);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    p->source_format = fmt;
    pprof_status st = pprof__decode_lazy(p, buf, len, o, err); /* p owns buf from here on */
    if (st == PPROF_OK)
        st = pprof__profile_index(p, err); /* here, not in the merger's thread */
    bool tables_valid = false, first_valid = false;
    if (st == PPROF_OK && p->lazy.len) {
        /* The first batch too, and the validity checks of the tables and that batch: this is a
         * decoding thread, the merger's is the one short of time. A failure is left to the
         * merger, which meets it again and reports it as its own, naming the input. */
        pprof_error ignored;
        tables_valid = !pprof__validate_part(p, PPROF__VALIDATE_TABLES, 0, NULL, &ignored);
        first_valid = tables_valid && !pprof__decode_samples(p, 0, PPROF__LAZY_BATCH, &ignored) &&
                      !pprof__validate_part(p, PPROF__VALIDATE_SAMPLES, 0, NULL, &ignored);
    }
    if (st) {
        pprof_profile_free(p);
        pprof__free(&o->allocator, in);
        return st;
    }
    *in = (pprof_merge_input){p, tables_valid, first_valid};
    *out = in;
    return PPROF_OK;
}

/* Compressed bytes are inflated into a new buffer; raw ones are copied unless owned. Without a
 * caller's allocator, the new buffer and the tables decoded from it come from blocks in huge
 * pages (memory-private.h), as a merger's inputs do: the first touches of the small pages of
 * the default allocator's medium blocks cost more than decoding into them. Owned raw bytes are
 * the default allocator's, and so is then the profile that takes them. */
static pprof_status
from_bytes(const pprof_read_options *o, const uint8_t *data, size_t size, bool own_raw,
           const pprof_reader *r, pprof_merge_input **out, pprof_error *err)
{
    pprof_format fmt = pprof_detect_format(data, size);
    if (fmt == PPROF_FORMAT_RAW && own_raw) {
        if (size > o->max_decompressed_bytes) {
            pprof__free(&o->allocator, (void *)data);
            return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                "input of %zu bytes exceeds the limit of %llu", size,
                                (unsigned long long)o->max_decompressed_bytes);
        }
        return wrap(o, fmt, (uint8_t *)data, size, r, out, err);
    }
    pprof_read_options ob = *o;
    /* a compressed input inflates to a few times its size */
    size_t work = fmt == PPROF_FORMAT_RAW || size > SIZE_MAX / 4 ? size : 4 * size;
    pprof__blocks *b = pprof__blocks_for_work(&o->allocator, work);
    if (b)
        ob.allocator = pprof__blocks_allocator(b);
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = pprof__decompress(data, size, fmt, &ob, &buf, &len, err);
    if (own_raw)
        pprof__free(&o->allocator, (void *)data);
    if (!st)
        st = wrap(&ob, fmt, buf, len, r, out, err);
    pprof__blocks_release(b); /* the profile holds a reference of its own */
    return st;
}

pprof_status
pprof_merge_input_read_memory(const void *data, size_t size, const pprof_read_options *opts,
                              pprof_merge_input **out, pprof_error *err)
{
    if (out)
        *out = NULL;
    pprof_read_options o;
    pprof_status st = pprof__read_memory_start(data, size, opts, out, &o, err);
    return st ? st : from_bytes(&o, data, size, false, NULL, out, err);
}

/* The file is read into memory, never mapped: the samples are decoded long after opening, and a
 * mapped file that shrinks meanwhile (truncated, rewritten in place) would raise SIGBUS at the
 * first page past its new end. A copy keeps what was read consistent; a file that shrinks while
 * it is read is just shorter, and fails to decode as such. */
pprof_status
pprof_merge_input_read_file(const char *path, const pprof_read_options *opts,
                            pprof_merge_input **out, pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    *out = NULL;
    pprof_read_options o;
    pprof__read_options_fill(&o, opts);
    uint8_t *data;
    size_t len;
    pprof_status st = pprof__read_all(path, o.max_input_bytes, &o.allocator, &data, &len, err);
    if (st)
        return st;
    return from_bytes(&o, data, len, true, pprof__reader_for_path(o.readers, path), out, err);
}

void
pprof_merge_input_free(pprof_merge_input *in)
{
    if (!in)
        return;
    /* in first: the profile may hold the last reference to the blocks both come from */
    pprof_profile *p = in->p;
    pprof_allocator a = p->alloc;
    pprof__free(&a, in);
    pprof_profile_free(p);
}
