/* pprof-check: strict checker with exact diagnostics, cross-file inline consistency and repair.
 * The rules live in the library (pprof/check.h); this file only parses options and formats. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "common.h"
#include "edit.h"
#include "formats.h"

static const char usage[] =
    "Usage: pprof-check [options] FILE...\n"
    "       pprof-check --fix -o OUT FILE\n"
    "Checks pprof profiles (raw, gzip or zstd; '-' for stdin) against every rule of\n"
    "docs/rules.md and reports each finding with its rule id, severity, path and byte offset.\n"
    "With several files, also checks that one binary address expands to the same inline\n"
    "frames in every file (mappings matched by build_id, else filename).\n"
    "\n"
    "  --format=FORMAT       text (default: 'FILE: SEVERITY: PATH: message [RULE]'),\n"
    "                        json (one document) or sarif (SARIF 2.1.0)\n"
    "  --fail-on=LEVEL       error (default), warning or note: exit 1 when a finding is at\n"
    "                        or above LEVEL\n"
    "  --min-severity=LEVEL  show findings at or above LEVEL: error, warning (default) or\n"
    "                        note; the others are counted in the summary only\n"
    "  --max-findings N      show at most N findings in all (default 1000; all are counted,\n"
    "                        and hidden ones never use up the N)\n"
    "  --disable RULE        turn a rule off; RULE is an id, a prefix such as S7, or all\n"
    "  --enable RULE         turn a rule back on (after --disable all, say)\n"
    "  --list-rules          print the rules with their severities and exit\n"
    "  -q, --quiet           print nothing; the exit status tells\n"
    "  --fix                 repair the one input and write it to -o; prints the number of\n"
    "                        fixes of each kind. The input is never modified.\n"
    "  -o, --output FILE     where --fix writes ('-' = stdout), atomically\n"
    "  --force               with --fix, write to a terminal all the same\n"
    "  --compress=FORMAT     gzip, zstd or none, for --fix; default: from OUT's name\n"
    "                        (.zst zstd, .pb none, else gzip)\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "\n"
    "Exit status: 0 nothing at or above --fail-on, 1 findings (or an unrepairable input with\n"
    "--fix), 2 usage, 3 I/O error.\n";

typedef enum out_format { OUT_TEXT, OUT_JSON, OUT_SARIF } out_format;

typedef struct opts {
    out_format format;
    pprof_severity fail_on, min_severity;
    unsigned long long max_findings;
    bool enabled[PPROF_RULE_COUNT];
    bool quiet, fix, compress_given, force;
    const char *output;
    pprof_write_options wopts;
} opts;

/* A file that could not be read at all, for SARIF's tool execution notifications. */
typedef struct unreadable_file {
    const char *file;
    char *message;
} unreadable_file;

/* Output state shared by every finding: one document for json and sarif. The library is asked
 * for every finding and this decides what is shown, so that findings under --min-severity are
 * counted without using up --max-findings. */
typedef struct out {
    const opts *o;
    FILE *f;
    const char *file; /* current input, for findings of one file */
    size_t n_emitted;
    uint64_t count[3];
    uint64_t by_rule[PPROF_RULE_COUNT];
    uint64_t reported, hidden;
    bool truncated;
    unreadable_file *unreadable;
    size_t n_unreadable;
    char cwd[4096]; /* for SARIF URIs; "" when unknown */
} out;

/* A JSON string, quoted as every JSON output of the library (pprof_json_string_write). */
static void
json_str(FILE *f, const char *s)
{
    pprof_buffer b = {0};
    if (pprof_json_string_write(s, strlen(s), &b, NULL)) {
        /* no memory for one string: the document cannot be finished */
        fprintf(stderr, "pprof-check: out of memory\n");
        exit(TOOL_EXIT_IO);
    }
    fwrite(b.data, 1, b.len, f);
    pprof_buffer_free(&b);
}

