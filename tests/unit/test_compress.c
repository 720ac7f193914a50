/* Containers: detection from bytes, gzip with several members, zstd with several frames and
 * skippable frames, corrupt and truncated streams, trailing garbage. */
#include <libdeflate.h>
#include <zstd.h>

#include "pb.h"
#include "testutil.h"

static pb
sample_profile(void)
{
    pb b = {0}, s = {0};
    const char *const strs[] = {"", "alloc", "bytes", "fn"};
    pb_strings(&b, strs, 4);
    pb_value_type(&b, 1, 1, 2);
    for (uint64_t i = 1; i <= 40; i++) {
        pb_v(&s, 1, i);
        pb_v(&s, 2, i * i);
        pb_msg_free(&b, 2, &s);
        pb_v(&s, 1, i);
        pb_v(&s, 2, 3);
        pb_msg_free(&b, 5, &s);
    }
    return b;
}

static void
gz(pprof_buffer *out, const uint8_t *d, size_t n)
{
    if (pprof__compress(d, n, PPROF_FORMAT_GZIP, 6, 1, NULL, out, NULL))
        abort();
}

static void
zs(pprof_buffer *out, const uint8_t *d, size_t n)
{
    if (pprof__compress(d, n, PPROF_FORMAT_ZSTD, 3, 1, NULL, out, NULL))
        abort();
}

static pprof_status
read_mem(const pprof_buffer *b, pprof_profile **p, pprof_error *err)
{
    return pprof_profile_read_memory(b->data, b->len, NULL, p, err);
}

static void
test_detect(tap *t)
{
    const uint8_t gzm[] = {0x1f, 0x8b}, zm[] = {0x28, 0xb5, 0x2f, 0xfd}, raw[] = {0x0a, 0x00};
    tap_ok(t, pprof_detect_format(gzm, 2) == PPROF_FORMAT_GZIP, "gzip magic");
    tap_ok(t, pprof_detect_format(zm, 4) == PPROF_FORMAT_ZSTD, "zstd magic");
    tap_ok(t, pprof_detect_format(zm, 3) == PPROF_FORMAT_RAW, "3 bytes of zstd magic are raw");
    tap_ok(t, pprof_detect_format(gzm, 1) == PPROF_FORMAT_RAW, "1 byte of gzip magic is raw");
    tap_ok(t, pprof_detect_format(raw, 2) == PPROF_FORMAT_RAW, "protobuf is raw");
    tap_ok(t, pprof_detect_format(NULL, 0) == PPROF_FORMAT_RAW, "nothing is raw");
    tap_ok(t,
           strcmp(pprof_format_name(PPROF_FORMAT_GZIP), "gzip") == 0 &&
               strcmp(pprof_format_name(PPROF_FORMAT_ZSTD), "zstd") == 0 &&
               strcmp(pprof_format_name(PPROF_FORMAT_RAW), "none") == 0,
           "format names");
}

