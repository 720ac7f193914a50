/* Every tool reads any profile file: pprof and the formats of libpprof-formats, detected as
 * the core's read paths detect them (pprof_read_options.readers). */
#include <string.h>

#include "common.h"
#include "formats.h"
#include "jfr.h"

/* The JFR options of the run: a tool reads its inputs one way for the whole run. */
static struct {
    bool on;
    const char *prog;
    pprof_jfr_read_options o;
} jfr_run;

void
tool_read_jfr_with(const char *prog, const pprof_jfr_read_options *o)
{
    jfr_run.on = true;
    jfr_run.prog = prog;
    jfr_run.o = *o;
}

const pprof_read_options *
tool_read_options(pprof_read_options *ro)
{
    pprof_read_options_init(ro);
    ro->readers = pprof_formats_readers();
    return ro;
}

pprof_status
tool_read_profile(const char *path, pprof_profile **out, pprof_error *err)
{
    pprof_read_options ro;
    if (!jfr_run.on)
        return pprof_profile_read_file(path, tool_read_options(&ro), out, err);
    pprof_jfr_stats stats = PPROF_JFR_STATS_INIT;
    jfr_run.o.stats = &stats;
    pprof_status st = pprof_jfr_read_file(path, &jfr_run.o, out, err);
    if (!st && stats.truncated)
        fprintf(stderr,
                "%s: %s: the recording ends inside a chunk: %llu events kept, %llu read "
                "(--allow-truncated)\n",
                jfr_run.prog, strcmp(path, "-") ? path : "<stdin>",
                (unsigned long long)stats.events_kept, (unsigned long long)stats.events);
    return st;
}