/* Text output must stay one line per finding: control bytes from profile strings are escaped. */
static void
text_str(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

static const char *
display_name(const char *file)
{
    return strcmp(file, "-") ? file : "<stdin>";
}

/* A path in a URI: unreserved bytes and '/' as they are, the rest percent-encoded. */
static void
uri_path(FILE *f, const char *path)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

/* A SARIF artifact URI: relative to the working directory (with uriBaseId CWD) when the file
 * is in it, else an absolute file: URI; percent-encoded. */
static void
sarif_uri(FILE *f, const out *w, const char *file)
{
    char abs[8192];
    const char *rel = NULL;
    if (strcmp(file, "-") == 0) {
        fputs("\"uri\": \"stdin\"", f);
        return;
    }
    size_t n = strlen(w->cwd);
    if (file[0] == '/' && n && strncmp(file, w->cwd, n) == 0 && file[n] == '/')
        rel = file + n + 1;
    else if (file[0] != '/' && strncmp(file, "../", 3) != 0 && strcmp(file, "..") != 0)
        rel = file;
    while (rel && strncmp(rel, "./", 2) == 0)
        rel += 2;
    if (!rel && file[0] != '/' && n) {
        snprintf(abs, sizeof(abs), "%s/%s", w->cwd, file);
        file = abs;
    }
    fputs(rel ? "\"uri\": \"" : "\"uri\": \"file://", f);
    uri_path(f, rel ? rel : file);
    fputs(rel ? "\", \"uriBaseId\": \"CWD\"" : "\"", f);
}

static bool
on_finding(void *ctx, const pprof_finding *fd)
{
    out *w = ctx;
    w->count[fd->severity]++;
    if ((size_t)fd->rule < PPROF_RULE_COUNT)
        w->by_rule[fd->rule]++;
    if (fd->severity < w->o->min_severity) {
        w->hidden++;
        return true;
    }
    if (w->reported >= w->o->max_findings) {
        w->truncated = true;
        return true;
    }
    w->reported++;
    const char *file = display_name(fd->file ? fd->file : w->file);
    const char *raw_file = fd->file ? fd->file : w->file;
    w->n_emitted++;
    if (w->o->quiet)
        return true;
    FILE *f = w->f;
    switch (w->o->format) {
    case OUT_TEXT:
        text_str(f, file);
        fprintf(f, ": %s: ", pprof_severity_name(fd->severity));
        if (fd->path[0]) {
            text_str(f, fd->path);
            fputs(": ", f);
        }
        text_str(f, fd->message);
        if (fd->offset != PPROF_NO_OFFSET)
            fprintf(f, " (byte %llu)", (unsigned long long)fd->offset);
        fprintf(f, " [%s]\n", fd->rule_id);
        break;
    case OUT_JSON:
        fputs(w->n_emitted > 1 ? ",\n    {" : "\n    {", f);
        fputs("\"file\": ", f);
        json_str(f, file);
        fputs(", \"rule\": ", f);
        json_str(f, fd->rule_id);
        fprintf(f, ", \"severity\": \"%s\", \"path\": ", pprof_severity_name(fd->severity));
        json_str(f, fd->path);
        if (fd->offset != PPROF_NO_OFFSET)
            fprintf(f, ", \"offset\": %llu", (unsigned long long)fd->offset);
        else
            fputs(", \"offset\": null", f);
        fputs(", \"message\": ", f);
        json_str(f, fd->message);
        fputs("}", f);
        break;
    case OUT_SARIF:
        fputs(w->n_emitted > 1 ? ",\n        {" : "\n        {", f);
        fputs("\"ruleId\": ", f);
        json_str(f, fd->rule_id);
        fprintf(f, ", \"ruleIndex\": %u, \"level\": \"%s\", \"message\": {\"text\": ",
                (unsigned)fd->rule, pprof_severity_name(fd->severity));
        json_str(f, fd->message);
        fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {", f);
        sarif_uri(f, w, raw_file);
        fputs("}}, \"logicalLocations\": [{\"fullyQualifiedName\": ", f);
        json_str(f, fd->path[0] ? fd->path : "profile");
        fputs(", \"kind\": \"member\"}]}]", f);
        if (fd->offset != PPROF_NO_OFFSET)
            fprintf(f, ", \"properties\": {\"decompressedByteOffset\": %llu}",
                    (unsigned long long)fd->offset);
        fputs("}", f);
        break;
    }
    return true;
}

static void
begin(out *w, int n_files, char **files, int first)
{
    FILE *f = w->f;
    if (w->o->quiet)
        return;
    if (w->o->format == OUT_JSON) {
        fprintf(f, "{\n  \"tool\": \"pprof-check\",\n  \"version\": \"%s\",\n  \"files\": [",
                pprof_version_string());
        for (int i = 0; i < n_files; i++) {
            fputs(i ? ", " : "", f);
            json_str(f, display_name(files[first + i]));
        }
        fputs("],\n  \"findings\": [", f);
    } else if (w->o->format == OUT_SARIF) {
        fprintf(f,
                "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
                "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {\n"
                "      \"name\": \"pprof-check\",\n      \"version\": \"%s\",\n"
                "      \"informationUri\": \"https://github.com/google/pprof/blob/main/proto/"
                "profile.proto\",\n      \"rules\": [",
                pprof_version_string());
        for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
            const pprof_rule_info *ri = pprof_rule_get((pprof_rule)r);
            fputs(r ? ",\n        {" : "\n        {", f);
            fputs("\"id\": ", f);
            json_str(f, ri->id);
            fputs(", \"shortDescription\": {\"text\": ", f);
            json_str(f, ri->summary);
            fputs("}, \"fullDescription\": {\"text\": ", f);
            json_str(f, ri->rationale);
            fputs("}, \"help\": {\"text\": ", f);
            char help[600];
            snprintf(help, sizeof(help), "%s. Example: %s.", ri->rationale, ri->example);
            json_str(f, help);
            fprintf(f, "}, \"defaultConfiguration\": {\"level\": \"%s\"}",
                    pprof_severity_name(ri->severity));
            fputs(", \"properties\": {\"reference\": ", f);
            json_str(f, ri->reference);
            fputs("}}", f);
        }
        fputs("\n      ]\n    }},\n", f);
        if (w->cwd[0]) {
            /* relative URIs resolve against the directory the check ran in */
            fputs("    \"originalUriBaseIds\": {\"CWD\": {\"uri\": \"file://", f);
            uri_path(f, w->cwd);
            fputs("/\"}},\n", f);
        }
        fputs("    \"results\": [", f);
    }
}

/* The findings of every rule, shown or not, most severe first: "  RULE  SEVERITY  COUNT". */
static void
text_rule_counts(out *w)
{
    FILE *f = w->f;
    bool any = false;
    for (int sev = PPROF_SEVERITY_ERROR; sev >= PPROF_SEVERITY_NOTE; sev--)
        for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
            const pprof_rule_info *ri = pprof_rule_get((pprof_rule)r);
            if (!w->by_rule[r] || (int)ri->severity != sev)
                continue;
            if (!any)
                fputs("findings by rule:\n", f);
            any = true;
            fprintf(f, "  %-28s %-8s %llu%s\n", ri->id, pprof_severity_name(ri->severity),
                    (unsigned long long)w->by_rule[r],
                    ri->severity < w->o->min_severity ? " (not shown)" : "");
        }
}

