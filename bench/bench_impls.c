/*
 * bench_impls.c -- the implementations aesgen-bench measures: aesgen (one
 * row per backend), OpenSSL EVP, BearSSL ct64, RustCrypto aes 0.6 (soft),
 * libgcrypt; plus the test data and the OpenSSL reference used by the
 * correctness checks.
 *
 * Every operation runs in place (out == in) on a keyed context, the way
 * `openssl speed` and the kernel's tcrypt do: one "operation" is one call
 * over a whole message; key set-up and IV set-up are outside the timing,
 * and CBC IVs / CTR counters simply carry on from call to call.
 */
#define _GNU_SOURCE
#include "bench.h"

#include "aesgen.h"
#include "aesgen_internal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AESGEN_BENCH_HAVE_BEARSSL
#include <bearssl.h>
#endif

#ifdef AESGEN_BENCH_HAVE_RUSTCRYPTO
#include "rustcrypto_peer.h"
#endif

#ifdef AESGEN_BENCH_HAVE_GCRYPT
#include <gcrypt.h>
#endif

const char *const bench_op_name[OP_COUNT] = {"ecb-enc", "ecb-dec", "ctr", "cbc-dec",
                                             "cbc-enc"};
const unsigned bench_key_bits[NKEYS] = {128, 192, 256};

int bench_op_is_decrypt(int op) { return op == OP_ECB_DEC || op == OP_CBC_DEC; }

int bench_op_from_name(const char *s)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(s, bench_op_name[i]) == 0)
            return i;
    return -1;
}

int bench_key_index(unsigned bits)
{
    for (int i = 0; i < NKEYS; i++)
        if (bench_key_bits[i] == bits)
            return i;
    return -1;
}

/* ---- test data -------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

void bench_key(int k, uint8_t key[32])
{
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(k + 1) * 0x100000001b3ull;
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(xorshift(&s) >> 24);
}

void bench_fill(uint8_t *buf, size_t len)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(xorshift(&s) >> 32);
}

uint64_t bench_fnv64(const uint8_t *p, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void bench_copy(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

void bench_start_iv(int op, int ctr32, uint8_t iv[16])
{
    if (op == OP_CTR) {
        if (ctr32) {
            /* 12 fixed bytes, 32-bit counter starting at 1: no wrap. */
            for (int i = 0; i < 12; i++)
                iv[i] = (uint8_t)(0xc0 + i);
            iv[12] = 0;
            iv[13] = 0;
            iv[14] = 0;
            iv[15] = 1;
        } else {
            /* Low 64 bits at 2^64 - 128: an 8 KiB check crosses the carry
             * into the upper half. */
            for (int i = 0; i < 8; i++)
                iv[i] = (uint8_t)(0xf0 + i);
            for (int i = 8; i < 15; i++)
                iv[i] = 0xff;
            iv[15] = 0x80;
        }
    } else {
        for (int i = 0; i < 16; i++)
            iv[i] = (uint8_t)(0x10 * (i & 15) + (15 - i));
    }
}

/* ---- OpenSSL EVP -------------------------------------------------------- */

