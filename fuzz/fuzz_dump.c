/* What pprof-dump does: decode, then print the text listing (as stored, and after Go's merge of
 * the one profile, which may only refuse a dangling id) and the JSON view. The JSON must
 * parse (strictly, UTF-8 included) whatever bytes the strings hold. */
#include <string.h>

#include "fuzz.h"
#include "json-check.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p, &err) != PPROF_OK)
        return 0;
    pprof_buffer text = {0}, json = {0};
    pprof_status st = pprof_profile_print(p, PPROF_PRINT_TEXT, &text, &err);
    FUZZ_CHECK(st == PPROF_OK, "text print failed: %s", err.message);
    FUZZ_CHECK(text.len > 0, "empty text listing");
    pprof_buffer merged = {0};
    st = pprof_profile_print(p, PPROF_PRINT_GO_RAW, &merged, &err);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_INVALID, "merged text print failed: %s",
               err.message);
    FUZZ_CHECK(st != PPROF_OK || merged.len > 0, "empty merged text listing");
    pprof_buffer_free(&merged);
    st = pprof_profile_print(p, PPROF_PRINT_JSON, &json, &err);
    FUZZ_CHECK(st == PPROF_OK, "JSON print failed: %s", err.message);
    size_t bad = 0;
    bool ok = json_check(json.data, json.len, &bad);
    size_t from = bad > 20 ? bad - 20 : 0;
    FUZZ_CHECK(ok, "invalid JSON at byte %zu of %zu: %.*s", bad, json.len,
               (int)(json.len - from < 40 ? json.len - from : 40), (const char *)json.data + from);
    pprof_buffer_free(&text);
    pprof_buffer_free(&json);
    pprof_profile_free(p);
    return 0;
}
