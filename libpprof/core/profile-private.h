/* The in-memory model shared by the library's modules. Not installed. */
#ifndef PPROF_PROFILE_PRIVATE_H
#define PPROF_PROFILE_PRIVATE_H

#include "common-private.h"

/* ---- the model */

/* Offsets into the profile's stack, values and labels. Samples may share a range (a merged
 * profile's samples with one stack share its entries): readers must not assume the ranges are
 * disjoint or that the tables' lengths are the sums of the counts. */
typedef struct pprof__sample {
    uint32_t loc_off, n_loc;
    uint32_t val_off, n_val;
    uint32_t lab_off, n_lab;
} pprof__sample;

typedef struct pprof__location {
    uint64_t id, mapping_id, address;
    uint32_t line_off, n_line;
    bool is_folded;
} pprof__location;

/* id -> index lookup for one table; dense when ids are exactly 1..n in order. */
typedef struct pprof__idmap {
    bool built;
    bool dense;
    size_t mask;          /* n - 1 when dense */
    pprof__u64map sparse; /* otherwise; id 0 is never stored */
} pprof__idmap;

struct pprof_profile {
    pprof_allocator alloc;
    struct pprof__blocks *blocks; /* a reference when alloc hands out its blocks */
    pprof__arena arena;
    pprof_format source_format;

    uint8_t *buf; /* decompressed input that string views point into; owned */
    size_t buf_len;

    pprof__vec strings;      /* pprof_string */
    pprof__vec sample_types; /* pprof_value_type */
    pprof__vec samples;      /* pprof__sample */
    pprof__vec stack;        /* uint64_t: location ids of all samples */
    pprof__vec values;       /* int64_t */
    pprof__vec labels;       /* pprof_label */
    pprof__vec mappings;     /* pprof_mapping */
    pprof__vec locations;    /* pprof__location */
    pprof__vec lines;        /* pprof_line */
    pprof__vec functions;    /* pprof_function */
    pprof__vec comments;     /* int64_t */

    /* byte offset of each entity in the decoded input; empty for built profiles */
    pprof__vec sample_offs, mapping_offs, location_offs, function_offs;

    pprof_header hdr; /* comment/n_comment are filled by pprof_profile_header */
    bool has_string_table;
    uint64_t unknown_fields;

    /* Lazily built id indices; a mutable cache behind a const profile, built once by
     * pprof__profile_index, whose idx_state publishes them to concurrent readers. */
    pprof__idmap map_idx, loc_idx, fn_idx;
    _Atomic unsigned idx_state; /* PPROF__IDX_NONE, _BUILDING or _READY */
    /* pprof_validate found nothing (validate.c): a cache with the id index's thread rule */
    _Atomic bool valid;
    uint32_t relax; /* the PPROF_RELAX_* bits the profile was read with */
    /* stack holds uint32 location indices instead of ids (pprof__profile_slim): only
     * pprof__sample_locs reads it then */
    bool stack_is_index;
    /* stack holds the location ids as uint32 (pprof__decode, asked by setting it first; it
     * stays set only while every id fits): never seen outside pprof__profile_read_indexed */
    bool stack_is_id32;

    /* A merge input (merge-input.c) leaves its samples undecoded: (body offset, body length)
     * pairs into buf, decoded a batch at a time by pprof__decode_samples into samples, stack,
     * values and labels, which then hold that batch only. */
    pprof__vec lazy; /* uint64_t, two per sample */
    pprof_read_options lazy_opts;
    uint64_t lazy_stack, lazy_values, lazy_labels; /* decoded before the batch, for limits */
    size_t lazy_first, lazy_n;                     /* the batch the sample tables hold */
};

PPROF_PRIVATE_API pprof_profile *pprof__profile_new(const pprof_allocator *a);

/* Where the encoder takes the samples from instead of the profile's own table (which it then
 * ignores): a merger writing straight out produces them one at a time (merge.c). */