static const char *ossl_cipher_name(int op, int k)
{
    static const char *const names[3][3] = {
        {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
        {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"},
        {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"}};
    int m = (op == OP_ECB_ENC || op == OP_ECB_DEC) ? 0 : op == OP_CTR ? 1 : 2;
    return names[m][k];
}

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
static EVP_CIPHER *g_ciphers[OP_COUNT][NKEYS];
static const EVP_CIPHER *ossl_cipher(int op, int k)
{
    if (!g_ciphers[op][k])
        g_ciphers[op][k] = EVP_CIPHER_fetch(NULL, ossl_cipher_name(op, k), NULL);
    return g_ciphers[op][k];
}
#else
static const EVP_CIPHER *ossl_cipher(int op, int k)
{
    return EVP_get_cipherbyname(ossl_cipher_name(op, k));
}
#endif

const char *impl_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

/* A keyed EVP context for (op, k) starting at iv; NULL on failure. */
static EVP_CIPHER_CTX *ossl_new(int op, int k, const uint8_t iv[16])
{
    uint8_t key[32];
    const EVP_CIPHER *c = ossl_cipher(op, k);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!c || !ctx)
        goto fail;
    bench_key(k, key);
    if (EVP_CipherInit_ex(ctx, c, NULL, key, (op == OP_ECB_ENC || op == OP_ECB_DEC) ? NULL : iv,
                          bench_op_is_decrypt(op) ? 0 : 1) != 1)
        goto fail;
    if (EVP_CIPHER_CTX_set_padding(ctx, 0) != 1)
        goto fail;
    return ctx;
fail:
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
}

int bench_reference(int op, int k, const uint8_t iv[16], uint8_t *buf, size_t len)
{
    EVP_CIPHER_CTX *ctx = ossl_new(op, k, iv);
    int outl = 0, rc = -1;
    if (!ctx)
        return -1;
    if (EVP_CipherUpdate(ctx, buf, &outl, buf, (int)len) == 1 && (size_t)outl == len)
        rc = 0;
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}

typedef struct ossl_priv {
    EVP_CIPHER_CTX *c[NKEYS][OP_COUNT];
} ossl_priv;

static int ossl_reset(impl *im, int k, int op)
{
    ossl_priv *p = im->priv;
    uint8_t iv[16];
    if (op == OP_ECB_ENC || op == OP_ECB_DEC)
        return 0;
    bench_start_iv(op, 0, iv);
    return EVP_CipherInit_ex(p->c[k][op], NULL, NULL, NULL, iv, -1) == 1 ? 0 : -1;
}

static int ossl_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    ossl_priv *p = im->priv;
    EVP_CIPHER_CTX *c = p->c[k][op];
    int outl = 0, ok = 1;
    if (bench_op_is_decrypt(op)) {
        for (uint64_t i = 0; i < iters; i++)
            ok &= EVP_DecryptUpdate(c, buf, &outl, buf, (int)len);
    } else {
        for (uint64_t i = 0; i < iters; i++)
            ok &= EVP_EncryptUpdate(c, buf, &outl, buf, (int)len);
    }
    return (ok == 1 && (size_t)outl == len) ? 0 : -1;
}

int impl_openssl_create(impl *im, const char *name)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "%s", name);
    im->kind = IMPL_OPENSSL;
    ossl_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = ossl_reset;
    im->loop = ossl_loop;
    const char *cap = getenv("OPENSSL_ia32cap");
    snprintf(im->desc, sizeof im->desc, "%s EVP_Encrypt/DecryptUpdate, %s", OpenSSL_version(OPENSSL_VERSION),
             cap ? "OPENSSL_ia32cap set (see its row)" : "default CPU dispatch (AES-NI where the CPU has it)");
    for (int k = 0; k < NKEYS; k++) {
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++) {
            uint8_t iv[16];
            bench_start_iv(op, 0, iv);
            p->c[k][op] = ossl_new(op, k, iv);
            if (!p->c[k][op]) {
                im->key_ok[k] = 0;
                snprintf(im->key_note[k], sizeof im->key_note[k], "EVP set-up of %s failed",
                         ossl_cipher_name(op, k));
            }
        }
    }
    for (int op = 0; op < OP_COUNT; op++)
        im->op_ok[op] = 1;
    return 0;
}

/* ---- aesgen ------------------------------------------------------------- */

/* How the named generated variant computes (its descriptor's info), or NULL. */
static const char *variant_info(const char *name)
{
    const aesgen_variant *v = name ? aesgen_find_variant(name) : NULL;
    return v && v->info && v->info[0] ? v->info : NULL;
}

typedef struct aesgen_priv {
    aesgen_ctx *ctx[NKEYS];
    uint8_t iv[NKEYS][OP_COUNT][16];
    aesgen_ctr ctr[NKEYS];
} aesgen_priv;

static int aesgen_reset(impl *im, int k, int op)
{
    aesgen_priv *p = im->priv;
    bench_start_iv(op, 0, p->iv[k][op]);
    if (op == OP_CTR)
        return aesgen_ctr_init(&p->ctr[k], p->iv[k][op]) == AESGEN_OK ? 0 : -1;
    return 0;
}

