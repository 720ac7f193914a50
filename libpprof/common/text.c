/* Profile strings in line-oriented text (see text-private.h). */
#include <stdio.h>
#include <string.h>

#include "text-private.h"
#include "utf8-private.h"

/* How many bytes at s (n > 0) pass as they are (0: the first byte needs an escape); *cp gets
 * the code point to write as \uHHHH when the sequence is valid UTF-8 but a control or a line
 * separator, else 0. */
static size_t
plain_len(const uint8_t *s, size_t n, uint32_t *cp)
{
    *cp = 0;
    uint8_t c = s[0];
    if (c < 0x80)
        return (c >= 0x20 && c != 0x7f) || c == '\t';
    size_t k = pprof__utf8_seq_len(s, n);
    if (!k) /* not UTF-8: printed as it is, as Go prints it (it breaks no line) */
        return 1;
    if (k == 2 && c == 0xc2 && s[1] < 0xa0) /* U+0080 to U+009F */
        *cp = 0x80u | (s[1] & 0x1fu);
    else if (k == 3 && c == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
        *cp = 0x2000u | (s[2] & 0x3fu); /* U+2028, U+2029 */
    return *cp ? 0 : k;
}

bool
pprof__text_needs_escape(const char *s, size_t n)
{
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = plain_len(u + i, n - i, &cp);
        if (!k)
            return true;
        i += k;
    }
    return false;
}

pprof_status
pprof__text_escape(pprof_buffer *b, const char *s, size_t n)
{
    if (!n)
        return PPROF_OK;
    const uint8_t *u = (const uint8_t *)s;
    size_t run = 0;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st;) {
        uint32_t cp;
        size_t k = plain_len(u + i, n - i, &cp);
        if (k) {
            i += k;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        if (!st && cp)
            st = pprof__buffer_printf(b, "\\u%04x", (unsigned)cp);
        else if (!st)
            st = pprof__buffer_printf(b, "\\x%02x", u[i]);
        i += cp ? (cp < 0x800 ? 2 : 3) : 1;
        run = i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    return st;
}

void
pprof__text_escape_cstr(char *dst, size_t cap, const char *s)
{
    pprof_buffer b = {0};
    if (!cap)
        return;
    dst[0] = 0;
    if (!pprof__text_escape(&b, s, strlen(s)) && b.len)
        snprintf(dst, cap, "%.*s", (int)b.len, (const char *)b.data);
    pprof_buffer_free(&b);
}
