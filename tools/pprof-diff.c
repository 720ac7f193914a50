/* pprof-diff: what changed from BASE to NEW, the diff profile `go tool pprof -proto
 * -diff_base` writes, and a regression gate for CI (--fail-if). */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "edit-filters.h"
#include "report.h"

static const char usage[] =
    "Usage: pprof-diff [options] BASE NEW\n"
    "       pprof-diff [options] --diff-base BASE NEW   (Go's -diff_base)\n"
    "Lists the nodes whose flat or cumulative value changed most from BASE to NEW, and\n"
    "optionally writes the diff profile `go tool pprof -proto -diff_base BASE NEW` writes.\n"
    "\n"
    "  -o, --output FILE     write the diff profile there (NEW + BASE negated, BASE's samples\n"
    "                        labelled pprof::base=true); '-' = stdout, then no report\n"
    "  --diff-base BASE      BASE as an option (Go's -diff_base); NEW is then the one operand\n"
    "  --normalize           scale NEW so that its totals equal BASE's (Go's -normalize)\n"
    "  --sample-index T      the same as --sample-type (Go's -sample_index)\n"
    "  --sample-type T       the sample type to compare, by name or index; needed when the\n"
    "                        inputs' sample types differ\n"
    "  --granularity G       functions (default), filefunctions, files, lines, addresses\n"
    "  -n, --nodecount N     list at most N nodes (default 20; 0 = all)\n"
    "  --format=FMT          text (default) or json\n"
    "  --fail-if RULE        exit 1 when RULE holds, naming the rule and the node; may repeat.\n"
    "                        RULE = SUBJECT OP CHANGE, SUBJECT = total | flat:REGEX | cum:REGEX,\n"
    "                        OP = > >= < <=, CHANGE = [+-]NUMBER followed by % (of the\n"
    "                        subject's base value), pp (points of BASE's total) or nothing\n"
    "                        (the sample unit); REGEX is a Go regexp (RE2), as for --focus.\n"
    "                        Example: --fail-if 'cum:(?i)main\\.handler>+2pp'\n"
    "  -q, --quiet           no report, only the gate's findings\n"
    "  --force               write the diff profile to a terminal all the same\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n" EDIT_FILTERS_HELP "\n"
    "Exit status: 0 ok, 1 invalid input or a rule fired, 2 usage, 3 I/O error.\n";

#define MAX_RULES 64

typedef struct diff_opts {
    const char *in[2];
    const char *base; /* --diff-base / --base, when BASE is not the first operand */
    const char *out;
    const char *rules[MAX_RULES];
    size_t n_rules, node_count;
    bool quiet, force;
    pprof_print_format fmt;
    pprof_diff_options d;
    edit_filters f; /* applied to BASE and NEW alike */
} diff_opts;

static int
parse_args(int argc, char **argv, diff_opts *o)
{
    const char *prog = "pprof-diff";
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand, *v;
    size_t n_in = 0;
    int frc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && edit_filters_opt(&o->f, &a, opt, &frc)) {
            if (frc)
                return frc;
        } else if (operand) {
            if (n_in == 2)
                return tool_usage_error(prog, "two input files are taken: BASE NEW");
            o->in[n_in++] = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            return -1;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return -1;
        } else if (tool_opt_is(opt, NULL, "--normalize")) {
            o->d.normalize = true;
        } else if (tool_opt_is(opt, "-q", "--quiet")) {
            o->quiet = true;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            o->force = true;
        } else if (!(v = tool_args_value(&a, prog))) {
            return TOOL_EXIT_USAGE;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            o->out = v;
        } else if (tool_opt_is(opt, NULL, "--sample-type") ||
                   tool_opt_is(opt, NULL, "--sample-index")) {
            o->d.sample_type = v;
        } else if (tool_opt_is(opt, NULL, "--diff-base")) {
            /* not Go's -base: that one subtracts BASE without labelling its samples, and the
             * profile written with -o would differ */
            if (o->base)
                return tool_usage_error(prog, "one base profile is taken");
            o->base = v;
        } else if (tool_opt_is(opt, NULL, "--granularity")) {
            if (!pprof_granularity_parse(v, &o->d.granularity))
                return tool_usage_error(prog, "unknown granularity '%s'", v);
        } else if (tool_opt_is(opt, "-n", "--nodecount")) {
            unsigned long long n;
            if (!tool_parse_u64(v, &n))
                return tool_usage_error(prog, "%s takes a number", opt);
            o->node_count = (size_t)n;
        } else if (tool_opt_is(opt, NULL, "--format")) {
            if (strcmp(v, "text") && strcmp(v, "json"))
                return tool_usage_error(prog, "unknown format '%s' (text, json)", v);
            o->fmt = v[0] == 't' ? PPROF_PRINT_TEXT : PPROF_PRINT_JSON;
        } else if (tool_opt_is(opt, NULL, "--fail-if")) {
            if (o->n_rules == MAX_RULES)
                return tool_usage_error(prog, "at most %d rules", MAX_RULES);
            o->rules[o->n_rules++] = v;
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (o->base) {
        if (n_in != 1)
            return tool_usage_error(prog, "with %s, one input file is taken: NEW", "--diff-base");
        o->in[1] = o->in[0];
        o->in[0] = o->base;
        n_in = 2;
    }
    if (n_in != 2)
        return tool_usage_error(prog, "two input files are needed: BASE NEW");
    return o->out ? tool_refuse_binary_tty(prog, o->out, o->force) : TOOL_EXIT_OK;
}

