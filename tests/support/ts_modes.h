/*
 * ts_modes.h -- the five data operations of aesgen.h as one enumeration, the
 * tests' own 128-bit big-endian counter arithmetic (independent of the library
 * and of OpenSSL), and the FIPS-197 appendix C known answers.
 */
#ifndef AESGEN_TS_MODES_H
#define AESGEN_TS_MODES_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"

enum { TS_MODE_ECB_ENC, TS_MODE_ECB_DEC, TS_MODE_CBC_ENC, TS_MODE_CBC_DEC, TS_MODE_CTR, TS_MODE_COUNT };

/* "ECB-encrypt", "ECB-decrypt", "CBC-encrypt", "CBC-decrypt", "CTR" */
extern const char *const ts_mode_name[TS_MODE_COUNT];

/* AESGEN_DECRYPT for the ECB and CBC decryptions, else AESGEN_ENCRYPT (CTR too). */
int ts_mode_direction(int mode);
int ts_mode_is_ecb(int mode);
int ts_mode_is_cbc(int mode);

/* The aesgen call of `mode`: iv is used by CBC, ctr by CTR, the other ignored. */
int ts_crypt(int mode, const aesgen_ctx *ctx, uint8_t iv[16], aesgen_ctr *ctr, uint8_t *out,
             const uint8_t *in, size_t len);

/* c = c + n, c = c - n (mod 2^128), c a big-endian 128-bit counter block. */
void ts_ctr_add(uint8_t c[16], uint64_t n);
void ts_ctr_sub(uint8_t c[16], uint64_t n);

/* FIPS-197 appendix C: key 00 01 .. 1f (the first 16, 24 or 32 bytes), plaintext
 * 00 11 22 .. ff; ciphertexts of AES-128 (C.1), AES-192 (C.2), AES-256 (C.3). */
extern const uint8_t ts_fips197_key[32];
extern const uint8_t ts_fips197_pt[16];
extern const uint8_t ts_fips197_ct[3][16];

#endif
