/*
 * xts_common.h -- what the AES-XTS tests share (no OpenSSL: the vectors test also
 * runs in cross builds):
 *
 *   the subject of a run: one forced backend (--backend NAME: aesgen_force_backend,
 *   every XTS key size it serves), one pair of AES variants (enc and dec of one
 *   backend and key size, keys set up with aesgen_xts_init_variants), or automatic
 *   dispatch; key set-up for it, checking that what serves the key is the subject;
 *
 *   the pairs of AES variants this CPU runs (every usable variant of AES-128 and
 *   AES-256 in at least one pair), and the sector tweak (16-byte little-endian).
 */
#ifndef AESGEN_XTS_COMMON_H
#define AESGEN_XTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"
#include "aesgen_internal.h"

#define XTS_EXIT_PASS 0
#define XTS_EXIT_FAIL 1
#define XTS_EXIT_USAGE 2
#define XTS_EXIT_SKIP 77

#define XTS_MAX_UNIT (1u << 24) /* the longest data unit (2^20 blocks) */

/* ------------------------------------------------------------------ subject */

typedef struct xts_subject {
    const char *backend;           /* --backend, or NULL */
    const aesgen_variant *enc;     /* a variant pair, or NULL */
    const aesgen_variant *dec;
    unsigned bits[2];              /* the AES key sizes (128, 256) the subject serves */
    unsigned nbits;
    char name[160];                /* "backend aesni (forced)", "variants a + b", "automatic dispatch" */
} xts_subject;

/* Sets s up from --backend (NULL: automatic dispatch) and prints one line saying what
 * is under test. Returns XTS_EXIT_PASS, XTS_EXIT_FAIL (unknown name, a forced backend
 * refused), or XTS_EXIT_SKIP (the CPU cannot run it; "skipped: ..." printed). */
int xts_subject_init(xts_subject *s, const char *backend_name);

/* A subject of one variant pair (both usable, same key size, enc and dec). */
void xts_subject_pair(xts_subject *s, const aesgen_variant *enc, const aesgen_variant *dec);

/* 1 when the subject serves XTS keys of AES-`bits` (key_len = bits / 4 bytes). */
int xts_subject_serves(const xts_subject *s, unsigned bits);

/* Sets key up for the subject (k: key1 || key2, key_len 32 or 64) and checks that
 * the subject serves it (aesgen_xts_variant, both directions). Returns the status
 * of the set-up (AESGEN_OK or the error it returned, for the caller to judge), or
 * XTS_SUBJECT_MISMATCH with the reason in why[] when the key is served by
 * something else. */
#define XTS_SUBJECT_MISMATCH 1000
int xts_subject_key(const xts_subject *s, aesgen_xts_key *key, const uint8_t *k, size_t key_len, char *why,
                    size_t why_len);

/* --------------------------------------------------------------- variant pairs */

typedef struct xts_pair {
    const aesgen_variant *enc, *dec;
} xts_pair;

/* Pairs (enc, dec) of usable AES-128 or AES-256 variants, of the same backend where it
 * has both (the decryption variant of the same name first), so that each usable
 * variant of those sizes is in at least one pair. Writes at most max pairs to out;
 * returns how many there are. */
size_t xts_pairs(xts_pair *out, size_t max);

/* ----------------------------------------------------------------- tweaks */

/* The tweak of sector n: n as a 16-byte little-endian number. */
void xts_sector_tweak(uint8_t tweak[16], uint64_t n);

#endif
