/* The strict checker. One pass per table over flat arrays; hash tables only where a rule needs
 * grouping (S1, S7 duplicates). Findings are counted always and formatted only while under the
 * caller's limit, so a profile with millions of broken entries costs no more than a clean one. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "check-private.h"
#include "regex-private.h"
#include "hash-private.h"
#include "htab-private.h"
#include "wire-private.h"

/* ---------------------------------------------------------------- registry */

static const pprof_rule_info RULES[] = {
#define PPROF_RULE(sym, id, sev, ref, summary, rationale, example)                                 \
    {id, sev, ref, summary, rationale, example},
#include "rules.def"
#undef PPROF_RULE
};

const pprof_rule_info *
pprof_rule_get(pprof_rule rule)
{
    if ((unsigned)rule >= PPROF_RULE_COUNT)
        return NULL;
    return &RULES[rule];
}

bool
pprof_rule_find(const char *id, pprof_rule *out)
{
    for (unsigned i = 0; id && i < PPROF_RULE_COUNT; i++) {
        if (strcasecmp(RULES[i].id, id) == 0) {
            if (out)
                *out = (pprof_rule)i;
            return true;
        }
    }
    return false;
}

const char *
pprof_severity_name(pprof_severity s)
{
    switch (s) {
    case PPROF_SEVERITY_NOTE: return "note";
    case PPROF_SEVERITY_WARNING: return "warning";
    case PPROF_SEVERITY_ERROR: return "error";
    }
    return "unknown";
}

void
pprof_check_options_init(pprof_check_options *opts)
{
    const pprof_check_options d = PPROF_CHECK_OPTIONS_INIT;
    *opts = d;
}

/* ---------------------------------------------------------------- reporting */

void
pprof__ck_init(pprof__ck *c, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
               pprof_check_summary *sum)
{
    pprof_check_options o = PPROF_CHECK_OPTIONS_INIT;
    if (opts) {
        size_t n = opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o);
        memcpy(&o, opts, n);
        o.struct_size = sizeof(o);
    }
    memset(c, 0, sizeof(*c));
    c->enabled = o.enabled;
    c->n_enabled = o.enabled ? o.n_enabled : 0;
    c->max = o.max_findings;
    c->fn = fn;
    c->ctx = ctx;
    c->sum = sum;
}

bool
pprof__ck_on(const pprof__ck *c, pprof_rule r)
{
    return !c->enabled || (size_t)r >= c->n_enabled || c->enabled[r];
}

bool
pprof__ck_take(pprof__ck *c, pprof_rule r)
{
    if (!pprof__ck_on(c, r))
        return false;
    if (c->sum)
        c->sum->count[RULES[r].severity]++;
    if (c->stop || !c->fn || c->reported >= c->max) {
        if (c->sum)
            c->sum->truncated = c->sum->truncated || c->fn != NULL;
        return false;
    }
    return true;
}

void
pprof__ck_emit(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *msg)
{
    pprof_finding f = {
        .rule = r,
        .rule_id = RULES[r].id,
        .severity = RULES[r].severity,
        .file = c->file,
        .offset = off,
        .path = path ? path : "",
        .message = msg,
    };
    c->reported++;
    if (c->sum)
        c->sum->reported++;
    if (!c->fn(c->ctx, &f)) {
        c->stop = true;
        if (c->sum)
            c->sum->truncated = true;
    }
}

void
pprof__ck_put(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pprof__ck_emit(c, r, off, path, msg);
}

/* A finding on one path, formatted only when it will be delivered. */
#define FIND(c, rule, off, pathfmt_args, ...)                                                      \
    do {                                                                                           \
        if (pprof__ck_take(c, rule)) {                                                             \
            char path_[160];                                                                       \
            snprintf pathfmt_args;                                                                 \
            pprof__ck_put(c, rule, off, path_, __VA_ARGS__);                                       \
        }                                                                                          \
    } while (0)
#define P(...) (path_, sizeof(path_), __VA_ARGS__)

static uint64_t
off_at(const pprof__vec *offs, size_t i)
{
    return i < offs->len ? PPROF__AT(*offs, uint64_t, i) : PPROF_NO_OFFSET;
}

/* ---------------------------------------------------------------- helpers */

/* The edit engine's gate (regex.c), so the checker and pprof-edit accept the same patterns. */
const char *
pprof__regex_error(const char *s, size_t n)
{
    return pprof__re2_check(s, n, NULL, NULL);
}

/* ---------------------------------------------------------------- checker state */

typedef struct chk {
    pprof__ck c;
    pprof_profile *p;
    const pprof_allocator *a;
    size_t nstr;
    bool implicit_empty; /* no string table: index 0 is read as "" and reported once */
    uint8_t *str_used;
    uint8_t *map_used, *loc_used, *fn_used;
} chk;

/* A string field; on a bad index reports PD1 with the field's path. */
#define SREF(k, idx, off, pathfmt_args)                                                            \
    do {                                                                                           \
        int64_t i_ = (idx);                                                                        \
        if ((uint64_t)i_ < (k)->nstr)                                                              \
            (k)->str_used[i_] = 1;                                                                 \
        else if (!(i_ == 0 && (k)->implicit_empty))                                                \
            FIND(&(k)->c, PPROF_RULE_PD1_STRING_INDEX, off, pathfmt_args,                          \
                 "string index %lld is out of range: expected 0..%zu (the string table has %zu "   \
                 "entries)",                                                                       \
                 (long long)i_, (k)->nstr ? (k)->nstr - 1 : 0, (k)->nstr);                         \
    } while (0)

static bool
str_of(const chk *k, int64_t idx, pprof_string *s)
{
    if (pprof__str(k->p, idx, s))
        return true;
    s->data = "";
    s->len = 0;
    return false;
}

/* ---------------------------------------------------------------- generic index set */

/* Entity indices by content (the common table); callers give the hash and an equality test.
 * Sized for every index up front, so adding never allocates. */
typedef pprof__htab iset;

static bool
iset_init(const pprof_allocator *a, iset *s, size_t n)
{
    return pprof__htab_init(s, a, n);
}

static void
iset_free(const pprof_allocator *a, iset *s)
{
    pprof__htab_free(s, a);
}

/* Returns the earlier equal index, or PPROF_NONE after inserting i. */
static uint32_t
iset_add(iset *s, uint64_t h, uint32_t i, bool (*eq)(const void *, uint32_t, uint32_t),
         const void *ctx)
{
    pprof__htab_probe at;
    uint32_t v;
    PPROF__HTAB_FIND(s, h, at, v, eq(ctx, v, i));
    if (v == PPROF_NONE)
        pprof__htab_insert_at(s, &at, i);
    return v;
}

