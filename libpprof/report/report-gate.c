/* Printing a diff table and the --fail-if rules over it (grammar in report.h and
 * docs/report.md). Regular expressions are Go's (RE2), as every other pattern of the library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "regex-private.h"
#include "report-private.h"
#include "text-private.h"

/* ---- printing */

static int64_t
abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* report.selectOutputUnit over the values shown. */
static const char *
diff_unit(const pprof_diff *d, size_t n)
{
    pprof_diff_summary s = pprof_diff_get_summary(d);
    int64_t min = 0, max = abs64(s.base_total) > abs64(s.new_total) ? abs64(s.base_total)
                                                                    : abs64(s.new_total);
    for (size_t i = 0; i < n; i++) {
        pprof_diff_node x = pprof_diff_node_at(d, i);
        int64_t v[4] = {x.base_flat, x.base_cum, x.new_flat, x.new_cum};
        for (int k = 0; k < 4; k++)
            if (v[k] && (min == 0 || abs64(v[k]) < min))
                min = abs64(v[k]);
    }
    if (min == 0)
        min = max;
    const char *umin, *umax, *u;
    pprof__scale(min, s.sample_unit, "minimum", &umin);
    pprof__scale(max, s.sample_unit, "minimum", &umax);
    u = umin;
    if (strcmp(umin, umax) && (double)min * 100 < (double)max)
        pprof__scale(100 * min, s.sample_unit, "minimum", &u);
    return *u ? u : s.sample_unit;
}

static void
signed_label(char *dst, size_t cap, int64_t v, const char *from, const char *to)
{
    size_t plus = v > 0 && cap > 1;
    if (plus)
        dst[0] = '+';
    pprof__scaled_label(dst + plus, cap - plus, v, from, to);
}

/* delta as a percentage of total, signed: "+1.25%". */
static void
signed_pct(char *dst, size_t cap, int64_t delta, int64_t total)
{
    if (total == 0) {
        snprintf(dst, cap, "%s", delta ? "inf" : "0%");
        return;
    }
    snprintf(dst, cap, "%+.2f%%", (double)delta / fabs((double)total) * 100);
}

static pprof_status
print_text(const pprof_diff *d, size_t n, pprof_buffer *b)
{
    pprof_diff_summary s = pprof_diff_get_summary(d);
    /* the type and an unknown unit (printed after each value) escaped, as names are */
    char u[256], su[256], type[256];
    pprof__text_escape_cstr(u, sizeof(u), diff_unit(d, n));
    pprof__text_escape_cstr(su, sizeof(su), s.sample_unit);
    pprof__text_escape_cstr(type, sizeof(type), s.sample_type);
    char t1[64], t2[64], t3[64], t4[64], t5[64], t6[64], p1[32], p2[32];
    pprof__scaled_label(t1, sizeof(t1), s.base_total, su, u);
    pprof__scaled_label(t2, sizeof(t2), s.new_total, su, u);
    signed_label(t3, sizeof(t3), s.new_total - s.base_total, su, u);
    signed_pct(p1, sizeof(p1), s.new_total - s.base_total, s.base_total);
    pprof_status st = pprof__buffer_printf(b,
                                           "Type: %s\nBase total: %s, new total: %s, "
                                           "delta: %s (%s)\nShowing %zu of %zu nodes, by the "
                                           "largest change of flat or cum; delta%% is of the base "
                                           "total\n",
                                           type, t1, t2, t3, p1, n, pprof_diff_count(d));
    if (!st)
        st = pprof__buffer_printf(b, "%10s %10s %10s %8s %10s %10s %10s %8s  %s\n", "base flat",
                                  "new flat", "delta", "delta%", "base cum", "new cum", "delta",
                                  "delta%", "name");
    for (size_t i = 0; i < n && !st; i++) {
        pprof_diff_node x = pprof_diff_node_at(d, i);
        pprof__scaled_label(t1, sizeof(t1), x.base_flat, su, u);
        pprof__scaled_label(t2, sizeof(t2), x.new_flat, su, u);
        signed_label(t3, sizeof(t3), x.new_flat - x.base_flat, su, u);
        signed_pct(p1, sizeof(p1), x.new_flat - x.base_flat, s.base_total);
        pprof__scaled_label(t4, sizeof(t4), x.base_cum, su, u);
        pprof__scaled_label(t5, sizeof(t5), x.new_cum, su, u);
        signed_label(t6, sizeof(t6), x.new_cum - x.base_cum, su, u);
        signed_pct(p2, sizeof(p2), x.new_cum - x.base_cum, s.base_total);
        st = pprof__buffer_printf(b, "%10s %10s %10s %8s %10s %10s %10s %8s  ", t1, t2, t3, p1, t4,
                                  t5, t6, p2);
        if (!st)
            st = pprof__text_escape(b, x.name, x.name_len);
        if (!st)
            st = pprof__buffer_append(b, "\n", 1);
    }
    return st;
}