static int aesgen_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    aesgen_priv *p = im->priv;
    const aesgen_ctx *ctx = p->ctx[k];
    uint8_t *iv = p->iv[k][op];
    int bad = 0;
    switch (op) {
    case OP_ECB_ENC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ecb_encrypt(ctx, buf, buf, len);
        break;
    case OP_ECB_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ecb_decrypt(ctx, buf, buf, len);
        break;
    case OP_CTR:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ctr_crypt(ctx, &p->ctr[k], buf, buf, len);
        break;
    case OP_CBC_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_cbc_decrypt(ctx, iv, buf, buf, len);
        break;
    case OP_CBC_ENC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_cbc_encrypt(ctx, iv, buf, buf, len);
        break;
    default:
        return -1;
    }
    return bad ? -1 : 0;
}

int impl_aesgen_create(impl *im, const char *backend)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "aesgen-%s", backend);
    im->kind = IMPL_AESGEN;
    aesgen_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = aesgen_reset;
    im->loop = aesgen_loop;
    snprintf(im->desc, sizeof im->desc, "aesgen %s, backend %s (forced with aesgen_force_backend)",
             aesgen_version_string(), backend);
    int rc = aesgen_force_backend(backend);
    if (rc != AESGEN_OK) {
        for (int k = 0; k < NKEYS; k++)
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_force_backend: %s",
                     aesgen_status_string(rc));
        aesgen_force_backend(NULL);
        return 0;
    }
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        unsigned bits = bench_key_bits[k];
        if (!aesgen_selected_variant(bits, AESGEN_ENCRYPT) ||
            !aesgen_selected_variant(bits, AESGEN_DECRYPT)) {
            snprintf(im->key_note[k], sizeof im->key_note[k],
                     "backend %s has no AES-%u variant here", backend, bits);
            continue;
        }
        p->ctx[k] = aligned_alloc(64, sizeof(aesgen_ctx));
        if (!p->ctx[k])
            return -1;
        bench_key(k, key);
        rc = aesgen_init(p->ctx[k], key, bits / 8);
        if (rc != AESGEN_OK) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_init: %s (%d)",
                     aesgen_status_string(rc), rc);
            free(p->ctx[k]);
            p->ctx[k] = NULL;
            continue;
        }
        const char *ve = aesgen_ctx_variant(p->ctx[k], AESGEN_ENCRYPT);
        const char *vd = aesgen_ctx_variant(p->ctx[k], AESGEN_DECRYPT);
        snprintf(im->variant[k][0], sizeof im->variant[k][0], "%s", ve ? ve : "?");
        snprintf(im->variant[k][1], sizeof im->variant[k][1], "%s", vd ? vd : "?");
        im->variant_info[k][0] = variant_info(ve);
        im->variant_info[k][1] = variant_info(vd);
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            aesgen_reset(im, k, op);
    }
    aesgen_force_backend(NULL);
    for (int op = 0; op < OP_COUNT; op++)
        im->op_ok[op] = 1;
    return 0;
}

/* One generated variant on its own: its key size and the operations of its
 * direction; the other direction is whatever dispatch picks (unused). */
int impl_aesgen_variant_create(impl *im, const char *variant)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "aesgen-%s", variant);
    im->kind = IMPL_AESGEN;
    aesgen_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = aesgen_reset;
    im->loop = aesgen_loop;
    const aesgen_variant *v = aesgen_find_variant(variant);
    snprintf(im->desc, sizeof im->desc, "aesgen %s, variant %s alone (aesgen_init_variants)",
             aesgen_version_string(), variant);
    for (int k = 0; k < NKEYS; k++) {
        unsigned bits = bench_key_bits[k];
        if (v == NULL || v->key_bits != bits) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "variant %s is not AES-%u", variant, bits);
            continue;
        }
        uint8_t key[32];
        p->ctx[k] = aligned_alloc(64, sizeof(aesgen_ctx));
        if (!p->ctx[k])
            return -1;
        bench_key(k, key);
        int rc = aesgen_init_variants(p->ctx[k], key, bits / 8, v->direction == 0 ? v : NULL,
                                      v->direction == 1 ? v : NULL);
        if (rc != AESGEN_OK) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_init_variants: %s (%d)",
                     aesgen_status_string(rc), rc);
            free(p->ctx[k]);
            p->ctx[k] = NULL;
            continue;
        }
        snprintf(im->variant[k][v->direction], sizeof im->variant[k][0], "%s", variant);
        im->variant_info[k][v->direction] = v->info && v->info[0] ? v->info : NULL;
        snprintf(im->variant[k][1 - v->direction], sizeof im->variant[k][0], "(not measured)");
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            aesgen_reset(im, k, op);
    }
    int enc = v != NULL && v->direction == 0;
    im->op_ok[OP_ECB_ENC] = im->op_ok[OP_CTR] = im->op_ok[OP_CBC_ENC] = enc;
    im->op_ok[OP_ECB_DEC] = im->op_ok[OP_CBC_DEC] = v != NULL && !enc;
    return 0;
}

