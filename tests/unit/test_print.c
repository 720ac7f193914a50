/* Listings: the JSON view is strict RFC 8259 JSON (checked by a small validator, including UTF-8
 * in strings) for odd strings and for every corpus file; the text view names what it shows. */
#include "pb.h"
#include "testutil.h"

/* ---- a strict JSON validator: returns the end of one value, or NULL */

typedef struct jv {
    const uint8_t *p, *end;
    int depth;
} jv;

static void
ws(jv *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static bool
lit(jv *j, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n))
        return false;
    j->p += n;
    return true;
}

static bool
utf8(jv *j)
{
    uint8_t c = *j->p;
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return false;
    if ((size_t)(j->end - j->p) < len)
        return false;
    for (size_t i = 1; i < len; i++) {
        if ((j->p[i] & 0xc0) != 0x80)
            return false;
        cp = cp << 6 | (j->p[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return false;
    j->p += len;
    return true;
}

static bool
jstring(jv *j)
{
    if (!lit(j, "\""))
        return false;
    while (j->p < j->end) {
        uint8_t c = *j->p;
        if (c == '"') {
            j->p++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end)
                return false;
            c = *j->p++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++, j->p++)
                    if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
                        return false;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return false;
            }
            continue;
        }
        if (c < 0x80)
            j->p++;
        else if (!utf8(j))
            return false;
    }
    return false;
}

static bool
digits(jv *j)
{
    const uint8_t *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s;
}

static bool
jnumber(jv *j)
{
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!digits(j))
        return false;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!digits(j))
            return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!digits(j))
            return false;
    }
    return true;
}

static bool jvalue(jv *j);

static bool
jcontainer(jv *j, char open, char close, bool object)
{
    if (++j->depth > 64)
        return false;
    j->p++;
    (void)open;
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        ws(j);
        if (object) {
            if (!jstring(j))
                return false;
            ws(j);
            if (!lit(j, ":"))
                return false;
        }
        if (!jvalue(j))
            return false;
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            j->depth--;
            return true;
        }
        return false;
    }
}

static bool
jvalue(jv *j)
{
    ws(j);
    if (j->p >= j->end)
        return false;
    switch (*j->p) {
    case '{': return jcontainer(j, '{', '}', true);
    case '[': return jcontainer(j, '[', ']', false);
    case '"': return jstring(j);
    case 't': return lit(j, "true");
    case 'f': return lit(j, "false");
    case 'n': return lit(j, "null");
    default: return jnumber(j);
    }
}

static bool
json_valid(const uint8_t *d, size_t n, size_t *bad_at)
{
    jv j = {d, d + n, 0};
    bool ok = jvalue(&j);
    ws(&j);
    ok = ok && j.p == j.end;
    *bad_at = (size_t)(j.p - d);
    return ok;
}

static bool
has(const pprof_buffer *b, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= b->len; i++)
        if (memcmp(b->data + i, needle, n) == 0)
            return true;
    return false;
}

static void
test_validator(tap *t)
{
    const char *good[] = {"{}", "[1, -0.5e+3, \"a\\u00e9\", true, null]", "{\"a\": {\"b\": []}}",
                          "\"\xc3\xa9\""};
    const char *bad[] = {"{",  "[1,]",  "{\"a\" 1}", "\"\x01\"",        "\"\xff\"",
                         "01", "[1] x", "\"\\x\"",   "\"\xed\xa0\x80\""};
    size_t at;
    bool ok = true;
    for (size_t i = 0; i < 4; i++)
        ok = ok && json_valid((const uint8_t *)good[i], strlen(good[i]), &at);
    for (size_t i = 0; i < 9; i++)
        ok = ok && !json_valid((const uint8_t *)bad[i], strlen(bad[i]), &at);
    tap_ok(t, ok, "the JSON validator accepts valid and refuses invalid documents");
}

