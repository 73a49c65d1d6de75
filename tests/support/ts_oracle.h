/*
 * ts_oracle.h -- OpenSSL EVP as the reference AES (differential, threads, fuzz).
 * The only part of the test support that needs OpenSSL (CMake target
 * aesgen_test_oracle, with ts_oracle_gcm.h for AES-GCM); cross builds have no
 * OpenSSL and do not build it.
 *
 * Modes are those of ts_modes.h. Every function returns NULL on success, or the
 * name of what failed ("EVP_CipherInit_ex", "EVP_CipherUpdate output length", ...),
 * so that each test reports a failure of the oracle its own way.
 */
#ifndef AESGEN_TS_ORACLE_H
#define AESGEN_TS_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "ts_modes.h"

/* EVP_aes_<bits>_<ecb|cbc|ctr>() for a TS_MODE_*. */
const EVP_CIPHER *ts_oracle_cipher(unsigned bits, int mode);

/* Sets x up for `mode` (its direction, no padding); iv: the CBC IV or the CTR
 * counter block, unused by ECB. */
const char *ts_oracle_begin(EVP_CIPHER_CTX *x, unsigned bits, int mode, const uint8_t *key,
                            const uint8_t *iv);

/* len bytes through x (in calls of at most 2^24 bytes); each must give as many bytes. */
const char *ts_oracle_update(EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in, size_t len);

/* The chaining state of x: the IV or the next counter block, and (CTR) the bytes
 * used of the current keystream block. */
const char *ts_oracle_state(EVP_CIPHER_CTX *x, uint8_t iv[16], unsigned *num);

/* One AES encryption of a block, through x (which it sets up for ECB). */
const char *ts_oracle_ecb_block(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key,
                                const uint8_t in[16], uint8_t out[16]);

/* A whole message in a context of its own: begin, update, final (which must give
 * nothing more). */
const char *ts_oracle_oneshot(unsigned bits, int mode, const uint8_t *key, const uint8_t *iv,
                              uint8_t *out, const uint8_t *in, size_t len);

/* The OpenSSL version the oracle runs on ("OpenSSL 3.0.19 27 Jan 2026"). */
const char *ts_oracle_version(void);

#endif