static void
json_rule_counts(out *w)
{
    FILE *f = w->f;
    bool first = true;
    fputs(", \"by_rule\": {", f);
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
        if (!w->by_rule[r])
            continue;
        fputs(first ? "" : ", ", f);
        first = false;
        json_str(f, pprof_rule_get((pprof_rule)r)->id);
        fprintf(f, ": %llu", (unsigned long long)w->by_rule[r]);
    }
    fputs("}", f);
}

/* SARIF: files that could not be read at all are tool execution notifications, not results. */
static void
sarif_invocations(out *w)
{
    FILE *f = w->f;
    fprintf(f,
            "    \"invocations\": [{\"executionSuccessful\": %s, "
            "\"toolExecutionNotifications\": [",
            w->n_unreadable ? "false" : "true");
    for (size_t i = 0; i < w->n_unreadable; i++) {
        fputs(i ? ",\n      {" : "\n      {", f);
        fputs("\"level\": \"error\", \"message\": {\"text\": ", f);
        json_str(f, w->unreadable[i].message);
        fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {", f);
        sarif_uri(f, w, w->unreadable[i].file);
        fputs("}}}]}", f);
    }
    fputs(w->n_unreadable ? "\n    ]}],\n" : "]}],\n", f);
}

static void
finish(out *w, int n_files, int unreadable)
{
    FILE *f = w->f;
    if (w->o->quiet)
        return;
    unsigned long long e = w->count[2], wa = w->count[1], no = w->count[0];
    if (w->o->format == OUT_TEXT) {
        text_rule_counts(w);
        fprintf(f, "%d file%s checked: %llu error%s, %llu warning%s, %llu note%s", n_files,
                n_files == 1 ? "" : "s", e, e == 1 ? "" : "s", wa, wa == 1 ? "" : "s", no,
                no == 1 ? "" : "s");
        if (w->hidden)
            fprintf(f, " (%llu below --min-severity=%s not shown)", (unsigned long long)w->hidden,
                    pprof_severity_name(w->o->min_severity));
        if (w->truncated)
            fprintf(f, " (%llu shown, --max-findings %llu)", (unsigned long long)w->reported,
                    w->o->max_findings);
        if (unreadable)
            fprintf(f, "; %d unreadable", unreadable);
        fputc('\n', f);
    } else if (w->o->format == OUT_JSON) {
        fprintf(f,
                "%s],\n  \"summary\": {\"files\": %d, \"unreadable\": %d, \"errors\": %llu, "
                "\"warnings\": %llu, \"notes\": %llu, \"reported\": %llu, \"hidden\": %llu, "
                "\"min_severity\": \"%s\", \"truncated\": %s",
                w->n_emitted ? "\n  " : "", n_files, unreadable, e, wa, no,
                (unsigned long long)w->reported, (unsigned long long)w->hidden,
                pprof_severity_name(w->o->min_severity), w->truncated ? "true" : "false");
        json_rule_counts(w);
        fputs("}\n}\n", f);
    } else {
        fputs(w->n_emitted ? "\n    ],\n" : "],\n", f);
        sarif_invocations(w);
        fprintf(f,
                "    \"properties\": {\"errors\": %llu, \"warnings\": %llu, \"notes\": "
                "%llu, \"hidden\": %llu, \"truncated\": %s}\n  }]\n}\n",
                e, wa, no, (unsigned long long)w->hidden, w->truncated ? "true" : "false");
    }
}

/* A file that could not be read at all (not a finding): on stderr, and kept for SARIF. */
static void
report_unreadable(out *w, const char *file, const pprof_error *e)
{
    tool_print_error(stderr, "pprof-check", file, e);
    if (!w->unreadable)
        return;
    char msg[sizeof(e->message) + 64];
    snprintf(msg, sizeof(msg), "cannot read the profile: %s [%s]", e->message,
             pprof_status_name(e->code));
    unreadable_file *u = &w->unreadable[w->n_unreadable];
    if ((u->message = strdup(msg))) {
        u->file = file;
        w->n_unreadable++;
    }
}

static bool
parse_rule_list(opts *o, const char *v, bool on, const char *prog)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", v);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t n = strlen(t);
        bool any = false;
        for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
            const char *id = pprof_rule_get((pprof_rule)r)->id;
            if (strcmp(t, "all") == 0 || strcasecmp(id, t) == 0 ||
                (strncasecmp(id, t, n) == 0 && id[n] == '-')) {
                o->enabled[r] = on;
                any = true;
            }
        }
        if (!any) {
            tool_usage_error(prog, "unknown rule '%s' (see --list-rules)", t);
            return false;
        }
    }
    return true;
}

