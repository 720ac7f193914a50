/* The tables of schema.def, as static constants in each file that includes this one (the
 * decoder, the wire scan, the schema test): the compiler then sees sizes, kinds and names as
 * constants in the hot loops, as it did with the hand-written tables. Not installed. */
#ifndef PPROF_SCHEMA_TABLES_H
#define PPROF_SCHEMA_TABLES_H

#include <stddef.h>

#include "schema-private.h"
#include "wire-private.h"

/* Declared first: a message's table points at the tables of its sub-messages. */
#define PPROF_MESSAGE(m, fields) static const pprof__schema pprof__schema_##m;
#include "schema.def"
#undef PPROF_MESSAGE

/* The .def numbers fields 1..n in order, since a message's tables are indexed by number. */
#define PPROF_MESSAGE(m, fields) enum { PPROF__SEQ_##m = 0, fields };
#define PPROF_FIELD(m, num, name, type, card, sub, strx) PPROF__SEQ_##m##_##name,
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE
#define PPROF_MESSAGE(m, fields) fields
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    _Static_assert(PPROF__SEQ_##m##_##name == num, #m "." #name ": fields out of order");
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF__IS_MSG(type) (PPROF__T_##type == PPROF__T_MESSAGE)
#define PPROF__IS_MANY(card) (PPROF__C_##card == PPROF__C_MANY)
#define PPROF__KIND(type, card)                                                                    \
    (PPROF__IS_MSG(type) ? (PPROF__IS_MANY(card) ? PPROF__K_MSG_MANY : PPROF__K_MSG_ONE)           \
                         : (PPROF__IS_MANY(card) ? PPROF__K_MANY : PPROF__K_ONE))

/* Only for the sub of scalar fields (none), which the tables hold as NULL. */
static const pprof__schema pprof__schema_none;

#define PPROF_MESSAGE(m, fields) static const char *const pprof__names_##m[] = {"", fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx) #name,
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields)                                                                   \
    static const uint8_t pprof__kinds_##m[] = {PPROF__K_UNKNOWN, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx) PPROF__KIND(type, card),
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields)                                                                   \
    static const pprof__schema *const pprof__subs_##m[] = {NULL, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    (PPROF__IS_MSG(type) ? &pprof__schema_##sub : NULL),
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields) enum { PPROF__HAS_SUB_##m = 0 fields };
#define PPROF_FIELD(m, num, name, type, card, sub, strx) +PPROF__IS_MSG(type)
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields)                                                                   \
    static const pprof__schema pprof__schema_##m = {                                               \
        #m, sizeof(pprof__names_##m) / sizeof(pprof__names_##m[0]), pprof__kinds_##m,              \
        pprof__names_##m, PPROF__HAS_SUB_##m ? pprof__subs_##m : NULL};
#include "schema.def"
#undef PPROF_MESSAGE

/* The wire types each field's value may take, as a mask (1 << wire type) by field number, 0 at
 * 0: strings and messages length-delimited, numbers varints, repeated numbers packed too. */
#define PPROF__WT(type)                                                                            \
    (PPROF__IS_MSG(type) || PPROF__T_##type == PPROF__T_STRING ? PPROF_WT_LEN : PPROF_WT_VARINT)
#define PPROF_MESSAGE(m, fields) static const uint8_t pprof__wire_##m[] = {0, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    (uint8_t)(                                                                                     \
        1u << PPROF__WT(type) |                                                                    \
        (PPROF__IS_MANY(card) && PPROF__WT(type) == PPROF_WT_VARINT ? 1u << PPROF_WT_LEN : 0)),
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE
#undef PPROF__WT

static const pprof__schema_field pprof__schema_fields[] = {
#define PPROF_MESSAGE(m, fields) fields
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    {#m, #name, #sub, num, PPROF__T_##type, PPROF__C_##card, PPROF__X_##strx},
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE
};
#define PPROF__SCHEMA_N_FIELDS (sizeof(pprof__schema_fields) / sizeof(pprof__schema_fields[0]))

#undef PPROF__KIND
#undef PPROF__IS_MANY
#undef PPROF__IS_MSG

#endif
