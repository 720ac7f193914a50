/* Label operations of go tool pprof: -tagfocus/-tagignore (compileTagFilter,
 * parseTagFilterRange, FilterSamplesByTag), -tagshow/-taghide (FilterTagsByName) and
 * -tagroot/-tagleaf (addLabelNodes). Labels are seen through Go's model: a label is a string
 * label when its str is set, else a numeric one when its num or unit is set (Go's decoder drops
 * the rest). Keys are compared by content through one canonical index per distinct string. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "edit-private.h"
#include "htab-private.h"
#include "measure-private.h"

/* ---------------------------------------------------------------- canonical strings */

typedef struct canon_ctx {
    const pprof_profile *w;
    const char *s;
    size_t n;
} canon_ctx;

static bool
canon_eq(const void *ctx, uint32_t v, const void *key)
{
    const canon_ctx *c = ctx;
    (void)key;
    const pprof_string *t = &PPROF__AT(c->w->strings, pprof_string, v);
    return t->len == c->n && (!c->n || !memcmp(t->data, c->s, c->n));
}

/* canon[i]: the first string index with string i's bytes, over the input's strings (labels
 * refer only to those until set_labels, which comes after every tag operation). */
static uint32_t *
canon_strings(pprof__ed *e)
{
    size_t n = e->w->strings.len;
    uint32_t *canon = pprof__malloc(e->a, (n + 1) * sizeof(uint32_t));
    pprof__htab t;
    if (!canon || !pprof__htab_init(&t, e->a, n)) {
        pprof__free(e->a, canon);
        ed_nomem(e);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        pprof_string s = PPROF__AT(e->w->strings, pprof_string, i);
        canon_ctx c = {e->w, s.data, s.len};
        bool added;
        canon[i] = pprof__htab_intern(&t, e->a, pprof__hash_bytes(0, s.data, s.len), canon_eq, &c,
                                      NULL, (uint32_t)i, &added);
    }
    pprof__htab_free(&t, e->a);
    return canon;
}

/* The canonical index of bytes s, or PPROF_NONE when the profile has no such string. */
static uint32_t
canon_find(const pprof__ed *e, const uint32_t *canon, const char *s, size_t n)
{
    for (size_t i = 0; i < e->n_canon; i++) {
        pprof_string t = PPROF__AT(e->w->strings, pprof_string, i);
        if (t.len == n && (!n || !memcmp(t.data, s, n)))
            return canon[i];
    }
    return PPROF_NONE;
}

static bool
is_str_label(const pprof_label *l)
{
    return l->str != 0;
}

static bool
is_num_label(const pprof_label *l)
{
    return l->str == 0 && (l->num != 0 || l->num_unit != 0);
}

static const pprof_label *
labels_of(const pprof__ed *e, const pprof__sample *s)
{
    return ed_ptr(e->w->labels.data, sizeof(pprof_label), s->lab_off);
}

bool
ed_set_labels(pprof__ed *e, pprof__sample *s, const pprof_label *l, size_t n)
{
    if (n <= s->n_lab && ed_writable(e, ED_B_LABELS)) {
        if (n)
            memmove(ed_ptr(e->w->labels.data, sizeof(pprof_label), s->lab_off), l, n * sizeof(*l));
        s->n_lab = (uint32_t)n;
        return true;
    }
    if (!ed_reserve(e, &e->w->labels, sizeof(pprof_label), n))
        return false;
    if (e->w->labels.len + n > UINT32_MAX) {
        e->st = pprof__error(e->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                             "the edited labels exceed 2^32");
        return false;
    }
    if (n)
        memcpy(ed_ptr(e->w->labels.data, sizeof(pprof_label), e->w->labels.len), l, n * sizeof(*l));
    s->lab_off = (uint32_t)e->w->labels.len;
    s->n_lab = (uint32_t)n;
    e->w->labels.len += n;
    return true;
}

/* ---------------------------------------------------------------- numeric label units */

