/* [libpprof-formats] Interop with profilers that already build profiles with protobuf-c. Include your own
 * protoc-c generated header for profile.proto (package perftools.profiles) before this one; the
 * message layout is the one protoc-c generates for that field list. */
#ifndef PPROF_PROTOBUF_C_H
#define PPROF_PROTOBUF_C_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Perftools__Profiles__Profile;

/* Builds a protobuf-c message from the model. Free it with
 * protobuf_c_message_free_unpacked(&msg->base, NULL). Strings are copied; a string holding a NUL
 * byte is cut there, because protobuf-c strings are NUL-terminated. */
PPROF_API pprof_status pprof_profile_to_protobuf_c(const pprof_profile *p,
                                                   struct Perftools__Profiles__Profile **out,
                                                   pprof_error *err);

/* Reads a protobuf-c message into a new profile, with the same checks and limits as reading
 * bytes (opts may be NULL). */
PPROF_API pprof_status pprof_profile_from_protobuf_c(const struct Perftools__Profiles__Profile *msg,
                                                     const pprof_read_options *opts,
                                                     pprof_profile **out, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