/* ---- BearSSL ct64 ------------------------------------------------------- */

#ifdef AESGEN_BENCH_HAVE_BEARSSL

#ifdef AESGEN_BENCH_BEARSSL_RAW
/* BearSSL's internal ct64 primitives (inner.h), exported by libbearssl but
 * not declared in its public headers. The configure step checked they link. */
void br_aes_ct64_ortho(uint64_t *q);
void br_aes_ct64_interleave_in(uint64_t *q0, uint64_t *q1, const uint32_t *w);
void br_aes_ct64_interleave_out(uint32_t *w, uint64_t q0, uint64_t q1);
unsigned br_aes_ct64_keysched(uint64_t *comp_skey, const void *key, size_t key_len);
void br_aes_ct64_skey_expand(uint64_t *skey, unsigned num_rounds, const uint64_t *comp_skey);
void br_aes_ct64_bitslice_encrypt(unsigned num_rounds, const uint64_t *skey, uint64_t *q);
void br_aes_ct64_bitslice_decrypt(unsigned num_rounds, const uint64_t *skey, uint64_t *q);
#endif

typedef struct bear_priv {
    br_aes_ct64_cbcenc_keys cbce[NKEYS];
    br_aes_ct64_cbcdec_keys cbcd[NKEYS];
    br_aes_ct64_ctr_keys ctr[NKEYS];
    uint64_t skx[NKEYS][120]; /* expanded schedule for ECB */
    unsigned rounds[NKEYS];
    uint8_t iv[NKEYS][OP_COUNT][16];
    uint32_t cc[NKEYS];
} bear_priv;

#ifdef AESGEN_BENCH_BEARSSL_RAW
static uint32_t ld32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void st32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ECB in place, four blocks per bitsliced call, as BearSSL's own ct64 CBC
 * decryption loop does (minus the chaining). */
static void bear_ecb(const uint64_t *skx, unsigned nr, int dec, uint8_t *buf, size_t len)
{
    while (len > 0) {
        uint64_t q[8];
        uint32_t w[16];
        size_t n = len < 64 ? len : 64;
        memset(w, 0, sizeof w);
        for (size_t i = 0; i < n / 4; i++)
            w[i] = ld32le(buf + 4 * i);
        for (int i = 0; i < 4; i++)
            br_aes_ct64_interleave_in(&q[i], &q[i + 4], w + (i << 2));
        br_aes_ct64_ortho(q);
        if (dec)
            br_aes_ct64_bitslice_decrypt(nr, skx, q);
        else
            br_aes_ct64_bitslice_encrypt(nr, skx, q);
        br_aes_ct64_ortho(q);
        for (int i = 0; i < 4; i++)
            br_aes_ct64_interleave_out(w + (i << 2), q[i], q[i + 4]);
        for (size_t i = 0; i < n / 4; i++)
            st32le(buf + 4 * i, w[i]);
        buf += n;
        len -= n;
    }
}
#endif

static int bear_reset(impl *im, int k, int op)
{
    bear_priv *p = im->priv;
    bench_start_iv(op, 1, p->iv[k][op]);
    if (op == OP_CTR) {
        const uint8_t *c = p->iv[k][op];
        p->cc[k] = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 | (uint32_t)c[14] << 8 | c[15];
    }
    return 0;
}