typedef struct pprof__sample_src {
    size_t n;
    /* The most bytes the samples can encode to: PPROF__SAMPLE_BOUND summed. */
    size_t bound;
    /* Sample i, in order; the arrays stay valid until the next call. *same: its location ids
     * are those of sample i - 1 (a hint: false is always correct). *packed: NULL, or the
     * location ids already encoded as packed varints (*packed_len bytes), in which case
     * s->location_id may be NULL and s->n_location_id need only be nonzero when there are
     * any (the encoder copies the bytes and does not count them). */
    void (*get)(void *ctx, size_t i, pprof_sample *s, bool *same, const uint8_t **packed,
                size_t *packed_len);
    void *ctx;
} pprof__sample_src;

/* A source's samples cut into parts that are encoded side by side on pool's workers: part t
 * from first[t] to first[t + 1] (n + 1 entries), encoding to at most bound[t] bytes, its
 * samples taken through get_in(ctx, t, ...) (the source's get for one part: it may run for
 * every part at once). strings lists every string index the samples' labels use (key, str,
 * then num_unit, label after label), each once, in the order of first use, so that the string
 * table comes out as encoding the samples one after another makes it. */
typedef struct pprof__sample_parts {
    size_t n;
    const size_t *first, *bound;
    void (*get_in)(void *ctx, size_t part, size_t i, pprof_sample *s, bool *same,
                   const uint8_t **packed, size_t *packed_len);
    const uint32_t *strings;
    size_t n_strings;
    struct pprof__pool *pool;
} pprof__sample_parts;

/* What encoded_bound (encode.c) counts; the bound is a sum of per-entity maxima. */
#define PPROF__SAMPLE_BOUND(n_loc, n_val, n_lab)                                                   \
    (33 + 10 * ((size_t)(n_loc) + (size_t)(n_val)) + 46 * (size_t)(n_lab))
typedef struct pprof__encoded_counts {
    size_t comments, sample_types, mappings, functions, locations, lines, strings, string_bytes;
    size_t sample_bound; /* the sum of PPROF__SAMPLE_BOUND over the samples */
} pprof__encoded_counts;
/* The most bytes a profile of these counts can encode to, before compression. */
size_t pprof__encoded_bound_of(const pprof__encoded_counts *c);

/* pprof_profile_write_file and _write_memory with the samples taken from src (NULL: p's). With
 * pre, the encoding goes into *pre (its capacity is used when it is large enough), which the
 * caller then frees with p's allocator. */
pprof_status pprof__write_file_src(const pprof_profile *p, const pprof__sample_src *src,
                                   pprof_buffer *pre, const char *path,
                                   const pprof_write_options *opts, pprof_error *err);
/* Whether pprof__write_file_src with opts encodes into one buffer of the whole encoding, which
 * pre can then be; multi-threaded gzip goes through a few buffers of its own and leaves pre alone.
 */
bool pprof__write_file_src_whole(const pprof_write_options *opts);
pprof_status pprof__write_memory_src(const pprof_profile *p, const pprof__sample_src *src,
                                     const pprof_write_options *opts, pprof_buffer *out,
                                     pprof_error *err);
/* The same with src's samples encoded in parts (NULL, or fewer than 2: in order). */
pprof_status pprof__write_file_parts(const pprof_profile *p, const pprof__sample_src *src,
                                     const pprof__sample_parts *parts, const char *path,
                                     const pprof_write_options *opts, pprof_error *err);
pprof_status pprof__write_memory_parts(const pprof_profile *p, const pprof__sample_src *src,
                                       const pprof__sample_parts *parts,
                                       const pprof_write_options *opts, pprof_buffer *out,
                                       pprof_error *err);

/* The checks every read from memory starts with (out is the caller's output pointer, only
 * tested for NULL); fills o from opts. */
PPROF_PRIVATE_API pprof_status pprof__read_memory_start(const void *data, size_t size,
                                                        const pprof_read_options *opts, void *out,
                                                        pprof_read_options *o, pprof_error *err);

/* A merge input is a profile whose samples are decoded lazily (see lazy above). */
struct pprof_merge_input {
    pprof_profile *p;
    /* What the thread that decoded it found valid (pprof__validate_part), so that the merger's
     * thread does not check it again; false also when unchecked. */
    bool tables_valid, first_batch_valid;
};

/* The profile `go tool pprof` lists: Go's profile.Merge of src alone (go-compact.c). The result
 * shares src's strings and must be freed before it. PPROF_E_INVALID for a dangling id. */
