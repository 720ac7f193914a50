/* UTF-8 validation (see utf8-private.h). */
#include <string.h>

#include "utf8-private.h"

size_t
pprof__utf8_seq_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

bool
pprof__utf8_valid(const uint8_t *s, size_t n, size_t *bad_at)
{
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8) { /* eight ASCII bytes at a time */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & UINT64_C(0x8080808080808080))) {
                i += 8;
                continue;
            }
        }
        size_t len = pprof__utf8_seq_len(s + i, n - i);
        if (!len) {
            if (bad_at)
                *bad_at = i;
            return false;
        }
        i += len;
    }
    return true;
}