static int bear_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    bear_priv *p = im->priv;
    uint8_t *iv = p->iv[k][op];
    switch (op) {
#ifdef AESGEN_BENCH_BEARSSL_RAW
    case OP_ECB_ENC:
    case OP_ECB_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bear_ecb(p->skx[k], p->rounds[k], op == OP_ECB_DEC, buf, len);
        break;
#endif
    case OP_CTR:
        for (uint64_t i = 0; i < iters; i++)
            p->cc[k] = br_aes_ct64_ctr_run(&p->ctr[k], iv, p->cc[k], buf, len);
        break;
    case OP_CBC_DEC:
        for (uint64_t i = 0; i < iters; i++)
            br_aes_ct64_cbcdec_run(&p->cbcd[k], iv, buf, len);
        break;
    case OP_CBC_ENC:
        for (uint64_t i = 0; i < iters; i++)
            br_aes_ct64_cbcenc_run(&p->cbce[k], iv, buf, len);
        break;
    default:
        return -1;
    }
    return 0;
}

int impl_bearssl_available(void) { return 1; }

const char *impl_bearssl_version(void)
{
    return "BearSSL (system libbearssl; Debian builds it with -Os)";
}

int impl_bearssl_create(impl *im)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "bearssl-ct64");
    im->kind = IMPL_BEARSSL;
    im->ctr32 = 1;
    bear_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = bear_reset;
    im->loop = bear_loop;
    snprintf(im->desc, sizeof im->desc,
             "BearSSL aes_ct64 (64-bit bitsliced, constant time, 4 blocks per core call; system "
             "library, Debian builds it -Os so read it as a floor): CTR br_aes_ct64_ctr_run "
             "(32-bit counter), CBC br_aes_ct64_cbcenc/cbcdec_run (they expand the key schedule "
             "on every call), ECB %s",
#ifdef AESGEN_BENCH_BEARSSL_RAW
             "= a 4-block loop of our own over BearSSL's exported internal ct64 functions "
             "(interleave/ortho/bitslice_encrypt|decrypt), schedule expanded once"
#else
             "not measured (internal ct64 functions not linkable)"
#endif
    );
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        size_t kl = bench_key_bits[k] / 8;
        bench_key(k, key);
        br_aes_ct64_cbcenc_init(&p->cbce[k], key, kl);
        br_aes_ct64_cbcdec_init(&p->cbcd[k], key, kl);
        br_aes_ct64_ctr_init(&p->ctr[k], key, kl);
#ifdef AESGEN_BENCH_BEARSSL_RAW
        {
            uint64_t comp[30];
            p->rounds[k] = br_aes_ct64_keysched(comp, key, kl);
            br_aes_ct64_skey_expand(p->skx[k], p->rounds[k], comp);
        }
#endif
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            bear_reset(im, k, op);
    }
#ifdef AESGEN_BENCH_BEARSSL_RAW
    im->op_ok[OP_ECB_ENC] = im->op_ok[OP_ECB_DEC] = 1;
#endif
    im->op_ok[OP_CTR] = im->op_ok[OP_CBC_DEC] = im->op_ok[OP_CBC_ENC] = 1;
    return 0;
}

#else /* !AESGEN_BENCH_HAVE_BEARSSL */

int impl_bearssl_available(void) { return 0; }
const char *impl_bearssl_version(void) { return NULL; }
int impl_bearssl_create(impl *im)
{
    memset(im, 0, sizeof *im);
    return -1;
}

#endif

/* ---- RustCrypto aes 0.6 (soft backend) ---------------------------------- */

#ifdef AESGEN_BENCH_HAVE_RUSTCRYPTO

/* bench/rustcrypto: a Rust staticlib CMake built with cargo, offline, from
 * Debian's vendored crates; ECB only (one handle per key size). */
typedef struct rc_priv {
    AesgenPeerRc *h[NKEYS];
} rc_priv;

static int rc_reset(impl *im, int k, int op)
{
    (void)im;
    (void)k;
    (void)op;
    return 0; /* ECB: no state between calls */
}

static int rc_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    rc_priv *p = im->priv;
    const AesgenPeerRc *h = p->h[k];
    size_t nb = len / 16;
    int bad = 0;
    if (len % 16 != 0)
        return -1;
    switch (op) {
    case OP_ECB_ENC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_peer_rc_ecb_encrypt(h, buf, nb);
        break;
    case OP_ECB_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_peer_rc_ecb_decrypt(h, buf, nb);
        break;
    default:
        return -1;
    }
    return bad ? -1 : 0;
}

int impl_rustcrypto_available(void) { return 1; }

const char *impl_rustcrypto_version(void) { return aesgen_peer_rc_info(); }

