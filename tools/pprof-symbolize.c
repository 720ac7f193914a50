/* pprof-symbolize: fills in function names, files and lines of a native profile's addresses
 * from the ELF files (and DWARF) of its mappings, offline. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "otlp.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-symbolize [options] IN\n"
    "Symbolizes the locations of a profile that have an address but no lines, from the ELF\n"
    "files of their mappings (DWARF with inline frames, else .symtab/.dynsym), and writes the\n"
    "symbolized profile. Nothing is fetched from the network. An OTLP profile (by content or a\n"
    "'.otlp' name) is written back as OTLP.\n"
    "\n"
    "  -o, --output FILE     output path ('-' = stdout, the default)\n" SYMBOLIZE_OPTS_HELP
    "  --force               symbolize locations that already have lines too; write a binary\n"
    "                        profile to a terminal\n"
    "  --report=FMT          the report on stderr: text (default) or json\n"
    "  --report-file FILE    write the report there instead of stderr\n"
    "  --strict              exit 1 when any address is left unresolved\n"
    "  --compress=C          gzip (default for most names), zstd or none\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "\n"
    "Files are looked for by build ID in each --debug-dir (.build-id/ab/cdef.debug), then in\n"
    "/usr/lib/debug and the debuginfod client cache ($DEBUGINFOD_CACHE_PATH, else\n"
    "$XDG_CACHE_HOME/debuginfod_client) unless --no-default-dirs,\n"
    "among the --binary files, then at the mapping's path (under --sysroot); debug files\n"
    "through .gnu_debuglink and .gnu_debugaltlink. A file whose build ID differs from the\n"
    "mapping's is never used.\n"
    "\n"
    "Exit status: 0 written (even with unresolved addresses, which the report lists),\n"
    "1 invalid input or (--strict) unresolved addresses, 2 usage, 3 I/O error.\n";

typedef struct sym_tool {
    const char *in, *out, *report_file;
    bool force, strict, compress_given;
    pprof_print_format report;
    symbolize_opts so;
    pprof_write_options w;
} sym_tool;

static int
parse(sym_tool *t, int argc, char **argv, bool *done)
{
    const char *prog = "pprof-symbolize", *opt, *operand, *v;
    tool_args a;
    tool_args_init(&a, argc, argv);
    int rc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && symbolize_opts_opt(&t->so, &a, prog, opt, false, &rc)) {
            if (rc)
                return rc;
        } else if (operand) {
            if (t->in)
                return tool_usage_error(prog, "only one input file is taken");
            t->in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            *done = true;
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            *done = true;
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            t->force = true;
        } else if (tool_opt_is(opt, NULL, "--strict")) {
            t->strict = true;
        } else if (!(v = tool_args_value(&a, prog))) {
            return TOOL_EXIT_USAGE;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            t->out = v;
        } else if (tool_opt_is(opt, NULL, "--report-file")) {
            t->report_file = v;
        } else if (tool_opt_is(opt, NULL, "--report")) {
            if (strcmp(v, "text") && strcmp(v, "json"))
                return tool_usage_error(prog, "unknown report format '%s' (text, json)", v);
            t->report = v[0] == 'j' ? PPROF_PRINT_JSON : PPROF_PRINT_TEXT;
        } else if (tool_opt_is(opt, NULL, "--compress")) {
            if (!tool_parse_format(v, &t->w.format))
                return tool_usage_error(prog, "unknown compression '%s' (gzip, zstd, none)", v);
            t->compress_given = true;
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (!t->in)
        return tool_usage_error(prog, "no input file");
    if (t->report_file && tool_same_file(t->in, t->report_file))
        return tool_usage_error(prog, "%s is the input: the report would replace the profile",
                                t->report_file);
    return TOOL_EXIT_OK;
}

/* The report goes to stderr, or to --report-file (atomically, like every output). */
static int
write_report(const sym_tool *t, const pprof_symbolize_report *r)
{
    const char *prog = "pprof-symbolize";
    pprof_buffer b = {0};
    pprof_error err;
    pprof_status st = pprof_symbolize_report_print(r, t->report, &b, &err);
    if (!st && t->report_file)
        st = pprof_bytes_write_file(b.data, b.len, &t->w, t->report_file, &err);
    else if (!st && b.len)
        fwrite(b.data, 1, b.len, stderr);
    if (st)
        tool_print_error(stderr, prog, t->report_file ? t->report_file : "<stderr>", &err);
    pprof_buffer_free(&b);
    return tool_exit_for(st);
}

/* An OTLP input: each of its profiles symbolized, written back as OTLP (one dictionary that
 * now holds the functions and lines found). Returns the exit code. */
