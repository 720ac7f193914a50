/* Readable listings: text in the spirit of `go tool pprof -raw`, and a complete JSON view. */
#include <inttypes.h>
#include <stdio.h>

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

static void
print_text(out *o, const pprof_profile *p)
{
    pprof_header h = pprof_profile_header(p);
    P(o, "PeriodType: ");
    text_sidx(o, p, h.period_type.type);
    P(o, " ");
    text_sidx(o, p, h.period_type.unit);
    P(o, "\nPeriod: %" PRId64 "\nTime: %" PRId64 "\nDuration: %" PRId64 "\n", h.period,
      h.time_nanos, h.duration_nanos);
    for (size_t i = 0; i < h.n_comment; i++) {
        P(o, "Comment: ");
        text_sidx(o, p, h.comment[i]);
        P(o, "\n");
    }
    if (h.drop_frames || h.keep_frames) {
        P(o, "DropFrames: ");
        text_sidx(o, p, h.drop_frames);
        P(o, "\nKeepFrames: ");
        text_sidx(o, p, h.keep_frames);
        P(o, "\n");
    }
    if (h.default_sample_type) {
        P(o, "DefaultSampleType: ");
        text_sidx(o, p, h.default_sample_type);
        P(o, "\n");
    }
    P(o, "Samples:\n");
    for (size_t i = 0; i < p->sample_types.len; i++) {
        pprof_value_type vt = pprof_profile_sample_type(p, i);
        P(o, "%s", i ? " " : "");
        text_sidx(o, p, vt.type);
        P(o, "/");
        text_sidx(o, p, vt.unit);
    }
    P(o, "\n");
    for (size_t i = 0; i < p->samples.len && o->st == PPROF_OK; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        for (size_t j = 0; j < s.n_value; j++)
            P(o, "%10" PRId64 " ", s.value[j]);
        P(o, ":");
        for (size_t j = 0; j < s.n_location_id; j++)
            P(o, " %" PRIu64, s.location_id[j]);
        P(o, "\n");
        for (size_t j = 0; j < s.n_label; j++) {
            const pprof_label *l = &s.label[j];
            P(o, "                ");
            text_sidx(o, p, l->key);
            if (l->str) {
                P(o, ":[");
                text_sidx(o, p, l->str);
                P(o, "]");
            } else {
                P(o, ":[%" PRId64, l->num);
                if (l->num_unit) {
                    P(o, " ");
                    text_sidx(o, p, l->num_unit);
                }
                P(o, "]");
            }
            P(o, "\n");
        }
    }
    P(o, "Locations\n");
    for (size_t i = 0; i < p->locations.len && o->st == PPROF_OK; i++) {
        pprof_location l = pprof_profile_location(p, i);
        P(o, "%6" PRIu64 ": %#" PRIx64 " M=%" PRIu64 "%s", l.id, l.address, l.mapping_id,
          l.is_folded ? " [folded]" : "");
        for (size_t j = 0; j < l.n_line; j++) {
            size_t fi;
            P(o, "%s", j ? "\n                   " : " ");
            if (pprof_profile_find_function(p, l.line[j].function_id, &fi)) {
                pprof_function f = pprof_profile_function(p, fi);
                text_sidx(o, p, f.name);
                P(o, " ");
                text_sidx(o, p, f.filename);
                P(o, ":%" PRId64, l.line[j].line);
                if (l.line[j].column)
                    P(o, ":%" PRId64, l.line[j].column);
                P(o, " s=%" PRId64, f.start_line);
            } else {
                P(o, "<function %" PRIu64 " missing>:%" PRId64, l.line[j].function_id,
                  l.line[j].line);
            }
        }
        P(o, "\n");
    }
    P(o, "Mappings\n");
    for (size_t i = 0; i < p->mappings.len; i++) {
        pprof_mapping m = pprof_profile_mapping(p, i);
        P(o, "%" PRIu64 ": %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64 " ", m.id, m.memory_start,
          m.memory_limit, m.file_offset);
        text_sidx(o, p, m.filename);
        P(o, " ");
        text_sidx(o, p, m.build_id);
        P(o, "%s%s%s%s\n", m.has_functions ? " [FN]" : "", m.has_filenames ? "[FL]" : "",
          m.has_line_numbers ? "[LN]" : "", m.has_inline_frames ? "[IN]" : "");
    }
}

pprof_status
pprof_profile_print(const pprof_profile *p, pprof_print_format format, pprof_buffer *b,
                    pprof_error *err)
{
    if (!p || !b)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    out o = {b, PPROF_OK};
    if (format == PPROF_PRINT_JSON)
        print_json(&o, p);
    else
        print_text(&o, p);
    if (o.st)
        return pprof__error(err, o.st, PPROF_NO_OFFSET, "", "out of memory");
    return PPROF_OK;
}
