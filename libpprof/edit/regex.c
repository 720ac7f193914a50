/* Go regular expressions on RE2 (regex-re2.cc). RE2 is Go's regexp in C++: the same syntax,
 * the same error set, linear-time matching. This file covers what differs:
 *  - syntax: Go refuses \C (RE2's any-byte) and allows a capture name twice; Go refuses a parse
 *    tree deeper than 1000 (regexp/syntax maxHeight), which RE2 does not bound;
 *  - names that are not UTF-8: Go reads each byte that does not start a valid sequence as
 *    U+FFFD; RE2 has its own reading, so such a name is given to RE2 as Go reads it.
 * tests/regex compares this with Go's answers on a table of patterns and names. */
#include <stdlib.h>

#include "pprof/edit.h"
#include "regex-private.h"
#include "utf8-private.h"

/* regexp/syntax maxHeight */
#define GO_MAX_HEIGHT 1000u

/* ---------------------------------------------------------------- Go's parse tree height
 * Go's parser builds a tree whose height it bounds; this follows its shape closely enough to
 * draw the same line: literal characters in a row are one node; a repeat, a capture, a
 * concatenation of two or more items and an alternation of two or more (not all single
 * characters, which become one class) each add a level; a non-capturing group adds none, and
 * its concatenation or alternation joins the enclosing one of the same kind (Go's collapse). */

enum { IT_NONE, IT_LIT1, IT_LITS, IT_CHAR, IT_OTHER, IT_CONCAT, IT_ALT };

typedef struct item {
    uint32_t h;      /* height of the node */
    uint32_t flat_h; /* IT_CONCAT, IT_ALT: height of its tallest child */
    uint8_t kind;
    bool fold;
} item;

typedef struct frame {
    bool cap, fold_saved, fold;
    uint32_t alts, alt_h; /* finished alternatives; tallest, joined alternations flattened */
    bool alt_all_char;
    item alt1;              /* the first alternative */
    uint32_t items, item_h; /* finished items of the concatenation being read */
    item item1, last;       /* its first item; the item a repeat would apply to */
} frame;

static uint32_t
max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static void
commit(frame *f)
{
    if (f->last.kind == IT_NONE)
        return;
    if (f->items++ == 0)
        f->item1 = f->last;
    f->item_h = max_u32(f->item_h, f->last.kind == IT_CONCAT ? f->last.flat_h : f->last.h);
    f->last.kind = IT_NONE;
}

static void
push(frame *f, item it)
{
    bool lit = it.kind == IT_LIT1 || it.kind == IT_LITS;
    if (lit && (f->last.kind == IT_LIT1 || f->last.kind == IT_LITS) && f->last.fold == it.fold) {
        f->last.kind = IT_LITS; /* Go's maybeConcat */
        return;
    }
    commit(f);
    f->last = it;
}

static void
leaf(frame *f, uint8_t kind)
{
    push(f, (item){1, 0, kind, f->fold});
}

static void
repeat(frame *f)
{
    if (f->last.kind == IT_NONE)
        return;                    /* RE2 refuses it */
    if (f->last.kind == IT_LITS) { /* the repeat takes the last character of the run */
        f->last.kind = IT_LIT1;
        commit(f);
        f->last = (item){2, 0, IT_OTHER, f->fold};
        return;
    }
    f->last = (item){f->last.h + 1, 0, IT_OTHER, f->fold};
}

static item
end_concat(frame *f)
{
    commit(f);
    item r = {1, 0, IT_OTHER, f->fold}; /* empty: Go's EmptyMatch */
    if (f->items == 1)
        r = f->item1;
    else if (f->items > 1)
        r = (item){1 + f->item_h, f->item_h, IT_CONCAT, f->fold};
    f->items = f->item_h = 0;
    return r;
}

