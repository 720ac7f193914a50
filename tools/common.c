#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

void
tool_args_init(tool_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof(*a));
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
}

/* -word or -word=value, word of lower-case letters and '_' as Go's flags are: the length of
 * word, or 0 when s is not such an option. */
static size_t
go_word(const char *s)
{
    if (s[0] != '-' || s[1] == '-')
        return 0;
    size_t n = 1;
    while ((s[n] >= 'a' && s[n] <= 'z') || (n > 1 && s[n] == '_'))
        n++;
    n--;
    return n >= 2 && (s[n + 1] == 0 || s[n + 1] == '=') ? n : 0;
}

bool
tool_args_next(tool_args *a, const char **opt, const char **operand)
{
    *opt = *operand = NULL;
    a->inline_value = NULL;
    if (a->i >= a->argc)
        return false;
    char *s = a->argv[a->i++];
    if (!a->no_more_options && strcmp(s, "--") == 0) {
        a->no_more_options = true;
        return tool_args_next(a, opt, operand);
    }
    if (a->no_more_options || s[0] != '-' || s[1] == 0) {
        *operand = s;
        return true;
    }
    size_t gw = go_word(s);
    if (gw && gw + 3 <= sizeof(a->go_opt)) {
        a->go_opt[0] = a->go_opt[1] = '-';
        for (size_t k = 0; k < gw; k++)
            a->go_opt[2 + k] = s[1 + k] == '_' ? '-' : s[1 + k];
        a->go_opt[2 + gw] = 0;
        if (s[1 + gw] == '=')
            a->inline_value = s + 2 + gw;
        a->cur = s;
        *opt = a->go_opt;
        return true;
    }
    char *eq = s[1] == '-' ? strchr(s, '=') : NULL;
    if (eq) {
        /* --name=value: split without touching argv, so a second run sees the same input */
        a->inline_value = eq + 1;
        a->cur = s;
        *opt = s;
        return true;
    }
    a->cur = s;
    *opt = s;
    return true;
}

bool
tool_opt_is(const char *opt, const char *short_name, const char *long_name)
{
    if (short_name && strcmp(opt, short_name) == 0)
        return true;
    if (!long_name)
        return false;
    size_t n = strlen(long_name);
    return strncmp(opt, long_name, n) == 0 && (opt[n] == 0 || opt[n] == '=');
}

const char *
tool_args_value(tool_args *a, const char *prog)
{
    if (a->inline_value)
        return a->inline_value;
    if (a->i >= a->argc) {
        tool_usage_error(prog, "option %s needs a value", a->cur);
        return NULL;
    }
    return a->argv[a->i++];
}

int
tool_exit_for(pprof_status st)
{
    switch (st) {
    case PPROF_OK: return TOOL_EXIT_OK;
    case PPROF_E_ARG: return TOOL_EXIT_USAGE;
    case PPROF_E_IO:
    case PPROF_E_NOMEM: return TOOL_EXIT_IO;
    default: return TOOL_EXIT_INVALID;
    }
}

void
tool_print_error(FILE *stream, const char *prog, const char *file, const pprof_error *err)
{
    fprintf(stream, "%s: %s: error: ", prog, file && strcmp(file, "-") ? file : "<stdin>");
    if (err->path[0])
        fprintf(stream, "%s: ", err->path);
    fprintf(stream, "%s", err->message);
    if (err->offset != PPROF_NO_OFFSET)
        fprintf(stream, " (byte %llu)", (unsigned long long)err->offset);
    fprintf(stream, " [%s]\n", pprof_status_name(err->code));
}

int
tool_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
    return TOOL_EXIT_USAGE;
}

bool
tool_parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool
tool_parse_format(const char *s, pprof_format *out)
{
    if (strcmp(s, "gzip") == 0 || strcmp(s, "gz") == 0)
        *out = PPROF_FORMAT_GZIP;
    else if (strcmp(s, "zstd") == 0 || strcmp(s, "zst") == 0)
        *out = PPROF_FORMAT_ZSTD;
    else if (strcmp(s, "none") == 0 || strcmp(s, "raw") == 0)
        *out = PPROF_FORMAT_RAW;
    else
        return false;
    return true;
}

static bool
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

pprof_format
tool_format_from_name(const char *out)
{
    if (ends_with(out, ".zst"))
        return PPROF_FORMAT_ZSTD;
    if (ends_with(out, ".pb"))
        return PPROF_FORMAT_RAW;
    return PPROF_FORMAT_GZIP;
}

