/* Readable listings: text in the spirit of `go tool pprof -raw`, and a complete JSON view. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile-private.h"
#include "text-private.h"

typedef struct out {
    pprof_buffer *b;
    pprof_status st;
} out;

#define P(o, ...)                                                                                  \
    do {                                                                                           \
        if ((o)->st == PPROF_OK)                                                                   \
            (o)->st = pprof__buffer_printf((o)->b, __VA_ARGS__);                                   \
    } while (0)

static void
raw(out *o, const void *d, size_t n)
{
    if (o->st == PPROF_OK)
        o->st = pprof__buffer_append(o->b, d, n);
}

/* A JSON string, quoted as every JSON output of the library (common/json.c). */
static void
json_str(out *o, const char *s, size_t n)
{
    if (o->st == PPROF_OK)
        o->st = pprof__json_string(o->b, s, n);
}

static void
json_sidx(out *o, const pprof_profile *p, int64_t idx)
{
    pprof_string s;
    if (pprof__str(p, idx, &s))
        json_str(o, s.data, s.len);
    else if (idx == 0)
        raw(o, "\"\"", 2);
    else
        raw(o, "null", 4);
}

static void
print_json(out *o, const pprof_profile *p)
{
    pprof_header h = pprof_profile_header(p);
    P(o, "{\n  \"sample_type\": [");
    for (size_t i = 0; i < p->sample_types.len; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        P(o, "%s{\"type\": ", i ? ", " : "");
        json_sidx(o, p, vt.type);
        P(o, ", \"unit\": ");
        json_sidx(o, p, vt.unit);
        P(o, "}");
    }
    P(o, "],\n  \"period_type\": {\"type\": ");
    json_sidx(o, p, h.period_type.type);
    P(o, ", \"unit\": ");
    json_sidx(o, p, h.period_type.unit);
    P(o,
      "},\n  \"period\": %" PRId64 ",\n  \"time_nanos\": %" PRId64
      ",\n  \"duration_nanos\": %" PRId64 ",\n  \"drop_frames\": ",
      h.period, h.time_nanos, h.duration_nanos);
    json_sidx(o, p, h.drop_frames);
    P(o, ",\n  \"keep_frames\": ");
    json_sidx(o, p, h.keep_frames);
    P(o, ",\n  \"default_sample_type\": ");
    json_sidx(o, p, h.default_sample_type);
    P(o, ",\n  \"doc_url\": ");
    json_sidx(o, p, h.doc_url);
    P(o, ",\n  \"comment\": [");
    for (size_t i = 0; i < h.n_comment; i++) {
        if (i)
            P(o, ", ");
        json_sidx(o, p, h.comment[i]);
    }
    P(o, "],\n  \"sample\": [");
    for (size_t i = 0; i < p->samples.len && o->st == PPROF_OK; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        P(o, "%s\n    {\"location_id\": [", i ? "," : "");
        for (size_t j = 0; j < s.n_location_id; j++)
            P(o, "%s%" PRIu64, j ? ", " : "", s.location_id[j]);
        P(o, "], \"value\": [");
        for (size_t j = 0; j < s.n_value; j++)
            P(o, "%s%" PRId64, j ? ", " : "", s.value[j]);
        P(o, "], \"label\": [");
        for (size_t j = 0; j < s.n_label; j++) {
            const pprof_label *l = &s.label[j];
            P(o, "%s{\"key\": ", j ? ", " : "");
            json_sidx(o, p, l->key);
            P(o, ", \"str\": ");
            json_sidx(o, p, l->str);
            P(o, ", \"num\": %" PRId64 ", \"num_unit\": ", l->num);
            json_sidx(o, p, l->num_unit);
            P(o, "}");
        }
        P(o, "]}");
    }
    P(o, "\n  ],\n  \"mapping\": [");
    for (size_t i = 0; i < p->mappings.len; i++) {
        pprof_mapping m = pprof_profile_mapping(p, i);
        P(o,
          "%s\n    {\"id\": %" PRIu64 ", \"memory_start\": %" PRIu64 ", \"memory_limit\": %" PRIu64
          ", \"file_offset\": %" PRIu64 ", \"filename\": ",
          i ? "," : "", m.id, m.memory_start, m.memory_limit, m.file_offset);
        json_sidx(o, p, m.filename);
        P(o, ", \"build_id\": ");
        json_sidx(o, p, m.build_id);
        P(o,
          ", \"has_functions\": %s, \"has_filenames\": %s, \"has_line_numbers\": %s, "
          "\"has_inline_frames\": %s}",
          m.has_functions ? "true" : "false", m.has_filenames ? "true" : "false",
          m.has_line_numbers ? "true" : "false", m.has_inline_frames ? "true" : "false");
    }
    P(o, "\n  ],\n  \"location\": [");
    for (size_t i = 0; i < p->locations.len && o->st == PPROF_OK; i++) {
        pprof_location l = pprof_profile_location(p, i);
        P(o,
          "%s\n    {\"id\": %" PRIu64 ", \"mapping_id\": %" PRIu64 ", \"address\": %" PRIu64
          ", \"is_folded\": %s, \"line\": [",
          i ? "," : "", l.id, l.mapping_id, l.address, l.is_folded ? "true" : "false");
        for (size_t j = 0; j < l.n_line; j++)
            P(o, "%s{\"function_id\": %" PRIu64 ", \"line\": %" PRId64 ", \"column\": %" PRId64 "}",
              j ? ", " : "", l.line[j].function_id, l.line[j].line, l.line[j].column);
        P(o, "]}");
    }
    P(o, "\n  ],\n  \"function\": [");
    for (size_t i = 0; i < p->functions.len; i++) {
        pprof_function f = pprof_profile_function(p, i);
        P(o, "%s\n    {\"id\": %" PRIu64 ", \"name\": ", i ? "," : "", f.id);
        json_sidx(o, p, f.name);
        P(o, ", \"system_name\": ");
        json_sidx(o, p, f.system_name);
        P(o, ", \"filename\": ");
        json_sidx(o, p, f.filename);
        P(o, ", \"start_line\": %" PRId64 "}", f.start_line);
    }
    P(o, "\n  ],\n  \"string_table\": [");
    for (size_t i = 0; i < p->strings.len && o->st == PPROF_OK; i++) {
        P(o, "%s\n    ", i ? "," : "");
        const pprof_string *s = &PPROF__AT(p->strings, pprof_string, i);
        json_str(o, s->data, s->len);
    }
    P(o, "\n  ]\n}\n");
}

