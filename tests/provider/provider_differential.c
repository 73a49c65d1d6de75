/* The aesgen provider against OpenSSL's default provider, through EVP only:
 *   provider_differential <module-dir>
 * Every ECB/CBC/CTR cipher the provider offers: lengths 0..2048 (padding on and off),
 * 1 MiB, random update splits, in place, decryption of the other's ciphertext,
 * re-init with a new IV and the same key (and with neither), EVP_CIPHER_CTX_copy mid-stream, bad key
 * length, tampered padding, the updated IV and num, and the provider's call counter.
 * AESGEN_DIFFERENTIAL_QUICK=1 (the memcheck stage) takes every 7th length. */
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
                                        "AES-256-CBC", "AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};
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
