/* The aesgen provider against OpenSSL's default provider, through EVP only:
 *   provider_differential <module-dir>
 * Every ECB/CBC/CTR cipher the provider offers: lengths 0..2048 (padding on and off),
 * 1 MiB, random update splits, in place, decryption of the other's ciphertext,
 * re-init with a new IV and the same key (and with neither), EVP_CIPHER_CTX_copy mid-stream, bad key
 * length, tampered padding, the updated IV and num, and the provider's call counter.
 * AES-128-XTS and AES-256-XTS: every data-unit length 16..1024 and large ones up to
 * 2^20 blocks, both directions, in place, EVP_Cipher, several units per context, new
 * tweaks, copies, units too short or too long, equal key halves, key lengths.
 * AES-128/192/256-GCM: every message length 0..1024 and large ones, IVs of several
 * lengths, AAD and text split at random points, every tag length aesgen takes, in
 * place, tampering, re-init with a new IV, copies, refused calls, the documented
 * differences from the default provider, and TLS 1.2 records both ways.
 * AESGEN_DIFFERENTIAL_QUICK=1 (the memcheck stage) takes every 7th length and skips
 * the large messages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

static unsigned long failures, checks;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        checks++;                                                                         \
        if (!(cond)) {                                                                    \
            if (failures++ < 20) {                                                        \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                      \
                fprintf(stderr, __VA_ARGS__);                                             \
                fputc('\n', stderr);                                                      \
                ERR_print_errors_fp(stderr);                                              \
            }                                                                             \
        }                                                                                 \
    } while (0)

static uint64_t rng_state = 0x243f6a8885a308d3u;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static void rnd_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
}

/* A message through one context: updates at the given split points (ascending, each
 * <= len), then final. In place when out == in: out advances by what was written and
 * in by what was read, as EVP's documentation allows. Returns 1 and the length, or 0
 * if any call failed (then *outlen is what update and final wrote before that). */
static int run(EVP_CIPHER_CTX *ctx, uint8_t *out, size_t *outlen, const uint8_t *in, size_t len,
               const size_t *cuts, size_t ncuts)
{
    size_t pos = 0, w = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        int ol = 0;
        if (!EVP_CipherUpdate(ctx, out + w, &ol, in + pos, (int)(end - pos))) {
            *outlen = w;
            return 0;
        }
        w += (size_t)ol;
        pos = end;
    }
    int fl = 0;
    int ok = EVP_CipherFinal_ex(ctx, out + w, &fl);
    *outlen = w + (size_t)fl;
    return ok;
}

static EVP_CIPHER_CTX *start(const EVP_CIPHER *c, int enc, int pad, const uint8_t *key, const uint8_t *iv)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL || !EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL)) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    EVP_CIPHER_CTX_set_padding(ctx, pad);
    return ctx;
}

