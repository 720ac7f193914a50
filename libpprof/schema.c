/* The tables of schema-private.h, expanded from schema.def. */
#include <stddef.h>

#include "schema-private.h"

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

#define IS_MSG(type) (PPROF__T_##type == PPROF__T_MESSAGE)
#define IS_MANY(card) (PPROF__C_##card == PPROF__C_MANY)
#define KIND(type, card)                                                                           \
    (IS_MSG(type) ? (IS_MANY(card) ? PPROF__K_MSG_MANY : PPROF__K_MSG_ONE)                         \
                  : (IS_MANY(card) ? PPROF__K_MANY : PPROF__K_ONE))

/* Only for the sub of scalar fields (none), which the tables hold as NULL. */
static const pprof__schema pprof__schema_none;

#define PPROF_MESSAGE(m, fields) static const char *const names_##m[] = {"", fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx) #name,
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields) static const uint8_t kinds_##m[] = {PPROF__K_UNKNOWN, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx) KIND(type, card),
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields) static const pprof__schema *const subs_##m[] = {NULL, fields};
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    (IS_MSG(type) ? &pprof__schema_##sub : NULL),
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields) enum { HAS_SUB_##m = 0 fields };
#define PPROF_FIELD(m, num, name, type, card, sub, strx) +IS_MSG(type)
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE

#define PPROF_MESSAGE(m, fields)                                                                   \
    const pprof__schema pprof__schema_##m = {#m, sizeof(names_##m) / sizeof(names_##m[0]),         \
                                             kinds_##m, names_##m, HAS_SUB_##m ? subs_##m : NULL};
#include "schema.def"
#undef PPROF_MESSAGE

const pprof__schema_field pprof__schema_fields[] = {
#define PPROF_MESSAGE(m, fields) fields
#define PPROF_FIELD(m, num, name, type, card, sub, strx)                                           \
    {#m, #name, #sub, num, PPROF__T_##type, PPROF__C_##card, PPROF__X_##strx},
#include "schema.def"
#undef PPROF_FIELD
#undef PPROF_MESSAGE
};
const size_t pprof__schema_n_fields =
    sizeof(pprof__schema_fields) / sizeof(pprof__schema_fields[0]);