static void
test_gzip(tap *t, const pb *raw, const pprof_profile *ref)
{
    pprof_buffer one = {0};
    gz(&one, raw->d, raw->n);
    pprof_profile *p = NULL;
    tap_ok(t,
           read_mem(&one, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref) &&
               pprof_profile_source_format(p) == PPROF_FORMAT_GZIP,
           "gzip: one member");
    pprof_profile_free(p);

    /* Members split anywhere, even inside a field: the decompressed bytes are concatenated */
    const size_t cuts[] = {1, 7, raw->n / 2, raw->n - 1};
    for (size_t c = 0; c < 4; c++) {
        pprof_buffer multi = {0};
        gz(&multi, raw->d, cuts[c]);
        gz(&multi, raw->d + cuts[c], raw->n - cuts[c]);
        tap_ok(t, read_mem(&multi, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref),
               "gzip: two members split at byte %zu", cuts[c]);
        pprof_profile_free(p);
        pprof_buffer_free(&multi);
    }
    pprof_buffer many = {0};
    for (size_t i = 0; i < raw->n; i += 50)
        gz(&many, raw->d + i, raw->n - i < 50 ? raw->n - i : 50);
    gz(&many, raw->d, 0); /* an empty member contributes nothing */
    tap_ok(t, read_mem(&many, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref),
           "gzip: %zu members, the last one empty", raw->n / 50 + 2);
    pprof_profile_free(p);
    pprof_buffer_free(&many);

    /* zero padding after the last member is tolerated, like gzip(1) */
    pprof_buffer pad = {0};
    gz(&pad, raw->d, raw->n);
    pprof__buffer_append(&pad, "\0\0\0\0\0\0\0", 7);
    tap_ok(t, read_mem(&pad, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref),
           "gzip: zero padding after the last member");
    pprof_profile_free(p);
    pprof_buffer_free(&pad);

    pprof_error err;
    const char *garbage[] = {"x", "\0\0junk", "\x1f"};
    const size_t glen[] = {1, 6, 1};
    for (int g = 0; g < 3; g++) {
        pprof_buffer tr = {0};
        gz(&tr, raw->d, raw->n);
        size_t member_end = tr.len;
        pprof__buffer_append(&tr, garbage[g], glen[g]);
        pprof_status st = read_mem(&tr, &p, &err);
        if (!tap_ok(t, st == PPROF_E_COMPRESSION && !p && err.offset == member_end,
                    "gzip: trailing garbage %d refused at byte %zu", g, member_end))
            tap_diag("%s at %llu: %s", pprof_status_name(st), (unsigned long long)err.offset,
                     err.message);
        pprof_profile_free(p);
        pprof_buffer_free(&tr);
    }

    /* every truncation of a member is refused, never read as a shorter profile */
    int bad = 0;
    for (size_t n = 2; n < one.len; n++) {
        pprof_buffer cut = {0};
        pprof__buffer_append(&cut, one.data, n);
        pprof_status st = read_mem(&cut, &p, &err);
        if (st != PPROF_E_COMPRESSION)
            bad++;
        pprof_profile_free(p);
        pprof_buffer_free(&cut);
    }
    tap_ok(t, bad == 0, "gzip: all %zu truncations refused with PPROF_E_COMPRESSION (%d not)",
           one.len - 2, bad);

    /* a flipped byte in the deflate data or in the CRC is caught */
    int missed = 0;
    for (size_t i = 10; i < one.len; i++) {
        pprof_buffer c = {0};
        pprof__buffer_append(&c, one.data, one.len);
        c.data[i] ^= 0x55;
        pprof_status st = read_mem(&c, &p, &err);
        if (st != PPROF_E_COMPRESSION)
            missed++;
        pprof_profile_free(p);
        pprof_buffer_free(&c);
    }
    tap_ok(t, missed == 0, "gzip: a flipped byte anywhere past the header is refused (%d missed)",
           missed);

    /* a lying ISIZE is only a size hint: it changes nothing but is caught by the check */
    pprof_buffer lie = {0};
    pprof__buffer_append(&lie, one.data, one.len);
    lie.data[lie.len - 1] = 0x7f;
    tap_ok(t, read_mem(&lie, &p, &err) == PPROF_E_COMPRESSION, "gzip: wrong ISIZE refused");
    pprof_profile_free(p);
    pprof_buffer_free(&lie);

    pprof_buffer empty = {0};
    gz(&empty, raw->d, 0);
    tap_ok(t, read_mem(&empty, &p, &err) == PPROF_E_EMPTY, "gzip of nothing: PPROF_E_EMPTY");
    pprof_buffer_free(&empty);
    pprof_buffer_free(&one);
}

