/*
 * bench_impls.c -- the rows aesgen-bench always has: aesgen (one row per
 * backend, or one generated variant alone) and OpenSSL EVP, the reference
 * every row is checked against; the table of optional peer libraries
 * (bench/peers/); and the timing of one sample.
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

static void ossl_release(impl *im)
{
    ossl_priv *p = im->priv;
    for (int k = 0; k < NKEYS; k++)
        for (int op = 0; op < OP_COUNT; op++)
            EVP_CIPHER_CTX_free(p->c[k][op]);
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
    im->release = ossl_release;
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

static void aesgen_release(impl *im)
{
    aesgen_priv *p = im->priv;
    for (int k = 0; k < NKEYS; k++)
        if (p->ctx[k]) {
            aesgen_wipe(p->ctx[k]);
            free(p->ctx[k]);
        }
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
    im->release = aesgen_release;
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
    im->release = aesgen_release;
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

/* ---- optional peers ----------------------------------------------------- */

/* The only place that asks which peers CMake built in: it defines
 * AESGEN_BENCH_HAVE_<PEER> for this file alone when it adds
 * peers/<peer>.c to the program. */
#ifdef AESGEN_BENCH_HAVE_BEARSSL
#define BEARSSL_LIB (&bench_peer_bearssl)
#else
#define BEARSSL_LIB NULL
#endif
#ifdef AESGEN_BENCH_HAVE_RUSTCRYPTO
#define RUSTCRYPTO_LIB (&bench_peer_rustcrypto)
#else
#define RUSTCRYPTO_LIB NULL
#endif
#ifdef AESGEN_BENCH_HAVE_GCRYPT
#define GCRYPT_LIB (&bench_peer_gcrypt)
#else
#define GCRYPT_LIB NULL
#endif

const bench_peer bench_peers[PEER_COUNT] = {
    [PEER_BEARSSL] = {"bearssl-ct64", "bearssl", "BearSSL not found at configure time",
                      BEARSSL_LIB},
    [PEER_RUSTCRYPTO] = {"rustcrypto-aes0.6", "rustcrypto",
                         "cargo or Debian's librust-aes-dev not found at configure time",
                         RUSTCRYPTO_LIB},
    [PEER_GCRYPT] = {"gcrypt", "gcrypt",
                     "libgcrypt not found at configure time, or AESGEN_BENCH_GCRYPT=OFF",
                     GCRYPT_LIB},
};

/* ---- clean-up ----------------------------------------------------------- */

void impl_destroy(impl *im)
{
    if (!im->priv || im->kind == IMPL_REMOTE)
        return;
    if (im->release)
        im->release(im);
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