static pprof_status
print_json(const pprof_diff *d, size_t n, pprof_buffer *b)
{
    pprof_diff_summary s = pprof_diff_get_summary(d);
    pprof_status st = pprof__buffer_printf(b, "{\"sample_type\":");
    if (!st)
        st = pprof__json_string(b, s.sample_type, strlen(s.sample_type));
    if (!st)
        st = pprof__buffer_printf(b, ",\"unit\":");
    if (!st)
        st = pprof__json_string(b, s.sample_unit, strlen(s.sample_unit));
    if (!st)
        st = pprof__buffer_printf(b,
                                  ",\"base_total\":%" PRId64 ",\"new_total\":%" PRId64
                                  ",\"nodes_total\":%zu,\"nodes\":[",
                                  s.base_total, s.new_total, pprof_diff_count(d));
    for (size_t i = 0; i < n && !st; i++) {
        pprof_diff_node x = pprof_diff_node_at(d, i);
        st = pprof__buffer_printf(b, "%s\n{\"name\":", i ? "," : "");
        if (!st)
            st = pprof__json_string(b, x.name, x.name_len);
        if (!st)
            st = pprof__buffer_printf(b,
                                      ",\"base_flat\":%" PRId64 ",\"new_flat\":%" PRId64
                                      ",\"delta_flat\":%" PRId64 ",\"base_cum\":%" PRId64
                                      ",\"new_cum\":%" PRId64 ",\"delta_cum\":%" PRId64 "}",
                                      x.base_flat, x.new_flat, x.new_flat - x.base_flat, x.base_cum,
                                      x.new_cum, x.new_cum - x.base_cum);
    }
    if (!st)
        st = pprof__buffer_printf(b, "]}\n");
    return st;
}

pprof_status
pprof_diff_print(const pprof_diff *d, size_t n, pprof_print_format format, pprof_buffer *out,
                 pprof_error *err)
{
    if (!d || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no diff or no output");
    if (n == 0 || n > pprof_diff_count(d))
        n = pprof_diff_count(d);
    pprof_status st = format == PPROF_PRINT_JSON ? print_json(d, n, out) : print_text(d, n, out);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory printing the diff");
    return PPROF_OK;
}

/* ---- rules */

typedef enum subject { SUBJ_TOTAL, SUBJ_FLAT, SUBJ_CUM } subject;
typedef enum measure { MEAS_PCT, MEAS_PP, MEAS_ABS } measure;

struct pprof_diff_rule {
    pprof_allocator a;
    char *text;
    subject subj;
    pprof__regex *rx; /* NULL for 'total' */
    bool greater, or_equal;
    double threshold;
    measure meas;
};

static pprof_status
rule_error(pprof_error *err, const char *text, size_t at, const char *what)
{
    return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "rule '%s': %s at character %zu",
                        text, what, at + 1);
}

/* Parses OP CHANGE starting at the operator. */
static pprof_status
parse_change(pprof_diff_rule *r, const char *text, size_t op, pprof_error *err)
{
    const char *s = text + op;
    r->greater = *s == '>';
    s++;
    if (*s == '=') {
        r->or_equal = true;
        s++;
    }
    while (*s == ' ')
        s++;
    char *end;
    if (!((*s >= '0' && *s <= '9') || *s == '+' || *s == '-' || *s == '.'))
        return rule_error(err, text, (size_t)(s - text), "expected a number after the operator");
    r->threshold = strtod(s, &end);
    if (end == s || !isfinite(r->threshold))
        return rule_error(err, text, (size_t)(s - text), "expected a number after the operator");
    s = end;
    if (*s == '%') {
        r->meas = MEAS_PCT;
        s++;
    } else if (s[0] == 'p' && s[1] == 'p') {
        r->meas = MEAS_PP;
        s += 2;
    } else {
        r->meas = MEAS_ABS;
    }
    while (*s == ' ')
        s++;
    if (*s)
        return rule_error(err, text, (size_t)(s - text), "expected '%', 'pp' or the end");
    return PPROF_OK;
}

static pprof_status
parse_subject(pprof_diff_rule *r, const char *text, size_t op, pprof_error *err)
{
    size_t b = 0, e = op;
    while (b < e && text[b] == ' ')
        b++;
    while (e > b && text[e - 1] == ' ')
        e--;
    if (e - b == 5 && !memcmp(text + b, "total", 5)) {
        r->subj = SUBJ_TOTAL;
        return PPROF_OK;
    }
    size_t k;
    if (e - b > 5 && !memcmp(text + b, "flat:", 5)) {
        r->subj = SUBJ_FLAT;
        k = b + 5;
    } else if (e - b > 4 && !memcmp(text + b, "cum:", 4)) {
        r->subj = SUBJ_CUM;
        k = b + 4;
    } else {
        return rule_error(err, text, b, "expected 'total', 'flat:REGEX' or 'cum:REGEX'");
    }
    size_t n = op - k;
    while (n > 0 && text[k + n - 1] == ' ')
        n--;
    const char *why = NULL;
    int rc = pprof__re2_check(text + k, n, &why);
    if (rc < 0)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    if (rc) {
        char msg[160];
        snprintf(msg, sizeof(msg), "not a valid Go regular expression (%s)", why ? why : "refused");
        return rule_error(err, text, k, msg);
    }
    return pprof__regex_new(text + k, n, "fail-if", &r->a, &r->rx, err);
}

