/* pprof-merge: exact, deterministic N-way merge of pprof profiles.
 *
 * Inputs are decoded in parallel by worker threads into a bounded window of slots and absorbed
 * by the main thread in input order; the merge result does not depend on that order anyway, so
 * the threads only change speed. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common.h"
#include "merge.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-merge [options] FILE... [-o OUT]\n"
    "Merges pprof profiles (raw, gzip or zstd; '-' for stdin) into one, like\n"
    "`go tool pprof -proto`, exactly and deterministically: the output bytes do not depend\n"
    "on the order or grouping of the inputs.\n"
    "\n"
    "  -o, --output FILE        output path ('-' = stdout, the default); written atomically\n"
    "  --files-from FILE        read more input paths from FILE, one per line ('-' = stdin)\n"
    "  -0, --null               --files-from lists are NUL-separated (find -print0,\n"
    "                           xargs -0); a NUL byte in a list of lines is refused\n"
    "  --compress=FORMAT        gzip, zstd or none; default: from OUT's name (.zst zstd,\n"
    "                           .pb none, else gzip)\n"
    "  --level N                compression level (gzip 1-12, zstd 1-22; default:\n"
    "                           gzip 1, zstd the library's default)\n"
    "  --intersect-types        keep the sample types every input has instead of failing\n"
    "  --inline-conflict=POLICY keep (default, like Go), longest or error: what to do when\n"
    "                           inputs expand one address into different inline frames\n"
    "  --check                  strictly check every input first; stop on error findings\n"
    "  -j, --jobs N             decoding and compressing threads (default: all cores)\n"
    "  -q, --quiet              no progress display and no warnings\n"
    "  --force                  write to a terminal all the same\n"
    "  -v, --verbose            print the time of each phase and the output's size\n"
    "  --symbolize              symbolize each input from its mappings' ELF files first\n"
    "                           (as pprof-symbolize; with the options below)\n" SYMBOLIZE_OPTS_HELP
    "  -h, --help               show this help\n"
    "  --version                show the version\n"
    "\n"
    "Exit status: 0 ok, 1 invalid or incompatible input, 2 usage, 3 I/O error.\n";

static const char prog[] = "pprof-merge";

typedef struct merge_opts {
    pprof_write_options w;
    pprof_merge_options m;
    const char *out;
    bool check;
    bool quiet;
    bool verbose;
    unsigned jobs;
    symbolize_opts sym;
} merge_opts;

/* The list of input paths; strings point into argv or into buffers owned here. */
typedef struct path_list {
    const char **v;
    size_t n, cap;
    char **bufs;
    size_t n_bufs;
} path_list;

static bool
paths_push(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        const char **v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return true;
}

static void
paths_free(path_list *l)
{
    for (size_t i = 0; i < l->n_bufs; i++)
        free(l->bufs[i]);
    free(l->bufs);
    free(l->v);
}

/* Paths separated by NUL bytes (nul), else by newlines with a NUL refused: it would cut the
 * line short and drop the rest of it without a word. */
static int
read_list(path_list *l, const char *from, bool nul)
{
    FILE *f = strcmp(from, "-") ? fopen(from, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "%s: %s: cannot open: %s\n", prog, from, strerror(errno));
        return TOOL_EXIT_IO;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                if (f != stdin)
                    fclose(f);
                return TOOL_EXIT_IO;
            }
            buf = nb;
        }
        buf[len++] = (char)c;
    }
    bool failed = ferror(f);
    if (f != stdin)
        fclose(f);
    if (failed) {
        free(buf);
        fprintf(stderr, "%s: %s: read error\n", prog, from);
        return TOOL_EXIT_IO;
    }
    if (!buf)
        return TOOL_EXIT_OK;
    buf[len] = 0;
    char **nb = realloc(l->bufs, (l->n_bufs + 1) * sizeof(char *));
    if (!nb) {
        free(buf);
        return TOOL_EXIT_IO;
    }
    l->bufs = nb;
    l->bufs[l->n_bufs++] = buf;
    size_t line = 1;
    for (size_t at = 0; at < len; line++) {
        char *e = memchr(buf + at, nul ? 0 : '\n', len - at);
        size_t end = e ? (size_t)(e - buf) : len, next = end + 1;
        if (!nul && memchr(buf + at, 0, end - at)) {
            fprintf(stderr,
                    "%s: %s:%zu: a NUL byte in a list of lines (-0 reads NUL-separated lists)\n",
                    prog, from, line);
            return TOOL_EXIT_USAGE;
        }
        if (!nul && end > at && buf[end - 1] == '\r')
            end--;
        buf[end] = 0; /* buf has a byte past len */
        if (end > at && !paths_push(l, buf + at))
            return TOOL_EXIT_IO;
        at = next;
    }
    return TOOL_EXIT_OK;
}

