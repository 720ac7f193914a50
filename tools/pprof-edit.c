/* pprof-edit: rewrite a profile (filter, prune, sample types, labels, scale, aggregate, trim,
 * redact) with the library's edit engine (pprof/edit.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "edit.h"
#include "merge.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-edit IN [-o OUT] [--compress=gzip|zstd|none] [--level N] [operations]\n"
    "Reads a pprof profile (raw, gzip or zstd; '-' for stdin), applies the operations in the\n"
    "fixed order of docs/edit.md (go tool pprof's where it has one), and writes a compacted\n"
    "profile. With no operation it re-encodes and compacts, like pprof-convert. Go's spellings\n"
    "(-focus=RX, --show_from, --tagfocus, --noinlines, ...) are accepted too.\n"
    "\n"
    "  -o, --output FILE       output path ('-' = stdout, the default); written atomically\n"
    "  --compress=FORMAT       gzip, zstd or none; default: from OUT's name (.zst zstd,\n"
    "                          .pb none, else gzip)\n"
    "  --level N               compression level (gzip 1-12, zstd 1-22; default: gzip 1,\n"
    "                          zstd the library's default), as pprof-merge\n"
    "  -v, --verbose           say what each operation kept and dropped\n"
    "  --force                 write to a terminal all the same\n"
    "Frames (Go regexps on function names, file names and mapping files):\n"
    "  --focus RX              keep samples with a matching frame\n"
    "  --ignore RX             drop samples with a matching frame\n"
    "  --hide RX               remove matching frames\n"
    "  --show RX               keep only matching frames\n"
    "  --show-from RX          cut each stack above its root-most match (--show_from)\n"
    "  --prune-from RX         cut each stack below its leaf-most match (--prune_from)\n"
    "  --drop-frames RX        prune like a profile's drop_frames (anchored, no arguments)\n"
    "  --keep-frames RX        frames --drop-frames spares\n"
    "Labels:\n"
    "  --tag-focus [KEY=]RX|RANGE  keep samples with a matching label (--tagfocus);\n"
    "                          RANGE: 32kb, 1s:, :64kb, 64kb:1mb (Go's units)\n"
    "  --tag-ignore [KEY=]RX|RANGE  drop samples with a matching label (--tagignore)\n"
    "  --tag-show RX           keep only label keys that match (--tagshow)\n"
    "  --tag-hide RX           remove label keys that match (--taghide)\n"
    "  --tag-root KEY[,KEY]    label values as frames at the root (--tagroot)\n"
    "  --tag-leaf KEY[,KEY]    label values as frames at the leaf (--tagleaf)\n"
    "  --set-label KEY=VALUE   set a string label on every sample (repeatable)\n"
    "  --remove-label KEY      remove a label key (repeatable)\n"
    "  --rename-label OLD=NEW  rename a label key (repeatable)\n";
/* in two parts: C limits one string literal to 4095 bytes */
static const char usage2[] =
    "Time (the samples' timestamp_unix_nano labels, pprof-from-perf --timestamps):\n"
    "  --time-from T           keep samples at or after T: RFC 3339 (2026-12-07T10:00:00.5Z)\n"
    "                          or seconds from the first sample (1.5)\n"
    "  --time-to T             keep samples before T (the same forms)\n"
    "  --drop-timestamps       remove the times, so that equal samples fold together\n"
    "Values:\n"
    "  --sample-types T[,T...] keep only these sample types, in this order\n"
    "  --scale [TYPE=]F        multiply values (Go's ScaleN rounding; repeatable)\n"
    "  --normalize BASE        scale each type so its total equals BASE's\n"
    "  --granularity G         functions, filefunctions, files, lines or addresses\n"
    "  --no-inlines            fold inline frames into their caller (--noinlines)\n"
    "  --max-depth N           keep the leaf-most N frames, plus one saying how many were cut\n"
    "  --min-fraction F        drop samples below F of the total (default sample type)\n"
    "  --redact KIND[,KIND]    files, mappings, label:KEY: replace with a keyed hash\n"
    "  --redact-key KEYFILE    the key (required with --redact)\n"
    "  --symbolize             symbolize the input from its mappings' ELF files first (as\n"
    "                          pprof-symbolize), with:\n" SYMBOLIZE_OPTS_HELP
    "  -h, --help              show this help\n"
    "  --version               show the version\n"
    "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

