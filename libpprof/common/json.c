/* The one JSON string writer: every JSON the library and the tools write quotes its strings
 * here, so a name comes out the same in every output (policy in common-private.h). */
#include "common-private.h"
#include "utf8-private.h"

static const char hex[] = "0123456789abcdef";

/* What an ASCII byte becomes: 0 itself, 1 a backslash and itself, 2 \u00XX, 3 \u00XX in the
 * HTML form only. */
static uint8_t
ascii_class(uint8_t c)
{
    if (c < 0x20)
        return 2;
    if (c == '"' || c == '\\')
        return 1;
    if (c == '<' || c == '>' || c == '&')
        return 3;
    return 0;
}

static pprof_status
json_string(pprof_buffer *b, const char *str, size_t n, bool html)
{
    const uint8_t *s = (const uint8_t *)str;
    /* the worst case is 6 bytes out for every byte in (\u00XX or \ufffd) */
    if (n > (SIZE_MAX - 2) / 6 || !pprof__buffer_reserve(b, 6 * n + 2))
        return PPROF_E_NOMEM;
    uint8_t *o = b->data + b->len;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        if (c < 0x80) {
            uint8_t k = ascii_class(c);
            if (k == 0 || (k == 3 && !html)) {
                *o++ = c;
            } else if (k == 1) {
                *o++ = '\\';
                *o++ = c;
            } else {
                memcpy(o, "\\u00", 4);
                o[4] = (uint8_t)hex[c >> 4];
                o[5] = (uint8_t)hex[c & 15];
                o += 6;
            }
            i++;
            continue;
        }
        size_t l = pprof__utf8_seq_len(s + i, n - i);
        if (!l) {
            memcpy(o, "\\ufffd", 6);
            o += 6;
            i++;
        } else if (l == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
                   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
            memcpy(o, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
            o += 6;
            i += 3;
        } else {
            memcpy(o, s + i, l);
            o += l;
            i += l;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return PPROF_OK;
}

pprof_status
pprof__json_string(pprof_buffer *b, const char *s, size_t n)
{
    return json_string(b, s, n, false);
}

pprof_status
pprof__json_string_html(pprof_buffer *b, const char *s, size_t n)
{
    return json_string(b, s, n, true);
}

pprof_status
pprof_json_string_write(const char *s, size_t n, pprof_buffer *out, pprof_error *err)
{
    if (!out || (!s && n))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no string or no output");
    pprof_status st = json_string(out, s ? s : "", n, false);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory writing a JSON string");
    return PPROF_OK;
}
