/* Go regular expressions on PCRE2. The gate follows Go's regexp/syntax parser (Perl flags, as
 * regexp.Compile uses): it rejects what Go rejects and rewrites, for PCRE2, the escapes that
 * mean something else there (\v is a class in PCRE2, \s includes \v, \12 may be a
 * backreference). Matching is unanchored with $ at the very end (Go's $ without (?m)). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "regex-private.h"
#include "utf8-private.h"

/* Per-call work caps: far above what any real name needs, low enough that a hostile pattern
 * costs milliseconds, not minutes. */
#define MATCH_LIMIT 1000000u
#define DEPTH_LIMIT 10000u
#define HEAP_LIMIT_KIB 20000u
#define MAX_REPEAT 1000ul

typedef struct out_buf {
    char *p;
    size_t n;
} out_buf;

static void
put(out_buf *o, const char *s, size_t n)
{
    if (o->p)
        memcpy(o->p + o->n, s, n);
    o->n += n;
}

static void
puts_(out_buf *o, const char *s)
{
    put(o, s, strlen(s));
}

static void
put_cp(out_buf *o, unsigned long cp)
{
    char b[16];
    int k = snprintf(b, sizeof(b), "\\x{%lx}", cp);
    put(o, b, (size_t)k);
}

static bool
is_octal(char c)
{
    return c >= '0' && c <= '7';
}

static int
unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool
is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One escape after the backslash at s[*i], as Go's parseEscape plus the escapes its parser
 * handles before (classes, assertions, \Q). in_class: inside [...]. Sets *atom to whether it
 * stands for a character (repeatable). */
static const char *
escape(const char *s, size_t n, size_t *i, bool in_class, out_buf *o, bool *atom)
{
    size_t k = *i + 1;
    if (k >= n)
        return "trailing backslash at end of expression";
    unsigned char c = (unsigned char)s[k++];
    *atom = true;
    switch (c) {
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
        if (k >= n || !is_octal(s[k]))
            return "backreferences are not supported (invalid escape sequence)";
        /* fallthrough */
    case '0': {
        unsigned long r = c - '0';
        for (int d = 1; d < 3 && k < n && is_octal(s[k]); d++)
            r = r * 8 + (unsigned long)(s[k++] - '0');
        put_cp(o, r);
        break;
    }
    case 'x': {
        if (k >= n)
            return "invalid escape sequence \\x";
        if (s[k] == '{') {
            unsigned long r = 0;
            size_t nh = 0;
            for (k++; k < n && s[k] != '}'; k++, nh++) {
                int v = unhex(s[k]);
                if (v < 0)
                    return "invalid escape sequence \\x{";
                r = r * 16 + (unsigned long)v;
                if (r > 0x10FFFF)
                    return "invalid escape sequence \\x{ (above U+10FFFF)";
            }
            if (k >= n || nh == 0)
                return "invalid escape sequence \\x{";
            k++;
            put_cp(o, r);
        } else {
            if (k + 1 >= n || unhex(s[k]) < 0 || unhex(s[k + 1]) < 0)
                return "invalid escape sequence \\x";
            put_cp(o, (unsigned long)(unhex(s[k]) * 16 + unhex(s[k + 1])));
            k += 2;
        }
        break;
    }
    case 'v': puts_(o, "\\x{b}"); break;
    case 's': puts_(o, in_class ? "\\t\\n\\f\\r " : "[\\t\\n\\f\\r ]"); break;
    case 'S':
        puts_(o, in_class ? "\\x{0}-\\x{8}\\x{b}\\x{e}-\\x{1f}\\x{21}-\\x{10ffff}"
                          : "[^\\t\\n\\f\\r ]");
        break;
    case 'a':
    case 'f':
    case 'n':
    case 'r':
    case 't':
    case 'd':
    case 'D':
    case 'w':
    case 'W': put(o, s + *i, 2); break;
    case 'p':
    case 'P':
        if (k >= n)
            return "invalid character class range \\p";
        if (s[k] == '{') {
            size_t e = k;
            while (e < n && s[e] != '}')
                e++;
            if (e >= n)
                return "invalid character class range \\p{";
            k = e + 1;
        } else {
            k++;
        }
        put(o, s + *i, k - *i);
        break;
    case 'b':
    case 'B':
    case 'A':
    case 'z':
        if (in_class)
            return "invalid escape sequence in a character class";
        *atom = false;
        put(o, s + *i, 2);
        break;
    case 'Q':
        if (in_class)
            return "invalid escape sequence \\Q in a character class";
        {
            size_t e = k;
            while (e + 1 < n && !(s[e] == '\\' && s[e + 1] == 'E'))
                e++;
            size_t end = e + 1 < n ? e + 2 : n;
            put(o, s + *i, end - *i);
            if (e + 1 >= n)
                puts_(o, "\\E");
            *atom = e > k;
            k = end;
        }
        break;
    default:
        if (c < 0x80 && !is_alnum(c)) {
            put(o, s + *i, 2);
            break;
        }
        return c >= 0x80 ? "invalid escape sequence (a backslash before a non-ASCII character)"
                         : "invalid escape sequence";
    }
    *i = k;
    return NULL;
}