/* One message, one context, fresh: returns 1 on success. */
static int crypt1(const EVP_CIPHER *c, int enc, int pad, const uint8_t *key, const uint8_t *iv, uint8_t *out,
                  size_t *outlen, const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts)
{
    EVP_CIPHER_CTX *ctx = start(c, enc, pad, key, iv);
    if (ctx == NULL)
        return 0;
    int ok = run(ctx, out, outlen, in, len, cuts, ncuts);
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

static size_t random_cuts(size_t *cuts, size_t len)
{
    size_t n = len == 0 ? 0 : (size_t)(rnd() % 6);
    for (size_t i = 0; i < n; i++)
        cuts[i] = (size_t)(rnd() % (len + 1));
    /* ascending (insertion sort, n <= 5) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    return n;
}

static uint64_t calls(OSSL_PROVIDER *prov)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64("aesgen-calls", &v), OSSL_PARAM_END};
    if (!OSSL_PROVIDER_get_params(prov, p))
        return 0;
    return v;
}

/* Lengths 0..maxlen (step), padding on and off, splits, in place, cross-decryption. */
static void sweep(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d, int stream, size_t maxlen,
                  size_t step)
{
    size_t cap = maxlen + 64;
    uint8_t *pt = malloc(cap), *ca = malloc(cap), *cd = malloc(cap), *x = malloc(cap), *y = malloc(cap);
    size_t cuts[8];
    uint8_t key[32], iv[16];
    int keylen = EVP_CIPHER_get_key_length(a);
    for (size_t len = 0; len <= maxlen; len += (len < 64 ? 1 : step)) {
        for (int pad = 1; pad >= (stream ? 1 : 0); pad--) {
            rnd_bytes(key, sizeof key);
            rnd_bytes(iv, sizeof iv);
            rnd_bytes(pt, len);
            size_t la = 0, ld = 0, lx = 0, ly = 0;
            int oka = crypt1(a, 1, pad, key, iv, ca, &la, pt, len, NULL, 0);
            int okd = crypt1(d, 1, pad, key, iv, cd, &ld, pt, len, NULL, 0);
            if (!stream && !pad && len % 16 != 0) {
                /* Without padding a partial block fails in final, on both. */
                CHECK(!oka && !okd, "%s len %zu no padding: aesgen %d, default %d (both must fail)", name, len,
                      oka, okd);
                CHECK(la == ld, "%s len %zu no padding: output before the failure %zu vs %zu", name, len, la, ld);
                continue;
            }
            CHECK(oka && okd && la == ld && memcmp(ca, cd, ld) == 0, "%s encrypt len %zu pad %d (key %d)", name,
                  len, pad, keylen);
            /* each decrypts the other's ciphertext */
            oka = crypt1(a, 0, pad, key, iv, x, &lx, cd, ld, NULL, 0);
            okd = crypt1(d, 0, pad, key, iv, y, &ly, ca, la, NULL, 0);
            CHECK(oka && lx == len && memcmp(x, pt, len) == 0, "%s aesgen decrypts default len %zu pad %d", name,
                  len, pad);
            CHECK(okd && ly == len && memcmp(y, pt, len) == 0, "%s default decrypts aesgen len %zu pad %d", name,
                  len, pad);
            /* random splits, twice per length, both directions */
            for (int t = 0; t < 2; t++) {
                size_t n = random_cuts(cuts, len);
                oka = crypt1(a, 1, pad, key, iv, x, &lx, pt, len, cuts, n);
                CHECK(oka && lx == ld && memcmp(x, cd, ld) == 0, "%s split encrypt len %zu pad %d cuts %zu", name,
                      len, pad, n);
                n = random_cuts(cuts, ld);
                oka = crypt1(a, 0, pad, key, iv, x, &lx, cd, ld, cuts, n);
                CHECK(oka && lx == len && memcmp(x, pt, len) == 0, "%s split decrypt len %zu pad %d cuts %zu",
                      name, len, pad, n);
            }
            /* in place with splits, encrypt then decrypt in the same buffer */
            memcpy(x, pt, len);
            size_t n = random_cuts(cuts, len);
            oka = crypt1(a, 1, pad, key, iv, x, &lx, x, len, cuts, n);
            CHECK(oka && lx == ld && memcmp(x, cd, ld) == 0, "%s in-place encrypt len %zu pad %d", name, len, pad);
            n = random_cuts(cuts, lx);
            oka = crypt1(a, 0, pad, key, iv, x, &ly, x, lx, cuts, n);
            CHECK(oka && ly == len && memcmp(x, pt, len) == 0, "%s in-place decrypt len %zu pad %d", name, len,
                  pad);
        }
    }
    free(pt), free(ca), free(cd), free(x), free(y);
}

/* Re-init with a new IV (key NULL), and EVP_CIPHER_CTX_copy mid-stream. */
static void reinit_and_copy(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv1[16], iv2[16], pt[300], ra[3][320], rd[3][320], rc[320];
    rnd_bytes(key, sizeof key), rnd_bytes(iv1, 16), rnd_bytes(iv2, 16), rnd_bytes(pt, sizeof pt);
    size_t la[3], ld[3], lc;
    const EVP_CIPHER *cs[2] = {a, d};
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = start(cs[k], 1, 1, key, iv1);
        size_t *l = k == 0 ? la : ld;
        uint8_t(*r)[320] = k == 0 ? ra : rd;
        int ok = ctx != NULL && run(ctx, r[0], &l[0], pt, 77, NULL, 0);
        ok = ok && EVP_CipherInit_ex2(ctx, NULL, NULL, iv2, 1, NULL) && run(ctx, r[1], &l[1], pt, 77, NULL, 0);
        /* neither key nor IV: the default provider restarts from the last IV given */
        ok = ok && EVP_CipherInit_ex2(ctx, NULL, NULL, NULL, 1, NULL) && run(ctx, r[2], &l[2], pt, 77, NULL, 0);
        CHECK(ok, "%s re-init (provider %d)", name, k);
        EVP_CIPHER_CTX_free(ctx);
    }
    CHECK(la[0] == ld[0] && memcmp(ra[0], rd[0], ld[0]) == 0, "%s first message before re-init", name);
    CHECK(la[1] == ld[1] && memcmp(ra[1], rd[1], ld[1]) == 0, "%s message after re-init with a new IV", name);
    CHECK(la[2] == ld[2] && memcmp(ra[2], rd[2], ld[2]) == 0, "%s message after re-init without key and IV", name);

    /* copy after 37 bytes: the original and the copy both finish the message */
    size_t ref_len;
    CHECK(crypt1(d, 1, 1, key, iv1, rd[0], &ref_len, pt, sizeof pt, NULL, 0), "%s default reference", name);
    EVP_CIPHER_CTX *ctx = start(a, 1, 1, key, iv1), *cp = EVP_CIPHER_CTX_new();
    int o1 = 0, o2 = 0, o3 = 0, f2 = 0, f3 = 0;
    int ok = ctx && cp && EVP_CipherUpdate(ctx, ra[0], &o1, pt, 37) && EVP_CIPHER_CTX_copy(cp, ctx);
    memcpy(rc, ra[0], (size_t)o1);
    ok = ok && EVP_CipherUpdate(ctx, ra[0] + o1, &o2, pt + 37, (int)sizeof pt - 37) &&
         EVP_CipherFinal_ex(ctx, ra[0] + o1 + o2, &f2);
    ok = ok && EVP_CipherUpdate(cp, rc + o1, &o3, pt + 37, (int)sizeof pt - 37) &&
         EVP_CipherFinal_ex(cp, rc + o1 + o3, &f3);
    la[0] = (size_t)(o1 + o2 + f2);
    lc = (size_t)(o1 + o3 + f3);
    CHECK(ok && la[0] == ref_len && memcmp(ra[0], rd[0], ref_len) == 0, "%s original after copy", name);
    CHECK(ok && lc == ref_len && memcmp(rc, rd[0], ref_len) == 0, "%s copy mid-stream", name);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_CTX_free(cp);
}

/* The chaining state EVP reports mid-stream (updated IV, num) matches the default's. */
static void updated_iv(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv[16], pt[100], out[128], va[16], vd[16];
    rnd_bytes(key, sizeof key), rnd_bytes(iv, 16), rnd_bytes(pt, sizeof pt);
    static const int at[] = {0, 5, 16, 37, 64, 99};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        EVP_CIPHER_CTX *ca = start(a, 1, 1, key, iv), *cd = start(d, 1, 1, key, iv);
        int ol = 0;
        int ok = ca && cd && EVP_CipherUpdate(ca, out, &ol, pt, at[i]) && EVP_CipherUpdate(cd, out, &ol, pt, at[i]) &&
                 EVP_CIPHER_CTX_get_updated_iv(ca, va, 16) && EVP_CIPHER_CTX_get_updated_iv(cd, vd, 16);
        CHECK(ok && memcmp(va, vd, 16) == 0, "%s updated IV after %d bytes", name, at[i]);
        CHECK(ok && EVP_CIPHER_CTX_get_num(ca) == EVP_CIPHER_CTX_get_num(cd), "%s num after %d bytes: %d vs %d",
              name, at[i], EVP_CIPHER_CTX_get_num(ca), EVP_CIPHER_CTX_get_num(cd));
        EVP_CIPHER_CTX_free(ca), EVP_CIPHER_CTX_free(cd);
    }
}