static const char *prog = "pprof-edit";

typedef struct edit_cli {
    const char *in, *out, *normalize, *redact_keyfile;
    bool verbose, compress_given, force;
    pprof_write_options w;
    pprof_edit_options e;
    /* lists, each with room for argc entries */
    const char **types, **remove, **redact_labels;
    pprof_edit_label *set;
    pprof_edit_rename *rename;
    pprof_edit_scale *scale;
    char **owned; /* strings this run allocated */
    size_t n_owned;
    symbolize_opts sym;
} edit_cli;

static char *
keep(edit_cli *c, char *s)
{
    if (s)
        c->owned[c->n_owned++] = s;
    return s;
}

/* Splits "A=B" at the first '='; false when there is none or A is empty. */
static bool
split_eq(edit_cli *c, const char *v, const char **a, const char **b)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return false;
    char *k = keep(c, strndup(v, (size_t)(eq - v)));
    if (!k)
        return false;
    *a = k;
    *b = eq + 1;
    return true;
}

/* Appends the comma-separated items of v to list. */
static bool
split_commas(edit_cli *c, const char *v, const char **list, size_t *n, size_t max)
{
    char *d = keep(c, strdup(v));
    if (!d)
        return false;
    for (char *t = strtok(d, ","); t; t = strtok(NULL, ",")) {
        if (*n >= max)
            return false;
        list[(*n)++] = t;
    }
    return true;
}

static bool
parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static int
parse_redact(edit_cli *c, const char *v, size_t max)
{
    const char *kinds[64];
    size_t n = 0;
    if (!split_commas(c, v, kinds, &n, 64))
        return tool_usage_error(prog, "--redact: too many kinds");
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(kinds[i], "files"))
            c->e.redact |= PPROF_REDACT_FILES;
        else if (!strcmp(kinds[i], "mappings"))
            c->e.redact |= PPROF_REDACT_MAPPINGS;
        else if (!strncmp(kinds[i], "label:", 6) && kinds[i][6] && c->e.n_redact_labels < max) {
            c->e.redact |= PPROF_REDACT_LABELS;
            c->redact_labels[c->e.n_redact_labels++] = kinds[i] + 6;
        } else
            return tool_usage_error(prog,
                                    "--redact: unknown kind '%s' (files, mappings, "
                                    "label:KEY)",
                                    kinds[i]);
    }
    return TOOL_EXIT_OK;
}

static int
parse_granularity(edit_cli *c, const char *v)
{
    static const char *names[] = {"", "functions", "filefunctions", "files", "lines", "addresses"};
    for (int i = 1; i < 6; i++)
        if (!strcmp(v, names[i])) {
            c->e.granularity = (pprof_granularity)i;
            return TOOL_EXIT_OK;
        }
    return tool_usage_error(prog,
                            "--granularity: unknown value '%s' (functions, filefunctions, "
                            "files, lines, addresses)",
                            v);
}