/* ---------------------------------------------------------------- checking inputs */

/* --check: the library passes at most the first 10 error-level findings of each input (see
 * merge_all); the rest are only counted. */
static bool
on_finding(void *ctx, const pprof_finding *f)
{
    (void)ctx;
    fprintf(stderr, "%s: %s: %s: %s%s%s [%s]\n", prog, f->file, pprof_severity_name(f->severity),
            f->path ? f->path : "", f->path && f->path[0] ? ": " : "", f->message, f->rule_id);
    return true;
}

/* ---------------------------------------------------------------- progress */

typedef struct progress {
    bool on;
    double t0, last;
    uint64_t total_bytes, done_bytes;
} progress;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
progress_update(progress *pr, size_t done, size_t n, bool final)
{
    if (!pr->on)
        return;
    double t = now();
    if (!final && t - pr->last < 0.2)
        return;
    pr->last = t;
    double el = t - pr->t0;
    double mbs = el > 0 ? (double)pr->done_bytes / 1e6 / el : 0;
    double eta = pr->done_bytes && pr->total_bytes > pr->done_bytes
                     ? el * (double)(pr->total_bytes - pr->done_bytes) / (double)pr->done_bytes
                     : 0;
    fprintf(stderr, "\r%s: %zu/%zu files, %.1f MB/s, ETA %.0fs   ", prog, done, n, mbs, eta);
    if (final)
        fputc('\n', stderr);
}