/* [...] starting at s[*i]. */
static const char *
char_class(const char *s, size_t n, size_t *i, out_buf *o)
{
    size_t k = *i + 1;
    put(o, "[", 1);
    if (k < n && s[k] == '^')
        put(o, s + k++, 1);
    if (k < n && s[k] == ']')
        put(o, "\\]", 2), k++;
    while (k < n && s[k] != ']') {
        if (s[k] == '[' && k + 1 < n && s[k + 1] == ':') {
            size_t e = k + 2;
            while (e + 1 < n && !(s[e] == ':' && s[e + 1] == ']'))
                e++;
            if (e + 1 < n) {
                put(o, s + k, e + 2 - k);
                k = e + 2;
                continue;
            }
        }
        if (s[k] == '\\') {
            bool atom;
            const char *why = escape(s, n, &k, true, o, &atom);
            if (why)
                return why;
            continue;
        }
        if (s[k] == '[')
            put(o, "\\[", 2);
        else
            put(o, s + k, 1);
        k++;
    }
    if (k >= n)
        return "missing closing ]";
    put(o, "]", 1);
    *i = k + 1;
    return NULL;
}

/* (? ... at s[*i]: a named capture or a flag group. *opens: it opens a group. */
static const char *
perl_group(const char *s, size_t n, size_t *i, out_buf *o, bool *opens)
{
    size_t k = *i + 2;
    if (k < n && s[k] == 'P') {
        if (k + 1 >= n || s[k + 1] != '<')
            return "invalid named capture";
        size_t e = k + 2;
        while (e < n && s[e] != '>') {
            if (!is_alnum((unsigned char)s[e]) && s[e] != '_')
                return "invalid named capture";
            e++;
        }
        if (e >= n || e == k + 2)
            return "invalid named capture";
        put(o, s + *i, e + 1 - *i);
        *i = e + 1;
        *opens = true;
        return NULL;
    }
    bool neg = false, saw = false;
    for (; k < n; k++) {
        char c = s[k];
        if (c == 'i' || c == 'm' || c == 's' || c == 'U') {
            saw = true;
            continue;
        }
        if (c == '-') {
            if (neg)
                break;
            neg = true;
            saw = false;
            continue;
        }
        if (c == ':' || c == ')') {
            if (neg && !saw)
                break;
            *opens = c == ':';
            put(o, s + *i, k + 1 - *i);
            *i = k + 1;
            return NULL;
        }
        break;
    }
    return "invalid or unsupported Perl syntax (lookaround, atomic groups, comments and "
           "backreferences are not RE2)";
}

