/*
 * gcm_gf128.h -- the test's own GF(2^128) of SP 800-38D (bit-serial, Algorithm 1 of
 * section 6.3; slow and obviously right), independent of the library's GHASH.
 *
 * The differential test needs it for one thing: an IV whose pre-counter block J0
 * is chosen in advance (its low 32 bits just below the wrap of inc32), which takes
 * solving GHASH for the first IV block, hence multiplication and inversion.
 * Blocks are 16 bytes, bit 0 the most significant bit of byte 0, as in the standard.
 */
#ifndef AESGEN_GCM_GF128_H
#define AESGEN_GCM_GF128_H

#include <stddef.h>
#include <stdint.h>

/* z = x * y */
void gf128_mul(uint8_t z[16], const uint8_t x[16], const uint8_t y[16]);
/* z = x^-1 (x != 0), as x^(2^128 - 2) */
void gf128_inv(uint8_t z[16], const uint8_t x[16]);
/* y = GHASH_H over data (len bytes, the last block zero-padded), continuing from y */
void gf128_ghash(uint8_t y[16], const uint8_t h[16], const uint8_t *data, size_t len);
/* J0 of SP 800-38D 7.1 step 2 for iv_len != 12: GHASH_H(IV || 0-pad || 0^64 || [8 iv_len]_64) */
void gf128_j0(uint8_t j0[16], const uint8_t h[16], const uint8_t *iv, size_t iv_len);
/* An IV of iv_len bytes (16..128) whose J0 is `target`: bytes 16.. of iv as given,
 * the first 16 solved for. Returns 0 when h is zero (no solution). */
int gf128_iv_for_j0(uint8_t *iv, size_t iv_len, const uint8_t h[16], const uint8_t target[16]);

#endif
