/* Operations not written yet. */
#include "edit-private.h"

static pprof_status
todo(pprof__ed *e, const char *what)
{
    return e->st = pprof__error(e->err, PPROF_E_UNSUPPORTED, PPROF_NO_OFFSET, "",
                                "%s is not implemented yet", what);
}

#define TODO(fn, name)                                                                             \
    pprof_status fn(pprof__ed *e)                                                                  \
    {                                                                                              \
        return todo(e, name);                                                                      \
    }
TODO(ed_tag_roots, "tagroot/tagleaf")
TODO(ed_tag_filter, "tagfocus/tagignore")
TODO(ed_tag_names, "tagshow/taghide")
TODO(ed_sample_types, "sample_types")
TODO(ed_labels, "labels")
TODO(ed_normalize, "normalize")
TODO(ed_scale, "scale")
TODO(ed_aggregate, "aggregate")
TODO(ed_max_depth, "max_depth")
TODO(ed_min_fraction, "min_fraction")
TODO(ed_redact, "redact")