static void
test_zstd(tap *t, const pb *raw, const pprof_profile *ref)
{
    pprof_buffer one = {0};
    zs(&one, raw->d, raw->n);
    pprof_profile *p = NULL;
    pprof_error err;
    tap_ok(t,
           read_mem(&one, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref) &&
               pprof_profile_source_format(p) == PPROF_FORMAT_ZSTD,
           "zstd: one frame");
    pprof_profile_free(p);

    pprof_buffer multi = {0};
    size_t cut = raw->n / 3;
    zs(&multi, raw->d, cut);
    zs(&multi, raw->d + cut, cut);
    zs(&multi, raw->d + 2 * cut, raw->n - 2 * cut);
    tap_ok(t, read_mem(&multi, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref),
           "zstd: three frames");
    pprof_profile_free(p);
    pprof_buffer_free(&multi);

    /* a skippable frame carries no data; zstd's own tools step over it */
    pprof_buffer sk = {0};
    zs(&sk, raw->d, cut);
    const uint8_t skip[] = {0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'};
    pprof__buffer_append(&sk, skip, sizeof(skip));
    zs(&sk, raw->d + cut, raw->n - cut);
    tap_ok(t, read_mem(&sk, &p, NULL) == PPROF_OK && pprof_profile_equal(p, ref),
           "zstd: a skippable frame between data frames");
    pprof_profile_free(p);
    pprof_buffer_free(&sk);

    /* a frame without a content size (streaming compressors write those) */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    size_t bound = ZSTD_compressBound(raw->n);
    uint8_t *zbuf = malloc(bound);
    size_t zn = ZSTD_compress2(cc, zbuf, bound, raw->d, raw->n);
    ZSTD_freeCCtx(cc);
    tap_ok(t,
           !ZSTD_isError(zn) && ZSTD_getFrameContentSize(zbuf, zn) == ZSTD_CONTENTSIZE_UNKNOWN &&
               pprof_profile_read_memory(zbuf, zn, NULL, &p, NULL) == PPROF_OK &&
               pprof_profile_equal(p, ref),
           "zstd: frame without a content size");
    pprof_profile_free(p);
    free(zbuf);

    pprof_buffer tr = {0};
    zs(&tr, raw->d, raw->n);
    pprof__buffer_append(&tr, "garbage!", 8);
    pprof_status st = read_mem(&tr, &p, &err);
    tap_ok(t, st == PPROF_E_COMPRESSION && !p, "zstd: trailing garbage refused (%s)",
           pprof_status_name(st));
    pprof_buffer_free(&tr);

    int bad = 0;
    for (size_t n = 4; n < one.len; n++) {
        pprof_buffer c = {0};
        pprof__buffer_append(&c, one.data, n);
        st = read_mem(&c, &p, &err);
        if (st != PPROF_E_COMPRESSION)
            bad++;
        pprof_profile_free(p);
        pprof_buffer_free(&c);
    }
    tap_ok(t, bad == 0, "zstd: all %zu truncations refused with PPROF_E_COMPRESSION (%d not)",
           one.len - 4, bad);

    /* corrupt frames are refused or, where zstd has no checksum to notice, decode to a profile;
     * never anything else */
    int other = 0, refused = 0;
    for (size_t i = 4; i < one.len; i++) {
        pprof_buffer c = {0};
        pprof__buffer_append(&c, one.data, one.len);
        c.data[i] ^= 0xa5;
        st = read_mem(&c, &p, &err);
        if (st == PPROF_E_COMPRESSION)
            refused++;
        else if (st != PPROF_OK && st != PPROF_E_WIRE && st != PPROF_E_EMPTY &&
                 st != PPROF_E_INVALID)
            other++;
        pprof_profile_free(p);
        pprof_buffer_free(&c);
    }
    tap_ok(t, other == 0 && refused > 0, "zstd: flipped bytes give clean results (%d refused)",
           refused);
    pprof_buffer_free(&one);
}

/* in inflated with `threads` threads: PPROF_OK and exactly want, or the status and offset
 * one thread gives. */
static bool
sides_same(const pprof_buffer *in, unsigned threads, const uint8_t *want, size_t want_len)
{
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    uint8_t *one = NULL, *many = NULL;
    size_t one_len = 0, many_len = 0;
    pprof_error e1, e2;
    pprof_status s1 =
        pprof__decompress(in->data, in->len, PPROF_FORMAT_GZIP, &ro, &one, &one_len, &e1);
    ro.threads = threads;
    pprof_status s2 =
        pprof__decompress(in->data, in->len, PPROF_FORMAT_GZIP, &ro, &many, &many_len, &e2);
    bool ok =
        s1 == s2 && (s1 ? e1.offset == e2.offset && strcmp(e1.message, e2.message) == 0
                        : one_len == many_len && memcmp(one, many, one_len) == 0 &&
                              (!want || (want_len == one_len && memcmp(want, one, one_len) == 0)));
    if (s1 == PPROF_OK)
        pprof__free(&ro.allocator, one);
    if (s2 == PPROF_OK)
        pprof__free(&ro.allocator, many);
    return ok;
}

/* A gzip member by hand: header flags flg (with FNAME, a name "x"), raw deflate at level. */
static void
gz_member(pprof_buffer *out, const uint8_t *d, size_t n, int level, uint8_t flg)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t bound = libdeflate_deflate_compress_bound(c, n);
    uint8_t hdr[10] = {0x1f, 0x8b, 8, flg, 0, 0, 0, 0, 0, 0xff};
    pprof__buffer_append(out, hdr, sizeof(hdr));
    if (flg & 8)
        pprof__buffer_append(out, "x", 2);
    pprof__buffer_reserve(out, bound);
    out->len += libdeflate_deflate_compress(c, d, n, out->data + out->len, bound);
    uint32_t crc = libdeflate_crc32(0, d, n), len = (uint32_t)n;
    uint8_t tr[8] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24),
                     (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
    pprof__buffer_append(out, tr, sizeof(tr));
    libdeflate_free_compressor(c);
}

/* Members inflated side by side (pprof_read_options.threads) give what one thread gives, also
 * when the members' starts read from the bytes are wrong: a start that is not found, one that
 * is found where there is none, padding after the last member, a member that is corrupt. */
