/* The text families: tcmalloc heap, growth and fragmentation profiles ("heap profile: ..."),
 * Go's count profiles ("goroutine profile: total N"), thread profiles ("--- threadz N ---")
 * and contention profiles ("--- contentionz", "--- mutex:", "--- contention:"). Each ends with
 * an optional memory map after a sentinel line. Go's legacy_profile.go gives the meaning. */
#include "legacy-private.h"

static bool
dig(char c)
{
    return c >= '0' && c <= '9';
}

static size_t
skip_sp(const char *p, size_t n, size_t i)
{
    while (i < n && p[i] == ' ')
        i++;
    return i;
}

static size_t
digits(const char *p, size_t n, size_t i)
{
    while (i < n && dig(p[i]))
        i++;
    return i;
}

typedef struct num {
    size_t at, len;
} num;

/* "(\d+): *(\d+) *\[ *(\d+): *(\d+) *\]" anchored at i ('-?' allowed on the first two when
 * neg); the index after the ']', 0 when it does not match. */
static size_t
four_numbers(const char *p, size_t n, size_t i, bool neg, num v[4])
{
    for (int k = 0; k < 4; k++) {
        if (k == 2) {
            i = skip_sp(p, n, i);
            if (i >= n || p[i] != '[')
                return 0;
            i = skip_sp(p, n, i + 1);
        } else if (k == 1 || k == 3) {
            i = skip_sp(p, n, i);
        }
        size_t a = i;
        if (neg && k < 2 && i < n && p[i] == '-')
            i++;
        size_t e = digits(p, n, i);
        if (e == i)
            return 0;
        v[k] = (num){a, e - a};
        i = e;
        if (k == 0 || k == 2) {
            if (i >= n || p[i] != ':')
                return 0;
            i++;
        }
    }
    i = skip_sp(p, n, i);
    if (i >= n || p[i] != ']')
        return 0;
    return i + 1;
}

/* ------------------------------------------------------------------ heap */

typedef struct heap_header {
    bool growth, has_alloc, v2;
    int64_t period;
} heap_header;

/* heapHeaderRE, growthHeaderRE and fragmentationHeaderRE, searched anywhere in the line. */
static int
parse_heap_header(const char *p, size_t n, heap_header *h)
{
    static const char tag[] = "heap profile:";
    for (size_t at = 0; at + sizeof(tag) - 1 <= n; at++) {
        if (memcmp(p + at, tag, sizeof(tag) - 1))
            continue;
        size_t i = skip_sp(p, n, at + sizeof(tag) - 1);
        num v[4];
        size_t e = four_numbers(p, n, i, false, v);
        if (!e)
            continue;
        /* heap: " *@ *(heap[_a-z0-9]*)/?(\d*)" */
        size_t j = skip_sp(p, n, e);
        if (j < n && p[j] == '@') {
            size_t t = skip_sp(p, n, j + 1);
            if (n - t >= 4 && !memcmp(p + t, "heap", 4)) {
                size_t te = t + 4;
                while (te < n && (p[te] == '_' || (p[te] >= 'a' && p[te] <= 'z') || dig(p[te])))
                    te++;
                size_t d = te < n && p[te] == '/' ? te + 1 : te;
                size_t de = digits(p, n, d);
                memset(h, 0, sizeof(*h));
                if (de > d && !lg_parse_int(p + d, de - d, 10, &h->period))
                    return LG_NOT_MINE;
                const char *name = p + t;
                size_t nl = te - t;
#define NAME_IS(s) (nl == sizeof(s) - 1 && !memcmp(name, s, nl))
                bool a3 = !(v[2].len == v[0].len && !memcmp(p + v[2].at, p + v[0].at, v[0].len)) &&
                          !(v[2].len == 1 && p[v[2].at] == '0');
                bool a4 = !(v[3].len == v[1].len && !memcmp(p + v[3].at, p + v[1].at, v[1].len)) &&
                          !(v[3].len == 1 && p[v[3].at] == '0');
                h->has_alloc = a3 || a4;
                if (NAME_IS("heapz_v2") || NAME_IS("heap_v2")) {
                    h->v2 = true;
                } else if (NAME_IS("heapprofile")) {
                    h->period = 1;
                } else if (NAME_IS("heap")) {
                    h->v2 = true;
                    h->period /= 2;
                } else {
                    return LG_NOT_MINE;
                }
#undef NAME_IS
                return LG_OK;
            }
        }
        /* growth and fragmentation: " @ growthz?" and " @ fragmentationz?" after the ']' */
        if (n - e >= 3 && !memcmp(p + e, " @ ", 3) &&
            ((n - e - 3 >= 6 && !memcmp(p + e + 3, "growth", 6)) ||
             (n - e - 3 >= 13 && !memcmp(p + e + 3, "fragmentation", 13)))) {
            memset(h, 0, sizeof(*h));
            h->growth = true;
            h->period = 1;
            return LG_OK;
        }
    }
    return LG_NOT_MINE;
}