static void
end_alternative(frame *f)
{
    item r = end_concat(f);
    if (f->alts++ == 0)
        f->alt1 = r;
    f->alt_all_char = f->alt_all_char && (r.kind == IT_LIT1 || r.kind == IT_CHAR);
    f->alt_h = max_u32(f->alt_h, r.kind == IT_ALT ? r.flat_h : r.h);
    if (r.kind == IT_ALT)
        f->alts++; /* a joined alternation brings two or more */
}

static item
end_group(frame *f)
{
    end_alternative(f);
    item r = f->alt1;
    if (f->alts > 1)
        r = f->alt_all_char ? (item){1, 0, IT_CHAR, f->fold}
                            : (item){1 + f->alt_h, f->alt_h, IT_ALT, f->fold};
    if (f->cap)
        r = (item){r.h + 1, 0, IT_OTHER, f->fold};
    return r;
}

static void
open_frame(frame *f, bool cap, bool fold)
{
    memset(f, 0, sizeof(*f));
    f->cap = cap;
    f->fold = fold;
    f->alt_all_char = true;
}

/* ---------------------------------------------------------------- the gate
 * Reads the pattern as Go's parser does, only as far as it needs to: groups, classes,
 * escapes, repeats, flags. RE2 does the real parse afterwards, so a malformed pattern only
 * has to be read without harm here. */

typedef struct gate {
    const char *s;
    size_t n, i;
    char *out; /* the pattern for RE2; NULL: measure only */
    size_t on;
    frame *fr;
    size_t depth;
} gate;

static void
emit(gate *g, const char *p, size_t k)
{
    if (g->out)
        memcpy(g->out + g->on, p, k);
    g->on += k;
}

/* Copies k bytes of the pattern through. */
static void
take(gate *g, size_t k)
{
    if (k > g->n - g->i)
        k = g->n - g->i;
    emit(g, g->s + g->i, k);
    g->i += k;
}

static size_t
char_len(const gate *g)
{
    size_t k = pprof__utf8_seq_len((const uint8_t *)g->s + g->i, g->n - g->i);
    return k ? k : 1;
}

static bool
word_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Scripts that Unicode 14 added: RE2 2022-06 has them, Go 1.19's tables (Unicode 13) do not,
 * so Go refuses \p{Toto}. A Go built with Unicode 14 or later accepts them. */
static bool
unicode14_script(const char *name, size_t n)
{
    static const char *const added[] = {"Cypro_Minoan", "Old_Uyghur", "Tangsa", "Toto", "Vithkuqi"};
    if (n && name[0] == '^')
        name++, n--;
    for (size_t i = 0; i < sizeof(added) / sizeof(*added); i++)
        if (strlen(added[i]) == n && memcmp(added[i], name, n) == 0)
            return true;
    return false;
}

/* An escape at s[i] == '\\'. in_class: inside [...]. Returns the kind of node it makes. */
static uint8_t
escape(gate *g, bool in_class)
{
    const char *s = g->s;
    size_t n = g->n, i = g->i;
    if (i + 1 >= n) {
        take(g, 1);
        return IT_NONE;
    }
    char c = s[i + 1];
    switch (c) {
    case 'C':
        /* RE2's any-byte; Go has no \C and says "invalid escape sequence" here. \8 is an
         * escape RE2 refuses with that reason, at the same place in its parse. */
        emit(g, "\\8", 2);
        g->i += 2;
        return IT_NONE;
    case 'Q':
        if (in_class) {
            take(g, 2);
            return IT_NONE;
        }
        take(g, 2);
        while (g->i < n && !(s[g->i] == '\\' && g->i + 1 < n && s[g->i + 1] == 'E')) {
            size_t k = char_len(g);
            take(g, k);
            if (!in_class)
                leaf(&g->fr[g->depth], IT_LIT1);
        }
        take(g, 2);
        return IT_NONE;
    case 'p':
    case 'P':
        take(g, 2);
        if (g->i < n && s[g->i] == '{') {
            size_t e = g->i;
            while (e < n && s[e] != '}')
                e++;
            if (e < n && unicode14_script(s + g->i + 1, e - g->i - 1)) {
                /* RE2 knows this script, Go's tables do not: Go's reason, from RE2 */
                emit(g, "{?}", 3);
                g->i = e + 1;
                return IT_CHAR;
            }
            while (g->i < n && s[g->i] != '}')
                take(g, 1);
            take(g, 1);
        } else if (g->i < n) {
            take(g, char_len(g));
        }
        return IT_CHAR;
    case 'x':
        take(g, 2);
        if (g->i < n && s[g->i] == '{') {
            while (g->i < n && s[g->i] != '}')
                take(g, 1);
            take(g, 1);
        } else {
            take(g, 2);
        }
        return IT_LIT1;
    case 'd':
    case 'D':
    case 's':
    case 'S':
    case 'w':
    case 'W': take(g, 2); return IT_CHAR;
    case 'b':
    case 'B':
    case 'A':
    case 'z': take(g, 2); return IT_OTHER;
    default:
        if (c >= '0' && c <= '7') { /* octal: up to three digits */
            take(g, 2);
            for (int d = 0; d < 2 && g->i < n && s[g->i] >= '0' && s[g->i] <= '7'; d++)
                take(g, 1);
            return IT_LIT1;
        }
        g->i++;
        emit(g, "\\", 1);
        take(g, char_len(g));
        return IT_LIT1;
    }
}