pprof_status pprof__go_compact(const pprof_profile *src, pprof_profile **out, pprof_error *err);

/* Builds the three id indices if they are not built yet. Safe on a profile many threads read at
 * once (pprof.h's thread rule): one of them builds, the others wait for it, and all see the
 * finished indices; every reader of p->*_idx calls it first. PPROF_E_NOMEM (err may be NULL);
 * a later call tries again. */
PPROF_PRIVATE_API pprof_status pprof__profile_index(const pprof_profile *p, pprof_error *err);
enum { PPROF__IDX_NONE, PPROF__IDX_BUILDING, PPROF__IDX_READY };
PPROF_PRIVATE_API uint32_t pprof__idmap_get(const pprof__idmap *m, uint64_t id);
/* The same, with the common case (ids 1..n in order) inline, for per-frame lookups. */
static inline uint32_t
pprof__idmap_find(const pprof__idmap *m, uint64_t id)
{
    if (m->dense)
        return id - 1 <= m->mask ? (uint32_t)(id - 1) : PPROF_NONE; /* mask = n-1 when dense */
    return pprof__idmap_get(m, id);
}
void pprof__idmap_free(const pprof_allocator *a, pprof__idmap *m);

/* Decodes a raw protobuf buffer that p takes ownership of (allocated with p->alloc). */
pprof_status pprof__decode(pprof_profile *p, uint8_t *buf, size_t len, const pprof_read_options *o,
                           pprof_error *err);
/* The same, but the samples are only framed and recorded in p->lazy (see there). */
pprof_status pprof__decode_lazy(pprof_profile *p, uint8_t *buf, size_t len,
                                const pprof_read_options *o, pprof_error *err);
/* Decodes lazy samples [first, first + n) into p's sample tables, replacing the last batch;
 * errors carry the samples' global indices and byte offsets. Batches go in order from 0 (the
 * limits are totals over the batches so far); one that is already there is not decoded again. */
PPROF_PRIVATE_API pprof_status pprof__decode_samples(pprof_profile *p, size_t first, size_t n,
                                                     pprof_error *err);

/* Decoding the batch after the one in a merge input's profile on another thread, while the
 * caller works on that one (decode.c). */
typedef struct pprof__decode_ahead {
    pprof_profile shadow; /* p's buffer and spans, sample tables of its own; never freed whole */
    size_t first, n;
    pprof_status st;
    pprof_error err;
    pprof__job job;
    bool started;
} pprof__decode_ahead;
PPROF_PRIVATE_API void pprof__decode_ahead_init(pprof__decode_ahead *a);
/* Starts decoding lazy samples [first, first + n) of p on pool; p must hold the batch just
 * before. False when not started (nothing to take: decode it with pprof__decode_samples). */
PPROF_PRIVATE_API bool pprof__decode_ahead_start(pprof__decode_ahead *a, pprof_profile *p,
                                                 pprof__pool *pool, size_t first, size_t n);
/* Waits for the batch and puts it in p, as pprof__decode_samples(p, first, n) would have;
 * its status, and its error in *err. */
PPROF_PRIVATE_API pprof_status pprof__decode_ahead_take(pprof__decode_ahead *a, pprof_profile *p,
                                                        pprof_error *err);
/* Waits for a batch still on its way and frees the shadow's tables. */
PPROF_PRIVATE_API void pprof__decode_ahead_free(pprof__decode_ahead *a);

struct pprof_merger;
/* Adds p as pprof_merger_add does, as one batch of samples of a larger input: with continues,
 * p's strings, functions, locations and lines are the very tables of the batch added last (the
 * edit engine's batches borrow them from one input), so what that add looked up in them still
 * holds and is not looked up again. Mappings may differ (a subset). */
PPROF_PRIVATE_API pprof_status pprof__merger_add_batch(struct pprof_merger *m,
                                                       const pprof_profile *p, bool continues,
                                                       pprof_error *err);
/* pprof_merger_add (or _add_input for p a merge input's profile) of a profile the caller
 * produced or validated itself (a scaled copy, an edit's working profile): pprof_validate is
 * not run again. */
PPROF_PRIVATE_API pprof_status pprof__merger_add_valid(struct pprof_merger *m,
                                                       const pprof_profile *p, const char *name,
                                                       pprof_error *err);
