/* Profile-level rules (sample types, period, frame regexps, header values) and the unused
 * entity rules, which need every reference counted first. */
#include "check-private.h"

/* ---------------------------------------------------------------- header */

pprof_status
pprof__check_header(chk *k)
{
    const pprof_profile *p = k->p;
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
    for (int i = 0; i < 2 && k->c.regex_check && pprof__ck_on(&k->c, PPROF_RULE_S14_FRAMES_REGEX);
         i++) {
        pprof_string re;
        const char *why = NULL;
        int bad = fr[i] && str_of(k, fr[i], &re) ? k->c.regex_check(re.data, re.len, &why) : 0;
        if (bad < 0)
            return PPROF_E_NOMEM;
        if (bad)
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
    return PPROF_OK;
}

/* ---------------------------------------------------------------- unused entities */

void
pprof__check_unused(chk *k)
{
    const pprof_profile *p = k->p;
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
