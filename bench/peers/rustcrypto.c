/*
 * peers/rustcrypto.c -- the rustcrypto-aes0.6 row: RustCrypto's aes 0.6
 * (soft backend) through bench/rustcrypto, a Rust staticlib with a C ABI
 * (rustcrypto_peer.h). bench/CMakeLists.txt compiles this file only when
 * it could build that library with cargo.
 */
#define _GNU_SOURCE
#include "bench.h"
#include "rustcrypto_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void rc_release(impl *im)
{
    rc_priv *p = im->priv;
    for (int k = 0; k < NKEYS; k++)
        aesgen_peer_rc_free(p->h[k]);
}

static const char *rc_version(void) { return aesgen_peer_rc_info(); }

static int rc_create(impl *im)
{
    rc_priv *p = impl_init(im, "rustcrypto-aes0.6", IMPL_RUSTCRYPTO, sizeof *p, rc_reset, rc_loop, rc_release);
    if (!p)
        return -1;
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
    for (int op = OP_GCM_SEAL; op <= OP_GCM_OPEN; op++) /* that is the aes-gcm crate */
        snprintf(im->op_note[op], sizeof im->op_note[op], "RustCrypto aes 0.6 has no GCM");
    for (int op = OP_XTS_ENC; op <= OP_XTS_SECTORS_ENC; op++) /* that is the xts-mode crate */
        snprintf(im->op_note[op], sizeof im->op_note[op], "RustCrypto aes 0.6 has no XTS");
    return 0;
}

const bench_peer_lib bench_peer_rustcrypto = {rc_create, rc_version};
