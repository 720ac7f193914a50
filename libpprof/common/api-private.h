/* PPROF_PRIVATE_API marks the internal functions that the build's other libraries
 * (libpprof-analyze, -formats, -symbolize) call in the core: exported from libpprof.so under the
 * version node LIBPPROF_PRIVATE (libpprof.map), declared in no installed header. Everything
 * else internal stays hidden. Not installed. */
#ifndef PPROF_API_PRIVATE_H
#define PPROF_API_PRIVATE_H

#if defined(PPROF_BUILDING_LIBRARY) && defined(__GNUC__)
#define PPROF_PRIVATE_API __attribute__((visibility("default")))
#else
#define PPROF_PRIVATE_API
#endif

#endif
