/* -list RX: report.printSource. */
#include "report-graph-private.h"

pprof_status
pprof__render_list(pprof__rctx *c, pprof_buffer *out)
{
    (void)out;
    return pprof__error(c->err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                        "--list (Go's annotated source) is not implemented yet");
}