/* Options that take a pattern or a key list and are stored as is. */
static const char **
string_option(edit_cli *c, const char *opt)
{
    static const struct {
        const char *name, *alias;
        size_t off;
    } t[] = {
        {"--focus", NULL, offsetof(pprof_edit_options, focus)},
        {"--ignore", NULL, offsetof(pprof_edit_options, ignore)},
        {"--hide", NULL, offsetof(pprof_edit_options, hide)},
        {"--show", NULL, offsetof(pprof_edit_options, show)},
        {"--show-from", "--show_from", offsetof(pprof_edit_options, show_from)},
        {"--prune-from", "--prune_from", offsetof(pprof_edit_options, prune_from)},
        {"--drop-frames", NULL, offsetof(pprof_edit_options, drop_frames)},
        {"--keep-frames", NULL, offsetof(pprof_edit_options, keep_frames)},
        {"--tag-focus", "--tagfocus", offsetof(pprof_edit_options, tag_focus)},
        {"--tag-ignore", "--tagignore", offsetof(pprof_edit_options, tag_ignore)},
        {"--tag-show", "--tagshow", offsetof(pprof_edit_options, tag_show)},
        {"--tag-hide", "--taghide", offsetof(pprof_edit_options, tag_hide)},
        {"--tag-root", "--tagroot", offsetof(pprof_edit_options, tag_root)},
        {"--tag-leaf", "--tagleaf", offsetof(pprof_edit_options, tag_leaf)},
        {"--time-from", NULL, offsetof(pprof_edit_options, time_from)},
        {"--time-to", NULL, offsetof(pprof_edit_options, time_to)},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (tool_opt_is(opt, NULL, t[i].name) || (t[i].alias && tool_opt_is(opt, NULL, t[i].alias)))
            return (const char **)((char *)&c->e + t[i].off);
    return NULL;
}

static int
parse_option(edit_cli *c, tool_args *a, const char *opt, size_t max)
{
    const char **slot = string_option(c, opt);
    const char *v, *k;
    if (slot) {
        if (!(v = tool_args_value(a, prog)))
            return TOOL_EXIT_USAGE;
        *slot = v;
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, NULL, "--no-inlines") || tool_opt_is(opt, NULL, "--noinlines")) {
        c->e.no_inlines = true;
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, NULL, "--drop-timestamps")) {
        c->e.drop_timestamps = true;
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, "-v", "--verbose")) {
        c->verbose = true;
        return TOOL_EXIT_OK;
    }
    if (tool_opt_is(opt, NULL, "--force")) {
        c->force = true;
        return TOOL_EXIT_OK;
    }
    if (!(v = tool_args_value(a, prog)))
        return TOOL_EXIT_USAGE;
    if (tool_opt_is(opt, "-o", "--output")) {
        c->out = v;
    } else if (tool_opt_is(opt, NULL, "--compress")) {
        if (!tool_parse_format(v, &c->w.format))
            return tool_usage_error(prog, "unknown compression '%s' (gzip, zstd, none)", v);
        c->compress_given = true;
    } else if (tool_opt_is(opt, NULL, "--level")) {
        unsigned long long n;
        if (!tool_parse_u64(v, &n) || n < 1 || n > 99)
            return tool_usage_error(prog, "--level takes a positive number");
        c->w.level = (int)n;
    } else if (tool_opt_is(opt, NULL, "--sample-types")) {
        if (!split_commas(c, v, c->types, &c->e.n_sample_types, max))
            return tool_usage_error(prog, "--sample-types: too many types");
    } else if (tool_opt_is(opt, NULL, "--set-label")) {
        pprof_edit_label *l = &c->set[c->e.n_set_labels];
        if (!split_eq(c, v, &l->key, &l->value))
            return tool_usage_error(prog, "--set-label takes KEY=VALUE");
        c->e.n_set_labels++;
    } else if (tool_opt_is(opt, NULL, "--remove-label")) {
        c->remove[c->e.n_remove_labels++] = v;
    } else if (tool_opt_is(opt, NULL, "--rename-label")) {
        pprof_edit_rename *r = &c->rename[c->e.n_rename_labels];
        if (!split_eq(c, v, &r->from, &r->to) || !*r->to)
            return tool_usage_error(prog, "--rename-label takes OLD=NEW");
        c->e.n_rename_labels++;
    } else if (tool_opt_is(opt, NULL, "--scale")) {
        pprof_edit_scale *s = &c->scale[c->e.n_scale];
        const char *f = v;
        s->type = NULL;
        if (split_eq(c, v, &k, &f))
            s->type = k;
        if (!parse_double(f, &s->factor))
            return tool_usage_error(prog, "--scale takes F or TYPE=F with F a finite number");
        c->e.n_scale++;
    } else if (tool_opt_is(opt, NULL, "--normalize")) {
        c->normalize = v;
    } else if (tool_opt_is(opt, NULL, "--granularity")) {
        return parse_granularity(c, v);
    } else if (tool_opt_is(opt, NULL, "--max-depth")) {
        unsigned long long n;
        if (!tool_parse_u64(v, &n) || n < 1 || n > UINT32_MAX)
            return tool_usage_error(prog, "--max-depth takes a number from 1 to 2^32-1");
        c->e.max_depth = (uint32_t)n;
    } else if (tool_opt_is(opt, NULL, "--min-fraction")) {
        if (!parse_double(v, &c->e.min_fraction) || c->e.min_fraction < 0 || c->e.min_fraction > 1)
            return tool_usage_error(prog, "--min-fraction takes a number from 0 to 1");
    } else if (tool_opt_is(opt, NULL, "--redact")) {
        return parse_redact(c, v, max);
    } else if (tool_opt_is(opt, NULL, "--redact-key")) {
        c->redact_keyfile = v;
    } else {
        return tool_usage_error(prog, "unknown option %s", opt);
    }
    return TOOL_EXIT_OK;
}

