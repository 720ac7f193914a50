/* Time slices (time_from, time_to) and drop_timestamps: the samples' numeric label
 * "timestamp_unix_nano" that pprof-from-perf --timestamps, the JFR and OTLP readers write. */
#include <stdio.h>

#include "edit-private.h"

#define ED_TIME_KEY "timestamp_unix_nano"
#define NS_PER_S INT64_C(1000000000)

/* Digits [.digits] as nanoseconds (digits past the ninth decimal are cut). */
static bool
parse_seconds(const char *s, int64_t *out)
{
    int64_t sec = 0, ns = 0;
    size_t i = 0, nd = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++, nd++) {
        if (sec > (INT64_MAX / NS_PER_S - 9) / 10)
            return false;
        sec = sec * 10 + (s[i] - '0');
    }
    if (s[i] == '.') {
        int64_t scale = NS_PER_S / 10;
        for (i++; s[i] >= '0' && s[i] <= '9'; i++, nd++) {
            ns += (s[i] - '0') * scale;
            scale /= 10;
        }
    }
    if (!nd || s[i])
        return false;
    *out = sec * NS_PER_S + ns;
    return true;
}

static bool
digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" (RFC 3339 section 5.6; 't', 'z' and a space
 * for 'T' too) as nanoseconds since the Unix epoch; false past int64. */
static bool
parse_rfc3339(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &se))
        return false;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
        h > 23 || mi > 59 || se > 60)
        return false;
    const char *p = s + 19;
    int64_t frac = 0;
    if (*p == '.') {
        int64_t scale = NS_PER_S / 10;
        const char *q = ++p;
        for (; *p >= '0' && *p <= '9'; p++) {
            frac += (*p - '0') * scale;
            scale /= 10;
        }
        if (p == q)
            return false;
    }
    int64_t off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
            return false;
        off = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return false;
    }
    if (*p)
        return false;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    if (secs > INT64_MAX / NS_PER_S - 1 || secs < INT64_MIN / NS_PER_S + 1)
        return false;
    *out = secs * NS_PER_S + frac;
    return true;
}

static pprof_status
parse_bound(pprof__ed *e, const char *name, const char *v, ed_time_bound *b)
{
    b->set = v && *v;
    if (!b->set)
        return PPROF_OK;
    if (parse_rfc3339(v, &b->ns)) {
        b->relative = false;
        return PPROF_OK;
    }
    if (parse_seconds(v, &b->ns)) {
        b->relative = true;
        return PPROF_OK;
    }
    return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                "%s: '%.80s' is neither an RFC 3339 time "
                                "(2026-12-07T10:00:00.5Z) nor seconds from the first sample (1.5)",
                                name, v);
}

pprof_status
ed_time_options(pprof__ed *e)
{
    if (parse_bound(e, "time_from", e->o.time_from, &e->t_from) ||
        parse_bound(e, "time_to", e->o.time_to, &e->t_to))
        return e->st;
    return PPROF_OK;
}

static bool
is_time_key(const pprof__ed *e, const pprof_label *l)
{
    if (l->str)
        return false;
    pprof_string k = ed_str(e, l->key);
    return k.len == sizeof(ED_TIME_KEY) - 1 && !memcmp(k.data, ED_TIME_KEY, k.len);
}

/* The sample's time: its first timestamp label; false without one. */
static bool
sample_time(const pprof__ed *e, const pprof__sample *s, int64_t *t)
{
    const pprof_label *l = ed_ptr(e->w->labels.data, sizeof(pprof_label), s->lab_off);
    for (uint32_t j = 0; j < s->n_lab; j++)
        if (is_time_key(e, &l[j])) {
            *t = l[j].num;
            return true;
        }
    return false;
}

pprof_status
ed_time_first(pprof__ed *e)
{
    const pprof__sample *ss = ed_samples(e);
    for (size_t i = 0; i < e->w->samples.len; i++) {
        int64_t t;
        if (sample_time(e, &ss[i], &t) && (!e->t_seen || t < e->t_first)) {
            e->t_first = t;
            e->t_seen = true;
        }
    }
    return e->st;
}

static int64_t
resolve(const pprof__ed *e, const ed_time_bound *b)
{
    if (!b->relative)
        return b->ns;
    return e->t_first > INT64_MAX - b->ns ? INT64_MAX : e->t_first + b->ns;
}

pprof_status
ed_time_resolve(pprof__ed *e)
{
    if (!e->t_seen)
        return e->st = pprof__error(e->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                    "time_from/time_to: no sample has a %s label (record with "
                                    "pprof-from-perf --timestamps)",
                                    ED_TIME_KEY);
    e->t_lo = e->t_from.set ? resolve(e, &e->t_from) : INT64_MIN;
    e->t_hi = e->t_to.set ? resolve(e, &e->t_to) : INT64_MAX;
    return PPROF_OK;
}

pprof_status
ed_time_range(pprof__ed *e)
{
    pprof__sample *ss = ed_samples(e);
    size_t out = 0;
    for (size_t i = 0; i < e->w->samples.len; i++) {
        int64_t t;
        if (sample_time(e, &ss[i], &t) && t >= e->t_lo && (t < e->t_hi || e->t_hi == INT64_MAX))
            ss[out++] = ss[i];
    }
    e->w->samples.len = out;
    return e->st;
}

pprof_status
ed_drop_timestamps(pprof__ed *e)
{
    pprof_label *tmp = NULL;
    size_t cap = 0;
    for (size_t i = 0; !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        const pprof_label *l = ed_ptr(e->w->labels.data, sizeof(pprof_label), s->lab_off);
        uint32_t keep = 0, j;
        for (j = 0; j < s->n_lab && !is_time_key(e, &l[j]); j++)
            ;
        if (j == s->n_lab)
            continue;
        if (s->n_lab > cap) {
            pprof_label *n = pprof__realloc(e->a, tmp, s->n_lab * sizeof(*tmp));
            if (!n) {
                ed_nomem(e);
                break;
            }
            tmp = n;
            cap = s->n_lab;
        }
        for (j = 0; j < s->n_lab; j++)
            if (!is_time_key(e, &l[j]))
                tmp[keep++] = l[j];
        ed_set_labels(e, s, tmp, keep);
    }
    pprof__free(e->a, tmp);
    return e->st;
}