static void
test_odd_strings(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    const char odd[] = "q\"b\\n\nt\tc\x01z\x7f-\xff\xc3(-\xe2\x82\xac";
    pb_str(&b, 6, "");
    pb_bytes(&b, 6, odd, sizeof(odd)); /* includes the terminating NUL byte */
    pb_str(&b, 6, "main");
    pb_str(&b, 6, "cpu");
    pb_value_type(&b, 1, 3, 3);
    pb_v(&s, 1, 1);
    pb_v(&s, 2, (uint64_t)INT64_MIN);
    pb_v(&l, 1, 2);
    pb_v(&l, 2, 1);
    pb_msg_free(&s, 3, &l);
    pb_v(&l, 1, 2);
    pb_v(&l, 3, (uint64_t)-5);
    pb_v(&l, 4, 99); /* out of range on purpose: printing must still work */
    pb_msg_free(&s, 3, &l);
    pb_msg_free(&b, 2, &s);
    pb_v(&s, 1, 1);
    pb_v(&s, 3, UINT64_MAX);
    pb_v(&l, 1, 1);
    pb_v(&l, 2, 7);
    pb_msg_free(&s, 4, &l);
    pb_msg_free(&b, 4, &s);
    pb_v(&s, 1, 1);
    pb_v(&s, 2, 1);
    pb_v(&s, 3, 3);
    pb_msg_free(&b, 5, &s);
    pb_v(&s, 1, 9);
    pb_v(&s, 5, 1);
    pb_msg_free(&b, 3, &s);
    pb_v(&b, 13, 1);
    pprof_profile *p = NULL;
    tu_decode_raw(b.d, b.n, NULL, &p, NULL);
    pprof_buffer js = {0}, tx = {0};
    pprof_error err;
    tap_ok(t, p && pprof_profile_print(p, PPROF_PRINT_JSON, &js, &err) == PPROF_OK, "JSON printed");
    size_t at = 0;
    if (!tap_ok(t, json_valid(js.data, js.len, &at),
                "JSON with quotes, escapes, control bytes, NUL and bad UTF-8 is valid"))
        tap_diag("invalid at byte %zu of %zu: %.40s", at, js.len, (const char *)js.data + at);
    tap_ok(t,
           has(&js, "\"main\"") && has(&js, "-9223372036854775808") &&
               has(&js, "18446744073709551615") && has(&js, "\\\"") && has(&js, "\\\\"),
           "JSON holds names, int64 and uint64 extremes and escaped quotes");
    tap_ok(t, pprof_profile_print(p, PPROF_PRINT_TEXT, &tx, &err) == PPROF_OK && tx.len > 0,
           "text printed");
    tap_ok(t, has(&tx, "main") && has(&tx, "-9223372036854775808") && has(&tx, "cpu"),
           "text names functions, values and sample types");
    /* printing appends */
    size_t before = js.len;
    pprof_profile_print(p, PPROF_PRINT_JSON, &js, &err);
    tap_ok(t, js.len == 2 * before && memcmp(js.data, js.data + before, before) == 0,
           "printing twice appends the same listing again");
    pprof_buffer_free(&js);
    pprof_buffer_free(&tx);
    pprof_profile_free(p);
    pb_free(&b);
}

/* A profile whose listing after Go's merge differs from the stored one in every way the merge
 * has: ids out of order, an unused mapping and function, two mappings of one file (the second
 * folded into the first, its addresses shifted), equal samples combined (labels in another
 * order), a zero sample, two samples that cancel (Go merges again), a repeated comment. */
