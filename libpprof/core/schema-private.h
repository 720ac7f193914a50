/* profile.proto's fields, generated from schema.def: field numbers (the encoder writes them)
 * and the types of the tables schema-tables.h defines (names for the decoder's error paths,
 * the message schemas the checker's wire scan walks). Not installed. */
#ifndef PPROF_SCHEMA_PRIVATE_H
#define PPROF_SCHEMA_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

/* Field numbers: PPROF__F_<message>_<field>, e.g. PPROF__F_sample_label = 3. */
enum {
#define PPROF_MESSAGE(m, fields) fields
#define PPROF_FIELD(m, num, name, type, card, sub, strx) PPROF__F_##m##_##name = num,
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE
};

/* A one-byte tag: every field number of profile.proto is below 16. */
#define PPROF__TAG(field, wt) ((uint8_t)(((field) << 3) | (wt)))

/* The .def's words as values. */
enum { PPROF__T_INT64 = 1, PPROF__T_UINT64, PPROF__T_BOOL, PPROF__T_STRING, PPROF__T_MESSAGE };
enum { PPROF__C_ONE = 1, PPROF__C_MANY };
enum { PPROF__X_PLAIN = 0, PPROF__X_STRX = 1 };

/* A field as the wire scan sees it: unknown, singular or repeated, scalar or message. */
enum { PPROF__K_UNKNOWN = 0, PPROF__K_ONE, PPROF__K_MANY, PPROF__K_MSG_ONE, PPROF__K_MSG_MANY };

typedef struct pprof__schema {
    const char *name;                       /* snake case, as in schema.def: "value_type" */
    uint8_t n;                              /* field numbers run 1..n-1 */
    const uint8_t *kind;                    /* PPROF__K_*, by field number */
    const char *const *field;               /* names by field number, "" at 0 */
    const struct pprof__schema *const *sub; /* by field number; NULL: no message fields */
} pprof__schema;

/* A field as the .def gives it, for the test that holds the list against protobuf-c's
 * descriptors. */
typedef struct pprof__schema_field {
    const char *msg, *name, *sub;
    uint8_t number, type, card, strx;
} pprof__schema_field;

#endif
