/*
 * bench_openssl.c -- the OpenSSL EVP row, and bench_reference: the one-shot
 * OpenSSL output every row (this one included) is checked against.
 *
 * One EVP context per (key size, operation), keyed once outside the timing.
 * ECB, CBC and CTR run in place with EVP_Encrypt/DecryptUpdate and carry the
 * CBC IV / CTR counter on from call to call. A GCM call is one whole message
 * (bench.h): IV set-up (EVP_CipherInit_ex with only the IV), the AAD, the
 * text and the tag (EVP_CTRL_AEAD_GET_TAG after EVP_EncryptFinal_ex; for
 * opening EVP_CTRL_AEAD_SET_TAG before EVP_DecryptFinal_ex, which fails on
 * a wrong tag), as `openssl speed -aead` does. An XTS call is one data unit
 * as a disk layer makes it with OpenSSL: EVP_CipherInit_ex with only the
 * tweak as IV, then one EVP_CipherUpdate; xts-sectors-enc is a loop of 64
 * of those, one per 4 KiB sector, with the tweaks computed in the loop.
 * AES-192 has no XTS: those contexts are not set up (bench_op_na).
 */
#define _GNU_SOURCE
#include "bench.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ossl_cipher_name(int op, int k)
{
    static const char *const names[5][3] = {
        {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
        {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"},
        {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"},
        {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"},
        {"AES-128-XTS", "(no AES-192-XTS)", "AES-256-XTS"}};
    int m = (op == OP_ECB_ENC || op == OP_ECB_DEC) ? 0
            : op == OP_CTR                         ? 1
            : bench_op_is_gcm(op)                  ? 3
            : bench_op_is_xts(op)                  ? 4
                                                   : 2;
    return names[m][k];
}

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
static EVP_CIPHER *g_ciphers[OP_COUNT][NKEYS];
static const EVP_CIPHER *ossl_cipher(int op, int k)
{
    if (bench_op_na(op, k, 0))
        return NULL;
    if (!g_ciphers[op][k])
        g_ciphers[op][k] = EVP_CIPHER_fetch(NULL, ossl_cipher_name(op, k), NULL);
    return g_ciphers[op][k];
}
#else
static const EVP_CIPHER *ossl_cipher(int op, int k)
{
    return bench_op_na(op, k, 0) ? NULL : EVP_get_cipherbyname(ossl_cipher_name(op, k));
}
#endif

const char *impl_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

/* A keyed EVP context for (op, k) starting at iv (GCM: its first 12 bytes,
 * the default IV length); NULL on failure. */
static EVP_CIPHER_CTX *ossl_new(int op, int k, const uint8_t iv[16])
{
    uint8_t key[64];
    const EVP_CIPHER *c = ossl_cipher(op, k);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!c || !ctx)
        goto fail;
    if (bench_op_is_xts(op))
        bench_xts_key(k, key); /* key1 || key2, the length the cipher has */
    else
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

/* One GCM message on a keyed context: seal in[0, len) into out with the tag
 * at out + len (in == out: in place), or open in (ciphertext || tag) into
 * out. 0, or -1 (for opening also when the tag does not authenticate). */
static int ossl_gcm(EVP_CIPHER_CTX *c, int op, const uint8_t iv[12], uint8_t *out,
                    const uint8_t *in, size_t len)
{
    int outl = 0, fin = 0, enc = op == OP_GCM_SEAL;
    int ok = EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, enc) == 1;
    if (ok && !enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, BENCH_GCM_TAG_BYTES,
                                 (void *)(in + len)) == 1;
    ok = ok && EVP_CipherUpdate(c, NULL, &outl, bench_gcm_aad, BENCH_GCM_AAD_BYTES) == 1;
    ok = ok && EVP_CipherUpdate(c, out, &outl, in, (int)len) == 1 && (size_t)outl == len;
    ok = ok && EVP_CipherFinal_ex(c, out + len, &fin) == 1; /* GCM writes nothing here */
    if (ok && enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, BENCH_GCM_TAG_BYTES, out + len) == 1;
    return ok ? 0 : -1;
}

/* One XTS call on a keyed context, in place: one data unit with the bench's
 * tweak, or for xts-sectors-enc one unit per 4 KiB sector with the tweak
 * BENCH_XTS_FIRST_SECTOR + i. 0, or -1. */
static int ossl_xts(EVP_CIPHER_CTX *c, int op, uint8_t *buf, size_t len)
{
    int outl = 0, ok = 1;
    if (op != OP_XTS_SECTORS_ENC) {
        ok = EVP_CipherInit_ex(c, NULL, NULL, NULL, bench_xts_tweak, -1) == 1;
        ok = ok && EVP_CipherUpdate(c, buf, &outl, buf, (int)len) == 1 && (size_t)outl == len;
        return ok ? 0 : -1;
    }
    for (size_t u = 0; u < len / bench_xts_sector_bytes; u++) {
        uint8_t tweak[16], *p = buf + u * bench_xts_sector_bytes;
        bench_xts_sector_tweak(BENCH_XTS_FIRST_SECTOR + u, tweak);
        ok &= EVP_CipherInit_ex(c, NULL, NULL, NULL, tweak, -1) == 1;
        ok &= EVP_CipherUpdate(c, p, &outl, p, (int)bench_xts_sector_bytes) == 1 &&
              (size_t)outl == bench_xts_sector_bytes;
    }
    return ok ? 0 : -1;
}

int bench_reference(int op, int k, const uint8_t iv[16], uint8_t *buf, size_t len)
{
    if (op == OP_CBC_STREAMS_ENC) { /* each stream a CBC encryption of its own */
        const size_t size = len / bench_cbc_streams;
        for (unsigned i = 0; i < bench_cbc_streams; i++) {
            uint8_t siv[16];
            bench_stream_iv(i, siv);
            if (bench_reference(OP_CBC_ENC, k, siv, buf + bench_stream_at(size, i), size) != 0)
                return -1;
        }
        return 0;
    }
    EVP_CIPHER_CTX *ctx = ossl_new(op, k, iv);
    int outl = 0, rc = -1;
    if (!ctx)
        return -1;
    if (bench_op_is_gcm(op))
        rc = ossl_gcm(ctx, op, iv, buf, buf, len); /* in place is fine once */
    else if (bench_op_is_xts(op))
        rc = ossl_xts(ctx, op, buf, len);
    else if (EVP_CipherUpdate(ctx, buf, &outl, buf, (int)len) == 1 && (size_t)outl == len)
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
    if (op == OP_ECB_ENC || op == OP_ECB_DEC || bench_op_is_gcm(op) || bench_op_is_xts(op))
        return 0; /* nothing carries over between calls */
    bench_start_iv(op, 0, iv);
    return EVP_CipherInit_ex(p->c[k][op], NULL, NULL, NULL, iv, -1) == 1 ? 0 : -1;
}

static int ossl_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    ossl_priv *p = im->priv;
    EVP_CIPHER_CTX *c = p->c[k][op];
    int outl = 0, ok = 1;
    if (op == OP_GCM_SEAL || op == OP_GCM_OPEN) {
        const uint8_t *in = op == OP_GCM_SEAL ? buf : bench_open_input(buf, len);
        int bad = 0;
        for (uint64_t i = 0; i < iters; i++)
            bad |= ossl_gcm(c, op, bench_gcm_iv, buf, in, len);
        return bad;
    }
    if (bench_op_is_xts(op)) {
        int bad = 0;
        for (uint64_t i = 0; i < iters; i++)
            bad |= ossl_xts(c, op, buf, len);
        return bad;
    }
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
    ossl_priv *p = impl_init(im, name, IMPL_OPENSSL, sizeof *p, ossl_reset, ossl_loop, ossl_release);
    if (!p)
        return -1;
    const char *cap = getenv("OPENSSL_ia32cap");
    snprintf(im->desc, sizeof im->desc,
             "%s EVP_Encrypt/DecryptUpdate; GCM: one message per call (EVP_CipherInit_ex with "
             "the IV, AAD, text, Final, EVP_CTRL_AEAD_GET/SET_TAG); XTS (aes-128-xts, "
             "aes-256-xts): one data unit per call (EVP_CipherInit_ex with the tweak, one "
             "EVP_CipherUpdate), xts-sectors-enc a loop of 64 such calls; %s",
             OpenSSL_version(OPENSSL_VERSION),
             cap ? "OPENSSL_ia32cap set (see its row)"
                 : "default CPU dispatch (AES-NI and PCLMULQDQ where the CPU has them)");
    for (int k = 0; k < NKEYS; k++) {
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++) {
            uint8_t iv[16];
            if (bench_op_na(op, k, 0) || op == OP_CBC_STREAMS_ENC)
                continue; /* AES-192-XTS: no such cipher; streams: not offered */
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
        im->op_ok[op] = op != OP_CBC_STREAMS_ENC;
    snprintf(im->op_note[OP_CBC_STREAMS_ENC], sizeof im->op_note[OP_CBC_STREAMS_ENC],
             "OpenSSL has no call for independent CBC messages");
    return 0;
}