/* Text: a string shown as itself (control characters escaped, so that each record stays on its
 * line), or as <bad string N> when the index dangles. */
static void
text_sidx(out *o, const pprof_profile *p, int64_t idx)
{
    pprof_string s;
    if (pprof__str(p, idx, &s)) {
        if (o->st == PPROF_OK)
            o->st = pprof__text_escape(o->b, s.data, s.len);
    } else if (idx != 0)
        P(o, "<bad string %" PRId64 ">", idx);
}

/* Go's %#x: 0 is "0x0" where C's %#x gives "0". */
static void
hex(out *o, uint64_t v)
{
    P(o, "0x%" PRIx64, v);
}

/* Go's time.Duration.String(). */
static size_t
go_duration(char *buf, size_t cap, int64_t d)
{
    uint64_t u = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    char tmp[64];
    size_t n = 0;
    if (u == 0)
        return (size_t)snprintf(buf, cap, "0s");
    if (u < 1000000000) {
        unsigned prec = u < 1000 ? 0 : u < 1000000 ? 3 : 6;
        const char *unit = prec == 0 ? "ns" : prec == 3 ? "\xc2\xb5s" : "ms";
        uint64_t scale = prec == 0 ? 1 : prec == 3 ? 1000 : 1000000;
        n = (size_t)snprintf(tmp, sizeof(tmp), "%s%" PRIu64, d < 0 ? "-" : "", u / scale);
        uint64_t frac = u % scale;
        if (frac) {
            char f[16];
            snprintf(f, sizeof(f), "%0*" PRIu64, (int)prec, frac);
            size_t fl = strlen(f);
            while (fl && f[fl - 1] == '0')
                fl--;
            n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, ".%.*s", (int)fl, f);
        }
        snprintf(tmp + n, sizeof(tmp) - n, "%s", unit);
        return (size_t)snprintf(buf, cap, "%s", tmp);
    }
    uint64_t frac = u % 1000000000, secs = u / 1000000000;
    char f[16] = "";
    if (frac) {
        char g[16];
        snprintf(g, sizeof(g), "%09" PRIu64, frac);
        size_t fl = strlen(g);
        while (fl && g[fl - 1] == '0')
            fl--;
        snprintf(f, sizeof(f), ".%.*s", (int)fl, g);
    }
    uint64_t mins = secs / 60, hours = mins / 60;
    if (hours)
        n = (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64 "h%" PRIu64 "m%" PRIu64 "%ss", hours,
                             mins % 60, secs % 60, f);
    else if (mins)
        n = (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64 "m%" PRIu64 "%ss", mins, secs % 60, f);
    else
        n = (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64 "%ss", secs, f);
    (void)n;
    return (size_t)snprintf(buf, cap, "%s%s", d < 0 ? "-" : "", tmp);
}

