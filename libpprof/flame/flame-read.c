/* A profile read to be drawn: checked as it is read, and read straight into the smaller form
 * pprof_flame_tree_new_take slims the profiles it takes to (pprof__profile_slim), so that the
 * full-size form is never held. */
#include "flame-private.h"
#include "validate-private.h"

pprof_status
pprof_flame_profile_read_buffer(pprof_buffer *in, const pprof_read_options *opts,
                                pprof_profile **out, pprof_error *err)
{
    pprof_status st = pprof__profile_read_indexed(in, opts, out, err);
    if (st)
        return st;
    pprof_profile *p = *out;
    pprof_error verr;
    st = pprof__validate(p, NULL, &verr);
    if (st == PPROF_E_INVALID) {
        /* as pprof_profile_read_buffer reads it, for pprof_validate to list what is wrong */
        if (pprof__stack_unindex(p))
            return PPROF_OK;
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    } else if (st) {
        if (err)
            *err = verr;
    } else {
        st = pprof__profile_slim(p, err);
    }
    if (st) {
        pprof_profile_free(p);
        *out = NULL;
    }
    return st;
}