/* ---------------------------------------------------------------- strings */

static bool
str_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const pprof_string *s = ctx;
    return s[a].len == s[b].len && memcmp(s[a].data, s[b].data, s[a].len) == 0;
}

static pprof_status
check_strings(chk *k)
{
    pprof_profile *p = k->p;
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
    iset set = {0};
    if (dup_on && !iset_init(k->a, &set, k->nstr))
        return PPROF_E_NOMEM;
    uint64_t dups = 0;
    size_t first_dup = 0, first_dup_of = 0;
    for (size_t i = 0; i < k->nstr; i++) {
        size_t bad;
        if (!pprof__utf8_valid((const uint8_t *)st[i].data, st[i].len, &bad))
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
static void
check_id(chk *k, const char *what, size_t i, uint64_t id, const pprof__idmap *m,
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

/* ---------------------------------------------------------------- mappings */

static int
cmp_u64pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static pprof_status
check_mappings(chk *k)
{
    pprof_profile *p = k->p;
    const pprof_mapping *m = p->mappings.data;
    size_t n = p->mappings.len;
    size_t n_ranged = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = off_at(&p->mapping_offs, i);
        unsigned long long id = (unsigned long long)m[i].id;
        check_id(k, "mapping", i, m[i].id, &p->map_idx, &p->mapping_offs);
        SREF(k, m[i].filename, off, P("mapping[%zu](id=%llu).filename", i, id));
        SREF(k, m[i].build_id, off, P("mapping[%zu](id=%llu).build_id", i, id));
        if (m[i].memory_limit < m[i].memory_start)
            FIND(&k->c, PPROF_RULE_S5_MAPPING_LIMIT, off,
                 P("mapping[%zu](id=%llu).memory_limit", i, id),
                 "memory_limit 0x%llx is below memory_start 0x%llx; expected limit >= start",
                 (unsigned long long)m[i].memory_limit, (unsigned long long)m[i].memory_start);
        else if (m[i].memory_limit > m[i].memory_start)
            n_ranged++;
        pprof_string b;
        if (str_of(k, m[i].build_id, &b) && b.len == 1)
            FIND(&k->c, PPROF_RULE_S22_BUILD_ID_SHORT, off,
                 P("mapping[%zu](id=%llu).build_id", i, id),
                 "build_id \"%.*s\" is 1 byte long; expected an empty or a real build id (2 bytes "
                 "or more)",
                 (int)b.len, b.data);
    }
    if (n_ranged > 1 && pprof__ck_on(&k->c, PPROF_RULE_S5_MAPPING_OVERLAP)) {
        uint64_t *r = pprof__malloc(k->a, n_ranged * 2 * sizeof(uint64_t));
        if (!r)
            return PPROF_E_NOMEM;
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (m[i].memory_limit > m[i].memory_start) {
                r[2 * j] = m[i].memory_start;
                r[2 * j + 1] = i;
                j++;
            }
        qsort(r, n_ranged, 2 * sizeof(uint64_t), cmp_u64pair);
        size_t prev = (size_t)r[1];
        for (size_t x = 1; x < n_ranged; x++) {
            size_t i = (size_t)r[2 * x + 1];
            if (m[i].memory_start < m[prev].memory_limit) {
                FIND(&k->c, PPROF_RULE_S5_MAPPING_OVERLAP, off_at(&p->mapping_offs, i),
                     P("mapping[%zu](id=%llu)", i, (unsigned long long)m[i].id),
                     "range [0x%llx, 0x%llx) overlaps mapping[%zu](id=%llu) [0x%llx, 0x%llx); "
                     "expected disjoint mappings",
                     (unsigned long long)m[i].memory_start, (unsigned long long)m[i].memory_limit,
                     prev, (unsigned long long)m[prev].id, (unsigned long long)m[prev].memory_start,
                     (unsigned long long)m[prev].memory_limit);
            }
            if (m[i].memory_limit > m[prev].memory_limit)
                prev = i;
        }
        pprof__free(k->a, r);
    }
    return PPROF_OK;
}

/* ---------------------------------------------------------------- functions */

static bool
fn_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const pprof_function *f = ctx;
    return f[a].name == f[b].name && f[a].system_name == f[b].system_name &&
           f[a].filename == f[b].filename && f[a].start_line == f[b].start_line;
}

static pprof_status
check_functions(chk *k)
{
    pprof_profile *p = k->p;
    const pprof_function *f = p->functions.data;
    size_t n = p->functions.len;
    bool dup_on = pprof__ck_on(&k->c, PPROF_RULE_S7_DUPLICATE_FUNCTION);
    iset set = {0};
    if (dup_on && !iset_init(k->a, &set, n))
        return PPROF_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = off_at(&p->function_offs, i);
        unsigned long long id = (unsigned long long)f[i].id;
        check_id(k, "function", i, f[i].id, &p->fn_idx, &p->function_offs);
        SREF(k, f[i].name, off, P("function[%zu](id=%llu).name", i, id));
        SREF(k, f[i].system_name, off, P("function[%zu](id=%llu).system_name", i, id));
        SREF(k, f[i].filename, off, P("function[%zu](id=%llu).filename", i, id));
        if (dup_on) {
            uint64_t h = pprof__mix64((uint64_t)f[i].name * 31 + (uint64_t)f[i].system_name) ^
                         pprof__mix64((uint64_t)f[i].filename * 17 + (uint64_t)f[i].start_line);
            uint32_t j = iset_add(&set, h, (uint32_t)i, fn_eq, f);
            if (j != PPROF_NONE) {
                pprof_string nm;
                str_of(k, f[i].name, &nm);
                FIND(&k->c, PPROF_RULE_S7_DUPLICATE_FUNCTION, off,
                     P("function[%zu](id=%llu)", i, id),
                     "function \"%.*s\" repeats function[%u](id=%llu) field for field; expected "
                     "each function once",
                     (int)(nm.len > 80 ? 80 : nm.len), nm.data, j, (unsigned long long)f[j].id);
            }
        }
    }
    iset_free(k->a, &set);
    return PPROF_OK;
}

/* ---------------------------------------------------------------- locations */

typedef struct loc_ctx {
    const pprof__location *l;
    const pprof_line *ln;
} loc_ctx;

