/*
 * gcm_common.h -- what the AES-GCM tests share (no OpenSSL: the vectors test also
 * runs in cross builds):
 *
 *   the subject of a run: one GHASH variant (--ghash NAME: every key set up with
 *   aesgen_gcm_init_variants(key, k, len, NULL, that GHASH)), one forced backend
 *   (--backend NAME: aesgen_force_backend, every key size it serves), or automatic
 *   dispatch; key set-up for it, checking that what serves the key is the subject;
 *
 *   the tag lengths GCM allows, random cut points, and one message through the
 *   streaming API (AAD and text each in any number of calls).
 */
#ifndef AESGEN_GCM_COMMON_H
#define AESGEN_GCM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_rng.h"

#define GCM_EXIT_PASS 0
#define GCM_EXIT_FAIL 1
#define GCM_EXIT_USAGE 2
#define GCM_EXIT_SKIP 77

/* ------------------------------------------------------------------ subject */

typedef struct gcm_subject {
    const aesgen_ghash_variant *ghash; /* --ghash, or NULL */
    const char *backend;               /* --backend, or NULL */
    unsigned bits[3];                  /* the key sizes the subject serves here */
    unsigned nbits;
} gcm_subject;

/* Sets s up from the --ghash / --backend values (at most one non-NULL; both NULL:
 * automatic) and prints one line saying what is under test. Returns GCM_EXIT_PASS
 * when the run can go on, GCM_EXIT_FAIL (unknown name, a forced backend refused),
 * or GCM_EXIT_SKIP (the CPU cannot run it; "skipped: ..." printed). */
int gcm_subject_init(gcm_subject *s, const char *ghash_name, const char *backend_name);

/* 1 when the subject serves keys of `bits`. */
int gcm_subject_serves(const gcm_subject *s, unsigned bits);

/* "GHASH ghash__portable_x4", "backend aesni (forced)" or "automatic dispatch". */
const char *gcm_subject_name(const gcm_subject *s);

/* Sets key up for the subject and checks that the subject serves it (the GHASH or
 * the backend named by aesgen_gcm_ghash / aesgen_gcm_variant). Returns 1, or 0
 * with the reason in why[]. */
int gcm_subject_key(const gcm_subject *s, aesgen_gcm_key *key, const uint8_t *k, size_t key_len,
                    char *why, size_t why_len);

/* -------------------------------------------------------------- tag lengths */

#define GCM_TAG_LENGTH_COUNT 7
extern const size_t gcm_tag_lengths[GCM_TAG_LENGTH_COUNT]; /* 16 15 14 13 12 8 4 */

/* ------------------------------------------------------------- cut points */

#define GCM_MAX_PIECES 12

/* Pieces of a message of `len` bytes: piece i is [cuts[i], cuts[i+1]); cuts[0] = 0,
 * cuts[pieces] = len, nondecreasing, so that a piece may be empty (an empty call). */
typedef struct gcm_cuts {
    size_t pieces;
    size_t at[GCM_MAX_PIECES + 1];
} gcm_cuts;

/* One piece: the whole message in one call. */
void gcm_cuts_whole(gcm_cuts *c, size_t len);
/* Two pieces, cut at `at` (<= len). */
void gcm_cuts_two(gcm_cuts *c, size_t len, size_t at);
/* 1..max_pieces pieces (max_pieces <= GCM_MAX_PIECES) at random points; about one
 * cut in six repeats the previous one or falls on a block boundary. */
void gcm_cuts_random(gcm_cuts *c, ts_rng *r, size_t len, size_t max_pieces);
/* " [0,5) [5,5) [5,40)" into buf. */
const char *gcm_cuts_format(const gcm_cuts *c, char *buf, size_t n);

/* ----------------------------------------------------------------- streams */

/* One message through aesgen_gcm_start/aad/update and then aesgen_gcm_finish (seal:
 * the tag is written to tag) or aesgen_gcm_verify (open: tag is compared). The AAD
 * goes in the pieces of aad_cuts, the text (in -> out, in place when out == in) in
 * those of text_cuts. Returns the status of the first call that does not return
 * AESGEN_OK (naming it in *failed: "start", "aad", "update", "finish", "verify"), or
 * AESGEN_OK with *failed = NULL. */
int gcm_stream_seal(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    const gcm_cuts *aad_cuts, uint8_t *out, const uint8_t *in, const gcm_cuts *text_cuts,
                    uint8_t *tag, size_t tag_len, const char **failed);
int gcm_stream_open(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    const gcm_cuts *aad_cuts, uint8_t *out, const uint8_t *in, const gcm_cuts *text_cuts,
                    const uint8_t *tag, size_t tag_len, const char **failed);

#endif