static void
go_merge_profile(pb *b)
{
    const char *strs[] = {"",  "samples", "count", "main", "f",      "/bin/a", "unused",
                          "k", "v",       "w",     "c1",   "/lib/b", "n"};
    pb s = {0}, l = {0};
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        pb_str(b, 6, strs[i]);
    pb_value_type(b, 1, 1, 2);
    /* mappings: id, start, limit, offset, filename */
    const uint64_t maps[][5] = {{5, 0x1000, 0x2000, 0, 5},
                                {2, 0x5000, 0x6000, 0, 11},
                                {9, 0x9000, 0xa000, 0, 5},
                                {4, 0x7000, 0x8000, 0, 11}};
    for (size_t i = 0; i < 4; i++) {
        for (uint32_t f = 0; f < 4; f++)
            if (maps[i][f])
                pb_v(&s, f + 1, maps[i][f]);
        pb_v(&s, 5, maps[i][4]);
        pb_msg_free(b, 3, &s);
    }
    /* functions: id, name */
    const uint64_t fns[][2] = {{4, 6}, {8, 4}, {2, 3}};
    for (size_t i = 0; i < 3; i++) {
        pb_v(&s, 1, fns[i][0]);
        pb_v(&s, 2, fns[i][1]);
        pb_msg_free(b, 5, &s);
    }
    /* locations: id, mapping, address, function, line */
    const uint64_t locs[][5] = {{7, 5, 0x1100, 2, 10},
                                {3, 2, 0x5010, 8, 20},
                                {11, 9, 0x9100, 2, 10},
                                {12, 2, 0x5020, 4, 5}};
    for (size_t i = 0; i < 4; i++) {
        pb_v(&s, 1, locs[i][0]);
        pb_v(&s, 2, locs[i][1]);
        pb_v(&s, 3, locs[i][2]);
        pb_v(&l, 1, locs[i][3]);
        pb_v(&l, 2, locs[i][4]);
        pb_msg_free(&s, 4, &l);
        pb_msg_free(b, 4, &s);
    }
    /* samples: stack, value, string labels k=v,k=w or w,v (order kept within a key), numeric */
    struct {
        uint64_t loc[2];
        size_t n;
        int64_t v;
        int lab; /* 0 none, 1 k=v k=w, 2 n=4 */
    } smp[] = {{{3, 7}, 2, 1, 1}, {{3, 11}, 2, 2, 1}, {{12, 0}, 1, 0, 0},
               {{7, 0}, 1, 5, 2}, {{7, 0}, 1, -5, 2}, {{11, 3}, 2, 1, 0}};
    for (size_t i = 0; i < sizeof(smp) / sizeof(smp[0]); i++) {
        pb_packed(&s, 1, smp[i].loc, smp[i].n);
        uint64_t v = (uint64_t)smp[i].v;
        pb_packed(&s, 2, &v, 1);
        if (smp[i].lab == 1) {
            pb_v(&l, 1, 7);
            pb_v(&l, 2, 8);
            pb_msg_free(&s, 3, &l);
            pb_v(&l, 1, 7);
            pb_v(&l, 2, 9);
            pb_msg_free(&s, 3, &l);
        } else if (smp[i].lab == 2) {
            pb_v(&l, 1, 12);
            pb_v(&l, 3, 4);
            pb_msg_free(&s, 3, &l);
        }
        pb_msg_free(b, 2, &s);
    }
    pb_v(b, 13, 10);
    pb_v(b, 13, 10);
}

static void
test_go_merge(tap *t)
{
    pb b = {0};
    go_merge_profile(&b);
    if (getenv("PPROF_TEST_WRITE_GO_MERGE")) { /* how the expected text below was made */
        FILE *f = fopen(getenv("PPROF_TEST_WRITE_GO_MERGE"), "wb");
        if (f) {
            fwrite(b.d, 1, b.n, f);
            fclose(f);
        }
    }
    /* `TZ=UTC go tool pprof -raw -symbolize=none` of that profile (Go 1.19) */
    static const char want[] = "Comment: c1\n"
                               "PeriodType:  \n"
                               "Period: 0\n"
                               "Samples:\n"
                               "samples/count\n"
                               "          3: 1 2 \n"
                               "                k:[v w]\n"
                               "          1: 2 1 \n"
                               "Locations\n"
                               "     1: 0x5010 M=2 f :20 s=0()\n"
                               "     2: 0x1100 M=1 main :10 s=0()\n"
                               "Mappings\n"
                               "1: 0x1000/0x2000/0x0 /bin/a  \n"
                               "2: 0x5000/0x6000/0x0 /lib/b  \n";
    pprof_profile *p = NULL;
    tu_decode_raw(b.d, b.n, NULL, &p, NULL);
    pprof_buffer tx = {0}, raw = {0};
    pprof_error err;
    bool ok = p && pprof_profile_print(p, PPROF_PRINT_GO_RAW, &tx, &err) == PPROF_OK;
    if (!tap_ok(t, ok && tx.len == strlen(want) && !memcmp(tx.data, want, tx.len),
                "the text after Go's merge of the one profile is what go tool pprof -raw prints"))
        tap_diag("got:\n%.*s", (int)tx.len, tx.data ? (const char *)tx.data : "");
    ok = p && pprof_profile_print(p, PPROF_PRINT_TEXT, &raw, &err) == PPROF_OK;
    tap_ok(t,
           ok && has(&raw, "    12: 0x5020 M=2 unused :5 s=0()") &&
               has(&raw, "Comment: c1\nComment: c1"),
           "the listing as stored keeps every entity, id and comment");
    pprof_buffer_free(&tx);
    pprof_buffer_free(&raw);
    pprof_profile_free(p);
    /* a sample naming a location that is not there: refused, not guessed */
    pb_free(&b);
    pb s = {0};
    pb_str(&b, 6, "");
    uint64_t loc = 42, v = 1;
    pb_packed(&s, 1, &loc, 1);
    pb_packed(&s, 2, &v, 1);
    pb_msg_free(&b, 2, &s);
    p = NULL;
    tu_decode_raw(b.d, b.n, NULL, &p, NULL);
    tap_ok(t, p && pprof_profile_print(p, PPROF_PRINT_GO_RAW, &tx, &err) == PPROF_E_INVALID,
           "Go's merge of a profile with a dangling location id: PPROF_E_INVALID");
    pprof_buffer_free(&tx);
    pprof_profile_free(p);
    pb_free(&b);
}

