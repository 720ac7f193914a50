/* protobuf-c, the reference decoder in tests and fuzzing. Only pbc.c and tests include this. */
#ifndef PPROF_PBC_PRIVATE_H
#define PPROF_PBC_PRIVATE_H

#include "profile-private.h"
#include "profile.pb-c.h"

/* True when protobuf-c's message and the model hold the same field values; otherwise why says
 * which field differs. Strings are compared up to protobuf-c's NUL terminator. */
bool pprof__pbc_equal(const pprof_profile *p, const Perftools__Profiles__Profile *m, char *why,
                      size_t why_len);

#endif