/* Profile.NumLabelUnits: per canonical key, the first non-empty unit of its numeric labels;
 * keys without one get "bytes" (alignment, request) or their own name. unit[k] is a string
 * index, or -1. */
static bool
num_label_units(pprof__ed *e, const uint32_t *canon, int64_t *unit)
{
    bool conflict = false;
    for (size_t i = 0; i < e->w->samples.len; i++) {
        const pprof__sample *s = &ed_samples(e)[i];
        const pprof_label *l = labels_of(e, s);
        for (uint32_t j = 0; j < s->n_lab; j++) {
            if (!is_num_label(&l[j]) || !ed_str(e, l[j].num_unit).len)
                continue;
            uint32_t k = canon[l[j].key];
            if (unit[k] < 0)
                unit[k] = canon[l[j].num_unit];
            else if ((int64_t)canon[l[j].num_unit] != unit[k])
                conflict = true;
        }
    }
    return conflict;
}

pprof_status
ed_tag_prepare(pprof__ed *e, bool units)
{
    if (!e->canon) {
        if (!(e->canon = canon_strings(e)))
            return e->st;
        e->n_canon = e->w->strings.len;
    }
    if (!units)
        return PPROF_OK;
    size_t n = e->w->strings.len;
    if (!e->units) {
        if (!(e->units = pprof__malloc(e->a, (n + 1) * sizeof(int64_t))))
            return ed_nomem(e);
        for (size_t i = 0; i < n; i++)
            e->units[i] = -1;
    }
    if (num_label_units(e, e->canon, e->units) && !e->unit_conflict) {
        e->unit_conflict = true;
        ed_warn(e, "a numeric label key has several units; the first one seen is used for "
                   "tag ranges, as go tool pprof does");
    }
    return e->st;
}

static pprof_string
unit_of_key(const pprof__ed *e, const int64_t *unit, uint32_t ck)
{
    if (unit[ck] >= 0)
        return ed_str(e, unit[ck]);
    pprof_string k = ed_str(e, ck);
    pprof_string b = {"bytes", 5};
    if ((k.len == 9 && !memcmp(k.data, "alignment", 9)) ||
        (k.len == 7 && !memcmp(k.data, "request", 7)))
        return b;
    return k;
}

/* ---------------------------------------------------------------- tagfocus / tagignore */

enum { RANGE_EQ, RANGE_GE, RANGE_LE, RANGE_BETWEEN };

typedef struct tag_filter {
    const char *name;
    bool on;
    bool keyed;
    uint32_t key; /* canonical index, PPROF_NONE when the profile has no such key */
    bool numeric;
    int op;
    double lo, hi;
    char unit[16];
    size_t unit_len;
    ed_rx *rx;
    size_t n_rx;
    uint8_t *pair_memo; /* keyless regexps: n_rx answers per (key, value) pair */
    pprof__u64map pairs;
} tag_filter;

/* One match of ([+-]?[[:digit:]]+)([[:alpha:]]+)? at or after *i: [*start, *end), the number
 * [*start, *num_end). */
static bool
range_token(const char *s, size_t n, size_t *i, size_t *start, size_t *num_end, size_t *end)
{
    for (size_t p = *i; p < n; p++) {
        size_t q = p;
        if ((s[q] == '+' || s[q] == '-') && q + 1 < n && s[q + 1] >= '0' && s[q + 1] <= '9')
            q++;
        if (s[q] < '0' || s[q] > '9')
            continue;
        while (q < n && s[q] >= '0' && s[q] <= '9')
            q++;
        *start = p;
        *num_end = q;
        while (q < n && ((s[q] >= 'a' && s[q] <= 'z') || (s[q] >= 'A' && s[q] <= 'Z')))
            q++;
        *end = *i = q;
        return true;
    }
    return false;
}