/* Key lengths other than the cipher's are refused by both, aesgen with its reason. */
static void bad_key_length(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32] = {0}, iv[16] = {0};
    const EVP_CIPHER *cs[2] = {a, d};
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = start(cs[k], 1, 1, key, iv);
        ERR_clear_error();
        int ok = ctx != NULL && EVP_CIPHER_CTX_set_key_length(ctx, 17);
        CHECK(ctx != NULL && !ok, "%s: key length 17 accepted (provider %d)", name, k);
        if (k == 0) {
            const char *r = ERR_reason_error_string(ERR_peek_last_error());
            CHECK(r != NULL && strstr(r, "bad key length") != NULL, "%s: reason for key length 17: %s", name,
                  r ? r : "(none)");
        }
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* CBC: a tampered last block fails decrypt-final on both, aesgen with no output from final. */
static void tampered_padding(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv[16], pt[64], ct[96], out[96];
    rnd_bytes(key, sizeof key), rnd_bytes(iv, 16), rnd_bytes(pt, sizeof pt);
    size_t lc, lo;
    CHECK(crypt1(d, 1, 1, key, iv, ct, &lc, pt, sizeof pt, NULL, 0) && lc == 80, "%s encrypt for tamper", name);
    /* Whole-block padding (16 x 0x10): flip the last pad byte to 0x30 through the
     * previous ciphertext block. */
    ct[lc - 17] ^= 0x20;
    int oka = crypt1(a, 0, 1, key, iv, out, &lo, ct, lc, NULL, 0);
    CHECK(!oka && lo == 64, "%s: tampered padding: aesgen %d, wrote %zu (final must write nothing)", name, oka,
          lo);
    int okd = crypt1(d, 0, 1, key, iv, out, &lo, ct, lc, NULL, 0);
    CHECK(!okd, "%s: tampered padding accepted by default", name);

    EVP_CIPHER_CTX *ctx = start(a, 0, 1, key, iv);
    int ol = 0, fl = -1;
    ERR_clear_error();
    EVP_CipherUpdate(ctx, out, &ol, ct, (int)lc);
    CHECK(!EVP_CipherFinal_ex(ctx, out + ol, &fl) && fl == 0, "%s: tampered final", name);
    const char *r = ERR_reason_error_string(ERR_peek_last_error());
    CHECK(r != NULL && strstr(r, "bad decrypt") != NULL, "%s: reason for bad padding: %s", name, r ? r : "(none)");
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

/* 1 MiB with random splits. */
static void large(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    size_t len = 1u << 20, cuts[8];
    uint8_t *pt = malloc(len), *ca = malloc(len + 32), *cd = malloc(len + 32);
    uint8_t key[32], iv[16];
    rnd_bytes(key, sizeof key), rnd_bytes(iv, 16), rnd_bytes(pt, len);
    size_t la, ld;
    size_t n = random_cuts(cuts, len);
    int oka = crypt1(a, 1, 1, key, iv, ca, &la, pt, len, cuts, n);
    int okd = crypt1(d, 1, 1, key, iv, cd, &ld, pt, len, NULL, 0);
    CHECK(oka && okd && la == ld && memcmp(ca, cd, ld) == 0, "%s 1 MiB encrypt", name);
    oka = crypt1(a, 0, 1, key, iv, ca, &la, cd, ld, cuts, n);
    CHECK(oka && la == len && memcmp(ca, pt, len) == 0, "%s 1 MiB decrypt", name);
    free(pt), free(ca), free(cd);
}

/* ---- XTS: one data unit per update, the tweak given at init -------------------------------- */

/* A random XTS key: halves equal with probability 2^-128, i.e. never. */
static void xts_key(uint8_t *key, size_t keylen)
{
    rnd_bytes(key, keylen);
}

/* One data unit through a fresh context (init, one update, final); 1 on success. */
static int xts1(const EVP_CIPHER *c, int enc, const uint8_t *key, const uint8_t *iv, uint8_t *out, const uint8_t *in,
                size_t len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ol = 0, fl = -1;
    int ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL) &&
             EVP_CipherUpdate(ctx, out, &ol, in, (int)len) && (size_t)ol == len &&
             EVP_CipherFinal_ex(ctx, out + ol, &fl) && fl == 0;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/* Every unit length 16..1024 and some large ones up to the 2^20-block limit: both
 * directions, each decrypting the other's, in place, and through EVP_Cipher. */
static void xts_sweep(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d, int quick)
{
    static const size_t big[] = {1025, 4096, 4111, 65536 + 5, (size_t)1 << 20, ((size_t)1 << 20) + 3,
                                 (size_t)1 << 24};
    size_t nbig = quick ? 3 : sizeof big / sizeof big[0];
    size_t cap = (size_t)1 << 24;
    uint8_t *pt = malloc(cap), *ca = malloc(cap), *cd = malloc(cap), *x = malloc(cap);
    uint8_t key[64], iv[16];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(a);
    size_t nlen = 0, lens[1024 + 8];
    for (size_t l = 16; l <= 1024; l += quick ? 7 : 1)
        lens[nlen++] = l;
    for (size_t i = 0; i < nbig; i++)
        lens[nlen++] = big[i];
    for (size_t i = 0; i < nlen; i++) {
        size_t len = lens[i];
        xts_key(key, keylen);
        rnd_bytes(iv, 16);
        rnd_bytes(pt, len);
        int oka = xts1(a, 1, key, iv, ca, pt, len);
        int okd = xts1(d, 1, key, iv, cd, pt, len);
        CHECK(oka && okd && memcmp(ca, cd, len) == 0, "%s encrypt unit %zu: aesgen %d, default %d", name, len,
              oka, okd);
        oka = xts1(a, 0, key, iv, x, cd, len);
        CHECK(oka && memcmp(x, pt, len) == 0, "%s aesgen decrypts default unit %zu", name, len);
        okd = xts1(d, 0, key, iv, x, ca, len);
        CHECK(okd && memcmp(x, pt, len) == 0, "%s default decrypts aesgen unit %zu", name, len);
        /* in place, both directions */
        memcpy(x, pt, len);
        oka = xts1(a, 1, key, iv, x, x, len);
        CHECK(oka && memcmp(x, cd, len) == 0, "%s in-place encrypt unit %zu", name, len);
        oka = xts1(a, 0, key, iv, x, x, len);
        CHECK(oka && memcmp(x, pt, len) == 0, "%s in-place decrypt unit %zu", name, len);
        /* EVP_Cipher (the provider's cipher call) on some lengths */
        if (len % 97 == 0 || len > 1024) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            int r = ctx && EVP_CipherInit_ex2(ctx, a, key, iv, 1, NULL) ? EVP_Cipher(ctx, x, pt, (unsigned)len) : -2;
            CHECK(r == (int)len && memcmp(x, cd, len) == 0, "%s EVP_Cipher unit %zu: %d", name, len, r);
            EVP_CIPHER_CTX_free(ctx);
        }
    }
    free(pt), free(ca), free(cd), free(x);
}

/* Several units on one context, re-init with a new tweak (key NULL) and with
 * neither, EVP_CIPHER_CTX_copy between units, IV parameters: the same sequence of
 * calls on both providers gives the same bytes. */
static void xts_sequence(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[64], iv1[16], iv2[16], pt[600], out[2][8][600], va[16], vd[16];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(a);
    static const int lens[] = {512, 37, 600, 16, 100, 512};
    xts_key(key, keylen), rnd_bytes(iv1, 16), rnd_bytes(iv2, 16), rnd_bytes(pt, sizeof pt);
    const EVP_CIPHER *cs[2] = {a, d};
    for (int enc = 1; enc >= 0; enc--) {
        memset(out, 0, sizeof out);
        for (int k = 0; k < 2; k++) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *cp = EVP_CIPHER_CTX_new();
            int ol[8] = {0}, fl = -1;
            int ok = ctx && cp && EVP_CipherInit_ex2(ctx, cs[k], key, iv1, enc, NULL);
            /* two units with the same tweak */
            ok = ok && EVP_CipherUpdate(ctx, out[k][0], &ol[0], pt, lens[0]);
            ok = ok && EVP_CipherUpdate(ctx, out[k][1], &ol[1], pt + 50, lens[1]);
            /* copy between units: the copy and the original each do the next one */
            ok = ok && EVP_CIPHER_CTX_copy(cp, ctx);
            ok = ok && EVP_CipherUpdate(cp, out[k][2], &ol[2], pt, lens[2]);
            ok = ok && EVP_CipherUpdate(ctx, out[k][3], &ol[3], pt, lens[2]);
            /* a new tweak, same key */
            ok = ok && EVP_CipherInit_ex2(ctx, NULL, NULL, iv2, enc, NULL);
            ok = ok && EVP_CipherUpdate(ctx, out[k][4], &ol[4], pt + 3, lens[3]);
            ok = ok && EVP_CIPHER_CTX_get_updated_iv(ctx, k == 0 ? va : vd, 16);
            /* neither key nor tweak: the last tweak stays */
            ok = ok && EVP_CipherInit_ex2(ctx, NULL, NULL, NULL, enc, NULL);
            ok = ok && EVP_CipherUpdate(ctx, out[k][5], &ol[5], pt + 7, lens[4]);
            /* a unit after final works as well (final only ends the call sequence) */
            ok = ok && EVP_CipherFinal_ex(ctx, out[k][6], &fl) && fl == 0;
            ok = ok && EVP_CipherUpdate(ctx, out[k][7], &ol[7], pt + 11, lens[5]);
            CHECK(ok, "%s unit sequence (%s, provider %d)", name, enc ? "encrypt" : "decrypt", k);
            static const int want[8] = {512, 37, 600, 600, 16, 100, 0, 512};
            for (int j = 0; j < 8; j++)
                CHECK(ol[j] == want[j], "%s unit %d of the sequence: length %d", name, j, ol[j]);
            EVP_CIPHER_CTX_free(ctx), EVP_CIPHER_CTX_free(cp);
        }
        CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0, "%s unit sequence (%s): aesgen differs from default",
              name, enc ? "encrypt" : "decrypt");
        CHECK(memcmp(va, vd, 16) == 0 && memcmp(va, iv2, 16) == 0, "%s updated IV after re-init", name);
        CHECK(memcmp(out[0][2], out[0][3], 600) == 0, "%s copy and original differ", name);
    }
}