/* x{n}, x{n,}, x{n,m} at s[*i]; false when it is a literal brace (as in Go). */
static bool
repeat_braces(const char *s, size_t n, size_t *i, unsigned long *lo, unsigned long *hi)
{
    size_t k = *i + 1;
    if (k >= n || s[k] < '0' || s[k] > '9')
        return false;
    *lo = 0;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++)
        *lo = *lo < 100000 ? *lo * 10 + (unsigned long)(s[k] - '0') : *lo;
    *hi = *lo;
    if (k < n && s[k] == ',') {
        k++;
        *hi = ULONG_MAX; /* open */
        if (k < n && s[k] >= '0' && s[k] <= '9')
            for (*hi = 0; k < n && s[k] >= '0' && s[k] <= '9'; k++)
                *hi = *hi < 100000 ? *hi * 10 + (unsigned long)(s[k] - '0') : *hi;
    }
    if (k >= n || s[k] != '}')
        return false;
    *i = k + 1;
    return true;
}

static const char *
translate(const char *s, size_t n, out_buf *o)
{
    size_t bad;
    if (!pprof__utf8_valid((const uint8_t *)s, n, &bad))
        return "invalid UTF-8";
    long depth = 0;
    bool atom = false, rep = false;
    size_t i = 0;
    while (i < n) {
        char ch = s[i];
        const char *why = NULL;
        size_t start = i;
        switch (ch) {
        case '(': {
            bool opens = true;
            if (i + 1 < n && s[i + 1] == '?') {
                if ((why = perl_group(s, n, &i, o, &opens)))
                    return why;
            } else {
                put(o, "(", 1);
                i++;
            }
            if (opens && ++depth > 1000)
                return "expression nests too deeply";
            atom = rep = false;
            continue;
        }
        case ')':
            if (--depth < 0)
                return "unexpected )";
            put(o, ")", 1);
            i++;
            atom = true;
            rep = false;
            continue;
        case '|':
        case '^':
        case '$':
            put(o, s + i++, 1);
            atom = rep = false;
            continue;
        case '*':
        case '+':
        case '?':
            if (rep)
                return "invalid nested repetition operator";
            if (!atom)
                return "missing argument to repetition operator";
            i++;
            if (i < n && s[i] == '?')
                i++;
            put(o, s + start, i - start);
            rep = true;
            continue;
        case '{': {
            unsigned long lo, hi;
            if (!repeat_braces(s, n, &i, &lo, &hi)) {
                put(o, "\\{", 2);
                i++;
                atom = true;
                rep = false;
                continue;
            }
            if (rep)
                return "invalid nested repetition operator";
            if (!atom)
                return "missing argument to repetition operator";
            if (lo > MAX_REPEAT || (hi != ULONG_MAX && (hi > MAX_REPEAT || hi < lo)))
                return "invalid repeat count";
            if (i < n && s[i] == '?')
                i++;
            put(o, s + start, i - start);
            rep = true;
            continue;
        }
        case '[':
            if ((why = char_class(s, n, &i, o)))
                return why;
            atom = true;
            rep = false;
            continue;
        case '\\':
            if ((why = escape(s, n, &i, false, o, &atom)))
                return why;
            rep = false;
            continue;
        default:
            put(o, s + i++, 1);
            atom = true;
            rep = false;
            continue;
        }
    }
    if (depth > 0)
        return "missing closing )";
    return NULL;
}

size_t
pprof__regex_translated_max(size_t n)
{
    /* \S in a class is the longest replacement: 46 bytes for 2. */
    return 24 * n + 16;
}

const char *
pprof__re2_check(const char *s, size_t n, char *out, size_t *out_len)
{
    out_buf o = {out, 0};
    const char *why = translate(s, n, &o);
    if (out_len)
        *out_len = o.n;
    return why;
}

struct pprof__regex {
    pprof_allocator a;
    const char *option;
    pcre2_general_context *gc;
    pcre2_code *code;
    pcre2_match_context *mc;
    pcre2_match_data *md;
    bool jit;
};

static void *
gc_alloc(size_t size, void *ctx)
{
    return pprof__malloc(ctx, size);
}

static void
gc_free(void *p, void *ctx)
{
    pprof__free(ctx, p);
}

