/*
 * gcm_differential.h -- what the files of aesgen_gcm_differential share:
 *   gcm_differential_test.c   options, the case runner (aesgen against OpenSSL, guards,
 *                             tampering), main
 *   gcm_differential_cases.c  the sweeps: lengths, AAD, IV and tag lengths, offsets,
 *                             splits, large messages, the inc32 counter wrap
 *   gcm_gf128.c               the test's own GF(2^128) (IVs with a chosen J0)
 * The reference is OpenSSL EVP AES-GCM from the test support (ts_oracle_gcm.h, and
 * ts_oracle.h for single blocks), in the context gcm_ossl.
 */
#ifndef AESGEN_GCM_DIFFERENTIAL_H
#define AESGEN_GCM_DIFFERENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "gcm_common.h"
#include "ts_oracle.h"
#include "ts_oracle_gcm.h"

#define GCM_MAX_IV 1024                    /* IV lengths 1..1024 */
#define GCM_OSSL_MAX_IV TS_ORACLE_GCM_MAX_IV /* OpenSSL's: 1..128 (longer ones go through gcm_gf128) */
#define GCM_MAX_AAD (((size_t)1 << 16) + 64) /* AAD lengths 0..300, 64 KiB + 7, one more byte */
#define GCM_MAX_LEN (((size_t)1 << 20) + 64) /* 1 MiB + 13 is the largest message */

/* What a tampered open changes (TAMPER_NONE: nothing). */
enum {
    TAMPER_NONE = -1,
    TAMPER_CT_BIT,      /* one bit of the ciphertext */
    TAMPER_TAG_BIT,     /* one bit of the tag (within tag_len) */
    TAMPER_AAD_BIT,     /* one bit of the AAD */
    TAMPER_IV_BIT,      /* one bit of the IV */
    TAMPER_AAD_SHORT,   /* the AAD one byte shorter */
    TAMPER_AAD_LONG,    /* the AAD one byte longer */
    TAMPER_KINDS
};

typedef struct gcm_case {
    const char *sweep;
    unsigned bits;
    uint8_t key[32];
    uint8_t iv[GCM_MAX_IV];
    size_t iv_len;
    size_t aad_len; /* the AAD is gcm_aad[0..aad_len) */
    size_t len;     /* the plaintext is gcm_pt[0..len) */
    size_t tag_len;
    int in_place;
    size_t in_off, out_off; /* 0..15 past a 64-byte boundary */
    gcm_cuts aad_cuts, text_cuts;
    int tamper; /* TAMPER_* */
    /* the inc32 wrap: text block wrap_block has the counter ...00000000 (-1: none) */
    long wrap_block;
    uint8_t j0[16]; /* the pre-counter block, when wrap_block >= 0 */
} gcm_case;

/* The run (gcm_differential_test.c) */
typedef struct gcm_config {
    gcm_subject subject;
    int quick;
    uint64_t seed;
} gcm_config;

extern gcm_config gcm_cfg;
extern ts_rng gcm_rng;
extern uint8_t *gcm_pt;   /* GCM_MAX_LEN */
extern uint8_t *gcm_aad;  /* GCM_MAX_AAD */

/* A case with random key, IV (12 bytes, or with probability 1/8 any of 1..128), AAD of
 * up to aad_max bytes, plaintext of `len` bytes (the data drawn into gcm_pt/gcm_aad),
 * a random tag length, offsets, in place or not, cuts of up to 4 AAD and 6 text
 * pieces, and a random tampering. The sweeps adjust what they vary. */
void gcm_case_random(gcm_case *c, const char *sweep, unsigned bits, size_t len, size_t aad_max);
/* Redraws the data: gcm_pt[0..len), gcm_aad[0..aad_len) */
void gcm_case_data(const gcm_case *c);
/* Runs the case: OpenSSL seals; aesgen seals (one-shot and streamed) and must agree;
 * aesgen opens OpenSSL's output (one-shot and streamed); then the tampering, if any.
 * Counts a case of the current ts_subject; returns 1 when everything agreed. */
int gcm_case_run(gcm_case *c);

/* The sweeps (gcm_differential_cases.c), for one key size each. */
void gcm_sweep_lengths(unsigned bits);
void gcm_sweep_stitched(unsigned bits);
void gcm_sweep_aad(unsigned bits);
void gcm_sweep_iv(unsigned bits);
void gcm_sweep_tags(unsigned bits);
void gcm_sweep_offsets(unsigned bits);
void gcm_sweep_splits(unsigned bits);
void gcm_sweep_tamper(unsigned bits);
void gcm_sweep_large(unsigned bits);
void gcm_sweep_counter_wrap(unsigned bits);
/* Checks the test's GF(2^128) against OpenSSL's tag (exits on a disagreement). */
void gcm_check_gf128(void);

/* The OpenSSL oracle's context (gcm_differential_test.c): ts_oracle_gcm_seal/open and
 * ts_oracle_ecb_block run in it. */
extern EVP_CIPHER_CTX *gcm_ossl;
/* Ends the run when the oracle fails: failed is what a ts_oracle_* call returned
 * (NULL: success, nothing happens). */
void gcm_oracle_check(const char *failed);

#endif