/* Runs the gate: prints each firing on stderr; returns the number of rules that fired, or -1
 * after printing an error. */
static int
gate(const diff_opts *o, pprof_diff_rule *const *rules, const pprof_diff *d)
{
    int fired_rules = 0;
    pprof_buffer msg = {0};
    pprof_error err;
    for (size_t i = 0; i < o->n_rules; i++) {
        size_t fired;
        if (pprof_diff_rule_eval(rules[i], d, &msg, &fired, &err)) {
            tool_print_error(stderr, "pprof-diff", o->in[1], &err);
            pprof_buffer_free(&msg);
            return -1;
        }
        fired_rules += fired > 0;
    }
    for (size_t at = 0; at < msg.len;) { /* one finding per line */
        const char *line = (const char *)msg.data + at;
        const char *nl = memchr(line, '\n', msg.len - at);
        size_t n = nl ? (size_t)(nl - line) : msg.len - at;
        fprintf(stderr, "pprof-diff: %.*s\n", (int)n, line);
        at += n + 1;
    }
    pprof_buffer_free(&msg);
    return fired_rules;
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-diff";
    diff_opts o = {.node_count = 20};
    pprof_diff_options d = PPROF_DIFF_OPTIONS_INIT;
    o.d = d;
    edit_filters_init(&o.f, "pprof-diff");
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? TOOL_EXIT_OK : rc;
    pprof_diff_rule *rules[MAX_RULES] = {0};
    pprof_error err;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < o.n_rules && !st; i++)
        if ((st = pprof_diff_rule_parse(o.rules[i], NULL, &rules[i], &err)))
            rc = tool_usage_error(prog, "%s", err.message);
    pprof_profile *p[2] = {NULL, NULL};
    pprof_diff *diff = NULL;
    pprof_buffer b = {0};
    const char *where = o.in[0];
    /* the diff profile's format follows its name, as for every tool that writes one */
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    tool_output_init(&w);
    if (o.out) {
        w.format = tool_format_from_name(o.out);
        tool_note_format(prog, w.format, o.quiet);
    }
    for (int i = 0; i < 2 && !st; i++) {
        where = o.in[i];
        st = tool_read_profile(o.in[i], &p[i], &err);
        if (!st && (rc = tool_refuse_invalid(prog, o.in[i], p[i], "not compared"))) {
            st = PPROF_E_INVALID; /* rc says how it ends; nothing more is printed */
            break;
        }
        pprof_profile *fp = NULL;
        if (!st && !(st = edit_filters_apply(&o.f, p[i], &fp, &err)) && fp) {
            pprof_profile_free(p[i]);
            p[i] = fp;
        }
    }
    if (!st && o.out) {
        where = strcmp(o.out, "-") ? o.out : "<stdout>";
        w.threads = o.d.threads = tool_cores(8);
        st = pprof_diff_write_file(p[0], p[1], &o.d, &w, o.out, &err);
    }
    bool report = !o.quiet && !(o.out && !strcmp(o.out, "-"));
    if (!st && (report || o.n_rules)) {
        where = o.in[1];
        st = pprof_diff_new(p[0], p[1], &o.d, &diff, &err);
    }
    if (!st && report) {
        where = "<stdout>";
        st = pprof_diff_print(diff, o.node_count, o.fmt, &b, &err);
        if (!st)
            st = pprof_bytes_write_file(b.data, b.len, NULL, "-", &err);
    }
    if (st && !rc) {
        if (st != PPROF_E_IO && st != PPROF_E_NOMEM) /* the library says which profile */
            where = !strncmp(err.message, "BASE: ", 6)  ? o.in[0]
                    : !strncmp(err.message, "NEW: ", 5) ? o.in[1]
                                                        : where;
        tool_print_error(stderr, prog, where, &err);
        rc = tool_exit_for(st);
    }
    if (!st && o.n_rules) {
        int fired = gate(&o, rules, diff);
        rc = fired != 0 ? TOOL_EXIT_INVALID : TOOL_EXIT_OK;
    }
    for (size_t i = 0; i < o.n_rules; i++)
        pprof_diff_rule_free(rules[i]);
    pprof_buffer_free(&b);
    pprof_diff_free(diff);
    pprof_profile_free(p[0]);
    pprof_profile_free(p[1]);
    edit_filters_free(&o.f);
    return rc;
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-diff", run(argc, argv));
}