static bool
parse_i64(const char *s, size_t n, int64_t *out)
{
    char buf[32];
    if (n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* parseTagFilterRange: 1 a range, 0 not one (a regexp then), -1 an error (e->st). */
static int
parse_range(pprof__ed *e, tag_filter *f, const char *s)
{
    size_t n = strlen(s), i = 0, st[2], ne[2], en[2];
    int k = 0;
    while (k < 2 && range_token(s, n, &i, &st[k], &ne[k], &en[k]))
        k++;
    if (!k)
        return 0;
    int64_t v;
    if (!parse_i64(s + st[0], ne[0] - st[0], &v)) {
        e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                             "%s: the number in \"%s\" is out of range", f->name, s);
        return -1;
    }
    pprof_string u0 = {s + ne[0], en[0] - ne[0]}, unit;
    pprof__measure_scale(v, u0, u0, &f->lo, &unit);
    if (unit.len >= sizeof(f->unit))
        return 0;
    memcpy(f->unit, unit.data, unit.len);
    f->unit_len = unit.len;
    size_t m0 = en[0] - st[0];
    if (k == 1) {
        if (st[0] == 0 && en[0] == n)
            f->op = RANGE_EQ;
        else if (st[0] == 0 && en[0] + 1 == n && s[n - 1] == ':')
            f->op = RANGE_GE;
        else if (st[0] == 1 && s[0] == ':' && en[0] == n)
            f->op = RANGE_LE;
        else
            return 0;
        return 1;
    }
    if (!(st[0] == 0 && s[m0] == ':' && st[1] == m0 + 1 && en[1] == n))
        return 0;
    if (!parse_i64(s + st[1], ne[1] - st[1], &v)) {
        e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                             "%s: the number in \"%s\" is out of range", f->name, s);
        return -1;
    }
    pprof_string u1 = {s + ne[1], en[1] - ne[1]}, to = {f->unit, f->unit_len}, unit2;
    pprof__measure_scale(v, u1, to, &f->hi, &unit2);
    if (unit2.len != f->unit_len || memcmp(unit2.data, f->unit, f->unit_len))
        return 0;
    f->op = RANGE_BETWEEN;
    return 1;
}

static pprof_status
compile_tag_filter(pprof__ed *e, tag_filter *f, const char *name, const char *value,
                   const uint32_t *canon)
{
    memset(f, 0, sizeof(*f));
    f->name = name;
    if (!value || !*value)
        return PPROF_OK;
    f->on = true;
    const char *eq = strchr(value, '=');
    if (eq) {
        f->keyed = eq != value; /* Go: an empty key is no key */
        f->key = canon_find(e, canon, value, (size_t)(eq - value));
        value = eq + 1;
    }
    int r = parse_range(e, f, value);
    if (r < 0)
        return e->st;
    if (r > 0) {
        f->numeric = true;
        ed_warn_once(e, "%s:Interpreted '%s' as range, not regexp", name, value);
        return PPROF_OK;
    }
    size_t n = 1;
    for (const char *c = value; *c; c++)
        n += *c == ',';
    f->rx = pprof__malloc(e->a, n * sizeof(ed_rx));
    char *copy = pprof__malloc(e->a, strlen(value) + 1);
    if (!f->rx || !copy) {
        pprof__free(e->a, copy);
        return ed_nomem(e);
    }
    memset(f->rx, 0, n * sizeof(ed_rx));
    strcpy(copy, value);
    char *p = copy;
    for (size_t i = 0; i < n; i++) {
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        if (ed_rx_compile(e, &f->rx[i], name, p, false))
            break;
        f->n_rx++;
        p = c ? c + 1 : p + strlen(p);
    }
    pprof__free(e->a, copy);
    if (!e->st && !f->keyed && !pprof__u64map_init(&f->pairs, e->a, 0))
        ed_nomem(e);
    return e->st;
}

static void
free_tag_filter(pprof__ed *e, tag_filter *f)
{
    for (size_t i = 0; i < f->n_rx; i++)
        ed_rx_free(e, &f->rx[i]);
    pprof__free(e->a, f->rx);
    pprof__free(e->a, f->pair_memo);
    pprof__u64map_free(&f->pairs, e->a);
}