static int
heap_values(lg *g, const char *line, num c, num s, const heap_header *h, int64_t *out,
            int64_t *blocksize, bool *set_bs, uint64_t off, const char *label)
{
    int64_t count, size;
    if (!lg_parse_int(line + c.at, c.len, 10, &count) ||
        !lg_parse_int(line + s.at, s.len, 10, &size))
        return lg_invalid(g, off, "malformed %s values: a number does not fit 64 bits", label);
    if (count == 0 && size != 0)
        return lg_invalid(g, off, "%s count was 0 but %s bytes was %lld", label, label,
                          (long long)size);
    if (count != 0) {
        if (count == -1 && size == INT64_MIN)
            return lg_invalid(g, off, "malformed %s values", label);
        *blocksize = size / count;
        *set_bs = true;
        if (h->v2 && lg_scale_heap(g, &count, &size, h->period, off))
            return LG_ERROR;
    }
    out[0] = count;
    out[1] = size;
    return LG_OK;
}

static bool
addr_char(char c)
{
    return c == ' ' || c == 'x' || dig(c) || (c >= 'a' && c <= 'f');
}

/* heapSampleRE searched in the line: the values and where the addresses are. */
static bool
find_heap_sample(const char *p, size_t n, num v[4], size_t *addrs, size_t *addrs_end)
{
    for (size_t i = 0; i < n; i++) {
        if (!dig(p[i]) && p[i] != '-')
            continue;
        /* a start inside a number fails where the number's start failed */
        if (i > 0 && dig(p[i]) && (dig(p[i - 1]) || p[i - 1] == '-'))
            continue;
        size_t e = four_numbers(p, n, i, true, v);
        if (!e || n - e < 2 || p[e] != ' ' || p[e + 1] != '@')
            continue;
        size_t a = e + 2, z = a;
        while (z < n && addr_char(p[z]))
            z++;
        *addrs = a;
        *addrs_end = z;
        return true;
    }
    return false;
}

int
lg_parse_heap(lg *g, const char *b, size_t n)
{
    static const char *const alloc_types[][2] = {{"alloc_objects", "count"},
                                                 {"alloc_space", "bytes"},
                                                 {"inuse_objects", "count"},
                                                 {"inuse_space", "bytes"}};
    static const char *const types[][2] = {{"objects", "count"}, {"space", "bytes"}};
    lg_scan s;
    lg_scan_init(&s, b, b, b + n);
    if (!lg_scan_next(&s))
        return LG_NOT_MINE;
    heap_header h;
    if (parse_heap_header(s.line, s.len, &h))
        return LG_NOT_MINE;
    if (h.has_alloc)
        lg_set_types(g, alloc_types, 4, "space", "bytes", h.period);
    else
        lg_set_types(g, types, 2, "space", "bytes", h.period);
    while (lg_scan_next(&s)) {
        const char *l = s.line;
        size_t ln = s.len;
        lg_trim(&l, &ln);
        uint64_t off = s.off + (uint64_t)(l - s.line);
        if (lg_space_or_comment(l, ln))
            continue;
        if (lg_map_sentinel(l, ln))
            break;
        num v[4];
        size_t a, z;
        if (!find_heap_sample(l, ln, v, &a, &z))
            return lg_invalid(g, off,
                              "not a heap profile sample line (COUNT: BYTES [COUNT: "
                              "BYTES] @ ADDRESSES)");
        lg_sample *sm = lg_sample_begin(g);
        if (!sm)
            return LG_ERROR;
        int64_t bs = 0;
        bool set = false;
        size_t k = 0;
        if (h.has_alloc) {
            if (heap_values(g, l, v[2], v[3], &h, sm->v, &bs, &set, off, "allocation"))
                return LG_ERROR;
            k = 2;
        }
        if (heap_values(g, l, v[0], v[1], &h, sm->v + k, &bs, &set, off, "inuse"))
            return LG_ERROR;
        sm->bytes = bs;
        sm->has_bytes = true;
        size_t nf = 0;
        if (lg_hex_frames(g, l + a, z - a, &nf, 0, off + a))
            return LG_ERROR;
        lg_sample_end(g, off);
    }
    return lg_additional_sections(g, &s);
}