/* Units of 0..15 bytes and of more than 2^20 blocks are refused by both; aesgen
 * with its reason and without writing. */
static void xts_bad_lengths(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d, int quick)
{
    uint8_t key[64], iv[16];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(a);
    size_t cap = ((size_t)1 << 24) + 16;
    uint8_t *in = calloc(1, cap), *out = malloc(cap);
    xts_key(key, keylen), rnd_bytes(iv, 16);
    const EVP_CIPHER *cs[2] = {a, d};
    size_t lens[17 + 2];
    size_t n = 0;
    for (size_t l = 0; l < 16; l++)
        lens[n++] = l;
    if (!quick)
        lens[n++] = ((size_t)1 << 24) + 1, lens[n++] = ((size_t)1 << 24) + 16;
    for (size_t i = 0; i < n; i++)
        for (int enc = 1; enc >= 0; enc--)
            for (int k = 0; k < 2; k++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
                int ok = ctx && EVP_CipherInit_ex2(ctx, cs[k], key, iv, enc, NULL);
                CHECK(ok, "%s init", name);
                memset(out, 0xa5, 64);
                ERR_clear_error();
                int ol = -1;
                int r = ok && EVP_CipherUpdate(ctx, out, &ol, in, (int)lens[i]);
                CHECK(!r, "%s unit of %zu bytes accepted (provider %d, %s)", name, lens[i], k, enc ? "enc" : "dec");
                if (k == 0) {
                    const char *why = ERR_reason_error_string(ERR_peek_error());
                    const char *want = lens[i] < 16 ? "shorter than 16" : "longer than 2^20";
                    CHECK(why != NULL && strstr(why, want) != NULL, "%s unit of %zu: reason %s", name, lens[i],
                          why ? why : "(none)");
                    int clean = 1;
                    for (int j = 0; j < 64; j++)
                        clean &= out[j] == 0xa5;
                    CHECK(clean, "%s unit of %zu: output written on error", name, lens[i]);
                }
                ERR_clear_error();
                EVP_CIPHER_CTX_free(ctx);
            }
    free(in), free(out);
}

/* Key set-up: equal halves, a wrong key length (both providers), and updates without a key or IV. */
static void xts_keys(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[64], iv[16], pt[64], out[64];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(a);
    rnd_bytes(key, keylen / 2);
    memcpy(key + keylen / 2, key, keylen / 2);
    rnd_bytes(iv, 16), rnd_bytes(pt, sizeof pt);
    const EVP_CIPHER *cs[2] = {a, d};
    int accepted[2][2]; /* [provider][enc] */
    for (int k = 0; k < 2; k++)
        for (int enc = 1; enc >= 0; enc--) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            ERR_clear_error();
            accepted[k][enc] = ctx && EVP_CipherInit_ex2(ctx, cs[k], key, iv, enc, NULL);
            if (k == 0) {
                const char *why = ERR_reason_error_string(ERR_peek_error());
                CHECK(!accepted[k][enc] && why != NULL && strstr(why, "key halves are equal") != NULL,
                      "%s equal halves (%s): aesgen accepted %d, reason %s", name, enc ? "enc" : "dec",
                      accepted[k][enc], why ? why : "(none)");
                /* a refused key leaves no key behind */
                int ol = 0;
                ERR_clear_error();
                CHECK(ctx && !EVP_CipherUpdate(ctx, out, &ol, pt, 32), "%s update after a refused key", name);
                why = ERR_reason_error_string(ERR_peek_error());
                CHECK(why != NULL && strstr(why, "no key set") != NULL, "%s update after a refused key: reason %s",
                      name, why ? why : "(none)");
            }
            ERR_clear_error();
            EVP_CIPHER_CTX_free(ctx);
        }
    /* The default provider (non-FIPS) refuses equal halves only when encrypting. */
    CHECK(!accepted[1][1] && accepted[1][0], "%s equal halves: the default provider now enc %d dec %d "
          "(expected: refused for encryption, accepted for decryption)", name, accepted[1][1], accepted[1][0]);

    xts_key(key, keylen);
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        ERR_clear_error();
        int ok = ctx && EVP_CipherInit_ex2(ctx, cs[k], key, iv, 1, NULL);
        CHECK(ok && EVP_CIPHER_CTX_set_key_length(ctx, (int)keylen), "%s: own key length refused (%d)", name, k);
        CHECK(ok && !EVP_CIPHER_CTX_set_key_length(ctx, (int)(keylen == 32 ? 64 : 32)),
              "%s: other XTS key length accepted (provider %d)", name, k);
        if (k == 0) {
            const char *why = ERR_reason_error_string(ERR_peek_last_error());
            CHECK(why != NULL && strstr(why, "bad key length") != NULL, "%s: key length reason %s", name,
                  why ? why : "(none)");
        }
        ERR_clear_error();
        /* a key without an IV: both refuse the update */
        int ol = 0;
        ok = ctx && EVP_CipherInit_ex2(ctx, cs[k], key, NULL, 1, NULL);
        CHECK(ok && !EVP_CipherUpdate(ctx, out, &ol, pt, 32), "%s: update without an IV accepted (%d)", name, k);
        if (k == 0) {
            const char *why = ERR_reason_error_string(ERR_peek_error());
            CHECK(why != NULL && strstr(why, "no IV set") != NULL, "%s: no-IV reason %s", name,
                  why ? why : "(none)");
        }
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* ---- GCM --------------------------------------------------------------------------------- */

static const size_t gcm_taglens[] = {16, 15, 14, 13, 12, 8, 4};

static int set_ivlen(EVP_CIPHER_CTX *ctx, size_t ivlen)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
    return EVP_CIPHER_CTX_set_params(ctx, p);
}

/* Updates over [0, len) cut at the given points; out == NULL feeds AAD. Returns 1 if
 * every call succeeded and reported the whole piece. */
static int pieces(EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len, const size_t *cuts, size_t n)
{
    size_t pos = 0;
    for (size_t i = 0; i <= n; i++) {
        size_t end = i < n ? cuts[i] : len;
        int ol = -1;
        if (!EVP_CipherUpdate(ctx, out == NULL ? NULL : out + pos, &ol, in + pos, (int)(end - pos)) ||
            (size_t)ol != end - pos)
            return 0;
        pos = end;
    }
    return 1;
}

/* One GCM message through a fresh context: the IV length set first when not 12, the AAD
 * and the text in pieces, the tag (taglen bytes) read after an encryption's final or
 * set before a decryption's. Returns 1 if everything succeeded; *final_failed tells a
 * failing final (the tag check) from an earlier failure. */
static int gcm1(const EVP_CIPHER *c, int enc, const uint8_t *key, const uint8_t *iv, size_t ivlen,
                const uint8_t *aad, size_t aadlen, const size_t *acuts, size_t nacuts, uint8_t *out,
                const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts, uint8_t *tag, size_t taglen,
                int *final_failed)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx && EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, NULL);
    ok = ok && (ivlen == 12 || set_ivlen(ctx, ivlen));
    ok = ok && EVP_CipherInit_ex2(ctx, NULL, key, iv, enc, NULL);
    ok = ok && pieces(ctx, NULL, aad, aadlen, acuts, nacuts);
    ok = ok && pieces(ctx, out, in, len, cuts, ncuts);
    ok = ok && (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag) > 0);
    int fl = -1, fin = ok && EVP_CipherFinal_ex(ctx, out + len, &fl) && fl == 0;
    if (final_failed != NULL)
        *final_failed = ok && !fin;
    ok = fin && (!enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)taglen, tag) > 0);
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static const char *last_reason(void)
{
    const char *r = ERR_reason_error_string(ERR_peek_last_error());
    return r != NULL ? r : "(none)";
}