/* [...] at s[i] == '['. */
static void
char_class(gate *g)
{
    const char *s = g->s;
    size_t n = g->n;
    take(g, 1);
    if (g->i < n && s[g->i] == '^')
        take(g, 1);
    if (g->i < n && s[g->i] == ']')
        take(g, 1);
    while (g->i < n && s[g->i] != ']') {
        if (s[g->i] == '[' && g->i + 1 < n && s[g->i + 1] == ':') {
            /* [:name:], as Go's parseNamedClass finds its end */
            const char *e = NULL;
            for (size_t k = g->i + 2; k + 1 < n && !e; k++)
                if (s[k] == ':' && s[k + 1] == ']')
                    e = s + k;
            if (e) {
                take(g, (size_t)(e - (s + g->i)) + 2);
                continue;
            }
        }
        if (s[g->i] == '\\')
            escape(g, true);
        else
            take(g, char_len(g));
    }
    take(g, 1);
    leaf(&g->fr[g->depth], IT_CHAR);
}

/* (?...) at s[i]: a named capture, a flag group or flags alone. */
static void
perl_group(gate *g)
{
    const char *s = g->s;
    size_t n = g->n, i = g->i;
    frame *f = &g->fr[g->depth];
    if (n - i > 4 && s[i + 2] == 'P' && s[i + 3] == '<') {
        size_t e = i + 4;
        while (e < n && word_char(s[e]))
            e++;
        if (e < n && s[e] == '>' && e > i + 4) {
            /* Go allows a name twice (RE2 does not), and names are not needed for a yes/no
             * answer: a plain group. */
            emit(g, "(", 1);
            g->i = e + 1;
            open_frame(&g->fr[++g->depth], true, f->fold);
        } else {
            /* Go's reason for every bad name; RE2 refuses an empty one with it */
            emit(g, "(?P<>", 5);
            g->i = n;
        }
        return;
    }
    bool fold = f->fold, neg = false;
    size_t k = i + 2;
    for (; k < n; k++) {
        if (s[k] == 'i')
            fold = !neg;
        else if (s[k] == '-')
            neg = true;
        else if (s[k] == ':' || s[k] == ')')
            break;
    }
    take(g, k + 1 - i);
    if (k < n && s[k] == ':') {
        open_frame(&g->fr[++g->depth], false, fold);
        g->fr[g->depth].fold_saved = f->fold;
    } else {
        f->fold = fold;
    }
}

/* Digits at s[i] as Go's parseInt reads them (no leading zero): their end, or 0. *big: five
 * digits or more, so past Go's limit of 1000. */