/* Go's "%.4v" of a Duration: its String() cut to 4 characters (runes). */
static void
duration4(out *o, int64_t d)
{
    char buf[96];
    go_duration(buf, sizeof(buf), d);
    size_t i = 0;
    for (int runes = 0; buf[i] && runes < 4; runes++)
        for (i++; ((uint8_t)buf[i] & 0xC0) == 0x80; i++)
            ;
    P(o, "%.*s", (int)i, buf);
}

/* Go's time.Time.String() of time.Unix(0, ns) in the local zone (TZ):
 * "2006-01-02 15:04:05.999999999 -0700 MST", trailing zeros of the fraction dropped. */
static void
go_time(out *o, int64_t ns)
{
    int64_t secs = ns / 1000000000, frac = ns % 1000000000;
    if (frac < 0) {
        frac += 1000000000;
        secs--;
    }
    time_t t = (time_t)secs;
    struct tm tm;
    if (!localtime_r(&t, &tm)) {
        P(o, "%" PRId64, ns);
        return;
    }
    P(o, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
      tm.tm_min, tm.tm_sec);
    if (frac) {
        char g[16];
        snprintf(g, sizeof(g), "%09" PRId64, frac);
        size_t fl = strlen(g);
        while (fl && g[fl - 1] == '0')
            fl--;
        P(o, ".%.*s", (int)fl, g);
    }
    long off = tm.tm_gmtoff / 60;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    P(o, " %c%02ld%02ld ", sign, off / 60, off % 60);
    if (tm.tm_zone && tm.tm_zone[0])
        P(o, "%s", tm.tm_zone);
    else
        P(o, "%c%02ld%02ld", sign, off / 60, off % 60);
}

/* Whether two string indices name the same string. */
static bool
same_string(const pprof_profile *p, int64_t a, int64_t b)
{
    pprof_string x, y;
    if (!pprof__str(p, a, &x) || !pprof__str(p, b, &y))
        return a == b;
    return x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len));
}

/* One label group of a sample in Go's form: "key:[v1 v2]" (numbers with their units when
 * every value has one), into its own buffer for sorting. */
typedef struct lgroup {
    pprof_buffer b;
} lgroup;