static bool
same_lines(const loc_ctx *c, uint32_t a, uint32_t b)
{
    const pprof__location *x = &c->l[a], *y = &c->l[b];
    if (x->n_line != y->n_line)
        return false;
    for (uint32_t i = 0; i < x->n_line; i++) {
        const pprof_line *u = &c->ln[x->line_off + i], *v = &c->ln[y->line_off + i];
        if (u->function_id != v->function_id || u->line != v->line || u->column != v->column)
            return false;
    }
    return true;
}

static bool
loc_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const loc_ctx *c = ctx;
    const pprof__location *x = &c->l[a], *y = &c->l[b];
    return x->mapping_id == y->mapping_id && x->address == y->address &&
           x->is_folded == y->is_folded && same_lines(c, a, b);
}

static bool
addr_eq(const void *ctx, uint32_t a, uint32_t b)
{
    const loc_ctx *c = ctx;
    return c->l[a].mapping_id == c->l[b].mapping_id && c->l[a].address == c->l[b].address;
}

static void
describe_loc(pprof_buffer *b, const pprof__location *l, uint32_t i, bool counts)
{
    pprof__buffer_printf(b, "location[%u](id=%llu)", i, (unsigned long long)l->id);
    if (counts)
        pprof__buffer_printf(b, " with %u line%s", l->n_line, l->n_line == 1 ? "" : "s");
}

/* S1 inside one profile: one finding per group of locations at one (mapping, address). */
static pprof_status
report_inline_groups(chk *k, const uint32_t *head, const uint32_t *next, const loc_ctx *lc)
{
    pprof_profile *p = k->p;
    size_t n = p->locations.len;
    pprof_buffer b = {0};
    for (size_t i = 0; i < n; i++) {
        if (head[i] != i || next[i] == PPROF_NONE)
            continue;
        bool count_diff = false, frame_diff = false;
        size_t members = 0;
        for (uint32_t j = (uint32_t)i; j != PPROF_NONE; j = next[j]) {
            members++;
            if (lc->l[j].n_line != lc->l[i].n_line)
                count_diff = true;
            else if (!same_lines(lc, (uint32_t)i, j))
                frame_diff = true;
        }
        pprof_rule r = count_diff ? PPROF_RULE_S1_INLINE_COUNT : PPROF_RULE_S1_INLINE_FRAMES;
        if ((!count_diff && !frame_diff) || !pprof__ck_take(&k->c, r))
            continue;
        b.len = 0;
        pprof__buffer_printf(&b, "%zu locations at mapping_id %llu address 0x%llx %s: ", members,
                             (unsigned long long)lc->l[i].mapping_id,
                             (unsigned long long)lc->l[i].address,
                             count_diff ? "expand to different numbers of inline frames"
                                        : "have different function/line/column sequences");
        size_t shown = 0;
        for (uint32_t j = (uint32_t)i; j != PPROF_NONE; j = next[j]) {
            if (shown == 64) {
                pprof__buffer_printf(&b, ", and %zu more", members - shown);
                break;
            }
            if (shown++)
                pprof__buffer_printf(&b, ", ");
            describe_loc(&b, &lc->l[j], j, count_diff);
        }
        pprof__buffer_printf(&b, "; expected one %s for one address",
                             count_diff ? "number of lines" : "line sequence");
        /* The buffer is reused per group and never NUL-terminated by the printf helper. */
        if (pprof__buffer_append(&b, "", 1) != PPROF_OK || !b.data) {
            pprof_buffer_free(&b);
            return PPROF_E_NOMEM;
        }
        char path[160];
        snprintf(path, sizeof(path), "location[%zu](id=%llu)", i, (unsigned long long)lc->l[i].id);
        pprof__ck_emit(&k->c, r, off_at(&p->location_offs, i), path, (const char *)b.data);
    }
    pprof_buffer_free(&b);
    return PPROF_OK;
}