static bool
in_range(const tag_filter *f, int64_t v, pprof_string unit)
{
    double sv;
    pprof_string su, to = {f->unit, f->unit_len};
    pprof__measure_scale(v, unit, to, &sv, &su);
    if (su.len != f->unit_len || memcmp(su.data, f->unit, f->unit_len))
        return false;
    switch (f->op) {
    case RANGE_EQ: return sv == f->lo;
    case RANGE_GE: return sv >= f->lo;
    case RANGE_LE: return sv <= f->lo;
    default: return sv >= f->lo && sv <= f->hi;
    }
}

/* rx[r] on "key:value" for a string label, memoized per (canonical key, canonical value). */
static bool
pair_matches(pprof__ed *e, tag_filter *f, const uint32_t *canon, const pprof_label *l, size_t r)
{
    uint64_t key = ((uint64_t)canon[l->key] << 32) | canon[l->str];
    uint32_t idx = pprof__u64map_get(&f->pairs, key);
    if (idx == PPROF_NONE) {
        idx = (uint32_t)f->pairs.n;
        uint32_t old;
        bool added;
        uint8_t *m = pprof__realloc(e->a, f->pair_memo, (idx + 1) * f->n_rx);
        if (!m || !pprof__u64map_put(&f->pairs, e->a, key, idx, &old, &added)) {
            if (m)
                f->pair_memo = m;
            ed_nomem(e);
            return false;
        }
        f->pair_memo = m;
        memset(m + (size_t)idx * f->n_rx, 0, f->n_rx);
    }
    uint8_t *slot = &f->pair_memo[(size_t)idx * f->n_rx + r];
    if (!*slot) {
        pprof_string k = ed_str(e, l->key), v = ed_str(e, l->str);
        char stackbuf[256];
        size_t n = k.len + 1 + v.len;
        char *buf = n <= sizeof(stackbuf) ? stackbuf : pprof__malloc(e->a, n);
        if (!buf) {
            ed_nomem(e);
            return false;
        }
        memcpy(buf, k.data, k.len);
        buf[k.len] = ':';
        memcpy(buf + k.len + 1, v.data, v.len);
        *slot = ed_rx_bytes(e, &f->rx[r], buf, n) ? 2 : 1;
        if (buf != stackbuf)
            pprof__free(e->a, buf);
    }
    return *slot == 2;
}

/* The function compileTagFilter returns, applied to one sample. */
static bool
tag_matches(pprof__ed *e, tag_filter *f, const uint32_t *canon, const int64_t *units,
            const pprof__sample *s)
{
    const pprof_label *l = labels_of(e, s);
    if (f->numeric) {
        for (uint32_t j = 0; j < s->n_lab; j++) {
            if (!is_num_label(&l[j]) || (f->keyed && canon[l[j].key] != f->key))
                continue;
            if (in_range(f, l[j].num, unit_of_key(e, units, canon[l[j].key])))
                return true;
        }
        return false;
    }
    if (f->keyed) {
        for (uint32_t j = 0; j < s->n_lab; j++)
            if (is_str_label(&l[j]) && canon[l[j].key] == f->key)
                for (size_t r = 0; r < f->n_rx; r++)
                    if (ed_rx_str(e, &f->rx[r], l[j].str))
                        return true;
        return false;
    }
    for (size_t r = 0; r < f->n_rx; r++) {
        bool any = false;
        for (uint32_t j = 0; j < s->n_lab && !any; j++)
            any = is_str_label(&l[j]) && pair_matches(e, f, canon, &l[j], r);
        if (!any)
            return false;
    }
    return true;
}