static int
list_rules(void)
{
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++) {
        const pprof_rule_info *ri = pprof_rule_get((pprof_rule)r);
        printf("%-28s %-8s %s\n", ri->id, pprof_severity_name(ri->severity), ri->summary);
    }
    return TOOL_EXIT_OK;
}

static int
do_fix(const opts *o, out *w, const pprof_check_options *co, const char *in)
{
    const char *prog = "pprof-check";
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    w->file = in;
    pprof_status st = tool_read_profile(in, &p, &err);
    if (st) {
        if (!pprof_check_read_error(&err, co, on_finding, w, NULL)) {
            tool_print_error(stderr, prog, in, &err);
            return tool_exit_for(st);
        }
        fprintf(stderr, "%s: %s: cannot repair a profile that does not decode\n", prog,
                display_name(in));
        return TOOL_EXIT_INVALID;
    }
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    st = pprof_check(p, co, on_finding, w, &sum, &err);
    pprof_repair_stats rs = PPROF_REPAIR_STATS_INIT;
    if (st == PPROF_OK)
        st = pprof_repair(p, &q, &rs, &err);
    if (st == PPROF_OK && (st = pprof_profile_write_file(q, &o->wopts, o->output, &err))) {
        /* the output failed, not the input */
        tool_print_error(stderr, prog, strcmp(o->output, "-") ? o->output : "<stdout>", &err);
        pprof_profile_free(p);
        pprof_profile_free(q);
        return tool_exit_for(st);
    }
    if (st) {
        tool_print_error(stderr, prog, in, &err);
        pprof_profile_free(p);
        pprof_profile_free(q);
        return tool_exit_for(st);
    }
    /* The counts go to stderr when the profile itself goes to stdout. */
    FILE *f = tool_is_stdout(o->output) ? stderr : stdout;
    uint64_t total = 0;
    for (unsigned i = 0; i < PPROF_FIX_COUNT; i++)
        total += rs.count[i];
    if (!o->quiet) {
        fprintf(f, "%s: %llu fix%s written to %s\n", display_name(in), (unsigned long long)total,
                total == 1 ? "" : "es", strcmp(o->output, "-") ? o->output : "<stdout>");
        for (unsigned i = 0; i < PPROF_FIX_COUNT; i++)
            if (rs.count[i])
                fprintf(f, "  %-18s %llu\n", pprof_fix_name((pprof_fix)i),
                        (unsigned long long)rs.count[i]);
    }
    /* The promise of --fix is an output free of errors; verify it rather than assume it. */
    pprof_check_summary after = PPROF_CHECK_SUMMARY_INIT;
    st = pprof_check(q, NULL, NULL, NULL, &after, &err);
    pprof_profile_free(p);
    pprof_profile_free(q);
    if (st) {
        tool_print_error(stderr, prog, in, &err);
        return tool_exit_for(st);
    }
    if (after.count[PPROF_SEVERITY_ERROR]) {
        fprintf(stderr, "%s: %s: the repaired profile still has %llu error(s)\n", prog,
                display_name(in), (unsigned long long)after.count[PPROF_SEVERITY_ERROR]);
        return TOOL_EXIT_INVALID;
    }
    return TOOL_EXIT_OK;
}

