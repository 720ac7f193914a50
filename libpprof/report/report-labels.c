/* The header lines every report starts with (report.ProfileLabels, legendActiveFilters), the
 * report total (report.computeTotal) and the context shared by the rendered reports. */
#include <stdio.h>
#include <time.h>

#include "report-graph-private.h"
#include "text-private.h"

pprof_status
pprof__lines_add(pprof__lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !pprof__buffer_reserve(&l->b, (size_t)n + 1))
        return PPROF_E_NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)l->b.data + l->b.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    l->b.len += (size_t)n + 1;
    l->n++;
    return PPROF_OK;
}

const char *
pprof__lines_next(const pprof__lines *l, size_t *pos)
{
    if (*pos >= l->b.len)
        return NULL;
    const char *s = (const char *)l->b.data + *pos;
    *pos += strlen(s) + 1;
    return s;
}

void
pprof__lines_free(pprof__lines *l)
{
    pprof_buffer_free(&l->b);
    l->n = 0;
}

/* A line of prefix and a profile string, escaped (a comment holding a newline stays one line). */
static pprof_status
lines_add_text(pprof__lines *l, const char *prefix, const char *s, size_t n)
{
    pprof_buffer b = {0};
    pprof_status st = pprof__text_escape(&b, s, n);
    if (!st)
        st = pprof__lines_add(l, "%s%.*s", prefix, (int)b.len, b.len ? (const char *)b.data : "");
    pprof_buffer_free(&b);
    return st;
}

/* time.Format "Jan 2, 2006 at 3:04pm (MST)" in the local zone. */
static void
go_time(char *dst, size_t cap, int64_t nanos)
{
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)(nanos / 1000000000);
    if (nanos < 0 && nanos % 1000000000)
        t--;
    struct tm tm;
    if (!localtime_r(&t, &tm)) {
        snprintf(dst, cap, "?");
        return;
    }
    char zone[16];
    strftime(zone, sizeof(zone), "%Z", &tm);
    int h = tm.tm_hour % 12;
    snprintf(dst, cap, "%s %d, %d at %d:%02d%s (%s)", mon[tm.tm_mon], tm.tm_mday, tm.tm_year + 1900,
             h ? h : 12, tm.tm_min, tm.tm_hour < 12 ? "am" : "pm", zone);
}

pprof_status
pprof__profile_labels(const pprof_profile *p, const char *type, int64_t total,
                      const char *sample_unit, const char *output_unit, pprof__lines *out)
{
    pprof_status st = PPROF_OK;
    if (p->mappings.len) {
        /* the first mapping as stored: Go guesses the main binary only for legacy formats */
        const pprof_mapping *m = &PPROF__AT(p->mappings, pprof_mapping, 0);
        pprof_string f = {"", 0}, b = {"", 0};
        pprof_profile_string(p, m->filename, &f);
        pprof_profile_string(p, m->build_id, &b);
        if (f.len) {
            size_t n = f.len;
            while (n > 1 && f.data[n - 1] == '/')
                n--;
            size_t s = n;
            while (s > 0 && f.data[s - 1] != '/')
                s--;
            if (n == 1 && f.data[0] == '/')
                s = 0;
            st = lines_add_text(out, "File: ", f.data + s, n - s);
        }
        if (!st && b.len)
            st = lines_add_text(out, "Build ID: ", b.data, b.len);
    }
    pprof_header h = pprof_profile_header(p);
    for (size_t i = 0; i < h.n_comment && !st; i++) {
        pprof_string c = {"", 0};
        pprof_profile_string(p, h.comment[i], &c);
        if (!c.len || c.data[0] != '#')
            st = lines_add_text(out, "", c.data, c.len);
    }
    if (!st && *type)
        st = lines_add_text(out, "Type: ", type, strlen(type));
    if (!st && h.time_nanos) {
        char t[96];
        go_time(t, sizeof(t), h.time_nanos);
        st = pprof__lines_add(out, "Time: %s", t);
    }
    if (!st && h.duration_nanos) {
        char d[64], tot[64], pct[40] = "", ratio[48] = "";
        pprof__scaled_label(d, sizeof(d), h.duration_nanos, "nanoseconds", "auto");
        pprof__scaled_label(tot, sizeof(tot), total, sample_unit, output_unit);
        const char *u;
        double ns = pprof__scale(total, sample_unit, "nanoseconds", &u);
        if (!strcmp(u, "ns") && ns != 0) {
            pprof__percentage(pct, sizeof(pct), (int64_t)ns, h.duration_nanos);
            snprintf(ratio, sizeof(ratio), "(%s)", pct);
        }
        char line[256]; /* tot carries the sample unit when it is no known one */
        snprintf(line, sizeof(line), "Duration: %s, Total samples = %s %s", d, tot, ratio);
        st = lines_add_text(out, "", line, strlen(line));
    }
    return st;
}

pprof_status
pprof__filter_labels(const char *const *f, size_t n, pprof__lines *out)
{
    pprof_status st = n ? pprof__lines_add(out, "Active filters:") : PPROF_OK;
    for (size_t i = 0; i < n && !st; i++) {
        size_t len = strlen(f[i]);
        st = len > 80 ? pprof__lines_add(out, "   %.80s\xe2\x80\xa6", f[i])
                      : pprof__lines_add(out, "   %s", f[i]);
    }
    return st;
}

int64_t
pprof__report_total(const pprof_profile *u, size_t index, bool mean)
{
    int64_t all = 0, base = 0, div = 0, base_div = 0;
    for (size_t i = 0; i < u->samples.len; i++) {
        const pprof__sample *s = &PPROF__AT(u->samples, pprof__sample, i);
        if (index >= s->n_val)
            continue;
        int64_t v = PPROF__AT(u->values, int64_t, s->val_off + index);
        int64_t d = pprof__mean_divisor(u, s, mean);
        v = v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
        all = pprof__add64(all, v);
        div = pprof__add64(div, d);
        if ((v || d) && s->n_lab && pprof__is_base_sample(u, s)) {
            base = pprof__add64(base, v);
            base_div = pprof__add64(base_div, d);
        }
    }
    if (base > 0) {
        all = base;
        div = base_div;
    }
    return div ? pprof__div64(all, div) : all;
}

void
pprof__rctx_value(const pprof__rctx *c, char *dst, size_t cap, int64_t v)
{
    pprof__scaled_label(dst, cap, v, c->unit, c->output_unit);
}
