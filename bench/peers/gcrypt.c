/*
 * peers/gcrypt.c -- the gcrypt row: libgcrypt's AES through its cipher
 * handles, with the code paths libgcrypt runs stated from its version and
 * hwflist. bench/CMakeLists.txt compiles this file only when it found
 * libgcrypt and a test program using these calls builds.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One handle per (key size, operation), opened and keyed once outside the
 * timing; reset sets the start IV / counter (setiv / setctr), and from then
 * on the handle carries the CBC IV and the CTR counter (a full 128-bit
 * big-endian counter, as in SP 800-38A) from call to call. A GCM call is one
 * whole message on its handle: setiv, authenticate (the AAD), encrypt or
 * decrypt, gettag or checktag (bench.h). An XTS call is one data unit:
 * setiv with the tweak, then encrypt or decrypt in place (GCRY_CIPHER_MODE_XTS,
 * libgcrypt >= 1.8, which the CMake probe's gcry_get_config already needs);
 * AES-192 has no XTS, and xts-sectors-enc is not measured for this peer. */
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
           : bench_op_is_gcm(op)                  ? GCRY_CIPHER_MODE_GCM
           : bench_op_is_xts(op)                  ? GCRY_CIPHER_MODE_XTS
                                                  : GCRY_CIPHER_MODE_CBC;
}

/* iters XTS data units in place, each with the bench's tweak. */
static gcry_error_t gc_xts(gcry_cipher_hd_t h, int op, uint8_t *buf, size_t len,
                           uint64_t iters)
{
    gcry_error_t err = 0;
    for (uint64_t i = 0; i < iters && !err; i++) {
        err = gcry_cipher_setiv(h, bench_xts_tweak, 16);
        if (op == OP_XTS_DEC)
            err = err ? err : gcry_cipher_decrypt(h, buf, len, NULL, 0);
        else
            err = err ? err : gcry_cipher_encrypt(h, buf, len, NULL, 0);
    }
    return err;
}

/* iters GCM messages: seal buf in place, or open the prepared one. */
static gcry_error_t gc_gcm(gcry_cipher_hd_t h, int op, uint8_t *buf, size_t len,
                           uint64_t iters)
{
    const uint8_t *in = bench_open_input(buf, len);
    gcry_error_t err = 0;
    for (uint64_t i = 0; i < iters && !err; i++) {
        err = gcry_cipher_setiv(h, bench_gcm_iv, BENCH_GCM_IV_BYTES);
        err = err ? err : gcry_cipher_authenticate(h, bench_gcm_aad, BENCH_GCM_AAD_BYTES);
        if (op == OP_GCM_SEAL) {
            err = err ? err : gcry_cipher_encrypt(h, buf, len, NULL, 0);
            err = err ? err : gcry_cipher_gettag(h, buf + len, BENCH_GCM_TAG_BYTES);
        } else {
            err = err ? err : gcry_cipher_decrypt(h, buf, len, in, len);
            err = err ? err : gcry_cipher_checktag(h, in + len, BENCH_GCM_TAG_BYTES);
        }
    }
    return err;
}

/* Back to the start IV / counter (nothing for ECB). */
static gcry_error_t gc_set_start(gcry_cipher_hd_t h, int op)
{
    uint8_t iv[16];
    if (op == OP_ECB_ENC || op == OP_ECB_DEC || bench_op_is_gcm(op) || bench_op_is_xts(op))
        return 0; /* GCM and XTS set their IV / tweak on every call */
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
    if (bench_op_is_gcm(op))
        err = gc_gcm(h, op, buf, len, iters);
    else if (bench_op_is_xts(op))
        err = gc_xts(h, op, buf, len, iters);
    else if (bench_op_is_decrypt(op)) {
        for (uint64_t i = 0; i < iters; i++)
            err |= gcry_cipher_decrypt(h, buf, len, NULL, 0);
    } else {
        for (uint64_t i = 0; i < iters; i++)
            err |= gcry_cipher_encrypt(h, buf, len, NULL, 0);
    }
    return err ? -1 : 0;
}

static void gc_release(impl *im)
{
    gc_priv *p = im->priv;
    for (int k = 0; k < NKEYS; k++)
        for (int op = 0; op < OP_COUNT; op++)
            gcry_cipher_close(p->h[k][op]); /* NULL is a no-op */
}

/* "libgcrypt 1.10.1; hwflist intel-aesni:..." (initialises libgcrypt), NULL
 * when libgcrypt fails to initialise. */
static const char *gc_version(void) { return gc_init() == 0 ? g_gc_summary : NULL; }

static int gc_create(impl *im)
{
    gc_priv *p = impl_init(im, "gcrypt", IMPL_GCRYPT, sizeof *p, gc_reset, gc_loop, gc_release);
    if (!p)
        return -1;
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
        "(gcry_cipher_open(GCRY_CIPHER_AES128/192/256, GCRY_CIPHER_MODE_ECB/CTR/CBC/GCM); "
        "setkey, setiv/setctr untimed; 128-bit CTR counter; GCM one message per call: setiv, "
        "authenticate, encrypt/decrypt, gettag/checktag, code paths as libgcrypt's dispatch "
        "picks them; XTS GCRY_CIPHER_MODE_XTS, one data unit per call: setiv with the tweak, "
        "encrypt/decrypt, code path as its dispatch picks it); %s; hwflist here: %s",
        g_gc_version, paths, g_gc_hwf);
    if (w >= (int)sizeof im->desc) /* a very long hwflist: mark the cut */
        memcpy(im->desc + sizeof im->desc - 4, "...", 4);
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        bench_key(k, key);
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT && im->key_ok[k]; op++) {
            const char *what = "gcry_cipher_open";
            uint8_t xkey[64];
            size_t xlen = bench_op_is_xts(op) ? bench_xts_key(k, xkey) : 0;
            if (op == OP_XTS_SECTORS_ENC || op == OP_CBC_STREAMS_ENC || (bench_op_is_xts(op) && xlen == 0))
                continue; /* not measured here / no AES-192-XTS */
            gcry_error_t err = gcry_cipher_open(&p->h[k][op], gc_algo[k], gc_mode(op), 0);
            if (!err) {
                what = "gcry_cipher_setkey";
                err = xlen ? gcry_cipher_setkey(p->h[k][op], xkey, xlen)
                           : gcry_cipher_setkey(p->h[k][op], key, bench_key_bits[k] / 8);
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
        im->op_ok[op] = op != OP_XTS_SECTORS_ENC && op != OP_CBC_STREAMS_ENC;
    snprintf(im->op_note[OP_CBC_STREAMS_ENC], sizeof im->op_note[OP_CBC_STREAMS_ENC],
             "libgcrypt has no call for independent CBC messages");
    snprintf(im->op_note[OP_XTS_SECTORS_ENC], sizeof im->op_note[OP_XTS_SECTORS_ENC],
             "xts-sectors-enc is measured for aesgen and OpenSSL only");
    return 0;
}

const bench_peer_lib bench_peer_gcrypt = {gc_create, gc_version};