static void
test_gzip_sides(tap *t, const uint8_t *d, size_t n, const pprof_buffer *members)
{
    tap_ok(t, sides_same(members, 2, d, n) && sides_same(members, 5, d, n),
           "gzip sides: 2 and 5 threads read the members as one does");
    size_t third = n / 3;
    /* the second member has a name: its start is not found */
    pprof_buffer named = {0};
    gz_member(&named, d, third, 1, 0);
    gz_member(&named, d + third, third, 1, 8);
    gz_member(&named, d + 2 * third, n - 2 * third, 1, 0);
    tap_ok(t, sides_same(&named, 2, d, n), "gzip sides: a member with a name in the middle");
    /* stored blocks (level 0) copy the bytes as they are: a header inside one is found */
    uint8_t *fake = malloc(n);
    memcpy(fake, d, n);
    /* a plausible trailer before it (a size of 0), so that the plan is made and fails */
    const uint8_t sig[] = {0, 0, 0, 0, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 0xff};
    for (size_t at = 1000; at + sizeof(sig) < n; at += 300000)
        memcpy(fake + at, sig, sizeof(sig));
    pprof_buffer stored = {0};
    gz_member(&stored, fake, third, 0, 0);
    gz_member(&stored, fake + third, n - third, 0, 0);
    tap_ok(t, sides_same(&stored, 2, fake, n),
           "gzip sides: member headers inside stored data are not members");
    /* zero padding after the last member */
    pprof_buffer pad = {0};
    pprof__buffer_append(&pad, members->data, members->len);
    pprof__buffer_append(&pad, "\0\0\0\0", 4);
    tap_ok(t, sides_same(&pad, 2, d, n), "gzip sides: zero padding after the last member");
    /* a flipped byte in the second member: the same error from one thread or two */
    pprof_buffer bad = {0};
    pprof__buffer_append(&bad, named.data, named.len);
    bad.data[named.len / 2] ^= 0x55;
    tap_ok(t, sides_same(&bad, 2, NULL, 0), "gzip sides: a corrupt member, the same error");
    free(fake);
    pprof_buffer_free(&named);
    pprof_buffer_free(&stored);
    pprof_buffer_free(&pad);
    pprof_buffer_free(&bad);
}

/* Large outputs are gzip members of PPROF_GZIP_MEMBER_BYTES input bytes each, compressed by
 * several threads; the bytes must not depend on the thread count, and small outputs stay one
 * plain member. */
static void
test_gzip_members(tap *t)
{
    size_t n = 2 * PPROF_GZIP_MEMBER_BYTES + 123;
    uint8_t *d = malloc(n);
    uint64_t x = 88172645463325252u;
    /* compressible but not trivial: strings (field 6) of a few distinct bytes, so that the
     * reader's sniff sees protobuf; the last one is cut at n, which only the decoder minds */
    for (size_t i = 0; i < n;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = 1 + x % 20;
        d[i++] = 0x32;
        if (i < n)
            d[i++] = (uint8_t)len;
        for (size_t k = 0; k < len && i < n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            d[i++] = (uint8_t)("pprof-samples\n"[x % 14]);
        }
    }
    pprof_buffer one = {0}, three = {0}, many = {0};
    bool ok = pprof__compress(d, n, PPROF_FORMAT_GZIP, 2, 1, NULL, &one, NULL) == PPROF_OK &&
              pprof__compress(d, n, PPROF_FORMAT_GZIP, 2, 3, NULL, &three, NULL) == PPROF_OK &&
              pprof__compress(d, n, PPROF_FORMAT_GZIP, 2, 64, NULL, &many, NULL) == PPROF_OK;
    tap_ok(t,
           ok && one.len == three.len && one.len == many.len &&
               memcmp(one.data, three.data, one.len) == 0 &&
               memcmp(one.data, many.data, one.len) == 0,
           "gzip: 1, 3 and 64 threads give the same bytes (%zu)", one.len);
    /* walk the members with libdeflate itself */
    struct libdeflate_decompressor *dc = libdeflate_alloc_decompressor();
    uint8_t *back = malloc(n);
    size_t in_pos = 0, out_pos = 0, members = 0;
    bool walk = ok && dc && back;
    while (walk && in_pos < one.len) {
        size_t used = 0, got = 0;
        walk =
            libdeflate_gzip_decompress_ex(dc, one.data + in_pos, one.len - in_pos, back + out_pos,
                                          n - out_pos, &used, &got) == LIBDEFLATE_SUCCESS;
        in_pos += used, out_pos += got, members++;
    }
    tap_ok(t, walk && members == 3 && out_pos == n && memcmp(back, d, n) == 0,
           "gzip: %zu input bytes are 3 members that inflate to the input (%zu members)", n,
           members);
    uint8_t *round = NULL;
    size_t round_len = 0;
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    tap_ok(t,
           ok &&
               pprof__decompress(one.data, one.len, PPROF_FORMAT_GZIP, &ro, &round, &round_len,
                                 NULL) == PPROF_OK &&
               round_len == n && memcmp(round, d, n) == 0,
           "gzip: the library reads its multi-member output back");
    pprof__free(&ro.allocator, round);
    test_gzip_sides(t, d, n, &one);
    /* below the member size: exactly libdeflate's single member */
    pprof_buffer small = {0};
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(2);
    size_t m = 100000, bound = c ? libdeflate_gzip_compress_bound(c, m) : 0;
    uint8_t *plain = malloc(bound + 1);
    size_t plain_len = c && plain ? libdeflate_gzip_compress(c, d, m, plain, bound) : 0;
    tap_ok(t,
           pprof__compress(d, m, PPROF_FORMAT_GZIP, 2, 8, NULL, &small, NULL) == PPROF_OK &&
               plain_len && small.len == plain_len && memcmp(small.data, plain, plain_len) == 0,
           "gzip: a small output is one plain member");
    libdeflate_free_compressor(c);
    libdeflate_free_decompressor(dc);
    free(plain);
    free(back);
    free(d);
    pprof_buffer_free(&one);
    pprof_buffer_free(&three);
    pprof_buffer_free(&many);
    pprof_buffer_free(&small);
}