static pprof_status
check_locations(chk *k)
{
    pprof_profile *p = k->p;
    const pprof__location *l = p->locations.data;
    const pprof_line *ln = p->lines.data;
    const pprof_mapping *maps = p->mappings.data;
    size_t n = p->locations.len;
    loc_ctx lc = {l, ln};
    bool s1_on = pprof__ck_on(&k->c, PPROF_RULE_S1_INLINE_COUNT) ||
                 pprof__ck_on(&k->c, PPROF_RULE_S1_INLINE_FRAMES);
    bool dup_on = pprof__ck_on(&k->c, PPROF_RULE_S7_DUPLICATE_LOCATION);
    iset addrs = {0}, dups = {0};
    uint32_t *head = NULL, *next = NULL, *tail = NULL;
    pprof_status st = PPROF_E_NOMEM;
    if (s1_on) {
        head = pprof__malloc(k->a, (n + 1) * sizeof(uint32_t));
        next = pprof__malloc(k->a, (n + 1) * sizeof(uint32_t));
        tail = pprof__malloc(k->a, (n + 1) * sizeof(uint32_t));
        if (!head || !next || !tail || !iset_init(k->a, &addrs, n))
            goto out;
    }
    if (dup_on && !iset_init(k->a, &dups, n))
        goto out;
    for (size_t i = 0; i < n; i++) {
        const pprof__location *x = &l[i];
        uint64_t off = off_at(&p->location_offs, i);
        unsigned long long id = (unsigned long long)x->id;
        check_id(k, "location", i, x->id, &p->loc_idx, &p->location_offs);
        uint32_t mi = PPROF_NONE;
        if (x->mapping_id) {
            mi = pprof__idmap_get(&p->map_idx, x->mapping_id);
            if (mi == PPROF_NONE)
                FIND(&k->c, PPROF_RULE_S2_LOCATION_MAPPING, off,
                     P("location[%zu](id=%llu).mapping_id", i, id),
                     "mapping_id %llu names no mapping; expected 0 or the id of one of the %zu "
                     "mappings",
                     (unsigned long long)x->mapping_id, p->mappings.len);
            else
                k->map_used[mi] = 1;
        } else if (x->address) {
            FIND(&k->c, PPROF_RULE_S3_ADDRESS_NO_MAPPING, off,
                 P("location[%zu](id=%llu).address", i, id),
                 "address 0x%llx has no mapping; expected a mapping_id so it can be symbolized",
                 (unsigned long long)x->address);
        }
        if (mi != PPROF_NONE && x->address) {
            const pprof_mapping *m = &maps[mi];
            if (m->memory_limit > m->memory_start &&
                (x->address < m->memory_start || x->address >= m->memory_limit))
                FIND(&k->c, PPROF_RULE_S4_ADDRESS_RANGE, off,
                     P("location[%zu](id=%llu).address", i, id),
                     "address 0x%llx is outside mapping[%u](id=%llu) [0x%llx, 0x%llx); expected "
                     "an address inside its mapping",
                     (unsigned long long)x->address, mi, (unsigned long long)m->id,
                     (unsigned long long)m->memory_start, (unsigned long long)m->memory_limit);
        }
        if (mi != PPROF_NONE && maps[mi].has_functions && x->n_line == 0)
            FIND(&k->c, PPROF_RULE_S17_HAS_FUNCTIONS, off, P("location[%zu](id=%llu).line", i, id),
                 "location has no line but its mapping[%u](id=%llu) claims has_functions; "
                 "expected lines, or has_functions false",
                 mi, (unsigned long long)maps[mi].id);
        if (x->address == 0 && x->n_line == 0)
            FIND(&k->c, PPROF_RULE_S6_EMPTY_LOCATION, off, P("location[%zu](id=%llu)", i, id),
                 "location has neither an address nor a line; expected at least one of them");
        for (uint32_t j = 0; j < x->n_line; j++) {
            const pprof_line *y = &ln[x->line_off + j];
            uint32_t fi =
                y->function_id ? pprof__idmap_get(&p->fn_idx, y->function_id) : PPROF_NONE;
            if (fi != PPROF_NONE)
                k->fn_used[fi] = 1;
            else
                FIND(&k->c, PPROF_RULE_CV6_LINE_FUNCTION, off,
                     P("location[%zu](id=%llu).line[%u].function_id", i, id, j),
                     y->function_id ? "function_id %llu names no function; expected the id of one "
                                      "of the %zu functions"
                                    : "function_id %llu is reserved; expected the id of one of "
                                      "the %zu functions",
                     (unsigned long long)y->function_id, p->functions.len);
        }
        if (s1_on) {
            head[i] = tail[i] = (uint32_t)i;
            next[i] = PPROF_NONE;
            if (x->address) {
                uint64_t h = pprof__mix64(x->address ^ pprof__mix64(x->mapping_id));
                uint32_t g = iset_add(&addrs, h, (uint32_t)i, addr_eq, &lc);
                if (g != PPROF_NONE) {
                    next[tail[g]] = (uint32_t)i;
                    tail[g] = (uint32_t)i;
                    head[i] = g;
                }
            }
        }
        if (dup_on) {
            uint64_t h = pprof__mix64(x->address ^ pprof__mix64(x->mapping_id + x->is_folded));
            for (uint32_t j = 0; j < x->n_line; j++) {
                const pprof_line *y = &ln[x->line_off + j];
                h = pprof__mix64(h ^ y->function_id ^ ((uint64_t)y->line << 20) ^
                                 ((uint64_t)y->column << 44));
            }
            uint32_t d = iset_add(&dups, h, (uint32_t)i, loc_eq, &lc);
            if (d != PPROF_NONE)
                FIND(&k->c, PPROF_RULE_S7_DUPLICATE_LOCATION, off,
                     P("location[%zu](id=%llu)", i, id),
                     "location repeats location[%u](id=%llu) (same mapping, address, lines and "
                     "is_folded); expected each location once",
                     d, (unsigned long long)l[d].id);
        }
    }
    st = PPROF_OK;
    if (s1_on)
        st = report_inline_groups(k, head, next, &lc);
out:
    pprof__free(k->a, head);
    pprof__free(k->a, next);
    pprof__free(k->a, tail);
    iset_free(k->a, &addrs);
    iset_free(k->a, &dups);
    return st;
}

/* ---------------------------------------------------------------- samples */

static pprof_status
check_labels(chk *k, size_t si, uint64_t off, const pprof_label *lb, uint32_t n)
{
    /* A hostile sample may carry millions of labels: past a few, find each label's first
     * same-key label by sorting (key, index) pairs instead of a quadratic scan. */
    uint64_t *pairs = NULL;
    uint32_t *first = NULL;
    if (n > 64) {
        pairs = pprof__malloc(k->a, (size_t)n * 2 * sizeof(uint64_t));
        first = pprof__malloc(k->a, (size_t)n * sizeof(uint32_t));
        if (!pairs || !first) {
            pprof__free(k->a, pairs);
            pprof__free(k->a, first);
            return PPROF_E_NOMEM;
        }
        for (uint32_t j = 0; j < n; j++) {
            pairs[2 * j] = (uint64_t)lb[j].key;
            pairs[2 * j + 1] = j;
        }
        qsort(pairs, n, 2 * sizeof(uint64_t), cmp_u64pair);
        for (uint32_t j = 0; j < n; j++)
            first[pairs[2 * j + 1]] = j && pairs[2 * j] == pairs[2 * j - 2]
                                          ? first[pairs[2 * j - 1]]
                                          : (uint32_t)pairs[2 * j + 1];
    }
    for (uint32_t j = 0; j < n; j++) {
        const pprof_label *x = &lb[j];
        SREF(k, x->key, off, P("sample[%zu].label[%u].key", si, j));
        SREF(k, x->str, off, P("sample[%zu].label[%u].str", si, j));
        SREF(k, x->num_unit, off, P("sample[%zu].label[%u].num_unit", si, j));
        if (x->key == 0)
            FIND(&k->c, PPROF_RULE_S11_LABEL_KEY_EMPTY, off, P("sample[%zu].label[%u].key", si, j),
                 "label key is the empty string; expected a key");
        if (x->str && (x->num || x->num_unit))
            FIND(&k->c, PPROF_RULE_S8_LABEL_STR_AND_NUM, off, P("sample[%zu].label[%u]", si, j),
                 "label has both str and num/num_unit (num %lld); expected one kind of value, "
                 "Go keeps only the string",
                 (long long)x->num);
        else if (!x->str && x->num == 0 && x->num_unit)
            FIND(&k->c, PPROF_RULE_S9_LABEL_UNIT_WITHOUT_NUM, off,
                 P("sample[%zu].label[%u].num_unit", si, j),
                 "label has num_unit but num is 0; expected num_unit only with a numeric value");
        else if (!x->str && x->num == 0)
            FIND(&k->c, PPROF_RULE_S10_LABEL_LOST, off, P("sample[%zu].label[%u]", si, j),
                 "label has no string value and num 0 without unit; Go drops it on decode, "
                 "expected a value");
        uint32_t q = j;
        if (n <= 64) {
            /* Labels per sample are few: a quadratic scan beats any table here. */
            for (uint32_t c = 0; c < j && q == j; c++)
                if (lb[c].key == x->key)
                    q = c;
        } else {
            q = first[j];
        }
        if (q == j)
            continue;
        bool qs = lb[q].str != 0, xs = x->str != 0;
        if (qs == xs)
            FIND(&k->c, PPROF_RULE_S11_LABEL_DUPLICATE_KEY, off,
                 P("sample[%zu].label[%u].key", si, j),
                 "%s label key repeats label[%u] of the same sample; expected one value per key",
                 xs ? "string" : "numeric", q);
        else
            FIND(&k->c, PPROF_RULE_S11_LABEL_STR_NUM_KEY, off,
                 P("sample[%zu].label[%u].key", si, j),
                 "label key is used by label[%u] with a %s value too; expected one kind of value "
                 "per key",
                 q, qs ? "string" : "numeric");
    }
    pprof__free(k->a, first);
    pprof__free(k->a, pairs);
    return PPROF_OK;
}

