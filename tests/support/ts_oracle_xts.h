/*
 * ts_oracle_xts.h -- OpenSSL EVP AES-XTS as the reference (fuzz_differential's XTS
 * modes). Part of the CMake target aesgen_test_oracle, like ts_oracle_gcm.h.
 *
 * Each call sets the caller's context x up afresh (EVP_CIPHER_CTX_reset first), so
 * one context serves any sequence of calls, XTS or not; one thread per context. It
 * returns NULL on success, or the name of what failed, as ts_oracle.h does.
 */
#ifndef AESGEN_TS_ORACLE_XTS_H
#define AESGEN_TS_ORACLE_XTS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/* OpenSSL's limit on one data unit: 2^20 blocks (the same as IEEE 1619's). */
#define TS_ORACLE_XTS_MAX_UNIT ((size_t)1 << 24)

/* EVP_aes_128_xts() or EVP_aes_256_xts() (bits 128 or 256, the size of one half). */
const EVP_CIPHER *ts_oracle_xts_cipher(unsigned bits);

/* One data unit: out = the XTS encryption (enc 1) or decryption (enc 0) of in, len
 * bytes (16..TS_ORACLE_XTS_MAX_UNIT, ciphertext stealing when not a multiple of 16),
 * under key = key1 || key2 (2 * bits / 8 bytes, the halves different: OpenSSL refuses
 * equal ones) with the 16-byte tweak as the IV, in one EVP_CipherUpdate. */
const char *ts_oracle_xts(EVP_CIPHER_CTX *x, unsigned bits, int enc, const uint8_t *key, const uint8_t tweak[16],
                          uint8_t *out, const uint8_t *in, size_t len);

#endif