/* Message lengths 0..1024 and large ones, IVs of 12 and other lengths, AAD and text
 * split at random points, tags of every length aesgen takes, in place, tampering. */
static void gcm_sweep(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d, int quick)
{
    static const size_t big[] = {4096 + 7, 65536 + 1, (size_t)1 << 20, ((size_t)1 << 20) + 13};
    static const size_t odd_iv[] = {1, 8, 16, 60, 128};
    size_t nbig = quick ? 1 : sizeof big / sizeof big[0];
    size_t cap = ((size_t)1 << 20) + 64;
    uint8_t *pt = malloc(cap), *ca = malloc(cap), *cd = malloc(cap), *x = malloc(cap);
    uint8_t key[32], iv[128], aad[320], ta[16], td[16], t[16];
    size_t cuts[8], acuts[8], lens[1024 + 8], nlen = 0;
    for (size_t l = 0; l <= 1024; l += quick ? 7 : 1)
        lens[nlen++] = l;
    for (size_t i = 0; i < nbig; i++)
        lens[nlen++] = big[i];
    for (size_t i = 0; i < nlen; i++) {
        size_t len = lens[i], ivlen = i % 5 == 0 ? odd_iv[(i / 5) % 5] : 12;
        size_t aadlen = i % 17 == 0 ? 320 : (size_t)(rnd() % 80), tl = gcm_taglens[i % 7];
        rnd_bytes(key, sizeof key), rnd_bytes(iv, ivlen), rnd_bytes(aad, aadlen), rnd_bytes(pt, len);
        size_t na = random_cuts(acuts, aadlen), n = random_cuts(cuts, len);
        int oka = gcm1(a, 1, key, iv, ivlen, aad, aadlen, acuts, na, ca, pt, len, cuts, n, ta, tl, NULL);
        int okd = gcm1(d, 1, key, iv, ivlen, aad, aadlen, NULL, 0, cd, pt, len, NULL, 0, td, 16, NULL);
        CHECK(oka && okd && memcmp(ca, cd, len) == 0 && memcmp(ta, td, tl) == 0,
              "%s seal len %zu iv %zu aad %zu tag %zu: aesgen %d default %d", name, len, ivlen, aadlen, tl, oka, okd);
        ERR_clear_error();
        /* each opens the other's, with the tag truncated to tl bytes */
        n = random_cuts(cuts, len), na = random_cuts(acuts, aadlen);
        memcpy(t, td, 16);
        oka = gcm1(a, 0, key, iv, ivlen, aad, aadlen, acuts, na, x, cd, len, cuts, n, t, tl, NULL);
        CHECK(oka && memcmp(x, pt, len) == 0, "%s aesgen opens default len %zu tag %zu", name, len, tl);
        okd = gcm1(d, 0, key, iv, ivlen, aad, aadlen, NULL, 0, x, ca, len, NULL, 0, ta, tl, NULL);
        CHECK(okd && memcmp(x, pt, len) == 0, "%s default opens aesgen len %zu tag %zu", name, len, tl);
        ERR_clear_error();
        /* in place, both directions */
        memcpy(x, pt, len);
        n = random_cuts(cuts, len);
        oka = gcm1(a, 1, key, iv, ivlen, aad, aadlen, NULL, 0, x, x, len, cuts, n, t, 16, NULL);
        CHECK(oka && memcmp(x, cd, len) == 0 && memcmp(t, td, 16) == 0, "%s in-place seal len %zu", name, len);
        oka = gcm1(a, 0, key, iv, ivlen, aad, aadlen, NULL, 0, x, x, len, cuts, n, t, 16, NULL);
        CHECK(oka && memcmp(x, pt, len) == 0, "%s in-place open len %zu", name, len);
        ERR_clear_error();
        /* tamper with one bit of the text, the AAD or the tag: both refuse at final */
        int what = (int)(rnd() % 3), ffa = 0, ffd = 0;
        if (what == 0 && len == 0)
            what = 1;
        if (what == 1 && aadlen == 0)
            what = 2;
        size_t at = (size_t)rnd();
        uint8_t bit = (uint8_t)(1u << (rnd() % 8));
        memcpy(t, td, 16);
        if (what == 0)
            cd[at % len] ^= bit;
        else if (what == 1)
            aad[at % aadlen] ^= bit;
        else
            t[at % tl] ^= bit;
        ERR_clear_error();
        oka = gcm1(a, 0, key, iv, ivlen, aad, aadlen, NULL, 0, x, cd, len, NULL, 0, t, tl, &ffa);
        const char *why = last_reason();
        CHECK(!oka && ffa && strstr(why, "tag mismatch") != NULL,
              "%s tampered %s len %zu: aesgen ok %d, final failed %d, reason %s", name,
              what == 0 ? "text" : what == 1 ? "AAD" : "tag", len, oka, ffa, why);
        ERR_clear_error();
        okd = gcm1(d, 0, key, iv, ivlen, aad, aadlen, NULL, 0, x, cd, len, NULL, 0, t, tl, &ffd);
        CHECK(!okd && ffd, "%s tampered len %zu: default ok %d", name, len, okd);
        ERR_clear_error();
    }
    free(pt), free(ca), free(cd), free(x);
}

/* Two messages on one context (re-init with a new IV, key NULL), copies mid-message,
 * and the calls both providers refuse. */