static pprof_status
check_samples(chk *k)
{
    pprof_profile *p = k->p;
    size_t n = p->samples.len, nt = p->sample_types.len;
    const pprof__sample *s = p->samples.data;
    const uint64_t *stack = p->stack.data;
    const int64_t *vals = p->values.data;
    const pprof_label *labs = p->labels.data;
    const pprof__idmap *li = &p->loc_idx;
    if (n && nt == 0)
        FIND(&k->c, PPROF_RULE_CV1_NO_SAMPLE_TYPE, PPROF_NO_OFFSET, P("sample_type"),
             "%zu samples but no sample_type; expected one sample_type per value column", n);
    int64_t *sum = pprof__malloc(k->a, (nt + 1) * sizeof(int64_t));
    uint8_t *ovf = pprof__malloc(k->a, nt + 1);
    if (!sum || !ovf) {
        pprof__free(k->a, sum);
        pprof__free(k->a, ovf);
        return PPROF_E_NOMEM;
    }
    memset(sum, 0, (nt + 1) * sizeof(int64_t));
    memset(ovf, 0, nt + 1);
    bool neg_on = pprof__ck_on(&k->c, PPROF_RULE_S15_NEGATIVE_VALUE);
    for (size_t i = 0; i < n; i++) {
        const pprof__sample *x = &s[i];
        uint64_t off = off_at(&p->sample_offs, i);
        const uint64_t *ids = stack ? stack + x->loc_off : NULL;
        for (uint32_t j = 0; j < x->n_loc; j++) {
            uint64_t id = ids[j];
            uint32_t at;
            if (li->dense)
                at = id - 1 <= li->mask ? (uint32_t)(id - 1) : PPROF_NONE;
            else
                at = pprof__idmap_get(li, id);
            if (at != PPROF_NONE)
                k->loc_used[at] = 1;
            else
                FIND(&k->c, PPROF_RULE_CV3_SAMPLE_LOCATION, off,
                     P("sample[%zu].location_id[%u]", i, j),
                     "location id %llu %s; expected the id of one of the %zu locations",
                     (unsigned long long)id, id ? "names no location" : "is reserved",
                     p->locations.len);
        }
        const int64_t *v = vals ? vals + x->val_off : NULL; /* NULL + 0 is undefined */
        if (x->n_val != nt && nt)
            FIND(&k->c, PPROF_RULE_CV2_VALUE_COUNT, off, P("sample[%zu].value", i),
                 "sample has %u values; expected %zu, one per sample_type", x->n_val, nt);
        bool nonzero = false;
        for (uint32_t j = 0; j < x->n_val; j++) {
            int64_t y = v[j];
            nonzero |= y != 0;
            if (j < nt && __builtin_add_overflow(sum[j], y, &sum[j]) && !ovf[j]) {
                ovf[j] = 1;
                FIND(&k->c, PPROF_RULE_S21_VALUE_OVERFLOW, off, P("sample[%zu].value[%u]", i, j),
                     "the sum of value column %u overflows int64 at this sample; expected totals "
                     "that fit in int64",
                     j);
            }
            if (y < 0 && neg_on)
                FIND(&k->c, PPROF_RULE_S15_NEGATIVE_VALUE, off, P("sample[%zu].value[%u]", i, j),
                     "value %lld is negative; expected >= 0 outside diff profiles", (long long)y);
        }
        if (!nonzero && x->n_val)
            FIND(
                &k->c, PPROF_RULE_S16_ZERO_SAMPLE, off, P("sample[%zu].value", i),
                "every value is 0; expected at least one nonzero value (merges drop such samples)");
        if (x->n_lab)
            if (check_labels(k, i, off, labs ? labs + x->lab_off : NULL, x->n_lab)) {
                pprof__free(k->a, sum);
                pprof__free(k->a, ovf);
                return PPROF_E_NOMEM;
            }
    }
    pprof__free(k->a, sum);
    pprof__free(k->a, ovf);
    return PPROF_OK;
}

/* ---------------------------------------------------------------- header */