void
tool_note_format(const char *prog, pprof_format fmt, bool quiet)
{
    if (fmt == PPROF_FORMAT_ZSTD && !quiet)
        fprintf(stderr,
                "%s: note: writing zstd, which `go tool pprof` cannot read (Go's reader takes "
                "gzip and uncompressed profiles only); --compress=gzip for Go\n",
                prog);
}

void
tool_print_version(FILE *out, const char *prog)
{
    fprintf(out, "%s (libpprof) %s\n", prog, pprof_version_string());
}

/* The temporary output file the signal handler removes. The one static of the tools: a handler
 * has nowhere else to look, and a tool writes one output at a time. The path is copied while
 * the handler is disarmed, so the handler never sees half a path. */
static char temp_path[4096];
static volatile sig_atomic_t temp_armed;

static void
note_temporary(void *ctx, const char *path)
{
    (void)ctx;
    temp_armed = 0;
    size_t n = path ? strlen(path) : 0;
    if (path && n < sizeof(temp_path)) {
        memcpy(temp_path, path, n + 1);
        /* the copy is complete before the handler can see it armed */
        atomic_signal_fence(memory_order_seq_cst);
        temp_armed = 1;
    }
}

static void
on_fatal_signal(int sig)
{
    /* unlink and raise only: both async-signal-safe */
    if (temp_armed)
        unlink(temp_path);
    /* SA_RESETHAND restored the default action: dying of the same signal tells the parent */
    raise(sig);
}

void
tool_output_init(pprof_write_options *w)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
    if (w) {
        w->on_temporary = note_temporary;
        w->temporary_ctx = NULL;
    }
}

int
tool_finish(const char *prog, int rc)
{
    /* ferror catches a failed write of any earlier printf whose error was not looked at */
    int e = 0;
    bool failed = fflush(stdout) != 0 ? (e = errno, true) : ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !failed && errno != EBADF) {
        /* EBADF: the caller closed standard output and nothing was written to it */
        e = errno;
        failed = true;
    }
    if (!failed)
        return rc;
    fprintf(stderr, "%s: <stdout>: error: cannot write: %s [PPROF_E_IO]\n", prog,
            e ? strerror(e) : "write error");
    return TOOL_EXIT_IO;
}

int
tool_refuse_invalid(const char *prog, const char *file, pprof_profile *p, const char *what)
{
    long long errors = tool_check_go_rules(prog, file, p, "error");
    if (errors > 0)
        fprintf(stderr, "%s: %s: %s: %lld error(s) that Go's pprof refuses\n", prog,
                strcmp(file, "-") ? file : "<stdin>", what, errors);
    return errors > 0 ? TOOL_EXIT_INVALID : errors < 0 ? TOOL_EXIT_IO : 0;
}

bool
tool_is_stdout(const char *path)
{
    return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0 ||
           strcmp(path, "/dev/fd/1") == 0 || strcmp(path, "/proc/self/fd/1") == 0;
}

bool
tool_same_file(const char *in, const char *out)
{
    struct stat si, so;
    bool ok_in = strcmp(in, "-") ? stat(in, &si) == 0 : fstat(STDIN_FILENO, &si) == 0;
    bool ok_out = tool_is_stdout(out) ? fstat(STDOUT_FILENO, &so) == 0 : stat(out, &so) == 0;
    /* regular files only: a terminal or /dev/null on both sides is no loss */
    return ok_in && ok_out && S_ISREG(si.st_mode) && si.st_dev == so.st_dev &&
           si.st_ino == so.st_ino;
}

int
tool_refuse_text_over_input(const char *prog, const char *in, const char *out, bool force,
                            const char *what)
{
    if (force || !tool_same_file(in, out))
        return 0;
    return tool_usage_error(prog,
                            "%s is the input: the %s would replace the profile (--force to do "
                            "it anyway)",
                            out, what);
}