static void
print_warning(void *ctx, const char *msg)
{
    const merge_opts *o = ctx;
    if (!o->quiet)
        fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

static void
print_merge_error(const pprof_error *err)
{
    fprintf(stderr, "%s: error: %s%s%s", prog, err->path, err->path[0] ? ": " : "", err->message);
    if (err->offset != PPROF_NO_OFFSET) /* a sample of a merge input failed to decode */
        fprintf(stderr, " (byte %llu)", (unsigned long long)err->offset);
    fprintf(stderr, " [%s]\n", pprof_status_name(err->code));
}

/* ---------------------------------------------------------------- main */

#define NO_SIZE UINT64_MAX

typedef struct files_ctx {
    progress pr;
    size_t n;
    int rc;
} files_ctx;

/* After each input: progress, and the error of one that failed. */
static void
on_file(void *ctx, const pprof_merge_file_event *ev)
{
    files_ctx *fc = ctx;
    if (ev->status) {
        if (ev->stage == PPROF_MERGE_FILE_CHECK && ev->check_errors)
            fprintf(stderr, "%s: %s: error: the strict check found %llu error(s); nothing merged\n",
                    prog, ev->path, (unsigned long long)ev->check_errors);
        else if (ev->stage == PPROF_MERGE_FILE_ADD)
            print_merge_error(ev->error); /* the message names the input(s) */
        else
            tool_print_error(stderr, prog, ev->path, ev->error);
        fc->rc = tool_exit_for(ev->status);
    }
    if (fc->pr.on) {
        fc->pr.done_bytes += ev->bytes == NO_SIZE ? 0 : ev->bytes;
        progress_update(&fc->pr, ev->index + 1, fc->n, ev->index + 1 == fc->n);
    }
}

/* --symbolize: each input read whole, symbolized, then added (a symbolized copy is a new
 * profile, not a merge input decoded batch by batch). */
static int
add_symbolized(const merge_opts *o, pprof_merger *m, const path_list *in)
{
    for (size_t i = 0; i < in->n; i++) {
        pprof_error err;
        pprof_profile *p = NULL;
        pprof_status st = tool_read_profile(in->v[i], &p, &err);
        if (st) {
            tool_print_error(stderr, prog, in->v[i], &err);
            return tool_exit_for(st);
        }
        int rc = tool_refuse_invalid(prog, in->v[i], p, "not merged");
        if (!rc)
            rc = symbolize_opts_apply(&o->sym, prog, in->v[i], &p);
        if (!rc && (st = pprof_merger_add(m, p, in->v[i], &err))) {
            print_merge_error(&err);
            rc = tool_exit_for(st);
        }
        pprof_profile_free(p);
        if (rc)
            return rc;
    }
    return TOOL_EXIT_OK;
}

static int
merge_all(const merge_opts *o, const path_list *in)
{
    size_t n = in->n;
    unsigned jobs = o->jobs;
    if (jobs == 0)
        jobs = tool_cores(UINT_MAX);
    pprof_write_options wo = o->w;
    wo.threads = jobs;
    files_ctx fc = {.pr = {.on = !o->quiet && isatty(2) && n > 1}, .n = n};
    if (fc.pr.on) {
        for (size_t i = 0; i < n; i++) {
            struct stat sb;
            if (strcmp(in->v[i], "-") && stat(in->v[i], &sb) == 0 && sb.st_size > 0)
                fc.pr.total_bytes += (uint64_t)sb.st_size;
        }
        fc.pr.t0 = fc.pr.last = now();
    }
    double t_start = now();
    pprof_merge_options mo = o->m;
    mo.threads = wo.threads; /* all cores, however few inputs there are */
    mo.warn = print_warning;
    mo.warn_ctx = (void *)o;
    pprof_merger *m = NULL;
    pprof_error err;
    pprof_status st = pprof_merger_new(&mo, &m, &err);
    if (st) {
        tool_print_error(stderr, prog, NULL, &err);
        return tool_exit_for(st);
    }
    /* --check reports the first 10 error-level findings of each input and counts the rest */
    bool errors_only[PPROF_RULE_COUNT];
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        errors_only[r] = pprof_rule_get((pprof_rule)r)->severity == PPROF_SEVERITY_ERROR;
    pprof_check_options co;
    pprof_check_options_init(&co);
    co.max_findings = 10;
    co.enabled = errors_only;
    co.n_enabled = PPROF_RULE_COUNT;
    pprof_merge_files_options fo;
    pprof_merge_files_options_init(&fo);
    fo.threads = jobs;
    pprof_read_options ro;
    fo.read = tool_read_options(&ro);
    fo.check = o->check;
    fo.check_options = &co;
    fo.on_finding = on_finding;
    fo.on_file = on_file;
    fo.ctx = &fc;
    pprof_merge_files_summary fsum = {.struct_size = sizeof(fsum)};
    int rc = TOOL_EXIT_OK;
    if (o->sym.enabled) {
        rc = add_symbolized(o, m, in);
        st = rc ? PPROF_E_INVALID : PPROF_OK;
    } else {
        st = pprof_merger_add_files(m, in->v, n, &fo, &fsum, &err);
        rc = st ? fc.rc : TOOL_EXIT_OK;
    }
    double t_absorbed = now();
    if (rc == TOOL_EXIT_OK) {
        /* Straight from the merger to the file: the output's sample table is never built. */
        pprof_merge_summary sum = PPROF_MERGE_SUMMARY_INIT;
        st = pprof_merger_write_file(m, &wo, o->out, &sum, &err);
        if (st == PPROF_OK && o->verbose)
            fprintf(stderr,
                    "%s: %zu inputs; read and absorb %.3f s (%.3f s waiting for decoding), "
                    "order and write %.3f s; output %zu samples, %zu locations, %zu functions\n",
                    prog, n, t_absorbed - t_start, fsum.wait_seconds, now() - t_absorbed,
                    sum.samples, sum.locations, sum.functions);
        if (st) {
            /* a merge error names its input(s); anything else is about writing the output */
            if (st == PPROF_E_OVERFLOW || st == PPROF_E_INCOMPATIBLE)
                print_merge_error(&err);
            else
                tool_print_error(stderr, prog, strcmp(o->out, "-") ? o->out : "<stdout>", &err);
            rc = tool_exit_for(st);
        }
    }
    pprof_merger_free(m);
    return rc;
}

static int
run(int argc, char **argv)
{
    merge_opts o = {.out = "-"};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
    o.w = w;
    o.m = mo;
    path_list in = {0};
    int rc = TOOL_EXIT_OK;
    size_t stdin_uses = 0;
    bool compress_given = false, force = false, nul = false;
    /* lists are read once every option is known: -0 may come after --files-from */
    const char **lists = calloc((size_t)argc, sizeof(*lists));
    size_t n_lists = 0;
    if (!lists)
        return TOOL_EXIT_IO;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand;
    symbolize_opts_init(&o.sym);
    while (rc == TOOL_EXIT_OK && tool_args_next(&a, &opt, &operand)) {
        const char *v = NULL;
        int src;
        if (!operand && symbolize_opts_opt(&o.sym, &a, prog, opt, true, &src)) {
            rc = src;
        } else if (operand) {
            stdin_uses += strcmp(operand, "-") == 0;
            if (!paths_push(&in, operand))
                rc = TOOL_EXIT_IO;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            paths_free(&in);
            free(lists);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            paths_free(&in);
            free(lists);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            if (!(o.out = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
        } else if (tool_opt_is(opt, NULL, "--files-from")) {
            if (!(v = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
            else {
                stdin_uses += strcmp(v, "-") == 0;
                lists[n_lists++] = v;
            }
        } else if (tool_opt_is(opt, "-0", "--null")) {
            nul = true;
        } else if (tool_opt_is(opt, NULL, "--compress")) {
            if (!(v = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
            else if (!tool_parse_format(v, &o.w.format))
                rc = tool_usage_error(prog, "unknown compression '%s' (gzip, zstd, none)", v);
            compress_given = true;
        } else if (tool_opt_is(opt, NULL, "--level")) {
            unsigned long long x;
            if (!(v = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
            else if (!tool_parse_u64(v, &x) || x < 1 || x > 99)
                rc = tool_usage_error(prog, "--level takes a positive number");
            else
                o.w.level = (int)x;
        } else if (tool_opt_is(opt, NULL, "--intersect-types")) {
            o.m.intersect_types = true;
        } else if (tool_opt_is(opt, NULL, "--inline-conflict")) {
            if (!(v = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
            else if (strcmp(v, "keep") == 0)
                o.m.inline_conflict = PPROF_INLINE_KEEP;
            else if (strcmp(v, "longest") == 0)
                o.m.inline_conflict = PPROF_INLINE_LONGEST;
            else if (strcmp(v, "error") == 0)
                o.m.inline_conflict = PPROF_INLINE_ERROR;
            else
                rc = tool_usage_error(prog, "unknown inline policy '%s' (keep, longest, error)", v);
        } else if (tool_opt_is(opt, NULL, "--check")) {
            o.check = true;
        } else if (tool_opt_is(opt, "-j", "--jobs")) {
            unsigned long long x;
            if (!(v = tool_args_value(&a, prog)))
                rc = TOOL_EXIT_USAGE;
            else if (!tool_parse_u64(v, &x) || x < 1 || x > 256)
                rc = tool_usage_error(prog, "-j takes a number from 1 to 256");
            else
                o.jobs = (unsigned)x;
        } else if (tool_opt_is(opt, "-q", "--quiet")) {
            o.quiet = true;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            force = true;
        } else if (tool_opt_is(opt, "-v", "--verbose")) {
            o.verbose = true;
        } else {
            rc = tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    for (size_t i = 0; i < n_lists && rc == TOOL_EXIT_OK; i++)
        rc = read_list(&in, lists[i], nul);
    free(lists);
    if (!compress_given)
        o.w.format = tool_format_from_name(o.out);
    if (rc == TOOL_EXIT_OK)
        rc = tool_check_level(prog, &o.w);
    if (rc == TOOL_EXIT_OK && in.n == 0)
        rc = tool_usage_error(prog, "no input files");
    if (rc == TOOL_EXIT_OK && stdin_uses > 1)
        rc = tool_usage_error(prog, "standard input can be used only once");
    if (rc == TOOL_EXIT_OK)
        rc = tool_refuse_binary_tty(prog, o.out, force);
    if (rc == TOOL_EXIT_OK) {
        tool_output_init(&o.w);
        tool_note_format(prog, o.w.format, o.quiet);
        rc = merge_all(&o, &in);
    }
    paths_free(&in);
    return rc;
}

int
main(int argc, char **argv)
{
    return tool_finish(prog, run(argc, argv));
}