static size_t
go_int(const char *s, size_t n, size_t i, bool *big)
{
    if (i >= n || s[i] < '0' || s[i] > '9' ||
        (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9'))
        return 0;
    size_t k = i;
    while (k < n && s[k] >= '0' && s[k] <= '9')
        k++;
    *big = *big || k - i >= 5;
    return k;
}

/* {n}, {n,} or {n,m} at s[i], as Go's parseRepeat: the end after '}', or 0 when the brace is a
 * literal. */
static size_t
brace_repeat(const char *s, size_t n, size_t i, bool *big)
{
    *big = false;
    size_t k = go_int(s, n, i + 1, big);
    if (!k || k >= n)
        return 0;
    if (s[k] == ',') {
        k++;
        if (k < n && s[k] != '}' && !(k = go_int(s, n, k, big)))
            return 0;
    }
    return k < n && s[k] == '}' ? k + 1 : 0;
}

static void
gate_run(gate *g)
{
    const char *s = g->s;
    size_t n = g->n;
    open_frame(&g->fr[0], false, false);
    while (g->i < n) {
        frame *f = &g->fr[g->depth];
        switch (s[g->i]) {
        case '(':
            if (g->i + 1 < n && s[g->i + 1] == '?') {
                perl_group(g);
            } else {
                take(g, 1);
                open_frame(&g->fr[++g->depth], true, f->fold);
            }
            break;
        case ')':
            take(g, 1);
            if (g->depth > 0) {
                item r = end_group(f);
                g->depth--;
                push(&g->fr[g->depth], r);
            }
            break;
        case '|':
            take(g, 1);
            end_alternative(f);
            break;
        case '*':
        case '+':
        case '?':
            take(g, 1);
            if (g->i < n && s[g->i] == '?')
                take(g, 1);
            repeat(f);
            break;
        case '{': {
            bool big;
            size_t end = brace_repeat(s, n, g->i, &big);
            if (!end) {
                take(g, 1);
                leaf(f, IT_LIT1);
                break;
            }
            if (big) {
                /* RE2 reads a count past its integer range as literal text; Go refuses it as
                 * past 1000. {1001} makes RE2 refuse it the same way at the same place. */
                emit(g, "{1001}", 6);
                g->i = end;
            } else {
                take(g, end - g->i);
            }
            if (g->i < n && s[g->i] == '?')
                take(g, 1);
            repeat(f);
            break;
        }
        case '[': char_class(g); break;
        case '\\': {
            uint8_t k = escape(g, false);
            if (k != IT_NONE)
                leaf(f, k);
            break;
        }
        case '.':
            take(g, 1);
            leaf(f, IT_CHAR);
            break;
        case '^':
        case '$':
            take(g, 1);
            leaf(f, IT_OTHER);
            break;
        default:
            take(g, char_len(g));
            leaf(f, IT_LIT1);
            break;
        }
    }
    while (g->depth > 0) { /* unclosed: RE2 refuses it; close to finish the walk */
        item r = end_group(&g->fr[g->depth]);
        g->depth--;
        push(&g->fr[g->depth], r);
    }
}

/* The RE2 spelling of a Go pattern into *out (allocated, not NUL-terminated, *out_n bytes) and
 * whether Go's parse tree is too tall. PPROF_E_NOMEM or PPROF_OK. */
static pprof_status
gate_translate(const char *s, size_t n, const pprof_allocator *a, char **out, size_t *out_n,
               bool *too_deep)
{
    size_t groups = 1;
    for (size_t i = 0; i < n; i++)
        groups += s[i] == '(';
    gate g = {s, n, 0, NULL, 0, NULL, 0};
    g.fr = pprof__malloc(a, groups * sizeof(frame));
    /* every replacement is no longer than what it replaces: "(?P<>" a bad name "(?P<...",
     * "\8" "\C", "{?}" a script name, "{1001}" a count of five digits or more */
    g.out = pprof__malloc(a, n + 1);
    if (!g.fr || !g.out) {
        pprof__free(a, g.fr);
        pprof__free(a, g.out);
        return PPROF_E_NOMEM;
    }
    gate_run(&g);
    item top = end_group(&g.fr[0]);
    *too_deep = top.h > GO_MAX_HEIGHT;
    pprof__free(a, g.fr);
    *out = g.out;
    *out_n = g.on;
    return PPROF_OK;
}

/* Compiles s as Go would: 0 and *re, 1 and *why, or -1 (no memory). */
static int
compile(const char *s, size_t n, const pprof_allocator *a, pprof__re2 **re, const char **why)
{
    *re = NULL;
    char *tr;
    size_t tn;
    bool too_deep;
    if (gate_translate(s, n, a, &tr, &tn, &too_deep))
        return -1;
    int rc = pprof__re2_new(tr, tn, re, why);
    pprof__free(a, tr);
    if (rc == PPROF__RE2_NOMEM)
        return -1;
    if (rc == PPROF__RE2_SYNTAX)
        return 1;
    if (too_deep) {
        pprof__re2_free(*re);
        *re = NULL;
        *why = "expression nests too deeply";
        return 1;
    }
    return 0;
}

int
pprof__re2_check(const char *s, size_t n, const char **why)
{
    pprof__re2 *re;
    int rc = compile(s, n, NULL, &re, why);
    pprof__re2_free(re);
    return rc;
}

/* ---------------------------------------------------------------- patterns */

struct pprof__regex {
    pprof_allocator a;
    const char *option;
    pprof__re2 *re;
    char *scratch; /* a name as Go reads it, when it is not UTF-8 */
    size_t cap;
};

void
pprof__regex_free(pprof__regex *re)
{
    if (!re)
        return;
    pprof__re2_free(re->re);
    pprof_allocator a = re->a;
    pprof__free(&a, re->scratch);
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
    pprof__regex *re = pprof__malloc(a, sizeof(*re));
    if (!re)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(re, 0, sizeof(*re));
    if (a)
        re->a = *a;
    re->option = option;
    const char *why = NULL;
    int rc = compile(pattern, n, a, &re->re, &why);
    if (rc) {
        pprof__regex_free(re);
        if (rc < 0)
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "%s: \"%.*s\" is not a valid Go regular expression: %s", option,
                            (int)(n > 120 ? 120 : n), pattern, why);
    }
    *out = re;
    return PPROF_OK;
}

int
pprof__regex_match(pprof__regex *re, const char *s, size_t n)
{
    static const char empty[1] = "";
    if (!s)
        s = empty;
    size_t bad;
    if (pprof__utf8_valid((const uint8_t *)s, n, &bad))
        return pprof__re2_match(re->re, s, n);
    /* Go's reading: each byte that does not start a valid sequence is one U+FFFD. */
    if (n > (SIZE_MAX - 1) / 3)
        return -1;
    if (re->cap < 3 * n) {
        char *p = pprof__realloc(&re->a, re->scratch, 3 * n);
        if (!p)
            return -1;
        re->scratch = p;
        re->cap = 3 * n;
    }
    memcpy(re->scratch, s, bad);
    size_t o = bad;
    for (size_t i = bad; i < n;) {
        size_t k = pprof__utf8_seq_len((const uint8_t *)s + i, n - i);
        if (k) {
            memcpy(re->scratch + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(re->scratch + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    return pprof__re2_match(re->re, re->scratch, o);
}

/* Go's regexp reads a bad byte as U+FFFD of width 1, so offsets stay the name's own; RE2 is
 * given the name's bytes as they are (a name that is not UTF-8 may then match otherwise than
 * in Go: only the dot report's name shortening asks for groups, on its own patterns). */
int
pprof__regex_groups(pprof__regex *re, const char *s, size_t n, size_t *ovec, size_t max_groups)
{
    return pprof__re2_groups(re->re, s, n, ovec, max_groups);
}

int
pprof_regex_check(const char *pattern, size_t n, const char **why)
{
    return pprof__re2_check(pattern, n, why);
}
