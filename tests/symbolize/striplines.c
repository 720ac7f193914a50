/* Test helper: removes every location's lines and clears the mappings' has_* flags, which is
 * what a profile of raw addresses looks like; the rest (addresses, mappings, samples) is kept.
 *   striplines IN OUT */
#include <stdio.h>

#include "profile-private.h"

int
main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: striplines IN OUT\n");
        return 2;
    }
    pprof_profile *p;
    pprof_error err;
    if (pprof_profile_read_file(argv[1], NULL, &p, &err)) {
        fprintf(stderr, "striplines: %s: %s\n", argv[1], err.message);
        return 1;
    }
    for (size_t i = 0; i < p->locations.len; i++)
        PPROF__AT(p->locations, pprof__location, i).n_line = 0;
    for (size_t i = 0; i < p->mappings.len; i++) {
        pprof_mapping *m = &PPROF__AT(p->mappings, pprof_mapping, i);
        m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = false;
    }
    p->functions.len = 0; /* no location refers to one any more */
    int rc = pprof_profile_write_file(p, NULL, argv[2], &err) ? 1 : 0;
    if (rc)
        fprintf(stderr, "striplines: %s: %s\n", argv[2], err.message);
    pprof_profile_free(p);
    return rc;
}
