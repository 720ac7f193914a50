/* Profile strings in line-oriented text: the text reports (traces, tags, tree, peek, top,
 * list), callgrind and the text listing of pprof-dump. A profile string is data: whatever it
 * holds, it stays on its line and cannot start a record of its own. */
#ifndef PPROF_TEXT_PRIVATE_H
#define PPROF_TEXT_PRIVATE_H

#include "common-private.h"

/* Appends s (n bytes) to b with every control character escaped: NUL, the C0 controls but tab
 * and DEL as \xHH, C1 controls and U+2028/U+2029 (line breaks to some readers) as \uHHHH.
 * Everything else is copied as it is, so that an ordinary name prints as `go tool pprof` prints
 * it: backslashes, tabs (perf's kernel symbols hold one before the module) and bytes that are
 * not UTF-8 (they break no line) included. */
PPROF_PRIVATE_API pprof_status pprof__text_escape(pprof_buffer *b, const char *s, size_t n);

/* s (NUL-terminated) escaped into dst, cut to cap - 1 bytes (empty without memory): a unit or
 * a sample type for a header line or after a value. */
PPROF_PRIVATE_API void pprof__text_escape_cstr(char *dst, size_t cap, const char *s);

/* Whether pprof__text_escape would change s. */
PPROF_PRIVATE_API bool pprof__text_needs_escape(const char *s, size_t n);

#endif