int impl_rustcrypto_create(impl *im)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "rustcrypto-aes0.6");
    im->kind = IMPL_RUSTCRYPTO;
    rc_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = rc_reset;
    im->loop = rc_loop;
    if (aesgen_peer_rc_target_aes())
        snprintf(im->desc, sizeof im->desc,
                 "RustCrypto aes 0.6 built WITH target-feature +aes, so AES-NI (aesni crate), "
                 "NOT the soft backend (%s); ECB only",
                 aesgen_peer_rc_info());
    else
        snprintf(im->desc, sizeof im->desc,
                 "RustCrypto aes 0.6 soft backend (aes-soft fixslice%d, 4 blocks "
                 "per fixslice batch: whole 8-block ParBlocks go through encrypt_blocks/"
                 "decrypt_blocks, a tail of < 8 blocks one block per call as the crate's "
                 "encrypt_slice does), built offline from Debian's librust-aes-dev for the "
                 "baseline x86-64 target (no +aes): %s; ECB only",
                 aesgen_peer_rc_fixslice_bits(), aesgen_peer_rc_info());
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        size_t kl = bench_key_bits[k] / 8;
        bench_key(k, key);
        p->h[k] = aesgen_peer_rc_init(key, kl);
        if (!p->h[k]) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_peer_rc_init failed");
            continue;
        }
        im->key_ok[k] = 1;
    }
    im->op_ok[OP_ECB_ENC] = im->op_ok[OP_ECB_DEC] = 1;
    return 0;
}

#else /* !AESGEN_BENCH_HAVE_RUSTCRYPTO */

int impl_rustcrypto_available(void) { return 0; }
const char *impl_rustcrypto_version(void) { return NULL; }
int impl_rustcrypto_create(impl *im)
{
    memset(im, 0, sizeof *im);
    return -1;
}

#endif

/* ---- libgcrypt ---------------------------------------------------------- */

#ifdef AESGEN_BENCH_HAVE_GCRYPT

/* One handle per (key size, operation), opened and keyed once outside the
 * timing; reset sets the start IV / counter (setiv / setctr), and from then
 * on the handle carries the CBC IV and the CTR counter (a full 128-bit
 * big-endian counter, as in SP 800-38A) from call to call. */
typedef struct gc_priv {
    gcry_cipher_hd_t h[NKEYS][OP_COUNT];
} gc_priv;

static int g_gc_state;          /* 0 not tried, 1 ready, -1 failed */
static char g_gc_version[64];   /* run-time library version */
static char g_gc_hwf[512];      /* hwflist, ':'-separated */
static char g_gc_err[200];      /* why initialisation failed */
static char g_gc_summary[640];  /* "libgcrypt V; hwflist F" */

/* Initialise libgcrypt once, the way its manual asks of an application:
 * version check, no secure memory (nothing here is secret), then
 * "initialisation finished". */
static int gc_init(void)
{
    if (g_gc_state)
        return g_gc_state > 0 ? 0 : -1;
    g_gc_state = -1;
    if (!gcry_check_version(GCRYPT_VERSION)) {
        const char *have = gcry_check_version(NULL);
        snprintf(g_gc_err, sizeof g_gc_err,
                 "gcry_check_version: run-time libgcrypt %s is older than gcrypt.h %s",
                 have ? have : "?", GCRYPT_VERSION);
        return -1;
    }
    if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    }
    bench_copy(g_gc_version, sizeof g_gc_version, gcry_check_version(NULL));
    bench_copy(g_gc_hwf, sizeof g_gc_hwf, "(unknown: libgcrypt < 1.8)");
#if GCRYPT_VERSION_NUMBER >= 0x010800
    {
        /* "hwflist:intel-aesni:intel-avx2:...:\n" */
        char *cfg = gcry_get_config(0, "hwflist");
        const char *f = cfg ? cfg : "";
        if (strncmp(f, "hwflist:", 8) == 0)
            f += 8;
        bench_copy(g_gc_hwf, sizeof g_gc_hwf, f);
        size_t l = strlen(g_gc_hwf);
        while (l > 0 && (g_gc_hwf[l - 1] == '\n' || g_gc_hwf[l - 1] == ':'))
            g_gc_hwf[--l] = '\0';
        if (l == 0)
            bench_copy(g_gc_hwf, sizeof g_gc_hwf, cfg ? "(none)" : "(unknown)");
        gcry_free(cfg);
    }
