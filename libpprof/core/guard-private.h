/* Looking at decompressed bytes before they are decoded: whether they look like a profile at all,
 * and, while a stream that expands more than real profiles do is inflated, whether what has
 * arrived so far is already bound to be refused. Real profiles compress 2-30x; a decompression
 * bomb is refused by these checks while it is inflated instead of after. */
#ifndef PPROF_GUARD_PRIVATE_H
#define PPROF_GUARD_PRIVATE_H

#include "htab-private.h"
#include "profile-private.h"

/* Top-level fields the sniff looks at: text or random bytes break the protobuf structure within
 * a few fields, a profile never does. */
#define PPROF__SNIFF_FIELDS 8

/* True when the first top-level fields of buf[0, len) are well formed (known fields with their
 * wire types, lengths that fit); complete: len is the whole input, else a field may run past it.
 * Otherwise *bad is the offset of the first field that is not. */
bool pprof__sniff(const uint8_t *buf, size_t len, bool complete, uint64_t *bad);

/* The error for input whose first bytes are no protobuf message. */
pprof_status pprof__not_a_profile(pprof_error *err, uint64_t at);

/* The most model bytes one byte of wire data can decode to (an empty sample: 2 bytes, 32 bytes
 * of tables), so a buffer of n bytes never needs more than n * (1 + this) in all. */
#define PPROF__MODEL_PER_BYTE 16

typedef struct pprof__guard {
    const pprof_read_options *o;
    uint64_t cap;   /* the most the buffer and the decoded tables may take together */
    size_t at;      /* the next top-level field to look at, in the buffer fed */
    uint64_t base;  /* bytes of the stream before that buffer (a window slid along it) */
    uint64_t model; /* bytes the decoded tables of the fields seen will take */
    uint64_t n[16]; /* top-level fields seen, by number; 0 counts unknown fields */
    uint64_t lines; /* inside locations */
    uint64_t stack, values, labels;
    bool time_nonzero; /* for concatenated profiles, as the decoder */
    /* Hashes of the length-delimited top-level fields seen (samples aside): one seen before is
     * charged as a field that leaves nothing. Values are the hash's top 31 bits. */
    pprof__htab seen;
} pprof__guard;

void pprof__guard_init(pprof__guard *g, const pprof_read_options *o, uint64_t cap);
void pprof__guard_free(pprof__guard *g);
/* Looks at the complete top-level fields of buf[0, len) not seen yet (final: len is all there
 * will be). Fails with the decoder's verdict where it is already certain (malformed framing, a
 * table past its limit, string_table[0], concatenated profiles) and with PPROF_E_LIMIT when the
 * buffer and the tables would take more than cap. */
pprof_status pprof__guard_feed(pprof__guard *g, const uint8_t *buf, size_t len, bool final,
                               pprof_error *err);
/* Drops the fields already looked at from the front of buf (*len bytes), so a stream can be
 * checked through a window that keeps only the field being cut: base grows by what is dropped. */
void pprof__guard_slide(pprof__guard *g, uint8_t *buf, size_t *len);

#endif
