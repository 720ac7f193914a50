/* schema.def against protobuf-c's descriptors, which protoc-c generates from profile.proto: the
 * same messages, and in each the same fields with the same numbers, names, types, cardinality,
 * packing and message types. Also the generated tables the decoder and the checker read. */
#include <stdio.h>
#include <string.h>

#include "pbc-private.h"
#include "schema-tables.h"
#include "tap.h"

typedef struct msg {
    const char *name;
    const ProtobufCMessageDescriptor *d;
    const pprof__schema *s;
} msg;

static const msg MSGS[] = {
#define PPROF_MESSAGE(m, fields) {#m, &perftools__profiles__##m##__descriptor, &pprof__schema_##m},
#include "schema.def"
#undef PPROF_MESSAGE
};
#define N_MSGS (sizeof(MSGS) / sizeof(MSGS[0]))

static const msg *
find_msg(const char *name)
{
    for (size_t i = 0; i < N_MSGS; i++)
        if (strcmp(MSGS[i].name, name) == 0)
            return &MSGS[i];
    return NULL;
}

static const ProtobufCFieldDescriptor *
find_field(const ProtobufCMessageDescriptor *d, unsigned id)
{
    for (unsigned i = 0; i < d->n_fields; i++)
        if (d->fields[i].id == id)
            return &d->fields[i];
    return NULL;
}

static ProtobufCType
pbc_type(uint8_t t)
{
    switch (t) {
    case PPROF__T_INT64: return PROTOBUF_C_TYPE_INT64;
    case PPROF__T_UINT64: return PROTOBUF_C_TYPE_UINT64;
    case PPROF__T_BOOL: return PROTOBUF_C_TYPE_BOOL;
    case PPROF__T_STRING: return PROTOBUF_C_TYPE_STRING;
    case PPROF__T_MESSAGE: return PROTOBUF_C_TYPE_MESSAGE;
    }
    return (ProtobufCType)-1;
}

/* Every message of the .proto is in the .def with as many fields (so none is missing). */
static void
test_messages(tap *t)
{
    const ProtobufCMessageDescriptor *all[] = {
        &perftools__profiles__profile__descriptor, &perftools__profiles__value_type__descriptor,
        &perftools__profiles__sample__descriptor,  &perftools__profiles__label__descriptor,
        &perftools__profiles__mapping__descriptor, &perftools__profiles__location__descriptor,
        &perftools__profiles__line__descriptor,    &perftools__profiles__function__descriptor};
    tap_ok(t, N_MSGS == sizeof(all) / sizeof(all[0]), "the .def has the %zu messages of the .proto",
           sizeof(all) / sizeof(all[0]));
    for (size_t i = 0; i < N_MSGS; i++) {
        const msg *m = &MSGS[i];
        size_t n = 0;
        for (size_t j = 0; j < PPROF__SCHEMA_N_FIELDS; j++)
            n += strcmp(pprof__schema_fields[j].msg, m->name) == 0;
        tap_ok(t, m->d->n_fields == n && m->s->n == n + 1,
               "%s: %u fields in the .proto, %zu in the .def, table of %u", m->d->name,
               m->d->n_fields, n, m->s->n);
    }
}

static void
test_fields(tap *t)
{
    for (size_t j = 0; j < PPROF__SCHEMA_N_FIELDS; j++) {
        const pprof__schema_field *f = &pprof__schema_fields[j];
        const msg *m = find_msg(f->msg);
        const ProtobufCFieldDescriptor *d = m ? find_field(m->d, f->number) : NULL;
        if (!tap_ok(t, d != NULL, "%s.%s: field %u is in the .proto", f->msg, f->name, f->number))
            continue;
        bool many = f->card == PPROF__C_MANY;
        bool scalar = f->type != PPROF__T_MESSAGE && f->type != PPROF__T_STRING;
        const msg *sub = find_msg(f->sub);
        bool ok = strcmp(d->name, f->name) == 0 && d->type == pbc_type(f->type) &&
                  d->label == (many ? PROTOBUF_C_LABEL_REPEATED : PROTOBUF_C_LABEL_NONE) &&
                  !!(d->flags & PROTOBUF_C_FIELD_FLAG_PACKED) == (many && scalar) &&
                  (f->type == PPROF__T_MESSAGE ? sub && d->descriptor == sub->d
                                               : strcmp(f->sub, "none") == 0) &&
                  (f->strx == PPROF__X_PLAIN || f->type == PPROF__T_INT64);
        if (!tap_ok(t, ok, "%s.%s = %u: name, type, cardinality, packing and sub-message agree",
                    f->msg, f->name, f->number))
            tap_diag("  the .proto has %s type %d label %d flags %u", d->name, (int)d->type,
                     (int)d->label, d->flags);
    }
}

