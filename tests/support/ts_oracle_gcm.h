/*
 * ts_oracle_gcm.h -- OpenSSL EVP AES-GCM as the reference (gcm differential, fuzz).
 * Part of the CMake target aesgen_test_oracle, like ts_oracle.h.
 *
 * Each function sets the caller's context x up afresh (EVP_CIPHER_CTX_reset
 * first), so one context serves any sequence of calls, GCM or not; one thread
 * per context. They return NULL on success, or the name of what failed
 * ("EVP_CTRL_GCM_SET_IVLEN", ...), as the functions of ts_oracle.h do.
 *
 * IVs of 1..TS_ORACLE_GCM_MAX_IV bytes (OpenSSL's limit; a test that needs longer
 * ones gives OpenSSL an IV with the same pre-counter block J0); AAD and text of
 * any length, either may be empty (and then NULL).
 */
#ifndef AESGEN_TS_ORACLE_GCM_H
#define AESGEN_TS_ORACLE_GCM_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define TS_ORACLE_GCM_MAX_IV 128

/* EVP_aes_<bits>_gcm() */
const EVP_CIPHER *ts_oracle_gcm_cipher(unsigned bits);

/* out = the GCM encryption of in (len bytes), tag = the full 16-byte tag over the
 * IV, the AAD and out. */
const char *ts_oracle_gcm_seal(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key, const uint8_t *iv,
                               size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, uint8_t tag[16]);

/* out = the GCM decryption of in (len bytes); *authentic = 1 when the first tag_len
 * (1..16) bytes of tag authenticate the IV, the AAD and in (EVP_DecryptFinal_ex),
 * else 0. out is written either way (OpenSSL releases the plaintext first). */
const char *ts_oracle_gcm_open(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key, const uint8_t *iv,
                               size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, const uint8_t *tag, size_t tag_len,
                               int *authentic);

#endif