pprof_status
pprof_diff_rule_parse(const char *text, const pprof_allocator *allocator, pprof_diff_rule **out,
                      pprof_error *err)
{
    if (!text || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no rule or no output");
    *out = NULL;
    pprof_allocator a = {0};
    if (allocator)
        a = *allocator;
    size_t len = strlen(text), op = len;
    /* the operator is the last '<' or '>': CHANGE has neither, REGEX may */
    for (size_t i = len; i-- > 0;)
        if (text[i] == '<' || text[i] == '>') {
            op = i;
            break;
        }
    if (op == len)
        return rule_error(err, text, len, "expected an operator ('>', '>=', '<', '<=')");
    pprof_diff_rule *r = pprof__malloc(&a, sizeof(*r) + len + 1);
    if (!r)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(r, 0, sizeof(*r));
    r->a = a;
    r->text = (char *)(r + 1);
    memcpy(r->text, text, len + 1);
    pprof_status st = parse_subject(r, text, op, err);
    if (!st)
        st = parse_change(r, text, op, err);
    if (st) {
        pprof_diff_rule_free(r);
        return st;
    }
    *out = r;
    return PPROF_OK;
}

void
pprof_diff_rule_free(pprof_diff_rule *r)
{
    if (!r)
        return;
    pprof__regex_free(r->rx);
    pprof_allocator a = r->a;
    pprof__free(&a, r);
}

/* The change in the rule's measure. */
static double
measured(const pprof_diff_rule *r, int64_t base, int64_t cur, int64_t base_total)
{
    double delta = (double)cur - (double)base;
    switch (r->meas) {
    case MEAS_PCT:
        if (base == 0)
            return delta > 0 ? INFINITY : delta < 0 ? -INFINITY : 0;
        return delta / fabs((double)base) * 100;
    case MEAS_PP:
        if (base_total == 0)
            return delta > 0 ? INFINITY : delta < 0 ? -INFINITY : 0;
        return delta / fabs((double)base_total) * 100;
    case MEAS_ABS: break;
    }
    return delta;
}

static bool
fires(const pprof_diff_rule *r, double m)
{
    if (r->greater)
        return r->or_equal ? m >= r->threshold : m > r->threshold;
    return r->or_equal ? m <= r->threshold : m < r->threshold;
}

static pprof_status
report_firing(const pprof_diff_rule *r, const pprof_diff_summary *s, const char *what,
              const char *name, size_t name_len, int64_t base, int64_t cur, double m,
              pprof_buffer *msg)
{
    if (!msg)
        return PPROF_OK;
    static const char *const unit[] = {"%", "pp", ""};
    pprof_status st = pprof__buffer_printf(msg, "rule '%s' fired: %s", r->text, what);
    if (!st && name) {
        st = pprof__buffer_append(msg, " of ", 4);
        if (!st)
            st = pprof__buffer_append(msg, name, name_len);
    }
    if (!st)
        st = pprof__buffer_printf(
            msg, " went from %" PRId64 " to %" PRId64 " %s (%+.2f%s, limit %s%g%s)\n", base, cur,
            s->sample_unit, m, unit[r->meas],
            r->greater ? (r->or_equal ? ">=" : ">") : (r->or_equal ? "<=" : "<"), r->threshold,
            unit[r->meas]);
    return st;
}

pprof_status
pprof_diff_rule_eval(const pprof_diff_rule *r, const pprof_diff *d, pprof_buffer *msg,
                     size_t *fired, pprof_error *err)
{
    if (!r || !d || !fired)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no rule, diff or output");
    *fired = 0;
    pprof_diff_summary s = pprof_diff_get_summary(d);
    pprof_status st = PPROF_OK;
    if (r->subj == SUBJ_TOTAL) {
        double m = measured(r, s.base_total, s.new_total, s.base_total);
        if (fires(r, m)) {
            ++*fired;
            st = report_firing(r, &s, "total", NULL, 0, s.base_total, s.new_total, m, msg);
        }
    } else {
        for (size_t i = 0; i < pprof_diff_count(d) && !st; i++) {
            pprof_diff_node x = pprof_diff_node_at(d, i);
            int hit = pprof__regex_match(r->rx, x.name, x.name_len);
            if (hit < 0)
                st = PPROF_E_NOMEM;
            if (hit != 1)
                continue;
            int64_t base = r->subj == SUBJ_FLAT ? x.base_flat : x.base_cum;
            int64_t cur = r->subj == SUBJ_FLAT ? x.new_flat : x.new_cum;
            double m = measured(r, base, cur, s.base_total);
            if (!fires(r, m))
                continue;
            ++*fired;
            st = report_firing(r, &s, r->subj == SUBJ_FLAT ? "flat" : "cum", x.name, x.name_len,
                               base, cur, m, msg);
        }
    }
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return PPROF_OK;
}
