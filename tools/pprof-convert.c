/* pprof-convert: re-encode a profile, changing its compression. */
#include <string.h>

#include "common.h"
#include "convert-folded.h"
#include "convert-jfr.h"
#include "convert-json.h"
#include "convert-otlp.h"

static const char usage[] =
    "Usage: pprof-convert [options] IN [-o OUT]\n"
    "Reads a pprof profile (raw, gzip or zstd; '-' for stdin) and writes it again,\n"
    "deterministically, with the string table rebuilt from the strings in use.\n"
    "\n"
    "  -o, --output FILE     output path ('-' = stdout, the default); written atomically\n"
    "  --compress=FORMAT     gzip, zstd or none; default: from OUT's name (.zst zstd,\n"
    "                        .pb none, else gzip)\n"
    "  --level N             compression level (gzip 1-12, zstd 1-22)\n"
    "  --force               write to a terminal all the same\n"
    "  --no-check            write a profile that breaks rules Go enforces (duplicate or\n"
    "                        zero ids, dangling references, wrong value counts...); by\n"
    "                        default such a profile is refused, naming the rule\n"
    "  --to=folded           write folded stacks (root;caller;leaf VALUE) instead\n"
    "  --to=speedscope       write speedscope's JSON (one profile per sample type)\n"
    "  --to=cpuprofile       write a Chrome / Node .cpuprofile (JSON)\n"
    "  --from=folded         read folded stacks (IN is text) instead of a profile\n"
    "  --from=cpuprofile     read a Chrome / Node .cpuprofile (node --cpu-prof)\n"
    "  --sample-type T       folded out: the sample type (default: Go's rule);\n"
    "                        folded in: TYPE/UNIT of the values (default samples/count);\n"
    "                        cpuprofile out: the type of the time deltas\n"
    "  --lines               folded out: append :LINE to each frame; speedscope out:\n"
    "                        one frame per function and line\n"
    "  --labels KEY,...      folded out: label values as root frames KEY=VALUE\n"
    "  --to=otlp             write OpenTelemetry Profiles (ProfilesData; raw unless OUT ends\n"
    "                        in .gz or .zst, or --compress)\n"
    "  --from=otlp           read OpenTelemetry Profiles (found without it too: by content,\n"
    "                        else by a .otlp name)\n"
    "  --resource KEY=VALUE  otlp out: a resource attribute (repeatable)\n"
    "  --service-name NAME   otlp out: the resource's service.name\n"
    "  --profile N           otlp in: the Nth profile (from 0) when it holds several\n"
    "  --from=jfr            read a Java Flight Recorder recording (found without it too:\n"
    "                        by content)\n"
    "  --event NAME          jfr in: only cpu, native, alloc, lock or one JFR event\n"
    "                        (jdk.ExecutionSample, jdk.ThreadPark...)\n"
    "  --timestamps          jfr in: the label timestamp_unix_nano on every sample\n"
    "  --allow-truncated     jfr in: read a recording that ends inside a chunk, saying\n"
    "                        how many events were kept\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

