/* The symbolization report: per mapping, where its file was found or why not, and how many of
 * its addresses got frames. Text for people, JSON for programs (the same facts). */
#include <inttypes.h>
#include <stdio.h>

#include "profile-private.h"
#include "symbolize-private.h"

/* Unresolved addresses listed per mapping in the text report; JSON lists them all. */
#define TEXT_MAX_ADDRESSES 32

const char *
pprof__sz_report_str(pprof_symbolize_report *r, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *d = pprof__arena_alloc(&r->arena, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

size_t
pprof_symbolize_report_count(const pprof_symbolize_report *r)
{
    return r ? r->maps.len : 0;
}

pprof_symbolize_mapping
pprof_symbolize_report_mapping(const pprof_symbolize_report *r, size_t i)
{
    pprof_symbolize_mapping none = {0};
    if (!r || i >= r->maps.len)
        return none;
    return PPROF__AT(r->maps, pprof_symbolize_mapping, i);
}

uint64_t
pprof_symbolize_report_unresolved(const pprof_symbolize_report *r)
{
    return r ? r->unresolved : 0;
}

void
pprof_symbolize_report_free(pprof_symbolize_report *r)
{
    if (!r)
        return;
    pprof_allocator a = r->a;
    pprof__free(&a, r->maps.data);
    pprof__arena_destroy(&r->arena);
    pprof__free(&a, r);
}

static pprof_status
print_text(const pprof_symbolize_mapping *m, pprof_buffer *b)
{
    pprof_status st =
        pprof__buffer_printf(b, "mapping %" PRIu64 ": %s%s%s%s: %s\n", m->mapping_id,
                             m->mapping_file[0] ? m->mapping_file : "(no file name)",
                             m->build_id[0] ? " (build ID " : "", m->build_id,
                             m->build_id[0] ? ")" : "", pprof_symbolize_result_name(m->result));
    if (!st && m->file[0])
        st = pprof__buffer_printf(b, "  file: %s%s%s%s\n", m->file, m->found_by[0] ? " (by " : "",
                                  m->found_by, m->found_by[0] ? ")" : "");
    if (!st && m->debug_file[0])
        st = pprof__buffer_printf(b, "  debug file: %s%s%s%s\n", m->debug_file,
                                  m->debug_found_by[0] ? " (by " : "", m->debug_found_by,
                                  m->debug_found_by[0] ? ")" : "");
    if (!st && m->result != PPROF_SYMBOLIZE_NOTHING_TO_DO)
        st = pprof__buffer_printf(
            b, "  addresses: %" PRIu64 " resolved of %" PRIu64 "%s\n", m->resolved, m->addresses,
            m->result == PPROF_SYMBOLIZE_OK && !m->lines ? " (symbols only)" : "");
    if (!st && m->kept)
        st = pprof__buffer_printf(b, "  kept: %" PRIu64 " location(s) already symbolized\n",
                                  m->kept);
    if (!st && m->reason[0])
        st = pprof__buffer_printf(b, "  reason: %s\n", m->reason);
    if (!st && m->n_unresolved) {
        st = pprof__buffer_printf(b, "  unresolved:");
        for (size_t i = 0; !st && i < m->n_unresolved && i < TEXT_MAX_ADDRESSES; i++)
            st = pprof__buffer_printf(b, " 0x%" PRIx64, m->unresolved[i]);
        if (!st && m->n_unresolved > TEXT_MAX_ADDRESSES)
            st = pprof__buffer_printf(b, " ... (%zu more)", m->n_unresolved - TEXT_MAX_ADDRESSES);
        if (!st)
            st = pprof__buffer_printf(b, "\n");
    }
    return st;
}

static pprof_status
json_field(pprof_buffer *b, const char *key, const char *value)
{
    pprof_status st = pprof__buffer_printf(b, ",\"%s\":", key);
    return st ? st : pprof__json_string(b, value, strlen(value));
}

static pprof_status
print_json(const pprof_symbolize_mapping *m, pprof_buffer *b)
{
    pprof_status st = pprof__buffer_printf(b, "{\"mapping_id\":%" PRIu64, m->mapping_id);
    if (!st)
        st = json_field(b, "mapping_file", m->mapping_file);
    if (!st)
        st = json_field(b, "build_id", m->build_id);
    if (!st)
        st = json_field(b, "result", pprof_symbolize_result_name(m->result));
    if (!st)
        st = json_field(b, "file", m->file);
    if (!st)
        st = json_field(b, "found_by", m->found_by);
    if (!st)
        st = json_field(b, "debug_file", m->debug_file);
    if (!st)
        st = json_field(b, "debug_found_by", m->debug_found_by);
    if (!st)
        st = json_field(b, "reason", m->reason);
    if (!st)
        st = pprof__buffer_printf(b,
                                  ",\"dwarf\":%s,\"lines\":%s,\"addresses\":%" PRIu64
                                  ",\"resolved\":%" PRIu64 ",\"kept\":%" PRIu64 ",\"unresolved\":[",
                                  m->dwarf ? "true" : "false", m->lines ? "true" : "false",
                                  m->addresses, m->resolved, m->kept);
    for (size_t i = 0; !st && i < m->n_unresolved; i++)
        st = pprof__buffer_printf(b, "%s\"0x%" PRIx64 "\"", i ? "," : "", m->unresolved[i]);
    return st ? st : pprof__buffer_printf(b, "]}");
}

pprof_status
pprof_symbolize_report_print(const pprof_symbolize_report *r, pprof_print_format format,
                             pprof_buffer *out, pprof_error *err)
{
    if (!r || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "report or buffer is NULL");
    bool json = format == PPROF_PRINT_JSON;
    pprof_status st = json ? pprof__buffer_printf(out, "{\"mappings\":[") : PPROF_OK;
    for (size_t i = 0; !st && i < r->maps.len; i++) {
        const pprof_symbolize_mapping *m = &PPROF__AT(r->maps, pprof_symbolize_mapping, i);
        if (json)
            st = i ? pprof__buffer_printf(out, ",") : PPROF_OK;
        if (!st)
            st = json ? print_json(m, out) : print_text(m, out);
    }
    if (!st)
        st = json ? pprof__buffer_printf(out, "],\"unresolved\":%" PRIu64 "}\n", r->unresolved)
                  : pprof__buffer_printf(out, "unresolved addresses: %" PRIu64 "\n", r->unresolved);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory printing the report");
    return PPROF_OK;
}