/* The tables generated for the decoder's names and the checker's wire scan. */
static void
test_tables(tap *t)
{
    size_t bad = 0;
    for (size_t j = 0; j < PPROF__SCHEMA_N_FIELDS; j++) {
        const pprof__schema_field *f = &pprof__schema_fields[j];
        const pprof__schema *s = find_msg(f->msg)->s;
        const msg *sub = find_msg(f->sub);
        uint8_t want = f->type == PPROF__T_MESSAGE
                           ? (f->card == PPROF__C_MANY ? PPROF__K_MSG_MANY : PPROF__K_MSG_ONE)
                           : (f->card == PPROF__C_MANY ? PPROF__K_MANY : PPROF__K_ONE);
        if (f->number >= s->n || strcmp(s->field[f->number], f->name) != 0 ||
            s->kind[f->number] != want ||
            (s->sub ? s->sub[f->number] != (sub ? sub->s : NULL) : sub != NULL)) {
            tap_diag("  %s.%s: table entry differs", f->msg, f->name);
            bad++;
        }
    }
    tap_ok(t, bad == 0, "names, kinds and sub-messages of every field are in the tables");
    tap_ok(t,
           pprof__schema_label.sub == NULL && pprof__schema_line.sub == NULL &&
               pprof__schema_sample.sub != NULL && pprof__schema_profile.sub != NULL,
           "only messages with message fields have a sub table");
    tap_ok(t, strcmp(pprof__schema_profile.field[0], "") == 0 && pprof__schema_profile.n == 16,
           "field 0 has no name; Profile's table covers 0..15");
    /* the wire types the guard accepts for each top-level field, against protobuf's rules */
    size_t bad_wire = 0;
    for (size_t j = 0; j < PPROF__SCHEMA_N_FIELDS; j++) {
        const pprof__schema_field *f = &pprof__schema_fields[j];
        if (strcmp(f->msg, "profile") != 0)
            continue;
        bool len = f->type == PPROF__T_MESSAGE || f->type == PPROF__T_STRING;
        unsigned want =
            len ? 1u << PPROF_WT_LEN
                : 1u << PPROF_WT_VARINT | (f->card == PPROF__C_MANY ? 1u << PPROF_WT_LEN : 0);
        if (pprof__wire_profile[f->number] != want) {
            tap_diag("  profile.%s: wire types %#x, want %#x", f->name,
                     pprof__wire_profile[f->number], want);
            bad_wire++;
        }
    }
    tap_ok(t,
           bad_wire == 0 && pprof__wire_profile[0] == 0 &&
               pprof__wire_profile[PPROF__F_profile_comment] ==
                   (1u << PPROF_WT_VARINT | 1u << PPROF_WT_LEN) &&
               pprof__wire_profile[PPROF__F_profile_sample] == 1u << PPROF_WT_LEN,
           "wire types by field: messages and strings length-delimited, numbers varints, comment "
           "also packed");
    tap_ok(t,
           PPROF__F_profile_string_table == 6 && PPROF__F_sample_label == 3 &&
               PPROF__F_mapping_has_inline_frames == 10,
           "field number constants");
}

int
main(void)
{
    tap t = {0};
    test_messages(&t);
    test_fields(&t);
    test_tables(&t);
    return tap_done(&t);
}