/* go tool pprof prunes every profile it loads with the profile's own drop_frames
 * (RemoveUninteresting); the tool does the same whenever it does what go tool pprof does. */
static bool
go_operations(const pprof_edit_options *o)
{
    const char *ops[] = {o->focus,      o->ignore,      o->hide,      o->show,       o->show_from,
                         o->prune_from, o->drop_frames, o->tag_focus, o->tag_ignore, o->tag_show,
                         o->tag_hide,   o->tag_root,    o->tag_leaf};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i] && *ops[i])
            return true;
    return false;
}

static void
warn(void *ctx, const char *msg)
{
    fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

static void
print_totals(const int64_t *t, size_t n)
{
    fputc('[', stderr);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, i ? " %lld" : "%lld", (long long)t[i]);
    fputc(']', stderr);
}

static void
report_step(void *ctx, const pprof_edit_step *s)
{
    fprintf(stderr, "%s: %s: samples %zu -> %zu, totals ", prog, s->op, s->samples_in,
            s->samples_out);
    print_totals(s->total_in, s->n_total_in);
    fputs(" -> ", stderr);
    print_totals(s->total_out, s->n_total_out);
    fputc('\n', stderr);
}

/* --symbolize: the input read whole and symbolized, then edited. */
static int
run_edit_symbolized(edit_cli *c, uint8_t *key)
{
    pprof_error err;
    pprof_profile *p = NULL, *base = NULL;
    pprof_status st = tool_read_profile(c->in, &p, &err);
    int rc = st ? (tool_print_error(stderr, prog, c->in, &err), tool_exit_for(st)) : 0;
    if (!rc)
        rc = tool_refuse_invalid(prog, c->in, p, "not edited");
    if (!rc)
        rc = symbolize_opts_apply(&c->sym, prog, c->in, &p);
    if (!rc && c->normalize && (st = tool_read_profile(c->normalize, &base, &err))) {
        tool_print_error(stderr, prog, c->normalize, &err);
        rc = tool_exit_for(st);
    }
    if (!rc) {
        c->e.normalize_base = base;
        c->e.threads = c->w.threads = tool_cores(64);
        if ((st = pprof_edit_write_file(p, &c->e, &c->w, c->out, &err))) {
            tool_print_error(stderr, prog,
                             st == PPROF_E_IO ? (strcmp(c->out, "-") ? c->out : "<stdout>") : c->in,
                             &err);
            rc = tool_exit_for(st);
        }
    }
    pprof_profile_free(p);
    pprof_profile_free(base);
    free(key);
    return rc;
}

static int
run_edit(edit_cli *c)
{
    pprof_error err;
    pprof_merge_input *p = NULL;
    pprof_profile *base = NULL;
    uint8_t *key = NULL;
    pprof_status st;
    if (c->redact_keyfile) {
        FILE *f = fopen(c->redact_keyfile, "rb");
        size_t n = 0;
        key = malloc(4096);
        if (f && key)
            n = fread(key, 1, 4096, f);
        if (!f || !key || ferror(f) || !n) {
            fprintf(stderr, "%s: %s: cannot read the redaction key%s%s\n", prog, c->redact_keyfile,
                    f ? "" : ": ", f ? "" : strerror(errno));
            if (f)
                fclose(f);
            free(key);
            return TOOL_EXIT_IO;
        }
        fclose(f);
        c->e.redact_key = key;
        c->e.redact_key_len = n;
    }
    if (c->sym.enabled) /* a symbolized copy is a whole profile */
        return run_edit_symbolized(c, key);
    /* read as a merge input: samples are decoded and edited a batch at a time */
    pprof_read_options ro;
    tool_read_options(&ro);
    ro.threads = tool_cores(64); /* gzip members inflated side by side: the same bytes */
    if ((st = pprof_merge_input_read_file(c->in, &ro, &p, &err))) {
        tool_print_error(stderr, prog, c->in, &err);
        free(key);
        return tool_exit_for(st);
    }
    int rc = 0;
    if (c->normalize && (st = tool_read_profile(c->normalize, &base, &err))) {
        tool_print_error(stderr, prog, c->normalize, &err);
        rc = tool_exit_for(st);
    } else if (base) { /* the library refuses it too, but this names the file */
        rc = tool_refuse_invalid(prog, c->normalize, base, "not used as the --normalize base");
    }
    if (rc) {
        pprof_profile_free(base);
        pprof_merge_input_free(p);
        free(key);
        return rc;
    }
    c->e.normalize_base = base;
    /* all cores, as pprof-merge does by default: the merger's own thread, parallel sorting and
     * gzip members; the bytes never depend on it */
    c->e.threads = c->w.threads = tool_cores(64);
    st = pprof_edit_input_write_file(p, &c->e, &c->w, c->out, &err);
    if (st)
        tool_print_error(stderr, prog,
                         st == PPROF_E_IO ? (strcmp(c->out, "-") ? c->out : "<stdout>") : c->in,
                         &err);
    pprof_merge_input_free(p);
    pprof_profile_free(base);
    free(key);
    return tool_exit_for(st);
}

