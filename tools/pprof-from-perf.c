/* pprof-from-perf: a Linux perf recording (perf.data or `perf script` text) to a profile. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "perf.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-from-perf [options] IN [-o OUT]\n"
    "Reads a Linux perf recording ('-' for stdin): a perf.data file (file or pipe mode,\n"
    "either byte order) or the text of `perf script`, and writes a pprof profile with one\n"
    "sample type per event (weighted by period, as perf report) and samples/count.\n"
    "Locations are addresses in the process's mappings (with build ids), for a symbolizer.\n"
    "\n"
    "  -o, --output FILE     output path ('-' = stdout, the default); written atomically\n"
    "  --event NAME          keep only this event's samples (repeatable)\n"
    "  --labels LIST         labels per sample, from pid,tid,comm,cpu\n"
    "  --kallsyms FILE       name kernel frames from this /proc/kallsyms copy\n"
    "  --timestamps          label each sample with its time (timestamp_unix_nano, wall\n"
    "                        clock with the recording's clock data, else perf's clock);\n"
    "                        samples no longer fold together: a larger profile\n"
    "  --from=FORMAT         perf-data or perf-script (default: detected)\n"
    "  --symbolize           symbolize the addresses from the mappings' ELF files before\n"
    "                        writing (as pprof-symbolize), with:\n" SYMBOLIZE_OPTS_HELP
    "  --compress=FORMAT     gzip, zstd or none; default: from OUT's name\n"
    "  --level N             compression level (gzip 1-12, zstd 1-22)\n"
    "  --force               write to a terminal all the same\n"
    "  -q, --quiet           no warning about what was not converted\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "\n"
    "What perf.data holds and is not converted (DWARF stack dumps, branch stacks,\n"
    "tracepoint payloads, AUX data, compressed records) and lost samples are named\n"
    "in a warning on stderr.\n"
    "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

typedef struct from_perf_opts {
    const char *in, *out, *kallsyms;
    const char *events[64];
    size_t n_events;
    bool compress_given, force, quiet;
    symbolize_opts sym;
    pprof_perf_options p;
    pprof_write_options w;
} from_perf_opts;

static int
parse_labels(const char *prog, const char *v, uint32_t *out)
{
    *out = 0;
    while (*v) {
        size_t n = strcspn(v, ",");
        if (n == 3 && !strncmp(v, "pid", 3))
            *out |= PPROF_PERF_LABEL_PID;
        else if (n == 3 && !strncmp(v, "tid", 3))
            *out |= PPROF_PERF_LABEL_TID;
        else if (n == 4 && !strncmp(v, "comm", 4))
            *out |= PPROF_PERF_LABEL_COMM;
        else if (n == 3 && !strncmp(v, "cpu", 3))
            *out |= PPROF_PERF_LABEL_CPU;
        else if (n)
            return tool_usage_error(prog, "unknown label '%.*s' (pid, tid, comm, cpu)", (int)n, v);
        v += n + (v[n] == ',');
    }
    return 0;
}

static int
parse(int argc, char **argv, from_perf_opts *o)
{
    const char *prog = "pprof-from-perf";
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand, *v;
    int rc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && symbolize_opts_opt(&o->sym, &a, prog, opt, true, &rc)) {
            if (rc)
                return rc;
        } else if (operand) {
            if (o->in)
                return tool_usage_error(prog, "only one input file is taken");
            o->in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            return -1;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return -1;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            o->force = true;
        } else if (tool_opt_is(opt, "-q", "--quiet")) {
            o->quiet = true;
        } else if (tool_opt_is(opt, NULL, "--timestamps")) {
            o->p.timestamps = true;
        } else if (tool_opt_is(opt, NULL, "--compress") || tool_opt_is(opt, NULL, "--level") ||
                   tool_opt_is(opt, "-o", "--output") || tool_opt_is(opt, NULL, "--event") ||
                   tool_opt_is(opt, NULL, "--labels") || tool_opt_is(opt, NULL, "--kallsyms") ||
                   tool_opt_is(opt, NULL, "--from")) {
            if (!(v = tool_args_value(&a, prog)))
                return TOOL_EXIT_USAGE;
            if (tool_opt_is(opt, "-o", "--output")) {
                o->out = v;
            } else if (tool_opt_is(opt, NULL, "--kallsyms")) {
                o->kallsyms = v;
            } else if (tool_opt_is(opt, NULL, "--event")) {
                if (o->n_events == 64)
                    return tool_usage_error(prog, "at most 64 --event options");
                o->events[o->n_events++] = v;
            } else if (tool_opt_is(opt, NULL, "--labels")) {
                if ((rc = parse_labels(prog, v, &o->p.labels)))
                    return rc;
            } else if (tool_opt_is(opt, NULL, "--from")) {
                if (!strcmp(v, "perf-script"))
                    o->p.input = PPROF_PERF_INPUT_SCRIPT;
                else if (!strcmp(v, "perf-data"))
                    o->p.input = PPROF_PERF_INPUT_DATA;
                else
                    return tool_usage_error(prog, "unknown --from '%s' (perf-data, perf-script)",
                                            v);
            } else if (tool_opt_is(opt, NULL, "--compress")) {
                if (!tool_parse_format(v, &o->w.format))
                    return tool_usage_error(prog, "unknown compression '%s' (gzip, zstd, none)", v);
                o->compress_given = true;
            } else {
                unsigned long long n;
                if (!tool_parse_u64(v, &n) || n < 1 || n > 22)
                    return tool_usage_error(prog, "--level takes a number from 1 to 22");
                o->w.level = (int)n;
            }
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (!o->in)
        return tool_usage_error(prog, "no input file");
    return 0;
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-from-perf";
    from_perf_opts o = {.out = "-"};
    pprof_perf_options_init(&o.p);
    pprof_write_options_init(&o.w);
    symbolize_opts_init(&o.sym);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? TOOL_EXIT_OK : rc;
    if ((rc = tool_refuse_binary_tty(prog, o.out, o.force)))
        return rc;
    tool_output_init(&o.w);
    if (!o.compress_given)
        o.w.format = tool_format_from_name(o.out);
    if ((rc = tool_check_level(prog, &o.w)))
        return rc;
    o.p.events = o.events;
    o.p.n_events = o.n_events;
    pprof_error err;
    uint8_t *ks = NULL;
    if (o.kallsyms) {
        FILE *f = fopen(o.kallsyms, "rb");
        size_t cap = 1 << 20, n = 0;
        ks = f ? malloc(cap) : NULL;
        while (ks && !ferror(f) && !feof(f)) {
            if (n == cap) {
                uint8_t *nk = realloc(ks, cap *= 2);
                if (!nk) {
                    free(ks);
                    ks = NULL;
                    break;
                }
                ks = nk;
            }
            n += fread(ks + n, 1, cap - n, f);
        }
        bool bad = !f || !ks || ferror(f);
        if (f)
            fclose(f);
        if (bad) {
            free(ks);
            fprintf(stderr, "%s: %s: error: cannot read the kallsyms file\n", prog, o.kallsyms);
            return TOOL_EXIT_IO;
        }
        o.p.kallsyms = (const char *)ks;
        o.p.kallsyms_size = n;
    }
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    tool_note_format(prog, o.w.format, o.quiet);
    pprof_status s;
    if (o.sym.enabled) {
        /* symbolizing needs the whole profile; without it the conversion streams to OUT */
        pprof_profile *prof = NULL;
        s = pprof_perf_read_file(o.in, &o.p, &prof, &st, &err);
        free(ks);
        ks = NULL;
        if (!s && (rc = symbolize_opts_apply(&o.sym, prog, o.in, &prof))) {
            pprof_profile_free(prof);
            return rc;
        }
        if (!s && (s = pprof_profile_write_file(prof, &o.w, o.out, &err))) {
            pprof_profile_free(prof);
            tool_print_error(stderr, prog, tool_is_stdout(o.out) ? "<stdout>" : o.out, &err);
            return tool_exit_for(s);
        }
        pprof_profile_free(prof);
    } else {
        s = pprof_perf_convert_file(o.in, &o.p, &o.w, o.out, &st, &err);
    }
    free(ks);
    if (s == PPROF_E_ARG && !strcmp(err.path, "events")) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return TOOL_EXIT_USAGE;
    }
    if (s) {
        /* an I/O error once the input was open is the output's */
        bool out_err =
            (s == PPROF_E_IO || s == PPROF_E_NOMEM) && strncmp(err.message, "cannot open", 11) &&
            strncmp(err.message, "read failed", 11) && strncmp(err.message, "cannot map", 10);
        tool_print_error(stderr, prog, out_err ? (strcmp(o.out, "-") ? o.out : "<stdout>") : o.in,
                         &err);
        return tool_exit_for(s);
    }
    char warn[1024];
    if (!o.quiet && pprof_perf_warning(&st, warn, sizeof(warn)))
        fprintf(stderr, "%s: %s: warning: %s\n", prog, strcmp(o.in, "-") ? o.in : "<stdin>", warn);
    return tool_exit_for(s);
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-from-perf", run(argc, argv));
}
