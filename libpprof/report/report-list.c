/* -list RX: report.printSource. The nodes are Go's at lines granularity with object names; the
 * sources are found as report.openSourceFile finds them and read as bufio.Scanner reads lines,
 * streamed (only the lines shown are looked at, none is held). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report-graph-private.h"
#include "text-private.h"

/* Go's lines before the first sample and after the last. */
enum { MARGIN = 5 };
/* bufio.MaxScanTokenSize: a line this long (without its newline) or longer ends the file for
 * Go's scanner, quietly (printSource records the scanner's error as nil). */
enum { MAX_LINE = 64 * 1024 };

typedef struct lnode {
    pprof_string name, file;
    int64_t lineno, start_line, flat, cum;
} lnode;

/* Function name (Go's NameOrder), then file (FileOrder), then line. */
static int
lnode_cmp(const void *x, const void *y)
{
    const lnode *a = x, *b = y;
    int c = pprof__str_cmp(a->name, b->name);
    if (!c)
        c = pprof__str_cmp(a->file, b->file);
    if (!c)
        c = a->lineno < b->lineno ? -1 : a->lineno > b->lineno;
    return c;
}

/* syscall.Errno.Error() for the errors open(2) gives. */
static void
errno_text(int e, char *dst, size_t cap)
{
    static const struct {
        int e;
        const char *s;
    } t[] = {
        {ENOENT, "no such file or directory"},
        {EACCES, "permission denied"},
        {ENOTDIR, "not a directory"},
        {ELOOP, "too many levels of symbolic links"},
        {ENAMETOOLONG, "file name too long"},
        {EINVAL, "invalid argument"},
        {EMFILE, "too many open files"},
        {ENFILE, "too many open files in system"},
        {EIO, "input/output error"},
        {ENXIO, "no such device or address"},
        {EPERM, "operation not permitted"},
        {ENOMEM, "cannot allocate memory"},
        {EOVERFLOW, "value too large for defined data type"},
        {ENODEV, "no such device"},
        {EROFS, "read-only file system"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (t[i].e == e) {
            snprintf(dst, cap, "%s", t[i].s);
            return;
        }
    snprintf(dst, cap, "errno %d", e);
}

/* os.Open: -1 with errno set; a path holding a NUL byte is EINVAL, as Go refuses it. Opened
 * non-blocking so that a FIFO named as a source cannot hang the report. */
static int
open_path(const char *s, size_t n)
{
    if (memchr(s, '\0', n)) {
        errno = EINVAL;
        return -1;
    }
    int fd;
    do
        fd = open(s, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    return fd;
}

/* filepath.Clean of s[0..n) into out, NUL-terminated (out emptied first). */
static pprof_status
go_clean(const pprof_allocator *a, const char *s, size_t n, pprof_buffer *out)
{
    out->len = 0;
    if (n == 0)
        return pprof__buffer_append(out, ".", 2);
    pprof__arena arena;
    pprof__arena_init(&arena, a);
    bool nomem = false;
    pprof_string c = pprof__clean_path(&arena, (pprof_string){s, n}, &nomem);
    pprof_status st = nomem ? PPROF_E_NOMEM : pprof__buffer_append(out, c.data, c.len);
    if (!st)
        st = pprof__buffer_append(out, "", 1);
    pprof__arena_destroy(&arena);
    return st;
}

/* report.openSourceFile: file (a node's cleaned, trimmed name) trimmed once more with the
 * reader's search path, then opened as it is when absolute, else searched for in each
 * directory of search and in each of their parents. *fd is -1 when nothing opened, with Go's
 * error in msg. */
static pprof_status
open_source(const pprof__rctx *c, pprof_string file, const char *search, int *fd, pprof_buffer *msg)
{
    const pprof_allocator *a = &c->a;
    pprof_string path = pprof__trim_source_path(file, c->o->trim_path, search);
    pprof_buffer dir = {0}, parent = {0}, join = {0}, name = {0};
    pprof_status st = PPROF_OK;
    *fd = -1;
    if (path.len && path.data[0] == '/') {
        if ((st = pprof__buffer_append(&name, path.data, path.len)) ||
            (st = pprof__buffer_append(&name, "", 1)))
            goto out;
        *fd = open_path((const char *)name.data, path.len);
        if (*fd < 0) {
            char e[64];
            errno_text(errno, e, sizeof(e));
            /* the path appended, not printed: it may hold a NUL byte */
            if (!(st = pprof__buffer_append(msg, "open ", 5)) &&
                !(st = pprof__buffer_append(msg, path.data, path.len)))
                st = pprof__buffer_printf(msg, ": %s", e);
        }
        goto out;
    }
    for (const char *d = search; *d && *fd < 0;) {
        size_t n = strcspn(d, ":");
        dir.len = 0;
        if ((st = pprof__buffer_append(&dir, d, n)) || (st = pprof__buffer_append(&dir, "", 1)))
            goto out;
        for (;;) {
            /* filepath.Join(dir, path) */
            size_t dl = dir.len - 1;
            join.len = 0;
            if ((st = pprof__buffer_append(&join, dir.data, dl)) ||
                (dl && (st = pprof__buffer_append(&join, "/", 1))) ||
                (st = pprof__buffer_append(&join, path.data, path.len)) ||
                (st = go_clean(a, (const char *)join.data, join.len, &name)))
                goto out;
            if ((*fd = open_path((const char *)name.data, name.len - 1)) >= 0)
                break;
            /* filepath.Dir(dir): everything up to the last '/', cleaned */
            size_t cut = dl;
            while (cut > 0 && dir.data[cut - 1] != '/')
                cut--;
            if ((st = go_clean(a, (const char *)dir.data, cut, &parent)))
                goto out;
            if (parent.len == dir.len && memcmp(parent.data, dir.data, dir.len) == 0)
                break;
            pprof_buffer t = dir;
            dir = parent;
            parent = t;
        }
        d += n + (d[n] == ':');
    }
    if (*fd < 0 && !(st = pprof__buffer_append(msg, "could not find file ", 20)) &&
        !(st = pprof__buffer_append(msg, path.data, path.len)))
        st = pprof__buffer_printf(msg, " on path %s", search);
out:
    pprof_buffer_free(&dir);
    pprof_buffer_free(&parent);
    pprof_buffer_free(&join);
    pprof_buffer_free(&name);
    return st;
}

/* bufio.Scanner with ScanLines over a file descriptor. */
typedef struct scanner {
    int fd;
    char *buf;
    size_t start, end;
    bool eof, done;
} scanner;

/* The next line without its "\n" or "\r\n"; false at the end (or at a read error or an
 * over-long line, which end Go's scan as quietly). */
static bool
scan_line(scanner *s, const char **line, size_t *len)
{
    while (!s->done) {
        char *p = s->start < s->end ? memchr(s->buf + s->start, '\n', s->end - s->start) : NULL;
        if (p || (s->eof && s->end > s->start)) {
            size_t stop = p ? (size_t)(p - s->buf) : s->end;
            *line = s->buf + s->start;
            *len = stop - s->start;
            if (*len && (*line)[*len - 1] == '\r')
                (*len)--;
            s->start = p ? stop + 1 : stop;
            return true;
        }
        if (s->eof)
            break;
        if (s->start) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
            s->end -= s->start;
            s->start = 0;
        }
        if (s->end == MAX_LINE)
            break;
        ssize_t n = read(s->fd, s->buf + s->end, MAX_LINE - s->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0)
            s->eof = true;
        s->end += (size_t)n;
    }
    s->done = true;
    return false;
}

static void
value_or_dot(const pprof__rctx *c, char *dst, size_t cap, int64_t v)
{
    if (v == 0)
        snprintf(dst, cap, ".");
    else
        pprof__rctx_value(c, dst, cap, v);
}

/* A ROUTINE: the nodes ns[k..m) of one function in one file, sorted by line, and
 * getSourceFromFile's window of lines. Go widens the window node by node in map order, which
 * can miss the end of a node that also moves the start (only when the nodes' start lines
 * differ, and then Go's own output varies from run to run); the window here holds every
 * node's. */
typedef struct routine {
    size_t k, m, order;
    int64_t start, end, flat, cum;
    /* Go reads the file only when the window holds a line (start <= end), and says a file it
     * could not read (an error it keeps) also in later routines of that file */
    bool reads, say;
} routine;

static void
routine_window(const lnode *ns, routine *r)
{
    int64_t start = INT64_MAX, end = INT64_MIN;
    r->flat = r->cum = 0;
    for (size_t i = r->k; i < r->m; i++) {
        r->flat = pprof__add64(r->flat, ns[i].flat);
        r->cum = pprof__add64(r->cum, ns[i].cum);
        int64_t s = ns[i].start_line ? ns[i].start_line : pprof__add64(ns[i].lineno, -MARGIN);
        int64_t e = pprof__add64(ns[i].lineno, MARGIN);
        if (s < start)
            start = s;
        if (e > end)
            end = e;
    }
    r->start = start < 1 ? 1 : start;
    r->end = end;
    r->reads = r->start <= r->end;
}

typedef struct routine_key {
    pprof_string file;
    size_t order;
} routine_key;

static int
routine_key_cmp(const void *x, const void *y)
{
    const routine_key *a = x, *b = y;
    int c = pprof__str_cmp(a->file, b->file);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Sets say: the routine reads its file, or an earlier routine of the same file did. */
static pprof_status
routines_say(pprof__rctx *c, const lnode *ls, routine *rs, size_t n)
{
    routine_key *ks = pprof__malloc(&c->a, (n ? n : 1) * sizeof(*ks));
    if (!ks)
        return PPROF_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        ks[i] = (routine_key){ls[rs[i].k].file, i};
    qsort(ks, n, sizeof(*ks), routine_key_cmp);
    bool read = false;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !pprof__str_eq(ks[i].file, ks[i - 1].file))
            read = false;
        routine *r = &rs[ks[i].order];
        read = read || r->reads;
        r->say = read;
    }
    pprof__free(&c->a, ks);
    return PPROF_OK;
}

static pprof_status
print_routine(pprof__rctx *c, const lnode *ls, const routine *r, const char *search, char *buf,
              pprof_buffer *out)
{
    const lnode *ns = ls + r->k;
    size_t n = r->m - r->k;
    int64_t start = r->start, end = r->end;
    pprof_buffer msg = {0};
    int fd = -1;
    pprof_status st = r->say ? open_source(c, ns[0].file, search, &fd, &msg) : PPROF_OK;
    char v1[64], v2[64], pc[40];
    pprof__rctx_value(c, v1, sizeof(v1), r->flat);
    pprof__rctx_value(c, v2, sizeof(v2), r->cum);
    pprof__percentage(pc, sizeof(pc), r->cum, c->total);
    /* names may hold NUL bytes: appended, not printed */
    if (!st)
        st = pprof__buffer_printf(out, "ROUTINE ======================== ");
    if (!st)
        st = pprof__text_escape(out, ns[0].name.data, ns[0].name.len);
    if (!st)
        st = pprof__buffer_append(out, " in ", 4);
    if (!st)
        st = pprof__text_escape(out, ns[0].file.data, ns[0].file.len);
    if (!st)
        st = pprof__buffer_append(out, "\n", 1);
    if (!st)
        st = pprof__buffer_printf(out, "%10s %10s (flat, cum) %s of Total\n", v1, v2, pc);
    if (!st && fd < 0 && r->say) { /* the message names the file: a profile string */
        st = pprof__buffer_printf(out, " Error: ");
        if (!st)
            st = pprof__text_escape(out, (const char *)msg.data, msg.len);
        if (!st)
            st = pprof__buffer_append(out, "\n", 1);
    }
    pprof_buffer_free(&msg);
    if (st || fd < 0 || !r->reads) {
        if (fd >= 0)
            close(fd);
        return st;
    }
    /* Only regular files are read: a device could give lines forever (Go would read on). A
     * directory opens, as in Go, and reads as no lines. */
    struct stat sb;
    scanner s = {fd, buf, 0, 0, false, fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)};
    const char *line;
    size_t len, k = 0;
    for (int64_t ln = 1; ln <= end && !st && scan_line(&s, &line, &len); ln++) {
        if (ln < start)
            continue;
        int64_t lf = 0, lc = 0;
        while (k < n && ns[k].lineno < ln)
            k++;
        for (; k < n && ns[k].lineno == ln; k++) {
            lf = pprof__add64(lf, ns[k].flat);
            lc = pprof__add64(lc, ns[k].cum);
        }
        value_or_dot(c, v1, sizeof(v1), lf);
        value_or_dot(c, v2, sizeof(v2), lc);
        st = pprof__buffer_printf(out, "%10s %10s %6" PRId64 ":", v1, v2, ln);
        if (!st)
            st = pprof__buffer_append(out, line, len);
        if (!st)
            st = pprof__buffer_append(out, "\n", 1);
        if (!st)
            st = pprof__rctx_spill(c, out);
    }
    close(fd);
    return st;
}

