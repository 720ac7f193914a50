/* The rule registry: rules.def as a table, looked up by enum or by id. */
#include <strings.h>

#include "check-private.h"

const pprof_rule_info pprof__rules[PPROF_RULE_COUNT] = {
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
    return &pprof__rules[rule];
}

bool
pprof_rule_find(const char *id, pprof_rule *out)
{
    for (unsigned i = 0; id && i < PPROF_RULE_COUNT; i++) {
        if (strcasecmp(pprof__rules[i].id, id) == 0) {
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