static void gcm_sequence(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv1[12], iv2[12], aad[40], pt[300], out[2][3][300], tags[2][3][16];
    rnd_bytes(key, sizeof key), rnd_bytes(iv1, 12), rnd_bytes(iv2, 12), rnd_bytes(aad, sizeof aad),
        rnd_bytes(pt, sizeof pt);
    const EVP_CIPHER *cs[2] = {a, d};
    memset(out, 0, sizeof out), memset(tags, 0, sizeof tags);
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *cp = EVP_CIPHER_CTX_new();
        int ol = 0, fl = 0;
        int ok = ctx && cp && EVP_EncryptInit_ex2(ctx, cs[k], key, iv1, NULL);
        ok = ok && EVP_EncryptUpdate(ctx, NULL, &ol, aad, 40) && EVP_EncryptUpdate(ctx, out[k][0], &ol, pt, 300) &&
             EVP_EncryptFinal_ex(ctx, out[k][0] + 300, &fl) &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tags[k][0]) > 0;
        CHECK(ok, "%s first message (provider %d)", name, k);
        /* an update after final, without a new IV: refused by both */
        ERR_clear_error();
        CHECK(!EVP_EncryptUpdate(ctx, out[k][1], &ol, pt, 16), "%s update after final accepted (provider %d)",
              name, k);
        if (k == 0)
            CHECK(strstr(last_reason(), "already finished") != NULL, "%s update after final: reason %s", name,
                  last_reason());
        ERR_clear_error();
        /* a new IV, same key; copy in the middle of the AAD, free the original after
         * the copy's first use, each finishes the message */
        ok = EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL) && EVP_EncryptUpdate(ctx, NULL, &ol, aad, 13) &&
             EVP_CIPHER_CTX_copy(cp, ctx);
        ok = ok && EVP_EncryptUpdate(ctx, NULL, &ol, aad + 13, 27) && EVP_EncryptUpdate(ctx, out[k][1], &ol, pt, 77) &&
             EVP_EncryptUpdate(ctx, out[k][1] + 77, &ol, pt + 77, 223) &&
             EVP_EncryptFinal_ex(ctx, out[k][1] + 300, &fl) &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tags[k][1]) > 0;
        ok = ok && EVP_EncryptUpdate(cp, NULL, &ol, aad + 13, 27) && EVP_EncryptUpdate(cp, out[k][2], &ol, pt, 150);
        EVP_CIPHER_CTX_free(ctx);
        ok = ok && EVP_EncryptUpdate(cp, out[k][2] + 150, &ol, pt + 150, 150) &&
             EVP_EncryptFinal_ex(cp, out[k][2] + 300, &fl) &&
             EVP_CIPHER_CTX_ctrl(cp, EVP_CTRL_AEAD_GET_TAG, 16, tags[k][2]) > 0;
        CHECK(ok, "%s re-init and copy (provider %d)", name, k);
        EVP_CIPHER_CTX_free(cp);
    }
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0 && memcmp(tags[0], tags[1], sizeof tags[0]) == 0,
          "%s sequence: aesgen differs from default", name);
    CHECK(memcmp(out[0][1], out[0][2], 300) == 0 && memcmp(tags[0][1], tags[0][2], 16) == 0,
          "%s copy differs from original", name);
    CHECK(memcmp(out[0][0], out[0][1], 300) != 0, "%s new IV gave the same ciphertext", name);
    ERR_clear_error();
}

/* One message on ctx with cipher c and key (NULL: those it has; a cipher makes OpenSSL
 * start a new provider context, so a new key on the same one comes with c NULL) and iv:
 * out (100 bytes) and tag. */
static int gcm_one(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, const uint8_t *key, const uint8_t *iv,
                   const uint8_t *pt, uint8_t *out, uint8_t *tag)
{
    int ol = 0, fl = 0;
    return EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) &&
           EVP_EncryptUpdate(ctx, out, &ol, pt, 100) && EVP_EncryptFinal_ex(ctx, out + ol, &fl) &&
           EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
}

/* New keys on one context: while a copy shares its key (the copy keeps the old one) and
 * once it holds its key alone (set up again in place). */
static void gcm_rekey(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t k1[32], k2[32], k3[32], iv[12], pt[100], out[2][4][100], tags[2][4][16];
    rnd_bytes(k1, 32), rnd_bytes(k2, 32), rnd_bytes(k3, 32), rnd_bytes(iv, 12), rnd_bytes(pt, 100);
    const EVP_CIPHER *cs[2] = {a, d};
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *cp = EVP_CIPHER_CTX_new();
        int ok = ctx && cp && gcm_one(ctx, cs[k], k1, iv, pt, out[k][0], tags[k][0]) &&
                 EVP_CIPHER_CTX_copy(cp, ctx) &&
                 gcm_one(ctx, NULL, k2, iv, pt, out[k][1], tags[k][1]) &&   /* the copy shares k1 */
                 gcm_one(cp, NULL, NULL, iv, pt, out[k][2], tags[k][2]) &&  /* ... and keeps it */
                 gcm_one(ctx, NULL, k3, iv, pt, out[k][3], tags[k][3]);     /* ctx alone: in place */
        CHECK(ok, "%s re-keying (provider %d)", name, k);
        EVP_CIPHER_CTX_free(ctx), EVP_CIPHER_CTX_free(cp);
    }
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0 && memcmp(tags[0], tags[1], sizeof tags[0]) == 0,
          "%s re-keying: aesgen differs from default", name);
    CHECK(memcmp(out[0][2], out[0][0], 100) == 0 && memcmp(tags[0][2], tags[0][0], 16) == 0,
          "%s re-keying: the copy lost its key", name);
    CHECK(memcmp(out[0][1], out[0][0], 100) != 0 && memcmp(out[0][3], out[0][1], 100) != 0,
          "%s re-keying: a new key gave the same ciphertext", name);
    ERR_clear_error();
}

/* Calls refused by both, and the documented differences. */
static void gcm_refusals(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv[12], pt[64], out[80], tag[17];
    rnd_bytes(key, sizeof key), rnd_bytes(iv, 12), rnd_bytes(pt, sizeof pt), rnd_bytes(tag, sizeof tag);
    const EVP_CIPHER *cs[2] = {a, d};
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int ol = 0, fl = 0;
        /* the tag before an encryption's final */
        ERR_clear_error();
        int ok = ctx && EVP_EncryptInit_ex2(ctx, cs[k], key, iv, NULL) && EVP_EncryptUpdate(ctx, out, &ol, pt, 20);
        CHECK(ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0,
              "%s tag before final given (provider %d)", name, k);
        if (k == 0)
            CHECK(strstr(last_reason(), "no tag") != NULL, "%s tag before final: reason %s", name, last_reason());
        /* AAD after text */
        ERR_clear_error();
        CHECK(!EVP_EncryptUpdate(ctx, NULL, &ol, pt, 5), "%s AAD after text accepted (provider %d)", name, k);
        if (k == 0)
            CHECK(strstr(last_reason(), "AAD after") != NULL, "%s AAD after text: reason %s", name, last_reason());
        /* a tag set on an encryption */
        ERR_clear_error();
        CHECK(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0, "%s tag set on encryption (%d)", name,
              k);
        /* a decryption's final without a tag */
        ERR_clear_error();
        ok = EVP_DecryptInit_ex2(ctx, NULL, key, iv, NULL) && EVP_DecryptUpdate(ctx, out, &ol, pt, 20);
        CHECK(ok && !EVP_DecryptFinal_ex(ctx, out + 20, &fl), "%s decrypt final without a tag (provider %d)", name,
              k);
        if (k == 0)
            CHECK(strstr(last_reason(), "no tag") != NULL, "%s final without tag: reason %s", name, last_reason());
        /* tag lengths 0 and 17, IV length 0 */
        ERR_clear_error();
        ok = EVP_DecryptInit_ex2(ctx, NULL, NULL, iv, NULL);
        CHECK(ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 17, tag) <= 0, "%s 17-byte tag (%d)", name, k);
        uint8_t z = 0;
        OSSL_PARAM p0[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, &z, 0), OSSL_PARAM_END};
        CHECK(!EVP_CIPHER_CTX_set_params(ctx, p0), "%s 0-byte tag accepted (%d)", name, k);
        CHECK(!set_ivlen(ctx, 0), "%s IV length 0 accepted (%d)", name, k);
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }

    /* Where they differ (docs/openssl-provider.md): tag lengths outside SP 800-38D's
     * 4, 8, 12..16; an encryption without an IV. */
    int acc[2][2];
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int ol = 0;
        ERR_clear_error();
        int ok = ctx && EVP_DecryptInit_ex2(ctx, cs[k], key, iv, NULL);
        acc[k][0] = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 5, tag) > 0;
        if (k == 0)
            CHECK(strstr(last_reason(), "bad tag length") != NULL, "%s 5-byte tag: reason %s", name, last_reason());
        ERR_clear_error();
        acc[k][1] = EVP_EncryptInit_ex2(ctx, cs[k], key, NULL, NULL) && EVP_EncryptUpdate(ctx, out, &ol, pt, 16);
        if (k == 0)
            CHECK(strstr(last_reason(), "no IV set") != NULL, "%s encrypt without IV: reason %s", name,
                  last_reason());
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
    CHECK(!acc[0][0] && acc[1][0], "%s 5-byte tag: aesgen %d (refuses), default %d (accepts)", name, acc[0][0],
          acc[1][0]);
    CHECK(!acc[0][1] && acc[1][1], "%s encrypt without IV: aesgen %d (refuses), default %d (generates one)", name,
          acc[0][1], acc[1][1]);
}

