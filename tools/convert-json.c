#include "convert-json.h"

#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "interchange.h"

static const char prog[] = "pprof-convert";

static pprof_status
read_input(const convert_folded *f, const char *in, pprof_buffer *b, pprof_profile **p,
           pprof_error *err)
{
    if (!f->from_json && !f->from)
        return tool_read_profile(in, p, err);
    pprof_status st = tool_read_all(in, b, err);
    if (!st && f->from) {
        pprof_folded_read_options ro = PPROF_FOLDED_READ_OPTIONS_INIT;
        ro.sample_type = f->sample_type;
        st = pprof_folded_read_memory(b->data, b->len, &ro, p, err);
    } else if (!st) {
        st = pprof_cpuprofile_read_memory(b->data, b->len, NULL, p, err);
    }
    b->len = 0;
    return st;
}

/* speedscope's title: the input's file name */
static const char *
base_name(const char *in)
{
    const char *s = strrchr(in, '/');
    return !strcmp(in, "-") ? "stdin" : s ? s + 1 : in;
}

static pprof_status
write_text(const convert_folded *f, const char *in, const pprof_profile *p, pprof_buffer *b,
           pprof_error *err)
{
    if (f->to) {
        pprof_folded_write_options wo = PPROF_FOLDED_WRITE_OPTIONS_INIT;
        wo.sample_type = f->sample_type;
        wo.lines = f->lines;
        wo.labels = f->labels;
        wo.n_labels = f->n_labels;
        return pprof_folded_write_memory(p, &wo, b, err);
    }
    if (!strcmp(f->to_json, "speedscope")) {
        pprof_speedscope_options so = PPROF_SPEEDSCOPE_OPTIONS_INIT;
        so.name = base_name(in);
        so.lines = f->lines;
        return pprof_speedscope_write_memory(p, &so, b, err);
    }
    pprof_cpuprofile_write_options co = PPROF_CPUPROFILE_WRITE_OPTIONS_INIT;
    co.sample_type = f->sample_type;
    return pprof_cpuprofile_write_memory(p, &co, b, err);
}

int
convert_json_run(convert_folded *f, const char *in, const char *out, const pprof_write_options *w)
{
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_buffer b = {0};
    const char *where = in;
    pprof_status st = read_input(f, in, &b, &p, &err);
    if (!st && (f->to || f->to_json)) {
        /* what the writers refuse (an invalid profile, a negative value) is the input's fault */
        st = write_text(f, in, p, &b, &err);
        if (!st) {
            where = strcmp(out, "-") ? out : "<stdout>";
            st = pprof_bytes_write_file(b.data, b.len, w, out, &err);
        }
    } else if (!st) {
        where = strcmp(out, "-") ? out : "<stdout>";
        st = pprof_profile_write_file(p, w, out, &err);
    }
    if (st)
        tool_print_error(stderr, prog, where, &err);
    free(f->labels_arg);
    f->labels_arg = NULL;
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    return tool_exit_for(st);
}
