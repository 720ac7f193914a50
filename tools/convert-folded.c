#include "convert-folded.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

static const char prog[] = "pprof-convert";

bool
convert_folded_opt(convert_folded *f, tool_args *a, const char *opt, int *rc)
{
    *rc = 0;
    if (tool_opt_is(opt, NULL, "--lines")) {
        f->lines = true;
        return true;
    }
    bool to = tool_opt_is(opt, NULL, "--to"), from = tool_opt_is(opt, NULL, "--from");
    bool st = tool_opt_is(opt, NULL, "--sample-type"), lab = tool_opt_is(opt, NULL, "--labels");
    if (!to && !from && !st && !lab)
        return false;
    const char *v = tool_args_value(a, prog);
    if (!v) {
        *rc = TOOL_EXIT_USAGE;
    } else if (to || from) {
        bool json = !strcmp(v, "cpuprofile") || (to && !strcmp(v, "speedscope"));
        if (strcmp(v, "folded") && strcmp(v, "pprof") && !json)
            *rc = tool_usage_error(prog, "%s takes %s", opt,
                                   to ? "folded, speedscope, cpuprofile or pprof"
                                      : "folded, cpuprofile or pprof");
        else if (to)
            f->to = !strcmp(v, "folded");
        else
            f->from = !strcmp(v, "folded");
        if (to)
            f->to_json = json ? v : NULL;
        else
            f->from_json = json ? v : NULL;
    } else if (st) {
        f->sample_type = v;
    } else {
        free(f->labels_arg);
        f->labels_arg = strdup(v);
        f->n_labels = 0;
        for (char *s = f->labels_arg, *save = NULL, *k; s && (k = strtok_r(s, ",", &save));
             s = NULL) {
            if (f->n_labels == CONVERT_FOLDED_MAX_LABELS) {
                *rc = tool_usage_error(prog, "at most %d label keys", CONVERT_FOLDED_MAX_LABELS);
                break;
            }
            f->labels[f->n_labels++] = k;
        }
    }
    return true;
}

/* An error of the folded reader, "FILE:LINE:COLUMN: error: message [CODE]" as compilers print
 * them (editors jump there); the column counts bytes from 1. Other errors as every tool prints
 * them. */
static void
print_folded_error(const char *file, const pprof_buffer *in, const pprof_error *err)
{
    size_t line;
    char end;
    if (sscanf(err->path, "line[%zu%c", &line, &end) != 2 || end != ']' || err->offset > in->len) {
        tool_print_error(stderr, prog, file, err);
        return;
    }
    size_t start = (size_t)err->offset;
    while (start > 0 && in->data[start - 1] != '\n')
        start--;
    fprintf(stderr, "%s: %s:%zu:%llu: error: %s [%s]\n", prog, strcmp(file, "-") ? file : "<stdin>",
            line, (unsigned long long)(err->offset - start + 1), err->message,
            pprof_status_name(err->code));
}

int
convert_folded_run(convert_folded *f, const char *in, const char *out, const pprof_write_options *w)
{
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_buffer b = {0};
    const char *where = in;
    pprof_status st;
    bool printed = false; /* the folded reader's errors, with their line and column */
    if (f->from) {
        pprof_folded_read_options ro = PPROF_FOLDED_READ_OPTIONS_INIT;
        ro.sample_type = f->sample_type;
        st = tool_read_all(in, &b, &err);
        if (!st)
            st = pprof_folded_read_memory(b.data, b.len, &ro, &p, &err);
        if ((printed = st != PPROF_OK))
            print_folded_error(in, &b, &err);
        b.len = 0;
    } else {
        st = tool_read_profile(in, &p, &err);
    }
    if (!st && f->to) {
        pprof_folded_write_options wo = PPROF_FOLDED_WRITE_OPTIONS_INIT;
        wo.sample_type = f->sample_type;
        wo.lines = f->lines;
        wo.labels = f->labels;
        wo.n_labels = f->n_labels;
        /* what the writer refuses (an invalid profile, a negative stack) is the input's fault */
        st = pprof_folded_write_memory(p, &wo, &b, &err);
        if (!st) {
            where = strcmp(out, "-") ? out : "<stdout>";
            st = pprof_bytes_write_file(b.data, b.len, w, out, &err);
        }
    } else if (!st) {
        where = strcmp(out, "-") ? out : "<stdout>";
        st = pprof_profile_write_file(p, w, out, &err);
    }
    if (st && !printed)
        tool_print_error(stderr, prog, where, &err);
    free(f->labels_arg);
    f->labels_arg = NULL;
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    return tool_exit_for(st);
}