static int
run_otlp(sym_tool *t, const pprof_symbolize_options *so, const pprof_buffer *in)
{
    const char *prog = "pprof-symbolize";
    pprof_error err;
    pprof_otlp *o = NULL;
    pprof_profile **ps = NULL, **qs = NULL;
    size_t n = 0, done = 0;
    pprof_status st = pprof_otlp_read_memory(in->data, in->len, NULL, &o, &err);
    if (!st)
        st = pprof_otlp_to_pprof(o, &ps, &n, &err);
    pprof_otlp_free(o);
    if (st) {
        tool_print_error(stderr, prog, t->in, &err);
        return tool_exit_for(st);
    }
    qs = calloc(n ? n : 1, sizeof(*qs));
    int rc = qs ? 0 : tool_exit_for(PPROF_E_NOMEM);
    uint64_t unresolved = 0;
    for (; !rc && done < n; done++) {
        pprof_symbolize_report *r = NULL;
        if ((st = pprof_symbolize(ps[done], so, &qs[done], &r, &err))) {
            tool_print_error(stderr, prog, t->in, &err);
            rc = tool_exit_for(st);
        } else {
            unresolved += pprof_symbolize_report_unresolved(r);
            rc = write_report(t, r);
        }
        pprof_symbolize_report_free(r);
    }
    if (!rc) {
        pprof_otlp_write_options wo;
        pprof_otlp_write_options_init(&wo);
        if (t->compress_given)
            wo.format = t->w.format;
        if ((st = pprof_otlp_write_file((const pprof_profile *const *)qs, n, &wo, t->out, &err))) {
            tool_print_error(stderr, prog, tool_is_stdout(t->out) ? "<stdout>" : t->out, &err);
            rc = tool_exit_for(st);
        }
    }
    if (!rc && t->strict && unresolved) {
        fprintf(stderr, "%s: %s: %llu address(es) left unresolved (--strict)\n", prog, t->in,
                (unsigned long long)unresolved);
        rc = TOOL_EXIT_INVALID;
    }
    for (size_t i = 0; qs && i < done; i++)
        pprof_profile_free(qs[i]);
    free(qs);
    pprof_otlp_profiles_free(ps, n);
    return rc;
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-symbolize";
    sym_tool t = {.out = "-", .report = PPROF_PRINT_TEXT};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    t.w = w;
    symbolize_opts_init(&t.so);
    bool done = false;
    int rc = parse(&t, argc, argv, &done);
    if (rc || done)
        return rc;
    if ((rc = tool_refuse_binary_tty(prog, t.out, t.force)))
        return rc;
    tool_output_init(&t.w);
    if (!t.compress_given)
        t.w.format = tool_format_from_name(t.out);
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    pprof_symbolize_options so;
    symbolize_opts_fill(&t.so, &so);
    so.force = t.force;
    if (strcmp(t.in, "-")) {
        /* OTLP in, OTLP out: the input's format is kept (a file, not standard input, whose
         * bytes are read once here) */
        pprof_buffer b = {0};
        pprof_status rs = tool_read_all(t.in, &b, &err);
        if (!rs && (pprof_otlp_path_is_otlp(t.in) || pprof_otlp_detect(b.data, b.len))) {
            rc = run_otlp(&t, &so, &b);
            pprof_buffer_free(&b);
            return rc;
        }
        pprof_buffer_free(&b);
    }
    pprof_status st = tool_read_profile(t.in, &p, &err);
    if (st) {
        tool_print_error(stderr, prog, t.in, &err);
        return tool_exit_for(st);
    }
    if ((rc = tool_refuse_invalid(prog, t.in, p, "not symbolized"))) {
        pprof_profile_free(p);
        return rc;
    }
    pprof_symbolize_report *r = NULL;
    st = pprof_symbolize(p, &so, &q, &r, &err);
    if (st)
        tool_print_error(stderr, prog, t.in, &err);
    else if ((st = pprof_profile_write_file(q, &t.w, t.out, &err)))
        tool_print_error(stderr, prog, tool_is_stdout(t.out) ? "<stdout>" : t.out, &err);
    rc = tool_exit_for(st);
    if (!st)
        rc = write_report(&t, r);
    if (!rc && t.strict && pprof_symbolize_report_unresolved(r)) {
        fprintf(stderr, "%s: %s: %llu address(es) left unresolved (--strict)\n", prog,
                strcmp(t.in, "-") ? t.in : "<stdin>",
                (unsigned long long)pprof_symbolize_report_unresolved(r));
        rc = TOOL_EXIT_INVALID;
    }
    pprof_symbolize_report_free(r);
    pprof_profile_free(q);
    pprof_profile_free(p);
    return rc;
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-symbolize", run(argc, argv));
}