pprof_status
ed_tag_filter(pprof__ed *e)
{
    if (ed_tag_prepare(e, false))
        return e->st;
    uint32_t *canon = e->canon;
    int64_t *units = e->units;
    tag_filter fo, ig;
    memset(&fo, 0, sizeof(fo));
    memset(&ig, 0, sizeof(ig));
    if (units && !compile_tag_filter(e, &fo, "tagfocus", e->o.tag_focus, canon))
        compile_tag_filter(e, &ig, "tagignore", e->o.tag_ignore, canon);
    bool fm = false, im = false;
    size_t out = 0;
    for (size_t i = 0; units && !e->st && i < e->w->samples.len; i++) {
        pprof__sample s = ed_samples(e)[i];
        bool focused = !fo.on || tag_matches(e, &fo, canon, units, &s);
        bool ignored = ig.on && tag_matches(e, &ig, canon, units, &s);
        fm |= focused;
        im |= ignored;
        if (focused && !ignored)
            ed_samples(e)[out++] = s;
    }
    if (units && !e->st) {
        e->w->samples.len = out;
        if (fo.on)
            ed_matched(e, ED_NM_TAGFOCUS, fm);
        if (ig.on)
            ed_matched(e, ED_NM_TAGIGNORE, im);
    }
    free_tag_filter(e, &fo);
    free_tag_filter(e, &ig);
    return e->st;
}

/* ---------------------------------------------------------------- tagshow / taghide */

pprof_status
ed_tag_names(pprof__ed *e)
{
    ed_rx *show = e->tag_show.re ? &e->tag_show : NULL,
          *hide = e->tag_hide.re ? &e->tag_hide : NULL;
    bool sm = false, hm = false;
    size_t most = 0;
    for (size_t i = 0; i < e->w->samples.len; i++)
        if (ed_samples(e)[i].n_lab > most)
            most = ed_samples(e)[i].n_lab;
    pprof_label *tmp = pprof__malloc(e->a, (most + 1) * sizeof(pprof_label));
    if (!tmp)
        return ed_nomem(e);
    for (size_t i = 0; !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        const pprof_label *l = labels_of(e, s);
        size_t k = 0;
        for (uint32_t j = 0; j < s->n_lab; j++) {
            bool ms = !show || ed_rx_str(e, show, l[j].key);
            bool mh = hide && ed_rx_str(e, hide, l[j].key);
            sm |= ms;
            hm |= mh;
            if (ms && !mh)
                tmp[k++] = l[j];
        }
        if (k < s->n_lab)
            ed_set_labels(e, s, tmp, k);
    }
    pprof__free(e->a, tmp);
    if (!e->st && show)
        ed_matched(e, ED_NM_TAGSHOW, sm);
    if (!e->st && hide)
        ed_matched(e, ED_NM_TAGHIDE, hm);
    return e->st;
}

/* ---------------------------------------------------------------- tagroot / tagleaf */

typedef struct key_list {
    const char **k;
    size_t *len;
    uint32_t *canon; /* PPROF_NONE: no such string in the profile */
    size_t n;
} key_list;

/* strings.Split on ',' without the empty strings (dropEmptyStrings). */
static bool
split_keys(pprof__ed *e, const char *s, key_list *l, const uint32_t *canon)
{
    memset(l, 0, sizeof(*l));
    if (!s || !*s)
        return true;
    size_t n = 1;
    for (const char *c = s; *c; c++)
        n += *c == ',';
    l->k = pprof__malloc(e->a, n * sizeof(*l->k));
    l->len = pprof__malloc(e->a, n * sizeof(*l->len));
    l->canon = pprof__malloc(e->a, n * sizeof(*l->canon));
    if (!l->k || !l->len || !l->canon)
        return ed_nomem(e), false;
    for (const char *p = s;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len) {
            l->k[l->n] = p;
            l->len[l->n] = len;
            l->canon[l->n++] = canon_find(e, canon, p, len);
        }
        if (!c)
            break;
        p = c + 1;
    }
    return true;
}