static void
check_header(chk *k)
{
    pprof_profile *p = k->p;
    const pprof_header *h = &p->hdr;
    const pprof_value_type *t = p->sample_types.data;
    for (size_t i = 0; i < p->sample_types.len; i++) {
        SREF(k, t[i].type, PPROF_NO_OFFSET, P("sample_type[%zu].type", i));
        SREF(k, t[i].unit, PPROF_NO_OFFSET, P("sample_type[%zu].unit", i));
    }
    SREF(k, h->period_type.type, PPROF_NO_OFFSET, P("period_type.type"));
    SREF(k, h->period_type.unit, PPROF_NO_OFFSET, P("period_type.unit"));
    SREF(k, h->drop_frames, PPROF_NO_OFFSET, P("drop_frames"));
    SREF(k, h->keep_frames, PPROF_NO_OFFSET, P("keep_frames"));
    SREF(k, h->default_sample_type, PPROF_NO_OFFSET, P("default_sample_type"));
    SREF(k, h->doc_url, PPROF_NO_OFFSET, P("doc_url"));
    const int64_t *cm = p->comments.data;
    for (size_t i = 0; i < p->comments.len; i++)
        SREF(k, cm[i], PPROF_NO_OFFSET, P("comment[%zu]", i));

    if (h->default_sample_type) {
        pprof_string want, have;
        bool found = false;
        if (str_of(k, h->default_sample_type, &want)) {
            for (size_t i = 0; i < p->sample_types.len && !found; i++)
                found = str_of(k, t[i].type, &have) && have.len == want.len &&
                        memcmp(have.data, want.data, want.len) == 0;
            if (!found)
                FIND(&k->c, PPROF_RULE_S13_DEFAULT_SAMPLE_TYPE, PPROF_NO_OFFSET,
                     P("default_sample_type"),
                     "default_sample_type \"%.*s\" is not the type of any of the %zu sample "
                     "types; expected one of them",
                     (int)(want.len > 80 ? 80 : want.len), want.data, p->sample_types.len);
        }
    }
    const int64_t fr[2] = {h->drop_frames, h->keep_frames};
    for (int i = 0; i < 2; i++) {
        pprof_string re;
        const char *why;
        if (fr[i] && str_of(k, fr[i], &re) && (why = pprof__regex_error(re.data, re.len)))
            FIND(&k->c, PPROF_RULE_S14_FRAMES_REGEX, PPROF_NO_OFFSET,
                 P("%s", i ? "keep_frames" : "drop_frames"),
                 "\"%.*s\" is not a valid regular expression (%s); expected RE2 syntax",
                 (int)(re.len > 100 ? 100 : re.len), re.data, why);
    }
    const struct {
        const char *name;
        int64_t v;
    } hv[] = {{"period", h->period},
              {"duration_nanos", h->duration_nanos},
              {"time_nanos", h->time_nanos}};
    for (size_t i = 0; i < 3; i++)
        if (hv[i].v < 0)
            FIND(&k->c, PPROF_RULE_S15_NEGATIVE_HEADER, PPROF_NO_OFFSET, P("%s", hv[i].name),
                 "%s is %lld; expected a value >= 0", hv[i].name, (long long)hv[i].v);
    if (h->period != 0 && (h->period_type.type == 0 || h->period_type.unit == 0))
        FIND(&k->c, PPROF_RULE_S20_PERIOD_TYPE, PPROF_NO_OFFSET, P("period_type"),
             "period is %lld but period_type has an empty %s; expected a type and a unit",
             (long long)h->period, h->period_type.type == 0 ? "type" : "unit");
}

/* ---------------------------------------------------------------- unused entities */

static void
check_unused(chk *k)
{
    pprof_profile *p = k->p;
    const pprof_mapping *m = p->mappings.data;
    const pprof__location *l = p->locations.data;
    const pprof_function *f = p->functions.data;
    /* A duplicate id is resolved to the last entity: the earlier ones are unreferenced but
     * already reported by CV5, so only entities that own their id count here. */
    for (size_t i = 1; i < p->mappings.len; i++)
        if (!k->map_used[i] && m[i].id && pprof__idmap_get(&p->map_idx, m[i].id) == i)
            FIND(&k->c, PPROF_RULE_S7_UNUSED_MAPPING, off_at(&p->mapping_offs, i),
                 P("mapping[%zu](id=%llu)", i, (unsigned long long)m[i].id),
                 "no location refers to this mapping; expected it to be removed");
    for (size_t i = 0; i < p->locations.len; i++)
        if (!k->loc_used[i] && l[i].id && pprof__idmap_get(&p->loc_idx, l[i].id) == i)
            FIND(&k->c, PPROF_RULE_S7_UNUSED_LOCATION, off_at(&p->location_offs, i),
                 P("location[%zu](id=%llu)", i, (unsigned long long)l[i].id),
                 "no sample refers to this location; expected it to be removed");
    for (size_t i = 0; i < p->functions.len; i++)
        if (!k->fn_used[i] && f[i].id && pprof__idmap_get(&p->fn_idx, f[i].id) == i)
            FIND(&k->c, PPROF_RULE_S7_UNUSED_FUNCTION, off_at(&p->function_offs, i),
                 P("function[%zu](id=%llu)", i, (unsigned long long)f[i].id),
                 "no line refers to this function; expected it to be removed");
    uint64_t unused = 0;
    size_t first = 0;
    for (size_t i = 1; i < k->nstr; i++)
        if (!k->str_used[i] && unused++ == 0)
            first = i;
    if (unused)
        FIND(&k->c, PPROF_RULE_S7_UNUSED_STRING, PPROF_NO_OFFSET, P("string_table[%zu]", first),
             "%llu of %zu strings are referenced by no field (the first is this one); expected "
             "them to be removed",
             (unsigned long long)unused, k->nstr);
}

/* ---------------------------------------------------------------- wire scan */

enum { F_UNKNOWN = 0, F_ONE, F_MANY, F_MSG_ONE, F_MSG_MANY };

typedef struct schema {
    const char *name;
    uint8_t n;
    const uint8_t *kind;
    const char *const *field;
    const struct schema *const *sub; /* by field number, for F_MSG_* */
} schema;

static const uint8_t K_VT[] = {0, F_ONE, F_ONE};
static const char *const N_VT[] = {"", "type", "unit"};
static const schema S_VT = {"value_type", 3, K_VT, N_VT, NULL};
static const uint8_t K_LABEL[] = {0, F_ONE, F_ONE, F_ONE, F_ONE};
static const char *const N_LABEL[] = {"", "key", "str", "num", "num_unit"};
static const schema S_LABEL = {"label", 5, K_LABEL, N_LABEL, NULL};
static const uint8_t K_SAMPLE[] = {0, F_MANY, F_MANY, F_MSG_MANY};
static const char *const N_SAMPLE[] = {"", "location_id", "value", "label"};
static const schema *const SUB_SAMPLE[] = {NULL, NULL, NULL, &S_LABEL};
static const schema S_SAMPLE = {"sample", 4, K_SAMPLE, N_SAMPLE, SUB_SAMPLE};
static const uint8_t K_MAPPING[] = {0,     F_ONE, F_ONE, F_ONE, F_ONE, F_ONE,
                                    F_ONE, F_ONE, F_ONE, F_ONE, F_ONE};
static const char *const N_MAPPING[] = {"",
                                        "id",
                                        "memory_start",
                                        "memory_limit",
                                        "file_offset",
                                        "filename",
                                        "build_id",
                                        "has_functions",
                                        "has_filenames",
                                        "has_line_numbers",
                                        "has_inline_frames"};
