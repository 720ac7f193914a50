/* Every tool reads any profile file: pprof and the formats of libpprof-formats, detected as
 * the core's read paths detect them (pprof_read_options.readers). */
#include "common.h"
#include "formats.h"

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
    return pprof_profile_read_file(path, tool_read_options(&ro), out, err);
}