static bool
parse_severity(const char *v, pprof_severity *sev)
{
    static const struct {
        const char *name;
        pprof_severity s;
    } names[] = {{"error", PPROF_SEVERITY_ERROR},
                 {"warning", PPROF_SEVERITY_WARNING},
                 {"note", PPROF_SEVERITY_NOTE}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(v, names[i].name) == 0) {
            *sev = names[i].s;
            return true;
        }
    return false;
}

/* One option; returns -1 to go on, or the exit status to end with. */
static int
parse_option(opts *o, tool_args *a, const char *opt, const char *prog)
{
    const char *v;
    if (tool_opt_is(opt, "-h", "--help")) {
        fputs(usage, stdout);
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, NULL, "--version")) {
        tool_print_version(stdout, prog);
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, NULL, "--list-rules"))
        return list_rules();
    if (tool_opt_is(opt, "-q", "--quiet")) {
        o->quiet = true;
        return -1;
    }
    if (tool_opt_is(opt, NULL, "--fix")) {
        o->fix = true;
        return -1;
    }
    if (tool_opt_is(opt, NULL, "--force")) {
        o->force = true;
        return -1;
    }
    bool known = tool_opt_is(opt, NULL, "--format") || tool_opt_is(opt, NULL, "--fail-on") ||
                 tool_opt_is(opt, NULL, "--min-severity") ||
                 tool_opt_is(opt, NULL, "--max-findings") || tool_opt_is(opt, NULL, "--disable") ||
                 tool_opt_is(opt, NULL, "--enable") || tool_opt_is(opt, "-o", "--output") ||
                 tool_opt_is(opt, NULL, "--compress");
    if (!known)
        return tool_usage_error(prog, "unknown option %s", opt);
    if (!(v = tool_args_value(a, prog)))
        return TOOL_EXIT_USAGE;
    if (tool_opt_is(opt, NULL, "--format")) {
        if (strcmp(v, "text") == 0)
            o->format = OUT_TEXT;
        else if (strcmp(v, "json") == 0)
            o->format = OUT_JSON;
        else if (strcmp(v, "sarif") == 0)
            o->format = OUT_SARIF;
        else
            return tool_usage_error(prog, "--format takes text, json or sarif");
    } else if (tool_opt_is(opt, NULL, "--fail-on")) {
        if (!parse_severity(v, &o->fail_on))
            return tool_usage_error(prog, "--fail-on takes error, warning or note");
    } else if (tool_opt_is(opt, NULL, "--min-severity")) {
        if (!parse_severity(v, &o->min_severity))
            return tool_usage_error(prog, "--min-severity takes error, warning or note");
    } else if (tool_opt_is(opt, NULL, "--max-findings")) {
        if (!tool_parse_u64(v, &o->max_findings))
            return tool_usage_error(prog, "--max-findings takes a number");
    } else if (tool_opt_is(opt, NULL, "--disable") || tool_opt_is(opt, NULL, "--enable")) {
        if (!parse_rule_list(o, v, tool_opt_is(opt, NULL, "--enable"), prog))
            return TOOL_EXIT_USAGE;
    } else if (tool_opt_is(opt, "-o", "--output")) {
        o->output = v;
    } else { /* --compress */
        if (!tool_parse_format(v, &o->wopts.format))
            return tool_usage_error(prog, "--compress takes gzip, zstd or none");
        o->compress_given = true;
    }
    return -1;
}