/* Samples per batch of a lazy merge input. */
#define PPROF__LAZY_BATCH 4096

/* Decompresses into a new buffer allocated with a, within the option limits. */
PPROF_PRIVATE_API pprof_status pprof__decompress(const uint8_t *in, size_t in_len, pprof_format fmt,
                                                 const pprof_read_options *o, uint8_t **out,
                                                 size_t *out_len, pprof_error *err);
/* Appends the compressed bytes to out, grown with a (NULL: libc, for caller-owned buffers).
 * Up to threads threads compress gzip members at once; the bytes do not depend on it. */
PPROF_PRIVATE_API pprof_status pprof__compress(const uint8_t *in, size_t in_len, pprof_format fmt,
                                               int level, unsigned threads,
                                               const pprof_allocator *a, pprof_buffer *out,
                                               pprof_error *err);

/* An output written as it is produced: a temporary file beside path (beside the target of a
 * symlink), renamed over it by commit after fsync (abort, or a failed write, leaves path as it
 * was); standard output for "-" and /dev/stdout; a device, FIFO or socket written in place.
 * Writes stop at the first error, which commit reports. opts (may be NULL) gives the
 * temporary-file callback. */
typedef struct pprof__out_file {
    const char *path;
    char *target; /* the symlink's target when path is one, else NULL */
    char *tmp;    /* NULL when written in place */
    int fd, errnum;
    bool own_fd; /* a special file opened here, closed by commit or abort */
    size_t written;
    void (*on_temporary)(void *ctx, const char *path);
    void *temporary_ctx;
} pprof__out_file;
PPROF_PRIVATE_API pprof_status pprof__out_open(const char *path, const pprof_write_options *opts,
                                               pprof__out_file *o, pprof_error *err);
PPROF_PRIVATE_API bool pprof__out_write(pprof__out_file *o, const void *data, size_t n);
PPROF_PRIVATE_API pprof_status pprof__out_commit(pprof__out_file *o, pprof_error *err);
PPROF_PRIVATE_API void pprof__out_abort(pprof__out_file *o);

/* gzip while the input is being produced: start with the most bytes there will be, announce
 * how many are ready as they are (each complete PPROF_GZIP_MEMBER_BYTES starts a member), and
 * finish with the final length (ok false: abandon). The output is pprof__compress's, appended
 * to out, or with a sink written to it member by member as soon as each is compressed (out
 * is then left alone). */
typedef struct pprof__gz_stream pprof__gz_stream;
pprof__gz_stream *pprof__gz_stream_start(const uint8_t *in, size_t max_len, int level,
                                         unsigned threads, const pprof_allocator *a,
                                         pprof_buffer *out, pprof__out_file *sink,
                                         pprof_error *err);
void pprof__gz_stream_ready(pprof__gz_stream *g, size_t len);
/* Started without in, the stream takes each member's bytes from where the producer says, before
 * it announces them ready: member k's PPROF_GZIP_MEMBER_BYTES (fewer for the last) at data. */
void pprof__gz_stream_member(pprof__gz_stream *g, size_t k, const uint8_t *data);
/* Returns once members 0..k-1 are compressed (or the stream failed), so that their bytes may be
 * overwritten; compresses members that are ready and not taken on the calling thread meanwhile. */
void pprof__gz_stream_wait(pprof__gz_stream *g, size_t k);
pprof_status pprof__gz_stream_finish(pprof__gz_stream *g, size_t len, bool ok, pprof_error *err);

/* Writes size bytes to stream and flushes it; PPROF_E_IO naming errno when either fails. */
PPROF_PRIVATE_API pprof_status pprof__stream_write(FILE *stream, const void *data, size_t size,
                                                   pprof_error *err);
/* The tail of a format's _write_stream and _write_file made from its _write_memory: when st
 * (the _write_memory's status) is PPROF_OK, b goes to stream or path (as
 * pprof_bytes_write_file, with wopts); b is freed in every case. Returns the first error. */
PPROF_PRIVATE_API pprof_status pprof__buffer_write_stream(FILE *stream, pprof_status st,
                                                          pprof_buffer *b, pprof_error *err);