/* ------------------------------------------------------------------ Go count profiles */

int
lg_parse_count(lg *g, const char *b, size_t n)
{
    lg_scan s;
    lg_scan_init(&s, b, b, b + n);
    while (lg_scan_next(&s) && lg_space_or_comment(s.line, s.len))
        ;
    /* \A(\S+) profile: total \d+\z */
    const char *l = s.line;
    size_t ln = s.len, i = 0;
    while (i < ln && l[i] != ' ' && l[i] != '\t' && l[i] != '\n' && l[i] != '\r' && l[i] != '\v' &&
           l[i] != '\f')
        i++;
    static const char mid[] = " profile: total ";
    if (!i || ln - i < sizeof(mid) - 1 || memcmp(l + i, mid, sizeof(mid) - 1))
        return LG_NOT_MINE;
    size_t d = i + sizeof(mid) - 1;
    if (d == ln || digits(l, ln, d) != ln)
        return LG_NOT_MINE;
    /* the type name lives in the text: the model's type strings are C strings */
    /* the type is named by the input: kept in the text, resolved when the profile is made */
    if (!lg_text(g, l, i, &g->count_type))
        return lg_nomem(g), LG_ERROR;
    g->has_count_type = true;
    g->ntypes = 1;
    g->period = 1;
    while (lg_scan_next(&s)) {
        l = s.line;
        ln = s.len;
        if (lg_space_or_comment(l, ln))
            continue;
        if (lg_has_prefix(l, ln, "---"))
            break;
        /* \A(\d+) @(( 0x[0-9a-f]+)+)\z */
        size_t e = digits(l, ln, 0);
        bool ok = e > 0 && ln - e >= 2 && l[e] == ' ' && l[e + 1] == '@';
        size_t k = e + 2;
        size_t nhex = 0;
        while (ok && k < ln) {
            if (ln - k < 4 || memcmp(l + k, " 0x", 3)) {
                ok = false;
                break;
            }
            size_t h = k + 3;
            while (h < ln && (dig(l[h]) || (l[h] >= 'a' && l[h] <= 'f')))
                h++;
            ok = h > k + 3;
            k = h;
            nhex++;
        }
        int64_t c;
        if (!ok || !nhex || !lg_parse_int(l, e, 0, &c))
            return lg_invalid(g, s.off, "malformed count profile line (COUNT @ 0xADDRESS...)");
        lg_sample *sm = lg_sample_begin(g);
        if (!sm)
            return LG_ERROR;
        sm->v[0] = c;
        size_t nf = 0;
        if (lg_hex_frames(g, l + e + 2, ln - e - 2, &nf, 0, s.off + e + 2))
            return LG_ERROR;
        lg_sample_end(g, s.off);
    }
    return lg_additional_sections(g, &s);
}

/* ------------------------------------------------------------------ threads */

/* --- Thread ([[:xdigit:]]+) \(name: (.*)/(\d+)\) stack: --- searched in the line */
static bool
thread_start(const char *p, size_t n)
{
    static const char head[] = "--- Thread ";
    static const char tail[] = ") stack: ---";
    /* the last '/' that digits and the tail follow: (.*) may run up to it */
    size_t last = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        if (p[k] != '/')
            continue;
        size_t d = digits(p, n, k + 1);
        if (d > k + 1 && n - d >= sizeof(tail) - 1 && !memcmp(p + d, tail, sizeof(tail) - 1))
            last = k;
        k = d - 1;
    }
    if (last == SIZE_MAX)
        return false;
    for (size_t at = 0; at + sizeof(head) - 1 <= n; at++) {
        if (memcmp(p + at, head, sizeof(head) - 1))
            continue;
        size_t i = at + sizeof(head) - 1, h = i;
        while (h < n &&
               ((p[h] >= '0' && p[h] <= '9') || ((p[h] | 0x20) >= 'a' && (p[h] | 0x20) <= 'f')))
            h++;
        if (h > i && n - h >= 8 && !memcmp(p + h, " (name: ", 8) && last >= h + 8)
            return true;
    }
    return false;
}

