/* pprof-dump: a readable listing of a profile. */
#include <string.h>

#include "common.h"

static const char usage[] =
    "Usage: pprof-dump [options] FILE\n"
    "Prints a profile (raw, gzip or zstd; '-' for stdin; legacy gperftools/tcmalloc\n"
    "formats too) as `go tool pprof -raw -symbolize=none` does: header, sample types,\n"
    "samples with values and labels, locations with lines and mappings, after Go's merge\n"
    "of the one profile (ids renumbered in order of use, unused entries and zero samples\n"
    "dropped, equal samples combined).\n"
    "\n"
    "  --as-is               the same text of the profile as stored: its own ids and order,\n"
    "                        nothing merged or dropped\n"
    "  --json                a complete JSON view of the profile as stored instead of text\n"
    "  -o, --output FILE     write there instead of stdout (atomically); refused when FILE\n"
    "                        is the input, unless --force\n"
    "  --force               write the listing over the input all the same\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "\n"
    "A profile that breaks a rule Go enforces is listed all the same, as stored (Go lists\n"
    "none); stderr says why it is invalid and the exit status is 1.\n"
    "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-dump";
    const char *in = NULL, *out = "-";
    bool force = false;
    pprof_print_format fmt = PPROF_PRINT_GO_RAW;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand;
    while (tool_args_next(&a, &opt, &operand)) {
        if (operand) {
            if (in)
                return tool_usage_error(prog, "only one input file is taken");
            in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            force = true;
        } else if (tool_opt_is(opt, NULL, "--as-is")) {
            fmt = PPROF_PRINT_TEXT;
        } else if (tool_opt_is(opt, NULL, "--json")) {
            fmt = PPROF_PRINT_JSON;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            if (!(out = tool_args_value(&a, prog)))
                return TOOL_EXIT_USAGE;
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (!in)
        return tool_usage_error(prog, "no input file");
    int rc = tool_refuse_text_over_input(prog, in, out, force, "listing");
    if (rc)
        return rc;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    tool_output_init(&w);
    pprof_error err;
    pprof_profile *p = NULL;
    /* A listing shows what is there, even what a rewriting reader refuses (pprof-check says
     * what is wrong with it). */
    pprof_read_options ro;
    tool_read_options(&ro);
    ro.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    pprof_status st = pprof_profile_read_file(in, &ro, &p, &err);
    if (st) {
        tool_print_error(stderr, prog, in, &err);
        return tool_exit_for(st);
    }
    /* A broken profile is still listed (that is what this tool is for), but said to be broken:
     * a listing is easily taken for a profile Go would read. */
    long long invalid = tool_check_go_rules(prog, in, p, "invalid profile");
    /* Go's merge assumes the references it follows are sound: an invalid profile is listed
     * as it is stored. */
    if (invalid && fmt == PPROF_PRINT_GO_RAW)
        fmt = PPROF_PRINT_TEXT;
    pprof_buffer b = {0};
    st = pprof_profile_print(p, fmt, &b, &err);
    if (st) {
        tool_print_error(stderr, prog, in, &err); /* the listing failed on the input's content */
    } else if ((st = pprof_bytes_write_file(b.data, b.len, &w, out, &err))) {
        tool_print_error(stderr, prog, strcmp(out, "-") ? out : "<stdout>", &err);
    }
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    if (st == PPROF_OK && invalid > 0)
        fprintf(stderr, "%s: %s: listed, but invalid: %lld error(s) that Go's pprof refuses\n",
                prog, strcmp(in, "-") ? in : "<stdin>", invalid);
    if (st == PPROF_OK && invalid)
        return invalid > 0 ? TOOL_EXIT_INVALID : TOOL_EXIT_IO;
    return tool_exit_for(st);
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-dump", run(argc, argv));
}