/* os.Getwd: $PWD when it names the current directory, else getcwd. */
static pprof_status
working_dir(pprof__rctx *c, pprof_buffer *out)
{
    const char *pwd = getenv("PWD");
    struct stat dot, d;
    if (pwd && pwd[0] == '/' && stat(".", &dot) == 0 && stat(pwd, &d) == 0 &&
        dot.st_dev == d.st_dev && dot.st_ino == d.st_ino)
        return pprof__buffer_append(out, pwd, strlen(pwd) + 1);
    for (size_t cap = 4096;; cap *= 2) {
        out->len = 0;
        if (!pprof__buffer_reserve(out, cap))
            return PPROF_E_NOMEM;
        if (getcwd((char *)out->data, cap)) {
            out->len = strlen((char *)out->data) + 1;
            return PPROF_OK;
        }
        if (errno != ERANGE || cap > ((size_t)1 << 20)) {
            char e[64];
            errno_text(errno, e, sizeof(e));
            return pprof__error(c->err, PPROF_E_IO, PPROF_NO_OFFSET, "",
                                "could not stat current dir: %s", e);
        }
    }
}

pprof_status
pprof__render_list(pprof__rctx *c, pprof_buffer *out)
{
    const pprof_report_render_options *o = c->o;
    pprof__regex *rx = NULL;
    pprof__nodes nodes;
    memset(&nodes, 0, sizeof(nodes));
    lnode *ls = NULL;
    routine *rs = NULL;
    char *buf = NULL;
    pprof_buffer cwd = {0};
    pprof_status st = pprof__regex_new(o->symbol, strlen(o->symbol), "list", &c->a, &rx, c->err);
    if (st)
        return st;
    /* -mean: Go's printSource prints the nodes' undivided sums (only the total is divided) */
    pprof__nodes_cfg cfg = {PPROF_GRANULARITY_LINES, true, o->trim_path, o->source_path, false};
    if ((st = pprof__nodes_build_cfg(c->p, c->index, &cfg, &c->a, &nodes, c->err)))
        goto out;
    size_t n = 0;
    ls = pprof__malloc(&c->a, (nodes.n ? nodes.n : 1) * sizeof(*ls));
    if (!ls) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    /* a name's match is asked once: nodes come in key order, a function's lines together */
    pprof_string last = {NULL, 0};
    int last_m = 0;
    for (size_t i = 0; i < nodes.n; i++) {
        const pprof__node_info *in = &nodes.info[i];
        if (nodes.flat[i] == 0 && nodes.cum[i] == 0)
            continue;
        int m = last.data && pprof__str_eq(last, in->name)
                    ? last_m
                    : pprof__regex_match(rx, in->name.data, in->name.len);
        if (m < 0) { /* no memory for the search */
            st = PPROF_E_NOMEM;
            goto out;
        }
        last = in->name.data ? in->name : (pprof_string){"", 0};
        last_m = m;
        if (m)
            ls[n++] = (lnode){in->name,       in->file,      in->lineno,
                              in->start_line, nodes.flat[i], nodes.cum[i]};
    }
    if (n == 0) {
        st = pprof__error(c->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                          "no matches found for regexp: %s", o->symbol);
        goto out;
    }
    qsort(ls, n, sizeof(*ls), lnode_cmp);
    const char *search = o->source_path;
    if (!search || !*search) {
        if ((st = working_dir(c, &cwd)))
            goto out;
        search = (const char *)cwd.data;
    }
    buf = pprof__malloc(&c->a, MAX_LINE);
    if (!buf) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    /* the routines in output order; 'No source information' is a routine without nodes */
    rs = pprof__malloc(&c->a, n * sizeof(*rs));
    if (!rs) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    size_t nr = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && pprof__str_eq(ls[j].name, ls[i].name))
            j++;
        size_t k = i;
        while (k < j && ls[k].file.len == 0)
            k++;
        if (k == j) {
            rs[nr] = (routine){i, i, nr, 0, 0, 0, 0, false, false};
            nr++;
        }
        while (k < j) {
            size_t m = k;
            while (m < j && pprof__str_eq(ls[m].file, ls[k].file))
                m++;
            rs[nr] = (routine){k, m, nr, 0, 0, 0, 0, false, false};
            routine_window(ls, &rs[nr++]);
            k = m;
        }
        i = j;
    }
    if ((st = routines_say(c, ls, rs, nr)))
        goto out;
    char total[64];
    pprof__rctx_value(c, total, sizeof(total), c->total);
    st = pprof__buffer_printf(out, "Total: %s\n", total);
    for (size_t i = 0; i < nr && !st; i++) {
        if (rs[i].k < rs[i].m) {
            st = print_routine(c, ls, &rs[i], search, buf, out);
            continue;
        }
        st = pprof__buffer_printf(out, "No source information for ");
        if (!st)
            st = pprof__text_escape(out, ls[rs[i].k].name.data, ls[rs[i].k].name.len);
        if (!st)
            st = pprof__buffer_append(out, "\n", 1);
    }
out:
    if (st == PPROF_E_NOMEM)
        st = pprof__error(c->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof__free(&c->a, buf);
    pprof__free(&c->a, ls);
    pprof__free(&c->a, rs);
    pprof_buffer_free(&cwd);
    pprof__nodes_free(&nodes);
    pprof__regex_free(rx);
    return st;
}