static void
free_keys(pprof__ed *e, key_list *l)
{
    pprof__free(e->a, l->k);
    pprof__free(e->a, l->len);
    pprof__free(e->a, l->canon);
}

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static bool
text_put(pprof__ed *e, text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        size_t cap = (t->n + n + 1) * 2;
        char *p = pprof__realloc(e->a, t->p, cap);
        if (!p)
            return ed_nomem(e), false;
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    return true;
}

/* formatLabelValues: the key's string values, then its numbers as ScaledLabel text (with the
 * labels' own units when any label of the key has one), joined by ','. Whether any was found. */
static bool
label_text(pprof__ed *e, const pprof__sample *s, uint32_t key, const uint32_t *canon, text *t)
{
    t->n = 0;
    if (key == PPROF_NONE)
        return false;
    const pprof_label *l = labels_of(e, s);
    bool any = false, units = false;
    for (uint32_t j = 0; j < s->n_lab; j++) {
        if (canon[l[j].key] != key)
            continue;
        if (is_str_label(&l[j])) {
            pprof_string v = ed_str(e, l[j].str);
            if ((any && !text_put(e, t, ",", 1)) || !text_put(e, t, v.data, v.len))
                return false;
            any = true;
        } else if (is_num_label(&l[j]) && l[j].num_unit) {
            units = true;
        }
    }
    const char *ou = e->o.tag_unit && *e->o.tag_unit ? e->o.tag_unit : "minimum";
    pprof_string none = {"", 0}, out_unit = {ou, strlen(ou)};
    for (uint32_t j = 0; j < s->n_lab; j++) {
        if (canon[l[j].key] != key || !is_num_label(&l[j]))
            continue;
        char buf[420];
        size_t n = units ? pprof__measure_label(l[j].num, ed_str(e, l[j].num_unit), out_unit, buf,
                                                sizeof(buf))
                         : pprof__measure_label(l[j].num, none, none, buf, sizeof(buf));
        if (n >= sizeof(buf))
            n = sizeof(buf) - 1;
        if ((any && !text_put(e, t, ",", 1)) || !text_put(e, t, buf, n))
            return false;
        any = true;
    }
    return any;
}

typedef struct pseudo_ctx {
    const pprof__ed *e;
    const char *name, *file;
    size_t nn, fn;
} pseudo_ctx;

/* Equality of a pseudo-frame location (index into w's locations) with (name, file). */
static bool
pseudo_eq(const void *ctx, uint32_t v, const void *key)
{
    const pseudo_ctx *c = ctx;
    (void)key;
    const pprof__location *l = &PPROF__AT(c->e->w->locations, pprof__location, v);
    const pprof_line *ln = &PPROF__AT(c->e->w->lines, pprof_line, l->line_off);
    const pprof_function *f =
        &PPROF__AT(c->e->w->functions, pprof_function, ed_fn(c->e, ln->function_id));
    pprof_string n = ed_str(c->e, f->name), fl = ed_str(c->e, f->filename);
    return n.len == c->nn && fl.len == c->fn && !memcmp(n.data, c->name, c->nn) &&
           !memcmp(fl.data, c->file, c->fn);
}

/* The location for the frame (name, file), made on first use: a function with that name and
 * file name and a location with one line of it, no mapping, no address. */