/* The gzip stream fed member by member from one buffer that the producer writes again after
 * each wait (as the encoder's ring does), with no thread besides the caller: the wait compresses
 * the member itself, and the bytes are pprof__compress's. Handed more members than announced,
 * the wait returns and finish fails instead of waiting for ever. */
static void
test_gzip_stream_members(tap *t)
{
    const size_t M = PPROF_GZIP_MEMBER_BYTES, n = 3 * M + 777;
    uint8_t *d = malloc(n), *buf = malloc(M);
    uint64_t x = 424242;
    for (size_t i = 0; d && i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        d[i] = (uint8_t)("profile\n"[x % 8]);
    }
    pprof_buffer want = {0}, got = {0};
    bool ok =
        d && buf && pprof__compress(d, n, PPROF_FORMAT_GZIP, 1, 1, NULL, &want, NULL) == PPROF_OK;
    pprof__gz_stream *g = ok ? pprof__gz_stream_start(NULL, n, 1, 1, NULL, &got, NULL, NULL) : NULL;
    for (size_t k = 0; g && k * M < n; k++) {
        size_t len = n - k * M < M ? n - k * M : M;
        pprof__gz_stream_wait(g, k); /* member k - 1 is done: buf may be written again */
        memcpy(buf, d + k * M, len);
        pprof__gz_stream_member(g, k, buf);
        if (len == M)
            pprof__gz_stream_ready(g, (k + 1) * M);
        else
            ok = pprof__gz_stream_finish(g, n, true, NULL) == PPROF_OK, g = NULL;
    }
    tap_ok(t, ok && !g && got.len == want.len && !memcmp(got.data, want.data, want.len),
           "gzip stream fed from one reused buffer on one thread: pprof__compress's %zu bytes",
           want.len);
    pprof_buffer over = {0};
    pprof_error err;
    g = d && buf ? pprof__gz_stream_start(NULL, M, 1, 2, NULL, &over, NULL, NULL) : NULL;
    pprof_status st = PPROF_OK;
    if (g) {
        pprof__gz_stream_member(g, 0, d);
        pprof__gz_stream_member(g, 1, d + M);
        pprof__gz_stream_ready(g, 2 * M);
        pprof__gz_stream_wait(g, 2);
        st = pprof__gz_stream_finish(g, 2 * M, true, &err);
    }
    tap_ok(t, g && st == PPROF_E_COMPRESSION,
           "a stream handed more members than announced fails (%s)",
           g ? err.message : "not started");
    free(d);
    free(buf);
    pprof_buffer_free(&want);
    pprof_buffer_free(&got);
    pprof_buffer_free(&over);
}

int
main(void)
{
    tap t = {0};
    pb raw = sample_profile();
    pprof_profile *ref = NULL;
    if (tu_decode_raw(raw.d, raw.n, NULL, &ref, NULL) != PPROF_OK)
        return 1;
    test_detect(&t);
    test_gzip(&t, &raw, ref);
    test_gzip_members(&t);
    test_gzip_stream_members(&t);
    test_zstd(&t, &raw, ref);
    pprof_profile_free(ref);
    pb_free(&raw);
    return tap_done(&t);
}