typedef struct convert_opts {
    const char *in;
    const char *out;
    bool compress_given, force, no_check;
    pprof_write_options w;
} convert_opts;

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-convert";
    convert_opts o = {.out = "-"};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    o.w = w;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand;
    convert_folded fo = {0};
    convert_otlp ot;
    convert_otlp_init(&ot);
    convert_jfr jf;
    convert_jfr_init(&jf);
    int frc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && convert_jfr_opt(&jf, &a, opt, &frc)) {
            if (frc)
                return frc;
        } else if (!operand && convert_otlp_opt(&ot, &a, opt, &frc)) {
            if (frc)
                return frc;
        } else if (!operand && convert_folded_opt(&fo, &a, opt, &frc)) {
            if (frc)
                return frc;
        } else if (operand) {
            if (o.in)
                return tool_usage_error(prog, "only one input file is taken");
            o.in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            o.force = true;
        } else if (tool_opt_is(opt, NULL, "--no-check")) {
            o.no_check = true;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            if (!(o.out = tool_args_value(&a, prog)))
                return TOOL_EXIT_USAGE;
        } else if (tool_opt_is(opt, NULL, "--compress")) {
            const char *v = tool_args_value(&a, prog);
            if (!v)
                return TOOL_EXIT_USAGE;
            if (!tool_parse_format(v, &o.w.format))
                return tool_usage_error(prog, "unknown compression '%s' (gzip, zstd, none)", v);
            o.compress_given = true;
        } else if (tool_opt_is(opt, NULL, "--level")) {
            const char *v = tool_args_value(&a, prog);
            unsigned long long n;
            if (!v)
                return TOOL_EXIT_USAGE;
            if (!tool_parse_u64(v, &n) || n < 1 || n > 99)
                return tool_usage_error(prog, "--level takes a positive number");
            o.w.level = (int)n;
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (!o.in)
        return tool_usage_error(prog, "no input file");
    if (fo.to_json || fo.from_json) {
        /* the JSON formats of other viewers (convert-json.c) */
        bool text = fo.to_json || fo.to;
        int jrc = text ? tool_refuse_text_over_input(prog, o.in, o.out, o.force, "JSON text")
                       : tool_refuse_binary_tty(prog, o.out, o.force);
        if (jrc)
            return jrc;
        tool_output_init(&o.w);
        if (!text && !o.compress_given)
            o.w.format = tool_format_from_name(o.out);
        if (!text && (jrc = tool_check_level(prog, &o.w)))
            return jrc;
        return convert_json_run(&fo, o.in, o.out, &o.w);
    }
    if (fo.to) {
        int trc = tool_refuse_text_over_input(prog, o.in, o.out, o.force, "folded text");
        if (trc)
            return trc;
        tool_output_init(&o.w); /* its temporary-file callback serves text outputs too */
        return convert_folded_run(&fo, o.in, o.out, &o.w);
    }
    int rc = tool_refuse_binary_tty(prog, o.out, o.force);
    if (rc)
        return rc;
    tool_output_init(&o.w);
    if (!o.compress_given)
        o.w.format = tool_format_from_name(o.out);
    if ((rc = tool_check_level(prog, &o.w)))
        return rc;
    if (fo.from)
        return convert_folded_run(&fo, o.in, o.out, &o.w);
    if (jf.on && ot.from)
        return tool_usage_error(prog, "--from=otlp and JFR options together");
    if (ot.to || ot.from)
        return convert_otlp_run(&ot, o.in, o.out, &o.w, o.compress_given, o.no_check);
    if (jf.on)
        return convert_jfr_run(&jf, o.in, o.out, &o.w, o.no_check);
    /* the library's one validity decision, as tool_check_go_rules prints it */
    pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
    go_check g = {prog, o.in, "error", 0};
    /* gzip members on every core, as pprof-merge and pprof-edit: the bytes never depend on it */
    o.w.threads = tool_cores(64);
    co.write = &o.w;
    pprof_read_options ro;
    co.read = tool_read_options(&ro);
    ro.threads = o.w.threads; /* and gzip members inflated side by side, the same bytes */
    co.no_check = o.no_check;
    co.on_finding = tool_print_go_finding;
    co.finding_ctx = &g;
    co.max_findings = TOOL_GO_CHECK_SHOWN;
    pprof_convert_result res = PPROF_CONVERT_RESULT_INIT;
    pprof_error err;
    pprof_status st = pprof_convert_file(o.in, &co, o.out, &res, &err);
    const char *in_name = strcmp(o.in, "-") ? o.in : "<stdin>";
    if (res.check_errors) {
        if (res.check_errors > TOOL_GO_CHECK_SHOWN)
            fprintf(stderr, "%s: %s: ... %llu more\n", prog, in_name,
                    (unsigned long long)(res.check_errors - TOOL_GO_CHECK_SHOWN));
        fprintf(stderr,
                "%s: %s: not converted: %llu error(s) that Go's pprof refuses "
                "(--no-check writes it anyway)\n",
                prog, in_name, (unsigned long long)res.check_errors);
        return TOOL_EXIT_INVALID;
    }
    if (st == PPROF_OK || res.output_failed)
        tool_note_format(prog, o.w.format, false);
    if (res.output_failed)
        tool_print_error(stderr, prog, strcmp(o.out, "-") ? o.out : "<stdout>", &err);
    else if (st)
        tool_print_error(stderr, prog, o.in, &err);
    return tool_exit_for(st);
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-convert", run(argc, argv));
}