static uint64_t
pseudo_frame(pprof__ed *e, pprof__htab *t, const char *name, size_t nn, const char *file, size_t fn)
{
    pseudo_ctx c = {e, name, file, nn, fn};
    uint64_t h = pprof__hash_bytes(pprof__hash_bytes(0, name, nn), file, fn);
    uint32_t found = pprof__htab_find(t, h, pseudo_eq, &c, NULL);
    if (found != PPROF_NONE)
        return PPROF__AT(e->w->locations, pprof__location, found).id;
    int64_t ns = ed_add_string(e, name, nn), fs = ns < 0 ? -1 : ed_add_string(e, file, fn);
    if (fs < 0 || !ed_reserve(e, &e->w->functions, sizeof(pprof_function), 1) ||
        !ed_reserve(e, &e->w->lines, sizeof(pprof_line), 1) ||
        !ed_reserve(e, &e->w->locations, sizeof(pprof__location), 1) ||
        !pprof__htab_reserve(t, e->a, 1)) {
        ed_nomem(e);
        return 0;
    }
    uint64_t fid = e->first_fn_id + (e->w->functions.len - e->n_fn0);
    uint64_t lid = e->first_loc_id + (e->w->locations.len - e->n_loc0);
    pprof_function *f = pprof__vec_push(e->a, &e->w->functions, sizeof(pprof_function));
    *f = (pprof_function){fid, ns, 0, fs, 0};
    pprof_line *ln = pprof__vec_push(e->a, &e->w->lines, sizeof(pprof_line));
    *ln = (pprof_line){fid, 0, 0};
    pprof__location *l = pprof__vec_push(e->a, &e->w->locations, sizeof(pprof__location));
    *l = (pprof__location){lid, 0, 0, (uint32_t)(e->w->lines.len - 1), 1, false};
    pprof__htab_add(t, h, (uint32_t)(e->w->locations.len - 1));
    return lid;
}

/* makeLabelLocs: one frame per key, the last key first; *match when a key had values. */
static size_t
label_frames(pprof__ed *e, pprof__htab *t, const pprof__sample *s, const key_list *keys,
             const uint32_t *canon, text *txt, uint64_t *out, bool *match)
{
    for (size_t i = 0; i < keys->n && !e->st; i++) {
        size_t k = keys->n - 1 - i;
        *match |= label_text(e, s, keys->canon[k], canon, txt);
        out[i] = pseudo_frame(e, t, txt->p ? txt->p : "", txt->n, keys->k[k], keys->len[k]);
    }
    return keys->n;
}

pprof_status
ed_tag_roots(pprof__ed *e)
{
    if (ed_tag_prepare(e, false))
        return e->st;
    uint32_t *canon = e->canon;
    key_list roots, leaves;
    memset(&roots, 0, sizeof(roots));
    memset(&leaves, 0, sizeof(leaves));
    pprof__htab t;
    memset(&t, 0, sizeof(t));
    text txt = {NULL, 0, 0};
    uint64_t *buf = NULL;
    bool rootm = false, leafm = false;
    if (canon && split_keys(e, e->o.tag_root, &roots, canon) &&
        split_keys(e, e->o.tag_leaf, &leaves, canon) &&
        ed_own(e, &e->w->locations, sizeof(pprof__location)) &&
        ed_own(e, &e->w->functions, sizeof(pprof_function)) &&
        ed_own(e, &e->w->lines, sizeof(pprof_line))) {
        size_t most = 0;
        for (size_t i = 0; i < e->w->samples.len; i++)
            if (ed_samples(e)[i].n_loc > most)
                most = ed_samples(e)[i].n_loc;
        if (!(buf = pprof__malloc(e->a, (most + roots.n + leaves.n + 1) * sizeof(uint64_t))))
            ed_nomem(e);
    }
    for (size_t i = 0; buf && !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        size_t n = label_frames(e, &t, s, &leaves, canon, &txt, buf, &leafm);
        if (s->n_loc)
            memcpy(buf + n, ed_stack(e, s), s->n_loc * sizeof(uint64_t));
        n += s->n_loc;
        n += label_frames(e, &t, s, &roots, canon, &txt, buf + n, &rootm);
        if (!e->st)
            ed_set_stack(e, s, buf, n);
    }
    if (!e->st && e->o.tag_root && *e->o.tag_root)
        ed_matched(e, ED_NM_TAGROOT, rootm);
    if (!e->st && e->o.tag_leaf && *e->o.tag_leaf)
        ed_matched(e, ED_NM_TAGLEAF, leafm);
    pprof__free(e->a, buf);
    pprof__free(e->a, txt.p);
    pprof__htab_free(&t, e->a);
    free_keys(e, &roots);
    free_keys(e, &leaves);
    return e->st;
}