static const schema S_MAPPING = {"mapping", 11, K_MAPPING, N_MAPPING, NULL};
static const uint8_t K_LINE[] = {0, F_ONE, F_ONE, F_ONE};
static const char *const N_LINE[] = {"", "function_id", "line", "column"};
static const schema S_LINE = {"line", 4, K_LINE, N_LINE, NULL};
static const uint8_t K_LOCATION[] = {0, F_ONE, F_ONE, F_ONE, F_MSG_MANY, F_ONE};
static const char *const N_LOCATION[] = {"", "id", "mapping_id", "address", "line", "is_folded"};
static const schema *const SUB_LOCATION[] = {NULL, NULL, NULL, NULL, &S_LINE, NULL};
static const schema S_LOCATION = {"location", 6, K_LOCATION, N_LOCATION, SUB_LOCATION};
static const uint8_t K_FUNCTION[] = {0, F_ONE, F_ONE, F_ONE, F_ONE, F_ONE};
static const char *const N_FUNCTION[] = {"", "id", "name", "system_name", "filename", "start_line"};
static const schema S_FUNCTION = {"function", 6, K_FUNCTION, N_FUNCTION, NULL};
static const uint8_t K_PROFILE[] = {
    0,     F_MSG_MANY, F_MSG_MANY, F_MSG_MANY, F_MSG_MANY, F_MSG_MANY, F_MANY, F_ONE,
    F_ONE, F_ONE,      F_ONE,      F_MSG_ONE,  F_ONE,      F_MANY,     F_ONE,  F_ONE};
static const char *const N_PROFILE[] = {"",
                                        "sample_type",
                                        "sample",
                                        "mapping",
                                        "location",
                                        "function",
                                        "string_table",
                                        "drop_frames",
                                        "keep_frames",
                                        "time_nanos",
                                        "duration_nanos",
                                        "period_type",
                                        "period",
                                        "comment",
                                        "default_sample_type",
                                        "doc_url"};
static const schema *const SUB_PROFILE[] = {NULL,        &S_VT,       &S_SAMPLE, &S_MAPPING,
                                            &S_LOCATION, &S_FUNCTION, NULL,      NULL,
                                            NULL,        NULL,        NULL,      &S_VT};
static const schema S_PROFILE = {"", 16, K_PROFILE, N_PROFILE, SUB_PROFILE};

typedef struct wscan {
    chk *k;
    const uint8_t *base;
} wscan;

/* The path of the message being scanned as a chain up to the profile, formatted only when a
 * finding needs it: millions of samples must not each pay for a snprintf. */
typedef struct spath {
    const struct spath *up;
    const char *name;
    size_t idx; /* SIZE_MAX: not indexed */
} spath;

static size_t
spath_fmt(const spath *sp, char *out, size_t cap)
{
    if (!sp || !sp->name)
        return 0;
    size_t n = spath_fmt(sp->up, out, cap);
    if (n >= cap)
        return n;
    int k = sp->idx == SIZE_MAX
                ? snprintf(out + n, cap - n, "%s%s", n ? "." : "", sp->name)
                : snprintf(out + n, cap - n, "%s%s[%zu]", n ? "." : "", sp->name, sp->idx);
    return k < 0 ? n : n + (size_t)k;
}

/* The common case for labels and lines, which are most of the messages: every field a known
 * varint seen once. True when the message has nothing to report; anything else goes to the
 * full scan, which finds and words the problem. */
static inline bool
leaf_clean(const schema *sc, const uint8_t *p, const uint8_t *end)
{
    uint32_t seen = 0;
    while (p < end) {
        uint8_t tag = *p++;
        uint32_t field = tag >> 3;
        if (tag >= 0x80 || (tag & 7) != 0 || field == 0 || field >= sc->n ||
            sc->kind[field] != F_ONE || (seen & (1u << field)))
            return false;
        seen |= 1u << field;
        int k = 0; /* continuation bytes; the 10th byte may hold bit 63 only */
        for (; p < end && (*p & 0x80); p++)
            if (++k == 10)
                return false;
        if (p == end || (k == 9 && *p > PPROF__VARINT_LAST_MAX))
            return false;
        p++;
    }
    return true;
}

/* Samples are most of a profile's bytes: the same shortcut for a whole Sample, whose fields
 * are all repeated (location_id, value, label) so only unknown fields and the labels' own
 * fields can break a rule. */
static inline bool
sample_clean(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t n;
        switch (tag) {
        case 0x08: /* location_id, value: unpacked varints */
        case 0x10:
            if (!pprof__varint(&p, end, &n))
                return false;
            break;
        case 0x0a: /* packed location_id, value */
        case 0x12:
            if (!pprof__varint(&p, end, &n) || n > (uint64_t)(end - p))
                return false;
            p += n;
            break;
        case 0x1a:
            if (!pprof__varint(&p, end, &n) || n > (uint64_t)(end - p) ||
                !leaf_clean(&S_LABEL, p, p + n))
                return false;
            p += n;
            break;
        default: return false;
        }
    }
    return true;
}

/* Decoding already succeeded, so the framing is known to be sound; the checks only guard
 * against surprises. */