/* The command line into o and files; returns -1 to go on, or the exit status to end with. */
static int
parse_args(int argc, char **argv, opts *o, char **files, int *n_files, const char *prog)
{
    memset(o, 0, sizeof(*o));
    o->format = OUT_TEXT;
    o->fail_on = PPROF_SEVERITY_ERROR;
    o->min_severity = PPROF_SEVERITY_WARNING;
    o->max_findings = 1000;
    o->wopts = (pprof_write_options)PPROF_WRITE_OPTIONS_INIT;
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        o->enabled[r] = true;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand;
    int rc = -1;
    while (rc < 0 && tool_args_next(&a, &opt, &operand)) {
        if (operand)
            files[(*n_files)++] = (char *)operand;
        else
            rc = parse_option(o, &a, opt, prog);
    }
    if (rc < 0 && *n_files == 0)
        rc = tool_usage_error(prog, "no input file");
    if (rc < 0 && o->fix && (*n_files != 1 || !o->output))
        rc = tool_usage_error(prog, "--fix takes exactly one input file and -o OUT");
    if (rc < 0 && !o->fix && o->output)
        rc = tool_usage_error(prog, "-o is only used with --fix; nothing is written without it");
    if (rc < 0 && o->fix && tool_refuse_binary_tty(prog, o->output, o->force))
        rc = TOOL_EXIT_USAGE;
    return rc;
}