bool
tool_output_is_tty(const char *out)
{
    if (tool_is_stdout(out))
        return isatty(STDOUT_FILENO);
    struct stat sb;
    if (stat(out, &sb) != 0 || !S_ISCHR(sb.st_mode))
        return false;
    /* opening a terminal has no effect of its own with O_NOCTTY */
    int fd = open(out, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    bool tty = fd >= 0 && isatty(fd);
    if (fd >= 0)
        close(fd);
    return tty;
}

int
tool_refuse_binary_tty(const char *prog, const char *out, bool force)
{
    if (force || !tool_output_is_tty(out))
        return TOOL_EXIT_OK;
    return tool_usage_error(prog,
                            "refusing to write a binary profile to a terminal; use -o FILE, a "
                            "pipe or --force");
}

bool
tool_print_go_finding(void *ctx, const pprof_finding *f)
{
    go_check *g = ctx;
    if (g->shown++ >= TOOL_GO_CHECK_SHOWN)
        return true; /* counted by the summary */
    fprintf(stderr, "%s: %s: %s: ", g->prog, strcmp(g->file, "-") ? g->file : "<stdin>", g->lead);
    if (f->path[0])
        fprintf(stderr, "%s: ", f->path);
    fprintf(stderr, "%s", f->message);
    if (f->offset != PPROF_NO_OFFSET)
        fprintf(stderr, " (byte %llu)", (unsigned long long)f->offset);
    fprintf(stderr, " [%s]\n", f->rule_id);
    return true;
}

long long
tool_check_go_rules(const char *prog, const char *file, pprof_profile *p, const char *lead)
{
    /* the library's one validity decision: the rules Go enforces on reading, no others */
    go_check g = {prog, file, lead, 0};
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_error err;
    pprof_status st = pprof_validate(p, tool_print_go_finding, &g, TOOL_GO_CHECK_SHOWN, &sum, &err);
    if (st && st != PPROF_E_INVALID) {
        tool_print_error(stderr, prog, file, &err);
        return -1;
    }
    unsigned long long n = sum.count[PPROF_SEVERITY_ERROR];
    if (n > TOOL_GO_CHECK_SHOWN)
        fprintf(stderr, "%s: %s: ... %llu more\n", prog, strcmp(file, "-") ? file : "<stdin>",
                n - TOOL_GO_CHECK_SHOWN);
    return (long long)n;
}

unsigned
tool_cores(unsigned most)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 1 ? (c > (long)most ? most : (unsigned)c) : 1;
}

/* A large regular file goes into a buffer of its size, in huge pages (a 2 MiB-aligned block
 * advised so): read in one go, with one page fault per 2 MiB instead of one per 4 KiB page,
 * which the read and every later pass over the bytes would otherwise pay. */
#define READ_HUGE ((size_t)2 << 20)

static void
reserve_file(FILE *fp, pprof_buffer *b)
{
    struct stat sb;
    if (b->data || fstat(fileno(fp), &sb) || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size < READ_HUGE || (uint64_t)sb.st_size >= TOOL_READ_MAX)
        return;
    size_t cap = ((size_t)sb.st_size + 1 + READ_HUGE - 1) & ~(READ_HUGE - 1);
    void *d = NULL;
    if (posix_memalign(&d, READ_HUGE, cap))
        return;
#ifdef MADV_HUGEPAGE
    madvise(d, cap, MADV_HUGEPAGE); /* advice only: failure costs speed */
#endif
    b->data = d;
    b->cap = cap;
}

pprof_status
tool_read_all(const char *path, pprof_buffer *b, pprof_error *err)
{
    FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!fp) {
        err->code = PPROF_E_IO;
        err->offset = PPROF_NO_OFFSET;
        err->path[0] = 0;
        snprintf(err->message, sizeof(err->message), "cannot open: %s", strerror(errno));
        return PPROF_E_IO;
    }
    reserve_file(fp, b);
    char chunk[65536];
    size_t n;
    pprof_status st = PPROF_OK;
    /* into the room there is (stdio reads a large request straight into place), then by chunks */
    while (b->cap - b->len > sizeof(chunk) &&
           (n = fread(b->data + b->len, 1, b->cap - b->len - 1, fp)) > 0)
        if ((b->len += n) > TOOL_READ_MAX)
            st = PPROF_E_LIMIT;
    while (!st && (n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
        if (b->len + n > TOOL_READ_MAX) {
            st = PPROF_E_LIMIT;
            break;
        }
        uint8_t *d = b->len + n > b->cap ? realloc(b->data, 2 * (b->len + n)) : b->data;
        if (!d) {
            st = PPROF_E_NOMEM;
            break;
        }
        if (d != b->data || b->len + n > b->cap)
            b->cap = b->len + n > b->cap ? 2 * (b->len + n) : b->cap;
        b->data = d;
        memcpy(b->data + b->len, chunk, n);
        b->len += n;
    }
    if (!st && ferror(fp))
        st = PPROF_E_IO;
    if (fp != stdin)
        fclose(fp);
    if (st) {
        err->code = st;
        err->offset = PPROF_NO_OFFSET;
        err->path[0] = 0;
        snprintf(err->message, sizeof(err->message), "%s",
                 st == PPROF_E_IO      ? "read error"
                 : st == PPROF_E_LIMIT ? "more than 4 GiB"
                                       : "out of memory");
    }
    return st;
}

int
tool_check_level(const char *prog, const pprof_write_options *w)
{
    pprof_error err;
    if (pprof_write_options_check(w, &err) == PPROF_OK)
        return TOOL_EXIT_OK;
    return tool_usage_error(prog, "--level: %s", err.message);
}