#endif
    snprintf(g_gc_summary, sizeof g_gc_summary, "libgcrypt %s; hwflist %s", g_gc_version,
             g_gc_hwf);
    g_gc_state = 1;
    return 0;
}

static int gc_hwf(const char *feature)
{
    size_t n = strlen(feature);
    for (const char *p = g_gc_hwf; (p = strstr(p, feature)) != NULL; p += n)
        if ((p == g_gc_hwf || p[-1] == ':') && (p[n] == ':' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Which code libgcrypt runs for each mode, from its version and hwflist.
 * Stated only for 1.10 on x86-64 (read from its rijndael.c / cipher.c):
 * with AES-NI, and VAES + AVX2, the bulk CTR and CBC-decryption routines are
 * rijndael-vaes-avx2; CBC encryption is the serial AES-NI routine; ECB has
 * no bulk routine in 1.10, so it goes one block per call through the AES-NI
 * block function. */
static void gc_paths(char *out, size_t n)
{
    int v110 = strncmp(g_gc_version, "1.10.", 5) == 0;
    if (v110 && gc_hwf("intel-aesni") && gc_hwf("intel-vaes-vpclmul") && gc_hwf("intel-avx2"))
        snprintf(out, n, "CTR and CBC decryption run its VAES/AVX2 bulk code, CBC encryption "
                         "its AES-NI code, ECB its AES-NI one-block function once per block "
                         "(1.10 has no bulk ECB routine)");
    else if (v110 && gc_hwf("intel-aesni"))
        snprintf(out, n, "CTR, CBC decryption and CBC encryption run its AES-NI bulk code, "
                         "ECB its AES-NI one-block function once per block (1.10 has no bulk "
                         "ECB routine)");
    else
        snprintf(out, n, "code paths as libgcrypt's own hardware dispatch picks them (not "
                         "stated for this version / feature set)");
}

static const int gc_algo[NKEYS] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};

static int gc_mode(int op)
{
    return (op == OP_ECB_ENC || op == OP_ECB_DEC) ? GCRY_CIPHER_MODE_ECB
           : op == OP_CTR                         ? GCRY_CIPHER_MODE_CTR
                                                  : GCRY_CIPHER_MODE_CBC;
}

/* Back to the start IV / counter (nothing for ECB). */
static gcry_error_t gc_set_start(gcry_cipher_hd_t h, int op)
{
    uint8_t iv[16];
    if (op == OP_ECB_ENC || op == OP_ECB_DEC)
        return 0;
    bench_start_iv(op, 0, iv);
    return op == OP_CTR ? gcry_cipher_setctr(h, iv, 16) : gcry_cipher_setiv(h, iv, 16);
}

static int gc_reset(impl *im, int k, int op)
{
    gc_priv *p = im->priv;
    return gc_set_start(p->h[k][op], op) ? -1 : 0;
}

static int gc_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    gc_priv *p = im->priv;
    gcry_cipher_hd_t h = p->h[k][op];
    gcry_error_t err = 0;
    if (bench_op_is_decrypt(op)) {
        for (uint64_t i = 0; i < iters; i++)
            err |= gcry_cipher_decrypt(h, buf, len, NULL, 0);
    } else {
        for (uint64_t i = 0; i < iters; i++)
            err |= gcry_cipher_encrypt(h, buf, len, NULL, 0);
    }
    return err ? -1 : 0;
}

int impl_gcrypt_available(void) { return 1; }

const char *impl_gcrypt_version(void) { return gc_init() == 0 ? g_gc_summary : NULL; }

int impl_gcrypt_create(impl *im)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "gcrypt");
    im->kind = IMPL_GCRYPT;
    gc_priv *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    im->priv = p;
    im->reset = gc_reset;
    im->loop = gc_loop;
    if (gc_init() != 0) {
        /* A row of n/a cells that say why. */
        snprintf(im->desc, sizeof im->desc, "libgcrypt (failed to initialise: %s)", g_gc_err);
        for (int k = 0; k < NKEYS; k++)
            bench_copy(im->key_note[k], sizeof im->key_note[k], g_gc_err);
        return 0;
    }
    char paths[320];
    gc_paths(paths, sizeof paths);
    int w = snprintf(
        im->desc, sizeof im->desc,
        "libgcrypt %s gcry_cipher_encrypt/decrypt in place on one handle per key size and mode "
        "(gcry_cipher_open(GCRY_CIPHER_AES128/192/256, GCRY_CIPHER_MODE_ECB/CTR/CBC); setkey, "
        "setiv/setctr untimed; 128-bit CTR counter); %s; hwflist here: %s",
        g_gc_version, paths, g_gc_hwf);
    if (w >= (int)sizeof im->desc) /* a very long hwflist: mark the cut */
        memcpy(im->desc + sizeof im->desc - 4, "...", 4);
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        bench_key(k, key);
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT && im->key_ok[k]; op++) {
            const char *what = "gcry_cipher_open";
            gcry_error_t err = gcry_cipher_open(&p->h[k][op], gc_algo[k], gc_mode(op), 0);
            if (!err) {
                what = "gcry_cipher_setkey";
                err = gcry_cipher_setkey(p->h[k][op], key, bench_key_bits[k] / 8);
            }
            if (!err) {
                what = op == OP_CTR ? "gcry_cipher_setctr" : "gcry_cipher_setiv";
                err = gc_set_start(p->h[k][op], op);
            }
            if (err) {
                im->key_ok[k] = 0;
                snprintf(im->key_note[k], sizeof im->key_note[k], "%s (AES-%u %s): %s", what,
                         bench_key_bits[k], bench_op_name[op], gcry_strerror(err));
            }
        }
    }
    for (int op = 0; op < OP_COUNT; op++)
        im->op_ok[op] = 1;
    return 0;
}