/* Checks every file (and, with several, the inline expansions across them); returns the exit
 * status. */
static int
check_files(out *w, const pprof_check_options *co, char **files, int n_files, const char *prog)
{
    int unreadable = 0;
    bool io_error = false;
    pprof_inline_index *idx = NULL;
    pprof_error idx_err;
    if (n_files > 1 && pprof_inline_index_new(NULL, &idx, &idx_err) != PPROF_OK) {
        fprintf(stderr, "%s: %s\n", prog, idx_err.message);
        return TOOL_EXIT_IO;
    }
    for (int i = 0; i < n_files; i++) {
        const char *in = files[i];
        pprof_error err;
        bool decoded = false;
        w->file = in;
        pprof_status st = pprof_check_path(in, co, idx, on_finding, w, NULL, &decoded, &err);
        if (!decoded)
            unreadable++;
        if (st && !decoded) {
            report_unreadable(w, in, &err);
            io_error = true;
        } else if (st) {
            tool_print_error(stderr, prog, in, &err);
            io_error = true;
        }
    }
    pprof_inline_index_free(idx);
    finish(w, n_files, unreadable);
    if (io_error)
        return TOOL_EXIT_IO;
    for (int s = PPROF_SEVERITY_ERROR; s >= (int)w->o->fail_on; s--)
        if (w->count[s])
            return TOOL_EXIT_INVALID;
    return TOOL_EXIT_OK;
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-check";
    opts o;
    int n_files = 0, first = 0;
    char **files = calloc((size_t)argc + 1, sizeof(char *));
    if (!files)
        return TOOL_EXIT_IO;
    int rc = parse_args(argc, argv, &o, files, &n_files, prog);
    if (rc >= 0) {
        free(files);
        return rc;
    }
    tool_output_init(&o.wopts);
    if (o.fix && !o.compress_given)
        o.wopts.format = tool_format_from_name(o.output);
    if (o.fix)
        tool_note_format(prog, o.wopts.format, o.quiet);
    pprof_check_options co = PPROF_CHECK_OPTIONS_INIT;
    co.max_findings = UINT64_MAX; /* on_finding applies --max-findings to the shown ones */
    co.regex_check = pprof_regex_check;
    co.readers = pprof_formats_readers();
    co.enabled = o.enabled;
    co.n_enabled = PPROF_RULE_COUNT;
    out w = {.o = &o, .f = stdout};
    w.unreadable = calloc((size_t)n_files, sizeof(*w.unreadable));
    if (!w.unreadable) {
        free(files);
        fprintf(stderr, "%s: out of memory\n", prog);
        return TOOL_EXIT_IO;
    }
    if (!getcwd(w.cwd, sizeof(w.cwd)))
        w.cwd[0] = 0;
    /* Findings of --fix go to stderr when the repaired profile is written to stdout. */
    if (o.fix && tool_is_stdout(o.output))
        w.f = stderr;
    begin(&w, n_files, files, first);
    if (o.fix) {
        rc = do_fix(&o, &w, &co, files[0]);
        finish(&w, 1, 0);
    } else {
        rc = check_files(&w, &co, files, n_files, prog);
    }
    for (size_t i = 0; i < w.n_unreadable; i++)
        free(w.unreadable[i].message);
    free(w.unreadable);
    free(files);
    return rc;
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-check", run(argc, argv));
}