void
pprof__regex_free(pprof__regex *re)
{
    if (!re)
        return;
    pcre2_match_data_free(re->md);
    pcre2_match_context_free(re->mc);
    pcre2_code_free(re->code);
    pcre2_general_context_free(re->gc);
    pprof_allocator a = re->a;
    pprof__free(&a, re);
}

const char *
pprof__regex_option(const pprof__regex *re)
{
    return re->option;
}

pprof_status
pprof__regex_new(const char *pattern, size_t n, const char *option, const pprof_allocator *a,
                 pprof__regex **out, pprof_error *err)
{
    *out = NULL;
    const char *why = pprof__re2_check(pattern, n, NULL, NULL);
    if (why)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "%s: \"%.*s\" is not a valid Go regular expression: %s", option,
                            (int)(n > 120 ? 120 : n), pattern, why);
    pprof__regex *re = pprof__malloc(a, sizeof(*re));
    size_t cap = pprof__regex_translated_max(n);
    char *tr = pprof__malloc(a, cap);
    if (!re || !tr) {
        pprof__free(a, re);
        pprof__free(a, tr);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    memset(re, 0, sizeof(*re));
    if (a)
        re->a = *a;
    re->option = option;
    size_t tn;
    pprof__re2_check(pattern, n, tr, &tn);
    re->gc = pcre2_general_context_create(gc_alloc, gc_free, &re->a);
    int code = 0;
    PCRE2_SIZE off = 0;
    if (re->gc) {
        pcre2_compile_context *cc = pcre2_compile_context_create(re->gc);
        if (cc) {
            re->code = pcre2_compile((PCRE2_SPTR)tr, tn,
                                     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                                         PCRE2_NEVER_BACKSLASH_C,
                                     &code, &off, cc);
            pcre2_compile_context_free(cc);
        }
    }
    pprof__free(a, tr);
    if (!re->code) {
        PCRE2_UCHAR msg[160] = "out of memory";
        pprof_status st = PPROF_E_NOMEM;
        if (re->gc && code != PCRE2_ERROR_NOMEMORY && code != PCRE2_ERROR_HEAP_FAILED &&
            code != 0) {
            pcre2_get_error_message(code, msg, sizeof(msg));
            st = PPROF_E_ARG;
        }
        pprof__regex_free(re);
        return pprof__error(err, st, PPROF_NO_OFFSET, "",
                            "%s: \"%.*s\" is not a valid Go regular expression: %s", option,
                            (int)(n > 120 ? 120 : n), pattern, (const char *)msg);
    }
    re->jit = pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0;
    re->mc = pcre2_match_context_create(re->gc);
    re->md = pcre2_match_data_create_from_pattern(re->code, re->gc);
    if (!re->mc || !re->md) {
        pprof__regex_free(re);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    pcre2_set_match_limit(re->mc, MATCH_LIMIT);
    pcre2_set_depth_limit(re->mc, DEPTH_LIMIT);
    pcre2_set_heap_limit(re->mc, HEAP_LIMIT_KIB);
    *out = re;
    return PPROF_OK;
}

int
pprof__regex_match(pprof__regex *re, const char *s, size_t n)
{
    static const char empty[1] = "";
    PCRE2_SPTR subj = (PCRE2_SPTR)(s ? s : empty);
    int rc = pcre2_match(re->code, subj, n, 0, 0, re->md, re->mc);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(re->code, subj, n, 0, PCRE2_NO_JIT, re->md, re->mc);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return -1;
}

int
pprof__regex_groups(pprof__regex *re, const char *s, size_t n, size_t *ovec, size_t max_groups)
{
    int rc = pprof__regex_match(re, s, n);
    if (rc != 1)
        return rc;
    uint32_t pairs = pcre2_get_ovector_count(re->md);
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
    for (size_t i = 0; i < max_groups; i++) {
        bool set = i < pairs && ov[2 * i] != PCRE2_UNSET;
        ovec[2 * i] = set ? ov[2 * i] : (size_t)-1;
        ovec[2 * i + 1] = set ? ov[2 * i + 1] : (size_t)-1;
    }
    return 1;
}