/* EVP_Cipher, the provider's cipher call: out == NULL feeds AAD, in == NULL is final
 * (0 on success, -1 on failure); the same bytes and tag on both providers, each
 * opening the other's, a wrong tag refused. Also: a tag read at 5 bytes, which the
 * default provider gives and aesgen refuses. */
static void gcm_evp_cipher(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    uint8_t key[32], iv[12], aad[20], pt[100], ct[2][100], tag[2][16], back[100], t5[5];
    rnd_bytes(key, sizeof key), rnd_bytes(iv, 12), rnd_bytes(aad, sizeof aad), rnd_bytes(pt, sizeof pt);
    const EVP_CIPHER *cs[2] = {a, d};
    int got5[2];
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int ok = ctx && EVP_EncryptInit_ex2(ctx, cs[k], key, iv, NULL) && EVP_Cipher(ctx, NULL, aad, 20) == 20 &&
                 EVP_Cipher(ctx, ct[k], pt, 60) == 60 && EVP_Cipher(ctx, ct[k] + 60, pt + 60, 40) == 40 &&
                 EVP_Cipher(ctx, NULL, NULL, 0) == 0 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag[k]) > 0;
        CHECK(ok, "%s EVP_Cipher seal (provider %d)", name, k);
        ERR_clear_error();
        got5[k] = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 5, t5) > 0;
        if (k == 0)
            CHECK(strstr(last_reason(), "bad tag length") != NULL, "%s 5-byte tag read: reason %s", name,
                  last_reason());
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
    CHECK(memcmp(ct[0], ct[1], 100) == 0 && memcmp(tag[0], tag[1], 16) == 0, "%s EVP_Cipher: aesgen differs", name);
    CHECK(!got5[0] && got5[1], "%s 5-byte tag read: aesgen %d (refuses), default %d (gives)", name, got5[0], got5[1]);
    for (int k = 0; k < 2; k++)
        for (int bad = 0; bad < 2; bad++) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            uint8_t t[16];
            memcpy(t, tag[1 - k], 16);
            t[15] ^= (uint8_t)bad;
            int ok = ctx && EVP_DecryptInit_ex2(ctx, cs[k], key, iv, NULL) && EVP_Cipher(ctx, NULL, aad, 20) == 20 &&
                     EVP_Cipher(ctx, back, ct[1 - k], 100) == 100 &&
                     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, t) > 0;
            int fin = EVP_Cipher(ctx, NULL, NULL, 0);
            CHECK(ok && (bad ? fin < 0 : fin == 0 && memcmp(back, pt, 100) == 0),
                  "%s EVP_Cipher open (provider %d, tag %s): final %d", name, k, bad ? "wrong" : "right", fin);
            ERR_clear_error();
            EVP_CIPHER_CTX_free(ctx);
        }
}

/* TLS 1.2 records (RFC 5288) as libssl drives them: tlsivfixed at key set-up, then per
 * record tlsaad and one in-place update over explicit nonce || payload || tag. Each
 * provider opens the other's records; the explicit nonce counts up by one per record;
 * a tampered record is refused (aesgen: reason, nothing written). */
