/* Our decoder against protobuf-c on the same (already decompressed) bytes: both accept or both
 * reject, and when both accept every field holds the same value.
 *
 * Intentional differences, skipped here (each is documented where it is decided):
 * - an empty input: a valid empty message to protobuf-c, PPROF_E_EMPTY to us (pprof.h).
 * - a bool field (Mapping.has_*, Location.is_folded) with a wire type other than varint:
 *   protobuf-c 1.4 reads bools without checking the wire type; we reject the type mismatch as
 *   for every other scalar, like Go's pprof decoder.
 * - a 5-byte tag whose value needs more than 32 bits: protobuf-c drops the high bits and reads
 *   some other field number; to us the field number is out of range (wire-private.h).
 * - field number 0 in an overlong tag (0x80 0x00): protobuf-c refuses a zero tag only in its
 *   one-byte form; field 0 is invalid in any form.
 * - a string that is not UTF-8: protobuf-c 1.4 rejects it (proto3 `string`); we keep the bytes,
 *   as Go's pprof does, because real profilers write such names.
 * - a length prefix in more than 5 bytes (an overlong varint): protobuf-c reads lengths as
 *   32-bit varints of at most 5 bytes; to us (and Go) a length is a varint like any other. Such
 *   inputs are compared through a canonical re-encoding of our model instead.
 * - a varint whose 10th byte sets bits past bit 63: protobuf-c drops the bits (and calls a bool
 *   whose only set bits are there true); we refuse it as malformed wire data, as protobuf
 *   requires (wire-private.h). Only that refusal is excused: an input whose overflowing varint
 *   we do not reach first must still compare as usual. */
#include <string.h>

#include "fuzz.h"
#include "mutator.h"
#include "pbc-private.h"
#include "pprof-protobuf-c.h"

static bool
bool_wire_type_mismatch(pprof_status st, const pprof_error *err)
{
    static const char *const bools[] = {"has_functions", "has_filenames", "has_line_numbers",
                                        "has_inline_frames", "is_folded"};
    if (st != PPROF_E_WIRE || !strstr(err->message, "type mismatch"))
        return false;
    const char *dot = strrchr(err->path, '.');
    const char *field = dot ? dot + 1 : err->path;
    for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
        if (strcmp(field, bools[i]) == 0)
            return true;
    return false;
}

static bool
tag_protobuf_c_misreads(pprof_status st, const pprof_error *err, const uint8_t *data, size_t size)
{
    if (st != PPROF_E_WIRE || !strstr(err->message, "bad field tag") || err->offset >= size)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < 5 && err->offset + i < size; i++) {
        uint8_t b = data[err->offset + i];
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80)
            return v > UINT32_MAX || (i > 0 && (v >> 3) == 0);
    }
    return false;
}

static bool
has_non_utf8_string(const pprof_profile *p)
{
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_STRING); i++) {
        pprof_string s;
        if (pprof_profile_string(p, (int64_t)i, &s) && !fuzz_utf8_valid(s.data, s.len))
            return true;
    }
    return false;
}

static bool
has_nul_string(const pprof_profile *p)
{
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_STRING); i++) {
        pprof_string s;
        if (pprof_profile_string(p, (int64_t)i, &s) && s.len && memchr(s.data, 0, s.len))
            return true;
    }
    return false;
}

/* Five continuation bytes in a row: some varint takes more than 5 bytes. */
static bool
has_long_varint(const uint8_t *data, size_t size)
{
    int run = 0;
    for (size_t i = 0; i < size; i++)
        if ((run = data[i] & 0x80 ? run + 1 : 0) >= 5)
            return true;
    return false;
}

/* Our refusal of a varint with bits past 64 at err->offset: the varint starts there, or after
 * the tag (at most 5 bytes) of the unknown field holding it. */
static bool
overflowing_varint_refused(pprof_status st, const pprof_error *err, const uint8_t *data,
                           size_t size)
{
    if (st != PPROF_E_WIRE || err->offset >= size || !strstr(err->message, "bad varint"))
        return false;
    for (size_t at = (size_t)err->offset; at <= (size_t)err->offset + 5 && size - at > 9; at++) {
        size_t k = 0;
        while (k < 9 && (data[at + k] & 0x80))
            k++;
        if (k == 9 && data[at + 9] >= 2)
            return true;
    }
    return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    pprof_read_options o = PPROF_READ_OPTIONS_INIT;
    /* wire reading only: protobuf-c knows neither rule the decoder enforces on top */
    o.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    pprof_error err;
    pprof_profile *p = pprof__profile_new(&o.allocator);
    uint8_t *buf = pprof__malloc(&o.allocator, size); /* the profile frees it */
    FUZZ_CHECK(p && buf, "out of memory");
    memcpy(buf, data, size);
    pprof_status st = pprof__decode(p, buf, size, &o, &err); /* p owns buf */

    Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(NULL, size, data);
    if (m && (bool_wire_type_mismatch(st, &err) || tag_protobuf_c_misreads(st, &err, data, size) ||
              overflowing_varint_refused(st, &err, data, size))) {
        perftools__profiles__profile__free_unpacked(m, NULL);
        pprof_profile_free(p);
        return 0;
    }
    pprof_buffer canon = {0};
    if (st == PPROF_OK && !m && has_long_varint(data, size) &&
        fuzz_emit_raw(p, 0, &canon) == PPROF_OK)
        m = perftools__profiles__profile__unpack(NULL, canon.len, canon.data);
    pprof_buffer_free(&canon);
    if (st == PPROF_OK && !m && has_non_utf8_string(p)) {
        pprof_profile_free(p);
        return 0;
    }
    FUZZ_CHECK((st == PPROF_OK) == (m != NULL), "we say %s (%s: %s), protobuf-c %s",
               pprof_status_name(st), st ? err.path : "", st ? err.message : "",
               m ? "accepts" : "rejects");
    if (m) {
        char why[256];
        FUZZ_CHECK(pprof__pbc_equal(p, m, why, sizeof(why)), "field values differ: %s", why);
        /* The interop conversions both ways agree with both decoders. */
        Perftools__Profiles__Profile *c = NULL;
        FUZZ_CHECK(pprof_profile_to_protobuf_c(p, &c, &err) == PPROF_OK, "to_protobuf_c: %s",
                   err.message);
        FUZZ_CHECK(pprof__pbc_equal(p, c, why, sizeof(why)), "to_protobuf_c differs: %s", why);
        protobuf_c_message_free_unpacked(&c->base, NULL);
        pprof_profile *q = NULL;
        st = pprof_profile_from_protobuf_c(m, NULL, &q, &err);
        /* protobuf-c strings end at a NUL, so only NUL-free tables can come back whole. */
        if (st == PPROF_OK && !has_nul_string(p))
            FUZZ_CHECK(pprof_profile_equal(p, q), "from_protobuf_c differs");
        pprof_profile_free(q);
        perftools__profiles__profile__free_unpacked(m, NULL);
    }
    pprof_profile_free(p);
    return 0;
}