PPROF_PRIVATE_API pprof_status pprof__buffer_write_file(const char *path,
                                                        const pprof_write_options *wopts,
                                                        pprof_status st, pprof_buffer *b,
                                                        pprof_error *err);

/* Reads a whole file ("-" = stdin) with a size cap into a buffer from pprof__malloc(a). */
PPROF_PRIVATE_API pprof_status pprof__read_all(const char *path, uint64_t max,
                                               const pprof_allocator *a, uint8_t **out, size_t *len,
                                               pprof_error *err);
/* The same; a large regular file is read in parts by up to `threads` threads. */
pprof_status pprof__read_all_threads(const char *path, uint64_t max, const pprof_allocator *a,
                                     unsigned threads, uint8_t **out, size_t *len,
                                     pprof_error *err);

static inline bool
pprof__str(const pprof_profile *p, int64_t i, pprof_string *out)
{
    if (i < 0 || (uint64_t)i >= p->strings.len)
        return false;
    *out = PPROF__AT(p->strings, pprof_string, i);
    return true;
}

/* Options with any fields past an older caller's struct_size taken from the defaults. */
PPROF_PRIVATE_API void pprof__read_options_fill(pprof_read_options *dst,
                                                const pprof_read_options *src);

/* ---- sample.c */

/* The location indices of sample s, leaf first, into idx (n_location_id entries). Fails with
 * PPROF_E_INVALID naming the sample when an id has no location. */
PPROF_PRIVATE_API pprof_status pprof__sample_locs(const pprof_profile *p, size_t si, uint32_t *idx,
                                                  pprof_error *err);
/* For an owner that reads a valid profile's samples' locations only through
 * pprof__sample_locs from here on, and no wire bytes (a flame graph and its Graph view): the
 * location ids become 4-byte location indices in place and the table shrinks to them, and the
 * decoded input goes once the strings are copied out of it, with the samples' offsets in it.
 * Half the memory of the samples' stacks and all of the input's. PPROF_E_INVALID for an id without
 * location (p is left as it was), PPROF_E_NOMEM (the strings stay where they were). */
PPROF_PRIVATE_API pprof_status pprof__profile_slim(pprof_profile *p, pprof_error *err);

/* The stack's entries made 8 bytes wide in place: uint32 ids become uint64 ids
 * (stack_is_id32 cleared). False when memory runs out (nothing changed). */
PPROF_PRIVATE_API bool pprof__stack_widen(pprof_profile *p);
/* pprof_profile_read_buffer for an owner that reads the samples' locations only through
 * pprof__sample_locs: the location ids are decoded as 4-byte ids and become location indices in
 * place (stack_is_index), half the memory of the stack and no pass of pprof__profile_slim over
 * it. A profile with an id past 32 bits or one that names no location comes back with 8-byte
 * ids, as pprof_profile_read_buffer reads it. */
PPROF_PRIVATE_API pprof_status pprof__profile_read_indexed(pprof_buffer *in,
                                                           const pprof_read_options *opts,
                                                           pprof_profile **out, pprof_error *err);
/* pprof_profile_read_buffer with the stack decoded as 4-byte ids while they fit (the profile's
 * stack_is_id32 says whether they did). */
pprof_status pprof__read_buffer_id32(pprof_buffer *in, const pprof_read_options *opts,
                                     pprof_profile **out, pprof_error *err);
/* Location indices (stack_is_index) back to the 8-byte ids they were read from, for a reader
 * that needs the ids after all (the profile is invalid and its findings are listed). */
PPROF_PRIVATE_API bool pprof__stack_unindex(pprof_profile *p);

/* ---- readers.c: formats other than pprof (pprof_read_options.readers) */

/* The first reader whose detect accepts the decompressed bytes; NULL: pprof. */
const pprof_reader *pprof__reader_for_raw(const pprof_reader *const *readers, const uint8_t *raw,
                                          size_t len);
/* The same for bytes as stored (any container: decompressed for the look, within the default
 * limits). */
const pprof_reader *pprof__reader_for_data(const pprof_reader *const *readers, const uint8_t *data,
                                           size_t len);
/* The first reader whose name rule claims path; NULL: none. */
const pprof_reader *pprof__reader_for_path(const pprof_reader *const *readers, const char *path);

#endif