static void
test_corpus(tap *t)
{
    tu_files fl = tu_corpus();
    if (fl.n == 0) {
        tap_diag("no corpus at %s", tap_real_corpus());
        return;
    }
    int invalid = 0, read = 0;
    for (size_t i = 0; i < fl.n; i++) {
        pprof_profile *p = NULL;
        if (pprof_profile_read_file(fl.path[i], NULL, &p, NULL) != PPROF_OK)
            continue;
        read++;
        pprof_buffer js = {0}, tx = {0};
        size_t at = 0;
        bool ok = pprof_profile_print(p, PPROF_PRINT_JSON, &js, NULL) == PPROF_OK &&
                  json_valid(js.data, js.len, &at) &&
                  pprof_profile_print(p, PPROF_PRINT_TEXT, &tx, NULL) == PPROF_OK && tx.len;
        if (!ok) {
            invalid++;
            tap_diag("%s: JSON invalid at byte %zu", tu_short(fl.path[i]), at);
        }
        pprof_buffer_free(&js);
        pprof_buffer_free(&tx);
        pprof_profile_free(p);
    }
    tap_ok(t, invalid == 0 && read > 0, "JSON of %d corpus files is valid (%d not)", read, invalid);
    tu_files_free(&fl);
}

/* The one JSON string policy (pprof.h), byte for byte. */
static void
test_json_string(tap *t)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", "\"\""},
        {"caf\xe9", "\"caf\\ufffd\""},      /* Latin-1: one U+FFFD, not \u00e9 (another letter) */
        {"caf\xc3\xa9", "\"caf\xc3\xa9\""}, /* UTF-8 as it is */
        {"q\"b\\s", "\"q\\\"b\\\\s\""},
        {"\n\t\x01\x1f\x7f", "\"\\u000a\\u0009\\u0001\\u001f\x7f\""},
        {"a\xe2\x80\xa8z\xe2\x80\xa9", "\"a\\u2028z\\u2029\""},
        {"<b>&", "\"<b>&\""},
        /* a cut sequence, an overlong form, a surrogate, past U+10FFFF: one U+FFFD per byte */
        {"\xe2\x82.\xc0\xaf.\xed\xa0\x80.\xf4\x90\x80\x80",
         "\"\\ufffd\\ufffd.\\ufffd\\ufffd.\\ufffd\\ufffd\\ufffd.\\ufffd\\ufffd\\ufffd\\ufffd\""},
        {"\xef\xbf\xbd\xf0\x9f\x94\xa5", "\"\xef\xbf\xbd\xf0\x9f\x94\xa5\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pprof_buffer b = {0};
        pprof_error err;
        bool ok = pprof_json_string_write(cases[i].in, strlen(cases[i].in), &b, &err) == PPROF_OK &&
                  b.len == strlen(cases[i].want) && !memcmp(b.data, cases[i].want, b.len);
        if (!tap_ok(t, ok, "JSON string %zu as the policy says", i))
            tap_diag("got %.*s want %s", (int)b.len, b.data ? (const char *)b.data : "",
                     cases[i].want);
        pprof_buffer_free(&b);
    }
    /* a NUL inside the string is data too; appending keeps what the buffer held */
    pprof_buffer b = {0};
    bool ok = pprof_json_string_write("x", 1, &b, NULL) == PPROF_OK &&
              pprof_json_string_write("a\0b", 3, &b, NULL) == PPROF_OK && b.len == 13 &&
              !memcmp(b.data, "\"x\"\"a\\u0000b\"", 13);
    tap_ok(t, ok, "NUL as \\u0000, and the writer appends");
    pprof_error err;
    tap_ok(t,
           pprof_json_string_write(NULL, 1, &b, &err) == PPROF_E_ARG &&
               pprof_json_string_write("x", 1, NULL, &err) == PPROF_E_ARG &&
               pprof_json_string_write(NULL, 0, &b, &err) == PPROF_OK,
           "no output or a NULL string of some length: PPROF_E_ARG");
    pprof_buffer_free(&b);
}

int
main(void)
{
    tap t = {0};
    test_validator(&t);
    test_json_string(&t);
    test_odd_strings(&t);
    test_go_merge(&t);
    test_corpus(&t);
    return tap_done(&t);
}
