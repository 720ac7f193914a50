/* String table rules (PD1, W6, S7 duplicate strings, S23) and the id rules every table shares
 * (CV4, CV5). */
#include "check-private.h"

/* ---------------------------------------------------------------- strings */

static bool
str_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const pprof_string *s = ctx;
    return s[a].len == s[b].len && memcmp(s[a].data, s[b].data, s[a].len) == 0;
}

pprof_status
pprof__check_strings(chk *k)
{
    const pprof_profile *p = k->p;
    const pprof_string *st = p->strings.data;
    if (k->nstr == 0) {
        FIND(&k->c, PPROF_RULE_PD1_NO_STRING_TABLE, PPROF_NO_OFFSET, P("string_table"),
             "the profile has no string table; expected at least string_table[0] = \"\"");
        return PPROF_OK;
    }
    if (st[0].len != 0)
        FIND(&k->c, PPROF_RULE_W6_STRING_TABLE_0, PPROF_NO_OFFSET, P("string_table[0]"),
             "string_table[0] is \"%.*s\" (%zu bytes); expected the empty string",
             (int)(st[0].len > 40 ? 40 : st[0].len), st[0].data, st[0].len);
    bool dup_on = pprof__ck_on(&k->c, PPROF_RULE_S7_DUPLICATE_STRING);
    bool utf8_on = pprof__ck_on(&k->c, PPROF_RULE_S23_UTF8);
    iset set = {0};
    if (dup_on && !iset_init(k->a, &set, k->nstr))
        return PPROF_E_NOMEM;
    uint64_t dups = 0;
    size_t first_dup = 0, first_dup_of = 0;
    for (size_t i = 0; i < k->nstr; i++) {
        size_t bad;
        if (utf8_on && !pprof__utf8_valid((const uint8_t *)st[i].data, st[i].len, &bad))
            FIND(&k->c, PPROF_RULE_S23_UTF8, PPROF_NO_OFFSET, P("string_table[%zu]", i),
                 "byte %zu (0x%02x) of this %zu-byte string is not valid UTF-8; expected UTF-8 "
                 "text",
                 bad, (unsigned)(uint8_t)st[i].data[bad], st[i].len);
        if (dup_on) {
            uint32_t j = iset_add(&set, pprof__hash_bytes(0, st[i].data, st[i].len), (uint32_t)i,
                                  str_eq, st);
            if (j != PPROF_NONE && dups++ == 0) {
                first_dup = i;
                first_dup_of = j;
            }
        }
    }
    if (dups)
        FIND(&k->c, PPROF_RULE_S7_DUPLICATE_STRING, PPROF_NO_OFFSET,
             P("string_table[%zu]", first_dup),
             "%llu strings repeat an earlier entry (the first repeats string_table[%zu]); expected "
             "each string once",
             (unsigned long long)dups, first_dup_of);
    iset_free(k->a, &set);
    return PPROF_OK;
}

/* ---------------------------------------------------------------- ids */

/* CV4/CV5 for one entity: id 0, or an id a later entity also has (lookups keep the last). */
void
pprof__check_id(chk *k, const char *what, size_t i, uint64_t id, const pprof__idmap *m,
                const pprof__vec *offs)
{
    if (id == 0) {
        FIND(&k->c, PPROF_RULE_CV4_ID_ZERO, off_at(offs, i), P("%s[%zu](id=0).id", what, i),
             "%s id 0 is reserved; expected a nonzero id unique in the %s table", what, what);
        return;
    }
    if (m->dense)
        return;
    uint32_t last = pprof__idmap_get(m, id);
    if (last != PPROF_NONE && last != i)
        FIND(&k->c, PPROF_RULE_CV5_DUPLICATE_ID, off_at(offs, i),
             P("%s[%zu](id=%llu).id", what, i, (unsigned long long)id),
             "%s id %llu is also used by %s[%u]; expected unique ids (references resolve to the "
             "last one)",
             what, (unsigned long long)id, what, last);
}
