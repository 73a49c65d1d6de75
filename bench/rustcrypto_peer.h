/*
 * rustcrypto_peer.h -- the C ABI of bench/rustcrypto (a Rust staticlib
 * wrapping RustCrypto's aes 0.6), linked into aesgen-bench when CMake built
 * it (AESGEN_BENCH_HAVE_RUSTCRYPTO).
 */
#ifndef AESGEN_BENCH_RUSTCRYPTO_PEER_H
#define AESGEN_BENCH_RUSTCRYPTO_PEER_H

#include <stddef.h>
#include <stdint.h>

typedef struct AesgenPeerRc AesgenPeerRc;

/* Key set-up for a 16, 24 or 32-byte key; NULL otherwise. */
AesgenPeerRc *aesgen_peer_rc_init(const uint8_t *key, size_t key_len);
/* ECB in place over nblocks 16-byte blocks; 0 on success. */
int aesgen_peer_rc_ecb_encrypt(const AesgenPeerRc *h, uint8_t *buf, size_t nblocks);
int aesgen_peer_rc_ecb_decrypt(const AesgenPeerRc *h, uint8_t *buf, size_t nblocks);
void aesgen_peer_rc_free(AesgenPeerRc *h);
/* 1 if built with target-feature +aes (aes 0.6 would then run AES-NI). */
int aesgen_peer_rc_target_aes(void);
/* 64: aes-soft fixslice64; 32: fixslice32. */
int aesgen_peer_rc_fixslice_bits(void);
/* "aes X + aes-soft Y; rustc Z, opt-level N" */
const char *aesgen_peer_rc_info(void);

#endif /* AESGEN_BENCH_RUSTCRYPTO_PEER_H */
