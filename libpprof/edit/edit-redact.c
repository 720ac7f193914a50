/* Redaction: file names, mapping file names and the string values of named label keys become
 * "redacted:" and 32 hex digits of a keyed hash, so the same name under the same key gives the
 * same text (redacted profiles still merge) and nothing of the name can be read back without
 * the key. The hash is SipHash-2-4 (Aumasson and Bernstein, a keyed PRF made for short inputs)
 * with a 128-bit output made of two calls; a key file of any length is folded into the 128-bit
 * SipHash key block by block with SipHash itself. */
#include <stdio.h>

#include "edit-private.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void
sipround(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = ROTL(v[1], 13);
    v[1] ^= v[0];
    v[0] = ROTL(v[0], 32);
    v[2] += v[3];
    v[3] = ROTL(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = ROTL(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = ROTL(v[1], 17);
    v[1] ^= v[2];
    v[2] = ROTL(v[2], 32);
}

static uint64_t
le64(const uint8_t *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
}

/* SipHash-2-4 of (tag byte, then n bytes) under key (k0, k1). tag < 0: no tag byte. */
uint64_t pprof__siphash(uint64_t k0, uint64_t k1, int tag, const void *data, size_t n);
uint64_t
pprof__siphash(uint64_t k0, uint64_t k1, int tag, const void *data, size_t n)
{
    uint64_t v[4] = {k0 ^ UINT64_C(0x736f6d6570736575), k1 ^ UINT64_C(0x646f72616e646f6d),
                     k0 ^ UINT64_C(0x6c7967656e657261), k1 ^ UINT64_C(0x7465646279746573)};
    const uint8_t *p = data;
    size_t total = n + (tag >= 0);
    uint8_t block[8];
    size_t fill = 0;
    if (tag >= 0)
        block[fill++] = (uint8_t)tag;
    for (size_t i = 0; i < n; i++) {
        block[fill++] = p[i];
        if (fill == 8) {
            uint64_t m = le64(block);
            v[3] ^= m;
            sipround(v);
            sipround(v);
            v[0] ^= m;
            fill = 0;
        }
    }
    memset(block + fill, 0, 8 - fill);
    block[7] = (uint8_t)total;
    uint64_t m = le64(block);
    v[3] ^= m;
    sipround(v);
    sipround(v);
    v[0] ^= m;
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++)
        sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

typedef struct redactor {
    uint64_t k0, k1;
    int64_t *memo; /* per string index: its redacted string, or -1 */
    size_t n;
} redactor;

static void
derive_key(redactor *r, const uint8_t *key, size_t n)
{
    r->k0 = r->k1 = 0;
    for (size_t off = 0; off == 0 || off < n; off += 16) {
        size_t len = n - off < 16 ? n - off : 16;
        uint64_t a = pprof__siphash(r->k0, r->k1, 0, key + off, len);
        uint64_t b = pprof__siphash(r->k0, r->k1, 1, key + off, len);
        r->k0 = a;
        r->k1 = b;
    }
}

static int64_t
redacted(pprof__ed *e, redactor *r, int64_t i)
{
    if (i <= 0 || (uint64_t)i >= r->n)
        return i; /* "" stays "" */
    if (r->memo[i] >= 0)
        return r->memo[i];
    pprof_string s = ed_str(e, i);
    char text[48];
    int n = snprintf(text, sizeof(text), "redacted:%016llx%016llx",
                     (unsigned long long)pprof__siphash(r->k0, r->k1, 2, s.data, s.len),
                     (unsigned long long)pprof__siphash(r->k0, r->k1, 3, s.data, s.len));
    return r->memo[i] = ed_add_string(e, text, (size_t)n);
}

static bool
is_redacted_key(const pprof__ed *e, uint8_t *memo, int64_t key)
{
    if (!memo[key]) {
        pprof_string k = ed_str(e, key);
        memo[key] = 1;
        for (size_t j = 0; j < e->o.n_redact_labels; j++) {
            const char *want = e->o.redact_labels[j] ? e->o.redact_labels[j] : "";
            if (strlen(want) == k.len && !memcmp(want, k.data, k.len))
                memo[key] = 2;
        }
    }
    return memo[key] == 2;
}

pprof_status
ed_redact(pprof__ed *e)
{
    pprof_profile *w = e->w;
    redactor r;
    derive_key(&r, e->o.redact_key, e->o.redact_key_len);
    r.n = w->strings.len;
    r.memo = pprof__malloc(e->a, (r.n + 1) * sizeof(int64_t));
    uint8_t *keys = pprof__malloc(e->a, r.n + 1);
    if (!r.memo || !keys) {
        pprof__free(e->a, r.memo);
        pprof__free(e->a, keys);
        return ed_nomem(e);
    }
    for (size_t i = 0; i < r.n; i++)
        r.memo[i] = -1;
    memset(keys, 0, r.n);
    if ((e->o.redact & PPROF_REDACT_FILES) && ed_own(e, &w->functions, sizeof(pprof_function)))
        for (size_t i = 0; i < w->functions.len && !e->st; i++) {
            pprof_function *f = &PPROF__AT(w->functions, pprof_function, i);
            f->filename = redacted(e, &r, f->filename);
        }
    if ((e->o.redact & PPROF_REDACT_MAPPINGS) && ed_own(e, &w->mappings, sizeof(pprof_mapping)))
        for (size_t i = 0; i < w->mappings.len && !e->st; i++) {
            pprof_mapping *m = &PPROF__AT(w->mappings, pprof_mapping, i);
            m->filename = redacted(e, &r, m->filename);
        }
    if ((e->o.redact & PPROF_REDACT_LABELS) && ed_own(e, &w->labels, sizeof(pprof_label)))
        for (size_t i = 0; i < w->labels.len && !e->st; i++) {
            pprof_label *l = &PPROF__AT(w->labels, pprof_label, i);
            if (l->key >= 0 && (uint64_t)l->key < r.n && l->str > 0 &&
                is_redacted_key(e, keys, l->key))
                l->str = redacted(e, &r, l->str);
        }
    pprof__free(e->a, keys);
    pprof__free(e->a, r.memo);
    return e->st;
}
