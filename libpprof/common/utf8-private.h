/* UTF-8 validation, shared by the checker (rule S23), repair and the text printers. */
#ifndef PPROF_UTF8_PRIVATE_H
#define PPROF_UTF8_PRIVATE_H

#include "api-private.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length (1 to 4) of the valid UTF-8 sequence that starts s (n > 0 bytes), or 0: overlong
 * forms, surrogates and code points past U+10FFFF are not valid. */
PPROF_PRIVATE_API size_t pprof__utf8_seq_len(const uint8_t *s, size_t n);
/* On failure *bad_at (if not NULL) is the offset of the first byte that is not part of valid
 * UTF-8. */
PPROF_PRIVATE_API bool pprof__utf8_valid(const uint8_t *s, size_t n, size_t *bad_at);

#endif