static int
cmp_group(const void *a, const void *b)
{
    const pprof_buffer *x = &((const lgroup *)a)->b, *y = &((const lgroup *)b)->b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->data, y->data, n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Go's labelsToString (string labels) or numLabelsToString (numeric ones), as read by Go's
 * decoder: a label with neither a string nor a number nor a unit is dropped. */
static void
print_labels(out *o, const pprof_profile *p, const pprof_sample *s, bool numeric)
{
    size_t ng = 0;
    lgroup groups[64];
    bool done[256] = {false};
    size_t nl = s->n_label < 256 ? s->n_label : 256;
    for (size_t i = 0; i < nl && o->st == PPROF_OK; i++) {
        const pprof_label *l = &s->label[i];
        bool is_num = !l->str && (l->num || l->num_unit);
        if (done[i] || (numeric ? !is_num : !l->str) || ng == 64)
            continue;
        /* the group of this key: its values in order; units only when every value has one */
        size_t nv = 0, nu = 0;
        for (size_t j = i; j < nl; j++) {
            const pprof_label *m = &s->label[j];
            bool m_num = !m->str && (m->num || m->num_unit);
            if ((numeric ? m_num : m->str != 0) && same_string(p, m->key, l->key)) {
                nv++;
                nu += numeric && m->num_unit;
            }
        }
        out g = {&groups[ng].b, PPROF_OK};
        memset(&groups[ng].b, 0, sizeof(pprof_buffer));
        ng++;
        text_sidx(&g, p, l->key);
        P(&g, ":[");
        size_t k = 0;
        for (size_t j = i; j < nl; j++) {
            const pprof_label *m = &s->label[j];
            bool m_num = !m->str && (m->num || m->num_unit);
            if (!((numeric ? m_num : m->str != 0) && same_string(p, m->key, l->key)))
                continue;
            done[j] = true;
            P(&g, "%s", k++ ? " " : "");
            if (!numeric) {
                text_sidx(&g, p, m->str);
            } else {
                P(&g, "%" PRId64, m->num);
                if (nu == nv) {
                    P(&g, " ");
                    text_sidx(&g, p, m->num_unit);
                }
            }
        }
        P(&g, "]");
        if (g.st)
            o->st = g.st;
    }
    if (ng) {
        qsort(groups, ng, sizeof(groups[0]), cmp_group);
        P(o, "\n                ");
        for (size_t i = 0; i < ng; i++) {
            P(o, "%s", i ? " " : "");
            raw(o, groups[i].b.data, groups[i].b.len);
        }
    }
    for (size_t i = 0; i < ng; i++)
        pprof_buffer_free(&groups[i].b);
}

/* Exactly Go's Profile.String() (`go tool pprof -raw`), with Go's merge of the input not done:
 * the profile as it is. */
static void
print_text(out *o, const pprof_profile *p)
{
    pprof_header h = pprof_profile_header(p);
    bool first = true;
#define LINE() P(o, "%s", first ? (first = false, "") : "\n")
    for (size_t i = 0; i < h.n_comment; i++) {
        LINE();
        P(o, "Comment: ");
        text_sidx(o, p, h.comment[i]);
    }
    /* Go's decoder gives every profile a period type, an empty one when there is none */
    LINE();
    P(o, "PeriodType: ");
    text_sidx(o, p, h.period_type.type);
    P(o, " ");
    text_sidx(o, p, h.period_type.unit);
    LINE();
    P(o, "Period: %" PRId64, h.period);
    if (h.time_nanos) {
        P(o, "\nTime: ");
        go_time(o, h.time_nanos);
    }
    if (h.duration_nanos) {
        P(o, "\nDuration: ");
        duration4(o, h.duration_nanos);
    }
    P(o, "\nSamples:\n");
    for (size_t i = 0; i < p->sample_types.len; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        P(o, "%s", i ? " " : "");
        text_sidx(o, p, vt.type);
        P(o, "/");
        text_sidx(o, p, vt.unit);
        if (same_string(p, vt.type, h.default_sample_type))
            P(o, "[dflt]");
    }
    bool fake_mapping = p->mappings.len == 0; /* go tool pprof adds one to look up symbols */
    for (size_t i = 0; i < p->samples.len && o->st == PPROF_OK; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        P(o, "\n");
        for (size_t j = 0; j < s.n_value; j++)
            P(o, " %10" PRId64, s.value[j]);
        P(o, ": ");
        for (size_t j = 0; j < s.n_location_id; j++)
            P(o, "%" PRIu64 " ", s.location_id[j]);
        print_labels(o, p, &s, false);
        print_labels(o, p, &s, true);
    }
    P(o, "\nLocations");
    for (size_t i = 0; i < p->locations.len && o->st == PPROF_OK; i++) {
        pprof_location l = pprof_profile_location(p, i);
        P(o, "\n%6" PRIu64 ": ", l.id);
        hex(o, l.address);
        P(o, " ");
        if (fake_mapping)
            P(o, "M=1 ");
        else if (l.mapping_id)
            P(o, "M=%" PRIu64 " ", l.mapping_id);
        if (l.is_folded)
            P(o, "[F] ");
        for (size_t j = 0; j < l.n_line; j++) {
            size_t fi;
            if (j)
                P(o, "\n             ");
            if (l.line[j].function_id &&
                pprof_profile_find_function(p, l.line[j].function_id, &fi)) {
                pprof_function f = pprof_profile_function(p, fi);
                text_sidx(o, p, f.name);
                P(o, " ");
                text_sidx(o, p, f.filename);
                P(o, ":%" PRId64 " s=%" PRId64, l.line[j].line, f.start_line);
                if (!same_string(p, f.name, f.system_name)) {
                    P(o, "(");
                    text_sidx(o, p, f.system_name);
                    P(o, ")");
                }
            } else {
                P(o, "??");
            }
        }
    }
    P(o, "\nMappings");
    if (fake_mapping)
        P(o, "\n1: 0x0/0x0/0x0   ");
    for (size_t i = 0; i < p->mappings.len; i++) {
        pprof_mapping m = pprof_profile_mapping(p, i);
        P(o, "\n%" PRIu64 ": ", m.id);
        hex(o, m.memory_start);
        P(o, "/");
        hex(o, m.memory_limit);
        P(o, "/");
        hex(o, m.file_offset);
        P(o, " ");
        text_sidx(o, p, m.filename);
        P(o, " ");
        text_sidx(o, p, m.build_id);
        P(o, " %s%s%s%s", m.has_functions ? "[FN]" : "", m.has_filenames ? "[FL]" : "",
          m.has_line_numbers ? "[LN]" : "", m.has_inline_frames ? "[IN]" : "");
    }
    P(o, "\n");
#undef LINE
}

pprof_status
pprof_profile_print(const pprof_profile *p, pprof_print_format format, pprof_buffer *b,
                    pprof_error *err)
{
    if (!p || !b)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    out o = {b, PPROF_OK};
    if (format == PPROF_PRINT_GO_RAW) {
        pprof_profile *m = NULL;
        pprof_status st = pprof__go_compact(p, &m, err);
        if (st)
            return st;
        print_text(&o, m);
        pprof_profile_free(m);
    } else if (format == PPROF_PRINT_JSON)
        print_json(&o, p);
    else
        print_text(&o, p);
    if (o.st)
        return pprof__error(err, o.st, PPROF_NO_OFFSET, "", "out of memory");
    return PPROF_OK;
}