static void gcm_tls(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *d)
{
    static const size_t plens[] = {0, 1, 15, 16, 17, 100, 1000, 16384, 3};
    const size_t n = sizeof plens / sizeof plens[0];
    uint8_t key[32], fixed[4], prev[8], hdr[13];
    uint8_t *rec = malloc(16384 + 24), *pt = malloc(16384), *bad = malloc(16384 + 24), *keep = malloc(16384 + 24);
    rnd_bytes(key, sizeof key), rnd_bytes(fixed, 4);
    const EVP_CIPHER *cs[2] = {a, d};
    for (int k = 0; k < 2; k++) { /* k encrypts, 1 - k decrypts */
        EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new(), *dd = EVP_CIPHER_CTX_new();
        int ok = e && dd && EVP_EncryptInit_ex2(e, cs[k], key, NULL, NULL) &&
                 EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0 &&
                 EVP_DecryptInit_ex2(dd, cs[1 - k], key, NULL, NULL) &&
                 EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0;
        CHECK(ok, "%s TLS set-up (provider %d encrypts)", name, k);
        for (size_t i = 0; ok && i < n; i++) {
            size_t plen = plens[i], rlen = plen + 24;
            rnd_bytes(pt, plen);
            memset(hdr, 0, 8);
            hdr[7] = (uint8_t)i, hdr[8] = 23, hdr[9] = 3, hdr[10] = 3;
            hdr[11] = (uint8_t)((plen + 8) >> 8), hdr[12] = (uint8_t)(plen + 8);
            memcpy(rec + 8, pt, plen);
            int ol = -1;
            int pad = EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, 13, hdr);
            int enc = pad == 16 && EVP_CipherUpdate(e, rec, &ol, rec, (int)rlen) && (size_t)ol == rlen;
            CHECK(enc, "%s TLS seal record %zu (%zu bytes, provider %d): pad %d, out %d", name, i, plen, k, pad, ol);
            if (i > 0) { /* the explicit nonce: the previous one plus one, big-endian */
                for (int j = 7; j >= 0 && ++prev[j] == 0; j--)
                    ;
                CHECK(memcmp(prev, rec, 8) == 0, "%s TLS explicit nonce of record %zu (provider %d)", name, i, k);
            }
            memcpy(prev, rec, 8);
            hdr[11] = (uint8_t)(rlen >> 8), hdr[12] = (uint8_t)rlen;
            /* a copy with one bit flipped (nonce, payload or tag) is refused first */
            memcpy(bad, rec, rlen);
            bad[rnd() % rlen] ^= (uint8_t)(1u << (rnd() % 8));
            memcpy(keep, bad, rlen);
            ERR_clear_error();
            int r = EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_AEAD_TLS1_AAD, 13, hdr) == 16 &&
                    EVP_CipherUpdate(dd, bad, &ol, bad, (int)rlen);
            CHECK(!r, "%s TLS tampered record %zu accepted (provider %d decrypts)", name, i, 1 - k);
            if (1 - k == 0) {
                CHECK(strstr(last_reason(), "tag mismatch") != NULL, "%s TLS tampered record: reason %s", name,
                      last_reason());
                CHECK(memcmp(bad, keep, rlen) == 0, "%s TLS tampered record: aesgen wrote plaintext", name);
            }
            ERR_clear_error();
            r = EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_AEAD_TLS1_AAD, 13, hdr) == 16 &&
                EVP_CipherUpdate(dd, rec, &ol, rec, (int)rlen) && (size_t)ol == plen &&
                memcmp(rec + 8, pt, plen) == 0;
            CHECK(r, "%s TLS open record %zu (%zu bytes, provider %d decrypts)", name, i, plen, 1 - k);
            ERR_clear_error();
        }
        /* a 12-byte header is refused */
        CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, 12, hdr) <= 0, "%s 12-byte tlsaad (provider %d)", name,
              k);
        ERR_clear_error();
        EVP_CIPHER_CTX_free(e), EVP_CIPHER_CTX_free(dd);
    }
    free(rec), free(pt), free(bad), free(keep);

    /* The invocation-field controls outside records: the encrypting side takes the IV
     * from EVP_CTRL_GCM_IV_GEN (tlsivgen), the decrypting side is given it with
     * EVP_CTRL_GCM_SET_IV_INV (tlsivinv); three messages, each way. */
    uint8_t aad[20], msg[50], ct[50], inv[8], tag[16];
    rnd_bytes(aad, sizeof aad);
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new(), *dd = EVP_CIPHER_CTX_new();
        int ok = e && dd && EVP_EncryptInit_ex2(e, cs[k], key, NULL, NULL) &&
                 EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0 &&
                 EVP_DecryptInit_ex2(dd, cs[1 - k], key, NULL, NULL) &&
                 EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0;
        uint8_t previnv[8];
        for (int m = 0; ok && m < 3; m++) {
            int ol = 0, fl = 0;
            rnd_bytes(msg, sizeof msg);
            ok = EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_IV_GEN, 8, inv) > 0 &&
                 EVP_EncryptUpdate(e, NULL, &ol, aad, sizeof aad) && EVP_EncryptUpdate(e, ct, &ol, msg, sizeof msg) &&
                 EVP_EncryptFinal_ex(e, ct + ol, &fl) && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
            CHECK(ok, "%s IV_GEN message %d (provider %d encrypts)", name, m, k);
            if (m > 0) {
                for (int j = 7; j >= 0 && ++previnv[j] == 0; j--)
                    ;
                CHECK(memcmp(previnv, inv, 8) == 0, "%s IV_GEN counts up (provider %d)", name, k);
            }
            memcpy(previnv, inv, 8);
            uint8_t back[50];
            ok = ok && EVP_DecryptInit_ex2(dd, NULL, NULL, NULL, NULL) &&
                 EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_GCM_SET_IV_INV, 8, inv) > 0 &&
                 EVP_DecryptUpdate(dd, NULL, &ol, aad, sizeof aad) && EVP_DecryptUpdate(dd, back, &ol, ct, sizeof ct) &&
                 EVP_CIPHER_CTX_ctrl(dd, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0 && EVP_DecryptFinal_ex(dd, back + ol, &fl) &&
                 memcmp(back, msg, sizeof msg) == 0;
            CHECK(ok, "%s SET_IV_INV message %d (provider %d decrypts)", name, m, 1 - k);
        }
        ERR_clear_error();
        EVP_CIPHER_CTX_free(e), EVP_CIPHER_CTX_free(dd);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <directory holding aesgen.so>\n", argv[0]);
        return 2;
    }
    int quick = getenv("AESGEN_DIFFERENTIAL_QUICK") != NULL && strcmp(getenv("AESGEN_DIFFERENTIAL_QUICK"), "0");
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *def = NULL, *ag = NULL;
    if (lib == NULL || !OSSL_PROVIDER_set_default_search_path(lib, argv[1]) ||
        (def = OSSL_PROVIDER_load(lib, "default")) == NULL || (ag = OSSL_PROVIDER_load(lib, "aesgen")) == NULL) {
        fprintf(stderr, "cannot load the default and aesgen providers from %s\n", argv[1]);
        ERR_print_errors_fp(stderr);
        return 1;
    }
    static const char *const names[] = {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB", "AES-128-CBC", "AES-192-CBC",
                                        "AES-256-CBC", "AES-128-CTR", "AES-192-CTR", "AES-256-CTR",
                                        "AES-128-XTS", "AES-256-XTS", "AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    uint64_t calls0 = calls(ag);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        EVP_CIPHER *a = EVP_CIPHER_fetch(lib, names[i], "provider=aesgen");
        EVP_CIPHER *d = EVP_CIPHER_fetch(lib, names[i], "provider=default");
        CHECK(a != NULL && d != NULL, "fetch %s", names[i]);
        if (a == NULL || d == NULL) {
            EVP_CIPHER_free(a), EVP_CIPHER_free(d);
            continue;
        }
        CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(a)), "aesgen") == 0, "%s from aesgen",
              names[i]);
        CHECK(EVP_CIPHER_get_mode(a) == EVP_CIPHER_get_mode(d) &&
                  EVP_CIPHER_get_key_length(a) == EVP_CIPHER_get_key_length(d) &&
                  EVP_CIPHER_get_iv_length(a) == EVP_CIPHER_get_iv_length(d) &&
                  EVP_CIPHER_get_block_size(a) == EVP_CIPHER_get_block_size(d),
              "%s: mode, key length, IV length, block size as the default provider's", names[i]);
        if (EVP_CIPHER_get_mode(a) == EVP_CIPH_GCM_MODE) {
            CHECK(EVP_CIPHER_get_flags(a) == EVP_CIPHER_get_flags(d), "%s: flags %#lx, default %#lx", names[i],
                  EVP_CIPHER_get_flags(a), EVP_CIPHER_get_flags(d));
            uint64_t before = calls(ag);
            gcm_sweep(names[i], a, d, quick);
            gcm_sequence(names[i], a, d);
            gcm_rekey(names[i], a, d);
            gcm_refusals(names[i], a, d);
            gcm_evp_cipher(names[i], a, d);
            gcm_tls(names[i], a, d);
            CHECK(calls(ag) > before, "%s: aesgen-calls did not increase", names[i]);
            EVP_CIPHER_free(a);
            EVP_CIPHER_free(d);
            continue;
        }
        if (EVP_CIPHER_get_mode(a) == EVP_CIPH_XTS_MODE) {
            CHECK(EVP_CIPHER_get_flags(a) == EVP_CIPHER_get_flags(d), "%s: flags %#lx, default %#lx", names[i],
                  EVP_CIPHER_get_flags(a), EVP_CIPHER_get_flags(d));
            uint64_t before = calls(ag);
            xts_sweep(names[i], a, d, quick);
            xts_sequence(names[i], a, d);
            xts_bad_lengths(names[i], a, d, quick);
            xts_keys(names[i], a, d);
            CHECK(calls(ag) > before, "%s: aesgen-calls did not increase", names[i]);
            EVP_CIPHER_free(a);
            EVP_CIPHER_free(d);
            continue;
        }
        int stream = EVP_CIPHER_get_mode(a) == EVP_CIPH_CTR_MODE;
        sweep(names[i], a, d, stream, 2048, quick ? 7 : 1);
        reinit_and_copy(names[i], a, d);
        bad_key_length(names[i], a, d);
        if (EVP_CIPHER_get_mode(a) != EVP_CIPH_ECB_MODE)
            updated_iv(names[i], a, d);
        if (EVP_CIPHER_get_mode(a) == EVP_CIPH_CBC_MODE)
            tampered_padding(names[i], a, d);
        if (!quick)
            large(names[i], a, d);
        EVP_CIPHER_free(a);
        EVP_CIPHER_free(d);
    }
    uint64_t calls1 = calls(ag);
    CHECK(calls1 > calls0, "aesgen-calls did not increase (%llu -> %llu)", (unsigned long long)calls0,
          (unsigned long long)calls1);
    printf("aesgen-calls: %llu -> %llu\n", (unsigned long long)calls0, (unsigned long long)calls1);
    OSSL_PROVIDER_unload(ag);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(lib);
    printf("provider_differential: %lu checks, %lu failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