static bool
threadz_start(const char *p, size_t n)
{
    static const char head[] = "--- threadz ";
    for (size_t at = 0; at + sizeof(head) - 1 <= n; at++) {
        if (memcmp(p + at, head, sizeof(head) - 1))
            continue;
        size_t i = at + sizeof(head) - 1, d = digits(p, n, i);
        if (d > i && n - d >= 4 && !memcmp(p + d, " ---", 4))
            return true;
    }
    return false;
}

bool
lg_thread_header(const char *p, size_t n)
{
    return threadz_start(p, n) || thread_start(p, n);
}

int
lg_parse_thread(lg *g, const char *b, size_t n)
{
    static const char *const types[][2] = {{"thread", "count"}};
    lg_scan s;
    lg_scan_init(&s, b, b, b + n);
    while (lg_scan_next(&s) && lg_space_or_comment(s.line, s.len))
        ;
    const char *line = s.line;
    size_t len = s.len;
    uint64_t off = s.off;
    if (threadz_start(line, len)) {
        while (lg_scan_next(&s)) {
            line = s.line, len = s.len, off = s.off;
            if (lg_map_sentinel(line, len) || lg_has_prefix(line, len, "-"))
                break;
        }
    } else if (!thread_start(line, len)) {
        return LG_NOT_MINE;
    }
    lg_set_types(g, types, 1, "thread", "count", 1);
    while (!lg_map_sentinel(line, len)) {
        if (lg_has_prefix(line, len, "---- no stack trace for"))
            break;
        if (!thread_start(line, len))
            return LG_NOT_MINE;
        /* parseThreadSample */
        bool same = false;
        line = "", len = 0;
        lg_sample *sm = lg_sample_begin(g);
        if (!sm)
            return LG_ERROR;
        size_t nf = 0;
        while (lg_scan_next(&s)) {
            line = s.line, len = s.len;
            lg_trim(&line, &len);
            off = s.off + (uint64_t)(line - s.line);
            if (!len)
                continue;
            if (lg_has_prefix(line, len, "---"))
                break;
            if (lg_contains(line, len, "same as previous thread")) {
                same = true;
                continue;
            }
            if (lg_hex_frames(g, line, len, &nf, 1, off))
                return LG_ERROR;
        }
        if (same || nf == 0) {
            /* no stack: one more thread with the previous stack */
            g->stack.len = sm->first;
            g->samples.len--;
            if (g->samples.len)
                PPROF__AT(g->samples, lg_sample, g->samples.len - 1).v[0]++;
            continue;
        }
        sm->v[0] = 1;
        lg_sample_end(g, off);
    }
    if (lg_additional_sections(g, &s))
        return LG_ERROR;
    lg_cleanup_duplicate_leaf(g);
    return LG_OK;
}

/* ------------------------------------------------------------------ contention */

/* contentionSampleRE "(\d+) *(\d+) @([ x0-9a-f]*)" searched in the line. */
static bool
find_contention_sample(const char *p, size_t n, num *v1, num *v2, size_t *a, size_t *z)
{
    for (size_t i = 0; i < n; i++) {
        if (!dig(p[i]) || (i > 0 && dig(p[i - 1])))
            continue;
        size_t e = digits(p, n, i);
        size_t sp = skip_sp(p, n, e);
        size_t e2 = digits(p, n, sp);
        size_t at;
        if (e2 > sp && n - e2 >= 2 && p[e2] == ' ' && p[e2 + 1] == '@') {
            *v1 = (num){i, e - i};
            *v2 = (num){sp, e2 - sp};
            at = e2 + 2;
        } else if (e - i >= 2 && n - e >= 2 && p[e] == ' ' && p[e + 1] == '@') {
            /* the first number split before its last digit, as the backtracking match does */
            *v1 = (num){i, e - i - 1};
            *v2 = (num){e - 1, 1};
            at = e + 2;
        } else {
            continue;
        }
        size_t q = at;
        while (q < n && addr_char(p[q]))
            q++;
        *a = at;
        *z = q;
        return true;
    }
    return false;
}

