/* Location rules: references to mappings and functions, addresses, duplicates, and S1 (one
 * address expanding to different inline frames within the profile). */
#include "check-private.h"

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
    const pprof_profile *p = k->p;
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

pprof_status
pprof__check_locations(chk *k)
{
    const pprof_profile *p = k->p;
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
        pprof__check_id(k, "location", i, x->id, &p->loc_idx, &p->location_offs);
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