#else /* !AESGEN_BENCH_HAVE_GCRYPT */

int impl_gcrypt_available(void) { return 0; }
const char *impl_gcrypt_version(void) { return NULL; }
int impl_gcrypt_create(impl *im)
{
    memset(im, 0, sizeof *im);
    return -1;
}

#endif

void impl_destroy(impl *im)
{
    if (!im->priv)
        return;
    if (im->kind == IMPL_OPENSSL) {
        ossl_priv *p = im->priv;
        for (int k = 0; k < NKEYS; k++)
            for (int op = 0; op < OP_COUNT; op++)
                EVP_CIPHER_CTX_free(p->c[k][op]);
    } else if (im->kind == IMPL_AESGEN) {
        aesgen_priv *p = im->priv;
        for (int k = 0; k < NKEYS; k++)
            if (p->ctx[k]) {
                aesgen_wipe(p->ctx[k]);
                free(p->ctx[k]);
            }
    } else if (im->kind == IMPL_REMOTE) {
        return;
    }
#ifdef AESGEN_BENCH_HAVE_RUSTCRYPTO
    else if (im->kind == IMPL_RUSTCRYPTO) {
        rc_priv *p = im->priv;
        for (int k = 0; k < NKEYS; k++)
            aesgen_peer_rc_free(p->h[k]);
    }
#endif
#ifdef AESGEN_BENCH_HAVE_GCRYPT
    else if (im->kind == IMPL_GCRYPT) {
        gc_priv *p = im->priv;
        for (int k = 0; k < NKEYS; k++)
            for (int op = 0; op < OP_COUNT; op++)
                gcry_cipher_close(p->h[k][op]); /* NULL is a no-op */
    }
#endif
    free(im->priv);
    im->priv = NULL;
}

/* ---- timing ------------------------------------------------------------- */

int impl_sample(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters,
                bench_sample *s)
{
    if (im->remote_sample)
        return im->remote_sample(im, k, op, len, iters, s);
    int kind = counter_kind_now();
    long sw0 = involuntary_switches();
    uint64_t c0 = counter_read();
    double t0 = now_ns();
    int rc = im->loop(im, k, op, buf, len, iters);
    double t1 = now_ns();
    uint64_t c1 = counter_read();
    long sw1 = involuntary_switches();
    s->ns = t1 - t0;
    s->count = kind == CNT_NONE ? -1.0 : (double)(c1 - c0);
    s->preempted = (sw0 < 0 || sw1 < 0) ? -1 : (int)(sw1 - sw0);
    return rc;
}