int
lg_parse_contention(lg *g, const char *b, size_t n)
{
    static const char *const types[][2] = {{"contentions", "count"}, {"delay", "nanoseconds"}};
    lg_scan s;
    lg_scan_init(&s, b, b, b + n);
    if (!lg_scan_next(&s))
        return LG_NOT_MINE;
    if (!lg_has_prefix(s.line, s.len, "--- contentionz ") &&
        !lg_has_prefix(s.line, s.len, "--- mutex:") &&
        !lg_has_prefix(s.line, s.len, "--- contention:"))
        return LG_NOT_MINE;
    lg_set_types(g, types, 2, "contentions", "count", 1);
    int64_t hz = 0;
    while (lg_scan_next(&s)) {
        const char *l = s.line;
        size_t ln = s.len;
        lg_trim(&l, &ln);
        if (lg_space_or_comment(l, ln))
            continue;
        if (lg_has_prefix(l, ln, "---"))
            break;
        const char *eq = memchr(l, '=', ln);
        if (!eq)
            break;
        const char *k = l, *v = eq + 1;
        size_t kn = (size_t)(eq - l), vn = ln - kn - 1;
        lg_trim(&k, &kn);
        lg_trim(&v, &vn);
#define KEY_IS(str) (kn == sizeof(str) - 1 && !memcmp(k, str, kn))
        int64_t x;
        if (KEY_IS("cycles/second")) {
            if (!lg_parse_int(v, vn, 0, &hz))
                return LG_NOT_MINE;
        } else if (KEY_IS("sampling period")) {
            if (!lg_parse_int(v, vn, 0, &g->period))
                return LG_NOT_MINE;
        } else if (KEY_IS("ms since reset")) {
            if (!lg_parse_int(v, vn, 0, &x))
                return LG_NOT_MINE;
            if (x > INT64_MAX / 1000000 || x < INT64_MIN / 1000000)
                return lg_invalid(g, s.off, "ms since reset overflows nanoseconds");
            g->duration = x * 1000000;
        } else if (!KEY_IS("discarded samples")) {
            return LG_NOT_MINE; /* "format" and "resolution": the Java profile */
        }
#undef KEY_IS
    }
    for (;;) {
        const char *l = s.line;
        size_t ln = s.len;
        lg_trim(&l, &ln);
        uint64_t off = s.off + (uint64_t)(l - s.line);
        if (lg_has_prefix(l, ln, "---"))
            break;
        if (!lg_space_or_comment(l, ln)) {
            num v1, v2;
            size_t a, z;
            if (!find_contention_sample(l, ln, &v1, &v2, &a, &z))
                return lg_invalid(g, off,
                                  "not a contention sample line (DELAY COUNT @ "
                                  "ADDRESSES)");
            int64_t d, c;
            if (!lg_parse_int(l + v1.at, v1.len, 10, &d) ||
                !lg_parse_int(l + v2.at, v2.len, 10, &c))
                return lg_invalid(g, off, "malformed sample: a number does not fit 64 bits");
            if (g->period > 0) {
                if (hz > 0) {
                    double dv = (double)d * (double)g->period / ((double)hz / 1e9);
                    if (!(dv > -9.2e18 && dv < 9.2e18))
                        return lg_invalid(g, off, "the delay overflows");
                    d = (int64_t)dv;
                }
                if (__builtin_mul_overflow(c, g->period, &c))
                    return lg_invalid(g, off, "the count times the sampling period overflows");
            }
            lg_sample *sm = lg_sample_begin(g);
            if (!sm)
                return LG_ERROR;
            sm->v[0] = c;
            sm->v[1] = d;
            size_t nf = 0;
            if (lg_hex_frames(g, l + a, z - a, &nf, 0, off + a))
                return LG_ERROR;
            lg_sample_end(g, off);
        }
        if (!lg_scan_next(&s))
            break;
    }
    return lg_additional_sections(g, &s);
}
