/* Folded (collapsed) stacks out of and into profiles. The writer renders each sample's stack as
 * its line of text, sorts the lines and sums equal ones; the reader builds the profile through
 * the builder, which interns frames and sums equal stacks. */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pprof/builder.h"
#include "pprof/folded.h"
#include "utf8-private.h"
#include "validate-private.h"

/* ---- escaping
 *
 * A byte that cannot stand in a folded line as itself is written \xHH (two lowercase hex
 * digits): ';' (it separates frames), NUL and the C0 controls but tab (a newline ends the line;
 * the reader refuses the others as binary data) and every byte that is not part of valid UTF-8
 * (the reader takes UTF-8 only). A backslash is written \x5c only where the text after it would
 * read as one of these escapes, and a byte-order mark only at the start of the text (where the
 * reader skips one). Everything else, a tab and DEL included, is written as it is, so that an
 * ordinary name is byte for byte what flamegraph.pl and the stackcollapse scripts write; a
 * folded file read the same before escapes as after unless it holds, as text, a backslash, 'x'
 * and two lowercase hex digits naming one of the escaped bytes. */

/* The byte that \xHH at s names when it is one of the escapes, else -1. */
static int
escape_at(const char *s, size_t n)
{
    if (n < 4 || s[0] != '\\' || s[1] != 'x')
        return -1;
    int v = 0;
    for (int i = 2; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    bool escaped = (v < 0x20 && v != '\t') || v == ';' || v == '\\' || v >= 0x80;
    return escaped ? v : -1;
}

static pprof_status
put_byte_escape(pprof_buffer *b, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    return pprof__buffer_append(b, e, 4);
}

/* The one escape of folded names (the comment above). */
static pprof_status
put_escaped(pprof_buffer *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st;) {
        unsigned char c = u[i];
        bool esc;
        size_t k = 1;
        if (c >= 0x80)
            esc = (k = pprof__utf8_seq_len(u + i, n - i)) == 0;
        else
            esc =
                (c < 0x20 && c != '\t') || c == ';' || (c == '\\' && escape_at(s + i, n - i) >= 0);
        if (!esc) {
            i += k;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        if (!st)
            st = put_byte_escape(b, c);
        run = ++i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    return st;
}

/* Undoes put_escaped in place; returns the new length. */
static size_t
unescape(char *s, size_t n)
{
    size_t w = 0;
    for (size_t r = 0; r < n;) {
        int c = escape_at(s + r, n - r);
        if (c >= 0) {
            s[w++] = (char)c;
            r += 4;
        } else {
            s[w++] = s[r++];
        }
    }
    return w;
}

/* ---- writing */

typedef struct stack_line {
    size_t off, len;
    int64_t value;
} stack_line;

typedef struct wctx {
    const pprof_profile *p;
    const pprof_folded_write_options *o;
    pprof_buffer text; /* every sample's stack, back to back */
    pprof__vec lines;  /* stack_line */
} wctx;

static pprof_string
string_at(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

static pprof_status
put_frame(wctx *w, const pprof__location *l, const pprof_line *ln, bool *first)
{
    const pprof_profile *p = w->p;
    pprof_buffer *b = &w->text;
    pprof_status st = *first ? PPROF_OK : pprof__buffer_append(b, ";", 1);
    *first = false;
    if (st)
        return st;
    size_t fi;
    pprof_string name = {"", 0};
    if (ln && ln->function_id && pprof_profile_find_function(p, ln->function_id, &fi))
        name = string_at(p, PPROF__AT(p->functions, pprof_function, fi).name);
    size_t mi;
    bool mapped = l->mapping_id && pprof_profile_find_mapping(p, l->mapping_id, &mi);
    if (mapped) {
        const pprof_mapping *m = &PPROF__AT(p->mappings, pprof_mapping, mi);
        mapped =
            l->address >= m->memory_start && (!m->memory_limit || l->address < m->memory_limit);
    }
    if (name.len) {
        st = put_escaped(b, name.data, name.len);
    } else if (!ln && l->address && !mapped) {
        /* outside every mapping: perf's and stackcollapse-perf.pl's spelling */
        st = pprof__buffer_append(b, "[unknown]", 9);
    } else if (!ln && l->address) {
        st = pprof__buffer_printf(b, "0x%" PRIx64, l->address);
    } else {
        pprof_string f = {"", 0};
        if (l->mapping_id && pprof_profile_find_mapping(p, l->mapping_id, &mi))
            f = string_at(p, PPROF__AT(p->mappings, pprof_mapping, mi).filename);
        const char *base = f.data + f.len;
        while (base > f.data && base[-1] != '/')
            base--;
        size_t bl = (size_t)(f.data + f.len - base);
        if (!bl) {
            st = pprof__buffer_append(b, "<unknown>", 9);
        } else {
            st = pprof__buffer_append(b, "[", 1);
            if (!st)
                st = put_escaped(b, base, bl);
            if (!st)
                st = pprof__buffer_append(b, "]", 1);
        }
    }
    if (!st && w->o->lines && ln && ln->line)
        st = pprof__buffer_printf(b, ":%" PRId64, ln->line);
    return st;
}

static pprof_status
put_labels(wctx *w, const pprof__sample *s, bool *first)
{
    const pprof_profile *p = w->p;
    const pprof_label *lab = s->n_lab ? (const pprof_label *)p->labels.data + s->lab_off : NULL;
    pprof_status st = PPROF_OK;
    for (size_t k = 0; k < w->o->n_labels && !st; k++) {
        const char *key = w->o->labels[k];
        size_t kl = strlen(key);
        if (!*first)
            st = pprof__buffer_append(&w->text, ";", 1);
        *first = false;
        if (!st)
            st = put_escaped(&w->text, key, kl);
        if (!st)
            st = pprof__buffer_append(&w->text, "=", 1);
        for (uint32_t i = 0; i < s->n_lab && !st; i++) {
            pprof_string ks = string_at(p, lab[i].key);
            if (ks.len != kl || memcmp(ks.data, key, kl))
                continue;
            if (lab[i].str) {
                pprof_string v = string_at(p, lab[i].str);
                st = put_escaped(&w->text, v.data, v.len);
            } else {
                st = pprof__buffer_printf(&w->text, "%" PRId64, lab[i].num);
            }
            break;
        }
    }
    return st;
}

static pprof_status
render(wctx *w, size_t index, pprof_error *err)
{
    const pprof_profile *p = w->p;
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    uint32_t *idx = pprof__malloc(&w->o->allocator, (max_depth + 1) * sizeof(uint32_t));
    if (!idx)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        if (index >= s->n_val)
            continue;
        int64_t v = PPROF__AT(p->values, int64_t, s->val_off + index);
        if (v == 0)
            continue;
        if ((st = pprof__sample_locs(p, i, idx, err)))
            break;
        size_t off = w->text.len;
        bool first = true;
        st = put_labels(w, s, &first);
        for (uint32_t j = s->n_loc; j-- > 0 && !st;) {
            const pprof__location *l = &PPROF__AT(p->locations, pprof__location, idx[j]);
            if (!l->n_line)
                st = put_frame(w, l, NULL, &first);
            for (uint32_t k = l->n_line; k-- > 0 && !st;)
                st = put_frame(w, l, &PPROF__AT(p->lines, pprof_line, l->line_off + k), &first);
        }
        if (first && !st) /* a sample without frames or labels */
            st = pprof__buffer_append(&w->text, "<unknown>", 9);
        stack_line *sl = st ? NULL : pprof__vec_push(&w->o->allocator, &w->lines, sizeof(*sl));
        if (sl)
            *sl = (stack_line){off, w->text.len - off, v};
        else if (!st)
            st = PPROF_E_NOMEM;
        if (st == PPROF_E_NOMEM)
            pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory rendering stacks");
    }
    pprof__free(&w->o->allocator, idx);
    return st;
}

static int
line_cmp(const void *x, const void *y, void *ctx)
{
    const stack_line *a = x, *b = y;
    const uint8_t *t = ctx;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(t + a->off, t + b->off, n);
    return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

pprof_status
pprof_folded_write_memory(const pprof_profile *p, const pprof_folded_write_options *opts,
                          pprof_buffer *out, pprof_error *err)
{
    pprof_folded_write_options o = PPROF_FOLDED_WRITE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    size_t index;
    /* the one validity decision (validate.c) before anything is computed */
    pprof_status st = pprof__validate(p, NULL, err);
    if (!st)
        st = pprof_sample_type_find(p, o.sample_type, &index, err);
    if (st)
        return st;
    wctx w = {p, &o, {0}, {0}};
    st = render(&w, index, err);
    stack_line *l = w.lines.data;
    size_t n = w.lines.len;
    if (!st && n)
        qsort_r(l, n, sizeof(*l), line_cmp, w.text.data);
    for (size_t i = 0; i < n && !st;) {
        size_t j = i + 1;
        int64_t sum = l[i].value;
        bool ovf = false;
        for (; j < n && !line_cmp(&l[i], &l[j], w.text.data); j++)
            ovf |= __builtin_add_overflow(sum, l[j].value, &sum);
        if (ovf || sum < 0) {
            st = pprof__error(err, ovf ? PPROF_E_OVERFLOW : PPROF_E_INVALID, PPROF_NO_OFFSET,
                              "sample", "stack '%.*s' sums to %s; folded values are counts",
                              (int)(l[i].len > 120 ? 120 : l[i].len), w.text.data + l[i].off,
                              ovf ? "more than int64 holds" : "a negative value");
            break;
        }
        if (sum) {
            const uint8_t *t = w.text.data + l[i].off;
            size_t skip = 0;
            /* a leading byte-order mark would be skipped by the reader: escaped there only */
            if (out->len == 0 && l[i].len >= 3 && !memcmp(t, "\xef\xbb\xbf", 3)) {
                for (; skip < 3 && !st; skip++)
                    st = put_byte_escape(out, t[skip]);
            }
            if (!st)
                st = pprof__buffer_append(out, t + skip, l[i].len - skip);
            if (!st)
                st = pprof__buffer_printf(out, " %" PRId64 "\n", sum);
            if (st)
                pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
        }
        i = j;
    }
    pprof_buffer_free(&w.text);
    pprof__free(&o.allocator, w.lines.data);
    return st;
}

/* ---- reading */

typedef struct rctx {
    pprof_builder *b;
    const pprof_folded_read_options *o;
    pprof__vec stack; /* pprof_builder_loc, root first while parsing */
    char *frame;      /* one frame, unescaped */
    size_t frame_cap;
} rctx;

/* The path names the line; the message says only what is wrong, so that a tool printing
 * "FILE:LINE:" before it does not say the line twice. */
static pprof_status
line_error(pprof_error *err, pprof_status code, size_t line, size_t off, const char *what)
{
    char path[128];
    pprof__path(path, "line[%zu]", line);
    return pprof__error(err, code, off, path, "%s", what);
}

/* An error of the builder while it took the stacks of a line, moved to that line. */
static pprof_status
at_line(pprof_error *err, pprof_status code, size_t line, size_t off)
{
    if (err) {
        err->offset = off;
        pprof__path(err->path, "line[%zu]", line);
    }
    return code;
}

/* The value after the last space; *frames_len gets what precedes it. */
static pprof_status
parse_value(const char *s, size_t n, size_t line, size_t off, size_t *frames_len, int64_t *v,
            pprof_error *err)
{
    size_t sp = n;
    while (sp > 0 && s[sp - 1] != ' ')
        sp--;
    if (sp == 0)
        return line_error(err, PPROF_E_INVALID, line, off, "no value (expected 'FRAMES VALUE')");
    if (sp == n)
        return line_error(err, PPROF_E_INVALID, line, off + n, "no value after the last space");
    uint64_t x = 0;
    /* "-0" is zero, as stackcollapse scripts that subtract counts can print it */
    bool minus = s[sp] == '-' && sp + 1 < n;
    for (size_t i = sp + minus; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return line_error(err, PPROF_E_INVALID, line, off + i,
                              "the value is not a non-negative decimal integer");
        if (x > (UINT64_C(1) << 63) / 10 || (x = x * 10 + (uint64_t)(s[i] - '0')) > INT64_MAX)
            return line_error(err, PPROF_E_INVALID, line, off + sp, "the value overflows int64");
    }
    if (minus && x)
        return line_error(err, PPROF_E_INVALID, line, off + sp,
                          "negative value (folded values are counts)");
    *v = (int64_t)x;
    *frames_len = sp - 1; /* spaces before the separator belong to the leaf frame */
    return PPROF_OK;
}

/* True when the 8 bytes at s are all printable ASCII (0x20 to 0x7f): no high bit is set, and
 * subtracting 0x20 from each borrows from none. */
static bool
printable8(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return !((w | (w - UINT64_C(0x2020202020202020))) & UINT64_C(0x8080808080808080));
}

/* No control bytes (binary data) and valid UTF-8, in one pass that takes plain ASCII 8 bytes at
 * a time. Invalid UTF-8 is refused, not repaired: replacing bad bytes could make two distinct
 * names one frame, and profile strings must be UTF-8 (checker rule S23). Only an escape (\xHH)
 * gives such a byte, on purpose: a name written with it reads back as it was. */
static pprof_status
check_bytes(const char *s, size_t n, size_t line, size_t off, pprof_error *err)
{
    for (size_t i = 0; i < n;) {
        if (i + 8 <= n && printable8(s + i)) {
            i += 8;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\t')
                return line_error(err, PPROF_E_INVALID, line, off + i,
                                  "control or NUL byte (binary data?)");
            i++;
            continue;
        }
        size_t k = pprof__utf8_seq_len((const uint8_t *)s + i, n - i);
        if (!k) {
            char why[128];
            snprintf(why, sizeof(why),
                     "byte 0x%02x is not valid UTF-8; folded stacks are UTF-8 text (convert with "
                     "iconv first)",
                     c);
            return line_error(err, PPROF_E_INVALID, line, off + i, why);
        }
        i += k;
    }
    return PPROF_OK;
}

static pprof_status
add_line(rctx *r, const char *s, size_t n, size_t line, size_t off, pprof_error *err)
{
    pprof_status st = check_bytes(s, n, line, off, err);
    if (st)
        return st;
    size_t fl = 0;
    int64_t v = 0;
    st = parse_value(s, n, line, off, &fl, &v, err);
    if (st)
        return st;
    if (fl == 0)
        return line_error(err, PPROF_E_INVALID, line, off, "empty stack");
    r->stack.len = 0;
    for (size_t a = 0; a <= fl;) {
        size_t e = a;
        while (e < fl && s[e] != ';')
            e++;
        if (e == a)
            return line_error(err, PPROF_E_INVALID, line, off + a, "empty frame");
        if (e - a > r->frame_cap) {
            char *f = pprof__realloc(&r->o->allocator, r->frame, e - a);
            if (!f)
                return pprof__error(err, PPROF_E_NOMEM, off, "", "out of memory");
            r->frame = f;
            r->frame_cap = e - a;
        }
        memcpy(r->frame, s + a, e - a);
        size_t len = unescape(r->frame, e - a);
        pprof_builder_str name;
        pprof_builder_fn fn;
        pprof_builder_loc loc;
        pprof_builder_str none = PPROF_BUILDER_NONE;
        pprof_builder_map nomap = PPROF_BUILDER_NONE;
        if ((st = pprof_builder_intern(r->b, r->frame, len, &name, err)) ||
            (st = pprof_builder_function(r->b, name, none, none, 0, &fn, err)))
            return at_line(err, st, line, off + a);
        pprof_builder_line bl = {fn, 0, 0};
        if ((st = pprof_builder_location(r->b, nomap, 0, &bl, 1, false, &loc, err)))
            return at_line(err, st, line, off + a);
        pprof_builder_loc *slot = pprof__vec_push(&r->o->allocator, &r->stack, sizeof(loc));
        if (!slot)
            return pprof__error(err, PPROF_E_NOMEM, off, "", "out of memory");
        *slot = loc;
        a = e + 1;
    }
    pprof_builder_loc *locs = r->stack.data;
    for (size_t i = 0, j = r->stack.len - 1; i < j; i++, j--) { /* leaf first */
        pprof_builder_loc t = locs[i];
        locs[i] = locs[j];
        locs[j] = t;
    }
    if (v == 0)
        return PPROF_OK;
    st = pprof_builder_add_sample(r->b, &v, 1, locs, r->stack.len, NULL, 0, err);
    return st ? at_line(err, st, line, off) : PPROF_OK;
}

static pprof_status
new_builder(const pprof_folded_read_options *o, pprof_builder **b, char *type, size_t cap,
            pprof_error *err)
{
    const char *t = o->sample_type ? o->sample_type : "samples/count";
    const char *slash = strchr(t, '/');
    if (!slash || slash == t || !slash[1] || strlen(t) >= cap)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                            "sample type '%s' is not TYPE/UNIT", t);
    memcpy(type, t, strlen(t) + 1);
    type[slash - t] = 0;
    pprof_builder_value_type vt = {type, type + (slash - t) + 1};
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = &vt;
    bo.n_sample_types = 1;
    bo.max_samples = o->max_stacks;
    bo.max_functions = bo.max_locations = bo.max_strings = o->max_frames;
    bo.max_string_bytes = o->max_input_bytes;
    bo.allocator = o->allocator;
    return pprof_builder_new(&bo, b, err);
}

pprof_status
pprof_folded_read_memory(const void *data, size_t size, const pprof_folded_read_options *opts,
                         pprof_profile **out, pprof_error *err)
{
    pprof_folded_read_options o = PPROF_FOLDED_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    if (size > o.max_input_bytes)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "%zu bytes of folded stacks, more than the limit", size);
    char type[256];
    rctx r = {NULL, &o, {0}, NULL, 0};
    pprof_status st = new_builder(&o, &r.b, type, sizeof(type), err);
    const char *s = data;
    size_t line = 0, at = 0;
    /* a UTF-8 byte-order mark (Windows editors write one) is no part of the first frame */
    if (size >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        at = 3;
    else if (!st && size >= 2 && (!memcmp(s, "\xff\xfe", 2) || !memcmp(s, "\xfe\xff", 2)))
        st = line_error(err, PPROF_E_INVALID, 1, 0,
                        "UTF-16 text (byte-order mark); folded stacks are UTF-8 (convert with "
                        "iconv -f UTF-16 -t UTF-8)");
    while (at < size && !st) {
        const char *nl = memchr(s + at, '\n', size - at);
        size_t n = nl ? (size_t)(nl - (s + at)) : size - at;
        line++;
        size_t len = n && s[at + n - 1] == '\r' ? n - 1 : n;
        if (len)
            st = add_line(&r, s + at, len, line, at, err);
        at += n + 1;
    }
    pprof_buffer buf = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    if (!st)
        st = pprof_builder_finish(r.b, 0, NULL, &wo, &buf, NULL, err);
    pprof_builder_free(r.b);
    pprof__free(&o.allocator, r.stack.data);
    pprof__free(&o.allocator, r.frame);
    if (!st) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = o.allocator;
        st = pprof_profile_read_memory(buf.data, buf.len, &ro, out, err);
    }
    pprof_buffer_free(&buf);
    return st;
}

pprof_status
pprof_folded_write_file(const pprof_profile *p, const pprof_folded_write_options *opts,
                        const pprof_write_options *wopts, const char *path, pprof_error *err)
{
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    pprof_buffer b = {0};
    pprof_status st = pprof_folded_write_memory(p, opts, &b, err);
    return pprof__buffer_write_file(path, wopts, st, &b, err);
}

pprof_status
pprof_folded_write_stream(const pprof_profile *p, const pprof_folded_write_options *opts,
                          FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_folded_write_memory(p, opts, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}

pprof_status
pprof_folded_read_file(const char *path, const pprof_folded_read_options *opts, pprof_profile **out,
                       pprof_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    pprof_folded_read_options o = PPROF_FOLDED_READ_OPTIONS_INIT;
    if (opts)
        o = *opts;
    uint8_t *data = NULL;
    size_t len = 0;
    pprof_status st = pprof__read_all(path, o.max_input_bytes, &o.allocator, &data, &len, err);
    if (st == PPROF_OK)
        st = pprof_folded_read_memory(data, len, opts, out, err);
    pprof__free(&o.allocator, data);
    return st;
}

/* ---- deprecated names, kept for one release (folded.h) */

pprof_status
pprof_folded_write(const pprof_profile *p, const pprof_folded_write_options *opts,
                   pprof_buffer *out, pprof_error *err)
{
    return pprof_folded_write_memory(p, opts, out, err);
}

pprof_status
pprof_folded_read(const void *data, size_t size, const pprof_folded_read_options *opts,
                  pprof_profile **out, pprof_error *err)
{
    return pprof_folded_read_memory(data, size, opts, out, err);
}

void
pprof_folded_write_options_init(pprof_folded_write_options *opts)
{
    if (!opts)
        return;
    const pprof_folded_write_options def = PPROF_FOLDED_WRITE_OPTIONS_INIT;
    *opts = def;
}

void
pprof_folded_read_options_init(pprof_folded_read_options *opts)
{
    if (!opts)
        return;
    const pprof_folded_read_options def = PPROF_FOLDED_READ_OPTIONS_INIT;
    *opts = def;
}
