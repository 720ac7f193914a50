/* Writes docs/rules.md from the rule registry (pprof/rules.def): `gen-rules-md [OUT]`. */
#include <stdio.h>
#include <string.h>

#include "check.h"

static void
cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

int
main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!f) {
        perror(argv[1]);
        return 3;
    }
    fputs(
        "# pprof-check rules\n\n"
        "<!-- Generated from libpprof/include/pprof/rules.def by tests/check/gen-rules-md.c\n"
        "     (`ninja rules-md`); the `rules-md` test fails when this file is stale. -->\n\n"
        "Every finding of `pprof_check()` and `pprof-check` carries one of these ids. An id\n"
        "never changes meaning and is never reused; new rules are appended. The id begins with\n"
        "the row of the format reference ([format.md](format.md) section 2; section 1.1 for\n"
        "**R**) it implements: **W** wire (decoder failures and a scan\n"
        "of the raw bytes), **R** container and reader limits, **PD** Go's postDecode, **CV**\n"
        "Go's CheckValid, **S** strict rules Go does not enforce, **O** the rules of the\n"
        "OpenTelemetry Profiles protocol (opentelemetry-proto ac2c4b5), checked on OTLP input\n"
        "(`pprof_otlp_check()`, and `pprof-check` on an OTLP file; docs/otlp.md). Severities:\n"
        "*error* breaks Go's pprof (or the protocol) or loses or misattributes data; *warning*\n"
        "is legal but suspicious or lossy; *note* is harmless dead weight or a legitimate\n"
        "oddity. `pprof-check` fails on errors by default (`--fail-on`).\n\n"
        "Reference rows without a rule of their own: S12 (every string field is checked) is\n"
        "`PD1-string-index`; CV7 (a location's mapping pointer not in the table) can only\n"
        "arise in memory and is `S2-location-mapping` on decoded input.\n\n"
        "`pprof-check --fix` repairs every error; see the fix kinds at the end.\n\n",
        f);
    fputs("| id | severity | reference | what it finds |\n|---|---|---|---|\n", f);
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
        const pprof_rule_info *ri = pprof_rule_get((pprof_rule)r);
        fprintf(f, "| [`%s`](#", ri->id);
        for (const char *s = ri->id; *s; s++)
            fputc(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s, f);
        fprintf(f, ") | %s | %s | ", pprof_severity_name(ri->severity), ri->reference);
        cell(f, ri->summary);
        fputs(" |\n", f);
    }
    fputs("\n", f);
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
        const pprof_rule_info *ri = pprof_rule_get((pprof_rule)r);
        fprintf(f, "## %s\n\n", ri->id);
        fprintf(f, "Severity: **%s**. Reference: %s.\n\n", pprof_severity_name(ri->severity),
                ri->reference);
        fprintf(f, "Finds: %s.\n\n", ri->summary);
        fprintf(f, "Why: %s\n\n", ri->rationale);
        fprintf(f, "Example: %s.\n\n", ri->example);
    }
    fputs("## Repairs (`pprof-check --fix`)\n\n| fix | what it does |\n|---|---|\n", f);
    for (unsigned i = 0; i < PPROF_FIX_COUNT; i++) {
        fprintf(f, "| `%s` | ", pprof_fix_name((pprof_fix)i));
        cell(f, pprof_fix_description((pprof_fix)i));
        fputs(" |\n", f);
    }
    return f == stdout ? 0 : (fclose(f) == 0 ? 0 : 3);
}