static void
scan_msg(wscan *w, const schema *sc, const uint8_t *p, const uint8_t *end, const spath *at)
{
    uint32_t seen = 0;
    size_t counts[16];
    bool time_nonzero = false;
    if (sc->sub)
        memset(counts, 0, sizeof(counts)); /* leaf messages (labels, lines) are the many */
    while (p < end) {
        const uint8_t *tagp = p;
        uint32_t field, wt;
        uint64_t v = 0;
        if (!pprof__tag(&p, end, &field, &wt))
            return;
        const uint8_t *payload = p, *sub_end = NULL;
        switch (wt) {
        case PPROF_WT_VARINT:
            if (!pprof__varint(&p, end, &v))
                return;
            break;
        case PPROF_WT_I64:
            if (end - p < 8)
                return;
            p += 8;
            break;
        case PPROF_WT_I32:
            if (end - p < 4)
                return;
            p += 4;
            break;
        case PPROF_WT_LEN:
            if (!pprof__varint(&p, end, &v) || v > (uint64_t)(end - p))
                return;
            payload = p;
            p += v;
            sub_end = p;
            break;
        default: return;
        }
        uint8_t kind = field < sc->n ? sc->kind[field] : F_UNKNOWN;
        if (kind == F_UNKNOWN) {
            if (pprof__ck_take(&w->k->c, PPROF_RULE_S18_UNKNOWN_FIELD)) {
                char path[160];
                size_t n = spath_fmt(at, path, sizeof(path));
                if (n < sizeof(path))
                    snprintf(path + n, sizeof(path) - n, "%sfield %u", n ? "." : "", field);
                pprof__ck_put(&w->k->c, PPROF_RULE_S18_UNKNOWN_FIELD, (uint64_t)(tagp - w->base),
                              path,
                              "field number %u (wire type %u) is not defined in %s; expected "
                              "only fields of profile.proto (readers skip it and writers drop it)",
                              field, wt, *sc->name ? sc->name : "Profile");
            }
            continue;
        }
        if (kind == F_ONE || kind == F_MSG_ONE) {
            bool again = seen & (1u << field);
            seen |= 1u << field;
            if (sc == &S_PROFILE && field == 9) {
                if (again && time_nonzero)
                    FIND(&w->k->c, PPROF_RULE_W8_CONCATENATED, (uint64_t)(tagp - w->base),
                         P("time_nanos"),
                         "time_nanos appears again (now %lld) after a nonzero value: this looks "
                         "like concatenated profiles; expected one serialized profile",
                         (long long)v);
                else if (again)
                    FIND(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD, (uint64_t)(tagp - w->base),
                         P("time_nanos"),
                         "time_nanos appears more than once; expected it at most once");
                time_nonzero = v != 0;
                continue;
            }
            if (again && pprof__ck_take(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD)) {
                char path[160];
                size_t n = spath_fmt(at, path, sizeof(path));
                if (n < sizeof(path))
                    snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "", sc->field[field]);
                pprof__ck_put(&w->k->c, PPROF_RULE_S19_REPEATED_FIELD, (uint64_t)(tagp - w->base),
                              path,
                              "non-repeated field %s appears more than once; the last value "
                              "wins, expected it at most once",
                              sc->field[field]);
            }
        }
        if ((kind == F_MSG_ONE || kind == F_MSG_MANY) && wt == PPROF_WT_LEN && sc->sub &&
            sc->sub[field]) {
            size_t idx = counts[field]++;
            const schema *ss = sc->sub[field];
            if (ss->sub ? ss == &S_SAMPLE && sample_clean(payload, sub_end)
                        : leaf_clean(ss, payload, sub_end))
                continue;
            spath sub = {at, sc->field[field], kind == F_MSG_ONE ? SIZE_MAX : idx};
            scan_msg(w, ss, payload, sub_end, &sub);
        }
    }
}

/* W8, S18 and S19 need the wire bytes: one scan of tags, skipping every payload. */
static void
check_wire(chk *k)
{
    pprof_profile *p = k->p;
    if (!p->buf || !p->buf_len)
        return;
    if (!pprof__ck_on(&k->c, PPROF_RULE_W8_CONCATENATED) &&
        !pprof__ck_on(&k->c, PPROF_RULE_S18_UNKNOWN_FIELD) &&
        !pprof__ck_on(&k->c, PPROF_RULE_S19_REPEATED_FIELD))
        return;
    wscan w = {k, p->buf};
    scan_msg(&w, &S_PROFILE, p->buf, p->buf + p->buf_len, NULL);
}

/* ---------------------------------------------------------------- entry points */

pprof_status
pprof_check(pprof_profile *p, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
            pprof_check_summary *summary, pprof_error *err)
{
    if (summary)
        memset(summary, 0, sizeof(*summary));
    if (!p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile");
    chk k = {0};
    pprof__ck_init(&k.c, opts, fn, ctx, summary);
    k.p = p;
    k.a = &p->alloc;
    k.nstr = p->strings.len;
    k.implicit_empty = k.nstr == 0;
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    k.str_used = pprof__malloc(k.a, k.nstr + 1);
    k.map_used = pprof__malloc(k.a, p->mappings.len + 1);
    k.loc_used = pprof__malloc(k.a, p->locations.len + 1);
    k.fn_used = pprof__malloc(k.a, p->functions.len + 1);
    if (!k.str_used || !k.map_used || !k.loc_used || !k.fn_used) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    memset(k.str_used, 0, k.nstr + 1);
    memset(k.map_used, 0, p->mappings.len + 1);
    memset(k.loc_used, 0, p->locations.len + 1);
    memset(k.fn_used, 0, p->functions.len + 1);
    if ((st = check_strings(&k)) || (st = check_mappings(&k)) || (st = check_functions(&k)) ||
        (st = check_locations(&k)) || (st = check_samples(&k)))
        goto out;
    check_header(&k);
    check_unused(&k);
    check_wire(&k);
out:
    pprof__free(k.a, k.str_used);
    pprof__free(k.a, k.map_used);
    pprof__free(k.a, k.loc_used);
    pprof__free(k.a, k.fn_used);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return st;
}

bool
pprof_check_read_error_rule(const pprof_error *e, pprof_rule *out)
{
    pprof_rule r;
    if (!e)
        return false;
    switch (e->code) {
    case PPROF_E_EMPTY: r = PPROF_RULE_W7_EMPTY; break;
    case PPROF_E_COMPRESSION:
    case PPROF_E_UNSUPPORTED: r = PPROF_RULE_R1_COMPRESSION; break;
    case PPROF_E_LIMIT: r = PPROF_RULE_R2_LIMIT; break;
    case PPROF_E_WIRE: {
        /* The decoder's messages are fixed strings of this library; classify by them. */
        const char *m = e->message;
        bool group = strstr(m, "group") || strstr(m, "wire type 6") || strstr(m, "wire type 7");
        if (strncmp(m, "type mismatch", 13) == 0)
            r = group ? PPROF_RULE_W4_BAD_WIRE_TYPE : PPROF_RULE_W5_TYPE_MISMATCH;
        else if (strncmp(m, "declared length", 15) == 0)
            r = PPROF_RULE_W2_BAD_LENGTH;
        else if (strncmp(m, "unknown field", 13) == 0)
            r = group                           ? PPROF_RULE_W4_BAD_WIRE_TYPE
                : strstr(m, "fixed")            ? PPROF_RULE_W3_TRUNCATED_FIXED
                : strstr(m, "length-delimited") ? PPROF_RULE_W2_BAD_LENGTH
                                                : PPROF_RULE_W1_BAD_VARINT;
        else
            r = PPROF_RULE_W1_BAD_VARINT;
        break;
    }
    case PPROF_E_INVALID: /* the decoder refuses these two rules unless relaxed */
        if (strstr(e->message, "W6-string-table-0"))
            r = PPROF_RULE_W6_STRING_TABLE_0;
        else if (strstr(e->message, "W8-concatenated"))
            r = PPROF_RULE_W8_CONCATENATED;
        else
            return false;
        break;
    default: return false;
    }
    if (out)
        *out = r;
    return true;
}