static int
run(int argc, char **argv, edit_cli *c)
{
    size_t max = (size_t)argc + 1;
    c->out = "-";
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    c->w = w;
    pprof_edit_options_init(&c->e);
    symbolize_opts_init(&c->sym);
    c->types = calloc(max, sizeof(*c->types));
    c->remove = calloc(max, sizeof(*c->remove));
    c->redact_labels = calloc(max, sizeof(*c->redact_labels));
    c->set = calloc(max, sizeof(*c->set));
    c->rename = calloc(max, sizeof(*c->rename));
    c->scale = calloc(max, sizeof(*c->scale));
    c->owned = calloc(4 * max, sizeof(*c->owned));
    if (!c->types || !c->remove || !c->redact_labels || !c->set || !c->rename || !c->scale ||
        !c->owned) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return TOOL_EXIT_IO;
    }
    c->e.sample_types = c->types;
    c->e.remove_labels = c->remove;
    c->e.redact_labels = c->redact_labels;
    c->e.set_labels = c->set;
    c->e.rename_labels = c->rename;
    c->e.scale = c->scale;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand;
    while (tool_args_next(&a, &opt, &operand)) {
        if (operand) {
            if (c->in)
                return tool_usage_error(prog, "only one input file is taken");
            c->in = operand;
            continue;
        }
        int src;
        if (symbolize_opts_opt(&c->sym, &a, prog, opt, true, &src)) {
            if (src)
                return src;
            continue;
        }
        if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            fputs(usage2, stdout);
            return TOOL_EXIT_OK;
        }
        if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return TOOL_EXIT_OK;
        }
        int rc = parse_option(c, &a, opt, max);
        if (rc)
            return rc;
    }
    if (!c->in)
        return tool_usage_error(prog, "no input file");
    if (c->e.redact && !c->redact_keyfile)
        return tool_usage_error(prog, "--redact needs --redact-key KEYFILE");
    if (c->e.keep_frames && !c->e.drop_frames)
        return tool_usage_error(prog, "--keep-frames needs --drop-frames");
    int rc = tool_refuse_binary_tty(prog, c->out, c->force);
    if (rc)
        return rc;
    tool_output_init(&c->w);
    if (!c->compress_given)
        c->w.format = tool_format_from_name(c->out);
    if ((rc = tool_check_level(prog, &c->w)))
        return rc;
    tool_note_format(prog, c->w.format, false);
    c->e.remove_uninteresting = go_operations(&c->e);
    c->e.warn = warn;
    if (c->verbose)
        c->e.step = report_step;
    return run_edit(c);
}

int
main(int argc, char **argv)
{
    edit_cli c;
    memset(&c, 0, sizeof(c));
    int rc = run(argc, argv, &c);
    for (size_t i = 0; i < c.n_owned; i++)
        free(c.owned[i]);
    free(c.owned);
    free(c.types);
    free(c.remove);
    free(c.redact_labels);
    free(c.set);
    free(c.rename);
    free(c.scale);
    return tool_finish(prog, rc);
}
